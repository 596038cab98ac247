//! Bring your own small model: a Qwen2-family checkpoint (Qwen2, Qwen2.5),
//! loaded from a local Hugging Face directory into trainable candle `Var`s.
//!
//! ```text
//! tokens [B,T] → embed_tokens
//!   → N × { x + Attn(RMSNorm(x)) ; x + SwiGLU(RMSNorm(x)) }     (pre-norm)
//!   → RMSNorm → lm_head (= embed_tokens when tie_word_embeddings) → logits [B,T,V]
//! ```
//!
//! Architecture, as in `transformers`' `modeling_qwen2.py` and candle-transformers'
//! `models/qwen2.rs`:
//! * RMSNorm `x / sqrt(mean(x²) + ε) · w`, written here with ordinary candle ops so
//!   it has a backward (candle_nn's fused `RmsNorm` records none);
//! * RoPE with base `rope_theta`, the "rotate half" convention;
//! * grouped-query attention: `num_key_value_heads` K/V heads shared by groups of
//!   query heads, q/k/v projections with bias, o_proj without;
//! * SwiGLU MLP `down(silu(gate(x)) · up(x))`.
//!
//! The directory holds `config.json`, one or more `*.safetensors` and
//! `tokenizer.json`; tensors keep their Hugging Face names
//! (`model.layers.0.self_attn.q_proj.weight`, …) in the `VarMap`. Optional LoRA
//! adapters on q_proj and v_proj (`y += (α/r)·x Aᵀ Bᵀ`, B starting at 0) train
//! with the base frozen. Weights are converted to f32 (or the dtype asked for):
//! a 0.5B model takes 2 GB in f32.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use candle_core::{DType, Device, Result, Tensor, Var, D};
use candle_nn::VarMap;
use serde::Deserialize;

use super::gpt::apply_rope;
use super::lm::CausalLm;
use super::ops;
use super::rng::Rng;
use super::sample::{pick, GenConfig};
use super::tokenizer::{Bpe, Tokenize};

/// The fields of a Qwen2 `config.json` this loader uses (others are ignored).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Qwen2Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    #[serde(default)]
    pub num_key_value_heads: Option<usize>,
    #[serde(default = "default_max_pos")]
    pub max_position_embeddings: usize,
    #[serde(default)]
    pub tie_word_embeddings: bool,
    #[serde(default = "default_theta")]
    pub rope_theta: f64,
    #[serde(default = "default_eps")]
    pub rms_norm_eps: f64,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    #[serde(default)]
    pub model_type: Option<String>,
    /// An id or a list of ids.
    #[serde(default)]
    pub eos_token_id: Option<serde_json::Value>,
    #[serde(default)]
    pub bos_token_id: Option<u32>,
}

fn default_max_pos() -> usize {
    32768
}
fn default_theta() -> f64 {
    10000.0
}
fn default_eps() -> f64 {
    1e-6
}
fn default_act() -> String {
    "silu".into()
}

