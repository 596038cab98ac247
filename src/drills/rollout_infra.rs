//! `rollout-infra`: measure, on this machine, the costs that decide how RL
//! systems for LLMs are built.
//!
//! Phases of `run`:
//!
//! 1. **data**, **warm start (SFT)** — the addition task and warm start that
//!    `grpo-rlvr` and `pass-at-k-harness` share (`src/drills/addition.rs`).
//! 2. **generation** — the same greedy rollouts with and without the KV cache
//!    (`src/ml/sample.rs::generate`, both through the candle-ops model so
//!    the cache is the only difference; the fused CPU decoder the drills
//!    roll out with as a third row), in interleaved repetitions; then
//!    tokens/s of the fused decoder against the batch size.
//! 3. **padding** — multi-turn trajectories of mixed length (turns sampled
//!    from the warm start), batched in arrival order and length-bucketed
//!    (sorted within a window of `sort_window` trajectories): padded tokens
//!    and the KV cache each batch reserves, counted; a forward over each
//!    batching, timed.
//! 4. **KV memory** — one trajectory fed turn by turn through a KV cache:
//!    the bytes the cache tensors hold (measured) against
//!    `src/ml/gpt.rs::kv_cache_bytes` (computed).
//! 5. **staleness** — GRPO from the warm start with rollouts from the policy
//!    of k updates ago, k = 0 (synchronous) … `max_staleness`, with the
//!    importance ratio π/μ to the behaviour policy μ in the clipped objective
//!    and without it (the stale samples treated as on-policy): the ratio's
//!    drift from 1, the clip fraction and KL(μ ‖ π) on each batch before its
//!    first update.
//! 6. **throughput** — the k = 1 run's measured generation and training
//!    times per update laid on two schedules: synchronous (generate, then
//!    train) and one-step asynchronous (generate batch t + 1 while training
//!    on batch t). A simulated clock calibrated from measured costs, not two
//!    threads: on this 2-core machine both phases already use every core.
//!
//! Wall-clock numbers: generation times and tokens/s, the padded-batch
//! forward time, the per-update phase costs and the clocks built from them.
//! Everything else (positions processed, padded tokens, KV bytes, ratios,
//! clip fractions, KL, rewards) is counted and repeats exactly with the seed.

use std::collections::VecDeque;

use anyhow::Result;
use candle_core::Tensor;
use serde::Deserialize;

use super::addition::{self, build_batch, Grpo, Problems, Text, WarmStart};
use super::{check_heads, RunCtx, TypedDrill, View};
use crate::envs::rlvr::{Reward, ALPHABET};
use crate::eval::bootstrap::median;
use crate::ml::gpt::{kv_cache_bytes, Gpt, KvCache, Positions};
use crate::ml::ops;
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{CharTokenizer, Tokenize};
use crate::ml::train::{TrainConfig, Trainer};
use crate::numbers::{doublings, mean, timed};
use crate::rl::grpo::GrpoVariant;
use crate::rl::ppo::clip_stats;
use crate::rl::rollout::{
    batch_picture, batches, drift, finish_time, phase_seconds, schedule, Batching, StepStat, Summary, Trajectory,
};

pub struct RolloutInfra;

/// `drills/rollout-infra/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub digits: usize,
    pub hedge_rate: f64,
    pub sft_steps: usize,
    pub sft_batch: usize,
    pub lr_sft: f64,
    pub gen_batch: usize,
    pub gen_len: usize,
    pub batch_max: usize,
    pub reps: usize,
    pub trajectories: usize,
    pub max_turns: usize,
    pub batch: usize,
    pub sort_window: usize,
    pub rl_steps: usize,
    pub prompts_per_step: usize,
    pub group: usize,
    pub max_new: usize,
    pub temperature: f32,
    pub lr: f64,
    pub kl_coef: f64,
    pub ppo_epochs: usize,
    pub clip_eps: f64,
    pub max_staleness: usize,
    pub test_size: usize,
    pub d_model: usize,
    pub n_layers: usize,
    pub n_heads: usize,
}

