//! Each call at its own model (docs/model.md §4): the models a run's calls are priced at,
//! each with its prompt-cache terms, its input price over the scenario's and its output
//! price in its own input tokens.
//!
//! A session may plan with one model and work with another: an imported call keeps the
//! model its log names (`[call.measured] model`), and is priced with that model's terms
//! from the price data. The scenario's own `[cache]` and `[price]` are the terms of its
//! model (`[price] model`, a per-model `[cache] preset`, else `[import] model`); a call of
//! another model is priced as that model, in the scenario's input-token equivalents (its
//! cost times its input price over the scenario's), so a run's cost adds up across models
//! and its dollars are that cost at the scenario's input price.

use crate::cache::models::{self, ModelTerms, ONE_HOUR_S};
use crate::number::plural;
use crate::scenario::{CacheSpec, Calls, Price, Scenario};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Most models one run's calls are priced at: a call's model is a byte.
pub const MAX_MODELS: usize = 256;

/// One model as a run prices its calls.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPrice {
    /// The price data's name of the model (`claude-opus-4-1`); None where the scenario's
    /// own terms name no model.
    pub model: Option<String>,
    /// Its prompt-cache terms (None: the run has no cache, every input token costs 1).
    pub cache: Option<CacheSpec>,
    /// Its dollar prices, where known.
    pub price: Option<Price>,
    /// Its input price over the scenario's: its cost in its own input-token equivalents
    /// times this is the scenario's. 1 for the scenario's own terms, and where either
    /// input price is unknown (then said in [`Pricing::remarks`]).
    pub scale: f64,
    /// An output token's price in this model's input tokens (its output ÷ input price);
    /// None where unknown: its calls' output is not priced.
    pub output: Option<f64>,
    /// Where `output` came from: the price data, `[price]`, or "assumed ([cache] output)".
    pub output_source: Option<String>,
    /// Whether a swept cache read price (`[sweep] cache_read`) sets this model's read
    /// price: true only for the scenario's own cache terms, unchanged by an edit.
    pub read_swept: bool,
}

impl ModelPrice {
    /// `(read, write)` cache multipliers with the miss share, the read price `swept` where
    /// this model's is the swept assumption (docs/model.md §4).
    pub fn cache_prices(&self, swept: Option<f64>) -> Option<(f64, f64)> {
        let c = self.cache.as_ref()?;
        let read = match swept {
            Some(r) if self.read_swept => r,
            _ => c.read,
        };
        Some((c.expected_read(read), c.write))
    }

    /// The cost of output tokens, in the scenario's input-token equivalents: 0 where the
    /// output price is unknown (said by [`Pricing::output_priced`]).
    pub fn output_cost(&self, output_tokens: f64) -> f64 {
        self.output.map_or(0.0, |r| r * output_tokens * self.scale)
    }

    /// The terms of `m` for a scenario whose own cache is `scenario` (TTL, miss and warm
    /// shares kept: they describe the client and the provider), its input price
    /// `reference_input`.
    fn of_model(
        m: &ModelTerms,
        scenario: Option<&CacheSpec>,
        reference_input: Option<f64>,
        keep_ttl: bool,
    ) -> (ModelPrice, Option<String>) {
        let mut remark = None;
        let cache = scenario.map(|own| {
            let one_hour = own.ttl_s >= ONE_HOUR_S;
            let terms = m.cache(one_hour).or_else(|| m.cache(false));
            match terms {
                Some(t) => CacheSpec {
                    ttl_s: if keep_ttl { own.ttl_s } else { t.ttl_s },
                    read: t.read,
                    write: t.write,
                    min_tokens: t.min_tokens,
                    preset: Some(format!(
                        "{}{} ({})",
                        m.name,
                        if one_hour && m.cache(true).is_some() {
                            "-1h"
                        } else {
                            ""
                        },
                        m.cache_source
                    )),
                    output: None,
                    model: Some(m.name.clone()),
                    ..own.clone()
                },
                None => {
                    remark = Some(format!(
                        "the {} has no cache terms for {} ({} missing): its calls are priced with the scenario's cache terms",
                        models::described(),
                        m.name,
                        models::in_words(&m.missing(false))
                    ));
                    own.clone()
                }
            }
        });
        let price = ModelPrice {
            model: Some(m.name.clone()),
            cache,
            price: Some(Price {
                input: m.input,
                output: Some(m.output),
                source: format!("{} list price: {}", m.name, m.source),
                model: Some(m.name.clone()),
            }),
            scale: reference_input.map_or(1.0, |input| m.input / input),
            output: Some(m.output / m.input),
            output_source: Some(format!("{} list price: {}", m.name, m.source)),
            read_swept: false,
        };
        (price, remark)
    }
}

