//! Try on a self-refine-loop run: a typed sum to the model after its SFT and
//! to the same model after the STaR rounds, each running the drill's loop —
//! draft, critique, revision, … — with keep-best, every step judged by the
//! verifier: its score (the share of digits right) and whether it passes.
//!
//! The critic is the run's (`critic`), or flipped with the `self-critic`
//! switch: the verifier's digit marks, or the model critiquing its own
//! answer, keep-best and stopping trusting what it says. With the model as
//! critic each of its critiques is checked against the verifier's, so an
//! approved error shows where it happens.

use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::Device;

use super::{Critic, Params, SYSTEM};
use crate::continual::KeepBest;
use crate::drills::addition::parse_problem;
use crate::drills::pipeline::{self, ModelChoice};
use crate::drills::try_it::{
    self, Arm, KeptRun, Switch, TryAnswer, TryCell, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::drills::TokenKind;
use crate::envs::refine_arith::{
    critic_tail, critique, critique_score, passes, revise_tail, score, HeldOut, Problem, ALPHABET, CRIT_OPEN, REV_OPEN,
};
use crate::envs::refine_codec::Codec;
use crate::ml::lm::CausalLm;
use crate::ml::rng::Rng;
use crate::ml::sample::{Decoding, GenConfig};
use crate::ml::start::Model;
use crate::ml::tokenizer::CharTokenizer;

/// The arms a run keeps: the model after its SFT, and the same model after the STaR rounds.
pub(crate) const SFT: &str = "sft";
pub(crate) const AFTER_STAR: &str = "after-star";

/// The switch: the model critiques itself (on), or the verifier does (off).
const SELF_CRITIC: &str = "self-critic";

/// The longest input read, in characters.
const MAX_INPUT: usize = 40;

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let (codec, base) = match &p.model {
        ModelChoice::Tiny => (Codec::Chars(CharTokenizer::new(ALPHABET, &[])), None),
        ModelChoice::Real(_) => {
            let (base, tok, fmt) = pipeline::real_base(run, SYSTEM, device)?;
            (Codec::chat(tok, fmt)?, Some(base))
        }
    };
    let labels = [
        (SFT, crate::t!("try-refine-sft")),
        (AFTER_STAR, crate::t!("try-refine-after-star", rounds = p.star_iters.to_string())),
    ];
    let mut arms = Vec::new();
    for (id, label) in labels {
        arms.push((Arm { id: id.to_string(), label }, pipeline::kept_model(run, id, base.as_ref(), device)?));
    }
    // The run's held-out problems (its `data`: the first draw, `rng.fork(7)`), those
    // whose first draft the SFT model gets wrong first: there the loop has work to do.
    let test = HeldOut::new(p.digits, p.test_size, &mut Rng::new(run.seed).fork(7)).test;
    let mut distinct: Vec<Problem> = Vec::new();
    for q in test {
        if !distinct.contains(&q) {
            distinct.push(q);
        }
    }
    let g = Gen { codec: &codec, width: p.digits + 1 };
    let drafts = g.complete(arms[0].1.lm(), &distinct.iter().map(|q| (*q, String::new())).collect::<Vec<_>>(), None)?;
    let wrong = |i: &usize| !passes(&drafts[*i].1, &distinct[*i].answer());
    let order: Vec<usize> =
        (0..distinct.len()).filter(wrong).chain((0..distinct.len()).filter(|i| !wrong(i))).collect();
    let examples = order.into_iter().take(12).map(|i| distinct[i]).collect();
    Ok(Box::new(RefineTry { p: p.clone(), codec, held: distinct, examples, arms }))
}

struct RefineTry {
    p: Params,
    codec: Codec,
    held: Vec<Problem>,
    examples: Vec<Problem>,
    arms: Vec<(Arm, Model)>,
}

/// Completions of problems after their tails, as the drill's loop asks for them.
struct Gen<'a> {
    codec: &'a Codec,
    width: usize,
}

impl Gen<'_> {
    /// One completion of each `(problem, tail)` up to `stop` (the end token
    /// when `None`), greedy, or sampled by `how`: its new tokens (without the
    /// stop) and its text.
    fn complete(
        &self,
        model: &dyn CausalLm,
        items: &[(Problem, String)],
        how: Option<(Decoding, &mut Rng)>,
    ) -> Result<Vec<(Vec<u32>, String)>> {
        self.complete_to(model, items, self.codec.eos(), how)
    }

    fn complete_to(
        &self,
        model: &dyn CausalLm,
        items: &[(Problem, String)],
        stop: u32,
        how: Option<(Decoding, &mut Rng)>,
    ) -> Result<Vec<(Vec<u32>, String)>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<Vec<u32>> = items.iter().map(|(q, tail)| self.codec.prompt(q, tail)).collect();
        let eos = self.codec.eos();
        let (decoding, mut zero) = (Decoding::Greedy, Rng::new(0));
        let (decoding, rng) = match how {
            Some((d, r)) => (d, r),
            None => (decoding, &mut zero),
        };
        let out = model.generate(&ids, &GenConfig::new(self.width + 1, decoding, vec![stop, eos]), rng)?;
        Ok(out
            .into_iter()
            .map(|o| {
                let kept: Vec<u32> = o.into_iter().filter(|&t| t != stop && t != eos).collect();
                let text = self.codec.text(&kept);
                (kept, text)
            })
            .collect())
    }
}

