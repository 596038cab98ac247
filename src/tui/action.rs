//! What a screen asks the app to do after a key, and the key hints a screen
//! shows. A leaf module: screens and widgets import it, and it imports no
//! screen, so the app depends on the screens and never the other way round.

use crate::content::Level;
use crate::markdown::Target;

/// A key and what it does, for the footer and the help overlay.
pub type Hint = (&'static str, &'static str);

/// What a screen asks the app to do after a key.
#[derive(Debug, PartialEq)]
pub enum Action {
    None,
    Back,
    Quit,
    /// Follow a link: a sheet (section), a drill, a quiz, or a web address.
    Follow(Target),
    /// Open a drill's README in the reader.
    Readme(String),
    Flash(String),
    /// Open a quiz: the setup page with `track` preselected, or straight
    /// into the items when a level is given too.
    OpenQuiz {
        track: Option<u8>,
        level: Option<Level>,
    },
    OpenReview,
    OpenProgress,
    /// The list of exercises.
    OpenExercises,
    /// Check the learner's file of the exercise on screen and record it.
    CheckExercise,
    /// Open a drill set to train with the learner's function from an exercise.
    TrainWith {
        drill: String,
        exercise: String,
    },
    /// Put these quiz items into review now.
    FlagForReview(Vec<String>),
    /// Plan a study session (the plan screen; Enter on it starts).
    OpenStudy {
        track: Option<u8>,
        minutes: u32,
    },
    /// The session's plan, again, for this many minutes.
    Replan(u32),
    /// End the study session on screen: tally, save, show the summary.
    EndSession,
    /// Every stop of the session is done or skipped: offer the next steps
    /// of the path when minutes are left, else end it.
    StopsDone,
    /// A session's quiz stop: the level's unanswered items about sections read.
    SessionQuiz {
        track: u8,
        level: Level,
    },
    /// Go where the learner stopped (Home's Continue).
    Continue,
    /// Open the next step of a track's study path.
    NextStep(u8),
}
