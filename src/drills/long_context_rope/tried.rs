//! Try on a long-context-rope run: one copy sequence, at a length the
//! learner chooses or typed out, read by every arm the run compares — the
//! model as trained at `n` symbols, the same weights under PI, NTK-aware
//! scaling and YaRN (no training), and the two fine-tunes at the long
//! length — each arm's copy with its wrong positions marked and the first
//! one named.
//!
//! Each copy position is predicted from the true symbols before it (teacher
//! forcing, greedy), exactly as the run scores accuracy: a wrong position
//! does not spoil the ones after it, so the marks show where each reading
//! of the positions fails, not how errors pile up.

use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::{Device, Tensor, D};

use super::{copy_seq, scaled, Params};
use crate::drills::try_it::{
    self, Arm, KeptRun, TryAnswer, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::ml::data::Example;
use crate::ml::gpt::{Gpt, RopeScaling};
use crate::ml::rng::Rng;

/// The model trained at the short length (every other arm starts from its weights).
pub(super) const TRAINED: &str = "trained";
/// The two fine-tunes at the long length.
pub(super) const PI_FT: &str = "pi-ft";
pub(super) const NONE_FT: &str = "none-ft";

/// Symbols shown as letters up to this many, as numbers past it.
const LETTERS: usize = 26;

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let trained = run.tiny(TRAINED, device)?;
    let short_len = 2 * p.n + 1;
    let s = p.scale as f32;
    let hd = p.d_model / p.n_heads;
    // The learner's frequencies where the run trained with them, as the run read them.
    let plugs = run.plugs()?;
    let given = |ntk: bool| -> Result<Option<RopeScaling>> {
        match plugs.rope_inv_freq(hd, s, ntk) {
            None => Ok(None),
            Some(f) => Ok(Some(RopeScaling::Given { inv_freq: f? })),
        }
    };
    let pi = given(false)?.unwrap_or(RopeScaling::Linear { factor: s });
    let ntk = given(true)?.unwrap_or(RopeScaling::Ntk { factor: s });
    let yarn = RopeScaling::Yarn { factor: s, original: short_len, alpha: 1.0, beta: 32.0 };
    let scale = format!("{}", p.scale);
    let arms = vec![
        (Arm { id: TRAINED.into(), label: crate::t!("try-lc-trained", n = p.n.to_string()) }, trained.fork(0)?),
        (Arm { id: "pi".into(), label: crate::t!("try-lc-pi", s = scale.as_str()) }, scaled(&trained, pi)?),
        (Arm { id: "ntk".into(), label: crate::t!("try-lc-ntk", s = scale.as_str()) }, scaled(&trained, ntk)?),
        (Arm { id: "yarn".into(), label: crate::t!("try-lc-yarn", s = scale.as_str()) }, scaled(&trained, yarn)?),
        (
            Arm { id: PI_FT.into(), label: crate::t!("try-lc-pi-ft", steps = p.ft_steps.to_string()) },
            run.tiny(PI_FT, device)?,
        ),
        (
            Arm { id: NONE_FT.into(), label: crate::t!("try-lc-none-ft", steps = p.ft_steps.to_string()) },
            run.tiny(NONE_FT, device)?,
        ),
    ];
    // The run's first held-out sequence at each length (phase "data").
    let mut eval_rng = Rng::new(run.seed).fork(1);
    let mut held = Vec::new();
    for m in 1..=p.factor {
        let set: Vec<Example> = (0..p.eval_seqs).map(|_| copy_seq(&mut eval_rng, p, m * p.n)).collect();
        held.push(set[0].tokens[..m * p.n].to_vec());
    }
    Ok(Box::new(RopeTry { p: p.clone(), arms, held }))
}

struct RopeTry {
    p: Params,
    arms: Vec<(Arm, Gpt)>,
    /// The symbols of one held-out sequence at each length `n, 2n, …`.
    held: Vec<Vec<u32>>,
}

impl RopeTry {
    /// The most symbols a sequence may copy: `2L + 1` tokens within the model's context.
    fn max_symbols(&self) -> usize {
        self.p.factor * self.p.n
    }

    fn show(&self, s: u32) -> String {
        match self.p.symbols <= LETTERS {
            true => ((b'a' + s as u8) as char).to_string(),
            false => s.to_string(),
        }
    }

    /// A sequence as the learner types it: letters in blocks of eight, or numbers.
    fn spell(&self, xs: &[u32], wrong: &[bool]) -> String {
        let letters = self.p.symbols <= LETTERS;
        let mut out = String::new();
        for (i, &x) in xs.iter().enumerate() {
            let bad = wrong.get(i).copied().unwrap_or(false);
            if i > 0 && (!letters || i % 8 == 0) {
                out.push(' ');
            }
            match (letters, bad) {
                (true, true) => out.push_str(&self.show(x).to_uppercase()),
                (false, true) => out.push_str(&format!("{}*", self.show(x))),
                (_, false) => out.push_str(&self.show(x)),
            }
        }
        out
    }

