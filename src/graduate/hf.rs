//! `--to hf` and `--to peft`: a run's models as Hugging Face checkpoints.
//!
//! **The tiny GPT is GPT-2.** Learned positions, pre-norm blocks
//! (`x + attn(ln_1(x))`, `x + mlp(ln_2(x))`, a final `ln_f`), LayerNorm with
//! ε = 1e-5, exact (erf) GELU — transformers' `activation_function: "gelu"`,
//! not `gelu_new` (tanh) — a `4d` MLP, causal attention scaled by `1/√d_head`
//! with a fused QKV projection whose output is `[q | k | v]`, biases on every
//! projection, and the LM head tied to the token embedding. The one
//! difference is the storage: GPT-2's `Conv1D` keeps its weights as
//! `[in, out]`, the lab's `Linear` as `[out, in]`, so `c_attn`, `c_proj`,
//! `c_fc` and `mlp.c_proj` are written transposed. A config with RoPE,
//! SwiGLU or an untied head is not GPT-2 and is refused.
//!
//! **SmolLM2 is Llama.** The base is written as f32 safetensors (the GGUF's
//! Q4_1 weights dequantized, as the lab runs them; `src/ml/gguf.rs` has
//! already undone the converter's Q/K row permutation), with its tokenizer
//! and chat template. Its LoRA adapters (`--to peft`) are renamed into
//! PEFT's layout (`base_model.model.<module>.lora_A.weight`), with
//! `lora_alpha` and `layers_to_transform` so the scale and the adapted
//! layers are the run's.
//!
//! Each checkpoint carries `parity.json`: token sequences and agentlab's
//! logits for them, and its greedy continuation, which
//! `scripts/graduate-check.sh` compares with transformers'.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use candle_core::{Device, Tensor};
use serde_json::json;

use super::{write, Refused, Source};
use crate::drills::keep::{ArmKind, KeptRun, Missing};
use crate::ml::gpt::{Gpt, MlpKind, PosEncoding};
use crate::ml::llama::Llama;
use crate::ml::lm::CausalLm;
use crate::ml::sample::GenConfig;
use crate::ml::tokenizer::{Tokenize, EOS};

/// The run's kept models, or why not (pruned: said in `notes`, `None` returned).
pub(crate) fn kept(src: &Source, notes: &mut Vec<String>) -> Result<Option<KeptRun>> {
    let dir = src.run.as_ref().ok_or_else(|| anyhow!("an export of weights needs a run"))?;
    match KeptRun::open(dir, &src.drill, &src.preset, src.seed, src.params.clone())? {
        Ok(run) => Ok(Some(run)),
        Err(Missing::Pruned) => {
            notes.push(crate::t!("export-pruned", dir = dir.display().to_string()));
            Ok(None)
        }
        Err(Missing::None) => Err(anyhow!(Refused(crate::t!("export-no-models", dir = dir.display().to_string())))),
        Err(Missing::Newer(v)) => {
            Err(anyhow!(Refused(format!("models/index.json format {v} is newer than this agentlab"))))
        }
    }
}

/// For an export that needs no weights but carries them where it can: the
/// run's kept models, or `None` (no run, pruned — said in `notes` — or none kept).
pub(crate) fn kept_if_any(src: &Source, notes: &mut Vec<String>) -> Result<Option<KeptRun>> {
    let Some(dir) = &src.run else { return Ok(None) };
    Ok(match KeptRun::open(dir, &src.drill, &src.preset, src.seed, src.params.clone())? {
        Ok(run) => Some(run),
        Err(Missing::Pruned) => {
            notes.push(crate::t!("export-pruned", dir = dir.display().to_string()));
            None
        }
        Err(_) => None,
    })
}

