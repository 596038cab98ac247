//! What the lab does with hostile input and a hostile filesystem: a FIFO
//! where a file belongs, a full stdout, a script that sleeps, a lock held by
//! another agentlab, a write that fails in the middle of a run, escape
//! sequences in content. Each case once ended in a hang, a panic, a lost
//! record reported as saved, or a retitled terminal.

mod common;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Wait for `child` at most `limit` (a guard against a hang, not a timing):
/// `None` when it had to be killed. Its output is read meanwhile (a full
/// pipe would block it).
fn finish(mut child: Child, limit: Duration) -> Option<Output> {
    use std::io::Read;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    Some(Output { status: status?, stdout, stderr })
}

fn run(c: &mut Command, limit: Duration) -> Output {
    let child = c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    finish(child, limit).expect("the command hung")
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(st.success(), "mkfifo {}", path.display());
}

/// A FIFO named progress.json once blocked every command in its open,
/// `--version` included; now it is refused as not a regular file.
#[test]
fn a_fifo_in_the_data_directory_hangs_nothing() {
    let home = tempfile::tempdir().unwrap();
    mkfifo(&home.path().join("progress.json"));
    let o = run(common::agentlab(home.path()).arg("--version"), Duration::from_secs(60));
    assert!(o.status.success() && text(&o).0.starts_with("agentlab "), "{:?}", text(&o));
    let o = run(common::agentlab(home.path()).arg("progress"), Duration::from_secs(60));
    let (out, err) = text(&o);
    assert!(format!("{out}{err}").contains("a FIFO, not a regular file"), "{out}{err}");
    // A FIFO report.json in a run directory: the run lists as corrupt, nothing waits on it.
    let run_dir = common::saved_run(&home.path().join("runs"), "2026-04-01T09-30-00", 3, 3, None);
    mkfifo(&run_dir.join("report.json"));
    let o = run(common::agentlab(home.path()).args(["runs", "list", "sft-basics"]), Duration::from_secs(60));
    assert!(!text(&o).1.contains("panicked"), "{:?}", text(&o));
    // A FIFO or a device as a learner's script is refused, not read forever.
    let fifo = home.path().join("mine.rhai");
    mkfifo(&fifo);
    for file in [fifo.to_str().unwrap(), "/dev/zero"] {
        let o = run(
            common::agentlab(home.path()).args(["exercise", "check", "discounted-returns", "--file", file]),
            Duration::from_secs(60),
        );
        assert_eq!(o.status.code(), Some(2), "{file}: {:?}", text(&o));
        assert!(text(&o).1.contains("not a regular file"), "{file}: {}", text(&o).1);
    }
}

/// A script file larger than the limit is refused before it is compiled.
#[test]
fn a_script_file_has_a_size_limit() {
    let home = tempfile::tempdir().unwrap();
    let big = home.path().join("big.rhai");
    let body = "fn discounted_returns(rewards, gamma) { rewards }\n".repeat(8000);
    std::fs::write(&big, body).unwrap();
    let o = run(
        common::agentlab(home.path()).args([
            "exercise",
            "check",
            "discounted-returns",
            "--file",
            big.to_str().unwrap(),
        ]),
        Duration::from_secs(60),
    );
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(text(&o).1.contains("larger than"), "{}", text(&o).1);
}

/// Writing to a full stdout is an error message and exit 2, not a panic (exit 101).
#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let home = tempfile::tempdir().unwrap();
    for args in [&["drill", "list"][..], &["sheets"], &["drill", "show", "sft-basics"], &["exercise", "list"]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = common::agentlab(home.path()).args(args).stdout(full).stderr(Stdio::piped()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked") && err.contains("No space left on device"), "{args:?}: {err}");
    }
}

