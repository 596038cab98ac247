//! Keys of the drill screen that read or write files do it off the UI
//! thread: Enter on the Runs tab (a saved run read), `e` (a PNG drawn and
//! written), `u` and `t` (the learner's function read and checked), and
//! opening the screen (the newest saved sweep and its seeds' metrics read). The key
//! says what is under way at once; the result is applied when a tick polls
//! the screen, as the event loop does, and not before. Every test runs in a
//! temporary data dir (`AGENTLAB_HOME`), never the real home. `S` finds the
//! unfinished sweep it continues (and reads its seeds) off the UI thread too.

mod common;

use agentlab::content::Content;
use agentlab::tui::screens::{drill, Screen};
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn key(a: &mut App, code: KeyCode) {
    a.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn draw(a: &mut App) -> String {
    common::screen_lines(a, 120, 40).join("\n")
}

fn d(a: &mut App) -> &mut drill::State {
    match a.stack.last_mut() {
        Some(Screen::Drill(d)) => d,
        _ => panic!("not on a drill screen"),
    }
}

fn flash(a: &App) -> String {
    a.flash.clone().unwrap_or_default()
}

/// The app on drill `id`, its runs in `runs` (a temporary dir), drawn once
/// and settled (the newest saved run read).
fn drill_app(id: &str, runs: &std::path::Path) -> App {
    common::isolated_home();
    let mut a = App::new(Content::embedded().unwrap());
    a.runs_root = runs.to_path_buf();
    a.sweeps_root = runs.with_file_name("sweeps");
    let s = a.drill_screen(id).unwrap();
    a.stack.push(s);
    draw(&mut a);
    common::settle(&mut a);
    a
}

/// The learner's grpo-advantages file (the stub, which fails its check),
/// written once for the tests of this binary.
fn exercise_file(a: &App) {
    static WRITTEN: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    let meta = a.content.exercise("grpo-advantages").unwrap().clone();
    WRITTEN.get_or_init(|| {
        agentlab::exercises::ensure_file(&meta.id, &meta.stub).unwrap();
    });
}

#[test]
fn enter_on_the_runs_tab_reads_the_run_off_the_ui_thread() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    common::saved_run(&runs, "2026-01-01T00-00-00", 231, 800, None);
    common::saved_run(&runs, "2026-01-02T00-00-00", 12, 800, None);
    let mut a = drill_app("sft-basics", &runs);
    // The newest is shown as the screen opens; open the one before it.
    assert_eq!(d(&mut a).viewing.as_deref(), Some("2026-01-02T00-00-00"));
    key(&mut a, KeyCode::Char('4'));
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Enter);
    // At once: what is being read, on the status line and above the panes; nothing shown yet.
    assert_eq!(flash(&a), "reading run 2026-01-01T00-00-00…");
    assert!(d(&mut a).working());
    assert_eq!(d(&mut a).viewing.as_deref(), Some("2026-01-02T00-00-00"), "not applied before a tick");
    let s = draw(&mut a);
    assert!(s.contains("reading run 2026-01-01T00-00-00… · track 0 · preset quick"), "{s}");
    // Even when the thread is long done, only a poll applies it.
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(d(&mut a).viewing.as_deref(), Some("2026-01-02T00-00-00"));
    common::settle(&mut a);
    assert_eq!(d(&mut a).viewing.as_deref(), Some("2026-01-01T00-00-00"));
    assert_eq!(d(&mut a).tab, drill::Tab::Charts);
    assert_eq!(flash(&a), "showing saved run 2026-01-01T00-00-00 (s starts a new run)");
    let s = draw(&mut a);
    assert!(s.contains("saved run 2026-01-01T00-00-00") && s.contains("interrupted at step 231 of 800"), "{s}");
    assert!(!s.contains("reading run"), "{s}");
}

#[test]
fn a_run_that_cannot_be_read_says_so_after_the_tick() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    let dir = common::saved_run(&runs, "2026-01-01T00-00-00", 5, 800, None);
    let mut a = drill_app("sft-basics", &runs);
    std::fs::remove_file(dir.join("metrics.jsonl")).unwrap();
    key(&mut a, KeyCode::Char('4'));
    key(&mut a, KeyCode::Enter);
    assert_eq!(flash(&a), "reading run 2026-01-01T00-00-00…");
    common::settle(&mut a);
    assert!(flash(&a).starts_with("cannot read ") && flash(&a).contains("metrics.jsonl"), "{}", flash(&a));
}

