//! Choosing the language: F2 switches at once and is remembered; the command
//! line, `AGENTLAB_LANG` and the locale choose at start-up.

mod common;

use std::process::Command;

use agentlab::content::Content;
use agentlab::i18n::Lang;
use agentlab::progress::store::Store;
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use common::isolated_home;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

#[test]
fn f2_switches_everything_at_once_keeps_the_place_and_is_remembered() {
    isolated_home();
    let mut app = App::new(Content::embedded().unwrap());
    assert_eq!(app.lang, Lang::En);
    // A sheet open at a section, the way a link opens it.
    let reader =
        agentlab::tui::screens::reader::State::for_track(&app.content, 3, Some("returns-and-credit-assignment"))
            .expect("sheet 3");
    app.stack.push(Screen::Reader(Box::new(reader)));
    let before = common::screen_lines(&mut app, 120, 40).join("\n");
    assert!(before.contains("Returns and credit assignment"), "{before}");

    key(&mut app, KeyCode::F(2));
    assert_eq!(app.lang, Lang::Zh);
    assert_eq!(Store::saved_lang(), Some(Lang::Zh), "the choice is saved in the progress file");
    let after = common::screen_lines(&mut app, 120, 40).join("\n");
    assert!(after.contains("信用分配"), "the sheet is Chinese now:\n{after}");
    let Some(Screen::Reader(r)) = app.stack.last() else { panic!("still the reader") };
    let here = r.current_heading().map(|i| r.headings()[i].slug.clone());
    assert_eq!(here.as_deref(), Some("returns-and-credit-assignment"), "the same section, in Chinese");

    // Back to English, and again the same section.
    key(&mut app, KeyCode::F(2));
    assert_eq!(app.lang, Lang::En);
    assert_eq!(Store::saved_lang(), Some(Lang::En));
    let back = common::screen_lines(&mut app, 120, 40).join("\n");
    assert!(back.contains("Returns and credit assignment") && !back.contains("信用分配（credit"), "{back}");
}

fn agentlab(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentlab"));
    cmd.args(args).env("AGENTLAB_HOME", home.path());
    for k in ["AGENTLAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"] {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn the_flag_beats_the_variable_which_beats_the_locale() {
    let zh_title = "智能体与长程强化学习";
    let out = |o: std::process::Output| String::from_utf8(o.stdout).unwrap();
    assert!(out(agentlab(&["sheets"], &[("LANG", "zh_CN.UTF-8")])).contains(zh_title), "the locale");
    assert!(!out(agentlab(&["sheets"], &[("LANG", "en_US.UTF-8")])).contains(zh_title));
    assert!(out(agentlab(&["sheets"], &[("AGENTLAB_LANG", "zh"), ("LANG", "en_US.UTF-8")])).contains(zh_title));
    let flag = out(agentlab(&["--lang", "en", "sheets"], &[("AGENTLAB_LANG", "zh")]));
    assert!(flag.contains("Agentic & Long-horizon RL") && !flag.contains(zh_title), "{flag}");
    let bad = agentlab(&["sheets"], &[("AGENTLAB_LANG", "klingon")]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("AGENTLAB_LANG=\"klingon\" is not a language"));
    let bad_flag = agentlab(&["--lang", "fr", "sheets"], &[]);
    assert!(!bad_flag.status.success());
    assert!(String::from_utf8_lossy(&bad_flag.stderr).contains("unknown language \"fr\""));
}
