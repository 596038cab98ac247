//! The Try tab (`6`): the shown run's models answer what the learner types,
//! side by side, in the drill's own task (`src/drills/try_it.rs`).
//!
//! The session (its models loaded) lives on a thread of its own: opening it
//! and every answer run there, so the screen keeps drawing; an answer comes
//! back as it grows (an agent's turns as they are generated), and `Esc` (or
//! `x`) stops it. The same input, options and seed give the same answer.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent};

use crate::drills::try_it::{Arm, Refused, Switch, TryAnswer, TryKind, TryOpts, TrySession, MAX_SAMPLES};
use crate::runner::RunRecord;

/// What the session thread tells the screen.
enum Msg {
    Opened(Box<Info>),
    OpenFailed(String),
    Progress(Box<TryAnswer>),
    Answered(Box<TryAnswer>),
    /// Refused input or an error, for the status line; `None` when stopped.
    NoAnswer(Option<String>),
}

/// What the screen shows of an open session.
#[derive(Debug, Clone)]
pub struct Info {
    pub kind: TryKind,
    pub arms: Vec<Arm>,
    pub examples: Vec<String>,
    pub hint: String,
    pub defaults: TryOpts,
    pub switches: Vec<Switch>,
}

/// The Try tab's state.
pub struct TryTab {
    /// The run whose models answer (its directory and name).
    pub run: Option<(PathBuf, String)>,
    pub info: Option<Info>,
    /// Why the run cannot be tried (pruned, no Try, …).
    pub error: Option<String>,
    pub opening: bool,
    pub input: String,
    pub typing: bool,
    /// The held-out example picked with ↑↓.
    pub example: Option<usize>,
    pub opts: TryOpts,
    pub answer: Option<TryAnswer>,
    pub answering: bool,
    /// Colour the model's tokens by their log-probability instead of by writer.
    pub by_logp: bool,
    pub scroll: usize,
    tx: Option<Sender<(String, TryOpts)>>,
    rx: Option<Receiver<Msg>>,
    cancel: Arc<AtomicBool>,
}

impl Default for TryTab {
    fn default() -> Self {
        TryTab {
            run: None,
            info: None,
            error: None,
            opening: false,
            input: String::new(),
            typing: false,
            example: None,
            opts: TryOpts::new(4, 1.0),
            answer: None,
            answering: false,
            by_logp: false,
            scroll: 0,
            tx: None,
            rx: None,
            cancel: Arc::default(),
        }
    }
}

impl TryTab {
    /// Open Try on `record` (a saved run of `meta`'s drill) unless it is the one open.
    pub fn open(&mut self, meta: &crate::content::DrillMeta, record: RunRecord) {
        if self.run.as_ref().is_some_and(|(d, _)| *d == record.dir) && (self.info.is_some() || self.opening) {
            return;
        }
        self.close();
        self.run = Some((record.dir.clone(), record.name.clone()));
        self.opening = true;
        let (tx_req, rx_req) = mpsc::channel::<(String, TryOpts)>();
        let (tx, rx) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        self.cancel = cancel.clone();
        let meta = meta.clone();
        let lang = crate::i18n::current();
        // Named like a run's thread: a panic in it is not printed over the screen.
        let spawned = std::thread::Builder::new().name("drill-try".into()).spawn(move || {
            crate::i18n::set(lang);
            session_thread(meta, record, rx_req, tx, cancel);
        });
        if spawned.is_err() {
            self.opening = false;
            self.error = Some(crate::t!("try-thread-died"));
        }
        self.tx = Some(tx_req);
        self.rx = Some(rx);
    }

    /// Let the session go (its thread ends when it sees the channel closed).
    pub fn close(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        *self = TryTab { input: std::mem::take(&mut self.input), by_logp: self.by_logp, ..TryTab::default() };
    }

    /// Apply what the session thread sent. Returns a notice for the status line, and whether anything arrived.
    pub fn poll(&mut self) -> (bool, Option<String>) {
        let Some(rx) = &self.rx else { return (false, None) };
        let mut got = false;
        let mut notice = None;
        loop {
            match rx.try_recv() {
                Ok(m) => {
                    got = true;
                    match m {
                        Msg::Opened(info) => {
                            self.opening = false;
                            self.opts = info.defaults.clone();
                            self.info = Some(*info);
                        }
                        Msg::OpenFailed(e) => {
                            self.opening = false;
                            self.error = Some(e);
                        }
                        Msg::Progress(a) => self.answer = Some(*a),
                        Msg::Answered(a) => {
                            self.answer = Some(*a);
                            self.answering = false;
                        }
                        Msg::NoAnswer(why) => {
                            self.answering = false;
                            notice = Some(why.unwrap_or_else(|| crate::t!("try-stopped")));
                        }
                    }
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    if self.opening || self.answering {
                        self.opening = false;
                        self.answering = false;
                        self.error.get_or_insert_with(|| crate::t!("try-thread-died"));
                        got = true;
                    }
                    self.rx = None;
                    break;
                }
            }
        }
        (got, notice)
    }

