//! The charts of a history (many sessions): what each edit saves per session
//! (`sessions.svg`) and in total with its spread (`aggregate.svg`).
//!
//! The engine fills a [`HistoryChartInput`]; [`draw_all`] returns each chart's file name and
//! SVG text, the same bytes for the same input.

use super::{ChartError, aggregate, sessions};

/// Everything the history charts show.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryChartInput {
    /// The history's name, for titles.
    pub name: String,
    /// How many sessions were summed.
    pub sessions: usize,
    /// Of them, sessions no edit changes (every saving 0): left out of first in.
    pub sessions_unchanged: usize,
    /// Edit names by edit index: an edit's colour is fixed by its index, as in every chart.
    pub edits: Vec<String>,
    /// One row per edit, ranked by aggregate saving, best first.
    pub rows: Vec<EditSpread>,
}

/// One edit over every session.
#[derive(Debug, Clone, PartialEq)]
pub struct EditSpread {
    /// Edit index.
    pub edit: usize,
    /// Aggregate saving, percent of the summed baseline reread totals.
    pub total_pct: f64,
    /// The aggregate saving in average baseline calls.
    pub equivalent_calls: f64,
    /// Nearest-rank percentiles of the per-session percentages.
    pub p10: f64,
    pub median: f64,
    pub p90: f64,
    /// Each session's own percentage saved, in session order.
    pub session_pcts: Vec<f64>,
    /// Sessions where the edit ranks first, of those some edit changes.
    pub sessions_first: usize,
}

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

/// Each row's edit name as the history charts print it beside the row: at most `chars`
/// characters, cut where names agree ([`super::style::apart`]) so they still read apart.
pub(crate) fn row_names(
    input: &HistoryChartInput,
    chars: usize,
    chart: &'static str,
) -> Result<Vec<String>, ChartError> {
    let names = input
        .rows
        .iter()
        .map(|r| edit_name(input, r.edit, chart).map(String::from))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(super::style::apart(&names, |n| n.chars().count() <= chars)
        .iter()
        .map(|n| super::style::truncate(n, chars))
        .collect())
}

/// The name of edit `index`, or a Data error naming the chart.
pub(crate) fn edit_name<'a>(
    input: &'a HistoryChartInput,
    index: usize,
    chart: &'static str,
) -> Result<&'a str, ChartError> {
    input
        .edits
        .get(index)
        .map(String::as_str)
        .ok_or_else(|| ChartError::Data {
            chart,
            message: format!(
                "edit index {index} out of range: {} edits are named",
                input.edits.len()
            ),
        })
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
