//! The arithmetic over many sessions (docs/model.md §7), as pure functions of their figures.
//!
//! An edit's aggregate saving is the sum of its per-session savings, its percentage is of
//! the summed baseline totals, and beside it goes the distribution of the per-session
//! percentages: a sum can hide that one long session carries the whole saving. Sums run in
//! session order from zero, so the aggregate is exactly the sum a reader would compute
//! from `sessions.csv`, whatever the thread count.

use super::Factors;
use super::agreement::{Agreement, agreement};
use super::percentile::nearest_rank;
use crate::ledger::Affine;
use crate::rank::{self, Ranking};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The spread of per-session percentages saved, nearest-rank.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Distribution {
    pub min: f64,
    pub p10: f64,
    pub median: f64,
    pub p90: f64,
    pub max: f64,
}

impl Distribution {
    /// The distribution of `values`; None when there are none.
    pub fn of(values: &[f64]) -> Option<Distribution> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let at = |p| nearest_rank(&sorted, p);
        Some(Distribution {
            min: *sorted.first()?,
            p10: at(10.0)?,
            median: at(50.0)?,
            p90: at(90.0)?,
            max: *sorted.last()?,
        })
    }
}

/// One edit over every session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditAggregate {
    pub name: String,
    /// Position in the edits file (0-based): the index of this edit in every session.
    pub index: usize,
    /// 1-based rank by aggregate saving; ties share a rank.
    pub rank: usize,
    /// Σ of the per-session savings, est. tokens (each session at its own ρ).
    pub saved_tokens: f64,
    /// `100 · saved_tokens / Σ baseline totals`.
    pub saved_pct: f64,
    /// The saving in average baseline calls over all sessions (`Σ T / Σ n`).
    pub equivalent_calls: f64,
    /// Σ of the per-session cost savings, input-token equivalents.
    pub cost_saved: f64,
    /// `100 · cost_saved / Σ baseline costs`.
    pub cost_saved_pct: f64,
    /// 1-based rank by aggregate cost saving; ties share a rank. Differs from `rank` only
    /// where a prompt cache prices the rereads unevenly (a clearing's rewrite, a pause).
    pub cost_rank: usize,
    /// Σ of the per-session dollar savings over the sessions with a `[price]`; None when
    /// no session has one.
    pub dollars_saved: Option<f64>,
    /// Sessions with a `[price]`: the denominator of `dollars_saved`.
    pub priced_sessions: usize,
    /// Per-session percentages saved: min, p10, median, p90, max.
    pub per_session_pct: Distribution,
    /// Sessions where this edit ranks first (a tie for first counts for each tied edit),
    /// of those some edit changes the reread total of: where none does, every edit ties at
    /// 0 and none wins.
    pub sessions_first: usize,
    /// Sessions where it saves something (beyond a tie with zero).
    pub sessions_saving: usize,
    /// Sessions where it adds rereads.
    pub sessions_adding: usize,
    /// Sessions where one of its rules selected no call.
    pub sessions_selected_nothing: usize,
    /// Those rules (`cap`, `step 2: drop`…), each once, in the order first met.
    pub rules_selecting_nothing: Vec<String>,
    /// Sessions whose base this edit's base change is larger than, at their nominal point:
    /// it removes what there is (B = 0 there), not an error.
    pub sessions_base_clamped: usize,
    /// Sessions where it is at some point of the factor grid (B = 0 at those points).
    pub sessions_base_clamped_in_sweep: usize,
    /// Every session where either happens, in session order.
    pub base_clamped: Vec<BaseClamped>,
    /// What the edit's `cache`, `model` or base-part steps did over the sessions
    /// (docs/model.md §9); absent for other edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub what_if: Option<WhatIfAggregate>,
    /// For an edit that removes results (docs/model.md §11): its summed saving at each
    /// swept re-fetch rate, and where that stops; absent for other edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refetch: Option<super::refetch::RefetchAggregate>,
}

/// A what-if edit over every session.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct WhatIfAggregate {
    /// The model the sessions are priced as.
    pub priced_as: Option<String>,
    /// Its tokenizer's factor, where given.
    pub tokens_factor: Option<f64>,
    /// Sessions a cache step leaves unchanged because their trace kind is not in its
    /// `traces`, by name, in session order.
    pub trace_unchanged: Vec<String>,
    /// Each base part dropped or deferred.
    pub parts: Vec<PartAggregate>,
}

impl EditAggregate {
    /// Whether the edit changes the cost alone (a cache or model edit that only
    /// reprices): it saves no reread token in any session, so a reread-token figure of it
    /// would read as a 0.0 % saving where it saves money. Such rows say "cost only", and
    /// the token charts leave the edit out (the cost charts have it).
    pub fn cost_only(&self) -> bool {
        self.what_if.is_some()
            && self.saved_tokens == 0.0
            && (self.cost_saved != 0.0 || self.dollars_saved.is_some_and(|d| d != 0.0))
    }

