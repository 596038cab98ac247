//! `lora-vs-full`: the lab's pretrained base model fine-tuned on a new task
//! three ways — every weight (full fine-tuning), and LoRA adapters of a low
//! and a higher rank on a frozen base ("LoRA: Low-Rank Adaptation of Large
//! Language Models", Hu et al., arXiv:2106.09685; "LoRA Learns Less and
//! Forgets Less", Biderman et al., arXiv:2405.09673).
//!
//! 1. **data** — the new task is a *cipher*: a word of `word_len` symbols
//!    over the first `symbols` characters of `inputs` (letters by default),
//!    then `=`, is answered with every symbol replaced by its image under a
//!    fixed random table drawn from the seed, written in `outputs` (digits by
//!    default; a cyclic shift along a random order, so no symbol keeps its
//!    index): `abif=` → `4207`. The base already copies (its pretraining text
//!    repeats names and numbers); what it must learn is a table of `symbols`
//!    substitutions, an update whose rank grows with `symbols`. Held-out
//!    words are never trained on. The base task is the base's own: next-token
//!    loss on fresh pretraining text (`base::text_line`), a fixed set of
//!    packed sequences.
//! 2. **arms** — from the same shipped base (`src/ml/base.rs`): full
//!    fine-tuning (every parameter, AdamW at `full_lr`), and LoRA of rank
//!    `rank_low` and `rank_high` on every block matrix (`src/ml/lora_gpt.rs`,
//!    `W₀ + (α/r)·B·A`, AdamW at `lora_lr` on A and B only). Same steps,
//!    batches and data for all three.
//! 3. **evaluate** — greedy held-out character accuracy on the new task and
//!    the base-task loss, before and after, per arm; trainable parameters
//!    and the optimizer state they need.

use anyhow::Result;
use serde::Deserialize;

use super::keep::Role as Arms;
use super::try_it::{KeptRun, TrySession};
use super::{RunCtx, TypedDrill, View};
use crate::envs::strings::{answer_ids, char_example, prompt_ids};
use crate::ml::base;
use crate::ml::data::{batch, Example};
use crate::ml::gpt::Gpt;
use crate::ml::lm::CausalLm;
use crate::ml::lora_gpt::{is_target_weight, GptLora, ADAM_BYTES_PER_PARAM, TARGETS};
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{Bpe, EOS};
use crate::ml::train::{TrainConfig, Trainer};

mod tried;

pub struct LoraVsFull;

/// The characters a side of the cipher is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Alphabet {
    /// `a`, `b`, … (single letters: tokens the base's own text rarely uses alone).
    Letters,
    /// `0`, `1`, … (digits: tokens every number in the base's text is made of).
    Digits,
}

impl Alphabet {
    fn char(self, i: usize) -> char {
        match self {
            Alphabet::Letters => LETTERS[i] as char,
            Alphabet::Digits => (b'0' + i as u8) as char,
        }
    }
}

/// What the full fine-tuning arm updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FullTrains {
    /// Every parameter: embeddings, norms, biases and the block matrices.
    All,
    /// Only the weight matrices LoRA adapts (`TARGETS` in every block), at
    /// full rank: the same place as LoRA's update, without its rank limit.
    Matrices,
}

/// `drills/lora-vs-full/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub inputs: Alphabet,
    pub outputs: Alphabet,
    pub symbols: usize,
    pub word_len: usize,
    pub holdout: usize,
    pub steps: usize,
    pub batch: usize,
    pub full_lr: f64,
    pub full_trains: FullTrains,
    pub lora_lr: f64,
    pub rank_low: usize,
    pub rank_high: usize,
    pub alpha: f64,
    pub base_seqs: usize,
    pub evals: usize,
}

const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

/// The new task: words over `symbols` characters and a fixed substitution.
struct Cipher {
    inputs: Alphabet,
    /// `map[i]`: the character that replaces input character `i`.
    map: Vec<char>,
    word_len: usize,
}

