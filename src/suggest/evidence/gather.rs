//! The evidence gathered one session at a time, in any order, and from shards merged in
//! any order: what a pass over every session in name order would have found.

use super::{Compaction, Evidence, HOUR_S, OpenAi, PartUse, Pauses, Repeats, Tally, ToolOutputs};
use crate::report::Sources;
use crate::run::Run;
use crate::scenario::Scenario;
use crate::scenario::provider::{self, Provider, Providers};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// By tool: the sizes of its replaceable results, those of kind `tool` alone, the
/// sessions, the searches and the pinned calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Outputs {
    pub(super) sizes: Tally,
    pub(super) tool_kind: Tally,
    pub(super) sessions: usize,
    pub(super) searches: usize,
    pub(super) pinned: usize,
}

/// The evidence gathered one session at a time, in any order, each session dropped once
/// added: what depends on the order (the compactions' list, a part's figures as its first
/// declaring session gives them, the models without retention in the order seen) is kept
/// with the session's name and put in name order by [`Gatherer::finish`], so the evidence
/// is the one [`Evidence::gather`] gives over the sessions in name order. Gatherers of
/// disjoint sets of sessions merge ([`Gatherer::merge`]) into the gatherer of them all,
/// and are written and read as JSON ([`Gatherer::to_json`], [`Gatherer::from_json`]).
///
/// What it holds grows with the distinct values of the per-call figures (each a
/// [`Tally`]; the contexts kept only as finely as the rules read them, about one value per
/// token of their range: `contexts`), the tools, TTLs, models and parts, and the sessions
/// with a compaction; not with the calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gatherer {
    pub(super) tools: BTreeMap<String, Outputs>,
    pub(super) repeats: BTreeMap<String, Repeats>,
    pub(super) pauses: Vec<Pauses>,
    pub(super) anthropic_pauses: Vec<Pauses>,
    pub(super) uncached: usize,
    pub(super) contexts: Tally,
    // Each session's B, to place compaction thresholds above nearly all of them: the
    // largest alone let one session after a reset (B of 117,672) push every threshold
    // to 150,000.
    pub(super) bases: Tally,
    pub(super) openai_bases: Tally,
    pub(super) openai_contexts: Tally,
    /// The OpenAI sessions' counts and models (its `contexts` and `base_p90` are made by
    /// [`Gatherer::finish`] from the two tallies above).
    pub(super) openai: OpenAi,
    /// The session (by name) that first named each model of `openai.without_retention`,
    /// with the model's place among that session's.
    pub(super) without_retention_first: Vec<(String, usize)>,
    pub(super) compactions: Vec<Compaction>,
    /// Each part with the session whose figures it carries (the first by name).
    pub(super) parts: BTreeMap<String, (String, PartUse)>,
    pub(super) sessions: usize,
    pub(super) calls: usize,
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
                    entry.sizes.add(c.bytes);
                    if c.kind == "tool" {
                        entry.tool_kind.add(c.bytes);
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
            self.openai_bases.add(s.base_tokens);
            &mut self.openai_contexts
        } else {
            self.bases.add(s.base_tokens);
            &mut self.contexts
        };
        for (i, slot) in run.iter().enumerate() {
            if i > 0 {
                into.add(super::contexts::coarse(context));
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
            contexts,
            bases,
            openai_bases,
            openai_contexts,
            mut openai,
            without_retention_first,
            mut compactions,
            parts,
            sessions,
            calls,
        } = self;
        pauses.sort_by(|a, b| a.ttl_s.total_cmp(&b.ttl_s));
        anthropic_pauses.sort_by(|a, b| a.ttl_s.total_cmp(&b.ttl_s));
        // In the order a pass by name would have met them: by the first session naming
        // them, and within it in its order.
        let mut models: Vec<_> = without_retention_first
            .into_iter()
            .zip(std::mem::take(&mut openai.without_retention))
            .collect();
        models.sort_by(|a, b| a.0.cmp(&b.0));
        openai.without_retention = models.into_iter().map(|(_, m)| m).collect();
        compactions.sort_by(|a, b| a.session.cmp(&b.session));
        let p90 = |b: Tally| b.finish().nearest_rank(90.0).unwrap_or(0.0);
        openai.base_p90 = p90(openai_bases);
        openai.contexts = openai_contexts.finish();
        Evidence {
            sessions,
            calls,
            tools: tools
                .into_iter()
                .map(|(tool, o)| ToolOutputs {
                    tool,
                    sizes: if o.searches > 0 { o.tool_kind } else { o.sizes }.finish(),
                    sessions: o.sessions,
                    searches: o.searches,
                    pinned: o.pinned,
                })
                .collect(),
            repeats: repeats.into_values().collect(),
            pauses,
            uncached_sessions: uncached,
            contexts: contexts.finish(),
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
