//! `agentlab bench`: speed measured, never asserted by a test.
//!
//! * **train** — tokens/s of one training step (forward + backward + AdamW)
//!   of the tiny GPT on random tokens, every position a target, for the
//!   documented configs S and M (README, "Benchmark configs"), and L on a GPU;
//!   on CUDA also MFU, the achieved FLOP/s over the GPU's dense f32 peak
//!   ([`flops_per_token`], [`crate::ml::gpu::PEAKS`]);
//! * **generate** — new tokens/s with and without the KV cache;
//! * **ui** — milliseconds to lay out and draw the longest cheatsheet at
//!   120×40, and to handle a key and redraw;
//! * **peak RSS** of the process (each config runs in its own child process,
//!   so one config's peak does not hide in another's).
//!
//! With `--model SPEC` it benches a real model instead, with the shapes of
//! `bench/pytorch_bench.py --model`: LoRA training ([`bench_model_train`]) and
//! greedy generation with the K/V cache at batch 1 and 8 ([`bench_model_generate`]).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use candle_core::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::ml::gpt::{Gpt, GptConfig};
use crate::ml::lm::CausalLm;
use crate::ml::loss::masked_cross_entropy;
use crate::ml::optim::{AdamW, AdamWConfig};
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};

/// A benchmark model and batch shape.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchConfig {
    pub name: String,
    pub model: GptConfig,
    pub batch: usize,
}

/// Config S and M as documented in the README.
pub fn configs() -> Vec<BenchConfig> {
    vec![
        BenchConfig { name: "S".into(), model: GptConfig::new(64, 128, 2, 4, 64), batch: 32 },
        BenchConfig { name: "M".into(), model: GptConfig::new(64, 256, 4, 8, 128), batch: 16 },
    ]
}

/// Config L, sized for a GPU (minutes per step on a laptop CPU: `--only L` runs it anyway).
pub fn config_l() -> BenchConfig {
    BenchConfig { name: "L".into(), model: GptConfig::new(64, 512, 8, 8, 256), batch: 32 }
}

/// What a full `agentlab bench` runs on `device`: S and M everywhere, L too off the CPU.
pub fn configs_for(device: &Device) -> Vec<BenchConfig> {
    let mut out = configs();
    if !device.is_cpu() {
        out.push(config_l());
    }
    out
}

/// S, M and L by name.
pub fn find_config(name: &str) -> Option<BenchConfig> {
    configs().into_iter().chain([config_l()]).find(|c| c.name == name)
}

