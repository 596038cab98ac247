//! Drill metadata: `drills/<id>/drill.toml` plus the drill's `README.md`.
//!
//! ```toml
//! id = "sft-basics"
//! title = "SFT basics: next-token training on a tiny task"
//! track = 0
//! objective = "Watch a tiny GPT learn a synthetic task with next-token SFT."
//! sheet = "0#sft"                 # the cheatsheet section that teaches it
//!
//! [[param]]
//! key = "lr"
//! kind = "float"                  # float | int | bool | choice | text
//! default = 3e-3
//! min = 1e-5
//! max = 0.1
//! help = "AdamW learning rate"
//!
//! [[param]]                        # a free string (a model name, a path)
//! key = "model"
//! kind = "text"
//! default = "tiny"
//! max_len = 200                   # characters; 200 when left out
//! help = "tiny, or a model added with `agentlab model add`"  # required: say what it holds
//!
//! [presets.quick]                 # overrides of the defaults
//! steps = 300
//! [presets.full]
//! steps = 3000
//!
//! [[claim]]
//! id = "heldout_acc"
//! text = "held-out exact-match accuracy"
//! op = ">="
//! threshold = 0.9
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    Float,
    Int,
    Bool,
    Choice,
    /// A free string (one line, at most `max_len` characters).
    Text,
}

/// The longest text value when a text param sets no `max_len`.
pub const TEXT_MAX_LEN_DEFAULT: usize = 200;
/// The largest `max_len` a text param may declare.
pub const TEXT_MAX_LEN_LIMIT: usize = 4096;

impl ParamKind {
    /// What a value of this kind is, for messages.
    pub fn describe(self) -> String {
        match self {
            ParamKind::Float => crate::t!("setup-kind-float"),
            ParamKind::Int => crate::t!("setup-kind-int"),
            ParamKind::Bool => crate::t!("setup-kind-bool"),
            ParamKind::Choice => crate::t!("setup-kind-choice"),
            ParamKind::Text => crate::t!("setup-kind-text"),
        }
    }
}

/// A hyperparameter value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => {
                if *x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e5) {
                    write!(f, "{x:e}")
                } else {
                    write!(f, "{x}")
                }
            }
            ParamValue::Text(s) => write!(f, "{s}"),
        }
    }
}

impl ParamValue {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Float(x) => Some(*x),
            ParamValue::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    fn from_toml(v: &toml::Value) -> Option<ParamValue> {
        Some(match v {
            toml::Value::Boolean(b) => ParamValue::Bool(*b),
            toml::Value::Integer(i) => ParamValue::Int(*i),
            toml::Value::Float(x) => ParamValue::Float(*x),
            toml::Value::String(s) => ParamValue::Text(s.clone()),
            _ => return None,
        })
    }

