//! `long-context-rope`: a RoPE model read past the length it was trained at,
//! and three ways to stretch its angles.
//!
//! A tiny GPT with rotary position embeddings learns to copy at one length:
//! `n` random symbols, a separator, the same symbols again, the loss on the
//! copy only. Each copied token sits exactly `n` positions after its source,
//! so the model learns to attend at one relative distance. Then the sequences
//! are made up to `factor` times longer and the same weights are read four ways: as trained, with position
//! interpolation (every angle divided by `scale`), with NTK-aware scaling
//! (the base raised so the slowest pair is divided by `scale`, the fastest
//! untouched) and with YaRN (per pair a ramp between interpolation, θ/s, and
//! no scaling, θ, and sharper attention). Last, two copies are fine-tuned for
//! a few steps at the long length, one interpolated, one as trained, their
//! accuracy at the long length read every tenth of the way. The frequencies are `RopeScaling::inv_freq`
//! (`ml/gpt_config.rs`), read by the composed model (`ml/gpt.rs`) and the
//! fused op (`ml/fused/rope.rs`) alike.

use anyhow::Result;
use candle_core::{Tensor, D};
use serde::Deserialize;

use super::keep::Role as Arms;
use super::pipeline::{self, Batches, Sft};
use super::try_it::{KeptRun, TrySession};
use super::{check_heads, RunCtx, TypedDrill, View};
use crate::ml::data::Example;
use crate::ml::gpt::{Gpt, GptConfig, PosEncoding, RopeScaling};
use crate::ml::rng::Rng;
use crate::numbers::mean;

mod tried;

pub struct LongContextRope;

/// `drills/long-context-rope/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Training steps at the short length.
    pub steps: usize,
    pub batch: usize,
    pub lr: f64,
    /// Fine-tuning steps at the long length (each arm).
    pub ft_steps: usize,
    pub ft_batch: usize,
    pub ft_lr: f64,
    pub d_model: usize,
    pub n_layers: usize,
    pub n_heads: usize,
    /// Symbols copied in a training sequence (it is `2n + 1` tokens).
    pub n: usize,
    /// Distinct symbols (chance accuracy is 1 / symbols).
    pub symbols: usize,
    /// The longest sequences copy `factor · n` symbols; the model is also
    /// read at every length in between (`2n, 3n, …`).
    pub factor: usize,
    /// The RoPE rescaling factor s given to interpolation, NTK and YaRN.
    pub scale: f64,
    /// Long sequences scored per arm.
    pub eval_seqs: usize,
}

/// One copy sequence: `n` random symbols, the separator, the same `n`
/// symbols again; the loss and the score are on the copy. Predicting copy
/// token `i` (from the token before it) means reading the token exactly `n`
/// positions back: a relative distance the model only ever sees as `n`.
fn copy_seq(rng: &mut Rng, p: &Params, n: usize) -> Example {
    let sep = p.symbols as u32;
    let xs: Vec<u32> = (0..n).map(|_| rng.below(p.symbols) as u32).collect();
    let mut tokens = xs.clone();
    tokens.push(sep);
    tokens.extend(&xs);
    let train = (0..tokens.len()).map(|i| i > n).collect();
    Example::new(tokens, train)
}

/// Exact-token accuracy of greedy next-token predictions on the copy.
fn accuracy(model: &Gpt, set: &[Example]) -> Result<f64> {
    let t = set.first().map_or(1, |e| e.len());
    let (mut right, mut seen) = (0usize, 0usize);
    for chunk in set.chunks(32) {
        let flat: Vec<u32> = chunk.iter().flat_map(|e| e.tokens.iter().copied()).collect();
        let x = Tensor::from_vec(flat, (chunk.len(), t), &model.device)?;
        let pred = model.forward(&x)?.argmax(D::Minus1)?.to_vec2::<u32>()?;
        for (e, row) in chunk.iter().zip(&pred) {
            for i in 1..t {
                if e.train[i] {
                    seen += 1;
                    right += usize::from(row[i - 1] == e.tokens[i]);
                }
            }
        }
    }
    Ok(right as f64 / seen.max(1) as f64)
}

