//! Frozen weights stored in 4 bits plus two numbers per 32, **without loss**:
//! the weights a decoding step reads, in a quarter of the memory traffic.
//!
//! Why: decoding a few sequences multiplies each weight by a few numbers
//! only, so a step of SmolLM2 at a small batch is as fast as its 425 MB of
//! f32 layer weights stream from memory (about 20 GB/s on the lab's 2-core
//! machine). The model came as a GGUF file quantised to Q4_1, dequantised
//! for training: every block of 32 weights in a row is exactly `w = q·d + m`
//! in f32, for 4-bit integers `q` and one `d`, `m` per block.
//! [`Packed::pack`] finds those `q`, `d`, `m` back from the f32 numbers and
//! checks **every** weight (`q·d + m` must give its exact bits, or the
//! tensor is not packed and stays on the f32 path). A decoding step then
//! reads 24 bytes per 32 weights instead of 128 and unpacks them in
//! registers ([`Packed::columns`]), each lane multiplying and adding in the
//! order the f32 kernels do ([`super::linalg`]): the outputs are the same
//! bits, and every sampled token the same, as without packing.
//!
//! What it buys, measured in turn-credit-assignment's `real` preset
//! (SmolLM2 with LoRA, 2 threads): a decoding step at batch 5 takes 19 ms
//! instead of 29, at batch 7 27 ms instead of 36 — and at batch 16 43 ms
//! either way. There the projections are no longer waiting on memory but on
//! arithmetic: timed alone, the 30 layers' packed projections take 21 ms
//! at 16 rows (160 GFLOP/s on two cores), half of that step. Every multiply
//! and add is rounded on its own, as the f32 kernels do, so that packing
//! changes no bit. A fused multiply-add takes them to 15.8 ms (1.34×; 1.46×
//! at 8 rows): a few percent of a rollout, for changing every sampled number.
//!
//! Nothing here quantises: a tensor that is not already of this form (a
//! Hugging Face checkpoint in f32 or bf16, the lab's own models, adapters)
//! is simply not packed. Training (many rows at once, through `gemm`) and
//! every backward pass read the f32 weights as before.

use rayon::prelude::*;

use super::linalg::{by_column_blocks, place, View, SMALL_M};

/// `c (+)= a·Wᵀ` for a packed frozen weight `W [n, k]` and few rows of `a`:
/// W is read from memory at 24 bytes per 32 weights instead of 128 and
/// unpacked in registers ([`Packed::columns`]); every output is [`super::linalg::dot`]'s
/// bits for W's f32 values, as on the f32 path.
pub fn small_m_times_packed(c: &mut [f32], ldc: usize, a: View, w: &Packed, acc: bool, threads: bool) {
    assert!(a.rows <= SMALL_M && a.cs == 1 && a.cols == w.cols, "a [≤{SMALL_M}, {}] by rows", w.cols);
    assert!((a.rows.max(1) - 1) * ldc + w.rows <= c.len(), "output too small");
    a.check();
    let (m, k) = (a.rows, a.cols);
    if m == 0 || w.rows == 0 {
        return;
    }
    let t =
        by_column_blocks(a, w.rows, threads, |jb, out| w.columns(out, m, jb * 64, |i| &a.data[i * a.rs..i * a.rs + k]));
    place(c, ldc, &t, m, acc);
}

/// Weights per block (as Q4_1).
pub const BLOCK: usize = 32;

/// 32 weights: `w[i] = lo(q[i])·d + m` for i < 16 and `hi(q[i − 16])·d + m`
/// after, each product and sum rounded to f32 in that order.
#[derive(Debug, Clone, Copy)]
struct Block {
    d: f32,
    m: f32,
    q: [u8; 16],
}

/// A `[rows, cols]` weight matrix, row-major, packed block by block.
#[derive(Debug)]
pub struct Packed {
    pub rows: usize,
    pub cols: usize,
    blocks: Vec<Block>,
}

impl Packed {
    /// Pack `w [rows, cols]` if every block of 32 weights (along a row) is
    /// exactly `q·d + m`; `None` otherwise (or when `cols` is not a multiple of 32).
    pub fn pack(w: &[f32], rows: usize, cols: usize) -> Option<Packed> {
        if cols == 0 || !cols.is_multiple_of(BLOCK) || w.len() != rows * cols {
            return None;
        }
        let blocks: Option<Vec<Block>> =
            w.par_chunks(cols).flat_map_iter(|row| row.chunks(BLOCK).map(pack_block)).collect();
        Some(Packed { rows, cols, blocks: blocks? })
    }

