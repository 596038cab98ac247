//! What a run has reported so far, folded from its events: the series, the
//! log, the claims, the teaching views, the phase and the progress. The same
//! fold serves a live run and a run reloaded from disk.

use std::time::Instant;

use crate::drills::{ClaimResult, Event, Report, View};
use crate::runner::Point;

/// Everything a run reported, accumulated for drawing (live or reloaded).
#[derive(Debug, Clone, Default)]
pub struct RunView {
    pub series: Vec<(String, Vec<Point>)>,
    pub logs: Vec<String>,
    pub claims: Vec<ClaimResult>,
    pub views: Vec<View>,
    pub phase: String,
    pub device: String,
    /// (step, total, tokens) of the latest progress event.
    pub progress: Option<(u64, u64, u64)>,
    pub report: Option<Report>,
    /// When the current phase's first progress arrived, and tokens then (live runs).
    phase_start: Option<(Instant, u64, u64)>,
    /// Recent (time, tokens) samples for tokens/s.
    rate: Vec<(Instant, u64)>,
    /// When the live run started, how many phases it has entered, and the
    /// phase its latest progress belongs to.
    started: Option<Instant>,
    phases_seen: usize,
    progress_phase: usize,
    /// How long the run is expected to take, for its ETA over all phases.
    pub pace: Option<Pace>,
}

/// What a run's ETA over the whole run reads from: a finished run of the same
/// configuration on this machine (when each of its phases began, in seconds
/// from its start, and its wall time), or only a measured total (the
/// drill's `measured_s`, no phases).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pace {
    pub phases: Vec<(String, f64)>,
    pub total_s: f64,
}

/// Seconds left: in the whole run, or (with nothing measured to go by) in
/// the current phase only, and said so.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Eta {
    Run(f64),
    Phase(f64),
}

impl Eta {
    /// "1m left", "40s left in this phase".
    pub fn text(self) -> String {
        let time = |s: f64| crate::progress::summary::duration_text(s.round().max(1.0) as u64);
        match self {
            Eta::Run(s) => crate::t!("drill-gauge-eta-run", time = time(s)),
            Eta::Phase(s) => crate::t!("drill-gauge-eta-phase", time = time(s)),
        }
    }
}

