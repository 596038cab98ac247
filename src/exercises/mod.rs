//! Write it yourself: exercises where the learner implements an algorithm.
//!
//! An exercise (`exercises/<id>.toml`, see
//! [`ExerciseMeta`](crate::content::ExerciseMeta)) asks for one function in
//! Rhai, a small sandboxed scripting language ([`script`]). The learner's
//! file lives in the data directory (`<data>/exercises/<id>.rhai`, started
//! from the stub); [`check`] runs it on hand-made edge cases and on random
//! cases from a fixed seed ([`checks`]) and compares every answer with the
//! lab's own Rust implementation — the code the drills train with. The first
//! case that differs is reported with its inputs, the expected value and
//! what the script gave.
//!
//! Four exercises *plug* into a drill ([`plug`]): `turn-credit-assignment`
//! can compute its returns-to-go with the learner's `discounted_returns`,
//! `grpo-rlvr` its advantages with `grpo_advantages` or
//! `dr_grpo_advantages`, `ewc-replay` its replay buffer with
//! `reservoir_push`. The drill then trains with that function and checks its
//! claims as usual, so a subtly wrong function shows as a different curve
//! and a failed claim.

pub mod checks;
pub mod plug;
pub mod script;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use checks::{Case, Expected};
pub use script::{Script, Value};

/// What the lab knows about an exercise's function in code.
pub struct Spec {
    pub id: &'static str,
    pub function: &'static str,
    /// Parameter names, in order (to show a failing case's inputs).
    pub params: &'static [&'static str],
    /// The drill that can train with this function.
    pub plug_drill: Option<&'static str>,
    cases: fn() -> Vec<Case>,
    /// Relative tolerance (`|got − want| ≤ tol·(1 + |want|)`): the reference
    /// runs in f32 like the drills, the script in f64.
    tol: f64,
}

const SPECS: &[Spec] = &[
    Spec {
        id: "discounted-returns",
        function: "discounted_returns",
        params: &["rewards", "gamma"],
        plug_drill: Some("turn-credit-assignment"),
        cases: checks::discounted_returns_cases,
        tol: 1e-4,
    },
    Spec {
        id: "gae",
        function: "gae",
        params: &["rewards", "values", "dones", "last_value", "gamma", "lambda"],
        plug_drill: None,
        cases: checks::gae_cases,
        tol: 1e-4,
    },
    Spec {
        id: "grpo-advantages",
        function: "grpo_advantages",
        params: &["rewards", "eps"],
        plug_drill: Some("grpo-rlvr"),
        cases: checks::grpo_cases,
        tol: 1e-3,
    },
    Spec {
        id: "dr-grpo-advantages",
        function: "dr_grpo_advantages",
        params: &["rewards"],
        plug_drill: Some("grpo-rlvr"),
        cases: checks::dr_grpo_cases,
        tol: 1e-4,
    },
    Spec {
        id: "rloo-advantages",
        function: "rloo_advantages",
        params: &["rewards"],
        plug_drill: None,
        cases: checks::rloo_cases,
        tol: 1e-4,
    },
    Spec {
        id: "ppo-clip",
        function: "ppo_clip",
        params: &["ratio", "advantage", "eps"],
        plug_drill: None,
        cases: checks::ppo_clip_cases,
        tol: 1e-9,
    },
    Spec {
        id: "k3-kl",
        function: "k3_kl",
        params: &["logp", "ref_logp"],
        plug_drill: None,
        cases: checks::k3_cases,
        tol: 1e-4,
    },
    Spec {
        id: "dpo-loss",
        function: "dpo_loss",
        params: &["pi_chosen", "pi_rejected", "ref_chosen", "ref_rejected", "beta"],
        plug_drill: None,
        cases: checks::dpo_cases,
        tol: 1e-4,
    },
    Spec {
        id: "rope-scaling",
        function: "rope_inv_freq",
        params: &["d", "s", "ntk"],
        plug_drill: Some("long-context-rope"),
        cases: checks::rope_scaling_cases,
        tol: 1e-5,
    },
    Spec {
        id: "bradley-terry",
        function: "bradley_terry",
        params: &["r_chosen", "r_rejected"],
        plug_drill: Some("reward-model-overopt"),
        cases: checks::bradley_terry_cases,
        tol: 1e-9,
    },
    Spec {
        id: "info-nce",
        function: "info_nce",
        params: &["sims", "positive", "tau"],
        plug_drill: Some("tool-retrieval"),
        cases: checks::info_nce_cases,
        tol: 1e-9,
    },
    Spec {
        id: "lora-forward",
        function: "lora_forward",
        params: &["x", "w0", "a", "b", "alpha"],
        plug_drill: None,
        cases: checks::lora_forward_cases,
        tol: 1e-4,
    },
    Spec {
        id: "pass-at-k",
        function: "pass_at_k",
        params: &["n", "c", "k"],
        plug_drill: None,
        cases: checks::pass_at_k_cases,
        tol: 1e-9,
    },
    Spec {
        id: "ewc-penalty",
        function: "ewc_penalty",
        params: &["theta", "theta_star", "fisher", "lambda"],
        plug_drill: None,
        cases: checks::ewc_cases,
        tol: 1e-4,
    },
    Spec {
        id: "cl-metrics",
        function: "cl_metrics",
        params: &["r", "baseline"],
        plug_drill: None,
        cases: checks::cl_metrics_cases,
        tol: 1e-9,
    },
    Spec {
        id: "search-reward",
        function: "search_reward",
        params: &["answered", "correct", "searches", "w_correct", "w_format", "search_cost"],
        plug_drill: None,
        cases: checks::search_reward_cases,
        tol: 1e-5,
    },
    Spec {
        id: "reservoir",
        function: "reservoir_push",
        params: &["buffer", "capacity", "seen", "item"],
        plug_drill: Some("ewc-replay"),
        cases: checks::reservoir_cases,
        tol: 0.0,
    },
];