    /// Ask the session the text in the input line.
    fn ask(&mut self) -> Option<String> {
        if self.answering {
            return Some(crate::t!("try-busy"));
        }
        let tx = self.tx.as_ref()?;
        self.info.as_ref()?;
        self.cancel.store(false, Ordering::Relaxed);
        if tx.send((self.input.clone(), self.opts.clone())).is_err() {
            return Some(crate::t!("try-thread-died"));
        }
        self.answering = true;
        self.scroll = 0;
        None
    }

    pub fn is_typing(&self) -> bool {
        self.typing
    }

    /// A key on the Try tab. `None`: not the tab's (the screen handles it).
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Option<String>> {
        if self.typing {
            match key.code {
                KeyCode::Enter => {
                    self.typing = false;
                    return Some(self.ask());
                }
                KeyCode::Esc => self.typing = false,
                KeyCode::Backspace => {
                    self.input.pop();
                }
                KeyCode::Up | KeyCode::Down => return Some(self.pick(key.code)),
                KeyCode::Char(c) => {
                    if self.input.chars().count() < 400 {
                        self.input.push(c);
                    }
                    self.example = None;
                }
                _ => {}
            }
            return Some(None);
        }
        if self.answering && matches!(key.code, KeyCode::Esc | KeyCode::Char('x')) {
            self.cancel.store(true, Ordering::Relaxed);
            return Some(Some(crate::t!("try-stopping")));
        }
        self.info.as_ref()?;
        match key.code {
            KeyCode::Char('i') | KeyCode::Char('/') => {
                self.typing = true;
                Some(None)
            }
            KeyCode::Enter if self.input.trim().is_empty() => {
                self.typing = true;
                Some(None)
            }
            KeyCode::Enter => Some(self.ask()),
            KeyCode::Up | KeyCode::Down => Some(self.pick(key.code)),
            KeyCode::Char('l') => {
                self.by_logp = !self.by_logp;
                Some(Some(if self.by_logp { crate::t!("try-colour-logp") } else { crate::t!("try-colour-writer") }))
            }
            KeyCode::Char('+') | KeyCode::Char('=') => {
                self.opts.samples = (self.opts.samples + 1).min(MAX_SAMPLES);
                Some(None)
            }
            KeyCode::Char('-') => {
                self.opts.samples = self.opts.samples.saturating_sub(1).max(1);
                Some(None)
            }
            KeyCode::Char('>') | KeyCode::Char('.') => {
                self.opts.temperature = ((self.opts.temperature * 10.0).round() + 1.0).min(20.0) / 10.0;
                Some(None)
            }
            KeyCode::Char('<') | KeyCode::Char(',') => {
                self.opts.temperature = ((self.opts.temperature * 10.0).round() - 1.0).max(0.0) / 10.0;
                Some(None)
            }
            KeyCode::Char('n') => {
                self.opts.seed = self.opts.seed.wrapping_add(1);
                Some(None)
            }
            KeyCode::Char('a') => Some(self.flip_switch()),
            KeyCode::PageDown => {
                self.scroll += 5;
                Some(None)
            }
            KeyCode::PageUp => {
                self.scroll = self.scroll.saturating_sub(5);
                Some(None)
            }
            _ => None,
        }
    }

    /// `↑↓`: the previous or next held-out example into the input line.
    fn pick(&mut self, code: KeyCode) -> Option<String> {
        let n = self.info.as_ref().map_or(0, |i| i.examples.len());
        if n == 0 {
            return Some(crate::t!("try-no-examples"));
        }
        let i = match (self.example, code) {
            (None, KeyCode::Up) => n - 1,
            (None, _) => 0,
            (Some(i), KeyCode::Up) => (i + n - 1) % n,
            (Some(i), _) => (i + 1) % n,
        };
        self.example = Some(i);
        self.input = self.info.as_ref().map(|x| x.examples[i].clone()).unwrap_or_default();
        None
    }

    /// `a`: flip the session's (first) switch.
    fn flip_switch(&mut self) -> Option<String> {
        let s = self.info.as_ref()?.switches.first()?.clone();
        let on = !self.opts.switch(&s.key, s.default);
        self.opts.switches.insert(s.key.clone(), on);
        Some(crate::t!("try-switch", label = s.label, state = if on { "on" } else { "off" }))
    }
}

