//! `agentlab try` (ask a saved run's models something) and `agentlab runs`
//! (list the saved runs and what they kept, prune by the keep rule, pin,
//! compare two runs).

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::Result;

use crate::content::{Content, DrillMeta};
use crate::drills::try_it::{Refused, TryAnswer, TrySession, MAX_SAMPLES};
use crate::drills::TokenKind;
use crate::runner::{self, kept, RunRecord};

/// A run directory, or a drill id for its newest run that kept its models.
pub fn find_run<'a>(content: &'a Content, spec: &Path) -> Result<(RunRecord, &'a DrillMeta), String> {
    let record = if spec.is_dir() {
        runner::load_run(spec)
    } else {
        let id = spec.to_string_lossy();
        if content.drill(&id).is_none() {
            return Err(crate::t!("cli-try-no-run", spec = spec.display().to_string()));
        }
        let root = crate::paths::runs_dir().map_err(|e| format!("{e:#}"))?;
        let runs = runner::list_runs(&root, &id);
        let with = runs.iter().find(|r| matches!(kept::weights(&r.dir), kept::Weights::Kept { .. }));
        match with.or(runs.first()) {
            Some(r) => r.clone(),
            None => return Err(crate::t!("cli-try-no-runs", id = id.as_ref())),
        }
    };
    let drill = record
        .config
        .as_ref()
        .map(|c| c.drill.clone())
        .ok_or_else(|| crate::t!("try-no-config", dir = record.dir.display().to_string()))?;
    let meta = content.drill(&drill).ok_or_else(|| crate::t!("cli-unknown-drill", id = drill.as_str()))?;
    Ok((record, meta))
}

/// Open Try on a saved run (its models loaded), or the message why not.
pub fn open_session(meta: &DrillMeta, record: &RunRecord) -> Result<Box<dyn TrySession>, String> {
    let run = kept::open(meta, record)?;
    let drill =
        crate::drills::find(&meta.id).ok_or_else(|| crate::t!("cli-drill-not-implemented", id = meta.id.as_str()))?;
    drill.open_try(&run, &candle_core::Device::Cpu).map_err(|e| match e.downcast_ref::<Refused>() {
        Some(r) => r.0.clone(),
        None => format!("{e:#}"),
    })
}

/// What `agentlab try` was asked.
pub struct TryArgs<'a> {
    pub run: &'a Path,
    pub arm: Option<&'a str>,
    pub input: Option<&'a str>,
    pub samples: Option<usize>,
    pub temperature: Option<f32>,
    pub seed: u64,
    pub switches: &'a [String],
    pub logp: bool,
    pub json: bool,
    /// Say on stderr how long the first model token took and the model tokens per second.
    pub timing: bool,
}

