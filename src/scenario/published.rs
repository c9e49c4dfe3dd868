//! The small shipped table of published tool-definition sizes (`published.toml`), for
//! `[[base.part]] published = "github"`: each figure with its source and date, used as an
//! estimate, never as a measurement.

use serde::Deserialize;
use std::sync::OnceLock;

/// One server's published size.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// The name `published = "…"` uses.
    pub key: String,
    /// The tool names Claude Code gives its tools when the server is configured under
    /// this name (`mcp__<server>__<tool>`).
    pub tools: Vec<String>,
    /// Tool definitions counted, where the source says.
    pub definitions: Option<u64>,
    /// Tokens of the definitions, as published (rounded).
    pub tokens: f64,
    /// Who published it, where and when.
    pub source: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PublishedFile {
    server: Vec<Published>,
}

const TABLE: &str = include_str!("published.toml");

/// Every entry, in file order. The file is checked by a unit test, so an empty list here
/// would mean a broken build, not bad user input.
pub fn all() -> &'static [Published] {
    static ALL: OnceLock<Vec<Published>> = OnceLock::new();
    ALL.get_or_init(|| {
        toml::from_str::<PublishedFile>(TABLE)
            .map(|f| f.server)
            .unwrap_or_default()
    })
}

/// The entry for `key`.
pub fn find(key: &str) -> Option<&'static Published> {
    all().iter().find(|p| p.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_every_figure_has_a_dated_source() {
        let keys: Vec<&str> = all().iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            ["github", "slack", "sentry", "grafana", "splunk", "jira"]
        );
        for p in all() {
            assert!(p.tokens > 0.0 && !p.tools.is_empty(), "{p:?}");
            assert!(p.source.contains("2025-11-24"), "{}", p.source);
            for t in &p.tools {
                assert!(glob::Pattern::new(t).is_ok(), "{t}");
            }
        }
        assert_eq!(find("github").map(|p| p.tokens), Some(26_000.0));
    }
}
