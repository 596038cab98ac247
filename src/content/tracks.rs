//! The eight tracks of the curriculum (the README's "Curriculum" table). The
//! list is fixed in code so that every content file can be checked against it.

/// One track of the curriculum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Track {
    pub number: u8,
    /// File stem used by `cheatsheets/NN-slug.md` and `quizzes/NN-slug.toml`.
    pub slug: &'static str,
    pub title: &'static str,
}

pub const TRACKS: [Track; 8] = [
    Track { number: 0, slug: "prereq", title: "Prerequisites: SFT → DPO → GRPO" },
    Track { number: 1, slug: "agent-foundations", title: "Agent Foundations" },
    Track { number: 2, slug: "agent-evaluation", title: "Agent Evaluation" },
    Track { number: 3, slug: "agentic-rl", title: "Agentic & Long-horizon RL" },
    Track { number: 4, slug: "agentic-rl-infra", title: "Agentic RL Infrastructure" },
    Track { number: 5, slug: "continual-learning", title: "Continual & Lifelong Learning" },
    Track { number: 6, slug: "self-improving", title: "Self-improving LLMs" },
    Track { number: 7, slug: "agent-safety", title: "Agent Safety & Alignment" },
];

/// Look a track up by its number.
pub fn track(number: u8) -> Option<&'static Track> {
    TRACKS.iter().find(|t| t.number == number)
}

/// Parse a track reference: a number (`3`), a padded number (`03`) or a slug (`agentic-rl`).
pub fn parse_track(s: &str) -> Option<&'static Track> {
    let s = s.trim();
    if let Ok(n) = s.parse::<u8>() {
        return track(n);
    }
    TRACKS.iter().find(|t| t.slug == s)
}

impl Track {
    /// `NN-slug`, the stem of the track's content files.
    pub fn stem(&self) -> String {
        format!("{:02}-{}", self.number, self.slug)
    }
}
