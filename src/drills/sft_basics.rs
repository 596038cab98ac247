//! `sft-basics`: the whole supervised fine-tuning loop on one screen.
//!
//! A tiny GPT learns two-digit addition from scratch: prompts `a+b=`, answers
//! of three digits, written least-significant digit first by default (so the
//! carry is known when each digit is written). The loss is next-token
//! cross-entropy on the answer tokens only (the prompt is label-masked).
//! Held-out accuracy is measured by greedy generation on pairs never seen in
//! training, so it measures generalisation, not memory.

use anyhow::Result;
use candle_core::Device;
use serde::Deserialize;

use super::keep::Role as Arms;
use super::try_it::{KeptRun, TrySession};
use super::{check_heads, RunCtx, TokenCell, TokenKind, TypedDrill, View};
use crate::ml::data::{batch, Example};
use crate::ml::gpt::{Gpt, GptConfig};
use crate::ml::loss::masked_cross_entropy;
use crate::ml::optim::{clip_grad_norm, AdamW, AdamWConfig, LrSchedule};
use crate::ml::rng::Rng;
use crate::ml::sample::{generate, GenConfig};
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS};

mod tried;

pub struct SftBasics;

/// `drills/sft-basics/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub steps: usize,
    pub batch: usize,
    pub lr: f64,
    pub warmup: usize,
    pub d_model: usize,
    pub n_layers: usize,
    pub n_heads: usize,
    /// Write the sum least-significant digit first.
    pub reverse_answer: bool,
    /// Label-mask the prompt `a+b=` (train on the answer only).
    pub mask_prompt: bool,
    pub holdout: usize,
}

/// One example: prompt tokens and answer tokens.
struct Sum {
    prompt: Vec<u32>,
    answer: Vec<u32>,
}

/// The arm a run keeps its trained model as.
pub(crate) const TRAINED_ARM: &str = tried::TRAINED;

/// The drill's characters.
pub(crate) const ALPHABET: &str = "0123456789+=";

/// The prompt and the answer of `a + b` as text (the answer without its end token).
pub(crate) fn texts(a: u32, b: u32, reverse: bool) -> (String, String) {
    let digits = format!("{:03}", a + b);
    (format!("{a:02}+{b:02}="), if reverse { digits.chars().rev().collect() } else { digits })
}

/// Operand pairs (a, b).
pub(crate) type Pairs = Vec<(u32, u32)>;

/// The drill's data: every pair (a, b) with a, b < 100 shuffled by the run's
/// seed, split into the held-out pairs and the training pairs, and the random
/// stream the batches are then drawn from.
pub(crate) fn split(seed: u64, holdout: usize) -> (Pairs, Pairs, Rng) {
    let mut rng = Rng::new(seed);
    let mut pairs: Vec<(u32, u32)> = (0..100).flat_map(|a| (0..100).map(move |b| (a, b))).collect();
    rng.shuffle(&mut pairs);
    let (test, train) = pairs.split_at(holdout.min(pairs.len() / 2));
    (test.to_vec(), train.to_vec(), rng)
}

/// One training example: the prompt, then the answer and the end token;
/// with `mask_prompt` only the answer and the end token are in the loss.
pub(crate) fn example(tok: &CharTokenizer, a: u32, b: u32, reverse: bool, mask_prompt: bool) -> Example {
    encode(tok, a, b, reverse, mask_prompt).1
}

fn encode(tok: &CharTokenizer, a: u32, b: u32, reverse: bool, mask_prompt: bool) -> (Sum, Example) {
    let (prompt, digits) = texts(a, b, reverse);
    let prompt = tok.encode(&prompt);
    let mut answer = tok.encode(&digits);
    answer.push(EOS);
    let mut tokens = prompt.clone();
    tokens.extend(&answer);
    let train: Vec<bool> = (0..tokens.len()).map(|i| !mask_prompt || i >= prompt.len()).collect();
    (Sum { prompt, answer }, Example::new(tokens, train))
}

/// The tiny GPT's shape (the drill initialises it with `Gpt::new(config, seed)`).
pub(crate) fn gpt_config(p: &Params) -> GptConfig {
    GptConfig::new(CharTokenizer::new(ALPHABET, &[]).vocab_size(), p.d_model, p.n_layers, p.n_heads, 16)
}

