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
        let mean = row.iter().sum::<f32>() / d;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d;
        let s = 1.0 / (var + LN_EPS).sqrt();
        for j in 0..row.len() {
            let h = (row[j] - mean) * s;
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
        let mut mean_g = 0.0;
        let mut mean_gx = 0.0;
        for j in 0..d {
            g[j] = dy[j] * w[j];
            mean_g += g[j];
            mean_gx += g[j] * xr[j];
            gw[j] += dy[j] * xr[j];
            gb[j] += dy[j];
        }
        mean_g /= d as f32;
        mean_gx /= d as f32;
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
            let pdf = INV_SQRT_2PI * (-0.5 * x * x).exp();
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
    fn fast_erf_is_accurate() {
        let mut worst = 0f64;
        for i in -6000..=6000 {
            let x = i as f64 / 1000.0;
            worst = worst.max((erf(x as f32) as f64 - erf_ref(x)).abs());
        }
        assert!(worst < 5e-7, "max abs error {worst}");
    }
}
