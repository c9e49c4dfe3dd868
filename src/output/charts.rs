//! From engine results to the charts' input, and the chart files themselves.
//!
//! The chart module draws whatever it is given; this module decides what that is: which
//! runs, which slice of the sweep grid, and how a very large grid is thinned so that every
//! picture stays readable.

use crate::chart::{
    self, BreakEvenMark, ChartError, ChartInput, CostSeries, RankingCell, RankingMap, RunSeries,
    SavingsGrid, TotalBar,
};
use crate::evaluate::{Evaluation, Study};
use crate::ledger::Assumptions;
use crate::rank;
use crate::report::Report;
use crate::sweep::{self, Grid, Point, PointSink, SweepOutcome, Totals};
use crate::timeline;
use std::io;

/// Most bytes-per-token panels drawn in `savings.svg`; more are thinned evenly.
const MAX_PANELS: usize = 6;
/// Most values per axis drawn in `ranking.svg`; more are thinned evenly.
const MAX_MAP_AXIS: usize = 61;

/// Largest (B × ρ) slice kept for the charts.
const MAX_SLICE: usize = 1_000_000;

/// One grid point of the (B, ρ) slice the charts draw.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceCell {
    /// Reread tokens saved per edit, and the baseline's total there.
    pub saved: Vec<f64>,
    pub baseline_tokens: f64,
    /// Cost saved per edit, and the baseline's cost there.
    pub cost_saved: Vec<f64>,
    pub baseline_cost: f64,
}

impl SliceCell {
    /// Percent of the baseline reread total saved, per edit.
    pub fn saved_pct(&self) -> Vec<f64> {
        self.saved
            .iter()
            .map(|s| 100.0 * s / self.baseline_tokens)
            .collect()
    }
}

/// Collects the (B, ρ) slice at the first cache-read and retry values as the sweep goes,
/// `cells[b * nr + r]`; nothing when the slice is too large to draw.
pub struct SliceCollector {
    grid: Grid,
    /// None when the slice is over [`MAX_SLICE`] cells.
    pub cells: Option<Vec<SliceCell>>,
}

impl SliceCollector {
    /// A collector for `grid`.
    pub fn new(grid: &Grid) -> SliceCollector {
        let [nb, nr, ..] = grid.dims();
        SliceCollector {
            grid: grid.clone(),
            cells: (nb * nr <= MAX_SLICE).then(|| Vec::with_capacity(nb * nr)),
        }
    }
}

impl PointSink for SliceCollector {
    fn point(
        &mut self,
        index: Option<usize>,
        _point: &Point,
        _nominal: bool,
        totals: &[Totals],
    ) -> io::Result<()> {
        let (Some(cells), Some(index)) = (self.cells.as_mut(), index) else {
            return Ok(());
        };
        if let [_, _, 0, 0] = self.grid.coordinates(index) {
            let (saved, cost_saved) = sweep::savings(totals);
            cells.push(SliceCell {
                saved,
                baseline_tokens: totals[0].tokens,
                cost_saved,
                baseline_cost: totals[0].cost,
            });
        }
        Ok(())
    }
}

/// The edits sharing first place.
fn winners(savings: &[f64], baseline_total: f64) -> Vec<usize> {
    let ranking = rank::rank(savings, baseline_total);
    let best = ranking.order.first().map(|&w| ranking.ranks[w]);
    ranking
        .order
        .iter()
        .copied()
        .filter(|&e| Some(ranking.ranks[e]) == best)
        .collect()
}

/// Evenly spaced indices of `0..len`, at most `max`, always keeping the first, the last and
/// `keep` (the nominal value's index).
fn thin(len: usize, max: usize, keep: Option<usize>) -> Vec<usize> {
    if len <= max {
        return (0..len).collect();
    }
    let mut picked: Vec<usize> = (0..max).map(|k| k * (len - 1) / (max - 1)).collect();
    if let Some(k) = keep.filter(|k| !picked.contains(k)) {
        picked.push(k);
        picked.sort_unstable();
    }
    picked.dedup();
    picked
}

/// Index of `value` in `axis`, if it is there.
fn position(axis: &[f64], value: f64) -> Option<usize> {
    axis.iter().position(|&x| x == value)
}

/// The charts' input for `study` at `nominal`, with its sweep.
pub fn input(
    study: &Study,
    nominal: &Evaluation,
    sweep: Option<(&SweepOutcome, &[SliceCell])>,
    report: &Report,
) -> ChartInput {
    let s = study.scenario;
    let at = nominal.at();
    let edits: Vec<String> = s.edits.iter().map(|e| e.name.clone()).collect();
    let index_of = |name: &str| edits.iter().position(|e| e == name).unwrap_or(0);
    let outcomes =
        std::iter::once(&nominal.baseline).chain(nominal.edits.iter().map(|e| &e.outcome));
    let mut context = Vec::new();
    let mut cost = s.cache.as_ref().map(|_| Vec::new());
    for (i, (subject, outcome)) in study.subjects().zip(outcomes).enumerate() {
        let edit = i.checked_sub(1);
        let mut contexts = Vec::with_capacity(subject.run.len());
        let mut cached = Vec::new();
        let mut written = Vec::new();
        let with_cost = cost.is_some() && (edit.is_none() || subject.clear.is_some());
        subject.walk(
            study,
            &outcome.clearings,
            at,
            |_, _, f: &timeline::CallFigures<f64>| {
                contexts.push(f.context);
                if with_cost {
                    cached.push(f.cached);
                    written.push(f.written);
                }
            },
        );
        if let (Some(series), true) = (cost.as_mut(), with_cost) {
            series.push(CostSeries {
                name: subject.name.clone(),
                edit,
                cached_tokens: cached,
                written_tokens: written,
            });
        }
        context.push(RunSeries {
            name: subject.name.clone(),
            edit,
            context_tokens: contexts,
        });
    }
    let totals = report
        .edits
        .iter()
        .map(|e| TotalBar {
            edit: index_of(&e.name),
            saved_pct: e.saved_pct,
            equivalent_calls: e.equivalent_calls,
        })
        .collect();
    let (savings, ranking) = match sweep {
        Some((sw, slice)) if !edits.is_empty() => (
            savings_grid(sw, slice, at, &edits),
            ranking_map(sw, slice, at, false),
        ),
        _ => (None, None),
    };
    ChartInput {
        scenario: s.name.clone(),
        base_tokens: at.base_tokens,
        bytes_per_token: at.bytes_per_token,
        edits,
        savings,
        ranking,
        context,
        totals,
        cost,
    }
}