impl TypedDrill for SftBasics {
    const ID: &'static str = "sft-basics";
    const CLAIMS: &'static [&'static str] = &["heldout_accuracy", "loss_drop"];
    type Params = Params;

    fn validate(p: &Params) -> Result<(), String> {
        check_heads(p.d_model, p.n_heads)
    }

    /// The one drill whose training loop is written out in full: batch,
    /// forward, loss, backward, clip, schedule, AdamW (every other drill calls
    /// `ml::train::Trainer::step`, which does the same).
    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let Params { steps, batch: batch_size, lr, warmup, reverse_answer: reverse, mask_prompt, holdout, .. } = *p;
        let (d, layers, heads) = (p.d_model, p.n_layers, p.n_heads);

        // Data: every pair (a, b) with a, b < 100; a random `holdout` of them is never trained on.
        ctx.phase(crate::t!("view-phase-data"));
        let tok = CharTokenizer::new(ALPHABET, &[]);
        let (test, train, mut rng) = split(ctx.seed, holdout);
        let train: Vec<(Sum, Example)> = train.iter().map(|&(a, b)| encode(&tok, a, b, reverse, mask_prompt)).collect();
        let test: Vec<(Sum, Example)> = test.iter().map(|&(a, b)| encode(&tok, a, b, reverse, mask_prompt)).collect();
        ctx.log(crate::t!(
            "view-sft-log-data",
            train = train.len().to_string(),
            held = test.len().to_string(),
            vocab = tok.vocab_size().to_string()
        ));
        let example = &train[0].1;
        ctx.view(View::Tokens {
            title: crate::t!("view-sft-example-title"),
            tokens: example
                .tokens
                .iter()
                .zip(&example.train)
                .enumerate()
                .map(|(i, (&t, &trained))| TokenCell {
                    text: if t == EOS { "⏎".into() } else { tok.token(t).to_string() },
                    kind: if i == 0 || !trained { TokenKind::Prompt } else { TokenKind::Trained },
                    value: None,
                })
                .collect(),
            legend: crate::t!("view-sft-example-legend"),
        });

        // Model and optimizer.
        let model = Gpt::new(gpt_config(p), ctx.seed, &ctx.device)?;
        // Try puts the random init beside the trained model: what the training bought.
        ctx.keep(tried::INIT, Arms::Start, &model)?;
        ctx.keep_live(tried::TRAINED, Arms::Trained, &model)?;
        ctx.log(crate::t!(
            "view-log-tiny-gpt",
            d = d.to_string(),
            layers = layers.to_string(),
            heads = heads.to_string(),
            params = model.num_params().to_string(),
            size = crate::numbers::count_short(model.num_params())
        ));
        let vars: Vec<_> = model.vars().into_values().collect();
        let mut opt = AdamW::new(vars.clone(), AdamWConfig { lr, weight_decay: 0.0, ..Default::default() })?;
        let schedule = LrSchedule { peak: lr, min: lr * 0.1, warmup, total: steps };

        let accuracy = |model: &Gpt, set: &[(Sum, Example)]| -> Result<f64> {
            let prompts: Vec<Vec<u32>> = set.iter().map(|(s, _)| s.prompt.clone()).collect();
            let out = generate(model, &prompts, &GenConfig::greedy(4, vec![EOS]), &mut Rng::new(0))?;
            Ok(set.iter().zip(&out).filter(|((s, _), o)| **o == s.answer).count() as f64 / set.len().max(1) as f64)
        };

        ctx.phase(crate::t!("view-phase-train"));
        let eval_every = (steps / 10).max(1);
        // A fixed slice of the held-out set, cheap enough to score during training.
        let probe = &test[..test.len().min(200)];
        let mut first_loss = None;
        let mut recent: Vec<f64> = Vec::new();
        let mut tokens_seen = 0u64;
        for step in 0..steps {
            ctx.check_cancel()?;
            let picks: Vec<&Example> = (0..batch_size).map(|_| &train[rng.below(train.len())].1).collect();
            tokens_seen += picks.iter().map(|e| e.len() as u64).sum::<u64>();
            let (x, y) = batch(&picks, &ctx.device)?;
            let loss = masked_cross_entropy(&model.forward(&x)?, &y)?;
            // A NaN or ∞ stops the run here, before the weights move.
            let loss_v = ctx.finite("loss", loss.to_scalar::<f32>()? as f64, step)?;
            let mut grads = loss.backward()?;
            let norm = ctx.finite("gradient norm", clip_grad_norm(&mut grads, &vars, 1.0)?, step)?;
            opt.set_lr(schedule.at(step));
            opt.step(&grads)?;
            first_loss.get_or_insert(loss_v);
            recent.push(loss_v);
            if recent.len() > 20 {
                recent.remove(0);
            }
            ctx.metric(step, "loss", loss_v);
            ctx.metric(step, "grad_norm", norm);
            ctx.metric(step, "lr", schedule.at(step));
            if (step + 1) % eval_every == 0 || step + 1 == steps {
                let acc = accuracy(&model, probe)?;
                ctx.metric(step, "heldout_acc", acc);
            }
            ctx.progress(step + 1, steps, tokens_seen);
        }

        ctx.phase(crate::t!("view-phase-evaluate"));
        let acc = accuracy(&model, &test)?;
        ctx.log(crate::t!("view-sft-log-heldout", n = test.len().to_string(), acc = format!("{acc:.3}")));
        let mut rows = Vec::new();
        let prompts: Vec<Vec<u32>> = test.iter().take(8).map(|(s, _)| s.prompt.clone()).collect();
        let out = generate(&model, &prompts, &GenConfig::greedy(4, vec![EOS]), &mut Rng::new(0))?;
        for ((s, _), o) in test.iter().take(8).zip(&out) {
            rows.push(vec![
                tok.decode(&s.prompt),
                tok.decode(&s.answer),
                tok.decode(o),
                if *o == s.answer { "✓".into() } else { "✗".into() },
            ]);
        }
        ctx.view(View::table(
            crate::t!("view-sft-samples-title"),
            [crate::t!("view-col-prompt"), crate::t!("view-col-target"), crate::t!("view-col-model"), String::new()],
            rows,
        ));
        let final_loss = recent.iter().sum::<f64>() / recent.len().max(1) as f64;
        ctx.claim("heldout_accuracy", acc)?;
        ctx.claim("loss_drop", final_loss / first_loss.unwrap_or(1.0))?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
        tried::open(p, run, device)
    }
}
