//! The aggregate of many sessions, summed as the sessions come, in session order.
//!
//! What a session leaves here is its few figures, never its calls and never its whole
//! record: each edit's saving, percentage and cost saving (the sums, and the spread and the
//! across-sessions agreement need them per session), its name (for the sessions a report
//! names), and counts. So a million sessions of five edits hold about a hundred megabytes,
//! and a history and a merge of its shards run the very same additions in the very same
//! order: the single run and the merge both feed this, record by record, by name.

use super::SessionFigures;
use super::aggregate::{
    Aggregate, BaseClamped, Distribution, EditAggregate, MeasuredTotals, OFF_PCT, OffSessions,
    SessionNames, SweepSums, WhatIfAggregate,
};
use super::agreement::agreement;
use super::groups::{GroupBy, GroupSession, Groups, GroupsReport, Labels};
use super::session::source_kind;
use crate::ledger::Affine;
use crate::rank;
use std::collections::BTreeMap;

/// One edit's running figures.
#[derive(Debug, Clone, Default)]
struct EditSums {
    saved: f64,
    cost_saved: f64,
    dollars: Option<f64>,
    priced: usize,
    first: usize,
    saving: usize,
    adding: usize,
    nothing: usize,
    clamped: usize,
    clamped_in_sweep: usize,
    base_clamped: Vec<BaseClamped>,
    rules: Vec<String>,
    /// Per-session percentages saved, session order.
    percents: Vec<f64>,
    /// Per-session percentages of the session's own baseline cost saved, input-token
    /// equivalents, session order: what `sessions-cost.svg` draws without prices.
    cost_percents: Vec<f64>,
    /// The same of its baseline dollars, while every session so far is priced (then the
    /// cost ranking is in dollars and the chart draws these); None from the first session
    /// without prices on, so an unpriced history keeps one list, not two.
    dollar_percents: Option<Vec<f64>>,
    what_if: Option<WhatIfAggregate>,
    /// For an edit that removes results: its savings at each re-fetch rate, summed.
    refetch: Option<super::refetch::RefetchSums>,
}

/// Sums sessions in the order they are added.
#[derive(Debug, Clone)]
pub struct Accumulator {
    names: Vec<String>,
    calls: usize,
    baseline_total: f64,
    baseline_cost: f64,
    cached: usize,
    edits: Vec<EditSums>,
    /// Per session: its baseline total, then each edit's saving.
    savings: Vec<f64>,
    session_names: SessionNames,
    unchanged: Vec<usize>,
    /// Sessions some edit changes the cost of but none the reread total.
    cost_only: usize,
    base_sources: BTreeMap<String, usize>,
    bpt_sources: BTreeMap<String, usize>,
    warnings: BTreeMap<String, usize>,
    sweep: Option<SweepSums>,
    groups: Option<Groups>,
    /// A session without a figure for some edit: the aggregate is undefined.
    short: bool,
    baseline_dollars: Option<f64>,
    priced: usize,
    measured: Option<MeasuredTotals>,
    /// `--max-cost-diff`: sessions further off are left out, and counted here.
    max_cost_diff: Option<f64>,
    excluded: OffSessions,
    /// Whether every per-session list is kept (see [`Accumulator::cost_pcts_only`]).
    all_lists: bool,
}

impl Accumulator {
    /// For the edits `names`; with `sweep`, each session's sweep totals and closed forms
    /// are summed too; with `group_by`, each group's figures.
    pub fn new(names: &[String], sweep: Option<SweepSums>, group_by: Option<GroupBy>) -> Self {
        Accumulator {
            names: names.to_vec(),
            calls: 0,
            baseline_total: 0.0,
            baseline_cost: 0.0,
            cached: 0,
            edits: vec![
                EditSums {
                    dollar_percents: Some(Vec::new()),
                    ..EditSums::default()
                };
                names.len()
            ],
            savings: Vec::new(),
            session_names: SessionNames::default(),
            unchanged: Vec::new(),
            cost_only: 0,
            base_sources: BTreeMap::new(),
            bpt_sources: BTreeMap::new(),
            warnings: BTreeMap::new(),
            sweep,
            groups: group_by.map(|by| Groups::new(by, names.len())),
            short: false,
            baseline_dollars: None,
            priced: 0,
            measured: None,
            max_cost_diff: None,
            excluded: OffSessions::default(),
            all_lists: true,
        }
    }

