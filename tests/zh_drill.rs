//! The drill screen in Chinese: its tabs, panes, claims, config, gauge,
//! past runs and sweep tab speak zh (no training: a saved run is read from
//! disk), and F2 brings the English back.

mod common;

use std::path::Path;

use agentlab::content::Content;
use agentlab::drills::{ClaimResult, Report, RunStatus};
use agentlab::i18n::Lang;
use agentlab::progress::Store;
use agentlab::tui::screens::{drill, Screen};
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// An app in `lang` with sft-basics' drill screen on top (runs under `dir`).
fn app_on_drill(dir: &Path, lang: Lang) -> App {
    common::isolated_home();
    let store = Store::open(&dir.join("progress.json"), chrono::Utc::now());
    let mut a = App::with_store(Content::embedded().unwrap(), store);
    a.set_lang(lang).expect("the content has a zh translation");
    a.runs_root = dir.join("runs");
    a.sweeps_root = dir.join("sweeps");
    let meta = a.content.drill("sft-basics").expect("sft-basics").clone();
    let s = drill::State::new(&meta, a.runs_root.clone(), a.sweeps_root.clone(), a.device);
    a.stack.push(Screen::Drill(Box::new(s)));
    common::settle(&mut a);
    a
}

fn key(a: &mut App, c: char) {
    a.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
}

fn text(a: &mut App, w: u16, h: u16) -> String {
    common::screen_lines(a, w, h).join("\n")
}

/// No English label of the drill screen's own is left on `screen` (the
/// footer's key hints are translated elsewhere and are not looked at).
fn no_english(screen: &str, labels: &[&str]) {
    let body: Vec<&str> = screen.lines().collect();
    let body = body[..body.len().saturating_sub(1)].join("\n");
    for l in labels {
        assert!(!body.contains(l), "English \"{l}\" left on the zh screen:\n{screen}");
    }
}

#[test]
fn a_drill_without_runs_is_drawn_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app_on_drill(dir.path(), Lang::Zh);
    let big = text(&mut a, 120, 40);
    for zh in
        ["1 图表", "2 视图", "3 日志", "4 运行", "5 扫描", "断言", "配置 · quick", "种子", "扫描种子数", "尚无运行"]
    {
        assert!(big.contains(zh), "no \"{zh}\" in:\n{big}");
    }
    // The predictions are not answered yet: the claims are hidden, in Chinese.
    assert!(big.contains("○ 断言 1") && !big.contains("待测"), "claims hidden before predictions:\n{big}");
    no_english(&big, &["hidden until", "claim 1"]);
    if let Some(Screen::Drill(d)) = a.stack.last_mut() {
        for p in d.meta.predictions.clone() {
            d.skipped.insert(("quick".into(), p.id));
        }
    }
    let big = text(&mut a, 120, 40);
    assert!(big.contains("待测"), "a claim not yet measured is 待测:\n{big}");
    assert!(big.contains("空闲 · 按 s 开始运行"), "{big}");
    no_english(&big, &["Charts", "Claims", "Config", "no run yet", "idle", "pending", "sweep seeds", "No run yet"]);
    let small = text(&mut a, 60, 16);
    assert!(small.contains("配置") && small.contains("图表"), "{small}");
    no_english(&small, &["Charts", "Config", "Claims", "idle"]);
    // The Sweep tab before any sweep says what a sweep is.
    key(&mut a, '5');
    let sweep = text(&mut a, 120, 40);
    assert!(sweep.contains("种子扫描会用种子 1–20"), "{sweep}");
    no_english(&sweep, &["A sweep runs", "Sweep "]);
    key(&mut a, '4');
    let runs = text(&mut a, 120, 40);
    assert!(runs.contains("这个演练还没有保存的运行。"), "{runs}");
    let small = text(&mut a, 60, 16);
    assert!(small.contains("运行"), "{small}");
}

