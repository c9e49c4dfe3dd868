//! The scenario: the baseline run of calls, the assumptions, and the edits to compare.
//!
//! This module owns the file format. `file` holds the serde shapes of the TOML exactly as
//! written, `tsv` reads `calls_tsv` traces, and `validate` turns both into the checked
//! engine types below, so the engine never sees a raw TOML value.

mod bounds;
mod calls;
mod file;
mod fitted;
mod load;
mod messages;
pub mod provider;
pub mod published;
mod quick;
mod select_file;
mod tsv;
mod unmatched;
mod validate;
mod whatif;
mod whatif_file;

use crate::error::Located;
use crate::{number, printable};
use compact_str::CompactString;
use std::sync::Arc;

pub use bounds::Assumption;
pub use calls::{CallRef, Calls, Id, Sizes};
pub use fitted::{Fitted, FittedChanges, write_fitted};
pub use load::{
    MAX_INPUT_BYTES, load, load_edits, load_edits_str, load_parts_str, load_str, read_scenario_text,
};
pub use quick::load_quick;
pub use tsv::{Segments, Trace, TraceCalls, TsvCall, TsvReader, blank_call, parse_tsv, read_tsv};
pub use unmatched::Names;
pub use validate::{API_CLEAR, MAX_NUMBER, MAX_RANGE_STEPS, checked_axis, range};
pub use whatif::{
    AVOIDABLE, BasePart, CacheChange, ModelChange, NEVER_EXPIRES_S, PartChange, PartEdit, TraceKind,
};

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
    /// Tokens the model wrote at this call: priced as output. They also join the context,
    /// unless the call gives the model's own message as bytes
    /// ([`CallDetail::output_bytes`]), which then joins in their place.
    pub output_tokens: f64,
    /// Never cleared (default true for kind `web_search`).
    pub pinned: bool,
    /// Topic segment; segments are contiguous runs of calls.
    pub segment: u64,
    /// Seconds since the previous call, for the cache TTL.
    pub gap_s: f64,
    /// Whether `tokens` was given (measured), for labelling the unit.
    pub measured: bool,
    /// What a log tells about the call beyond its sizes (tool, input, measured usage);
    /// boxed so a million-call TSV trace pays one pointer per call for it.
    pub detail: Option<Box<CallDetail>>,
}

/// What a log tells about a call beyond the ledger's sizes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallDetail {
    /// The tool name, exactly as the log gives it: the request's first tool use.
    pub tool: Option<Arc<str>>,
    /// The other tools the same request used (`other_tools`), each once, in order of
    /// first use, never `tool` again: a request may run several tools at once, and a
    /// part is used by a call that uses any of its tools (docs/scenario.md).
    pub other_tools: Vec<Arc<str>>,
    /// Hash of the tool name and input (hex), so identical re-reads can be found.
    pub input_hash: Option<CompactString>,
    /// `[call.measured]`: the provider's usage fields for this request.
    pub measured: Option<MeasuredUsage>,
    /// The model's own message as the next request sends it back (text, tool-use names
    /// and inputs as JSON, thinking text), UTF-8 bytes: when given, it joins the context
    /// (÷ ρ) in place of `output_tokens`, which are then priced only (docs/model.md §6.2:
    /// logged output counts are placeholders in some versions and include thinking that is
    /// never sent back in others).
    pub output_bytes: Option<f64>,
    /// Of the model's message, the bytes of its tool uses' names and inputs as JSON (part
    /// of `output_bytes` where that is given, else of `output_tokens`): what clearing tool
    /// inputs removes. 0 when not given.
    pub tool_input_bytes: f64,
    /// Images in what joined after the call, each counted as [`Terms::tokens_per_image`].
    pub images: u64,
    /// Tool definitions that joined after the call (a `tool_reference` result of tool
    /// search), each counted as [`Terms::tokens_per_loaded_tool`].
    pub loaded_tools: u64,
}

