//! The agent benchmark of `agent-pipeline`: a tool catalogue with schemas
//! (two tools that answer, three distractors that only look as if they
//! might), tasks that need no call, one call, or a plan of two, and the
//! scores of an episode — the five evaluation metrics and the reward's
//! components — computed from what the agent did in the real loop.
//!
//! ```text
//! repeat Vesk                          no call        Final Answer: Vesk
//! flag of Vesk?                        one call       lookup → answer
//! 417 + 38?                            one call       calc → answer
//! population of Vesk is 5665; + 17?    one call       calc[5665 + 17] → answer   (lookup here is a timing error)
//! population of Vesk + 17?             plan of two    lookup → calc[<fact> + 17] → answer
//!                                                     (calc before the fact is known is a timing error)
//! ```
//!
//! A call is *well timed* when the fact it looks up is still unknown (not
//! in the question, not observed yet) or when the calculation it runs has
//! everything it needs and has not been run; timing precision is the share
//! of an episode's `lookup`/`calc` calls that were well timed.

use super::calculator::Calculator;
use super::kb::FactTable;
use super::react::{parse_step, Session, Step, Tools};
use super::Role;
use crate::ml::rng::Rng;

/// One tool of the catalogue: its name, what it takes, what it does, and
/// whether any task of the benchmark needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSpec {
    pub name: &'static str,
    pub argument: &'static str,
    pub description: &'static str,
    pub distractor: bool,
}

/// The catalogue an agent chooses from.
pub const CATALOGUE: [ToolSpec; 5] = [
    ToolSpec {
        name: "lookup",
        argument: "ATTRIBUTE of PLACE",
        description: "one fact of the world table",
        distractor: false,
    },
    ToolSpec { name: "calc", argument: "EXPRESSION", description: "integer arithmetic: + - * ( )", distractor: false },
    ToolSpec {
        name: "search",
        argument: "TEXT",
        description: "free-text search over the table (several loose hits)",
        distractor: true,
    },
    ToolSpec { name: "weather", argument: "PLACE", description: "today's weather at a place", distractor: true },
    ToolSpec { name: "translate", argument: "TEXT", description: "the text in another language", distractor: true },
];

/// What a task needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// No call: the answer is in the question.
    Direct,
    /// One lookup.
    Lookup,
    /// One calculation.
    Calc,
    /// One calculation on a fact the question already gives.
    Given,
    /// A plan of two calls: look the fact up, then compute on it.
    Plan,
}

