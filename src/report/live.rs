//! The closed forms `report.html`'s sliders need: every run's reread total and, where it
//! is exact over the sliders' whole range, its cost, as affine forms in B and 1/ρ.
//!
//! The reread total of a run whose events do not move with the assumptions is affine
//! everywhere (docs/model.md §1). Its cost is too without a prompt cache (`T·(1 + retry)`),
//! but with one it is only piecewise affine: a request shorter than `min_tokens` is billed
//! as plain input, and a cached prefix shorter than it is not read from the cache. Each of
//! those lengths is itself affine in B and 1/ρ, so it stays at or above `min_tokens` over
//! the whole range exactly when it does at the range's four corners. The cost's closed form
//! is therefore shipped only when, for every call of every run, the context and the cached
//! prefix (unless none is ever cached) are at least `min_tokens` at all four corners: then
//! the replay takes the same branch at every point of the range, and the form is exact.

use crate::evaluate::{Study, Subject};
use crate::ledger::{Affine, Assumptions};
use crate::number::grouped;
use crate::sweep::{Grid, Point, PointSink, SweepOutcome, Totals};
use crate::timeline::{CallFigures, Quantity, RunSums};
use std::io;

/// Closed forms by run: the baseline first, then each edit in the scenario's order; None
/// for a run whose clearings move with B or ρ (sampled only).
pub type Forms = Vec<Option<Affine>>;

/// What the sliders of one scenario's page move.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClosedForms {
    /// The sliders' range of B: the swept values and the nominal B.
    pub base_tokens: (f64, f64),
    /// The sliders' range of ρ, likewise.
    pub bytes_per_token: (f64, f64),
    /// The reread totals.
    pub tokens: Forms,
    /// The costs in input-token equivalents, at the nominal cache read price and retry
    /// rate, when exact over the whole range (see the module's comment).
    pub cost: Option<Forms>,
    /// Why the cost has no closed form over the range, when it has none.
    pub cost_fixed_because: Option<String>,
    /// Whether the scenario has a prompt cache.
    pub cached: bool,
    /// USD per input-token equivalent: the scenario's input price ÷ 1e6, where known. A
    /// run's dollars are its cost (output included, docs/model.md §4) times this, where
    /// the run has dollars at all.
    pub dollars_per_cost: Option<f64>,
    /// The sweep's totals on the sliders' plane, for the runs without a closed form; set
    /// by the command that writes the page (see [`LiveSamples`]).
    pub samples: Option<Samples>,
}

/// Every run's totals at the sweep's grid points of the sliders' plane.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// The grid's values of B, ascending (at most [`MAX_SAMPLED_AXIS`], evenly thinned).
    pub base_tokens: Vec<f64>,
    /// The grid's values of ρ, ascending, likewise.
    pub bytes_per_token: Vec<f64>,
    /// Reread totals by run (the baseline first), est. tokens: `tokens[run][b·nρ + r]`.
    pub tokens: Vec<Vec<f64>>,
    /// Costs by run, input-token equivalents, laid out alike; None where the grid does
    /// not hold the nominal cache read price and retry rate (the cost would be another's).
    pub cost: Option<Vec<Vec<f64>>>,
}

/// Most values of B (and of ρ) kept in [`Samples`]: a page embeds at most this squared
/// per sampled run.
pub const MAX_SAMPLED_AXIS: usize = 21;

/// `lo..hi` over `values` and `nominal`.
pub fn range(values: &[f64], nominal: f64) -> (f64, f64) {
    values
        .iter()
        .fold((nominal, nominal), |(lo, hi), &v| (lo.min(v), hi.max(v)))
}