    /// One weight, unpacked (to spot-check that the f32 tensor is unchanged).
    pub fn get(&self, r: usize, c: usize) -> f32 {
        let b = &self.blocks[r * (self.cols / BLOCK) + c / BLOCK];
        let i = c % BLOCK;
        let q = if i < 16 { b.q[i] & 15 } else { b.q[i - 16] >> 4 };
        q as f32 * b.d + b.m
    }

    /// Bytes held (for the log and the bench).
    pub fn bytes(&self) -> usize {
        self.blocks.len() * std::mem::size_of::<Block>()
    }
}

/// The 4-bit value of `v` for step `d` above `m`, if `q·d + m` gives `v`'s exact bits.
fn fit(v: f32, d: f32, m: f32) -> Option<u8> {
    let q = if d == 0.0 { 0.0 } else { ((v - m) / d).round() };
    if !(0.0..=15.0).contains(&q) {
        return None;
    }
    ((q * d + m).to_bits() == v.to_bits()).then_some(q as u8)
}

/// `q`, `d`, `m` of one block, found from its numbers: `m` is the smallest
/// (its `q` is 0), `d` the largest's distance from it over 15, to within a
/// few ulps of f32 rounding (each candidate is checked on all 32 weights).
fn pack_block(v: &[f32]) -> Option<Block> {
    let m = v.iter().copied().fold(f32::INFINITY, f32::min);
    let top = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if !m.is_finite() || !top.is_finite() {
        return None;
    }
    let d0 = (top - m) / 15.0;
    let near = |k: i32| f32::from_bits((d0.to_bits() as i64 + k as i64).max(0) as u32);
    [0, 1, -1, 2, -2, 3, -3].into_iter().map(near).find_map(|d| {
        let mut q = [0u8; 16];
        for (i, &x) in v.iter().enumerate() {
            let n = fit(x, d, m)?;
            if i < 16 {
                q[i] = n;
            } else {
                q[i - 16] |= n << 4;
            }
        }
        Some(Block { d, m, q })
    })
}

/// 16 weights of block `b`: its low nibbles (`half` 0) or high ones (1).
#[inline(always)]
fn half(b: &Block, h: usize) -> [f32; 16] {
    let mut w = [0f32; 16];
    for (wl, q) in w.iter_mut().zip(b.q) {
        let q = if h == 0 { q & 15 } else { q >> 4 };
        *wl = q as f32 * b.d + b.m;
    }
    w
}

/// The dot products of `R` rows of `x` with `C` packed weight rows, unpacked
/// 16 at a time in registers: each lane accumulates `x·w` in the order
/// [`super::linalg::dot`] does (16 lanes along k, then the same halving
/// sum), so each result is `dot(x, unpacked w)`'s bits.
#[inline(always)]
fn dots<const R: usize, const C: usize>(x: [&[f32]; R], w: [&[Block]; C]) -> [[f32; C]; R] {
    let mut acc = [[[0f32; 16]; C]; R];
    for bi in 0..w[0].len() {
        for h in 0..2 {
            // Loops, not `array::from_fn`/`map`: those become calls compiled
            // without the wide instructions this function is built for.
            let mut ws = [[0f32; 16]; C];
            for (wsj, wj) in ws.iter_mut().zip(&w) {
                *wsj = half(&wj[bi], h);
            }
            let at = bi * BLOCK + h * 16;
            for (ai, xr) in acc.iter_mut().zip(&x) {
                let xs: &[f32; 16] = xr[at..at + 16].try_into().expect("16 lanes");
                for (a, wsj) in ai.iter_mut().zip(&ws) {
                    for l in 0..16 {
                        a[l] += xs[l] * wsj[l];
                    }
                }
            }
        }
    }
    let mut out = [[0f32; C]; R];
    for (oi, ai) in out.iter_mut().zip(&acc) {
        for (o, a) in oi.iter_mut().zip(ai) {
            *o = super::linalg::reduce16(*a);
        }
    }
    out
}

