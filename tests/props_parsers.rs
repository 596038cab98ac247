//! Property tests over the parsers a learner's files and arguments reach:
//! quiz TOML, drill.toml, cheatsheet Markdown, a saved run's metrics.jsonl
//! and `--set key=value`. Inputs are random mutations of the shipped files
//! (so they get deep into the checks) and random text. Whatever comes in:
//! no panic, and every content problem names the file it is about.
//!
//! Case counts are fixed (see `CASES_*`) to keep the suite to seconds.

mod common;

use std::path::Path;

use agentlab::content::{Content, ContentErrors, DrillMeta};
use agentlab::drills::Event;
use proptest::prelude::*;

const CASES_QUIZ: u32 = 192;
const CASES_DRILL: u32 = 192;
const CASES_SHEET: u32 = 96;
const CASES_MARKDOWN: u32 = 256;
const CASES_METRICS: u32 = 128;
const CASES_SET: u32 = 512;

/// The shipped content as (path, text), read from the repository.
fn shipped() -> &'static Vec<(String, String)> {
    static FILES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.file_name().unwrap().to_string_lossy().starts_with('.') {
                    continue;
                }
                if p.is_dir() {
                    walk(root, &p, out);
                } else {
                    let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                    out.push((rel, std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        for sub in ["cheatsheets", "quizzes", "drills", "exercises"] {
            walk(root, &root.join(sub), &mut out);
        }
        out
    })
}

fn shipped_file(path: &str) -> String {
    shipped().iter().find(|(p, _)| p == path).unwrap_or_else(|| panic!("{path}")).1.clone()
}

/// Pieces that break TOML and Markdown in interesting ways.
const SNIPPETS: &[&str] = &[
    "\"",
    "'",
    "[",
    "]",
    "[[item]]",
    "[[claim]]",
    "[[param]]",
    "=",
    "\n",
    "\n\n",
    "#",
    "```",
    "```text\n",
    "~~~",
    "+++",
    "+++\n",
    "\\",
    "é",
    "→",
    "\u{feff}",
    "\t",
    "$$",
    "$x$",
    "|a|b|\n|-|-|\n",
    "> ",
    "- ",
    "1. ",
    "<details>",
    "</details>",
    "[drill:sft-basics]",
    "[drill:nope]",
    "[sheet:3#nope]",
    "[sheet:9]",
    "[quiz:3/L9]",
    "**",
    "_",
    "9999999999999999999999",
    "-1",
    "1e999",
    "nan",
    "inf",
    "true",
    "{}",
    "[]",
    "id = \"x\"",
    "track = 3",
    "kind = \"numeric\"",
    "op = \"=>\"",
    "level = \"L4\"",
    "check = { fn = \"pass_at_k\", n = 9000000000, c = 1, k = 1 }",
];

/// One edit of a text.
#[derive(Debug, Clone)]
enum Edit {
    /// Delete `len` bytes at a position (fractions of the text, snapped to characters).
    Delete(f64, usize),
    Insert(f64, String),
    /// Repeat the line at a position.
    DuplicateLine(f64),
    Truncate(f64),
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    let snippet = prop_oneof![
        3 => proptest::sample::select(SNIPPETS).prop_map(str::to_string),
        1 => any::<String>(),
    ];
    prop_oneof![
        3 => (0.0..1.0f64, 1..40usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        4 => (0.0..1.0f64, snippet).prop_map(|(at, s)| Edit::Insert(at, s)),
        1 => (0.0..1.0f64).prop_map(Edit::DuplicateLine),
        1 => (0.0..1.0f64).prop_map(Edit::Truncate),
    ]
}

fn boundary(text: &str, at: f64) -> usize {
    let mut i = ((text.len() as f64) * at) as usize;
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i.min(text.len())
}

fn apply(mut text: String, edits: &[Edit]) -> String {
    for e in edits {
        match e {
            Edit::Delete(at, n) => {
                let a = boundary(&text, *at);
                let mut b = (a + n).min(text.len());
                while !text.is_char_boundary(b) {
                    b += 1;
                }
                text.replace_range(a..b, "");
            }
            Edit::Insert(at, s) => {
                let a = boundary(&text, *at);
                text.insert_str(a, s);
            }
            Edit::DuplicateLine(at) => {
                let a = boundary(&text, *at);
                let start = text[..a].rfind('\n').map_or(0, |i| i + 1);
                let end = text[a..].find('\n').map_or(text.len(), |i| a + i + 1);
                let line = text[start..end].to_string();
                text.insert_str(start, &line);
            }
            Edit::Truncate(at) => {
                let a = boundary(&text, *at);
                text.truncate(a);
            }
        }
    }
    text
}

/// A file's new text: a few edits of the shipped one, or random text.
fn mutated(path: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        6 => proptest::collection::vec(edit_strategy(), 1..5).prop_map(move |edits| apply(shipped_file(path), &edits)),
        1 => any::<String>(),
    ]
}