impl Qwen2Config {
    pub fn kv_heads(&self) -> usize {
        self.num_key_value_heads.unwrap_or(self.num_attention_heads)
    }

    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads
    }

    /// The end-of-sequence ids listed in config.json (empty when absent).
    pub fn eos_ids(&self) -> Vec<u32> {
        match &self.eos_token_id {
            Some(serde_json::Value::Number(n)) => n.as_u64().map(|v| vec![v as u32]).unwrap_or_default(),
            Some(serde_json::Value::Array(a)) => a.iter().filter_map(|v| v.as_u64()).map(|v| v as u32).collect(),
            _ => Vec::new(),
        }
    }

    pub fn validate(&self) -> std::result::Result<(), String> {
        if let Some(t) = &self.model_type {
            if t != "qwen2" {
                return Err(format!("model_type is \"{t}\", this loader reads \"qwen2\" (Qwen2, Qwen2.5)"));
            }
        }
        if self.hidden_act != "silu" {
            return Err(format!("hidden_act \"{}\" is not supported (Qwen2 uses silu)", self.hidden_act));
        }
        let dims = [
            self.vocab_size,
            self.hidden_size,
            self.intermediate_size,
            self.num_hidden_layers,
            self.num_attention_heads,
            self.kv_heads(),
        ];
        if dims.contains(&0) {
            return Err("every model dimension must be positive".into());
        }
        if !self.hidden_size.is_multiple_of(self.num_attention_heads) {
            return Err(format!(
                "hidden_size {} is not divisible by num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        if !self.num_attention_heads.is_multiple_of(self.kv_heads()) {
            return Err(format!(
                "num_attention_heads {} is not a multiple of num_key_value_heads {}",
                self.num_attention_heads,
                self.kv_heads()
            ));
        }
        if !self.head_dim().is_multiple_of(2) {
            return Err("RoPE needs an even head dimension".into());
        }
        Ok(())
    }

    /// Every tensor the checkpoint must hold, with its shape.
    pub fn expected_tensors(&self) -> Vec<(String, Vec<usize>)> {
        let (d, i, v) = (self.hidden_size, self.intermediate_size, self.vocab_size);
        let kv = self.kv_heads() * self.head_dim();
        let mut out = vec![("model.embed_tokens.weight".to_string(), vec![v, d])];
        for l in 0..self.num_hidden_layers {
            let p = |s: &str| format!("model.layers.{l}.{s}");
            out.extend([
                (p("input_layernorm.weight"), vec![d]),
                (p("self_attn.q_proj.weight"), vec![d, d]),
                (p("self_attn.q_proj.bias"), vec![d]),
                (p("self_attn.k_proj.weight"), vec![kv, d]),
                (p("self_attn.k_proj.bias"), vec![kv]),
                (p("self_attn.v_proj.weight"), vec![kv, d]),
                (p("self_attn.v_proj.bias"), vec![kv]),
                (p("self_attn.o_proj.weight"), vec![d, d]),
                (p("post_attention_layernorm.weight"), vec![d]),
                (p("mlp.gate_proj.weight"), vec![i, d]),
                (p("mlp.up_proj.weight"), vec![i, d]),
                (p("mlp.down_proj.weight"), vec![d, i]),
            ]);
        }
        out.push(("model.norm.weight".to_string(), vec![d]));
        if !self.tie_word_embeddings {
            out.push(("lm_head.weight".to_string(), vec![v, d]));
        }
        out
    }
}

/// `y = x Wᵀ + b`, plus an optional low-rank update `(α/r)·x Aᵀ Bᵀ`.
#[derive(Debug, Clone)]
pub struct Proj {
    pub w: Tensor,
    pub b: Option<Tensor>,
    pub lora: Option<Lora>,
}

/// LoRA adapter: `a: [r, in]`, `b: [out, r]`, scale `α/r`.
#[derive(Debug, Clone)]
pub struct Lora {
    pub a: Tensor,
    pub b: Tensor,
    pub scale: f64,
}

impl Proj {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let y = ops::linear(x, &self.w, self.b.as_ref())?;
        match &self.lora {
            Some(l) => y + (ops::linear(&ops::linear(x, &l.a, None)?, &l.b, None)? * l.scale)?,
            None => Ok(y),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Layer {
    pub input_norm: Tensor,
    pub q: Proj,
    pub k: Proj,
    pub v: Proj,
    pub o: Proj,
    pub post_norm: Tensor,
    pub gate: Proj,
    pub up: Proj,
    pub down: Proj,
}

/// RMSNorm over the last dimension, from differentiable ops: `x / sqrt(mean(x²) + ε) · w`.
pub fn rms_norm(x: &Tensor, w: &Tensor, eps: f64) -> Result<Tensor> {
    let ms = x.sqr()?.mean_keepdim(D::Minus1)?;
    x.broadcast_div(&(ms + eps)?.sqrt()?)?.broadcast_mul(w)
}

/// `[B,kvh,T,hd] → [B,kvh·n,T,hd]`, query head `h` reading K/V head `h / n`.
fn repeat_kv(x: Tensor, n: usize) -> Result<Tensor> {
    if n == 1 {
        return Ok(x);
    }
    let (b, kvh, t, hd) = x.dims4()?;
    Tensor::cat(&vec![&x; n], 2)?.reshape((b, kvh * n, t, hd))
}

pub struct Qwen2 {
    pub cfg: Qwen2Config,
    pub varmap: VarMap,
    pub device: Device,
    pub dtype: DType,
    pub embed: Tensor,
    pub layers: Vec<Layer>,
    pub norm: Tensor,
    /// `None` when tied to `embed`.
    pub lm_head: Option<Tensor>,
    /// Names of the LoRA parameters, when adapters are attached.
    lora_names: Vec<String>,
}

/// Everything a drill needs from a model directory.
pub struct Loaded {
    pub model: Qwen2,
    /// The checkpoint's own `tokenizer.json`, read by the same wrapper as the lab's BPE.
    pub tokenizer: Bpe,
}

/// Load `dir` (config.json, *.safetensors, tokenizer.json) onto `device` in f32.
pub fn load_dir(dir: &Path, device: &Device) -> anyhow::Result<Loaded> {
    let model = Qwen2::load(dir, device, DType::F32)?;
    let tokenizer = Bpe::load(&dir.join("tokenizer.json"))?;
    if tokenizer.vocab_size() > model.cfg.vocab_size {
        bail!(
            "{}: the tokenizer has {} tokens but config.json's vocab_size is {}",
            dir.display(),
            tokenizer.vocab_size(),
            model.cfg.vocab_size
        );
    }
    Ok(Loaded { model, tokenizer })
}

/// Read and validate `dir/config.json`.
pub fn read_config(dir: &Path) -> anyhow::Result<Qwen2Config> {
    if !dir.is_dir() {
        bail!("model directory {} does not exist (expected config.json, *.safetensors, tokenizer.json)", dir.display());
    }
    let path = dir.join("config.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("missing or unreadable {} (a Hugging Face model config)", path.display()))?;
    let cfg: Qwen2Config =
        serde_json::from_str(&text).with_context(|| format!("{} is not a Qwen2 config", path.display()))?;
    cfg.validate().map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(cfg)
}

/// The `*.safetensors` files of `dir`, sorted (sharded checkpoints have several).
pub fn safetensors_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "safetensors"))
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no *.safetensors file in {}", dir.display());
    }
    Ok(files)
}

