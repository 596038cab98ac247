//! What a drill reports while it runs. Serialised one per line into
//! `metrics.jsonl`, so a saved run can be replayed into the same charts.

use serde::{Deserialize, Serialize};

use crate::content::{Cmp, ParamValue};
use crate::ml::tokenizer::{CharTokenizer, EOS};

/// Adjacently tagged (`{"type": "metric", "data": {…}}`) so that variants
/// holding a plain string serialise too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum Event {
    Started {
        drill: String,
        preset: String,
        seed: u64,
        device: String,
        params: std::collections::BTreeMap<String, ParamValue>,
    },
    Phase(String),
    Log(String),
    /// One point of a named series; `t` is seconds since the start.
    Metric {
        step: u64,
        name: String,
        /// NaN or ±∞ (a diverged loss) is written as a string: JSON has no such numbers.
        #[serde(with = "crate::numbers::nonfinite")]
        value: f64,
        #[serde(with = "crate::numbers::nonfinite")]
        t: f64,
    },
    Progress {
        step: u64,
        total: u64,
        tokens: u64,
    },
    Claim(ClaimResult),
    View(View),
    Finished(Report),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimResult {
    pub id: String,
    pub text: String,
    /// NaN or ±∞ when nothing finite was measured (stored as a string; see `numbers::nonfinite`).
    #[serde(with = "crate::numbers::nonfinite")]
    pub measured: f64,
    pub op: Cmp,
    #[serde(with = "crate::numbers::nonfinite")]
    pub threshold: f64,
    /// Whether the measured value meets the threshold.
    pub pass: bool,
    /// An observation: reported with its value, never fails the run.
    #[serde(default)]
    pub observation: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", content = "message", rename_all = "snake_case")]
pub enum RunStatus {
    /// Every claim held.
    Passed,
    /// The run finished and at least one claim failed.
    ClaimsFailed,
    Cancelled,
    /// The drill stopped with an error or a panic (the message says which).
    Failed(String),
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunStatus::Passed => f.write_str(&crate::t!("status-passed")),
            RunStatus::ClaimsFailed => f.write_str(&crate::t!("status-claims-failed")),
            RunStatus::Cancelled => f.write_str(&crate::t!("status-cancelled")),
            RunStatus::Failed(m) => f.write_str(&crate::t!("status-failed", reason = m.as_str())),
        }
    }
}

impl Report {
    /// How the run ended, with its wall time — the one wording the log, the
    /// run gauge and the headless CLI share: "finished in 3.2 s: every claim
    /// holds", "cancelled after 1.0 s", "failed after 0.4 s: <reason>".
    pub fn outcome(&self) -> String {
        match &self.status {
            RunStatus::Passed | RunStatus::ClaimsFailed => {
                crate::t!("outcome-finished", secs = format!("{:.1}", self.wall_s), status = self.status.to_string())
            }
            RunStatus::Cancelled => crate::t!("outcome-cancelled", secs = format!("{:.1}", self.wall_s)),
            RunStatus::Failed(m) => {
                crate::t!("outcome-failed", secs = format!("{:.1}", self.wall_s), reason = m.as_str())
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub drill: String,
    pub preset: String,
    pub seed: u64,
    pub status: RunStatus,
    pub claims: Vec<ClaimResult>,
    #[serde(with = "crate::numbers::nonfinite")]
    pub wall_s: f64,
    /// Last value of every series (NaN and ±∞ stored as strings).
    #[serde(with = "crate::numbers::nonfinite::map")]
    pub finals: std::collections::BTreeMap<String, f64>,
    /// Each phase the run entered and the seconds since the start when it
    /// did: the next run of the same configuration reads its ETA over the
    /// whole run from these shares.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<(String, f64)>,
}

/// Who produced a token of a trajectory, for the teaching views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// Prompt: context, not trained.
    Prompt,
    /// Agent output: trained (label kept / mask 1).
    Trained,
    /// Environment output: masked (label −100 / mask 0).
    Masked,
    /// Environment output an attacker wrote (an injected instruction): masked too.
    Injected,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenCell {
    pub text: String,
    pub kind: TokenKind,
    /// Per-token value shown as colour (e.g. the advantage), if any.
    pub value: Option<f32>,
}

impl TokenCell {
    /// The cells of a prompt and its completion under a character tokenizer:
    /// the prompt grey, completion token `j` trained and coloured by
    /// `value(j)` (the end token shown as `⏎`).
    pub fn completion(
        tok: &CharTokenizer,
        prompt: &[u32],
        out: &[u32],
        value: impl Fn(usize) -> f32,
    ) -> Vec<TokenCell> {
        let text = |t: u32| if t == EOS { "⏎".to_string() } else { tok.token(t).to_string() };
        let prompt = prompt.iter().map(|&t| TokenCell { text: text(t), kind: TokenKind::Prompt, value: None });
        let out = out.iter().enumerate().map(|(j, &t)| TokenCell {
            text: text(t),
            kind: TokenKind::Trained,
            value: Some(value(j)),
        });
        prompt.chain(out).collect()
    }
}

/// A teaching visual a drill sends alongside its charts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum View {
    /// A trajectory token by token: trained vs masked, optionally with values.
    Tokens {
        title: String,
        tokens: Vec<TokenCell>,
        legend: String,
    },
    Table {
        title: String,
        header: Vec<String>,
        rows: Vec<Vec<String>>,
    },
    Text {
        title: String,
        body: String,
    },
}

impl View {
    /// A table view: `header` names the columns, each row has one cell per column.
    pub fn table<S: Into<String>>(
        title: impl Into<String>,
        header: impl IntoIterator<Item = S>,
        rows: Vec<Vec<String>>,
    ) -> View {
        View::Table { title: title.into(), header: header.into_iter().map(Into::into).collect(), rows }
    }

    pub fn title(&self) -> &str {
        match self {
            View::Tokens { title, .. } | View::Table { title, .. } | View::Text { title, .. } => title,
        }
    }
}
