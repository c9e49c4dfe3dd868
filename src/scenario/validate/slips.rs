//! Values that are legal but almost surely a slip: a percent written as a share, a share
//! written as a percent, tokens per byte for bytes per token. Each changes the answer
//! without a word, so each is a warning (printed with the report, counted by a history)
//! that names the key, says what the value means and gives the value probably meant.

use super::{Checker, show};
use std::ops::Range;

/// The highest cache write multiplier a provider charges is 2 (Anthropic's 1-hour cache);
/// above this, `write` is taken for a percent.
pub(super) const MAX_WRITE: f64 = 4.0;

/// `by_percent` under 1: a share of 1 written where a percent is wanted.
pub(super) fn percent(ck: &Checker, span: Range<usize>, place: &str, p: f64) {
    if p < 1.0 {
        let meant = show(p * 100.0);
        ck.warn(
            span,
            place,
            format!(
                "by_percent = {} takes {} % off, not {meant} %: by_percent is a percentage, not a share of 1 (for {meant} %, write by_percent = {meant})",
                show(p),
                show(p)
            ),
        );
    }
}

/// `bytes_per_token` under 1: text never has more tokens than bytes.
pub(super) fn bytes_per_token(ck: &Checker, span: Range<usize>, rho: f64) {
    if rho < 1.0 {
        ck.warn(
            span,
            "bytes_per_token",
            format!(
                "bytes_per_token = {} means more tokens than bytes, which text does not have (about 2.5 to 4.5 bytes a token; the default is 3.3): for tokens per byte, write bytes_per_token = {:.2} (1 ÷ {})",
                show(rho),
                1.0 / rho,
                show(rho)
            ),
        );
    }
}

/// A cache multiplier (`[cache]`'s, or a cache edit's at `place`) above `max`: a percent
/// written where a multiple of the input price is wanted.
pub(super) fn multiplier(
    ck: &Checker,
    span: Range<usize>,
    place: &str,
    key: &str,
    x: f64,
    max: f64,
) {
    if x > max {
        let what = if key == "read" {
            "a token read from the cache"
        } else {
            "a token written to the cache"
        };
        ck.warn(
            span,
            place,
            format!(
                "{key} = {} makes {what} cost {} times a plain input token: {key} is a multiple of the input price (0.1 is a tenth, 1.25 a quarter more), not a percent; did you mean {key} = {}?",
                show(x),
                show(x),
                show(x / 100.0)
            ),
        );
    }
}

/// `[cache] output` under 1 or above 20: every provider's output token costs more than an
/// input token (3 to 8 times for the models of the price data), so a ratio under 1 is taken
/// for input over output, and one above 20 for a price in dollars.
pub(super) fn output_ratio(ck: &Checker, span: Range<usize>, r: f64) {
    let meant = if r < 1.0 {
        Some(format!(
            "output = {} makes an output token cheaper than an input token, which no provider charges: output is the output price over the input price (5 for most Claude models); did you mean output = {}?",
            show(r),
            show(1.0 / r)
        ))
    } else if r > 20.0 {
        Some(format!(
            "output = {} makes an output token cost {} input tokens: output is the output price over the input price (5 for most Claude models), not a price in dollars",
            show(r),
            show(r)
        ))
    } else {
        None
    };
    if let Some(message) = meant {
        ck.warn(span, "[cache] output", message);
    }
}

/// A percentage under 1 where a percentage of a whole is wanted (`at_percent = 0.9`): a
/// share of 1 written for a percent.
pub(super) fn share_for_percent(ck: &Checker, span: Range<usize>, place: &str, p: f64) {
    if p < 1.0 {
        let meant = show(p * 100.0);
        ck.warn(
            span,
            place,
            format!(
                "{} % of the window: did you mean {meant}? at_percent is a percentage, not a share of 1 (for {meant} %, write at_percent = {meant})",
                show(p)
            ),
        );
    }
}

/// `[behaviour] refetch = 1`: every removed result fetched again, which leaves a clearing
/// nothing to save; more likely 1 % written as a percent.
pub(super) fn refetch(ck: &Checker, span: Range<usize>, p: f64) {
    if p == 1.0 {
        ck.warn(
            span,
            "[behaviour] refetch",
            "refetch = 1 makes the agent fetch again every result an edit removes: refetch is a share of 1 (0.1 for one in ten), not a percent; did you mean refetch = 0.01?".to_string(),
        );
    }
}
