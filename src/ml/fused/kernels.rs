//! Row-wise kernels of the fused model, each a forward and a backward over
//! plain slices, parallel over rows with rayon: LayerNorm, exact GELU, bias
//! add and bias gradient. Each is checked against candle's composed ops in
//! `fused::tests`.

use rayon::prelude::*;

use super::simd::multiversion;

/// Rows per parallel task: big enough to amortise scheduling.
const CHUNK: usize = 32;

pub const LN_EPS: f32 = 1e-5;

multiversion! {
    /// One row of LayerNorm; returns rstd.
    fn ln_row(row: &[f32], w: &[f32], b: &[f32], y: &mut [f32], xh: &mut [f32]) -> f32 {
        let d = row.len() as f32;
        let mean = lane_sum(row) / d;
        // xh holds the deviations first, then x̂.
        for (h, &v) in xh.iter_mut().zip(row) {
            *h = v - mean;
        }
        let var = super::linalg::dot(xh, xh) / d;
        let s = 1.0 / (var + LN_EPS).sqrt();
        for j in 0..row.len() {
            let h = xh[j] * s;
            xh[j] = h;
            y[j] = h * w[j] + b[j];
        }
        s
    }
}

/// LayerNorm forward. Writes `y`, and for the backward `xhat = (x − μ)·rstd` and `rstd`.
pub fn layer_norm(x: &[f32], w: &[f32], b: &[f32], d: usize, y: &mut [f32], xhat: &mut [f32], rstd: &mut [f32]) {
    y.par_chunks_mut(CHUNK * d)
        .zip(xhat.par_chunks_mut(CHUNK * d))
        .zip(rstd.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, ((y, xh), rs))| {
            for r in 0..rs.len() {
                let i = c * CHUNK + r;
                rs[r] = ln_row(&x[i * d..(i + 1) * d], w, b, &mut y[r * d..(r + 1) * d], &mut xh[r * d..(r + 1) * d]);
            }
        });
}

multiversion! {
    /// One row of the LayerNorm backward (see `layer_norm_backward`); `g` is scratch.
    fn ln_back_row(dy: &[f32], xr: &[f32], w: &[f32], s: f32, g: &mut [f32], out: &mut [f32], gw: &mut [f32], gb: &mut [f32]) {
        let d = dy.len();
        for j in 0..d {
            g[j] = dy[j] * w[j];
            gw[j] += dy[j] * xr[j];
            gb[j] += dy[j];
        }
        // Sums with independent lanes, so the loops vectorise.
        let mean_g = lane_sum(g) / d as f32;
        let mean_gx = super::linalg::dot(g, xr) / d as f32;
        for j in 0..d {
            out[j] += s * (g[j] - mean_g - xr[j] * mean_gx);
        }
    }
}

/// LayerNorm backward: `dx += rstd·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂))` with `ĝ = dy·w`;
/// `dw += Σ dy·x̂`, `db += Σ dy` over rows.
pub fn layer_norm_backward(
    dy: &[f32],
    xhat: &[f32],
    rstd: &[f32],
    w: &[f32],
    d: usize,
    dx: &mut [f32],
    dw: &mut [f32],
    db: &mut [f32],
) {
    // Per-chunk partial sums, added in chunk order: the result does not depend
    // on how rayon happened to split the work (a `reduce` tree would, and the
    // same seed would then give a different run).
    let parts: Vec<(Vec<f32>, Vec<f32>)> = dx
        .par_chunks_mut(CHUNK * d)
        .enumerate()
        .map(|(c, dxc)| {
            let mut gw = vec![0f32; d];
            let mut gb = vec![0f32; d];
            let mut g = vec![0f32; d];
            for r in 0..dxc.len() / d {
                let i = c * CHUNK + r;
                ln_back_row(
                    &dy[i * d..(i + 1) * d],
                    &xhat[i * d..(i + 1) * d],
                    w,
                    rstd[i],
                    &mut g,
                    &mut dxc[r * d..(r + 1) * d],
                    &mut gw,
                    &mut gb,
                );
            }
            (gw, gb)
        })
        .collect();
    for (gw, gb) in &parts {
        add_into(dw, gw);
        add_into(db, gb);
    }
}

