//! The exercises in Chinese: a check's report (case names, why a script
//! failed), the script errors the learner reads, and `agentlab exercise
//! show|hint|check` — Chinese is shown and none of their English is left,
//! while `--json` and English output stay as they were.

mod common;

use std::process::{Command, Output};

use agentlab::content::Content;
use agentlab::exercises::{self, check};
use agentlab::i18n::{self, Lang};
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn has_han(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

fn none_of(text: &str, english: &[&str]) {
    for e in english {
        assert!(!text.contains(e), "English {e:?} left in the zh text:\n{text}");
    }
}

/// The English sentences of a report and of the checker's own messages.
const ENGLISH: &[&str] = &[
    "edge:",
    "random ",
    "FAIL",
    "PASS",
    "first failing case",
    "expected:",
    "got:",
    "compiling the script",
    "finding the function",
    "error:",
    "returned",
    "it must",
    "does not define",
    "parameter(s)",
    "line ",
    "after item",
    "the buffer holds",
    "streaming",
];

fn report(id: &str, source: &str) -> (exercises::CheckReport, String) {
    let r = check(exercises::spec(id).unwrap(), source);
    let text = r.lines().join("\n");
    (r, text)
}

#[test]
fn a_failing_case_and_why_in_chinese_and_english_unchanged() {
    i18n::set(Lang::Zh);
    let wrong = "fn dr_grpo_advantages(rewards) { rewards }";
    let (r, text) = report("dr-grpo-advantages", wrong);
    assert!(!r.passed);
    assert!(text.starts_with("未通过  dr-grpo-advantages："), "{text}");
    assert!(text.contains("第一个失败的用例：边界：只有一个答案的组"), "{text}");
    assert!(text.contains("  rewards = [0.7000]") && text.contains("期望：[0.0000]"), "{text}");
    none_of(&text, ENGLISH);

    // A wrong return type: our sentence around the value's description.
    let (_, text) = report("dr-grpo-advantages", "fn dr_grpo_advantages(rewards) { 0.5 }");
    assert!(text.contains("错误：dr_grpo_advantages 返回了一个浮点数；它必须返回数字数组"), "{text}");
    none_of(&text, ENGLISH);
    let (_, text) = report("dr-grpo-advantages", "fn dr_grpo_advantages(rewards) { [1.0, 2.0, 3.0, 4.0, 5.0] }");
    assert!(text.contains("返回了长度为 5 的数组；长度必须是 1"), "{text}");

    // A random case.
    let only_edges = "fn ppo_clip(r, a, e) { if e == 0.2 || e == 0.1 { \
        let c = if r > 1.0 + e { 1.0 + e } else if r < 1.0 - e { 1.0 - e } else { r }; \
        if r * a < c * a { r * a } else { c * a } } else { 0.0 } }";
    let (_, text) = report("ppo-clip", only_edges);
    assert!(text.contains("第一个失败的用例：随机 "), "{text}");
    none_of(&text, ENGLISH);

    // English is as it was.
    i18n::set(Lang::En);
    let (r, text) = report("dr-grpo-advantages", wrong);
    assert_eq!(r.failure.as_ref().unwrap().case, "edge: a group of one");
    assert!(
        text.starts_with("FAIL  dr-grpo-advantages: ") && text.contains("first failing case: edge: a group of one")
    );
    let (_, text) = report("dr-grpo-advantages", "fn dr_grpo_advantages(rewards) { 0.5 }");
    assert!(text.contains("  got:      error: dr_grpo_advantages returned a float; it must return an array of numbers"));
}

#[test]
fn script_errors_wrap_rhai_text_in_chinese() {
    i18n::set(Lang::Zh);
    // A syntax error: where, in Chinese; what, in Rhai's words.
    let (r, text) = report("ppo-clip", "fn ppo_clip(ratio, advantage, eps) { let = 1; }");
    let f = r.failure.unwrap();
    assert_eq!(f.case, "编译脚本");
    assert!(f.got.starts_with("第 1 行第 "), "{}", f.got);
    assert!(text.contains("实际："), "{text}");

    let (r, _) = report("ppo-clip", "fn ppo(ratio, advantage, eps) { 0.0 }");
    let f = r.failure.unwrap();
    assert_eq!(f.case, "查找函数");
    assert_eq!(f.got, "脚本没有定义带 3 个参数的 fn ppo_clip(…)");
    let (r, _) = report("ppo-clip", "fn ppo_clip(ratio) { 0.0 }");
    assert_eq!(r.failure.unwrap().got, "fn ppo_clip 有 1 个参数（ratio）；它必须有 3 个");

    // A runtime error keeps Rhai's message after our "line, column".
    let (r, _) = report("k3-kl", "fn k3_kl(logp, ref_logp) {\n  logp[100]\n}");
    let got = r.failure.unwrap().got;
    assert!(got.starts_with("错误：第 2 行第 "), "{got}");
    let (r, _) = report("k3-kl", "fn k3_kl(logp, ref_logp) { k3_kl(logp, ref_logp) }");
    assert!(r.failure.unwrap().got.contains("已停止：调用嵌套太深"));
    let (r, _) = report("k3-kl", "fn k3_kl(logp, ref_logp) { \"x\" }");
    assert!(r.failure.unwrap().got.contains("k3_kl 返回了一个 string 类型的值，既不是数字也不是数组"));
    i18n::set(Lang::En);
}

#[test]
fn every_shipped_mistake_fails_on_a_chinese_case_and_solutions_pass() {
    i18n::set(Lang::Zh);
    let content = Content::embedded().unwrap();
    for x in &content.exercises {
        let (r, text) = report(&x.id, &x.solution);
        assert!(r.passed, "{}:\n{text}", x.id);
        assert!(text.starts_with(&format!("通过  {}：全部 ", x.id)), "{text}");
        for m in &x.mistakes {
            let (r, text) = report(&x.id, &m.script);
            let f = r.failure.as_ref().unwrap();
            assert!(has_han(&f.case), "{} / {}: {}", x.id, m.name, f.case);
            none_of(&f.case, ENGLISH);
            assert!(!f.expected.is_empty() || has_han(&f.got), "{}: {text}", x.id);
            none_of(&format!("{}\n{}", f.expected, f.got), &["after item", "it must", "the buffer holds", "kept in"]);
        }
    }
    i18n::set(Lang::En);
}

fn run(home: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentlab"))
        .env("AGENTLAB_HOME", home)
        .env("AGENTLAB_LANG", "en")
        .args(args)
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn exercise_commands_in_chinese() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();

    let show = out(&run(h, &["--lang", "zh", "exercise", "show", "discounted-returns"]));
    assert!(show.contains(" · 专题 ") && show.contains(" · 练习 discounted-returns"), "{show}");
    assert!(show.contains("你的文件：") && show.contains("检查：agentlab exercise check discounted-returns"), "{show}");
    assert!(show.contains("用它训练：agentlab drill run turn-credit-assignment --use"), "{show}");
    assert!(show.contains("条提示") && show.contains("agentlab exercise hint discounted-returns [N]"), "{show}");
    none_of(&show, &["· track", "your file", "check it", "train with it", "hints in the TUI", "hint in the TUI"]);

    let hint = out(&run(h, &["--lang", "zh", "exercise", "hint", "ppo-clip", "1"]));
    assert!(hint.starts_with("提示 1/"), "{hint}");
    assert!(has_han(&hint) && !hint.contains("hint 1/"), "{hint}");

    // The stub fails; --review flags its quiz items.
    let o = run(h, &["--lang", "zh", "exercise", "check", "ppo-clip", "--review"]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    assert!(text.starts_with("正在检查 ") && text.contains("未通过  ppo-clip："), "{text}");
    assert!(text.contains("第一个失败的用例：边界：") && text.contains("已加入复习："), "{text}");
    none_of(&text, &["checking ", "FAIL", "first failing case", "edge:", "added to review"]);
    let o = run(h, &["--lang", "zh", "exercise", "check", "ppo-clip"]);
    assert!(out(&o).contains("卡住了？agentlab exercise hint ppo-clip 1"), "{}", out(&o));

    // A passing file, and what to do next.
    let dir = tempfile::tempdir().unwrap();
    let content = Content::embedded().unwrap();
    let good = dir.path().join("good.rhai");
    std::fs::write(&good, &content.exercise("discounted-returns").unwrap().solution).unwrap();
    let good = good.to_str().unwrap();
    let o = run(h, &["--lang", "zh", "exercise", "check", "discounted-returns", "--file", good]);
    assert_eq!(o.status.code(), Some(0));
    let text = out(&o);
    assert!(text.contains("通过  discounted-returns：") && text.contains("现在用它训练：agentlab drill run"), "{text}");
    none_of(&text, &["PASS", "now train with it"]);

    // Bad input, said in Chinese on stderr.
    let o = run(h, &["--lang", "zh", "exercise", "check", "no-such-exercise"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("没有练习“no-such-exercise”"), "{}", err(&o));
    let o = run(h, &["--lang", "zh", "exercise", "check", "ppo-clip", "--file", "/nonexistent.rhai"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("读取 /nonexistent.rhai"), "{}", err(&o));
    let r = dir.path().join("r.rhai");
    std::fs::write(&r, "fn reservoir_push(b, c, s, i) { b }").unwrap();
    let arg = format!("reservoir={}", r.display());
    let o = run(h, &["--lang", "zh", "drill", "run", "grpo-rlvr", "--use", &arg]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("练习 reservoir 用于演练 ewc-replay，不是 grpo-rlvr"), "{}", err(&o));
}

#[test]
fn json_stays_english_in_zh() {
    let home = tempfile::tempdir().unwrap();
    let o = run(home.path(), &["--lang", "zh", "exercise", "check", "ppo-clip", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["passed"], false);
    let case = v["failure"]["case"].as_str().unwrap();
    assert!(case.starts_with("edge: ") || case.starts_with("random ") || case == "finding the function", "{case}");
    assert!(!has_han(&String::from_utf8_lossy(&o.stdout)), "{}", out(&o));
}

/// The TUI in `lang`, on the discounted-returns exercise (opened from the
/// list as a learner would), and a key press.
fn discounted_returns_open_in(lang: Lang) -> (App, impl Fn(&mut App, KeyCode)) {
    common::isolated_home();
    let mut a = App::new(Content::embedded().unwrap());
    a.set_lang(lang).unwrap();
    common::screen_lines(&mut a, 80, 24);
    let key = |a: &mut App, code| {
        a.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    };
    key(&mut a, KeyCode::Char('e'));
    common::screen_lines(&mut a, 80, 24);
    let pos = a.content.exercises.iter().position(|x| x.id == "discounted-returns").unwrap();
    for _ in 0..pos {
        key(&mut a, KeyCode::Down);
    }
    key(&mut a, KeyCode::Enter);
    assert!(matches!(a.screen(), Screen::Exercise(x) if x.meta.id == "discounted-returns"), "{}", a.screen().title());
    (a, key)
}

#[test]
fn the_tui_check_reports_in_chinese_at_both_sizes() {
    let (mut a, key) = discounted_returns_open_in(Lang::Zh);
    // The stub returns an empty array; the check runs on its own thread, in zh.
    key(&mut a, KeyCode::Char('c'));
    common::settle(&mut a);
    for (w, h) in [(60, 16), (120, 40)] {
        let s = common::screen_lines(&mut a, w, h).join("\n");
        assert!(s.contains("未通过"), "{w}x{h}:\n{s}");
        none_of(&s, &["FAIL", "first failing", "edge:", "got:", "returned", "it must"]);
    }
    let s = common::screen_lines(&mut a, 120, 40).join("\n");
    let text: String = s.chars().filter(|c| !c.is_whitespace() && *c != '│').collect();
    assert!(text.contains("第一个失败的用例：边界：只有最后一步有奖励"), "{s}");
    assert!(text.contains("实际：错误：discounted_returns返回了长度为0的数组；长度必须是4"), "{s}");
    i18n::set(Lang::En);
}

/// A report already on screen is worded again when the learner switches
/// language, without counting as another check.
#[test]
fn a_report_on_screen_follows_a_language_switch() {
    let (mut a, key) = discounted_returns_open_in(Lang::En);
    key(&mut a, KeyCode::Char('c'));
    common::settle(&mut a);
    let s = common::screen_lines(&mut a, 120, 40).join("\n");
    assert!(s.contains("first failing"), "{s}");
    key(&mut a, KeyCode::F(2));
    common::settle(&mut a);
    let s = common::screen_lines(&mut a, 120, 40).join("\n");
    let text: String = s.chars().filter(|c| !c.is_whitespace() && *c != '│').collect();
    assert!(text.contains("第一个失败的用例"), "{s}");
    none_of(&s, &["first failing", "got:"]);
    // One check recorded, not two.
    assert_eq!(a.store.progress.exercises["discounted-returns"].checks, 1);
    i18n::set(Lang::En);
}
