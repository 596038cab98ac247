//! Try: the models a run trained and the one they started from, side by
//! side on an input the learner types, in the drill's own task and world.
//!
//! A drill that has a Try implements
//! [`TypedDrill::open_try`](super::TypedDrill::open_try): it reads the
//! run's kept models ([`KeptRun`], `src/drills/keep.rs`), rebuilds its world
//! from the run's parameters and seed (the same places, tools, verifiers as
//! the run had), and returns a [`TrySession`]. A session answers one input
//! at a time: every arm on the same input, `samples` samples each at a
//! temperature, from a seed, so the same input, options and seed give the
//! same answer. It reports the answer as it grows (`progress`), so an
//! agent's turns appear as they are generated, and stops when `cancel` is
//! set. The TUI's Try tab and `agentlab try` show the same [`TryAnswer`].
//!
//! Which kind of Try a drill has ([`TryKind`]) decides how it reads: an
//! agent in its loop (each turn coloured by who wrote it: prompt, agent,
//! tool observation, injected text), samples judged by the drill's
//! verifiers, scores from reward models, ranked retrieval, or one input to
//! every arm in columns.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::events::{TokenCell, TokenKind};
pub use super::keep::KeptRun;

/// How a drill's Try reads (the README's table and the tests name them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TryKind {
    /// An agent in its loop with the real tools; each turn as it is generated.
    AgentLoop,
    /// Samples of a completion, each judged by the drill's verifiers.
    Sampling,
    /// An answer scored by each model (reward models beside the gold reward).
    Scorer,
    /// A query, and each arm's top results with their scores.
    Retrieval,
    /// One input to every arm, the outputs in columns.
    Columns,
}

/// What the learner chose for one input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TryOpts {
    /// Samples per arm (1 to [`MAX_SAMPLES`]).
    pub samples: usize,
    /// Sampling temperature; 0 is greedy.
    pub temperature: f32,
    pub seed: u64,
    /// Only this arm (its id), or every arm.
    pub arm: Option<String>,
    /// The session's switches by key (prompt-injection's attack on or off).
    pub switches: BTreeMap<String, bool>,
}

/// At most this many samples per arm.
pub const MAX_SAMPLES: usize = 16;

impl TryOpts {
    pub fn new(samples: usize, temperature: f32) -> TryOpts {
        TryOpts { samples, temperature, seed: 1, arm: None, switches: BTreeMap::new() }
    }

    /// Whether switch `key` is on (`default` when the learner left it).
    pub fn switch(&self, key: &str, default: bool) -> bool {
        self.switches.get(key).copied().unwrap_or(default)
    }

    /// The arms of `all` to answer with: the one asked for, or every one.
    pub fn arms<'a>(&self, all: &'a [Arm]) -> Vec<&'a Arm> {
        all.iter().filter(|a| self.arm.as_ref().is_none_or(|x| *x == a.id)).collect()
    }
}

/// One model a session answers with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Arm {
    /// As kept in the run (`after-rl`): what `--arm` takes.
    pub id: String,
    /// As the learner reads it ("after RL").
    pub label: String,
}

/// A switch the learner can flip for every answer (`a` in the TUI, `--switch KEY=on` headless).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Switch {
    pub key: String,
    pub label: String,
    pub default: bool,
}

/// One token (or piece of text) of a sample, with who wrote it and, for the
/// model's own tokens, its log-probability under the model that wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TryCell {
    pub text: String,
    pub kind: TokenKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logp: Option<f32>,
}

impl TryCell {
    pub fn new(text: impl Into<String>, kind: TokenKind) -> TryCell {
        TryCell { text: text.into(), kind, logp: None }
    }

    /// As a token view's cell: the log-probability as its value where asked.
    pub fn view_cell(&self, by_logp: bool) -> TokenCell {
        let value = if by_logp { self.logp } else { None };
        TokenCell { text: self.text.clone(), kind: self.kind, value }
    }
}

/// A measured fact about a sample (`exact: ✓`, `reward: 0.90`), good or bad where that is clear.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub name: String,
    pub value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub good: Option<bool>,
}

