//! The schedule search of `simulate suggest` (docs/suggest.md, "The schedule search";
//! MODEL.md §12): for clearing, the API's context editing and compaction, every schedule
//! of a small grid (`grid`: trigger, keep, batch size, `at = "cold"`) is priced on every
//! session under its own cache terms (its `[cache]`: the fitted μ, lifetime and warm
//! prefix where `fit --write` wrote them), and the cheapest of each family is proposed,
//! beside the upper bound: what `cache = { avoid = [every avoidable class] }` saves, the
//! cost of the cache breaks themselves.
//!
//! Each schedule is one history pass over the sessions at their nominal point (no factor
//! sweep, no re-fetch sweep: those run for the proposed ones only, as for every candidate).

pub mod grid;
mod ordered;

pub use grid::Schedule;

use super::pareto::{self, Tradeoff};
use super::rules::{Candidate, Family, Proposal};
use crate::error::{Error, Located};
use crate::evaluate::{Study, outcome};
use crate::history::files::{self, Loaded};
use crate::ledger::Assumptions;
use crate::number::{dollars, grouped, plural};
use crate::rank;
use crate::scenario::{self, AVOIDABLE, BasePart, Edit};
use ordered::Ordered;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One schedule, priced: summed over the sessions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tried {
    #[serde(flatten)]
    pub schedule: Schedule,
    /// Σ cost saved, input-token equivalents (baseline − schedule).
    pub cost_saved: f64,
    /// Σ dollars saved, where every session is priced.
    pub dollars_saved: Option<f64>,
    /// Σ context removed, est. tokens (as the candidates' `context_removed_tokens`).
    pub removed: f64,
    /// On the family's Pareto front of cost saved against context removed.
    pub on_front: bool,
}

impl Tried {
    /// The saving the search ranks by: dollars where every session is priced, else cost.
    pub fn saved(&self, by_dollars: bool) -> f64 {
        match (by_dollars, self.dollars_saved) {
            (true, Some(d)) => d,
            _ => self.cost_saved,
        }
    }
}

/// One family's schedules and the one proposed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamilySearch {
    pub family: Family,
    pub label: &'static str,
    /// The chart file (`schedule-<family>.svg`).
    pub chart: &'static str,
    /// In grid order.
    pub tried: Vec<Tried>,
    /// The cheapest (the first of the grid among equals); None where none saves.
    pub chosen: Option<usize>,
    /// The family's default schedule, where the grid has it.
    pub naive: Option<usize>,
    /// The name of the candidate that carries the chosen schedule in `suggested.toml`.
    pub candidate: Option<String>,
}

/// The upper bound: every avoidable break avoided.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bound {
    /// `cache = { avoid = [...] }`.
    pub action: String,
    pub cost_saved: f64,
    pub dollars_saved: Option<f64>,
}

/// The search's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScheduleSearch {
    /// Schedules priced (the grid, without the bound).
    pub schedules: usize,
    pub sessions: usize,
    /// Whether savings are in dollars (every session priced) or input-token equivalents.
    pub by_dollars: bool,
    pub baseline_cost: f64,
    pub baseline_dollars: Option<f64>,
    pub families: Vec<FamilySearch>,
    pub bound: Bound,
}

/// The bound's action: every class `avoid` takes.
pub fn bound_action() -> String {
    let classes: Vec<String> = AVOIDABLE.iter().map(|c| format!("\"{c}\"")).collect();
    format!("cache = {{ avoid = [{}] }}", classes.join(", "))
}

/// The chart file of a family's search.
fn chart_file(f: Family) -> &'static str {
    match f {
        Family::Clearing => "schedule-clearing.svg",
        Family::ContextEditing => "schedule-context-editing.svg",
        _ => "schedule-compaction.svg",
    }
}

/// One session's figures: baseline, then each edit (the grid's, then the bound).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionCosts {
    cost: Vec<f64>,
    dollars: Vec<Option<f64>>,
    /// By edit: context removed.
    removed: Vec<f64>,
}

