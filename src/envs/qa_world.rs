//! The search-or-answer QA world: the smallest environment where an agent
//! must decide between acting (a tool call) and answering.
//!
//! Each question asks for a fact about a fictional place. The agent may
//! `search[place]` (the environment answers with facts) or `answer[x]`,
//! which ends the episode:
//!
//! ```text
//! Q: capital of Zondnaus?          ← prompt
//! search[Zondnaus]                 ← agent
//! Obs: Zondnaus capital Brisaul, flag blue ← environment (masked in the loss)
//! answer[Brisaul]                  ← agent
//! ```
//!
//! Reward, per turn so that returns can be discounted by turn:
//!
//! ```text
//! search turn:  −λ                                 (every search costs)
//! answer turn:  w_correct·[answer = truth] + w_format
//! bad turn:     0, and the episode goes on until max_turns
//! ```
//!
//! So the total is `correct + format − λ·searches`. With λ = 0 searching is
//! free and a policy has no reason to stop; with a large λ it pays to guess.
//! Some places are "known": the warm-start data answers them directly, so a
//! search there is needless; for the others a search is the only way.

use super::kb::FactTable;
use super::{Role, Segments};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QaConfig {
    pub w_correct: f32,
    pub w_format: f32,
    /// λ: cost of one search.
    pub search_cost: f32,
    pub max_turns: usize,
}

