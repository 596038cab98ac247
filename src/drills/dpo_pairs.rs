//! `dpo-pairs`: direct preference optimisation on pairs the model samples
//! itself, labelled by an exact verifier.
//!
//! The task is addition (`src/envs/refine_arith.rs`): `47+85=` with the sum
//! written least significant digit first (`231`). Phases of `run`:
//!
//! 1. **data** — held-out problems, and fresh ones for the pairs.
//! 2. **sft** — a short SFT warm start of a tiny GPT, under-trained on
//!    purpose: its samples are a mix of right and wrong answers.
//! 3. **pairs** — `samples` answers per prompt from the SFT model at
//!    `temperature`; the verifier marks each right or wrong; a right one
//!    becomes *chosen* and a wrong one *rejected*
//!    (`src/rl/dpo.rs::pick_pair`); prompts whose samples are all right or
//!    all wrong carry no preference and are dropped (and counted). The same
//!    on held-out prompts gives the held-out pairs.
//! 4. **DPO** — the policy (a copy of the SFT model) against the frozen
//!    reference (the SFT model): `src/rl/dpo.rs::dpo_loss` on summed
//!    response log-probs, sigmoid (DPO) or squared (IPO) loss.
//! 5. **DPO at a second β** — the same pairs, the same steps, another β: the
//!    KL to the reference it ends at.
//! 6. **SFT on chosen** — the baseline: a copy of the SFT model trained on
//!    the chosen answers alone (rejection-sampling fine-tuning), same steps,
//!    same optimizer.
//! 7. **report** — every model on the held-out problems: pass rate of
//!    sampled and of greedy answers, exact KL to the reference along its own
//!    samples, implicit-reward accuracy on the held-out pairs.
//!
//! With `model` set to a real pretrained model (`smollm2`, the `real` preset)
//! every model is a set of LoRA adapters on its frozen base
//! (`super::pipeline::real_start`): the problem is the user's message of its
//! chat template (`47+85`) and answers are written as people write sums
//! (`132`; the planted habit drops the carries, `22`). Before the SFT the
//! untrained instruct model is measured on the held-out problems.

use anyhow::{bail, Result};
use candle_core::{Device, Tensor};
use serde::Deserialize;

use super::addition::{shown, Text};
use super::keep::Role as Arms;
use super::pipeline::{self, no_probe, real_start, Batches, ModelChoice, Sft};
use super::try_it::{KeptRun, TrySession};
use super::{check_heads, RunCtx, TokenCell, TokenKind, TypedDrill, View};
use crate::envs::refine_arith::{passes, Problem};
use crate::ml::data::Example;
use crate::ml::gpt::{Gpt, GptConfig};
use crate::ml::lm::CausalLm;
use crate::ml::rng::Rng;
use crate::ml::sample::{Decoding, GenConfig};
use crate::ml::start::Model;
use crate::ml::tokenizer::{CharTokenizer, Tokenize};
use crate::ml::train::{TrainConfig, Trainer};
use crate::numbers::mean;
use crate::rl::dpo::{dpo_loss, grad_weight, pick_pair, DpoVariant, PairPick};
use crate::rl::sequences::{kl_along, logps_of, seq_logps, token_log_ratios, Seq};

mod tried;

pub struct DpoPairs;

/// `drills/dpo-pairs/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub digits: usize,
    pub sft_steps: usize,
    pub sft_batch: usize,
    pub sft_lr: f64,
    pub habit_rate: f64,
    pub prompts: usize,
    pub samples: usize,
    pub temperature: f64,
    pub steps: usize,
    pub batch: usize,
    pub lr: f64,
    pub beta: f64,
    pub beta_compare: f64,
    pub loss: DpoVariant,
    pub swap_labels: bool,
    pub test_size: usize,
    pub eval_samples: usize,
    pub evals: usize,
    pub d_model: usize,
    pub n_layers: usize,
    pub n_heads: usize,
    pub model: ModelChoice,
    pub lora_rank: usize,
    pub lora_layers: usize,
}

const ALPHABET: &str = "0123456789+=";

/// A real chat model's system message: the task and its answer format in a few words.
const SYSTEM: &str = "Add. Reply with the sum only.";

