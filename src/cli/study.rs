//! Headless study: `agentlab quiz`, `agentlab review`, `agentlab progress`.
//!
//! A plain line-by-line session that a script can drive: for each item, one
//! answer line (choice `b` or `a,c`; numeric `0.5`; order `3 1 2` or `cab`;
//! open: any line, then the reference is shown), then one rating line
//! (`1` ✅ know, `2` ⚠️ fuzzy, `3` ❌ don't). Bad input re-prompts; EOF ends
//! the session cleanly with every rating given so far saved.
//!
//! Items are asked as the TUI asks them: a choice item's options are
//! shuffled at each showing (the letters are the printed ones), an order
//! item's steps arranged anew, and a templated numeric item draws fresh
//! inputs once it has been answered (`grade::shown`). A script that answers
//! finds the showing in the state file (`Progress::showing`).

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use chrono::{DateTime, Utc};

use crate::content::tracks::parse_track;
use crate::content::{Answer, Content, Level, Link, QuizItem};
use crate::markdown::math::inline;
use crate::progress::grade::{self, letter, Response};
use crate::progress::session::{due_now, quiz_items, weak_not_due, Passes};
use crate::progress::summary::{duration_text, pct_text, summarize_with_runs};
use crate::progress::{Rating, Store};

/// Input, output and clock of a session (stdin/stdout/system clock in the binary).
pub struct Session<'a> {
    pub input: &'a mut dyn BufRead,
    pub out: &'a mut dyn Write,
    pub now: &'a dyn Fn() -> DateTime<Utc>,
}

impl Session<'_> {
    /// Print `prompt`, read a line; `None` at EOF.
    fn ask(&mut self, prompt: &str) -> Result<Option<String>> {
        write!(self.out, "{prompt}> ")?;
        self.out.flush()?;
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            writeln!(self.out)?;
            return Ok(None);
        }
        Ok(Some(line.trim_end_matches(['\n', '\r']).to_string()))
    }
}

/// Open the learner's store, telling stderr about a file moved aside.
pub fn open_store(now: DateTime<Utc>) -> Result<Store> {
    let store = Store::open_default(now)?;
    if let Some(n) = &store.notice {
        eprintln!("agentlab: {n}");
    }
    Ok(store)
}

/// Parse `--track` and `--level`.
pub fn parse_filters(track: Option<&str>, level: Option<&str>) -> Result<(Option<u8>, Option<Level>)> {
    let t = match track {
        None => None,
        Some(s) => Some(parse_track(s).ok_or_else(|| anyhow!("{}", crate::t!("cli-unknown-track", track = s)))?.number),
    };
    let l = match level {
        None => None,
        Some(s) if s.eq_ignore_ascii_case("all") => None,
        Some(s) => Some(Level::parse(s).ok_or_else(|| anyhow!("{}", crate::t!("cli-unknown-level", level = s)))?),
    };
    Ok((t, l))
}

/// A lab link as plain text, named the way the commands take it:
/// "sheet 7, § Prompt injection" (`agentlab sheet 7`), "drill grpo-rlvr".
pub fn link_text(content: &Content, link: &Link) -> String {
    match link {
        Link::Sheet { track, section } => {
            let sheet = content.sheet(*track);
            match section.as_deref().and_then(|s| sheet.and_then(|sh| sh.section(s))) {
                Some(sec) => crate::t!("cli-link-section", track = *track, section = sec.title.as_str()),
                None => match sheet {
                    Some(sh) => crate::t!("cli-link-sheet-titled", track = *track, title = sh.meta.title.as_str()),
                    None => crate::t!("cli-link-sheet", track = *track),
                },
            }
        }
        Link::Drill(id) => crate::t!("cli-link-drill", id = id.as_str()),
        Link::Exercise(id) => crate::t!("cli-link-exercise", id = id.as_str()),
        Link::Quiz { track, level: Some(l) } => crate::t!("cli-link-quiz-level", track = *track, level = l.to_string()),
        Link::Quiz { track, level: None } => crate::t!("cli-link-quiz", track = *track),
    }
}

