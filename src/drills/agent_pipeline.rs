//! `agent-pipeline`: one agent through every stage of post-training — SFT
//! with a coreset and replay, RL on a multi-dimensional reward — evaluated
//! on a held-out agent benchmark after every stage, with a report card.
//!
//! Phases of `run`:
//!
//! 1. **data** — the benchmark (`src/envs/agent_bench.rs`): a tool catalogue
//!    with distractors; tasks that need no call, one call, or a plan of two;
//!    held-out tasks about places never trained on. The demonstrations are
//!    solved in the real loop, and some of them carry a timing error (a
//!    lookup of a fact the question already gives), as gathered agent data does.
//! 2. **base** — the lab's pretrained base model, evaluated: the five
//!    metrics, and its loss on its own pretraining text (the base task).
//! 3. **coreset** — `coreset_size` of the demonstrations: `random`,
//!    `loss_topk` (highest loss under the base model), `diversity` (k-center
//!    on token sets) or `hybrid` (half each). A twin trained on a random
//!    coreset of the same size runs alongside, for the comparison.
//! 4. **SFT** — observations masked; a `replay_ratio` share of every batch
//!    is the base model's own pretraining text, so that it keeps what it knew.
//! 5. **RL** — `grpo` (group-normalised advantages, policy gradient on the
//!    agent's tokens) or `dpo` (the best and worst episode of each group as a
//!    pair, against the SFT model as reference), on the reward
//!    `w_correct·correct + w_format·format + w_tool·tool + w_timing·timing + w_steps·steps`,
//!    each component charted on its own.
//! 6. **report** — the report card: every stage's five metrics (mean ± std,
//!    count) and the deltas between stages, as a view and as `report.md`.

use anyhow::{bail, Result};
use candle_core::Device;
use serde::Deserialize;

use super::keep::Role as Arms;
use super::pipeline::{self, Batches, Sft};
use super::react_tool_call_loop::ReactTry;
use super::try_it::{Arm as TryArm, KeptRun, TrySession};
use super::{RunCtx, TypedDrill, View};
use crate::envs::agent_bench::{self, metrics, score, BenchTask, Credit, Kind, Scores, Stat, CATALOGUE, METRICS};
use crate::envs::format::{example, Format};
use crate::envs::kb::FactTable;
use crate::envs::react::{Session, Tools};
use crate::envs::react_tasks::split_places;
use crate::envs::{joined, Role};
use crate::eval::react_loop::drive;
use crate::eval::Lm;
use crate::ml::base;
use crate::ml::data::{batch, Example};
use crate::ml::lm::CausalLm;
use crate::ml::loss::{masked_ce_by_hand, masked_cross_entropy};
use crate::ml::rng::Rng;
use crate::ml::sample::Decoding;
use crate::ml::start::{Model, Start};
use crate::ml::tokenizer::Bpe;
use crate::ml::train::{TrainConfig, Trainer};
use crate::rl::advantage::{self, Baseline};
use crate::rl::dpo::{dpo_loss, sequence_logps, DpoVariant};
use crate::rl::grpo::{grpo_loss, GrpoVariant};
use crate::rl::token_batch::{Row, TokenBatch};

pub struct AgentPipeline;

/// How the SFT data is cut down to `coreset_size` examples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Coreset {
    Random,
    /// The examples the base model finds hardest (highest masked loss).
    LossTopk,
    /// Greedy k-center on the examples' token sets (Jaccard distance).
    Diversity,
    /// Half by loss, the rest by k-center from those.
    Hybrid,
}

impl Coreset {
    fn name(self) -> &'static str {
        match self {
            Coreset::Random => "random",
            Coreset::LossTopk => "loss_topk",
            Coreset::Diversity => "diversity",
            Coreset::Hybrid => "hybrid",
        }
    }
}

/// The RL stage's algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algo {
    Grpo,
    Dpo,
}

/// `drills/agent-pipeline/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub train_tasks: usize,
    pub eval_tasks: usize,
    pub demo_timing_errors: f64,
    pub coreset: Coreset,
    pub coreset_size: usize,
    pub replay_ratio: f64,
    pub sft_steps: usize,
    pub sft_batch: usize,
    pub lr_sft: f64,
    pub algo: Algo,
    pub rl_steps: usize,
    pub questions_per_step: usize,
    pub group: usize,
    pub lr_rl: f64,
    pub kl_beta: f64,
    pub temperature: f64,
    pub dpo_beta: f64,
    pub w_correct: f64,
    pub w_format: f64,
    pub w_tool: f64,
    pub w_timing: f64,
    pub w_steps: f64,
    pub credit: Credit,
    pub max_steps: usize,
    pub base_probe: usize,
}

/// The models a run keeps, one per stage.
const BASE: &str = "base";
const SFT: &str = "sft";
const RL: &str = "rl";

