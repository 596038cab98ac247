//! The lab's base model: a tiny GPT *pretrained by agentlab itself*, shipped
//! in `assets/models/base/` so that the agent drills start where real
//! post-training starts — from a pretrained model, not from random weights.
//!
//! Why it exists: a tool-using agent must copy names into its actions and
//! results into its answers. Learning to copy (induction) from scratch takes
//! a tiny model thousands of steps, far more than a one-minute drill. So
//! `agentlab pretrain` trains the base once (minutes on a CPU) on plain text
//! about *made-up* places — facts in varied sentences, sums, repeated lists —
//! and the drills fine-tune it. The pretraining text never mentions the
//! shipped world (`assets/world/facts.tsv`) nor the drills' formats
//! (`Action:`, `search[…]`): those are what SFT and RL teach.
//!
//! The tokenizer is a byte-level BPE trained on the same text plus samples of
//! the drills' formats (training a tokenizer teaches the model nothing; it
//! only decides how text is cut into tokens).

use std::path::Path;

use anyhow::{Context, Result};
use candle_core::{Device, Tensor};

use super::data::{batch, Example};
use super::gpt::{Gpt, GptConfig};
use super::loss::masked_cross_entropy;
use super::optim::{clip_grad_norm, AdamW, AdamWConfig, LrSchedule};
use super::rng::Rng;
use super::tokenizer::{Bpe, Tokenize, BOS, EOS};

/// Shape of the shipped base model (the vocabulary comes from the tokenizer).
pub fn base_config(vocab: usize) -> GptConfig {
    GptConfig::new(vocab, 128, 3, 4, 160)
}

pub const VOCAB: usize = 512;

/// A made-up word from the same syllables as the world's place names.
pub fn word(rng: &mut Rng) -> String {
    const ON: [&str; 20] =
        ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "kr", "tr", "st", "sk"];
    const VO: [&str; 7] = ["a", "e", "i", "o", "u", "au", "ei"];
    const CO: [&str; 9] = ["", "", "n", "r", "l", "s", "th", "nd", "sk"];
    let mut w = String::new();
    for _ in 0..rng.range(1, 3) {
        w.push_str(ON[rng.below(ON.len())]);
        w.push_str(VO[rng.below(VO.len())]);
        w.push_str(CO[rng.below(CO.len())]);
    }
    let mut c = w.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

/// One line of pretraining text. Predicting a repeat means looking back and
/// copying, which is the point.
pub fn text_line(rng: &mut Rng) -> String {
    let (p, q) = (word(rng), word(rng));
    let n = rng.range(1000, 9999);
    let y = rng.range(1000, 1999);
    let colour = *rng.choose(&["red", "blue", "green", "gold", "grey", "white", "black", "violet"][..]);
    let attr = *rng.choose(&["population", "founded", "capital", "flag"][..]);
    let (a, b) = (rng.range(100, 999), rng.range(10, 99));
    let op = *rng.choose(&['+', '-', '*'][..]);
    match rng.below(8) {
        0 => format!("The population of {p} is {n}. {p} has {n} people."),
        1 => format!("{p} was founded in {y}; the capital of {p} is {q}."),
        2 => format!("The flag of {p} is {colour}, and {q} has a {colour} flag too."),
        3 => format!("Note: {attr} of {p}. Again: {attr} of {p}."),
        4 => format!("{a} {op} {b} is written {a} {op} {b}."),
        5 => format!("{p}, {q}, {n}. Repeat: {p}, {q}, {n}."),
        6 => format!("{attr} of {p} {op} {b}? Say it again: {attr} of {p} {op} {b}."),
        _ => format!("Is {q} the capital of {p}? Yes, {q} is the capital of {p}."),
    }
}

/// Samples of the drills' text formats, for the tokenizer only.
fn format_samples(rng: &mut Rng) -> Vec<String> {
    let (p, q) = (word(rng), word(rng));
    let n = rng.range(1000, 9999);
    vec![
        format!("Question: population of {p} + 12?\n"),
        format!("Action: lookup[population of {p}]\n"),
        format!("Observation: {n}\n"),
        format!("Action: calc[{n} + 12]\n"),
        "Observation: error: no fact for flag of Nowhere\n".to_string(),
        format!("Final Answer: {q}\n"),
        format!("Q: capital of {p}?\n"),
        format!("search[{p}]\n"),
        format!("Obs: {p} capital {q}, flag red\n"),
        format!("answer[{q}]\n"),
    ]
}

