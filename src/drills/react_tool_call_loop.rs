//! `react-tool-call-loop`: a tiny GPT learns to act in a ReAct loop with real
//! tools, trained with label masking, and a twin trained without the mask
//! shows the failure the mask prevents.
//!
//! Phases of `run`:
//!
//! 1. **data** — tasks about a fictional world (`assets/world/facts.tsv`):
//!    look a fact up, compute, both, or neither. Places are split: held-out
//!    questions name places never seen in training, with new numbers. An
//!    oracle solves each training task *in the real loop* (`envs::react`),
//!    so the tools write every observation; some trajectories start with a
//!    misspelt lookup and recover (the slip stays in context, untrained).
//! 2. **before SFT** — the starting model in the loop.
//! 3. **SFT with the mask** — only agent lines are trained (prompt and
//!    observation tokens get label −100); `mask_observations = false` trains
//!    this model on every token too.
//! 4. **SFT without the mask** — the twin, trained on every token.
//! 5. **evaluate in the loop** — held-out success with the real tools,
//!    batched over episodes; the same with a misspelt first lookup forced
//!    into the context (does the agent recover from a tool error?).
//! 6. **probe** — each model continues right after its own action line,
//!    where the environment should speak: does it write `Observation:`?

use anyhow::{bail, Result};
use serde::Deserialize;

use super::keep::Role as Arms;
use super::pipeline::{self, real_start, Batches, ModelChoice, Sft};
use super::try_it::{
    self, Arm as TryArm, KeptRun, TryAnswer, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use super::{RunCtx, TokenCell, TokenKind, TypedDrill, View};
use crate::envs::format::{example, Format};
use crate::envs::kb::FactTable;
use crate::envs::react::{Session, Tools};
use crate::envs::react_tasks::{make_task, solve, split_places, task_of, Kind, Solved, Task};
use crate::envs::{joined, Role};
use crate::eval::react_loop::{answered_right, evaluate, hallucination_rate, recovery_rate, Eval};
use crate::eval::Lm;
use crate::ml::base;
use crate::ml::data::{batch, Example};
use crate::ml::gpt::Gpt;
use crate::ml::lm::CausalLm;
use crate::ml::loss::{masked_ce_by_hand, masked_cross_entropy};
use crate::ml::rng::Rng;
use crate::ml::start::Start;
use crate::ml::tokenizer::{Bpe, Tokenize};

pub struct ReactToolCallLoop;

/// Where the SFT starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartFrom {
    /// The lab's pretrained base model (`src/ml/base.rs`).
    Base,
    /// Random weights of the same shape.
    Random,
}

/// `drills/react-tool-call-loop/drill.toml`, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub start_from: StartFrom,
    pub steps: usize,
    pub batch: usize,
    pub lr: f64,
    pub slip_rate: f64,
    pub mask_observations: bool,
    pub train_tasks: usize,
    pub eval_tasks: usize,
    pub max_steps: usize,
    /// Held-out probes in the loop during each fit (charted).
    pub probes: usize,
    /// "tiny" (the lab's base model) or a real model: a name registered with
    /// `agentlab model add`, a GGUF file or a Hugging Face directory.
    pub model: ModelChoice,
    /// LoRA rank on the real model's attention and MLP projections.
    pub lora_rank: usize,
    /// How many of the real model's top layers get adapters (0: all).
    pub lora_layers: usize,
}

/// What the system message tells a chat model about the loop.
pub(crate) const SYSTEM: &str = "Use tools. One line per turn: Action: lookup[ATTRIBUTE of PLACE], Action: calc[EXPRESSION] or Final Answer: ANSWER. Each action is answered by a line Observation: RESULT.";

