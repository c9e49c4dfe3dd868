//! Evaluating every run over a block of the grid: each run by the fastest path that gives
//! its figures.
//!
//! A run's sums depend on the point only through `B` and `ρ`; the cache read price and
//! the retry rate enter only the cost, computed from the sums. So runs that are replayed
//! are replayed once per `(B, ρ)` pair, not once per point, and the pairs that share `ρ`
//! go through one pass together, in lanes. Runs with closed forms are evaluated point by
//! point, which takes constant time.

use super::clearing::{self, Plan};
use super::model::{Model, Totals, totals};
use super::progress::Progress;
use super::replay;
use crate::evaluate::{Study, Subject};
use crate::ledger::Assumptions;
use crate::sweep::{Grid, Point};
use crate::timeline::RunSums;
use rayon::prelude::*;
use std::io;
use std::ops::Range;

/// Points evaluated per parallel chunk (bounds the memory of their totals).
const CHUNK: usize = 4096;

/// Most `(B, ρ)` pairs replayed in one block (bounds the memory of their sums).
const MAX_BLOCK_PAIRS: usize = 1 << 16;

/// Most base-token values a job replays a clearing at, at one `ρ`: they share the job's
/// work per call; more jobs keep both cores busy and the progress bar moving.
const CLEARING_GROUP: usize = 64;

/// How one run is evaluated over the grid.
enum Path {
    /// Its closed form at each point ([`totals`], which falls back to the reference walk
    /// where the closed form does not hold).
    PerPoint,
    /// Replayed without clearings in lanes (`--replay`), with its cache expiry flags.
    Lanes { expired: Option<Vec<bool>> },
    /// Replayed under its clearing policy in lanes.
    Clearing(Box<Plan>),
    /// Replayed at each point by the reference walk: a run with requests an edit adds
    /// (a deferred part's tool search, a compaction's request), which the lanes do not
    /// model.
    Reference,
}

/// Every run of a study with its path.
pub struct Evaluator<'s> {
    study: &'s Study<'s>,
    subjects: Vec<&'s Subject>,
    models: &'s [Model],
    paths: Vec<Path>,
    /// Per run, the output tokens of its calls, which the lanes price once per point.
    output_tokens: Vec<f64>,
}

/// The `(B, ρ)` pairs of a block, in grid order: pair `q` is base-token value `q / nr`
/// and bytes per token `q % nr`.
type Pairs = Range<usize>;

