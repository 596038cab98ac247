//! The cheatsheet reader: rendered Markdown with a table of contents that
//! follows the scroll position, search with highlighted hits, selectable links
//! and foldable answers.

use std::collections::HashSet;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, List, ListItem, ListState, Padding, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::content::links::link_label;
use crate::content::Content;
use crate::markdown::{Doc, Rendered};
use crate::tui::action::Action;
use crate::tui::action::Hint;
use crate::tui::theme::{accent, border, dim, notice, position};

/// The widest a line of running text gets in the reader (the column is
/// centred in a wider window); about 100 columns reads comfortably.
pub const MEASURE: u16 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Text,
    Toc,
}

/// Something Tab can land on: a link (by group) or a `<details>` summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Focusable {
    Link(usize),
    Summary(usize),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Search {
    pub query: String,
    pub editing: bool,
    /// (line, start char, end char) of every hit.
    pub hits: Vec<(usize, usize, usize)>,
    pub current: usize,
}

#[derive(Debug, Clone)]
pub struct State {
    pub title: String,
    pub track: Option<u8>,
    /// The drill whose README this is (`None` for a sheet).
    pub drill: Option<String>,
    doc: Doc,
    pub open: HashSet<usize>,
    rendered: Rendered,
    pub top: usize,
    pub height: usize,
    pub focus: Focus,
    pub show_toc: bool,
    pub toc_cursor: usize,
    focused: Option<Focusable>,
    pub search: Option<Search>,
    /// A section to scroll to once the first layout exists.
    pending_slug: Option<String>,
    /// A line to scroll to once the first layout exists (Home's Continue).
    pending_top: Option<usize>,
    /// Which rendered lines have been on screen (reset by a re-wrap): a
    /// section counts as read once every line of it was shown.
    seen: Vec<bool>,
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        self.title == other.title && self.track == other.track && self.top == other.top
    }
}

pub const HELP: &[Hint] = &[
    ("↑↓ j k", "scroll a line (in the contents pane: move)"),
    ("PgUp PgDn Space", "scroll a page"),
    ("Ctrl-d Ctrl-u", "scroll half a page"),
    ("g G", "top / bottom"),
    ("h l", "focus the contents pane / the text"),
    ("t", "show / hide the contents pane"),
    ("Enter", "jump to a section (contents) · follow the selected link · open/close an answer"),
    ("Tab Shift-Tab", "select the next / previous link or answer"),
    ("o", "open / close the selected (or first visible) answer"),
    ("/", "search; Enter to confirm, Esc to cancel"),
    ("n N", "next / previous search hit"),
];

impl State {
    pub fn new(title: String, track: Option<u8>, markdown: &str, content: &Content) -> State {
        let doc = Doc::parse(markdown, &|l| link_label(content, l));
        State {
            title,
            track,
            drill: None,
            doc,
            open: HashSet::new(),
            rendered: Rendered::default(),
            top: 0,
            height: 20,
            focus: Focus::Text,
            show_toc: true,
            toc_cursor: 0,
            focused: None,
            search: None,
            pending_slug: None,
            pending_top: None,
            seen: Vec::new(),
        }
    }

    /// Open at a rendered line (where the learner stopped last time).
    pub fn at_line(mut self, line: usize) -> State {
        self.pending_top = Some(line);
        self
    }

    /// Slugs of the sections whose every line has been on screen since the
    /// last re-wrap (a section holds its subsections).
    pub fn sections_read(&self) -> Vec<String> {
        let heads = &self.rendered.headings;
        let mut out = Vec::new();
        for (k, &(start, i)) in heads.iter().enumerate() {
            let level = self.doc.headings[i].level;
            let end = heads[k + 1..]
                .iter()
                .find(|(_, j)| self.doc.headings[*j].level <= level)
                .map_or(self.rendered.lines.len(), |(l, _)| *l);
            if end > start && (start..end).all(|l| self.seen.get(l).copied().unwrap_or(false)) {
                out.push(self.doc.headings[i].slug.clone());
            }
        }
        out
    }

