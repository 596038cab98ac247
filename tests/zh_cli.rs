//! The headless commands in Chinese (`--lang zh`): drill list/show/run, the
//! study plan, review, progress, errors for bad input and `--help`: Chinese
//! is printed and none of their English labels is left.

use std::process::{Command, Output};

use unicode_width::UnicodeWidthStr;

fn agentlab(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentlab"));
    cmd.arg("--lang").arg("zh").args(args).env("AGENTLAB_HOME", home.path());
    for k in ["AGENTLAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"] {
        cmd.env_remove(k);
    }
    cmd.stdin(std::process::Stdio::null()).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// stdout of a command that succeeds.
fn ok(args: &[&str]) -> String {
    let o = agentlab(args);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{args:?}: {out}{err}");
    out
}

fn has_han(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

fn none_of(out: &str, english: &[&str]) {
    for e in english {
        assert!(!out.contains(e), "English {e:?} left in the zh output:\n{out}");
    }
}

#[test]
fn drill_list_and_show_in_chinese() {
    let out = ok(&["drill", "list"]);
    assert!(out.lines().all(|l| l.contains("专题 ") && has_han(l)), "{out}");
    none_of(&out, &[" track ", "not in this build"]);

    let out = ok(&["drill", "show", "dpo-pairs"]);
    for zh in ["专题 0 · ", "参数（quick 预设的取值）：", "预设：", "断言：", "可选："] {
        assert!(out.contains(zh), "{zh}:\n{out}");
    }
    none_of(&out, &["parameters", "presets:", "claims:", "one of ", "track 0", "(preset"]);
    // The parameters' ranges, which can be Chinese, are padded by display width.
    let digits = out.lines().find(|l| l.trim_start().starts_with("digits ")).unwrap();
    let help_at = digits.find("每个").unwrap();
    assert_eq!(digits[..help_at].width(), 2 + 17 + 11 + 19, "{digits}");

    let out = ok(&["drill", "show", "grpo-rlvr"]);
    assert!(out.contains("用你自己的函数训练（练习）：") && out.contains("你的 grpo_advantages（"), "{out}");
    none_of(&out, &["train with your own function", "your grpo"]);
}

#[test]
fn a_short_drill_run_in_chinese() {
    // Two steps: too short to learn, so the claims fail (exit 1), in a second.
    let o = agentlab(&["drill", "run", "sft-basics", "--set", "steps=2", "--set", "holdout=50"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.starts_with("▶ sft-basics · 预设 quick · 种子 1 · "), "{out}");
    assert!(out.contains("第 2/2 步") && out.contains("   断言 heldout_accuracy"), "{out}");
    let head = out.lines().find(|l| l.starts_with("断言 ")).expect(&out);
    let row = out.lines().find(|l| l.starts_with("heldout_accuracy ")).expect(&out);
    // The header's columns line up with the rows' by display width.
    assert_eq!(head[..head.find("阈值").unwrap()].width(), row[..row.find("0.95").unwrap()].width(), "{out}");
    assert!(out.contains("未通过") && out.contains("已保存到 "), "{out}");
    none_of(&out, &["preset", "seed ", "step ", "claim", "measured", "threshold", "result", "FAIL", "saved in"]);
}

#[test]
fn study_plan_review_and_progress_in_chinese() {
    let out = ok(&["study", "--plan"]);
    for zh in ["30 分钟学习：按顺序学各专题（已排 ", "学习路径（", "下一步：", "  1. ", " 分钟  ", " · 专题 0\n"]
    {
        assert!(out.contains(zh), "{zh}:\n{out}");
    }
    none_of(&out, &["session on", "Study paths", " min ", "next:", "track ", "no path"]);
    let out = ok(&["study", "--plan", "--track", "3"]);
    assert!(out.contains("学习：专题 3（"), "{out}");

    let out = ok(&["review"]);
    assert_eq!(out.trim(), "现在没有到期的题。");

    let out = ok(&["progress"]);
    for zh in ["掌握度 = ", "每周学习次数", "预测正确", "现已到期：", "每日评分", "期望记忆保持率 0.90 · 状态文件 "]
    {
        assert!(out.contains(zh), "{zh}:\n{out}");
    }
    none_of(
        &out,
        &["mastery", "study sessions", "due now", "next 7 days", "ratings per day", "none yet", "desired retention"],
    );
    none_of(&out, &["exercises", "drills", "predictions right", "state file", "(last "]);
    // The header's columns end where the rows' do, by display width.
    let lines: Vec<&str> = out.lines().collect();
    let head = lines.iter().position(|l| l.starts_with("专题 ")).unwrap();
    assert_eq!(lines[head].width(), lines[head + 1].width(), "{out}");
}

#[test]
fn bad_input_is_refused_in_chinese() {
    for (args, zh) in [
        (&["drill", "show", "nope"][..], "没有演练“nope”"),
        (&["drill", "run", "nope"][..], "没有演练“nope”"),
        (&["drill", "run", "sft-basics", "--set", "lr"][..], "--set 需要 key=value"),
        (&["drill", "run", "sft-basics", "--predict", "--json"][..], "不能与 --json 同用"),
        (&["study", "--plan", "--track", "zz"][..], "没有专题“zz”"),
        (&["quiz", "--track", "99"][..], "没有专题“99”"),
        (&["quiz", "--level", "L9"][..], "没有级别“L9”"),
        (&["sheet", "99"][..], "没有专题“99”"),
        (&["export", "/nonexistent-run"][..], "既不是运行目录"),
    ] {
        let o = agentlab(args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(zh), "{args:?}: {err}");
        none_of(&err, &["unknown", "expects", "does not go", "no track", "neither"]);
    }
}

#[test]
fn help_in_chinese() {
    let out = ok(&["--help"]);
    for zh in
        ["agentlab：在终端里学习 LLM 智能体后训练", "用法：agentlab", "命令：", "选项：", "列出速查表", "打印帮助"]
    {
        assert!(out.contains(zh), "{zh}:\n{out}");
    }
    none_of(
        &out,
        &[
            "Usage",
            "Commands:",
            "Options:",
            "命令:",
            "选项:",
            "Print help",
            "List the cheatsheets",
            "terminal learning lab",
        ],
    );

    let out = ok(&["drill", "--help"]);
    assert!(out.contains("无界面地列出、查看和运行演练") && out.contains("列出演练"), "{out}");
    none_of(&out, &["Usage", "List, describe", "List the drills", "Run a drill", "Print help", "Language of"]);

    let out = ok(&["drill", "run", "--help"]);
    assert!(out.contains("（默认：quick）") && out.contains("参数：") && out.contains("一个 ≥ 0 的整数"), "{out}");
    none_of(&out, &["[default:", "Arguments:", "参数:", "A whole number", "Override a parameter", "Print every event"]);

    // A flag that takes no text, and the one-line -h, speak Chinese too.
    let out = ok(&["study", "-h"]);
    assert!(out.contains("打印计划和各专题的下一步"), "{out}");
    none_of(&out, &["Print the plan", "Minutes the session"]);
}

#[test]
fn lang_equals_and_the_environment_choose_the_help_too() {
    let home = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_agentlab"))
        .args(["sheets", "--help"])
        .env("AGENTLAB_HOME", home.path())
        .env("AGENTLAB_LANG", "zh")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("列出速查表"), "{o:?}");
    let o = Command::new(env!("CARGO_BIN_EXE_agentlab"))
        .args(["--lang=zh", "sheets", "--help"])
        .env("AGENTLAB_HOME", home.path())
        .env_remove("AGENTLAB_LANG")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("列出速查表"), "{o:?}");
    // --lang en beats AGENTLAB_LANG=zh, and the English help is clap's own.
    let o = Command::new(env!("CARGO_BIN_EXE_agentlab"))
        .args(["--lang", "en", "sheets", "--help"])
        .env("AGENTLAB_HOME", home.path())
        .env("AGENTLAB_LANG", "zh")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("List the cheatsheets\n\nUsage: agentlab sheets [OPTIONS]"), "{out}");
}
