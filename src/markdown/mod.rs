//! Markdown → terminal lines.
//!
//! Two steps, so that wrapping follows the terminal width without re-parsing:
//!
//! 1. [`Doc::parse`] walks pulldown-cmark's events once and builds blocks of
//!    styled segments (headings, paragraphs, code, tables, display math, …),
//!    with math already converted to Unicode and code already highlighted.
//! 2. [`Doc::layout`] wraps those blocks at a width, folds closed `<details>`
//!    blocks, and records where headings, links and foldable blocks landed, so
//!    the reader can track the table of contents and select links.

pub mod highlight;
pub mod layout;
pub mod math;

use pulldown_cmark::{Alignment, CodeBlockKind, CowStr, Event, LinkType, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};

use crate::content::links::{slugify, Link};
use crate::content::sheet::{heading_level, markdown_options};

pub use layout::Rendered;

/// A piece of inline text with one style, maybe part of a link.
#[derive(Debug, Clone, PartialEq)]
pub struct Seg {
    pub text: String,
    pub style: Style,
    pub link: Option<Target>,
}

/// Where a link goes: inside the lab, or out to the web.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Lab(Link),
    Url(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Heading {
    pub level: u8,
    pub title: String,
    pub slug: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BlockKind {
    /// Index into `Doc::headings`.
    Heading {
        index: usize,
        segs: Vec<Seg>,
    },
    Para(Vec<Seg>),
    Code {
        lang: String,
        lines: Vec<Vec<(Style, String)>>,
    },
    Math(String),
    Table {
        aligns: Vec<Alignment>,
        header: Vec<Vec<Seg>>,
        rows: Vec<Vec<Vec<Seg>>>,
    },
    Rule,
    Blank,
    /// The summary line of a `<details>` block; `id` indexes the doc's foldables.
    Summary {
        id: usize,
        text: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub kind: BlockKind,
    /// Prefix of the first line (quote bars, list markers) and of the following lines.
    pub first: Vec<Seg>,
    pub rest: Vec<Seg>,
    /// Enclosing `<details>` ids: the block shows only when all are open.
    pub inside: Vec<usize>,
}

/// A parsed Markdown document.
#[derive(Debug, Clone, Default)]
pub struct Doc {
    pub blocks: Vec<Block>,
    pub headings: Vec<Heading>,
    /// Number of `<details>` blocks.
    pub foldables: usize,
    /// The deepest nesting of quotes, lists and `<details>` (drawn up to [`MAX_NESTING`]).
    pub depth: usize,
}

/// The styles of rendered Markdown: they live with every other colour of the UI.
pub use crate::tui::theme::markdown as styles;

/// How deep quotes, lists and `<details>` are drawn: deeper levels are
/// laid out like the deepest drawn one (no more bars or indents, no more
/// folds). Every line of a block carries its containers' prefixes, so
/// drawing all of 8,000 nested quotes would take memory quadratic in the
/// depth; `validate` warns about content nested deeper than this.
pub const MAX_NESTING: usize = 16;

/// What `validate` warns about without refusing the content: Markdown
/// nested deeper than the renderer draws ([`MAX_NESTING`]
/// levels of quotes, lists and `<details>`), as "file: why".
pub fn too_deep(content: &crate::content::Content) -> Vec<String> {
    let mut texts: Vec<(String, &str)> = Vec::new();
    for s in &content.sheets {
        texts.push((s.file.clone(), &s.body));
    }
    for d in &content.drills {
        texts.push((format!("drills/{}/README.md", d.id), &d.readme));
    }
    for x in &content.exercises {
        texts.push((format!("exercises/{}.toml", x.id), &x.task));
    }
    for q in &content.quizzes {
        for i in &q.items {
            texts.push((format!("{} [{}]", q.file, i.id), &i.prompt));
            texts.push((format!("{} [{}]", q.file, i.id), &i.explanation));
        }
    }
    texts
        .into_iter()
        .filter_map(|(file, text)| {
            let depth = Doc::parse_plain(text).depth;
            (depth > MAX_NESTING)
                .then(|| crate::t!("cli-validate-too-deep", file = file, depth = depth, max = MAX_NESTING))
        })
        .collect()
}

enum Container {
    Quote,
    List { next: Option<u64> },
    Item { marker: String, used: bool },
}

/// Parser state while walking the events.
struct Builder<'l> {
    doc: Doc,
    containers: Vec<Container>,
    details: Vec<usize>,
    /// `<details>` opened deeper than [`MAX_NESTING`] (not foldable) and not closed yet.
    details_beyond: usize,
    /// The deepest nesting of quotes, lists and `<details>` met.
    depth: usize,
    /// Inline segments of the paragraph/heading/cell being built.
    inline: Option<Vec<Seg>>,
    bold: usize,
    italic: usize,
    strike: usize,
    link: Option<Target>,
    heading: Option<u8>,
    /// Inside a `[drill:x]` shortcut link: its bracket text is replaced by a label.
    swallow: bool,
    code: Option<(String, String)>,
    table: Option<TableBuild>,
    label: &'l dyn Fn(&Link) -> Option<String>,
    /// Where the last line break inside a paragraph put its space (see `push_text`).
    soft_break: Option<usize>,
}

struct TableBuild {
    aligns: Vec<Alignment>,
    header: Vec<Vec<Seg>>,
    rows: Vec<Vec<Vec<Seg>>>,
    row: Vec<Vec<Seg>>,
    in_head: bool,
}

impl Doc {
    /// Parse Markdown. `label` names lab links (`[drill:x]` → the drill's title);
    /// when it returns `None` the link shows its raw target.
    pub fn parse(markdown: &str, label: &dyn Fn(&Link) -> Option<String>) -> Doc {
        let mut callback = |broken: pulldown_cmark::BrokenLink<'_>| {
            let inner = broken.reference.to_string();
            Link::parse(&inner).map(|_| (CowStr::from(inner), CowStr::from("")))
        };
        let parser = Parser::new_with_broken_link_callback(markdown, markdown_options(), Some(&mut callback));
        let mut b = Builder {
            doc: Doc::default(),
            containers: Vec::new(),
            details: Vec::new(),
            details_beyond: 0,
            depth: 0,
            inline: None,
            bold: 0,
            italic: 0,
            strike: 0,
            link: None,
            heading: None,
            swallow: false,
            code: None,
            table: None,
            label,
            soft_break: None,
        };
        for event in parser {
            b.event(event);
            b.depth = b.depth.max(b.containers.len()).max(b.details.len() + b.details_beyond);
        }
        b.flush();
        b.doc.depth = b.depth;
        b.doc
    }

    /// Parse without link labels.
    pub fn parse_plain(markdown: &str) -> Doc {
        Doc::parse(markdown, &|_| None)
    }
}

impl Builder<'_> {
    fn style(&self) -> Style {
        let mut s = match &self.link {
            Some(Target::Lab(_)) => styles::lab_link(),
            Some(Target::Url(_)) => styles::link(),
            None => styles::text(),
        };
        if let Some(level) = self.heading {
            s = s.patch(styles::heading(level));
        }
        if self.bold > 0 {
            s = s.add_modifier(Modifier::BOLD);
        }
        if self.italic > 0 {
            s = s.add_modifier(Modifier::ITALIC);
        }
        if self.strike > 0 {
            s = s.add_modifier(Modifier::CROSSED_OUT);
        }
        s
    }

    fn push_text(&mut self, text: &str, style: Style) {
        if self.swallow {
            return;
        }
        if let Some(t) = self.table.as_mut() {
            if let Some(cell) = t.row.last_mut() {
                cell.push(Seg { text: text.to_string(), style, link: self.link.clone() });
            }
            return;
        }
        let link = self.link.clone();
        let inline = self.inline.get_or_insert_with(Vec::new);
        // A line break inside a paragraph reads as a space, except next to a
        // Chinese (wide) character with no Latin letter or digit on the other
        // side: Chinese puts no space between words.
        let wide = |c: Option<char>| c.is_some_and(|c| unicode_width::UnicodeWidthChar::width(c).unwrap_or(0) >= 2);
        if let (Some(at), [.., before, _]) = (self.soft_break.take(), inline.as_slice()) {
            let (b, a) = (before.text.chars().next_back(), text.chars().next());
            let latin = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
            if at + 1 == inline.len() && (wide(b) || wide(a)) && !latin(b) && !latin(a) {
                inline.pop();
            }
        }
        inline.push(Seg { text: text.to_string(), style, link });
    }

    /// Prefixes for a new block from the enclosing quotes and list items.
    fn prefixes(&mut self) -> (Vec<Seg>, Vec<Seg>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for c in self.containers.iter_mut().take(MAX_NESTING) {
            match c {
                Container::Quote => {
                    let seg = Seg { text: "│ ".into(), style: styles::quote_bar(), link: None };
                    first.push(seg.clone());
                    rest.push(seg);
                }
                Container::List { .. } => {}
                Container::Item { marker, used } => {
                    let pad = " ".repeat(unicode_width::UnicodeWidthStr::width(marker.as_str()));
                    if *used {
                        first.push(Seg { text: pad.clone(), style: styles::text(), link: None });
                    } else {
                        first.push(Seg { text: marker.clone(), style: styles::marker(), link: None });
                        *used = true;
                    }
                    rest.push(Seg { text: pad, style: styles::text(), link: None });
                }
            }
        }
        (first, rest)
    }

    fn push_block(&mut self, kind: BlockKind) {
        let (first, rest) = if matches!(kind, BlockKind::Blank) {
            let (_, rest) = self.prefixes_peek();
            (rest.clone(), rest)
        } else {
            self.prefixes()
        };
        self.doc.blocks.push(Block { kind, first, rest, inside: self.details.clone() });
    }

    /// Prefixes without consuming list markers (for blank lines).
    fn prefixes_peek(&self) -> (Vec<Seg>, Vec<Seg>) {
        let mut rest = Vec::new();
        for c in self.containers.iter().take(MAX_NESTING) {
            match c {
                Container::Quote => rest.push(Seg { text: "│".into(), style: styles::quote_bar(), link: None }),
                Container::Item { .. } | Container::List { .. } => {}
            }
        }
        (rest.clone(), rest)
    }

    /// Close the paragraph being built (tight list items have no Paragraph tags).
    fn flush(&mut self) {
        if let Some(segs) = self.inline.take() {
            if segs.iter().any(|s| !s.text.trim().is_empty()) {
                self.push_block(BlockKind::Para(segs));
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                if let Some((_, code)) = self.code.as_mut() {
                    code.push_str(&t);
                } else {
                    let style = self.style();
                    self.push_text(&t, style);
                }
            }
            Event::Code(t) => {
                let style = if self.link.is_some() { self.style() } else { styles::code_span() };
                self.push_text(&t, style);
            }
            Event::InlineMath(t) => {
                let s = math::to_unicode(&t);
                self.push_text(&s, styles::math());
            }
            Event::DisplayMath(t) => {
                // Display math is a block of its own, even inside a paragraph.
                self.flush();
                self.push_block(BlockKind::Math(math::to_unicode(&t)));
            }
            Event::Html(h) | Event::InlineHtml(h) => self.html(&h),
            Event::SoftBreak => {
                let style = self.style();
                self.push_text(" ", style);
                if self.table.is_none() {
                    self.soft_break = self.inline.as_ref().map(|v| v.len() - 1);
                }
            }
            Event::HardBreak => {
                self.flush();
            }
            Event::Rule => {
                self.flush();
                self.push_block(BlockKind::Rule);
                self.push_block(BlockKind::Blank);
            }
            Event::TaskListMarker(done) => {
                self.push_text(if done { "☑ " } else { "☐ " }, styles::marker());
            }
            Event::FootnoteReference(name) => {
                self.push_text(&format!("[^{name}]"), styles::dim());
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.flush(),
            Tag::Heading { level, .. } => {
                self.flush();
                self.heading = Some(heading_level(level));
                self.inline = Some(Vec::new());
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => l.split_whitespace().next().unwrap_or("").to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                self.flush();
                self.containers.push(Container::List { next: start });
            }
            Tag::Item => {
                self.flush();
                let marker = match self.containers.last_mut() {
                    Some(Container::List { next: Some(n) }) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => {
                        let depth = self.containers.iter().filter(|c| matches!(c, Container::List { .. })).count();
                        if depth > 1 {
                            "◦ ".to_string()
                        } else {
                            "• ".to_string()
                        }
                    }
                };
                self.containers.push(Container::Item { marker, used: false });
            }
            Tag::Table(aligns) => {
                self.flush();
                self.table =
                    Some(TableBuild { aligns, header: Vec::new(), rows: Vec::new(), row: Vec::new(), in_head: false });
            }
            Tag::TableHead => {
                if let Some(t) = self.table.as_mut() {
                    t.in_head = true;
                    t.row.clear();
                }
            }
            Tag::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    t.row.clear();
                }
            }
            Tag::TableCell => {
                if let Some(t) = self.table.as_mut() {
                    t.row.push(Vec::new());
                }
            }
            Tag::Emphasis => self.italic += 1,
            Tag::Strong => self.bold += 1,
            Tag::Strikethrough => self.strike += 1,
            Tag::Link { link_type, dest_url, .. } => {
                let dest = dest_url.to_string();
                let lab = Link::parse(&dest);
                self.link = Some(match lab {
                    Some(l) => Target::Lab(l),
                    None => Target::Url(dest.clone()),
                });
                // `[drill:x]` shortcut links: show a readable label instead of the raw target.
                if matches!(
                    link_type,
                    LinkType::ShortcutUnknown | LinkType::CollapsedUnknown | LinkType::ReferenceUnknown
                ) {
                    if let Some(Target::Lab(l)) = &self.link {
                        let text = (self.label)(l).unwrap_or_else(|| l.to_string());
                        let style = self.style();
                        self.push_text(&format!("→ {text}"), style);
                        // The bracket text that follows repeats the target: skip it.
                        self.swallow = true;
                    }
                }
            }
            Tag::Image { dest_url, .. } => {
                self.push_text(&format!("[image: {dest_url}] "), styles::dim());
            }
            Tag::FootnoteDefinition(name) => {
                self.flush();
                self.push_text(&format!("[^{name}]: "), styles::dim());
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                self.push_block(BlockKind::Blank);
            }
            TagEnd::Heading(_) => {
                let segs = self.inline.take().unwrap_or_default();
                let level = self.heading.take().unwrap_or(1);
                let title: String = segs.iter().map(|s| s.text.as_str()).collect();
                let base = slugify(&title);
                let mut slug = base.clone();
                let mut n = 1;
                while self.doc.headings.iter().any(|h| h.slug == slug) {
                    slug = format!("{base}-{n}");
                    n += 1;
                }
                let index = self.doc.headings.len();
                self.doc.headings.push(Heading { level, title, slug });
                self.push_block(BlockKind::Heading { index, segs });
                self.push_block(BlockKind::Blank);
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.containers.pop();
                self.push_block(BlockKind::Blank);
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    let lines = highlight::highlight(&code, &lang);
                    self.push_block(BlockKind::Code { lang, lines });
                    self.push_block(BlockKind::Blank);
                }
            }
            TagEnd::List(_) => {
                self.flush();
                self.containers.pop();
                if !self.containers.iter().any(|c| matches!(c, Container::List { .. })) {
                    self.push_block(BlockKind::Blank);
                }
            }
            TagEnd::Item => {
                self.flush();
                self.containers.pop();
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.push_block(BlockKind::Table { aligns: t.aligns, header: t.header, rows: t.rows });
                    self.push_block(BlockKind::Blank);
                }
            }
            TagEnd::TableHead => {
                if let Some(t) = self.table.as_mut() {
                    t.header = std::mem::take(&mut t.row);
                    t.in_head = false;
                }
            }
            TagEnd::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    let row = std::mem::take(&mut t.row);
                    if !t.in_head {
                        t.rows.push(row);
                    }
                }
            }
            TagEnd::Emphasis => self.italic = self.italic.saturating_sub(1),
            TagEnd::Strong => self.bold = self.bold.saturating_sub(1),
            TagEnd::Strikethrough => self.strike = self.strike.saturating_sub(1),
            TagEnd::Link => {
                if self.swallow {
                    self.swallow = false;
                } else if let Some(Target::Url(url)) = &self.link {
                    if !url.starts_with('#') {
                        let url = url.clone();
                        self.link = None;
                        self.push_text(&format!(" ⟨{url}⟩"), styles::dim());
                    }
                }
                self.link = None;
            }
            _ => {}
        }
    }

    /// `<details><summary>…</summary>` … `</details>`: foldable blocks.
    fn html(&mut self, html: &str) {
        let mut rest = html;
        loop {
            let open = rest.find("<details");
            let close = rest.find("</details>");
            match (open, close) {
                (Some(o), c) if c.is_none_or(|c| o < c) && self.details.len() >= MAX_NESTING => {
                    // Too deep to fold: its content shows as part of the enclosing block.
                    self.details_beyond += 1;
                    rest = &rest[o + 8..];
                }
                (Some(o), c) if c.is_none_or(|c| o < c) => {
                    self.flush();
                    let after = &rest[o..];
                    let summary = after
                        .find("<summary>")
                        .and_then(|s| {
                            after[s + 9..].find("</summary>").map(|e| after[s + 9..s + 9 + e].trim().to_string())
                        })
                        .filter(|s| !s.is_empty())
                        .unwrap_or_else(|| "Details".to_string());
                    let id = self.doc.foldables;
                    self.doc.foldables += 1;
                    self.push_block(BlockKind::Summary { id, text: summary });
                    self.details.push(id);
                    let skip = after.find("</summary>").map(|e| e + 10).unwrap_or(8);
                    rest = &after[skip..];
                }
                (_, Some(c)) if self.details_beyond > 0 => {
                    self.details_beyond -= 1;
                    rest = &rest[c + 10..];
                }
                (_, Some(c)) => {
                    self.flush();
                    self.details.pop();
                    self.push_block(BlockKind::Blank);
                    rest = &rest[c + 10..];
                }
                _ => break,
            }
        }
    }
}
