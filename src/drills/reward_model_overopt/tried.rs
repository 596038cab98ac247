//! Try on a reward-model-overopt run: the policy and the reward models it
//! kept, scoring answers the learner types and picking among the policy's
//! samples, beside the gold reward.
//!
//! Two forms of input:
//!
//! * a problem and an answer (`47+85=231..`, digits least significant
//!   first as the policy writes them): every scorer reads that answer and
//!   four others to the same problem — the right answer and the
//!   carry-dropped one, each bare and with dots — so the length bias shows
//!   as a score that climbs with the dots whatever the sum;
//! * a problem alone (`47+85=`): best-of-n, `samples` answers sampled from
//!   the policy; each reward model picks the one it scores highest, and the
//!   gold reward says what the pick is worth against the best one there.
//!
//! The scorers are the reward model before training (the SFT model read at
//! its `<score>` token, or the fresh GPT of `rm_init = "scratch"`, rebuilt
//! from the run's seed) and the two trained on the small and the large
//! preference set.

use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::Device;

use super::{judge, scores_of, Params, RmInit, Task, ALPHABET, SCORE};
use crate::drills::events::TokenKind;
use crate::drills::try_it::{
    self, Arm, KeptRun, TryAnswer, TryCell, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::envs::refine_arith::Problem;
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS};
use crate::rl::sequences::Seq;

/// The arm a run keeps for its policy (the SFT model every reward model starts from).
pub(super) const POLICY: &str = "policy";
/// The reward model before training (not kept: rebuilt from the policy or the seed).
const RM_START: &str = "rm-start";
const RM_SMALL: &str = "rm-small";
const RM_LARGE: &str = "rm-large";

/// Dots on the longer variants of the right and the carry-dropped answer.
const VARIANT_DOTS: usize = 4;

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let tok = CharTokenizer::new(ALPHABET, &[SCORE]);
    let score = tok.id_of(SCORE).expect("the score token");
    let task = Task { tok, width: p.digits + 1, score };
    let policy = run.tiny(POLICY, device)?;
    let rm_start = match p.rm_init {
        RmInit::Sft => policy.fork(run.seed)?,
        RmInit::Scratch => Gpt::new(policy.cfg.clone(), run.seed ^ 0x4d52, device)?,
    };
    let scorers = vec![
        (Arm { id: RM_START.into(), label: crate::t!("try-rmo-rm-start") }, rm_start),
        (
            Arm { id: RM_SMALL.into(), label: crate::t!("try-rmo-rm", pairs = p.pairs_small.to_string()) },
            run.tiny(RM_SMALL, device)?,
        ),
        (
            Arm { id: RM_LARGE.into(), label: crate::t!("try-rmo-rm", pairs = p.pairs_large.to_string()) },
            run.tiny(RM_LARGE, device)?,
        ),
    ];
    Ok(Box::new(RmoTry { p: p.clone(), task, policy, scorers, examples: held_out(p, run.seed) }))
}

/// The run's held-out problems, drawn as its phase "data" drew them: the
/// policy and the reward models never trained on them.
fn held_out(p: &Params, seed: u64) -> Vec<Problem> {
    let mut test_rng = Rng::new(seed).fork(7);
    let mut seen = std::collections::BTreeSet::new();
    let mut v = Vec::new();
    while v.len() < p.test_size {
        let q = Problem::random(p.digits, &mut test_rng);
        if seen.insert((q.a, q.b)) {
            v.push(q);
        }
    }
    v
}

struct RmoTry {
    p: Params,
    task: Task,
    policy: Gpt,
    scorers: Vec<(Arm, Gpt)>,
    examples: Vec<Problem>,
}

/// One answer to score: its text, its tokens (the policy's `<eos>` closing it) and the gold reward's verdict.
struct Candidate {
    text: String,
    response: Vec<u32>,
    right: bool,
    dots: usize,
    gold: f64,
}

