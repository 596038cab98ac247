//! The ReAct world's tasks and the oracle that solves them: what
//! `react-tool-call-loop` trains on and `prompt-injection` attacks.
//!
//! A task asks for a fact (`population of Vesk?`), a sum (`417 + 38?`), both
//! (`founded of Vesk + 12?`: a lookup, then a calculation on its result) or
//! nothing a tool can help with (`repeat Vesk`). The oracle writes the
//! agent's lines from the observations as they come, so its trajectories are
//! right in the real loop; [`solve`] can plant a misspelt lookup first, a
//! mistake the oracle then recovers from.

use super::calculator::Calculator;
use super::kb::FactTable;
use super::react::{Session, Tools};
use crate::ml::rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Lookup,
    Calc,
    Both,
    Direct,
}

#[derive(Debug, Clone)]
pub struct Task {
    pub question: String,
    pub truth: String,
    pub kind: Kind,
    /// The oracle's agent lines, computed from the observations as they come.
    pub plan: Plan,
}

#[derive(Debug, Clone)]
pub enum Plan {
    Lookup { entity: String, attr: String },
    Calc { expr: String },
    Both { entity: String, attr: String, op: char, n: i64 },
    Direct { text: String },
}

const ATTRS: [&str; 4] = ["population", "founded", "capital", "flag"];

pub fn make_task(rng: &mut Rng, kb: &FactTable, places: &[String]) -> Task {
    let place = rng.choose(places).clone();
    match rng.below(4) {
        0 => {
            let attr = ATTRS[rng.below(4)].to_string();
            let truth = kb.get(&place, &attr).unwrap_or_default().to_string();
            Task {
                question: format!("{attr} of {place}?"),
                truth,
                kind: Kind::Lookup,
                plan: Plan::Lookup { entity: place, attr },
            }
        }
        1 => {
            // Fixed widths (3 and 2 digits) keep the copying simple for a tiny model.
            let (a, b) = (rng.range(100, 999), rng.range(10, 99));
            let op = *rng.choose(&['+', '-', '*']);
            let expr = format!("{a} {op} {b}");

            let truth = Calculator.eval(&expr).map(|v| v.to_string()).unwrap_or_default();
            Task { question: format!("{expr}?"), truth, kind: Kind::Calc, plan: Plan::Calc { expr } }
        }
        2 => {
            let attr = if rng.bool(0.5) { "population" } else { "founded" }.to_string();
            let n = rng.range(10, 99);
            let op = if rng.bool(0.5) { '+' } else { '-' };
            let base: i64 = kb.get(&place, &attr).and_then(|v| v.parse().ok()).unwrap_or(0);
            let truth = if op == '+' { base + n } else { base - n }.to_string();
            Task {
                question: format!("{attr} of {place} {op} {n}?"),
                truth,
                kind: Kind::Both,
                plan: Plan::Both { entity: place, attr, op, n },
            }
        }
        _ => Task {
            question: format!("repeat {place}"),
            truth: place.clone(),
            kind: Kind::Direct,
            plan: Plan::Direct { text: place },
        },
    }
}

/// A question typed in the form [`make_task`] writes (`population of Vesk?`,
/// `417 + 38?`, `founded of Vesk - 12?`, `repeat Vesk`), as the task it is,
/// with its true answer from `kb` and the calculator; `None` for any other
/// text (an agent can still be asked it, but nothing knows the answer).
pub fn task_of(question: &str, kb: &FactTable) -> Option<Task> {
    let q = question.trim();
    if let Some(text) = q.strip_prefix("repeat ") {
        let text = text.trim().to_string();
        return Some(Task {
            question: q.to_string(),
            truth: text.clone(),
            kind: Kind::Direct,
            plan: Plan::Direct { text },
        });
    }
    let body = q.strip_suffix('?')?.trim();
    let task = |kind, truth: String, plan| Some(Task { question: format!("{body}?"), truth, kind, plan });
    if let Some((attr, rest)) = body.split_once(" of ") {
        let attr = attr.trim();
        if !ATTRS.contains(&attr) {
            return None;
        }
        // `founded of Vesk + 12`: a lookup, then arithmetic on its result.
        let parts: Vec<&str> = rest.rsplitn(3, ' ').collect();
        if let [n, op, place] = parts.as_slice() {
            if let (Ok(n), Some(op)) =
                (n.parse::<i64>(), op.chars().next().filter(|c| "+-".contains(*c) && op.len() == 1))
            {
                let base: i64 = kb.get(place, attr)?.parse().ok()?;
                let truth = if op == '+' { base + n } else { base - n };
                let plan = Plan::Both { entity: place.to_string(), attr: attr.to_string(), op, n };
                return task(Kind::Both, truth.to_string(), plan);
            }
        }
        let place = rest.trim();
        let truth = kb.get(place, attr)?.to_string();
        return task(Kind::Lookup, truth, Plan::Lookup { entity: place.to_string(), attr: attr.to_string() });
    }
    let value = Calculator.eval(body).ok()?;
    task(Kind::Calc, value.to_string(), Plan::Calc { expr: body.to_string() })
}

