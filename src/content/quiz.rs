//! Quiz items: one TOML file per track, `quizzes/NN-slug.toml`. Three levels
//! (L1 concept, L2 implementation, L3 research) and four kinds (choice,
//! numeric, order, open); numeric answers can be recomputed by the lab's code.
//!
//! ```toml
//! track = 3
//!
//! [[item]]
//! id = "arl-l1-grpo-baseline"      # stable: progress is keyed on it
//! level = "L1"                     # L1 concept · L2 implementation · L3 research
//! kind = "choice"                  # choice | numeric | order | open
//! prompt = "What does GRPO use instead of a learned critic?"
//! choices = ["A value head", "The group's mean reward", "The KL penalty"]
//! correct = [1]                    # 0-based; several entries = "select all that apply"
//! explanation = "…"
//! sheet = "3#group-relative-advantages"   # optional link target
//! drill = "turn-credit-assignment"        # optional
//! ```
//!
//! `numeric` items carry `value` and `tolerance` (and, where the code can
//! compute the answer, a `[item.check]` table naming the function, and
//! optionally an `[item.template]` whose inputs are drawn afresh when the
//! item comes back, see `content::template`); `order` items carry `steps` in
//! the correct order; `open` items carry `reference`.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Level {
    L1,
    L2,
    L3,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::L1, Level::L2, Level::L3];

    pub fn parse(s: &str) -> Option<Level> {
        match s.trim().to_ascii_uppercase().as_str() {
            "L1" | "1" => Some(Level::L1),
            "L2" | "2" => Some(Level::L2),
            "L3" | "3" => Some(Level::L3),
            _ => None,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Level::L1 => "concept",
            Level::L2 => "implementation",
            Level::L3 => "research",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Level::L1 => "L1",
            Level::L2 => "L2",
            Level::L3 => "L3",
        };
        f.write_str(s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Choice,
    Numeric,
    Order,
    Open,
}

/// What a correct answer is, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Indices into `choices` that are correct (one or several).
    Choice {
        choices: Vec<String>,
        correct: Vec<usize>,
    },
    Numeric {
        value: f64,
        tolerance: f64,
    },
    /// Steps in the correct order; the quiz shows them shuffled.
    Order {
        steps: Vec<String>,
    },
    Open {
        reference: String,
    },
}

impl Answer {
    pub fn kind(&self) -> Kind {
        match self {
            Answer::Choice { .. } => Kind::Choice,
            Answer::Numeric { .. } => Kind::Numeric,
            Answer::Order { .. } => Kind::Order,
            Answer::Open { .. } => Kind::Open,
        }
    }