/// Bytes of one f32: the dtype of every cache here.
const F32: usize = 4;

impl Params {
    fn prompt_len(&self) -> usize {
        2 * self.digits + 2
    }

    fn warm_start(&self) -> WarmStart {
        // Room for the longest trajectory and for the timed generations.
        let turn = self.prompt_len() + self.max_new;
        WarmStart {
            hedge_rate: self.hedge_rate,
            slip_rate: 0.0,
            steps: self.sft_steps,
            batch: self.sft_batch,
            lr: self.lr_sft,
            context: (self.max_turns * turn).max(self.prompt_len() + self.gen_len + 1),
            d_model: self.d_model,
            n_layers: self.n_layers,
            n_heads: self.n_heads,
        }
    }

    fn kv_bytes(&self, seq_len: usize, batch: usize) -> usize {
        kv_cache_bytes(self.n_layers, self.n_heads, self.d_model / self.n_heads, seq_len, batch, F32)
    }
}

impl TypedDrill for RolloutInfra {
    const ID: &'static str = "rollout-infra";
    const CLAIMS: &'static [&'static str] = &[
        "async_speedup",
        "batching_speedup",
        "bucketed_forward_speedup",
        "bucketing_cuts_padding",
        "cache_speedup",
        "clip_grows_with_staleness",
        "is_correction_gain",
        "kl_grows_with_staleness",
        "kv_measured_over_computed",
        "stale_accuracy_cost",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        check_heads(p.d_model, p.n_heads)?;
        addition::check_sizes(p.digits, p.max_new, "test_size", p.test_size)?;
        if !p.sort_window.is_multiple_of(p.batch) {
            return Err(crate::t!("setup-ri-window", window = p.sort_window.to_string(), batch = p.batch.to_string()));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let tok = CharTokenizer::new(ALPHABET, &[]);
        let mut rng = Rng::new(ctx.seed);
        let runs = 2 * p.max_staleness + 1;
        let total = p.sft_steps + runs * p.rl_steps;
        let problems = addition::data(ctx, &p.warm_start(), p.digits, p.test_size, &Text::Chars(tok.clone()), &mut rng);
        let warm = addition::warm_start(&p.warm_start(), ctx, &tok, &problems, &mut rng, total)?;
        ctx.log(crate::t!("view-ri-log-clocks"));

        ctx.phase(crate::t!("view-ri-phase-generation"));
        let gen = generation(ctx, p, &warm, &tok, &problems, &mut rng.fork(20))?;

        ctx.phase(crate::t!("view-ri-phase-padding"));
        let trajs = trajectories(p, &warm, &tok, &problems, &mut rng.fork(30))?;
        let pad = padding(ctx, p, &warm, &trajs)?;

        ctx.phase(crate::t!("view-ri-phase-kv"));
        let kv = kv_memory(ctx, p, &warm, &trajs)?;

        ctx.phase(crate::t!("view-ri-phase-staleness"));
        let mut rl = Vec::new();
        let settings: Vec<(usize, bool)> =
            (0..=p.max_staleness).map(|k| (k, true)).chain((1..=p.max_staleness).map(|k| (k, false))).collect();
        for (i, &(k, corrected)) in settings.iter().enumerate() {
            let run = rl_run(ctx, p, &warm, &tok, &problems, k, corrected, p.sft_steps + i * p.rl_steps, total)?;
            ctx.log(run.describe());
            rl.push(run);
        }
        staleness_view(ctx, p, &rl);

        ctx.phase(crate::t!("view-ri-phase-throughput"));
        let speedup = throughput(ctx, p, &rl);

        let corrected = |k: usize| rl.iter().find(|r| r.k == k && r.corrected).expect("every k runs corrected");
        let (one, last) = (corrected(1).summary(), corrected(p.max_staleness).summary());
        ctx.claim("cache_speedup", gen.cache_speedup)?;
        ctx.claim("batching_speedup", gen.batching_speedup)?;
        ctx.claim("bucketing_cuts_padding", pad.cut)?;
        ctx.claim("clip_grows_with_staleness", last.clip - one.clip)?;
        ctx.claim("kl_grows_with_staleness", last.kl - one.kl)?;
        ctx.claim("async_speedup", speedup)?;
        ctx.claim("bucketed_forward_speedup", pad.forward_speedup)?;
        ctx.claim("kv_measured_over_computed", kv)?;
        let accuracy = |k: usize, corrected: bool| {
            rl.iter().find(|r| r.k == k && r.corrected == corrected).map_or(0.0, |r| r.held_out)
        };
        let k = p.max_staleness;
        ctx.claim("stale_accuracy_cost", accuracy(0, true) - accuracy(k, true))?;
        ctx.claim("is_correction_gain", accuracy(k, true) - accuracy(k, false))?;
        Ok(())
    }

    /// No Try: what this drill measures is this machine, not a model to ask (README, "Try it").
    fn no_try() -> Option<String> {
        Some(crate::t!("try-ri-none"))
    }
}

