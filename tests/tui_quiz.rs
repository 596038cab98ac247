//! The Quiz and Review screens in ratatui's TestBackend: numeric answers
//! (fractions), the ratings offered after a wrong answer, the result that adds
//! up and lists the missed items, and `r` for Review everywhere.

mod common;

use agentlab::content::{Answer, Content, QuizItem};
use agentlab::progress::{Rating, Store};
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use chrono::{DateTime, TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn isolated_home() {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        std::env::set_var("AGENTLAB_HOME", d.path());
        d
    });
}

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 4, 1, 9, 0, 0).unwrap()
}

/// An app on its own temporary progress file, at a fixed time.
fn study_app(dir: &std::path::Path) -> App {
    isolated_home();
    let store = Store::open(&dir.join("progress.json"), t0());
    let mut a = App::with_store(Content::embedded().unwrap(), store);
    a.now_override = Some(t0());
    a.refresh_summary();
    draw(&mut a, 120, 40);
    a
}

fn draw(app: &mut App, w: u16, h: u16) -> String {
    common::screen_lines(app, w, h).join("\n")
}

fn footer(app: &mut App, w: u16, h: u16) -> String {
    common::screen_lines(app, w, h).pop().unwrap()
}

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn keys(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

use common::quiz_over;

/// The item on the Quiz or Review screen, as shown (its choices shuffled).
fn on_screen(a: &App) -> QuizItem {
    let q = match a.stack.last() {
        Some(Screen::Quiz(s)) => s.question.as_ref(),
        Some(Screen::Review(s)) => s.question.as_ref(),
        _ => None,
    };
    q.expect("a question on screen").item.clone()
}

/// The right letter of the single-answer choice item on screen.
fn right(a: &App) -> String {
    match on_screen(a).answer {
        Answer::Choice { correct, .. } => ((b'a' + correct[0] as u8) as char).to_string(),
        _ => panic!("not a choice item"),
    }
}

/// A wrong letter of the single-answer choice item on screen.
fn wrong(a: &App) -> String {
    match on_screen(a).answer {
        Answer::Choice { correct, .. } => (if correct[0] == 0 { "b" } else { "a" }).to_string(),
        _ => panic!("not a choice item"),
    }
}

/// Single-answer choice items of track 3: (item, its right letter, a wrong letter).
fn choice_items(content: &Content, n: usize) -> Vec<(QuizItem, char, char)> {
    content
        .items()
        .filter(|i| i.track == 3)
        .filter_map(|i| match &i.answer {
            Answer::Choice { correct, .. } if correct.len() == 1 => {
                let right = (b'a' + correct[0] as u8) as char;
                let wrong = if correct[0] == 0 { 'b' } else { 'a' };
                Some((i.clone(), right, wrong))
            }
            _ => None,
        })
        .take(n)
        .collect()
}

#[test]
fn a_fraction_is_its_value_and_a_refused_key_says_why_until_the_answer_changes() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path());
    let num = a.content.items().find(|i| matches!(i.answer, Answer::Numeric { .. })).unwrap().clone();
    quiz_over(&mut a, &[&num.id]);
    // "1/16" is typed as it is, not as "116".
    keys(&mut a, "1/16");
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Your answer: 1/16█"), "{s}");
    // A key that is not part of a number is refused with the reason, which
    // stays on screen while the learner types on.
    keys(&mut a, "x2");
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Your answer: 1/162█"), "{s}");
    assert!(s.contains("only a number: 'x' refused") && s.contains("fraction such as 1/16"), "{s}");
    key(&mut a, KeyCode::Backspace);
    let s = draw(&mut a, 120, 40);
    assert!(!s.contains("only a number"), "{s}");
    // 1/0 is refused with its reason; the item is still being answered.
    for _ in 0..3 {
        key(&mut a, KeyCode::Backspace);
    }
    keys(&mut a, "/0");
    key(&mut a, KeyCode::Enter);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("\"1/0\" divides by 0") && s.contains("Your answer: 1/0█"), "{s}");
    key(&mut a, KeyCode::Backspace);
    keys(&mut a, "16");
    key(&mut a, KeyCode::Enter);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Your answer: 1/16 = 0.0625") && s.contains("Expected:"), "{s}");
}

