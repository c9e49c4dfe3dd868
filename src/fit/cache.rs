//! How the provider's prompt cache really behaved, against a perfect prefix cache
//! (docs/model.md §4 and §6.2, "Cache misses"; ../shared/MODEL.md §12).
//!
//! Four terms are fitted from the measured cache reads, each with its evidence:
//! - the **minimum** the reads prove: a read of N tokens proves the provider caches a
//!   prefix that short, whatever its documentation says (Gemini 3 Pro through OpenRouter
//!   read prefixes of 1,958 to 2,100 tokens where Google documents 4,096); a higher
//!   minimum bills every shorter request at the plain input price;
//! - the **lifetime** the reads prove: a request that read (at least half of) the previous
//!   request's input after a pause longer than the scenario's TTL proves the provider kept
//!   the prefix that long (OpenAI served cached prefixes after pauses of 317 to 3,942 s; a
//!   5-minute preset would write them again);
//! - the **warm shared prefix**: what a cold request (the first, and each after a pause
//!   past the lifetime) still read, because other sessions keep the system prompt and tools
//!   warm; written as a share of B, `[cache] warm_share`;
//! - the **miss share** `μ`: within the lifetime, the measured prefix tokens written again
//!   over those a perfect cache would read (measured on Bedrock sessions, 16 of 47 requests
//!   read less than half of the previous input though the gap was under the TTL); the cost
//!   model then prices a prefix that would be read at `(1 − μ)·read + μ·write` per token.

use crate::scenario::Scenario;
use serde::Serialize;

/// TTL assumed when the scenario has no `[cache]`: the 5-minute default of Anthropic's
/// and OpenAI's prompt caches.
pub const DEFAULT_TTL_S: f64 = 300.0;
/// A request that reads less than this share of the previous request's input missed; one
/// that reads at least this much of it (beyond the warm prefix) after a pause proves the
/// cache held the prefix that long.
pub const MISSED_BELOW: f64 = 0.5;
/// One that reads less than this share (and at least [`MISSED_BELOW`]) hit only partly.
pub const PARTIAL_BELOW: f64 = 0.95;

/// The measured cache against a perfect prefix cache, over one trace.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CacheFit {
    /// μ: prefix tokens written again ÷ prefix tokens a perfect cache would read, over
    /// the requests within the fitted lifetime.
    pub miss_share: f64,
    /// The lifetime the requests were compared under, seconds: the fitted one
    /// ([`TtlFit::ttl_s`]).
    pub ttl_s: f64,
    /// How the lifetime was fitted, with its evidence.
    pub ttl: TtlFit,
    /// The minimum cacheable length the requests were compared under, tokens: the fitted
    /// one ([`MinFit::tokens`]).
    pub min_tokens: f64,
    /// How the minimum was fitted, with its evidence.
    pub min: MinFit,
    /// Requests after the first whose gap is within the lifetime and that report cache
    /// reads.
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
    /// What the cold requests read: the warm shared prefix.
    pub warm: Option<WarmFit>,
    /// The warm prefix as a share of the base tokens (at most 1): `[cache] warm_share`.
    /// Set by the main fit, which knows B; 0 without a warm cold request.
    pub warm_share: f64,
    /// The base tokens the share is of: the fitted B, or the scenario's own where the fit
    /// of B was refused. Set by the main fit.
    pub warm_share_of_base_tokens: f64,
    /// Requests that read from the cache after a pause longer than the fitted lifetime
    /// (the warm prefix), and how much.
    pub late_reads: usize,
    pub late_read_tokens: f64,
    /// Requests at another model than the previous request's: each model has its own
    /// cache, so the simulation starts them cold too (docs/model.md §4), and they are not
    /// misses.
    pub model_switches: usize,
}

/// The cache lifetime a trace's reads prove.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TtlFit {
    /// The scenario's TTL (its `[cache]` or preset; [`DEFAULT_TTL_S`] without one).
    pub given_s: f64,
    /// The fitted lifetime: the longest pause after which a request read at least half of
    /// the previous request's input beyond the warm prefix (what the first request read),
    /// where that is longer than `given_s`; else `given_s`.
    pub ttl_s: f64,
    /// The read that proves it, where the lifetime is longer than the given one.
    pub proof: Option<PauseRead>,
    /// Requests after a pause past the lifetime (cold: only the warm prefix can be read).
    pub cold_after_pause: usize,
    /// The shortest of their pauses, seconds.
    pub shortest_cold_pause_s: Option<f64>,
    /// Requests after a pause longer than `given_s` but within the fitted lifetime that
    /// read less than half of the previous input: counted as misses in μ.
    pub missed_within: usize,
}

