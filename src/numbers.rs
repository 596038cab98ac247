//! Numbers typed by the learner (command-line options, `--set key=value`,
//! the TUI's config panel), with messages that say what is wanted: "a seed
//! is a whole number ≥ 0", "… is out of range (the largest is 18446744073709551615)", never
//! Rust's "invalid digit found in string". And the few generic numbers
//! every layer needs: [`mean`], [`doublings`], [`timed`].

use std::num::IntErrorKind;
use std::time::Instant;

/// A whole number from `min` to `max` (inclusive). `what` names it in the
/// message ("seed", "--limit").
pub fn whole_number(text: &str, what: &str, min: u64, max: u64) -> Result<u64, String> {
    let t = text.trim();
    let range = if max == u64::MAX {
        crate::t!("setup-whole-at-least", min = min.to_string())
    } else {
        crate::t!("setup-whole-between", min = min.to_string(), max = max.to_string())
    };
    let got = |quoted: bool, got: &str| match quoted {
        false => crate::t!("setup-whole-got", what = what, range = range.as_str(), got = got),
        true => crate::t!("setup-whole-got-text", what = what, range = range.as_str(), got = got),
    };
    match t.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(n) => Err(got(false, &n.to_string())),
        Err(e) if *e.kind() == IntErrorKind::PosOverflow => {
            Err(crate::t!("setup-whole-overflow", what = what, range = range.as_str(), got = t, max = max.to_string()))
        }
        Err(_) if is_negative_integer(t) => Err(got(false, t)),
        Err(_) => Err(got(true, t)),
    }
}

/// A finite decimal number (`0.5`, `3e-4`). `what` names it.
pub fn finite(text: &str, what: &str) -> Result<f64, String> {
    let t = text.trim();
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        // "1e999" parses to infinity: it was a number, just too large.
        Ok(x) if x.is_infinite() && t.chars().any(|c| c.is_ascii_digit()) => {
            Err(crate::t!("setup-out-of-range", key = what, value = t))
        }
        Ok(_) => Err(crate::t!("setup-not-a-finite-number", key = what, value = t)),
        Err(_) => Err(crate::t!("setup-not-a-number", key = what, value = t)),
    }
}

fn is_negative_integer(t: &str) -> bool {
    t.strip_prefix('-').is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
}

/// A measured value as claims tables show it: four decimals, or three
/// significant digits in scientific notation when four decimals would read
/// 0.0000 (a ratio of 3e-6 is a finding, not a zero).
pub fn fmt_value(v: f64) -> String {
    if v != 0.0 && v.is_finite() && (v.abs() < 1e-3 || v.abs() >= 1e6) {
        format!("{v:.2e}")
    } else {
        format!("{v:.4}")
    }
}

/// The mean of `xs` (0 when empty), summed in order as `f64`.
/// A count as people say a model's size: 812_345 → "0.8M", 45_000 → "45K",
/// 134_515_008 → "134.5M", 999 → "999".
pub fn count_short(n: usize) -> String {
    match n {
        n if n >= 100_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.0}K", n as f64 / 1e3),
        n => n.to_string(),
    }
}

pub fn mean<T: Copy + Into<f64>>(xs: &[T]) -> f64 {
    xs.iter().map(|&x| x.into()).sum::<f64>() / xs.len().max(1) as f64
}

/// 1, 2, 4, … below `n`, then `n`: the sizes of a sweep up to `n`.
pub fn doublings(n: usize) -> Vec<usize> {
    let mut out: Vec<usize> = std::iter::successors(Some(1usize), |b| Some(b * 2)).take_while(|&b| b < n).collect();
    out.push(n);
    out
}

