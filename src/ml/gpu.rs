//! What the GPU is and how fast it could go: device queries for `agentlab
//! doctor`, and the dense peak FLOP/s that `agentlab bench` divides by to
//! report MFU (model FLOPs utilisation):
//!
//! ```text
//! MFU = achieved FLOP/s / peak dense FLOP/s of the GPU for the dtype trained in
//! ```
//!
//! Everything CUDA-specific sits behind `#[cfg(feature = "cuda")]`: the default
//! build links no GPU code and answers "not compiled in". On Linux x86_64 the
//! `cuda` build links no CUDA library either: [`load_cuda`] opens them at run
//! time (see `gpu/loader.rs`), so the binary starts without the NVIDIA driver.

use serde::{Deserialize, Serialize};

#[cfg(all(feature = "cuda", target_os = "linux", target_arch = "x86_64"))]
mod loader;

/// Whether this build opens the CUDA libraries at run time (`dlopen`) rather
/// than needing them to start: the `cuda` build on Linux x86_64.
pub const LOADS_AT_RUN_TIME: bool = cfg!(all(feature = "cuda", target_os = "linux", target_arch = "x86_64"));

/// Open the CUDA driver and libraries, once; every CUDA entry point calls this
/// before candle or cudarc touch the GPU. The error says which library is
/// missing (e.g. "no NVIDIA driver: libcuda.so.1 was not found").
#[cfg(all(feature = "cuda", target_os = "linux", target_arch = "x86_64"))]
pub fn load_cuda() -> Result<(), String> {
    loader::load()
}

/// Other platforms link the CUDA libraries (cudarc's dynamic linking): if the program runs, they are there.
#[cfg(all(feature = "cuda", not(all(target_os = "linux", target_arch = "x86_64"))))]
pub fn load_cuda() -> Result<(), String> {
    Ok(())
}

#[cfg(not(feature = "cuda"))]
pub fn load_cuda() -> Result<(), String> {
    Err(format!("{NOT_COMPILED}: {BUILD_HINT}"))
}

/// Dense (no sparsity) peak throughput of a GPU, in TFLOP/s, from the vendor's datasheet.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    pub gpu: &'static str,
    pub bf16: f64,
    pub tf32: f64,
    pub f32: f64,
}

/// Known GPUs, matched by a substring of the device name (first match wins).
pub const PEAKS: &[(&[&str], Peak)] = &[
    (&["H200"], Peak { gpu: "H200", bf16: 989.0, tf32: 494.0, f32: 67.0 }),
    (&["H100", "PCIe"], Peak { gpu: "H100 PCIe", bf16: 756.0, tf32: 378.0, f32: 51.0 }),
    (&["H100", "NVL"], Peak { gpu: "H100 NVL", bf16: 835.0, tf32: 418.0, f32: 60.0 }),
    (&["H100"], Peak { gpu: "H100 SXM", bf16: 989.0, tf32: 494.0, f32: 67.0 }),
    (&["A100"], Peak { gpu: "A100", bf16: 312.0, tf32: 156.0, f32: 19.5 }),
    (&["L40S"], Peak { gpu: "L40S", bf16: 362.0, tf32: 183.0, f32: 91.6 }),
    (&["L4"], Peak { gpu: "L4", bf16: 121.0, tf32: 60.0, f32: 30.3 }),
    (&["4090"], Peak { gpu: "RTX 4090", bf16: 165.0, tf32: 82.6, f32: 82.6 }),
    (&["A10"], Peak { gpu: "A10", bf16: 125.0, tf32: 62.5, f32: 31.2 }),
];

/// The peak of the GPU called `name` (e.g. "NVIDIA H100 80GB HBM3"), if known.
pub fn peak_for(name: &str) -> Option<Peak> {
    PEAKS.iter().find(|(keys, _)| keys.iter().all(|k| name.contains(k))).map(|(_, p)| *p)
}

/// One CUDA device as the driver describes it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GpuInfo {
    pub ordinal: usize,
    pub name: String,
    pub total_memory_mb: f64,
    pub compute_capability: String,
}

