//! Keep-best bookkeeping for a Self-Refine episode (Madaan et al.,
//! arXiv:2303.17651): a draft and its revisions each get a *selection* score
//! (the one the loop trusts: the verifier's, or the model's own opinion) and
//! a *true* score (the verifier's, measured whatever the loop trusted). The
//! episode keeps the version with the best selection score:
//!
//! ```text
//! b_t = argmax_{k ≤ t} select(y_k)        kept_true_t = true(y_{b_t})
//! ```
//!
//! With the verifier as selector, `kept_true` can never fall. With a
//! self-judging selector it can: the loop swaps a right answer for a wrong
//! one it likes better — the failure [`KeepBest::is_monotone`] detects.
//!
//! ```
//! use agentlab::continual::KeepBest;
//! let mut e = KeepBest::new(0.4, 0.4);
//! for s in [0.7, 0.5, 0.8, 0.6] {
//!     e.push(s, s);
//! }
//! assert_eq!(e.kept_true, vec![0.4, 0.7, 0.7, 0.8, 0.8]);
//! assert!(e.is_monotone());
//! ```

#[derive(Debug, Clone, PartialEq)]
pub struct KeepBest {
    /// Index of the kept version (0 = the draft).
    pub best: usize,
    pub select: Vec<f64>,
    pub truth: Vec<f64>,
    /// True score of the kept version after each version.
    pub kept_true: Vec<f64>,
}

impl KeepBest {
    pub fn new(select: f64, truth: f64) -> KeepBest {
        KeepBest { best: 0, select: vec![select], truth: vec![truth], kept_true: vec![truth] }
    }

    /// Add a revision; returns true if it becomes the kept version (strictly better selection score).
    pub fn push(&mut self, select: f64, truth: f64) -> bool {
        self.select.push(select);
        self.truth.push(truth);
        let better = select > self.select[self.best];
        if better {
            self.best = self.select.len() - 1;
        }
        self.kept_true.push(self.truth[self.best]);
        better
    }

    pub fn first_true(&self) -> f64 {
        self.truth[0]
    }

    pub fn final_true(&self) -> f64 {
        self.truth[self.best]
    }

    /// The true score of the latest version after round `t` (an episode that
    /// stopped earlier keeps its last version).
    pub fn latest_true_at(&self, t: usize) -> f64 {
        self.truth[t.min(self.truth.len() - 1)]
    }

    /// The true score of the kept version after round `t`.
    pub fn kept_true_at(&self, t: usize) -> f64 {
        self.kept_true[t.min(self.kept_true.len() - 1)]
    }

    /// The best selection score after round `t`: what the loop believes its
    /// kept version scores.
    pub fn believed_at(&self, t: usize) -> f64 {
        self.select[..=t.min(self.select.len() - 1)].iter().cloned().fold(0.0, f64::max)
    }

    /// The kept version's true score never fell during the episode.
    pub fn is_monotone(&self) -> bool {
        self.kept_true.windows(2).all(|w| w[1] >= w[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_self_judge_can_keep_a_worse_answer() {
        // The model likes its second version more, but the verifier says it is worse.
        let mut e = KeepBest::new(0.5, 1.0);
        assert!(e.push(1.0, 0.25));
        assert_eq!(e.final_true(), 0.25);
        assert!(!e.is_monotone());
        // After the episode stopped, round 5 reads its last version.
        assert_eq!((e.latest_true_at(5), e.kept_true_at(0), e.believed_at(5)), (0.25, 1.0, 1.0));
        // Ties keep the earlier version.
        let mut t = KeepBest::new(0.5, 0.5);
        assert!(!t.push(0.5, 0.9));
        assert_eq!(t.best, 0);
    }
}
