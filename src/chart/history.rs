//! The charts of a history (many sessions): what each edit saves per session
//! (`sessions.svg`) and in total with its spread (`aggregate.svg`).
//!
//! The engine fills a [`HistoryChartInput`]; [`draw_all`] returns each chart's file name and
//! SVG text, the same bytes for the same input.

use super::{ChartError, aggregate, sessions};

// The data is its own module, so the two charts, which this module draws, can read it
// without importing back from here.
pub use super::history_input::{EditSpread, HistoryChartInput};

/// Each chart's file name and SVG: `sessions.svg`, then `aggregate.svg`. None when there
/// is no edit to show.
pub fn draw_all(input: &HistoryChartInput) -> Result<Vec<(&'static str, String)>, ChartError> {
    if input.rows.is_empty() {
        return Ok(Vec::new());
    }
    let strips = sessions::prepare(input)?;
    let bars = aggregate::prepare(input)?;
    Ok(vec![
        (sessions::FILE, sessions::draw(&strips)?),
        (aggregate::FILE, aggregate::draw(&bars)?),
    ])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Three edits over five sessions, one of which costs more than it saves.
    pub(crate) fn input() -> HistoryChartInput {
        let row = |edit, total_pct, pcts: &[f64]| EditSpread {
            edit,
            total_pct,
            equivalent_calls: total_pct / 2.0,
            p10: pcts[0],
            median: pcts[2],
            p90: pcts[4],
            session_pcts: pcts.to_vec(),
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
        }
    }

    #[test]
    fn both_charts_draw_and_are_deterministic() {
        let a = draw_all(&input()).unwrap();
        let b = draw_all(&input()).unwrap();
        assert_eq!(a, b);
        let files: Vec<_> = a.iter().map(|(f, _)| *f).collect();
        assert_eq!(files, vec!["sessions.svg", "aggregate.svg"]);
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
        bad.rows[0].edit = 9;
        assert!(matches!(draw_all(&bad), Err(ChartError::Data { .. })));
    }
}
