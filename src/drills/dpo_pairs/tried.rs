//! Try on a dpo-pairs run: a typed sum to the SFT model (every arm's start
//! and DPO's frozen reference), the DPO policy at each β, and SFT on the
//! chosen answers, side by side: `samples` answers each at the run's
//! temperature, judged by the drill's verifier (exactly the sum), with the
//! planted habit (every carry dropped) named where a sample has it.
//!
//! Each sample of a trained arm also shows `log π(y|x) − log π_ref(y|x)`:
//! how much more likely than the reference the arm made that answer (β
//! times it is DPO's implicit reward). Each arm's summary gives the summed
//! log-probability of the right answer and of the habit's answer, the two
//! numbers DPO pushes apart (the chosen up or at least less down than the
//! rejected one).

use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::Device;

use super::{Params, ALPHABET, SYSTEM};
use crate::drills::addition::{parse_problem, shown, Text};
use crate::drills::pipeline::{self, ModelChoice};
use crate::drills::try_it::{
    self, Arm, KeptRun, TryAnswer, TryCell, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::drills::TokenKind;
use crate::envs::refine_arith::{passes, Problem};
use crate::ml::lm::CausalLm;
use crate::ml::rng::Rng;
use crate::ml::sample::GenConfig;
use crate::ml::start::Model;
use crate::ml::tokenizer::CharTokenizer;
use crate::rl::dpo::DpoVariant;

/// The arms a run keeps.
pub(super) const SFT: &str = "sft";
pub(super) const DPO: &str = "dpo";
pub(super) const DPO_COMPARE: &str = "dpo-beta-compare";
pub(super) const SFT_ON_CHOSEN: &str = "sft-on-chosen";

/// The longest input read, in characters.
const MAX_INPUT: usize = 32;

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let (text, base) = match &p.model {
        ModelChoice::Tiny => (Text::Chars(CharTokenizer::new(ALPHABET, &[])), None),
        ModelChoice::Real(_) => {
            let (base, tok, fmt) = pipeline::real_base(run, SYSTEM, device)?;
            (Text::Chat { tok: Box::new(tok), fmt: Box::new(fmt) }, Some(base))
        }
    };
    let loss = match p.loss {
        DpoVariant::Sigmoid => "DPO",
        DpoVariant::Ipo => "IPO",
    };
    let labels = [
        (SFT, crate::t!("try-dpo-sft")),
        (DPO, format!("{loss} β = {}", p.beta)),
        (DPO_COMPARE, format!("{loss} β = {}", p.beta_compare)),
        (SFT_ON_CHOSEN, crate::t!("view-dpo-row-sft-chosen")),
    ];
    let mut arms = Vec::new();
    for (id, label) in labels {
        let model = pipeline::kept_model(run, id, base.as_ref(), device)?;
        arms.push((Arm { id: id.to_string(), label }, model));
    }
    // The run's held-out problems: its first draw (`run`'s `rng.fork(7)`),
    // those with a carry first (where the planted habit shows).
    let mut test_rng = Rng::new(run.seed).fork(7);
    let test: Vec<Problem> = (0..p.test_size).map(|_| Problem::random(p.digits, &mut test_rng)).collect();
    let mut examples: Vec<Problem> = Vec::new();
    for q in test.iter().filter(|q| q.has_carry()).chain(test.iter().filter(|q| !q.has_carry())) {
        if examples.len() < 12 && !examples.contains(q) {
            examples.push(*q);
        }
    }
    Ok(Box::new(DpoTry { p: p.clone(), text, test, examples, arms }))
}

struct DpoTry {
    p: Params,
    text: Text,
    test: Vec<Problem>,
    examples: Vec<Problem>,
    /// Each arm and its model, the SFT model (the reference) first.
    arms: Vec<(Arm, Model)>,
}

impl DpoTry {
    /// New tokens per answer: a BPE may spend a token on a space or split the digits (as the run's).
    fn max_new(&self) -> usize {
        match self.text {
            Text::Chars(_) => self.p.digits + 2,
            Text::Chat { .. } => self.p.digits + 4,
        }
    }

    /// The prompt and `answer` then the end token, as the model reads them.
    fn with_answer(&self, prompt: &[u32], answer: &str) -> Vec<u32> {
        let mut ids = prompt.to_vec();
        ids.extend(self.text.tokenizer().encode(answer));
        ids.push(self.text.eos());
        ids
    }
}

/// The summed log-probability `model` gives `ids[start..]`.
fn summed_logp(model: &dyn CausalLm, ids: &[u32], start: usize) -> Result<f64> {
    Ok(try_it::token_logps(model, ids, start)?.iter().flatten().map(|&l| l as f64).sum())
}

impl TrySession for DpoTry {
    fn kind(&self) -> TryKind {
        TryKind::Sampling
    }