/// The shipped content with `path` replaced by `text`: loads, or every
/// problem names `path` (as its file, or in its message) or its zh translation.
fn check_content_with(path: &str, text: &str) -> Result<(), TestCaseError> {
    let files: Vec<(String, String)> = shipped()
        .iter()
        .map(|(p, t)| if p == path { (p.clone(), text.to_string()) } else { (p.clone(), t.clone()) })
        .collect();
    match Content::from_files(files) {
        Ok(_) => Ok(()),
        Err(ContentErrors { errors, .. }) => {
            prop_assert!(!errors.is_empty());
            let folder = path.rsplit_once('/').map_or(path, |(d, _)| d);
            // Its translation, which an edit of the English can leave out of date.
            let translation = match path.rsplit_once('.') {
                Some((stem, ext)) => format!("{stem}.zh.{ext}"),
                None => path.to_string(),
            };
            for e in &errors {
                let shown = e.to_string();
                let names = e.file == path
                    || e.file == translation
                    || shown.contains(path)
                    || (path.starts_with("drills/") && e.file.starts_with(folder));
                prop_assert!(names, "a problem that does not name {path}: {shown}");
                prop_assert!(!e.message.trim().is_empty(), "an empty message in {shown}");
            }
            Ok(())
        }
    }
}

/// A quiz file cut to its header still parses, with no items: the exercises
/// that link its items must name the quiz file (a case proptest found).
#[test]
fn a_quiz_file_emptied_of_items_is_named_by_the_links_into_it() {
    let text = "track = 3\n\n# -------- L1 concep";
    check_content_with("quizzes/03-agentic-rl.toml", text).unwrap();
}

proptest! {
    #![proptest_config(common::fixed_config(CASES_QUIZ))]
    #[test]
    fn quiz_toml_never_panics_and_names_the_file(text in mutated("quizzes/03-agentic-rl.toml")) {
        check_content_with("quizzes/03-agentic-rl.toml", &text)?;
    }
}

proptest! {
    #![proptest_config(common::fixed_config(CASES_DRILL))]
    #[test]
    fn exercise_toml_never_panics_and_names_the_file(text in mutated("exercises/gae.toml")) {
        check_content_with("exercises/gae.toml", &text)?;
    }
}

proptest! {
    #![proptest_config(common::fixed_config(CASES_DRILL))]
    #[test]
    fn drill_toml_never_panics_and_names_the_file(text in mutated("drills/sft-basics/drill.toml")) {
        check_content_with("drills/sft-basics/drill.toml", &text)?;
        // The parser tools use, alone.
        let _ = DrillMeta::parse(&text, "readme");
    }
}

proptest! {
    #![proptest_config(common::fixed_config(CASES_SHEET))]
    #[test]
    fn cheatsheet_never_panics_and_names_the_file(text in mutated("cheatsheets/03-agentic-rl.md")) {
        check_content_with("cheatsheets/03-agentic-rl.md", &text)?;
    }
}

/// Markdown: random text, or edits of a shipped sheet's body.
fn markdown() -> impl Strategy<Value = String> {
    // The first part of a shipped sheet's body (whole lines, about 6000 bytes).
    let body = |t: String| {
        let b = t.split_once("\n+++\n").map_or(t.clone(), |(_, b)| b.to_string());
        let mut end = 0;
        for line in b.split_inclusive('\n') {
            if end > 6000 {
                break;
            }
            end += line.len();
        }
        b[..end].to_string()
    };
    prop_oneof![
        2 => any::<String>(),
        2 => proptest::collection::vec(proptest::sample::select(SNIPPETS), 0..40).prop_map(|v| v.concat()),
        3 => proptest::collection::vec(edit_strategy(), 1..6)
            .prop_map(move |edits| apply(body(shipped_file("cheatsheets/03-agentic-rl.md")), &edits)),
    ]
}

