//! LoRA for the tiny GPT ("LoRA: Low-Rank Adaptation of Large Language
//! Models", Hu et al., arXiv:2106.09685).
//!
//! Every adapted weight `W₀ [out, in]` stays frozen; the update is a product
//! of two small trained matrices:
//!
//! ```text
//! W_eff = W₀ + (α/r)·B·A        A [r, in] random,  B [out, r] = 0 at the start
//! y     = x W_effᵀ = x W₀ᵀ + (α/r)·(x Aᵀ) Bᵀ
//! ```
//!
//! With `B = 0` the adapted model *is* the base model, to the last bit; the
//! first step moves `B` only (`∂L/∂A = 0` while `B = 0`), then both.
//!
//! The tiny GPT's CPU forward is one fused op (`src/ml/fused/`) that reads
//! all the weights as one flat tensor and gives that tensor its gradient.
//! So LoRA here builds the *effective* weights as candle tensors — `W₀`
//! detached, `B·A` from the two `Var`s — concatenates them in the fused
//! layout and runs the fused op: autograd through `W_eff` gives `A` and `B`
//! their gradients and `W₀` none. Elsewhere (no fused op) the same effective
//! weights go through the composed model ([`Gpt::forward_composed`]).
//! [`GptLora::merged`] writes `W_eff` into a plain [`Gpt`] (for generation,
//! or to ship the adapted model with no adapter at all).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use candle_core::{Device, Result, Tensor, Var};

use super::gpt::Gpt;
use super::lm::CausalLm;
use super::rng::Rng;
use super::sample::GenConfig;

/// The weight matrices of a block LoRA can adapt (names after `blocks.<l>.`).
pub const TARGETS: [&str; 4] = ["attn.qkv", "attn.proj", "mlp.fc", "mlp.proj"];

/// Whether `name` is the weight of a matrix LoRA can adapt (`blocks.L.T.weight`, T in [`TARGETS`]).
pub fn is_target_weight(name: &str) -> bool {
    name.strip_prefix("blocks.")
        .and_then(|rest| rest.split_once('.'))
        .and_then(|(_, t)| t.strip_suffix(".weight"))
        .is_some_and(|t| TARGETS.contains(&t))
}

/// One adapted matrix: `W₀ + scale·B·A`.
pub struct Adapter {
    /// The weight's name in the model, e.g. `blocks.0.attn.qkv.weight`.
    pub name: String,
    pub w0: Tensor,
    /// `[r, in]`, random at the start.
    pub a: Var,
    /// `[out, r]`, zero at the start.
    pub b: Var,
}

/// A frozen tiny GPT with LoRA adapters on its block matrices.
pub struct GptLora {
    pub rank: usize,
    pub alpha: f64,
    pub adapters: Vec<Adapter>,
    /// Every base parameter, detached (frozen).
    frozen: BTreeMap<String, Tensor>,
    /// The base, for its config, device and (composed path) a shell to fill.
    shell: Mutex<Gpt>,
    fused: Option<Arc<super::fused::Layout>>,
}

/// Trainable parameters of LoRA rank `r` on one `out × in` matrix: `r·(in + out)`.
pub fn lora_params(rank: usize, d_in: usize, d_out: usize) -> usize {
    rank * (d_in + d_out)
}

/// LoRA's forward of a batch of rows `x [n, in]`, adapter kept apart:
/// `x W₀ᵀ + (α/r)·(x Aᵀ) Bᵀ` with `r` the rows of `a`. It equals
/// `x W_effᵀ` (the merged weight, what [`GptLora`] runs) without ever
/// forming the `out × in` product `B·A`: two thin products instead.
pub fn lora_linear(x: &Tensor, w0: &Tensor, a: &Tensor, b: &Tensor, alpha: f64) -> Result<Tensor> {
    let r = a.dim(0)?;
    let base = x.matmul(&w0.t()?)?;
    let low = x.matmul(&a.t()?)?.matmul(&b.t()?)?;
    base + (low * (alpha / r as f64))?
}

/// Bytes AdamW keeps per trained parameter: two f32 moments.
pub const ADAM_BYTES_PER_PARAM: usize = 8;

