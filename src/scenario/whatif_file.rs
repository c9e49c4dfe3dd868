//! The file shapes of the what-if keys of docs/model.md §9 that `whatif` types mean: the
//! `cache` and `model` edits, and the `[base]` table with its `[[base.part]]`s. Exactly as
//! written; `validate::whatif` checks them.

use serde::Deserialize;
use toml::Spanned;

/// `cache = { preset, read, write, ttl_s, min_tokens, traces, avoid, only_longer,
/// providers }` in an edit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheEditFile {
    pub preset: Option<Spanned<String>>,
    pub read: Option<Spanned<f64>>,
    pub write: Option<Spanned<f64>>,
    pub ttl_s: Option<Spanned<f64>>,
    pub min_tokens: Option<Spanned<f64>>,
    pub traces: Option<Spanned<Vec<Spanned<String>>>>,
    /// `"24h"`: OpenAI's extended prompt-cache retention.
    pub retention: Option<Spanned<String>>,
    /// Break classes priced as if they had not happened (docs/model.md §9, `avoid`).
    pub avoid: Option<Spanned<Vec<Spanned<String>>>>,
    /// `true`: only where the run's cache lives less than `ttl_s` (docs/model.md §9).
    pub only_longer: Option<Spanned<bool>>,
    /// The providers whose runs the step changes (`anthropic`, `openai`).
    pub providers: Option<Spanned<Vec<Spanned<String>>>>,
}

/// `model = { to, tokens_factor, select }` in an edit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEditFile {
    pub to: Option<Spanned<String>>,
    pub tokens_factor: Option<Spanned<f64>>,
    pub select: Option<Spanned<super::select_file::SelectFile>>,
}

/// The `[base]` table of a scenario: its named parts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaseTableFile {
    #[serde(default)]
    pub part: Vec<Spanned<BasePartFile>>,
}

/// One `[[base.part]]`: a name, its size (tokens, or definitions × the fitted tokens per
/// loaded definition, or a published figure) and the tools it serves.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BasePartFile {
    pub name: Option<Spanned<String>>,
    pub tokens: Option<Spanned<f64>>,
    pub definitions: Option<Spanned<i64>>,
    pub published: Option<Spanned<String>>,
    pub source: Option<Spanned<String>>,
    pub tools: Option<Vec<Spanned<String>>>,
    /// `deferred = true`: the agent already loads the part on demand (tool search): its
    /// tokens are what stays in every request (the tools' names), not its definitions.
    pub deferred: Option<Spanned<bool>>,
}
