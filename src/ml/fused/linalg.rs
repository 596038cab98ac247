//! Matrix products on plain `f32` slices, over the `gemm` crate (the same
//! kernels candle uses, here called directly with strides so that transposes
//! cost nothing and results can be accumulated in place).

use gemm::{gemm, Parallelism};

/// A strided matrix view: element (i, j) is `data[i·rs + j·cs]`.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub cols: usize,
    pub rs: usize,
    pub cs: usize,
}

impl<'a> View<'a> {
    /// Row-major `rows × cols` with row stride `cols`.
    pub fn rm(data: &'a [f32], rows: usize, cols: usize) -> View<'a> {
        View { data, rows, cols, rs: cols, cs: 1 }
    }

    /// Row-major with an explicit row stride (a column block of a wider matrix).
    pub fn strided(data: &'a [f32], rows: usize, cols: usize, rs: usize) -> View<'a> {
        View { data, rows, cols, rs, cs: 1 }
    }

    /// The transpose, as a view of the same memory.
    pub fn t(self) -> View<'a> {
        View { data: self.data, rows: self.cols, cols: self.rows, rs: self.cs, cs: self.rs }
    }

    pub(super) fn check(&self) {
        if self.rows > 0 && self.cols > 0 {
            let last = (self.rows - 1) * self.rs + (self.cols - 1) * self.cs;
            assert!(last < self.data.len(), "matrix view out of bounds: {self:?}");
        }
    }
}

/// Use gemm's own threads only when the product is big enough to pay for them.
fn parallelism(m: usize, n: usize, k: usize, allow: bool) -> Parallelism {
    // Few rows (decoding one token per sequence) split badly across threads.
    if allow && m >= 32 && m * n * k >= 1 << 18 {
        Parallelism::Rayon(0)
    } else {
        Parallelism::None
    }
}

/// `c = c·[acc] + a·b` for `a: m×k`, `b: k×n`, `c` row-major `m×n` with row
/// stride `ldc`. `threads`: let gemm split the work (false inside a parallel loop).
pub fn matmul(c: &mut [f32], ldc: usize, a: View, b: View, acc: bool, threads: bool) {
    matmul_as(c, ldc, a, b, acc, threads, 0)
}

/// gemm on checked views, whatever the number of rows.
fn with_gemm(c: &mut [f32], ldc: usize, a: View, b: View, acc: bool, threads: bool) {
    let (m, n, k) = (a.rows, b.cols, a.cols);
    // SAFETY: the callers bounds-checked the views and the output; gemm reads
    // `a` and `b` through their strides and writes `c` (row-major, stride ldc)
    // only, and `c` does not alias the inputs (it is a unique borrow).
    unsafe {
        gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            ldc as isize,
            acc,
            a.data.as_ptr(),
            a.cs as isize,
            a.rs as isize,
            b.data.as_ptr(),
            b.cs as isize,
            b.rs as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            parallelism(m, n, k, threads),
        )
    }
}