/// Which model each call of a run is priced at.
#[derive(Debug, Clone, PartialEq)]
enum Assignment {
    /// Every call at this model.
    All(u8),
    /// By baseline call (a run's slot's origin): its model.
    PerCall(Arc<[u8]>),
}

/// The models a run's calls are priced at, and which call is at which.
#[derive(Debug, Clone, PartialEq)]
pub struct Pricing {
    /// The scenario's own terms first, then each other model its calls name.
    pub models: Vec<ModelPrice>,
    assignment: Assignment,
    /// The scenario's input price (USD per million tokens), where known: what a run's
    /// cost in input-token equivalents is in dollars.
    pub input_price: Option<f64>,
    /// Things to know about the prices that are not errors (a model without prices,
    /// calls of a model priced as another): warnings.
    pub remarks: Vec<String>,
    /// How many calls are at which model, where they are at more than one: "12 calls at
    /// claude-sonnet-4, 8 calls at claude-opus-4-1".
    pub per_call: Option<String>,
}

impl Pricing {
    /// Every call at the scenario's own terms.
    pub fn uniform(model: ModelPrice, input_price: Option<f64>) -> Pricing {
        Pricing {
            models: vec![model],
            assignment: Assignment::All(0),
            input_price,
            remarks: Vec::new(),
            per_call: None,
        }
    }

    /// Every call under the prompt cache `cache` (if any), without prices: cost is input
    /// only, in input-token equivalents.
    pub fn of_cache(cache: Option<CacheSpec>) -> Pricing {
        Pricing::uniform(
            ModelPrice {
                model: None,
                cache,
                price: None,
                scale: 1.0,
                output: None,
                output_source: None,
                read_swept: true,
            },
            None,
        )
    }

    /// The pricing of `s`'s baseline: each call at the model its log names, where the
    /// price data knows it; the scenario's own terms for the rest.
    pub fn of(s: &Scenario) -> Pricing {
        let reference = reference_model(s);
        let input_price = s
            .price
            .as_ref()
            .map(|p| p.input)
            .or(reference.map(|m| m.input));
        let own = ModelPrice {
            model: reference.map(|m| m.name.clone()),
            cache: s.cache.clone(),
            price: s.price.clone(),
            scale: 1.0,
            output: None,
            output_source: None,
            read_swept: true,
        };
        let own = with_output(own, s, reference);
        let mut pricing = Pricing::uniform(own, input_price);
        // Without a cache or prices there is nothing to price per model: cost is the
        // reread total (docs/model.md §4).
        if s.cache.is_none() && s.price.is_none() {
            return pricing;
        }
        pricing.assign_logged(&s.calls, reference);
        pricing
    }

