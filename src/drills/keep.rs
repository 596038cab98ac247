//! What a run keeps of the models it trained, and reading them back.
//!
//! A drill names each model it compares as an **arm** — the model it started
//! from (`warm-start`, `base`, …) and the ones it trained (`after-rl`,
//! `sound`, `proxy`, …) — with [`RunCtx::keep`](super::RunCtx::keep) (the
//! weights as they are at that moment) or
//! [`RunCtx::keep_live`](super::RunCtx::keep_live) (the weights as they are
//! when the run ends: a cancelled run keeps what its training had reached).
//! When the run ends, the runner writes them into the run directory:
//!
//! ```text
//! runs/<drill>/<timestamp>/models/
//!   index.json                 format, agentlab version, the arms in order, the base of a real model
//!   <arm>/model.safetensors    a tiny GPT's every weight, or a real model's LoRA adapters only
//! ```
//!
//! The folder is written under a temporary name and renamed into place, so a
//! process killed while it saves leaves no `models/` (and a temporary folder
//! a later start removes), never half of one. A real model's arm keeps only
//! its adapters; `index.json` names the base (the `model` parameter, the
//! file it resolved to, and its SHA-256), and reading the arm back checks
//! that the base found now is that file.
//!
//! [`KeptRun`] reads a run's models for Try (`src/drills/try_it.rs`). The
//! rule that bounds the disk (the newest runs of each drill and the pinned
//! ones keep their weights) is the runner's (`src/runner/kept.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use candle_core::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::ml::gpt::{Gpt, GptConfig};
use crate::ml::llama::{Llama, LoraConfig};
use crate::ml::start::Model;

use super::ParamMap;

/// The folder of a run directory that holds its models.
pub const MODELS_DIR: &str = "models";
/// The file a pruned run keeps in place of its models (when and why).
pub const PRUNED_FILE: &str = "models.pruned";
/// The version of `index.json`'s layout; a newer one is refused with a message.
pub const FORMAT: u32 = 1;

/// Whether an arm is a model the drill started from or one it trained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Start,
    Trained,
}

/// What an arm's weights are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ArmKind {
    /// The lab's tiny GPT: every weight, under the config.
    TinyGpt { config: GptConfig },
    /// LoRA adapters on the real model named by [`Index::base`].
    LlamaLora { lora: LoraConfig },
}

/// One kept model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmEntry {
    /// The arm's name, also its folder (`after-rl`).
    pub id: String,
    pub role: Role,
    #[serde(flatten)]
    pub kind: ArmKind,
    /// Bytes of its `model.safetensors`.
    pub bytes: u64,
}

/// The real model a run's adapters sit on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaseRef {
    /// The `model` parameter as the run had it (`smollm2`).
    pub name: String,
    /// The file or folder it resolved to when the run saved.
    pub path: String,
    /// [`crate::ml::models::fingerprint`] of it.
    pub sha256: String,
}

/// `models/index.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Index {
    pub format: u32,
    /// The agentlab version that wrote it.
    pub agentlab: String,
    pub drill: String,
    pub arms: Vec<ArmEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<BaseRef>,
}

impl Index {
    /// Bytes of every arm's weights.
    pub fn bytes(&self) -> u64 {
        self.arms.iter().map(|a| a.bytes).sum()
    }

    pub fn arm(&self, id: &str) -> Option<&ArmEntry> {
        self.arms.iter().find(|a| a.id == id)
    }
}

/// A model a running drill asked to keep: its tensors (copies, or the live
/// ones the training updates in place) until the run ends.
pub(crate) struct Kept {
    pub id: String,
    pub role: Role,
    pub kind: ArmKind,
    pub tensors: Vec<(String, Tensor)>,
}

/// Something a drill can keep: its kind and its named tensors (sharing the
/// model's storage: [`Kept`] copies them where the weights must stay as they are now).
pub trait Keepable {
    fn keep_parts(&self) -> Result<(ArmKind, Vec<(String, Tensor)>)>;
}

impl Keepable for Gpt {
    fn keep_parts(&self) -> Result<(ArmKind, Vec<(String, Tensor)>)> {
        let tensors = self.vars().into_iter().map(|(k, v)| (k, v.as_tensor().clone())).collect();
        Ok((ArmKind::TinyGpt { config: self.cfg.clone() }, tensors))
    }
}

