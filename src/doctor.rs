//! `agentlab doctor`: what this build can use on this machine — compiled-in
//! features, the CPU and its SIMD level, CUDA devices (or why there are none),
//! what `--device auto` picks, where data lives and the thread settings.
//! Every probe turns its failure into a line of the report: it never panics.

use serde::Serialize;

use crate::ml::gpu::{self, GpuInfo, LibLocation};

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub version: String,
    pub features: Features,
    pub cpu: Cpu,
    pub threads: Threads,
    pub cuda: Cuda,
    pub metal: Metal,
    /// What `--device auto` resolves to (e.g. "cpu (2 threads)", "cuda:0").
    pub auto_device: String,
    pub data_dir: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Features {
    pub cuda: bool,
    pub metal: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cpu {
    pub arch: String,
    pub cores: usize,
    /// The widest vector extension the matmul kernels can use: avx512f, avx2, sse4.2, neon or none.
    pub simd: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Threads {
    /// rayon's pool (matmuls, the fused CPU model): `RAYON_NUM_THREADS` or every core.
    pub rayon: usize,
    pub rayon_num_threads_env: Option<String>,
    /// candle's own elementwise pool; agentlab sets it to 1 unless the user chose.
    pub candle_num_threads_env: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cuda {
    pub compiled: bool,
    pub devices: Vec<GpuInfo>,
    /// Why no device could be used, when none could.
    pub error: Option<String>,
    pub hint: Option<String>,
    /// A tiny elementwise op and a matmul (cuBLAS) on cuda:0, when a device answered.
    pub smoke_test: Option<String>,
    /// Whether this build opens the CUDA libraries at run time (Linux x86_64 `cuda` build)
    /// rather than needing them to start.
    pub loaded_at_run_time: bool,
    pub libraries: Vec<LibLocation>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Metal {
    pub compiled: bool,
    pub error: Option<String>,
}

pub fn simd_level() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f") {
            "avx512f"
        } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            "avx2"
        } else if is_x86_feature_detected!("sse4.2") {
            "sse4.2"
        } else {
            "none"
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        "neon"
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        "none"
    }
}

/// Gather the report (runs a few tiny GPU ops when a GPU answers).
pub fn report() -> Report {
    let compiled_cuda = cfg!(feature = "cuda");
    let compiled_metal = cfg!(feature = "metal");
    let mut cuda = Cuda {
        compiled: compiled_cuda,
        devices: Vec::new(),
        error: None,
        hint: None,
        smoke_test: None,
        loaded_at_run_time: gpu::LOADS_AT_RUN_TIME,
        libraries: gpu::find_cuda_libs(),
    };
    match gpu::cuda_devices() {
        Ok(devs) if devs.is_empty() => {
            cuda.error = Some("the CUDA driver reports no device".into());
            cuda.hint = Some(gpu::hint_for("NO_DEVICE").into());
        }
        Ok(devs) => {
            cuda.devices = devs;
            cuda.smoke_test = Some(cuda_smoke_test());
        }
        Err(e) => {
            if compiled_cuda {
                cuda.hint = Some(gpu::hint_for(&e).into());
            }
            cuda.error = Some(e);
        }
    }
    let metal = Metal {
        compiled: compiled_metal,
        error: if !compiled_metal {
            Some("Metal is not compiled into this build (`cargo build --release --features metal` on macOS)".into())
        } else {
            std::panic::catch_unwind(|| candle_core::Device::new_metal(0).err().map(|e| e.to_string()))
                .unwrap_or_else(|_| Some("the Metal device query panicked".into()))
        },
    };
    let auto_device = match std::panic::catch_unwind(|| crate::ml::device::select_noted(Default::default())) {
        Ok(Ok((d, None))) => crate::ml::device::describe(&d),
        Ok(Ok((d, Some(_)))) => format!("{} (no usable GPU: see above)", crate::ml::device::describe(&d)),
        Ok(Err(e)) => format!("none: {e}"),
        Err(_) => "none: choosing the device panicked".into(),
    };
    Report {
        version: env!("CARGO_PKG_VERSION").into(),
        features: Features { cuda: compiled_cuda, metal: compiled_metal },
        cpu: Cpu {
            arch: std::env::consts::ARCH.into(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            simd: simd_level().into(),
        },
        threads: Threads {
            rayon: rayon::current_num_threads(),
            rayon_num_threads_env: std::env::var("RAYON_NUM_THREADS").ok(),
            candle_num_threads_env: std::env::var("CANDLE_NUM_THREADS").ok(),
        },
        cuda,
        metal,
        auto_device,
        data_dir: match crate::paths::data_dir() {
            Ok(p) => p.display().to_string(),
            Err(e) => format!("none: {e}"),
        },
    }
}

/// An elementwise kernel (PTX loaded by the driver) and a cuBLAS matmul on cuda:0.
fn cuda_smoke_test() -> String {
    use candle_core::{Device, Tensor};
    if let Err(e) = gpu::load_cuda() {
        return format!("failed: {e} — {}", gpu::hint_for(&e));
    }
    let run = || -> candle_core::Result<f32> {
        let d = Device::new_cuda(0)?;
        let a = Tensor::ones((64, 64), candle_core::DType::F32, &d)?;
        let b = (a.exp()? * 0.5)?; // a kernel of candle's own
        a.matmul(&b)?.sum_all()?.to_scalar::<f32>() // cuBLAS
    };
    match std::panic::catch_unwind(run) {
        Ok(Ok(v)) if (v - 64.0 * 64.0 * 64.0 * 0.5 * std::f32::consts::E).abs() < 1.0 => {
            "ok (elementwise kernel and cuBLAS matmul)".into()
        }
        Ok(Ok(v)) => format!("wrong result {v}"),
        Ok(Err(e)) => {
            // The first line: candle appends a backtrace when RUST_BACKTRACE is set.
            let e = e.to_string().lines().next().unwrap_or_default().to_string();
            format!("failed: {e} — {}", gpu::hint_for(&e))
        }
        Err(_) => "failed: panicked".into(),
    }
}

impl Report {
    /// The report as lines for a terminal.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let yes = |b: bool| if b { "yes" } else { "no" };
        s += &format!("agentlab {}\n", self.version);
        s += &format!("features: cuda {} · metal {}\n", yes(self.features.cuda), yes(self.features.metal));
        s += &format!("cpu: {} · {} cores · SIMD {}\n", self.cpu.arch, self.cpu.cores, self.cpu.simd);
        s += &format!(
            "threads: rayon {} (RAYON_NUM_THREADS={}) · CANDLE_NUM_THREADS={}\n",
            self.threads.rayon,
            self.threads.rayon_num_threads_env.as_deref().unwrap_or("unset"),
            self.threads.candle_num_threads_env.as_deref().unwrap_or("unset"),
        );
        if !self.cuda.compiled {
            s += &format!("cuda: not compiled in — {}\n", gpu::BUILD_HINT);
        } else if self.cuda.devices.is_empty() {
            s += &format!("cuda: compiled in, no usable device: {}\n", self.cuda.error.as_deref().unwrap_or("?"));
            if let Some(h) = &self.cuda.hint {
                s += &format!("  hint: {h}\n");
            }
        } else {
            s += "cuda: compiled in\n";
            for g in &self.cuda.devices {
                s += &format!(
                    "  cuda:{} {} · {:.0} MiB · compute capability {}\n",
                    g.ordinal, g.name, g.total_memory_mb, g.compute_capability
                );
            }
            if let Some(t) = &self.cuda.smoke_test {
                s += &format!("  smoke test: {t}\n");
            }
        }
        let missing: Vec<&LibLocation> = self.cuda.libraries.iter().filter(|l| !l.on_loader_path).collect();
        if self.cuda.compiled || self.cuda.libraries.iter().any(|l| l.found.is_some()) {
            let loads = self.cuda.compiled && self.cuda.loaded_at_run_time;
            s +=
                if loads { "cuda libraries (opened at run time, not needed to start):\n" } else { "cuda libraries:\n" };
            for l in &self.cuda.libraries {
                let place = match (&l.found, l.on_loader_path) {
                    (Some(d), true) => d.to_string(),
                    (Some(d), false) if loads => format!("{d} (not on LD_LIBRARY_PATH: opened from there)"),
                    (Some(d), false) => format!("{d} (not on LD_LIBRARY_PATH)"),
                    (None, _) => "not found".into(),
                };
                s += &format!("  {:<18} {place}\n", l.name);
            }
            let dirs: Vec<&str> = missing.iter().filter_map(|l| l.found.as_deref()).collect();
            if !dirs.is_empty() && !loads {
                let mut dirs = dirs;
                dirs.dedup();
                s += &format!("  hint: export LD_LIBRARY_PATH={}:$LD_LIBRARY_PATH\n", dirs.join(":"));
            }
        }
        if let (true, Some(e)) = (self.metal.compiled, &self.metal.error) {
            s += &format!("metal: {e}\n");
        }
        s += &format!("--device auto picks: {}\n", self.auto_device);
        s += &format!("data dir: {}\n", self.data_dir);
        s
    }
}
