//! Exercises: every shipped solution passes its check, every stub and every
//! listed mistake fails it, a plugged-in function changes a real drill run,
//! and the headless commands keep their exit codes.

use std::process::Command;

use agentlab::content::Content;
use agentlab::exercises::{self, check};

mod common;

fn content() -> Content {
    Content::embedded().expect("embedded content loads")
}

#[test]
fn there_are_at_least_twelve_exercises_each_with_a_checker() {
    let c = content();
    assert!(c.exercises.len() >= 12, "{} exercises", c.exercises.len());
    for x in &c.exercises {
        assert!(exercises::spec(&x.id).is_some(), "{} has no checker", x.id);
        let spec = exercises::spec(&x.id).unwrap();
        assert_eq!(spec.function, x.function, "{}", x.id);
        // The file says `plug = true` exactly where the code plugs the function into its drill.
        assert_eq!(spec.plug_drill.is_some(), x.plug, "{}: plug in the file vs in the code", x.id);
        if let Some(d) = spec.plug_drill {
            assert_eq!(x.drill.as_deref(), Some(d), "{}", x.id);
        }
    }
    let plugged = c.exercises.iter().filter(|x| x.plug).count();
    assert!(plugged >= 4, "{plugged} exercises plug into a drill");
}

#[test]
fn every_solution_passes_and_every_stub_and_mistake_fails() {
    for x in &content().exercises {
        let spec = exercises::spec(&x.id).unwrap();
        let r = check(spec, &x.solution);
        assert!(r.passed, "{}: the solution fails:\n{}", x.id, r.lines().join("\n"));
        assert_eq!(r.cases_passed, r.cases_total);
        assert!(!check(spec, &x.stub).passed, "{}: the stub passes", x.id);
        assert!(x.mistakes.len() >= 2, "{}: {} mistakes", x.id, x.mistakes.len());
        for m in &x.mistakes {
            let r = check(spec, &m.script);
            assert!(!r.passed, "{}: mistake \"{}\" passes the check", x.id, m.name);
            let f = r.failure.expect("a failure");
            // A mistake must fail on a case, not because the script is broken.
            assert!(
                f.case != "compiling the script" && f.case != "finding the function",
                "{}: mistake \"{}\" does not even run: {}",
                x.id,
                m.name,
                f.got
            );
        }
    }
}

fn bin() -> Command {
    common::agentlab(&tempfile::tempdir().unwrap().keep())
}

#[test]
fn check_exits_0_on_pass_1_on_fail_2_on_bad_input_and_records_progress() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = content();
    let x = c.exercise("ppo-clip").unwrap();
    let good = dir.path().join("good.rhai");
    std::fs::write(&good, &x.solution).unwrap();
    let run = |args: &[&str]| common::agentlab(home.path()).args(args).output().unwrap();
    let out = run(&["exercise", "check", "ppo-clip", "--file", good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    // The learner's own file starts as the stub: it fails, and --review flags the quiz items.
    let out = run(&["exercise", "check", "ppo-clip", "--review"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("first failing case") && text.contains("added to review"), "{text}");
    assert!(home.path().join("exercises/ppo-clip.rhai").exists());
    assert_eq!(run(&["exercise", "check", "no-such-exercise"]).status.code(), Some(2));
    assert_eq!(run(&["exercise", "check", "ppo-clip", "--file", "/nonexistent.rhai"]).status.code(), Some(2));
    let json = run(&["exercise", "check", "ppo-clip", "--file", good.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["passed"], true);
    let progress: serde_json::Value =
        serde_json::from_slice(&std::fs::read(home.path().join("progress.json")).unwrap()).unwrap();
    assert!(progress["exercises"]["ppo-clip"]["passed_at"].is_string(), "{progress}");
    assert_eq!(progress["exercises"]["ppo-clip"]["checks"], 3);
    for id in &x.quiz {
        assert!(progress["flagged"][id].is_string(), "{id} not flagged: {progress}");
    }
    let list = run(&["exercise", "list"]);
    assert!(String::from_utf8_lossy(&list.stdout).contains("✓ done"));
}

#[test]
fn use_refuses_an_exercise_of_another_drill_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.rhai");
    std::fs::write(&f, "fn reservoir_push(b, c, s, i) { b }").unwrap();
    let arg = format!("reservoir={}", f.display());
    let out = bin().args(["drill", "run", "grpo-rlvr", "--use", &arg]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("plugs into drill ewc-replay"));
    let out = bin().args(["drill", "run", "ewc-replay", "--use", "reservoir=/nonexistent.rhai"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// An indented formula line in a task would be joined to its neighbours by the
/// Markdown renderer (`h = r_c − r_r L = −log σ(h)`): formulas go in a fenced
/// block, one per line, in every language.
#[test]
fn task_formulas_are_fenced_not_indented() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let doc: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
        let Some(task) = doc.get("task").and_then(|t| t.as_str()) else { continue };
        files += 1;
        let mut fenced = false;
        for line in task.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            } else if !fenced && line.starts_with("  ") && !line.trim_start().starts_with(['-', '*']) {
                panic!("{}: an indented line outside a fenced block: {line:?}", path.display());
            }
        }
    }
    assert!(files >= 24, "{files} exercise files with a task");
}

/// `exercise watch` checks at once, then again when the file is saved with
/// other contents (here stopped after two checks by `--checks 2`).
#[test]
fn watch_checks_again_on_every_save() {
    use std::io::{BufRead, BufReader};
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = content();
    let x = c.exercise("ppo-clip").unwrap();
    let file = dir.path().join("mine.rhai");
    std::fs::write(&file, &x.stub).unwrap();
    let mut child = common::agentlab(home.path())
        .args(["exercise", "watch", "ppo-clip", "--checks", "2", "--file", file.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    // The first check, then the line that waits for a save.
    while !seen.contains("waiting for the next save") {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "ended early:\n{seen}");
        seen.push_str(&line);
    }
    assert!(seen.contains("watching ") && seen.contains("FAIL  ppo-clip"), "{seen}");
    std::fs::write(&file, &x.solution).unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(rest.contains("PASS  ppo-clip"), "the save was checked:\n{rest}");
    assert_eq!(status.code(), Some(0), "the last check passed");
}
