//! Content: cheatsheets, quizzes and drill metadata.
//!
//! Content ships inside the binary (`include_dir!`) and can be replaced by an
//! edited copy on disk with `--content DIR`. Both paths go through the same
//! parser and the same validation, so an error in an edited file is reported
//! exactly as a test would report it in the shipped one.

pub mod drill_meta;
pub mod exercise_meta;
pub mod links;
pub mod quiz;
pub mod quoted;
pub mod recompute;
pub mod sheet;
pub mod template;
pub mod tracks;
pub mod translation;

use std::fmt;
use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir};

use crate::i18n::Lang;

pub use drill_meta::{ChartGroup, ChartSpec, ClaimSpec, Cmp, DrillMeta, ParamKind, ParamSpec, ParamValue};
pub use exercise_meta::{ExerciseMeta, Mistake};
pub use links::Link;
pub use quiz::{Answer, Kind, Level, QuizItem, QuizSet};
pub use sheet::{Section, Sheet, SheetStatus};
pub use tracks::{Track, TRACKS};

static CHEATSHEETS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/cheatsheets");
static QUIZZES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/quizzes");
static DRILLS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/drills");
static EXERCISES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/exercises");

/// Where content was loaded from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Embedded,
    Dir(PathBuf),
}

/// One problem found in a content file.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentError {
    pub file: String,
    pub line: Option<usize>,
    pub item: Option<String>,
    pub message: String,
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(item) = &self.item {
            write!(f, ": item {item}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Every problem found while loading content: root causes only. A problem
/// that follows from another one (links into a sheet that did not load, or
/// into the part of a sheet an unclosed code fence swallowed; mentions of a
/// drill whose `drill.toml` is broken) is counted in `hidden`, not listed.
#[derive(Debug, Clone)]
pub struct ContentErrors {
    pub errors: Vec<ContentError>,
    pub hidden: usize,
}

impl ContentErrors {
    fn one(e: ContentError) -> ContentErrors {
        ContentErrors { errors: vec![e], hidden: 0 }
    }
}

impl fmt::Display for ContentErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} problem(s) in the content:", self.errors.len())?;
        for e in &self.errors {
            writeln!(f, "  {e}")?;
        }
        if self.hidden > 0 {
            writeln!(
                f,
                "  ({} more that follow from these are not listed: they go away when these are fixed)",
                self.hidden
            )?;
        }
        Ok(())
    }
}

/// What failed to load, so that what merely follows from it is not reported
/// as a problem of its own.
#[derive(Debug, Default)]
pub(crate) struct Broken {
    /// Tracks whose sheet did not load, or whose sections an unclosed code fence hides.
    pub(crate) sheets: std::collections::HashSet<u8>,
    /// Drills (by folder name) whose `drill.toml` did not load.
    pub(crate) drills: std::collections::HashSet<String>,
    /// A quiz file, or an item in one, did not load: an item id named
    /// elsewhere may be missing because of it.
    pub(crate) quiz_items: bool,
    /// Exercises (by file name) whose file did not load.
    pub(crate) exercises: std::collections::HashSet<String>,
}

impl Broken {
    /// Whether a failure to resolve `link` follows from a problem already reported.
    fn hides(&self, link: &Link) -> bool {
        match link {
            Link::Drill(id) => self.drills.contains(id),
            Link::Sheet { track, .. } => self.sheets.contains(track),
            Link::Exercise(id) => self.exercises.contains(id),
            Link::Quiz { .. } => false,
        }
    }
}

impl std::error::Error for ContentErrors {}

/// All content, parsed and cross-checked.
#[derive(Debug, Clone)]
pub struct Content {
    pub source: Source,
    /// One sheet per track, ordered by track number.
    pub sheets: Vec<Sheet>,
    /// One quiz set per track that has a quiz file, ordered by track.
    pub quizzes: Vec<QuizSet>,
    /// Drills ordered by track, then id.
    pub drills: Vec<DrillMeta>,
    /// Exercises ordered by track, then their `order`.
    pub exercises: Vec<ExerciseMeta>,
    /// The language of the prose above (English as loaded; see [`Content::localized`]).
    pub lang: Lang,
    /// The translations found beside the English files, checked against them.
    pub translations: Vec<std::sync::Arc<translation::Translation>>,
    /// `cheatsheets/glossary.toml`: the terms translations follow.
    pub glossary: Vec<translation::Term>,
}

