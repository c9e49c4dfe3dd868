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
    /// One row per edit that changes some reread total, ranked by aggregate saving, best
    /// first: what `sessions.svg` and `aggregate.svg` draw.
    pub rows: Vec<EditSpread>,
    /// Edits left out of `rows` because they change the cost alone (a cache or model edit
    /// that only reprices), by index: a reread-token row of theirs would read 0.0 %. The
    /// token charts name them; the cost charts draw them.
    pub cost_only_edits: Vec<usize>,
    /// The cost versions (`sessions-cost.svg`, `aggregate-cost.svg`); None when no session
    /// has a prompt cache (cost is then the reread total, drawn already).
    pub cost: Option<HistoryCostInput>,
}

/// What the cost charts show: every edit on cost, in the cost ranking's unit.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryCostInput {
    pub unit: CostUnit,
    /// Sessions with a `[cache]`, of [`HistoryChartInput::sessions`]; the others' cost is
    /// their reread total.
    pub cached_sessions: usize,
    /// Σ of the baseline costs over the sessions, in `unit`.
    pub baseline: f64,
    /// One row per edit, ranked by cost saving (the history's cost rank), best first.
    pub rows: Vec<CostSpread>,
}

/// The unit of a cost chart: dollars where every session is priced (the cost ranking is
/// then in dollars, docs/model.md §4), else input-token equivalents.
#[derive(Debug, Clone, PartialEq)]
pub enum CostUnit {
    /// USD, simulated: each call at its model's list price, output included.
    Dollars,
    /// Input tokens at the plain input price, each session under its own prompt cache.
    InputTokenEquivalents,
}

impl CostUnit {
    /// The unit in words, for axes and subtitles: `dollars` or `input-token equivalents`.
    pub fn words(&self) -> &'static str {
        match self {
            CostUnit::Dollars => "dollars",
            CostUnit::InputTokenEquivalents => "input-token equivalents",
        }
    }

    /// An amount in the unit, as a label shows it: `$1.27`, `-$0.08`, `422,898 input-token
    /// eq.`.
    pub fn amount(&self, x: f64) -> String {
        match self {
            CostUnit::Dollars => crate::number::dollars(x),
            CostUnit::InputTokenEquivalents => {
                format!("{} input-token eq.", crate::number::grouped(x, 0))
            }
        }
    }
}

/// One edit's saving over every session, as both history charts draw it (on reread
/// tokens or on cost): the aggregate, the spread of the per-session percentages, and each
/// session's own.
#[derive(Debug, Clone, PartialEq)]
pub struct SavingSpread {
    /// Edit index.
    pub edit: usize,
    /// Aggregate saving, percent of the summed baseline (reread totals or cost).
    pub total_pct: f64,
    /// Nearest-rank percentiles of the per-session percentages.
    pub p10: f64,
    pub median: f64,
    pub p90: f64,
    /// Each session's own percentage of its baseline saved, in session order.
    pub session_pcts: Vec<f64>,
}

/// One edit's cost saving over every session.
#[derive(Debug, Clone, PartialEq)]
pub struct CostSpread {
    /// The percentages, of the summed baseline cost and of each session's own.
    pub spread: SavingSpread,
    /// Σ of the per-session cost savings, in the chart's unit.
    pub saved: f64,
}

/// One edit's reread-token saving over every session.
#[derive(Debug, Clone, PartialEq)]
pub struct EditSpread {
    /// The percentages, of the summed baseline reread totals and of each session's own.
    pub spread: SavingSpread,
    /// The aggregate saving in average baseline calls.
    pub equivalent_calls: f64,
    /// Sessions where the edit ranks first, of those some edit changes the reread total of.
    pub sessions_first: usize,
}

/// The names of the edits `rows` (indices) as the history charts print them beside their
/// rows: at most `chars` characters, cut where names agree ([`super::style::apart`]) so
/// they still read apart.
pub(crate) fn row_names(
    input: &HistoryChartInput,
    rows: &[usize],
    chars: usize,
    chart: &'static str,
) -> Result<Vec<String>, ChartError> {
    let names = rows
        .iter()
        .map(|&r| edit_name(input, r, chart).map(String::from))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(super::style::apart(&names, |n| n.chars().count() <= chars)
        .iter()
        .map(|n| super::style::truncate(n, chars))
        .collect())
}

/// A line of its own naming the edits a token chart leaves out because they change the
/// cost alone, and where they are drawn: `Left out: "cache for an hour" changes the cost
/// alone, not the reread total (drawn in sessions-cost.svg).`; empty when there are none.
pub(crate) fn cost_only_note(input: &HistoryChartInput, cost_file: &str) -> String {
    if input.cost_only_edits.is_empty() {
        return String::new();
    }
    let names: Vec<String> = input
        .cost_only_edits
        .iter()
        .map(|&e| {
            let name = input.edits.get(e).map_or("?", String::as_str);
            format!("\u{201c}{}\u{201d}", super::style::truncate(name, 40))
        })
        .collect();
    let (count, verb) = match names.len() {
        1 => (String::new(), "changes"),
        n => (format!("{n} edits, "), "change"),
    };
    let drawn = if input.cost.is_some() {
        format!("drawn in {cost_file}")
    } else {
        "no cost chart".to_string()
    };
    format!(
        "\nLeft out: {count}{} {verb} the cost alone, not the reread total ({drawn}).",
        names.join(", ")
    )
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

/// `; 3 of 12 sessions have none (every input token at the plain price)` where some
/// session has no prompt cache, else nothing: said after "under each session's prompt
/// cache".
pub(crate) fn uncached_note(input: &HistoryChartInput, cost: &HistoryCostInput) -> String {
    let uncached = input.sessions.saturating_sub(cost.cached_sessions);
    if uncached == 0 {
        return String::new();
    }
    format!(
        "; {} of {} sessions have none (every input token at the plain price)",
        crate::number::grouped(uncached as f64, 0),
        crate::number::grouped(input.sessions as f64, 0)
    )
}