impl RunView {
    pub fn apply(&mut self, e: Event) {
        match e {
            Event::Started { device, preset, seed, .. } => {
                self.started = Some(Instant::now());
                self.device = device.clone();
                self.logs.push(crate::t!(
                    "drill-log-started",
                    preset = preset,
                    seed = seed.to_string(),
                    device = device
                ));
            }
            Event::Phase(p) => {
                self.logs.push(format!("── {p}"));
                self.phase = p;
                self.phase_start = None;
                self.phases_seen += 1;
            }
            Event::Log(l) => self.logs.push(l),
            Event::Metric { step, name, value, t } => {
                let p = Point { step: step as f64, t, value };
                match self.series.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, pts)) => pts.push(p),
                    None => self.series.push((name, vec![p])),
                }
            }
            Event::Progress { step, total, tokens } => {
                let now = Instant::now();
                if self.phase_start.is_none() {
                    self.phase_start = Some((now, step, tokens));
                }
                // A phase that counts its tokens from 0 again starts a new rate.
                if self.rate.last().is_some_and(|&(_, k)| tokens < k) {
                    self.rate.clear();
                }
                self.rate.push((now, tokens));
                self.rate.retain(|(t, _)| now.duration_since(*t).as_secs_f64() < 3.0);
                self.progress = Some((step, total, tokens));
                self.progress_phase = self.phases_seen;
            }
            Event::Claim(c) => {
                let (id, value) = (c.id.as_str(), format!("{:.4}", c.measured));
                let (op, threshold) = (c.op.symbol(), c.threshold.to_string());
                self.logs.push(match (c.observation, c.pass) {
                    (true, _) => {
                        crate::t!("drill-log-observed", id = id, value = value, op = op, threshold = threshold)
                    }
                    (false, true) => {
                        crate::t!("drill-log-pass", id = id, value = value, op = op, threshold = threshold)
                    }
                    (false, false) => {
                        crate::t!("drill-log-fail", id = id, value = value, op = op, threshold = threshold)
                    }
                });
                self.claims.retain(|x| x.id != c.id);
                self.claims.push(c);
            }
            Event::View(v) => {
                self.views.retain(|x| x.title() != v.title());
                self.views.push(v);
            }
            Event::Finished(r) => {
                self.logs.push(format!("■ {}", r.outcome()));
                self.report = Some(r);
            }
        }
    }

    /// Seconds left in the current phase, extrapolated from its pace so far.
    fn phase_left(&self) -> Option<f64> {
        let (step, total, _) = self.progress?;
        let (start, s0, _) = self.phase_start?;
        let done = step.saturating_sub(s0);
        if done == 0 || step >= total || self.progress_phase != self.phases_seen {
            return None;
        }
        let per = start.elapsed().as_secs_f64() / done as f64;
        Some(per * (total - step) as f64)
    }

    /// Seconds left of the live run, over all its phases where a finished
    /// run of the same configuration says what share of the time each phase
    /// took; else from a measured total; else the current phase's only.
    pub fn eta(&self) -> Option<Eta> {
        let elapsed = self.started?.elapsed().as_secs_f64();
        self.eta_at(elapsed)
    }

    /// [`RunView::eta`] with `elapsed` seconds since the run started (tests pass their own).
    pub fn eta_at(&self, elapsed: f64) -> Option<Eta> {
        if self.report.is_some() {
            return None;
        }
        let phase_left = self.phase_left();
        let Some(pace) = self.pace.as_ref().filter(|p| p.total_s > 0.0) else {
            return phase_left.map(Eta::Phase);
        };
        let k = self.phases_seen.checked_sub(1);
        let same_phase = k.and_then(|k| pace.phases.get(k)).is_some_and(|(name, _)| *name == self.phase);
        if !same_phase {
            // A total only (or a run that went otherwise): what is left of it, never less than the phase needs.
            let left = (pace.total_s - elapsed).max(phase_left.unwrap_or(0.0));
            return Some(Eta::Run(left.max(0.0)));
        }
        let k = k.unwrap_or(0);
        let begin = pace.phases[k].1 / pace.total_s;
        let end = pace.phases.get(k + 1).map_or(1.0, |(_, t)| t / pace.total_s);
        let within = match self.progress {
            Some((step, total, _)) if self.progress_phase == self.phases_seen => step as f64 / total.max(1) as f64,
            _ => 0.0,
        };
        let done = (begin + within.clamp(0.0, 1.0) * (end - begin)).clamp(0.0, 1.0);
        // Too little done to scale by: the past run's total stands.
        let whole = if done >= 0.05 { elapsed / done } else { pace.total_s };
        Some(Eta::Run((whole - elapsed).max(0.0)))
    }

    /// Tokens per second over the last seconds; `None` where the drill
    /// counts no tokens (its progress carries 0): no "0.0K tok/s" that only
    /// says nothing is counted.
    pub fn tokens_per_s(&self) -> Option<f64> {
        let (t0, k0) = *self.rate.first()?;
        let (t1, k1) = *self.rate.last()?;
        if k1 == 0 {
            return None;
        }
        let dt = t1.duration_since(t0).as_secs_f64();
        (dt > 0.2).then(|| (k1.saturating_sub(k0)) as f64 / dt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started() -> Event {
        Event::Started {
            drill: "d".into(),
            preset: "quick".into(),
            seed: 1,
            device: "cpu".into(),
            params: Default::default(),
        }
    }

    fn progress(step: u64, total: u64) -> Event {
        Event::Progress { step, total, tokens: 0 }
    }

    fn run_secs(eta: Option<Eta>) -> f64 {
        match eta {
            Some(Eta::Run(s)) => s,
            other => panic!("expected an ETA over the whole run, got {other:?}"),
        }
    }

    #[test]
    fn eta_covers_every_phase_by_a_past_runs_shares() {
        // A past run: SFT took half of its 60 s, GRPO a third, the evaluation the rest.
        let pace =
            Pace { phases: vec![("sft".into(), 0.0), ("grpo".into(), 30.0), ("eval".into(), 50.0)], total_s: 60.0 };
        let mut v = RunView { pace: Some(pace), ..RunView::default() };
        v.apply(started());
        v.apply(Event::Phase("sft".into()));
        v.apply(progress(5, 10));
        // Half of SFT is a quarter of the run: 15 s in, 45 s are left (not the phase's 15).
        assert!((run_secs(v.eta_at(15.0)) - 45.0).abs() < 1e-9);
        // A new phase before its first progress: its start's share.
        v.apply(Event::Phase("grpo".into()));
        assert!((run_secs(v.eta_at(30.0)) - 30.0).abs() < 1e-9);
        v.apply(progress(10, 20));
        assert!((run_secs(v.eta_at(40.0)) - 20.0).abs() < 1e-9);
        // A slower machine: the same share took longer, and so will the rest.
        assert!((run_secs(v.eta_at(80.0)) - 40.0).abs() < 1e-9);
    }

    #[test]
    fn eta_without_a_past_run_reads_a_measured_total_or_says_it_is_the_phase() {
        let mut v = RunView::default();
        v.apply(started());
        v.apply(Event::Phase("sft".into()));
        v.apply(progress(1, 10));
        v.apply(progress(2, 10));
        assert!(matches!(v.eta_at(5.0), Some(Eta::Phase(_))), "{:?}", v.eta_at(5.0));
        assert!(Eta::Phase(33.0).text().contains("33s"));
        v.pace = Some(Pace { phases: Vec::new(), total_s: 60.0 });
        assert!(run_secs(v.eta_at(5.0)) >= 55.0 - 1e-9);
        // Finished: no ETA.
        v.apply(Event::Finished(crate::drills::Report {
            drill: "d".into(),
            preset: "quick".into(),
            seed: 1,
            status: crate::drills::RunStatus::Passed,
            claims: Vec::new(),
            wall_s: 6.0,
            finals: Default::default(),
            phases: Vec::new(),
        }));
        assert_eq!(v.eta_at(6.0), None);
    }
}
