//! `agentlab exercise list|show|check`, and `--use ID=FILE` for drill runs.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::content::links::link_label;
use crate::content::{Content, ExerciseMeta};
use crate::exercises::plug::UsedScript;
use crate::exercises::{self, CheckReport};
use crate::markdown::Doc;
use crate::progress::store::SAVE_TRIES;

fn find<'a>(content: &'a Content, id: &str) -> std::result::Result<&'a ExerciseMeta, String> {
    content.exercise(id).ok_or_else(|| crate::t!("exercise-cli-unknown", id = id))
}

/// The exercise `id` and the file to check: `file`, else the exercise's own
/// (written from its stub when missing). `None` for an unknown id, said on stderr.
fn target<'a>(
    content: &'a Content,
    id: &str,
    file: Option<&Path>,
) -> Result<Option<(&'a ExerciseMeta, std::path::PathBuf)>> {
    let x = match find(content, id) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("agentlab: {e}");
            return Ok(None);
        }
    };
    let path = match file {
        Some(p) => p.to_path_buf(),
        None => exercises::ensure_file(&x.id, &x.stub)?,
    };
    Ok(Some((x, path)))
}

/// `agentlab exercise list`: per track, done or pending.
pub fn list(content: &Content) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let store = super::study::open_store(chrono::Utc::now())?;
    let mut track = None;
    for x in &content.exercises {
        if track != Some(x.track) {
            track = Some(x.track);
            let title = content.track_title(x.track);
            writeln!(out, "{}", crate::t!("exercise-track-head", track = x.track, title = title))?;
        }
        let mark = match store.progress.exercises.get(&x.id) {
            Some(r) if r.passed_at.is_some() => crate::t!("cli-ex-done"),
            Some(_) => crate::t!("cli-ex-not-yet"),
            None => crate::t!("cli-ex-pending"),
        };
        let plug = match (&x.drill, x.plug) {
            (Some(d), true) => format!("  {}", crate::t!("cli-ex-trains", drill = d.as_str())),
            _ => String::new(),
        };
        writeln!(out, "  {} {:<20} {}{plug}", crate::tui::widgets::pad_right(&mark, 9), x.id, x.title)?;
    }
    let done = content.exercises.iter().filter(|x| store.progress.exercise_done(&x.id)).count();
    writeln!(out, "\n{}", crate::t!("cli-ex-list-foot", done = done, total = content.exercises.len()))?;
    Ok(ExitCode::SUCCESS)
}

/// `agentlab exercise show ID`: the task, where the learner's file is, the hints' count.
pub fn show(content: &Content, id: &str, width: u16) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let x = match find(content, id) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("agentlab: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let path = exercises::ensure_file(&x.id, &x.stub)?;
    writeln!(
        out,
        "{}\n",
        crate::t!("exercise-cli-show-head", title = x.title.as_str(), track = x.track.to_string(), id = x.id.as_str())
    )?;
    let doc = Doc::parse(&x.task, &|l| link_label(content, l));
    let open: HashSet<usize> = (0..doc.foldables).collect();
    write!(out, "{}", doc.layout(width.max(20), &open).to_plain_text())?;
    let shown = path.display().to_string();
    writeln!(out, "\n{}", crate::t!("exercise-cli-your-file", path = shown.as_str()))?;
    writeln!(out, "{}", crate::t!("exercise-cli-check-it", id = x.id.as_str()))?;
    if let (Some(d), true) = (&x.drill, x.plug) {
        writeln!(
            out,
            "{}",
            crate::t!("exercise-cli-train-with", drill = d.as_str(), id = x.id.as_str(), path = shown.as_str())
        )?;
    }
    writeln!(out, "{}", crate::t!("exercise-cli-hints", count = x.hints.len(), id = x.id.as_str()))?;
    Ok(ExitCode::SUCCESS)
}

