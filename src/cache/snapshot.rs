//! The pinned snapshot of LiteLLM's price data (`litellm.json`), as its file has it.
//!
//! LiteLLM (MIT) keeps `model_prices_and_context_window.json`, the price list most usage
//! trackers embed, and ships a copy in its wheel on PyPI. `benches/litellm_snapshot.py`
//! keeps the entries of the models `simulate import` meets and the fields read here, and
//! records the version and the file's sha256 in the header; docs/overview.md says how to refresh
//! it. Prices are USD per token, as LiteLLM writes them.

use serde::Deserialize;
use std::collections::BTreeMap;

/// The snapshot file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    pub litellm: Header,
    /// By LiteLLM's key (`claude-sonnet-4-5`, `us.anthropic.claude-…-v1:0`, `gpt-5-codex`).
    pub models: BTreeMap<String, Entry>,
}

/// Where the snapshot came from.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub package: String,
    pub version: String,
    pub license: String,
    /// The file inside the wheel.
    pub file: String,
    pub file_sha256: String,
    pub regenerate: String,
}

/// One LiteLLM entry, the fields kept.
#[derive(Debug, Deserialize)]
pub struct Entry {
    /// `anthropic`, `bedrock`, `bedrock_converse`, `vertex_ai-anthropic_models`, `openai`.
    pub litellm_provider: String,
    /// The page LiteLLM read the prices from, where it says.
    pub source: Option<String>,
    pub input_cost_per_token: f64,
    pub output_cost_per_token: f64,
    pub cache_read_input_token_cost: Option<f64>,
    /// A write to the 5-minute cache.
    pub cache_creation_input_token_cost: Option<f64>,
    /// A write to the 1-hour cache.
    pub cache_creation_input_token_cost_above_1hr: Option<f64>,
    pub prompt_cache_min_tokens: Option<f64>,
    /// Long-context prices, `<field>_above_<N>k_tokens`: billed for a request whose input
    /// exceeds N thousand tokens.
    #[serde(flatten)]
    pub above: BTreeMap<String, f64>,
}

/// A long-context tier as an entry gives it, USD per token.
#[derive(Debug, Default, PartialEq)]
pub struct Tier {
    pub above_input_tokens: f64,
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub cache_read: Option<f64>,
    pub cache_write_5m: Option<f64>,
    pub cache_write_1h: Option<f64>,
}

impl Entry {
    /// The entry's long-context tier; an error names a field that is not one, or a second
    /// threshold (no entry kept has two).
    pub fn tier(&self) -> Result<Option<Tier>, String> {
        let mut tier: Option<Tier> = None;
        for (field, &price) in &self.above {
            let (name, tokens) = field
                .strip_suffix("k_tokens")
                .and_then(|f| f.rsplit_once("_above_"))
                .and_then(|(name, k)| Some((name, k.parse::<f64>().ok()? * 1000.0)))
                .ok_or_else(|| format!("unknown field `{field}`"))?;
            let t = tier.get_or_insert_with(|| Tier {
                above_input_tokens: tokens,
                ..Tier::default()
            });
            if t.above_input_tokens != tokens {
                return Err(format!("`{field}`: a second long-context threshold"));
            }
            let slot = match name {
                "input_cost_per_token" => &mut t.input,
                "output_cost_per_token" => &mut t.output,
                "cache_read_input_token_cost" => &mut t.cache_read,
                "cache_creation_input_token_cost" => &mut t.cache_write_5m,
                "cache_creation_input_token_cost_above_1hr" => &mut t.cache_write_1h,
                _ => return Err(format!("unknown field `{field}`")),
            };
            *slot = Some(price);
        }
        Ok(tier)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_context_tier_is_read_from_its_fields() {
        let e: Entry = serde_json::from_str(
            r#"{"litellm_provider": "openai", "input_cost_per_token": 2.5e-06,
                "output_cost_per_token": 1.5e-05,
                "input_cost_per_token_above_272k_tokens": 5e-06,
                "cache_read_input_token_cost_above_272k_tokens": 5e-07}"#,
        )
        .expect("entry");
        assert_eq!(
            e.tier(),
            Ok(Some(Tier {
                above_input_tokens: 272_000.0,
                input: Some(5e-06),
                cache_read: Some(5e-07),
                ..Tier::default()
            }))
        );
        let two: Entry = serde_json::from_str(
            r#"{"litellm_provider": "openai", "input_cost_per_token": 1e-06,
                "output_cost_per_token": 1e-06,
                "input_cost_per_token_above_128k_tokens": 2e-06,
                "input_cost_per_token_above_200k_tokens": 3e-06}"#,
        )
        .expect("entry");
        assert_eq!(
            two.tier(),
            Err("`input_cost_per_token_above_200k_tokens`: a second long-context threshold".into())
        );
        let odd: Entry = serde_json::from_str(
            r#"{"litellm_provider": "openai", "input_cost_per_token": 1e-06,
                "output_cost_per_token": 1e-06, "input_cost_per_pixel": 1e-06}"#,
        )
        .expect("entry");
        assert_eq!(
            odd.tier(),
            Err("unknown field `input_cost_per_pixel`".into())
        );
    }
}