/// [`matmul`] of `a`'s rows as rows of a product of `rows_as ≥ a.rows` rows:
/// each row comes out with the bits it has in that bigger product, whichever
/// rows share it here. Decoding uses it when finished sequences leave the
/// batch ([`crate::ml::sample::GenConfig::compact`]): the rows left must not
/// change what they sample.
///
/// The kernel is chosen by the rows of the product, and the kernels round
/// differently: ours below [`SMALL_M`] rows compute each row alone, so any
/// subset of them agrees; gemm's does too, except where the product is
/// small (measured with gemm 0.19: one row, or rows × columns ≤ 256, as
/// with a rank-8 adapter's `x·Aᵀ` at up to 32 rows). There the rows are
/// padded with zeros up to a size past that (or to `rows_as`), which costs
/// little because the product is small.
/// (`rows_as` ≤ `a.rows`: plain [`matmul`].)
#[allow(clippy::too_many_arguments)]
pub fn matmul_as(c: &mut [f32], ldc: usize, a: View, b: View, acc: bool, threads: bool, rows_as: usize) {
    assert_eq!(a.cols, b.rows, "inner dimensions differ");
    let (m, n, k) = (a.rows, b.cols, a.cols);
    if m == 0 || n == 0 {
        return;
    }
    assert!((m - 1) * ldc + n <= c.len(), "output too small");
    a.check();
    b.check();
    if k == 0 {
        if !acc {
            for i in 0..m {
                c[i * ldc..i * ldc + n].fill(0.0);
            }
        }
        return;
    }
    // As the whole product would: gemm's kernels, whatever the rows here.
    let as_whole = rows_as > m && rows_as > SMALL_M;
    if !as_whole && m <= SMALL_M && a.cs == 1 && b.rs == 1 {
        return small_m_times_transposed(c, ldc, a, b, acc, threads);
    }
    if !as_whole && m <= SMALL_M && a.cs == 1 && b.cs == 1 {
        return small_m_times_rows(c, ldc, a, b, acc);
    }
    let run = if as_whole { m.max(GEMM_SMALL / n + 1).max(2).min(rows_as) } else { m };
    if run == m {
        return with_gemm(c, ldc, a, b, acc, threads);
    }
    // A small product: its rows padded with zeros to `run`.
    let mut x = vec![0f32; run * k];
    for i in 0..m {
        for p in 0..k {
            x[i * k + p] = a.data[i * a.rs + p * a.cs];
        }
    }
    let mut y = vec![0f32; run * n];
    if acc {
        for i in 0..m {
            y[i * n..(i + 1) * n].copy_from_slice(&c[i * ldc..i * ldc + n]);
        }
    }
    with_gemm(&mut y, n, View::rm(&x, run, k), b, acc, threads);
    for i in 0..m {
        c[i * ldc..i * ldc + n].copy_from_slice(&y[i * n..(i + 1) * n]);
    }
}

/// Rows × columns past which gemm's kernel rounds a row the same whatever
/// the number of rows (measured 256 with gemm 0.19; a margin on top).
const GEMM_SMALL: usize = 1024;

/// Below this many rows (one token per sequence when decoding), gemm's
/// packing of the whole right-hand side costs more than the product itself;
/// the two kernels below read each weight once instead.
pub const SMALL_M: usize = 16;

super::simd::multiversion! {
/// Dot product with 16 independent lanes, so it vectorises without fast-math.
pub(super) fn dot(x: &[f32], y: &[f32]) -> f32 {
    let mut acc = [0f32; 16];
    let (xc, yc) = (x.chunks_exact(16), y.chunks_exact(16));
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (xs, ys) in xc.zip(yc) {
        let xs: &[f32; 16] = xs.try_into().expect("16 lanes");
        let ys: &[f32; 16] = ys.try_into().expect("16 lanes");
        for l in 0..16 {
            acc[l] += xs[l] * ys[l];
        }
    }
    // Through `black_box`, the loop above stays one 16-wide accumulator:
    // seeing the halving tree right after it, the compiler split the
    // accumulator into eight 2-wide ones (3× slower at k = 256). The sums
    // and their order are the same either way.
    reduce16(std::hint::black_box(acc)) + xr.iter().zip(yr).map(|(a, b)| a * b).sum::<f32>()
}
}

super::simd::multiversion! {
/// The dot products of four rows `x0..x3` with one row `y`: each `y` chunk is
/// loaded once for four independent accumulators, which also hides the
/// latency of each accumulator's additions.
fn dot4(x: [&[f32]; 4], y: &[f32]) -> [f32; 4] {
    let mut acc = [[0f32; 16]; 4];
    let k = y.len() / 16 * 16;
    for c in (0..k).step_by(16) {
        let ys: &[f32; 16] = y[c..c + 16].try_into().expect("16 lanes");
        for (a, xr) in acc.iter_mut().zip(&x) {
            let xs: &[f32; 16] = xr[c..c + 16].try_into().expect("16 lanes");
            for l in 0..16 {
                a[l] += xs[l] * ys[l];
            }
        }
    }
    let mut out = [0f32; 4];
    for (o, (a, xr)) in out.iter_mut().zip(acc.into_iter().zip(&x)) {
        *o = reduce16(a) + xr[k..].iter().zip(&y[k..]).map(|(a, b)| a * b).sum::<f32>();
    }
    out
}
}

