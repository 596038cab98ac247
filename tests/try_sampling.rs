//! Try on sft-basics, pass-at-k-harness, dpo-pairs, self-refine-loop and
//! prompt-injection: a quick run of each (once per drill, shared by its
//! tests), then `agentlab try` on it, asserting what each Try must show —
//! properties that read the run's trained weights beside its start's, so
//! they fail when the wrong weights (or untrained ones) are loaded — and
//! the Try tab on a sampling Try and on an agent in its loop.

mod common;

use common::tried::{drill_state, err, key, out, wait};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use agentlab::content::Content;
use agentlab::drills::try_it::{TryAnswer, TryColumn, TrySample};
use agentlab::drills::TokenKind;
use agentlab::tui::screens::drill;
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use crossterm::event::KeyCode;

/// The directory of a quick seed-1 run of `drill`, run once per test binary.
fn quick(drill: &'static str) -> &'static Path {
    static RUNS: [OnceLock<PathBuf>; 5] = [const { OnceLock::new() }; 5];
    let drills = ["sft-basics", "pass-at-k-harness", "dpo-pairs", "self-refine-loop", "prompt-injection"];
    let i = drills.iter().position(|d| *d == drill).expect("a drill of this file");
    RUNS[i].get_or_init(|| {
        let home = common::isolated_home();
        let o = common::agentlab(home).args(["drill", "run", drill, "--seed", "1"]).output().unwrap();
        assert!(o.status.success(), "{drill}: {}{}", out(&o), err(&o));
        assert!(out(&o).contains("kept the models"), "{drill}: {}", out(&o));
        let root = home.join("runs").join(drill);
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).collect();
        dirs.sort();
        dirs.pop().unwrap()
    })
}

/// The arms the run kept, in order (`models/index.json`).
fn kept_arms(dir: &Path) -> Vec<String> {
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("models/index.json")).unwrap()).unwrap();
    index["arms"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap().to_string()).collect()
}

/// The session's held-out examples, as the Try tab lists them.
fn examples(drill: &str, dir: &Path) -> Vec<String> {
    let meta = Content::embedded().unwrap().drill(drill).unwrap().clone();
    let record = agentlab::runner::load_run(dir);
    agentlab::cli::runs::open_session(&meta, &record).unwrap().examples()
}

/// `agentlab try DIR --json ARGS`, one input per line of stdin: one answer per input.
fn try_json(dir: &Path, inputs: &[String], args: &[&str]) -> Vec<TryAnswer> {
    let mut cmd = common::agentlab(common::isolated_home());
    cmd.args(["try", dir.to_str().unwrap(), "--json"]).args(args);
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        for i in inputs {
            writeln!(stdin, "{i}").unwrap();
        }
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    let answers: Vec<TryAnswer> = out(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), inputs.len(), "{}", err(&o));
    answers
}

/// `agentlab try DIR --input INPUT`: exit 2 with a message containing `says`.
fn refused(dir: &Path, input: &str, says: &str) {
    let o = common::agentlab(common::isolated_home())
        .args(["try", dir.to_str().unwrap(), "--input", input])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{input:?}: {}", out(&o));
    assert!(err(&o).contains(says), "{input:?}: {}", err(&o));
}

fn column<'a>(a: &'a TryAnswer, arm: &str) -> &'a TryColumn {
    a.columns.iter().find(|c| c.arm == arm).unwrap_or_else(|| panic!("no column {arm}: {a:#?}"))
}

/// The value of a verdict named `name` of a summary or a sample.
fn value<'a>(vs: &'a [agentlab::drills::try_it::Verdict], name: &str) -> &'a str {
    vs.iter().find(|v| v.name == name).map(|v| v.value.as_str()).unwrap_or_else(|| panic!("no {name} in {vs:?}"))
}

/// `c` of a `c/n` value.
fn count(v: &str) -> usize {
    v.split('/').next().unwrap().parse().unwrap()
}

fn good(s: &TrySample, name: &str) -> Option<bool> {
    s.verdicts.iter().find(|v| v.name == name).and_then(|v| v.good)
}