impl RmoTry {
    /// A typed problem (`47+85`, `47+85=`, `47+85=231..`) and its answer, if one is given.
    fn parse<'a>(&self, text: &'a str) -> Result<(Problem, Option<&'a str>)> {
        let digits = self.p.digits;
        let bad = || try_it::refuse(crate::t!("try-rmo-not-a-problem", digits = digits.to_string()));
        let (sum, answer) = match text.split_once('=') {
            Some((s, a)) => (s, Some(a.trim())),
            None => (text, None),
        };
        let Some((a, b)) = sum.split_once('+') else { return bad() };
        let (a, b) = (a.trim(), b.trim());
        let ok = |s: &str| !s.is_empty() && s.len() <= digits && s.chars().all(|c| c.is_ascii_digit());
        if !ok(a) || !ok(b) {
            return bad();
        }
        let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) else { return bad() };
        let answer = answer.filter(|a| !a.is_empty());
        if let Some(ans) = answer {
            if !ans.chars().all(|c| c.is_ascii_digit() || c == '.') {
                return try_it::refuse(crate::t!("try-rmo-bad-answer", example = self.example_answer()));
            }
        }
        Ok((Problem { a, b, digits }, answer))
    }

    fn example_answer(&self) -> String {
        let q = self.examples.first().copied().unwrap_or(Problem { a: 47, b: 85, digits: self.p.digits });
        format!("{}{}..", q.prompt(), q.answer())
    }

    fn candidate(&self, q: &Problem, text: &str, response: Vec<u32>) -> Candidate {
        let (right, dots) = judge(text, q);
        let gold = f64::from(u8::from(right)) - self.p.dot_cost * dots as f64;
        Candidate { text: text.to_string(), response, right, dots, gold }
    }

    /// The typed answer, then the right and the carry-dropped answer, bare and with dots (no repeats).
    fn variants(&self, q: &Problem, typed: &str) -> Vec<Candidate> {
        let dots = ".".repeat(VARIANT_DOTS.min(self.p.max_dots));
        let mut texts = vec![typed.to_string(), q.answer(), format!("{}{dots}", q.answer())];
        if q.has_carry() {
            texts.push(q.carry_dropped());
            texts.push(format!("{}{dots}", q.carry_dropped()));
        }
        let mut out: Vec<Candidate> = Vec::new();
        for t in texts {
            if out.iter().all(|c| c.text != t) {
                let response = [self.task.tok.encode(&t), vec![EOS]].concat();
                out.push(self.candidate(q, &t, response));
            }
        }
        out
    }

    /// `n` answers sampled from the policy (the same draws for the same seed).
    fn samples(&self, q: &Problem, opts: &TryOpts) -> Result<Vec<Candidate>> {
        let n = opts.samples.clamp(1, try_it::MAX_SAMPLES);
        let prompt = self.task.prompt_ids(q);
        let cfg = GenConfig::new(self.task.width + self.p.max_dots + 2, try_it::decoding(opts.temperature), vec![EOS]);
        let outs = generate(&self.policy, &vec![prompt; n], &cfg, &mut try_it::arm_rng(opts.seed))?;
        Ok(outs
            .into_iter()
            .map(|response| {
                let text = self.task.tok.decode(&response.iter().copied().filter(|&t| t != EOS).collect::<Vec<_>>());
                self.candidate(q, &text, response)
            })
            .collect())
    }

    /// The policy's column: each answer's tokens (coloured by the policy's
    /// log-probability on a key) and the gold reward's verdict.
    fn policy_column(&self, q: &Problem, cands: &[Candidate], arm: &Arm) -> Result<TryColumn> {
        let prompt = self.task.prompt_ids(q);
        let mut col = TryColumn::new(arm);
        for c in cands {
            let ids: Vec<u32> = prompt.iter().chain(&c.response).copied().collect();
            let logp = try_it::token_logps(&self.policy, &ids, prompt.len())?;
            let mut cells = vec![TryCell::new(q.prompt(), TokenKind::Prompt)];
            for (j, &t) in c.response.iter().enumerate() {
                let piece = if t == EOS { "⏎".to_string() } else { self.task.tok.decode(&[t]) };
                cells.push(TryCell { text: piece, kind: TokenKind::Trained, logp: logp[prompt.len() + j] });
            }
            let total: f32 = logp.iter().flatten().sum();
            let verdicts = vec![
                Verdict::check(crate::t!("try-rmo-right"), c.right),
                Verdict::new(crate::t!("try-rmo-dots"), c.dots.to_string(), None),
                Verdict::new(crate::t!("try-rmo-gold"), format!("{:+.2}", c.gold), None),
                Verdict::new(crate::t!("try-rmo-logp"), format!("{total:.2}"), None),
            ];
            col.samples.push(TrySample { cells, lines: Vec::new(), verdicts, pending: false });
        }
        let right = cands.iter().filter(|c| c.right).count();
        let best = best_gold(cands);
        col.summary = vec![
            Verdict::new(crate::t!("try-rmo-right"), format!("{right}/{}", cands.len()), None),
            Verdict::new(
                crate::t!("try-rmo-gold-pick"),
                format!("{} ({best:+.2})", cands[pick(cands, |c| c.gold)].text),
                None,
            ),
        ];
        Ok(col)
    }

    /// A reward model's column: its score of each answer, the rank it gives
    /// it, and its pick with what the pick is worth in gold reward.
    fn scorer_column(&self, q: &Problem, cands: &[Candidate], arm: &Arm, rm: &Gpt, typed: bool) -> Result<TryColumn> {
        let prompt = self.task.prompt_ids(q);
        let seqs: Vec<Seq> =
            cands.iter().map(|c| Seq { prompt: prompt.clone(), response: c.response.clone() }).collect();
        let scores = scores_of(rm, &self.task, &seqs.iter().collect::<Vec<_>>())?;
        let mut order: Vec<usize> = (0..cands.len()).collect();
        order.sort_by(|&i, &j| scores[j].total_cmp(&scores[i]).then(i.cmp(&j)));
        let best = best_gold(cands);
        let mut col = TryColumn::new(arm);
        for (i, c) in cands.iter().enumerate() {
            let rank = order.iter().position(|&k| k == i).unwrap_or(0) + 1;
            let mut verdicts = vec![
                Verdict::new(crate::t!("try-rmo-score"), format!("{:+.3}", scores[i]), None),
                Verdict::new(crate::t!("try-rmo-rank"), format!("{rank}/{}", cands.len()), None),
            ];
            if rank == 1 {
                verdicts.push(Verdict::new(crate::t!("try-rmo-pick"), format!("{:+.2}", c.gold), Some(c.gold >= best)));
            }
            let line = format!("{}{}", q.prompt(), c.text);
            col.samples.push(TrySample { cells: Vec::new(), lines: vec![line], verdicts, pending: false });
        }
        let top = order[0];
        col.summary = vec![Verdict::new(
            crate::t!("try-rmo-pick"),
            format!("{} · {} {:+.2} / {best:+.2}", cands[top].text, crate::t!("try-rmo-gold"), cands[top].gold),
            Some(cands[top].gold >= best),
        )];
        if typed {
            // What four dots are worth to this model, on the right answer and on the wrong one.
            let by_text = |t: &str| cands.iter().position(|c| c.text == t).map(|i| scores[i]);
            let dots = ".".repeat(VARIANT_DOTS.min(self.p.max_dots));
            let gain = |base: String| match (by_text(&base), by_text(&format!("{base}{dots}"))) {
                (Some(a), Some(b)) => Some(b - a),
                _ => None,
            };
            let mut gains = Vec::new();
            if let Some(g) = gain(q.answer()) {
                gains.push(format!("{g:+.3}"));
            }
            if q.has_carry() {
                if let Some(g) = gain(q.carry_dropped()) {
                    gains.push(format!("{g:+.3}"));
                }
            }
            if !gains.is_empty() {
                col.summary.push(Verdict::new(
                    crate::t!("try-rmo-dot-gain", dots = dots.len().to_string()),
                    gains.join(" / "),
                    None,
                ));
            }
            let right_first = cands
                .iter()
                .enumerate()
                .all(|(i, a)| !a.right || cands.iter().enumerate().all(|(j, b)| b.right || scores[i] > scores[j]));
            col.summary.push(Verdict::check(crate::t!("try-rmo-right-first"), right_first));
        }
        Ok(col)
    }
}

