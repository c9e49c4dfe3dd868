//! What the history charts (`super::history`) show: one row per edit over every session,
//! and the names they print beside the rows.

use super::ChartError;

/// Everything the history charts show.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryChartInput {
    /// The history's name, for titles.
    pub name: String,
    /// How many sessions were summed.
    pub sessions: usize,
    /// Of them, sessions no edit changes (every saving 0, in reread tokens and cost): left
    /// out of first in.
    pub sessions_unchanged: usize,
    /// Of them, sessions where an edit changes only the cost: at 0 % in every row, and left
    /// out of first in too.
    pub sessions_cost_only: usize,
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
    /// Sessions where the edit ranks first, of those some edit changes the reread total of.
    pub sessions_first: usize,
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
