//! The drill screen's overlays for study: the predictions asked before a
//! run (one question at a time), what the run measured for each after it,
//! and the list of settings that break the drill's claims (`b`).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::content::drill_meta::{PredictKind, PredictionSpec};
use crate::runner::predict::Breaker;
use crate::tui::theme::{accent, bad, dim, good};
use crate::tui::widgets::wrap_words;

/// Predictions being asked before a run starts.
#[derive(Debug, Clone)]
pub struct Asking {
    /// The preset the run will use (the answers are about it).
    pub preset: String,
    pub specs: Vec<PredictionSpec>,
    /// The question on screen.
    pub at: usize,
    /// The choice under the cursor (choice questions).
    pub choice: usize,
    /// The number being typed (number questions).
    pub typed: String,
    pub error: Option<String>,
    /// Answers given: the prediction and the answer (a choice index, or the number).
    pub answers: Vec<(PredictionSpec, f64)>,
    /// Ids of the questions skipped.
    pub skipped: Vec<String>,
}

/// What a key did to the questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// Still asking.
    Stay,
    /// Every question answered or skipped: the run starts.
    Done,
}

impl Asking {
    pub fn new(preset: &str, specs: Vec<PredictionSpec>) -> Asking {
        Asking {
            preset: preset.to_string(),
            specs,
            at: 0,
            choice: 0,
            typed: String::new(),
            error: None,
            answers: Vec::new(),
            skipped: Vec::new(),
        }
    }

    pub fn current(&self) -> Option<&PredictionSpec> {
        self.specs.get(self.at)
    }

    /// A number question takes letters as text (`e` in 1e-3), so the app's
    /// `q` and `?` are not commands there.
    pub fn is_typing(&self) -> bool {
        self.current().is_some_and(|p| p.kind == PredictKind::Number)
    }

    fn next(&mut self) -> Asked {
        self.at += 1;
        self.choice = 0;
        self.typed.clear();
        self.error = None;
        if self.at >= self.specs.len() {
            Asked::Done
        } else {
            Asked::Stay
        }
    }

    pub fn on_key(&mut self, key: KeyEvent) -> Asked {
        let Some(spec) = self.current().cloned() else { return Asked::Done };
        match key.code {
            // Skip this question; skip them all (the run starts either way).
            KeyCode::Tab => {
                self.skipped.push(spec.id.clone());
                return self.next();
            }
            KeyCode::Esc => {
                self.skipped.extend(self.specs[self.at..].iter().map(|p| p.id.clone()));
                self.at = self.specs.len();
                return Asked::Done;
            }
            _ => {}
        }
        match spec.kind {
            PredictKind::Choice => {
                let n = spec.choices.len();
                match key.code {
                    KeyCode::Up | KeyCode::Char('k') => self.choice = self.choice.saturating_sub(1),
                    KeyCode::Down | KeyCode::Char('j') => self.choice = (self.choice + 1).min(n.saturating_sub(1)),
                    KeyCode::Char(c) if c.is_ascii_digit() => match c.to_digit(10).map(|d| d as usize) {
                        Some(d) if (1..=n).contains(&d) => {
                            self.choice = d - 1;
                            self.error = None;
                        }
                        _ => self.error = Some(crate::t!("drill-pick-range", n = n.to_string())),
                    },
                    KeyCode::Enter => {
                        self.answers.push((spec, self.choice as f64));
                        return self.next();
                    }
                    _ => {}
                }
            }
            PredictKind::Number => match key.code {
                KeyCode::Char(c) if c.is_ascii_digit() || "+-.eE/".contains(c) => {
                    self.typed.push(c);
                    self.typed.truncate(24);
                    self.error = None;
                }
                KeyCode::Char(c) => self.error = Some(crate::t!("drill-only-number", c = c.to_string())),
                KeyCode::Backspace => {
                    self.typed.pop();
                    self.error = None;
                }
                KeyCode::Enter => match crate::progress::grade::parse_numeric(&self.typed) {
                    Ok(x) => {
                        self.answers.push((spec, x));
                        return self.next();
                    }
                    Err(m) => self.error = Some(m),
                },
                _ => {}
            },
        }
        Asked::Stay
    }

    pub fn hints(&self) -> Vec<crate::tui::action::Hint> {
        match self.current().map(|p| p.kind) {
            Some(PredictKind::Number) => {
                vec![("0-9 . e", "type"), ("Enter", "answer"), ("Tab", "skip"), ("Esc", "skip all")]
            }
            _ => vec![("↑↓ 1…", "pick"), ("Enter", "answer"), ("Tab", "skip"), ("Esc", "skip all")],
        }
    }

    fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let Some(spec) = self.current() else { return Vec::new() };
        let mut out: Vec<Line> = wrap_words(&spec.question, width)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, Style::default().add_modifier(Modifier::BOLD))))
            .collect();
        out.push(Line::raw(""));
        match spec.kind {
            PredictKind::Choice => {
                for (i, c) in spec.choices.iter().enumerate() {
                    let mark = if i == self.choice { "▸" } else { " " };
                    let style = if i == self.choice { accent() } else { Style::default() };
                    for (j, part) in wrap_words(c, width.saturating_sub(5)).into_iter().enumerate() {
                        let lead = if j == 0 { format!("{mark} {} ", i + 1) } else { "    ".into() };
                        out.push(Line::from(Span::styled(format!("{lead}{part}"), style)));
                    }
                }
            }
            PredictKind::Number => {
                out.push(Line::from(vec![
                    Span::raw(format!("{} ", crate::t!("drill-your-answer"))),
                    Span::styled(format!("{}█", self.typed), accent()),
                ]));
                out.push(Line::from(Span::styled(crate::t!("drill-number-help"), dim())));
            }
        }
        if let Some(e) = &self.error {
            out.extend(wrap_words(e, width).into_iter().map(|l| Line::from(Span::styled(l, bad()))));
        }
        out.push(Line::raw(""));
        let keys = match spec.kind {
            PredictKind::Choice => crate::t!("drill-ask-keys-choice", n = spec.choices.len().to_string()),
            PredictKind::Number => crate::t!("drill-ask-keys-number"),
        };
        out.extend(wrap_words(&keys, width).into_iter().map(|l| Line::from(Span::styled(l, dim()))));
        out
    }
}