/// A content file as text, with its path relative to the content root.
struct File {
    path: String,
    text: String,
}

impl Content {
    /// The content compiled into the binary.
    pub fn embedded() -> Result<Content, ContentErrors> {
        let mut files = Vec::new();
        for (dir, prefix) in
            [(&CHEATSHEETS, "cheatsheets"), (&QUIZZES, "quizzes"), (&DRILLS, "drills"), (&EXERCISES, "exercises")]
        {
            collect_embedded(dir, prefix, &mut files);
        }
        Content::parse(Source::Embedded, files)
    }

    /// Content from a directory holding `cheatsheets/`, `quizzes/`, `drills/`
    /// and (optionally) `exercises/`.
    pub fn from_dir(root: &Path) -> Result<Content, ContentErrors> {
        let fail = |message: String| {
            ContentErrors::one(ContentError { file: root.display().to_string(), line: None, item: None, message })
        };
        if !root.is_dir() {
            return Err(fail("is not a directory".into()));
        }
        let mut files = Vec::new();
        let mut found_any = false;
        for sub in ["cheatsheets", "quizzes", "drills", "exercises"] {
            let dir = root.join(sub);
            if dir.is_dir() {
                found_any = true;
                collect_disk(root, &dir, &mut files)
                    .map_err(|e| fail(format!("cannot read {}: {e}", dir.display())))?;
            }
        }
        if !found_any {
            return Err(fail(
                "does not look like a content directory: expected cheatsheets/, quizzes/ and drills/ inside it".into(),
            ));
        }
        Content::parse(Source::Dir(root.to_path_buf()), files)
    }

    /// Load from `--content DIR` when given, else the embedded content.
    pub fn load(dir: Option<&Path>) -> Result<Content, ContentErrors> {
        match dir {
            Some(d) => Content::from_dir(d),
            None => Content::embedded(),
        }
    }

    /// Content from files given as (path relative to the content root, text),
    /// e.g. `("quizzes/03-agentic-rl.toml", "…")`: the same parsing and checks
    /// as [`Content::from_dir`], without a disk (property tests use it).
    pub fn from_files(files: Vec<(String, String)>) -> Result<Content, ContentErrors> {
        let files = files.into_iter().map(|(path, text)| File { path, text }).collect();
        Content::parse(Source::Dir(PathBuf::from("<memory>")), files)
    }

