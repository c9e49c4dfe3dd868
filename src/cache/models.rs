//! Prices and prompt-cache terms per model, so an imported session is priced by the model
//! its log names (and, one call away, a run priced as another model): LiteLLM's price data,
//! pinned and filtered (`litellm.json`, [`super::snapshot`]), with an overlay of what it
//! lacks or gets wrong (`overlay.toml`, [`super::overlay`]), every figure with its source.
//! [`find`] maps a log's model id to its terms ([`super::model_id`] says how).

use super::model_id;
use super::overlay::{Add, Amend, LongContextFile, Overlay, ProviderTerms};
use super::snapshot::{Entry, Header, Snapshot};
use std::collections::BTreeMap;
use std::sync::OnceLock;

const SNAPSHOT: &str = include_str!("litellm.json");
const OVERLAY: &str = include_str!("overlay.toml");

/// Seconds the 1-hour cache lives.
pub const ONE_HOUR_S: f64 = 3600.0;

/// A higher price tier billed for the whole request when its input exceeds a length. USD
/// per million tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct LongContext {
    /// The tier applies to requests with more input tokens than this.
    pub above_input_tokens: f64,
    pub input: f64,
    pub output: f64,
    pub cache_read: Option<f64>,
    pub cache_write_5m: Option<f64>,
    pub cache_write_1h: Option<f64>,
}

/// One model's prices and prompt-cache terms. Prices are USD per million tokens; a term
/// the price data lacks is None, never a guess.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelTerms {
    /// The name scenarios use (`[price] model`, `[cache] preset`): the price data's key
    /// (`claude-sonnet-4-5`, `us.anthropic.claude-sonnet-4-5-20250929-v1:0`).
    pub name: String,
    /// LiteLLM's provider: `anthropic`, `bedrock`, `bedrock_converse`,
    /// `vertex_ai-anthropic_models` or `openai`.
    pub provider: String,
    pub input: f64,
    pub output: f64,
    /// A cached input token.
    pub cache_read: Option<f64>,
    /// An input token written to the 5-minute cache.
    pub cache_write_5m: Option<f64>,
    /// An input token written to the 1-hour cache, where offered.
    pub cache_write_1h: Option<f64>,
    /// Seconds an unread prefix lives in the 5-minute cache.
    pub ttl_s: Option<f64>,
    /// The shortest prompt the provider caches, in tokens.
    pub min_tokens: Option<f64>,
    pub long_context: Option<LongContext>,
    /// Where the prices come from: the snapshot's entry (or the overlay's, for a model it
    /// adds), then each overlay entry that changed a price.
    pub source: String,
    /// Where the cache terms come from: `source`, then each overlay entry that gave or
    /// changed a term (the TTL, a minimum).
    pub cache_source: String,
}

/// A prompt cache's terms as the cost model takes them (docs/model.md §4): prices × the
/// input price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CacheTerms {
    pub read: f64,
    pub write: f64,
    pub ttl_s: f64,
    pub min_tokens: f64,
}

impl ModelTerms {
    /// `usd` as a multiple of the input price, to 9 decimals (prices have a few
    /// significant digits; the rounding makes 0.30 / 3.00 exactly 0.1).
    pub fn times_input(&self, usd: f64) -> f64 {
        round9(usd / self.input)
    }

    /// The cache terms of the 5-minute cache, or of the 1-hour cache (TTL 3,600 s); None
    /// when one is missing ([`ModelTerms::missing`] names it).
    pub fn cache(&self, one_hour: bool) -> Option<CacheTerms> {
        let (write, ttl_s) = if one_hour {
            (self.cache_write_1h?, ONE_HOUR_S)
        } else {
            (self.cache_write_5m?, self.ttl_s?)
        };
        Some(CacheTerms {
            read: self.times_input(self.cache_read?),
            write: self.times_input(write),
            ttl_s,
            min_tokens: self.min_tokens?,
        })
    }

    /// What the price data lacks for a cache model of this model (the 1-hour one when
    /// `one_hour`), in words: empty when [`ModelTerms::cache`] gives one.
    pub fn missing(&self, one_hour: bool) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.cache_read.is_none() {
            missing.push("cache read price");
        }
        if one_hour {
            if self.cache_write_1h.is_none() {
                missing.push("1-hour cache write price");
            }
        } else {
            if self.cache_write_5m.is_none() {
                missing.push("cache write price");
            }
            if self.ttl_s.is_none() {
                missing.push("cache TTL");
            }
        }
        if self.min_tokens.is_none() {
            missing.push("minimum cacheable tokens");
        }
        missing
    }

    /// The same prices and terms, whatever the name and source.
    fn priced_like(&self, other: &ModelTerms) -> bool {
        let bare = |m: &ModelTerms| ModelTerms {
            name: String::new(),
            source: String::new(),
            cache_source: String::new(),
            ..m.clone()
        };
        bare(self) == bare(other)
    }
}

