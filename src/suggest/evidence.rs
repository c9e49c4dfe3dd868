//! What the sessions show that an edit could act on (docs/model.md §9, "Suggested edits"):
//! each tool's output sizes, repeated inputs, pauses against the cache TTL, the contexts
//! the calls read, the compactions the logs recorded and the base's named parts. Pure
//! arithmetic over the scenarios; the rules in `rules` turn it into candidate edits.

use crate::history::files::Loaded;
use crate::report::Sources;
use crate::run::Run;
use crate::scenario::provider::{self, Provider, Providers};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::BTreeMap;

/// One hour, in seconds: the longer prompt-cache lifetime (docs/model.md §4, §9).
pub const HOUR_S: f64 = 3_600.0;

/// Every output size of one tool, over all sessions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolOutputs {
    pub tool: String,
    /// Result bytes of each call of the tool that has some, ascending.
    pub sizes: Vec<f64>,
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct OpenAi {
    pub sessions: usize,
    /// The context each call from the second on reads, as [`Evidence::contexts`].
    pub contexts: Vec<f64>,
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
    /// what joined before it), est. tokens, ascending: where a context trigger could fire.
    /// Sessions on OpenAI's API are apart, in [`OpenAi::contexts`].
    pub contexts: Vec<f64>,
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
        // By tool: the sizes of its replaceable results, those of kind `tool` alone, the
        // sessions, the searches and the pinned calls.
        #[derive(Default)]
        struct Outputs {
            sizes: Vec<f64>,
            tool_kind: Vec<f64>,
            sessions: usize,
            searches: usize,
            pinned: usize,
        }
        let mut tools: BTreeMap<String, Outputs> = BTreeMap::new();
        let mut repeats: BTreeMap<String, Repeats> = BTreeMap::new();
        let mut pauses: Vec<Pauses> = Vec::new();
        let mut anthropic_pauses: Vec<Pauses> = Vec::new();
        let mut uncached = 0;
        let mut contexts = Vec::new();
        // Each session's B, to place compaction thresholds above nearly all of them: the
        // largest alone let one session after a reset (B of 117,672) push every threshold
        // to 150,000.
        let mut bases = Vec::new();
        let mut openai_bases = Vec::new();
        let mut openai = OpenAi::default();
        let mut compactions = Vec::new();
        let mut parts: BTreeMap<String, PartUse> = BTreeMap::new();
        let mut calls = 0;
        for loaded in sessions {
            let s = &loaded.scenario;
            calls += s.calls.len();
            // Output sizes, per tool, and which tools this session has.
            let mut seen_tools: Vec<&str> = Vec::new();
            for c in s.calls.iter() {
                if let Some(tool) = c.tool().filter(|_| c.bytes > 0.0) {
                    let entry = tools.entry(tool.to_string()).or_default();
                    if c.kind == "web_search" {
                        entry.searches += 1;
                    } else if c.pinned {
                        entry.pinned += 1;
                    } else {
                        entry.sizes.push(c.bytes);
                        if c.kind == "tool" {
                            entry.tool_kind.push(c.bytes);
                        }
                    }
                    if !seen_tools.contains(&tool) {
                        seen_tools.push(tool);
                        entry.sessions += 1;
                    }
                }
            }
            // Repeated inputs: the first call with each hash, and the repeats after it.
            let mut first: FxHashMap<&str, f64> = FxHashMap::default();
            let mut repeated_tools: Vec<&str> = Vec::new();
            for c in s.calls.iter() {
                let (Some(tool), Some(hash)) = (c.tool(), c.input_hash()) else {
                    continue;
                };
                match first.get(hash) {
                    None => {
                        first.insert(hash, c.bytes);
                    }
                    Some(&bytes) => {
                        let r = repeats.entry(tool.to_string()).or_insert_with(|| Repeats {
                            tool: tool.to_string(),
                            calls: 0,
                            same_size: 0,
                            sessions: 0,
                        });
                        r.calls += 1;
                        r.same_size += usize::from(bytes == c.bytes);
                        if !repeated_tools.contains(&tool) {
                            repeated_tools.push(tool);
                            r.sessions += 1;
                        }
                    }
                }
            }
            let providers = Providers::of(s);
            let on_openai = providers
                .seen
                .iter()
                .any(|p| p.provider == Provider::OpenAi);
            // Pauses against the session's own cache TTL.
            match &s.cache {
                None => uncached += 1,
                Some(cache) => {
                    let over: Vec<f64> = s
                        .calls
                        .iter()
                        .skip(1)
                        .map(|c| c.gap_s)
                        .filter(|&g| g > cache.ttl_s)
                        .collect();
                    add_pauses(&mut pauses, cache.ttl_s, &over);
                    if on_openai {
                        openai.add_pauses(&providers, &over);
                    } else {
                        add_pauses(&mut anthropic_pauses, cache.ttl_s, &over);
                    }
                }
            }
            // The context each call reads, at the session's nominal point.
            let run = Run::baseline(&s.calls, &s.terms);
            let mut context = s.base_tokens;
            let into = if on_openai {
                openai.sessions += 1;
                openai_bases.push(s.base_tokens);
                &mut openai.contexts
            } else {
                bases.push(s.base_tokens);
                &mut contexts
            };
            for (i, slot) in run.iter().enumerate() {
                if i > 0 {
                    into.push(context);
                }
                context += slot.size(s.bytes_per_token);
            }
            if let Some(bytes) = s.import.as_ref().and_then(|i| i.compaction_summary_bytes) {
                compactions.push(Compaction {
                    session: s.name.clone(),
                    summary_bytes: bytes,
                    bytes_per_token: s.bytes_per_token,
                    bytes_per_token_source: Sources::of(s, false, false).bytes_per_token,
                });
            }
            for part in &s.base_parts {
                let using = s.calls.iter().filter(|c| part.used_by(c)).count();
                let p = parts.entry(part.name.clone()).or_insert_with(|| PartUse {
                    part: part.name.clone(),
                    tokens: part.tokens,
                    source: part.source.clone(),
                    sessions: 0,
                    sessions_using: 0,
                    calls: 0,
                    calls_using: 0,
                    tools: part.tools.len(),
                    deferred: part.deferred,
                });
                p.sessions += 1;
                p.sessions_using += usize::from(using > 0);
                p.calls += s.calls.len();
                p.calls_using += using;
            }
        }
        pauses.sort_by(|a, b| a.ttl_s.total_cmp(&b.ttl_s));
        anthropic_pauses.sort_by(|a, b| a.ttl_s.total_cmp(&b.ttl_s));
        contexts.sort_by(f64::total_cmp);
        openai.contexts.sort_by(f64::total_cmp);
        let p90 = |mut b: Vec<f64>| {
            b.sort_by(f64::total_cmp);
            crate::history::percentile::nearest_rank(&b, 90.0).unwrap_or(0.0)
        };
        openai.base_p90 = p90(openai_bases);
        Evidence {
            sessions: sessions.len(),
            calls,
            tools: tools
                .into_iter()
                .map(|(tool, o)| {
                    let mut sizes = if o.searches > 0 { o.tool_kind } else { o.sizes };
                    sizes.sort_by(f64::total_cmp);
                    ToolOutputs {
                        tool,
                        sizes,
                        sessions: o.sessions,
                        searches: o.searches,
                        pinned: o.pinned,
                    }
                })
                .collect(),
            repeats: repeats.into_values().collect(),
            pauses,
            uncached_sessions: uncached,
            contexts,
            base_p90: p90(bases),
            anthropic_pauses,
            openai,
            compactions,
            parts: parts.into_values().collect(),
        }
    }
}

