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

use anyhow::{bail, Result};

use super::{Drill, RunCtx, View};
use crate::continual::{diagonal_fisher, true_fisher_probe, AccuracyMatrix, Fisher, OnlineEwc, Reservoir};
use crate::envs::strings::{alphabet, split_words, StringTask};
use crate::ml::data::{batch, Example};
use crate::ml::gpt::{Gpt, GptConfig};
use crate::ml::loss::{masked_ce_sum, masked_cross_entropy};
use crate::ml::optim::{clip_grad_norm, AdamW, AdamWConfig, LrSchedule};
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS};

pub struct EwcReplay;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Naive,
    Ewc,
    Replay,
}

const METHODS: [Method; 3] = [Method::Naive, Method::Ewc, Method::Replay];

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Naive => "naive",
            Method::Ewc => "ewc",
            Method::Replay => "replay",
        }
    }
}

/// One task's data: training words are encoded on the fly, test words once.
struct TaskData {
    task: StringTask,
    test_prompts: Vec<Vec<u32>>,
    test_answers: Vec<Vec<u32>>,
}

fn encode(tok: &CharTokenizer, task: StringTask, word: &str) -> (Vec<u32>, Vec<u32>, Example) {
    let prompt = tok.encode(&task.prompt(word));
    let mut answer = tok.encode(&task.answer(word));
    answer.push(EOS);
    let mut tokens = prompt.clone();
    tokens.extend(&answer);
    let train = (0..tokens.len()).map(|i| i >= prompt.len()).collect();
    (prompt, answer, Example::new(tokens, train))
}

/// A model with its optimizer: one per method once task A is learned.
struct Learner {
    method: Method,
    model: Gpt,
    vars: Vec<candle_core::Var>,
    opt: AdamW,
}

impl Learner {
    fn new(method: Method, model: Gpt, lr: f64) -> Result<Learner> {
        let vars: Vec<_> = model.vars().into_values().collect();
        // No weight decay: it would pull every weight towards 0, away from θ*.
        let opt = AdamW::new(vars.clone(), AdamWConfig { lr, weight_decay: 0.0, ..Default::default() })?;
        Ok(Learner { method, model, vars, opt })
    }

    /// One step on `examples`; returns (task loss, EWC penalty).
    fn step(&mut self, examples: &[&Example], ewc: Option<(&OnlineEwc, f64)>, lr: f64) -> Result<(f64, f64)> {
        let (x, y) = batch(examples, &self.model.device)?;
        let loss = masked_cross_entropy(&self.model.forward(&x)?, &y)?;
        let loss_v = loss.to_scalar::<f32>()? as f64;
        let (total, pen_v) = match ewc.map(|(e, lambda)| e.penalty(&self.model.vars(), lambda)).transpose()?.flatten() {
            Some(p) => {
                let v = p.to_scalar::<f32>()? as f64;
                ((loss + p)?, v)
            }
            None => (loss, 0.0),
        };
        let mut grads = total.backward()?;
        clip_grad_norm(&mut grads, &self.vars, 1.0)?;
        self.opt.set_lr(lr);
        self.opt.step(&grads)?;
        Ok((loss_v, pen_v))
    }
}

/// Exact-match accuracy of greedy answers on the first `n` test words of a task.
fn accuracy(model: &Gpt, data: &TaskData, n: usize) -> Result<f64> {
    let n = n.min(data.test_prompts.len());
    let max_new = data.test_answers[0].len();
    let out = generate(model, &data.test_prompts[..n], &GenConfig::greedy(max_new, vec![EOS]), &mut Rng::new(0))?;
    Ok(out.iter().zip(&data.test_answers).filter(|(o, a)| o == a).count() as f64 / n.max(1) as f64)
}

fn series(task_index: usize, task: StringTask, method: Method) -> String {
    format!("acc {} ({}) · {}", (b'A' + task_index as u8) as char, task.name(), method.name())
}

