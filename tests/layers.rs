//! The crate's layers, checked: no file imports a module of a higher layer,
//! and no two files import each other, directly or around a ring.
//!
//! Layers, lowest first (a module may use its own layer and those below):
//!
//! | layer | modules | what they are |
//! |---|---|---|
//! | 0 | `numbers`, `fsutil`, `paths`, `i18n`, `textsafe` | formatting, atomic files, where data lives, the language and its messages, control characters made visible |
//! | 1 | `ml` | tensors, models, training steps, sampling |
//! | 2 | `rl`, `continual`, `envs`, `eval` | the algorithms the lab teaches, and the worlds |
//! | 3 | `exercises` | learner functions checked against layer 2 |
//! | 4 | `content` | sheets, quizzes, drill metadata, validated |
//! | 5 | `drills` | training runs |
//! | 6 | `runner`, `plot`, `progress`, `graduate` | running drills, charts, the learner's record, experiments exported for other engines |
//! | 7 | `tui`, `markdown` | the screens; sheets as terminal lines (in the theme's colours) |
//! | 8 | `bench`, `doctor`, `cli` | commands |
//!
//! A new top-level module must be given a layer here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: &[(&str, u8)] = &[
    ("numbers", 0),
    ("fsutil", 0),
    ("paths", 0),
    ("i18n", 0),
    ("textsafe", 0),
    ("ml", 1),
    ("rl", 2),
    ("continual", 2),
    ("envs", 2),
    ("eval", 2),
    ("exercises", 3),
    ("content", 4),
    ("drills", 5),
    ("runner", 6),
    ("graduate", 6),
    ("plot", 6),
    ("progress", 6),
    ("tui", 7),
    ("markdown", 7),
    ("bench", 8),
    ("doctor", 8),
    ("cli", 8),
];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/ml/fused/mod.rs` → `["ml", "fused"]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut segs: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if matches!(segs.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        segs.pop();
    }
    segs
}

/// The text without `//` comments (doc comments included) and string literals.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if !in_str && c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' && prev != '\'' {
                in_str = !in_str;
            } else if !in_str {
                out.push(c);
            }
            prev = c;
        }
        out.push('\n');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path that starts with `crate`, `super` or `self` (with `use a::{b, c::d}`
/// groups spread out), as absolute module paths from the crate root.
fn paths_used(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let absolute = |segs: &[String]| -> Vec<String> {
        match segs[0].as_str() {
            "crate" => segs[1..].to_vec(),
            "self" => here.iter().chain(&segs[1..]).cloned().collect(),
            _ => {
                let ups = segs.iter().take_while(|s| *s == "super").count();
                let mut base = here[..here.len().saturating_sub(ups)].to_vec();
                base.extend(segs[ups..].iter().cloned());
                base
            }
        }
    };
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let at_word = i == 0 || !is_ident(chars[i - 1]) && chars[i - 1] != ':';
        let starts = |h: &str| h.chars().enumerate().all(|(k, c)| chars.get(i + k) == Some(&c));
        if at_word && ["crate::", "super::", "self::"].into_iter().any(starts) {
            // Read `a::b::c`, stopping at anything else.
            let mut segs = Vec::new();
            let mut j = i;
            loop {
                let start = j;
                while j < chars.len() && is_ident(chars[j]) {
                    j += 1;
                }
                if j == start {
                    break;
                }
                segs.push(chars[start..j].iter().collect::<String>());
                if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') && chars.get(j + 2) != Some(&'{') {
                    j += 2;
                } else {
                    break;
                }
            }
            let base = absolute(&segs);
            // A group: `crate::a::{b, c::d}` names `a::b` and `a::c::d`.
            if chars.get(j) == Some(&':') && chars.get(j + 2) == Some(&'{') {
                let close = chars[j..].iter().position(|&c| c == '}').map_or(chars.len(), |p| j + p);
                let group: String = chars[j + 3..close].iter().collect();
                for item in group.split(',') {
                    let item = item.split(" as ").next().unwrap_or("").trim();
                    let mut path = base.clone();
                    path.extend(
                        item.split("::")
                            .map(str::trim)
                            .filter(|s| !s.is_empty() && *s != "self" && *s != "*")
                            .map(String::from),
                    );
                    found.push(path);
                }
                i = close;
            } else {
                // `use super::*` (a test module reading its file) names no other file.
                if segs.iter().any(|s| !matches!(s.as_str(), "crate" | "super" | "self")) {
                    found.push(base);
                }
                i = j;
            }
        }
        i += 1;
    }
    found
}

