//! `model-merging`: two experts fine-tuned from the lab's base model, merged
//! into one without any further training.
//!
//! 1. **data** — two string tasks over disjoint letters (`src/envs/strings.rs`):
//!    task A `abcde!` → `EDCBA` (the word reversed in uppercase, words over
//!    a–h) and task B `ijklm#` → `43210` (the word reversed and written as
//!    digits, words over i–p). Every character is one token of the base's
//!    byte-level BPE. Held-out and validation words are never trained on.
//! 2. **warm start** — a short fine-tune of the shipped base
//!    (`src/ml/base.rs`) on reversing words under a neutral marker: θ₀, the
//!    common start of both experts and the base of every merge.
//! 3. **experts** — two copies of θ₀, each fully fine-tuned on one task with
//!    a share (`mix`) of the warm start's own data in every batch. With
//!    `init_b = "permuted"` expert B starts from θ₀ with the hidden units of
//!    every MLP and the heads of every attention layer permuted: the very
//!    same function, written in other coordinates.
//! 4. **merge** — task vectors τ = θ_expert − θ₀ (`src/continual/merge.rs`),
//!    sign conflicts between them per layer, and four merges: uniform
//!    averaging, task arithmetic θ₀ + λ(τ_A + τ_B) (at the fixed `lambda`
//!    and at λ* chosen on validation words), TIES (trim / elect / disjoint
//!    mean) and DARE (drop and rescale).
//! 5. **evaluate** — greedy character and exact-match accuracy of θ₀, both
//!    experts and every merge on both tasks' held-out words.
//!
//! Claims: a merge keeps both skills where each expert alone fails the other
//! task; they break when the experts do not share θ₀'s coordinates
//! (`init_b = "permuted"`) or when DARE drops almost everything.

use anyhow::Result;
use serde::Deserialize;

use super::keep::Role as Arms;
use super::pipeline::{self, no_probe, Batches, Sft};
use super::try_it::{KeptRun, TrySession};
use super::{RunCtx, TokenCell, TokenKind, TypedDrill, View};
use crate::continual::gpt_weights::{flatten, model_from, permuted};
use crate::continual::merge::{
    cosine, dare_merge, layer_conflicts, norm, task_arithmetic, task_vector, ties_merge, uniform_average, FlatWeights,
    LayerConflicts,
};
use crate::envs::refine_arith::score;
use crate::envs::strings::{answer_ids, char_example as example, prompt_ids, StringTask, TaskPairs as Task};
use crate::ml::base;
use crate::ml::data::Example;
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{Bpe, Tokenize, BOS, EOS};

mod tried;

pub struct ModelMerging;

/// Where expert B starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InitB {
    /// The same base as expert A: the two share a loss basin.
    Same,
    /// The base with its MLP units and attention heads permuted: the same
    /// function, other coordinates (the breaking setting).
    Permuted,
}

/// What task B reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InputsB {
    /// Words over `i`–`p` (`ijkmp#` → `74320`): no input token in common
    /// with task A, whose words are over `a`–`h`.
    Disjoint,
    /// Words over `a`–`h` (`abcdh#` → `73210`): task A's very inputs with
    /// another output, so the experts rewrite the same computation.
    Shared,
}

/// `drills/model-merging/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub inputs_b: InputsB,
    pub warm_steps: usize,
    pub warm_lr: f64,
    pub steps: usize,
    pub batch: usize,
    pub lr: f64,
    pub mix: f64,
    pub other_mix: f64,
    pub word_len: usize,
    pub init_b: InitB,
    pub lambda: f64,
    pub ties_keep: f64,
    pub ties_lambda: f64,
    pub dare_p: f64,
    pub sweep_max: f64,
    pub sweep_points: usize,
    pub holdout: usize,
    pub sweep_holdout: usize,
}

/// A copy pair of the warm start: one of either task's training inputs
/// under the neutral marker `=`, copied (`abcde=` → `abcde`, `ijklm=` → `ijklm`).
fn copy_example(tok: &Bpe, d: &Data, rng: &mut Rng) -> Example {
    let task = if rng.bool(0.5) { &d.a } else { &d.b };
    let (q, _) = &task.train[rng.below(task.train.len())];
    let input = &q[..q.len() - 1];
    let reversed: String = input.chars().rev().collect();
    example(tok, &format!("{input}="), &reversed)
}

