//! Languages: the lab in English and in Chinese, switchable at any time.
//!
//! Two kinds of text are localised, each in one place:
//!
//! * **Screens and messages** (every string the TUI and the learner-facing
//!   commands show) are Project Fluent messages in `assets/locales/<lang>/*.ftl`,
//!   looked up with [`t!`](crate::t): `t!("quiz-score", right = 3, total = 5)`.
//!   Fluent handles arguments and plural forms; a test checks that every key
//!   the code uses exists in every language, and that the languages have the
//!   same keys.
//! * **Content** (sheets, quizzes, exercises, drill texts and READMEs) has a
//!   zh overlay file beside each English one; see `content::translation`.
//!
//! The language in force is per thread: the TUI sets it on its own thread when
//! the learner switches (so the tests, each on its own thread, cannot disturb
//! one another), and a thread that never set one uses the process default
//! ([`set_default`], chosen at start-up by [`resolve`]).
//!
//! Adding a language: a variant here (with its code and name), a folder
//! `assets/locales/<code>/` holding the same `.ftl` files and keys, and the
//! content overlays `*.<code>.md` / `*.<code>.toml`.

use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::FluentResource;
pub use fluent_bundle::{FluentArgs, FluentValue};
use include_dir::{include_dir, Dir};
use serde::{Deserialize, Serialize};

static LOCALES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/assets/locales");

