//! How the provider's prompt cache really behaved, against a perfect prefix cache
//! (docs/model.md §4 and §6.2, "Cache misses").
//!
//! A perfect prefix cache, within its TTL, reads everything the previous request sent. Real
//! ones miss: measured on Bedrock sessions, 16 of 47 requests read less than half of the
//! previous input though the gap was under the TTL. The miss share `μ` is the measured
//! prefix tokens written again over those a perfect cache would read; the cost model then
//! prices a prefix that would be read at `(1 − μ)·read + μ·write` per token.

use crate::scenario::Scenario;
use serde::Serialize;

/// TTL assumed when the scenario has no `[cache]`: the 5-minute default of Anthropic's
/// and OpenAI's prompt caches.
pub const DEFAULT_TTL_S: f64 = 300.0;
/// A request that reads less than this share of the previous request's input missed.
pub const MISSED_BELOW: f64 = 0.5;
/// One that reads less than this share (and at least [`MISSED_BELOW`]) hit only partly.
pub const PARTIAL_BELOW: f64 = 0.95;

/// The measured cache against a perfect prefix cache, over one trace.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CacheFit {
    /// μ: prefix tokens written again ÷ prefix tokens a perfect cache would read.
    pub miss_share: f64,
    /// The TTL the requests were compared under, seconds.
    pub ttl_s: f64,
    /// Requests after the first whose gap is within the TTL and that report cache reads.
    pub requests_compared: usize,
    /// Tokens a perfect prefix cache would have read over them.
    pub prefix_tokens: f64,
    /// Of them, tokens the provider did not read (written again).
    pub missed_tokens: f64,
    /// Requests that read less than half of the previous request's input.
    pub missed_requests: usize,
    /// Of those, requests that read nothing at all from the cache.
    pub read_nothing: usize,
    /// Requests that read between half and 95 % of it.
    pub partial_requests: usize,
    /// Tokens the first request read from a cache already warm (written before the trace).
    pub warm_first_tokens: Option<f64>,
    /// Those tokens as a share of the fitted base tokens (at most 1): `[cache] warm_share`.
    /// Set by the main fit, which knows B; 0 without a warm first request.
    pub warm_share: f64,
    /// Requests that read from the cache after a gap longer than the TTL, and how much.
    pub late_reads: usize,
    pub late_read_tokens: f64,
    /// Requests at another model than the previous request's: each model has its own
    /// cache, so the simulation starts them cold too (docs/model.md §4), and they are not
    /// misses.
    pub model_switches: usize,
}

/// Compares `scenario`'s measured cache reads with a perfect prefix cache under its
/// `[cache]` TTL and minimum (or [`DEFAULT_TTL_S`] and none); None when no call reports
/// cache reads, or fewer than two requests can be compared.
pub fn fit(scenario: &Scenario) -> Option<CacheFit> {
    let (ttl_s, min_tokens) = scenario
        .cache
        .as_ref()
        .map_or((DEFAULT_TTL_S, 0.0), |c| (c.ttl_s, c.min_tokens));
    let mut out = CacheFit {
        miss_share: 0.0,
        ttl_s,
        requests_compared: 0,
        prefix_tokens: 0.0,
        missed_tokens: 0.0,
        missed_requests: 0,
        read_nothing: 0,
        partial_requests: 0,
        warm_first_tokens: None,
        warm_share: 0.0,
        late_reads: 0,
        late_read_tokens: 0.0,
        model_switches: 0,
    };
    let mut previous: Option<f64> = None;
    let mut previous_model: Option<&str> = None;
    let mut any_read = false;
    for call in scenario.calls.iter() {
        let Some(u) = call.usage() else { continue };
        let Some(total) = u.total_input() else {
            continue;
        };
        let model = u.model.as_deref();
        let switched = previous.is_some() && model.is_some() && model != previous_model;
        previous_model = model.or(previous_model);
        let Some(read) = u.cache_read_input_tokens else {
            previous = Some(total);
            continue;
        };
        any_read |= read > 0.0;
        if switched {
            out.model_switches += 1;
            previous = Some(total);
            continue;
        }
        match previous {
            None if read > 0.0 => out.warm_first_tokens = Some(read),
            None => {}
            Some(_) if call.gap_s > ttl_s && read > 0.0 => {
                out.late_reads += 1;
                out.late_read_tokens += read;
            }
            Some(_) if call.gap_s > ttl_s => {}
            Some(before) => {
                // The prefix a perfect cache holds: the previous request, as far as this
                // one repeats it, if it is long enough to be cached at all.
                let prefix = before.min(total);
                let prefix = if prefix < min_tokens { 0.0 } else { prefix };
                if prefix > 0.0 {
                    out.requests_compared += 1;
                    out.prefix_tokens += prefix;
                    out.missed_tokens += (prefix - read).max(0.0);
                    let share = read / before;
                    if share < MISSED_BELOW {
                        out.missed_requests += 1;
                        if read == 0.0 {
                            out.read_nothing += 1;
                        }
                    } else if share < PARTIAL_BELOW {
                        out.partial_requests += 1;
                    }
                }
            }
        }
        previous = Some(total);
    }
    if !any_read || out.requests_compared < 2 || out.prefix_tokens <= 0.0 {
        return None;
    }
    out.miss_share = out.missed_tokens / out.prefix_tokens;
    Some(out)
}
