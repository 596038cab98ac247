//! What to ask next: the quiz selection, the review queue, and passes.
//!
//! The method: go through the items once; after each pass, only the
//! items rated ⚠️ or ❌ in that pass come back, until every one is ✅.
//! Review combines it with FSRS: the first pass holds the items due now
//! (oldest due first); on request, every ⚠️/❌ item not yet due follows.

use chrono::{DateTime, Utc};

use super::schedule::Rating;
use super::store::Progress;
use crate::content::{Content, Level, QuizItem};

/// Items of a quiz: a track (or all), a level (or all), at most `limit`, in content order.
pub fn quiz_items(content: &Content, track: Option<u8>, level: Option<Level>, limit: Option<usize>) -> Vec<&QuizItem> {
    content
        .items()
        .filter(|i| track.is_none_or(|t| i.track == t) && level.is_none_or(|l| i.level == l))
        .take(limit.unwrap_or(usize::MAX))
        .collect()
}

/// Ids of the items due at `now`, oldest due first (only items that still
/// exist in `content`): those FSRS schedules for now, and those flagged for
/// review (a failed exercise check flags the items linked to it).
pub fn due_now(progress: &Progress, content: &Content, now: DateTime<Utc>) -> Vec<String> {
    let mut v: Vec<(DateTime<Utc>, String)> = progress
        .items
        .iter()
        .filter_map(|(id, r)| r.sched.filter(|s| s.is_due(now)).map(|s| (s.due, id.clone())))
        .collect();
    for (id, at) in &progress.flagged {
        if *at <= now && !v.iter().any(|(_, i)| i == id) {
            v.push((*at, id.clone()));
        }
    }
    v.retain(|(_, id)| content.items().any(|i| &i.id == id));
    v.sort();
    v.into_iter().map(|(_, id)| id).collect()
}

/// Ids of the items last rated ⚠️/❌ that are not yet due, soonest first.
pub fn weak_not_due(progress: &Progress, content: &Content, now: DateTime<Utc>) -> Vec<String> {
    let mut v: Vec<(DateTime<Utc>, String)> = progress
        .items
        .iter()
        .filter(|(id, r)| r.last_rating().is_some_and(Rating::comes_back) && !progress.flagged.contains_key(*id))
        .filter_map(|(id, r)| r.sched.filter(|s| !s.is_due(now)).map(|s| (s.due, id.clone())))
        .filter(|(_, id)| content.items().any(|i| &i.id == id))
        .collect();
    v.sort();
    v.into_iter().map(|(_, id)| id).collect()
}

/// A sequence of passes over item ids.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Passes {
    /// Items of the current pass.
    pub queue: Vec<String>,
    /// Position in `queue`.
    pub pos: usize,
    /// 1-based pass number.
    pub pass: usize,
    /// Items rated ⚠️/❌ in the current pass: they make the next one.
    pub again: Vec<String>,
    /// Ratings given in this session, in order.
    pub ratings: Vec<(String, Option<bool>, Rating)>,
    /// The pass each of `ratings` was given in (1-based).
    pub rating_pass: Vec<usize>,
}

impl Passes {
    pub fn new(ids: Vec<String>) -> Passes {
        Passes { queue: ids, pos: 0, pass: 1, ..Default::default() }
    }

    /// The item to ask now, if the current pass is not over.
    pub fn current(&self) -> Option<&str> {
        self.queue.get(self.pos).map(String::as_str)
    }

    /// Record the rating of the current item and move on.
    pub fn rate(&mut self, correct: Option<bool>, rating: Rating) {
        if let Some(id) = self.queue.get(self.pos).cloned() {
            if rating.comes_back() {
                self.again.push(id.clone());
            }
            self.ratings.push((id, correct, rating));
            self.rating_pass.push(self.pass);
            self.pos += 1;
        }
    }

    pub fn pass_over(&self) -> bool {
        self.pos >= self.queue.len()
    }

    /// Start the next pass with this pass's ⚠️/❌ items; false when there are none.
    pub fn next_pass(&mut self) -> bool {
        if self.again.is_empty() {
            return false;
        }
        self.queue = std::mem::take(&mut self.again);
        self.pos = 0;
        self.pass += 1;
        true
    }

    /// Append items to the current pass (review's "more"), skipping ones already queued.
    pub fn extend(&mut self, ids: Vec<String>) {
        for id in ids {
            if !self.queue[self.pos..].contains(&id) {
                self.queue.push(id);
            }
        }
    }

    /// (auto-graded correct, auto-graded total) over the first pass.
    pub fn score(&self) -> (usize, usize) {
        let first: Vec<_> = self.ratings.iter().take(self.first_pass_len()).collect();
        (first.iter().filter(|r| r.1 == Some(true)).count(), first.iter().filter(|r| r.1.is_some()).count())
    }

    fn first_pass_len(&self) -> usize {
        if self.pass == 1 {
            self.ratings.len()
        } else {
            // Ratings of pass 1 come first; its length is the number of distinct ids rated before a repeat.
            let mut seen = std::collections::HashSet::new();
            self.ratings.iter().take_while(|r| seen.insert(r.0.clone())).count()
        }
    }

