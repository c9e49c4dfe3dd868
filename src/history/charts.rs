//! The history report as the charts' input: plain series, nothing to compute in the chart.

use super::HistoryReport;
use crate::chart::history::{EditSpread, HistoryChartInput};

/// What `sessions.svg` and `aggregate.svg` show of `report`.
pub fn input(report: &HistoryReport) -> HistoryChartInput {
    let mut edits = vec![String::new(); report.edits.len()];
    for e in &report.edits {
        if let Some(slot) = edits.get_mut(e.index) {
            // A model edit says what it is priced as.
            *slot = e.row_name();
        }
    }
    let rows = report
        .edits
        .iter()
        .map(|e| EditSpread {
            edit: e.index,
            total_pct: e.saved_pct,
            equivalent_calls: e.equivalent_calls,
            p10: e.per_session_pct.p10,
            median: e.per_session_pct.median,
            p90: e.per_session_pct.p90,
            session_pcts: report
                .session_pcts
                .get(e.index)
                .cloned()
                .unwrap_or_default(),
            sessions_first: e.sessions_first,
        })
        .collect();
    HistoryChartInput {
        name: report.name.clone(),
        sessions: report.baseline.sessions,
        sessions_unchanged: report.unchanged.sessions,
        sessions_cost_only: report.unchanged.cost_only,
        edits,
        rows,
    }
}