/// Phase "data": task A and task B, each split into held-out and training
/// pairs: string tasks of `src/envs/strings.rs` over the words of
/// `word_len` letters `a`–`h` — task B's, with `inputs_b = "disjoint"`,
/// written with `i`–`p`.
struct Data {
    a: Task,
    b: Task,
}

fn data(p: &Params, ctx: &mut RunCtx, rng: &mut Rng) -> Data {
    ctx.phase(crate::t!("view-phase-data"));
    let disjoint = p.inputs_b == InputsB::Disjoint;
    let a = StringTask::Upper.pairs(p.word_len, p.holdout, p.sweep_holdout, false, &mut rng.fork(1));
    let b = StringTask::Digits.pairs(p.word_len, p.holdout, p.sweep_holdout, disjoint, &mut rng.fork(2));
    let row = |label: &str, t: &Task| {
        let (q, a) = &t.test[0];
        let (held, pool) = (t.test.len().to_string(), t.train.len().to_string());
        vec![format!("{label} {}", t.name), q.clone(), a.clone(), held, pool]
    };
    ctx.view(View::table(
        crate::t!("view-mm-tasks-title"),
        [
            crate::t!("view-mm-col-task"),
            crate::t!("view-col-prompt"),
            crate::t!("view-mm-col-answer"),
            crate::t!("view-mm-col-held-out"),
            crate::t!("view-mm-col-train-pool"),
        ],
        vec![row("A", &a), row("B", &b)],
    ));
    Data { a, b }
}

/// Accuracy of greedy answers on the first `n` of `items`: (characters, exact).
fn accuracy(model: &Gpt, tok: &Bpe, items: &[(String, String)], n: usize) -> Result<(f64, f64)> {
    let items = &items[..n.min(items.len())];
    let n = items.len().max(1) as f64;
    let prompts: Vec<Vec<u32>> = items.iter().map(|(q, _)| prompt_ids(tok, q)).collect();
    let answers: Vec<Vec<u32>> = items.iter().map(|(_, a)| answer_ids(tok, a)).collect();
    let max_new = answers.iter().map(|a| a.len()).max().unwrap_or(1);
    let out = generate(model, &prompts, &GenConfig::greedy(max_new, vec![EOS]), &mut Rng::new(0))?;
    let exact = out.iter().zip(&answers).filter(|(o, a)| o == a).count() as f64 / n;
    let text = |o: &[u32]| -> String { o.iter().filter(|&&t| t != EOS).map(|&t| tok.decode(&[t])).collect() };
    let chars = out.iter().zip(items).map(|(o, (_, gold))| score(&text(o), gold)).sum::<f64>() / n;
    Ok((chars, exact))
}

/// A model's held-out accuracy on (task A, task B).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Both {
    /// Share of answer characters right, position by position (partial
    /// credit): what the claims use.
    chars: [f64; 2],
    /// Share of answers right in full.
    exact: [f64; 2],
}

impl Both {
    /// Table cells: chars A, chars B, chars min, exact A, exact B.
    fn cells(&self) -> Vec<String> {
        let (c, e) = (self.chars, self.exact);
        vec![fmt(c[0]), fmt(c[1]), fmt(min2(c)), fmt(e[0]), fmt(e[1])]
    }
}

/// [`Both`] on the first `n` test items of each task, or (with `val`) on
/// the validation items (for choosing λ).
fn both(model: &Gpt, tok: &Bpe, d: &Data, n: usize, val: bool) -> Result<Both> {
    let acc = |t: &Task| accuracy(model, tok, if val { &t.val } else { &t.test }, n);
    let ((ca, ea), (cb, eb)) = (acc(&d.a)?, acc(&d.b)?);
    Ok(Both { chars: [ca, cb], exact: [ea, eb] })
}

/// What the model writes for the first held-out prompt of a task.
fn sample_answer(model: &Gpt, tok: &Bpe, task: &Task) -> Result<String> {
    let prompt = prompt_ids(tok, &task.test[0].0);
    let out = generate(model, &[prompt], &GenConfig::greedy(8, vec![EOS]), &mut Rng::new(0))?;
    Ok(tok.decode(&out[0]))
}