/// The index of the highest `key` (the first on a tie).
fn pick(cands: &[Candidate], key: impl Fn(&Candidate) -> f64) -> usize {
    (0..cands.len()).fold(0, |b, i| if key(&cands[i]) > key(&cands[b]) { i } else { b })
}

fn best_gold(cands: &[Candidate]) -> f64 {
    cands.iter().map(|c| c.gold).fold(f64::NEG_INFINITY, f64::max)
}

impl TrySession for RmoTry {
    fn kind(&self) -> TryKind {
        TryKind::Scorer
    }

    fn arms(&self) -> Vec<Arm> {
        let policy = Arm { id: POLICY.into(), label: crate::t!("try-rmo-policy") };
        std::iter::once(policy).chain(self.scorers.iter().map(|(a, _)| a.clone())).collect()
    }

    /// Held-out problems: the first ones alone (best-of-n), then with an
    /// answer to score (the carry-dropped one, with dots, where it differs).
    fn examples(&self) -> Vec<String> {
        let mut out: Vec<String> = self.examples.iter().take(6).map(|q| q.prompt()).collect();
        out.extend(self.examples.iter().skip(6).filter(|q| q.has_carry()).take(6).map(|q| {
            let dots = ".".repeat(VARIANT_DOTS.min(self.p.max_dots) / 2);
            format!("{}{}{dots}", q.prompt(), q.carry_dropped())
        }));
        out
    }

