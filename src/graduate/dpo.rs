//! dpo-pairs as a TRL experiment: preference pairs in TRL's format,
//! `DPOTrainer` with β and the loss mapped, the held-out metric, and the DPO
//! loss checked equal.
//!
//! The drill's pairs are its SFT model's own samples, judged by the verifier,
//! so the export needs a run that kept its weights: the SFT model (`sft/`,
//! DPO's start and its frozen reference) is the run's, and the pairs are
//! sampled from it exactly as the drill samples them (`dpo_pairs::
//! export_pairs`) — fresh draws, not the run's (which it did not keep). A
//! row is `{"prompt": "47+38=", "chosen": "580", "rejected": "570"}`; TRL
//! appends the end token to both answers, as the drill's sequences end.
//!
//! `loss_parity.json` holds the first 256 training pairs as tokens and
//! agentlab's `rl::dpo::dpo_loss` on them with the run's DPO policy (`dpo/`)
//! and its reference (`sft/`). `check_loss.py` computes the same loss in
//! plain PyTorch and through TRL's `DPOTrainer`; `scripts/graduate-check.sh`
//! runs it.

use std::path::Path;

use anyhow::{anyhow, Result};
use candle_core::{Device, Tensor};
use serde_json::json;

use super::{fill, write, Refused, Source};
use crate::drills::dpo_pairs::{self, ExportPair, Params};
use crate::drills::pipeline::ModelChoice;
use crate::ml::gpt::Gpt;
use crate::ml::tokenizer::{CharTokenizer, Tokenize, EOS};
use crate::rl::dpo::{dpo_loss, DpoVariant};
use crate::rl::sequences::{logps_of, Seq};

const TRAIN_PY: &str = include_str!("../../assets/export/dpo-pairs/train.py");
const EVAL_PY: &str = include_str!("../../assets/export/dpo-pairs/eval.py");
const CHECK_LOSS_PY: &str = include_str!("../../assets/export/dpo-pairs/check_loss.py");
const README: &str = include_str!("../../assets/export/dpo-pairs/README.md");

/// Pairs in `loss_parity.json`.
pub const PARITY_PAIRS: usize = 256;

/// The drill's tokenizer.
pub fn tokenizer() -> CharTokenizer {
    super::tiny::tokenizer("dpo-pairs").expect("dpo-pairs reads a tiny GPT")
}

/// A pair's two sequences as TRL tokenizes them: the prompt, then the answer and the end token.
pub(crate) fn seqs(tok: &CharTokenizer, x: &ExportPair) -> (Seq, Seq) {
    let prompt = tok.encode(&x.problem.prompt());
    let answer = |s: &str| {
        let mut ids = tok.encode(s);
        ids.push(EOS);
        Seq { prompt: prompt.clone(), response: ids }
    };
    (answer(&x.chosen), answer(&x.rejected))
}

/// agentlab's DPO loss of `pairs` with `policy` against `reference` (the drill's `dpo_loss`).
pub fn loss(policy: &Gpt, reference: &Gpt, pairs: &[(Seq, Seq)], beta: f64, variant: DpoVariant) -> Result<f64> {
    let chosen: Vec<&Seq> = pairs.iter().map(|p| &p.0).collect();
    let rejected: Vec<&Seq> = pairs.iter().map(|p| &p.1).collect();
    let t = |v: Vec<f32>| Tensor::new(v, &Device::Cpu);
    let out = dpo_loss(
        &t(logps_of(policy, &chosen)?)?,
        &t(logps_of(policy, &rejected)?)?,
        &t(logps_of(reference, &chosen)?)?,
        &t(logps_of(reference, &rejected)?)?,
        beta,
        variant,
    )?;
    Ok(out.loss.to_scalar::<f32>()? as f64)
}

