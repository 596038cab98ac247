//! Wrapping a parsed [`Doc`] at a width.
//!
//! Positions in [`Rendered`] are line indices and *char* offsets into
//! `plain[line]`, so search hits and link highlights can be painted over the
//! styled lines by the reader without re-wrapping.

use std::collections::HashSet;

use pulldown_cmark::Alignment;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::{styles, BlockKind, Doc, Seg, Target};

/// A link as laid out: one spot per line it occupies.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkSpot {
    pub line: usize,
    pub start: usize,
    pub end: usize,
    pub target: Target,
    /// Spots of one link that wrapped over several lines share a group.
    pub group: usize,
}

/// A document laid out at one width.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub lines: Vec<Line<'static>>,
    /// The same lines without styles (search, plain-text output).
    pub plain: Vec<String>,
    /// (line, index into `Doc::headings`).
    pub headings: Vec<(usize, usize)>,
    pub links: Vec<LinkSpot>,
    /// (line, foldable id) of every visible `<details>` summary.
    pub summaries: Vec<(usize, usize)>,
    pub width: u16,
}

impl Rendered {
    pub fn line_of_heading(&self, index: usize) -> Option<usize> {
        self.headings.iter().find(|(_, i)| *i == index).map(|(l, _)| *l)
    }

    /// The heading the reader is in when `top` is the first visible line.
    pub fn heading_at(&self, top: usize) -> Option<usize> {
        self.headings.iter().take_while(|(l, _)| *l <= top).last().map(|(_, i)| *i)
    }

    /// Number of distinct links.
    pub fn link_count(&self) -> usize {
        self.links.last().map_or(0, |l| l.group + 1)
    }

    /// The first spot of link group `g`.
    pub fn link(&self, g: usize) -> Option<&LinkSpot> {
        self.links.iter().find(|l| l.group == g)
    }

    /// All of the text, one line per terminal line.
    pub fn to_plain_text(&self) -> String {
        let mut s = String::new();
        for l in &self.plain {
            s.push_str(l.trim_end());
            s.push('\n');
        }
        s
    }
}

/// A line being assembled: styled pieces plus link spots.
#[derive(Default)]
struct OutLine {
    pieces: Vec<(String, Style, Option<Target>)>,
    width: usize,
}

impl OutLine {
    fn push(&mut self, text: &str, style: Style, link: Option<Target>) {
        if text.is_empty() {
            return;
        }
        self.width += text.width();
        if let Some(last) = self.pieces.last_mut() {
            if last.1 == style && last.2 == link {
                last.0.push_str(text);
                return;
            }
        }
        self.pieces.push((text.to_string(), style, link));
    }

    fn push_segs(&mut self, segs: &[Seg]) {
        for s in segs {
            self.push(&s.text, s.style, s.link.clone());
        }
    }
}

struct Out {
    r: Rendered,
    last_blank: bool,
    last_link: Option<Target>,
    group: usize,
    /// Blank columns before every emitted line (the centred text column).
    indent: usize,
}

impl Out {
    fn emit(&mut self, mut line: OutLine) {
        if self.indent > 0 {
            line.pieces.insert(0, (" ".repeat(self.indent), Style::default(), None));
            line.width += self.indent;
        }
        let idx = self.r.lines.len();
        let mut plain = String::new();
        let mut spans = Vec::new();
        let mut col = 0;
        let mut any_link = false;
        for (text, style, link) in line.pieces {
            let n = text.chars().count();
            if let Some(t) = link {
                // A new link group starts unless this continues the previous link.
                let continues =
                    self.r.links.last().is_some_and(|l| (l.line + 1 == idx || l.line == idx) && l.target == t)
                        && self.last_link.as_ref() == Some(&t);
                if !continues && !self.r.links.is_empty() {
                    self.group += 1;
                }
                self.r.links.push(LinkSpot {
                    line: idx,
                    start: col,
                    end: col + n,
                    target: t.clone(),
                    group: self.group,
                });
                self.last_link = Some(t);
                any_link = true;
            }
            col += n;
            plain.push_str(&text);
            spans.push(Span::styled(text, style));
        }
        if !any_link {
            self.last_link = None;
        }
        self.last_blank = plain.trim().is_empty() || plain.trim() == "│";
        self.r.plain.push(plain);
        self.r.lines.push(Line::from(spans));
    }