#[test]
fn after_a_wrong_answer_only_fuzzy_and_dont_are_offered() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path());
    let items = choice_items(&a.content, 2);
    quiz_over(&mut a, &[&items[0].0.id, &items[1].0.id]);
    // Right: all three ratings.
    let k = right(&a);
    keys(&mut a, &k);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains(" 1  ✅ know") && s.contains(" 2  ⚠ fuzzy"), "{s}");
    assert!(footer(&mut a, 120, 40).contains("1 2 3  rate ✅ ⚠ ❌"), "{}", footer(&mut a, 120, 40));
    key(&mut a, KeyCode::Char('1'));
    // Wrong: ✅ is not offered, in the rating line nor in the footer.
    let k = wrong(&a);
    keys(&mut a, &k);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("✗ Not quite"), "{s}");
    assert!(!s.contains("✅ know"), "✅ offered after a wrong answer:\n{s}");
    assert!(s.contains(" 2  ⚠ fuzzy") && s.contains(" 3  ❌ don't") && s.contains("(wrong: no ✅)"), "{s}");
    let f = footer(&mut a, 120, 40);
    assert!(f.contains("2 3  rate ⚠ or ❌") && !f.contains("1 2 3"), "{f}");
    // Still refused with its reason when typed anyway.
    key(&mut a, KeyCode::Char('1'));
    assert!(draw(&mut a, 120, 40).contains("cannot be ✅"));
}

#[test]
fn the_result_adds_up_lists_the_missed_items_and_reopens_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path());
    let items = choice_items(&a.content, 3);
    let ids: Vec<&str> = items.iter().map(|x| x.0.id.as_str()).collect();
    quiz_over(&mut a, &ids);
    // 1: right ✅; 2: wrong ❌; 3: right but ⚠.
    for (right_or_wrong, rating) in [(true, "1"), (false, "3"), (true, "2")] {
        let letter = if right_or_wrong { right(&a) } else { wrong(&a) };
        keys(&mut a, &format!("{letter}{rating}"));
    }
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Auto-graded: 2/3 correct on the first pass"), "{s}");
    assert!(s.contains("First pass: 3 items · ✅ 1 know · ⚠ 1 fuzzy · ❌ 1 don't"), "{s}");
    assert!(s.contains("3 ratings saved"), "{s}");
    assert!(s.contains("Missed on the first pass (2)"), "{s}");
    let prompt = |k: usize| items[k].0.prompt.lines().next().unwrap().chars().take(40).collect::<String>();
    assert!(s.contains(&prompt(1)) && s.contains(&prompt(2)) && !s.contains(&prompt(0)), "{s}");
    let f = footer(&mut a, 120, 40);
    assert!(f.contains("Enter  reopen") && f.contains("a  again") && f.contains("r  review"), "{f}");
    // a: a second pass over the two, both ✅ now.
    key(&mut a, KeyCode::Char('a'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("item 1/2") && s.contains("pass 2"), "{s}");
    for _ in 0..2 {
        let k = format!("{}1", right(&a));
        keys(&mut a, &k);
    }
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("First pass: 3 items · ✅ 1 know · ⚠ 1 fuzzy · ❌ 1 don't"), "{s}");
    assert!(s.contains("Pass 2 (⚠/❌ again): 2 items · ✅ 2 know · ⚠ 0 fuzzy · ❌ 0 don't"), "{s}");
    assert!(s.contains("3 items in all, 5 ratings saved"), "{s}");
    assert!(s.contains("Missed on the first pass (2)") && s.contains("now ✅"), "{s}");
    // Enter reopens the selected missed item: the answer given, why, the rating it got.
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Enter);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("missed item") && s.contains(&prompt(2)), "{s}");
    assert!(s.contains("✓ Correct") && s.contains("Why") && s.contains("You rated it ⚠ fuzzy"), "{s}");
    // Read-only: a rating key changes nothing; Esc goes back to the result.
    key(&mut a, KeyCode::Char('1'));
    assert_eq!(a.store.progress.items[&items[2].0.id].last_rating(), Some(Rating::Know));
    key(&mut a, KeyCode::Esc);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Quiz done") && s.contains("Missed on the first pass"), "{s}");
    key(&mut a, KeyCode::Up);
    key(&mut a, KeyCode::Enter);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains(&prompt(1)) && s.contains("✗ Not quite") && s.contains("You rated it ❌ don't"), "{s}");
    key(&mut a, KeyCode::Esc);
    // At 60×16 the result still shows its counts and the missed items.
    let s = draw(&mut a, 60, 16);
    assert!(s.contains("First pass") && s.contains("Missed"), "{s}");
    // r opens Review, as on Home; v says so.
    key(&mut a, KeyCode::Char('v'));
    assert!(a.flash.as_deref().unwrap_or("").contains("Review is r"), "{:?}", a.flash);
    key(&mut a, KeyCode::Char('r'));
    assert!(matches!(a.screen(), Screen::Review(_)), "{}", a.screen().title());
}