/// eˣ in f32 without a libm call, so loops over it vectorise: x = n·ln 2 + r
/// with |r| ≤ ½ln 2, eʳ by its degree-7 Taylor polynomial (truncation error
/// below 10⁻⁸ relative on that interval; the result is within a few ulp of
/// libm's), 2ⁿ written into the exponent bits. For x in [−87.3, 88.3]; below
/// it returns 0 (−∞ gives 0), above it saturates at e^88.3. NaN stays NaN.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 = LN2_HI − LN2_LO, LN2_HI with 9 significant bits so n·LN2_HI is exact.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = 2.121_944_4e-4;
    // Adding and subtracting 1.5·2²³ rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let xc = x.clamp(-87.3, 88.3);
    let shifted = xc * LOG2E + ROUND;
    let n = shifted - ROUND;
    let r = (xc - n * LN2_HI) + n * LN2_LO;
    let mut p = 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // `shifted` holds n in its low mantissa bits (its bits are those of
    // 1.5·2²³ plus n), so 2ⁿ's exponent field is those bits minus 1.5·2²³'s
    // plus the bias 127: integer arithmetic that vectorises, where a
    // saturating `n as i32` would be converted one lane at a time.
    let two_n = f32::from_bits(shifted.to_bits().wrapping_sub(0x4b40_0000 - 127) << 23);
    if x < -87.3 {
        0.0
    } else {
        p * two_n
    }
}

multiversion! {
    /// Softmax of `row[..visible]` after scaling by `scale`, in place; the
    /// rest of the row (masked keys) is set to 0.
    pub fn softmax_causal(row: &mut [f32], visible: usize, scale: f32) {
        let (live, masked) = row.split_at_mut(visible);
        live.iter_mut().for_each(|x| *x *= scale);
        let max = lane_max(live);
        for x in live.iter_mut() {
            *x = exp(*x - max);
        }
        let inv = 1.0 / lane_sum(live);
        live.iter_mut().for_each(|x| *x *= inv);
        masked.fill(0.0);
    }
}

multiversion! {
    /// Softmax backward of one row: `ds ← p ⊙ (ds − Σ p·ds) · scale` over the
    /// visible keys, 0 for the masked ones.
    pub fn softmax_causal_backward(p: &[f32], ds: &mut [f32], visible: usize, scale: f32) {
        let (live, masked) = ds.split_at_mut(visible);
        let dot = super::linalg::dot(&p[..visible], live);
        for (d, &pj) in live.iter_mut().zip(&p[..visible]) {
            *d = pj * (*d - dot) * scale;
        }
        masked.fill(0.0);
    }
}

multiversion! {
    /// `y = x − log Σ exp(x)` of one row (a log-softmax).
    pub fn log_softmax_row(x: &[f32], y: &mut [f32]) {
        let max = lane_max(x);
        if max == f32::NEG_INFINITY {
            // Every entry is −∞ (or NaN): nothing to normalise; keep what came in.
            y.copy_from_slice(x);
            return;
        }
        for (o, &v) in y.iter_mut().zip(x) {
            *o = exp(v - max);
        }
        let lse = max + lane_sum(y).ln();
        for (o, &v) in y.iter_mut().zip(x) {
            *o = v - lse;
        }
    }
}

multiversion! {
    /// `log Σ exp(x)` of one row, max-subtracted.
    pub fn log_sum_exp(x: &[f32]) -> f32 {
        let max = lane_max(x);
        if max == f32::NEG_INFINITY {
            return max;
        }
        let mut sum = [0f32; 16];
        let chunks = x.chunks_exact(16);
        let rest = chunks.remainder();
        for c in chunks {
            for l in 0..16 {
                sum[l] += exp(c[l] - max);
            }
        }
        let tail: f32 = rest.iter().map(|&v| exp(v - max)).sum();
        max + (sum.iter().sum::<f32>() + tail).ln()
    }
}

multiversion! {
    /// `out = g·(softmax(x) − onehot(t))` of one row, softmax = exp(x − lse).
    pub fn softmax_minus_onehot(x: &[f32], lse: f32, t: usize, g: f32, out: &mut [f32]) {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = g * exp(v - lse);
        }
        out[t] -= g;
    }
}

multiversion! {
    /// Backward of one log-softmax row: `dx = dy − softmax · Σ dy`, with
    /// softmax = exp(y).
    pub fn log_softmax_back_row(y: &[f32], dy: &[f32], dx: &mut [f32]) {
        let total = lane_sum(dy);
        for ((o, &yv), &g) in dx.iter_mut().zip(y).zip(dy) {
            *o = g - exp(yv) * total;
        }
    }
}

