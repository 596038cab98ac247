//! Causal multi-head self-attention on the fused QKV buffer, forward and
//! backward, parallel over sequences (each task owns one sequence's rows).
//!
//! ```text
//! S = Q Kᵀ / √d_h     P = softmax(S + causal mask)     O = P V
//! dV = Pᵀ dO    dP = dO Vᵀ    dS = P ⊙ (dP − rowsum(P ⊙ dP)) / √d_h
//! dQ = dS K     dK = dSᵀ Q
//! ```
//!
//! Causal blocks: the rows of a sequence go in blocks of [`BLOCK`] queries,
//! and block `i0..i1` only ever meets keys `0..i1` — the masked upper
//! triangle is never computed (at t = 128 the products shrink to 5/8).
//! Entries of `P` and `dS` above the diagonal inside a block are zero;
//! entries right of a block (keys ≥ i1) are never written nor read.

use rayon::prelude::*;

use super::kernels;
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

/// Queries per causal block.
pub const BLOCK: usize = 32;

/// Row blocks `(i0, i1)` of a sequence of `t` tokens.
pub(super) fn blocks(t: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..t.div_ceil(BLOCK)).map(move |bi| (bi * BLOCK, ((bi + 1) * BLOCK).min(t)))
}

/// `qkv: [b·t, 3d]` → `att: [b·t, d]`, saving the probabilities `p: [b, h, t, t]`
/// (on and below the diagonal; see the module docs for the rest).
pub fn forward(qkv: &[f32], dims: Dims, att: &mut [f32], p: &mut [f32]) {
    let Dims { t, h, hd, .. } = dims;
    let d = dims.d();
    let scale = 1.0 / (hd as f32).sqrt();
    att.par_chunks_mut(t * d).zip(p.par_chunks_mut(h * t * t)).enumerate().for_each(|(bi, (att_b, p_b))| {
        let rows = &qkv[bi * t * 3 * d..(bi + 1) * t * 3 * d];
        for hi in 0..h {
            let s = &mut p_b[hi * t * t..(hi + 1) * t * t];
            for (i0, i1) in blocks(t) {
                let q = View::strided(&rows[i0 * 3 * d + hi * hd..], i1 - i0, hd, 3 * d);
                let k = View::strided(&rows[d + hi * hd..], i1, hd, 3 * d);
                let v = View::strided(&rows[2 * d + hi * hd..], i1, hd, 3 * d);
                matmul(&mut s[i0 * t..], t, q, k.t(), false, false);
                for i in i0..i1 {
                    let row = &mut s[i * t..i * t + i1];
                    kernels::softmax_causal(row, i + 1, scale);
                }
                let pv = View::strided(&s[i0 * t..], i1 - i0, i1, t);
                matmul(&mut att_b[i0 * d + hi * hd..], d, pv, v, false, false);
            }
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
            for (i0, i1) in blocks(t) {
                let bs = i1 - i0;
                let q = View::strided(&rows[i0 * 3 * d + hi * hd..], bs, hd, 3 * d);
                let k = View::strided(&rows[d + hi * hd..], i1, hd, 3 * d);
                let v = View::strided(&rows[2 * d + hi * hd..], i1, hd, 3 * d);
                let d_o = View::strided(&datt_b[i0 * d + hi * hd..], bs, hd, d);
                // dV = Pᵀ dO: keys before the block accumulate (earlier blocks
                // wrote them), the block's own keys get their first term here.
                if i0 > 0 {
                    let before = View::strided(&pb[i0 * t..], bs, i0, t);
                    matmul(&mut dq_b[2 * d + hi * hd..], 3 * d, before.t(), d_o, true, false);
                }
                let own = View::strided(&pb[i0 * t + i0..], bs, bs, t);
                matmul(&mut dq_b[i0 * 3 * d + 2 * d + hi * hd..], 3 * d, own.t(), d_o, false, false);
                // dP = dO Vᵀ, then the softmax backward row by row (masked entries have P = 0).
                matmul(&mut ds[i0 * t..], t, d_o, v.t(), false, false);
                for i in i0..i1 {
                    kernels::softmax_causal_backward(&pb[i * t..i * t + i1], &mut ds[i * t..i * t + i1], i + 1, scale);
                }
                let dsv = View::strided(&ds[i0 * t..], bs, i1, t);
                // dQ = dS K (each query row once).
                matmul(&mut dq_b[i0 * 3 * d + hi * hd..], 3 * d, dsv, k, false, false);
                // dK = dSᵀ Q, split like dV.
                if i0 > 0 {
                    let before = View::strided(&ds[i0 * t..], bs, i0, t);
                    matmul(&mut dq_b[d + hi * hd..], 3 * d, before.t(), q, true, false);
                }
                let own = View::strided(&ds[i0 * t + i0..], bs, bs, t);
                matmul(&mut dq_b[i0 * 3 * d + d + hi * hd..], 3 * d, own.t(), q, false, false);
            }
        }
    });
}