/// What phase "generation" measured.
struct Generation {
    /// Median time without the cache ÷ with it (candle ops both).
    cache_speedup: f64,
    /// tokens/s at `batch_max` ÷ at batch 1 (fused decoder).
    batching_speedup: f64,
}

/// Phase "generation": rollouts with and without the KV cache, then the
/// batch size against tokens/s.
fn generation(
    ctx: &mut RunCtx,
    p: &Params,
    model: &Gpt,
    tok: &CharTokenizer,
    problems: &Problems,
    rng: &mut Rng,
) -> Result<Generation> {
    let n = p.gen_batch.max(p.batch_max);
    let prompts: Vec<Vec<u32>> = (0..n).map(|_| tok.encode(&problems.fresh(rng).prompt())).collect();
    let rows = &prompts[..p.gen_batch];
    // Greedy and without a stop token: every path writes exactly gen_len tokens per row.
    let cfg = |use_cache| GenConfig { use_cache, ..GenConfig::greedy(p.gen_len, vec![]) };
    let mut composed = model.fork(ctx.seed)?;
    composed.use_fused = false;
    let mut run = |m: &Gpt, rows: &[Vec<u32>], use_cache: bool| timed(|| Ok(generate(m, rows, &cfg(use_cache), rng)?));
    let (mut cached, mut uncached, mut fused) = (vec![], vec![], vec![]);
    let mut same = 0.0;
    for rep in 0..p.reps {
        ctx.check_cancel()?;
        // Alternate the order so a slow moment of the machine hits both.
        let (with, without) = if rep % 2 == 0 {
            let a = run(&composed, rows, true)?;
            (a, run(&composed, rows, false)?)
        } else {
            let b = run(&composed, rows, false)?;
            (run(&composed, rows, true)?, b)
        };
        let f = run(model, rows, true)?;
        if rep == 0 {
            let tokens = |o: &[Vec<u32>]| o.iter().flatten().copied().collect::<Vec<u32>>();
            let (a, b) = (tokens(&with.0), tokens(&without.0));
            same = a.iter().zip(&b).filter(|(x, y)| x == y).count() as f64 / a.len().max(1) as f64;
        }
        cached.push(with.1);
        uncached.push(without.1);
        fused.push(f.1);
        let per_token = |s: f64| s * 1e3 / (p.gen_batch * p.gen_len) as f64;
        ctx.metric(rep, "generation/ms per token · KV cache (candle ops)", per_token(with.1));
        ctx.metric(rep, "generation/ms per token · no cache (candle ops)", per_token(without.1));
        ctx.metric(rep, "generation/ms per token · fused decoder, KV cache", per_token(f.1));
    }
    // Positions the forward passes processed: the prompt once, then one
    // position per new token with the cache, the whole prefix without it.
    let (b, pl, new) = (p.gen_batch, p.prompt_len(), p.gen_len);
    let with_cache = b * (pl + new);
    let without_cache: usize = b * (0..=new).map(|j| pl + j).sum::<usize>();
    let tokens = (b * new) as f64;
    let row = |name: String, times: &[f64], positions: usize| {
        let m = median(times);
        vec![
            name,
            format!("{:.1}", m * 1e3),
            format!("{:.0}", tokens / m),
            positions.to_string(),
            format!("{:.1}", positions as f64 / tokens),
        ]
    };
    ctx.view(View::table(
        crate::t!(
            "view-ri-gen-title",
            b = b.to_string(),
            new = new.to_string(),
            pl = pl.to_string(),
            reps = p.reps.to_string()
        ),
        [
            crate::t!("view-ri-col-path"),
            crate::t!("view-ri-col-ms-call"),
            "tokens/s".into(),
            crate::t!("view-ri-col-positions"),
            crate::t!("view-ri-col-positions-per-token"),
        ],
        vec![
            row(crate::t!("view-ri-row-no-cache"), &uncached, without_cache),
            row(crate::t!("view-ri-row-cache"), &cached, with_cache),
            row(crate::t!("view-ri-row-fused"), &fused, with_cache),
        ],
    ));
    let cache_speedup = median(&uncached) / median(&cached);
    ctx.log(crate::t!(
        "view-ri-log-cache",
        speedup = format!("{cache_speedup:.1}"),
        reps = p.reps.to_string(),
        without = without_cache.to_string(),
        with = with_cache.to_string(),
        ratio = format!("{:.1}", without_cache as f64 / with_cache as f64),
        same = format!("{:.1}", same * 100.0)
    ));

    // Batch size against tokens/s, the sizes interleaved within each repetition.
    // Batch sizes 1, 2, 4, … and `batch_max`.
    let sizes = doublings(p.batch_max);
    let mut times = vec![Vec::new(); sizes.len()];
    for _ in 0..p.reps {
        ctx.check_cancel()?;
        for (i, &s) in sizes.iter().enumerate() {
            times[i].push(run(model, &prompts[..s], true)?.1);
        }
    }
    let tps: Vec<f64> = sizes.iter().zip(&times).map(|(&s, t)| (s * new) as f64 / median(t)).collect();
    for (&s, &v) in sizes.iter().zip(&tps) {
        ctx.metric(s, "throughput/tokens per s vs batch size (fused decoder)", v);
    }
    let rows = sizes
        .iter()
        .zip(&times)
        .zip(&tps)
        .map(|((&s, t), &v)| {
            let m = median(t);
            vec![
                s.to_string(),
                format!("{:.2}", m * 1e3),
                format!("{:.3}", m * 1e3 / new as f64),
                format!("{v:.0}"),
                format!("{:.1}×", v / tps[0]),
            ]
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-ri-batch-title", new = new.to_string(), reps = p.reps.to_string()),
        [
            crate::t!("view-ri-col-batch"),
            crate::t!("view-ri-col-ms-call"),
            crate::t!("view-ri-col-ms-step"),
            "tokens/s".into(),
            crate::t!("view-ri-col-vs-batch-1"),
        ],
        rows,
    ));
    let batching_speedup = tps[tps.len() - 1] / tps[0];
    ctx.log(crate::t!(
        "view-ri-log-batching",
        one = format!("{:.0}", tps[0]),
        max = format!("{:.0}", tps[tps.len() - 1]),
        batch = p.batch_max.to_string(),
        speedup = format!("{batching_speedup:.1}")
    ));
    Ok(Generation { cache_speedup, batching_speedup })
}