/// The session thread: open the run's models, then answer each request until the screen lets go.
fn session_thread(
    meta: crate::content::DrillMeta,
    record: RunRecord,
    rx: Receiver<(String, TryOpts)>,
    tx: Sender<Msg>,
    cancel: Arc<AtomicBool>,
) {
    let mut session: Box<dyn TrySession> = match open(&meta, &record) {
        Ok(s) => s,
        Err(e) => {
            let _ = tx.send(Msg::OpenFailed(e));
            return;
        }
    };
    let info = Info {
        kind: session.kind(),
        arms: session.arms(),
        examples: session.examples(),
        hint: session.prompt_hint(),
        defaults: session.defaults(),
        switches: session.switches(),
    };
    if tx.send(Msg::Opened(Box::new(info))).is_err() {
        return;
    }
    while let Ok((input, opts)) = rx.recv() {
        let progress_tx = tx.clone();
        let mut progress = |a: &TryAnswer| {
            let _ = progress_tx.send(Msg::Progress(Box::new(a.clone())));
        };
        let msg = match session.answer(&input, &opts, &mut progress, &cancel) {
            Ok(a) => Msg::Answered(Box::new(a)),
            Err(e) if e.is::<crate::drills::try_it::Stopped>() => Msg::NoAnswer(None),
            Err(e) => Msg::NoAnswer(Some(match e.downcast_ref::<Refused>() {
                Some(r) => r.0.clone(),
                None => crate::t!("try-failed", error = format!("{e:#}")),
            })),
        };
        if tx.send(msg).is_err() {
            return;
        }
    }
}

/// The run's models, loaded for Try, or the learner's message why not.
fn open(meta: &crate::content::DrillMeta, record: &RunRecord) -> Result<Box<dyn TrySession>, String> {
    let run = crate::runner::kept::open(meta, record)?;
    let drill = crate::drills::find(&meta.id).ok_or_else(|| crate::t!("try-none", id = meta.id.as_str()))?;
    let opened =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drill.open_try(&run, &candle_core::Device::Cpu)));
    match opened {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(match e.downcast_ref::<Refused>() {
            Some(r) => r.0.clone(),
            None => crate::t!("try-open-failed", error = format!("{e:#}")),
        }),
        Err(_) => Err(crate::t!("try-open-failed", error = "a panic while loading".to_string())),
    }
}

/// Draw the Try tab into `area`.
pub fn draw(frame: &mut ratatui::Frame, area: ratatui::layout::Rect, t: &TryTab, focused: bool) {
    use ratatui::layout::{Constraint, Layout};
    use ratatui::text::{Line, Span};
    use ratatui::widgets::{Paragraph, Wrap};

    use super::parts::panel;
    use crate::tui::theme::{dim, highlight, notice};
    use crate::tui::widgets::ellipsize;

    let title = match &t.run {
        Some((_, name)) => format!(" {} ", crate::t!("try-title", name = name.as_str())),
        None => format!(" {} ", crate::t!("try-title-none")),
    };
    let block = panel(title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let w = inner.width as usize;
    let message = |text: String| Paragraph::new(text).wrap(Wrap { trim: true });
    let Some(info) = &t.info else {
        let text = match (&t.error, t.opening, &t.run) {
            (Some(e), _, _) => e.clone(),
            (None, true, _) => crate::t!("try-opening"),
            (None, false, None) => crate::t!("try-no-run"),
            (None, false, Some(_)) => crate::t!("try-opening"),
        };
        frame.render_widget(message(text), inner);
        return;
    };
    let mut head: Vec<Line> = Vec::new();
    head.push(Line::styled(ellipsize(&info.hint, w), dim()));
    let cursor = if t.typing { "▏" } else { "" };
    let prompt = if t.input.is_empty() && !t.typing {
        Span::styled(ellipsize(&crate::t!("try-input-empty"), w.saturating_sub(2)), dim())
    } else {
        Span::styled(ellipsize(&format!("{}{cursor}", t.input), w.saturating_sub(2)), highlight())
    };
    head.push(Line::from(vec![Span::styled("> ", if t.typing { notice() } else { dim() }), prompt]));
    let mut opts = vec![
        crate::t!("try-samples", n = t.opts.samples),
        crate::t!("try-temperature", t = format!("{:.1}", t.opts.temperature)),
        crate::t!("try-seed", seed = t.opts.seed.to_string()),
        if t.by_logp { crate::t!("try-colour-logp") } else { crate::t!("try-colour-writer") },
    ];
    for s in &info.switches {
        let on = t.opts.switch(&s.key, s.default);
        opts.push(format!("{} {}", s.label, if on { "on" } else { "off" }));
    }
    if t.answering {
        opts.insert(0, crate::t!("try-answering"));
    }
    head.push(Line::styled(super::parts::fit_parts(&opts, w), dim()));
    if let Some(a) = &t.answer {
        for n in &a.notes {
            head.push(Line::styled(ellipsize(n, w), notice()));
        }
    }
    let head_h = head.len() as u16;
    let [top, body] = Layout::vertical([Constraint::Length(head_h), Constraint::Min(1)]).areas(inner);
    frame.render_widget(Paragraph::new(head), top);
    let Some(answer) = &t.answer else {
        frame.render_widget(message(crate::t!("try-ask-first")), body);
        return;
    };
    let cols = answer.columns.len().max(1);
    let side_by_side = body.width as usize / cols >= 26;
    if side_by_side {
        let areas = Layout::horizontal(vec![Constraint::Ratio(1, cols as u32); cols]).split(body);
        for (col, a) in answer.columns.iter().zip(areas.iter()) {
            let b = panel(format!(" {} ", col.label), false);
            let lines = column_lines(col, b.inner(*a).width as usize, t.by_logp);
            let scroll = t.scroll.min(lines.len().saturating_sub(1)) as u16;
            frame.render_widget(Paragraph::new(lines).block(b).scroll((scroll, 0)), *a);
        }
    } else {
        let mut lines = Vec::new();
        for col in &answer.columns {
            lines.push(Line::styled(format!("── {} ──", col.label), highlight()));
            lines.extend(column_lines(col, body.width as usize, t.by_logp));
        }
        let scroll = t.scroll.min(lines.len().saturating_sub(1)) as u16;
        frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), body);
    }
}

