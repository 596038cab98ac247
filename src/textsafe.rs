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

/// Content text with the ways of *writing* a control character defused,
/// so that what is decoded shows the escape as text: in the TOML strings
/// that decode escapes (basic `"…"` and `"""…"""`), an escape of a control
/// character (`\u001b`, `\U0000001b`, `\e`, `\b`, `\f`) gets its backslash
/// doubled; anywhere, a numeric character reference to one (`&#27;`,
/// `&#x1b;`, which Markdown decodes) gets its `&` written as `&amp;`. Line
/// feeds and tabs stay what they are, and literal strings (`'…'`, where a
/// backslash is text: LaTeX) are left alone. `toml`: whether the text (a
/// `.toml` file, a sheet's front matter) is TOML. Borrowed when there is
/// nothing to defuse.
pub fn defuse_escapes(s: &str, toml: bool) -> Cow<'_, str> {
    #[derive(Clone, Copy, PartialEq)]
    enum At {
        Text,
        Comment,
        Basic,
        MlBasic,
        Literal,
        MlLiteral,
    }
    let control = |code: u32| char::from_u32(code).is_some_and(acts);
    let hex = |digits: Option<&str>| -> Option<u32> {
        let d = digits?;
        if d.bytes().all(|b| b.is_ascii_hexdigit()) {
            u32::from_str_radix(d, 16).ok()
        } else {
            None
        }
    };
    let bytes = s.as_bytes();
    let mut at = if toml { At::Text } else { At::Comment };
    let (mut out, mut copied, mut k) = (String::new(), 0, 0);
    while k < bytes.len() {
        let rest = &bytes[k..];
        let mut defuse = false;
        let mut step = 1;
        match (at, bytes[k]) {
            (_, b'&') if rest.get(1) == Some(&b'#') => {
                // `rest` starts with ASCII: its text from 2 on is on a char boundary.
                let text = &s[k + 2..];
                let (digits, radix) = match text.strip_prefix(['x', 'X']) {
                    Some(h) => (h, 16),
                    None => (text, 10),
                };
                let end = digits.find(';').filter(|&e| e > 0 && e <= 8);
                defuse = end.and_then(|e| u32::from_str_radix(&digits[..e], radix).ok()).is_some_and(control);
            }
            (At::Text, b'#') => at = At::Comment,
            (At::Comment, b'\n') if toml => at = At::Text,
            (At::Text, b'"') if rest.starts_with(b"\"\"\"") => (at, step) = (At::MlBasic, 3),
            (At::Text, b'"') => at = At::Basic,
            (At::Text, b'\'') if rest.starts_with(b"\'\'\'") => (at, step) = (At::MlLiteral, 3),
            (At::Text, b'\'') => at = At::Literal,
            (At::Basic | At::MlBasic, b'\\') => match rest.get(1) {
                Some(b'\\' | b'"') => step = 2,
                Some(b'u') => defuse = hex(s.get(k + 2..k + 6)).is_some_and(control),
                Some(b'U') => defuse = hex(s.get(k + 2..k + 10)).is_some_and(control),
                Some(b'e' | b'b' | b'f') => defuse = true,
                _ => {}
            },
            (At::Basic, b'"') | (At::Basic | At::Literal, b'\n') | (At::Literal, b'\'') => at = At::Text,
            (At::MlBasic, b'"') if rest.starts_with(b"\"\"\"") => (at, step) = (At::Text, 3),
            (At::MlLiteral, b'\'') if rest.starts_with(b"\'\'\'") => (at, step) = (At::Text, 3),
            _ => {}
        }
        if defuse {
            out.push_str(&s[copied..k]);
            out.push_str(if bytes[k] == b'&' { "&amp;" } else { "\\\\" });
            copied = k + 1;
        }
        k += step;
    }
    if copied == 0 {
        return Cow::Borrowed(s);
    }
    out.push_str(&s[copied..]);
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

    #[test]
    fn written_escapes_of_controls_are_defused() {
        let fine = "a = \"x \\n y \\t \\u00e9 \\\\u001b &#10; &amp;\"\nb = '$\\beta \\frac{1}{2}$'\n# \\e\n";
        assert!(matches!(defuse_escapes(fine, true), Cow::Borrowed(_)));
        assert_eq!(defuse_escapes("t = \"\\u001b]2;x\\u0007\"", true), "t = \"\\\\u001b]2;x\\\\u0007\"");
        assert_eq!(defuse_escapes("t = \"\"\"\\U0000001b \\e\"\"\"", true), "t = \"\"\"\\\\U0000001b \\\\e\"\"\"");
        assert_eq!(defuse_escapes("x&#27;y&#x9B;z \\beta", false), "x&amp;#27;y&amp;#x9B;z \\beta");
        // What the TOML parser then reads is the escape as text.
        let v: toml::Value = toml::from_str(&defuse_escapes("t = \"\\u001b[2J\"", true)).unwrap();
        assert_eq!(v["t"].as_str(), Some("\\u001b[2J"));
        let v: toml::Value = toml::from_str(fine).unwrap();
        assert_eq!(toml::from_str::<toml::Value>(&defuse_escapes(fine, true)).unwrap(), v);
    }
}
