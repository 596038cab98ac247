//! Every colour and text style of the TUI, in one place. Screens and widgets
//! ask for a role (`accent`, `dim`, `good`, `bad`, a badge) rather than
//! writing colours, so the look can change here without touching them.

use ratatui::style::{Color, Modifier, Style};

/// The lab's colour: titles, headings, the focused pane.
pub const ACCENT: Color = Color::Rgb(0x5f, 0xd7, 0xff);
/// Warm yellow: review, search hits.
pub const WARM: Color = Color::Rgb(0xff, 0xd7, 0x5f);
/// Soft red: wrong answers, the current search hit.
pub const RED: Color = Color::Rgb(0xff, 0x5f, 0x5f);
/// Orange: low mastery.
pub const ORANGE: Color = Color::Rgb(0xff, 0x87, 0x5f);
/// The run gauge while a run is going.
pub const GAUGE_BLUE: Color = Color::Rgb(0x5f, 0x87, 0xd7);
/// The unfilled part of a gauge.
pub const GAUGE_TRACK: Color = Color::Rgb(0x26, 0x26, 0x26);
/// The run gauge of a run that passed.
pub const GAUGE_PASSED: Color = PASS;
/// The run gauge of a run whose claims failed, or that stopped on an error.
pub const GAUGE_FAILED: Color = FAIL;
/// The run gauge of a saved run that did not finish (killed while training).
pub const GAUGE_PAST: Color = GREY;

// The terminal's own colours (the learner's palette decides their shade):
// state more than decoration.
const GREY: Color = Color::DarkGray;
const PASS: Color = Color::Green;
const FAIL: Color = Color::Red;
const YELLOW: Color = Color::Yellow;

/// One colour per chart series, in order (they repeat after six).
const SERIES: [Color; 6] = [
    ACCENT,
    Color::Rgb(0xff, 0x87, 0x87),
    Color::Rgb(0x87, 0xff, 0x87),
    WARM,
    Color::Rgb(0xd7, 0x87, 0xff),
    Color::Rgb(0xff, 0xaf, 0x5f),
];

pub fn series(i: usize) -> Color {
    SERIES[i % SERIES.len()]
}

/// Series `i`'s colour at half its brightness: the fill of a seed
/// band under the mean line drawn in [`series`].
pub fn series_faint(i: usize) -> Color {
    match series(i) {
        Color::Rgb(r, g, b) => Color::Rgb(r / 2, g / 2, b / 2),
        c => c,
    }
}

pub fn accent() -> Style {
    Style::default().fg(ACCENT)
}

/// Text that matters less: hints, units, empty states, a pane's border
/// while another pane has the focus.
pub fn dim() -> Style {
    Style::default().fg(GREY)
}

/// A pane's border: the accent on the focused pane, grey on the others.
pub fn border(focused: bool) -> Style {
    if focused {
        accent()
    } else {
        dim()
    }
}

pub fn good() -> Style {
    Style::default().fg(PASS)
}

/// A claim that held, a run that passed, a sweep claim that held for
/// every seed (the same green as [`good`]).
pub fn pass() -> Style {
    good()
}

/// A claim that failed, a run that failed or stopped on an error, a sweep
/// claim that held for no seed (the terminal's red, not [`bad`]'s).
pub fn fail() -> Style {
    Style::default().fg(FAIL)
}

/// A claim's mark in the claims list: ✓ held, ✗ failed (bold).
pub fn claim_pass() -> Style {
    pass().add_modifier(Modifier::BOLD)
}

pub fn claim_fail() -> Style {
    fail().add_modifier(Modifier::BOLD)
}

/// A measured observation (it neither passes nor fails).
pub fn observed() -> Style {
    Style::default().fg(Color::Cyan)
}

/// Between pass and fail: a sweep going or interrupted, a sweep claim
/// that held for some seeds only.
pub fn partial() -> Style {
    Style::default().fg(YELLOW)
}

/// What the eye should find in a row: a track's number, a due count, a
/// key in the help, an answer's letter, a parameter changed from its
/// preset, where the shown run comes from.
pub fn highlight() -> Style {
    Style::default().fg(YELLOW)
}

/// A message for the learner: the status line, a screen's notice, an
/// input refused, "terminal too small".
pub fn notice() -> Style {
    Style::default().fg(YELLOW)
}

/// The question on the footer ("q again quits"): dark on yellow, bold,
/// over a yellow footer ([`confirm_bar`]).
pub fn confirm() -> Style {
    Style::default().fg(Color::Black).bg(YELLOW).add_modifier(Modifier::BOLD)
}

pub fn confirm_bar() -> Style {
    Style::default().bg(YELLOW)
}

/// A parameter's name in the drill's config panel.
pub fn param_key() -> Style {
    Style::default().fg(Color::Gray)
}

/// The reader's position (" 42% ") at the left of its status line.
pub fn position() -> Style {
    badge(GREY)
}

/// A day of reviews in the history: how many were rated know, fuzzy, don't know.
pub fn rated_know() -> Style {
    Style::default().fg(PASS)
}

pub fn rated_fuzzy() -> Style {
    Style::default().fg(YELLOW)
}

pub fn rated_dont() -> Style {
    Style::default().fg(FAIL)
}

/// The study session's bar in the header.
pub fn session_bar() -> Style {
    Style::default().fg(Color::Black).bg(ACCENT)
}

