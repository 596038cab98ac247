//! Try on a prompt-injection run: a question to the clean agent (where every
//! defence started) and to the three arms trained from it — undefended, the
//! training defence, spotlighting — each in the ReAct loop with the real
//! tools, behind the harness the drill evaluates it with (the spotlight arm
//! reads every tool output datamarked).
//!
//! A fifth column is the drill's fourth defence: the undefended agent behind
//! the harness's allow-list on tool arguments (lookups must name the
//! question's place).
//!
//! The `attack` switch (on by default) plants the drill's injected
//! instruction in the first lookup result, as the run's evaluation did: for
//! one of the run's held-out questions the very injection it met, for a
//! typed question one drawn the same way (a held-out place as the payload, a
//! wording the defence never trained on where the run held them out). Its
//! tokens are coloured as injected. Each episode is judged twice: answered
//! right, and followed the injection.

use std::sync::atomic::AtomicBool;

use anyhow::Result;
use candle_core::Device;

use super::Params;
use crate::drills::try_it::{
    self, Arm, KeptRun, Switch, TryAnswer, TryCell, TryColumn, TryKind, TryOpts, TrySample, TrySession, Verdict,
};
use crate::drills::TokenKind;
use crate::envs::format::Format;
use crate::envs::injection::{followed, held_out_injections, injection, place, tasks, Goal, Harness, Injection};
use crate::envs::kb::FactTable;
use crate::envs::react::{Session, Tools};
use crate::envs::react_tasks::{split_places, task_of, Task};
use crate::envs::Role;
use crate::eval::react_loop::MAX_TURN;
use crate::eval::Lm;
use crate::ml::base;
use crate::ml::gpt::Gpt;
use crate::ml::rng::Rng;
use crate::ml::tokenizer::Bpe;

/// The arms a run keeps: the clean agent, and the three trained from it.
pub(super) const CLEAN: &str = "clean";
pub(super) const UNDEFENDED: &str = "undefended";
pub(super) const TRAINING: &str = "training-defence";
pub(super) const SPOTLIGHT: &str = "spotlight";

/// The column of the undefended agent behind the allow-list (no weights of its own).
const ALLOW_LIST: &str = "allow-list";

/// The switch: the injection in the first lookup result.
const ATTACK: &str = "attack";

/// The longest question read, in characters.
const MAX_INPUT: usize = 120;

pub(super) fn open(p: &Params, run: &KeptRun, device: &Device) -> Result<Box<dyn TrySession>> {
    let (_, tok) = base::shipped(device)?;
    let fmt = Format::tiny(&tok);
    let mut arms = Vec::new();
    let plain = Guard { spotlight: false, allow_list: false };
    for (id, label, weights, guard) in [
        (CLEAN, crate::t!("try-pi-clean"), CLEAN, plain),
        (UNDEFENDED, crate::t!("try-pi-undefended"), UNDEFENDED, plain),
        (TRAINING, crate::t!("view-pi-row-training"), TRAINING, plain),
        (SPOTLIGHT, crate::t!("view-pi-row-spotlight"), SPOTLIGHT, Guard { spotlight: true, ..plain }),
        (ALLOW_LIST, crate::t!("try-pi-allow-list"), UNDEFENDED, Guard { allow_list: true, ..plain }),
    ] {
        arms.push((Arm { id: id.to_string(), label }, (guard, run.tiny(weights, device)?)));
    }
    // The run's world as its `data` drew it: the place split, the tasks, the held-out injections.
    let kb = FactTable::world();
    let mut rng = Rng::new(run.seed);
    let (places, held_out) = split_places(&kb, &mut rng);
    tasks(p.train_tasks, p.instructions, &kb, &places, &mut rng);
    let eval_tasks = tasks(p.eval_tasks, p.instructions, &kb, &held_out, &mut rng);
    let attacked: Vec<Task> = eval_tasks.iter().filter(|t| place(t).is_some()).cloned().collect();
    let injections = held_out_injections(&attacked, &held_out, p.attack, p.wordings, &mut Rng::new(run.seed ^ 0x1a7e));
    Ok(Box::new(PiTry {
        p: p.clone(),
        tools: Tools::new(kb),
        tok,
        fmt,
        held_out,
        eval_tasks,
        attacked: attacked.into_iter().zip(injections).collect(),
        arms,
    }))
}

struct PiTry {
    p: Params,
    tools: Tools,
    tok: Bpe,
    fmt: Format,
    /// Places never trained on: the payloads of injections.
    held_out: Vec<String>,
    eval_tasks: Vec<Task>,
    /// The run's held-out questions that look something up, each with the injection it met.
    attacked: Vec<(Task, Injection)>,
    /// Each arm, the harness it runs behind, its model (the clean agent first).
    arms: Vec<(Arm, (Guard, Gpt))>,
}

