//! The drill runner: event order, reports, cancellation, panics, errors, NaN
//! detection, the saved run directory, and export.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use agentlab::content::DrillMeta;
use agentlab::drills::{Drill, Event, ParamMap, RunCtx, RunStatus, TypedDrill};
use agentlab::ml::device::DeviceChoice;
use agentlab::runner::{self, RunConfig};

const META: &str = r#"
id = "test-drill"
title = "Test"
track = 0
objective = "exercise the runner"

[[param]]
key = "steps"
kind = "int"
default = 5
min = 0
max = 1000000

[presets.quick]

[[claim]]
id = "value"
text = "final value"
op = ">="
threshold = 3.0
"#;

fn meta() -> DrillMeta {
    DrillMeta::parse(META, "# test").unwrap()
}

fn config(steps: i64) -> RunConfig {
    let mut params = BTreeMap::new();
    params.insert("steps".to_string(), agentlab::content::ParamValue::Int(steps));
    RunConfig {
        drill: "test-drill".into(),
        preset: "quick".into(),
        seed: 1,
        device: DeviceChoice::Cpu,
        params,
        uses: Default::default(),
        keep: true,
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CountingParams {
    steps: usize,
}

struct Counting;
impl TypedDrill for Counting {
    const ID: &'static str = "test-drill";
    const CLAIMS: &'static [&'static str] = &["value"];
    type Params = CountingParams;
    fn run(&self, p: &CountingParams, ctx: &mut RunCtx) -> anyhow::Result<()> {
        let steps = p.steps;
        ctx.phase("train");
        for s in 0..steps {
            ctx.check_cancel()?;
            ctx.metric(s, "loss", 1.0 / (s + 1) as f64);
            ctx.progress(s + 1, steps, (s as u64 + 1) * 10);
            if steps > 100 {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        ctx.claim("value", steps as f64)?;
        Ok(())
    }
}

struct Panics;
impl Drill for Panics {
    fn id(&self) -> &'static str {
        "test-drill"
    }
    fn check(&self, _: &ParamMap) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, ctx: &mut RunCtx) -> anyhow::Result<()> {
        ctx.log("about to fail");
        let v: Vec<u32> = Vec::new();
        let _ = v[3];
        Ok(())
    }
}

struct Errors;
impl Drill for Errors {
    fn id(&self) -> &'static str {
        "test-drill"
    }
    fn check(&self, _: &ParamMap) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, _: &mut RunCtx) -> anyhow::Result<()> {
        anyhow::bail!("the data generator ran dry")
    }
}

/// A real (tiny) training loop whose learning rate is far too high.
struct Diverges;
impl Drill for Diverges {
    fn id(&self) -> &'static str {
        "test-drill"
    }
    fn check(&self, _: &ParamMap) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, ctx: &mut RunCtx) -> anyhow::Result<()> {
        use candle_core::{Tensor, Var};
        let w = Var::new(&[1.0f32], &ctx.device)?;
        let x = Tensor::new(&[3.0f32], &ctx.device)?;
        for step in 0..100 {
            // Gradient descent on w²·x² with lr 10: |w| grows ×179 per step until it overflows.
            let loss = (w.as_tensor() * &x)?.sqr()?.sum_all()?;
            let value = ctx.finite("loss", loss.to_scalar::<f32>()? as f64, step)?;
            ctx.metric(step, "loss", value);
            let g = loss.backward()?;
            w.set(&(w.as_tensor() - (g.get(w.as_tensor()).unwrap() * 10.0)?)?)?;
        }
        ctx.claim("value", 0.0)?;
        Ok(())
    }
}

struct Silent;
impl Drill for Silent {
    fn id(&self) -> &'static str {
        "test-drill"
    }
    fn check(&self, _: &ParamMap) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, _: &mut RunCtx) -> anyhow::Result<()> {
        Ok(())
    }
}

fn run_to_end(drill: &'static dyn Drill, steps: i64) -> (Vec<Event>, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap().keep();
    let mut h = runner::start_with(drill, &meta(), config(steps), &root).unwrap();
    let events: Vec<Event> = h.rx.iter().collect();
    h.join();
    (events, h.dir.clone())
}

