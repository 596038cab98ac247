//! The quiz and exercise screens, an exercise check's report and the
//! learner-facing commands in Chinese: Chinese is shown and none of their
//! English labels is left.

mod common;

use agentlab::content::{Answer, Content};
use agentlab::i18n::{self, Lang};
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const SIZES: [(u16, u16); 2] = [(60, 16), (120, 40)];

fn zh_app() -> App {
    common::isolated_home();
    let mut a = App::new(Content::embedded().unwrap());
    a.set_lang(Lang::Zh).unwrap();
    draw(&mut a, 80, 24);
    a
}

fn draw(app: &mut App, w: u16, h: u16) -> String {
    common::screen_lines(app, w, h).join("\n")
}

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn has_han(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

fn none_of(screen: &str, english: &[&str]) {
    for e in english {
        assert!(!screen.contains(e), "English {e:?} left on the zh screen:\n{screen}");
    }
}

#[test]
fn quiz_setup_asking_and_result_in_chinese() {
    let mut a = zh_app();
    key(&mut a, KeyCode::Char('z'));
    assert!(matches!(a.screen(), Screen::Quiz(_)), "{}", a.screen().title());
    for (w, h) in SIZES {
        let s = draw(&mut a, w, h);
        assert!(s.contains("专题"), "{w}x{h}:\n{s}");
        none_of(&s, &["Track", "Level", " items", "Next: Enter"]);
    }
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("道题") && s.contains("下一步"), "{s}");

    // A single-answer choice item, answered wrong.
    let item = a
        .content
        .items()
        .find(|i| matches!(&i.answer, Answer::Choice { correct, .. } if correct.len() == 1))
        .unwrap()
        .clone();
    let wrong = match &item.answer {
        Answer::Choice { correct, .. } => (b'a' + if correct[0] == 0 { 1 } else { 0 }) as char,
        _ => unreachable!(),
    };
    common::quiz_over(&mut a, &[item.id.as_str()]);
    for (w, h) in SIZES {
        let s = draw(&mut a, w, h);
        assert!(s.contains("第 1/1 题") || w < 80, "{w}x{h}:\n{s}");
        assert!(has_han(&s), "{s}");
        none_of(&s, &["Press the letter", "item 1/1", "track "]);
    }
    key(&mut a, KeyCode::Char(wrong));
    for (w, h) in SIZES {
        let s = draw(&mut a, w, h);
        assert!(s.contains("自评") || h < 20, "{w}x{h}:\n{s}");
        none_of(&s, &["Rate yourself", "Not quite", "Why", "(wrong: no ✅)"]);
    }
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("不太对") && s.contains("解析"), "{s}");
    key(&mut a, KeyCode::Char('3'));
    for (w, h) in SIZES {
        let s = draw(&mut a, w, h);
        assert!(s.contains("测验完成") || s.contains("结果"), "{w}x{h}:\n{s}");
        none_of(&s, &["Quiz done", "Auto-graded", "First pass", " saved.", "Missed on", " Result "]);
    }
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("自动评分") && s.contains("第一轮") && s.contains("条评分"), "{s}");
}

#[test]
fn exercise_screen_and_check_report_in_chinese() {
    let mut a = zh_app();
    key(&mut a, KeyCode::Char('e'));
    assert!(matches!(a.screen(), Screen::Exercises(_)));
    for (w, h) in SIZES {
        let s = draw(&mut a, w, h);
        assert!(s.contains("练习") && s.contains("专题"), "{w}x{h}:\n{s}");
        none_of(&s, &["Exercises ·", "Write the algorithm", "track 1"]);
    }
    key(&mut a, KeyCode::Enter);
    assert!(matches!(a.screen(), Screen::Exercise(_)), "{}", a.screen().title());
    for (w, h) in SIZES {
        let s = draw(&mut a, w, h);
        assert!(s.contains("专题") || w < 80, "{w}x{h}:\n{s}");
        none_of(&s, &["your code (e edits it)", "not checked yet", "Taught in", "╭ check "]);
    }
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("你的代码") && s.contains("尚未检查") && s.contains("检查"), "{s}");

    // A check that fails, reported in Chinese.
    i18n::set(Lang::Zh);
    let spec = agentlab::exercises::spec("dr-grpo-advantages").unwrap();
    let report = agentlab::exercises::check(spec, "fn dr_grpo_advantages(rewards) { rewards }");
    let lines = report.lines().join("\n");
    assert!(lines.starts_with("未通过  dr-grpo-advantages："), "{lines}");
    assert!(lines.contains("第一个失败的用例") && lines.contains("期望：") && lines.contains("实际："), "{lines}");
    none_of(&lines, &["FAIL", "first failing case", "expected:", "got:"]);
    i18n::set(Lang::En);
    let en = report.lines().join("\n");
    assert!(en.starts_with("FAIL  dr-grpo-advantages: ") && en.contains("  got:      "), "{en}");
}

fn agentlab(args: &[&str], input: &str) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentlab"))
        .args(args)
        .env("AGENTLAB_HOME", home.path())
        .env_remove("AGENTLAB_LANG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn sheets_quiz_and_exercise_list_commands_in_chinese() {
    let sheets = agentlab(&["--lang", "zh", "sheets"], "");
    assert!(sheets.contains(" 节  ") && sheets.contains("道测验题"), "{sheets}");
    none_of(&sheets, &["sections", "quiz items"]);

    let quiz = agentlab(&["--lang", "zh", "quiz", "--track", "3", "--limit", "1"], "");
    assert!(quiz.contains("测验：专题 3 · 全部级别 · 1 道题"), "{quiz}");
    none_of(&quiz, &["quiz: track", "Answer each", "input ended", "score:"]);

    let list = agentlab(&["--lang", "zh", "exercise", "list"], "");
    assert!(list.contains("· 待做") && list.contains("已完成 0/"), "{list}");
    none_of(&list, &["pending", " done ·", "track "]);

    // English is unchanged.
    let en = agentlab(&["--lang", "en", "sheets"], "");
    assert!(en.contains(" sections ") && en.contains(" quiz items"), "{en}");
}
