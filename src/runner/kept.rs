//! The models saved runs keep, and the rule that bounds their disk.
//!
//! **The keep rule.** Of each drill's runs, the [`KEEP_NEWEST`] newest keep
//! their weights, and so does every run the learner pinned (`K` on the Runs
//! tab, `agentlab runs pin RUN_DIR`); an older run drops its `models/` folder
//! and keeps everything else — `config.toml`, `metrics.jsonl`, `report.json`
//! are never deleted. A dropped folder leaves `models.pruned` behind (when,
//! and why), so Try can say what happened and how to get the weights back:
//! run the same drill, preset, parameters and seed again (on the CPU a run is
//! the same bit for bit). The rule runs after every run that kept models,
//! and by hand with `agentlab runs prune [--dry-run]`.
//!
//! Dropping is a rename of `models/` to a temporary name, then its removal:
//! a process killed halfway leaves the run with its models or without them,
//! and the temporary folder is removed at a later start.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::{list_runs, RunConfig, RunRecord};
use crate::content::DrillMeta;
use crate::drills::keep::{self, Index, KeptRun, Missing, MODELS_DIR, PRUNED_FILE};

/// How many of a drill's newest runs keep their weights.
pub const KEEP_NEWEST: usize = 5;
/// The file that pins a run (its weights are never pruned).
pub const PIN_FILE: &str = "pinned";

/// What a saved run holds of its models.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Weights {
    /// `models/` with these arms and bytes.
    Kept { arms: Vec<String>, bytes: u64 },
    /// Dropped by the keep rule.
    Pruned,
    /// None: an older agentlab, a sweep's seed, or a run that ended before it had any.
    None,
}

/// The weights a run holds now.
pub fn weights(dir: &Path) -> Weights {
    match read_index(dir) {
        Some(ix) => Weights::Kept { arms: ix.arms.iter().map(|a| a.id.clone()).collect(), bytes: ix.bytes() },
        None if dir.join(PRUNED_FILE).exists() => Weights::Pruned,
        None => Weights::None,
    }
}

fn read_index(dir: &Path) -> Option<Index> {
    let bytes = std::fs::read(dir.join(MODELS_DIR).join("index.json")).ok()?;
    serde_json::from_slice(&bytes).ok()
}

pub fn is_pinned(dir: &Path) -> bool {
    dir.join(PIN_FILE).is_file()
}

/// Pin a run (`on`) or unpin it.
pub fn pin(dir: &Path, on: bool) -> Result<()> {
    let file = dir.join(PIN_FILE);
    if on {
        crate::fsutil::write_atomic(&file, b"pinned: its weights are kept whatever the keep rule says\n")
    } else {
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("removing {}", file.display()))
            }
            _ => Ok(()),
        }
    }
}

/// One run the keep rule drops the weights of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drop {
    pub dir: PathBuf,
    pub bytes: u64,
}

/// What `runs prune` did or would do.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Pruned {
    pub dropped: Vec<Drop>,
    /// Runs that keep their weights, and their bytes.
    pub kept: usize,
    pub kept_bytes: u64,
}

/// The runs of `drill` (under `runs_root`) whose weights the rule drops.
pub fn plan_drill(runs_root: &Path, drill: &str) -> Pruned {
    let mut out = Pruned::default();
    for (i, r) in list_runs(runs_root, drill).iter().enumerate() {
        let Weights::Kept { bytes, .. } = weights(&r.dir) else { continue };
        if i < KEEP_NEWEST || is_pinned(&r.dir) {
            out.kept += 1;
            out.kept_bytes += bytes;
        } else {
            out.dropped.push(Drop { dir: r.dir.clone(), bytes });
        }
    }
    out
}

