//! The tiny GPT: a decoder-only transformer, readable top to bottom.
//!
//! ```text
//! tokens [B,T] → token embedding (+ learned position embedding, or RoPE in attention)
//!   → n_layers × { x + Attn(LN(x)) ; x + MLP(LN(x)) }      (pre-norm blocks)
//!   → LN → LM head (tied to the token embedding by default) → logits [B,T,V]
//! ```
//!
//! Attention is causal multi-head self-attention with a fused QKV projection;
//! the MLP is `d → 4d → d` with exact GELU, or SwiGLU as an option. Weights are
//! initialised as in GPT-2: N(0, 0.02), residual projections scaled by
//! 1/√(2·n_layers), biases 0, norm gains 1. Every parameter is a candle `Var`
//! in a `VarMap`, named like `blocks.0.attn.qkv.weight`, so any of them can be
//! trained, frozen, saved and reloaded.

use std::collections::BTreeMap;

use candle_core::{DType, Device, Result, Tensor, Var, D};
use candle_nn::VarMap;

pub use super::gpt_config::{GptConfig, MlpKind, PosEncoding, RopeScaling};
pub use super::kv::KvCache;
use super::ops;
use super::rng::Rng;

/// `y = x @ wᵀ + b`.
#[derive(Debug, Clone)]
pub struct Linear {
    pub w: Tensor,
    pub b: Option<Tensor>,
}

impl Linear {
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        ops::linear(x, &self.w, self.b.as_ref())
    }
}

#[derive(Debug, Clone)]
pub struct LayerNorm {
    pub w: Tensor,
    pub b: Tensor,
}

impl LayerNorm {
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        ops::layer_norm(x, &self.w, &self.b, 1e-5)
    }
}

#[derive(Debug, Clone)]
pub struct Attention {
    pub qkv: Linear,
    pub proj: Linear,
    pub n_heads: usize,
    pub rope: bool,
}

impl Attention {
    /// `x: [B,t,D]`, `mask` broadcastable to `[B,H,t,S]`, `rope`: (cos, sin) for the t positions.
    fn forward(
        &self,
        x: &Tensor,
        mask: &Tensor,
        rope: Option<&(Tensor, Tensor)>,
        cache: Option<(&mut KvCache, usize)>,
    ) -> Result<Tensor> {
        let (b, t, d) = x.dims3()?;
        let hd = d / self.n_heads;
        let qkv = self.qkv.forward(x)?; // [B,t,3D]
        let heads = |i: usize| -> Result<Tensor> {
            qkv.narrow(D::Minus1, i * d, d)?.reshape((b, t, self.n_heads, hd))?.transpose(1, 2)?.contiguous()
        };
        let (mut q, mut k, mut v) = (heads(0)?, heads(1)?, heads(2)?); // [B,H,t,hd]
        if let Some((cos, sin)) = rope {
            q = apply_rope(&q, cos, sin)?;
            k = apply_rope(&k, cos, sin)?;
        }
        if let Some((cache, layer)) = cache {
            (k, v) = cache.append(layer, k, v)?;
        }
        let scale = 1.0 / (hd as f64).sqrt();
        let att = (q.matmul(&k.t()?)? * scale)?.broadcast_add(mask)?; // [B,H,t,S]
        let att = ops::softmax(&att)?;
        let y = att.matmul(&v)?; // [B,H,t,hd]
        let y = y.transpose(1, 2)?.reshape((b, t, d))?;
        self.proj.forward(&y)
    }
}

/// Rotate pairs (x₁, x₂) of the two halves of each head by position-dependent angles
/// (the "rotate half" convention, also used by Qwen2).
pub(crate) fn apply_rope(x: &Tensor, cos: &Tensor, sin: &Tensor) -> Result<Tensor> {
    let hd = x.dim(D::Minus1)?;
    let x1 = x.narrow(D::Minus1, 0, hd / 2)?;
    let x2 = x.narrow(D::Minus1, hd / 2, hd / 2)?;
    let rotated = Tensor::cat(&[&x2.neg()?, &x1], D::Minus1)?;
    x.broadcast_mul(cos)? + rotated.broadcast_mul(sin)?
}