/// A preference pair and the reference model's log-probs of both answers.
#[derive(Debug, Clone)]
struct Pair {
    problem: Problem,
    chosen: Seq,
    rejected: Seq,
    chosen_text: String,
    rejected_text: String,
    ref_chosen: f32,
    ref_rejected: f32,
}

/// Pairs from a set of prompts, with what was dropped.
#[derive(Default)]
struct PairSet {
    pairs: Vec<Pair>,
    prompts: usize,
    all_right: usize,
    all_wrong: usize,
    /// Share of all samples that were right.
    sample_pass: f64,
    /// A few groups as table rows, for the view.
    shown: Vec<Vec<String>>,
}

/// The task's text and token plumbing.
struct Task {
    text: Text,
    width: usize,
}

impl Task {
    fn text(&self, response: &[u32]) -> String {
        self.text.decode(response)
    }

    fn gold(&self, q: &Problem) -> String {
        self.text.gold(q)
    }

    /// Sampled (or greedy) answers to `probs`, one per prompt.
    fn answer(&self, model: &dyn CausalLm, probs: &[Problem], decoding: Decoding, rng: &mut Rng) -> Result<Vec<Seq>> {
        let prompts: Vec<Vec<u32>> = probs.iter().map(|p| self.text.prompt(p)).collect();
        // A BPE may spend a token on a space or split the digits: room for two more.
        let max_new = match self.text {
            Text::Chars(_) => self.width + 1,
            Text::Chat { .. } => self.width + 3,
        };
        let cfg = GenConfig::new(max_new, decoding, self.text.stop());
        let outs = model.generate(&prompts, &cfg, rng)?;
        Ok(prompts.into_iter().zip(outs).map(|(prompt, response)| Seq { prompt, response }).collect())
    }

    /// `answer` and the end token, trained, after the prompt.
    fn example(&self, p: &Problem, answer: &str) -> Example {
        self.text.example(p, answer)
    }
}

/// Sample `k` answers per problem, let the verifier label them, keep a pair
/// per prompt that has a right and a wrong answer; score both answers under
/// the reference.
fn build_pairs(
    task: &Task,
    model: &dyn CausalLm,
    probs: &[Problem],
    p: &Params,
    swap: bool,
    rng: &mut Rng,
) -> Result<PairSet> {
    let decoding = Decoding::Sample { temperature: p.temperature as f32, top_k: None, top_p: None };
    let repeated: Vec<Problem> = probs.iter().flat_map(|q| std::iter::repeat_n(*q, p.samples)).collect();
    let seqs = task.answer(model, &repeated, decoding, rng)?;
    let mut set = PairSet { prompts: probs.len(), ..Default::default() };
    let mut right_total = 0usize;
    for (q, group) in probs.iter().zip(seqs.chunks(p.samples)) {
        let texts: Vec<String> = group.iter().map(|s| task.text(&s.response)).collect();
        let ok: Vec<bool> = texts.iter().map(|t| passes(t, &task.gold(q))).collect();
        right_total += ok.iter().filter(|&&o| o).count();
        let pick = pick_pair(&ok, rng);
        let verdict = match pick {
            PairPick::Pair { chosen, rejected } => {
                let (c, r) = if swap { (rejected, chosen) } else { (chosen, rejected) };
                set.pairs.push(Pair {
                    problem: *q,
                    chosen: group[c].clone(),
                    rejected: group[r].clone(),
                    chosen_text: texts[c].clone(),
                    rejected_text: texts[r].clone(),
                    ref_chosen: 0.0,
                    ref_rejected: 0.0,
                });
                crate::t!("view-dpo-verdict-pair", chosen = texts[c].as_str(), rejected = texts[r].as_str())
            }
            PairPick::AllRight => {
                set.all_right += 1;
                crate::t!("view-dpo-dropped-right")
            }
            PairPick::AllWrong => {
                set.all_wrong += 1;
                crate::t!("view-dpo-dropped-wrong")
            }
        };
        if set.shown.len() < 12 {
            let marked: Vec<String> =
                texts.iter().zip(&ok).map(|(t, o)| format!("{t}{}", if *o { "✓" } else { "✗" })).collect();
            set.shown.push(vec![shown(&task.text, q), task.gold(q), marked.join(" "), verdict]);
        }
    }
    set.sample_pass = right_total as f64 / seqs.len().max(1) as f64;
    let (rc, rr) = pair_logps(model, &set.pairs)?;
    for ((pair, c), r) in set.pairs.iter_mut().zip(rc).zip(rr) {
        pair.ref_chosen = c;
        pair.ref_rejected = r;
    }
    Ok(set)
}

