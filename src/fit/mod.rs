//! Fitting `B`, `ρ` and the named terms to measured usage (docs/model.md §6.2, "Fit").
//!
//! For a call with measured total input `m_i`, the model says
//! `m_i − (tokens given before i) = B + b_i / ρ + Σ_t θ_t·k_{t,i}`, where `b_i` is the bytes
//! that joined the context before call i (results and the model's own messages) and
//! `k_{t,i}` counts what the log cannot size (calls before i, images, loaded tool
//! definitions). Least squares gives `B` (the intercept), `1/ρ` (the slope of bytes) and
//! each term θ_t: the assumptions every figure rests on, replaced by measurements. The
//! share of the prefix the provider's cache failed to read ([`cache`]) is fitted beside.

pub mod breaks;
pub mod cache;
mod ols;
pub mod written;

pub use written::{fitted_text, summary};

use crate::scenario::Scenario;
use serde::Serialize;

/// Under this many calls a fit is flagged as resting on few points (not refused).
pub const FEW_CALLS: usize = 10;

/// Below this R² the fit is said to be poor and is not written without `--force`.
pub const MIN_R_SQUARED: f64 = 0.9;
/// Outside this range of ρ (bytes per token) a fitted value is refused, even with
/// `--force`: no text or code tokenizes to fewer than 1 or more than 8 bytes a token.
pub const PLAUSIBLE_BYTES_PER_TOKEN: (f64, f64) = (1.0, 8.0);
/// The per-call term needs this many points besides B and ρ to be told from ρ.
pub const MIN_CALLS_FOR_PER_CALL_TERM: usize = 8;

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

/// Which named term (docs/model.md §6.2): what each counts, and its key in `[terms]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TermKind {
    /// Tokens every call adds: message framing, tool-use ids, reminders the client
    /// injects without logging them.
    TokensPerCall,
    /// Tokens per image.
    TokensPerImage,
    /// Tokens per tool definition loaded mid-session (`tool_reference` results).
    TokensPerLoadedTool,
}

impl TermKind {
    /// Every term, in the order of the fit's columns.
    pub const ALL: [TermKind; 3] = [
        TermKind::TokensPerCall,
        TermKind::TokensPerImage,
        TermKind::TokensPerLoadedTool,
    ];

    /// The key in `[terms]`.
    pub fn key(self) -> &'static str {
        match self {
            TermKind::TokensPerCall => "tokens_per_call",
            TermKind::TokensPerImage => "tokens_per_image",
            TermKind::TokensPerLoadedTool => "tokens_per_loaded_tool",
        }
    }

    /// What it is, for people.
    pub fn describe(self) -> &'static str {
        match self {
            TermKind::TokensPerCall => "tokens per call (framing and unlogged injections)",
            TermKind::TokensPerImage => "tokens per image",
            TermKind::TokensPerLoadedTool => "tokens per loaded tool definition",
        }
    }

    /// The scenario's own value of the term (used where it is not fitted).
    fn given(self, s: &Scenario) -> f64 {
        match self {
            TermKind::TokensPerCall => s.terms.per_call(),
            TermKind::TokensPerImage => s.terms.per_image(),
            TermKind::TokensPerLoadedTool => s.terms.per_loaded_tool(),
        }
    }

    /// How many units call `i` adds to the count (what joins after it).
    fn units(self, s: &Scenario, i: usize) -> f64 {
        let d = s.calls.detail(i);
        match self {
            TermKind::TokensPerCall => 1.0,
            TermKind::TokensPerImage => d.map_or(0, |d| d.images) as f64,
            TermKind::TokensPerLoadedTool => d.map_or(0, |d| d.loaded_tools) as f64,
        }
    }
}

/// A fitted named term.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FittedTerm {
    pub term: TermKind,
    /// `[terms]` key.
    pub key: &'static str,
    /// Tokens per unit.
    pub tokens: f64,
    pub standard_error: f64,
    /// Units in the trace (calls, images, definitions).
    pub units: f64,
}

/// A named term the trace has but the fit could not size, and why; the scenario's own
/// value stands in for it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TermNotFitted {
    pub term: TermKind,
    pub key: &'static str,
    pub reason: String,
    /// The value used instead (the scenario's).
    pub tokens_used: f64,
}

