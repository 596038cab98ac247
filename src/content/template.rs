//! Numeric templates: a checked numeric item whose inputs are drawn afresh
//! when it comes back, so that it cannot be answered from memory of the number.
//!
//! ```toml
//! [item.template]
//! prompt = "Rewards [{rewards}], γ = {gamma}: what is G_0? (3 decimals)"
//! explanation = "G_1 = {g1}; G_0 = {rewards} … = {answer}."
//! ranges = { rewards = [-0.2, 1.2, 0.1], gamma = [0.5, 0.95, 0.05] }   # [min, max, step]
//! derived = { g1 = { index = 1 } }   # the check again with these arguments changed
//! ```
//!
//! A range names an argument of the item's `[item.check]`: a number is drawn
//! as `min + k·step`, a list draws each entry so (its length kept), an integer
//! argument stays an integer. `{name}` in the prompt or explanation is the
//! drawn argument (a list as `a, b, c`), `{answer}` the recomputed answer,
//! `{x}` for a `derived` name the check recomputed with its table's arguments
//! in place of the drawn ones. The first showing keeps the authored item.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::recompute;
use crate::ml::rng::Rng;

/// How many draws `validate` tries for each template.
pub const DRAWS: u64 = 200;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub prompt: String,
    #[serde(default)]
    pub explanation: Option<String>,
    pub ranges: BTreeMap<String, [f64; 3]>,
    #[serde(default)]
    pub derived: BTreeMap<String, toml::Table>,
    /// Decimals the English prompt asks for (set at load; the answer is rounded to them).
    #[serde(skip)]
    pub decimals: Option<u32>,
}

/// The seed of one draw: FNV-1a of the item id, the showing and the retry.
fn seed(id: &str, showing: u64, retry: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes().chain(showing.to_le_bytes()).chain(retry.to_le_bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Decimals of a step as written: 0.05 → 2, 1 → 0.
fn step_decimals(step: f64) -> usize {
    let s = format!("{step}");
    s.split_once('.').map_or(0, |(_, d)| d.len())
}

/// A number as the prompts write it: fixed decimals, a true minus sign.
pub fn show(x: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, x);
    let s = if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') { s[1..].to_string() } else { s };
    s.replacen('-', "−", 1)
}

/// An expected numeric answer as the learner reads it after answering: to one
/// decimal more than its tolerance, the zeros past the tolerance's own
/// decimals dropped (0.48 ± 0.005 → "0.480", 0.9347 ± 0.005 → "0.9347",
/// 1234 ± 1 → "1234"), so it reads as the explanation writes the number,
/// not as a float prints ("0.48").
pub fn show_expected(value: f64, tolerance: f64) -> String {
    let d = step_decimals(tolerance);
    let s = show(value, d + 1);
    match s.strip_suffix('0') {
        Some(t) if d == 0 => t.trim_end_matches('.').to_string(),
        Some(t) => t.to_string(),
        None => s,
    }
}

/// A computed number: `decimals` if the prompt asks for them, else six
/// significant figures (the checks compute in f32: 19.343002 shows as
/// 19.343), trailing zeros dropped.
fn show_computed(x: f64, decimals: Option<u32>) -> String {
    match decimals {
        Some(d) => show(x, d as usize),
        None => {
            let magnitude = if x == 0.0 { 0 } else { x.abs().log10().floor() as i32 };
            let s = show(x, (5 - magnitude).clamp(0, 12) as usize);
            if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                s
            }
        }
    }
}

/// Check that a template fits its item (at load): every range names a
/// numeric argument of the check, ranges are well formed.
pub fn check_shape(t: &Template, check: Option<&toml::Table>) -> Result<(), String> {
    let check = check.ok_or("a `template` needs an `[item.check]` to recompute its answer")?;
    if t.ranges.is_empty() {
        return Err("a `template` needs at least one entry in `ranges`".into());
    }
    for (name, [lo, hi, step]) in &t.ranges {
        if !(lo.is_finite() && hi.is_finite() && step.is_finite() && *step > 0.0 && lo <= hi) {
            return Err(format!("template range `{name}` must be [min, max, step] with min ≤ max and step > 0"));
        }
        if (hi - lo) / step > 1e6 {
            return Err(format!("template range `{name}` has more than a million steps"));
        }
        let integral = |x: f64| x.fract() == 0.0;
        match check.get(name) {
            Some(toml::Value::Integer(_)) if !(integral(*lo) && integral(*step)) => {
                return Err(format!("template range `{name}` draws an integer argument: whole min and step"))
            }
            Some(toml::Value::Integer(_) | toml::Value::Float(_)) => {}
            Some(toml::Value::Array(a))
                if !a.is_empty() && a.iter().all(|v| matches!(v, toml::Value::Float(_) | toml::Value::Integer(_))) => {}
            Some(_) => return Err(format!("template range `{name}` names a check argument that is not numbers")),
            None => return Err(format!("template range `{name}` names no argument of the check")),
        }
    }
    for name in t.derived.keys() {
        if name == "answer" || t.ranges.contains_key(name) {
            return Err(format!("template derived `{name}` hides another placeholder"));
        }
    }
    Ok(())
}