    pub fn to_toml(&self) -> toml::Value {
        match self {
            ParamValue::Bool(b) => toml::Value::Boolean(*b),
            ParamValue::Int(i) => toml::Value::Integer(*i),
            ParamValue::Float(x) => toml::Value::Float(*x),
            ParamValue::Text(s) => toml::Value::String(s.clone()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    pub key: String,
    pub kind: ParamKind,
    pub default: toml::Value,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub choices: Option<Vec<String>>,
    /// Text params only: the most characters a value may have
    /// ([`TEXT_MAX_LEN_DEFAULT`] when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_len: Option<usize>,
    #[serde(default)]
    pub help: String,
}

impl ParamSpec {
    /// Check a value against this parameter's type and range.
    pub fn validate(&self, v: &toml::Value) -> Result<ParamValue, String> {
        let value = ParamValue::from_toml(v)
            .ok_or_else(|| crate::t!("setup-unsupported", key = self.key.as_str(), value = v.to_string()))?;
        self.check(value)
    }

    /// Parse a value typed by the learner (`--set lr=1e-3`, the config panel).
    pub fn parse_str(&self, s: &str) -> Result<ParamValue, String> {
        let s = s.trim();
        let key = &self.key;
        let range = match (self.min, self.max) {
            (Some(lo), Some(hi)) => {
                // English puts a space before its "(", Chinese none before "（".
                crate::t!("setup-range", key = key.as_str(), lo = lo.to_string(), hi = hi.to_string())
            }
            _ => String::new(),
        };
        let value = match self.kind {
            ParamKind::Float => ParamValue::Float(crate::numbers::finite(s, key).map_err(|e| e + range.as_str())?),
            ParamKind::Int => ParamValue::Int(s.parse::<i64>().map_err(|e| match e.kind() {
                std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                    crate::t!("setup-out-of-range", key = key.as_str(), value = s) + range.as_str()
                }
                _ => crate::t!("setup-not-whole", key = key.as_str(), value = s) + range.as_str(),
            })?),
            ParamKind::Bool => ParamValue::Bool(match s {
                "true" | "on" | "yes" | "1" => true,
                "false" | "off" | "no" | "0" => false,
                _ => return Err(crate::t!("setup-not-bool", key = key.as_str(), value = s)),
            }),
            ParamKind::Choice | ParamKind::Text => ParamValue::Text(s.to_string()),
        };
        self.check(value)
    }

    /// The most characters a text value may have.
    pub fn text_max_len(&self) -> usize {
        self.max_len.unwrap_or(TEXT_MAX_LEN_DEFAULT)
    }

    /// Rules of the declaration itself (not of a value): fields that only
    /// some kinds take.
    fn declaration_errors(&self) -> Vec<String> {
        let key = &self.key;
        let mut errors = Vec::new();
        match self.kind {
            ParamKind::Choice if self.choices.as_ref().is_none_or(|c| c.is_empty()) => {
                errors.push(format!("choice param `{key}` has no `choices`"))
            }
            ParamKind::Text => {
                if self.min.is_some() || self.max.is_some() {
                    errors.push(format!("text param `{key}` takes no `min`/`max` (`max_len` bounds its length)"));
                }
                if self.choices.is_some() {
                    errors.push(format!("text param `{key}` takes no `choices` (use kind = \"choice\")"));
                }
                if self.max_len.is_some_and(|m| m == 0 || m > TEXT_MAX_LEN_LIMIT) {
                    errors.push(format!("text param `{key}`: `max_len` is 1 … {TEXT_MAX_LEN_LIMIT}"));
                }
                if self.help.trim().is_empty() {
                    errors.push(format!("text param `{key}` needs a `help` that says what the text holds"));
                }
            }
            _ => {}
        }
        if self.kind != ParamKind::Text && self.max_len.is_some() {
            errors.push(format!("param `{key}`: only text params take `max_len`"));
        }
        // A NaN bound compares false with everything: every value would pass it.
        for (name, bound) in [("min", self.min), ("max", self.max)] {
            if bound.is_some_and(|b| !b.is_finite()) {
                errors.push(format!("param `{key}`: `{name}` must be a finite number"));
            }
        }
        if let (Some(lo), Some(hi)) = (self.min, self.max) {
            if lo > hi {
                errors.push(format!("param `{key}`: `min` ({lo}) is above `max` ({hi})"));
            }
        }
        errors
    }

    fn check(&self, value: ParamValue) -> Result<ParamValue, String> {
        let key = &self.key;
        let value = match (self.kind, value) {
            (ParamKind::Float, ParamValue::Int(i)) => ParamValue::Float(i as f64),
            (ParamKind::Float, v @ ParamValue::Float(_)) => v,
            (ParamKind::Int, v @ ParamValue::Int(_)) => v,
            (ParamKind::Bool, v @ ParamValue::Bool(_)) => v,
            (ParamKind::Choice | ParamKind::Text, v @ ParamValue::Text(_)) => v,
            (kind, v) => {
                return Err(crate::t!(
                    "setup-expected",
                    key = key.as_str(),
                    kind = kind.describe(),
                    value = v.to_string()
                ))
            }
        };
        if let Some(x) = value.as_f64() {
            if !x.is_finite() {
                return Err(crate::t!("setup-not-finite", key = key.as_str(), value = x.to_string()));
            }
            if let Some(min) = self.min {
                if x < min {
                    return Err(crate::t!(
                        "setup-below-min",
                        key = key.as_str(),
                        value = value.to_string(),
                        min = min.to_string()
                    ));
                }
            }
            if let Some(max) = self.max {
                if x > max {
                    return Err(crate::t!(
                        "setup-above-max",
                        key = key.as_str(),
                        value = value.to_string(),
                        max = max.to_string()
                    ));
                }
            }
        }
        if let (ParamValue::Text(s), Some(choices)) = (&value, &self.choices) {
            if !choices.contains(s) {
                return Err(crate::t!(
                    "setup-not-choice",
                    key = key.as_str(),
                    value = s.as_str(),
                    choices = choices.join(", ")
                ));
            }
        }
        if let (ParamKind::Text, ParamValue::Text(s)) = (self.kind, &value) {
            let max = self.text_max_len();
            let n = s.chars().count();
            if n > max {
                return Err(crate::t!(
                    "setup-text-too-long",
                    key = key.as_str(),
                    n = n.to_string(),
                    max = max.to_string()
                ));
            }
            if s.chars().any(char::is_control) {
                return Err(crate::t!("setup-text-one-line", key = key.as_str()));
            }
        }
        Ok(value)
    }
}

/// How a claim compares the measured value with its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum Cmp {
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = "<")]
    Lt,
    /// Exactly the threshold: a quantity that cannot fall below it (a
    /// gradient's magnitude that masking makes zero) reads "= 0", not "≤ 0".
    #[serde(rename = "==")]
    Eq,
}

