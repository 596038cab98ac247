//! The headless commands, run as a user would run them.

use std::path::Path;
use std::process::{Command, Output};

fn agentlab(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_agentlab")).args(args).env("AGENTLAB_HOME", home.path()).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn sheet_prints_rendered_text() {
    let o = agentlab(&["sheet", "3"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("Group-relative advantages"));
    assert!(out.contains("Âᵢ"), "formulas come out as Unicode");
    assert!(!out.contains("\\frac") && !out.contains("$$"));
    assert!(out.contains("╭─"), "code blocks are framed");
    // Answers are unfolded in plain text.
    assert!(out.contains("▼ "));
    // The slug works too, and width is honoured.
    let o = agentlab(&["sheet", "agentic-rl", "--width", "60"]);
    let (out, _) = text(&o);
    assert!(out.lines().all(|l| unicode_width::UnicodeWidthStr::width(l) <= 60));
}

#[test]
fn sheets_lists_every_track() {
    let o = agentlab(&["sheets"]);
    let (out, _) = text(&o);
    assert!(o.status.success());
    for n in 0..8 {
        assert!(out.lines().any(|l| l.starts_with(&format!("{n} "))), "track {n}:\n{out}");
    }
}

#[test]
fn version_and_help() {
    let (out, _) = text(&agentlab(&["--version"]));
    assert!(out.starts_with("agentlab "), "{out}");
    let (out, _) = text(&agentlab(&["--help"]));
    for cmd in ["sheets", "sheet", "validate"] {
        assert!(out.contains(cmd), "{cmd} in help:\n{out}");
    }
}

#[test]
fn unknown_track_is_a_clear_error() {
    let o = agentlab(&["sheet", "9"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("unknown track \"9\""), "{err}");
}

#[test]
fn bad_content_dir_is_a_clear_error() {
    let o = agentlab(&["--content", "/definitely/not/here", "sheets"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("/definitely/not/here") && err.contains("not a directory"), "{err}");

    let empty = tempfile::tempdir().unwrap();
    let o = agentlab(&["--content", empty.path().to_str().unwrap(), "sheets"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("does not look like a content directory"), "{err}");
}

/// Copy the shipped content, break one quiz item, and expect the file and item named.
#[test]
fn edited_content_errors_name_file_and_item() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    for sub in ["cheatsheets", "quizzes", "drills"] {
        copy_dir(&root.join(sub), &dir.path().join(sub));
    }
    let quiz = dir.path().join("quizzes/03-agentic-rl.toml");
    let text_q = std::fs::read_to_string(&quiz).unwrap();
    let first_tol = text_q.find("tolerance").expect("track 3 has a numeric item");
    let line_end = first_tol + text_q[first_tol..].find('\n').unwrap();
    let broken = format!("{}{}", &text_q[..first_tol], &text_q[line_end + 1..]);
    std::fs::write(&quiz, broken).unwrap();
    let o = agentlab(&["--content", dir.path().to_str().unwrap(), "validate"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("quizzes/03-agentic-rl.toml") && err.contains("numeric answer without `tolerance`"), "{err}");
    assert!(err.contains(": item arl-"), "names the item: {err}");

    // An unchanged copy validates.
    let ok = tempfile::tempdir().unwrap();
    for sub in ["cheatsheets", "quizzes", "drills"] {
        copy_dir(&root.join(sub), &ok.path().join(sub));
    }
    let o = agentlab(&["--content", ok.path().to_str().unwrap(), "validate"]);
    assert!(o.status.success(), "{}", text(&o).1);
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

#[test]
fn drill_commands_and_exit_codes() {
    let (out, _) = text(&agentlab(&["drill", "list"]));
    assert!(out.contains("sft-basics"));
    let (out, _) = text(&agentlab(&["drill", "show", "sft-basics"]));
    assert!(out.contains("heldout_accuracy") && out.contains("lr"), "{out}");

    let o = agentlab(&["drill", "run", "no-such-drill"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("unknown drill"));
    let o = agentlab(&["drill", "run", "sft-basics", "--set", "colour=blue"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("no parameter \"colour\""), "{}", text(&o).1);
    let o = agentlab(&["drill", "run", "sft-basics", "--set", "lr=7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("above the maximum"));
    let o = agentlab(&["drill", "run", "sft-basics", "--set", "lr"]);
    assert_eq!(o.status.code(), Some(2));

    // A run too short to learn: claims fail → exit 1, with the claims table printed.
    let o = agentlab(&["drill", "run", "sft-basics", "--set", "steps=2", "--set", "holdout=50"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("heldout_accuracy") && out.contains("FAIL"), "{out}");
    // --json prints one event per line, ending with the report.
    let o = agentlab(&["drill", "run", "sft-basics", "--set", "steps=2", "--set", "holdout=50", "--json"]);
    let (out, _) = text(&o);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "finished");
    assert_eq!(last["data"]["status"]["status"], "claims_failed");
}

#[test]
fn doctor_reports_the_cpu_build() {
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_agentlab"))
            .args(args)
            .env("AGENTLAB_HOME", home.path())
            .env("RAYON_NUM_THREADS", "2")
            .output()
            .unwrap()
    };
    let o = run(&["doctor"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    if cfg!(not(feature = "cuda")) {
        assert!(out.contains("features: cuda no"), "{out}");
        assert!(out.contains("cuda: not compiled in") && out.contains("scripts/build-cuda.sh"), "{out}");
        assert!(out.contains("--device auto picks: cpu"), "{out}");
    }
    assert!(out.contains("SIMD "), "{out}");
    assert!(out.contains("rayon 2 (RAYON_NUM_THREADS=2)"), "{out}");
    assert!(out.contains(&format!("data dir: {}", home.path().display())), "{out}");

    let o = run(&["doctor", "--json"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["features"]["cuda"], cfg!(feature = "cuda"));
    assert_eq!(v["data_dir"], home.path().display().to_string());
    assert!(v["cpu"]["cores"].as_u64().unwrap() >= 1);
    assert_eq!(v["threads"]["rayon"], 2);
    assert_eq!(v["cuda"]["libraries"].as_array().unwrap().len(), 6);
    if cfg!(not(feature = "cuda")) {
        assert!(v["cuda"]["error"].as_str().unwrap().contains("not compiled"), "{out}");
        assert!(v["auto_device"].as_str().unwrap().starts_with("cpu"), "{out}");
    }
}

#[test]
fn bench_on_cuda_says_cuda_is_not_compiled_in() {
    if cfg!(feature = "cuda") {
        return;
    }
    let o = agentlab(&["bench", "--device", "cuda", "--json", "--only", "S"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("without CUDA") && err.contains("scripts/build-cuda.sh"), "{err}");
}