impl Verdict {
    pub fn new(name: impl Into<String>, value: impl Into<String>, good: Option<bool>) -> Verdict {
        Verdict { name: name.into(), value: value.into(), good }
    }

    /// A pass/fail verdict with no value beside it (`exact ✓`).
    pub fn check(name: impl Into<String>, ok: bool) -> Verdict {
        Verdict::new(name, "", Some(ok))
    }
}

/// One sample of one arm: its tokens (or lines of text), and what the drill's
/// verifiers say of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrySample {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<TryCell>,
    /// Plain lines, where a sample is not a token sequence (a ranking, a score).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<Verdict>,
    /// Still being generated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
}

impl TrySample {
    /// The sample's text as written (its cells joined, else its lines).
    pub fn text(&self) -> String {
        match self.cells.is_empty() {
            false => self.cells.iter().map(|c| c.text.as_str()).collect(),
            true => self.lines.join("\n"),
        }
    }
}

/// One arm's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TryColumn {
    pub arm: String,
    pub label: String,
    pub samples: Vec<TrySample>,
    /// Over the samples (`exact 3/4`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<Verdict>,
}

impl TryColumn {
    pub fn new(arm: &Arm) -> TryColumn {
        TryColumn { arm: arm.id.clone(), label: arm.label.clone(), samples: Vec::new(), summary: Vec::new() }
    }
}

/// What every arm made of one input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TryAnswer {
    pub input: String,
    /// What the input was read as ("Nilbu, a place the warm start had to search for").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub columns: Vec<TryColumn>,
}

/// A drill's Try on one saved run, its models loaded.
pub trait TrySession: Send {
    fn kind(&self) -> TryKind;
    /// The models it answers with, the starting one first.
    fn arms(&self) -> Vec<Arm>;
    /// Inputs to pick instead of typing (held-out ones the run never trained on).
    fn examples(&self) -> Vec<String>;
    /// What to type, in a few words ("a place, e.g. capital of Nilbu?").
    fn prompt_hint(&self) -> String;
    /// The options a new answer starts from (the drill's own temperature, its samples).
    fn defaults(&self) -> TryOpts;
    fn switches(&self) -> Vec<Switch> {
        Vec::new()
    }
    /// Every arm's answer to `input`. `progress` is called as the answer grows;
    /// `cancel` stops it between steps (an error [`Stopped`]).
    fn answer(
        &mut self,
        input: &str,
        opts: &TryOpts,
        progress: &mut dyn FnMut(&TryAnswer),
        cancel: &AtomicBool,
    ) -> Result<TryAnswer>;
}

/// The answer was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped")
    }
}

impl std::error::Error for Stopped {}

/// Stop if the learner cancelled.
pub fn check(cancel: &AtomicBool) -> Result<()> {
    match cancel.load(Ordering::Relaxed) {
        true => Err(Stopped.into()),
        false => Ok(()),
    }
}

/// A learner's mistake Try refuses with a message (exit 2 headless): an
/// empty input, one longer than the model reads, a drill without a Try, a
/// run whose models are gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// `Err(Refused)` with `message`.
pub fn refuse<T>(message: String) -> Result<T> {
    Err(Refused(message).into())
}

/// The input trimmed, refused when empty or longer than `max` characters.
pub fn checked_input(input: &str, max: usize) -> Result<&str> {
    let t = input.trim();
    if t.is_empty() {
        return refuse(crate::t!("try-empty-input"));
    }
    let n = t.chars().count();
    if n > max {
        return refuse(crate::t!("try-too-long", chars = n.to_string(), max = max.to_string()));
    }
    Ok(t)
}

/// Refused when `tokens` will not fit a model of `context` positions with
/// `room` more to generate.
pub fn check_fits(tokens: usize, room: usize, context: usize) -> Result<()> {
    if tokens + room > context {
        return refuse(crate::t!(
            "try-over-context",
            tokens = tokens.to_string(),
            room = room.to_string(),
            context = context.to_string()
        ));
    }
    Ok(())
}

