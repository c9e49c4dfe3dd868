//! From engine results to the charts' input, and the chart files themselves.
//!
//! The chart module draws whatever it is given; this module decides what that is: which
//! runs, which slices of the sweep grid, and how a very large grid is thinned so that every
//! picture stays readable.

use crate::chart::{
    self, AddedKind, AddedRequest, BreakEvenMark, ChartError, ChartInput, CostBar, CostSeries,
    CostTotals, PairCount, PairFlip, PlaneSlice, RankingPlane, RunSeries, SavingsGrid, TotalBar,
    WriteCause,
};
use crate::evaluate::{Evaluation, Study};
use crate::ledger::Assumptions;
use crate::report::{MeasureReport, Report};
use crate::sweep::{self, Grid, Point, PointSink, SweepOutcome, Totals};
use crate::timeline;
use rustc_hash::FxHashMap;
use std::io;

/// Most bytes-per-token panels drawn in `savings.svg`; more are thinned evenly.
const MAX_PANELS: usize = 6;
/// Most values per axis drawn in the ranking charts; more are thinned evenly.
const MAX_MAP_AXIS: usize = 61;

/// Largest number of (B, ρ) cells kept for the charts, over every kept slice.
pub const MAX_SLICE: usize = 1_000_000;
/// Most combinations of the other swept axes (cache read × retry rate) kept: the cost
/// ranking draws one row of panels per combination.
const MAX_SLICES: usize = 4;

/// One grid point of a (B, ρ) slice the charts draw.
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

/// The (cache read, retry rate) index pairs whose (B, ρ) slices the charts keep, in grid
/// order: every combination when there are at most [`MAX_SLICES`]; else the lowest and
/// highest of each swept axis (evenly spaced values when only one is swept). Fewer when the
/// slices would hold more than [`MAX_SLICE`] cells; none when one alone would.
pub fn kept_slices(grid: &Grid) -> Vec<(usize, usize)> {
    let [nb, nr, nc, nt, _] = grid.dims();
    let (cs, ts) = if nc * nt <= MAX_SLICES {
        ((0..nc).collect(), (0..nt).collect())
    } else if nc > 1 && nt > 1 {
        (thin(nc, 2, None), thin(nt, 2, None))
    } else {
        (thin(nc, MAX_SLICES, None), thin(nt, MAX_SLICES, None))
    };
    let mut kept: Vec<(usize, usize)> = cs
        .iter()
        .flat_map(|&c| ts.iter().map(move |&t| (c, t)))
        .collect();
    kept.truncate(MAX_SLICE / (nb * nr).max(1));
    kept
}

/// Collects the kept (B, ρ) slices (see [`kept_slices`]) as the sweep goes, in grid order:
/// `cells[(b * nr + r) * k + s]` for slice `s` of `k`; nothing when one slice alone is too
/// large to draw.
pub struct SliceCollector {
    grid: Grid,
    kept: Vec<(usize, usize)>,
    /// The re-fetch rate's index whose slices are kept: the nominal rate's (the charts
    /// draw B and ρ; the re-fetch rate is reported in words, docs/model.md §11).
    refetch: usize,
    /// None when a slice is over [`MAX_SLICE`] cells.
    pub cells: Option<Vec<SliceCell>>,
}

impl SliceCollector {
    /// A collector for `grid`.
    pub fn new(grid: &Grid) -> SliceCollector {
        let [nb, nr, ..] = grid.dims();
        let kept = kept_slices(grid);
        SliceCollector {
            grid: grid.clone(),
            cells: (!kept.is_empty()).then(|| Vec::with_capacity(nb * nr * kept.len())),
            kept,
            refetch: 0,
        }
    }

