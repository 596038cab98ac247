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

pub(crate) use super::model_start::Format;
use super::model_start::{real_start, Start};
use super::pipeline::{self, Batches, ModelChoice, Sft};
use super::{RunCtx, TokenCell, TokenKind, TypedDrill, View};
use crate::envs::kb::FactTable;
use crate::envs::react::{Session, Tools};
use crate::envs::react_tasks::{make_task, misspell, oracle_turn, solve, split_places, Kind, Plan, Solved, Task};
use crate::envs::{joined, Role};
use crate::ml::base;
use crate::ml::data::{batch, Example};
use crate::ml::gpt::Gpt;
use crate::ml::lm::{CausalLm, Memo};
use crate::ml::loss::masked_cross_entropy;
use crate::ml::rng::Rng;
use crate::ml::sample::GenConfig;
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

/// A model, its tokenizer and its format: what the loop needs to let it act.
#[derive(Clone, Copy)]
pub(crate) struct Lm<'a> {
    pub model: &'a dyn CausalLm,
    pub tok: &'a Bpe,
    pub fmt: &'a Format,
}

/// Tokens of a trajectory and which ones the loss trains: agent text only when
/// `mask` is on, everything when off (the first token is never a target).
/// Segments listed in `skip` are never trained.
pub(crate) fn example(tok: &Bpe, fmt: &Format, segments: &[(Role, String)], mask: bool, skip: &[usize]) -> Example {
    let mut tokens: Vec<u32> = fmt.bos.into_iter().collect();
    let mut train = vec![false; tokens.len()];
    for (k, (role, text)) in segments.iter().enumerate() {
        let ids = fmt.encode(tok, *role, text);
        let trained = (!mask || *role == Role::Agent) && !skip.contains(&k);
        train.extend(std::iter::repeat_n(trained, ids.len()));
        tokens.extend(ids);
    }
    tokens.push(fmt.eos);
    train.push(true);
    Example::new(tokens, train)
}

/// Token ids as the model sees a trajectory: BOS (if any), then each segment
/// encoded on its own (as in training, so token boundaries match at segment edges).
pub(crate) fn encode_segments(lm: &Lm, segments: &[(Role, String)]) -> Vec<u32> {
    let mut ids: Vec<u32> = lm.fmt.bos.into_iter().collect();
    for (role, text) in segments {
        ids.extend(lm.fmt.encode(lm.tok, *role, text));
    }
    ids
}

