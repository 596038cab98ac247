//! A world of thousands of tools for tool retrieval, and the queries that ask
//! for them — deterministic from a seed.
//!
//! A tool is a verb × an object × a qualifier (`get_weather_forecast`), with a
//! one-line description. Tools that share the verb and the object and differ
//! only in the qualifier (`get_weather_forecast` vs `get_weather_history`) are
//! *near-duplicates*: a family. A query names the three slots, each either by
//! the tool's own word or (with probability `synonym_rate`) by a synonym that
//! no tool text contains, among filler words: `could you fetch my climate
//! outlook`. So lexical overlap between a query and its tool is partial, and
//! at `synonym_rate = 1` it is none at all.
//!
//! Whole families are held out ([`ToolWorld::held_out`]): their tools are
//! never trained on, only their words are seen, in other combinations.

use crate::ml::rng::Rng;

/// A word of a tool's name and the synonyms a query may use instead.
pub type Slot = (&'static str, &'static [&'static str]);

/// Verbs, each with three query-only synonyms.
pub const VERBS: &[Slot] = &[
    ("get", &["fetch", "retrieve", "obtain"]),
    ("create", &["make", "add", "generate"]),
    ("delete", &["remove", "erase", "destroy"]),
    ("update", &["change", "modify", "edit"]),
    ("list", &["enumerate", "browse", "catalog"]),
    ("search", &["find", "seek", "hunt"]),
    ("send", &["deliver", "dispatch", "transmit"]),
    ("cancel", &["abort", "revoke", "void"]),
    ("schedule", &["plan", "arrange", "slot"]),
    ("export", &["download", "save", "extract"]),
    ("share", &["forward", "publish", "distribute"]),
    ("count", &["tally", "total", "measure"]),
];

/// Objects, each with two query-only synonyms.
pub const OBJECTS: &[Slot] = &[
    ("weather", &["climate", "temperature"]),
    ("invoice", &["bill", "charge"]),
    ("email", &["mail", "inbox"]),
    ("event", &["appointment", "gathering"]),
    ("flight", &["plane", "airfare"]),
    ("hotel", &["lodging", "accommodation"]),
    ("order", &["purchase", "cart"]),
    ("payment", &["transaction", "transfer"]),
    ("contact", &["person", "acquaintance"]),
    ("document", &["paper", "doc"]),
    ("file", &["attachment", "upload"]),
    ("photo", &["picture", "image"]),
    ("playlist", &["mixtape", "setlist"]),
    ("song", &["track", "tune"]),
    ("message", &["text", "chat"]),
    ("ticket", &["issue", "incident"]),
    ("task", &["todo", "chore"]),
    ("note", &["memo", "jotting"]),
    ("reminder", &["alert", "nudge"]),
    ("recipe", &["dish", "meal"]),
    ("stock", &["equity", "ticker"]),
    ("account", &["profile", "login"]),
    ("user", &["member", "customer"]),
    ("report", &["analysis", "writeup"]),
    ("meeting", &["call", "conference"]),
    ("package", &["parcel", "shipment"]),
    ("car", &["vehicle", "auto"]),
    ("restaurant", &["diner", "eatery"]),
    ("movie", &["film", "cinema"]),
    ("book", &["novel", "ebook"]),
    ("news", &["headlines", "articles"]),
    ("alarm", &["wakeup", "buzzer"]),
    ("budget", &["allowance", "spending"]),
    ("expense", &["cost", "outlay"]),
    ("device", &["gadget", "hardware"]),
    ("password", &["passphrase", "credential"]),
    ("folder", &["directory", "binder"]),
    ("subscription", &["membership", "renewal"]),
    ("review", &["rating", "feedback"]),
    ("route", &["directions", "path"]),
];

/// Qualifiers — what tells the tools of a family apart — each with three
/// query-only synonyms.
pub const QUALIFIERS: &[Slot] = &[
    ("forecast", &["prediction", "outlook", "upcoming"]),
    ("history", &["past", "previous", "earlier"]),
    ("summary", &["overview", "digest", "recap"]),
    ("details", &["specifics", "info", "particulars"]),
    ("status", &["state", "progress", "condition"]),
    ("latest", &["newest", "recent", "current"]),
    ("daily", &["everyday", "routine", "regular"]),
    ("archived", &["stored", "old", "backup"]),
];

/// Words around the slots of a query (no tool text has them).
pub const FILLERS: &[&str] =
    &["please", "can", "you", "i", "need", "want", "my", "me", "could", "help", "with", "would", "like", "some", "now"];

/// The words of every description besides the slots.
const DESCRIPTION: &[&str] = &["tool", "to", "the", "of", "a"];

/// One tool: indices into [`VERBS`], [`OBJECTS`], [`QUALIFIERS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tool {
    pub verb: usize,
    pub object: usize,
    pub qualifier: usize,
}

impl Tool {
    /// `get_weather_forecast`.
    pub fn name(&self) -> String {
        format!("{}_{}_{}", VERBS[self.verb].0, OBJECTS[self.object].0, QUALIFIERS[self.qualifier].0)
    }

    /// What a retriever reads: the name's words and the description.
    pub fn text(&self) -> String {
        let (v, o, q) = (VERBS[self.verb].0, OBJECTS[self.object].0, QUALIFIERS[self.qualifier].0);
        format!("{} tool to {v} the {q} of a {o}", self.name())
    }

    /// How many of the three slots two tools share.
    pub fn shared_slots(&self, other: &Tool) -> usize {
        usize::from(self.verb == other.verb)
            + usize::from(self.object == other.object)
            + usize::from(self.qualifier == other.qualifier)
    }

    /// Two of the three slots the same, one different: a near-duplicate
    /// (`get_weather_forecast` vs `get_weather_history`, `list_weather_forecast`
    /// or `get_stock_forecast`).
    pub fn near_duplicate_of(&self, other: &Tool) -> bool {
        self.shared_slots(other) == 2
    }
}

/// The words of a text, as both retrievers see them: split at spaces and `_`.
pub fn words(text: &str) -> Vec<&str> {
    text.split([' ', '_']).filter(|w| !w.is_empty()).collect()
}

/// The tools (verb-major, qualifier fastest) and which are held out.
#[derive(Debug, Clone)]
pub struct ToolWorld {
    pub tools: Vec<Tool>,
    pub n_qualifiers: usize,
    /// `held_out[i]`: tool `i` belongs to a held-out family.
    pub held_out: Vec<bool>,
}

impl ToolWorld {
    /// The first `verbs`, `objects` and `qualifiers` of the word lists, every
    /// combination a tool; a share `holdout` of the verb-object families
    /// (drawn from `rng`) held out.
    pub fn new(verbs: usize, objects: usize, qualifiers: usize, holdout: f64, rng: &mut Rng) -> ToolWorld {
        let (verbs, objects, qualifiers) =
            (verbs.min(VERBS.len()), objects.min(OBJECTS.len()), qualifiers.min(QUALIFIERS.len()));
        let mut families: Vec<usize> = (0..verbs * objects).collect();
        rng.shuffle(&mut families);
        let n_held = ((families.len() as f64 * holdout).round() as usize).min(families.len());
        let mut held_family = vec![false; verbs * objects];
        for &f in &families[..n_held] {
            held_family[f] = true;
        }
        let mut tools = Vec::new();
        let mut held_out = Vec::new();
        for verb in 0..verbs {
            for object in 0..objects {
                for qualifier in 0..qualifiers {
                    tools.push(Tool { verb, object, qualifier });
                    held_out.push(held_family[verb * objects + object]);
                }
            }
        }
        ToolWorld { tools, n_qualifiers: qualifiers, held_out }
    }

    /// Indices of the tools that may be trained on.
    pub fn train_ids(&self) -> Vec<usize> {
        (0..self.tools.len()).filter(|&i| !self.held_out[i]).collect()
    }

    /// Indices of the held-out tools.
    pub fn held_ids(&self) -> Vec<usize> {
        (0..self.tools.len()).filter(|&i| self.held_out[i]).collect()
    }

    /// The other tools of tool `i`'s family (same verb and object).
    pub fn siblings(&self, i: usize) -> Vec<usize> {
        let base = i - i % self.n_qualifiers;
        (base..base + self.n_qualifiers).filter(|&j| j != i).collect()
    }

    /// Tool `i`'s near-duplicates: every tool that differs from it in one slot.
    pub fn near_duplicates(&self, i: usize) -> Vec<usize> {
        (0..self.tools.len()).filter(|&j| self.tools[j].near_duplicate_of(&self.tools[i])).collect()
    }

    /// Every word a tool text or a query can hold (tool words first).
    pub fn vocabulary() -> Vec<&'static str> {
        let mut v: Vec<&'static str> = Vec::new();
        for slots in [VERBS, OBJECTS, QUALIFIERS] {
            v.extend(slots.iter().map(|s| s.0));
        }
        v.extend(DESCRIPTION);
        for slots in [VERBS, OBJECTS, QUALIFIERS] {
            v.extend(slots.iter().flat_map(|s| s.1.iter().copied()));
        }
        v.extend(FILLERS);
        v
    }
}