fn price(l: &Loaded, edits: &[Edit], shown: &str) -> Result<SessionCosts, Error> {
    let s = l.scenario.clone().with_edits(edits.to_vec(), shown);
    let study = Study::new(&s)?;
    let at = Assumptions {
        base_tokens: s.base_tokens,
        bytes_per_token: s.bytes_per_token,
    };
    let point = study.nominal(at);
    let mut out = SessionCosts {
        cost: Vec::with_capacity(edits.len() + 1),
        dollars: Vec::with_capacity(edits.len() + 1),
        removed: Vec::with_capacity(edits.len()),
    };
    let mut baseline_end = 0.0;
    for (k, subject) in study.subjects().enumerate() {
        let o = outcome(&study, subject, &point);
        // The outcome's clearings are the ones the end context needs (the nominal point's
        // B, ρ and re-fetch rate): made once, not replayed again for it.
        let end = super::measure::end_context_with(subject, subject.at(at), &o.clearings);
        out.cost.push(o.cost);
        out.dollars.push(o.dollars);
        if k == 0 {
            baseline_end = end;
        } else {
            out.removed.push(baseline_end - end);
        }
    }
    Ok(out)
}

/// Prices `schedules` and the bound on every session of `loaded` and picks each family's
/// cheapest. `edits_path` names the (virtual) file the schedules are parsed from, in
/// messages.
pub fn search_with(
    loaded: &[Loaded],
    schedules: Vec<Schedule>,
    edits_path: &Path,
) -> Result<ScheduleSearch, Error> {
    search_over(schedules, edits_path, |edits, shown| {
        let priced: Vec<Result<(String, SessionCosts), Error>> = loaded
            .par_iter()
            .map(|l| Ok((l.scenario.name.clone(), price(l, edits, shown)?)))
            .collect();
        let mut out = Ordered::held();
        for p in priced {
            let (name, costs) = p?;
            out.push(name, costs)?;
        }
        Ok(out)
    })
}

/// [`search_with`] over the session files `kept` (under `dir`, each with `parts`), read
/// a chunk at a time: no session is held beyond its pricing, and its figures wait in a
/// spill beside `edits_path` until they are summed in session-name order.
///
/// Errors: a kept file that is no longer a session ([`files::changed`]); an edit's; the
/// spill's reads and writes.
pub fn search_files(
    dir: &Path,
    kept: &[PathBuf],
    parts: &[BasePart],
    proposal: &Proposal,
    edits_path: &Path,
) -> Result<ScheduleSearch, Error> {
    search_over(grid::grid(proposal), edits_path, |edits, shown| {
        price_files(dir, kept, parts, edits, edits_path, shown)
    })
}

/// The grid's schedules and the bound as the edits a session is priced under, parsed from
/// the (virtual) file `edits_path`: the schedules in grid order, the bound last.
pub fn schedule_edits(schedules: &[Schedule], edits_path: &Path) -> Result<Vec<Edit>, Error> {
    let mut text = String::new();
    for (k, s) in schedules.iter().enumerate() {
        text.push_str(&format!(
            "[[edit]]\nname = \"schedule {k}\"\n{}\n",
            s.action
        ));
    }
    text.push_str(&format!(
        "[[edit]]\nname = \"upper bound\"\n{}\n",
        bound_action()
    ));
    Ok(scenario::load_edits_str(&text, edits_path)?.edits)
}

/// Prices every session (`sessions` gives each one's name and figures) under the grid's
/// edits and the bound, and sums them in session-name order, as the history sums (the
/// figures wait in an [`Ordered`], spilled where they are many).
fn search_over(
    schedules: Vec<Schedule>,
    edits_path: &Path,
    sessions: impl FnOnce(&[Edit], &str) -> Result<Ordered, Error>,
) -> Result<ScheduleSearch, Error> {
    let edits = schedule_edits(&schedules, edits_path)?;
    let shown = edits_path.display().to_string();
    let named = sessions(&edits, &shown)?;
    let mut totals = Totals::new(edits.len());
    // Summed in session order, as the history sums.
    named.in_name_order(|_, s| totals.add(s))?;
    Ok(settle(schedules, totals))
}

/// The sessions' figures summed in session order: what a search needs of them, and what
/// the parts of a split search sum to (`crate::suggest::plan`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    pub sessions: usize,
    pub baseline_cost: f64,
    /// None once a session is not priced.
    pub baseline_dollars: Option<f64>,
    /// By edit (the grid's, then the bound).
    pub cost_saved: Vec<f64>,
    pub dollars_saved: Vec<Option<f64>>,
    pub removed: Vec<f64>,
}