    fn arms(&self) -> Vec<Arm> {
        try_it::arms_of(&self.arms)
    }

    fn examples(&self) -> Vec<String> {
        self.examples.iter().map(|q| format!("{}+{}", q.a, q.b)).collect()
    }

    fn prompt_hint(&self) -> String {
        crate::t!("try-add-hint", digits = self.p.digits.to_string())
    }

    fn defaults(&self) -> TryOpts {
        TryOpts::new(8, self.p.temperature as f32)
    }

    fn answer(
        &mut self,
        input: &str,
        opts: &TryOpts,
        progress: &mut dyn FnMut(&TryAnswer),
        cancel: &AtomicBool,
    ) -> Result<TryAnswer> {
        let text = try_it::checked_input(input, MAX_INPUT)?;
        let q = parse_problem(text, self.p.digits)?;
        let prompt = self.text.prompt(&q);
        let gold = self.text.gold(&q);
        let habit = self.text.written(&q.carry_dropped());
        let mut notes = vec![match q.has_carry() {
            true => crate::t!("try-dpo-note", gold = gold.as_str(), habit = habit.as_str()),
            false => crate::t!("try-dpo-note-no-carry", gold = gold.as_str()),
        }];
        if let Text::Chars(_) = self.text {
            notes.push(crate::t!(
                "try-add-note-chars",
                prompt = q.prompt(),
                gold = q.answer(),
                sum = (q.a + q.b).to_string()
            ));
        }
        if !self.test.contains(&q) {
            notes.push(crate::t!("try-dpo-not-held-out"));
        }
        notes.push(crate::t!("try-dpo-note-reward"));
        let mut out = TryAnswer { input: text.to_string(), notes, columns: Vec::new() };
        let (gold_ids, habit_ids) = (self.with_answer(&prompt, &gold), self.with_answer(&prompt, &habit));
        let n = opts.samples.clamp(1, try_it::MAX_SAMPLES);
        let max_new = self.max_new();
        let all = self.arms();
        for arm in opts.arms(&all) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id);
            let reference = self.arms[0].1.lm();
            let lm = model.lm();
            try_it::check_fits(prompt.len(), max_new, lm.context())?;
            let cfg = GenConfig::new(max_new, try_it::decoding(opts.temperature), self.text.stop());
            let outs = lm.generate(&vec![prompt.clone(); n], &cfg, &mut try_it::arm_rng(opts.seed))?;
            let mut col = TryColumn::new(arm);
            let (mut right, mut habits) = (0, 0);
            for o in &outs {
                let said = self.text.decode(o);
                let ids: Vec<u32> = prompt.iter().chain(o).copied().collect();
                let logp = try_it::token_logps(lm, &ids, prompt.len())?;
                let mut cells = vec![TryCell::new(shown(&self.text, &q), TokenKind::Prompt)];
                for (j, &t) in o.iter().enumerate() {
                    let piece =
                        if t == self.text.eos() { "⏎".to_string() } else { self.text.tokenizer().decode(&[t]) };
                    cells.push(TryCell { text: piece, kind: TokenKind::Trained, logp: logp[prompt.len() + j] });
                }
                let ok = passes(&said, &gold);
                let slipped = !ok && q.has_carry() && said == habit;
                right += usize::from(ok);
                habits += usize::from(slipped);
                let mut verdicts = vec![Verdict::check(crate::t!("try-dpo-right"), ok)];
                if slipped {
                    verdicts.push(Verdict::new(crate::t!("try-dpo-habit"), said.clone(), Some(false)));
                }
                if arm.id != SFT {
                    let mine: f64 = logp.iter().flatten().map(|&l| l as f64).sum();
                    let ratio = mine - summed_logp(reference, &ids, prompt.len())?;
                    verdicts.push(Verdict::new("log π/π_ref", format!("{ratio:+.2}"), None));
                }
                col.samples.push(TrySample { cells, verdicts, ..Default::default() });
            }
            let logp_of = |ids: &[u32]| -> Result<String> { Ok(format!("{:.2}", summed_logp(lm, ids, prompt.len())?)) };
            col.summary = vec![
                Verdict::new(crate::t!("try-dpo-right"), format!("{right}/{n}"), None),
                Verdict::new(crate::t!("try-dpo-habit"), format!("{habits}/{n}"), None),
                Verdict::new(crate::t!("try-dpo-logp-gold", gold = gold.as_str()), logp_of(&gold_ids)?, None),
            ];
            if q.has_carry() {
                let name = crate::t!("try-dpo-logp-habit", habit = habit.as_str());
                col.summary.push(Verdict::new(name, logp_of(&habit_ids)?, None));
            }
            out.columns.push(col);
            progress(&out);
        }
        Ok(out)
    }
}