impl Qwen2 {
    /// Load a checkpoint directory; every tensor becomes a trainable `Var` of `dtype`.
    pub fn load(dir: &Path, device: &Device, dtype: DType) -> anyhow::Result<Qwen2> {
        let cfg = read_config(dir)?;
        let files = safetensors_files(dir)?;
        let mut tensors: HashMap<String, (Tensor, PathBuf)> = HashMap::new();
        for f in &files {
            // Load on the CPU first: converting there keeps a bf16 copy off the GPU.
            let ts = candle_core::safetensors::load(f, &Device::Cpu)
                .with_context(|| format!("{} is not a readable safetensors file", f.display()))?;
            for (name, t) in ts {
                tensors.insert(name, (t, f.clone()));
            }
        }
        let varmap = VarMap::new();
        let mut get = |name: &str, shape: &[usize]| -> anyhow::Result<Tensor> {
            let (t, file) = tensors.remove(name).ok_or_else(|| {
                anyhow!("tensor {name} is missing from the checkpoint ({} file(s) in {})", files.len(), dir.display())
            })?;
            if t.dims() != shape {
                bail!(
                    "shape mismatch for tensor {name} in {}: the file has {:?}, config.json implies {:?}",
                    file.display(),
                    t.dims(),
                    shape
                );
            }
            let var = Var::from_tensor(&t.to_dtype(dtype)?.to_device(device)?)?;
            let out = var.as_tensor().clone();
            varmap.data().lock().expect("varmap lock").insert(name.to_string(), var);
            Ok(out)
        };
        let shapes: HashMap<String, Vec<usize>> = cfg.expected_tensors().into_iter().collect();
        let mut take = |name: String| -> anyhow::Result<Tensor> { get(&name, &shapes[&name]) };
        let embed = take("model.embed_tokens.weight".into())?;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for l in 0..cfg.num_hidden_layers {
            let p = |s: &str| format!("model.layers.{l}.{s}");
            let mut proj = |s: &str, bias: bool| -> anyhow::Result<Proj> {
                let w = take(p(&format!("{s}.weight")))?;
                let b = if bias { Some(take(p(&format!("{s}.bias")))?) } else { None };
                Ok(Proj { w, b, lora: None })
            };
            let q = proj("self_attn.q_proj", true)?;
            let k = proj("self_attn.k_proj", true)?;
            let v = proj("self_attn.v_proj", true)?;
            let o = proj("self_attn.o_proj", false)?;
            let gate = proj("mlp.gate_proj", false)?;
            let up = proj("mlp.up_proj", false)?;
            let down = proj("mlp.down_proj", false)?;
            let input_norm = take(p("input_layernorm.weight"))?;
            let post_norm = take(p("post_attention_layernorm.weight"))?;
            layers.push(Layer { input_norm, q, k, v, o, post_norm, gate, up, down });
        }
        let norm = take("model.norm.weight".into())?;
        let lm_head = if cfg.tie_word_embeddings { None } else { Some(take("lm_head.weight".into())?) };
        Ok(Qwen2 { cfg, varmap, device: device.clone(), dtype, embed, layers, norm, lm_head, lora_names: Vec::new() })
    }