impl GptLora {
    /// Adapters of rank `rank` and scale `alpha / rank` on the `targets`
    /// ([`TARGETS`]) of every block of `base`, `A ~ N(0, 1/in)`, `B = 0`.
    pub fn new(base: &Gpt, rank: usize, alpha: f64, targets: &[&str], seed: u64) -> Result<GptLora> {
        if rank == 0 {
            candle_core::bail!("LoRA rank must be positive");
        }
        if let Some(t) = targets.iter().find(|t| !TARGETS.contains(t)) {
            candle_core::bail!("unknown LoRA target {t:?}: choose from {}", TARGETS.join(", "));
        }
        let vars = base.vars();
        let frozen: BTreeMap<String, Tensor> =
            vars.iter().map(|(k, v)| Ok((k.clone(), v.as_tensor().detach().copy()?))).collect::<Result<_>>()?;
        let mut rng = Rng::new(seed ^ 0x10ea);
        let mut adapters = Vec::new();
        for l in 0..base.cfg.n_layers {
            for t in targets {
                let name = format!("blocks.{l}.{t}.weight");
                let w0 = frozen[&name].clone();
                let (d_out, d_in) = w0.dims2()?;
                let std = 1.0 / (d_in as f32).sqrt();
                let a: Vec<f32> = (0..rank * d_in).map(|_| rng.normal() * std).collect();
                let a = Var::from_vec(a, (rank, d_in), &base.device)?;
                let b = Var::zeros((d_out, rank), candle_core::DType::F32, &base.device)?;
                adapters.push(Adapter { name, w0, a, b });
            }
        }
        let mut shell = base.fork(seed)?;
        shell.use_fused = false;
        let fused = base.fused_layout().map(|l| Arc::new(l.clone()));
        Ok(GptLora { rank, alpha, adapters, frozen, shell: Mutex::new(shell), fused })
    }

    pub fn scale(&self) -> f64 {
        self.alpha / self.rank as f64
    }

    /// `scale·B·A` of one adapter (the update LoRA adds to `W₀`).
    pub fn delta(&self, ad: &Adapter) -> Result<Tensor> {
        ad.b.as_tensor().matmul(ad.a.as_tensor())? * self.scale()
    }

    /// Every weight the model runs with: frozen base weights, and `W₀ + scale·B·A` where adapted.
    pub fn effective(&self) -> Result<BTreeMap<String, Tensor>> {
        let mut w = self.frozen.clone();
        for ad in &self.adapters {
            w.insert(ad.name.clone(), (&ad.w0 + self.delta(ad)?)?);
        }
        Ok(w)
    }

    /// The trained parameters (every `A` and `B`).
    pub fn lora_vars(&self) -> Vec<Var> {
        self.adapters.iter().flat_map(|ad| [ad.a.clone(), ad.b.clone()]).collect()
    }

    pub fn num_trainable(&self) -> usize {
        self.adapters.iter().map(|ad| ad.a.elem_count() + ad.b.elem_count()).sum()
    }

    /// A plain GPT with `W_eff` written in (the adapters merged away).
    pub fn merged(&self) -> Result<Gpt> {
        let shell = self.shell.lock().expect("lora shell lock");
        let model = shell.fork(0)?;
        let eff = self.effective()?;
        for (name, v) in model.vars() {
            v.set(&eff[&name].detach())?;
        }
        Ok(model)
    }

    /// The composed model run with the effective weights (the reference path).
    pub fn forward_composed(&self, tokens: &Tensor) -> Result<Tensor> {
        let eff = self.effective()?;
        let mut shell = self.shell.lock().expect("lora shell lock");
        for (l, block) in shell.blocks.iter_mut().enumerate() {
            let w = |t: &str| eff[&format!("blocks.{l}.{t}.weight")].clone();
            block.attn.qkv.w = w("attn.qkv");
            block.attn.proj.w = w("attn.proj");
            if let super::gpt::Mlp::Gelu { fc, proj } = &mut block.mlp {
                fc.w = w("mlp.fc");
                proj.w = w("mlp.proj");
            } else {
                candle_core::bail!("LoRA for the tiny GPT covers the GELU MLP only");
            }
        }
        shell.forward_composed(tokens)
    }
}