proptest! {
    #![proptest_config(common::fixed_config(CASES_MARKDOWN))]
    #[test]
    fn markdown_parses_and_lays_out_at_every_width(text in markdown(), width in 1u16..=300, open_all in any::<bool>()) {
        use agentlab::markdown::Doc;
        let doc = Doc::parse(&text, &|l| Some(format!("label {l}")));
        let open: std::collections::HashSet<usize> = if open_all { (0..doc.foldables).collect() } else { Default::default() };
        for w in [1, width, 300] {
            let r = doc.layout(w, &open);
            let _ = r.to_plain_text();
            for g in 0..r.link_count() {
                let _ = r.link(g);
            }
        }
        let _ = agentlab::content::sheet::sections(&text);
        let _ = agentlab::content::sheet::unclosed_fence(&text, 0);
        let _ = agentlab::content::links::scan_links(&text);
    }
}

/// A line of metrics.jsonl: an event, a torn event, or junk (bytes, not always UTF-8).
fn metrics_line() -> impl Strategy<Value = Vec<u8>> {
    let value = prop_oneof![any::<f64>(), -1e6..1e6f64, Just(f64::NAN), Just(f64::INFINITY)];
    let event =
        prop_oneof![
            (any::<u64>(), "[a-z_]{0,12}", value.clone(), value.clone())
                .prop_map(|(step, name, value, t)| Event::Metric { step, name, value, t }),
            (any::<u64>(), any::<u64>(), any::<u64>()).prop_map(|(step, total, tokens)| Event::Progress {
                step,
                total,
                tokens
            }),
            any::<String>().prop_map(Event::Phase),
            any::<String>().prop_map(Event::Log),
        ];
    prop_oneof![
        6 => event.clone().prop_map(|e| serde_json::to_vec(&e).unwrap()),
        2 => (event, 0.0..1.0f64).prop_map(|(e, cut)| {
            let b = serde_json::to_vec(&e).unwrap();
            b[..(b.len() as f64 * cut) as usize].to_vec()
        }),
        1 => proptest::collection::vec(any::<u8>(), 0..60),
        1 => proptest::sample::select(vec![
            "{}", "{\"type\":\"metric\"}", "{\"type\":\"finished\",\"data\":{}}", "null", "[]", "\u{feff}",
            "{\"type\":\"metric\",\"data\":{\"step\":-1,\"name\":\"x\",\"value\":1,\"t\":0}}",
            "{\"type\":\"progress\",\"data\":{\"step\":5,\"total\":0,\"tokens\":0}}",
        ]).prop_map(|s| s.as_bytes().to_vec()),
    ]
}

fn config_file() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(prop_oneof![
        Just("drill = \"sft-basics\"\npreset = \"quick\"\nseed = 1\ndevice = \"cpu\"\n\n[params]\n".to_string()),
        any::<String>(),
    ])
}