/// The CUDA devices the driver sees, or why it sees none.
#[cfg(feature = "cuda")]
pub fn cuda_devices() -> Result<Vec<GpuInfo>, String> {
    use candle_core::cuda_backend::cudarc::driver::CudaContext;
    load_cuda()?;
    let probe = std::panic::catch_unwind(|| -> Result<Vec<GpuInfo>, String> {
        let n = CudaContext::device_count().map_err(|e| format!("cuInit/cuDeviceGetCount failed: {e:?}"))?;
        let mut out = Vec::new();
        for i in 0..n.max(0) as usize {
            let ctx = CudaContext::new(i).map_err(|e| format!("creating a context on GPU {i}: {e:?}"))?;
            let cc = ctx.compute_capability().map(|(a, b)| format!("{a}.{b}")).unwrap_or_default();
            out.push(GpuInfo {
                ordinal: i,
                name: ctx.name().unwrap_or_else(|e| format!("? ({e:?})")),
                total_memory_mb: ctx.total_mem().map_or(0.0, |b| b as f64 / (1024.0 * 1024.0)),
                compute_capability: cc,
            });
        }
        Ok(out)
    });
    probe.unwrap_or_else(|_| Err("the CUDA driver query panicked".into()))
}

#[cfg(not(feature = "cuda"))]
pub fn cuda_devices() -> Result<Vec<GpuInfo>, String> {
    Err(format!("{NOT_COMPILED}: {BUILD_HINT}"))
}

pub const NOT_COMPILED: &str = "CUDA is not compiled into this build";
pub const BUILD_HINT: &str =
    "build it with scripts/build-cuda.sh (or `cargo build --release --features cuda` with a CUDA toolkit; README, section GPU)";

/// The name of the GPU behind a candle device, when it is a CUDA device.
pub fn device_name(device: &candle_core::Device) -> Option<String> {
    match device.location() {
        candle_core::DeviceLocation::Cuda { gpu_id } => {
            cuda_devices().ok()?.into_iter().find(|g| g.ordinal == gpu_id).map(|g| g.name)
        }
        _ => None,
    }
}

/// Hints for a failed CUDA start, from the driver's error text.
pub fn hint_for(error: &str) -> &'static str {
    if error.contains("libcuda.so") {
        "this machine has no NVIDIA driver (on a GPU machine, install it: nvidia-smi should list the GPU); \
         --device auto and --device cpu train on the CPU here"
    } else if ["libcublas", "libcurand", "libnvrtc"].iter().any(|l| error.contains(l)) {
        "the CUDA 13 libraries come with PyTorch (cu130) or `pip install nvidia-cublas nvidia-curand \
         nvidia-cuda-nvrtc`; put their lib folder on LD_LIBRARY_PATH (README, section GPU)"
    } else if error.contains("CUDA_ERROR_NOT_FOUND") {
        "the driver lacks a function this build calls: it is older than the CUDA toolkit this was built with \
         (scripts/build-cuda.sh pins CUDA 13.0, for driver ≥ 580)"
    } else if error.contains("NO_DEVICE") {
        "the driver loaded but sees no GPU (check nvidia-smi and CUDA_VISIBLE_DEVICES)"
    } else if error.contains("INSUFFICIENT_DRIVER") || error.contains("DRIVER_MISMATCH") {
        "the GPU driver is older than the CUDA toolkit this was built with (scripts/build-cuda.sh pins CUDA 13.0, for driver ≥ 580)"
    } else if error.contains("UNSUPPORTED_PTX") {
        "the kernels were compiled by an nvcc newer than the driver: rebuild with the toolkit the driver supports"
    } else if error.contains("NO_BINARY_FOR_GPU") || error.contains("INVALID_PTX") {
        "the kernels were compiled for another GPU: rebuild with CUDA_COMPUTE_CAP set to this GPU's (90 for H100/H200)"
    } else {
        "see README, section GPU"
    }
}

/// The CUDA libraries a `--features cuda` build uses (CUDA 13 names). On Linux
/// x86_64 they are opened at run time, the first time a GPU is asked for
/// ([`load_cuda`]); elsewhere they are linked, and the program does not start
/// without them. (The CUDA runtime, used by candle's own kernels, is linked in
/// statically by scripts/build-cuda.sh.)
pub const CUDA_LIBS: &[&str] =
    &["libcuda.so.1", "libcublas.so.13", "libcublasLt.so.13", "libcurand.so.10", "libnvrtc.so.13"];

/// Where a library was found, and whether the loader's path includes that folder.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LibLocation {
    pub name: String,
    pub found: Option<String>,
    pub on_loader_path: bool,
}

