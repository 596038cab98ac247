//! `ewc-replay`: catastrophic forgetting, and two ways to fight it.
//!
//! A tiny GPT learns string tasks one after another (`src/envs/strings.rs`:
//! reverse a word and write it in lowercase, then uppercase, then digits,
//! told apart only by the marker that ends the prompt).
//! Task A is trained once; then three copies of that model learn the later
//! tasks side by side, step for step, on the same batches of the new task:
//!
//! * **naive** — plain fine-tuning on the new task;
//! * **ewc** — the same loss plus `λ/2 Σ F (θ − θ*)²`, with the diagonal
//!   Fisher of task A — the true Fisher by default, the empirical one as an
//!   option (online accumulation `F ← γF + F_new` once a third task comes),
//!   `src/continual/{fisher,ewc}.rs`;
//! * **replay** — a fraction α of every batch drawn from a reservoir buffer
//!   of earlier tasks' examples, `src/continual/replay.rs`.
//!
//! After every stage each model is scored on every task's held-out words
//! (greedy decoding, exact match): the accuracy matrix `R[i][j]`, from which
//! `src/continual/metrics.rs` computes AA, BWT and FWT.
//!
//! Phases of `run`: data → one stage per task (`train_stage`; after each but
//! the last, `consolidate`: the Fisher of the task for EWC, the task's stream
//! into the replay reservoir) → report (accuracy matrices, the Fisher per
//! layer, how far the weights the task leans on moved under each method).

use std::collections::BTreeMap;

use anyhow::Result;
use candle_core::Tensor;
use serde::Deserialize;

use super::keep::Role as Arms;
use super::try_it::{KeptRun, TrySession};
use super::{check_heads, RunCtx, TypedDrill, View};
use crate::continual::{diagonal_fisher, true_fisher_probe, AccuracyMatrix, Fisher, OnlineEwc, ReplayBuffer};
use crate::envs::strings::{alphabet, split_words, StringTask};
use crate::ml::data::{batch, Example};
use crate::ml::gpt::{Gpt, GptConfig};
use crate::ml::loss::{masked_ce_sum, masked_cross_entropy};
use crate::ml::optim::LrSchedule;
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS};
use crate::ml::train::{TrainConfig, Trainer};

mod tried;

pub struct EwcReplay;

/// Which Fisher EWC uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FisherKind {
    /// Labels sampled from the model (`true_fisher_probe`).
    True,
    /// Labels from the data (the "empirical" Fisher).
    Empirical,
}

/// When examples enter the replay buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BufferFill {
    /// Every example, as it is trained on (experience replay on a stream:
    /// the buffer needs no task boundaries, and its sampling rule decides
    /// how much of each task it keeps).
    Online,
    /// A task's whole stream at the end of the task.
    TaskEnd,
}

/// `drills/ewc-replay/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub tasks: usize,
    pub steps_per_task: usize,
    pub batch: usize,
    pub lr: f64,
    pub lr_later: f64,
    pub lambda: f64,
    pub fisher: FisherKind,
    pub ewc_gamma: f64,
    pub fisher_samples: usize,
    pub fisher_normalize: bool,
    pub replay_alpha: f64,
    pub buffer_size: usize,
    pub buffer_fill: BufferFill,
    pub word_len: usize,
    pub holdout: usize,
    pub probe: usize,
    pub evals_per_task: usize,
    pub d_model: usize,
    pub n_layers: usize,
    pub tied_embeddings: bool,
    pub n_heads: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Naive,
    Ewc,
    Replay,
}

const METHODS: [Method; 3] = [Method::Naive, Method::Ewc, Method::Replay];

impl Method {
    fn name(self) -> &'static str {
        ["naive", "ewc", "replay"][self as usize]
    }
}

/// One task's data: training words are encoded on the fly, test words once.
struct TaskData {
    task: StringTask,
    test_prompts: Vec<Vec<u32>>,
    test_answers: Vec<Vec<u32>>,
}

