//! Try on a model-merging run: one word to θ₀ (the warm start every expert
//! and merge starts from), both experts and every merge the run made, in
//! columns; each answer judged against the task it was asked under.
//!
//! A bare word asks both tasks at once (`abcde` → `abcde!` for task A and
//! `ijklm#` for task B, the same word in B's letters), so a column that
//! gets both right is a model that kept both skills; a word with its
//! marker asks one. The run keeps θ₀ and the two experts; the merges are
//! made again from them exactly as the run made them: the task vectors,
//! λ* chosen on the same validation words, DARE's drops from the same
//! random stream.

use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::Device;

use super::{both, merge_label, merges, min2, Data, InputsB, Params};
use crate::continual::gpt_weights::{flatten, model_from};
use crate::continual::merge::{task_arithmetic, task_vector};
use crate::drills::try_it::{
    self, Arm, KeptRun, TryAnswer, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::envs::refine_arith::score;
use crate::envs::strings::{prompt_ids, StringTask, TaskPairs, LETTERS};
use crate::ml::base;
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;
use crate::ml::sample::GenConfig;
use crate::ml::tokenizer::{Bpe, Tokenize, EOS};

/// The arms a run keeps: θ₀ and the two experts.
pub(super) const WARM: &str = "warm-start";
pub(super) const EXPERT_A: &str = "expert-a";
pub(super) const EXPERT_B: &str = "expert-b";

/// Longest word asked.
const MAX_WORD: usize = 12;

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let (_, tok) = base::shipped(device)?;
    let theta0 = run.tiny(WARM, device)?;
    let (ea, eb) = (run.tiny(EXPERT_A, device)?, run.tiny(EXPERT_B, device)?);
    // The run's random stream, forked in the order its phases fork it.
    let mut rng = Rng::new(run.seed);
    let disjoint = p.inputs_b == InputsB::Disjoint;
    let a = StringTask::Upper.pairs(p.word_len, p.holdout, p.sweep_holdout, false, &mut rng.fork(1));
    let b = StringTask::Digits.pairs(p.word_len, p.holdout, p.sweep_holdout, disjoint, &mut rng.fork(2));
    let d = Data { a, b };
    rng.fork(9); // the warm start
    rng.fork(10); // expert A
    if p.init_b == super::InitB::Permuted {
        rng.fork(20); // expert B's permutation
    }
    rng.fork(11); // expert B
    let base_w = flatten(&theta0)?;
    let (wa, wb) = (flatten(&ea)?, flatten(&eb)?);
    let (ta, tb) = (task_vector(&base_w.data, &wa.data), task_vector(&base_w.data, &wb.data));
    let taus: [&[f32]; 2] = [&ta, &tb];
    // λ*: as the run's report measured it, else the run's sweep on the validation words, again.
    let tuned = match reported_lambda(&run.dir) {
        Some(l) => l,
        None => {
            let mut best = (0.0f64, f64::NEG_INFINITY);
            for i in 0..p.sweep_points {
                let l = p.sweep_max * i as f64 / (p.sweep_points - 1).max(1) as f64;
                let w = base_w.with_data(task_arithmetic(&base_w.data, &taus, l as f32));
                let acc = both(&model_from(&theta0, &w, run.seed)?, &tok, &d, p.sweep_holdout, true)?.chars;
                if min2(acc) > best.1 {
                    best = (l, min2(acc));
                }
            }
            best.0
        }
    };
    let made = merges(p, &base_w.data, [&wa.data, &wb.data], &taus, tuned, &mut rng);
    let mut arms = vec![
        (Arm { id: WARM.into(), label: crate::t!("try-mm-warm") }, theta0.fork(0)?, "θ₀".to_string()),
        (Arm { id: EXPERT_A.into(), label: crate::t!("try-mm-expert", arm = "A") }, ea, "θ₀ + τ_A".to_string()),
        (Arm { id: EXPERT_B.into(), label: crate::t!("try-mm-expert", arm = "B") }, eb, "θ₀ + τ_B".to_string()),
    ];
    for (m, id) in made.into_iter().zip(["average", "ta-fixed", "ta-tuned", "ties", "dare"]) {
        let model = model_from(&theta0, &base_w.with_data(m.weights), run.seed)?;
        arms.push((Arm { id: id.into(), label: merge_label(m.name) }, model, m.formula));
    }
    Ok(Box::new(MergeTry { p: p.clone(), tok, d, arms }))
}

