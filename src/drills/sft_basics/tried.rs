//! Try on an sft-basics run: a typed sum to the random init the run started
//! from and to the model its SFT trained, side by side, `samples` answers
//! each at a temperature, every answer judged against the true sum.
//!
//! The random init writes digits at random (each of its 13 characters about
//! equally likely), the trained model writes the sum: the column beside the
//! trained one is what the training bought. Besides the samples, each arm's
//! probability of the whole right answer (`p(gold)`, at temperature 1) says
//! the same in one number.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::Device;

use super::{encode, Params, Sum};
use crate::drills::addition::parse_problem;
use crate::drills::try_it::{
    self, Arm, KeptRun, TryAnswer, TryCell, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::drills::TokenKind;
use crate::ml::gpt::Gpt;
use crate::ml::lm::CausalLm;
use crate::ml::rng::Rng;
use crate::ml::sample::GenConfig;
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS};

/// The arms a run keeps: the weights before the first step and after the last.
pub(super) const INIT: &str = "random-init";
pub(super) const TRAINED: &str = "trained";

/// The longest input read, in characters (`37 + 45 =` and some spaces).
const MAX_INPUT: usize = 24;

/// New tokens per answer: three digits and the end token, as the drill's evaluation.
const MAX_NEW: usize = 4;

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let tok = CharTokenizer::new("0123456789+=", &[]);
    let arms = [(INIT, crate::t!("try-sft-init")), (TRAINED, crate::t!("try-sft-trained"))]
        .into_iter()
        .map(|(id, label)| Ok((Arm { id: id.to_string(), label }, run.tiny(id, device)?)))
        .collect::<Result<Vec<_>>>()?;
    // The run's held-out pairs: its first draw (`run`'s shuffle of every pair).
    let mut pairs: Vec<(u32, u32)> = (0..100).flat_map(|a| (0..100).map(move |b| (a, b))).collect();
    Rng::new(run.seed).shuffle(&mut pairs);
    let held: Vec<(u32, u32)> = pairs[..p.holdout.min(pairs.len() / 2)].to_vec();
    Ok(Box::new(SftTry { p: p.clone(), tok, held_set: held.iter().copied().collect(), held, arms }))
}

struct SftTry {
    p: Params,
    tok: CharTokenizer,
    held: Vec<(u32, u32)>,
    held_set: HashSet<(u32, u32)>,
    arms: Vec<(Arm, Gpt)>,
}

impl SftTry {
    /// The digits as the model writes them, read back as a number (`280` → 82 when reversed).
    fn read(&self, written: &str) -> Option<u32> {
        let digits: String = match self.p.reverse_answer {
            true => written.chars().rev().collect(),
            false => written.to_string(),
        };
        (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())).then(|| digits.parse().ok()).flatten()
    }
}

impl TrySession for SftTry {
    fn kind(&self) -> TryKind {
        TryKind::Sampling
    }

    fn arms(&self) -> Vec<Arm> {
        try_it::arms_of(&self.arms)
    }

    fn examples(&self) -> Vec<String> {
        self.held.iter().take(12).map(|(a, b)| format!("{a:02}+{b:02}=")).collect()
    }

    fn prompt_hint(&self) -> String {
        crate::t!("try-sft-hint")
    }

    fn defaults(&self) -> TryOpts {
        TryOpts::new(4, 1.0)
    }

    fn answer(
        &mut self,
        input: &str,
        opts: &TryOpts,
        progress: &mut dyn FnMut(&TryAnswer),
        cancel: &AtomicBool,
    ) -> Result<TryAnswer> {
        let text = try_it::checked_input(input, MAX_INPUT)?;
        let q = parse_problem(text, 2)?;
        let (sum, _) = encode(&self.tok, q.a, q.b, self.p.reverse_answer, self.p.mask_prompt);
        let Sum { prompt, answer: gold } = sum;
        let gold_text = self.tok.decode(&gold);
        let shown = self.tok.decode(&prompt);
        let order = match self.p.reverse_answer {
            true => crate::t!("try-sft-reversed"),
            false => crate::t!("try-sft-plain"),
        };
        let seen = match self.held_set.contains(&(q.a, q.b)) {
            true => crate::t!("try-sft-held-out"),
            false => crate::t!("try-sft-trained-on"),
        };
        let note = crate::t!(
            "try-sft-note",
            prompt = shown.as_str(),
            gold = gold_text.as_str(),
            sum = (q.a + q.b).to_string(),
            order = order,
            seen = seen
        );
        let mut out = TryAnswer { input: text.to_string(), notes: vec![note], columns: Vec::new() };
        let n = opts.samples.clamp(1, try_it::MAX_SAMPLES);
        let all = self.arms();
        for arm in opts.arms(&all) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id);
            try_it::check_fits(prompt.len(), MAX_NEW, model.context())?;
            let cfg = GenConfig::new(MAX_NEW, try_it::decoding(opts.temperature), vec![EOS]);
            let outs = model.generate(&vec![prompt.clone(); n], &cfg, &mut try_it::arm_rng(opts.seed))?;
            let mut col = TryColumn::new(arm);
            let mut right = 0;
            for o in &outs {
                let ids: Vec<u32> = prompt.iter().chain(o).copied().collect();
                let logp = try_it::token_logps(model, &ids, prompt.len())?;
                let mut cells = vec![TryCell::new(shown.clone(), TokenKind::Prompt)];
                for (j, &t) in o.iter().enumerate() {
                    let piece = if t == EOS { "⏎".to_string() } else { self.tok.decode(&[t]) };
                    cells.push(TryCell { text: piece, kind: TokenKind::Trained, logp: logp[prompt.len() + j] });
                }
                let exact = *o == gold;
                right += usize::from(exact);
                let written = self.tok.decode(&o.iter().copied().filter(|&t| t != EOS).collect::<Vec<_>>());
                let digits_right = written.chars().zip(gold_text.chars()).filter(|(a, b)| a == b).count();
                let reads = match self.read(&written) {
                    Some(v) => v.to_string(),
                    None => crate::t!("try-sft-no-number"),
                };
                let verdicts = vec![
                    Verdict::check("exact", exact),
                    Verdict::new(crate::t!("try-sft-reads"), reads, Some(exact)),
                    Verdict::new(crate::t!("try-sft-digits"), format!("{digits_right}/{}", gold_text.len()), None),
                ];
                col.samples.push(TrySample { cells, verdicts, ..Default::default() });
            }
            col.summary = vec![
                Verdict::new("exact", format!("{right}/{n}"), None),
                Verdict::new("p(gold)", probability(gold_probability(model, &prompt, &gold)?), None),
            ];
            out.columns.push(col);
            progress(&out);
        }
        Ok(out)
    }
}

/// A probability with three decimals, or in scientific notation below 0.001 (a random init's `2.1e-5`).
fn probability(p: f64) -> String {
    match p < 1e-3 {
        true => format!("{p:.1e}"),
        false => format!("{p:.3}"),
    }
}

/// The probability that `model` writes exactly `gold` after `prompt` (at temperature 1).
fn gold_probability(model: &dyn CausalLm, prompt: &[u32], gold: &[u32]) -> Result<f64> {
    let ids: Vec<u32> = prompt.iter().chain(gold).copied().collect();
    let logp = try_it::token_logps(model, &ids, prompt.len())?;
    Ok(logp.iter().flatten().map(|&l| l as f64).sum::<f64>().exp())
}
