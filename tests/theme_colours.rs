//! Every ratatui colour is named in `src/tui/theme.rs`: screens, widgets
//! and the Markdown renderer ask the theme for a role (`dim`, `pass`,
//! `highlight`…), so the look changes in one place. This reads every `.rs`
//! file under `src/` and fails, naming file:line, on a `Color::` literal
//! anywhere else. (The PNG export draws with plotters' own colour types,
//! `RGBColor` and the like, which this does not match.)

use std::path::{Path, PathBuf};

/// The one file allowed to write `Color::`.
const THEME: &str = "src/tui/theme.rs";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Whether `line` (its comment cut off) writes a `Color::` path: `Color::Red`,
/// `style::Color::Rgb(…)`, but not `RGBColor::` or `MyColor::`.
fn names_a_colour(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices("Color::")
        .any(|(i, _)| code[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_')))
}

/// `file:line: text` for every `Color::` outside the theme under `src`.
fn colours_outside_theme(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 20, "found only {} .rs files under {}", files.len(), root.display());
    let mut found = Vec::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if rel == THEME {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            if names_a_colour(line) {
                found.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn every_colour_is_named_in_the_theme() {
    let found = colours_outside_theme(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(
        found.is_empty(),
        "ratatui colours outside {THEME} (give each a role there and use it):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_colour_and_nothing_else() {
    assert!(names_a_colour("    let s = Style::default().fg(Color::DarkGray);"));
    assert!(names_a_colour("let g = ratatui::style::Color::Rgb(1, 2, 3);"));
    assert!(names_a_colour("Color::Red"));
    assert!(!names_a_colour("let c = RGBColor(1, 2, 3); // not Color::Red"));
    assert!(!names_a_colour("plotters::style::RGBColor::from(x)"));
    assert!(!names_a_colour("fn gauge() -> (f64, String, Color) {"));
    assert!(!names_a_colour("/// the theme's Color::Yellow"));
}

/// A colour written in a screen is found, with its file and line.
#[test]
fn a_colour_in_a_screen_fails_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let screens = dir.path().join("src/tui/screens");
    std::fs::create_dir_all(&screens).unwrap();
    std::fs::write(dir.path().join(THEME), "pub const A: Color = Color::Green;\n").unwrap();
    for i in 0..21 {
        std::fs::write(screens.join(format!("s{i}.rs")), "fn f() {}\n").unwrap();
    }
    std::fs::write(screens.join("s7.rs"), "fn f() {}\nfn g() -> Style { Style::default().fg(Color::Cyan) }\n").unwrap();
    let found = colours_outside_theme(dir.path());
    assert_eq!(found, vec!["src/tui/screens/s7.rs:2: fn g() -> Style { Style::default().fg(Color::Cyan) }"]);
}
