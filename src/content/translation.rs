//! Translations of the content: a zh file beside each English one.
//!
//! A translation holds **only prose**. Everything else — ids, kinds, correct
//! choices, numeric answers and tolerances, the order of steps, parameters,
//! presets, thresholds, links, code, study steps — has one source, the English
//! file, and the translated content takes it from there. So a zh quiz item
//! cannot disagree with its English item about the answer: it has no field to
//! disagree with (and a file that tries is refused, naming the field).
//!
//! | English file | its zh file | what the zh file holds |
//! |---|---|---|
//! | `cheatsheets/NN-slug.md` | `cheatsheets/NN-slug.zh.md` | front matter `title`, `summary`; the body with the same headings |
//! | `quizzes/NN-slug.toml` | `quizzes/NN-slug.zh.toml` | per `[[item]]`: `id`, `prompt`, `explanation`, and `choices` / `steps` / `reference` where the English item has them (same count, same order) |
//! | `exercises/ID.toml` | `exercises/ID.zh.toml` | `title`, `task`, `hints`, per `[[mistake]]` its `name` and `effect` |
//! | `drills/ID/drill.toml` | `drills/ID/drill.zh.toml` | `title`, `objective`, `charts` (titles in order), `[param]` help by key, `[claim.ID]` `text`/`why`/`breaks_with` (effects in order), `[prediction.ID]` `question`/`choices`/`explain` |
//! | `drills/ID/README.md` | `drills/ID/README.zh.md` | the README, with the same headings |
//!
//! What [`check`] refuses, besides malformed files and fields that belong to
//! the English file:
//! * a sheet or README whose headings differ in number or level from the
//!   English (section links are the English headings' slugs, by position);
//! * a section, quiz item, exercise part, parameter, claim, prediction or
//!   chart whose digits differ from its English counterpart's — a number
//!   quoted in prose is the same number in both languages — or whose links
//!   (`[drill:…]`, `[sheet:…]`, …) differ;
//! * a code block that differs (code is not translated);
//! * a term of `cheatsheets/glossary.toml` rendered otherwise: where the
//!   English uses the term, the zh file uses the glossary's word, and each
//!   zh sheet gives the English in parentheses once: 信用分配（credit assignment）;
//! * an English file without its zh file, once a content tree has any zh file.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use super::sheet::{sections, Section};
use super::{Answer, Content, ContentError};
use crate::i18n::Lang;

/// One term of the glossary (`cheatsheets/glossary.toml`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Term {
    pub en: String,
    pub zh: String,
    /// Other renderings that are right for another sense of the English word
    /// (an observation the agent reads, 观测, and one a drill reports without
    /// a verdict, 观察项): where the English uses the term, any of them does.
    #[serde(default)]
    pub also: Vec<String>,
    /// Variants the zh edition must not use for this term (it drifted
    /// between files): refused in every zh file and UI string, except inside
    /// the term itself or one of `also` (基准 inside 评测基准).
    #[serde(default)]
    pub avoid: Vec<String>,
    /// Whether each zh sheet gives the English in parentheses at the first
    /// use (`false` for a term the zh edition writes as a plain word of its
    /// own, like 本项目 for "the lab"; never for a term kept in English).
    #[serde(default = "yes")]
    pub gloss: bool,
}

fn yes() -> bool {
    true
}

impl Default for Term {
    fn default() -> Term {
        Term { en: String::new(), zh: String::new(), also: Vec::new(), avoid: Vec::new(), gloss: true }
    }
}

impl Term {
    /// The renderings the zh edition accepts for this term.
    fn renderings(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.zh.as_str()).chain(self.also.iter().map(String::as_str))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGlossary {
    #[serde(default)]
    term: Vec<Term>,
}

/// Parse the glossary file.
pub fn parse_glossary(text: &str) -> Result<Vec<Term>, String> {
    let g: RawGlossary = toml::from_str(text).map_err(|e| e.message().to_string())?;
    let mut seen = std::collections::HashSet::new();
    for t in &g.term {
        if t.en.trim().is_empty() || t.zh.trim().is_empty() {
            return Err("a term needs both `en` and `zh`".into());
        }
        if !seen.insert(t.en.to_lowercase()) {
            return Err(format!("term \"{}\" is listed twice", t.en));
        }
        if let Some(v) = t.avoid.iter().find(|v| v.trim().is_empty() || t.renderings().any(|r| r == v.as_str())) {
            return Err(format!(
                "term \"{}\": `avoid` lists \"{v}\", which is empty or the term's own rendering",
                t.en
            ));
        }
    }
    Ok(g.term)
}

/// Where `text` uses a variant the glossary refuses: (line, term, variant)
/// for each occurrence that is not inside an accepted rendering of the same
/// term (基准 inside 评测基准 is fine). Code (fenced blocks and inline
/// spans) is not prose and is skipped.
pub fn avoided<'g>(glossary: &'g [Term], text: &str) -> Vec<(usize, &'g Term, &'g str)> {
    let masked = mask_code(text);
    let mut out = Vec::new();
    for t in glossary {
        for v in &t.avoid {
            // Byte ranges covered by an accepted rendering.
            let covered: Vec<(usize, usize)> =
                t.renderings().flat_map(|r| masked.match_indices(r).map(move |(i, m)| (i, i + m.len()))).collect();
            for (i, m) in masked.match_indices(v.as_str()) {
                if covered.iter().any(|&(a, b)| a <= i && i + m.len() <= b) {
                    continue;
                }
                out.push((masked[..i].matches('\n').count() + 1, t, v.as_str()));
            }
        }
    }
    out.sort_by_key(|x| x.0);
    out
}

/// `text` with fenced code blocks and inline code spans blanked out (every
/// character but newlines becomes a space), so byte offsets and line numbers
/// stay those of `text`.
fn mask_code(text: &str) -> String {
    let blank = |s: &str| s.chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect::<String>();
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let opener: String = t.chars().take_while(|c| *c == '`' || *c == '~').collect();
        match &fence {
            Some(f) => {
                if t.starts_with(f.as_str()) && opener.len() >= f.len() && t[opener.len()..].trim().is_empty() {
                    fence = None;
                }
                out.push_str(&blank(line));
            }
            None if opener.len() >= 3 => {
                fence = Some(opener);
                out.push_str(&blank(line));
            }
            None => {
                for (i, part) in line.split('`').enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(&if i % 2 == 0 { part.to_string() } else { blank(part) });
                }
            }
        }
    }
    out
}

