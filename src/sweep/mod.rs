//! The sweep (docs/model.md §5): every edit at every point of a grid of assumptions, in
//! parallel, and whether the nominal ranking holds.
//!
//! Points are evaluated in chunks with rayon and consumed in grid order, so `sweep.csv`
//! and the report are byte-identical whatever the thread count, and memory stays bounded
//! however large the grid.

mod break_even;
mod clearing;
mod evaluator;
mod grid;
mod model;
mod progress;
mod region;
mod replay;
mod stability;

pub use break_even::{BreakEven, break_even};
pub use grid::{AxisOverride, Grid, MAX_POINTS, Point, SweepOverrides};
pub use model::{Model, Totals, totals};
pub use region::significant;
pub use stability::{Flip, Stability};

use crate::evaluate::{Study, Subject};
use crate::finite::{self, NonFinite};
use crate::ledger::Affine;
use evaluator::Evaluator;
use progress::Progress;
use rayon::prelude::*;
use std::io;

/// How to run the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepOptions {
    /// Use closed forms where they hold (default). Off: replay every run at every point.
    pub closed_form: bool,
    /// Show a progress bar on stderr if it is a terminal and the sweep takes a while.
    pub progress: bool,
}

/// Receives every grid point's totals as the sweep goes, in grid order: the caller decides
/// what to keep (a CSV row per point, the slice a chart draws). The engine knows nothing of
/// files or formats; a sink's error stops the sweep and is returned from [`run`].
pub trait PointSink {
    /// Grid point `index` (grid order; the off-grid nominal point comes last with
    /// `index == None`), whether it is the nominal point, and every run's totals there
    /// (`totals[0]` is the baseline's, then one per edit).
    fn point(
        &mut self,
        index: Option<usize>,
        point: &Point,
        nominal: bool,
        totals: &[Totals],
    ) -> io::Result<()>;
}

/// Several sinks fed the same points, in order.
impl<const N: usize> PointSink for [&mut dyn PointSink; N] {
    fn point(
        &mut self,
        index: Option<usize>,
        point: &Point,
        nominal: bool,
        totals: &[Totals],
    ) -> io::Result<()> {
        for sink in self.iter_mut() {
            sink.point(index, point, nominal, totals)?;
        }
        Ok(())
    }
}

/// What a sweep found.
#[derive(Debug, Clone)]
pub struct SweepOutcome {
    pub grid: Grid,
    pub nominal: Point,
    pub nominal_on_grid: bool,
    pub tokens: Stability,
    /// With `[cache]`.
    pub cost: Option<Stability>,
    /// Break-evens of pairs whose savings are affine, by nominal pair then ρ.
    pub break_even: Vec<BreakEven>,
    /// Pairs with an edit whose events move with the assumptions.
    pub sampled_only: Vec<(usize, usize)>,
    /// Closed forms of the reread totals (baseline first), where they hold.
    pub affine: Vec<Option<Affine>>,
}