/// Σ x with 16 independent partial sums (vectorises without fast-math; the
/// order is fixed, so the result is too).
#[inline(always)]
pub(super) fn lane_sum(x: &[f32]) -> f32 {
    let mut acc = [0f32; 16];
    let chunks = x.chunks_exact(16);
    let rest = chunks.remainder();
    for c in chunks {
        for l in 0..16 {
            acc[l] += c[l];
        }
    }
    acc.iter().sum::<f32>() + rest.iter().sum::<f32>()
}

/// The largest of `x` (NaNs ignored; −∞ when empty) with 16 independent
/// running maxima, so it vectorises. A maximum does not depend on the order,
/// so this equals the sequential `fold(f32::max)`.
#[inline(always)]
fn lane_max(x: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; 16];
    let chunks = x.chunks_exact(16);
    let rest = chunks.remainder();
    for c in chunks {
        for l in 0..16 {
            if c[l] > acc[l] {
                acc[l] = c[l];
            }
        }
    }
    acc.iter().chain(rest).fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m })
}

const INV_SQRT2: f32 = std::f32::consts::FRAC_1_SQRT_2;
const INV_SQRT_2PI: f32 = 0.398_942_3;

/// erf as a rational function of x on [−4, 4] (the approximation Eigen uses
/// for `float`; beyond ±4, erf is ±1 in f32). No `exp`, so the GELU loop
/// vectorises; max abs error ≈ 3·10⁻⁷, checked against a series in the tests.
#[inline]
pub fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = -2.726_142_3e-10_f32;
    p = p * x2 + 2.770_681_4e-8;
    p = p * x2 - 2.101_024e-6;
    p = p * x2 - 5.692_506_4e-5;
    p = p * x2 - 7.349_906_3e-4;
    p = p * x2 - 2.954_600_1e-3;
    p = p * x2 - 1.609_603_3e-2;
    let mut q = -1.456_607_2e-5_f32;
    q = q * x2 - 2.133_740_6e-4;
    q = q * x2 - 1.682_827e-3;
    q = q * x2 - 7.373_329e-3;
    q = q * x2 - 1.426_474e-2;
    x * p / q
}

multiversion! {
    fn gelu_chunk(u: &[f32], g: &mut [f32]) {
        for (o, &x) in g.iter_mut().zip(u) {
            *o = 0.5 * x * (1.0 + erf(x * INV_SQRT2));
        }
    }
}

/// Exact GELU, `g = u·Φ(u) = ½u(1 + erf(u/√2))`.
pub fn gelu(u: &[f32], g: &mut [f32]) {
    g.par_chunks_mut(4096).zip(u.par_chunks(4096)).for_each(|(g, u)| gelu_chunk(u, g));
}

multiversion! {
    fn gelu_back_chunk(u: &[f32], d: &mut [f32]) {
        for (o, &x) in d.iter_mut().zip(u) {
            let cdf = 0.5 * (1.0 + erf(x * INV_SQRT2));
            let pdf = INV_SQRT_2PI * exp(-0.5 * x * x);
            *o *= cdf + x * pdf;
        }
    }
}

/// GELU backward in place: `d ← d·(Φ(u) + u·φ(u))`.
pub fn gelu_backward(u: &[f32], d: &mut [f32]) {
    d.par_chunks_mut(4096).zip(u.par_chunks(4096)).for_each(|(d, u)| gelu_back_chunk(u, d));
}

multiversion! {
    /// `acc += x`, elementwise.
    pub fn add_into(acc: &mut [f32], x: &[f32]) {
        for (a, v) in acc.iter_mut().zip(x) {
            *a += v;
        }
    }
}

/// `acc += x` over long vectors, in parallel blocks (elementwise, so the
/// result does not depend on the split).
pub fn add_all(acc: &mut [f32], x: &[f32]) {
    acc.par_chunks_mut(1 << 16).zip(x.par_chunks(1 << 16)).for_each(|(a, x)| add_into(a, x));
}

/// `y[i, :] += b` for every row.
pub fn add_bias(y: &mut [f32], b: &[f32]) {
    let n = b.len();
    y.par_chunks_mut(CHUNK * n).for_each(|rows| {
        for row in rows.chunks_mut(n) {
            add_into(row, b);
        }
    });
}