/// The message for a refused variant.
fn avoided_message(t: &Term, variant: &str) -> String {
    format!(
        "glossary: \"{variant}\" is a variant the glossary refuses for \"{}\"; write {} (cheatsheets/glossary.toml)",
        t.en, t.zh
    )
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SheetFront {
    title: String,
    summary: String,
}

/// A translated sheet.
#[derive(Debug, Clone)]
pub struct SheetText {
    pub file: String,
    pub title: String,
    pub summary: String,
    pub body: String,
    pub body_line_offset: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QuizText {
    #[serde(default, rename = "item")]
    items: Vec<ItemText>,
}

/// A translated quiz item: its prose only.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemText {
    pub id: String,
    pub prompt: String,
    pub explanation: String,
    pub choices: Option<Vec<String>>,
    pub steps: Option<Vec<String>>,
    pub reference: Option<String>,
    /// A numeric template's prose (`[item.template]` with `prompt` and, where the English has one, `explanation`).
    pub template: Option<TemplateText>,
}

/// A translated numeric template: the same placeholders as the English.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateText {
    pub prompt: String,
    pub explanation: Option<String>,
}

/// A translated exercise.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExerciseText {
    pub title: String,
    pub task: String,
    pub hints: Vec<String>,
    #[serde(default, rename = "mistake")]
    pub mistakes: Vec<MistakeText>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MistakeText {
    pub name: String,
    pub effect: String,
}

/// A translated `drill.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrillText {
    pub title: String,
    pub objective: String,
    #[serde(default)]
    pub charts: Vec<String>,
    #[serde(default)]
    pub param: BTreeMap<String, String>,
    #[serde(default)]
    pub claim: BTreeMap<String, ClaimText>,
    #[serde(default)]
    pub prediction: BTreeMap<String, PredictionText>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimText {
    pub text: String,
    pub why: Option<String>,
    #[serde(default)]
    pub breaks_with: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictionText {
    pub question: String,
    #[serde(default)]
    pub choices: Vec<String>,
    pub explain: String,
}

/// Every translated file of one language, parsed but not yet checked.
#[derive(Debug, Clone, Default)]
pub struct Translation {
    pub lang: Lang,
    pub sheets: BTreeMap<u8, SheetText>,
    /// By item id: (file, text).
    pub items: HashMap<String, (String, ItemText)>,
    pub exercises: HashMap<String, ExerciseText>,
    pub drills: HashMap<String, DrillText>,
    pub readmes: HashMap<String, String>,
    /// Quiz files seen, for the "no zh file" check.
    pub quiz_files: Vec<String>,
    /// Files that did not parse (already reported): not "missing" too.
    pub broken: std::collections::HashSet<String>,
}

impl Translation {
    pub fn is_empty(&self) -> bool {
        self.sheets.is_empty()
            && self.items.is_empty()
            && self.exercises.is_empty()
            && self.drills.is_empty()
            && self.readmes.is_empty()
    }
}

/// Whether a content path is a translation, and into which language:
/// `cheatsheets/03-agentic-rl.zh.md`, `drills/x/README.zh.md`, …
pub fn lang_of_path(path: &str) -> Option<Lang> {
    let name = path.rsplit('/').next()?;
    let stem = name.strip_suffix(".md").or_else(|| name.strip_suffix(".toml"))?;
    let (_, code) = stem.rsplit_once('.')?;
    Lang::ALL.into_iter().find(|l| *l != Lang::En && l.code() == code)
}

/// Field names a translation must not carry, with where they come from.
const SHARED_FIELDS: &[&str] = &[
    "level",
    "kind",
    "correct",
    "value",
    "tolerance",
    "sheet",
    "drill",
    "check",
    "track",
    "order",
    "function",
    "quiz",
    "stub",
    "solution",
    "script",
    "plug",
    "id",
    "drills",
    "status",
    "step",
    "presets",
    "chart",
];

/// A TOML error, with a refused shared field said plainly.
fn toml_message(e: &toml::de::Error) -> String {
    let m = e.message();
    if let Some(field) = m.strip_prefix("unknown field `").and_then(|r| r.split('`').next()) {
        if SHARED_FIELDS.contains(&field) {
            return format!(
                "`{field}` is not prose: it is shared with the English file and comes from there; \
                 leave it out of the translation"
            );
        }
    }
    m.to_string()
}

/// Parse one translated file into `tr`. `path` is relative to the content root.
pub fn add_file(tr: &mut Translation, path: &str, text: &str) -> Result<(), ContentError> {
    let r = parse_file(tr, path, text);
    if r.is_err() {
        tr.broken.insert(path.to_string());
    }
    r
}

fn parse_file(tr: &mut Translation, path: &str, text: &str) -> Result<(), ContentError> {
    let err = |line: Option<usize>, message: String| ContentError { file: path.to_string(), line, item: None, message };
    let toml_err = |e: toml::de::Error| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        err(line, toml_message(&e))
    };
    let parts: Vec<&str> = path.split('/').collect();
    let code = format!(".{}.", tr.lang.code());
    match parts.as_slice() {
        ["cheatsheets", name] => {
            let english = name.replace(&code, ".");
            let track = super::TRACKS
                .iter()
                .find(|t| format!("{}.md", t.stem()) == english)
                .map(|t| t.number)
                .ok_or_else(|| err(None, format!("no track has the sheet {english}")))?;
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            let rest = text
                .strip_prefix("+++\n")
                .ok_or_else(|| err(Some(1), "expected a `+++` front matter with `title` and `summary`".into()))?;
            let end = rest.find("\n+++").ok_or_else(|| err(None, "front matter is not closed by `+++`".into()))?;
            let front: SheetFront = toml::from_str(&rest[..end]).map_err(|e| err(Some(2), toml_message(&e)))?;
            let after = &rest[end + 4..];
            let body = after.strip_prefix('\n').unwrap_or(after);
            let body_line_offset = rest[..end].split('\n').count() + 2;
            tr.sheets.insert(
                track,
                SheetText {
                    file: path.to_string(),
                    title: front.title,
                    summary: front.summary,
                    body: body.to_string(),
                    body_line_offset,
                },
            );
        }
        ["quizzes", _] => {
            let q: QuizText = toml::from_str(text).map_err(toml_err)?;
            tr.quiz_files.push(path.to_string());
            for item in q.items {
                if let Some((prev, _)) = tr.items.get(&item.id) {
                    return Err(ContentError {
                        item: Some(item.id.clone()),
                        ..err(None, format!("translated twice (also in {prev})"))
                    });
                }
                tr.items.insert(item.id.clone(), (path.to_string(), item));
            }
        }
        ["exercises", name] => {
            let x: ExerciseText = toml::from_str(text).map_err(toml_err)?;
            tr.exercises.insert(name.replace(&code, ".").trim_end_matches(".toml").to_string(), x);
        }
        ["drills", id, name] if *name == format!("drill.{}.toml", tr.lang.code()) => {
            let d: DrillText = toml::from_str(text).map_err(toml_err)?;
            tr.drills.insert(id.to_string(), d);
        }
        ["drills", id, name] if *name == format!("README.{}.md", tr.lang.code()) => {
            tr.readmes.insert(id.to_string(), text.to_string());
        }
        _ => return Err(err(None, "unexpected translated file".into())),
    }
    Ok(())
}