#[derive(Debug, Clone)]
pub enum Mlp {
    Gelu { fc: Linear, proj: Linear },
    SwiGlu { gate: Linear, up: Linear, proj: Linear },
}

impl Mlp {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match self {
            Mlp::Gelu { fc, proj } => proj.forward(&ops::gelu(&fc.forward(x)?)?),
            Mlp::SwiGlu { gate, up, proj } => {
                let g = candle_nn::ops::silu(&gate.forward(x)?)?;
                proj.forward(&(g * up.forward(x)?)?)
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct Block {
    pub ln1: LayerNorm,
    pub attn: Attention,
    pub ln2: LayerNorm,
    pub mlp: Mlp,
}

impl Block {
    fn forward(
        &self,
        x: &Tensor,
        mask: &Tensor,
        rope: Option<&(Tensor, Tensor)>,
        cache: Option<(&mut KvCache, usize)>,
    ) -> Result<Tensor> {
        let x = (x + self.attn.forward(&self.ln1.forward(x)?, mask, rope, cache)?)?;
        &x + self.mlp.forward(&self.ln2.forward(&x)?)?
    }
}

/// Positions of the tokens fed to [`Gpt::run`].
pub enum Positions<'a> {
    /// `0..T` for every row (training, scoring).
    Range(usize),
    /// Per-row absolute positions `[B, t]` (cached, left-padded generation).
    PerRow(&'a [Vec<u32>]),
}

pub struct Gpt {
    pub cfg: GptConfig,
    pub varmap: VarMap,
    pub device: Device,
    /// Parameter layout of the fused CPU op, when it covers this config.
    fused: Option<std::sync::Arc<super::fused::Layout>>,
    /// Use the fused op on the CPU (on by default; tests compare both paths).
    pub use_fused: bool,
    pub wte: Tensor,
    pub wpe: Option<Tensor>,
    pub blocks: Vec<Block>,
    pub ln_f: LayerNorm,
    pub lm_head: Option<Tensor>,
}

/// Registers parameters in a VarMap as they are created.
struct Params<'a> {
    varmap: &'a VarMap,
    device: &'a Device,
    rng: &'a mut Rng,
}

impl Params<'_> {
    fn add(&mut self, name: &str, shape: &[usize], init: Init) -> Result<Tensor> {
        let n: usize = shape.iter().product();
        let data: Vec<f32> = match init {
            Init::Normal(std) => (0..n).map(|_| self.rng.normal() * std).collect(),
            Init::Zeros => vec![0.0; n],
            Init::Ones => vec![1.0; n],
        };
        let var = Var::from_vec(data, shape, self.device)?;
        let t = var.as_tensor().clone();
        self.varmap.data().lock().expect("varmap lock").insert(name.to_string(), var);
        Ok(t)
    }

    fn linear(&mut self, name: &str, d_in: usize, d_out: usize, std: f32, bias: bool) -> Result<Linear> {
        let w = self.add(&format!("{name}.weight"), &[d_out, d_in], Init::Normal(std))?;
        let b = if bias { Some(self.add(&format!("{name}.bias"), &[d_out], Init::Zeros)?) } else { None };
        Ok(Linear { w, b })
    }