impl ClosedForms {
    /// The forms of `study`'s runs over the sweep's range and the nominal point.
    pub fn new(study: &Study, sweep: &SweepOutcome) -> ClosedForms {
        let nominal = &sweep.nominal;
        let base_tokens = range(&sweep.grid.base_tokens, nominal.base_tokens);
        let bytes_per_token = range(&sweep.grid.bytes_per_token, nominal.bytes_per_token);
        let corners = [
            (base_tokens.0, bytes_per_token.0),
            (base_tokens.0, bytes_per_token.1),
            (base_tokens.1, bytes_per_token.0),
            (base_tokens.1, bytes_per_token.1),
        ]
        .map(|(b, r)| Assumptions {
            base_tokens: b,
            bytes_per_token: r,
        });
        let retry = nominal.retry_rate;
        let pricing = &study.pricing;
        // A cache or model edit prices its run with terms of its own, which these forms
        // (one set of prices for every run) do not hold: that run is sampled only.
        let own = |s: &Subject| s.whatif.pricing.is_some();
        let (cost, because) = match study.cache_prices(nominal) {
            _ if !pricing.is_uniform() => (
                None,
                Some("the session's calls are priced at several models".to_string()),
            ),
            // Without a cache every input token costs 1: `T·(1 + retry)` and the output,
            // affine everywhere.
            None => (
                Some(
                    sweep
                        .affine
                        .iter()
                        .zip(study.subjects())
                        .map(|(t, subject)| {
                            let output: f64 = subject.run.iter().map(|s| s.output_tokens).sum();
                            let output = Affine::tokens(pricing.main().output_cost(output));
                            t.filter(|_| !own(subject))
                                .map(|t| t.scale(1.0 + retry) + output)
                        })
                        .collect(),
                ),
                None,
            ),
            Some(prices) => match study
                .subjects()
                .map(|s| match own(s) {
                    true => Ok(None),
                    false => cost_form(study, s, nominal, prices, &corners),
                })
                .collect::<Result<Forms, String>>()
            {
                Ok(forms) => (Some(forms), None),
                Err(why) => (None, Some(why)),
            },
        };
        ClosedForms {
            base_tokens,
            bytes_per_token,
            tokens: sweep.affine.clone(),
            cost,
            cost_fixed_because: because,
            cached: study.scenario.cache.is_some(),
            dollars_per_cost: pricing.input_price.map(|input| input / 1e6),
            samples: None,
        }
    }
}

/// Collects [`Samples`] as the sweep goes: the grid points of the (B, ρ) plane at the
/// nominal cache read price and retry rate (any other's for the reread totals alone, which
/// depend on neither), with B and ρ thinned evenly to [`MAX_SAMPLED_AXIS`] values each.
pub struct LiveSamples {
    grid: Grid,
    /// Grid indices of the kept B and ρ values, by ascending value.
    base_tokens: Vec<usize>,
    bytes_per_token: Vec<usize>,
    /// The (cache read, retry rate, re-fetch rate) indices of the kept plane, and whether
    /// they are the nominal point's.
    plane: (usize, usize, usize),
    nominal_plane: bool,
    /// Each kept point's totals, by run.
    cells: Vec<Option<Vec<Totals>>>,
}

impl LiveSamples {
    /// A collector for `grid` around `nominal`.
    pub fn new(grid: &Grid, nominal: &Point) -> LiveSamples {
        let read = grid
            .cache_read
            .iter()
            .position(|&c| c == nominal.cache_read);
        let retry = grid
            .retry_rate
            .iter()
            .position(|&t| t == nominal.retry_rate);
        let refetch = grid.refetch.iter().position(|&f| f == nominal.refetch);
        let base_tokens = kept(&grid.base_tokens, nominal.base_tokens);
        let bytes_per_token = kept(&grid.bytes_per_token, nominal.bytes_per_token);
        LiveSamples {
            cells: vec![None; base_tokens.len() * bytes_per_token.len()],
            grid: grid.clone(),
            base_tokens,
            bytes_per_token,
            plane: (read.unwrap_or(0), retry.unwrap_or(0), refetch.unwrap_or(0)),
            nominal_plane: read.is_some() && retry.is_some() && refetch.is_some(),
        }
    }