/// The fitted assumptions and how well they fit.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Fit {
    /// The intercept: tokens every call reads.
    pub base_tokens: f64,
    pub base_tokens_standard_error: f64,
    /// `1 / slope`: bytes per token of what joins the context.
    pub bytes_per_token: f64,
    /// By the delta method: `SE(slope) / slope²`.
    pub bytes_per_token_standard_error: f64,
    /// The named terms fitted, with their values.
    pub terms: Vec<FittedTerm>,
    /// Terms the trace has that were not fitted, and why.
    pub terms_not_fitted: Vec<TermNotFitted>,
    pub r_squared: f64,
    pub calls_used: usize,
    pub calls_left_out: usize,
    pub left_out: Vec<LeftOut>,
    /// Median of |measured − fitted|, tokens and percent of measured.
    pub median_residual_tokens: f64,
    pub median_residual_pct: f64,
    pub worst_residual: Option<Residual>,
    /// Why the fit is poor, in words; None for a good fit. `--force` writes it anyway.
    pub poor: Option<String>,
    /// Why the values cannot be written at all (ρ outside the physical range, B ≤ 0);
    /// `--force` does not override it.
    pub refused: Option<String>,
    /// A caution that does not stop `--write`: too few calls for R² to mean much.
    pub caution: Option<String>,
    /// The measured counts' unit: the provider's usage fields and their convention.
    pub unit: String,
    /// The cache miss share, where the trace reports cache reads.
    pub cache: Option<cache::CacheFit>,
    /// For a trace that starts after a compaction: the summary's size it implies.
    pub compaction: Option<CompactionFit>,
    /// Every cache break, classified and priced, under the fitted lifetime and B (the
    /// scenario's where refused); None where no request reports cache reads.
    pub breaks: Option<breaks::Breaks>,
}

/// What a trace that starts after a compaction says of it (docs/model.md §9): its first
/// request read the system prompt, tools and the summary, all part of this trace's B; the
/// summary's size is its logged text at the fitted ρ.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CompactionFit {
    /// `auto` or `manual`, as the log says.
    pub trigger: Option<String>,
    /// The context when it ran, tokens, as the log says.
    pub pre_tokens: Option<u64>,
    /// The summary's text, UTF-8 bytes, as the log says.
    pub summary_bytes: Option<u64>,
    /// The first request's measured total input, tokens.
    pub first_input_tokens: f64,
    /// `summary_bytes ÷ ρ`: a compact edit's `summary_tokens` for sessions like this; None
    /// when the log does not give the summary's text.
    pub summary_tokens: Option<f64>,
}

/// Why no line can be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error(
        "the trace is short: it has {calls} and a fit needs at least 3 calls with measured usage (fit a longer session)",
        calls = crate::number::plural(*calls, "call", "calls")
    )]
    ShortTrace { calls: usize },
    #[error(
        "{used} of {calls} calls carry a measured total input{why}; a fit needs at least 3 (import the session with `simulate import`, or add [call.measured] tables)"
    )]
    TooFewCalls {
        used: usize,
        calls: usize,
        /// What the others lack, e.g. ` (11 lack cache_creation_input_tokens)`.
        why: String,
    },
    #[error(
        "the context never grows by any bytes across the measured calls, so bytes per token cannot be fitted"
    )]
    NoGrowth,
    #[error(
        "every one of its {} reports a usage of 0 tokens: the log's usage is a placeholder (seen from a model behind a proxy that does not pass the provider's usage on), so there is nothing to fit",
        crate::number::plural(*calls, "request", "requests")
    )]
    ZeroUsage { calls: usize },
}

/// One measured call: its position, the measured total, `y` and its regressors.
struct Point {
    call: usize,
    measured: f64,
    y: f64,
    bytes: f64,
    units: [f64; 3],
}