impl Drill for EwcReplay {
    fn id(&self) -> &'static str {
        "ewc-replay"
    }

    fn run(&self, ctx: &mut RunCtx) -> Result<()> {
        let n_tasks = ctx.usize("tasks")?;
        let steps = ctx.usize("steps_per_task")?;
        let batch_size = ctx.usize("batch")?;
        let lr = ctx.f64("lr")?;
        let lr_later = ctx.f64("lr_later")?;
        let lambda = ctx.f64("lambda")?;
        let gamma = ctx.f64("ewc_gamma")?;
        let fisher_samples = ctx.usize("fisher_samples")?;
        let normalize = ctx.bool("fisher_normalize")?;
        let true_fisher = match ctx.text("fisher")?.as_str() {
            "true" => true,
            "empirical" => false,
            other => bail!("fisher must be `true` or `empirical`, got `{other}`"),
        };
        let tied = ctx.bool("tied_embeddings")?;
        let alpha = ctx.f64("replay_alpha")?;
        let buffer_size = ctx.usize("buffer_size")?;
        let word_len = ctx.usize("word_len")?;
        let holdout = ctx.usize("holdout")?;
        let probe = ctx.usize("probe")?;
        let evals = ctx.usize("evals_per_task")?.max(1);
        let (d, layers, heads) = (ctx.usize("d_model")?, ctx.usize("n_layers")?, ctx.usize("n_heads")?);
        if !(2..=3).contains(&n_tasks) {
            bail!("tasks must be 2 or 3, got {n_tasks}");
        }
        if d % heads != 0 {
            bail!("d_model {d} must be divisible by n_heads {heads}");
        }

        // Data: one split of the words serves every task.
        ctx.phase("data");
        let tok = CharTokenizer::new(&alphabet(), &[]);
        let mut rng = Rng::new(ctx.seed);
        let (test_words, train_words) = split_words(word_len, holdout, &mut rng.fork(1));
        let tasks: Vec<TaskData> = StringTask::ALL[..n_tasks]
            .iter()
            .map(|&task| {
                let (p, a): (Vec<_>, Vec<_>) = test_words
                    .iter()
                    .map(|w| {
                        let (p, a, _) = encode(&tok, task, w);
                        (p, a)
                    })
                    .unzip();
                TaskData { task, test_prompts: p, test_answers: a }
            })
            .collect();
        let mut rows = Vec::new();
        for (i, t) in tasks.iter().enumerate() {
            let w = &test_words[0];
            rows.push(vec![
                format!("{} {}", (b'A' + i as u8) as char, t.task.name()),
                t.task.prompt(w),
                t.task.answer(w),
            ]);
        }
        ctx.view(View::Table {
            title: "The tasks, in training order (same words, same reversal, different output format)".into(),
            header: vec!["task".into(), "prompt".into(), "answer".into()],
            rows,
        });
        ctx.log(format!(
            "{} training words and {} held-out words of {word_len} letters; {n_tasks} tasks trained in order",
            train_words.len(),
            test_words.len()
        ));

        let mut cfg = GptConfig::new(tok.vocab_size(), d, layers, heads, 2 * word_len + 4);
        // Untied by default: the uppercase rows of the output head are then
        // weights task A never used, a free place for task B to write into.
        cfg.tied = tied;
        let base = Gpt::new(cfg, ctx.seed, &ctx.device)?;
        ctx.log(format!("tiny GPT: d_model {d}, {layers} layers, {heads} heads, {} parameters", base.num_params()));

        // b[j]: the untrained model's accuracy, the baseline of FWT.
        let baseline: Vec<f64> = tasks.iter().map(|t| accuracy(&base, t, holdout)).collect::<Result<_>>()?;
        // r[m][i][j]: method m, after stage i, on task j.
        let mut r: Vec<Vec<Vec<f64>>> = vec![Vec::new(); METHODS.len()];
        let mut ewc = OnlineEwc::new(gamma);
        let mut reservoir: Reservoir<Example> = Reservoir::new(buffer_size);
        let mut fishers: Vec<Fisher> = Vec::new();
        let eval_every = (steps / evals).max(1);
        let n_replay = ((alpha * batch_size as f64).round() as usize).min(batch_size);
        let mut tokens_seen = 0u64;
        let total_steps = steps * n_tasks;
        let mut learners: Vec<Learner> = vec![Learner::new(Method::Naive, base, lr)?];

        // The curves start at the untrained model.
        for (j, t) in tasks.iter().enumerate() {
            for m in METHODS {
                ctx.metric(0, &series(j, t.task, m), baseline[j]);
            }
        }

        for (stage, current) in tasks.iter().enumerate() {
            ctx.check_cancel()?;
            let letter = (b'A' + stage as u8) as char;
            ctx.phase(format!("task {letter}: {}", current.task.name()));
            if stage == 1 {
                // Task A is learned once; every method continues from that same model.
                let shared = learners.pop().expect("the task-A model");
                learners = METHODS
                    .iter()
                    .map(|&m| Learner::new(m, shared.model.fork(ctx.seed)?, lr_later))
                    .collect::<Result<_>>()?;
            }
            let peak = if stage == 0 { lr } else { lr_later };
            let schedule = LrSchedule { peak, min: peak * 0.1, warmup: steps / 20, total: steps };
            let mut stream: Vec<Example> = Vec::with_capacity(steps * batch_size);
            for s in 0..steps {
                ctx.check_cancel()?;
                let step = stage * steps + s + 1;
                let fresh: Vec<Example> = (0..batch_size)
                    .map(|_| encode(&tok, current.task, &train_words[rng.below(train_words.len())]).2)
                    .collect();
                let replayed = reservoir.sample(n_replay, &mut rng);
                for l in learners.iter_mut() {
                    let picks: Vec<&Example> = match l.method {
                        // Replay swaps the first α·batch fresh examples for remembered ones.
                        Method::Replay if !replayed.is_empty() => {
                            replayed.iter().chain(&fresh[replayed.len()..]).collect()
                        }
                        _ => fresh.iter().collect(),
                    };
                    let penalty = (l.method == Method::Ewc).then_some((&ewc, lambda));
                    let (loss, pen) = l.step(&picks, penalty, schedule.at(s))?;
                    ctx.finite("loss", loss, step)?;
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
                tokens_seen += fresh.iter().map(|e| e.len() as u64).sum::<u64>();
                stream.extend(fresh);
                if s + 1 == steps || (s + 1) % eval_every == 0 {
                    let n = if s + 1 == steps { holdout } else { probe };
                    let mut row = Vec::new();
                    for l in &learners {
                        let accs: Vec<f64> = tasks.iter().map(|t| accuracy(&l.model, t, n)).collect::<Result<_>>()?;
                        let shown: &[Method] = if stage == 0 { &METHODS } else { std::slice::from_ref(&l.method) };
                        for (j, t) in tasks.iter().enumerate() {
                            for &m in shown {
                                ctx.metric(step, &series(j, t.task, m), accs[j]);
                            }
                        }
                        row.push(accs);
                    }
                    if s + 1 == steps {
                        for (m, accs) in row.into_iter().enumerate() {
                            if stage == 0 {
                                for rm in r.iter_mut() {
                                    rm.push(accs.clone());
                                }
                            } else {
                                r[m].push(accs);
                            }
                        }
                    }
                }
                ctx.progress(step, total_steps, tokens_seen);
            }

            // Consolidate: the Fisher of this task at the EWC model's weights…
            if stage + 1 < n_tasks {
                let l = learners.iter().find(|l| l.method == Method::Ewc).unwrap_or(&learners[0]);
                let vars = l.model.vars();
                let mut frng = rng.fork(100 + stage as u64);
                let samples: Vec<Example> = (0..fisher_samples)
                    .map(|_| encode(&tok, current.task, &train_words[frng.below(train_words.len())]).2)
                    .collect();
                let mut label_rng = frng.fork(7);
                let fisher = diagonal_fisher(&vars, samples.len(), |i| {
                    let (x, y) = batch(&[&samples[i]], &l.model.device)?;
                    let logits = l.model.forward(&x)?;
                    if true_fisher {
                        // Labels from the model itself, every token of the answer.
                        true_fisher_probe(&logits, &y, &mut label_rng)
                    } else {
                        // NLL of the whole answer of this one sample, labels from the data.
                        Ok(masked_ce_sum(&logits, &y)?.0)
                    }
                })?;
                let (min, mean) = (fisher.min_entry()?, fisher.mean_entry()?);
                let top = fisher.top_shares(&[0.01, 0.1])?;
                ctx.log(format!(
                    "{} Fisher of task {letter} from {fisher_samples} samples: mean entry {mean:.3e}, min {min:.3e}; \
                     the top 1% of weights hold {:.0}% of it, the top 10% {:.0}%",
                    if true_fisher { "true" } else { "empirical" },
                    top[0] * 100.0,
                    top[1] * 100.0
                ));
                ewc.consolidate(&vars, if normalize { fisher.normalized()? } else { fisher.clone() })?;
                fishers.push(fisher);
                // …and this task's stream enters the replay reservoir.
                for e in stream {
                    reservoir.push(e, &mut rng);
                }
                ctx.log(format!("replay reservoir: {} of {} examples seen", reservoir.len(), reservoir.seen()));
            }
        }

        ctx.phase("report");
        fisher_view(ctx, &fishers[0])?;
        let names: Vec<String> =
            tasks.iter().enumerate().map(|(j, t)| format!("{} {}", (b'A' + j as u8) as char, t.task.name())).collect();
        let mut summary = Vec::new();
        let mut mats = Vec::new();
        for (m, method) in METHODS.iter().enumerate() {
            let mat = AccuracyMatrix::new(r[m].clone());
            let mut rows = Vec::new();
            for (i, row) in mat.r.iter().enumerate() {
                let mut cells = vec![format!("after {}", names[i])];
                cells.extend(row.iter().map(|v| format!("{v:.3}")));
                rows.push(cells);
            }
            let mut header = vec!["R[i][j]".to_string()];
            header.extend(names.iter().cloned());
            ctx.view(View::Table { title: format!("Accuracy matrix · {}", method.name()), header, rows });
            let (aa, bwt, fwt) = (mat.average_accuracy(), mat.backward_transfer(), mat.forward_transfer(&baseline));
            ctx.log(format!("{:>6}: AA {aa:.3} · BWT {bwt:+.3} · FWT {fwt:+.3}", method.name()));
            summary.push(vec![
                method.name().to_string(),
                format!("{aa:.3}"),
                format!("{bwt:+.3}"),
                format!("{fwt:+.3}"),
            ]);
            mats.push(mat);
        }
        ctx.view(View::Table {
            title: "Average accuracy, backward and forward transfer".into(),
            header: vec!["method".into(), "AA".into(), "BWT".into(), "FWT".into()],
            rows: summary,
        });

        // Claims compare the three models right after task B.
        let (naive, ewc_m, replay) = (&mats[0].r, &mats[1].r, &mats[2].r);
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        ctx.claim("naive_forgets_a", naive[0][0] - naive[1][0])?;
        ctx.claim("ewc_keeps_a", ewc_m[1][0] - naive[1][0])?;
        ctx.claim("replay_keeps_a", replay[1][0] - naive[1][0])?;
        ctx.claim("ewc_learns_b", ratio(ewc_m[1][1], naive[1][1]))?;
        ctx.claim("replay_learns_b", ratio(replay[1][1], naive[1][1]))?;
        let min = fishers.iter().map(|f| f.min_entry()).collect::<candle_core::Result<Vec<f64>>>()?;
        ctx.claim("fisher_nonnegative", min.into_iter().fold(f64::INFINITY, f64::min))?;
        Ok(())
    }
}