/// Trajectories of 1..=max_turns turns, each turn a fresh problem and the
/// warm start's sampled answer (with its end token).
fn trajectories(
    p: &Params,
    model: &Gpt,
    tok: &CharTokenizer,
    problems: &Problems,
    rng: &mut Rng,
) -> Result<Vec<Trajectory>> {
    let turns: Vec<usize> = (0..p.trajectories).map(|_| 1 + rng.below(p.max_turns)).collect();
    let prompts: Vec<Vec<u32>> = (0..turns.iter().sum()).map(|_| tok.encode(&problems.fresh(rng).prompt())).collect();
    let (outs, _) =
        addition::sample_texts(model, &Text::Chars(tok.clone()), &prompts, (p.max_new, p.temperature), rng)?;
    Ok(Trajectory::assemble(&turns, &prompts, &outs))
}

/// What phase "padding" measured.
struct Padding {
    /// 1 − padded tokens bucketed ÷ padded tokens in arrival order.
    cut: f64,
    /// Forward time over the arrival-order batches ÷ over the bucketed ones.
    forward_speedup: f64,
}

/// Phase "padding": fixed (arrival-order) against length-bucketed batches.
fn padding(ctx: &mut RunCtx, p: &Params, model: &Gpt, trajs: &[Trajectory]) -> Result<Padding> {
    let lengths: Vec<usize> = trajs.iter().map(|t| t.tokens.len()).collect();
    let fixed_b = batches(&lengths, p.batch, None);
    let bucket_b = batches(&lengths, p.batch, Some(p.sort_window));
    let kv = |seq_len, rows| p.kv_bytes(seq_len, rows);
    let (fixed, bucket) = (Batching::of(&lengths, &fixed_b, kv), Batching::of(&lengths, &bucket_b, kv));
    for (j, (f, b)) in fixed.per_batch_padded.iter().zip(&bucket.per_batch_padded).enumerate() {
        ctx.metric(j, "padding/padded tokens per batch · arrival order", *f as f64);
        ctx.metric(j, "padding/padded tokens per batch · bucketed", *b as f64);
    }
    // A scoring forward over every batch (what the trainer runs), timed.
    let forward = |bs: &[Vec<usize>]| -> Result<f64> {
        Ok(timed(|| {
            for rows in bs {
                let (ids, longest) = Trajectory::padded(trajs, rows);
                model.forward(&Tensor::from_vec(ids, (rows.len(), longest), &model.device)?)?;
            }
            Ok(())
        })?
        .1)
    };
    let (mut tf, mut tb) = (vec![], vec![]);
    for rep in 0..p.reps {
        ctx.check_cancel()?;
        if rep % 2 == 0 {
            tf.push(forward(&fixed_b)?);
            tb.push(forward(&bucket_b)?);
        } else {
            tb.push(forward(&bucket_b)?);
            tf.push(forward(&fixed_b)?);
        }
    }
    let cut = if fixed.padded == 0 { 0.0 } else { 1.0 - bucket.padded as f64 / fixed.padded as f64 };
    let forward_speedup = median(&tf) / median(&tb);
    let row = |name: String, b: &Batching, bs: &[Vec<usize>], t: &[f64]| {
        vec![
            name,
            bs.len().to_string(),
            b.real.to_string(),
            b.padded.to_string(),
            format!("{:.1}%", b.share() * 100.0),
            format!("{:.1}", b.kv_reserved as f64 / 1024.0),
            format!("{:.1}", median(t) * 1e3),
        ]
    };
    let longest = lengths.iter().max().copied().unwrap_or(0);
    let shortest = lengths.iter().min().copied().unwrap_or(0);
    ctx.view(View::table(
        crate::t!(
            "view-ri-padding-title",
            n = trajs.len().to_string(),
            turns = p.max_turns.to_string(),
            shortest = shortest.to_string(),
            longest = longest.to_string(),
            batch = p.batch.to_string(),
            reps = p.reps.to_string()
        ),
        [
            crate::t!("view-ri-col-batching"),
            crate::t!("view-ri-col-batches"),
            crate::t!("view-ri-col-real"),
            crate::t!("view-ri-col-padded"),
            crate::t!("view-ri-col-padding-share"),
            crate::t!("view-ri-col-kv-reserved"),
            crate::t!("view-ri-col-forward-ms"),
        ],
        vec![
            row(crate::t!("view-ri-row-arrival"), &fixed, &fixed_b, &tf),
            row(crate::t!("view-ri-row-bucketed", window = p.sort_window.to_string()), &bucket, &bucket_b, &tb),
        ],
    ));
    // The first window, each row drawn to scale: █ real tokens, · padding.
    let draw = |bs: &[Vec<usize>]| batch_picture(&lengths, bs, (p.sort_window / p.batch).clamp(1, 4));
    ctx.view(View::Text {
        title: crate::t!("view-ri-picture-title"),
        body: format!(
            "{}\n{}\n{}\n{}",
            crate::t!("view-ri-picture-arrival"),
            draw(&fixed_b),
            crate::t!("view-ri-picture-bucketed"),
            draw(&bucket_b)
        ),
    });
    ctx.log(crate::t!(
        "view-ri-log-padding",
        fixed = fixed.padded.to_string(),
        fixed_pct = format!("{:.1}", fixed.share() * 100.0),
        bucket = bucket.padded.to_string(),
        bucket_pct = format!("{:.1}", bucket.share() * 100.0),
        cut = format!("{:.0}", cut * 100.0),
        speedup = format!("{forward_speedup:.2}")
    ));
    Ok(Padding { cut, forward_speedup })
}