/// What one model does on the held-out problems and pairs.
#[derive(Debug, Clone, Copy, Default)]
struct Eval {
    /// Pass rate of answers sampled at the pairs' temperature.
    pass: f64,
    pass_greedy: f64,
    /// Exact KL to the reference summed over the response, along the model's samples.
    kl: f64,
    /// Held-out implicit-reward accuracy (true labels).
    accuracy: f64,
    margin: f64,
    logp_chosen: f64,
    logp_rejected: f64,
}

struct Heldout {
    test: Vec<Problem>,
    pairs: Vec<Pair>,
}

fn evaluate(
    task: &Task,
    model: &dyn CausalLm,
    reference: &dyn CausalLm,
    h: &Heldout,
    p: &Params,
    seed: u64,
) -> Result<Eval> {
    // The same random stream for every model and every evaluation: differences
    // between them are the models', not the dice's.
    let mut rng = Rng::new(seed ^ 0xe7a1);
    let decoding = Decoding::Sample { temperature: p.temperature as f32, top_k: None, top_p: None };
    let repeated: Vec<Problem> = h.test.iter().flat_map(|q| std::iter::repeat_n(*q, p.eval_samples)).collect();
    let sampled = task.answer(model, &repeated, decoding, &mut rng)?;
    let right = |seqs: &[Seq], probs: &[Problem]| {
        seqs.iter().zip(probs).filter(|(s, q)| passes(&task.text(&s.response), &task.gold(q))).count() as f64
            / probs.len().max(1) as f64
    };
    let pass = right(&sampled, &repeated);
    let greedy = task.answer(model, &h.test, Decoding::Greedy, &mut rng)?;
    let pass_greedy = right(&greedy, &h.test);
    let kl = kl_along(model, reference, &sampled)?;
    let (lc, lr) = pair_logps(model, &h.pairs)?;
    let n = h.pairs.len().max(1) as f64;
    let (mut wins, mut margin) = (0usize, 0.0);
    for ((pair, c), r) in h.pairs.iter().zip(&lc).zip(&lr) {
        let m = p.beta * (((c - pair.ref_chosen) - (r - pair.ref_rejected)) as f64);
        wins += usize::from(m > 0.0);
        margin += m;
    }
    Ok(Eval {
        pass,
        pass_greedy,
        kl,
        accuracy: wins as f64 / n,
        margin: margin / n,
        logp_chosen: mean(&lc),
        logp_rejected: mean(&lr),
    })
}

/// Summed log-probs of every pair's chosen and rejected answer under `model`.
fn pair_logps(model: &dyn CausalLm, pairs: &[Pair]) -> Result<(Vec<f32>, Vec<f32>)> {
    let chosen: Vec<&Seq> = pairs.iter().map(|x| &x.chosen).collect();
    let rejected: Vec<&Seq> = pairs.iter().map(|x| &x.rejected).collect();
    Ok((logps_of(model, &chosen)?, logps_of(model, &rejected)?))
}

/// How the policy after SFT is trained on the pairs.
#[derive(Debug, Clone, Copy)]
enum Method {
    Dpo { beta: f64 },
    SftOnChosen,
}

/// One training run from the SFT model: the trained model and its evaluations.
struct Trained {
    model: Model,
    /// The SFT model, evaluated before the first step.
    first: Eval,
    last: Eval,
    /// Mean summed log-probs of all training pairs' chosen and rejected
    /// answers, under the SFT model and under the trained policy.
    train_logps: ((f64, f64), (f64, f64)),
}

/// Metric names of one training run.
struct Names {
    prefix: &'static str,
}