/// Generate one line for every given context at once (greedy), stopping at a newline.
/// `memo` carries a model's K/V cache from one turn of the same episodes to the next.
pub(crate) fn turns(lm: &Lm, contexts: &[Vec<u32>], max_new: usize, memo: &mut Memo) -> Result<Vec<String>> {
    let cfg = GenConfig::greedy(max_new, lm.fmt.stop().to_vec());
    let out = lm.model.generate_with(contexts, &cfg, &mut Rng::new(0), memo)?;
    Ok(out
        .iter()
        .map(|o| {
            let line = lm.fmt.line(lm.tok, o);
            // A chat model's line ended by its end-of-turn token ends like one ended by a newline.
            if lm.fmt.chat.is_some() && o.last() == Some(&lm.fmt.eos) && !line.ends_with('\n') {
                line + "\n"
            } else {
                line
            }
        })
        .collect())
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Eval {
    pub success: f64,
    pub validity: f64,
    pub steps: f64,
    pub sessions: Vec<Session>,
}

/// Run every task through the real loop, one batched generation per turn.
fn evaluate(lm: &Lm, tasks: &[Task], tools: &Tools, max_steps: usize) -> Result<Eval> {
    let sessions = tasks.iter().map(|t| Session::new(&t.question)).collect();
    run_sessions(lm, tasks, sessions, tools, max_steps)
}

/// Continue the given sessions (one per task) in the real loop until each ends.
fn run_sessions(lm: &Lm, tasks: &[Task], sessions: Vec<Session>, tools: &Tools, max_steps: usize) -> Result<Eval> {
    run_sessions_with(lm, tasks, sessions, max_steps, &mut |_, tool, input| tools.call(tool, input))
}

/// [`run_sessions`] with every tool call made by `call(session, tool, input)`
/// (see [`Session::apply_with`]): `session` is the index of the episode.
pub(crate) fn run_sessions_with(
    lm: &Lm,
    tasks: &[Task],
    mut sessions: Vec<Session>,
    max_steps: usize,
    call: &mut dyn FnMut(usize, &str, &str) -> Result<String, String>,
) -> Result<Eval> {
    const MAX_TURN: usize = 24;
    let mut memo = Memo::default();
    while sessions.iter().any(|s| !s.done) {
        let open: Vec<usize> = (0..sessions.len()).filter(|&i| !sessions[i].done).collect();
        let contexts: Vec<(usize, Vec<u32>)> =
            open.iter().map(|&i| (i, encode_segments(lm, &sessions[i].episode.segments))).collect();
        // A transcript that no longer fits the context ends the episode unanswered.
        let (fits, full): (Vec<_>, Vec<_>) =
            contexts.into_iter().partition(|(_, c)| c.len() + MAX_TURN < lm.model.context());
        for (i, _) in full {
            sessions[i].done = true;
        }
        if fits.is_empty() {
            break;
        }
        let ctxs: Vec<Vec<u32>> = fits.iter().map(|(_, c)| c.clone()).collect();
        let fits: Vec<usize> = fits.iter().map(|(i, _)| *i).collect();
        let lines = turns(lm, &ctxs, MAX_TURN, &mut memo)?;
        for (&i, line) in fits.iter().zip(lines) {
            sessions[i].apply_with(&line, max_steps, &mut |tool: &str, input: &str| call(i, tool, input));
        }
    }
    let n = tasks.len().max(1) as f64;
    let success =
        tasks.iter().zip(&sessions).filter(|(t, s)| s.episode.answer.as_deref() == Some(t.truth.as_str())).count()
            as f64
            / n;
    let (calls, valid): (usize, usize) =
        sessions.iter().fold((0, 0), |(c, v), s| (c + s.episode.tool_calls, v + s.episode.valid_calls));
    let validity = if calls == 0 { 0.0 } else { valid as f64 / calls as f64 };
    let steps = sessions.iter().map(|s| s.episode.steps as f64).sum::<f64>() / n;
    Ok(Eval { success, validity, steps, sessions })
}

/// Let the model continue right after its first action line, where the
/// environment should write the observation. Fraction that write `Observation:` themselves.
fn hallucination_rate(lm: &Lm, tasks: &[Task]) -> Result<f64> {
    // The question and the correct first action; the observation is what is withheld.
    let prefixes: Vec<Vec<u32>> = tasks
        .iter()
        .filter(|t| t.kind != Kind::Direct)
        .map(|t| {
            let s = Session::new(&t.question);
            let mut segs = s.episode.segments.clone();
            segs.push((Role::Agent, oracle_turn(t, &s.transcript)));
            encode_segments(lm, &segs)
        })
        .collect();
    if prefixes.is_empty() {
        return Ok(0.0);
    }
    let lines = turns(lm, &prefixes, 24, &mut Memo::default())?;
    Ok(lines.iter().filter(|l| l.starts_with("Observation")).count() as f64 / lines.len() as f64)
}

/// Masked CE recomputed by hand from the logits: −log softmax at the label,
/// averaged over kept positions only.
fn reference_ce(logits: &[Vec<Vec<f32>>], labels: &[Vec<i64>]) -> (f64, f64) {
    let (mut sum, mut kept, mut all) = (0.0, 0usize, 0usize);
    for (lb, yb) in logits.iter().zip(labels) {
        for (z, &y) in lb.iter().zip(yb) {
            all += 1;
            if y < 0 {
                continue;
            }
            let m = z.iter().cloned().fold(f32::MIN, f32::max) as f64;
            let lse = m + z.iter().map(|&v| (v as f64 - m).exp()).sum::<f64>().ln();
            sum += lse - z[y as usize] as f64;
            kept += 1;
        }
    }
    (sum / kept.max(1) as f64, kept as f64 / all.max(1) as f64)
}

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
    type Params = Params;

    fn run(&self, p: &Params, ctx: &mut RunCtx) -> Result<()> {
        let d = data(p, ctx)?;
        let probe_tasks: Vec<Task> = d.eval_tasks.iter().take((p.eval_tasks / 4).clamp(1, 40)).cloned().collect();
        let probe = Probe { tasks: &probe_tasks, tools: &d.tools };
        let start = d.lm(d.start.model());

        ctx.phase("before SFT");
        let untrained = evaluate(&start, &d.eval_tasks, &d.tools, p.max_steps)?;
        ctx.log(format!("before SFT (the starting model in the loop): held-out success {:.3}", untrained.success));

        ctx.phase(if p.mask_observations {
            "SFT with the mask, and without it (the twin) alongside"
        } else {
            "SFT on every token (mask off), and the twin alongside"
        });
        // The two fits share only the starting weights: they train at once.
        let agent_data = if p.mask_observations { &d.masked } else { &d.unmasked };
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
        let (agent, twin) = (d.lm(agent.lm()), d.lm(twin.lm()));
        ctx.log(format!("probe success during training: masked {pm:.2}, unmasked {pu:.2}"));

        ctx.phase("evaluate in the loop");
        let clock = std::time::Instant::now();
        let em = evaluate(&agent, &d.eval_tasks, &d.tools, p.max_steps)?;
        let eu = evaluate(&twin, &d.eval_tasks, &d.tools, p.max_steps)?;
        // Wall time, for the log only (not a measured number of the run).
        let (secs, episodes) = (clock.elapsed().as_secs_f64(), 2 * d.eval_tasks.len());
        ctx.log(format!(
            "{episodes} episodes in the real loop in {secs:.1} s ({:.0} episodes/s, one batched generation per turn, the K/V cache kept across turns)",
            episodes as f64 / secs.max(1e-9)
        ));
        let recovery = recovery_rate(&agent, &d, p.max_steps, ctx.seed)?;
        ctx.log(format!(
            "after a forced misspelt first lookup (an error observation), the agent still answers right in {:.3} of held-out lookups",
            recovery
        ));

        ctx.phase("probe");
        let hm = hallucination_rate(&agent, &d.eval_tasks)?;
        let hu = hallucination_rate(&twin, &d.eval_tasks)?;
        let hb = hallucination_rate(&start, &d.eval_tasks)?;
        masked_ce_log(ctx, agent.model, &d)?;
        report_views(ctx, &d, [(&untrained, hb), (&em, hm), (&eu, hu)]);
        ctx.metric(0, "heldout_success_masked", em.success);
        ctx.metric(0, "heldout_success_unmasked", eu.success);
        ctx.metric(0, "heldout_success_untrained", untrained.success);
        ctx.log(format!(
            "held-out success: untrained {:.3}, masked {:.3}, unmasked {:.3}; writes Observation itself: masked {hm:.2}, unmasked {hu:.2}",
            untrained.success, em.success, eu.success
        ));

        ctx.claim("trained_success", em.success)?;
        ctx.claim("error_recovery", recovery)?;
        ctx.claim("hallucination_gap", hu - hm)?;
        ctx.claim("sft_gain", em.success - untrained.success)?;
        Ok(())
    }
}

