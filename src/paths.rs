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

/// `<data>/models`, where `agentlab model add` registers models (one folder per name).
pub fn models_dir() -> Result<PathBuf> {
    Ok(data_dir()?.join("models"))
}

/// Remove temporary files left by killed writes (see `fsutil::remove_stale_temps`)
/// where agentlab writes them: the data dir (`progress.json`), each run
/// directory `runs/<drill>/<run>` (`report.json`), `sweeps/<drill>` and
/// `exercises` (the learner's scripts, written from their stubs).
/// Best effort; returns how many were removed.
pub fn remove_stale_temps() -> usize {
    use crate::fsutil::{remove_stale_temps as clean, STALE_TEMP_AGE};
    let Ok(data) = data_dir() else { return 0 };
    let subdirs = |p: &std::path::Path| -> Vec<PathBuf> {
        std::fs::read_dir(p).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect()
    };
    let mut dirs = vec![data.clone()];
    for drill in subdirs(&data.join("runs")) {
        dirs.extend(subdirs(&drill));
    }
    dirs.extend(subdirs(&data.join("sweeps")));
    dirs.push(data.join("exercises"));
    dirs.iter().map(|d| clean(d, STALE_TEMP_AGE)).sum()
}
