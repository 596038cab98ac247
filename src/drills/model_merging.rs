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
use candle_core::Tensor;
use serde::Deserialize;

use super::pipeline::{self, no_probe, Batches, Sft};
use super::{RunCtx, TokenCell, TokenKind, TypedDrill, View};
use crate::continual::merge::{
    cosine, dare_merge, norm, sign_conflicts, task_arithmetic, task_vector, ties_merge, trim_top_k, uniform_average,
    FlatWeights,
};
use crate::envs::refine_arith::score;
use crate::envs::strings::{split_words, StringTask};
use crate::ml::base;
use crate::ml::data::Example;
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{Bpe, Tokenize, BOS, EOS};

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

/// One task: its held-out pairs and its training pool (prompt, answer).
struct Task {
    name: String,
    test: Vec<(String, String)>,
    /// Held out from training too, to choose λ (never the test items).
    val: Vec<(String, String)>,
    train: Vec<(String, String)>,
}

/// Each character as its own token (the BPE's byte tokens), so that the
/// digits and letters the tasks move around are never glued together.
fn encode_chars(tok: &Bpe, text: &str) -> Vec<u32> {
    text.chars().flat_map(|c| tok.encode(&c.to_string())).collect()
}

/// A prompt-answer pair as a training example: the loss covers the answer and EOS.
fn example(tok: &Bpe, prompt: &str, answer: &str) -> Example {
    let mut tokens = vec![BOS];
    tokens.extend(encode_chars(tok, prompt));
    let n_prompt = tokens.len();
    tokens.extend(encode_chars(tok, answer));
    tokens.push(EOS);
    let train = (0..tokens.len()).map(|i| i >= n_prompt).collect();
    Example::new(tokens, train)
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

/// Phase "data": task A and task B, each split into held-out and training pairs.
struct Data {
    a: Task,
    b: Task,
}

fn data(p: &Params, ctx: &mut RunCtx, rng: &mut Rng) -> Data {
    ctx.phase("data");
    let a = string_task(StringTask::Upper, p, false, &mut rng.fork(1));
    let b = string_task(StringTask::Digits, p, p.inputs_b == InputsB::Disjoint, &mut rng.fork(2));
    let row = |label: &str, t: &Task| {
        vec![
            format!("{label} {}", t.name),
            t.test[0].0.clone(),
            t.test[0].1.clone(),
            t.test.len().to_string(),
            t.train.len().to_string(),
        ]
    };
    ctx.view(View::Table {
        title: "The two tasks (each expert learns one; the merge should do both)".into(),
        header: ["task", "prompt", "answer", "held out", "train pool"].map(String::from).to_vec(),
        rows: vec![row("A", &a), row("B", &b)],
    });
    Data { a, b }
}

/// A string task of `src/envs/strings.rs` over the words of `word_len`
/// letters `a`–`h` — or, with `shift`, the same words written with `i`–`p`
/// (the answer is unchanged: `ijklm#` is read as `abcde#`).
fn string_task(task: StringTask, p: &Params, shift: bool, rng: &mut Rng) -> Task {
    let (test, mut train) = split_words(p.word_len, p.holdout, rng);
    let val = train.split_off(train.len() - p.sweep_holdout.min(train.len() / 2));
    let shifted = |w: &str| -> String { w.chars().map(|c| if shift { (c as u8 + 8) as char } else { c }).collect() };
    let pairs = |ws: &[String]| ws.iter().map(|w| (task.prompt(&shifted(w)), task.answer(w))).collect();
    let name = if shift { format!("{} (i–p)", task.name()) } else { task.name().to_string() };
    Task { name, test: pairs(&test), val: pairs(&val), train: pairs(&train) }
}

/// Accuracy of greedy answers on the first `n` test items (or validation
/// items, with `val`).
fn accuracy(model: &Gpt, tok: &Bpe, task: &Task, n: usize, val: bool) -> Result<Acc> {
    let items = if val { &task.val } else { &task.test };
    let n = n.min(items.len());
    let prompts: Vec<Vec<u32>> = items[..n]
        .iter()
        .map(|(q, _)| {
            let mut v = vec![BOS];
            v.extend(encode_chars(tok, q));
            v
        })
        .collect();
    let answers: Vec<Vec<u32>> = items[..n]
        .iter()
        .map(|(_, a)| {
            let mut v = encode_chars(tok, a);
            v.push(EOS);
            v
        })
        .collect();
    let max_new = answers.iter().map(|a| a.len()).max().unwrap_or(1);
    let out = generate(model, &prompts, &GenConfig::greedy(max_new, vec![EOS]), &mut Rng::new(0))?;
    let exact = out.iter().zip(&answers).filter(|(o, a)| o == a).count() as f64 / n.max(1) as f64;
    let chars: f64 = out
        .iter()
        .zip(&items[..n])
        .map(|(o, (_, gold))| {
            let text: String = o.iter().filter(|&&t| t != EOS).map(|&t| tok.decode(&[t])).collect();
            score(&text, gold)
        })
        .sum::<f64>()
        / n.max(1) as f64;
    Ok(Acc { exact, chars })
}

/// Held-out accuracy of a model on one task.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Acc {
    /// Share of answers right in full.
    exact: f64,
    /// Share of answer characters right, position by position (partial credit).
    chars: f64,
}