/// The base model a real-model run names, as now found (its fingerprint checked when a run kept adapters).
fn real_base(src: &Source, run: Option<&KeptRun>) -> Result<crate::ml::gguf::RealModel> {
    let path = match run {
        Some(r) => r.check_base()?,
        None => {
            let name = match src.params.get("model") {
                Some(crate::content::ParamValue::Text(t)) => t.clone(),
                _ => bail!("the run names no real model"),
            };
            crate::ml::models::resolve(&name)?
        }
    };
    crate::ml::gguf::load_path(&path, &Device::Cpu)
}

fn is_real(src: &Source) -> bool {
    matches!(src.params.get("model"), Some(crate::content::ParamValue::Text(t)) if t != "tiny")
}

pub fn export_hf(src: &Source, dir: &Path, notes: &mut Vec<String>) -> Result<()> {
    let run = kept(src, notes)?;
    if is_real(src) {
        let base = real_base(src, run.as_ref())?;
        write_llama(&base, &dir.join("base"))?;
        notes.push(crate::t!("export-hf-real", dir = "base/"));
        return Ok(());
    }
    let tok = super::tiny::tokenizer_json(&src.drill)?;
    let Some(run) = run else {
        // The weights are gone: the starting model, as the drill initialises it.
        let gpt = super::tiny::start(src)?;
        write_gpt2(&gpt, &tok, &dir.join("start"))?;
        notes.push(crate::t!("export-hf-start", dir = "start/"));
        return Ok(());
    };
    let max_new = match src.params.get("max_new") {
        Some(crate::content::ParamValue::Int(n)) => (*n).max(1) as usize,
        _ => 8,
    };
    let probes = probes_for(&src.drill, src.seed)?;
    for arm in &run.index.arms {
        if !matches!(arm.kind, ArmKind::TinyGpt { .. }) {
            continue;
        }
        let gpt = run.tiny(&arm.id, &Device::Cpu)?;
        let out = dir.join(&arm.id);
        write_gpt2(&gpt, &tok, &out)?;
        write_parity(&gpt, &probes, max_new, EOS, &out)?;
        notes.push(crate::t!("export-hf-arm", arm = arm.id.as_str(), dir = format!("{}/", arm.id)));
    }
    Ok(())
}

pub fn export_peft(src: &Source, dir: &Path, notes: &mut Vec<String>) -> Result<()> {
    if !is_real(src) {
        return Err(anyhow!(Refused(crate::t!("export-peft-tiny"))));
    }
    let run = kept(src, notes)?;
    let mut base = real_base(src, run.as_ref())?;
    write_llama(&base, &dir.join("base"))?;
    let Some(run) = run else {
        notes.push(crate::t!("export-peft-pruned"));
        return Ok(());
    };
    let probes: Vec<Vec<u32>> = {
        let fmt = crate::envs::format::Format::new(
            &base.tokenizer,
            base.bos,
            base.eos,
            Some(std::mem::replace(&mut base.chat, crate::ml::gguf_tokenizer::ChatTemplate::chatml())),
            crate::drills::grpo_rlvr::SYSTEM,
        );
        vec![fmt.encode_segments(&base.tokenizer, &[(crate::envs::Role::Prompt, "3+4".to_string())])]
    };
    write_parity(&base.model, &probes, 6, base.eos, &dir.join("base"))?;
    for arm in &run.index.arms {
        let ArmKind::LlamaLora { lora } = &arm.kind else { continue };
        let file = run.dir.join(crate::drills::keep::MODELS_DIR).join(&arm.id).join("model.safetensors");
        let tensors = candle_core::safetensors::load(&file, &Device::Cpu)
            .with_context(|| format!("reading {}", file.display()))?;
        let out = dir.join(&arm.id);
        let renamed: Vec<(String, Tensor)> = tensors
            .into_iter()
            .map(|(k, t)| Ok((format!("base_model.model.{k}"), t.to_dtype(candle_core::DType::F32)?)))
            .collect::<Result<_>>()?;
        save(&renamed, &out.join("adapter_model.safetensors"))?;
        let layers: Vec<usize> = (lora.from_layer..base.model.cfg.num_hidden_layers).collect();
        let config = json!({
            "peft_type": "LORA",
            "task_type": "CAUSAL_LM",
            "base_model_name_or_path": "../base",
            "r": lora.rank,
            "lora_alpha": lora.alpha,
            "lora_dropout": 0.0,
            "bias": "none",
            "fan_in_fan_out": false,
            "target_modules": lora.targets,
            "layers_to_transform": layers,
            "layers_pattern": "layers",
            "use_rslora": false,
            "use_dora": false,
            "inference_mode": true,
        });
        write(&out, "adapter_config.json", serde_json::to_string_pretty(&config)?)?;
        let trained = run.real(&arm.id, &base.model)?;
        write_parity(&trained, &probes, 6, base.eos, &out)?;
        notes.push(crate::t!("export-peft-arm", arm = arm.id.as_str(), dir = format!("{}/", arm.id)));
    }
    Ok(())
}