/// Fits `B`, `ρ` and the named terms to `scenario`'s measured usage.
pub fn fit(scenario: &Scenario) -> Result<Fit, FitError> {
    let (points, left_out, conventions) = points(scenario)?;
    // Which terms the trace has: a count that changes across the points.
    let varies = |k: usize| {
        points
            .iter()
            .any(|p| (p.units[k] - points[0].units[k]).abs() > 0.0)
    };
    let mut not_fitted = Vec::new();
    let mut active: Vec<TermKind> = Vec::new();
    for (k, term) in TermKind::ALL.into_iter().enumerate() {
        let present = match term {
            TermKind::TokensPerCall => true,
            _ => scenario
                .calls
                .iter()
                .enumerate()
                .any(|(i, _)| term.units(scenario, i) > 0.0),
        };
        if !present {
            continue;
        }
        let reason = if term == TermKind::TokensPerCall
            && points.len() < MIN_CALLS_FOR_PER_CALL_TERM
        {
            Some(format!(
                "{} measured calls are too few to tell it from ρ (it needs {MIN_CALLS_FOR_PER_CALL_TERM})",
                points.len()
            ))
        } else if !varies(k) {
            Some("its count does not change across the measured calls".to_string())
        } else {
            None
        };
        match reason {
            None => active.push(term),
            Some(reason) => not_fitted.push(TermNotFitted {
                term,
                key: term.key(),
                reason,
                tokens_used: term.given(scenario),
            }),
        }
    }
    let (mut s, mut y) = solve(scenario, &points, &mut active, &mut not_fitted)?;
    // The per-call term grows one by one like the bytes of a trace whose results are all
    // of a size: where ρ comes out outside the physical range with it and inside without
    // it, the two cannot be told apart here, and ρ is the one the model rests on.
    let plausible = |slope: f64| {
        let (lo, hi) = PLAUSIBLE_BYTES_PER_TOKEN;
        slope > 0.0 && (lo..=hi).contains(&(1.0 / slope))
    };
    if !plausible(s.coefficients[1])
        && let Some(j) = active.iter().position(|t| *t == TermKind::TokensPerCall)
    {
        let mut fewer = active.clone();
        fewer.remove(j);
        let mut also = not_fitted.clone();
        also.push(TermNotFitted {
            term: TermKind::TokensPerCall,
            key: TermKind::TokensPerCall.key(),
            reason: format!(
                "with it ρ came out {} bytes per token, outside the physical {} to {}: it cannot be told apart from ρ in this trace",
                crate::number::decimal(1.0 / s.coefficients[1]),
                PLAUSIBLE_BYTES_PER_TOKEN.0,
                PLAUSIBLE_BYTES_PER_TOKEN.1
            ),
            tokens_used: TermKind::TokensPerCall.given(scenario),
        });
        if let Ok((s2, y2)) = solve(scenario, &points, &mut fewer, &mut also)
            && plausible(s2.coefficients[1])
        {
            (s, y, active, not_fitted) = (s2, y2, fewer, also);
        }
    }
    let (intercept, slope) = (s.coefficients[0], s.coefficients[1]);
    let n = points.len() as f64;
    let mean_y = y.iter().sum::<f64>() / n;
    let ss_res: f64 = s.residuals.iter().map(|r| r * r).sum();
    let ss_tot: f64 = y.iter().map(|v| (v - mean_y).powi(2)).sum();
    let r_squared = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    let bytes_per_token = 1.0 / slope;
    let residual_pct: Vec<f64> = points
        .iter()
        .zip(&s.residuals)
        .map(|(p, r)| 100.0 * r / p.measured)
        .collect();
    let worst = points
        .iter()
        .zip(s.residuals.iter().zip(&residual_pct))
        .max_by(|a, b| a.1.0.abs().total_cmp(&b.1.0.abs()))
        .map(|(p, (&tokens, &percent))| Residual {
            call: p.call + 1,
            id: scenario.calls.at(p.call).id.to_string(),
            tokens,
            percent,
        });
    let terms = active
        .iter()
        .enumerate()
        .map(|(j, &t)| FittedTerm {
            term: t,
            key: t.key(),
            tokens: s.coefficients[2 + j],
            standard_error: s.standard_errors[2 + j],
            units: (0..scenario.calls.len())
                .map(|i| t.units(scenario, i))
                .sum(),
        })
        .collect();
    let (lo, hi) = PLAUSIBLE_BYTES_PER_TOKEN;
    let mut refused = Vec::new();
    if !(slope > 0.0 && (lo..=hi).contains(&bytes_per_token)) {
        refused.push(format!(
            "ρ = {} bytes per token is outside the physical {lo} to {hi}: what joins the context is not what the measured input grew by (a part of the log the importer cannot see, or a trace that mixes several conversations)",
            crate::number::decimal(bytes_per_token)
        ));
    }
    if intercept <= 0.0 {
        refused.push(format!(
            "B = {} is not a positive number of tokens",
            crate::number::grouped(intercept, 0)
        ));
    }
    let poor = (r_squared < MIN_R_SQUARED).then(|| {
        format!(
            "R² = {r_squared:.3} is below {MIN_R_SQUARED}: the bytes that join the context explain little of how the measured input grows"
        )
    });
    let cache_fit = cache::fit(scenario).map(|mut c| {
        // A share of the B the scenario will hold: the fitted one where it is written,
        // else its own (the cache terms are written even when B and ρ are refused).
        let base = if refused.is_empty() {
            intercept
        } else {
            scenario.base_tokens
        };
        if let Some(warm) = &c.warm
            && base > 0.0
        {
            c.warm_share = (warm.tokens / base).min(1.0);
            c.warm_share_of_base_tokens = base;
        }
        c
    });
    let breaks = breaks::breaks(
        scenario,
        cache_fit.as_ref().map_or_else(
            || {
                scenario
                    .cache
                    .as_ref()
                    .map_or(cache::DEFAULT_TTL_S, |c| c.ttl_s)
            },
            |c| c.ttl_s,
        ),
        if refused.is_empty() {
            intercept
        } else {
            scenario.base_tokens
        },
    );
    Ok(Fit {
        base_tokens: intercept,
        base_tokens_standard_error: s.standard_errors[0],
        bytes_per_token,
        bytes_per_token_standard_error: s.standard_errors[1] / (slope * slope),
        terms,
        terms_not_fitted: not_fitted,
        r_squared,
        calls_used: points.len(),
        calls_left_out: left_out.len(),
        left_out,
        median_residual_tokens: median(s.residuals.iter().map(|r| r.abs()).collect()),
        median_residual_pct: median(residual_pct.iter().map(|r| r.abs()).collect()),
        worst_residual: worst,
        poor,
        refused: (!refused.is_empty()).then(|| refused.join("; ")),
        caution: (points.len() < FEW_CALLS).then(|| {
            format!(
                "fitted on only {} calls: so few points leave little to check the values against, so a high R² says little; take B and ρ as rough, or fit a longer session",
                points.len()
            )
        }),
        unit: format!(
            "tokens, measured (provider usage fields; convention {})",
            conventions.join(", ")
        ),
        compaction: compaction_fit(scenario, &points, bytes_per_token),
        cache: cache_fit,
        breaks,
    })
}

