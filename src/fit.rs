//! Fitting `B` and `ρ` to measured usage (docs/model.md §6.2, "Fit").
//!
//! For a call with measured total input `m_i`, the model says
//! `m_i − Σ_{j<i} (output_tokens_j + tokens_j) = B + b_i / ρ`, where `b_i` is the bytes that
//! joined the context before call i. An ordinary least-squares line through the points
//! `(b_i, m_i − Σ_{j<i} …)` gives `B` (the intercept) and `1/ρ` (the slope): the two
//! assumptions every figure rests on, replaced by measurements.

use crate::scenario::Scenario;
use serde::Serialize;

/// Under this many calls a fit is flagged as resting on few points (not refused).
pub const FEW_CALLS: usize = 10;

/// Below this R² the fit is said to be poor and is not written without `--force`.
pub const MIN_R_SQUARED: f64 = 0.9;
/// Outside this range of ρ (bytes per token) the fit is said to be poor.
pub const PLAUSIBLE_BYTES_PER_TOKEN: (f64, f64) = (1.0, 8.0);

/// A call the fit did not use, and why.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LeftOut {
    /// 1-based position in the trace.
    pub call: usize,
    pub id: String,
    pub reason: &'static str,
}

/// The largest residual.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Residual {
    pub call: usize,
    pub id: String,
    /// Measured minus fitted, tokens.
    pub tokens: f64,
    /// Of the measured total input.
    pub percent: f64,
}

/// The fitted assumptions and how well they fit.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Fit {
    /// The intercept: tokens every call reads.
    pub base_tokens: f64,
    /// `1 / slope`: bytes per token of the results.
    pub bytes_per_token: f64,
    pub r_squared: f64,
    pub calls_used: usize,
    pub calls_left_out: usize,
    pub left_out: Vec<LeftOut>,
    /// Median of |measured − fitted|, tokens and percent of measured.
    pub median_residual_tokens: f64,
    pub median_residual_pct: f64,
    pub worst_residual: Option<Residual>,
    /// Why the fit is poor, in words; None for a good fit.
    pub poor: Option<String>,
    /// A caution that does not stop `--write`: too few calls for R² to mean much.
    pub caution: Option<String>,
    /// The measured counts' unit: the provider's usage fields and their convention.
    pub unit: String,
}

/// Why no line can be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error(
        "{used} of {calls} calls carry measured usage; a fit needs at least 3 (import the session with `simulate import`, or add [call.measured] tables)"
    )]
    TooFewCalls { used: usize, calls: usize },
    #[error(
        "the context never grows by any bytes across the measured calls, so bytes per token cannot be fitted"
    )]
    NoGrowth,
}