    pub fn for_track(content: &Content, track: u8, section: Option<&str>) -> Option<State> {
        let sheet = content.sheet(track)?;
        let mut s = State::new(format!("{} · {}", track, sheet.meta.title), Some(track), &sheet.body, content);
        // A translated sheet's headings keep the English slugs (links and
        // reading progress are the same in every language).
        if s.doc.headings.len() == sheet.sections.len() {
            for (h, sec) in s.doc.headings.iter_mut().zip(&sheet.sections) {
                h.slug.clone_from(&sec.slug);
            }
        }
        s.pending_slug = section.map(str::to_string);
        Some(s)
    }

    pub fn for_drill(content: &Content, id: &str) -> Option<State> {
        let d = content.drill(id)?;
        let mut s = State::new("README".to_string(), None, &d.readme, content);
        s.drill = Some(id.to_string());
        Some(s)
    }

    /// The same sheet or README in `content`'s language, at the same section.
    pub fn relocalized(&self, content: &Content) -> Option<State> {
        let here = self.current_heading().and_then(|i| self.doc.headings.get(i)).map(|h| h.slug.clone());
        let mut s = match (&self.drill, self.track) {
            (Some(id), _) => State::for_drill(content, id)?,
            (None, Some(t)) => State::for_track(content, t, None)?,
            (None, None) => return None,
        };
        s.pending_slug = here;
        s.show_toc = self.show_toc;
        s.open.clone_from(&self.open);
        Some(s)
    }

    pub fn is_typing(&self) -> bool {
        self.search.as_ref().is_some_and(|s| s.editing)
    }

    pub fn rendered(&self) -> &Rendered {
        &self.rendered
    }

    pub fn headings(&self) -> &[crate::markdown::Heading] {
        &self.doc.headings
    }

    pub fn hints(&self) -> Vec<Hint> {
        if self.is_typing() {
            return vec![("Enter", "search"), ("Esc", "cancel")];
        }
        let mut h = vec![("↑↓", "scroll"), ("Tab", "links"), ("/", "search")];
        if self.search.as_ref().is_some_and(|s| !s.hits.is_empty()) {
            h.push(("n/N", "next hit"));
        }
        h.push(("h", "contents"));
        h.push(("Esc", "back"));
        h
    }

    /// Areas of the reader within the body: (contents pane, text, status line).
    pub fn areas(&self, area: Rect) -> (Option<Rect>, Rect, Rect) {
        let [main, status] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
        if self.show_toc && area.width >= 90 {
            // As wide as the longest entry needs, up to a quarter of the
            // screen (36 columns at least); longer entries wrap.
            let needed =
                self.doc.headings.iter().map(|h| toc_indent(h.level).len() + h.title.width()).max().unwrap_or(0);
            let toc_w = (needed as u16 + TOC_CHROME).clamp(24, (area.width / 4).max(36));
            let [toc, text] = Layout::horizontal([Constraint::Length(toc_w), Constraint::Min(20)]).areas(main);
            (Some(toc), text, status)
        } else {
            (None, main, status)
        }
    }

    /// Lay the document out for the current width (cached per width and open set).
    pub fn prepare(&mut self, body: Rect) {
        let (_, text, _) = self.areas(body);
        // Two border columns and one column of padding on each side.
        let width = text.width.saturating_sub(4).max(20);
        let at_end = !self.rendered.lines.is_empty() && self.top >= self.max_top();
        self.height = text.height as usize;
        if self.rendered.width != width || self.rendered.lines.is_empty() {
            self.relayout(width);
        }
        if at_end {
            self.top = self.max_top();
        }
        if let Some(slug) = self.pending_slug.take() {
            self.jump_to_slug(&slug);
        }
        if let Some(line) = self.pending_top.take() {
            self.top = line;
        }
        self.clamp();
        self.mark_seen();
    }

    /// Remember the lines on screen now (see [`State::sections_read`]).
    fn mark_seen(&mut self) {
        let n = self.rendered.lines.len();
        if self.seen.len() != n {
            self.seen = vec![false; n];
        }
        let end = (self.top + self.height).min(n);
        for l in self.seen[self.top.min(end)..end].iter_mut() {
            *l = true;
        }
    }