/// One episode of the loop, step by step.
struct Episode {
    q: Problem,
    /// Each version (the draft first) and its tokens.
    versions: Vec<(Vec<u32>, String)>,
    /// Each version's critique, and its tokens when the model wrote it.
    critiques: Vec<(Option<Vec<u32>>, String)>,
    best: KeepBest,
    stopped: bool,
}

impl RefineTry {
    /// The drill's loop on `n` copies of `q` with `model`: draft, then critique
    /// and revise until the critic passes a version or `rounds` revisions are made.
    fn episodes(
        &self,
        model: &dyn CausalLm,
        q: Problem,
        n: usize,
        critic: Critic,
        how: (Decoding, &mut Rng),
        cancel: &AtomicBool,
    ) -> Result<Vec<Episode>> {
        let (decoding, rng) = how;
        let g = Gen { codec: &self.codec, width: self.p.digits + 1 };
        let gold = q.answer();
        let drafts = g.complete(model, &vec![(q, String::new()); n], Some((decoding, &mut *rng)))?;
        let mut eps: Vec<Episode> = drafts
            .into_iter()
            .map(|d| Episode {
                q,
                versions: vec![d],
                critiques: Vec::new(),
                best: KeepBest::new(0.0, 0.0),
                stopped: false,
            })
            .collect();
        // Critique every open episode's latest version; keep-best scores it with the critic's opinion.
        let judge = |eps: &mut Vec<Episode>, open: &[usize], first: bool, rng: &mut Rng| -> Result<()> {
            let latest: Vec<String> =
                open.iter().map(|&i| eps[i].versions.last().expect("a draft").1.clone()).collect();
            let crits: Vec<(Option<Vec<u32>>, String)> = match critic {
                Critic::Verifier => latest.iter().map(|v| (None, critique(v, &gold))).collect(),
                Critic::Model => {
                    let items: Vec<(Problem, String)> = latest.iter().map(|v| (q, critic_tail(v))).collect();
                    let out = g.complete_to(model, &items, self.codec.rev_stop(), Some((decoding, rng)))?;
                    out.into_iter().map(|(ids, c)| (Some(ids), c)).collect()
                }
            };
            for ((&i, v), c) in open.iter().zip(&latest).zip(crits) {
                let select = match critic {
                    Critic::Verifier => score(v, &gold),
                    Critic::Model => critique_score(&c.1, g.width),
                };
                let e = &mut eps[i];
                match first {
                    true => e.best = KeepBest::new(select, score(v, &gold)),
                    false => {
                        e.best.push(select, score(v, &gold));
                    }
                }
                e.stopped = select >= 1.0;
                e.critiques.push(c);
            }
            Ok(())
        };
        let all: Vec<usize> = (0..n).collect();
        judge(&mut eps, &all, true, rng)?;
        for _ in 0..self.p.rounds {
            try_it::check(cancel)?;
            let open: Vec<usize> = (0..n).filter(|&i| !eps[i].stopped).collect();
            if open.is_empty() {
                break;
            }
            let items: Vec<(Problem, String)> = open
                .iter()
                .map(|&i| {
                    let e = &eps[i];
                    (q, revise_tail(&e.versions.last().expect("a draft").1, &e.critiques.last().expect("judged").1))
                })
                .collect();
            let revisions = g.complete(model, &items, Some((decoding, &mut *rng)))?;
            for (&i, r) in open.iter().zip(revisions) {
                eps[i].versions.push(r);
            }
            judge(&mut eps, &open, false, rng)?;
        }
        Ok(eps)
    }