/// A call's `other_tools` as kept: `names` in order, each once, without `first` (the
/// call's `tool`), each made by `make` (an interner, or `Arc::from`).
pub fn other_tools<'n>(
    first: &str,
    names: impl IntoIterator<Item = &'n str>,
    mut make: impl FnMut(&str) -> Arc<str>,
) -> Vec<Arc<str>> {
    let mut out: Vec<Arc<str>> = Vec::new();
    for n in names {
        if n != first && !out.iter().any(|o| &**o == n) {
            out.push(make(n));
        }
    }
    out
}

/// One named term: tokens per unit of something the log counts but cannot size.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// Tokens per unit.
    pub tokens: f64,
    /// Where the value came from (`estimated: …`, `fitted (simulate fit: …)`); None for
    /// a value the user wrote without saying.
    pub source: Option<String>,
}

/// The named terms of `[terms]` (docs/model.md §6.2, "Fit"): what the log counts but cannot
/// size, in tokens per unit, each with its source.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Terms {
    /// Tokens every call adds to the context besides its result and the model's content:
    /// message framing, tool-use ids, reminders the client injects unlogged. Default none.
    pub tokens_per_call: Option<Term>,
    /// Tokens per image. Default [`IMAGE_TOKENS_ESTIMATE`], estimated.
    pub tokens_per_image: Option<Term>,
    /// Tokens per tool definition loaded mid-session. Required when a call loads one.
    pub tokens_per_loaded_tool: Option<Term>,
}

/// Tokens one image is counted as without a fitted value: Anthropic's figure for an image
/// of about 1.15 megapixels, the largest sent without downscaling (`tokens ≈ width ×
/// height / 750`, Anthropic's vision docs). Logs do not say an image's size cheaply.
pub const IMAGE_TOKENS_ESTIMATE: f64 = 1_600.0;

impl Terms {
    /// Tokens per call (0 when not given).
    pub fn per_call(&self) -> f64 {
        self.tokens_per_call.as_ref().map_or(0.0, |t| t.tokens)
    }

    /// Tokens per image (the estimate when not given).
    pub fn per_image(&self) -> f64 {
        self.tokens_per_image
            .as_ref()
            .map_or(IMAGE_TOKENS_ESTIMATE, |t| t.tokens)
    }

    /// Tokens per loaded tool definition (0 when not given: validation refuses a scenario
    /// that loads tools without it).
    pub fn per_loaded_tool(&self) -> f64 {
        self.tokens_per_loaded_tool
            .as_ref()
            .map_or(0.0, |t| t.tokens)
    }
}

/// How a provider counts input tokens (docs/model.md §6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Convention {
    /// `input_tokens` excludes cache reads and writes: total input is input + cache
    /// creation + cache read (Anthropic Messages API usage).
    Anthropic,
    /// `input_tokens` includes cached tokens (OpenAI, Codex CLI, Gemini, OpenTelemetry).
    OpenAi,
}

impl Convention {
    /// The convention as written in a scenario file.
    pub fn key(self) -> &'static str {
        match self {
            Convention::Anthropic => "anthropic",
            Convention::OpenAi => "openai",
        }
    }

    /// What `input_tokens` means under this convention, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Convention::Anthropic => {
                "anthropic: input_tokens excludes cache reads and writes; total input = input_tokens + cache_creation_input_tokens + cache_read_input_tokens"
            }
            Convention::OpenAi => {
                "openai: input_tokens includes cached tokens (cache_read_input_tokens is part of it); total input = input_tokens"
            }
        }
    }
}

