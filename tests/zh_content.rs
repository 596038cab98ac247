//! The Chinese edition of the content: complete, checked against the English,
//! and refused when it disagrees with it about anything that is not prose.

mod common;

use agentlab::content::{Answer, Content};
use agentlab::i18n::Lang;
use common::disk_files;

fn content() -> Content {
    Content::embedded().unwrap_or_else(|e| panic!("{e}"))
}

/// The files on disk with one file's text changed by `edit`.
fn with(path: &str, edit: impl Fn(&str) -> String) -> Vec<(String, String)> {
    let mut found = false;
    let files = disk_files()
        .into_iter()
        .map(|(p, t)| {
            if p == path {
                found = true;
                let new = edit(&t);
                assert_ne!(new, t, "the edit of {path} changed nothing");
                (p, new)
            } else {
                (p, t)
            }
        })
        .collect();
    assert!(found, "{path} exists");
    files
}

fn refused(files: Vec<(String, String)>, wanted: &[&str]) {
    let Err(e) = Content::from_files(files) else { panic!("accepted, but it should be refused for {wanted:?}") };
    let e = e.to_string();
    for w in wanted {
        assert!(e.contains(w), "expected \"{w}\" in:\n{e}");
    }
}

#[test]
fn every_english_file_has_its_chinese_one() {
    let c = content();
    assert_eq!(c.languages(), [Lang::En, Lang::Zh]);
    let zh = c.translations.iter().find(|t| t.lang == Lang::Zh).expect("a zh translation");
    assert_eq!(zh.sheets.len(), c.sheets.len());
    assert_eq!(zh.items.len(), c.items().count());
    assert_eq!(zh.exercises.len(), c.exercises.len());
    assert_eq!(zh.drills.len(), c.drills.len());
    assert_eq!(zh.readmes.len(), c.drills.len());
    assert!(c.glossary.len() >= 50, "the glossary has {} terms", c.glossary.len());
}

#[test]
fn localised_content_keeps_every_shared_field() {
    let en = content();
    let zh = en.localized(Lang::Zh);
    assert_eq!(zh.lang, Lang::Zh);
    for (a, b) in en.items().zip(zh.items()) {
        assert_eq!(a.id, b.id);
        assert_eq!((a.level, a.track, &a.sheet, &a.drill, &a.check), (b.level, b.track, &b.sheet, &b.drill, &b.check));
        match (&a.answer, &b.answer) {
            (Answer::Choice { choices: c1, correct: k1 }, Answer::Choice { choices: c2, correct: k2 }) => {
                assert_eq!(k1, k2);
                assert_eq!(c1.len(), c2.len());
            }
            (Answer::Numeric { value: v1, tolerance: t1 }, Answer::Numeric { value: v2, tolerance: t2 }) => {
                assert_eq!((v1, t1), (v2, t2))
            }
            (Answer::Order { steps: s1 }, Answer::Order { steps: s2 }) => assert_eq!(s1.len(), s2.len()),
            (Answer::Open { .. }, Answer::Open { .. }) => {}
            _ => panic!("{}: the kind changed", a.id),
        }
        assert_ne!(a.prompt, b.prompt, "{} is translated", a.id);
    }
    for (a, b) in en.drills.iter().zip(&zh.drills) {
        assert_eq!(a.presets, b.presets);
        assert_eq!(
            a.params.iter().map(|p| (&p.key, &p.default)).collect::<Vec<_>>(),
            b.params.iter().map(|p| (&p.key, &p.default)).collect::<Vec<_>>()
        );
        for (x, y) in a.claims.iter().zip(&b.claims) {
            assert_eq!((&x.id, x.op, x.threshold, &x.presets), (&y.id, y.op, y.threshold, &y.presets));
            assert_eq!(
                x.breaks_with.iter().map(|b| &b.set).collect::<Vec<_>>(),
                y.breaks_with.iter().map(|b| &b.set).collect::<Vec<_>>()
            );
        }
        assert_ne!(a.title, b.title, "{} is translated", a.id);
    }
    for (a, b) in en.sheets.iter().zip(&zh.sheets) {
        // Section anchors are the English ones: links and reading progress work in both languages.
        let slugs = |s: &agentlab::content::Sheet| s.sections.iter().map(|x| x.slug.clone()).collect::<Vec<_>>();
        assert_eq!(slugs(a), slugs(b));
        assert_eq!(a.meta.steps, b.meta.steps);
        assert_ne!(a.meta.title, b.meta.title);
    }
    for (a, b) in en.exercises.iter().zip(&zh.exercises) {
        assert_eq!((&a.stub, &a.solution, &a.function), (&b.stub, &b.solution, &b.function));
    }
    // Back to English: the same content as loaded.
    let again = zh.localized(Lang::En);
    assert_eq!(again.lang, Lang::Zh, "localise the content as loaded, not a localised copy");
    assert_eq!(en.localized(Lang::En).sheets[3].body, en.sheets[3].body);
}