impl Default for QaConfig {
    fn default() -> Self {
        QaConfig { w_correct: 1.0, w_format: 0.1, search_cost: 0.2, max_turns: 3 }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub entity: String,
    pub truth: String,
    /// Whether the warm start saw this place's answer (a search is needless).
    pub known: bool,
}

impl Question {
    pub fn prompt(&self) -> String {
        format!("Q: capital of {}?\n", self.entity)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QaAction {
    Search(String),
    Answer(String),
    Invalid,
}

/// Parse one agent line.
pub fn parse_action(line: &str) -> QaAction {
    let l = line.trim();
    let inner = |p: &str| l.strip_prefix(p).and_then(|r| r.strip_suffix(']')).map(|s| s.trim().to_string());
    if let Some(q) = inner("search[") {
        QaAction::Search(q)
    } else if let Some(a) = inner("answer[") {
        QaAction::Answer(a)
    } else {
        QaAction::Invalid
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct QaEpisode {
    pub segments: Segments,
    /// One reward per agent turn.
    pub turn_rewards: Vec<f32>,
    pub searches: usize,
    pub answered: bool,
    pub correct: bool,
}

impl QaEpisode {
    pub fn total_reward(&self) -> f32 {
        self.turn_rewards.iter().sum()
    }
}

#[derive(Debug, Clone)]
pub struct QaWorld {
    pub kb: FactTable,
    pub cfg: QaConfig,
}

impl QaWorld {
    pub fn new(kb: FactTable, cfg: QaConfig) -> QaWorld {
        QaWorld { kb, cfg }
    }

    /// What a search returns: the place's capital and flag (or its capital
    /// alone when the table has no flag for it), or nothing.
    pub fn search(&self, query: &str) -> String {
        let q = query.trim();
        match (self.kb.get(q, "capital"), self.kb.get(q, "flag")) {
            (Some(c), Some(f)) => format!("Obs: {q} capital {c}, flag {f}\n"),
            (Some(c), None) => format!("Obs: {q} capital {c}\n"),
            _ => "Obs: no result\n".to_string(),
        }
    }

    /// Play one episode; `policy(transcript)` returns the agent's next line.
    pub fn run<E>(&self, q: &Question, policy: &mut dyn FnMut(&str) -> Result<String, E>) -> Result<QaEpisode, E> {
        let mut s = QaSession::new(q.clone());
        while !s.done {
            let line = policy(&s.transcript)?;
            self.apply(&mut s, &line);
        }
        Ok(s.episode)
    }

    /// Apply one agent line to an episode in progress (batched rollouts drive many).
    pub fn apply(&self, s: &mut QaSession, line: &str) {
        if s.done {
            return;
        }
        let mut line = line.to_string();
        if let Some(nl) = line.find('\n') {
            line.truncate(nl);
        }
        line.push('\n');
        s.transcript.push_str(&line);
        s.episode.segments.push((Role::Agent, line.clone()));
        match parse_action(&line) {
            QaAction::Search(query) => {
                s.episode.searches += 1;
                s.episode.turn_rewards.push(-self.cfg.search_cost);
                let obs = self.search(&query);
                s.transcript.push_str(&obs);
                s.episode.segments.push((Role::Env, obs));
            }
            QaAction::Answer(a) => {
                s.episode.answered = true;
                s.episode.correct = a == s.question.truth;
                s.episode
                    .turn_rewards
                    .push(self.cfg.w_correct * f32::from(s.episode.correct as u8) + self.cfg.w_format);
                s.done = true;
                return;
            }
            QaAction::Invalid => s.episode.turn_rewards.push(0.0),
        }
        if s.episode.turn_rewards.len() >= self.cfg.max_turns {
            s.done = true;
        }
    }
}

/// An episode in progress.
#[derive(Debug, Clone, PartialEq)]
pub struct QaSession {
    pub question: Question,
    pub episode: QaEpisode,
    pub transcript: String,
    pub done: bool,
}

impl QaSession {
    pub fn new(question: Question) -> QaSession {
        let prompt = question.prompt();
        QaSession {
            episode: QaEpisode {
                segments: vec![(Role::Prompt, prompt.clone())],
                turn_rewards: Vec::new(),
                searches: 0,
                answered: false,
                correct: false,
            },
            transcript: prompt,
            question,
            done: false,
        }
    }
}

/// What a set of episodes did, on average.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QaStats {
    pub reward: f64,
    pub accuracy: f64,
    /// Accuracy on known places when the agent answers without searching: its memory.
    pub memory_accuracy: f64,
    /// Searches per episode about a known place, and about the others.
    pub searches_known: f64,
    pub searches_unknown: f64,
}

impl QaStats {
    /// The means over `sessions` (each mean over the sessions it concerns; 0 for none).
    pub fn of<'a>(sessions: impl IntoIterator<Item = &'a QaSession>) -> QaStats {
        let ss: Vec<&QaSession> = sessions.into_iter().collect();
        let n = ss.len().max(1) as f64;
        let mean = |f: &dyn Fn(&QaSession) -> Option<f64>| -> f64 {
            let v: Vec<f64> = ss.iter().filter_map(|s| f(s)).collect();
            v.iter().sum::<f64>() / v.len().max(1) as f64
        };
        let ep = |s: &QaSession| (s.question.known, s.episode.searches, s.episode.correct);
        QaStats {
            reward: ss.iter().map(|s| s.episode.total_reward() as f64).sum::<f64>() / n,
            accuracy: ss.iter().filter(|s| s.episode.correct).count() as f64 / n,
            memory_accuracy: mean(&|s| {
                let (known, searches, correct) = ep(s);
                (known && searches == 0).then_some(f64::from(u8::from(correct)))
            }),
            searches_known: mean(&|s| ep(s).0.then_some(ep(s).1 as f64)),
            searches_unknown: mean(&|s| (!ep(s).0).then_some(ep(s).1 as f64)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> (QaWorld, Question) {
        let w = QaWorld::new(FactTable::world(), QaConfig::default());
        let e = w.kb.entities()[0].to_string();
        let truth = w.kb.get(&e, "capital").unwrap().to_string();
        (w, Question { entity: e, truth, known: false })
    }

    #[test]
    fn reward_is_correct_plus_format_minus_lambda_searches() {
        let (w, q) = world();
        let lines = [format!("search[{}]", q.entity), format!("answer[{}]", q.truth)];
        let mut i = 0;
        let ep = w
            .run(&q, &mut |t: &str| -> Result<String, ()> {
                if i == 1 {
                    assert!(t.contains(&format!("capital {}", q.truth)), "the search result is in the transcript");
                }
                i += 1;
                Ok(lines[i - 1].clone())
            })
            .unwrap();
        assert_eq!(ep.turn_rewards, vec![-0.2, 1.1]);
        assert!((ep.total_reward() - 0.9).abs() < 1e-6);
        assert!(ep.correct && ep.searches == 1);
        assert_eq!(ep.segments.iter().filter(|(r, _)| *r == Role::Env).count(), 1);
    }

    #[test]
    fn wrong_invalid_and_unanswered() {
        let (w, q) = world();
        let ep = w.run(&q, &mut |_: &str| -> Result<String, ()> { Ok("answer[Nowhere]".into()) }).unwrap();
        assert!(!ep.correct && ep.answered);
        assert!((ep.total_reward() - 0.1).abs() < 1e-6, "format only");
        let ep = w.run(&q, &mut |_: &str| -> Result<String, ()> { Ok("hello".into()) }).unwrap();
        assert_eq!(ep.turn_rewards, vec![0.0; 3]);
        assert!(!ep.answered);
        assert_eq!(parse_action(" search[ A ] "), QaAction::Search("A".into()));
        assert_eq!(w.search("Nowhere"), "Obs: no result\n");
    }

    #[test]
    fn a_place_without_a_flag_is_found_by_its_capital() {
        let kb = FactTable::parse("France\tcapital\tParis\nZond\tcapital\tBris\nZond\tflag\tblue\n").unwrap();
        let w = QaWorld::new(kb, QaConfig::default());
        assert_eq!(w.search(" France "), "Obs: France capital Paris\n");
        assert_eq!(w.search("Zond"), "Obs: Zond capital Bris, flag blue\n");
    }

    #[test]
    fn stats_average_each_measure_over_the_episodes_it_concerns() {
        let (w, q) = world();
        let known = Question { known: true, ..q.clone() };
        let play = |q: &Question, lines: &[&str]| {
            let mut s = QaSession::new(q.clone());
            for l in lines {
                w.apply(&mut s, l);
            }
            s
        };
        let (search, answer) = (format!("search[{}]", q.entity), format!("answer[{}]", q.truth));
        let ss = [play(&known, &[&answer]), play(&known, &[&search, &answer]), play(&q, &[&search, "answer[Nowhere]"])];
        let st = QaStats::of(&ss);
        assert_eq!((st.accuracy, st.memory_accuracy), (2.0 / 3.0, 1.0));
        assert_eq!((st.searches_known, st.searches_unknown), (0.5, 1.0));
        assert!((st.reward - (1.1 + 0.9 - 0.1) / 3.0).abs() < 1e-6, "{st:?}");
    }
}
