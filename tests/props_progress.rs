//! Properties of the progress.json loader (`Store::open`), over arbitrary
//! bytes, arbitrary JSON values, edited valid files, and structurally valid
//! progress files whose numbers may be out of range:
//!
//! - it never panics;
//! - a file it cannot accept is moved aside unchanged, `progress.json` is
//!   gone, and the notice names the kept file;
//! - a file it accepts round-trips (saved and opened again: the same state);
//! - for generated progress files, it accepts exactly the in-range ones.
//!
//! Case counts are bounded (see `CASES`) to keep the suite short.

mod common;

use agentlab::progress::store::{Progress, Store, FILE_NAME, VERSION};
use chrono::{DateTime, Datelike, TimeZone, Utc};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Cases per property (four properties).
const CASES: u32 = 256;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 4, 1, 9, 30, 0).unwrap()
}

/// Open `bytes` as progress.json and check the properties; the state when accepted.
fn open_checked(bytes: &[u8]) -> Result<Option<Progress>, TestCaseError> {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    std::fs::write(&path, bytes).unwrap();
    let s = Store::open(&path, t0());
    let mut names: Vec<String> =
        std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    match &s.notice {
        None => {
            prop_assert_eq!(&s.path, &path);
            prop_assert_eq!(names, vec![FILE_NAME.to_string()]);
            prop_assert_eq!(std::fs::read(&path).unwrap(), bytes, "opening writes nothing");
            // Round trip: save (rewrites the file from its parsed state) and open again.
            let mut saved = s.clone();
            saved.save().map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
            let again = Store::open(&path, t0());
            prop_assert!(again.notice.is_none(), "{:?}", again.notice);
            // A save writes this build's format version; nothing else changes.
            let mut expected = s.progress.clone();
            expected.version = VERSION;
            prop_assert_eq!(&again.progress, &expected);
            Ok(Some(s.progress))
        }
        Some(notice) => {
            prop_assert!(!path.exists(), "a refused file is moved aside: {}", notice);
            // Besides the kept file: the lock taken to move it aside.
            let kept: Vec<&String> =
                names.iter().filter(|n| n.starts_with("progress.json.") && !n.ends_with(".lock")).collect();
            prop_assert_eq!(kept.len(), 1, "{:?}", names);
            let kept = kept[0];
            prop_assert!(
                kept.starts_with("progress.json.corrupt-") || kept.starts_with("progress.json.newer-"),
                "{}",
                kept
            );
            prop_assert!(notice.contains(kept.as_str()), "the notice names {}: {}", kept, notice);
            prop_assert_eq!(std::fs::read(d.path().join(kept)).unwrap(), bytes, "kept unchanged");
            prop_assert!(s.progress.items.is_empty());
            Ok(None)
        }
    }
}

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[a-z0-9 .:-]{0,12}".prop_map(Value::from),
        prop_oneof![Just("know"), Just("fuzzy"), Just("dont"), Just("L1"), Just("L3"), Just("2026-04-01T09:00:00Z")]
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    "[a-z_]{1,8}".boxed(),
                    prop_oneof![
                        Just("version"),
                        Just("settings"),
                        Just("items"),
                        Just("desired_retention"),
                        Just("track"),
                        Just("level"),
                        Just("attempts"),
                        Just("sched"),
                        Just("rating"),
                        Just("at"),
                    ]
                    .prop_map(String::from)
                    .boxed(),
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A value with its verdict: whether the loader must accept it.
type Judged = (Value, bool);

fn judged<T: Into<Value> + Clone + std::fmt::Debug + 'static>(ok: Vec<T>, bad: Vec<T>) -> BoxedStrategy<Judged> {
    let ok = proptest::sample::select(ok).prop_map(|v| (v.into(), true));
    let bad = proptest::sample::select(bad).prop_map(|v| (v.into(), false));
    prop_oneof![19 => ok, 1 => bad].boxed()
}

fn version() -> BoxedStrategy<Judged> {
    judged(vec![1u64, VERSION as u64], vec![0, VERSION as u64 + 1, 1 << 40])
}