/// Adds a session's pauses over its cache TTL `ttl_s` to `pauses` (one entry per TTL).
fn add_pauses(pauses: &mut Vec<Pauses>, ttl_s: f64, over: &[f64]) {
    let at = match pauses.iter().position(|p| p.ttl_s == ttl_s) {
        Some(at) => at,
        None => {
            pauses.push(Pauses {
                ttl_s,
                sessions_with_ttl: 0,
                over_ttl: 0,
                within_hour: 0,
                sessions: 0,
            });
            pauses.len() - 1
        }
    };
    let p = &mut pauses[at];
    p.sessions_with_ttl += 1;
    p.over_ttl += over.len();
    p.within_hour += over.iter().filter(|&&g| g <= HOUR_S).count();
    p.sessions += usize::from(!over.is_empty());
}

impl OpenAi {
    /// Adds an OpenAI session's pauses over its TTL, where its models offer extended
    /// retention; else notes the models that do not.
    fn add_pauses(&mut self, providers: &Providers, over: &[f64]) {
        let models: Vec<&String> = providers.seen.iter().flat_map(|s| &s.models).collect();
        if models.is_empty() {
            self.sessions_without_model += 1;
            return;
        }
        let mut offers = true;
        for m in models {
            if let Some(why) = provider::no_retention(m) {
                offers = false;
                if !self.without_retention.iter().any(|(x, _)| x == m) {
                    self.without_retention.push((m.clone(), why));
                }
            }
        }
        if offers {
            self.over_ttl += over.len();
            self.within_day += over
                .iter()
                .filter(|&&g| g <= provider::RETENTION_24H_S)
                .count();
            self.sessions_over_ttl += usize::from(!over.is_empty());
        }
    }
}
