//! `compact` policies (docs/model.md §9): when a compaction runs, and what it leaves.

use super::Checker;
use crate::error::Located;
use crate::number::grouped;
use crate::scenario::CompactPolicy;
use crate::scenario::file::CompactFile;
use crate::scenario::provider::{ANTHROPIC_COMPACT, OPENAI_COMPACT};
use toml::Spanned;

/// The Messages API's server-side compaction: its default trigger and the lowest it
/// accepts (Anthropic's compaction docs, `compact_20260112`, read 2026-12-01).
pub const API_DEFAULT_TRIGGER: f64 = 150_000.0;
pub const API_MIN_TRIGGER: f64 = 50_000.0;
/// Claude Code's automatic compaction runs at the window less a reserve: 13,000 tokens of
/// buffer (`AUTOCOMPACT_BUFFER_TOKENS`) and up to 20,000 for the summary's output
/// (`min(max output, 20,000)`), as read from Claude Code's `autoCompact.ts` by several
/// readers of its source (2026; e.g. 167,000 of a 200,000-token window, 83.5 %).
pub const CLAUDE_CODE_RESERVE: f64 = 33_000.0;
/// Claude Code's default context window.
pub const CLAUDE_CODE_WINDOW: f64 = 200_000.0;

pub(super) fn compact(
    ck: &Checker,
    place: &str,
    c: &Spanned<CompactFile>,
) -> Result<CompactPolicy, Located> {
    let span = Some(c.span());
    let c = c.get_ref();
    let at = |key: &str| format!("{place}: compact.{key}");
    let positive = |v: &Option<Spanned<f64>>, key: &str| {
        v.as_ref().map(|v| ck.positive(v, &at(key))).transpose()
    };
    let at_cold = super::clearing::at_cold(ck, &at("at"), &c.at, c.api.is_some())?;
    if let Some(api) = &c.api {
        return openai(ck, place, c, api, span);
    }
    if let Some(t) = &c.compact_threshold {
        return Err(ck.err(
            Some(t.span()),
            &at("compact_threshold"),
            format!(
                "compact_threshold is a key of OpenAI's server-side compaction: add api = \"{OPENAI_COMPACT}\", or give this compaction's own trigger (above_context_tokens)"
            ),
        ));
    }
    let above = positive(&c.above_context_tokens, "above_context_tokens")?;
    let window = positive(&c.window_tokens, "window_tokens")?;
    let percent = match &c.at_percent {
        Some(v) => {
            let p = ck.positive(v, &at("at_percent"))?;
            if p > 100.0 {
                return Err(ck.err(
                    Some(v.span()),
                    &at("at_percent"),
                    format!("{p} % is more than the whole window: give a percentage from 0 to 100"),
                ));
            }
            super::slips::share_for_percent(ck, v.span(), &at("at_percent"), p);
            Some((p, v.span()))
        }
        None => None,
    };
    let mut api = None;
    let (threshold_tokens, trigger) = match (c.preset.as_ref(), above, percent) {
        (Some(p), _, Some((_, s))) => {
            return Err(ck.err(
                Some(s),
                &at("at_percent"),
                format!(
                    "preset \"{}\" sets the trigger; give above_context_tokens to change it, not at_percent",
                    super::shown(p.get_ref())
                ),
            ));
        }
        (Some(p), above, None) => match p.get_ref().as_str() {
            ANTHROPIC_COMPACT => {
                api = Some(ANTHROPIC_COMPACT);
                let x = above.unwrap_or(API_DEFAULT_TRIGGER);
                if x < API_MIN_TRIGGER {
                    return Err(ck.err(
                        c.above_context_tokens.as_ref().map(|v| v.span()),
                        &at("above_context_tokens"),
                        format!(
                            "{} is below the {} tokens the Messages API's compaction accepts as a trigger: give at least {}",
                            grouped(x, 0),
                            grouped(API_MIN_TRIGGER, 0),
                            grouped(API_MIN_TRIGGER, 0)
                        ),
                    ));
                }
                (
                    x,
                    format!(
                        "the Messages API's compact_20260112, above {} input tokens (its default is 150,000, its minimum 50,000; Anthropic's compaction docs, read 2026-12-01)",
                        grouped(x, 0)
                    ),
                )
            }
            "claude-code" => {
                let w = window.unwrap_or(CLAUDE_CODE_WINDOW);
                let x = above.unwrap_or(w - CLAUDE_CODE_RESERVE);
                if x <= 0.0 {
                    return Err(ck.err(
                        c.window_tokens.as_ref().map(|v| v.span()),
                        &at("window_tokens"),
                        format!(
                            "a window of {} tokens leaves nothing above Claude Code's reserve of {}: give a larger window",
                            grouped(w, 0),
                            grouped(CLAUDE_CODE_RESERVE, 0)
                        ),
                    ));
                }
                (
                    x,
                    format!(
                        "Claude Code's automatic compaction, above {} tokens (a {}-token window less its reserve of 33,000: a 13,000-token buffer and up to 20,000 for the summary, as read from its autoCompact.ts source)",
                        grouped(x, 0),
                        grouped(w, 0)
                    ),
                )
            }
            other => {
                return Err(ck.err(
                    Some(p.span()),
                    &at("preset"),
                    format!(
                        "unknown compaction preset \"{}\": give \"compact_20260112\" (the Messages API's) or \"claude-code\" (Claude Code's automatic compaction)",
                        super::shown(other)
                    ),
                ));
            }
        },
        (None, Some(x), None) => (x, format!("above {} tokens", grouped(x, 0))),
        (None, None, Some((p, _))) => {
            let Some(w) = window else {
                return Err(ck.err(
                    span,
                    &at("window_tokens"),
                    "at_percent needs window_tokens: the context window it is a percentage of (e.g. window_tokens = 200000)",
                ));
            };
            (
                p / 100.0 * w,
                format!("at {p} % of a {}-token window", grouped(w, 0)),
            )
        }
        (None, Some(_), Some((_, s))) => {
            return Err(ck.err(
                Some(s),
                &at("at_percent"),
                "give above_context_tokens or at_percent (with window_tokens), not both",
            ));
        }
        (None, None, None) => {
            return Err(ck.err(
                span,
                &at("*"),
                "a compact needs a trigger: above_context_tokens = N, at_percent = P with window_tokens = W, or preset = \"compact_20260112\" or \"claude-code\"",
            ));
        }
    };
    let summary_tokens = summary(ck, place, c, span, threshold_tokens)?;
    let keep_calls = match &c.keep_calls {
        Some(v) => ck.count(v, &at("keep_calls"), 0)?,
        None => 0,
    };
    if at_cold && api.is_some() {
        return Err(ck.err(
            c.at.as_ref().map(|v| v.span()),
            &at("at"),
            "at = \"cold\" cannot be given with the API's compaction (preset = \"compact_20260112\"): the server compacts when the input crosses its trigger; use above_context_tokens to simulate the client compacting",
        ));
    }
    Ok(CompactPolicy {
        threshold_tokens,
        summary_tokens,
        keep_calls,
        trigger,
        api,
        at_cold,
        lifetime_s: crate::fit::cache::DEFAULT_TTL_S,
    })
}

