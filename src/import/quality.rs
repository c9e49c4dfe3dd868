//! `simulate import … --fit`: every trace fitted as it is imported, and how far the
//! simulation can be trusted on it, before any edit.
//!
//! Each scenario's text is loaded as the file it will become, fitted (docs/model.md §6.2),
//! and, where the fit is good, written with the fitted values (labelled `fitted at import`,
//! without a date, so a second import of the same logs writes the same bytes). Then the
//! fitted scenario is run at its nominal point and its simulated cost set beside the cost
//! the provider's usage gives.

use crate::fit;
use crate::report::cost_difference_pct;
use crate::scenario;
use serde::Serialize;
use std::path::Path;

/// One trace's fit, as the quality table shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Quality {
    /// The scenario name.
    pub name: String,
    pub calls: usize,
    /// `written`, `poor`, `refused` or `not fitted`.
    pub status: &'static str,
    /// Why it was not written, or why there is no fit.
    pub reason: Option<String>,
    pub r_squared: Option<f64>,
    pub base_tokens: Option<f64>,
    pub bytes_per_token: Option<f64>,
    /// Named terms fitted: `[terms]` key and tokens per unit.
    pub terms: Vec<(&'static str, f64)>,
    /// The cache miss share, where fitted.
    pub miss_share: Option<f64>,
    /// The cache lifetime the reads prove, seconds, where fitted.
    pub ttl_s: Option<f64>,
    /// The minimum cacheable length the reads prove, tokens, where below the scenario's.
    pub min_tokens: Option<f64>,
    /// The share of B the cold requests read from a cache kept warm, where fitted.
    pub warm_share: Option<f64>,
    /// The `[cache]` keys written (even where B and ρ are not).
    pub cache_written: Vec<&'static str>,
    pub median_residual_pct: Option<f64>,
    /// Simulated against measured cost in percent, with the values the scenario holds
    /// (fitted where written); None without a measured cost.
    pub cost_difference_pct: Option<f64>,
    /// Every cache break, classified and priced under the values the scenario holds
    /// (fitted where written; docs/model.md §4, "Breaks").
    pub breaks: Vec<fit::breaks::Break>,
}

/// Fits `text`, the scenario to be written as `out/<file_name>`, and replaces it with the
/// fitted text where the fit is good; returns the table's row.
pub fn assess_one(file_name: &str, text: &mut String, out: &Path) -> Quality {
    let path = out.join(file_name);
    let name = file_name.trim_end_matches(".toml").to_string();
    let Ok(s) = scenario::load_str(text, &path) else {
        return not_fitted(name, 0, "the written scenario does not load".into());
    };
    let calls = s.calls.len();
    let f = match fit::fit(&s) {
        Ok(f) => f,
        Err(e) => {
            let mut q = not_fitted(name, calls, e.to_string());
            warm_of_short(&s, text, &path, &mut q);
            q.breaks = scenario::load_str(text, &path)
                .ok()
                .as_ref()
                .and_then(fit::breaks::of)
                .map_or_else(Vec::new, |b| b.breaks);
            return q;
        }
    };
    let (status, reason) = match (&f.refused, &f.poor) {
        (Some(why), _) => ("refused", Some(why.clone())),
        (None, Some(why)) => ("poor", Some(why.clone())),
        // Written, with `simulate fit`'s caution where it has one (too few calls).
        (None, None) => ("written", f.caution.clone()),
    };
    // B, ρ and the terms where the fit is good; the cache terms in any case (the cost
    // rests on them, and they rest on the measured cache reads alone).
    let source = format!("fitted at import ({})", fit::summary(&f, calls));
    let mut cache_written = Vec::new();
    if let Ok((fitted, changes)) = fit::fitted_text(
        text,
        &path.display().to_string(),
        &f,
        &source,
        status == "written",
    ) && changes.any()
        && scenario::load_str(&fitted, &path).is_ok()
    {
        *text = fitted;
        cache_written = changes.cache_keys;
    }
    let written = scenario::load_str(text, &path).ok();
    let cost_difference_pct = written.as_ref().and_then(cost_difference_pct);
    let breaks = written
        .as_ref()
        .and_then(fit::breaks::of)
        .map_or_else(Vec::new, |b| b.breaks);
    Quality {
        name,
        calls,
        status,
        reason,
        r_squared: Some(f.r_squared),
        base_tokens: Some(f.base_tokens),
        bytes_per_token: Some(f.bytes_per_token),
        terms: f.terms.iter().map(|t| (t.key, t.tokens)).collect(),
        miss_share: f.cache.as_ref().map(|c| c.miss_share),
        ttl_s: f.cache.as_ref().map(|c| c.ttl_s),
        min_tokens: f
            .cache
            .as_ref()
            .filter(|c| c.min.proof.is_some())
            .map(|c| c.min_tokens.floor()),
        warm_share: f.cache.as_ref().map(|c| c.warm_share),
        cache_written,
        median_residual_pct: Some(f.median_residual_pct),
        cost_difference_pct,
        breaks,
    }
}

/// A trace too short to fit B and ρ still shows what its first request read from a cache
/// other sessions kept warm: written as `[cache] warm_share` of the import's B (the first
/// request's measured input), since the cost rests on it (a subagent's few requests that
/// read most of their input from the cache cost several times less than a cold start).
fn warm_of_short(s: &scenario::Scenario, text: &mut String, path: &Path, q: &mut Quality) {
    if s.cache.is_none() || s.base_tokens <= 0.0 {
        return;
    }
    let Some(read) = s
        .calls
        .iter()
        .find_map(|c| c.usage()?.cache_read_input_tokens)
        .filter(|&r| r > 0.0)
    else {
        return;
    };
    let share = (read / s.base_tokens).min(1.0);
    let source = format!(
        "measured at import: the first request read {} tokens from a cache already warm, of B = {} (the trace is too short to fit B and ρ)",
        crate::number::grouped(read, 0),
        crate::number::grouped(s.base_tokens, 0)
    );
    let fitted = scenario::Fitted {
        base_and_rho: None,
        source: source.clone(),
        terms: Vec::new(),
        miss_share: None,
        warm_share: Some((share, source)),
        ttl_s: None,
        min_tokens: None,
    };
    if let Ok((written, changes)) =
        scenario::write_fitted(text, &path.display().to_string(), &fitted)
        && changes.any()
        && scenario::load_str(&written, path).is_ok()
    {
        *text = written;
        q.warm_share = Some(share);
        q.cache_written = changes.cache_keys;
        q.cost_difference_pct = scenario::load_str(text, path)
            .ok()
            .and_then(|s| cost_difference_pct(&s));
    }
}

/// The row of a scenario whose log measures no request (SWE-agent): there is nothing to
/// fit B and ρ to, which the table says (it is not an error).
pub fn unmeasured(file_name: &str, calls: usize) -> Quality {
    not_fitted(
        file_name.trim_end_matches(".toml").to_string(),
        calls,
        "the log measures no request (only the run's totals, in [import]): nothing to fit; B and ρ stay estimated".into(),
    )
}

fn not_fitted(name: String, calls: usize, reason: String) -> Quality {
    Quality {
        name,
        calls,
        status: "not fitted",
        reason: Some(reason),
        r_squared: None,
        base_tokens: None,
        bytes_per_token: None,
        terms: Vec::new(),
        miss_share: None,
        ttl_s: None,
        min_tokens: None,
        warm_share: None,
        cache_written: Vec::new(),
        median_residual_pct: None,
        cost_difference_pct: None,
        breaks: Vec::new(),
    }
}