    fn parse(source: Source, mut files: Vec<File>) -> Result<Content, ContentErrors> {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        // Control characters (terminal escape sequences) in content show as text, never act.
        // So do the escapes that would decode to one (a TOML `"\u001b"`, a Markdown `&#27;`).
        for f in &mut files {
            if let std::borrow::Cow::Owned(t) = crate::textsafe::escape_controls(&f.text) {
                f.text = t;
            }
            if let Some(t) = defused(&f.path, &f.text) {
                f.text = t;
            }
        }
        let mut errors = Vec::new();
        let err = |file: &str, line: Option<usize>, item: Option<&str>, message: String| ContentError {
            file: file.to_string(),
            line,
            item: item.map(str::to_string),
            message,
        };

        let mut sheets: Vec<Sheet> = Vec::new();
        let mut quizzes: Vec<QuizSet> = Vec::new();
        let mut drills: Vec<DrillMeta> = Vec::new();
        let mut exercises: Vec<ExerciseMeta> = Vec::new();
        let mut broken = Broken::default();
        let mut translated: Vec<translation::Translation> = Vec::new();
        let mut glossary = Vec::new();
        // The track a cheatsheet file is for, by its name (`03-agentic-rl.md`).
        let track_of_file = |name: &str| TRACKS.iter().find(|t| format!("{}.md", t.stem()) == name).map(|t| t.number);

        for f in &files {
            if let Some(lang) = translation::lang_of_path(&f.path) {
                let tr = match translated.iter_mut().position(|t| t.lang == lang) {
                    Some(i) => &mut translated[i],
                    None => {
                        translated.push(translation::Translation { lang, ..Default::default() });
                        translated.last_mut().expect("just pushed")
                    }
                };
                if let Err(e) = translation::add_file(tr, &f.path, &f.text) {
                    errors.push(e);
                }
                continue;
            }
            let parts: Vec<&str> = f.path.split('/').collect();
            match parts.as_slice() {
                ["cheatsheets", "glossary.toml"] => match translation::parse_glossary(&f.text) {
                    Ok(g) => glossary = g,
                    Err(m) => errors.push(err(&f.path, None, None, m)),
                },
                ["cheatsheets", name] if name.ends_with(".md") => {
                    let parsed = Sheet::parse(&f.path, &f.text);
                    let loads = parsed.as_ref().is_ok_and(|s| track_of_file(name) == Some(s.meta.track));
                    if let (false, Some(t)) = (loads, track_of_file(name)) {
                        // This track's sheet does not load: links to it are not problems of their own.
                        broken.sheets.insert(t);
                    }
                    match parsed {
                        Err(m) => errors.push(err(&f.path, None, None, m)),
                        Ok(s) => match tracks::track(s.meta.track) {
                            None => errors.push(err(&f.path, Some(2), None, format!("unknown track {}", s.meta.track))),
                            Some(t) if format!("{}.md", t.stem()) != *name => errors.push(err(
                                &f.path,
                                None,
                                None,
                                format!("track {} must live in cheatsheets/{}.md", t.number, t.stem()),
                            )),
                            Some(_) => {
                                if let Some((line, m)) = sheet::unclosed_fence(&s.body, s.body_line_offset) {
                                    // The headings after it read as code: links to them would fail.
                                    broken.sheets.insert(s.meta.track);
                                    errors.push(err(&f.path, Some(line), None, m));
                                }
                                sheets.push(s)
                            }
                        },
                    }
                }
                ["quizzes", name] if name.ends_with(".toml") => match toml::from_str::<quiz::RawQuizFile>(&f.text) {
                    Err(e) => {
                        broken.quiz_items = true;
                        errors.push(err(&f.path, toml_line(&f.text, &e), None, e.message().to_string()))
                    }
                    Ok(raw) => match tracks::track(raw.track) {
                        None => {
                            broken.quiz_items = true;
                            errors.push(err(&f.path, None, None, format!("unknown track {}", raw.track)))
                        }
                        Some(t) if format!("{}.toml", t.stem()) != *name => {
                            broken.quiz_items = true;
                            errors.push(err(
                                &f.path,
                                None,
                                None,
                                format!("track {} must live in quizzes/{}.toml", t.number, t.stem()),
                            ))
                        }
                        Some(t) => {
                            let mut items = Vec::new();
                            for raw_item in raw.items {
                                let id = raw_item.id.clone();
                                match raw_item.into_item(t.number) {
                                    Ok(item) => items.push(item),
                                    Err(m) => {
                                        broken.quiz_items = true;
                                        errors.push(err(&f.path, None, Some(&id), m))
                                    }
                                }
                            }
                            quizzes.push(QuizSet { track: t.number, file: f.path.clone(), items });
                        }
                    },
                },
                ["drills", id, "drill.toml"] => {
                    let readme_path = format!("drills/{id}/README.md");
                    let readme =
                        files.iter().find(|g| g.path == readme_path).map(|g| g.text.clone()).unwrap_or_default();
                    if let Some((line, m)) = sheet::unclosed_fence(&readme, 0) {
                        errors.push(err(&readme_path, Some(line), None, m));
                    }
                    let loaded = match toml::from_str::<drill_meta::RawDrill>(&f.text) {
                        Err(e) => {
                            errors.push(err(&f.path, toml_line(&f.text, &e), None, e.message().to_string()));
                            false
                        }
                        Ok(raw) if raw.id != *id => {
                            errors.push(err(
                                &f.path,
                                None,
                                None,
                                format!("id \"{}\" differs from its folder \"{id}\"", raw.id),
                            ));
                            false
                        }
                        Ok(raw) => match DrillMeta::from_raw(raw, readme) {
                            Ok(d) => {
                                drills.push(d);
                                true
                            }
                            Err(ms) => {
                                errors.extend(ms.into_iter().map(|m| err(&f.path, None, None, m)));
                                false
                            }
                        },
                    };
                    if !loaded {
                        // Mentions of this drill elsewhere are not problems of their own.
                        broken.drills.insert(id.to_string());
                    }
                }
                ["drills", _, "README.md"] => {}
                ["exercises", name] if name.ends_with(".toml") => {
                    let loaded = match toml::from_str::<ExerciseMeta>(&f.text) {
                        Err(e) => Err(vec![(toml_line(&f.text, &e), e.message().to_string())]),
                        Ok(x) if format!("{}.toml", x.id) != *name => {
                            Err(vec![(None, format!("id \"{}\" differs from its file name", x.id))])
                        }
                        Ok(x) => match x.check() {
                            problems if problems.is_empty() => Ok(x),
                            problems => Err(problems.into_iter().map(|m| (None, m)).collect()),
                        },
                    };
                    match loaded {
                        Ok(x) => exercises.push(x),
                        Err(problems) => {
                            // Links to this exercise are not problems of their own.
                            broken.exercises.insert(name.trim_end_matches(".toml").to_string());
                            errors.extend(problems.into_iter().map(|(line, m)| err(&f.path, line, None, m)));
                        }
                    }
                }
                _ => errors.push(err(&f.path, None, None, "unexpected file in the content tree".into())),
            }
        }

        sheets.sort_by_key(|s| s.meta.track);
        quizzes.sort_by_key(|q| q.track);
        // By track, then in the order the track's sheet lists them (its first
        // drill is the one to start with), then by id.
        let listed = |d: &DrillMeta| {
            sheets
                .iter()
                .find(|s| s.meta.track == d.track)
                .and_then(|s| s.meta.drills.iter().position(|id| *id == d.id))
                .unwrap_or(usize::MAX)
        };
        drills.sort_by_cached_key(|d| (d.track, listed(d), d.id.clone()));
        exercises.sort_by(|a, b| (a.track, a.order, &a.id).cmp(&(b.track, b.order, &b.id)));
        let mut content =
            Content { source, sheets, quizzes, drills, exercises, lang: Lang::En, translations: Vec::new(), glossary };
        let (found, hidden) = content.cross_check(&broken);
        errors.extend(found);
        for tr in translated {
            errors.extend(translation::check(&content, &tr, &content.glossary, &broken));
            // The UI strings are built into the binary, but they follow the same glossary.
            errors.extend(translation::ui_problems(&content.glossary, tr.lang));
            content.translations.push(std::sync::Arc::new(tr));
        }
        if errors.is_empty() {
            Ok(content)
        } else {
            Err(ContentErrors { errors, hidden })
        }
    }