    /// Keeps of each session, per edit, only its percentage of its cost saved (input-token
    /// equivalents: what `suggest` spreads), the session's name and the sums: not its
    /// percentage saved nor its dollars' (so each edit's `per_session_pct` reads 0 and the
    /// per-session chart lists are empty), nor its savings (so `across_sessions` counts no
    /// session). A suggestion reads none of those, and over a million sessions of twenty
    /// edits they would be some 500 MB.
    pub fn cost_pcts_only(mut self) -> Self {
        self.all_lists = false;
        self
    }

    /// Leaves out of every sum the sessions whose simulated cost is more than `pct`
    /// percent off the measured (`--max-cost-diff`), counting them.
    pub fn max_cost_diff(mut self, pct: Option<f64>) -> Self {
        self.max_cost_diff = pct;
        self
    }

    /// Whether `s` is left out by `--max-cost-diff` (counted if so).
    fn excludes(&mut self, s: &SessionFigures) -> bool {
        let Some(max) = self.max_cost_diff else {
            return false;
        };
        match s.measured.as_ref().and_then(|m| m.cost_difference_pct) {
            Some(d) if d.abs() > max => {
                self.excluded.add(&s.name, d);
                true
            }
            _ => false,
        }
    }

    /// Adds `s`'s measured usage beside its simulation.
    fn add_measured(&mut self, s: &SessionFigures) {
        let Some(m) = &s.measured else { return };
        let t = self.measured.get_or_insert_with(MeasuredTotals::default);
        t.sessions += 1;
        t.measured_input_tokens += m.measured_input_tokens;
        t.simulated_input_tokens += m.simulated_input_tokens;
        if let (Some(measured), Some(simulated)) = (m.measured_dollars, m.simulated_dollars) {
            t.dollar_sessions += 1;
            t.measured_dollars += measured;
            t.simulated_dollars += simulated;
        }
        if let Some(d) = m.cost_difference_pct.filter(|d| d.abs() > OFF_PCT) {
            t.off.add(&s.name, d);
        }
        crate::fit::breaks::merge_by_class(&mut t.breaks, &crate::fit::breaks::by_class(&m.breaks));
    }

    /// Sessions added so far (summed).
    pub fn sessions(&self) -> usize {
        self.session_names.len()
    }

    /// Sessions `--max-cost-diff` left out so far.
    pub fn excluded(&self) -> usize {
        self.excluded.count
    }

