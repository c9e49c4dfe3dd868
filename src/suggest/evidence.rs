//! What the sessions show that an edit could act on (docs/model.md §9, "Suggested edits"):
//! each tool's output sizes, repeated inputs, pauses against the cache TTL, the contexts
//! the calls read, the compactions the logs recorded and the base's named parts. Pure
//! arithmetic over the scenarios; the rules in `rules` turn it into candidate edits.

use crate::history::files::Loaded;
use crate::report::Sources;
use crate::run::Run;
use crate::scenario::Scenario;
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
    /// Of them, those without a `[cache]`.
    pub uncached: usize,
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
        let mut g = Gatherer::default();
        for loaded in sessions {
            g.add(&loaded.scenario);
        }
        g.finish()
    }
}

/// By tool: the sizes of its replaceable results, those of kind `tool` alone, the
/// sessions, the searches and the pinned calls.
#[derive(Default)]
struct Outputs {
    sizes: Vec<f64>,
    tool_kind: Vec<f64>,
    sessions: usize,
    searches: usize,
    pinned: usize,
}

/// The evidence gathered one session at a time, in any order, each session dropped once
/// added: what depends on the order (the compactions' list, a part's figures as its first
/// declaring session gives them, the models without retention in the order seen) is kept
/// with the session's name and put in name order by [`Gatherer::finish`], so the evidence
/// is the one [`Evidence::gather`] gives over the sessions in name order.
#[derive(Default)]
pub struct Gatherer {
    tools: BTreeMap<String, Outputs>,
    repeats: BTreeMap<String, Repeats>,
    pauses: Vec<Pauses>,
    anthropic_pauses: Vec<Pauses>,
    uncached: usize,
    contexts: Vec<f64>,
    // Each session's B, to place compaction thresholds above nearly all of them: the
    // largest alone let one session after a reset (B of 117,672) push every threshold
    // to 150,000.
    bases: Vec<f64>,
    openai_bases: Vec<f64>,
    openai: OpenAi,
    /// The session (by name) that first named each model of `openai.without_retention`,
    /// with the model's place among that session's.
    without_retention_first: Vec<(String, usize)>,
    compactions: Vec<Compaction>,
    /// Each part with the session whose figures it carries (the first by name).
    parts: BTreeMap<String, (String, PartUse)>,
    sessions: usize,
    calls: usize,
}