/// A word under a task: its prompt, its answer (with EOS) and the example
/// that trains the answer.
fn encode(tok: &CharTokenizer, task: StringTask, word: &str) -> (Vec<u32>, Vec<u32>, Example) {
    let prompt = tok.encode(&task.prompt(word));
    let answer: Vec<u32> = tok.encode(&task.answer(word)).into_iter().chain([EOS]).collect();
    let example = Example::prompt_answer(&prompt, &answer);
    (prompt, answer, example)
}

/// A model with its optimizer: one per method once task A is learned.
struct Learner {
    method: Method,
    model: Gpt,
    trainer: Trainer,
}

impl Learner {
    fn new(method: Method, model: Gpt, lr: f64) -> Result<Learner> {
        // No weight decay: it would pull every weight towards 0, away from θ*.
        let trainer = Trainer::for_model(&model, TrainConfig::constant(lr))?;
        Ok(Learner { method, model, trainer })
    }

    /// One step on `examples`; returns (task loss, EWC penalty). The step
    /// minimises their sum, checked for NaN/∞ before the weights move.
    fn step(&mut self, examples: &[&Example], ewc: Option<(&OnlineEwc, f64)>) -> Result<(f64, f64)> {
        let (x, y) = batch(examples, &self.model.device)?;
        let loss = masked_cross_entropy(&self.model.forward(&x)?, &y)?;
        let loss_v = loss.to_scalar::<f32>()? as f64;
        match ewc.map(|(e, lambda)| e.penalty(&self.model.vars(), lambda)).transpose()?.flatten() {
            Some(p) => {
                let pen_v = p.to_scalar::<f32>()? as f64;
                self.trainer.step(&(loss + p)?, "loss + EWC penalty")?;
                Ok((loss_v, pen_v))
            }
            None => {
                self.trainer.step(&loss, "loss")?;
                Ok((loss_v, 0.0))
            }
        }
    }
}

/// Phase "data": the tokenizer, one split of the words for every task, and
/// each task's encoded test set.
struct Data {
    tok: CharTokenizer,
    tasks: Vec<TaskData>,
    train_words: Vec<String>,
}

/// What the stages leave for the report.
struct Outcome {
    /// r[m][i][j]: method m, after stage i, on task j.
    r: Vec<Vec<Vec<f64>>>,
    /// b[j]: the untrained model's accuracy, the baseline of FWT.
    baseline: Vec<f64>,
    /// The Fisher of each consolidated task.
    fishers: Vec<Fisher>,
    /// θ* after task A (what EWC anchors to).
    anchor_a: BTreeMap<String, Tensor>,
    /// Each method's weights right after task B.
    after_b: Vec<BTreeMap<String, Tensor>>,
}

/// Exact-match accuracy of greedy answers on the first `n` test words of a task.
fn accuracy(model: &Gpt, data: &TaskData, n: usize) -> Result<f64> {
    let n = n.min(data.test_prompts.len());
    let max_new = data.test_answers[0].len();
    let out = generate(model, &data.test_prompts[..n], &GenConfig::greedy(max_new, vec![EOS]), &mut Rng::new(0))?;
    Ok(out.iter().zip(&data.test_answers).filter(|(o, a)| o == a).count() as f64 / n.max(1) as f64)
}

fn series(task_index: usize, task: StringTask, method: Method) -> String {
    format!("acc {} ({}) · {}", letter(task_index), task.name(), method.name())
}

