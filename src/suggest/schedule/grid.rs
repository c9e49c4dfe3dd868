//! The schedules the search tries (docs/suggest.md, "The schedule search"): a small grid
//! per family, built from the triggers the rules already found in the data (the contexts'
//! percentiles, the API's defaults, the cache TTLs the pauses exceed), so the search needs
//! no evidence of its own.
//!
//! Every schedule is an edit the user's agent or the API can carry out: a client-side
//! clearing (`clear`, docs/model.md §3) with a context, call-count or idle trigger; the
//! API's context editing (`clear_tool_uses_20250919`, which the provider times itself: no
//! `at = "cold"`); a compaction (`compact`, client-side, so it may wait for a cold call).

use super::super::rules::{
    API_CLEAR_KEEP, API_CLEAR_TRIGGER, API_COMPACT_TRIGGER, Family, Parameters, Proposal,
    toml_number,
};
use crate::chart::style::short;
use crate::number::grouped;
use serde::Serialize;

/// The results a client-side clearing keeps (the latest N).
pub const CLEARING_KEEPS: [u64; 3] = [0, 3, 10];
/// The call-count trigger of a clearing: a window that moves every K calls.
pub const CLEARING_EVERY_CALLS: [u64; 1] = [10];
/// Batch sizes, tokens: a clearing that would free fewer does nothing, and waits
/// (`clear_at_least_tokens`; 0 is no batch).
pub const CLEARING_BATCHES: [f64; 2] = [0.0, 20_000.0];
/// The API's context editing: tool uses kept, and its `clear_at_least` batch sizes.
pub const EDITING_KEEPS: [u64; 3] = [1, 3, 5];
pub const EDITING_BATCHES: [f64; 3] = [0.0, 10_000.0, 30_000.0];
/// The keep of the naive clearing: clear at the threshold, keeping this many results.
pub const NAIVE_KEEP: u64 = 3;

/// One schedule of one family.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Schedule {
    pub family: Family,
    /// Short, unique in its family (`above 50k, keep 3, ≥ 20k, at cold`).
    pub label: String,
    /// The edit's action as TOML, as the edits file writes it.
    pub action: String,
    pub parameters: Parameters,
    /// The chart's curve it lies on (the trigger, or cold or not).
    pub series: String,
    /// The family's default: at the threshold, every call it fires, no batch, not at cold.
    pub naive: bool,
}

/// ` ≥ 20k` for a batch size, nothing for none.
fn batch_label(m: f64) -> String {
    if m > 0.0 {
        format!(", ≥ {}", short(m))
    } else {
        String::new()
    }
}

/// The triggers of the family's candidates: context editing's trigger tokens, compaction's
/// thresholds (Anthropic-side and client-side only: OpenAI's server-side compaction has its
/// own key) with their summary, idle clearing's TTLs.
struct Found {
    context: Vec<f64>,
    thresholds: Vec<f64>,
    summary: Option<f64>,
    gaps: Vec<f64>,
}

fn found(p: &Proposal) -> Found {
    let mut f = Found {
        context: Vec::new(),
        thresholds: Vec::new(),
        summary: None,
        gaps: Vec::new(),
    };
    for c in &p.candidates {
        let q = &c.parameters;
        match c.family {
            Family::ContextEditing => f.context.extend(q.trigger_tokens),
            Family::Compaction if !c.action.contains("api") => {
                f.thresholds.extend(q.threshold_tokens);
                f.summary = f.summary.or(q.summary_tokens);
            }
            Family::IdleClearing => f.gaps.extend(q.ttl_s),
            _ => {}
        }
    }
    for v in [&mut f.context, &mut f.thresholds, &mut f.gaps] {
        v.sort_by(f64::total_cmp);
        v.dedup();
    }
    f
}

/// Every schedule of every family, in family order, then trigger, keep, batch, cold.
pub fn grid(p: &Proposal) -> Vec<Schedule> {
    let f = found(p);
    let mut out = clearing(&f);
    out.extend(editing(&f));
    out.extend(compaction(&f));
    out
}

