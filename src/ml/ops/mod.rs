//! The few tensor operations the tiny GPT needs beyond candle's basics.
//!
//! Each function here has a *composed* form built from candle ops that all
//! have a backward pass — the reference, and the path used on GPUs. Two
//! candle 0.11.1 traps are avoided on purpose: `candle_nn::LayerNorm` (fused,
//! records no backward: everything upstream silently gets no gradient) and
//! `ops::softmax_last_dim` (no backward either).

use candle_core::{DType, Device, Result, Tensor, D};

/// `y = x @ wᵀ + b` for `x: [.., in]`, `w: [out, in]`, `b: [out]`.
///
/// A weight outside the gradient graph (a frozen base under LoRA, or a model
/// detached for generation) on the CPU goes through [`FrozenLinear`]: candle's
/// matmul backward computes the gradient of *both* operands, so a frozen
/// weight would still cost a second matmul and a weight-sized zero-and-add
/// per step, only to be thrown away.
pub fn linear(x: &Tensor, w: &Tensor, b: Option<&Tensor>) -> Result<Tensor> {
    linear_as(x, w, b, 0)
}

/// [`linear`] where `x`'s rows stand among `rows_as` rows (finished ones
/// dropped while decoding): with a frozen CPU weight, each row comes out with
/// the bits it has in the product of them all
/// ([`crate::ml::fused::linalg::matmul_as`]).
pub fn linear_as(x: &Tensor, w: &Tensor, b: Option<&Tensor>, rows_as: usize) -> Result<Tensor> {
    let dims = x.dims().to_vec();
    let (rows, k) = (dims[..dims.len() - 1].iter().product::<usize>(), dims[dims.len() - 1]);
    let frozen = !w.track_op() && w.device().is_cpu() && w.dtype() == DType::F32 && x.dtype() == DType::F32;
    let y = if frozen && w.rank() == 2 && w.is_contiguous() {
        x.reshape((rows, k))?.contiguous()?.apply_op1(FrozenLinear { w: w.clone(), rows_as })?
    } else {
        // One 2-D matmul is much faster than a broadcasted batched one on CPU.
        x.reshape((rows, k))?.matmul(&w.t()?)?
    };
    let y = match b {
        Some(b) => y.broadcast_add(b)?,
        None => y,
    };
    let mut out = dims;
    *out.last_mut().expect("rank ≥ 1") = w.dim(0)?;
    y.reshape(out)
}

/// `y = x @ wᵀ` with `w` held by the op, not an input of it: the backward
/// returns `dx = dy @ w` and nothing for `w`. The products are
/// `src/ml/fused/linalg.rs`'s (gemm with strides, and its small-batch
/// kernels when a decoding step has few rows).
pub struct FrozenLinear {
    w: Tensor,
    /// The forward's rows stand among this many ([`linear_as`]).
    rows_as: usize,
}

impl FrozenLinear {
    /// `out = a @ w` (`transpose_w` false: `a [m, out]`) or `a @ wᵀ` (`a [m, in]`).
    fn product(&self, a: &[f32], cols: usize, transpose_w: bool) -> Result<Vec<f32>> {
        use crate::ml::fused::linalg::{matmul_as, View};
        let (w_guard, w_layout) = self.w.storage_and_layout();
        let candle_core::Storage::Cpu(ws) = &*w_guard else { candle_core::bail!("frozen linear: a CPU weight only") };
        let (w, _) = cpu_rows(ws, w_layout)?;
        let (d_out, d_in) = self.w.dims2()?;
        let m = a.len() / cols.max(1);
        let (wv, n) =
            if transpose_w { (View::rm(w, d_out, d_in).t(), d_out) } else { (View::rm(w, d_out, d_in), d_in) };
        if wv.rows != cols {
            candle_core::bail!("frozen linear: input width {cols} does not match the weight {:?}", self.w.dims());
        }
        let mut out = vec![0f32; m * n];
        // The backward's rows are the forward's: no batch to stand in.
        let rows_as = if transpose_w { self.rows_as } else { 0 };
        matmul_as(&mut out, n, View::rm(a, m, cols), wv, false, true, rows_as);
        Ok(out)
    }
}

