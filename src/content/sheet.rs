//! Cheatsheets: `cheatsheets/NN-slug.md`, Markdown with a TOML front matter.
//!
//! ```text
//! +++
//! id = "agentic-rl"
//! title = "Agentic & Long-horizon RL"
//! track = 3
//! drills = ["turn-credit-assignment"]
//! summary = "Multi-turn RL for tool-using agents: credit assignment, masking, GRPO."
//! status = "complete"        # or "stub" while the sheet is being written
//! +++
//! # Agentic & Long-horizon RL
//! …
//! ```

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Deserialize;

use super::links::slugify;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SheetStatus {
    Complete,
    Stub,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SheetMeta {
    pub id: String,
    pub title: String,
    pub track: u8,
    #[serde(default)]
    pub drills: Vec<String>,
    pub summary: String,
    pub status: SheetStatus,
    /// The study path of the track, in order (`[[step]]`): see [`StepSpec`].
    #[serde(default, rename = "step")]
    pub steps: Vec<StepSpec>,
}

/// What a study step asks the learner to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    /// Read one section of this sheet (`target`: its slug).
    Read,
    /// Answer the track's quiz items of one level (`target`: `L1`, `L2` or `L3`).
    Quiz,
    /// Pass an exercise (`target`: its id).
    Exercise,
    /// Run a drill's quick preset until its claims hold (`target`: its id).
    Drill,
}

/// One step of a track's study path, in the sheet's front matter:
///
/// ```toml
/// [[step]]
/// kind = "read"
/// target = "credit-assignment"
/// minutes = 8
/// ```
///
/// `agentlab validate` checks that each target exists and that no step is
/// listed twice; a drill step's `minutes` is its quick preset's measured
/// time rounded up to whole minutes, plus two to read the result.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    pub kind: StepKind,
    pub target: String,
    /// The estimate shown beside the step (whole minutes, ≥ 1).
    pub minutes: u32,
}

impl StepSpec {
    /// A stable key for the step within its track (`read:credit-assignment`).
    pub fn key(&self) -> String {
        let kind = match self.kind {
            StepKind::Read => "read",
            StepKind::Quiz => "quiz",
            StepKind::Exercise => "exercise",
            StepKind::Drill => "drill",
        };
        format!("{kind}:{}", self.target)
    }
}

/// A heading of a sheet, for the table of contents and `[sheet:N#slug]` links.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub level: u8,
    pub title: String,
    pub slug: String,
    /// 1-based line in the file.
    pub line: usize,
}

#[derive(Debug, Clone)]
pub struct Sheet {
    pub meta: SheetMeta,
    pub file: String,
    /// The Markdown body, after the front matter.
    pub body: String,
    /// Lines taken by the front matter, so body lines can be reported as file lines.
    pub body_line_offset: usize,
    pub sections: Vec<Section>,
}

impl Sheet {
    /// Parse a sheet file. Errors name the line where they can.
    pub fn parse(file: &str, text: &str) -> Result<Sheet, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let rest = text
            .strip_prefix("+++\n")
            .or_else(|| text.strip_prefix("+++\r\n"))
            .ok_or("line 1: expected a `+++` TOML front matter block")?;
        let end = rest.find("\n+++").ok_or("front matter is not closed by a `+++` line")?;
        let front = &rest[..end];
        let after = &rest[end + 4..];
        let body = after.strip_prefix('\n').or_else(|| after.strip_prefix("\r\n")).unwrap_or(after);
        let meta: SheetMeta = toml::from_str(front).map_err(|e| format!("front matter: {}", e.message()))?;
        // `split`, not `lines`: a blank line before the closing `+++` is a line too.
        let body_line_offset = front.split('\n').count() + 2;
        let sections = sections(body)
            .into_iter()
            .map(|mut s| {
                s.line += body_line_offset;
                s
            })
            .collect();
        Ok(Sheet { meta, file: file.to_string(), body: body.to_string(), body_line_offset, sections })
    }

    /// The sheet's sections as a learner counts them: its `##` headings
    /// (subsections are parts of a section). Home and `agentlab sheets`
    /// both say this number.
    pub fn section_count(&self) -> usize {
        self.sections.iter().filter(|x| x.level == 2).count()
    }

    pub fn section(&self, slug: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.slug == slug)
    }
}

/// Markdown options used everywhere content is parsed.
pub fn markdown_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_MATH | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Headings of a Markdown text with GitHub-style unique slugs (`x`, `x-1`, `x-2`).
pub fn sections(body: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut current: Option<(u8, String, usize)> = None;
    for (event, range) in Parser::new_ext(body, markdown_options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let line = body[..range.start].matches('\n').count() + 1;
                current = Some((heading_level(level), String::new(), line));
            }
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) => {
                if let Some((_, title, _)) = current.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, title, line)) = current.take() {
                    let base = slugify(&title);
                    let mut slug = base.clone();
                    let mut n = 1;
                    while out.iter().any(|s| s.slug == slug) {
                        slug = format!("{base}-{n}");
                        n += 1;
                    }
                    out.push(Section { level, title, slug, line });
                }
            }
            _ => {}
        }
    }
    out
}

