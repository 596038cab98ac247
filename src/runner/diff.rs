//! Two saved runs side by side: what differs in how they were made
//! (preset, seed, the parameters that differ, the learner's functions), the
//! claims with both values, and the last value of every series both logged.
//! `agentlab runs diff A B [--json]` prints it; the Runs tab shows it when
//! two rows are marked.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{RunConfig, RunRecord};
use crate::content::Cmp;
use crate::drills::{Report, RunStatus};

/// One run of the pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    pub dir: String,
    pub name: String,
    pub drill: String,
    pub preset: String,
    pub seed: u64,
    /// The exercises whose learner function it trained with.
    pub uses: Vec<String>,
    /// `passed`, `claims_failed`, `cancelled`, `failed`, or `interrupted` (no report).
    pub status: String,
    pub wall_s: Option<f64>,
}

/// A parameter (or the preset, the seed, a learner function) that differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changed {
    pub key: String,
    pub a: Option<String>,
    pub b: Option<String>,
}

/// A claim measured in either run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimPair {
    pub id: String,
    pub op: Cmp,
    pub threshold: f64,
    pub observation: bool,
    /// (measured, held) in each run.
    pub a: Option<(f64, bool)>,
    pub b: Option<(f64, bool)>,
}

/// A series' last value in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Final {
    pub name: String,
    pub a: f64,
    pub b: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunDiff {
    pub a: Side,
    pub b: Side,
    pub changed: Vec<Changed>,
    pub claims: Vec<ClaimPair>,
    pub finals: Vec<Final>,
}

fn status_word(report: Option<&Report>) -> String {
    match report.map(|r| &r.status) {
        None => "interrupted",
        Some(RunStatus::Passed) => "passed",
        Some(RunStatus::ClaimsFailed) => "claims_failed",
        Some(RunStatus::Cancelled) => "cancelled",
        Some(RunStatus::Failed(_)) => "failed",
    }
    .to_string()
}

fn side(r: &RunRecord) -> Side {
    let c = r.config.as_ref();
    Side {
        dir: r.dir.display().to_string(),
        name: r.name.clone(),
        drill: c.map(|c| c.drill.clone()).or_else(|| r.report.as_ref().map(|x| x.drill.clone())).unwrap_or_default(),
        preset: c.map(|c| c.preset.clone()).unwrap_or_default(),
        seed: c.map_or(0, |c| c.seed),
        uses: c.map(|c| c.uses.keys().cloned().collect()).unwrap_or_default(),
        status: status_word(r.report.as_ref()),
        wall_s: r.report.as_ref().map(|x| x.wall_s),
    }
}

/// What differs between the configs: preset, seed, device, each parameter, each learner function.
fn changed(a: Option<&RunConfig>, b: Option<&RunConfig>) -> Vec<Changed> {
    let mut out = Vec::new();
    let mut push = |key: &str, x: Option<String>, y: Option<String>| {
        if x != y {
            out.push(Changed { key: key.to_string(), a: x, b: y });
        }
    };
    push("preset", a.map(|c| c.preset.clone()), b.map(|c| c.preset.clone()));
    push("seed", a.map(|c| c.seed.to_string()), b.map(|c| c.seed.to_string()));
    push("device", a.map(|c| format!("{:?}", c.device)), b.map(|c| format!("{:?}", c.device)));
    let keys: BTreeSet<&String> = a.iter().chain(b.iter()).flat_map(|c| c.params.keys()).collect();
    for k in keys {
        let get = |c: Option<&RunConfig>| c.and_then(|c| c.params.get(k)).map(|v| v.to_string());
        push(k, get(a), get(b));
    }
    let uses: BTreeSet<&String> = a.iter().chain(b.iter()).flat_map(|c| c.uses.keys()).collect();
    for id in uses {
        let get = |c: Option<&RunConfig>| c.and_then(|c| c.uses.get(id)).map(|u| u.file.clone());
        push(&format!("use {id}"), get(a), get(b));
    }
    out
}