    /// Adds the next session in order: its figures, its sweep totals and closed forms
    /// (see `session::Session`; ignored without a sweep), its labels (ignored without
    /// grouping).
    pub fn add(
        &mut self,
        s: &SessionFigures,
        sweep_totals: &[f64],
        closed_forms: &[Option<Affine>],
        labels: &Labels,
    ) {
        if self.excludes(s) {
            return;
        }
        self.add_measured(s);
        if let Some(d) = s.baseline_dollars {
            self.baseline_dollars = Some(self.baseline_dollars.unwrap_or(0.0) + d);
            self.priced += 1;
        }
        let index = self.session_names.len();
        self.session_names.push(&s.name);
        self.cached += usize::from(s.cached);
        self.calls += s.calls;
        self.baseline_total += s.baseline_total_tokens;
        self.baseline_cost += s.baseline_cost;
        // First in ranks by reread tokens: a session whose reread total no edit changes
        // is nobody's win there, even where an edit changes its cost.
        let reread_tied = s.reread_tied();
        let unchanged = s.unchanged();
        if unchanged {
            self.unchanged.push(index);
        } else if reread_tied {
            self.cost_only += 1;
        }
        *self
            .base_sources
            .entry(source_kind(&s.sources.base_tokens).to_string())
            .or_default() += 1;
        *self
            .bpt_sources
            .entry(source_kind(&s.sources.bytes_per_token).to_string())
            .or_default() += 1;
        for w in &s.warnings {
            *self.warnings.entry(w.clone()).or_default() += 1;
        }
        if s.edits.len() < self.edits.len() {
            self.short = true;
        }
        if self.all_lists {
            self.savings.push(s.baseline_total_tokens);
        }
        for (sums, e) in self.edits.iter_mut().zip(&s.edits) {
            if let Some(w) = &e.what_if {
                sums.what_if
                    .get_or_insert_with(Default::default)
                    .add(&s.name, w);
            }
            if let Some(r) = &e.refetch {
                sums.refetch.get_or_insert_with(Default::default).add(r);
            }
            sums.saved += e.saved_tokens;
            sums.cost_saved += e.cost_saved;
            if let Some(d) = e.dollars_saved {
                sums.dollars = Some(sums.dollars.unwrap_or(0.0) + d);
                sums.priced += 1;
            }
            sums.first += usize::from(e.rank == 1 && !reread_tied);
            sums.clamped += usize::from(e.base_clamped);
            sums.clamped_in_sweep += usize::from(e.base_clamped_points > 0);
            if e.base_clamped || e.base_clamped_points > 0 {
                sums.base_clamped.push(BaseClamped {
                    session: s.name.clone(),
                    base_tokens: s.base_tokens,
                    at_nominal: e.base_clamped,
                    points: e.base_clamped_points,
                });
            }
            sums.saving += usize::from(e.saved_tokens > 0.0);
            sums.adding += usize::from(e.saved_tokens < 0.0);
            sums.nothing += usize::from(!e.selected_nothing.is_empty());
            for note in &e.selected_nothing {
                // A note reads "cap: the selector matches no call in this trace".
                let rule = note.split_once(": ").map_or(note.as_str(), |(r, _)| r);
                if !sums.rules.iter().any(|r| r == rule) {
                    sums.rules.push(rule.to_string());
                }
            }
            sums.cost_percents.push(e.cost_saved_pct);
            if !self.all_lists {
                continue;
            }
            sums.percents.push(e.saved_pct);
            let dollar_pct = s
                .baseline_dollars
                .zip(e.dollars_saved)
                .map(|(baseline, saved)| 100.0 * saved / baseline);
            match (dollar_pct, &mut sums.dollar_percents) {
                (Some(pct), Some(list)) => list.push(pct),
                (None, list) => *list = None,
                (Some(_), None) => {}
            }
        }
        if self.all_lists {
            for k in 0..self.edits.len() {
                self.savings
                    .push(s.edits.get(k).map_or(f64::NAN, |e| e.saved_tokens));
            }
        }
        if let Some(sweep) = &mut self.sweep {
            sweep.add(sweep_totals);
            sweep.add_closed_forms(closed_forms);
        }
        if let Some(groups) = &mut self.groups {
            let edits: Vec<(f64, f64, f64, usize)> = s
                .edits
                .iter()
                .map(|e| (e.saved_tokens, e.cost_saved, e.saved_pct, e.rank))
                .collect();
            groups.add(
                labels,
                &GroupSession {
                    calls: s.calls,
                    baseline_total: s.baseline_total_tokens,
                    baseline_cost: s.baseline_cost,
                    unchanged,
                    reread_tied,
                    edits: &edits,
                    breaks: s.measured.as_ref().map_or(&[], |m| &m.breaks[..]),
                },
            );
        }
    }