/// Phase "KV memory": the longest trajectory through a KV cache turn by
/// turn; returns measured ÷ computed bytes after its last turn.
fn kv_memory(ctx: &mut RunCtx, p: &Params, model: &Gpt, trajs: &[Trajectory]) -> Result<f64> {
    let t = trajs.iter().max_by_key(|t| (t.turn_ends.len(), t.tokens.len())).expect("trajectories > 0");
    let mut cache = KvCache::new(model.cfg.n_layers);
    let mut composed = model.fork(ctx.seed)?;
    composed.use_fused = false;
    let (mut rows, mut start, mut ratio) = (Vec::new(), 0, 1.0);
    for (turn, &end) in t.turn_ends.iter().enumerate() {
        let n = end - start;
        let x = Tensor::from_vec(t.tokens[start..end].to_vec(), (1, n), &model.device)?;
        let mask = ops::cached_mask(&[vec![false; end]], n, &model.device)?;
        composed.run(&x, Positions::Range(n), &mask, Some(&mut cache))?;
        let measured = cache.bytes();
        let computed = p.kv_bytes(end, 1);
        ratio = measured as f64 / computed as f64;
        ctx.metric(turn + 1, "kv/bytes per trajectory · measured", measured as f64);
        ctx.metric(turn + 1, "kv/bytes per trajectory · computed", computed as f64);
        let counted = [turn + 1, end, computed, measured, measured / end].map(|v| v.to_string());
        rows.push([counted.to_vec(), vec![format!("{:.1}", p.kv_bytes(end, p.batch) as f64 / 1024.0)]].concat());
        start = end;
    }
    let hd = p.d_model / p.n_heads;
    ctx.view(View::table(
        crate::t!(
            "view-ri-kv-title",
            layers = p.n_layers.to_string(),
            heads = p.n_heads.to_string(),
            hd = hd.to_string(),
            f32 = F32.to_string()
        ),
        [
            crate::t!("view-ri-col-turn"),
            crate::t!("view-ri-col-tokens"),
            crate::t!("view-ri-col-computed"),
            crate::t!("view-ri-col-measured"),
            crate::t!("view-ri-col-bytes-per-token"),
            crate::t!("view-ri-col-kib-batch", batch = p.batch.to_string()),
        ],
        rows,
    ));
    ctx.log(crate::t!(
        "view-ri-log-kv",
        per_token = p.kv_bytes(1, 1).to_string(),
        tokens = t.tokens.len().to_string(),
        turns = t.turn_ends.len().to_string(),
        measured = p.kv_bytes(t.tokens.len(), 1).to_string(),
        ratio = format!("{ratio:.3}")
    ));
    Ok(ratio)
}