/// Tokens of a base-task example (pretraining text, packed).
const BASE_LEN: usize = 96;
/// Pretraining examples in the rehearsal buffer SFT replays from.
const REPLAY_BUFFER: usize = 256;

impl TypedDrill for AgentPipeline {
    const ID: &'static str = "agent-pipeline";
    const CLAIMS: &'static [&'static str] = &[
        "coreset_vs_random",
        "replay_forgetting",
        "rl_success_change",
        "rl_timing_gain",
        "sft_success_gain",
        "sft_tool_selection_gain",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        if p.coreset_size > p.train_tasks {
            return Err(crate::t!(
                "setup-ap-coreset",
                size = p.coreset_size.to_string(),
                pool = p.train_tasks.to_string()
            ));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let d = data(p, ctx)?;
        let total = p.sft_steps + p.rl_steps;

        ctx.phase(crate::t!("view-ap-phase-base"));
        let Start::Tiny(base_gpt) = &d.start else { unreachable!("the tiny base model") };
        ctx.keep(BASE, Arms::Start, base_gpt)?;
        let base = stage(ctx, p, &d, 0, d.start.model())?;

        ctx.phase(crate::t!("view-ap-phase-coreset"));
        let chosen = coreset(p, ctx, &d, p.coreset)?;
        // The comparison: a twin on the other kind of coreset at the same budget
        // (a random one beside a chosen one, or `hybrid` beside a random one).
        let other = if p.coreset == Coreset::Random { Coreset::Hybrid } else { Coreset::Random };
        let twin_set = coreset(p, ctx, &d, other)?;
        coreset_view(ctx, p, &d, &chosen);

        ctx.phase(crate::t!("view-ap-phase-sft"));
        let fit = |ctx: &mut RunCtx, set: &[usize], chart: &str| -> Result<Model> {
            let model = d.start.fork(ctx.seed)?;
            let mut s = Sft::new(p.sft_steps, p.lr_sft).within(0, total);
            s.chart = chart.to_string();
            let n_replay = ((p.replay_ratio * p.sft_batch as f64).round() as usize).min(p.sft_batch);
            let batches = Batches::fresh(|rng: &mut Rng| {
                let mut out: Vec<Example> = (0..n_replay).map(|_| rng.choose(&d.replay).clone()).collect();
                out.extend((n_replay..p.sft_batch).map(|_| d.examples[set[rng.below(set.len())]].clone()));
                out
            });
            pipeline::sft(ctx, model.lm(), &s, batches, &mut Rng::new(ctx.seed ^ 0xda7a), pipeline::no_probe)?;
            Ok(model)
        };
        let twin_chart = format!("sft loss · {} coreset", other.name());
        let (policy, twin) =
            pipeline::side_by_side(ctx, |ctx| fit(ctx, &chosen, "sft loss"), |ctx| fit(ctx, &twin_set, &twin_chart))?;
        ctx.keep(SFT, Arms::Trained, &policy)?;
        let sft = stage(ctx, p, &d, 1, policy.lm())?;
        let sft_sampled = given_timing_sampled(ctx, p, &d, 1, policy.lm())?;
        let twin_success = metrics(&evaluate(p, &d, twin.lm())?.1)[4].mean;
        ctx.log(crate::t!(
            "view-ap-log-twin",
            strategy = p.coreset.name(),
            ours = format!("{:.3}", sft.metrics[4].mean),
            other = other.name(),
            twin = format!("{twin_success:.3}")
        ));
        // Chosen (loss, diversity or both) minus random, whichever the agent trained on.
        let chosen_minus_random = match p.coreset {
            Coreset::Random => twin_success - sft.metrics[4].mean,
            _ => sft.metrics[4].mean - twin_success,
        };

        ctx.phase(crate::t!("view-ap-phase-rl", algo = format!("{:?}", p.algo).to_lowercase()));
        rl(p, ctx, &d, &policy)?;
        ctx.keep(RL, Arms::Trained, &policy)?;
        let after = stage(ctx, p, &d, 2, policy.lm())?;
        let rl_sampled = given_timing_sampled(ctx, p, &d, 2, policy.lm())?;

        ctx.phase(crate::t!("view-phase-report"));
        let stages = [&base, &sft, &after];
        report(ctx, p, &d, &stages);

        let m = |s: &StageEval, i: usize| s.metrics[i].mean;
        ctx.claim("sft_tool_selection_gain", m(&sft, 0) - m(&base, 0))?;
        let given = |s: &StageEval| timing_on(d.eval.iter().zip(&s.scores), Kind::Given);
        for (k, s) in [(1, &sft), (2, &after)] {
            ctx.metric(k, "given_timing · greedy", given(s));
        }
        ctx.log(crate::t!(
            "view-ap-log-given-timing",
            sft = format!("{:.3}", given(&sft)),
            rl = format!("{:.3}", given(&after)),
            sft_sampled = format!("{sft_sampled:.3}"),
            rl_sampled = format!("{rl_sampled:.3}"),
            samples = GIVEN_SAMPLES
        ));
        // The share of the mistimed calls left after SFT that RL removes: how
        // much of the habit SFT copied varies by seed, what RL does with it is the claim.
        ctx.claim("rl_timing_gain", gap_closed(sft_sampled, rl_sampled))?;
        ctx.claim("replay_forgetting", sft.base_loss - base.base_loss)?;
        ctx.claim("sft_success_gain", m(&sft, 4) - m(&base, 4))?;
        ctx.claim("rl_success_change", m(&after, 4) - m(&sft, 4))?;
        ctx.claim("coreset_vs_random", chosen_minus_random)?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
        let (_, tok) = base::shipped(device)?;
        let fmt = Format::tiny(&tok);
        let mut arms = Vec::new();
        for (k, id) in [BASE, SFT, RL].into_iter().enumerate() {
            let label = stage_name(k);
            arms.push((TryArm { id: id.to_string(), label }, pipeline::kept_model(run, id, None, device)?));
        }
        let (tools, _, eval) = bench(p, run.seed);
        let examples = eval.into_iter().map(|t| t.question).collect();
        let (route, truth) = (agent_bench::call, agent_bench::truth_of);
        Ok(Box::new(ReactTry { tok, fmt, tools, route, truth, max_steps: p.max_steps, arms, examples }))
    }
}

