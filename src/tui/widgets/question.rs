//! One quiz item being answered, graded and rated: the part the Quiz and
//! Review screens share. State and keys here; `draw` only reads it.
//!
//! Answering: `choice` — letters (one correct: graded at once; several:
//! toggle, then Enter); `numeric` — type a number, Enter; `order` — `↑↓`
//! select, `J`/`K` (or Shift-↑↓) move the step, Enter; `open` — type notes
//! (optional), Enter reveals the reference. Then the explanation and links,
//! and the rating 1 ✅ / 2 ⚠ / 3 ❌ (✅ is not offered after a wrong answer).
//! A numeric answer may be a fraction (`1/16` is 0.0625). A question can be
//! reopened from a quiz's result, read-only: the answer given, the expected
//! one and why, with the rating it got.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, Wrap};
use ratatui::Frame;

use crate::content::links::link_label;
use crate::content::{Answer, Content, Link, QuizItem};
use crate::markdown::math::inline;
use crate::markdown::Target;
use crate::progress::grade::{self, letter, Response};
use crate::progress::session::Passes;
use crate::progress::Rating;
use crate::tui::action::Hint;
use crate::tui::theme::{accent, bad, dim, good, highlight, key_style, notice};

#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    Answering,
    /// Answered (or revealed): the explanation is shown, the rating is asked.
    Graded {
        response: Response,
        correct: Option<bool>,
    },
}

/// What the question asks its screen to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    None,
    Rated { correct: Option<bool>, rating: Rating },
    Follow(Target),
    Flash(String),
    Back,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub item: QuizItem,
    pub phase: Phase,
    /// Choice: toggled choices (multi-answer items).
    pub picked: Vec<bool>,
    /// Numeric answer or open notes being typed.
    pub input: String,
    /// Order: step indices as currently arranged, and the selected row.
    pub arrangement: Vec<usize>,
    pub cursor: usize,
    /// Why the last input was refused.
    pub error: Option<String>,
    /// Scroll of the graded view.
    pub scroll: u16,
    /// Reopened from a result, read-only: the rating it got then.
    pub rated: Option<Rating>,
}

impl Question {
    pub fn new(item: &QuizItem) -> Question {
        let n = match &item.answer {
            Answer::Choice { choices, .. } => choices.len(),
            _ => 0,
        };
        Question {
            item: item.clone(),
            phase: Phase::Answering,
            picked: vec![false; n],
            input: String::new(),
            arrangement: grade::order_shuffle(item),
            cursor: 0,
            error: None,
            scroll: 0,
            rated: None,
        }
    }

    /// `item` as asked at its `showing`-th showing (its earlier answers count
    /// them): choices shuffled with the key following them, order steps
    /// arranged anew (see [`grade::shown`]).
    pub fn shown(item: &QuizItem, showing: u64) -> Question {
        let mut q = Question::new(&grade::shown(item, showing));
        q.arrangement = grade::order_shuffle_at(item, showing);
        q
    }

    /// The question for item `id` as shown now: its showing is the number of
    /// answers the learner has given it.
    pub fn of(content: &Content, store: &crate::progress::Store, id: &str) -> Option<Question> {
        let item = content.items().find(|i| i.id == id)?;
        Some(Question::shown(item, store.progress.showing(id)))
    }

    /// This question, answered and rated `rating`, to look at again (read-only).
    pub fn reopened(&self, rating: Rating) -> Question {
        Question { rated: Some(rating), scroll: 0, error: None, ..self.clone() }
    }

    fn multi(&self) -> bool {
        matches!(&self.item.answer, Answer::Choice { correct, .. } if correct.len() > 1)
    }

    /// Letters are typed into a field (numeric answer, open notes).
    pub fn is_typing(&self) -> bool {
        self.phase == Phase::Answering && matches!(self.item.answer, Answer::Numeric { .. } | Answer::Open { .. })
    }

    pub fn graded(&self) -> bool {
        matches!(self.phase, Phase::Graded { .. })
    }

    fn submit(&mut self, response: Response) {
        let correct = grade::grade(&self.item.answer, &response);
        self.phase = Phase::Graded { response, correct };
        self.error = None;
        self.scroll = 0;
    }