/// A request's usage as the provider reported it, in tokens. A field the log did not give
/// is None, never 0 (docs/model.md §6.1).
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredUsage {
    pub input_tokens: Option<f64>,
    /// Tokens written to the prompt cache (all TTLs).
    pub cache_creation_input_tokens: Option<f64>,
    /// Of them, written with the 1-hour TTL.
    pub cache_creation_1h_input_tokens: Option<f64>,
    /// Tokens read from the prompt cache.
    pub cache_read_input_tokens: Option<f64>,
    pub output_tokens: Option<f64>,
    /// What the request cost as the log measured it, US dollars (`[call.measured]
    /// cost_usd`: the provider's or the agent's own figure, e.g. OpenRouter's `usage.cost`),
    /// so a report can set simulated dollars beside the run's own. None where the log has
    /// no cost, never 0.
    pub cost_usd: Option<f64>,
    /// The model id as the log names it.
    pub model: Option<Arc<str>>,
    pub convention: Convention,
    /// `[call.measured] cache_event`: what the log records just before this request that
    /// changes the prompt cache's prefix (`tools`: the tool list or base changed;
    /// `resume`: a new file or process of the session; `edit`: an in-place clearing;
    /// `compaction`), for the cache forensics (docs/model.md §4, "Breaks"). None where the
    /// log records nothing.
    pub cache_event: Option<Arc<str>>,
}

/// The values `[call.measured] cache_event` takes.
pub const CACHE_EVENTS: [&str; 4] = ["tools", "resume", "edit", "compaction"];

impl MeasuredUsage {
    /// The request's total input in tokens: what the model read (docs/model.md §6.2, measured
    /// ledger). None when a field the convention needs is missing.
    pub fn total_input(&self) -> Option<f64> {
        match self.convention {
            Convention::Anthropic => Some(
                self.input_tokens?
                    + self.cache_creation_input_tokens?
                    + self.cache_read_input_tokens?,
            ),
            Convention::OpenAi => self.input_tokens,
        }
    }

    /// The first field the convention needs for the total input that the log left out.
    pub fn missing_field(&self) -> Option<&'static str> {
        let fields: &[(&'static str, Option<f64>)] = match self.convention {
            Convention::Anthropic => &[
                ("input_tokens", self.input_tokens),
                (
                    "cache_creation_input_tokens",
                    self.cache_creation_input_tokens,
                ),
                ("cache_read_input_tokens", self.cache_read_input_tokens),
            ],
            Convention::OpenAi => &[("input_tokens", self.input_tokens)],
        };
        fields.iter().find(|(_, v)| v.is_none()).map(|(f, _)| *f)
    }

    /// Tokens written to the cache with the 5-minute TTL: creation less its 1-hour part.
    pub fn cache_creation_5m_input_tokens(&self) -> Option<f64> {
        let all = self.cache_creation_input_tokens?;
        Some(all - self.cache_creation_1h_input_tokens.unwrap_or(0.0))
    }
}

/// Prompt-cache pricing, as multiples of the base input price (docs/model.md §4).
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
    /// μ: the share of prefix tokens the cache would read that the provider writes again
    /// (docs/model.md §4, cache misses): a prefix that would be read costs `(1 − μ)·read +
    /// μ·write` per token. 0 unless given or fitted.
    pub miss_share: f64,
    /// Where `miss_share` came from, when given.
    pub miss_share_source: Option<String>,
    /// The share of the base tokens already in the cache at a run's first request
    /// (written before the trace began: an earlier session with the same system prompt
    /// and tools, within the TTL). The first request reads that much instead of writing
    /// it. 0 unless given or fitted.
    pub warm_share: f64,
    /// Where `warm_share` came from, when given.
    pub warm_share_source: Option<String>,
    /// `[cache] output = R`: an output token's price in input tokens, assumed where no
    /// price says it (docs/model.md §4). None: from the prices, or not priced.
    pub output: Option<f64>,
    /// The price data's model whose terms `preset` gave (`claude-sonnet-4-5` for the
    /// presets `claude-sonnet-4-5` and `claude-sonnet-4-5-1h`); None for a generic preset
    /// or terms given by hand.
    pub model: Option<String>,
}

