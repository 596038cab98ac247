//! A real pretrained model for the drills: the Llama family (Llama, SmolLM2,
//! Qwen2/Qwen2.5), loaded into trainable candle `Var`s from a GGUF file
//! ([`super::gguf`]) or a Hugging Face directory ([`load_dir`]).
//!
//! ```text
//! tokens [B,T] → embed_tokens
//!   → N × { x + Attn(RMSNorm(x)) ; x + SwiGLU(RMSNorm(x)) }     (pre-norm)
//!   → RMSNorm → lm_head (= embed_tokens when tie_word_embeddings) → logits [B,T,V]
//! ```
//!
//! Architecture, as in `transformers`' `modeling_llama.py` / `modeling_qwen2.py`:
//! * RMSNorm `x / sqrt(mean(x²) + ε) · w`, written here with ordinary candle ops so
//!   it has a backward (candle_nn's fused `RmsNorm` records none);
//! * RoPE with base `rope_theta`, the "rotate half" convention (a GGUF stores
//!   q/k rows permuted for the interleaved convention; [`super::gguf`] undoes it);
//! * grouped-query attention: `num_key_value_heads` K/V heads shared by groups of
//!   query heads; q/k/v projections with a bias in Qwen2, without in Llama;
//! * SwiGLU MLP `down(silu(gate(x)) · up(x))`.
//!
//! Tensors keep their Hugging Face names (`model.layers.0.self_attn.q_proj.weight`,
//! …) in the `VarMap`. LoRA ([`LoraConfig`]): `y = x Wᵀ + (α/r)·x Aᵀ Bᵀ` on the
//! chosen projections, `A ~ N(0, 1/r)`, `B = 0` (the adapted model starts equal to
//! the base), the base frozen: only A and B train. Generation keeps a K/V cache
//! per layer ([`Llama::generate`]), so each new token costs one position, not the
//! whole sequence again.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{anyhow, bail, Context};
use candle_core::{DType, Device, Result, Tensor, Var, D};
use candle_nn::VarMap;
use serde::Deserialize;

use super::fused::packed::Packed;
use super::gpt::apply_rope;
pub use super::kv::KvCache;
use super::lm::{CausalLm, Scored};
use super::memo::Memo;
use super::ops;
use super::rng::Rng;
use super::sample::{pick, GenConfig, Tap};
use super::tokenizer::{Bpe, Tokenize};

/// The fields of a `config.json` this loader uses (others are ignored); a GGUF's
/// metadata is read into the same struct.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LlamaConfig {
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
    /// Bias on q/k/v: absent means the family's default (Qwen2 yes, Llama no).
    #[serde(default)]
    pub attention_bias: Option<bool>,
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

impl LlamaConfig {
    pub fn kv_heads(&self) -> usize {
        self.num_key_value_heads.unwrap_or(self.num_attention_heads)
    }

    /// Whether q/k/v projections carry a bias.
    pub fn qkv_bias(&self) -> bool {
        self.attention_bias.unwrap_or(self.model_type.as_deref() != Some("llama"))
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
            if t != "qwen2" && t != "llama" {
                return Err(format!(
                    "model_type is \"{t}\", this loader reads \"llama\" (Llama, SmolLM2) and \"qwen2\" (Qwen2, Qwen2.5)"
                ));
            }
        }
        if self.hidden_act != "silu" {
            return Err(format!("hidden_act \"{}\" is not supported (Llama and Qwen2 use silu)", self.hidden_act));
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
                (p("self_attn.k_proj.weight"), vec![kv, d]),
                (p("self_attn.v_proj.weight"), vec![kv, d]),
                (p("self_attn.o_proj.weight"), vec![d, d]),
                (p("post_attention_layernorm.weight"), vec![d]),
                (p("mlp.gate_proj.weight"), vec![i, d]),
                (p("mlp.up_proj.weight"), vec![i, d]),
                (p("mlp.down_proj.weight"), vec![d, i]),
            ]);
            if self.qkv_bias() {
                out.extend([
                    (p("self_attn.q_proj.bias"), vec![d]),
                    (p("self_attn.k_proj.bias"), vec![kv]),
                    (p("self_attn.v_proj.bias"), vec![kv]),
                ]);
            }
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
    /// `w` packed for decoding ([`crate::ml::fused::packed`]), made once when
    /// the base is first frozen under adapters and shared by every copy of
    /// the model (they share `w`'s storage too); `None` inside where `w` does
    /// not pack without loss.
    pub packed: Arc<OnceLock<Option<Arc<Packed>>>>,
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

/// Grouped-query attention: `q [B,H,T,hd]`, `k, v [B,kvh,S,hd]`, query head
/// `h` reading K/V head `h / (H/kvh)`, `mask` broadcastable to `[B,1,T,S]`.
/// The `H/kvh` query heads of a group are stacked along the time axis and
/// meet their one K/V head in a single matmul, so K and V are never copied
/// `H/kvh` times (that copy dominated decoding with a long cache).
pub fn grouped_attention(q: &Tensor, k: &Tensor, v: &Tensor, mask: &Tensor, scale: f64) -> Result<Tensor> {
    let (b, h, t, hd) = q.dims4()?;
    let (_, kvh, s, _) = k.dims4()?;
    let n = h / kvh;
    let q = q.contiguous()?.reshape((b, kvh, n * t, hd))?;
    let att = (q.matmul(&k.t()?)? * scale)?.reshape((b, kvh, n, t, s))?;
    let mask = if mask.rank() == 2 { mask.clone() } else { mask.unsqueeze(2)? };
    let att = ops::softmax(&att.broadcast_add(&mask)?)?.reshape((b, kvh, n * t, s))?;
    att.matmul(&v.contiguous()?)?.reshape((b, h, t, hd))
}