impl Gatherer {
    /// Adds one session's evidence.
    pub fn add(&mut self, s: &Scenario) {
        self.sessions += 1;
        self.calls += s.calls.len();
        // Output sizes, per tool, and which tools this session has.
        let mut seen_tools: Vec<&str> = Vec::new();
        for c in s.calls.iter() {
            if let Some(tool) = c.tool().filter(|_| c.bytes > 0.0) {
                let entry = self.tools.entry(tool.to_string()).or_default();
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
                    let r = self
                        .repeats
                        .entry(tool.to_string())
                        .or_insert_with(|| Repeats {
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
            None => {
                self.uncached += 1;
                self.openai.uncached += usize::from(on_openai);
            }
            Some(cache) => {
                let over: Vec<f64> = s
                    .calls
                    .iter()
                    .skip(1)
                    .map(|c| c.gap_s)
                    .filter(|&g| g > cache.ttl_s)
                    .collect();
                add_pauses(&mut self.pauses, cache.ttl_s, &over);
                if on_openai {
                    let before = self.openai.without_retention.len();
                    let models = self.openai.add_pauses(&providers, &over);
                    // A model seen before in a session later by name is moved to this one.
                    for (i, m) in models.iter().enumerate() {
                        let Some(at) = self
                            .openai
                            .without_retention
                            .iter()
                            .position(|(x, _)| x == *m)
                        else {
                            continue;
                        };
                        if at >= before {
                            self.without_retention_first.push((s.name.clone(), i));
                        } else if s.name < self.without_retention_first[at].0 {
                            self.without_retention_first[at] = (s.name.clone(), i);
                        }
                    }
                } else {
                    add_pauses(&mut self.anthropic_pauses, cache.ttl_s, &over);
                }
            }
        }
        // The context each call reads, at the session's nominal point.
        let run = Run::baseline(&s.calls, &s.terms);
        let mut context = s.base_tokens;
        let into = if on_openai {
            self.openai.sessions += 1;
            self.openai_bases.push(s.base_tokens);
            &mut self.openai.contexts
        } else {
            self.bases.push(s.base_tokens);
            &mut self.contexts
        };
        for (i, slot) in run.iter().enumerate() {
            if i > 0 {
                into.push(context);
            }
            context += slot.size(s.bytes_per_token);
        }
        if let Some(bytes) = s.import.as_ref().and_then(|i| i.compaction_summary_bytes) {
            self.compactions.push(Compaction {
                session: s.name.clone(),
                summary_bytes: bytes,
                bytes_per_token: s.bytes_per_token,
                bytes_per_token_source: Sources::of(s, false, false).bytes_per_token,
            });
        }
        for part in &s.base_parts {
            let using = s.calls.iter().filter(|c| part.used_by(c)).count();
            let own = || PartUse {
                part: part.name.clone(),
                tokens: part.tokens,
                source: part.source.clone(),
                sessions: 0,
                sessions_using: 0,
                calls: 0,
                calls_using: 0,
                tools: part.tools.len(),
                deferred: part.deferred,
            };
            let (first, p) = self
                .parts
                .entry(part.name.clone())
                .or_insert_with(|| (s.name.clone(), own()));
            if s.name < *first {
                // The figures are the first declaring session's by name; the counts go on.
                let mine = own();
                *first = s.name.clone();
                p.tokens = mine.tokens;
                p.source = mine.source;
                p.tools = mine.tools;
                p.deferred = mine.deferred;
            }
            p.sessions += 1;
            p.sessions_using += usize::from(using > 0);
            p.calls += s.calls.len();
            p.calls_using += using;
        }
    }

    /// The evidence of every session added.
    pub fn finish(self) -> Evidence {
        let Gatherer {
            tools,
            repeats,
            mut pauses,
            mut anthropic_pauses,
            uncached,
            mut contexts,
            bases,
            openai_bases,
            mut openai,
            without_retention_first,
            mut compactions,
            parts,
            sessions,
            calls,
        } = self;
        pauses.sort_by(|a, b| a.ttl_s.total_cmp(&b.ttl_s));
        anthropic_pauses.sort_by(|a, b| a.ttl_s.total_cmp(&b.ttl_s));
        contexts.sort_by(f64::total_cmp);
        openai.contexts.sort_by(f64::total_cmp);
        // In the order a pass by name would have met them.
        let mut models: Vec<_> = without_retention_first
            .into_iter()
            .zip(std::mem::take(&mut openai.without_retention))
            .collect();
        models.sort_by(|a, b| a.0.cmp(&b.0));
        openai.without_retention = models.into_iter().map(|(_, m)| m).collect();
        compactions.sort_by(|a, b| a.session.cmp(&b.session));
        let p90 = |mut b: Vec<f64>| {
            b.sort_by(f64::total_cmp);
            crate::history::percentile::nearest_rank(&b, 90.0).unwrap_or(0.0)
        };
        openai.base_p90 = p90(openai_bases);
        Evidence {
            sessions,
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
            parts: parts.into_values().map(|(_, p)| p).collect(),
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
    /// retention; else notes the models that do not. Returns those models (each once, in
    /// the session's order).
    fn add_pauses<'a>(&mut self, providers: &'a Providers, over: &[f64]) -> Vec<&'a String> {
        let models: Vec<&String> = providers.seen.iter().flat_map(|s| &s.models).collect();
        let mut without = Vec::new();
        if models.is_empty() {
            self.sessions_without_model += 1;
            return without;
        }
        let mut offers = true;
        for m in models {
            if let Some(why) = provider::no_retention(m) {
                offers = false;
                if !self.without_retention.iter().any(|(x, _)| x == m) {
                    self.without_retention.push((m.clone(), why));
                }
                if !without.contains(&m) {
                    without.push(m);
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
        without
    }
}
