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

/// How the loader took a file.
#[derive(Debug, Clone, PartialEq)]
enum Taken {
    /// As it was: no notice, nothing written.
    Accepted(Progress),
    /// Record by record: the bad ones repaired or left out (kept in a side
    /// file), the rest loaded; the repaired state written back.
    Repaired(Progress),
    /// Not at all: kept aside whole, a fresh state.
    Refused,
}

/// Open `bytes` as progress.json and check the properties; how it was taken.
fn open_checked(bytes: &[u8]) -> Result<Taken, TestCaseError> {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    std::fs::write(&path, bytes).unwrap();
    let s = Store::open(&path, t0());
    let mut names: Vec<String> =
        std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let kept: Vec<String> =
        names.iter().filter(|n| n.starts_with("progress.json.") && !n.ends_with(".lock")).cloned().collect();
    let round_trip = |s: &Store| -> Result<(), TestCaseError> {
        // Saved (rewritten from its parsed state) and opened again: the same state, no notice.
        let mut saved = s.clone();
        saved.save().map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
        let again = Store::open(&path, t0());
        prop_assert!(again.notice.is_none(), "{:?}", again.notice);
        // A save writes this build's format version; nothing else changes.
        let mut expected = s.progress.clone();
        expected.version = VERSION;
        prop_assert_eq!(&again.progress, &expected);
        Ok(())
    };
    match &s.notice {
        None => {
            prop_assert_eq!(&s.path, &path);
            prop_assert_eq!(names, vec![FILE_NAME.to_string()]);
            prop_assert_eq!(std::fs::read(&path).unwrap(), bytes, "opening writes nothing");
            round_trip(&s)?;
            Ok(Taken::Accepted(s.progress))
        }
        Some(notice) if kept.len() == 1 && kept[0].starts_with("progress.json.set-aside-") => {
            // Repaired: the records as they were are in the side file, the rest is on disk and loads.
            prop_assert!(notice.contains(kept[0].as_str()), "the notice names {}: {}", kept[0], notice);
            let side: Value = serde_json::from_slice(&std::fs::read(d.path().join(&kept[0])).unwrap()).unwrap();
            prop_assert!(side["records"].as_array().is_some_and(|r| !r.is_empty()), "{}", side);
            let on_disk = agentlab::progress::store::parse(&std::fs::read(&path).unwrap());
            prop_assert_eq!(on_disk.as_ref().ok(), Some(&s.progress), "the repaired state is written back");
            round_trip(&s)?;
            Ok(Taken::Repaired(s.progress))
        }
        Some(notice) if s.read_only().is_some() => {
            // A newer agentlab's file: left where it is, unchanged, and never written.
            prop_assert!(notice.contains("newer agentlab"), "{}", notice);
            prop_assert_eq!(std::fs::read(&path).unwrap(), bytes);
            prop_assert!(kept.is_empty(), "{:?}", names);
            prop_assert!(s.clone().save().is_err(), "a save is refused");
            prop_assert_eq!(std::fs::read(&path).unwrap(), bytes, "still unchanged");
            Ok(Taken::Refused)
        }
        Some(notice) => {
            prop_assert!(!path.exists(), "a refused file is moved aside: {}", notice);
            // Besides the kept file: the lock taken to move it aside.
            prop_assert_eq!(kept.len(), 1, "{:?}", names);
            let kept = &kept[0];
            prop_assert!(kept.starts_with("progress.json.corrupt-"), "{}", kept);
            prop_assert!(notice.contains(kept.as_str()), "the notice names {}: {}", kept, notice);
            prop_assert_eq!(std::fs::read(d.path().join(kept)).unwrap(), bytes, "kept unchanged");
            prop_assert!(s.progress.items.is_empty());
            Ok(Taken::Refused)
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
    judged_file().prop_map(|f| (f.value, f.ok))
}

/// A generated progress file and what the loader must make of it.
#[derive(Debug, Clone)]
struct JudgedFile {
    value: Value,
    /// Every value in range: accepted as it is.
    ok: bool,
    /// Its version is one this build reads (else the file is refused whole).
    version_ok: bool,
    retention_ok: bool,
    /// Each item, and whether all of its values are in range.
    items: Vec<(String, bool)>,
}

fn judged_file() -> impl Strategy<Value = JudgedFile> {
    (version(), retention(), prop::collection::btree_map("[a-z0-9-]{1,12}", item(), 0..5)).prop_map(
        |((ver, v_ok), (ret, r_ok), items)| {
            let ok = v_ok && r_ok && items.values().all(|i| i.1);
            let verdicts = items.iter().map(|(k, v)| (k.clone(), v.1)).collect();
            let items: Map<String, Value> = items.into_iter().map(|(k, v)| (k, v.0)).collect();
            JudgedFile {
                value: json!({"version": ver, "settings": {"desired_retention": ret}, "items": items}),
                ok,
                version_ok: v_ok,
                retention_ok: r_ok,
                items: verdicts,
            }
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
    fn progress_files_are_accepted_exactly_when_every_value_is_in_range(f in judged_file()) {
        let taken = open_checked(f.value.to_string().as_bytes())?;
        prop_assert_eq!(matches!(taken, Taken::Accepted(_)), f.ok, "{}", f.value);
        // One bad record never costs the others: every item in range loads as it was.
        if let Taken::Repaired(p) = &taken {
            prop_assert!(f.version_ok);
            for (id, ok) in f.items.iter().filter(|(_, ok)| *ok) {
                let original: agentlab::progress::store::ItemRecord =
                    serde_json::from_value(f.value["items"][id].clone()).unwrap();
                prop_assert_eq!(p.items.get(id), Some(&original), "item {} (in range: {}) is kept as it was", id, ok);
            }
            if f.retention_ok {
                prop_assert_eq!(json!(p.settings.desired_retention), f.value["settings"]["desired_retention"].clone());
            }
        }
        if !f.version_ok {
            prop_assert_eq!(taken, Taken::Refused);
        }
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

/// What a learner (or a second agentlab on the same file) does, on a clock
/// that jumps back and forth.
#[derive(Debug, Clone)]
enum Op {
    /// Move the clock by this many seconds (back when negative).
    Clock(i64),
    /// The clock set to a date outside what the file may hold (1969, 10000):
    /// what is recorded then must be refused, never written.
    WildClock(bool),
    Rate {
        store: usize,
        item: usize,
        correct: Option<bool>,
        rating: usize,
    },
    Check {
        store: usize,
        exercise: usize,
        passed: bool,
    },
    /// A session started `ago` seconds before now (negative: "after" now, as
    /// a clock stepped back during it makes it look), with its counts.
    Session {
        store: usize,
        ago: i64,
        predictions: u32,
        right: u32,
    },
    Predict {
        store: usize,
        measured: f64,
    },
    Flag {
        store: usize,
        item: usize,
    },
    Resume {
        store: usize,
        track: u8,
    },
    Read {
        store: usize,
        section: usize,
    },
    Retention {
        store: usize,
        r: f64,
    },
    /// The store closed and opened again (another run of the program).
    Reopen {
        store: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let store = 0usize..2;
    prop_oneof![
        3 => prop_oneof![-3 * 86_400i64..3 * 86_400, -60i64..60].prop_map(Op::Clock),
        1 => any::<bool>().prop_map(Op::WildClock),
        6 => (store.clone(), 0usize..4, prop::option::of(any::<bool>()), 0usize..3)
            .prop_map(|(store, item, correct, rating)| Op::Rate { store, item, correct, rating }),
        4 => (store.clone(), 0usize..2, any::<bool>()).prop_map(|(store, exercise, passed)| Op::Check { store, exercise, passed }),
        2 => (store.clone(), -7_200i64..7_200, prop_oneof![0u32..4, Just(u32::MAX)], prop_oneof![0u32..4, Just(u32::MAX)])
            .prop_map(|(store, ago, predictions, right)| Op::Session { store, ago, predictions, right }),
        2 => (store.clone(), prop_oneof![-1e3f64..1e3, Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY), Just(1e300)])
            .prop_map(|(store, measured)| Op::Predict { store, measured }),
        1 => (store.clone(), 0usize..4).prop_map(|(store, item)| Op::Flag { store, item }),
        1 => (store.clone(), 0u8..10).prop_map(|(store, track)| Op::Resume { store, track }),
        1 => (store.clone(), 0usize..3).prop_map(|(store, section)| Op::Read { store, section }),
        1 => (store.clone(), prop_oneof![0.7f64..0.99, Just(f64::NAN), Just(1.5)]).prop_map(|(store, r)| Op::Retention { store, r }),
        1 => store.prop_map(|store| Op::Reopen { store }),
    ]
}

/// A file whose counters sit at their limits: an exercise checked
/// `u32::MAX - 1` times, an item reviewed `u32::MAX - 1` times with as many lapses.
fn at_the_limits() -> Value {
    json!({
        "version": VERSION,
        "settings": {"desired_retention": 0.9},
        "items": {"i0": {"track": 3, "level": "L1",
            "attempts": [{"at": "2026-04-01T09:00:00Z", "correct": null, "rating": "dont"}],
            "sched": {"stability": 2.3, "difficulty": 5.0, "last_review": "2026-04-01T09:00:00Z",
                      "due": "2026-04-01T09:10:00Z", "reps": u32::MAX - 1, "lapses": u32::MAX - 1}}},
        "exercises": {"e0": {"track": 1, "checks": u32::MAX - 1, "passed_at": null,
                             "last_check": "2026-04-01T09:00:00Z", "last_passed": false}}
    })
}

proptest! {
    #![proptest_config(common::fixed_config(48))]

    /// Ratings, checks, sessions, predictions, flags and settings from two
    /// stores on one file, on a clock that jumps back and forth (and now and
    /// then out of the years a file holds), from counters at their limits:
    /// every save either writes a file that loads again, unchanged and
    /// without a word, or refuses and leaves the file as it was; and a store
    /// holds what is on disk after each save that succeeds.
    #[test]
    fn every_state_written_loads_again_unchanged(ops in prop::collection::vec(op(), 1..24)) {
        use agentlab::content::Level;
        use agentlab::progress::store::{Place, PredictionRecord, SessionRecord};
        use agentlab::progress::Rating;
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(FILE_NAME);
        std::fs::write(&path, at_the_limits().to_string()).unwrap();
        let mut now = t0();
        let mut stores = [Store::open(&path, now), Store::open(&path, now)];
        prop_assert!(stores[0].notice.is_none(), "{:?}", stores[0].notice);
        for op in ops {
            let before = std::fs::read(&path).unwrap();
            let (k, result) = match op {
                Op::Clock(secs) => {
                    // Back from a wild date first.
                    if !(1971..=9000).contains(&now.year()) {
                        now = t0();
                    }
                    now += chrono::Duration::seconds(secs);
                    continue;
                }
                Op::WildClock(early) => {
                    now = if early {
                        Utc.with_ymd_and_hms(1969, 12, 31, 23, 0, 0).unwrap()
                    } else {
                        Utc.with_ymd_and_hms(10000, 1, 1, 0, 0, 0).unwrap()
                    };
                    continue;
                }
                Op::Rate { store, item, correct, rating } => {
                    let id = format!("i{item}");
                    (store, stores[store].record(&id, 3, Level::L1, correct, Rating::ALL[rating], now))
                }
                Op::Check { store, exercise, passed } => {
                    (store, stores[store].record_check(&format!("e{exercise}"), 1, passed, now))
                }
                Op::Session { store, ago, predictions, right } => {
                    let r = SessionRecord {
                        started: now - chrono::Duration::seconds(ago),
                        ended: now,
                        track: Some(2),
                        planned_minutes: 30,
                        steps_done: u32::MAX,
                        steps_skipped: 0,
                        items_rated: 1,
                        exercises_passed: 0,
                        drills: vec![],
                        predictions,
                        predictions_right: right,
                        track_secs: [(2u8, u64::MAX)].into_iter().collect(),
                    };
                    (store, stores[store].record_session(r))
                }
                Op::Predict { store, measured } => {
                    let r = PredictionRecord {
                        drill: "sft-basics".into(),
                        preset: "quick".into(),
                        id: "p".into(),
                        track: 0,
                        answer: "0.5".into(),
                        measured,
                        right: false,
                        at: now,
                    };
                    (store, stores[store].record_prediction(r))
                }
                Op::Flag { store, item } => (store, stores[store].flag_for_review(&[format!("i{item}")], now)),
                Op::Resume { store, track } => (store, stores[store].set_resume(Place::Sheet { track, line: 3 }, now)),
                // A section the store knows is read already: nothing to save.
                Op::Read { store, section } if stores[store].progress.was_read(4, &format!("s{section}")) => continue,
                Op::Read { store, section } => (store, stores[store].mark_read(4, &format!("s{section}"), now)),
                Op::Retention { store, r } => (store, stores[store].set_retention(r)),
                Op::Reopen { store } => {
                    stores[store] = Store::open(&path, now);
                    prop_assert!(stores[store].notice.is_none(), "{:?}", stores[store].notice);
                    continue;
                }
            };
            let bytes = std::fs::read(&path).unwrap();
            // Whatever happened, the file on disk passes the loader's own check…
            let on_disk = agentlab::progress::store::parse(&bytes);
            prop_assert!(on_disk.is_ok(), "{:?}\n{}", on_disk.err(), String::from_utf8_lossy(&bytes));
            let on_disk = on_disk.unwrap();
            match &result {
                // …a save that succeeded wrote what its store holds…
                Ok(()) => prop_assert_eq!(&stores[k].progress, &on_disk),
                // …and one that failed was refused whole or in part, and says so.
                Err(e) => {
                    let e = format!("{e:#}");
                    prop_assert!(e.contains("refused") || e.contains("retention"), "{}", e);
                    if e.contains("retention") {
                        prop_assert_eq!(&bytes, &before, "a refused setting writes nothing");
                    }
                }
            }
            // …and a fresh start reads it again unchanged, without a word.
            let again = Store::open(&path, now);
            prop_assert!(again.notice.is_none(), "{:?}", again.notice);
            prop_assert_eq!(&again.progress, &on_disk);
            prop_assert!(on_disk.exercises.values().all(|e| e.checks > 0));
            let reps = on_disk.items.get("i0").and_then(|i| i.sched).map(|s| s.reps);
            prop_assert!(reps.is_some_and(|r| r >= u32::MAX - 1), "a counter at its limit stays there: {:?}", reps);
        }
    }
}