// ------------------------------------------------------------------ checks

/// The numbers written with digits in `text`, as a sorted list (`0.353`, `20`,
/// `2402.03300`); link targets (`[sheet:3#…]`) and URLs are left out.
pub fn numbers(text: &str) -> Vec<String> {
    let text = strip_links(text);
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let mut s = String::new();
            while i < chars.len() && chars[i].is_ascii_digit() {
                s.push(chars[i]);
                i += 1;
            }
            if i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
                s.push('.');
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    s.push(chars[i]);
                    i += 1;
                }
            }
            out.push(s);
        } else {
            i += 1;
        }
    }
    out.sort();
    out
}

/// `text` without `[scheme:…]` link targets and without `(http…)` URLs.
fn strip_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['[', '(']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let (open, close) = if tail.starts_with('[') { ('[', ']') } else { ('(', ')') };
        let inner_start = open.len_utf8();
        let is_link = if open == '[' {
            ["drill:", "sheet:", "quiz:", "exercise:"].iter().any(|s| tail[inner_start..].starts_with(s))
        } else {
            tail[inner_start..].starts_with("http")
        };
        match (is_link, tail.find(close)) {
            (true, Some(end)) => {
                out.push(' ');
                rest = &tail[end + 1..];
            }
            _ => {
                out.push(open);
                rest = &tail[inner_start..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The `[scheme:…]` links in `text`, sorted.
pub fn links(text: &str) -> Vec<String> {
    let mut out: Vec<String> =
        super::links::scan_links(text).into_iter().filter_map(|(_, l)| l.ok()).map(|l| format!("{l:?}")).collect();
    out.sort();
    out
}

/// How two sorted lists differ: "en has 0.5 ×2, zh ×1; …".
fn list_diff(en: &[String], zh: &[String]) -> Option<String> {
    if en == zh {
        return None;
    }
    let count = |v: &[String]| {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for x in v {
            *m.entry(x.clone()).or_default() += 1;
        }
        m
    };
    let (a, b) = (count(en), count(zh));
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let parts: Vec<String> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| format!("{k} (English {}×, translation {}×)", a.get(k).unwrap_or(&0), b.get(k).unwrap_or(&0)))
        .collect();
    Some(parts.join(", "))
}

/// The fenced code blocks of a Markdown text, verbatim.
fn code_blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<(String, String)> = None; // (fence, text)
    for line in text.lines() {
        let t = line.trim_start();
        match cur.as_mut() {
            Some((fence, buf)) => {
                buf.push_str(line);
                buf.push('\n');
                if t.starts_with(fence.as_str())
                    && t.trim_start_matches(fence.chars().next().unwrap()).trim().is_empty()
                {
                    out.push(std::mem::take(buf));
                    cur = None;
                }
            }
            None => {
                let fence: String = t.chars().take_while(|c| *c == '`' || *c == '~').collect();
                if fence.len() >= 3 {
                    cur = Some((fence, format!("{line}\n")));
                }
            }
        }
    }
    if let Some((_, buf)) = cur {
        out.push(buf);
    }
    out
}

/// `text` without its fenced code blocks.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        let t = line.trim_start();
        let opener: String = t.chars().take_while(|c| *c == '`' || *c == '~').collect();
        match &fence {
            Some(f) => {
                if t.starts_with(f.as_str()) && opener.len() >= f.len() && t[opener.len()..].trim().is_empty() {
                    fence = None;
                }
            }
            None if opener.len() >= 3 => fence = Some(opener),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// `text` without inline code spans and `[scheme:…]` links: names in code
/// (`agentlab`, `masked_cross_entropy`) and ids in links are not prose.
fn without_code_and_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 0 {
            out.push_str(part);
        } else {
            out.push(' ');
        }
    }
    strip_links(&out)
}

/// Whether the English prose uses `term` as a word (case-insensitive; the
/// word may take an ending: "rewards", "masked", "sampling").
fn english_uses(text: &str, term: &str) -> bool {
    let hay = without_code_and_links(text).to_lowercase();
    let needle = term.to_lowercase();
    let word_char = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    hay.match_indices(&needle).any(|(i, m)| {
        let before_ok = !hay[..i].chars().next_back().is_some_and(word_char);
        let rest = &hay[i + m.len()..];
        // "clip" → "clipped", "clipping": the last consonant doubles before -ed and -ing.
        let doubled = needle.chars().next_back().filter(|c| c.is_ascii_alphabetic() && !"aeiouwy".contains(*c));
        let rest = match doubled {
            Some(c) if rest.starts_with(c) && (rest[1..].starts_with("ed") || rest[1..].starts_with("ing")) => {
                &rest[1..]
            }
            _ => rest,
        };
        let ending = ["ing", "es", "ed", "s", "d", ""].iter().find(|e| rest.starts_with(**e)).map_or(0, |e| e.len());
        let after_ok = !rest[ending..].chars().next().is_some_and(word_char);
        before_ok && after_ok
    })
}