/// A GRPO run with rollouts `k` updates stale.
struct RlRun {
    k: usize,
    corrected: bool,
    steps: Vec<StepStat>,
    held_out: f64,
}

fn run_name(k: usize, corrected: bool) -> String {
    match (k, corrected) {
        (0, _) => "k=0 (synchronous)".into(),
        (k, true) => format!("k={k}"),
        (k, false) => format!("k={k} · no IS correction"),
    }
}

/// A run as the views and the log name it ([`run_name`] is in the metric names).
fn run_label(k: usize, corrected: bool) -> String {
    match (k, corrected) {
        (0, _) => crate::t!("view-ri-run-sync"),
        (k, true) => format!("k={k}"),
        (k, false) => crate::t!("view-ri-run-no-is", k = k.to_string()),
    }
}

impl RlRun {
    fn name(&self) -> String {
        run_label(self.k, self.corrected)
    }

    fn summary(&self) -> Summary {
        Summary::of(&self.steps, self.k)
    }

    fn describe(&self) -> String {
        let (s, (g, u)) = (self.summary(), phase_seconds(&self.steps));
        crate::t!(
            "view-ri-describe",
            name = self.name(),
            clip = format!("{:.4}", s.clip),
            drift = format!("{:.4}", s.drift),
            kl = format!("{:.5}", s.kl),
            reward = format!("{:.3}", s.reward),
            held = format!("{:.3}", self.held_out),
            g = format!("{g:.2}"),
            u = format!("{u:.2}")
        )
    }
}