/// sft-basics keeps its random init and the trained model; on the run's
/// held-out sums the trained one writes the sum (greedy) where the init
/// writes noise, and gives the right answer more probability on every one.
#[test]
fn sft_basics_try_shows_what_training_bought() {
    let dir = quick("sft-basics");
    assert_eq!(kept_arms(dir), ["random-init", "trained"]);
    let ex = examples("sft-basics", dir);
    assert_eq!(ex.len(), 12, "{ex:?}");
    let answers = try_json(dir, &ex, &["--samples", "1", "--temperature", "0"]);
    let (mut trained, mut init) = (0, 0);
    for a in &answers {
        assert!(a.notes[0].contains("held-out sum"), "{:?}", a.notes);
        let exact = |arm: &str| good(&column(a, arm).samples[0], "exact") == Some(true);
        trained += usize::from(exact("trained"));
        init += usize::from(exact("random-init"));
        let p = |arm: &str| value(&column(a, arm).summary, "p(gold)").parse::<f64>().unwrap();
        assert!(p("trained") > 100.0 * p("random-init"), "{a:#?}");
    }
    assert!(trained >= 10 && init == 0, "trained right on {trained}/12, the random init on {init}/12");
    // Sampled at temperature 1: the same seed gives the same samples, another seed others (from the random init).
    let twice = [try_json(dir, &ex[..3], &[]), try_json(dir, &ex[..3], &[])];
    assert_eq!(twice[0], twice[1]);
    assert_ne!(try_json(dir, &ex[..3], &["--seed", "2"]), twice[0]);
    refused(dir, "hello", "type a sum like 47+38");
    refused(dir, "123+4", "at most 2 digits");
}

/// pass-at-k-harness: the same held-out sums in the trained prompt format
/// and in the format the model never saw; the trained format's samples are
/// right far more often (strict), the lenient extractors read hedges the
/// strict one refuses, and the random init is right nowhere.
#[test]
fn pass_at_k_try_moves_with_the_format_and_the_extractor() {
    let dir = quick("pass-at-k-harness");
    assert_eq!(kept_arms(dir), ["random-init", "warm-start"]);
    let ex = examples("pass-at-k-harness", dir);
    assert_eq!(ex.len(), 12, "{ex:?}");
    // The first four problems, in the trained format and in the spaced one.
    assert!(ex[8].contains(" + ") && ex[8].replace(' ', "") == ex[0], "{ex:?}");
    let answers = try_json(dir, &ex, &[]);
    let strict = |a: &TryAnswer| count(value(&column(a, "warm-start").summary, "strict"));
    let trained: usize = answers[..4].iter().map(strict).sum();
    let spaced: usize = answers[8..].iter().map(strict).sum();
    assert!(trained >= spaced + 16, "strict right: {trained} of 64 as trained, {spaced} of 64 spaced");
    assert!(answers[8].notes[0].contains("never saw"), "{:?}", answers[8].notes);
    let any: usize = answers[..8].iter().map(|a| count(value(&column(a, "warm-start").summary, "any number"))).sum();
    let strict8: usize = answers[..8].iter().map(strict).sum();
    assert!(any > strict8, "any number {any}, strict {strict8}: no hedge read right");
    for a in &answers {
        assert_eq!(count(value(&column(a, "random-init").summary, "strict")), 0, "{a:#?}");
        let c = column(a, "warm-start");
        assert_eq!(c.samples.len(), 16);
        assert!(c.summary.iter().any(|v| v.name == "pass@8") && c.summary.iter().any(|v| v.name == "pass^8"));
    }
    // Named with a held-out sum in every format (`07 + 87 = (spaced)`).
    refused(dir, "47 +38", " = (spaced)");
    refused(dir, "47 +38", "(unpadded)");
}