/// A language the lab speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Zh];

    /// The code used in file names (`03-agentic-rl.zh.md`), settings and `--lang`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// The language's own name for itself (what the switch shows).
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Zh => "中文",
        }
    }

    /// `en`, `zh`, and locale spellings of them (`zh_CN.UTF-8`, `zh-Hans`, `en_US`).
    pub fn parse(s: &str) -> Option<Lang> {
        let s = s.trim().to_ascii_lowercase();
        let head: String = s.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        match head.as_str() {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// The language a POSIX locale asks for: the first of `LC_ALL`,
    /// `LC_MESSAGES`, `LANG` that is set and not empty decides; Chinese when
    /// it starts with `zh`, else English. `var` reads a variable.
    pub fn from_locale(var: impl Fn(&str) -> Option<String>) -> Lang {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .find_map(|k| var(k).filter(|v| !v.trim().is_empty()))
            .and_then(|v| Lang::parse(&v))
            .unwrap_or(Lang::En)
    }

    /// The next language, for the TUI's switch key.
    pub fn next(self) -> Lang {
        let i = Lang::ALL.iter().position(|&l| l == self).unwrap_or(0);
        Lang::ALL[(i + 1) % Lang::ALL.len()]
    }

    fn index(self) -> usize {
        self as usize
    }

    fn from_index(i: u8) -> Lang {
        Lang::ALL.get(i as usize).copied().unwrap_or_default()
    }

    fn langid(self) -> unic_langid::LanguageIdentifier {
        let id = match self {
            Lang::En => "en-US",
            Lang::Zh => "zh-CN",
        };
        id.parse().expect("a valid language identifier")
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl std::str::FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Lang, String> {
        Lang::parse(s).ok_or_else(|| format!("unknown language \"{s}\": use en or zh"))
    }
}

/// The language to start in, strongest first: `--lang`, then `AGENTLAB_LANG`,
/// then the learner's saved choice (the TUI's switch), then the locale.
/// An `AGENTLAB_LANG` that names no language is an error, not ignored.
pub fn resolve(flag: Option<Lang>, env: Option<&str>, saved: Option<Lang>, locale: Lang) -> Result<Lang, String> {
    if let Some(l) = flag {
        return Ok(l);
    }
    if let Some(v) = env.filter(|v| !v.trim().is_empty()) {
        return Lang::parse(v).ok_or_else(|| format!("AGENTLAB_LANG=\"{v}\" is not a language: use en or zh"));
    }
    Ok(saved.unwrap_or(locale))
}

/// `Lang::ALL.len()` means "not set on this thread".
const UNSET: u8 = u8::MAX;
static DEFAULT: AtomicU8 = AtomicU8::new(0);
thread_local! {
    static CURRENT: Cell<u8> = const { Cell::new(UNSET) };
}

/// The language for threads that did not choose one (set once at start-up).
pub fn set_default(lang: Lang) {
    DEFAULT.store(lang as u8, Ordering::Relaxed);
}

/// Choose the language of this thread.
pub fn set(lang: Lang) {
    CURRENT.with(|c| c.set(lang as u8));
}

/// The language in force on this thread.
pub fn current() -> Lang {
    let here = CURRENT.with(Cell::get);
    if here == UNSET {
        Lang::from_index(DEFAULT.load(Ordering::Relaxed))
    } else {
        Lang::from_index(here)
    }
}

/// The `.ftl` sources of one language, as (file name, text).
pub fn sources(lang: Lang) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = LOCALES
        .get_dir(lang.code())
        .map(|d| {
            d.files()
                .filter(|f| f.path().extension().is_some_and(|e| e == "ftl"))
                .filter_map(|f| Some((f.path().display().to_string(), f.contents_utf8()?)))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The message ids of one language, from its `.ftl` sources (sorted).
pub fn keys(lang: Lang) -> Vec<String> {
    let mut out: Vec<String> = sources(lang)
        .iter()
        .flat_map(|(_, text)| text.lines())
        .filter_map(|line| {
            let (id, _) = line.split_once('=')?;
            let id = id.trim_end();
            let ok = id.starts_with(|c: char| c.is_ascii_alphabetic())
                && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            ok.then(|| id.to_string())
        })
        .collect();
    out.sort();
    out
}

/// Syntax errors in the `.ftl` sources of every language, as "file: error".
pub fn syntax_errors() -> Vec<String> {
    let mut out = Vec::new();
    for lang in Lang::ALL {
        for (name, text) in sources(lang) {
            if let Err((_, errs)) = FluentResource::try_new(text.to_string()) {
                out.extend(errs.iter().map(|e| format!("{name}: {e:?}")));
            }
        }
    }
    out
}

fn bundles() -> &'static [FluentBundle<FluentResource>] {
    static BUNDLES: OnceLock<Vec<FluentBundle<FluentResource>>> = OnceLock::new();
    BUNDLES.get_or_init(|| {
        Lang::ALL
            .iter()
            .map(|&lang| {
                let mut bundle = FluentBundle::new_concurrent(vec![lang.langid()]);
                // No Unicode isolation marks around arguments: a terminal shows them as junk.
                bundle.set_use_isolating(false);
                for (name, text) in sources(lang) {
                    // A resource with a syntax error still yields its good messages; the
                    // test `i18n_keys` reports the error.
                    let res = FluentResource::try_new(text.to_string()).unwrap_or_else(|(res, _)| res);
                    if let Err(errs) = bundle.add_resource(res) {
                        debug_assert!(errs.is_empty(), "{name}: {errs:?}");
                    }
                }
                bundle
            })
            .collect()
    })
}

/// The message `key` in `lang` with `args`; English when `lang` lacks it, and
/// the key itself when no language has it (the key test keeps that from shipping).
pub fn message(lang: Lang, key: &str, args: Option<&FluentArgs>) -> String {
    for l in [lang, Lang::En] {
        let bundle = &bundles()[l.index()];
        if let Some(pattern) = bundle.get_message(key).and_then(|m| m.value()) {
            let mut errors = Vec::new();
            return bundle.format_pattern(pattern, args, &mut errors).into_owned();
        }
    }
    key.to_string()
}

/// Whether `lang` has the message `key`.
pub fn has(lang: Lang, key: &str) -> bool {
    bundles()[lang.index()].get_message(key).and_then(|m| m.value()).is_some()
}

/// The message `key` in the current language (what [`t!`](crate::t) calls).
pub fn tr(key: &str, args: Option<&FluentArgs>) -> String {
    message(current(), key, args)
}

/// The message key of a key hint: `hint-` and the English text as a slug,
/// cut at 48 characters (`"open the exercise"` → `hint-open-the-exercise`).
pub fn hint_key(label: &str) -> String {
    let mut slug = String::new();
    for c in label.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let cut: String = slug.trim_matches('-').chars().take(48).collect();
    format!("hint-{}", cut.trim_end_matches('-'))
}

/// A key hint's text in the current language. Hints are named in the code
/// by their English text (so the screens keep `const` tables of them); the
/// translation is the message [`hint_key`] names.
pub fn hint(label: &str) -> String {
    match current() {
        Lang::En => label.to_string(),
        lang if has(lang, &hint_key(label)) => message(lang, &hint_key(label), None),
        _ => label.to_string(),
    }
}

/// A localised message: `t!("key")` or `t!("key", name = value, …)`. Values
/// are strings or numbers (numbers select plural forms).
#[macro_export]
macro_rules! t {
    ($key:literal) => {
        $crate::i18n::tr($key, None)
    };
    ($key:literal, $($name:ident = $value:expr),+ $(,)?) => {{
        let mut args = $crate::i18n::FluentArgs::new();
        $( args.set(stringify!($name), $crate::i18n::FluentValue::from($value)); )+
        $crate::i18n::tr($key, Some(&args))
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_keys_are_slugs_of_the_english() {
        assert_eq!(hint_key("open the exercise: its task, your code"), "hint-open-the-exercise-its-task-your-code");
        assert_eq!(hint_key("rate ⚠ or ❌"), "hint-rate-or");
        assert!(hint_key(&"word ".repeat(30)).len() <= 5 + 48);
    }

    #[test]
    fn parses_locale_spellings() {
        assert_eq!(Lang::parse("zh_CN.UTF-8"), Some(Lang::Zh));
        assert_eq!(Lang::parse("zh-Hans"), Some(Lang::Zh));
        assert_eq!(Lang::parse("en_US.UTF-8"), Some(Lang::En));
        assert_eq!(Lang::parse("de_DE"), None);
        assert_eq!(Lang::parse("C.UTF-8"), None);
    }

    #[test]
    fn locale_decides_by_the_first_set_variable() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(Lang::from_locale(env(&[("LANG", "zh_CN.UTF-8")])), Lang::Zh);
        assert_eq!(Lang::from_locale(env(&[("LC_ALL", "en_US.UTF-8"), ("LANG", "zh_CN.UTF-8")])), Lang::En);
        assert_eq!(Lang::from_locale(env(&[("LC_ALL", ""), ("LANG", "zh_TW.UTF-8")])), Lang::Zh);
        assert_eq!(Lang::from_locale(env(&[("LANG", "C")])), Lang::En);
        assert_eq!(Lang::from_locale(env(&[])), Lang::En);
    }

    #[test]
    fn flag_beats_env_beats_saved_beats_locale() {
        assert_eq!(resolve(Some(Lang::En), Some("zh"), Some(Lang::Zh), Lang::Zh), Ok(Lang::En));
        assert_eq!(resolve(None, Some("zh"), Some(Lang::En), Lang::En), Ok(Lang::Zh));
        assert_eq!(resolve(None, None, Some(Lang::Zh), Lang::En), Ok(Lang::Zh));
        assert_eq!(resolve(None, Some(" "), None, Lang::Zh), Ok(Lang::Zh));
        assert!(resolve(None, Some("klingon"), None, Lang::En).is_err());
    }

    #[test]
    fn thread_language_does_not_leak_to_other_threads() {
        set(Lang::Zh);
        assert_eq!(current(), Lang::Zh);
        let other = std::thread::spawn(current).join().unwrap();
        assert_eq!(other, Lang::from_index(DEFAULT.load(Ordering::Relaxed)));
        set(Lang::En);
    }

    #[test]
    fn messages_take_arguments_and_plurals_in_both_languages() {
        let one = message(Lang::En, "count-items", Some(&args(1)));
        let many = message(Lang::En, "count-items", Some(&args(3)));
        assert_eq!(one, "1 item");
        assert_eq!(many, "3 items");
        assert_eq!(message(Lang::Zh, "count-items", Some(&args(3))), "3 道题");
        assert_eq!(message(Lang::Zh, "no-such-key", None), "no-such-key");
    }

    fn args(n: usize) -> FluentArgs<'static> {
        let mut a = FluentArgs::new();
        a.set("count", n);
        a
    }
}