impl candle_core::CustomOp1 for FrozenLinear {
    fn name(&self) -> &'static str {
        "frozen-linear"
    }

    fn cpu_fwd(
        &self,
        s: &candle_core::CpuStorage,
        l: &candle_core::Layout,
    ) -> Result<(candle_core::CpuStorage, candle_core::Shape)> {
        let (x, k) = cpu_rows(s, l)?;
        let y = self.product(x, k, true)?;
        let m = x.len() / k;
        Ok((candle_core::CpuStorage::F32(y), (m, self.w.dim(0)?).into()))
    }

    fn bwd(&self, _arg: &Tensor, _res: &Tensor, grad_res: &Tensor) -> Result<Option<Tensor>> {
        let grad = grad_res.contiguous()?;
        let (m, _) = grad.dims2()?;
        let (guard, layout) = grad.storage_and_layout();
        let candle_core::Storage::Cpu(gs) = &*guard else { candle_core::bail!("frozen linear: a CPU gradient only") };
        let (dy, n) = cpu_rows(gs, layout)?;
        let dx = self.product(dy, n, false)?;
        Ok(Some(Tensor::from_vec(dx, (m, self.w.dim(1)?), grad_res.device())?))
    }
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

/// Log-softmax over the last dimension. On the CPU (f32) one fused op with
/// its own backward (`dx = dy − softmax·Σdy`, one pass over each row),
/// elsewhere candle_nn's composed ops (max, subtract, exp, sum, log: five
/// tensors of the input's size forward and more backward).
pub fn log_softmax(x: &Tensor) -> Result<Tensor> {
    if x.device().is_cpu() && x.dtype() == DType::F32 && x.rank() >= 1 {
        x.contiguous()?.apply_op1(LogSoftmaxLast)
    } else {
        candle_nn::ops::log_softmax(x, D::Minus1)
    }
}

struct LogSoftmaxLast;

/// The rows of a contiguous f32 CPU tensor, and their width.
fn cpu_rows<'a>(s: &'a candle_core::CpuStorage, l: &candle_core::Layout) -> Result<(&'a [f32], usize)> {
    let Some((a, b)) = l.contiguous_offsets() else { candle_core::bail!("a contiguous input only") };
    let width = l.dims().last().copied().unwrap_or(1).max(1);
    Ok((&s.as_slice::<f32>()?[a..b], width))
}

impl candle_core::CustomOp1 for LogSoftmaxLast {
    fn name(&self) -> &'static str {
        "log-softmax-last"
    }

    fn cpu_fwd(
        &self,
        s: &candle_core::CpuStorage,
        l: &candle_core::Layout,
    ) -> Result<(candle_core::CpuStorage, candle_core::Shape)> {
        use rayon::prelude::*;
        let (x, v) = cpu_rows(s, l)?;
        let mut y = vec![0f32; x.len()];
        // Each row on its own: the result does not depend on the split.
        y.par_chunks_mut(64 * v).zip(x.par_chunks(64 * v)).for_each(|(y, x)| {
            for (yr, xr) in y.chunks_mut(v).zip(x.chunks(v)) {
                crate::ml::fused::kernels::log_softmax_row(xr, yr);
            }
        });
        Ok((candle_core::CpuStorage::F32(y), l.shape().clone()))
    }

    fn bwd(&self, _arg: &Tensor, res: &Tensor, grad_res: &Tensor) -> Result<Option<Tensor>> {
        Ok(Some(grad_res.contiguous()?.apply_op2_no_bwd(res, &LogSoftmaxLastBack)?))
    }
}

struct LogSoftmaxLastBack;

impl candle_core::CustomOp2 for LogSoftmaxLastBack {
    fn name(&self) -> &'static str {
        "log-softmax-last-backward"
    }

    fn cpu_fwd(
        &self,
        s1: &candle_core::CpuStorage,
        l1: &candle_core::Layout,
        s2: &candle_core::CpuStorage,
        l2: &candle_core::Layout,
    ) -> Result<(candle_core::CpuStorage, candle_core::Shape)> {
        use rayon::prelude::*;
        let ((dy, v), (y, _)) = (cpu_rows(s1, l1)?, cpu_rows(s2, l2)?);
        if dy.len() != y.len() {
            candle_core::bail!("log_softmax backward: gradient and output sizes differ");
        }
        let mut dx = vec![0f32; y.len()];
        dx.par_chunks_mut(64 * v).zip(dy.par_chunks(64 * v)).zip(y.par_chunks(64 * v)).for_each(|((dx, dy), y)| {
            for ((o, g), yr) in dx.chunks_mut(v).zip(dy.chunks(v)).zip(y.chunks(v)) {
                crate::ml::fused::kernels::log_softmax_back_row(yr, g, o);
            }
        });
        Ok((candle_core::CpuStorage::F32(dx), l1.shape().clone()))
    }
}

