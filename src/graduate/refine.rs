//! self-refine-loop's STaR round as a TRL experiment: the model's own
//! verified answers as SFT data, `SFTTrainer` from the run's SFT model with
//! the round's hyperparameters, and the drill's first-draft pass rate.
//!
//! STaR (Zelikman et al., arXiv:2203.14465) is rejection-sampling fine-tuning:
//! run the model, keep what a verifier passes, fine-tune on it. The round's
//! data are the run's own: the stream is replayed to the round
//! (`self_refine_loop::replay_to_star`: the same held-out set, the SFT
//! phase's batches drawn and dropped, the round's fresh problems), and the
//! run's kept SFT model plays the drill's loop on them
//! (`self_refine_loop::star_data`), so `data/train.jsonl` holds the sequences
//! the run's first STaR round trained on, in its order. A row is
//! `{"prompt": "47+38=", "completion": "580"}` (a kept answer as a first
//! draft) or `{"prompt": "47+38=570|", "completion": "^..>580"}` (the
//! refinement step that produced it: the loss on the critique and the
//! revision); TRL appends the end token and, with `completion_only_loss`,
//! trains the completion only — the drill's mask.
//!
//! `loss_parity.json` holds the round's first batch (the run's stream, the
//! drill's uniform draw) and agentlab's loss on it for the SFT model (the
//! run's own loss at that step) and the model after STaR; `eval_parity.json`
//! each model's greedy first drafts on the held-out problems.

use std::path::Path;

use anyhow::{anyhow, bail, Result};
use candle_core::Device;
use serde_json::json;

use super::{fill, masked_loss, write, Refused, Source};
use crate::drills::pipeline::ModelChoice;
use crate::drills::self_refine_loop::{self as refine, Gen, Params, AFTER_STAR, SFT};
use crate::envs::refine_arith::{passes, ALPHABET};
use crate::envs::refine_codec::Codec;
use crate::ml::data::Example;
use crate::ml::gpt::Gpt;
use crate::ml::tokenizer::{CharTokenizer, EOS};

const TRAIN_PY: &str = include_str!("../../assets/export/self-refine-loop/train.py");
const EVAL_PY: &str = include_str!("../../assets/export/self-refine-loop/eval.py");
const CHECK_LOSS_PY: &str = include_str!("../../assets/export/self-refine-loop/check_loss.py");
const README: &str = include_str!("../../assets/export/self-refine-loop/README.md");

/// A training sequence as TRL's prompt-completion row: the untrained prefix,
/// and the trained rest without the end token (TRL appends it).
fn row(codec: &Codec, e: &Example) -> Result<serde_json::Value> {
    let k = e.train.iter().position(|&t| t).ok_or_else(|| anyhow!("a STaR sequence with nothing in the loss"))?;
    if !e.train[k..].iter().all(|&t| t) || e.tokens.last() != Some(&EOS) {
        bail!("a STaR sequence whose loss is not its suffix and end token");
    }
    let prompt = codec.text(&e.tokens[..k]);
    let kind = if prompt.ends_with('=') { "draft" } else { "refinement" };
    Ok(json!({ "prompt": prompt, "completion": codec.text(&e.tokens[k..e.tokens.len() - 1]), "kind": kind }))
}

/// Greedy first drafts of `model` on `test`, and their pass rate.
fn drafts(model: &Gpt, g: &Gen, test: &[crate::envs::refine_arith::Problem]) -> Result<serde_json::Value> {
    let texts = g.drafts(model, test)?;
    let right = texts.iter().zip(test).filter(|(t, q)| passes(t, &q.answer())).count();
    Ok(json!({ "pass_rate": right as f64 / test.len().max(1) as f64, "drafts": texts }))
}