    /// Checks that span files: tracks covered, ids unique, links resolve.
    /// Returns the problems, and how many were left out because they follow
    /// from something in `broken` (already reported where it failed).
    fn cross_check(&self, broken: &Broken) -> (Vec<ContentError>, usize) {
        let mut errors = Vec::new();
        let mut hidden = 0;
        let mut push = |file: &str, line: Option<usize>, item: Option<&str>, message: String| {
            errors.push(ContentError { file: file.into(), line, item: item.map(Into::into), message })
        };
        // A link that does not resolve, unless that follows from a broken file.
        let mut resolve = |link: &Link| -> Result<(), String> {
            match self.resolve(link) {
                Err(_) if broken.hides(link) => {
                    hidden += 1;
                    Ok(())
                }
                r => r,
            }
        };
        for t in TRACKS.iter() {
            if self.sheet(t.number).is_none() && !broken.sheets.contains(&t.number) {
                push(
                    "cheatsheets",
                    None,
                    None,
                    format!("no sheet for track {} (cheatsheets/{}.md)", t.number, t.stem()),
                );
            }
        }
        let mut seen = std::collections::HashMap::new();
        for s in &self.sheets {
            if let Some(prev) = seen.insert(s.meta.track, &s.file) {
                push(&s.file, None, None, format!("track {} already has a sheet in {prev}", s.meta.track));
            }
            if tracks::track(s.meta.track).is_some_and(|t| t.slug != s.meta.id) {
                push(&s.file, Some(2), None, format!("id \"{}\" should be the track slug", s.meta.id));
            }
            for d in &s.meta.drills {
                if resolve(&Link::Drill(d.clone())).is_err() {
                    push(&s.file, None, None, format!("front matter names drill \"{d}\", which does not exist"));
                }
            }
            // The sheet's drill list is its track's drills, every one of them.
            for d in self.drills_of(s.meta.track).filter(|d| !s.meta.drills.contains(&d.id)) {
                push(
                    &s.file,
                    Some(5),
                    None,
                    format!("front matter `drills` leaves out \"{}\", a drill of track {}", d.id, s.meta.track),
                );
            }
            // A table of drills per track (the roadmap) names every drill of each track.
            for (line, track, missing) in
                drill_table_gaps(&s.body, |t| self.drills_of(t).map(|d| d.id.clone()).collect())
            {
                push(
                    &s.file,
                    Some(line + s.body_line_offset),
                    None,
                    format!("the drill table's row for track {track} leaves out {}", missing.join(", ")),
                );
            }
            let mut keys = std::collections::HashSet::new();
            for step in &s.meta.steps {
                if !keys.insert(step.key()) {
                    push(&s.file, None, None, format!("[[step]] {} is listed twice", step.key()));
                }
                if let Err(m) = self.check_step(s, step) {
                    let t = step.target.clone();
                    let link = match step.kind {
                        sheet::StepKind::Read => Some(Link::Sheet { track: s.meta.track, section: Some(t) }),
                        sheet::StepKind::Drill => Some(Link::Drill(t)),
                        sheet::StepKind::Exercise => Some(Link::Exercise(t)),
                        sheet::StepKind::Quiz => Some(Link::Quiz { track: s.meta.track, level: Level::parse(&t) }),
                    };
                    match link {
                        // A section an unclosed fence hides, a drill, exercise or quiz items that did
                        // not load: counted with what follows from that problem, not listed.
                        Some(l) if broken.hides(&l) || (step.kind == sheet::StepKind::Quiz && broken.quiz_items) => {
                            let _ = resolve(&l);
                        }
                        _ => push(&s.file, None, None, format!("[[step]] {}: {m}", step.key())),
                    }
                }
            }
            for (line, link) in links::scan_links(&s.body) {
                let line = Some(line + s.body_line_offset);
                if let Err(m) = link.and_then(|l| resolve(&l)) {
                    push(&s.file, line, None, m)
                }
            }
            // A drill's number copied into a sheet goes stale when the README is re-measured.
            let readmes: Vec<(&str, &str)> = self.drills.iter().map(|d| (d.id.as_str(), d.readme.as_str())).collect();
            for u in quoted::unsupported_numbers(&s.body, &readmes) {
                push(
                    &s.file,
                    Some(u.line + s.body_line_offset),
                    None,
                    format!(
                        "quotes {} about drill {}, whose README does not have it (not even rounded): cite the \
                         README's table instead of copying it, or copy the current number",
                        u.number,
                        u.drills.join(" / ")
                    ),
                );
            }
        }
        let mut ids = std::collections::HashMap::new();
        for q in &self.quizzes {
            for item in &q.items {
                if let Some(prev) = ids.insert(item.id.clone(), q.file.clone()) {
                    push(&q.file, None, Some(&item.id), format!("duplicate id (also in {prev})"));
                }
                if item.id.trim().is_empty() || item.id.contains(char::is_whitespace) {
                    push(&q.file, None, Some(&item.id), "ids must be non-empty and without spaces".into());
                }
                if let Some(target) = &item.sheet {
                    let link = Link::parse(&format!("sheet:{target}"));
                    match link {
                        None => push(&q.file, None, Some(&item.id), format!("sheet link \"{target}\" is malformed")),
                        Some(l) => {
                            if let Err(m) = resolve(&l) {
                                push(&q.file, None, Some(&item.id), m)
                            }
                        }
                    }
                }
                if let (Some(check), Answer::Numeric { value, tolerance }) = (&item.check, &item.answer) {
                    match recompute::compute(check) {
                        Err(m) => push(&q.file, None, Some(&item.id), format!("check: {m}")),
                        Ok(v) if (v - value).abs() > *tolerance => push(
                            &q.file,
                            None,
                            Some(&item.id),
                            format!(
                                "answer {value} ± {tolerance} disagrees with the code, which computes {v}{}",
                                if item.template.is_some() { " from the template's authored inputs" } else { "" }
                            ),
                        ),
                        Ok(_) => {}
                    }
                }
                for m in item.template_problems() {
                    push(&q.file, None, Some(&item.id), m);
                }
                if let Some(d) = &item.drill {
                    if resolve(&Link::Drill(d.clone())).is_err() {
                        push(&q.file, None, Some(&item.id), format!("drill \"{d}\" does not exist"));
                    }
                }
                let texts = [Some(&item.prompt), Some(&item.explanation)];
                for text in texts.into_iter().flatten() {
                    for (_, link) in links::scan_links(text) {
                        if let Err(m) = link.and_then(|l| resolve(&l)) {
                            push(&q.file, None, Some(&item.id), m);
                        }
                    }
                }
            }
        }
        for d in &self.drills {
            let file = format!("drills/{}/drill.toml", d.id);
            if tracks::track(d.track).is_none() {
                push(&file, None, None, format!("unknown track {}", d.track));
            }
            if let Some(target) = &d.sheet {
                match Link::parse(&format!("sheet:{target}")) {
                    None => push(&file, None, None, format!("sheet link \"{target}\" is malformed")),
                    Some(l) => {
                        if let Err(m) = resolve(&l) {
                            push(&file, None, None, m)
                        }
                    }
                }
            }
            for (line, link) in links::scan_links(&d.readme) {
                if let Err(m) = link.and_then(|l| resolve(&l)) {
                    push(&format!("drills/{}/README.md", d.id), Some(line), None, m);
                }
            }
        }
        let mut quiz_hidden = 0;
        for x in &self.exercises {
            let file = format!("exercises/{}.toml", x.id);
            if tracks::track(x.track).is_none() {
                push(&file, None, None, format!("unknown track {}", x.track));
            }
            match Link::parse(&x.sheet) {
                Some(l @ Link::Sheet { .. }) => {
                    if let Err(m) = resolve(&l) {
                        push(&file, None, None, m)
                    }
                }
                _ => push(&file, None, None, format!("sheet \"{}\" is not a sheet:N#section link", x.sheet)),
            }
            if let Some(d) = &x.drill {
                if resolve(&Link::Drill(d.clone())).is_err() {
                    push(&file, None, None, format!("drill \"{d}\" does not exist"));
                }
            }
            for q in &x.quiz {
                if self.item(q).is_none() {
                    if broken.quiz_items {
                        quiz_hidden += 1;
                    } else {
                        // Where an item of that name would live: the file whose ids share its prefix.
                        let prefix = q.split('-').next().unwrap_or(q);
                        let own = self
                            .quizzes
                            .iter()
                            .find(|s| s.items.iter().any(|i| i.id.split('-').next() == Some(prefix)))
                            .map(|s| format!(" (items named {prefix}-… are in {})", s.file))
                            // None left with that prefix: the quiz file of the exercise's track.
                            .or_else(|| {
                                self.quizzes
                                    .iter()
                                    .find(|s| s.track == x.track)
                                    .map(|s| format!(" (track {} items are in {})", x.track, s.file))
                            });
                        push(&file, None, None, format!("quiz item \"{q}\" does not exist{}", own.unwrap_or_default()));
                    }
                }
            }
            if crate::exercises::spec(&x.id).is_none() {
                push(&file, None, None, "this build has no checker for this exercise".into());
            }
            let plugged = crate::exercises::plug_drill(&x.id);
            if x.plug && plugged != x.drill.as_deref() {
                push(
                    &file,
                    None,
                    None,
                    match plugged {
                        Some(d) => format!("plug = true: the drill that can train with it is \"{d}\""),
                        None => "plug = true, but no drill can train with this exercise".into(),
                    },
                );
            }
            for (line, link) in links::scan_links(&x.task) {
                if let Err(m) = link.and_then(|l| resolve(&l)) {
                    push(&file, Some(line), None, m);
                }
            }
        }
        (errors, hidden + quiz_hidden)
    }

