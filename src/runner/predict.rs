//! Predictions and breaking settings as a run meets them, with no UI: which
//! predictions a preset asks, what a finished run measured for each, how an
//! answer and a measured value read, and the parameters a breaking setting
//! runs with. The drill screen and `agentlab drill run --predict` share them.

use chrono::{DateTime, Utc};

use crate::content::drill_meta::{BreakSpec, PredictKind, PredictionSpec};
use crate::content::{DrillMeta, ParamValue};
use crate::drills::{fmt_value, Report};
use crate::progress::store::PredictionRecord;

/// The predictions a run of `preset` asks: those declared for the preset,
/// and for one answered by a claim, only where that claim applies to it.
pub fn for_preset<'a>(meta: &'a DrillMeta, preset: &str) -> Vec<&'a PredictionSpec> {
    meta.predictions
        .iter()
        .filter(|p| p.applies_to(preset))
        .filter(|p| match &p.claim {
            Some(c) => meta.claim(c).is_some_and(|c| c.applies_to(preset)),
            None => true,
        })
        .collect()
}

/// What a finished run measured for `spec`: its claim's measured value, or
/// the last logged value of its metric. `None` when the run did not measure it.
pub fn measured(spec: &PredictionSpec, report: &Report) -> Option<f64> {
    let v = match (&spec.claim, &spec.metric) {
        (Some(c), _) => report.claims.iter().find(|r| &r.id == c).map(|r| r.measured),
        (None, Some(m)) => report.finals.get(m).copied(),
        (None, None) => None,
    };
    v.filter(|v| v.is_finite())
}

/// An answer as the learner gave it: the choice's text, or the number.
pub fn answer_text(spec: &PredictionSpec, answer: f64) -> String {
    match spec.kind {
        PredictKind::Choice => spec
            .choices
            .get(answer as usize)
            .cloned()
            .unwrap_or_else(|| crate::t!("run-choice", n = answer.to_string())),
        PredictKind::Number => trim_number(answer),
    }
}

/// A measured value as shown: "0.0130 (nothing or less)" for a choice,
/// the value for a number.
pub fn measured_text(spec: &PredictionSpec, measured: f64) -> String {
    match spec.kind {
        PredictKind::Choice => match spec.choices.get(spec.choice_of(measured)) {
            Some(c) => format!("{} ({c})", fmt_value(measured)),
            None => fmt_value(measured),
        },
        PredictKind::Number => fmt_value(measured),
    }
}

/// "you predicted a little · measured 0.0130 (nothing or less) — wrong".
pub fn verdict_line(spec: &PredictionSpec, answer: f64, measured: f64) -> String {
    let (answer, measured, right) =
        (answer_text(spec, answer), measured_text(spec, measured), spec.is_right(answer, measured));
    match right {
        true => crate::t!("run-verdict-right", answer = answer, measured = measured),
        false => crate::t!("run-verdict-wrong", answer = answer, measured = measured),
    }
}

/// A number as typed, without trailing zeros ("0.3", not "0.3000").
fn trim_number(x: f64) -> String {
    let s = format!("{x}");
    if s.len() > 12 {
        fmt_value(x)
    } else {
        s
    }
}

/// The record of a resolved prediction.
pub fn record(
    meta: &DrillMeta,
    preset: &str,
    spec: &PredictionSpec,
    answer: f64,
    measured: f64,
    at: DateTime<Utc>,
) -> PredictionRecord {
    PredictionRecord {
        drill: meta.id.clone(),
        preset: preset.to_string(),
        id: spec.id.clone(),
        track: meta.track,
        answer: answer_text(spec, answer),
        measured,
        right: spec.is_right(answer, measured),
        at,
    }
}

/// One breaking setting of a drill: the claim it breaks and the setting.
#[derive(Debug, Clone, PartialEq)]
pub struct Breaker {
    pub claim: String,
    pub set: BreakSpec,
}

impl Breaker {
    /// "critic = self, k = 2"
    pub fn label(&self) -> String {
        self.set.set.iter().map(|(k, v)| format!("{k} = {}", toml_value(v))).collect::<Vec<_>>().join(", ")
    }
}

fn toml_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The breaking settings of the claims a run of `preset` measures, in the
/// drill's order (observations are not claims: nothing to break).
pub fn breakers(meta: &DrillMeta, preset: &str) -> Vec<Breaker> {
    meta.claims
        .iter()
        .filter(|c| c.applies_to(preset) && !c.observation_for(preset))
        .flat_map(|c| c.breaks_with.iter().map(|b| Breaker { claim: c.id.clone(), set: b.clone() }))
        .collect()
}

