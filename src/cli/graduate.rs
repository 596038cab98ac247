//! `agentlab export RUN_DIR|DRILL --to hf|peft|trl|verl`: a run, or a drill
//! at a preset and seed, as the same experiment for the engines people
//! train with (`src/graduate/`). Bad requests exit 2 with the reason.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::content::Content;
use crate::graduate::{self, Engine, Refused, Source};

/// What `agentlab export --to` was asked.
pub struct ToArgs<'a> {
    pub spec: &'a Path,
    pub engine: &'a str,
    pub out: Option<&'a Path>,
    pub force: bool,
    pub preset: Option<&'a str>,
    pub seed: Option<u64>,
}

/// The experiment `spec` names: a run directory (its drill, preset, seed and
/// parameters), or a drill id at `preset` (default `quick`) and `seed` (default 1).
pub fn source(content: &Content, spec: &Path, preset: Option<&str>, seed: Option<u64>) -> Result<Source, String> {
    if spec.is_dir() {
        if preset.is_some() || seed.is_some() {
            return Err(crate::t!("export-run-fixed"));
        }
        let record = crate::runner::load_run(spec);
        let config = record.config.ok_or_else(|| crate::t!("try-no-config", dir = spec.display().to_string()))?;
        return Ok(Source {
            drill: config.drill,
            preset: config.preset,
            seed: config.seed,
            params: config.params,
            run: Some(spec.to_path_buf()),
        });
    }
    let id = spec.to_string_lossy().into_owned();
    let meta = content.drill(&id).ok_or_else(|| crate::t!("export-unknown", spec = id.as_str()))?;
    let preset = preset.unwrap_or("quick");
    let params = meta.preset_values(preset)?;
    Ok(Source { drill: id, preset: preset.to_string(), seed: seed.unwrap_or(1), params, run: None })
}

/// The folder an export goes to when `--out` is not given.
pub fn default_out(src: &Source, engine: Engine) -> PathBuf {
    PathBuf::from(format!("{}-{}-seed{}", src.drill, engine.name(), src.seed))
}

pub fn export_to(content: &Content, a: ToArgs) -> Result<ExitCode> {
    let refused = |m: String| -> Result<ExitCode> {
        eprintln!("agentlab: {m}");
        Ok(ExitCode::from(2))
    };
    let Some(engine) = Engine::parse(a.engine) else {
        let names: Vec<&str> = Engine::ALL.iter().map(|e| e.name()).collect();
        return refused(crate::t!("export-bad-engine", engine = a.engine, engines = names.join(", ")));
    };
    let src = match source(content, a.spec, a.preset, a.seed) {
        Ok(s) => s,
        Err(m) => return refused(m),
    };
    let out = a.out.map(Path::to_path_buf).unwrap_or_else(|| default_out(&src, engine));
    match graduate::export(&src, engine, &out, a.force) {
        Ok(w) => {
            for n in &w.notes {
                println!("{n}");
            }
            println!(
                "{}",
                crate::t!(
                    "export-done",
                    drill = src.drill.as_str(),
                    preset = src.preset.as_str(),
                    seed = src.seed.to_string(),
                    engine = engine.name(),
                    out = out.display().to_string(),
                    files = w.files.len().to_string()
                )
            );
            if w.files.iter().any(|f| f == "README.md") {
                println!("{}", crate::t!("export-next", readme = out.join("README.md").display().to_string()));
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => match e.downcast_ref::<Refused>() {
            Some(r) => refused(r.0.clone()),
            None => Err(e),
        },
    }
}
