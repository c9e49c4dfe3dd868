//! The scenario: the baseline run of calls, the assumptions, and the edits to compare.
//!
//! This module owns the file format. `file` holds the serde shapes of the TOML exactly as
//! written, `tsv` reads `calls_tsv` traces, and `validate` turns both into the checked
//! engine types below, so the engine never sees a raw TOML value.

mod file;
mod load;
mod tsv;
mod validate;

use compact_str::CompactString;
use std::sync::Arc;

pub use load::{MAX_INPUT_BYTES, load, load_str, read_limited};
pub use tsv::{Segments, Trace, TraceCalls, TsvCall, TsvReader, blank_call, parse_tsv, read_tsv};
pub use validate::{MAX_NUMBER, MAX_RANGE_STEPS, checked_axis, range};

/// One logical model request of the baseline run.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Unique id; defaults to the label (TSV calls: the call number in decimal).
    pub id: CompactString,
    /// What the call did, for people.
    pub label: CompactString,
    /// Free-form category (`tool` by default); clearing can exclude kinds.
    pub kind: Arc<str>,
    /// Bytes of result that join the context after the call, converted with ρ.
    pub bytes: f64,
    /// Measured tokens of result that join the context (not divided by ρ).
    pub tokens: f64,
    /// Tokens the model wrote at this call: priced as output, and they join the context.
    pub output_tokens: f64,
    /// Never cleared (default true for kind `web_search`).
    pub pinned: bool,
    /// Topic segment; segments are contiguous runs of calls.
    pub segment: u64,
    /// Seconds since the previous call, for the cache TTL.
    pub gap_s: f64,
    /// Whether `tokens` was given (measured), for labelling the unit.
    pub measured: bool,
}

/// Prompt-cache pricing, as multiples of the base input price (MODEL.md §4).
#[derive(Debug, Clone, PartialEq)]
pub struct CacheSpec {
    /// Price of a cached input token (0.1 for Anthropic).
    pub read: f64,
    /// Price of an input token written to cache (1.0: no write fee).
    pub write: f64,
    /// Seconds a cached prefix lives without being read.
    pub ttl_s: f64,
    /// A shorter cached prefix is not cached at all.
    pub min_tokens: f64,
    /// The preset the values came from, if any, with its source.
    pub preset: Option<String>,
}

/// Dollar prices, USD per million tokens.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Price {
    pub input: f64,
    /// Missing means output dollars are missing, not zero.
    pub output: Option<f64>,
    /// Where the prices come from; printed beside every dollar figure.
    pub source: String,
}

/// Values of one swept assumption.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis(pub Vec<f64>);

/// The `[sweep]` table: which values each assumption takes. Missing axes take the default
/// grid of MODEL.md §5 (base tokens and bytes per token) or only the nominal value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepSpec {
    pub base_tokens: Option<Axis>,
    pub bytes_per_token: Option<Axis>,
    pub cache_read: Option<Axis>,
    pub retry_rate: Option<Axis>,
}

/// Where a merged call sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeAt {
    First,
    Last,
}

/// How much a trim removes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TrimBy {
    Bytes(f64),
    ToBytes(f64),
    Percent(f64),
}

/// Where a moved call goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    Before(String),
    After(String),
}

/// A clearing policy (MODEL.md §3). Counts are whole numbers; thresholds positive.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClearPolicy {
    pub every_segments: Option<u64>,
    pub above_tool_bytes: Option<f64>,
    pub above_context_tokens: Option<f64>,
    pub older_than_calls: Option<u64>,
    /// Default 0.
    pub keep_segments: u64,
    /// Default 0.
    pub keep_results: u64,
    /// Default 0: a clearing that would free fewer tokens does nothing.
    pub clear_at_least_tokens: f64,
    /// Default 9, the length of `[cleared]`.
    pub placeholder_bytes: f64,
    /// Default `["web_search"]`.
    pub exclude_kinds: Vec<String>,
}

impl ClearPolicy {
    /// Whether the policy's events can move with `B` or `ρ`, so its reread total is not
    /// affine in them and it must be rerun at every sweep point.
    pub fn depends_on_assumptions(&self) -> bool {
        self.above_context_tokens.is_some() || self.clear_at_least_tokens > 0.0
    }
}

/// One action of an edit.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Trim {
        call: String,
        by: TrimBy,
    },
    Merge {
        calls: Vec<String>,
        overhead_bytes: f64,
        at: MergeAt,
    },
    Drop {
        call: String,
    },
    Move {
        call: String,
        to: Place,
    },
    Clear(ClearPolicy),
    Steps(Vec<Action>),
}

impl Action {
    /// Every call id this action names.
    pub fn call_ids(&self) -> Vec<&str> {
        match self {
            Action::Trim { call, .. } | Action::Drop { call } => vec![call],
            Action::Move {
                call,
                to: Place::Before(t) | Place::After(t),
            } => vec![call, t],
            Action::Merge { calls, .. } => calls.iter().map(String::as_str).collect(),
            Action::Clear(_) => Vec::new(),
            Action::Steps(steps) => steps.iter().flat_map(Action::call_ids).collect(),
        }
    }

    /// The key that names this action in the file.
    pub fn key(&self) -> &'static str {
        match self {
            Action::Trim { .. } => "trim",
            Action::Merge { .. } => "merge",
            Action::Drop { .. } => "drop",
            Action::Move { .. } => "move",
            Action::Clear(_) => "clear",
            Action::Steps(_) => "steps",
        }
    }
}

/// A named change to the baseline run.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub name: String,
    pub action: Action,
    /// Line and column of the `[[edit]]` in the file, for errors found when applying it.
    pub line_column: Option<(usize, usize)>,
    /// Line and column of each key that names a call (`trim.call`, `step 2: merge.calls`).
    pub key_line_columns: Vec<(String, (usize, usize))>,
}

impl Edit {
    /// Where `key` is in the file, else where the edit is.
    pub fn locate(&self, key: &str) -> Option<(usize, usize)> {
        self.key_line_columns
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, at)| *at)
            .or(self.line_column)
    }
}

/// A checked scenario, ready for the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// `[a-z0-9][a-z0-9_-]*`; results go to `out/<name>/`.
    pub name: String,
    pub description: Option<String>,
    /// The file it came from, as the user named it (for messages and reports).
    pub source: String,
    /// Every file read to make it: the scenario file, then its `calls_tsv` trace if any.
    /// Outputs must never replace one of them.
    pub inputs: Vec<std::path::PathBuf>,
    /// B, the nominal point.
    pub base_tokens: f64,
    /// ρ, the nominal point.
    pub bytes_per_token: f64,
    /// Expected extra attempts per logical call (default 0).
    pub retry_rate: f64,
    pub calls: Vec<Call>,
    pub edits: Vec<Edit>,
    pub sweep: Option<SweepSpec>,
    pub cache: Option<CacheSpec>,
    pub price: Option<Price>,
}

impl Scenario {
    /// How many calls carry measured tokens (for "measured on k of n calls").
    pub fn measured_calls(&self) -> usize {
        self.calls.iter().filter(|c| c.measured).count()
    }
}
