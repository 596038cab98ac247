//! Exercise metadata: `exercises/<id>.toml`.
//!
//! An exercise asks the learner to write one function in Rhai (see
//! [`crate::exercises`]); the lab checks it against its own Rust
//! implementation and, for a `plug` exercise, a drill can train with it.
//!
//! ```toml
//! id = "discounted-returns"
//! title = "Discounted returns"
//! track = 3
//! order = 1                        # position in the track's list
//! function = "discounted_returns"  # the Rhai function that is checked
//! sheet = "sheet:3#returns-and-credit-assignment"
//! drill = "turn-credit-assignment" # optional: the drill that uses it
//! plug = true                      # optional: the drill can train with it
//! quiz = ["arl-l1-lambda-zero"]    # quiz items on the same idea
//! task = """Markdown: what to write"""
//! stub = """fn discounted_returns(rewards, gamma) { … }"""
//! hints = ["a nudge", "the structure", "nearly the code"]
//! solution = """a correct script"""
//!
//! [[mistake]]                      # realistic bugs; each must fail the check
//! name = "iterates forwards"
//! script = """…"""
//! effect = "what goes wrong"
//! ```

use serde::Deserialize;

/// A realistic wrong version of the function, kept to show what it does.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mistake {
    pub name: String,
    pub script: String,
    pub effect: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExerciseMeta {
    pub id: String,
    pub title: String,
    pub track: u8,
    pub order: u32,
    pub function: String,
    /// A `sheet:N#section` link.
    pub sheet: String,
    #[serde(default)]
    pub drill: Option<String>,
    #[serde(default)]
    pub plug: bool,
    #[serde(default)]
    pub quiz: Vec<String>,
    pub task: String,
    pub stub: String,
    pub hints: Vec<String>,
    pub solution: String,
    #[serde(default, rename = "mistake")]
    pub mistakes: Vec<Mistake>,
}

impl ExerciseMeta {
    /// Checks within one file (links are checked across files by `Content`).
    pub fn check(&self) -> Vec<String> {
        let mut out = Vec::new();
        let ident = |s: &str| {
            !s.is_empty()
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !s.starts_with(|c: char| c.is_ascii_digit())
        };
        if !ident(&self.function) {
            out.push(format!("function \"{}\" is not a Rhai identifier", self.function));
        }
        if !self.stub.contains(&format!("fn {}(", self.function)) {
            out.push(format!("the stub does not define fn {}(…)", self.function));
        }
        if !self.solution.contains(&format!("fn {}(", self.function)) {
            out.push(format!("the solution does not define fn {}(…)", self.function));
        }
        if self.hints.is_empty() {
            out.push("an exercise needs at least one hint".into());
        }
        if self.quiz.is_empty() {
            out.push("an exercise links at least one quiz item (quiz = [\"id\"])".into());
        }
        if self.plug && self.drill.is_none() {
            out.push("plug = true needs the drill that trains with it (drill = \"…\")".into());
        }
        if self.task.trim().is_empty() {
            out.push("the task is empty".into());
        }
        out
    }
}