impl TypedDrill for EwcReplay {
    const ID: &'static str = "ewc-replay";
    const CLAIMS: &'static [&'static str] = &[
        "ewc_anchors_important_weights",
        "ewc_keeps_a",
        "ewc_learns_b",
        "naive_forgets_a",
        "replay_keeps_a",
        "replay_learns_b",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        check_heads(p.d_model, p.n_heads)?;
        if p.probe > p.holdout {
            return Err(crate::t!("setup-probe-holdout", probe = p.probe.to_string(), holdout = p.holdout.to_string()));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let mut rng = Rng::new(ctx.seed);
        let d = data(p, ctx, &mut rng)?;
        let out = stages(p, ctx, &d, &mut rng)?;
        ctx.phase(crate::t!("view-phase-report"));
        fisher_view(ctx, &out.fishers[0])?;
        let mats = accuracy_views(ctx, &d, &out);

        // How far the weights task A leans on most (top 1% of its Fisher) moved during B.
        let drift: Vec<(f64, f64)> = out
            .after_b
            .iter()
            .map(|w| out.fishers[0].drift_by_importance(0.01, &out.anchor_a, w))
            .collect::<candle_core::Result<_>>()?;
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let anchored = ratio(drift[1].0, drift[0].0);
        let e = |v: f64| format!("{v:.3e}");
        ctx.log(crate::t!(
            "view-ewc-log-drift",
            naive_top = e(drift[0].0),
            ewc_top = e(drift[1].0),
            replay_top = e(drift[2].0),
            naive_rest = e(drift[0].1),
            ewc_rest = e(drift[1].1),
            replay_rest = e(drift[2].1)
        ));

        // Claims compare the three models right after task B.
        let (naive, ewc_m, replay) = (&mats[0].r, &mats[1].r, &mats[2].r);
        ctx.claim("naive_forgets_a", naive[0][0] - naive[1][0])?;
        ctx.claim("ewc_keeps_a", ewc_m[1][0] - naive[1][0])?;
        ctx.claim("replay_keeps_a", replay[1][0] - naive[1][0])?;
        ctx.claim("ewc_learns_b", ratio(ewc_m[1][1], naive[1][1]))?;
        ctx.claim("replay_learns_b", ratio(replay[1][1], naive[1][1]))?;
        ctx.claim("ewc_anchors_important_weights", anchored)?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &candle_core::Device) -> Result<Box<dyn TrySession>> {
        tried::open(p, run, device)
    }
}

/// Phase "data".
fn data(p: &Params, ctx: &mut RunCtx, rng: &mut Rng) -> Result<Data> {
    ctx.phase(crate::t!("view-phase-data"));
    let tok = CharTokenizer::new(&alphabet(), &[]);
    let (test_words, train_words) = split_words(p.word_len, p.holdout, &mut rng.fork(1));
    let tasks: Vec<TaskData> = StringTask::ALL[..p.tasks]
        .iter()
        .map(|&task| {
            let (test_prompts, test_answers) =
                test_words.iter().map(|w| encode(&tok, task, w)).map(|(q, a, _)| (q, a)).unzip();
            TaskData { task, test_prompts, test_answers }
        })
        .collect();
    let w = &test_words[0];
    let rows = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| vec![format!("{} {}", letter(i), t.task.name()), t.task.prompt(w), t.task.answer(w)])
        .collect();
    ctx.view(View::table(
        crate::t!("view-ewc-tasks-title"),
        [crate::t!("view-ewc-col-task"), crate::t!("view-col-prompt"), crate::t!("view-ewc-col-answer")],
        rows,
    ));
    ctx.log(crate::t!(
        "view-ewc-log-data",
        train = train_words.len().to_string(),
        held = test_words.len().to_string(),
        len = p.word_len.to_string(),
        tasks = p.tasks.to_string()
    ));
    Ok(Data { tok, tasks, train_words })
}

fn letter(i: usize) -> char {
    (b'A' + i as u8) as char
}

