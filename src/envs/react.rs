//! The ReAct loop (Yao et al., arXiv:2210.03629), from scratch:
//! **parse → route → observe → loop**.
//!
//! ```text
//! Question: population of Zondnaus + 17?                     ← prompt   (masked)
//! Action: lookup[population of Zondnaus]                     ← agent    (trained)
//! Observation: 5665                                          ← env      (masked)
//! Action: calc[5665 + 17]                                    ← agent
//! Observation: 5682                                          ← env
//! Final Answer: 5682                                         ← agent
//! ```
//!
//! The observation is written by the *environment*, never by the model: the
//! loop cuts the agent's turn after its action, runs the tool and appends the
//! result. An unknown tool, a malformed step or a tool error becomes an error
//! observation the agent can react to — never a crash. `Thought:` lines are
//! allowed and ignored by the router; both `Action: tool[input]` and the
//! two-line `Action: tool` / `Action Input: input` forms parse.

use super::calculator::Calculator;
use super::kb::FactTable;
use super::{Role, Segments};

/// What a completion asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Action {
        tool: String,
        input: String,
    },
    Final(String),
    /// No complete action or answer yet (the model may still be writing).
    Incomplete,
    /// Not a step the loop can execute; the message goes back as an observation.
    Invalid(String),
}

/// Parse one agent turn. A `Final Answer:` anywhere wins over a stray action.
pub fn parse_step(completion: &str) -> Step {
    let lines: Vec<&str> = completion.lines().map(str::trim).collect();
    if let Some(l) = lines.iter().find(|l| l.starts_with("Final Answer:")) {
        let answer = l["Final Answer:".len()..].trim();
        return if answer.is_empty() {
            Step::Invalid("empty Final Answer".into())
        } else {
            Step::Final(answer.to_string())
        };
    }
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("Observation:") {
            return Step::Invalid("observations come from tools: write an Action and wait".into());
        }
        let Some(rest) = line.strip_prefix("Action:") else { continue };
        let rest = rest.trim();
        if let Some(open) = rest.find('[') {
            let tool = rest[..open].trim();
            return match rest[open + 1..].rfind(']') {
                Some(close) if !tool.is_empty() => {
                    Step::Action { tool: tool.to_string(), input: rest[open + 1..open + 1 + close].trim().to_string() }
                }
                Some(_) => Step::Invalid("Action needs a tool name before '['".into()),
                None => Step::Incomplete,
            };
        }
        return match lines.get(i + 1).and_then(|l| l.strip_prefix("Action Input:")) {
            Some(input) if !rest.is_empty() => Step::Action { tool: rest.to_string(), input: input.trim().to_string() },
            Some(_) => Step::Invalid("Action needs a tool name".into()),
            None => Step::Incomplete,
        };
    }
    Step::Incomplete
}

/// Byte length of the prefix of `completion` up to and including the line that
/// completed the step (the rest of the turn is dropped). For a final answer
/// that is the `Final Answer:` line; for an action, the action's last line.
pub fn step_end(completion: &str) -> usize {
    if let Step::Final(_) = parse_step(completion) {
        let mut end = 0;
        for line in completion.split_inclusive('\n') {
            end += line.len();
            if line.trim_start().starts_with("Final Answer:") {
                return end;
            }
        }
    }
    let mut end = 0;
    for line in completion.split_inclusive('\n') {
        end += line.len();
        if parse_step(&completion[..end]) != Step::Incomplete {
            return end;
        }
    }
    completion.len()
}

/// The tools an agent can call.
#[derive(Debug, Clone)]
pub struct Tools {
    pub calculator: Calculator,
    pub kb: FactTable,
}

impl Tools {
    pub fn new(kb: FactTable) -> Tools {
        Tools { calculator: Calculator, kb }
    }