    fn norm(&mut self, name: &str, d: usize) -> Result<LayerNorm> {
        Ok(LayerNorm {
            w: self.add(&format!("{name}.weight"), &[d], Init::Ones)?,
            b: self.add(&format!("{name}.bias"), &[d], Init::Zeros)?,
        })
    }
}

enum Init {
    Normal(f32),
    Zeros,
    Ones,
}

impl Gpt {
    /// A freshly initialised model; the same seed gives the same weights on any device.
    pub fn new(cfg: GptConfig, seed: u64, device: &Device) -> Result<Gpt> {
        cfg.validate().map_err(candle_core::Error::msg)?;
        let varmap = VarMap::new();
        let mut rng = Rng::new(seed ^ 0x6770_7400);
        let mut p = Params { varmap: &varmap, device, rng: &mut rng };
        let d = cfg.d_model;
        let std = 0.02f32;
        let resid_std = std / (2.0 * cfg.n_layers as f32).sqrt();
        let wte = p.add("wte.weight", &[cfg.vocab, d], Init::Normal(std))?;
        let wpe = match cfg.pos {
            PosEncoding::Learned => Some(p.add("wpe.weight", &[cfg.context, d], Init::Normal(std))?),
            PosEncoding::Rope => None,
        };
        let mut blocks = Vec::with_capacity(cfg.n_layers);
        for l in 0..cfg.n_layers {
            let name = |s: &str| format!("blocks.{l}.{s}");
            let ln1 = p.norm(&name("ln1"), d)?;
            let qkv = p.linear(&name("attn.qkv"), d, 3 * d, std, true)?;
            let proj = p.linear(&name("attn.proj"), d, d, resid_std, true)?;
            let ln2 = p.norm(&name("ln2"), d)?;
            let h = cfg.mlp_hidden();
            let mlp = match cfg.mlp {
                MlpKind::Gelu => Mlp::Gelu {
                    fc: p.linear(&name("mlp.fc"), d, h, std, true)?,
                    proj: p.linear(&name("mlp.proj"), h, d, resid_std, true)?,
                },
                MlpKind::SwiGlu => Mlp::SwiGlu {
                    gate: p.linear(&name("mlp.gate"), d, h, std, false)?,
                    up: p.linear(&name("mlp.up"), d, h, std, false)?,
                    proj: p.linear(&name("mlp.proj"), h, d, resid_std, false)?,
                },
            };
            let attn = Attention { qkv, proj, n_heads: cfg.n_heads, rope: cfg.pos == PosEncoding::Rope };
            blocks.push(Block { ln1, attn, ln2, mlp });
        }
        let ln_f = p.norm("ln_f", d)?;
        let lm_head =
            if cfg.tied { None } else { Some(p.add("lm_head.weight", &[cfg.vocab, d], Init::Normal(std))?) };
        let fused = super::fused::Layout::new(&cfg).map(std::sync::Arc::new);
        Ok(Gpt { cfg, varmap, device: device.clone(), fused, use_fused: true, wte, wpe, blocks, ln_f, lm_head })
    }

