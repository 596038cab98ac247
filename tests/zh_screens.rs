//! Home, the reader, the study plan, Progress and Review drawn in Chinese at
//! 60x16 and 120x40: Chinese labels shown, none of the English ones left;
//! F2 switches a reader to English and back and keeps its section.

mod common;

use agentlab::content::{Content, Level};
use agentlab::i18n::Lang;
use agentlab::progress::{Rating, Store};
use agentlab::tui::screens::{reader, Screen};
use agentlab::tui::App;
use chrono::{DateTime, Duration, TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use common::isolated_home;

const SIZES: [(u16, u16); 2] = [(60, 16), (120, 40)];

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 4, 1, 9, 0, 0).unwrap()
}

/// An app in Chinese on its own temporary progress file, at a fixed time.
fn zh_app(dir: &std::path::Path) -> App {
    isolated_home();
    let store = Store::open(&dir.join("progress.json"), t0());
    let mut a = App::with_store(Content::embedded().unwrap(), store);
    a.now_override = Some(t0());
    a.set_lang(Lang::Zh).expect("the content has a zh translation");
    a.refresh_summary();
    // Drawn once, as the event loop does before any key.
    draw(&mut a, 120, 40);
    a
}

fn draw(app: &mut App, w: u16, h: u16) -> Vec<String> {
    common::screen_lines(app, w, h)
}

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn has_han(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// `screen` holds every one of `want` and none of `english`.
fn check(screen: &str, want: &[&str], english: &[&str], what: &str) {
    for w in want {
        assert!(screen.contains(w), "{what}: {w:?} missing:\n{screen}");
    }
    for e in english {
        assert!(!screen.contains(e), "{what}: English {e:?} left:\n{screen}");
    }
}

/// The footer's global hints and the breadcrumb are Chinese at every size.
fn frame_is_chinese(lines: &[String], what: &str) {
    let footer = lines.last().unwrap();
    assert!(footer.contains("帮助") && footer.contains("退出"), "{what}: footer {footer:?}");
    assert!(!footer.contains("help") && !footer.contains("quit"), "{what}: footer {footer:?}");
    assert!(has_han(&lines[0]), "{what}: header {:?}", lines[0]);
}

#[test]
fn home_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = zh_app(dir.path());
    for (w, h) in SIZES {
        let lines = draw(&mut a, w, h);
        let s = lines.join("\n");
        frame_is_chinese(&lines, "home");
        check(&s, &["首页", "专题 · 掌握度", "演练"], &["Tracks", "Drills", "Home", "% mastered"], "home");
        if w >= 120 {
            check(
                &s,
                &["详情", "专题 0", "下一步（n）", "分钟", "测验：", "Enter 阅读速查表"],
                &["Details", "Next step", "Cheatsheet:", "Quiz:", "Mastery:", "Enter reads", "Path:"],
                "home details",
            );
        }
    }
    // A drill's details.
    key(&mut a, KeyCode::Tab);
    let s = draw(&mut a, 120, 40).join("\n");
    check(&s, &["条断言", "个参数", "下一步：Enter 打开演练"], &["claims", "parameters", "Next: Enter"], "drill");
    // The help overlay.
    key(&mut a, KeyCode::Char('?'));
    let s = draw(&mut a, 120, 40).join("\n");
    check(&s, &["首页按键", "全局", "帮助 — Esc 关闭"], &["Home keys", "Everywhere", "Esc to close"], "help");
}

#[test]
fn a_sheet_in_the_reader_in_chinese_and_f2_keeps_the_section() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = zh_app(dir.path());
    let zh = reader::State::for_track(&a.content, 3, None).unwrap();
    let slug = zh.headings()[4].slug.clone();
    let title_zh = zh.headings()[4].title.clone();
    assert!(has_han(&title_zh), "a zh heading: {title_zh}");
    a.stack.push(Screen::Reader(Box::new(reader::State::for_track(&a.content, 3, Some(&slug)).unwrap())));
    for (w, h) in SIZES {
        let lines = draw(&mut a, w, h);
        let s = lines.join("\n");
        frame_is_chinese(&lines, "reader");
        check(&s, &["首页", "滚动"], &[], "reader");
        check(&lines[0], &[], &["Home"], "reader header");
        check(lines.last().unwrap(), &[], &["scroll", "links", "search", "back"], "reader footer");
        if w >= 120 {
            check(&s, &["目录", &title_zh], &["Contents"], "reader at 120x40");
        }
    }
    let section = |a: &App| match a.stack.last() {
        Some(Screen::Reader(r)) => r.current_heading().map(|i| r.headings()[i].slug.clone()),
        _ => panic!("the reader is on top"),
    };
    assert_eq!(section(&a).as_deref(), Some(slug.as_str()));
    // a search that finds nothing says so in Chinese
    key(&mut a, KeyCode::Char('/'));
    for c in "zzqqxx".chars() {
        key(&mut a, KeyCode::Char(c));
    }
    key(&mut a, KeyCode::Enter);
    let s = draw(&mut a, 120, 40).join("\n");
    check(&s, &["没有找到“zzqqxx”"], &["no match"], "search");

    // F2: English, same section; F2 again: Chinese, same section.
    key(&mut a, KeyCode::F(2));
    let lines = draw(&mut a, 120, 40);
    let s = lines.join("\n");
    assert!(s.contains("Language: English"), "{s}");
    assert!(s.contains("Home") && s.contains("Contents"), "English after F2:\n{s}");
    assert!(!s.contains("目录") && !lines[0].contains("首页"), "{s}");
    assert_eq!(section(&a).as_deref(), Some(slug.as_str()), "F2 keeps the section");
    key(&mut a, KeyCode::F(2));
    let s = draw(&mut a, 120, 40).join("\n");
    assert!(s.contains("语言：中文") && s.contains("目录") && s.contains(&title_zh), "{s}");
    assert_eq!(section(&a).as_deref(), Some(slug.as_str()), "F2 back keeps the section");
    for (w, h) in SIZES {
        let lines = draw(&mut a, w, h);
        assert!(lines[0].contains("首页"), "header after F2 twice: {:?}", lines[0]);
    }
}

