//! Every drill's quick preset, run for real on the CPU for two seeds: the
//! claims must hold (they are measured, not asserted by construction).

use agentlab::content::Content;
use agentlab::drills::{Event, Report, RunStatus};
use agentlab::ml::device::DeviceChoice;
use agentlab::runner::{self, RunConfig};

fn run(id: &str, seed: u64) -> Report {
    let content = Content::embedded().unwrap();
    let meta = content.drill(id).unwrap();
    let params = runner::resolve_params(meta, "quick", &[]).unwrap();
    let root = tempfile::tempdir().unwrap();
    let config = RunConfig { drill: id.into(), preset: "quick".into(), seed, device: DeviceChoice::Cpu, params };
    let mut h = runner::start(meta, config, root.path()).unwrap();
    let report = h.rx.iter().find_map(|e| if let Event::Finished(r) = e { Some(r) } else { None }).unwrap();
    h.join();
    for c in &report.claims {
        eprintln!(
            "{id} seed {seed}: {} = {:.4} ({} {}) {}",
            c.id,
            c.measured,
            c.op.symbol(),
            c.threshold,
            if c.pass { "pass" } else { "FAIL" }
        );
    }
    eprintln!("{id} seed {seed}: {:.1} s", report.wall_s);
    report
}

fn check(id: &str, seeds: &[u64]) {
    for &seed in seeds {
        let r = run(id, seed);
        assert_eq!(r.status, RunStatus::Passed, "{id} seed {seed}: {:?}\n{:#?}", r.status, r.claims);
    }
}

#[test]
fn sft_basics_quick_passes_for_two_seeds() {
    check("sft-basics", &[1, 2]);
}

#[test]
fn ewc_replay_quick_passes_for_two_seeds() {
    check("ewc-replay", &[1, 2]);
}

#[test]
fn react_tool_call_loop_quick_passes_for_two_seeds() {
    check("react-tool-call-loop", &[1, 2]);
}

#[test]
fn turn_credit_assignment_quick_passes_for_two_seeds() {
    check("turn-credit-assignment", &[1, 2]);
}

#[test]
fn self_refine_loop_quick_passes_for_two_seeds() {
    check("self-refine-loop", &[1, 2]);
}