    /// Check that a link points at something that exists.
    pub fn resolve(&self, link: &Link) -> Result<(), String> {
        match link {
            Link::Drill(id) => self.drill(id).map(|_| ()).ok_or_else(|| format!("link to unknown drill \"{id}\"")),
            Link::Exercise(id) => {
                self.exercise(id).map(|_| ()).ok_or_else(|| format!("link to unknown exercise \"{id}\""))
            }
            Link::Quiz { track, .. } => {
                tracks::track(*track).map(|_| ()).ok_or_else(|| format!("link to the quiz of unknown track {track}"))
            }
            Link::Sheet { track, section } => {
                let sheet = self.sheet(*track).ok_or_else(|| format!("link to the sheet of unknown track {track}"))?;
                match section {
                    Some(slug) if sheet.section(slug).is_none() => Err(format!(
                        "link to section \"{slug}\" that track {track}'s sheet ({}) does not have",
                        sheet.file
                    )),
                    _ => Ok(()),
                }
            }
        }
    }

    /// Whether a study step's target exists (a section of its sheet, a
    /// quiz level with items on the track, an exercise or drill of the track).
    fn check_step(&self, sheet: &Sheet, step: &sheet::StepSpec) -> Result<(), String> {
        use sheet::StepKind;
        let track = sheet.meta.track;
        if step.minutes == 0 {
            return Err("`minutes` must be at least 1".into());
        }
        let t = step.target.as_str();
        match step.kind {
            StepKind::Read if sheet.section(t).is_none() => Err(format!("no section `{t}` in this sheet")),
            StepKind::Quiz => {
                let level = Level::parse(t).ok_or_else(|| format!("`{t}` is not a level (L1, L2 or L3)"))?;
                match self.quiz(track) {
                    Some(q) if q.items.iter().any(|i| i.level == level) => Ok(()),
                    Some(q) => Err(format!("track {track} has no {t} quiz items in {}", q.file)),
                    None => Err(format!("track {track} has no quiz")),
                }
            }
            StepKind::Exercise if self.exercise(t).is_none_or(|e| e.track != track) => {
                Err(format!("no exercise `{t}` on track {track}"))
            }
            StepKind::Drill if self.drill(t).is_none_or(|d| d.track != track) => {
                Err(format!("no drill `{t}` on track {track}"))
            }
            _ => Ok(()),
        }
    }