/// Train `model` on `data` for `steps` (warmup + cosine, clipping),
/// charting the loss as `sft loss · <label>`; score the probe questions in the
/// real loop five times along the way. Returns the last probe success.
fn fit(ctx: &mut RunCtx, p: &Params, lm: &Lm, label: &str, data: &[Example], probe: &Probe) -> Result<f64> {
    let mut rng = Rng::new(ctx.seed ^ 0xda7a);
    let eval_every = (p.steps / p.probes.max(1)).max(1);
    let mut probe_success = 0.0;
    let after = |ctx: &mut RunCtx, step: usize| -> Result<()> {
        if (step + 1).is_multiple_of(eval_every) || step + 1 == p.steps {
            probe_success = evaluate(lm, probe.tasks, probe.tools, 6)?.success;
            ctx.metric(step, &format!("probe_success_{label}"), probe_success);
        }
        Ok(())
    };
    let batches = Batches::Sampled { data, batch: p.batch };
    pipeline::sft(ctx, lm.model, &Sft::new(p.steps, p.lr).arm(label), batches, &mut rng, after)?;
    Ok(probe_success)
}

/// Held-out questions scored during training.
struct Probe<'a> {
    tasks: &'a [Task],
    tools: &'a Tools,
}

/// Phase "data": everything the run trains and evaluates on.
struct Data {
    tools: Tools,
    train_tasks: Vec<Task>,
    eval_tasks: Vec<Task>,
    solved: Vec<Solved>,
    masked: Vec<Example>,
    unmasked: Vec<Example>,
    tok: Bpe,
    fmt: Format,
    start: Start,
}

impl Data {
    fn lm<'a>(&'a self, model: &'a dyn CausalLm) -> Lm<'a> {
        Lm { model, tok: &self.tok, fmt: &self.fmt }
    }
}