#[test]
fn the_study_plan_and_its_summary_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = zh_app(dir.path());
    key(&mut a, KeyCode::Char('S'));
    for (w, h) in SIZES {
        let lines = draw(&mut a, w, h);
        let s = lines.join("\n");
        frame_is_chinese(&lines, "study plan");
        check(&s, &["学习 · 计划", "专题 0", "分钟"], &["Study session", " min on ", "planned"], "study plan");
        if w >= 120 {
            check(&s, &["阅读 §", "Enter 开始"], &["Read §", "Enter starts", "change the minutes"], "plan at 120x40");
        }
    }
    // Start, then end at once: the summary.
    key(&mut a, KeyCode::Enter);
    while !matches!(a.stack.last(), Some(Screen::Study(_))) {
        key(&mut a, KeyCode::Esc);
    }
    let s = draw(&mut a, 120, 40).join("\n");
    assert!(s.contains("学习 · 第 1/"), "going:\n{s}");
    key(&mut a, KeyCode::Char('x'));
    for (w, h) in SIZES {
        let lines = draw(&mut a, w, h);
        let s = lines.join("\n");
        frame_is_chinese(&lines, "study summary");
        check(&s, &["学习 · 总结", "学习结束"], &["Session over", "Steps:", "summary"], "study summary");
        if w >= 120 {
            check(&s, &["步骤：", "已存入进度"], &["Drills run", "Predictions:", "Saved to"], "summary at 120x40");
        }
    }
}

#[test]
fn progress_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = zh_app(dir.path());
    let ids: Vec<String> =
        a.content.items().filter(|i| i.track == 3 && i.level == Level::L1).take(2).map(|i| i.id.clone()).collect();
    a.store.record(&ids[0], 3, Level::L1, Some(true), Rating::Know, t0() - Duration::hours(2)).unwrap();
    a.store.record(&ids[1], 3, Level::L1, Some(false), Rating::Dont, t0() - Duration::days(1)).unwrap();
    a.refresh_summary();
    key(&mut a, KeyCode::Char('p'));
    for (w, h) in SIZES {
        let lines = draw(&mut a, w, h);
        let s = lines.join("\n");
        frame_is_chinese(&lines, "progress");
        check(&s, &["进度", "掌握度", "专题"], &["Progress", "Mastery", "track "], "progress");
        if w >= 120 {
            check(
                &s,
                &["L1 概念", "到期", "现在到期：", "未来 7 天：", "每日评分", "目标保持率 0.90"],
                &["concept", "Due now", "Next 7 days", "Ratings per day", "Desired retention", "Study sessions"],
                "progress at 120x40",
            );
        }
    }
}

#[test]
fn review_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = zh_app(dir.path());
    // Nothing due: the empty review.
    key(&mut a, KeyCode::Char('r'));
    for (w, h) in SIZES {
        let lines = draw(&mut a, w, h);
        let s = lines.join("\n");
        frame_is_chinese(&lines, "empty review");
        check(&s, &["复习", "现在没有到期的题。"], &["Review", "Nothing is due"], "empty review");
        if w >= 120 {
            check(&s, &["目标保持率 0.90"], &["Desired retention", "No ⚠/❌ item"], "empty review at 120x40");
        }
    }
    key(&mut a, KeyCode::Esc);
    // Two items due.
    let ids: Vec<String> =
        a.content.items().filter(|i| i.track == 3 && i.level == Level::L1).take(2).map(|i| i.id.clone()).collect();
    for id in &ids {
        a.store.record(id, 3, Level::L1, Some(true), Rating::Know, t0() - Duration::days(10)).unwrap();
    }
    a.refresh_summary();
    let s = draw(&mut a, 120, 40).join("\n");
    check(&s, &["2 题待复习（r）", "2 到期"], &["due for review", " due"], "home with items due");
    key(&mut a, KeyCode::Char('r'));
    for (w, h) in SIZES {
        let lines = draw(&mut a, w, h);
        let s = lines.join("\n");
        frame_is_chinese(&lines, "review");
        check(&s, &["复习 1/2"], &["review 1/2"], "review");
        if w >= 120 {
            check(&s, &["已到期", "专题 3", "保持率 0.90"], &["due now", "track 3", "retention"], "review at 120x40");
        }
    }
}

#[test]
fn a_terminal_too_small_says_so_in_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = zh_app(dir.path());
    let s = draw(&mut a, 40, 10).join("\n");
    assert!(s.contains("终端太小") && !s.contains("Terminal too small"), "{s}");
}
