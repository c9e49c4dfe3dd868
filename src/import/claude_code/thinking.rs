//! Which Claude models send the thinking of earlier turns back: the others drop it at a
//! new user prompt, so it never joins the context for good.
//!
//! Anthropic's extended-thinking docs ("Thinking block preservation",
//! <https://platform.claude.com/docs/en/build-with-claude/extended-thinking>, read
//! 2026-12-02): Claude Opus 4.5 and later Opus models, and Sonnet 4.6 and later, keep every
//! earlier turn's thinking; Opus 4.1 and earlier, Sonnet 4.5 and earlier, and every Haiku
//! through 4.5 keep only the last assistant turn's (the turn in progress, through its tool
//! calls). The measured growth agrees (`src/import/README.md`, "Thinking of earlier
//! turns"): on the shared logs, at 25 of 34 prompt boundaries after a turn of older models
//! that thought 300 tokens or more, the measured input fell by about that turn's thinking.

/// Whether `model` (a log's model id: `claude-sonnet-4-5-20250929`, a Bedrock
/// `us.anthropic.claude-opus-4-1-…`, `claude-3-7-sonnet-…`, `anthropic/claude-sonnet-4.6`)
/// keeps the thinking of earlier turns in its context. A model that is not a Claude model
/// this can read (another vendor's through a proxy, none logged) is taken to keep it: the
/// importer then counts what the log shows, as for every other block.
pub fn kept_across_turns(model: Option<&str>) -> bool {
    let Some(model) = model else { return true };
    let lower = model.to_ascii_lowercase();
    let Some(at) = lower.find("claude-") else {
        return true;
    };
    let words: Vec<&str> = lower[at + "claude-".len()..]
        .split(['-', '.', '@', ':', '/'])
        .collect();
    let number = |w: Option<&&str>| {
        w.filter(|w| !w.is_empty() && w.len() <= 2)
            .and_then(|w| w.parse::<u32>().ok())
    };
    // `opus-4-5-…` (family first) or `3-7-sonnet-…` (version first).
    let (family, major, minor) = match words.first().copied() {
        Some(f @ ("opus" | "sonnet" | "haiku")) => (f, number(words.get(1)), number(words.get(2))),
        _ => {
            let major = number(words.first());
            let minor = number(words.get(1));
            let family = words
                .iter()
                .copied()
                .find(|w| matches!(*w, "opus" | "sonnet" | "haiku"))
                .unwrap_or("");
            (family, major, minor)
        }
    };
    let Some(major) = major else { return true };
    let version = (major, minor.unwrap_or(0));
    match family {
        "opus" => version >= (4, 5),
        "sonnet" => version >= (4, 6),
        "haiku" => version > (4, 5),
        // Claude 2 and 3 models without a family word the docs name: older, they drop it.
        _ => major >= 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_that_drop_earlier_thinking_are_told_by_family_and_version() {
        for drops in [
            "claude-sonnet-4-5-20250929",
            "claude-sonnet-4-20250514",
            "claude-opus-4-1-20250805",
            "claude-opus-4-20250514",
            "claude-haiku-4-5-20251001",
            "claude-3-7-sonnet-20250219",
            "claude-3-5-haiku-20241022",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "anthropic/claude-sonnet-4.5",
            "claude-opus-4-1@20250805",
        ] {
            assert!(!kept_across_turns(Some(drops)), "{drops}");
        }
        for keeps in [
            "claude-opus-4-5-20251101",
            "claude-opus-4-6",
            "claude-opus-4-7",
            "claude-sonnet-4-6",
            "claude-opus-5",
            "global.anthropic.claude-opus-4-5-20251101-v1:0",
            "glm-4.6",
            "<synthetic>",
        ] {
            assert!(kept_across_turns(Some(keeps)), "{keeps}");
        }
        assert!(kept_across_turns(None));
    }
}
