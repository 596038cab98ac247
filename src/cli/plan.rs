//! `agentlab study`: a study session in the TUI, or (`--plan`) its plan and
//! each track's next step printed for a script.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{anyhow, Result};

use crate::content::tracks::parse_track;
use crate::content::{Content, TRACKS};
use crate::progress::store::Progress;
use crate::progress::study::{self, Plan};
use crate::progress::summary::drills_passed;

/// `agentlab study [--minutes N] [--track T] [--plan]`
pub fn study(content: Content, minutes: u32, track: Option<&str>, print: bool) -> Result<ExitCode> {
    let track = match track {
        Some(t) => Some(parse_track(t).ok_or_else(|| anyhow!("{}", crate::t!("cli-plan-no-track", track = t)))?.number),
        None => None,
    };
    if !print {
        // The content as loaded: the app localises it, and F2 switches.
        let mut app = crate::tui::App::new(content).in_lang(crate::i18n::current());
        app.open_study(track, minutes);
        return crate::tui::run(app);
    }
    let now = chrono::Utc::now();
    let store = super::study::open_store(now)?;
    let passed = drills_passed(&content, &crate::paths::runs_dir()?);
    let plan = study::plan(&content, &store.progress, &passed, track, minutes, now);
    write_plan(&content, &store.progress, &passed, &plan, &mut std::io::stdout())?;
    Ok(ExitCode::SUCCESS)
}

/// The plan, then every track's path in one line each.
pub fn write_plan(
    content: &Content,
    progress: &Progress,
    passed: &std::collections::BTreeMap<String, bool>,
    plan: &Plan,
    out: &mut dyn Write,
) -> Result<()> {
    let on = plan.track.map_or(crate::t!("cli-plan-on-all"), |t| crate::t!("cli-plan-on-track", track = t));
    let head = crate::t!("cli-plan-head", minutes = plan.minutes, on = on, planned = plan.planned_minutes());
    writeln!(out, "{head}")?;
    if let (Some(t), false) = (plan.track, plan.untouched_before.is_empty()) {
        let list: Vec<String> = plan.untouched_before.iter().map(u8::to_string).collect();
        writeln!(out, "  {}", crate::t!("study-untouched-before", track = t.to_string(), tracks = list.join(", ")))?;
    }
    if plan.is_empty() {
        writeln!(out, "  {}", crate::t!("cli-plan-nothing"))?;
    }
    let mut k = 1;
    if !plan.review.is_empty() {
        let minutes = format!("{:>3}", plan.review_minutes());
        writeln!(out, "  {k}. {}", crate::t!("cli-plan-review", minutes = minutes, count = plan.review.len()))?;
        k += 1;
    }
    if plan.review_left_out > 0 {
        let share = format!("{:.0}", study::REVIEW_SHARE * 100.0);
        let line = crate::t!("cli-plan-left-out", count = plan.review_left_out, share = share);
        writeln!(out, "     {line}")?;
    }
    for s in &plan.steps {
        let minutes = format!("{:>3}", s.minutes());
        let line = crate::t!("cli-plan-step", minutes = minutes, label = s.label.as_str(), track = s.track);
        writeln!(out, "  {k}. {line}")?;
        k += 1;
    }
    writeln!(out)?;
    writeln!(out, "{}", crate::t!("cli-plan-paths"))?;
    for t in TRACKS.iter() {
        let title = crate::tui::widgets::pad_right(&content.track_title(t.number), 32);
        let steps = study::path(content, progress, passed, t.number);
        if steps.is_empty() {
            writeln!(out, "  {} {title} {}", t.number, crate::t!("cli-plan-no-path"))?;
            continue;
        }
        let (done, total, left) = study::path_progress(&steps);
        let next = steps.iter().find(|s| !s.done).map_or(crate::t!("cli-plan-done"), |s| {
            crate::t!("cli-plan-next", label = s.label.as_str(), minutes = s.minutes())
        });
        let left = format!("{left:>3}");
        let line = crate::t!("cli-plan-path", done = done, total = total, left = left, next = next);
        writeln!(out, "  {} {title} {line}", t.number)?;
    }
    Ok(())
}