/// Phase "data": the benchmark, the demonstrations as masked examples, the
/// base model, its pretraining text (the base task and the replay buffer).
struct Data {
    tools: Tools,
    train: Vec<BenchTask>,
    eval: Vec<BenchTask>,
    /// Demonstration `i` of `train[i]`, and whether it carries a timing error.
    examples: Vec<Example>,
    noisy: Vec<bool>,
    replay: Vec<Example>,
    probe: Vec<Example>,
    tok: Bpe,
    fmt: Format,
    start: Start,
}

impl Data {
    fn lm<'a>(&'a self, model: &'a dyn CausalLm) -> Lm<'a> {
        Lm { model, tok: &self.tok, fmt: &self.fmt }
    }
}

/// The run's tools, training tasks and held-out tasks (places never trained
/// on): a function of the seed alone, so Try draws the same.
fn bench(p: &Params, seed: u64) -> (Tools, Vec<BenchTask>, Vec<BenchTask>) {
    let kb = FactTable::world();
    let mut rng = Rng::new(seed);
    let (places, held_out) = split_places(&kb, &mut rng);
    let train = (0..p.train_tasks).map(|_| agent_bench::make_task(&mut rng, &kb, &places)).collect();
    let eval = (0..p.eval_tasks).map(|_| agent_bench::make_task(&mut rng, &kb, &held_out)).collect();
    (Tools::new(kb), train, eval)
}

fn data(p: &Params, ctx: &mut RunCtx) -> Result<Data> {
    ctx.phase(crate::t!("view-phase-data"));
    let (tools, train, eval) = bench(p, ctx.seed);
    let mut rng = Rng::new(ctx.seed ^ 0xde40);
    let demos: Vec<Session> =
        train.iter().map(|t| agent_bench::demonstrate(t, &tools, p.demo_timing_errors, &mut rng)).collect();
    let noisy: Vec<bool> =
        demos.iter().zip(&train).map(|(s, t)| t.kind == Kind::Given && agent_bench::calls(t, s).len() > 1).collect();
    let (start, tok) = base::shipped(&ctx.device)?;
    let fmt = Format::tiny(&tok);
    let examples: Vec<Example> = demos.iter().map(|s| example(&tok, &fmt, &s.episode.segments, true, &[])).collect();
    let longest = examples.iter().map(|e| e.len()).max().unwrap_or(0);
    if longest + 30 > start.cfg.context {
        bail!(crate::t!("setup-too-long", longest = longest.to_string(), context = start.cfg.context.to_string()));
    }
    let mut text = Rng::new(ctx.seed ^ 0xba5e);
    let replay = (0..REPLAY_BUFFER).map(|_| base::packed_example(&tok, &mut text, BASE_LEN)).collect();
    // The base task's probe: pretraining text none of the stages trains on.
    let mut held = Rng::new(ctx.seed ^ 0x9be);
    let probe = (0..p.base_probe).map(|_| base::packed_example(&tok, &mut held, BASE_LEN)).collect();
    ctx.log(crate::t!(
        "view-ap-log-data",
        train = train.len().to_string(),
        noisy = noisy.iter().filter(|n| **n).count().to_string(),
        eval = eval.len().to_string(),
        longest = longest.to_string()
    ));
    let d = Data { tools, train, eval, examples, noisy, replay, probe, tok, fmt, start: Start::Tiny(start) };
    bench_views(ctx, &d);
    Ok(d)
}