/// Training FLOPs per token (forward + backward = 3 × forward), as in the
/// PaLM paper's MFU: `6·N + 12·L·d·T`, with `N` the weights that enter a
/// matmul (attention and MLP of every layer, and the LM head; embedding
/// lookups cost no FLOPs) and `12·L·d·T` the attention scores and the
/// weighted sum of values over a context of `T`.
pub fn flops_per_token(cfg: &GptConfig) -> f64 {
    let (d, l, t, v) = (cfg.d_model as f64, cfg.n_layers as f64, cfg.context as f64, cfg.vocab as f64);
    let mlp = match cfg.mlp {
        crate::ml::gpt::MlpKind::Gelu => 2.0,
        crate::ml::gpt::MlpKind::SwiGlu => 3.0,
    } * d
        * cfg.mlp_hidden() as f64;
    let n = l * (4.0 * d * d + mlp) + v * d;
    6.0 * n + 12.0 * l * d * t
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TrainResult {
    pub config: String,
    pub params: usize,
    pub tokens_per_step: usize,
    pub steps: usize,
    pub step_ms_median: f64,
    pub tokens_per_s: f64,
    pub peak_rss_mb: f64,
    /// Training FLOPs per token ([`flops_per_token`]) and what the steps achieved.
    #[serde(default)]
    pub flops_per_token: f64,
    #[serde(default)]
    pub achieved_tflops: f64,
    /// On a known GPU: its name, dense f32 peak (the model trains in f32) and MFU = achieved / peak.
    #[serde(default)]
    pub gpu: Option<String>,
    #[serde(default)]
    pub peak_tflops_f32: Option<f64>,
    #[serde(default)]
    pub mfu: Option<f64>,
    /// `--model` only: the LoRA adapters' parameters (`params` counts the base model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trainable_params: Option<usize>,
    /// `--model` only: the fastest step (a hint when the machine was busy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_ms_min: Option<f64>,
    /// `--model` only: the loss of the first warm-up step and of the last timed step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_loss: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_loss: Option<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GenResult {
    pub config: String,
    pub batch: usize,
    pub prompt: usize,
    pub new_tokens: usize,
    pub cached_tokens_per_s: f64,
    /// Not measured for a real model (`--model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncached_tokens_per_s: Option<f64>,
    /// `--model` only: timed runs, and the process's peak RSS (loading included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_mb: Option<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct UiResult {
    pub sheet: String,
    pub lines: usize,
    /// Parse + layout + draw of a freshly opened sheet.
    pub open_ms: f64,
    /// Redraw with the layout cached (what every frame costs).
    pub redraw_ms: f64,
    /// A scroll key handled and the frame redrawn.
    pub key_and_redraw_ms: f64,
    /// Re-wrap at a new width and draw (a terminal resize).
    pub relayout_ms: f64,
    /// While sft-basics trains on its worker thread: drain its events, handle
    /// a key and redraw the drill screen at 120×40 (median and worst).
    pub busy_key_and_redraw_ms: f64,
    pub busy_key_and_redraw_max_ms: f64,
}

/// Peak resident set size of this process in MB (Linux; 0 elsewhere).
pub fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.to_string()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<f64>().ok()))
        .map_or(0.0, |kb| kb / 1024.0)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    if xs.is_empty() {
        return 0.0;
    }
    xs[xs.len() / 2]
}

/// Train steps of `cfg` for about `budget` after 3 warm-up steps.
pub fn bench_train(cfg: &BenchConfig, device: &Device, budget: Duration) -> Result<TrainResult> {
    let model = Gpt::new(cfg.model.clone(), 1, device)?;
    let mut opt = AdamW::new(model.vars().into_values().collect(), AdamWConfig::default())?;
    let (b, t) = (cfg.batch, cfg.model.context);
    let (x, y) = random_batch(cfg, device)?;
    let mut step = || -> Result<()> {
        let loss = masked_cross_entropy(&model.forward(&x)?, &y)?;
        opt.step(&loss.backward()?)?;
        // Reading the loss forces the work to finish on any device.
        loss.to_scalar::<f32>()?;
        Ok(())
    };
    for _ in 0..3 {
        step()?;
    }
    let mut times = Vec::new();
    let start = Instant::now();
    while start.elapsed() < budget || times.len() < 5 {
        let s = Instant::now();
        step()?;
        times.push(s.elapsed().as_secs_f64());
    }
    let total: f64 = times.iter().sum();
    let tokens_per_s = (b * t * times.len()) as f64 / total;
    let fpt = flops_per_token(&cfg.model);
    let achieved = tokens_per_s * fpt / 1e12;
    let gpu = crate::ml::gpu::device_name(device);
    let peak = gpu.as_deref().and_then(crate::ml::gpu::peak_for).map(|p| p.f32);
    Ok(TrainResult {
        config: cfg.name.clone(),
        params: model.num_params(),
        tokens_per_step: b * t,
        steps: times.len(),
        step_ms_median: median(times.clone()) * 1e3,
        tokens_per_s,
        peak_rss_mb: peak_rss_mb(),
        flops_per_token: fpt,
        achieved_tflops: achieved,
        gpu,
        peak_tflops_f32: peak,
        mfu: peak.map(|p| achieved / p),
        ..Default::default()
    })
}

/// One line of a step profile: a phase and its time per step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileRow {
    pub phase: String,
    pub ms_per_step: f64,
}

/// Where a training step of the fused CPU model spends its time (`bench --profile`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepProfile {
    pub config: String,
    pub steps: usize,
    /// Mean wall time of a whole step (the rows add up to it).
    pub step_ms: f64,
    pub rows: Vec<ProfileRow>,
}