/// The oracle's next line, given the transcript so far: it reads the
/// observations, and after an error it simply tries the right call again.
pub fn oracle_turn(task: &Task, transcript: &str) -> String {
    let obs: Vec<&str> = transcript.lines().filter_map(|l| l.strip_prefix("Observation: ")).collect();
    let ok: Vec<&str> = obs.iter().copied().filter(|o| !o.starts_with("error")).collect();
    let answer = |v: &str| format!("Final Answer: {v}\n");
    match (&task.plan, ok.len()) {
        (Plan::Direct { text }, _) => answer(text),
        // Tool inputs repeat the question's words in the question's order.
        (Plan::Lookup { entity, attr }, 0) | (Plan::Both { entity, attr, .. }, 0) => {
            format!("Action: lookup[{attr} of {entity}]\n")
        }
        (Plan::Calc { expr }, 0) => format!("Action: calc[{expr}]\n"),
        (Plan::Both { op, n, .. }, 1) => format!("Action: calc[{} {op} {n}]\n", ok[0]),
        (_, _) => answer(ok.last().copied().unwrap_or("?")),
    }
}

/// One character of a name changed: the kind of slip a small model makes.
pub fn misspell(name: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = name.chars().collect();
    let i = 1 + rng.below(chars.len().saturating_sub(1).max(1));
    let i = i.min(chars.len() - 1);
    let options: Vec<char> = "aeioulnrst".chars().filter(|c| *c != chars[i]).collect();
    chars[i] = *rng.choose(&options);
    chars.into_iter().collect()
}

/// A solved trajectory, and which agent segments the loss must skip.
pub struct Solved {
    pub session: Session,
    /// Indices of segments that are deliberate mistakes: kept in the context
    /// so the model learns to recover from the error they cause, never trained.
    pub mistakes: Vec<usize>,
}

/// Solve a task in the real loop with the oracle; with probability
/// `slip_rate` the first lookup misspells the place, and the oracle recovers.
pub fn solve(task: &Task, tools: &Tools, slip_rate: f64, rng: &mut Rng) -> Solved {
    let mut s = Session::new(&task.question);
    let mut mistakes = Vec::new();
    if let Plan::Lookup { entity, attr } | Plan::Both { entity, attr, .. } = &task.plan {
        if rng.bool(slip_rate) {
            mistakes.push(s.episode.segments.len());
            s.apply(&format!("Action: lookup[{attr} of {}]\n", misspell(entity, rng)), tools, 6);
        }
    }
    while !s.done {
        let turn = oracle_turn(task, &s.transcript);
        s.apply(&turn, tools, 6);
    }
    Solved { session: s, mistakes }
}

/// The world's places in a random order, split: three quarters to train
/// on, the rest held out (questions about places never seen in training).
pub fn split_places(kb: &FactTable, rng: &mut Rng) -> (Vec<String>, Vec<String>) {
    let mut places: Vec<String> = kb.entities().iter().map(|s| s.to_string()).collect();
    rng.shuffle(&mut places);
    let held_out = places.split_off(places.len() * 3 / 4);
    (places, held_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_question_is_the_task_it_reads_as() {
        let kb = FactTable::world();
        let mut rng = Rng::new(3);
        let places: Vec<String> = kb.entities().iter().map(|s| s.to_string()).collect();
        for _ in 0..200 {
            let t = make_task(&mut rng, &kb, &places);
            let back = task_of(&t.question, &kb).unwrap_or_else(|| panic!("{} does not parse", t.question));
            assert_eq!((back.truth, back.kind), (t.truth, t.kind), "{}", t.question);
        }
        assert!(task_of("what is the meaning of life?", &kb).is_none());
        assert!(task_of("population of Nowhere-at-all?", &kb).is_none());
    }
}