/// The first code fence that does not close where its author meant it to:
/// one that runs to the end of the text (or of its list item or quote), or
/// one whose code holds a line opening another block (`` ```text ``), which
/// cannot close it and means the fence above was left open. Everything
/// after such a fence reads as code, so headings and links there vanish.
/// Returns the fence's 1-based line in the file and the message; `body`
/// starts after `offset` lines of the file (a sheet's front matter).
pub fn unclosed_fence(body: &str, offset: usize) -> Option<(usize, String)> {
    let line_of = |at: usize| body[..at].matches('\n').count() + 1 + offset;
    for (event, range) in Parser::new_ext(body, markdown_options()).into_offset_iter() {
        let Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) = event else { continue };
        let source = &body[range.clone()];
        let opening = source.lines().next().unwrap_or("").trim_start();
        let Some(fence_char) = opening.chars().next().filter(|c| *c == '`' || *c == '~') else { continue };
        let width = opening.chars().take_while(|c| *c == fence_char).count();
        let fence = fence_char.to_string().repeat(width);
        let line = line_of(range.start);
        // Lines of the block carry their container's prefix (a list item's
        // indent, a quote's `>`), as wide as what precedes the opening fence.
        let line_start = body[..range.start].rfind('\n').map_or(0, |i| i + 1);
        let prefix = range.start - line_start;
        // (is a fence line of this block's kind, the text after the fence)
        let fence_line = |l: &str| -> Option<String> {
            let mut rest = l;
            for _ in 0..prefix {
                rest = rest.strip_prefix([' ', '>', '\t']).unwrap_or(rest);
            }
            let t = rest.trim_start_matches(' ');
            let n = t.chars().take_while(|c| *c == fence_char).count();
            (rest.len() - t.len() <= 3 && n >= width).then(|| t[n..].trim().to_string())
        };
        let inner: Vec<&str> = source.lines().skip(1).collect();
        // A line inside the code that opens a block with a language: the fence above it was left open.
        let reopened = inner.iter().position(|l| {
            // (A backtick fence's info string holds no backtick: "``` `x` ```" is inline code.)
            fence_line(l).is_some_and(|info| !(info.is_empty() || fence_char == '`' && info.contains('`')))
        });
        if let Some(i) = reopened {
            let at = line + 1 + i;
            return Some((
                line,
                format!(
                    "unclosed code fence at line {line}: the block it opens runs on past the {} at line {at}, \
                     so what follows reads as code (close the block before line {at})",
                    inner[i].trim()
                ),
            ));
        }
        let closed = inner.last().and_then(|l| fence_line(l)).is_some_and(|info| info.is_empty());
        // A block closed by the end of its list item or quote is not reported, one closed by the end of the text is.
        if !closed && range.end >= body.trim_end().len() {
            return Some((
                line,
                format!("unclosed code fence at line {line}: no {fence} line closes it, so the rest reads as code"),
            ));
        }
    }
    None
}

pub fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHEET: &str = "+++\nid = \"x\"\ntitle = \"X\"\ntrack = 1\nsummary = \"s\"\nstatus = \"stub\"\n+++\n# Title\n\ntext\n\n## A `code` part\n\n## Part\n\n## Part\n";

    #[test]
    fn parses_front_matter_and_sections() {
        let s = Sheet::parse("x.md", SHEET).unwrap();
        assert_eq!(s.meta.track, 1);
        assert_eq!(s.meta.status, SheetStatus::Stub);
        let slugs: Vec<_> = s.sections.iter().map(|s| s.slug.as_str()).collect();
        assert_eq!(slugs, ["title", "a-code-part", "part", "part-1"]);
        // "# Title" is on file line 8.
        assert_eq!(s.sections[0].line, 8);
    }

    #[test]
    fn unclosed_fences_are_found_where_they_open() {
        let closed = "# A\n\n```text\nx\n```\n\n## B\n\n~~~~\n```python\n```\n~~~~\n";
        assert_eq!(unclosed_fence(closed, 0), None, "a longer fence may hold a shorter one");
        // The close of the first block was forgotten: the next block's opening sits inside it.
        let reopened = "# A\n\n```text\nx\n\n## B\n\n```python\ny\n```\n\n## C\n";
        let (line, m) = unclosed_fence(reopened, 0).unwrap();
        assert_eq!(line, 3);
        assert_eq!(unclosed_fence(reopened, 7).unwrap().0, 10, "file lines after a front matter");
        assert!(m.contains("unclosed code fence at line 3") && m.contains("```python at line 8"), "{m}");
        let to_the_end = "# A\n\ntext\n\n```\ncode\n## B\n";
        assert_eq!(unclosed_fence(to_the_end, 0).map(|(l, _)| l), Some(5));
        assert!(unclosed_fence("```\n", 0).is_some(), "an opening alone");
    }

    #[test]
    fn missing_front_matter_is_an_error() {
        assert!(Sheet::parse("x.md", "# no front matter").unwrap_err().contains("front matter"));
        let bad = "+++\nid = 3\n+++\n";
        assert!(Sheet::parse("x.md", bad).unwrap_err().contains("front matter"));
    }
}