impl Kind {
    pub const ALL: [Kind; 5] = [Kind::Direct, Kind::Lookup, Kind::Calc, Kind::Given, Kind::Plan];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Direct => "no call",
            Kind::Lookup => "lookup",
            Kind::Calc => "calc",
            Kind::Given => "fact given + calc",
            Kind::Plan => "plan: lookup → calc",
        }
    }

    /// The tools the task's plan calls, in order.
    pub fn needs(self) -> &'static [&'static str] {
        match self {
            Kind::Direct => &[],
            Kind::Lookup => &["lookup"],
            Kind::Calc | Kind::Given => &["calc"],
            Kind::Plan => &["lookup", "calc"],
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BenchTask {
    pub question: String,
    pub truth: String,
    pub kind: Kind,
    /// The lookup's input (`population of Vesk`), where a fact is involved.
    pub fact: Option<String>,
    /// The fact's value, where a fact is involved.
    pub value: Option<i64>,
    /// What the calculation adds after the fact (`+ 17`), or the whole expression for `Calc`.
    pub tail: String,
}

/// One task about a place of `places`.
pub fn make_task(rng: &mut Rng, kb: &FactTable, places: &[String]) -> BenchTask {
    let place = rng.choose(places).clone();
    let numeric = if rng.bool(0.5) { "population" } else { "founded" };
    let value: i64 = kb.get(&place, numeric).and_then(|v| v.parse().ok()).unwrap_or(0);
    let (op, n) = (if rng.bool(0.5) { '+' } else { '-' }, rng.range(10, 99));
    let after = if op == '+' { value + n } else { value - n };
    let fact = format!("{numeric} of {place}");
    match Kind::ALL[rng.below(5)] {
        Kind::Direct => BenchTask {
            question: format!("repeat {place}"),
            truth: place,
            kind: Kind::Direct,
            fact: None,
            value: None,
            tail: String::new(),
        },
        Kind::Lookup => {
            let attr = *rng.choose(&["population", "founded", "capital", "flag"]);
            let fact = format!("{attr} of {place}");
            BenchTask {
                question: format!("{fact}?"),
                truth: kb.get(&place, attr).unwrap_or_default().to_string(),
                kind: Kind::Lookup,
                fact: Some(fact),
                value: None,
                tail: String::new(),
            }
        }
        Kind::Calc => {
            let (a, b) = (rng.range(100, 999), rng.range(10, 99));
            let op = *rng.choose(&['+', '-', '*']);
            let expr = format!("{a} {op} {b}");
            let truth = Calculator.eval(&expr).map(|v| v.to_string()).unwrap_or_default();
            BenchTask { question: format!("{expr}?"), truth, kind: Kind::Calc, fact: None, value: None, tail: expr }
        }
        Kind::Given => BenchTask {
            question: format!("{fact} is {value}; {op} {n}?"),
            truth: after.to_string(),
            kind: Kind::Given,
            fact: Some(fact),
            value: Some(value),
            tail: format!("{op} {n}"),
        },
        Kind::Plan => BenchTask {
            question: format!("{fact} {op} {n}?"),
            truth: after.to_string(),
            kind: Kind::Plan,
            fact: Some(fact),
            value: Some(value),
            tail: format!("{op} {n}"),
        },
    }
}

/// The right answer to a question in any of the benchmark's forms, typed by
/// a learner: the fact-given form takes the value the question states
/// (`population of Vesk is 5665; + 17?` → 5682), the others are the ReAct
/// world's forms.
pub fn truth_of(question: &str, kb: &FactTable) -> Option<String> {
    let q = question.trim();
    if let Some((_fact, rest)) = q.split_once(" is ") {
        let (value, tail) = rest.strip_suffix('?').unwrap_or(rest).split_once(';')?;
        let (op, n) = tail.trim().split_once(' ')?;
        let (value, n): (i64, i64) = (value.trim().parse().ok()?, n.trim().parse().ok()?);
        return match op {
            "+" => Some((value + n).to_string()),
            "-" => Some((value - n).to_string()),
            _ => None,
        };
    }
    super::react_tasks::task_of(q, kb).map(|t| t.truth)
}

/// Route a call to the catalogue: the two tools that answer, and the
/// distractors (which answer too, uselessly). An unknown name is an error.
pub fn call(tools: &Tools, tool: &str, input: &str) -> Result<String, String> {
    match tool {
        "lookup" | "calc" | "search" => tools.call(tool, input),
        "weather" => Ok(format!("{input}: mild, light wind")),
        "translate" => Ok(input.to_string()),
        other => Err(format!("unknown tool '{other}'")),
    }
}

/// The demonstrator's next line, given the transcript so far. With `early`
/// set on a task whose fact the question gives, it looks the fact up anyway
/// first (the timing error the demonstrations carry).
pub fn oracle_turn(task: &BenchTask, transcript: &str, early: bool) -> String {
    let ok: Vec<&str> = transcript
        .lines()
        .filter_map(|l| l.strip_prefix("Observation: "))
        .filter(|o| !o.starts_with("error"))
        .collect();
    let answer = |v: &str| format!("Final Answer: {v}\n");
    let fact = task.fact.clone().unwrap_or_default();
    match (task.kind, ok.len(), early) {
        (Kind::Direct, _, _) => answer(&task.truth),
        (Kind::Lookup, 0, _) | (Kind::Plan, 0, _) | (Kind::Given, 0, true) => format!("Action: lookup[{fact}]\n"),
        (Kind::Calc, 0, _) => format!("Action: calc[{}]\n", task.tail),
        (Kind::Given, 0, false) => format!("Action: calc[{} {}]\n", task.value.unwrap_or(0), task.tail),
        (Kind::Plan, 1, _) | (Kind::Given, 1, true) => format!("Action: calc[{} {}]\n", ok[0], task.tail),
        _ => answer(ok.last().copied().unwrap_or("?")),
    }
}

/// A demonstration in the real loop: the oracle's trajectory, with the fact
/// of a `Given` task looked up first with probability `timing_errors`.
pub fn demonstrate(task: &BenchTask, tools: &Tools, timing_errors: f64, rng: &mut Rng) -> Session {
    let early = task.kind == Kind::Given && rng.bool(timing_errors);
    let mut s = Session::new(&task.question);
    while !s.done {
        let turn = oracle_turn(task, &s.transcript, early);
        s.apply_with(&turn, 6, &mut |t: &str, i: &str| call(tools, t, i));
    }
    s
}

/// One call of an episode: its tool, whether the tool answered, and whether
/// what it answered is what the task's plan needs from that tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub tool: String,
    pub ok: bool,
    /// The tool is one the plan calls and it returned the plan's value: the
    /// fact for a lookup, the answer for a calculation. A `calc[296 + 19]` on
    /// "population of X is 5967; + 19?" answers, but with a made-up input.
    pub useful: bool,
}

/// What the plan's call of `tool` returns on `task`, where the plan calls it.
pub fn expected(task: &BenchTask, tool: &str) -> Option<String> {
    if !task.kind.needs().contains(&tool) {
        return None;
    }
    match tool {
        "lookup" if task.kind == Kind::Lookup => Some(task.truth.clone()),
        "lookup" => task.value.map(|v| v.to_string()),
        _ => Some(task.truth.clone()),
    }
}

/// The calls an episode made, in order, read from its segments.
pub fn calls(task: &BenchTask, session: &Session) -> Vec<Call> {
    let segs = &session.episode.segments;
    let mut out = Vec::new();
    for (k, (role, text)) in segs.iter().enumerate() {
        if *role != Role::Agent {
            continue;
        }
        if let Step::Action { tool, .. } = parse_step(text) {
            let seen = segs.get(k + 1).filter(|(r, _)| *r == Role::Env).map(|(_, o)| o.as_str()).unwrap_or("");
            let value = seen.strip_prefix("Observation: ").map(str::trim);
            let ok = value.is_some_and(|v| !v.starts_with("error"));
            let useful = ok && value.map(str::to_string) == expected(task, &tool);
            out.push(Call { tool, ok, useful });
        }
    }
    out
}

/// What one episode scores: the metrics' per-episode values (`None` where
/// the episode does not count for a metric) and the reward's components.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scores {
    /// Share of the calls that name a tool the task's plan uses (no call at
    /// all where the task needs one: 0; a no-call task: 1 without a call).
    pub tool_selection: f64,
    /// Plan tasks only: right, with exactly the plan's calls answered in order.
    pub plan_success: Option<f64>,
    /// Right answers only: the plan's turns over the turns taken (at most 1).
    pub step_efficiency: Option<f64>,
    /// Episodes with a `lookup` or `calc` call: the share of them well timed.
    pub timing_precision: Option<f64>,
    pub success: f64,
    /// Share of turns that were an action or an answer the loop could run.
    pub format: f64,
    /// Share of the calls that were useful (see [`Call::useful`]), scored
    /// like `tool_selection` where no call is made.
    pub tool_useful: f64,
    /// Like `timing_precision`, but a call counts as well timed only if it
    /// was also useful.
    pub timing_useful: Option<f64>,
}