    fn blank(&mut self, prefix: &[Seg]) {
        if self.last_blank || self.r.lines.is_empty() {
            return;
        }
        let mut l = OutLine::default();
        l.push_segs(prefix);
        self.emit(l);
    }
}

impl Doc {
    /// Lay the document out at `width` columns with the given `<details>` open.
    pub fn layout(&self, width: u16, open: &HashSet<usize>) -> Rendered {
        self.layout_measure(width, width, open)
    }

    /// Lay the document out in `width` columns with text lines at most
    /// `measure` wide (a comfortable reading measure), the text column
    /// centred. Code blocks may run on to the right edge and a table wider
    /// than the measure is centred in the whole width.
    pub fn layout_measure(&self, width: u16, measure: u16, open: &HashSet<usize>) -> Rendered {
        let full = width.max(20) as usize;
        let width = (measure as usize).clamp(20, full);
        let margin = (full - width) / 2;
        let mut out = Out {
            r: Rendered { width: full as u16, ..Default::default() },
            last_blank: true,
            last_link: None,
            group: 0,
            indent: margin,
        };
        for block in &self.blocks {
            if !block.inside.iter().all(|id| open.contains(id)) {
                continue;
            }
            let prefix_w: usize = block.rest.iter().map(|s| s.text.width()).sum();
            let avail = width.saturating_sub(prefix_w).max(10);
            match &block.kind {
                BlockKind::Blank => out.blank(&block.rest),
                BlockKind::Para(segs) => {
                    for l in wrap(segs, &block.first, &block.rest, width) {
                        out.emit(l);
                    }
                }
                BlockKind::Heading { index, segs } => {
                    if !out.last_blank && !out.r.lines.is_empty() {
                        out.blank(&block.rest);
                    }
                    let level = self.headings[*index].level;
                    let mut marked: Vec<Seg> = Vec::new();
                    if level == 2 {
                        marked.push(Seg { text: "▍".into(), style: styles::heading(2), link: None });
                    }
                    marked.extend(segs.iter().cloned());
                    let first_line = out.r.lines.len();
                    for l in wrap(&marked, &block.first, &block.rest, width) {
                        out.emit(l);
                    }
                    out.r.headings.push((first_line, *index));
                    if level == 1 {
                        let mut l = OutLine::default();
                        l.push_segs(&block.rest);
                        let title_w: usize = segs.iter().map(|s| s.text.width()).sum();
                        l.push(&"━".repeat(title_w.min(avail)), styles::heading(1), None);
                        out.emit(l);
                    }
                }
                BlockKind::Rule => {
                    let mut l = OutLine::default();
                    l.push_segs(&block.first);
                    l.push(&"─".repeat(avail), styles::dim(), None);
                    out.emit(l);
                }
                BlockKind::Math(text) => {
                    let seg = [Seg { text: text.clone(), style: styles::math(), link: None }];
                    let mut first = block.first.clone();
                    first.push(Seg { text: "    ".into(), style: styles::text(), link: None });
                    let mut rest = block.rest.clone();
                    rest.push(Seg { text: "    ".into(), style: styles::text(), link: None });
                    for l in wrap(&seg, &first, &rest, width) {
                        out.emit(l);
                    }
                }
                BlockKind::Code { lang, lines } => {
                    // Code does not reflow: it may use the columns right of the measure.
                    let avail = (full - margin).saturating_sub(prefix_w).max(10);
                    code_block(&mut out, block, lang, lines, avail)
                }
                BlockKind::Table { aligns, header, rows } => {
                    let avail = full.saturating_sub(prefix_w).max(10);
                    let t = table(&block.first, &block.rest, aligns, header, rows, avail);
                    // In the text column if it fits there, else centred in the whole width.
                    let w = t.iter().map(|l| l.width).max().unwrap_or(0);
                    out.indent = if w <= width { margin } else { full.saturating_sub(w) / 2 };
                    for l in t {
                        out.emit(l);
                    }
                    out.indent = margin;
                }
                BlockKind::Summary { id, text } => {
                    let is_open = open.contains(id);
                    let mut l = OutLine::default();
                    l.push_segs(&block.first);
                    let marker = if is_open { "▼ " } else { "▶ " };
                    l.push(marker, styles::summary(), None);
                    l.push(text, styles::summary(), None);
                    if !is_open {
                        l.push("  (o: open)", styles::dim(), None);
                    }
                    out.r.summaries.push((out.r.lines.len(), *id));
                    out.emit(l);
                    if !is_open {
                        out.blank(&block.rest);
                    }
                }
            }
        }
        // Drop trailing blank lines.
        while out.r.plain.last().is_some_and(|l| l.trim().is_empty()) {
            out.r.plain.pop();
            out.r.lines.pop();
        }
        out.r
    }
}