    /// Attach rank-`rank` LoRA adapters to every q_proj and v_proj; from then on
    /// [`CausalLm::trainable_vars`] returns only the adapters (the base is frozen).
    /// A ~ N(0, 1/rank), B = 0, so the model's output is unchanged at first.
    pub fn add_lora(&mut self, rank: usize, alpha: f64, seed: u64) -> Result<()> {
        if rank == 0 {
            candle_core::bail!("LoRA rank must be positive");
        }
        let mut rng = Rng::new(seed ^ 0x10_7a);
        let scale = alpha / rank as f64;
        let std = 1.0 / (rank as f32).sqrt();
        for l in 0..self.layers.len() {
            for which in ["q_proj", "v_proj"] {
                let proj = if which == "q_proj" { &self.layers[l].q } else { &self.layers[l].v };
                let (d_out, d_in) = proj.w.dims2()?;
                let a: Vec<f32> = (0..rank * d_in).map(|_| rng.normal() * std).collect();
                let a = Var::from_tensor(&Tensor::from_vec(a, (rank, d_in), &self.device)?.to_dtype(self.dtype)?)?;
                let b = Var::from_tensor(&Tensor::zeros((d_out, rank), self.dtype, &self.device)?)?;
                let name = format!("model.layers.{l}.self_attn.{which}");
                let lora = Lora { a: a.as_tensor().clone(), b: b.as_tensor().clone(), scale };
                let mut data = self.varmap.data().lock().expect("varmap lock");
                for (suffix, var) in [("lora_A.weight", a), ("lora_B.weight", b)] {
                    let full = format!("{name}.{suffix}");
                    data.insert(full.clone(), var);
                    self.lora_names.push(full);
                }
                drop(data);
                let proj = if which == "q_proj" { &mut self.layers[l].q } else { &mut self.layers[l].v };
                proj.lora = Some(lora);
            }
        }
        Ok(())
    }

    pub fn num_params(&self) -> usize {
        self.vars().values().map(|v| v.elem_count()).sum()
    }

    /// Logits `[B,T,V]` with explicit positions `[B,T]` (u32) and an additive
    /// mask broadcastable to `[B,H,T,T]` (causal, plus padding when left-padded).
    pub fn run(&self, tokens: &Tensor, positions: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (b, t) = tokens.dims2()?;
        if t > self.cfg.max_position_embeddings {
            candle_core::bail!(
                "sequence of {t} tokens exceeds max_position_embeddings {}",
                self.cfg.max_position_embeddings
            );
        }
        let (h, kvh, hd) = (self.cfg.num_attention_heads, self.cfg.kv_heads(), self.cfg.head_dim());
        let eps = self.cfg.rms_norm_eps;
        let (cos, sin) = self.rope_tables(positions)?;
        let mut x = self.embed.index_select(&tokens.flatten_all()?, 0)?.reshape((b, t, self.cfg.hidden_size))?;
        let scale = 1.0 / (hd as f64).sqrt();
        for layer in &self.layers {
            let hs = rms_norm(&x, &layer.input_norm, eps)?;
            let heads = |p: &Proj, n: usize| -> Result<Tensor> {
                p.forward(&hs)?.reshape((b, t, n, hd))?.transpose(1, 2)?.contiguous()
            };
            let q = apply_rope(&heads(&layer.q, h)?, &cos, &sin)?;
            let k = repeat_kv(apply_rope(&heads(&layer.k, kvh)?, &cos, &sin)?, h / kvh)?;
            let v = repeat_kv(heads(&layer.v, kvh)?, h / kvh)?;
            let att = (q.matmul(&k.t()?)? * scale)?.broadcast_add(mask)?;
            let y = ops::softmax(&att)?.matmul(&v)?; // [B,H,T,hd]
            let y = y.transpose(1, 2)?.reshape((b, t, h * hd))?;
            x = (x + layer.o.forward(&y)?)?;
            let hs = rms_norm(&x, &layer.post_norm, eps)?;
            let mlp =
                layer.down.forward(&(candle_nn::ops::silu(&layer.gate.forward(&hs)?)? * layer.up.forward(&hs)?)?)?;
            x = (x + mlp)?;
        }
        let x = rms_norm(&x, &self.norm, eps)?;
        ops::linear(&x, self.lm_head.as_ref().unwrap_or(&self.embed), None)
    }

