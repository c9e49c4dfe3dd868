//! The trade-off charts of a suggestion: one per parametric family with candidates
//! (`chart::tradeoff`), each point an edit's summed cost saved (in dollars where every
//! session is priced, as the suggestion ranks) against the context it removes, its Pareto
//! front marked.

use super::SuggestReport;
use crate::chart::ChartError;
use crate::chart::tradeoff::{self, SavedUnit, TradeoffInput, TradeoffPoint, TradeoffSeries};

/// Each family's chart input, in family order. The candidates keep the order the rules
/// gave them (by parameter), grouped into series by their `series`.
pub fn inputs(report: &SuggestReport) -> Vec<TradeoffInput> {
    let mut in_file_order: Vec<_> = report.candidates.iter().collect();
    in_file_order.sort_by_key(|s| s.index);
    let saved_unit = if report.baseline.ranked_by_dollars {
        SavedUnit::Dollars
    } else {
        SavedUnit::PercentOfCost
    };
    let mut out = Vec::new();
    for f in &report.families {
        let mut series: Vec<TradeoffSeries> = Vec::new();
        for s in in_file_order.iter().filter(|s| s.family == f.family) {
            let label = s.series.clone().unwrap_or_else(|| f.label.to_string());
            let point = TradeoffPoint {
                label: s.point_label.clone(),
                removed: s.context_removed_tokens,
                saved: match saved_unit {
                    // Every candidate is priced where the suggestion ranks by dollars.
                    SavedUnit::Dollars => s.dollars_saved.unwrap_or(f64::NAN),
                    SavedUnit::PercentOfCost => s.cost_saved_pct,
                },
                on_front: s.on_front == Some(true),
            };
            match series.iter_mut().find(|x| x.label == label) {
                Some(x) => x.points.push(point),
                None => series.push(TradeoffSeries {
                    label,
                    points: vec![point],
                }),
            }
        }
        if series.is_empty() {
            continue;
        }
        out.push(TradeoffInput {
            file: f.chart,
            name: report.name.clone(),
            family: f.label.to_string(),
            sessions: report.baseline.sessions,
            saved_unit,
            series,
        });
    }
    out
}

/// Each chart's file name and SVG text.
pub fn draw_all(report: &SuggestReport) -> Result<Vec<(&'static str, String)>, ChartError> {
    inputs(report)
        .iter()
        .map(|input| {
            let chart = tradeoff::prepare(input)?;
            Ok((input.file, tradeoff::draw(&chart)?))
        })
        .collect()
}
