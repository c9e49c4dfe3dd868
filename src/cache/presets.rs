//! Cache presets for `[cache] preset = "..."`: the generic provider presets in
//! `presets.toml`, and one per model from `models.toml` (`claude-sonnet-4-5` for its
//! 5-minute cache, `claude-sonnet-4-5-1h` for its 1-hour cache).

use super::models;
use serde::Deserialize;
use std::sync::OnceLock;

/// One provider's or model's published cache multipliers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    pub name: String,
    /// Price of a cached input token, × base input price.
    pub read: f64,
    /// Price of an input token written to cache, × base input price.
    pub write: f64,
    /// Seconds a cached prefix lives unread.
    pub ttl_s: f64,
    /// Shortest cacheable request, in tokens.
    pub min_tokens: f64,
    /// Where the figures come from, and when.
    pub source: String,
}

#[derive(Deserialize)]
struct PresetFile {
    preset: Vec<Preset>,
}

const PRESETS: &str = include_str!("presets.toml");

/// Seconds the 1-hour cache lives.
const ONE_HOUR_S: f64 = 3600.0;

/// Every preset: the generic ones in file order, then two per model (5-minute, 1-hour).
/// The files are checked by unit tests, so an empty list here would mean a broken build,
/// not bad user input.
pub fn all() -> &'static [Preset] {
    static ALL: OnceLock<Vec<Preset>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = toml::from_str::<PresetFile>(PRESETS)
            .map(|f| f.preset)
            .unwrap_or_default();
        for m in models::all() {
            all.push(Preset {
                name: m.name.clone(),
                read: m.cache_read,
                write: m.cache_write_5m,
                ttl_s: m.ttl_s,
                min_tokens: m.min_tokens,
                source: m.source.clone(),
            });
            if let Some(write) = m.cache_write_1h {
                all.push(Preset {
                    name: format!("{}-1h", m.name),
                    read: m.cache_read,
                    write,
                    ttl_s: ONE_HOUR_S,
                    min_tokens: m.min_tokens,
                    source: m.source.clone(),
                });
            }
        }
        all
    })
}

/// The preset called `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    all().iter().find(|p| p.name == name)
}

/// The preset for a model id as a log names it (`claude-sonnet-4-5-20250929`,
/// `gpt-5-codex`), with the 1-hour cache when `one_hour` and the model offers it; None
/// for a model with no data.
pub fn for_model(model: &str, one_hour: bool) -> Option<&'static str> {
    let m = models::find(model)?;
    let name = if one_hour && m.cache_write_1h.is_some() {
        format!("{}-1h", m.name)
    } else {
        m.name.clone()
    };
    all()
        .iter()
        .find(|p| p.name == name)
        .map(|p| p.name.as_str())
}

/// The names of all presets.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|p| p.name.as_str()).collect()
}

/// The generic presets' names (the per-model ones follow the model names).
pub fn generic_names() -> Vec<&'static str> {
    let models = models::all().len();
    let names = names();
    let generic = names.len().saturating_sub(
        models
            + models::all()
                .iter()
                .filter(|m| m.cache_write_1h.is_some())
                .count(),
    );
    names[..generic].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_parse_and_are_sane() {
        assert_eq!(
            generic_names(),
            [
                "anthropic-5m",
                "anthropic-1h",
                "openai-gpt-4o",
                "openai-gpt-4.1",
                "openai-gpt-5"
            ]
        );
        for p in all() {
            assert!(p.read > 0.0 && p.write >= p.read && p.ttl_s > 0.0, "{p:?}");
        }
        assert_eq!(find("anthropic-1h").map(|p| p.write), Some(2.0));
    }

    #[test]
    fn every_model_has_a_preset_and_logs_find_theirs() {
        assert_eq!(
            for_model("claude-sonnet-4-5-20250929", false),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            for_model("claude-sonnet-4-5-20250929", true),
            Some("claude-sonnet-4-5-1h")
        );
        let one_hour = find("claude-haiku-4-5-1h").expect("1-hour preset");
        assert_eq!(
            (one_hour.write, one_hour.ttl_s, one_hour.min_tokens),
            (2.0, 3600.0, 4096.0)
        );
        // OpenAI has no 1-hour write price: the 5-minute preset stands.
        assert_eq!(for_model("gpt-5-codex", true), Some("gpt-5"));
        assert_eq!(for_model("mystery-model", false), None);
    }
}