struct Graph {
    /// File → the files it uses.
    edges: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    /// File → (top-level module it belongs to, the top-level modules it uses).
    tops: BTreeMap<PathBuf, (String, BTreeSet<String>)>,
}

fn graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut by_module: BTreeMap<Vec<String>, PathBuf> = BTreeMap::new();
    for f in &files {
        if f.file_name().is_some_and(|n| n == "main.rs") && f.parent() == Some(src) {
            continue; // the binary's root is not the library's
        }
        by_module.entry(module_of(src, f)).or_insert_with(|| f.clone());
    }
    let resolve =
        |segs: &[String]| -> Option<&PathBuf> { (0..=segs.len()).rev().find_map(|n| by_module.get(&segs[..n])) };
    let mut edges = BTreeMap::new();
    let mut tops = BTreeMap::new();
    for f in &files {
        let here = module_of(src, f);
        let text = std::fs::read_to_string(f).unwrap();
        let code = code_only(&text);
        let root = f.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs")
            || f.with_extension("").is_dir();
        let mut out = BTreeSet::new();
        let mut used_tops = BTreeSet::new();
        for path in paths_used(&code, &here) {
            if let Some(first) = path.first() {
                used_tops.insert(first.clone());
            }
            let Some(g) = resolve(&path) else { continue };
            // A module root naming its own children is structure, not an import.
            let child = module_of(src, g).starts_with(&here);
            if g != f && !(root && child) {
                out.insert(g.clone());
            }
        }
        edges.insert(f.clone(), out);
        tops.insert(f.clone(), (here.first().cloned().unwrap_or_default(), used_tops));
    }
    Graph { edges, tops }
}

/// Strongly connected groups of two or more files (Tarjan).
fn rings(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct T<'a> {
        edges: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on: BTreeSet<&'a PathBuf>,
        out: Vec<Vec<PathBuf>>,
    }
    fn strong<'a>(t: &mut T<'a>, v: &'a PathBuf) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in &t.edges[v] {
            if !t.index.contains_key(w) {
                strong(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v) {
            strong(&mut t, v);
        }
    }
    t.out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_two_files_import_each_other_directly_or_around_a_ring() {
    let g = graph(&src());
    let found = rings(&g.edges);
    let shown: Vec<String> = found
        .iter()
        .map(|r| r.iter().map(|p| p.strip_prefix(src()).unwrap().display().to_string()).collect::<Vec<_>>().join(" → "))
        .collect();
    assert!(
        found.is_empty(),
        "import rings in src/ (break each by moving what both use to a lower module):\n{}",
        shown.join("\n")
    );
}

#[test]
fn no_module_imports_from_a_higher_layer() {
    let layer: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let g = graph(&src());
    let mut wrong = Vec::new();
    for (file, (top, used)) in &g.tops {
        let name = file.strip_prefix(src()).unwrap().display().to_string();
        if top.is_empty() {
            continue; // lib.rs and main.rs stand above every layer
        }
        let Some(&mine) = layer.get(top.as_str()) else {
            wrong.push(format!("{name}: the module `{top}` has no layer in tests/layers.rs"));
            continue;
        };
        for u in used {
            if let Some(&theirs) = layer.get(u.as_str()) {
                if theirs > mine {
                    wrong.push(format!("{name} (`{top}`, layer {mine}) uses `{u}` (layer {theirs})"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "imports from a lower layer to a higher one:\n{}", wrong.join("\n"));
}

/// The scanner sees what a ring is made of: a made-up tree with one.
#[test]
fn the_scanner_finds_a_ring_and_a_layer_breach_in_a_made_up_tree() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("ml")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod ml;\npub mod rl;\n").unwrap();
    std::fs::write(src.join("ml/mod.rs"), "pub mod a;\npub mod b;\n").unwrap();
    std::fs::write(src.join("ml/a.rs"), "use super::b::f; // crate::rl in a comment is not a use\npub fn g() {}\n")
        .unwrap();
    std::fs::write(src.join("ml/b.rs"), "use crate::{ml::a::g, rl::h};\npub fn f() { g() }\n").unwrap();
    std::fs::write(src.join("rl.rs"), "pub fn h() { crate::ml::b::f() }\n").unwrap();
    let g = graph(src);
    let found = rings(&g.edges);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 3, "a.rs → b.rs → a.rs, and b.rs ↔ rl.rs: {found:?}");
    let (top, used) = &g.tops[&src.join("ml/b.rs")];
    assert_eq!(top, "ml");
    assert!(used.contains("rl"), "{used:?}");
    assert!(!g.tops[&src.join("ml/a.rs")].1.contains("rl"), "a comment is not a use");
}
