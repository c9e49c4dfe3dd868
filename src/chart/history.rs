//! The charts of a history (many sessions): what each edit saves per session
//! (`sessions.svg`) and in total with its spread (`aggregate.svg`), and, when the sessions
//! have a prompt cache, the same on cost (`sessions-cost.svg`, `aggregate-cost.svg`).
//!
//! The engine fills a [`HistoryChartInput`]; [`draw_all`] returns each chart's file name and
//! SVG text, the same bytes for the same input.

use super::{ChartError, aggregate, sessions};

// The data is its own module, so the two charts, which this module draws, can read it
// without importing back from here.
pub use super::history_input::{
    CostSpread, CostUnit, EditSpread, HistoryChartInput, HistoryCostInput, SavingSpread,
};

/// Each chart's file name and SVG: `sessions.svg` and `aggregate.svg` (left out when no
/// edit changes a reread total), then `sessions-cost.svg` and `aggregate-cost.svg` (left
/// out without [`HistoryChartInput::cost`] or an edit in it). Empty when there is no edit
/// to show.
pub fn draw_all(input: &HistoryChartInput) -> Result<Vec<(&'static str, String)>, ChartError> {
    let mut charts = Vec::with_capacity(4);
    if !input.rows.is_empty() {
        let strips = sessions::prepare(input)?;
        let bars = aggregate::prepare(input)?;
        charts.push((sessions::FILE, sessions::draw(&strips)?));
        charts.push((aggregate::FILE, aggregate::draw(&bars)?));
    }
    if let Some(cost) = &input.cost
        && !cost.rows.is_empty()
    {
        let strips = sessions::prepare_cost(input, cost)?;
        let bars = aggregate::prepare_cost(input, cost)?;
        charts.push((sessions::COST_FILE, sessions::draw(&strips)?));
        charts.push((aggregate::COST_FILE, aggregate::draw(&bars)?));
    }
    Ok(charts)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Five sessions' percentages, sorted, as a row's spread (p10, median and p90 at ranks
    /// 1, 3 and 5).
    fn spread(edit: usize, total_pct: f64, pcts: &[f64]) -> SavingSpread {
        SavingSpread {
            edit,
            total_pct,
            p10: pcts[0],
            median: pcts[2],
            p90: pcts[4],
            session_pcts: pcts.to_vec(),
        }
    }

    /// Three edits over five sessions, one of which costs more than it saves.
    pub(crate) fn input() -> HistoryChartInput {
        let row = |edit, total_pct, pcts: &[f64]| EditSpread {
            spread: spread(edit, total_pct, pcts),
            equivalent_calls: total_pct / 2.0,
            sessions_first: edit + 1,
        };
        HistoryChartInput {
            name: "history".into(),
            sessions: 5,
            sessions_unchanged: 0,
            sessions_cost_only: 0,
            edits: vec![
                "cap shell output".into(),
                "clear stale".into(),
                "drop MCP tools".into(),
            ],
            rows: vec![
                row(1, 22.0, &[5.0, 12.0, 20.0, 31.0, 44.0]),
                row(0, 15.0, &[0.0, 3.0, 14.0, 18.0, 40.0]),
                row(2, 6.0, &[-2.0, 4.0, 6.0, 8.0, 12.0]),
            ],
            cost_only_edits: Vec::new(),
            cost: None,
        }
    }

    /// [`input`] with a prompt cache: a fourth edit (a longer cache lifetime) changes the
    /// cost alone, so it is on cost only; dollars over every session.
    pub(crate) fn with_cost() -> HistoryChartInput {
        let row = |edit, saved, total_pct, pcts: &[f64]| CostSpread {
            spread: spread(edit, total_pct, pcts),
            saved,
        };
        let mut input = input();
        input.edits.push("cache for an hour".into());
        input.cost_only_edits = vec![3];
        input.cost = Some(HistoryCostInput {
            unit: CostUnit::Dollars,
            cached_sessions: 5,
            baseline: 8.0,
            rows: vec![
                row(3, 1.6, 20.0, &[0.0, 10.0, 20.0, 25.0, 40.0]),
                row(1, 1.2, 15.0, &[4.0, 10.0, 15.0, 22.0, 30.0]),
                row(0, 0.8, 10.0, &[0.0, 2.0, 9.0, 12.0, 26.0]),
                row(2, -0.08, -1.0, &[-3.0, -2.0, -1.0, 0.0, 1.0]),
            ],
        });
        input
    }

    #[test]
    fn both_charts_draw_and_are_deterministic() {
        let a = draw_all(&input()).unwrap();
        let b = draw_all(&input()).unwrap();
        assert_eq!(a, b);
        let files: Vec<_> = a.iter().map(|(f, _)| *f).collect();
        assert_eq!(files, vec!["sessions.svg", "aggregate.svg"]);
        let files: Vec<_> = draw_all(&with_cost())
            .unwrap()
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(
            files,
            vec![
                "sessions.svg",
                "aggregate.svg",
                "sessions-cost.svg",
                "aggregate-cost.svg"
            ]
        );
        assert!(
            draw_all(&HistoryChartInput {
                rows: vec![],
                ..input()
            })
            .unwrap()
            .is_empty()
        );
    }

    #[test]
    fn an_unknown_edit_is_an_error() {
        let mut bad = input();
        bad.rows[0].spread.edit = 9;
        assert!(matches!(draw_all(&bad), Err(ChartError::Data { .. })));
    }
}
