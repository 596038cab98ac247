//! Every shipped content file validates, renders cleanly at 80 columns, and
//! points at code that exists.

mod common;

use std::collections::HashSet;
use std::path::Path;

use agentlab::content::{Content, Level, SheetStatus, TRACKS};
use agentlab::markdown::{math, Doc};
use pulldown_cmark::{Event, Parser};

fn content() -> Content {
    Content::embedded().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn embedded_content_validates() {
    let c = content();
    assert_eq!(c.sheets.len(), 8);
    for t in TRACKS.iter() {
        assert!(c.sheet(t.number).is_some(), "track {} has a sheet", t.number);
    }
}

#[test]
fn disk_copy_validates_like_the_embedded_one() {
    let c = Content::from_dir(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.sheets.len(), content().sheets.len());
    assert_eq!(c.items().count(), content().items().count());
}

/// All math in a text, converted; nothing LaTeX may survive.
fn math_leftovers(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for ev in Parser::new_ext(text, agentlab::content::sheet::markdown_options()) {
        if let Event::InlineMath(m) | Event::DisplayMath(m) = ev {
            let out = math::to_unicode(&m);
            if out.contains('\\') || out.contains("_{") || out.contains("^{") || out.contains("\\frac") {
                bad.push(format!("${m}$ → {out}"));
            }
        }
    }
    bad
}

#[test]
fn all_math_renders_as_unicode() {
    let c = content();
    let mut bad = Vec::new();
    for s in &c.sheets {
        bad.extend(math_leftovers(&s.body).into_iter().map(|b| format!("{}: {b}", s.file)));
    }
    for item in c.items() {
        let mut texts = vec![item.prompt.clone(), item.explanation.clone()];
        if let agentlab::content::Answer::Open { reference } = &item.answer {
            texts.push(reference.clone());
        }
        if let agentlab::content::Answer::Choice { choices, .. } = &item.answer {
            texts.extend(choices.iter().cloned());
        }
        for t in texts {
            bad.extend(math_leftovers(&t).into_iter().map(|b| format!("{}: {b}", item.id)));
        }
    }
    for d in &c.drills {
        bad.extend(math_leftovers(&d.readme).into_iter().map(|b| format!("drill {}: {b}", d.id)));
    }
    assert!(bad.is_empty(), "raw LaTeX left after rendering:\n{}", bad.join("\n"));
}

#[test]
fn every_sheet_fits_80_columns() {
    let c = content();
    for s in &c.sheets {
        let doc = Doc::parse_plain(&s.body);
        let open: HashSet<usize> = (0..doc.foldables).collect();
        // The reader's text pane at 80 columns is 76 wide (borders and padding).
        let r = doc.layout(76, &open);
        for (i, line) in r.plain.iter().enumerate() {
            let w = unicode_width::UnicodeWidthStr::width(line.as_str());
            assert!(w <= 76, "{} line {i} is {w} columns: {line}", s.file);
        }
        assert!(!r.plain.is_empty());
    }
}

/// `src/path.rs::name` references in backticks must name real code.
#[test]
fn code_references_exist() {
    let c = content();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts: Vec<(String, String)> = c.sheets.iter().map(|s| (s.file.clone(), s.body.clone())).collect();
    texts.extend(c.drills.iter().map(|d| (format!("drills/{}/README.md", d.id), d.readme.clone())));
    texts.extend(c.items().map(|i| (i.id.clone(), format!("{} {}", i.prompt, i.explanation))));
    let mut bad = Vec::new();
    let mut seen = 0;
    for (file, text) in texts {
        for span in text.split('`').skip(1).step_by(2) {
            let Some(rest) = span.strip_prefix("src/") else { continue };
            let (path, item) = match rest.split_once("::") {
                Some((p, i)) => (p, Some(i)),
                None => (rest, None),
            };
            if !path.ends_with(".rs") && !path.ends_with('/') {
                continue;
            }
            seen += 1;
            let full = root.join("src").join(path);
            let Ok(code) = std::fs::read_to_string(&full) else {
                if !full.is_dir() {
                    bad.push(format!("{file}: `src/{path}` does not exist"));
                }
                continue;
            };
            if let Some(item) = item {
                let name = item.trim_end_matches("()");
                let defined = ["fn ", "struct ", "enum ", "trait ", "const ", "type ", "mod "].iter().any(|kw| {
                    code.contains(&format!("{kw}{name}("))
                        || code.contains(&format!("{kw}{name} "))
                        || code.contains(&format!("{kw}{name}<"))
                        || code.contains(&format!("{kw}{name};"))
                        || code.contains(&format!("{kw}{name}:"))
                });
                if !defined {
                    bad.push(format!("{file}: `src/{path}` does not define `{name}`"));
                }
            }
        }
    }
    assert!(seen > 20, "the sheets point at the code ({seen} references)");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn quizzes_meet_the_curriculum_bar() {
    let c = content();
    for t in TRACKS.iter() {
        let sheet = c.sheet(t.number).unwrap();
        if sheet.meta.status == SheetStatus::Stub {
            continue;
        }
        let q = c.quiz(t.number).unwrap_or_else(|| panic!("track {} has no quiz", t.number));
        assert!(q.items.len() >= 15, "track {}: {} items", t.number, q.items.len());
        for l in Level::ALL {
            assert!(q.count(l) >= 4, "track {} has {} {l} items", t.number, q.count(l));
        }
        let auto = q.items.iter().filter(|i| i.answer.auto_graded()).count();
        assert!(auto * 10 >= q.items.len() * 4, "track {}: {auto}/{} auto-graded", t.number, q.items.len());
        for item in &q.items {
            assert!(item.sheet.is_some(), "{} links its cheatsheet section", item.id);
        }
    }
}

#[test]
fn every_drill_is_linked_from_its_tracks_sheet() {
    let c = content();
    for d in &c.drills {
        let sheet = c.sheet(d.track).unwrap();
        assert!(sheet.meta.drills.contains(&d.id), "{} lists {} in its front matter", sheet.file, d.id);
        assert!(sheet.body.contains(&format!("[drill:{}]", d.id)), "{} links [drill:{}]", sheet.file, d.id);
    }
}

#[test]
fn numeric_items_are_recomputed_by_the_code() {
    // Loading already compared every check with its value; here we make sure
    // the checks are not rare: most numeric items are tied to code.
    let c = content();
    let numeric: Vec<_> = c.items().filter(|i| matches!(i.answer, agentlab::content::Answer::Numeric { .. })).collect();
    let checked = numeric.iter().filter(|i| i.check.is_some()).count();
    assert!(checked * 2 >= numeric.len(), "{checked} of {} numeric items are recomputed", numeric.len());
    for i in numeric.iter().filter(|i| i.check.is_some()) {
        let v = agentlab::content::recompute::compute(i.check.as_ref().unwrap()).unwrap();
        let agentlab::content::Answer::Numeric { value, tolerance } = i.answer else { unreachable!() };
        assert!((v - value).abs() <= tolerance, "{}: code says {v}, item says {value}", i.id);
    }
}

/// Drills are listed by track, and within a track in the order its sheet
/// gives them: a track's first drill is the one to start with.
#[test]
fn drills_follow_their_sheets_order() {
    let c = agentlab::content::Content::embedded().unwrap();
    assert_eq!(c.drills[0].id, "sft-basics");
    for s in &c.sheets {
        let in_track: Vec<&str> = c.drills.iter().filter(|d| d.track == s.meta.track).map(|d| d.id.as_str()).collect();
        let listed: Vec<&str> = s.meta.drills.iter().map(String::as_str).filter(|id| in_track.contains(id)).collect();
        assert_eq!(in_track[..listed.len()], listed[..], "track {}", s.meta.track);
    }
}

/// A lab link renders as "→ drill: …", so the word before it must not say it
/// again ("The drill → drill: …"); and no text points at material a learner
/// cannot see (the notes the lab was written from).
#[test]
fn no_link_repeats_its_kind_and_no_unseen_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["cheatsheets", "quizzes"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    assert!(files.len() >= 16, "{files:?}");
    for p in files {
        // One line, single spaces: "The drill\n[drill:x]" reads the same.
        let text = std::fs::read_to_string(&p).unwrap().to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ");
        for kind in ["drill", "sheet", "quiz", "exercise"] {
            for before in [format!("{kind} [{kind}:"), format!("{kind}s [{kind}:")] {
                assert!(!text.contains(&before), "{}: {before:?} reads \"{kind} → {kind}:\"", p.display());
            }
        }
        for unseen in ["the seed's", "the seed notes", "the seed material", "seed's sketch"] {
            assert!(!text.contains(unseen), "{}: {unseen:?}", p.display());
        }
    }
}

/// A drill.toml with `params` (TOML `[[param]]` tables) and what every drill needs besides.
fn drill_toml(params: &str) -> String {
    format!(
        "id = \"t\"\ntitle = \"T\"\ntrack = 1\nobjective = \"o\"\n\n{params}\n\n[presets.quick]\n\n\
         [[claim]]\nid = \"c\"\ntext = \"c\"\nop = \">=\"\nthreshold = 0.5\n"
    )
}

const TEXT_PARAM: &str = "[[param]]\nkey = \"model\"\nkind = \"text\"\ndefault = \"tiny\"\n\
                          help = \"tiny, a registered name, a FILE.gguf or a DIR\"";

#[test]
fn a_text_param_holds_one_line_of_bounded_text() {
    use agentlab::content::{DrillMeta, ParamKind, ParamValue};
    let meta = DrillMeta::parse(&drill_toml(TEXT_PARAM), "# readme").unwrap_or_else(|e| panic!("{e:?}"));
    let p = meta.param("model").unwrap();
    assert_eq!((p.kind, p.text_max_len()), (ParamKind::Text, 200));
    assert_eq!(meta.preset_values("quick").unwrap()["model"], ParamValue::Text("tiny".into()));
    // Typed values: trimmed, kept as text even when they look like numbers or booleans.
    for (typed, kept) in [(" smollm2 ", "smollm2"), ("42", "42"), ("true", "true"), ("a=b c", "a=b c"), ("", "")] {
        assert_eq!(p.parse_str(typed), Ok(ParamValue::Text(kept.into())), "{typed:?}");
    }
    assert_eq!(p.parse_str(&"é".repeat(200)), Ok(ParamValue::Text("é".repeat(200))), "characters, not bytes");
    let long = p.parse_str(&"x".repeat(201)).unwrap_err();
    assert!(long.contains("201 characters") && long.contains("at most 200"), "{long}");
    assert!(p.parse_str("a\tb").unwrap_err().contains("one line"));
    // A TOML value of another type is refused, naming what the param takes.
    let e = p.validate(&toml::Value::Integer(3)).unwrap_err();
    assert!(e.contains("expected text"), "{e}");
    // max_len is honoured, in presets too.
    let short = TEXT_PARAM.replace("default = \"tiny\"", "default = \"tiny\"\nmax_len = 5");
    let meta = DrillMeta::parse(&drill_toml(&short), "# r").unwrap();
    assert!(meta.param("model").unwrap().parse_str("smollm2").unwrap_err().contains("at most 5"));
    let preset = drill_toml(&short).replace("[presets.quick]", "[presets.quick]\nmodel = \"toolong\"");
    let errors = DrillMeta::parse(&preset, "# r").unwrap_err();
    assert!(errors.iter().any(|e| e.contains("preset `quick`") && e.contains("at most 5")), "{errors:?}");
}

#[test]
fn text_param_declarations_are_checked() {
    use agentlab::content::DrillMeta;
    let cases = [
        (TEXT_PARAM.replace("default = \"tiny\"", "default = 3"), "expected text"),
        (format!("{TEXT_PARAM}\nmin = 1.0"), "takes no `min`/`max`"),
        (format!("{TEXT_PARAM}\nchoices = [\"a\"]"), "takes no `choices`"),
        (format!("{TEXT_PARAM}\nmax_len = 0"), "`max_len` is 1"),
        (format!("{TEXT_PARAM}\nmax_len = 100000"), "`max_len` is 1"),
        (TEXT_PARAM.replace("help = \"tiny, a registered name, a FILE.gguf or a DIR\"", ""), "needs a `help`"),
        (format!("{TEXT_PARAM}\nmax_len = 3"), "at most 3"),
        (
            "[[param]]\nkey = \"steps\"\nkind = \"int\"\ndefault = 3\nmax_len = 5\nhelp = \"h\"".to_string(),
            "only text params take `max_len`",
        ),
    ];
    for (params, expected) in cases {
        let errors = DrillMeta::parse(&drill_toml(&params), "# r").expect_err(&params);
        assert!(errors.iter().any(|e| e.contains(expected)), "{expected}: {errors:?}\n{params}");
    }
}

/// A text value survives the run record (config.toml), the event/sweep JSON
/// and the typed parameters a drill reads (`pub model: String`).
#[test]
fn text_values_round_trip_through_records_and_typed_params() {
    use agentlab::content::ParamValue;
    use agentlab::drills::{parse_params, ParamMap};
    use agentlab::ml::device::DeviceChoice;
    use agentlab::runner::RunConfig;
    let mut params = ParamMap::new();
    for (k, v) in [("model", "smollm2"), ("a", "42"), ("b", "true"), ("c", "1e-3")] {
        params.insert(k.into(), ParamValue::Text(v.into()));
    }
    params.insert("steps".into(), ParamValue::Int(3));
    let config = RunConfig {
        drill: "t".into(),
        preset: "quick".into(),
        seed: 1,
        device: DeviceChoice::Cpu,
        params: params.clone(),
        uses: Default::default(),
        keep: true,
    };
    let back: RunConfig = toml::from_str(&toml::to_string_pretty(&config).unwrap()).unwrap();
    assert_eq!(back.params, params);
    let back: ParamMap = serde_json::from_str(&serde_json::to_string(&params).unwrap()).unwrap();
    assert_eq!(back, params);

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Typed {
        model: String,
        a: String,
        b: String,
        c: String,
        steps: usize,
    }
    let t: Typed = parse_params(&params).unwrap();
    assert_eq!((t.model.as_str(), t.a.as_str(), t.steps), ("smollm2", "42", 3));
}

/// Every content file on disk, as `Content::from_files` takes them.
use common::disk_files;

/// A sheet that copies a drill's number goes stale when the README is
/// re-measured: validation fails on the sheet's old text, which quoted
/// grpo-rlvr's numbers from an earlier sweep, and passes on the text that
/// cites the README instead.
#[test]
fn a_sheet_quoting_a_number_its_drill_readme_lacks_fails_validation() {
    let files = disk_files();
    assert!(Content::from_files(files.clone()).is_ok());
    let stale = "Over seeds 1–20 of the drill's quick preset, the lenient arm's reward rose\nby a median 0.127 while its exact accuracy fell by 0.414 and 90% of its\nanswers hedged; the exact arm's accuracy rose by 0.185, mostly by dropping\nthe warm start's hedges.";
    let files: Vec<(String, String)> = files
        .into_iter()
        .map(|(p, t)| {
            if p == "cheatsheets/06-self-improving.md" {
                let at = t
                    .find("The numbers over seeds 1–20 of the quick preset are in the claims table")
                    .expect("the paragraph citing the README");
                let end = at + t[at..].find("\n\n").unwrap();
                let t = format!("{}{stale}{}", &t[..at], &t[end..]);
                (p, t)
            } else {
                (p, t)
            }
        })
        .collect();
    let Err(err) = Content::from_files(files) else { panic!("the stale numbers are caught") };
    let err = err.to_string();
    for n in ["quotes 0.414 about drill grpo-rlvr", "quotes 0.185 about drill grpo-rlvr"] {
        assert!(err.contains(n), "{n}: {err}");
    }
    // 0.127 happens to be in the README (the gap of both arms at lr = 0), so it passes: the check reads the README.
    assert!(!err.contains("quotes 0.127"), "{err}");
}

/// Learner-facing texts say what numbers are, not when they changed.
#[test]
fn learner_texts_carry_no_maintainer_notes() {
    let notes = ["2026-", "re-measured", "kernel change", "the change of", "a session could", "this stop"];
    let mut found = Vec::new();
    for (path, text) in disk_files() {
        if path.ends_with("drill.toml") {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            for n in notes {
                if lower.contains(n) {
                    found.push(format!("{path}:{}: {n:?} in {line:?}", i + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A claim can be an observation in one preset and a claim in the others
/// (`observation_in`): the preset's view of the drill, which the claims panel
/// shows before a run, says so, and a run reports it that way.
#[test]
fn a_claim_can_be_an_observation_in_one_preset() {
    let content = Content::embedded().unwrap();
    let grpo = content.drill("grpo-rlvr").unwrap();
    let observed = |preset: &str| -> Vec<String> {
        grpo.for_preset(preset).claims.iter().filter(|c| c.observation).map(|c| c.id.clone()).collect()
    };
    assert_eq!(observed("quick"), ["sound_single_answer_gain"]);
    assert_eq!(
        observed("real"),
        ["proxy_true_change", "proxy_exploit_share", "detector_flags_proxy", "sound_single_answer_gain"]
    );
}

/// The glossary's zh terms hold in every zh file: a variant it refuses
/// (论断 for "claim", written 断言) is caught in a sheet, a quiz item, a
/// drill's README and its drill.zh.toml, with the file named; and the
/// English term inside a longer accepted rendering is not (基准 in 评测基准).
#[test]
fn a_refused_glossary_variant_fails_validation_in_every_kind_of_zh_file() {
    let files = disk_files();
    let edits = [
        ("cheatsheets/03-agentic-rl.zh.md", "断言", "论断"),
        ("quizzes/02-agent-evaluation.zh.toml", "评测框架", "提示词框架"),
        ("drills/sft-basics/README.zh.md", "断言", "论断"),
        ("drills/ewc-replay/drill.zh.toml", "演练", "演练（两头下注）"),
    ];
    for (file, from, to) in edits {
        let changed: Vec<(String, String)> = files
            .iter()
            .map(|(p, t)| {
                let t = if p == file {
                    assert!(t.contains(from), "{file} has no {from}");
                    t.replacen(from, to, 1)
                } else {
                    t.clone()
                };
                (p.clone(), t)
            })
            .collect();
        let Err(err) = Content::from_files(changed) else { panic!("{file}: {to} is caught") };
        let err = err.to_string();
        assert!(err.contains(file) && err.contains("variant the glossary refuses"), "{file}: {err}");
    }
    let glossary = Content::from_files(files).unwrap().glossary;
    let bench = glossary.iter().find(|t| t.en == "benchmark").expect("benchmark is a term");
    assert_eq!(bench.zh, "评测基准");
    assert!(agentlab::content::translation::avoided(&glossary, "一个评测基准。").is_empty());
    assert_eq!(agentlab::content::translation::avoided(&glossary, "一个基准。").len(), 1);
}

/// The UI strings follow the same glossary: none of the shipped zh strings
/// uses a refused variant.
#[test]
fn the_zh_ui_strings_use_no_refused_variant() {
    let glossary = Content::from_files(disk_files()).unwrap().glossary;
    let found = agentlab::content::translation::ui_problems(&glossary, agentlab::i18n::Lang::Zh);
    assert!(found.is_empty(), "{found:?}");
    // And the check can fail: a refused variant in a string is found with its line.
    let avoided = agentlab::content::translation::avoided(&glossary, "a = 一条\nb = 论断未过\n");
    assert_eq!(avoided.iter().map(|(l, _, v)| (*l, *v)).collect::<Vec<_>>(), vec![(2, "论断")]);
}

/// The roadmap's drill table names every drill of each track, and a sheet's
/// front matter lists every drill of its track: leaving one out is caught.
#[test]
fn a_drill_table_or_drill_list_that_leaves_out_a_drill_fails_validation() {
    let files = disk_files();
    let cut = |file: &str, from: &str, to: &str| -> String {
        let changed: Vec<(String, String)> = files
            .iter()
            .map(|(p, t)| {
                let t = if p == file {
                    assert!(t.contains(from), "{file} has no {from}");
                    t.replacen(from, to, 1)
                } else {
                    t.clone()
                };
                (p.clone(), t)
            })
            .collect();
        match Content::from_files(changed) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{file} without {from} passes"),
        }
    };
    let err = cut("cheatsheets/00-prereq.md", ", [drill:long-context-rope]", "");
    assert!(err.contains("track 4 leaves out long-context-rope"), "{err}");
    let err = cut("cheatsheets/04-agentic-rl-infra.md", ", \"long-context-rope\"", "");
    assert!(err.contains("leaves out \"long-context-rope\""), "{err}");
}

/// A numeric template is checked at load: its authored inputs must give the
/// authored value (here γ changed from 0.9 to 0.8 in the check, the value
/// left at 0.782), and a placeholder the template does not define is refused.
#[test]
fn a_template_whose_authored_inputs_miss_the_value_is_refused() {
    let files = disk_files();
    let edit = |from: &str, to: &str| -> Vec<(String, String)> {
        files
            .iter()
            .map(|(p, t)| {
                if p == "quizzes/03-agentic-rl.toml" {
                    let at = t.find("id = \"arl-l2-return\"").expect("the templated return item");
                    let end = at + t[at..].find("[[item]]").unwrap();
                    let block = t[at..end].replacen(from, to, 1);
                    assert_ne!(block, t[at..end], "{from} is in the item");
                    (p.clone(), format!("{}{block}{}", &t[..at], &t[end..]))
                } else {
                    (p.clone(), t.clone())
                }
            })
            .collect()
    };
    let Err(err) = Content::from_files(edit("gamma = 0.9\n", "gamma = 0.8\n")) else {
        panic!("a template whose authored inputs miss the value is refused")
    };
    let err = err.to_string();
    assert!(err.contains("arl-l2-return") && err.contains("from the template's authored inputs"), "{err}");
    let Err(err) = Content::from_files(edit("G_0 = r_0 + {gamma}·G_1", "G_0 = r_0 + {gama}·G_1")) else {
        panic!("an undefined placeholder is refused")
    };
    assert!(err.to_string().contains("template placeholder {gama}"), "{err}");
}

/// Every template draws inputs that recompute, and fills every placeholder,
/// in both languages; the first showing keeps the authored item.
#[test]
fn templates_draw_fresh_numbers_after_the_first_showing() {
    use agentlab::content::template;
    let c = content();
    let templated: Vec<_> = c.items().filter(|i| i.template.is_some()).collect();
    assert!(templated.len() >= 5, "{} templated items", templated.len());
    for i in &templated {
        assert_eq!(&i.instance(0), *i);
        let later: Vec<_> = (1..=20).map(|s| i.instance(s)).collect();
        assert!(later.iter().any(|x| x.prompt != i.prompt), "{}: the prompt changes", i.id);
        for x in &later {
            assert!(template::placeholders(&x.prompt).is_empty(), "{}: {}", i.id, x.prompt);
            assert!(template::placeholders(&x.explanation).is_empty(), "{}: {}", i.id, x.explanation);
        }
    }
}
