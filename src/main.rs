//! The `agentlab` command: the TUI by default, and headless subcommands for
//! scripts and CI.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use agentlab::cli;

#[derive(Parser)]
#[command(name = "agentlab", version, about = "A terminal learning lab for LLM agent post-training", long_about = None)]
struct Cli {
    /// Load cheatsheets, quizzes and drills from this directory instead of the embedded copy.
    #[arg(long, global = true, value_name = "DIR")]
    content: Option<PathBuf>,

    /// Language of the screens and the content: en or zh (default: AGENTLAB_LANG,
    /// else the language last chosen with F2 in the TUI, else the locale).
    #[arg(long, global = true, value_name = "LANG")]
    lang: Option<agentlab::i18n::Lang>,

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
        /// Wrap width, 20 to 1000; defaults to 100.
        #[arg(long, default_value_t = 100, allow_negative_numbers = true, value_parser = width)]
        width: u16,
    },
    /// Check every content file and report problems.
    Validate,
    /// List, describe and run drills headless.
    Drill {
        #[command(subcommand)]
        cmd: DrillCmd,
    },
    /// Draw a saved run's charts, or a sweep's seed bands (PNG/SVG), or write them as CSV.
    Export {
        /// A run directory (runs/<drill>/<timestamp>, as `drill run` prints), or a sweep:
        /// its record (sweeps/<drill>/<timestamp>.json, as `drill sweep` prints) or that folder (its newest).
        run_dir: PathBuf,
        #[arg(long, conflicts_with_all = ["svg", "csv"])]
        png: bool,
        #[arg(long, conflicts_with = "csv")]
        svg: bool,
        #[arg(long)]
        csv: bool,
        /// Output file (default: inside the run directory; beside a sweep's record).
        #[arg(long)]
        out: Option<PathBuf>,
        /// A sweep: only the charts whose title or series contain this text (default: every chart).
        #[arg(long, value_name = "NAME")]
        chart: Option<String>,
        /// Export the experiment for an engine instead: hf, peft, trl or verl (RUN_DIR or a drill id; --out is a folder).
        #[arg(long, value_name = "ENGINE", conflicts_with_all = ["png", "svg", "csv", "chart"])]
        to: Option<String>,
        /// With --to: replace a non-empty --out folder.
        #[arg(long, requires = "to")]
        force: bool,
        /// With --to and a drill id: its preset (default quick).
        #[arg(long, requires = "to")]
        preset: Option<String>,
        /// With --to and a drill id: the seed (default 1).
        #[arg(long, requires = "to", allow_negative_numbers = true, value_parser = seed)]
        seed: Option<u64>,
    },
    /// Pretrain the lab's base model (shipped in assets/models/base; minutes on a CPU).
    Pretrain {
        #[arg(long, default_value_t = 6000, allow_negative_numbers = true, value_parser = steps)]
        steps: usize,
        #[arg(long, default_value_t = 20261122, allow_negative_numbers = true, value_parser = seed)]
        seed: u64,
        /// Where to write config.json, model.safetensors and tokenizer.json.
        #[arg(long, default_value = "assets/models/base")]
        out: PathBuf,
    },
    /// Take a quiz on stdin/stdout: one answer line per item, then a rating line 1/2/3.
    Quiz {
        /// Track number (0–7) or slug; all tracks when left out.
        #[arg(long)]
        track: Option<String>,
        /// L1 (concept), L2 (implementation), L3 (research) or all.
        #[arg(long)]
        level: Option<String>,
        /// At most this many items (1 or more).
        #[arg(long, allow_negative_numbers = true, value_parser = limit)]
        limit: Option<usize>,
    },
    /// Review the items due now (FSRS); ⚠️/❌ items come back after each pass.
    Review {
        /// Set the desired retention (0.70–0.99, default 0.9) and save it.
        #[arg(long, allow_negative_numbers = true, value_parser = retention)]
        retention: Option<f64>,
        /// Also review every ⚠️/❌ item that is not yet due.
        #[arg(long)]
        all: bool,
    },
    /// A study session in the TUI: the review items due first, then the next steps of
    /// the track's study path that fit the minutes (see README, "Study sessions").
    Study {
        /// Minutes the session may take (5 to 600).
        #[arg(long, default_value_t = 30, allow_negative_numbers = true, value_parser = minutes)]
        minutes: u32,
        /// Track number (0–7) or slug; without it the tracks in order, from the first path not done.
        #[arg(long)]
        track: Option<String>,
        /// Print the plan and each track's next step, and exit (no TUI).
        #[arg(long)]
        plan: bool,
    },
    /// Mastery per track and level, drills passed, items due, ratings per day.
    Progress {
        #[arg(long)]
        json: bool,
    },
    /// Report this build's features, the CPU and GPUs it sees, what `--device auto` picks, paths and threads.
    Doctor {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Models for drills that take one (`--model`): add a GGUF file or a Hugging Face directory, list them.
    Model {
        #[command(subcommand)]
        cmd: ModelCmd,
    },
    /// Exercises: write an algorithm in Rhai, check it against the lab's code, train a drill with it.
    Exercise {
        #[command(subcommand)]
        cmd: ExerciseCmd,
    },
    /// Ask a saved run's models something: the trained model(s) beside the one they started
    /// from, on the same input, in the drill's own task (one input per stdin line without --input).
    Try {
        /// A run directory (runs/<drill>/<timestamp>, as `drill run` prints), or a drill id for its newest run.
        #[arg(value_name = "RUN_DIR|DRILL")]
        run: PathBuf,
        /// Only this arm (the ids `runs list` shows: warm-start, after-rl, …); default every arm.
        #[arg(long)]
        arm: Option<String>,
        /// The input (a question, a problem, a query); without it, one input per line of stdin.
        #[arg(long)]
        input: Option<String>,
        /// Samples per arm, 1 to 16 (default: the drill's).
        #[arg(long, value_parser = cli::runs::parse_samples)]
        samples: Option<usize>,
        /// Sampling temperature, 0 (greedy) to 5 (default: the drill's).
        #[arg(long, allow_negative_numbers = true, value_parser = cli::runs::parse_temperature)]
        temperature: Option<f32>,
        /// A whole number ≥ 0: the same seed gives the same samples.
        #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = seed)]
        seed: u64,
        /// A drill's switch: --switch attack=off (repeatable; prompt-injection's attack).
        #[arg(long = "switch", value_name = "KEY=on|off")]
        switches: Vec<String>,
        /// Also print each of the model's tokens with its log-probability.
        #[arg(long)]
        logp: bool,
        /// One JSON object per input.
        #[arg(long)]
        json: bool,
        /// Say on stderr how long the first model token took and the model tokens per second.
        #[arg(long)]
        timing: bool,
    },
    /// Saved runs: list them with what they kept, prune older runs' weights, pin one, compare two.
    Runs {
        #[command(subcommand)]
        cmd: RunsCmd,
    },
    /// Measure training and generation speed and UI latency (JSON with --json).
    Bench {
        #[arg(long)]
        json: bool,
        /// Run one part only: S, M, L, gen-S, gen-M, gen-L or ui (with --model: lora, gen-b1 or gen-b8).
        #[arg(long)]
        only: Option<String>,
        /// Bench a real model instead of the tiny GPT configs: LoRA training (batch 4 × 64) and
        /// greedy generation with the K/V cache (batch 1 and 8); a name from `agentlab model list`,
        /// smollm2, a FILE.gguf or a Hugging Face DIR.
        #[arg(long, value_name = "NAME|DIR|FILE.gguf")]
        model: Option<String>,
        /// Seconds of timed training per config (more than 0, at most 3600).
        #[arg(long, default_value_t = 8.0, allow_negative_numbers = true, value_parser = seconds)]
        seconds: f64,
        /// auto, cpu, cuda or metal.
        #[arg(long, default_value = "auto")]
        device: agentlab::ml::device::DeviceChoice,
        /// Where a training step of S and M (or --only's config) spends its time, phase by phase (CPU); with --model, a LoRA step and a decoding run of that model.
        #[arg(long)]
        profile: bool,
    },
}

