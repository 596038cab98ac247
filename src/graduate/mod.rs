//! Graduation: a run (or a drill at a preset and seed) exported as the same
//! experiment for the engines people train with.
//!
//! ```text
//! agentlab export RUN_DIR|DRILL --to hf|peft|trl|verl --out DIR [--force]
//!   hf    the model as a Hugging Face checkpoint (tiny GPT → `gpt2`, SmolLM2 → `llama`)
//!   peft  a real-model run's LoRA adapters in PEFT's layout, on the `hf` base
//!   trl   data, rewards.py, train.py (GRPOConfig mapped line by line), eval.py, README
//!   verl  data/{train,test}.parquet, reward.py (compute_score), run_grpo.sh, README
//! ```
//!
//! Which drill exports to which engine is [`SUPPORT`]; a drill without an
//! equivalent is refused with the reason and the drills that have one. The
//! export is written into a temporary folder beside `--out` and renamed into
//! place when every file is written, so a failed export leaves nothing that
//! looks complete. Every export carries `reward_cases.jsonl` where the drill
//! has a verifier: ≥ 1,000 (prompt, completion, Rust reward) rows, hacks
//! included, that `scripts/graduate-check.sh` replays through the Python
//! rewards.

pub mod dpo;
pub mod grpo;
pub mod hf;
pub mod parquet;
pub mod react;
pub mod refine;
pub mod sft;
pub mod tiny;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};

use crate::drills::ParamMap;

/// An engine an experiment is exported for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Hf,
    Peft,
    Trl,
    Verl,
}

impl Engine {
    pub const ALL: [Engine; 4] = [Engine::Hf, Engine::Peft, Engine::Trl, Engine::Verl];

    pub fn parse(s: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            Engine::Hf => "hf",
            Engine::Peft => "peft",
            Engine::Trl => "trl",
            Engine::Verl => "verl",
        }
    }
}

/// Whether a drill exports to an engine: `Ok` or the reason it does not (an
/// i18n key under `export-why-`).
pub struct Support {
    pub drill: &'static str,
    pub hf: Result<(), &'static str>,
    pub peft: Result<(), &'static str>,
    pub trl: Result<(), &'static str>,
    pub verl: Result<(), &'static str>,
}

impl Support {
    pub fn of(&self, e: Engine) -> Result<(), &'static str> {
        match e {
            Engine::Hf => self.hf,
            Engine::Peft => self.peft,
            Engine::Trl => self.trl,
            Engine::Verl => self.verl,
        }
    }
}

/// The drills that export, and to what (the README's table says the same).
/// `hf` and `peft` read the weights a run kept, so they need a run; `trl`
/// and `verl` write the experiment, so a drill at a preset and seed is enough.
pub const SUPPORT: &[Support] = &[
    Support { drill: "grpo-rlvr", hf: Ok(()), peft: Ok(()), trl: Ok(()), verl: Ok(()) },
    Support {
        drill: "sft-basics",
        hf: Ok(()),
        peft: Err("export-why-tiny-only"),
        trl: Ok(()),
        verl: Err("export-why-verl-sft"),
    },
    Support {
        drill: "dpo-pairs",
        hf: Ok(()),
        peft: Err("export-why-not-checked"),
        trl: Ok(()),
        verl: Err("export-why-verl-dpo"),
    },
    Support {
        drill: "react-tool-call-loop",
        hf: Ok(()),
        peft: Err("export-why-not-checked"),
        trl: Ok(()),
        verl: Err("export-why-verl-sft"),
    },
    Support {
        drill: "self-refine-loop",
        hf: Ok(()),
        peft: Err("export-why-not-checked"),
        trl: Ok(()),
        verl: Err("export-why-verl-star"),
    },
];

