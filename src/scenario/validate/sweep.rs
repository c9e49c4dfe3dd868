//! `[sweep]`: the swept values of each assumption, from the file or the command line.

use super::{Checker, show};
use crate::error::Located;
use crate::scenario::Assumption;
use crate::scenario::file::{AxisFile, SweepFile};
use crate::scenario::{Axis, SweepSpec};
use toml::Spanned;

/// Largest number of values a `{ from, to, steps }` range may make.
pub const MAX_RANGE_STEPS: i64 = 100_000;

pub(super) fn sweep(ck: &Checker, s: &SweepFile) -> Result<SweepSpec, Located> {
    let axis = |a: &Option<Spanned<AxisFile>>,
                key: &str,
                what: Assumption|
     -> Result<Option<Axis>, Located> {
        a.as_ref()
            .map(|a| axis(ck, a, &format!("[sweep] {key}"), what))
            .transpose()
    };
    Ok(SweepSpec {
        base_tokens: axis(&s.base_tokens, "base_tokens", Assumption::BaseTokens)?,
        bytes_per_token: axis(
            &s.bytes_per_token,
            "bytes_per_token",
            Assumption::BytesPerToken,
        )?,
        cache_read: axis(&s.cache_read, "cache_read", Assumption::CacheRead)?,
        retry_rate: axis(&s.retry_rate, "retry_rate", Assumption::RetryRate)?,
        refetch: axis(&s.refetch, "refetch", Assumption::Refetch)?,
    })
}

/// A swept axis of `what`, sorted ascending without repeats.
fn axis(
    ck_file: &Checker,
    a: &Spanned<AxisFile>,
    place: &str,
    what: Assumption,
) -> Result<Axis, Located> {
    let err = |m: String| ck_file.err(Some(a.span()), place, m);
    let values = match a.get_ref() {
        AxisFile::List(v) => v.clone(),
        AxisFile::Range { from, to, steps } => range(*from, *to, *steps).map_err(err)?,
    };
    checked_axis(values, what).map_err(err)
}

/// Swept values of `what`, from the file or the command line: at least one, each in its
/// range ([`Assumption::check`]); sorted ascending without repeats.
pub fn checked_axis(values: Vec<f64>, what: Assumption) -> Result<Axis, String> {
    if values.is_empty() {
        return Err("the list is empty; give at least one value".into());
    }
    for &x in &values {
        what.check(x)?;
    }
    Ok(sorted_axis(values))
}

/// `steps` evenly spaced values from `from` to `to`, both included.
pub fn range(from: f64, to: f64, steps: i64) -> Result<Vec<f64>, String> {
    if !(2..=MAX_RANGE_STEPS).contains(&steps) {
        return Err(format!(
            "steps = {steps}: give a whole number from 2 to {MAX_RANGE_STEPS}"
        ));
    }
    if !(from.is_finite() && to.is_finite()) || from == to {
        return Err(format!(
            "from = {} and to = {}: give two different finite numbers",
            show(from),
            show(to)
        ));
    }
    let last = (steps - 1) as f64;
    Ok((0..steps)
        .map(|i| {
            if i == steps - 1 {
                to
            } else {
                from + (to - from) * i as f64 / last
            }
        })
        .collect())
}

/// Sorts ascending and drops repeated values.
fn sorted_axis(mut values: Vec<f64>) -> Axis {
    values.sort_by(f64::total_cmp);
    values.dedup();
    Axis(values)
}
