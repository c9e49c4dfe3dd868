//! A history's CSV files, numbers unrounded:
//! - `sessions.csv`: one row per session and edit, the session's own figures;
//! - `summary.csv`: one row per edit, the aggregate and the spread over sessions;
//! - `sweep.csv`: one row per factor point and edit, the summed savings there;
//! - `whatif.csv` (only with a what-if edit): one row per session and what-if edit;
//! - `groups.csv` (only with `--group-by`): one row per group and edit;
//! - `refetch.csv` (only with an edit that removes results): one row per such edit and
//!   re-fetch rate, the summed savings there (docs/model.md §11);
//! - `flips.csv`: every pair of edits whose aggregate order some sessions or factor points
//!   reverse, with how many and the first named.

use super::groups::GroupsReport;
use super::{HistoryReport, SessionFigures};
use crate::output::csv::csv_error;
use serde::Serialize;
use std::io::{self, Write};

/// A row of `sessions.csv`.
#[derive(Serialize)]
struct SessionRow<'a> {
    session: &'a str,
    file: &'a str,
    calls: usize,
    base_tokens: f64,
    base_tokens_source: &'a str,
    bytes_per_token: f64,
    bytes_per_token_source: &'a str,
    baseline_total_tokens: f64,
    baseline_cost: f64,
    edit: &'a str,
    rank: usize,
    total_tokens: f64,
    edited_calls: usize,
    saved_tokens: f64,
    saved_pct: f64,
    equivalent_calls: f64,
    cost_saved: f64,
    cost_saved_pct: f64,
    dollars_saved: Option<f64>,
    /// Rules of the edit that selected no call here, joined by `; `.
    selected_nothing: String,
    /// The edit's base change is larger than this session's B: it removes what there is
    /// (B = 0 here).
    base_clamped: bool,
    /// Points of the factor grid where it is.
    base_clamped_points: usize,
    /// The session's simulated baseline dollars, where priced.
    baseline_dollars: Option<f64>,
    /// Measured beside simulated (docs/model.md §6), where the session carries usage:
    /// input tokens over its measured calls, dollars, the cost difference in percent, and
    /// the fit's R² (how far the simulation is from the session).
    measured_input_tokens: Option<f64>,
    simulated_input_tokens: Option<f64>,
    measured_dollars: Option<f64>,
    simulated_dollars: Option<f64>,
    cost_difference_pct: Option<f64>,
    r_squared: Option<f64>,
}

/// Writes `sessions.csv` of a history held in memory: sessions by name, edits in the edits
/// file's order.
pub fn write_sessions(out: &mut dyn Write, report: &HistoryReport) -> io::Result<()> {
    let names: Vec<String> = names_by_index(report)
        .into_iter()
        .map(String::from)
        .collect();
    let mut rows = SessionRows::new(out, &names);
    for s in &report.sessions {
        rows.add(s)?;
    }
    rows.finish()
}

/// `sessions.csv` written session by session, as a streamed history comes.
pub struct SessionRows<W: Write> {
    w: csv::Writer<W>,
    /// Edit names by index.
    names: Vec<String>,
}

impl<W: Write> SessionRows<W> {
    /// Rows for the edits `names` (by index) into `out`.
    pub fn new(out: W, names: &[String]) -> SessionRows<W> {
        SessionRows {
            w: csv::Writer::from_writer(out),
            names: names.to_vec(),
        }
    }

    /// The next session's rows, one per edit.
    pub fn add(&mut self, s: &SessionFigures) -> io::Result<()> {
        let w = &mut self.w;
        let m = s.measured.as_ref();
        for (e, name) in s.edits.iter().zip(&self.names) {
            w.serialize(SessionRow {
                session: &s.name,
                file: &s.file,
                calls: s.calls,
                base_tokens: s.base_tokens,
                base_tokens_source: &s.sources.base_tokens,
                bytes_per_token: s.bytes_per_token,
                bytes_per_token_source: &s.sources.bytes_per_token,
                baseline_total_tokens: s.baseline_total_tokens,
                baseline_cost: s.baseline_cost,
                edit: name,
                rank: e.rank,
                total_tokens: e.total_tokens,
                edited_calls: e.calls,
                saved_tokens: e.saved_tokens,
                saved_pct: e.saved_pct,
                equivalent_calls: e.equivalent_calls,
                cost_saved: e.cost_saved,
                cost_saved_pct: e.cost_saved_pct,
                dollars_saved: e.dollars_saved,
                selected_nothing: e.selected_nothing.join("; "),
                base_clamped: e.base_clamped,
                base_clamped_points: e.base_clamped_points,
                baseline_dollars: s.baseline_dollars,
                measured_input_tokens: m.map(|m| m.measured_input_tokens),
                simulated_input_tokens: m.map(|m| m.simulated_input_tokens),
                measured_dollars: m.and_then(|m| m.measured_dollars),
                simulated_dollars: m.and_then(|m| m.simulated_dollars),
                cost_difference_pct: m.and_then(|m| m.cost_difference_pct),
                r_squared: m.and_then(|m| m.r_squared),
            })
            .map_err(csv_error)?;
        }
        Ok(())
    }

