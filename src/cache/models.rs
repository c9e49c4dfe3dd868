//! Prices and prompt-cache terms per model, kept as data in `models.toml` with their
//! sources and dates, so an imported session is priced by the model its log names.

use serde::Deserialize;
use std::sync::OnceLock;

/// A higher price tier billed when a request's input exceeds a length.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongContext {
    /// The tier applies to requests with more input tokens than this.
    pub above_input_tokens: f64,
    /// USD per million input tokens in the tier.
    pub input: f64,
    /// USD per million output tokens in the tier.
    pub output: f64,
}

/// One model's published prices.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Short name, also the name of its cache preset (`claude-sonnet-4-5`).
    pub name: String,
    /// Prefixes of the model ids logs carry; the longest matching prefix wins.
    #[serde(rename = "match")]
    pub prefixes: Vec<String>,
    /// `anthropic` or `openai`.
    pub provider: String,
    /// USD per million input tokens.
    pub input: f64,
    /// USD per million output tokens.
    pub output: f64,
    /// Price of a cached input token, × `input`.
    pub cache_read: f64,
    /// Price of a token written with the 5-minute cache, × `input` (1.0: no write fee).
    pub cache_write_5m: f64,
    /// Price of a token written with the 1-hour cache, × `input`, where offered.
    pub cache_write_1h: Option<f64>,
    /// Seconds an unread cached prefix lives (the 5-minute cache).
    pub ttl_s: f64,
    /// Shortest prompt the provider caches, in tokens.
    pub min_tokens: f64,
    pub long_context: Option<LongContext>,
    /// Where the figures come from, and when they were read.
    pub source: String,
}

#[derive(Deserialize)]
struct ModelFile {
    model: Vec<ModelPrice>,
}

const MODELS: &str = include_str!("models.toml");

/// Every model, in file order. The file is checked by a unit test, so an empty list here
/// would mean a broken build, not bad user input.
pub fn all() -> &'static [ModelPrice] {
    static ALL: OnceLock<Vec<ModelPrice>> = OnceLock::new();
    ALL.get_or_init(|| {
        toml::from_str::<ModelFile>(MODELS)
            .map(|f| f.model)
            .unwrap_or_default()
    })
}

/// The model whose name is `name` exactly, or whose prefix is the longest one `name`
/// starts with (a log's model id such as `claude-sonnet-4-5-20250929`); case-insensitive.
pub fn find(name: &str) -> Option<&'static ModelPrice> {
    let id = name.to_ascii_lowercase();
    if let Some(m) = all().iter().find(|m| m.name == id) {
        return Some(m);
    }
    all()
        .iter()
        .flat_map(|m| m.prefixes.iter().map(move |p| (p, m)))
        .filter(|(p, _)| id.starts_with(p.as_str()))
        .max_by_key(|(p, _)| p.len())
        .map(|(_, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_parse_and_are_sane() {
        assert!(all().len() >= 10);
        for m in all() {
            assert!(m.input > 0.0 && m.output > 0.0, "{m:?}");
            assert!(
                m.cache_read > 0.0 && m.cache_write_5m >= m.cache_read,
                "{m:?}"
            );
            // 512 (Claude Fable 5.1) to 4,096 (Claude Haiku 4.5) in Anthropic's table.
            assert!((512.0..=4096.0).contains(&m.min_tokens), "{m:?}");
            assert!(
                m.source.contains("read 2026-"),
                "{}: source needs a date",
                m.name
            );
        }
    }

    #[test]
    fn log_model_ids_find_their_model_by_the_longest_prefix() {
        let name = |id| find(id).map(|m| m.name.as_str());
        assert_eq!(
            name("claude-sonnet-4-5-20250929"),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(name("claude-sonnet-4-20250514"), Some("claude-sonnet-4"));
        assert_eq!(name("claude-opus-4-1-20250805"), Some("claude-opus-4-1"));
        assert_eq!(name("claude-haiku-4-5-20251001"), Some("claude-haiku-4-5"));
        assert_eq!(name("gpt-5-codex"), Some("gpt-5"));
        assert_eq!(name("gpt-5.1-codex-max"), Some("gpt-5.1-codex-max"));
        assert_eq!(name("gpt-5-mini"), Some("gpt-5-mini"));
        assert_eq!(name("llama-3"), None);
        assert_eq!(find("claude-haiku-4-5").map(|m| m.min_tokens), Some(4096.0));
        // A model that reads its cache at a fortieth of the input price.
        let fable = find("claude-fable-5-1").map(|m| (m.cache_read, m.min_tokens));
        assert_eq!(fable, Some((0.025, 512.0)));
    }
}