/// The rule over every drill with runs (or one), applied unless `dry_run`.
pub fn prune(runs_root: &Path, drill: Option<&str>, dry_run: bool) -> Result<Pruned> {
    let drills: Vec<String> = match drill {
        Some(d) => vec![d.to_string()],
        None => {
            let mut ds: Vec<String> = std::fs::read_dir(runs_root)
                .map(|rd| {
                    rd.flatten()
                        .filter(|e| e.path().is_dir())
                        .filter_map(|e| e.file_name().to_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            ds.sort();
            ds
        }
    };
    let mut all = Pruned::default();
    for d in drills {
        let plan = plan_drill(runs_root, &d);
        if !dry_run {
            for drop in &plan.dropped {
                drop_models(&drop.dir)?;
            }
        }
        all.dropped.extend(plan.dropped);
        all.kept += plan.kept;
        all.kept_bytes += plan.kept_bytes;
    }
    Ok(all)
}

/// Drop a run's `models/`: `models.pruned` first, then the folder renamed away and removed.
pub fn drop_models(dir: &Path) -> Result<()> {
    let note = format!(
        "pruned {}: only the {KEEP_NEWEST} newest runs of a drill and the pinned ones keep their weights\n",
        chrono::Local::now().format("%Y-%m-%d %H:%M")
    );
    crate::fsutil::write_atomic(&dir.join(PRUNED_FILE), note.as_bytes())?;
    let models = dir.join(MODELS_DIR);
    let gone = dir.join(format!("{}pruned-{}", crate::fsutil::TEMP_PREFIX, std::process::id()));
    match std::fs::rename(&models, &gone) {
        Ok(()) => std::fs::remove_dir_all(&gone).with_context(|| format!("removing {}", gone.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("moving {} away", models.display())),
    }
}

/// Temporary folders a killed save or prune left in a run directory (older
/// than [`crate::fsutil::STALE_TEMP_AGE`]), removed.
pub fn remove_stale(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let name = e.file_name();
        let stale = e.metadata().ok().and_then(|m| m.modified().ok()).and_then(|t| t.elapsed().ok());
        if name.to_string_lossy().starts_with(crate::fsutil::TEMP_PREFIX)
            && e.path().is_dir()
            && stale.is_some_and(|age| age >= crate::fsutil::STALE_TEMP_AGE)
        {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The command that makes the run again: same drill, preset, seed, edited
/// parameters and learner functions (`agentlab drill run … --seed 3 --set lr=0.001`).
pub fn rerun_command(meta: &DrillMeta, config: &RunConfig) -> String {
    let mut cmd = format!("agentlab drill run {} --preset {} --seed {}", config.drill, config.preset, config.seed);
    for (k, v) in edited(meta, config) {
        let v = v.to_string();
        let quoted = if v.contains(char::is_whitespace) || v.is_empty() { format!("'{v}'") } else { v };
        cmd.push_str(&format!(" --set {k}={quoted}"));
    }
    for (id, used) in &config.uses {
        cmd.push_str(&format!(" --use {id}={}", used.file));
    }
    cmd
}

/// The parameters of a run that differ from its preset, with their values, in declaration order.
pub fn edited<'a>(meta: &DrillMeta, config: &'a RunConfig) -> Vec<(String, &'a crate::content::ParamValue)> {
    let Ok(defaults) = meta.preset_values(&config.preset) else { return Vec::new() };
    meta.params
        .iter()
        .filter_map(|p| {
            config.params.get(&p.key).filter(|v| defaults.get(&p.key) != Some(*v)).map(|v| (p.key.clone(), v))
        })
        .collect()
}

/// A saved run's models for Try, or the learner's message why there are none
/// (pruned: how to get them back; an older run; a newer agentlab).
pub fn open(meta: &DrillMeta, record: &RunRecord) -> Result<KeptRun, String> {
    let Some(config) = &record.config else {
        return Err(crate::t!("try-no-config", dir = record.dir.display().to_string()));
    };
    let opened = keep::KeptRun::open(&record.dir, &config.drill, &config.preset, config.seed, config.params.clone())
        .map_err(|e| format!("{e:#}"))?;
    opened.map_err(|missing| match missing {
        Missing::Pruned => crate::t!("try-pruned", command = rerun_command(meta, config)),
        Missing::Newer(f) => crate::t!("try-newer", format = f.to_string()),
        Missing::None => match &record.report {
            None => crate::t!("try-kept-none-interrupted", command = rerun_command(meta, config)),
            Some(_) => crate::t!("try-kept-none", command = rerun_command(meta, config)),
        },
    })
}