/// Whether `zh` gives the English term in parentheses right after the Chinese one.
fn annotated(zh: &str, term: &Term) -> bool {
    let lower = zh.to_lowercase();
    let en = term.en.to_lowercase();
    lower.match_indices(&term.zh.to_lowercase()).any(|(i, m)| {
        let after = lower[i + m.len()..].trim_start();
        after
            .strip_prefix('（')
            .or_else(|| after.strip_prefix('('))
            .is_some_and(|inner| inner.trim_start().starts_with(&en))
    })
}

/// Glossary problems of a translated text against its English.
fn glossary_problems(glossary: &[Term], en: &str, zh: &str, annotate: bool) -> Vec<String> {
    let (en, zh) = (prose(en), prose(zh));
    let lower = en.to_lowercase();
    let mut out = Vec::new();
    for t in glossary {
        // "prompt" inside "prompt injection" is that longer term's, with its own rendering.
        let en = glossary
            .iter()
            .filter(|o| o.en.len() > t.en.len() && o.en.to_lowercase().contains(&t.en.to_lowercase()))
            .fold(lower.clone(), |text, o| text.replace(&o.en.to_lowercase(), " "));
        if !english_uses(&en, &t.en) {
            continue;
        }
        if !t.renderings().any(|r| zh.contains(r)) {
            out.push(format!("glossary: the English says \"{}\"; the translation should say {} there", t.en, t.zh));
        } else if annotate && t.gloss && !t.zh.eq_ignore_ascii_case(&t.en) && zh.contains(&t.zh) && !annotated(&zh, t) {
            out.push(format!("glossary: give the English term once, at the first {}: {}（{}）", t.zh, t.zh, t.en));
        }
    }
    out
}

/// The text of each section (before the first heading, then one per heading).
fn section_texts(body: &str, heads: &[Section]) -> Vec<String> {
    let lines: Vec<&str> = body.split('\n').collect();
    let mut starts: Vec<usize> = vec![0];
    starts.extend(heads.iter().map(|s| s.line.saturating_sub(1)));
    starts.push(lines.len());
    starts.windows(2).map(|w| lines[w[0].min(lines.len())..w[1].min(lines.len())].join("\n")).collect()
}

/// Compare a translated Markdown body with its English one: headings, and per
/// section its numbers, links and code blocks.
fn compare_markdown(en: &str, zh: &str) -> Vec<(Option<usize>, String)> {
    let (es, zs) = (sections(en), sections(zh));
    let levels = |s: &[Section]| s.iter().map(|x| x.level).collect::<Vec<_>>();
    if levels(&es) != levels(&zs) {
        let at = es.iter().zip(&zs).position(|(a, b)| a.level != b.level).unwrap_or(es.len().min(zs.len()));
        let what = match (es.get(at), zs.get(at)) {
            (Some(a), Some(b)) => format!(
                "heading {} is \"{}\" (level {}) in English but \"{}\" (level {}) here",
                at + 1,
                a.title,
                a.level,
                b.title,
                b.level
            ),
            (Some(a), None) => format!("the English has more headings: \"{}\" has no counterpart", a.title),
            (None, Some(b)) => format!("\"{}\" has no counterpart in the English", b.title),
            (None, None) => String::new(),
        };
        return vec![(
            zs.get(at).map(|s| s.line),
            format!(
                "the headings must match the English ones in number and level ({} here, {} in English): {what}",
                zs.len(),
                es.len()
            ),
        )];
    }
    let (et, zt) = (section_texts(en, &es), section_texts(zh, &zs));
    let mut out = Vec::new();
    for (i, (a, b)) in et.iter().zip(&zt).enumerate() {
        let (line, name) = match i {
            0 => (Some(1), "the text before the first heading".to_string()),
            _ => (Some(zs[i - 1].line), format!("section \"{}\"", es[i - 1].title)),
        };
        if let Some(d) = list_diff(&numbers(&prose(a)), &numbers(&prose(b))) {
            out.push((line, format!("{name}: its numbers differ from the English: {d}")));
        }
        if let Some(d) = list_diff(&links(a), &links(b)) {
            out.push((line, format!("{name}: its links differ from the English: {d}")));
        }
        if code_blocks(a) != code_blocks(b) {
            out.push((line, format!("{name}: a code block differs from the English (code is not translated)")));
        }
    }
    out
}

/// Compare one translated unit (a quiz item, a claim, …) with the English.
/// A translated template has the English one's texts, with the same placeholders.
fn template_problems(en: Option<&super::template::Template>, zh: Option<&TemplateText>) -> Vec<String> {
    use super::template::placeholders;
    match (en, zh) {
        (None, None) => Vec::new(),
        (Some(_), None) => vec!["`template` is missing (the English item has one)".into()],
        (None, Some(_)) => vec!["`template` does not belong to this item (the English has none)".into()],
        (Some(e), Some(z)) => {
            let mut out = Vec::new();
            let pairs = [
                ("prompt", Some(&e.prompt), Some(&z.prompt)),
                ("explanation", e.explanation.as_ref(), z.explanation.as_ref()),
            ];
            for (field, a, b) in pairs {
                match (a, b) {
                    (Some(a), Some(b)) if placeholders(a) != placeholders(b) => out.push(format!(
                        "template `{field}` has placeholders {:?}, the English {:?}",
                        placeholders(b),
                        placeholders(a)
                    )),
                    (Some(_), None) => out.push(format!("template `{field}` is missing (the English has it)")),
                    (None, Some(_)) => out.push(format!("template `{field}` does not belong (the English has none)")),
                    _ => {}
                }
            }
            out
        }
    }
}

fn compare_unit(name: &str, en: &[&str], zh: &[&str]) -> Vec<String> {
    let join = |v: &[&str]| v.join("\n");
    let mut out = Vec::new();
    if let Some(d) = list_diff(&numbers(&join(en)), &numbers(&join(zh))) {
        out.push(format!("{name}: its numbers differ from the English: {d}"));
    }
    if let Some(d) = list_diff(&links(&join(en)), &links(&join(zh))) {
        out.push(format!("{name}: its links differ from the English: {d}"));
    }
    out
}

