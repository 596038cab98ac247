//! Choosing where tensors live: `--device auto|cpu|cuda|metal`.
//!
//! `auto` picks CUDA when the binary was built with `--features cuda` and a GPU
//! answers, Metal likewise, else the CPU (with a one-line note saying why,
//! e.g. no NVIDIA driver). The default build links no GPU code.

use anyhow::Result;
use candle_core::Device;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceChoice {
    #[default]
    Auto,
    Cpu,
    Cuda,
    Metal,
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" | "gpu" => Ok(DeviceChoice::Cuda),
            "metal" => Ok(DeviceChoice::Metal),
            _ => Err(format!("unknown device \"{s}\": use auto, cpu, cuda or metal")),
        }
    }
}

impl std::fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            DeviceChoice::Auto => "auto",
            DeviceChoice::Cpu => "cpu",
            DeviceChoice::Cuda => "cuda",
            DeviceChoice::Metal => "metal",
        };
        f.write_str(s)
    }
}

/// candle runs large elementwise ops on a second, spinning thread pool next
/// to rayon's; on a laptop's few cores the two fight. Unless the user chose
/// otherwise, give that pool no extra threads (rayon still uses every core
/// for the matmuls and the fused model). Must run before the first candle op;
/// `main` calls it at start-up.
pub fn init_cpu_threads() {
    if std::env::var_os("CANDLE_NUM_THREADS").is_none() {
        // SAFETY (edition 2021: safe fn): called at start-up, before other threads read the environment.
        std::env::set_var("CANDLE_NUM_THREADS", "1");
    }
}

/// Whether this build can use `choice` at all: `--device cuda` on a build
/// without the `cuda` feature (or `metal` without `metal`) is refused before
/// anything runs, with how to get a build that has it; so is `--device cuda`
/// where the CUDA driver or libraries do not load (e.g. no NVIDIA driver on
/// this machine). Whether a GPU answers is only known when [`select`] opens it.
pub fn check_compiled(choice: DeviceChoice) -> std::result::Result<(), String> {
    match choice {
        DeviceChoice::Cuda if !cfg!(feature = "cuda") => Err("this agentlab was built without CUDA: rebuild with \
             scripts/build-cuda.sh or `cargo build --release --features cuda` (README, section GPU); \
             `agentlab doctor` shows what this build has, and --device cpu or auto runs here"
            .into()),
        DeviceChoice::Metal if !cfg!(feature = "metal") => Err("this agentlab was built without Metal: rebuild with \
             `cargo build --release --features metal` (README, section GPU); `agentlab doctor` shows what this \
             build has, and --device cpu or auto runs here"
            .into()),
        DeviceChoice::Cuda => crate::ml::gpu::load_cuda().map_err(|e| {
            format!(
                "--device cuda: {e} — {}; `agentlab doctor` shows what this machine has",
                crate::ml::gpu::hint_for(&e)
            )
        }),
        _ => Ok(()),
    }
}

pub fn select(choice: DeviceChoice) -> Result<Device> {
    select_noted(choice).map(|(device, _)| device)
}

/// [`select`], and for `auto` on a GPU build whose GPU cannot be used, a
/// one-line note saying why the CPU was picked (e.g. "no NVIDIA driver").
pub fn select_noted(choice: DeviceChoice) -> Result<(Device, Option<String>)> {
    check_compiled(choice).map_err(anyhow::Error::msg)?;
    match choice {
        DeviceChoice::Cpu => Ok((Device::Cpu, None)),
        DeviceChoice::Cuda => {
            let device = open_cuda().map_err(|e| {
                anyhow::anyhow!(
                    "--device cuda: {e} — {}; `agentlab doctor` shows what this machine has",
                    crate::ml::gpu::hint_for(&e)
                )
            })?;
            Ok((device, None))
        }
        DeviceChoice::Metal => Ok((Device::new_metal(0)?, None)),
        DeviceChoice::Auto => {
            let mut why_not = Vec::new();
            if cfg!(feature = "cuda") {
                match open_cuda() {
                    Ok(d) => return Ok((d, None)),
                    Err(e) => why_not.push(format!("CUDA: {e}")),
                }
            }
            if cfg!(feature = "metal") {
                match Device::new_metal(0) {
                    Ok(d) => return Ok((d, None)),
                    Err(e) => why_not.push(format!("Metal: {}", first_line(e))),
                }
            }
            let note = (!why_not.is_empty())
                .then(|| format!("--device auto: no usable GPU ({}); training on the CPU", why_not.join("; ")));
            Ok((Device::Cpu, note))
        }
    }
}

/// cuda:0, after [`crate::ml::gpu::load_cuda`] opened the libraries; an error
/// (never a panic) when the driver, a library or the GPU is missing.
fn open_cuda() -> std::result::Result<Device, String> {
    crate::ml::gpu::load_cuda()?;
    match std::panic::catch_unwind(|| Device::new_cuda(0)) {
        Ok(Ok(d)) => Ok(d),
        Ok(Err(e)) => Err(first_line(e)),
        Err(panic) => Err(format!(
            "starting CUDA panicked: {}",
            panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default()
        )),
    }
}

/// An error's first line: candle appends a backtrace when RUST_BACKTRACE is set.
fn first_line(e: impl std::fmt::Display) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

/// Human name of a device, for headers and reports.
pub fn describe(device: &Device) -> String {
    match device {
        Device::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
        Device::Cuda(_) => "cuda:0".to_string(),
        Device::Metal(_) => "metal:0".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_on_a_build_without_gpus_is_the_cpu_without_a_note() {
        if cfg!(feature = "cuda") || cfg!(feature = "metal") {
            return;
        }
        let (device, note) = select_noted(DeviceChoice::Auto).unwrap();
        assert!(device.is_cpu());
        assert_eq!(note, None);
    }

    #[test]
    fn an_error_is_cut_to_its_first_line() {
        assert_eq!(
            first_line("DriverError(CUDA_ERROR_UNKNOWN)\n   0: bt\n   at src/x.rs"),
            "DriverError(CUDA_ERROR_UNKNOWN)"
        );
    }
}