/// A drill's training step of `cfg` on the CPU, timed phase by phase for
/// about `budget` after 3 warm-up steps: the fused op's kernels
/// ([`crate::ml::fused::profile`]), and around them candle's graph (the
/// parameter concatenation and its backward, the loss), gradient clipping
/// at 1 and AdamW — the steps [`crate::ml::train::Trainer::step`] takes.
pub fn bench_profile(cfg: &BenchConfig, budget: Duration) -> Result<StepProfile> {
    use crate::ml::fused::profile;
    let device = Device::Cpu;
    let model = Gpt::new(cfg.model.clone(), 1, &device)?;
    anyhow::ensure!(model.fused_layout().is_some(), "config {} does not run on the fused CPU op", cfg.name);
    let vars: Vec<candle_core::Var> = model.vars().into_values().collect();
    let mut opt = AdamW::new(vars.clone(), AdamWConfig::default())?;
    let (x, y) = random_batch(cfg, &device)?;
    // wall seconds: forward, loss, backward, clip, AdamW, reading the loss
    let mut outer = [0f64; 6];
    let mut step = |outer: &mut [f64; 6]| -> Result<()> {
        let mut lap = Instant::now();
        let mut tick = |slot: usize, outer: &mut [f64; 6]| {
            outer[slot] += lap.elapsed().as_secs_f64();
            lap = Instant::now();
        };
        let logits = model.forward(&x)?;
        tick(0, outer);
        let loss = masked_cross_entropy(&logits, &y)?;
        tick(1, outer);
        let mut grads = loss.backward()?;
        tick(2, outer);
        crate::ml::optim::clip_grad_norm(&mut grads, &vars, 1.0)?;
        tick(3, outer);
        opt.step(&grads)?;
        tick(4, outer);
        loss.to_scalar::<f32>()?;
        tick(5, outer);
        Ok(())
    };
    let mut scratch = [0f64; 6];
    for _ in 0..3 {
        step(&mut scratch)?;
    }
    profile::enable(true);
    profile::take();
    let mut steps = 0;
    let start = Instant::now();
    while start.elapsed() < budget || steps < 5 {
        step(&mut outer)?;
        steps += 1;
    }
    profile::enable(false);
    // The kernels' timers run on every shard's thread: divided by the shards
    // that run side by side, they are (about) wall time, like the rest.
    let side_by_side = crate::ml::fused::shards(cfg.batch).len() as f64;
    let inner: Vec<f64> = profile::take().iter().map(|s| s / side_by_side).collect();
    let per = |s: f64| s * 1e3 / steps as f64;
    let fwd_op: f64 = inner[..3].iter().sum();
    let bwd_op: f64 = inner[3..].iter().sum();
    let mut rows: Vec<ProfileRow> = profile::PHASES
        .iter()
        .zip(&inner)
        .map(|((_, name), s)| ProfileRow { phase: name.to_string(), ms_per_step: per(*s) })
        .collect();
    let more = [
        ("forward: the rest (parameter concat, embeddings, buffers)", outer[0] - fwd_op),
        ("loss: log-softmax cross-entropy (candle ops)", outer[1]),
        ("backward: the rest (candle graph: loss, concat split, gradient store)", outer[2] - bwd_op),
        ("gradient norm and clipping", outer[3]),
        ("AdamW", outer[4]),
        ("reading the loss", outer[5]),
    ];
    rows.extend(more.iter().map(|(name, s)| ProfileRow { phase: name.to_string(), ms_per_step: per(*s) }));
    Ok(StepProfile { config: cfg.name.clone(), steps, step_ms: per(outer.iter().sum()), rows })
}

/// Random token ids `[batch, context]` and their next tokens as labels (every position a target).
fn random_batch(cfg: &BenchConfig, device: &Device) -> Result<(Tensor, Tensor)> {
    let (b, t, v) = (cfg.batch, cfg.model.context, cfg.model.vocab);
    let mut rng = Rng::new(2);
    let tokens: Vec<u32> = (0..b * (t + 1)).map(|_| rng.below(v) as u32).collect();
    let x: Vec<u32> = (0..b).flat_map(|r| tokens[r * (t + 1)..r * (t + 1) + t].to_vec()).collect();
    let y: Vec<i64> = (0..b)
        .flat_map(|r| tokens[r * (t + 1) + 1..(r + 1) * (t + 1)].iter().map(|&i| i as i64).collect::<Vec<_>>())
        .collect();
    Ok((Tensor::from_vec(x, (b, t), device)?, Tensor::from_vec(y, (b, t), device)?))
}