/// The check's arguments drawn for one seed.
fn draw(t: &Template, check: &toml::Table, rng: &mut Rng) -> toml::Table {
    let mut out = check.clone();
    for (name, [lo, hi, step]) in &t.ranges {
        let n = ((hi - lo) / step + 1e-9).floor() as u64 + 1;
        let dec = step_decimals(*step);
        let mut one = |as_int: bool| {
            let x = lo + rng.below(n as usize) as f64 * step;
            if as_int {
                toml::Value::Integer(x.round() as i64)
            } else {
                toml::Value::Float(show(x, dec).replace('−', "-").parse().unwrap_or(x))
            }
        };
        let v = match check.get(name) {
            Some(toml::Value::Integer(_)) => one(true),
            Some(toml::Value::Array(a)) => toml::Value::Array(
                a.iter().map(|e| one(matches!(e, toml::Value::Integer(_)) && step.fract() == 0.0)).collect(),
            ),
            _ => one(false),
        };
        out.insert(name.clone(), v);
    }
    out
}

/// A drawn argument as the prompt shows it.
fn show_value(v: &toml::Value, dec: usize) -> String {
    match v {
        toml::Value::Integer(i) => show(*i as f64, 0),
        toml::Value::Float(x) => show(*x, dec),
        toml::Value::Array(a) => a.iter().map(|e| show_value(e, dec)).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// Fill `{name}` placeholders; an unknown name stays as written (and `validate` reports it).
fn fill(text: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = text.to_string();
    for (k, v) in values {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// The placeholders `{name}` a text uses.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) if !after[..j].is_empty() && after[..j].chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                out.push(after[..j].to_string());
                rest = &after[j + 1..];
            }
            _ => rest = after,
        }
    }
    out.sort();
    out.dedup();
    out
}

/// One showing of a template: the prompt and explanation filled with drawn
/// inputs, the answer recomputed from them (rounded to the decimals the
/// prompt asks for), and the inputs themselves (the item's new check).
pub struct Drawn {
    pub prompt: String,
    pub explanation: Option<String>,
    pub value: f64,
    pub args: toml::Table,
}

/// Inputs drawn for one seed, the answer recomputed.
fn draw_at(t: &Template, check: &toml::Table, seed: u64) -> Result<Drawn, String> {
    let args = draw(t, check, &mut Rng::new(seed));
    let raw = recompute::compute(&args)?;
    if !raw.is_finite() {
        return Err(format!("the drawn inputs give a non-finite answer ({raw})"));
    }
    let value = match t.decimals {
        Some(d) => (raw * 10f64.powi(d as i32)).round() / 10f64.powi(d as i32),
        None => (raw * 1e6).round() / 1e6,
    };
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    for (name, [_, _, step]) in &t.ranges {
        values.insert(name.clone(), show_value(&args[name], step_decimals(*step)));
    }
    values.insert("answer".into(), show_computed(value, t.decimals));
    for (name, over) in &t.derived {
        let mut a = args.clone();
        a.extend(over.clone());
        let x = recompute::compute(&a).map_err(|e| format!("derived `{name}`: {e}"))?;
        values.insert(name.clone(), show_computed(x, None));
    }
    let explanation = t.explanation.as_ref().map(|e| fill(e, &values));
    Ok(Drawn { prompt: fill(&t.prompt, &values), explanation, value, args })
}

/// The `showing`-th showing of the item `id` (showing ≥ 1; the first, 0,
/// keeps the authored numbers): fresh inputs seeded by the id and the
/// showing. A draw the check refuses is drawn again (a few times; `validate`
/// makes sure that is rare); `None` when every try was refused.
pub fn drawn(t: &Template, check: &toml::Table, id: &str, showing: u64) -> Option<Drawn> {
    (0..8).find_map(|r| draw_at(t, check, seed(id, showing, r)).ok())
}

/// What `validate` says about the template of item `id`: every placeholder
/// is defined, and every one of [`DRAWS`] showings recomputes to a finite
/// answer.
pub fn problems(t: &Template, check: &toml::Table, id: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut known: Vec<String> = t.ranges.keys().chain(t.derived.keys()).cloned().collect();
    known.push("answer".into());
    for text in std::iter::once(&t.prompt).chain(t.explanation.as_ref()) {
        for p in placeholders(text) {
            if !known.contains(&p) {
                out.push(format!("template placeholder {{{p}}} is not a range, a derived value or {{answer}}"));
            }
        }
    }
    if !out.is_empty() {
        return out;
    }
    for showing in 1..=DRAWS {
        if drawn(t, check, id, showing).is_none() {
            let e = draw_at(t, check, seed(id, showing, 0)).err().unwrap_or_default();
            out.push(format!("template: showing {showing} draws no inputs the check accepts ({e})"));
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expected_answer_reads_to_its_tolerance() {
        assert_eq!(show_expected(0.48, 0.005), "0.480");
        assert_eq!(show_expected(0.934_759_3, 0.005), "0.9348");
        assert_eq!(show_expected(1.25, 0.01), "1.25");
        assert_eq!(show_expected(1234.0, 1.0), "1234");
        assert_eq!(show_expected(1234.5, 1.0), "1234.5");
        assert_eq!(show_expected(-0.36, 0.01), "−0.36");
    }

    #[test]
    fn numbers_are_shown_as_the_prompts_write_them() {
        assert_eq!(show(-0.1, 1), "−0.1");
        assert_eq!(show(-0.0001, 2), "0.00");
        assert_eq!(show_computed(0.98000001, None), "0.98");
        assert_eq!(show_computed(65536.0, None), "65536");
        assert_eq!(show_computed(0.7, Some(3)), "0.700");
        assert_eq!(show_computed(19.343002, None), "19.343");
        assert_eq!(show_computed(241664.0, None), "241664");
        assert_eq!(show_computed(0.000123456789, None), "0.000123457");
        assert_eq!(show_computed(-2.5, None), "−2.5");
        assert_eq!(placeholders("a {x} {y_1} {} {not a} {x}"), vec!["x", "y_1"]);
    }
}
