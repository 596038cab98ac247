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
}

impl RunView {
    pub fn apply(&mut self, e: Event) {
        match e {
            Event::Started { device, preset, seed, .. } => {
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
    pub fn eta(&self) -> Option<f64> {
        let (step, total, _) = self.progress?;
        let (start, s0, _) = self.phase_start?;
        let done = step.saturating_sub(s0);
        if done == 0 || step >= total {
            return None;
        }
        let per = start.elapsed().as_secs_f64() / done as f64;
        Some(per * (total - step) as f64)
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
