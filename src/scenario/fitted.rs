//! Writing fitted assumptions back into a scenario file, keeping everything else as the
//! user wrote it (comments, order, formatting).

use crate::error::Located;
use toml_edit::{DocumentMut, value};

/// The new values and what to say about where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// B, tokens (written rounded to whole tokens: far below the fit's uncertainty), and
    /// ρ, bytes per token (written to 4 significant digits); None: they are not written
    /// (refused, or a poor fit), and only the cache terms are.
    pub base_and_rho: Option<(f64, f64)>,
    /// e.g. `fitted (simulate fit: R² = 0.998 on 41 of 44 calls, 2026-11-29)`.
    pub source: String,
    /// Named terms fitted: `[terms]` key and tokens per unit (written rounded to whole
    /// tokens), labelled with `source`.
    pub terms: Vec<(&'static str, f64)>,
    /// The cache miss share and its source, written into `[cache]` when the scenario has
    /// one.
    pub miss_share: Option<(f64, String)>,
    /// The share of the base cached at every cold request, and its source (likewise).
    pub warm_share: Option<(f64, String)>,
    /// The cache lifetime the reads prove, seconds, and its source (likewise; written
    /// rounded to whole seconds, up).
    pub ttl_s: Option<(f64, String)>,
    /// The minimum cacheable length the reads prove, tokens, and its source (likewise;
    /// written rounded to whole tokens, down, so the read that proves it stays above it).
    pub min_tokens: Option<(f64, String)>,
}

/// What [`write_fitted`] changed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FittedChanges {
    /// B and ρ were written.
    pub wrote_base: bool,
    /// `[sweep]` axes removed so the default grid centres on the fitted values.
    pub removed_sweep_axes: Vec<String>,
    /// Whether the miss share was written (the scenario has a `[cache]`).
    pub wrote_miss_share: bool,
    /// The `[cache]` keys written, in order (`miss_share`, `warm_share`, `ttl_s`,
    /// `min_tokens`).
    pub cache_keys: Vec<&'static str>,
}

impl FittedChanges {
    /// Whether anything was written at all.
    pub fn any(&self) -> bool {
        self.wrote_base || !self.cache_keys.is_empty()
    }
}

/// `text` (the scenario at `file`) with `fitted` as its nominal point: `base_tokens`,
/// `bytes_per_token` and their `*_source` keys set, and the swept base-token and
/// bytes-per-token axes removed so the sweep centres on the new values (docs/model.md §5's default
/// grid); the cache terms written into `[cache]` where the scenario has one. Errors when the
/// text is not a TOML document.
pub fn write_fitted(
    text: &str,
    file: &str,
    fitted: &Fitted,
) -> Result<(String, FittedChanges), Located> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Located::new(file, e.message().to_string()))?;
    let mut changes = FittedChanges::default();
    if let Some((base, rho)) = fitted.base_and_rho {
        doc["base_tokens"] = value(base.round() as i64);
        doc["base_tokens_source"] = value(fitted.source.as_str());
        doc["bytes_per_token"] = value(round_significant(rho, 4));
        doc["bytes_per_token_source"] = value(fitted.source.as_str());
        changes.wrote_base = true;
        if let Some(sweep) = doc.get_mut("sweep").and_then(|s| s.as_table_like_mut()) {
            for key in ["base_tokens", "bytes_per_token"] {
                if sweep.remove(key).is_some() {
                    changes.removed_sweep_axes.push(format!("[sweep] {key}"));
                }
            }
        }
    }
    if !fitted.terms.is_empty() {
        if doc.get("terms").is_none() {
            // Before the [[call]] tables, beside the other settings, where a reader looks
            // (and where the fast reader of imported files expects every table).
            let mut terms = toml_edit::Table::new();
            terms.set_position(settings_end(&doc));
            doc["terms"] = toml_edit::Item::Table(terms);
        }
        for (key, tokens) in &fitted.terms {
            doc["terms"][*key] = value(tokens.round() as i64);
            doc["terms"][format!("{key}_source").as_str()] = value(fitted.source.as_str());
        }
    }
    if let Some(cache) = doc.get_mut("cache").and_then(|c| c.as_table_like_mut()) {
        let terms = [
            ("miss_share", &fitted.miss_share),
            ("warm_share", &fitted.warm_share),
            ("ttl_s", &fitted.ttl_s),
            ("min_tokens", &fitted.min_tokens),
        ];
        for (key, term) in terms {
            let Some((x, source)) = term else { continue };
            let x = match key {
                "ttl_s" => value(x.ceil() as i64),
                "min_tokens" => value(x.floor() as i64),
                _ => value(round_significant(*x, 3)),
            };
            // Each value beside its source, at the end of the table: a key the scenario
            // gave moves there.
            cache.remove(key);
            cache.insert(key, x);
            cache.insert(&format!("{key}_source"), value(source.as_str()));
            changes.cache_keys.push(key);
        }
        changes.wrote_miss_share = changes.cache_keys.contains(&"miss_share");
    }
    Ok((doc.to_string(), changes))
}

/// The position of the last table before the first `[[call]]` (a new table placed there
/// comes after it: equal positions keep document order), or just before the calls.
fn settings_end(doc: &DocumentMut) -> Option<isize> {
    let first_call = doc
        .get("call")
        .and_then(|c| c.as_array_of_tables())
        .and_then(|calls| calls.iter().filter_map(toml_edit::Table::position).min());
    let before = doc
        .iter()
        .filter_map(|(_, item)| item.as_table().and_then(toml_edit::Table::position))
        .filter(|p| first_call.is_none_or(|c| *p < c))
        .max();
    before.or(first_call.map(|c| c - 1))
}

fn round_significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitted_values_replace_the_assumed_ones_and_comments_stay() {
        let text = "# my run\nname = \"x\"\nbase_tokens = 30000 # assumed\nbytes_per_token = 3.3\n\n[sweep]\nbase_tokens = [1, 2]\nretry_rate = [0.0, 0.1]\n";
        let fitted = Fitted {
            base_and_rho: Some((18_234.4, 3.412_345)),
            source: "fitted (test)".into(),
            terms: vec![("tokens_per_call", 181.6)],
            miss_share: Some((0.23456, "fitted (test)".into())),
            warm_share: None,
            ttl_s: None,
            min_tokens: None,
        };
        let (out, changes) = write_fitted(text, "x.toml", &fitted).unwrap();
        assert!(out.starts_with("# my run\n"), "{out}");
        assert!(out.contains("base_tokens = 18234"), "{out}");
        assert!(out.contains("bytes_per_token = 3.412"), "{out}");
        assert!(
            out.contains("base_tokens_source = \"fitted (test)\""),
            "{out}"
        );
        assert!(out.contains("retry_rate = [0.0, 0.1]"), "{out}");
        assert_eq!(changes.removed_sweep_axes, vec!["[sweep] base_tokens"]);
        assert!(
            out.contains(
                "[terms]\ntokens_per_call = 182\ntokens_per_call_source = \"fitted (test)\"\n"
            ),
            "{out}"
        );
        // No [cache] table: the miss share is not invented into one.
        assert!(!changes.wrote_miss_share && !out.contains("miss_share"));
        let (out, changes) = write_fitted(
            &format!("{text}[cache]\npreset = \"x\"\n"),
            "x.toml",
            &fitted,
        )
        .unwrap();
        assert!(changes.wrote_miss_share);
        assert!(
            out.contains("miss_share = 0.235\nmiss_share_source = \"fitted (test)\""),
            "{out}"
        );
    }
}