#[derive(Subcommand)]
enum RunsCmd {
    /// Every saved run (of one drill) with its preset, edits, status and the weights it kept.
    List {
        /// Only this drill's runs.
        drill: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Drop the weights of runs the keep rule does not keep (the 5 newest of each drill and
    /// the pinned ones keep theirs); configs, metrics and reports stay.
    Prune {
        /// Say what would be dropped, drop nothing.
        #[arg(long)]
        dry_run: bool,
        #[arg(long)]
        json: bool,
    },
    /// Keep a run's weights whatever the keep rule says.
    Pin {
        #[arg(value_name = "RUN_DIR")]
        run: PathBuf,
    },
    /// Let the keep rule drop a pinned run's weights again.
    Unpin {
        #[arg(value_name = "RUN_DIR")]
        run: PathBuf,
    },
    /// Two runs side by side: what differs in how they were made, the claims with both values,
    /// the last values that differ.
    Diff {
        #[arg(value_name = "RUN_A")]
        a: PathBuf,
        #[arg(value_name = "RUN_B")]
        b: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum ExerciseCmd {
    /// The exercises per track, done or pending.
    List,
    /// The task of an exercise and where your file is (written from the stub the first time).
    Show {
        id: String,
        /// Wrap width, 20 to 1000; defaults to 100.
        #[arg(long, default_value_t = 100, allow_negative_numbers = true, value_parser = width)]
        width: u16,
    },
    /// Hints 1 to N (all when N is left out).
    Hint {
        id: String,
        #[arg(allow_negative_numbers = true, value_parser = hint_number)]
        n: Option<usize>,
    },
    /// Check your function against the lab's implementation; exit 0 pass, 1 fail, 2 bad input.
    Check {
        id: String,
        /// The script to check (default: your file in the data directory).
        #[arg(long)]
        file: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// On a failed check, add the exercise's quiz items to review.
        #[arg(long)]
        review: bool,
    },
    /// Check your function now and again on every save of the file, until Ctrl-C.
    Watch {
        id: String,
        /// The script to watch (default: your file in the data directory).
        #[arg(long)]
        file: Option<PathBuf>,
        /// Stop after this many checks (default: never).
        #[arg(long)]
        checks: Option<u32>,
    },
}

#[derive(Subcommand)]
enum ModelCmd {
    /// Register a model under <data>/models/NAME: a GGUF file, or a Hugging Face
    /// directory (config.json, tokenizer.json, *.safetensors). Hard-linked when on
    /// the same filesystem, else copied; a model of the same name is replaced.
    Add {
        /// A .gguf file or a Hugging Face checkpoint directory.
        #[arg(value_name = "FILE.gguf|DIR")]
        source: PathBuf,
        /// The name to use it by (--model NAME); default: the file or directory name, lowercased.
        #[arg(long)]
        name: Option<String>,
    },
    /// The registered models: name, kind (gguf or hf-dir), size, path.
    List {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum DrillCmd {
    /// List the drills.
    List,
    /// Parameters, presets and claims of a drill.
    Show { id: String },
    /// Run a drill; exit 0 when every claim holds, 1 when one fails, 2 on bad arguments.
    Run {
        id: String,
        /// quick (CPU, ≤ 45 s) or full (bigger, for a GPU).
        #[arg(long, default_value = "quick")]
        preset: String,
        /// A whole number ≥ 0.
        #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = seed)]
        seed: u64,
        /// Override a parameter: --set lr=1e-3 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// The model, for drills that take one: tiny, a name from `agentlab model list`,
        /// a FILE.gguf or a Hugging Face DIR (means --set model=SPEC).
        #[arg(long, value_name = "NAME|DIR|FILE.gguf")]
        model: Option<String>,
        /// Train with your own function from an exercise: --use grpo-advantages=my.rhai (repeatable).
        #[arg(long = "use", value_name = "EXERCISE=FILE")]
        uses: Vec<String>,
        /// auto, cpu, cuda or metal.
        #[arg(long, default_value = "auto")]
        device: agentlab::ml::device::DeviceChoice,
        /// Print every event as a JSON line.
        #[arg(long)]
        json: bool,
        /// Answer the drill's predictions for the preset first (on stdin); after the run,
        /// what it measured for each (recorded in your progress).
        #[arg(long)]
        predict: bool,
    },
    /// Run a drill for many seeds; per claim: how often it held, mean, min and max.
    /// Exit 0 when every claim held on every seed, 1 otherwise, 2 on bad arguments.
    Sweep {
        id: String,
        #[arg(long, default_value = "quick")]
        preset: String,
        /// Seeds: a range (1-20), a list (1,4,9) or both.
        #[arg(long, default_value = "1-20", allow_hyphen_values = true)]
        seeds: String,
        /// Override a parameter for every seed: --set lr=1e-3 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// The model, for drills that take one: tiny, a name from `agentlab model list`,
        /// a FILE.gguf or a Hugging Face DIR (means --set model=SPEC).
        #[arg(long, value_name = "NAME|DIR|FILE.gguf")]
        model: Option<String>,
        /// auto, cpu, cuda or metal.
        #[arg(long, default_value = "auto")]
        device: agentlab::ml::device::DeviceChoice,
        /// Runs at a time, 1 to 64 (they share the CPU threads; results do not depend on it).
        #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = jobs)]
        jobs: usize,
        /// One JSON line per seed, then the whole sweep as JSON.
        #[arg(long)]
        json: bool,
        /// Continue the unfinished sweep of the same drill, preset, parameters and seeds
        /// (the same command without it does too; with it, nothing to continue is an error).
        #[arg(long)]
        resume: bool,
    },
}

// Numeric options: each says what it takes when refused (clap exits with 2).

fn width(s: &str) -> Result<u16, String> {
    agentlab::numbers::whole_number(s, "--width", 20, 1000).map(|n| n as u16)
}

fn steps(s: &str) -> Result<usize, String> {
    agentlab::numbers::whole_number(s, "--steps", 1, 10_000_000).map(|n| n as usize)
}

fn seed(s: &str) -> Result<u64, String> {
    agentlab::numbers::whole_number(s, "a seed", 0, u64::MAX)
}

fn minutes(s: &str) -> Result<u32, String> {
    agentlab::numbers::whole_number(s, "--minutes", 5, 600).map(|n| n as u32)
}

fn limit(s: &str) -> Result<usize, String> {
    agentlab::numbers::whole_number(s, "--limit", 1, usize::MAX as u64).map(|n| n as usize)
}

fn hint_number(s: &str) -> Result<usize, String> {
    agentlab::numbers::whole_number(s, "the hint number", 1, 100).map(|n| n as usize)
}

fn jobs(s: &str) -> Result<usize, String> {
    agentlab::numbers::whole_number(s, "--jobs", 1, 64).map(|n| n as usize)
}

fn retention(s: &str) -> Result<f64, String> {
    let r = agentlab::numbers::finite(s, "--retention")?;
    agentlab::progress::schedule::check_retention(r)
}

fn seconds(s: &str) -> Result<f64, String> {
    let x = agentlab::numbers::finite(s, "--seconds")?;
    if x > 0.0 && x <= 3600.0 {
        Ok(x)
    } else {
        Err(format!("--seconds is more than 0 and at most 3600, got {x}"))
    }
}

/// The value of `--lang LANG` or `--lang=LANG` before `--`, if it names a language
/// (a bad one is left to the parser, which says what it takes).
fn lang_flag(args: impl IntoIterator<Item = std::ffi::OsString>) -> Option<agentlab::i18n::Lang> {
    let args: Vec<String> = args.into_iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let mut found = None;
    for (i, a) in args.iter().enumerate().skip(1) {
        if a == "--" {
            break;
        }
        if a == "--lang" {
            found = args.get(i + 1).and_then(|v| agentlab::i18n::Lang::parse(v));
        } else if let Some(v) = a.strip_prefix("--lang=") {
            found = agentlab::i18n::Lang::parse(v);
        }
    }
    found
}

/// The command line's definition, its help in `lang`: the English is clap's
/// derive text (the doc comments); another language takes every command's
/// and option's help from the messages `cli-help-…` (see [`localize`]).
fn command(lang: agentlab::i18n::Lang) -> clap::Command {
    let cmd = Cli::command();
    if lang == agentlab::i18n::Lang::En {
        return cmd;
    }
    let mut cmd = cmd;
    // Built first, so that the help and version flags, the `help` subcommands and
    // the global options copied into each subcommand are there to translate.
    cmd.build();
    localize(cmd, "")
}

/// The message key of a command's help: `cli-help` for the program,
/// `cli-help-drill-run` for `drill run` (and for `help drill run`, which
/// lists the same commands); every `help` subcommand shares `cli-help-help`.
fn about_key(path: &str) -> String {
    let parts: Vec<&str> = path.split('-').filter(|p| !p.is_empty()).collect();
    match parts.last() {
        None => "cli-help".into(),
        Some(&"help") => "cli-help-help".into(),
        Some(_) => {
            let named: Vec<&str> = parts.into_iter().filter(|p| *p != "help").collect();
            format!("cli-help-{}", named.join("-"))
        }
    }
}

/// The message keys an option's help may come from, first found wins:
/// the command's own (`cli-help-drill-run--seed`), then the shared one (`cli-help-arg-seed`).
fn arg_keys(path: &str, id: &str) -> [String; 2] {
    [format!("{}--{id}", about_key(path)), format!("cli-help-arg-{id}")]
}

/// `cmd` (at `path`, its subcommand names joined with `-`) and its subcommands
/// with their help texts, headings and defaults in the language in force.
fn localize(cmd: clap::Command, path: &str) -> clap::Command {
    use agentlab::i18n::{has, message};
    let lang = agentlab::i18n::current();
    let text = |key: &str| message(lang, key, None);
    let mut cmd = cmd;
    if has(lang, &about_key(path)) {
        cmd = cmd.about(text(&about_key(path))).long_about(None);
    }
    cmd = cmd.mut_args(|a| {
        let id = a.get_id().to_string();
        let mut a = a;
        let key = arg_keys(path, &id).into_iter().find(|k| has(lang, k));
        let mut help = key.map(|k| text(&k)).or_else(|| a.get_help().map(|h| h.to_string()));
        // The default, which clap writes in English, goes into the text.
        let defaults: Vec<String> = a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
        if !defaults.is_empty() && a.get_action().takes_values() && !a.is_hide_default_value_set() {
            let mut args = agentlab::i18n::FluentArgs::new();
            args.set("value", defaults.join(", "));
            let default = message(lang, "cli-help-default-value", Some(&args));
            help = Some(format!("{}{default}", help.unwrap_or_default()));
            a = a.hide_default_value(true);
        }
        match help {
            Some(help) => a.help(help).long_help(None),
            None => a,
        }
    });
    // The headings are written here, not by clap (which puts an ASCII colon after
    // its own): one section for each kind of entry the command has.
    let mut sections = String::new();
    if cmd.has_subcommands() {
        sections += &format!("{}\n{{subcommands}}\n\n", text("cli-help-heading-commands"));
    }
    if cmd.get_positionals().next().is_some() {
        sections += &format!("{}\n{{positionals}}\n\n", text("cli-help-heading-arguments"));
    }
    sections += &format!("{}\n{{options}}", text("cli-help-heading-options"));
    cmd = cmd.help_template(format!(
        "{{before-help}}{{about-with-newline}}\n{}{{usage}}\n\n{sections}{{after-help}}",
        text("cli-help-heading-usage")
    ));
    let path = path.to_string();
    cmd.mut_subcommands(|c| {
        let sub = if path.is_empty() { c.get_name().to_string() } else { format!("{path}-{}", c.get_name()) };
        localize(c, &sub)
    })
}

/// Run a headless study session on stdin/stdout with the learner's store.
fn study(
    f: impl FnOnce(&mut agentlab::progress::Store, &mut cli::study::Session) -> anyhow::Result<ExitCode>,
) -> anyhow::Result<ExitCode> {
    let mut store = cli::study::open_store(chrono::Utc::now())?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    let now = chrono::Utc::now;
    let mut io = cli::study::Session { input: &mut input, out: &mut out, now: &now };
    f(&mut store, &mut io)
}

/// What a closed pipe does to a write: `default` ends the process quietly, as
/// it ends every Unix tool (`agentlab drill list | head -1`); otherwise the
/// signal is ignored and the write returns an error (Rust's default, kept for
/// the TUI, which must restore the terminal whatever happens).
#[cfg(unix)]
fn sigpipe(default: bool) {
    let action = if default { libc::SIG_DFL } else { libc::SIG_IGN };
    // SAFETY: setting a signal's disposition to SIG_DFL or SIG_IGN installs no handler.
    unsafe {
        libc::signal(libc::SIGPIPE, action);
    }
}

#[cfg(not(unix))]
fn sigpipe(_default: bool) {}

fn main() -> ExitCode {
    // Before the arguments are parsed: `agentlab quiz --help | head -1` is a closed pipe too.
    sigpipe(true);
    agentlab::tune_allocator();
    agentlab::ml::device::init_cpu_threads();
    // The language is chosen before the arguments are parsed, so that `--help` speaks it.
    let asked = agentlab::i18n::resolve(
        lang_flag(std::env::args_os()),
        std::env::var("AGENTLAB_LANG").ok().as_deref(),
        agentlab::progress::store::Store::saved_lang(),
        agentlab::i18n::Lang::from_locale(|k| std::env::var(k).ok()),
    );
    agentlab::i18n::set_default(asked.clone().unwrap_or_default());
    let matches = command(agentlab::i18n::current()).get_matches();
    let args = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.format(&mut Cli::command()).exit());
    let asked = match args.lang {
        Some(l) => Ok(l),
        None => asked,
    };
    if let Ok(l) = asked {
        agentlab::i18n::set_default(l);
    }
    let content = match agentlab::content::Content::load(args.content.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            let error = agentlab::textsafe::escape_controls(&e.to_string()).into_owned();
            eprintln!("agentlab: {}", agentlab::t!("cli-cannot-load-content", error = error));
            return ExitCode::from(2);
        }
    };
    let lang = match asked {
        Ok(l) if content.languages().contains(&l) => l,
        Ok(l) => {
            eprintln!("agentlab: {}", agentlab::t!("cli-no-translation", lang = l.name()));
            agentlab::i18n::Lang::En
        }
        Err(m) => {
            eprintln!("agentlab: {m}");
            return ExitCode::from(2);
        }
    };
    agentlab::i18n::set_default(lang);
    let command = args.command.unwrap_or(Command::Tui);
    // `validate` checks the content as loaded (with its translations), the TUI localises it
    // itself (F2 switches), and exported charts are labelled in English (the PNG
    // font has no CJK glyphs); the rest show the content in `lang`.
    let content = if matches!(
        command,
        Command::Validate | Command::Tui | Command::Study { plan: false, .. } | Command::Export { .. }
    ) {
        content
    } else {
        content.localized(lang)
    };
    if matches!(command, Command::Tui | Command::Study { plan: false, .. }) {
        sigpipe(false);
    }
    // Commands that write into the data dir first clear what killed writes left there.
    if matches!(
        command,
        Command::Tui
            | Command::Study { .. }
            | Command::Quiz { .. }
            | Command::Review { .. }
            | Command::Progress { .. }
            | Command::Exercise { .. }
            | Command::Drill { cmd: DrillCmd::Run { .. } | DrillCmd::Sweep { .. } }
            | Command::Runs { cmd: RunsCmd::Prune { .. } }
    ) {
        agentlab::paths::remove_stale_temps();
    }
    let result = match command {
        Command::Tui => agentlab::tui::run(agentlab::tui::App::new(content).in_lang(lang)),
        Command::Sheets => cli::sheets(&content),
        Command::Sheet { track, width } => cli::sheet(&content, &track, width),
        Command::Validate => cli::validate(&content),
        Command::Drill { cmd } => match cmd {
            DrillCmd::List => cli::drill_list(&content),
            DrillCmd::Show { id } => cli::drill_show(&content, &id),
            DrillCmd::Run { id, preset, seed, sets, model, uses, device, json, predict } => {
                cli::drill_run(&content, &id, &preset, seed, &sets, model.as_deref(), &uses, device, json, predict)
            }
            DrillCmd::Sweep { id, preset, seeds, sets, model, device, jobs, json, resume } => {
                cli::drill_sweep(&content, &id, &preset, &seeds, &sets, model.as_deref(), device, jobs, json, resume)
            }
        },
        Command::Model { cmd } => match cmd {
            ModelCmd::Add { source, name } => cli::model::add(&content, &source, name.as_deref()),
            ModelCmd::List { json } => cli::model::list(json),
        },
        Command::Exercise { cmd } => match cmd {
            ExerciseCmd::List => cli::exercise::list(&content),
            ExerciseCmd::Show { id, width } => cli::exercise::show(&content, &id, width),
            ExerciseCmd::Hint { id, n } => cli::exercise::hint(&content, &id, n),
            ExerciseCmd::Check { id, file, json, review } => {
                cli::exercise::check(&content, &id, file.as_deref(), json, review)
            }
            ExerciseCmd::Watch { id, file, checks } => cli::exercise::watch(&content, &id, file.as_deref(), checks),
        },
        Command::Export { run_dir, to: Some(engine), out, force, preset, seed, .. } => cli::graduate::export_to(
            &content,
            cli::graduate::ToArgs {
                spec: &run_dir,
                engine: &engine,
                out: out.as_deref(),
                force,
                preset: preset.as_deref(),
                seed,
            },
        ),
        Command::Export { run_dir, png: _, svg, csv, out, chart, .. } => {
            cli::export(&content, &run_dir, svg, csv, out.as_deref(), chart.as_deref())
        }
        Command::Try { run, arm, input, samples, temperature, seed, switches, logp, json, timing } => {
            cli::runs::try_run(
                &content,
                cli::runs::TryArgs {
                    run: &run,
                    arm: arm.as_deref(),
                    input: input.as_deref(),
                    samples,
                    temperature,
                    seed,
                    switches: &switches,
                    logp,
                    json,
                    timing,
                },
            )
        }
        Command::Runs { cmd } => match cmd {
            RunsCmd::List { drill, json } => cli::runs::list(&content, drill.as_deref(), json),
            RunsCmd::Prune { dry_run, json } => cli::runs::prune(dry_run, json),
            RunsCmd::Pin { run } => cli::runs::pin(&content, &run, true),
            RunsCmd::Unpin { run } => cli::runs::pin(&content, &run, false),
            RunsCmd::Diff { a, b, json } => cli::runs::diff(&content, &a, &b, json),
        },
        Command::Pretrain { steps, seed, out } => cli::pretrain(steps, seed, &out),
        Command::Doctor { json } => cli::doctor(json),
        Command::Bench { json, only, seconds, device, model, profile } => {
            if profile {
                cli::bench_profile(json, only.as_deref(), seconds, model.as_deref())
            } else {
                cli::bench(&content, json, only.as_deref(), seconds, device, model.as_deref())
            }
        }
        Command::Quiz { track, level, limit } => study(|store, io| {
            let (t, l) = cli::study::parse_filters(track.as_deref(), level.as_deref())?;
            cli::study::quiz(&content, store, t, l, limit, io)
        }),
        Command::Review { retention, all } => {
            study(|store, io| cli::study::review(&content, store, retention, all, io))
        }
        Command::Study { minutes, track, plan } => cli::plan::study(content, minutes, track.as_deref(), plan),
        Command::Progress { json } => cli::study::open_store(chrono::Utc::now())
            .and_then(|store| cli::study::progress(&content, &store, chrono::Utc::now(), json, &mut std::io::stdout())),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // An error may quote a file's text or a name: its control characters are shown, not sent.
            eprintln!("agentlab: {}", agentlab::textsafe::escape_controls(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentlab::i18n::{has, Lang};

    /// The keys a command and its options lack in `lang`: every command, and every option
    /// that has a help text in English, has one in each language.
    fn missing(cmd: &clap::Command, path: &str, lang: Lang, out: &mut Vec<String>) {
        if !has(lang, &about_key(path)) {
            out.push(about_key(path));
        }
        for a in cmd.get_arguments().filter(|a| a.get_help().is_some()) {
            let keys = arg_keys(path, a.get_id().as_str());
            if !keys.iter().any(|k| has(lang, k)) {
                out.push(keys.join(" or "));
            }
        }
        for s in cmd.get_subcommands() {
            let sub = if path.is_empty() { s.get_name().to_string() } else { format!("{path}-{}", s.get_name()) };
            missing(s, &sub, lang, out);
        }
    }

    #[test]
    fn every_command_and_option_has_its_help_in_every_language() {
        let mut cmd = Cli::command();
        cmd.build();
        for lang in Lang::ALL {
            let mut out = Vec::new();
            missing(&cmd, "", lang, &mut out);
            assert!(out.is_empty(), "{lang} lacks {out:#?}");
        }
    }

    #[test]
    fn the_chinese_command_line_parses_as_the_english_one() {
        agentlab::i18n::set(Lang::Zh);
        let cmd = command(Lang::Zh);
        cmd.clone().debug_assert();
        let m = cmd.try_get_matches_from(["agentlab", "drill", "run", "sft-basics", "--seed", "3"]).unwrap();
        let args = Cli::from_arg_matches(&m).unwrap();
        assert!(matches!(args.command, Some(Command::Drill { cmd: DrillCmd::Run { seed: 3, .. } })));
        agentlab::i18n::set(Lang::En);
    }

    #[test]
    fn the_language_flag_is_found_before_the_parse() {
        let args = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(lang_flag(args(&["agentlab", "--lang", "zh", "--help"])), Some(Lang::Zh));
        assert_eq!(lang_flag(args(&["agentlab", "drill", "--lang=zh"])), Some(Lang::Zh));
        assert_eq!(lang_flag(args(&["agentlab", "--lang", "klingon"])), None);
        assert_eq!(lang_flag(args(&["agentlab", "--", "--lang", "zh"])), None);
        assert_eq!(lang_flag(args(&["agentlab", "sheets"])), None);
    }
}