/// Log-probabilities of `ids[start..]` under `model`, each given the tokens
/// before it (`None` for `ids[..start]`): the colour of a model's own tokens.
pub fn token_logps(model: &dyn crate::ml::lm::CausalLm, ids: &[u32], start: usize) -> Result<Vec<Option<f32>>> {
    let mut out = vec![None; ids.len()];
    if ids.len() < 2 || start >= ids.len() {
        return Ok(out);
    }
    let n = ids.len().min(model.context());
    let x = candle_core::Tensor::new(&ids[..n - 1], model.device())?.unsqueeze(0)?;
    let logits = model.forward(&x)?.squeeze(0)?;
    for (i, slot) in out.iter_mut().enumerate().take(n).skip(start.max(1)) {
        let row = crate::ml::sample::log_softmax_row(&logits.get(i - 1)?)?;
        *slot = row.get(ids[i] as usize).copied();
    }
    Ok(out)
}

/// Greedy at temperature 0, else plain sampling at `temperature`.
pub fn decoding(temperature: f32) -> crate::ml::sample::Decoding {
    match temperature <= 0.0 {
        true => crate::ml::sample::Decoding::Greedy,
        false => crate::ml::sample::Decoding::Sample { temperature, top_k: None, top_p: None },
    }
}

/// An arm's random stream for an answer: every arm draws the same numbers
/// (common random numbers), so where two arms differ on an input, their
/// weights made the difference, not the draw; the same seed gives the same samples.
pub fn arm_rng(seed: u64) -> crate::ml::rng::Rng {
    crate::ml::rng::Rng::new(seed ^ 0x7472_795f_6974)
}

/// A trajectory's segments as Try's cells, each segment encoded as the model
/// reads it: the prompt (a chat model's whole template stands as its
/// question), the agent's tokens with their log-probabilities under `lm`'s
/// model, the world's replies masked — or whatever `kind` says of segment
/// `k` (an injected observation).
pub fn segment_cells(
    lm: &crate::eval::Lm,
    segments: &[(crate::envs::Role, String)],
    kind: &dyn Fn(usize, crate::envs::Role) -> TokenKind,
) -> Result<Vec<TryCell>> {
    segment_cells_written(lm, segments, kind, Written::Scored(&[]))
}