/// The same weights read with another RoPE scaling.
fn scaled(model: &Gpt, scaling: RopeScaling) -> Result<Gpt> {
    Ok(model.fork_as(GptConfig { rope_scaling: scaling, ..model.cfg.clone() }, 0)?)
}

impl TypedDrill for LongContextRope {
    const ID: &'static str = "long-context-rope";
    const CLAIMS: &'static [&'static str] = &[
        "long_collapses",
        "pi_beats_ntk_zero_shot",
        "pi_finetune_beats_plain",
        "pi_finetune_faster",
        "pi_finetune_recovers",
        "pi_zero_shot_beats_none",
        "yarn_zero_shot",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        check_heads(p.d_model, p.n_heads)?;
        if !(p.d_model / p.n_heads).is_multiple_of(2) {
            return Err(crate::t!("setup-lc-even-head", hd = (p.d_model / p.n_heads).to_string()));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let seq_len = |n: usize| 2 * n + 1;
        let (short_len, long_n) = (seq_len(p.n), p.n * p.factor);
        let long_len = seq_len(long_n);
        let s = p.scale as f32;
        ctx.phase(crate::t!("view-phase-data"));
        let mut rng = Rng::new(ctx.seed);
        let mut eval_rng = rng.fork(1);
        // Held-out sequences at n, 2n, …, factor·n symbols.
        let sets: Vec<(usize, Vec<Example>)> = (1..=p.factor)
            .map(|m| (seq_len(m * p.n), (0..p.eval_seqs).map(|_| copy_seq(&mut eval_rng, p, m * p.n)).collect()))
            .collect();
        ctx.log(crate::t!(
            "view-lc-log-data",
            n = p.n.to_string(),
            short = short_len.to_string(),
            long_n = long_n.to_string(),
            long = long_len.to_string(),
            symbols = p.symbols.to_string()
        ));

        // The model: RoPE, its `context` only a guard on the length it accepts.
        let mut cfg = GptConfig::new(p.symbols + 1, p.d_model, p.n_layers, p.n_heads, long_len);
        cfg.pos = PosEncoding::Rope;
        let model = Gpt::new(cfg, ctx.seed, &ctx.device)?;
        ctx.log(crate::t!(
            "view-log-tiny-gpt",
            d = p.d_model.to_string(),
            layers = p.n_layers.to_string(),
            heads = p.n_heads.to_string(),
            params = model.num_params().to_string(),
            size = crate::numbers::count_short(model.num_params())
        ));
        let total = p.steps + p.ft_steps;

        ctx.phase(crate::t!("view-phase-train"));
        let short = |rng: &mut Rng| (0..p.batch).map(|_| copy_seq(rng, p, p.n)).collect();
        let train = Sft { chart: "loss · pretrain".into(), ..Sft::new(p.steps, p.lr).within(0, total) };
        pipeline::sft(ctx, &model, &train, Batches::fresh(short), &mut rng.fork(2), pipeline::no_probe)?;
        ctx.keep(tried::TRAINED, Arms::Start, &model)?;

        ctx.phase(crate::t!("view-phase-evaluate"));
        let in_len = accuracy(&model, &sets[0].1)?;
        ctx.setup_check(&crate::t!("view-lc-check-learned"), in_len >= 0.9, || {
            crate::t!("view-lc-check-learned-why", acc = format!("{in_len:.3}"))
        })?;
        let yarn = RopeScaling::Yarn { factor: s, original: short_len, alpha: 1.0, beta: 32.0 };
        // The learner's `rope_inv_freq` gives the PI and NTK frequencies when plugged in.
        let hd = p.d_model / p.n_heads;
        let pi = plugged(ctx, hd, s, false)?.unwrap_or(RopeScaling::Linear { factor: s });
        let ntk = plugged(ctx, hd, s, true)?.unwrap_or(RopeScaling::Ntk { factor: s });
        let zero_shot = [("none", RopeScaling::None), ("PI", pi.clone()), ("NTK", ntk.clone()), ("YaRN", yarn.clone())];
        let mut zs = Vec::new();
        for (arm, scaling) in zero_shot {
            zs.push((arm, by_length(ctx, &scaled(&model, scaling)?, arm, &sets)?));
        }

        ctx.phase(crate::t!("view-lc-phase-finetune"));
        let pi_model = scaled(&model, pi.clone())?;
        let plain_model = model.fork(0)?;
        ctx.keep_live(tried::PI_FT, Arms::Trained, &pi_model)?;
        ctx.keep_live(tried::NONE_FT, Arms::Trained, &plain_model)?;
        let long = |rng: &mut Rng| (0..p.ft_batch).map(|_| copy_seq(rng, p, long_n)).collect::<Vec<_>>();
        let ft = |arm: &str| Sft::new(p.ft_steps, p.ft_lr).arm(arm).within(p.steps, total);
        let (ft_pi, ft_plain) = (ft("PI"), ft("none"));
        let pi_rng = rng.fork(3);
        // Both arms see the same long batches.
        let plain_rng = pi_rng.clone();
        // Accuracy at the long length as each fine-tune goes: before it and every tenth of the way.
        let probe_set = &sets[sets.len() - 1].1[..p.eval_seqs.min(64)];
        let every = (p.ft_steps / 10).max(1);
        let during = |ctx: &mut RunCtx, model: &Gpt, arm: &str, step: usize, seen: &mut Vec<f64>| -> Result<()> {
            let a = accuracy(model, probe_set)?;
            ctx.metric(step, &format!("long-length accuracy during the fine-tune · {arm}"), a);
            seen.push(a);
            Ok(())
        };
        let (curve_pi, curve_plain) = pipeline::side_by_side(
            ctx,
            |ctx| {
                let mut r = pi_rng;
                let mut seen = Vec::new();
                during(ctx, &pi_model, "PI", 0, &mut seen)?;
                pipeline::sft(ctx, &pi_model, &ft_pi, Batches::fresh(long), &mut r, |ctx, step| {
                    if (step + 1) % every == 0 || step + 1 == p.ft_steps {
                        during(ctx, &pi_model, "PI", step + 1, &mut seen)?;
                    }
                    Ok(())
                })?;
                Ok(seen)
            },
            |ctx| {
                let mut r = plain_rng;
                let mut seen = Vec::new();
                during(ctx, &plain_model, "none", 0, &mut seen)?;
                pipeline::sft(ctx, &plain_model, &ft_plain, Batches::fresh(long), &mut r, |ctx, step| {
                    if (step + 1) % every == 0 || step + 1 == p.ft_steps {
                        during(ctx, &plain_model, "none", step + 1, &mut seen)?;
                    }
                    Ok(())
                })?;
                Ok(seen)
            },
        )?;
        let pi_ft = by_length(ctx, &pi_model, "PI + fine-tune", &sets)?;
        let plain_ft = by_length(ctx, &plain_model, "none + fine-tune", &sets)?;

        ctx.phase(crate::t!("view-phase-report"));
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut row = |name: String, ft: usize, accs: &[f64]| {
            let mut r = vec![name, ft.to_string()];
            r.extend(accs.iter().map(|a| format!("{a:.3}")));
            rows.push(r);
        };
        for (arm, accs) in &zs {
            row(arm.to_string(), 0, accs);
        }
        row("PI".into(), p.ft_steps, &pi_ft);
        row("none".into(), p.ft_steps, &plain_ft);
        let mut header = vec![crate::t!("view-lc-col-rope"), crate::t!("view-lc-col-ft")];
        header.extend(sets.iter().map(|(len, _)| crate::t!("view-lc-col-len", len = len.to_string())));
        let chance = format!("{:.3}", 1.0 / p.symbols as f64);
        ctx.view(View::table(crate::t!("view-lc-table-title", chance = chance), header, rows));
        freq_view(ctx, [&pi, &ntk, &yarn], hd, short_len, long_len);
        let longest = |accs: &[f64]| accs.last().copied().unwrap_or(f64::NAN);
        let get = |arm: &str| zs.iter().find(|(a, _)| *a == arm).map_or(f64::NAN, |(_, v)| longest(v));
        ctx.log(crate::t!(
            "view-lc-log-report",
            long = long_len.to_string(),
            trained = format!("{in_len:.3}"),
            none = format!("{:.3}", get("none")),
            pi = format!("{:.3}", get("PI")),
            ntk = format!("{:.3}", get("NTK")),
            yarn = format!("{:.3}", get("YaRN")),
            pift = format!("{:.3}", longest(&pi_ft)),
            plainft = format!("{:.3}", longest(&plain_ft)),
            fastpi = format!("{:.3}", mean(&curve_pi)),
            fastplain = format!("{:.3}", mean(&curve_plain))
        ));
        ctx.claim("long_collapses", get("none") / in_len)?;
        ctx.claim("pi_zero_shot_beats_none", get("PI") - get("none"))?;
        ctx.claim("pi_finetune_recovers", longest(&pi_ft) / in_len)?;
        ctx.claim("pi_finetune_faster", mean(&curve_pi) - mean(&curve_plain))?;
        ctx.claim("pi_finetune_beats_plain", longest(&pi_ft) - longest(&plain_ft))?;
        ctx.claim("pi_beats_ntk_zero_shot", get("PI") - get("NTK"))?;
        ctx.claim("yarn_zero_shot", get("YaRN") - get("PI"))?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &candle_core::Device) -> Result<Box<dyn TrySession>> {
        tried::open(p, run, device)
    }
}

