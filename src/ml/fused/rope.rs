//! Rotary position embeddings (Su et al., arXiv:2104.09864) on the fused QKV
//! buffer. Each head's query and key are split in halves (x₁, x₂) and rotated
//! by θ = p·10000^(−2j/d_h): (x₁cos θ − x₂sin θ, x₂cos θ + x₁sin θ) — the
//! same convention as `gpt::apply_rope`. The backward of a rotation is the
//! rotation by −θ, applied to the gradients of q and k. A context-extension
//! rescaling (`RopeScaling`) changes the frequencies, and YaRN also scales
//! cos and sin by its attention factor m (the map m·R(θ) has the transpose
//! m·R(−θ), so the backward is unchanged).

use rayon::prelude::*;

use crate::ml::gpt_config::RopeScaling;

/// cos and sin of every (position, pair) angle.
pub struct Table {
    half: usize,
    cos: Vec<f32>,
    sin: Vec<f32>,
}

impl Table {
    /// Angles for the given positions (one row of the table per position),
    /// with the inverse frequencies and attention scale of `scaling`
    /// (`RopeScaling::inv_freq`, the same as the composed model's).
    pub fn new(hd: usize, scaling: &RopeScaling, positions: &[u32]) -> Table {
        let half = hd / 2;
        let inv = scaling.inv_freq(hd);
        let m = scaling.attention_scale();
        let mut cos = Vec::with_capacity(positions.len() * half);
        let mut sin = Vec::with_capacity(positions.len() * half);
        for &p in positions {
            for &f in &inv {
                let a = p as f32 * f;
                cos.push(m * a.cos());
                sin.push(m * a.sin());
            }
        }
        Table { half, cos, sin }
    }

    /// Half the head dimension (one angle per pair).
    pub fn half(&self) -> usize {
        self.half
    }
}

/// Rotate q and k of every row of `qkv` (`[rows, 3d]`) in place. Row `i` uses
/// table row `i % period` (training: position within the sequence; decoding:
/// `period` = rows, one table row per row). `inverse` rotates by −θ.
pub fn rotate_qk(qkv: &mut [f32], d: usize, hd: usize, table: &Table, period: usize, inverse: bool) {
    let half = table.half;
    qkv.par_chunks_mut(3 * d).enumerate().for_each(|(i, row)| {
        let r = (i % period) * half;
        let (cos, sin) = (&table.cos[r..r + half], &table.sin[r..r + half]);
        for part in 0..2 {
            for h in 0..d / hd {
                let x = &mut row[part * d + h * hd..part * d + (h + 1) * hd];
                for j in 0..half {
                    let (x1, x2) = (x[j], x[j + half]);
                    let s = if inverse { -sin[j] } else { sin[j] };
                    x[j] = x1 * cos[j] - x2 * s;
                    x[j + half] = x2 * cos[j] + x1 * s;
                }
            }
        }
    });
}
