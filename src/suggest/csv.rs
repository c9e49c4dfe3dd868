//! `suggest.csv`: one row per candidate edit, best by cost first, numbers unrounded.

use super::SuggestReport;
use crate::output::csv::csv_error;
use serde::Serialize;
use std::io::{self, Write};

/// A row of `suggest.csv`.
#[derive(Serialize)]
struct Row<'a> {
    cost_rank: usize,
    token_rank: usize,
    edit: &'a str,
    family: &'static str,
    tool: Option<&'a str>,
    percentile: Option<u32>,
    max_bytes: Option<f64>,
    trigger_tokens: Option<f64>,
    keep_tool_uses: Option<u64>,
    threshold_tokens: Option<f64>,
    summary_tokens: Option<f64>,
    ttl_s: Option<f64>,
    part: Option<&'a str>,
    part_action: Option<&'static str>,
    stub_tokens: Option<f64>,
    /// Input-token equivalents, summed over sessions.
    cost_saved: f64,
    cost_saved_pct: f64,
    dollars_saved: Option<f64>,
    priced_sessions: usize,
    /// Est. tokens of reread total, summed.
    saved_tokens: f64,
    saved_pct: f64,
    context_removed_tokens: f64,
    sessions: usize,
    sessions_saving_cost: usize,
    sessions_adding_cost: usize,
    sessions_selected_nothing: usize,
    session_cost_pct_p10: f64,
    session_cost_pct_median: f64,
    session_cost_pct_p90: f64,
    sweep_points: usize,
    sweep_points_saving_cost: usize,
    sweep_cost_rank_best: usize,
    sweep_cost_rank_worst: usize,
    holds_over_sweep: bool,
    /// Whether it removes results the agent read (docs/model.md §11; refetch.csv has its
    /// saving at each swept re-fetch rate).
    removes_results: bool,
    /// The lowest swept re-fetch rate at which its summed saving (dollars where every
    /// session is priced, else cost) is ≤ 0; empty where it saves at every swept rate or
    /// removes no results.
    refetch_stops_saving_at: Option<f64>,
    /// Empty outside the parametric families.
    on_front: Option<bool>,
    evidence: &'a str,
}

/// Writes `suggest.csv`.
pub fn write(out: &mut dyn Write, r: &SuggestReport) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    for s in &r.candidates {
        let p = &s.parameters;
        w.serialize(Row {
            cost_rank: s.cost_rank,
            token_rank: s.token_rank,
            edit: &s.name,
            family: s.family.key(),
            tool: p.tool.as_deref(),
            percentile: p.percentile,
            max_bytes: p.max_bytes,
            trigger_tokens: p.trigger_tokens,
            keep_tool_uses: p.keep_tool_uses,
            threshold_tokens: p.threshold_tokens,
            summary_tokens: p.summary_tokens,
            ttl_s: p.ttl_s,
            part: p.part.as_deref(),
            part_action: p.part_action,
            stub_tokens: p.stub_tokens,
            cost_saved: s.cost_saved,
            cost_saved_pct: s.cost_saved_pct,
            dollars_saved: s.dollars_saved,
            priced_sessions: s.priced_sessions,
            saved_tokens: s.saved_tokens,
            saved_pct: s.saved_pct,
            context_removed_tokens: s.context_removed_tokens,
            sessions: s.sessions,
            sessions_saving_cost: s.sessions_saving_cost,
            sessions_adding_cost: s.sessions_adding_cost,
            sessions_selected_nothing: s.sessions_selected_nothing,
            session_cost_pct_p10: s.per_session_cost_pct.p10,
            session_cost_pct_median: s.per_session_cost_pct.median,
            session_cost_pct_p90: s.per_session_cost_pct.p90,
            sweep_points: s.sweep_points,
            sweep_points_saving_cost: s.sweep_points_saving_cost,
            sweep_cost_rank_best: s.sweep_cost_rank_best,
            sweep_cost_rank_worst: s.sweep_cost_rank_worst,
            holds_over_sweep: s.holds_over_sweep,
            removes_results: s.refetch.is_some(),
            refetch_stops_saving_at: s.refetch.as_ref().and_then(|r| r.stops_saving_at),
            on_front: s.on_front,
            evidence: &s.evidence,
        })
        .map_err(csv_error)?;
    }
    w.flush()
}