/// Greedy generation of `new` tokens for 8 prompts of 16 tokens.
pub fn bench_generate(cfg: &BenchConfig, device: &Device) -> Result<GenResult> {
    let model = Gpt::new(cfg.model.clone(), 1, device)?;
    let (batch, prompt) = (8, 16);
    let new = (cfg.model.context - prompt).min(48);
    let mut rng = Rng::new(3);
    let prompts: Vec<Vec<u32>> =
        (0..batch).map(|_| (0..prompt).map(|_| rng.below(cfg.model.vocab) as u32).collect()).collect();
    let rate = |use_cache: bool| -> Result<f64> {
        let gc = GenConfig { use_cache, ..GenConfig::greedy(new, vec![]) };
        generate(&model, &prompts, &gc, &mut Rng::new(0))?; // warm-up
                                                            // Runs are short: repeat for two seconds (at least five) and take the median.
        let mut times = Vec::new();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(2) || times.len() < 5 {
            let s = Instant::now();
            generate(&model, &prompts, &gc, &mut Rng::new(0))?;
            times.push(s.elapsed().as_secs_f64());
        }
        Ok((batch * new) as f64 / median(times))
    };
    let cached = rate(true)?;
    let uncached = rate(false)?;
    Ok(GenResult {
        config: cfg.name.clone(),
        batch,
        prompt,
        new_tokens: new,
        cached_tokens_per_s: cached,
        uncached_tokens_per_s: Some(uncached),
        ..Default::default()
    })
}

/// The parts of `agentlab bench --model`, each run in its own process.
pub const MODEL_PARTS: [&str; 3] = ["lora", "gen-b1", "gen-b8"];

/// The prefix of the `--model` rows: the spec itself for a name
/// (`smollm2` → `smollm2-lora`), the file or folder name for a path.
pub fn model_label(spec: &str, path: &Path) -> String {
    let spec = spec.trim();
    let is_path = spec.contains('/') || spec.contains(std::path::MAIN_SEPARATOR) || spec.starts_with(['.', '~']);
    let name = if is_path || spec.to_ascii_lowercase().ends_with(".gguf") {
        let stem = if path.is_dir() { path.file_name() } else { path.file_stem() };
        stem.map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| spec.to_string())
    } else {
        spec.to_string()
    };
    name.to_ascii_lowercase()
}

/// `n` random token ids in `100..40000` (clear of the special tokens at the
/// start of the vocabulary, inside any vocabulary of 40 000 or more).
fn random_ids(rng: &mut Rng, n: usize, vocab: usize) -> Vec<u32> {
    let hi = 40_000.min(vocab) as i64 - 1;
    (0..n).map(|_| rng.range(100.min(hi), hi) as u32).collect()
}

/// The model at `path` with rank-8 LoRA on q_proj and v_proj of every
/// layer, AdamW on the adapters, and one batch of 4 × 64 random ids with
/// their next tokens: what [`bench_model_train`] and [`bench_model_profile`] time.
#[allow(clippy::type_complexity)]
fn lora_bench_setup(path: &Path, device: &Device) -> Result<(crate::ml::llama::Llama, usize, AdamW, Tensor, Tensor)> {
    let base = crate::ml::gguf::load_path(path, device)?.model;
    let lora = crate::ml::llama::LoraConfig {
        rank: 8,
        alpha: 16.0,
        targets: vec!["q_proj".into(), "v_proj".into()],
        from_layer: 0,
        seed: 1,
    };
    let model = base.fork_with_lora(&lora)?;
    let params = base.num_params();
    drop(base);
    let opt = AdamW::new(
        model.trainable_vars(),
        AdamWConfig { lr: 1e-4, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0.0 },
    )?;
    let (b, t) = (4, 64);
    let mut rng = Rng::new(1);
    let rows: Vec<Vec<u32>> = (0..b).map(|_| random_ids(&mut rng, t + 1, model.vocab())).collect();
    let x: Vec<u32> = rows.iter().flat_map(|r| r[..t].to_vec()).collect();
    let y: Vec<i64> = rows.iter().flat_map(|r| r[1..].iter().map(|&i| i as i64).collect::<Vec<_>>()).collect();
    Ok((model, params, opt, Tensor::from_vec(x, (b, t), device)?, Tensor::from_vec(y, (b, t), device)?))
}