fn report_file() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(prop_oneof![
        Just(r#"{"drill":"sft-basics","preset":"quick","seed":1,"status":{"status":"cancelled"},"claims":[],"wall_s":1.0,"finals":{}}"#.to_string()),
        Just(r#"{"drill":"sft-basics","preset":"quick","seed":1,"status":{"status":"failed","message":"x"},"claims":[],"wall_s":1.0,"finals":{}}"#.to_string()),
        any::<String>(),
    ])
}

proptest! {
    #![proptest_config(common::fixed_config(CASES_METRICS))]
    #[test]
    fn saved_runs_load_draw_and_export_whatever_metrics_jsonl_holds(
        lines in proptest::collection::vec(metrics_line(), 0..40),
        config in config_file(),
        report in report_file(),
    ) {
        use agentlab::runner;
        use agentlab::tui::screens::drill;
        let home = tempfile::tempdir().unwrap();
        let runs_root = home.path().join("runs");
        let dir = runs_root.join("sft-basics/2026-01-01T00-00-00");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("metrics.jsonl"), lines.join(&b'\n')).unwrap();
        if let Some(c) = &config {
            std::fs::write(dir.join("config.toml"), c).unwrap();
        }
        if let Some(r) = &report {
            std::fs::write(dir.join("report.json"), r).unwrap();
        }
        // What `export` does.
        let events = runner::load_events(&dir).unwrap();
        let record = runner::load_run(&dir);
        let _ = runner::incomplete(&record, &events);
        let _ = runner::series(&events);
        let csv = agentlab::plot::csv(&dir).unwrap();
        prop_assert!(csv.starts_with("series,step,t,value\n"));
        match agentlab::plot::render_run(&dir, agentlab::plot::Format::Svg, Default::default()) {
            Ok(svg) => prop_assert!(String::from_utf8_lossy(&svg).contains("<svg")),
            Err(e) => prop_assert!(e.to_string().contains("no metric points"), "{e}"),
        }
        // What the Runs tab does: list the run, open it (4 focuses the list, Enter), draw the charts.
        let content = Content::embedded().unwrap();
        let meta = content.drill("sft-basics").unwrap();
        let mut state = drill::State::new(meta, runs_root, home.path().join("sweeps"), Default::default());
        for code in [crossterm::event::KeyCode::Char('4'), crossterm::event::KeyCode::Enter] {
            let _ = state.on_key(crossterm::event::KeyEvent::new(code, crossterm::event::KeyModifiers::NONE));
        }
        // The run is read off the UI thread: shown once a poll finds it read.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while state.working() && std::time::Instant::now() < until {
            state.poll();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        prop_assert_eq!(state.viewing.as_deref(), Some("2026-01-01T00-00-00"));
        for tab in ['1', '3', '4'] {
            let _ = state.on_key(crossterm::event::KeyEvent::new(
                crossterm::event::KeyCode::Char(tab),
                crossterm::event::KeyModifiers::NONE,
            ));
            let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 30)).unwrap();
            term.draw(|f| drill::draw(f, f.area(), &state)).unwrap();
        }
    }
}

/// A value typed after `--set key=`: numbers of every shape, and words.
fn set_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        any::<f64>().prop_map(|x| format!("{x:e}")),
        "[0-9]{15,30}",
        "-?[0-9]{0,3}(\\.[0-9]{0,3})?(e-?[0-9]{1,4})?",
        "[ a-zA-Z0-9_.+-]{0,16}",
        proptest::sample::select(vec![
            "", " ", "-", "+", ".", "e", "1e", "nan", "NaN", "inf", "-inf", "infinity", "1e999", "-1e999", "0x10",
            "1_000", "true", "on", "yes", "1", "0", "y", "TRUE", "full", "quick", "sum", "mean", "é", "٣",
        ])
        .prop_map(str::to_string),
    ]
}

proptest! {
    #![proptest_config(common::fixed_config(CASES_SET))]
    #[test]
    fn set_values_are_parsed_or_refused_with_a_message(
        drill_index in 0usize..5,
        preset in proptest::sample::select(vec!["quick", "full", "turbo"]),
        sets in proptest::collection::vec((any::<proptest::sample::Index>(), "[a-z_]{0,10}", any::<bool>(), set_value()), 1..4),
    ) {
        static CONTENT: std::sync::OnceLock<Content> = std::sync::OnceLock::new();
        let content = CONTENT.get_or_init(|| Content::embedded().unwrap());
        let meta = &content.drills[drill_index % content.drills.len()];
        let pairs: Vec<(String, String)> = sets
            .iter()
            .map(|(i, random_key, real, v)| {
                let key = if *real { meta.params[i.index(meta.params.len())].key.clone() } else { random_key.clone() };
                (key, v.clone())
            })
            .collect();
        // Each value alone, through its parameter's parser.
        for (k, v) in &pairs {
            if let Some(spec) = meta.param(k) {
                if let Err(e) = spec.parse_str(v) {
                    prop_assert!(e.starts_with(&format!("{k}: ")), "{e}");
                }
            }
        }
        // The whole set, as `drill run --set` resolves it (and the drill's own check).
        match agentlab::runner::resolve_params(meta, preset, &pairs) {
            Ok(values) => prop_assert!(agentlab::runner::check_params(meta, &values).is_ok()),
            Err(e) => {
                prop_assert!(!e.trim().is_empty());
                for debug in ["Some(", "ParseIntError", "ParseFloatError", "IntErrorKind", "kind:"] {
                    prop_assert!(!e.contains(debug), "a Rust value shown: {e}");
                }
            }
        }
    }
}