impl Totals {
    /// Nothing summed yet, for `edits` edits.
    pub fn new(edits: usize) -> Totals {
        Totals {
            sessions: 0,
            baseline_cost: 0.0,
            baseline_dollars: Some(0.0),
            cost_saved: vec![0.0; edits],
            dollars_saved: vec![Some(0.0); edits],
            removed: vec![0.0; edits],
        }
    }

    /// Adds the next session (in session order).
    fn add(&mut self, s: &SessionCosts) {
        self.sessions += 1;
        self.baseline_cost += s.cost[0];
        self.baseline_dollars = self.baseline_dollars.zip(s.dollars[0]).map(|(a, b)| a + b);
        for k in 0..self.cost_saved.len() {
            self.cost_saved[k] += s.cost[0] - s.cost[k + 1];
            let d = s.dollars[0].zip(s.dollars[k + 1]).map(|(b, e)| b - e);
            self.dollars_saved[k] = self.dollars_saved[k].zip(d).map(|(a, b)| a + b);
            self.removed[k] += s.removed[k];
        }
    }

    /// Adds the next session (in session order) from its figures as [`priced_lines`] wrote
    /// them; `at` names the place for the message.
    ///
    /// Errors: not such figures, or figures of another number of edits.
    pub fn add_line(&mut self, text: &str, at: impl FnOnce() -> String) -> Result<(), Error> {
        let n = self.cost_saved.len();
        match serde_json::from_str::<SessionCosts>(text) {
            Ok(s) if s.cost.len() == n + 1 && s.dollars.len() == n + 1 && s.removed.len() == n => {
                self.add(&s);
                Ok(())
            }
            Ok(s) => Err(Located::new(
                at(),
                format!(
                    "a session priced under {} schedules, where the plan's search prices {}: the part ran another plan",
                    s.removed.len(),
                    n
                ),
            )
            .into()),
            Err(e) => Err(Located::new(
                at(),
                format!("not a session's figures of the schedule search: {e}"),
            )
            .into()),
        }
    }
}

/// Prices the session files `kept` (under `dir`, each with `parts`) under `edits`, read a
/// chunk at a time; their figures wait in a spill beside `near`.
fn price_files(
    dir: &Path,
    kept: &[PathBuf],
    parts: &[BasePart],
    edits: &[Edit],
    near: &Path,
    shown: &str,
) -> Result<Ordered, Error> {
    let mut out = Ordered::near(near);
    for chunk in kept.chunks(files::CHUNK) {
        let priced: Vec<Result<(String, SessionCosts), Error>> = chunk
            .par_iter()
            .map(
                |path| match files::load_with_parts(dir, path, parts, shown)? {
                    Ok(l) => Ok((l.scenario.name.clone(), price(&l, edits, shown)?)),
                    // The first pass kept only sessions: as the evaluation pass says.
                    Err(_) => Err(files::changed(&dir.display().to_string())),
                },
            )
            .collect();
        for p in priced {
            let (name, costs) = p?;
            out.push(name, costs)?;
        }
    }
    Ok(out)
}

/// The search's pricing of the session files `kept` (a part of a split), each session's
/// figures given to `each` in session-name order with its name, to be summed by
/// [`Totals::add_line`] where the parts meet; `edits_path` as for [`search_files`], the
/// figures spilled beside `near`.
pub fn priced_lines(
    dir: &Path,
    kept: &[PathBuf],
    parts: &[BasePart],
    proposal: &Proposal,
    (edits_path, near): (&Path, &Path),
    mut each: impl FnMut(&str, &str) -> Result<(), Error>,
) -> Result<(), Error> {
    let edits = schedule_edits(&grid::grid(proposal), edits_path)?;
    let shown = edits_path.display().to_string();
    let named = price_files(dir, kept, parts, &edits, near, &shown)?;
    let mut result = Ok(());
    named.in_name_order(|name, s| {
        if result.is_ok() {
            result = serde_json::to_string(s)
                .map_err(|e| Error::Print(e.into()))
                .and_then(|line| each(name, &line));
        }
    })?;
    result
}