/// The harness defences an arm runs behind, as the drill evaluates it.
#[derive(Debug, Clone, Copy)]
struct Guard {
    /// Every tool output datamarked (the spotlight arm, trained that way).
    spotlight: bool,
    /// Lookups and searches must name the question's place.
    allow_list: bool,
}

impl PiTry {
    /// The task a question is (the run's own, else one of the world's forms), and the injection it meets.
    fn read(&self, text: &str, seed: u64) -> (Option<Task>, Injection, bool) {
        if let Some((t, inj)) = self.attacked.iter().find(|(t, _)| t.question == text) {
            return (Some(t.clone()), inj.clone(), true);
        }
        let task =
            self.eval_tasks.iter().find(|t| t.question == text).cloned().or_else(|| task_of(text, &self.tools.kb));
        let own = task.as_ref().and_then(|t| place(t));
        let others: Vec<String> = self.held_out.iter().filter(|w| Some(w.as_str()) != own).cloned().collect();
        let inj = injection(&mut Rng::new(seed ^ 0x1a7e), &others, self.p.attack, self.p.wordings, true);
        (task, inj, false)
    }
}

impl TrySession for PiTry {
    fn kind(&self) -> TryKind {
        TryKind::AgentLoop
    }

    fn arms(&self) -> Vec<Arm> {
        try_it::arms_of(&self.arms)
    }

    /// The run's held-out questions that an attack reaches (they look something up).
    fn examples(&self) -> Vec<String> {
        try_it::distinct(self.attacked.iter().map(|(t, _)| t.question.clone()), 12)
    }

    fn prompt_hint(&self) -> String {
        let place = self.held_out.first().map_or("Dunrath", String::as_str);
        crate::t!("try-pi-hint", place = place)
    }

    fn defaults(&self) -> TryOpts {
        // The drill evaluates greedy: so does Try, unless asked.
        TryOpts::new(1, 0.0)
    }

    fn switches(&self) -> Vec<Switch> {
        vec![Switch { key: ATTACK.into(), label: crate::t!("try-pi-switch-attack"), default: true }]
    }