pub fn export_trl(src: &Source, dir: &Path, notes: &mut Vec<String>) -> Result<()> {
    let p: Params = crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))?;
    if p.model != ModelChoice::Tiny {
        return Err(anyhow!(Refused(crate::t!("export-dpo-real"))));
    }
    let Some(run) = super::hf::kept(src, notes)? else {
        return Err(anyhow!(Refused(crate::t!("export-dpo-pruned"))));
    };
    let tok = tokenizer();
    let sft = run.tiny(dpo_pairs::SFT_ARM, &Device::Cpu)?;
    let policy = run.tiny(dpo_pairs::DPO_ARM, &Device::Cpu)?;
    let tok_json = super::tiny::char_tokenizer_json(&tok)?;
    super::hf::write_gpt2(&sft, &tok_json, &dir.join("sft"))?;
    super::hf::write_gpt2(&policy, &tok_json, &dir.join("dpo"))?;
    notes.push(crate::t!("export-dpo-models", sft = "sft/", dpo = "dpo/"));
    notes.push(crate::t!("export-dpo-draws"));

    let (train, held, test) = dpo_pairs::export_pairs(&p, &sft, src.seed)?;
    if train.is_empty() || held.is_empty() {
        return Err(anyhow!(Refused(crate::t!("export-dpo-no-pairs"))));
    }
    let rows = |pairs: &[ExportPair]| -> String {
        pairs
            .iter()
            .map(|x| {
                json!({ "prompt": x.problem.prompt(), "chosen": x.chosen, "rejected": x.rejected }).to_string() + "\n"
            })
            .collect()
    };
    write(dir, "data/train.jsonl", rows(&train))?;
    write(dir, "data/test.jsonl", rows(&held))?;
    let problems: String =
        test.iter().map(|q| json!({ "prompt": q.prompt(), "answer": q.answer() }).to_string() + "\n").collect();
    write(dir, "data/heldout.jsonl", problems)?;

    let first: Vec<(Seq, Seq)> = train.iter().take(PARITY_PAIRS).map(|x| seqs(&tok, x)).collect();
    let parity = json!({
        "what": "agentlab's DPO loss (rl::dpo::dpo_loss) of the first training pairs: policy dpo/, reference sft/",
        "beta": p.beta,
        "loss_type": match p.loss { DpoVariant::Sigmoid => "sigmoid", DpoVariant::Ipo => "ipo" },
        "pairs": train.iter().take(PARITY_PAIRS).map(|x| json!({ "prompt": x.problem.prompt(), "chosen": x.chosen, "rejected": x.rejected })).collect::<Vec<_>>(),
        "tokens": first.iter().map(|(c, r)| json!({ "prompt": c.prompt, "chosen": c.response, "rejected": r.response })).collect::<Vec<_>>(),
        "loss": loss(&policy, &sft, &first, p.beta, p.loss)?,
        // The same pairs with the policy as its own reference: ln 2 for sigmoid DPO.
        "loss_at_reference": loss(&sft, &sft, &first, p.beta, p.loss)?,
    });
    write(dir, "loss_parity.json", serde_json::to_string_pretty(&parity)?)?;

    super::write_experiment(src, dir)?;
    let py = |k: &str| super::py_value(&src.params, k);
    let mut v = super::header_vars(src);
    v.extend([
        ("STEPS", py("steps")?),
        ("BATCH", py("batch")?),
        ("LR", py("lr")?),
        ("WARMUP", crate::drills::pipeline::warmup(p.steps).to_string()),
        ("BETA", py("beta")?),
        ("BETA_COMPARE", py("beta_compare")?),
        ("LOSS", py("loss")?),
        ("SWAP", py("swap_labels")?),
        ("SAMPLES", py("samples")?),
        ("EVAL_SAMPLES", py("eval_samples")?),
        ("TEMPERATURE", py("temperature")?),
        ("MAX_NEW", (p.digits + 2).to_string()),
        ("PROMPTS", py("prompts")?),
        ("TRAIN_PAIRS", train.len().to_string()),
        ("TEST_PAIRS", held.len().to_string()),
        ("TEST_SIZE", test.len().to_string()),
    ]);
    write(dir, "train.py", fill(TRAIN_PY, &v)?)?;
    write(dir, "eval.py", fill(EVAL_PY, &v)?)?;
    write(dir, "check_loss.py", fill(CHECK_LOSS_PY, &v)?)?;
    write(dir, "README.md", fill(README, &v)?)?;
    write(dir, "requirements.txt", super::grpo::REQUIREMENTS)
}
