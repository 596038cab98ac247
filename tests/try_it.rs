//! Runs keep their models, Try answers from them (headless and on the Try
//! tab), the keep rule prunes, and two runs compare.

mod common;

use common::tried::{drill_state, err, key, out, run, wait};
use std::path::{Path, PathBuf};

use agentlab::content::Content;
use agentlab::drills::try_it::TryAnswer;
use agentlab::tui::screens::drill::{self, Tab};
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use crossterm::event::KeyCode;

/// The one run directory of `drill` under `home`.
fn run_dir(home: &Path, drill: &str) -> PathBuf {
    let root = home.join("runs").join(drill);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).collect();
    dirs.sort();
    dirs.pop().unwrap()
}

/// A quick run of turn-credit-assignment keeps the warm start and the policy
/// after RL; `agentlab try` asks both a held-out question, the trained
/// agent's episode differs from the warm start's on at least one of them,
/// and the same command gives the same output twice.
#[test]
fn a_finished_run_keeps_its_models_and_try_answers_from_them() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let o = run(h, &["drill", "run", "turn-credit-assignment", "--seed", "1"]);
    assert!(o.status.success(), "{}{}", out(&o), err(&o));
    assert!(out(&o).contains("kept the models warm-start, after-rl"), "{}", out(&o));
    let dir = run_dir(h, "turn-credit-assignment");
    for f in ["models/index.json", "models/warm-start/model.safetensors", "models/after-rl/model.safetensors"] {
        assert!(dir.join(f).is_file(), "{f} missing in {}", dir.display());
    }
    let d = dir.to_str().unwrap();

    // The run's own evaluation questions, greedy: the two agents differ somewhere.
    let listed = run(h, &["try", d, "--input", "capital of Nilbu?", "--json", "--samples", "1", "--temperature", "0"]);
    assert!(listed.status.success(), "{}", err(&listed));
    let mut differs = false;
    let session_examples = {
        let meta = Content::embedded().unwrap();
        let meta = meta.drill("turn-credit-assignment").unwrap().clone();
        let record = agentlab::runner::load_run(&dir);
        agentlab::cli::runs::open_session(&meta, &record).unwrap().examples()
    };
    assert!(session_examples.len() >= 6, "{session_examples:?}");
    for q in &session_examples {
        let o = run(h, &["try", d, "--input", q, "--json", "--samples", "1", "--temperature", "0"]);
        assert!(o.status.success(), "{q}: {}", err(&o));
        let a: TryAnswer = serde_json::from_str(out(&o).trim()).unwrap();
        assert_eq!(a.columns.len(), 2);
        assert_eq!((a.columns[0].arm.as_str(), a.columns[1].arm.as_str()), ("warm-start", "after-rl"));
        let text = |i: usize| a.columns[i].samples[0].text();
        assert!(text(1).contains(&format!("capital of {}", q.trim_start_matches("capital of ").trim_end_matches('?'))));
        differs |= text(0) != text(1);
    }
    assert!(differs, "the policy after RL answers every held-out question as the warm start did");

    // Sampled: four episodes per arm, the same twice.
    let args = ["try", d, "--input", "capital of Nilbu?", "--samples", "4", "--logp"];
    let (a, b) = (run(h, &args), run(h, &args));
    assert!(a.status.success(), "{}", err(&a));
    assert_eq!(out(&a), out(&b));
    let text = out(&a);
    assert_eq!(text.matches(" #4").count(), 2, "four samples per arm:\n{text}");
    assert!(text.contains("▶ ") && text.contains("log p:") && text.contains("reward"), "{text}");

    // The Try tab on the same run: an agent loop, both arms side by side.
    common::isolated_home();
    let mut app = App::new(Content::embedded().unwrap());
    let meta = app.content.drill("turn-credit-assignment").unwrap().clone();
    let state = drill::State::new(&meta, h.join("runs"), h.join("sweeps"), Default::default());
    app.stack.push(Screen::Drill(Box::new(state)));
    wait(&mut app, 120, |d| d.shown_dir.is_some());
    key(&mut app, KeyCode::Char('6'));
    wait(&mut app, 120, |d| d.try_tab.info.is_some() || d.try_tab.error.is_some());
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    wait(&mut app, 120, |d| !d.try_tab.answering && d.try_tab.answer.is_some());
    let screen = common::screen_lines(&mut app, 120, 40).join("\n");
    for want in ["Try", "warm start", "after RL", "answer", "reward", "capital of"] {
        assert!(screen.contains(want), "{want} missing:\n{screen}");
    }
    // l colours the agent's tokens by log p: the screen says so.
    key(&mut app, KeyCode::Char('l'));
    assert!(common::screen_lines(&mut app, 120, 40).join("\n").contains("log p"));

    // Bad input: a clear message, exit 2.
    for (input, says) in [("   ", "type something first"), (&"x".repeat(200)[..], "characters is more than")] {
        let o = run(h, &["try", d, "--input", input]);
        assert_eq!(o.status.code(), Some(2), "{input:?}");
        assert!(err(&o).contains(says), "{input:?}: {}", err(&o));
    }
    let o = run(h, &["try", d, "--arm", "nope", "--input", "capital of Nilbu?"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("warm-start, after-rl"), "{}", err(&o));

    // Pruned: the message says how to get the weights back.
    agentlab::runner::kept::drop_models(&dir).unwrap();
    let o = run(h, &["try", d, "--input", "capital of Nilbu?"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("pruned")
            && err(&o).contains("agentlab drill run turn-credit-assignment --preset quick --seed 1"),
        "{}",
        err(&o)
    );
}

/// A drill whose run kept nothing, and a drill without a Try: exit 2 with the reason.
#[test]
fn runs_without_models_and_drills_without_a_try_are_refused_with_the_reason() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    // What an agentlab from before runs kept models left.
    let old = common::saved_run(&runs, "2026-11-01T10-00-00", 3, 3, Some(report("sft-basics")));
    let o = run(home.path(), &["try", old.to_str().unwrap(), "--input", "12+34"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("kept no models") && err(&o).contains("agentlab drill run sft-basics"), "{}", err(&o));
    let o = run(home.path(), &["try", "no-such-thing", "--input", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("neither a run directory nor a drill id"), "{}", err(&o));
}

fn report(drill: &str) -> agentlab::drills::Report {
    agentlab::drills::Report {
        drill: drill.into(),
        preset: "quick".into(),
        seed: 1,
        status: agentlab::drills::RunStatus::Passed,
        claims: vec![],
        wall_s: 1.0,
        finals: Default::default(),
        phases: Vec::new(),
    }
}

/// A run directory with a fake `models/` of `bytes` bytes.
fn with_models(runs: &Path, name: &str, bytes: usize) -> PathBuf {
    let dir = common::saved_run(runs, name, 2, 2, Some(report("sft-basics")));
    let m = dir.join("models");
    std::fs::create_dir_all(m.join("model")).unwrap();
    std::fs::write(m.join("model/model.safetensors"), vec![0u8; bytes]).unwrap();
    let index = serde_json::json!({
        "format": 1, "agentlab": "0.1.0", "drill": "sft-basics",
        "arms": [{"id": "model", "role": "trained", "kind": "tiny-gpt", "bytes": bytes,
                  "config": {"vocab": 16, "d_model": 8, "n_layers": 1, "n_heads": 1, "context": 8}}]
    });
    std::fs::write(m.join("index.json"), index.to_string()).unwrap();
    dir
}

/// The keep rule: the five newest runs of a drill and the pinned ones keep
/// their weights; older ones drop `models/` only (config, metrics and report
/// stay) and say so; `--dry-run` drops nothing.
#[test]
fn the_keep_rule_keeps_the_five_newest_and_the_pinned() {
    use agentlab::runner::kept::{self, Weights};
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    let dirs: Vec<PathBuf> =
        (0..8).map(|i| with_models(&runs, &format!("2026-12-0{}T10-00-00", i + 1), 100 + i)).collect();
    kept::pin(&dirs[1], true).unwrap();
    let o = run(home.path(), &["runs", "prune", "--dry-run"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o).matches("would drop").count(), 2, "{}", out(&o));
    assert!(dirs.iter().all(|d| d.join("models/index.json").is_file()), "a dry run dropped something");

    let o = run(home.path(), &["runs", "prune"]);
    assert!(out(&o).contains("2 run(s) dropped their weights"), "{}", out(&o));
    for (i, d) in dirs.iter().enumerate() {
        let keeps = i >= 3 || i == 1;
        assert_eq!(matches!(kept::weights(d), Weights::Kept { .. }), keeps, "run {i}");
        assert_eq!(matches!(kept::weights(d), Weights::Pruned), !keeps, "run {i}");
        for f in ["config.toml", "metrics.jsonl", "report.json"] {
            assert!(d.join(f).is_file(), "run {i} lost {f}");
        }
    }
    // Unpinned, the old run goes at the next prune; nothing else does.
    kept::pin(&dirs[1], false).unwrap();
    let done = kept::prune(&runs, None, false).unwrap();
    assert_eq!(done.dropped.iter().map(|d| d.dir.clone()).collect::<Vec<_>>(), vec![dirs[1].clone()]);
    assert_eq!(done.kept, 5);
}

/// `runs diff`: two runs that differ in one parameter, and one that trained
/// with a learner's function: only what differs is listed, with both values,
/// and the claims side by side.
#[test]
fn runs_diff_lists_what_differs_and_both_claim_values() {
    use agentlab::content::ParamValue;
    use agentlab::runner::RunConfig;
    let home = tempfile::tempdir().unwrap();
    let meta = Content::embedded().unwrap().drill("turn-credit-assignment").unwrap().clone();
    let params = meta.preset_values("quick").unwrap();
    let claim = |measured: f64, pass: bool| agentlab::drills::ClaimResult {
        id: "reward_gap_closed".into(),
        text: String::new(),
        measured,
        op: agentlab::content::Cmp::Ge,
        threshold: 0.5,
        pass,
        observation: false,
    };
    let save = |name: &str, config: RunConfig, measured: f64| -> PathBuf {
        let dir = home.path().join("runs/turn-credit-assignment").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.toml"), toml::to_string(&config).unwrap()).unwrap();
        std::fs::write(dir.join("metrics.jsonl"), "").unwrap();
        let mut r = report("turn-credit-assignment");
        r.claims = vec![claim(measured, measured >= 0.5)];
        std::fs::write(dir.join("report.json"), serde_json::to_string(&r).unwrap()).unwrap();
        dir
    };
    let base = RunConfig::new("turn-credit-assignment", "quick", 1, Default::default(), params.clone());
    let mut unmasked = base.clone();
    unmasked.params.insert("mask_observations".into(), ParamValue::Bool(false));
    let mut yours = base.clone();
    yours.uses.insert(
        "discounted-returns".into(),
        agentlab::exercises::plug::UsedScript { file: "my.rhai".into(), source: "fn f() {}".into() },
    );
    let a = save("2026-12-07T10-00-00", base, 0.5942);
    let b = save("2026-12-07T10-05-00", unmasked, 0.1864);
    let c = save("2026-12-07T10-10-00", yours, 0.0);

    let o = run(home.path(), &["runs", "diff", a.to_str().unwrap(), b.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", err(&o));
    let d: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let changed = d["changed"].as_array().unwrap();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0]["key"], "mask_observations");
    assert_eq!((changed[0]["a"].as_str(), changed[0]["b"].as_str()), (Some("true"), Some("false")));
    assert_eq!(d["claims"][0]["a"][0], 0.5942);
    assert_eq!(d["claims"][0]["b"][1], false);

    let o = run(home.path(), &["runs", "diff", a.to_str().unwrap(), c.to_str().unwrap()]);
    let text = out(&o);
    assert!(text.contains("use discounted-returns") && text.contains("my.rhai"), "{text}");
    assert!(text.contains("with your discounted-returns"), "{text}");
    assert!(!text.contains("mask_observations"), "{text}");

    // The Runs tab says what each run changed and which function it trained with.
    common::isolated_home();
    let mut app = App::new(Content::embedded().unwrap());
    let mut state = drill::State::new(
        &meta,
        home.path().join("runs"),
        home.path().join("sweeps"),
        agentlab::ml::device::DeviceChoice::Cpu,
    );
    state.tab = Tab::Runs;
    state.focus = drill::Focus::Pane;
    app.stack.push(Screen::Drill(Box::new(state)));
    let screen = common::screen_lines(&mut app, 160, 30).join("\n");
    assert!(screen.contains("mask_observations=false"), "{screen}");
    assert!(screen.contains("with your discounted-returns"), "{screen}");
}

/// The Try tab on a grpo-rlvr run (samples judged by both verifiers) and on
/// a turn-credit-assignment run (an agent in its loop): a typed input,
/// every arm's answer side by side, at 120×40 and 60×16.
#[test]
fn the_try_tab_asks_every_arm_and_shows_their_answers() {
    let home = common::isolated_home();
    let o = run(home, &["drill", "run", "grpo-rlvr", "--seed", "1"]);
    assert!(o.status.success(), "{}", err(&o));
    let mut app = App::new(Content::embedded().unwrap());
    let meta = app.content.drill("grpo-rlvr").unwrap().clone();
    let state = drill::State::new(&meta, home.join("runs"), home.join("sweeps"), Default::default());
    app.stack.push(Screen::Drill(Box::new(state)));
    // The newest run loads, then 6 opens Try on it.
    wait(&mut app, 120, |d| d.shown_dir.is_some());
    key(&mut app, KeyCode::Char('6'));
    wait(&mut app, 120, |d| d.try_tab.info.is_some() || d.try_tab.error.is_some());
    assert!(drill_state(&mut app).try_tab.error.is_none(), "{:?}", drill_state(&mut app).try_tab.error);
    key(&mut app, KeyCode::Char('i'));
    for c in "47+38".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    wait(&mut app, 120, |d| !d.try_tab.answering && d.try_tab.answer.is_some());
    let screen = common::screen_lines(&mut app, 120, 40).join("\n");
    for want in ["warm start", "sound arm", "proxy arm", "exact", "lenient", "47+38"] {
        assert!(screen.contains(want), "{want} missing:\n{screen}");
    }
    let a = drill_state(&mut app).try_tab.answer.clone().unwrap();
    let hedged = |i: usize| a.columns[i].samples.iter().filter(|s| s.text().contains(',')).count();
    assert!(hedged(2) > hedged(1), "the proxy arm hedges more than the sound arm: {a:#?}");
    // Small: the columns stack, nothing panics.
    let small = common::screen_lines(&mut app, 60, 16).join("\n");
    assert!(small.contains("Try"), "{small}");
    // A refused input says why on the status line.
    key(&mut app, KeyCode::Char('i'));
    for c in "hello".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    wait(&mut app, 120, |d| !d.try_tab.answering);
    let screen = common::screen_lines(&mut app, 120, 40).join("\n");
    assert!(screen.contains("type a sum like 47+38"), "{screen}");
}