impl Keepable for Llama {
    fn keep_parts(&self) -> Result<(ArmKind, Vec<(String, Tensor)>)> {
        let (lora, tensors) =
            self.adapters().ok_or_else(|| anyhow!("a real model without adapters: nothing to keep"))?;
        Ok((ArmKind::LlamaLora { lora }, tensors))
    }
}

impl Keepable for Model {
    fn keep_parts(&self) -> Result<(ArmKind, Vec<(String, Tensor)>)> {
        match self {
            Model::Tiny(g) => g.keep_parts(),
            Model::Real(l) => l.keep_parts(),
        }
    }
}

impl Kept {
    /// `model`'s weights now (`copy`) or as they will be when the run ends.
    pub fn of(id: &str, role: Role, model: &dyn Keepable, copy: bool) -> Result<Kept> {
        check_id(id)?;
        let (kind, tensors) = model.keep_parts()?;
        let tensors = match copy {
            true => tensors.into_iter().map(|(k, t)| Ok((k, t.copy()?))).collect::<Result<_>>()?,
            false => tensors,
        };
        Ok(Kept { id: id.to_string(), role, kind, tensors })
    }
}

/// Arm names are folder names: lower-case letters, digits and `-`.
fn check_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 40
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !id.starts_with('-');
    if !ok {
        bail!("an arm's name must be lower-case letters, digits and '-' (got {id:?})");
    }
    Ok(())
}

/// Write `kept` into `run_dir/models/` (see the module doc), the arms in the
/// order given (a later arm of the same name replaces an earlier one). A
/// real model's arms name `params`' `model` value as their base. Returns the
/// index written, `None` when there was nothing to keep.
pub(crate) fn save(run_dir: &Path, drill: &str, params: &ParamMap, kept: &[Kept]) -> Result<Option<Index>> {
    if kept.is_empty() {
        return Ok(None);
    }
    let mut order: Vec<&Kept> = Vec::new();
    for k in kept {
        match order.iter().position(|o| o.id == k.id) {
            Some(i) => order[i] = k,
            None => order.push(k),
        }
    }
    let base = match order.iter().any(|k| matches!(k.kind, ArmKind::LlamaLora { .. })) {
        true => Some(base_ref(params)?),
        false => None,
    };
    let tmp = tempfile::Builder::new()
        .prefix(&format!("{}models-", crate::fsutil::TEMP_PREFIX))
        .tempdir_in(run_dir)
        .with_context(|| format!("creating a temporary folder in {}", run_dir.display()))?;
    let mut arms = Vec::new();
    for k in order {
        let dir = tmp.path().join(&k.id);
        std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let file = dir.join("model.safetensors");
        let cpu: HashMap<String, Tensor> =
            k.tensors.iter().map(|(n, t)| Ok((n.clone(), t.to_device(&Device::Cpu)?))).collect::<Result<_>>()?;
        candle_core::safetensors::save(&cpu, &file).with_context(|| format!("writing {}", file.display()))?;
        sync(&file);
        let bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        arms.push(ArmEntry { id: k.id.clone(), role: k.role, kind: k.kind.clone(), bytes });
    }
    let index =
        Index { format: FORMAT, agentlab: env!("CARGO_PKG_VERSION").to_string(), drill: drill.to_string(), arms, base };
    crate::fsutil::write_atomic(&tmp.path().join("index.json"), &serde_json::to_vec_pretty(&index)?)?;
    let dest = run_dir.join(MODELS_DIR);
    let tmp = tmp.keep();
    if let Err(e) = std::fs::rename(&tmp, &dest) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e).with_context(|| format!("moving the models into {}", dest.display()));
    }
    sync(run_dir);
    Ok(Some(index))
}

/// Flush a file or folder to disk (best effort).
fn sync(path: &Path) {
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.sync_all();
    }
}

/// The base a run's `model` parameter names: where it resolves now and its fingerprint.
fn base_ref(params: &ParamMap) -> Result<BaseRef> {
    let name = match params.get("model") {
        Some(crate::content::ParamValue::Text(t)) => t.clone(),
        _ => bail!("a real model's adapters to keep, but no `model` parameter names the base"),
    };
    let path = crate::ml::models::resolve(&name)?;
    let sha256 = crate::ml::models::fingerprint(&path)?;
    Ok(BaseRef { name, path: path.display().to_string(), sha256 })
}

