//! Measured beside simulated (docs/model.md §6): for a scenario made from an agent log, what the
//! provider reported next to what the model computes, each with its denominator.
//!
//! A call's measured context is its total input under the provider's convention (for
//! Anthropic input + cache creation + cache read; for OpenAI the input count, which
//! includes cached tokens). The measured total is summed over the calls that report it,
//! and every comparison is made on those same calls: "measured on 41 of 44 calls".

use crate::cache::models::{self, ModelTerms};
use crate::cache::presets;
use crate::evaluate::{Evaluation, Study};
use crate::number::{grouped, plural};
use crate::scenario::{Calls, Convention, MeasuredUsage};
use crate::timeline::{self, CallFigures};
use serde::Serialize;

/// Calls listed where measured and simulated contexts disagree most.
const WORST_CALLS: usize = 5;

/// One call where the measured and the simulated context differ.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CallDifference {
    /// 1-based position in the baseline.
    pub call: usize,
    pub id: String,
    pub label: String,
    /// Total input the provider reported, tokens.
    pub measured_tokens: f64,
    /// The simulated context, est. tokens.
    pub simulated_tokens: f64,
    /// `100 · (simulated − measured) / measured`.
    pub difference_pct: f64,
}

/// Measured usage next to the simulation, at the nominal point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MeasuredReport {
    /// Calls with a measured total input, of all calls.
    pub calls_measured: usize,
    pub calls: usize,
    /// "measured on 41 of 44 calls".
    pub denominator: String,
    /// The conventions of the measured numbers, described.
    pub conventions: Vec<String>,
    /// Sum of the measured total inputs, tokens.
    pub measured_input_tokens: f64,
    /// The simulated reread total over the same calls, est. tokens.
    pub simulated_input_tokens: f64,
    /// `100 · (simulated − measured) / measured`.
    pub difference_pct: f64,
    /// Cache reads ÷ total input over the measured calls that report both; None when none
    /// does.
    pub cache_hit_rate: Option<f64>,
    /// The cache model's cached ÷ context over the same calls, with `[cache]`.
    pub simulated_cache_hit_rate: Option<f64>,
    /// Measured cost in input-token equivalents (each call's cache fields at its model's
    /// multipliers); None when a call's model has no price data and the scenario no
    /// `[cache]`.
    pub measured_cost: Option<f64>,
    /// The cache model's cost over the same calls, input-token equivalents.
    pub simulated_cost: f64,
    /// `100 · (simulated − measured) / measured` cost; None without a measured cost.
    pub cost_difference_pct: Option<f64>,
    /// What in the log the cache model does not reproduce, each a sentence with its count:
    /// a cache already warm at the first request, reads after pauses longer than the TTL.
    pub cost_differs_because: Vec<String>,
    /// Measured dollars at each call's model prices (long-context tier included); None
    /// when a measured call's model has no price data.
    pub measured_dollars: Option<f64>,
    /// Where the measured prices come from, or why there are none.
    pub measured_price_source: String,
    /// The calls where the two disagree most, largest relative difference first.
    pub largest_differences: Vec<CallDifference>,
    /// What these numbers are and are not.
    pub note: String,
}

/// What a measured call costs, in input-token equivalents and dollars.
struct CallCost {
    equivalents: Option<f64>,
    dollars: Option<f64>,
}

fn call_cost(
    u: &MeasuredUsage,
    model: Option<&ModelTerms>,
    fallback: Option<(f64, f64)>,
) -> CallCost {
    let read_tokens = u.cache_read_input_tokens.unwrap_or(0.0);
    // The model's own multipliers where the price data has them.
    let multiples = model.and_then(|m| {
        let (read, write) = m.cache_read.zip(m.cache_write_5m)?;
        let write_1h = m.cache_write_1h.unwrap_or(write);
        Some((
            m.times_input(read),
            m.times_input(write),
            m.times_input(write_1h),
        ))
    });
    let (read, write_5m, write_1h) = match (multiples, fallback) {
        (Some(m), _) => m,
        (None, Some((read, write))) => (read, write, write),
        (None, None) => {
            return CallCost {
                equivalents: None,
                dollars: None,
            };
        }
    };
    let equivalents = match u.convention {
        Convention::Anthropic => (|| {
            let one_hour = u.cache_creation_1h_input_tokens.unwrap_or(0.0);
            let five_min = u.cache_creation_5m_input_tokens()?;
            Some(
                u.input_tokens?
                    + write_5m * five_min
                    + write_1h * one_hour
                    + read * u.cache_read_input_tokens?,
            )
        })(),
        // Cached tokens are part of input_tokens; no write fee.
        Convention::OpenAi => u
            .input_tokens
            .map(|i| (i - read_tokens).max(0.0) + read * read_tokens),
    };
    let dollars = match (model, equivalents, u.total_input()) {
        (Some(m), Some(eq), Some(total)) => {
            let (input, output) = match &m.long_context {
                Some(tier) if total > tier.above_input_tokens => (tier.input, tier.output),
                _ => (m.input, m.output),
            };
            u.output_tokens.map(|out| (eq * input + out * output) / 1e6)
        }
        _ => None,
    };
    CallCost {
        equivalents,
        dollars,
    }
}