/// One arm's answer as lines of `width`: its summary over the samples
/// first, then each sample's verdicts on its header line and its tokens
/// (by writer, or by log-probability) or lines below.
fn column_lines(
    col: &crate::drills::try_it::TryColumn,
    width: usize,
    by_logp: bool,
) -> Vec<ratatui::text::Line<'static>> {
    use ratatui::text::{Line, Span};

    use crate::tui::theme::{bad, dim, good, highlight};
    use crate::tui::widgets::{token_mask, wrap_words};

    let width = width.max(8);
    // Verdicts as spans, wrapped at `width` between verdicts.
    let verdict_lines = |head: Option<String>, vs: &[crate::drills::try_it::Verdict]| -> Vec<Line<'static>> {
        let mut out = Vec::new();
        let mut cur: Vec<Span<'static>> = Vec::new();
        let mut w = 0;
        if let Some(h) = head {
            w = unicode_width::UnicodeWidthStr::width(h.as_str());
            cur.push(Span::styled(h, dim()));
        }
        for v in vs {
            let (mark, style) = match v.good {
                Some(true) => (" ✓", good()),
                Some(false) => (" ✗", bad()),
                None => ("", dim()),
            };
            let text = format!("{}{mark} {}", v.name, v.value).trim_end().to_string();
            for piece in wrap_words(&text, width.saturating_sub(2).max(4)) {
                let pw = unicode_width::UnicodeWidthStr::width(piece.as_str()) + 2;
                if w > 0 && w + pw > width {
                    out.push(Line::from(std::mem::take(&mut cur)));
                    w = 0;
                }
                cur.push(Span::raw(if w > 0 { " · " } else { "" }));
                cur.push(Span::styled(piece, style));
                w += pw + 1;
            }
        }
        if !cur.is_empty() {
            out.push(Line::from(cur));
        }
        out
    };
    let mut out = Vec::new();
    if !col.summary.is_empty() {
        for mut l in verdict_lines(None, &col.summary) {
            l = l.style(highlight());
            out.push(l);
        }
    }
    for (i, s) in col.samples.iter().enumerate() {
        let head = if s.pending { format!("#{} …", i + 1) } else { format!("#{}", i + 1) };
        out.extend(verdict_lines(Some(head), &s.verdicts));
        if !s.cells.is_empty() {
            let cells: Vec<crate::drills::TokenCell> = s
                .cells
                .iter()
                .map(|c| {
                    let mut cell = c.view_cell(by_logp);
                    // Probability − ½: likely tokens green, unlikely red.
                    cell.value = cell.value.map(|lp| lp.exp() - 0.5);
                    cell
                })
                .collect();
            out.extend(token_mask::lines(&cells, width));
        }
        for l in &s.lines {
            for w in wrap_words(l, width) {
                out.push(Line::raw(w));
            }
        }
    }
    out
}