/// With AVX-512: the same arithmetic as [`dots`] (a multiply, then an add,
/// lane by lane, in the same order), written with the vector instructions
/// themselves: left to the compiler, the row loop became gathers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(clippy::needless_range_loop)] // block `bi` of every weight row
fn dots_avx512<const R: usize, const C: usize>(x: [&[f32]; R], w: [&[Block]; C]) -> [[f32; C]; R] {
    use std::arch::x86_64::*;
    let nb = w[0].len();
    for xr in &x {
        assert!(xr.len() >= nb * BLOCK, "input rows as long as the weight rows");
    }
    let mut acc = [[_mm512_setzero_ps(); C]; R];
    let low4 = _mm512_set1_epi32(15);
    for bi in 0..nb {
        let (mut lo, mut hi) = ([_mm512_setzero_ps(); C], [_mm512_setzero_ps(); C]);
        for j in 0..C {
            let b = &w[j][bi];
            // SAFETY: `b.q` is 16 bytes, read unaligned.
            let q = _mm512_cvtepu8_epi32(unsafe { _mm_loadu_si128(b.q.as_ptr().cast()) });
            let (d, m) = (_mm512_set1_ps(b.d), _mm512_set1_ps(b.m));
            lo[j] = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_and_si512(q, low4)), d), m);
            hi[j] = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32::<4>(q)), d), m);
        }
        for (ai, xr) in acc.iter_mut().zip(&x) {
            // SAFETY: bi·32 + 32 ≤ the row's length (asserted above).
            let (x0, x1) = unsafe {
                let p = xr.as_ptr().add(bi * BLOCK);
                (_mm512_loadu_ps(p), _mm512_loadu_ps(p.add(16)))
            };
            for ((a, l), h) in ai.iter_mut().zip(&lo).zip(&hi) {
                *a = _mm512_add_ps(*a, _mm512_mul_ps(x0, *l));
                *a = _mm512_add_ps(*a, _mm512_mul_ps(x1, *h));
            }
        }
    }
    let mut out = [[0f32; C]; R];
    for (oi, ai) in out.iter_mut().zip(&acc) {
        for (o, a) in oi.iter_mut().zip(ai) {
            let mut lanes = [0f32; 16];
            // SAFETY: 16 floats into a 16-float array.
            unsafe { _mm512_storeu_ps(lanes.as_mut_ptr(), *a) };
            *o = super::linalg::reduce16(lanes);
        }
    }
    out
}

/// Whether packed weights are faster here than f32 ones: with AVX-512.
pub fn fast() -> bool {
    cfg!(target_arch = "x86_64") && super::simd::level() >= 4
}

/// [`dots`] on the widest instructions this CPU has.
fn dots_fast<const R: usize, const C: usize>(x: [&[f32]; R], w: [&[Block]; C]) -> [[f32; C]; R] {
    #[cfg(target_arch = "x86_64")]
    if super::simd::level() >= 4 {
        // SAFETY: AVX-512F was detected on this CPU.
        return unsafe { dots_avx512(x, w) };
    }
    // Without AVX-512, the plain loops: slower than the f32 weights, so
    // decoding packs only where [`fast`] says so; the tests still run here.
    dots(x, w)
}

impl Packed {
    fn row(&self, j: usize) -> &[Block] {
        let nb = self.cols / BLOCK;
        &self.blocks[j * nb..(j + 1) * nb]
    }

    /// `out[jj·m + i] = x(i)·row(j0 + jj)` for `jj < cols` (column-major, as
    /// [`super::linalg`]'s small-batch products lay them out): rows of `x`
    /// eight, then four, then one at a time, against two or four weight rows.
    pub fn columns<'x>(&self, out: &mut [f32], m: usize, j0: usize, x: impl Fn(usize) -> &'x [f32]) {
        let cols = out.len() / m;
        let mut i = 0;
        self.row_groups::<8>(out, m, j0, &mut i, &x);
        self.row_groups::<4>(out, m, j0, &mut i, &x);
        for r in i..m {
            let mut jj = 0;
            while jj + 4 <= cols {
                let d = dots_fast::<1, 4>([x(r)], std::array::from_fn(|q| self.row(j0 + jj + q)));
                put(out, m, r, jj, &d[0]);
                jj += 4;
            }
            for j in jj..cols {
                put(out, m, r, j, &dots_fast::<1, 1>([x(r)], [self.row(j0 + j)])[0]);
            }
        }
    }

    /// Rows `*i..` of `x`, `R` at a time while `R` remain, against pairs of
    /// weight rows (an odd last one alone); `*i` moves past them.
    fn row_groups<'x, const R: usize>(
        &self,
        out: &mut [f32],
        m: usize,
        j0: usize,
        i: &mut usize,
        x: &impl Fn(usize) -> &'x [f32],
    ) {
        let cols = out.len() / m;
        while *i + R <= m {
            let xs: [&[f32]; R] = std::array::from_fn(|c| x(*i + c));
            let mut jj = 0;
            while jj + 2 <= cols {
                let r = dots_fast::<R, 2>(xs, [self.row(j0 + jj), self.row(j0 + jj + 1)]);
                r.iter().enumerate().for_each(|(c, row)| put(out, m, *i + c, jj, row));
                jj += 2;
            }
            if jj < cols {
                for (c, xr) in xs.iter().enumerate() {
                    put(out, m, *i + c, jj, &dots_fast::<1, 1>([xr], [self.row(j0 + jj)])[0]);
                }
            }
            *i += R;
        }
    }
}

