//! What the sessions show that an edit could act on (docs/model.md §9, "Suggested edits"):
//! each tool's output sizes, repeated inputs, pauses against the cache TTL, the contexts
//! the calls read, the compactions the logs recorded and the base's named parts. Pure
//! arithmetic over the scenarios; the rules in `rules` turn it into candidate edits.

mod contexts;
mod gather;
mod merge;
#[cfg(test)]
mod tests;
mod values;

pub use gather::Gatherer;
pub use values::{Tally, Values};

use crate::history::files::Loaded;
use serde::{Deserialize, Serialize};

/// One hour, in seconds: the longer prompt-cache lifetime (docs/model.md §4, §9).
pub const HOUR_S: f64 = 3_600.0;

/// Every output size of one tool, over all sessions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolOutputs {
    pub tool: String,
    /// Result bytes of each call of the tool that has some.
    pub sizes: Values,
    /// Sessions with such a call.
    pub sessions: usize,
    /// Its calls whose result is a server-side search result (kind `web_search`): sent
    /// back as received, it cannot be replaced, so `sizes` leaves them out and a cap of the
    /// tool selects `kind = "tool"` (and `sizes` then has only that kind's).
    pub searches: usize,
    /// Its pinned calls (not searches): a selector cannot leave them out, so a tool with
    /// any is not capped.
    pub pinned: usize,
}

/// Calls of one tool whose input an earlier call of the same session had (`input_hash`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repeats {
    pub tool: String,
    /// Calls repeating an earlier input.
    pub calls: usize,
    /// Of them, those whose result has the same bytes as the first call with that input (a
    /// re-read that most likely found the same thing; the others saw something new).
    pub same_size: usize,
    /// Sessions with a repeat.
    pub sessions: usize,
}

/// Pauses in the sessions whose cache lives `ttl_s`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pauses {
    pub ttl_s: f64,
    /// Sessions with a `[cache]` of this TTL.
    pub sessions_with_ttl: usize,
    /// Pauses before a call (from the second) longer than the TTL: the cache expired.
    pub over_ttl: usize,
    /// Of them, pauses of at most an hour (a 1-hour cache would have kept the prefix).
    pub within_hour: usize,
    /// Sessions with such a pause.
    pub sessions: usize,
}

/// A compaction a log recorded, starting the trace of `session`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compaction {
    pub session: String,
    /// The summary's text, UTF-8 bytes (`[import] compaction_summary_bytes`).
    pub summary_bytes: u64,
    /// The trace's nominal ρ and where it came from.
    pub bytes_per_token: f64,
    pub bytes_per_token_source: String,
}

impl Compaction {
    /// The summary in tokens at the trace's ρ: what `simulate fit` gives as its summary
    /// tokens (`fit::CompactionFit`) when ρ is fitted.
    pub fn summary_tokens(&self) -> f64 {
        self.summary_bytes as f64 / self.bytes_per_token
    }
}

/// One `[[base.part]]` over the sessions that declare it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartUse {
    pub part: String,
    /// Its tokens as the first declaring session (by name) gives them, with their source.
    pub tokens: f64,
    pub source: String,
    /// Sessions that declare it, and of them those with a call that uses its tools.
    pub sessions: usize,
    pub sessions_using: usize,
    /// Calls of the declaring sessions, and of them those that use its tools (as the
    /// request's first tool or beside it: `other_tools`).
    pub calls: usize,
    pub calls_using: usize,
    /// Tool globs the part serves (0: its use cannot be seen in the calls).
    pub tools: usize,
    /// The agent already defers it (`deferred = true`) in the first declaring session.
    pub deferred: bool,
}

/// What the sessions whose calls ran on OpenAI's API show (their measured convention, or
/// `[import]`'s, is `openai`): Anthropic's own edits do not apply there, OpenAI's do
/// (`crate::scenario::provider`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenAi {
    pub sessions: usize,
    /// Of them, those without a `[cache]`.
    pub uncached: usize,
    /// The context each call from the second on reads, as [`Evidence::contexts`] (each
    /// replaced by its class's value; empty while a [`Gatherer`] gathers: it tallies them
    /// apart).
    pub contexts: Values,
    /// The 90th percentile (nearest rank) of these sessions' B: a compaction threshold at or
    /// below a session's B plus the summary compacts before each of its calls, so
    /// thresholds sit above this; the few sessions above it are priced as they are.
    pub base_p90: f64,
    /// Pauses longer than the session's cache TTL (sessions with a `[cache]`) in the
    /// sessions whose every model offers extended prompt-cache retention; of them, those
    /// of at most 24 hours; and the sessions with such a pause.
    pub over_ttl: usize,
    pub within_day: usize,
    pub sessions_over_ttl: usize,
    /// The models that do not offer extended retention, each with why, in order seen.
    pub without_retention: Vec<(String, String)>,
    /// Sessions whose calls name no model (whether they offer retention is unknown).
    pub sessions_without_model: usize,
}

/// Everything the rules look at.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    pub sessions: usize,
    pub calls: usize,
    /// By tool name.
    pub tools: Vec<ToolOutputs>,
    /// By tool name, tools with at least one repeat.
    pub repeats: Vec<Repeats>,
    /// By TTL, ascending.
    pub pauses: Vec<Pauses>,
    /// Sessions without a `[cache]` (their cost is flat: no TTL to compare pauses with).
    pub uncached_sessions: usize,
    /// The context each call from the second on reads at its session's nominal point (B +
    /// what joined before it), est. tokens: where a context trigger could fire. Sessions
    /// on OpenAI's API are apart, in [`OpenAi::contexts`]. Each is replaced by the value of
    /// its class (`contexts::coarse`): the same percentiles to the whole token and to the
    /// trigger, the same counts above a trigger, in about one value per token of range.
    pub contexts: Values,
    /// The 90th percentile (nearest rank) of the B of the sessions `contexts` comes from.
    pub base_p90: f64,
    /// By TTL, ascending: the pauses of the sessions not on OpenAI's API (`pauses` has
    /// every session's), for Anthropic's 1-hour cache.
    pub anthropic_pauses: Vec<Pauses>,
    /// The sessions on OpenAI's API.
    pub openai: OpenAi,
    /// In session order.
    pub compactions: Vec<Compaction>,
    /// By part name.
    pub parts: Vec<PartUse>,
}

impl Evidence {
    /// Gathers the evidence of `sessions` (in their order, by name).
    pub fn gather(sessions: &[Loaded]) -> Evidence {
        let mut g = Gatherer::default();
        for loaded in sessions {
            g.add(&loaded.scenario);
        }
        g.finish()
    }
}
