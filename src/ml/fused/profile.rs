//! Per-phase timers for the fused training step (`agentlab bench --profile`).
//!
//! Off by default: a phase costs one relaxed atomic load when profiling is
//! off. When on, each timed section adds its wall time to its phase's
//! counter; the bench reads and resets the counters around its steps. The
//! sections do not nest, so the phases add up to the op's own time.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// What a timed section of the fused op does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Matrix products with the weights (forward).
    FwdMatmul,
    /// Attention scores, softmax and the weighted sum (forward).
    FwdAttention,
    /// LayerNorm, GELU, biases, embeddings (forward).
    FwdRowwise,
    /// Matrix products with the weights (backward: input and weight gradients).
    BwdMatmul,
    /// Attention backward.
    BwdAttention,
    /// LayerNorm, GELU, bias and embedding gradients (backward).
    BwdRowwise,
}

pub const PHASES: [(Phase, &str); 6] = [
    (Phase::FwdMatmul, "forward: weight matmuls"),
    (Phase::FwdAttention, "forward: attention"),
    (Phase::FwdRowwise, "forward: layernorm, gelu, bias, embeddings"),
    (Phase::BwdMatmul, "backward: weight matmuls"),
    (Phase::BwdAttention, "backward: attention"),
    (Phase::BwdRowwise, "backward: layernorm, gelu, bias, embeddings"),
];

static ON: AtomicBool = AtomicBool::new(false);
static NANOS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];

/// Turn the timers on or off (the bench's `--profile`).
pub fn enable(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Run `f`, adding its wall time to `phase` when profiling is on.
#[inline]
pub fn time<R>(phase: Phase, f: impl FnOnce() -> R) -> R {
    if !ON.load(Ordering::Relaxed) {
        return f();
    }
    let start = Instant::now();
    let out = f();
    NANOS[phase as usize].fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

/// Seconds spent in each phase since the last call, in [`PHASES`] order; resets the counters.
pub fn take() -> Vec<f64> {
    NANOS.iter().map(|n| n.swap(0, Ordering::Relaxed) as f64 * 1e-9).collect()
}