/// Compare run `a` with run `b`.
pub fn diff(a: &RunRecord, b: &RunRecord, series_a: &[(String, f64)], series_b: &[(String, f64)]) -> RunDiff {
    let mut claims: Vec<ClaimPair> = Vec::new();
    for (which, r) in [(0, a), (1, b)] {
        for c in r.report.iter().flat_map(|rep| &rep.claims) {
            let i = match claims.iter().position(|p| p.id == c.id) {
                Some(i) => i,
                None => {
                    claims.push(ClaimPair {
                        id: c.id.clone(),
                        op: c.op,
                        threshold: c.threshold,
                        observation: c.observation,
                        a: None,
                        b: None,
                    });
                    claims.len() - 1
                }
            };
            let v = Some((c.measured, c.pass));
            if which == 0 {
                claims[i].a = v;
            } else {
                claims[i].b = v;
            }
        }
    }
    let finals = series_a
        .iter()
        .filter_map(|(n, x)| {
            series_b.iter().find(|(m, _)| m == n).map(|(_, y)| Final { name: n.clone(), a: *x, b: *y })
        })
        .collect();
    RunDiff { a: side(a), b: side(b), changed: changed(a.config.as_ref(), b.config.as_ref()), claims, finals }
}

/// The last value of every series of a run's events (its report's `finals`
/// where the events are gone).
pub fn finals(r: &RunRecord) -> Vec<(String, f64)> {
    match super::load_events(&r.dir) {
        Ok(events) => {
            super::series(&events).into_iter().filter_map(|(n, pts)| pts.last().map(|p| (n, p.value))).collect()
        }
        Err(_) => r.report.iter().flat_map(|rep| rep.finals.iter().map(|(k, v)| (k.clone(), *v))).collect(),
    }
}

impl RunDiff {
    /// The diff as text (the headless command's output).
    pub fn text(&self) -> String {
        use crate::numbers::fmt_value;
        let mut out = String::new();
        for (tag, s) in [("A", &self.a), ("B", &self.b)] {
            let uses = match s.uses.is_empty() {
                true => String::new(),
                false => format!(" · {}", crate::t!("drill-with-yours", ids = s.uses.join(", "))),
            };
            let wall = s.wall_s.map(|w| format!(" · {w:.0} s")).unwrap_or_default();
            let status = match s.status.as_str() {
                "passed" => crate::t!("drill-status-passed"),
                "claims_failed" => crate::t!("drill-status-claim-failed"),
                "cancelled" => crate::t!("drill-status-cancelled"),
                "failed" => crate::t!("drill-status-error"),
                _ => crate::t!("drill-status-interrupted"),
            };
            out.push_str(&format!("{tag}  {}  ({}, seed {}{uses} · {status}{wall})\n", s.dir, s.preset, s.seed));
        }
        out.push('\n');
        if self.changed.is_empty() {
            out.push_str(&format!("{}\n", crate::t!("runs-diff-same-config")));
        } else {
            out.push_str(&format!("{}\n", crate::t!("runs-diff-changed")));
            let w = self.changed.iter().map(|c| c.key.chars().count()).max().unwrap_or(0);
            let vw = self.changed.iter().map(|c| c.a.as_deref().unwrap_or("—").chars().count()).max().unwrap_or(1);
            for c in &self.changed {
                out.push_str(&format!(
                    "  {:w$}  A {:vw$}  B {}\n",
                    c.key,
                    c.a.as_deref().unwrap_or("—"),
                    c.b.as_deref().unwrap_or("—")
                ));
            }
        }
        if !self.claims.is_empty() {
            out.push_str(&format!("\n{}\n", crate::t!("runs-diff-claims")));
            let w = self.claims.iter().map(|c| c.id.chars().count()).max().unwrap_or(0);
            let cell = |v: Option<(f64, bool)>, obs: bool| match v {
                None => "—".to_string(),
                Some((x, _)) if obs => format!("· {}", fmt_value(x)),
                Some((x, true)) => format!("✓ {}", fmt_value(x)),
                Some((x, false)) => format!("✗ {}", fmt_value(x)),
            };
            for c in &self.claims {
                let a = cell(c.a, c.observation);
                out.push_str(&format!(
                    "  {:w$}  {} {:<4}  A {:12}  B {}{}\n",
                    c.id,
                    c.op.symbol(),
                    fmt_value(c.threshold),
                    a,
                    cell(c.b, c.observation),
                    if c.observation { format!("  ({})", crate::t!("runs-diff-observation")) } else { String::new() }
                ));
            }
        }
        let moved: Vec<&Final> = self.finals.iter().filter(|f| f.a != f.b).collect();
        if !moved.is_empty() {
            out.push_str(&format!("\n{}\n", crate::t!("runs-diff-finals")));
            let w = moved.iter().map(|f| f.name.chars().count()).max().unwrap_or(0);
            for f in moved {
                out.push_str(&format!("  {:w$}  A {:12}  B {}\n", f.name, fmt_value(f.a), fmt_value(f.b)));
            }
        }
        out
    }
}