/// `summary_tokens`, smaller than the trigger.
fn summary(
    ck: &Checker,
    place: &str,
    c: &CompactFile,
    span: Option<std::ops::Range<usize>>,
    threshold_tokens: f64,
) -> Result<f64, Located> {
    let at = format!("{place}: compact.summary_tokens");
    let Some(summary) = &c.summary_tokens else {
        return Err(ck.err(
            span,
            &at,
            "missing key `summary_tokens`: the size of the summary a compaction writes (a session of yours that compacted shows it: `simulate fit` on its part 2 gives the first request's input less B)",
        ));
    };
    let summary_tokens = ck.non_negative(summary, &at)?;
    if summary_tokens >= threshold_tokens {
        return Err(ck.err(
            Some(summary.span()),
            &at,
            format!(
                "a summary of {} tokens is not smaller than the trigger of {}: every call would compact again",
                grouped(summary_tokens, 0),
                grouped(threshold_tokens, 0)
            ),
        ));
    }
    Ok(summary_tokens)
}

/// OpenAI's server-side compaction: `compact = { api = "openai-responses",
/// compact_threshold = N, summary_tokens = S }`. When a Responses API request's rendered
/// token count crosses `compact_threshold`, the server compacts the context into one
/// opaque, encrypted compaction item that stands for everything before it (OpenAI's
/// compaction guide, developers.openai.com/api/docs/guides/compaction, read 2026-12-02).
/// The guide documents no default and no minimum for the threshold, and the item's size is
/// not shown, so both are given: S from the user's own compactions, or assumed.
fn openai(
    ck: &Checker,
    place: &str,
    c: &CompactFile,
    api: &Spanned<String>,
    span: Option<std::ops::Range<usize>>,
) -> Result<CompactPolicy, Located> {
    let at = |key: &str| format!("{place}: compact.{key}");
    if api.get_ref() != OPENAI_COMPACT {
        return Err(ck.err(
            Some(api.span()),
            &at("api"),
            format!(
                "unknown compaction api \"{}\": give api = \"{OPENAI_COMPACT}\" (OpenAI's server-side compaction), or preset = \"{ANTHROPIC_COMPACT}\" (the Messages API's)",
                super::shown(api.get_ref())
            ),
        ));
    }
    for (given, key) in [
        (c.preset.is_some(), "preset"),
        (c.above_context_tokens.is_some(), "above_context_tokens"),
        (c.at_percent.is_some(), "at_percent"),
        (c.window_tokens.is_some(), "window_tokens"),
        (c.keep_calls.is_some(), "keep_calls"),
    ] {
        if given {
            return Err(ck.err(
                Some(api.span()),
                &at(key),
                format!("{key} is not a key of OpenAI's server-side compaction: its keys are compact_threshold and summary_tokens (the compaction item stands for everything before it)"),
            ));
        }
    }
    let Some(t) = &c.compact_threshold else {
        return Err(ck.err(
            span,
            &at("compact_threshold"),
            "missing key `compact_threshold`: the rendered input tokens above which the server compacts (OpenAI documents no default), e.g. compact_threshold = 200000",
        ));
    };
    let threshold_tokens = ck.positive(t, &at("compact_threshold"))?;
    let summary_tokens = summary(ck, place, c, span, threshold_tokens)?;
    Ok(CompactPolicy {
        threshold_tokens,
        summary_tokens,
        keep_calls: 0,
        trigger: format!(
            "OpenAI's server-side compaction in the Responses API, above {} input tokens (context_management compact_threshold; OpenAI's compaction guide, read 2026-12-02)",
            grouped(threshold_tokens, 0)
        ),
        api: Some(OPENAI_COMPACT),
        at_cold: false,
        lifetime_s: crate::fit::cache::DEFAULT_TTL_S,
    })
}
