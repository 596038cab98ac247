//! A Llama-architecture GGUF file (llama.cpp's format: SmolLM2, Llama, …)
//! loaded for training: every tensor is dequantized to f32 into a `Var` of the
//! differentiable [`Llama`], the tokenizer and chat template come from the
//! file's own metadata ([`super::gguf_tokenizer`]).
//!
//! A GGUF holds key–value metadata (`general.architecture = "llama"`,
//! `llama.block_count`, `llama.attention.head_count_kv`, the tokenizer's
//! vocabulary and merges, …) and named tensors, most of them quantized (Q4_1:
//! blocks of 32 weights stored as 4-bit integers with one f16 scale and one f16
//! minimum; Q8_0: 8-bit with one scale). Dequantizing gives back an
//! approximation of the original weights, and LoRA trains on top of it: the
//! base stays frozen, so its quantization error is a fixed property of the
//! starting model, as in QLoRA ("QLoRA: Efficient Finetuning of Quantized
//! LLMs", arXiv:2305.14314), except that here the activations are f32.
//!
//! Names map to Hugging Face's (`blk.3.attn_q.weight` →
//! `model.layers.3.self_attn.q_proj.weight`, `token_embd` → `embed_tokens`, no
//! `output.weight` → tied embeddings). One detail matters: llama.cpp's
//! converter permutes the rows of `attn_q` and `attn_k` so that RoPE can rotate
//! *adjacent* pairs (dims 2i, 2i+1); the Hugging Face weights rotate dims `i`
//! and `i + head_dim/2` ("rotate half"). [`unpermute`] puts the rows back, and
//! the model keeps one RoPE convention whatever the file.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use candle_core::quantized::gguf_file::{Content, Value};
use candle_core::{DType, Device, Tensor};

use super::gguf_tokenizer::{bpe_from_gguf, ChatTemplate};
use super::llama::{Llama, LlamaConfig, Loaded};
use super::tokenizer::Bpe;

/// A real pretrained model with what a drill needs beyond the weights.
pub struct RealModel {
    pub model: Llama,
    pub tokenizer: Bpe,
    pub chat: ChatTemplate,
    /// A token to put before every sequence (`None` when the model adds none:
    /// SmolLM2's chat template starts with `<|im_start|>` instead).
    pub bos: Option<u32>,
    /// The end of an assistant turn (`<|im_end|>` for ChatML models).
    pub eos: u32,
    /// `general.name`, for logs.
    pub name: String,
}

/// The model's name as people write it, from its file name without the
/// quantisation (`SmolLM2-135M-Instruct.Q4_1.gguf` → `SmolLM2-135M-Instruct`):
/// `general.name` is often the build's own label ("Smollm2 135M 8k Lc100K
/// Mix1 Ep2"), used only when the file name says nothing.
pub fn display_name(path: &Path, general: &str) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let quant = |part: &str| {
        let p = part.to_ascii_uppercase();
        let p = p.strip_prefix('I').unwrap_or(&p);
        ["F16", "F32", "BF16"].contains(&p) || (p.starts_with('Q') && p[1..].starts_with(|c: char| c.is_ascii_digit()))
    };
    let name = match stem.rfind(['.', '-']) {
        Some(i) if quant(&stem[i + 1..]) => stem[..i].to_string(),
        _ => stem,
    };
    if name.trim().is_empty() {
        general.to_string()
    } else {
        name
    }
}

/// Read the header and metadata of `path` (not the tensor data).
pub fn read_content(path: &Path) -> Result<(Content, File)> {
    let mut file = File::open(path).with_context(|| format!("cannot open model file {}", path.display()))?;
    let content = Content::read(&mut file).map_err(|e| {
        anyhow!("{} is not a readable GGUF file ({e}); a GGUF starts with the bytes \"GGUF\"", path.display())
    })?;
    Ok((content, file))
}

fn meta<'a>(c: &'a Content, key: &str) -> Result<&'a Value> {
    c.metadata.get(key).ok_or_else(|| anyhow!("the GGUF metadata has no {key}"))
}

