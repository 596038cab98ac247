//! Drills: real training runs that end in measured claims.
//!
//! A drill is code (a [`TypedDrill`]) plus `drills/<id>/drill.toml` (its
//! metadata: parameters with ranges, presets, claims and thresholds).
//!
//! **Parameters** are a typed struct per drill (`serde`, with
//! `deny_unknown_fields`; a choice is an enum such as
//! [`Baseline`](crate::rl::advantage::Baseline)). The values a learner picked
//! (preset, `--set`, the TUI editor) are checked against `drill.toml` first
//! (types, ranges, choices), then parsed into the struct and checked for rules
//! that tie parameters together ([`TypedDrill::validate`], e.g. `n_heads`
//! divides `d_model`) — once, before a run starts; [`Drill::check`] is what
//! the CLI and the TUI editor call. Inside `run` there are no string-keyed
//! lookups and no fallback for an unknown choice.
//!
//! **Running**: `run` reads as a list of named phases (data, warm start,
//! rollout, update, evaluate, probe), each a function taking plain structs.
//! It reports through the [`RunCtx`] — metric points, log lines, phases,
//! progress, teaching views and claim results — as [`Event`]s. A drill never
//! touches the UI: the TUI, the headless CLI and the tests consume the same
//! events. Training steps go through [`Trainer`](crate::ml::train::Trainer).
//!
//! **Claims** are findings about learning that a wrong implementation or a
//! different setting would break; each drill's README names that setting.
//! A claim marked `observation = true` in `drill.toml` is reported with its
//! value but never decides whether the run passed.
//!
//! **Reproducibility**: on the CPU a drill's metrics are a function of its
//! parameters and seed alone — every random draw comes from the seed, and
//! every parallel reduction in the model adds its partial sums in a fixed
//! order, whatever the number of threads.

mod addition;
pub mod agent_pipeline;
pub mod dpo_pairs;
pub mod events;
pub mod ewc_replay;
pub mod grpo_rlvr;
pub mod keep;
pub mod long_context_rope;
pub mod lora_vs_full;
pub mod model_merging;
pub mod pass_at_k_harness;
pub(crate) mod pipeline;
pub mod prompt_injection;
pub mod react_tool_call_loop;
pub mod reward_model_overopt;
pub mod rollout_infra;
pub mod self_refine_loop;
pub mod sft_basics;
pub mod tool_retrieval;
pub mod try_it;
pub mod turn_credit_assignment;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use candle_core::Device;
use serde::de::DeserializeOwned;

pub use crate::numbers::fmt_value;
pub use events::{ClaimResult, Event, Report, RunStatus, TokenCell, TokenKind, View};
pub use keep::KeptRun;
pub use try_it::TrySession;

use crate::content::{DrillMeta, ParamValue};

/// Parameter values by key, as `drill.toml`, presets and `--set` give them.
pub type ParamMap = BTreeMap<String, ParamValue>;

/// The code of a drill, as the runner, the CLI and the TUI see it.
pub trait Drill: Send + Sync {
    fn id(&self) -> &'static str;
    /// Parse `params` into the drill's typed parameters and check the rules
    /// that tie them together. `Err` is a message for the learner.
    fn check(&self, params: &ParamMap) -> Result<(), String>;
    fn run(&self, ctx: &mut RunCtx) -> Result<()>;
    /// The ids of the claims the code measures (see [`TypedDrill::CLAIMS`]).
    fn claims(&self) -> &'static [&'static str] {
        &[]
    }
    /// Try on a saved run's models ([`try_it`]); a drill without one refuses
    /// with [`try_it::Refused`] and the reason.
    fn open_try(&self, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
        let _ = (run, device);
        try_it::refuse(crate::t!("try-none", id = self.id()))
    }
    /// Why this drill has no Try, where it has none by design (`None`: it
    /// has one): Try says so before it looks for the run's models.
    fn no_try(&self) -> Option<String> {
        None
    }
}