/// λ* as the run measured it (its claim `tuned_lambda` in `report.json`;
/// the JSON number reads back as the same f64), if the run wrote one.
fn reported_lambda(dir: &std::path::Path) -> Option<f64> {
    let bytes = crate::fsutil::read_regular(&dir.join("report.json"), 1 << 20).ok()?;
    let report: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let claims = report.get("claims")?.as_array()?;
    let claim = claims.iter().find(|c| c.get("id").and_then(|i| i.as_str()) == Some("tuned_lambda"))?;
    claim.get("measured")?.as_f64().filter(|l| l.is_finite())
}

struct MergeTry {
    p: Params,
    tok: Bpe,
    d: Data,
    /// Each model, with its weights as a formula (`θ₀ + 0.88·(τ_A + τ_B)`).
    arms: Vec<(Arm, Gpt, String)>,
}

/// One prompt to ask: which task, the prompt, the gold answer.
struct Ask {
    task: &'static str,
    prompt: String,
    gold: String,
}

impl MergeTry {
    fn disjoint(&self) -> bool {
        self.p.inputs_b == InputsB::Disjoint
    }

    /// Task B's letters: `i`–`p` when its inputs are disjoint from A's.
    fn b_letters(&self) -> String {
        match self.disjoint() {
            true => LETTERS.chars().map(|c| (c as u8 + 8) as char).collect(),
            false => LETTERS.to_string(),
        }
    }

    /// A word in task A's letters and in task B's.
    fn both_ways(&self, w: &str) -> (String, String) {
        let shift =
            |w: &str, by: i8| -> String { w.chars().map(|c| (c as u8).wrapping_add_signed(by) as char).collect() };
        let in_a = w.chars().all(|c| LETTERS.contains(c));
        match (self.disjoint(), in_a) {
            (false, _) => (w.to_string(), w.to_string()),
            (true, true) => (w.to_string(), shift(w, 8)),
            (true, false) => (shift(w, -8), w.to_string()),
        }
    }

    /// The prompts an input asks: `word!` task A, `word#` task B, a bare word both.
    fn asks(&self, text: &str) -> Result<Vec<Ask>> {
        let (a_letters, b_letters) = (LETTERS.to_string(), self.b_letters());
        let over = |w: &str, letters: &str| {
            !w.is_empty() && w.chars().count() <= MAX_WORD && w.chars().all(|c| letters.contains(c))
        };
        let a = |w: &str| Ask { task: "A", prompt: StringTask::Upper.prompt(w), gold: StringTask::Upper.answer(w) };
        let b = |w: &str| {
            // B's answer reads the word in a–h (`ijklm#` is read as `abcde#`).
            let (plain, _) = self.both_ways(w);
            Ask { task: "B", prompt: StringTask::Digits.prompt(w), gold: StringTask::Digits.answer(&plain) }
        };
        let asks = if let Some(w) = text.strip_suffix(StringTask::Upper.marker()) {
            over(w, &a_letters).then(|| vec![a(w)])
        } else if let Some(w) = text.strip_suffix(StringTask::Digits.marker()) {
            over(w, &b_letters).then(|| vec![b(w)])
        } else if over(text, &a_letters) || over(text, &b_letters) {
            let (wa, wb) = self.both_ways(text);
            Some(vec![a(&wa), b(&wb)])
        } else {
            None
        };
        match asks {
            Some(a) => Ok(a),
            None => try_it::refuse(crate::t!(
                "try-mm-bad-input",
                a = self.d.a.test[0].0.as_str(),
                b = self.d.b.test[0].0.as_str(),
                max = MAX_WORD.to_string(),
                b_letters = b_letters
            )),
        }
    }