/// Phase "data": tasks, oracle trajectories in the real loop, masked and
/// unmasked examples, the starting model.
fn data(p: &Params, ctx: &mut RunCtx) -> Result<Data> {
    ctx.phase("data");
    let kb = FactTable::world();
    let tools = Tools::new(kb.clone());
    let mut rng = Rng::new(ctx.seed);
    let (places, held_out) = split_places(&kb, &mut rng);
    let train_tasks: Vec<Task> = (0..p.train_tasks).map(|_| make_task(&mut rng, &kb, &places)).collect();
    let eval_tasks: Vec<Task> = (0..p.eval_tasks).map(|_| make_task(&mut rng, &kb, &held_out)).collect();
    let solved: Vec<Solved> = train_tasks.iter().map(|t| solve(t, &tools, p.slip_rate, &mut rng)).collect();
    let slips = solved.iter().filter(|s| !s.mistakes.is_empty()).count();
    let (start, tok, fmt) = starting_model(p, ctx)?;
    let oracle_ok = train_tasks
        .iter()
        .zip(&solved)
        .filter(|(t, s)| s.session.episode.answer.as_deref() == Some(t.truth.as_str()))
        .count();
    ctx.log(format!(
        "{} oracle trajectories over {} places ({oracle_ok} solved in the real loop; {slips} recover from a misspelt lookup); {} held-out questions about {} unseen places",
        p.train_tasks,
        places.len(),
        p.eval_tasks,
        held_out.len()
    ));
    let masked: Vec<Example> =
        solved.iter().map(|s| example(&tok, &fmt, &s.session.episode.segments, true, &s.mistakes)).collect();
    let unmasked: Vec<Example> =
        solved.iter().map(|s| example(&tok, &fmt, &s.session.episode.segments, false, &s.mistakes)).collect();
    let longest = masked.iter().map(|e| e.len()).max().unwrap_or(0);
    let share = masked.iter().map(|e| e.trained_tokens()).sum::<usize>() as f64
        / unmasked.iter().map(|e| e.trained_tokens()).sum::<usize>().max(1) as f64;
    ctx.log(format!("longest trajectory {longest} tokens; the mask keeps {:.0}% of the targets", share * 100.0));
    if longest + 30 > start.model().context() {
        bail!(
            "the longest trajectory ({longest} tokens) does not fit the base model's context of {}",
            start.model().context()
        );
    }
    let d = Data { tools, train_tasks, eval_tasks, solved, masked, unmasked, tok, fmt, start };
    trajectory_view(ctx, &d);
    Ok(d)
}

