//! The `e` menu: what the shown run exports to — its charts as a PNG, and
//! the engines its drill has an exporter for (`graduate::SUPPORT`), each
//! with its key. `T` and `V` still export for TRL and verl without it.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::Frame;

use crate::graduate::{self, Engine};
use crate::tui::theme::{accent, dim};

/// One thing the menu offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportItem {
    Png,
    Engine(Engine),
}

impl ExportItem {
    /// The key that picks it in the menu.
    pub fn key(self) -> char {
        match self {
            ExportItem::Png => 'p',
            ExportItem::Engine(Engine::Hf) => 'h',
            ExportItem::Engine(Engine::Peft) => 'a',
            ExportItem::Engine(Engine::Trl) => 't',
            ExportItem::Engine(Engine::Verl) => 'v',
        }
    }

    fn label(self) -> String {
        match self {
            ExportItem::Png => crate::t!("drill-export-png"),
            ExportItem::Engine(Engine::Hf) => crate::t!("drill-export-hf"),
            ExportItem::Engine(Engine::Peft) => crate::t!("drill-export-peft"),
            ExportItem::Engine(Engine::Trl) => crate::t!("drill-export-trl"),
            ExportItem::Engine(Engine::Verl) => crate::t!("drill-export-verl"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExportMenu {
    pub items: Vec<ExportItem>,
    pub cursor: usize,
}

impl ExportMenu {
    /// The PNG, then every engine `drill` exports to.
    pub fn for_drill(drill: &str) -> ExportMenu {
        let engines = Engine::ALL.into_iter().filter(|&e| graduate::refusal(drill, e).is_none());
        ExportMenu {
            items: std::iter::once(ExportItem::Png).chain(engines.map(ExportItem::Engine)).collect(),
            cursor: 0,
        }
    }

    fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            let on = i == self.cursor;
            let style = if on { accent().add_modifier(Modifier::BOLD) } else { Style::default() };
            let head = format!("{} {}  ", if on { "▸" } else { " " }, item.key());
            for (j, l) in
                crate::tui::widgets::wrap_words(&item.label(), width.saturating_sub(5)).into_iter().enumerate()
            {
                out.push(Line::from(Span::styled(
                    if j == 0 { format!("{head}{l}") } else { format!("     {l}") },
                    style,
                )));
            }
        }
        if self.items.len() == 1 {
            out.push(Line::from(Span::styled(crate::t!("drill-export-no-engines"), dim())));
        }
        out
    }
}

pub fn draw(frame: &mut Frame, area: Rect, m: &ExportMenu) {
    let lines = m.lines(super::predict::inner_width(area, 72));
    super::predict::popup(frame, area, format!(" {} ", crate::t!("drill-export-title")), 72, lines, 0);
}