impl Scores {
    /// The timing component of the reward: timing precision where the
    /// episode called, and where it did not, 1 if no call was needed, 0 if
    /// one was (answering without the fact is calling too late).
    pub fn timing_reward(&self, kind: Kind, credit: Credit) -> f64 {
        let timing = match credit {
            Credit::Named => self.timing_precision,
            Credit::Checked => self.timing_useful,
        };
        timing.unwrap_or(if kind.needs().is_empty() { 1.0 } else { 0.0 })
    }

    /// The tool component of the reward.
    pub fn tool_reward(&self, credit: Credit) -> f64 {
        match credit {
            Credit::Named => self.tool_selection,
            Credit::Checked => self.tool_useful,
        }
    }

    /// Step efficiency as a reward: 0 for a wrong answer.
    pub fn steps_reward(&self) -> f64 {
        self.step_efficiency.unwrap_or(0.0)
    }
}

/// How the reward's process components (tool, timing) credit a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Credit {
    /// Only a call that returned what the plan needs ([`Call::useful`]).
    Checked,
    /// Any call that names a tool the plan uses, whatever its input.
    Named,
}

pub fn score(task: &BenchTask, session: &Session) -> Scores {
    let cs = calls(task, session);
    let needs = task.kind.needs();
    let right = session.episode.answer.as_deref() == Some(task.truth.as_str());
    let tool_selection = match (needs.is_empty(), cs.is_empty()) {
        (true, true) => 1.0,
        (true, false) | (false, true) => 0.0,
        (false, false) => cs.iter().filter(|c| needs.contains(&c.tool.as_str())).count() as f64 / cs.len() as f64,
    };
    let answered: Vec<&str> = cs.iter().filter(|c| c.ok).map(|c| c.tool.as_str()).collect();
    let plan_success = (task.kind == Kind::Plan).then(|| f64::from(u8::from(right && answered == needs)));
    let steps = session.episode.steps.max(1);
    let step_efficiency = right.then(|| ((needs.len() + 1) as f64 / steps as f64).min(1.0));
    // Timing: what the agent knew when it called.
    let (mut known, mut computed) = (task.kind == Kind::Given, false);
    let (mut timed, mut well, mut well_useful) = (0usize, 0usize, 0usize);
    for c in &cs {
        let good = match c.tool.as_str() {
            "lookup" => matches!(task.kind, Kind::Lookup | Kind::Plan) && !known,
            "calc" => {
                matches!(task.kind, Kind::Calc | Kind::Given | Kind::Plan)
                    && !computed
                    && (task.kind != Kind::Plan || known)
            }
            _ => continue,
        };
        timed += 1;
        well += usize::from(good);
        well_useful += usize::from(good && c.useful);
        if c.ok {
            match c.tool.as_str() {
                "lookup" => known = true,
                _ => computed = true,
            }
        }
    }
    let timing_precision = (timed > 0).then(|| well as f64 / timed as f64);
    let timing_useful = (timed > 0).then(|| well_useful as f64 / timed as f64);
    let tool_useful = match (needs.is_empty(), cs.is_empty()) {
        (true, true) => 1.0,
        (true, false) | (false, true) => 0.0,
        (false, false) => cs.iter().filter(|c| c.useful).count() as f64 / cs.len() as f64,
    };
    let runnable = session
        .episode
        .segments
        .iter()
        .filter(|(r, t)| *r == Role::Agent && matches!(parse_step(t), Step::Action { .. } | Step::Final(_)))
        .count();
    let format = runnable as f64 / steps as f64;
    Scores {
        tool_selection,
        plan_success,
        step_efficiency,
        timing_precision,
        success: f64::from(u8::from(right)),
        format,
        tool_useful,
        timing_useful,
    }
}