    /// The aggregate, the sweep's running sums (when summed) and the groups (when
    /// grouped). None without sessions, or when a session lacks an edit's figures.
    pub fn finish(self) -> Option<(Aggregate, Option<SweepSums>, Option<GroupsReport>)> {
        let sessions = self.session_names.len();
        if sessions == 0 || self.short {
            return None;
        }
        let average_call = self.baseline_total / self.calls as f64;
        let mut session_pcts = Vec::with_capacity(self.edits.len());
        let mut cost_percents: Vec<Vec<f64>> = Vec::with_capacity(self.edits.len());
        let mut dollar_percents = Vec::with_capacity(self.edits.len());
        let mut edits = Vec::with_capacity(self.edits.len());
        let mut refetch = Vec::with_capacity(self.edits.len());
        for (i, (name, mut e)) in self.names.iter().zip(self.edits).enumerate() {
            refetch.push(e.refetch.take());
            edits.push(EditAggregate {
                name: name.clone(),
                index: i,
                rank: 0,
                saved_tokens: e.saved,
                saved_pct: 100.0 * e.saved / self.baseline_total,
                equivalent_calls: e.saved / average_call,
                cost_saved: e.cost_saved,
                cost_saved_pct: 100.0 * e.cost_saved / self.baseline_cost,
                cost_rank: 0,
                dollars_saved: e.dollars,
                priced_sessions: e.priced,
                per_session_pct: match self.all_lists {
                    true => Distribution::of(&e.percents)?,
                    false => Distribution::of(&[0.0])?,
                },
                sessions_first: e.first,
                sessions_saving: e.saving,
                sessions_adding: e.adding,
                sessions_selected_nothing: e.nothing,
                rules_selecting_nothing: e.rules,
                sessions_base_clamped: e.clamped,
                sessions_base_clamped_in_sweep: e.clamped_in_sweep,
                base_clamped: e.base_clamped,
                what_if: e.what_if,
                refetch: None,
            });
            session_pcts.push(e.percents);
            cost_percents.push(e.cost_percents);
            dollar_percents.push(e.dollar_percents);
        }
        let savings: Vec<f64> = edits.iter().map(|e| e.saved_tokens).collect();
        let ranking = rank::rank(&savings, self.baseline_total);
        // Input-token equivalents of one model are not worth those of another: where every
        // session is priced, rank by dollars (docs/model.md §4).
        let by_dollars = self.priced == sessions
            && edits.iter().all(|e| e.priced_sessions == sessions)
            && self.baseline_dollars.is_some();
        let cost_ranks = if by_dollars {
            let dollars: Vec<f64> = edits
                .iter()
                .map(|e| e.dollars_saved.unwrap_or(0.0))
                .collect();
            rank::rank(&dollars, self.baseline_dollars.unwrap_or(0.0)).ranks
        } else {
            let cost_savings: Vec<f64> = edits.iter().map(|e| e.cost_saved).collect();
            rank::rank(&cost_savings, self.baseline_cost).ranks
        };
        for ((e, &r), &c) in edits.iter_mut().zip(&ranking.ranks).zip(&cost_ranks) {
            e.rank = r;
            e.cost_rank = c;
        }
        // Where each stops saving is on the cost ranking's measure.
        for (e, sums) in edits.iter_mut().zip(refetch) {
            e.refetch = sums.and_then(|s| s.finish(by_dollars));
        }
        let across_sessions = agreement(
            &ranking,
            &savings,
            self.baseline_total,
            self.savings
                .chunks_exact(1 + self.names.len())
                .map(|row| (&row[1..], row[0])),
        );
        let groups = self.groups.map(|g| g.finish(&self.names));
        let aggregate = Aggregate {
            sessions,
            calls: self.calls,
            baseline_total_tokens: self.baseline_total,
            baseline_cost: self.baseline_cost,
            cached_sessions: self.cached,
            sessions_unchanged: self.unchanged.len(),
            sessions_cost_only: self.cost_only,
            edits,
            ranking,
            across_sessions,
            session_names: self.session_names,
            unchanged: self.unchanged,
            base_tokens_sources: self.base_sources,
            bytes_per_token_sources: self.bpt_sources,
            warnings: self.warnings,
            session_pcts,
            // In the cost ranking's unit: dollars where it ranks by them.
            session_cost_pcts: if by_dollars {
                dollar_percents
                    .into_iter()
                    .map(Option::unwrap_or_default)
                    .collect()
            } else {
                std::mem::take(&mut cost_percents)
            },
            session_token_cost_pcts: by_dollars.then_some(cost_percents),
            baseline_dollars: self.baseline_dollars,
            priced_sessions: self.priced,
            ranked_by_dollars: by_dollars,
            measured: self.measured,
            excluded: self.excluded,
        };
        Some((aggregate, self.sweep, groups))
    }
}

/// Aggregates `sessions` (in their order) for the edits `names`. None without sessions.
pub fn aggregate(names: &[String], sessions: &[SessionFigures]) -> Option<Aggregate> {
    let mut sums = Accumulator::new(names, None, None);
    let labels = Labels::default();
    for s in sessions {
        sums.add(s, &[], &[], &labels);
    }
    sums.finish().map(|(aggregate, _, _)| aggregate)
}