super::simd::multiversion! {
/// The sixteen dot products of four rows `x` with four rows `w`: each
/// 16-wide chunk of each row is loaded once and meets four others, sixteen
/// accumulators in registers (one load per two multiply-adds, where
/// [`dot4`] needs five per four). Each product sums in [`dot`]'s order, so
/// the results are the same bits.
fn dot4x4(x: [&[f32]; 4], w: [&[f32]; 4]) -> [[f32; 4]; 4] {
    let mut acc = [[[0f32; 16]; 4]; 4];
    let k = w[0].len() / 16 * 16;
    for c in (0..k).step_by(16) {
        let ws: [&[f32; 16]; 4] = std::array::from_fn(|j| w[j][c..c + 16].try_into().expect("16 lanes"));
        for (ai, xr) in acc.iter_mut().zip(&x) {
            let xs: &[f32; 16] = xr[c..c + 16].try_into().expect("16 lanes");
            for (a, wsj) in ai.iter_mut().zip(&ws) {
                for l in 0..16 {
                    a[l] += xs[l] * wsj[l];
                }
            }
        }
    }
    let mut out = [[0f32; 4]; 4];
    for (oi, (ai, xr)) in out.iter_mut().zip(acc.into_iter().zip(&x)) {
        for (o, (a, wr)) in oi.iter_mut().zip(ai.into_iter().zip(&w)) {
            *o = reduce16(a) + xr[k..].iter().zip(&wr[k..]).map(|(p, q)| p * q).sum::<f32>();
        }
    }
    out
}
}

super::simd::multiversion! {
/// The sixteen dot products of eight rows `x` with two rows `w` (a batch of
/// eight sequences decoding): each weight chunk is used eight times as it
/// streams in. Same order, same bits as [`dot`].
fn dot8x2(x: [&[f32]; 8], w: [&[f32]; 2]) -> [[f32; 2]; 8] {
    let mut acc = [[[0f32; 16]; 2]; 8];
    let k = w[0].len() / 16 * 16;
    for c in (0..k).step_by(16) {
        prefetch(w[0].as_ptr().wrapping_add(c + AHEAD));
        prefetch(w[1].as_ptr().wrapping_add(c + AHEAD));
        let ws: [&[f32; 16]; 2] = std::array::from_fn(|j| w[j][c..c + 16].try_into().expect("16 lanes"));
        for (ai, xr) in acc.iter_mut().zip(&x) {
            let xs: &[f32; 16] = xr[c..c + 16].try_into().expect("16 lanes");
            for (a, wsj) in ai.iter_mut().zip(&ws) {
                for l in 0..16 {
                    a[l] += xs[l] * wsj[l];
                }
            }
        }
    }
    let mut out = [[0f32; 2]; 8];
    for (oi, (ai, xr)) in out.iter_mut().zip(acc.into_iter().zip(&x)) {
        for (o, (a, wr)) in oi.iter_mut().zip(ai.into_iter().zip(&w)) {
            *o = reduce16(a) + xr[k..].iter().zip(&wr[k..]).map(|(p, q)| p * q).sum::<f32>();
        }
    }
    out
}
}

/// How far ahead (in floats) [`dot8x2`] asks for weights it will read:
/// with eight rows of work per weight chunk, the out-of-order window holds
/// too few iterations to keep enough cache misses in flight on its own.
const AHEAD: usize = 4096;

/// Ask for the cache line at `p`: a hint, it reads nothing and cannot fault.
#[inline(always)]
fn prefetch(p: *const f32) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch instruction never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Σ of 16 lanes by halving (8 + 8, 4 + 4, …): a short dependency chain
/// instead of 15 additions in a row. The order is fixed, so is the result.
#[inline(always)]
pub(super) fn reduce16(a: [f32; 16]) -> f32 {
    // New arrays at each level (not halving in place): in place, the
    // compiler goes through memory and stalls on store forwarding.
    let a8: [f32; 8] = std::array::from_fn(|l| a[l] + a[l + 8]);
    let a4: [f32; 4] = std::array::from_fn(|l| a8[l] + a8[l + 4]);
    (a4[0] + a4[2]) + (a4[1] + a4[3])
}