impl CacheSpec {
    /// The price of a token the cache would read, with the miss share: `(1 − μ)·read +
    /// μ·write`, for a cached-read price `read` (the spec's own, or a swept one).
    pub fn expected_read(&self, read: f64) -> f64 {
        (1.0 - self.miss_share) * read + self.miss_share * self.write
    }
}

/// Dollar prices, USD per million tokens.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Price {
    pub input: f64,
    /// Missing means output dollars are missing, not zero.
    pub output: Option<f64>,
    /// Where the prices come from; printed beside every dollar figure.
    pub source: String,
    /// The price data's model the prices are of (`[price] model`), if named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Values of one swept assumption.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis(pub Vec<f64>);

/// The `[sweep]` table: which values each assumption takes. Missing axes take the default
/// grid of docs/model.md §5 (base tokens and bytes per token) or only the nominal value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepSpec {
    pub base_tokens: Option<Axis>,
    pub bytes_per_token: Option<Axis>,
    pub cache_read: Option<Axis>,
    pub retry_rate: Option<Axis>,
    /// The re-fetch rate (docs/model.md §11); without it, the default
    /// [`DEFAULT_REFETCH_AXIS`] where an edit removes results.
    pub refetch: Option<Axis>,
}

/// The re-fetch rates swept when `[sweep] refetch` is not given and an edit removes
/// results (docs/model.md §11): none, one in ten, one in four, one in two.
pub const DEFAULT_REFETCH_AXIS: [f64; 4] = [0.0, 0.1, 0.25, 0.5];

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

/// A clearing policy (docs/model.md §3). Counts are whole numbers; thresholds positive.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClearPolicy {
    pub every_segments: Option<u64>,
    /// Fires before call i when this many calls have completed since the last clearing
    /// (or the start): a window that moves in steps of K calls (docs/model.md §3).
    pub every_calls: Option<u64>,
    pub above_tool_bytes: Option<f64>,
    pub above_context_tokens: Option<f64>,
    pub older_than_calls: Option<u64>,
    /// Fires before a call whose `gap_s` exceeds this many seconds (idle time). At the
    /// cache TTL the clearing lands where the prefix is written again anyway.
    pub after_gap_s: Option<f64>,
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
    /// Whether `exclude_kinds` was given in the file (for the pinning warning).
    pub exclude_kinds_given: bool,
    /// Only results of these tools may be cleared (the context-editing API's `tools`);
    /// None: any tool.
    pub tools: Option<Vec<String>>,
    /// Results of these tools are never cleared (`exclude_tools`).
    pub exclude_tools: Vec<String>,
    /// The provider's context editing this policy stands for (`api =
    /// "clear_tool_uses_20250919"`), so the output can give its `context_management` JSON.
    pub api: Option<&'static str>,
    /// With `api`: the tool-use inputs in the model's messages are cleared with their
    /// results (`clear_tool_inputs`).
    pub clear_tool_inputs: bool,
    /// `at = "cold"`: a trigger that fires acts only before a call whose pause exceeds
    /// `lifetime_s` (the cache is broken there anyway); until then it stays armed.
    pub at_cold: bool,
    /// The cache lifetime `at = "cold"` compares pauses with, seconds: the scenario's
    /// `[cache] ttl_s` (fitted, where `fit --write` wrote it), else the default 300 s;
    /// set when the edit is applied ([`crate::evaluate::Study::new`]).
    pub lifetime_s: f64,
}

/// When a compaction runs (docs/model.md §9): before a call whose context would exceed
/// `threshold_tokens`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactPolicy {
    /// The context above which the compaction runs, tokens (`above_context_tokens`, or
    /// `at_percent` of `window_tokens`, or a preset's).
    pub threshold_tokens: f64,
    /// The summary's size, tokens: priced as the compaction request's output, and what
    /// the context holds (with B and the kept calls) from then on.
    pub summary_tokens: f64,
    /// The latest calls kept as they are after a compaction (default 0).
    pub keep_calls: u64,
    /// How the threshold was given, for reports (`above 100,000 tokens`, `80 % of a
    /// 200,000-token window`, `preset compact_20260112 (…)`).
    pub trigger: String,
    /// The provider's own compaction it stands for, if any: `compact_20260112` (the
    /// Messages API's) or `openai-responses` (OpenAI's server-side compaction); see
    /// [`provider`].
    pub api: Option<&'static str>,
    /// `at = "cold"`, as [`ClearPolicy::at_cold`]: the compaction waits, past its
    /// threshold, for a call whose pause exceeds `lifetime_s`.
    pub at_cold: bool,
    /// As [`ClearPolicy::lifetime_s`].
    pub lifetime_s: f64,
}