    /// Each call whose log names a model other than `reference` (the scenario's own, where
    /// known) at that model's terms.
    fn assign_logged(&mut self, calls: &Calls, reference: Option<&'static ModelTerms>) {
        let mut index: FxHashMap<&str, u8> = FxHashMap::default();
        let mut unknown: Vec<(String, usize)> = Vec::new();
        let mut counts: Vec<usize> = vec![0];
        // Filled from the first call at another model on (all 0 before it).
        let mut per_call: Option<Vec<u8>> = None;
        for (i, detail) in calls.details().enumerate() {
            let id = detail.and_then(|d| d.measured.as_ref()?.model.as_deref());
            let k = match id {
                None => 0,
                Some(id) => match index.get(id) {
                    Some(&k) => k,
                    None => {
                        let k = self.model_of(id, reference, &mut unknown, &mut counts);
                        index.insert(id, k);
                        k
                    }
                },
            };
            if let Some(n) = counts.get_mut(k as usize) {
                *n += 1;
            }
            if k != 0 && per_call.is_none() {
                per_call = Some(vec![0; i]);
            }
            if let Some(per_call) = per_call.as_mut() {
                per_call.push(k);
            }
        }
        let own = reference.map_or("the scenario's own terms", |r| r.name.as_str());
        for (id, n) in unknown {
            self.remarks.push(format!(
                "{} of model \"{}\", which the {} does not know: priced as {own}",
                plural(n, "call", "calls"),
                crate::printable::printable(&id),
                models::described(),
            ));
        }
        if let Some(per_call) = per_call {
            let others: Vec<String> = self.models[1..]
                .iter()
                .zip(&counts[1..])
                .map(|(m, n)| {
                    format!(
                        "{} at {}",
                        plural(*n, "call", "calls"),
                        m.model.as_deref().unwrap_or("?")
                    )
                })
                .collect();
            self.per_call = Some(format!(
                "{} at {own}, {}",
                plural(counts[0], "call", "calls"),
                others.join(", ")
            ));
            self.assignment = Assignment::PerCall(per_call.into());
        }
    }

    /// The index of the model log id `id` names, added if new; 0 (the scenario's own) for
    /// `reference` and for a model the price data does not know (counted in `unknown`), or
    /// past [`MAX_MODELS`].
    fn model_of(
        &mut self,
        id: &str,
        reference: Option<&'static ModelTerms>,
        unknown: &mut Vec<(String, usize)>,
        counts: &mut Vec<usize>,
    ) -> u8 {
        let Some(m) = models::find(id) else {
            match unknown.iter_mut().find(|(u, _)| u == id) {
                Some((_, n)) => *n += 1,
                None => unknown.push((id.to_string(), 1)),
            }
            return 0;
        };
        if reference.is_some_and(|r| r.name == m.name) {
            return 0;
        }
        if let Some(k) = self
            .models
            .iter()
            .position(|p| p.model.as_deref() == Some(m.name.as_str()))
        {
            return k as u8;
        }
        if self.models.len() >= MAX_MODELS {
            return 0;
        }
        let (price, remark) =
            ModelPrice::of_model(m, self.models[0].cache.as_ref(), self.input_price, true);
        self.remarks.extend(remark);
        if self.input_price.is_none() {
            self.remarks.push(format!(
                "the scenario's own input price is unknown, so calls of {} are counted in {}'s input-token equivalents",
                m.name, m.name
            ));
        }
        self.models.push(price);
        counts.push(0);
        (self.models.len() - 1) as u8
    }

    /// The model call `origin` of the baseline is priced at (an index into `models`).
    #[inline]
    pub fn model_index(&self, origin: u32) -> u8 {
        match &self.assignment {
            Assignment::All(k) => *k,
            Assignment::PerCall(of) => of.get(origin as usize).copied().unwrap_or(0),
        }
    }

    /// The model call `origin` of the baseline is priced at.
    #[inline]
    pub fn model_of_call(&self, origin: u32) -> &ModelPrice {
        &self.models[self.model_index(origin) as usize]
    }

    /// Whether every call is priced at one model (what the sweep's lanes assume).
    pub fn is_uniform(&self) -> bool {
        matches!(self.assignment, Assignment::All(_))
    }

    /// The model every call is at, for a uniform pricing; else the scenario's own.
    pub fn main(&self) -> &ModelPrice {
        match self.assignment {
            Assignment::All(k) => &self.models[k as usize],
            Assignment::PerCall(_) => &self.models[0],
        }
    }

    /// Whether the run has a prompt cache (every model has one, or none does).
    pub fn cached(&self) -> bool {
        self.models[0].cache.is_some()
    }

    /// Whether the output of every model's calls is priced.
    pub fn output_priced(&self) -> bool {
        self.used().all(|m| m.output.is_some())
    }

    /// Whether a run's cost differs from its reread total: a cache, or output priced.
    pub fn prices_cost(&self) -> bool {
        self.cached() || self.used().any(|m| m.output.is_some())
    }

