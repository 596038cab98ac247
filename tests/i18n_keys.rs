//! Every message the code asks for exists in every language, the languages
//! have the same messages, and the `.ftl` files parse.

use std::collections::BTreeSet;
use std::path::Path;

use agentlab::i18n::{self, Lang};

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((p.display().to_string(), std::fs::read_to_string(&p).unwrap()));
        }
    }
}

fn src() -> Vec<(String, String)> {
    let mut out = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut out);
    out
}

/// The keys named by `t!("key"…)` in the code.
fn keys_used() -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (file, text) in src() {
        // Comments name keys as examples.
        let text: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        for (i, _) in text.match_indices("t!(\"") {
            // `t!(`, `crate::t!(`, not `format!(` or `print!(`.
            if text[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[i + 4..];
            if let Some(end) = rest.find('"') {
                out.insert((rest[..end].to_string(), file.clone()));
            }
        }
    }
    out
}

/// The English texts of key hints (`("Enter", "open")`) in the TUI's code.
fn hint_labels() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (file, text) in src() {
        if !file.contains("/tui/") {
            continue;
        }
        let mut rest = text.as_str();
        while let Some(i) = rest.find("(\"") {
            rest = &rest[i + 2..];
            let Some(k_end) = rest.find('"') else { break };
            let key = &rest[..k_end];
            let after = &rest[k_end + 1..];
            if key.chars().count() > 16 || key.contains('\\') {
                continue;
            }
            let Some(label) = after.strip_prefix(", \"") else { continue };
            let Some(l_end) = label.find("\")") else { continue };
            let l = &label[..l_end];
            if !l.contains('"') && !l.contains('\n') {
                out.insert(l.replace("\\\"", "\""));
            }
        }
    }
    out
}

#[test]
fn ftl_files_parse() {
    let errors = i18n::syntax_errors();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn every_language_has_the_same_messages() {
    let en: BTreeSet<String> = i18n::keys(Lang::En).into_iter().collect();
    for lang in Lang::ALL {
        let keys: Vec<String> = i18n::keys(lang);
        let set: BTreeSet<String> = keys.iter().cloned().collect();
        assert_eq!(set.len(), keys.len(), "{lang}: a message is defined twice");
        let missing: Vec<_> = en.difference(&set).collect();
        let extra: Vec<_> = set.difference(&en).collect();
        assert!(missing.is_empty() && extra.is_empty(), "{lang}: missing {missing:?}, not in English {extra:?}");
    }
}

#[test]
fn every_key_the_code_uses_exists() {
    let used = keys_used();
    assert!(used.len() > 2, "the scan found no t!(…) calls");
    for lang in Lang::ALL {
        let missing: Vec<_> = used.iter().filter(|(k, _)| !i18n::has(lang, k)).collect();
        assert!(missing.is_empty(), "{lang} lacks: {missing:#?}");
    }
}

#[test]
fn every_key_hint_has_its_messages() {
    let labels = hint_labels();
    assert!(labels.len() > 50, "the scan found {} hints", labels.len());
    let mut seen = std::collections::BTreeMap::new();
    for l in &labels {
        let key = i18n::hint_key(l);
        if let Some(other) = seen.insert(key.clone(), l.clone()) {
            panic!("hints \"{l}\" and \"{other}\" share the key {key}: reword one");
        }
        assert_eq!(i18n::message(Lang::En, &key, None), *l, "{key} in en/hints.ftl must be the hint's text");
        assert!(i18n::has(Lang::Zh, &key), "zh/hints.ftl lacks {key} = (\"{l}\")");
    }
}
