//! Rule edits (docs/model.md §7): actions that select calls by what they are instead of naming
//! them, so one edit applies to any trace; and the edit of the base tokens.

use super::Checker;
use super::select::selector;
use crate::error::Located;
use crate::scenario::file::{BaseFile, CapFile, DedupeFile, SelectFile};
use crate::scenario::{Action, BaseChange, Selector};
use toml::Spanned;

/// The `select` table a rule needs.
fn required_select(
    ck: &Checker,
    select: &Option<Spanned<SelectFile>>,
    span: std::ops::Range<usize>,
    place: &str,
    example: &str,
) -> Result<Selector, Located> {
    match select {
        Some(s) => selector(ck, s, &format!("{place}.select")),
        None => Err(ck.err(
            Some(span),
            place,
            format!("missing key `select`: which calls it applies to, e.g. {example}"),
        )),
    }
}

pub(super) fn cap(ck: &Checker, c: &Spanned<CapFile>, place: &str) -> Result<Action, Located> {
    let span = c.span();
    let c = c.get_ref();
    let select = required_select(
        ck,
        &c.select,
        span.clone(),
        place,
        "cap = { select = { tool = \"Bash\" }, max_bytes = 8000 }",
    )?;
    let max_bytes = match &c.max_bytes {
        Some(v) => ck.non_negative(v, &format!("{place}.max_bytes"))?,
        None => {
            return Err(ck.err(
                Some(span),
                place,
                "missing key `max_bytes`: the most bytes a selected result keeps, e.g. max_bytes = 8000",
            ));
        }
    };
    Ok(Action::Cap { select, max_bytes })
}

pub(super) fn dedupe(
    ck: &Checker,
    d: &Spanned<DedupeFile>,
    place: &str,
) -> Result<Action, Located> {
    let span = d.span();
    let d = d.get_ref();
    let select = required_select(
        ck,
        &d.select,
        span,
        place,
        "dedupe = { select = { tool = \"Read\" } }",
    )?;
    let placeholder_bytes = match &d.placeholder_bytes {
        Some(v) => ck.non_negative(v, &format!("{place}.placeholder_bytes"))?,
        None => 9.0,
    };
    Ok(Action::Dedupe {
        select,
        placeholder_bytes,
        same_bytes: d.same_bytes.unwrap_or(false),
    })
}

/// `trim = { select, by_percent }`.
pub(super) fn trim_selected(
    ck: &Checker,
    s: &Spanned<SelectFile>,
    percent: Option<&Spanned<f64>>,
    span: std::ops::Range<usize>,
    place: &str,
) -> Result<Action, Located> {
    let select = selector(ck, s, &format!("{place}.select"))?;
    let Some(v) = percent else {
        return Err(ck.err(
            Some(span),
            place,
            "a trim with select takes by_percent (the same share off every selected result), e.g. trim = { select = { tool = \"Bash\" }, by_percent = 50 }",
        ));
    };
    let p = ck.positive(v, &format!("{place}.by_percent"))?;
    super::slips::percent(ck, v.span(), &format!("{place}.by_percent"), p);
    if p > 100.0 {
        return Err(ck.err(
            Some(v.span()),
            &format!("{place}.by_percent"),
            format!("{p} is over 100: give a percentage in (0, 100]"),
        ));
    }
    Ok(Action::TrimSelected { select, percent: p })
}

/// `base = { by_tokens = N }`, `{ by_bytes = N }` or `{ to_tokens = N }`.
pub(super) fn base(ck: &Checker, b: &Spanned<BaseFile>, place: &str) -> Result<Action, Located> {
    if b.get_ref().drop.is_some() || b.get_ref().defer.is_some() {
        return super::whatif::base_part_edit(ck, b, place);
    }
    let span = b.span();
    let b = b.get_ref();
    if let Some(s) = &b.stub_tokens {
        return Err(ck.err(
            Some(s.span()),
            &format!("{place}.stub_tokens"),
            "stub_tokens goes with defer = \"<part>\": what a deferred base part leaves in every request",
        ));
    }
    let given = [&b.by_tokens, &b.by_bytes, &b.to_tokens]
        .iter()
        .filter(|v| v.is_some())
        .count();
    if given != 1 {
        return Err(ck.err(
            Some(span),
            place,
            "give exactly one of by_tokens (tokens removed from B; negative adds), by_bytes (bytes removed, ÷ ρ), to_tokens (the new B), drop = \"<part>\" or defer = \"<part>\" (a [[base.part]])",
        ));
    }
    // A negative change is allowed (a new skill file adds to B); it must stay finite.
    let signed = |v: &Spanned<f64>, key: &str| -> Result<f64, Located> {
        let x = *v.get_ref();
        if x.is_finite() && x.abs() <= super::MAX_NUMBER && x != 0.0 {
            Ok(x)
        } else {
            Err(ck.err(
                Some(v.span()),
                &format!("{place}.{key}"),
                format!(
                    "{} must be a finite number other than 0, at most 1e15 in size",
                    super::show(x)
                ),
            ))
        }
    };
    let change = if let Some(v) = &b.by_tokens {
        BaseChange {
            keep: true,
            tokens: -signed(v, "by_tokens")?,
            bytes: 0.0,
        }
    } else if let Some(v) = &b.by_bytes {
        BaseChange {
            keep: true,
            tokens: 0.0,
            bytes: -signed(v, "by_bytes")?,
        }
    } else if let Some(v) = &b.to_tokens {
        BaseChange {
            keep: false,
            tokens: ck.non_negative(v, &format!("{place}.to_tokens"))?,
            bytes: 0.0,
        }
    } else {
        BaseChange::NONE
    };
    Ok(Action::Base(change))
}