/// `Σᵢ −log softmax(logits_i)[targets_i]` over the rows of `logits [N, V]`
/// (f32, CPU) as one op: the forward keeps only each row's log-sum-exp, and
/// the backward writes `dlogits_i = g·(softmax_i − onehot(targets_i))` row by
/// row. Composed from a log-softmax, a gather and a sum, the same loss kept
/// the `[N, V]` log-probabilities, and its backward zero-filled and
/// scattered into another `[N, V]` tensor before the log-softmax's own.
pub fn cross_entropy_sum(logits: &Tensor, targets: &[u32]) -> Result<Tensor> {
    let (n, v) = logits.dims2()?;
    if targets.len() != n || targets.iter().any(|&t| t as usize >= v) {
        candle_core::bail!("cross-entropy: {} targets for {n} rows, or a target outside {v}", targets.len());
    }
    if !(logits.device().is_cpu() && logits.dtype() == DType::F32) {
        let t = Tensor::from_vec(targets.to_vec(), (n, 1), logits.device())?;
        return candle_nn::ops::log_softmax(logits, D::Minus1)?.gather(&t, 1)?.sum_all()?.neg();
    }
    logits
        .contiguous()?
        .apply_op1(CrossEntropySum { targets: targets.to_vec(), lse: std::sync::Mutex::new(Vec::new()) })
}

struct CrossEntropySum {
    targets: Vec<u32>,
    /// Each row's log Σ exp, kept by the forward for the backward.
    lse: std::sync::Mutex<Vec<f32>>,
}

impl candle_core::CustomOp1 for CrossEntropySum {
    fn name(&self) -> &'static str {
        "cross-entropy-sum"
    }

    fn cpu_fwd(
        &self,
        s: &candle_core::CpuStorage,
        l: &candle_core::Layout,
    ) -> Result<(candle_core::CpuStorage, candle_core::Shape)> {
        use rayon::prelude::*;
        let (x, v) = cpu_rows(s, l)?;
        let lse: Vec<f32> = x.par_chunks(v).map(crate::ml::fused::kernels::log_sum_exp).collect();
        // Summed in row order: the same total on any number of threads.
        let total: f32 = lse.iter().zip(&self.targets).enumerate().map(|(i, (m, &t))| m - x[i * v + t as usize]).sum();
        *self.lse.lock().expect("cross-entropy lock") = lse;
        Ok((candle_core::CpuStorage::F32(vec![total]), ().into()))
    }

    fn bwd(&self, arg: &Tensor, _res: &Tensor, grad_res: &Tensor) -> Result<Option<Tensor>> {
        use rayon::prelude::*;
        let g = grad_res.to_dtype(DType::F32)?.to_scalar::<f32>()?;
        let arg = arg.contiguous()?;
        let (n, v) = arg.dims2()?;
        let (guard, layout) = arg.storage_and_layout();
        let candle_core::Storage::Cpu(xs) = &*guard else { candle_core::bail!("cross-entropy: a CPU input only") };
        let (x, _) = cpu_rows(xs, layout)?;
        let lse = self.lse.lock().expect("cross-entropy lock");
        if lse.len() != n {
            candle_core::bail!("cross-entropy: backward without its forward");
        }
        let mut dx = vec![0f32; n * v];
        dx.par_chunks_mut(v).enumerate().for_each(|(i, row)| {
            crate::ml::fused::kernels::softmax_minus_onehot(
                &x[i * v..(i + 1) * v],
                lse[i],
                self.targets[i] as usize,
                g,
                row,
            );
        });
        Ok(Some(Tensor::from_vec(dx, (n, v), arg.device())?))
    }
}

#[cfg(test)]
mod log_softmax_tests {
    use super::*;
    use candle_core::Var;

