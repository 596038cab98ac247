//! One module per screen: its state, its keys and its drawing.

pub mod drill;
pub mod exercise;
pub mod home;
pub mod progress;
pub mod quiz;
pub mod reader;
pub mod review;
pub mod study;

use crate::content::Content;
use crate::tui::action::Hint;

#[derive(Debug, PartialEq)]
pub enum Screen {
    Home(home::State),
    Reader(Box<reader::State>),
    Drill(Box<drill::State>),
    Quiz(Box<quiz::State>),
    Review(Box<review::State>),
    Progress(Box<progress::State>),
    Exercises(exercise::ListView),
    Exercise(Box<exercise::State>),
    Study(Box<study::State>),
}

impl Screen {
    pub fn title(&self) -> String {
        match self {
            Screen::Home(_) => crate::t!("app-screen-home"),
            Screen::Reader(r) => r.title.clone(),
            Screen::Drill(d) => d.title(),
            Screen::Quiz(q) => q.title(),
            Screen::Review(_) => crate::t!("app-screen-review"),
            Screen::Progress(_) => crate::t!("app-screen-progress"),
            Screen::Exercises(_) => crate::t!("app-screen-exercises"),
            Screen::Exercise(x) => x.title(),
            Screen::Study(s) => s.title(),
        }
    }

    /// While a text field has focus, letters are typed, not commands.
    pub fn is_typing(&self) -> bool {
        match self {
            Screen::Reader(r) => r.is_typing(),
            Screen::Drill(d) => d.is_typing(),
            Screen::Quiz(q) => q.is_typing(),
            Screen::Review(r) => r.is_typing(),
            Screen::Home(_) | Screen::Progress(_) | Screen::Exercises(_) | Screen::Exercise(_) | Screen::Study(_) => {
                false
            }
        }
    }

    /// What kind of screen this is, for the help overlay's title.
    pub fn kind(&self) -> &'static str {
        match self {
            Screen::Home(_) => "Home",
            Screen::Reader(_) => "Reader",
            Screen::Drill(_) => "Drill",
            Screen::Quiz(_) => "Quiz",
            Screen::Review(_) => "Review",
            Screen::Progress(_) => "Progress",
            Screen::Exercises(_) => "Exercises",
            Screen::Exercise(_) => "Exercise",
            Screen::Study(_) => "Study session",
        }
    }

    /// The help overlay's heading: "Home keys".
    pub fn help_title(&self) -> String {
        let kind = match self {
            Screen::Home(_) => crate::t!("app-screen-home"),
            Screen::Reader(_) => crate::t!("app-screen-reader"),
            Screen::Drill(_) => crate::t!("app-screen-drill"),
            Screen::Quiz(_) => crate::t!("app-screen-quiz"),
            Screen::Review(_) => crate::t!("app-screen-review"),
            Screen::Progress(_) => crate::t!("app-screen-progress"),
            Screen::Exercises(_) => crate::t!("app-screen-exercises"),
            Screen::Exercise(_) => crate::t!("app-screen-exercise"),
            Screen::Study(_) => crate::t!("app-screen-study"),
        };
        crate::t!("app-help-keys", kind = kind)
    }

    /// Keys shown in the footer (the most useful few).
    pub fn hints(&self) -> Vec<Hint> {
        match self {
            Screen::Home(_) => home::HINTS.to_vec(),
            Screen::Reader(r) => r.hints(),
            Screen::Drill(d) => d.hints(),
            Screen::Quiz(q) => q.hints(),
            Screen::Review(r) => r.hints(),
            Screen::Progress(_) => progress::HINTS.to_vec(),
            Screen::Exercises(_) => exercise::LIST_HINTS.to_vec(),
            Screen::Exercise(s) => s.hints(),
            Screen::Study(s) => s.hints(),
        }
    }

    /// Show the screen's content in `content`'s language (after the learner
    /// switched): texts are taken afresh by id; where the learner is (the
    /// section, the item, the answer typed, the run) stays.
    pub fn relocalize(&mut self, content: &Content) {
        let item = |q: &mut crate::tui::widgets::question::Question| {
            if let Some(i) = content.item(&q.item.id) {
                q.item = i.clone();
            }
        };
        match self {
            Screen::Home(_) | Screen::Progress(_) | Screen::Exercises(_) => {}
            Screen::Reader(s) => {
                if let Some(new) = s.relocalized(content) {
                    **s = new;
                }
            }
            Screen::Drill(s) => {
                if let Some(d) = content.drill(&s.meta.id) {
                    s.meta = d.clone();
                }
            }
            Screen::Quiz(s) => {
                s.question.iter_mut().for_each(item);
                s.answered.iter_mut().for_each(item);
                s.reopened.iter_mut().for_each(|q| item(q));
            }
            Screen::Review(s) => s.question.iter_mut().for_each(item),
            Screen::Exercise(s) => {
                if let Some(x) = content.exercise(&s.meta.id) {
                    s.meta = x.clone();
                }
                s.reword_report();
            }
            Screen::Study(s) => {
                for step in &mut s.plan.steps {
                    step.label = crate::progress::study::label(content, step.track, &step.spec);
                }
                for stop in &mut s.stops {
                    if let study::Stop::Step(step) = stop {
                        step.label = crate::progress::study::label(content, step.track, &step.spec);
                    }
                }
            }
        }
    }

    /// Every key of the screen, for the help overlay.
    pub fn help(&self) -> Vec<Hint> {
        match self {
            Screen::Home(_) => home::HELP.to_vec(),
            Screen::Reader(_) => reader::HELP.to_vec(),
            Screen::Drill(_) => drill::HELP.to_vec(),
            Screen::Quiz(_) => quiz::help(),
            Screen::Review(_) => review::help(),
            Screen::Progress(_) => progress::HELP.to_vec(),
            Screen::Exercises(_) => exercise::LIST_HELP.to_vec(),
            Screen::Exercise(s) => s.help(),
            Screen::Study(_) => study::HELP.to_vec(),
        }
    }
}
