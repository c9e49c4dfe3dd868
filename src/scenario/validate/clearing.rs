//! `clear` policies (docs/model.md §3): triggers, keep rules, what may be cleared.

use super::Checker;
use crate::error::Located;
use crate::scenario::ClearPolicy;
use crate::scenario::file::ClearFile;
use toml::Spanned;

/// `at = "cold"` of a `clear` or `compact` (`what`), at `key`: whether it is given. Any
/// other value is an error naming the key and the values; so is `at` beside `api` (the
/// provider decides when its own clearing or compaction runs).
pub(super) fn at_cold(
    ck: &Checker,
    key: &str,
    at: &Option<Spanned<String>>,
    api: bool,
) -> Result<bool, Located> {
    let Some(v) = at else { return Ok(false) };
    if !crate::scenario::AT_MOMENTS.contains(&v.get_ref().as_str()) {
        return Err(ck.err(
            Some(v.span()),
            key,
            format!(
                "\"{}\" is not a moment to act at: use at = \"{}\" (only where the pause before the call exceeds the cache's lifetime, so the prefix is written again anyway)",
                v.get_ref(),
                crate::scenario::AT_MOMENTS.join("\", \"")
            ),
        ));
    }
    if api {
        return Err(ck.err(
            Some(v.span()),
            key,
            "at = \"cold\" cannot be given with api: the provider decides when its own clearing or compaction runs; leave out api to simulate the client doing it",
        ));
    }
    Ok(true)
}

pub(super) fn clear(
    ck: &Checker,
    place: &str,
    c: &Spanned<ClearFile>,
) -> Result<ClearPolicy, Located> {
    let span = Some(c.span());
    let c = c.get_ref();
    let at = |key: &str| format!("{place}: clear.{key}");
    let positive = |v: &Option<Spanned<f64>>, key: &str| {
        v.as_ref().map(|v| ck.positive(v, &at(key))).transpose()
    };
    let count = |v: &Option<Spanned<i64>>, key: &str, min: i64| {
        v.as_ref().map(|v| ck.count(v, &at(key), min)).transpose()
    };
    let at_cold = at_cold(ck, &at("at"), &c.at, c.api.is_some())?;
    if let Some(api) = &c.api {
        return api_clear(ck, place, c, api);
    }
    for (given, key) in [
        (c.trigger_input_tokens.is_some(), "trigger_input_tokens"),
        (c.keep_tool_uses.is_some(), "keep_tool_uses"),
        (c.clear_tool_inputs.is_some(), "clear_tool_inputs"),
    ] {
        if given {
            return Err(ck.err(
                span,
                &at(key),
                format!("{key} is a key of the provider's context editing: add api = \"{API_CLEAR}\", or use this clear's own keys (above_context_tokens, keep_results)"),
            ));
        }
    }
    let policy = ClearPolicy {
        at_cold,
        lifetime_s: crate::fit::cache::DEFAULT_TTL_S,
        every_segments: count(&c.every_segments, "every_segments", 1)?,
        every_calls: count(&c.every_calls, "every_calls", 1)?,
        above_tool_bytes: positive(&c.above_tool_bytes, "above_tool_bytes")?,
        above_context_tokens: positive(&c.above_context_tokens, "above_context_tokens")?,
        older_than_calls: count(&c.older_than_calls, "older_than_calls", 1)?,
        after_gap_s: positive(&c.after_gap_s, "after_gap_s")?,
        keep_segments: count(&c.keep_segments, "keep_segments", 0)?.unwrap_or(0),
        keep_results: count(&c.keep_results, "keep_results", 0)?.unwrap_or(0),
        clear_at_least_tokens: match &c.clear_at_least_tokens {
            Some(v) => ck.non_negative(v, &at("clear_at_least_tokens"))?,
            None => 0.0,
        },
        placeholder_bytes: match &c.placeholder_bytes {
            Some(v) => ck.non_negative(v, &at("placeholder_bytes"))?,
            None => 9.0,
        },
        exclude_kinds_given: c.exclude_kinds.is_some(),
        exclude_kinds: c
            .exclude_kinds
            .clone()
            .unwrap_or_else(|| vec!["web_search".into()]),
        tools: c.tools.clone(),
        exclude_tools: c.exclude_tools.clone().unwrap_or_default(),
        api: None,
        clear_tool_inputs: false,
    };
    if policy.every_segments.is_none()
        && policy.every_calls.is_none()
        && policy.above_tool_bytes.is_none()
        && policy.above_context_tokens.is_none()
        && policy.older_than_calls.is_none()
        && policy.after_gap_s.is_none()
    {
        return Err(ck.err(span, &at("*"), "a clear needs a trigger: every_segments, every_calls, above_tool_bytes, above_context_tokens, older_than_calls or after_gap_s"));
    }
    if let Some(tools) = &policy.tools
        && tools.is_empty()
    {
        return Err(ck.err(
            span,
            &at("tools"),
            "tools = [] would clear nothing: list the tools whose results may be cleared, or leave tools out to allow every tool",
        ));
    }
    Ok(policy)
}