/// Where a LoRA step and a decoding run of the real model at `path` spend
/// their time (`bench --profile --model`), on the CPU: the fused Llama
/// op's phases ([`crate::ml::fused::llama`]) and, around them, the LM head
/// with the loss, candle's graph and AdamW (training), or the LM head,
/// sampling and the K/V cache's bookkeeping (decoding, batch 8, 32-token
/// prompts, 64 new tokens).
pub fn bench_model_profile(path: &Path, label: &str, budget: Duration) -> Result<Vec<StepProfile>> {
    use crate::ml::fused::profile;
    let device = Device::Cpu;
    let (model, _, mut opt, x, y) = lora_bench_setup(path, &device)?;
    // wall seconds: forward through the final norm, LM head and loss, backward, AdamW, reading the loss
    let mut outer = [0f64; 5];
    let mut step = |outer: &mut [f64; 5]| -> Result<()> {
        let mut lap = Instant::now();
        let mut tick = |slot: usize, outer: &mut [f64; 5]| {
            outer[slot] += lap.elapsed().as_secs_f64();
            lap = Instant::now();
        };
        let hidden = model.final_hidden(&x)?;
        tick(0, outer);
        let flat: Vec<u32> = y.flatten_all()?.to_dtype(candle_core::DType::U32)?.to_vec1()?;
        let n = flat.len() as f64;
        let loss = (crate::ml::ops::cross_entropy_sum(&model.head(&hidden)?.flatten_to(1)?, &flat)? / n)?;
        tick(1, outer);
        let grads = loss.backward()?;
        tick(2, outer);
        opt.step(&grads)?;
        tick(3, outer);
        loss.to_scalar::<f32>()?;
        tick(4, outer);
        Ok(())
    };
    let mut scratch = [0f64; 5];
    for _ in 0..2 {
        step(&mut scratch)?;
    }
    profile::enable(true);
    profile::take();
    let mut steps = 0;
    let start = Instant::now();
    while start.elapsed() < budget || steps < 3 {
        step(&mut outer)?;
        steps += 1;
    }
    profile::enable(false);
    let side_by_side = crate::ml::fused::shards(x.dim(0)?).len() as f64;
    let inner: Vec<f64> = profile::take().iter().map(|s| s / side_by_side).collect();
    let per = |s: f64, n: usize| s * 1e3 / n as f64;
    let mut rows: Vec<ProfileRow> = profile::PHASES
        .iter()
        .zip(&inner)
        .map(|((_, name), s)| ProfileRow { phase: name.to_string(), ms_per_step: per(*s, steps) })
        .collect();
    let more = [
        ("forward: the rest (embeddings, adapter concat, buffers)", outer[0] - inner[..3].iter().sum::<f64>()),
        ("LM head (49 152 rows) and cross-entropy", outer[1]),
        ("backward: the rest (LM head's input gradient, candle graph)", outer[2] - inner[3..].iter().sum::<f64>()),
        ("AdamW", outer[3]),
        ("reading the loss", outer[4]),
    ];
    rows.extend(more.iter().map(|(name, s)| ProfileRow { phase: name.to_string(), ms_per_step: per(*s, steps) }));
    let train = StepProfile { config: format!("{label}-lora"), steps, step_ms: per(outer.iter().sum(), steps), rows };

    // Decoding: batch 8, with the cache; one run = prefill + 64 steps.
    let frozen = model.detached();
    let mut rng = Rng::new(2);
    let prompts: Vec<Vec<u32>> = (0..8).map(|_| random_ids(&mut rng, 32, frozen.vocab())).collect();
    let gc = GenConfig::greedy(64, vec![]);
    frozen.generate(&prompts, &gc, &mut Rng::new(0))?;
    profile::enable(true);
    profile::take();
    let (mut runs, mut wall) = (0, 0.0);
    let start = Instant::now();
    while start.elapsed() < budget || runs < 2 {
        let s = Instant::now();
        frozen.generate(&prompts, &gc, &mut Rng::new(0))?;
        wall += s.elapsed().as_secs_f64();
        runs += 1;
    }
    profile::enable(false);
    let inner = profile::take();
    let mut rows: Vec<ProfileRow> = profile::PHASES[..3]
        .iter()
        .zip(&inner)
        .map(|((_, name), s)| ProfileRow { phase: name.to_string(), ms_per_step: per(*s, runs) })
        .collect();
    rows.push(ProfileRow {
        phase: "the rest (LM head, sampling, K/V cache and masks)".into(),
        ms_per_step: per(wall - inner[..3].iter().sum::<f64>(), runs),
    });
    let decode = StepProfile {
        config: format!("{label}-decode-b8 (one run: prefill + 64 steps)"),
        steps: runs,
        step_ms: per(wall, runs),
        rows,
    };
    Ok(vec![train, decode])
}