/// Character accuracy on (task A, task B) — what the claims use — and exact match.
fn both(model: &Gpt, tok: &Bpe, d: &Data, n: usize) -> Result<([f64; 2], [f64; 2])> {
    let (a, b) = (accuracy(model, tok, &d.a, n, false)?, accuracy(model, tok, &d.b, n, false)?);
    Ok(([a.chars, b.chars], [a.exact, b.exact]))
}

/// The same on the validation items (for choosing λ).
fn both_val(model: &Gpt, tok: &Bpe, d: &Data, n: usize) -> Result<([f64; 2], [f64; 2])> {
    let (a, b) = (accuracy(model, tok, &d.a, n, true)?, accuracy(model, tok, &d.b, n, true)?);
    Ok(([a.chars, b.chars], [a.exact, b.exact]))
}

/// What the model writes for the first held-out prompt of a task.
fn sample_answer(model: &Gpt, tok: &Bpe, task: &Task) -> Result<String> {
    let mut prompt = vec![BOS];
    prompt.extend(encode_chars(tok, &task.test[0].0));
    let out = generate(model, &[prompt], &GenConfig::greedy(8, vec![EOS]), &mut Rng::new(0))?;
    Ok(tok.decode(&out[0]))
}

/// A model's weights, flattened in name order.
fn flatten(model: &Gpt) -> Result<FlatWeights> {
    let named: Vec<(String, Vec<f32>)> = model
        .vars()
        .into_iter()
        .map(|(k, v)| Ok((k, v.as_tensor().flatten_all()?.to_vec1::<f32>()?)))
        .collect::<Result<_>>()?;
    Ok(FlatWeights::new(named))
}

/// A copy of `like` holding the weights `w`.
fn model_from(like: &Gpt, w: &FlatWeights, seed: u64) -> Result<Gpt> {
    let m = like.fork(seed)?;
    for (name, var) in m.vars() {
        let (_, off, len) =
            w.layout.iter().find(|(n, ..)| *n == name).ok_or_else(|| anyhow::anyhow!("no weights for {name}"))?;
        let t = Tensor::from_slice(&w.data[*off..off + len], var.shape(), &m.device)?;
        var.set(&t)?;
    }
    Ok(m)
}

/// Rows of a `[rows, cols]` matrix reordered: new row i = old row perm[i].
fn permute_rows(w: &[f32], cols: usize, perm: &[usize]) -> Vec<f32> {
    perm.iter().flat_map(|&r| w[r * cols..(r + 1) * cols].iter().copied()).collect()
}