/// Phase "staleness": GRPO from the warm start, each batch sampled by the
/// policy of `k` updates ago; `corrected`: the clipped ratio is π/μ to that
/// behaviour policy, else π/π_now (the stale batch treated as on-policy).
#[allow(clippy::too_many_arguments)]
fn rl_run(
    ctx: &mut RunCtx,
    p: &Params,
    warm: &Gpt,
    tok: &CharTokenizer,
    problems: &Problems,
    k: usize,
    corrected: bool,
    progress: usize,
    total: usize,
) -> Result<RlRun> {
    let seed = ctx.seed;
    let policy = warm.fork(seed)?;
    let mut trainer = Trainer::for_model(&policy, TrainConfig::constant(p.lr))?;
    // The same prompts in the same order for every run.
    let mut rng = Rng::new(seed ^ 0x0a5c);
    // Policy versions t − k … t; the oldest samples the next batch.
    let mut versions: VecDeque<Gpt> = VecDeque::from([warm.fork(seed)?]);
    let mut run = RlRun { k, corrected, steps: Vec::new(), held_out: 0.0 };
    let label = run_name(k, corrected);
    let variant = GrpoVariant::Grpo;
    let grpo = Grpo { variant, clip_eps: p.clip_eps, kl_coef: p.kl_coef, max_new: p.max_new, epochs: p.ppo_epochs };
    for t in 0..p.rl_steps {
        ctx.check_cancel()?;
        let behaviour = &versions[0];
        // The rollout worker: sample, verify, and return the behaviour
        // log-probs μ of the sampled tokens with them (as inference engines do).
        let ((batch, mu, rewards), gen_s) = timed(|| {
            let s = addition::get_batch(
                behaviour,
                &Text::Chars(tok.clone()),
                problems,
                (p.prompts_per_step, p.group),
                (p.max_new, p.temperature),
                &mut rng,
            )?;
            let rewards: Vec<f32> = s.verdicts.iter().map(|v| Reward::Exact.score(v)).collect();
            let adv: Vec<f32> = rewards.chunks(p.group).flat_map(|g| GrpoVariant::Grpo.advantages(g)).collect();
            let batch = build_batch(&s.prompts, &s.outs, &adv, &ctx.device)?;
            let mu = batch.logprobs(behaviour)?.detach();
            Ok((batch, mu, rewards))
        })?;
        // The trainer: reference log-probs, then `ppo_epochs` clipped updates.
        // Corrected: the ratio to the behaviour policy μ; else the stale
        // batch is treated as sampled by π itself.
        let (mut st, train_s) = timed(|| {
            let up = grpo.update(&policy, warm, &mut trainer, &batch, corrected.then_some(&mu))?;
            let reward = mean(&rewards);
            let (clip, kl) = clip_stats(&up.logp, &mu, &batch.adv, &batch.mask, p.clip_eps)?;
            Ok(StepStat { reward, clip, kl, drift: drift(&up.logp, &mu, &batch.mask)?, ..Default::default() })
        })?;
        st.gen_s = gen_s;
        st.train_s = train_s;
        ctx.metric(t, &format!("clip fraction/{label}"), st.clip);
        ctx.metric(t, &format!("|π/μ − 1|/{label}"), st.drift);
        ctx.metric(t, &format!("KL(μ‖π)/{label}"), st.kl);
        ctx.metric(t, &format!("train reward/{label}"), st.reward);
        run.steps.push(st);
        versions.push_back(policy.fork(seed)?);
        while versions.len() > k + 1 {
            versions.pop_front();
        }
        ctx.progress(progress + t + 1, total, 0);
    }
    // Held-out accuracy, the same draws for every run.
    let held = addition::held_out(&policy, &Text::Chars(tok.clone()), problems, 1, (p.max_new, p.temperature), seed)?;
    run.held_out = held.verdicts.iter().filter(|v| v.exact).count() as f64 / problems.test.len().max(1) as f64;
    Ok(run)
}

