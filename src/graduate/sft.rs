//! sft-basics as a TRL experiment: the drill's data in TRL's prompt-completion
//! format, `SFTTrainer` with every drill parameter mapped, the held-out metric,
//! and the loss checked equal.
//!
//! The data are the drill's own: every pair (a, b) with a, b < 100, shuffled
//! by the run's seed and split into `holdout` held-out pairs and the training
//! pairs (`sft_basics::split`). A row is `{"prompt": "47+38=", "completion":
//! "580"}`; TRL appends the end token to the completion and, with
//! `completion_only_loss`, puts only the completion in the loss — the drill's
//! `mask_prompt`. With `mask_prompt` off the drill trains on every token, and
//! the export sets `completion_only_loss=False`.
//!
//! `loss_parity.json` holds the drill's first batch (the same draws as its
//! step 0) and agentlab's masked cross-entropy on it for the starting model
//! (`start/`, `Gpt::new(config, seed)` as the drill makes it) and, for a run
//! that kept its weights, the trained model (`trained/`). `check_loss.py`
//! tokenizes the rows with TRL's own SFT pipeline and computes the same loss
//! in transformers; `scripts/graduate-check.sh` runs it.

use std::path::Path;

use anyhow::{anyhow, Result};
use candle_core::Device;
use serde_json::json;

use super::{fill, write, Source};
use crate::drills::sft_basics::{self, Params};
use crate::ml::data::{batch, Example};
use crate::ml::gpt::Gpt;
use crate::ml::loss::masked_cross_entropy;
use crate::ml::tokenizer::CharTokenizer;

const TRAIN_PY: &str = include_str!("../../assets/export/sft-basics/train.py");
const EVAL_PY: &str = include_str!("../../assets/export/sft-basics/eval.py");
const CHECK_LOSS_PY: &str = include_str!("../../assets/export/sft-basics/check_loss.py");
const README: &str = include_str!("../../assets/export/sft-basics/README.md");

/// The drill's tokenizer.
pub fn tokenizer() -> CharTokenizer {
    super::tiny::tokenizer("sft-basics").expect("sft-basics reads a tiny GPT")
}

fn params(src: &Source) -> Result<Params> {
    crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))
}

/// The drill's tiny GPT before its first step.
pub fn start(src: &Source) -> Result<Gpt> {
    super::tiny::start(src)
}

/// agentlab's loss on `examples` (the drill's `masked_cross_entropy` on a padded batch).
pub fn loss(model: &Gpt, examples: &[Example]) -> Result<f64> {
    let picks: Vec<&Example> = examples.iter().collect();
    let (x, y) = batch(&picks, &Device::Cpu)?;
    Ok(masked_cross_entropy(&model.forward(&x)?, &y)?.to_scalar::<f32>()? as f64)
}

pub fn export_trl(src: &Source, dir: &Path, notes: &mut Vec<String>) -> Result<()> {
    let p = params(src)?;
    let tok = tokenizer();
    let (test, train, mut rng) = sft_basics::split(src.seed, p.holdout);
    let row = |&(a, b): &(u32, u32)| {
        let (prompt, completion) = sft_basics::texts(a, b, p.reverse_answer);
        json!({ "prompt": prompt, "completion": completion })
    };
    let jsonl = |rows: &[(u32, u32)]| -> String { rows.iter().map(|r| row(r).to_string() + "\n").collect() };
    write(dir, "data/train.jsonl", jsonl(&train))?;
    write(dir, "data/test.jsonl", jsonl(&test))?;

    // The drill's first batch: the same draws as its step 0.
    let first: Vec<(u32, u32)> = (0..p.batch).map(|_| train[rng.below(train.len())]).collect();
    let examples: Vec<Example> =
        first.iter().map(|&(a, b)| sft_basics::example(&tok, a, b, p.reverse_answer, p.mask_prompt)).collect();
    let every: Vec<Example> =
        first.iter().map(|&(a, b)| sft_basics::example(&tok, a, b, p.reverse_answer, false)).collect();
    let start = start(src)?;
    let tok_json = super::tiny::char_tokenizer_json(&tok)?;
    super::hf::write_gpt2(&start, &tok_json, &dir.join("start"))?;
    notes.push(crate::t!("export-start-model", dir = "start/"));
    let mut models =
        vec![json!({ "dir": "start", "loss": loss(&start, &examples)?, "loss_every_token": loss(&start, &every)? })];
    // A run that kept its weights adds its trained model; one without (pruned, or never kept) exports the rest.
    let kept = super::hf::kept_if_any(src, notes)?;
    if let Some(run) = kept {
        let trained = run.tiny(sft_basics::TRAINED_ARM, &Device::Cpu)?;
        super::hf::write_gpt2(&trained, &tok_json, &dir.join("trained"))?;
        notes.push(crate::t!("export-trained-model", dir = "trained/"));
        models.push(json!({ "dir": "trained", "loss": loss(&trained, &examples)?, "loss_every_token": loss(&trained, &every)? }));
    }
    let parity = json!({
        "what": "agentlab's masked cross-entropy of the drill's first batch (step 0), per model",
        "mask_prompt": p.mask_prompt,
        "rows": first.iter().map(row).collect::<Vec<_>>(),
        "tokens": examples.iter().map(|e| &e.tokens).collect::<Vec<_>>(),
        "in_loss": examples.iter().map(|e| &e.train).collect::<Vec<_>>(),
        "models": models,
    });
    write(dir, "loss_parity.json", serde_json::to_string_pretty(&parity)?)?;

    super::write_experiment(src, dir)?;
    let py = |k: &str| super::py_value(&src.params, k);
    let mut v = super::header_vars(src);
    v.extend([
        ("STEPS", py("steps")?),
        ("BATCH", py("batch")?),
        ("LR", py("lr")?),
        ("WARMUP", py("warmup")?),
        ("MASK_PROMPT", py("mask_prompt")?),
        ("REVERSE", py("reverse_answer")?),
        ("HOLDOUT", test.len().to_string()),
        ("TRAIN_SIZE", train.len().to_string()),
    ]);
    write(dir, "train.py", fill(TRAIN_PY, &v)?)?;
    write(dir, "eval.py", fill(EVAL_PY, &v)?)?;
    write(dir, "check_loss.py", fill(CHECK_LOSS_PY, &v)?)?;
    write(dir, "README.md", fill(README, &v)?)?;
    write(dir, "requirements.txt", super::grpo::REQUIREMENTS)
}