/// Columns of a `[rows, cols]` matrix reordered: new column j = old column perm[j].
fn permute_cols(w: &[f32], cols: usize, perm: &[usize]) -> Vec<f32> {
    w.chunks(cols).flat_map(|row| perm.iter().map(move |&c| row[c])).collect()
}

/// The base with every MLP's hidden units and every attention layer's
/// heads permuted at random: it computes exactly the same function (the
/// permutation is undone by the next layer), but weight i of this model is
/// not weight i of the base.
fn permuted(w: &FlatWeights, model: &Gpt, rng: &mut Rng) -> Result<FlatWeights> {
    let cfg = &model.cfg;
    let (d, h, nh, hd) = (cfg.d_model, cfg.mlp_hidden(), cfg.n_heads, cfg.head_dim());
    let get = |name: &str| -> Result<Vec<f32>> {
        Ok(w.tensor(name).ok_or_else(|| anyhow::anyhow!("the base has no {name}"))?.to_vec())
    };
    let mut named: Vec<(String, Vec<f32>)> = Vec::new();
    for l in 0..cfg.n_layers {
        let n = |s: &str| format!("blocks.{l}.{s}");
        let mut units: Vec<usize> = (0..h).collect();
        rng.shuffle(&mut units);
        named.push((n("mlp.fc.weight"), permute_rows(&get(&n("mlp.fc.weight"))?, d, &units)));
        named.push((n("mlp.fc.bias"), permute_rows(&get(&n("mlp.fc.bias"))?, 1, &units)));
        named.push((n("mlp.proj.weight"), permute_cols(&get(&n("mlp.proj.weight"))?, h, &units)));
        // Heads: the same head order for q, k and v, undone by the output projection.
        let mut heads: Vec<usize> = (0..nh).collect();
        rng.shuffle(&mut heads);
        let within: Vec<usize> = heads.iter().flat_map(|&g| g * hd..(g + 1) * hd).collect();
        let qkv_rows: Vec<usize> = (0..3).flat_map(|part| within.iter().map(move |&r| part * d + r)).collect();
        named.push((n("attn.qkv.weight"), permute_rows(&get(&n("attn.qkv.weight"))?, d, &qkv_rows)));
        named.push((n("attn.qkv.bias"), permute_rows(&get(&n("attn.qkv.bias"))?, 1, &qkv_rows)));
        named.push((n("attn.proj.weight"), permute_cols(&get(&n("attn.proj.weight"))?, d, &within)));
    }
    let mut out = w.clone();
    for (name, v) in named {
        let (_, off, len) = out.layout.iter().find(|(n, ..)| *n == name).cloned().expect("a name from the layout");
        out.data[off..off + len].copy_from_slice(&v);
    }
    Ok(out)
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
    ctx.phase("warm start");
    let sft = Sft {
        first_step: 1,
        optimiser_charts: true,
        ..Sft::new(p.warm_steps, p.warm_lr).arm("warm start").within(0, p.warm_steps + 2 * p.steps)
    };
    let batches = Batches::fresh(|rng: &mut Rng| (0..p.batch).map(|_| copy_example(tok, d, rng)).collect());
    pipeline::sft(ctx, &model, &sft, batches, rng, no_probe)?;
    Ok(model)
}