    /// Flushes the rows.
    pub fn finish(mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Edit names by edit index (the edits file's order, which the sessions keep); the
/// report's own list is ranked.
fn names_by_index(report: &HistoryReport) -> Vec<&str> {
    let mut names = vec![""; report.edits.len()];
    for e in &report.edits {
        if let Some(slot) = names.get_mut(e.index) {
            *slot = &e.name;
        }
    }
    names
}

/// A row of `summary.csv`.
#[derive(Serialize)]
struct SummaryRow<'a> {
    rank: usize,
    edit: &'a str,
    sessions: usize,
    saved_tokens: f64,
    saved_pct: f64,
    equivalent_calls: f64,
    session_pct_min: f64,
    session_pct_p10: f64,
    session_pct_median: f64,
    session_pct_p90: f64,
    session_pct_max: f64,
    /// Of the sessions some edit changes the reread total of.
    sessions_first: usize,
    /// Sessions no edit changes, in reread tokens or cost (the same on every row).
    sessions_unchanged: usize,
    /// Sessions some edit changes only the cost of (the same on every row): with the
    /// unchanged ones, what first in leaves out.
    sessions_cost_only: usize,
    sessions_saving: usize,
    sessions_adding: usize,
    sessions_selected_nothing: usize,
    sessions_base_clamped: usize,
    sessions_base_clamped_in_sweep: usize,
    cost_saved: f64,
    cost_saved_pct: f64,
    cost_rank: usize,
    dollars_saved: Option<f64>,
    priced_sessions: usize,
    baseline_total_tokens: f64,
    baseline_calls: usize,
    baseline_cost: f64,
}

/// A row of `refetch.csv` (docs/model.md §11): one edit that removes results at one
/// re-fetch rate, summed over the sessions.
#[derive(Serialize)]
struct RefetchRow<'a> {
    edit: &'a str,
    /// The share of removed results fetched again.
    refetch: f64,
    saved_tokens: f64,
    /// Input-token equivalents.
    cost_saved: f64,
    /// Over the sessions priced; empty where none is.
    dollars_saved: Option<f64>,
    /// `dollars` or `cost`: what `saves` and `stops_saving_at` are on.
    measure: &'static str,
    /// Whether the summed saving on `measure` is above 0 at this rate.
    saves: bool,
    /// The lowest swept rate at which it is ≤ 0 (the same on each of the edit's rows);
    /// empty: it saves at every swept rate.
    stops_saving_at: Option<f64>,
    sessions: usize,
    /// Σ results the edit removes at each session's nominal point.
    results_removed: usize,
}

/// Writes `refetch.csv`: for each of `edits` (name and figures, in the order given) that
/// removes results, one row per swept re-fetch rate, ascending.
pub fn write_refetch(
    out: &mut dyn Write,
    edits: &[(&str, &super::refetch::RefetchAggregate)],
) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    for (name, a) in edits {
        for r in &a.by_rate {
            w.serialize(RefetchRow {
                edit: name,
                refetch: r.rate,
                saved_tokens: r.saved_tokens,
                cost_saved: r.cost_saved,
                dollars_saved: r.dollars_saved,
                measure: a.measure,
                saves: a.saved(r) > 0.0,
                stops_saving_at: a.stops_saving_at,
                sessions: a.sessions,
                results_removed: a.removed,
            })
            .map_err(csv_error)?;
        }
    }
    w.flush()
}

/// The edits of `report` that remove results, ranked, with their re-fetch figures: what
/// `refetch.csv` holds (empty: the file is not written).
pub fn refetch_edits(report: &HistoryReport) -> Vec<(&str, &super::refetch::RefetchAggregate)> {
    report
        .edits
        .iter()
        .filter_map(|e| Some((e.name.as_str(), e.refetch.as_ref()?)))
        .collect()
}

