//! The few tensor operations the tiny GPT needs beyond candle's basics.
//!
//! Each function here has a *composed* form built from candle ops that all
//! have a backward pass — the reference, and the path used on GPUs. Two
//! candle 0.11.1 traps are avoided on purpose: `candle_nn::LayerNorm` (fused,
//! records no backward: everything upstream silently gets no gradient) and
//! `ops::softmax_last_dim` (no backward either).

use candle_core::{DType, Device, Result, Tensor, D};

/// `y = x @ wᵀ + b` for `x: [.., in]`, `w: [out, in]`, `b: [out]`.
pub fn linear(x: &Tensor, w: &Tensor, b: Option<&Tensor>) -> Result<Tensor> {
    let dims = x.dims().to_vec();
    let (rows, k) = (dims[..dims.len() - 1].iter().product::<usize>(), dims[dims.len() - 1]);
    // One 2-D matmul is much faster than a broadcasted batched one on CPU.
    let y = x.reshape((rows, k))?.matmul(&w.t()?)?;
    let y = match b {
        Some(b) => y.broadcast_add(b)?,
        None => y,
    };
    let mut out = dims;
    *out.last_mut().expect("rank ≥ 1") = w.dim(0)?;
    y.reshape(out)
}

/// LayerNorm over the last dimension: `(x − mean) / sqrt(var + ε) · w + b`.
pub fn layer_norm(x: &Tensor, w: &Tensor, b: &Tensor, eps: f64) -> Result<Tensor> {
    let d = x.dim(D::Minus1)? as f64;
    let mean = (x.sum_keepdim(D::Minus1)? / d)?;
    let xc = x.broadcast_sub(&mean)?;
    let var = (xc.sqr()?.sum_keepdim(D::Minus1)? / d)?;
    let xn = xc.broadcast_div(&(var + eps)?.sqrt()?)?;
    xn.broadcast_mul(w)?.broadcast_add(b)
}

/// Exact (erf) GELU, as in GPT-2's reference and PyTorch's default.
pub fn gelu(x: &Tensor) -> Result<Tensor> {
    x.gelu_erf()
}

/// Softmax over the last dimension, max-subtracted for stability.
pub fn softmax(x: &Tensor) -> Result<Tensor> {
    candle_nn::ops::softmax(x, D::Minus1)
}

/// Additive causal mask `[t, t]`: 0 on and below the diagonal, −∞ above.
pub fn causal_mask(t: usize, device: &Device) -> Result<Tensor> {
    let mask: Vec<f32> =
        (0..t).flat_map(|i| (0..t).map(move |j| if j <= i { 0.0 } else { f32::NEG_INFINITY })).collect();
    Tensor::from_vec(mask, (t, t), device)
}

/// Additive mask `[b, 1, t, s]` for `t` new queries at absolute key positions
/// `s − t .. s`, blocking future keys and keys marked as padding. A query may
/// always see itself: a padding query with every key blocked would give a row
/// of NaNs, and 0 × NaN leaks into real rows through the value matmul.
pub fn cached_mask(key_is_pad: &[Vec<bool>], t: usize, device: &Device) -> Result<Tensor> {
    let b = key_is_pad.len();
    let s = key_is_pad.first().map_or(0, |r| r.len());
    let mut m = vec![0f32; b * t * s];
    for (bi, pads) in key_is_pad.iter().enumerate() {
        for qi in 0..t {
            let qpos = s - t + qi;
            for (ki, &pad) in pads.iter().enumerate() {
                if ki > qpos || (pad && ki != qpos) {
                    m[(bi * t + qi) * s + ki] = f32::NEG_INFINITY;
                }
            }
        }
    }
    Tensor::from_vec(m, (b, 1, t, s), device)?.to_dtype(DType::F32)
}