/// A styled piece of a word.
type Piece = (String, Style, Option<Target>);

/// Where a line may break in `text`, as byte offsets: after a run of
/// whitespace (as English wraps), and where Unicode's line-breaking rules
/// (UAX #14) allow a break next to a wide (CJK) character — so Chinese
/// breaks between characters, but never before "，。、）" nor after "（".
pub fn break_points(text: &str) -> Vec<usize> {
    let wide = |c: Option<char>| c.is_some_and(|c| c.width().unwrap_or(0) >= 2);
    let mut out: Vec<usize> = unicode_linebreak::linebreaks(text)
        .map(|(i, _)| i)
        .filter(|&i| {
            let before = text[..i].chars().next_back();
            let after = text[i..].chars().next();
            before.is_some_and(char::is_whitespace) || wide(before) || wide(after)
        })
        .collect();
    // Every run of whitespace ends a word, even where UAX #14 would not break
    // (a space before a closing bracket): English wraps as it always did.
    let mut prev_ws = false;
    for (i, c) in text.char_indices() {
        if prev_ws && !c.is_whitespace() {
            out.push(i);
        }
        prev_ws = c.is_whitespace();
    }
    out.push(text.len());
    out.sort_unstable();
    out.dedup();
    out
}

/// Words of a paragraph, each as styled pieces, with whether a space came before it.
fn words(segs: &[Seg]) -> Vec<(Vec<Piece>, bool)> {
    let full: String = segs.iter().map(|s| s.text.as_str()).collect();
    let mut ranges = Vec::with_capacity(segs.len());
    let mut at = 0;
    for s in segs {
        ranges.push((at, at + s.text.len()));
        at += s.text.len();
    }
    let mut words = Vec::new();
    let (mut start, mut space) = (0, false);
    for end in break_points(&full) {
        let chunk = &full[start..end];
        let lead = chunk.len() - chunk.trim_start().len();
        let trail = chunk.len() - chunk.trim_end().len();
        space |= lead > 0;
        let (a, b) = (start + lead, end - trail);
        if a < b {
            let pieces: Vec<Piece> = segs
                .iter()
                .zip(&ranges)
                .filter_map(|(s, &(sa, sb))| {
                    let (x, y) = (a.max(sa), b.min(sb));
                    (x < y)
                        .then(|| (full[x..y].split_whitespace().collect::<Vec<_>>().join(" "), s.style, s.link.clone()))
                })
                .filter(|p| !p.0.is_empty())
                .collect();
            if !pieces.is_empty() {
                words.push((pieces, space));
                space = false;
            }
        }
        space |= trail > 0 && a < b;
        start = end;
    }
    words
}