/// A row of the samples table: what `model` writes after each task's first held-out prompt.
fn sample_row(name: &str, model: &Gpt, tok: &Bpe, d: &Data) -> Result<Vec<String>> {
    let shown = |t: &Task| -> Result<String> { Ok(format!("{} → {}", t.test[0].0, sample_answer(model, tok, t)?)) };
    Ok(vec![name.to_string(), shown(&d.a)?, shown(&d.b)?])
}

/// Phase "warm start": a short shared SFT of the shipped base on *copying*
/// both tasks' inputs (`34158=` → `34158`, `abcde=` → `abcde`), so the
/// model every expert starts from already knows the format — one token per
/// character, a marker, an answer, `<eos>` — and the experts only have to
/// learn their task. This model is θ₀ of every merge (the role an
/// instruction-tuned checkpoint plays for real experts).
fn warm_start(p: &Params, ctx: &mut RunCtx, tok: &Bpe, base: &Gpt, d: &Data, rng: &mut Rng) -> Result<Gpt> {
    let model = base.fork(ctx.seed)?;
    if p.warm_steps == 0 {
        return Ok(model);
    }
    ctx.phase(crate::t!("view-mm-phase-warm-start"));
    let sft = Sft {
        first_step: 1,
        optimiser_charts: true,
        ..Sft::new(p.warm_steps, p.warm_lr).arm("warm start").within(0, p.warm_steps + 2 * p.steps)
    };
    let batches = Batches::fresh(|rng: &mut Rng| (0..p.batch).map(|_| copy_example(tok, d, rng)).collect());
    pipeline::sft(ctx, &model, &sft, batches, rng, no_probe)?;
    Ok(model)
}

/// What the phases after the warm start read: the parameters, the
/// tokenizer, the data, and θ₀ (as a model and as flat weights).
#[derive(Clone, Copy)]
struct Setup<'a> {
    p: &'a Params,
    tok: &'a Bpe,
    d: &'a Data,
    base: &'a Gpt,
    base_w: &'a FlatWeights,
}

/// The two experts and their accuracy.
struct Experts {
    a: Gpt,
    b: Gpt,
    acc_a: Both,
    acc_b: Both,
}

/// Phases "expert A" and "expert B", from θ₀ (expert B, with `init_b =
/// "permuted"`, from θ₀ in other coordinates), and the check that each has
/// its own skill and not the other's: a merge of experts without that says
/// nothing about merging.
fn experts(s: Setup, ctx: &mut RunCtx, rng: &mut Rng) -> Result<Experts> {
    let Setup { p, tok, d, base, base_w } = s;
    let a = train_expert(s, ctx, base, 0, &mut rng.fork(10), 0)?;
    let start_b = match p.init_b {
        InitB::Same => base.fork(ctx.seed)?,
        InitB::Permuted => {
            let w = permuted(base_w, base, &mut rng.fork(20))?;
            let m = model_from(base, &w, ctx.seed)?;
            let (before, after) = (sample_answer(base, tok, &d.a)?, sample_answer(&m, tok, &d.a)?);
            ctx.log(crate::t!(
                "view-mm-log-permuted",
                before = format!("{before:?}"),
                after = format!("{after:?}"),
                norm = format!("{:.2}", norm(&task_vector(&base_w.data, &w.data)))
            ));
            m
        }
    };
    let b = train_expert(s, ctx, &start_b, 1, &mut rng.fork(11), p.steps)?;
    let (acc_a, acc_b) = (both(&a, tok, d, p.holdout, false)?, both(&b, tok, d, p.holdout, false)?);
    let (own, other) = ([acc_a.chars[0], acc_b.chars[1]], [acc_a.chars[1], acc_b.chars[0]]);
    ctx.setup_check(&crate::t!("view-mm-check-own"), min2(own) >= 0.9, || {
        crate::t!("view-mm-check-own-why", a = fmt(own[0]), b = fmt(own[1]))
    })?;
    ctx.setup_check(&crate::t!("view-mm-check-other"), other[0].max(other[1]) <= 0.05, || {
        crate::t!("view-mm-check-other-why", a = fmt(other[0]), b = fmt(other[1]))
    })?;
    Ok(Experts { a, b, acc_a, acc_b })
}