    /// Keeps the slices at re-fetch rate `p` (the nominal one; the first swept rate when
    /// `p` is not on the grid).
    pub fn at_refetch(mut self, p: f64) -> SliceCollector {
        self.refetch = self.grid.refetch.iter().position(|&x| x == p).unwrap_or(0);
        self
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
        let [_, _, c, t, f] = self.grid.coordinates(index);
        if f == self.refetch && self.kept.contains(&(c, t)) {
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

/// Evenly spaced indices of `0..len`, at most `max`, always keeping the first, the last and
/// `keep` (the nominal value's index).
fn thin(len: usize, max: usize, keep: Option<usize>) -> Vec<usize> {
    if len <= max {
        return (0..len).collect();
    }
    if max < 2 {
        return vec![keep.unwrap_or(0)];
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

/// The first word of a source (`fitted (simulate fit …)` → `fitted`), for chart labels.
fn source_word(source: &str) -> String {
    source
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or("assumed")
        .to_string()
}

/// The charts' input for `study` at `nominal`, with its sweep and the slices collected by
/// a [`SliceCollector`].
pub fn input(
    study: &Study,
    nominal: &Evaluation,
    sweep: Option<(&SweepOutcome, &[SliceCell])>,
    report: &Report,
) -> ChartInput {
    let s = study.scenario;
    let at = nominal.at();
    let edits: Vec<String> = s.edits.iter().map(|e| e.name.clone()).collect();
    let positions = positions(&edits);
    let index_of = |name: &str| positions.get(name).copied().unwrap_or(0);
    let (mut context, mut cost) = runs(study, nominal);
    let totals = report
        .edits
        .iter()
        .map(|e| TotalBar {
            edit: index_of(&e.name),
            saved_pct: e.saved_pct,
            equivalent_calls: e.equivalent_calls,
        })
        .collect();
    let totals_cost = s.cache.as_ref().map(|_| {
        let mut bars: Vec<CostBar> = report
            .edits
            .iter()
            .map(|e| CostBar {
                edit: index_of(&e.name),
                saved_pct: e.cost_saved_pct,
                saved: e.cost_saved,
                saved_dollars: e.dollars_saved,
            })
            .collect();
        // Best first by cost; equal savings keep the report's (token) order.
        bars.sort_by(|x, y| y.saved.total_cmp(&x.saved));
        CostTotals {
            price_source: report
                .edits
                .iter()
                .any(|e| e.dollars_saved.is_some())
                .then(|| s.price.as_ref().map(|p| p.source.clone()))
                .flatten(),
            bars,
        }
    });
    let sweep_report = report.sweep.as_ref();
    let (savings, ranking, ranking_cost) = match sweep {
        Some((sw, slice)) if !edits.is_empty() && !slice.is_empty() => (
            savings_grid(sw, slice, at, &edits),
            sweep_report
                .and_then(|r| ranking_plane(sw, slice, &nominal.point, &r.tokens, &edits, false)),
            sweep_report
                .and_then(|r| r.cost.as_ref())
                .and_then(|c| ranking_plane(sw, slice, &nominal.point, c, &edits, true)),
        ),
        _ => (None, None, None),
    };
    // Names as the charts label them: a model edit says what it is priced as. (The plain
    // names above are the keys the sweep's pairs are matched by.)
    let edits: Vec<String> = edits
        .into_iter()
        .map(|name| {
            report
                .edits
                .iter()
                .find(|e| e.name == name)
                .and_then(|e| e.what_if.as_ref())
                .map_or_else(|| name.clone(), |w| w.row_name(&name))
        })
        .collect();
    // Every run an edit made is labelled as its edit is.
    let label = |edit: Option<usize>, name: &mut String| {
        if let Some(row) = edit.and_then(|e| edits.get(e)) {
            name.clone_from(row);
        }
    };
    for run in &mut context {
        label(run.edit, &mut run.name);
    }
    for run in cost.iter_mut().flatten() {
        label(run.edit, &mut run.name);
    }
    ChartInput {
        scenario: s.name.clone(),
        base_tokens: at.base_tokens,
        bytes_per_token: at.bytes_per_token,
        sources: chart::ChartSources {
            base_tokens: source_word(&report.sources.base_tokens),
            bytes_per_token: source_word(&report.sources.bytes_per_token),
        },
        edits,
        savings,
        ranking,
        ranking_cost,
        context,
        totals,
        totals_cost,
        cost,
    }
}

/// Every run walked call by call at the nominal point: its context series and, with
/// `[cache]`, the cache traffic of the baseline and of each edit that changes it.
fn runs(study: &Study, nominal: &Evaluation) -> (Vec<RunSeries>, Option<Vec<CostSeries>>) {
    let s = study.scenario;
    let at = nominal.at();
    let outcomes =
        std::iter::once(&nominal.baseline).chain(nominal.edits.iter().map(|e| &e.outcome));
    let mut context = Vec::new();
    let mut cost = s.cache.as_ref().map(|_| Vec::new());
    let baseline_calls = s.calls.len();
    for (i, (subject, outcome)) in study.subjects().zip(outcomes).enumerate() {
        let edit = i.checked_sub(1);
        let n = subject.run.len();
        let mut contexts = Vec::with_capacity(n);
        let mut origins = Vec::with_capacity(n);
        let mut merged = Vec::new();
        let mut cached = Vec::new();
        let mut written = Vec::new();
        let mut causes = Vec::new();
        let events = &outcome.clearings.events;
        // A compaction is a request of its own, drawn as one; a clearing is a rule.
        let before = |compaction: bool| -> Vec<usize> {
            events
                .iter()
                .filter(|e| e.compaction.is_some() == compaction)
                .map(|e| e.before)
                .collect()
        };
        let (clearing_before, compaction_before) = (before(false), before(true));
        let cache = subject.cache(study).filter(|_| cost.is_some());
        let mut searches = subject.whatif.searches.iter().peekable();
        let mut pending = events.iter().peekable();
        let mut added = Vec::new();
        let mut added_cost = Vec::new();
        let sums = subject.walk(
            study,
            &outcome.clearings,
            at,
            |k, slot, f: &timeline::CallFigures<f64>| {
                // The first request at a position takes its event, as the walk does: a
                // compaction's request reads the context as it stood before it.
                if let Some(e) = pending.next_if(|e| e.before == k)
                    && e.compaction.is_some()
                {
                    added.push(AddedRequest {
                        before: k as u32,
                        tokens: f.context + e.freed_tokens,
                        kind: AddedKind::Compaction,
                    });
                }
                // A tool search an edit adds is drawn apart, before the call it precedes.
                if searches
                    .next_if(|r| r.before == k && r.slot == *slot)
                    .is_some()
                {
                    added.push(AddedRequest {
                        before: k as u32,
                        tokens: f.context,
                        kind: AddedKind::ToolSearch,
                    });
                    added_cost.push((k as u32, f.cached, f.written + f.uncached));
                    return;
                }
                contexts.push(f.context);
                origins.push(slot.origin);
                if slot.label as usize >= baseline_calls {
                    merged.push(k as u32);
                }
                if let Some(c) = cache {
                    cached.push(f.cached);
                    // A request under the minimum is billed as plain input, not written;
                    // it is drawn in the write bar, marked by its cause.
                    written.push(f.written + f.uncached);
                    let gap = match slot.origin as usize {
                        o if o < s.calls.len() => s.calls.gap_s(o),
                        _ => 0.0,
                    };
                    causes.push(if f.uncached > 0.0 {
                        WriteCause::BelowMinimum
                    } else if k == 0 {
                        WriteCause::First
                    } else if gap > c.ttl_s {
                        WriteCause::Expired
                    } else if compaction_before.binary_search(&k).is_ok() {
                        WriteCause::Compaction
                    } else if clearing_before.binary_search(&k).is_ok() {
                        WriteCause::Clearing
                    } else if f.cached == 0.0 && f.context > 0.0 {
                        WriteCause::BelowMinimum
                    } else {
                        WriteCause::Growth
                    });
                }
            },
        );
        if let (Some(series), Some(c)) = (cost.as_mut(), cache) {
            // What the walk reads and writes beyond the requests it shows: the compaction
            // requests', in the totals.
            let shown = |calls: &[f64], added: f64| calls.iter().sum::<f64>() + added;
            let added_cached: f64 = added_cost.iter().map(|a| a.1).sum();
            let added_written: f64 = added_cost.iter().map(|a| a.2).sum();
            let not_drawn = if compaction_before.is_empty() {
                (0.0, 0.0)
            } else {
                (
                    (sums.cached - shown(&cached, added_cached)).max(0.0),
                    (sums.written + sums.uncached - shown(&written, added_written)).max(0.0),
                )
            };
            let run = CostSeries {
                name: subject.name.clone(),
                edit,
                cached_tokens: cached,
                written_tokens: written,
                causes,
                clearings: clearing_before.len(),
                clearings_before: clearing_before.iter().map(|&b| b as u32).collect(),
                compactions_before: compaction_before.iter().map(|&b| b as u32).collect(),
                added: added_cost,
                not_drawn,
                ttl_s: c.ttl_s,
                min_tokens: c.min_tokens,
            };
            // An edit whose cache reads and writes are the baseline's, call for call, has
            // nothing to show: the chart names it instead.
            if series.first().is_none_or(|base| !same_traffic(base, &run)) {
                series.push(run);
            }
        }
        let (baseline_position, moved) = baseline_positions(&origins, baseline_calls);
        context.push(RunSeries {
            name: subject.name.clone(),
            edit,
            context_tokens: contexts,
            baseline_position,
            merged,
            moved,
            clearings: clearing_before.iter().map(|&b| b as u32).collect(),
            added,
        });
    }
    (context, cost)
}

/// Whether two runs read and write the cache alike at every call (within 1e-9).
fn same_traffic(a: &CostSeries, b: &CostSeries) -> bool {
    let alike = |x: &[f64], y: &[f64]| {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|(p, q)| (p - q).abs() <= 1e-9 * p.abs().max(q.abs()).max(1.0))
    };
    alike(&a.cached_tokens, &b.cached_tokens)
        && alike(&a.written_tokens, &b.written_tokens)
        && a.added.is_empty()
        && b.added.is_empty()
        && a.compactions_before == b.compactions_before
}

/// Where each call of a run is drawn on the baseline's call axis, and which calls are
/// drawn away from their own place: every call the edits leave in order (the longest run
/// of ascending origins) at its own baseline position, so a merge or drop leaves a gap
/// where calls went and a merged call is drawn where it is in every edit; a moved call
/// between the calls it now runs between, just before the next (its old place is a gap).
/// Empty positions when that is every call's own index (nothing to store).
fn baseline_positions(origins: &[u32], baseline_calls: usize) -> (Vec<f64>, Vec<u32>) {
    let mut seen = vec![false; baseline_calls];
    for &o in origins {
        match seen.get_mut(o as usize) {
            Some(s) if !*s => *s = true,
            // Two calls claim one position, or one beyond the baseline (not made by any
            // edit today): the run's own positions are then the honest fallback.
            _ => return (Vec::new(), Vec::new()),
        }
    }
    let in_place = ascending_run(origins);
    let mut positions = vec![0.0; origins.len()];
    let mut moved = Vec::new();
    let mut k = 0;
    while k < origins.len() {
        if in_place[k] {
            positions[k] = f64::from(origins[k]);
            k += 1;
            continue;
        }
        // A stretch of moved calls: spread just before the next call left in place.
        let end = (k..origins.len())
            .find(|&j| in_place[j])
            .unwrap_or(origins.len());
        let before = k.checked_sub(1).map_or(-1.0, |j| positions[j]);
        let next = in_place
            .get(end)
            .map_or(baseline_calls as f64, |_| f64::from(origins[end]));
        let count = (end - k) as f64;
        let step = (next - before).min(1.0) / (count + 1.0);
        for (m, j) in (k..end).enumerate() {
            positions[j] = next - (count - m as f64) * step;
            moved.push(j as u32);
        }
        k = end;
    }
    let own = positions.iter().enumerate().all(|(k, &p)| p == k as f64);
    if own {
        (Vec::new(), moved)
    } else {
        (positions, moved)
    }
}

/// Which of `origins` form a longest strictly ascending subsequence (the calls an edit left
/// in order; of two as long, either is honest: `[2, 3, 0, 1]` moved 0 and 1 to the end or
/// 2 and 3 to the front), in O(n log n).
fn ascending_run(origins: &[u32]) -> Vec<bool> {
    // tails[l]: index of the smallest last origin of an ascending run of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; origins.len()];
    for (i, &o) in origins.iter().enumerate() {
        let l = tails.partition_point(|&t| origins[t] < o);
        previous[i] = l.checked_sub(1).map(|p| tails[p]);
        if l == tails.len() {
            tails.push(i);
        } else {
            tails[l] = i;
        }
    }
    let mut in_place = vec![false; origins.len()];
    let mut at = tails.last().copied();
    while let Some(i) = at {
        in_place[i] = true;
        at = previous[i];
    }
    in_place
}

/// Each edit's position by name, the first of a repeated name as `position` would give:
/// looked up once per break-even or flip (of order edits²), a linear search made the charts
/// grow with the cube of the edits.
fn positions(edits: &[String]) -> FxHashMap<&str, usize> {
    let mut at = FxHashMap::default();
    for (i, e) in edits.iter().enumerate() {
        at.entry(e.as_str()).or_insert(i);
    }
    at
}

fn savings_grid(
    sw: &SweepOutcome,
    slice: &[SliceCell],
    at: Assumptions,
    edits: &[String],
) -> Option<SavingsGrid> {
    let g = &sw.grid;
    let nr = g.bytes_per_token.len();
    let k = kept_slices(g).len().max(1);
    let bs: Vec<usize> = (0..g.base_tokens.len()).collect();
    let rs = thin(
        nr,
        MAX_PANELS,
        position(&g.bytes_per_token, at.bytes_per_token),
    );
    // Reread totals do not depend on cache read or retry rate: the first slice stands for all.
    let percent = rs
        .iter()
        .map(|&r| {
            bs.iter()
                .map(|&b| slice.get((b * nr + r) * k).map(SliceCell::saved_pct))
                .collect::<Option<Vec<_>>>()
        })
        .collect::<Option<Vec<_>>>()?;
    let base_total = sw.affine.first().copied().flatten();
    let index = positions(edits);
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
            let a = *index.get(x.a.as_str())?;
            let b = *index.get(x.b.as_str())?;
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
        swept_bytes_per_token: nr,
        percent,
        break_evens,
    })
}

/// The (B, ρ) planes of the ranking chart, on reread tokens or (with `cost`) on cost.
fn ranking_plane(
    sw: &SweepOutcome,
    slice: &[SliceCell],
    nominal: &Point,
    measure: &MeasureReport,
    edits: &[String],
    cost: bool,
) -> Option<RankingPlane> {
    let at = nominal.assumptions();
    if edits.len() < 2 {
        return None;
    }
    let g = &sw.grid;
    let [nb, nr, nc, nt, _] = g.dims();
    let kept = kept_slices(g);
    let k = kept.len();
    let positions = positions(edits);
    let index_of = |name: &str| positions.get(name).copied();
    let bs = thin(nb, MAX_MAP_AXIS, position(&g.base_tokens, at.base_tokens));
    let rs = thin(
        nr,
        MAX_MAP_AXIS,
        position(&g.bytes_per_token, at.bytes_per_token),
    );
    // Reread totals do not move with cache read or retry rate: one slice says it all.
    let drawn: Vec<usize> = if cost { (0..k).collect() } else { vec![0] };
    let others_swept = nc * nt > 1;
    let slices = drawn
        .iter()
        .map(|&s| {
            let (c, t) = kept.get(s).copied().unwrap_or((0, 0));
            let cells = |f: &dyn Fn(&SliceCell) -> Vec<f64>| -> Option<Vec<Vec<Vec<f64>>>> {
                rs.iter()
                    .map(|&r| {
                        bs.iter()
                            .map(|&b| slice.get((b * nr + r) * k + s).map(f))
                            .collect()
                    })
                    .collect()
            };
            let saved = cells(&|c| {
                if cost {
                    c.cost_saved.clone()
                } else {
                    c.saved.clone()
                }
            })?;
            let baseline = cells(&|c| {
                vec![if cost {
                    c.baseline_cost
                } else {
                    c.baseline_tokens
                }]
            })?
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|v| v.first().copied().unwrap_or(0.0))
                    .collect()
            })
            .collect();
            let holds_nominal = !cost
                || (g.cache_read.get(c) == Some(&nominal.cache_read)
                    && g.retry_rate.get(t) == Some(&nominal.retry_rate));
            // Counted over every swept point, not only the drawn ones; the reread plane
            // stands for every cache read and retry rate swept, as the text counts it.
            let weight = if cost { 1 } else { nc * nt };
            let counts = measure
                .flips
                .iter()
                .filter_map(|f| {
                    let (a, b) = (index_of(&f.a)?, index_of(&f.b)?);
                    let (mut flipped, mut ties) = (0, 0);
                    for cell in (0..nb * nr).filter_map(|i| slice.get(i * k + s)) {
                        let (saved, total) = if cost {
                            (&cell.cost_saved, cell.baseline_cost)
                        } else {
                            (&cell.saved, cell.baseline_tokens)
                        };
                        match chart::plane::side(saved, total, a, b) {
                            chart::plane::Side::B => flipped += weight,
                            chart::plane::Side::Tie => ties += weight,
                            chart::plane::Side::A => {}
                        }
                    }
                    Some(PairCount {
                        a,
                        b,
                        flipped,
                        ties,
                    })
                })
                .collect();
            Some(PlaneSlice {
                label: (cost && others_swept).then(|| slice_label(g, c, t)),
                holds_nominal,
                saved,
                baseline,
                counts,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let note = match (cost, others_swept) {
        (false, true) => Some(
            "Reread totals do not depend on cache read or retry rate: one (B, ρ) plane stands for every value swept."
                .to_string(),
        ),
        _ => None,
    };
    Some(RankingPlane {
        measure: if cost { "cost" } else { "reread tokens" }.to_string(),
        base_tokens: bs.iter().map(|&b| g.base_tokens[b]).collect(),
        bytes_per_token: rs.iter().map(|&r| g.bytes_per_token[r]).collect(),
        swept: (nb, nr),
        slices_left_out: if cost { nc * nt - slices.len() } else { 0 },
        slices,
        flips: measure
            .flips
            .iter()
            .filter_map(|f| {
                Some(PairFlip {
                    a: index_of(&f.a)?,
                    b: index_of(&f.b)?,
                    count: f.count,
                })
            })
            .collect(),
        points: g.len(),
        matching_order: measure.points_matching_nominal_order,
        nominal_order: measure
            .nominal_order
            .iter()
            .filter_map(|n| index_of(n))
            .collect(),
        nominal: (at.base_tokens, at.bytes_per_token),
        affine: if cost {
            Vec::new()
        } else {
            sw.affine.iter().skip(1).copied().collect()
        },
        note,
    })
}

/// `cache read 0.1×, retry rate 0.2`: the values of the other swept axes at slice (c, t).
fn slice_label(g: &Grid, c: usize, t: usize) -> String {
    let [_, _, nc, nt, _] = g.dims();
    let mut parts = Vec::new();
    if let (true, Some(Some(read))) = (nc > 1, g.cache_read.get(c)) {
        parts.push(format!("cache read {}×", chart::style::ratio(*read)));
    }
    if let (true, Some(retry)) = (nt > 1, g.retry_rate.get(t)) {
        parts.push(format!("retry rate {}", chart::style::ratio(*retry)));
    }
    parts.join(", ")
}

/// Every chart's file name and SVG text.
pub fn draw(input: &ChartInput) -> Result<Vec<(&'static str, String)>, ChartError> {
    chart::draw_all(input)
}

/// `by_tool.svg` from the report's split of the reread total; None with a single group.
pub fn by_tool(report: &Report) -> Result<Option<(&'static str, String)>, ChartError> {
    if report.by_tool.len() < 2 {
        return Ok(None);
    }
    let shares: Vec<chart::by_tool::ToolShareBar> = report
        .by_tool
        .iter()
        .map(|t| chart::by_tool::ToolShareBar {
            group: t.group.clone(),
            share_pct: t.share_pct,
            reread_tokens: t.reread_tokens,
            calls: t.calls,
        })
        .collect();
    let prepared = chart::by_tool::prepare(&report.scenario, report.bytes_per_token, &shares)?;
    Ok(Some((
        chart::by_tool::FILE,
        chart::by_tool::draw(&prepared)?,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_the_ends_and_the_nominal_value() {
        assert_eq!(thin(5, 6, None), vec![0, 1, 2, 3, 4]);
        assert_eq!(thin(41, 6, None), vec![0, 8, 16, 24, 32, 40]);
        assert_eq!(thin(41, 6, Some(13)), vec![0, 8, 13, 16, 24, 32, 40]);
        assert_eq!(thin(4, 2, None), vec![0, 3]);
    }

    fn grid(nb: usize, nr: usize, nc: usize, nt: usize) -> Grid {
        Grid {
            base_tokens: (0..nb).map(|i| i as f64).collect(),
            bytes_per_token: (0..nr).map(|i| 1.0 + i as f64).collect(),
            cache_read: (0..nc).map(|i| Some(0.1 * (i + 1) as f64)).collect(),
            retry_rate: (0..nt).map(|i| i as f64 / 10.0).collect(),
            refetch: vec![0.0],
            default_axes: false,
        }
    }

    #[test]
    fn slices_kept_are_few_and_bounded() {
        // Up to four combinations: all of them.
        assert_eq!(
            kept_slices(&grid(3, 3, 2, 2)),
            vec![(0, 0), (0, 1), (1, 0), (1, 1)]
        );
        // More, with both axes swept: the lowest and highest of each.
        assert_eq!(
            kept_slices(&grid(3, 3, 3, 5)),
            vec![(0, 0), (0, 4), (2, 0), (2, 4)]
        );
        // One axis swept: evenly spaced values of it.
        assert_eq!(
            kept_slices(&grid(3, 3, 1, 10)),
            vec![(0, 0), (0, 3), (0, 6), (0, 9)]
        );
        // A plane of a million cells leaves room for one slice; a larger one for none.
        assert_eq!(kept_slices(&grid(1000, 1000, 2, 2)).len(), 1);
        assert!(kept_slices(&grid(1001, 1000, 2, 2)).is_empty());
    }

    #[test]
    fn the_collector_keeps_the_slices_in_grid_order() {
        let g = grid(2, 2, 3, 3);
        let mut collector = SliceCollector::new(&g);
        let totals = [Totals {
            tokens: 1.0,
            cost: 1.0,
        }];
        for index in 0..g.len() {
            let point = g.point(index);
            collector
                .point(Some(index), &point, false, &totals)
                .unwrap_or_default();
        }
        let kept = collector.cells.map_or(0, |c| c.len());
        assert_eq!(kept, 2 * 2 * 4);
    }

    #[test]
    fn positions_follow_the_baseline_with_gaps_where_calls_went() {
        let none = || (Vec::<f64>::new(), Vec::<u32>::new());
        // Calls 2 and 3 merged into call 1: the run keeps positions 0, 1, 4.
        assert_eq!(
            baseline_positions(&[0, 1, 4], 5),
            (vec![0.0, 1.0, 4.0], vec![])
        );
        // Nothing removed: every call at its own place (stored as empty).
        assert_eq!(baseline_positions(&[0, 1, 2], 3), none());
        // A merge "at last": the merged call keeps the last one's origin.
        assert_eq!(
            baseline_positions(&[0, 3, 4], 5),
            (vec![0.0, 3.0, 4.0], vec![])
        );
        // Two calls at one place: their own positions.
        assert_eq!(baseline_positions(&[0, 0, 1], 3), none());
    }

    #[test]
    fn a_moved_call_sits_where_it_now_runs_and_the_others_stay() {
        // Call 0 moved before call 3: calls 1 and 2 keep their places, 0 runs at 2.5.
        assert_eq!(
            baseline_positions(&[1, 2, 0, 3], 4),
            (vec![1.0, 2.0, 2.5, 3.0], vec![2])
        );
        // Moved with a merge of 2 and 3 (kept at 2): the merge stays at 2.
        assert_eq!(
            baseline_positions(&[1, 2, 0, 4], 5),
            (vec![1.0, 2.0, 3.5, 4.0], vec![2])
        );
        // Two calls moved to the end, after the last one.
        assert_eq!(
            baseline_positions(&[2, 3, 4, 0, 1], 5),
            (
                vec![2.0, 3.0, 4.0, 4.333_333_333_333_333, 4.666_666_666_666_667],
                vec![3, 4]
            )
        );
        // Moved to the front.
        assert_eq!(
            baseline_positions(&[3, 0, 1, 2], 4),
            (vec![-0.5, 0.0, 1.0, 2.0], vec![0])
        );
    }
}