fn meta_usize(c: &Content, key: &str) -> Result<usize> {
    let v = meta(c, key)?;
    v.to_u64()
        .map(|n| n as usize)
        .or_else(|_| v.to_u32().map(|n| n as usize))
        .or_else(|_| v.to_i32().map(|n| n as usize))
        .map_err(|_| anyhow!("GGUF metadata {key} is not an integer ({v:?})"))
}

fn meta_f64(c: &Content, key: &str) -> Option<f64> {
    let v = c.metadata.get(key)?;
    v.to_f32().map(|x| x as f64).or_else(|_| v.to_f64()).ok()
}

/// The model's configuration from the metadata of a `llama` GGUF.
pub fn config(c: &Content) -> Result<LlamaConfig> {
    let arch = meta(c, "general.architecture")?.to_string().map_err(|e| anyhow!("general.architecture: {e}"))?;
    if arch != "llama" {
        bail!("the GGUF's architecture is \"{arch}\"; agentlab trains \"llama\" GGUFs (SmolLM2, Llama) and Qwen2 Hugging Face directories");
    }
    let k = |s: &str| format!("llama.{s}");
    let vocab = match meta(c, "tokenizer.ggml.tokens")? {
        Value::Array(a) => a.len(),
        v => bail!("tokenizer.ggml.tokens is not a list ({v:?})"),
    };
    let heads = meta_usize(c, &k("attention.head_count"))?;
    let cfg = LlamaConfig {
        vocab_size: vocab,
        hidden_size: meta_usize(c, &k("embedding_length"))?,
        intermediate_size: meta_usize(c, &k("feed_forward_length"))?,
        num_hidden_layers: meta_usize(c, &k("block_count"))?,
        num_attention_heads: heads,
        num_key_value_heads: Some(meta_usize(c, &k("attention.head_count_kv")).unwrap_or(heads)),
        max_position_embeddings: meta_usize(c, &k("context_length"))?,
        tie_word_embeddings: !c.tensor_infos.contains_key("output.weight"),
        rope_theta: meta_f64(c, &k("rope.freq_base")).unwrap_or(10_000.0),
        rms_norm_eps: meta_f64(c, &k("attention.layer_norm_rms_epsilon")).unwrap_or(1e-5),
        hidden_act: "silu".into(),
        model_type: Some("llama".into()),
        eos_token_id: None,
        bos_token_id: None,
        attention_bias: Some(false),
    };
    cfg.validate().map_err(|e| anyhow!("GGUF metadata: {e}"))?;
    Ok(cfg)
}

/// The Hugging Face name of a GGUF tensor name (`None` for names this model has no use for).
fn hf_name(gguf: &str) -> Option<String> {
    match gguf {
        "token_embd.weight" => return Some("model.embed_tokens.weight".into()),
        "output_norm.weight" => return Some("model.norm.weight".into()),
        "output.weight" => return Some("lm_head.weight".into()),
        _ => {}
    }
    let rest = gguf.strip_prefix("blk.")?;
    let (layer, name) = rest.split_once('.')?;
    let layer: usize = layer.parse().ok()?;
    let hf = match name {
        "attn_norm.weight" => "input_layernorm.weight",
        "ffn_norm.weight" => "post_attention_layernorm.weight",
        "attn_q.weight" => "self_attn.q_proj.weight",
        "attn_k.weight" => "self_attn.k_proj.weight",
        "attn_v.weight" => "self_attn.v_proj.weight",
        "attn_output.weight" => "self_attn.o_proj.weight",
        "ffn_gate.weight" => "mlp.gate_proj.weight",
        "ffn_up.weight" => "mlp.up_proj.weight",
        "ffn_down.weight" => "mlp.down_proj.weight",
        _ => return None,
    };
    Some(format!("model.layers.{layer}.{hf}"))
}

/// Undo llama.cpp's q/k row permutation: within each head, GGUF row `2i + j`
/// (j ∈ {0, 1}) is Hugging Face row `j·hd/2 + i`.
pub fn unpermute(w: &Tensor, heads: usize) -> candle_core::Result<Tensor> {
    let (out, inp) = w.dims2()?;
    let hd = out / heads;
    w.reshape((heads, hd / 2, 2, inp))?.transpose(1, 2)?.contiguous()?.reshape((out, inp))
}