    pub fn sheet(&self, track: u8) -> Option<&Sheet> {
        self.sheets.iter().find(|s| s.meta.track == track)
    }

    pub fn quiz(&self, track: u8) -> Option<&QuizSet> {
        self.quizzes.iter().find(|q| q.track == track)
    }

    pub fn drill(&self, id: &str) -> Option<&DrillMeta> {
        self.drills.iter().find(|d| d.id == id)
    }

    pub fn exercise(&self, id: &str) -> Option<&ExerciseMeta> {
        self.exercises.iter().find(|x| x.id == id)
    }

    pub fn exercises_of(&self, track: u8) -> impl Iterator<Item = &ExerciseMeta> {
        self.exercises.iter().filter(move |x| x.track == track)
    }

    pub fn drills_of(&self, track: u8) -> impl Iterator<Item = &DrillMeta> {
        self.drills.iter().filter(move |d| d.track == track)
    }

    /// Every quiz item, in track order.
    pub fn items(&self) -> impl Iterator<Item = &QuizItem> {
        self.quizzes.iter().flat_map(|q| q.items.iter())
    }

    pub fn item(&self, id: &str) -> Option<&QuizItem> {
        self.items().find(|i| i.id == id)
    }

    /// A track's title in this content's language: its sheet's title (the
    /// curriculum's English title when the sheet did not load).
    pub fn track_title(&self, track: u8) -> String {
        self.sheet(track)
            .map(|s| s.meta.title.clone())
            .or_else(|| tracks::track(track).map(|t| t.title.to_string()))
            .unwrap_or_default()
    }