    fn relayout(&mut self, width: u16) {
        // Keep the reader on the same heading across a re-wrap.
        let anchor = self.rendered.heading_at(self.top);
        self.rendered = self.doc.layout_measure(width, MEASURE, &self.open);
        self.seen = vec![false; self.rendered.lines.len()];
        if let Some(h) = anchor {
            if let Some(l) = self.rendered.line_of_heading(h) {
                self.top = l;
            }
        }
        if let Some(q) = self.search.as_ref().map(|s| s.query.clone()) {
            self.run_search(&q, false);
        }
    }

    fn max_top(&self) -> usize {
        self.rendered.lines.len().saturating_sub(self.height.max(1))
    }

    fn clamp(&mut self) {
        self.top = self.top.min(self.max_top());
    }

    fn scroll(&mut self, delta: isize) {
        self.top = (self.top as isize + delta).max(0) as usize;
        self.clamp();
    }

    pub fn jump_to_slug(&mut self, slug: &str) {
        if let Some(i) = self.doc.headings.iter().position(|h| h.slug == slug) {
            if let Some(line) = self.rendered.line_of_heading(i) {
                self.top = line;
                self.toc_cursor = i;
                self.clamp();
            }
        }
    }

    /// The heading the top of the screen is in.
    pub fn current_heading(&self) -> Option<usize> {
        self.rendered.heading_at(self.top)
    }

    fn focusables(&self) -> Vec<(usize, Focusable)> {
        let mut v: Vec<(usize, Focusable)> = Vec::new();
        for spot in &self.rendered.links {
            if !v.iter().any(|(_, f)| *f == Focusable::Link(spot.group)) {
                v.push((spot.line, Focusable::Link(spot.group)));
            }
        }
        v.extend(self.rendered.summaries.iter().map(|&(line, id)| (line, Focusable::Summary(id))));
        v.sort_by_key(|(l, _)| *l);
        v
    }

    fn line_of(&self, f: Focusable) -> Option<usize> {
        self.focusables().into_iter().find(|(_, g)| *g == f).map(|(l, _)| l)
    }

    fn visible(&self, line: usize) -> bool {
        line >= self.top && line < self.top + self.height
    }

    fn cycle(&mut self, forward: bool) {
        let all = self.focusables();
        if all.is_empty() {
            return;
        }
        let current = self.focused.and_then(|f| all.iter().position(|(_, g)| *g == f));
        let next = match current {
            // Start from what is on screen, not from the top of the file.
            Some(i) if self.visible(all[i].0) => {
                if forward {
                    (i + 1) % all.len()
                } else {
                    (i + all.len() - 1) % all.len()
                }
            }
            _ => {
                if forward {
                    all.iter().position(|(l, _)| *l >= self.top).unwrap_or(0)
                } else {
                    all.iter().rposition(|(l, _)| *l < self.top + self.height).unwrap_or(all.len() - 1)
                }
            }
        };
        self.focused = Some(all[next].1);
        let line = all[next].0;
        if !self.visible(line) {
            self.top = line.saturating_sub(self.height / 3);
            self.clamp();
        }
    }

    fn toggle(&mut self, id: usize) {
        if !self.open.remove(&id) {
            self.open.insert(id);
        }
        let width = self.rendered.width;
        let top = self.top;
        self.rendered = self.doc.layout_measure(width, MEASURE, &self.open);
        // Lines above the screen did not move (the answer opened is on it).
        let mut seen = vec![false; self.rendered.lines.len()];
        let keep = top.min(seen.len()).min(self.seen.len());
        seen[..keep].copy_from_slice(&self.seen[..keep]);
        self.seen = seen;
        self.top = top;
        if let Some(q) = self.search.as_ref().map(|s| s.query.clone()) {
            self.run_search(&q, false);
        }
        self.clamp();
    }

