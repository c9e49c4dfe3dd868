//! The overlay on the snapshot (`overlay.toml`): terms LiteLLM has no field for, the ones
//! it gets wrong, and the models it lacks, each with its source. USD per million tokens.

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    #[serde(default)]
    pub provider: Vec<ProviderTerms>,
    #[serde(default)]
    pub amend: Vec<Amend>,
    #[serde(default)]
    pub add: Vec<Add>,
}

/// Terms for every entry of some LiteLLM providers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderTerms {
    pub providers: Vec<String>,
    /// Seconds an unread prefix lives in the 5-minute cache.
    pub ttl_s: Option<f64>,
    /// The minimum cacheable prompt, where an entry has none.
    pub min_tokens: Option<f64>,
    /// A cache write costs the input price on models before this family (`gpt-5.6`; see
    /// [`gpt_family`]), where an entry has no write price.
    pub no_write_fee_before: Option<String>,
    /// A cache write costs the input price on every model (an implicit cache, as Gemini's),
    /// where an entry has no write price.
    #[serde(default)]
    pub no_write_fee: bool,
    pub source: String,
}

/// Corrections and additions to every entry of one model on some providers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Amend {
    /// The model as [`super::model_id::base`] gives it (`claude-sonnet-4-5`).
    pub model: String,
    pub providers: Vec<String>,
    pub cache_write_1h: Option<f64>,
    pub min_tokens: Option<f64>,
    pub long_context: Option<LongContextFile>,
    pub source: String,
}

/// A model the snapshot lacks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Add {
    pub key: String,
    /// Other ids of the same model (`claude-opus-4-0`).
    #[serde(default)]
    pub aliases: Vec<String>,
    pub provider: String,
    pub input: f64,
    pub output: f64,
    pub cache_read: Option<f64>,
    pub cache_write_5m: Option<f64>,
    pub cache_write_1h: Option<f64>,
    pub min_tokens: Option<f64>,
    pub long_context: Option<LongContextFile>,
    pub source: String,
}

/// A long-context tier.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongContextFile {
    pub above_input_tokens: f64,
    pub input: f64,
    pub output: f64,
    pub cache_read: Option<f64>,
    pub cache_write_5m: Option<f64>,
    pub cache_write_1h: Option<f64>,
}

/// The GPT family of an OpenAI key: `gpt-5.3-codex` is (5, 3), `gpt-5-mini` (5, 0); None
/// for other names (`o4-mini`).
pub fn gpt_family(key: &str) -> Option<(u32, u32)> {
    let v = key.strip_prefix("gpt-")?;
    let v: String = v
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let (major, minor) = v.split_once('.').unwrap_or((&v, "0"));
    Some((major.parse().ok()?, minor.parse().ok()?))
}

impl ProviderTerms {
    /// Whether a write to the cache costs the input price on the model `key` (where its
    /// entry has no write price).
    pub fn no_write_fee(&self, key: &str) -> bool {
        if self.no_write_fee {
            return true;
        }
        let Some(before) = self.no_write_fee_before.as_deref().and_then(gpt_family) else {
            return false;
        };
        gpt_family(key).is_none_or(|f| f < before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpt_families_order_and_bound_the_no_fee_rule() {
        assert_eq!(gpt_family("gpt-5.3-codex"), Some((5, 3)));
        assert_eq!(gpt_family("gpt-5-mini"), Some((5, 0)));
        assert_eq!(gpt_family("gpt-6-astra-law"), Some((6, 0)));
        assert_eq!(gpt_family("gpt-5.10"), Some((5, 10)));
        assert_eq!(gpt_family("o4-mini"), None);
        let p = ProviderTerms {
            providers: vec!["openai".into()],
            ttl_s: None,
            min_tokens: None,
            no_write_fee_before: Some("gpt-5.6".into()),
            no_write_fee: false,
            source: String::new(),
        };
        assert!(p.no_write_fee("gpt-5.5") && p.no_write_fee("o3"));
        assert!(!p.no_write_fee("gpt-5.6-luna") && !p.no_write_fee("gpt-6-sol"));
    }
}