/// The values `at` takes in `clear` and `compact` (docs/model.md §9).
pub const AT_MOMENTS: [&str; 1] = ["cold"];

impl ClearPolicy {
    /// Whether the policy's events can move with `B` or `ρ`, so its reread total is not
    /// affine in them and it must be rerun at every sweep point.
    pub fn depends_on_assumptions(&self) -> bool {
        self.above_context_tokens.is_some() || self.clear_at_least_tokens > 0.0
    }
}

/// A change to the base tokens every call reads (docs/model.md §7): `B' = (B if kept) + tokens +
/// bytes / ρ`. `by_tokens = N` is `{ keep, tokens: −N }`, `by_bytes = N` is `{ keep,
/// bytes: −N }`, `to_tokens = N` is `{ tokens: N }`; steps compose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaseChange {
    /// Whether the assumed B stays part of the base (false after `to_tokens`).
    pub keep: bool,
    /// Tokens added (negative: removed).
    pub tokens: f64,
    /// Bytes added, converted with ρ (negative: removed).
    pub bytes: f64,
}

impl BaseChange {
    /// No change.
    pub const NONE: BaseChange = BaseChange {
        keep: true,
        tokens: 0.0,
        bytes: 0.0,
    };

    /// `self` then `next`.
    pub fn then(self, next: BaseChange) -> BaseChange {
        if next.keep {
            BaseChange {
                keep: self.keep,
                tokens: self.tokens + next.tokens,
                bytes: self.bytes + next.bytes,
            }
        } else {
            next
        }
    }

    /// The base at `base_tokens` and `bytes_per_token`.
    pub fn apply(&self, base_tokens: f64, bytes_per_token: f64) -> f64 {
        let kept = if self.keep { base_tokens } else { 0.0 };
        kept + self.tokens + self.bytes / bytes_per_token
    }

    /// Whether this changes nothing.
    pub fn is_none(&self) -> bool {
        *self == BaseChange::NONE
    }
}

/// Which calls a rule applies to: every key given must match (docs/model.md §7).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Selector {
    /// The call's tool is one of these.
    pub tools: Option<Vec<String>>,
    /// The call's kind is one of these.
    pub kinds: Option<Vec<String>>,
    /// The call's label matches this shell glob (`cat *.md`).
    pub label: Option<LabelGlob>,
    /// The call's result has at least this many bytes.
    pub min_bytes: Option<f64>,
}

/// A shell glob over labels, with the text it was written as.
#[derive(Debug, Clone)]
pub struct LabelGlob {
    pub text: String,
    pub pattern: glob::Pattern,
}