/// Phase "expert X": fine-tune a copy of `start` on one task.
fn train_expert(s: Setup, ctx: &mut RunCtx, start: &Gpt, which: usize, rng: &mut Rng, step0: usize) -> Result<Gpt> {
    let Setup { p, tok, d, .. } = s;
    let arm = ["A", "B"][which];
    let (task, other) = if which == 0 { (&d.a, &d.b) } else { (&d.b, &d.a) };
    ctx.phase(crate::t!("view-mm-phase-expert", arm = arm, task = task.name.as_str()));
    let model = start.fork(ctx.seed)?;
    let n_mix = ((p.mix * p.batch as f64).round() as usize).min(p.batch);
    let n_other = ((p.other_mix * p.batch as f64).round() as usize).min(p.batch - n_mix);
    let batches = Batches::fresh(|rng: &mut Rng| {
        let pick = |t: &Task, rng: &mut Rng| {
            let (q, a) = &t.train[rng.below(t.train.len())];
            example(tok, q, a)
        };
        let mut ex: Vec<Example> = (0..p.batch - n_mix - n_other).map(|_| pick(task, rng)).collect();
        // other_mix > 0: each "expert" also sees the other task (multi-task training).
        ex.extend((0..n_other).map(|_| pick(other, rng)));
        ex.extend((0..n_mix).map(|_| copy_example(tok, d, rng)));
        ex
    });
    let first = p.warm_steps + step0;
    let sft = Sft {
        first_step: first + 1,
        optimiser_charts: true,
        ..Sft::new(p.steps, p.lr).arm(&format!("expert {arm}")).within(first, p.warm_steps + 2 * p.steps)
    };
    let eval_every = (p.steps / 4).max(1);
    let probe = |ctx: &mut RunCtx, s: usize| -> Result<()> {
        if (s + 1).is_multiple_of(eval_every) || s + 1 == p.steps {
            let acc = both(&model, tok, d, p.sweep_holdout, false)?.chars;
            ctx.metric(first + s + 1, &format!("char acc A · expert {arm}"), acc[0]);
            ctx.metric(first + s + 1, &format!("char acc B · expert {arm}"), acc[1]);
        }
        Ok(())
    };
    pipeline::sft(ctx, &model, &sft, batches, rng, probe)?;
    Ok(model)
}

/// Sign conflicts between the task vectors, per layer and in total
/// (all entries, and the entries TIES keeps after trimming). Returns the
/// total conflict share.
fn conflict_view(ctx: &mut RunCtx, layout: &FlatWeights, ta: &[f32], tb: &[f32], keep: f64) -> f64 {
    let (layers, all) = layer_conflicts(layout, ta, tb, keep);
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let row = |r: &LayerConflicts| {
        vec![r.layer.clone(), r.params.to_string(), pct(r.share()), pct(r.share_kept()), r.both_kept.to_string()]
    };
    ctx.view(View::table(
        crate::t!("view-mm-conflicts-title", pct = format!("{:.0}", keep * 100.0)),
        [
            crate::t!("view-mm-col-layer"),
            crate::t!("view-mm-col-params"),
            crate::t!("view-mm-col-conflicts"),
            crate::t!("view-mm-col-conflicts-kept"),
            crate::t!("view-mm-col-both-kept"),
        ],
        layers.iter().chain([&all]).map(row).collect(),
    ));
    ctx.log(crate::t!(
        "view-mm-log-vectors",
        na = format!("{:.3}", norm(ta)),
        nb = format!("{:.3}", norm(tb)),
        cos = format!("{:+.3}", cosine(ta, tb)),
        share = format!("{:.1}", 100.0 * all.share()),
        kept = format!("{:.1}", 100.0 * all.share_kept())
    ));
    all.share()
}

