//! Drills: real training runs that end in measured claims.
//!
//! A drill is a [`Drill`] (the code) plus `drills/<id>/drill.toml` (its
//! metadata: parameters, presets, claims and thresholds). `run` reads its
//! hyperparameters from a [`RunCtx`] and reports through it — metric points,
//! log lines, phases, progress, teaching views and claim results — as
//! [`Event`]s. A drill never touches the UI: the TUI, the headless CLI and the
//! tests all consume the same events.

pub mod events;
pub mod ewc_replay;
pub mod react_tool_call_loop;
pub mod self_refine_loop;
pub mod sft_basics;
pub mod turn_credit_assignment;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use candle_core::Device;

pub use events::{ClaimResult, Event, Report, RunStatus, TokenCell, TokenKind, View};

use crate::content::{DrillMeta, ParamValue};

/// The code of a drill.
pub trait Drill: Send + Sync {
    fn id(&self) -> &'static str;
    fn run(&self, ctx: &mut RunCtx) -> Result<()>;
}

/// Every drill the program can run.
pub fn registry() -> Vec<&'static dyn Drill> {
    vec![
        &sft_basics::SftBasics,
        &react_tool_call_loop::ReactToolCallLoop,
        &turn_credit_assignment::TurnCreditAssignment,
        &ewc_replay::EwcReplay,
        &self_refine_loop::SelfRefineLoop,
    ]
}

pub fn find(id: &str) -> Option<&'static dyn Drill> {
    registry().into_iter().find(|d| d.id() == id)
}

/// The run was cancelled by the learner (not a failure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// Everything a running drill can read and report.
pub struct RunCtx {
    pub meta: DrillMeta,
    pub params: BTreeMap<String, ParamValue>,
    pub preset: String,
    pub seed: u64,
    pub device: Device,
    sink: Box<dyn FnMut(Event) + Send>,
    cancel: Arc<AtomicBool>,
    started: Instant,
    claims: Vec<ClaimResult>,
}

impl RunCtx {
    pub fn new(
        meta: DrillMeta,
        params: BTreeMap<String, ParamValue>,
        preset: &str,
        seed: u64,
        device: Device,
        cancel: Arc<AtomicBool>,
        sink: Box<dyn FnMut(Event) + Send>,
    ) -> RunCtx {
        RunCtx {
            meta,
            params,
            preset: preset.to_string(),
            seed,
            device,
            sink,
            cancel,
            started: Instant::now(),
            claims: Vec::new(),
        }
    }

    fn value(&self, key: &str) -> Result<&ParamValue> {
        self.params
            .get(key)
            .ok_or_else(|| anyhow!("drill {} has no parameter `{key}` (drill.toml and code disagree)", self.meta.id))
    }

    pub fn f64(&self, key: &str) -> Result<f64> {
        self.value(key)?.as_f64().ok_or_else(|| anyhow!("parameter `{key}` is not a number"))
    }

    pub fn usize(&self, key: &str) -> Result<usize> {
        match self.value(key)? {
            ParamValue::Int(i) if *i >= 0 => Ok(*i as usize),
            v => bail!("parameter `{key}` = {v} is not a non-negative integer"),
        }
    }

    pub fn bool(&self, key: &str) -> Result<bool> {
        match self.value(key)? {
            ParamValue::Bool(b) => Ok(*b),
            v => bail!("parameter `{key}` = {v} is not true/false"),
        }
    }

    pub fn text(&self, key: &str) -> Result<String> {
        match self.value(key)? {
            ParamValue::Text(s) => Ok(s.clone()),
            v => bail!("parameter `{key}` = {v} is not a choice"),
        }
    }

    /// Seconds since the run started.
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    pub fn emit(&mut self, e: Event) {
        (self.sink)(e)
    }

    pub fn metric(&mut self, step: usize, name: &str, value: f64) {
        let t = self.elapsed();
        self.emit(Event::Metric { step: step as u64, name: name.to_string(), value, t });
    }

    pub fn log(&mut self, msg: impl Into<String>) {
        self.emit(Event::Log(msg.into()));
    }

    pub fn phase(&mut self, name: impl Into<String>) {
        self.emit(Event::Phase(name.into()));
    }

    /// `step` of `total` in the current phase; `tokens` trained so far (for tokens/s).
    pub fn progress(&mut self, step: usize, total: usize, tokens: u64) {
        self.emit(Event::Progress { step: step as u64, total: total as u64, tokens });
    }

    pub fn view(&mut self, v: View) {
        self.emit(Event::View(v));
    }

    /// Stop here if the learner cancelled. Drills call this between steps.
    pub fn check_cancel(&self) -> Result<()> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(Cancelled.into());
        }
        Ok(())
    }

    /// Stop the run with a clear message if a loss is NaN or infinite.
    pub fn finite(&self, what: &str, value: f64, step: usize) -> Result<f64> {
        Ok(crate::ml::optim::check_finite(what, value, step)?)
    }

    /// Compare a measured value with the claim's threshold from drill.toml.
    pub fn claim(&mut self, id: &str, measured: f64) -> Result<bool> {
        let spec = self
            .meta
            .claim(id)
            .ok_or_else(|| anyhow!("drill {} has no claim `{id}` in drill.toml", self.meta.id))?
            .clone();
        let pass = spec.op.holds(measured, spec.threshold);
        let r = ClaimResult { id: spec.id, text: spec.text, measured, op: spec.op, threshold: spec.threshold, pass };
        self.claims.push(r.clone());
        self.emit(Event::Claim(r));
        Ok(pass)
    }

    pub fn claims(&self) -> &[ClaimResult] {
        &self.claims
    }

    /// Hand the event sink back once the drill has returned.
    pub fn into_sink(self) -> Box<dyn FnMut(Event) + Send> {
        self.sink
    }
}
