//! A fact table about a fictional world (`assets/world/facts.tsv`, made by
//! `scripts/gen_world.py`): places with a capital, a population, a founding
//! year and a flag colour. The world is invented so that no model can know
//! it: the only way to answer is to call the tool.
//!
//! Two tools read it: `lookup[Entity attribute]` returns one value;
//! `search[words]` returns the facts that share the most words with the query.

use std::collections::BTreeMap;

pub(crate) const FACTS: &str = include_str!("../../assets/world/facts.tsv");

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub entity: String,
    pub attribute: String,
    pub value: String,
}

#[derive(Debug, Clone)]
pub struct FactTable {
    facts: Vec<Fact>,
    index: BTreeMap<(String, String), usize>,
}

impl FactTable {
    /// The shipped world.
    pub fn world() -> FactTable {
        FactTable::parse(FACTS).expect("the shipped fact table parses")
    }

    /// Parse `entity<TAB>attribute<TAB>value` lines; `#` starts a comment line.
    pub fn parse(text: &str) -> Result<FactTable, String> {
        let mut table = FactTable { facts: Vec::new(), index: BTreeMap::new() };
        table.extend(text)?;
        Ok(table)
    }

    /// Add the facts of `text` (lines as in [`FactTable::parse`]); a later
    /// fact about the same entity and attribute is the one `get` returns.
    pub fn extend(&mut self, text: &str) -> Result<(), String> {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let parts: Vec<&str> = line.split('\t').collect();
            let [entity, attribute, value] = parts.as_slice() else {
                return Err(format!("line {}: expected entity, attribute and value separated by tabs", i + 1));
            };
            self.index.insert((entity.to_lowercase(), attribute.to_lowercase()), self.facts.len());
            self.facts.push(Fact {
                entity: entity.to_string(),
                attribute: attribute.to_string(),
                value: value.to_string(),
            });
        }
        Ok(())
    }

    pub fn facts(&self) -> &[Fact] {
        &self.facts
    }

    /// Entities in file order.
    pub fn entities(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for f in &self.facts {
            if out.last() != Some(&f.entity.as_str()) {
                out.push(&f.entity);
            }
        }
        out
    }

    pub fn get(&self, entity: &str, attribute: &str) -> Option<&str> {
        self.index.get(&(entity.to_lowercase(), attribute.to_lowercase())).map(|&i| self.facts[i].value.as_str())
    }

    /// The `lookup` tool: input `"attribute of Entity"` or `"Entity attribute"`.
    pub fn lookup(&self, input: &str) -> Result<String, String> {
        let words: Vec<&str> = input.split_whitespace().collect();
        let (entity, attribute) = match words.as_slice() {
            [attribute, "of", entity] => (*entity, *attribute),
            [entity, attribute] => (*entity, *attribute),
            _ => return Err(format!("lookup expects \"attribute of Place\", got \"{}\"", input.trim())),
        };
        self.get(entity, attribute).map(str::to_string).ok_or_else(|| format!("no fact for {attribute} of {entity}"))
    }

    /// The `search` tool: up to `k` facts sharing the most words with the query.
    pub fn search(&self, query: &str, k: usize) -> Vec<&Fact> {
        let q: Vec<String> = query.split_whitespace().map(|w| w.to_lowercase()).collect();
        let mut scored: Vec<(usize, usize)> = self
            .facts
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let score =
                    q.iter().filter(|w| **w == f.entity.to_lowercase() || **w == f.attribute.to_lowercase()).count();
                (score, i)
            })
            .filter(|(s, _)| *s > 0)
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().take(k).map(|(_, i)| &self.facts[i]).collect()
    }
}

/// Real countries and their capitals: a real model's "known places".
pub const REAL_CAPITALS: &str = "France\tcapital\tParis
Germany\tcapital\tBerlin
Italy\tcapital\tRome
Spain\tcapital\tMadrid
Japan\tcapital\tTokyo
China\tcapital\tBeijing
Russia\tcapital\tMoscow
Egypt\tcapital\tCairo
Greece\tcapital\tAthens
Portugal\tcapital\tLisbon
Ireland\tcapital\tDublin
Norway\tcapital\tOslo
Sweden\tcapital\tStockholm
Austria\tcapital\tVienna
Poland\tcapital\tWarsaw
Kenya\tcapital\tNairobi
Peru\tcapital\tLima
Cuba\tcapital\tHavana
Thailand\tcapital\tBangkok
Canada\tcapital\tOttawa
Australia\tcapital\tCanberra
Turkey\tcapital\tAnkara
England\tcapital\tLondon
Argentina\tcapital\tBuenos Aires
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_loads_with_four_facts_per_place() {
        let w = FactTable::world();
        assert_eq!(w.facts().len() % 4, 0);
        assert!(w.entities().len() >= 200);
        let e = w.entities()[0].to_string();
        let pop = w.lookup(&format!("{e} population")).unwrap();
        assert!(pop.parse::<u32>().is_ok());
        assert!(w.lookup(&format!("{} capital", e.to_lowercase())).is_ok(), "case-insensitive");
        assert_eq!(w.lookup(&format!("population of {e}")).unwrap(), pop, "both word orders");
    }

    #[test]
    fn errors_and_search() {
        let w = FactTable::world();
        assert!(w.lookup("Nowhere population").unwrap_err().contains("no fact"));
        assert!(w.lookup("justoneword").is_err());
        let e = w.entities()[3];
        let hits = w.search(&format!("{e} capital"), 3);
        assert_eq!(hits[0].entity, e);
        assert_eq!(hits[0].attribute, "capital");
        assert!(FactTable::parse("a\tb").is_err());
    }

    #[test]
    fn extending_a_table_adds_facts_and_later_ones_win() {
        let mut t = FactTable::parse("Vesk\tcapital\tTolbri\n").unwrap();
        t.extend("France\tcapital\tParis\nVesk\tcapital\tNilbu\n").unwrap();
        assert_eq!(t.facts().len(), 3);
        assert_eq!((t.get("france", "capital"), t.get("Vesk", "capital")), (Some("Paris"), Some("Nilbu")));
        assert!(t.extend("bad line").unwrap_err().contains("line 1"));
    }
}