/// `agentlab exercise hint ID [N]`: hints 1..=N (all when N is left out).
pub fn hint(content: &Content, id: &str, n: Option<usize>) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let x = match find(content, id) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("agentlab: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let n = n.unwrap_or(x.hints.len()).clamp(1, x.hints.len());
    for (i, h) in x.hints.iter().take(n).enumerate() {
        writeln!(
            out,
            "{}",
            crate::t!(
                "exercise-cli-hint",
                n = (i + 1).to_string(),
                total = x.hints.len().to_string(),
                hint = h.as_str()
            )
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentlab exercise watch ID [--file F] [--checks N]`: check the file now,
/// then again each time its contents change (polled every
/// [`WATCH_EVERY`]), until Ctrl-C or, with `--checks N`, after N checks. Exit:
/// the last check's (2 for bad input, as `check`).
pub fn watch(content: &Content, id: &str, file: Option<&Path>, checks: Option<u32>) -> Result<ExitCode> {
    let Some((_, path)) = target(content, id, file)? else { return Ok(ExitCode::from(2)) };
    let shown = path.display().to_string();
    println!("{}", crate::t!("exercise-cli-watching", path = shown.as_str()));
    // What the file held at the last check (`None`: unreadable then).
    let mut last: Option<Option<String>> = None;
    let mut done = 0u32;
    loop {
        let now = exercises::read_script(&path).ok();
        if last.as_ref() != Some(&now) {
            let code = check(content, id, Some(&path), false, false)?;
            last = Some(now);
            done += 1;
            if checks.is_some_and(|n| done >= n) {
                return Ok(code);
            }
            println!("{}", crate::t!("exercise-cli-waiting", path = shown.as_str()));
            use std::io::Write;
            std::io::stdout().flush()?;
        }
        std::thread::sleep(WATCH_EVERY);
    }
}

/// How often `exercise watch` looks at the file.
pub const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(300);

/// `agentlab exercise check ID [--file F] [--json] [--review]`: exit 0 pass,
/// 1 fail (or the check's record could not be saved: stderr says why and
/// where), 2 bad input (unknown exercise, unreadable file).
pub fn check(content: &Content, id: &str, file: Option<&Path>, json: bool, review: bool) -> Result<ExitCode> {
    let Some((x, path)) = target(content, id, file)? else { return Ok(ExitCode::from(2)) };
    let source = match exercises::read_script(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("agentlab: {e:#}");
            return Ok(ExitCode::from(2));
        }
    };
    let spec = exercises::spec(&x.id)
        .ok_or_else(|| anyhow::anyhow!(crate::t!("exercise-cli-no-checker", id = x.id.as_str())))?;
    // `--json` is for programs: its case names and messages stay English.
    let lang = crate::i18n::current();
    if json {
        crate::i18n::set(crate::i18n::Lang::En);
    }
    let report: CheckReport = exercises::check(spec, &source);
    crate::i18n::set(lang);
    let now = chrono::Utc::now();
    let mut store = super::study::open_store(now)?;
    // Another agentlab saving at the same moment holds the lock a while: wait for it again, as a quiz does.
    let first = store.record_check(&x.id, x.track, report.passed, now);
    let mut saved = store.retry_if_busy(first, SAVE_TRIES);
    let flag = review && !report.passed && !x.quiz.is_empty();
    if flag && saved.is_ok() {
        let first = store.flag_for_review(&x.quiz, now);
        saved = store.retry_if_busy(first, SAVE_TRIES);
    }
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        let shown = path.display().to_string();
        println!("{}", crate::t!("exercise-cli-checking", path = shown.as_str()));
        for l in report.lines() {
            println!("{l}");
        }
        if report.passed {
            if let (Some(d), true) = (&x.drill, x.plug) {
                println!(
                    "{}",
                    crate::t!("exercise-cli-now-train", drill = d.as_str(), id = x.id.as_str(), path = shown.as_str())
                );
            }
        } else if flag {
            println!("{}", crate::t!("exercise-cli-flagged", items = x.quiz.join(", ")));
        } else if !x.quiz.is_empty() {
            println!("{}", crate::t!("exercise-cli-stuck", id = x.id.as_str()));
        }
    }
    // A check whose record was not saved is not a success: exit 1, and say why (with the file).
    if let Err(e) = saved {
        eprintln!("agentlab: {}", crate::t!("exercise-cli-not-saved", error = format!("{e:#}")));
        return Ok(ExitCode::from(1));
    }
    Ok(if report.passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Parse `--use ID=FILE` arguments for a run of `drill`: read each file and
/// check that the exercise plugs into this drill and the script compiles.
/// A script that fails its exercise's check is allowed (that is how a
/// learner sees what a mistake does), with a warning on stderr.
pub fn parse_uses(
    content: &Content,
    drill: &str,
    uses: &[String],
) -> std::result::Result<BTreeMap<String, UsedScript>, String> {
    let mut out = BTreeMap::new();
    for u in uses {
        let (id, file) = u.split_once('=').ok_or_else(|| crate::t!("exercise-cli-use-form", arg = u.as_str()))?;
        let (id, file) = (id.trim(), file.trim());
        let x = find(content, id)?;
        let path = Path::new(file);
        let source = exercises::read_script(path).map_err(|e| format!("--use {id}: {e:#}"))?;
        out.insert(x.id.clone(), UsedScript { file: path.display().to_string(), source });
    }
    crate::exercises::plug::Plugs::new(drill, &out)?;
    for (id, used) in &out {
        if let Some(spec) = exercises::spec(id) {
            let r = exercises::check(spec, &used.source);
            if !r.passed {
                let why =
                    r.failure.map(|f| crate::t!("exercise-cli-why", case = f.case, got = f.got)).unwrap_or_default();
                eprintln!("{}", crate::t!("exercise-cli-fails-anyway", id = id.as_str(), why = why));
            }
        }
    }
    Ok(out)
}