/// A drill with typed parameters. Every `TypedDrill` is a [`Drill`].
pub trait TypedDrill: Send + Sync {
    const ID: &'static str;
    /// Every claim id `run` measures with [`RunCtx::claim`], as `drill.toml`
    /// must declare them: `validate` refuses a `[[claim]]` no code measures,
    /// and a run refuses to report one that is not listed here.
    const CLAIMS: &'static [&'static str];
    /// The parameters, one field per `[[param]]` of `drill.toml`.
    type Params: DeserializeOwned;
    /// Rules between parameters (ranges of single values are in `drill.toml`).
    fn validate(_p: &Self::Params) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, p: &Self::Params, ctx: &mut RunCtx) -> Result<()>;
    /// Try on a saved run (see [`try_it`]): none unless a drill has one.
    fn open_try(_p: &Self::Params, _run: &KeptRun, _device: &Device) -> Result<Box<dyn TrySession>> {
        try_it::refuse(crate::t!("try-none", id = Self::ID))
    }
    /// Why this drill has no Try by design (see [`Drill::no_try`]).
    fn no_try() -> Option<String> {
        None
    }
}

/// Parse parameter values into a drill's typed struct.
pub fn parse_params<P: DeserializeOwned>(params: &ParamMap) -> Result<P, String> {
    let value = serde_json::to_value(params).map_err(|e| e.to_string())?;
    serde_json::from_value(value).map_err(|e| format!("parameters: {e}"))
}

impl<T: TypedDrill> Drill for T {
    fn id(&self) -> &'static str {
        T::ID
    }

    fn check(&self, params: &ParamMap) -> Result<(), String> {
        T::validate(&parse_params::<T::Params>(params)?)
    }

    fn claims(&self) -> &'static [&'static str] {
        T::CLAIMS
    }

    fn run(&self, ctx: &mut RunCtx) -> Result<()> {
        let p: T::Params = parse_params(&ctx.params).map_err(|e| anyhow!("{}: {e}", T::ID))?;
        T::validate(&p).map_err(|e| anyhow!(e))?;
        TypedDrill::run(self, &p, ctx)
    }

    fn open_try(&self, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
        let p: T::Params = parse_params(&run.params).map_err(|e| anyhow!("{}: {e}", T::ID))?;
        T::open_try(&p, run, device)
    }

    fn no_try(&self) -> Option<String> {
        T::no_try()
    }
}

/// `d_model` must split into `n_heads` heads (every drill that builds a GPT).
pub fn check_heads(d_model: usize, n_heads: usize) -> Result<(), String> {
    if n_heads == 0 || !d_model.is_multiple_of(n_heads) {
        return Err(crate::t!("setup-heads", heads = n_heads.to_string(), d_model = d_model.to_string()));
    }
    Ok(())
}

/// Every drill the program can run.
pub fn registry() -> Vec<&'static dyn Drill> {
    vec![
        &sft_basics::SftBasics,
        &react_tool_call_loop::ReactToolCallLoop,
        &turn_credit_assignment::TurnCreditAssignment,
        &ewc_replay::EwcReplay,
        &self_refine_loop::SelfRefineLoop,
        &grpo_rlvr::GrpoRlvr,
        &dpo_pairs::DpoPairs,
        &model_merging::ModelMerging,
        &pass_at_k_harness::PassAtKHarness,
        &prompt_injection::PromptInjection,
        &rollout_infra::RolloutInfra,
        &reward_model_overopt::RewardModelOveropt,
        &tool_retrieval::ToolRetrieval,
        &long_context_rope::LongContextRope,
        &lora_vs_full::LoraVsFull,
        &agent_pipeline::AgentPipeline,
    ]
}

pub fn find(id: &str) -> Option<&'static dyn Drill> {
    registry().into_iter().find(|d| d.id() == id)
}

