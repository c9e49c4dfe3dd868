//! Turning the file's serde shapes into checked engine types.
//!
//! Every check that can fail on user input lives in this module and its parts, one per
//! section of the file: `calls`, `edits`, `clearing`, `cache` (with `[price]`) and
//! `sweep`. Each error names the file, the line and column where known, the key, and what
//! would be valid.

mod cache;
mod calls;
mod clearing;
mod edits;
mod sweep;

pub use sweep::{MAX_RANGE_STEPS, checked_axis, range};

use super::Scenario;
use super::file::ScenarioFile;
use crate::error::{Error, Located, line_column};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// Largest number accepted anywhere in a scenario: a petabyte of bytes, a quadrillion
/// tokens. Beyond it, sums over a million calls could overflow to infinity.
pub const MAX_NUMBER: f64 = 1e15;

/// Where errors point: the file's name and text.
struct Checker<'a> {
    file: String,
    text: &'a str,
}

impl Checker<'_> {
    fn err(&self, span: Option<Range<usize>>, place: &str, message: impl Into<String>) -> Located {
        let at = span.map(|s| line_column(self.text, s.start));
        Located::new(&self.file, message).at(at).place(place)
    }

    /// A finite number `> 0`.
    fn positive(&self, v: &Spanned<f64>, place: &str) -> Result<f64, Located> {
        let x = *v.get_ref();
        if x.is_finite() && x > MAX_NUMBER {
            Err(self.too_large(v, place))
        } else if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(self.err(
                Some(v.span()),
                place,
                format!("{} must be a finite number > 0", show(x)),
            ))
        }
    }

    /// A finite number `>= 0`.
    fn non_negative(&self, v: &Spanned<f64>, place: &str) -> Result<f64, Located> {
        let x = *v.get_ref();
        if x.is_finite() && x > MAX_NUMBER {
            Err(self.too_large(v, place))
        } else if x.is_finite() && x >= 0.0 {
            Ok(x)
        } else {
            Err(self.err(
                Some(v.span()),
                place,
                format!("{} must be a finite number ≥ 0", show(x)),
            ))
        }
    }

    fn too_large(&self, v: &Spanned<f64>, place: &str) -> Located {
        let x = *v.get_ref();
        self.err(
            Some(v.span()),
            place,
            format!(
                "{} is too large: give at most 1e15 (sums of larger values overflow)",
                show(x)
            ),
        )
    }

    /// A whole number `>= min`.
    fn count(&self, v: &Spanned<i64>, place: &str, min: i64) -> Result<u64, Located> {
        let x = *v.get_ref();
        if x >= min {
            Ok(x as u64)
        } else {
            Err(self.err(
                Some(v.span()),
                place,
                format!("{x} must be a whole number ≥ {min}"),
            ))
        }
    }
}

fn show(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.abs() >= 1e15 {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// Checks a parsed scenario file; `path` is where it was read from.
pub fn scenario(raw: ScenarioFile, text: &str, path: &Path) -> Result<Scenario, Error> {
    let ck = Checker {
        file: path.display().to_string(),
        text,
    };
    let top = Some(0..0);
    let name = match &raw.name {
        Some(n) => scenario_name(&ck, n)?,
        None => return Err(ck.err(top, "name", "missing key `name` (e.g. name = \"nightly-maintenance\"; results go to out/<name>/)").into()),
    };
    let base_tokens = match &raw.base_tokens {
        Some(v) => ck.positive(v, "base_tokens")?,
        None => return Err(ck.err(top, "base_tokens", "missing key `base_tokens`: the tokens every call reads (system prompt, tools), e.g. base_tokens = 30000").into()),
    };
    let bytes_per_token = match &raw.bytes_per_token {
        Some(v) => ck.positive(v, "bytes_per_token")?,
        None => return Err(ck.err(top, "bytes_per_token", "missing key `bytes_per_token`: bytes per estimated token, e.g. bytes_per_token = 3.3").into()),
    };
    let retry_rate = match &raw.retry_rate {
        Some(v) => ck.non_negative(v, "retry_rate")?,
        None => 0.0,
    };
    let calls = match (&raw.calls_tsv, raw.call.is_empty()) {
        (Some(tsv), true) => calls::tsv_calls(&ck, tsv, path)?,
        (None, false) => raw
            .call
            .iter()
            .enumerate()
            .map(|(i, c)| calls::call(&ck, i, c))
            .collect::<Result<Vec<_>, _>>()?,
        (Some(tsv), false) => {
            return Err(ck
                .err(
                    Some(tsv.span()),
                    "calls_tsv",
                    "give the calls either as [[call]] tables or as calls_tsv, not both",
                )
                .into());
        }
        (None, true) => {
            return Err(ck
                .err(
                    top,
                    "call",
                    "the scenario has no calls: add [[call]] tables or calls_tsv = \"run.tsv\"",
                )
                .into());
        }
    };
    let calls = calls::finish_calls(&ck, calls, &raw.call)?;
    let cache = raw
        .cache
        .as_ref()
        .map(|c| cache::cache(&ck, c))
        .transpose()?;
    let price = raw
        .price
        .as_ref()
        .map(|p| cache::price(&ck, p))
        .transpose()?;
    let sweep = raw
        .sweep
        .as_ref()
        .map(|s| sweep::sweep(&ck, s))
        .transpose()?;
    let edits = edits::edits(&ck, raw.edit)?;
    Ok(Scenario {
        name,
        description: raw.description,
        source: ck.file.clone(),
        base_tokens,
        bytes_per_token,
        retry_rate,
        calls,
        edits,
        sweep,
        cache,
        price,
    })
}

fn scenario_name(ck: &Checker, n: &Spanned<String>) -> Result<String, Located> {
    let s = n.get_ref();
    let mut chars = s.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    let rest_ok =
        chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if first_ok && rest_ok && s.len() <= 100 {
        Ok(s.clone())
    } else {
        Err(ck.err(Some(n.span()), "name", format!("\"{s}\" is not a valid name: use lowercase letters, digits, '_' and '-', starting with a letter or digit, at most 100 characters (it becomes the directory out/<name>/)")))
    }
}