    fn prompt_hint(&self) -> String {
        crate::t!("try-rmo-hint", example = self.example_answer())
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
        let text = try_it::checked_input(input, 40)?;
        let (q, typed) = self.parse(text)?;
        let context = self.policy.cfg.context;
        let prompt_len = self.task.prompt_ids(&q).len();
        let cands = match typed {
            Some(t) => {
                try_it::check_fits(prompt_len + t.len() + 1, 0, context)?;
                self.variants(&q, t)
            }
            None => {
                try_it::check_fits(prompt_len, self.task.width + self.p.max_dots + 2, context)?;
                self.samples(&q, opts)?
            }
        };
        let sum = (q.a + q.b).to_string();
        let mut notes = vec![crate::t!(
            "try-rmo-note-problem",
            prompt = q.prompt(),
            sum = sum,
            gold = q.answer(),
            dropped = q.carry_dropped(),
            cost = format!("{:.2}", self.p.dot_cost)
        )];
        notes.push(match typed {
            Some(_) => crate::t!("try-rmo-note-variants", dots = VARIANT_DOTS.min(self.p.max_dots).to_string()),
            None => crate::t!("try-rmo-note-bon", n = cands.len().to_string()),
        });
        let mut answer = TryAnswer { input: text.to_string(), notes, columns: Vec::new() };
        for arm in opts.arms(&self.arms()) {
            try_it::check(cancel)?;
            let col = match self.scorers.iter().find(|(a, _)| a.id == arm.id) {
                Some((a, rm)) => self.scorer_column(&q, &cands, a, rm, typed.is_some())?,
                None => self.policy_column(&q, &cands, arm)?,
            };
            answer.columns.push(col);
            progress(&answer);
        }
        Ok(answer)
    }
}