/// Phase "expert X": fine-tune a copy of `start` on one task.
#[allow(clippy::too_many_arguments)]
fn train_expert(
    p: &Params,
    ctx: &mut RunCtx,
    tok: &Bpe,
    start: &Gpt,
    which: usize,
    d: &Data,
    rng: &mut Rng,
    step0: usize,
) -> Result<Gpt> {
    let name = if which == 0 { format!("A ({})", d.a.name) } else { format!("B ({})", d.b.name) };
    ctx.phase(format!("expert {name}"));
    let model = start.fork(ctx.seed)?;
    let n_mix = ((p.mix * p.batch as f64).round() as usize).min(p.batch);
    let n_other = ((p.other_mix * p.batch as f64).round() as usize).min(p.batch - n_mix);
    let (task, other) = if which == 0 { (&d.a, &d.b) } else { (&d.b, &d.a) };
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
        ..Sft::new(p.steps, p.lr)
            .arm(&format!("expert {}", ["A", "B"][which]))
            .within(first, p.warm_steps + 2 * p.steps)
    };
    let eval_every = (p.steps / 4).max(1);
    let probe = |ctx: &mut RunCtx, s: usize| -> Result<()> {
        if (s + 1).is_multiple_of(eval_every) || s + 1 == p.steps {
            let (acc, _) = both(&model, tok, d, p.sweep_holdout)?;
            ctx.metric(first + s + 1, &format!("char acc A · expert {}", ["A", "B"][which]), acc[0]);
            ctx.metric(first + s + 1, &format!("char acc B · expert {}", ["A", "B"][which]), acc[1]);
        }
        Ok(())
    };
    pipeline::sft(ctx, &model, &sft, batches, rng, probe)?;
    Ok(model)
}

/// Short layer names for the per-layer table.
fn layer_of(name: &str) -> String {
    match name.split('.').collect::<Vec<_>>().as_slice() {
        ["blocks", i, part, ..] => format!("block {i} {part}"),
        [first, ..] => first.to_string(),
        [] => name.to_string(),
    }
}

/// One layer's sign conflicts between the two task vectors.
struct LayerConflicts {
    layer: String,
    /// Entries where both task vectors are non-zero and of opposite sign,
    conflicts: usize,
    /// of the entries where both are non-zero;
    both: usize,
    /// the same after TIES trims each to its top entries.
    conflicts_kept: usize,
    both_kept: usize,
    params: usize,
}

/// Sign conflicts between the task vectors, per layer and in total
/// (all entries, and the entries TIES keeps after trimming). Returns the
/// total conflict share.
fn conflict_view(ctx: &mut RunCtx, layout: &FlatWeights, ta: &[f32], tb: &[f32], keep: f64) -> f64 {
    let (ka, kb) = (trim_top_k(ta, keep), trim_top_k(tb, keep));
    let mut rows: Vec<LayerConflicts> = Vec::new();
    for (name, off, len) in &layout.layout {
        let r = *off..off + len;
        let (conflicts, both) = sign_conflicts(&ta[r.clone()], &tb[r.clone()]);
        let (conflicts_kept, both_kept) = sign_conflicts(&ka[r.clone()], &kb[r.clone()]);
        let layer = layer_of(name);
        let here = LayerConflicts { layer, conflicts, both, conflicts_kept, both_kept, params: *len };
        match rows.iter_mut().find(|x| x.layer == here.layer) {
            Some(e) => {
                e.conflicts += here.conflicts;
                e.both += here.both;
                e.conflicts_kept += here.conflicts_kept;
                e.both_kept += here.both_kept;
                e.params += here.params;
            }
            None => rows.push(here),
        }
    }
    let share = |c: usize, n: usize| if n > 0 { c as f64 / n as f64 } else { 0.0 };
    let (tc, tn) = sign_conflicts(ta, tb);
    let (tct, tnt) = sign_conflicts(&ka, &kb);
    let mut table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.layer.clone(),
                r.params.to_string(),
                format!("{:.1}%", 100.0 * share(r.conflicts, r.both)),
                format!("{:.1}%", 100.0 * share(r.conflicts_kept, r.both_kept)),
                r.both_kept.to_string(),
            ]
        })
        .collect();
    table.push(vec![
        "all".into(),
        layout.data.len().to_string(),
        format!("{:.1}%", 100.0 * share(tc, tn)),
        format!("{:.1}%", 100.0 * share(tct, tnt)),
        tnt.to_string(),
    ]);
    ctx.view(View::Table {
        title: format!(
            "Sign conflicts between τ_A and τ_B per layer (where both moved; 'kept': both in the top {:.0}%)",
            keep * 100.0
        ),
        header: ["layer", "params", "conflicts", "conflicts, kept", "both kept"].map(String::from).to_vec(),
        rows: table,
    });
    ctx.log(format!(
        "task vectors: ‖τ_A‖ {:.3}, ‖τ_B‖ {:.3}, cosine {:+.3}; signs conflict on {:.1}% of the weights both moved, \
         {:.1}% of those both keep after the trim",
        norm(ta),
        norm(tb),
        cosine(ta, tb),
        100.0 * share(tc, tn),
        100.0 * share(tct, tnt)
    ));
    share(tc, tn)
}