impl PartialEq for LabelGlob {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Selector {
    /// Whether `call`, whose result currently has `bytes` and is labelled `label`, is
    /// selected.
    pub fn selects(&self, call: CallRef<'_>, label: &str, bytes: f64) -> bool {
        let any = |list: &Option<Vec<String>>, value: Option<&str>| match list {
            None => true,
            Some(list) => value.is_some_and(|v| list.iter().any(|x| x == v)),
        };
        any(&self.tools, call.tool())
            && any(&self.kinds, Some(call.kind))
            && self.label.as_ref().is_none_or(|g| g.pattern.matches(label))
            && self.min_bytes.is_none_or(|m| bytes >= m)
    }
}

/// One action of an edit.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Trim {
        call: String,
        by: TrimBy,
    },
    /// `trim = { select, by_percent }`: every selected result scaled down.
    TrimSelected {
        select: Selector,
        percent: f64,
    },
    /// `drop = { select }`: every selected call removed.
    DropSelected {
        select: Selector,
    },
    /// `cap = { select, max_bytes }`: every selected result cut to at most `max_bytes`.
    Cap {
        select: Selector,
        max_bytes: f64,
    },
    /// `dedupe = { select, placeholder_bytes, same_bytes }`: a selected result whose input
    /// hash an earlier selected call has is replaced by a placeholder; with `same_bytes`,
    /// only where its bytes are also that earlier call's (a re-read that found the same
    /// thing, not a poll that found something new).
    Dedupe {
        select: Selector,
        placeholder_bytes: f64,
        same_bytes: bool,
    },
    /// `base = { … }`: the base tokens every call reads change.
    Base(BaseChange),
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
    /// `compact = { … }`: summarize the context when it grows past a threshold.
    Compact(CompactPolicy),
    Steps(Vec<Action>),
    /// `cache = { … }`: other prompt-cache terms (docs/model.md §9).
    Cache(CacheChange),
    /// `model = { to, tokens_factor }`: priced as another model (docs/model.md §9).
    Model(ModelChange),
    /// `base = { drop | defer = NAME }`: a named base part dropped or deferred
    /// (docs/model.md §9).
    BasePart(PartChange),
}

impl Action {
    /// Whether this action removes results the agent read, so that it may fetch them
    /// again (docs/model.md §11): a clearing, a compaction, a cap, a dedupe, or steps with
    /// one. A drop or trim changes what the agent is given, not what it saw and lost.
    pub fn removes_results(&self) -> bool {
        match self {
            Action::Clear(_) | Action::Compact(_) | Action::Cap { .. } | Action::Dedupe { .. } => {
                true
            }
            Action::Steps(steps) => steps.iter().any(Action::removes_results),
            _ => false,
        }
    }

    /// Every call id this action names.
    pub fn call_ids(&self) -> Vec<&str> {
        match self {
            Action::Trim { call, .. } | Action::Drop { call } => vec![call],
            Action::Move {
                call,
                to: Place::Before(t) | Place::After(t),
            } => vec![call, t],
            Action::Merge { calls, .. } => calls.iter().map(String::as_str).collect(),
            Action::Clear(_)
            | Action::Compact(_)
            | Action::TrimSelected { .. }
            | Action::DropSelected { .. }
            | Action::Cap { .. }
            | Action::Dedupe { .. }
            | Action::Base(_) => Vec::new(),
            Action::Cache(_) | Action::Model(_) | Action::BasePart(_) => Vec::new(),
            Action::Steps(steps) => steps.iter().flat_map(Action::call_ids).collect(),
        }
    }

