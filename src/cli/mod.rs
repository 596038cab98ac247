//! Headless commands: everything the TUI shows, printed for scripts and pipes.

use std::collections::HashSet;
use std::process::ExitCode;

use anyhow::{anyhow, Result};

use crate::content::tracks::parse_track;
use crate::content::{Content, Level, SheetStatus};
use crate::markdown::Doc;
use crate::tui::app::link_label;

/// `agentlab sheets`
pub fn sheets(content: &Content) -> Result<ExitCode> {
    for s in &content.sheets {
        let status = match s.meta.status {
            SheetStatus::Complete => "",
            SheetStatus::Stub => " (being written)",
        };
        let quiz = content.quiz(s.meta.track).map_or(0, |q| q.items.len());
        println!(
            "{}  {:<32} {:>2} sections  {:>2} quiz items{status}",
            s.meta.track,
            s.meta.title,
            s.sections.len(),
            quiz
        );
        println!("   {}", s.meta.summary);
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentlab sheet TRACK`: the sheet rendered as plain text, answers unfolded.
pub fn sheet(content: &Content, track: &str, width: u16) -> Result<ExitCode> {
    let t =
        parse_track(track).ok_or_else(|| anyhow!("unknown track \"{track}\": use 0–7 or a slug such as agentic-rl"))?;
    let sheet = content.sheet(t.number).ok_or_else(|| anyhow!("track {} has no sheet", t.number))?;
    let doc = Doc::parse(&sheet.body, &|l| link_label(content, l));
    let open: HashSet<usize> = (0..doc.foldables).collect();
    print!("{}", doc.layout(width.max(20), &open).to_plain_text());
    Ok(ExitCode::SUCCESS)
}

/// `agentlab validate`: loading already validated; report what was found.
pub fn validate(content: &Content) -> Result<ExitCode> {
    let items: usize = content.quizzes.iter().map(|q| q.items.len()).sum();
    println!(
        "content OK: {} sheets, {} quiz items (L1 {}, L2 {}, L3 {}), {} drills",
        content.sheets.len(),
        items,
        content.items().filter(|i| i.level == Level::L1).count(),
        content.items().filter(|i| i.level == Level::L2).count(),
        content.items().filter(|i| i.level == Level::L3).count(),
        content.drills.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `agentlab bench`: each part runs in a child process so that every
/// config's peak RSS is its own; `--only PART` runs one part here.
pub fn bench(
    content: &Content,
    json: bool,
    only: Option<&str>,
    seconds: f64,
    device_choice: crate::ml::device::DeviceChoice,
) -> Result<ExitCode> {
    use crate::bench::*;
    let device = crate::ml::device::select(device_choice)?;
    let budget = std::time::Duration::from_secs_f64(seconds);
    if let Some(part) = only {
        let value = match part {
            "ui" => serde_json::to_value(bench_ui(content)?)?,
            p if p.starts_with("gen-") => {
                let cfg =
                    configs().into_iter().find(|c| c.name == p[4..]).ok_or_else(|| anyhow!("unknown config {p}"))?;
                serde_json::to_value(bench_generate(&cfg, &device)?)?
            }
            name => {
                let cfg = configs()
                    .into_iter()
                    .find(|c| c.name == name)
                    .ok_or_else(|| anyhow!("unknown bench part \"{name}\" (S, M, gen-S, gen-M, ui)"))?;
                serde_json::to_value(bench_train(&cfg, &device, budget)?)?
            }
        };
        println!("{value}");
        return Ok(ExitCode::SUCCESS);
    }
    let exe = std::env::current_exe()?;
    let run = |part: &str| -> Result<serde_json::Value> {
        let out = std::process::Command::new(&exe)
            .args(["bench", "--only", part, "--seconds", &seconds.to_string(), "--device", &device_choice.to_string()])
            .output()?;
        if !out.status.success() {
            anyhow::bail!("bench part {part} failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(serde_json::from_slice(&out.stdout)?)
    };
    let mut report = BenchReport {
        device: crate::ml::device::describe(&device),
        threads: candle_core::utils::get_num_threads(),
        ..Default::default()
    };
    for c in configs() {
        if !json {
            eprintln!("training {} …", c.name);
        }
        report.train.push(serde_json::from_value(run(&c.name)?)?);
    }
    for c in configs() {
        if !json {
            eprintln!("generating {} …", c.name);
        }
        report.generate.push(serde_json::from_value(run(&format!("gen-{}", c.name))?)?);
    }
    report.ui = Some(serde_json::from_value(run("ui")?)?);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("device: {} · {} threads", report.device, report.threads);
    println!(
        "{:<4} {:>9} {:>11} {:>10} {:>12} {:>9}",
        "cfg", "params", "tokens/step", "step ms", "train tok/s", "peak MB"
    );
    for t in &report.train {
        println!(
            "{:<4} {:>9} {:>11} {:>10.1} {:>12.0} {:>9.0}",
            t.config, t.params, t.tokens_per_step, t.step_ms_median, t.tokens_per_s, t.peak_rss_mb
        );
    }
    for g in &report.generate {
        println!(
            "gen {}: batch {} · prompt {} · {} new tokens: {:.0} tok/s with KV cache, {:.0} tok/s without",
            g.config, g.batch, g.prompt, g.new_tokens, g.cached_tokens_per_s, g.uncached_tokens_per_s
        );
    }
    if let Some(u) = &report.ui {
        println!(
            "ui ({}, {} lines at 120×40): open {:.2} ms · redraw {:.2} ms · key+redraw {:.2} ms · resize {:.2} ms",
            u.sheet, u.lines, u.open_ms, u.redraw_ms, u.key_and_redraw_ms, u.relayout_ms
        );
    }
    Ok(ExitCode::SUCCESS)
}