/// Where `drill.toml`'s claims and the code's disagree: a `[[claim]]` no code
/// measures (it would read "pending" in every run) and a claim the code
/// measures that `drill.toml` does not declare (the run would fail). Empty
/// for a drill this build has no code for.
pub fn claim_gaps(meta: &DrillMeta) -> Vec<String> {
    let Some(code) = find(&meta.id) else { return Vec::new() };
    let measured = code.claims();
    let mut gaps: Vec<String> = meta
        .claims
        .iter()
        .filter(|c| !measured.contains(&c.id.as_str()))
        .map(|c| {
            format!(
                "drills/{}/drill.toml: claim `{}` is measured by no code in this build (the code measures {})",
                meta.id,
                c.id,
                measured.join(", ")
            )
        })
        .collect();
    for id in measured.iter().filter(|id| meta.claim(id).is_none()) {
        gaps.push(format!("drills/{}/drill.toml: the code measures claim `{id}`, which is not declared", meta.id));
    }
    gaps
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
    pub params: ParamMap,
    pub preset: String,
    pub seed: u64,
    pub device: Device,
    /// Learner functions this run trains with (`--use ID=FILE`); empty by default.
    pub plugs: crate::exercises::plug::Plugs,
    sink: Box<dyn FnMut(Event) + Send>,
    cancel: Arc<AtomicBool>,
    started: Instant,
    claims: Vec<ClaimResult>,
    /// The models to write into the run directory when the run ends (shared with forks).
    kept: Arc<std::sync::Mutex<Vec<keep::Kept>>>,
    /// Text files to write into the run directory when the run ends (a report card).
    attached: Arc<std::sync::Mutex<Vec<(String, String)>>>,
}

