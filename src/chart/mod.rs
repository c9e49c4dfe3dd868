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
    /// Nominal bytes per token ρ; token axes say `est. tokens (bytes ÷ ρ)`.
    pub bytes_per_token: f64,
    /// Where B and ρ came from, in a word each, for labels.
    pub sources: ChartSources,
    /// Edit names in scenario order. An edit's colour is fixed by its index here, so it
    /// is the same in every chart.
    pub edits: Vec<String>,
    /// Percent saved across the sweep grid (savings.svg). None: no sweep was run.
    pub savings: Option<SavingsGrid>,
    /// Which of each pair of edits saves more over (B, ρ), on reread tokens (ranking.svg).
    /// None: no sweep was run, or fewer than 2 edits.
    pub ranking: Option<RankingPlane>,
    /// The same on cost (ranking-cost.svg). None: no `[cache]`, no sweep, or < 2 edits.
    pub ranking_cost: Option<RankingPlane>,
    /// Context re-read by each call at the nominal point (context.svg): the baseline first,
    /// then every edit in scenario order.
    pub context: Vec<RunSeries>,
    /// Ranked bars (totals.svg), best first.
    pub totals: Vec<TotalBar>,
    /// Bars ranked by cost (totals-cost.svg), best first. None: the scenario has no
    /// `[cache]` (cost is then the reread total times a constant, ranked as totals.svg).
    pub totals_cost: Option<CostTotals>,
    /// Per-call cached and written tokens (cost.svg): the baseline first, then each
    /// clearing edit. None: the scenario has no `[cache]`.
    pub cost: Option<Vec<CostSeries>>,
}

/// Where the nominal B and ρ came from, in one word each (`assumed`, `fitted`,
/// `estimated`), for titles and axes.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSources {
    pub base_tokens: String,
    pub bytes_per_token: String,
}

impl Default for ChartSources {
    fn default() -> Self {
        ChartSources {
            base_tokens: "assumed".into(),
            bytes_per_token: "assumed".into(),
        }
    }
}

/// Percent saved by each edit at each (ρ, B) point of the sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SavingsGrid {
    /// Ascending base-token values (x axis).
    pub base_tokens: Vec<f64>,
    /// Ascending bytes-per-token values (one panel each): all the swept values, or an
    /// evenly spaced selection of them.
    pub bytes_per_token: Vec<f64>,
    /// How many bytes-per-token values the sweep has (more than are drawn when thinned).
    pub swept_bytes_per_token: usize,
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

/// The sweep's (B, ρ) plane, seen pair by pair: where each of two edits saves more.
#[derive(Debug, Clone, PartialEq)]
pub struct RankingPlane {
    /// What ranked the edits, for titles: "reread tokens" or "cost".
    pub measure: String,
    /// Ascending base-token values drawn (columns); evenly thinned on a huge grid.
    pub base_tokens: Vec<f64>,
    /// Ascending bytes-per-token values drawn (rows).
    pub bytes_per_token: Vec<f64>,
    /// How many values each of those axes has in the sweep (B, ρ).
    pub swept: (usize, usize),
    /// The (B, ρ) planes drawn: one per kept combination of the other swept axes (cache
    /// read, retry rate), or a single one when there are none or the measure does not
    /// depend on them.
    pub slices: Vec<PlaneSlice>,
    /// Combinations of the other swept axes that are not drawn.
    pub slices_left_out: usize,
    /// Every pair whose nominal order is reversed somewhere in the whole grid.
    pub flips: Vec<PairFlip>,
    /// Grid points in all, and how many keep the nominal order.
    pub points: usize,
    pub matching_order: usize,
    /// Edit indices in the nominal order, best first (tied edits in scenario order).
    pub nominal_order: Vec<usize>,
    /// The nominal point (B, ρ).
    pub nominal: (f64, f64),
    /// Each edit's reread total in closed form, by edit index, where it has one: then the
    /// break-even of two edits is exact. Empty when the measure has none (cost).
    pub affine: Vec<Option<crate::ledger::Affine>>,
    /// A sentence for the subtitle (e.g. why one slice stands for all), if any.
    pub note: Option<String>,
}