/// A list in words, for messages: "a", "a and b", "a, b and c".
pub fn in_words(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// USD per token → USD per million tokens, to 9 decimals (as [`ModelTerms::times_input`]).
fn per_million(usd_per_token: f64) -> f64 {
    round9(usd_per_token * 1e6)
}

fn round9(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// The price data: every model by key, the aliases, and the snapshot's header.
#[derive(Debug, Default)]
pub struct PriceData {
    pub header: Header,
    pub models: BTreeMap<String, ModelTerms>,
    /// Other ids of an added model, to its key.
    pub aliases: BTreeMap<String, String>,
}

/// The snapshot with the overlay applied; an error names the entry that does not parse.
pub fn build(snapshot: &str, overlay: &str) -> Result<PriceData, String> {
    let s: Snapshot = serde_json::from_str(snapshot).map_err(|e| format!("litellm.json: {e}"))?;
    let o: Overlay = toml::from_str(overlay).map_err(|e| format!("overlay.toml: {e}"))?;
    let mut models = BTreeMap::new();
    for (key, e) in &s.models {
        let terms = from_snapshot(&s.litellm, key, e, &o).map_err(|e| format!("{key}: {e}"))?;
        models.insert(key.clone(), terms);
    }
    let mut aliases = BTreeMap::new();
    for a in &o.add {
        if models.contains_key(&a.key) {
            return Err(format!("overlay.toml: [[add]] {}: in the snapshot", a.key));
        }
        models.insert(a.key.clone(), added(a, &o.provider));
        for alias in &a.aliases {
            aliases.insert(alias.clone(), a.key.clone());
        }
    }
    Ok(PriceData {
        header: s.litellm,
        models,
        aliases,
    })
}

fn provider_terms<'a>(all: &'a [ProviderTerms], provider: &str) -> Option<&'a ProviderTerms> {
    all.iter()
        .find(|p| p.providers.iter().any(|x| x == provider))
}

/// The overlay amendments of a snapshot entry, in file order.
pub fn amendments<'a>(o: &'a Overlay, key: &str, provider: &str) -> Vec<&'a Amend> {
    let model = model_id::base(key);
    o.amend
        .iter()
        .filter(|a| a.model == model && a.providers.iter().any(|p| p == provider))
        .collect()
}

fn long_context(l: &LongContextFile) -> LongContext {
    LongContext {
        above_input_tokens: l.above_input_tokens,
        input: l.input,
        output: l.output,
        cache_read: l.cache_read,
        cache_write_5m: l.cache_write_5m,
        cache_write_1h: l.cache_write_1h,
    }
}

fn from_snapshot(h: &Header, key: &str, e: &Entry, o: &Overlay) -> Result<ModelTerms, String> {
    let provider = provider_terms(&o.provider, &e.litellm_provider);
    let input = per_million(e.input_cost_per_token);
    let tier = e.tier()?;
    let mut source = format!("LiteLLM {} price data, entry \"{key}\"", h.version);
    if let Some(url) = &e.source {
        source.push_str(&format!(" (citing {url})"));
    }
    let mut terms = ModelTerms {
        name: key.to_string(),
        provider: e.litellm_provider.clone(),
        input,
        output: per_million(e.output_cost_per_token),
        cache_read: e.cache_read_input_token_cost.map(per_million),
        cache_write_5m: e
            .cache_creation_input_token_cost
            .map(per_million)
            .or_else(|| provider.filter(|p| p.no_write_fee(key)).map(|_| input)),
        cache_write_1h: e.cache_creation_input_token_cost_above_1hr.map(per_million),
        ttl_s: provider.and_then(|p| p.ttl_s),
        min_tokens: e
            .prompt_cache_min_tokens
            .or_else(|| provider.and_then(|p| p.min_tokens)),
        long_context: match tier {
            Some(t) => Some(LongContext {
                above_input_tokens: t.above_input_tokens,
                input: t
                    .input
                    .map(per_million)
                    .ok_or("a long-context tier without an input price")?,
                output: t
                    .output
                    .map(per_million)
                    .ok_or("a long-context tier without an output price")?,
                cache_read: t.cache_read.map(per_million),
                cache_write_5m: t.cache_write_5m.map(per_million),
                cache_write_1h: t.cache_write_1h.map(per_million),
            }),
            None => None,
        },
        source: String::new(),
        cache_source: String::new(),
    };
    let mut cache_source = source.clone();
    if let Some(p) = provider {
        cache_source.push_str(&format!("; {}", p.source));
    }
    for a in amendments(o, key, &e.litellm_provider) {
        let note = format!("; {}", a.source);
        if let Some(x) = a.cache_write_1h {
            terms.cache_write_1h = Some(x);
        }
        if let Some(x) = a.min_tokens {
            terms.min_tokens = Some(x);
        }
        if let Some(l) = &a.long_context {
            terms.long_context = Some(long_context(l));
            source.push_str(&note);
        }
        cache_source.push_str(&note);
    }
    terms.source = source;
    terms.cache_source = cache_source;
    Ok(terms)
}