/// Held-out prompts of the drill to compare logits on.
fn probes_for(drill: &str, seed: u64) -> Result<Vec<Vec<u32>>> {
    if drill == "react-tool-call-loop" {
        // Held-out-style questions as the loop's first context: BOS, then the prompt.
        let (_, tok) = crate::ml::base::shipped(&Device::Cpu)?;
        let fmt = crate::envs::format::Format::tiny(&tok);
        let questions = ["population of Vesk?", "417 + 38?", "repeat Nilbu"];
        return Ok(questions
            .iter()
            .map(|q| fmt.encode_segments(&tok, &crate::envs::react::Session::new(q).episode.segments))
            .collect());
    }
    let tok = super::tiny::tokenizer(drill).ok_or_else(|| anyhow!("no tokenizer known for {drill}"))?;
    Ok(match drill {
        "grpo-rlvr" => {
            let mut rng = crate::ml::rng::Rng::new(seed).fork(7);
            (0..4).map(|_| tok.encode(&crate::envs::refine_arith::Problem::random(2, &mut rng).prompt())).collect()
        }
        _ => vec![tok.encode("1+1=")],
    })
}

/// agentlab's logits (every position) and greedy continuation of each probe.
fn write_parity(model: &dyn CausalLm, probes: &[Vec<u32>], max_new: usize, eos: u32, dir: &Path) -> Result<()> {
    let mut cases = Vec::new();
    for p in probes {
        let x = Tensor::new(p.as_slice(), model.device())?.unsqueeze(0)?;
        let logits = model.forward(&x)?.squeeze(0)?.to_dtype(candle_core::DType::F32)?;
        let t = logits.dim(0)?;
        // The last position only, for a large vocabulary.
        let rows: Vec<Vec<f32>> =
            if model.vocab() > 4096 { vec![logits.get(t - 1)?.to_vec1()?] } else { logits.to_vec2()? };
        let first = t - rows.len();
        let mut rng = crate::ml::rng::Rng::new(0);
        let gen = model.generate(std::slice::from_ref(p), &GenConfig::greedy(max_new, vec![eos]), &mut rng)?;
        cases.push(json!({ "tokens": p, "first_position": first, "logits": rows, "greedy": gen[0] }));
    }
    write(dir, "parity.json", serde_json::to_string(&json!({ "eos": eos, "max_new": max_new, "cases": cases }))?)
}

fn save(tensors: &[(String, Tensor)], path: &Path) -> Result<()> {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p)?;
    }
    let meta: HashMap<String, String> = [("format".to_string(), "pt".to_string())].into();
    let views: Vec<(&str, &Tensor)> = tensors.iter().map(|(k, t)| (k.as_str(), t)).collect();
    safetensors::serialize_to_file(views, Some(meta), path).with_context(|| format!("writing {}", path.display()))
}