    /// cos/sin `[B,1,T,hd]` at the given positions, base `rope_theta`.
    fn rope_tables(&self, positions: &Tensor) -> Result<(Tensor, Tensor)> {
        let hd = self.cfg.head_dim();
        let inv: Vec<f32> =
            (0..hd / 2).map(|i| 1.0 / self.cfg.rope_theta.powf(2.0 * i as f64 / hd as f64) as f32).collect();
        let inv = Tensor::from_vec(inv, (1, 1, hd / 2), &self.device)?;
        let angles = positions.to_dtype(DType::F32)?.unsqueeze(2)?.broadcast_mul(&inv)?; // [B,T,hd/2]
        let angles = Tensor::cat(&[&angles, &angles], D::Minus1)?.unsqueeze(1)?;
        Ok((angles.cos()?.to_dtype(self.dtype)?, angles.sin()?.to_dtype(self.dtype)?))
    }
}

impl CausalLm for Qwen2 {
    fn forward(&self, tokens: &Tensor) -> Result<Tensor> {
        let (b, t) = tokens.dims2()?;
        let pos = Tensor::arange(0u32, t as u32, &self.device)?.unsqueeze(0)?.broadcast_as((b, t))?.contiguous()?;
        let mask = ops::causal_mask(t, &self.device)?.to_dtype(self.dtype)?;
        self.run(&tokens.to_dtype(DType::U32)?, &pos, &mask)
    }

    fn vars(&self) -> BTreeMap<String, Var> {
        self.varmap.data().lock().expect("varmap lock").iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    fn trainable_vars(&self) -> Vec<Var> {
        let all = self.vars();
        if self.lora_names.is_empty() {
            return all.into_values().collect();
        }
        self.lora_names.iter().filter_map(|n| all.get(n).cloned()).collect()
    }

    fn context(&self) -> usize {
        self.cfg.max_position_embeddings
    }

    fn vocab(&self) -> usize {
        self.cfg.vocab_size
    }

    fn device(&self) -> &Device {
        &self.device
    }

    /// Batched, left-padded; the whole sequence is recomputed at every step
    /// (no KV cache: simple, and fine for the short completions of the drills).
    fn generate(&self, prompts: &[Vec<u32>], cfg: &GenConfig, rng: &mut Rng) -> Result<Vec<Vec<u32>>> {
        let b = prompts.len();
        let p_len = prompts.iter().map(|p| p.len()).max().unwrap_or(0);
        if b == 0 || p_len == 0 {
            return Ok(vec![Vec::new(); b]);
        }
        let budget = cfg.max_new.min(self.cfg.max_position_embeddings.saturating_sub(p_len));
        let pad = prompts.iter().find_map(|p| p.first().copied()).unwrap_or(0);
        let mut rows: Vec<Vec<u32>> = Vec::with_capacity(b);
        let mut pads: Vec<Vec<bool>> = Vec::with_capacity(b);
        let mut pos: Vec<Vec<u32>> = Vec::with_capacity(b);
        for p in prompts {
            let n_pad = p_len - p.len();
            let mut r = vec![pad; n_pad];
            r.extend_from_slice(p);
            rows.push(r);
            pads.push((0..p_len).map(|i| i < n_pad).collect());
            pos.push((0..p_len).map(|i| i.saturating_sub(n_pad) as u32).collect());
        }
        let mut out = vec![Vec::new(); b];
        let mut done = vec![false; b];
        for _ in 0..budget {
            let s = rows[0].len();
            let tokens = Tensor::from_vec(rows.concat(), (b, s), &self.device)?;
            let positions = Tensor::from_vec(pos.concat(), (b, s), &self.device)?;
            let mask = ops::cached_mask(&pads, s, &self.device)?.to_dtype(self.dtype)?;
            let last = self.run(&tokens, &positions, &mask)?.narrow(1, s - 1, 1)?.squeeze(1)?;
            let last = last.to_dtype(DType::F32)?.to_vec2::<f32>()?;
            for i in 0..b {
                let tok = if done[i] { pad } else { pick(&last[i], cfg.decoding, rng) };
                if !done[i] {
                    out[i].push(tok);
                    done[i] = cfg.stop.contains(&tok);
                }
                rows[i].push(tok);
                pads[i].push(false);
                let next = pos[i].last().map_or(0, |p| p + 1);
                pos[i].push(next);
            }
            if done.iter().all(|d| *d) {
                break;
            }
        }
        Ok(out)
    }
}