    /// The samples, once every kept point was seen; None otherwise (a sweep cut short).
    pub fn finish(self) -> Option<Samples> {
        let runs = self.cells.first()?.as_ref()?.len();
        let mut tokens = vec![Vec::with_capacity(self.cells.len()); runs];
        let mut cost = vec![Vec::with_capacity(self.cells.len()); runs];
        for cell in &self.cells {
            let cell = cell.as_ref().filter(|c| c.len() == runs)?;
            for (run, t) in cell.iter().enumerate() {
                tokens[run].push(t.tokens);
                cost[run].push(t.cost);
            }
        }
        let values = |axis: &[f64], kept: &[usize]| kept.iter().map(|&i| axis[i]).collect();
        Some(Samples {
            base_tokens: values(&self.grid.base_tokens, &self.base_tokens),
            bytes_per_token: values(&self.grid.bytes_per_token, &self.bytes_per_token),
            tokens,
            cost: self.nominal_plane.then_some(cost),
        })
    }
}

impl PointSink for LiveSamples {
    fn point(
        &mut self,
        index: Option<usize>,
        _point: &Point,
        _nominal: bool,
        totals: &[Totals],
    ) -> io::Result<()> {
        let Some(index) = index else { return Ok(()) };
        let [b, r, c, t, f] = self.grid.coordinates(index);
        if (c, t, f) != self.plane {
            return Ok(());
        }
        let (Some(b), Some(r)) = (
            self.base_tokens.iter().position(|&k| k == b),
            self.bytes_per_token.iter().position(|&k| k == r),
        ) else {
            return Ok(());
        };
        if let Some(cell) = self.cells.get_mut(b * self.bytes_per_token.len() + r) {
            *cell = Some(totals.to_vec());
        }
        Ok(())
    }
}

/// Indices of `axis` by ascending value, at most [`MAX_SAMPLED_AXIS`] evenly spaced ones,
/// always with the lowest, the highest and `nominal`'s (where it is on the axis).
fn kept(axis: &[f64], nominal: f64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..axis.len()).collect();
    order.sort_by(|&a, &b| axis[a].total_cmp(&axis[b]));
    order.dedup_by(|a, b| axis[*a] == axis[*b]);
    let n = order.len();
    if n <= MAX_SAMPLED_AXIS {
        return order;
    }
    let mut picked: Vec<usize> = (0..MAX_SAMPLED_AXIS)
        .map(|k| k * (n - 1) / (MAX_SAMPLED_AXIS - 1))
        .collect();
    if let Some(k) = order.iter().position(|&i| axis[i] == nominal) {
        picked.push(k);
        picked.sort_unstable();
        picked.dedup();
    }
    picked.into_iter().map(|k| order[k]).collect()
}

/// The cost's closed form of `subject` under a prompt cache with `(read, write)` prices
/// (None: sampled only), or why it is not exact over the rectangle with `corners`.
fn cost_form(
    study: &Study,
    subject: &Subject,
    nominal: &Point,
    (read, write): (f64, f64),
    corners: &[Assumptions; 4],
) -> Result<Option<Affine>, String> {
    if subject.depends_on_assumptions() {
        return Ok(None);
    }
    let min = study
        .scenario
        .cache
        .as_ref()
        .map_or(0.0, |c| c.min_tokens.max(0.0));
    let long_enough = |q: &Affine| corners.iter().all(|&c| q.at(c) >= min);
    let never = |q: &Affine| *q == Affine::default();
    let base_ok = corners.iter().all(|&c| !subject.base_below_zero(c));
    let sums = sums(study, subject, nominal, |f| {
        long_enough(&f.context) && (never(&f.cached) || long_enough(&f.cached))
    });
    match sums {
        // `RunSums::cost` with nothing uncached: every request is long enough.
        Some(s) if base_ok => Ok(Some(
            s.cached.scale(read)
                + s.written.scale(write)
                + s.context.scale(nominal.retry_rate * read)
                + s.output,
        )),
        _ => Err(format!(
            "with a prompt cache a request or cached prefix shorter than min_tokens ({}) is billed differently, and {} has one somewhere in the sliders' range",
            grouped(min, 0),
            subject.name
        )),
    }
}