/// `c (+)= a·b` where `b`'s columns are contiguous rows in memory (b = Wᵀ of a
/// row-major weight W): every output is a dot product of two contiguous rows.
fn small_m_times_transposed(c: &mut [f32], ldc: usize, a: View, b: View, acc: bool, threads: bool) {
    let k = a.cols;
    let w = |j: usize| &b.data[j * b.cs..j * b.cs + k];
    let t = by_column_blocks(a, b.cols, threads, |jb, out| columns(out, a, |jj| w(jb * 64 + jj)));
    place(c, ldc, &t, a.rows, acc);
}

/// The `n` outputs of each of `a`'s rows, column by column into a transposed
/// buffer `[n, m]`, in blocks of 64 columns (`block(jb, out)` fills block
/// `jb`), split across threads when the product is big enough.
pub(super) fn by_column_blocks(a: View, n: usize, threads: bool, block: impl Fn(usize, &mut [f32]) + Sync) -> Vec<f32> {
    use rayon::prelude::*;
    let m = a.rows;
    let mut t = vec![0f32; n * m];
    if threads && n * a.cols >= 1 << 16 {
        t.par_chunks_mut(64 * m).enumerate().for_each(|(jb, out)| block(jb, out));
    } else {
        t.chunks_mut(64 * m).enumerate().for_each(|(jb, out)| block(jb, out));
    }
    t
}

/// `c (+)= tᵀ` for the transposed buffer `t [n, m]`.
pub(super) fn place(c: &mut [f32], ldc: usize, t: &[f32], m: usize, acc: bool) {
    let n = t.len() / m.max(1);
    for i in 0..m {
        let row = &mut c[i * ldc..i * ldc + n];
        for (j, slot) in row.iter_mut().enumerate() {
            *slot = if acc { *slot + t[j * m + i] } else { t[j * m + i] };
        }
    }
}

/// Fill `out` (`[cols, m]`, column-major) with the dot products of `a`'s rows
/// and the weight rows `w(0..cols)`.
fn columns<'w>(out: &mut [f32], a: View, w: impl Fn(usize) -> &'w [f32]) {
    let (m, k) = (a.rows, a.cols);
    let x = |i: usize| &a.data[i * a.rs..i * a.rs + k];
    let cols = out.len() / m;
    let mut jj = 0;
    // Two weight rows against eight input rows (each weight chunk read
    // from memory once and used eight times, in one pass), then four
    // weight rows against four input rows; rows left over (and a single
    // decoding row) one dot product at a time, which streams fastest.
    if m >= 8 {
        while jj + 2 <= cols {
            let mut i = 0;
            while i + 8 <= m {
                let xs = std::array::from_fn(|c| x(i + c));
                let r = dot8x2(xs, [w(jj), w(jj + 1)]);
                for (c, row) in r.iter().enumerate() {
                    for (q, v) in row.iter().enumerate() {
                        out[(jj + q) * m + i + c] = *v;
                    }
                }
                i += 8;
            }
            for r in i..m {
                for q in 0..2 {
                    out[(jj + q) * m + r] = dot(x(r), w(jj + q));
                }
            }
            jj += 2;
        }
    }
    while m >= 4 && jj + 4 <= cols {
        let ws = [w(jj), w(jj + 1), w(jj + 2), w(jj + 3)];
        let mut i = 0;
        while i + 4 <= m {
            let r = dot4x4([x(i), x(i + 1), x(i + 2), x(i + 3)], ws);
            for (c, row) in r.iter().enumerate() {
                for (q, v) in row.iter().enumerate() {
                    out[(jj + q) * m + i + c] = *v;
                }
            }
            i += 4;
        }
        for r in i..m {
            for (q, wr) in ws.iter().enumerate() {
                out[(jj + q) * m + r] = dot(x(r), wr);
            }
        }
        jj += 4;
    }
    for (jj, col) in out.chunks_mut(m).enumerate().skip(jj) {
        let wrow = w(jj);
        let mut i = 0;
        while i + 4 <= m {
            col[i..i + 4].copy_from_slice(&dot4([x(i), x(i + 1), x(i + 2), x(i + 3)], wrow));
            i += 4;
        }
        for (o, r) in col[i..].iter_mut().zip(i..) {
            *o = dot(x(r), wrow);
        }
    }
}

