//! `clear` policies (docs/model.md §3): triggers, keep rules, what may be cleared.

use super::Checker;
use crate::error::Located;
use crate::scenario::ClearPolicy;
use crate::scenario::file::ClearFile;
use toml::Spanned;

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
    let policy = ClearPolicy {
        every_segments: count(&c.every_segments, "every_segments", 1)?,
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
    };
    if policy.every_segments.is_none()
        && policy.above_tool_bytes.is_none()
        && policy.above_context_tokens.is_none()
        && policy.older_than_calls.is_none()
        && policy.after_gap_s.is_none()
    {
        return Err(ck.err(span, &at("*"), "a clear needs a trigger: every_segments, above_tool_bytes, above_context_tokens, older_than_calls or after_gap_s"));
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