    /// The key that names this action in the file.
    pub fn key(&self) -> &'static str {
        match self {
            Action::Trim { .. } | Action::TrimSelected { .. } => "trim",
            Action::DropSelected { .. } => "drop",
            Action::Cap { .. } => "cap",
            Action::Dedupe { .. } => "dedupe",
            Action::Base(_) => "base",
            Action::Merge { .. } => "merge",
            Action::Drop { .. } => "drop",
            Action::Move { .. } => "move",
            Action::Clear(_) => "clear",
            Action::Compact(_) => "compact",
            Action::Steps(_) => "steps",
            Action::Cache(_) => "cache",
            Action::Model(_) => "model",
            Action::BasePart(_) => "base",
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
    /// Values legal but almost surely a slip (`by_percent = 0.5`), located in its file.
    pub warnings: Vec<String>,
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

/// Where the nominal B and ρ came from, as the scenario file says (`base_tokens_source`,
/// `bytes_per_token_source`); None means "assumed (scenario file)".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssumptionSources {
    pub base_tokens: Option<String>,
    pub bytes_per_token: Option<String>,
}

/// The `[import]` table an importer writes: where an imported scenario came from.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct ImportInfo {
    /// `claude-code`, `codex` or `otel`.
    pub format: String,
    pub file: String,
    pub session_id: Option<String>,
    /// `main`, `subagent`, `after-compaction` or `after-reset`.
    pub trace: String,
    /// 1, 2, … across compactions.
    pub part: Option<u64>,
    pub parent_session: Option<String>,
    pub agent_id: Option<String>,
    pub requests: Option<u64>,
    pub duplicates_removed: Option<u64>,
    pub malformed_lines: Option<u64>,
    /// The model the trace used most.
    pub model: Option<String>,
    pub convention: Option<Convention>,
    /// For a trace after a compaction: what started it, as the log says (`auto`,
    /// `manual`), the context then (tokens) and the summary's size (UTF-8 bytes).
    pub compaction_trigger: Option<String>,
    pub compaction_pre_tokens: Option<u64>,
    pub compaction_summary_bytes: Option<u64>,
    /// The context after the compaction, tokens (approximate; OpenTelemetry logs it).
    pub compaction_post_tokens: Option<u64>,
    /// For a trace that starts where the context fell with no compaction in the log
    /// (`trace = "after-reset"`): the previous request's measured total input and this
    /// trace's first, tokens.
    pub reset_from_input_tokens: Option<u64>,
    pub reset_to_input_tokens: Option<u64>,
    /// Who ran the session (OpenTelemetry's `user.id`), for grouping a history.
    pub user_id: Option<String>,
    /// The organisation the session ran under (OpenTelemetry's `organization.id`).
    pub organization_id: Option<String>,
    /// The Claude account that ran the session (OpenTelemetry's `user.account_uuid`): the
    /// same person on every machine, where `user_id` is one installation.
    pub account_uuid: Option<String>,
    /// The team the telemetry's resource names, and the attribute it came from
    /// (`team.id`, `team.name`, `team`, `department`, `cost_center`, the first there).
    pub team: Option<String>,
    pub team_attribute: Option<String>,
    /// A log that measures no request (SWE-agent's `info.model_stats`): the run's input
    /// tokens summed over its API calls, its output tokens, how many calls it made
    /// (retries included) and its cost by the agent's prices, US dollars.
    pub tokens_sent: Option<u64>,
    pub tokens_received: Option<u64>,
    pub api_calls: Option<u64>,
    pub instance_cost_usd: Option<f64>,
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
    /// `[behaviour] refetch`: the share of the results an edit removes that the agent
    /// fetches again (default 0: it behaves as before; docs/model.md §11). Assumed.
    pub refetch: f64,
    /// The calls in order; shared, so that the baseline run reads them rather than copying
    /// them into slots.
    pub calls: Arc<Calls>,
    pub edits: Vec<Edit>,
    pub sweep: Option<SweepSpec>,
    pub cache: Option<CacheSpec>,
    pub price: Option<Price>,
    /// Where B and ρ came from, when the file says.
    pub sources: AssumptionSources,
    /// `[terms]`: tokens per unit of what the log counts but cannot size.
    pub terms: Terms,
    /// The `[import]` table, for a scenario made from an agent log.
    pub import: Option<ImportInfo>,
    /// The edits file the edits came from (`--edits FILE`), instead of the scenario.
    pub edits_file: Option<String>,
    /// Values legal but almost surely a slip (`bytes_per_token = 0.3`, `[cache] read =
    /// 10`), and calls given ids of their own, located in the file; the edits' are theirs.
    pub warnings: Vec<String>,
    /// `[[base.part]]`: named parts of the base tokens (docs/model.md §9); B is their sum
    /// plus the rest.
    pub base_parts: Vec<BasePart>,
}

/// What an edits file holds: its `[[edit]]` tables, and the `[[base.part]]` tables every
/// scenario it runs against takes as its own ([`Scenario::with_parts`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EditsSet {
    pub edits: Vec<Edit>,
    pub parts: Vec<BasePart>,
}

