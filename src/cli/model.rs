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
            eprintln!("agentlab: cannot add {}: {err:#}", source.display());
            return Ok(ExitCode::from(2));
        }
    };
    let what = match e.kind {
        Kind::Gguf => "GGUF file",
        Kind::HfDir => "Hugging Face checkpoint",
    };
    let verb = if before.iter().any(|b| b.name == e.name) { "replaced" } else { "added" };
    println!("{verb} model {} ({what}, {}): {}", e.name, human_size(e.size), e.path.display());
    match model_drills(content).first() {
        Some(d) => println!("use it: agentlab drill run {d} --model {}", e.name),
        None => println!("use it with --model {} on a drill that has a `model` parameter", e.name),
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
        println!(
            "no models registered (in {}): scripts/get-smollm2.sh downloads and adds SmolLM2-135M-Instruct; \
             agentlab model add FILE.gguf|DIR [--name NAME] adds your own",
            crate::paths::models_dir()?.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let w = entries.iter().map(|e| e.name.len()).max().unwrap_or(4).max(4);
    println!("{:<w$}  {:<6}  {:>9}  path", "name", "kind", "size");
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
        let with = if with.is_empty() { "no drill of this content yet".to_string() } else { with.join(", ") };
        return Err(format!("drill {} runs only the lab's tiny GPT; --model works with: {with}", meta.id));
    }
    if sets.iter().any(|s| s.split_once('=').is_some_and(|(k, _)| k.trim() == MODEL_PARAM)) {
        return Err(format!("--model and --set {MODEL_PARAM}=… both set the model: give one"));
    }
    sets.push(format!("{MODEL_PARAM}={spec}"));
    Ok(sets)
}