    /// All parameters by name, sorted.
    pub fn vars(&self) -> BTreeMap<String, Var> {
        self.varmap.data().lock().expect("varmap lock").iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// A new model with the same config and a copy of these weights (a
    /// checkpoint in memory: train the copy, the original stays).
    pub fn fork(&self, seed: u64) -> Result<Gpt> {
        self.fork_as(self.cfg.clone(), seed)
    }

    /// [`fork`](Gpt::fork) under another config with the same parameters
    /// (another RoPE scaling, a longer `context`).
    pub fn fork_as(&self, cfg: GptConfig, seed: u64) -> Result<Gpt> {
        let copy = Gpt::new(cfg, seed, &self.device)?;
        let mine = self.vars();
        for (name, v) in copy.vars() {
            if let Some(src) = mine.get(&name) {
                v.set(&src.as_tensor().copy()?)?;
            }
        }
        Ok(copy)
    }

    /// Parameters whose name passes `keep` (to train a subset and freeze the rest).
    pub fn vars_where(&self, keep: impl Fn(&str) -> bool) -> Vec<Var> {
        self.vars().into_iter().filter(|(k, _)| keep(k)).map(|(_, v)| v).collect()
    }

    pub fn num_params(&self) -> usize {
        self.vars().values().map(|v| v.elem_count()).sum()
    }

    /// Logits `[B,T,V]` for token ids `[B,T]` (u32), positions `0..T`, causal.
    /// On the CPU this runs the fused op (`src/ml/fused/`), elsewhere the
    /// composed model below; both give the same values and gradients.
    pub fn forward(&self, tokens: &Tensor) -> Result<Tensor> {
        match &self.fused {
            Some(layout) if self.use_fused && self.device.is_cpu() => {
                let params = layout.concat(&self.vars())?;
                super::fused::GptOp::new(self.cfg.clone(), layout.clone())
                    .forward(&tokens.to_dtype(DType::U32)?, &params)
            }
            _ => self.forward_composed(tokens),
        }
    }

    /// The fused CPU layout, when the fused path applies to this model.
    pub fn fused_layout(&self) -> Option<&super::fused::Layout> {
        self.fused.as_deref().filter(|_| self.use_fused && self.device.is_cpu())
    }

    /// The model written as candle ops, block by block (the reference).
    pub fn forward_composed(&self, tokens: &Tensor) -> Result<Tensor> {
        let (_, t) = tokens.dims2()?;
        let mask = ops::causal_mask(t, &self.device)?;
        self.run(tokens, Positions::Range(t), &mask, None)
    }

    /// The general forward: explicit positions, an additive mask broadcastable
    /// to `[B,H,t,S]`, and an optional KV cache that grows by `t` positions.
    pub fn run(
        &self,
        tokens: &Tensor,
        pos: Positions<'_>,
        mask: &Tensor,
        mut cache: Option<&mut KvCache>,
    ) -> Result<Tensor> {
        let (b, t) = tokens.dims2()?;
        let past = cache.as_ref().map_or(0, |c| c.len());
        if past + t > self.cfg.context {
            candle_core::bail!("sequence of {} tokens exceeds the model context of {}", past + t, self.cfg.context);
        }
        let pos_ids: Tensor = match pos {
            Positions::Range(n) => Tensor::arange(past as u32, (past + n) as u32, &self.device)?
                .unsqueeze(0)?
                .broadcast_as((b, t))?
                .contiguous()?,
            Positions::PerRow(rows) => {
                Tensor::from_vec(rows.iter().flatten().copied().collect::<Vec<u32>>(), (b, t), &self.device)?
            }
        };
        let mut x = self.wte.embedding_lookup(tokens)?; // [B,t,D]
        let rope = match &self.wpe {
            Some(wpe) => {
                x = (x + wpe.embedding_lookup(&pos_ids)?)?;
                None
            }
            None => Some(self.rope_tables(&pos_ids)?),
        };
        for (l, block) in self.blocks.iter().enumerate() {
            x = block.forward(&x, mask, rope.as_ref(), cache.as_deref_mut().map(|c| (c, l)))?;
        }
        let x = self.ln_f.forward(&x)?;
        let head = self.lm_head.as_ref().unwrap_or(&self.wte);
        ops::linear(&x, head, None)
    }

    /// cos/sin tables `[B,1,t,hd]` for RoPE at the given positions (base
    /// 10000, frequencies and attention scale from `cfg.rope_scaling`).
    fn rope_tables(&self, pos_ids: &Tensor) -> Result<(Tensor, Tensor)> {
        let hd = self.cfg.head_dim();
        let half = hd / 2;
        let inv = Tensor::from_vec(self.cfg.rope_scaling.inv_freq(hd), (1, 1, half), &self.device)?;
        let angles = pos_ids.to_dtype(DType::F32)?.unsqueeze(2)?.broadcast_mul(&inv)?; // [B,t,half]
        let angles = Tensor::cat(&[&angles, &angles], D::Minus1)?.unsqueeze(1)?; // [B,1,t,hd]
        let m = self.cfg.rope_scaling.attention_scale() as f64;
        Ok(((angles.cos()? * m)?, (angles.sin()? * m)?))
    }
}

/// `table[ids]` as a differentiable gather (index_select has a backward).
trait EmbeddingLookup {
    fn embedding_lookup(&self, ids: &Tensor) -> Result<Tensor>;
}

impl EmbeddingLookup for Tensor {
    fn embedding_lookup(&self, ids: &Tensor) -> Result<Tensor> {
        let dims = ids.dims().to_vec();
        let flat = ids.flatten_all()?;
        let rows = self.index_select(&flat, 0)?;
        let mut out = dims;
        out.push(self.dim(1)?);
        rows.reshape(out)
    }
}

/// Bytes of a KV cache: keys and values (×2) for every layer, KV head,
/// head dimension, position and sequence. Used by the infrastructure sheet's
/// memory arithmetic; `[sheet:4]`.
pub fn kv_cache_bytes(
    layers: usize,
    kv_heads: usize,
    head_dim: usize,
    seq_len: usize,
    batch: usize,
    bytes_per_elem: usize,
) -> usize {
    2 * layers * kv_heads * head_dim * seq_len * batch * bytes_per_elem
}
