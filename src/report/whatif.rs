//! What a what-if edit of docs/model.md §9 (`cache`, `model`, `base = { drop | defer }`)
//! did to one run, as every output shows it: the model it is priced as, the cache terms it
//! runs under, the trace kind it left alone, the base parts it drops or defers and the
//! calls that use their tools.

use crate::evaluate::{Study, Subject};
use crate::number::{decimal, grouped, plural};
use crate::scenario::{CacheSpec, TraceKind};
use crate::whatif::PartUse;
use serde::{Deserialize, Serialize};

/// Calls named per part in a sentence (the JSON and `whatif.csv` name them all).
pub const NAMED_CALLS: usize = 10;

/// Said with every model edit.
pub const BEHAVIOUR: &str = "the simulation changes cost and context, not the model's behaviour: the same calls with the same results, priced and counted as if the other model had read them";

/// A cache's terms, as reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheTermsReport {
    pub read: f64,
    pub write: f64,
    pub ttl_s: f64,
    pub min_tokens: f64,
    /// The preset or model the terms came from, with its source.
    pub preset: Option<String>,
}

impl CacheTermsReport {
    fn of(c: &CacheSpec) -> CacheTermsReport {
        CacheTermsReport {
            read: c.read,
            write: c.write,
            ttl_s: c.ttl_s,
            min_tokens: c.min_tokens,
            preset: c.preset.clone(),
        }
    }

    /// `read 0.1×, write 2×, TTL 3,600 s, min 1,024 tokens`.
    pub fn terms(&self) -> String {
        format!(
            "read {}×, write {}×, TTL {} s, min {} tokens",
            decimal(self.read),
            decimal(self.write),
            grouped(self.ttl_s, 0),
            grouped(self.min_tokens, 0)
        )
    }
}

/// One what-if edit's effect on one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhatIfReport {
    /// The model the run is priced as (a `model` step).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priced_as: Option<String>,
    /// f: the same bytes give f times the tokens (a `model` step's tokens factor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_factor: Option<f64>,
    /// The run's dollar prices' source, when a model step set them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// The run's input price over the scenario's: its cost, in its own input-token
    /// equivalents, times this is in the scenario's.
    pub cost_scale: f64,
    /// The cache terms the run is priced under, when a step changed them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheTermsReport>,
    /// The run's trace kind, as a cache edit's `traces` names it.
    pub trace: TraceKind,
    /// Whether a cache step left this run unchanged because its trace kind is not listed.
    pub trace_unchanged: bool,
    /// Base parts dropped or deferred, with the calls that use their tools.
    pub parts: Vec<PartUse>,
    /// Tool-search requests added (one per deferred part whose tools are used).
    pub tool_searches: usize,
    /// The above in sentences, for people.
    pub lines: Vec<String>,
}

impl WhatIfReport {
    /// The report of `subject`'s what-if steps; None for an edit without any.
    pub fn of(study: &Study, subject: &Subject) -> Option<WhatIfReport> {
        let w = &subject.whatif;
        if w.is_none() {
            return None;
        }
        let s = study.scenario;
        let trace = TraceKind::of(s.import.as_ref());
        let pricing = w.pricing.as_ref();
        let changed_cache = pricing
            .and_then(|p| p.main().cache.as_ref())
            .filter(|c| Some(*c) != s.cache.as_ref());
        let moved = w.priced_as.as_ref().and_then(|(name, _)| {
            pricing.and_then(|p| p.models.iter().find(|m| m.model.as_ref() == Some(name)))
        });
        let mut report = WhatIfReport {
            priced_as: w.priced_as.as_ref().map(|(name, selected)| match selected {
                true => format!("{name}, the calls it selects"),
                false => name.clone(),
            }),
            tokens_factor: w.tokens_factor,
            price_source: moved
                .and_then(|m| m.price.as_ref())
                .map(|p| p.source.clone()),
            cost_scale: subject.cost_scale(),
            cache: changed_cache.map(CacheTermsReport::of),
            trace,
            trace_unchanged: w.trace_unchanged.is_some(),
            parts: w.parts.clone(),
            tool_searches: w.searches.len(),
            lines: Vec::new(),
        };
        report.lines = lines(study, subject, &report);
        Some(report)
    }