impl TypedDrill for ModelMerging {
    const ID: &'static str = "model-merging";
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        if p.mix + p.other_mix > 0.9 {
            return Err(format!(
                "mix ({}) + other_mix ({}) leave too little of the expert's own task (at most 0.9 together)",
                p.mix, p.other_mix
            ));
        }
        if p.sweep_holdout > p.holdout {
            return Err(format!("sweep_holdout ({}) cannot exceed holdout ({})", p.sweep_holdout, p.holdout));
        }
        let words = 8usize.pow(p.word_len as u32);
        if p.holdout > words / 2 {
            return Err(format!(
                "holdout ({}) is more than half of the {words} words of {} letters",
                p.holdout, p.word_len
            ));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let mut rng = Rng::new(ctx.seed);
        let d = data(p, ctx, &mut rng);
        let (base_model, tok) = base::shipped(&ctx.device)?;
        ctx.log(format!(
            "the shipped base: d_model {}, {} layers, {} heads, {} parameters; every one is fine-tuned",
            base_model.cfg.d_model,
            base_model.cfg.n_layers,
            base_model.cfg.n_heads,
            base_model.num_params()
        ));
        let (shipped_acc, _) = both(&base_model, &tok, &d, p.sweep_holdout)?;
        let base_model = warm_start(p, ctx, &tok, &base_model, &d, &mut rng.fork(9))?;
        let base_w = flatten(&base_model)?;
        let (base_acc, base_exact) = both(&base_model, &tok, &d, p.holdout)?;
        ctx.log(format!(
            "character accuracy of the shipped base: A {:.3}, B {:.3}; of θ₀ after the warm start: A {:.3}, B {:.3}",
            shipped_acc[0], shipped_acc[1], base_acc[0], base_acc[1]
        ));

        // Experts.
        let expert_a = train_expert(p, ctx, &tok, &base_model, 0, &d, &mut rng.fork(10), 0)?;
        let start_b = match p.init_b {
            InitB::Same => base_model.fork(ctx.seed)?,
            InitB::Permuted => {
                let w = permuted(&base_w, &base_model, &mut rng.fork(20))?;
                let m = model_from(&base_model, &w, ctx.seed)?;
                let (before, after) = (sample_answer(&base_model, &tok, &d.a)?, sample_answer(&m, &tok, &d.a)?);
                ctx.log(format!(
                    "expert B starts from the base with permuted MLP units and heads: same function \
                     (the base writes {before:?} after the first task-A prompt, the permuted one {after:?}), \
                     ‖θ_perm − θ_base‖ = {:.2}",
                    norm(&task_vector(&base_w.data, &w.data))
                ));
                m
            }
        };
        let expert_b = train_expert(p, ctx, &tok, &start_b, 1, &d, &mut rng.fork(11), p.steps)?;

        // The setup: two experts, each with its own skill and not the other's.
        // A merge of experts without that says nothing about merging.
        let (acc_a, exact_a) = both(&expert_a, &tok, &d, p.holdout)?;
        let (acc_b, exact_b) = both(&expert_b, &tok, &d, p.holdout)?;
        ctx.setup_check("each expert has learned its own task", acc_a[0].min(acc_b[1]) >= 0.9, || {
            format!(
                "expert A reaches {:.3} on task A and expert B {:.3} on task B (each needs 0.9): train them longer \
                 (steps) or faster (lr)",
                acc_a[0], acc_b[1]
            )
        })?;
        ctx.setup_check("neither expert can do the other's task", acc_a[1].max(acc_b[0]) <= 0.05, || {
            format!(
                "expert A reaches {:.3} on task B and expert B {:.3} on task A (at most 0.05 each): with other_mix \
                 above 0 each expert trains on both tasks, and a merge has nothing to add",
                acc_a[1], acc_b[0]
            )
        })?;

        // Task vectors and their conflicts.
        ctx.phase("merge");
        let (wa, wb) = (flatten(&expert_a)?, flatten(&expert_b)?);
        let ta = task_vector(&base_w.data, &wa.data);
        let tb = task_vector(&base_w.data, &wb.data);
        let conflicts = conflict_view(ctx, &base_w, &ta, &tb, p.ties_keep);
        let taus: [&[f32]; 2] = [&ta, &tb];
        // Task arithmetic over λ, on the validation items: choose λ*.
        ctx.phase("λ sweep");
        let mut sweep_rows = Vec::new();
        let mut best_lambda = (0.0f64, f64::NEG_INFINITY);
        for i in 0..p.sweep_points {
            ctx.check_cancel()?;
            let l = p.sweep_max * i as f64 / (p.sweep_points - 1).max(1) as f64;
            let m =
                model_from(&base_model, &base_w.with_data(task_arithmetic(&base_w.data, &taus, l as f32)), ctx.seed)?;
            let (acc, exact) = both_val(&m, &tok, &d, p.sweep_holdout)?;
            if min2(acc) > best_lambda.1 {
                best_lambda = (l, min2(acc));
            }
            let x = (l * 100.0).round() as usize;
            ctx.metric(x, "char acc A vs λ×100 · task arithmetic", acc[0]);
            ctx.metric(x, "char acc B vs λ×100 · task arithmetic", acc[1]);
            ctx.metric(x, "char acc min vs λ×100 · task arithmetic", min2(acc));
            sweep_rows.push(vec![
                format!("{l:.2}"),
                fmt(acc[0]),
                fmt(acc[1]),
                fmt(min2(acc)),
                fmt(exact[0]),
                fmt(exact[1]),
            ]);
        }
        let tuned = best_lambda.0;
        ctx.view(View::Table {
            title: format!(
                "Task arithmetic θ₀ + λ(τ_A + τ_B) over λ ({} validation items per task; λ = 0.5 is the plain \
                 average); λ* = {tuned:.2} has the best min",
                p.sweep_holdout
            ),
            header: ["λ", "chars A", "chars B", "chars min", "exact A", "exact B"].map(String::from).to_vec(),
            rows: sweep_rows,
        });
        ctx.log(format!(
            "λ* = {tuned:.2}, chosen on validation items; task arithmetic and DARE use it on the test items"
        ));

        let merges: Vec<(&str, String, Vec<f32>)> = vec![
            ("average", "(θ_A + θ_B) / 2".into(), uniform_average(&[&wa.data, &wb.data])),
            (
                "task arithmetic, λ fixed",
                format!("θ₀ + {:.2}·(τ_A + τ_B)", p.lambda),
                task_arithmetic(&base_w.data, &taus, p.lambda as f32),
            ),
            (
                "task arithmetic, λ*",
                format!("θ₀ + {tuned:.2}·(τ_A + τ_B)"),
                task_arithmetic(&base_w.data, &taus, tuned as f32),
            ),
            (
                "TIES",
                format!("θ₀ + {:.2}·ties(τ, top {:.0}%)", p.ties_lambda, p.ties_keep * 100.0),
                ties_merge(&base_w.data, &taus, p.ties_keep, p.ties_lambda as f32),
            ),
            (
                "DARE",
                format!("θ₀ + {tuned:.2}·Σ dare(τ, p = {:.2})", p.dare_p),
                dare_merge(&base_w.data, &taus, p.dare_p, tuned as f32, &mut rng.fork(30)),
            ),
        ];

        // Evaluate.
        ctx.phase("evaluate");
        let row = |name: &str, formula: &str, c: [f64; 2], e: [f64; 2]| -> Vec<String> {
            vec![name.into(), formula.into(), fmt(c[0]), fmt(c[1]), fmt(min2(c)), fmt(e[0]), fmt(e[1])]
        };
        let mut rows = vec![
            row("θ₀ (warm start)", "θ₀", base_acc, base_exact),
            row("expert A", "θ₀ + τ_A", acc_a, exact_a),
            row("expert B", "θ₀ + τ_B", acc_b, exact_b),
        ];
        // Each merge's character accuracy on tasks A and B, by the merge's name.
        let mut merged: Vec<(&str, [f64; 2])> = Vec::new();
        let mut samples: Vec<Vec<String>> = Vec::new();
        for (name, formula, w) in &merges {
            ctx.check_cancel()?;
            let m = model_from(&base_model, &base_w.with_data(w.clone()), ctx.seed)?;
            let (acc, exact) = both(&m, &tok, &d, p.holdout)?;
            rows.push(row(name, formula, acc, exact));
            samples.push(vec![
                name.to_string(),
                format!("{} → {}", d.a.test[0].0, sample_answer(&m, &tok, &d.a)?),
                format!("{} → {}", d.b.test[0].0, sample_answer(&m, &tok, &d.b)?),
            ]);
            merged.push((name, acc));
        }
        ctx.view(View::Table {
            title: format!(
                "Held-out accuracy ({} items per task): characters right by position, and whole answers right",
                p.holdout
            ),
            header: vec![
                "model".into(),
                "weights".into(),
                format!("chars A {}", d.a.name),
                format!("chars B {}", d.b.name),
                "chars min".into(),
                "exact A".into(),
                "exact B".into(),
            ],
            rows,
        });
        let mut sample_rows = vec![
            vec![
                "gold".into(),
                format!("{} → {}", d.a.test[0].0, d.a.test[0].1),
                format!("{} → {}", d.b.test[0].0, d.b.test[0].1),
            ],
            vec![
                "expert A".into(),
                format!("{} → {}", d.a.test[0].0, sample_answer(&expert_a, &tok, &d.a)?),
                format!("{} → {}", d.b.test[0].0, sample_answer(&expert_a, &tok, &d.b)?),
            ],
            vec![
                "expert B".into(),
                format!("{} → {}", d.a.test[0].0, sample_answer(&expert_b, &tok, &d.a)?),
                format!("{} → {}", d.b.test[0].0, sample_answer(&expert_b, &tok, &d.b)?),
            ],
        ];
        sample_rows.extend(samples);
        ctx.view(View::Table {
            title: "What each model writes for the first held-out prompt of each task (greedy)".into(),
            header: vec!["model".into(), format!("A {}", d.a.name), format!("B {}", d.b.name)],
            rows: sample_rows,
        });
        token_view(ctx, &tok, &d);

        // Claims.
        ctx.phase("report");
        let own = [acc_a[0], acc_b[1]];
        let retention = |acc: [f64; 2]| -> f64 {
            let r = |i: usize| if own[i] > 0.0 { acc[i] / own[i] } else { 0.0 };
            r(0).min(r(1))
        };
        let best = merged.iter().map(|&(_, a)| min2(a)).fold(0.0, f64::max);
        let acc = |name: &str| merged.iter().find(|(n, _)| *n == name).map_or([0.0; 2], |(_, a)| *a);
        let (average, fixed, tuned_acc, ties, dare) =
            (acc("average"), acc("task arithmetic, λ fixed"), acc("task arithmetic, λ*"), acc("TIES"), acc("DARE"));
        let expert_min = min2(acc_a).max(min2(acc_b));
        ctx.log(format!(
            "experts on their own task: A {:.3}, B {:.3}; on the other task: A {:.3}, B {:.3} (base {:.3}, {:.3})",
            acc_a[0], acc_b[1], acc_a[1], acc_b[0], base_acc[0], base_acc[1]
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
        title: "One sequence per task, one token per character (trained: the answer and <eos>)".into(),
        tokens,
        legend: "prompt = context only; trained = in the loss".into(),
    });
}
