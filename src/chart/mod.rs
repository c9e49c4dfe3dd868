//! SVG charts: one file per chart, each a pure `prepare` step (series from the data) and a
//! `draw` step (the picture). Style constants live in `style`.
//!
//! The engine fills a [`ChartInput`]; [`draw_all`] returns each chart's file name and SVG
//! text. Nothing here reads files or knows about the scenario format.

/// Everything the charts show, prepared by the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartInput {
    /// Scenario name, for titles.
    pub scenario: String,
    /// Nominal base tokens B (assumed).
    pub base_tokens: f64,
    /// Nominal bytes per token ρ (assumed); token axes say `est. tokens (bytes ÷ ρ)`.
    pub bytes_per_token: f64,
    /// Edit names in scenario order. An edit's colour is fixed by its index here, so it
    /// is the same in every chart.
    pub edits: Vec<String>,
    /// Percent saved across the sweep grid (savings.svg). None: no sweep was run.
    pub savings: Option<SavingsGrid>,
    /// Winner per grid cell (ranking.svg). None: no sweep was run, or fewer than 2 edits.
    pub ranking: Option<RankingMap>,
    /// Context re-read by each call at the nominal point (context.svg): the baseline first,
    /// then every edit in scenario order.
    pub context: Vec<RunSeries>,
    /// Ranked bars (totals.svg), best first.
    pub totals: Vec<TotalBar>,
    /// Per-call cached and written tokens (cost.svg): the baseline first, then each
    /// clearing edit. None: the scenario has no `[cache]`.
    pub cost: Option<Vec<CostSeries>>,
}

/// Percent saved by each edit at each (ρ, B) point of the sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SavingsGrid {
    /// Ascending base-token values (x axis).
    pub base_tokens: Vec<f64>,
    /// Ascending bytes-per-token values (one panel or line style each).
    pub bytes_per_token: Vec<f64>,
    /// `percent[r][b][e]`: percent saved by edit `e` at `bytes_per_token[r]`,
    /// `base_tokens[b]`.
    pub percent: Vec<Vec<Vec<f64>>>,
    /// Exact break-even points that lie inside the swept base-token range.
    pub break_evens: Vec<BreakEvenMark>,
}

/// Where two edits save the same (computed exactly, not sampled).
#[derive(Debug, Clone, PartialEq)]
pub struct BreakEvenMark {
    /// Edit indices.
    pub a: usize,
    pub b: usize,
    pub bytes_per_token: f64,
    pub base_tokens: f64,
    /// Percent saved by both at that point.
    pub percent: f64,
}

/// The sweep grid as a map of winners.
#[derive(Debug, Clone, PartialEq)]
pub struct RankingMap {
    /// Ascending base-token values (columns).
    pub base_tokens: Vec<f64>,
    /// Ascending bytes-per-token values (rows).
    pub bytes_per_token: Vec<f64>,
    /// `cells[r][b]`.
    pub cells: Vec<Vec<RankingCell>>,
    /// Index into `base_tokens`/`bytes_per_token` of the nominal point, if it lies on the
    /// grid; else None.
    pub nominal: Option<(usize, usize)>,
    /// Which measure ranked the edits, for the title: "reread tokens" or "cost".
    pub measure: String,
}

/// One grid point's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct RankingCell {
    /// Edit indices that share first place (usually one).
    pub winners: Vec<usize>,
    /// Whether the full order here differs from the nominal order (a flip).
    pub order_differs: bool,
}

/// Per-call context of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSeries {
    /// "baseline" or the edit name.
    pub name: String,
    /// Edit index for colour; None for the baseline (drawn in the neutral colour).
    pub edit: Option<usize>,
    /// `context_tokens[i]`: context re-read by call i+1, in est. tokens. May hold a million
    /// values: draw it reduced to the pixel width (min and max per pixel bucket).
    pub context_tokens: Vec<f64>,
}

/// One edit's bar.
#[derive(Debug, Clone, PartialEq)]
pub struct TotalBar {
    pub edit: usize,
    pub saved_pct: f64,
    pub equivalent_calls: f64,
}

/// Per-call prompt-cache figures of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct CostSeries {
    pub name: String,
    pub edit: Option<usize>,
    /// Tokens read from cache at each call.
    pub cached_tokens: Vec<f64>,
    /// Tokens written to cache at each call (the rewrite spikes after a clearing).
    pub written_tokens: Vec<f64>,
}

mod layout;
pub mod reduce;
pub mod style;

pub mod aggregate;
pub mod context;
pub mod cost;
pub mod history;
pub mod ranking;
pub mod savings;
pub mod sessions;
pub mod totals;

use std::io;

use plotters::coord::Shift;
use plotters::drawing::{DrawingArea, DrawingAreaErrorKind};
use plotters::prelude::SVGBackend;

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The chart data is inconsistent (a grid whose shape does not match its axes, an edit
    /// index with no name). This is a bug in whatever filled the [`ChartInput`].
    #[error("{chart}: {message}")]
    Data {
        chart: &'static str,
        message: String,
    },
    /// Plotters could not lay out or render the chart.
    #[error("{chart}: cannot draw: {source}")]
    Draw {
        chart: &'static str,
        #[source]
        source: DrawingAreaErrorKind<io::Error>,
    },
}

/// The drawing surface every chart renders on.
pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Wraps a plotters error with the chart it happened in: `.map_err(drawing(FILE))?`.
pub(crate) fn drawing(
    chart: &'static str,
) -> impl Fn(DrawingAreaErrorKind<io::Error>) -> ChartError {
    move |source| ChartError::Draw { chart, source }
}

/// Each chart's file name and SVG text, in a fixed order: `savings.svg`, `ranking.svg`,
/// `context.svg`, `totals.svg`, `cost.svg`.
///
/// A chart is left out when it has nothing to show: its data is None (`savings`, `ranking`,
/// `cost`), its list is empty (`context`, `totals`), or — for `savings.svg` — there are no
/// edits to draw lines for. The same input always gives byte-identical SVG.
pub fn draw_all(input: &ChartInput) -> Result<Vec<(&'static str, String)>, ChartError> {
    let mut charts = Vec::with_capacity(5);
    if let Some(grid) = &input.savings
        && !input.edits.is_empty()
    {
        let chart = savings::prepare(input, grid)?;
        charts.push((savings::FILE, savings::draw(&chart)?));
    }
    if let Some(map) = &input.ranking {
        let chart = ranking::prepare(input, map)?;
        charts.push((ranking::FILE, ranking::draw(&chart)?));
    }
    if !input.context.is_empty() {
        let chart = context::prepare(input)?;
        charts.push((context::FILE, context::draw(&chart)?));
    }
    if !input.totals.is_empty() {
        let chart = totals::prepare(input)?;
        charts.push((totals::FILE, totals::draw(&chart)?));
    }
    if let Some(series) = &input.cost
        && !series.is_empty()
    {
        let chart = cost::prepare(input, series)?;
        charts.push((cost::FILE, cost::draw(&chart)?));
    }
    Ok(charts)
}

/// The name of edit `index`, or a Data error naming the chart.
pub(crate) fn edit_name<'a>(
    input: &'a ChartInput,
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