/// Which parts of the network task A leans on: Fisher mean and max per layer.
fn fisher_view(ctx: &mut RunCtx, fisher: &Fisher) -> Result<()> {
    let mut layers: Vec<(String, f64, usize, f64)> = Vec::new();
    for (name, f) in &fisher.diag {
        let layer = match name.split('.').collect::<Vec<_>>().as_slice() {
            ["blocks", i, part, ..] => format!("block {i} {part}"),
            [first, ..] => first.to_string(),
            [] => name.clone(),
        };
        let v: Vec<f32> = f.flatten_all()?.to_vec1()?;
        let sum: f64 = v.iter().map(|x| *x as f64).sum();
        let max = v.iter().cloned().fold(0.0f32, f32::max) as f64;
        match layers.iter_mut().find(|(l, ..)| *l == layer) {
            Some(e) => {
                e.1 += sum;
                e.2 += v.len();
                e.3 = e.3.max(max);
            }
            None => layers.push((layer, sum, v.len(), max)),
        }
    }
    let rows = layers
        .iter()
        .map(|(l, sum, n, max)| {
            vec![l.clone(), n.to_string(), format!("{:.2e}", sum / *n as f64), format!("{max:.2e}")]
        })
        .collect();
    ctx.view(View::Table {
        title: "Diagonal Fisher of task A per layer (what EWC protects most)".into(),
        header: vec!["layer".into(), "params".into(), "mean F".into(), "max F".into()],
        rows,
    });
    Ok(())
}