impl Cipher {
    /// A random permutation of the first `k` letters with no fixed point.
    fn new(k: usize, inputs: Alphabet, outputs: Alphabet, word_len: usize, rng: &mut Rng) -> Cipher {
        let mut order: Vec<usize> = (0..k).collect();
        rng.shuffle(&mut order);
        // A cyclic shift along a random order: a derangement for every k ≥ 2.
        let mut map = vec![' '; k];
        for i in 0..k {
            map[order[i]] = outputs.char(order[(i + 1) % k]);
        }
        Cipher { inputs, map, word_len }
    }

    fn word(&self, rng: &mut Rng) -> String {
        (0..self.word_len).map(|_| self.inputs.char(rng.below(self.map.len()))).collect()
    }

    fn prompt(&self, word: &str) -> String {
        format!("{word}=")
    }

    fn answer(&self, word: &str) -> String {
        word.chars().map(|c| self.map[(0..self.map.len()).find(|&i| self.inputs.char(i) == c).unwrap_or(0)]).collect()
    }
}

/// One arm's measurements.
struct ArmResult {
    name: String,
    trainable: usize,
    acc: f64,
    base_loss: f64,
    /// How far the adapted block matrices moved: ‖W − W₀‖ / ‖W₀‖ over all of them.
    moved: f64,
}

/// ‖W − W₀‖_F / ‖W₀‖_F over the block matrices LoRA adapts (`TARGETS`),
/// the same matrices for every arm: how far an arm moved the shared weights.
fn moved(base: &Gpt, tuned: &Gpt) -> Result<f64> {
    let (b, t) = (base.vars(), tuned.vars());
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (name, w0) in b.iter().filter(|(n, _)| is_target_weight(n)) {
        let w = t.get(name).ok_or_else(|| anyhow::anyhow!("{name} missing from the tuned model"))?;
        diff += (w.as_tensor() - w0.as_tensor())?.sqr()?.sum_all()?.to_scalar::<f32>()? as f64;
        norm += w0.as_tensor().sqr()?.sum_all()?.to_scalar::<f32>()? as f64;
    }
    Ok((diff / norm.max(1e-30)).sqrt())
}

/// Mean next-token loss on the base task's fixed sequences.
fn base_loss(model: &dyn CausalLm, seqs: &[Example]) -> Result<f64> {
    let mut total = 0.0;
    for chunk in seqs.chunks(8) {
        let refs: Vec<&Example> = chunk.iter().collect();
        let (x, y) = batch(&refs, model.device())?;
        let loss = candle_core::Tensor::detach(&model.masked_loss(&x, &y)?);
        total += loss.to_scalar::<f32>()? as f64 * chunk.len() as f64;
    }
    Ok(total / seqs.len().max(1) as f64)
}

/// Greedy held-out character accuracy: the share of answer letters in place.
fn char_accuracy(model: &Gpt, tok: &Bpe, c: &Cipher, words: &[String]) -> Result<f64> {
    let prompts: Vec<Vec<u32>> = words.iter().map(|w| prompt_ids(tok, &c.prompt(w))).collect();
    let out = generate(model, &prompts, &GenConfig::greedy(c.word_len + 1, vec![EOS]), &mut Rng::new(0))?;
    let mut right = 0usize;
    for (w, o) in words.iter().zip(&out) {
        let gold = answer_ids(tok, &c.answer(w));
        right += gold.iter().take(c.word_len).zip(o).filter(|(g, o)| g == o).count();
    }
    Ok(right as f64 / (words.len() * c.word_len).max(1) as f64)
}

enum Arm {
    Full,
    Lora(usize),
}

impl Arm {
    fn name(&self) -> String {
        match self {
            Arm::Full => "full".into(),
            Arm::Lora(r) => format!("LoRA r={r}"),
        }
    }
}

struct Setup<'a> {
    p: &'a Params,
    base: &'a Gpt,
    tok: &'a Bpe,
    cipher: &'a Cipher,
    held: &'a [String],
    text: &'a [Example],
}

