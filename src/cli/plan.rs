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
        Some(t) => {
            Some(parse_track(t).ok_or_else(|| anyhow!("no track \"{t}\" (0–7 or a slug, e.g. agentic-rl)"))?.number)
        }
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
    let on = plan.track.map_or("the tracks in order".to_string(), |t| format!("track {t}"));
    writeln!(out, "A {}-minute session on {on} (planned {} min):", plan.minutes, plan.planned_minutes())?;
    if plan.is_empty() {
        writeln!(out, "  nothing: no review is due and the path is done")?;
    }
    let mut k = 1;
    if !plan.review.is_empty() {
        writeln!(out, "  {k}. {:>3} min  review {} due item(s)", plan.review_minutes(), plan.review.len())?;
        k += 1;
    }
    if plan.review_left_out > 0 {
        writeln!(
            out,
            "     ({} more due item(s) left for later: review takes at most {:.0}% of the time)",
            plan.review_left_out,
            study::REVIEW_SHARE * 100.0
        )?;
    }
    for s in &plan.steps {
        writeln!(out, "  {k}. {:>3} min  {} · track {}", s.minutes(), s.label, s.track)?;
        k += 1;
    }
    writeln!(out)?;
    writeln!(out, "Study paths (steps done / steps, minutes left, next step):")?;
    for t in TRACKS.iter() {
        let steps = study::path(content, progress, passed, t.number);
        if steps.is_empty() {
            writeln!(out, "  {} {:<32} no path", t.number, t.title)?;
            continue;
        }
        let (done, total, left) = study::path_progress(&steps);
        let next = steps
            .iter()
            .find(|s| !s.done)
            .map_or("done".to_string(), |s| format!("next: {} ({} min)", s.label, s.minutes()));
        writeln!(out, "  {} {:<32} {done}/{total} · {left:>3} min left · {next}", t.number, t.title)?;
    }
    Ok(())
}