    /// An episode as the model read and wrote it (`347+285=2260|.^..>2360|....`),
    /// with each step's verdicts.
    fn sample(&self, model: &dyn CausalLm, e: &Episode, critic: Critic) -> Result<TrySample> {
        let gold = e.q.answer();
        let mut cells = vec![TryCell::new(e.q.prompt(), TokenKind::Prompt)];
        // The tokens a model wrote after `tail`, with their log-probabilities under it.
        let written = |tail: &str, ids: &[u32]| -> Result<Vec<TryCell>> {
            let prompt = self.codec.prompt(&e.q, tail);
            let all: Vec<u32> = prompt.iter().chain(ids).copied().collect();
            let logp = try_it::token_logps(model, &all, prompt.len())?;
            Ok(ids
                .iter()
                .enumerate()
                .map(|(j, &t)| TryCell {
                    text: self.codec.token_text(t),
                    kind: TokenKind::Trained,
                    logp: logp[prompt.len() + j],
                })
                .collect())
        };
        let mut verdicts = Vec::new();
        let mut tail = String::new();
        for (k, (ids, v)) in e.versions.iter().enumerate() {
            if k > 0 {
                cells.push(TryCell::new(REV_OPEN.to_string(), TokenKind::Masked));
            }
            cells.extend(written(&tail, ids)?);
            let name = match k {
                0 => crate::t!("try-refine-draft"),
                _ => crate::t!("try-refine-revision", k = k.to_string()),
            };
            let shown = if v.is_empty() { "∅".to_string() } else { v.clone() };
            verdicts.push(Verdict::new(&name, format!("{shown} · {:.2}", score(v, &gold)), Some(passes(v, &gold))));
            let Some((crit_ids, c)) = e.critiques.get(k) else { break };
            match crit_ids {
                None => cells.push(TryCell::new(format!("{CRIT_OPEN}{c}"), TokenKind::Masked)),
                Some(ids) => {
                    cells.push(TryCell::new(CRIT_OPEN.to_string(), TokenKind::Masked));
                    cells.extend(written(&critic_tail(v), ids)?);
                    let truth = critique(v, &gold);
                    let says = crate::t!("try-refine-critique-vs", own = c.as_str(), verifier = truth.as_str());
                    let of = crate::t!("try-refine-critique", version = name.as_str());
                    verdicts.push(Verdict::new(of, says, Some(*c == truth)));
                }
            }
            tail = revise_tail(v, c);
        }
        let kept = &e.versions[e.best.best].1;
        let which = match e.best.best {
            0 => crate::t!("try-refine-draft"),
            k => crate::t!("try-refine-revision", k = k.to_string()),
        };
        verdicts.push(Verdict::new(
            crate::t!("try-refine-kept"),
            format!("{kept} ({which})"),
            Some(passes(kept, &gold)),
        ));
        if critic == Critic::Model && e.best.select[e.best.best] >= 1.0 && !passes(kept, &gold) {
            verdicts.push(Verdict::new(crate::t!("try-refine-approved"), kept.clone(), Some(false)));
        }
        Ok(TrySample { cells, verdicts, ..Default::default() })
    }
}

impl TrySession for RefineTry {
    fn kind(&self) -> TryKind {
        TryKind::Sampling
    }

    fn arms(&self) -> Vec<Arm> {
        try_it::arms_of(&self.arms)
    }

    fn examples(&self) -> Vec<String> {
        self.examples.iter().map(|q| q.prompt()).collect()
    }

    fn prompt_hint(&self) -> String {
        crate::t!("try-refine-hint", digits = self.p.digits.to_string())
    }

    fn defaults(&self) -> TryOpts {
        // The drill's loop is greedy: so is Try, unless asked.
        TryOpts::new(1, 0.0)
    }

    fn switches(&self) -> Vec<Switch> {
        vec![Switch {
            key: SELF_CRITIC.into(),
            label: crate::t!("try-refine-switch"),
            default: self.p.critic == Critic::Model,
        }]
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
        let critic = match opts.switch(SELF_CRITIC, self.p.critic == Critic::Model) {
            true => Critic::Model,
            false => Critic::Verifier,
        };
        let mut notes = vec![crate::t!(
            "try-refine-note",
            prompt = q.prompt(),
            gold = q.answer(),
            sum = (q.a + q.b).to_string(),
            rounds = self.p.rounds.to_string()
        )];
        notes.push(match critic {
            Critic::Verifier => crate::t!("try-refine-note-verifier"),
            Critic::Model => crate::t!("try-refine-note-self"),
        });
        if !self.held.contains(&q) {
            notes.push(crate::t!("try-refine-not-held-out"));
        }
        let mut out = TryAnswer { input: text.to_string(), notes, columns: Vec::new() };
        let n = opts.samples.clamp(1, try_it::MAX_SAMPLES);
        let width = self.p.digits + 1;
        // The longest prompt the loop reads: a revision's, after a version and its critique.
        let longest = self.codec.prompt(&q, &revise_tail(&"0".repeat(width), &".".repeat(width))).len();
        let all = self.arms();
        for arm in opts.arms(&all) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id).lm();
            try_it::check_fits(longest, width + 1, model.context())?;
            let mut rng = try_it::arm_rng(opts.seed);
            let eps = self.episodes(model, q, n, critic, (try_it::decoding(opts.temperature), &mut rng), cancel)?;
            let mut col = TryColumn::new(arm);
            for e in &eps {
                col.samples.push(self.sample(model, e, critic)?);
            }
            let count = |f: &dyn Fn(&Episode) -> bool| eps.iter().filter(|e| f(e)).count();
            let first = count(&|e| passes(&e.versions[0].1, &q.answer()));
            let kept = count(&|e| passes(&e.versions[e.best.best].1, &q.answer()));
            let mean = |f: &dyn Fn(&Episode) -> f64| eps.iter().map(f).sum::<f64>() / n as f64;
            col.summary = vec![
                Verdict::new(crate::t!("try-refine-drafts-right"), format!("{first}/{n}"), None),
                Verdict::new(crate::t!("try-refine-kept-right"), format!("{kept}/{n}"), None),
                Verdict::new(
                    crate::t!("try-refine-mean-score"),
                    format!("{:.2} → {:.2}", mean(&|e| e.best.first_true()), mean(&|e| e.best.final_true())),
                    None,
                ),
            ];
            out.columns.push(col);
            progress(&out);
        }
        Ok(out)
    }
}