fn retention() -> BoxedStrategy<Judged> {
    prop_oneof![
        9 => (0.70f64..=0.99).prop_map(|r| (json!(r), true)),
        1 => judged(vec![0.7, 0.99, 0.9], vec![5.0, 0.0, -0.5, 0.69, 0.995, 1.0, 1e300, -1e-300]),
    ]
    .boxed()
}

fn time() -> BoxedStrategy<Judged> {
    judged(
        vec![
            "2026-04-01T09:00:00Z",
            "1970-01-01T00:00:00Z",
            "2031-12-31T23:59:59.123456789Z",
            "2026-04-01T11:00:00+02:00",
        ],
        vec!["1969-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "+10000-01-01T00:00:00Z"],
    )
}

fn stability() -> BoxedStrategy<Judged> {
    prop_oneof![
        9 => (0.001f64..36_500.0).prop_map(|s| (json!(s as f32), true)),
        1 => judged(vec![0.001, 36_500.0, 2.3], vec![0.0, -1.0, 0.0009, 36_501.0, 1e30, 1e300, 1e-50]),
    ]
    .boxed()
}

fn difficulty() -> BoxedStrategy<Judged> {
    prop_oneof![
        9 => (1.0f64..=10.0).prop_map(|s| (json!(s as f32), true)),
        1 => judged(vec![1.0, 10.0], vec![0.0, 0.99, 10.01, -5.0, 1e39]),
    ]
    .boxed()
}

fn attempt() -> BoxedStrategy<Judged> {
    (time(), prop::option::of(any::<bool>()), prop::sample::select(vec!["know", "fuzzy", "dont"]))
        .prop_map(|((at, at_ok), correct, rating)| {
            let ok = at_ok && !(rating == "know" && correct == Some(false));
            (json!({"at": at, "correct": correct, "rating": rating}), ok)
        })
        .boxed()
}

fn sched() -> BoxedStrategy<Judged> {
    let reps_lapses = (0u32..50).prop_flat_map(|reps| {
        (
            Just(reps),
            prop_oneof![19 => (0..=reps).prop_map(|l| (l, true)), 1 => (reps + 1..reps + 5).prop_map(|l| (l, false))],
        )
    });
    (stability(), difficulty(), time(), 0i64..10_000_000, prop::bool::weighted(0.05), reps_lapses)
        .prop_map(|((s, s_ok), (d, d_ok), (last, last_ok), gap_s, before, (reps, (lapses, l_ok)))| {
            // Due `gap_s` seconds after the last review (or, now and then, before it).
            let t = last.as_str().and_then(|t| DateTime::parse_from_rfc3339(t).ok());
            let gap = chrono::Duration::seconds(gap_s);
            let due_t = t.map(|t| if before { t - gap - chrono::Duration::seconds(1) } else { t + gap });
            let due = due_t.map_or(last.clone(), |t| json!(t.to_rfc3339()));
            let due_ok = due_t.is_some_and(|d| !before && (1970..=9999).contains(&d.with_timezone(&Utc).year()));
            let ok = s_ok && d_ok && last_ok && due_ok && l_ok;
            let v = json!({
                "stability": s, "difficulty": d, "last_review": last, "due": due, "reps": reps, "lapses": lapses
            });
            (v, ok)
        })
        .boxed()
}

fn item() -> BoxedStrategy<Judged> {
    (
        prop_oneof![19 => (0u8..=7).prop_map(|t| (json!(t), true)), 1 => (8u8..=255).prop_map(|t| (json!(t), false))],
        prop::sample::select(vec!["L1", "L2", "L3"]),
        prop::collection::vec(attempt(), 0..4),
        prop::option::of(sched()),
    )
        .prop_map(|((track, t_ok), level, attempts, sched)| {
            let ok = t_ok && attempts.iter().all(|a| a.1) && sched.as_ref().is_none_or(|s| s.1);
            let attempts: Vec<Value> = attempts.into_iter().map(|a| a.0).collect();
            (json!({"track": track, "level": level, "attempts": attempts, "sched": sched.map(|s| s.0)}), ok)
        })
        .boxed()
}

/// A progress file in the right shape, every number in or out of range, with its verdict.
fn progress_file() -> impl Strategy<Value = Judged> {
    (version(), retention(), prop::collection::btree_map("[a-z0-9-]{1,12}", item(), 0..5)).prop_map(
        |((ver, v_ok), (ret, r_ok), items)| {
            let ok = v_ok && r_ok && items.values().all(|i| i.1);
            let items: Map<String, Value> = items.into_iter().map(|(k, v)| (k, v.0)).collect();
            (json!({"version": ver, "settings": {"desired_retention": ret}, "items": items}), ok)
        },
    )
}

/// Fields of a valid file that `arbitrary_json…` replaces with an arbitrary value.
const FIELDS: &[&str] = &[
    "/version",
    "/settings",
    "/settings/desired_retention",
    "/items",
    "/items/x",
    "/items/x/track",
    "/items/x/level",
    "/items/x/attempts",
    "/items/x/attempts/0",
    "/items/x/attempts/0/at",
    "/items/x/attempts/0/correct",
    "/items/x/attempts/0/rating",
    "/items/x/sched",
    "/items/x/sched/stability",
    "/items/x/sched/difficulty",
    "/items/x/sched/due",
    "/items/x/sched/reps",
];

proptest! {
    // No regression files: a failure prints its minimal input.
    #![proptest_config(common::fixed_config(CASES))]

    #[test]
    fn arbitrary_bytes_never_panic_and_are_kept_or_accepted(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        open_checked(&bytes)?;
    }

    #[test]
    fn arbitrary_json_never_panics_and_is_kept_or_accepted(
        v in any_json(),
        wrap in prop::option::weighted(0.8, prop::sample::select(FIELDS)),
    ) {
        // Mostly in place of one field of a valid file, so the deeper fields get arbitrary values.
        let v = match wrap {
            None => v,
            Some(ptr) => {
                let mut file = json!({"version": 1, "settings": {"desired_retention": 0.9}, "items": {"x": {
                    "track": 3, "level": "L1",
                    "attempts": [{"at": "2026-04-01T09:00:00Z", "correct": true, "rating": "know"}],
                    "sched": {"stability": 2.3, "difficulty": 5.0, "last_review": "2026-04-01T09:00:00Z",
                              "due": "2026-04-03T09:00:00Z", "reps": 1, "lapses": 0}}}});
                *file.pointer_mut(ptr).unwrap() = v;
                file
            }
        };
        open_checked(v.to_string().as_bytes())?;
    }

    #[test]
    fn progress_files_are_accepted_exactly_when_every_value_is_in_range((v, ok) in progress_file()) {
        let accepted = open_checked(v.to_string().as_bytes())?;
        prop_assert_eq!(accepted.is_some(), ok, "{}", v);
    }

    #[test]
    fn edited_valid_files_never_panic(
        (v, _) in progress_file(),
        at in any::<prop::sample::Index>(),
        byte in prop_oneof![any::<u8>(), prop::sample::select(b"0123456789-+.eE \"".to_vec())],
        cut in prop::option::weighted(0.2, any::<prop::sample::Index>()),
    ) {
        // One byte changed (often to one that keeps the JSON valid), sometimes cut short after it.
        let mut bytes = serde_json::to_vec_pretty(&v).unwrap();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len() + 1).max(i + 1));
        }
        open_checked(&bytes)?;
    }
}

/// A retention that the default JSON number parser reads 1 ulp off: saving
/// and reading again must give the same number (serde_json's `float_roundtrip`).
#[test]
fn a_saved_number_reads_back_exactly() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let text = r#"{"version":1,"settings":{"desired_retention":0.9822716623859163},"items":{}}"#;
    std::fs::write(&path, text).unwrap();
    let s = Store::open(&path, t0());
    assert!(s.notice.is_none(), "{:?}", s.notice);
    assert_eq!(s.progress.settings.desired_retention, 0.9822716623859163);
    let mut saved = s.clone();
    saved.save().unwrap();
    let mut expected = s.progress.clone();
    expected.version = VERSION;
    assert_eq!(Store::open(&path, t0()).progress, expected);
}