/// `agentlab try RUN_DIR …`: every arm's answer to each input (`--input`, or
/// one per line of stdin), as text or JSON lines. Exit 2 when the run
/// cannot be tried or the one input is refused.
pub fn try_run(content: &Content, a: TryArgs) -> Result<ExitCode> {
    let refused = |m: String| -> Result<ExitCode> {
        eprintln!("agentlab: {m}");
        Ok(ExitCode::from(2))
    };
    let (record, meta) = match find_run(content, a.run) {
        Ok(x) => x,
        Err(m) => return refused(m),
    };
    let mut session = match open_session(meta, &record) {
        Ok(s) => s,
        Err(m) => return refused(m),
    };
    let mut opts = session.defaults();
    opts.seed = a.seed;
    if let Some(n) = a.samples {
        opts.samples = n;
    }
    if let Some(t) = a.temperature {
        opts.temperature = t;
    }
    if let Some(arm) = a.arm {
        let arms = session.arms();
        if !arms.iter().any(|x| x.id == arm) {
            let ids: Vec<String> = arms.into_iter().map(|x| x.id).collect();
            return refused(crate::t!("cli-try-no-arm", arm = arm, arms = ids.join(", ")));
        }
        opts.arm = Some(arm.to_string());
    }
    for s in a.switches {
        let known = session.switches();
        let parsed = s.split_once('=').and_then(|(k, v)| match v.trim() {
            "on" | "true" | "1" => Some((k.trim(), true)),
            "off" | "false" | "0" => Some((k.trim(), false)),
            _ => None,
        });
        match parsed {
            Some((k, v)) if known.iter().any(|x| x.key == k) => {
                opts.switches.insert(k.to_string(), v);
            }
            _ => {
                let keys: Vec<String> = known.into_iter().map(|x| x.key).collect();
                let keys = if keys.is_empty() { "—".to_string() } else { keys.join(", ") };
                return refused(crate::t!("cli-try-bad-switch", got = s.as_str(), keys = keys));
            }
        }
    }
    let mut out = std::io::stdout().lock();
    if !a.json {
        let arms: Vec<String> = session.arms().into_iter().map(|x| format!("{} ({})", x.label, x.id)).collect();
        writeln!(
            out,
            "{}",
            crate::t!("cli-try-head", run = record.dir.display().to_string(), arms = arms.join(" · "))
        )?;
    }
    let never = AtomicBool::new(false);
    let (hint, examples) = (session.prompt_hint(), session.examples());
    let mut ask = |input: &str, out: &mut dyn Write| -> Result<bool> {
        let clock = std::time::Instant::now();
        let mut first: Option<f64> = None;
        // The most model tokens seen so far, and when the last of them arrived.
        let (mut seen, mut last) = (0usize, 0f64);
        let model_tokens = |ans: &TryAnswer| {
            ans.columns
                .iter()
                .flat_map(|c| &c.samples)
                .flat_map(|s| &s.cells)
                .filter(|c| c.kind == TokenKind::Trained)
                .count()
        };
        let mut progress = |ans: &TryAnswer| {
            let n = model_tokens(ans);
            if n > seen {
                (seen, last) = (n, clock.elapsed().as_secs_f64());
                first.get_or_insert(last);
            }
        };
        match session.answer(input, &opts, &mut progress, &never) {
            Ok(ans) => {
                if a.timing {
                    let secs = clock.elapsed().as_secs_f64();
                    let n = model_tokens(&ans);
                    eprintln!(
                        "{}",
                        crate::t!(
                            "cli-try-timing",
                            first = format!("{:.0}", first.unwrap_or(secs) * 1000.0),
                            tokens = n,
                            secs = format!("{secs:.2}"),
                            rate = format!("{:.1}", n as f64 / secs.max(1e-9)),
                            stream = match first {
                                Some(f) if seen > 1 && last > f => format!("{:.1}", (seen - 1) as f64 / (last - f)),
                                _ => "—".to_string(),
                            }
                        )
                    );
                }
                match a.json {
                    true => writeln!(out, "{}", serde_json::to_string(&ans)?)?,
                    false => write!(out, "{}", answer_text(&ans, a.logp))?,
                }
                Ok(true)
            }
            Err(e) => match e.downcast_ref::<Refused>() {
                Some(r) => {
                    eprintln!("agentlab: {}", r.0);
                    Ok(false)
                }
                None => Err(e),
            },
        }
    };
    if let Some(input) = a.input {
        return Ok(if ask(input, &mut out)? { ExitCode::SUCCESS } else { ExitCode::from(2) });
    }
    let stdin = std::io::stdin();
    let tty = stdin.is_terminal();
    if tty && !a.json {
        writeln!(out, "{hint}")?;
        let ex = &examples;
        if !ex.is_empty() {
            writeln!(
                out,
                "{}",
                crate::t!("cli-try-examples", examples = ex.iter().take(4).cloned().collect::<Vec<_>>().join(" · "))
            )?;
        }
    }
    loop {
        if tty && !a.json {
            write!(out, "> ")?;
            out.flush()?;
        }
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() && tty {
            continue;
        }
        ask(line, &mut out)?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--samples`: 1 to [`MAX_SAMPLES`].
pub fn parse_samples(s: &str) -> std::result::Result<usize, String> {
    crate::numbers::whole_number(s, "--samples", 1, MAX_SAMPLES as u64).map(|n| n as usize)
}

/// `--temperature`: 0 (greedy) to 5.
pub fn parse_temperature(s: &str) -> std::result::Result<f32, String> {
    let t = crate::numbers::finite(s, "--temperature")?;
    if (0.0..=5.0).contains(&t) {
        Ok(t as f32)
    } else {
        Err(crate::t!("cli-try-temperature", got = s))
    }
}

/// An answer as plain text: per arm, each sample's lines marked by who
/// wrote them (`▶` the model, `◀` a tool or the world, `!` injected text),
/// its verdicts, then the arm's summary. With `logp`, the model's tokens
/// with their log-probabilities.
pub fn answer_text(ans: &TryAnswer, logp: bool) -> String {
    let mut out = format!("\n» {}\n", ans.input);
    for n in &ans.notes {
        out.push_str(&format!("  {n}\n"));
    }
    for col in &ans.columns {
        out.push_str(&format!("── {} ({}) ──\n", col.label, col.arm));
        for (i, s) in col.samples.iter().enumerate() {
            out.push_str(&format!(" #{}\n", i + 1));
            for (kind, text) in runs_of(s) {
                let mark = match kind {
                    TokenKind::Prompt => "  ",
                    TokenKind::Trained => "▶ ",
                    TokenKind::Masked => "◀ ",
                    TokenKind::Injected => "! ",
                };
                // An agent's empty turn is a turn too: it shows as ⏎.
                for line in text.split_inclusive('\n') {
                    let line = line.strip_suffix('\n').unwrap_or(line);
                    match (line.is_empty(), kind) {
                        (true, TokenKind::Trained) => out.push_str(&format!("   {mark}⏎\n")),
                        (true, _) => {}
                        (false, _) => out.push_str(&format!("   {mark}{line}\n")),
                    }
                }
            }
            for l in &s.lines {
                out.push_str(&format!("     {l}\n"));
            }
            if logp {
                let toks: Vec<String> = s
                    .cells
                    .iter()
                    .filter_map(|c| c.logp.map(|l| format!("{}({l:.2})", c.text.replace('\n', "⏎"))))
                    .collect();
                if !toks.is_empty() {
                    out.push_str(&format!("     log p: {}\n", toks.join(" ")));
                }
            }
            if !s.verdicts.is_empty() {
                out.push_str(&format!("     {}\n", verdicts_text(&s.verdicts)));
            }
        }
        if !col.summary.is_empty() {
            out.push_str(&format!("  = {}\n", verdicts_text(&col.summary)));
        }
    }
    out
}

/// `name ✓ value · name value`.
pub fn verdicts_text(vs: &[crate::drills::try_it::Verdict]) -> String {
    vs.iter()
        .map(|v| {
            let mark = match v.good {
                Some(true) => " ✓",
                Some(false) => " ✗",
                None => "",
            };
            format!("{}{mark} {}", v.name, v.value).trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A sample's cells joined into runs of one writer.
fn runs_of(s: &crate::drills::try_it::TrySample) -> Vec<(TokenKind, String)> {
    let mut out: Vec<(TokenKind, String)> = Vec::new();
    for c in &s.cells {
        match out.last_mut() {
            Some((k, t)) if *k == c.kind => t.push_str(&c.text),
            _ => out.push((c.kind, c.text.clone())),
        }
    }
    out
}

/// `agentlab runs list [DRILL]`: every saved run (of a drill) with what it kept.
pub fn list(content: &Content, drill: Option<&str>, json: bool) -> Result<ExitCode> {
    let root = crate::paths::runs_dir()?;
    let ids: Vec<String> = match drill {
        Some(d) if content.drill(d).is_none() => {
            eprintln!("agentlab: {}", crate::t!("cli-unknown-drill", id = d));
            return Ok(ExitCode::from(2));
        }
        Some(d) => vec![d.to_string()],
        None => content.drills.iter().map(|d| d.id.clone()).collect(),
    };
    #[derive(serde::Serialize)]
    struct Row {
        dir: String,
        drill: String,
        preset: String,
        seed: Option<u64>,
        edited: Vec<String>,
        uses: Vec<String>,
        status: String,
        pinned: bool,
        weights: kept::Weights,
    }
    let mut rows = Vec::new();
    for id in &ids {
        let Some(meta) = content.drill(id) else { continue };
        for r in runner::list_runs(&root, id) {
            let (preset, seed, edited, uses) = match &r.config {
                Some(c) => (
                    c.preset.clone(),
                    Some(c.seed),
                    kept::edited(meta, c).into_iter().map(|(k, v)| format!("{k}={v}")).collect(),
                    c.uses.keys().cloned().collect(),
                ),
                None => ("?".into(), None, Vec::new(), Vec::new()),
            };
            let status =
                r.report.as_ref().map_or_else(|| crate::t!("drill-status-interrupted"), |x| x.status.to_string());
            rows.push(Row {
                dir: r.dir.display().to_string(),
                drill: id.clone(),
                preset,
                seed,
                edited,
                uses,
                status,
                pinned: kept::is_pinned(&r.dir),
                weights: kept::weights(&r.dir),
            });
        }
    }
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        writeln!(out, "{}", crate::t!("cli-runs-none", dir = root.display().to_string()))?;
    }
    for r in &rows {
        let weights = match &r.weights {
            kept::Weights::Kept { arms, bytes } => {
                crate::t!("cli-runs-weights", arms = arms.join(", "), size = crate::ml::models::human_size(*bytes))
            }
            kept::Weights::Pruned => crate::t!("cli-runs-pruned"),
            kept::Weights::None => crate::t!("cli-runs-no-weights"),
        };
        let mut what = r.preset.clone();
        if !r.edited.is_empty() {
            what.push_str(&format!(", {}", r.edited.join(" ")));
        }
        if !r.uses.is_empty() {
            what.push_str(&format!(", {}", crate::t!("drill-with-yours", ids = r.uses.join(", "))));
        }
        let seed = r.seed.map(|s| s.to_string()).unwrap_or_else(|| "?".into());
        let pin = if r.pinned { " 📌" } else { "" };
        writeln!(out, "{}  {what} · seed {seed} · {} · {weights}{pin}", r.dir, r.status)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentlab runs prune [--dry-run]`: drop older runs' weights by the keep rule.
pub fn prune(dry_run: bool, json: bool) -> Result<ExitCode> {
    let root = crate::paths::runs_dir()?;
    let done = kept::prune(&root, None, dry_run)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&done)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    for d in &done.dropped {
        let size = crate::ml::models::human_size(d.bytes);
        let line = match dry_run {
            true => crate::t!("cli-prune-would", dir = d.dir.display().to_string(), size = size),
            false => crate::t!("cli-prune-dropped", dir = d.dir.display().to_string(), size = size),
        };
        writeln!(out, "{line}")?;
    }
    let freed = crate::ml::models::human_size(done.dropped.iter().map(|d| d.bytes).sum());
    let summary = crate::t!(
        "cli-prune-summary",
        dropped = done.dropped.len(),
        freed = freed,
        kept = done.kept,
        size = crate::ml::models::human_size(done.kept_bytes),
        newest = kept::KEEP_NEWEST
    );
    writeln!(out, "{summary}")?;
    Ok(ExitCode::SUCCESS)
}

/// `agentlab runs pin|unpin RUN_DIR`.
pub fn pin(content: &Content, run: &Path, on: bool) -> Result<ExitCode> {
    let (record, _) = match find_run(content, run) {
        Ok(x) => x,
        Err(m) => {
            eprintln!("agentlab: {m}");
            return Ok(ExitCode::from(2));
        }
    };
    kept::pin(&record.dir, on)?;
    let dir = record.dir.display().to_string();
    println!(
        "{}",
        if on { crate::t!("cli-runs-pinned", dir = dir) } else { crate::t!("cli-runs-unpinned", dir = dir) }
    );
    Ok(ExitCode::SUCCESS)
}

/// `agentlab runs diff A B [--json]`.
pub fn diff(content: &Content, a: &Path, b: &Path, json: bool) -> Result<ExitCode> {
    let find = |p: &Path| -> std::result::Result<RunRecord, String> {
        if !p.is_dir() {
            return Err(crate::t!("cli-runs-not-a-run", dir = p.display().to_string()));
        }
        find_run(content, p).map(|(r, _)| r)
    };
    let (ra, rb) = match (find(a), find(b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(m), _) | (_, Err(m)) => {
            eprintln!("agentlab: {m}");
            return Ok(ExitCode::from(2));
        }
    };
    let d = runner::diff::diff(&ra, &rb, &runner::diff::finals(&ra), &runner::diff::finals(&rb));
    let mut out = std::io::stdout().lock();
    match json {
        true => writeln!(out, "{}", serde_json::to_string_pretty(&d)?)?,
        false => write!(out, "{}", d.text())?,
    }
    Ok(ExitCode::SUCCESS)
}