/// Every exercise the code can check.
pub fn specs() -> &'static [Spec] {
    SPECS
}

pub fn spec(id: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| s.id == id)
}

/// The drill that can train with exercise `id`'s function, if any.
pub fn plug_drill(id: &str) -> Option<&'static str> {
    spec(id).and_then(|s| s.plug_drill)
}

/// The first case a script got wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// Which case ("edge: a group of one", "random 7", "compiling the script").
    pub case: String,
    /// Inputs as `name = value`.
    pub inputs: Vec<(String, String)>,
    pub expected: String,
    /// What the script returned, or the error it raised.
    pub got: String,
}

/// The outcome of checking a script.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    pub exercise: String,
    pub passed: bool,
    /// Cases that passed: every case runs, whatever fails before it.
    pub cases_passed: usize,
    pub cases_total: usize,
    /// The number (from 1) of the first case that failed; 0 on a pass, or
    /// when the script did not compile or lacks the function.
    #[serde(default)]
    pub first_failing: usize,
    pub failure: Option<Failure>,
    /// What the script printed (`print`, `debug`), if anything.
    pub printed: String,
}

impl CheckReport {
    fn failed(spec: &Spec, total: usize, passed: usize, failure: Failure, printed: String) -> CheckReport {
        CheckReport {
            exercise: spec.id.into(),
            passed: false,
            cases_passed: passed,
            cases_total: total,
            first_failing: 0,
            failure: Some(failure),
            printed,
        }
    }

    /// The report as lines of text (the CLI prints them; the TUI shows them).
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.passed {
            out.push(crate::t!("exercise-pass", id = self.exercise.as_str(), total = self.cases_total));
        } else if self.first_failing > 0 {
            out.push(crate::t!(
                "exercise-fail-at",
                id = self.exercise.as_str(),
                passed = self.cases_passed,
                total = self.cases_total,
                n = self.first_failing
            ));
        } else {
            out.push(crate::t!(
                "exercise-fail",
                id = self.exercise.as_str(),
                passed = self.cases_passed,
                total = self.cases_total
            ));
        }
        if let Some(f) = &self.failure {
            out.push(crate::t!("exercise-first-failing", case = f.case.as_str()));
            for (k, v) in &f.inputs {
                out.push(format!("  {k} = {v}"));
            }
            if !f.expected.is_empty() {
                out.push(format!("  {}", crate::t!("exercise-expected", value = f.expected.as_str())));
            }
            out.push(format!("  {}", crate::t!("exercise-got", value = f.got.as_str())));
        }
        if !self.printed.is_empty() {
            out.push(crate::t!("exercise-printed"));
            out.extend(self.printed.lines().take(20).map(|l| format!("  {l}")));
        }
        out
    }
}

fn close(got: f64, want: f64, tol: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    (got - want).abs() <= tol * (1.0 + want.abs()) || got == want
}

fn show_f64s(xs: &[f64]) -> String {
    Value::floats(xs).show()
}