/// The search over the grid the proposal's triggers give, from the sessions' `totals`
/// (summed over every session, in session order).
pub fn from_totals(proposal: &Proposal, totals: Totals) -> ScheduleSearch {
    settle(grid::grid(proposal), totals)
}

/// The edits the search prices for `proposal`: how many figures each session has.
pub fn edits_count(proposal: &Proposal) -> usize {
    grid::grid(proposal).len() + 1
}

/// Each family's front and cheapest, from the sums of every session.
fn settle(schedules: Vec<Schedule>, totals: Totals) -> ScheduleSearch {
    let Totals {
        sessions: count_sessions,
        baseline_cost,
        baseline_dollars,
        cost_saved,
        dollars_saved,
        removed,
    } = totals;
    let n = cost_saved.len();
    let by_dollars = count_sessions > 0 && baseline_dollars.is_some();
    let baseline_dollars = baseline_dollars.filter(|_| count_sessions > 0);
    let tol_saved = rank::TIE_TOLERANCE
        * if by_dollars {
            baseline_dollars.unwrap_or(0.0).abs()
        } else {
            baseline_cost.abs()
        };
    let bound = Bound {
        action: bound_action(),
        cost_saved: cost_saved[n - 1],
        dollars_saved: dollars_saved[n - 1].filter(|_| by_dollars),
    };
    let count = schedules.len();
    let mut families: Vec<FamilySearch> = Vec::new();
    for (k, schedule) in schedules.into_iter().enumerate() {
        let tried = Tried {
            schedule,
            cost_saved: cost_saved[k],
            dollars_saved: dollars_saved[k].filter(|_| by_dollars),
            removed: removed[k],
            on_front: false,
        };
        let family = tried.schedule.family;
        match families.iter_mut().find(|f| f.family == family) {
            Some(f) => f.tried.push(tried),
            None => families.push(FamilySearch {
                family,
                label: family.label(),
                chart: chart_file(family),
                tried: vec![tried],
                chosen: None,
                naive: None,
                candidate: None,
            }),
        }
    }
    for f in &mut families {
        let points: Vec<Tradeoff> = f
            .tried
            .iter()
            .map(|t| Tradeoff {
                removed: t.removed,
                saved: t.saved(by_dollars),
            })
            .collect();
        let widest = f.tried.iter().map(|t| t.removed.abs()).fold(1.0, f64::max);
        let tol_removed = rank::TIE_TOLERANCE * widest;
        for (t, on) in f
            .tried
            .iter_mut()
            .zip(pareto::front(&points, tol_removed, tol_saved))
        {
            t.on_front = on;
        }
        f.naive = f.tried.iter().position(|t| t.schedule.naive);
        // The cheapest: the largest saving, the first of the grid (the simpler) among
        // ties; none where nothing saves.
        let mut best: Option<usize> = None;
        for (k, t) in f.tried.iter().enumerate() {
            let s = t.saved(by_dollars);
            if s <= tol_saved {
                continue;
            }
            match best {
                Some(b) if s <= f.tried[b].saved(by_dollars) + tol_saved => {}
                _ => best = Some(k),
            }
        }
        f.chosen = best;
    }
    ScheduleSearch {
        schedules: count,
        sessions: count_sessions,
        by_dollars,
        baseline_cost,
        baseline_dollars,
        families,
        bound,
    }
}

/// The search on the grid the proposal's triggers give (`grid::grid`).
pub fn search(
    loaded: &[Loaded],
    proposal: &Proposal,
    edits_path: &Path,
) -> Result<ScheduleSearch, Error> {
    search_with(loaded, grid::grid(proposal), edits_path)
}

impl ScheduleSearch {
    /// A saving in the search's unit: `$1.07` or `1,234 input-token equivalents`.
    pub fn amount(&self, cost: f64, dollars_saved: Option<f64>) -> String {
        match (self.by_dollars, dollars_saved) {
            (true, Some(d)) => dollars(d),
            _ => format!("{} input-token equivalents", grouped(cost, 0)),
        }
    }

    /// The bound's saving in words.
    pub fn bound_amount(&self) -> String {
        self.amount(self.bound.cost_saved, self.bound.dollars_saved)
    }