/// The learner's frequencies (`--use rope-scaling=FILE`) for interpolation
/// or NTK-aware scaling by `s`, when plugged in.
fn plugged(ctx: &RunCtx, hd: usize, s: f32, ntk: bool) -> Result<Option<RopeScaling>> {
    match ctx.plugs.rope_inv_freq(hd, s, ntk) {
        None => Ok(None),
        Some(inv_freq) => Ok(Some(RopeScaling::Given { inv_freq: inv_freq? })),
    }
}

/// Accuracy at each length, charted as `accuracy by length · arm` (x: tokens).
fn by_length(ctx: &mut RunCtx, model: &Gpt, arm: &str, sets: &[(usize, Vec<Example>)]) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(sets.len());
    for (len, set) in sets {
        let a = accuracy(model, set)?;
        ctx.metric(*len, &format!("accuracy by length · {arm}"), a);
        out.push(a);
    }
    Ok(out)
}

/// How many turns each pair makes over the trained length, as trained and
/// under each scaling: the pairs that never completed a turn are the ones a
/// longer context takes out of what the model saw.
fn freq_view(ctx: &mut RunCtx, [pi, ntk, yarn]: [&RopeScaling; 3], hd: usize, short_len: usize, long_len: usize) {
    let long = long_len as f32;
    let turns = |inv: &[f32], j: usize| inv[j] * long / (2.0 * std::f32::consts::PI);
    let plain = RopeScaling::None.inv_freq(hd);
    let (pi, ntk, yarn) = (pi.inv_freq(hd), ntk.inv_freq(hd), yarn.inv_freq(hd));
    let rows = (0..hd / 2)
        .map(|j| {
            vec![
                j.to_string(),
                format!("{:.3}", plain[j] * short_len as f32 / (2.0 * std::f32::consts::PI)),
                format!("{:.3}", turns(&plain, j)),
                format!("{:.3}", turns(&pi, j)),
                format!("{:.3}", turns(&ntk, j)),
                format!("{:.3}", turns(&yarn, j)),
            ]
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-lc-freq-title", short = short_len.to_string(), long = (long as usize).to_string()),
        [
            crate::t!("view-lc-col-pair"),
            crate::t!("view-lc-col-trained-turns", short = short_len.to_string()),
            "none".to_string(),
            "PI".to_string(),
            "NTK".to_string(),
            "YaRN".to_string(),
        ],
        rows,
    ));
}