/// Train the lab's BPE tokenizer (deterministic for a seed).
pub fn train_tokenizer(seed: u64) -> Result<Bpe> {
    let mut rng = Rng::new(seed);
    let mut corpus: Vec<String> = (0..20000).map(|_| text_line(&mut rng)).collect();
    for _ in 0..3000 {
        corpus.extend(format_samples(&mut rng));
    }
    super::tokenizer::train_bpe(&corpus, VOCAB)
}

/// Sequences of whole lines packed up to `len` tokens, every token a target.
pub fn packed_example(tok: &Bpe, rng: &mut Rng, len: usize) -> Example {
    let mut ids = vec![BOS];
    loop {
        let mut line = tok.encode(&text_line(rng));
        line.push(EOS);
        if ids.len() + line.len() > len {
            break;
        }
        ids.extend(line);
    }
    Example::all_trained(ids)
}

/// Pretrain a base model: next-token prediction on packed text lines.
/// `report(step, loss)` is called every step (for progress output).
pub fn pretrain(
    tok: &Bpe,
    steps: usize,
    seed: u64,
    device: &Device,
    mut report: impl FnMut(usize, f64),
) -> Result<Gpt> {
    let cfg = base_config(tok.vocab_size());
    let model = Gpt::new(cfg.clone(), seed, device)?;
    let vars: Vec<_> = model.vars().into_values().collect();
    let lr = 2e-3;
    let mut opt = AdamW::new(vars.clone(), AdamWConfig { lr, weight_decay: 0.01, ..Default::default() })?;
    let schedule = LrSchedule { peak: lr, min: lr * 0.05, warmup: 200, total: steps };
    let mut rng = Rng::new(seed ^ 0x707e);
    for step in 0..steps {
        let batch_ex: Vec<Example> = (0..32).map(|_| packed_example(tok, &mut rng, 128)).collect();
        let refs: Vec<&Example> = batch_ex.iter().collect();
        let (x, y) = batch(&refs, device)?;
        let loss = masked_cross_entropy(&model.forward(&x)?, &y)?;
        let v = loss.to_scalar::<f32>()? as f64;
        crate::ml::optim::check_finite("pretraining loss", v, step)?;
        let mut grads = loss.backward()?;
        clip_grad_norm(&mut grads, &vars, 1.0)?;
        opt.set_lr(schedule.at(step));
        opt.step(&grads)?;
        report(step, v);
    }
    Ok(model)
}

/// Save model and tokenizer to `dir` (`config.json`, `model.safetensors`, `tokenizer.json`).
pub fn save(model: &Gpt, tok: &Bpe, dir: &Path) -> Result<()> {
    super::checkpoint::save(model, dir)?;
    std::fs::write(dir.join("tokenizer.json"), tok.to_json()?)
        .with_context(|| format!("writing {}/tokenizer.json", dir.display()))?;
    Ok(())
}

const SHIPPED_CONFIG: &str = include_str!("../../assets/models/base/config.json");
const SHIPPED_WEIGHTS: &[u8] = include_bytes!("../../assets/models/base/model.safetensors");
const SHIPPED_TOKENIZER: &str = include_str!("../../assets/models/base/tokenizer.json");

/// The shipped base model and its tokenizer (compiled into the binary).
pub fn shipped(device: &Device) -> Result<(Gpt, Bpe)> {
    let cfg: GptConfig = serde_json::from_str(SHIPPED_CONFIG).context("the shipped base config")?;
    let model = Gpt::new(cfg, 0, device)?;
    let tensors = candle_core::safetensors::load_buffer(SHIPPED_WEIGHTS, device).context("the shipped base weights")?;
    for (name, var) in model.vars() {
        let t: &Tensor = tensors.get(&name).with_context(|| format!("the shipped base has no {name}"))?;
        var.set(t)?;
    }
    let tok = Bpe::from_json(SHIPPED_TOKENIZER)?;
    anyhow::ensure!(tok.vocab_size() == model.cfg.vocab, "the shipped tokenizer and model disagree on the vocabulary");
    Ok((model, tok))
}