/// The catalogue and the benchmark's make-up.
fn bench_views(ctx: &mut RunCtx, d: &Data) {
    let rows = CATALOGUE
        .iter()
        .map(|t| {
            let role = if t.distractor { crate::t!("view-ap-distractor") } else { crate::t!("view-ap-answers") };
            vec![t.name.to_string(), t.argument.to_string(), t.description.to_string(), role]
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-ap-catalogue-title"),
        [
            crate::t!("view-ap-col-tool"),
            crate::t!("view-ap-col-argument"),
            crate::t!("view-ap-col-does"),
            crate::t!("view-ap-col-role"),
        ],
        rows,
    ));
    let rows = Kind::ALL
        .iter()
        .map(|k| {
            let count = |ts: &[BenchTask]| ts.iter().filter(|t| t.kind == *k).count().to_string();
            let example = d.eval.iter().find(|t| t.kind == *k).map_or(String::new(), |t| t.question.clone());
            let needs = if k.needs().is_empty() { "—".to_string() } else { k.needs().join(" → ") };
            vec![k.name().to_string(), needs, count(&d.train), count(&d.eval), example]
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-ap-bench-title"),
        [
            crate::t!("view-ap-col-kind"),
            crate::t!("view-ap-col-needs"),
            crate::t!("view-ap-col-train"),
            crate::t!("view-ap-col-heldout"),
            crate::t!("view-ap-col-example"),
        ],
        rows,
    ));
}

/// One stage's evaluation on the held-out benchmark.
struct StageEval {
    metrics: [Stat; 5],
    base_loss: f64,
    sessions: Vec<Session>,
    scores: Vec<Scores>,
}

/// `tasks` played in the real loop, one batched generation per turn, and scored.
fn play(
    p: &Params,
    d: &Data,
    model: &dyn CausalLm,
    tasks: &[&BenchTask],
    decoding: (Decoding, &mut Rng),
) -> Result<(Vec<Session>, Vec<Scores>)> {
    let sessions = tasks.iter().map(|t| Session::new(&t.question)).collect();
    let tools = &d.tools;
    let done = drive(
        &d.lm(model),
        sessions,
        p.max_steps,
        decoding,
        &mut |_, tool, input| agent_bench::call(tools, tool, input),
        &mut |_| Ok(()),
    )?;
    let scores = tasks.iter().zip(&done).map(|(t, s)| score(t, s)).collect();
    Ok((done, scores))
}

/// Every held-out task, greedy.
fn evaluate(p: &Params, d: &Data, model: &dyn CausalLm) -> Result<(Vec<Session>, Vec<Scores>)> {
    let tasks: Vec<&BenchTask> = d.eval.iter().collect();
    play(p, d, model, &tasks, (Decoding::Greedy, &mut Rng::new(0)))
}

/// The share of the gap to a perfect 1.0 that `after` closes from `before`;
/// 0 when there was no gap (nothing to remove is not a removal).
fn gap_closed(before: f64, after: f64) -> f64 {
    let gap = 1.0 - before;
    if gap > 1e-9 {
        (after - before) / gap
    } else {
        0.0
    }
}

/// Episodes sampled per held-out fact-given task for [`given_timing_sampled`].
const GIVEN_SAMPLES: usize = 4;

/// Timing precision on the held-out tasks whose fact the question gives,
/// over [`GIVEN_SAMPLES`] episodes each sampled at temperature 1: how much
/// of the policy's probability still goes to the needless lookup. Greedy
/// decoding shows only the likeliest action, which can already be right
/// while a third of the samples still look the fact up; RL's reward acts on
/// the samples. The same sampling seed at every stage (common random
/// numbers), so a difference between stages is the policy's.
fn given_timing_sampled(ctx: &mut RunCtx, p: &Params, d: &Data, k: usize, model: &dyn CausalLm) -> Result<f64> {
    let given = d.eval.iter().filter(|t| t.kind == Kind::Given);
    let all: Vec<&BenchTask> = given.flat_map(|t| std::iter::repeat_n(t, GIVEN_SAMPLES)).collect();
    let sampling = Decoding::Sample { temperature: 1.0, top_k: None, top_p: None };
    let (_, scores) = play(p, d, model, &all, (sampling, &mut Rng::new(ctx.seed ^ 0x5a3e_7109)))?;
    let precision = timing_on(all.iter().copied().zip(&scores), Kind::Given);
    ctx.metric(k, "given_timing · sampled", precision);
    Ok(precision)
}

