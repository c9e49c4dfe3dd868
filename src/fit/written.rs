//! A fit written into a scenario's text: the values, the named terms, the cache terms,
//! each labelled with where it came from and its evidence. `simulate fit --write` and
//! `simulate import --fit` both go through here.

use super::Fit;
use super::cache::CacheFit;
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

/// What `--write` writes: B, ρ and the named terms where `with_base` (the fit of B and ρ
/// is good, or forced), and the cache terms in any case (they rest on the measured cache
/// reads alone), each labelled `source` with its evidence.
pub fn fitted(f: &Fit, source: &str, with_base: bool) -> Fitted {
    let cache = f.cache.as_ref();
    let labelled = |evidence: String| format!("{}: {evidence})", source.trim_end_matches(')'));
    Fitted {
        base_and_rho: with_base.then_some((f.base_tokens, f.bytes_per_token)),
        source: source.to_string(),
        terms: if with_base {
            f.terms.iter().map(|t| (t.key, t.tokens)).collect()
        } else {
            Vec::new()
        },
        miss_share: cache.map(|c| (c.miss_share, labelled(miss_evidence(c)))),
        warm_share: cache
            .filter(|c| c.warm_share > 0.0)
            .and_then(|c| Some((c.warm_share, labelled(warm_evidence(c)?)))),
        ttl_s: cache
            .filter(|c| c.ttl.proof.is_some())
            .and_then(|c| Some((c.ttl_s, labelled(ttl_evidence(c)?)))),
        min_tokens: cache
            .filter(|c| c.min.proof.is_some())
            .and_then(|c| Some((c.min_tokens, labelled(min_evidence(c)?)))),
    }
}

/// `text` with the fit's values written in (see [`fitted`] and
/// [`scenario::write_fitted`]).
pub fn fitted_text(
    text: &str,
    file: &str,
    f: &Fit,
    source: &str,
    with_base: bool,
) -> Result<(String, scenario::FittedChanges), crate::error::Located> {
    scenario::write_fitted(text, file, &fitted(f, source, with_base))
}

/// `9,000 of 36,000 prefix tokens written again over 3 requests within the 300 s TTL`.
pub fn miss_evidence(c: &CacheFit) -> String {
    format!(
        "{} of {} prefix tokens written again over {} within the {} s TTL",
        grouped(c.missed_tokens, 0),
        grouped(c.prefix_tokens, 0),
        plural(c.requests_compared, "request", "requests"),
        grouped(c.ttl_s, 0)
    )
}

/// `3 cold requests (the first, and 2 after a pause past the 308 s TTL) read 12,610
/// tokens from a cache already warm (median; 12,008 to 12,610), of B = 23,847`.
pub fn warm_evidence(c: &CacheFit) -> Option<String> {
    let w = c.warm.as_ref()?;
    let after = w.cold_requests - 1;
    let which = if after == 0 {
        "the first request read".to_string()
    } else {
        format!(
            "{} cold requests (the first, and {after} after a pause past the {} s TTL) read",
            w.cold_requests,
            grouped(c.ttl_s, 0)
        )
    };
    let range = if w.cold_requests > 1 {
        format!(
            " (median; {} to {})",
            grouped(w.least_tokens, 0),
            grouped(w.most_tokens, 0)
        )
    } else {
        String::new()
    };
    Some(format!(
        "{which} {} tokens from a cache already warm{range}, of B = {}",
        grouped(w.tokens, 0),
        grouped(c.warm_share_of_base_tokens, 0)
    ))
}

/// `call 5 read 1,993 of its 2,593 input tokens from the cache, below the scenario's
/// minimum of 4,096; 9 requests read less than it`.
pub fn min_evidence(c: &CacheFit) -> Option<String> {
    let m = &c.min;
    let p = m.proof.as_ref()?;
    Some(format!(
        "call {} read {} of its {} input tokens from the cache, below the scenario's minimum of {}; {} read less than it",
        p.call,
        grouped(p.read_tokens, 0),
        grouped(p.input_tokens, 0),
        grouped(m.given_tokens, 0),
        plural(m.short_reads, "request", "requests")
    ))
}

/// `call 56 read 93,432 tokens from the cache after a pause of 308 s, past the scenario's
/// 300 s; 1 request after a longer pause (4,166 s or more) read only the warm prefix`.
pub fn ttl_evidence(c: &CacheFit) -> Option<String> {
    let t = &c.ttl;
    let p = t.proof.as_ref()?;
    let mut s = format!(
        "call {} read {} tokens from the cache after a pause of {} s, past the scenario's {} s",
        p.call,
        grouped(p.read_tokens, 0),
        grouped(p.gap_s, 0),
        grouped(t.given_s, 0)
    );
    if let Some(shortest) = t.shortest_cold_pause_s {
        s.push_str(&format!(
            "; {} after a longer pause ({} s or more) read at most the warm prefix",
            plural(t.cold_after_pause, "request", "requests"),
            grouped(shortest, 0)
        ));
    }
    if t.missed_within > 0 {
        s.push_str(&format!(
            "; {} after a pause within it did not (counted as misses in μ)",
            plural(t.missed_within, "request", "requests")
        ));
    }
    Some(s)
}