/// LoRA training of the model at `path`, as `bench/pytorch_bench.py --model`:
/// batch 4 × 64 random ids, every position a target (the next token), rank 8,
/// alpha 16 on q_proj and v_proj of every layer, AdamW (lr 1e-4, betas
/// 0.9/0.95, eps 1e-8, no weight decay) on the adapters only. Two warm-up
/// steps, then steps for `budget` (at least 5); tokens/s = 4·64 / the median step.
pub fn bench_model_train(path: &Path, label: &str, device: &Device, budget: Duration) -> Result<TrainResult> {
    let (model, params, mut opt, x, y) = lora_bench_setup(path, device)?;
    let trainable_params = model.trainable_vars().iter().map(|v| v.elem_count()).sum();
    let (b, t) = x.dims2()?;
    let mut step = || -> Result<f64> {
        // The drills' SFT loss: the LM head and a fused cross-entropy at every labelled position.
        let loss = model.masked_loss(&x, &y)?;
        opt.step(&loss.backward()?)?;
        // Reading the loss forces the work to finish on any device.
        Ok(loss.to_dtype(candle_core::DType::F32)?.to_scalar::<f32>()? as f64)
    };
    let first = step()?;
    step()?;
    let mut times = Vec::new();
    let mut last = first;
    let start = Instant::now();
    while start.elapsed() < budget || times.len() < 5 {
        let s = Instant::now();
        last = step()?;
        times.push(s.elapsed().as_secs_f64());
    }
    let med = median(times.clone());
    Ok(TrainResult {
        config: format!("{label}-lora"),
        params,
        tokens_per_step: b * t,
        steps: times.len(),
        step_ms_median: med * 1e3,
        tokens_per_s: (b * t) as f64 / med,
        peak_rss_mb: peak_rss_mb(),
        gpu: crate::ml::gpu::device_name(device),
        trainable_params: Some(trainable_params),
        step_ms_min: Some(times.iter().cloned().fold(f64::INFINITY, f64::min) * 1e3),
        first_loss: Some(first),
        last_loss: Some(last),
        ..Default::default()
    })
}

/// Greedy generation of 64 new tokens after a prompt of 32 random ids, for
/// `batch` rows, with the K/V cache ([`CausalLm::generate`]): one warm-up run,
/// then runs for two seconds (at least 3); tokens/s = batch·64 / the median run
/// (prefill included).
pub fn bench_model_generate(path: &Path, label: &str, batch: usize, device: &Device) -> Result<GenResult> {
    let model = crate::ml::gguf::load_path(path, device)?.model;
    let (prompt, new) = (32, 64);
    let mut rng = Rng::new(1);
    let prompts: Vec<Vec<u32>> = (0..batch).map(|_| random_ids(&mut rng, prompt, model.vocab())).collect();
    let gc = GenConfig::greedy(new, vec![]);
    let run = || -> Result<usize> {
        let out = model.generate(&prompts, &gc, &mut Rng::new(0))?;
        Ok(out.iter().map(Vec::len).sum())
    };
    let produced = run()?;
    anyhow::ensure!(produced == batch * new, "generation gave {produced} tokens, not {}", batch * new);
    let mut times = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) || times.len() < 3 {
        let s = Instant::now();
        run()?;
        times.push(s.elapsed().as_secs_f64());
    }
    Ok(GenResult {
        config: format!("{label}-gen-b{batch}"),
        batch,
        prompt,
        new_tokens: new,
        cached_tokens_per_s: (batch * new) as f64 / median(times.clone()),
        uncached_tokens_per_s: None,
        runs: Some(times.len()),
        peak_rss_mb: Some(peak_rss_mb()),
    })
}