fn staleness_view(ctx: &mut RunCtx, p: &Params, runs: &[RlRun]) {
    let rows = runs
        .iter()
        .map(|r| {
            let s = r.summary();
            vec![
                r.name(),
                format!("{:.4}", s.clip),
                format!("{:.4}", s.drift),
                format!("{:.5}", s.kl),
                format!("{:.3}", s.reward),
                format!("{:.3}", r.held_out),
            ]
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-ri-staleness-title", steps = p.rl_steps.to_string()),
        [
            crate::t!("view-ri-col-run"),
            crate::t!("view-ri-col-clip"),
            crate::t!("view-ri-col-drift"),
            "KL(μ‖π) k3".into(),
            crate::t!("view-ri-col-train-reward"),
            crate::t!("view-ri-col-held-acc"),
        ],
        rows,
    ));
}

/// Phase "throughput": the k = 1 run's measured costs on a synchronous and a
/// one-step asynchronous schedule. Returns sync time ÷ async time.
fn throughput(ctx: &mut RunCtx, p: &Params, runs: &[RlRun]) -> f64 {
    let one = runs.iter().find(|r| r.k == 1 && r.corrected).expect("a k = 1 run");
    let (sync, asynk) = (schedule(&one.steps, 0), schedule(&one.steps, 1));
    for (t, (s, a)) in sync.iter().zip(&asynk).enumerate() {
        ctx.metric(t, "clock/simulated seconds · synchronous", *s);
        ctx.metric(t, "clock/simulated seconds · one-step async", *a);
    }
    let rows = runs
        .iter()
        .filter(|r| r.corrected)
        .map(|r| {
            let ((g, u), s, a) = (phase_seconds(&r.steps), finish_time(&r.steps, 0), finish_time(&r.steps, r.k));
            let seconds = [g, u, s, a].map(|v| format!("{v:.2}"));
            [vec![r.name()], seconds.to_vec(), vec![format!("{:.2}×", s / a.max(1e-12))]].concat()
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-ri-throughput-title", steps = p.rl_steps.to_string()),
        [
            crate::t!("view-ri-col-run"),
            crate::t!("view-ri-col-generate-s"),
            crate::t!("view-ri-col-train-s"),
            crate::t!("view-ri-col-sync-s"),
            crate::t!("view-ri-col-async-s"),
            crate::t!("view-ri-col-speedup"),
        ],
        rows,
    ));
    let (s, a) = (sync.last().copied().unwrap_or(0.0), asynk.last().copied().unwrap_or(0.0));
    let (g, u) = phase_seconds(&one.steps);
    ctx.log(crate::t!(
        "view-ri-log-throughput",
        g = format!("{g:.2}"),
        u = format!("{u:.2}"),
        steps = p.rl_steps.to_string(),
        s = format!("{s:.2}"),
        a = format!("{a:.2}"),
        speedup = format!("{:.2}", s / a.max(1e-12)),
        bound = format!("{:.2}", (g + u) / g.max(u).max(1e-12))
    ));
    s / a.max(1e-12)
}