/// Every stage: task A once; then naive, EWC and replay side by side on the
/// same batches of each later task; consolidation between stages.
fn stages(p: &Params, ctx: &mut RunCtx, d: &Data, rng: &mut Rng) -> Result<Outcome> {
    let mut cfg = GptConfig::new(d.tok.vocab_size(), p.d_model, p.n_layers, p.n_heads, 2 * p.word_len + 4);
    // Untied by default: the uppercase rows of the output head are then
    // weights task A never used, a free place for task B to write into.
    cfg.tied = p.tied_embeddings;
    let base = Gpt::new(cfg, ctx.seed, &ctx.device)?;
    let n = base.num_params();
    ctx.log(crate::t!(
        "view-log-tiny-gpt",
        d = p.d_model.to_string(),
        layers = p.n_layers.to_string(),
        heads = p.n_heads.to_string(),
        params = n.to_string(),
        size = crate::numbers::count_short(n)
    ));
    let baseline: Vec<f64> = d.tasks.iter().map(|t| accuracy(&base, t, p.holdout)).collect::<Result<_>>()?;
    // The curves start at the untrained model.
    for (j, t) in d.tasks.iter().enumerate() {
        for m in METHODS {
            ctx.metric(0, &series(j, t.task, m), baseline[j]);
        }
    }
    let mut out = Outcome {
        r: vec![Vec::new(); METHODS.len()],
        baseline,
        fishers: Vec::new(),
        anchor_a: BTreeMap::new(),
        after_b: Vec::new(),
    };
    let mut ewc = OnlineEwc::new(p.ewc_gamma);
    let mut reservoir: Box<Buffer> = ctx.plugs.replay_buffer(p.buffer_size, ctx.seed ^ 0x5e5);
    // Online filling draws from its own stream, so the training draws stay as they are.
    let mut fill_rng = (p.buffer_fill == BufferFill::Online).then(|| rng.fork(0xf111));
    let mut learners: Vec<Learner> = vec![Learner::new(Method::Naive, base, p.lr)?];
    for stage in 0..d.tasks.len() {
        ctx.check_cancel()?;
        ctx.phase(crate::t!(
            "view-ewc-phase-task",
            letter = letter(stage).to_string(),
            name = d.tasks[stage].task.name()
        ));
        if stage == 1 {
            // Task A is learned once; every method continues from that same model.
            let shared = learners.pop().expect("the task-A model");
            ctx.keep(tried::AFTER_A, Arms::Start, &shared.model)?;
            learners = METHODS
                .iter()
                .map(|&m| Learner::new(m, shared.model.fork(ctx.seed)?, p.lr_later))
                .collect::<Result<_>>()?;
        }
        let buffer = (reservoir.as_mut(), fill_rng.as_mut());
        let stream = train_stage(p, ctx, d, stage, &mut learners, &ewc, buffer, rng, &mut out.r)?;
        for l in learners.iter().filter(|_| stage > 0) {
            ctx.keep(&tried::arm_id(l.method, stage), Arms::Trained, &l.model)?;
        }
        if stage == 1 {
            out.after_b = learners
                .iter()
                .map(|l| l.model.vars().into_iter().map(|(k, v)| Ok((k, v.as_tensor().copy()?))).collect())
                .collect::<Result<_>>()?;
        }
        if stage + 1 < d.tasks.len() {
            let fisher = consolidate(p, ctx, d, stage, &learners, &mut ewc, rng)?;
            if stage == 0 {
                out.anchor_a = ewc.state.as_ref().map(|s| s.anchor.clone()).unwrap_or_default();
            }
            out.fishers.push(fisher);
            if p.buffer_fill == BufferFill::TaskEnd {
                // This task's stream enters the replay reservoir.
                for e in stream {
                    reservoir.push((stage, e), rng)?;
                }
            }
        }
        let items = reservoir.items();
        let held: Vec<String> = (0..=stage)
            .map(|s| {
                crate::t!(
                    "view-ewc-of-task",
                    n = items.iter().filter(|(t, _)| *t == s).count().to_string(),
                    letter = letter(s).to_string()
                )
            })
            .collect();
        ctx.log(crate::t!(
            "view-ewc-log-reservoir",
            len = reservoir.len().to_string(),
            seen = reservoir.seen().to_string(),
            held = held.join(&crate::t!("view-list-sep"))
        ));
    }
    Ok(out)
}

/// The replay buffer: the lab's reservoir, or one run by the learner's
/// `reservoir_push` (`--use reservoir=FILE`). Items carry the stage whose
/// stream they came from, so the log can say what the buffer holds.
type Buffer = dyn ReplayBuffer<(usize, Example)>;

