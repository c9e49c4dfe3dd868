//! Evaluating the baseline and every edit of a scenario at one point of the assumptions.

use crate::clear::{self, Clearings};
use crate::compact;
use crate::edit::{self, Edited};
use crate::error::{Error, Located};
use crate::finite::{self, NonFinite};
use crate::ledger::{Assumptions, Saving};
use crate::point::Point;
use crate::pricing::Pricing;
use crate::rank::{self, Ranking};
use crate::refetch::Removal;
use crate::run::Run;
use crate::scenario::{BaseChange, CacheSpec, ClearPolicy, CompactPolicy, Scenario};
use crate::timeline::{self, Quantity, RunSums};
use crate::whatif::{self, WhatIf};
use rayon::prelude::*;

/// One run to compare: the baseline or an edit's result.
#[derive(Debug, Clone)]
pub struct Subject {
    /// `baseline` or the edit's name.
    pub name: String,
    pub run: Run,
    pub clear: Option<ClearPolicy>,
    /// The compaction policy the run is replayed under, if any (docs/model.md §9).
    pub compact: Option<CompactPolicy>,
    /// Which results the policy may clear (empty without a policy).
    pub clearable: Vec<bool>,
    /// The change to the base tokens every call reads (`BaseChange::NONE` for most).
    pub base: BaseChange,
    /// What a `cache`, `model` or base-part step leaves beside the run: its own cache terms
    /// and prices, tokens factor, tool searches (docs/model.md §9). Default for most.
    pub whatif: WhatIf,
    /// Whether its edit removes results the agent read (docs/model.md §11): a clearing,
    /// a compaction, a cap or a dedupe. Only such a run changes with the re-fetch rate.
    pub removes: bool,
    /// The results its rules removed as the run was made (caps, dedupes), placed on it.
    pub rule_removals: Vec<Removal>,
}

impl Subject {
    /// The assumptions this run is walked at: `at` with the base an edit changed, and ρ ÷
    /// the tokens factor of a model edit. A base edit larger than the base removes what
    /// there is: the base is then 0, never negative (a history counts where; a single run
    /// refuses it first, see [`Study::check_bases`]).
    pub fn at(&self, at: Assumptions) -> Assumptions {
        let frame = self.frame(at);
        Assumptions {
            base_tokens: self
                .base
                .apply(frame.base_tokens, frame.bytes_per_token)
                .max(0.0),
            ..frame
        }
    }

    /// `at` with ρ ÷ the tokens factor: the same bytes give f times the tokens.
    fn frame(&self, at: Assumptions) -> Assumptions {
        let f = self.whatif.tokens_factor();
        if f == 1.0 {
            at
        } else {
            Assumptions {
                bytes_per_token: at.bytes_per_token / f,
                ..at
            }
        }
    }

    /// Whether the run's base edit removes more than the base at `at` (the base is 0
    /// there; its closed form, which would go below zero, does not hold).
    pub fn base_below_zero(&self, at: Assumptions) -> bool {
        self.base_tokens(at) < 0.0
    }

    /// The base its edit leaves at `at`, before it is held at 0 (ρ ÷ the tokens factor for
    /// a change in bytes).
    pub fn base_tokens(&self, at: Assumptions) -> f64 {
        let frame = self.frame(at);
        self.base.apply(frame.base_tokens, frame.bytes_per_token)
    }

    /// The models the run's calls are priced at: its own after a `cache` or `model` step,
    /// else the scenario's (each call at its logged model, docs/model.md §4).
    pub fn pricing<'s>(&'s self, study: &'s Study) -> &'s Pricing {
        self.whatif.pricing.as_ref().unwrap_or(&study.pricing)
    }

    /// The run's prompt cache, where every call is at one model (its own after a `cache`
    /// or `model` step, else the scenario's); with calls at several models, the
    /// scenario's own model's.
    pub fn cache<'s>(&'s self, study: &'s Study) -> Option<&'s CacheSpec> {
        self.pricing(study).main().cache.as_ref()
    }