    /// `newer tokenizer (priced as claude-sonnet-4-6)`: the name as a row shows it.
    pub fn row_name(&self, name: &str) -> String {
        match &self.priced_as {
            Some(m) => format!("{name} (priced as {m})"),
            None => name.to_string(),
        }
    }
}

/// Up to [`NAMED_CALLS`] names, then "and N more".
pub fn named(names: &[String]) -> String {
    let more = names.len().saturating_sub(NAMED_CALLS);
    let mut list: Vec<String> = names.iter().take(NAMED_CALLS).cloned().collect();
    if more > 0 {
        list.push(format!("and {} more", grouped(more as f64, 0)));
    }
    list.join(", ")
}

fn lines(study: &Study, subject: &Subject, r: &WhatIfReport) -> Vec<String> {
    let s = study.scenario;
    let mut lines = Vec::new();
    if let Some(model) = &r.priced_as {
        let moved = subject.whatif.priced_as.as_ref().and_then(|(name, _)| {
            let p = subject.pricing(study);
            p.models.iter().find(|m| m.model.as_ref() == Some(name))
        });
        let price = moved
            .and_then(|m| m.price.as_ref())
            .map(|p| {
                let output = p
                    .output
                    .map_or_else(String::new, |o| format!(", ${}/M output", decimal(o)));
                format!("${}/M input{output}", decimal(p.input))
            })
            .unwrap_or_default();
        let cache = r
            .cache
            .as_ref()
            .map_or_else(String::new, |c| format!("; cache {}", c.terms()));
        let mut line = format!("priced as {model} ({price}{cache})");
        if let Some(f) = r.tokens_factor {
            line.push_str(&format!(
                ", its tokenizer giving {}× the tokens for the same bytes (ρ {} ÷ {} = {} bytes/token; B and measured tokens as given)",
                decimal(f),
                decimal(s.bytes_per_token),
                decimal(f),
                decimal(s.bytes_per_token / f)
            ));
        }
        if r.cost_scale != 1.0 {
            line.push_str(&format!(
                "; its cost is in the baseline's input-token equivalents (× {} for its input price)",
                decimal(r.cost_scale)
            ));
        }
        lines.push(line);
        lines.push(format!("{BEHAVIOUR}."));
    } else if let Some(c) = &r.cache {
        // The preset's name; its source is in the JSON and the cost line.
        let from = c.preset.as_ref().map_or_else(String::new, |p| {
            format!(" (preset {})", p.split(" (").next().unwrap_or(p))
        });
        lines.push(format!("runs under the prompt cache {}{from}", c.terms()));
    }
    if r.trace_unchanged {
        lines.push(format!(
            "leaves this scenario's cost unchanged: its trace is {}, which the cache edit's traces leave out",
            r.trace.key()
        ));
    }
    for u in &r.parts {
        lines.push(part_line(study, subject, u));
    }
    lines
}

fn part_line(study: &Study, subject: &Subject, u: &PartUse) -> String {
    let calls = &study.scenario.calls;
    let size = format!("{} tokens, {}", grouped(u.tokens, 0), u.source);
    let using = if u.call_ids.is_empty() {
        None
    } else {
        Some(format!(
            "{} {} {}'s tools ({}): {}",
            plural(u.call_ids.len(), "call", "calls"),
            if u.call_ids.len() == 1 { "uses" } else { "use" },
            u.part,
            u.tools_used.join(", "),
            named(&u.call_ids)
        ))
    };
    match (u.stub_tokens, using) {
        (None, Some(using)) => format!(
            "drops {} ({size}) from every request; {using}; they would need another way",
            u.part
        ),
        (None, None) => format!(
            "drops {} ({size}) from every request; no call uses its tools",
            u.part
        ),
        (Some(stub), Some(using)) => {
            let first = u
                .search_before
                .and_then(|p| subject.run.get(p))
                .map_or_else(String::new, |slot| {
                    format!(" ({})", calls.at(slot.origin as usize).id)
                });
            format!(
                "defers {} ({size}; a stub of {} tokens rides along): a tool search before call {}{first} loads its definitions, which every later call reads; {using}",
                u.part,
                grouped(stub, 0),
                u.search_before.map_or(0, |p| p + 1),
            )
        }
        (Some(stub), None) => format!(
            "defers {} ({size}; a stub of {} tokens rides along): no call uses its tools, so its definitions never load",
            u.part,
            grouped(stub, 0)
        ),
    }
}