/// Row `i`'s outputs `r` at columns `jj..` of the column-major `out` (`m` rows).
fn put(out: &mut [f32], m: usize, i: usize, jj: usize, r: &[f32]) {
    for (q, v) in r.iter().enumerate() {
        out[(jj + q) * m + i] = *v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ml::fused::linalg::{dot, matmul};

    /// Rows of `q·d + m` blocks, as dequantising a Q4_1 tensor gives them.
    fn q4_like(rows: usize, cols: usize) -> Vec<f32> {
        let mut w = Vec::with_capacity(rows * cols);
        for b in 0..rows * cols / BLOCK {
            // d and m as f16 values would be (multiples of a power of two).
            let d = ((b * 7 % 13) as f32 + 1.0) / 1024.0;
            let m = -((b * 5 % 11) as f32) / 256.0;
            for i in 0..BLOCK {
                let q = ((b * 3 + i * 7) % 16) as f32;
                w.push(q * d + m);
            }
        }
        w
    }

    #[test]
    fn q4_blocks_pack_and_unpack_to_the_same_bits() {
        let (rows, cols) = (5, 96);
        let w = q4_like(rows, cols);
        let p = Packed::pack(&w, rows, cols).expect("every block is q·d + m");
        for j in 0..rows {
            for c in 0..cols {
                assert_eq!(p.get(j, c).to_bits(), w[j * cols + c].to_bits(), "({j}, {c})");
            }
        }
        assert_eq!(p.bytes(), rows * cols / BLOCK * 24);
    }

    #[test]
    fn weights_that_are_not_four_bit_blocks_are_not_packed() {
        let mut w = q4_like(2, 64);
        w[37] += 1e-4; // one weight between two steps
        assert!(Packed::pack(&w, 2, 64).is_none());
        let smooth: Vec<f32> = (0..64).map(|i| (i as f32 * 0.37).sin()).collect();
        assert!(Packed::pack(&smooth, 2, 32).is_none(), "a trained f32 weight is not packed");
        assert!(Packed::pack(&q4_like(1, 64)[..48], 1, 48).is_none(), "rows not a multiple of 32");
        let mut nan = q4_like(1, 32);
        nan[0] = f32::NAN;
        assert!(Packed::pack(&nan, 1, 32).is_none());
        // A constant block (d = 0) packs.
        assert!(Packed::pack(&[0.25; 32], 1, 32).is_some());
    }

    /// A packed weight gives the f32 path's bits: every output is `dot` of
    /// the input row and the weight's unpacked row, at every batch size a
    /// decoding step uses, with and without threads, into a wider output.
    #[test]
    fn packed_products_are_the_f32_products_bit_for_bit() {
        for k in [32usize, 576] {
            for n in [3usize, 8, 70, 200] {
                // Blocks of q·d + m, as a dequantised Q4_1 tensor holds them.
                let w: Vec<f32> = (0..n * k)
                    .map(|i| {
                        ((i * 7 + i / 32) % 16) as f32 * ((i / 32 % 5 + 1) as f32 / 512.0) - (i / 32 % 3) as f32 / 64.0
                    })
                    .collect();
                let p = Packed::pack(&w, n, k).expect("q·d + m blocks");
                for m in [1usize, 3, 4, 8, 11, 16] {
                    let a: Vec<f32> = (0..m * k).map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0).collect();
                    for threads in [false, true] {
                        let ldc = n + 2;
                        let mut c = vec![0.5f32; m * ldc];
                        small_m_times_packed(&mut c, ldc, View::rm(&a, m, k), &p, false, threads);
                        let mut f = vec![0.5f32; m * ldc];
                        matmul(&mut f, ldc, View::rm(&a, m, k), View::rm(&w, n, k).t(), false, threads);
                        for i in 0..m {
                            for j in 0..n {
                                let want = dot(&a[i * k..(i + 1) * k], &w[j * k..(j + 1) * k]);
                                assert_eq!(c[i * ldc + j].to_bits(), want.to_bits(), "m {m} n {n} k {k} at {i},{j}");
                                assert_eq!(c[i * ldc + j].to_bits(), f[i * ldc + j].to_bits());
                            }
                            assert_eq!(&c[i * ldc + n..i * ldc + n + 2], &[0.5, 0.5], "beyond the output untouched");
                        }
                    }
                }
            }
        }
    }
}