/// The minimum cacheable length a trace's reads prove.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MinFit {
    /// The scenario's minimum (its `[cache]` or preset; 0 without one), tokens.
    pub given_tokens: f64,
    /// The fitted minimum: the shortest read, where it is below `given_tokens`; else
    /// `given_tokens`. A cached prefix is at least the minimum long, so a read proves the
    /// minimum is no longer than it.
    pub tokens: f64,
    /// The shortest read, where it is below the given minimum.
    pub proof: Option<ShortRead>,
    /// Requests that read less than the given minimum (each proves it too long).
    pub short_reads: usize,
}

/// The shortest read of a trace.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ShortRead {
    /// 1-based position in the trace.
    pub call: usize,
    pub id: String,
    /// Tokens it read from the cache.
    pub read_tokens: f64,
    /// Its whole input, tokens.
    pub input_tokens: f64,
}

/// One request's read after a pause.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PauseRead {
    /// 1-based position in the trace.
    pub call: usize,
    pub id: String,
    /// The pause before it, seconds.
    pub gap_s: f64,
    /// Tokens it read from the cache.
    pub read_tokens: f64,
}

/// What the cold requests read: a prefix that other sessions keep warm.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WarmFit {
    /// The median of their reads, tokens.
    pub tokens: f64,
    /// How many cold requests: the first, and those after a pause past the lifetime.
    pub cold_requests: usize,
    /// The least and the most any of them read, tokens.
    pub least_tokens: f64,
    pub most_tokens: f64,
}

/// One measured request, as the cache fit sees it.
struct Request {
    /// At another model than the previous measured request.
    switched: bool,
    call: usize,
    total: f64,
    read: f64,
    gap_s: f64,
    /// The previous measured request's total input (None for the first).
    before: Option<f64>,
}

/// Compares `scenario`'s measured cache reads with a perfect prefix cache, fitting the
/// lifetime the reads prove (never below the scenario's `[cache]` TTL, or
/// [`DEFAULT_TTL_S`] without one), the minimum they prove (never above the scenario's)
/// and what the cold requests read; None when no call reports cache reads, or fewer than
/// two requests can be compared.
pub fn fit(scenario: &Scenario) -> Option<CacheFit> {
    let (given_s, given_min) = scenario
        .cache
        .as_ref()
        .map_or((DEFAULT_TTL_S, 0.0), |c| (c.ttl_s, c.min_tokens));
    let requests = requests(scenario);
    if !requests.iter().any(|r| r.read > 0.0) {
        return None;
    }
    let ttl = lifetime(scenario, &requests, given_s);
    let min = minimum(scenario, &requests, given_min);
    let min_tokens = min.tokens;
    let mut out = CacheFit {
        miss_share: 0.0,
        ttl_s: ttl.ttl_s,
        ttl,
        min_tokens,
        min,
        requests_compared: 0,
        prefix_tokens: 0.0,
        missed_tokens: 0.0,
        missed_requests: 0,
        read_nothing: 0,
        partial_requests: 0,
        warm_first_tokens: None,
        warm: None,
        warm_share: 0.0,
        warm_share_of_base_tokens: 0.0,
        late_reads: 0,
        late_read_tokens: 0.0,
        model_switches: 0,
    };
    let mut cold_reads = Vec::new();
    for r in &requests {
        let Some(before) = r.before else {
            if r.read > 0.0 {
                out.warm_first_tokens = Some(r.read);
            }
            cold_reads.push(r.read);
            continue;
        };
        if r.switched {
            // Another model's cache: the simulation starts it cold too, not a miss.
            out.model_switches += 1;
            cold_reads.push(r.read);
            continue;
        }
        if r.gap_s > out.ttl_s {
            cold_reads.push(r.read);
            if r.read > 0.0 {
                out.late_reads += 1;
                out.late_read_tokens += r.read;
            }
            continue;
        }
        // The prefix a perfect cache holds: the previous request, as far as this one
        // repeats it, if it is long enough to be cached at all.
        let prefix = before.min(r.total);
        let prefix = if prefix < min_tokens { 0.0 } else { prefix };
        if prefix > 0.0 {
            out.requests_compared += 1;
            out.prefix_tokens += prefix;
            out.missed_tokens += (prefix - r.read).max(0.0);
            let share = r.read / before;
            if share < MISSED_BELOW {
                out.missed_requests += 1;
                if r.read == 0.0 {
                    out.read_nothing += 1;
                }
            } else if share < PARTIAL_BELOW {
                out.partial_requests += 1;
            }
        }
    }
    if out.requests_compared < 2 || out.prefix_tokens <= 0.0 {
        return None;
    }
    out.miss_share = out.missed_tokens / out.prefix_tokens;
    out.warm = warm(cold_reads);
    Some(out)
}