    pub const NAMES: [&'static str; 3] = ["calc", "lookup", "search"];

    /// Route a call to its tool. `Err` is shown to the agent as `Observation: error: …`.
    pub fn call(&self, tool: &str, input: &str) -> Result<String, String> {
        match tool {
            "calc" => self.calculator.eval(input).map(|v| v.to_string()),
            "lookup" => self.kb.lookup(input),
            "search" => {
                let hits = self.kb.search(input, 3);
                if hits.is_empty() {
                    Err(format!("nothing found for \"{input}\""))
                } else {
                    Ok(hits
                        .iter()
                        .map(|f| format!("{} {} {}", f.entity, f.attribute, f.value))
                        .collect::<Vec<_>>()
                        .join("; "))
                }
            }
            other => Err(format!("unknown tool '{other}' (tools: {})", Tools::NAMES.join(", "))),
        }
    }
}

/// One run of the loop.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Episode {
    pub segments: Segments,
    pub answer: Option<String>,
    /// Agent turns taken.
    pub steps: usize,
    pub tool_calls: usize,
    /// Calls that were well formed and named a real tool.
    pub valid_calls: usize,
    /// Turns that were not an action or an answer.
    pub invalid_steps: usize,
    /// Turns in which the agent wrote an `Observation:` line itself.
    pub hallucinated_observations: usize,
}

pub fn prompt(question: &str) -> String {
    format!("Question: {question}\n")
}

/// One episode in progress: the loop's state between agent turns. Drills that
/// run many episodes at once (one batched generation per turn) drive several
/// sessions; [`run_episode`] drives one.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub episode: Episode,
    /// Everything so far: the text the policy continues.
    pub transcript: String,
    pub done: bool,
}

impl Session {
    pub fn new(question: &str) -> Session {
        Session {
            episode: Episode { segments: vec![(Role::Prompt, prompt(question))], ..Default::default() },
            transcript: prompt(question),
            done: false,
        }
    }

    /// Apply the agent's turn: parse it, keep the part that is the step,
    /// run the tool and append the environment's observation.
    pub fn apply(&mut self, turn: &str, tools: &Tools, max_steps: usize) {
        self.apply_with(turn, max_steps, &mut |tool: &str, input: &str| tools.call(tool, input))
    }

    /// [`apply`](Session::apply) with the tool call made by `call(tool, input)`:
    /// a harness between the agent and its tools (a guard that refuses some
    /// calls, an attacker who controls what a tool returns, a marker that
    /// spotlights untrusted text). Unknown tools still count as invalid calls.
    pub fn apply_with(
        &mut self,
        turn: &str,
        max_steps: usize,
        call: &mut dyn FnMut(&str, &str) -> Result<String, String>,
    ) {
        if self.done {
            return;
        }
        let ep = &mut self.episode;
        ep.steps += 1;
        if turn.lines().any(|l| l.trim_start().starts_with("Observation:")) {
            ep.hallucinated_observations += 1;
        }
        let step = parse_step(turn);
        // Keep only what the step needs: text after the action is not the agent's to write.
        let mut kept = turn[..step_end(turn)].to_string();
        if !kept.ends_with('\n') {
            kept.push('\n');
        }
        self.transcript.push_str(&kept);
        ep.segments.push((Role::Agent, kept));
        let observation = match step {
            Step::Final(a) => {
                ep.answer = Some(a);
                self.done = true;
                return;
            }
            Step::Action { tool, input } => {
                ep.tool_calls += 1;
                if Tools::NAMES.contains(&tool.as_str()) {
                    ep.valid_calls += 1;
                }
                match call(&tool, &input) {
                    Ok(v) => format!("Observation: {v}\n"),
                    Err(e) => format!("Observation: error: {e}\n"),
                }
            }
            Step::Invalid(msg) => {
                ep.invalid_steps += 1;
                format!("Observation: error: {msg}\n")
            }
            Step::Incomplete => {
                ep.invalid_steps += 1;
                "Observation: error: write Action: tool[input] or Final Answer: answer\n".to_string()
            }
        };
        self.transcript.push_str(&observation);
        ep.segments.push((Role::Env, observation));
        if ep.steps >= max_steps {
            self.done = true;
        }
    }
}

