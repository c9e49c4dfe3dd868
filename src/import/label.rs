//! Labels and input hashes of imported calls: what a person reads in a ledger row, and what
//! lets identical re-reads be found (docs/model.md §7 `dedupe`).

use super::event::{ToolUse, UserText};

/// Tokens one image is counted as without a fitted value (see
/// [`crate::scenario::IMAGE_TOKENS_ESTIMATE`]), for labels. Here, not in the assembler:
/// imports flow one way (readers → events → assembler → labels, traces), and the
/// assembler uses this module.
pub const IMAGE_TOKENS_ESTIMATE: u64 = crate::scenario::IMAGE_TOKENS_ESTIMATE as u64;

/// At most this many characters in a label.
pub const MAX_LABEL_CHARS: usize = 80;

/// `name: argument` for a label, with only the argument's first line; `name` alone when
/// there is no argument. Cleaning and cutting happen when the call is built.
pub fn tool_label(name: &str, argument: Option<&str>) -> String {
    match argument.map(|a| a.trim().lines().next().unwrap_or("").trim()) {
        Some(arg) if !arg.is_empty() => format!("{name}: {arg}"),
        _ => name.to_string(),
    }
}

/// The tool's own label (`Bash: cargo test`), `prompt: …` for user text alone, or
/// `answer`; with `(+N more)` for parallel tool uses and the image estimate when images
/// joined.
pub fn label(tool_uses: &[ToolUse], user_text: Option<&UserText>, images: u64) -> String {
    let images = match images {
        0 => String::new(),
        1 => format!(" [+1 image ≈{IMAGE_TOKENS_ESTIMATE} est. tokens]"),
        n => format!(" [+{n} images ≈{} est. tokens]", n * IMAGE_TOKENS_ESTIMATE),
    };
    let more = match tool_uses.len() {
        0 | 1 => String::new(),
        n => format!(" (+{} more)", n - 1),
    };
    let head = match (tool_uses.first(), user_text) {
        (Some(u), _) => u.label.clone(),
        (None, Some(t)) => format!("prompt: {}", t.snippet),
        (None, None) => "answer".to_string(),
    };
    let room = MAX_LABEL_CHARS.saturating_sub(more.chars().count() + images.chars().count());
    format!("{}{more}{images}", clean_label(&head, room.max(16)))
}

/// Control characters out, runs of white space as one space, at most `max` characters
/// (ending in `…` when cut).
pub fn clean_label(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if c.is_control() {
            continue;
        }
        if space {
            out.push(' ');
            count += 1;
            space = false;
        }
        if count + 1 > max {
            out.pop();
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out
}

/// One tool use: its own hash; several: xxh3 over their hashes in order, so two calls
/// match only when every input matches.
pub fn combined_hash(uses: &[ToolUse]) -> Option<u64> {
    match uses {
        [] => None,
        [one] => Some(one.input_hash),
        many => {
            let bytes: Vec<u8> = many
                .iter()
                .flat_map(|u| u.input_hash.to_le_bytes())
                .collect();
            Some(xxhash_rust::xxh3::xxh3_64(&bytes))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_cleaned_and_cut() {
        assert_eq!(clean_label("a\tb\n\u{7}c  d", 80), "a b c d");
        assert_eq!(clean_label("  lead", 80), "lead");
        assert_eq!(clean_label("abcdef", 4), "abc…");
        assert_eq!(clean_label("abcd", 4), "abcd");
    }

    #[test]
    fn parallel_tools_and_images_fit_in_the_label() {
        let read = |id: &str| ToolUse {
            id: id.into(),
            name: "Read".into(),
            label: tool_label("Read", Some(&"x".repeat(200))),
            input_hash: 1,
            web: false,
            input_bytes: 0,
        };
        let l = label(&[read("a"), read("b")], None, 2);
        assert!(
            l.ends_with("… (+1 more) [+2 images ≈3200 est. tokens]"),
            "{l}"
        );
        assert!(l.chars().count() <= MAX_LABEL_CHARS);
        assert_eq!(
            tool_label("Bash", Some("  cargo test\necho")),
            "Bash: cargo test"
        );
        assert_eq!(tool_label("TodoWrite", None), "TodoWrite");
        assert_eq!(label(&[], None, 0), "answer");
    }
}