    /// The languages this content can be shown in: English, and each
    /// language with a translation.
    pub fn languages(&self) -> Vec<Lang> {
        let mut out = vec![Lang::En];
        out.extend(self.translations.iter().map(|t| t.lang).filter(|l| *l != Lang::En));
        out
    }

    /// This content in `lang`: the translation's prose over the English
    /// (English where a language has no translation). Call it on the content
    /// as loaded; every shared field (ids, answers, links, code) stays.
    pub fn localized(&self, lang: Lang) -> Content {
        match self.translations.iter().find(|t| t.lang == lang) {
            Some(tr) if lang != self.lang => translation::apply(self, tr),
            _ => self.clone(),
        }
    }
}

/// The 1-based line a TOML error points at, if it points anywhere.
/// Rows of a per-track drill table in a sheet body (a Markdown table whose
/// header has a `#` column and a `Drill` or `Drills` column, one row per
/// track) that leave out a drill of their track: (line in the body, track,
/// the drills missing). `of_track` lists a track's drills.
fn drill_table_gaps(body: &str, of_track: impl Fn(u8) -> Vec<String>) -> Vec<(usize, u8, Vec<String>)> {
    let cells = |line: &str| -> Vec<String> {
        line.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect()
    };
    let mut out = Vec::new();
    // The column of the drills while inside a drill table.
    let mut drill_col: Option<usize> = None;
    for (i, line) in body.lines().enumerate() {
        if !line.trim_start().starts_with('|') {
            drill_col = None;
            continue;
        }
        let row = cells(line);
        if row.iter().all(|c| c.chars().all(|ch| ch == '-' || ch == ':')) {
            continue;
        }
        let Some(col) = drill_col else {
            let drill = row.iter().position(|c| c.eq_ignore_ascii_case("drill") || c.eq_ignore_ascii_case("drills"));
            drill_col = drill.filter(|_| row.first().is_some_and(|c| c == "#"));
            continue;
        };
        let Some(track) = row.first().and_then(|c| c.parse::<u8>().ok()) else { continue };
        let named: Vec<String> = row
            .get(col)
            .map(|c| links::scan_links(c).into_iter().filter_map(|(_, l)| l.ok()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|l| if let Link::Drill(id) = l { Some(id) } else { None })
            .collect();
        let missing: Vec<String> = of_track(track).into_iter().filter(|d| !named.contains(d)).collect();
        if !missing.is_empty() {
            out.push((i + 1, track, missing));
        }
    }
    out
}

fn toml_line(text: &str, e: &toml::de::Error) -> Option<usize> {
    let start = e.span()?.start;
    Some(text.get(..start).unwrap_or(text).matches('\n').count() + 1)
}

fn collect_embedded(dir: &Dir<'static>, prefix: &str, out: &mut Vec<File>) {
    for f in dir.files() {
        let hidden = f.path().file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if let Some(text) = f.contents_utf8() {
            out.push(File { path: format!("{prefix}/{}", f.path().display()), text: text.to_string() });
        }
    }
    for d in dir.dirs() {
        collect_embedded(d, prefix, out);
    }
}

/// A content file's text with the escapes of control characters defused
/// (see [`crate::textsafe::defuse_escapes`]): a `.toml` file as TOML, a
/// Markdown file's `+++` front matter as TOML and its body as Markdown.
/// `None` when there is nothing to defuse.
fn defused(path: &str, text: &str) -> Option<String> {
    use crate::textsafe::defuse_escapes;
    use std::borrow::Cow;
    let (front, body) = if path.ends_with(".toml") {
        (text, "")
    } else {
        match text.strip_prefix("+++").and_then(|t| t.find("\n+++")).map(|e| e + 3) {
            Some(end) => text.split_at(end),
            None => ("", text),
        }
    };
    match (defuse_escapes(front, true), defuse_escapes(body, false)) {
        (Cow::Borrowed(_), Cow::Borrowed(_)) => None,
        (f, b) => Some(format!("{f}{b}")),
    }
}

/// The largest content file read from `--content DIR` (the largest shipped one is a few hundred KB).
pub const MAX_CONTENT_FILE_BYTES: u64 = 8 << 20;

fn collect_disk(root: &Path, dir: &Path, out: &mut Vec<File>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect_disk(root, &path, out)?;
        } else {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let rel = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            // Only regular files, and none too large: a FIFO or a device here would block the load.
            let text = crate::fsutil::read_regular_text(&path, MAX_CONTENT_FILE_BYTES).map_err(|e| {
                let what = e.to_string();
                let shown = path.display().to_string();
                let msg = if what.contains(&shown) { what } else { format!("{shown}: {what}") };
                std::io::Error::new(e.kind(), msg)
            })?;
            out.push(File { path: rel, text });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::drill_table_gaps;

    #[test]
    fn a_drill_table_row_must_name_every_drill_of_its_track() {
        let body = "Intro.\n\n| # | Track | Drill | Leans on |\n|---|---|---|---|\n\
                    | 0 | [sheet:0] | [drill:a], [drill:b] | — |\n| 1 | [sheet:1] | — | 0 |\n\nAfter.\n\
                    | x | y |\n|---|---|\n| 1 | [drill:z] |\n";
        let of_track = |t: u8| match t {
            0 => vec!["a".to_string(), "b".to_string()],
            1 => vec!["c".to_string()],
            _ => vec![],
        };
        // Row 0 names both; row 1 names none of its one drill; the second table has no `#`/Drill header.
        assert_eq!(drill_table_gaps(body, of_track), vec![(6, 1, vec!["c".to_string()])]);
    }
}
