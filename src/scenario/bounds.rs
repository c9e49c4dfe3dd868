//! The ranges the assumptions may take, wherever they are given: the scenario file, a
//! `--base`/`--bpt` flag, or a swept axis.
//!
//! The ranges keep every sum finite: with at most 1e15 bytes a call, ρ ≥ 0.01 and ~3e7
//! calls (a 1 GiB trace), a reread total stays below 1e40, far from f64's 1.8e308. A
//! ρ of 5e-324 would make `bytes ÷ ρ` infinite; such input is refused, not computed.

use super::validate::MAX_NUMBER;

/// One of the assumptions the figures rest on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assumption {
    /// B, tokens: more than 0, at most 1e15.
    BaseTokens,
    /// ρ, bytes per token: from 0.01 to 1,000.
    BytesPerToken,
    /// Cache read price, × base input price: more than 0, at most 100.
    CacheRead,
    /// Extra attempts per logical call: from 0 to 100.
    RetryRate,
    /// The share of removed results fetched again (docs/model.md §11): from 0 to 1.
    Refetch,
}

impl Assumption {
    /// `(lowest, lowest allowed?, highest)`.
    fn range(self) -> (f64, bool, f64) {
        match self {
            Assumption::BaseTokens => (0.0, false, MAX_NUMBER),
            Assumption::BytesPerToken => (0.01, true, 1000.0),
            Assumption::CacheRead => (0.0, false, 100.0),
            Assumption::RetryRate => (0.0, true, 100.0),
            Assumption::Refetch => (0.0, true, 1.0),
        }
    }

    /// What the value is, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Assumption::BaseTokens => "base tokens",
            Assumption::BytesPerToken => "bytes per token",
            Assumption::CacheRead => "the cache read price",
            Assumption::RetryRate => "the retry rate",
            Assumption::Refetch => {
                "the re-fetch rate (a share of the removed results, 0.1 for one in ten)"
            }
        }
    }

    /// `x` if it lies in the range, else what would be valid.
    pub fn check(self, x: f64) -> Result<f64, String> {
        let (lo, lo_ok, hi) = self.range();
        let inside = x.is_finite() && x <= hi && (x > lo || (lo_ok && x == lo));
        if inside {
            return Ok(x);
        }
        let valid = if lo_ok {
            format!("from {} to {}", number(lo), number(hi))
        } else {
            format!("more than {} and at most {}", number(lo), number(hi))
        };
        Err(format!(
            "{} is out of range for {}: give a number {valid}",
            number(x),
            self.what(),
        ))
    }
}

/// A number for a message: short, never 300 digits.
pub fn number(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else if x != 0.0 && (x.abs() >= 1e15 || x.abs() < 1e-4) {
        format!("{x:e}")
    } else {
        let text = format!("{x:.6}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_refuse_what_would_overflow_and_say_what_is_valid() {
        assert_eq!(Assumption::BytesPerToken.check(3.3), Ok(3.3));
        let e = Assumption::BytesPerToken.check(5e-324).unwrap_err();
        assert!(
            e.contains("5e-324 is out of range for bytes per token"),
            "{e}"
        );
        assert!(e.contains("from 0.01 to 1000"), "{e}");
        assert!(Assumption::BaseTokens.check(0.0).is_err());
        assert!(Assumption::BaseTokens.check(f64::NAN).is_err());
        assert_eq!(Assumption::RetryRate.check(0.0), Ok(0.0));
        assert!(
            Assumption::CacheRead
                .check(-1.0)
                .unwrap_err()
                .contains("more than 0")
        );
        assert_eq!(number(1e300), "1e300");
        assert_eq!(number(2.4749999999999996), "2.475");
    }
}
