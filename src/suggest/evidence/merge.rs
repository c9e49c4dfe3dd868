//! Gatherers of disjoint sets of sessions merged into the gatherer of them all, and
//! written and read as JSON: the evidence of a folder gathered in shards (the order
//! rules of [`Gatherer`] make any split, merged in any order, the one pass by name).

use super::{Gatherer, Pauses};
use crate::error::{Error, Located};

impl Gatherer {
    /// Adds the sessions `other` gathered (none of them among this one's). Counts and
    /// tallies add; what the first session by name gives (a part's figures, where a model
    /// without retention is listed) comes from whichever side has the earlier session.
    pub fn merge(&mut self, other: Gatherer) {
        let Gatherer {
            tools,
            repeats,
            pauses,
            anthropic_pauses,
            uncached,
            contexts,
            bases,
            openai_bases,
            openai_contexts,
            openai,
            without_retention_first,
            compactions,
            parts,
            sessions,
            calls,
        } = other;
        for (tool, o) in tools {
            let mine = self.tools.entry(tool).or_default();
            mine.sizes.merge(o.sizes);
            mine.tool_kind.merge(o.tool_kind);
            mine.sessions += o.sessions;
            mine.searches += o.searches;
            mine.pinned += o.pinned;
        }
        for (tool, r) in repeats {
            match self.repeats.get_mut(&tool) {
                Some(mine) => {
                    mine.calls += r.calls;
                    mine.same_size += r.same_size;
                    mine.sessions += r.sessions;
                }
                None => {
                    self.repeats.insert(tool, r);
                }
            }
        }
        merge_pauses(&mut self.pauses, pauses);
        merge_pauses(&mut self.anthropic_pauses, anthropic_pauses);
        self.uncached += uncached;
        self.contexts.merge(contexts);
        self.bases.merge(bases);
        self.openai_bases.merge(openai_bases);
        self.openai_contexts.merge(openai_contexts);
        let o = &mut self.openai;
        o.sessions += openai.sessions;
        o.uncached += openai.uncached;
        o.over_ttl += openai.over_ttl;
        o.within_day += openai.within_day;
        o.sessions_over_ttl += openai.sessions_over_ttl;
        o.sessions_without_model += openai.sessions_without_model;
        for (model, first) in openai
            .without_retention
            .into_iter()
            .zip(without_retention_first)
        {
            match o.without_retention.iter().position(|(m, _)| *m == model.0) {
                Some(at) => {
                    if first < self.without_retention_first[at] {
                        self.without_retention_first[at] = first;
                    }
                }
                None => {
                    o.without_retention.push(model);
                    self.without_retention_first.push(first);
                }
            }
        }
        self.compactions.extend(compactions);
        for (name, (first, p)) in parts {
            let Some((my_first, mine)) = self.parts.get_mut(&name) else {
                self.parts.insert(name, (first, p));
                continue;
            };
            if first < *my_first {
                *my_first = first;
                mine.tokens = p.tokens;
                mine.source = p.source;
                mine.tools = p.tools;
                mine.deferred = p.deferred;
            }
            mine.sessions += p.sessions;
            mine.sessions_using += p.sessions_using;
            mine.calls += p.calls;
            mine.calls_using += p.calls_using;
        }
        self.sessions += sessions;
        self.calls += calls;
    }

    /// The gatherer as JSON: every figure exact (the tallies' values by their bits).
    pub fn to_json(&self) -> String {
        // Every key is a string and every number finite or a tally's bits, so this cannot
        // fail; were it to, an empty object reads back as an error, not as evidence.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a gatherer [`Gatherer::to_json`] wrote; `shown` names its file in errors.
    ///
    /// Errors: not such JSON (with its line and column), or a list of models without
    /// retention whose first sessions do not match it one for one.
    pub fn from_json(text: &str, shown: &str) -> Result<Gatherer, Error> {
        let g: Gatherer = serde_json::from_str(text).map_err(|e| {
            Located::new(
                shown,
                format!("not the evidence `simulate suggest` gathers: {e}"),
            )
            .at(Some((e.line(), e.column())))
        })?;
        g.checked(shown)
    }

    /// The gatherer, where its parts agree (read as part of a larger JSON); `shown`
    /// names its file in errors.
    ///
    /// Errors: a list of models without retention whose first sessions do not match it
    /// one for one.
    pub fn checked(self, shown: &str) -> Result<Gatherer, Error> {
        if self.openai.without_retention.len() != self.without_retention_first.len() {
            return Err(Located::new(
                shown,
                format!(
                    "{} models without retention but {} first sessions for them: one each (write the file again)",
                    self.openai.without_retention.len(),
                    self.without_retention_first.len()
                ),
            )
            .into());
        }
        Ok(self)
    }
}

/// Adds `other`'s pauses to `pauses`, TTL by TTL (one entry per TTL).
fn merge_pauses(pauses: &mut Vec<Pauses>, other: Vec<Pauses>) {
    for p in other {
        match pauses.iter_mut().find(|q| q.ttl_s == p.ttl_s) {
            Some(q) => {
                q.sessions_with_ttl += p.sessions_with_ttl;
                q.over_ttl += p.over_ttl;
                q.within_hour += p.within_hour;
                q.sessions += p.sessions;
            }
            None => pauses.push(p),
        }
    }
}