/// The tiny base model (`src/ml/base.rs`) or, with `model` set, a real one with LoRA adapters.
fn starting_model(p: &Params, ctx: &mut RunCtx) -> Result<(Start, Bpe, Format)> {
    let ModelChoice::Real(name) = &p.model else {
        // The lab's base model and its BPE tokenizer (`src/ml/base.rs`).
        let (shipped, tok) = base::shipped(&ctx.device)?;
        let start = match p.start_from {
            StartFrom::Random => Gpt::new(shipped.cfg.clone(), ctx.seed ^ 0x5eed, &ctx.device)?,
            StartFrom::Base => shipped,
        };
        ctx.log(format!(
            "starting from the {} model: {} parameters, BPE vocabulary of {}",
            match p.start_from {
                StartFrom::Base => "pretrained base",
                StartFrom::Random => "random",
            },
            start.num_params(),
            tok.vocab_size()
        ));
        let fmt = Format::tiny(&tok);
        return Ok((Start::Tiny(start), tok, fmt));
    };
    if p.start_from == StartFrom::Random {
        bail!(
            "start_from = random works with the tiny model only; a real model starts from its own pretrained weights"
        );
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
        title: "A training trajectory, token by token".into(),
        tokens: cells,
        legend: "green: agent tokens (trained) · red, struck: label −100 — observations written by the tools, and the misspelt first lookup (kept in context to learn recovery, never trained) · grey: the question".into(),
    });
}

/// Held-out lookups whose first action is forced to a misspelt place (the
/// tool answers with an error): the share the agent still answers right.
fn recovery_rate(lm: &Lm, d: &Data, max_steps: usize, seed: u64) -> Result<f64> {
    let mut rng = Rng::new(seed ^ 0x5119);
    let mut tasks = Vec::new();
    let mut sessions = Vec::new();
    for t in &d.eval_tasks {
        if let Plan::Lookup { entity, attr } | Plan::Both { entity, attr, .. } = &t.plan {
            let mut s = Session::new(&t.question);
            s.apply(&format!("Action: lookup[{attr} of {}]\n", misspell(entity, &mut rng)), &d.tools, max_steps + 1);
            tasks.push(t.clone());
            sessions.push(s);
        }
    }
    Ok(run_sessions(lm, &tasks, sessions, &d.tools, max_steps + 1)?.success)
}