#[test]
fn r_is_review_on_home_and_the_result_and_the_help_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path());
    key(&mut a, KeyCode::Char('r'));
    assert!(matches!(a.screen(), Screen::Review(_)));
    key(&mut a, KeyCode::Esc);
    let items = choice_items(&a.content, 1);
    quiz_over(&mut a, &[&items[0].0.id]);
    let k = format!("{}1", right(&a));
    keys(&mut a, &k);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("1 item · ✅ 1 know") && s.contains("1 rating saved"), "singulars:\n{s}");
    assert!(s.contains("No item missed"), "{s}");
    key(&mut a, KeyCode::Char('?'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("open Review (r, as on Home)") && s.contains("go over the ⚠/❌ items again"), "{s}");
}

#[test]
fn review_done_counts_items_and_ratings_apart() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path());
    let items = choice_items(&a.content, 2);
    let earlier = t0() - chrono::Duration::days(30);
    for (i, _, _) in &items {
        a.store.record(&i.id, i.track, i.level, Some(true), Rating::Know, earlier).unwrap();
    }
    key(&mut a, KeyCode::Char('r'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("review 1/2"), "{s}");
    // First ⚠, second ✅; pass 2 brings the first back, ✅.
    for rating in ["2", "1", "1"] {
        let k = format!("{}{rating}", right(&a));
        keys(&mut a, &k);
    }
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Done: 2 items reviewed, 3 ratings"), "{s}");
    assert!(s.contains("First pass: 2 items · ✅ 1 know · ⚠ 1 fuzzy · ❌ 0 don't"), "{s}");
    assert!(s.contains("Pass 2 (⚠/❌ again): 1 item · ✅ 1 know"), "{s}");
}

/// A formula in an item's choices and explanation reads as math (σ, −log),
/// never as the LaTeX it is written in.
#[test]
fn formulas_in_choices_and_explanations_are_drawn_as_unicode() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path());
    quiz_over(&mut a, &["pre-l1-bradley-terry"]);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("a) σ(r") && !s.contains("\\sigma") && !s.contains('$'), "{s}");
    keys(&mut a, "d");
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("as σ(r") && !s.contains("\\sigma") && !s.contains("\\log"), "{s}");
}