impl CausalLm for GptLora {
    /// The fused op on the CPU, fed the effective weights; the composed model elsewhere.
    fn forward(&self, tokens: &Tensor) -> Result<Tensor> {
        match &self.fused {
            Some(layout) => {
                let eff = self.effective()?;
                let parts = layout.order.iter().map(|(name, _)| eff[name].flatten_all()).collect::<Result<Vec<_>>>()?;
                let params = Tensor::cat(&parts, 0)?;
                let cfg = self.shell.lock().expect("lora shell lock").cfg.clone();
                super::fused::GptOp::new(cfg, layout.clone())
                    .forward(&tokens.to_dtype(candle_core::DType::U32)?, &params)
            }
            None => self.forward_composed(tokens),
        }
    }

    fn vars(&self) -> BTreeMap<String, Var> {
        self.adapters
            .iter()
            .flat_map(|ad| {
                let stem = ad.name.trim_end_matches(".weight");
                [(format!("{stem}.lora_A"), ad.a.clone()), (format!("{stem}.lora_B"), ad.b.clone())]
            })
            .collect()
    }

    fn context(&self) -> usize {
        self.shell.lock().expect("lora shell lock").cfg.context
    }

    fn vocab(&self) -> usize {
        self.shell.lock().expect("lora shell lock").cfg.vocab
    }

    fn device(&self) -> &Device {
        // The shell's device is the base's; a Device is cheap to clone, but a
        // reference must outlive the lock, so keep it on the adapters' tensors.
        self.adapters.first().map(|ad| ad.a.device()).unwrap_or(&Device::Cpu)
    }

    fn generate(&self, prompts: &[Vec<u32>], cfg: &GenConfig, rng: &mut Rng) -> Result<Vec<Vec<u32>>> {
        super::sample::generate(&self.merged()?, prompts, cfg, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ml::gpt::GptConfig;

    fn model() -> Gpt {
        Gpt::new(GptConfig::new(20, 16, 2, 2, 8), 3, &Device::Cpu).unwrap()
    }

    fn tokens() -> Tensor {
        Tensor::new(&[[1u32, 5, 7, 2, 9, 11], [3, 3, 8, 0, 19, 4]], &Device::Cpu).unwrap()
    }

    fn max_abs(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().flatten_all().unwrap().max(0).unwrap().to_scalar::<f32>().unwrap()
    }

    #[test]
    fn with_b_zero_lora_is_the_base_model_exactly() {
        let base = model();
        let lora = GptLora::new(&base, 2, 4.0, &TARGETS, 1).unwrap();
        let want = base.forward(&tokens()).unwrap();
        let got = lora.forward(&tokens()).unwrap();
        assert_eq!(max_abs(&want, &got), 0.0);
        assert_eq!(
            max_abs(&base.forward_composed(&tokens()).unwrap(), &lora.forward_composed(&tokens()).unwrap()),
            0.0
        );
    }

    #[test]
    fn target_weights_are_the_adapted_matrices_and_nothing_else() {
        let base = model();
        let names: Vec<String> = base.vars().into_keys().filter(|n| is_target_weight(n)).collect();
        let want: Vec<String> = (0..base.cfg.n_layers)
            .flat_map(|l| TARGETS.iter().map(move |t| format!("blocks.{l}.{t}.weight")))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(names, want);
        assert!(!is_target_weight("blocks.0.attn.qkv.bias") && !is_target_weight("wte.weight"));
    }

    #[test]
    fn counts_follow_r_times_in_plus_out() {
        let base = model();
        let lora = GptLora::new(&base, 3, 3.0, &TARGETS, 1).unwrap();
        let d = 16;
        let per_block = lora_params(3, d, 3 * d) + lora_params(3, d, d) + 2 * lora_params(3, d, 4 * d);
        assert_eq!(lora.num_trainable(), 2 * per_block);
        assert_eq!(lora.vars().len(), 2 * 4 * 2);
    }

    /// Random A and B, then: fused and composed logits agree, their gradients
    /// for A and B agree, and one entry of each matches a finite difference.
    #[test]
    fn gradients_flow_to_a_and_b_and_match_finite_differences() {
        let base = model();
        let lora = GptLora::new(&base, 2, 4.0, &["attn.qkv", "mlp.proj"], 1).unwrap();
        let mut rng = Rng::new(9);
        for ad in &lora.adapters {
            let n = ad.b.elem_count();
            let v: Vec<f32> = (0..n).map(|_| rng.normal() * 0.05).collect();
            ad.b.set(&Tensor::from_vec(v, ad.b.shape(), &Device::Cpu).unwrap()).unwrap();
        }
        let x = tokens();
        let y = Tensor::new(&[[5i64, 7, 2, 9, 11, -100], [3, 8, 0, 19, 4, -100]], &Device::Cpu).unwrap();
        let loss = |fused: bool| -> Tensor {
            let logits = if fused { lora.forward(&x).unwrap() } else { lora.forward_composed(&x).unwrap() };
            crate::ml::loss::masked_cross_entropy(&logits, &y).unwrap()
        };
        assert!(max_abs(&lora.forward(&x).unwrap(), &lora.forward_composed(&x).unwrap()) < 1e-5);
        let gf = loss(true).backward().unwrap();
        let gc = loss(false).backward().unwrap();
        for v in lora.lora_vars() {
            let (a, b) = (gf.get(&v).expect("fused grad"), gc.get(&v).expect("composed grad"));
            assert!(max_abs(a, b) < 1e-5, "fused and composed gradients differ by {}", max_abs(a, b));
        }
        // No gradient reaches the frozen base.
        for v in base.vars().values() {
            assert!(gf.get(v).is_none());
        }
        for v in [&lora.adapters[1].a, &lora.adapters[2].b] {
            let g = gf.get(v).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
            let i = g.iter().enumerate().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())).unwrap().0;
            let orig = v.as_tensor().flatten_all().unwrap().to_vec1::<f32>().unwrap();
            let at = |delta: f32| -> f64 {
                let mut w = orig.clone();
                w[i] += delta;
                v.set(&Tensor::from_vec(w, v.shape(), &Device::Cpu).unwrap()).unwrap();
                loss(false).to_dtype(candle_core::DType::F64).unwrap().to_scalar::<f64>().unwrap()
            };
            let h = 1e-2;
            let fd = (at(h) - at(-h)) / (2.0 * h as f64);
            at(0.0);
            assert!((fd - g[i] as f64).abs() < 2e-3 * (1.0 + fd.abs()), "finite difference {fd} vs gradient {}", g[i]);
        }
    }