/// Check a script against exercise `spec`: compile, find the function,
/// run every case (then, for the reservoir, a statistical test), counting
/// those that pass and keeping the first that fails.
pub fn check(spec: &Spec, source: &str) -> CheckReport {
    let cases = (spec.cases)();
    let total = cases.len() + if spec.id == "reservoir" { 1 + RESERVOIR_STREAMS as usize } else { 0 };
    let fail = |case: &str, got: String| Failure { case: case.into(), inputs: vec![], expected: String::new(), got };
    let script = match Script::compile(source) {
        Ok(s) => s,
        Err(e) => return CheckReport::failed(spec, total, 0, fail(&crate::t!("exercise-compiling"), e), String::new()),
    };
    // Every case together: a slow script fails the check in bounded time, whatever its count of calls.
    script.set_budget(CHECK_BUDGET);
    if let Err(e) = script.require(spec.function, spec.params.len()) {
        return CheckReport::failed(spec, total, 0, fail(&crate::t!("exercise-finding"), e), String::new());
    }
    let mut passed = 0;
    let mut first: Option<(usize, Failure)> = None;
    for (i, c) in cases.iter().enumerate() {
        script.seed(0x5eed + i as u64);
        let inputs: Vec<(String, String)> =
            spec.params.iter().zip(&c.args).map(|(k, v)| (k.to_string(), v.show())).collect();
        let (expected, outcome) = match &c.expected {
            Expected::Float(want) => (
                Value::Float(*want).show(),
                script
                    .call_f64(spec.function, &c.args)
                    .map(|got| (close(got, *want, spec.tol), Value::Float(got).show())),
            ),
            Expected::Floats(want) => (
                show_f64s(want),
                script.call_f64s(spec.function, &c.args, Some(want.len())).map(|got| {
                    let ok = got.iter().zip(want).all(|(g, w)| close(*g, *w, spec.tol));
                    (ok, show_f64s(&got))
                }),
            ),
        };
        let got = match outcome {
            Ok((true, _)) => {
                passed += 1;
                continue;
            }
            Ok((false, got)) => got,
            Err(e) => crate::t!("exercise-error", error = e),
        };
        if first.is_none() {
            first = Some((i + 1, Failure { case: c.name.clone(), inputs, expected, got }));
        }
    }
    if spec.id == "reservoir" {
        match reservoir_statistics(spec, &script) {
            Some(f) => {
                first.get_or_insert((cases.len() + 1, f));
            }
            None => passed += 1,
        }
        for seed in 1..=RESERVOIR_STREAMS {
            if let Err(e) = checks::reservoir_same_as_lab(&script, spec.function, 40, 6, seed) {
                let f = Failure {
                    case: crate::t!("exercise-res-same-draws", stream = seed.to_string()),
                    inputs: vec![],
                    expected: crate::t!("exercise-res-lab-buffer"),
                    got: e,
                };
                first.get_or_insert((cases.len() + 1 + seed as usize, f));
            } else {
                passed += 1;
            }
        }
    }
    if let Some((n, f)) = first {
        let mut r = CheckReport::failed(spec, total, passed, f, script.take_printed());
        r.first_failing = n;
        return r;
    }
    CheckReport {
        exercise: spec.id.into(),
        passed: true,
        cases_passed: total,
        cases_total: total,
        first_failing: 0,
        failure: None,
        printed: script.take_printed(),
    }
}

/// Streams compared draw by draw with the lab's reservoir.
const RESERVOIR_STREAMS: u64 = 5;

/// Algorithm R keeps every item of a stream with the same probability
/// `k/n`. Stream 60 items through a buffer of 6, 1500 times: each item's
/// rate must be within 0.05 of 0.1 (about 6 standard errors), and the first
/// and last ten items must be kept about as often as each other.
fn reservoir_statistics(spec: &Spec, script: &Script) -> Option<Failure> {
    let (n, k, trials) = (60, 6, 1500);
    let case = crate::t!("exercise-res-streaming", n = n.to_string(), k = k.to_string(), trials = trials.to_string());
    let inputs = vec![("stream".into(), format!("0, 1, …, {}", n - 1)), ("capacity".into(), k.to_string())];
    let want = k as f64 / n as f64;
    let rates = match checks::reservoir_rates(script, spec.function, n, k, trials) {
        Ok(r) => r,
        Err(e) => {
            return Some(Failure { case, inputs, expected: String::new(), got: crate::t!("exercise-error", error = e) })
        }
    };
    let first: f64 = rates[..10].iter().sum::<f64>() / 10.0;
    let last: f64 = rates[n - 10..].iter().sum::<f64>() / 10.0;
    let worst = rates.iter().enumerate().max_by(|a, b| (a.1 - want).abs().total_cmp(&(b.1 - want).abs()));
    let (item, rate) = worst.map(|(i, r)| (i, *r)).unwrap_or((0, want));
    if (rate - want).abs() > 0.05 || (first - last).abs() > 0.04 {
        return Some(Failure {
            case,
            inputs,
            expected: crate::t!(
                "exercise-res-want-rate",
                k = k.to_string(),
                n = n.to_string(),
                want = format!("{want:.3}")
            ),
            got: crate::t!(
                "exercise-res-got-rate",
                item = item.to_string(),
                rate = format!("{rate:.3}"),
                first = format!("{first:.3}"),
                last = format!("{last:.3}")
            ),
        });
    }
    None
}

