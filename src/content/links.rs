//! Cross-references inside content.
//!
//! Cheatsheets and quiz explanations link to other content with a short form
//! that reads well as plain Markdown:
//!
//! * `[drill:react-tool-call-loop]` — a drill by id;
//! * `[quiz:3]` or `[quiz:3/L2]` — a track's quiz, optionally at one level;
//! * `[sheet:3]` or `[sheet:3#group-relative-advantages]` — a cheatsheet, optionally a section;
//! * `[exercise:gae]` — an exercise where the learner writes the function.
//!
//! In Markdown these are "shortcut reference links" with no definition; the
//! renderer resolves them through pulldown-cmark's broken-link callback.

use std::fmt;

use super::quiz::Level;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Link {
    Drill(String),
    Exercise(String),
    Quiz { track: u8, level: Option<Level> },
    Sheet { track: u8, section: Option<String> },
}

impl Link {
    /// Parse the text inside the brackets (`drill:x`, `quiz:3/L1`, `sheet:3#sec`).
    pub fn parse(s: &str) -> Option<Link> {
        let (scheme, rest) = s.trim().split_once(':')?;
        let rest = rest.trim();
        if rest.is_empty() {
            return None;
        }
        match scheme {
            "drill" | "exercise" => {
                let ok = rest.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
                ok.then(|| match scheme {
                    "drill" => Link::Drill(rest.to_string()),
                    _ => Link::Exercise(rest.to_string()),
                })
            }
            "quiz" => {
                let (t, level) = match rest.split_once('/') {
                    Some((t, l)) => (t, Some(Level::parse(l)?)),
                    None => (rest, None),
                };
                Some(Link::Quiz { track: t.parse().ok()?, level })
            }
            "sheet" => {
                let (t, section) = match rest.split_once('#') {
                    Some((t, s)) if !s.is_empty() => (t, Some(s.to_string())),
                    Some(_) => return None,
                    None => (rest, None),
                };
                Some(Link::Sheet { track: t.parse().ok()?, section })
            }
            _ => None,
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Link::Drill(id) => write!(f, "drill:{id}"),
            Link::Exercise(id) => write!(f, "exercise:{id}"),
            Link::Quiz { track, level: None } => write!(f, "quiz:{track}"),
            Link::Quiz { track, level: Some(l) } => write!(f, "quiz:{track}/{l}"),
            Link::Sheet { track, section: None } => write!(f, "sheet:{track}"),
            Link::Sheet { track, section: Some(s) } => write!(f, "sheet:{track}#{s}"),
        }
    }
}

/// Every `[scheme:target]` link written in a text (Markdown or a quiz explanation).
/// Returns the link and the 1-based line it is on. Text inside backticks is skipped.
pub fn scan_links(text: &str) -> Vec<(usize, Result<Link, String>)> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut in_code = false;
        let bytes: Vec<char> = line.chars().collect();
        let mut j = 0;
        while j < bytes.len() {
            let c = bytes[j];
            if c == '`' {
                in_code = !in_code;
            } else if c == '[' && !in_code {
                if let Some(end) = bytes[j + 1..].iter().position(|&c| c == ']') {
                    let inner: String = bytes[j + 1..j + 1 + end].iter().collect();
                    let next = bytes.get(j + 2 + end);
                    let is_ref_style = next != Some(&'(') && next != Some(&'[');
                    if let Some((scheme, _)) = inner.split_once(':') {
                        if is_ref_style && matches!(scheme, "drill" | "quiz" | "sheet" | "exercise") {
                            let parsed = Link::parse(&inner).ok_or_else(|| format!("malformed link [{inner}]"));
                            out.push((i + 1, parsed));
                        }
                    }
                    j += end + 1;
                }
            }
            j += 1;
        }
    }
    out
}