/// A prediction as the run answered it, for the overlay after the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub question: String,
    /// "you predicted … · measured … — right", or why nothing was measured.
    pub verdict: String,
    /// `None`: not measured.
    pub right: Option<bool>,
    pub explain: String,
}

/// The overlay after a run that had predictions: read, scrolled, dismissed.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcomes {
    pub items: Vec<Outcome>,
    pub scroll: usize,
}

impl Outcomes {
    /// `true` when the key closes the overlay.
    pub fn on_key(&mut self, key: KeyEvent) -> bool {
        match key.code {
            KeyCode::Enter | KeyCode::Esc | KeyCode::Backspace => return true,
            KeyCode::Down | KeyCode::Char('j') => self.scroll += 1,
            KeyCode::Up | KeyCode::Char('k') => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll += 5,
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(5),
            _ => {}
        }
        false
    }

    fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        for (i, o) in self.items.iter().enumerate() {
            if i > 0 {
                out.push(Line::raw(""));
            }
            out.extend(
                wrap_words(&o.question, width)
                    .into_iter()
                    .map(|l| Line::from(Span::styled(l, Style::default().add_modifier(Modifier::BOLD)))),
            );
            let (mark, style) = match o.right {
                Some(true) => ("✓ ", good().add_modifier(Modifier::BOLD)),
                Some(false) => ("✗ ", bad().add_modifier(Modifier::BOLD)),
                None => ("○ ", dim()),
            };
            for (j, l) in wrap_words(&o.verdict, width.saturating_sub(2)).into_iter().enumerate() {
                out.push(Line::from(Span::styled(format!("{}{l}", if j == 0 { mark } else { "  " }), style)));
            }
            out.extend(wrap_words(&o.explain, width).into_iter().map(Line::raw));
        }
        out
    }
}

/// The `b` list: the settings that break the drill's claims.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakList {
    pub items: Vec<Breaker>,
    pub cursor: usize,
}

impl BreakList {
    fn lines(&self, width: usize) -> (Vec<Line<'static>>, usize) {
        let mut out = Vec::new();
        let mut cursor_line = 0;
        for (i, b) in self.items.iter().enumerate() {
            let on = i == self.cursor;
            if on {
                cursor_line = out.len();
            }
            let style = if on { accent().add_modifier(Modifier::BOLD) } else { Style::default() };
            let head = format!("{} {} · {}", if on { "▸" } else { " " }, b.claim, b.label());
            for (j, l) in wrap_words(&head, width).into_iter().enumerate() {
                out.push(Line::from(Span::styled(if j == 0 { l } else { format!("  {l}") }, style)));
            }
            for l in wrap_words(&b.set.effect, width.saturating_sub(4)) {
                out.push(Line::from(Span::styled(format!("    {l}"), dim())));
            }
        }
        (out, cursor_line)
    }
}

/// A box in the middle of `area`, at most `max_w` wide, as tall as `lines`
/// need (at most the area), with `title`; lines past its height scroll by
/// `scroll` (kept in range).
pub(super) fn popup(
    frame: &mut Frame,
    area: Rect,
    title: String,
    max_w: u16,
    lines: Vec<Line<'static>>,
    scroll: usize,
) {
    let w = area.width.min(max_w);
    let h = (lines.len() as u16 + 2).min(area.height).max(3);
    let rect = Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h };
    let inner_h = h.saturating_sub(2) as usize;
    let top = scroll.min(lines.len().saturating_sub(inner_h));
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(accent())
        .title(Span::styled(title, accent().add_modifier(Modifier::BOLD)));
    if lines.len() > inner_h {
        let more = format!(" {}/{} ↑↓ ", (top + inner_h).min(lines.len()), lines.len());
        block = block.title_bottom(Line::from(Span::styled(more, dim())).right_aligned());
    }
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((top as u16, 0)), rect);
}

/// Width of the text inside a popup drawn over `area`.
pub(super) fn inner_width(area: Rect, max_w: u16) -> usize {
    area.width.min(max_w).saturating_sub(2) as usize
}

pub fn draw_asking(frame: &mut Frame, area: Rect, a: &Asking) {
    let title = crate::t!(
        "drill-predict-title",
        at = (a.at + 1).to_string(),
        n = a.specs.len().to_string(),
        preset = a.preset.as_str()
    );
    let title = format!(" {title} ");
    let lines = a.lines(inner_width(area, 72));
    popup(frame, area, title, 72, lines, 0);
}

pub fn draw_outcomes(frame: &mut Frame, area: Rect, o: &Outcomes) {
    let lines = o.lines(inner_width(area, 80));
    popup(frame, area, format!(" {} ", crate::t!("drill-outcomes-title")), 80, lines, o.scroll);
}

pub fn draw_breaking(frame: &mut Frame, area: Rect, b: &BreakList) {
    let (lines, at) = b.lines(inner_width(area, 80));
    let inner_h = area.height.saturating_sub(2) as usize;
    // The chosen setting stays in sight.
    let scroll = at.saturating_sub(inner_h.saturating_sub(3));
    popup(frame, area, format!(" {} ", crate::t!("drill-breaking-title")), 80, lines, scroll);
}
