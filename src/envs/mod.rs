//! Agent environments and their tools. Pure code: no model, no UI.
//!
//! * [`calculator`] — exact integer arithmetic; errors come back as text.
//! * [`injection`] — prompt injection in the ReAct world: attack wordings, the
//!   harness between agent and tools (injection, datamarking, allow-list).
//! * [`format`] — how a trajectory becomes one model's tokens (a chat
//!   template for a real model), and a masked training example.
//! * [`kb`] — a fact table about a fictional world, shipped in `assets/world/`.
//! * [`react`] — the ReAct loop: parse a completion, route to a tool, inject
//!   the observation, repeat.
//! * [`qa_world`] — the search-or-answer QA world with a multi-term reward.
//! * [`refine_arith`] — addition with a digit-level verifier and critique.
//! * [`refine_codec`] — the refine task's text as a model's tokens, and its
//!   training examples (drafts and refinement traces).
//! * [`rlvr`] — an exact and a lenient (hackable) verifier for RLVR on addition.
//! * [`strings`] — string transformations that conflict, for continual learning.

pub mod agent_bench;
pub mod calculator;
pub mod format;
pub mod injection;
pub mod kb;
pub mod qa_world;
pub mod react;
pub mod react_tasks;
pub mod refine_arith;
pub mod refine_codec;
pub mod rlvr;
pub mod strings;
pub mod tool_world;

/// Who wrote a piece of a trajectory. Only `Agent` text is trained on; the
/// rest gets label −100 (SFT) or mask 0 (RL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Role {
    /// The task as given (question, instructions).
    Prompt,
    /// Text the policy produced.
    Agent,
    /// Text the environment produced (tool observations).
    Env,
}

/// A trajectory as role-tagged text segments, in order.
pub type Segments = Vec<(Role, String)>;

/// The whole text of a trajectory.
pub fn joined(segments: &[(Role, String)]) -> String {
    segments.iter().map(|(_, s)| s.as_str()).collect()
}