/// `sleep` once blocked a check past every deadline; now it is an error, and
/// the check ends with the script's failure.
#[test]
fn sleep_in_a_script_is_refused_and_the_check_ends() {
    let home = tempfile::tempdir().unwrap();
    let f = home.path().join("sleepy.rhai");
    std::fs::write(&f, "fn discounted_returns(rewards, gamma) { sleep(100000); rewards }\n").unwrap();
    let o = run(
        common::agentlab(home.path()).args(["exercise", "check", "discounted-returns", "--file", f.to_str().unwrap()]),
        Duration::from_secs(120),
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(format!("{out}{err}").contains("sleep is not available here"), "{out}{err}");
}

/// A check whose record cannot be saved (another agentlab holds the lock
/// the whole time) exits 1 and names the file; one that waits for a lock
/// released a little later is saved, as a quiz's rating is.
#[test]
fn a_check_lost_to_the_lock_is_said_and_fails_and_a_retry_saves_it() {
    let home = tempfile::tempdir().unwrap();
    let f = home.path().join("mine.rhai");
    // The exercise's own solution: the check passes, so the exit status is the save's.
    let exercise: toml::Value = toml::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/discounted-returns.toml"))
            .unwrap(),
    )
    .unwrap();
    std::fs::write(&f, exercise["solution"].as_str().unwrap()).unwrap();
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(home.path().join("progress.json.lock"))
        .unwrap();
    lock.lock().unwrap();
    let check = || {
        common::agentlab(home.path())
            .args(["exercise", "check", "discounted-returns", "--file", f.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let o = finish(check(), Duration::from_secs(120)).expect("hung");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "a passing check whose record was lost is not a success: {out}{err}");
    assert!(err.contains("progress NOT saved") && err.contains("progress.json.lock"), "{err}");
    assert!(!home.path().join("progress.json").exists());
    // Released after the first wait: the retry takes the lock and saves.
    let child = check();
    std::thread::sleep(Duration::from_secs(4));
    lock.unlock().unwrap();
    let o = finish(child, Duration::from_secs(120)).expect("hung");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "a passing check, saved: {out}{err}");
    assert!(!err.contains("NOT saved"), "{err}");
    let saved = std::fs::read_to_string(home.path().join("progress.json")).unwrap();
    assert!(saved.contains("discounted-returns"), "{saved}");
}

/// A run whose metrics cannot all be written (here a file size limit makes
/// the writes fail, as a full disk does) is not "saved": it says which file
/// and exits 1, and its report says it failed.
#[test]
fn a_run_that_cannot_write_its_metrics_is_not_saved() {
    let home = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_agentlab");
    let mut c = Command::new("sh");
    // SIGXFSZ ignored: a write past the limit fails with EFBIG instead of killing the process.
    c.arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f 48; exec '{bin}' drill run sft-basics --set steps=300 --seed 1"))
        .env("AGENTLAB_HOME", home.path())
        .env("AGENTLAB_LANG", "en");
    let o = run(&mut c, Duration::from_secs(300));
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("NOT saved completely"), "{out}");
    assert!(!out.contains("saved in"), "{out}");
    assert!(err.contains("metrics.jsonl"), "the error names the file: {err}");
    // Its models could not be written either: nothing says the metrics and report were saved.
    assert!(!err.contains("are saved"), "{err}");
}

/// Escape sequences in content (a title that would retitle the terminal
/// and clear it) come out of the headless commands as text.
#[test]
fn escape_sequences_in_content_are_shown_not_sent() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    for sub in ["cheatsheets", "quizzes", "drills", "exercises"] {
        copy_dir(&root.join(sub), &dir.path().join(sub));
    }
    let sheet = dir.path().join("cheatsheets/00-prereq.md");
    let text0 = std::fs::read_to_string(&sheet).unwrap();
    let evil = text0
        .replacen("title = \"Prerequisites", "title = \"\\u001b]2;pwned\\u0007\\u001b[2JPrerequisites", 1)
        .replacen("\n# Prerequisites", "\n# \u{1b}[H\u{1b}[Jcleared Prerequisites", 1);
    assert_ne!(evil, text0);
    std::fs::write(&sheet, evil).unwrap();
    // The translation's heading too: the escape shown as text has digits, which a translation keeps.
    let zh = dir.path().join("cheatsheets/00-prereq.zh.md");
    let translated = std::fs::read_to_string(&zh).unwrap().replacen("\n# ", "\n# \u{1b}[H\u{1b}[Jcleared ", 1);
    std::fs::write(&zh, translated).unwrap();
    let home = tempfile::tempdir().unwrap();
    for args in [&["sheets"][..], &["sheet", "0"]] {
        let o = run(common::agentlab(home.path()).arg("--content").arg(dir.path()).args(args), Duration::from_secs(60));
        let (out, err) = text(&o);
        assert!(o.status.success(), "{args:?}: {err}");
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{args:?}: {out:?}");
        let shown = if args[0] == "sheets" { "\\u001b]2;pwned" } else { "\\u{1b}[H\\u{1b}[Jcleared" };
        assert!(out.contains(shown), "{args:?}: shown as text: {out}");
    }
}

/// A garbage metrics file exports nothing, and says so with exit 2.
#[test]
fn a_garbage_metrics_file_is_not_exported_as_an_empty_run() {
    let home = tempfile::tempdir().unwrap();
    let run_dir = common::saved_run(&home.path().join("runs"), "2026-04-01T09-30-00", 3, 3, None);
    std::fs::write(run_dir.join("metrics.jsonl"), "not json\n{\"also\": \"not an event\"}\n").unwrap();
    let o = run(
        common::agentlab(home.path()).args(["export", run_dir.to_str().unwrap(), "--csv"]),
        Duration::from_secs(60),
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("has no metric point") && err.contains("2 lines"), "{err}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// 8,000 nested quotes appended to a sheet once took 5 GB to print (and
/// killed the TUI with the terminal raw); now the sheet prints under a
/// memory limit well below that, and `validate` warns about the depth.
#[test]
fn deeply_nested_content_prints_in_bounded_memory_and_validate_warns() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    for sub in ["cheatsheets", "quizzes", "drills", "exercises"] {
        copy_dir(&root.join(sub), &dir.path().join(sub));
    }
    // Both languages: a translation keeps the English one's structure.
    for name in ["00-prereq.md", "00-prereq.zh.md"] {
        let sheet = dir.path().join("cheatsheets").join(name);
        let mut text0 = std::fs::read_to_string(&sheet).unwrap();
        text0.push_str(&format!("\n\n{}deep\n", "> ".repeat(8000)));
        std::fs::write(&sheet, text0).unwrap();
    }
    let home = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_agentlab");
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v 3000000; exec '{bin}' --content '{}' sheet 0", dir.path().display()))
        .env("AGENTLAB_HOME", home.path())
        .env("AGENTLAB_LANG", "en");
    let o = run(&mut c, Duration::from_secs(120));
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("deep"), "the deep text is still there");
    let mut c = common::agentlab(home.path());
    c.arg("--content").arg(dir.path()).arg("validate");
    let o = run(&mut c, Duration::from_secs(120));
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("warning:") && out.contains("nested 8000 levels deep"), "{out}");
}