    /// `(read, write)` cache multipliers at `point` of the run's own model (the one whose
    /// read price a swept `cache_read` sets), if the run has a cache.
    pub fn cache_prices(&self, study: &Study, point: &Point) -> Option<(f64, f64)> {
        self.pricing(study).models[0].cache_prices(point.cache_read)
    }

    /// The run's cost at `point` from its sums, in the scenario's input-token equivalents
    /// (every model's converted by its input price over the scenario's), output included
    /// where priced (docs/model.md §4).
    pub fn cost(&self, study: &Study, sums: &RunSums<f64>, point: &Point) -> f64 {
        sums.cost(self.cache_prices(study, point), point.retry_rate)
    }

    /// Its input price over the scenario's where a model edit moved every call (1
    /// otherwise).
    pub fn cost_scale(&self) -> f64 {
        self.whatif.pricing.as_ref().map_or(1.0, |p| p.main().scale)
    }

    /// Whether the run at `point` differs from the run at the scenario's own re-fetch rate
    /// (its clearings' [`Clearings::refetches`] are then another list).
    pub fn refetch_differs(&self, study: &Study, point: &Point) -> bool {
        self.removes && point.refetch != study.scenario.refetch
    }

    /// Requests the run makes: its calls and the tool searches a deferred part adds.
    pub fn requests(&self) -> usize {
        self.run.len() + self.whatif.searches.len()
    }

    /// The base as a quantity: a number at `at` (0 where the edit removes more than there
    /// is), or its closed form in `B` and `1/ρ`, valid only where the base stays ≥ 0.
    fn base_quantity<Q: Quantity>(&self, at: Assumptions) -> Q {
        let kept = if self.base.keep {
            Q::base(at)
        } else {
            Q::zero()
        };
        (kept + Q::tokens(self.base.tokens) + Q::bytes(self.base.bytes, at)).at_least_zero()
    }

    /// Walks the run under `clearings` at `at` (see `timeline::walk`), with its base:
    /// `each` sees every call and every request an edit adds, not the compaction requests
    /// (in the sums all the same; [`Subject::walk_requests`] shows them).
    pub fn walk<Q: Quantity>(
        &self,
        study: &Study,
        clearings: &Clearings,
        at: Assumptions,
        mut each: impl FnMut(usize, &crate::run::Slot, &crate::timeline::CallFigures<Q>),
    ) -> RunSums<Q> {
        self.walk_requests(study, clearings, at, |i, request, figures| {
            if let timeline::Request::Slot(slot) = request {
                each(i, slot, figures);
            }
        })
    }