/// Phase "λ sweep": task arithmetic over λ on the validation items; returns
/// λ*, the λ with the best min of the two tasks.
fn lambda_sweep(s: Setup, ctx: &mut RunCtx, taus: &[&[f32]]) -> Result<f64> {
    let Setup { p, tok, d, base, base_w } = s;
    ctx.phase(crate::t!("view-mm-phase-sweep"));
    let mut rows = Vec::new();
    let mut best = (0.0f64, f64::NEG_INFINITY);
    for i in 0..p.sweep_points {
        ctx.check_cancel()?;
        let l = p.sweep_max * i as f64 / (p.sweep_points - 1).max(1) as f64;
        let m = model_from(base, &base_w.with_data(task_arithmetic(&base_w.data, taus, l as f32)), ctx.seed)?;
        let scores = both(&m, tok, d, p.sweep_holdout, true)?;
        let acc = scores.chars;
        if min2(acc) > best.1 {
            best = (l, min2(acc));
        }
        let x = (l * 100.0).round() as usize;
        ctx.metric(x, "char acc A vs λ×100 · task arithmetic", acc[0]);
        ctx.metric(x, "char acc B vs λ×100 · task arithmetic", acc[1]);
        ctx.metric(x, "char acc min vs λ×100 · task arithmetic", min2(acc));
        rows.push([format!("{l:.2}")].into_iter().chain(scores.cells()).collect());
    }
    let tuned = best.0;
    ctx.view(View::table(
        crate::t!("view-mm-sweep-title", n = p.sweep_holdout.to_string(), tuned = format!("{tuned:.2}")),
        [
            "λ".to_string(),
            crate::t!("view-mm-col-chars", task = "A"),
            crate::t!("view-mm-col-chars", task = "B"),
            crate::t!("view-mm-col-chars-min"),
            crate::t!("view-mm-col-exact", task = "A"),
            crate::t!("view-mm-col-exact", task = "B"),
        ],
        rows,
    ));
    ctx.log(crate::t!("view-mm-log-tuned", tuned = format!("{tuned:.2}")));
    Ok(tuned)
}

/// One merge: its name, its formula, its weights.
struct Merge {
    name: &'static str,
    formula: String,
    weights: Vec<f32>,
}

/// The four merges (task arithmetic twice: at the fixed λ and at λ*).
fn merges(p: &Params, base: &[f32], w: [&[f32]; 2], taus: &[&[f32]], tuned: f64, rng: &mut Rng) -> Vec<Merge> {
    let merge = |name, formula, weights| Merge { name, formula, weights };
    vec![
        merge("average", "(θ_A + θ_B) / 2".into(), uniform_average(&w)),
        merge(
            "task arithmetic, λ fixed",
            format!("θ₀ + {:.2}·(τ_A + τ_B)", p.lambda),
            task_arithmetic(base, taus, p.lambda as f32),
        ),
        merge("task arithmetic, λ*", format!("θ₀ + {tuned:.2}·(τ_A + τ_B)"), task_arithmetic(base, taus, tuned as f32)),
        merge(
            "TIES",
            format!("θ₀ + {:.2}·ties(τ, top {:.0}%)", p.ties_lambda, p.ties_keep * 100.0),
            ties_merge(base, taus, p.ties_keep, p.ties_lambda as f32),
        ),
        merge(
            "DARE",
            format!("θ₀ + {tuned:.2}·Σ dare(τ, p = {:.2})", p.dare_p),
            dare_merge(base, taus, p.dare_p, tuned as f32, &mut rng.fork(30)),
        ),
    ]
}