/// 8,000 nested quotes (16 KB of `> `) or 2,000 nested lists once took
/// gigabytes: every line carried every container's prefix. Beyond
/// MAX_NESTING levels a block is laid out like the deepest drawn one, so
/// what is drawn grows linearly with the depth, not with its square.
#[test]
fn deep_nesting_is_drawn_to_a_bounded_depth() {
    use agentlab::markdown::{Doc, MAX_NESTING};
    use std::collections::HashSet;
    let drawn = |md: &str| -> (usize, Vec<String>) {
        let doc = Doc::parse_plain(md);
        let r = doc.layout(80, &HashSet::new());
        (doc.depth, r.plain)
    };
    let bytes = |plain: &[String]| plain.iter().map(|l| l.len()).sum::<usize>();
    let (depth, half) = drawn(&format!("{}deep text", "> ".repeat(4000)));
    assert_eq!(depth, 4000);
    let (depth, full) = drawn(&format!("{}deep text", "> ".repeat(8000)));
    assert_eq!(depth, 8000);
    // Linear: twice the depth, about twice the output (quadratic would be four times), a short line per level.
    assert!(bytes(&full) < 2 * bytes(&half) + 1000, "{} then {}", bytes(&half), bytes(&full));
    assert!(bytes(&full) < 8000 * 100, "{} bytes", bytes(&full));
    assert!(full.iter().any(|l| l.ends_with("deep text") && l.matches('│').count() == MAX_NESTING));
    let lists: String = (0..2000).map(|k| format!("{}- level {k}\n", "  ".repeat(k))).collect();
    let (depth, plain) = drawn(&lists);
    assert!(depth > MAX_NESTING);
    assert!(bytes(&plain) < 2000 * 200, "{} bytes for 2,000 items", bytes(&plain));
    assert!(plain.iter().any(|l| l.contains("level 1999")));
}

const ZH_P: &str = "\n[prediction.p]\nquestion = \"问？\"\nexplain = \"答\"\n";

/// A `[[claim]]` no code measures once passed `validate` and read "pending"
/// in every run; a prediction on a metric no chart declares could never be
/// answered. Both are refused now, by name.
#[test]
fn validate_refuses_an_unmeasured_claim_and_a_prediction_on_an_undeclared_metric() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let home = tempfile::tempdir().unwrap();
    let validate = |drill: &str, extra: &str, zh: &str| {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["cheatsheets", "quizzes", "drills", "exercises"] {
            copy_dir(&root.join(sub), &dir.path().join(sub));
        }
        // The English declaration and its Chinese text (a translation must cover it).
        for (name, add) in [("drill.toml", extra), ("drill.zh.toml", zh)] {
            let toml = dir.path().join("drills").join(drill).join(name);
            let mut text0 = std::fs::read_to_string(&toml).unwrap();
            text0.push_str(add);
            std::fs::write(&toml, text0).unwrap();
        }
        let mut c = common::agentlab(home.path());
        c.arg("--content").arg(dir.path()).arg("validate");
        let o = run(&mut c, Duration::from_secs(120));
        (o.status.code(), text(&o).1)
    };
    let (code, err) = validate(
        "sft-basics",
        "\n[[claim]]\nid = \"never_measured\"\ntext = \"nothing measures this\"\nop = \">=\"\nthreshold = 0.5\n",
        "\n[claim.never_measured]\ntext = \"没有代码测量它\"\n",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("claim `never_measured` is measured by no code") && err.contains("heldout_accuracy"), "{err}");
    let (code, err) = validate(
        "sft-basics",
        "\n[[prediction]]\nid = \"p\"\nquestion = \"q?\"\nkind = \"number\"\ntolerance = 1.0\nmetric = \"no_such_series\"\nexplain = \"e\"\n",
        ZH_P,
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("metric `no_such_series`, which no `[[chart]]` series"), "{err}");
    // The same prediction on a series a chart of the drill declares loads.
    let (code, err) = validate(
        "agent-pipeline",
        "\n[[prediction]]\nid = \"p\"\nquestion = \"q?\"\nkind = \"number\"\ntolerance = 1.0\nmetric = \"base_task_loss\"\nexplain = \"e\"\n",
        ZH_P,
    );
    assert_eq!(code, Some(0), "{err}");
}
