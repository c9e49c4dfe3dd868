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