/// Phase "evaluate": θ₀, the experts and every merge on both tasks' test
/// items, and what each writes. Returns each merge's character accuracy.
fn evaluate(s: Setup, ctx: &mut RunCtx, base_acc: &Both, e: &Experts, merges: &[Merge]) -> Result<Vec<[f64; 2]>> {
    let Setup { p, tok, d, base, base_w } = s;
    ctx.phase(crate::t!("view-phase-evaluate"));
    let row = |name: &str, formula: &str, b: &Both| -> Vec<String> {
        [name.to_string(), formula.to_string()].into_iter().chain(b.cells()).collect()
    };
    let mut rows = vec![
        row(&crate::t!("view-mm-row-base"), "θ₀", base_acc),
        row(&crate::t!("view-mm-row-expert", arm = "A"), "θ₀ + τ_A", &e.acc_a),
        row(&crate::t!("view-mm-row-expert", arm = "B"), "θ₀ + τ_B", &e.acc_b),
    ];
    let gold = |t: &Task| format!("{} → {}", t.test[0].0, t.test[0].1);
    let mut samples = vec![
        vec![crate::t!("view-col-gold"), gold(&d.a), gold(&d.b)],
        sample_row(&crate::t!("view-mm-row-expert", arm = "A"), &e.a, tok, d)?,
        sample_row(&crate::t!("view-mm-row-expert", arm = "B"), &e.b, tok, d)?,
    ];
    let mut merged = Vec::new();
    for m in merges {
        ctx.check_cancel()?;
        let model = model_from(base, &base_w.with_data(m.weights.clone()), ctx.seed)?;
        let acc = both(&model, tok, d, p.holdout, false)?;
        rows.push(row(&merge_label(m.name), &m.formula, &acc));
        samples.push(sample_row(&merge_label(m.name), &model, tok, d)?);
        merged.push(acc.chars);
    }
    ctx.view(View::table(
        crate::t!("view-mm-heldout-title", n = p.holdout.to_string()),
        vec![
            crate::t!("view-col-model"),
            crate::t!("view-mm-col-weights"),
            crate::t!("view-mm-col-chars", task = format!("A {}", d.a.name)),
            crate::t!("view-mm-col-chars", task = format!("B {}", d.b.name)),
            crate::t!("view-mm-col-chars-min"),
            crate::t!("view-mm-col-exact", task = "A"),
            crate::t!("view-mm-col-exact", task = "B"),
        ],
        rows,
    ));
    ctx.view(View::table(
        crate::t!("view-mm-samples-title"),
        vec![crate::t!("view-col-model"), format!("A {}", d.a.name), format!("B {}", d.b.name)],
        samples,
    ));
    Ok(merged)
}

