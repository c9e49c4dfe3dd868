//! The history report as the charts' input: plain series, nothing to compute in the chart.

use super::HistoryReport;
use super::aggregate::{Distribution, EditAggregate};
use crate::chart::history::{
    CostSpread, CostUnit, EditSpread, HistoryChartInput, HistoryCostInput, SavingSpread,
};

/// What `sessions.svg`, `aggregate.svg` and their cost versions show of `report`.
pub fn input(report: &HistoryReport) -> HistoryChartInput {
    let mut edits = vec![String::new(); report.edits.len()];
    for e in &report.edits {
        if let Some(slot) = edits.get_mut(e.index) {
            // A model edit says what it is priced as.
            *slot = e.row_name();
        }
    }
    // An edit that changes the cost alone would be a 0.0 % row on reread tokens.
    let rows = report
        .edits
        .iter()
        .filter(|e| !e.cost_only())
        .map(|e| EditSpread {
            spread: SavingSpread {
                edit: e.index,
                total_pct: e.saved_pct,
                p10: e.per_session_pct.p10,
                median: e.per_session_pct.median,
                p90: e.per_session_pct.p90,
                session_pcts: report
                    .session_pcts
                    .get(e.index)
                    .cloned()
                    .unwrap_or_default(),
            },
            equivalent_calls: e.equivalent_calls,
            sessions_first: e.sessions_first,
        })
        .collect();
    let cost_only_edits: Vec<usize> = report
        .edits
        .iter()
        .filter(|e| e.cost_only())
        .map(|e| e.index)
        .collect();
    // With a prompt cache cost ranks apart from the reread total; an edit on cost alone
    // needs the cost charts even without one (a model edit's other prices).
    let cost = (report.baseline.cached_sessions > 0 || !cost_only_edits.is_empty())
        .then(|| cost_input(report));
    HistoryChartInput {
        name: report.name.clone(),
        sessions: report.baseline.sessions,
        sessions_unchanged: report.unchanged.sessions,
        sessions_cost_only: report.unchanged.cost_only,
        edits,
        rows,
        cost_only_edits,
        cost,
    }
}

/// The cost charts' rows, ranked by cost, in the cost ranking's unit: dollars where every
/// session is priced (docs/model.md §4), else input-token equivalents.
fn cost_input(report: &HistoryReport) -> HistoryCostInput {
    let b = &report.baseline;
    let dollars = b.dollars.filter(|_| b.ranked_by_dollars);
    let (unit, baseline) = match dollars {
        Some(d) => (CostUnit::Dollars, d),
        None => (CostUnit::InputTokenEquivalents, b.cost),
    };
    let mut by_cost: Vec<&EditAggregate> = report.edits.iter().collect();
    // Stable: edits tied on cost keep their token order, as the cost order line does.
    by_cost.sort_by_key(|e| e.cost_rank);
    let rows = by_cost
        .into_iter()
        .map(|e| {
            let saved = match dollars {
                Some(_) => e.dollars_saved.unwrap_or(f64::NAN),
                None => e.cost_saved,
            };
            let pcts: Vec<f64> = report
                .session_cost_pcts
                .get(e.index)
                .cloned()
                .unwrap_or_default();
            let finite: Vec<f64> = pcts.iter().copied().filter(|x| x.is_finite()).collect();
            let spread = Distribution::of(&finite);
            let at = |f: fn(&Distribution) -> f64| spread.as_ref().map_or(f64::NAN, f);
            CostSpread {
                spread: SavingSpread {
                    edit: e.index,
                    total_pct: 100.0 * saved / baseline,
                    p10: at(|d| d.p10),
                    median: at(|d| d.median),
                    p90: at(|d| d.p90),
                    session_pcts: pcts,
                },
                saved,
            }
        })
        .collect();
    HistoryCostInput {
        unit,
        cached_sessions: b.cached_sessions,
        baseline,
        rows,
    }
}
