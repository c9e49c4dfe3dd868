//! Cache presets for `[cache] preset = "..."`: the generic provider presets in
//! `presets.toml`, and two per model of the price data ([`super::models`]) whose cache
//! terms are all known: `claude-sonnet-4-5` for its 5-minute cache, `claude-sonnet-4-5-1h`
//! for its 1-hour cache.

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

struct Presets {
    /// The generic presets, then the per-model ones.
    all: Vec<Preset>,
    generic: usize,
}

fn presets() -> &'static Presets {
    static ALL: OnceLock<Presets> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = toml::from_str::<PresetFile>(PRESETS)
            .map(|f| f.preset)
            .unwrap_or_default();
        let generic = all.len();
        for m in models::all() {
            for (one_hour, suffix) in [(false, ""), (true, "-1h")] {
                if let Some(c) = m.cache(one_hour) {
                    all.push(Preset {
                        name: format!("{}{suffix}", m.name),
                        read: c.read,
                        write: c.write,
                        ttl_s: c.ttl_s,
                        min_tokens: c.min_tokens,
                        // The price data's source speaks of the 5-minute cache: the 1-hour
                        // one says where its own write price and lifetime come from.
                        source: if one_hour {
                            format!("{}; {ONE_HOUR_SOURCE}", m.cache_source)
                        } else {
                            m.cache_source.clone()
                        },
                    });
                }
            }
        }
        Presets { all, generic }
    })
}

/// Where a `-1h` preset's write price and lifetime come from.
const ONE_HOUR_SOURCE: &str = "the 1-hour cache: write price from the price data's 1-hour cache write entry (cache_creation_input_token_cost_above_1hr), lifetime 3,600 s (Anthropic prompt caching, 1-hour cache duration, platform.claude.com/docs/en/build-with-claude/prompt-caching; read 2026-12-02)";

/// Every preset: the generic ones in file order, then per model (5-minute, 1-hour). The
/// files are checked by unit tests, so an empty list here would mean a broken build, not
/// bad user input.
pub fn all() -> &'static [Preset] {
    &presets().all
}

/// The preset called `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    all().iter().find(|p| p.name == name)
}

/// The preset for a model id as a log names it (`claude-sonnet-4-5-20250929`,
/// `gpt-5-codex`, `us.anthropic.claude-…-v1:0`), with the 1-hour cache when `one_hour`
/// and the model offers it (else the 5-minute one); None for a model whose cache terms
/// the price data lacks (`models::find(id)?.missing(…)` says which).
pub fn for_model(model: &str, one_hour: bool) -> Option<&'static str> {
    let m = models::find(model)?;
    let name = if one_hour && m.cache(true).is_some() {
        format!("{}-1h", m.name)
    } else {
        m.name.clone()
    };
    find(&name).map(|p| p.name.as_str())
}

/// The names of all presets.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|p| p.name.as_str()).collect()
}

/// The generic presets' names (the per-model ones follow the model names).
pub fn generic_names() -> Vec<&'static str> {
    all()[..presets().generic]
        .iter()
        .map(|p| p.name.as_str())
        .collect()
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
        assert_eq!(for_model("gpt-5-codex", true), Some("gpt-5-codex"));
        let codex = find("gpt-5-codex").expect("codex preset");
        assert_eq!(
            (codex.read, codex.write, codex.ttl_s, codex.min_tokens),
            (0.1, 1.0, 300.0, 1024.0)
        );
        // A Bedrock regional profile has its own presets.
        assert_eq!(
            for_model("converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0", true),
            Some("jp.anthropic.claude-haiku-4-5-20251001-v1:0-1h")
        );
        // Known prices without cache terms, and an unknown model: no preset.
        assert_eq!(for_model("claude-3-haiku@20240307", false), None);
        assert_eq!(for_model("mystery-model", false), None);
    }
}
