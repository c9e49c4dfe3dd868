//! Prices a user gives for models the price data lacks, or prices otherwise: a TOML file of
//! `[[model]]` tables named by the environment variable [`ENV`] (`SIMULATE_PRICES`), read
//! once before any price is looked up, so a binary user never edits the shipped overlay.
//!
//! ```toml
//! [[model]]
//! name = "glm-4.6"                 # the id the logs name (looked up as the price data's are)
//! aliases = ["z-ai/glm-4.6"]       # optional: other ids of the same model
//! input = 0.6                      # USD per million tokens
//! output = 2.2
//! cache_read = 0.11                # optional, like every cache term below
//! cache_write_5m = 0.6             # a write at the input price where writes cost nothing extra
//! cache_write_1h = 1.2
//! ttl_s = 300                      # seconds an unread prefix lives
//! min_tokens = 1024                # the shortest prompt the provider caches
//! source = "z.ai pricing page, read 2026-12-01"   # printed beside every figure
//! ```
//!
//! An entry adds the model, or replaces the price data's entry of the same name; the
//! price data's other ids of a replaced model keep their own entries.

use crate::error::{Error, Located, line_column};
use serde::Deserialize;
use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;
use toml::Spanned;

/// The environment variable that names the file.
pub const ENV: &str = "SIMULATE_PRICES";
/// Highest price accepted, USD per million tokens: far above any model's.
const MAX_PRICE: f64 = 1e6;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PricesFile {
    #[serde(default)]
    model: Vec<Spanned<ModelFile>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    name: Option<Spanned<String>>,
    #[serde(default)]
    aliases: Vec<Spanned<String>>,
    input: Option<Spanned<f64>>,
    output: Option<Spanned<f64>>,
    cache_read: Option<Spanned<f64>>,
    cache_write_5m: Option<Spanned<f64>>,
    cache_write_1h: Option<Spanned<f64>>,
    ttl_s: Option<Spanned<f64>>,
    min_tokens: Option<Spanned<f64>>,
    source: Option<Spanned<String>>,
}

/// The user's prices: each model's terms, and its other ids.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserPrices {
    /// Where they were read from, for messages.
    pub file: String,
    pub models: Vec<UserModel>,
}

/// One model as the file gives it: USD per million tokens (`crate::cache::models` makes
/// it the price data's terms).
#[derive(Debug, Clone, PartialEq)]
pub struct UserModel {
    /// Lower-cased.
    pub name: String,
    pub aliases: Vec<String>,
    pub input: f64,
    pub output: f64,
    pub cache_read: Option<f64>,
    pub cache_write_5m: Option<f64>,
    pub cache_write_1h: Option<f64>,
    pub ttl_s: Option<f64>,
    pub min_tokens: Option<f64>,
    /// `prices.toml (SIMULATE_PRICES): <the file's source>`.
    pub source: String,
}

static INSTALLED: OnceLock<UserPrices> = OnceLock::new();

/// The prices installed, if any.
pub fn installed() -> Option<&'static UserPrices> {
    INSTALLED.get()
}

/// Reads the file [`ENV`] names, if it is set, and makes its prices part of the price data.
/// Call before anything looks a price up (the commands do, first thing).
///
/// Errors: the file cannot be read, is not TOML of `[[model]]` tables, or an entry lacks a
/// name, an input or output price or a source, or gives a value out of range: each named
/// with the file, line and column, and the key.
pub fn install_from_env() -> Result<(), Error> {
    let Some(path) = std::env::var_os(ENV) else {
        return Ok(());
    };
    if path.is_empty() {
        return Ok(());
    }
    let path = std::path::PathBuf::from(path);
    let text = crate::input::read_to_string(&path, crate::input::Kind::Scenario)?;
    let prices = parse(&text, &path)?;
    // Installed once a process: a second call (a test running two commands) keeps the first.
    let _ = INSTALLED.set(prices);
    Ok(())
}