/// Whether exporting `drill` for `engine` needs a run (its kept weights), not
/// only a drill at a preset and seed: the weights themselves, or, for
/// dpo-pairs and self-refine-loop, the data, which are the run's SFT model's
/// own samples (preference pairs; the STaR round's verified answers).
pub fn needs_run(drill: &str, engine: Engine) -> bool {
    matches!(engine, Engine::Hf | Engine::Peft)
        || (matches!(drill, "dpo-pairs" | "self-refine-loop") && engine == Engine::Trl)
}

/// The reason `drill` does not export to `engine`, as a sentence (`None`: it does).
pub fn refusal(drill: &str, engine: Engine) -> Option<String> {
    let why = match SUPPORT.iter().find(|s| s.drill == drill) {
        Some(s) => s.of(engine).err()?,
        None => "export-why-not-written",
    };
    let others: Vec<&str> = SUPPORT.iter().filter(|s| s.of(engine).is_ok()).map(|s| s.drill).collect();
    Some(crate::t!(
        "export-refused",
        drill = drill,
        engine = engine.name(),
        why = crate::i18n::tr(why, None),
        others = if others.is_empty() { "—".to_string() } else { others.join(", ") }
    ))
}

/// The experiment to export: a drill's parameters at a preset and seed, and
/// the run that made it (when it was run).
pub struct Source {
    pub drill: String,
    pub preset: String,
    pub seed: u64,
    pub params: ParamMap,
    /// The run directory, when the export is of a run.
    pub run: Option<PathBuf>,
}

/// What an export wrote, and what it says about it.
#[derive(Debug, Default)]
pub struct Written {
    /// Files relative to the export folder, sorted.
    pub files: Vec<String>,
    /// Lines for the learner (which weights, what differs from the run).
    pub notes: Vec<String>,
}

/// A bad request (exit 2), as opposed to a failure while writing.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

fn refused(msg: String) -> anyhow::Error {
    anyhow!(Refused(msg))
}

/// Export `src` for `engine` into `out` (see the module doc). A refused
/// request is an error that downcasts to [`Refused`].
pub fn export(src: &Source, engine: Engine, out: &Path, force: bool) -> Result<Written> {
    if let Some(why) = refusal(&src.drill, engine) {
        return Err(refused(why));
    }
    if needs_run(&src.drill, engine) && src.run.is_none() {
        let (engine, drill) = (engine.name(), src.drill.as_str());
        return Err(refused(if matches!(engine, "hf" | "peft") {
            crate::t!("export-needs-run", engine = engine, drill = drill)
        } else if drill == "self-refine-loop" {
            crate::t!("export-needs-run-star", engine = engine, drill = drill)
        } else {
            crate::t!("export-needs-run-pairs", engine = engine, drill = drill)
        }));
    }
    let out_shown = out.display().to_string();
    if out.exists() {
        let empty = out.is_dir() && std::fs::read_dir(out).map(|mut d| d.next().is_none()).unwrap_or(false);
        if !out.is_dir() {
            return Err(refused(crate::t!("export-out-not-dir", out = out_shown)));
        }
        if !empty && !force {
            return Err(refused(crate::t!("export-out-not-empty", out = out_shown)));
        }
    }
    let parent = match out.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(p) => p.to_path_buf(),
        None => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Err(refused(crate::t!("export-no-parent", dir = parent.display().to_string())));
    }
    let name = out.file_name().ok_or_else(|| refused(crate::t!("export-out-not-dir", out = out_shown.clone())))?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.export-", name.to_string_lossy()))
        .tempdir_in(&parent)
        .with_context(|| format!("a temporary folder in {}", parent.display()))?;
    let mut notes = Vec::new();
    match (src.drill.as_str(), engine) {
        (_, Engine::Hf) => hf::export_hf(src, tmp.path(), &mut notes)?,
        (_, Engine::Peft) => hf::export_peft(src, tmp.path(), &mut notes)?,
        ("grpo-rlvr", Engine::Trl) => grpo::export_trl(src, tmp.path(), &mut notes)?,
        ("grpo-rlvr", Engine::Verl) => grpo::export_verl(src, tmp.path(), &mut notes)?,
        ("sft-basics", Engine::Trl) => sft::export_trl(src, tmp.path(), &mut notes)?,
        ("dpo-pairs", Engine::Trl) => dpo::export_trl(src, tmp.path(), &mut notes)?,
        ("react-tool-call-loop", Engine::Trl) => react::export_trl(src, tmp.path(), &mut notes)?,
        ("self-refine-loop", Engine::Trl) => refine::export_trl(src, tmp.path(), &mut notes)?,
        (d, e) => bail!("no exporter for {d} → {}", e.name()),
    }
    let mut files = Vec::new();
    list_files(tmp.path(), tmp.path(), &mut files)?;
    files.sort();
    // Only now does `out` take the finished folder's place.
    if out.exists() {
        std::fs::remove_dir_all(out).with_context(|| format!("removing {}", out.display()))?;
    }
    let done = tmp.keep();
    std::fs::rename(&done, out).map_err(|e| {
        let _ = std::fs::remove_dir_all(&done);
        anyhow!("moving the export into {}: {e}", out.display())
    })?;
    Ok(Written { files, notes })
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            list_files(root, &p, out)?;
        } else {
            out.push(p.strip_prefix(root).unwrap_or(&p).to_string_lossy().into_owned());
        }
    }
    Ok(())
}

