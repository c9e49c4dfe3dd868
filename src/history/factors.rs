//! The sweep of a history: relative factors on every session's own B and ρ.
//!
//! Each session has its own nominal point (a fitted B of 18,000 here, an assumed 30,000
//! there), so a grid of absolute values would put some sessions far outside what is known
//! about them. Scaling every session's values by the same factors asks the question the
//! single-scenario sweep asks: if the assumptions are all off by this much, does the answer
//! change?

use crate::number::decimal;
use serde::{Deserialize, Serialize};

/// The smallest and largest factor accepted: a factor outside is a typo, not a doubt.
pub const FACTOR_RANGE: (f64, f64) = (0.01, 100.0);

/// Relative factors on B and ρ; grid order is base factors outermost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Factors {
    /// Ascending factors on each session's B; default ⅔, 1, 4⁄3.
    pub base_tokens: Vec<f64>,
    /// Ascending factors on each session's ρ; default 0.75, 1, 1.25.
    pub bytes_per_token: Vec<f64>,
    /// Whether these are docs/model.md §5's default proportions.
    pub default: bool,
}

impl Default for Factors {
    fn default() -> Self {
        Factors {
            base_tokens: vec![2.0 / 3.0, 1.0, 4.0 / 3.0],
            bytes_per_token: vec![0.75, 1.0, 1.25],
            default: true,
        }
    }
}

impl Factors {
    /// Factors from the command line (either axis may be left at its default); see
    /// [`checked`].
    pub fn new(
        base_tokens: Option<Vec<f64>>,
        bytes_per_token: Option<Vec<f64>>,
    ) -> Result<Factors, String> {
        let defaults = Factors::default();
        let default = base_tokens.is_none() && bytes_per_token.is_none();
        Ok(Factors {
            base_tokens: checked(base_tokens.unwrap_or(defaults.base_tokens), "base tokens")?,
            bytes_per_token: checked(
                bytes_per_token.unwrap_or(defaults.bytes_per_token),
                "bytes per token",
            )?,
            default,
        })
    }

    /// Number of grid points.
    pub fn len(&self) -> usize {
        self.base_tokens.len() * self.bytes_per_token.len()
    }

    /// Whether the grid is empty (never, for checked factors).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `(base factor, bytes-per-token factor)` of point `index`, grid order.
    pub fn point(&self, index: usize) -> (f64, f64) {
        let r = self.bytes_per_token.len().max(1);
        (self.base_tokens[index / r], self.bytes_per_token[index % r])
    }

    /// Every point, grid order.
    pub fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        (0..self.len()).map(|i| self.point(i))
    }

    /// `B × ⅔, 1, 4⁄3 and ρ × 0.75, 1, 1.25`.
    pub fn describe(&self) -> String {
        let list = |v: &[f64]| v.iter().map(|&x| label(x)).collect::<Vec<_>>().join(", ");
        format!(
            "B × {} and ρ × {}",
            list(&self.base_tokens),
            list(&self.bytes_per_token)
        )
    }
}

/// `values` sorted and deduplicated, if every one lies in [`FACTOR_RANGE`] and there is at
/// least one; `what` names the axis in the message.
pub fn checked(mut values: Vec<f64>, what: &str) -> Result<Vec<f64>, String> {
    let (lo, hi) = FACTOR_RANGE;
    if let Some(bad) = values
        .iter()
        .find(|x| !(x.is_finite() && **x >= lo && **x <= hi))
    {
        return Err(format!(
            "factor {bad} on {what} is out of range: a factor is from {lo} to {hi} (1 is the session's own value)"
        ));
    }
    values.sort_by(f64::total_cmp);
    values.dedup();
    if values.is_empty() {
        return Err(format!("no factors on {what}: give at least one, e.g. 1"));
    }
    Ok(values)
}

/// A factor for people: `⅔`, `4⁄3`, `1.25`.
pub fn label(x: f64) -> String {
    let near = |y: f64| (x - y).abs() < 1e-12;
    if near(2.0 / 3.0) {
        "⅔".into()
    } else if near(4.0 / 3.0) {
        "4⁄3".into()
    } else if near(1.0 / 3.0) {
        "⅓".into()
    } else {
        decimal(x)
    }
}

/// A grid point for people: `B × ⅔, ρ × 1.25`.
pub fn point_label((b, r): (f64, f64)) -> String {
    format!("B × {}, ρ × {}", label(b), label(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_grid_is_model_section_5_in_proportions() {
        let f = Factors::default();
        assert_eq!(f.len(), 9);
        assert_eq!(f.point(0), (2.0 / 3.0, 0.75));
        assert_eq!(f.point(5), (1.0, 1.25));
        assert_eq!(f.describe(), "B × ⅔, 1, 4⁄3 and ρ × 0.75, 1, 1.25");
    }

    #[test]
    fn factors_are_sorted_checked_and_default_per_axis() {
        let f = Factors::new(Some(vec![2.0, 0.5, 1.0, 1.0]), None).unwrap();
        assert_eq!(f.base_tokens, vec![0.5, 1.0, 2.0]);
        assert_eq!(f.bytes_per_token, vec![0.75, 1.0, 1.25]);
        assert!(!f.default);
        assert!(
            Factors::new(Some(vec![0.0]), None)
                .unwrap_err()
                .contains("out of range")
        );
        assert!(
            Factors::new(None, Some(vec![]))
                .unwrap_err()
                .contains("no factors")
        );
        assert!(Factors::new(None, None).unwrap().default);
    }
}
