//! `[terms]`: tokens per unit of what a log counts but cannot size (docs/model.md §6.2).

use super::Checker;
use crate::error::Located;
use crate::scenario::file::TermsFile;
use crate::scenario::{Calls, Term, Terms};
use toml::Spanned;

/// Most images or loaded tool definitions one call may count: far above any real log,
/// low enough that a count times its tokens stays a finite, accepted number.
pub const MAX_UNITS: u64 = 1_000_000;

pub(super) fn terms(ck: &Checker, t: &Spanned<TermsFile>) -> Result<Terms, Located> {
    let t = t.get_ref();
    let term = |value: &Option<Spanned<f64>>,
                source: &Option<Spanned<String>>,
                key: &str|
     -> Result<Option<Term>, Located> {
        let Some(v) = value else {
            if let Some(s) = source {
                return Err(ck.err(
                    Some(s.span()),
                    &format!("[terms] {key}_source"),
                    format!("says where `{key}` came from, but `{key}` is not given: add it, or remove the source"),
                ));
            }
            return Ok(None);
        };
        let tokens = ck.non_negative(v, &format!("[terms] {key}"))?;
        if tokens > 1e9 {
            return Err(ck.err(
                Some(v.span()),
                &format!("[terms] {key}"),
                format!("{tokens} tokens per unit is more than any context window holds: give at most 1e9"),
            ));
        }
        let source = source
            .as_ref()
            .map(|s| {
                ck.label(s, &format!("[terms] {key}_source"))
                    .map(str::to_string)
            })
            .transpose()?;
        Ok(Some(Term { tokens, source }))
    };
    Ok(Terms {
        tokens_per_call: term(
            &t.tokens_per_call,
            &t.tokens_per_call_source,
            "tokens_per_call",
        )?,
        tokens_per_image: term(
            &t.tokens_per_image,
            &t.tokens_per_image_source,
            "tokens_per_image",
        )?,
        tokens_per_loaded_tool: term(
            &t.tokens_per_loaded_tool,
            &t.tokens_per_loaded_tool_source,
            "tokens_per_loaded_tool",
        )?,
    })
}

/// A call that loads tool definitions needs their size: a missing value is never 0.
pub(super) fn check_units(ck: &Checker, terms: &Terms, calls: &Calls) -> Result<(), Located> {
    for (i, d) in calls.details().enumerate() {
        let Some(d) = d else { continue };
        for (count, key) in [(d.images, "images"), (d.loaded_tools, "loaded_tools")] {
            if count > MAX_UNITS {
                return Err(ck.err(
                    None,
                    &format!("[[call]] \"{}\": {key}", super::shown(&calls.id(i))),
                    format!("{count} is more than {MAX_UNITS}: give the real count"),
                ));
            }
        }
        if d.loaded_tools > 0 && terms.tokens_per_loaded_tool.is_none() {
            return Err(ck.err(
                None,
                &format!("[[call]] \"{}\": loaded_tools", super::shown(&calls.id(i))),
                "the call loads tool definitions but [terms] has no `tokens_per_loaded_tool`: give their size in tokens (Claude Code's /context shows it), or run `simulate fit` on the scenario to fit it",
            ));
        }
    }
    Ok(())
}