    /// The typed input as sequences to copy: a length (that many random
    /// symbols per sample, from the seed) or the symbols themselves.
    fn sequences(&self, text: &str, opts: &TryOpts) -> Result<Vec<Vec<u32>>> {
        let max = self.max_symbols();
        let too_long = |len: usize| {
            try_it::refuse(crate::t!(
                "try-lc-too-long",
                len = len.to_string(),
                max = max.to_string(),
                context = (2 * max + 1).to_string()
            ))
        };
        let numbers: Vec<&str> = text.split([' ', ',']).filter(|w| !w.is_empty()).collect();
        let all_numbers = numbers.iter().all(|w| w.chars().all(|c| c.is_ascii_digit()));
        if numbers.len() == 1 && all_numbers {
            let len: usize = numbers[0].parse().unwrap_or(usize::MAX);
            if len == 0 {
                return try_it::refuse(self.bad_form());
            }
            if len > max {
                return too_long(len);
            }
            let mut rng = try_it::arm_rng(opts.seed);
            let n = opts.samples.clamp(1, try_it::MAX_SAMPLES);
            return Ok((0..n).map(|_| (0..len).map(|_| rng.below(self.p.symbols) as u32).collect()).collect());
        }
        let xs: Option<Vec<u32>> = match self.p.symbols <= LETTERS {
            true => text
                .chars()
                .filter(|c| !c.is_whitespace())
                .map(|c| {
                    let i = (c.to_ascii_lowercase() as u32).wrapping_sub('a' as u32);
                    (c.is_ascii_alphabetic() && (i as usize) < self.p.symbols).then_some(i)
                })
                .collect(),
            false => match all_numbers {
                true => {
                    numbers.iter().map(|w| w.parse::<u32>().ok().filter(|&x| (x as usize) < self.p.symbols)).collect()
                }
                false => None,
            },
        };
        match xs {
            None => try_it::refuse(self.bad_form()),
            Some(xs) if xs.len() > max => too_long(xs.len()),
            Some(xs) => Ok(vec![xs]),
        }
    }

    fn bad_form(&self) -> String {
        let example = self.held.first().map(|h| self.spell(h, &[])).unwrap_or_default();
        crate::t!(
            "try-lc-bad-input",
            symbols = self.p.symbols.to_string(),
            last = self.show(self.p.symbols as u32 - 1),
            max = self.max_symbols().to_string(),
            example = example
        )
    }

    /// Each copy position's greedy prediction from the true tokens before it.
    fn copy(&self, model: &Gpt, xs: &[u32]) -> Result<Vec<u32>> {
        let sep = self.p.symbols as u32;
        let tokens: Vec<u32> = xs.iter().copied().chain([sep]).chain(xs.iter().copied()).collect();
        let x = Tensor::new(&tokens[..tokens.len() - 1], &model.device)?.unsqueeze(0)?;
        let pred = model.forward(&x)?.argmax(D::Minus1)?.squeeze(0)?.to_vec1::<u32>()?;
        // Copy token i (at position L + 1 + i) is predicted at position L + i.
        Ok((0..xs.len()).map(|i| pred[xs.len() + i]).collect())
    }
}

impl TrySession for RopeTry {
    fn kind(&self) -> TryKind {
        TryKind::Columns
    }

    fn arms(&self) -> Vec<Arm> {
        try_it::arms_of(&self.arms)
    }

    /// The lengths the run read (`n` … `factor · n` symbols), then its first
    /// held-out sequence at the trained and at the longest length, typed out.
    fn examples(&self) -> Vec<String> {
        let mut out: Vec<String> = (1..=self.p.factor).map(|m| (m * self.p.n).to_string()).collect();
        for h in [self.held.first(), self.held.last()].into_iter().flatten() {
            out.push(self.spell(h, &[]));
        }
        out.dedup();
        out
    }

    fn prompt_hint(&self) -> String {
        crate::t!(
            "try-lc-hint",
            n = self.p.n.to_string(),
            max = self.max_symbols().to_string(),
            last = self.show(self.p.symbols as u32 - 1)
        )
    }

    fn defaults(&self) -> TryOpts {
        TryOpts::new(1, 0.0)
    }

    fn answer(
        &mut self,
        input: &str,
        opts: &TryOpts,
        progress: &mut dyn FnMut(&TryAnswer),
        cancel: &AtomicBool,
    ) -> Result<TryAnswer> {
        let text = try_it::checked_input(input, 4 * self.max_symbols() + 8)?;
        let seqs = self.sequences(text, opts)?;
        let len = seqs[0].len();
        let notes = vec![
            crate::t!(
                "try-lc-note-length",
                len = len.to_string(),
                tokens = (2 * len + 1).to_string(),
                n = self.p.n.to_string(),
                times = format!("{:.1}", len as f64 / self.p.n as f64)
            ),
            crate::t!("try-lc-note-read"),
        ];
        let mut answer = TryAnswer { input: text.to_string(), notes, columns: Vec::new() };
        for arm in opts.arms(&self.arms()) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id);
            let mut col = TryColumn::new(arm);
            let (mut right, mut total) = (0usize, 0usize);
            for xs in &seqs {
                let got = self.copy(model, xs)?;
                let wrong: Vec<bool> = got.iter().zip(xs).map(|(g, x)| g != x).collect();
                let ok = wrong.iter().filter(|w| !**w).count();
                right += ok;
                total += xs.len();
                let first = wrong.iter().position(|w| *w);
                let lines = vec![
                    format!("{} {}", crate::t!("try-lc-source"), self.spell(xs, &[])),
                    format!("{} {}", crate::t!("try-lc-copy"), self.spell(&got, &wrong)),
                ];
                let verdicts = vec![
                    Verdict::new(crate::t!("try-lc-right"), format!("{ok}/{}", xs.len()), Some(first.is_none())),
                    match first {
                        Some(i) => Verdict::new(crate::t!("try-lc-first-wrong"), (i + 1).to_string(), Some(false)),
                        None => Verdict::new(crate::t!("try-lc-first-wrong"), crate::t!("try-lc-none"), Some(true)),
                    },
                ];
                col.samples.push(TrySample { cells: Vec::new(), lines, verdicts, pending: false });
            }
            if seqs.len() > 1 {
                let acc = right as f64 / total.max(1) as f64;
                col.summary = vec![Verdict::new(crate::t!("try-lc-accuracy"), format!("{acc:.3}"), None)];
            }
            answer.columns.push(col);
            progress(&answer);
        }
        Ok(answer)
    }
}
