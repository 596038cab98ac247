//! Frame layout shared by every screen: a header, the screen body, a footer
//! with key hints, the help overlay, and the "terminal too small" message.

use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::action::Hint;
use super::app::{App, MIN_HEIGHT, MIN_WIDTH};
use super::screens::{drill, exercise, home, progress, quiz, reader, review, study, Screen};

use super::theme::{self, accent, dim, highlight, key_style};
use super::widgets::ellipsize;

pub fn draw(frame: &mut Frame, app: &App) {
    crate::i18n::set(app.lang);
    let area = frame.area();
    if app.too_small() {
        draw_too_small(frame, area);
        return;
    }
    let [header, body, footer] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(1), Constraint::Length(footer_height(app, area))])
            .areas(area);
    draw_header(frame, header, app);
    match app.screen() {
        Screen::Home(s) => home::draw(frame, body, s, &app.content, &app.summary, &app.home),
        Screen::Reader(s) => reader::draw(frame, body, s),
        Screen::Drill(s) => drill::draw(frame, body, s),
        Screen::Quiz(s) => quiz::draw(frame, body, s, &app.content),
        Screen::Review(s) => review::draw(frame, body, s, &app.store, &app.content),
        Screen::Progress(s) => progress::draw(frame, body, s),
        Screen::Exercises(s) => exercise::draw_list(frame, body, s, &app.content, &app.store.progress),
        Screen::Exercise(s) => exercise::draw(frame, body, s, &app.content, &app.store.progress),
        Screen::Study(s) => study::draw(frame, body, s, app.now()),
    }
    draw_footer(frame, footer, app);
    if app.help {
        draw_help(frame, area, app);
    }
}

fn draw_header(frame: &mut Frame, area: Rect, app: &App) {
    // The session bar, on the right of the header on every screen while a session goes.
    let bar = app.session_bar().map(|b| format!(" {b} "));
    let bar_w = bar.as_ref().map_or(0, |b| (b.width() as u16).min(area.width));
    let titles: Vec<String> = app.stack.iter().map(|s| s.title()).collect();
    let room = (area.width - bar_w) as usize;
    frame.render_widget(Paragraph::new(Line::from(breadcrumb(&titles, room))), area);
    if let Some(text) = bar {
        let right = Rect { x: area.x + area.width - bar_w, width: bar_w, ..area };
        frame.render_widget(Paragraph::new(Line::from(Span::styled(text, super::theme::session_bar()))), right);
    }
}

/// " agentlab  › Home › Quiz": where it does not fit in `room` columns, the
/// first screens give way to "…"; the last one, where the learner is, stays
/// (cut short with "…" where even it alone does not fit).
fn breadcrumb(titles: &[String], room: usize) -> Vec<Span<'static>> {
    const BRAND: &str = " agentlab ";
    let width = |from: usize| -> usize {
        BRAND.width() + titles[from..].iter().map(|t| 3 + t.width()).sum::<usize>() + if from > 0 { 4 } else { 0 }
    };
    let from = (0..titles.len()).find(|&k| width(k) <= room).unwrap_or(titles.len().saturating_sub(1));
    let mut spans = vec![Span::styled(BRAND, super::theme::brand())];
    if from > 0 {
        spans.push(Span::styled(" › …", dim()));
    }
    let over = width(from).saturating_sub(room);
    for (k, t) in titles[from..].iter().enumerate() {
        spans.push(Span::styled(" › ", dim()));
        let last = from + k + 1 == titles.len();
        spans.push(Span::raw(if last && over > 0 { ellipsize(t, t.width().saturating_sub(over)) } else { t.clone() }));
    }
    spans
}

/// Footer: a flash message if there is one, else the screen's key hints.
/// Most lines a status message takes (it is told in full: a path in it is
/// what the learner needs to find a file).
const FLASH_MAX_LINES: usize = 4;

fn flash_lines(msg: &str, width: u16) -> Vec<String> {
    let mut lines = crate::tui::widgets::wrap_all(msg, width.saturating_sub(1) as usize);
    lines.truncate(FLASH_MAX_LINES);
    lines.into_iter().map(|l| format!(" {l}")).collect()
}

/// One line of key hints, or as many as a status message needs.
fn footer_height(app: &App, area: Rect) -> u16 {
    match (&app.confirm_quit, &app.flash) {
        (None, Some(msg)) => flash_lines(msg, area.width).len() as u16,
        _ => 1,
    }
}

