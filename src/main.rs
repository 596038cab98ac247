//! The `agentlab` command: the TUI by default, and headless subcommands for
//! scripts and CI.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use agentlab::cli;

#[derive(Parser)]
#[command(name = "agentlab", version, about = "A terminal learning lab for LLM agent post-training", long_about = None)]
struct Cli {
    /// Load cheatsheets, quizzes and drills from this directory instead of the embedded copy.
    #[arg(long, global = true, value_name = "DIR")]
    content: Option<PathBuf>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Open the terminal UI (the default).
    Tui,
    /// List the cheatsheets.
    Sheets,
    /// Print a cheatsheet as rendered plain text (for pipes and pagers).
    Sheet {
        /// Track number (0–7) or slug (e.g. `agentic-rl`).
        track: String,
        /// Wrap width; defaults to 100.
        #[arg(long, default_value_t = 100)]
        width: u16,
    },
    /// Check every content file and report problems.
    Validate,
    /// Measure training and generation speed and UI latency (JSON with --json).
    Bench {
        #[arg(long)]
        json: bool,
        /// Run one part only: S, M, gen-S, gen-M or ui.
        #[arg(long)]
        only: Option<String>,
        /// Seconds of timed training per config.
        #[arg(long, default_value_t = 8.0)]
        seconds: f64,
        /// auto, cpu, cuda or metal.
        #[arg(long, default_value = "auto")]
        device: agentlab::ml::device::DeviceChoice,
    },
}

fn main() -> ExitCode {
    let args = Cli::parse();
    let content = match agentlab::content::Content::load(args.content.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("agentlab: cannot load content: {e}");
            return ExitCode::from(2);
        }
    };
    let result = match args.command.unwrap_or(Command::Tui) {
        Command::Tui => agentlab::tui::run(agentlab::tui::App::new(content)).map(|_| ExitCode::SUCCESS),
        Command::Sheets => cli::sheets(&content),
        Command::Sheet { track, width } => cli::sheet(&content, &track, width),
        Command::Validate => cli::validate(&content),
        Command::Bench { json, only, seconds, device } => cli::bench(&content, json, only.as_deref(), seconds, device),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("agentlab: {e:#}");
            ExitCode::from(2)
        }
    }
}