fn report(events: &[Event]) -> agentlab::drills::Report {
    match events.last() {
        Some(Event::Finished(r)) => r.clone(),
        other => panic!("the last event is the report, got {other:?}"),
    }
}

#[test]
fn events_stream_in_order_and_end_with_a_report() {
    let (events, dir) = run_to_end(&Counting, 5);
    assert!(matches!(events[0], Event::Started { .. }));
    assert_eq!(events[1], Event::Phase("train".into()));
    let steps: Vec<u64> =
        events.iter().filter_map(|e| if let Event::Metric { step, .. } = e { Some(*step) } else { None }).collect();
    assert_eq!(steps, vec![0, 1, 2, 3, 4]);
    let r = report(&events);
    assert_eq!(r.status, RunStatus::Passed);
    assert_eq!(r.claims.len(), 1);
    assert_eq!(r.finals["loss"], 0.2);
    // When each phase began: the next run's ETA over the whole run reads its shares.
    assert_eq!(r.phases.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["train"]);
    assert!(r.phases[0].1 >= 0.0 && r.phases[0].1 <= r.wall_s);
    // The run directory holds the same story and reloads.
    let saved = runner::load_run(&dir);
    assert_eq!(saved.report.unwrap(), r);
    assert_eq!(saved.config.unwrap(), config(5));
    assert_eq!(runner::load_events(&dir).unwrap(), events);
    assert_eq!(runner::series(&events)[0].1.len(), 5);
}

#[test]
fn a_failed_claim_is_reported_as_such() {
    let (events, _) = run_to_end(&Counting, 2);
    let r = report(&events);
    assert_eq!(r.status, RunStatus::ClaimsFailed);
    assert!(!r.claims[0].pass);
}

#[test]
fn cancel_stops_a_run_within_a_second() {
    let root = tempfile::tempdir().unwrap();
    let mut h = runner::start_with(&Counting, &meta(), config(100_000), root.path()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    h.cancel();
    let events: Vec<Event> = h.rx.iter().collect();
    let took = asked.elapsed();
    h.join();
    assert_eq!(report(&events).status, RunStatus::Cancelled);
    assert!(took < Duration::from_secs(1), "stopped after {took:?}");
    // What was logged before the cancel is kept on disk.
    let saved = runner::load_events(&h.dir).unwrap();
    assert!(saved.iter().filter(|e| matches!(e, Event::Metric { .. })).count() > 3);
}

#[test]
fn a_panicking_drill_fails_without_taking_the_process_down() {
    let (events, dir) = run_to_end(&Panics, 1);
    match report(&events).status {
        RunStatus::Failed(m) => assert!(m.contains("panicked") && m.contains("index out of bounds"), "{m}"),
        s => panic!("{s:?}"),
    }
    assert!(events.contains(&Event::Log("about to fail".into())));
    assert!(dir.join("report.json").is_file());
}

#[test]
fn an_error_is_reported_with_its_message() {
    let (events, _) = run_to_end(&Errors, 1);
    assert_eq!(report(&events).status, RunStatus::Failed("the data generator ran dry".into()));
}

#[test]
fn nan_loss_stops_the_run_with_a_clear_message() {
    let (events, _) = run_to_end(&Diverges, 1);
    match report(&events).status {
        RunStatus::Failed(m) => assert!(m.contains("loss became") && m.contains("lower the learning rate"), "{m}"),
        s => panic!("{s:?}"),
    }
    let points = runner::series(&events);
    assert!(!points.is_empty() && points[0].1.len() < 100, "stopped early");
}

#[test]
fn a_drill_that_skips_its_claims_is_a_failure() {
    let (events, _) = run_to_end(&Silent, 1);
    match report(&events).status {
        RunStatus::Failed(m) => assert!(m.contains("without measuring: value"), "{m}"),
        s => panic!("{s:?}"),
    }
}

#[test]
fn export_writes_png_svg_and_csv() {
    let (_, dir) = run_to_end(&Counting, 20);
    let png = agentlab::plot::export_run(&dir, agentlab::plot::Format::Png, None).unwrap();
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.len() > 1000 && bytes.starts_with(&[0x89, b'P', b'N', b'G']));
    let svg = agentlab::plot::export_run(&dir, agentlab::plot::Format::Svg, None).unwrap();
    let text = std::fs::read_to_string(svg).unwrap();
    assert!(text.contains("<svg") && text.contains("loss"));
    let csv = agentlab::plot::write_csv(&dir, None).unwrap();
    assert_eq!(std::fs::read_to_string(csv).unwrap().lines().count(), 21);
}