#[derive(Clone)]
pub struct Llama {
    pub cfg: LlamaConfig,
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
    /// Run the layers as the fused CPU op ([`crate::ml::fused::llama`]) where
    /// it applies (f32 on the CPU, every base tensor frozen); `false` keeps the
    /// composed candle ops, the reference the op is checked against.
    pub fused: bool,
    /// The fused op's recycled activation buffers, shared by clones.
    pool: std::sync::Arc<crate::ml::fused::Pool>,
}

/// Everything a drill needs from a model file or directory.
pub struct Loaded {
    pub model: Llama,
    /// The checkpoint's own tokenizer, read by the same wrapper as the lab's BPE.
    pub tokenizer: Bpe,
}

/// Load `dir` (config.json, *.safetensors, tokenizer.json) onto `device` in f32.
pub fn load_dir(dir: &Path, device: &Device) -> anyhow::Result<Loaded> {
    let model = Llama::load(dir, device, DType::F32)?;
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
pub fn read_config(dir: &Path) -> anyhow::Result<LlamaConfig> {
    if !dir.is_dir() {
        bail!("model directory {} does not exist (expected config.json, *.safetensors, tokenizer.json)", dir.display());
    }
    let path = dir.join("config.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("missing or unreadable {} (a Hugging Face model config)", path.display()))?;
    let cfg: LlamaConfig =
        serde_json::from_str(&text).with_context(|| format!("{} is not a Llama or Qwen2 config", path.display()))?;
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

/// The projections LoRA can adapt, by their Hugging Face names.
pub const LORA_TARGETS: [&str; 7] = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"];

/// Which projections get adapters, and how big.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
pub struct LoraConfig {
    pub rank: usize,
    pub alpha: f64,
    /// Names from [`LORA_TARGETS`].
    pub targets: Vec<String>,
    /// Adapt layers `from_layer..` only. Gradients then stop at that layer:
    /// the layers below run forward only, which makes a step cheaper.
    pub from_layer: usize,
    /// Seed of the `A` matrices.
    pub seed: u64,
}

impl LoraConfig {
    /// Rank `rank`, scale `alpha / rank`, on q_proj and v_proj of every layer.
    pub fn new(rank: usize, alpha: f64, seed: u64) -> LoraConfig {
        LoraConfig { rank, alpha, targets: vec!["q_proj".into(), "v_proj".into()], from_layer: 0, seed }
    }
}

impl Layer {
    /// The seven projections in [`LORA_TARGETS`] order.
    fn projs(&self) -> [&Proj; 7] {
        [&self.q, &self.k, &self.v, &self.o, &self.gate, &self.up, &self.down]
    }

    fn proj_mut(&mut self, name: &str) -> Option<&mut Proj> {
        Some(match name {
            "q_proj" => &mut self.q,
            "k_proj" => &mut self.k,
            "v_proj" => &mut self.v,
            "o_proj" => &mut self.o,
            "gate_proj" => &mut self.gate,
            "up_proj" => &mut self.up,
            "down_proj" => &mut self.down,
            _ => return None,
        })
    }
}

/// The HF name of a projection's parent module.
fn module_of(layer: usize, target: &str) -> String {
    let part = if matches!(target, "gate_proj" | "up_proj" | "down_proj") { "mlp" } else { "self_attn" };
    format!("model.layers.{layer}.{part}.{target}")
}

/// One sequence the model has read, with its K/V per layer (`[1, kvh, len, hd]`):
/// what a [`Memo`] holds for a Llama, in the order later calls look it up.
pub struct Remembered {
    pub tokens: Vec<u32>,
    pub kv: Vec<(Tensor, Tensor)>,
}

impl Llama {
    /// Load a checkpoint directory; every tensor becomes a `Var` of `dtype`.
    pub fn load(dir: &Path, device: &Device, dtype: DType) -> anyhow::Result<Llama> {
        let cfg = read_config(dir)?;
        let files = safetensors_files(dir)?;
        let mut tensors: HashMap<String, (Tensor, String)> = HashMap::new();
        for f in &files {
            // Load on the CPU first: converting there keeps a bf16 copy off the GPU.
            let ts = candle_core::safetensors::load(f, &Device::Cpu)
                .with_context(|| format!("{} is not a readable safetensors file", f.display()))?;
            for (name, t) in ts {
                tensors.insert(name, (t, f.display().to_string()));
            }
        }
        let whence = format!("{} file(s) in {}", files.len(), dir.display());
        Llama::from_tensors(cfg, tensors, &whence, "config.json", device, dtype)
    }

    /// Build the model from named tensors (HF names; each with the file it came
    /// from, for messages); `whence` and `implied_by` word the errors.
    pub fn from_tensors(
        cfg: LlamaConfig,
        mut tensors: HashMap<String, (Tensor, String)>,
        whence: &str,
        implied_by: &str,
        device: &Device,
        dtype: DType,
    ) -> anyhow::Result<Llama> {
        let varmap = VarMap::new();
        let shapes: HashMap<String, Vec<usize>> = cfg.expected_tensors().into_iter().collect();
        let mut take = |name: String| -> anyhow::Result<Tensor> {
            let shape = &shapes[&name];
            let (t, file) = tensors
                .remove(&name)
                .ok_or_else(|| anyhow!("tensor {name} is missing from the checkpoint ({whence})"))?;
            if t.dims() != shape.as_slice() {
                bail!(
                    "shape mismatch for tensor {name} in {file}: the file has {:?}, {implied_by} implies {:?}",
                    t.dims(),
                    shape
                );
            }
            let var = Var::from_tensor(&t.to_dtype(dtype)?.to_device(device)?)?;
            let out = var.as_tensor().clone();
            varmap.data().lock().expect("varmap lock").insert(name, var);
            Ok(out)
        };
        let embed = take("model.embed_tokens.weight".into())?;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for l in 0..cfg.num_hidden_layers {
            let p = |s: &str| format!("model.layers.{l}.{s}");
            let mut proj = |s: &str, bias: bool| -> anyhow::Result<Proj> {
                let w = take(p(&format!("{s}.weight")))?;
                let b = if bias { Some(take(p(&format!("{s}.bias")))?) } else { None };
                Ok(Proj { w, b, lora: None, packed: Default::default() })
            };
            let bias = cfg.qkv_bias();
            let q = proj("self_attn.q_proj", bias)?;
            let k = proj("self_attn.k_proj", bias)?;
            let v = proj("self_attn.v_proj", bias)?;
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
        Ok(Llama {
            cfg,
            varmap,
            device: device.clone(),
            dtype,
            embed,
            layers,
            norm,
            lm_head,
            lora_names: Vec::new(),
            fused: true,
            pool: Default::default(),
        })
    }

    /// Attach LoRA adapters as `cfg` says; from then on
    /// [`CausalLm::trainable_vars`] returns only the adapters (the base is frozen).
    /// `A ~ N(0, 1/rank)`, `B = 0`, so the model's output is unchanged at first.
    pub fn add_lora(&mut self, cfg: &LoraConfig) -> Result<()> {
        if cfg.rank == 0 {
            candle_core::bail!("LoRA rank must be positive");
        }
        if cfg.targets.is_empty() {
            candle_core::bail!("LoRA needs at least one target module ({})", LORA_TARGETS.join(", "));
        }
        if let Some(t) = cfg.targets.iter().find(|t| !LORA_TARGETS.contains(&t.as_str())) {
            candle_core::bail!("unknown LoRA target {t:?}: choose from {}", LORA_TARGETS.join(", "));
        }
        if cfg.from_layer >= self.layers.len() {
            candle_core::bail!("LoRA from layer {} but the model has {} layers", cfg.from_layer, self.layers.len());
        }
        self.freeze_base();
        self.pack_base()?;
        let mut rng = Rng::new(cfg.seed ^ 0x10_7a);
        let scale = cfg.alpha / cfg.rank as f64;
        let std = 1.0 / (cfg.rank as f32).sqrt();
        let (device, dtype) = (self.device.clone(), self.dtype);
        for l in cfg.from_layer..self.layers.len() {
            for target in &cfg.targets {
                let proj = self.layers[l].proj_mut(target).expect("target checked above");
                let (d_out, d_in) = proj.w.dims2()?;
                let a: Vec<f32> = (0..cfg.rank * d_in).map(|_| rng.normal() * std).collect();
                let a = Var::from_tensor(&Tensor::from_vec(a, (cfg.rank, d_in), &device)?.to_dtype(dtype)?)?;
                let b = Var::from_tensor(&Tensor::zeros((d_out, cfg.rank), dtype, &device)?)?;
                proj.lora = Some(Lora { a: a.as_tensor().clone(), b: b.as_tensor().clone(), scale });
                let name = module_of(l, target);
                let mut data = self.varmap.data().lock().expect("varmap lock");
                for (suffix, var) in [("lora_A.weight", a), ("lora_B.weight", b)] {
                    let full = format!("{name}.{suffix}");
                    data.insert(full.clone(), var);
                    self.lora_names.push(full);
                }
            }
        }
        Ok(())
    }

    /// Pack each frozen projection weight for decoding, where it packs without
    /// loss (a GGUF's Q4_1 tensors do) and the fused CPU op will read it.
    fn pack_base(&self) -> Result<()> {
        if !self.fused || !self.device.is_cpu() || self.dtype != DType::F32 || !crate::ml::fused::packed::fast() {
            return Ok(());
        }
        for layer in &self.layers {
            for p in layer.projs() {
                if p.packed.get().is_some() {
                    continue;
                }
                let (rows, cols) = p.w.dims2()?;
                let w: Vec<f32> = p.w.flatten_all()?.to_vec1()?;
                let _ = p.packed.set(Packed::pack(&w, rows, cols).map(Arc::new));
            }
        }
        Ok(())
    }

    /// Detach the base weights from the gradient graph (same storage, no copy):
    /// backprop then computes no gradient for them, and stops below the lowest
    /// layer that has an adapter.
    fn freeze_base(&mut self) {
        self.embed = self.embed.detach();
        self.norm = self.norm.detach();
        self.lm_head = self.lm_head.as_ref().map(Tensor::detach);
        for layer in &mut self.layers {
            layer.input_norm = layer.input_norm.detach();
            layer.post_norm = layer.post_norm.detach();
            for t in LORA_TARGETS {
                let p = layer.proj_mut(t).expect("a known target");
                p.w = p.w.detach();
                p.b = p.b.as_ref().map(Tensor::detach);
            }
        }
    }

    /// The same model with every weight, adapters included, out of the
    /// gradient graph: for inference, where the recorded graph would keep every
    /// intermediate tensor alive (the K/V cache would hold the whole history).
    pub fn detached(&self) -> Llama {
        let mut m = self.clone();
        m.freeze_base();
        for layer in &mut m.layers {
            for t in LORA_TARGETS {
                if let Some(l) = &mut layer.proj_mut(t).expect("a known target").lora {
                    l.a = l.a.detach();
                    l.b = l.b.detach();
                }
            }
        }
        m
    }

    /// [`detached`](Llama::detached), with the adapters copied: a reference
    /// policy that later steps of this model's optimizer leave as it is (they
    /// write the adapters in place). The base weights stay shared.
    pub fn frozen_copy(&self) -> Result<Llama> {
        let mut m = self.detached();
        for layer in &mut m.layers {
            for t in LORA_TARGETS {
                if let Some(l) = &mut layer.proj_mut(t).expect("a known target").lora {
                    l.a = l.a.copy()?;
                    l.b = l.b.copy()?;
                }
            }
        }
        Ok(m)
    }

    /// A second model on the same (frozen, shared) base weights whose
    /// adapters start where this model's are and train on their own: two
    /// arms from one warm start.
    pub fn trainable_copy(&self) -> Result<Llama> {
        let mut twin = self.clone();
        let varmap = VarMap::new();
        {
            let src = self.varmap.data().lock().expect("varmap lock");
            let mut dst = varmap.data().lock().expect("varmap lock");
            for (name, var) in src.iter() {
                let copy = match self.lora_names.contains(name) {
                    true => Var::from_tensor(&var.as_tensor().copy()?)?,
                    false => var.clone(),
                };
                dst.insert(name.clone(), copy);
            }
            for (l, layer) in twin.layers.iter_mut().enumerate() {
                for t in LORA_TARGETS {
                    if let Some(lora) = &mut layer.proj_mut(t).expect("a known target").lora {
                        let name = module_of(l, t);
                        let var = |suffix: &str| {
                            dst.get(&format!("{name}.{suffix}"))
                                .map(|v| v.as_tensor().clone())
                                .ok_or_else(|| candle_core::Error::Msg(format!("no adapter {name}.{suffix}")))
                        };
                        lora.a = var("lora_A.weight")?;
                        lora.b = var("lora_B.weight")?;
                    }
                }
            }
        }
        twin.varmap = varmap;
        Ok(twin)
    }

    /// A second model on the same (frozen, shared, not copied) base weights with
    /// fresh adapters: the way to train two arms from one loaded checkpoint.
    pub fn fork_with_lora(&self, cfg: &LoraConfig) -> Result<Llama> {
        let mut twin = self.clone();
        let varmap = VarMap::new();
        {
            let src = self.varmap.data().lock().expect("varmap lock");
            let mut dst = varmap.data().lock().expect("varmap lock");
            for (name, var) in src.iter().filter(|(n, _)| !self.lora_names.contains(n)) {
                dst.insert(name.clone(), var.clone());
            }
        }
        twin.varmap = varmap;
        twin.lora_names.clear();
        for layer in &mut twin.layers {
            for t in LORA_TARGETS {
                layer.proj_mut(t).expect("a known target").lora = None;
            }
        }
        twin.add_lora(cfg)?;
        Ok(twin)
    }

    pub fn num_params(&self) -> usize {
        self.vars().values().map(|v| v.elem_count()).sum()
    }

    /// The adapters as they are in the layers now, by their PEFT-style names
    /// (`model.layers.29.self_attn.q_proj.lora_A.weight`), and the LoRA
    /// config they make (seed 0: the values are given). Read from the layers,
    /// not the `VarMap`: a [`frozen_copy`](Llama::frozen_copy)'s adapters are
    /// its own copies while its map still names the original's. `None`
    /// without adapters.
    pub fn adapters(&self) -> Option<(LoraConfig, Vec<(String, Tensor)>)> {
        let mut out = Vec::new();
        let (mut rank, mut scale, mut from_layer, mut targets) = (0, 0.0, usize::MAX, Vec::<String>::new());
        for (l, layer) in self.layers.iter().enumerate() {
            for (t, p) in LORA_TARGETS.iter().zip(layer.projs()) {
                let Some(lora) = &p.lora else { continue };
                let name = module_of(l, t);
                out.push((format!("{name}.lora_A.weight"), lora.a.clone()));
                out.push((format!("{name}.lora_B.weight"), lora.b.clone()));
                rank = lora.a.dim(0).unwrap_or(0);
                scale = lora.scale;
                from_layer = from_layer.min(l);
                if !targets.iter().any(|x| x == t) {
                    targets.push(t.to_string());
                }
            }
        }
        if out.is_empty() {
            return None;
        }
        // In LORA_TARGETS order, whatever the layer they were first met in.
        targets.sort_by_key(|t| LORA_TARGETS.iter().position(|x| x == t));
        let cfg = LoraConfig { rank, alpha: scale * rank as f64, targets, from_layer, seed: 0 };
        Some((cfg, out))
    }

    /// This (frozen) base with adapters `cfg` set to `tensors` (named as
    /// [`adapters`](Llama::adapters) names them), detached: a trained run's
    /// model, for inference. Every adapter must be given, with its shape.
    pub fn with_adapters(&self, cfg: &LoraConfig, tensors: &HashMap<String, Tensor>) -> anyhow::Result<Llama> {
        let mut m = self.fork_with_lora(cfg)?;
        let vars = m.vars();
        for name in &m.lora_names {
            let t = tensors.get(name).ok_or_else(|| anyhow!("adapter {name} is missing"))?;
            let var = &vars[name];
            if t.dims() != var.dims() {
                bail!("adapter {name} has shape {:?}, the model needs {:?}", t.dims(), var.dims());
            }
            var.set(&t.to_dtype(m.dtype)?.to_device(&m.device)?)?;
        }
        if let Some(extra) = tensors.keys().find(|n| !m.lora_names.contains(n)) {
            bail!("adapter {extra} is not one this configuration has");
        }
        m = m.detached();
        Ok(m)
    }

    /// The LM head on final hidden states `[.., d] → [.., V]`.
    pub fn head(&self, hidden: &Tensor) -> Result<Tensor> {
        self.head_as(hidden, 0)
    }

    /// [`Self::head`] for rows that stand among `rows_as` ([`ops::linear_as`]).
    fn head_as(&self, hidden: &Tensor, rows_as: usize) -> Result<Tensor> {
        ops::linear_as(hidden, self.lm_head.as_ref().unwrap_or(&self.embed), None, rows_as)
    }

    /// The LM head only at the flat positions `kept` (indices into B·T) of
    /// hidden states `[B,T,d]`: logits `[N,V]`. Each skipped row saves a
    /// vocabulary-wide matmul and log-softmax (49 152 × 576 for SmolLM2).
    fn head_at(&self, hidden: &Tensor, kept: &Tensor) -> Result<Tensor> {
        let (b, t, d) = hidden.dims3()?;
        self.head(&hidden.reshape((b * t, d))?.index_select(kept, 0)?)
    }

    /// Final (normed) hidden states `[B,T,d]` of sequences read from
    /// position 0, before the LM head ([`Llama::head`]).
    pub fn final_hidden(&self, tokens: &Tensor) -> Result<Tensor> {
        self.hidden_from_start(tokens)
    }

    /// Final hidden states `[B,T,d]` of sequences read from position 0
    /// (causal mask, no cache): what training and scoring read.
    fn hidden_from_start(&self, tokens: &Tensor) -> Result<Tensor> {
        if let Some(h) = self.fused_hidden(tokens)? {
            return Ok(h);
        }
        let (b, t) = tokens.dims2()?;
        let pos = Tensor::arange(0u32, t as u32, &self.device)?.unsqueeze(0)?.broadcast_as((b, t))?.contiguous()?;
        let mask = ops::causal_mask(t, &self.device)?.to_dtype(self.dtype)?;
        self.hidden(&tokens.to_dtype(DType::U32)?, &pos, &mask, None)
    }

    /// [`hidden_from_start`](Self::hidden_from_start) through the fused CPU
    /// op, or `None` where it does not apply (another device or dtype, a base
    /// tensor being trained, `fused` off). The adapters go in as one flat
    /// vector, so candle's autograd hands each its gradient.
    fn fused_hidden(&self, tokens: &Tensor) -> Result<Option<Tensor>> {
        use crate::ml::fused::llama::StackOp;
        let Some((stack, flat, train)) = self.fused_stack()? else { return Ok(None) };
        let (b, t) = tokens.dims2()?;
        if t > self.cfg.max_position_embeddings {
            candle_core::bail!(
                "sequence of {t} tokens exceeds max_position_embeddings {}",
                self.cfg.max_position_embeddings
            );
        }
        let x = self.embed.index_select(&tokens.to_dtype(DType::U32)?.flatten_all()?, 0)?.reshape((
            b,
            t,
            self.cfg.hidden_size,
        ))?;
        Ok(Some(x.apply_op2(&flat, StackOp::new(std::sync::Arc::new(stack), train))?))
    }

    /// The fused op's description of this model, the adapters as one flat
    /// vector, and whether any adapter is being trained — or `None` where the
    /// op does not apply.
    fn fused_stack(&self) -> Result<Option<(crate::ml::fused::llama::Stack, Tensor, bool)>> {
        use crate::ml::fused::llama::{Dims, LayerTensors, Slot, Stack};
        if !self.fused || !self.device.is_cpu() || self.dtype != DType::F32 {
            return Ok(None);
        }
        let ready = |t: &Tensor| !t.track_op() && t.is_contiguous() && t.dtype() == DType::F32;
        let frozen = ready(&self.norm)
            && ready(&self.embed)
            && self.layers.iter().all(|l| {
                ready(&l.input_norm)
                    && ready(&l.post_norm)
                    && l.projs().iter().all(|p| ready(&p.w) && p.b.as_ref().is_none_or(ready))
            });
        if !frozen || self.layers.iter().any(|l| [&l.o, &l.gate, &l.up, &l.down].iter().any(|p| p.b.is_some())) {
            return Ok(None);
        }
        let (mut parts, mut slots, mut layers, mut off, mut train) = (Vec::new(), Vec::new(), Vec::new(), 0, false);
        for l in &self.layers {
            let projs = l.projs();
            let mut s: [Option<Slot>; 7] = [None; 7];
            for (i, p) in projs.iter().enumerate() {
                if let Some(lora) = &p.lora {
                    let (r, d_in) = lora.a.dims2()?;
                    let d_out = lora.b.dim(0)?;
                    s[i] = Some(Slot { off, rank: r, scale: lora.scale as f32 });
                    parts.push(lora.a.flatten_all()?);
                    parts.push(lora.b.flatten_all()?);
                    off += r * (d_in + d_out);
                    train |= lora.a.track_op() || lora.b.track_op();
                }
            }
            slots.push(s);
            layers.push(LayerTensors {
                input_norm: l.input_norm.clone(),
                post_norm: l.post_norm.clone(),
                w: projs.map(|p| p.w.clone()),
                bias: [&l.q, &l.k, &l.v].map(|p| p.b.clone()),
                packed: projs.map(|p| p.packed.get().cloned().flatten()),
            });
        }
        let flat = if parts.is_empty() { Tensor::zeros(1, DType::F32, &self.device)? } else { Tensor::cat(&parts, 0)? };
        let dims = Dims {
            d: self.cfg.hidden_size,
            heads: self.cfg.num_attention_heads,
            kv_heads: self.cfg.kv_heads(),
            head_dim: self.cfg.head_dim(),
            ff: self.cfg.intermediate_size,
            eps: self.cfg.rms_norm_eps as f32,
            rope_theta: self.cfg.rope_theta,
        };
        Ok(Some((Stack::new(dims, layers, self.norm.clone(), slots, off.max(1), self.pool.clone()), flat, train)))
    }

    /// Final (normed) hidden states `[B,T,d]`. With a cache, the new positions
    /// attend to the cached ones too (`mask` is then `[B,1,T,S]`, S = cached + T)
    /// and their K/V are appended.
    pub fn hidden(
        &self,
        tokens: &Tensor,
        positions: &Tensor,
        mask: &Tensor,
        mut cache: Option<&mut KvCache>,
    ) -> Result<Tensor> {
        let (b, t) = tokens.dims2()?;
        let cached = cache.as_ref().map_or(0, |c| c.len());
        if cached + t > self.cfg.max_position_embeddings {
            candle_core::bail!(
                "sequence of {} tokens exceeds max_position_embeddings {}",
                cached + t,
                self.cfg.max_position_embeddings
            );
        }
        if let Some(c) = cache.as_deref_mut() {
            if let Some((stack, flat, false)) = self.fused_stack()? {
                // Generation: every weight frozen, the fused decoder.
                let x = self.embed.index_select(&tokens.flatten_all()?, 0)?;
                let pos: Vec<u32> = positions.flatten_all()?.to_dtype(DType::U32)?.to_vec1()?;
                let s = cached + t;
                let m: Vec<f32> = mask.broadcast_as((b, 1, t, s))?.flatten_all()?.to_dtype(DType::F32)?.to_vec1()?;
                let flat: Vec<f32> = flat.to_vec1()?;
                let out = stack.decode(&x.flatten_all()?.to_vec1()?, b, t, &pos, &m, &flat, c)?;
                return Tensor::from_vec(out, (b, t, self.cfg.hidden_size), &self.device);
            }
        }
        let (h, kvh, hd) = (self.cfg.num_attention_heads, self.cfg.kv_heads(), self.cfg.head_dim());
        let eps = self.cfg.rms_norm_eps;
        let (cos, sin) = self.rope_tables(positions)?;
        let mut x = self.embed.index_select(&tokens.flatten_all()?, 0)?.reshape((b, t, self.cfg.hidden_size))?;
        let scale = 1.0 / (hd as f64).sqrt();
        for (li, layer) in self.layers.iter().enumerate() {
            let hs = rms_norm(&x, &layer.input_norm, eps)?;
            let heads = |p: &Proj, n: usize| -> Result<Tensor> {
                p.forward(&hs)?.reshape((b, t, n, hd))?.transpose(1, 2)?.contiguous()
            };
            let q = apply_rope(&heads(&layer.q, h)?, &cos, &sin)?;
            let mut k = apply_rope(&heads(&layer.k, kvh)?, &cos, &sin)?;
            let mut v = heads(&layer.v, kvh)?;
            if let Some(c) = cache.as_deref_mut() {
                (k, v) = c.append(li, k, v)?;
            }
            let y = grouped_attention(&q, &k, &v, mask, scale)?; // [B,H,T,hd]
            let y = y.transpose(1, 2)?.reshape((b, t, h * hd))?;
            x = (x + layer.o.forward(&y)?)?;
            let hs = rms_norm(&x, &layer.post_norm, eps)?;
            let mlp =
                layer.down.forward(&(candle_nn::ops::silu(&layer.gate.forward(&hs)?)? * layer.up.forward(&hs)?)?)?;
            x = (x + mlp)?;
        }
        rms_norm(&x, &self.norm, eps)
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

    /// When every prompt of a batch starts with the same tokens (the system
    /// prompt and tool format of a group of episodes) and the memo offers
    /// less of them, read that prefix once, at batch 1, and remember its K/V:
    /// each row then reuses it instead of reading it again.
    fn remember_shared_prefix(&self, prompts: &[Vec<u32>], seen: &mut Vec<Remembered>) -> Result<()> {
        const WORTH: usize = 16;
        if prompts.len() < 2 {
            return Ok(());
        }
        let first = &prompts[0];
        let shortest = prompts.iter().map(|p| p.len()).min().unwrap_or(0);
        // At least one token of each prompt is read anew (its logits start the answer).
        let shared = prompts[1..]
            .iter()
            .map(|p| p.iter().zip(first).take_while(|(a, b)| a == b).count())
            .min()
            .unwrap_or(0)
            .min(shortest.saturating_sub(1));
        let known =
            seen.iter().map(|r| r.tokens.iter().zip(first).take_while(|(a, b)| a == b).count()).max().unwrap_or(0);
        if shared < WORTH || shared <= known {
            return Ok(());
        }
        let model = self.detached();
        let tokens = Tensor::from_vec(first[..shared].to_vec(), (1, shared), &self.device)?;
        let positions = Tensor::arange(0u32, shared as u32, &self.device)?.unsqueeze(0)?;
        let mask = ops::causal_mask(shared, &self.device)?.to_dtype(self.dtype)?.reshape((1, 1, shared, shared))?;
        let mut cache = KvCache::default();
        model.hidden(&tokens, &positions, &mask, Some(&mut cache))?;
        let kv = cache.layers.into_iter().flatten().collect();
        seen.push(Remembered { tokens: first[..shared].to_vec(), kv });
        Ok(())
    }

    /// Logits `[B,V]` of the last position after feeding `tokens` (`[B·t]`,
    /// at `positions`, with `pads` marking, per row, every key position so
    /// far that is padding), reading and extending `cache`: one step of
    /// [`CausalLm::generate_with`].
    pub fn step_logits(
        &self,
        tokens: Vec<u32>,
        positions: Vec<u32>,
        pads: &[Vec<bool>],
        cache: &mut KvCache,
    ) -> Result<Vec<Vec<f32>>> {
        let b = pads.len();
        let t = tokens.len() / b.max(1);
        let tokens = Tensor::from_vec(tokens, (b, t), &self.device)?;
        let positions = Tensor::from_vec(positions, (b, t), &self.device)?;
        let mask = ops::cached_mask(pads, t, &self.device)?.to_dtype(self.dtype)?;
        let h = self.hidden(&tokens, &positions, &mask, Some(cache))?.narrow(1, t - 1, 1)?;
        self.head_as(&h, cache.batch)?.squeeze(1)?.to_dtype(DType::F32)?.to_vec2::<f32>()
    }

    /// [`Self::step_logits`] when rows repeat: row `i` is row `copies[i]`'s
    /// twin (`copies[i] == i` for a first one). Only the first ones are read;
    /// then their K/V and logits are copied to their twins.
    fn step_logits_once_each(
        &self,
        tokens: Vec<u32>,
        positions: Vec<u32>,
        pads: &[Vec<bool>],
        cache: &mut KvCache,
        copies: &[usize],
    ) -> Result<Vec<Vec<f32>>> {
        let b = pads.len();
        let t = tokens.len() / b.max(1);
        let firsts: Vec<usize> = (0..b).filter(|&i| copies[i] == i).collect();
        if firsts.len() == b {
            return self.step_logits(tokens, positions, pads, cache);
        }
        let rows = |v: &[u32]| -> Vec<u32> { firsts.iter().flat_map(|&i| v[i * t..(i + 1) * t].to_vec()).collect() };
        let mut part = cache.rows(&firsts)?;
        let first_pads: Vec<Vec<bool>> = firsts.iter().map(|&i| pads[i].clone()).collect();
        let logits = self.step_logits(rows(&tokens), rows(&positions), &first_pads, &mut part)?;
        // Row i takes the row of `firsts` that holds its twin `copies[i]`.
        let of: Vec<usize> = copies.iter().map(|&c| firsts.partition_point(|&f| f < c)).collect();
        *cache = part.rows(&of)?;
        Ok(of.into_iter().map(|k| logits[k].clone()).collect())
    }
}

impl CausalLm for Llama {
    fn forward(&self, tokens: &Tensor) -> Result<Tensor> {
        self.head(&self.hidden_from_start(tokens)?)
    }

    /// The LM head (a 49 152 × 576 matmul per position for SmolLM2) runs only
    /// at the scored positions: with the agent's lines as the only targets,
    /// that is a fifth of them.
    fn masked_loss(&self, tokens: &Tensor, labels: &Tensor) -> Result<Tensor> {
        let hidden = self.hidden_from_start(tokens)?;
        let labels: Vec<i64> = labels.flatten_all()?.to_dtype(DType::I64)?.to_vec1()?;
        let kept: Vec<u32> = (0..labels.len() as u32).filter(|&i| labels[i as usize] >= 0).collect();
        if kept.is_empty() {
            return Tensor::zeros((), self.dtype, &self.device);
        }
        let targets: Vec<u32> = kept.iter().map(|&i| labels[i as usize] as u32).collect();
        let n = kept.len();
        let logits = self.head_at(&hidden, &Tensor::new(kept, &self.device)?)?;
        super::ops::cross_entropy_sum(&logits, &targets)? / n as f64
    }

    /// The LM head runs only where `keep` is non-zero (the agent's tokens of
    /// an RL batch), forward and backward.
    fn scored_logprobs(&self, tokens: &Tensor, targets: &Tensor, keep: &Tensor, entropy: bool) -> Result<Scored> {
        let (b, t) = targets.dims2()?;
        let hidden = self.hidden_from_start(tokens)?.narrow(1, 0, t)?;
        let keep: Vec<f32> = keep.flatten_all()?.to_dtype(DType::F32)?.to_vec1()?;
        let kept: Vec<u32> = (0..keep.len() as u32).filter(|&i| keep[i as usize] != 0.0).collect();
        let zeros = || Tensor::zeros((b, t), self.dtype, &self.device);
        if kept.is_empty() {
            return Ok(Scored { logp: zeros()?, entropy: if entropy { Some(zeros()?) } else { None } });
        }
        let kept = Tensor::new(kept, &self.device)?;
        let chosen = targets.flatten_all()?.index_select(&kept, 0)?;
        let scored = Scored::from_logits(&self.head_at(&hidden, &kept)?, &chosen, entropy)?;
        // Back to [B,T], 0 at the skipped positions (index_add passes gradients through).
        let place = |v: &Tensor| zeros()?.flatten_all()?.index_add(&kept, v, 0)?.reshape((b, t));
        Ok(Scored { logp: place(&scored.logp)?, entropy: scored.entropy.as_ref().map(place).transpose()? })
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

    /// Batched and left-padded, with a K/V cache: the prompts are read in one
    /// pass, then each new token is one position through the layers.
    fn generate(&self, prompts: &[Vec<u32>], cfg: &GenConfig, rng: &mut Rng) -> Result<Vec<Vec<u32>>> {
        self.generate_with(prompts, cfg, rng, &mut Memo::default())
    }

    /// Each row starts from the memo's sequence that shares the longest prefix
    /// with its prompt: those positions' K/V are reused, only the rest is read.
    /// The batch's cache is laid out `[cached block | new block]`, each row
    /// left-padded within each block; padding is masked wherever it sits, and
    /// positions count real tokens only, so a row computes what it would alone.
    fn generate_tapped(
        &self,
        prompts: &[Vec<u32>],
        cfg: &GenConfig,
        rng: &mut Rng,
        memo: &mut Memo,
        mut tap: Option<&mut Tap<'_>>,
    ) -> Result<Vec<Vec<u32>>> {
        let b = prompts.len();
        if b == 0 || prompts.iter().any(|p| p.is_empty()) {
            return Ok(vec![Vec::new(); b]);
        }
        let longest = prompts.iter().map(|p| p.len()).max().unwrap_or(0);
        let budget = cfg.max_new.min(self.cfg.max_position_embeddings.saturating_sub(longest));
        let seen: &mut Vec<Remembered> = memo.state();
        self.remember_shared_prefix(prompts, seen)?;
        // Per row: the reused prefix length and the memo entry it comes from.
        let reuse = super::memo::reuse_plan(seen.iter().map(|r| r.tokens.as_slice()), prompts);
        let c_max = reuse.iter().map(|(c, _)| *c).max().unwrap_or(0);
        let n_max = prompts.iter().zip(&reuse).map(|(p, (c, _))| p.len() - c).max().unwrap_or(0);
        let model = self.detached();
        let (kvh, hd) = (self.cfg.kv_heads(), self.cfg.head_dim());
        // Compacting: the products run as for all `b` rows (see `KvCache::batch`).
        let mut cache = KvCache { batch: if cfg.compact { b } else { 0 }, ..KvCache::default() };
        if c_max > 0 {
            for layer in 0..self.layers.len() {
                let (mut ks, mut vs) = (Vec::with_capacity(b), Vec::with_capacity(b));
                for &(c, r) in &reuse {
                    let zeros = Tensor::zeros((1, kvh, c_max - c, hd), self.dtype, &self.device)?;
                    let left_pad = |t: &Tensor| -> Result<Tensor> {
                        let t = t.narrow(2, 0, c)?;
                        if c == c_max {
                            Ok(t)
                        } else {
                            Tensor::cat(&[&zeros, &t], 2)
                        }
                    };
                    match r {
                        Some(k) if c > 0 => {
                            let (key, value) = &seen[k].kv[layer];
                            ks.push(left_pad(key)?);
                            vs.push(left_pad(value)?);
                        }
                        _ => {
                            ks.push(zeros.clone());
                            vs.push(zeros);
                        }
                    }
                }
                cache.layers.push(Some((Tensor::cat(&ks, 0)?, Tensor::cat(&vs, 0)?)));
            }
        }
        // A continued sequence replaces the entry it continues.
        let mut used: Vec<usize> = reuse.iter().filter_map(|(_, k)| *k).collect();
        used.sort_unstable();
        used.dedup();
        for k in used.into_iter().rev() {
            seen.swap_remove(k);
        }
        let pad = prompts[0][0];
        let (mut tokens, mut positions) = (Vec::with_capacity(b * n_max), Vec::with_capacity(b * n_max));
        let mut pads: Vec<Vec<bool>> = Vec::with_capacity(b);
        // Per row: the key slots that hold its real tokens, and those tokens.
        let mut slots: Vec<Vec<usize>> = Vec::with_capacity(b);
        let mut fed: Vec<Vec<u32>> = Vec::with_capacity(b);
        for (p, (c, _)) in prompts.iter().zip(&reuse) {
            let new = &p[*c..];
            let n_pad = n_max - new.len();
            tokens.extend(std::iter::repeat_n(pad, n_pad).chain(new.iter().copied()));
            positions.extend((0..n_max).map(|i| (c + i.saturating_sub(n_pad)) as u32));
            let mut row: Vec<bool> = (0..c_max).map(|i| i < c_max - c).collect();
            row.extend((0..n_max).map(|i| i < n_pad));
            slots.push((0..row.len()).filter(|&i| !row[i]).collect());
            pads.push(row);
            fed.push(p.clone());
        }
        let mut next_pos: Vec<u32> = prompts.iter().map(|p| p.len() as u32).collect();
        let mut out = vec![Vec::new(); b];
        let mut done = vec![false; b];
        // The rows still in the batch (indices into `prompts`), in order; `pads` follows them.
        let mut live: Vec<usize> = (0..b).collect();
        // Compacting: each row's first identical row (itself if none before it).
        let copies: Option<Vec<usize>> = cfg.compact.then(|| {
            let mut first = std::collections::HashMap::new();
            prompts.iter().zip(&reuse).enumerate().map(|(i, key)| *first.entry(key).or_insert(i)).collect()
        });
        // Row j of the cache as a memo entry; entries join the memo in row
        // order at the end, finished rows' too, so compacting does not change
        // which entry a later call reuses.
        let remember = |slots: &[usize], j: usize, cache: &KvCache, fed: Vec<u32>| -> Result<Remembered> {
            let s = cache.len();
            let keep: Vec<u32> = slots.iter().filter(|&&k| k < s).map(|&k| k as u32).collect();
            let tokens: Vec<u32> = fed.into_iter().take(keep.len()).collect();
            let idx = Tensor::new(keep, &self.device)?;
            let mut kv = Vec::with_capacity(self.layers.len());
            for l in cache.layers.iter().flatten() {
                kv.push((l.0.narrow(0, j, 1)?.index_select(&idx, 2)?, l.1.narrow(0, j, 1)?.index_select(&idx, 2)?));
            }
            Ok(Remembered { tokens, kv })
        };
        let mut entries: Vec<(usize, Remembered)> = Vec::with_capacity(b);
        for step in 0..budget {
            let last = match &copies {
                Some(copies) if step == 0 => {
                    model.step_logits_once_each(tokens, positions, &pads, &mut cache, copies)?
                }
                _ => model.step_logits(tokens, positions, &pads, &mut cache)?,
            };
            (tokens, positions) = (Vec::with_capacity(b), Vec::with_capacity(b));
            let width = pads[0].len();
            let more = step + 1 < budget;
            for (j, &i) in live.iter().enumerate() {
                let tok = if done[i] { pad } else { pick(&last[j], cfg.decoding, rng) };
                if !done[i] {
                    if let Some(tap) = tap.as_deref_mut() {
                        tap(i, tok, &last[j]);
                    }
                    out[i].push(tok);
                    done[i] = cfg.stop.contains(&tok);
                    if more && !done[i] {
                        // Fed next step: remembered with the row.
                        slots[i].push(width);
                        fed[i].push(tok);
                    }
                }
                tokens.push(tok);
                positions.push(next_pos[i]);
                next_pos[i] += 1;
                pads[j].push(false);
            }
            if done.iter().all(|d| *d) || !more {
                break;
            }
            // Compacting: a finished row leaves the batch (remembered as it is).
            if cfg.compact && live.iter().any(|&i| done[i]) {
                let keep: Vec<usize> = (0..live.len()).filter(|&j| !done[live[j]]).collect();
                for (j, &i) in live.iter().enumerate() {
                    if done[i] {
                        entries.push((i, remember(&slots[i], j, &cache, std::mem::take(&mut fed[i]))?));
                    }
                }
                cache = cache.rows(&keep)?;
                tokens = keep.iter().map(|&j| tokens[j]).collect();
                positions = keep.iter().map(|&j| positions[j]).collect();
                pads = keep.iter().map(|&j| pads[j].clone()).collect();
                live = keep.iter().map(|&j| live[j]).collect();
            }
        }
        // Remember each row's real positions for the next call.
        for (j, &i) in live.iter().enumerate() {
            entries.push((i, remember(&slots[i], j, &cache, std::mem::take(&mut fed[i]))?));
        }
        entries.sort_by_key(|(i, _)| *i);
        seen.extend(entries.into_iter().map(|(_, r)| r));
        Ok(out)
    }
}