/// A row of `flips.csv`.
#[derive(Serialize)]
struct FlipRow<'a> {
    /// `sessions` or `points` (of the factor sweep).
    across: &'static str,
    /// Saves more in the aggregate.
    edit: &'a str,
    /// Saves more where it flips.
    saves_more: &'a str,
    /// Where it flips, and of how many.
    count: usize,
    of: usize,
    /// The first five sessions by name (sessions.csv has every session's savings), or
    /// every point, joined by `; `.
    first_where: String,
}

/// Writes `flips.csv`: every pair that flips across sessions, then across the factor
/// sweep's points, in the report's order.
pub fn write_flips(out: &mut dyn Write, report: &HistoryReport) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let kinds = [
        ("sessions", &report.across_sessions),
        ("points", &report.across_assumptions.agreement),
    ];
    for (across, a) in kinds {
        for f in &a.flips {
            w.serialize(FlipRow {
                across,
                edit: &f.a,
                saves_more: &f.b,
                count: f.count,
                of: a.of,
                first_where: f.where_.join("; "),
            })
            .map_err(csv_error)?;
        }
    }
    // A header even without a row, so the file says what it would hold.
    if report.across_sessions.flips.is_empty()
        && report.across_assumptions.agreement.flips.is_empty()
    {
        w.write_record(["across", "edit", "saves_more", "count", "of", "first_where"])
            .map_err(csv_error)?;
    }
    w.flush()
}

/// Writes `summary.csv`: one row per edit, ranked by aggregate saving.
pub fn write_summary(out: &mut dyn Write, report: &HistoryReport) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let b = &report.baseline;
    for e in &report.edits {
        let d = &e.per_session_pct;
        w.serialize(SummaryRow {
            rank: e.rank,
            edit: &e.name,
            sessions: b.sessions,
            saved_tokens: e.saved_tokens,
            saved_pct: e.saved_pct,
            equivalent_calls: e.equivalent_calls,
            session_pct_min: d.min,
            session_pct_p10: d.p10,
            session_pct_median: d.median,
            session_pct_p90: d.p90,
            session_pct_max: d.max,
            sessions_first: e.sessions_first,
            sessions_unchanged: report.unchanged.sessions,
            sessions_cost_only: report.unchanged.cost_only,
            sessions_saving: e.sessions_saving,
            sessions_adding: e.sessions_adding,
            sessions_selected_nothing: e.sessions_selected_nothing,
            sessions_base_clamped: e.sessions_base_clamped,
            sessions_base_clamped_in_sweep: e.sessions_base_clamped_in_sweep,
            cost_saved: e.cost_saved,
            cost_saved_pct: e.cost_saved_pct,
            cost_rank: e.cost_rank,
            dollars_saved: e.dollars_saved,
            priced_sessions: e.priced_sessions,
            baseline_total_tokens: b.total_tokens,
            baseline_calls: b.calls,
            baseline_cost: b.cost,
        })
        .map_err(csv_error)?;
    }
    w.flush()
}

/// A row of `sweep.csv`.
#[derive(Serialize)]
struct SweepRow<'a> {
    base_factor: f64,
    bytes_per_token_factor: f64,
    nominal: bool,
    edit: &'a str,
    baseline_total_tokens: f64,
    saved_tokens: f64,
    saved_pct: f64,
    rank: usize,
}

/// Writes `sweep.csv`: grid order, edits in the edits file's order.
pub fn write_sweep(out: &mut dyn Write, report: &HistoryReport) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let names = names_by_index(report);
    for p in &report.across_assumptions.points {
        for (i, name) in names.iter().enumerate() {
            w.serialize(SweepRow {
                base_factor: p.base_factor,
                bytes_per_token_factor: p.bytes_per_token_factor,
                nominal: p.base_factor == 1.0 && p.bytes_per_token_factor == 1.0,
                edit: name,
                baseline_total_tokens: p.baseline_total_tokens,
                saved_tokens: p.saved_tokens[i],
                saved_pct: p.saved_pct[i],
                rank: p.ranks[i],
            })
            .map_err(csv_error)?;
        }
    }
    w.flush()
}