#[test]
fn e_exports_the_png_off_the_ui_thread() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    let dir = common::saved_run(&runs, "2026-01-01T00-00-00", 40, 800, None);
    let mut a = drill_app("sft-basics", &runs);
    key(&mut a, KeyCode::Char('e'));
    key(&mut a, KeyCode::Char('p'));
    assert_eq!(flash(&a), "exporting the charts to PNG…");
    assert!(draw(&mut a).contains("exporting the charts to PNG… · track 0"));
    common::settle(&mut a);
    let png = dir.join("charts.png");
    assert_eq!(flash(&a), format!("exported {} (partial: interrupted at step 40 of 800 (train))", png.display()));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"), "a PNG was written");
    assert!(!draw(&mut a).contains("exporting"));
}

/// `e` opens a menu of what the shown run exports to: the PNG and each engine
/// its drill has an exporter for (sft-basics: hf and TRL; grpo-rlvr: all
/// four); a letter or Enter picks, Esc closes; `T` still exports for TRL.
#[test]
fn e_offers_the_png_and_the_engines_the_drill_exports_to() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    let dir = common::saved_run(&runs, "2026-01-01T00-00-00", 40, 800, None);
    std::fs::write(
        dir.join("config.toml"),
        "drill = \"sft-basics\"\npreset = \"quick\"\nseed = 1\ndevice = \"cpu\"\n\n[params]\nsteps = 800\nbatch = 64\n\
         lr = 0.003\nwarmup = 30\nd_model = 64\nn_layers = 2\nn_heads = 4\nreverse_answer = true\nmask_prompt = true\n\
         holdout = 1000\n",
    )
    .unwrap();
    let mut a = drill_app("sft-basics", &runs);
    key(&mut a, KeyCode::Char('e'));
    let s = draw(&mut a);
    assert!(s.contains("export the shown run"), "{s}");
    for item in ["▸ p  the charts as a PNG", "h  Hugging Face checkpoint", "t  the same experiment for TRL"] {
        assert!(s.contains(item), "{item} missing:\n{s}");
    }
    assert!(!s.contains("for verl") && !s.contains("for PEFT"), "sft-basics exports to neither:\n{s}");
    assert!(a.flash.is_none(), "nothing exported yet");
    // ↓ Enter picks the second item; Esc closes without exporting.
    key(&mut a, KeyCode::Esc);
    assert!(!draw(&mut a).contains("export the shown run"));
    key(&mut a, KeyCode::Char('e'));
    key(&mut a, KeyCode::Char('t'));
    assert_eq!(flash(&a), "exporting the run for trl…");
    common::settle(&mut a);
    let readme = dir.join("export-trl").join("README.md");
    assert_eq!(flash(&a), format!("exported for trl: follow {}", readme.display()));
    assert!(dir.join("export-trl/data/train.jsonl").is_file() && dir.join("export-trl/start/config.json").is_file());
    // T without the menu, as before.
    key(&mut a, KeyCode::Char('T'));
    assert_eq!(flash(&a), "exporting the run for trl…");
    common::settle(&mut a);
    assert_eq!(flash(&a), format!("exported for trl: follow {}", readme.display()));

    let mut g = drill_app("grpo-rlvr", &home.path().join("runs2"));
    // No run shown: nothing to export, no menu.
    key(&mut g, KeyCode::Char('e'));
    assert!(!draw(&mut g).contains("export the shown run"));
    let meta = g.content.drill("grpo-rlvr").unwrap().clone();
    let menu = drill::export_menu::ExportMenu::for_drill(&meta.id);
    let keys: String = menu.items.iter().map(|i| i.key()).collect();
    assert_eq!(keys, "phatv", "grpo-rlvr exports to every engine");
    let keys: String = drill::export_menu::ExportMenu::for_drill("ewc-replay").items.iter().map(|i| i.key()).collect();
    assert_eq!(keys, "p", "a drill without an exporter offers the PNG only");
}