fn added(a: &Add, providers: &[ProviderTerms]) -> ModelTerms {
    let provider = provider_terms(providers, &a.provider);
    let source = format!("overlay: {}", a.source);
    let mut cache_source = source.clone();
    if let Some(p) = provider {
        cache_source.push_str(&format!("; {}", p.source));
    }
    ModelTerms {
        name: a.key.clone(),
        provider: a.provider.clone(),
        input: a.input,
        output: a.output,
        cache_read: a.cache_read,
        cache_write_5m: a.cache_write_5m,
        cache_write_1h: a.cache_write_1h,
        ttl_s: provider.and_then(|p| p.ttl_s),
        min_tokens: a.min_tokens.or_else(|| provider.and_then(|p| p.min_tokens)),
        long_context: a.long_context.as_ref().map(long_context),
        source,
        cache_source,
    }
}

/// The price data. Both files are checked by unit tests, so empty data here would mean a
/// broken build, not bad user input.
pub fn data() -> &'static PriceData {
    static DATA: OnceLock<PriceData> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut data = build(SNAPSHOT, OVERLAY).unwrap_or_default();
        if let Some(user) = super::user_prices::installed() {
            with_user_prices(&mut data, user);
        }
        data
    })
}

/// The user's models added to `data`, each replacing an entry of its name (and its ids
/// taken from the price data's aliases).
pub fn with_user_prices(data: &mut PriceData, user: &super::user_prices::UserPrices) {
    for m in &user.models {
        let terms = ModelTerms {
            name: m.name.clone(),
            provider: "user".into(),
            input: m.input,
            output: m.output,
            cache_read: m.cache_read,
            cache_write_5m: m.cache_write_5m,
            cache_write_1h: m.cache_write_1h,
            ttl_s: m.ttl_s,
            min_tokens: m.min_tokens,
            long_context: None,
            source: m.source.clone(),
            cache_source: m.source.clone(),
        };
        data.aliases.remove(&m.name);
        data.models.insert(m.name.clone(), terms);
        for alias in &m.aliases {
            data.models.remove(alias);
            data.aliases.insert(alias.clone(), m.name.clone());
        }
    }
}

/// Every model, by key.
pub fn all() -> impl Iterator<Item = &'static ModelTerms> {
    data().models.values()
}

/// The price data, for messages: "price data (LiteLLM 1.110.2 and its overlay in
/// src/cache/)".
pub fn described() -> String {
    match super::user_prices::installed() {
        Some(user) => format!(
            "price data (LiteLLM {}, its overlay in src/cache/, and {} from {})",
            data().header.version,
            user.file,
            super::user_prices::ENV
        ),
        None => format!(
            "price data (LiteLLM {} and its overlay in src/cache/)",
            data().header.version
        ),
    }
}

/// The terms of the model a log's id names: the first of [`model_id::candidates`] the
/// price data has (so a Bedrock regional id keeps its regional price), and a dated key
/// under its undated alias when the two are priced alike (`claude-sonnet-4-5-20250929` is
/// `claude-sonnet-4-5`). None for a model the price data does not know.
pub fn find(id: &str) -> Option<&'static ModelTerms> {
    let d = data();
    let m = model_id::candidates(id).into_iter().find_map(|c| {
        d.models
            .get(&c)
            .or_else(|| d.aliases.get(&c).and_then(|k| d.models.get(k)))
    })?;
    match model_id::undated(&m.name).and_then(|a| d.models.get(a)) {
        Some(alias) if alias.priced_like(m) => Some(alias),
        _ => Some(m),
    }
}

/// [`find`] over ids that mostly repeat the one before (a session's calls, one model after
/// another): the last answer is kept. A profile of `simulate history` over 10,000 sessions
/// of 50 calls put 15 % of its time in `find`'s lookups, called twice a call.
#[derive(Default)]
pub struct Finder<'a> {
    last: Option<(&'a str, Option<&'static ModelTerms>)>,
}

impl<'a> Finder<'a> {
    /// As [`find`]`(id)`.
    pub fn find(&mut self, id: &'a str) -> Option<&'static ModelTerms> {
        match self.last {
            Some((last, found)) if last == id => found,
            _ => {
                let found = find(id);
                self.last = Some((id, found));
                found
            }
        }
    }
}

#[cfg(test)]
#[path = "models_tests.rs"]
mod tests;