    /// Auto-graded kinds grade themselves; `open` is rated by the learner only.
    pub fn auto_graded(&self) -> bool {
        !matches!(self, Answer::Open { .. })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct QuizItem {
    pub id: String,
    pub track: u8,
    pub level: Level,
    pub prompt: String,
    pub answer: Answer,
    pub explanation: String,
    pub sheet: Option<String>,
    pub drill: Option<String>,
    /// For numeric items: how the code recomputes the answer (see `content::recompute`).
    pub check: Option<toml::Table>,
    /// For checked numeric items: input ranges drawn afresh when the item comes back (see `content::template`).
    pub template: Option<super::template::Template>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawQuizFile {
    pub track: u8,
    #[serde(default, rename = "item")]
    pub items: Vec<RawItem>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawItem {
    pub id: String,
    pub level: String,
    pub kind: Kind,
    pub prompt: String,
    pub explanation: String,
    pub sheet: Option<String>,
    pub drill: Option<String>,
    pub choices: Option<Vec<String>>,
    pub correct: Option<Vec<usize>>,
    pub value: Option<f64>,
    pub tolerance: Option<f64>,
    pub steps: Option<Vec<String>>,
    pub reference: Option<String>,
    pub check: Option<toml::Table>,
    pub template: Option<super::template::Template>,
}

impl RawItem {
    /// Turn the flat TOML shape into a typed item, or say what is wrong with it.
    pub(crate) fn into_item(self, track: u8) -> Result<QuizItem, String> {
        let level = Level::parse(&self.level).ok_or_else(|| format!("level \"{}\" is not L1, L2 or L3", self.level))?;
        if self.prompt.trim().is_empty() {
            return Err("empty prompt".into());
        }
        if self.explanation.trim().is_empty() {
            return Err("empty explanation".into());
        }
        let unexpected = |field: &str, present: bool| -> Result<(), String> {
            if present {
                Err(format!("field `{field}` does not belong to a {:?} item", self.kind))
            } else {
                Ok(())
            }
        };
        let answer = match self.kind {
            Kind::Choice => {
                let choices = self.choices.clone().ok_or("choice item without `choices`")?;
                let correct = self.correct.clone().ok_or("choice item without `correct`")?;
                if choices.len() < 2 {
                    return Err("a choice item needs at least two choices".into());
                }
                if choices.len() > 9 {
                    return Err("a choice item has at most nine choices (keys 1–9)".into());
                }
                if correct.is_empty() {
                    return Err("`correct` is empty".into());
                }
                if let Some(bad) = correct.iter().find(|&&c| c >= choices.len()) {
                    return Err(format!("`correct` index {bad} is out of range (0..{})", choices.len()));
                }
                let mut sorted = correct.clone();
                sorted.sort_unstable();
                sorted.dedup();
                if sorted.len() != correct.len() {
                    return Err("`correct` lists an index twice".into());
                }
                unexpected("value", self.value.is_some())?;
                unexpected("steps", self.steps.is_some())?;
                Answer::Choice { choices, correct: sorted }
            }
            Kind::Numeric => {
                let value = self.value.ok_or("numeric item without `value`")?;
                let tolerance = self.tolerance.ok_or("numeric answer without `tolerance`")?;
                if !value.is_finite() || !tolerance.is_finite() || tolerance < 0.0 {
                    return Err("numeric `value`/`tolerance` must be finite, tolerance ≥ 0".into());
                }
                if let Some(n) = decimals_asked(&self.prompt) {
                    let scale = 10f64.powi(n as i32);
                    if ((value * scale).round() / scale - value).abs() > 1e-9 {
                        return Err(format!(
                            "the prompt asks for {n} decimals but `value` = {value} has more: store the answer as asked"
                        ));
                    }
                }
                unexpected("choices", self.choices.is_some())?;
                unexpected("steps", self.steps.is_some())?;
                Answer::Numeric { value, tolerance }
            }
            Kind::Order => {
                let steps = self.steps.clone().ok_or("order item without `steps`")?;
                if steps.len() < 3 || steps.len() > 9 {
                    return Err("an order item needs 3 to 9 steps".into());
                }
                unexpected("choices", self.choices.is_some())?;
                Answer::Order { steps }
            }
            Kind::Open => {
                let reference = self.reference.clone().ok_or("open item without `reference`")?;
                if reference.trim().is_empty() {
                    return Err("empty `reference`".into());
                }
                unexpected("choices", self.choices.is_some())?;
                Answer::Open { reference }
            }
        };
        if self.check.is_some() && self.kind != Kind::Numeric {
            return Err("only numeric items take a `check`".into());
        }
        let mut template = self.template;
        if let Some(t) = &mut template {
            super::template::check_shape(t, self.check.as_ref())?;
            t.decimals = decimals_asked(&t.prompt).or_else(|| decimals_asked(&self.prompt));
        }
        Ok(QuizItem {
            id: self.id,
            track,
            level,
            prompt: self.prompt,
            answer,
            explanation: self.explanation,
            sheet: self.sheet,
            drill: self.drill,
            check: self.check,
            template,
        })
    }
}

/// All items of one track.
#[derive(Debug, Clone)]
pub struct QuizSet {
    pub track: u8,
    pub file: String,
    pub items: Vec<QuizItem>,
}

impl QuizSet {
    pub fn count(&self, level: Level) -> usize {
        self.items.iter().filter(|i| i.level == level).count()
    }
}

/// "Give 3 decimals" in a prompt → 3 (digits or the words one to six).
fn decimals_asked(prompt: &str) -> Option<u32> {
    let words: Vec<&str> = prompt.split_whitespace().collect();
    words.windows(2).find_map(|w| {
        if !w[1].to_lowercase().starts_with("decimal") {
            return None;
        }
        let t = w[0].to_lowercase();
        t.parse::<u32>().ok().or_else(|| {
            ["one", "two", "three", "four", "five", "six"].iter().position(|x| *x == t).map(|i| i as u32 + 1)
        })
    })
}

impl QuizItem {
    /// This item at its `showing`-th showing: showing 0 (the first time it
    /// is asked) keeps the authored numbers; a templated numeric item shows
    /// fresh inputs after that, its answer recomputed
    /// ([`super::template::drawn`]); any other item as it is.
    pub fn instance(&self, showing: u64) -> QuizItem {
        let (Some(t), Some(check), Answer::Numeric { tolerance, .. }) = (&self.template, &self.check, &self.answer)
        else {
            return self.clone();
        };
        if showing == 0 {
            return self.clone();
        }
        let Some(d) = super::template::drawn(t, check, &self.id, showing) else { return self.clone() };
        let mut shown = self.clone();
        shown.prompt = d.prompt;
        if let Some(e) = d.explanation {
            shown.explanation = e;
        }
        shown.answer = Answer::Numeric { value: d.value, tolerance: *tolerance };
        shown.check = Some(d.args);
        shown
    }

    /// What `validate` says about the item's template (none without one).
    pub fn template_problems(&self) -> Vec<String> {
        match (&self.template, &self.check, &self.answer) {
            (Some(t), Some(check), Answer::Numeric { .. }) => super::template::problems(t, check, &self.id),
            (Some(_), _, _) => vec!["a template needs a numeric item with an [item.check]".into()],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{decimals_asked, RawItem};

    fn numeric(prompt: &str, value: f64) -> Result<(), String> {
        let toml = format!(
            "id = \"x\"\nlevel = \"L2\"\nkind = \"numeric\"\nprompt = \"{prompt}\"\nvalue = {value}\ntolerance = 0.001\nexplanation = \"e\"\n"
        );
        toml::from_str::<RawItem>(&toml).unwrap().into_item(1).map(|_| ())
    }

    #[test]
    fn a_value_with_more_decimals_than_asked_is_refused() {
        assert!(numeric("The loss? Give 3 decimals.", 0.408).is_ok());
        let e = numeric("The loss? Give 3 decimals.", 0.4076).unwrap_err();
        assert!(e.contains("3 decimals"), "{e}");
        assert!(numeric("The loss?", 0.4076).is_ok());
    }

    #[test]
    fn reads_the_decimals_a_prompt_asks_for() {
        assert_eq!(decimals_asked("What is the loss? Give 3 decimals."), Some(3));
        assert_eq!(decimals_asked("Answer to two decimal places."), Some(2));
        assert_eq!(decimals_asked("What is the loss?"), None);
    }
}