/// Greedy wrap of styled segments at the break points of [`break_points`];
/// a word never splits unless it is longer than a line.
fn wrap(segs: &[Seg], first: &[Seg], rest: &[Seg], width: usize) -> Vec<OutLine> {
    let words = words(segs);

    let prefix_w = |p: &[Seg]| p.iter().map(|s| s.text.width()).sum::<usize>();
    let mut lines = Vec::new();
    let mut line = OutLine::default();
    line.push_segs(first);
    let mut start_w = prefix_w(first);
    for (pieces, space_before) in words {
        let w: usize = pieces.iter().map(|p| p.0.width()).sum();
        let has_content = line.width > start_w;
        let gap = usize::from(space_before && has_content);
        if has_content && line.width + gap + w > width {
            lines.push(std::mem::take(&mut line));
            line.push_segs(rest);
            start_w = prefix_w(rest);
        }
        let has_content = line.width > start_w;
        if space_before && has_content {
            // The space takes the link style only inside one link.
            let link = pieces.first().and_then(|p| p.2.clone());
            let prev_link = line.pieces.last().and_then(|p| p.2.clone());
            let style = if link.is_some() && link == prev_link { pieces[0].1 } else { Style::default() };
            line.push(" ", style, if link == prev_link { link } else { None });
        }
        for (text, style, link) in pieces {
            // Hard-split a piece that does not fit on an empty line (long URLs, CJK runs).
            let mut chunk = String::new();
            for c in text.chars() {
                let cw = c.width().unwrap_or(0);
                if line.width + chunk.width() + cw > width && line.width + chunk.width() > start_w {
                    line.push(&chunk, style, link.clone());
                    chunk.clear();
                    lines.push(std::mem::take(&mut line));
                    line.push_segs(rest);
                    start_w = prefix_w(rest);
                }
                chunk.push(c);
            }
            line.push(&chunk, style, link.clone());
        }
    }
    if line.width > 0 {
        lines.push(line);
    }
    lines
}

fn code_block(out: &mut Out, block: &super::Block, lang: &str, lines: &[Vec<(Style, String)>], avail: usize) {
    let gutter = styles::code_gutter();
    let mut head = OutLine::default();
    head.push_segs(&block.first);
    let label = if lang.is_empty() { String::new() } else { format!(" {lang} ") };
    head.push("╭─", gutter, None);
    head.push(&label, styles::dim().add_modifier(Modifier::ITALIC), None);
    head.push(&"─".repeat(avail.saturating_sub(2 + label.width()).min(40)), gutter, None);
    out.emit(head);
    let inner = avail.saturating_sub(2).max(8);
    for pieces in lines {
        let mut l = OutLine::default();
        l.push_segs(&block.rest);
        l.push("│ ", gutter, None);
        for (style, text) in pieces {
            for c in text.chars() {
                let cw = c.width().unwrap_or(0);
                if l.width + cw > inner + block.rest.iter().map(|s| s.text.width()).sum::<usize>() + 2 {
                    out.emit(std::mem::take(&mut l));
                    l.push_segs(&block.rest);
                    l.push("│ ", gutter, None);
                    l.push("↪ ", styles::dim(), None);
                }
                let mut b = [0u8; 4];
                l.push(c.encode_utf8(&mut b), *style, None);
            }
        }
        out.emit(l);
    }
    let mut foot = OutLine::default();
    foot.push_segs(&block.rest);
    foot.push("╰─", gutter, None);
    out.emit(foot);
}

/// The widest word of a cell: a run without whitespace, `_`-joined
/// identifiers and `**bold**,` included.
fn longest_word(cell: &[Seg]) -> usize {
    let text: String = cell.iter().map(|s| s.text.as_str()).collect();
    let mut start = 0;
    let mut longest = 0;
    for end in break_points(&text) {
        longest = longest.max(text[start..end].trim().width());
        start = end;
    }
    longest
}

/// Column widths that fit `avail`: natural widths, shrinking the widest
/// first but never below a column's widest word, so that cells wrap
/// between words. `None` when even the widest words do not fit side by side.
fn column_widths(natural: &[usize], words: &[usize], avail: usize) -> Option<Vec<usize>> {
    let n = natural.len();
    let chrome = 3 * n + 1; // "│ " + " " per column, and the closing "│"
    let budget = avail.checked_sub(chrome)?;
    let floor: Vec<usize> = words.iter().map(|&x| x.max(1)).collect();
    if floor.iter().sum::<usize>() > budget {
        return None;
    }
    let mut w: Vec<usize> = natural.iter().zip(&floor).map(|(&x, &f)| x.max(f)).collect();
    while w.iter().sum::<usize>() > budget {
        // The widest column that can still give up a column.
        let i = (0..n).filter(|&i| w[i] > floor[i]).max_by_key(|&i| (w[i], std::cmp::Reverse(i)))?;
        w[i] -= 1;
    }
    Some(w)
}