/// What [`segment_cells_written`] knows of the agent's tokens: what each
/// turn drew, and whether a segment that does not read back as its draw is
/// scored by a second pass (a finished answer) or left uncoloured (a turn
/// still streaming).
#[derive(Clone, Copy)]
pub enum Written<'a> {
    Scored(&'a [Vec<(u32, f32)>]),
    Drawn(&'a [Vec<(u32, f32)>]),
}

/// [`segment_cells`] given what the model wrote: per agent segment, in
/// order, the tokens it drew for that turn with their log-probabilities as
/// it drew them (a generation's tap, [`crate::ml::sample::Tap`]). Where every
/// agent segment reads back as those tokens (the loop may add the line's
/// newline, which the model did not write and which gets no colour), no
/// second pass runs; otherwise the model scores the whole transcript again.
pub fn segment_cells_written(
    lm: &crate::eval::Lm,
    segments: &[(crate::envs::Role, String)],
    kind: &dyn Fn(usize, crate::envs::Role) -> TokenKind,
    written: Written<'_>,
) -> Result<Vec<TryCell>> {
    use crate::envs::Role;
    use crate::ml::tokenizer::Tokenize;
    let mut ids: Vec<u32> = lm.fmt.bos.into_iter().collect();
    let mut spans = Vec::new();
    for (role, text) in segments {
        let t = lm.fmt.encode(lm.tok, *role, text);
        spans.push((ids.len(), t.len()));
        ids.extend(t);
    }
    let first_agent = segments.iter().position(|(r, _)| *r == Role::Agent).map_or(ids.len(), |k| spans[k].0);
    let logp = match written {
        Written::Drawn(w) => written_logps(lm, &ids, &spans, segments, w, true).unwrap_or_default(),
        Written::Scored(w) => match written_logps(lm, &ids, &spans, segments, w, false) {
            Some(l) => l,
            None => token_logps(lm.model, &ids, first_agent)?,
        },
    };
    let mut cells = Vec::new();
    for (k, (role, text)) in segments.iter().enumerate() {
        let (start, len) = spans[k];
        let kind = kind(k, *role);
        if *role == Role::Prompt && lm.fmt.chat.is_some() {
            cells.push(TryCell::new(text.clone(), kind));
            continue;
        }
        for (j, &id) in ids[start..start + len].iter().enumerate() {
            let lp = if *role == Role::Agent { logp.get(start + j).copied().flatten() } else { None };
            cells.push(TryCell { text: lm.tok.decode(&[id]), kind, logp: lp });
        }
    }
    Ok(cells)
}

/// The agent segments' log-probabilities from what the model wrote, or
/// `None` where a segment does not read back as the written tokens (unless
/// `partial`: then that segment's tokens stay uncoloured).
fn written_logps(
    lm: &crate::eval::Lm,
    ids: &[u32],
    spans: &[(usize, usize)],
    segments: &[(crate::envs::Role, String)],
    written: &[Vec<(u32, f32)>],
    partial: bool,
) -> Option<Vec<Option<f32>>> {
    use crate::ml::tokenizer::Tokenize;
    let mut out = vec![None; ids.len()];
    let mut turns = written.iter();
    for (k, (role, _)) in segments.iter().enumerate() {
        if *role != crate::envs::Role::Agent {
            continue;
        }
        let (start, len) = spans[k];
        let (enc, drawn) = (&ids[start..start + len], turns.next()?);
        let same = enc.iter().zip(drawn).take_while(|(a, (b, _))| *a == b).count();
        if same < len && lm.tok.decode(&enc[same..]) != "\n" {
            match partial {
                true => continue,
                false => return None,
            }
        }
        for (slot, (_, lp)) in out[start..start + same].iter_mut().zip(drawn) {
            *slot = Some(*lp);
        }
    }
    Some(out)
}

/// How often a streaming turn shows its new tokens (every turn's end is shown too).
const STREAM_EVERY: std::time::Duration = std::time::Duration::from_millis(20);

/// Where an agent-loop Try shows its sessions as they are written: the
/// answer's last column, the caller's `progress`, and the learner's cancel.
pub struct Live<'a> {
    pub answer: &'a mut TryAnswer,
    pub progress: &'a mut dyn FnMut(&TryAnswer),
    pub cancel: &'a AtomicBool,
}

/// What each agent turn of each session drew: per session, per turn, the
/// tokens with their log-probabilities ([`segment_cells_written`]).
pub type Drawn = Vec<Vec<Vec<(u32, f32)>>>;

/// How an agent-loop Try draws a session's segments, given what its turns drew.
pub type Shown<'a> = dyn Fn(&[(crate::envs::Role, String)], Written<'_>) -> Result<Vec<TryCell>> + 'a;