    pub fn on_key(&mut self, key: KeyEvent) -> Outcome {
        if key.code == KeyCode::Esc {
            return Outcome::Back;
        }
        match self.phase.clone() {
            Phase::Answering => self.answer_key(key),
            Phase::Graded { .. } if self.rated.is_some() => match key.code {
                KeyCode::Enter | KeyCode::Backspace => Outcome::Back,
                // Already rated: the links and the scroll only.
                KeyCode::Char('1'..='3') => Outcome::None,
                _ => self.rate_key(key, None),
            },
            Phase::Graded { correct, .. } => self.rate_key(key, correct),
        }
    }

    fn answer_key(&mut self, key: KeyEvent) -> Outcome {
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match self.item.answer.clone() {
            Answer::Choice { choices, .. } => match key.code {
                KeyCode::Char(c) if c.is_ascii_lowercase() => {
                    let k = (c as u8 - b'a') as usize;
                    if k >= choices.len() {
                        self.error =
                            Some(crate::t!("question-choose-letter", last = letter(choices.len() - 1).to_string()));
                    } else if self.multi() {
                        self.picked[k] = !self.picked[k];
                        self.error = None;
                    } else {
                        self.submit(Response::Choice(vec![k]));
                    }
                }
                KeyCode::Enter if self.multi() => {
                    let picked: Vec<usize> = (0..choices.len()).filter(|&i| self.picked[i]).collect();
                    if picked.is_empty() {
                        self.error = Some(crate::t!("question-select-one"));
                    } else {
                        self.submit(Response::Choice(picked));
                    }
                }
                _ => {}
            },
            Answer::Numeric { .. } => match key.code {
                KeyCode::Char(c) if c.is_ascii_digit() || "+-.eE/".contains(c) => {
                    // At most 24 characters (all ASCII here).
                    self.input.push(c);
                    self.input.truncate(24);
                }
                // Said until the answer changes otherwise (Backspace, Enter): a refused key is not lost silently.
                KeyCode::Char(c) => self.error = Some(crate::t!("question-only-number", char = c.to_string())),
                KeyCode::Backspace => {
                    self.input.pop();
                    self.error = None;
                }
                KeyCode::Enter => match grade::parse_numeric(&self.input) {
                    Ok(x) => self.submit(Response::Numeric(x)),
                    Err(m) => self.error = Some(m),
                },
                _ => {}
            },
            Answer::Order { .. } => {
                let n = self.arrangement.len();
                let up = key.code == KeyCode::Char('K') || (shift && key.code == KeyCode::Up);
                let down = key.code == KeyCode::Char('J') || (shift && key.code == KeyCode::Down);
                match key.code {
                    _ if up || down => {
                        let other =
                            if up { self.cursor.checked_sub(1) } else { Some(self.cursor + 1).filter(|&c| c < n) };
                        if let Some(o) = other {
                            self.arrangement.swap(self.cursor, o);
                            self.cursor = o;
                        }
                    }
                    KeyCode::Up | KeyCode::Char('k') => self.cursor = self.cursor.saturating_sub(1),
                    KeyCode::Down | KeyCode::Char('j') if self.cursor + 1 < n => self.cursor += 1,
                    KeyCode::Enter => self.submit(Response::Order(self.arrangement.clone())),
                    _ => {}
                }
            }
            Answer::Open { .. } => match key.code {
                KeyCode::Char(c) if self.input.chars().count() < 500 => self.input.push(c),
                KeyCode::Backspace => {
                    self.input.pop();
                }
                KeyCode::Enter => self.submit(Response::Open),
                _ => {}
            },
        }
        Outcome::None
    }