/// dpo-pairs keeps the SFT model and the three arms trained from it; on
/// held-out sums that carry, DPO samples the planted habit (every carry
/// dropped) less often than its SFT reference, and gives it less
/// probability; every trained arm's samples carry log π/π_ref.
#[test]
fn dpo_try_shows_the_habit_pushed_down() {
    let dir = quick("dpo-pairs");
    assert_eq!(kept_arms(dir), ["sft", "dpo", "dpo-beta-compare", "sft-on-chosen"]);
    let ex = examples("dpo-pairs", dir);
    assert_eq!(ex.len(), 12, "{ex:?}");
    let answers = try_json(dir, &ex, &[]);
    let habits =
        |arm: &str| -> usize { answers.iter().map(|a| count(value(&column(a, arm).summary, "carries dropped"))).sum() };
    assert!(habits("dpo") < habits("sft"), "carries dropped: DPO {}, SFT {}", habits("dpo"), habits("sft"));
    let mut lower = 0;
    for a in answers.iter().filter(|a| a.notes[0].contains("drops every carry")) {
        // The summary: right, carries dropped, log p(the sum), log p(the habit's answer).
        let habit = |arm: &str| -> f64 {
            let v = &column(a, arm).summary[3];
            assert!(v.name.starts_with("log p("), "{v:?}");
            v.value.parse().unwrap()
        };
        lower += usize::from(habit("dpo") < habit("sft"));
        for arm in ["dpo", "dpo-beta-compare", "sft-on-chosen"] {
            assert!(column(a, arm).samples.iter().all(|s| s.verdicts.iter().any(|v| v.name == "log π/π_ref")));
        }
        assert!(column(a, "sft").samples.iter().all(|s| s.verdicts.iter().all(|v| v.name != "log π/π_ref")));
    }
    assert!(lower >= 8, "DPO gives the habit less probability than SFT on {lower} of the carrying sums");
}

/// self-refine-loop keeps the SFT model and the model after STaR; on the
/// held-out sums whose first draft the SFT model gets wrong, STaR's drafts
/// are right more often; every step is judged, and the self-critic switch
/// checks the model's own critiques against the verifier's.
#[test]
fn self_refine_try_drafts_critiques_revises_and_keeps() {
    let dir = quick("self-refine-loop");
    assert_eq!(kept_arms(dir), ["sft", "after-star"]);
    let ex = examples("self-refine-loop", dir);
    assert_eq!(ex.len(), 12, "{ex:?}");
    let answers = try_json(dir, &ex, &[]);
    let drafts = |arm: &str| -> usize {
        answers.iter().map(|a| count(value(&column(a, arm).summary, "first drafts right"))).sum()
    };
    assert!(
        drafts("after-star") > drafts("sft"),
        "drafts right: after STaR {}, SFT {}",
        drafts("after-star"),
        drafts("sft")
    );
    for a in &answers {
        for c in &a.columns {
            let s = &c.samples[0];
            assert!(s.verdicts[0].name == "draft" && s.verdicts.last().unwrap().name == "kept", "{s:?}");
            // The verifier critiques: keep-best never keeps a version worse than the draft.
            let kept = value(&c.summary, "kept answers right");
            assert!(count(kept) >= count(value(&c.summary, "first drafts right")), "{c:?}");
        }
    }
    let own = try_json(dir, &ex[..3], &["--switch", "self-critic=on"]);
    assert!(own[0].notes.iter().any(|n| n.contains("the model itself")), "{:?}", own[0].notes);
    let critiques = own.iter().flat_map(|a| &a.columns).flat_map(|c| &c.samples).flat_map(|s| &s.verdicts);
    assert!(critiques.filter(|v| v.name.starts_with("critique of the")).count() >= 3);
}

/// prompt-injection: five columns (the clean start, undefended, the
/// training defence, spotlighting, the allow-list); with the attack on, the
/// injected sentence is coloured in the tool's reply and the undefended
/// agent follows it more often than the one trained against it; with the
/// attack off, nothing is injected.
#[test]
fn prompt_injection_try_attacks_and_marks_the_injection() {
    let dir = quick("prompt-injection");
    assert_eq!(kept_arms(dir), ["clean", "undefended", "training-defence", "spotlight"]);
    let ex = examples("prompt-injection", dir);
    assert!(ex.len() >= 8, "{ex:?}");
    let answers = try_json(dir, &ex, &[]);
    let followed = |arm: &str| -> usize {
        answers.iter().map(|a| count(value(&column(a, arm).summary, "followed the injection"))).sum()
    };
    assert!(
        followed("undefended") > followed("training-defence"),
        "followed: undefended {}, trained against injections {}",
        followed("undefended"),
        followed("training-defence")
    );
    let injected = |a: &TryAnswer| {
        a.columns.iter().flat_map(|c| &c.samples).any(|s| s.cells.iter().any(|c| c.kind == TokenKind::Injected))
    };
    assert!(answers.iter().all(|a| a.columns.len() == 5 && a.notes[1].contains("met in the run")));
    assert!(answers.iter().filter(|a| injected(a)).count() >= ex.len() / 2);
    let off = try_json(dir, &ex[..4], &["--switch", "attack=off"]);
    assert!(off.iter().all(|a| !injected(a) && a.notes[1].contains("attack off")));
    assert!(off.iter().flat_map(|a| &a.columns).all(|c| c.summary.iter().all(|v| v.name != "followed the injection")));
    refused(dir, "   ", "type something first");
}