    #[test]
    fn lora_linear_is_the_merged_weight() {
        let dev = Device::Cpu;
        let x = Tensor::new(&[[1.0f32, 0.0], [0.5, -2.0]], &dev).unwrap();
        let w0 = Tensor::new(&[[1.0f32, 0.0], [0.0, 1.0]], &dev).unwrap();
        let a = Tensor::new(&[[0.5f32, -0.5]], &dev).unwrap();
        let b = Tensor::new(&[[1.0f32], [2.0]], &dev).unwrap();
        let y = lora_linear(&x, &w0, &a, &b, 2.0).unwrap().to_vec2::<f32>().unwrap();
        // The sheet's worked example: W' rows (2, −1) and (2, −1); x = (1, 0) gives (2, 2).
        assert_eq!(y[0], vec![2.0, 2.0]);
        let weff = (&w0 + (b.matmul(&a).unwrap() * 2.0).unwrap()).unwrap();
        let want = x.matmul(&weff.t().unwrap()).unwrap();
        assert!(max_abs(&want, &lora_linear(&x, &w0, &a, &b, 2.0).unwrap()) < 1e-6);
    }

    #[test]
    fn merged_model_gives_the_adapted_logits() {
        let base = model();
        let lora = GptLora::new(&base, 1, 2.0, &TARGETS, 1).unwrap();
        for ad in &lora.adapters {
            ad.b.set(&(ad.b.as_tensor().ones_like().unwrap() * 0.1).unwrap()).unwrap();
        }
        let merged = lora.merged().unwrap();
        assert!(max_abs(&merged.forward(&tokens()).unwrap(), &lora.forward(&tokens()).unwrap()) < 1e-5);
        assert!(max_abs(&merged.forward(&tokens()).unwrap(), &base.forward(&tokens()).unwrap()) > 1e-3);
    }
}
