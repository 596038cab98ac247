//! The terminal UI: an async event loop over crossterm events and a tick,
//! an [`app::App`] that holds state, and `draw` functions that only read it.

pub mod action;
pub mod app;
pub mod layout;
pub mod screens;
pub mod sync;
pub mod theme;
pub mod ui;
pub mod widgets;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use futures::StreamExt;

pub use app::App;

/// Run the TUI until the learner quits. The terminal is restored on return,
/// on error, after a panic (ratatui's init installs a restoring panic hook),
/// and on SIGTERM, SIGHUP or SIGINT, which quit like `q` (without asking):
/// the terminal is restored, and a run or sweep under way is cancelled and
/// waited for so that it is saved as cancelled. After a signal the exit
/// status is 128 + its number, as a shell reports a process it stopped.
/// Ratings whose saves failed get a last try; if they still cannot be
/// saved, the learner is told and the status is 1.
pub fn run(mut app: App) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut terminal = ratatui::try_init()?;
    // After ratatui's hook: panics in drill threads become failed runs, silently.
    crate::runner::install_panic_filter();
    let result = rt.block_on(event_loop(&mut terminal, &mut app));
    let _ = terminal.show_cursor();
    ratatui::restore();
    // With the terminal back, stop what is running and say where it went.
    for note in app.shutdown(Instant::now() + SHUTDOWN_WAIT) {
        eprintln!("agentlab: {note}");
    }
    let unsaved = app.save_unsaved();
    if let Some(m) = &unsaved {
        eprintln!("agentlab: {m}");
    }
    match result? {
        Some(signal) => Ok(ExitCode::from(128 + signal.number)),
        None if unsaved.is_some() => Ok(ExitCode::FAILURE),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// How long quitting waits for a cancelled run to stop at its next step and
/// save itself (a step takes milliseconds to a second; a supervisor that sent
/// SIGTERM usually waits 10 s before SIGKILL).
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// A signal that ends the TUI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuitSignal {
    pub name: &'static str,
    pub number: u8,
}

/// SIGTERM, SIGHUP and SIGINT (Ctrl-C is a key in raw mode, but `kill -INT`
/// still sends the signal); Ctrl-C alone where there are no Unix signals.
struct QuitSignals {
    #[cfg(unix)]
    streams: [(tokio::signal::unix::Signal, QuitSignal); 3],
}

impl QuitSignals {
    fn new() -> std::io::Result<QuitSignals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(QuitSignals {
                streams: [
                    (signal(SignalKind::terminate())?, QuitSignal { name: "SIGTERM", number: 15 }),
                    (signal(SignalKind::hangup())?, QuitSignal { name: "SIGHUP", number: 1 }),
                    (signal(SignalKind::interrupt())?, QuitSignal { name: "SIGINT", number: 2 }),
                ],
            })
        }
        #[cfg(not(unix))]
        Ok(QuitSignals {})
    }

    async fn recv(&mut self) -> QuitSignal {
        #[cfg(unix)]
        {
            let [(term, t), (hup, h), (int, i)] = &mut self.streams;
            tokio::select! {
                _ = term.recv() => *t,
                _ = hup.recv() => *h,
                _ = int.recv() => *i,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            QuitSignal { name: "Ctrl-C", number: 2 }
        }
    }
}

/// Draw and handle events until the learner quits (`None`) or a signal ends it.
async fn event_loop(terminal: &mut ratatui::DefaultTerminal, app: &mut App) -> anyhow::Result<Option<QuitSignal>> {
    let mut events = EventStream::new();
    let mut signals = QuitSignals::new()?;
    // The tick drains drill events and animates; input never waits on it.
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        terminal.draw(|frame| {
            app.prepare(frame.area());
            ui::draw(frame, app);
        })?;
        tokio::select! {
            signal = signals.recv() => return Ok(Some(signal)),
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
        if let Some(path) = app.take_edit_request() {
            // The editor owns the terminal until it exits; no key may be read meanwhile.
            drop(events);
            leave_screen()?;
            let outcome = edit(&path);
            enter_screen()?;
            // A new terminal draws every cell on its first frame (no cursor query,
            // which the old event reader could still be holding up).
            *terminal = ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(std::io::stdout()))?;
            events = EventStream::new();
            match outcome {
                Ok(()) => app.apply(action::Action::CheckExercise),
                Err(e) => app.flash = Some(e),
            }
        }
    }
    Ok(None)
}

/// Hand the terminal to another program: the main screen, cooked mode.
fn leave_screen() -> std::io::Result<()> {
    crossterm::terminal::disable_raw_mode()?;
    crossterm::execute!(std::io::stdout(), crossterm::terminal::LeaveAlternateScreen, crossterm::cursor::Show)
}

/// Take the terminal back after [`leave_screen`].
fn enter_screen() -> std::io::Result<()> {
    crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::EnterAlternateScreen,
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All),
        crossterm::cursor::Hide
    )?;
    crossterm::terminal::enable_raw_mode()
}

/// Open `path` in the learner's editor (`$VISUAL`, `$EDITOR`, else `vi`)
/// and wait for it. The variable may hold arguments (`code -w`).
fn edit(path: &std::path::Path) -> Result<(), String> {
    let editor = std::env::var("VISUAL")
        .ok()
        .or_else(|| std::env::var("EDITOR").ok())
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string());
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = std::process::Command::new(program).args(words).arg(path).status().map_err(|e| {
        crate::t!(
            "app-editor-cannot-start",
            editor = editor.as_str(),
            error = e.to_string(),
            path = path.display().to_string()
        )
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(crate::t!("app-editor-failed", editor = editor.as_str(), status = status.to_string()))
    }
}