/// Every problem of a translation against the English content it overlays.
/// A translation of an English file that did not load (`broken`) is not
/// checked: its problems follow from that file's, reported already.
pub(crate) fn check(
    content: &Content,
    tr: &Translation,
    glossary: &[Term],
    broken: &super::Broken,
) -> Vec<ContentError> {
    let mut errors = Vec::new();
    let code = tr.lang.code();
    let mut push = |file: &str, line: Option<usize>, item: Option<&str>, message: String| {
        errors.push(ContentError { file: file.to_string(), line, item: item.map(str::to_string), message })
    };
    if tr.is_empty() {
        return errors;
    }
    for s in content.sheets.iter().filter(|s| !broken.sheets.contains(&s.meta.track)) {
        let file = s.file.replace(".md", &format!(".{code}.md"));
        let Some(z) = tr.sheets.get(&s.meta.track) else {
            if !tr.broken.contains(&file) {
                push(&file, None, None, format!("missing: {} has no {code} translation", s.file));
            }
            continue;
        };
        for (line, m) in compare_markdown(&s.body, &z.body) {
            push(&z.file, line.map(|l| l + z.body_line_offset), None, m);
        }
        let en_all = format!("{}\n{}\n{}", s.meta.title, s.meta.summary, s.body);
        let zh_all = format!("{}\n{}\n{}", z.title, z.summary, z.body);
        for m in glossary_problems(glossary, &en_all, &zh_all, true) {
            push(&z.file, None, None, m);
        }
        for (line, t, v) in avoided(glossary, &z.body) {
            push(&z.file, Some(line + z.body_line_offset), None, avoided_message(t, v));
        }
        for (_, t, v) in avoided(glossary, &format!("{}\n{}", z.title, z.summary)) {
            push(&z.file, Some(2), None, avoided_message(t, v));
        }
    }
    // A quiz file or item that did not load: which items the translation should have is unknown.
    let quizzes = if broken.quiz_items { &[][..] } else { &content.quizzes[..] };
    for q in quizzes {
        let file = q.file.replace(".toml", &format!(".{code}.toml"));
        if !tr.quiz_files.contains(&file) {
            if !tr.broken.contains(&file) {
                push(&file, None, None, format!("missing: {} has no {code} translation", q.file));
            }
            continue;
        }
        let (mut en_all, mut zh_all) = (String::new(), String::new());
        for item in &q.items {
            let Some((zfile, z)) = tr.items.get(&item.id) else {
                push(&file, None, Some(&item.id), "this item has no translation".into());
                continue;
            };
            if *zfile != file {
                push(zfile, None, Some(&item.id), format!("belongs in {file}, beside its English item"));
            }
            let mut en: Vec<&str> = vec![&item.prompt, &item.explanation];
            let mut zh: Vec<&str> = vec![&z.prompt, &z.explanation];
            let shape = |field: &str, english: Option<&Vec<String>>, ours: Option<&Vec<String>>| match (english, ours) {
                (Some(a), Some(b)) if a.len() != b.len() => Some(format!(
                    "`{field}` has {} entries, the English item {} (same count, same order)",
                    b.len(),
                    a.len()
                )),
                (Some(_), None) => Some(format!("`{field}` is missing (the English item has it)")),
                (None, Some(_)) => Some(format!("`{field}` does not belong to this item (the English has none)")),
                _ => None,
            };
            let (choices, steps, reference) = match &item.answer {
                Answer::Choice { choices, .. } => (Some(choices), None, None),
                Answer::Order { steps } => (None, Some(steps), None),
                Answer::Open { reference } => (None, None, Some(reference)),
                Answer::Numeric { .. } => (None, None, None),
            };
            for m in [
                shape("choices", choices, z.choices.as_ref()),
                shape("steps", steps, z.steps.as_ref()),
                match (reference, &z.reference) {
                    (Some(_), None) => Some("`reference` is missing (the English item has it)".to_string()),
                    (None, Some(_)) => Some("`reference` does not belong to this item".to_string()),
                    _ => None,
                },
            ]
            .into_iter()
            .flatten()
            {
                push(zfile, None, Some(&item.id), m);
            }
            for (a, b) in [(choices, z.choices.as_ref()), (steps, z.steps.as_ref())] {
                en.extend(a.into_iter().flatten().map(String::as_str));
                zh.extend(b.into_iter().flatten().map(String::as_str));
            }
            en.extend(reference.map(String::as_str));
            zh.extend(z.reference.as_deref());
            for m in template_problems(item.template.as_ref(), z.template.as_ref()) {
                push(zfile, None, Some(&item.id), m);
            }
            for m in compare_unit("", &en, &zh) {
                push(zfile, None, Some(&item.id), m.trim_start_matches(": ").to_string());
            }
            for (_, t, v) in avoided(glossary, &zh.join("\n")) {
                push(zfile, None, Some(&item.id), avoided_message(t, v));
            }
            en_all.push_str(&en.join("\n"));
            zh_all.push_str(&zh.join("\n"));
        }
        for m in glossary_problems(glossary, &en_all, &zh_all, false) {
            push(&file, None, None, m);
        }
    }
    for (id, (zfile, _)) in &tr.items {
        if content.item(id).is_none() && !broken.quiz_items {
            push(zfile, None, Some(id), "no English item has this id".into());
        }
    }
    for x in &content.exercises {
        let file = format!("exercises/{}.{code}.toml", x.id);
        let Some(z) = tr.exercises.get(&x.id) else {
            if !tr.broken.contains(&file) {
                push(&file, None, None, format!("missing: exercises/{}.toml has no {code} translation", x.id));
            }
            continue;
        };
        if z.hints.len() != x.hints.len() {
            push(&file, None, None, format!("{} hints, the English {} (same order)", z.hints.len(), x.hints.len()));
        }
        if z.mistakes.len() != x.mistakes.len() {
            push(
                &file,
                None,
                None,
                format!("{} [[mistake]], the English {} (same order)", z.mistakes.len(), x.mistakes.len()),
            );
        }
        let mut en: Vec<&str> = vec![&x.title, &x.task];
        let mut zh: Vec<&str> = vec![&z.title, &z.task];
        en.extend(x.hints.iter().map(String::as_str));
        zh.extend(z.hints.iter().map(String::as_str));
        en.extend(x.mistakes.iter().flat_map(|m| [m.name.as_str(), m.effect.as_str()]));
        zh.extend(z.mistakes.iter().flat_map(|m| [m.name.as_str(), m.effect.as_str()]));
        for m in compare_unit("the exercise", &en, &zh) {
            push(&file, None, None, m);
        }
        for m in glossary_problems(glossary, &en.join("\n"), &zh.join("\n"), false) {
            push(&file, None, None, m);
        }
        for (_, t, v) in avoided(glossary, &zh.join("\n")) {
            push(&file, None, None, avoided_message(t, v));
        }
    }
    for id in tr.exercises.keys() {
        if content.exercise(id).is_none() && !broken.exercises.contains(id) {
            push(&format!("exercises/{id}.{code}.toml"), None, None, "no English exercise has this id".into());
        }
    }
    for d in &content.drills {
        let file = format!("drills/{}/drill.{code}.toml", d.id);
        let readme_file = format!("drills/{}/README.{code}.md", d.id);
        match tr.readmes.get(&d.id) {
            // An English README whose code fence swallows its headings is reported as such.
            Some(_) if super::sheet::unclosed_fence(&d.readme, 0).is_some() => {}
            None => push(&readme_file, None, None, format!("missing: drills/{}/README.md has no translation", d.id)),
            Some(r) => {
                for (line, m) in compare_markdown(&d.readme, r) {
                    push(&readme_file, line, None, m);
                }
                for m in glossary_problems(glossary, &d.readme, r, false) {
                    push(&readme_file, None, None, m);
                }
                for (line, t, v) in avoided(glossary, r) {
                    push(&readme_file, Some(line), None, avoided_message(t, v));
                }
            }
        }
        let Some(z) = tr.drills.get(&d.id) else {
            if !tr.broken.contains(&file) {
                push(&file, None, None, format!("missing: drills/{}/drill.toml has no translation", d.id));
            }
            continue;
        };
        for m in compare_unit("objective", &[&d.objective], &[&z.objective]) {
            push(&file, None, None, m);
        }
        if z.charts.len() != d.charts.len() {
            push(
                &file,
                None,
                None,
                format!("`charts` has {} titles, drill.toml {} [[chart]] (same order)", z.charts.len(), d.charts.len()),
            );
        }
        for (i, (a, b)) in d.charts.iter().zip(&z.charts).enumerate() {
            for m in compare_unit(&format!("chart {}", i + 1), &[&a.title], &[b]) {
                push(&file, None, None, m);
            }
        }
        for p in &d.params {
            match z.param.get(&p.key) {
                None => push(&file, None, None, format!("[param] has no help for `{}`", p.key)),
                Some(h) => {
                    for m in compare_unit(&format!("param `{}`", p.key), &[&p.help], &[h]) {
                        push(&file, None, None, m);
                    }
                }
            }
        }
        for k in z.param.keys().filter(|k| !d.params.iter().any(|p| &p.key == *k)) {
            push(&file, None, None, format!("[param] `{k}`: the drill has no such parameter"));
        }
        for c in &d.claims {
            let Some(zc) = z.claim.get(&c.id) else {
                push(&file, None, None, format!("claim `{}` has no [claim.{}] translation", c.id, c.id));
                continue;
            };
            if c.why.is_some() != zc.why.is_some() {
                push(&file, None, None, format!("claim `{}`: `why` exactly where the English has it", c.id));
            }
            if c.breaks_with.len() != zc.breaks_with.len() {
                push(
                    &file,
                    None,
                    None,
                    format!(
                        "claim `{}`: `breaks_with` lists {} effects, the English {}",
                        c.id,
                        zc.breaks_with.len(),
                        c.breaks_with.len()
                    ),
                );
            }
            let mut en: Vec<&str> = vec![&c.text];
            en.extend(c.why.as_deref());
            en.extend(c.breaks_with.iter().map(|b| b.effect.as_str()));
            let mut zh: Vec<&str> = vec![&zc.text];
            zh.extend(zc.why.as_deref());
            zh.extend(zc.breaks_with.iter().map(String::as_str));
            for m in compare_unit(&format!("claim `{}`", c.id), &en, &zh) {
                push(&file, None, None, m);
            }
        }
        for k in z.claim.keys().filter(|k| !d.claims.iter().any(|c| &c.id == *k)) {
            push(&file, None, None, format!("[claim.{k}]: the drill has no such claim"));
        }
        for p in &d.predictions {
            let Some(zp) = z.prediction.get(&p.id) else {
                push(&file, None, None, format!("prediction `{}` has no [prediction.{}] translation", p.id, p.id));
                continue;
            };
            if zp.choices.len() != p.choices.len() {
                push(
                    &file,
                    None,
                    None,
                    format!("prediction `{}`: {} choices, the English {}", p.id, zp.choices.len(), p.choices.len()),
                );
            }
            let mut en: Vec<&str> = vec![&p.question, &p.explain];
            en.extend(p.choices.iter().map(String::as_str));
            let mut zh: Vec<&str> = vec![&zp.question, &zp.explain];
            zh.extend(zp.choices.iter().map(String::as_str));
            for m in compare_unit(&format!("prediction `{}`", p.id), &en, &zh) {
                push(&file, None, None, m);
            }
        }
        for k in z.prediction.keys().filter(|k| !d.predictions.iter().any(|p| &p.id == *k)) {
            push(&file, None, None, format!("[prediction.{k}]: the drill has no such prediction"));
        }
        // The whole drill.toml's prose holds the glossary as its README does.
        let en_all = drill_prose_en(d);
        let zh_all = drill_prose_zh(z);
        for m in glossary_problems(glossary, &en_all, &zh_all, false) {
            push(&file, None, None, m);
        }
        for (_, t, v) in avoided(glossary, &zh_all) {
            push(&file, None, None, avoided_message(t, v));
        }
    }
    for id in tr.drills.keys().chain(tr.readmes.keys()) {
        if content.drill(id).is_none() && !broken.drills.contains(id) {
            push(&format!("drills/{id}"), None, None, "a translation of a drill that does not exist".into());
        }
    }
    errors
}