/// Anthropic's context editing, `clear_tool_uses_20250919` (the context-editing docs, read
/// 2026-12-01): when a request's input tokens exceed `trigger_input_tokens` (default
/// 100,000), the oldest tool results are cleared, keeping the most recent
/// `keep_tool_uses` (default 3); nothing happens unless at least `clear_at_least_tokens`
/// are freed; `exclude_tools` are never cleared; with `clear_tool_inputs` the tool-use
/// inputs in the model's messages go too. Expressed as this engine's policy (its
/// `above_context_tokens`, `keep_results`), with what differs said in the report.
pub const API_CLEAR: &str = "clear_tool_uses_20250919";

fn api_clear(
    ck: &Checker,
    place: &str,
    c: &ClearFile,
    api: &Spanned<String>,
) -> Result<ClearPolicy, Located> {
    let at = |key: &str| format!("{place}: clear.{key}");
    if api.get_ref() != API_CLEAR {
        return Err(ck.err(
            Some(api.span()),
            &at("api"),
            format!(
                "unknown context-editing strategy \"{}\": give api = \"{API_CLEAR}\" (Anthropic's tool-result clearing)",
                super::shown(api.get_ref())
            ),
        ));
    }
    // The engine's own triggers and keep rules are not the API's: one or the other.
    for (given, key) in [
        (c.every_segments.is_some(), "every_segments"),
        (c.every_calls.is_some(), "every_calls"),
        (c.above_tool_bytes.is_some(), "above_tool_bytes"),
        (c.above_context_tokens.is_some(), "above_context_tokens"),
        (c.older_than_calls.is_some(), "older_than_calls"),
        (c.after_gap_s.is_some(), "after_gap_s"),
        (c.keep_segments.is_some(), "keep_segments"),
        (c.keep_results.is_some(), "keep_results"),
        (c.tools.is_some(), "tools"),
    ] {
        if given {
            return Err(ck.err(
                Some(api.span()),
                &at(key),
                format!("{key} is not a key of {API_CLEAR}: its keys are trigger_input_tokens, keep_tool_uses, clear_at_least_tokens, exclude_tools and clear_tool_inputs"),
            ));
        }
    }
    let trigger = match &c.trigger_input_tokens {
        Some(v) => ck.positive(v, &at("trigger_input_tokens"))?,
        None => 100_000.0,
    };
    let keep = match &c.keep_tool_uses {
        Some(v) => ck.count(v, &at("keep_tool_uses"), 0)?,
        None => 3,
    };
    Ok(ClearPolicy {
        above_context_tokens: Some(trigger),
        keep_results: keep,
        clear_at_least_tokens: match &c.clear_at_least_tokens {
            Some(v) => ck.non_negative(v, &at("clear_at_least_tokens"))?,
            None => 0.0,
        },
        placeholder_bytes: match &c.placeholder_bytes {
            Some(v) => ck.non_negative(v, &at("placeholder_bytes"))?,
            None => 9.0,
        },
        exclude_kinds_given: c.exclude_kinds.is_some(),
        exclude_kinds: c
            .exclude_kinds
            .clone()
            .unwrap_or_else(|| vec!["web_search".into()]),
        tools: None,
        exclude_tools: c.exclude_tools.clone().unwrap_or_default(),
        api: Some(API_CLEAR),
        clear_tool_inputs: c.clear_tool_inputs.unwrap_or(false),
        ..ClearPolicy::default()
    })
}