/// The stage names, in order (the metric streams' steps).
fn stage_name(k: usize) -> String {
    match k {
        0 => crate::t!("view-ap-stage-base"),
        1 => crate::t!("view-ap-stage-sft"),
        _ => crate::t!("view-ap-stage-rl"),
    }
}

/// A metric's name as the report card heads its column ([`METRICS`] order).
fn metric_name(i: usize) -> String {
    match i {
        0 => crate::t!("view-ap-metric-tool-selection"),
        1 => crate::t!("view-ap-metric-plan-success"),
        2 => crate::t!("view-ap-metric-step-efficiency"),
        3 => crate::t!("view-ap-metric-timing-precision"),
        _ => crate::t!("view-ap-metric-end-to-end-success"),
    }
}

/// Evaluate the model after stage `k` and emit its five metrics (mean, std
/// and count, each a stream whose step is the stage) and its base-task loss.
fn stage(ctx: &mut RunCtx, p: &Params, d: &Data, k: usize, model: &dyn CausalLm) -> Result<StageEval> {
    let (sessions, scores) = evaluate(p, d, model)?;
    let m = metrics(&scores);
    for (name, s) in METRICS.iter().zip(&m) {
        ctx.metric(k, name, s.mean);
        ctx.metric(k, &format!("{name}_std"), s.std);
        ctx.metric(k, &format!("{name}_n"), s.count as f64);
    }
    let base_loss = base_task_loss(model, &d.probe, &ctx.device)?;
    ctx.metric(k, "base_task_loss", base_loss);
    let f = |i: usize| format!("{:.3}", m[i].mean);
    ctx.log(crate::t!(
        "view-ap-log-stage",
        stage = stage_name(k),
        tool = f(0),
        plan = f(1),
        steps = f(2),
        timing = f(3),
        e2e = f(4),
        loss = format!("{base_loss:.3}")
    ));
    Ok(StageEval { metrics: m, base_loss, sessions, scores })
}

/// Mean masked loss on the base task's probe: what forgetting is measured on.
fn base_task_loss(model: &dyn CausalLm, probe: &[Example], device: &Device) -> Result<f64> {
    let (mut sum, mut n) = (0.0, 0usize);
    for chunk in probe.chunks(16) {
        let picks: Vec<&Example> = chunk.iter().collect();
        let (x, y) = batch(&picks, device)?;
        let loss = masked_cross_entropy(&model.forward(&x)?, &y)?.to_scalar::<f32>()? as f64;
        sum += loss * chunk.len() as f64;
        n += chunk.len();
    }
    Ok(sum / n.max(1) as f64)
}

/// `k` distinct indices of `0..n`, uniformly.
fn pick_random(n: usize, k: usize, rng: &mut Rng) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut all);
    all.truncate(k);
    all
}

/// Phase "coreset": the indices of the demonstrations SFT trains on.
fn coreset(p: &Params, ctx: &mut RunCtx, d: &Data, how: Coreset) -> Result<Vec<usize>> {
    let mut rng = Rng::new(ctx.seed ^ 0xc05e);
    let n = p.coreset_size;
    let by_loss = || -> Result<Vec<usize>> {
        let losses = example_losses(d.start.model(), &d.examples, &ctx.device)?;
        let mut order: Vec<usize> = (0..losses.len()).collect();
        order.sort_by(|&a, &b| losses[b].total_cmp(&losses[a]).then(a.cmp(&b)));
        Ok(order)
    };
    let chosen = match how {
        Coreset::Random => pick_random(d.examples.len(), n, &mut rng),
        Coreset::LossTopk => by_loss()?.into_iter().take(n).collect(),
        Coreset::Diversity => k_center(&d.examples, vec![rng.below(d.examples.len())], n),
        Coreset::Hybrid => {
            let seeds: Vec<usize> = by_loss()?.into_iter().take(n / 2).collect();
            k_center(&d.examples, seeds, n)
        }
    };
    let noisy = chosen.iter().filter(|&&i| d.noisy[i]).count();
    ctx.log(crate::t!(
        "view-ap-log-coreset",
        strategy = how.name(),
        size = chosen.len().to_string(),
        pool = d.examples.len().to_string(),
        noisy = noisy.to_string(),
        share = format!("{:.0}", 100.0 * noisy as f64 / chosen.len().max(1) as f64),
        pool_share =
            format!("{:.0}", 100.0 * d.noisy.iter().filter(|x| **x).count() as f64 / d.noisy.len().max(1) as f64)
    ));
    Ok(chosen)
}

