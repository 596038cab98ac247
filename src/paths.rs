//! Where learner data lives: `AGENTLAB_HOME` if set, else the platform data
//! directory (`~/.local/share/agentlab` on Linux).

use std::path::PathBuf;

use anyhow::{anyhow, Result};

pub fn data_dir() -> Result<PathBuf> {
    if let Some(home) = std::env::var_os("AGENTLAB_HOME").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    directories::ProjectDirs::from("", "", "agentlab")
        .map(|p| p.data_dir().to_path_buf())
        .ok_or_else(|| anyhow!("no home directory found: set AGENTLAB_HOME to a directory for agentlab's data"))
}

/// `<data>/runs`, where every drill run is saved.
pub fn runs_dir() -> Result<PathBuf> {
    Ok(data_dir()?.join("runs"))
}

/// `<data>/sweeps`, where every seed sweep is saved.
pub fn sweeps_dir() -> Result<PathBuf> {
    Ok(data_dir()?.join("sweeps"))
}