/// One (B, ρ) plane of savings.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaneSlice {
    /// Which values of the other swept axes it holds, e.g. `cache read 0.1×, retry rate 0`;
    /// None when nothing else is swept.
    pub label: Option<String>,
    /// Whether the nominal point lies in this plane (its cache read and retry rate are the
    /// nominal ones); the nominal (B, ρ) is ringed only there.
    pub holds_nominal: bool,
    /// `saved[r][b][e]`: what edit `e` saves at `bytes_per_token[r]`, `base_tokens[b]`,
    /// in the measure's unit.
    pub saved: Vec<Vec<Vec<f64>>>,
    /// `baseline[r][b]`: the baseline's total there (savings within 1e-9 of it tie).
    pub baseline: Vec<Vec<f64>>,
    /// For each flipping pair, its counts over the whole plane this slice stands for,
    /// every swept point and not only those drawn (a thinned grid is drawn from fewer), so
    /// the panels say what the text says. Empty: count the cells drawn.
    pub counts: Vec<PairCount>,
}

/// How often the second edit of a pair saves more, and how often the two tie, over the
/// swept points a plane stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct PairCount {
    pub a: usize,
    pub b: usize,
    pub flipped: usize,
    pub ties: usize,
}

/// A pair of edits whose order flips somewhere in the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct PairFlip {
    /// The edit that saves more at the nominal point.
    pub a: usize,
    /// The edit that saves more at the flipping points.
    pub b: usize,
    /// At how many grid points `b` saves more.
    pub count: usize,
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
    /// `baseline_position[i]`: the 0-based position on the baseline's call axis where call
    /// i+1 is drawn, ascending; empty: the call's own position. A call the edit does not
    /// move sits at its own place in the baseline, so a run that merges or drops calls has
    /// gaps where calls went; a moved call sits between the calls it now runs between (a
    /// fractional position), and its old place is a gap.
    pub baseline_position: Vec<f64>,
    /// 0-based calls of this run that stand for several baseline calls (merges).
    pub merged: Vec<u32>,
    /// 0-based calls of this run drawn away from their own place in the baseline (moves).
    pub moved: Vec<u32>,
    /// 0-based calls of this run before which a clearing happened.
    pub clearings: Vec<u32>,
    /// Requests an edit adds (a deferred part's tool search, a compaction's request,
    /// docs/model.md §9). Not in `context_tokens`: drawn half a call before that call.
    pub added: Vec<AddedRequest>,
}

/// A request an edit adds between the calls of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AddedRequest {
    /// The 0-based call it runs before.
    pub before: u32,
    /// The context it re-reads, in est. tokens.
    pub tokens: f64,
    pub kind: AddedKind,
}

/// What an added request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddedKind {
    /// A tool search that loads a deferred part's definitions.
    ToolSearch,
    /// A compaction: it reads the whole context once to write the summary.
    Compaction,
}

/// One edit's bar.
#[derive(Debug, Clone, PartialEq)]
pub struct TotalBar {
    pub edit: usize,
    pub saved_pct: f64,
    pub equivalent_calls: f64,
}

/// The edits ranked by cost.
#[derive(Debug, Clone, PartialEq)]
pub struct CostTotals {
    /// Best first.
    pub bars: Vec<CostBar>,
    /// Where the dollar prices come from (`[price] source`), when dollars are shown.
    pub price_source: Option<String>,
}

/// One edit's bar on cost.
#[derive(Debug, Clone, PartialEq)]
pub struct CostBar {
    pub edit: usize,
    /// Percent of the baseline's cost saved.
    pub saved_pct: f64,
    /// Cost saved, in input-token equivalents.
    pub saved: f64,
    /// Dollars saved, with `[price]`.
    pub saved_dollars: Option<f64>,
}

