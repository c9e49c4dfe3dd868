//! `cache` and `model` steps: the prices of the models a run's calls are at (docs/model.md
//! §4, §9).

use super::{Scope, WhatIf};
use crate::cache::models::{self, ONE_HOUR_S};
use crate::number::grouped;
use crate::pricing::{self, Pricing};
use crate::run::EditError;
use crate::scenario::provider::Providers;
use crate::scenario::{CacheChange, ModelChange};

fn error(key: &str, message: String) -> EditError {
    EditError {
        key: key.to_string(),
        message,
    }
}

/// A `cache` step: the terms it gives replace those of every model the run's calls are
/// at; a trace kind it does not list, or a scenario without a cache, is left unchanged
/// (and said), and so is a run on a provider its `providers` leaves out, or, with
/// `only_longer`, a run whose cache already lives `ttl_s` or longer.
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
    if let Some(note) = left_unchanged(scope, whatif, change) {
        notes.push(note);
        return Ok(());
    }
    let pricing = whatif.pricing.get_or_insert_with(|| scope.pricing.clone());
    let Some(current) = pricing.main().cache.clone() else {
        notes.push(
            "cache: the scenario has no [cache] (its cost is flat), so there are no cache terms to change: the step changes nothing"
                .to_string(),
        );
        return Ok(());
    };
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
    // Which class a trace's first request's break is (as `crate::fit::breaks` says).
    let first = match scope.import.map(|i| i.trace.as_str()) {
        Some("after-compaction") => "compaction",
        Some("after-reset") => "edit",
        _ => "cold",
    };
    let mut refused = None;
    pricing.map_caches(|c| {
        // Another model's cache already living as long is not shortened either.
        if change.only_longer && change.ttl_s.is_some_and(|asked| c.ttl_s >= asked) {
            return;
        }
        let mut next = c.clone();
        next.read = change.read.unwrap_or(next.read);
        next.write = change.write.unwrap_or(next.write);
        next.ttl_s = change.ttl_s.unwrap_or(next.ttl_s);
        next.min_tokens = change.min_tokens.unwrap_or(next.min_tokens);
        for class in &change.avoid {
            match *class {
                "ttl" => next.ttl_s = crate::scenario::NEVER_EXPIRES_S,
                "cold" | "compaction" if *class != first => {}
                "cold" | "compaction" => {
                    next.warm_share = 1.0;
                    next.warm_share_source = Some(format!("avoid = [\"{class}\"]"));
                }
                _ => {
                    next.miss_share = 0.0;
                    next.miss_share_source = Some(format!("avoid = [\"{class}\"]"));
                }
            }
        }
        // The preset names the terms only when it gave them all.
        next.preset.clone_from(&change.preset);
        if next.write < next.read {
            refused.get_or_insert((next.write, next.read));
            return;
        }
        *c = next;
    });
    if let Some((write, read)) = refused {
        return Err(error(
            "cache.write",
            format!(
                "leaves write = {write} below read = {read}: writing to the cache never costs less than reading from it"
            ),
        ));
    }
    Ok(())
}

/// Why a `cache` step leaves this run as it is, as a note, if it does: `providers` leaves
/// out the provider its calls ran on (as [`Providers`] reads them: a run that names none
/// takes the step), or, with `only_longer`, its cache already lives the step's `ttl_s` or
/// longer (its own `[cache] ttl_s`, fitted or a preset's, or what an earlier step set).
fn left_unchanged(scope: &Scope, whatif: &WhatIf, change: &CacheChange) -> Option<String> {
    if let Some(wanted) = &change.providers {
        let providers = Providers::of_calls(
            scope.calls,
            scope.import.and_then(|i| i.convention),
            scope.import.and_then(|i| i.model.as_deref()),
        );
        if let Some(other) = providers
            .seen
            .iter()
            .find(|s| !wanted.contains(&s.provider))
        {
            let model = other
                .models
                .first()
                .map_or_else(String::new, |m| format!("model {m}, "));
            let listed: Vec<String> = wanted.iter().map(|p| format!("\"{}\"", p.key())).collect();
            return Some(format!(
                "cache: these calls ran on {} ({model}convention {}), which providers = [{}] leaves out: the step changes nothing",
                other.provider.api(),
                other.provider.key(),
                listed.join(", ")
            ));
        }
    }
    let asked = change.ttl_s.filter(|_| change.only_longer)?;
    let current = whatif
        .pricing
        .as_ref()
        .unwrap_or(scope.pricing)
        .main()
        .cache
        .as_ref()?;
    (current.ttl_s >= asked).then(|| {
        format!(
            "cache: the cache already lives {} s, at least the edit's ttl_s = {} (only_longer): the step changes nothing",
            grouped(current.ttl_s, 0),
            grouped(asked, 0)
        )
    })
}

/// A `model` step: the calls `selected` (by baseline call; None: every call) at the
/// target's prices and cache terms, with the run's TTL kind (the 1-hour cache where the run
/// has one and the model offers it); miss and warm shares, which describe the client and
/// the provider, stay.
pub(super) fn model(
    scope: &Scope,
    whatif: &mut WhatIf,
    change: &ModelChange,
    selected: Option<&[bool]>,
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
    let pricing: &mut Pricing = whatif.pricing.get_or_insert_with(|| scope.pricing.clone());
    let cache = pricing.main().cache.clone();
    if let Some(current) = &cache {
        let one_hour = current.ttl_s >= ONE_HOUR_S;
        match (one_hour, m.cache(true), m.cache(false)) {
            (true, Some(_), _) | (false, _, Some(_)) => {}
            (true, None, Some(_)) => remarks.push(format!(
                "model: the {} has no 1-hour cache write price for {}: priced with its 5-minute cache",
                models::described(),
                m.name
            )),
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
        }
    } else {
        remarks.push(format!(
            "model: the scenario has no [cache]: priced as {} without a prompt cache (every input token at its input price)",
            m.name
        ));
    }
    let (target, _) = pricing::target(m, cache.as_ref(), scope.input_price);
    if scope.input_price.is_none() {
        remarks.push(format!(
            "model: the scenario has no [price] (and no log model the price data knows) to compare input prices with, so this edit's cost is in {}'s input-token equivalents, not the baseline's",
            m.name
        ));
    }
    pricing.move_to(target, selected);
    whatif.priced_as = Some((m.name.clone(), selected.is_some()));
    whatif.remarks.extend(remarks);
    whatif.tokens_factor = (change.tokens_factor != 1.0).then_some(change.tokens_factor);
    Ok(())
}