/// A client-side clearing: at each context trigger, every K calls, or after each TTL,
/// × keep × batch × (each time it fires, or only at cold calls; an idle trigger at the
/// TTL is cold already).
fn clearing(f: &Found) -> Vec<Schedule> {
    enum Trigger {
        Context(f64),
        Every(u64),
        Gap(f64),
    }
    let triggers = f
        .context
        .iter()
        .map(|&t| Trigger::Context(t))
        .chain(CLEARING_EVERY_CALLS.iter().map(|&k| Trigger::Every(k)))
        .chain(f.gaps.iter().map(|&g| Trigger::Gap(g)));
    let naive_at = f.context.first().copied();
    let mut out = Vec::new();
    for trigger in triggers {
        let (key, label, mut parameters) = match trigger {
            Trigger::Context(t) => (
                format!("above_context_tokens = {}", toml_number(t)),
                format!("above {}", short(t)),
                Parameters {
                    trigger_tokens: Some(t),
                    ..Parameters::default()
                },
            ),
            Trigger::Every(k) => (
                format!("every_calls = {k}"),
                format!("every {k} calls"),
                Parameters {
                    every_calls: Some(k),
                    ..Parameters::default()
                },
            ),
            Trigger::Gap(g) => (
                format!("after_gap_s = {}", toml_number(g)),
                format!("after {} s", grouped(g, 0)),
                Parameters {
                    after_gap_s: Some(g),
                    ..Parameters::default()
                },
            ),
        };
        let idle = parameters.after_gap_s.is_some();
        let colds: &[bool] = if idle { &[false] } else { &[false, true] };
        for &cold in colds {
            for keep in CLEARING_KEEPS {
                for m in CLEARING_BATCHES {
                    let mut action = format!("clear = {{ {key}");
                    if keep > 0 {
                        action.push_str(&format!(", keep_results = {keep}"));
                    }
                    if m > 0.0 {
                        action.push_str(&format!(", clear_at_least_tokens = {}", toml_number(m)));
                    }
                    if cold {
                        action.push_str(", at = \"cold\"");
                    }
                    action.push_str(" }");
                    parameters.keep_results = Some(keep);
                    parameters.clear_at_least_tokens = Some(m);
                    parameters.at_cold = cold;
                    let naive = !cold
                        && m == 0.0
                        && keep == NAIVE_KEEP
                        && parameters.trigger_tokens.is_some()
                        && parameters.trigger_tokens == naive_at;
                    out.push(Schedule {
                        family: Family::Clearing,
                        label: format!(
                            "{label}, keep {keep}{}{}",
                            batch_label(m),
                            if cold { ", at cold" } else { "" }
                        ),
                        action,
                        parameters: parameters.clone(),
                        series: if idle {
                            "after a pause".into()
                        } else if cold {
                            "at cold calls only".into()
                        } else {
                            "each time it fires".into()
                        },
                        naive,
                    });
                }
            }
        }
    }
    out
}

/// The API's context editing at each trigger × tool uses kept × `clear_at_least`.
fn editing(f: &Found) -> Vec<Schedule> {
    // Naive: the API's defaults where they fire, else the lowest trigger keeping 3.
    let naive_at = if f.context.contains(&API_CLEAR_TRIGGER) {
        Some(API_CLEAR_TRIGGER)
    } else {
        f.context.first().copied()
    };
    let mut out = Vec::new();
    for &t in &f.context {
        for m in EDITING_BATCHES {
            for keep in EDITING_KEEPS {
                let mut action = format!(
                    "clear = {{ api = \"{}\", trigger_input_tokens = {}, keep_tool_uses = {keep}",
                    crate::scenario::API_CLEAR,
                    toml_number(t)
                );
                if m > 0.0 {
                    action.push_str(&format!(", clear_at_least_tokens = {}", toml_number(m)));
                }
                action.push_str(" }");
                out.push(Schedule {
                    family: Family::ContextEditing,
                    label: format!("at {}, keep {keep}{}", short(t), batch_label(m)),
                    action,
                    parameters: Parameters {
                        trigger_tokens: Some(t),
                        keep_tool_uses: Some(keep),
                        clear_at_least_tokens: Some(m),
                        ..Parameters::default()
                    },
                    series: if m > 0.0 {
                        format!("at least {} freed", short(m))
                    } else {
                        "no batch".into()
                    },
                    naive: m == 0.0 && keep == API_CLEAR_KEEP && Some(t) == naive_at,
                });
            }
        }
    }
    out
}

/// A compaction at each threshold, each time the context passes it or only at cold calls.
fn compaction(f: &Found) -> Vec<Schedule> {
    let Some(s) = f.summary else {
        return Vec::new();
    };
    let naive_at = if f.thresholds.contains(&API_COMPACT_TRIGGER) {
        Some(API_COMPACT_TRIGGER)
    } else {
        f.thresholds.first().copied()
    };
    let mut out = Vec::new();
    for cold in [false, true] {
        for &x in &f.thresholds {
            out.push(Schedule {
                family: Family::Compaction,
                label: format!("above {}{}", short(x), if cold { ", at cold" } else { "" }),
                action: format!(
                    "compact = {{ above_context_tokens = {}, summary_tokens = {}{} }}",
                    toml_number(x),
                    toml_number(s),
                    if cold { ", at = \"cold\"" } else { "" }
                ),
                parameters: Parameters {
                    threshold_tokens: Some(x),
                    summary_tokens: Some(s),
                    at_cold: cold,
                    ..Parameters::default()
                },
                series: if cold {
                    "at cold calls"
                } else {
                    "when past it"
                }
                .into(),
                naive: !cold && Some(x) == naive_at,
            });
        }
    }
    out
}