/// Play ReAct-loop `sessions` to their end for one Try column: the column's
/// samples follow the sessions as they are written — each agent token as the
/// model draws it (with its log-probability, read from the logits it was
/// drawn from), each finished turn and observation as `shown` draws them —
/// and the learner's cancel stops them between turns. The finished samples
/// are `shown` with [`Written::Scored`]; their cells need no second pass
/// where the turns read back as drawn.
pub fn stream_sessions(
    lm: &crate::eval::Lm,
    sessions: Vec<crate::envs::react::Session>,
    max_steps: usize,
    (decoding, rng): (crate::ml::sample::Decoding, &mut crate::ml::rng::Rng),
    call: &mut dyn FnMut(usize, &str, &str) -> Result<String, String>,
    shown: &Shown<'_>,
    live: Live<'_>,
) -> Result<(Vec<crate::envs::react::Session>, Vec<TrySample>)> {
    use crate::ml::tokenizer::Tokenize;
    let n = sessions.len();
    let drawn_cells = |ss: &[crate::envs::react::Session], drawn: &Drawn, scored: bool| -> Result<Vec<TrySample>> {
        ss.iter()
            .zip(drawn)
            .map(|(s, w)| {
                let w = if scored { Written::Scored(w) } else { Written::Drawn(w) };
                Ok(TrySample { cells: shown(&s.episode.segments, w)?, pending: !s.done, ..Default::default() })
            })
            .collect()
    };
    let Live { answer, progress, cancel } = live;
    answer.columns.last_mut().expect("the caller pushed the column").samples =
        drawn_cells(&sessions, &vec![Vec::new(); n], false)?;
    progress(answer);
    // (the answer, progress, what each session's finished turns drew, what its current turn has drawn so far)
    let state = std::cell::RefCell::new((answer, progress, vec![Vec::new(); n], vec![Vec::new(); n]));
    let mut shown_at = None;
    let mut tap = |s: usize, token: u32, logits: &[f32]| {
        let mut st = state.borrow_mut();
        let (answer, progress, _, current) = &mut *st;
        let logp = crate::ml::sample::logp_of(logits, token);
        current[s].push((token, logp));
        let col = answer.columns.last_mut().expect("the caller pushed the column");
        if let Some(sample) = col.samples.get_mut(s) {
            sample.cells.push(TryCell { text: lm.tok.decode(&[token]), kind: TokenKind::Trained, logp: Some(logp) });
        }
        // A tiny model draws thousands of tokens a second: show them at a screen's pace.
        if shown_at.is_none_or(|t: std::time::Instant| t.elapsed() >= STREAM_EVERY) {
            shown_at = Some(std::time::Instant::now());
            progress(answer);
        }
    };
    let mut after = |ss: &[crate::envs::react::Session]| -> Result<()> {
        let mut st = state.borrow_mut();
        let (answer, progress, written, current) = &mut *st;
        for (w, c) in written.iter_mut().zip(current.iter_mut()) {
            if !c.is_empty() {
                w.push(std::mem::take(c));
            }
        }
        answer.columns.last_mut().expect("the caller pushed the column").samples = drawn_cells(ss, written, false)?;
        progress(answer);
        check(cancel)
    };
    let done = crate::eval::react_loop::drive_tapped(
        lm,
        sessions,
        max_steps,
        (decoding, rng),
        call,
        &mut after,
        Some(&mut tap),
    )?;
    let (_, _, written, _) = state.into_inner();
    let samples = drawn_cells(&done, &written, true)?;
    Ok((done, samples))
}

/// Who wrote a segment, as Try colours it: the prompt, the agent (trained), the world (masked).
pub fn role_kind(_k: usize, role: crate::envs::Role) -> TokenKind {
    match role {
        crate::envs::Role::Prompt => TokenKind::Prompt,
        crate::envs::Role::Agent => TokenKind::Trained,
        crate::envs::Role::Env => TokenKind::Masked,
    }
}

/// One completion of a prompt as Try shows it: the tokens the model wrote
/// (its stop token included) and the cells — the prompt as one cell, then
/// each written token with its log-probability under the model.
pub struct Completion {
    pub ids: Vec<u32>,
    pub cells: Vec<TryCell>,
}

/// `opts.samples` completions of `prompt` by `model` (greedy at temperature
/// 0), drawn from [`arm_rng`] so every arm draws the same numbers; `shown`
/// is the prompt as the learner reads it, `spell` a written token.
pub fn complete(
    model: &crate::ml::gpt::Gpt,
    prompt: &[u32],
    shown: &str,
    cfg: &crate::ml::sample::GenConfig,
    opts: &TryOpts,
    spell: &dyn Fn(u32) -> String,
) -> Result<Vec<Completion>> {
    check_fits(prompt.len(), cfg.max_new, model.cfg.context)?;
    let n = opts.samples.clamp(1, MAX_SAMPLES);
    let outs = crate::ml::sample::generate(model, &vec![prompt.to_vec(); n], cfg, &mut arm_rng(opts.seed))?;
    let mut done = Vec::with_capacity(n);
    for out in outs {
        let ids: Vec<u32> = prompt.iter().chain(&out).copied().collect();
        let logp = token_logps(model, &ids, prompt.len())?;
        let mut cells = vec![TryCell::new(shown, TokenKind::Prompt)];
        for (j, &t) in out.iter().enumerate() {
            cells.push(TryCell { text: spell(t), kind: TokenKind::Trained, logp: logp[prompt.len() + j] });
        }
        done.push(Completion { ids: out, cells });
    }
    Ok(done)
}