    #[test]
    fn a_frozen_weight_gives_candles_values_and_input_gradient_and_gets_none() {
        let dev = Device::Cpu;
        // m = 3 takes the small-batch kernels, m = 40 gemm.
        for m in [3usize, 40] {
            let (k, n) = (19usize, 23usize);
            let xs: Vec<f32> = (0..2 * m * k).map(|i| ((i * 31 % 17) as f32 - 8.0) / 5.0).collect();
            let x = Var::from_tensor(&Tensor::from_vec(xs, (2, m, k), &dev).unwrap()).unwrap();
            let ws: Vec<f32> = (0..n * k).map(|i| ((i * 7 % 13) as f32 - 6.0) / 9.0).collect();
            let w = Tensor::from_vec(ws, (n, k), &dev).unwrap();
            let b = Tensor::from_vec((0..n).map(|i| i as f32 / 10.0).collect::<Vec<f32>>(), n, &dev).unwrap();
            let y = linear(x.as_tensor(), &w, Some(&b)).unwrap();
            let wt = w.t().unwrap();
            let reference = x.as_tensor().reshape((2 * m, k)).unwrap().matmul(&wt).unwrap().broadcast_add(&b).unwrap();
            let reference = reference.reshape((2, m, n)).unwrap();
            let g =
                Tensor::from_vec((0..2 * m * n).map(|i| (i % 7) as f32 - 3.0).collect::<Vec<f32>>(), (2, m, n), &dev)
                    .unwrap();
            let close = |a: &Tensor, b: &Tensor| {
                let (a, b) = (
                    a.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
                    b.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
                );
                assert_eq!(a.len(), b.len());
                for (u, v) in a.iter().zip(&b) {
                    assert!((u - v).abs() < 1e-4, "{u} vs {v}");
                }
            };
            close(&y, &reference);
            let ga = (y * &g).unwrap().sum_all().unwrap().backward().unwrap();
            let gb = (reference * &g).unwrap().sum_all().unwrap().backward().unwrap();
            close(ga.get(x.as_tensor()).unwrap(), gb.get(x.as_tensor()).unwrap());
            assert!(ga.get(&w).is_none(), "the frozen weight got a gradient");
            // candle's matmul computes the frozen operand's gradient anyway (why the op exists).
            assert!(gb.get(&wt).is_some());
        }
    }

    #[test]
    fn fused_log_softmax_matches_the_composed_one_with_its_gradient() {
        let dev = Device::Cpu;
        let data: Vec<f32> = (0..3 * 5 * 7).map(|i| ((i * 37 % 23) as f32 - 11.0) / 2.5).collect();
        let x = Var::from_tensor(&Tensor::from_vec(data, (3, 5, 7), &dev).unwrap()).unwrap();
        let w = Tensor::from_vec((0..3 * 5 * 7).map(|i| (i % 5) as f32 - 2.0).collect::<Vec<f32>>(), (3, 5, 7), &dev)
            .unwrap();
        let fused = log_softmax(x.as_tensor()).unwrap();
        let composed = candle_nn::ops::log_softmax(x.as_tensor(), D::Minus1).unwrap();
        let (a, b) = (
            fused.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            composed.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
        );
        for (u, v) in a.iter().zip(&b) {
            assert!((u - v).abs() < 1e-5, "{u} vs {v}");
        }
        let ga = (fused * &w).unwrap().sum_all().unwrap().backward().unwrap();
        let gb = (composed * &w).unwrap().sum_all().unwrap().backward().unwrap();
        let ga = ga.get(x.as_tensor()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let gb = gb.get(x.as_tensor()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        for (u, v) in ga.iter().zip(&gb) {
            assert!((u - v).abs() < 1e-5, "{u} vs {v}");
        }
    }

    #[test]
    fn fused_cross_entropy_matches_the_composed_one_with_its_gradient() {
        let dev = Device::Cpu;
        let (n, v) = (5usize, 37usize);
        let data: Vec<f32> = (0..n * v).map(|i| ((i * 29 % 41) as f32 - 20.0) / 3.0).collect();
        let x = Var::from_tensor(&Tensor::from_vec(data, (n, v), &dev).unwrap()).unwrap();
        let targets: Vec<u32> = vec![3, 0, 36, 17, 9];
        let fused = (cross_entropy_sum(x.as_tensor(), &targets).unwrap() * 0.7).unwrap();
        let t = Tensor::from_vec(targets.clone(), (n, 1), &dev).unwrap();
        let composed = (candle_nn::ops::log_softmax(x.as_tensor(), D::Minus1)
            .unwrap()
            .gather(&t, 1)
            .unwrap()
            .sum_all()
            .unwrap()
            .neg()
            .unwrap()
            * 0.7)
            .unwrap();
        let (a, b) = (fused.to_scalar::<f32>().unwrap(), composed.to_scalar::<f32>().unwrap());
        assert!((a - b).abs() < 1e-4 * b.abs().max(1.0), "{a} vs {b}");
        let ga = fused.backward().unwrap().get(x.as_tensor()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let gb =
            composed.backward().unwrap().get(x.as_tensor()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        for (u, w) in ga.iter().zip(&gb) {
            assert!((u - w).abs() < 1e-5, "{u} vs {w}");
        }
        assert!(cross_entropy_sum(x.as_tensor(), &[3, 0, 37, 1, 1]).is_err(), "a target outside the vocabulary");
    }
}
