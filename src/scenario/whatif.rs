//! The engine types of the what-if edits of docs/model.md §9 that change what a run is
//! priced and based on, not its calls: `cache` (other prompt-cache terms), `model` (another
//! model's prices and tokenizer) and `base = { drop | defer }` over the base's named parts
//! (`[[base.part]]`).

use super::{ImportInfo, LabelGlob};

/// Which kind of trace a scenario is, for a cache edit's `traces`: a subagent's, or the
/// session's own conversation (`[import] trace` = `main` or `after-compaction`, and every
/// scenario not written by an importer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceKind {
    Main,
    Subagent,
}

impl TraceKind {
    /// Every kind, as `traces` names them.
    pub const ALL: [TraceKind; 2] = [TraceKind::Main, TraceKind::Subagent];

    /// The kind of the trace `import` describes (main when there is no `[import]`).
    pub fn of(import: Option<&ImportInfo>) -> TraceKind {
        match import.map(|i| i.trace.as_str()) {
            Some("subagent") => TraceKind::Subagent,
            _ => TraceKind::Main,
        }
    }

    /// The word `traces` uses.
    pub fn key(self) -> &'static str {
        match self {
            TraceKind::Main => "main",
            TraceKind::Subagent => "subagent",
        }
    }

    /// The kind a word names.
    pub fn parse(word: &str) -> Option<TraceKind> {
        TraceKind::ALL.into_iter().find(|k| k.key() == word)
    }
}

/// `cache = { … }`: the run under other prompt-cache terms. A term left out keeps the
/// run's own (its `[cache]`, or what an earlier step set).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CacheChange {
    /// Price of a cached input token, × base input price.
    pub read: Option<f64>,
    /// Price of an input token written to the cache, × base input price.
    pub write: Option<f64>,
    /// Seconds a cached prefix lives unread.
    pub ttl_s: Option<f64>,
    /// Shortest cacheable request, in tokens.
    pub min_tokens: Option<f64>,
    /// The preset the terms came from, with its source (`claude-sonnet-4-5-1h (…)`).
    pub preset: Option<String>,
    /// The trace kinds the edit changes; None: every kind. A trace of another kind is left
    /// unchanged (counted, not an error).
    pub traces: Option<Vec<TraceKind>>,
    /// `retention = "24h"`: OpenAI's extended prompt-cache retention, a lifetime of up to
    /// 24 hours at the same prices, only where the calls' model offers it
    /// ([`super::provider`]).
    pub retention: Option<&'static str>,
    /// `avoid = ["ttl", …]`: the run priced as if the cache breaks of these classes had not
    /// happened (docs/model.md §9): an upper bound on what any schedule can save.
    pub avoid: Vec<&'static str>,
    /// `only_longer = true`: the step applies only to a run whose cache lives less than
    /// `ttl_s` (its own `[cache] ttl_s`, fitted or a `-1h` preset's, or an earlier step's);
    /// a run whose cache already lives `ttl_s` or longer is left unchanged (and said), its
    /// lifetime never shortened. Default false: every run takes the terms.
    pub only_longer: bool,
    /// `providers = ["anthropic"]`: the providers whose calls the step changes (their
    /// write price is that provider's: Anthropic's 1-hour cache writes cost 2× input,
    /// OpenAI has no write premium). A run whose calls ran on another provider is left
    /// unchanged (and said); a run that names no provider (written by hand) takes it.
    /// None: every provider.
    pub providers: Option<Vec<super::provider::Provider>>,
}

/// The break classes `cache = { avoid = [...] }` takes, and what avoiding each changes in
/// the simulated cache: `ttl` (the prefix never expires), `cold` and `compaction` (a
/// trace's first request reads all of B), `edit`, `tools`, `resume`, `provider`,
/// `unexplained` (the misses within the lifetime, priced together by μ: μ = 0). `model` is not one: each
/// model's cache is its own, which is what the calls' models are (a `model` edit moves
/// them).
pub const AVOIDABLE: [&str; 8] = [
    "ttl",
    "compaction",
    "edit",
    "tools",
    "resume",
    "cold",
    "provider",
    "unexplained",
];

/// A lifetime no pause reaches, seconds (about 31 years): `avoid = ["ttl"]`.
pub const NEVER_EXPIRES_S: f64 = 1e9;

/// `model = { to, tokens_factor, select }`: the calls priced as another model of the price
/// data (every call, or those `select` selects), its tokenizer giving `tokens_factor` times
/// the tokens for the same bytes (ρ ÷ factor).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelChange {
    /// The price data's name of the model (`claude-sonnet-4-6`).
    pub to: String,
    /// f: the same bytes give f times the tokens. Default 1.
    pub tokens_factor: f64,
    /// The calls moved (docs/model.md §7's selectors); None: every call.
    pub select: Option<super::Selector>,
}

/// One `[[base.part]]`: a named share of the base tokens (an MCP server's tool
/// definitions, a settings file), with the tool names it serves.
#[derive(Debug, Clone, PartialEq)]
pub struct BasePart {
    pub name: String,
    /// Tokens of the part, in every request's base.
    pub tokens: f64,
    /// Where `tokens` came from (`/context, 2026-11-30`; `estimated: …` for a published
    /// figure; the fitted tokens per loaded definition × the part's definitions).
    pub source: String,
    /// Tool names the part serves, as globs (`mcp__github__*`).
    pub tools: Vec<LabelGlob>,
    /// The agent already defers the part (tool search loads its definitions on demand):
    /// `tokens` is what rides along in every request, and deferring it again saves
    /// nothing. Default false.
    pub deferred: bool,
}

impl BasePart {
    /// Whether `tool` is one of the part's.
    pub fn serves(&self, tool: &str) -> bool {
        self.tools.iter().any(|g| g.pattern.matches(tool))
    }

    /// Whether `call` uses one of the part's tools: as its first tool or as one of the
    /// request's others (a request may run several tools at once).
    pub fn used_by(&self, call: &super::CallRef<'_>) -> bool {
        call.tools().any(|t| self.serves(t))
    }

    /// The part as a `[[base.part]]` table that loads back to it (tokens rounded to a
    /// whole token), ending in a newline: what the importers, `simulate import context`
    /// and `simulate suggest` write.
    pub fn toml_table(&self) -> String {
        let string = |s: &str| toml::Value::String(s.to_string()).to_string();
        let tools: Vec<String> = self.tools.iter().map(|g| string(&g.text)).collect();
        let mut out = format!(
            "[[base.part]]\nname = {}\ntokens = {}\nsource = {}\ntools = [{}]\n",
            string(&self.name),
            self.tokens.round().max(0.0) as u64,
            string(&self.source),
            tools.join(", ")
        );
        if self.deferred {
            out.push_str("deferred = true\n");
        }
        out
    }
}

/// What a base-part edit does with its part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PartEdit {
    /// `base = { drop = NAME }`: the part leaves every request.
    Drop,
    /// `base = { defer = NAME, stub_tokens = s }`: tool search. Only `s` tokens ride along
    /// from the first request; before the first call that uses one of the part's tools a
    /// tool-search request runs, and the part's tokens join the context after it.
    Defer { stub_tokens: f64 },
}

/// `base = { drop | defer = NAME, … }`.
#[derive(Debug, Clone, PartialEq)]
pub struct PartChange {
    /// The `[[base.part]]` named.
    pub part: String,
    pub how: PartEdit,
}

impl PartChange {
    /// The key that names the action in the file: `drop` or `defer`.
    pub fn key(&self) -> &'static str {
        match self.how {
            PartEdit::Drop => "drop",
            PartEdit::Defer { .. } => "defer",
        }
    }
}