/// A note that wants attention without being an error: "not done yet".
pub fn warm() -> Style {
    Style::default().fg(WARM)
}

pub fn bad() -> Style {
    Style::default().fg(RED)
}

/// The reason under a failed claim: what it means for learning.
pub fn why_style() -> Style {
    Style::default().fg(WARM)
}

/// A key in the footer and the help overlay.
pub fn key_style() -> Style {
    Style::default().fg(Color::Black).bg(Color::Rgb(0x8a, 0x8a, 0x8a))
}

/// Dark text on a coloured background: the app name, "item 3/10", "review 2/5".
pub fn badge(bg: Color) -> Style {
    Style::default().fg(Color::Black).bg(bg)
}

/// The app name at the left of the header.
pub fn brand() -> Style {
    badge(ACCENT).add_modifier(Modifier::BOLD)
}

/// The bold header row of a table.
pub fn table_header() -> Style {
    accent().add_modifier(Modifier::BOLD)
}

/// Search hits in the reader: every hit, and the one the cursor is on.
pub fn search_hit() -> Style {
    badge(Color::Rgb(0xd7, 0xaf, 0x00))
}

pub fn search_current() -> Style {
    badge(RED)
}

/// Tokens in the teaching views: prompt, trained on, masked out of the loss.
pub fn token_prompt() -> Style {
    Style::default().fg(Color::Gray)
}

pub fn token_trained() -> Style {
    badge(Color::Rgb(0x87, 0xd7, 0x87))
}

/// An injected span inside environment output: masked, and loud.
pub fn token_injected() -> Style {
    Style::default().fg(Color::Rgb(0xff, 0xd7, 0xff)).bg(Color::Rgb(0x87, 0x00, 0x87)).add_modifier(Modifier::BOLD)
}

pub fn token_masked() -> Style {
    Style::default()
        .fg(Color::Rgb(0xaf, 0xaf, 0xaf))
        .bg(Color::Rgb(0x5f, 0x2f, 0x2f))
        .add_modifier(Modifier::CROSSED_OUT)
}

/// A signed value as a background: green for positive, red for negative,
/// brighter as `|v| / max_abs` grows.
pub fn signed_value(v: f32, max_abs: f32) -> Style {
    let a = (v.abs() / max_abs.max(1e-6)).clamp(0.0, 1.0);
    let level = (60.0 + 160.0 * a) as u8;
    let bg = if v >= 0.0 { Color::Rgb(20, level, 40) } else { Color::Rgb(level, 25, 25) };
    Style::default().fg(Color::White).bg(bg)
}

/// A mastery fraction's colour: green from 0.8, yellow from 0.4, orange below.
pub fn mastery(f: f64) -> Color {
    if f >= 0.8 {
        PASS
    } else if f >= 0.4 {
        YELLOW
    } else {
        ORANGE
    }
}

/// A chart's title value ("EMA 0.900 · last 0.873").
pub fn chart_value() -> Style {
    Style::default().fg(Color::Gray)
}

/// The title of a chart that draws several series (each has its colour in the legend).
pub fn chart_title() -> Style {
    Style::default().fg(Color::White).add_modifier(Modifier::BOLD)
}

/// The previous run's curves under the current ones.
pub fn previous_run() -> Style {
    Style::default().fg(GREY)
}

/// A colour a syntax highlighting theme gives a piece of code.
pub fn syntax(r: u8, g: u8, b: u8) -> Style {
    Style::default().fg(Color::Rgb(r, g, b))
}

/// The styles of rendered Markdown (the reader, explanations, READMEs).
pub mod markdown {
    use ratatui::style::{Color, Modifier, Style};

    pub fn text() -> Style {
        Style::default()
    }
    pub fn code_span() -> Style {
        Style::default().fg(Color::Rgb(0xf0, 0xa0, 0x60))
    }
    /// A code block's text where its language is not highlighted.
    pub fn code_plain() -> Style {
        Style::default().fg(Color::Rgb(0xd3, 0xd0, 0xc8))
    }
    /// The frame around a code block.
    pub fn code_gutter() -> Style {
        Style::default().fg(Color::Rgb(0x58, 0x58, 0x58))
    }
    pub fn math() -> Style {
        Style::default().fg(Color::Rgb(0x8a, 0xd0, 0xff))
    }
    pub fn link() -> Style {
        Style::default().fg(Color::Rgb(0x6c, 0xb6, 0xff)).add_modifier(Modifier::UNDERLINED)
    }
    pub fn lab_link() -> Style {
        Style::default().fg(Color::Rgb(0x7d, 0xe3, 0x9a)).add_modifier(Modifier::UNDERLINED)
    }
    pub fn dim() -> Style {
        super::dim()
    }
    pub fn quote_bar() -> Style {
        Style::default().fg(Color::Rgb(0x70, 0x90, 0x70))
    }
    pub fn marker() -> Style {
        Style::default().fg(Color::Rgb(0xe0, 0xc0, 0x60))
    }
    pub fn heading(level: u8) -> Style {
        let base = Style::default().add_modifier(Modifier::BOLD);
        match level {
            1 => base.fg(Color::Rgb(0xff, 0x8c, 0xd8)),
            2 => base.fg(super::ACCENT),
            3 => base.fg(super::WARM),
            _ => base,
        }
    }
    pub fn summary() -> Style {
        Style::default().fg(Color::Rgb(0xd7, 0xaf, 0xff)).add_modifier(Modifier::BOLD)
    }
}