/// `c (+)= a·b` with `b` row-major: each output row accumulates scaled rows of `b`.
fn small_m_times_rows(c: &mut [f32], ldc: usize, a: View, b: View, acc: bool) {
    let (m, n, k) = (a.rows, b.cols, a.cols);
    for i in 0..m {
        let out = &mut c[i * ldc..i * ldc + n];
        if !acc {
            out.fill(0.0);
        }
        for p in 0..k {
            axpy(out, a.data[i * a.rs + p], &b.data[p * b.rs..p * b.rs + n]);
        }
    }
}

super::simd::multiversion! {
/// `out += s·row`.
fn axpy(out: &mut [f32], s: f32, row: &[f32]) {
    for (o, r) in out.iter_mut().zip(row) {
        *o += s * r;
    }
}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: View, b: View) -> Vec<f32> {
        let mut c = vec![0.0; a.rows * b.cols];
        for i in 0..a.rows {
            for j in 0..b.cols {
                for p in 0..a.cols {
                    c[i * b.cols + j] += a.data[i * a.rs + p * a.cs] * b.data[p * b.rs + j * b.cs];
                }
            }
        }
        c
    }

    /// Rows taken out of a product of `full` rows, through [`matmul_as`]
    /// (`as_full`) or plain [`matmul`]: do they keep their bits? Returns the
    /// subset sizes where some row changed.
    fn changed_rows(k: usize, n: usize, acc: bool, full: usize, as_full: bool) -> Vec<usize> {
        let val = |i: usize, f: f32| ((i as f32 * f).sin() * 1.7).fract();
        let a: Vec<f32> = (0..full * k).map(|i| val(i, 0.61)).collect();
        let w: Vec<f32> = (0..n * k).map(|i| val(i, 0.29)).collect();
        let c0: Vec<f32> = (0..full * n).map(|i| val(i, 0.83)).collect();
        let wt = View::rm(&w, n, k).t();
        let mut all = c0.clone();
        matmul(&mut all, n, View::rm(&a, full, k), wt, acc, true);
        let mut changed = Vec::new();
        for m in 1..=full {
            // Every other row from an offset, as finished rows leave.
            let rows: Vec<usize> = (0..m)
                .map(|i| (full - m + 2 * i) % full)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let sub: Vec<f32> = rows.iter().flat_map(|&i| a[i * k..(i + 1) * k].to_vec()).collect();
            let mut c: Vec<f32> = rows.iter().flat_map(|&i| c0[i * n..(i + 1) * n].to_vec()).collect();
            let sa = View::rm(&sub, rows.len(), k);
            if as_full {
                matmul_as(&mut c, n, sa, wt, acc, true, full);
            } else {
                matmul(&mut c, n, sa, wt, acc, true);
            }
            let same = rows.iter().enumerate().all(|(j, &i)| {
                c[j * n..(j + 1) * n].iter().zip(&all[i * n..(i + 1) * n]).all(|(x, y)| x.to_bits() == y.to_bits())
            });
            if !same {
                changed.push(rows.len());
            }
        }
        changed
    }

    /// Decoding with finished rows dropped relies on this: a rank-8
    /// adapter's products and a model's projections, at SmolLM2's widths.
    #[test]
    fn rows_keep_their_bits_when_others_leave_the_product() {
        for (k, n, acc) in [
            (576, 8, false),
            (1536, 8, false),
            (8, 192, true),
            (8, 576, true),
            (576, 192, false),
            (576, 576, false),
            (1536, 576, false),
            (576, 64, false),
        ] {
            assert_eq!(changed_rows(k, n, acc, 64, true), Vec::<usize>::new(), "k {k}, n {n}: through matmul_as");
            assert_eq!(
                changed_rows(k, n, acc, 12, true),
                Vec::<usize>::new(),
                "k {k}, n {n}: 12 rows (small-m kernels)"
            );
        }
        // Without it, the narrow product's rows change when few are left.
        assert!(!changed_rows(576, 8, false, 64, false).is_empty());
        assert!(!changed_rows(576, 192, false, 64, false).is_empty());
    }

    #[test]
    fn transposed_strided_and_accumulated_products() {
        let a: Vec<f32> = (0..35).map(|i| (i as f32 * 0.37).sin()).collect(); // 5×7
        let b: Vec<f32> = (0..21).map(|i| (i as f32 * 0.11).cos()).collect(); // 3×7
                                                                              // a (5×7) · bᵀ (7×3)
        let av = View::rm(&a, 5, 7);
        let bv = View::rm(&b, 3, 7).t();
        let mut c = vec![0.0; 15];
        matmul(&mut c, 3, av, bv, false, true);
        for (x, y) in c.iter().zip(naive(av, bv)) {
            assert!((x - y).abs() < 1e-5);
        }
        // Accumulate into the right half of a wider output.
        let mut wide = [1.0; 5 * 6];
        matmul(&mut wide[3..], 6, av, bv, true, false);
        let want = naive(av, bv);
        for i in 0..5 {
            for j in 0..3 {
                assert!((wide[i * 6 + 3 + j] - (1.0 + want[i * 3 + j])).abs() < 1e-5);
                assert_eq!(wide[i * 6 + j], 1.0, "left half untouched");
            }
        }
        // Few rows take the small-m kernels: same results.
        let few = View::rm(&a[..14], 2, 7);
        let mut c3 = vec![0.0; 2 * 3];
        matmul(&mut c3, 3, few, bv, false, true);
        for (x, y) in c3.iter().zip(naive(few, bv)) {
            assert!((x - y).abs() < 1e-5);
        }
        let rows = View::rm(&b, 7, 3);
        let mut c4 = vec![0.5; 2 * 3];
        matmul(&mut c4, 3, few, rows, true, false);
        for (x, y) in c4.iter().zip(naive(few, rows)) {
            assert!((x - (0.5 + y)).abs() < 1e-5);
        }
        // A column block of a wider matrix as input.
        let sub = View::strided(&a[2..], 5, 3, 7);
        let mut c2 = vec![0.0; 5 * 5];
        matmul(&mut c2, 5, sub, View::rm(&a[..15], 3, 5), false, false);
        for (x, y) in c2.iter().zip(naive(sub, View::rm(&a[..15], 3, 5))) {
            assert!((x - y).abs() < 1e-5);
        }
    }

    /// The small-batch product (4×4 and 1×4 blocks, then single rows) gives
    /// each output exactly `dot`'s bits, whatever the block it fell in.
    #[test]
    fn small_batch_products_are_dot_products_bit_for_bit() {
        for k in [7usize, 16, 37, 576] {
            for m in 1..=9usize {
                for n in [3usize, 4, 9, 70] {
                    let a: Vec<f32> = (0..m * k).map(|i| ((i * 37 % 101) as f32 - 50.0) / 17.0).collect();
                    let w: Vec<f32> = (0..n * k).map(|i| ((i * 53 % 97) as f32 - 48.0) / 13.0).collect();
                    let mut c = vec![0f32; m * n];
                    matmul(&mut c, n, View::rm(&a, m, k), View::rm(&w, n, k).t(), false, true);
                    for i in 0..m {
                        for j in 0..n {
                            let want = dot(&a[i * k..(i + 1) * k], &w[j * k..(j + 1) * k]);
                            assert_eq!(c[i * n + j].to_bits(), want.to_bits(), "m {m} n {n} k {k} at {i},{j}");
                        }
                    }
                }
            }
        }
    }
}