/// Run the loop: `policy(transcript)` returns the agent's next turn.
pub fn run_episode<E>(
    policy: &mut dyn FnMut(&str) -> Result<String, E>,
    question: &str,
    tools: &Tools,
    max_steps: usize,
) -> Result<Episode, E> {
    let mut s = Session::new(question);
    while !s.done {
        let turn = policy(&s.transcript)?;
        s.apply(&turn, tools, max_steps);
    }
    Ok(s.episode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_action_forms_and_final_answer() {
        assert_eq!(parse_step("Action: calc[2+2]\n"), Step::Action { tool: "calc".into(), input: "2+2".into() });
        assert_eq!(
            parse_step("Thought: need a fact\nAction: lookup\nAction Input: Zondnaus population\n"),
            Step::Action { tool: "lookup".into(), input: "Zondnaus population".into() }
        );
        assert_eq!(parse_step("Final Answer: 42\n"), Step::Final("42".into()));
        assert_eq!(parse_step("Action: calc[1+1]\nFinal Answer: 2"), Step::Final("2".into()), "final wins");
        assert_eq!(parse_step("Thought: hmm\n"), Step::Incomplete);
        assert_eq!(parse_step("Action: lookup\n"), Step::Incomplete);
        assert!(matches!(parse_step("Observation: 12\n"), Step::Invalid(_)));
        assert!(matches!(parse_step("Action: [x]\n"), Step::Invalid(_)));
    }

    #[test]
    fn step_end_cuts_after_the_action() {
        let t = "Action: calc[1+2]\nObservation: 3\nFinal Answer: 3\n";
        assert_eq!(
            &t[..step_end(t)],
            "Action: calc[1+2]\nObservation: 3\nFinal Answer: 3\n",
            "final answer wins over the action"
        );
        let t = "Thought: x\nAction: calc[1+2]\nObservation: 99\n";
        assert_eq!(&t[..step_end(t)], "Thought: x\nAction: calc[1+2]\n");
    }

    #[test]
    fn loop_routes_observes_and_recovers_from_errors() {
        let tools = Tools::new(FactTable::world());
        let e = tools.kb.entities()[0].to_string();
        let pop: i64 = tools.kb.get(&e, "population").unwrap().parse().unwrap();
        let turns = [
            "Action: weather[today]\n".to_string(),
            "Action: lookup[".to_string() + e.as_str() + " population]\nObservation: 1\n",
            format!("Action: calc[{pop}+17]\n"),
            "gibberish\n".to_string(),
            format!("Final Answer: {}\n", pop + 17),
        ];
        let mut i = 0;
        let mut policy = |_: &str| -> Result<String, ()> {
            i += 1;
            Ok(turns[i - 1].clone())
        };
        let ep = run_episode(&mut policy, &format!("population of {e} plus 17?"), &tools, 8).unwrap();
        assert_eq!(ep.answer, Some((pop + 17).to_string()));
        assert_eq!(ep.steps, 5);
        assert_eq!((ep.tool_calls, ep.valid_calls), (3, 2));
        assert_eq!(ep.invalid_steps, 1);
        assert_eq!(ep.hallucinated_observations, 1);
        let text = super::super::joined(&ep.segments);
        assert!(text.contains("Observation: error: unknown tool 'weather'"));
        assert!(text.contains(&format!("Observation: {pop}\n")), "the environment's value, not the model's 1: {text}");
        assert!(!text.contains("Observation: 1\n"));
        // Observations are Env segments, actions Agent segments.
        for (role, s) in &ep.segments {
            assert_eq!(*role == Role::Env, s.starts_with("Observation:"), "{s}");
        }
    }

    #[test]
    fn max_steps_ends_the_episode_without_an_answer() {
        let tools = Tools::new(FactTable::world());
        let mut policy = |_: &str| -> Result<String, ()> { Ok("Action: calc[1+1]\n".into()) };
        let ep = run_episode(&mut policy, "loop forever", &tools, 3).unwrap();
        assert_eq!(ep.answer, None);
        assert_eq!(ep.steps, 3);
    }
}