/// Phase "task X": train every learner on this task's stream, score every
/// task along the way and at the end (a row of R per method). Returns the
/// stream of fresh examples it trained on.
#[allow(clippy::too_many_arguments)]
fn train_stage(
    p: &Params,
    ctx: &mut RunCtx,
    d: &Data,
    stage: usize,
    learners: &mut [Learner],
    ewc: &OnlineEwc,
    (reservoir, mut fill_rng): (&mut Buffer, Option<&mut Rng>),
    rng: &mut Rng,
    r: &mut [Vec<Vec<f64>>],
) -> Result<Vec<Example>> {
    let steps = p.steps_per_task;
    let current = &d.tasks[stage];
    let peak = if stage == 0 { p.lr } else { p.lr_later };
    let schedule = LrSchedule { peak, min: peak * 0.1, warmup: steps / 20, total: steps };
    for l in learners.iter_mut() {
        l.trainer.set_schedule(schedule);
    }
    let eval_every = (steps / p.evals_per_task.max(1)).max(1);
    let n_replay = ((p.replay_alpha * p.batch as f64).round() as usize).min(p.batch);
    let total_steps = steps * d.tasks.len();
    let mut stream: Vec<Example> = Vec::with_capacity(steps * p.batch);
    for s in 0..steps {
        ctx.check_cancel()?;
        let step = stage * steps + s + 1;
        let fresh: Vec<Example> = (0..p.batch)
            .map(|_| encode(&d.tok, current.task, &d.train_words[rng.below(d.train_words.len())]).2)
            .collect();
        let replayed: Vec<Example> = reservoir.sample(n_replay, rng).into_iter().map(|(_, e)| e).collect();
        for l in learners.iter_mut() {
            let picks: Vec<&Example> = match l.method {
                // Replay swaps the first α·batch fresh examples for remembered ones.
                Method::Replay if !replayed.is_empty() => replayed.iter().chain(&fresh[replayed.len()..]).collect(),
                _ => fresh.iter().collect(),
            };
            let penalty = (l.method == Method::Ewc).then_some((ewc, p.lambda));
            let (loss, pen) = l.step(&picks, penalty)?;
            if stage == 0 {
                // One shared model: its curve is every method's curve.
                for m in METHODS {
                    ctx.metric(step, &format!("loss · {}", m.name()), loss);
                }
            } else {
                ctx.metric(step, &format!("loss · {}", l.method.name()), loss);
                if l.method == Method::Ewc {
                    ctx.metric(step, "ewc penalty", pen);
                }
            }
        }
        let tokens: u64 = fresh.iter().map(|e| e.len() as u64).sum();
        if let Some(r) = fill_rng.as_deref_mut() {
            // Online: what was just trained on enters the buffer (after this step's replay draw).
            for e in &fresh {
                reservoir.push((stage, e.clone()), r)?;
            }
        }
        stream.extend(fresh);
        if s + 1 == steps || (s + 1) % eval_every == 0 {
            let n = if s + 1 == steps { p.holdout } else { p.probe };
            for (m, l) in learners.iter().enumerate() {
                let accs: Vec<f64> = d.tasks.iter().map(|t| accuracy(&l.model, t, n)).collect::<Result<_>>()?;
                let shown: &[Method] = if stage == 0 { &METHODS } else { std::slice::from_ref(&l.method) };
                for (j, t) in d.tasks.iter().enumerate() {
                    for &method in shown {
                        ctx.metric(step, &series(j, t.task, method), accs[j]);
                    }
                }
                if s + 1 == steps {
                    if stage == 0 {
                        r.iter_mut().for_each(|rm| rm.push(accs.clone()));
                    } else {
                        r[m].push(accs);
                    }
                }
            }
        }
        ctx.progress(step, total_steps, (step as u64) * tokens);
    }
    Ok(stream)
}

