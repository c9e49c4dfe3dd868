//! The sweep (MODEL.md §5): every edit at every point of a grid of assumptions, in
//! parallel, and whether the nominal ranking holds.
//!
//! Points are evaluated in chunks with rayon and consumed in grid order, so `sweep.csv`
//! and the report are byte-identical whatever the thread count, and memory stays bounded
//! however large the grid.

mod break_even;
mod grid;
mod model;
mod region;
mod replay;
mod stability;

pub use break_even::{BreakEven, break_even};
pub use grid::{AxisOverride, Grid, MAX_POINTS, Point, SweepOverrides};
pub use model::{Model, Totals, totals};
pub use stability::{Flip, Stability};

use crate::evaluate::{Study, Subject};
use crate::finite::{self, NonFinite};
use crate::ledger::Affine;
use crate::timeline::RunSums;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::io::{self, IsTerminal};
use std::time::{Duration, Instant};

/// Points evaluated per parallel chunk.
const CHUNK: usize = 4096;

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
    grid.checked_len()
        .filter(|&n| n as u64 <= MAX_POINTS)
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the sweep grid is over {MAX_POINTS} points"),
            )
        })?;
    let subjects: Vec<_> = study.subjects().collect();
    let models: Vec<Model> = subjects
        .iter()
        .map(|s| Model::new(study, s, nominal))
        .collect();
    let cached = study.scenario.cache.is_some();
    let evaluate_point = |p: &Point| -> Vec<Totals> {
        subjects
            .iter()
            .zip(&models)
            .map(|(s, m)| totals(study, s, m, p, options.closed_form))
            .collect()
    };
    let names: Vec<String> = study.edited.iter().map(|s| s.name.clone()).collect();
    let runs: Vec<&str> = subjects.iter().map(|s| s.name.as_str()).collect();
    let nominal_totals = evaluate_point(nominal);
    finite::check_point(&runs, None, nominal, &nominal_totals).map_err(invalid_data)?;
    let (token_savings, cost_savings) = savings(&nominal_totals);
    let mut tokens = Stability::new("tokens", &token_savings, nominal_totals[0].tokens);
    let mut cost = cached.then(|| Stability::new("cost", &cost_savings, nominal_totals[0].cost));
    let nominal_index = grid.index_of(nominal);

    let replayer = (!options.closed_form).then(|| Replayer::new(study));
    let progress = Progress::new(options.progress, grid.len());
    let mut start = 0;
    while start < grid.len() {
        let end = (start + CHUNK).min(grid.len());
        let results: Vec<Vec<Totals>> = match &replayer {
            None => (start..end)
                .into_par_iter()
                .map(|i| evaluate_point(&grid.point(i)))
                .collect(),
            Some(r) => r.chunk(
                &(start..end).map(|i| grid.point(i)).collect::<Vec<_>>(),
                &models,
            ),
        };
        for (offset, point_totals) in results.iter().enumerate() {
            let index = start + offset;
            let point = grid.point(index);
            finite::check_point(&runs, Some(index), &point, point_totals).map_err(invalid_data)?;
            let (ts, cs) = savings(point_totals);
            sink.point(
                Some(index),
                &point,
                nominal_index == Some(index),
                point_totals,
            )?;
            tokens.observe(index, &ts, point_totals[0].tokens);
            if let Some(c) = cost.as_mut() {
                c.observe(index, &cs, point_totals[0].cost);
            }
        }
        progress.advance(end - start);
        start = end;
    }
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

/// The general path for a chunk of points: runs without clearings are replayed for
/// [`replay::LANES`] points per pass; the others point by point.
struct Replayer<'s> {
    study: &'s Study<'s>,
    subjects: Vec<&'s Subject>,
    /// Subjects replayed in lanes (those without clearings), with their cache expiry flags.
    lanes: Vec<(usize, Option<Vec<bool>>)>,
}

impl<'s> Replayer<'s> {
    fn new(study: &'s Study<'s>) -> Replayer<'s> {
        let subjects: Vec<&Subject> = study.subjects().collect();
        let cache = study.scenario.cache.as_ref();
        let lanes = subjects
            .iter()
            .enumerate()
            .filter(|(_, s)| s.clear.is_none())
            .map(|(i, s)| {
                (
                    i,
                    cache.map(|c| replay::expired(&study.scenario.calls, &s.run, c)),
                )
            })
            .collect();
        Replayer {
            study,
            subjects,
            lanes,
        }
    }

    fn chunk(&self, points: &[Point], models: &[Model]) -> Vec<Vec<Totals>> {
        let study = self.study;
        let subjects = &self.subjects;
        // Runs with clearings, point by point; the laned ones are filled in below.
        let mut table: Vec<Vec<Totals>> = points
            .par_iter()
            .map(|p| {
                subjects
                    .iter()
                    .zip(models)
                    .map(|(s, m)| match s.clear {
                        None => Totals {
                            tokens: 0.0,
                            cost: 0.0,
                        },
                        Some(_) => totals(study, s, m, p, false),
                    })
                    .collect()
            })
            .collect();
        let groups: Vec<&[Point]> = points.chunks(replay::LANES).collect();
        let jobs: Vec<(usize, usize)> = self
            .lanes
            .iter()
            .enumerate()
            .flat_map(|(l, _)| (0..groups.len()).map(move |g| (l, g)))
            .collect();
        let sums: Vec<Vec<RunSums<f64>>> = jobs
            .par_iter()
            .map(|&(l, g)| {
                let (subject, expired) = &self.lanes[l];
                let at: Vec<_> = groups[g].iter().map(Point::assumptions).collect();
                let cache = study.scenario.cache.as_ref().zip(expired.as_deref());
                replay::sums(&subjects[*subject].run, &at, cache)
            })
            .collect();
        for (&(l, g), group_sums) in jobs.iter().zip(&sums) {
            let subject = self.lanes[l].0;
            for (k, s) in group_sums.iter().enumerate() {
                let index = g * replay::LANES + k;
                let p = &points[index];
                table[index][subject] = Totals {
                    tokens: s.context,
                    cost: s.cost(study.cache_prices(p), p.retry_rate),
                };
            }
        }
        table
    }
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

/// A progress bar that appears only on a terminal, and only once the sweep has run for a
/// moment (a quick sweep prints nothing).
struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: std::cell::Cell<bool>,
}

impl Progress {
    fn new(wanted: bool, total: usize) -> Progress {
        let bar = (wanted && io::stderr().is_terminal()).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
            if let Ok(style) =
                ProgressStyle::with_template("sweep {bar:40} {pos}/{len} points, {eta} left")
            {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            shown: std::cell::Cell::new(false),
        }
    }

    fn advance(&self, points: usize) {
        if let Some(bar) = &self.bar {
            if !self.shown.get() && self.started.elapsed() > Duration::from_millis(300) {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                self.shown.set(true);
            }
            bar.inc(points as u64);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