/// `params` with a breaking setting applied over them, each value checked
/// against its parameter; `Err` says which does not fit.
pub fn apply_break(
    meta: &DrillMeta,
    params: &std::collections::BTreeMap<String, ParamValue>,
    set: &toml::Table,
) -> Result<std::collections::BTreeMap<String, ParamValue>, String> {
    let mut out = params.clone();
    for (k, v) in set {
        let spec = meta.param(k).ok_or_else(|| format!("the breaking setting names \"{k}\", which is no parameter"))?;
        out.insert(k.clone(), spec.validate(v)?);
    }
    super::check_params(meta, &out)?;
    Ok(out)
}

/// Why claim `claim` failed in a run of `preset` made with `params`: the
/// settings that differ from the preset, "lr = 1e-7 (preset 1e-4)", and
/// where the claim's `breaks_with` lists the setting the run applied (every
/// key it sets has the run's value), its measured effect. `None` when the
/// run kept the preset's values (a failure then is the seed's, not a
/// setting's) or the preset is unknown.
pub fn because(
    meta: &DrillMeta,
    preset: &str,
    params: &std::collections::BTreeMap<String, ParamValue>,
    claim: &str,
) -> Option<String> {
    let defaults = meta.preset_values(preset).ok()?;
    let changed: Vec<String> = meta
        .params
        .iter()
        .filter_map(|p| {
            let (now, was) = (params.get(&p.key)?, defaults.get(&p.key)?);
            (now != was).then(|| {
                crate::t!(
                    "drill-because-setting",
                    key = p.key.as_str(),
                    value = now.to_string(),
                    preset = was.to_string()
                )
            })
        })
        .collect();
    if changed.is_empty() {
        return None;
    }
    let applied = |b: &BreakSpec| {
        b.set.iter().all(|(k, v)| {
            meta.param(k).and_then(|spec| spec.validate(v).ok()).is_some_and(|v| params.get(k) == Some(&v))
        })
    };
    let changed = changed.join(", ");
    Some(match meta.claim(claim).and_then(|c| c.breaks_with.iter().find(|b| applied(b))) {
        Some(b) => {
            let set = Breaker { claim: claim.to_string(), set: b.clone() }.label();
            crate::t!("drill-because-measured", changed = changed, set = set, effect = b.effect.as_str())
        }
        None => crate::t!("drill-because", changed = changed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_explained_by_the_settings_changed_and_their_measured_effect() {
        let toml = "id = \"d\"\ntitle = \"t\"\ntrack = 0\nobjective = \"o\"\n\
            [[param]]\nkey = \"lr\"\nkind = \"float\"\ndefault = 0.002\nmin = 0.0\nmax = 1.0\nhelp = \"h\"\n\
            [[param]]\nkey = \"mask\"\nkind = \"bool\"\ndefault = true\nhelp = \"h\"\n\
            [presets.quick]\n\
            [[claim]]\nid = \"acc\"\ntext = \"accuracy\"\nop = \">=\"\nthreshold = 0.8\n\
            [[claim.breaks_with]]\nset = { mask = false }\neffect = \"reads 0.10 on seed 1\"\n";
        let meta = DrillMeta::parse(toml, "# t").unwrap();
        let mut params = meta.preset_values("quick").unwrap();
        assert_eq!(because(&meta, "quick", &params, "acc"), None, "the preset's own values explain nothing");
        params.insert("lr".into(), ParamValue::Float(1e-6));
        assert_eq!(because(&meta, "quick", &params, "acc").unwrap(), "because: lr = 1e-6 (preset 0.002)");
        params.insert("mask".into(), ParamValue::Bool(false));
        assert_eq!(
            because(&meta, "quick", &params, "acc").unwrap(),
            "because: lr = 1e-6 (preset 0.002), mask = false (preset true). Measured with mask = false: reads 0.10 on seed 1"
        );
    }

    fn spec(kind: &str) -> PredictionSpec {
        let text = match kind {
            "choice" => {
                "id = \"p\"\nquestion = \"q\"\nkind = \"choice\"\nchoices = [\"low\", \"mid\", \"high\"]\n\
                 edges = [0.1, 0.5]\nclaim = \"c\"\nexplain = \"e\"\n"
            }
            _ => "id = \"n\"\nquestion = \"q\"\nkind = \"number\"\ntolerance = 0.05\nmetric = \"loss\"\nexplain = \"e\"\n",
        };
        toml::from_str(text).unwrap()
    }

    #[test]
    fn answers_and_measured_values_read_as_the_learner_gave_them() {
        let c = spec("choice");
        assert_eq!(answer_text(&c, 1.0), "mid");
        assert_eq!(measured_text(&c, 0.013), "0.0130 (low)");
        assert_eq!(verdict_line(&c, 1.0, 0.013), "you predicted mid · measured 0.0130 (low) — wrong");
        let n = spec("number");
        assert_eq!(answer_text(&n, 0.3), "0.3");
        assert_eq!(verdict_line(&n, 0.3, 0.32), "you predicted 0.3 · measured 0.3200 — right");
    }
}
