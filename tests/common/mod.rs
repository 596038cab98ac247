//! Fixtures shared by the integration tests.

pub mod tried;

use std::path::{Path, PathBuf};

use agentlab::drills::{Event, Report};

/// A saved sft-basics run under `runs_root`: its config, metrics up to
/// `steps` of `total`, and its report if it has one. Without a report it is
/// what a killed `drill run` leaves, down to the torn last line.
#[allow(dead_code)] // not every test binary that shares this module saves runs
pub fn saved_run(runs_root: &Path, name: &str, steps: u64, total: u64, report: Option<Report>) -> PathBuf {
    let dir = runs_root.join("sft-basics").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "drill = \"sft-basics\"\npreset = \"quick\"\nseed = 1\ndevice = \"cpu\"\n\n[params]\n",
    )
    .unwrap();
    let mut lines = vec![Event::Phase("train".into())];
    for step in 1..=steps {
        lines.push(Event::Metric { step, name: "loss".into(), value: 3.0 / step as f64, t: step as f64 * 0.1 });
        lines.push(Event::Progress { step, total, tokens: step * 100 });
    }
    let mut text: String = lines.iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
    match report {
        Some(r) => std::fs::write(dir.join("report.json"), serde_json::to_string(&r).unwrap()).unwrap(),
        None => text.push_str("{\"type\":\"metric\",\"data\":{\"st"),
    }
    std::fs::write(dir.join("metrics.jsonl"), text).unwrap();
    dir
}

/// Draw `app` once into a `w`×`h` TestBackend, as the event loop does, and
/// return the screen's lines. A wide symbol (✅, ⚠) covers two cells: the
/// cell it covers is skipped.
#[allow(dead_code)] // not every test binary that shares this module draws
pub fn screen_lines(app: &mut agentlab::tui::App, w: u16, h: u16) -> Vec<String> {
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    term.draw(|f| {
        app.prepare(f.area());
        agentlab::tui::ui::draw(f, app);
    })
    .unwrap();
    let buf = term.backend().buffer().clone();
    (0..h)
        .map(|y| {
            let mut line = String::new();
            let mut x = 0;
            while x < w {
                let sym = buf[(x, y)].symbol();
                line.push_str(sym);
                x += unicode_width::UnicodeWidthStr::width(sym).max(1) as u16;
            }
            line
        })
        .collect()
}

/// A property test's config: `cases` cases from a fixed seed, so a run of the
/// suite is the same run every time (CI never meets a case no one has seen).
/// To explore new cases, set `PROPTEST_RNG_SEED` to another number.
#[allow(dead_code)] // used by the property-test binaries only
pub fn fixed_config(cases: u32) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, RngSeed};
    let from_env = Config::default();
    let rng_seed = match from_env.rng_seed {
        RngSeed::Random => RngSeed::Fixed(0x00a9_e471_ab5e_ed00),
        chosen => chosen,
    };
    Config { cases, failure_persistence: None, rng_seed, ..from_env }
}

/// The text inside the pane whose top border contains `title`, one string per row.
#[allow(dead_code)] // used by the TUI test binaries only
pub fn pane_rows(lines: &[String], title: &str) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.contains(title))
        .unwrap_or_else(|| panic!("no pane {title}:\n{}", lines.join("\n")));
    let left = lines[start].chars().position(|c| c == '╭').unwrap();
    lines[start + 1..]
        .iter()
        .take_while(|l| l.chars().nth(left) == Some('│'))
        .map(|l| l.chars().skip(left + 1).take_while(|&c| c != '│').collect())
        .collect()
}

/// A quiz screen over the given items, as the quiz would show them.
#[allow(dead_code)] // used by the quiz test binaries only
pub fn quiz_over(a: &mut agentlab::tui::App, ids: &[&str]) {
    use agentlab::progress::session::Passes;
    use agentlab::tui::screens::{quiz, Screen};
    use agentlab::tui::widgets::question::Question;
    let item = a.content.items().find(|i| i.id == ids[0]).unwrap().clone();
    let mut s = quiz::State::setup(item.track, None);
    s.passes = Passes::new(ids.iter().map(|s| s.to_string()).collect());
    s.phase = quiz::Phase::Asking;
    s.question = Some(Question::new(&item));
    a.stack.push(Screen::Quiz(Box::new(s)));
}

/// The test binary's data dir: a temporary one, set as `AGENTLAB_HOME` once,
/// so no test touches the real home (runs, progress, exercises).
#[allow(dead_code)] // not every test binary that shares this module needs one
pub fn isolated_home() -> &'static Path {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        std::env::set_var("AGENTLAB_HOME", d.path());
        d
    })
    .path()
}

/// The content files on disk (cheatsheets, quizzes, drills, exercises) as
/// (path relative to the repository, text), for `Content::from_files`.
#[allow(dead_code)] // not every test binary that shares this module reads them
pub fn disk_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["cheatsheets", "quizzes", "drills", "exercises"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "md" || x == "toml") {
                    let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                    out.push((rel, std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
    }
    out
}

/// Tick `app` as the event loop does until no drill screen on its stack is
/// reading or writing files for a key (a run opened, a PNG exported, the
/// learner's function read) and no exercise screen is checking a file, or
/// 20 s have passed.
#[allow(dead_code)] // used by the TUI test binaries only
pub fn settle(app: &mut agentlab::tui::App) {
    use agentlab::tui::screens::Screen;
    let working = |a: &agentlab::tui::App| {
        a.stack.iter().any(|s| match s {
            Screen::Drill(d) => d.working(),
            Screen::Exercise(x) => x.checking() || x.rewording(),
            _ => false,
        })
    };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while working(app) && std::time::Instant::now() < until {
        app.on_tick();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    app.on_tick();
    assert!(!working(app), "still reading or writing after 20 s");
}

/// The `agentlab` binary with its data in `home` and its language pinned to
/// English, so that a test reads the same output under any locale (a
/// machine whose `LANG` is `zh_CN.UTF-8` would otherwise get Chinese). A
/// test of the Chinese edition passes `--lang zh`, which wins over this.
#[allow(dead_code)] // not every test binary that shares this module runs the binary
pub fn agentlab(home: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_agentlab"));
    c.env("AGENTLAB_HOME", home).env("AGENTLAB_LANG", "en");
    c
}