/// Ask one item; `None` when the input ended.
fn ask_item(
    io: &mut Session,
    content: &Content,
    authored: &QuizItem,
    showing: u64,
    header: &str,
) -> Result<Option<(Option<bool>, Rating)>> {
    let item = &grade::shown(authored, showing);
    let out = &mut *io.out;
    let level = crate::tui::screens::quiz::level_describe(item.level);
    let head = crate::t!(
        "cli-item-head",
        header = header,
        track = item.track,
        level = item.level.to_string(),
        describe = level
    );
    writeln!(out, "\n── {head} ──")?;
    writeln!(out, "{}", inline(&item.prompt))?;
    let shown = grade::order_shuffle_at(authored, showing);
    let prompt = match &item.answer {
        Answer::Choice { choices, correct } => {
            for (i, c) in choices.iter().enumerate() {
                writeln!(out, "  {}) {}", letter(i), inline(c))?;
            }
            if correct.len() > 1 {
                crate::t!("cli-answer-several", last = letter(choices.len() - 1).to_string())
            } else {
                crate::t!("cli-answer-letter", last = letter(choices.len() - 1).to_string())
            }
        }
        Answer::Numeric { .. } => crate::t!("cli-answer-number"),
        Answer::Order { steps } => {
            writeln!(out, "{}", crate::t!("cli-order-prompt"))?;
            for (row, &s) in shown.iter().enumerate() {
                writeln!(out, "  {}) {}", row + 1, inline(&steps[s]))?;
            }
            crate::t!("cli-answer-order", example = example(steps.len()))
        }
        Answer::Open { .. } => crate::t!("cli-answer-open"),
    };
    let response = loop {
        let Some(line) = io.ask(&prompt)? else { return Ok(None) };
        let parsed = match &item.answer {
            Answer::Choice { choices, .. } => grade::parse_choice(&line, choices.len()).map(Response::Choice),
            Answer::Numeric { .. } => grade::parse_numeric(&line).map(Response::Numeric),
            Answer::Order { steps } => grade::parse_order(&line, steps.len())
                .map(|rows| Response::Order(rows.into_iter().map(|r| shown[r]).collect())),
            Answer::Open { .. } => Ok(Response::Open),
        };
        match parsed {
            Ok(r) => break r,
            Err(m) => writeln!(io.out, "  ! {m}")?,
        }
    };
    let correct = grade::grade(&item.answer, &response);
    let out = &mut *io.out;
    match (&item.answer, correct) {
        (_, Some(true)) => writeln!(out, "{}", crate::t!("cli-correct"))?,
        (Answer::Choice { choices, correct }, _) => {
            let right: Vec<String> =
                correct.iter().map(|&i| format!("{}) {}", letter(i), inline(&choices[i]))).collect();
            writeln!(out, "{}", crate::t!("cli-wrong-answer", answer = right.join(" + ")))?
        }
        (Answer::Numeric { value, tolerance }, _) => writeln!(
            out,
            "{}",
            crate::t!(
                "cli-wrong-answer",
                answer = format!("{} (± {tolerance})", crate::content::template::show_expected(*value, *tolerance))
            )
        )?,
        (Answer::Order { steps }, _) => {
            writeln!(out, "{}", crate::t!("cli-wrong-order"))?;
            for (i, s) in steps.iter().enumerate() {
                writeln!(out, "  {}. {}", i + 1, inline(s))?;
            }
        }
        (Answer::Open { reference }, _) => writeln!(out, "{}\n{}", crate::t!("cli-reference"), inline(reference))?,
    }
    // Links read as text ("→ sheet 7, § Prompt injection"), never as their raw `[sheet:7#…]` form.
    let why = crate::content::links::with_link_labels(&item.explanation, &|l| Some(link_text(content, l)));
    writeln!(out, "{}", crate::t!("cli-why", why = inline(&why)))?;
    let mut see = Vec::new();
    if let Some(l) = item.sheet.as_deref().and_then(|s| Link::parse(&format!("sheet:{s}"))) {
        see.push(link_text(content, &l));
    }
    if let Some(d) = &item.drill {
        see.push(link_text(content, &Link::Drill(d.clone())));
    }
    if !see.is_empty() {
        writeln!(out, "{}", crate::t!("cli-see", links = see.join(" · ")))?;
    }
    let rate_prompt = if correct == Some(false) { crate::t!("cli-rate-wrong") } else { crate::t!("cli-rate") };
    loop {
        let Some(line) = io.ask(&rate_prompt)? else { return Ok(None) };
        match Rating::from_key(&line) {
            Some(r) if r.allowed(correct) => return Ok(Some((correct, r))),
            Some(_) => writeln!(io.out, "  ! {}", crate::t!("cli-rate-no-know"))?,
            None => writeln!(io.out, "  ! {}", crate::t!("cli-rate-keys"))?,
        }
    }
}

fn example(n: usize) -> String {
    (1..=n).rev().map(|k| k.to_string()).collect::<Vec<_>>().join(" ")
}