/// `<data>/exercises`, where the learner's scripts live.
pub fn dir() -> Result<PathBuf> {
    Ok(crate::paths::data_dir()?.join("exercises"))
}

/// The learner's file for an exercise.
pub fn file(id: &str) -> Result<PathBuf> {
    Ok(dir()?.join(format!("{id}.rhai")))
}

/// The learner's file, written from the stub if it does not exist yet.
pub fn ensure_file(id: &str, stub: &str) -> Result<PathBuf> {
    let path = file(id)?;
    if !path.exists() {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .with_context(|| crate::t!("exercise-creating", path = dir.display().to_string()))?;
        crate::fsutil::write_atomic(&path, stub.as_bytes())?;
    }
    Ok(path)
}

/// The time all the calls of one check may take together (each call still
/// stops after [`script::CALL_DEADLINE`]). A correct script takes a fraction
/// of it, the reservoir's 90,000 calls included.
pub const CHECK_BUDGET: std::time::Duration = std::time::Duration::from_secs(20);

/// The largest script file read: exercises are a function or two.
pub const MAX_SCRIPT_BYTES: u64 = 256 * 1024;

/// Read a script file with a message that names it: a regular file (a FIFO
/// or a device is refused) of at most [`MAX_SCRIPT_BYTES`].
pub fn read_script(path: &Path) -> Result<String> {
    crate::fsutil::read_regular_text(path, MAX_SCRIPT_BYTES)
        .with_context(|| crate::t!("exercise-reading", path = path.display().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_has_cases_and_unique_ids() {
        let mut ids: Vec<&str> = SPECS.iter().map(|s| s.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), SPECS.len());
        for s in SPECS {
            assert!(!(s.cases)().is_empty(), "{}", s.id);
        }
    }

    #[test]
    fn a_wrong_script_reports_inputs_expected_and_got() {
        let spec = spec("dr-grpo-advantages").unwrap();
        let r = check(spec, "fn dr_grpo_advantages(rewards) { rewards }");
        assert!(!r.passed);
        let f = r.failure.unwrap();
        assert_eq!(f.case, "edge: a group of one");
        assert_eq!(f.inputs, vec![("rewards".to_string(), "[0.7000]".to_string())]);
        assert_eq!(f.expected, "[0.0000]");
        assert_eq!(f.got, "[0.7000]");
    }

    /// Every case runs: returns accumulated forwards (from the first step)
    /// pass the γ = 0, one-step and empty cases and fail the first.
    #[test]
    fn every_case_runs_and_the_first_failure_is_named() {
        let spec = spec("discounted-returns").unwrap();
        let src = "fn discounted_returns(rewards, gamma) { let out = []; let g = 0.0; \
                   for r in rewards { g = r + gamma * g; out.push(g); } out }";
        let r = check(spec, src);
        assert!(!r.passed);
        assert_eq!(r.first_failing, 1, "{r:?}");
        assert!(r.cases_passed >= 3 && r.cases_passed < r.cases_total, "{r:?}");
        assert_eq!(
            r.lines()[0],
            format!("FAIL  discounted-returns: passed {} of {} · first failure: case 1", r.cases_passed, r.cases_total)
        );
        assert!(r.lines()[1].starts_with("first failing case: "), "{:?}", r.lines());
    }

    #[test]
    fn the_reservoir_off_by_one_is_caught_draw_by_draw() {
        // rand_below(seen) instead of rand_below(seen + 1): nearly uniform, so
        // the statistics alone pass it; the same-draws comparison does not.
        let src = "fn reservoir_push(b, k, seen, item) { if b.len() < k { b.push(item); } \
                   else { let j = rand_below(seen); if j < k { b[j] = item; } } b }";
        let r = check(spec("reservoir").unwrap(), src);
        assert!(!r.passed);
        assert!(r.failure.unwrap().case.contains("the same random draws as the lab"));
    }

    #[test]
    fn a_missing_function_and_a_syntax_error_fail_clearly() {
        let spec = spec("ppo-clip").unwrap();
        let r = check(spec, "fn ppo(ratio, advantage, eps) { 0.0 }");
        assert!(r.failure.unwrap().got.contains("does not define fn ppo_clip"));
        let r = check(spec, "fn ppo_clip(ratio, advantage, eps) { let = 1; }");
        assert_eq!(r.failure.as_ref().unwrap().case, "compiling the script");
        assert!(r.failure.unwrap().got.starts_with("line 1"));
    }
}