impl TypedDrill for ReactToolCallLoop {
    const ID: &'static str = "react-tool-call-loop";
    const CLAIMS: &'static [&'static str] = &["error_recovery", "hallucination_gap", "sft_gain", "trained_success"];
    type Params = Params;

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let d = data(p, ctx)?;
        let probe_tasks: Vec<Task> = d.eval_tasks.iter().take((p.eval_tasks / 4).clamp(1, 40)).cloned().collect();
        let probe = Probe { tasks: &probe_tasks, tools: &d.tools };
        let start = d.lm(d.start.model());

        ctx.phase(crate::t!("view-react-phase-before"));
        let untrained = evaluate(&start, &d.eval_tasks, &d.tools, p.max_steps)?;
        ctx.log(crate::t!("view-react-log-before", success = format!("{:.3}", untrained.success)));

        ctx.phase(if p.mask_observations {
            crate::t!("view-react-phase-sft-masked")
        } else {
            crate::t!("view-react-phase-sft-unmasked")
        });
        // The two fits share only the starting weights: they train at once.
        let agent_data = if p.mask_observations { &d.masked } else { &d.unmasked };
        // Try puts the starting model, the masked agent and the unmasked twin side by side.
        keep_start(ctx, &d.start)?;
        let ((agent, pm), (twin, pu)) = pipeline::side_by_side(
            ctx,
            |ctx| {
                let agent = d.start.fork(ctx.seed)?;
                let pm = fit(ctx, p, &d.lm(agent.lm()), "masked", agent_data, &probe)?;
                Ok((agent, pm))
            },
            |ctx| {
                let twin = d.start.fork(ctx.seed)?;
                let pu = fit(ctx, p, &d.lm(twin.lm()), "unmasked", &d.unmasked, &probe)?;
                Ok((twin, pu))
            },
        )?;
        ctx.keep(MASKED, Arms::Trained, &agent)?;
        ctx.keep(UNMASKED, Arms::Trained, &twin)?;
        let (agent, twin) = (d.lm(agent.lm()), d.lm(twin.lm()));
        ctx.log(crate::t!("view-react-log-probe", masked = format!("{pm:.2}"), unmasked = format!("{pu:.2}")));

        ctx.phase(crate::t!("view-react-phase-evaluate"));
        let clock = std::time::Instant::now();
        let em = evaluate(&agent, &d.eval_tasks, &d.tools, p.max_steps)?;
        let eu = evaluate(&twin, &d.eval_tasks, &d.tools, p.max_steps)?;
        // Wall time, for the log only (not a measured number of the run).
        let (secs, episodes) = (clock.elapsed().as_secs_f64(), 2 * d.eval_tasks.len());
        ctx.log(crate::t!(
            "view-react-log-speed",
            episodes = episodes.to_string(),
            secs = format!("{secs:.1}"),
            rate = format!("{:.0}", episodes as f64 / secs.max(1e-9))
        ));
        let recovery = recovery_rate(&agent, &d.eval_tasks, &d.tools, p.max_steps, ctx.seed)?;
        ctx.log(crate::t!("view-react-log-recovery", rate = format!("{recovery:.3}")));

        ctx.phase(crate::t!("view-react-phase-probe"));
        let hm = hallucination_rate(&agent, &d.eval_tasks)?;
        let hu = hallucination_rate(&twin, &d.eval_tasks)?;
        let hb = hallucination_rate(&start, &d.eval_tasks)?;
        masked_ce_log(ctx, agent.model, &d)?;
        report_views(ctx, &d, [(&untrained, hb), (&em, hm), (&eu, hu)]);
        ctx.metric(0, "heldout_success_masked", em.success);
        ctx.metric(0, "heldout_success_unmasked", eu.success);
        ctx.metric(0, "heldout_success_untrained", untrained.success);
        ctx.log(crate::t!(
            "view-react-log-report",
            untrained = format!("{:.3}", untrained.success),
            masked = format!("{:.3}", em.success),
            unmasked = format!("{:.3}", eu.success),
            hm = format!("{hm:.2}"),
            hu = format!("{hu:.2}")
        ));

        ctx.claim("trained_success", em.success)?;
        ctx.claim("error_recovery", recovery)?;
        ctx.claim("hallucination_gap", hu - hm)?;
        ctx.claim("sft_gain", em.success - untrained.success)?;
        Ok(())
    }

    fn open_try(p: &Params, run: &KeptRun, device: &candle_core::Device) -> Result<Box<dyn TrySession>> {
        let (tok, fmt, base) = match &p.model {
            ModelChoice::Tiny => {
                let (_, tok) = base::shipped(device)?;
                let fmt = Format::tiny(&tok);
                (tok, fmt, None)
            }
            ModelChoice::Real(_) => {
                let (base, tok, fmt) = pipeline::real_base(run, SYSTEM, device)?;
                (tok, fmt, Some(base))
            }
        };
        let start_label = match (&base, p.start_from) {
            (Some(_), _) => crate::t!("try-react-base"),
            (None, StartFrom::Base) => crate::t!("view-react-start-base"),
            (None, StartFrom::Random) => crate::t!("view-react-start-random"),
        };
        let mut arms = Vec::new();
        for (id, label) in
            [(START, start_label), (MASKED, crate::t!("try-react-masked")), (UNMASKED, crate::t!("try-react-unmasked"))]
        {
            let model = match (&base, id) {
                // A real model's start is its base, loaded above.
                (Some(b), START) => crate::ml::start::Model::Real(b.detached()),
                _ => pipeline::kept_model(run, id, base.as_ref(), device)?,
            };
            arms.push((TryArm { id: id.to_string(), label }, model));
        }
        let (tools, eval_tasks) = world(p, run.seed);
        let examples = eval_tasks.into_iter().map(|t| t.question).collect();
        let route = |tools: &Tools, tool: &str, input: &str| tools.call(tool, input);
        let truth = |q: &str, kb: &FactTable| task_of(q, kb).map(|t| t.truth);
        Ok(Box::new(ReactTry { tok, fmt, tools, route, truth, max_steps: p.max_steps, arms, examples }))
    }
}

/// Try on a run: a question to the starting model, the masked agent and the
/// unmasked twin, each in the ReAct loop with the real tools.
pub(crate) struct ReactTry {
    pub tok: Bpe,
    pub fmt: Format,
    pub tools: Tools,
    /// How a call reaches the tools (a drill with a catalogue of its own routes it there).
    pub route: fn(&Tools, &str, &str) -> Result<String, String>,
    /// The right answer to a typed question, where the drill's world can tell.
    pub truth: fn(&str, &FactTable) -> Option<String>,
    pub max_steps: usize,
    pub arms: Vec<(TryArm, crate::ml::start::Model)>,
    /// Held-out questions of the run (places never seen in training).
    pub examples: Vec<String>,
}