/// A query for `tool`: each slot word replaced by a random synonym with
/// probability `synonym_rate`, the three in a random order, one to three
/// filler words around them.
pub fn query(tool: &Tool, synonym_rate: f64, rng: &mut Rng) -> String {
    let mut pick = |slot: &Slot| -> &'static str {
        if rng.bool(synonym_rate) {
            slot.1[rng.below(slot.1.len())]
        } else {
            slot.0
        }
    };
    let mut parts: Vec<&str> =
        vec![pick(&VERBS[tool.verb]), pick(&QUALIFIERS[tool.qualifier]), pick(&OBJECTS[tool.object])];
    rng.shuffle(&mut parts);
    let fillers = 1 + rng.below(3);
    for _ in 0..fillers {
        let at = rng.below(parts.len() + 1);
        parts.insert(at, FILLERS[rng.below(FILLERS.len())]);
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_means_one_thing() {
        let v = ToolWorld::vocabulary();
        let mut sorted = v.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), v.len(), "a word is in two lists");
    }

    #[test]
    fn families_are_held_out_whole_and_queries_use_synonyms() {
        let w = ToolWorld::new(12, 40, 8, 0.2, &mut Rng::new(1));
        assert_eq!(w.tools.len(), 3840);
        assert_eq!(w.held_ids().len(), 96 * 8);
        for i in w.held_ids() {
            assert!(w.siblings(i).iter().all(|&j| w.held_out[j] && w.tools[j].near_duplicate_of(&w.tools[i])));
        }
        assert_eq!(w.tools[1].name(), "get_weather_history");
        let t = w.tools[0];
        let all_syn = query(&t, 1.0, &mut Rng::new(3));
        let text = t.text();
        let tool_words = words(&text);
        assert!(words(&all_syn).iter().all(|w| !tool_words.contains(w)), "{all_syn}");
        let none = query(&t, 0.0, &mut Rng::new(3));
        for w in ["get", "weather", "forecast"] {
            assert!(words(&none).contains(&w), "{none}");
        }
    }
}
