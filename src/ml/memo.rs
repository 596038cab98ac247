//! What a model keeps between the turns of a multi-turn rollout
//! ([`CausalLm::generate_with`](super::lm::CausalLm::generate_with)), and
//! which remembered prefix a new prompt reuses. Below both `lm` (which
//! re-exports it) and the samplers (`sample`, `llama`) that fill it.

/// What a model remembers between calls of `CausalLm::generate_with`; each
/// model keeps its own kind of state in it.
#[derive(Default)]
pub struct Memo(pub Option<Box<dyn std::any::Any + Send>>);

impl Memo {
    /// The model's state of type `T`, created empty on first use (or when
    /// the memo held another model's kind of state).
    pub fn state<T: Default + Send + 'static>(&mut self) -> &mut T {
        if !self.0.as_ref().is_some_and(|m| m.is::<T>()) {
            self.0 = Some(Box::new(T::default()));
        }
        self.0.as_mut().and_then(|m| m.downcast_mut()).expect("a T was just ensured")
    }
}

/// For each prompt, the remembered sequence (by index into `seen`, the
/// token lists of what a memo holds) that shares the longest prefix with it,
/// and how many of its tokens to reuse: at least one prompt token is always
/// read anew, since its logits start the answer. Ties go to the earliest.
pub fn reuse_plan<'a>(
    seen: impl Iterator<Item = &'a [u32]> + Clone,
    prompts: &[Vec<u32>],
) -> Vec<(usize, Option<usize>)> {
    prompts
        .iter()
        .map(|p| {
            let best = seen
                .clone()
                .enumerate()
                .map(|(k, r)| (r.iter().zip(p).take_while(|(a, b)| a == b).count(), k))
                .max_by_key(|&(n, k)| (n, std::cmp::Reverse(k)));
            match best {
                Some((n, k)) if n > 0 && p.len() > 1 => (n.min(p.len() - 1), Some(k)),
                _ => (0, None),
            }
        })
        .collect()
}