impl TrySession for ReactTry {
    fn kind(&self) -> TryKind {
        TryKind::AgentLoop
    }

    fn arms(&self) -> Vec<TryArm> {
        try_it::arms_of(&self.arms)
    }

    fn examples(&self) -> Vec<String> {
        try_it::distinct(self.examples.iter().cloned(), 12)
    }

    fn prompt_hint(&self) -> String {
        crate::t!("try-react-hint")
    }

    fn defaults(&self) -> TryOpts {
        // The drill evaluates greedy: so does Try, unless asked.
        TryOpts::new(1, 0.0)
    }

    fn answer(
        &mut self,
        input: &str,
        opts: &TryOpts,
        progress: &mut dyn FnMut(&TryAnswer),
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Result<TryAnswer> {
        let text = try_it::checked_input(input, 120)?;
        let truth = (self.truth)(text, &self.tools.kb);
        let note = match &truth {
            Some(t) => crate::t!("try-react-truth", truth = t.as_str()),
            None => crate::t!("try-react-no-truth"),
        };
        // The question as the world writes it (`capital of Vesk?` for `capital of Vesk`).
        let question = task_of(text, &self.tools.kb).map_or(text.to_string(), |t| t.question);
        let mut answer = TryAnswer { input: text.to_string(), notes: vec![note], columns: Vec::new() };
        let all = self.arms();
        let n = opts.samples.clamp(1, try_it::MAX_SAMPLES);
        for arm in opts.arms(&all) {
            try_it::check(cancel)?;
            let model = try_it::model_of(&self.arms, &arm.id);
            let lm = Lm { model: model.lm(), tok: &self.tok, fmt: &self.fmt };
            let prompt = self.fmt.encode_segments(&self.tok, &Session::new(&question).episode.segments).len();
            try_it::check_fits(prompt, crate::eval::react_loop::MAX_TURN, lm.model.context())?;
            answer.columns.push(TryColumn::new(arm));
            let mut rng = try_it::arm_rng(opts.seed);
            let (tools, route) = (&self.tools, self.route);
            let live = try_it::Live { answer: &mut answer, progress: &mut *progress, cancel };
            let (done, streamed) = try_it::stream_sessions(
                &lm,
                vec![Session::new(&question); n],
                self.max_steps,
                (try_it::decoding(opts.temperature), &mut rng),
                &mut |_, tool, input| route(tools, tool, input),
                &|segments, written| try_it::segment_cells_written(&lm, segments, &try_it::role_kind, written),
                live,
            )?;
            let mut right = 0;
            let col_samples: Vec<TrySample> = done
                .iter()
                .zip(streamed)
                .map(|(s, sample)| {
                    let cells = sample.cells;
                    let e = &s.episode;
                    let got = e.answer.clone().unwrap_or_else(|| crate::t!("try-tca-no-answer"));
                    let ok = truth.as_ref().map(|t| e.answer.as_deref() == Some(t.as_str()));
                    right += usize::from(ok == Some(true));
                    let mut verdicts = vec![Verdict::new(crate::t!("try-tca-answer"), got, ok)];
                    verdicts.push(Verdict::new(
                        crate::t!("try-react-calls"),
                        format!("{} ({} valid) · {} steps", e.tool_calls, e.valid_calls, e.steps),
                        None,
                    ));
                    if e.hallucinated_observations > 0 {
                        verdicts.push(Verdict::new(
                            crate::t!("try-react-wrote-obs"),
                            e.hallucinated_observations.to_string(),
                            Some(false),
                        ));
                    }
                    Ok(TrySample { cells, lines: Vec::new(), verdicts, pending: false })
                })
                .collect::<Result<_>>()?;
            let col = answer.columns.last_mut().expect("pushed above");
            col.samples = col_samples;
            if truth.is_some() {
                col.summary = vec![Verdict::new(crate::t!("try-tca-right"), format!("{right}/{n}"), None)];
            }
            progress(&answer);
        }
        Ok(answer)
    }
}

/// The arms a run keeps: the model it started from (the tiny base; a real
/// model's base needs no copy), the agent trained with the mask, the twin trained without.
const START: &str = "start";
const MASKED: &str = "masked";
const UNMASKED: &str = "unmasked";

/// Keep the starting model where it has weights of its own (the tiny GPT).
fn keep_start(ctx: &mut RunCtx, start: &Start) -> Result<()> {
    match start {
        Start::Tiny(g) => ctx.keep(START, Arms::Start, g),
        Start::Real { .. } => Ok(()),
    }
}

/// The run's tools and held-out questions, drawn as the run drew them.
fn world(p: &Params, seed: u64) -> (Tools, Vec<Task>) {
    let kb = FactTable::world();
    let tools = Tools::new(kb.clone());
    let mut rng = Rng::new(seed);
    let (places, held_out) = split_places(&kb, &mut rng);
    for _ in 0..p.train_tasks {
        make_task(&mut rng, &kb, &places);
    }
    let eval_tasks = (0..p.eval_tasks).map(|_| make_task(&mut rng, &kb, &held_out)).collect();
    (tools, eval_tasks)
}

/// A run's world: its tools, its places split, its training tasks solved by
/// the oracle in the real loop and its held-out tasks (the TRL export writes
/// the same ones).
pub(crate) struct Trajectories {
    pub tools: Tools,
    pub places: Vec<String>,
    pub held_out: Vec<String>,
    pub train_tasks: Vec<Task>,
    pub eval_tasks: Vec<Task>,
    pub solved: Vec<Solved>,
}

/// The tasks and trajectories a run with `p` and `seed` draws.
pub(crate) fn trajectories(p: &Params, seed: u64) -> Trajectories {
    let kb = FactTable::world();
    let tools = Tools::new(kb.clone());
    let mut rng = Rng::new(seed);
    let (places, held_out) = split_places(&kb, &mut rng);
    let train_tasks: Vec<Task> = (0..p.train_tasks).map(|_| make_task(&mut rng, &kb, &places)).collect();
    let eval_tasks: Vec<Task> = (0..p.eval_tasks).map(|_| make_task(&mut rng, &kb, &held_out)).collect();
    let solved: Vec<Solved> = train_tasks.iter().map(|t| solve(t, &tools, p.slip_rate, &mut rng)).collect();
    Trajectories { tools, places, held_out, train_tasks, eval_tasks, solved }
}

/// The tiny GPT a run starts from (the lab's base model, or random weights of
/// its shape) and the base's BPE tokenizer.
pub(crate) fn tiny_start(p: &Params, seed: u64, device: &candle_core::Device) -> Result<(Gpt, Bpe)> {
    let (shipped, tok) = base::shipped(device)?;
    Ok(match p.start_from {
        StartFrom::Random => (Gpt::new(shipped.cfg.clone(), seed ^ 0x5eed, device)?, tok),
        StartFrom::Base => (shipped, tok),
    })
}

/// Phase "data": tasks, oracle trajectories in the real loop, masked and
/// unmasked examples, the starting model.
fn data(p: &Params, ctx: &mut RunCtx) -> Result<Data> {
    ctx.phase(crate::t!("view-phase-data"));
    let Trajectories { tools, places, held_out, train_tasks, eval_tasks, solved } = trajectories(p, ctx.seed);
    let slips = solved.iter().filter(|s| !s.mistakes.is_empty()).count();
    let (start, tok, fmt) = starting_model(p, ctx)?;
    let oracle_ok = train_tasks.iter().zip(&solved).filter(|(t, s)| answered_right(t, &s.session)).count();
    ctx.log(crate::t!(
        "view-react-log-data",
        train = p.train_tasks.to_string(),
        places = places.len().to_string(),
        solved = oracle_ok.to_string(),
        slips = slips.to_string(),
        eval = p.eval_tasks.to_string(),
        unseen = held_out.len().to_string()
    ));
    let masked: Vec<Example> =
        solved.iter().map(|s| example(&tok, &fmt, &s.session.episode.segments, true, &s.mistakes)).collect();
    let unmasked: Vec<Example> =
        solved.iter().map(|s| example(&tok, &fmt, &s.session.episode.segments, false, &s.mistakes)).collect();
    let longest = masked.iter().map(|e| e.len()).max().unwrap_or(0);
    let share = masked.iter().map(|e| e.trained_tokens()).sum::<usize>() as f64
        / unmasked.iter().map(|e| e.trained_tokens()).sum::<usize>().max(1) as f64;
    ctx.log(crate::t!(
        "view-react-log-longest",
        longest = longest.to_string(),
        share = format!("{:.0}", share * 100.0)
    ));
    if longest + 30 > start.model().context() {
        bail!(crate::t!(
            "setup-too-long",
            longest = longest.to_string(),
            context = start.model().context().to_string()
        ));
    }
    let d = Data { tools, train_tasks, eval_tasks, solved, masked, unmasked, tok, fmt, start };
    trajectory_view(ctx, &d);
    Ok(d)
}

/// The tiny base model (`src/ml/base.rs`) or, with `model` set, a real one with LoRA adapters.
fn starting_model(p: &Params, ctx: &mut RunCtx) -> Result<(Start, Bpe, Format)> {
    let ModelChoice::Real(name) = &p.model else {
        // The lab's base model and its BPE tokenizer (`src/ml/base.rs`).
        let (start, tok) = tiny_start(p, ctx.seed, &ctx.device)?;
        let what = match p.start_from {
            StartFrom::Random => crate::t!("view-react-start-random"),
            StartFrom::Base => crate::t!("view-react-start-base"),
        };
        let (n, vocab) = (start.num_params(), tok.vocab_size());
        ctx.log(crate::t!("view-react-log-start", what = what, n = n.to_string(), vocab = vocab.to_string()));
        let fmt = Format::tiny(&tok);
        return Ok((Start::Tiny(start), tok, fmt));
    };
    if p.start_from == StartFrom::Random {
        bail!(crate::t!("setup-random-real"));
    }
    real_start(name, p.lora_rank, p.lora_layers, SYSTEM, ctx)
}

/// The teaching view: one training trajectory, token by token.
fn trajectory_view(ctx: &mut RunCtx, d: &Data) {
    let both = d
        .solved
        .iter()
        .zip(&d.train_tasks)
        .find(|(s, t)| t.kind == Kind::Both && !s.mistakes.is_empty())
        .map(|(s, _)| s)
        .unwrap_or(&d.solved[0]);
    let mut cells = Vec::new();
    for (k, (role, text)) in both.session.episode.segments.iter().enumerate() {
        for id in d.fmt.encode(&d.tok, *role, text) {
            let kind = match role {
                Role::Agent if !both.mistakes.contains(&k) => TokenKind::Trained,
                Role::Env | Role::Agent => TokenKind::Masked,
                Role::Prompt => TokenKind::Prompt,
            };
            cells.push(TokenCell { text: d.tok.decode(&[id]), kind, value: None });
        }
    }
    ctx.view(View::Tokens {
        title: crate::t!("view-react-trajectory-title"),
        tokens: cells,
        legend: crate::t!("view-react-trajectory-legend"),
    });
}

/// The masked CE of a batch next to the same number computed by hand, and
/// what averaging over every position would give (a log line, not a claim:
/// `src/ml/loss.rs` tests the function).
fn masked_ce_log(ctx: &mut RunCtx, model: &dyn CausalLm, d: &Data) -> Result<()> {
    let picks: Vec<&Example> = d.masked.iter().take(8).collect();
    let (x, y) = batch(&picks, &ctx.device)?;
    let logits = model.forward(&x)?;
    let ce = masked_cross_entropy(&logits, &y)?.to_scalar::<f32>()? as f64;
    let (reference, kept_share) = masked_ce_by_hand(&logits.to_vec3::<f32>()?, &y.to_vec2::<i64>()?);
    let ups: Vec<&Example> = d.unmasked.iter().take(8).collect();
    let (_, yu) = batch(&ups, &ctx.device)?;
    let all_labels = masked_ce_by_hand(&logits.to_vec3::<f32>()?, &yu.to_vec2::<i64>()?).0;
    ctx.log(crate::t!(
        "view-react-log-ce",
        ce = format!("{ce:.6}"),
        reference = format!("{reference:.6}"),
        kept = format!("{:.0}", kept_share * 100.0),
        all = format!("{all_labels:.4}")
    ));
    Ok(())
}

/// The tables and episodes of the Views tab: the untrained start, the agent, the twin.
fn report_views(ctx: &mut RunCtx, d: &Data, evals: [(&Eval, f64); 3]) {
    let names =
        [crate::t!("view-react-untrained"), crate::t!("view-react-sft-masked"), crate::t!("view-react-sft-unmasked")];
    let rows = names
        .iter()
        .zip(&evals)
        .map(|(name, (e, h))| {
            let cells = [e.success, e.validity, e.steps, *h].map(|x| format!("{x:.2}"));
            [name.to_string()].into_iter().chain(cells).collect()
        })
        .collect();
    ctx.view(View::table(
        crate::t!("view-react-eval-title"),
        [
            crate::t!("view-col-model"),
            crate::t!("view-react-col-success"),
            crate::t!("view-react-col-valid"),
            crate::t!("view-react-col-steps"),
            crate::t!("view-react-col-writes-obs"),
        ],
        rows,
    ));
    let [(base, _), (em, _), (eu, _)] = evals;
    // The first `n` held-out episodes of a model, each with the truth.
    let episodes = |e: &Eval, n: usize| -> String {
        let shown = e.sessions.iter().zip(&d.eval_tasks).take(n);
        shown
            .map(|(s, t)| {
                format!(
                    "{}→ {}\n",
                    joined(&s.episode.segments),
                    crate::t!("view-react-truth", truth = t.truth.as_str())
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    ctx.view(View::Text { title: crate::t!("view-react-masked-episodes"), body: episodes(em, 6) });
    ctx.view(View::Text { title: crate::t!("view-react-base-episodes"), body: episodes(base, 3) });
    if let Some(s) = eu.sessions.iter().find(|s| s.episode.hallucinated_observations > 0) {
        ctx.view(View::Text { title: crate::t!("view-react-hallucinated"), body: joined(&s.episode.segments) });
    }
    let kinds =
        [(Kind::Lookup, "lookup"), (Kind::Calc, "calc"), (Kind::Both, "lookup + calc"), (Kind::Direct, "no tool")]
            .map(|(k, name)| (k, if k == Kind::Direct { crate::t!("view-react-no-tool") } else { name.to_string() }));
    let mut by_kind = Vec::new();
    for (k, name) in kinds {
        let rate = |e: &Eval| -> String {
            let of_kind = d.eval_tasks.iter().zip(&e.sessions).filter(|(t, _)| t.kind == k);
            let right: Vec<bool> = of_kind.map(|(t, s)| answered_right(t, s)).collect();
            format!("{}/{}", right.iter().filter(|r| **r).count(), right.len())
        };
        by_kind.push(vec![name, rate(base), rate(em), rate(eu)]);
    }
    ctx.log(crate::t!("view-react-log-by-kind", rows = format!("{by_kind:?}")));
    ctx.view(View::table(
        crate::t!("view-react-by-kind-title"),
        [
            crate::t!("view-react-col-needs"),
            crate::t!("view-react-col-untrained"),
            crate::t!("view-react-col-masked"),
            crate::t!("view-react-col-unmasked"),
        ],
        by_kind,
    ));
}
