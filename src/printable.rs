//! Text from files and logs as it may reach a terminal: every control character escaped.
//!
//! A file name, a log's model id or a scenario's text can hold ESC (the start of a terminal
//! escape sequence, which recolours, moves the cursor, retitles the window or worse), a
//! carriage return (it overwrites what was printed), a line break (it forges a line of
//! output) or a bidirectional override (it reorders what is shown). Everything a file or
//! log controls goes through [`printable`] on its way to stdout or stderr: errors
//! ([`crate::error`]), tables and summaries. JSON, CSV and HTML have escaping of their
//! own; charts get text the loader checked.

use std::borrow::Cow;
use std::path::Path;

/// `text` with every character a terminal would act on instead of showing written as
/// Rust writes it in a string: `\u{1b}`, `\n`, `\r`, `\t`, `\u{85}`, `\u{202e}`. Other
/// text, backslashes and quotes included, is unchanged; text without such characters is
/// not copied.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if acts(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`printable`] of a path as it displays.
pub fn path(path: &Path) -> String {
    printable(&path.display().to_string()).into_owned()
}

/// Whether a terminal acts on `c` rather than showing it: C0 and C1 control characters
/// and DEL, the line and paragraph separators, and the bidirectional marks, embeddings,
/// overrides and isolates.
fn acts(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'
                ..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            printable("a\u{1b}[31mred\u{0}\u{1}\u{7f}\u{85}\r\n\tz"),
            "a\\u{1b}[31mred\\u{0}\\u{1}\\u{7f}\\u{85}\\r\\n\\tz"
        );
        assert_eq!(printable("evil\u{202e}txt.exe"), "evil\\u{202e}txt.exe");
        assert!(matches!(
            printable("plain \"text\" \\ ok, 日本"),
            Cow::Borrowed(_)
        ));
        assert_eq!(path(Path::new("dir/a\u{1b}b.jsonl")), "dir/a\\u{1b}b.jsonl");
    }
}
