//! Provider cache presets, kept as data in `presets.toml` rather than in code.

use serde::Deserialize;
use std::sync::OnceLock;

/// One provider's published cache multipliers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    pub name: String,
    pub read: f64,
    pub write: f64,
    pub ttl_s: f64,
    pub min_tokens: f64,
    /// Where the figures come from, and when.
    pub source: String,
}

#[derive(Deserialize)]
struct PresetFile {
    preset: Vec<Preset>,
}

const PRESETS: &str = include_str!("presets.toml");

/// Every preset, in file order. The file is checked by a unit test, so an empty list here
/// would mean a broken build, not bad user input.
pub fn all() -> &'static [Preset] {
    static ALL: OnceLock<Vec<Preset>> = OnceLock::new();
    ALL.get_or_init(|| {
        toml::from_str::<PresetFile>(PRESETS)
            .map(|f| f.preset)
            .unwrap_or_default()
    })
}

/// The preset called `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    all().iter().find(|p| p.name == name)
}

/// The preset for a model id as a log names it (`claude-sonnet-4-5-20250929`,
/// `gpt-5-codex`), with the 1-hour cache when `one_hour`; None for a model with no preset.
///
/// Placeholder mapping by model family; per-model data (prices, minimum lengths) replaces it.
pub fn for_model(model: &str, one_hour: bool) -> Option<&'static str> {
    let m = model.to_ascii_lowercase();
    if m.starts_with("claude") {
        Some(if one_hour {
            "anthropic-1h"
        } else {
            "anthropic-5m"
        })
    } else if m.starts_with("gpt-5") {
        Some("openai-gpt-5")
    } else if m.starts_with("gpt-4.1") {
        Some("openai-gpt-4.1")
    } else if m.starts_with("gpt-4o") {
        Some("openai-gpt-4o")
    } else {
        None
    }
}

/// The names of all presets.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|p| p.name.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_parse_and_are_sane() {
        assert_eq!(
            names(),
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
}