/// Time the reader on the longest sheet at 120×40.
pub fn bench_ui(content: &crate::content::Content) -> Result<UiResult> {
    use crate::tui::screens::{reader, Screen};
    use crate::tui::{ui, App};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    let longest = content.sheets.iter().max_by_key(|s| s.body.len()).context("no sheets")?;
    let track = longest.meta.track;
    let mut term = Terminal::new(TestBackend::new(120, 40))?;
    let mut app = App::new(content.clone());
    let draw = |app: &mut App, term: &mut Terminal<TestBackend>| -> Result<f64> {
        let s = Instant::now();
        term.draw(|f| {
            app.prepare(f.area());
            ui::draw(f, app);
        })?;
        Ok(s.elapsed().as_secs_f64() * 1e3)
    };
    draw(&mut app, &mut term)?;
    let mut open = Vec::new();
    for _ in 0..5 {
        let s = Instant::now();
        let r = reader::State::for_track(content, track, None).context("sheet")?;
        app.stack.truncate(1);
        app.stack.push(Screen::Reader(Box::new(r)));
        let parse = s.elapsed().as_secs_f64() * 1e3;
        open.push(parse + draw(&mut app, &mut term)?);
    }
    let redraw: Vec<f64> = (0..20).map(|_| draw(&mut app, &mut term)).collect::<Result<_>>()?;
    let mut keyed = Vec::new();
    for _ in 0..20 {
        let s = Instant::now();
        app.on_key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE));
        let k = s.elapsed().as_secs_f64() * 1e3;
        keyed.push(k + draw(&mut app, &mut term)?);
    }
    let mut relayout = Vec::new();
    for i in 0..6 {
        term.backend_mut().resize(if i % 2 == 0 { 119 } else { 120 }, 40);
        relayout.push(draw(&mut app, &mut term)?);
    }
    let lines = match app.screen() {
        Screen::Reader(r) => r.rendered().lines.len(),
        _ => 0,
    };

    // The same, with a drill training in the background.
    let tmp = tempfile::tempdir()?;
    app.runs_root = tmp.path().to_path_buf();
    app.stack.truncate(1);
    let screen = app.drill_screen("sft-basics").context("sft-basics drill")?;
    app.stack.push(screen);
    term.backend_mut().resize(120, 40);
    app.on_key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE));
    let mut busy = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(6) {
        std::thread::sleep(Duration::from_millis(50));
        let s = Instant::now();
        app.on_tick();
        app.on_key(KeyEvent::new(KeyCode::Char(if busy.len() % 2 == 0 { 'j' } else { 'k' }), KeyModifiers::NONE));
        let k = s.elapsed().as_secs_f64() * 1e3;
        busy.push(k + draw(&mut app, &mut term)?);
    }
    app.on_key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE));
    let worst = busy.iter().cloned().fold(0.0, f64::max);
    Ok(UiResult {
        sheet: longest.file.clone(),
        lines,
        open_ms: median(open),
        redraw_ms: median(redraw),
        key_and_redraw_ms: median(keyed),
        relayout_ms: median(relayout),
        busy_key_and_redraw_ms: median(busy),
        busy_key_and_redraw_max_ms: worst,
    })
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BenchReport {
    pub device: String,
    pub threads: usize,
    /// `--model`: the model file or folder benched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub train: Vec<TrainResult>,
    pub generate: Vec<GenResult>,
    pub ui: Option<UiResult>,
}