    /// As [`Subject::walk`], handing `each` every request billed, compaction requests
    /// included (see `timeline::walk_requests`): what it sees adds up to the sums.
    pub fn walk_requests<Q: Quantity>(
        &self,
        study: &Study,
        clearings: &Clearings,
        at: Assumptions,
        each: impl FnMut(usize, timeline::Request<'_>, &crate::timeline::CallFigures<Q>),
    ) -> RunSums<Q> {
        let s = study.scenario;
        let frame = self.frame(at);
        let merged;
        let requests = if clearings.refetches.is_empty() {
            &self.whatif.searches[..]
        } else {
            merged = crate::refetch::merged(&clearings.refetches, &self.whatif.searches);
            &merged[..]
        };
        timeline::walk_requests(
            &s.calls,
            &self.run,
            clearings,
            Some(self.pricing(study)),
            frame,
            self.base_quantity(frame),
            requests,
            each,
        )
        .at_tokens_factor(self.whatif.tokens_factor())
    }

    /// The run's clearings at `at` (none without a policy), with the re-fetches the
    /// scenario's own re-fetch rate adds (`[behaviour] refetch`, docs/model.md §11); a
    /// compaction policy's compactions are clearing events of their own kind.
    pub fn clearings(&self, study: &Study, at: Assumptions) -> Clearings {
        self.clearings_at(study, at, study.scenario.refetch)
    }

    /// As [`Subject::clearings`], at re-fetch rate `refetch`.
    pub fn clearings_at(&self, study: &Study, at: Assumptions, refetch: f64) -> Clearings {
        let mut clearings = self.policy_clearings(study, at);
        if self.removes && refetch > 0.0 {
            clearings.refetches = crate::refetch::requests(
                &self.removals(study, &clearings),
                refetch,
                self.run.len(),
            );
        }
        clearings
    }

    /// Every result the run's edit removes under `clearings`, in the order removed: its
    /// rules' (caps, dedupes), then its clearings' and compactions' (docs/model.md §11).
    pub fn removals(&self, study: &Study, clearings: &Clearings) -> Vec<Removal> {
        let by_policy = crate::refetch::removed_by(&study.scenario.calls, &self.run, clearings);
        crate::refetch::in_order(&self.rule_removals, by_policy)
    }

    /// The clearings its policy makes at `at`, without re-fetches.
    fn policy_clearings(&self, study: &Study, at: Assumptions) -> Clearings {
        if let Some(policy) = &self.compact {
            return compact::replay(&study.scenario.calls, &self.run, policy, self.at(at));
        }
        match &self.clear {
            // The provider's context editing edits each request on its own.
            Some(policy) if policy.api.is_some() => crate::context_editing::replay(
                &self.run,
                policy,
                &self.clearable,
                self.at(at),
                &self.whatif.joins(),
            ),
            Some(policy) => clear::replay_with_joins(
                &study.scenario.calls,
                &self.run,
                policy,
                &self.clearable,
                self.at(at),
                &self.whatif.joins(),
            ),
            None => Clearings::none(),
        }
    }

    /// The run's sums under `clearings` at `at` (a number, or with `Q = Affine` the
    /// closed form).
    pub fn sums<Q: Quantity>(
        &self,
        study: &Study,
        clearings: &Clearings,
        at: Assumptions,
    ) -> RunSums<Q> {
        self.walk(study, clearings, at, |_, _, _| {})
    }

    /// Whether the run's sequence of events depends on `B` or `ρ` (a token-triggered
    /// clearing, or a compaction: its trigger is a context size). (A base edit that
    /// removes more than the base somewhere also breaks the closed form: see
    /// [`Subject::base_below_zero`].)
    pub fn depends_on_assumptions(&self) -> bool {
        self.compact.is_some()
            || self
                .clear
                .as_ref()
                .is_some_and(|p| p.depends_on_assumptions() || self.placeholders_outweigh(p))
    }

    /// Whether a clearing under `p` may free less than nothing at some ρ: a clearing frees
    /// its results' measured tokens plus (their bytes less the placeholders') ÷ ρ, which
    /// changes sign with ρ only where some clearable result has measured tokens and some
    /// has fewer bytes than its placeholder (docs/model.md §5).
    fn placeholders_outweigh(&self, p: &ClearPolicy) -> bool {
        let clearable = || {
            self.run
                .iter()
                .zip(&self.clearable)
                .filter_map(|(s, &c)| c.then_some(s))
        };
        clearable().any(|s| s.tokens > 0.0) && clearable().any(|s| s.bytes < p.placeholder_bytes)
    }
}

/// Calls from which a study's runs are walked one per thread ([`Study::walks_in_parallel`]).
const PARALLEL_WALK_CALLS: usize = 100_000;

/// What applying an edit found: its notes, why each (where known), other warnings.
type Found = (Vec<String>, Vec<Option<String>>, Vec<String>);

/// The scenario with its edits applied: what the engine compares.
#[derive(Debug, Clone)]
pub struct Study<'a> {
    pub scenario: &'a Scenario,
    pub baseline: Subject,
    /// One per edit, in the scenario's order.
    pub edited: Vec<Subject>,
    /// Things the user should know that are not errors (a setting overridden by pinning).
    pub warnings: Vec<String>,
    /// By edit index: the notes of applying it (a rule that selected no call), also in
    /// `warnings` (with why, where the trace's names tell); kept apart so many sessions
    /// can be counted per edit.
    pub edit_notes: Vec<Vec<String>>,
    /// `warnings` without the notes: what a history counts as warnings of a session.
    pub other_warnings: Vec<String>,
    /// The models the baseline's calls are priced at (docs/model.md §4).
    pub pricing: Pricing,
}