fn draw_footer(frame: &mut Frame, area: Rect, app: &App) {
    if let Some(ask) = &app.confirm_quit {
        let line = Line::from(Span::styled(format!(" {ask}"), theme::confirm()));
        frame.render_widget(Paragraph::new(line).style(theme::confirm_bar()), area);
        return;
    }
    if let Some(msg) = &app.flash {
        let lines = flash_lines(msg, area.width);
        frame.render_widget(Paragraph::new(lines.join("\n")).style(theme::notice()), area);
        return;
    }
    let mut hints = app.screen().hints();
    let global: &[Hint] = if app.screen().is_typing() {
        // `?` and `q` are letters in a text field; only Ctrl-C quits.
        &[("Ctrl-C", "quit")]
    } else {
        &[("?", "help"), ("q", "quit")]
    };
    // The global keys always show; the screen's last hints give way (the
    // help overlay lists them all).
    let room = (area.width as usize).saturating_sub(global.iter().map(hint_width).sum());
    while hints.iter().map(hint_width).sum::<usize>() > room && !hints.is_empty() {
        hints.pop();
    }
    hints.extend_from_slice(global);
    frame.render_widget(Paragraph::new(hint_line(&hints)), area);
}

/// Columns a hint takes in [`hint_line`]: " k " and " what  ".
fn hint_width(h: &Hint) -> usize {
    h.0.width() + crate::i18n::hint(h.1).width() + 5
}

pub fn hint_line(hints: &[Hint]) -> Line<'static> {
    let mut spans = Vec::new();
    for (k, what) in hints {
        spans.push(Span::styled(format!(" {k} "), key_style()));
        spans.push(Span::raw(format!(" {}  ", crate::i18n::hint(what))));
    }
    Line::from(spans)
}

const GLOBAL_HELP: &[Hint] = &[
    ("?", "show / hide this help"),
    ("F2", "switch the language (English, Chinese)"),
    ("Esc Backspace", "back to the previous screen"),
    ("q", "quit (asks first while a run or sweep is going; Ctrl-C quits at once)"),
];

fn draw_help(frame: &mut Frame, area: Rect, app: &App) {
    let screen_keys = app.screen().help();
    let mut lines = vec![Line::from(Span::styled(app.screen().help_title(), accent().add_modifier(Modifier::BOLD)))];
    let key_w = screen_keys.iter().chain(GLOBAL_HELP).map(|(k, _)| k.chars().count()).max().unwrap_or(4);
    let row = |(k, what): &Hint| {
        Line::from(vec![
            Span::styled(format!("{k:>key_w$}"), highlight()),
            Span::raw(format!("  {}", crate::i18n::hint(what))),
        ])
    };
    lines.extend(screen_keys.iter().map(row));
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(crate::t!("app-help-everywhere"), accent().add_modifier(Modifier::BOLD))));
    lines.extend(GLOBAL_HELP.iter().map(row));
    let h = (lines.len() as u16 + 2).min(area.height);
    let w = (lines.iter().map(|l| l.width()).max().unwrap_or(20) as u16 + 4).min(area.width);
    let popup = Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h };
    frame.render_widget(Clear, popup);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .title(format!(" {} ", crate::t!("app-help-title")))
        .border_style(accent());
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

fn draw_too_small(frame: &mut Frame, area: Rect) {
    let text = crate::t!(
        "app-too-small",
        width = area.width.to_string(),
        height = area.height.to_string(),
        min_width = MIN_WIDTH.to_string(),
        min_height = MIN_HEIGHT.to_string()
    );
    frame.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: true }).alignment(Alignment::Center).style(theme::notice()),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn a_breadcrumb_that_does_not_fit_drops_its_first_screens() {
        let titles: Vec<String> = ["Home", "Study session · 6 of 8", "Quiz · track 6 · L1"].map(String::from).to_vec();
        assert_eq!(text(&breadcrumb(&titles, 120)), " agentlab  › Home › Study session · 6 of 8 › Quiz · track 6 · L1");
        assert_eq!(text(&breadcrumb(&titles, 50)), " agentlab  › … › Quiz · track 6 · L1");
        assert_eq!(text(&breadcrumb(&titles, 61)), " agentlab  › … › Study session · 6 of 8 › Quiz · track 6 · L1");
        // Too narrow for even the last screen: it is cut short.
        assert_eq!(text(&breadcrumb(&titles, 30)), " agentlab  › … › Quiz · track…");
        let zh = ["Home".to_string(), "6 · 自我改进的大语言模型".to_string()];
        let cut = text(&breadcrumb(&zh, 30));
        assert!(cut.starts_with(" agentlab  › … › 6 · 自我") && cut.ends_with('…') && cut.width() <= 30, "{cut}");
        assert!(text(&breadcrumb(&titles, 60)).width() <= 60);
    }
}
