//! `turn-credit-assignment`: multi-turn RL in the search-or-answer QA world.
//!
//! Phases of `run`:
//!
//! 1. **data** — places split into "known" ones (the warm start learns their
//!    capital by heart) and the others (only a search can tell).
//! 2. **warm start** — SFT of the lab's base model on mixed trajectories:
//!    answers for known places, often after a needless search; searches for
//!    the others; and some wrong answers after a search. There is something
//!    for RL to improve.
//! 3. **RL** — for each question a group of G sampled episodes in the real
//!    world (`rollouts`); per-turn rewards (−λ per search; correct + format at
//!    the answer), returns-to-go per turn, advantages against a baseline from
//!    the group (`turn_advantages`: GRPO, Dr. GRPO, RLOO or none); the masked
//!    policy-gradient loss on the agent's tokens only (`update`), optionally
//!    PPO-clipped over several epochs and with a k3 KL penalty to the warm
//!    start.
//! 4. **evaluate** — `eval_questions` sampled episodes (256 by default) before and after RL.
//! 5. **probe** — the gradient of the loss with respect to every logit of the
//!    last batch: exactly zero where the world wrote the token.
//!
//! Claims: RL closes a good share of the gap between the warm start's
//! reward and the best possible one; needless searches (known places)
//! fall; needed searches (other places) stay; observation tokens get no
//! gradient.

use anyhow::{anyhow, bail, Result};
use candle_core::{Device, Tensor};
use serde::Deserialize;

use super::keep::Role as Arms;
use super::pipeline::{self, no_probe, real_start, Batches, ModelChoice, RolloutTally, Sft};
use super::try_it::{
    self, Arm, KeptRun, TryAnswer, TryCell, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use super::{RunCtx, TokenCell, TokenKind, TypedDrill, View};
use crate::envs::format::Format;
use crate::envs::kb::{FactTable, REAL_CAPITALS};
use crate::envs::qa_world::{parse_action, QaAction, QaConfig, QaStats as Stats, QaWorld, Question};
use crate::envs::Role;
use crate::eval::qa_loop::{known_capitals, rollouts, rollouts_with, Rollout};
use crate::eval::Lm;
use crate::exercises::plug::Plugs;
use crate::ml::base;
use crate::ml::data::Example;
use crate::ml::lm::CausalLm;
use crate::ml::rng::Rng;
use crate::ml::sample::Decoding;
use crate::ml::start::{Model, Start};
use crate::ml::tokenizer::{Bpe, Tokenize};
use crate::ml::train::{TrainConfig, Trainer};
use crate::rl::advantage::{self, Baseline, GroupSpread};
use crate::rl::kl::kl_k3;
use crate::rl::pg::{aggregate, masked_pg_loss, Aggregation};
use crate::rl::ppo::ppo_clip_loss;
use crate::rl::returns::discounted_returns;
use crate::rl::token_batch::{Row, TokenBatch};

pub struct TurnCreditAssignment;

/// How each turn of an episode is credited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Credit {
    /// Each turn gets its discounted return-to-go.
    Turn,
    /// Every turn gets the episode's total reward.
    Trajectory,
}

/// `drills/turn-credit-assignment/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub rl_steps: usize,
    pub questions_per_step: usize,
    pub group: usize,
    pub baseline: Baseline,
    pub credit: Credit,
    pub gamma: f32,
    pub search_cost: f32,
    pub w_correct: f32,
    pub w_format: f32,
    pub kl_coef: f64,
    pub ppo_epochs: usize,
    pub clip_eps: f64,
    pub mask_observations: bool,
    pub aggregation: Aggregation,
    pub temperature: f32,
    pub lr_rl: f64,
    pub warm_steps: usize,
    pub warm_batch: usize,
    pub lr_sft: f64,
    pub known_places: usize,
    pub needless_rate: f64,
    pub wrong_rate: f64,
    pub eval_questions: usize,
    pub model: ModelChoice,
    pub lora_rank: usize,
    pub lora_layers: usize,
}

/// What the system message tells a chat model about the world.
const SYSTEM: &str =
    "Find the capital of a place. One line per turn: search[PLACE] (each search costs a little) or answer[CAPITAL].";

/// The world of one run: who is known, the questions, the model's tokenizer.
struct Setup {
    world: QaWorld,
    known: Vec<Question>,
    unknown: Vec<Question>,
    /// Wrong answers the warm start sometimes gives after a search.
    capitals: Vec<String>,
    /// The same questions before and after RL, half of them known.
    eval_qs: Vec<Question>,
    tok: Bpe,
    /// How text becomes the model's tokens (its chat template for a real model).
    fmt: Format,
    start: Start,
}

