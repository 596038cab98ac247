//! Compile a hot loop for the CPU it runs on.
//!
//! The default build targets baseline x86-64 (SSE2) so that the binary runs
//! everywhere; left alone, our row kernels would use 4-wide vectors on a CPU
//! with 16-wide ones. `multiversion!` compiles a function body three times —
//! AVX-512, AVX2+FMA, baseline — and picks the best version at run time (the
//! check is cached). The matmuls do the same inside the `gemm` crate.

use std::sync::atomic::{AtomicU8, Ordering};

/// 0 = unknown, 1 = baseline, 3 = AVX2+FMA, 4 = AVX-512F.
static LEVEL: AtomicU8 = AtomicU8::new(0);

#[inline]
pub fn level() -> u8 {
    let l = LEVEL.load(Ordering::Relaxed);
    if l != 0 {
        return l;
    }
    let detected = detect();
    LEVEL.store(detected, Ordering::Relaxed);
    detected
}

#[cfg(target_arch = "x86_64")]
fn detect() -> u8 {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        4
    } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        3
    } else {
        1
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> u8 {
    1
}

/// Define `fn name(args) -> ret { body }` compiled for several instruction sets.
macro_rules! multiversion {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn imp($($arg: $ty),*) $(-> $ret)? $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx2,fma")]
                unsafe fn v4($($arg: $ty),*) $(-> $ret)? { imp($($arg),*) }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn v3($($arg: $ty),*) $(-> $ret)? { imp($($arg),*) }
                match $crate::ml::fused::simd::level() {
                    // SAFETY: the level was detected on this CPU.
                    4 => return unsafe { v4($($arg),*) },
                    3 => return unsafe { v3($($arg),*) },
                    _ => {}
                }
            }
            imp($($arg),*)
        }
    };
}

pub(crate) use multiversion;
