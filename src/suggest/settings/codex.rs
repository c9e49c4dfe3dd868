//! Codex CLI's `~/.codex/config.toml` keys for the suggestions. Each key, its page and
//! the date read: docs/settings.md.

use super::types::{Key, Value};
use super::workflow;
use crate::suggest::report::Suggested;
use crate::suggest::rules::Family;

/// The key (if any) and the sentence for `s`.
pub fn how(s: &Suggested) -> (Option<Key>, String) {
    let key = match (s.family, s.parameters.threshold_tokens) {
        // Codex compacts when the context passes the limit: it cannot wait for a cold cache.
        (Family::Compaction, Some(_)) if s.parameters.at_cold => None,
        (Family::Compaction, Some(t)) => Some(Key {
            path: "model_auto_compact_token_limit".into(),
            value: Value::Integer(t.round() as u64),
            limits: "tokens of context at which Codex compacts the conversation itself (the simulation's summary size is assumed or measured, as suggested.toml says)".into(),
        }),
        _ => None,
    };
    let how = match &key {
        Some(k) => format!(
            "{} = {} in ~/.codex/config.toml",
            k.path,
            match &k.value {
                Value::Integer(n) => n.to_string(),
                Value::Text(t) => format!("\"{t}\""),
                Value::List(l) => format!("{l:?}"),
            },
        ),
        None => match s.family {
            Family::ContextEditing | Family::HourCache => {
                "not for Codex CLI: an Anthropic API mechanism".into()
            }
            Family::Retention => "no config.toml key found for the 24-hour cache retention (read 2026-12-02): it is the Responses API's prompt_cache_retention".into(),
            _ => workflow(s, "AGENTS.md"),
        },
    };
    (key, how)
}