/// Why a run's models cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// The keep rule dropped them (`models.pruned` says when).
    Pruned,
    /// The run kept none: written by an agentlab before runs kept models, or it ended before it had any.
    None,
    /// `index.json` is from a newer agentlab.
    Newer(u32),
}

/// A saved run's models, for Try: what the run was (drill, preset, seed,
/// parameters) and its `models/index.json`.
#[derive(Debug, Clone)]
pub struct KeptRun {
    pub dir: PathBuf,
    pub drill: String,
    pub preset: String,
    pub seed: u64,
    pub params: ParamMap,
    pub index: Index,
}

impl KeptRun {
    /// Read `dir/models/index.json`; `Err(Missing)` when there is nothing to read.
    pub fn open(
        dir: &Path,
        drill: &str,
        preset: &str,
        seed: u64,
        params: ParamMap,
    ) -> Result<std::result::Result<KeptRun, Missing>> {
        let path = dir.join(MODELS_DIR).join("index.json");
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Err(if dir.join(PRUNED_FILE).exists() { Missing::Pruned } else { Missing::None }));
            }
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        #[derive(Deserialize)]
        struct Head {
            format: u32,
        }
        let head: Head = serde_json::from_slice(&bytes).with_context(|| format!("reading {}", path.display()))?;
        if head.format > FORMAT {
            return Ok(Err(Missing::Newer(head.format)));
        }
        let index: Index = serde_json::from_slice(&bytes).with_context(|| format!("reading {}", path.display()))?;
        let run = KeptRun {
            dir: dir.to_path_buf(),
            drill: drill.to_string(),
            preset: preset.to_string(),
            seed,
            params,
            index,
        };
        Ok(Ok(run))
    }

    pub fn has(&self, arm: &str) -> bool {
        self.index.arm(arm).is_some()
    }

    fn tensors(&self, arm: &str, device: &Device) -> Result<(ArmEntry, HashMap<String, Tensor>)> {
        let entry = self.index.arm(arm).ok_or_else(|| anyhow!("this run kept no model named {arm}"))?.clone();
        let file = self.dir.join(MODELS_DIR).join(arm).join("model.safetensors");
        let tensors = candle_core::safetensors::load(&file, device)
            .with_context(|| format!("{} is not a readable safetensors file", file.display()))?;
        Ok((entry, tensors))
    }

    /// A tiny GPT arm, its weights as kept.
    pub fn tiny(&self, arm: &str, device: &Device) -> Result<Gpt> {
        let (entry, tensors) = self.tensors(arm, device)?;
        let ArmKind::TinyGpt { config } = entry.kind else { bail!("{arm} is not a tiny GPT") };
        let model = Gpt::new(config, 0, device)?;
        for (name, var) in model.vars() {
            let t = tensors.get(&name).ok_or_else(|| anyhow!("{arm}: tensor {name} is missing"))?;
            if t.dims() != var.dims() {
                bail!("{arm}: tensor {name} has shape {:?}, the config implies {:?}", t.dims(), var.dims());
            }
            var.set(t)?;
        }
        Ok(model)
    }

    /// A real model's arm: `base` (the run's base, see [`KeptRun::check_base`]) with the kept adapters.
    pub fn real(&self, arm: &str, base: &Llama) -> Result<Llama> {
        let (entry, tensors) = self.tensors(arm, &base.device)?;
        let ArmKind::LlamaLora { lora } = entry.kind else { bail!("{arm} is not a set of LoRA adapters") };
        base.with_adapters(&lora, &tensors).with_context(|| format!("{arm}: the adapters do not fit the base"))
    }

    /// The base of a real model's arms, resolved now, and checked to be the
    /// file the run trained on.
    pub fn check_base(&self) -> Result<PathBuf> {
        let base = self.index.base.as_ref().ok_or_else(|| anyhow!("this run kept no real model"))?;
        let path = crate::ml::models::resolve(&base.name)
            .with_context(|| format!("the run's base model {:?} is not found now", base.name))?;
        let now = crate::ml::models::fingerprint(&path)?;
        if now != base.sha256 {
            bail!(
                "the base model {:?} ({}) is not the file this run trained on (SHA-256 {}…, the run recorded {}…): \
                 its adapters would not mean the same",
                base.name,
                path.display(),
                &now[..12.min(now.len())],
                &base.sha256[..12.min(base.sha256.len())]
            );
        }
        Ok(path)
    }
}