impl<'s> Evaluator<'s> {
    /// The paths for `study`'s runs: closed forms where they hold and `closed_form` is
    /// set, lanes otherwise.
    pub fn new(study: &'s Study<'s>, models: &'s [Model], closed_form: bool) -> Evaluator<'s> {
        let s = study.scenario;
        let subjects: Vec<&Subject> = study.subjects().collect();
        let paths = subjects
            .iter()
            .zip(models)
            .map(|(subject, model)| {
                // The run's own cache terms (a cache or model edit's).
                let cache = subject.cache(study);
                // The lanes price every call at one model.
                let uniform = subject.pricing(study).is_uniform();
                match (&subject.clear, model) {
                    (_, Model::Fixed { .. }) if closed_form => Path::PerPoint,
                    // The lanes replay clearings that persist; the provider's context
                    // editing edits each request on its own (docs/model.md §9).
                    // Re-fetches are added requests too (docs/model.md §11).
                    _ if !subject.whatif.searches.is_empty()
                        || (subject.removes && s.refetch > 0.0)
                        || subject.compact.is_some()
                        || subject
                            .clear
                            .as_ref()
                            .is_some_and(|p| p.api.is_some() || p.at_cold)
                        || !uniform =>
                    {
                        Path::Reference
                    }
                    (None, _) => Path::Lanes {
                        expired: cache.map(|c| replay::expired(&s.calls, &subject.run, c)),
                    },
                    (Some(policy), _) => Path::Clearing(Box::new(Plan::new(
                        &s.calls,
                        &subject.run,
                        policy,
                        &subject.clearable,
                        cache,
                    ))),
                }
            })
            .collect();
        let output_tokens = subjects
            .iter()
            .map(|s| s.run.iter().map(|slot| slot.output_tokens).sum())
            .collect();
        Evaluator {
            study,
            subjects,
            models,
            paths,
            output_tokens,
        }
    }

    /// Whether any run is replayed.
    fn replays(&self) -> bool {
        self.paths
            .iter()
            .any(|p| !matches!(p, Path::PerPoint | Path::Reference))
    }

    /// Units of work of the whole grid, for the progress bar: a replayed run costs its
    /// calls at each `(B, ρ)`, a closed form one per point.
    pub fn work(&self, grid: &Grid) -> u64 {
        let [nb, nr, ..] = grid.dims();
        let pairs = (nb as u64).saturating_mul(nr as u64);
        let points = grid.len() as u64;
        self.paths
            .iter()
            .zip(&self.subjects)
            .map(|(path, subject)| match path {
                Path::PerPoint => points,
                Path::Reference => points.saturating_mul(subject.requests().max(1) as u64),
                _ => pairs.saturating_mul(subject.run.len().max(1) as u64),
            })
            .fold(0u64, u64::saturating_add)
    }

    /// How many `(B, ρ)` pairs to evaluate per block: with replayed runs, enough for every
    /// `ρ` to fill its lanes; else about `points_per_chunk` points' worth.
    fn block_pairs(&self, grid: &Grid, points_per_chunk: usize) -> usize {
        let [nb, nr, nc, nt, nf] = grid.dims();
        let pairs = nb.saturating_mul(nr);
        let block = if self.replays() {
            nr.saturating_mul(CLEARING_GROUP).max(MAX_BLOCK_PAIRS)
        } else {
            points_per_chunk / nc.saturating_mul(nt).saturating_mul(nf).max(1)
        };
        block.clamp(1, pairs.max(1))
    }

    /// The sums of every replayed run at each pair of `pairs`: `[pair − start][run]`, None
    /// for runs evaluated point by point. Reports its work to `progress` as it goes.
    fn replay(
        &self,
        grid: &Grid,
        pairs: Pairs,
        progress: &Progress,
    ) -> Vec<Vec<Option<RunSums<f64>>>> {
        let nr = grid.bytes_per_token.len().max(1);
        let first = pairs.start;
        let mut table = vec![vec![None; self.subjects.len()]; pairs.len()];
        if !self.replays() {
            return table;
        }
        // Per ρ, the base-token indices of the block; per run, cut into groups of about
        // the same size, one job each.
        let columns: Vec<(usize, Vec<usize>)> = (0..nr)
            .map(|r| {
                (
                    r,
                    pairs
                        .clone()
                        .filter(|q| q % nr == r)
                        .map(|q| q / nr)
                        .collect(),
                )
            })
            .filter(|(_, bs): &(usize, Vec<usize>)| !bs.is_empty())
            .collect();
        let mut jobs: Vec<(usize, usize, &[usize])> = Vec::new();
        for (s, path) in self.paths.iter().enumerate() {
            let most = match path {
                Path::PerPoint | Path::Reference => continue,
                Path::Lanes { .. } => replay::LANES,
                Path::Clearing(_) => CLEARING_GROUP,
            };
            for (r, bs) in &columns {
                let per_job = bs.len().div_ceil(bs.len().div_ceil(most));
                jobs.extend(bs.chunks(per_job).map(|g| (s, *r, g)));
            }
        }
        let study = self.study;
        let results: Vec<Vec<RunSums<f64>>> = jobs
            .par_iter()
            .map_init(clearing::Buffers::default, |buffers, &(s, r, bs)| {
                let rho = grid.bytes_per_token[r];
                let subject = &self.subjects[s];
                let run = &subject.run;
                let cache = subject.cache(study);
                // Each point's assumptions as this run is walked: with the base an edit
                // changed, if any.
                let at = |b: usize| {
                    subject.at(Assumptions {
                        base_tokens: grid.base_tokens[b],
                        bytes_per_token: rho,
                    })
                };
                let main = subject.pricing(study).main();
                let output_tokens = self.output_tokens[s];
                let sums = match &self.paths[s] {
                    Path::Clearing(plan) => {
                        let bases: Vec<f64> = bs.iter().map(|&b| at(b).base_tokens).collect();
                        // ρ as the run is walked: ÷ a model edit's tokens factor.
                        let rho = bs.first().map_or(rho, |&b| at(b).bytes_per_token);
                        clearing::sums(plan, run, rho, &bases, cache, buffers)
                    }
                    Path::Lanes { expired } => {
                        let at: Vec<Assumptions> = bs.iter().map(|&b| at(b)).collect();
                        replay::sums(run, &at, cache.zip(expired.as_deref()))
                    }
                    Path::PerPoint | Path::Reference => Vec::new(),
                };
                let sums = sums
                    .into_iter()
                    .map(|sums| sums.priced_at(main, output_tokens))
                    .collect::<Vec<_>>();
                progress.advance((run.len().max(1) as u64).saturating_mul(bs.len() as u64));
                sums
            })
            .collect();
        for (&(s, r, bs), sums) in jobs.iter().zip(results) {
            for (&b, sum) in bs.iter().zip(sums) {
                table[b * nr + r - first][s] = Some(sum);
            }
        }
        table
    }

    /// Every run's totals at grid point `point` (the baseline first), with `replayed` the
    /// sums of the replayed runs at its `(B, ρ)`.
    fn totals(&self, point: &Point, replayed: &[Option<RunSums<f64>>]) -> Vec<Totals> {
        let study = self.study;
        self.subjects
            .iter()
            .zip(self.models)
            .zip(replayed)
            .zip(&self.paths)
            .map(|(((subject, model), sums), path)| match sums {
                // The lanes replay the run at the scenario's own re-fetch rate.
                Some(sums) if !subject.refetch_differs(study, point) => Totals {
                    tokens: sums.context,
                    cost: subject.cost(study, sums, point),
                },
                _ => totals(
                    study,
                    subject,
                    model,
                    point,
                    !matches!(path, Path::Reference),
                ),
            })
            .collect()
    }

    /// Evaluates every point of `grid` and hands each to `each` in grid order, with its
    /// index and every run's totals (the baseline first); an error from `each` stops the
    /// sweep. Points are evaluated in parallel, block by block, and handed over in order,
    /// so what `each` sees does not depend on the thread count. Reports the work done to
    /// `progress`: all of [`Evaluator::work`] by the end.
    pub fn each_point(
        &self,
        grid: &Grid,
        progress: &Progress,
        mut each: impl FnMut(usize, &Point, &[Totals]) -> io::Result<()>,
    ) -> io::Result<()> {
        let [nb, nr, nc, nt, nf] = grid.dims();
        // Both products are at most the number of points, which `run` has checked fits.
        let (pairs, per_pair) = (nb * nr, nc * nt * nf);
        let block = self.block_pairs(grid, CHUNK);
        let mut first_pair = 0;
        while first_pair < pairs {
            let block_pairs = first_pair..(first_pair + block).min(pairs);
            let replayed = self.replay(grid, block_pairs.clone(), progress);
            let mut start = block_pairs.start * per_pair;
            let block_end = block_pairs.end * per_pair;
            while start < block_end {
                let end = (start + CHUNK).min(block_end);
                let results: Vec<Vec<Totals>> = (start..end)
                    .into_par_iter()
                    .map(|i| {
                        let pair = &replayed[i / per_pair - block_pairs.start];
                        self.totals(&grid.point(i), pair)
                    })
                    .collect();
                for (index, point_totals) in (start..end).zip(&results) {
                    each(index, &grid.point(index), point_totals)?;
                }
                progress.advance(((end - start) as u64).saturating_mul(self.point_work()));
                start = end;
            }
            first_pair = block_pairs.end;
        }
        Ok(())
    }

    /// Units of work of one point's closed forms.
    fn point_work(&self) -> u64 {
        self.paths
            .iter()
            .zip(&self.subjects)
            .map(|(p, subject)| match p {
                Path::PerPoint => 1,
                Path::Reference => subject.requests().max(1) as u64,
                _ => 0,
            })
            .fold(0u64, u64::saturating_add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn scenario() -> crate::scenario::Scenario {
        let mut text = String::from(
            "name = \"e\"\nbase_tokens = 20000\nbytes_per_token = 3.0\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n",
        );
        for i in 0..60 {
            text.push_str(&format!(
                "[[call]]\nid = \"c{i}\"\nbytes = {}\nsegment = {}\n",
                1_000 + 997 * (i % 13),
                1 + i / 5
            ));
        }
        text.push_str("[[edit]]\nname = \"trim\"\ntrim = { call = \"c3\", by_percent = 50 }\n");
        text.push_str("[[edit]]\nname = \"server-side\"\nclear = { above_context_tokens = 40000, keep_results = 2, clear_at_least_tokens = 3000 }\n");
        load_str(&text, Path::new("e.toml")).unwrap()
    }

    fn grid() -> Grid {
        Grid {
            base_tokens: vec![5_000.0, 10_000.0, 20_000.0, 30_000.0, 500.0],
            bytes_per_token: vec![2.5, 3.0, 4.0],
            cache_read: vec![Some(0.1), Some(0.3)],
            retry_rate: vec![0.0, 0.2],
            refetch: vec![0.0],
            default_axes: false,
        }
    }

    /// The progress bar's estimate of the time left rests on its total being the work the
    /// sweep then reports, replayed runs and closed forms together.
    #[test]
    fn the_work_reported_adds_up_to_the_total() {
        let s = scenario();
        let study = Study::new(&s).unwrap();
        let g = grid();
        let nominal = study.nominal(Assumptions {
            base_tokens: s.base_tokens,
            bytes_per_token: s.bytes_per_token,
        });
        for closed_form in [true, false] {
            let models: Vec<Model> = study
                .subjects()
                .map(|subject| Model::new(&study, subject, &nominal))
                .collect();
            let evaluator = Evaluator::new(&study, &models, closed_form);
            let progress = Progress::hidden(evaluator.work(&g), g.len());
            let mut seen = Vec::new();
            evaluator
                .each_point(&g, &progress, |i, _, t| {
                    seen.push((i, t.len()));
                    Ok(())
                })
                .unwrap();
            assert_eq!(progress.position(), evaluator.work(&g));
            assert_eq!(seen, (0..g.len()).map(|i| (i, 3)).collect::<Vec<_>>());
        }
    }

    /// Replayed runs are evaluated once per (B, ρ) and priced at every cache read and retry
    /// value; each point equals the reference replay there.
    #[test]
    fn every_point_equals_the_reference() {
        let s = scenario();
        let study = Study::new(&s).unwrap();
        let g = grid();
        let nominal = study.nominal(Assumptions {
            base_tokens: s.base_tokens,
            bytes_per_token: s.bytes_per_token,
        });
        let models: Vec<Model> = study
            .subjects()
            .map(|subject| Model::new(&study, subject, &nominal))
            .collect();
        assert!(matches!(models[2], Model::Replay));
        let evaluator = Evaluator::new(&study, &models, true);
        let progress = Progress::hidden(0, 0);
        evaluator
            .each_point(&g, &progress, |_, p, t| {
                let subjects = study.subjects().zip(&models);
                for ((subject, model), got) in subjects.zip(t) {
                    assert_eq!(*got, totals(&study, subject, model, p, true), "{p:?}");
                }
                Ok(())
            })
            .unwrap();
    }
}