/// A choice item comes back in review with its options in another order
/// than in the quiz: the right letter moved, the key followed its choice,
/// and answering the new letter is graded right.
#[test]
fn review_shows_the_options_shuffled_and_the_key_follows() {
    use agentlab::progress::grade;
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path());
    // One whose choices are plain text (no math or code marks), to find on screen as written.
    let item = choice_items(&a.content, 200)
        .into_iter()
        .map(|x| x.0)
        .find(|i| matches!(&i.answer, Answer::Choice { choices, .. } if choices.iter().all(|c| !c.contains(['$', '`', '*', '\\']))))
        .expect("a plain choice item on track 3");
    let key_text = |q: &QuizItem| match &q.answer {
        Answer::Choice { choices, correct } => (correct[0], choices[correct[0]].clone()),
        _ => unreachable!(),
    };
    // In the quiz (the first showing) it was answered.
    let in_quiz = grade::shown(&item, 0);
    let earlier = t0() - chrono::Duration::days(30);
    a.store.record(&item.id, item.track, item.level, Some(true), Rating::Know, earlier).unwrap();
    key(&mut a, KeyCode::Char('r'));
    let in_review = on_screen(&a);
    let (quiz_letter, quiz_text) = key_text(&in_quiz);
    let (review_letter, review_text) = key_text(&in_review);
    assert_eq!(quiz_text, review_text, "the key is the same choice");
    assert_ne!(quiz_letter, review_letter, "…under another letter");
    let s = draw(&mut a, 120, 40);
    let shown =
        format!("{}) {}", (b'a' + review_letter as u8) as char, review_text.chars().take(12).collect::<String>());
    assert!(s.contains(&shown), "{shown}:\n{s}");
    let k = right(&a);
    keys(&mut a, &k);
    assert!(draw(&mut a, 120, 40).contains("✓ Correct"));
}

/// A templated numeric item comes back in review with fresh inputs: the
/// prompt shows other numbers than the authored ones, the answer recomputed
/// from them by the lab's code is graded right, and the authored answer
/// (which no longer fits) is graded wrong; the explanation shows the worked
/// computation with the drawn numbers.
#[test]
fn a_templated_numeric_item_in_review_asks_other_numbers_and_grades_the_recomputed_answer() {
    let id = "arl-l2-return";
    let answer_in_review = |typed: Option<&str>| -> (QuizItem, String) {
        let dir = tempfile::tempdir().unwrap();
        let mut a = study_app(dir.path());
        let item = a.content.items().find(|i| i.id == id).expect("the templated item").clone();
        let earlier = t0() - chrono::Duration::days(30);
        a.store.record(&item.id, item.track, item.level, Some(true), Rating::Know, earlier).unwrap();
        key(&mut a, KeyCode::Char('r'));
        let shown = on_screen(&a);
        assert_eq!(shown.id, id);
        let Answer::Numeric { value, .. } = shown.answer else { panic!("numeric") };
        let typed = typed.map_or_else(|| value.to_string(), str::to_string);
        keys(&mut a, &typed);
        key(&mut a, KeyCode::Enter);
        (shown, draw(&mut a, 120, 40))
    };
    let (shown, right) = answer_in_review(None);
    let authored = Content::embedded().unwrap().items().find(|i| i.id == id).unwrap().clone();
    let (Answer::Numeric { value, tolerance }, Answer::Numeric { value: authored_value, .. }) =
        (&shown.answer, &authored.answer)
    else {
        panic!("numeric")
    };
    assert_ne!(shown.prompt, authored.prompt, "other numbers than the authored ones");
    // The value graded against is the lab's own recomputation from the drawn inputs.
    let code = agentlab::content::recompute::compute(shown.check.as_ref().unwrap()).unwrap();
    assert!((code - value).abs() <= *tolerance, "{code} vs {value}");
    let rewards = shown.check.as_ref().unwrap()["rewards"].as_array().unwrap().clone();
    let first = rewards[0].as_float().unwrap();
    let on_screen_number = agentlab::content::template::show(first, 1);
    assert!(right.contains(&on_screen_number), "{on_screen_number}:\n{right}");
    assert!(right.contains("✓ Correct"), "{right}");
    // As the explanation writes a computed number: trailing zeros dropped (1.25, not 1.250).
    let shown_value =
        agentlab::content::template::show(*value, 3).trim_end_matches('0').trim_end_matches('.').to_string();
    assert!(shown.explanation.contains("G_0 = r_0 + "), "{}", shown.explanation);
    assert!(shown.explanation.contains(&format!("= {shown_value} (rewards [")), "{}", shown.explanation);
    assert!(right.contains(&shown_value), "the worked explanation shows the recomputed answer:\n{right}");
    assert!(
        (value - authored_value).abs() > *tolerance,
        "this showing's answer differs from the authored {authored_value}"
    );
    let (_, wrong) = answer_in_review(Some(&authored_value.to_string()));
    assert!(wrong.contains("✗ Not quite"), "the authored answer is wrong here:\n{wrong}");
}