    /// `o`: the selected answer, or the first one on screen.
    fn toggle_nearest(&mut self) -> Action {
        if let Some(Focusable::Summary(id)) = self.focused {
            self.toggle(id);
            return Action::None;
        }
        let on_screen = self.rendered.summaries.iter().find(|(l, _)| self.visible(*l)).map(|(_, id)| *id);
        match on_screen {
            Some(id) => {
                self.focused = Some(Focusable::Summary(id));
                self.toggle(id);
                Action::None
            }
            None => Action::Flash(crate::t!("reader-no-answer")),
        }
    }

    fn run_search(&mut self, query: &str, jump: bool) {
        let lower = |s: &str| s.chars().map(|c| c.to_lowercase().next().unwrap_or(c)).collect::<Vec<char>>();
        let q = lower(query);
        let mut hits = Vec::new();
        if !q.is_empty() {
            for (i, line) in self.rendered.plain.iter().enumerate() {
                let l = lower(line);
                let mut start = 0;
                while start + q.len() <= l.len() {
                    if l[start..start + q.len()] == q[..] {
                        hits.push((i, start, start + q.len()));
                        start += q.len();
                    } else {
                        start += 1;
                    }
                }
            }
        }
        let current = hits.iter().position(|(l, _, _)| *l >= self.top).unwrap_or(0);
        let search = self.search.get_or_insert_with(Search::default);
        search.query = query.to_string();
        search.hits = hits;
        search.current = current;
        if jump {
            self.show_current_hit();
        }
    }

    fn show_current_hit(&mut self) {
        if let Some(s) = &self.search {
            if let Some(&(line, _, _)) = s.hits.get(s.current) {
                if !self.visible(line) {
                    self.top = line.saturating_sub(self.height / 3);
                    self.clamp();
                }
            }
        }
    }

    fn next_hit(&mut self, forward: bool) -> Action {
        let Some(s) = self.search.as_mut() else { return Action::Flash(crate::t!("reader-no-search")) };
        if s.hits.is_empty() {
            return Action::Flash(crate::t!("reader-no-match", query = s.query.as_str()));
        }
        let n = s.hits.len();
        s.current = if forward { (s.current + 1) % n } else { (s.current + n - 1) % n };
        self.show_current_hit();
        Action::None
    }

    fn search_key(&mut self, key: KeyEvent) -> Action {
        let s = self.search.as_mut().expect("editing implies a search");
        match key.code {
            KeyCode::Esc => {
                self.search = None;
            }
            KeyCode::Enter => {
                s.editing = false;
                let q = s.query.clone();
                self.run_search(&q, true);
                let n = self.search.as_ref().map_or(0, |s| s.hits.len());
                return if n == 0 {
                    Action::Flash(crate::t!("reader-no-match", query = q.as_str()))
                } else {
                    Action::Flash(crate::t!("reader-matches", count = n, query = q.as_str()))
                };
            }
            KeyCode::Backspace => {
                s.query.pop();
            }
            KeyCode::Char(c) => s.query.push(c),
            _ => {}
        }
        Action::None
    }

    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        if self.is_typing() {
            return self.search_key(key);
        }
        let page = self.height.saturating_sub(2).max(1) as isize;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if self.focus == Focus::Toc {
            let n = self.doc.headings.len();
            match key.code {
                KeyCode::Down | KeyCode::Char('j') => self.toc_cursor = (self.toc_cursor + 1).min(n.saturating_sub(1)),
                KeyCode::Up | KeyCode::Char('k') => self.toc_cursor = self.toc_cursor.saturating_sub(1),
                KeyCode::Char('g') | KeyCode::Home => self.toc_cursor = 0,
                KeyCode::Char('G') | KeyCode::End => self.toc_cursor = n.saturating_sub(1),
                KeyCode::Enter => {
                    if let Some(line) = self.rendered.line_of_heading(self.toc_cursor) {
                        self.top = line;
                        self.clamp();
                    }
                    self.focus = Focus::Text;
                }
                KeyCode::Char('l') | KeyCode::Right | KeyCode::Tab => self.focus = Focus::Text,
                KeyCode::Esc | KeyCode::Backspace => return Action::Back,
                KeyCode::Char('t') => {
                    self.show_toc = false;
                    self.focus = Focus::Text;
                }
                _ => {}
            }
            return Action::None;
        }
        match key.code {
            KeyCode::Char('d') if ctrl => self.scroll(page / 2),
            KeyCode::Char('u') if ctrl => self.scroll(-page / 2),
            KeyCode::Down | KeyCode::Char('j') => self.scroll(1),
            KeyCode::Up | KeyCode::Char('k') => self.scroll(-1),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll(page),
            KeyCode::PageUp => self.scroll(-page),
            KeyCode::Char('g') | KeyCode::Home => self.top = 0,
            KeyCode::Char('G') | KeyCode::End => self.top = self.max_top(),
            KeyCode::Char('h') | KeyCode::Left => {
                self.show_toc = true;
                self.focus = Focus::Toc;
                self.toc_cursor = self.current_heading().unwrap_or(0);
            }
            KeyCode::Char('t') => self.show_toc = !self.show_toc,
            KeyCode::Tab => self.cycle(true),
            KeyCode::BackTab => self.cycle(false),
            KeyCode::Char('o') => return self.toggle_nearest(),
            KeyCode::Char('/') => {
                self.search = Some(Search { editing: true, ..Default::default() });
            }
            KeyCode::Char('n') => return self.next_hit(true),
            KeyCode::Char('N') => return self.next_hit(false),
            KeyCode::Enter => match self.focused {
                Some(Focusable::Link(g)) if self.line_of(Focusable::Link(g)).is_some_and(|l| self.visible(l)) => {
                    if let Some(spot) = self.rendered.link(g) {
                        return Action::Follow(spot.target.clone());
                    }
                }
                Some(Focusable::Summary(id)) => self.toggle(id),
                _ => return Action::Flash(crate::t!("reader-select-first")),
            },
            KeyCode::Esc | KeyCode::Backspace => {
                if self.search.is_some() {
                    self.search = None;
                } else {
                    return Action::Back;
                }
            }
            _ => {}
        }
        Action::None
    }
}

