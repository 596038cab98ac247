//! Headless commands: everything the TUI shows, printed for scripts and pipes.

pub mod exercise;
pub mod graduate;
pub mod model;
pub mod plan;
pub mod runs;
pub mod study;

use std::collections::HashSet;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{anyhow, Result};

use crate::content::links::link_label;
use crate::content::tracks::parse_track;
use crate::content::{Content, Level, SheetStatus};
use crate::markdown::Doc;

/// `agentlab sheets`
pub fn sheets(content: &Content) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    for s in &content.sheets {
        let status = match s.meta.status {
            SheetStatus::Complete => String::new(),
            SheetStatus::Stub => format!(" {}", crate::t!("cli-sheet-stub")),
        };
        let quiz = content.quiz(s.meta.track).map_or(0, |q| q.items.len());
        let counts =
            crate::t!("cli-sheet-counts", sections = format!("{:>2}", s.section_count()), items = format!("{quiz:>2}"));
        writeln!(out, "{}  {} {counts}{status}", s.meta.track, crate::tui::widgets::pad_right(&s.meta.title, 32))?;
        writeln!(out, "   {}", s.meta.summary)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentlab sheet TRACK`: the sheet rendered as plain text, answers unfolded.
pub fn sheet(content: &Content, track: &str, width: u16) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let t = parse_track(track).ok_or_else(|| anyhow!("{}", crate::t!("cli-unknown-track", track = track)))?;
    let sheet = content.sheet(t.number).ok_or_else(|| anyhow!("{}", crate::t!("cli-no-sheet", track = t.number)))?;
    let doc = Doc::parse(&sheet.body, &|l| link_label(content, l));
    let open: HashSet<usize> = (0..doc.foldables).collect();
    write!(out, "{}", doc.layout(width.max(20), &open).to_plain_text())?;
    Ok(ExitCode::SUCCESS)
}

/// `agentlab validate`: loading already validated; report what was found.
pub fn validate(content: &Content) -> Result<ExitCode> {
    // What loading cannot check: the drills' claims against the code of this build.
    let gaps: Vec<String> = content.drills.iter().flat_map(crate::drills::claim_gaps).collect();
    if !gaps.is_empty() {
        for g in &gaps {
            eprintln!("agentlab: {}", crate::textsafe::escape_controls(g));
        }
        return Ok(ExitCode::from(2));
    }
    let mut out = std::io::stdout().lock();
    let items: usize = content.quizzes.iter().map(|q| q.items.len()).sum();
    let translations: Vec<&str> = content.translations.iter().map(|t| t.lang.code()).collect();
    writeln!(
        out,
        "content OK: {} sheets, {} quiz items (L1 {}, L2 {}, L3 {}), {} drills, {} exercises",
        content.sheets.len(),
        items,
        content.items().filter(|i| i.level == Level::L1).count(),
        content.items().filter(|i| i.level == Level::L2).count(),
        content.items().filter(|i| i.level == Level::L3).count(),
        content.drills.len(),
        content.exercises.len()
    )?;
    if translations.is_empty() {
        writeln!(out, "translations: none")?;
    } else {
        // Each translation was checked against the English while loading (see content::translation).
        writeln!(
            out,
            "translations checked against the English: {}; glossary: {} terms",
            translations.join(", "),
            content.glossary.len()
        )?;
    }
    for w in crate::markdown::too_deep(content) {
        writeln!(out, "{}", crate::t!("cli-validate-warning", warning = w))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentlab bench --profile`: a training step of S and M (or `--only`'s
/// config) timed phase by phase on the CPU, each config in a child process;
/// with `--model`, a LoRA step and a decoding run of that real model.
pub fn bench_profile(json: bool, only: Option<&str>, seconds: f64, model_spec: Option<&str>) -> Result<ExitCode> {
    use crate::bench::*;
    let budget = std::time::Duration::from_secs_f64(seconds);
    if let Some(spec) = model_spec {
        let path = crate::ml::models::resolve(spec)?;
        let profiles = bench_model_profile(&path, &model_label(spec, &path), budget)?;
        return print_profiles(json, &profiles);
    }
    let names: Vec<String> = match only {
        Some(name) => vec![name.to_string()],
        None => configs().into_iter().map(|c| c.name).collect(),
    };
    let mut profiles = Vec::new();
    for name in &names {
        let cfg = find_config(name).ok_or_else(|| anyhow!("unknown config \"{name}\" to profile (S, M, L)"))?;
        if only.is_some() {
            profiles.push(bench_profile(&cfg, budget)?);
            continue;
        }
        let out = std::process::Command::new(std::env::current_exe()?)
            .args(["bench", "--profile", "--json", "--only", name, "--seconds", &seconds.to_string()])
            .output()?;
        if !out.status.success() {
            anyhow::bail!("profiling {name} failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        let mut got: Vec<StepProfile> = serde_json::from_slice(&out.stdout)?;
        profiles.append(&mut got);
    }
    print_profiles(json, &profiles)
}

fn print_profiles(json: bool, profiles: &[crate::bench::StepProfile]) -> Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string_pretty(&profiles)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("threads: {}", candle_core::utils::get_num_threads());
    for p in profiles {
        println!("\n{}: {:.1} ms a step (mean of {} steps)", p.config, p.step_ms, p.steps);
        for r in &p.rows {
            println!("  {:>8.2} ms {:>5.1}%  {}", r.ms_per_step, 100.0 * r.ms_per_step / p.step_ms, r.phase);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentlab bench`: each part runs in a child process so that every
/// config's peak RSS is its own; `--only PART` runs one part here. With
/// `--model SPEC` the parts are the real model's ([`crate::bench::MODEL_PARTS`])
/// instead of the tiny GPT configs and the UI.
pub fn bench(
    content: &Content,
    json: bool,
    only: Option<&str>,
    seconds: f64,
    device_choice: crate::ml::device::DeviceChoice,
    model_spec: Option<&str>,
) -> Result<ExitCode> {
    use crate::bench::*;
    // A spec that names no model is an error before anything is chosen or loaded.
    let real = match model_spec {
        Some(spec) => {
            let path = crate::ml::models::resolve(spec)?;
            Some((model_label(spec, &path), path))
        }
        None => None,
    };
    let (device, note) = crate::ml::device::select_noted(device_choice)?;
    if let (Some(note), None) = (note, only) {
        eprintln!("agentlab: {note}");
    }
    let budget = std::time::Duration::from_secs_f64(seconds);
    if let (Some(part), Some((label, path))) = (only, &real) {
        let value = match part {
            "lora" => serde_json::to_value(bench_model_train(path, label, &device, budget)?)?,
            "gen-b1" => serde_json::to_value(bench_model_generate(path, label, 1, &device)?)?,
            "gen-b8" => serde_json::to_value(bench_model_generate(path, label, 8, &device)?)?,
            other => anyhow::bail!("unknown bench part \"{other}\" with --model ({})", MODEL_PARTS.join(", ")),
        };
        println!("{value}");
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(part) = only {
        let value = match part {
            "ui" => serde_json::to_value(bench_ui(content)?)?,
            p if p.starts_with("gen-") => {
                let cfg = find_config(&p[4..]).ok_or_else(|| anyhow!("unknown config {p}"))?;
                serde_json::to_value(bench_generate(&cfg, &device)?)?
            }
            name => {
                let cfg = find_config(name)
                    .ok_or_else(|| anyhow!("unknown bench part \"{name}\" (S, M, L, gen-S, gen-M, gen-L, ui)"))?;
                serde_json::to_value(bench_train(&cfg, &device, budget)?)?
            }
        };
        println!("{value}");
        return Ok(ExitCode::SUCCESS);
    }
    let exe = std::env::current_exe()?;
    let run = |part: &str| -> Result<serde_json::Value> {
        let mut cmd = std::process::Command::new(&exe);
        cmd.args(["bench", "--only", part, "--seconds", &seconds.to_string(), "--device", &device_choice.to_string()]);
        if let Some(spec) = model_spec {
            cmd.args(["--model", spec]);
        }
        let out = cmd.output()?;
        if !out.status.success() {
            anyhow::bail!("bench part {part} failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(serde_json::from_slice(&out.stdout)?)
    };
    let mut report = BenchReport {
        device: crate::ml::device::describe(&device),
        threads: candle_core::utils::get_num_threads(),
        model: real.as_ref().map(|(_, path)| path.display().to_string()),
        ..Default::default()
    };
    if let Some((label, _)) = &real {
        for part in MODEL_PARTS {
            if !json {
                eprintln!("{} {label}-{part} …", if part == "lora" { "training" } else { "generating" });
            }
            let value = run(part)?;
            if part == "lora" {
                report.train.push(serde_json::from_value(value)?);
            } else {
                report.generate.push(serde_json::from_value(value)?);
            }
        }
    } else {
        for c in configs_for(&device) {
            if !json {
                eprintln!("training {} …", c.name);
            }
            report.train.push(serde_json::from_value(run(&c.name)?)?);
        }
        for c in configs_for(&device) {
            if !json {
                eprintln!("generating {} …", c.name);
            }
            report.generate.push(serde_json::from_value(run(&format!("gen-{}", c.name))?)?);
        }
        report.ui = Some(serde_json::from_value(run("ui")?)?);
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("device: {} · {} threads", report.device, report.threads);
    if let Some(path) = &report.model {
        println!("model: {path}");
    }
    let w = report.train.iter().map(|t| t.config.chars().count()).max().unwrap_or(0).max(4);
    println!(
        "{:<w$} {:>9} {:>11} {:>10} {:>12} {:>9}",
        "cfg", "params", "tokens/step", "step ms", "train tok/s", "peak MB"
    );
    for t in &report.train {
        println!(
            "{:<w$} {:>9} {:>11} {:>10.1} {:>12.0} {:>9.0}",
            t.config, t.params, t.tokens_per_step, t.step_ms_median, t.tokens_per_s, t.peak_rss_mb
        );
    }
    for t in &report.train {
        if let (Some(n), Some(min), Some(first), Some(last)) =
            (t.trainable_params, t.step_ms_min, t.first_loss, t.last_loss)
        {
            println!(
                "{}: {n} trainable (LoRA) params · {} steps, fastest {min:.1} ms · loss {first:.3} → {last:.3}",
                t.config, t.steps
            );
        }
    }
    for t in report.train.iter().filter(|t| t.mfu.is_some()) {
        println!(
            "{}: {:.2} TFLOP/s achieved on {} · MFU {:.1}% of the {:.0} TFLOP/s dense f32 peak",
            t.config,
            t.achieved_tflops,
            t.gpu.as_deref().unwrap_or("?"),
            100.0 * t.mfu.unwrap_or(0.0),
            t.peak_tflops_f32.unwrap_or(0.0)
        );
    }
    for g in &report.generate {
        let uncached = g.uncached_tokens_per_s.map_or(String::new(), |u| format!(", {u:.0} tok/s without"));
        let peak = g.peak_rss_mb.map_or(String::new(), |p| format!(" · peak {p:.0} MB"));
        // The tiny configs are S, M, L ("gen S"); a real model's rows say gen already.
        let name = if g.config.contains("-gen-") { g.config.clone() } else { format!("gen {}", g.config) };
        println!(
            "{name}: batch {} · prompt {} · {} new tokens: {:.0} tok/s with KV cache{uncached}{peak}",
            g.batch, g.prompt, g.new_tokens, g.cached_tokens_per_s
        );
    }
    if let Some(u) = &report.ui {
        println!(
            "ui ({}, {} lines at 120×40): open {:.2} ms · redraw {:.2} ms · key+redraw {:.2} ms · resize {:.2} ms",
            u.sheet, u.lines, u.open_ms, u.redraw_ms, u.key_and_redraw_ms, u.relayout_ms
        );
        println!(
            "ui while a drill trains (drill screen, 120×40): events+key+redraw median {:.2} ms, worst {:.2} ms",
            u.busy_key_and_redraw_ms, u.busy_key_and_redraw_max_ms
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentlab drill list`
pub fn drill_list(content: &Content) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    for d in &content.drills {
        let ready = if crate::drills::find(&d.id).is_some() {
            String::new()
        } else {
            format!("  {}", crate::t!("cli-drill-not-built"))
        };
        writeln!(out, "{:<24} {}  {}{ready}", d.id, crate::t!("cli-drill-track", track = d.track), d.title)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentlab drill show ID`
pub fn drill_show(content: &Content, id: &str) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let Some(d) = content.drill(id) else {
        eprintln!("agentlab: {}", crate::t!("cli-unknown-drill", id = id));
        return Ok(ExitCode::from(2));
    };
    writeln!(out, "{} — {}\n{} · {}\n", d.id, d.title, crate::t!("cli-drill-track", track = d.track), d.objective)?;
    writeln!(out, "{}", crate::t!("cli-show-params"))?;
    let quick = d.preset_values("quick").unwrap_or_default();
    for p in &d.params {
        let range = match (p.min, p.max, &p.choices) {
            _ if p.kind == crate::content::ParamKind::Text => crate::t!("cli-show-text-max", max = p.text_max_len()),
            (_, _, Some(c)) => crate::t!("cli-show-one-of", choices = c.join(", ")),
            (Some(lo), Some(hi), _) => format!("{lo} … {hi}"),
            _ => String::new(),
        };
        let v = quick.get(&p.key).map(|v| v.to_string()).unwrap_or_default();
        writeln!(out, "  {:<16} {:<10} {} {}", p.key, v, crate::tui::widgets::pad_right(&range, 18), p.help)?;
    }
    let presets = d.presets.keys().cloned().collect::<Vec<_>>().join(", ");
    writeln!(out, "\n{}", crate::t!("cli-show-presets", presets = presets))?;
    writeln!(out, "{}", crate::t!("cli-show-claims"))?;
    let claim_width = d.claims.iter().map(|c| c.id.len()).max().unwrap_or(0).max(22);
    for c in &d.claims {
        let only = if c.presets.is_empty() {
            String::new()
        } else {
            format!(" {}", crate::t!("cli-show-claim-presets", presets = c.presets.join(", ")))
        };
        writeln!(out, "  {:<w$} {} {} {}{only}", c.id, c.text, c.op.symbol(), c.threshold, w = claim_width)?;
    }
    let plugs: Vec<_> = content.exercises.iter().filter(|x| x.plug && x.drill.as_deref() == Some(id)).collect();
    if !plugs.is_empty() {
        writeln!(out, "{}", crate::t!("cli-show-use-head"))?;
        for x in plugs {
            let yours = crate::t!("cli-show-use", function = x.function.as_str(), id = x.id.as_str());
            writeln!(out, "  --use {}=FILE   {yours}", x.id)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A drill's metadata and its parameters: the preset with `--set key=value`
/// overrides (and `--model SPEC`, which means `--set model=SPEC`), checked by
/// `drill.toml` and by the drill's code (see `runner::resolve_params`). `Err`
/// is the message for a bad argument (exit 2, nothing run, nothing saved).
fn drill_params<'a>(
    content: &'a Content,
    id: &str,
    preset: &str,
    sets: &[String],
    model: Option<&str>,
    device: crate::ml::device::DeviceChoice,
) -> std::result::Result<(&'a crate::content::DrillMeta, crate::drills::ParamMap), String> {
    let meta = content.drill(id).ok_or_else(|| crate::t!("cli-unknown-drill", id = id))?;
    let sets = model::model_sets(content, meta, model, sets)?;
    if crate::drills::find(id).is_none() {
        return Err(crate::t!("cli-drill-not-implemented", id = id));
    }
    crate::ml::device::check_compiled(device)?;
    let mut pairs = Vec::new();
    for s in &sets {
        let (k, v) = s.split_once('=').ok_or_else(|| crate::t!("cli-set-expects", got = s.as_str()))?;
        pairs.push((k.trim().to_string(), v.trim().to_string()));
    }
    let params = crate::runner::resolve_params(meta, preset, &pairs)?;
    Ok((meta, params))
}

/// `agentlab drill sweep ID …`: the same run for many seeds; per claim, how
/// often it held and the spread of its value. Saved under the data dir after
/// every seed; when the newest saved sweep of the same drill, preset,
/// parameters and seeds did not finish (killed, cancelled), this continues
/// it with the missing seeds. `resume` (`--resume`) insists: with nothing
/// to continue it is a bad argument.
/// Exit 0: every claim held on every seed; 1: not; 2: bad arguments.
#[allow(clippy::too_many_arguments)]
pub fn drill_sweep(
    content: &Content,
    id: &str,
    preset: &str,
    seeds: &str,
    sets: &[String],
    model: Option<&str>,
    device: crate::ml::device::DeviceChoice,
    jobs: usize,
    json: bool,
    resume: bool,
) -> Result<ExitCode> {
    use crate::runner::sweep;
    let parsed = drill_params(content, id, preset, sets, model, device)
        .and_then(|(m, p)| Ok((m, p, sweep::parse_seeds(seeds)?)));
    let (meta, params, seeds) = match parsed {
        Ok(v) => v,
        Err(e) => {
            eprintln!("agentlab: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let config = sweep::SweepConfig { drill: id.to_string(), preset: preset.to_string(), params, seeds, device };
    let n = config.seeds.len();
    let sweeps_root = crate::paths::sweeps_dir()?;
    let mut record = match sweep::resumable(&sweeps_root, &config) {
        Some((path, saved)) => sweep::Record::resume(path, &saved),
        None if resume => {
            let seeds = sweep::seeds_label(&config.seeds);
            eprintln!("agentlab: {}", crate::t!("cli-sweep-no-resume", id = id, preset = preset, seeds = seeds));
            return Ok(ExitCode::from(2));
        }
        None => sweep::Record::fresh(&sweeps_root),
    };
    // What is resumed goes to stderr under --json: stdout stays one JSON line per seed, then the sweep.
    let say = |line: String| if json { eprintln!("{line}") } else { println!("{line}") };
    if !json {
        let seeds = sweep::seeds_label(&config.seeds);
        println!("▶ {}", crate::t!("cli-sweep-head", id = id, preset = preset, n = n, seeds = seeds, jobs = jobs));
    }
    if let Some(path) = &record.path {
        let done: Vec<u64> = record.done.iter().map(|r| r.seed).collect();
        let pending = record.pending(&config);
        let what = match done.len() {
            0 => crate::t!("cli-sweep-no-seed"),
            1 => crate::t!("cli-sweep-one-seed", seed = done[0].to_string()),
            _ => crate::t!("cli-sweep-seeds", seeds = sweep::seeds_label(&done)),
        };
        let running = if pending.is_empty() { crate::t!("cli-sweep-none") } else { sweep::seeds_label(&pending) };
        say(format!(
            "↻ {}",
            crate::t!(
                "cli-sweep-resuming",
                path = path.display().to_string(),
                what = what,
                done = done.len(),
                n = n,
                running = running
            )
        ));
    }
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let mut done = record.done.len();
    let runs_root = crate::paths::runs_dir()?;
    // A signal cancels the sweep: the seeds finished are saved, the one under way is cancelled.
    stop::install();
    let watching = std::sync::atomic::AtomicBool::new(true);
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while watching.load(std::sync::atomic::Ordering::Relaxed) {
                if stop::received().is_some() {
                    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        });
        let result = sweep_seeds(meta, &config, &runs_root, jobs, &cancel, &mut record, json, n, &mut done);
        watching.store(false, std::sync::atomic::Ordering::Relaxed);
        result
    })?;
    let path = match record.finish(&result)? {
        Some(p) => p,
        None => sweep::save(&result, &sweeps_root)?,
    };
    if json {
        println!("{}", serde_json::to_string(&result)?);
    } else {
        println!("\n{}{}", result.table(), crate::t!("cli-saved-in", path = path.display().to_string()));
    }
    if let Some(signal) = stop::received() {
        return Ok(ExitCode::from(128 + signal as u8));
    }
    Ok(if result.all_held() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Run the sweep's seeds, printing a line (or a JSON line) as each finishes.
#[allow(clippy::too_many_arguments)]
fn sweep_seeds(
    meta: &crate::content::DrillMeta,
    config: &crate::runner::sweep::SweepConfig,
    runs_root: &std::path::Path,
    jobs: usize,
    cancel: &std::sync::atomic::AtomicBool,
    record: &mut crate::runner::sweep::Record,
    json: bool,
    n: usize,
    done: &mut usize,
) -> Result<crate::runner::sweep::Sweep> {
    crate::runner::sweep::run_sweep(meta, config, runs_root, jobs, cancel, record, |r| {
        *done += 1;
        if json {
            if let Ok(line) = serde_json::to_string(r) {
                println!("{line}");
            }
        } else {
            let values: Vec<String> = r
                .claims
                .iter()
                .map(|c| format!("{} {}{}", c.id, crate::drills::fmt_value(c.measured), if c.pass { "" } else { " ✗" }))
                .collect();
            let row = crate::t!(
                "cli-sweep-row",
                seed = format!("{:>3}", r.seed),
                secs = format!("{:>5.1}", r.wall_s),
                status = r.status.to_string(),
                values = values.join(" · ")
            );
            println!("   [{done}/{n}] {row}");
        }
    })
}

/// `agentlab drill run ID …`: progress lines (or JSON lines), then the claims.
/// `model` is `--model SPEC` (`--set model=SPEC`). `uses` are `EXERCISE=FILE`:
/// the drill trains with the learner's function.
/// `predict`: ask the preset's predictions on stdin first, and after the
/// run say what it measured for each (and record them in the progress file).
/// Exit 0: every claim holds; 1: a claim failed or the run failed; 2: bad arguments.
#[allow(clippy::too_many_arguments)]
pub fn drill_run(
    content: &Content,
    id: &str,
    preset: &str,
    seed: u64,
    sets: &[String],
    model: Option<&str>,
    uses: &[String],
    device: crate::ml::device::DeviceChoice,
    json: bool,
    predict: bool,
) -> Result<ExitCode> {
    use crate::drills::{Event, RunStatus};
    if predict && json {
        eprintln!("agentlab: {}", crate::t!("cli-predict-no-json"));
        return Ok(ExitCode::from(2));
    }
    if predict && (!sets.is_empty() || model.is_some() || !uses.is_empty()) {
        eprintln!("agentlab: {}", crate::t!("cli-predict-no-sets", preset = preset));
        return Ok(ExitCode::from(2));
    }
    let parsed = drill_params(content, id, preset, sets, model, device)
        .and_then(|(m, p)| Ok((m, p, exercise::parse_uses(content, id, uses)?)));
    let (meta, params, uses) = match parsed {
        Ok(v) => v,
        Err(e) => {
            eprintln!("agentlab: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let answers = if predict {
        let stdin = std::io::stdin();
        ask_predictions(meta, preset, &mut stdin.lock(), &mut std::io::stdout())?
    } else {
        Vec::new()
    };
    let config = crate::runner::RunConfig { uses, ..crate::runner::RunConfig::new(id, preset, seed, device, params) };
    let mut handle = crate::runner::start(meta, config, &crate::paths::runs_dir()?)?;
    let mut report = None;
    // The claim id columns (live lines, the table): as wide as before, or the longest id.
    let longest = meta.claims.iter().map(|c| c.id.len()).max().unwrap_or(0);
    let (live_width, id_width) = (longest.max(20), longest.max(22));
    let started = std::time::Instant::now();
    let mut last_print = std::time::Instant::now() - std::time::Duration::from_secs(10);
    // Metrics reported since the last progress line: a series that stopped
    // (an evaluation of an earlier phase) is not printed again and again.
    let mut fresh: std::collections::BTreeMap<String, f64> = Default::default();
    // SIGTERM, SIGINT or SIGHUP cancel the run, which then saves itself as cancelled (as in the TUI).
    stop::install();
    let events = std::iter::from_fn(|| loop {
        if stop::received().is_some() {
            handle.cancel();
        }
        match handle.rx.recv_timeout(std::time::Duration::from_millis(100)) {
            Ok(e) => return Some(e),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return None,
        }
    });
    for event in events {
        if json {
            println!("{}", serde_json::to_string(&event)?);
        } else {
            match &event {
                Event::Started { device, preset, seed, .. } => {
                    let head = crate::t!(
                        "cli-run-head",
                        id = id,
                        preset = preset.as_str(),
                        seed = seed.to_string(),
                        device = device.to_string()
                    );
                    println!("▶ {head}")
                }
                Event::Phase(p) => println!("── {p}  [{:.1} s]", started.elapsed().as_secs_f64()),
                Event::Log(l) => println!("   {l}"),
                Event::Metric { name, value, .. } => {
                    fresh.insert(name.clone(), *value);
                }
                Event::Progress { step, total, .. } => {
                    if last_print.elapsed().as_secs_f64() > 2.0 || step == total {
                        last_print = std::time::Instant::now();
                        let vals: Vec<String> = fresh.iter().take(6).map(|(k, v)| format!(" · {k} {v:.4}")).collect();
                        fresh.clear();
                        println!("   {}{}", crate::t!("cli-run-step", step = *step, total = *total), vals.concat());
                    }
                }
                Event::Claim(c) => println!(
                    "   {} {:<live_width$} {:>10} {} {:<8} {}",
                    crate::t!("cli-run-claim"),
                    c.id,
                    crate::drills::fmt_value(c.measured),
                    c.op.symbol(),
                    c.threshold,
                    if c.observation {
                        crate::t!("cli-result-observed")
                    } else if c.pass {
                        crate::t!("cli-result-pass-caps")
                    } else {
                        crate::t!("cli-result-fail")
                    }
                ),
                Event::View(_) => {}
                Event::Finished(_) => {}
            }
        }
        if let Event::Finished(r) = event {
            report = Some(r);
        }
    }
    handle.join();
    let Some(report) = report else {
        eprintln!("agentlab: {}", crate::t!("cli-run-no-report"));
        return Ok(ExitCode::from(1));
    };
    if !json {
        // A run stopped by a failed setup check has no claims to show.
        if !report.claims.is_empty() {
            use crate::tui::widgets::{pad_left, pad_right};
            println!(
                "\n{} {} {:>3} {} {}",
                pad_right(&crate::t!("cli-table-claim"), id_width),
                pad_left(&crate::t!("cli-table-measured"), 12),
                "",
                pad_right(&crate::t!("cli-table-threshold"), 10),
                crate::t!("cli-table-result")
            );
        }
        for c in &report.claims {
            println!(
                "{:<id_width$} {:>12} {:>3} {:<10} {}",
                c.id,
                crate::drills::fmt_value(c.measured),
                c.op.symbol(),
                c.threshold,
                if c.observation {
                    crate::t!("cli-result-observed")
                } else if c.pass {
                    crate::t!("cli-result-pass")
                } else {
                    crate::t!("cli-result-fail")
                }
            );
            // A failure in a run with changed settings: which, and what they were measured to do.
            if !c.pass && !c.observation {
                let config = &handle.config;
                if let Some(because) = crate::runner::predict::because(meta, &config.preset, &config.params, &c.id) {
                    println!("{:id_width$} {because}", "");
                }
            }
        }
        let dir = handle.dir.display().to_string();
        match handle.unsaved() {
            // The run's files are incomplete: never "saved"; stderr says which write failed.
            Some(why) => {
                println!("{} · {}", report.outcome(), crate::t!("cli-run-not-saved", path = dir.as_str()));
                eprintln!("agentlab: {why}");
            }
            None => println!("{} · {}", report.outcome(), crate::t!("cli-saved-in", path = dir)),
        }
        if let Some(why) = handle.unkept() {
            // "The metrics and report are saved" only where they were.
            let line = match handle.unsaved() {
                Some(_) => crate::t!("cli-run-models-not-kept-either", error = why),
                None => crate::t!("cli-run-models-not-kept", error = why),
            };
            eprintln!("agentlab: {line}");
        }
        if !answers.is_empty() && !tell_predictions(meta, preset, &answers, &report, &mut std::io::stdout())? {
            return Ok(ExitCode::from(1));
        }
    }
    if let Some(signal) = stop::received() {
        return Ok(ExitCode::from(128 + signal as u8));
    }
    Ok(match report.status {
        RunStatus::Passed => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}

/// A signal that stops a headless run or sweep (SIGTERM, SIGINT, SIGHUP):
/// the work under way is cancelled and saved as cancelled, and the command
/// exits with 128 + the signal's number, as the TUI does. A second signal
/// of the same kind ends the process at once.
mod stop {
    use std::sync::atomic::{AtomicI32, Ordering};

    static RECEIVED: AtomicI32 = AtomicI32::new(0);

    #[cfg(unix)]
    extern "C" fn on_signal(signal: libc::c_int) {
        RECEIVED.store(signal, Ordering::SeqCst);
        // SAFETY: signal() is async-signal-safe; the next one of this kind takes its default action.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
        }
    }

    /// Catch the signals (once per process; later calls do nothing more).
    pub fn install() {
        #[cfg(unix)]
        for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            // SAFETY: the handler only stores to an atomic and resets its own disposition.
            unsafe {
                libc::signal(signal, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
            }
        }
    }

    /// The signal received, if any.
    pub fn received() -> Option<i32> {
        match RECEIVED.load(Ordering::SeqCst) {
            0 => None,
            s => Some(s),
        }
    }
}

/// `drill run --predict`: ask the predictions of `preset` on `input`, one
/// after another; returns the answers (an empty line skips a question, `s`
/// skips the rest, the end of the input skips them all).
pub fn ask_predictions(
    meta: &crate::content::DrillMeta,
    preset: &str,
    input: &mut impl std::io::BufRead,
    out: &mut impl std::io::Write,
) -> Result<Vec<(crate::content::drill_meta::PredictionSpec, f64)>> {
    use crate::content::drill_meta::PredictKind;
    let specs = crate::runner::predict::for_preset(meta, preset);
    let mut answers = Vec::new();
    if specs.is_empty() {
        writeln!(out, "{}", crate::t!("cli-predict-none", id = meta.id.as_str(), preset = preset))?;
        return Ok(answers);
    }
    writeln!(out, "{}", crate::t!("cli-predict-head", n = specs.len()))?;
    'questions: for (i, spec) in specs.iter().enumerate() {
        writeln!(out, "\n{}. {}", i + 1, spec.question)?;
        if spec.kind == PredictKind::Choice {
            for (j, c) in spec.choices.iter().enumerate() {
                writeln!(out, "   {}) {c}", j + 1)?;
            }
        }
        loop {
            match spec.kind {
                PredictKind::Choice => write!(out, "{} ", crate::t!("cli-predict-choice", n = spec.choices.len()))?,
                PredictKind::Number => write!(out, "{} ", crate::t!("cli-predict-number"))?,
            }
            out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(out)?;
                break 'questions;
            }
            let t = line.trim();
            if t.is_empty() {
                break;
            }
            if t == "s" {
                break 'questions;
            }
            let answer = match spec.kind {
                PredictKind::Choice => {
                    crate::numbers::whole_number(t, "the answer", 1, spec.choices.len() as u64).map(|n| (n - 1) as f64)
                }
                PredictKind::Number => crate::progress::grade::parse_numeric(t),
            };
            match answer {
                Ok(a) => {
                    answers.push(((*spec).clone(), a));
                    break;
                }
                Err(e) => writeln!(out, "{e}")?,
            }
        }
    }
    writeln!(out)?;
    Ok(answers)
}

/// After a `--predict` run: what it measured for each answer, and the
/// lesson; the resolved ones are recorded in the progress file. A
/// cancelled run resolves nothing. `false`: a prediction could not be saved
/// (stderr said why).
fn tell_predictions(
    meta: &crate::content::DrillMeta,
    preset: &str,
    answers: &[(crate::content::drill_meta::PredictionSpec, f64)],
    report: &crate::drills::Report,
    out: &mut impl std::io::Write,
) -> Result<bool> {
    use crate::runner::predict as p;
    if report.status == crate::drills::RunStatus::Cancelled {
        writeln!(out, "{}", crate::t!("cli-predict-cancelled"))?;
        return Ok(true);
    }
    let now = chrono::Utc::now();
    let mut records = Vec::new();
    writeln!(out, "\n{}", crate::t!("cli-predict-yours"))?;
    for (spec, answer) in answers {
        writeln!(out, "\n{}", spec.question)?;
        match p::measured(spec, report) {
            Some(m) => {
                writeln!(out, "{}", p::verdict_line(spec, *answer, m))?;
                records.push(p::record(meta, preset, spec, *answer, m, now));
            }
            None => writeln!(out, "{}", crate::t!("cli-predict-not-measured", answer = p::answer_text(spec, *answer)))?,
        }
        writeln!(out, "{}", spec.explain)?;
    }
    if records.is_empty() {
        return Ok(true);
    }
    let saved = crate::progress::Store::open_default(now).and_then(|mut store| {
        if let Some(n) = &store.notice {
            eprintln!("agentlab: {n}");
        }
        for r in records {
            // Another agentlab saving at the same moment: wait for it again, as a quiz does.
            let first = store.record_prediction(r);
            store.retry_if_busy(first, crate::progress::store::SAVE_TRIES)?;
        }
        Ok(())
    });
    if let Err(e) = &saved {
        eprintln!("agentlab: {}", crate::t!("cli-predict-not-saved", error = format!("{e:#}")));
    }
    Ok(saved.is_ok())
}

/// `agentlab export RUN_DIR|SWEEP [--png|--svg|--csv] [--out FILE] [--chart NAME]`
/// (PNG by default). A run directory draws its series; a sweep (its
/// `.json` record, or the folder of a drill's sweeps: the newest) draws its
/// seed bands, `--chart` picking the charts whose title or series contain
/// NAME. `--out -` writes CSV or SVG to stdout. A run or a sweep that did
/// not finish is exported as far as it went, and stderr says so.
pub fn export(
    content: &Content,
    path: &std::path::Path,
    svg: bool,
    csv: bool,
    out: Option<&std::path::Path>,
    chart: Option<&str>,
) -> Result<ExitCode> {
    let run_dir = path;
    if !run_dir.join("metrics.jsonl").is_file() {
        let is_sweep = path.is_dir() || path.extension().is_some_and(|e| e == "json");
        if !path.exists() || !is_sweep {
            return Err(anyhow!("{}", crate::t!("cli-export-not-a-run", path = path.display().to_string())));
        }
        return export_sweep(content, path, svg, csv, out, chart);
    }
    if chart.is_some() {
        return Err(anyhow!("{}", crate::t!("cli-export-chart-run")));
    }
    let (kind, ext, to_stdout) = export_target(svg, csv, out)?;
    let record = crate::runner::load_run(run_dir);
    let (events, unread) = crate::runner::load_events_counted(run_dir)?;
    // A metrics file none of whose lines reads is not an empty run: say so, export nothing.
    if crate::runner::series(&events).is_empty() {
        let path = run_dir.join("metrics.jsonl").display().to_string();
        return Err(anyhow!("{}", crate::t!("cli-export-no-points", path = path, unread = unread)));
    }
    if let Some(note) = crate::runner::incomplete(&record, &events) {
        eprintln!("agentlab: {}", crate::t!("cli-export-incomplete", note = note));
    }
    let bytes = match kind {
        "CSV" => crate::plot::csv(run_dir)?.into_bytes(),
        "SVG" => crate::plot::render_run(run_dir, crate::plot::Format::Svg, Default::default())?,
        _ => crate::plot::render_run(run_dir, crate::plot::Format::Png, Default::default())?,
    };
    let default = match ext {
        "csv" => run_dir.join("metrics.csv"),
        e => run_dir.join(format!("charts.{e}")),
    };
    write_export(&bytes, to_stdout, out, default)
}

/// What an export writes: ("PNG", "png", false) by default; whether `--out -`
/// asks for stdout (refused for a PNG); a bad `--out` is refused before anything is drawn.
fn export_target(svg: bool, csv: bool, out: Option<&std::path::Path>) -> Result<(&'static str, &'static str, bool)> {
    let (kind, ext) = match (csv, svg) {
        (true, _) => ("CSV", "csv"),
        (false, true) => ("SVG", "svg"),
        (false, false) => ("PNG", "png"),
    };
    let to_stdout = out.is_some_and(|p| p.as_os_str() == "-");
    if to_stdout && kind == "PNG" {
        return Err(anyhow!("{}", crate::t!("cli-export-png-stdout")));
    }
    if let Some(path) = out.filter(|_| !to_stdout) {
        check_out_path(path, kind, ext)?;
    }
    Ok((kind, ext, to_stdout))
}

/// Write an export's bytes to stdout, to `--out`, or to `default`; print where.
fn write_export(
    bytes: &[u8],
    to_stdout: bool,
    out: Option<&std::path::Path>,
    default: std::path::PathBuf,
) -> Result<ExitCode> {
    if to_stdout {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(bytes)?;
        stdout.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let path = out.map(std::path::Path::to_path_buf).unwrap_or(default);
    std::fs::write(&path, bytes).map_err(|e| {
        anyhow!("{}", crate::t!("cli-export-cannot-write", path = path.display().to_string(), error = e.to_string()))
    })?;
    println!("{}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// `agentlab export SWEEP …`: the seed bands of a saved sweep (see
/// [`crate::plot::band`]): every chart of its drill, or those `--chart`
/// names; the default file sits beside the sweep's record (`<stamp>.png`).
fn export_sweep(
    content: &Content,
    path: &std::path::Path,
    svg: bool,
    csv: bool,
    out: Option<&std::path::Path>,
    chart: Option<&str>,
) -> Result<ExitCode> {
    use crate::plot::band;
    use crate::runner::sweep;
    let (kind, ext, to_stdout) = export_target(svg, csv, out)?;
    let (file, sw) =
        sweep::load(path).map_err(|e| anyhow!("{}", crate::t!("cli-export-takes", error = format!("{e:#}"))))?;
    if path.is_dir() {
        let newest =
            crate::t!("cli-export-newest", dir = path.display().to_string(), file = file.display().to_string());
        eprintln!("agentlab: {newest}");
    }
    let drill = &sw.config.drill;
    let meta = content.drill(drill).ok_or_else(|| {
        anyhow!("{}", crate::t!("cli-export-no-drill", file = file.display().to_string(), drill = drill.as_str()))
    })?;
    if let Some(p) = sw.partial() {
        eprintln!("agentlab: {}", crate::t!("cli-export-partial", what = p));
    }
    let streams = sweep::SeedStreams::load(&sw, Some(&file));
    if !streams.missing.is_empty() {
        eprintln!("agentlab: {}", crate::t!("cli-export-seeds-missing", seeds = sweep::seeds_label(&streams.missing)));
    }
    if streams.seeds.is_empty() {
        return Err(anyhow!("{}", crate::t!("cli-export-no-seed", file = file.display().to_string())));
    }
    let mut charts = band::band_charts(meta, &streams.series);
    if let Some(q) = chart {
        let titles: Vec<String> = charts.iter().map(|c| format!("\"{}\"", c.title)).collect();
        charts.retain(|c| c.matches(q));
        if charts.is_empty() {
            return Err(anyhow!("{}", crate::t!("cli-export-no-chart", chart = q, charts = titles.join(", "))));
        }
    }
    let title = format!(
        "{drill} · preset {} · seeds {}{}",
        sw.config.preset,
        sweep::seeds_label(&streams.seeds),
        sw.partial().map(|p| format!(" · partial: {p}")).unwrap_or_default()
    );
    let bytes = match kind {
        "CSV" => band::csv(&charts).into_bytes(),
        "SVG" => band::render(crate::plot::Format::Svg, &title, &charts)?,
        _ => band::render(crate::plot::Format::Png, &title, &charts)?,
    };
    write_export(&bytes, to_stdout, out, file.with_extension(ext))
}

/// Refuse an `--out` file that cannot be what was asked for: a PNG named
/// other than `.png`, a name with another export's extension, a folder that
/// does not exist, a folder given as the file.
fn check_out_path(path: &std::path::Path, kind: &str, ext: &str) -> Result<()> {
    if path.is_dir() {
        let example = path.join(format!("charts.{ext}")).display().to_string();
        return Err(anyhow!(
            "{}",
            crate::t!("cli-export-out-dir", path = path.display().to_string(), example = example)
        ));
    }
    let given = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let other = |e: &str| match e {
        "png" => "--png",
        "svg" => "--svg",
        _ => "--csv",
    };
    match given.as_deref() {
        Some(e) if e == ext => {}
        Some(e @ ("png" | "svg" | "csv")) => {
            return Err(anyhow!(
                "{}",
                crate::t!(
                    "cli-export-wrong-ext",
                    path = path.display().to_string(),
                    given = e,
                    kind = kind,
                    flag = other(e),
                    ext = ext
                )
            ))
        }
        _ if kind == "PNG" => {
            return Err(anyhow!("{}", crate::t!("cli-export-png-name", path = path.display().to_string())))
        }
        _ => {}
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(anyhow!(
                "{}",
                crate::t!(
                    "cli-export-no-parent",
                    path = path.display().to_string(),
                    dir = parent.display().to_string()
                )
            ));
        }
    }
    Ok(())
}

/// `agentlab pretrain`: train and save the lab's base model and tokenizer.
pub fn pretrain(steps: usize, seed: u64, out: &std::path::Path) -> Result<ExitCode> {
    use crate::ml::base;
    let device = candle_core::Device::Cpu;
    let started = std::time::Instant::now();
    let tok = base::train_tokenizer(seed)?;
    println!(
        "tokenizer: {} tokens ({:.1} s)",
        crate::ml::tokenizer::Tokenize::vocab_size(&tok),
        started.elapsed().as_secs_f64()
    );
    let mut ema = None;
    let model = base::pretrain(&tok, steps, seed, &device, |step, loss| {
        let e = ema.map_or(loss, |m: f64| 0.98 * m + 0.02 * loss);
        ema = Some(e);
        if step % 250 == 0 || step + 1 == steps {
            println!("step {step:>6}/{steps} · loss {e:.4} · {:.0} s", started.elapsed().as_secs_f64());
        }
    })?;
    base::save(&model, &tok, out)?;
    println!("saved {} ({} parameters) in {:.0} s", out.display(), model.num_params(), started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

/// `agentlab doctor`: never fails; exit 0 whatever it finds.
pub fn doctor(json: bool) -> Result<ExitCode> {
    let report = crate::doctor::report();
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(ExitCode::SUCCESS)
}
