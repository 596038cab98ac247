//! Causal multi-head self-attention on the fused QKV buffer, forward and
//! backward, parallel over sequences (each task owns one sequence's rows).
//!
//! ```text
//! S = Q Kᵀ / √d_h     P = softmax(S + causal mask)     O = P V
//! dV = Pᵀ dO    dP = dO Vᵀ    dS = P ⊙ (dP − rowsum(P ⊙ dP)) / √d_h
//! dQ = dS K     dK = dSᵀ Q
//! ```

use rayon::prelude::*;

use super::linalg::{matmul, View};

/// Shapes of one attention call: sequences of `t` tokens, `h` heads of width `hd`
/// (the number of sequences follows from the buffers).
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub t: usize,
    pub h: usize,
    pub hd: usize,
}

impl Dims {
    pub fn d(&self) -> usize {
        self.h * self.hd
    }
}

/// `qkv: [b·t, 3d]` → `att: [b·t, d]`, saving the probabilities `p: [b, h, t, t]`.
pub fn forward(qkv: &[f32], dims: Dims, att: &mut [f32], p: &mut [f32]) {
    let Dims { t, h, hd, .. } = dims;
    let d = dims.d();
    let scale = 1.0 / (hd as f32).sqrt();
    att.par_chunks_mut(t * d).zip(p.par_chunks_mut(h * t * t)).enumerate().for_each(|(bi, (att_b, p_b))| {
        let rows = &qkv[bi * t * 3 * d..(bi + 1) * t * 3 * d];
        for hi in 0..h {
            let q = View::strided(&rows[hi * hd..], t, hd, 3 * d);
            let k = View::strided(&rows[d + hi * hd..], t, hd, 3 * d);
            let v = View::strided(&rows[2 * d + hi * hd..], t, hd, 3 * d);
            let s = &mut p_b[hi * t * t..(hi + 1) * t * t];
            matmul(s, t, q, k.t(), false, false);
            for i in 0..t {
                let row = &mut s[i * t..(i + 1) * t];
                let mut max = f32::NEG_INFINITY;
                for x in row[..=i].iter_mut() {
                    *x *= scale;
                    max = max.max(*x);
                }
                let mut sum = 0.0;
                for x in row[..=i].iter_mut() {
                    *x = (*x - max).exp();
                    sum += *x;
                }
                let inv = 1.0 / sum;
                row[..=i].iter_mut().for_each(|x| *x *= inv);
                row[i + 1..].fill(0.0);
            }
            matmul(&mut att_b[hi * hd..], d, View::rm(s, t, t), v, false, false);
        }
    });
}

/// Gradient of `qkv` given `datt`, from the saved `p`. `dqkv` is overwritten.
pub fn backward(qkv: &[f32], p: &[f32], datt: &[f32], dims: Dims, dqkv: &mut [f32]) {
    let Dims { t, h, hd, .. } = dims;
    let d = dims.d();
    let scale = 1.0 / (hd as f32).sqrt();
    dqkv.par_chunks_mut(t * 3 * d).enumerate().for_each(|(bi, dq_b)| {
        let rows = &qkv[bi * t * 3 * d..(bi + 1) * t * 3 * d];
        let datt_b = &datt[bi * t * d..(bi + 1) * t * d];
        let mut ds = vec![0f32; t * t];
        for hi in 0..h {
            let pb = &p[(bi * h + hi) * t * t..(bi * h + hi + 1) * t * t];
            let q = View::strided(&rows[hi * hd..], t, hd, 3 * d);
            let k = View::strided(&rows[d + hi * hd..], t, hd, 3 * d);
            let v = View::strided(&rows[2 * d + hi * hd..], t, hd, 3 * d);
            let d_o = View::strided(&datt_b[hi * hd..], t, hd, d);
            let pv = View::rm(pb, t, t);
            // dV = Pᵀ dO
            matmul(&mut dq_b[2 * d + hi * hd..], 3 * d, pv.t(), d_o, false, false);
            // dP = dO Vᵀ, then the softmax backward row by row (masked entries have P = 0).
            matmul(&mut ds, t, d_o, v.t(), false, false);
            for i in 0..t {
                let (pr, dr) = (&pb[i * t..i * t + i + 1], &mut ds[i * t..(i + 1) * t]);
                let dot: f32 = pr.iter().zip(dr.iter()).map(|(a, b)| a * b).sum();
                for j in 0..=i {
                    dr[j] = pr[j] * (dr[j] - dot) * scale;
                }
                dr[i + 1..].fill(0.0);
            }
            let dsv = View::rm(&ds, t, t);
            // dQ = dS K, dK = dSᵀ Q
            matmul(&mut dq_b[hi * hd..], 3 * d, dsv, k, false, false);
            matmul(&mut dq_b[d + hi * hd..], 3 * d, dsv.t(), q, false, false);
        }
    });
}