/// GitHub-style heading slug: lower case, spaces to `-`, punctuation dropped.
pub fn slugify(title: &str) -> String {
    let mut s = String::new();
    for c in title.trim().chars() {
        if c.is_alphanumeric() {
            s.extend(c.to_lowercase());
        } else if c == ' ' || c == '-' || c == '_' {
            s.push('-');
        }
    }
    // Collapse runs of '-' so "A — B" gives "a-b", not "a---b".
    let mut out = String::new();
    for c in s.chars() {
        if c == '-' && out.ends_with('-') {
            continue;
        }
        out.push(c);
    }
    out.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_kind() {
        assert_eq!(Link::parse("drill:ewc-replay"), Some(Link::Drill("ewc-replay".into())));
        assert_eq!(Link::parse("quiz:3"), Some(Link::Quiz { track: 3, level: None }));
        assert_eq!(Link::parse("quiz:3/L2"), Some(Link::Quiz { track: 3, level: Some(Level::L2) }));
        assert_eq!(Link::parse("sheet:1#react"), Some(Link::Sheet { track: 1, section: Some("react".into()) }));
        assert_eq!(Link::parse("sheet:x"), None);
        assert_eq!(Link::parse("drill:Bad Id"), None);
        assert_eq!(Link::parse("http://x"), None);
    }

    #[test]
    fn scan_skips_code_and_inline_links() {
        let text = "see [drill:a-b] and `[drill:nope]` and [x](drill:c)\n```\n[drill:z]\n```\n[sheet:2#s]";
        let found: Vec<_> = scan_links(text).into_iter().map(|(l, r)| (l, r.unwrap())).collect();
        assert_eq!(
            found,
            vec![(1, Link::Drill("a-b".into())), (5, Link::Sheet { track: 2, section: Some("s".into()) })]
        );
    }

    #[test]
    fn slugs_match_github() {
        assert_eq!(slugify("3. Group-relative advantages (GRPO)"), "3-group-relative-advantages-grpo");
        assert_eq!(slugify("EWC — the penalty"), "ewc-the-penalty");
        assert_eq!(slugify("  Pitfalls  "), "pitfalls");
    }
}

/// Label for lab links in rendered Markdown: the title of what they point at.
pub fn link_label(content: &super::Content, link: &Link) -> Option<String> {
    match link {
        Link::Drill(id) => content.drill(id).map(|d| crate::t!("link-drill", title = d.title.as_str())),
        Link::Exercise(id) => content.exercise(id).map(|x| crate::t!("link-exercise", title = x.title.as_str())),
        Link::Quiz { track, level } => {
            super::tracks::track(*track)?;
            let title = content.track_title(*track);
            Some(match level {
                Some(l) => crate::t!("link-quiz-level", title = title, level = l.to_string()),
                None => crate::t!("link-quiz", title = title),
            })
        }
        Link::Sheet { track, section } => {
            let sheet = content.sheet(*track)?;
            let title = sheet.meta.title.as_str();
            Some(match section.as_deref().and_then(|s| sheet.section(s)) {
                Some(sec) => crate::t!("link-section", title = title, section = sec.title.as_str()),
                None => crate::t!("link-sheet", title = title),
            })
        }
    }
}

/// `text` with every lab link (`[drill:id]`, `[quiz:3/L2]`, `[sheet:3#slug]`)
/// written as the reader shows it, `→ <label>`; a link `label` does not
/// know keeps its raw form. Markdown links (`[text](url)`) are left alone.
pub fn with_link_labels(text: &str, label: &dyn Fn(&Link) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &after[..close];
        let next = after[close + 1..].chars().next();
        let lab = inner.split_once(':').is_some_and(|(s, _)| matches!(s, "drill" | "quiz" | "sheet" | "exercise"));
        match Link::parse(inner).filter(|_| lab && next != Some('(') && next != Some('[')) {
            Some(link) => match label(&link) {
                Some(l) => out.push_str(&format!("→ {l}")),
                None => out.push_str(&format!("[{inner}]")),
            },
            None => out.push_str(&format!("[{inner}]")),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod label_tests {
    use super::*;

    #[test]
    fn lab_links_become_their_labels() {
        let label = |l: &Link| match l {
            Link::Drill(id) if id == "ewc-replay" => Some("drill: EWC".to_string()),
            _ => None,
        };
        assert_eq!(
            with_link_labels("See [drill:ewc-replay] and [the paper](https://x) [x] [drill:nope].", &label),
            "See → drill: EWC and [the paper](https://x) [x] [drill:nope]."
        );
        assert_eq!(with_link_labels("a [b", &label), "a [b");
    }
}