/// The tiny GPT as a `gpt2` checkpoint in `out` (see the module doc).
/// `tokenizer` is the model's `tokenizer.json`: [`super::tiny::char_tokenizer_json`] for
/// a drill that reads characters, the lab's BPE (`Bpe::to_json`) for the base model.
pub fn write_gpt2(gpt: &Gpt, tokenizer: &str, out: &Path) -> Result<()> {
    let c = &gpt.cfg;
    if c.pos != PosEncoding::Learned || c.mlp != MlpKind::Gelu || !c.tied {
        bail!(Refused(crate::t!("export-not-gpt2")));
    }
    let vars = gpt.vars();
    let get = |k: &str| -> Result<Tensor> {
        Ok(vars.get(k).ok_or_else(|| anyhow!("the tiny GPT has no {k}"))?.as_tensor().contiguous()?)
    };
    let conv = |k: &str| -> Result<Tensor> { Ok(get(k)?.t()?.contiguous()?) };
    let mut t: Vec<(String, Tensor)> = vec![
        ("transformer.wte.weight".into(), get("wte.weight")?),
        ("transformer.wpe.weight".into(), get("wpe.weight")?),
    ];
    for l in 0..c.n_layers {
        let ours = |s: &str| format!("blocks.{l}.{s}");
        let theirs = |s: &str| format!("transformer.h.{l}.{s}");
        for (a, b) in [("ln1", "ln_1"), ("ln2", "ln_2")] {
            t.push((theirs(&format!("{b}.weight")), get(&ours(&format!("{a}.weight")))?));
            t.push((theirs(&format!("{b}.bias")), get(&ours(&format!("{a}.bias")))?));
        }
        for (a, b) in [
            ("attn.qkv", "attn.c_attn"),
            ("attn.proj", "attn.c_proj"),
            ("mlp.fc", "mlp.c_fc"),
            ("mlp.proj", "mlp.c_proj"),
        ] {
            t.push((theirs(&format!("{b}.weight")), conv(&ours(&format!("{a}.weight")))?));
            t.push((theirs(&format!("{b}.bias")), get(&ours(&format!("{a}.bias")))?));
        }
    }
    t.push(("transformer.ln_f.weight".into(), get("ln_f.weight")?));
    t.push(("transformer.ln_f.bias".into(), get("ln_f.bias")?));
    save(&t, &out.join("model.safetensors"))?;
    let config = json!({
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "vocab_size": c.vocab,
        "n_positions": c.context,
        "n_ctx": c.context,
        "n_embd": c.d_model,
        "n_layer": c.n_layers,
        "n_head": c.n_heads,
        "n_inner": c.mlp_hidden(),
        // Exact (erf) GELU, as the lab's `ops::gelu`; "gelu_new" would be the tanh approximation.
        "activation_function": "gelu",
        "layer_norm_epsilon": 1e-5,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "attn_pdrop": 0.0,
        "scale_attn_weights": true,
        "scale_attn_by_inverse_layer_idx": false,
        "reorder_and_upcast_attn": false,
        "tie_word_embeddings": true,
        "bos_token_id": crate::ml::tokenizer::BOS,
        "eos_token_id": EOS,
        "pad_token_id": crate::ml::tokenizer::PAD,
        "torch_dtype": "float32",
        "use_cache": true,
    });
    write(out, "config.json", serde_json::to_string_pretty(&config)?)?;
    write(
        out,
        "generation_config.json",
        serde_json::to_string_pretty(&json!({
            "bos_token_id": crate::ml::tokenizer::BOS, "eos_token_id": EOS, "pad_token_id": crate::ml::tokenizer::PAD,
        }))?,
    )?;
    write(out, "tokenizer.json", tokenizer)?;
    let tc = json!({
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>", "unk_token": "<unk>",
        "model_max_length": c.context,
        "padding_side": "left",
        // A "chat" is its messages' text run together: verl and TRL render prompts through it.
        "chat_template": "{% for m in messages %}{{ m['content'] }}{% endfor %}",
    });
    write(out, "tokenizer_config.json", serde_json::to_string_pretty(&tc)?)?;
    write(
        out,
        "special_tokens_map.json",
        serde_json::to_string_pretty(&json!({
            "bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>", "unk_token": "<unk>",
        }))?,
    )
}