/// Train one arm from the base; chart its new-task accuracy and base loss.
fn train_arm(s: &Setup, ctx: &mut RunCtx, arm: &Arm, k: usize) -> Result<ArmResult> {
    let p = s.p;
    let name = arm.name();
    let (full, lora) = match arm {
        Arm::Full => (Some(s.base.fork(ctx.seed)?), None),
        Arm::Lora(r) => (None, Some(GptLora::new(s.base, *r, p.alpha, &TARGETS, ctx.seed)?)),
    };
    let model: &dyn CausalLm = match (&full, &lora) {
        (Some(m), _) => m,
        (_, Some(l)) => l,
        _ => unreachable!("one of the two is built"),
    };
    let lr = if full.is_some() { p.full_lr } else { p.lora_lr };
    let vars = match (&full, p.full_trains) {
        (Some(m), FullTrains::Matrices) => m.vars_where(is_target_weight),
        _ => model.trainable_vars(),
    };
    let trainable: usize = vars.iter().map(|v| v.elem_count()).sum();
    let mut trainer = Trainer::new(vars, TrainConfig::cosine(lr, super::pipeline::warmup(p.steps), p.steps))?;
    // Every arm sees the same batches.
    let mut rng = Rng::new(ctx.seed ^ 0x10a);
    let probe = &s.held[..s.held.len().min(64)];
    let eval = |ctx: &mut RunCtx, step: usize| -> Result<()> {
        let merged;
        let m: &Gpt = match (&full, &lora) {
            (Some(m), _) => m,
            (_, Some(l)) => {
                merged = l.merged()?;
                &merged
            }
            _ => unreachable!("one of the two is built"),
        };
        ctx.metric(step, &format!("held-out accuracy · {name}"), char_accuracy(m, s.tok, s.cipher, probe)?);
        ctx.metric(step, &format!("base-task loss · {name}"), base_loss(m, s.text)?);
        Ok(())
    };
    let every = (p.steps / p.evals.max(1)).max(1);
    eval(ctx, 0)?;
    for step in 0..p.steps {
        ctx.check_cancel()?;
        let examples: Vec<Example> = (0..p.batch)
            .map(|_| {
                let mut w = s.cipher.word(&mut rng);
                while s.held.binary_search(&w).is_ok() {
                    w = s.cipher.word(&mut rng);
                }
                char_example(s.tok, &s.cipher.prompt(&w), &s.cipher.answer(&w))
            })
            .collect();
        let picks: Vec<&Example> = examples.iter().collect();
        let st = trainer.sft_step(model, &picks)?;
        ctx.metric(step, &format!("new-task loss · {name}"), st.loss);
        if (step + 1) % every == 0 && step + 1 < p.steps {
            eval(ctx, step + 1)?;
        }
        ctx.progress(k * p.steps + step + 1, 3 * p.steps, 0);
    }
    let merged = match &lora {
        Some(l) => Some(l.merged()?),
        None => None,
    };
    let m = full.as_ref().or(merged.as_ref()).expect("one of the two is built");
    ctx.keep(tried::TRAINED[k], Arms::Trained, m)?;
    let acc = char_accuracy(m, s.tok, s.cipher, s.held)?;
    let loss = base_loss(m, s.text)?;
    ctx.metric(p.steps, &format!("held-out accuracy · {name}"), char_accuracy(m, s.tok, s.cipher, probe)?);
    ctx.metric(p.steps, &format!("base-task loss · {name}"), loss);
    Ok(ArmResult { name, trainable, acc, base_loss: loss, moved: moved(s.base, m)? })
}