/// Mean, standard deviation (population) and count of the values that count.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stat {
    pub mean: f64,
    pub std: f64,
    pub count: usize,
}

impl Stat {
    pub fn of(values: impl IntoIterator<Item = f64>) -> Stat {
        let v: Vec<f64> = values.into_iter().collect();
        if v.is_empty() {
            return Stat::default();
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        Stat { mean, std: var.sqrt(), count: v.len() }
    }
}

/// The five metrics of a set of episodes, in the order [`METRICS`] names them.
pub fn metrics(scores: &[Scores]) -> [Stat; 5] {
    [
        Stat::of(scores.iter().map(|s| s.tool_selection)),
        Stat::of(scores.iter().filter_map(|s| s.plan_success)),
        Stat::of(scores.iter().filter_map(|s| s.step_efficiency)),
        Stat::of(scores.iter().filter_map(|s| s.timing_precision)),
        Stat::of(scores.iter().map(|s| s.success)),
    ]
}

/// The five metrics' names (also their metric streams).
pub const METRICS: [&str; 5] =
    ["tool_selection", "plan_success", "step_efficiency", "timing_precision", "end_to_end_success"];

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> (Tools, Vec<String>) {
        let kb = FactTable::world();
        let places = kb.entities().iter().map(|s| s.to_string()).collect();
        (Tools::new(kb), places)
    }