#[test]
fn a_translation_may_not_carry_an_answer() {
    let path = "quizzes/03-agentic-rl.zh.toml";
    refused(
        with(path, |t| t.replacen("id = \"arl-l1-critic-free\"", "id = \"arl-l1-critic-free\"\ncorrect = [2]", 1)),
        &[path, "`correct` is not prose"],
    );
    let drill = "drills/dpo-pairs/drill.zh.toml";
    refused(with(drill, |t| format!("{t}\n[presets.quick]\nsteps = 3\n")), &[drill, "`presets` is not prose"]);
    let Err(e) = Content::from_files(with(drill, |t| format!("{t}\n[presets.quick]\nsteps = 3\n"))) else { panic!() };
    assert_eq!(e.errors.len(), 1, "a file that does not parse is not reported missing too: {e}");
}

#[test]
fn a_quoted_number_must_be_the_same_in_both_languages() {
    let readme = "drills/turn-credit-assignment/README.zh.md";
    let text = std::fs::read_to_string(format!("{}/{readme}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(text.contains("0.353"), "the README quotes the sweep's median");
    refused(with(readme, |t| t.replacen("0.353", "0.335", 1)), &[readme, "numbers differ from the English", "0.353"]);
    let quiz = "quizzes/03-agentic-rl.zh.toml";
    refused(
        with(quiz, |t| t.replacen("λ = 0", "λ = 1", 1)),
        &[quiz, "arl-l1-lambda-zero", "numbers differ from the English"],
    );
}

#[test]
fn headings_choices_and_links_must_match_the_english() {
    let sheet = "cheatsheets/03-agentic-rl.zh.md";
    // Two sections run together: the anchors would no longer line up.
    refused(
        with(sheet, |t| {
            let at = t.find("\n## ").unwrap();
            format!("{}\n{}", &t[..at], &t[at + 4..])
        }),
        &[sheet, "headings must match the English"],
    );
    refused(with(sheet, |t| t.replacen("[sheet:0]", "[sheet:1]", 1)), &[sheet, "links differ from the English"]);
    let quiz = "quizzes/03-agentic-rl.zh.toml";
    refused(
        with(quiz, |t| t.replacen("  \"相对参考模型的 KL 散度\",\n", "", 1)),
        &[quiz, "arl-l1-critic-free", "`choices` has 3 entries, the English item 4"],
    );
}

#[test]
fn the_glossary_term_is_used_and_introduced_with_its_english() {
    let sheet = "cheatsheets/03-agentic-rl.zh.md";
    refused(
        with(sheet, |t| t.replace("信用分配（credit assignment）", "信用分配")),
        &[sheet, "信用分配（credit assignment）"],
    );
    refused(with(sheet, |t| t.replace("信用分配", "功劳归属")), &[sheet, "should say 信用分配"]);
}

#[test]
fn a_missing_translation_is_named() {
    let files: Vec<(String, String)> = disk_files().into_iter().filter(|(p, _)| p != "exercises/gae.zh.toml").collect();
    refused(files, &["exercises/gae.zh.toml", "missing"]);
    // A content tree without any translation is English only, and fine.
    let english: Vec<(String, String)> =
        disk_files().into_iter().filter(|(p, _)| agentlab::content::translation::lang_of_path(p).is_none()).collect();
    let c = Content::from_files(english).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.languages(), [Lang::En]);
}