#[test]
fn a_saved_run_its_claims_and_the_runs_table_are_in_chinese_and_f2_switches_back() {
    let dir = tempfile::tempdir().unwrap();
    let meta = Content::embedded().unwrap().drill("sft-basics").unwrap().clone();
    let claims: Vec<ClaimResult> = meta
        .claims
        .iter()
        .map(|c| ClaimResult {
            id: c.id.clone(),
            text: c.text.clone(),
            measured: 0.25,
            op: c.op,
            threshold: c.threshold,
            pass: false,
            observation: c.observation,
        })
        .collect();
    let report = Report {
        drill: "sft-basics".into(),
        preset: "quick".into(),
        seed: 1,
        status: RunStatus::ClaimsFailed,
        claims,
        wall_s: 12.0,
        finals: Default::default(),
    };
    common::saved_run(&dir.path().join("runs"), "2026-11-24T09-00-00", 5, 5, Some(report));
    let mut a = app_on_drill(dir.path(), Lang::Zh);
    let big = text(&mut a, 120, 40);
    assert!(big.contains("上次运行：2026-11-24 09:00"), "{big}");
    assert!(big.contains("条断言未通过"), "{big}");
    assert!(big.contains("各断言的说明见其 ✗ 下方") || big.contains("用时 12.0 秒完成"), "{big}");
    assert!(big.contains("第 1/1 页"), "the charts' settings line: {big}");
    no_english(&big, &["last run", "claims failed", "claim failed", "why under", "page 1/1", "grey ="]);
    let small = text(&mut a, 60, 16);
    no_english(&small, &["last run", "Charts", "Claims"]);
    // The past runs, in a table with Chinese headers.
    key(&mut a, '4');
    let runs = text(&mut a, 120, 40);
    for zh in ["运行（↑↓ 选择，Enter 打开）", "预设", "状态", "断言未通过", "用时"] {
        assert!(runs.contains(zh), "no \"{zh}\" in:\n{runs}");
    }
    no_english(&runs, &["Runs (", "status", "claim failed", "preset "]);
    // The log's title.
    key(&mut a, '3');
    let log = text(&mut a, 120, 40);
    assert!(log.contains("日志（1 行，跟随中）"), "{log}");
    no_english(&log, &["following", "Log ("]);
    // F2: the same screen in English again.
    a.on_key(KeyEvent::new(KeyCode::F(2), KeyModifiers::NONE));
    let en = text(&mut a, 120, 40);
    assert!(en.contains("1 Charts") && en.contains("Log ("), "{en}");
    agentlab::i18n::set(Lang::En);
}

/// A value a learner types that a parameter refuses, and a set of values
/// that breaks a drill's own rule between its parameters, are explained in
/// the learner's language; the English stays as it was.
#[test]
fn refused_parameter_values_are_explained_in_chinese() {
    use agentlab::runner::resolve_params;
    let content = Content::embedded().unwrap().localized(Lang::Zh);
    let set = |kv: &[(&str, &str)]| -> Vec<(String, String)> {
        kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    };
    // (drill, --set values, the Chinese it says, the English it says)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str, &'a str);
    let cases: &[Case] = &[
        ("sft-basics", &[("steps", "abc")], "“abc”不是整数（steps 的范围是", "is not a whole number (steps takes"),
        ("sft-basics", &[("lr", "x")], "不是数", "is not a number"),
        ("sft-basics", &[("steps", "0")], "低于最小值", "is below the minimum"),
        ("sft-basics", &[("n_heads", "3")], "必须整除", "must divide"),
        ("dpo-pairs", &[("beta_compare", "0.1"), ("beta", "0.1")], "必须不同于", "must differ from"),
        ("pass-at-k-harness", &[("temp_low", "1.0"), ("temp_high", "0.5")], "必须低于", "must be below"),
        ("grpo-rlvr", &[("max_new", "2")], "必须容得下", "must leave room"),
    ];
    for (id, kv, zh, en) in cases {
        let meta = content.drill(id).unwrap();
        agentlab::i18n::set(Lang::Zh);
        let e = resolve_params(meta, "quick", &set(kv)).expect_err("refused");
        assert!(e.contains(zh) && !e.contains(en), "{id} {kv:?}: {e}");
        agentlab::i18n::set(Lang::En);
        let e = resolve_params(meta, "quick", &set(kv)).expect_err("refused");
        assert!(e.contains(en), "{id} {kv:?}: {e}");
    }
    agentlab::i18n::set(Lang::Zh);
    let e = agentlab::runner::sweep::parse_seeds("1-x").unwrap_err();
    assert!(e.contains("应为 ≥ 0 的整数") && e.contains("“x”"), "{e}");
    agentlab::i18n::set(Lang::En);
    assert_eq!(
        agentlab::runner::sweep::parse_seeds("1-x").unwrap_err(),
        "seeds: a seed is a whole number ≥ 0, got \"x\""
    );
}