/// Every prose field of an English `drill.toml`, one per line.
fn drill_prose_en(d: &super::DrillMeta) -> String {
    let mut v: Vec<&str> = vec![&d.title, &d.objective];
    v.extend(d.charts.iter().map(|c| c.title.as_str()));
    v.extend(d.params.iter().map(|p| p.help.as_str()));
    for c in &d.claims {
        v.push(&c.text);
        v.extend(c.why.as_deref());
        v.extend(c.breaks_with.iter().map(|b| b.effect.as_str()));
    }
    for p in &d.predictions {
        v.push(&p.question);
        v.push(&p.explain);
        v.extend(p.choices.iter().map(String::as_str));
    }
    v.join("\n")
}

/// Every prose field of a translated `drill.toml`, one per line.
fn drill_prose_zh(z: &DrillText) -> String {
    let mut v: Vec<&str> = vec![&z.title, &z.objective];
    v.extend(z.charts.iter().map(String::as_str));
    v.extend(z.param.values().map(String::as_str));
    for c in z.claim.values() {
        v.push(&c.text);
        v.extend(c.why.as_deref());
        v.extend(c.breaks_with.iter().map(String::as_str));
    }
    for p in z.prediction.values() {
        v.push(&p.question);
        v.push(&p.explain);
        v.extend(p.choices.iter().map(String::as_str));
    }
    v.join("\n")
}