impl RunCtx {
    pub fn new(
        meta: DrillMeta,
        params: ParamMap,
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
            plugs: Default::default(),
            sink,
            cancel,
            started: Instant::now(),
            claims: Vec::new(),
            kept: Arc::default(),
            attached: Arc::default(),
        }
    }

    /// Write `text` into the run directory as `name` when the run ends (a
    /// plain file name: `report.md`). A later file of the same name replaces it.
    pub fn attach(&mut self, name: &str, text: String) {
        let mut files = self.attached.lock().unwrap_or_else(|p| p.into_inner());
        files.retain(|(n, _)| n != name);
        files.push((name.to_string(), text));
    }

    /// Write the attached files into `run_dir` (atomically; the runner calls it once the drill returns).
    pub fn save_attached(&self, run_dir: &std::path::Path) -> Result<()> {
        let files = std::mem::take(&mut *self.attached.lock().unwrap_or_else(|p| p.into_inner()));
        for (name, text) in files {
            if name.contains(['/', '\\']) || name.starts_with('.') {
                return Err(anyhow!("not a plain file name: {name}"));
            }
            crate::fsutil::write_atomic(&run_dir.join(&name), text.as_bytes())?;
        }
        Ok(())
    }

    /// Keep `model` as arm `id` with its weights as they are now (a copy):
    /// the run directory gets it when the run ends, for Try and exports
    /// (`src/drills/keep.rs`). A later arm of the same name replaces it.
    pub fn keep(&mut self, id: &str, role: keep::Role, model: &dyn keep::Keepable) -> Result<()> {
        let k = keep::Kept::of(id, role, model, true)?;
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).push(k);
        Ok(())
    }

    /// Keep `model` as arm `id` with its weights as they are when the run
    /// ends, finished or cancelled (no copy: training updates them in place).
    /// For a model still to be trained.
    pub fn keep_live(&mut self, id: &str, role: keep::Role, model: &dyn keep::Keepable) -> Result<()> {
        let k = keep::Kept::of(id, role, model, false)?;
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).push(k);
        Ok(())
    }

    /// Write the kept models into `run_dir/models/` (the runner calls it once the drill returns).
    pub fn save_kept(&self, run_dir: &std::path::Path) -> Result<Option<keep::Index>> {
        let kept = std::mem::take(&mut *self.kept.lock().unwrap_or_else(|p| p.into_inner()));
        keep::save(run_dir, &self.meta.id, &self.params, &kept)
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

    /// A check that the run's setup worked (an expert learned its own task, a
    /// warm start answers at all). It is not a finding about learning, so it
    /// is not a claim: a passing check is logged, a failing one stops the run
    /// with `what` and the reason `why` gives.
    pub fn setup_check(&mut self, what: &str, ok: bool, why: impl FnOnce() -> String) -> Result<()> {
        if !ok {
            return Err(anyhow!("{}", crate::t!("view-setup-failed", what = what, why = why())));
        }
        self.log(crate::t!("view-setup-ok", what = what));
        Ok(())
    }

    /// Compare a measured value with the claim's threshold from drill.toml.
    /// Returns whether it holds (an observation is reported the same way but
    /// never fails the run).
    pub fn claim(&mut self, id: &str, measured: f64) -> Result<bool> {
        if let Some(d) = find(&self.meta.id).filter(|d| !d.claims().contains(&id)) {
            bail!(
                "drill {} measured claim `{id}`, which its code does not declare (it declares {:?})",
                d.id(),
                d.claims()
            );
        }
        let spec = self
            .meta
            .claim(id)
            .ok_or_else(|| anyhow!("drill {} has no claim `{id}` in drill.toml", self.meta.id))?
            .clone();
        if !spec.applies_to(&self.preset) {
            // A claim about other presets: measured by the code, not reported.
            return Ok(true);
        }
        let pass = spec.op.holds(measured, spec.threshold);
        let observation = spec.observation_for(&self.preset);
        let r = ClaimResult {
            id: spec.id,
            text: spec.text,
            measured,
            op: spec.op,
            threshold: spec.threshold,
            pass,
            observation,
        };
        self.claims.push(r.clone());
        self.emit(Event::Claim(r));
        Ok(pass)
    }

    pub fn claims(&self) -> &[ClaimResult] {
        &self.claims
    }

    /// The event sink, for [`pipeline::side_by_side`] (which gives it back).
    pub(crate) fn take_sink(&mut self) -> Box<dyn FnMut(Event) + Send> {
        std::mem::replace(&mut self.sink, Box::new(|_| {}))
    }

    pub(crate) fn set_sink(&mut self, sink: Box<dyn FnMut(Event) + Send>) {
        self.sink = sink;
    }

    /// A context for a phase that runs beside this one: the same drill,
    /// parameters, seed, device, clock and cancel flag, its events into `sink`,
    /// claims of its own (none are expected).
    pub(crate) fn fork(&self, sink: Box<dyn FnMut(Event) + Send>) -> RunCtx {
        RunCtx {
            meta: self.meta.clone(),
            params: self.params.clone(),
            preset: self.preset.clone(),
            seed: self.seed,
            device: self.device.clone(),
            plugs: self.plugs.clone(),
            sink,
            cancel: self.cancel.clone(),
            started: self.started,
            claims: Vec::new(),
            kept: self.kept.clone(),
            attached: self.attached.clone(),
        }
    }

    /// Hand the event sink back once the drill has returned.
    pub fn into_sink(self) -> Box<dyn FnMut(Event) + Send> {
        self.sink
    }
}

#[cfg(test)]
mod claim_list_tests {
    /// Each drill's `CLAIMS` lists exactly the claim ids its source measures
    /// (`ctx.claim("…", …)`, always a literal), and `drill.toml` declares
    /// the same ones.
    #[test]
    fn every_drill_declares_the_claims_its_code_measures() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let content = crate::content::Content::load(None).unwrap();
        for d in super::registry() {
            let file = root.join("src/drills").join(format!("{}.rs", d.id().replace('-', "_")));
            let src = std::fs::read_to_string(&file).unwrap();
            let mut measured: Vec<&str> =
                src.split(".claim(\"").skip(1).map(|rest| &rest[..rest.find('"').unwrap()]).collect();
            measured.sort_unstable();
            measured.dedup();
            let mut declared = d.claims().to_vec();
            declared.sort_unstable();
            assert_eq!(measured, declared, "{}: CLAIMS against the source", d.id());
            let meta = content.drill(d.id()).unwrap();
            assert_eq!(super::claim_gaps(meta), Vec::<String>::new());
        }
    }
}