impl TypedDrill for TurnCreditAssignment {
    const ID: &'static str = "turn-credit-assignment";
    const CLAIMS: &'static [&'static str] = &[
        "needed_searches_kept",
        "needless_search_drop",
        "observation_logit_grad",
        "reward_gain",
        "reward_gap_closed",
        "search_decisions_gain",
        "search_gain_unknown",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        if p.known_places >= FactTable::world().entities().len() {
            return Err(crate::t!("setup-tca-known", known = p.known_places.to_string()));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let mut rng = Rng::new(ctx.seed);
        let setup = data(p, ctx, &mut rng)?;
        let policy = warm_start(p, &setup, ctx, &mut rng)?;
        let reference = policy.frozen(ctx.seed)?;
        // Try puts the warm start and the policy after RL side by side.
        ctx.keep(WARM, Arms::Start, &reference)?;
        ctx.keep_live(AFTER_RL, Arms::Trained, &policy)?;
        let (policy, reference) = (policy.lm(), reference.lm());
        let decoding = Decoding::Sample { temperature: p.temperature, top_k: None, top_p: None };
        let lm = Lm { model: policy, tok: &setup.tok, fmt: &setup.fmt };
        let before_rs = rollouts(&lm, &setup.world, &setup.eval_qs, decoding, &mut Rng::new(ctx.seed ^ 0xe0))?;
        let before = stats(&before_rs);
        ctx.log(describe(&crate::t!("view-tca-warm-start"), &before));
        log_examples(ctx, &crate::t!("view-tca-warm-start"), &before_rs);

        ctx.phase(crate::t!("view-tca-phase-rl"));
        let mut trainer = Trainer::for_model(policy, TrainConfig::constant(p.lr_rl))?;
        let mut last = None;
        // Rollout throughput, for the log (wall time: not a measured number of the run).
        let mut tally = RolloutTally::default();
        for step in 0..p.rl_steps {
            ctx.check_cancel()?;
            let qs: Vec<Question> = (0..p.questions_per_step)
                .map(|i| {
                    let pool = if (step + i) % 2 == 0 { &setup.known } else { &setup.unknown };
                    rng.choose(pool).clone()
                })
                .collect();
            let all_q: Vec<Question> = qs.iter().flat_map(|q| std::iter::repeat_n(q.clone(), p.group)).collect();
            let rs = tally.time(
                || rollouts(&lm, &setup.world, &all_q, decoding, &mut rng),
                |rs| {
                    let agent = rs.iter().flat_map(|r| &r.ids).filter(|(role, _)| *role == Role::Agent);
                    (rs.len(), agent.map(|(_, t)| t.len()).sum())
                },
            )?;
            let (adv, groups) = turn_advantages(&rs, p, &ctx.plugs)?;
            let batch = build_batch(&rs, &adv, p.mask_observations, setup.fmt.bos, &ctx.device)?;
            update(p, ctx, step, policy, reference, &mut trainer, &batch, &rs, &groups)?;
            ctx.progress(step + 1, p.rl_steps, 0);
            // The gradient probe reads the last batch that carries a signal (a
            // batch of silent groups has no gradient anywhere to compare with).
            if last.is_none() || adv.iter().flatten().any(|a| *a != 0.0) {
                last = Some((batch, rs));
            }
        }

        tally.log(ctx, "none");

        ctx.phase(crate::t!("view-phase-evaluate"));
        let after_rs = rollouts(&lm, &setup.world, &setup.eval_qs, decoding, &mut Rng::new(ctx.seed ^ 0xe1))?;
        let after = stats(&after_rs);
        ctx.log(describe(&crate::t!("view-tca-after-rl"), &after));
        log_examples(ctx, &crate::t!("view-tca-after-rl"), &after_rs);
        before_after_view(ctx, setup.eval_qs.len(), &before, &after);

        ctx.phase(crate::t!("view-tca-phase-probe"));
        let (batch, rs) = last.ok_or_else(|| anyhow!(crate::t!("setup-no-rl-step")))?;
        let obs_grad = gradient_probe(p, ctx, policy, &batch)?;
        episode_view(ctx, p, &setup, &batch, &rs);

        // The best any policy can score on the evaluation questions: right,
        // well-formed, and a search only where one is needed.
        let best = setup
            .eval_qs
            .iter()
            .map(|q| (p.w_correct + p.w_format - if q.known { 0.0 } else { p.search_cost }) as f64)
            .sum::<f64>()
            / setup.eval_qs.len() as f64;
        let closed = (after.reward - before.reward) / (best - before.reward).max(0.05);
        ctx.log(crate::t!(
            "view-tca-log-closed",
            before = format!("{:.3}", before.reward),
            after = format!("{:.3}", after.reward),
            best = format!("{best:.3}"),
            closed = format!("{:.0}", closed * 100.0)
        ));
        ctx.claim("reward_gap_closed", closed)?;
        let needless_drop = before.searches_known - after.searches_known;
        let needed_gain = after.searches_unknown - before.searches_unknown;
        ctx.claim("needless_search_drop", needless_drop)?;
        ctx.claim("needed_searches_kept", after.searches_unknown)?;
        ctx.claim("observation_logit_grad", obs_grad)?;
        // The real preset's claim: both halves of the search decision together.
        ctx.claim("search_decisions_gain", needless_drop + needed_gain)?;
        ctx.claim("search_gain_unknown", needed_gain)?;
        ctx.claim("reward_gain", after.reward - before.reward)?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
        let mut rng = Rng::new(run.seed);
        let (tok, fmt, base) = match &p.model {
            ModelChoice::Tiny => {
                let (_, tok) = base::shipped(device)?;
                let fmt = Format::tiny(&tok);
                (tok, fmt, None)
            }
            ModelChoice::Real(_) => {
                let (base, tok, fmt) = pipeline::real_base(run, SYSTEM, device)?;
                (tok, fmt, Some(base))
            }
        };
        // A real model's known places are the countries the untrained base names, as in the run.
        let real_known = match &base {
            Some(b) => {
                let table =
                    FactTable::parse(REAL_CAPITALS).map_err(|e| anyhow!("the real capitals do not parse: {e}"))?;
                Some(known_capitals(&Lm { model: b, tok: &tok, fmt: &fmt }, &table)?)
            }
            None => None,
        };
        let places = places(p, &mut rng, real_known.as_deref())?;
        let mut arms = Vec::new();
        for (id, label) in [(WARM, crate::t!("view-tca-warm-start")), (AFTER_RL, crate::t!("view-tca-after-rl"))] {
            let model = pipeline::kept_model(run, id, base.as_ref(), device)?;
            arms.push((Arm { id: id.to_string(), label }, model));
        }
        Ok(Box::new(TcaTry { p: p.clone(), places, tok, fmt, arms }))
    }
}