/// The measured requests that report cache reads, in order, each with the previous
/// measured request's total input.
fn requests(scenario: &Scenario) -> Vec<Request> {
    let mut out = Vec::new();
    let mut before: Option<f64> = None;
    let mut model: Option<&str> = None;
    for (i, call) in scenario.calls.iter().enumerate() {
        let Some(u) = call.usage() else { continue };
        let Some(total) = u.total_input() else {
            continue;
        };
        let this = u.model.as_deref();
        let switched = before.is_some() && this.is_some() && this != model;
        model = this.or(model);
        if let Some(read) = u.cache_read_input_tokens {
            out.push(Request {
                call: i,
                total,
                read,
                gap_s: call.gap_s,
                before,
                switched,
            });
        }
        before = Some(total);
    }
    out
}

/// Whether `r`, after a pause, read the previous request's own prefix: at least half of
/// what the previous request held beyond `warm` (what the first request read, the part
/// other sessions keep warm and so no proof of this trace's cache).
fn held(r: &Request, warm: f64) -> bool {
    r.before
        .is_some_and(|b| b > warm && r.read - warm >= MISSED_BELOW * (b - warm))
}

/// The lifetime the reads prove: the longest pause past `given_s` after which a request
/// still read the previous prefix (beyond the warm part), else `given_s`.
fn lifetime(scenario: &Scenario, requests: &[Request], given_s: f64) -> TtlFit {
    let warm = requests.first().map_or(0.0, |r| r.read);
    let proof = requests
        .iter()
        .filter(|r| r.gap_s > given_s && held(r, warm))
        .max_by(|a, b| a.gap_s.total_cmp(&b.gap_s))
        .map(|r| PauseRead {
            call: r.call + 1,
            id: scenario.calls.at(r.call).id.to_string(),
            gap_s: r.gap_s,
            read_tokens: r.read,
        });
    let ttl_s = proof.as_ref().map_or(given_s, |p| p.gap_s);
    let after_first = || requests.iter().filter(|r| r.before.is_some());
    let cold: Vec<f64> = after_first()
        .filter(|r| r.gap_s > ttl_s)
        .map(|r| r.gap_s)
        .collect();
    TtlFit {
        given_s,
        ttl_s,
        proof,
        cold_after_pause: cold.len(),
        shortest_cold_pause_s: cold.iter().copied().min_by(f64::total_cmp),
        missed_within: after_first()
            .filter(|r| r.gap_s > given_s && r.gap_s <= ttl_s && !held(r, warm))
            .count(),
    }
}

/// The minimum the reads prove: the shortest read, where it is below `given` (a cached
/// prefix is never shorter than the provider's minimum), else `given`.
fn minimum(scenario: &Scenario, requests: &[Request], given: f64) -> MinFit {
    let short = || requests.iter().filter(|r| r.read > 0.0 && r.read < given);
    let proof = short()
        .min_by(|a, b| a.read.total_cmp(&b.read))
        .map(|r| ShortRead {
            call: r.call + 1,
            id: scenario.calls.at(r.call).id.to_string(),
            read_tokens: r.read,
            input_tokens: r.total,
        });
    MinFit {
        given_tokens: given,
        tokens: proof.as_ref().map_or(given, |p| p.read_tokens),
        short_reads: short().count(),
        proof,
    }
}

/// What the cold requests read: their median, with the range; None when none read
/// anything.
fn warm(mut reads: Vec<f64>) -> Option<WarmFit> {
    if !reads.iter().any(|r| *r > 0.0) {
        return None;
    }
    reads.sort_by(f64::total_cmp);
    let n = reads.len();
    let tokens = if n % 2 == 1 {
        reads[n / 2]
    } else {
        (reads[n / 2 - 1] + reads[n / 2]) / 2.0
    };
    Some(WarmFit {
        tokens,
        cold_requests: n,
        least_tokens: reads[0],
        most_tokens: reads[n - 1],
    })
}
