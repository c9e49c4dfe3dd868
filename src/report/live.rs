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
use crate::sweep::{Point, SweepOutcome};
use crate::timeline::{CallFigures, Quantity, RunSums};

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
    /// Dollars of each run as `cost·per_cost + output[run]`, with `[price]`, when the cost
    /// moves and every run has a price.
    pub dollars: Option<DollarForms>,
}

/// `dollars = cost·per_cost + output`.
#[derive(Debug, Clone, PartialEq)]
pub struct DollarForms {
    /// USD per input-token equivalent.
    pub per_cost: f64,
    /// USD of each run's output tokens (same order as the forms).
    pub output: Vec<f64>,
}

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
        // A cache or model edit prices its run with terms of its own, which these forms
        // (one set of prices for every run) do not hold.
        let own_pricing = study.subjects().any(|s| s.whatif.pricing.is_some());
        let pricing = &study.pricing;
        let (cost, because) = match study.cache_prices(nominal) {
            _ if own_pricing => (
                None,
                Some("a cache or model edit prices its run with terms of its own".to_string()),
            ),
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
                            t.map(|t| t.scale(1.0 + retry) + output)
                        })
                        .collect(),
                ),
                None,
            ),
            Some(prices) => match study
                .subjects()
                .map(|s| cost_form(study, s, nominal, prices, &corners))
                .collect::<Result<Forms, String>>()
            {
                Ok(forms) => (Some(forms), None),
                Err(why) => (None, Some(why)),
            },
        };
        // Cost counts the output already (docs/model.md §4): dollars are the cost at the
        // scenario's input price, where every price the runs need is known.
        let dollars = cost.as_ref().and_then(|_| {
            let output = study
                .subjects()
                .flat_map(|s| s.run.iter())
                .any(|s| s.output_tokens > 0.0);
            pricing.dollars(1.0, output && !pricing.output_priced())?;
            let input = pricing.input_price?;
            Some(DollarForms {
                per_cost: input / 1e6,
                output: vec![0.0; study.subjects().count()],
            })
        });
        ClosedForms {
            base_tokens,
            bytes_per_token,
            tokens: sweep.affine.clone(),
            cost,
            cost_fixed_because: because,
            dollars,
        }
    }
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
    use crate::sweep::{Grid, SweepOptions, SweepOverrides};
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
    fn a_range_reaching_below_min_tokens_keeps_the_cost_at_the_nominal_point() {
        let s = scenario(&format!(
            "base_tokens = 6000\n{CACHE}[sweep]\nbase_tokens = [500, 6000]\nbytes_per_token = [3.0]\n"
        ));
        let (_, forms, _) = forms(&s);
        assert_eq!(forms.cost, None);
        assert_eq!(forms.dollars, None);
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
    fn a_warm_share_shorter_than_min_tokens_keeps_the_cost_at_the_nominal_point() {
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
        let dollars = forms.dollars.unwrap();
        assert_eq!(dollars.per_cost, 3.0 / 1e6);
        assert_eq!(dollars.output.len(), 5);
    }
}