    fn rate_key(&mut self, key: KeyEvent, correct: Option<bool>) -> Outcome {
        match key.code {
            KeyCode::Char(c @ '1'..='3') => {
                let rating = Rating::from_key(&c.to_string()).unwrap_or(Rating::Dont);
                if !rating.allowed(correct) {
                    // Said once, next to the ratings (not also in the status line).
                    self.error = Some(crate::t!("question-wrong-no-know"));
                    return Outcome::None;
                }
                self.error = None;
                Outcome::Rated { correct, rating }
            }
            KeyCode::Char('s') => match self.sheet_link() {
                Some(l) => Outcome::Follow(Target::Lab(l)),
                None => Outcome::Flash(crate::t!("question-no-sheet")),
            },
            KeyCode::Char('d') => match &self.item.drill {
                Some(id) => Outcome::Follow(Target::Lab(Link::Drill(id.clone()))),
                None => Outcome::Flash(crate::t!("question-no-drill")),
            },
            KeyCode::Down | KeyCode::Char('j') => {
                self.scroll = self.scroll.saturating_add(1);
                Outcome::None
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.scroll = self.scroll.saturating_sub(1);
                Outcome::None
            }
            _ => Outcome::None,
        }
    }

    fn sheet_link(&self) -> Option<Link> {
        let s = self.item.sheet.as_deref()?;
        Link::parse(&format!("sheet:{s}"))
    }

    pub fn hints(&self) -> Vec<Hint> {
        match (&self.phase, &self.item.answer) {
            (Phase::Graded { correct, .. }, _) => {
                let mut h = match (self.rated, correct) {
                    (Some(_), _) => vec![("Esc", "back to the result"), ("↑↓", "scroll")],
                    // ✅ is not offered after a wrong answer.
                    (None, Some(false)) => vec![("2 3", "rate ⚠ or ❌"), ("↑↓", "scroll")],
                    (None, _) => vec![("1 2 3", "rate ✅ ⚠ ❌"), ("↑↓", "scroll")],
                };
                if self.item.sheet.is_some() {
                    h.push(("s", "sheet"));
                }
                if self.item.drill.is_some() {
                    h.push(("d", "drill"));
                }
                h
            }
            (_, Answer::Choice { .. }) if self.multi() => vec![("a b c…", "toggle"), ("Enter", "submit")],
            (_, Answer::Choice { .. }) => vec![("a b c…", "answer")],
            (_, Answer::Numeric { .. }) => vec![("0-9 . - e /", "type"), ("Enter", "submit")],
            (_, Answer::Order { .. }) => vec![("↑↓", "select"), ("J K", "move step"), ("Enter", "submit")],
            (_, Answer::Open { .. }) => vec![("type", "notes (optional)"), ("Enter", "reveal")],
        }
    }
}

/// "1 item", "3 items".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One line per pass: its ratings, which add up to the items asked in it.
pub fn pass_lines(passes: &Passes) -> Vec<String> {
    passes
        .tally_by_pass()
        .into_iter()
        .map(|(p, [k, f, d])| {
            let what =
                if p == 1 { crate::t!("question-first-pass") } else { crate::t!("question-pass-again", pass = p) };
            crate::t!(
                "question-pass-line",
                what = what,
                items = crate::t!("count-items", count = k + f + d),
                know = k,
                fuzzy = f,
                dont = d
            )
        })
        .collect()
}

/// A rating's word ("know", "fuzzy", "don't") in the language in force.
pub fn rating_word(r: Rating) -> String {
    match r {
        Rating::Know => crate::t!("question-rating-know"),
        Rating::Fuzzy => crate::t!("question-rating-fuzzy"),
        Rating::Dont => crate::t!("question-rating-dont"),
    }
}

/// Every key of a question, for the help overlay.
pub const HELP: &[Hint] = &[
    ("a b c …", "choice: answer (one correct) or toggle (several), Enter submits"),
    ("0-9 . - e /", "numeric: type the number (1e-3, -0.5, a fraction 1/16), Enter submits"),
    ("↑↓ / J K", "order: select a step / move it down or up (also Shift-↑↓), Enter submits"),
    ("Enter", "open: reveal the reference answer (typing notes is optional)"),
    ("1 2 3", "rate: ✅ know · ⚠ fuzzy · ❌ don't (after a wrong answer only 2 3)"),
    ("s d", "open the item's cheatsheet section / drill"),
    ("↑↓ j k", "scroll the explanation"),
];

