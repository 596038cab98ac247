//! `agentlab model add|list`, and `--model` of `drill run` and `drill sweep`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::content::{Content, DrillMeta, ParamKind};
use crate::ml::models::{self, human_size, Kind};
pub use crate::runner::MODEL_PARAM;

/// `agentlab model add FILE.gguf|DIR [--name NAME]`
pub fn add(content: &Content, source: &Path, name: Option<&str>) -> Result<ExitCode> {
    let before = models::list().unwrap_or_default();
    let e = match models::add(source, name) {
        Ok(e) => e,
        Err(err) => {
            let msg =
                crate::t!("cli-model-cannot-add", source = source.display().to_string(), error = format!("{err:#}"));
            eprintln!("agentlab: {msg}");
            return Ok(ExitCode::from(2));
        }
    };
    let what = match e.kind {
        Kind::Gguf => crate::t!("cli-model-gguf"),
        Kind::HfDir => crate::t!("cli-model-hf"),
    };
    let args = (e.name.as_str(), what, human_size(e.size), e.path.display().to_string());
    let line = if before.iter().any(|b| b.name == e.name) {
        crate::t!("cli-model-replaced", name = args.0, what = args.1, size = args.2, path = args.3)
    } else {
        crate::t!("cli-model-added", name = args.0, what = args.1, size = args.2, path = args.3)
    };
    println!("{line}");
    match model_drills(content).first() {
        Some(d) => println!("{}", crate::t!("cli-model-use", drill = *d, name = e.name.as_str())),
        None => println!("{}", crate::t!("cli-model-use-any", name = e.name.as_str())),
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentlab model list [--json]`
pub fn list(json: bool) -> Result<ExitCode> {
    let entries = models::list()?;
    if json {
        println!("{}", serde_json::to_string_pretty(&entries)?);
        return Ok(ExitCode::SUCCESS);
    }
    if entries.is_empty() {
        println!("{}", crate::t!("cli-model-none", dir = crate::paths::models_dir()?.display().to_string()));
        return Ok(ExitCode::SUCCESS);
    }
    let w = entries.iter().map(|e| e.name.len()).max().unwrap_or(4).max(4);
    use crate::tui::widgets::{pad_left, pad_right};
    println!(
        "{}  {}  {}  {}",
        pad_right(&crate::t!("cli-model-col-name"), w),
        pad_right(&crate::t!("cli-model-col-kind"), 6),
        pad_left(&crate::t!("cli-model-col-size"), 9),
        crate::t!("cli-model-col-path")
    );
    for e in &entries {
        println!("{:<w$}  {:<6}  {:>9}  {}", e.name, e.kind, human_size(e.size), e.path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Drills (ids, in content order) that take a `model` parameter.
pub fn model_drills(content: &Content) -> Vec<&str> {
    content
        .drills
        .iter()
        .filter(|d| d.param(MODEL_PARAM).is_some_and(|p| p.kind == ParamKind::Text))
        .map(|d| d.id.as_str())
        .collect()
}

/// `--model SPEC` as the `--set model=SPEC` it means, added to `sets`; an
/// error for a drill without a `model` parameter (it names the drills that
/// have one), or when `--set model=…` is given too.
pub fn model_sets(
    content: &Content,
    meta: &DrillMeta,
    model: Option<&str>,
    sets: &[String],
) -> std::result::Result<Vec<String>, String> {
    let mut sets = sets.to_vec();
    let Some(spec) = model else { return Ok(sets) };
    if meta.param(MODEL_PARAM).is_none_or(|p| p.kind != ParamKind::Text) {
        let with = model_drills(content);
        let with = if with.is_empty() { crate::t!("cli-model-no-drill-yet") } else { with.join(", ") };
        return Err(crate::t!("cli-model-tiny-only", id = meta.id.as_str(), with = with));
    }
    if sets.iter().any(|s| s.split_once('=').is_some_and(|(k, _)| k.trim() == MODEL_PARAM)) {
        return Err(crate::t!("cli-model-twice", param = MODEL_PARAM));
    }
    sets.push(format!("{MODEL_PARAM}={spec}"));
    Ok(sets)
}