/// Write `text` to `dir/rel`, making its folder.
pub(crate) fn write(dir: &Path, rel: &str, text: impl AsRef<[u8]>) -> Result<()> {
    let path = dir.join(rel);
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p)?;
    }
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
}

/// agentlab's masked cross-entropy of `examples` as one padded batch (the drills' SFT loss).
pub(crate) fn masked_loss(model: &crate::ml::gpt::Gpt, examples: &[&crate::ml::data::Example]) -> Result<f64> {
    let (x, y) = crate::ml::data::batch(examples, &candle_core::Device::Cpu)?;
    let logits = crate::ml::lm::CausalLm::forward(model, &x)?;
    Ok(crate::ml::loss::masked_cross_entropy(&logits, &y)?.to_scalar::<f32>()? as f64)
}

/// The template variables every export's files start with: the drill, preset and seed.
pub(crate) fn header_vars(src: &Source) -> Vec<(&'static str, String)> {
    vec![("DRILL", src.drill.clone()), ("PRESET", src.preset.clone()), ("SEED", src.seed.to_string())]
}

/// `experiment.json`: the drill, preset, seed, run and every parameter of the exported experiment.
pub(crate) fn write_experiment(src: &Source, dir: &Path) -> Result<()> {
    let experiment = serde_json::json!({
        "drill": src.drill, "preset": src.preset, "seed": src.seed,
        "run": src.run.as_ref().map(|r| r.display().to_string()),
        "agentlab": env!("CARGO_PKG_VERSION"),
        "params": src.params,
    });
    write(dir, "experiment.json", serde_json::to_string_pretty(&experiment)?)
}

/// A template with `{{KEY}}` placeholders filled from `vars`; a placeholder
/// left unfilled is a bug in the exporter.
pub(crate) fn fill(template: &str, vars: &[(&str, String)]) -> Result<String> {
    let mut s = template.to_string();
    for (k, v) in vars {
        s = s.replace(&format!("{{{{{k}}}}}"), v);
    }
    if let Some(i) = s.find("{{") {
        let end = s[i..].find("}}").map(|j| i + j + 2).unwrap_or(s.len().min(i + 40));
        bail!("template placeholder {} was not filled", &s[i..end]);
    }
    Ok(s)
}

/// A drill parameter as the Python source writes it.
pub(crate) fn py_value(params: &ParamMap, key: &str) -> Result<String> {
    let v = params.get(key).ok_or_else(|| anyhow!("parameter {key} missing"))?;
    let json = serde_json::to_value(v)?;
    Ok(match json {
        serde_json::Value::Bool(b) => if b { "True" } else { "False" }.to_string(),
        serde_json::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    })
}