impl Cmp {
    pub fn holds(self, measured: f64, threshold: f64) -> bool {
        if !measured.is_finite() {
            return false;
        }
        match self {
            Cmp::Ge => measured >= threshold,
            Cmp::Gt => measured > threshold,
            Cmp::Le => measured <= threshold,
            Cmp::Lt => measured < threshold,
            Cmp::Eq => measured == threshold,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Ge => "≥",
            Cmp::Gt => ">",
            Cmp::Le => "≤",
            Cmp::Lt => "<",
            Cmp::Eq => "=",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimSpec {
    pub id: String,
    pub text: String,
    pub op: Cmp,
    pub threshold: f64,
    /// A finding that does not hold on enough seeds to be a claim: shown with
    /// its value (and the README gives its rate over seeds), never a pass/fail.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub observation: bool,
    /// The presets the claim is about (empty: every preset). A finding can
    /// depend on the setting: a real pretrained model after a few minutes of
    /// LoRA is not held to the tiny model's success rate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub presets: Vec<String>,
    /// Presets where the finding is an observation, though a claim elsewhere:
    /// it held on too few of that preset's measured seeds (the README gives
    /// the rate), as a real model after a few minutes of training may.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observation_in: Vec<String>,
    /// What the claim means for learning, in two sentences at most: shown
    /// beside a ✗ in the claims panel and the log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Settings that break the claim, with their measured effect (from the
    /// README's tables): `b` on the drill screen lists them and applies one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breaks_with: Vec<BreakSpec>,
}

/// A setting that breaks a claim, declared under its claim:
///
/// ```toml
/// [[claim.breaks_with]]
/// set = { critic = "self" }
/// effect = "refine_gain reads 0.013 on seed 1 (0.29 with the verifier)"
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BreakSpec {
    /// Parameter values applied over the preset (each checked against its parameter).
    pub set: toml::Table,
    /// The measured effect, as the README's table shows it.
    pub effect: String,
}

/// How a learner answers a prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PredictKind {
    /// Pick one of `choices`; the measured value falls in one of the
    /// intervals that `edges` cut (choice i: edges[i-1] ≤ x < edges[i]).
    Choice,
    /// Type a number; right when within `tolerance` of the measured value.
    Number,
}

/// A question asked before a preset first runs, answered by the run itself:
/// the measured value of a claim (or the last value of a logged metric)
/// decides which answer was right.
///
/// ```toml
/// [[prediction]]
/// id = "self_critic"
/// question = "With the model as its own critic, how much does the loop gain?"
/// kind = "choice"
/// choices = ["nothing or less", "a little", "as much as with the verifier"]
/// edges = [0.02, 0.15]
/// claim = "refine_gain"
/// explain = "…"
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PredictionSpec {
    pub id: String,
    pub question: String,
    pub kind: PredictKind,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    /// Choice kind: the n-1 ascending cut points between n choices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<f64>,
    /// Number kind: how far from the measured value an answer is still right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// The claim whose measured value answers it…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    /// …or the metric whose last logged value does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// The presets it is asked for (empty: every preset its claim applies to).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub presets: Vec<String>,
    /// One paragraph that teaches the answer, shown after the run.
    pub explain: String,
}

impl PredictionSpec {
    /// Which choice a measured value falls in (Choice kind).
    pub fn choice_of(&self, measured: f64) -> usize {
        self.edges.iter().take_while(|&&e| measured >= e).count()
    }

    /// Whether `answer` (a choice index, or the number typed) was right.
    pub fn is_right(&self, answer: f64, measured: f64) -> bool {
        if !measured.is_finite() {
            return false;
        }
        match self.kind {
            PredictKind::Choice => answer as usize == self.choice_of(measured),
            PredictKind::Number => (answer - measured).abs() <= self.tolerance.unwrap_or(0.0),
        }
    }

    /// Whether a run of `preset` asks it.
    pub fn applies_to(&self, preset: &str) -> bool {
        self.presets.is_empty() || self.presets.iter().any(|p| p == preset)
    }

    fn declaration_errors(&self, claims: &[ClaimSpec], charts: &[ChartSpec]) -> Vec<String> {
        let id = &self.id;
        let mut errors = Vec::new();
        match (&self.claim, &self.metric) {
            (Some(c), None) => {
                if !claims.iter().any(|x| &x.id == c) {
                    errors.push(format!("prediction `{id}` names claim `{c}`, which the drill does not have"));
                }
            }
            // A metric's series must be one the drill charts: a name no chart declares is one
            // nothing checks the run emits, and a prediction on it could never be answered.
            (None, Some(m)) => {
                if !charts.iter().any(|c| c.label_of(m).is_some()) {
                    errors.push(format!(
                        "prediction `{id}` asks about metric `{m}`, which no `[[chart]]` series of the drill has"
                    ));
                }
            }
            _ => errors.push(format!("prediction `{id}` needs exactly one of `claim` or `metric`")),
        }
        match self.kind {
            PredictKind::Choice => {
                if self.choices.len() < 2 || self.edges.len() + 1 != self.choices.len() {
                    errors.push(format!(
                        "prediction `{id}`: a choice needs ≥ 2 `choices` and one fewer `edges` ({} and {})",
                        self.choices.len(),
                        self.edges.len()
                    ));
                }
                if self.edges.windows(2).any(|w| w[0] >= w[1]) || self.edges.iter().any(|e| !e.is_finite()) {
                    errors.push(format!("prediction `{id}`: `edges` must be finite and ascending"));
                }
                if self.tolerance.is_some() {
                    errors.push(format!("prediction `{id}`: only a number takes `tolerance`"));
                }
            }
            PredictKind::Number => {
                if !self.choices.is_empty() || !self.edges.is_empty() {
                    errors.push(format!("prediction `{id}`: a number takes no `choices`/`edges`"));
                }
                if !self.tolerance.is_some_and(|t| t.is_finite() && t > 0.0) {
                    errors.push(format!("prediction `{id}`: a number needs a positive `tolerance`"));
                }
            }
        }
        if self.question.trim().is_empty() || self.explain.trim().is_empty() {
            errors.push(format!("prediction `{id}` needs a `question` and an `explain`"));
        }
        errors
    }
}

impl ClaimSpec {
    /// Whether a run of `preset` measures this claim.
    pub fn applies_to(&self, preset: &str) -> bool {
        self.presets.is_empty() || self.presets.iter().any(|p| p == preset)
    }

    /// Whether a run of `preset` reports it as an observation (a value, no verdict).
    pub fn observation_for(&self, preset: &str) -> bool {
        self.observation || self.observation_in.iter().any(|p| p == preset)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDrill {
    pub id: String,
    pub title: String,
    pub track: u8,
    pub objective: String,
    pub sheet: Option<String>,
    #[serde(default, rename = "param")]
    pub params: Vec<ParamSpec>,
    #[serde(default)]
    pub presets: BTreeMap<String, toml::Table>,
    #[serde(default, rename = "claim")]
    pub claims: Vec<ClaimSpec>,
    #[serde(default, rename = "chart")]
    pub charts: Vec<ChartSpec>,
    #[serde(default, rename = "prediction")]
    pub predictions: Vec<PredictionSpec>,
    #[serde(default)]
    pub measured_s: BTreeMap<String, f64>,
}

/// One chart of a drill, declared in `drill.toml` as `[[chart]]`: the series
/// it draws together (the arms of a comparison, so a crossover is seen by
/// eye) and what its x axis counts. A series no chart names is drawn alone,
/// over the step.
///
/// ```toml
/// [[chart]]
/// title = "pass@k against k, per temperature"
/// series = ["pass@k/*"]
/// x = "k"
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChartSpec {
    pub title: String,
    /// Series names, or patterns where `*` stands for any text. A series
    /// joins the first chart one of whose patterns it matches; its label in
    /// the legend is the text the last `*` matched (the whole name when the
    /// pattern has none).
    pub series: Vec<String>,
    /// What the x axis counts: `step` unless the series are over something else (`k`, `turn`, …).
    #[serde(default = "ChartSpec::default_x")]
    pub x: String,
    /// The legend label of a series matched by a pattern without `*` (its
    /// whole name otherwise): the main arm of a comparison whose other arms
    /// carry a suffix, e.g. `loss` beside `loss (β_compare)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl ChartSpec {
    fn default_x() -> String {
        "step".into()
    }

    /// The legend label of `name` in this chart, or `None` when no pattern matches it.
    pub fn label_of(&self, name: &str) -> Option<String> {
        self.series.iter().find_map(|p| {
            let label = match_pattern(p, name)?;
            Some(match &self.label {
                Some(l) if !p.contains('*') => l.clone(),
                _ => label,
            })
        })
    }
}

/// Match `name` against `pattern` (`*` = any text, possibly empty); the
/// label is what the last `*` matched, or the whole name when there is no `*`.
fn match_pattern(pattern: &str, name: &str) -> Option<String> {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return (pattern == name).then(|| name.to_string());
    }
    // First and last literal parts are anchored; the middle ones are found
    // left to right, each star taking the least it can, but the last star
    // takes everything up to the final literal.
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    let rest = name.strip_prefix(first)?;
    if rest.len() < last.len() || !rest.ends_with(last) {
        return None;
    }
    let mut middle = &rest[..rest.len() - last.len()];
    for lit in &parts[1..parts.len() - 1] {
        let at = middle.find(lit)?;
        middle = &middle[at + lit.len()..];
    }
    Some(middle.to_string())
}

/// Series drawn together in one chart: indices into the series list, each
/// with its legend label, in the order the series arrived.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartGroup {
    pub title: String,
    pub x: String,
    /// (index into the series names, legend label); one member for a series drawn alone.
    pub members: Vec<(usize, String)>,
}

impl ChartGroup {
    /// A lone series: its chart is titled with its name and has no legend.
    pub fn is_single(&self) -> bool {
        self.members.len() == 1
    }
}

/// Group series `names` (in arrival order) into the charts `charts` declares;
/// series no chart names stand alone. Charts come in the order their first
/// series arrived.
pub fn group_series<S: AsRef<str>>(charts: &[ChartSpec], names: &[S]) -> Vec<ChartGroup> {
    let mut groups: Vec<ChartGroup> = Vec::new();
    let mut group_of_chart: Vec<Option<usize>> = vec![None; charts.len()];
    for (i, name) in names.iter().enumerate() {
        let name = name.as_ref();
        let hit = charts.iter().enumerate().find_map(|(c, spec)| spec.label_of(name).map(|l| (c, l)));
        match hit {
            Some((c, label)) => match group_of_chart[c] {
                Some(g) => groups[g].members.push((i, label)),
                None => {
                    group_of_chart[c] = Some(groups.len());
                    groups.push(ChartGroup {
                        title: charts[c].title.clone(),
                        x: charts[c].x.clone(),
                        members: vec![(i, label)],
                    });
                }
            },
            None => groups.push(ChartGroup {
                title: name.to_string(),
                x: "step".into(),
                members: vec![(i, name.to_string())],
            }),
        }
    }
    groups
}

/// A drill as the content describes it; the code that runs it lives in `src/drills/`.
#[derive(Debug, Clone)]
pub struct DrillMeta {
    pub id: String,
    pub title: String,
    pub track: u8,
    pub objective: String,
    pub sheet: Option<String>,
    pub params: Vec<ParamSpec>,
    pub presets: BTreeMap<String, BTreeMap<String, ParamValue>>,
    pub claims: Vec<ClaimSpec>,
    /// Series drawn together (see [`ChartSpec`]).
    pub charts: Vec<ChartSpec>,
    /// Questions asked before a preset's first run, answered by the run.
    pub predictions: Vec<PredictionSpec>,
    /// Seconds a run of each preset took (seed 1, alone on the lab's 2-core
    /// CPU, as the README reports it): said before `s` starts one.
    ///
    /// ```toml
    /// measured_s = { quick = 11.6, real = 251 }
    /// ```
    pub measured_s: BTreeMap<String, f64>,
    pub readme: String,
}

impl DrillMeta {
    /// Parse a `drill.toml` text with its README (used by tests and tools).
    pub fn parse(toml_text: &str, readme: &str) -> Result<DrillMeta, Vec<String>> {
        let raw: RawDrill = toml::from_str(toml_text).map_err(|e| vec![e.message().to_string()])?;
        DrillMeta::from_raw(raw, readme.to_string())
    }

    pub(crate) fn from_raw(raw: RawDrill, readme: String) -> Result<DrillMeta, Vec<String>> {
        let mut errors = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for p in &raw.params {
            if !seen.insert(p.key.clone()) {
                errors.push(format!("param `{}` is declared twice", p.key));
            }
            let declared = p.declaration_errors();
            if declared.is_empty() {
                if let Err(e) = p.validate(&p.default) {
                    errors.push(format!("default of {e}"));
                }
            }
            errors.extend(declared);
        }
        let mut presets = BTreeMap::new();
        if !raw.presets.contains_key("quick") {
            errors.push("no `presets.quick` (every drill has a quick preset for CPU and tests)".into());
        }
        for (name, table) in &raw.presets {
            let mut values = BTreeMap::new();
            for (k, v) in table {
                match raw.params.iter().find(|p| &p.key == k) {
                    None => errors.push(format!("preset `{name}` sets unknown param `{k}`")),
                    Some(p) => match p.validate(v) {
                        Ok(v) => {
                            values.insert(k.clone(), v);
                        }
                        Err(e) => errors.push(format!("preset `{name}`: {e}")),
                    },
                }
            }
            presets.insert(name.clone(), values);
        }
        let mut claim_ids = std::collections::HashSet::new();
        for c in &raw.claims {
            if !claim_ids.insert(c.id.clone()) {
                errors.push(format!("claim `{}` is declared twice", c.id));
            }
            for p in c.presets.iter().chain(&c.observation_in).filter(|p| !raw.presets.contains_key(*p)) {
                errors.push(format!("claim `{}` names preset `{p}`, which the drill does not have", c.id));
            }
            // A NaN threshold fails every comparison, ±∞ passes or fails every value: no finding either way.
            if !c.threshold.is_finite() {
                errors.push(format!("claim `{}`: `threshold` must be a finite number, not {}", c.id, c.threshold));
            }
            if c.why.as_ref().is_some_and(|w| w.trim().is_empty()) {
                errors.push(format!("claim `{}` has an empty `why`", c.id));
            }
            for b in &c.breaks_with {
                if b.set.is_empty() || b.effect.trim().is_empty() {
                    errors.push(format!("claim `{}`: a `breaks_with` needs a `set` and an `effect`", c.id));
                }
                for (k, v) in &b.set {
                    match raw.params.iter().find(|p| &p.key == k) {
                        None => errors.push(format!("claim `{}`: `breaks_with` sets unknown param `{k}`", c.id)),
                        Some(p) => {
                            if let Err(e) = p.validate(v) {
                                errors.push(format!("claim `{}`: `breaks_with`: {e}", c.id));
                            }
                        }
                    }
                }
            }
        }
        let mut prediction_ids = std::collections::HashSet::new();
        for p in &raw.predictions {
            if !prediction_ids.insert(p.id.clone()) {
                errors.push(format!("prediction `{}` is declared twice", p.id));
            }
            errors.extend(p.declaration_errors(&raw.claims, &raw.charts));
            for name in p.presets.iter().filter(|n| !raw.presets.contains_key(*n)) {
                errors.push(format!("prediction `{}` names preset `{name}`, which the drill does not have", p.id));
            }
            // A preset whose run does not measure the claim could never answer it.
            if let Some(c) = p.claim.as_ref().and_then(|c| raw.claims.iter().find(|x| &x.id == c)) {
                for name in p.presets.iter().filter(|n| raw.presets.contains_key(*n) && !c.applies_to(n)) {
                    errors.push(format!(
                        "prediction `{}` is asked on preset `{name}`, whose run does not measure claim `{}`",
                        p.id, c.id
                    ));
                }
            }
        }
        for c in &raw.charts {
            if c.series.is_empty() {
                errors.push(format!("chart \"{}\" names no series", c.title));
            }
            if c.title.trim().is_empty() || c.x.trim().is_empty() {
                errors.push("a chart needs a title and an x (what its axis counts)".into());
            }
        }
        if raw.claims.is_empty() {
            errors.push("a drill needs at least one claim".into());
        }
        for (preset, secs) in &raw.measured_s {
            if !raw.presets.contains_key(preset) {
                errors.push(format!("`measured_s` names preset `{preset}`, which the drill does not have"));
            }
            if !(secs.is_finite() && *secs > 0.0) {
                errors.push(format!("`measured_s.{preset}` must be a positive number of seconds, not {secs}"));
            }
        }
        if readme.trim().is_empty() {
            errors.push("README.md is missing or empty".into());
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(DrillMeta {
            id: raw.id,
            title: raw.title,
            track: raw.track,
            objective: raw.objective,
            sheet: raw.sheet,
            params: raw.params,
            presets,
            claims: raw.claims,
            charts: raw.charts,
            predictions: raw.predictions,
            measured_s: raw.measured_s,
            readme,
        })
    }

    pub fn param(&self, key: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|p| p.key == key)
    }

    pub fn claim(&self, id: &str) -> Option<&ClaimSpec> {
        self.claims.iter().find(|c| c.id == id)
    }

    /// The charts a run with these series draws (see [`group_series`]).
    pub fn chart_groups<S: AsRef<str>>(&self, names: &[S]) -> Vec<ChartGroup> {
        group_series(&self.charts, names)
    }

    /// The drill as a run of `preset` sees it: only the claims about that preset.
    pub fn for_preset(&self, preset: &str) -> DrillMeta {
        let mut meta = self.clone();
        meta.claims.retain(|c| c.applies_to(preset));
        // A claim that is an observation in this preset reads as one before a run too.
        for c in &mut meta.claims {
            c.observation = c.observation_for(preset);
        }
        meta
    }

    /// Parameter values of a preset: the defaults, overridden by the preset.
    pub fn preset_values(&self, preset: &str) -> Result<BTreeMap<String, ParamValue>, String> {
        let overrides = self.presets.get(preset).ok_or_else(|| {
            let names: Vec<_> = self.presets.keys().cloned().collect();
            format!("drill {} has no preset \"{preset}\" (presets: {})", self.id, names.join(", "))
        })?;
        let mut values = BTreeMap::new();
        for p in &self.params {
            // Defaults were validated at load time.
            let v = p.validate(&p.default).expect("validated default");
            values.insert(p.key.clone(), v);
        }
        for (k, v) in overrides {
            values.insert(k.clone(), v.clone());
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(title: &str, series: &[&str], x: &str) -> ChartSpec {
        ChartSpec {
            title: title.into(),
            series: series.iter().map(|s| s.to_string()).collect(),
            x: x.into(),
            label: None,
        }
    }

    #[test]
    fn patterns_match_and_label_with_the_last_star() {
        assert_eq!(match_pattern("pass@k/*", "pass@k/T=0.25").as_deref(), Some("T=0.25"));
        assert_eq!(match_pattern("pass@k/*", "pass^k/T=0.25"), None);
        assert_eq!(match_pattern("*/reward", "sound/reward").as_deref(), Some("sound"));
        assert_eq!(match_pattern("*/reward", "sound/reward_std"), None);
        assert_eq!(match_pattern("acc A (*) · *", "acc A (rev) · ewc").as_deref(), Some("ewc"));
        assert_eq!(match_pattern("acc A (*) · *", "acc B (rev) · ewc"), None);
        assert_eq!(match_pattern("loss", "loss").as_deref(), Some("loss"));
        assert_eq!(match_pattern("loss", "loss2"), None);
        assert_eq!(match_pattern("a*b", "ab").as_deref(), Some(""));
        assert_eq!(match_pattern("ab*b", "ab"), None, "the literal parts may not overlap");
    }

    #[test]
    fn series_group_into_declared_charts_in_arrival_order() {
        let charts = [chart("pass@k by T", &["pass@k/*"], "k"), chart("reward", &["*/reward"], "step")];
        let names = ["loss", "sound/reward", "pass@k/T=1", "proxy/reward", "pass@k/T=2"];
        let g = group_series(&charts, &names);
        let summary: Vec<String> = g.iter().map(|g| format!("{} [{}] {:?}", g.title, g.x, g.members)).collect();
        assert_eq!(
            summary,
            [
                r#"loss [step] [(0, "loss")]"#,
                r#"reward [step] [(1, "sound"), (3, "proxy")]"#,
                r#"pass@k by T [k] [(2, "T=1"), (4, "T=2")]"#,
            ]
        );
        assert!(g[0].is_single() && !g[1].is_single());
        // The main arm, named without a suffix, gets the chart's label.
        let mut dpo = chart("loss by arm", &["loss", "loss (*)"], "step");
        dpo.label = Some("β".into());
        assert_eq!(dpo.label_of("loss").as_deref(), Some("β"));
        assert_eq!(dpo.label_of("loss (β_compare)").as_deref(), Some("β_compare"));
    }

    #[test]
    fn a_chart_without_series_is_refused() {
        let toml = "id = \"t\"\ntitle = \"T\"\ntrack = 0\nobjective = \"o\"\n[presets.quick]\n\n\
                    [[claim]]\nid = \"acc\"\ntext = \"accuracy\"\nop = \">=\"\nthreshold = 0.8\n\n\
                    [[chart]]\ntitle = \"empty\"\nseries = []\n";
        let errs = DrillMeta::parse(toml, "# t").unwrap_err();
        assert!(errs.iter().any(|e| e.contains("names no series")), "{errs:?}");
        let ok = toml.replace("series = []", "series = [\"a/*\"]\nx = \"k\"");
        let meta = DrillMeta::parse(&ok, "# t").unwrap();
        assert_eq!(meta.charts[0].x, "k");
    }

    /// A NaN threshold fails every value and ±∞ passes or fails all of them;
    /// a NaN bound lets any value through (`--set lr=50` was accepted).
    #[test]
    fn non_finite_thresholds_and_ranges_are_refused() {
        let toml = "id = \"t\"\ntitle = \"T\"\ntrack = 0\nobjective = \"o\"\n\
                    [[param]]\nkey = \"lr\"\nkind = \"float\"\ndefault = 0.01\nmin = 1e-5\nmax = 0.1\n\
                    [presets.quick]\n\n\
                    [[claim]]\nid = \"acc\"\ntext = \"accuracy\"\nop = \">=\"\nthreshold = 0.8\n";
        DrillMeta::parse(toml, "# t").expect("the finite drill loads");
        for (from, to, says) in [
            ("threshold = 0.8", "threshold = nan", "`threshold` must be a finite number"),
            ("threshold = 0.8", "threshold = -inf", "`threshold` must be a finite number"),
            ("min = 1e-5", "min = nan", "`min` must be a finite number"),
            ("max = 0.1", "max = inf", "`max` must be a finite number"),
            ("min = 1e-5", "min = 1.0", "`min` (1) is above `max` (0.1)"),
        ] {
            let errs = DrillMeta::parse(&toml.replace(from, to), "# t").unwrap_err();
            assert!(errs.iter().any(|e| e.contains(says)), "{to}: {errs:?}");
        }
    }
}