/// Consolidate a finished task for EWC: its Fisher at the EWC model's
/// weights (the true or the empirical one), folded into the online penalty.
fn consolidate(
    p: &Params,
    ctx: &mut RunCtx,
    d: &Data,
    stage: usize,
    learners: &[Learner],
    ewc: &mut OnlineEwc,
    rng: &mut Rng,
) -> Result<Fisher> {
    let l = learners.iter().find(|l| l.method == Method::Ewc).unwrap_or(&learners[0]);
    let vars = l.model.vars();
    let mut frng = rng.fork(100 + stage as u64);
    let task = d.tasks[stage].task;
    let samples: Vec<Example> = (0..p.fisher_samples)
        .map(|_| encode(&d.tok, task, &d.train_words[frng.below(d.train_words.len())]).2)
        .collect();
    let mut label_rng = frng.fork(7);
    let fisher = diagonal_fisher(&vars, samples.len(), |i| {
        let (x, y) = batch(&[&samples[i]], &l.model.device)?;
        let logits = l.model.forward(&x)?;
        match p.fisher {
            // Labels from the model itself, every token of the answer.
            FisherKind::True => true_fisher_probe(&logits, &y, &mut label_rng),
            // NLL of the whole answer of this one sample, labels from the data.
            FisherKind::Empirical => Ok(masked_ce_sum(&logits, &y)?.0),
        }
    })?;
    let (min, mean) = (fisher.min_entry()?, fisher.mean_entry()?);
    let top = fisher.top_shares(&[0.01, 0.1])?;
    ctx.log(crate::t!(
        "view-ewc-log-fisher",
        kind = match p.fisher {
            FisherKind::True => crate::t!("view-ewc-fisher-true"),
            FisherKind::Empirical => crate::t!("view-ewc-fisher-empirical"),
        },
        letter = letter(stage).to_string(),
        samples = p.fisher_samples.to_string(),
        mean = format!("{mean:.3e}"),
        min = format!("{min:.3e}"),
        top1 = format!("{:.0}", top[0] * 100.0),
        top10 = format!("{:.0}", top[1] * 100.0)
    ));
    ewc.consolidate(&vars, if p.fisher_normalize { fisher.normalized()? } else { fisher.clone() })?;
    Ok(fisher)
}

/// The accuracy matrix of every method, and AA/BWT/FWT side by side.
fn accuracy_views(ctx: &mut RunCtx, d: &Data, out: &Outcome) -> Vec<AccuracyMatrix> {
    let names: Vec<String> =
        d.tasks.iter().enumerate().map(|(j, t)| format!("{} {}", letter(j), t.task.name())).collect();
    let mut summary = Vec::new();
    let mut mats = Vec::new();
    for (m, method) in METHODS.iter().enumerate() {
        let mat = AccuracyMatrix::new(out.r[m].clone());
        let cells = |first: String, rest: Vec<String>| [first].into_iter().chain(rest).collect::<Vec<_>>();
        let rows = mat
            .r
            .iter()
            .zip(&names)
            .map(|(row, n)| {
                cells(crate::t!("view-ewc-after", task = n.as_str()), row.iter().map(|v| format!("{v:.3}")).collect())
            })
            .collect();
        let header = cells("R[i][j]".into(), names.clone());
        ctx.view(View::table(crate::t!("view-ewc-matrix-title", method = method.name()), header, rows));
        let (aa, bwt, fwt) = (mat.average_accuracy(), mat.backward_transfer(), mat.forward_transfer(&out.baseline));
        ctx.log(format!("{:>6}: AA {aa:.3} · BWT {bwt:+.3} · FWT {fwt:+.3}", method.name()));
        summary.push(vec![method.name().to_string(), format!("{aa:.3}"), format!("{bwt:+.3}"), format!("{fwt:+.3}")]);
        mats.push(mat);
    }
    ctx.view(View::table(
        crate::t!("view-ewc-summary-title"),
        [crate::t!("view-ewc-col-method"), "AA".into(), "BWT".into(), "FWT".into()],
        summary,
    ));
    mats
}

/// Which parts of the network task A leans on: Fisher mean and max per layer.
fn fisher_view(ctx: &mut RunCtx, fisher: &Fisher) -> Result<()> {
    let rows = fisher
        .by_layer()?
        .iter()
        .map(|l| vec![l.layer.clone(), l.params.to_string(), format!("{:.2e}", l.mean()), format!("{:.2e}", l.max)])
        .collect();
    ctx.view(View::table(
        crate::t!("view-ewc-fisher-title"),
        [crate::t!("view-ewc-col-layer"), crate::t!("view-ewc-col-params"), "mean F".into(), "max F".into()],
        rows,
    ));
    Ok(())
}