/// `db += Σ_rows dy` (the gradient of a bias).
pub fn bias_grad(dy: &[f32], n: usize, db: &mut [f32]) {
    // Partial sums per fixed block of rows, added in block order (deterministic,
    // whatever the number of threads or the way rayon split the blocks).
    let parts: Vec<Vec<f32>> = dy
        .par_chunks(CHUNK * 4 * n)
        .map(|rows| {
            let mut s = vec![0f32; n];
            for row in rows.chunks(n) {
                add_into(&mut s, row);
            }
            s
        })
        .collect();
    for s in &parts {
        add_into(db, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// erf by its Taylor series (|x| < 3) or asymptotic expansion, in f64.
    fn erf_ref(x: f64) -> f64 {
        if x.abs() < 3.0 {
            let (mut sum, mut term) = (0.0, x);
            for n in 0..200 {
                sum += term / (2 * n + 1) as f64;
                term *= -x * x / (n + 1) as f64;
            }
            sum * 2.0 / std::f64::consts::PI.sqrt()
        } else {
            let x2 = x * x;
            x.signum()
                * (1.0
                    - (-x2).exp() / (x.abs() * std::f64::consts::PI.sqrt())
                        * (1.0 - 1.0 / (2.0 * x2) + 3.0 / (4.0 * x2 * x2)))
        }
    }

    #[test]
    fn fast_exp_matches_libm() {
        let mut worst = 0f64;
        for i in -87_000..=88_000 {
            let x = i as f32 / 1000.0;
            let want = (x as f64).exp();
            worst = worst.max(((exp(x) as f64 - want) / want).abs());
        }
        assert!(worst < 1e-6, "max relative error {worst}");
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(-100.0), 0.0);
        assert!(exp(f32::NAN).is_nan());
    }

    #[test]
    fn exponent_bits_equal_the_integer_cast() {
        // 2ⁿ from the shifted float's bits is exactly 2ⁿ from `n as i32`.
        for i in -87_300..=88_300 {
            let xc = i as f32 / 1000.0;
            let shifted = xc * std::f32::consts::LOG2_E + 12_582_912.0;
            let n = shifted - 12_582_912.0;
            let by_cast = f32::from_bits(((n as i32 + 127) << 23) as u32);
            let by_bits = f32::from_bits(shifted.to_bits().wrapping_sub(0x4b40_0000 - 127) << 23);
            assert_eq!(by_cast.to_bits(), by_bits.to_bits(), "x = {xc}");
        }
    }

    #[test]
    fn lane_max_is_the_maximum() {
        let mut rng = crate::ml::rng::Rng::new(3);
        for len in [0usize, 1, 15, 16, 17, 40, 128, 129] {
            let mut x: Vec<f32> = (0..len).map(|_| rng.normal() * 10.0).collect();
            if len > 3 {
                x[2] = f32::NAN;
            }
            let want = x.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
            assert_eq!(lane_max(&x).to_bits(), want.to_bits(), "len {len}");
        }
    }

    #[test]
    fn causal_softmax_rows_and_their_backward() {
        let mut row = [1.0f32, 2.0, 3.0, 7.0, 9.0];
        softmax_causal(&mut row, 3, 0.5);
        let z: f64 = [0.5f64, 1.0, 1.5].iter().map(|v| v.exp()).sum();
        for (j, v) in [0.5f64, 1.0, 1.5].iter().enumerate() {
            assert!((row[j] as f64 - v.exp() / z).abs() < 1e-6, "{row:?}");
        }
        assert_eq!(&row[3..], &[0.0, 0.0]);
        // ds_j = p_j (dp_j − Σ p·dp) · scale on the visible keys, 0 elsewhere.
        let mut ds = [0.3f32, -0.2, 0.7, 5.0, 5.0];
        let dot: f32 = row[..3].iter().zip(&ds[..3]).map(|(p, d)| p * d).sum();
        let want: Vec<f32> = (0..3).map(|j| row[j] * (ds[j] - dot) * 0.5).collect();
        softmax_causal_backward(&row, &mut ds, 3, 0.5);
        for j in 0..3 {
            assert!((ds[j] - want[j]).abs() < 1e-6);
        }
        assert_eq!(&ds[3..], &[0.0, 0.0]);
    }

    #[test]
    fn fast_erf_is_accurate() {
        let mut worst = 0f64;
        for i in -6000..=6000 {
            let x = i as f64 / 1000.0;
            worst = worst.max((erf(x as f32) as f64 - erf_ref(x)).abs());
        }
        assert!(worst < 5e-7, "max abs error {worst}");
    }
}