/// What `f` returned, and the seconds it took (wall clock).
pub fn timed<T>(f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<(T, f64)> {
    let t = Instant::now();
    let out = f()?;
    Ok((out, t.elapsed().as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_model_sizes() {
        assert_eq!(count_short(812_345), "0.8M");
        assert_eq!(count_short(134_515_008), "134.5M");
        assert_eq!(count_short(45_000), "45K");
        assert_eq!(count_short(999), "999");
    }

    #[test]
    fn whole_numbers_say_what_is_wanted() {
        assert_eq!(whole_number(" 7 ", "seed", 0, u64::MAX), Ok(7));
        assert_eq!(whole_number("-1", "seed", 0, u64::MAX).unwrap_err(), "seed is a whole number ≥ 0, got -1");
        let big = whole_number("99999999999999999999", "seed", 0, u64::MAX).unwrap_err();
        assert!(big.contains("out of range") && big.contains("18446744073709551615"), "{big}");
        assert_eq!(
            whole_number("0", "--limit", 1, 1000).unwrap_err(),
            "--limit is a whole number from 1 to 1000, got 0"
        );
        assert!(whole_number("x", "--limit", 1, 9).unwrap_err().contains("got \"x\""));
    }

    #[test]
    fn decimals() {
        assert_eq!(finite("3e-4", "lr"), Ok(3e-4));
        assert!(finite("1e999", "lr").unwrap_err().contains("out of range"));
        assert!(finite("nan", "lr").unwrap_err().contains("not a finite number"));
        assert!(finite("fast", "lr").unwrap_err().contains("not a number"));
    }

    #[test]
    fn means_and_sweeps() {
        assert_eq!(mean(&[1.0f64, 2.0, 6.0]), 3.0);
        assert_eq!(mean(&[0.5f32, 1.5]), 1.0);
        assert_eq!(mean::<f64>(&[]), 0.0);
        assert_eq!(doublings(10), vec![1, 2, 4, 8, 10]);
        assert_eq!(doublings(8), vec![1, 2, 4, 8]);
        assert_eq!(doublings(1), vec![1]);
        assert_eq!(timed(|| Ok(7)).unwrap().0, 7);
    }
}

/// Serde for an `f64` that may be NaN or ±∞: JSON has no such numbers (and
/// serde_json writes `null`, which then does not read back as a number).
/// A finite value is written as a number; NaN, `inf` and `-inf` as those
/// strings. Reading takes a number, one of the strings, or `null` (NaN, as
/// files written before this form said).
/// `#[serde(with = "crate::numbers::nonfinite")]`.
pub mod nonfinite {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if x.is_finite() {
            s.serialize_f64(*x)
        } else {
            s.serialize_str(name(*x))
        }
    }

    /// How a non-finite number is written: `NaN`, `inf`, `-inf`.
    pub fn name(x: f64) -> &'static str {
        match x {
            x if x.is_nan() => "NaN",
            x if x > 0.0 => "inf",
            _ => "-inf",
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Option::<Stored>::deserialize(d)? {
            Some(Stored::Number(x)) => Ok(x),
            None => Ok(f64::NAN),
            Some(Stored::Text(t)) => match t.as_str() {
                "NaN" | "nan" => Ok(f64::NAN),
                "inf" | "+inf" | "Infinity" => Ok(f64::INFINITY),
                "-inf" | "-Infinity" => Ok(f64::NEG_INFINITY),
                other => Err(serde::de::Error::custom(format!("\"{other}\" is not a number (nor NaN, inf, -inf)"))),
            },
        }
    }

    /// The same for a map of names to numbers (a run's last value of each metric).
    pub mod map {
        use std::collections::BTreeMap;

        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        #[derive(Serialize, Deserialize)]
        struct Num(#[serde(with = "super")] f64);

        pub fn serialize<S: Serializer>(m: &BTreeMap<String, f64>, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(m.iter().map(|(k, v)| (k, Num(*v))))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, f64>, D::Error> {
            let m = BTreeMap::<String, Num>::deserialize(d)?;
            Ok(m.into_iter().map(|(k, v)| (k, v.0)).collect())
        }
    }
}