/// A table laid out in `avail` columns: as a grid when its columns fit with
/// every word whole, else one record per row ("header: value" lines), so a
/// narrow screen splits a table between cells and never inside a word that
/// fits on a line.
fn table(
    first: &[Seg],
    rest: &[Seg],
    aligns: &[Alignment],
    header: &[Vec<Seg>],
    rows: &[Vec<Vec<Seg>>],
    avail: usize,
) -> Vec<OutLine> {
    let ncols = header.len().max(rows.iter().map(|r| r.len()).max().unwrap_or(0));
    if ncols == 0 {
        return Vec::new();
    }
    let cell_w = |c: &Vec<Seg>| c.iter().map(|s| s.text.width()).sum::<usize>();
    let mut natural = vec![0; ncols];
    let mut words = vec![0; ncols];
    for row in std::iter::once(header).chain(rows.iter().map(|r| r.as_slice())) {
        for (i, c) in row.iter().enumerate() {
            natural[i] = natural[i].max(cell_w(c));
            words[i] = words[i].max(longest_word(c));
        }
    }
    let Some(widths) = column_widths(&natural, &words, avail) else {
        return records(first, rest, header, rows, avail);
    };
    let mut lines = Vec::new();
    let border = styles::dim();
    let rule = |l: &str, m: &str, r: &str| {
        let mut s = String::from(l);
        for (i, w) in widths.iter().enumerate() {
            s.push_str(&"─".repeat(w + 2));
            s.push_str(if i + 1 == widths.len() { r } else { m });
        }
        s
    };
    let mut is_first = true;
    let mut emit_rule = |lines: &mut Vec<OutLine>, text: String| {
        let mut l = OutLine::default();
        l.push_segs(if is_first { first } else { rest });
        is_first = false;
        l.push(&text, border, None);
        lines.push(l);
    };
    emit_rule(&mut lines, rule("┌", "┬", "┐"));
    let emit_row = |lines: &mut Vec<OutLine>, row: &[Vec<Seg>], bold: bool| {
        let wrapped: Vec<Vec<OutLine>> = (0..ncols)
            .map(|i| {
                let mut segs = row.get(i).cloned().unwrap_or_default();
                if bold {
                    for s in segs.iter_mut() {
                        s.style = s.style.add_modifier(Modifier::BOLD);
                    }
                }
                wrap(&segs, &[], &[], widths[i])
            })
            .collect();
        let height = wrapped.iter().map(|c| c.len()).max().unwrap_or(1).max(1);
        for h in 0..height {
            let mut l = OutLine::default();
            l.push_segs(rest);
            l.push("│", border, None);
            for (i, cell) in wrapped.iter().enumerate() {
                let w = widths[i];
                let (pieces, used) = match cell.get(h) {
                    Some(cl) => (cl.pieces.clone(), cl.width),
                    None => (Vec::new(), 0),
                };
                let pad = w.saturating_sub(used);
                let (left, right) = match aligns.get(i) {
                    Some(Alignment::Right) => (pad, 0),
                    Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                    _ => (0, pad),
                };
                l.push(&" ".repeat(1 + left), Style::default(), None);
                for (t, s, link) in pieces {
                    l.push(&t, s, link);
                }
                l.push(&" ".repeat(right + 1), Style::default(), None);
                l.push("│", border, None);
            }
            lines.push(l);
        }
    };
    emit_row(&mut lines, header, true);
    emit_rule(&mut lines, rule("├", "┼", "┤"));
    for row in rows {
        emit_row(&mut lines, row, false);
    }
    emit_rule(&mut lines, rule("└", "┴", "┘"));
    lines
}

