//! What every drill does the same way, written once: the model a drill starts
//! from ([`ModelChoice`], [`real_start`]), a supervised fine-tuning phase ([`sft`]), and the
//! check that a run's setup worked before its claims are read
//! ([`RunCtx::setup_check`](super::RunCtx::setup_check)).
//!
//! A drill composes these with what is its own — its data, its rewards, its
//! evaluation, its teaching views — so that its file shows what is
//! *different* about it. The GRPO rollout batch and update that
//! `grpo-rlvr` and `rollout-infra` share are in [`addition`](super::addition),
//! next to the task they train on.
//!
//! ```text
//! runner::start ─▶ Drill::check (drill.toml ranges, typed Params, validate)
//!               ─▶ TypedDrill::run ─▶ data ─▶ sft(…) ─▶ RL / DPO / EWC … ─▶ evaluate ─▶ ctx.claim(…)
//!                                      │         │
//!                                      │         └─ Trainer::sft_step (ml/train.rs): loss, clip, AdamW
//!                                      └─ envs/, rl/ (pure functions of the seed)
//! ```

use anyhow::Result;
use serde::Deserialize;

use super::RunCtx;
use crate::envs::format::Format;
use crate::ml::data::{Example, LengthBuckets};
use crate::ml::lm::CausalLm;
use crate::ml::rng::Rng;
use crate::ml::start::Start;
use crate::ml::tokenizer::Bpe;
use crate::ml::train::{TrainConfig, Trainer};

/// The model a drill trains: the lab's tiny GPT, or a real pretrained model
/// (`smollm2`, a registered name, a `.gguf` file or a Hugging Face
/// directory) with LoRA adapters. `drill.toml`'s `model` parameter, typed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "String")]
pub enum ModelChoice {
    Tiny,
    Real(String),
}

impl From<String> for ModelChoice {
    fn from(s: String) -> ModelChoice {
        if s == "tiny" {
            ModelChoice::Tiny
        } else {
            ModelChoice::Real(s)
        }
    }
}

/// The warmup rule: a tenth of the steps, at most 50, before the cosine
/// decay. Three warm starts keep a shorter one, each for a measured reason
/// written where it is set (`addition.rs`, `self_refine_loop.rs`,
/// `turn_credit_assignment.rs`).
pub(crate) fn warmup(steps: usize) -> usize {
    (steps / 10).min(50)
}

/// One supervised fine-tuning phase: `steps` AdamW steps with warmup and a
/// cosine decay from `lr`, its loss charted as `chart`.
pub(crate) struct Sft {
    pub steps: usize,
    pub lr: f64,
    /// Warmup steps: [`warmup`] of the steps unless a drill measured why not.
    pub warmup: usize,
    /// The metric the loss is charted as: `sft loss`, or `sft loss · <arm>`
    /// when a drill fine-tunes several models.
    pub chart: String,
    /// The progress bar: this phase's first step is step `bar.0` of `bar.1`
    /// in the whole run.
    pub bar: (usize, usize),
    /// The first metric step number (a phase that continues a chart).
    pub first_step: usize,
    /// Also chart the gradient norm before clipping and the learning rate.
    pub optimiser_charts: bool,
}

impl Sft {
    pub fn new(steps: usize, lr: f64) -> Sft {
        Sft {
            steps,
            lr,
            warmup: warmup(steps),
            chart: "sft loss".into(),
            bar: (0, steps),
            first_step: 0,
            optimiser_charts: false,
        }
    }

    /// The loss charted as `sft loss · arm`.
    pub fn arm(self, arm: &str) -> Sft {
        Sft { chart: format!("sft loss · {arm}"), ..self }
    }

    /// This phase's steps are steps `first + 1 ..` of `total` on the run's progress bar.
    pub fn within(self, first: usize, total: usize) -> Sft {
        Sft { bar: (first, total), ..self }
    }
}