    /// The edit's name as a row shows it: a model edit says what it is priced as.
    pub fn row_name(&self) -> String {
        match self.what_if.as_ref().and_then(|w| w.priced_as.as_ref()) {
            Some(model) => format!("{} (priced as {model})", self.name),
            None => self.name.clone(),
        }
    }
}

/// A base part dropped or deferred, over every session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartAggregate {
    pub part: String,
    /// `drop` or `defer`.
    pub action: &'static str,
    /// Calls that use the part's tools, in all.
    pub calls_using: usize,
    /// Sessions with such calls, with how many each, in session order.
    pub sessions_using: Vec<(String, usize)>,
    /// Tool searches added (deferred parts: one per session that uses its tools).
    pub tool_searches: usize,
}

impl WhatIfAggregate {
    /// Adds one session's report of the edit.
    pub(crate) fn add(&mut self, session: &str, w: &crate::report::WhatIfReport) {
        if self.priced_as.is_none() {
            self.priced_as.clone_from(&w.priced_as);
            self.tokens_factor = w.tokens_factor;
        }
        if w.trace_unchanged {
            self.trace_unchanged.push(session.to_string());
        }
        for u in &w.parts {
            let at = match self.parts.iter().position(|p| p.part == u.part) {
                Some(at) => at,
                None => {
                    self.parts.push(PartAggregate {
                        part: u.part.clone(),
                        action: u.action,
                        calls_using: 0,
                        sessions_using: Vec::new(),
                        tool_searches: 0,
                    });
                    self.parts.len() - 1
                }
            };
            let p = &mut self.parts[at];
            p.calls_using += u.call_ids.len();
            if !u.call_ids.is_empty() {
                p.sessions_using
                    .push((session.to_string(), u.call_ids.len()));
            }
            p.tool_searches += usize::from(u.search_before.is_some());
        }
    }
}

/// A session whose base an edit's base change is larger than.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BaseClamped {
    pub session: String,
    /// The session's nominal B.
    pub base_tokens: f64,
    /// Whether the change is larger than the base at the nominal point.
    pub at_nominal: bool,
    /// Points of the factor grid where it is.
    pub points: usize,
}

/// Every edit over every session, and whether the sessions agree on the order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Aggregate {
    pub sessions: usize,
    /// Σ of the baseline call counts.
    pub calls: usize,
    /// Σ of the baseline reread totals, est. tokens.
    pub baseline_total_tokens: f64,
    /// Σ of the baseline costs, input-token equivalents.
    pub baseline_cost: f64,
    /// Sessions with a `[cache]`; the others' cost is flat (their reread total).
    pub cached_sessions: usize,
    /// Sessions no edit changes: every saving ties with 0, in reread tokens and in cost.
    pub sessions_unchanged: usize,
    /// Sessions where some edit changes the cost but none the reread total (a cache or
    /// model edit that only reprices). With `sessions_unchanged`, they are left out of
    /// every edit's `sessions_first`, which ranks by reread tokens.
    pub sessions_cost_only: usize,
    /// By edit index.
    pub edits: Vec<EditAggregate>,
    /// Of the aggregate savings.
    #[serde(skip)]
    pub ranking: Ranking,
    /// Sessions against the aggregate order (item = session index, session order).
    pub across_sessions: Agreement,
    /// Every session's name, by session index.
    #[serde(skip)]
    pub session_names: SessionNames,
    /// The sessions no edit changes, by index.
    #[serde(skip)]
    pub unchanged: Vec<usize>,
    /// How many sessions' B and ρ were fitted, measured or assumed.
    #[serde(skip)]
    pub base_tokens_sources: BTreeMap<String, usize>,
    #[serde(skip)]
    pub bytes_per_token_sources: BTreeMap<String, usize>,
    /// Each warning other than a rule that selected nothing, with its sessions.
    #[serde(skip)]
    pub warnings: BTreeMap<String, usize>,
    /// Per edit (by index), every session's percentage saved, in session order: what
    /// `sessions.svg` draws.
    #[serde(skip)]
    pub session_pcts: Vec<Vec<f64>>,
    /// Per edit (by index), every session's percentage of its own baseline cost saved, in
    /// session order, in the cost ranking's unit (dollars where `ranked_by_dollars`, else
    /// input-token equivalents): what `sessions-cost.svg` draws.
    #[serde(skip)]
    pub session_cost_pcts: Vec<Vec<f64>>,
    /// Where `session_cost_pcts` is in dollars: the same in input-token equivalents (what
    /// `suggest` spreads); None where `session_cost_pcts` is in them already. Kept, not
    /// recomputed: they were held while summing anyway.
    #[serde(skip)]
    pub session_token_cost_pcts: Option<Vec<Vec<f64>>>,
    /// Σ of the simulated baseline dollars over the sessions priced; None when none is.
    pub baseline_dollars: Option<f64>,
    /// Sessions whose dollars are known: the denominator of `baseline_dollars`.
    pub priced_sessions: usize,
    /// Whether the cost ranking is by dollars (every session priced) rather than by
    /// input-token equivalents, which differ in worth from one model to another.
    pub ranked_by_dollars: bool,
    /// Measured beside simulated, over the sessions with measured usage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<MeasuredTotals>,
    /// Sessions left out of every sum because their simulated cost is further from the
    /// measured than `--max-cost-diff` allows (the first [`LISTED_OFF`], and how many).
    pub excluded: OffSessions,
}