/// Least squares over `points` with the terms `active` fitted and `not_fitted` at the
/// scenario's values; a term that comes out negative (not physical) or collinear moves to
/// `not_fitted` and the fit is redone. Returns the solution and the `y` it was fitted to.
fn solve(
    scenario: &Scenario,
    points: &[Point],
    active: &mut Vec<TermKind>,
    not_fitted: &mut Vec<TermNotFitted>,
) -> Result<(ols::Solution, Vec<f64>), FitError> {
    // A negative tokens-per-unit is not physical: the term is dropped and the fit redone.
    loop {
        let rows: Vec<Vec<f64>> = points
            .iter()
            .map(|p| {
                let mut r = vec![1.0, p.bytes];
                for t in active.iter() {
                    r.push(p.units[index(*t)]);
                }
                r
            })
            .collect();
        let y: Vec<f64> = points
            .iter()
            .map(|p| {
                p.y - not_fitted
                    .iter()
                    .map(|n| n.tokens_used * p.units[index(n.term)])
                    .sum::<f64>()
            })
            .collect();
        let Some(s) = ols::solve(&rows, &y) else {
            // Collinear: without terms it is the bytes that never grow.
            match active.pop() {
                Some(t) => {
                    not_fitted.push(TermNotFitted {
                        term: t,
                        key: t.key(),
                        reason: "it cannot be told apart from the other terms in this trace".into(),
                        tokens_used: t.given(scenario),
                    });
                    continue;
                }
                None => return Err(FitError::NoGrowth),
            }
        };
        let negative = active
            .iter()
            .enumerate()
            .filter(|(j, _)| s.coefficients[2 + j] < 0.0)
            .min_by(|a, b| s.coefficients[2 + a.0].total_cmp(&s.coefficients[2 + b.0]))
            .map(|(j, t)| (j, *t));
        match negative {
            Some((j, t)) => {
                not_fitted.push(TermNotFitted {
                    term: t,
                    key: t.key(),
                    reason: format!(
                        "it came out negative ({} ± {} tokens), which is not physical",
                        crate::number::grouped(s.coefficients[2 + j], 0),
                        crate::number::grouped(s.standard_errors[2 + j], 0)
                    ),
                    tokens_used: t.given(scenario),
                });
                active.remove(j);
            }
            None => return Ok((s, y)),
        }
    }
}