impl TypedDrill for ModelMerging {
    const ID: &'static str = "model-merging";
    const CLAIMS: &'static [&'static str] = &[
        "average_keeps_both",
        "dare_keeps_both",
        "fixed_lambda_keeps_both",
        "merge_beats_both_experts",
        "sign_conflict_share",
        "task_arithmetic_keeps_both",
        "ties_keeps_both",
        "ties_or_dare_beat_average",
        "tuned_lambda",
    ];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        if p.mix + p.other_mix > 0.9 {
            return Err(crate::t!("setup-mm-mix", mix = p.mix.to_string(), other = p.other_mix.to_string()));
        }
        if p.sweep_holdout > p.holdout {
            return Err(crate::t!(
                "setup-mm-sweep-holdout",
                sweep = p.sweep_holdout.to_string(),
                holdout = p.holdout.to_string()
            ));
        }
        let words = 8usize.pow(p.word_len as u32);
        if p.holdout > words / 2 {
            return Err(crate::t!(
                "setup-mm-holdout-words",
                holdout = p.holdout.to_string(),
                words = words.to_string(),
                letters = p.word_len.to_string()
            ));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let mut rng = Rng::new(ctx.seed);
        let d = data(p, ctx, &mut rng);
        let (shipped, tok) = base::shipped(&ctx.device)?;
        ctx.log(crate::t!(
            "view-mm-log-shipped",
            d = shipped.cfg.d_model.to_string(),
            layers = shipped.cfg.n_layers.to_string(),
            heads = shipped.cfg.n_heads.to_string(),
            params = shipped.num_params().to_string()
        ));
        let shipped_acc = both(&shipped, &tok, &d, p.sweep_holdout, false)?.chars;
        let base = warm_start(p, ctx, &tok, &shipped, &d, &mut rng.fork(9))?;
        ctx.keep(tried::WARM, Arms::Start, &base)?;
        let base_w = flatten(&base)?;
        let base_acc = both(&base, &tok, &d, p.holdout, false)?;
        ctx.log(crate::t!(
            "view-mm-log-base-acc",
            sa = fmt(shipped_acc[0]),
            sb = fmt(shipped_acc[1]),
            ba = fmt(base_acc.chars[0]),
            bb = fmt(base_acc.chars[1])
        ));
        let s = Setup { p, tok: &tok, d: &d, base: &base, base_w: &base_w };
        let e = experts(s, ctx, &mut rng)?;
        ctx.keep(tried::EXPERT_A, Arms::Trained, &e.a)?;
        ctx.keep(tried::EXPERT_B, Arms::Trained, &e.b)?;

        // Task vectors, their conflicts, λ*, the merges.
        ctx.phase(crate::t!("view-mm-phase-merge"));
        let (wa, wb) = (flatten(&e.a)?, flatten(&e.b)?);
        let (ta, tb) = (task_vector(&base_w.data, &wa.data), task_vector(&base_w.data, &wb.data));
        let conflicts = conflict_view(ctx, &base_w, &ta, &tb, p.ties_keep);
        let taus: [&[f32]; 2] = [&ta, &tb];
        let tuned = lambda_sweep(s, ctx, &taus)?;
        let merges = merges(p, &base_w.data, [&wa.data, &wb.data], &taus, tuned, &mut rng);
        let merged = evaluate(s, ctx, &base_acc, &e, &merges)?;
        token_view(ctx, &tok, &d);

        // Claims.
        ctx.phase(crate::t!("view-phase-report"));
        let (acc_a, acc_b) = (e.acc_a.chars, e.acc_b.chars);
        let own = [acc_a[0], acc_b[1]];
        let retention = |acc: [f64; 2]| -> f64 {
            let r = |i: usize| if own[i] > 0.0 { acc[i] / own[i] } else { 0.0 };
            r(0).min(r(1))
        };
        let best = merged.iter().map(|&a| min2(a)).fold(0.0, f64::max);
        let acc = |name: &str| merges.iter().zip(&merged).find(|(m, _)| m.name == name).map_or([0.0; 2], |(_, a)| *a);
        let (average, fixed, tuned_acc, ties, dare) =
            (acc("average"), acc("task arithmetic, λ fixed"), acc("task arithmetic, λ*"), acc("TIES"), acc("DARE"));
        let expert_min = min2(acc_a).max(min2(acc_b));
        ctx.log(crate::t!(
            "view-mm-log-experts",
            own_a = fmt(acc_a[0]),
            own_b = fmt(acc_b[1]),
            other_a = fmt(acc_a[1]),
            other_b = fmt(acc_b[0]),
            base_a = fmt(base_acc.chars[0]),
            base_b = fmt(base_acc.chars[1])
        ));
        ctx.claim("merge_beats_both_experts", best - expert_min)?;
        ctx.claim("task_arithmetic_keeps_both", retention(tuned_acc))?;
        ctx.claim("dare_keeps_both", retention(dare))?;
        ctx.claim("ties_or_dare_beat_average", min2(ties).max(min2(dare)) - min2(average))?;
        ctx.claim("fixed_lambda_keeps_both", retention(fixed))?;
        ctx.claim("ties_keeps_both", retention(ties))?;
        ctx.claim("average_keeps_both", retention(average))?;
        ctx.claim("sign_conflict_share", conflicts)?;
        ctx.claim("tuned_lambda", tuned)?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &candle_core::Device) -> Result<Box<dyn TrySession>> {
        tried::open(p, run, device)
    }
}

/// A merge as the views name it (its `name` is how the claims find it).
fn merge_label(name: &str) -> String {
    match name {
        "average" => crate::t!("view-mm-merge-average"),
        "task arithmetic, λ fixed" => crate::t!("view-mm-merge-fixed"),
        "task arithmetic, λ*" => crate::t!("view-mm-merge-tuned"),
        _ => name.to_string(),
    }
}

fn min2(a: [f64; 2]) -> f64 {
    a[0].min(a[1])
}

fn fmt(x: f64) -> String {
    format!("{x:.3}")
}

/// One training sequence of each task, token by token: prompt vs trained.
fn token_view(ctx: &mut RunCtx, tok: &Bpe, d: &Data) {
    let mut tokens = Vec::new();
    for (q, a) in [&d.a.test[0], &d.b.test[0]] {
        let ex = example(tok, q, a);
        for (i, &id) in ex.tokens.iter().enumerate() {
            let text = match id {
                BOS => "<bos>".to_string(),
                EOS => "<eos>".to_string(),
                _ => tok.decode(&[id]),
            };
            let kind = if ex.train[i] { TokenKind::Trained } else { TokenKind::Prompt };
            tokens.push(TokenCell { text, kind, value: None });
        }
    }
    ctx.view(View::Tokens {
        title: crate::t!("view-mm-tokens-title"),
        tokens,
        legend: crate::t!("view-mm-tokens-legend"),
    });
}