fn savings_grid(
    sw: &SweepOutcome,
    slice: &[SliceCell],
    at: Assumptions,
    edits: &[String],
) -> Option<SavingsGrid> {
    let g = &sw.grid;
    let nr = g.bytes_per_token.len();
    let bs: Vec<usize> = (0..g.base_tokens.len()).collect();
    let rs = thin(
        nr,
        MAX_PANELS,
        position(&g.bytes_per_token, at.bytes_per_token),
    );
    let percent = rs
        .iter()
        .map(|&r| bs.iter().map(|&b| slice[b * nr + r].saved_pct()).collect())
        .collect();
    let base_total = sw.affine.first().copied().flatten();
    let break_evens = sw
        .break_even
        .iter()
        .filter(|x| {
            x.inside_range
                && rs
                    .iter()
                    .any(|&r| g.bytes_per_token[r] == x.bytes_per_token)
        })
        .filter_map(|x| {
            let b_star = x.base_tokens?;
            let a = edits.iter().position(|e| *e == x.a)?;
            let b = edits.iter().position(|e| *e == x.b)?;
            let point = Assumptions {
                base_tokens: b_star,
                bytes_per_token: x.bytes_per_token,
            };
            let total = base_total?.at(point);
            let edited = sw.affine.get(a + 1).copied().flatten()?.at(point);
            Some(BreakEvenMark {
                a,
                b,
                bytes_per_token: x.bytes_per_token,
                base_tokens: b_star,
                percent: 100.0 * (total - edited) / total,
            })
        })
        .collect();
    Some(SavingsGrid {
        base_tokens: g.base_tokens.clone(),
        bytes_per_token: rs.iter().map(|&r| g.bytes_per_token[r]).collect(),
        percent,
        break_evens,
    })
}

/// The map of winners over (B, ρ), by reread tokens or (with `cost`) by cost.
pub fn ranking_map(
    sw: &SweepOutcome,
    slice: &[SliceCell],
    at: Assumptions,
    cost: bool,
) -> Option<RankingMap> {
    let stability = if cost { sw.cost.as_ref()? } else { &sw.tokens };
    let g = &sw.grid;
    let nr = g.bytes_per_token.len();
    let nominal_b = position(&g.base_tokens, at.base_tokens);
    let nominal_r = position(&g.bytes_per_token, at.bytes_per_token);
    let bs = thin(g.base_tokens.len(), MAX_MAP_AXIS, nominal_b);
    let rs = thin(nr, MAX_MAP_AXIS, nominal_r);
    let cell = |c: &SliceCell| {
        let (saved, total) = if cost {
            (&c.cost_saved, c.baseline_cost)
        } else {
            (&c.saved, c.baseline_tokens)
        };
        RankingCell {
            winners: winners(saved, total),
            order_differs: stability.order_differs(saved, total),
        }
    };
    Some(RankingMap {
        base_tokens: bs.iter().map(|&b| g.base_tokens[b]).collect(),
        bytes_per_token: rs.iter().map(|&r| g.bytes_per_token[r]).collect(),
        cells: rs
            .iter()
            .map(|&r| bs.iter().map(|&b| cell(&slice[b * nr + r])).collect())
            .collect(),
        nominal: nominal_b.zip(nominal_r).and_then(|(b, r)| {
            Some((
                bs.iter().position(|&x| x == b)?,
                rs.iter().position(|&x| x == r)?,
            ))
        }),
        measure: if cost {
            "cost".into()
        } else {
            "reread tokens".into()
        },
    })
}

/// Every chart's file name and SVG text; with `[cache]`, also `ranking-cost.svg`.
pub fn draw(
    input: &ChartInput,
    cost_map: Option<&RankingMap>,
) -> Result<Vec<(&'static str, String)>, ChartError> {
    let mut charts = chart::draw_all(input)?;
    if let Some(map) = cost_map {
        let prepared = chart::ranking::prepare(input, map)?;
        charts.push(("ranking-cost.svg", chart::ranking::draw(&prepared)?));
    }
    Ok(charts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_the_ends_and_the_nominal_value() {
        assert_eq!(thin(5, 6, None), vec![0, 1, 2, 3, 4]);
        assert_eq!(thin(41, 6, None), vec![0, 8, 16, 24, 32, 40]);
        assert_eq!(thin(41, 6, Some(13)), vec![0, 8, 13, 16, 24, 32, 40]);
    }
}