pub fn export_trl(src: &Source, dir: &Path, notes: &mut Vec<String>) -> Result<()> {
    let p: Params = crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))?;
    if p.model != ModelChoice::Tiny {
        return Err(anyhow!(Refused(crate::t!("export-refine-real"))));
    }
    let Some(run) = super::hf::kept(src, notes)? else {
        return Err(anyhow!(Refused(crate::t!("export-refine-pruned"))));
    };
    let tok = CharTokenizer::new(ALPHABET, &[]);
    let tok_json = super::tiny::char_tokenizer_json(&tok)?;
    let codec = Codec::Chars(tok);
    let g = Gen { codec: &codec, width: p.digits + 1 };
    let sft = run.tiny(SFT, &Device::Cpu)?;
    let star = run.tiny(AFTER_STAR, &Device::Cpu)?;
    super::hf::write_gpt2(&sft, &tok_json, &dir.join("sft"))?;
    super::hf::write_gpt2(&star, &tok_json, &dir.join("after-star"))?;
    notes.push(crate::t!(
        "export-refine-models",
        sft = "sft/",
        star = "after-star/",
        rounds = p.star_iters.to_string()
    ));

    // The run's first STaR round, replayed: its problems, the SFT model's loop on them, what the filter kept.
    let (problems, probs, mut rng) = refine::replay_to_star(&p, src.seed, &codec);
    let round = refine::star_data(&p, &sft, &g, &probs)?;
    if round.data.is_empty() {
        return Err(anyhow!(Refused(crate::t!("export-refine-no-data"))));
    }
    notes.push(crate::t!(
        "export-refine-round",
        problems = probs.len().to_string(),
        kept = round.kept.to_string(),
        seqs = round.data.len().to_string()
    ));
    let rows: Vec<serde_json::Value> = round.data.iter().map(|e| row(&codec, e)).collect::<Result<_>>()?;
    write(dir, "data/train.jsonl", rows.iter().map(|r| r.to_string() + "\n").collect::<String>())?;
    let test = &problems.test;
    let tests: String =
        test.iter().map(|q| json!({ "prompt": q.prompt(), "answer": q.answer() }).to_string() + "\n").collect();
    write(dir, "data/test.jsonl", tests)?;

    // The round's first batch: the drill's uniform draws from the same stream.
    let first: Vec<usize> = (0..p.batch).map(|_| rng.below(round.data.len())).collect();
    let picks: Vec<&Example> = first.iter().map(|&i| &round.data[i]).collect();
    let every: Vec<Example> = picks.iter().map(|e| Example::new(e.tokens.clone(), vec![true; e.len()])).collect();
    let every: Vec<&Example> = every.iter().collect();
    let mut models = Vec::new();
    for (name, m) in [("sft", &sft), ("after-star", &star)] {
        models
            .push(json!({ "dir": name, "loss": masked_loss(m, &picks)?, "loss_every_token": masked_loss(m, &every)? }));
    }
    let parity = json!({
        "what": "agentlab's masked cross-entropy of the first STaR round's first batch, per model",
        "rows": first.iter().map(|&i| &rows[i]).collect::<Vec<_>>(),
        "tokens": picks.iter().map(|e| &e.tokens).collect::<Vec<_>>(),
        "in_loss": picks.iter().map(|e| &e.train).collect::<Vec<_>>(),
        "models": models,
    });
    write(dir, "loss_parity.json", serde_json::to_string_pretty(&parity)?)?;
    let eval = json!({
        "what": "each model's greedy first drafts on the held-out problems, as agentlab writes them",
        "models": { "sft": drafts(&sft, &g, test)?, "after-star": drafts(&star, &g, test)? },
    });
    write(dir, "eval_parity.json", serde_json::to_string(&eval)?)?;

    super::write_experiment(src, dir)?;
    let py = |k: &str| super::py_value(&src.params, k);
    let drafts_n = rows.iter().filter(|r| r["kind"] == "draft").count();
    let mut v = super::header_vars(src);
    v.extend([
        ("STAR_STEPS", py("star_steps")?),
        ("STAR_LR", py("star_lr")?),
        ("STAR_WARMUP", (p.star_steps / 20).to_string()),
        ("STAR_ITERS", py("star_iters")?),
        ("BATCH", py("batch")?),
        ("ROUNDS", py("rounds")?),
        ("CRITIC", py("critic")?),
        ("VERIFIED_ONLY", py("star_verified_only")?),
        ("STAR_PROBLEMS", probs.len().to_string()),
        ("KEPT", round.kept.to_string()),
        ("WRONG_KEPT", round.wrong_kept.to_string()),
        ("DRAFTS_OK", round.drafts_ok.to_string()),
        ("SEQS", rows.len().to_string()),
        ("DRAFT_ROWS", drafts_n.to_string()),
        ("REFINE_ROWS", (rows.len() - drafts_n).to_string()),
        ("TEST_SIZE", test.len().to_string()),
        ("MAX_NEW", g.width.to_string()),
    ]);
    write(dir, "train.py", fill(TRAIN_PY, &v)?)?;
    write(dir, "eval.py", fill(EVAL_PY, &v)?)?;
    write(dir, "check_loss.py", fill(CHECK_LOSS_PY, &v)?)?;
    write(dir, "README.md", fill(README, &v)?)?;
    write(dir, "requirements.txt", super::grpo::REQUIREMENTS)
}
