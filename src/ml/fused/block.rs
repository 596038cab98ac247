//! One transformer block's forward on plain slices, shared by the training
//! op (`GptOp`, full causal attention over each sequence) and the decoder
//! (`decode::Decoder`, attention against its K/V cache). The two differ only
//! in attention, which the caller passes in:
//!
//! ```text
//! h1 = LN1(x)   qkv = h1·Wqkvᵀ + b (RoPE on q, k)   att = attend(qkv)
//! x += att·Wpᵀ + bp
//! h2 = LN2(x)   u = h2·Wfcᵀ + bfc   g = gelu(u)   x += g·W2ᵀ + b2
//! ```
//!
//! Every intermediate is written into [`BlockActs`], buffers the caller owns
//! (the training op keeps them for its backward; the decoder reuses one set
//! for every layer and step), so the block itself allocates nothing. The
//! sections are timed for `bench --profile` (a relaxed atomic load when off).

use super::kernels;
use super::linalg::{matmul, View};
use super::profile::{self, Phase};
use super::rope;

/// One layer's parameters, borrowed from the flat parameter vector.
pub struct BlockWeights<'a> {
    pub ln1_w: &'a [f32],
    pub ln1_b: &'a [f32],
    /// `[3d, d]`: query, key and value projections stacked.
    pub qkv_w: &'a [f32],
    pub qkv_b: &'a [f32],
    pub proj_w: &'a [f32],
    pub proj_b: &'a [f32],
    pub ln2_w: &'a [f32],
    pub ln2_b: &'a [f32],
    /// `[4d, d]`.
    pub fc_w: &'a [f32],
    pub fc_b: &'a [f32],
    /// `[d, 4d]`.
    pub fc2_w: &'a [f32],
    pub fc2_b: &'a [f32],
}

/// A block's intermediates for `n` rows of width `d` (the backward reads them).
pub struct BlockActs {
    /// LN1: output `[n, d]`, normalised input `[n, d]`, 1/σ per row `[n]`.
    pub h1: Vec<f32>,
    pub xhat1: Vec<f32>,
    pub rstd1: Vec<f32>,
    /// `[n, 3d]`, after the bias and RoPE.
    pub qkv: Vec<f32>,
    /// Attention output before the projection, `[n, d]`.
    pub att: Vec<f32>,
    pub h2: Vec<f32>,
    pub xhat2: Vec<f32>,
    pub rstd2: Vec<f32>,
    /// MLP pre-activation and GELU output, `[n, 4d]`.
    pub u: Vec<f32>,
    pub g: Vec<f32>,
}

impl BlockActs {
    /// Buffers for `n` rows of width `d`, each from `take(len)`; their
    /// contents do not matter (the forward overwrites every entry).
    pub fn new(n: usize, d: usize, mut take: impl FnMut(usize) -> Vec<f32>) -> BlockActs {
        BlockActs {
            h1: take(n * d),
            xhat1: take(n * d),
            rstd1: take(n),
            qkv: take(n * 3 * d),
            att: take(n * d),
            h2: take(n * d),
            xhat2: take(n * d),
            rstd2: take(n),
            u: take(n * 4 * d),
            g: take(n * 4 * d),
        }
    }

    /// Resize every buffer for `n` rows (no allocation once they have held as many).
    pub fn fit(&mut self, n: usize, d: usize) {
        for (v, width) in self.buffers().into_iter().zip([d, d, 1, 3 * d, d, d, d, 1, 4 * d, 4 * d]) {
            v.resize(n * width, 0.0);
        }
    }

    fn buffers(&mut self) -> [&mut Vec<f32>; 10] {
        [
            &mut self.h1,
            &mut self.xhat1,
            &mut self.rstd1,
            &mut self.qkv,
            &mut self.att,
            &mut self.h2,
            &mut self.xhat2,
            &mut self.rstd2,
            &mut self.u,
            &mut self.g,
        ]
    }

    /// Every buffer, to hand back to a pool.
    pub fn into_buffers(self) -> [Vec<f32>; 10] {
        [self.h1, self.xhat1, self.rstd1, self.qkv, self.att, self.h2, self.xhat2, self.rstd2, self.u, self.g]
    }
}

/// Rotary embedding for a block: the angle table and its period in rows
/// (row `i` of `qkv` uses table row `i % period`; see `rope::rotate_qk`).
pub type Rope<'a> = Option<(&'a rope::Table, usize)>;

/// `x` (`[n, d]`, the residual stream) through one block, in place. `attend`
/// maps `qkv` (`[n, 3d]`, rotated) to the attention output `att` (`[n, d]`,
/// every entry written); `threads`: let the weight products split their work.
pub fn forward(
    wt: &BlockWeights<'_>,
    x: &mut [f32],
    a: &mut BlockActs,
    rope: Rope<'_>,
    threads: bool,
    attend: impl FnOnce(&[f32], &mut [f32]),
) {
    let d = wt.ln1_w.len();
    let n = x.len() / d;
    let mm = |c: &mut [f32], ldc: usize, a: View, b: View, acc: bool| {
        profile::time(Phase::FwdMatmul, || matmul(c, ldc, a, b, acc, threads))
    };
    // x += Attn(LN(x))
    profile::time(Phase::FwdRowwise, || {
        kernels::layer_norm(x, wt.ln1_w, wt.ln1_b, d, &mut a.h1, &mut a.xhat1, &mut a.rstd1)
    });
    mm(&mut a.qkv, 3 * d, View::rm(&a.h1, n, d), View::rm(wt.qkv_w, 3 * d, d).t(), false);
    profile::time(Phase::FwdRowwise, || kernels::add_bias(&mut a.qkv, wt.qkv_b));
    if let Some((table, period)) = rope {
        let hd = 2 * table.half();
        profile::time(Phase::FwdRowwise, || rope::rotate_qk(&mut a.qkv, d, hd, table, period, false));
    }
    profile::time(Phase::FwdAttention, || attend(&a.qkv, &mut a.att));
    mm(x, d, View::rm(&a.att, n, d), View::rm(wt.proj_w, d, d).t(), true);
    profile::time(Phase::FwdRowwise, || kernels::add_bias(x, wt.proj_b));
    // x += MLP(LN(x))
    profile::time(Phase::FwdRowwise, || {
        kernels::layer_norm(x, wt.ln2_w, wt.ln2_b, d, &mut a.h2, &mut a.xhat2, &mut a.rstd2)
    });
    mm(&mut a.u, 4 * d, View::rm(&a.h2, n, d), View::rm(wt.fc_w, 4 * d, d).t(), false);
    profile::time(Phase::FwdRowwise, || kernels::add_bias(&mut a.u, wt.fc_b));
    profile::time(Phase::FwdRowwise, || kernels::gelu(&a.u, &mut a.g));
    mm(x, d, View::rm(&a.g, n, 4 * d), View::rm(wt.fc2_w, d, 4 * d).t(), true);
    profile::time(Phase::FwdRowwise, || kernels::add_bias(x, wt.fc2_b));
}