/// Look for each of [`CUDA_LIBS`] in `LD_LIBRARY_PATH`, the usual system and
/// driver folders, and Python's `site-packages/nvidia/*/lib` (where PyTorch's
/// CUDA wheels put them). Only reads directories: never fails.
pub fn find_cuda_libs() -> Vec<LibLocation> {
    let dirs = library_dirs();
    CUDA_LIBS
        .iter()
        .map(|name| {
            let hit = dirs.iter().find(|(d, _)| d.join(name).exists());
            LibLocation {
                name: name.to_string(),
                found: hit.map(|(d, _)| d.display().to_string()),
                on_loader_path: hit.is_some_and(|(_, on)| *on),
            }
        })
        .collect()
}

/// The folders searched for CUDA libraries, in order, each with whether the
/// dynamic loader searches it too: `LD_LIBRARY_PATH`, the usual system and
/// driver folders (in the loader's cache), then Python's NVIDIA wheels.
pub(crate) fn library_dirs() -> Vec<(std::path::PathBuf, bool)> {
    let ld: Vec<std::path::PathBuf> =
        std::env::var_os("LD_LIBRARY_PATH").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default();
    let system = [
        "/usr/local/nvidia/lib64",
        "/usr/local/nvidia/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib64",
        "/usr/local/cuda/lib64",
        "/usr/lib/wsl/lib",
    ];
    let mut dirs: Vec<(std::path::PathBuf, bool)> = ld.into_iter().map(|d: std::path::PathBuf| (d, true)).collect();
    dirs.extend(system.iter().map(|d| (std::path::PathBuf::from(d), true)));
    dirs.extend(python_nvidia_lib_dirs().into_iter().map(|d| (d, false)));
    dirs
}

/// `…/site-packages/nvidia/*/lib` under the usual Python prefixes.
fn python_nvidia_lib_dirs() -> Vec<std::path::PathBuf> {
    let mut roots: Vec<std::path::PathBuf> =
        ["/opt/torch/.venv/lib", "/usr/local/lib", "/usr/lib"].iter().map(std::path::PathBuf::from).collect();
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        roots.push(std::path::PathBuf::from(venv).join("lib"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(std::path::PathBuf::from(home).join(".local/lib"));
    }
    let mut out = Vec::new();
    for root in roots {
        let Ok(pythons) = std::fs::read_dir(&root) else { continue };
        for py in pythons.flatten().filter(|e| e.file_name().to_string_lossy().starts_with("python3")) {
            for site in ["site-packages", "dist-packages"] {
                let nvidia = py.path().join(site).join("nvidia");
                let Ok(pkgs) = std::fs::read_dir(&nvidia) else { continue };
                for pkg in pkgs.flatten() {
                    let lib = pkg.path().join("lib");
                    if lib.is_dir() {
                        out.push(lib);
                    }
                }
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peaks_match_by_name() {
        assert_eq!(peak_for("NVIDIA H100 80GB HBM3").unwrap().gpu, "H100 SXM");
        assert_eq!(peak_for("NVIDIA H100 PCIe").unwrap().gpu, "H100 PCIe");
        assert_eq!(peak_for("NVIDIA H200").unwrap().bf16, 989.0);
        assert_eq!(peak_for("NVIDIA A100-SXM4-80GB").unwrap().gpu, "A100");
        assert_eq!(peak_for("NVIDIA A10").unwrap().gpu, "A10");
        assert!(peak_for("Some Other GPU").is_none());
    }

    #[test]
    fn a_missing_driver_or_library_gets_its_own_hint() {
        assert!(hint_for("no NVIDIA driver: libcuda.so.1 was not found").contains("no NVIDIA driver"));
        assert!(hint_for("libcublas.so.13 (cuBLAS) was not found: …").contains("LD_LIBRARY_PATH"));
        assert!(hint_for("DriverError(CUDA_ERROR_NOT_FOUND, …)").contains("older"));
        assert!(hint_for("DriverError(CUDA_ERROR_NO_DEVICE, …)").contains("no GPU"));
    }

    #[test]
    fn the_cpu_build_loads_no_cuda() {
        if cfg!(feature = "cuda") {
            return;
        }
        assert!(load_cuda().unwrap_err().contains(NOT_COMPILED));
    }

    #[test]
    fn library_search_never_fails() {
        let libs = find_cuda_libs();
        assert_eq!(libs.len(), CUDA_LIBS.len());
    }
}