impl<'a> Study<'a> {
    /// Applies every edit to the baseline; an edit that names a call it cannot find is
    /// an input error pointing at the edit's key in the file.
    pub fn new(scenario: &'a Scenario) -> Result<Study<'a>, Error> {
        let calls = &scenario.calls;
        let named: Vec<&str> = scenario
            .edits
            .iter()
            .flat_map(|e| e.action.call_ids())
            .collect();
        let ids = edit::ids(calls, &named);
        let baseline = Run::baseline_of_shared(calls, &scenario.terms);
        let pricing = Pricing::of(scenario);
        let scope = whatif::Scope::of(scenario, &pricing);
        let edited = scenario
            .edits
            .iter()
            .map(|e| {
                let Edited {
                    run,
                    clear,
                    base,
                    notes,
                    why,
                    warnings,
                    compact,
                    whatif,
                    removed,
                } = edit::apply(calls, &ids, &baseline, &e.action, &scenario.terms, &scope)
                    .map_err(|bad| {
                        Error::from(
                            Located::new(scenario.edits_source(), bad.message)
                                .at(e.locate(&bad.key))
                                .place(format!("[[edit]] \"{}\": {}", e.name, bad.key)),
                        )
                    })?;
                // `at = "cold"` compares pauses with the lifetime the cost model uses.
                let lifetime_s = scenario
                    .cache
                    .as_ref()
                    .map_or(crate::fit::cache::DEFAULT_TTL_S, |c| c.ttl_s);
                let mut clear = clear;
                let mut compact = compact;
                if let Some(p) = clear.as_mut() {
                    p.lifetime_s = lifetime_s;
                }
                if let Some(p) = compact.as_mut() {
                    p.lifetime_s = lifetime_s;
                }
                let clearable = clear
                    .as_ref()
                    .map_or_else(Vec::new, |p| clear::clearable(calls, &run, p));
                let rule_removals = crate::refetch::placed(&run, &removed);
                Ok((
                    Subject {
                        name: e.name.clone(),
                        run,
                        clear,
                        compact,
                        clearable,
                        base,
                        whatif,
                        removes: e.action.removes_results(),
                        rule_removals,
                    },
                    (notes, why, warnings),
                ))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let (edited, found): (Vec<Subject>, Vec<Found>) = edited.into_iter().unzip();
        let edit_notes: Vec<Vec<String>> = found.iter().map(|(n, _, _)| n.clone()).collect();
        // The file's own warnings (located, naming their edit), then what applying each
        // edit found; a history counts the notes apart.
        let mut warnings: Vec<String> = scenario
            .warnings
            .iter()
            .chain(scenario.edits.iter().flat_map(|e| &e.warnings))
            .cloned()
            .collect();
        warnings.extend(pricing.remarks.iter().cloned());
        let mut other_warnings = warnings.clone();
        for ((e, subject), (notes, why, found)) in scenario.edits.iter().zip(&edited).zip(found) {
            let named = |w: &str| format!("[[edit]] \"{}\": {w}", e.name);
            let pinning = subject
                .clear
                .as_ref()
                .map(|p| clear::overridden_by_pinning(calls, p))
                .unwrap_or_default();
            for w in pinning.iter().chain(&found) {
                warnings.push(named(w));
                other_warnings.push(named(w));
            }
            for (note, why) in notes.iter().zip(why) {
                warnings.push(match why {
                    Some(why) => named(&format!("{note}: {why}")),
                    None => named(note),
                });
            }
            for w in &subject.whatif.remarks {
                warnings.push(named(w));
                other_warnings.push(named(w));
            }
        }
        Ok(Study {
            scenario,
            warnings,
            edit_notes,
            other_warnings,
            pricing,
            baseline: Subject {
                name: "baseline".into(),
                run: baseline,
                clear: None,
                compact: None,
                clearable: Vec::new(),
                base: BaseChange::NONE,
                whatif: WhatIf::default(),
                removes: false,
                rule_removals: Vec::new(),
            },
            edited,
        })
    }

    /// Checks that no base edit takes the base below zero at any of `points` (the nominal
    /// point and the sweep's corners: the base is monotone in B and in 1/ρ, so its lowest
    /// value over the grid is at a corner). For one scenario that is an error; a history
    /// lets such an edit remove what there is, session by session, and counts where.
    pub fn check_bases(&self, points: &[Assumptions]) -> Result<(), Error> {
        for (e, subject) in self.scenario.edits.iter().zip(&self.edited) {
            if subject.base.is_none() {
                continue;
            }
            if let Some(at) = points.iter().find(|at| subject.base_below_zero(**at)) {
                return Err(Located::new(
                    self.scenario.edits_source(),
                    format!(
                        "takes the base tokens below zero: B = {} at ρ = {} becomes {}; the base cannot be negative (lower the change, or sweep B from a higher value)",
                        crate::number::grouped(at.base_tokens, 0),
                        crate::number::decimal(at.bytes_per_token),
                        crate::number::grouped(subject.base_tokens(*at), 0)
                    ),
                )
                .at(e
                    .key_line_columns
                    .iter()
                    .find(|(k, _)| k.ends_with("base"))
                    .map(|(_, at)| *at)
                    .or(e.line_column))
                .place(format!("[[edit]] \"{}\": base", e.name))
                .into());
            }
        }
        Ok(())
    }

    /// The baseline, then every edit.
    /// Whether the runs are long enough to walk one per thread: a walk of a million calls
    /// takes milliseconds, while a history's short sessions are already spread over the
    /// threads one session each.
    pub fn walks_in_parallel(&self) -> bool {
        self.scenario.calls.len() >= PARALLEL_WALK_CALLS
    }

    pub fn subjects(&self) -> impl Iterator<Item = &Subject> {
        std::iter::once(&self.baseline).chain(&self.edited)
    }

    /// `(read, write)` cache multipliers at `point` of the scenario's own model, if the
    /// scenario has a cache. With a fitted miss share, a prefix the cache would read is
    /// partly written again: its expected price per token (affine, so the sweep stays
    /// exact).
    pub fn cache_prices(&self, point: &Point) -> Option<(f64, f64)> {
        self.pricing.models[0].cache_prices(point.cache_read)
    }

    /// Whether a run's cost differs from its reread total: a prompt cache, or output
    /// priced (docs/model.md §4). Without either, cost is the reread total.
    pub fn prices_cost(&self) -> bool {
        self.subjects().any(|s| s.pricing(self).prices_cost())
    }

    /// The nominal point: the scenario's values, with `B` and `ρ` as given.
    pub fn nominal(&self, at: Assumptions) -> Point {
        Point {
            base_tokens: at.base_tokens,
            bytes_per_token: at.bytes_per_token,
            cache_read: self.scenario.cache.as_ref().map(|c| c.read),
            retry_rate: self.scenario.retry_rate,
            refetch: self.scenario.refetch,
        }
    }
}

/// One run's figures at a point.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub calls: usize,
    /// Reread total, in est. tokens.
    pub total_tokens: f64,
    /// Cost in input-token equivalents (docs/model.md §4).
    pub cost: f64,
    /// Dollars, with `[price]`; None when a price it needs is missing.
    pub dollars: Option<f64>,
    /// Output tokens whose output price is unknown: not in `cost` (docs/model.md §4).
    pub unpriced_output_tokens: f64,
    pub clearings: Clearings,
}

/// One edit's figures and savings.
#[derive(Debug, Clone, PartialEq)]
pub struct EditResult {
    pub outcome: Outcome,
    pub saving: Saving,
    pub cost_saving: Saving,
}

/// Every run's figures at one point, and the rankings.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub point: Point,
    pub baseline: Outcome,
    /// By edit index.
    pub edits: Vec<EditResult>,
    /// By reread total.
    pub ranking: Ranking,
    /// By cost; meaningful only with `[cache]`.
    pub cost_ranking: Ranking,
}

impl Evaluation {
    /// The point's two ledger assumptions.
    pub fn at(&self) -> Assumptions {
        self.point.assumptions()
    }
}

/// Replays `subject` at `point` call by call.
pub fn outcome(study: &Study, subject: &Subject, point: &Point) -> Outcome {
    let clearings = subject.clearings_at(study, point.assumptions(), point.refetch);
    outcome_with(study, subject, point, clearings)
}

/// Replays `subject` at `point` with `clearings` already made for it (its policy's at
/// `point`'s B and ρ, with the re-fetches of some rate): what lets a re-fetch sweep make
/// a policy's clearings once for every rate (`crate::behaviour::outcomes_at_rates`).
pub fn outcome_with(
    study: &Study,
    subject: &Subject,
    point: &Point,
    clearings: Clearings,
) -> Outcome {
    let at = point.assumptions();
    let sums: RunSums<f64> = subject.sums(study, &clearings, at);
    let cost = subject.cost(study, &sums, point);
    // A compaction is a request too (its summary, output, is in the sums).
    let compactions = clearings
        .events
        .iter()
        .filter(|e| e.compaction.is_some())
        .count();
    Outcome {
        calls: subject.requests() + compactions + clearings.refetches.len(),
        total_tokens: sums.context,
        cost,
        dollars: subject
            .pricing(study)
            .dollars(cost, sums.unpriced_output_tokens > 0.0),
        unpriced_output_tokens: sums.unpriced_output_tokens,
        clearings,
    }
}

/// Evaluates every run of `study` at `point` by replaying it call by call.
pub fn evaluate(study: &Study, point: Point) -> Evaluation {
    // Each run is a walk of its own: on a long trace, one per thread.
    let (baseline, edited): (Outcome, Vec<Outcome>) = match study.walks_in_parallel() {
        true => rayon::join(
            || outcome(study, &study.baseline, &point),
            || {
                let each = study.edited.par_iter();
                each.map(|s| outcome(study, s, &point)).collect()
            },
        ),
        false => (
            outcome(study, &study.baseline, &point),
            study
                .edited
                .iter()
                .map(|s| outcome(study, s, &point))
                .collect(),
        ),
    };
    let n = baseline.calls;
    let edits: Vec<EditResult> = edited
        .into_iter()
        .map(|o| EditResult {
            saving: Saving::new(baseline.total_tokens, n, o.total_tokens),
            cost_saving: Saving::new(baseline.cost, n, o.cost),
            outcome: o,
        })
        .collect();
    let savings: Vec<f64> = edits.iter().map(|e| e.saving.saved).collect();
    let cost_savings: Vec<f64> = edits.iter().map(|e| e.cost_saving.saved).collect();
    Evaluation {
        point,
        ranking: rank::rank(&savings, baseline.total_tokens),
        cost_ranking: rank::rank(&cost_savings, baseline.cost),
        baseline,
        edits,
    }
}

/// Checks every figure of `evaluation` (the baseline's and each edit's totals, costs,
/// dollars and savings) that an output would show.
///
/// Errors: [`NonFinite`] naming the first run and figure that is infinite or not a number,
/// and the point.
pub fn check_finite(study: &Study, evaluation: &Evaluation) -> Result<(), NonFinite> {
    let point = finite::describe(None, &evaluation.point);
    let fail = |run: &str, figure, value| NonFinite {
        run: run.into(),
        figure,
        value,
        point: point.clone(),
    };
    outcome_figures(&evaluation.baseline)
        .map_err(|(figure, value)| fail("baseline", figure, value))?;
    for (subject, edit) in study.edited.iter().zip(&evaluation.edits) {
        let figures = outcome_figures(&edit.outcome)
            .and_then(|()| saving_figures(&edit.saving, "saving"))
            .and_then(|()| saving_figures(&edit.cost_saving, "cost saving"));
        figures.map_err(|(figure, value)| fail(&subject.name, figure, value))?;
    }
    Ok(())
}

/// The first figure of a run's outcome that is not finite.
fn outcome_figures(o: &Outcome) -> Result<(), (&'static str, f64)> {
    finite::first_bad(&[
        ("reread total", Some(o.total_tokens)),
        ("cost", Some(o.cost)),
        ("dollar cost", o.dollars),
    ])
}

/// The first figure of a saving that is not finite.
fn saving_figures(s: &Saving, what: &'static str) -> Result<(), (&'static str, f64)> {
    finite::first_bad(&[
        (what, Some(s.saved)),
        ("saving in percent", Some(s.percent)),
        ("saving in equivalent calls", Some(s.equivalent_calls)),
    ])
}