/// Sessions named where their simulated cost is off the measured, at most this many.
pub const LISTED_OFF: usize = 20;

/// A simulated cost further than this from the measured, in percent, is named: the sums
/// include a session the simulation does not reproduce.
pub const OFF_PCT: f64 = crate::report::COST_DIFF_WARN_PCT;

/// Sessions whose simulated cost is off the measured: the first few, and how many.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct OffSessions {
    pub count: usize,
    /// `(session, cost difference in percent)`, the first [`LISTED_OFF`] in session order.
    pub listed: Vec<(String, f64)>,
}

impl OffSessions {
    pub(crate) fn add(&mut self, session: &str, pct: f64) {
        self.count += 1;
        if self.listed.len() < LISTED_OFF {
            self.listed.push((session.to_string(), pct));
        }
    }

    /// Adds the sessions `other` left out (none of them among this one's): the first
    /// [`LISTED_OFF`] of both in session order, as one run over all of them lists them.
    pub fn merge(&mut self, other: OffSessions) {
        self.count += other.count;
        self.listed.extend(other.listed);
        self.listed.sort_by(|a, b| a.0.cmp(&b.0));
        self.listed.truncate(LISTED_OFF);
    }
}

/// Measured usage beside the simulation, summed over the sessions that carry it.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct MeasuredTotals {
    /// Sessions with measured usage (of those summed).
    pub sessions: usize,
    /// Σ measured total input over their measured calls, tokens; and the simulated
    /// contexts of the same calls, est. tokens.
    pub measured_input_tokens: f64,
    pub simulated_input_tokens: f64,
    /// Sessions with both measured and simulated dollars, and their sums.
    pub dollar_sessions: usize,
    pub measured_dollars: f64,
    pub simulated_dollars: f64,
    /// Sessions whose simulated cost is more than [`OFF_PCT`] off the measured (in the
    /// sums unless `--max-cost-diff` leaves them out).
    pub off: OffSessions,
    /// Cache breaks summed by class over the sessions (docs/model.md §4, "Breaks"):
    /// count, tokens written, input-token equivalents of each request's model, dollars.
    pub breaks: Vec<(crate::fit::breaks::BreakClass, crate::fit::breaks::ClassSum)>,
}

impl Aggregate {
    /// The aggregate savings by edit index.
    pub fn savings(&self) -> Vec<f64> {
        self.edits.iter().map(|e| e.saved_tokens).collect()
    }

    /// Per edit (by index), every session's percentage of its own baseline cost saved, in
    /// input-token equivalents, in session order, whatever the cost ranking's unit.
    pub fn token_cost_pcts(&self) -> &[Vec<f64>] {
        self.session_token_cost_pcts
            .as_deref()
            .unwrap_or(&self.session_cost_pcts)
    }
}

/// Every session's name in one buffer, by session index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionNames {
    text: String,
    ends: Vec<usize>,
}

impl SessionNames {
    pub(super) fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len());
    }

    /// The name of session `index`; empty beyond the last.
    pub fn get(&self, index: usize) -> &str {
        let Some(&end) = self.ends.get(index) else {
            return "";
        };
        let start = index.checked_sub(1).map_or(0, |i| self.ends[i]);
        &self.text[start..end]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// Running sums of every session's reread totals at each factor point: for each point the
/// summed baseline total, then each edit's summed saving. Added in session order.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepSums {
    /// `1 + edits`.
    width: usize,
    sums: Vec<f64>,
    sessions: usize,
    /// Σ of the sessions' closed forms in the factors, the baseline first then each edit;
    /// None for a run some session replays.
    closed_forms: Vec<Option<Affine>>,
}

