//! The terminal UI: an async event loop over crossterm events and a tick,
//! an [`app::App`] that holds state, and `draw` functions that only read it.

pub mod app;
pub mod screens;
pub mod ui;
pub mod widgets;

use std::time::Duration;

use crossterm::event::{Event, EventStream};
use futures::StreamExt;

pub use app::App;

/// Run the TUI until the learner quits. The terminal is restored on return,
/// on error and after a panic (ratatui's init installs a restoring panic hook).
/// Returns what to tell the learner after the terminal is restored: ratings
/// that could not be saved.
pub fn run(app: App) -> anyhow::Result<Option<String>> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut terminal = ratatui::try_init()?;
    // After ratatui's hook: panics in drill threads become failed runs, silently.
    crate::runner::install_panic_filter();
    let result = rt.block_on(event_loop(&mut terminal, app));
    ratatui::restore();
    result
}

async fn event_loop(terminal: &mut ratatui::DefaultTerminal, mut app: App) -> anyhow::Result<Option<String>> {
    let mut events = EventStream::new();
    // The tick drains drill events and animates; input never waits on it.
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        terminal.draw(|frame| {
            app.prepare(frame.area());
            ui::draw(frame, &app);
        })?;
        tokio::select! {
            event = events.next() => match event {
                Some(Ok(Event::Key(key))) => app.on_key(key),
                Some(Ok(Event::Resize(_, _))) => {}
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.into()),
                None => break,
            },
            _ = tick.tick() => {
                if !app.on_tick() {
                    continue;
                }
            }
        }
        if app.should_quit() {
            break;
        }
    }
    Ok(app.shutdown())
}