/// A row of `whatif.csv`: one per session and what-if edit, and per base part it drops or
/// defers (docs/model.md §9).
#[derive(Serialize)]
struct WhatIfRow<'a> {
    session: &'a str,
    edit: &'a str,
    priced_as: Option<&'a str>,
    tokens_factor: Option<f64>,
    cost_scale: f64,
    cache_read: Option<f64>,
    cache_write: Option<f64>,
    cache_ttl_s: Option<f64>,
    cache_min_tokens: Option<f64>,
    trace: &'static str,
    trace_unchanged: bool,
    part: Option<&'a str>,
    part_action: Option<&'static str>,
    part_tokens: Option<f64>,
    calls_using_part: Option<usize>,
    call_ids: Option<String>,
    tool_searches: usize,
}

/// Whether any edit of the history is a what-if edit (then `whatif.csv` is written).
pub fn has_what_if(report: &HistoryReport) -> bool {
    report.edits.iter().any(|e| e.what_if.is_some())
}

/// Writes `whatif.csv` of a history held in memory: sessions by name, what-if edits in the
/// edits file's order.
pub fn write_whatif(out: &mut dyn Write, report: &HistoryReport) -> io::Result<()> {
    let names: Vec<String> = names_by_index(report)
        .into_iter()
        .map(String::from)
        .collect();
    let mut w = csv::Writer::from_writer(out);
    for s in &report.sessions {
        whatif_rows(&mut w, s, &names)?;
    }
    w.flush()
}

/// Whether `s` has a what-if row: then a streamed history writes `whatif.csv`.
pub fn has_whatif_rows(s: &SessionFigures) -> bool {
    s.edits.iter().any(|e| e.what_if.is_some())
}

/// Writes the `whatif.csv` rows of session `s` (edits `names` by index) to `w`.
pub fn whatif_rows<W: Write>(
    w: &mut csv::Writer<W>,
    s: &SessionFigures,
    names: &[String],
) -> io::Result<()> {
    for (e, name) in s.edits.iter().zip(names) {
        let Some(what_if) = &e.what_if else { continue };
        for row in crate::output::csv::whatif_rows(name, what_if) {
            w.serialize(WhatIfRow {
                session: &s.name,
                edit: row.edit,
                priced_as: row.priced_as,
                tokens_factor: row.tokens_factor,
                cost_scale: row.cost_scale,
                cache_read: row.cache_read,
                cache_write: row.cache_write,
                cache_ttl_s: row.cache_ttl_s,
                cache_min_tokens: row.cache_min_tokens,
                trace: row.trace,
                trace_unchanged: row.trace_unchanged,
                part: row.part,
                part_action: row.part_action,
                part_tokens: row.part_tokens,
                calls_using_part: row.calls_using_part,
                call_ids: row.call_ids,
                tool_searches: row.tool_searches,
            })
            .map_err(csv_error)?;
        }
    }
    Ok(())
}

/// A row of `groups.csv`.
#[derive(Serialize)]
struct GroupRow<'a> {
    group_by: &'a str,
    group: &'a str,
    sessions: usize,
    sessions_unchanged: usize,
    sessions_cost_only: usize,
    calls: usize,
    baseline_total_tokens: f64,
    baseline_cost: f64,
    edit: &'a str,
    /// Within the group.
    rank: usize,
    saved_tokens: f64,
    saved_pct: f64,
    cost_saved: f64,
    cost_saved_pct: f64,
    sessions_first: usize,
    sessions_saving: usize,
    sessions_adding: usize,
    median_session_pct: f64,
}

/// Writes `groups.csv` (with `--group-by`): groups by name, edits in the edits file's order.
pub fn write_groups(out: &mut dyn Write, groups: &GroupsReport) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    for g in &groups.groups {
        for e in &g.edits {
            w.serialize(GroupRow {
                group_by: groups.by.key(),
                group: &g.group,
                sessions: g.sessions,
                sessions_unchanged: g.sessions_unchanged,
                sessions_cost_only: g.sessions_cost_only,
                calls: g.calls,
                baseline_total_tokens: g.baseline_total_tokens,
                baseline_cost: g.baseline_cost,
                edit: &e.name,
                rank: e.rank,
                saved_tokens: e.saved_tokens,
                saved_pct: e.saved_pct,
                cost_saved: e.cost_saved,
                cost_saved_pct: e.cost_saved_pct,
                sessions_first: e.sessions_first,
                sessions_saving: e.sessions_saving,
                sessions_adding: e.sessions_adding,
                median_session_pct: e.median_session_pct,
            })
            .map_err(csv_error)?;
        }
    }
    w.flush()
}