/// Simulated against measured cost of `scenario` at its nominal point, in percent; None
/// when its edits do not apply or it has no measured cost.
pub fn cost_difference_pct(scenario: &crate::scenario::Scenario) -> Option<f64> {
    let study = Study::new(scenario).ok()?;
    let at = crate::ledger::Assumptions {
        base_tokens: scenario.base_tokens,
        bytes_per_token: scenario.bytes_per_token,
    };
    let nominal = crate::evaluate::evaluate(&study, study.nominal(at));
    MeasuredReport::new(&study, &nominal)?.cost_difference_pct
}

impl MeasuredReport {
    /// The comparison for `study`'s baseline at the nominal point; None when no call
    /// carries measured usage.
    pub fn new(study: &Study, nominal: &Evaluation) -> Option<MeasuredReport> {
        let s = study.scenario;
        let calls: &Calls = &s.calls;
        if s.calls_with_usage() == 0 {
            return None;
        }
        let mut figures: Vec<CallFigures<f64>> = Vec::with_capacity(calls.len());
        study.baseline.walk(
            study,
            &nominal.baseline.clearings,
            nominal.at(),
            |_, _, f: &CallFigures<f64>| figures.push(*f),
        );
        let pricing = &study.pricing;
        let retry = nominal.point.retry_rate;
        let mut measured_calls = 0;
        let (mut measured, mut simulated) = (0.0, 0.0);
        let (mut read_tokens, mut read_base) = (0.0, 0.0);
        let (mut sim_cached, mut sim_context) = (0.0, 0.0);
        let mut cost = Some(0.0);
        let mut dollars = Some(0.0);
        let mut simulated_cost = 0.0;
        let mut unknown_models: Vec<String> = Vec::new();
        // Known models whose cache prices the price data lacks (and no [cache] to stand in).
        let mut no_cache_prices: Vec<String> = Vec::new();
        let mut conventions: Vec<Convention> = Vec::new();
        let mut differences: Vec<CallDifference> = Vec::new();
        // Reads the cache model cannot have: at the first measured request, and after a
        // pause longer than the TTL.
        let mut warm_start: Option<f64> = None;
        let (mut late_reads, mut late_read_tokens) = (0usize, 0.0);
        let mut finder = models::Finder::default();
        for (i, (call, f)) in calls.iter().zip(&figures).enumerate() {
            let Some(u) = call.usage() else { continue };
            let Some(total) = u.total_input() else {
                continue;
            };
            let read = u.cache_read_input_tokens.unwrap_or(0.0);
            if measured_calls == 0 && read > 0.0 {
                warm_start = Some(read);
            }
            if let Some(cache) = &s.cache
                && measured_calls > 0
                && call.gap_s > cache.ttl_s
                && read > 0.0
            {
                late_reads += 1;
                late_read_tokens += read;
            }
            measured_calls += 1;
            measured += total;
            simulated += f.context;
            sim_cached += f.cached;
            sim_context += f.context;
            // Both sides priced alike: each call at the model the simulation prices it at,
            // its output at that model's output price, in the scenario's equivalents.
            let priced_at = &pricing.models[f.model as usize];
            simulated_cost += timeline::call_cost(f, priced_at, nominal.point.cache_read, retry);
            if !conventions.contains(&u.convention) {
                conventions.push(u.convention);
            }
            if let Some(read) = u.cache_read_input_tokens {
                read_tokens += read;
                read_base += total;
            }
            let model = u.model.as_deref().and_then(|m| finder.find(m));
            if model.is_none() {
                let name = u.model.as_deref().unwrap_or("(no model named)").to_string();
                if !unknown_models.contains(&name) {
                    unknown_models.push(name);
                }
            }
            let c = call_cost(u, model, s.cache.as_ref().map(|c| (c.read, c.write)));
            if let Some(m) = model
                && c.equivalents.is_none()
                && (m.cache_read.is_none() || m.cache_write_5m.is_none())
                && !no_cache_prices.contains(&m.name)
            {
                no_cache_prices.push(m.name.clone());
            }
            let output = priced_at.output.unwrap_or(0.0) * u.output_tokens.unwrap_or(0.0);
            let equivalents = c.equivalents.map(|eq| (eq + output) * priced_at.scale);
            cost = cost.zip(equivalents).map(|(a, b)| a + b);
            dollars = dollars.zip(c.dollars).map(|(a, b)| a + b);
            if total > 0.0 {
                differences.push(CallDifference {
                    call: i + 1,
                    id: call.id.to_string(),
                    label: call.label.to_string(),
                    measured_tokens: total,
                    simulated_tokens: f.context,
                    difference_pct: 100.0 * (f.context - total) / total,
                });
            }
        }
        differences.sort_by(|a, b| {
            b.difference_pct
                .abs()
                .total_cmp(&a.difference_pct.abs())
                .then(a.call.cmp(&b.call))
        });
        differences.truncate(WORST_CALLS);
        let measured_price_source = if !unknown_models.is_empty() {
            format!(
                "no price data for {}: dollars not computed",
                unknown_models.join(", ")
            )
        } else if !no_cache_prices.is_empty() {
            format!(
                "no cache prices for {} in the {}: dollars not computed",
                no_cache_prices.join(", "),
                models::described()
            )
        } else {
            let mut names: Vec<&str> = calls
                .iter()
                .filter_map(|c| c.usage()?.model.as_deref())
                .filter_map(|m| finder.find(m).map(|p| p.name.as_str()))
                .collect();
            names.sort_unstable();
            names.dedup();
            format!(
                "each call at its model's list price ({}), from the {}",
                names.join(", "),
                models::described()
            )
        };
        if !unknown_models.is_empty() {
            dollars = None;
        }
        let mut cost_differs_because = Vec::new();
        if let Some(read) = warm_start {
            let simulated = match s.cache.as_ref().filter(|c| c.warm_share > 0.0) {
                Some(c) => format!(
                    "the simulation reads {} of them ([cache] warm_share = {})",
                    grouped(c.warm_share * nominal.at().base_tokens, 0),
                    c.warm_share
                ),
                None => "the simulation starts with an empty cache and writes them (`simulate fit --write` sets [cache] warm_share)".to_string(),
            };
            cost_differs_because.push(format!(
                "the log's first request already read {} tokens from the prompt cache (written before this trace began, by an earlier session or a subagent with the same prefix); {simulated}",
                grouped(read, 0)
            ));
        }
        if let (Some(spec), Some(c)) = (&s.cache, crate::fit::cache::fit(s))
            && c.missed_requests + c.partial_requests > 0
        {
            let priced = if spec.miss_share > 0.0 {
                format!(
                    "the cost model prices a share of {} as written again ([cache] miss_share)",
                    spec.miss_share
                )
            } else {
                "the cost model, with [cache] miss_share = 0, reads them all (`simulate fit --write` sets it)".to_string()
            };
            cost_differs_because.push(format!(
                "of {} within the {} s TTL, {} read less than half of the previous request's input from the cache ({} nothing at all) and {} only part of it: {} of {} prefix tokens a perfect cache would read were written again (μ = {:.3}); {priced}",
                plural(c.requests_compared, "request", "requests"),
                grouped(c.ttl_s, 0),
                c.missed_requests,
                c.read_nothing,
                c.partial_requests,
                grouped(c.missed_tokens, 0),
                grouped(c.prefix_tokens, 0),
                c.miss_share
            ));
        }
        if let Some(cache) = s.cache.as_ref().filter(|_| late_reads > 0) {
            // `preset` reads "claude-sonnet-4-5 (its source)".
            let preset = cache.preset.as_deref().and_then(|p| p.split(" (").next());
            let hint = match preset {
                Some(p) if !p.ends_with("-1h") && presets::find(&format!("{p}-1h")).is_some() => {
                    format!(" Try [cache] preset = \"{p}-1h\"")
                }
                _ => String::new(),
            };
            let rewrites = match cache.warm_share {
                0.0 => "writes the prefix again".to_string(),
                w => format!(
                    "reads only the warm part of the base ({} tokens, [cache] warm_share = {w}) and writes the rest again",
                    grouped(w * nominal.at().base_tokens, 0)
                ),
            };
            cost_differs_because.push(format!(
                "{} read {} tokens from the cache after a pause longer than the simulated TTL ({} s), where the simulation {rewrites}: the provider's cache lived longer (`simulate fit --write` fits the lifetime the reads prove; a 1-hour cache?{hint})",
                plural(late_reads, "request", "requests"),
                grouped(late_read_tokens, 0),
                grouped(cache.ttl_s, 0)
            ));
        }
        Some(MeasuredReport {
            calls_measured: measured_calls,
            calls: calls.len(),
            denominator: format!(
                "measured on {} of {}",
                measured_calls,
                plural(calls.len(), "call", "calls")
            ),
            conventions: conventions.iter().map(|c| c.describe().to_string()).collect(),
            measured_input_tokens: measured,
            simulated_input_tokens: simulated,
            difference_pct: if measured > 0.0 {
                100.0 * (simulated - measured) / measured
            } else {
                0.0
            },
            cache_hit_rate: (read_base > 0.0).then(|| read_tokens / read_base),
            simulated_cache_hit_rate: (s.cache.is_some() && sim_context > 0.0)
                .then(|| sim_cached / sim_context),
            measured_cost: cost,
            simulated_cost,
            cost_difference_pct: cost
                .filter(|&c| c > 0.0)
                .map(|c| 100.0 * (simulated_cost - c) / c),
            cost_differs_because,
            measured_dollars: dollars,
            measured_price_source,
            largest_differences: differences,
            note: "Logged calls are logical requests: HTTP retries and re-generations are not in them, so a measured total times a price is close to, but not, a bill.".into(),
        })
    }
}