    /// `proposal` with each family's cheapest schedule as a candidate (the existing one
    /// where a rule proposed the same edit already), in family order; names which
    /// candidate carries it.
    pub fn propose_into(&mut self, mut proposal: Proposal) -> Proposal {
        let bound = format!("{} ({})", self.bound_amount(), self.bound.action);
        let by_dollars = self.by_dollars;
        for f in &mut self.families {
            let Some(k) = f.chosen else { continue };
            let t = &f.tried[k];
            let s = &t.schedule;
            if let Some(c) = proposal.candidates.iter().find(|c| c.action == s.action) {
                f.candidate = Some(c.name.clone());
                continue;
            }
            let verb = match f.family {
                Family::Clearing => "clear",
                Family::Compaction => "compact",
                _ => f.label,
            };
            let name = format!("cheapest: {verb} {}", s.label);
            let naive = f.naive.map(|n| &f.tried[n]);
            let against = naive.map_or(String::new(), |n| {
                format!(
                    "; the naive schedule ({}) saves {}",
                    n.schedule.label,
                    amount(by_dollars, n)
                )
            });
            proposal.candidates.push(Candidate {
                name: name.clone(),
                family: f.family,
                action: s.action.clone(),
                evidence: format!(
                    "The schedule search priced {} of this family on every session under its own cache terms: this one saves most, {}{against}; the cache breaks themselves cost {bound}.",
                    plural(f.tried.len(), "schedule", "schedules"),
                    amount(by_dollars, t),
                ),
                parameters: s.parameters.clone(),
                series: Some(format!("cheapest {}", f.label)),
                point_label: s.label.clone(),
            });
            f.candidate = Some(name);
        }
        // The edits file groups candidates by family, in family order.
        proposal.candidates.sort_by_key(|c| c.family);
        proposal
    }

    /// How far `t` is from the bound: `$1.16 short of the bound`, or more than it (a
    /// schedule also reads less, which avoiding breaks does not).
    pub fn distance(&self, t: &Tried) -> String {
        let bound = match (self.by_dollars, self.bound.dollars_saved) {
            (true, Some(d)) => d,
            _ => self.bound.cost_saved,
        };
        let gap = bound - t.saved(self.by_dollars);
        let shown = |x: f64| {
            if self.by_dollars {
                dollars(x)
            } else {
                grouped(x, 0)
            }
        };
        if gap >= 0.0 {
            format!("{} short of the bound", shown(gap))
        } else {
            format!(
                "{} past the bound: it also reads less, which avoiding breaks does not",
                shown(-gap)
            )
        }
    }

    /// The answer's sentence: each family's cheapest against the naive and the bound.
    pub fn sentence(&self) -> Option<String> {
        let mut parts = Vec::new();
        for f in &self.families {
            let Some(k) = f.chosen else {
                parts.push(format!("no {} saves", f.label));
                continue;
            };
            let t = &f.tried[k];
            let naive = match f.naive {
                Some(n) if n != k => format!(
                    "; the naive {}: {}",
                    f.tried[n].schedule.label,
                    amount(self.by_dollars, &f.tried[n])
                ),
                Some(_) => "; it is the naive one".into(),
                None => String::new(),
            };
            parts.push(format!(
                "the cheapest {} is {}: it saves {} ({}{naive})",
                f.label,
                t.schedule.label,
                amount(self.by_dollars, t),
                self.distance(t)
            ));
        }
        if parts.is_empty() {
            return None;
        }
        Some(format!(
            "The schedule search priced {} on every session; the upper bound, every cache break avoided ({}), saves {}: {}.",
            plural(self.schedules, "schedule", "schedules"),
            self.bound.action,
            self.bound_amount(),
            parts.join("; ")
        ))
    }
}

/// A tried schedule's saving: `saves $1.07` or `adds $0.20` (never a negative saving).
fn amount(by_dollars: bool, t: &Tried) -> String {
    let x = t.saved(by_dollars);
    let verb = if x < 0.0 { "adds" } else { "saves" };
    let shown = if by_dollars {
        dollars(x.abs())
    } else {
        format!("{} input-token equivalents", grouped(x.abs(), 0))
    };
    match verb {
        "adds" => format!("adds {shown}"),
        _ => shown,
    }
}
