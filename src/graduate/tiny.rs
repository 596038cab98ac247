//! The tiny GPT each exporting drill trains: the tokenizer it reads and the
//! model as the drill initialises it, before its first step. Shared by the
//! checkpoint export (`hf`) and the engine exports (`sft`, `dpo`, `grpo`).

use anyhow::{anyhow, Result};
use candle_core::Device;
use serde_json::json;

use super::Source;
use crate::ml::gpt::Gpt;
use crate::ml::tokenizer::{CharTokenizer, Tokenize};

/// The tokenizer a drill's tiny GPT reads.
pub fn tokenizer(drill: &str) -> Option<CharTokenizer> {
    match drill {
        "grpo-rlvr" => Some(CharTokenizer::new(crate::envs::rlvr::ALPHABET, &[])),
        "sft-basics" => Some(CharTokenizer::new(crate::drills::sft_basics::ALPHABET, &[])),
        "dpo-pairs" => Some(CharTokenizer::new(crate::drills::dpo_pairs::CHARS, &[])),
        "self-refine-loop" => Some(CharTokenizer::new(crate::envs::refine_arith::ALPHABET, &[])),
        _ => None,
    }
}

/// The `tokenizer.json` of a drill's tiny GPT: its characters, or the lab's
/// BPE for a drill that starts from the base model.
pub fn tokenizer_json(drill: &str) -> Result<String> {
    if drill == "react-tool-call-loop" {
        return crate::ml::base::shipped(&Device::Cpu)?.1.to_json();
    }
    let tok = tokenizer(drill).ok_or_else(|| anyhow!("no tokenizer known for {drill}"))?;
    char_tokenizer_json(&tok)
}

/// A drill's tiny GPT as the drill initialises it, before its first step
/// (grpo-rlvr: `addition::warm_start`'s `Gpt::new(config, seed)`).
pub fn start(src: &Source) -> Result<Gpt> {
    match src.drill.as_str() {
        "sft-basics" => {
            let p: crate::drills::sft_basics::Params =
                crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))?;
            return Ok(Gpt::new(crate::drills::sft_basics::gpt_config(&p), src.seed, &Device::Cpu)?);
        }
        "dpo-pairs" => {
            // Before its SFT phase: `Gpt::new(config, seed)`, as `dpo_pairs::warm_start` makes it.
            let p: crate::drills::dpo_pairs::Params =
                crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))?;
            let v = CharTokenizer::new(crate::drills::dpo_pairs::CHARS, &[]).vocab_size();
            let cfg = crate::ml::gpt::GptConfig::new(v, p.d_model, p.n_layers, p.n_heads, 3 * p.digits + 6);
            return Ok(Gpt::new(cfg, src.seed, &Device::Cpu)?);
        }
        "self-refine-loop" => {
            let p: crate::drills::self_refine_loop::Params =
                crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))?;
            return Ok(Gpt::new(crate::drills::self_refine_loop::gpt_config(&p), src.seed, &Device::Cpu)?);
        }
        "react-tool-call-loop" => {
            let p: crate::drills::react_tool_call_loop::Params =
                crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))?;
            return Ok(crate::drills::react_tool_call_loop::tiny_start(&p, src.seed, &Device::Cpu)?.0);
        }
        _ => {}
    }
    use crate::drills::grpo_rlvr::Params;
    let p: Params = crate::drills::parse_params(&src.params).map_err(|e| anyhow!(e))?;
    let tok = CharTokenizer::new(crate::envs::rlvr::ALPHABET, &[]);
    let context = 2 * p.digits + 2 + p.max_new + 2;
    let cfg = crate::ml::gpt::GptConfig::new(tok.vocab_size(), p.d_model, p.n_layers, p.n_heads, context);
    Ok(Gpt::new(cfg, src.seed, &Device::Cpu)?)
}

/// A character tokenizer as `tokenizer.json`: a BPE without merges (each
/// character its own token), the special tokens added, a `Fuse` decoder
/// (characters joined without spaces), nothing added around a sequence.
pub fn char_tokenizer_json(tok: &CharTokenizer) -> Result<String> {
    let n = tok.vocab_size() as u32;
    let specials = ["<pad>", "<bos>", "<eos>", "<unk>"];
    let added: Vec<serde_json::Value> = specials
        .iter()
        .enumerate()
        .map(|(i, s)| {
            json!({ "id": i, "content": s, "single_word": false, "lstrip": false, "rstrip": false,
                    "normalized": false, "special": true })
        })
        .collect();
    let vocab: serde_json::Map<String, serde_json::Value> =
        (0..n).map(|i| (tok.token(i).to_string(), json!(i))).collect();
    let j = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": null,
        "pre_tokenizer": null,
        "post_processor": null,
        "decoder": { "type": "Fuse" },
        "model": {
            "type": "BPE", "dropout": null, "unk_token": "<unk>", "continuing_subword_prefix": null,
            "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
            "vocab": vocab, "merges": []
        }
    });
    Ok(serde_json::to_string_pretty(&j)?)
}