/// The compaction a trace starts after, and the summary's size at the fitted ρ.
fn compaction_fit(scenario: &Scenario, points: &[Point], rho: f64) -> Option<CompactionFit> {
    let i = scenario.import.as_ref()?;
    if i.compaction_pre_tokens.is_none() && i.compaction_summary_bytes.is_none() {
        return None;
    }
    let first = points.first().filter(|p| p.call == 0)?;
    Some(CompactionFit {
        trigger: i.compaction_trigger.clone(),
        pre_tokens: i.compaction_pre_tokens,
        summary_bytes: i.compaction_summary_bytes,
        first_input_tokens: first.measured,
        summary_tokens: i
            .compaction_summary_bytes
            .filter(|_| rho > 0.0)
            .map(|b| b as f64 / rho),
    })
}

/// The column of a term among the counts.
fn index(t: TermKind) -> usize {
    TermKind::ALL.iter().position(|x| *x == t).unwrap_or(0)
}

type Points = (Vec<Point>, Vec<LeftOut>, Vec<&'static str>);

/// The measured calls and their regressors; the calls left out and why.
fn points(scenario: &Scenario) -> Result<Points, FitError> {
    let mut points = Vec::new();
    let mut left_out = Vec::new();
    let mut conventions: Vec<&'static str> = Vec::new();
    let (mut bytes_before, mut tokens_before) = (0.0, 0.0);
    let mut units_before = [0.0; 3];
    let mut lacking: Vec<(&'static str, usize)> = Vec::new();
    // Calls with usage, and of them those whose usage is all 0 (input and output).
    let (mut with_usage, mut zero) = (0, 0);
    for (i, call) in scenario.calls.iter().enumerate() {
        with_usage += usize::from(call.usage().is_some());
        let reason = match call.usage() {
            None => Some("no measured usage"),
            Some(u) => match u.total_input() {
                None => {
                    let missing = u.missing_field().unwrap_or("an input field");
                    match lacking.iter_mut().find(|(f, _)| *f == missing) {
                        Some(entry) => entry.1 += 1,
                        None => lacking.push((missing, 1)),
                    }
                    Some("measured usage lacks a field its convention needs")
                }
                Some(total) if total <= 0.0 => {
                    zero += usize::from(u.output_tokens.unwrap_or(0.0) == 0.0);
                    Some("placeholder usage (total input 0)")
                }
                Some(total) => {
                    let key = u.convention.key();
                    if !conventions.contains(&key) {
                        conventions.push(key);
                    }
                    points.push(Point {
                        call: i,
                        measured: total,
                        y: total - tokens_before,
                        bytes: bytes_before,
                        units: units_before,
                    });
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
        // What joins after call i: the result and the model's own content, as given;
        // the named terms as counts.
        let (own_tokens, own_bytes) = call.own_content(&crate::scenario::Terms::default());
        bytes_before += call.bytes + own_bytes;
        tokens_before += call.tokens + own_tokens;
        for (k, t) in TermKind::ALL.into_iter().enumerate() {
            units_before[k] += t.units(scenario, i);
        }
    }
    if points.is_empty() && zero > 0 && zero == with_usage {
        return Err(FitError::ZeroUsage { calls: zero });
    }
    if points.len() < 3 {
        if scenario.calls.len() < 3 {
            return Err(FitError::ShortTrace {
                calls: scenario.calls.len(),
            });
        }
        let why = if lacking.is_empty() {
            String::new()
        } else {
            let parts: Vec<String> = lacking
                .iter()
                .map(|(f, n)| format!("{n} lack {f}"))
                .collect();
            format!(" ({})", parts.join(", "))
        };
        return Err(FitError::TooFewCalls {
            used: points.len(),
            calls: scenario.calls.len(),
            why,
        });
    }
    let xs: Vec<f64> = points.iter().map(|p| p.bytes).collect();
    if xs.iter().all(|x| (x - xs[0]).abs() == 0.0) {
        return Err(FitError::NoGrowth);
    }
    Ok((points, left_out, conventions))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let k = v.len();
    if k == 0 {
        f64::NAN
    } else if k % 2 == 1 {
        v[k / 2]
    } else {
        (v[k / 2 - 1] + v[k / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests;