#[test]
fn u_reads_and_checks_your_function_off_the_ui_thread_and_s_waits_for_it() {
    let home = tempfile::tempdir().unwrap();
    let mut a = drill_app("grpo-rlvr", &home.path().join("runs"));
    exercise_file(&a);
    key(&mut a, KeyCode::Char('u'));
    assert_eq!(flash(&a), "reading your grpo-advantages…");
    assert!(d(&mut a).uses.is_empty(), "plugged in once read and checked");
    assert!(draw(&mut a).contains("reading your grpo-advantages… · track "));
    // A run started now would train with the lab's function: s says to wait.
    key(&mut a, KeyCode::Char('s'));
    assert!(flash(&a).contains("start the run once it is read"), "{}", flash(&a));
    assert!(!d(&mut a).running());
    common::settle(&mut a);
    assert!(d(&mut a).uses.contains_key("grpo-advantages"));
    assert!(flash(&a).contains("s starts a run with your grpo-advantages") && flash(&a).contains("FAILS its check"));
    assert!(draw(&mut a).contains("with your grpo-advantages"));
}

/// `t` on an exercise opens its drill at once; the function is plugged in after the tick.
#[test]
fn t_opens_the_drill_at_once_and_plugs_your_function_in_after_the_tick() {
    common::isolated_home();
    let mut a = App::new(Content::embedded().unwrap());
    draw(&mut a);
    exercise_file(&a);
    a.train_with("grpo-rlvr", "grpo-advantages");
    assert!(matches!(a.screen(), Screen::Drill(d) if d.meta.id == "grpo-rlvr"));
    assert_eq!(flash(&a), "reading your grpo-advantages…");
    common::settle(&mut a);
    assert!(d(&mut a).uses.contains_key("grpo-advantages"));
}

/// The newest saved sweep is read as the screen opens, off the UI thread,
/// and shown on the Sweep tab after the tick; a sweep set meanwhile wins.
#[test]
fn the_last_sweep_is_read_off_the_ui_thread_as_the_screen_opens() {
    use agentlab::runner::sweep::{self, Sweep, SweepConfig};
    common::isolated_home();
    let home = tempfile::tempdir().unwrap();
    let mut a = App::new(Content::embedded().unwrap());
    a.runs_root = home.path().join("runs");
    a.sweeps_root = home.path().join("sweeps");
    let meta = a.content.drill("sft-basics").unwrap().clone();
    let config = |seeds: Vec<u64>| SweepConfig {
        drill: "sft-basics".into(),
        preset: "quick".into(),
        params: meta.preset_values("quick").unwrap(),
        seeds,
        device: agentlab::ml::device::DeviceChoice::Cpu,
    };
    let saved = sweep::save(&Sweep::summarise(&meta, config(vec![1, 2, 3]), vec![], 0.0), &a.sweeps_root).unwrap();
    let s = a.drill_screen("sft-basics").unwrap();
    a.stack.push(s);
    assert!(d(&mut a).sweep.is_none(), "not applied before a tick");
    assert!(draw(&mut a).contains("reading the last sweep… · track 0"));
    common::settle(&mut a);
    assert_eq!(d(&mut a).sweep.as_ref().and_then(|v| v.saved.clone()), Some(saved.clone()));
    assert!(!draw(&mut a).contains("reading the last sweep"));
    // A sweep shown before the saved one is read stays.
    let s = a.drill_screen("sft-basics").unwrap();
    a.stack.push(s);
    d(&mut a).set_sweep(Sweep::summarise(&meta, config(vec![7]), vec![], 0.0), None);
    common::settle(&mut a);
    assert_eq!(d(&mut a).sweep.as_ref().map(|v| v.sweep.config.seeds.clone()), Some(vec![7]));
}

#[test]
fn s_finds_the_sweep_to_continue_off_the_ui_thread_and_then_starts_it() {
    let home = tempfile::tempdir().unwrap();
    let mut a = drill_app("sft-basics", &home.path().join("runs"));
    d(&mut a).sweep_seeds = 2;
    key(&mut a, KeyCode::Char('S'));
    assert_eq!(flash(&a), "looking for an unfinished sweep to continue…");
    // Nothing has started yet, and nothing else may start meanwhile.
    assert!(d(&mut a).sweep_job.is_none() && d(&mut a).tab != drill::Tab::Sweep);
    key(&mut a, KeyCode::Char('s'));
    assert!(flash(&a).starts_with("a sweep is already going"), "{}", flash(&a));
    common::settle(&mut a);
    assert_eq!(flash(&a), "sweep of seeds 1–2 started: one run after another (x cancels)");
    assert!(d(&mut a).sweeping() && d(&mut a).tab == drill::Tab::Sweep);
    key(&mut a, KeyCode::Char('x'));
    let t = std::time::Instant::now();
    while d(&mut a).sweeping() && t.elapsed().as_secs() < 60 {
        a.on_tick();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(!d(&mut a).sweeping(), "the sweep ended on x");
}