/// Why a call writes to the prompt cache what it writes (docs/model.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WriteCause {
    /// Only what joined since the previous call: the usual small write.
    Growth,
    /// The first call: nothing is cached yet.
    First,
    /// The pause before the call was longer than the cache's TTL: the cache expired.
    Expired,
    /// A clearing changed the prefix: everything from the first cleared result on.
    Clearing,
    /// A compaction replaced the conversation with its summary: all but the base.
    Compaction,
    /// The cached prefix would be shorter than the minimum cacheable length.
    BelowMinimum,
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
    /// Why each call writes what it writes; empty when unknown.
    pub causes: Vec<WriteCause>,
    /// Clearings in the run (some may land where the cache had expired anyway), and the
    /// 0-based calls they come before.
    pub clearings: usize,
    pub clearings_before: Vec<u32>,
    /// The 0-based calls a compaction comes before: each a request of its own.
    pub compactions_before: Vec<u32>,
    /// Tool searches the edit adds, drawn as bars of their own half a call before the call
    /// they precede: `(call, tokens read from cache, tokens written)`.
    pub added: Vec<(u32, f64, f64)>,
    /// Tokens read from and written to the cache by requests not drawn (compaction
    /// requests): in the run's totals.
    pub not_drawn: (f64, f64),
    /// The cache's time to live, in s, for the legend.
    pub ttl_s: f64,
    /// The minimum cacheable length, in tokens, for the legend.
    pub min_tokens: f64,
}

mod layout;
pub mod reduce;
mod same;
pub mod scale;
pub mod style;
#[cfg(test)]
mod svg_text;

pub mod aggregate;
pub mod by_tool;
pub mod context;
pub mod cost;
pub mod history;
pub mod history_input;
pub mod plane;
pub mod ranking;
pub mod savings;
pub mod sessions;
pub mod totals;
pub mod tradeoff;

use std::io;

use plotters::coord::Shift;
use plotters::drawing::{DrawingArea, DrawingAreaErrorKind};
use plotters::prelude::SVGBackend;

// The error type lives with the crate's error (`crate::error`), which wraps it: the
// error module sits below every other, so it cannot import a chart's type.
pub use crate::error::ChartError;

/// The drawing surface every chart renders on.
pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Wraps a plotters error with the chart it happened in: `.map_err(drawing(FILE))?`.
pub(crate) fn drawing(
    chart: &'static str,
) -> impl Fn(DrawingAreaErrorKind<io::Error>) -> ChartError {
    move |source| ChartError::Draw { chart, source }
}

/// Each chart's file name and SVG text, in a fixed order: `savings.svg`, `ranking.svg`,
/// `ranking-cost.svg`, `context.svg`, `totals.svg`, `totals-cost.svg`, `cost.svg`.
///
/// A chart is left out when it has nothing to show: its data is None (`savings`, `ranking`,
/// `ranking_cost`, `totals_cost`, `cost`), its list is empty (`context`, `totals`), or —
/// for `savings.svg` — there are no edits to draw lines for. The same input always gives
/// byte-identical SVG.
pub fn draw_all(input: &ChartInput) -> Result<Vec<(&'static str, String)>, ChartError> {
    let mut charts = Vec::with_capacity(7);
    if let Some(grid) = &input.savings
        && !input.edits.is_empty()
    {
        let chart = savings::prepare(input, grid)?;
        charts.push((savings::FILE, savings::draw(&chart)?));
    }
    for (plane, file) in [
        (&input.ranking, ranking::FILE),
        (&input.ranking_cost, ranking::COST_FILE),
    ] {
        if let Some(plane) = plane {
            let chart = ranking::prepare(input, plane, file)?;
            charts.push((file, ranking::draw(&chart)?));
        }
    }
    if !input.context.is_empty() {
        let chart = context::prepare(input)?;
        charts.push((context::FILE, context::draw(&chart)?));
    }
    if !input.totals.is_empty() {
        let chart = totals::prepare(input)?;
        charts.push((totals::FILE, totals::draw(&chart)?));
    }
    if let Some(bars) = &input.totals_cost
        && !bars.bars.is_empty()
    {
        let chart = totals::prepare_cost(input, bars)?;
        charts.push((totals::COST_FILE, totals::draw(&chart)?));
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