/// The masked CE of a batch next to the same number computed by hand, and
/// what averaging over every position would give (a log line, not a claim:
/// `src/ml/loss.rs` tests the function).
fn masked_ce_log(ctx: &mut RunCtx, model: &dyn CausalLm, d: &Data) -> Result<()> {
    let picks: Vec<&Example> = d.masked.iter().take(8).collect();
    let (x, y) = batch(&picks, &ctx.device)?;
    let logits = model.forward(&x)?;
    let ce = masked_cross_entropy(&logits, &y)?.to_scalar::<f32>()? as f64;
    let (reference, kept_share) = reference_ce(&logits.to_vec3::<f32>()?, &y.to_vec2::<i64>()?);
    let ups: Vec<&Example> = d.unmasked.iter().take(8).collect();
    let (_, yu) = batch(&ups, &ctx.device)?;
    let all_labels = reference_ce(&logits.to_vec3::<f32>()?, &yu.to_vec2::<i64>()?).0;
    ctx.log(format!(
        "masked CE on a batch: {ce:.6} (code) vs {reference:.6} (by hand over the {:.0}% kept positions); averaging over every token would give {all_labels:.4}",
        kept_share * 100.0
    ));
    Ok(())
}

/// The tables and episodes of the Views tab: the untrained start, the agent, the twin.
fn report_views(ctx: &mut RunCtx, d: &Data, evals: [(&Eval, f64); 3]) {
    let names = ["untrained", "SFT, masked", "SFT, unmasked"];
    let rows = names
        .iter()
        .zip(&evals)
        .map(|(name, (e, h))| {
            vec![
                name.to_string(),
                format!("{:.2}", e.success),
                format!("{:.2}", e.validity),
                format!("{:.2}", e.steps),
                format!("{h:.2}"),
            ]
        })
        .collect();
    ctx.view(View::Table {
        title: "Held-out evaluation in the real loop".into(),
        header: ["model", "success", "valid calls", "steps", "writes Observation"].map(String::from).to_vec(),
        rows,
    });
    let [(base, _), (em, _), (eu, _)] = evals;
    // The first `n` held-out episodes of a model, each with the truth.
    let episodes = |e: &Eval, n: usize| -> String {
        let shown: Vec<String> = e
            .sessions
            .iter()
            .zip(&d.eval_tasks)
            .take(n)
            .map(|(s, t)| format!("{}→ truth {}\n", joined(&s.episode.segments), t.truth))
            .collect();
        shown.join("\n")
    };
    ctx.view(View::Text { title: "Masked model on held-out questions (unseen places)".into(), body: episodes(em, 6) });
    ctx.view(View::Text {
        title: "The starting model on the same questions, before SFT".into(),
        body: episodes(base, 3),
    });
    if let Some(s) = eu.sessions.iter().find(|s| s.episode.hallucinated_observations > 0) {
        ctx.view(View::Text {
            title: "Unmasked model, an episode where it wrote an observation".into(),
            body: joined(&s.episode.segments),
        });
    }
    let kinds =
        [(Kind::Lookup, "lookup"), (Kind::Calc, "calc"), (Kind::Both, "lookup + calc"), (Kind::Direct, "no tool")];
    let mut by_kind = Vec::new();
    for (k, name) in kinds {
        let rate = |e: &Eval| -> String {
            let (mut n, mut ok) = (0, 0);
            for (t, s) in d.eval_tasks.iter().zip(&e.sessions).filter(|(t, _)| t.kind == k) {
                n += 1;
                ok += usize::from(s.episode.answer.as_deref() == Some(t.truth.as_str()));
            }
            format!("{ok}/{n}")
        };
        by_kind.push(vec![name.to_string(), rate(base), rate(em), rate(eu)]);
    }
    ctx.log(format!("by kind (untrained, masked, unmasked): {by_kind:?}"));
    ctx.view(View::Table {
        title: "Held-out success by kind of question".into(),
        header: ["needs", "untrained", "masked", "unmasked"].map(String::from).to_vec(),
        rows: by_kind,
    });
}
