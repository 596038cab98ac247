//! A model acting in the ReAct loop (`src/envs/react.rs`) on many tasks at
//! once: one batched generation per turn, the K/V cache kept across turns,
//! the tools writing every observation. Success, valid tool calls and steps
//! are measured against each task's truth; two probes ask whether an agent
//! writes the observations itself, and whether it recovers from a tool error.

use anyhow::Result;

use super::Lm;
use crate::envs::react::{Session, Tools};
use crate::envs::react_tasks::{misspell, oracle_turn, Kind, Plan, Task};
use crate::envs::Role;
use crate::ml::lm::Memo;
use crate::ml::rng::Rng;
use crate::ml::sample::{Decoding, GenConfig, Tap};

/// Generate one line for every given context at once (greedy), stopping at a newline.
/// `memo` carries a model's K/V cache from one turn of the same episodes to the next.
pub fn turns(lm: &Lm, contexts: &[Vec<u32>], max_new: usize, memo: &mut Memo) -> Result<Vec<String>> {
    turns_with(lm, contexts, max_new, Decoding::Greedy, &mut Rng::new(0), memo)
}

/// [`turns`] with any decoding (Try samples an agent's turns at a temperature).
pub fn turns_with(
    lm: &Lm,
    contexts: &[Vec<u32>],
    max_new: usize,
    decoding: Decoding,
    rng: &mut Rng,
    memo: &mut Memo,
) -> Result<Vec<String>> {
    turns_tapped(lm, contexts, max_new, (decoding, rng), memo, None)
}