impl Scenario {
    /// The scenario with `edits` from the edits file `file` in place of its own.
    pub fn with_edits(mut self, edits: Vec<Edit>, file: &str) -> Scenario {
        self.edits = edits;
        self.edits_file = Some(file.to_string());
        self
    }

    /// The scenario with the base parts `parts` (from `file`: an edits file, a `/context`
    /// import) as its own: a part of the same name replaces the scenario's, the others
    /// join. Where they would add up to more than B (a subagent's smaller base, say), the
    /// scenario keeps its own parts and a warning says so: B is the parts plus the rest.
    pub fn with_parts(mut self, parts: &[BasePart], file: &str) -> Scenario {
        if parts.is_empty() {
            return self;
        }
        let mut merged = self.base_parts.clone();
        for p in parts {
            match merged.iter_mut().find(|q| q.name == p.name) {
                Some(q) => *q = p.clone(),
                None => merged.push(p.clone()),
            }
        }
        let sum: f64 = merged.iter().map(|p| p.tokens).sum();
        if sum > self.base_tokens {
            self.warnings.push(
                Located::new(
                    &self.source,
                    format!(
                        "the [[base.part]] tables of {} add up to {} tokens with this session's own, more than its base_tokens = {}: not applied to this session (B is the parts plus the rest; fit B with `simulate fit`, or correct a part)",
                        printable::path(std::path::Path::new(file)),
                        number::grouped(sum, 0),
                        number::grouped(self.base_tokens, 0)
                    ),
                )
                .place("[[base.part]]")
                .to_string(),
            );
            return self;
        }
        self.base_parts = merged;
        self
    }

    /// The file the edits were written in, for messages.
    pub fn edits_source(&self) -> &str {
        self.edits_file.as_deref().unwrap_or(&self.source)
    }
}

impl Scenario {
    /// How many calls carry measured tokens (for "measured on k of n calls").
    pub fn measured_calls(&self) -> usize {
        (0..self.calls.len())
            .filter(|&i| self.calls.measured(i))
            .count()
    }

    /// How many calls carry the provider's measured usage (`[call.measured]`).
    pub fn calls_with_usage(&self) -> usize {
        self.calls
            .details()
            .filter(|d| d.is_some_and(|d| d.measured.is_some()))
            .count()
    }
}

#[cfg(test)]
mod parts_tests {
    use super::*;

    fn part(name: &str, tokens: f64) -> BasePart {
        BasePart {
            name: name.into(),
            tokens,
            source: "test".into(),
            tools: Vec::new(),
            deferred: false,
        }
    }

    #[test]
    fn parts_from_a_file_replace_by_name_and_stay_out_where_b_cannot_hold_them() {
        let text = "name = \"s\"\nbase_tokens = 1000\nbytes_per_token = 1\n[[base.part]]\nname = \"a\"\ntokens = 300\ntools = []\n[[call]]\nlabel = \"x\"\nbytes = 1\n";
        let s = load_str(text, std::path::Path::new("s.toml")).unwrap();
        let fits = s
            .clone()
            .with_parts(&[part("a", 600.0), part("b", 400.0)], "e.toml");
        let got: Vec<(&str, f64)> = fits
            .base_parts
            .iter()
            .map(|p| (p.name.as_str(), p.tokens))
            .collect();
        assert_eq!(got, vec![("a", 600.0), ("b", 400.0)]);
        assert!(fits.warnings.is_empty());
        // 300 + 800 > 1,000: the session keeps its own, and says why.
        let over = s.with_parts(&[part("b", 800.0)], "e.toml");
        assert_eq!(over.base_parts.len(), 1);
        assert!(
            over.warnings
                .iter()
                .any(|w| w.contains("add up to 1,100 tokens") && w.contains("not applied")),
            "{:?}",
            over.warnings
        );
    }
}