/// A real model's base as an f32 `llama` (or `qwen2`) checkpoint in `out`.
pub fn write_llama(m: &crate::ml::gguf::RealModel, out: &Path) -> Result<()> {
    let l: &Llama = &m.model;
    let f32 = |t: &Tensor| -> Result<Tensor> { Ok(t.to_dtype(candle_core::DType::F32)?.contiguous()?) };
    let mut t: Vec<(String, Tensor)> = vec![("model.embed_tokens.weight".into(), f32(&l.embed)?)];
    for (i, layer) in l.layers.iter().enumerate() {
        let p = |s: &str| format!("model.layers.{i}.{s}");
        t.push((p("input_layernorm.weight"), f32(&layer.input_norm)?));
        t.push((p("post_attention_layernorm.weight"), f32(&layer.post_norm)?));
        for (name, proj) in [
            ("self_attn.q_proj", &layer.q),
            ("self_attn.k_proj", &layer.k),
            ("self_attn.v_proj", &layer.v),
            ("self_attn.o_proj", &layer.o),
            ("mlp.gate_proj", &layer.gate),
            ("mlp.up_proj", &layer.up),
            ("mlp.down_proj", &layer.down),
        ] {
            t.push((p(&format!("{name}.weight")), f32(&proj.w)?));
            if let Some(b) = &proj.b {
                t.push((p(&format!("{name}.bias")), f32(b)?));
            }
        }
    }
    t.push(("model.norm.weight".into(), f32(&l.norm)?));
    if let Some(h) = &l.lm_head {
        t.push(("lm_head.weight".into(), f32(h)?));
    }
    save(&t, &out.join("model.safetensors"))?;
    let c = &l.cfg;
    let kind = c.model_type.clone().unwrap_or_else(|| "llama".into());
    let arch = if kind == "qwen2" { "Qwen2ForCausalLM" } else { "LlamaForCausalLM" };
    let config = json!({
        "architectures": [arch],
        "model_type": kind,
        "vocab_size": c.vocab_size,
        "hidden_size": c.hidden_size,
        "intermediate_size": c.intermediate_size,
        "num_hidden_layers": c.num_hidden_layers,
        "num_attention_heads": c.num_attention_heads,
        "num_key_value_heads": c.num_key_value_heads.unwrap_or(c.num_attention_heads),
        "head_dim": c.hidden_size / c.num_attention_heads,
        "max_position_embeddings": c.max_position_embeddings,
        "rms_norm_eps": c.rms_norm_eps,
        "rope_theta": c.rope_theta,
        "hidden_act": c.hidden_act,
        "tie_word_embeddings": l.lm_head.is_none(),
        "attention_bias": l.layers.first().is_some_and(|x| x.q.b.is_some()),
        "mlp_bias": false,
        "bos_token_id": m.bos,
        "eos_token_id": m.eos,
        "torch_dtype": "float32",
        "use_cache": true,
    });
    write(out, "config.json", serde_json::to_string_pretty(&config)?)?;
    write(out, "tokenizer.json", m.tokenizer.to_json()?)?;
    let name = |id: u32| m.tokenizer.tokenizer().id_to_token(id);
    let tc = json!({
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": m.bos.and_then(name),
        "eos_token": name(m.eos),
        "pad_token": name(m.eos),
        "model_max_length": c.max_position_embeddings,
        "chat_template": m.chat.source(),
    });
    write(out, "tokenizer_config.json", serde_json::to_string_pretty(&tc)?)?;
    write(
        out,
        "generation_config.json",
        serde_json::to_string_pretty(&json!({
            "bos_token_id": m.bos, "eos_token_id": m.eos, "pad_token_id": m.eos,
        }))?,
    )
}