/// The arms of a session's (arm, model) pairs, in order.
pub fn arms_of<M>(arms: &[(Arm, M)]) -> Vec<Arm> {
    arms.iter().map(|(a, _)| a.clone()).collect()
}

/// The model of arm `id` among a session's pairs (`opts.arms` only names arms the session has).
pub fn model_of<'a, M>(arms: &'a [(Arm, M)], id: &str) -> &'a M {
    &arms.iter().find(|(a, _)| a.id == id).expect("an arm of this session").1
}

/// The first `n` distinct texts, in order (a session's examples).
pub fn distinct(texts: impl IntoIterator<Item = String>, n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in texts {
        if out.len() == n {
            break;
        }
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envs::react::{Session, Tools};

    /// The log-probabilities Try reads from the logits a token was drawn from
    /// are the ones a second pass over the finished transcript computes, and
    /// the column streamed token by token while the loop ran.
    #[test]
    fn streamed_turns_carry_the_log_probabilities_a_second_pass_computes() {
        let (model, tok) = crate::ml::base::shipped(&candle_core::Device::Cpu).unwrap();
        let fmt = crate::envs::format::Format::tiny(&tok);
        let lm = crate::eval::Lm { model: &model, tok: &tok, fmt: &fmt };
        let tools = Tools::new(crate::envs::kb::FactTable::world());
        let arm = Arm { id: "base".into(), label: "base".into() };
        let mut answer = TryAnswer { columns: vec![TryColumn::new(&arm)], ..Default::default() };
        let (mut updates, mut most) = (0, 0);
        let mut progress = |a: &TryAnswer| {
            updates += 1;
            most = most.max(a.columns[0].samples.iter().map(|s| s.cells.len()).sum::<usize>());
        };
        let cancel = AtomicBool::new(false);
        let live = Live { answer: &mut answer, progress: &mut progress, cancel: &cancel };
        let drawn = std::cell::RefCell::new(Vec::new());
        let (done, streamed) = stream_sessions(
            &lm,
            vec![Session::new("Q: capital of Vesk?\n"); 3],
            3,
            (decoding(1.0), &mut arm_rng(7)),
            &mut |_, tool, input| tools.call(tool, input),
            &|segments, written| {
                if let Written::Scored(w) = written {
                    drawn.borrow_mut().push(w.to_vec());
                }
                segment_cells_written(&lm, segments, &role_kind, written)
            },
            live,
        )
        .unwrap();
        let drawn = drawn.into_inner();
        let tokens: usize = drawn.iter().flatten().map(|t| t.len()).sum();
        // Shown at the start, after each batched turn, and between: the first token at least.
        let turns = drawn.iter().map(|w| w.len()).max().unwrap_or(0);
        assert!(updates > turns + 1 && most > 3, "{updates} updates for {turns} turns");
        let mut compared = 0;
        for ((s, w), fast) in done.iter().zip(&drawn).zip(&streamed) {
            let agent_turns = s.episode.segments.iter().filter(|(r, _)| *r == crate::envs::Role::Agent).count();
            assert_eq!(w.len(), agent_turns);
            let slow = segment_cells(&lm, &s.episode.segments, &role_kind).unwrap();
            // Read from the draw only (no second pass to fall back on).
            let read = segment_cells_written(&lm, &s.episode.segments, &role_kind, Written::Drawn(w)).unwrap();
            assert_eq!(fast.cells.len(), slow.len());
            assert_eq!(read.len(), slow.len());
            for (f, g) in read.iter().zip(&slow) {
                assert_eq!(f.text, g.text);
                if let (Some(a), Some(b)) = (f.logp, g.logp) {
                    assert!((a - b).abs() < 1e-3 * b.abs().max(1.0), "{a} vs {b} at {:?}", f.text);
                    compared += 1;
                }
            }
        }
        assert!(compared * 2 > tokens, "only {compared} of {tokens} drawn tokens were read from the draw");
    }
}