/// The Try tab of `drill` on its quick run, opened.
fn try_tab(drill_id: &'static str) -> App {
    let home = common::isolated_home();
    quick(drill_id);
    let mut app = App::new(Content::embedded().unwrap());
    let meta = app.content.drill(drill_id).unwrap().clone();
    let state = drill::State::new(&meta, home.join("runs"), home.join("sweeps"), Default::default());
    app.stack.push(Screen::Drill(Box::new(state)));
    wait(&mut app, 300, |d| d.shown_dir.is_some());
    key(&mut app, KeyCode::Char('6'));
    wait(&mut app, 300, |d| d.try_tab.info.is_some() || d.try_tab.error.is_some());
    assert!(drill_state(&mut app).try_tab.error.is_none(), "{:?}", drill_state(&mut app).try_tab.error);
    app
}

/// Sampling: a typed sum to sft-basics' random init and trained model, side by side at 120×40, stacked at 60×16.
#[test]
fn the_try_tab_samples_a_typed_sum_from_both_arms() {
    let mut app = try_tab("sft-basics");
    key(&mut app, KeyCode::Char('i'));
    for c in "37+45=".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    wait(&mut app, 300, |d| !d.try_tab.answering && d.try_tab.answer.is_some());
    let screen = common::screen_lines(&mut app, 120, 40).join("\n");
    for want in ["random init", "after SFT", "37+45=", "280", "exact", "p(gold)"] {
        assert!(screen.contains(want), "{want} missing:\n{screen}");
    }
    let a = drill_state(&mut app).try_tab.answer.clone().unwrap();
    assert_eq!(a.columns.len(), 2);
    assert!(column(&a, "trained").samples.iter().all(|s| s.text().ends_with("280⏎")), "{a:#?}");
    let small = common::screen_lines(&mut app, 60, 16).join("\n");
    assert!(small.contains("Try"), "{small}");
}

/// An agent in its loop: prompt-injection's held-out question under attack,
/// the injected sentence coloured; `a` turns the attack off.
#[test]
fn the_try_tab_attacks_an_agent_and_turns_the_attack_off() {
    let mut app = try_tab("prompt-injection");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    wait(&mut app, 300, |d| !d.try_tab.answering && d.try_tab.answer.is_some());
    let a = drill_state(&mut app).try_tab.answer.clone().unwrap();
    assert_eq!(a.columns.len(), 5);
    let injected = |a: &TryAnswer| {
        a.columns.iter().flat_map(|c| &c.samples).any(|s| s.cells.iter().any(|c| c.kind == TokenKind::Injected))
    };
    assert!(injected(&a), "{a:#?}");
    let screen = common::screen_lines(&mut app, 200, 60).join("\n");
    for want in ["clean SFT", "training on injections", "allow-list", "attack on", "followed the injection"] {
        assert!(screen.contains(want), "{want} missing:\n{screen}");
    }
    key(&mut app, KeyCode::Char('a'));
    key(&mut app, KeyCode::Enter);
    wait(&mut app, 300, |d| {
        !d.try_tab.answering && d.try_tab.answer.as_ref().is_some_and(|a| a.notes[1].contains("attack off"))
    });
    let a = drill_state(&mut app).try_tab.answer.clone().unwrap();
    assert!(!injected(&a), "{a:#?}");
    let screen = common::screen_lines(&mut app, 120, 40).join("\n");
    assert!(screen.contains("attack off"), "{screen}");
    let small = common::screen_lines(&mut app, 60, 16).join("\n");
    assert!(small.contains("Try"), "{small}");
}