/// Checks the text of a prices file read from `path`.
pub fn parse(text: &str, path: &Path) -> Result<UserPrices, Located> {
    let file = path.display().to_string();
    let err = |span: Option<std::ops::Range<usize>>, place: &str, m: String| {
        Located::new(&file, m)
            .at(span.map(|s| line_column(text, s.start)))
            .place(place.to_string())
    };
    let raw: PricesFile = toml::from_str(text).map_err(|e| {
        err(
            e.span(),
            "prices",
            format!(
                "{} (a prices file holds [[model]] tables: name, input, output and source, and optionally aliases, cache_read, cache_write_5m, cache_write_1h, ttl_s, min_tokens)",
                e.message()
            ),
        )
    })?;
    if raw.model.is_empty() {
        return Err(err(
            Some(0..0),
            "[[model]]",
            "the prices file has no [[model]] tables: add one per model (name, input, output, source)".into(),
        ));
    }
    let mut names = HashSet::new();
    let mut models = Vec::new();
    for (i, m) in raw.model.iter().enumerate() {
        let span = m.span();
        let m = m.get_ref();
        let place = format!("[[model]] #{}", i + 1);
        let text_of = |v: &Option<Spanned<String>>, key: &str| -> Result<String, Located> {
            match v {
                Some(v)
                    if !v.get_ref().trim().is_empty()
                        && !v.get_ref().chars().any(char::is_control) =>
                {
                    Ok(v.get_ref().trim().to_string())
                }
                Some(v) => Err(err(
                    Some(v.span()),
                    &format!("{place}: {key}"),
                    "must be text without control characters, not empty".into(),
                )),
                None => Err(err(
                    Some(span.clone()),
                    &format!("{place}: {key}"),
                    format!("missing key `{key}`"),
                )),
            }
        };
        let name = text_of(&m.name, "name")?.to_ascii_lowercase();
        let place = format!("[[model]] \"{name}\"");
        if !names.insert(name.clone()) {
            return Err(err(
                m.name.as_ref().map(|n| n.span()),
                &place,
                "named twice; give each model once".into(),
            ));
        }
        let source = text_of(&m.source, "source").map_err(|mut e| {
            e.place = Some(format!("{place}: source"));
            e.message.push_str(
                " (where the prices come from, printed beside every figure: e.g. source = \"the provider's pricing page, read 2026-12-01\")",
            );
            e
        })?;
        let number =
            |v: &Option<Spanned<f64>>, key: &str, max: f64| -> Result<Option<f64>, Located> {
                match v {
                    None => Ok(None),
                    Some(v) => {
                        let x = *v.get_ref();
                        if x.is_finite() && (0.0..=max).contains(&x) {
                            Ok(Some(x))
                        } else {
                            Err(err(
                                Some(v.span()),
                                &format!("{place}: {key}"),
                                format!("{x} must be a number from 0 to {max}"),
                            ))
                        }
                    }
                }
            };
        let required = |v: &Option<Spanned<f64>>, key: &str| -> Result<f64, Located> {
            number(v, key, MAX_PRICE)?.ok_or_else(|| {
                err(
                    Some(span.clone()),
                    &format!("{place}: {key}"),
                    format!("missing key `{key}`: the model's {key} price, USD per million tokens"),
                )
            })
        };
        let input = required(&m.input, "input")?;
        if input == 0.0 {
            return Err(err(
                m.input.as_ref().map(|v| v.span()),
                &format!("{place}: input"),
                "an input price of 0 leaves nothing to compare costs with: give the price, USD per million tokens".into(),
            ));
        }
        let aliases = m
            .aliases
            .iter()
            .map(|a| text_of(&Some(a.clone()), "aliases").map(|a| a.to_ascii_lowercase()))
            .collect::<Result<Vec<_>, _>>()?;
        models.push(UserModel {
            name: name.clone(),
            aliases,
            input,
            output: required(&m.output, "output")?,
            cache_read: number(&m.cache_read, "cache_read", MAX_PRICE)?,
            cache_write_5m: number(&m.cache_write_5m, "cache_write_5m", MAX_PRICE)?,
            cache_write_1h: number(&m.cache_write_1h, "cache_write_1h", MAX_PRICE)?,
            ttl_s: number(&m.ttl_s, "ttl_s", 1e9)?,
            min_tokens: number(&m.min_tokens, "min_tokens", 1e9)?,
            source: format!("{file} ({ENV}): {source}"),
        });
    }
    Ok(UserPrices { file, models })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<UserPrices, String> {
        parse(text, Path::new("prices.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_model_with_its_prices_and_source() {
        let p = parsed("[[model]]\nname = \"GLM-4.6\"\naliases = [\"z-ai/glm-4.6\"]\ninput = 0.6\noutput = 2.2\ncache_read = 0.11\ncache_write_5m = 0.6\nttl_s = 300\nmin_tokens = 1024\nsource = \"z.ai pricing, read 2026-12-01\"\n").unwrap();
        let m = &p.models[0];
        assert_eq!((m.name.as_str(), m.input, m.output), ("glm-4.6", 0.6, 2.2));
        assert_eq!(
            (m.cache_read, m.cache_write_1h, m.ttl_s),
            (Some(0.11), None, Some(300.0))
        );
        assert_eq!(m.aliases, vec!["z-ai/glm-4.6".to_string()]);
        assert_eq!(
            m.source,
            "prices.toml (SIMULATE_PRICES): z.ai pricing, read 2026-12-01"
        );
    }

    #[test]
    fn errors_name_the_file_the_line_and_the_key() {
        assert_eq!(
            parsed("[[model]]\nname = \"x\"\ninput = 1\noutput = -2\nsource = \"s\"\n")
                .unwrap_err(),
            "prices.toml:4:10: [[model]] \"x\": output: -2 must be a number from 0 to 1000000"
        );
        assert_eq!(
            parsed("[[model]]\nname = \"x\"\ninput = 1\noutput = 2\n").unwrap_err(),
            "prices.toml:1:1: [[model]] \"x\": source: missing key `source` (where the prices come from, printed beside every figure: e.g. source = \"the provider's pricing page, read 2026-12-01\")"
        );
        let unknown = parsed("[[model]]\nname = \"x\"\ninptu = 1\n").unwrap_err();
        assert!(
            unknown.starts_with("prices.toml:3:1: prices: unknown field `inptu`"),
            "{unknown}"
        );
        assert_eq!(
            parsed("[[model]]\nname = \"x\"\ninput = 1\noutput = 2\nsource = \"s\"\n[[model]]\nname = \"X\"\ninput = 1\noutput = 2\nsource = \"s\"\n").unwrap_err(),
            "prices.toml:7:8: [[model]] \"x\": named twice; give each model once"
        );
    }
}