/// The UI strings of `lang` (`assets/locales/<lang>/*.ftl`, built into the
/// binary) against the glossary: a variant it refuses is reported with its
/// file and line. The English `en` side of a term is not checked here (a
/// key's English and translation are compared by `tests/i18n_keys.rs`).
pub fn ui_problems(glossary: &[Term], lang: crate::i18n::Lang) -> Vec<ContentError> {
    let mut out = Vec::new();
    for (file, text) in crate::i18n::sources(lang) {
        // Comment lines are notes for translators, not strings a learner sees.
        let strings: String =
            text.lines().map(|l| if l.trim_start().starts_with('#') { "" } else { l }).collect::<Vec<_>>().join("\n");
        for (line, t, v) in avoided(glossary, &strings) {
            out.push(ContentError {
                file: format!("assets/locales/{file}"),
                line: Some(line),
                item: None,
                message: avoided_message(t, v),
            });
        }
    }
    out
}

// ------------------------------------------------------------------ applying

/// `content` with the prose of `tr` in place of the English (what has no
/// translation stays English). The sections keep the English slugs, by
/// position, so links and reading progress are the same in every language.
pub fn apply(content: &Content, tr: &Translation) -> Content {
    let mut c = content.clone();
    c.lang = tr.lang;
    for s in &mut c.sheets {
        let Some(z) = tr.sheets.get(&s.meta.track) else { continue };
        let mut secs = sections(&z.body);
        if secs.len() != s.sections.len() {
            continue;
        }
        for (mine, en) in secs.iter_mut().zip(&s.sections) {
            mine.slug = en.slug.clone();
            mine.line += z.body_line_offset;
        }
        s.meta.title = z.title.clone();
        s.meta.summary = z.summary.clone();
        s.body = z.body.clone();
        s.body_line_offset = z.body_line_offset;
        s.sections = secs;
        s.file = z.file.clone();
    }
    for q in &mut c.quizzes {
        for item in &mut q.items {
            let Some((_, z)) = tr.items.get(&item.id) else { continue };
            item.prompt = z.prompt.clone();
            item.explanation = z.explanation.clone();
            if let (Some(t), Some(zt)) = (&mut item.template, &z.template) {
                t.prompt = zt.prompt.clone();
                if zt.explanation.is_some() {
                    t.explanation = zt.explanation.clone();
                }
            }
            match &mut item.answer {
                Answer::Choice { choices, .. } => replace_same_len(choices, z.choices.as_ref()),
                Answer::Order { steps } => replace_same_len(steps, z.steps.as_ref()),
                Answer::Open { reference } => {
                    if let Some(r) = &z.reference {
                        *reference = r.clone();
                    }
                }
                Answer::Numeric { .. } => {}
            }
        }
    }
    for x in &mut c.exercises {
        let Some(z) = tr.exercises.get(&x.id) else { continue };
        x.title = z.title.clone();
        x.task = z.task.clone();
        replace_same_len(&mut x.hints, Some(&z.hints));
        if z.mistakes.len() == x.mistakes.len() {
            for (m, zm) in x.mistakes.iter_mut().zip(&z.mistakes) {
                m.name = zm.name.clone();
                m.effect = zm.effect.clone();
            }
        }
    }
    for d in &mut c.drills {
        if let Some(r) = tr.readmes.get(&d.id) {
            d.readme = r.clone();
        }
        let Some(z) = tr.drills.get(&d.id) else { continue };
        d.title = z.title.clone();
        d.objective = z.objective.clone();
        if z.charts.len() == d.charts.len() {
            for (ch, t) in d.charts.iter_mut().zip(&z.charts) {
                ch.title = t.clone();
            }
        }
        for p in &mut d.params {
            if let Some(h) = z.param.get(&p.key) {
                p.help = h.clone();
            }
        }
        for cl in &mut d.claims {
            let Some(zc) = z.claim.get(&cl.id) else { continue };
            cl.text = zc.text.clone();
            if zc.why.is_some() {
                cl.why = zc.why.clone();
            }
            if zc.breaks_with.len() == cl.breaks_with.len() {
                for (b, e) in cl.breaks_with.iter_mut().zip(&zc.breaks_with) {
                    b.effect = e.clone();
                }
            }
        }
        for p in &mut d.predictions {
            let Some(zp) = z.prediction.get(&p.id) else { continue };
            p.question = zp.question.clone();
            p.explain = zp.explain.clone();
            replace_same_len(&mut p.choices, Some(&zp.choices));
        }
    }
    c
}

