//! `cache` and `model` steps: the run's own cache terms and prices (docs/model.md §9).

use super::{Scope, WhatIf};
use crate::cache::models::{self, ONE_HOUR_S};
use crate::run::EditError;
use crate::scenario::{CacheChange, CacheSpec, ModelChange, Price};

/// A run's own cache terms and prices, in place of the scenario's.
#[derive(Debug, Clone, PartialEq)]
pub struct Pricing {
    /// The run's prompt cache (None: flat, as the scenario is without `[cache]`).
    pub cache: Option<CacheSpec>,
    /// Whether a swept cache read price (`[sweep] cache_read`) sets this cache's read
    /// price: true while it is the scenario's; a read price of another model or preset is
    /// its own, not the swept assumption.
    pub read_swept: bool,
    /// Dollar prices (a model edit's are the target model's).
    pub price: Option<Price>,
    /// The run's input price over the scenario's: its cost in its own input-token
    /// equivalents times this is its cost in the scenario's, so that costs compare (1
    /// unless a model edit changes the input price, or when the scenario's is unknown).
    pub cost_scale: f64,
    /// The model the run is priced as (a `model` step).
    pub model: Option<String>,
}

impl Pricing {
    /// The scenario's own, for a first step to change.
    fn of(scope: &Scope) -> Pricing {
        Pricing {
            cache: scope.cache.cloned(),
            read_swept: true,
            price: scope.price.cloned(),
            cost_scale: 1.0,
            model: None,
        }
    }
}

fn error(key: &str, message: String) -> EditError {
    EditError {
        key: key.to_string(),
        message,
    }
}

/// A `cache` step: the terms it gives replace the run's; a trace kind it does not list,
/// or a scenario without a cache, is left unchanged (and said).
pub(super) fn cache(
    scope: &Scope,
    whatif: &mut WhatIf,
    change: &CacheChange,
    notes: &mut Vec<String>,
) -> Result<(), EditError> {
    if let Some(kinds) = &change.traces
        && !kinds.contains(&scope.trace)
    {
        whatif.trace_unchanged = Some(scope.trace);
        return Ok(());
    }
    let pricing = whatif.pricing.get_or_insert_with(|| Pricing::of(scope));
    let Some(current) = pricing.cache.as_mut() else {
        notes.push(
            "cache: the scenario has no [cache] (its cost is flat), so there are no cache terms to change: the step changes nothing"
                .to_string(),
        );
        return Ok(());
    };
    let mut next = current.clone();
    if let Some(ttl) = change.ttl_s
        && change.write.is_none()
        && change.preset.is_none()
        && (ttl >= ONE_HOUR_S) != (current.ttl_s >= ONE_HOUR_S)
        && current.write > 1.0
    {
        // Legal, but almost surely a slip: the write price goes with the TTL (Anthropic's
        // prompt caching page, 2026-12: 5-minute writes 1.25× the input price, 1-hour 2×).
        let (from, to) = match ttl >= ONE_HOUR_S {
            true => (
                "5-minute",
                "1-hour cache writes cost 2× the input price at Anthropic",
            ),
            false => (
                "1-hour",
                "5-minute cache writes cost 1.25× the input price at Anthropic",
            ),
        };
        notes.push(format!(
            "cache: ttl_s = {ttl} keeps the {from} cache's write price ({}×), though {to}: give `write` with the TTL (`cache = {{ ttl_s = {ttl}, write = … }}`), or a preset such as `claude-sonnet-4-5{}`",
            current.write,
            if ttl >= ONE_HOUR_S { "-1h" } else { "" }
        ));
    }
    next.read = change.read.unwrap_or(next.read);
    next.write = change.write.unwrap_or(next.write);
    next.ttl_s = change.ttl_s.unwrap_or(next.ttl_s);
    next.min_tokens = change.min_tokens.unwrap_or(next.min_tokens);
    // The preset names the terms only when it gave them all.
    next.preset.clone_from(&change.preset);
    if next.write < next.read {
        return Err(error(
            "cache.write",
            format!(
                "leaves write = {} below read = {}: writing to the cache never costs less than reading from it",
                next.write, next.read
            ),
        ));
    }
    *current = next;
    Ok(())
}

/// A `model` step: the target's prices, and its cache terms with the run's TTL kind (the
/// 1-hour cache where the run has one and the model offers it); miss and warm shares, which
/// describe the client and the provider, stay.
pub(super) fn model(
    scope: &Scope,
    whatif: &mut WhatIf,
    change: &ModelChange,
) -> Result<(), EditError> {
    let mut remarks = Vec::new();
    let Some(m) = models::find(&change.to) else {
        return Err(error(
            "model.to",
            format!(
                "no prices for model \"{}\" in the {}",
                change.to,
                models::described()
            ),
        ));
    };
    let pricing = whatif.pricing.get_or_insert_with(|| Pricing::of(scope));
    if let Some(current) = pricing.cache.as_mut() {
        let one_hour = current.ttl_s >= ONE_HOUR_S;
        let (terms, suffix) = match (one_hour, m.cache(true), m.cache(false)) {
            (true, Some(t), _) => (t, "-1h"),
            (true, None, Some(t)) => {
                remarks.push(format!(
                    "model: the {} has no 1-hour cache write price for {}: priced with its 5-minute cache",
                    models::described(),
                    m.name
                ));
                (t, "")
            }
            (false, _, Some(t)) => (t, ""),
            (_, _, None) => {
                return Err(error(
                    "model.to",
                    format!(
                        "the {} has no {} for \"{}\", which pricing this scenario's prompt cache needs: name a model with cache terms",
                        models::described(),
                        models::in_words(&m.missing(one_hour)),
                        m.name
                    ),
                ));
            }
        };
        current.read = terms.read;
        current.write = terms.write;
        current.ttl_s = terms.ttl_s;
        current.min_tokens = terms.min_tokens;
        current.preset = Some(format!("{}{suffix} ({})", m.name, m.cache_source));
    } else {
        remarks.push(format!(
            "model: the scenario has no [cache]: priced as {} without a prompt cache (every input token at its input price)",
            m.name
        ));
    }
    pricing.price = Some(Price {
        input: m.input,
        output: Some(m.output),
        source: format!("{} list price: {}", m.name, m.source),
    });
    pricing.cost_scale = match scope.input_price {
        Some(input) => m.input / input,
        None => {
            remarks.push(format!(
                "model: the scenario has no [price] (and no log model the price data knows) to compare input prices with, so this edit's cost is in {}'s input-token equivalents, not the baseline's",
                m.name
            ));
            1.0
        }
    };
    pricing.model = Some(m.name.clone());
    whatif.remarks.extend(remarks);
    whatif.tokens_factor = (change.tokens_factor != 1.0).then_some(change.tokens_factor);
    Ok(())
}

/// Settles what the steps left: whether the swept read price still applies.
pub(super) fn finish(scope: &Scope, whatif: &mut WhatIf) {
    if let Some(p) = whatif.pricing.as_mut() {
        p.read_swept = match (&p.cache, scope.cache) {
            (Some(own), Some(scenario)) => own.read == scenario.read,
            _ => true,
        };
    }
}