/// Evaluates every edit of `study` at every point of `grid`, handing each point's totals to
/// `sink` in grid order (then the nominal point, if it is off the grid).
///
/// Every point's totals are checked to be finite before a sink sees them: a figure that is
/// not is a bug, returned as an [`io::ErrorKind::InvalidData`] error wrapping a
/// [`NonFinite`] that names the run and the point. A grid over [`MAX_POINTS`] (only a
/// hand-built one: [`Grid::new`] refuses them) is refused the same way.
pub fn run(
    study: &Study,
    grid: &Grid,
    nominal: &Point,
    options: SweepOptions,
    sink: &mut dyn PointSink,
) -> io::Result<SweepOutcome> {
    let len = grid
        .checked_len()
        .filter(|&n| n as u64 <= MAX_POINTS)
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the sweep grid is over {MAX_POINTS} points"),
            )
        })?;
    let subjects: Vec<_> = study.subjects().collect();
    // Each run's closed form is a walk of its own: on a long trace, one per thread.
    let model = |s: &&Subject| Model::new(study, s, nominal);
    let models: Vec<Model> = match study.walks_in_parallel() {
        true => subjects.par_iter().map(model).collect(),
        false => subjects.iter().map(model).collect(),
    };
    let cached = study.scenario.cache.is_some();
    let names: Vec<String> = study.edited.iter().map(|s| s.name.clone()).collect();
    let runs: Vec<&str> = subjects.iter().map(|s| s.name.as_str()).collect();
    let nominal_totals: Vec<Totals> = subjects
        .iter()
        .zip(&models)
        .map(|(s, m)| totals(study, s, m, nominal, options.closed_form))
        .collect();
    finite::check_point(&runs, None, nominal, &nominal_totals).map_err(invalid_data)?;
    let (token_savings, cost_savings) = savings(&nominal_totals);
    let closed_forms = models[1..].iter().map(|m| m.affine().copied()).collect();
    let mut tokens = Stability::new("tokens", &token_savings, nominal_totals[0].tokens)
        .with_closed_forms(closed_forms);
    let mut cost = cached.then(|| Stability::new("cost", &cost_savings, nominal_totals[0].cost));
    let nominal_index = grid.index_of(nominal);

    let evaluator = Evaluator::new(study, &models, options.closed_form);
    let progress = Progress::new(options.progress, evaluator.work(grid), len);
    evaluator.each_point(grid, &progress, |index, point, point_totals| {
        finite::check_point(&runs, Some(index), point, point_totals).map_err(invalid_data)?;
        let (ts, cs) = savings(point_totals);
        sink.point(
            Some(index),
            point,
            nominal_index == Some(index),
            point_totals,
        )?;
        tokens.observe(index, &ts, point_totals[0].tokens);
        if let Some(c) = cost.as_mut() {
            c.observe(index, &cs, point_totals[0].cost);
        }
        Ok(())
    })?;
    progress.finish();
    if nominal_index.is_none() {
        sink.point(None, nominal, true, &nominal_totals)?;
    }

    let (break_even, sampled_only) =
        break_evens(&models, &tokens, grid, &names, nominal_totals[0].tokens);
    let affine = models.iter().map(|m| m.affine().copied()).collect();
    Ok(SweepOutcome {
        affine,
        grid: grid.clone(),
        nominal: *nominal,
        nominal_on_grid: nominal_index.is_some(),
        tokens,
        cost,
        break_even,
        sampled_only,
    })
}

/// A figure that is not finite, as the error a sink's caller sees.
fn invalid_data(e: NonFinite) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

/// Per-edit savings on reread tokens and on cost; `totals[0]` is the baseline.
pub fn savings(totals: &[Totals]) -> (Vec<f64>, Vec<f64>) {
    let base = totals[0];
    totals[1..]
        .iter()
        .map(|t| (base.tokens - t.tokens, base.cost - t.cost))
        .unzip()
}

fn break_evens(
    models: &[Model],
    tokens: &Stability,
    grid: &Grid,
    names: &[String],
    baseline_total: f64,
) -> (Vec<BreakEven>, Vec<(usize, usize)>) {
    let order = &tokens.nominal.order;
    let range = (
        grid.base_tokens.first().copied().unwrap_or(0.0),
        grid.base_tokens.last().copied().unwrap_or(0.0),
    );
    let mut exact = Vec::new();
    let mut sampled = Vec::new();
    for (x, &a) in order.iter().enumerate() {
        for &b in &order[x + 1..] {
            match (models[a + 1].affine(), models[b + 1].affine()) {
                (Some(ta), Some(tb)) => {
                    for &rho in &grid.bytes_per_token {
                        exact.push(break_even(
                            &names[a],
                            &names[b],
                            ta,
                            tb,
                            rho,
                            range,
                            baseline_total,
                        ));
                    }
                }
                _ => sampled.push((a, b)),
            }
        }
    }
    (exact, sampled)
}