/// Try on a run: a question to the warm start and to the policy after RL, in
/// the run's world, each episode with the real search.
struct TcaTry {
    p: Params,
    places: Places,
    tok: Bpe,
    fmt: Format,
    arms: Vec<(Arm, Model)>,
}

/// The longest question Try reads, in characters.
const TRY_MAX_INPUT: usize = 80;

impl TcaTry {
    /// The place a typed question is about: the world's place named in it
    /// (the longest, ignoring case), else the text itself with "capital of"
    /// and "?" taken off (a place the world does not know: a search finds nothing).
    fn question(&self, text: &str) -> (Question, String) {
        let lower = text.to_lowercase();
        let kb = &self.places.world.kb;
        let named = kb
            .entities()
            .into_iter()
            .filter(|e| {
                let e = e.to_lowercase();
                lower.match_indices(&e).any(|(i, _)| {
                    let before = lower[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
                    let after = lower[i + e.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
                    before && after
                })
            })
            .max_by_key(|e| e.len())
            .map(String::from);
        let place = named.clone().unwrap_or_else(|| {
            let t = text.trim().trim_start_matches("Q:").trim();
            let t = t.strip_prefix("capital of").or_else(|| t.strip_prefix("Capital of")).unwrap_or(t);
            t.trim().trim_end_matches('?').trim().to_string()
        });
        let known = self.places.known.iter().any(|q| q.entity == place);
        let truth = kb.get(&place, "capital").unwrap_or_default().to_string();
        let note = match (&named, known) {
            (None, _) => crate::t!("try-tca-not-in-world", place = place.as_str()),
            (Some(_), true) => crate::t!("try-tca-known", place = place.as_str(), truth = truth.as_str()),
            (Some(_), false) => crate::t!("try-tca-needs-search", place = place.as_str(), truth = truth.as_str()),
        };
        (Question { entity: place, truth, known }, note)
    }

    /// An episode as Try shows it: each token by who wrote it, the model's
    /// own with their log-probabilities once `logp` is given.
    fn sample(&self, r: &Rollout, logp: Option<&[Option<f32>]>) -> TrySample {
        let mut cells = Vec::new();
        let mut pos = usize::from(self.fmt.bos.is_some());
        for (role, ids) in &r.ids {
            match role {
                // A chat model's prompt is mostly its template: the question stands for it.
                Role::Prompt if self.fmt.chat.is_some() => {
                    cells.push(TryCell::new(r.session.question.prompt(), TokenKind::Prompt));
                    pos += ids.len();
                }
                _ => {
                    let kind = match role {
                        Role::Prompt => TokenKind::Prompt,
                        Role::Agent => TokenKind::Trained,
                        Role::Env => TokenKind::Masked,
                    };
                    for &id in ids {
                        let lp = if kind == TokenKind::Trained {
                            logp.and_then(|l| l.get(pos).copied().flatten())
                        } else {
                            None
                        };
                        cells.push(TryCell { text: self.tok.decode(&[id]), kind, logp: lp });
                        pos += 1;
                    }
                }
            }
        }
        let e = &r.session.episode;
        let cfg = &self.places.world.cfg;
        let answered = e.segments.iter().rev().find_map(|(role, text)| match (role, parse_action(text)) {
            (Role::Agent, QaAction::Answer(a)) => Some(a),
            _ => None,
        });
        let correct = if e.correct { cfg.w_correct } else { 0.0 };
        let format = if e.answered { cfg.w_format } else { 0.0 };
        let search = cfg.search_cost * e.searches as f32;
        let mut verdicts = vec![match answered {
            Some(a) => Verdict::new(crate::t!("try-tca-answer"), a, Some(e.correct)),
            None => Verdict::new(crate::t!("try-tca-answer"), crate::t!("try-tca-no-answer"), Some(false)),
        }];
        verdicts.push(Verdict::new(
            crate::t!("try-tca-reward"),
            crate::t!(
                "try-tca-reward-parts",
                total = format!("{:.2}", e.total_reward()),
                correct = format!("{correct:.2}"),
                format = format!("{format:.2}"),
                searches = e.searches.to_string(),
                search = format!("{search:.2}")
            ),
            None,
        ));
        TrySample { cells, lines: Vec::new(), verdicts, pending: !r.session.done }
    }
}

impl TrySession for TcaTry {
    fn kind(&self) -> TryKind {
        TryKind::AgentLoop
    }

    fn arms(&self) -> Vec<Arm> {
        try_it::arms_of(&self.arms)
    }

    fn examples(&self) -> Vec<String> {
        let questions = self.places.eval_qs.iter().map(|q| q.prompt().trim_start_matches("Q: ").trim().to_string());
        try_it::distinct(questions, 12)
    }

    fn prompt_hint(&self) -> String {
        crate::t!("try-tca-hint")
    }

    fn defaults(&self) -> TryOpts {
        TryOpts::new(4, self.p.temperature)
    }

    fn answer(
        &mut self,
        input: &str,
        opts: &TryOpts,
        progress: &mut dyn FnMut(&TryAnswer),
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Result<TryAnswer> {
        let text = try_it::checked_input(input, TRY_MAX_INPUT)?;
        let (q, note) = self.question(text);
        let prompt = self.fmt.encode(&self.tok, Role::Prompt, &q.prompt()).len() + usize::from(self.fmt.bos.is_some());
        // Three turns of up to 16 tokens each, and the world's replies.
        let context = self.arms[0].1.lm().context();
        try_it::check_fits(prompt, 3 * 16 + 24, context)?;
        let mut answer = TryAnswer { input: text.to_string(), notes: vec![note], columns: Vec::new() };
        let all: Vec<Arm> = self.arms();
        for arm in opts.arms(&all) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id);
            let lm = Lm { model: model.lm(), tok: &self.tok, fmt: &self.fmt };
            answer.columns.push(TryColumn::new(arm));
            let qs = vec![q.clone(); opts.samples.clamp(1, try_it::MAX_SAMPLES)];
            let mut rng = try_it::arm_rng(opts.seed);
            let decoding = try_it::decoding(opts.temperature);
            let rs = {
                let this = &*self;
                let answer = &mut answer;
                rollouts_with(&lm, &this.places.world, &qs, decoding, &mut rng, &mut |rs| {
                    try_it::check(cancel)?;
                    let col = answer.columns.last_mut().expect("pushed above");
                    col.samples = rs.iter().map(|r| this.sample(r, None)).collect();
                    progress(answer);
                    Ok(())
                })?
            };
            let mut samples = Vec::new();
            for r in &rs {
                let ids = r.context(self.fmt.bos);
                let first_agent = ids.len() - r.ids.iter().skip(1).map(|(_, t)| t.len()).sum::<usize>();
                let logp = try_it::token_logps(model.lm(), &ids, first_agent)?;
                samples.push(self.sample(r, Some(&logp)));
            }
            let st = stats(&rs);
            let col = answer.columns.last_mut().expect("pushed above");
            col.samples = samples;
            let right = rs.iter().filter(|r| r.session.episode.correct).count();
            col.summary = vec![
                Verdict::new(crate::t!("try-tca-right"), format!("{right}/{}", rs.len()), None),
                Verdict::new(crate::t!("try-tca-mean-reward"), format!("{:.3}", st.reward), None),
                Verdict::new(
                    crate::t!("try-tca-searches"),
                    format!(
                        "{:.2}",
                        rs.iter().map(|r| r.session.episode.searches).sum::<usize>() as f64 / rs.len() as f64
                    ),
                    None,
                ),
            ];
            progress(&answer);
        }
        Ok(answer)
    }
}

/// The arms a run keeps: the warm start, and the policy after RL.
const WARM: &str = "warm-start";
const AFTER_RL: &str = "after-rl";

/// The world of a run and its questions: the places shuffled by the run's
/// random stream (`places`), the first `known_places` of them known (or, for a
/// real model, the real countries whose capital it names: `real_known`).
struct Places {
    world: QaWorld,
    known: Vec<Question>,
    unknown: Vec<Question>,
    eval_qs: Vec<Question>,
}

fn places(p: &Params, rng: &mut Rng, real_known: Option<&[String]>) -> Result<Places> {
    let cfg = QaConfig { w_correct: p.w_correct, w_format: p.w_format, search_cost: p.search_cost, max_turns: 3 };
    let mut kb = FactTable::world();
    let mut places: Vec<String> = kb.entities().iter().map(|s| s.to_string()).collect();
    rng.shuffle(&mut places);
    if real_known.is_some() {
        kb.extend(REAL_CAPITALS).map_err(|e| anyhow!("the real capitals do not parse: {e}"))?;
    }
    let world = QaWorld::new(kb.clone(), cfg);
    let question = |place: &str, known: bool| Question {
        entity: place.to_string(),
        truth: kb.get(place, "capital").unwrap_or_default().to_string(),
        known,
    };
    let (known, unknown): (Vec<Question>, Vec<Question>) = match real_known {
        Some(countries) => {
            (countries.iter().map(|q| question(q, true)).collect(), places.iter().map(|q| question(q, false)).collect())
        }
        None => (
            places[..p.known_places].iter().map(|q| question(q, true)).collect(),
            places[p.known_places..].iter().map(|q| question(q, false)).collect(),
        ),
    };
    let eval_qs: Vec<Question> = (0..p.eval_questions)
        .map(|i| if i % 2 == 0 { known[i / 2 % known.len()].clone() } else { unknown[i / 2 % unknown.len()].clone() })
        .collect();
    Ok(Places { world, known, unknown, eval_qs })
}

/// Phase "data": the places, who is known, the evaluation questions, the base model.
fn data(p: &Params, ctx: &mut RunCtx, rng: &mut Rng) -> Result<Setup> {
    ctx.phase(crate::t!("view-phase-data"));
    let (start, tok, fmt) = match &p.model {
        ModelChoice::Tiny => {
            let (base, tok) = base::shipped(&ctx.device)?;
            let fmt = Format::tiny(&tok);
            (Start::Tiny(base), tok, fmt)
        }
        ModelChoice::Real(name) => real_start(name, p.lora_rank, p.lora_layers, SYSTEM, ctx)?,
    };
    // The tiny model learns its known places in the warm start; a real
    // model already knows some real capitals: those it answers are its known places.
    let lm = Lm { model: start.model(), tok: &tok, fmt: &fmt };
    let real_known = if fmt.chat.is_some() { Some(known_countries(&lm, ctx)?) } else { None };
    let Places { world, known, unknown, eval_qs } = places(p, rng, real_known.as_deref())?;
    let cfg = world.cfg;
    let capitals: Vec<String> = known.iter().chain(unknown.iter().take(200)).map(|q| q.truth.clone()).collect();
    ctx.log(crate::t!(
        "view-tca-log-data",
        known = known.len().to_string(),
        which =
            if real_known.is_some() { crate::t!("view-tca-known-real") } else { crate::t!("view-tca-known-learned") },
        unknown = unknown.len().to_string(),
        correct = cfg.w_correct.to_string(),
        format = cfg.w_format.to_string(),
        cost = cfg.search_cost.to_string()
    ));
    Ok(Setup { world, known, unknown, capitals, eval_qs, tok, fmt, start })
}

/// The countries of [`REAL_CAPITALS`] whose capital the untrained model names
/// when asked plainly through its chat template (greedy), in the table's order.
fn known_countries(lm: &Lm, ctx: &mut RunCtx) -> Result<Vec<String>> {
    let table = FactTable::parse(REAL_CAPITALS).map_err(|e| anyhow!("the real capitals do not parse: {e}"))?;
    let known = known_capitals(lm, &table)?;
    ctx.log(crate::t!(
        "view-tca-log-real-known",
        known = known.len().to_string(),
        total = table.entities().len().to_string(),
        list = known.join(&crate::t!("view-list-sep"))
    ));
    if known.is_empty() {
        bail!(crate::t!("setup-no-capitals"));
    }
    Ok(known)
}

/// One warm-start trajectory: what the SFT teaches before RL.
fn warm_start_text(p: &Params, s: &Setup, q: &Question, rng: &mut Rng) -> Vec<(Role, String)> {
    let mut segs = vec![(Role::Prompt, q.prompt())];
    let searched = !q.known || rng.bool(p.needless_rate);
    if searched {
        segs.push((Role::Agent, format!("search[{}]\n", q.entity)));
        segs.push((Role::Env, s.world.search(&q.entity)));
    }
    // The sloppy habit: after a search, sometimes answer something other than what the
    // observation says. Memorised answers stay clean, so answering a known place
    // directly really is the better policy.
    let answer = if searched && rng.bool(p.wrong_rate) { rng.choose(&s.capitals).clone() } else { q.truth.clone() };
    segs.push((Role::Agent, format!("answer[{answer}]\n")));
    segs
}

/// Phase "warm start (SFT)": the base model learns the format, the known
/// places by heart, and the sloppy habits RL will have to unlearn.
fn warm_start(p: &Params, s: &Setup, ctx: &mut RunCtx, rng: &mut Rng) -> Result<Model> {
    ctx.phase(crate::t!("view-phase-warm-start"));
    let policy = s.start.fork(ctx.seed)?;
    let examples: Vec<Example> = (0..4000)
        .map(|i| {
            // Known places (two in three examples) appear often enough to be memorised;
            // the others teach searching.
            let q =
                if i % 3 != 0 { &s.known[rng.below(s.known.len())] } else { &s.unknown[rng.below(s.unknown.len())] };
            let mut ids: Vec<u32> = s.fmt.bos.into_iter().collect();
            let mut train = vec![false; ids.len()];
            for (role, text) in warm_start_text(p, s, q, rng) {
                let t = s.fmt.encode(&s.tok, role, &text);
                train.extend(std::iter::repeat_n(role == Role::Agent, t.len()));
                ids.extend(t);
            }
            Example::new(ids, train)
        })
        .collect();
    // A short warmup (20 steps, not the pipeline's 50 of 800): with the longer
    // one, seed 4's warm start answers only 0.37 of its known places from
    // memory, searches 0.86 times per episode there, and RL has no needless
    // search to remove (needless_search_drop −0.016).
    let sft = Sft { warmup: (p.warm_steps / 5).clamp(1, 20), ..Sft::new(p.warm_steps, p.lr_sft) };
    pipeline::sft(ctx, policy.lm(), &sft, Batches::Sampled { data: &examples, batch: p.warm_batch }, rng, no_probe)?;
    Ok(policy)
}

/// Each turn's return — its discounted return-to-go (the learner's own
/// function when one is plugged in, `--use`), or the episode total — and
/// its advantage against the baseline its group gives the episode's total.
fn turn_advantages(rs: &[Rollout], p: &Params, plugs: &Plugs) -> Result<(Vec<Vec<f32>>, GroupSpread)> {
    let returns: Vec<Vec<f32>> = rs
        .iter()
        .map(|r| {
            let tr = &r.session.episode.turn_rewards;
            Ok(match p.credit {
                Credit::Turn => match plugs.discounted_returns(tr, p.gamma) {
                    Some(yours) => yours?,
                    None => discounted_returns(tr, p.gamma),
                },
                Credit::Trajectory => vec![tr.iter().sum(); tr.len()],
            })
        })
        .collect::<Result<_>>()?;
    Ok(advantage::turn_advantages(&returns, p.group, p.baseline))
}

/// Every episode's tokens as a row; the loss mask is the agent's tokens (or
/// every generated token when observations are not masked).
fn build_batch(
    rs: &[Rollout],
    adv: &[Vec<f32>],
    mask_obs: bool,
    bos: Option<u32>,
    device: &Device,
) -> Result<TokenBatch> {
    let rows = rs.iter().zip(adv).map(|(r, adv)| Row::new(&r.ids, adv, mask_obs, bos)).collect();
    TokenBatch::new(rows, device)
}

/// With no KL penalty, the KL to the warm start is charted every this many RL steps.
const KL_CHART_EVERY: usize = 4;

/// Phase "update": one policy-gradient step (or `ppo_epochs` clipped steps on
/// the same rollouts), with the KL to the warm start charted and optionally
/// penalised; then the step's metrics.
#[allow(clippy::too_many_arguments)]
fn update(
    p: &Params,
    ctx: &mut RunCtx,
    step: usize,
    policy: &dyn CausalLm,
    reference: &dyn CausalLm,
    trainer: &mut Trainer,
    batch: &TokenBatch,
    rs: &[Rollout],
    groups: &GroupSpread,
) -> Result<()> {
    // Log-probabilities only where the loss reads them (`mask`; the KL and
    // the entropy read `agent_mask`, a part of it), the reference at the same
    // places. Without a KL penalty the reference is read for the chart only,
    // every fourth step: its forward pass was a fifth of the RL phase.
    let with_kl = p.kl_coef > 0.0 || step.is_multiple_of(KL_CHART_EVERY);
    let ref_logp = match with_kl {
        true => Some(reference.scored_logprobs(&batch.x, &batch.targets, &batch.mask, false)?.logp.detach()),
        false => None,
    };
    let (mut loss_v, mut kl_v, mut clip_frac, mut entropy) = (0.0, 0.0, 0.0, 0.0);
    let mut old_logp: Option<Tensor> = None;
    for epoch in 0..p.ppo_epochs {
        let scored = policy.scored_logprobs(&batch.x, &batch.targets, &batch.mask, epoch == 0)?;
        let logp = scored.logp;
        let old = old_logp.get_or_insert_with(|| logp.detach()).clone();
        // One epoch is the plain policy gradient. With more, the same rollouts
        // are reused and the clipped ratio to the sampling policy keeps the
        // later updates close to it.
        let pg = if p.ppo_epochs > 1 {
            let out = ppo_clip_loss(&logp, &old, &batch.adv, &batch.mask, p.clip_eps, p.aggregation)?;
            clip_frac = out.clip_frac;
            out.loss
        } else {
            masked_pg_loss(&logp, &batch.adv, &batch.mask, p.aggregation)?
        };
        let kl = match &ref_logp {
            Some(r) => Some(aggregate(&kl_k3(&logp, r)?, &batch.agent_mask, Aggregation::TokenMean)?),
            None => None,
        };
        let loss = match &kl {
            Some(kl) if p.kl_coef > 0.0 => (&pg + (kl * p.kl_coef)?)?,
            _ => pg,
        };
        loss_v = trainer.step(&loss, "RL loss")?.loss;
        if let Some(kl) = kl {
            kl_v = kl.to_scalar::<f32>()? as f64;
        }
        if let Some(ent) = &scored.entropy {
            entropy = aggregate(ent, &batch.agent_mask, Aggregation::TokenMean)?.to_scalar::<f32>()? as f64;
        }
    }
    let st = stats(rs);
    let b = batch.rows.len();
    ctx.metric(step, "mean_reward", st.reward);
    ctx.metric(step, "reward_std", groups.mean_std);
    ctx.metric(step, "zero_std_groups", groups.zero_std_share);
    ctx.metric(step, "searches_known", st.searches_known);
    ctx.metric(step, "searches_unknown", st.searches_unknown);
    ctx.metric(step, "accuracy", st.accuracy);
    if with_kl {
        ctx.metric(step, "kl_to_warm_start", kl_v);
    }
    if p.ppo_epochs > 1 {
        ctx.metric(step, "ppo_clip_fraction", clip_frac);
    }
    ctx.metric(step, "entropy", entropy);
    ctx.metric(step, "response_tokens", batch.agent_mask.sum_all()?.to_scalar::<f32>()? as f64 / b as f64);
    ctx.metric(step, "pg_loss (not a progress signal)", loss_v);
    Ok(())
}

fn stats(rs: &[Rollout]) -> Stats {
    Stats::of(rs.iter().map(|r| &r.session))
}

/// The first evaluation episodes as the world saw them (a known place, then
/// one that needs a search, twice), one line each.
fn log_examples(ctx: &mut RunCtx, when: &str, rs: &[Rollout]) {
    for r in rs.iter().take(4) {
        let q = &r.session.question;
        let what = if q.known { crate::t!("view-tca-known") } else { crate::t!("view-tca-needs-search") };
        let text = r.session.transcript.trim_end().replace('\n', " ⏎ ");
        ctx.log(crate::t!(
            "view-tca-log-example",
            when = when,
            what = what,
            entity = q.entity.as_str(),
            truth = q.truth.as_str(),
            text = text
        ));
    }
}

fn describe(when: &str, s: &Stats) -> String {
    crate::t!(
        "view-tca-describe",
        when = when,
        reward = format!("{:.3}", s.reward),
        accuracy = format!("{:.2}", s.accuracy),
        memory = format!("{:.2}", s.memory_accuracy),
        known = format!("{:.2}", s.searches_known),
        unknown = format!("{:.2}", s.searches_unknown)
    )
}

fn before_after_view(ctx: &mut RunCtx, episodes: usize, before: &Stats, after: &Stats) {
    let row = |name: String, s: &Stats| {
        vec![
            name,
            format!("{:.3}", s.reward),
            format!("{:.2}", s.accuracy),
            format!("{:.2}", s.memory_accuracy),
            format!("{:.2}", s.searches_known),
            format!("{:.2}", s.searches_unknown),
        ]
    };
    ctx.view(View::table(
        crate::t!("view-tca-before-after-title", episodes = episodes.to_string()),
        [
            String::new(),
            crate::t!("view-tca-col-reward"),
            crate::t!("view-tca-col-accuracy"),
            crate::t!("view-tca-col-memory"),
            crate::t!("view-tca-col-searches-known"),
            crate::t!("view-tca-col-searches-others"),
        ],
        vec![row(crate::t!("view-tca-warm-start"), before), row(crate::t!("view-tca-after-rl"), after)],
    ));
}

/// Phase "probe": the gradient of the policy-gradient loss with respect to
/// the logits of the last batch, position by position. Returns the largest
/// |∂loss/∂logit| at positions that predict a token the world wrote.
fn gradient_probe(p: &Params, ctx: &mut RunCtx, policy: &dyn CausalLm, batch: &TokenBatch) -> Result<f64> {
    let logits = policy.forward(&batch.x)?.narrow(1, 0, batch.mask.dim(1)?)?;
    let (obs_max, agent_max) = batch.logit_grad_maxima(&logits, p.aggregation)?;
    ctx.log(crate::t!("view-tca-log-grad", obs = format!("{obs_max:e}"), agent = format!("{agent_max:e}")));
    Ok(obs_max as f64)
}

/// An episode of the last batch that searched, token by token with its advantages.
fn episode_view(ctx: &mut RunCtx, p: &Params, s: &Setup, batch: &TokenBatch, rs: &[Rollout]) {
    let Some((r, row)) = rs.iter().zip(&batch.rows).find(|(r, _)| r.session.episode.searches > 0) else { return };
    let tok = &s.tok;
    let mut cells = Vec::new();
    // Row positions count the BOS token, when the model has one.
    let mut pos = usize::from(s.fmt.bos.is_some());
    for (role, ids) in &r.ids {
        for &id in ids {
            let kind = match role {
                Role::Prompt => TokenKind::Prompt,
                Role::Env if p.mask_observations => TokenKind::Masked,
                _ => TokenKind::Trained,
            };
            let value = (kind == TokenKind::Trained).then(|| row.adv.get(pos).copied().unwrap_or(0.0));
            cells.push(TokenCell { text: tok.decode(&[id]), kind, value });
            pos += 1;
        }
    }
    ctx.view(View::Tokens {
        title: crate::t!("view-tca-episode-title"),
        tokens: cells,
        legend: crate::t!("view-tca-episode-legend"),
    });
}
