//! Text from outside the program (content files under `--content`, a
//! learner's script and what it prints or throws, error messages quoting
//! them) made safe to print to a terminal: control characters (an escape
//! sequence can retitle the terminal, clear it, or move the cursor) are
//! shown as `\u{1b}` instead of being sent. Line feeds and tabs stay.

use std::borrow::Cow;

/// Whether `c` would act on a terminal instead of showing: C0 controls but
/// line feed and tab, DEL, and the C1 controls (U+0080–U+009F).
fn acts(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `s` with every control character but `\n` and `\t` written as `\u{…}`
/// (a CR before a LF is dropped: Windows line ends read as line ends).
/// Borrowed when there is none, which is nearly always.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(acts) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            c if acts(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_sent() {
        assert!(matches!(escape_controls("plain\ttext\nok — 中文"), Cow::Borrowed(_)));
        assert_eq!(escape_controls("a\u{1b}]2;pwned\u{7}b\u{1b}[2J"), "a\\u{1b}]2;pwned\\u{7}b\\u{1b}[2J");
        assert_eq!(escape_controls("x\r\ny\rz\u{9b}\u{7f}"), "x\ny\\u{d}z\\u{9b}\\u{7f}");
    }
}
