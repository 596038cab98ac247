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

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
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
        let body_line_offset = front.lines().count() + 2;
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
    fn missing_front_matter_is_an_error() {
        assert!(Sheet::parse("x.md", "# no front matter").unwrap_err().contains("front matter"));
        let bad = "+++\nid = 3\n+++\n";
        assert!(Sheet::parse("x.md", bad).unwrap_err().contains("front matter"));
    }
}