/// Each example's masked loss under `model` (batches of 32).
fn example_losses(model: &dyn CausalLm, examples: &[Example], device: &Device) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(examples.len());
    for chunk in examples.chunks(32) {
        let picks: Vec<&Example> = chunk.iter().collect();
        let (x, y) = batch(&picks, device)?;
        let logits = model.forward(&x)?.to_vec3::<f32>()?;
        let labels = y.to_vec2::<i64>()?;
        for i in 0..chunk.len() {
            out.push(masked_ce_by_hand(&logits[i..i + 1], &labels[i..i + 1]).0);
        }
    }
    Ok(out)
}

/// Greedy k-center: from `chosen`, add the example farthest (Jaccard distance
/// of token sets) from everything chosen so far, until there are `n`.
fn k_center(examples: &[Example], mut chosen: Vec<usize>, n: usize) -> Vec<usize> {
    let sets: Vec<Vec<u32>> = examples
        .iter()
        .map(|e| {
            let mut s = e.tokens.clone();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    let jaccard = |a: &[u32], b: &[u32]| -> f64 {
        let (mut i, mut j, mut both) = (0, 0, 0usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    both += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        1.0 - both as f64 / (a.len() + b.len() - both).max(1) as f64
    };
    let mut nearest = vec![f64::INFINITY; examples.len()];
    let mut taken = vec![false; examples.len()];
    let mut fresh: Vec<usize> = chosen.clone();
    for &c in &chosen {
        taken[c] = true;
    }
    while chosen.len() < n.min(examples.len()) {
        for &c in &fresh {
            for (i, d) in nearest.iter_mut().enumerate() {
                *d = d.min(jaccard(&sets[i], &sets[c]));
            }
        }
        // The farthest one not taken; ties to the lowest index.
        let next = (0..examples.len())
            .filter(|&i| !taken[i])
            .fold(None, |best: Option<usize>, i| match best {
                Some(b) if nearest[b] >= nearest[i] => Some(b),
                _ => Some(i),
            })
            .expect("fewer chosen than examples");
        taken[next] = true;
        chosen.push(next);
        fresh = vec![next];
    }
    chosen
}

/// What the coreset holds, kind by kind, next to the pool.
fn coreset_view(ctx: &mut RunCtx, p: &Params, d: &Data, chosen: &[usize]) {
    let mut rows: Vec<Vec<String>> = Kind::ALL
        .iter()
        .map(|k| {
            let pool = d.train.iter().filter(|t| t.kind == *k).count();
            let core = chosen.iter().filter(|&&i| d.train[i].kind == *k).count();
            vec![k.name().to_string(), pool.to_string(), core.to_string()]
        })
        .collect();
    let noisy_pool = d.noisy.iter().filter(|x| **x).count();
    let noisy_core = chosen.iter().filter(|&&i| d.noisy[i]).count();
    rows.push(vec![crate::t!("view-ap-noisy-demos"), noisy_pool.to_string(), noisy_core.to_string()]);
    ctx.view(View::table(
        crate::t!("view-ap-coreset-title", strategy = p.coreset.name(), size = p.coreset_size.to_string()),
        [crate::t!("view-ap-col-kind"), crate::t!("view-ap-col-pool"), crate::t!("view-ap-col-coreset")],
        rows,
    ));
}

/// Timing precision over the episodes of tasks of `kind` that called a tool.
fn timing_on<'a>(episodes: impl Iterator<Item = (&'a BenchTask, &'a Scores)>, kind: Kind) -> f64 {
    Stat::of(episodes.filter(|(t, _)| t.kind == kind).filter_map(|(_, s)| s.timing_precision)).mean
}

/// The reward's components of an episode, in the order of [`COMPONENTS`].
fn components(t: &BenchTask, s: &Scores, credit: Credit) -> [f64; 5] {
    [s.success, s.format, s.tool_reward(credit), s.timing_reward(t.kind, credit), s.steps_reward()]
}

const COMPONENTS: [&str; 5] = ["correct", "format", "tool", "timing", "steps"];

/// Phase "RL": `rl_steps` updates of `policy` on groups of sampled episodes.
fn rl(p: &Params, ctx: &mut RunCtx, d: &Data, policy: &Model) -> Result<()> {
    let weights = [p.w_correct, p.w_format, p.w_tool, p.w_timing, p.w_steps];
    // The SFT model, frozen: DPO's reference, and GRPO's KL anchor.
    let reference = policy.frozen(ctx.seed)?;
    let mut trainer = Trainer::for_model(policy.lm(), TrainConfig::constant(p.lr_rl))?;
    let mut rng = Rng::new(ctx.seed ^ 0x4172);
    let decoding = Decoding::Sample { temperature: p.temperature as f32, top_k: None, top_p: None };
    for step in 0..p.rl_steps {
        ctx.check_cancel()?;
        let tasks: Vec<&BenchTask> = (0..p.questions_per_step).map(|_| rng.choose(&d.train)).collect();
        let all: Vec<&BenchTask> = tasks.iter().flat_map(|t| std::iter::repeat_n(*t, p.group)).collect();
        let (done, scores) = play(p, d, policy.lm(), &all, (decoding, &mut rng))?;
        let comps: Vec<[f64; 5]> = all.iter().zip(&scores).map(|(t, s)| components(t, s, p.credit)).collect();
        let totals: Vec<f32> =
            comps.iter().map(|c| c.iter().zip(&weights).map(|(c, w)| c * w).sum::<f64>() as f32).collect();
        let ids: Vec<Vec<(Role, Vec<u32>)>> = done
            .iter()
            .map(|s| s.episode.segments.iter().map(|(r, t)| (*r, d.fmt.encode(&d.tok, *r, t))).collect())
            .collect();
        let turns = |s: &Session| s.episode.segments.iter().filter(|(r, _)| *r == Role::Agent).count();
        let loss = match p.algo {
            Algo::Grpo => {
                let returns: Vec<Vec<f32>> = done.iter().zip(&totals).map(|(s, r)| vec![*r; turns(s)]).collect();
                let (adv, spread) = advantage::turn_advantages(&returns, p.group, Baseline::Grpo);
                ctx.metric(step, "zero_std_groups", spread.zero_std_share);
                let rows = ids.iter().zip(&adv).map(|(ids, a)| row(ids, a, d, policy.lm())).collect();
                let b = TokenBatch::new(rows, &ctx.device)?;
                let logp = policy.lm().scored_logprobs(&b.x, &b.targets, &b.mask, false)?.logp;
                let ref_logp = reference.lm().scored_logprobs(&b.x, &b.targets, &b.mask, false)?.logp.detach();
                // One update per batch of episodes: the sampling policy is the policy (ratio 1, no clip).
                let out = grpo_loss(
                    &logp,
                    &logp.detach(),
                    &ref_logp,
                    &b.adv,
                    &b.mask,
                    GrpoVariant::Grpo,
                    0.2,
                    p.kl_beta,
                    b.mask.dim(1)?,
                )?;
                ctx.metric(step, "kl to SFT", out.kl);
                Some(out.loss)
            }
            Algo::Dpo => {
                // Each group's best episode against its worst, where they differ.
                let (mut chosen, mut rejected) = (Vec::new(), Vec::new());
                for (g, group) in totals.chunks(p.group).enumerate() {
                    let order = |cmp: fn(f32, f32) -> bool| {
                        (0..group.len()).fold(0, |best, i| if cmp(group[i], group[best]) { i } else { best })
                    };
                    let (hi, lo) = (order(|a, b| a > b), order(|a, b| a < b));
                    if group[hi] - group[lo] > 1e-6 {
                        chosen.push(g * p.group + hi);
                        rejected.push(g * p.group + lo);
                    }
                }
                ctx.metric(step, "dpo_pairs", chosen.len() as f64);
                if chosen.is_empty() {
                    None
                } else {
                    let k = chosen.len();
                    let rows = chosen.iter().chain(&rejected).map(|&i| row(&ids[i], &[], d, policy.lm())).collect();
                    let b = TokenBatch::new(rows, &ctx.device)?;
                    let seq = |m: &dyn CausalLm| -> Result<candle_core::Tensor> {
                        let logp = m.scored_logprobs(&b.x, &b.targets, &b.mask, false)?.logp;
                        Ok(sequence_logps(&logp, &b.agent_mask)?)
                    };
                    let (pl, rl) = (seq(policy.lm())?, seq(reference.lm())?.detach());
                    let out = dpo_loss(
                        &pl.narrow(0, 0, k)?,
                        &pl.narrow(0, k, k)?,
                        &rl.narrow(0, 0, k)?,
                        &rl.narrow(0, k, k)?,
                        p.dpo_beta,
                        DpoVariant::Sigmoid,
                    )?;
                    ctx.metric(step, "dpo_accuracy", out.accuracy);
                    Some(out.loss)
                }
            }
        };
        if let Some(loss) = loss {
            trainer.step(&loss, "RL loss")?;
        }
        let n = comps.len().max(1) as f64;
        for (i, name) in COMPONENTS.iter().enumerate() {
            ctx.metric(step, &format!("reward · {name}"), comps.iter().map(|c| c[i]).sum::<f64>() / n);
        }
        ctx.metric(step, "mean_reward", totals.iter().map(|&r| r as f64).sum::<f64>() / n);
        ctx.progress(p.sft_steps + step + 1, p.sft_steps + p.rl_steps, 0);
    }
    Ok(())
}

/// An episode as a training row (observations masked), cut to the model's
/// context: the loop ends an episode once its next turn might not fit, but
/// the last observation can still run past the end.
fn row(ids: &[(Role, Vec<u32>)], adv: &[f32], d: &Data, model: &dyn CausalLm) -> Row {
    let mut r = Row::new(ids, adv, true, d.fmt.bos);
    let n = model.context().min(r.ids.len());
    r.ids.truncate(n);
    r.mask.truncate(n);
    r.adv.truncate(n);
    r.obs.truncate(n);
    r
}

/// The report card's header: the stage, the five metrics, the base task's loss.
fn card_header() -> Vec<String> {
    let mut h = vec![crate::t!("view-ap-col-stage")];
    h.extend((0..METRICS.len()).map(metric_name));
    h.push(crate::t!("view-ap-col-base-loss"));
    h
}

/// The report card's rows: each stage's metrics as `mean ± std (n)`, and
/// after SFT and RL the change from the stage before.
fn card_rows(stages: &[&StageEval]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for (k, s) in stages.iter().enumerate() {
        if k > 0 {
            let before = stages[k - 1];
            let mut delta = vec![crate::t!("view-ap-delta", stage = stage_name(k))];
            delta.extend((0..5).map(|i| format!("{:+.3}", s.metrics[i].mean - before.metrics[i].mean)));
            delta.push(format!("{:+.3}", s.base_loss - before.base_loss));
            rows.push(delta);
        }
        let mut row = vec![stage_name(k)];
        row.extend(s.metrics.iter().map(|m| format!("{:.3} ± {:.3} (n={})", m.mean, m.std, m.count)));
        row.push(format!("{:.3}", s.base_loss));
        rows.push(row);
    }
    rows
}

/// Phase "report": the report card (a view and `report.md`), success by kind
/// of task at every stage, and a few held-out episodes of the final agent.
fn report(ctx: &mut RunCtx, p: &Params, d: &Data, stages: &[&StageEval]) {
    let header = card_header();
    let rows = card_rows(stages);
    ctx.view(View::table(crate::t!("view-ap-card-title"), header.clone(), rows.clone()));
    let mut by_kind = Vec::new();
    for k in Kind::ALL {
        let mut row = vec![k.name().to_string()];
        for s in stages {
            let mine: Vec<&Scores> =
                d.eval.iter().zip(&s.scores).filter(|(t, _)| t.kind == k).map(|(_, s)| s).collect();
            let right = mine.iter().filter(|s| s.success == 1.0).count();
            let timed: Vec<f64> = mine.iter().filter_map(|s| s.timing_precision).collect();
            row.push(format!("{right}/{} · {:.2}", mine.len(), Stat::of(timed).mean));
        }
        by_kind.push(row);
    }
    let mut kind_header = vec![crate::t!("view-ap-col-kind")];
    kind_header.extend((0..stages.len()).map(stage_name));
    ctx.view(View::table(crate::t!("view-ap-by-kind-title"), kind_header.clone(), by_kind.clone()));
    let last = stages.last().expect("three stages");
    let body = last
        .sessions
        .iter()
        .zip(&d.eval)
        .take(8)
        .map(|(s, t)| {
            format!("{}→ {}", joined(&s.episode.segments), crate::t!("view-react-truth", truth = t.truth.as_str()))
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    ctx.view(View::Text { title: crate::t!("view-ap-episodes-title"), body });
    ctx.attach("report.md", report_md(ctx, p, &header, &rows, &kind_header, &by_kind));
}

/// The report card as Markdown: what the run was, and its tables.
fn report_md(
    ctx: &RunCtx,
    p: &Params,
    header: &[String],
    rows: &[Vec<String>],
    kind_header: &[String],
    by_kind: &[Vec<String>],
) -> String {
    let table = |h: &[String], rows: &[Vec<String>]| -> String {
        let mut s = format!("| {} |\n|{}\n", h.join(" | "), "---|".repeat(h.len()));
        for r in rows {
            s.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        s
    };
    let weights = format!(
        "{:.2}·correct + {:.2}·format + {:.2}·tool + {:.2}·timing + {:.2}·steps",
        p.w_correct, p.w_format, p.w_tool, p.w_timing, p.w_steps
    );
    format!(
        "# {}\n\n{}\n\n{}\n\n## {}\n\n{}\n## {}\n\n{}",
        crate::t!("view-ap-card-title"),
        crate::t!(
            "view-ap-md-run",
            drill = ctx.meta.id.as_str(),
            preset = ctx.preset.as_str(),
            seed = ctx.seed.to_string()
        ),
        crate::t!(
            "view-ap-md-setup",
            coreset = p.coreset.name(),
            size = p.coreset_size.to_string(),
            replay = format!("{:.2}", p.replay_ratio),
            algo = format!("{:?}", p.algo).to_lowercase(),
            reward = weights
        ),
        crate::t!("view-ap-md-stages"),
        table(header, rows),
        crate::t!("view-ap-by-kind-title"),
        table(kind_header, by_kind)
    )
}