#[test]
fn parameters_are_validated_with_clear_messages() {
    let content = agentlab::content::Content::embedded().unwrap();
    let m = content.drill("sft-basics").unwrap();
    let ok = runner::resolve_params(m, "quick", &[("lr".into(), "1e-3".into())]).unwrap();
    assert_eq!(ok["lr"], agentlab::content::ParamValue::Float(1e-3));
    let e = runner::resolve_params(m, "quick", &[("lr".into(), "fast".into())]).unwrap_err();
    assert!(e.contains("not a number"), "{e}");
    let e = runner::resolve_params(m, "quick", &[("lr".into(), "5".into())]).unwrap_err();
    assert!(e.contains("above the maximum"), "{e}");
    let e = runner::resolve_params(m, "quick", &[("nope".into(), "1".into())]).unwrap_err();
    assert!(e.contains("no parameter \"nope\""), "{e}");
    let e = runner::resolve_params(m, "turbo", &[]).unwrap_err();
    assert!(e.contains("no preset \"turbo\""), "{e}");
}

#[test]
fn runs_started_in_the_same_second_get_their_own_directories() {
    let root = tempfile::tempdir().unwrap();
    let handles: Vec<_> =
        (0..4).map(|_| runner::start_with(&Counting, &meta(), config(3), root.path()).unwrap()).collect();
    let mut dirs: Vec<_> = handles.iter().map(|h| h.dir.clone()).collect();
    for mut h in handles {
        h.join();
    }
    dirs.sort();
    dirs.dedup();
    assert_eq!(dirs.len(), 4, "{dirs:?}");
    for d in &dirs {
        // Each directory holds one run's events: one start, one report.
        let events = runner::load_events(d).unwrap();
        assert_eq!(events.iter().filter(|e| matches!(e, Event::Started { .. })).count(), 1, "{d:?}");
        assert_eq!(events.iter().filter(|e| matches!(e, Event::Finished(_))).count(), 1, "{d:?}");
    }
}

/// Every drill's typed parameters accept every preset of its drill.toml and
/// every value of every choice; the rules between parameters are checked.
#[test]
fn every_preset_and_choice_parses_into_the_drills_typed_parameters() {
    let content = agentlab::content::Content::embedded().unwrap();
    for meta in &content.drills {
        let drill = agentlab::drills::find(&meta.id).unwrap_or_else(|| panic!("{} has no code", meta.id));
        for preset in meta.presets.keys() {
            let values = meta.preset_values(preset).unwrap();
            drill.check(&values).unwrap_or_else(|e| panic!("{} preset {preset}: {e}", meta.id));
            for p in meta.params.iter().filter(|p| p.choices.is_some()) {
                for c in p.choices.as_ref().unwrap() {
                    let mut v = values.clone();
                    v.insert(p.key.clone(), agentlab::content::ParamValue::Text(c.clone()));
                    drill.check(&v).unwrap_or_else(|e| panic!("{} {}={c}: {e}", meta.id, p.key));
                }
            }
            // A key the code does not know, or a missing one, is refused.
            let mut extra = values.clone();
            extra.insert("no_such_param".into(), agentlab::content::ParamValue::Int(1));
            assert!(drill.check(&extra).unwrap_err().contains("no_such_param"), "{}", meta.id);
            let mut missing = values.clone();
            let first = meta.params[0].key.clone();
            missing.remove(&first);
            assert!(drill.check(&missing).unwrap_err().contains(&first), "{}", meta.id);
        }
    }
}