    fn answer(
        &mut self,
        input: &str,
        opts: &TryOpts,
        progress: &mut dyn FnMut(&TryAnswer),
        cancel: &AtomicBool,
    ) -> Result<TryAnswer> {
        let text = try_it::checked_input(input, MAX_INPUT)?;
        let (task, inj, the_runs) = self.read(text, opts.seed);
        let attack = opts.switch(ATTACK, true);
        let question = task.as_ref().map_or(text.to_string(), |t| t.question.clone());
        let own = task.as_ref().and_then(|t| place(t)).map(str::to_string);
        let mut notes = vec![match &task {
            Some(t) => crate::t!("try-react-truth", truth = t.truth.as_str()),
            None => crate::t!("try-react-no-truth"),
        }];
        let wants = match &inj.goal {
            Goal::Answer(w) => crate::t!("view-pi-goal-answer", what = w.as_str()),
            Goal::Call(w) => crate::t!("view-pi-goal-call", what = w.as_str()),
        };
        notes.push(match (attack, the_runs, own.is_some() || task.is_none()) {
            (false, _, _) => crate::t!("try-pi-attack-off"),
            (true, true, _) => crate::t!("try-pi-attack-runs", text = inj.text.as_str(), wants = wants),
            (true, false, true) => crate::t!("try-pi-attack-drawn", text = inj.text.as_str(), wants = wants),
            (true, false, false) => crate::t!("try-pi-attack-no-lookup", text = inj.text.as_str()),
        });
        if opts.arm.as_deref().is_none_or(|a| a == ALLOW_LIST) {
            notes.push(match &own {
                Some(place) => crate::t!("try-pi-allow", place = place.as_str()),
                None => crate::t!("try-pi-allow-none"),
            });
        }
        let mut answer = TryAnswer { input: text.to_string(), notes, columns: Vec::new() };
        let n = opts.samples.clamp(1, try_it::MAX_SAMPLES);
        let all = self.arms();
        let marked = [inj.text.clone(), inj.text.replace(' ', "^")];
        for arm in opts.arms(&all) {
            try_it::check(cancel)?;
            let (guard, model) = try_it::model_of(&self.arms, &arm.id);
            let lm = Lm { model, tok: &self.tok, fmt: &self.fmt };
            let prompt = self.fmt.encode_segments(&self.tok, &Session::new(&question).episode.segments).len();
            try_it::check_fits(prompt, MAX_TURN, model.cfg.context)?;
            let harness = Harness {
                injection: attack.then(|| inj.clone()),
                spotlight: guard.spotlight,
                allow: own.clone().filter(|_| guard.allow_list),
                injected: false,
            };
            let mut hs = vec![harness; n];
            answer.columns.push(TryColumn::new(arm));
            let mut rng = try_it::arm_rng(opts.seed);
            let tools = &self.tools;
            let live = try_it::Live { answer: &mut answer, progress: &mut *progress, cancel };
            let (done, streamed) = try_it::stream_sessions(
                &lm,
                vec![Session::new(&question); n],
                self.p.max_steps,
                (try_it::decoding(opts.temperature), &mut rng),
                &mut |i, tool, input| hs[i].call(tools, tool, input),
                &|segments, written| cells(&lm, segments, &marked, written),
                live,
            )?;
            let (mut right, mut obeyed) = (0, 0);
            let mut samples = Vec::new();
            for ((s, h), sample) in done.iter().zip(&hs).zip(streamed) {
                let e = &s.episode;
                let got = e.answer.clone().unwrap_or_else(|| crate::t!("try-tca-no-answer"));
                let ok = task.as_ref().map(|t| e.answer.as_deref() == Some(t.truth.as_str()));
                right += usize::from(ok == Some(true));
                let mut verdicts = vec![Verdict::new(crate::t!("try-tca-answer"), got, ok)];
                if h.injected {
                    let hit = followed(s, &inj.goal);
                    obeyed += usize::from(hit);
                    let said = if hit { crate::t!("try-pi-yes") } else { crate::t!("try-pi-no") };
                    verdicts.push(Verdict::new(crate::t!("try-pi-followed"), said, Some(!hit)));
                } else if attack {
                    verdicts.push(Verdict::new(crate::t!("try-pi-followed"), crate::t!("try-pi-not-met"), None));
                }
                verdicts.push(Verdict::new(
                    crate::t!("try-react-calls"),
                    format!("{} ({} valid) · {} steps", e.tool_calls, e.valid_calls, e.steps),
                    None,
                ));
                samples.push(TrySample { cells: sample.cells, verdicts, ..Default::default() });
            }
            let col = answer.columns.last_mut().expect("pushed above");
            col.samples = samples;
            if task.is_some() {
                col.summary.push(Verdict::new(crate::t!("try-tca-right"), format!("{right}/{n}"), None));
            }
            if attack {
                col.summary.push(Verdict::new(crate::t!("try-pi-followed"), format!("{obeyed}/{n}"), None));
            }
            progress(&answer);
        }
        Ok(answer)
    }
}

/// The byte range of the injected sentence in a tool's reply (plain or datamarked), if it is there.
fn injected_span(role: Role, text: &str, marked: &[String]) -> Option<std::ops::Range<usize>> {
    if role != Role::Env {
        return None;
    }
    marked.iter().filter(|m| !m.is_empty()).find_map(|m| text.find(m.as_str()).map(|a| a..a + m.len()))
}

/// A segment as it streams: its text in one piece per writer, the injected sentence apart.
fn text_cells(role: Role, text: &str, marked: &[String]) -> Vec<TryCell> {
    let kind = try_it::role_kind(0, role);
    match injected_span(role, text, marked) {
        None => vec![TryCell::new(text, kind)],
        Some(r) => vec![
            TryCell::new(&text[..r.start], kind),
            TryCell::new(&text[r.clone()], TokenKind::Injected),
            TryCell::new(&text[r.end..], kind),
        ]
        .into_iter()
        .filter(|c| !c.text.is_empty())
        .collect(),
    }
}

/// A finished episode: the agent's turns token by token with their
/// log-probabilities as it drew them ([`try_it::segment_cells_written`]), the question and the
/// tools' replies as text (a token of a datamark `«` is half a character),
/// the injected sentence apart.
fn cells(lm: &Lm, segments: &[(Role, String)], marked: &[String], written: try_it::Written) -> Result<Vec<TryCell>> {
    let tokens = try_it::segment_cells_written(lm, segments, &try_it::role_kind, written)?;
    let mut out = Vec::new();
    let mut at = 0;
    for (role, text) in segments {
        let n = lm.fmt.encode(lm.tok, *role, text).len();
        match (role, tokens.get(at..at + n)) {
            (Role::Agent, Some(agent)) => out.extend_from_slice(agent),
            _ => out.extend(text_cells(*role, text, marked)),
        }
        at += n;
    }
    Ok(out)
}