    /// The models some call is at.
    pub fn used(&self) -> impl Iterator<Item = &ModelPrice> {
        let all = match self.assignment {
            Assignment::All(k) => Some(k as usize),
            Assignment::PerCall(_) => None,
        };
        self.models
            .iter()
            .enumerate()
            .filter(move |(i, _)| all.is_none_or(|k| k == *i))
            .map(|(_, m)| m)
    }

    /// Dollars of a cost in the scenario's input-token equivalents: None where the input
    /// price, or an output price some output needs, is missing.
    pub fn dollars(&self, cost: f64, output_unpriced: bool) -> Option<f64> {
        if output_unpriced {
            return None;
        }
        let input = self.input_price?;
        // Every model's dollars are the scenario's equivalents at its input price only
        // where each model's own input price is known.
        self.used()
            .all(|m| m.price.is_some())
            .then(|| cost * input / 1e6)
    }

    /// This pricing with every model's cache terms changed by `change` (a `cache` edit);
    /// each model's read stays swept only if unchanged.
    pub fn map_caches(&mut self, mut change: impl FnMut(&mut CacheSpec)) {
        for m in &mut self.models {
            if let Some(c) = m.cache.as_mut() {
                let read = c.read;
                change(c);
                if c.read != read {
                    m.read_swept = false;
                }
            }
        }
    }

    /// This pricing with the calls `selected` (by baseline call; None: every call) moved
    /// to `model`, added as a model of its own (a `model` edit).
    pub fn move_to(&mut self, model: ModelPrice, selected: Option<&[bool]>) {
        let k = match self.models.iter().position(|m| *m == model) {
            Some(k) => k,
            None => {
                if self.models.len() >= MAX_MODELS {
                    self.models.pop();
                }
                self.models.push(model);
                self.models.len() - 1
            }
        } as u8;
        self.assignment = match selected {
            None => Assignment::All(k),
            Some(selected) => {
                let of: Vec<u8> = selected
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| if s { k } else { self.model_index(i as u32) })
                    .collect();
                Assignment::PerCall(of.into())
            }
        };
    }
}

/// The price data's model the scenario's own terms are of: `[price] model`, a per-model
/// `[cache] preset`, else the model its log used most (`[import] model`).
pub fn reference_model(s: &Scenario) -> Option<&'static ModelTerms> {
    let named = s
        .price
        .as_ref()
        .and_then(|p| p.model.as_deref())
        .or_else(|| s.cache.as_ref().and_then(|c| c.model.as_deref()))
        .or_else(|| s.import.as_ref().and_then(|i| i.model.as_deref()));
    named.and_then(models::find)
}

/// The scenario's own output price in its input tokens: `[cache] output` (assumed), else
/// `[price]`'s output over its input, else its model's list prices.
fn with_output(
    mut own: ModelPrice,
    s: &Scenario,
    reference: Option<&'static ModelTerms>,
) -> ModelPrice {
    let assumed = s.cache.as_ref().and_then(|c| c.output);
    let (output, source) = if let Some(r) = assumed {
        (Some(r), Some("assumed ([cache] output)".to_string()))
    } else if let Some((p, out)) = s.price.as_ref().and_then(|p| Some((p, p.output?))) {
        (Some(out / p.input), Some(p.source.clone()))
    } else if let Some(m) = reference {
        (
            Some(m.output / m.input),
            Some(format!("{} list price: {}", m.name, m.source)),
        )
    } else {
        (None, None)
    };
    own.output = output;
    own.output_source = source;
    own
}

/// Model `m`'s terms for a `model` edit moving calls to it, from a run whose cache is
/// `cache`: the target's own TTL for the run's TTL kind (5-minute or 1-hour), the run's miss
/// and warm shares; and a remark where the price data lacks its cache terms.
pub fn target(
    m: &ModelTerms,
    cache: Option<&CacheSpec>,
    reference_input: Option<f64>,
) -> (ModelPrice, Option<String>) {
    ModelPrice::of_model(m, cache, reference_input, false)
}
