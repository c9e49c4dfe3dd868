//! The trade-off charts of a suggestion: one per parametric family with candidates
//! (`chart::tradeoff`), each point an edit's summed cost saved (in dollars where every
//! session is priced, as the suggestion ranks) against the context it removes, its Pareto
//! front marked.

use super::SuggestReport;
use crate::chart::ChartError;
use crate::chart::tradeoff::{self, Mark, SavedUnit, TradeoffInput, TradeoffPoint, TradeoffSeries};

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
                mark: None,
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
            dots: ("suggested edit", "edits"),
            bound: None,
            join: true,
        });
    }
    out.extend(schedule_inputs(report));
    out
}

/// A front of at most this many schedules has each labelled; a longer one only its
/// naive and chosen (the JSON names every schedule).
const FRONT_LABELS: usize = 6;

/// Each searched family's chart input: every schedule tried, on curves by trigger (or
/// batch, or cold), the naive and the chosen marked, the bound drawn. Only the front's,
/// the naive and the chosen are labelled: the rest are many, and the JSON names them.
fn schedule_inputs(report: &SuggestReport) -> Vec<TradeoffInput> {
    let Some(search) = &report.schedules else {
        return Vec::new();
    };
    let saved_unit = if search.by_dollars {
        SavedUnit::Dollars
    } else {
        SavedUnit::PercentOfCost
    };
    let pct = |x: f64| {
        if search.baseline_cost == 0.0 {
            0.0
        } else {
            100.0 * x / search.baseline_cost
        }
    };
    let mut out = Vec::new();
    for f in &search.families {
        let mut series: Vec<TradeoffSeries> = Vec::new();
        let front = f.tried.iter().filter(|t| t.on_front).count();
        for (k, t) in f.tried.iter().enumerate() {
            let mark = if f.chosen == Some(k) {
                Some(Mark::Chosen)
            } else if f.naive == Some(k) {
                Some(Mark::Naive)
            } else {
                None
            };
            let label = match mark {
                Some(Mark::Chosen) => format!("chosen: {}", t.schedule.label),
                Some(Mark::Naive) => format!("naive: {}", t.schedule.label),
                None if t.on_front && front <= FRONT_LABELS => t.schedule.label.clone(),
                None => String::new(),
            };
            let point = TradeoffPoint {
                label,
                removed: t.removed,
                saved: match saved_unit {
                    SavedUnit::Dollars => t.dollars_saved.unwrap_or(f64::NAN),
                    SavedUnit::PercentOfCost => pct(t.cost_saved),
                },
                on_front: t.on_front,
                mark,
            };
            match series.iter_mut().find(|x| x.label == t.schedule.series) {
                Some(x) => x.points.push(point),
                None => series.push(TradeoffSeries {
                    label: t.schedule.series.clone(),
                    points: vec![point],
                }),
            }
        }
        let bound = match saved_unit {
            SavedUnit::Dollars => search.bound.dollars_saved.unwrap_or(f64::NAN),
            SavedUnit::PercentOfCost => pct(search.bound.cost_saved),
        };
        out.push(TradeoffInput {
            file: f.chart,
            name: report.name.clone(),
            family: format!("{} schedules", f.family.key().replace('-', " ")),
            sessions: search.sessions,
            saved_unit,
            series,
            dots: ("schedule tried", "schedules"),
            join: false,
            bound: Some((
                bound,
                format!("every cache break avoided: {}", search.bound_amount()),
            )),
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
