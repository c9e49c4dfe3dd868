//! `select = { … }` as written: which calls a rule, or a model edit, applies to
//! (docs/model.md §7).

use serde::Deserialize;
use toml::Spanned;

/// `select = { tool, kind, label, min_bytes }`: which calls a rule applies to.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectFile {
    pub tool: Option<Spanned<OneOrMany>>,
    pub kind: Option<Spanned<OneOrMany>>,
    pub label: Option<Spanned<String>>,
    pub min_bytes: Option<Spanned<f64>>,
}

/// A name, or a list of names.
#[derive(Debug, Deserialize, Clone)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}