/// Run passes over `ids`; `repeat`: go on with the ⚠️/❌ items after each pass.
/// Returns the passes and whether the input ended early.
fn run_passes(
    io: &mut Session,
    content: &Content,
    store: &mut Store,
    ids: Vec<String>,
    repeat: bool,
    label: &str,
) -> Result<(Passes, bool)> {
    let mut passes = Passes::new(ids);
    loop {
        while let Some(id) = passes.current().map(str::to_string) {
            let Some(item) = content.items().find(|i| i.id == id) else {
                passes.rate(None, Rating::Dont);
                continue;
            };
            let header = format!("{label} {}/{}", passes.pos + 1, passes.queue.len());
            let showing = store.progress.showing(&item.id);
            let Some((correct, rating)) = ask_item(io, content, item, showing, &header)? else {
                return Ok((passes, true));
            };
            if let Err(e) = store.record(&item.id, item.track, item.level, correct, rating, (io.now)()) {
                eprintln!(
                    "agentlab: {}",
                    crate::t!("cli-not-saved-yet", error = format!("{e:#}"), count = store.unsaved_ratings())
                );
            }
            passes.rate(correct, rating);
        }
        if !repeat || !passes.next_pass() {
            return Ok((passes, false));
        }
        let head = crate::t!(
            "cli-pass-head",
            pass = passes.pass,
            items = crate::t!("count-items", count = passes.queue.len())
        );
        writeln!(io.out, "\n══ {head} ══")?;
    }
}