/// A table too wide for its columns, one record per row: the first cell on
/// the rule that opens the record, then each other cell as "header: value",
/// wrapped at words under itself.
fn records(first: &[Seg], rest: &[Seg], header: &[Vec<Seg>], rows: &[Vec<Vec<Seg>>], avail: usize) -> Vec<OutLine> {
    let border = styles::dim();
    let bold = |segs: &[Seg]| -> Vec<Seg> {
        segs.iter().map(|s| Seg { style: s.style.add_modifier(Modifier::BOLD), ..s.clone() }).collect()
    };
    let seg = |text: &str, style: Style| Seg { text: text.into(), style, link: None };
    let blank = |c: &[Seg]| c.iter().all(|s| s.text.trim().is_empty());
    let with = |prefix: &[Seg], more: Seg| -> Vec<Seg> {
        let mut v = prefix.to_vec();
        v.push(more);
        v
    };
    // `wrap` counts the prefixes in its width; `avail` does not.
    let avail = avail + rest.iter().map(|s| s.text.width()).sum::<usize>();
    let mut lines = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let lead = if r == 0 { "┌─ " } else { "├─ " };
        let p = if r == 0 { first } else { rest };
        let mut title = Vec::new();
        if let Some(h) = header.first().filter(|h| !blank(h)) {
            title.extend(h.iter().map(|s| Seg { style: styles::dim(), ..s.clone() }));
            title.push(seg(": ", styles::dim()));
        }
        title.extend(bold(row.first().map_or(&[][..], |c| c.as_slice())));
        lines.extend(wrap(&title, &with(p, seg(lead, border)), &with(rest, seg("│    ", border)), avail));
        for (i, cell) in row.iter().enumerate().skip(1) {
            if blank(cell) {
                continue;
            }
            let mut segs = Vec::new();
            if let Some(h) = header.get(i).filter(|h| !blank(h)) {
                segs.extend(bold(h));
                segs.push(seg(":", styles::text().add_modifier(Modifier::BOLD)));
                segs.push(seg(" ", styles::text()));
            }
            segs.extend(cell.iter().cloned());
            lines.extend(wrap(&segs, &with(rest, seg("│ ", border)), &with(rest, seg("│   ", border)), avail));
        }
    }
    let mut foot = OutLine::default();
    foot.push_segs(rest);
    foot.push("└─", border, None);
    lines.push(foot);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::links::Link;

    fn render(md: &str, width: u16) -> Rendered {
        Doc::parse_plain(md).layout(width, &HashSet::new())
    }

    #[test]
    fn paragraphs_wrap_at_word_boundaries() {
        let r = render("alpha beta gamma delta epsilon zeta eta theta iota kappa", 20);
        for l in &r.plain {
            assert!(l.width() <= 20, "{l:?}");
        }
        assert_eq!(r.plain[0], "alpha beta gamma");
        assert_eq!(r.plain.join(" "), "alpha beta gamma delta epsilon zeta eta theta iota kappa");
    }

    const ZH: &str = "单轮的 LLM 强化学习为每个 prompt 的一次补全打分，再把模型往得分高的补全方向推。\
                      智能体强化学习保留这套机制（但把模型放进一个循环），让它成为智能体：策略写出一个动作、\
                      一次工具调用或一个答案，环境把观测写回上下文。";

    #[test]
    fn chinese_breaks_between_characters_but_not_before_closing_punctuation() {
        for width in [60u16, 80, 120, 24] {
            let r = render(ZH, width);
            let joined: String = r.plain.concat();
            let original: String = ZH.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(joined.replace(' ', ""), original.replace(' ', ""), "nothing lost or added at {width}");
            for (i, l) in r.plain.iter().enumerate() {
                assert!(l.width() <= width as usize, "{l:?} is wider than {width}");
                // UAX #14: no line starts with closing punctuation, none ends with an opening one.
                assert!(
                    !l.starts_with(['，', '。', '、', '）', '：']),
                    "line {i} at {width} starts with punctuation: {l:?}"
                );
                assert!(!l.trim_end().ends_with('（'), "line {i} at {width} ends with an opening bracket: {l:?}");
            }
            // Lines are filled: all but the last come within a few columns of the width.
            let full = r.plain.len().saturating_sub(1);
            assert!(
                r.plain[..full].iter().all(|l| l.width() + 8 >= width as usize),
                "ragged lines at {width}: {:#?}",
                r.plain
            );
        }
    }

    #[test]
    fn a_line_break_between_chinese_characters_adds_no_space() {
        let r = render("本演练拿一个小模型——\n连同它的坏习惯。It learns\nfast，然后\n`code` 继续。", 200);
        assert_eq!(r.plain[0], "本演练拿一个小模型——连同它的坏习惯。It learns fast，然后 code 继续。");
    }

    #[test]
    fn break_points_follow_uax14_for_cjk_and_spaces_for_english() {
        let t = "好，我们（先）走 a-b and/or";
        let b = break_points(t);
        let at = |s: &str| t.find(s).unwrap();
        assert!(!b.contains(&at("，")), "no break before a full-width comma");
        assert!(b.contains(&at("我")), "a break after it");
        assert!(!b.contains(&at("先")), "no break after an opening bracket");
        assert!(!b.contains(&at("-b")) && !b.contains(&at("or")), "English keeps breaking at spaces only");
        assert!(b.contains(&at("a-b")) && b.contains(&t.len()));
    }

    #[test]
    fn table_with_chinese_cells_fits_and_aligns() {
        let md = "| 方法 | 说明 |\n|---|---|\n| GRPO | 用组内平均奖励作基线，无需价值网络，也就不必训练评论家 |\n| PPO | 需要价值函数 |\n";
        for width in [30u16, 60] {
            let r = render(md, width);
            let widths: HashSet<usize> = r.plain.iter().map(|l| l.width()).collect();
            assert_eq!(widths.len(), 1, "one width at {width}: {:#?}", r.plain);
            assert!(r.plain.iter().all(|l| l.width() <= width as usize), "{:#?}", r.plain);
        }
    }

    #[test]
    fn table_has_aligned_columns() {
        let md = "| algo | critic | baseline |\n|---|:---:|---:|\n| PPO | yes | V(s) |\n| GRPO | no | group mean |\n";
        let r = render(md, 60);
        let text = r.to_plain_text();
        assert!(text.contains("│ algo │ critic │   baseline │"), "{text}");
        assert!(text.contains("│ GRPO │   no   │ group mean │"), "{text}");
        let widths: HashSet<usize> = r.plain.iter().map(|l| l.width()).collect();
        assert_eq!(widths.len(), 1, "all table lines have one width: {text}");
    }

    #[test]
    fn narrow_table_wraps_cells_instead_of_overflowing() {
        let md = "| a | b |\n|---|---|\n| a long cell with many words in it | another long cell with words |\n";
        let r = render(md, 30);
        for l in &r.plain {
            assert!(l.width() <= 30, "{l:?} overflows");
        }
        assert!(r.to_plain_text().contains("many"));
    }

    #[test]
    fn code_block_is_framed_and_highlighted() {
        let r = render("```python\ndef f(x):\n    return x * 2\n```\n", 40);
        assert!(r.plain[0].starts_with("╭─ python"));
        assert_eq!(r.plain[1], "│ def f(x):");
        assert_eq!(r.plain[2], "│     return x * 2");
        let styles: HashSet<_> = r.lines[1].spans.iter().map(|s| s.style).collect();
        assert!(styles.len() >= 3, "highlighted: {:?}", r.lines[1]);
    }

    #[test]
    fn math_becomes_unicode() {
        let r = render("The return $G_t = \\sum_{k=0}^{T} \\gamma^k r_{t+k}$ and\n\n$$\\hat{A}_i = \\frac{r_i - \\mu}{\\sigma}$$\n", 80);
        let text = r.to_plain_text();
        assert!(text.contains("Gₜ = ∑"), "{text}");
        assert!(text.contains("γᵏ"), "{text}");
        assert!(text.contains("(rᵢ - μ)/σ"), "{text}");
        assert!(!text.contains('$') && !text.contains("\\frac"), "{text}");
    }

    #[test]
    fn headings_and_links_are_recorded() {
        let md = "# Top\n\nSee [drill:ewc-replay] now.\n\n## Part two\n\nAnd [the paper](https://arxiv.org/abs/1612.00796).\n";
        let doc = Doc::parse(md, &|l| match l {
            Link::Drill(id) => Some(format!("Drill {id}")),
            _ => None,
        });
        let r = doc.layout(80, &HashSet::new());
        assert_eq!(doc.headings.len(), 2);
        assert_eq!(doc.headings[1].slug, "part-two");
        assert_eq!(r.headings.len(), 2);
        assert!(r.plain[r.headings[1].0].contains("Part two"));
        assert_eq!(r.link_count(), 2);
        let first = r.link(0).unwrap();
        assert_eq!(first.target, Target::Lab(Link::Drill("ewc-replay".into())));
        let text: String = r.plain[first.line].chars().skip(first.start).take(first.end - first.start).collect();
        assert_eq!(text, "→ Drill ewc-replay");
        assert!(r.to_plain_text().contains("⟨https://arxiv.org/abs/1612.00796⟩"));
    }

    #[test]
    fn details_fold_and_unfold() {
        let md = "Question?\n\n<details><summary>Answer</summary>\n\nThe hidden answer.\n\n</details>\n\nAfter.\n";
        let doc = Doc::parse_plain(md);
        assert_eq!(doc.foldables, 1);
        let closed = doc.layout(60, &HashSet::new()).to_plain_text();
        assert!(closed.contains("▶ Answer"));
        assert!(!closed.contains("hidden"));
        assert!(closed.contains("After."));
        let open = doc.layout(60, &HashSet::from([0])).to_plain_text();
        assert!(open.contains("▼ Answer"));
        assert!(open.contains("The hidden answer."));
    }

    #[test]
    fn lists_and_quotes_get_prefixes() {
        let md = "- one\n- two\n  - nested\n1. first\n2. second\n\n> quoted text\n";
        let text = render(md, 60).to_plain_text();
        assert!(text.contains("• one"));
        assert!(text.contains("  ◦ nested"), "{text}");
        assert!(text.contains("2. second"));
        assert!(text.contains("│ quoted text"));
    }

    #[test]
    fn table_columns_keep_their_widest_word() {
        let md = "| claim | holds when | seeds |\n|---|---|---|\n| `verifier_beats_self_critic` | mean kept score with the verifier's critique minus with the model's own ≥ 0.1 | 20/20 |\n";
        for width in [40u16, 50, 60, 80] {
            let r = render(md, width);
            let text = r.to_plain_text();
            assert!(text.contains("verifier_beats_self_critic"), "{width}: {text}");
            for l in &r.plain {
                assert!(l.width() <= width as usize, "{width}: {l:?} overflows");
            }
        }
        // At 60 the grid fits with the identifier whole.
        assert!(render(md, 60).plain[0].starts_with('┌'));
    }

    #[test]
    fn a_table_too_narrow_for_its_words_becomes_records() {
        let md = "| claim | holds when | breaks with |\n|---|---|---|\n| `self_critic_misses_own_errors` | share of its own wrong drafts | `correct_draft_frac = 0` |\n| `refine_gain` | kept minus draft | `critic = self` |\n";
        let r = render(md, 40);
        let text = r.to_plain_text();
        assert!(text.contains("┌─ claim: self_critic_misses_own_errors"), "{text}");
        assert!(text.contains("│ breaks with: correct_draft_frac = 0"), "{text}");
        assert!(text.contains("├─ claim: refine_gain"), "{text}");
        assert!(text.trim_end().ends_with("└─"), "{text}");
        for l in &r.plain {
            assert!(l.width() <= 40, "{l:?} overflows");
        }
    }

    #[test]
    fn the_measure_centres_prose_and_lets_wide_tables_out() {
        let words = "word ".repeat(80);
        let md = format!("{words}\n\n| a | b |\n|---|---|\n| {} | {} |\n", "x".repeat(70), "y".repeat(60));
        let r = Doc::parse_plain(&md).layout_measure(140, 100, &HashSet::new());
        // Prose: 20 columns in, at most 100 wide.
        for l in r.plain.iter().take_while(|l| !l.trim_start().starts_with('┌')) {
            assert!(l.starts_with(&" ".repeat(20)) && !l.starts_with(&" ".repeat(21)), "{l:?}");
            assert!(l.trim_end().width() <= 120, "{l:?}");
        }
        // The table (137 wide) is centred in the whole 140.
        let top = r.plain.iter().find(|l| l.contains('┌')).unwrap();
        assert_eq!(top.find('┌'), Some(1), "{top:?}");
        // Without a measure nothing moves.
        let plain = Doc::parse_plain(&md).layout(140, &HashSet::new());
        assert!(plain.plain[0].starts_with("word"));
    }
}
