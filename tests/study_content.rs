//! Study sessions: every drill asks predictions and explains its claims,
//! every track has a study path, and the parsers refuse what would break
//! them (a `breaks_with` the drill cannot apply, a prediction the run cannot
//! answer, a step that leads nowhere).

mod common;

use std::collections::HashSet;
use std::process::Output;

use agentlab::content::drill_meta::PredictKind;
use agentlab::content::sheet::StepKind;
use agentlab::content::{Content, DrillMeta, Sheet, TRACKS};

fn content() -> Content {
    Content::embedded().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_drill_asks_a_prediction_its_run_answers() {
    let c = content();
    assert_eq!(c.drills.len(), 16);
    for d in &c.drills {
        assert!(
            (1..=3).contains(&d.predictions.len()),
            "{}: {} predictions (1 to 3 wanted)",
            d.id,
            d.predictions.len()
        );
        for p in &d.predictions {
            let Some(claim) = p.claim.as_deref() else { continue };
            let claim = d.claim(claim).unwrap();
            // A prediction asked on a preset whose run does not measure its claim could never be answered.
            for preset in &p.presets {
                assert!(
                    claim.applies_to(preset),
                    "{}/{}: asked on preset {preset}, which does not measure claim {}",
                    d.id,
                    p.id,
                    claim.id
                );
            }
            if p.kind == PredictKind::Choice {
                assert!((2..=4).contains(&p.choices.len()), "{}/{}: 2 to 4 choices", d.id, p.id);
            }
        }
    }
}

#[test]
fn every_claim_says_why_it_matters() {
    for d in &content().drills {
        for claim in &d.claims {
            let why = claim.why.as_deref().unwrap_or_else(|| panic!("{}/{} has no why", d.id, claim.id));
            let sentences = why.matches(". ").count() + 1;
            assert!(sentences <= 2, "{}/{}: why has {sentences} sentences (two at most)", d.id, claim.id);
        }
    }
}

#[test]
fn every_drill_names_a_setting_that_breaks_a_claim() {
    for d in &content().drills {
        let breaks: usize = d.claims.iter().map(|c| c.breaks_with.len()).sum();
        assert!(breaks >= 1, "{}: no claim has a breaks_with", d.id);
        for claim in &d.claims {
            // Applied over the first preset the claim is about (quick, unless it is about another), the setting changes something.
            let preset = ["quick", "real", "full"].into_iter().find(|name| claim.applies_to(name)).unwrap();
            let values = d.preset_values(preset).unwrap();
            for b in &claim.breaks_with {
                let changes = b.set.iter().any(|(k, v)| d.param(k).unwrap().validate(v).ok().as_ref() != values.get(k));
                assert!(changes, "{}/{}: a breaks_with that changes nothing on preset {preset}", d.id, claim.id);
            }
        }
    }
}

#[test]
fn every_track_has_a_study_path() {
    let c = content();
    for t in TRACKS.iter() {
        let sheet = c.sheet(t.number).unwrap();
        let steps = &sheet.meta.steps;
        let has = |kind: StepKind| steps.iter().any(|s| s.kind == kind);
        assert!(has(StepKind::Read) && has(StepKind::Quiz), "track {}: a path reads and quizzes", t.number);
        for d in c.drills_of(t.number) {
            assert!(
                steps.iter().any(|s| s.kind == StepKind::Drill && s.target == d.id),
                "track {}: the path runs drill {}",
                t.number,
                d.id
            );
        }
        for x in c.exercises_of(t.number) {
            assert!(
                steps.iter().any(|s| s.kind == StepKind::Exercise && s.target == x.id),
                "track {}: the path has exercise {}",
                t.number,
                x.id
            );
        }
        let mut keys = HashSet::new();
        for s in steps {
            assert!(keys.insert(s.key()), "track {}: step {} twice", t.number, s.key());
            assert!(s.minutes >= 1);
        }
        // The first step reads, and the hardest quiz comes after the easiest.
        assert_eq!(steps[0].kind, StepKind::Read, "track {}", t.number);
        let at = |level: &str| steps.iter().position(|s| s.kind == StepKind::Quiz && s.target == level);
        assert!(at("L1") < at("L3"), "track {}: L1 before L3", t.number);
    }
}

// ---- the parsers refuse what a study session could not use ----

const DRILL: &str = r#"
id = "t"
title = "T"
track = 0
objective = "o"

[[param]]
key = "lr"
kind = "float"
default = 0.01
min = 0.0
max = 1.0

[[param]]
key = "critic"
kind = "choice"
default = "verifier"
choices = ["verifier", "self"]

[presets.quick]

[[claim]]
id = "gain"
text = "gain"
op = ">="
threshold = 0.1
why = "It matters."
"#;

fn parse(extra: &str) -> Result<DrillMeta, Vec<String>> {
    DrillMeta::parse(&format!("{DRILL}{extra}"), "# t")
}

fn refused(extra: &str, wanted: &str) {
    let errs = parse(extra).expect_err(wanted);
    assert!(errs.iter().any(|e| e.contains(wanted)), "wanted {wanted:?} in {errs:?}");
}

const PREDICTION: &str = r#"
[[prediction]]
id = "p"
question = "How much?"
kind = "choice"
choices = ["little", "much"]
edges = [0.1]
claim = "gain"
explain = "Because."
"#;

#[test]
fn the_test_drill_parses_with_a_breaks_with_and_a_prediction() {
    let meta = parse(&format!(
        "[[claim.breaks_with]]\nset = {{ critic = \"self\", lr = 0.5 }}\neffect = \"reads 0.01\"\n{PREDICTION}"
    ))
    .unwrap();
    assert_eq!(meta.claims[0].breaks_with.len(), 1);
    assert_eq!(meta.claims[0].why.as_deref(), Some("It matters."));
    let p = &meta.predictions[0];
    assert_eq!((p.choice_of(0.05), p.choice_of(0.1), p.choice_of(0.3)), (0, 1, 1));
    assert!(p.is_right(1.0, 0.3) && !p.is_right(0.0, 0.3));
    // The inline form reads the same.
    let inline = "breaks_with = [{ set = { critic = \"self\" }, effect = \"e\" }]\n";
    assert_eq!(parse(inline).unwrap().claims[0].breaks_with[0].effect, "e");
}

#[test]
fn a_breaks_with_must_name_a_param_and_a_valid_value() {
    refused("[[claim.breaks_with]]\nset = { temperature = 0.5 }\neffect = \"e\"\n", "unknown param `temperature`");
    refused("[[claim.breaks_with]]\nset = { lr = 2.0 }\neffect = \"e\"\n", "above the maximum");
    refused("[[claim.breaks_with]]\nset = { critic = \"oracle\" }\neffect = \"e\"\n", "is not one of");
    refused("[[claim.breaks_with]]\nset = { critic = 1 }\neffect = \"e\"\n", "expected one of the choices");
    refused("[[claim.breaks_with]]\nset = {}\neffect = \"e\"\n", "needs a `set` and an `effect`");
    refused("[[claim.breaks_with]]\nset = { lr = 0.5 }\neffect = \" \"\n", "needs a `set` and an `effect`");
}

#[test]
fn a_prediction_must_be_answerable_by_the_run() {
    refused(&PREDICTION.replace("claim = \"gain\"", "claim = \"loss\""), "names claim `loss`");
    refused(&PREDICTION.replace("claim = \"gain\"", ""), "exactly one of `claim` or `metric`");
    refused(&PREDICTION.replace("claim = \"gain\"", "claim = \"gain\"\nmetric = \"loss\""), "exactly one of");
    refused(&PREDICTION.replace("edges = [0.1]", "edges = [0.1, 0.2]"), "one fewer `edges`");
    refused(&PREDICTION.replace("edges = [0.1]", "edges = []"), "one fewer `edges`");
    refused(
        &PREDICTION
            .replace("choices = [\"little\", \"much\"]", "choices = [\"a\", \"b\", \"c\"]")
            .replace("[0.1]", "[0.2, 0.1]"),
        "ascending",
    );
    let number = PREDICTION
        .replace("kind = \"choice\"", "kind = \"number\"")
        .replace("choices = [\"little\", \"much\"]\nedges = [0.1]\n", "");
    refused(&number, "positive `tolerance`");
    assert!(parse(&number.replace("claim =", "tolerance = 0.05\nclaim =")).is_ok());
    refused(&number.replace("claim =", "tolerance = 0.05\nedges = [0.1]\nclaim ="), "takes no `choices`/`edges`");
    refused(&PREDICTION.replace("claim =", "tolerance = 0.05\nclaim ="), "only a number takes `tolerance`");
    refused(&PREDICTION.replace("claim =", "presets = [\"full\"]\nclaim ="), "names preset `full`");
    refused(&format!("{PREDICTION}{PREDICTION}"), "declared twice");
    // A claim about the quick preset only cannot answer a prediction asked on another preset.
    let two_presets = format!("{DRILL}[presets.full]\n").replace("why =", "presets = [\"quick\"]\nwhy =");
    let asked = PREDICTION.replace("claim =", "presets = [\"full\"]\nclaim =");
    let errs = DrillMeta::parse(&format!("{two_presets}{asked}"), "# t").unwrap_err();
    assert!(errs.iter().any(|e| e.contains("whose run does not measure claim `gain`")), "{errs:?}");
    assert!(DrillMeta::parse(&format!("{two_presets}{PREDICTION}"), "# t").is_ok());
    refused(&PREDICTION.replace("kind = \"choice\"", "kind = \"guess\""), "unknown variant");
}

// ---- study steps ----

/// Every content file on disk, as `Content::from_files` takes them.
use common::disk_files;

const SHEET: &str = "cheatsheets/03-agentic-rl.md";

/// The disk files with one step added to track 3's path.
fn with_step(step: &str) -> Vec<(String, String)> {
    disk_files()
        .into_iter()
        .map(|(p, t)| {
            if p == SHEET {
                let end = t[4..].find("\n+++\n").unwrap() + 4;
                let t = format!("{}\n{step}{}", &t[..end], &t[end..]);
                (p, t)
            } else {
                (p, t)
            }
        })
        .collect()
}

fn step(kind: &str, target: &str, minutes: u32) -> String {
    format!("\n[[step]]\nkind = \"{kind}\"\ntarget = \"{target}\"\nminutes = {minutes}")
}

#[test]
fn validation_refuses_a_step_that_leads_nowhere() {
    assert!(Content::from_files(with_step(&step("read", "self-check", 2))).is_ok());
    for (kind, target, minutes, wanted) in [
        ("read", "no-such-section", 2, "no section `no-such-section`"),
        ("quiz", "L4", 2, "is not a level"),
        ("exercise", "no-such-exercise", 10, "no exercise `no-such-exercise` on track 3"),
        // An exercise and a drill of another track are not this track's.
        ("exercise", "pass-at-k", 10, "no exercise `pass-at-k` on track 3"),
        ("drill", "sft-basics", 3, "no drill `sft-basics` on track 3"),
        ("read", "self-check", 0, "`minutes` must be at least 1"),
    ] {
        let Err(err) = Content::from_files(with_step(&step(kind, target, minutes))) else {
            panic!("{kind} {target} is refused")
        };
        let err = err.to_string();
        assert!(err.contains(SHEET) && err.contains(wanted), "{wanted}: {err}");
    }
}

#[test]
fn sheet_parsing_refuses_a_malformed_step() {
    let sheet = |front: &str| {
        Sheet::parse("x.md", &format!("+++\nid = \"x\"\ntitle = \"X\"\ntrack = 3\nsummary = \"s\"\nstatus = \"stub\"\n{front}\n+++\n# X\n\n## A part\n"))
    };
    let ok = sheet(&step("read", "a-part", 1)).unwrap();
    assert_eq!(ok.meta.steps[0].key(), "read:a-part");
    assert!(ok.section("a-part").is_some());
    for (front, wanted) in [
        (step("watch", "a-part", 1), "unknown variant `watch`"),
        ("\n[[step]]\nkind = \"read\"\nminutes = 1".to_string(), "missing field `target`"),
        (
            "\n[[step]]\nkind = \"read\"\ntarget = \"a-part\"\nminutes = 1\nhours = 2".to_string(),
            "unknown field `hours`",
        ),
    ] {
        let err = sheet(&front).expect_err(wanted);
        assert!(err.contains(wanted), "{wanted}: {err}");
    }
}

fn agentlab(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    common::agentlab(home.path()).args(args).output().unwrap()
}

#[test]
fn agentlab_validate_passes_on_the_shipped_content_and_refuses_an_unknown_step_target() {
    let out = agentlab(&["validate"]);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));

    let dir = tempfile::tempdir().unwrap();
    for (path, text) in with_step(&step("drill", "no-such-drill", 3)) {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let out = agentlab(&["--content", dir.path().to_str().unwrap(), "validate"]);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("no drill `no-such-drill` on track 3"), "{text}");
}
