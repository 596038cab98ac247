//! `agent-pipeline`, run for real on the CPU (one seed each): every stage
//! emits its five metrics, the report card says what the metric streams
//! say, `report.md` is written with the run, and each claim's breaking
//! setting reads FAIL where a short run shows it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentlab::content::Content;
use agentlab::drills::{Event, Report, RunStatus, View};
use agentlab::ml::device::DeviceChoice;
use agentlab::runner::{self, RunConfig};

const ID: &str = "agent-pipeline";
const METRICS: [&str; 5] =
    ["tool_selection", "plan_success", "step_efficiency", "timing_precision", "end_to_end_success"];

/// A quick run with overrides: its events, its report and its directory
/// (kept alive by the returned temp dir).
fn run(sets: &[(&str, &str)]) -> (Vec<Event>, Report, PathBuf, tempfile::TempDir) {
    let content = Content::embedded().unwrap();
    let meta = content.drill(ID).unwrap();
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let params = runner::resolve_params(meta, "quick", &sets).unwrap();
    let root = tempfile::tempdir().unwrap();
    let mut h = runner::start(meta, RunConfig::new(ID, "quick", 1, DeviceChoice::Cpu, params), root.path()).unwrap();
    let events: Vec<Event> = h.rx.iter().collect();
    h.join();
    let report =
        events.iter().find_map(|e| if let Event::Finished(r) = e { Some(r.clone()) } else { None }).expect("a report");
    for c in &report.claims {
        eprintln!("{sets:?}: {} = {:.4} {}", c.id, c.measured, if c.pass { "pass" } else { "FAIL" });
    }
    (events, report, h.dir.clone(), root)
}

fn measured(r: &Report, id: &str) -> (f64, bool) {
    let c = r.claims.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no claim {id} in {:?}", r.claims));
    (c.measured, c.pass)
}

/// Every metric point by name and step (the stage, for the five metrics).
fn streams(events: &[Event]) -> BTreeMap<(String, u64), f64> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Metric { step, name, value, .. } => Some(((name.clone(), *step), *value)),
            _ => None,
        })
        .collect()
}

/// A short run: every stage, fewer steps and tasks (what is checked here is
/// the plumbing of the stages and the card, not the claims).
const SHORT: [(&str, &str); 7] = [
    ("train_tasks", "200"),
    ("coreset_size", "80"),
    ("eval_tasks", "40"),
    ("sft_steps", "60"),
    ("rl_steps", "3"),
    ("questions_per_step", "4"),
    ("base_probe", "16"),
];

#[test]
fn every_stage_reports_five_metrics_and_the_card_says_the_same() {
    let (events, report, dir, _root) = run(&SHORT);
    assert!(!matches!(report.status, RunStatus::Failed(_)), "{:?}", report.status);
    let s = streams(&events);
    for stage in 0..3u64 {
        for m in METRICS {
            for name in [m.to_string(), format!("{m}_std"), format!("{m}_n")] {
                assert!(s.contains_key(&(name.clone(), stage)), "stage {stage} has no {name}");
            }
            let mean = s[&(m.to_string(), stage)];
            assert!((0.0..=1.0).contains(&mean), "{m} at stage {stage}: {mean}");
        }
        assert!(s.contains_key(&("base_task_loss".to_string(), stage)));
    }
    assert_eq!(s[&("end_to_end_success_n".to_string(), 0)], 40.0, "every held-out task counts for success");
    // The report card: one row per stage, `mean ± std (n=count)` from the streams.
    let card = events
        .iter()
        .find_map(|e| match e {
            Event::View(View::Table { title, rows, .. }) if title.starts_with("Report card") => Some(rows.clone()),
            _ => None,
        })
        .expect("a report card");
    let stage_rows: Vec<&Vec<String>> = card.iter().filter(|r| !r[0].starts_with('Δ')).collect();
    assert_eq!(stage_rows.len(), 3, "{card:?}");
    for (k, row) in stage_rows.iter().enumerate() {
        for (i, m) in METRICS.iter().enumerate() {
            let want = format!(
                "{:.3} ± {:.3} (n={})",
                s[&(m.to_string(), k as u64)],
                s[&(format!("{m}_std"), k as u64)],
                s[&(format!("{m}_n"), k as u64)]
            );
            assert_eq!(row[i + 1], want, "stage {k}, {m}");
        }
        assert_eq!(row[6], format!("{:.3}", s[&("base_task_loss".to_string(), k as u64)]));
    }
    // The deltas are the differences of the streams.
    let delta_rl = card.iter().find(|r| r[0] == "Δ RL").expect("a Δ RL row");
    let e2e = |k: u64| s[&("end_to_end_success".to_string(), k)];
    assert_eq!(delta_rl[5], format!("{:+.3}", e2e(2) - e2e(1)));
    // The same card is written with the run.
    let md = std::fs::read_to_string(dir.join("report.md")).expect("report.md in the run directory");
    for row in &card {
        assert!(md.contains(&row.join(" | ")), "report.md lacks {row:?}:\n{md}");
    }
    // Each stage's model is kept, for Try.
    let kept = std::fs::read_to_string(dir.join("models").join("index.json")).unwrap_or_default();
    for arm in ["\"base\"", "\"sft\"", "\"rl\""] {
        assert!(kept.contains(arm), "{arm} not kept: {kept}");
    }
    // RL charts each reward component on its own.
    for c in ["correct", "format", "tool", "timing", "steps"] {
        assert!(s.keys().any(|(n, _)| n == &format!("reward · {c}")), "no reward · {c} chart");
    }
    // GRPO is anchored to the SFT model, and says how far it moved.
    assert!(s.keys().any(|(n, _)| n == "kl to SFT"), "no KL chart");
    // The timing claim reads sampled episodes on fact-given tasks (greedy ones are charted beside them).
    let at = |name: &str, k: u64| s[&(name.to_string(), k)];
    let (gain, _) = measured(&report, "rl_timing_gain");
    let (sft, rl) = (at("given_timing · sampled", 1), at("given_timing · sampled", 2));
    assert!(sft < 1.0, "the SFT model mistimes some sampled calls: {sft}");
    assert_eq!(gain, (rl - sft) / (1.0 - sft), "the share of the gap RL closes");
    assert!(s.contains_key(&("given_timing · greedy".to_string(), 2)));
}

#[test]
fn sft_without_replay_forgets_the_base_task() {
    // The claim is read after SFT: RL is left out, and the benchmark cut, to keep the run short.
    let (_, r, _, _root) = run(&[
        ("replay_ratio", "0"),
        ("rl_steps", "0"),
        ("eval_tasks", "20"),
        ("train_tasks", "400"),
        ("sft_steps", "150"),
    ]);
    let (forgetting, pass) = measured(&r, "replay_forgetting");
    assert!(!pass, "forgetting without replay {forgetting:.3} should exceed the margin");
}

#[test]
fn an_anchor_too_strong_keeps_the_habit() {
    let (_, r, _, _root) = run(&[("kl_beta", "10")]);
    let (gain, pass) = measured(&r, "rl_timing_gain");
    assert!(!pass, "RL held at the SFT model by a KL penalty of 10 still lifted timing precision by {gain:.3}");
}

#[test]
fn sft_that_barely_moves_teaches_no_tools() {
    let (_, r, _, _root) = run(&[("lr_sft", "1e-6"), ("rl_steps", "0"), ("eval_tasks", "40"), ("sft_steps", "100")]);
    assert!(!measured(&r, "sft_tool_selection_gain").1);
    assert!(!measured(&r, "sft_success_gain").1);
}
