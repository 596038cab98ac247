//! Choosing where tensors live: `--device auto|cpu|cuda|metal`.
//!
//! `auto` picks CUDA when the binary was built with `--features cuda` and a GPU
//! answers, Metal likewise, else the CPU. The default build links no GPU code.

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
/// anything runs, with how to get a build that has it. Whether a GPU answers
/// is only known when [`select`] opens it.
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
        _ => Ok(()),
    }
}

pub fn select(choice: DeviceChoice) -> Result<Device> {
    check_compiled(choice).map_err(anyhow::Error::msg)?;
    match choice {
        DeviceChoice::Cpu => Ok(Device::Cpu),
        DeviceChoice::Cuda => Ok(Device::new_cuda(0)?),
        DeviceChoice::Metal => Ok(Device::new_metal(0)?),
        DeviceChoice::Auto => {
            if cfg!(feature = "cuda") {
                if let Ok(d) = Device::new_cuda(0) {
                    return Ok(d);
                }
            }
            if cfg!(feature = "metal") {
                if let Ok(d) = Device::new_metal(0) {
                    return Ok(d);
                }
            }
            Ok(Device::Cpu)
        }
    }
}

/// Human name of a device, for headers and reports.
pub fn describe(device: &Device) -> String {
    match device {
        Device::Cpu => format!("cpu ({} threads)", rayon::current_num_threads()),
        Device::Cuda(_) => "cuda:0".to_string(),
        Device::Metal(_) => "metal:0".to_string(),
    }
}
