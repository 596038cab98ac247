//! Checkpoints: weights as safetensors (`model.safetensors`) next to the
//! model config as JSON (`config.json`), in one directory.

use std::path::Path;

use anyhow::{Context, Result};
use candle_core::Device;

use super::gpt::{Gpt, GptConfig};

pub fn save(model: &Gpt, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let cfg = serde_json::to_string_pretty(&model.cfg)?;
    std::fs::write(dir.join("config.json"), cfg).with_context(|| format!("writing {}/config.json", dir.display()))?;
    model
        .varmap
        .save(dir.join("model.safetensors"))
        .with_context(|| format!("writing {}/model.safetensors", dir.display()))?;
    Ok(())
}

pub fn load(dir: &Path, device: &Device) -> Result<Gpt> {
    let text = std::fs::read_to_string(dir.join("config.json"))
        .with_context(|| format!("reading {}/config.json", dir.display()))?;
    let cfg: GptConfig =
        serde_json::from_str(&text).with_context(|| format!("parsing {}/config.json", dir.display()))?;
    let mut model = Gpt::new(cfg, 0, device)?;
    model
        .varmap
        .load(dir.join("model.safetensors"))
        .with_context(|| format!("loading {}/model.safetensors", dir.display()))?;
    // `VarMap::load` copies into the existing vars, which the modules share.
    let _ = &mut model;
    Ok(model)
}
