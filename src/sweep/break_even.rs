//! Exact break-even: the base tokens at which two edits save the same (docs/model.md §5).
//!
//! An edit whose events do not move with the assumptions has a reread total affine in
//! `B` and `1/ρ`, so the difference of two savings is, at fixed `ρ`, a line in `B`:
//! `(c_b − c_a)·B + (t_b − t_a) + (y_b − y_a)/ρ`. Its root is computed, not sampled.

use super::region::significant;
use crate::ledger::Affine;
use crate::number::grouped;
use crate::rank::TIE_TOLERANCE;
use serde::Serialize;

/// Where two edits save the same at one `ρ`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakEven {
    /// The edit that saves more at the nominal point.
    pub a: String,
    pub b: String,
    pub bytes_per_token: f64,
    /// The break-even `B`; None when the savings never cross for `B > 0`.
    pub base_tokens: Option<f64>,
    /// Whether `base_tokens` lies within the swept base-token range.
    pub inside_range: bool,
    /// The edit that saves more above the break-even (for every `B > 0` when there is
    /// none); None when the two always tie.
    pub above: Option<String>,
    /// The same in words.
    pub sentence: String,
}

/// The break-even of edits `a` and `b` (reread totals `ta`, `tb`) at `bytes_per_token`,
/// with the swept base-token range `range` and the baseline total for ties.
#[allow(clippy::too_many_arguments)]
pub fn break_even(
    a: &str,
    b: &str,
    ta: &Affine,
    tb: &Affine,
    bytes_per_token: f64,
    range: (f64, f64),
    baseline_total: f64,
) -> BreakEven {
    // Saving difference (a − b) = T_b − T_a = slope·B + intercept.
    let slope = tb.calls - ta.calls;
    let intercept = (tb.tokens - ta.tokens) + (tb.bytes - ta.bytes) / bytes_per_token;
    let root = -intercept / slope;
    let (base_tokens, above) = if slope != 0.0 && root > 0.0 && root.is_finite() {
        (Some(root), Some(if slope > 0.0 { a } else { b }))
    } else if slope == 0.0 && intercept.abs() <= TIE_TOLERANCE * baseline_total.abs() {
        (None, None)
    } else {
        // No crossing for B > 0: the sign at any positive B holds everywhere.
        let sign = if slope == 0.0 { intercept } else { slope };
        (None, Some(if sign > 0.0 { a } else { b }))
    };
    let inside_range = base_tokens.is_some_and(|x| x >= range.0 && x <= range.1);
    let other = |w: &str| if w == a { b } else { a };
    // ρ as a person reads it: a swept 2.4749999999999996 is 2.47.
    let rho = significant(bytes_per_token, 3);
    let sentence = match (base_tokens, above) {
        (Some(x), Some(w)) => format!(
            "{w} saves more than {} for every B above {} at ρ = {rho}{}",
            other(w),
            grouped(x, 0),
            if inside_range {
                ""
            } else {
                " (outside the swept range)"
            }
        ),
        (None, Some(w)) => format!(
            "{w} saves more than {} for every B > 0 at ρ = {rho}: never a break-even",
            other(w)
        ),
        _ => format!("{a} and {b} save the same for every B at ρ = {rho}"),
    };
    BreakEven {
        a: a.into(),
        b: b.into(),
        bytes_per_token,
        base_tokens,
        inside_range,
        above: above.map(String::from),
        sentence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewer_calls_win_above_the_break_even() {
        // a: 20 calls, more bytes re-read; b: 22 calls. T_b − T_a = 2·B − 6000 → B* = 3000.
        let ta = Affine {
            calls: 20.0,
            tokens: 0.0,
            bytes: 33_000.0,
        };
        let tb = Affine {
            calls: 22.0,
            tokens: 0.0,
            bytes: 13_200.0,
        };
        let e = break_even("merge", "trim", &ta, &tb, 3.3, (20_000.0, 40_000.0), 1e6);
        assert!((e.base_tokens.unwrap() - 3000.0).abs() < 1e-9);
        assert_eq!(e.above.as_deref(), Some("merge"));
        assert!(!e.inside_range);
        assert_eq!(
            e.sentence,
            "merge saves more than trim for every B above 3,000 at ρ = 3.3 (outside the swept range)"
        );
    }

    #[test]
    fn equal_call_counts_never_cross() {
        let ta = Affine {
            calls: 22.0,
            tokens: 0.0,
            bytes: 10.0,
        };
        let tb = Affine {
            calls: 22.0,
            tokens: 0.0,
            bytes: 20.0,
        };
        let e = break_even("x", "y", &ta, &tb, 2.0, (1.0, 2.0), 1e6);
        assert_eq!((e.base_tokens, e.above.as_deref()), (None, Some("x")));
        let same = break_even("x", "y", &ta, &ta, 2.0, (1.0, 2.0), 1e6);
        assert_eq!(same.above, None);
    }
}