impl TypedDrill for LoraVsFull {
    const ID: &'static str = "lora-vs-full";
    const CLAIMS: &'static [&'static str] =
        &["lora_forgets_more_here", "lora_gain_share", "lora_param_share", "rank1_falls_short"];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        let most = if p.inputs == Alphabet::Digits || p.outputs == Alphabet::Digits { 10 } else { 26 };
        if p.symbols > most {
            return Err(crate::t!("view-lora-check-symbols", symbols = p.symbols.to_string(), most = most.to_string()));
        }
        if p.rank_low > p.rank_high {
            return Err(crate::t!(
                "view-lora-check-ranks",
                low = p.rank_low.to_string(),
                high = p.rank_high.to_string()
            ));
        }
        let all = (p.symbols as f64).powi(p.word_len as i32);
        if (p.holdout as f64) * 2.0 > all {
            return Err(crate::t!("view-lora-check-holdout", held = p.holdout.to_string(), all = all.to_string()));
        }
        Ok(())
    }

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let mut rng = Rng::new(ctx.seed);
        ctx.phase(crate::t!("view-phase-data"));
        let (base, tok) = base::shipped(&ctx.device)?;
        ctx.keep(tried::BASE, Arms::Start, &base)?;
        let cipher = Cipher::new(p.symbols, p.inputs, p.outputs, p.word_len, &mut rng.fork(1));
        let mut held = std::collections::BTreeSet::new();
        let mut wr = rng.fork(2);
        while held.len() < p.holdout {
            held.insert(cipher.word(&mut wr));
        }
        let held: Vec<String> = held.into_iter().collect();
        // The base task: fresh pretraining text, never trained on here.
        let mut tr = rng.fork(3);
        let text: Vec<Example> = (0..p.base_seqs).map(|_| base::packed_example(&tok, &mut tr, 128)).collect();
        let table: String = cipher
            .map
            .iter()
            .enumerate()
            .map(|(i, &m)| format!("{}→{m}", cipher.inputs.char(i)))
            .collect::<Vec<_>>()
            .join(" ");
        ctx.view(View::table(
            crate::t!("view-lora-data-title"),
            [crate::t!("view-col-prompt"), crate::t!("view-col-target")],
            held.iter().take(6).map(|w| vec![cipher.prompt(w), cipher.answer(w)]).collect(),
        ));
        ctx.log(crate::t!(
            "view-lora-log-data",
            symbols = p.symbols.to_string(),
            table = table,
            held = held.len().to_string(),
            seqs = text.len().to_string()
        ));
        let base_acc = char_accuracy(&base, &tok, &cipher, &held)?;
        let base_l = base_loss(&base, &text)?;
        ctx.log(crate::t!(
            "view-lora-log-base",
            params = base.num_params().to_string(),
            acc = format!("{base_acc:.3}"),
            loss = format!("{base_l:.3}")
        ));

        let s = Setup { p, base: &base, tok: &tok, cipher: &cipher, held: &held, text: &text };
        let mut results = Vec::new();
        for (k, arm) in [Arm::Full, Arm::Lora(p.rank_low), Arm::Lora(p.rank_high)].iter().enumerate() {
            ctx.phase(crate::t!("view-lora-phase-arm", arm = arm.name()));
            results.push(train_arm(&s, ctx, arm, k)?);
        }

        ctx.phase(crate::t!("view-phase-report"));
        let total = base.num_params();
        let rows = results
            .iter()
            .map(|r| {
                vec![
                    r.name.clone(),
                    r.trainable.to_string(),
                    format!("{:.2}%", 100.0 * r.trainable as f64 / total as f64),
                    format!("{:.1}", (r.trainable * ADAM_BYTES_PER_PARAM) as f64 / 1024.0),
                    format!("{:.3}", r.acc),
                    format!("{:+.3}", r.base_loss - base_l),
                    format!("{:.3}", r.moved),
                ]
            })
            .collect();
        ctx.view(View::table(
            crate::t!("view-lora-arms-title", params = total.to_string(), acc = format!("{base_acc:.3}")),
            [
                crate::t!("view-lora-col-arm"),
                crate::t!("view-lora-col-trainable"),
                crate::t!("view-lora-col-share"),
                crate::t!("view-lora-col-adam"),
                crate::t!("view-lora-col-acc"),
                crate::t!("view-lora-col-rise"),
                crate::t!("view-lora-col-moved"),
            ],
            rows,
        ));
        ctx.view(View::Text {
            title: crate::t!("view-lora-why-title"),
            body: crate::t!("view-lora-why-body", params = total.to_string()),
        });
        let [full, low, high] = [&results[0], &results[1], &results[2]];
        let gain = |r: &ArmResult| r.acc - base_acc;
        let rise = |r: &ArmResult| r.base_loss - base_l;
        ctx.claim("lora_gain_share", gain(high) / gain(full).max(1e-9))?;
        ctx.claim("rank1_falls_short", high.acc - low.acc)?;
        ctx.claim("lora_forgets_more_here", rise(high) - rise(full))?;
        ctx.claim("lora_param_share", high.trainable as f64 / total as f64)?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &candle_core::Device) -> Result<Box<dyn TrySession>> {
        tried::open(p, run, device)
    }
}