/// Draw the question into `area`: `status` is the top line (track, level, k/n).
pub fn draw(frame: &mut Frame, area: Rect, q: &Question, status: Line<'static>, content: &Content) {
    let [top, body, bottom] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(3), Constraint::Length(3)]).areas(area);
    frame.render_widget(Paragraph::new(status), top);

    let mut lines: Vec<Line> = Vec::new();
    for l in q.item.prompt.lines() {
        lines.push(Line::from(Span::styled(inline(l), Style::default().add_modifier(Modifier::BOLD))));
    }
    lines.push(Line::raw(""));
    let graded = match &q.phase {
        Phase::Graded { response, correct } => Some((response, *correct)),
        Phase::Answering => None,
    };
    match &q.item.answer {
        Answer::Choice { choices, correct } => {
            let picked: Vec<usize> = match graded {
                Some((Response::Choice(p), _)) => p.clone(),
                _ => (0..choices.len()).filter(|&i| q.picked[i]).collect(),
            };
            if q.multi() && graded.is_none() {
                lines.push(Line::from(Span::styled(crate::t!("question-several"), dim())));
            }
            for (i, c) in choices.iter().enumerate() {
                let mark = if q.multi() {
                    if picked.contains(&i) {
                        "[x] "
                    } else {
                        "[ ] "
                    }
                } else {
                    ""
                };
                let (tag, style) = match graded {
                    Some(_) if correct.contains(&i) => ("✓ ", good()),
                    Some(_) if picked.contains(&i) => ("✗ ", bad()),
                    Some(_) => ("  ", Style::default()),
                    None => ("  ", Style::default()),
                };
                // Wrapped under its own first word, not under the letter.
                let indent = 2 + 3 + mark.chars().count();
                let c = inline(c);
                let parts = super::wrap_words(&c, (body.width as usize).saturating_sub(indent).max(8));
                for (k, part) in parts.into_iter().enumerate() {
                    let mut spans = if k == 0 {
                        vec![
                            Span::styled(tag, style),
                            Span::styled(format!("{}) ", letter(i)), highlight()),
                            Span::raw(mark),
                        ]
                    } else {
                        vec![Span::raw(" ".repeat(indent))]
                    };
                    spans.push(Span::styled(part, style));
                    lines.push(Line::from(spans));
                }
            }
        }
        Answer::Numeric { value, tolerance } => match graded {
            None => lines.push(Line::from(vec![
                Span::raw(crate::t!("question-your-answer", answer = "")),
                Span::styled(format!("{}█", q.input), accent()),
            ])),
            Some((resp, _)) => {
                let said = match resp {
                    // A fraction is shown as typed and as its value.
                    Response::Numeric(x) if q.input.contains('/') => format!("{} = {x}", q.input.trim()),
                    Response::Numeric(x) => format!("{x}"),
                    _ => String::new(),
                };
                lines.push(Line::raw(crate::t!("question-your-answer", answer = said)));
                lines.push(Line::from(Span::styled(
                    crate::t!(
                        "question-expected",
                        value = crate::content::template::show_expected(*value, *tolerance),
                        tolerance = tolerance.to_string()
                    ),
                    good(),
                )));
            }
        },
        Answer::Order { steps } => {
            let rows: Vec<usize> = match graded {
                Some((Response::Order(seq), _)) => seq.clone(),
                _ => q.arrangement.clone(),
            };
            if graded.is_none() {
                lines.push(Line::from(Span::styled(crate::t!("question-order-prompt"), dim())));
            } else {
                lines.push(Line::from(Span::styled(crate::t!("question-your-order"), dim())));
            }
            for (row, &s) in rows.iter().enumerate() {
                let sel = graded.is_none() && row == q.cursor;
                let style = match graded {
                    Some(_) if s == row => good(),
                    Some(_) => bad(),
                    None if sel => Style::default().add_modifier(Modifier::REVERSED),
                    None => Style::default(),
                };
                lines.push(Line::from(vec![
                    Span::raw(if sel { "▶ " } else { "  " }),
                    Span::styled(format!("{}. {}", row + 1, inline(&steps[s])), style),
                ]));
            }
            if graded.is_some() {
                lines.push(Line::from(Span::styled(crate::t!("question-correct-order"), dim())));
                for (i, s) in steps.iter().enumerate() {
                    let s = inline(s);
                    lines.push(Line::from(Span::styled(format!("  {}. {s}", i + 1), good())));
                }
            }
        }
        Answer::Open { reference } => {
            let notes = if q.input.is_empty() && graded.is_none() { "█".to_string() } else { q.input.clone() };
            lines.push(Line::from(vec![
                Span::styled(crate::t!("question-your-notes", notes = ""), dim()),
                Span::raw(notes),
            ]));
            if graded.is_some() {
                lines.push(Line::raw(""));
                lines.push(Line::from(Span::styled(
                    crate::t!("question-reference"),
                    accent().add_modifier(Modifier::BOLD),
                )));
                for l in reference.lines() {
                    lines.push(Line::raw(inline(l)));
                }
            }
        }
    }
    if let Some((_, correct)) = graded {
        lines.push(Line::raw(""));
        lines.push(match correct {
            Some(true) => Line::from(Span::styled(crate::t!("question-correct"), good().add_modifier(Modifier::BOLD))),
            Some(false) => {
                Line::from(Span::styled(crate::t!("question-not-quite"), bad().add_modifier(Modifier::BOLD)))
            }
            None => Line::from(Span::styled(crate::t!("question-compare"), dim())),
        });
        lines.push(Line::from(Span::styled(crate::t!("question-why"), accent().add_modifier(Modifier::BOLD))));
        let explanation = crate::content::links::with_link_labels(&q.item.explanation, &|l| link_label(content, l));
        for l in explanation.lines() {
            lines.push(Line::raw(inline(l)));
        }
        let mut see = vec![Span::styled(crate::t!("question-see", links = ""), dim())];
        if let Some(l) = q.sheet_link() {
            let label = link_label(content, &l).unwrap_or_else(|| l.to_string());
            see.push(Span::styled(" s ", key_style()));
            see.push(Span::raw(format!(" {label}   ")));
        }
        if let Some(d) = &q.item.drill {
            let label = link_label(content, &Link::Drill(d.clone()))
                .unwrap_or_else(|| crate::t!("question-drill-fallback", id = d.as_str()));
            see.push(Span::styled(" d ", key_style()));
            see.push(Span::raw(format!(" {label}")));
        }
        if see.len() > 1 {
            lines.push(Line::raw(""));
            lines.push(Line::from(see));
        }
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((q.scroll, 0)), body);

    // What to do next, always visible.
    let next: Line = match (&q.phase, &q.item.answer) {
        (Phase::Graded { .. }, _) if q.rated.is_some() => {
            let r = q.rated.expect("checked");
            Line::from(vec![
                Span::raw(format!("{} ", crate::t!("question-you-rated", emoji = r.emoji(), word = rating_word(r)))),
                Span::styled(" Esc ", key_style()),
                Span::raw(format!(" {}", crate::t!("question-back-to-result"))),
            ])
        }
        (Phase::Graded { correct, .. }, _) => {
            let mut spans = vec![Span::raw(crate::t!("question-rate-yourself", keys = ""))];
            // Only what is accepted: no ✅ after a wrong answer.
            for r in Rating::ALL.into_iter().filter(|r| r.allowed(*correct)) {
                spans.push(Span::styled(format!(" {} ", r.key()), key_style()));
                spans.push(Span::raw(format!(" {} {}   ", r.emoji(), rating_word(r))));
            }
            if *correct == Some(false) {
                spans.push(Span::styled(crate::t!("question-wrong-short"), dim()));
            }
            Line::from(spans)
        }
        (_, Answer::Choice { choices, .. }) if q.multi() => {
            Line::raw(crate::t!("question-toggle-choices", last = letter(choices.len() - 1).to_string()))
        }
        (_, Answer::Choice { choices, .. }) => {
            Line::raw(crate::t!("question-press-letter", last = letter(choices.len() - 1).to_string()))
        }
        (_, Answer::Numeric { .. }) => Line::raw(crate::t!("question-type-number")),
        (_, Answer::Order { .. }) => Line::raw(crate::t!("question-order-help")),
        (_, Answer::Open { .. }) => Line::raw(crate::t!("question-open-help")),
    };
    let mut bottom_lines = vec![next];
    if let Some(e) = &q.error {
        bottom_lines.push(Line::from(Span::styled(e.clone(), notice())));
    }
    frame.render_widget(
        Paragraph::new(bottom_lines)
            .block(Block::default().borders(Borders::TOP).border_type(BorderType::Plain).border_style(dim())),
        bottom,
    );
}