impl SweepSums {
    /// Zero sums for `points` grid points and `edits` edits.
    pub fn new(points: usize, edits: usize) -> SweepSums {
        SweepSums {
            width: 1 + edits,
            sums: vec![0.0; points * (1 + edits)],
            sessions: 0,
            closed_forms: vec![Some(Affine::default()); 1 + edits],
        }
    }

    /// Adds one session's closed forms in the factors (see
    /// `session::Session::closed_forms`): each session is affine in its own B and ρ, so
    /// at common factors `(f_B, f_ρ)` their sum is `f_B·Σ calls·B + Σ tokens + Σ (bytes/ρ)/f_ρ`.
    /// A run without one in any session has none in the sum.
    pub fn add_closed_forms(&mut self, forms: &[Option<Affine>]) {
        for (sum, form) in self.closed_forms.iter_mut().zip(forms) {
            *sum = sum.zip(*form).map(|(s, f)| s + f);
        }
    }

    /// Adds one session's totals: point-major, the baseline first then each edit (see
    /// `session::Session::sweep_totals`). A list of another shape is a bug and is ignored
    /// beyond the shorter length.
    pub fn add(&mut self, totals: &[f64]) {
        self.sessions += 1;
        for (sums, totals) in self
            .sums
            .chunks_exact_mut(self.width)
            .zip(totals.chunks_exact(self.width))
        {
            let baseline = totals[0];
            sums[0] += baseline;
            for (sum, edited) in sums[1..].iter_mut().zip(&totals[1..]) {
                *sum += baseline - edited;
            }
        }
    }

    /// The summed figures at each point, ranked, and checked against `reference` (the
    /// nominal aggregate).
    pub fn finish(self, factors: &Factors, reference: &Aggregate) -> SweepAggregate {
        let points: Vec<SweepPoint> = self
            .sums
            .chunks_exact(self.width)
            .zip(factors.points())
            .map(|(sums, (base_factor, bytes_per_token_factor))| {
                let baseline = sums[0];
                let saved = sums[1..].to_vec();
                let ranking = rank::rank(&saved, baseline);
                SweepPoint {
                    base_factor,
                    bytes_per_token_factor,
                    baseline_total_tokens: baseline,
                    saved_pct: saved.iter().map(|s| 100.0 * s / baseline).collect(),
                    saved_tokens: saved,
                    ranks: ranking.ranks,
                    order: ranking.order,
                }
            })
            .collect();
        let agreement = agreement(
            &reference.ranking,
            &reference.savings(),
            reference.baseline_total_tokens,
            points
                .iter()
                .map(|p| (p.saved_tokens.as_slice(), p.baseline_total_tokens)),
        );
        SweepAggregate {
            factors: factors.clone(),
            points,
            agreement,
            closed_forms: self.closed_forms,
        }
    }
}

/// The aggregate at one factor point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    /// Every session's B is multiplied by this.
    pub base_factor: f64,
    /// Every session's ρ is multiplied by this.
    pub bytes_per_token_factor: f64,
    /// Σ of the baseline reread totals there.
    pub baseline_total_tokens: f64,
    /// Σ of each edit's savings, by edit index.
    pub saved_tokens: Vec<f64>,
    /// By edit index, of the summed baseline.
    pub saved_pct: Vec<f64>,
    /// 1-based ranks by edit index.
    pub ranks: Vec<usize>,
    /// Edit indices, best first.
    pub order: Vec<usize>,
}

/// The aggregate over the factor grid, and whether it keeps the nominal order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepAggregate {
    pub factors: Factors,
    pub points: Vec<SweepPoint>,
    /// Points against the nominal aggregate order (item = point index, grid order).
    pub agreement: Agreement,
    /// The summed closed forms in the factors (see [`SweepSums::add_closed_forms`]).
    #[serde(skip)]
    pub closed_forms: Vec<Option<Affine>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_is_nearest_rank() {
        // Ten values: p10 is the 1st, the median the 5th (the lower middle), p90 the 9th.
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        let d = Distribution::of(&ten).unwrap();
        assert_eq!((d.p10, d.median, d.p90), (1.0, 5.0, 9.0));
        // Order of the input does not matter.
        let d = Distribution::of(&[9.0, -1.0, 4.0]).unwrap();
        assert_eq!(
            (d.min, d.p10, d.median, d.p90, d.max),
            (-1.0, -1.0, 4.0, 9.0, 9.0)
        );
    }

    #[test]
    fn sweep_sums_add_savings_per_point() {
        let mut s = SweepSums::new(2, 1);
        s.add(&[100.0, 90.0, 200.0, 150.0]);
        s.add(&[10.0, 5.0, 20.0, 25.0]);
        assert_eq!(s.sums, vec![110.0, 15.0, 220.0, 45.0]);
    }
}