/// The run's sums in closed form, calling `ok` on every call's figures; None as soon as
/// `ok` says no.
fn sums(
    study: &Study,
    subject: &Subject,
    nominal: &Point,
    mut ok: impl FnMut(&CallFigures<Affine>) -> bool,
) -> Option<RunSums<Affine>> {
    let at = nominal.assumptions();
    let clearings = subject.clearings(study, at);
    let mut all = true;
    let sums = subject.walk(study, &clearings, at, |_, _, f| {
        if all {
            all = ok(f);
        }
    });
    all.then_some(sums)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::outcome;
    use crate::scenario::load_str;
    use crate::sweep::{SweepOptions, SweepOverrides};
    use std::path::Path;

    /// A cached run of 40 calls with pauses, a trim, a drop, a clearing on segments and one
    /// that moves with B and ρ; `head` sets B, the cache and the sweep.
    fn scenario(head: &str) -> crate::scenario::Scenario {
        let mut text = format!("name = \"c\"\nbytes_per_token = 3.0\n{head}\n");
        for i in 0..40 {
            text.push_str(&format!(
                "[[call]]\nid = \"c{i}\"\nbytes = {}\nsegment = {}\ngap_s = {}\n",
                500 + 997 * (i % 7),
                1 + i / 8,
                if i % 9 == 8 { 600 } else { 20 }
            ));
        }
        text.push_str("[[edit]]\nname = \"trim\"\ntrim = { call = \"c3\", by_percent = 50 }\n");
        text.push_str("[[edit]]\nname = \"drop\"\ndrop = { call = \"c5\" }\n");
        text.push_str(
            "[[edit]]\nname = \"stale\"\nclear = { every_segments = 2, keep_segments = 1 }\n",
        );
        text.push_str("[[edit]]\nname = \"server-side\"\nclear = { above_context_tokens = 30000, keep_results = 2 }\n");
        load_str(&text, Path::new("c.toml")).unwrap()
    }

    fn forms(s: &crate::scenario::Scenario) -> (Study<'_>, ClosedForms, Point) {
        let study = Study::new(s).unwrap();
        let nominal = study.nominal(Assumptions {
            base_tokens: s.base_tokens,
            bytes_per_token: s.bytes_per_token,
        });
        let grid = Grid::new(s, &nominal, &SweepOverrides::default()).unwrap();
        let options = SweepOptions {
            closed_form: true,
            progress: false,
        };
        let mut sinks: [&mut dyn crate::sweep::PointSink; 0] = [];
        let sweep = crate::sweep::run(&study, &grid, &nominal, options, &mut sinks).unwrap();
        let forms = ClosedForms::new(&study, &sweep);
        (study, forms, nominal)
    }

    const CACHE: &str = "[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n";

    /// Where every request and cached prefix is long enough over the whole range, the
    /// cost's closed form is the replay's cost at every point of it, corners and inside.
    #[test]
    fn the_cost_form_is_the_replay_everywhere_in_the_range() {
        let s = scenario(&format!(
            "base_tokens = 6000\nretry_rate = 0.1\n{CACHE}[sweep]\nbase_tokens = [2000, 6000, 12000]\nbytes_per_token = [2.0, 3.0, 4.5]\n"
        ));
        let (study, forms, nominal) = forms(&s);
        assert_eq!(forms.base_tokens, (2000.0, 12000.0));
        let cost = forms.cost.as_ref().expect("exact over the range");
        assert_eq!(forms.cost_fixed_because, None);
        assert!(
            cost[4].is_none(),
            "the clearing that moves with B is sampled only"
        );
        for (b, r) in [
            (2000.0, 2.0),
            (2000.0, 4.5),
            (3333.0, 2.7),
            (7777.7, 3.9),
            (12000.0, 4.5),
        ] {
            let point = Point {
                base_tokens: b,
                bytes_per_token: r,
                ..nominal
            };
            for (subject, form) in study.subjects().zip(cost) {
                let Some(form) = form else { continue };
                let replayed = outcome(&study, subject, &point).cost;
                let closed = form.at(point.assumptions());
                assert!(
                    (closed - replayed).abs() <= 1e-9 * replayed,
                    "{} at B {b}, ρ {r}: {closed} vs {replayed}",
                    subject.name
                );
            }
        }
    }

    /// Below min_tokens a request is billed as plain input: where the range reaches there,
    /// the cost has no closed form over it, and the reason names the run.
    #[test]
    fn a_range_reaching_below_min_tokens_has_no_cost_form() {
        let s = scenario(&format!(
            "base_tokens = 6000\n{CACHE}[sweep]\nbase_tokens = [500, 6000]\nbytes_per_token = [3.0]\n"
        ));
        let (_, forms, _) = forms(&s);
        assert_eq!(forms.cost, None);
        assert_eq!(
            forms.cost_fixed_because.as_deref(),
            Some(
                "with a prompt cache a request or cached prefix shorter than min_tokens (1,024) is billed differently, and baseline has one somewhere in the sliders' range"
            )
        );
        assert!(forms.tokens.iter().take(4).all(Option::is_some));
    }

    /// A warm cache reads a share of the base at the first call; where that share is
    /// shorter than min_tokens nothing is read, which the closed form would miss.
    #[test]
    fn a_warm_share_shorter_than_min_tokens_has_no_cost_form() {
        let warm = CACHE.replace(
            "min_tokens = 1024\n",
            "min_tokens = 1024\nwarm_share = 0.1\n",
        );
        let s = scenario(&format!(
            "base_tokens = 6000\n{warm}[sweep]\nbase_tokens = [4000, 20000]\nbytes_per_token = [3.0]\n"
        ));
        assert_eq!(forms(&s).1.cost, None);
        let s = scenario(&format!(
            "base_tokens = 12000\n{warm}[sweep]\nbase_tokens = [11000, 20000]\nbytes_per_token = [3.0]\n"
        ));
        assert!(forms(&s).1.cost.is_some());
    }

    /// Without a cache the cost is the reread total × (1 + retry), and dollars follow it.
    #[test]
    fn without_a_cache_the_cost_is_the_reread_total_times_the_retries() {
        let s = scenario(
            "base_tokens = 6000\nretry_rate = 0.25\n[price]\ninput = 3.0\noutput = 15.0\nsource = \"test\"\n",
        );
        let (_, forms, _) = forms(&s);
        let cost = forms.cost.unwrap();
        for (c, t) in cost.iter().zip(&forms.tokens) {
            assert_eq!(c.map(|c| c.calls), t.map(|t| t.calls * 1.25));
        }
        assert_eq!(forms.dollars_per_cost, Some(3.0 / 1e6));
    }

    /// The samples are the sweep's own totals on the (B, ρ) plane at the nominal cache read
    /// price and retry rate, laid out `[b·nρ + r]`, every run's, the baseline first.
    #[test]
    fn the_samples_are_the_sweeps_totals_on_the_nominal_plane() {
        let s = scenario(&format!(
            "base_tokens = 6000\nretry_rate = 0.1\n{CACHE}[sweep]\nbase_tokens = [2000, 6000, 12000]\nbytes_per_token = [2.0, 3.0, 4.5]\nretry_rate = [0.0, 0.1]\ncache_read = [0.1, 0.2]\n"
        ));
        let study = Study::new(&s).unwrap();
        let nominal = study.nominal(Assumptions {
            base_tokens: 6000.0,
            bytes_per_token: 3.0,
        });
        let grid = Grid::new(&s, &nominal, &SweepOverrides::default()).unwrap();
        let mut samples = LiveSamples::new(&grid, &nominal);
        let options = SweepOptions {
            closed_form: true,
            progress: false,
        };
        let mut sinks: [&mut dyn PointSink; 1] = [&mut samples];
        crate::sweep::run(&study, &grid, &nominal, options, &mut sinks).unwrap();
        let samples = samples.finish().expect("every point seen");
        assert_eq!(samples.base_tokens, [2000.0, 6000.0, 12000.0]);
        assert_eq!(samples.bytes_per_token, [2.0, 3.0, 4.5]);
        let cost = samples
            .cost
            .as_ref()
            .expect("the grid holds the nominal plane");
        assert_eq!(samples.tokens.len(), 5);
        for (b, &base_tokens) in samples.base_tokens.iter().enumerate() {
            for (r, &bytes_per_token) in samples.bytes_per_token.iter().enumerate() {
                let point = Point {
                    base_tokens,
                    bytes_per_token,
                    ..nominal
                };
                for (run, subject) in study.subjects().enumerate() {
                    let replayed = outcome(&study, subject, &point);
                    let k = b * 3 + r;
                    let near = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
                    assert!(near(samples.tokens[run][k], replayed.total_tokens));
                    assert!(
                        near(cost[run][k], replayed.cost),
                        "{} at B {base_tokens}, ρ {bytes_per_token}",
                        subject.name
                    );
                }
            }
        }
    }

    /// A grid without the nominal retry rate holds other costs: the reread totals are
    /// sampled (they depend on neither), the cost is not.
    #[test]
    fn a_grid_off_the_nominal_retry_rate_samples_no_cost() {
        let s = scenario(&format!(
            "base_tokens = 6000\nretry_rate = 0.1\n{CACHE}[sweep]\nretry_rate = [0.0, 0.2]\n"
        ));
        let study = Study::new(&s).unwrap();
        let nominal = study.nominal(Assumptions {
            base_tokens: 6000.0,
            bytes_per_token: 3.0,
        });
        let grid = Grid::new(&s, &nominal, &SweepOverrides::default()).unwrap();
        let mut samples = LiveSamples::new(&grid, &nominal);
        let mut sinks: [&mut dyn PointSink; 1] = [&mut samples];
        let options = SweepOptions {
            closed_form: true,
            progress: false,
        };
        crate::sweep::run(&study, &grid, &nominal, options, &mut sinks).unwrap();
        let samples = samples.finish().unwrap();
        assert_eq!(samples.cost, None);
        assert_eq!(samples.tokens[0].len(), 9);
    }

    /// A long axis is thinned evenly to MAX_SAMPLED_AXIS values, keeping both ends and
    /// the nominal value.
    #[test]
    fn a_long_axis_keeps_its_ends_and_the_nominal_value() {
        let axis: Vec<f64> = (0..100).map(f64::from).collect();
        let kept = kept(&axis, 37.0);
        assert_eq!(kept.len(), MAX_SAMPLED_AXIS + 1);
        assert_eq!((kept[0], kept[kept.len() - 1]), (0, 99));
        assert!(kept.contains(&37));
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(super::kept(&[3.0, 1.0, 2.0], 2.0), [1, 2, 0]);
    }

    /// A cache edit prices its run with terms of its own: that run's cost has no closed
    /// form (the page samples it), every other run keeps its own.
    #[test]
    fn a_cache_edit_alone_loses_its_cost_form() {
        let mut s = scenario(&format!(
            "base_tokens = 6000\n{CACHE}[sweep]\nbase_tokens = [2000, 6000, 12000]\nbytes_per_token = [2.0, 3.0, 4.5]\n"
        ));
        let mut text =
            String::from("[[edit]]\nname = \"trim\"\ntrim = { call = \"c3\", by_percent = 50 }\n");
        text.push_str("[[edit]]\nname = \"1-hour cache\"\ncache = { ttl_s = 3600, write = 2.0 }\n");
        s = s.with_edits(
            crate::scenario::load_edits_str(&text, Path::new("e.toml"))
                .unwrap()
                .edits,
            "e.toml",
        );
        let (_, forms, _) = forms(&s);
        let cost = forms.cost.expect("the other runs keep theirs");
        assert!(cost[0].is_some() && cost[1].is_some());
        assert_eq!(cost[2], None);
        assert!(forms.tokens[2].is_some(), "its reread total is affine");
    }
}