fn replace_same_len(target: &mut Vec<String>, with: Option<&Vec<String>>) {
    if let Some(w) = with.filter(|w| w.len() == target.len()) {
        target.clone_from(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_skip_links_and_urls() {
        let n = numbers(
            "GRPO (arXiv [2402.03300](https://arxiv.org/abs/2402.03300)) held on 19 of 20 seeds, see [sheet:3#x-2].",
        );
        assert_eq!(n, ["19", "20", "2402.03300"]);
        assert_eq!(numbers("在 20 个种子中有 19 个成立"), ["19", "20"]);
        assert_eq!(numbers("0.353 [0.156, 0.797]"), ["0.156", "0.353", "0.797"]);
    }

    #[test]
    fn markdown_comparison_finds_headings_numbers_links_and_code() {
        let en = "# A\n\nIt took 38 s. See [drill:x].\n\n## B\n\n```\nlet x = 1;\n```\n";
        let good = "# 甲\n\n用时 38 秒。见 [drill:x]。\n\n## 乙\n\n```\nlet x = 1;\n```\n";
        assert!(compare_markdown(en, good).is_empty(), "{:?}", compare_markdown(en, good));
        let bad_number = good.replace("38", "40");
        let m = compare_markdown(en, &bad_number);
        assert!(m.len() == 1 && m[0].1.contains("numbers differ") && m[0].1.contains("38"), "{m:?}");
        let bad_link = good.replace("[drill:x]", "[drill:y]");
        assert!(compare_markdown(en, &bad_link)[0].1.contains("links differ"));
        let bad_code = good.replace("let x = 1;", "let x = 2;");
        assert!(compare_markdown(en, &bad_code).iter().any(|(_, m)| m.contains("code block")));
        let merged = "# 甲\n\n用时 38 秒。见 [drill:x]。\n\n```\nlet x = 1;\n```\n";
        assert!(compare_markdown(en, merged)[0].1.contains("headings must match"));
    }

    #[test]
    fn glossary_wants_the_term_and_its_english_once() {
        let g = vec![Term { en: "credit assignment".into(), zh: "信用分配".into(), ..Default::default() }];
        let en = "Credit assignment is hard.";
        assert!(glossary_problems(&g, en, "信用分配（credit assignment）很难。", true).is_empty());
        assert!(glossary_problems(&g, en, "信用分配 (Credit Assignment) 很难。", true).is_empty());
        assert!(glossary_problems(&g, en, "信用分配很难。", true)[0].contains("first"));
        assert!(glossary_problems(&g, en, "信用分配很难。", false).is_empty());
        assert!(glossary_problems(&g, en, "功劳归属很难。", false)[0].contains("信用分配"));
        assert!(
            glossary_problems(&g, "Discredit assignment.", "无", true).is_empty(),
            "a word inside another is no use"
        );
        let agent = vec![Term { en: "agent".into(), zh: "智能体".into(), ..Default::default() }];
        assert!(glossary_problems(&agent, "Run `agentlab drill run`.", "运行", false).is_empty(), "code is not prose");
        assert!(glossary_problems(&agent, "See [drill:agent-x].", "见", false).is_empty(), "link ids are not prose");
        assert!(!glossary_problems(&agent, "Two agents.", "两个", false).is_empty(), "a plural is the word");
    }

    #[test]
    fn a_refused_variant_is_found_outside_the_term_and_outside_code() {
        let g = vec![
            Term {
                en: "benchmark".into(), zh: "评测基准".into(), avoid: vec!["基准".into()], ..Default::default()
            },
            Term { en: "claim".into(), zh: "断言".into(), avoid: vec!["论断".into()], ..Default::default() },
        ];
        assert!(avoided(&g, "每个评测基准都有断言。").is_empty(), "inside the term itself");
        let found = avoided(&g, "一行。\n这个基准和一条论断。\n`论断` 在代码里\n```\n论断\n```\n");
        let got: Vec<(usize, &str)> = found.iter().map(|(l, _, v)| (*l, *v)).collect();
        assert_eq!(got, vec![(2, "基准"), (2, "论断")]);
        assert!(avoided_message(found[1].1, found[1].2).contains("断言"));
    }

    #[test]
    fn another_sense_may_take_another_rendering() {
        let g = vec![Term {
            en: "observation".into(),
            zh: "观测".into(),
            also: vec!["观察项".into()],
            ..Default::default()
        }];
        assert!(glossary_problems(&g, "An observation, not a claim.", "一个观察项。", false).is_empty());
        assert!(!glossary_problems(&g, "An observation.", "一个观点。", false).is_empty());
    }

    #[test]
    fn a_glossary_that_avoids_its_own_term_is_refused() {
        let bad = "[[term]]\nen = \"claim\"\nzh = \"断言\"\navoid = [\"断言\"]\n";
        assert!(parse_glossary(bad).unwrap_err().contains("own rendering"));
        let good = "[[term]]\nen = \"claim\"\nzh = \"断言\"\navoid = [\"论断\"]\n";
        assert_eq!(parse_glossary(good).unwrap()[0].avoid, vec!["论断".to_string()]);
    }

    #[test]
    fn a_term_inside_a_longer_term_is_the_longer_terms() {
        let g = vec![
            Term { en: "prompt".into(), zh: "prompt".into(), ..Default::default() },
            Term { en: "prompt injection".into(), zh: "提示注入".into(), ..Default::default() },
        ];
        assert!(glossary_problems(&g, "Prompt injection again.", "又是提示注入。", false).is_empty());
        assert!(!glossary_problems(&g, "A prompt and a prompt injection.", "一次提示注入。", false).is_empty());
    }

    #[test]
    fn a_doubled_consonant_is_the_same_word() {
        assert!(english_uses("The ratio is clipped.", "clip"));
        assert!(english_uses("Clipping binds.", "clip"));
        assert!(!english_uses("A clipboard.", "clip"));
    }

    #[test]
    fn shared_fields_are_refused_by_name() {
        let mut tr = Translation { lang: Lang::Zh, ..Default::default() };
        let text = "[[item]]\nid = \"a\"\nprompt = \"p\"\nexplanation = \"e\"\ncorrect = [1]\n";
        let e = add_file(&mut tr, "quizzes/03-agentic-rl.zh.toml", text).unwrap_err();
        assert!(e.message.contains("`correct` is not prose"), "{}", e.message);
        assert_eq!(lang_of_path("drills/x/README.zh.md"), Some(Lang::Zh));
        assert_eq!(lang_of_path("cheatsheets/03-agentic-rl.md"), None);
        assert_eq!(lang_of_path("cheatsheets/glossary.toml"), None);
    }
}