/// [`turns_with`] that shows `tap` each token as it is drawn (see [`Tap`]).
pub fn turns_tapped(
    lm: &Lm,
    contexts: &[Vec<u32>],
    max_new: usize,
    (decoding, rng): (Decoding, &mut Rng),
    memo: &mut Memo,
    tap: Option<&mut Tap<'_>>,
) -> Result<Vec<String>> {
    let cfg = GenConfig::new(max_new, decoding, lm.fmt.stop().to_vec());
    let out = lm.model.generate_tapped(contexts, &cfg, rng, memo, tap)?;
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

/// What a set of episodes in the loop did.
#[derive(Debug, Clone, Default)]
pub struct Eval {
    /// Share of tasks answered with their truth.
    pub success: f64,
    /// Share of tool calls that were valid.
    pub validity: f64,
    /// Mean steps per episode.
    pub steps: f64,
    pub sessions: Vec<Session>,
}

/// Run every task through the real loop, one batched generation per turn.
pub fn evaluate(lm: &Lm, tasks: &[Task], tools: &Tools, max_steps: usize) -> Result<Eval> {
    let sessions = tasks.iter().map(|t| Session::new(&t.question)).collect();
    run_sessions(lm, tasks, sessions, tools, max_steps)
}

/// Continue the given sessions (one per task) in the real loop until each ends.
pub fn run_sessions(lm: &Lm, tasks: &[Task], sessions: Vec<Session>, tools: &Tools, max_steps: usize) -> Result<Eval> {
    run_sessions_with(lm, tasks, sessions, max_steps, &mut |_, tool, input| tools.call(tool, input))
}

/// [`run_sessions`] with every tool call made by `call(session, tool, input)`
/// (see [`Session::apply_with`]): `session` is the index of the episode.
pub fn run_sessions_with(
    lm: &Lm,
    tasks: &[Task],
    sessions: Vec<Session>,
    max_steps: usize,
    call: &mut dyn FnMut(usize, &str, &str) -> Result<String, String>,
) -> Result<Eval> {
    let sessions = drive(lm, sessions, max_steps, (Decoding::Greedy, &mut Rng::new(0)), call, &mut |_| Ok(()))?;
    let n = tasks.len().max(1) as f64;
    let success = tasks.iter().zip(&sessions).filter(|(t, s)| answered_right(t, s)).count() as f64 / n;
    let (calls, valid): (usize, usize) =
        sessions.iter().fold((0, 0), |(c, v), s| (c + s.episode.tool_calls, v + s.episode.valid_calls));
    let validity = if calls == 0 { 0.0 } else { valid as f64 / calls as f64 };
    let steps = sessions.iter().map(|s| s.episode.steps as f64).sum::<f64>() / n;
    Ok(Eval { success, validity, steps, sessions })
}

/// The longest agent turn, in tokens.
pub const MAX_TURN: usize = 24;

/// Play `sessions` to their end in the real loop, one batched generation per
/// turn with `decoding` (drawing on `rng`), every tool call made by
/// `call(session, tool, input)`; `after_turn` sees every session after each
/// turn (Try shows the turns as they come, and may stop with an error).
pub fn drive(
    lm: &Lm,
    sessions: Vec<Session>,
    max_steps: usize,
    (decoding, rng): (Decoding, &mut Rng),
    call: &mut dyn FnMut(usize, &str, &str) -> Result<String, String>,
    after_turn: &mut dyn FnMut(&[Session]) -> Result<()>,
) -> Result<Vec<Session>> {
    drive_tapped(lm, sessions, max_steps, (decoding, rng), call, after_turn, None)
}

/// [`drive`] that shows `tap(session, token, logits)` each token an agent
/// draws, as it is drawn (Try streams a turn token by token).
pub fn drive_tapped(
    lm: &Lm,
    mut sessions: Vec<Session>,
    max_steps: usize,
    (decoding, rng): (Decoding, &mut Rng),
    call: &mut dyn FnMut(usize, &str, &str) -> Result<String, String>,
    after_turn: &mut dyn FnMut(&[Session]) -> Result<()>,
    mut tap: Option<&mut Tap<'_>>,
) -> Result<Vec<Session>> {
    let mut memo = Memo::default();
    while sessions.iter().any(|s| !s.done) {
        let open: Vec<usize> = (0..sessions.len()).filter(|&i| !sessions[i].done).collect();
        let contexts: Vec<(usize, Vec<u32>)> =
            open.iter().map(|&i| (i, lm.fmt.encode_segments(lm.tok, &sessions[i].episode.segments))).collect();
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
        let mut row_tap = |row: usize, token: u32, logits: &[f32]| {
            if let Some(tap) = tap.as_deref_mut() {
                tap(fits[row], token, logits);
            }
        };
        let lines = turns_tapped(lm, &ctxs, MAX_TURN, (decoding, &mut *rng), &mut memo, Some(&mut row_tap))?;
        for (&i, line) in fits.iter().zip(lines) {
            sessions[i].apply_with(&line, max_steps, &mut |tool: &str, input: &str| call(i, tool, input));
        }
        after_turn(&sessions)?;
    }
    Ok(sessions)
}

/// Whether a session ended with the task's true answer.
pub fn answered_right(task: &Task, session: &Session) -> bool {
    session.episode.answer.as_deref() == Some(task.truth.as_str())
}

/// Let the model continue right after its first action line, where the
/// environment should write the observation. Fraction that write `Observation:` themselves.
pub fn hallucination_rate(lm: &Lm, tasks: &[Task]) -> Result<f64> {
    // The question and the correct first action; the observation is what is withheld.
    let prefixes: Vec<Vec<u32>> = tasks
        .iter()
        .filter(|t| t.kind != Kind::Direct)
        .map(|t| {
            let s = Session::new(&t.question);
            let mut segs = s.episode.segments.clone();
            segs.push((Role::Agent, oracle_turn(t, &s.transcript)));
            lm.fmt.encode_segments(lm.tok, &segs)
        })
        .collect();
    if prefixes.is_empty() {
        return Ok(0.0);
    }
    let lines = turns(lm, &prefixes, 24, &mut Memo::default())?;
    Ok(lines.iter().filter(|l| l.starts_with("Observation")).count() as f64 / lines.len() as f64)
}

/// Held-out lookups whose first action is forced to a misspelt place (the
/// tool answers with an error): the share the agent still answers right.
pub fn recovery_rate(lm: &Lm, tasks: &[Task], tools: &Tools, max_steps: usize, seed: u64) -> Result<f64> {
    let mut rng = Rng::new(seed ^ 0x5119);
    let (mut lookups, mut sessions) = (Vec::new(), Vec::new());
    for t in tasks {
        if let Plan::Lookup { entity, attr } | Plan::Both { entity, attr, .. } = &t.plan {
            let mut s = Session::new(&t.question);
            s.apply(&format!("Action: lookup[{attr} of {}]\n", misspell(entity, &mut rng)), tools, max_steps + 1);
            lookups.push(t.clone());
            sessions.push(s);
        }
    }
    Ok(run_sessions(lm, &lookups, sessions, tools, max_steps + 1)?.success)
}