/// Load a model file or directory: a `llama` GGUF ([`load`]) or a Hugging Face
/// directory ([`super::llama::load_dir`], with the chat template of its
/// `tokenizer_config.json` when it has one, ChatML otherwise).
pub fn load_path(path: &Path, device: &Device) -> Result<RealModel> {
    if !path.is_dir() {
        return load(path, device);
    }
    let Loaded { model, tokenizer } = super::llama::load_dir(path, device)?;
    let template = std::fs::read_to_string(path.join("tokenizer_config.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("chat_template").and_then(|t| t.as_str()).map(String::from));
    let chat = match template {
        Some(t) => ChatTemplate::new(&t)?,
        None => ChatTemplate::chatml(),
    };
    let eos = model
        .cfg
        .eos_ids()
        .first()
        .copied()
        .or_else(|| tokenizer.token_id("<|im_end|>"))
        .ok_or_else(|| anyhow!("{}: config.json names no eos_token_id", path.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // Chat templates of these families write their own start tokens.
    Ok(RealModel { model, tokenizer, chat, bos: None, eos, name })
}

/// Load a `llama` GGUF: weights dequantized into f32 `Var`s on `device`, the
/// tokenizer and chat template from the metadata.
pub fn load(path: &Path, device: &Device) -> Result<RealModel> {
    let (content, mut file) = read_content(path)?;
    let cfg = config(&content).with_context(|| format!("{}", path.display()))?;
    let tokenizer: Bpe = bpe_from_gguf(&content).with_context(|| format!("the tokenizer of {}", path.display()))?;
    let chat = ChatTemplate::from_gguf(&content)?;
    let adds_bos = content.metadata.get("tokenizer.ggml.add_bos_token").and_then(|v| v.to_bool().ok()).unwrap_or(false);
    let bos = meta_usize(&content, "tokenizer.ggml.bos_token_id").ok().map(|v| v as u32).filter(|_| adds_bos);
    let eos = meta_usize(&content, "tokenizer.ggml.eos_token_id")? as u32;
    let general = meta(&content, "general.name").and_then(|v| Ok(v.to_string()?.clone())).unwrap_or_default();
    let name = display_name(path, &general);
    let whence = path.display().to_string();
    let mut tensors = HashMap::new();
    let names: Vec<String> = content.tensor_infos.keys().cloned().collect();
    for gname in names {
        let Some(hf) = hf_name(&gname) else { continue };
        let q = content.tensor(&mut file, &gname, &Device::Cpu).with_context(|| {
            format!("reading tensor {gname} from {whence} (is the file truncated? its header lists more data than it holds)")
        })?;
        let mut t = q.dequantize(&Device::Cpu)?.to_dtype(DType::F32)?;
        if gname.ends_with("attn_q.weight") {
            t = unpermute(&t, cfg.num_attention_heads)?;
        } else if gname.ends_with("attn_k.weight") {
            t = unpermute(&t, cfg.kv_heads())?;
        }
        tensors.insert(hf, (t, whence.clone()));
    }
    let model = Llama::from_tensors(cfg, tensors, &whence, "the GGUF metadata", device, DType::F32)?;
    Ok(RealModel { model, tokenizer, chat, bos, eos, name })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_named_by_its_file_not_its_build_label() {
        let general = "Smollm2 135M 8k Lc100K Mix1 Ep2";
        assert_eq!(display_name(Path::new("/m/SmolLM2-135M-Instruct.Q4_1.gguf"), general), "SmolLM2-135M-Instruct");
        assert_eq!(display_name(Path::new("qwen2.5-0.5b-instruct-q8_0.gguf"), general), "qwen2.5-0.5b-instruct");
        assert_eq!(display_name(Path::new("Llama-3.2-1B-F16.gguf"), ""), "Llama-3.2-1B");
        assert_eq!(display_name(Path::new("my-model.gguf"), general), "my-model");
        assert_eq!(display_name(Path::new("/"), general), general);
    }
}
