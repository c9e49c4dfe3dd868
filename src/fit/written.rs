//! A fit written into a scenario's text: the values, the named terms, the cache shares,
//! each labelled with where it came from. `simulate fit --write` and `simulate import --fit`
//! both go through here.

use super::Fit;
use crate::number::{grouped, plural};
use crate::scenario::{self, Fitted};

/// `simulate fit: R² = 0.998 on 41 of 44 calls`: what a fitted value's source says.
pub fn summary(f: &Fit, calls: usize) -> String {
    format!(
        "simulate fit: R² = {:.3} on {} of {}",
        f.r_squared,
        f.calls_used,
        plural(calls, "call", "calls")
    )
}

/// `text` with the fit's values written in, labelled `source` (see
/// [`scenario::write_fitted`]).
pub fn fitted_text(
    text: &str,
    file: &str,
    f: &Fit,
    source: &str,
) -> Result<(String, scenario::FittedChanges), crate::error::Located> {
    let fitted = Fitted {
        base_tokens: f.base_tokens,
        bytes_per_token: f.bytes_per_token,
        source: source.to_string(),
        terms: f.terms.iter().map(|t| (t.key, t.tokens)).collect(),
        miss_share: f.cache.as_ref().map(|c| {
            (
                c.miss_share,
                format!(
                    "{}: {} of {} prefix tokens written again over {} within the {} s TTL",
                    source.trim_end_matches(')'),
                    grouped(c.missed_tokens, 0),
                    grouped(c.prefix_tokens, 0),
                    plural(c.requests_compared, "request", "requests"),
                    grouped(c.ttl_s, 0)
                ) + ")",
            )
        }),
        warm_share: f.cache.as_ref().filter(|c| c.warm_share > 0.0).map(|c| {
            (
                c.warm_share,
                format!(
                    "{}: the first request read {} tokens from a cache already warm)",
                    source.trim_end_matches(')'),
                    grouped(c.warm_first_tokens.unwrap_or(0.0), 0)
                ),
            )
        }),
    };
    scenario::write_fitted(text, file, &fitted)
}