    #[test]
    fn demonstrations_answer_right_and_score_full_marks_without_timing_errors() {
        let (tools, places) = world();
        let mut rng = Rng::new(5);
        for _ in 0..200 {
            let t = make_task(&mut rng, &tools.kb, &places);
            let s = demonstrate(&t, &tools, 0.0, &mut rng);
            let sc = score(&t, &s);
            assert_eq!(sc.success, 1.0, "{:?}", s.episode);
            assert_eq!((sc.tool_selection, sc.format, sc.step_efficiency), (1.0, 1.0, Some(1.0)), "{t:?}");
            assert_eq!((sc.tool_useful, sc.timing_useful), (1.0, sc.timing_precision), "{t:?}");
            assert!(sc.timing_precision.is_none_or(|p| p == 1.0), "{t:?}");
            assert!(sc.plan_success.is_none_or(|p| p == 1.0), "{t:?}");
        }
    }

    #[test]
    fn a_needless_lookup_and_an_early_calc_are_timing_errors() {
        let (tools, places) = world();
        let mut rng = Rng::new(9);
        let given =
            std::iter::repeat_with(|| make_task(&mut rng, &tools.kb, &places)).find(|t| t.kind == Kind::Given).unwrap();
        let s = demonstrate(&given, &tools, 1.0, &mut Rng::new(1));
        let sc = score(&given, &s);
        assert_eq!(sc.success, 1.0, "a needless lookup still answers right");
        assert_eq!((sc.timing_precision, sc.tool_selection), (Some(0.5), 0.5));
        assert_eq!(sc.step_efficiency, Some(2.0 / 3.0));
        let plan =
            std::iter::repeat_with(|| make_task(&mut rng, &tools.kb, &places)).find(|t| t.kind == Kind::Plan).unwrap();
        let mut s = Session::new(&plan.question);
        let c = |t: &str, i: &str| call(&tools, t, i);
        s.apply_with(&format!("Action: calc[{} {}]\n", plan.fact.clone().unwrap(), plan.tail), 6, &mut c.clone());
        s.apply_with(&format!("Action: weather[{}]\n", plan.fact.clone().unwrap()), 6, &mut c.clone());
        let sc = score(&plan, &s);
        assert_eq!(sc.timing_precision, Some(0.0), "a calc before the fact is known");
        assert_eq!(sc.tool_selection, 0.5, "weather is a distractor");
        assert_eq!((sc.plan_success, sc.step_efficiency), (Some(0.0), None));
    }

    #[test]
    fn a_call_on_a_made_up_input_is_credited_only_when_named() {
        let (tools, places) = world();
        let mut rng = Rng::new(3);
        let given =
            std::iter::repeat_with(|| make_task(&mut rng, &tools.kb, &places)).find(|t| t.kind == Kind::Given).unwrap();
        let mut s = Session::new(&given.question);
        let made_up = given.value.unwrap() + 1000;
        s.apply_with(&format!("Action: calc[{made_up} {}]\n", given.tail), 6, &mut |t: &str, i: &str| {
            call(&tools, t, i)
        });
        let sc = score(&given, &s);
        assert_eq!((sc.tool_selection, sc.timing_precision), (1.0, Some(1.0)), "the right tool, at the right time");
        assert_eq!((sc.tool_useful, sc.timing_useful), (0.0, Some(0.0)), "but not the plan's input");
        assert_eq!((sc.tool_reward(Credit::Named), sc.tool_reward(Credit::Checked)), (1.0, 0.0));
        assert_eq!(
            (sc.timing_reward(given.kind, Credit::Named), sc.timing_reward(given.kind, Credit::Checked)),
            (1.0, 0.0)
        );
    }

    #[test]
    fn every_benchmark_question_can_be_checked_as_a_learner_types_it() {
        let (tools, places) = world();
        let mut rng = Rng::new(11);
        for _ in 0..300 {
            let t = make_task(&mut rng, &tools.kb, &places);
            assert_eq!(truth_of(&t.question, &tools.kb), Some(t.truth.clone()), "{t:?}");
        }
        assert_eq!(truth_of("population of Vesk is 100; + 17?", &tools.kb).as_deref(), Some("117"));
        assert_eq!(truth_of("hello there", &tools.kb), None);
    }

    #[test]
    fn stats_are_mean_population_std_and_count() {
        let s = Stat::of([1.0, 0.0, 1.0, 0.0]);
        assert_eq!((s.mean, s.std, s.count), (0.5, 0.5, 4));
        assert_eq!(Stat::of([]).count, 0);
    }
}