/// Load the real model `name` to start from ([`crate::ml::start::real`]:
/// frozen, LoRA rank `rank` on the top `layers` layers) and its chat format
/// with `system` as the system message.
pub(crate) fn real_start(
    name: &str,
    rank: usize,
    layers: usize,
    system: &str,
    ctx: &mut RunCtx,
) -> Result<(Start, Bpe, Format)> {
    let r = crate::ml::start::real(name, rank, layers, ctx.seed, &ctx.device)?;
    ctx.log(crate::t!(
        "setup-real-start",
        name = r.name.as_str(),
        params = r.params.to_string(),
        vocab = r.vocab.to_string(),
        rank = r.rank.to_string(),
        adapted = r.adapted.to_string(),
        total = r.layers.to_string()
    ));
    let fmt = Format::new(&r.tokenizer, r.bos, r.eos, Some(r.chat), system);
    Ok((r.start, r.tokenizer, fmt))
}

/// Makes one batch of fresh examples with the phase's random stream.
pub(crate) type MakeBatch<'a> = Box<dyn FnMut(&mut Rng) -> Vec<Example> + 'a>;

/// Where an SFT phase's batches come from.
pub(crate) enum Batches<'a> {
    /// Fresh examples each step (a task that generates its own data).
    Fresh(MakeBatch<'a>),
    /// `batch` examples of similar length drawn from a fixed set.
    Sampled { data: &'a [Example], batch: usize },
    /// `batch` examples drawn uniformly, with replacement, from a fixed set.
    Uniform { data: &'a [Example], batch: usize },
}

impl<'a> Batches<'a> {
    pub fn fresh(f: impl FnMut(&mut Rng) -> Vec<Example> + 'a) -> Batches<'a> {
        Batches::Fresh(Box::new(f))
    }
}

/// Run one SFT phase on `model`: each step draws a batch with `rng`, takes
/// one [`Trainer::sft_step`] (which stops the run on a NaN loss or gradient),
/// charts the loss, calls `after(ctx, step)` (a probe, an evaluation; `step`
/// counts from 0 within the phase) and reports progress with the tokens seen.
/// Returns the last loss.
pub(crate) fn sft(
    ctx: &mut RunCtx,
    model: &dyn CausalLm,
    s: &Sft,
    mut batches: Batches,
    rng: &mut Rng,
    mut after: impl FnMut(&mut RunCtx, usize) -> Result<()>,
) -> Result<f64> {
    let mut trainer = Trainer::for_model(model, TrainConfig::cosine(s.lr, s.warmup, s.steps))?;
    let buckets = match &batches {
        Batches::Sampled { data, .. } => Some(LengthBuckets::new(data)),
        _ => None,
    };
    let (mut tokens, mut last) = (0u64, f64::NAN);
    for step in 0..s.steps {
        ctx.check_cancel()?;
        let owned: Vec<Example>;
        let picks: Vec<&Example> = match &mut batches {
            Batches::Fresh(f) => {
                owned = f(rng);
                owned.iter().collect()
            }
            Batches::Sampled { data, batch } => {
                let order = buckets.as_ref().expect("built for Sampled");
                order.sample(*batch, rng).into_iter().map(|i| &data[i]).collect()
            }
            Batches::Uniform { data, batch } => (0..*batch).map(|_| &data[rng.below(data.len())]).collect(),
        };
        tokens += picks.iter().map(|e| e.len() as u64).sum::<u64>();
        let st = trainer.sft_step(model, &picks)?;
        last = st.loss;
        ctx.metric(s.first_step + step, &s.chart, last);
        if s.optimiser_charts {
            ctx.metric(s.first_step + step, "grad_norm", st.grad_norm);
            ctx.metric(s.first_step + step, "learning_rate", st.lr);
        }
        after(ctx, step)?;
        ctx.progress(s.bar.0 + step + 1, s.bar.1, tokens);
    }
    Ok(last)
}

/// How fast a drill's RL rollouts sample: episodes, the tokens the policy
/// sampled (its own turns, not the prompts or observations it reads) and the
/// seconds spent sampling them, summed over a run and logged once at its end
/// (the same line in every drill that samples episodes for RL).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RolloutTally {
    pub episodes: usize,
    pub sampled: usize,
    pub secs: f64,
}

impl RolloutTally {
    /// Time `sample`, which returns what it sampled and how many episodes and
    /// sampled tokens that is.
    pub fn time<T>(&mut self, sample: impl FnOnce() -> Result<T>, count: impl Fn(&T) -> (usize, usize)) -> Result<T> {
        let clock = std::time::Instant::now();
        let out = sample()?;
        self.secs += clock.elapsed().as_secs_f64();
        let (episodes, sampled) = count(&out);
        self.episodes += episodes;
        self.sampled += sampled;
        Ok(out)
    }

    /// The log line: "RL rollouts: … episodes, … sampled tokens in … s (… tokens/s)";
    /// `who` names the arm where a drill has several ("" where it has one).
    pub fn log(&self, ctx: &mut RunCtx, who: &str) {
        let per_s = |n: usize| format!("{:.0}", n as f64 / self.secs.max(1e-9));
        ctx.log(crate::t!(
            "view-log-rollouts",
            who = who,
            episodes = self.episodes.to_string(),
            sampled = self.sampled.to_string(),
            secs = format!("{:.1}", self.secs),
            eps_rate = per_s(self.episodes),
            tok_rate = per_s(self.sampled)
        ));
    }
}

/// Nothing to do after a step.
pub(crate) fn no_probe(_: &mut RunCtx, _: usize) -> Result<()> {
    Ok(())
}

/// Run two phases that share nothing but the start at once: `first` on this
/// thread, `second` on a thread of its own, both drawing on the CPU's
/// threads (one training run leaves part of two cores idle between its
/// matrix products). Their numbers are the ones they give one after the
/// other: each phase has its own random stream, and the model's parallel
/// reductions add in a fixed order whatever the threads. Their events reach
/// the run as they come (both charts move together); the progress bar
/// follows `first`, and `second` makes no claims. When `first` fails,
/// `second` still ends before the error returns.
pub(crate) fn side_by_side<A, B: Send>(
    ctx: &mut RunCtx,
    first: impl FnOnce(&mut RunCtx) -> Result<A>,
    second: impl FnOnce(&mut RunCtx) -> Result<B> + Send,
) -> Result<(A, B)> {
    let shared = std::sync::Arc::new(std::sync::Mutex::new(ctx.take_sink()));
    let forward = |keep_progress: bool| -> Box<dyn FnMut(super::Event) + Send> {
        let shared = shared.clone();
        Box::new(move |e| {
            if keep_progress || !matches!(e, super::Event::Progress { .. }) {
                // A poisoned lock means the other phase panicked: its events are lost, this one's still go out.
                (shared.lock().unwrap_or_else(|p| p.into_inner()))(e)
            }
        })
    };
    let mut other = ctx.fork(forward(false));
    ctx.set_sink(forward(true));
    // The side thread speaks the learner's language too (it is set per thread).
    let lang = crate::i18n::current();
    let (a, b) = std::thread::scope(|s| {
        let handle = s.spawn(move || {
            crate::i18n::set(lang);
            second(&mut other)
        });
        let a = first(ctx);
        let b = handle.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (a, b)
    });
    // Both forwarders are gone once the run's own sink is back.
    ctx.set_sink(Box::new(|_| {}));
    let sink = std::sync::Arc::try_unwrap(shared).map_err(|_| anyhow::anyhow!("a phase kept the event sink"))?;
    ctx.set_sink(sink.into_inner().unwrap_or_else(|p| p.into_inner()));
    Ok((a?, b?))
}

/// The base model a saved run's adapters sit on (checked to be the file the
/// run trained on), its tokenizer and its chat format with `system`: what a
/// real-model drill's Try loads once.
pub(crate) fn real_base(
    run: &super::KeptRun,
    system: &str,
    device: &candle_core::Device,
) -> Result<(crate::ml::llama::Llama, Bpe, Format)> {
    let path = run.check_base()?;
    let crate::ml::gguf::RealModel { model, tokenizer, chat, bos, eos, .. } =
        crate::ml::gguf::load_path(&path, device)?;
    let fmt = Format::new(&tokenizer, bos, eos, Some(chat), system);
    Ok((model, tokenizer, fmt))
}

/// Arm `id` of a saved run: the tiny GPT as kept, or `base` with the kept adapters.
pub(crate) fn kept_model(
    run: &super::KeptRun,
    id: &str,
    base: Option<&crate::ml::llama::Llama>,
    device: &candle_core::Device,
) -> Result<crate::ml::start::Model> {
    use crate::ml::start::Model;
    Ok(match base {
        Some(b) => Model::Real(run.real(id, b)?),
        None => Model::Tiny(run.tiny(id, device)?),
    })
}
