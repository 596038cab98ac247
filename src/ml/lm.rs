//! What a drill needs from a causal language model, whatever its architecture.
//!
//! ```text
//! tokens [B,T] (u32) → forward → logits [B,T,V]      (position t predicts token t+1)
//! ```
//!
//! Both the lab's own tiny [`Gpt`] and a checkpoint brought from the Hugging
//! Face hub ([`Llama`](super::llama::Llama)) implement it, so a training loop
//! written against `&dyn CausalLm` runs on either:
//!
//! ```no_run
//! # use agentlab::ml::lm::CausalLm;
//! # fn step(model: &dyn CausalLm, x: &candle_core::Tensor, y: &candle_core::Tensor) -> anyhow::Result<()> {
//! use agentlab::ml::{loss::masked_cross_entropy, optim::{AdamW, AdamWConfig}};
//! let mut opt = AdamW::new(model.trainable_vars(), AdamWConfig::default())?;
//! let loss = masked_cross_entropy(&model.forward(x)?, y)?;
//! opt.step(&loss.backward()?)?;
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;

use candle_core::{Device, Result, Tensor, Var};

use super::gpt::Gpt;
pub use super::memo::{reuse_plan, Memo};
use super::rng::Rng;
use super::sample::{GenConfig, Tap};

pub trait CausalLm {
    /// Logits `[B,T,V]` for token ids `[B,T]`, positions `0..T`, causal.
    fn forward(&self, tokens: &Tensor) -> Result<Tensor>;
    /// Every parameter by name (the checkpoint's own names for loaded models).
    fn vars(&self) -> BTreeMap<String, Var>;
    /// The parameters an optimizer should update: all of them, or only the
    /// adapters when the base is frozen (LoRA).
    fn trainable_vars(&self) -> Vec<Var> {
        self.vars().into_values().collect()
    }
    /// Mean cross-entropy over the positions whose label is not −100
    /// (`labels [B,T]`, i64). A model may skip the LM head where nothing is
    /// scored; the value is the same as `masked_cross_entropy(forward(tokens), labels)`.
    fn masked_loss(&self, tokens: &Tensor, labels: &Tensor) -> Result<Tensor> {
        super::loss::masked_cross_entropy(&self.forward(tokens)?, labels)
    }
    /// What a policy-gradient loss reads: `log π(targets[b,t] | tokens[b,..=t])`
    /// as `[B,T]` for `targets [B,T]` (u32; `tokens` may be longer), and, with
    /// `entropy`, each position's next-token entropy `[B,T]` (detached). Only
    /// positions where `keep [B,T]` is non-zero are needed: a model may skip
    /// the LM head elsewhere and return 0 there, so give a reference policy
    /// the same `keep` as the policy it is compared with.
    fn scored_logprobs(&self, tokens: &Tensor, targets: &Tensor, keep: &Tensor, entropy: bool) -> Result<Scored> {
        let _ = keep;
        let logits = self.forward(tokens)?.narrow(1, 0, targets.dim(1)?)?;
        Scored::from_logits(&logits, targets, entropy)
    }
    /// Longest sequence the model accepts.
    fn context(&self) -> usize;
    fn vocab(&self) -> usize;
    fn device(&self) -> &Device;
    /// New tokens for each prompt (each row's stop token kept if it stopped).
    fn generate(&self, prompts: &[Vec<u32>], cfg: &GenConfig, rng: &mut Rng) -> Result<Vec<Vec<u32>>>;
    /// [`generate`](CausalLm::generate) for multi-turn rollouts: `memo` keeps
    /// what the model computed for earlier calls (a K/V cache per sequence), so
    /// a prompt that extends an earlier prompt and its answer only computes its
    /// new tokens. Use one memo per rollout, while the weights do not change.
    /// Models without such a cache ignore it.
    fn generate_with(
        &self,
        prompts: &[Vec<u32>],
        cfg: &GenConfig,
        rng: &mut Rng,
        memo: &mut Memo,
    ) -> Result<Vec<Vec<u32>>> {
        self.generate_tapped(prompts, cfg, rng, memo, None)
    }
    /// [`generate_with`](CausalLm::generate_with) that shows `tap` every
    /// token as it is picked, with the logits it was drawn from (Try streams
    /// a turn token by token and colours it without a second pass). Models
    /// without a cache generate all at once and show `tap` nothing: a caller
    /// must not count on it.
    fn generate_tapped(
        &self,
        prompts: &[Vec<u32>],
        cfg: &GenConfig,
        rng: &mut Rng,
        memo: &mut Memo,
        tap: Option<&mut Tap<'_>>,
    ) -> Result<Vec<Vec<u32>>> {
        let _ = (memo, tap);
        self.generate(prompts, cfg, rng)
    }
}

/// Log-probabilities of chosen tokens and, when asked, the entropies of the
/// distributions they were drawn from ([`CausalLm::scored_logprobs`]).
pub struct Scored {
    pub logp: Tensor,
    pub entropy: Option<Tensor>,
}

impl Scored {
    /// From logits `[.., V]` and the chosen tokens `[..]`: one log-softmax
    /// serves both the chosen token's log-probability and the entropy.
    pub fn from_logits(logits: &Tensor, targets: &Tensor, entropy: bool) -> Result<Scored> {
        let lp = super::ops::log_softmax(logits)?;
        let logp = super::loss::pick_tokens(&lp, targets)?;
        let entropy = if entropy { Some(super::loss::entropy_from_logprobs(&lp.detach())?) } else { None };
        Ok(Scored { logp, entropy })
    }
}

impl CausalLm for Gpt {
    fn forward(&self, tokens: &Tensor) -> Result<Tensor> {
        Gpt::forward(self, tokens)
    }

    fn vars(&self) -> BTreeMap<String, Var> {
        Gpt::vars(self)
    }

    fn context(&self) -> usize {
        self.cfg.context
    }

    fn vocab(&self) -> usize {
        self.cfg.vocab
    }

    fn device(&self) -> &Device {
        &self.device
    }

    fn generate(&self, prompts: &[Vec<u32>], cfg: &GenConfig, rng: &mut Rng) -> Result<Vec<Vec<u32>>> {
        super::sample::generate(self, prompts, cfg, rng)
    }

    fn generate_tapped(
        &self,
        prompts: &[Vec<u32>],
        cfg: &GenConfig,
        rng: &mut Rng,
        memo: &mut Memo,
        tap: Option<&mut Tap<'_>>,
    ) -> Result<Vec<Vec<u32>>> {
        super::sample::generate_tapped(self, prompts, cfg, rng, memo, tap)
    }
}