/// Fits `B` and `ρ` to `scenario`'s measured usage.
pub fn fit(scenario: &Scenario) -> Result<Fit, FitError> {
    let mut points: Vec<(usize, f64, f64, f64)> = Vec::new(); // call, x = bytes, y, measured
    let mut left_out = Vec::new();
    let (mut bytes_before, mut tokens_before) = (0.0, 0.0);
    let mut conventions: Vec<&'static str> = Vec::new();
    for (i, call) in scenario.calls.iter().enumerate() {
        let reason = match call.usage() {
            None => Some("no measured usage"),
            Some(u) => match u.total_input() {
                None => Some("measured usage lacks an input field"),
                Some(total) if total <= 0.0 => Some("placeholder usage (total input 0)"),
                Some(total) => {
                    let key = u.convention.key();
                    if !conventions.contains(&key) {
                        conventions.push(key);
                    }
                    points.push((i, bytes_before, total - tokens_before, total));
                    None
                }
            },
        };
        if let Some(reason) = reason {
            left_out.push(LeftOut {
                call: i + 1,
                id: call.id.to_string(),
                reason,
            });
        }
        bytes_before += call.bytes;
        tokens_before += call.output_tokens + call.tokens;
    }
    if points.len() < 3 {
        return Err(FitError::TooFewCalls {
            used: points.len(),
            calls: scenario.calls.len(),
        });
    }
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.1).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.2).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.1 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.1 - mean_x) * (p.2 - mean_y)).sum();
    if sxx <= 0.0 {
        return Err(FitError::NoGrowth);
    }
    let slope = sxy / sxx;
    let intercept = mean_y - slope * mean_x;
    let residuals: Vec<(usize, f64, f64)> = points
        .iter()
        .map(|&(i, x, y, m)| {
            let r = y - (intercept + slope * x);
            (i, r, 100.0 * r / m)
        })
        .collect();
    let ss_res: f64 = residuals.iter().map(|r| r.1 * r.1).sum();
    let ss_tot: f64 = points.iter().map(|p| (p.2 - mean_y).powi(2)).sum();
    let r_squared = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    let bytes_per_token = 1.0 / slope;
    let median = |mut v: Vec<f64>| -> f64 {
        v.sort_by(f64::total_cmp);
        let k = v.len();
        if k % 2 == 1 {
            v[k / 2]
        } else {
            (v[k / 2 - 1] + v[k / 2]) / 2.0
        }
    };
    let worst = residuals
        .iter()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .map(|&(i, tokens, percent)| Residual {
            call: i + 1,
            id: scenario.calls[i].id.to_string(),
            tokens,
            percent,
        });
    let (lo, hi) = PLAUSIBLE_BYTES_PER_TOKEN;
    let mut poor = Vec::new();
    if r_squared < MIN_R_SQUARED {
        poor.push(format!(
            "R² = {r_squared:.3} is below {MIN_R_SQUARED}: the bytes that join the context explain little of how the measured input grows"
        ));
    }
    if !(slope > 0.0 && (lo..=hi).contains(&bytes_per_token)) {
        poor.push(format!(
            "ρ = {} bytes per token is outside the plausible {lo} to {hi}",
            crate::output::number::decimal(bytes_per_token)
        ));
    }
    if intercept <= 0.0 {
        poor.push(format!(
            "B = {} is not a positive number of tokens",
            crate::output::number::grouped(intercept, 0)
        ));
    }
    Ok(Fit {
        base_tokens: intercept,
        bytes_per_token,
        r_squared,
        calls_used: points.len(),
        calls_left_out: left_out.len(),
        left_out,
        median_residual_tokens: median(residuals.iter().map(|r| r.1.abs()).collect()),
        median_residual_pct: median(residuals.iter().map(|r| r.2.abs()).collect()),
        worst_residual: worst,
        poor: (!poor.is_empty()).then(|| poor.join("; ")),
        caution: (points.len() < FEW_CALLS).then(|| {
            format!(
                "fitted on only {} calls: two values from so few points leave little to check them against, so a high R² says little; take B and ρ as rough, or fit a longer session",
                points.len()
            )
        }),
        unit: format!(
            "tokens, measured (provider usage fields; convention {})",
            conventions.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::fmt::Write;
    use std::path::Path;

    /// A trace whose measured inputs follow B = 20,000 and ρ = 3.5 exactly.
    fn exact(n: usize) -> String {
        let mut text = String::from("name = \"f\"\nbase_tokens = 1\nbytes_per_token = 1\n");
        let (mut bytes, mut out) = (0.0, 0.0);
        for i in 0..n {
            let b = 1000.0 + 700.0 * (i % 5) as f64;
            let o = 50.0 + i as f64;
            let m = 20_000.0 + bytes / 3.5 + out;
            let _ = write!(
                text,
                "[[call]]\nlabel = \"c{i}\"\nbytes = {b}\noutput_tokens = {o}\n[call.measured]\ninput_tokens = 0\ncache_creation_input_tokens = 0\ncache_read_input_tokens = {m}\nconvention = \"anthropic\"\n"
            );
            bytes += b;
            out += o;
        }
        text
    }

    #[test]
    fn an_exact_trace_gives_back_its_b_and_rho() {
        let s = load_str(&exact(12), Path::new("f.toml")).unwrap();
        let f = fit(&s).unwrap();
        assert!((f.base_tokens - 20_000.0).abs() < 1e-6, "{f:?}");
        assert!((f.bytes_per_token - 3.5).abs() < 1e-9, "{f:?}");
        assert!((f.r_squared - 1.0).abs() < 1e-12);
        assert_eq!((f.calls_used, f.calls_left_out), (12, 0));
        assert!(f.poor.is_none());
        assert!(f.caution.is_none());
        // Nine calls fit as exactly, but so few points earn a caution (not a refusal).
        let f = fit(&load_str(&exact(9), Path::new("f.toml")).unwrap()).unwrap();
        assert!(f.poor.is_none());
        assert!(f.caution.unwrap().starts_with("fitted on only 9 calls"));
    }

    #[test]
    fn too_few_measured_calls_is_an_error() {
        let s = load_str(&exact(2), Path::new("f.toml")).unwrap();
        assert_eq!(
            fit(&s).unwrap_err(),
            FitError::TooFewCalls { used: 2, calls: 2 }
        );
    }
}