/// Paint char ranges of a line with extra styles (search hits, selection).
fn overlay(line: &Line<'static>, marks: &[(usize, usize, Style)]) -> Line<'static> {
    if marks.is_empty() {
        return line.clone();
    }
    let mut spans = Vec::new();
    let mut col = 0;
    for span in &line.spans {
        let chars: Vec<char> = span.content.chars().collect();
        let mut buf = String::new();
        let mut buf_style = None;
        for (i, c) in chars.iter().enumerate() {
            let at = col + i;
            let mut style = span.style;
            for (s, e, m) in marks {
                if at >= *s && at < *e {
                    style = style.patch(*m);
                }
            }
            if buf_style != Some(style) && !buf.is_empty() {
                spans.push(Span::styled(std::mem::take(&mut buf), buf_style.unwrap_or_default()));
            }
            buf_style = Some(style);
            buf.push(*c);
        }
        if !buf.is_empty() {
            spans.push(Span::styled(buf, buf_style.unwrap_or_default()));
        }
        col += chars.len();
    }
    Line::from(spans)
}

/// Columns of the contents pane that are not entry text: two borders, the
/// selection marker and a space.
const TOC_CHROME: u16 = 4;

fn toc_indent(level: u8) -> String {
    "  ".repeat(level.saturating_sub(1) as usize)
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State) {
    let (toc_area, text_area, status_area) = s.areas(area);
    let current = s.current_heading();

    if let Some(toc_area) = toc_area {
        let items: Vec<ListItem> = s
            .doc
            .headings
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let indent = toc_indent(h.level);
                let style = if Some(i) == current { accent().add_modifier(Modifier::BOLD) } else { Style::default() };
                // A long heading wraps under itself instead of being cut.
                let room = (toc_area.width.saturating_sub(TOC_CHROME) as usize).saturating_sub(indent.len()).max(8);
                let lines: Vec<Line> = crate::tui::widgets::wrap_words(&h.title, room - 2)
                    .into_iter()
                    .enumerate()
                    .map(|(k, part)| {
                        let lead = if k == 0 { indent.clone() } else { format!("{indent}  ") };
                        Line::from(Span::styled(format!("{lead}{part}"), style))
                    })
                    .collect();
                ListItem::new(lines)
            })
            .collect();
        let border = border(s.focus == Focus::Toc);
        let selected = if s.focus == Focus::Toc { Some(s.toc_cursor) } else { current };
        let mut ls = ListState::default().with_selected(selected);
        let list = List::new(items)
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_type(BorderType::Rounded)
                    .border_style(border)
                    .title(format!(" {} ", crate::t!("reader-contents"))),
            )
            .highlight_style(if s.focus == Focus::Toc {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default()
            })
            .highlight_symbol(if s.focus == Focus::Toc { "▶" } else { "›" });
        frame.render_stateful_widget(list, toc_area, &mut ls);
    }

    let hit_style = crate::tui::theme::search_hit();
    let current_hit = crate::tui::theme::search_current();
    let select = Style::default().add_modifier(Modifier::REVERSED);
    let r = &s.rendered;
    let visible: Vec<Line> = (s.top..(s.top + s.height).min(r.lines.len()))
        .map(|i| {
            let mut marks = Vec::new();
            if let Some(search) = &s.search {
                for (k, &(l, a, b)) in search.hits.iter().enumerate() {
                    if l == i {
                        marks.push((a, b, if k == search.current { current_hit } else { hit_style }));
                    }
                }
            }
            match s.focused {
                Some(Focusable::Link(g)) => {
                    for spot in r.links.iter().filter(|x| x.group == g && x.line == i) {
                        marks.push((spot.start, spot.end, select));
                    }
                }
                Some(Focusable::Summary(id)) if r.summaries.iter().any(|&(l, sid)| l == i && sid == id) => {
                    marks.push((0, r.plain[i].chars().count(), select));
                }
                Some(Focusable::Summary(_)) => {}
                None => {}
            }
            overlay(&r.lines[i], &marks)
        })
        .collect();
    let text = Paragraph::new(visible).block(
        Block::default().borders(Borders::LEFT | Borders::RIGHT).border_style(dim()).padding(Padding::horizontal(1)),
    );
    frame.render_widget(text, text_area);

    // Status: where am I, and the search prompt when typing.
    let total = r.lines.len().max(1);
    let pct = ((s.top + s.height).min(total) * 100) / total;
    let section = current.map(|i| s.doc.headings[i].title.clone()).unwrap_or_default();
    let status = match &s.search {
        Some(search) if search.editing => {
            Line::from(vec![Span::styled("/", accent()), Span::raw(search.query.clone()), Span::styled("█", accent())])
        }
        Some(search) => Line::from(vec![
            Span::styled(format!(" {pct:>3}% "), position()),
            Span::raw(format!(" {section}  ")),
            Span::styled(
                format!(
                    "/{}: {}/{}",
                    search.query,
                    if search.hits.is_empty() { 0 } else { search.current + 1 },
                    search.hits.len()
                ),
                notice(),
            ),
        ]),
        None => Line::from(vec![Span::styled(format!(" {pct:>3}% "), position()), Span::raw(format!(" {section}"))]),
    };
    frame.render_widget(Paragraph::new(status), status_area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use unicode_width::UnicodeWidthChar;

    /// The reader drawn at `w`×`h` at each scroll position a page apart,
    /// every screen's rows, and the state after the last page.
    fn pages(mut s: State, w: u16, h: u16) -> (Vec<Vec<String>>, State) {
        let area = Rect::new(0, 0, w, h);
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        let mut screens = Vec::new();
        s.prepare(area);
        loop {
            term.draw(|f| draw(f, area, &s)).unwrap();
            let buf = term.backend().buffer().clone();
            let rows = (0..h)
                .map(|y| {
                    let mut line = String::new();
                    let mut x = 0;
                    while x < w {
                        let sym = buf[(x, y)].symbol();
                        line.push_str(sym);
                        x += sym.width().max(1) as u16;
                    }
                    line
                })
                .collect();
            screens.push(rows);
            if s.top >= s.max_top() {
                break;
            }
            s.top = (s.top + s.height).min(s.max_top());
        }
        (screens, s)
    }

    /// Drill README tables wrap between words (or fall back to one record a
    /// row): an identifier such as `verifier_beats_self_critic` is never cut.
    #[test]
    fn drill_tables_never_split_an_identifier() {
        let content = Content::embedded().unwrap();
        let readme = &content.drill("self-refine-loop").unwrap().readme;
        let id = "verifier_beats_self_critic";
        let want = readme.matches(id).count();
        assert!(want >= 3, "the README names {id}");
        for (w, h) in [(120, 40), (80, 24), (200, 60)] {
            let s = State::for_drill(&content, "self-refine-loop").unwrap();
            let (screens, s) = pages(s, w, h);
            let text = s.rendered().plain.join("\n");
            assert_eq!(text.matches(id).count(), want, "{w}×{h}: {id} split:\n{text}");
            // What is drawn is what was laid out: each screen shows it whole.
            let drawn: usize = screens.iter().map(|rows| rows.join("\n").matches(id).count()).sum();
            assert!(drawn >= want, "{w}×{h}: drawn {drawn} times");
            for rows in &screens {
                for row in rows {
                    assert!(
                        !row.trim_end_matches(['│', ' ']).ends_with("verifier_beats_se"),
                        "{w}×{h}: cut in {row:?}"
                    );
                }
            }
        }
    }

    /// At 200 columns the sheet's running text keeps to the measure, in a
    /// column centred in the text pane.
    #[test]
    fn wide_screens_centre_a_text_column_of_the_measure() {
        let content = Content::embedded().unwrap();
        let s = State::for_track(&content, 0, None).unwrap();
        let (w, h) = (200, 60);
        let (screens, s) = pages(s, w, h);
        let (_, text, _) = s.areas(Rect::new(0, 0, w, h));
        // Borders and padding: one column each side.
        let inner = text.width as usize - 4;
        let margin = (inner - MEASURE as usize) / 2;
        assert!(margin >= 20, "a 200-column screen leaves room to centre: {margin}");
        let left = text.x as usize + 2 + margin;
        let mut prose = 0;
        let mut leads = std::collections::BTreeSet::new();
        for rows in &screens {
            for row in rows.iter().take(s.height) {
                // Columns, not chars: an emoji takes two.
                let cells: Vec<String> = {
                    let mut v = Vec::new();
                    for sym in row.chars() {
                        v.push(sym.to_string());
                        if sym.width().unwrap_or(0) == 2 {
                            v.push(String::new());
                        }
                    }
                    v
                };
                let pane = &cells[text.x as usize + 2..(text.x + text.width) as usize - 2];
                let body: String = pane.concat();
                let body = body.trim();
                // Tables, code and quotes have frames; running text does not.
                if body.is_empty() || body.starts_with(['┌', '│', '├', '└', '╭', '╰', '┬']) {
                    continue;
                }
                let lead = pane.iter().take_while(|c| c.as_str() == " ").count();
                let end = pane.iter().rposition(|c| c.as_str() != " ").unwrap() + 1;
                // List items and quotes indent inside the column, never out of it.
                assert!(text.x as usize + 2 + lead >= left, "left of the column: {row:?}");
                leads.insert(text.x as usize + 2 + lead);
                assert!(end <= margin + MEASURE as usize, "wider than the measure: {row:?}");
                assert!(inner - end >= margin, "right margin at least the left: {row:?}");
                prose += 1;
            }
        }
        assert!(prose > 200, "the sheet's prose was seen: {prose} lines");
        assert_eq!(leads.first(), Some(&left), "paragraphs start at the column's left edge");
        // Some line of prose uses most of the measure (it is a measure, not a shrink).
        let longest = s.rendered().plain.iter().map(|l| l.trim_end().width()).filter(|&x| x <= margin + 100).max();
        assert!(longest.unwrap() > margin + 90);
    }

    /// A narrow screen keeps the whole width for text.
    #[test]
    fn narrow_screens_use_the_whole_width() {
        let content = Content::embedded().unwrap();
        let s = State::for_track(&content, 0, None).unwrap();
        let (screens, _) = pages(s, 80, 24);
        let first = &screens[0][0];
        assert!(first.starts_with("│ Prerequisites"), "{first:?}");
    }
}