/// The end of a session: the score, and whether every rating was saved.
/// Exit 1 when one was not (the error was said when its save failed).
fn report(io: &mut Session, passes: &Passes, ended: bool, store: &mut Store) -> Result<ExitCode> {
    let (right, graded) = passes.score();
    let [k, f, d] = passes.tally();
    // A last try for ratings whose saves failed (another writer held the lock, say).
    let last_error = if store.has_unsaved() { store.save().err() } else { None };
    let unsaved = store.unsaved_ratings();
    let given = passes.ratings.len();
    writeln!(io.out)?;
    match (ended, store.has_unsaved()) {
        (true, false) => writeln!(io.out, "{}", crate::t!("cli-input-ended-saved", ratings = ratings(given)))?,
        (true, true) => writeln!(io.out, "{}", crate::t!("cli-input-ended-after", ratings = ratings(given)))?,
        (false, _) => {}
    }
    // Each pass's counts add up to its items; over several passes they count ratings.
    let by_pass = passes.tally_by_pass();
    if by_pass.len() <= 1 {
        let items = crate::t!("count-items", count = passes.items_rated());
        writeln!(
            io.out,
            "{}",
            crate::t!("cli-score", right = right, graded = graded, know = k, fuzzy = f, dont = d, items = items)
        )?;
    } else {
        let per: Vec<String> = by_pass
            .iter()
            .map(|(p, [k, f, d])| crate::t!("cli-score-pass", pass = *p, know = *k, fuzzy = *f, dont = *d))
            .collect();
        writeln!(
            io.out,
            "{}",
            crate::t!(
                "cli-score-passes",
                right = right,
                graded = graded,
                items = crate::t!("count-items", count = passes.items_rated()),
                ratings = ratings(given),
                passes = by_pass.len(),
                per = per.join("; ")
            )
        )?;
        writeln!(io.out, "{}", crate::t!("cli-score-all", know = k, fuzzy = f, dont = d))?;
    }
    if !store.has_unsaved() {
        writeln!(io.out, "{}", crate::t!("cli-progress-saved", path = store.path.display().to_string()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let why = last_error.map(|e| format!(": {e:#}")).unwrap_or_default();
    let msg = crate::t!(
        "cli-progress-not-saved",
        unsaved = unsaved,
        ratings = ratings(given),
        path = store.path.display().to_string(),
        why = why
    );
    writeln!(io.out, "{msg}")?;
    eprintln!("agentlab: {msg}");
    Ok(ExitCode::FAILURE)
}

/// "1 rating", "3 ratings" in the language in force.
fn ratings(n: usize) -> String {
    crate::t!("cli-ratings", count = n)
}

/// `agentlab quiz [--track T] [--level L] [--limit N]`: one pass over the items.
pub fn quiz(
    content: &Content,
    store: &mut Store,
    track: Option<u8>,
    level: Option<Level>,
    limit: Option<usize>,
    io: &mut Session,
) -> Result<ExitCode> {
    let what = match (track, level) {
        (Some(t), Some(l)) => crate::t!("cli-what-track-level", track = t, level = l.to_string()),
        (Some(t), None) => crate::t!("cli-what-track", track = t),
        (None, Some(l)) => crate::t!("cli-what-level", level = l.to_string()),
        (None, None) => crate::t!("cli-what-all"),
    };
    let items = quiz_items(content, track, level, limit);
    if items.is_empty() {
        writeln!(io.out, "{}", crate::t!("cli-quiz-none", what = what))?;
        return Ok(ExitCode::SUCCESS);
    }
    let n = crate::t!("count-items", count = items.len());
    writeln!(io.out, "{}", crate::t!("cli-quiz-head", what = what, items = n))?;
    let ids = items.iter().map(|i| i.id.clone()).collect();
    let (passes, ended) = run_passes(io, content, store, ids, false, &crate::t!("cli-item-label"))?;
    let code = report(io, &passes, ended, store)?;
    if !passes.again.is_empty() {
        let n = passes.again.len();
        writeln!(io.out, "{}", crate::t!("cli-quiz-again", items = crate::t!("count-items", count = n), count = n))?;
    }
    Ok(code)
}

/// `agentlab review [--retention R] [--all]`: the due items, passes until all ✅.
pub fn review(
    content: &Content,
    store: &mut Store,
    retention: Option<f64>,
    all: bool,
    io: &mut Session,
) -> Result<ExitCode> {
    if let Some(r) = retention {
        if let Err(e) = crate::progress::schedule::check_retention(r) {
            eprintln!("agentlab: {e}");
            return Ok(ExitCode::from(2));
        }
        if let Err(e) = store.set_retention(r) {
            eprintln!("agentlab: {}", crate::t!("cli-retention-not-saved", error = format!("{e:#}")));
            return Ok(ExitCode::FAILURE);
        }
        let r = format!("{:.2}", store.progress.settings.desired_retention);
        writeln!(io.out, "{}", crate::t!("cli-retention-set", retention = r))?;
    }
    let now = (io.now)();
    let mut ids = due_now(&store.progress, content, now);
    let due = ids.len();
    let weak = weak_not_due(&store.progress, content, now);
    if all {
        ids.extend(weak.iter().cloned());
    }
    if ids.is_empty() {
        writeln!(io.out, "{}", crate::t!("cli-review-nothing"))?;
        if !weak.is_empty() {
            writeln!(io.out, "{}", crate::t!("cli-review-weak", count = weak.len()))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let extra =
        if all { format!(" {}", crate::t!("cli-review-extra", count = ids.len() - due)) } else { String::new() };
    let head = crate::t!(
        "cli-review-head",
        items = crate::t!("count-items", count = due),
        extra = extra,
        retention = format!("{:.2}", store.progress.settings.desired_retention)
    );
    writeln!(io.out, "{head}")?;
    let (passes, ended) = run_passes(io, content, store, ids, true, &crate::t!("cli-review-label"))?;
    let code = report(io, &passes, ended, store)?;
    if !all && !ended && !weak.is_empty() {
        writeln!(io.out, "{}", crate::t!("cli-review-more", count = weak.len()))?;
    }
    Ok(code)
}

/// `agentlab progress [--json]`
pub fn progress(
    content: &Content,
    store: &Store,
    now: DateTime<Utc>,
    json: bool,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let s = summarize_with_runs(&store.progress, content, &crate::paths::runs_dir()?, now);
    if json {
        let mut summary = serde_json::to_value(&s)?;
        // Each track's mastery (all its items, as on Home) and whether it was started, as figured here.
        if let Some(rows) = summary.get_mut("tracks").and_then(|t| t.as_array_mut()) {
            for (v, row) in rows.iter_mut().zip(&s.tracks) {
                v["mastery"] = serde_json::json!(row.mastery());
                v["started"] = serde_json::json!(row.started());
            }
        }
        let v = serde_json::json!({ "state_file": store.path.display().to_string(), "summary": summary });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    use crate::tui::widgets::{pad_left, pad_right};
    writeln!(out, "{}", crate::t!("cli-progress-mastery"))?;
    writeln!(
        out,
        "{} {} {:>13} {:>13} {:>13} {} {} {}",
        pad_right(&crate::t!("cli-progress-col-track"), 36),
        pad_left(&crate::t!("cli-progress-col-all"), 5),
        "L1",
        "L2",
        "L3",
        pad_left(&crate::t!("cli-progress-col-due"), 5),
        pad_left(&crate::t!("cli-progress-col-drills"), 7),
        pad_left(&crate::t!("cli-progress-col-exercises"), 9)
    )?;
    for row in &s.tracks {
        let cells: Vec<String> = row
            .levels
            .iter()
            .map(|c| match c.fraction() {
                None => "—".to_string(),
                Some(f) => format!("{}/{}/{} {:>3.0}%", c.mastered, c.learning, c.items, f * 100.0),
            })
            .collect();
        let title = crate::tui::widgets::pad_right(&crate::tui::widgets::ellipsize(&row.title, 33), 34);
        writeln!(
            out,
            "{} {title} {:>5} {:>13} {:>13} {:>13} {:>5} {:>7} {:>9}",
            row.track,
            pct_text(row.mastery()),
            cells[0],
            cells[1],
            cells[2],
            row.due,
            row.drills_text(),
            row.exercises_text()
        )?;
    }
    let weeks: Vec<String> = s
        .weeks
        .iter()
        .map(|w| {
            let start = w.start.format("%m-%d").to_string();
            crate::t!("cli-progress-week", start = start, sessions = w.sessions, time = duration_text(w.secs))
        })
        .collect();
    writeln!(out, "\n{}", crate::t!("cli-progress-weeks", sessions = s.sessions, weeks = weeks.join(" · ")))?;
    writeln!(
        out,
        "{} {} {}",
        pad_right(&crate::t!("cli-progress-col-track"), 36),
        pad_left(&crate::t!("cli-progress-col-time"), 8),
        pad_left(&crate::t!("cli-progress-col-predictions"), 16)
    )?;
    for row in &s.tracks {
        let title = crate::tui::widgets::pad_right(&crate::tui::widgets::ellipsize(&row.title, 33), 34);
        writeln!(out, "{} {title} {:>8} {:>16}", row.track, duration_text(row.secs), row.calibration_text())?;
    }
    let week: Vec<String> = s.due_next.iter().map(|n| n.to_string()).collect();
    let due = crate::t!("cli-progress-due", now = s.due_now, week = s.due_week(), days = week.join(" "));
    writeln!(out, "\n{due}")?;
    writeln!(out, "{}", crate::t!("cli-progress-per-day", days = s.history.len()))?;
    let active: Vec<_> = s.history.iter().filter(|d| d.know + d.fuzzy + d.dont > 0).collect();
    if active.is_empty() {
        writeln!(out, "  {}", crate::t!("cli-progress-none-yet"))?;
    }
    for d in active {
        writeln!(
            out,
            "  {} {}{}{} {}/{}/{}",
            d.date,
            "✅".repeat(d.know.min(20)),
            "⚠️".repeat(d.fuzzy.min(20)),
            "❌".repeat(d.dont.min(20)),
            d.know,
            d.fuzzy,
            d.dont
        )?;
    }
    let r = format!("{:.2}", s.desired_retention);
    writeln!(out, "{}", crate::t!("cli-progress-retention", retention = r, path = store.path.display().to_string()))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_read_as_text_in_the_headless_quiz() {
        let content = Content::embedded().unwrap();
        let sheet = content.sheet(7).unwrap();
        let sec = sheet.sections.iter().find(|s| s.level == 2).unwrap();
        let l = Link::Sheet { track: 7, section: Some(sec.slug.clone()) };
        assert_eq!(link_text(&content, &l), format!("sheet 7, § {}", sec.title));
        assert_eq!(
            link_text(&content, &Link::Sheet { track: 7, section: None }),
            format!("sheet 7 ({})", sheet.meta.title)
        );
        assert_eq!(link_text(&content, &Link::Drill("grpo-rlvr".into())), "drill grpo-rlvr");

        // A whole item asked headless: no raw `[sheet:…]` or `[drill:…]` in what it prints.
        let item = content.items().find(|i| i.sheet.as_deref().is_some_and(|s| s.contains('#')) && i.drill.is_some());
        let item = item.expect("an item with a sheet section and a drill");
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("progress.json"), Utc::now());
        let answer = match &item.answer {
            Answer::Choice { correct, .. } => {
                correct.iter().map(|&i| letter(i).to_string()).collect::<Vec<_>>().join(",")
            }
            Answer::Numeric { value, .. } => value.to_string(),
            Answer::Order { steps } => (1..=steps.len()).map(|k| k.to_string()).collect::<Vec<_>>().join(" "),
            Answer::Open { .. } => "x".into(),
        };
        let mut input = std::io::Cursor::new(format!("{answer}\n3\n"));
        let mut out = Vec::new();
        let now = Utc::now;
        let mut io = Session { input: &mut input, out: &mut out, now: &now };
        run_passes(&mut io, &content, &mut store, vec![item.id.clone()], false, "item").unwrap();
        let out = String::from_utf8(out).unwrap();
        let see = out.lines().find(|l| l.starts_with("see: ")).expect(&out);
        assert!(see.starts_with("see: sheet ") && see.contains(", § ") && see.contains(" · drill "), "{see}");
        assert!(!out.contains("[sheet:") && !out.contains("[drill:") && !out.contains("[quiz:"), "{out}");
    }
}