    /// Where a prompt lies in its task's split: held out, a validation word, or in the training pool.
    fn seen(&self, task: &str, prompt: &str) -> String {
        let t: &TaskPairs = if task == "A" { &self.d.a } else { &self.d.b };
        let has = |set: &[(String, String)]| set.iter().any(|(q, _)| q == prompt);
        match (has(&t.test), has(&t.val)) {
            (true, _) => crate::t!("try-mm-held"),
            (_, true) => crate::t!("try-mm-val"),
            _ => crate::t!("try-mm-train"),
        }
    }
}

impl TrySession for MergeTry {
    fn kind(&self) -> TryKind {
        TryKind::Columns
    }

    fn arms(&self) -> Vec<Arm> {
        self.arms.iter().map(|(a, ..)| a.clone()).collect()
    }

    /// Bare words held out under both tasks, then held-out prompts of each task.
    fn examples(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .d
            .a
            .test
            .iter()
            .filter_map(|(q, _)| {
                let w = q.strip_suffix(StringTask::Upper.marker())?;
                let (_, wb) = self.both_ways(w);
                let pb = StringTask::Digits.prompt(&wb);
                self.d.b.test.iter().any(|(x, _)| *x == pb).then(|| w.to_string())
            })
            .take(4)
            .collect();
        out.extend(self.d.a.test.iter().take(4).map(|(q, _)| q.clone()));
        out.extend(self.d.b.test.iter().take(4).map(|(q, _)| q.clone()));
        out
    }

    fn prompt_hint(&self) -> String {
        crate::t!("try-mm-hint", a = self.d.a.test[0].0.as_str(), b = self.d.b.test[0].0.as_str())
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
        let text = try_it::checked_input(input, MAX_WORD + 1)?;
        let asks = self.asks(text)?;
        let notes = asks
            .iter()
            .map(|a| {
                let name = if a.task == "A" { &self.d.a.name } else { &self.d.b.name };
                let seen = self.seen(a.task, &a.prompt);
                crate::t!(
                    "try-mm-note",
                    task = format!("{} {name}", a.task),
                    prompt = a.prompt.as_str(),
                    gold = a.gold.as_str(),
                    seen = seen
                )
            })
            .collect();
        let mut answer = TryAnswer { input: text.to_string(), notes, columns: Vec::new() };
        let spell = |t: u32| if t == EOS { "⏎".to_string() } else { self.tok.decode(&[t]) };
        for arm in opts.arms(&self.arms()) {
            try_it::check(cancel)?;
            let (_, model, formula) = self.arms.iter().find(|(a, ..)| a.id == arm.id).expect("an arm of this session");
            let mut col = TryColumn::new(arm);
            let mut totals = Vec::new();
            for ask in &asks {
                let prompt = prompt_ids(&self.tok, &ask.prompt);
                let cfg = GenConfig::new(ask.gold.chars().count() + 1, try_it::decoding(opts.temperature), vec![EOS]);
                let (mut chars, mut exact) = (0.0, 0usize);
                let outs = try_it::complete(model, &prompt, &ask.prompt, &cfg, opts, &spell)?;
                let n = outs.len();
                for c in outs {
                    let said: String = c.ids.iter().filter(|&&t| t != EOS).map(|&t| self.tok.decode(&[t])).collect();
                    let s = score(&said, &ask.gold);
                    let whole = said == ask.gold && c.ids.last() == Some(&EOS);
                    chars += s;
                    exact += usize::from(whole);
                    let verdicts = vec![Verdict::new(
                        format!("{} {}", ask.task, crate::t!("try-mm-chars")),
                        format!("{s:.2}"),
                        Some(whole),
                    )];
                    col.samples.push(TrySample { cells: c.cells, lines: Vec::new(), verdicts, pending: false });
                }
                totals.push(Verdict::new(
                    format!("{} {}", ask.task, crate::t!("try-mm-chars")),
                    format!("{:.2} · {exact}/{n}", chars / n as f64),
                    None,
                ));
            }
            col.summary = std::iter::once(Verdict::new(crate::t!("try-mm-weights"), formula.clone(), None))
                .chain(totals.into_iter().filter(|_| opts.samples > 1))
                .collect();
            answer.columns.push(col);
            progress(&answer);
        }
        Ok(answer)
    }
}