    /// Per pass that has ratings, in order: (pass, count of ✅, ⚠️, ❌).
    /// Each pass's counts add up to the items rated in it; the session's
    /// [`tally`](Self::tally) counts ratings, and an item comes back in
    /// every pass until it is ✅.
    pub fn tally_by_pass(&self) -> Vec<(usize, [usize; 3])> {
        let mut out: Vec<(usize, [usize; 3])> = Vec::new();
        for ((_, _, r), &p) in self.ratings.iter().zip(&self.rating_pass) {
            if out.last().is_none_or(|(q, _)| *q != p) {
                out.push((p, [0; 3]));
            }
            let t = &mut out.last_mut().expect("just pushed").1;
            t[Rating::ALL.iter().position(|x| x == r).unwrap_or(0)] += 1;
        }
        out
    }

    /// The distinct items rated in the session.
    pub fn items_rated(&self) -> usize {
        let mut seen = std::collections::HashSet::new();
        self.ratings.iter().filter(|r| seen.insert(&r.0)).count()
    }

    /// Ids whose first rating in the session was ⚠️/❌ (an auto-graded wrong
    /// answer is one of them), in the order they were asked, with the last
    /// rating each got.
    pub fn missed(&self) -> Vec<(String, Rating)> {
        let mut out: Vec<(String, Rating)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (id, _, r) in &self.ratings {
            if seen.insert(id.clone()) && r.comes_back() {
                out.push((id.clone(), *r));
            }
        }
        for (id, last) in out.iter_mut() {
            if let Some((_, _, r)) = self.ratings.iter().rev().find(|x| &x.0 == id) {
                *last = *r;
            }
        }
        out
    }

    /// Count of ✅, ⚠️, ❌ in the session: ratings, not items (an item
    /// rated in two passes counts twice).
    pub fn tally(&self) -> [usize; 3] {
        let mut t = [0; 3];
        for (_, _, r) in &self.ratings {
            t[Rating::ALL.iter().position(|x| x == r).unwrap_or(0)] += 1;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_fuzzy_and_dont_items_come_back() {
        let mut p = Passes::new(ids(&["a", "b", "c", "d"]));
        p.rate(Some(true), Rating::Know);
        p.rate(Some(false), Rating::Dont);
        p.rate(None, Rating::Fuzzy);
        p.rate(None, Rating::Know);
        assert!(p.pass_over());
        assert!(p.next_pass());
        assert_eq!(p.pass, 2);
        assert_eq!(p.queue, ids(&["b", "c"]));
        p.rate(Some(true), Rating::Know);
        p.rate(None, Rating::Dont);
        assert!(p.next_pass());
        assert_eq!(p.queue, ids(&["c"]));
        p.rate(None, Rating::Know);
        assert!(!p.next_pass(), "all ✅: no more passes");
        assert_eq!(p.score(), (1, 2), "score counts the first pass's auto-graded items");
        assert_eq!(p.tally(), [4, 1, 2]);
        // Each pass adds up to its items; 4 items, 7 ratings.
        assert_eq!(p.tally_by_pass(), vec![(1, [2, 1, 1]), (2, [1, 0, 1]), (3, [1, 0, 0])]);
        assert_eq!(p.items_rated(), 4);
        assert_eq!(p.missed(), vec![("b".to_string(), Rating::Know), ("c".to_string(), Rating::Know)]);
    }

    #[test]
    fn review_queue_is_due_items_then_weak_ones_on_request() {
        let content = Content::embedded().unwrap();
        let items: Vec<_> = quiz_items(&content, Some(3), Some(Level::L1), Some(3));
        assert_eq!(items.len(), 3);
        assert!(items.iter().all(|i| i.track == 3 && i.level == Level::L1));
        let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 8, 0, 0).unwrap();
        let mut prog = Progress::default();
        prog.record(&items[0].id, 3, Level::L1, Some(true), Rating::Know, t0);
        prog.record(&items[1].id, 3, Level::L1, None, Rating::Fuzzy, t0);
        prog.record(&items[2].id, 3, Level::L1, Some(false), Rating::Dont, t0);
        // Right after: nothing is due; the ⚠️/❌ items are offered as "more", ❌ first.
        assert!(due_now(&prog, &content, t0).is_empty());
        assert_eq!(weak_not_due(&prog, &content, t0), vec![items[2].id.clone(), items[1].id.clone()]);
        // Hours later the ❌ item is due, a day later the ⚠️ one too; a month later all three are.
        assert_eq!(due_now(&prog, &content, t0 + Duration::hours(12)), vec![items[2].id.clone()]);
        assert_eq!(due_now(&prog, &content, t0 + Duration::days(1)), vec![items[2].id.clone(), items[1].id.clone()]);
        assert_eq!(due_now(&prog, &content, t0 + Duration::days(30)).len(), 3);
        // The ✅ item is never in "more".
        assert!(!weak_not_due(&prog, &content, t0).contains(&items[0].id));
    }
}