impl Names {
    fn n(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{name} ({})", self.prefix)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn train(
    ctx: &mut RunCtx,
    p: &Params,
    task: &Task,
    sft: &Model,
    pairs: &[Pair],
    held: &Heldout,
    method: Method,
    names: &Names,
    progress: (usize, usize),
    rng: &mut Rng,
) -> Result<Trained> {
    let model = sft.fork(ctx.seed)?;
    let (policy, sft) = (model.lm(), sft.lm());
    let mut trainer = Trainer::for_model(policy, TrainConfig::cosine(p.lr, pipeline::warmup(p.steps), p.steps))?;
    let eval_every = (p.steps / p.evals.max(1)).max(1);
    let first = evaluate(task, policy, sft, held, p, ctx.seed)?;
    emit_eval(ctx, names, 0, &first);
    let mut last = first;
    for step in 0..p.steps {
        ctx.check_cancel()?;
        let idx: Vec<usize> = (0..p.batch).map(|_| rng.below(pairs.len())).collect();
        match method {
            Method::Dpo { beta } => {
                let seqs: Vec<&Seq> =
                    idx.iter().map(|&i| &pairs[i].chosen).chain(idx.iter().map(|&i| &pairs[i].rejected)).collect();
                let lp = seq_logps(policy, &seqs)?;
                let b = idx.len();
                let (pc, pr) = (lp.narrow(0, 0, b)?, lp.narrow(0, b, b)?);
                let dev = policy.device();
                let rc = Tensor::from_vec(idx.iter().map(|&i| pairs[i].ref_chosen).collect::<Vec<_>>(), b, dev)?;
                let rr = Tensor::from_vec(idx.iter().map(|&i| pairs[i].ref_rejected).collect::<Vec<_>>(), b, dev)?;
                let out = dpo_loss(&pc, &pr, &rc, &rr, beta, p.loss)?;
                let st = trainer.step(&out.loss, "DPO loss")?;
                let (lc, lr) = (mean(&pc.detach().to_vec1::<f32>()?), mean(&pr.detach().to_vec1::<f32>()?));
                let margins = out.margins();
                ctx.metric(step, &names.n("loss"), st.loss);
                ctx.metric(step, &names.n("rewards/chosen"), mean(&out.chosen_reward));
                ctx.metric(step, &names.n("rewards/rejected"), mean(&out.rejected_reward));
                ctx.metric(step, &names.n("rewards/accuracies"), out.accuracy);
                ctx.metric(step, &names.n("rewards/margins"), mean(&margins));
                ctx.metric(step, &names.n("logps/chosen"), lc);
                ctx.metric(step, &names.n("logps/rejected"), lr);
                let w: Vec<f32> = margins.iter().map(|&m| grad_weight(m as f64) as f32).collect();
                ctx.metric(step, &names.n("pair weight σ(−h)"), mean(&w));
            }
            Method::SftOnChosen => {
                let ex: Vec<Example> =
                    idx.iter().map(|&i| task.example(&pairs[i].problem, &pairs[i].chosen_text)).collect();
                let st = trainer.sft_step(policy, &ex.iter().collect::<Vec<_>>())?;
                ctx.metric(step, &names.n("loss"), st.loss);
            }
        }
        if (step + 1) % eval_every == 0 || step + 1 == p.steps {
            last = evaluate(task, policy, sft, held, p, ctx.seed)?;
            emit_eval(ctx, names, step + 1, &last);
        }
        ctx.progress(progress.0 + step + 1, progress.1, 0);
    }
    let before = (
        mean(&pairs.iter().map(|x| x.ref_chosen).collect::<Vec<_>>()),
        mean(&pairs.iter().map(|x| x.ref_rejected).collect::<Vec<_>>()),
    );
    let (lc, lr) = pair_logps(policy, pairs)?;
    let after = (mean(&lc), mean(&lr));
    Ok(Trained { model, first, last, train_logps: (before, after) })
}

fn emit_eval(ctx: &mut RunCtx, names: &Names, step: usize, e: &Eval) {
    ctx.metric(step, &names.n("eval/pass_rate"), e.pass);
    ctx.metric(step, &names.n("eval/pass_rate_greedy"), e.pass_greedy);
    ctx.metric(step, &names.n("kl"), e.kl);
    ctx.metric(step, &names.n("eval/rewards/accuracies"), e.accuracy);
    ctx.metric(step, &names.n("eval/rewards/margins"), e.margin);
    ctx.metric(step, &names.n("eval/logps/chosen"), e.logp_chosen);
    ctx.metric(step, &names.n("eval/logps/rejected"), e.logp_rejected);
}

impl TypedDrill for DpoPairs {
    const ID: &'static str = "dpo-pairs";
    const CLAIMS: &'static [&'static str] = &[
        "chosen_logp_change_small_beta",
        "dpo_minus_sft_on_chosen",
        "heldout_reward_accuracy",
        "higher_beta_stays_closer",
        "pass_rate_gain",
        "sft_on_chosen_gain",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        check_heads(p.d_model, p.n_heads)?;
        if (p.beta - p.beta_compare).abs() < 1e-12 {
            return Err(crate::t!("setup-dpo-beta", compare = p.beta_compare.to_string(), beta = p.beta.to_string()));
        }
        // Training prompts are drawn outside the held-out set: leave room for them.
        super::addition::check_held(p.digits, "test_size", p.test_size)?;
        if p.evals > p.steps {
            return Err(crate::t!("setup-evals-steps", evals = p.evals.to_string(), steps = p.steps.to_string()));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let (text, start) = match &p.model {
            ModelChoice::Tiny => (Text::Chars(CharTokenizer::new(ALPHABET, &[])), None),
            ModelChoice::Real(name) => {
                let (start, tok, fmt) = real_start(name, p.lora_rank, p.lora_layers, SYSTEM, ctx)?;
                (Text::Chat { tok: Box::new(tok), fmt: Box::new(fmt) }, Some(start))
            }
        };
        let task = Task { text, width: p.digits + 1 };
        let mut rng = Rng::new(ctx.seed);

        ctx.phase(crate::t!("view-phase-data"));
        let mut test_rng = rng.fork(7);
        let test: Vec<Problem> = (0..p.test_size).map(|_| Problem::random(p.digits, &mut test_rng)).collect();
        let held_set: std::collections::BTreeSet<(u32, u32)> = test.iter().map(|q| (q.a, q.b)).collect();
        let mut fresh = |rng: &mut Rng| loop {
            let q = Problem::random(p.digits, rng);
            if !held_set.contains(&(q.a, q.b)) {
                return q;
            }
        };

        let sft = match &start {
            None => Model::Tiny(warm_start(ctx, p, &task, &mut fresh, &mut rng)?),
            Some(start) => {
                super::addition::untrained(ctx, start.model(), &task.text, &test, p.temperature as f32)?;
                ctx.phase(crate::t!("view-phase-sft"));
                ctx.log(crate::t!("view-dpo-log-sft-real", digits = p.digits.to_string()));
                let model = start.fork(ctx.seed)?;
                sft_phase(ctx, p, &task, model.lm(), &mut fresh, &mut rng)?;
                model
            }
        };

        // Try puts the SFT model (every arm's start and DPO's reference) beside the arms trained from it.
        ctx.keep(tried::SFT, Arms::Start, &sft)?;

        ctx.phase(crate::t!("view-dpo-phase-pairs"));
        let probs: Vec<Problem> = (0..p.prompts).map(|_| fresh(&mut rng)).collect();
        let train_set = build_pairs(&task, sft.lm(), &probs, p, p.swap_labels, &mut rng)?;
        let held_pairs = build_pairs(&task, sft.lm(), &test, p, false, &mut rng.fork(11))?;
        pairs_report(ctx, p, &train_set, &held_pairs);
        if train_set.pairs.is_empty() {
            bail!(crate::t!(
                "setup-no-pairs",
                prompts = train_set.prompts.to_string(),
                samples = p.samples.to_string(),
                right = train_set.all_right.to_string(),
                wrong = train_set.all_wrong.to_string()
            ));
        }
        if held_pairs.pairs.is_empty() {
            bail!(crate::t!("setup-no-held-pairs"));
        }
        let held = Heldout { test, pairs: held_pairs.pairs };

        let total = p.sft_steps + 3 * p.steps;
        let loss_name = match p.loss {
            DpoVariant::Sigmoid => "DPO",
            DpoVariant::Ipo => "IPO",
        };
        // Each run trains a copy of the SFT model on the same pairs.
        let mut arm = |ctx: &mut RunCtx, method, prefix, done| {
            let names = Names { prefix };
            train(ctx, p, &task, &sft, &train_set.pairs, &held, method, &names, (done, total), &mut rng.fork(21))
        };
        ctx.phase(format!("{loss_name} (β = {})", p.beta));
        let main = arm(ctx, Method::Dpo { beta: p.beta }, "", p.sft_steps)?;
        ctx.keep(tried::DPO, Arms::Trained, &main.model)?;
        ctx.phase(format!("{loss_name} (β = {})", p.beta_compare));
        let other = arm(ctx, Method::Dpo { beta: p.beta_compare }, "β_compare", p.sft_steps + p.steps)?;
        ctx.keep(tried::DPO_COMPARE, Arms::Trained, &other.model)?;
        ctx.phase(crate::t!("view-dpo-phase-baseline"));
        let base = arm(ctx, Method::SftOnChosen, "sft-on-chosen", p.sft_steps + 2 * p.steps)?;
        ctx.keep(tried::SFT_ON_CHOSEN, Arms::Trained, &base.model)?;

        ctx.phase(crate::t!("view-phase-report"));
        let before = main.first;
        compare_view(ctx, p, &before, &main, &other, &base);
        pair_tokens_view(ctx, &task, main.model.lm(), sft.lm(), &held.pairs)?;
        logps_view(ctx, p, &main, &other);
        let ((c0, r0), (c1, r1)) = main.train_logps;
        ctx.log(crate::t!(
            "view-dpo-log-report",
            loss = loss_name,
            beta = p.beta.to_string(),
            pass0 = format!("{:.3}", before.pass),
            pass1 = format!("{:.3}", main.last.pass),
            greedy0 = format!("{:.3}", before.pass_greedy),
            greedy1 = format!("{:.3}", main.last.pass_greedy),
            acc = format!("{:.3}", main.last.accuracy),
            kl = format!("{:.3}", main.last.kl),
            beta2 = p.beta_compare.to_string(),
            kl2 = format!("{:.3}", other.last.kl),
            c0 = format!("{c0:.2}"),
            c1 = format!("{c1:.2}"),
            r0 = format!("{r0:.2}"),
            r1 = format!("{r1:.2}"),
            base = format!("{:.3}", base.last.pass)
        ));
        let (small, large) = if p.beta < p.beta_compare { (&main, &other) } else { (&other, &main) };
        let ((small_c0, _), (small_c1, _)) = small.train_logps;
        ctx.claim("heldout_reward_accuracy", main.last.accuracy)?;
        ctx.claim("pass_rate_gain", main.last.pass - before.pass)?;
        ctx.claim("higher_beta_stays_closer", small.last.kl - large.last.kl)?;
        ctx.claim("dpo_minus_sft_on_chosen", main.last.pass - base.last.pass)?;
        ctx.claim("chosen_logp_change_small_beta", small_c1 - small_c0)?;
        ctx.claim("sft_on_chosen_gain", base.last.pass - before.pass)?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
        tried::open(p, run, device)
    }
}

/// Phase "sft": a tiny GPT from scratch, deliberately short of converged.
fn warm_start(
    ctx: &mut RunCtx,
    p: &Params,
    task: &Task,
    fresh: &mut dyn FnMut(&mut Rng) -> Problem,
    rng: &mut Rng,
) -> Result<Gpt> {
    ctx.phase(crate::t!("view-phase-sft"));
    let Text::Chars(tok) = &task.text else { bail!("the tiny GPT reads characters") };
    let cfg = GptConfig::new(tok.vocab_size(), p.d_model, p.n_layers, p.n_heads, 3 * p.digits + 6);
    let model = Gpt::new(cfg, ctx.seed, &ctx.device)?;
    let gpt = crate::t!(
        "view-log-tiny-gpt",
        d = p.d_model.to_string(),
        layers = p.n_layers.to_string(),
        heads = p.n_heads.to_string(),
        params = model.num_params().to_string(),
        size = crate::numbers::count_short(model.num_params())
    );
    ctx.log(crate::t!("view-dpo-log-sft", digits = p.digits.to_string(), gpt = gpt));
    sft_phase(ctx, p, task, &model, fresh, rng)?;
    Ok(model)
}

/// The SFT steps, on answers of which a share `habit_rate` drop the carries.
fn sft_phase(
    ctx: &mut RunCtx,
    p: &Params,
    task: &Task,
    model: &dyn CausalLm,
    fresh: &mut dyn FnMut(&mut Rng) -> Problem,
    rng: &mut Rng,
) -> Result<()> {
    let sft = Sft::new(p.sft_steps, p.sft_lr).within(0, p.sft_steps + 3 * p.steps);
    let batches = Batches::fresh(|rng: &mut Rng| {
        (0..p.sft_batch)
            .map(|_| {
                let q = fresh(rng);
                // The planted habit: some answers in the SFT data drop the carries.
                let answer = if rng.bool(p.habit_rate) { q.carry_dropped() } else { q.answer() };
                task.example(&q, &task.text.written(&answer))
            })
            .collect()
    });
    pipeline::sft(ctx, model, &sft, batches, rng, no_probe)?;
    Ok(())
}

fn pairs_report(ctx: &mut RunCtx, p: &Params, train: &PairSet, held: &PairSet) {
    let line = |name: String, s: &PairSet| {
        vec![
            name,
            s.prompts.to_string(),
            format!("{:.3}", s.sample_pass),
            s.pairs.len().to_string(),
            s.all_right.to_string(),
            s.all_wrong.to_string(),
        ]
    };
    ctx.view(View::table(
        crate::t!("view-dpo-pairs-title", samples = p.samples.to_string()),
        [
            String::new(),
            crate::t!("view-dpo-col-prompts"),
            crate::t!("view-dpo-col-samples-right"),
            crate::t!("view-dpo-col-pairs"),
            crate::t!("view-dpo-dropped-right"),
            crate::t!("view-dpo-dropped-wrong"),
        ],
        vec![line(crate::t!("view-dpo-row-training"), train), line(crate::t!("view-dpo-row-heldout"), held)],
    ));
    ctx.view(View::table(
        if p.swap_labels { crate::t!("view-dpo-groups-title-swapped") } else { crate::t!("view-dpo-groups-title") },
        [
            crate::t!("view-col-prompt"),
            crate::t!("view-col-gold"),
            crate::t!("view-dpo-col-samples"),
            crate::t!("view-dpo-col-pair"),
        ],
        train.shown.clone(),
    ));
    ctx.log(crate::t!(
        "view-dpo-log-pairs",
        pairs = train.pairs.len().to_string(),
        prompts = train.prompts.to_string(),
        right = train.all_right.to_string(),
        wrong = train.all_wrong.to_string(),
        held = held.pairs.len().to_string(),
        pass = format!("{:.3}", train.sample_pass)
    ));
}

fn compare_view(ctx: &mut RunCtx, p: &Params, before: &Eval, main: &Trained, other: &Trained, base: &Trained) {
    let row = |name: String, e: &Eval| {
        let rates = [e.pass, e.pass_greedy, e.kl, e.accuracy].map(|v| format!("{v:.3}"));
        let logps = [e.logp_chosen, e.logp_rejected].map(|v| format!("{v:.2}"));
        [vec![name], rates.to_vec(), logps.to_vec()].concat()
    };
    ctx.view(View::table(
        crate::t!("view-dpo-compare-title", steps = p.steps.to_string()),
        [
            crate::t!("view-col-model"),
            crate::t!("view-dpo-col-pass-sampled"),
            crate::t!("view-dpo-col-pass-greedy"),
            crate::t!("view-dpo-col-kl"),
            crate::t!("view-dpo-col-reward-acc"),
            crate::t!("view-dpo-col-logp-chosen"),
            crate::t!("view-dpo-col-logp-rejected"),
        ],
        vec![
            row(crate::t!("view-dpo-row-reference"), before),
            row(format!("DPO β = {}", p.beta), &main.last),
            row(format!("DPO β = {}", p.beta_compare), &other.last),
            row(crate::t!("view-dpo-row-sft-chosen"), &base.last),
        ],
    ));
}

/// A held-out pair after training, token by token: the per-token log-ratio
/// `log π − log π_ref` of the chosen and of the rejected answer.
fn pair_tokens_view(
    ctx: &mut RunCtx,
    task: &Task,
    policy: &dyn CausalLm,
    reference: &dyn CausalLm,
    pairs: &[Pair],
) -> Result<()> {
    let Some(pair) = pairs.first() else { return Ok(()) };
    let mut cells = Vec::new();
    let labels = [format!("{} ", crate::t!("view-dpo-chosen")), format!(" {} ", crate::t!("view-dpo-rejected"))];
    for (label, s) in labels.into_iter().zip([&pair.chosen, &pair.rejected]) {
        cells.push(TokenCell { text: label, kind: TokenKind::Masked, value: None });
        let ratios = token_log_ratios(policy, reference, s)?;
        cells.extend(task.text.cells(&pair.problem, &s.prompt, &s.response, |j| ratios[j]));
    }
    ctx.view(View::Tokens {
        title: crate::t!(
            "view-dpo-pair-title",
            chosen = pair.chosen_text.as_str(),
            rejected = pair.rejected_text.as_str()
        ),
        tokens: cells,
        legend: crate::t!("view-dpo-pair-legend"),
    });
    Ok(())
}

fn logps_view(ctx: &mut RunCtx, p: &Params, main: &Trained, other: &Trained) {
    let line = |beta: f64, t: &Trained| {
        let ((c0, r0), (c1, r1)) = t.train_logps;
        let verdict = match (c1 < c0, r1 < r0) {
            (true, true) => crate::t!("view-dpo-both-fell"),
            (false, true) => crate::t!("view-dpo-chosen-rose"),
            (true, false) => crate::t!("view-dpo-chosen-fell"),
            (false, false) => crate::t!("view-dpo-both-rose"),
        };
        crate::t!(
            "view-dpo-why-line",
            beta = beta.to_string(),
            c0 = format!("{c0:.2}"),
            c1 = format!("{c1:.2}"),
            r0 = format!("{r0:.2}"),
            r1 = format!("{r1:.2}"),
            verdict = verdict,
            pass = format!("{:.3}", t.last.pass),
            kl = format!("{:.3}", t.last.kl)
        )
    };
    ctx.view(View::Text {
        title: crate::t!("view-dpo-why-title"),
        body: format!(
            "{}\n  {}\n  {}\n\n{}",
            crate::t!("view-dpo-why-intro"),
            line(p.beta, main),
            line(p.beta_compare, other),
            crate::t!("view-dpo-why-body")
        ),
    });
}

/// A preference pair as `agentlab export --to trl` writes it.
pub(crate) struct ExportPair {
    pub problem: Problem,
    pub chosen: String,
    pub rejected: String,
}

/// What an export of a tiny run needs: training pairs sampled from the run's
/// SFT model `sft` exactly as the drill builds them (`samples` answers per
/// prompt at `temperature`, the verifier's verdicts, a right answer against a
/// wrong one, `swap_labels` applied), on fresh prompts outside the run's own
/// held-out problems; held-out pairs on those problems; the problems. The
/// draws are the export's own (fork 0xe8 of the run's seed), not the run's.
pub(crate) fn export_pairs(
    p: &Params,
    sft: &dyn CausalLm,
    seed: u64,
) -> Result<(Vec<ExportPair>, Vec<ExportPair>, Vec<Problem>)> {
    let task = Task { text: Text::Chars(CharTokenizer::new(ALPHABET, &[])), width: p.digits + 1 };
    let mut rng = Rng::new(seed);
    let mut test_rng = rng.fork(7);
    let test: Vec<Problem> = (0..p.test_size).map(|_| Problem::random(p.digits, &mut test_rng)).collect();
    let held_set: std::collections::BTreeSet<(u32, u32)> = test.iter().map(|q| (q.a, q.b)).collect();
    let mut draw = rng.fork(0xe8);
    let mut probs = Vec::with_capacity(p.prompts);
    while probs.len() < p.prompts {
        let q = Problem::random(p.digits, &mut draw);
        if !held_set.contains(&(q.a, q.b)) {
            probs.push(q);
        }
    }
    let out = |set: PairSet| -> Vec<ExportPair> {
        set.pairs
            .into_iter()
            .map(|x| ExportPair { problem: x.problem, chosen: x.chosen_text, rejected: x.rejected_text })
            .collect()
    };
    let train = out(build_pairs(&task, sft, &probs, p, p.swap_labels, &mut draw)?);
    let held = out(build_pairs(&task, sft, &test, p, false, &mut draw.fork(11))?);
    Ok((train, held, test))
}

/// The arms a run keeps: the SFT model (DPO's start and reference) and the DPO policy at `beta`.
pub(crate) const SFT_ARM: &str = tried::SFT;
pub(crate) const DPO_ARM: &str = tried::DPO;
pub(crate) const CHARS: &str = ALPHABET;
