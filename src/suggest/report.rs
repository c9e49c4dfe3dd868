//! A suggestion's report as data, built once from the history's report of the candidates
//! and the suggestion's own measures: the table, the JSON, `suggest.csv`, the comments of
//! `suggested.toml` and the charts each render it, so they cannot disagree.

use super::measure::Sums;
use super::pareto::{self, Tradeoff};
use super::rules::{Family, Finding, Parameters, Proposal, SummarySize};
use crate::history::aggregate::{Distribution, EditAggregate};
use crate::history::files::Skipped;
use crate::history::report::WarningCount;
use crate::history::{Factors, HistoryReport};
use crate::number::{grouped, percent, plural};
use crate::rank;
use serde::Serialize;

/// What "context removed" is, said wherever the figure is.
pub const CONTEXT_REMOVED: &str = "context removed: est. tokens the edit takes out of the context and does not give back (capped, read once, cleared, summarised or dropped away, net of the placeholders and summaries put in their place), counted once at each session's nominal point and summed: the session's context after its last call, baseline less edited (docs/model.md §9)";

/// The summed baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Baseline {
    pub sessions: usize,
    pub calls: usize,
    /// Σ of the reread totals, est. tokens.
    pub total_tokens: f64,
    /// Σ of the costs, input-token equivalents.
    pub cost: f64,
    /// Sessions with a `[cache]` (the others' cost is flat: their reread total).
    pub cached_sessions: usize,
    /// Σ of the simulated baseline dollars over the sessions priced; None when none is.
    pub dollars: Option<f64>,
    pub priced_sessions: usize,
    /// Whether candidates are ranked by dollars saved (every session priced).
    pub ranked_by_dollars: bool,
}

/// One candidate with every figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggested {
    pub name: String,
    /// Position in `suggested.toml` (0-based): the edit's index in every session.
    pub index: usize,
    pub family: Family,
    pub family_label: &'static str,
    pub parameters: Parameters,
    /// What in the data suggested it.
    pub evidence: String,
    /// The `[[edit]]`'s action as written in `suggested.toml`.
    pub action: String,
    /// 1-based rank by summed cost saved (ties share a rank).
    pub cost_rank: usize,
    /// 1-based rank by summed reread tokens saved.
    pub token_rank: usize,
    /// Σ cost saved, input-token equivalents, and its share of the summed baseline cost.
    pub cost_saved: f64,
    pub cost_saved_pct: f64,
    /// Σ dollars saved over the sessions with a `[price]`.
    pub dollars_saved: Option<f64>,
    pub priced_sessions: usize,
    /// Σ reread tokens saved, est. tokens, and its share of the summed baseline.
    pub saved_tokens: f64,
    pub saved_pct: f64,
    /// See [`CONTEXT_REMOVED`].
    pub context_removed_tokens: f64,
    /// Sessions where it saves cost, adds cost (beyond a tie with 0), of all sessions.
    pub sessions_saving_cost: usize,
    pub sessions_adding_cost: usize,
    pub sessions: usize,
    /// Per-session percentages of cost saved: min, p10, median, p90, max (nearest rank).
    pub per_session_cost_pct: Distribution,
    /// Sessions where one of its rules selected no call.
    pub sessions_selected_nothing: usize,
    /// Factor points where the summed cost saving is positive, of all points.
    pub sweep_points_saving_cost: usize,
    pub sweep_points: usize,
    /// Its best and worst cost rank among the candidates over the factor points.
    pub sweep_cost_rank_best: usize,
    pub sweep_cost_rank_worst: usize,
    /// Whether it saves cost at every factor point.
    pub holds_over_sweep: bool,
    /// For an edit that removes results (docs/model.md §11): its summed saving at each
    /// swept re-fetch rate and where that stops; absent for other edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refetch: Option<crate::history::refetch::RefetchAggregate>,
    /// For a parametric family: whether it is on the family's Pareto front.
    pub on_front: Option<bool>,
    /// In the family's chart: the curve it lies on and its label there.
    pub series: Option<String>,
    pub point_label: String,
}

impl Suggested {
    /// Whether the candidate changes the cost alone (a longer cache lifetime): it saves
    /// no reread token, so its rows say "cost only" rather than a 0.0 % saving.
    pub fn cost_only(&self) -> bool {
        self.saved_tokens == 0.0
            && (self.cost_saved != 0.0 || self.dollars_saved.is_some_and(|d| d != 0.0))
    }
}

/// A parametric family's trade-off.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamilyFront {
    pub family: Family,
    pub label: &'static str,
    /// The chart file.
    pub chart: &'static str,
    pub candidates: usize,
    /// The edits on the front, least context removed first.
    pub front: Vec<String>,
}

/// The factor sweep the robustness is checked over.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepInfo {
    /// `B × ⅔, 1, 4⁄3 and ρ × 0.75, 1, 1.25`.
    pub grid: String,
    pub points: usize,
}

/// Everything a suggestion shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuggestReport {
    /// Results go to `out/<name>/`.
    pub name: String,
    /// The scenario or directory, as given.
    pub path: String,
    pub answer: String,
    /// Measured beside simulated over the sessions with measured usage (docs/model.md §6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<crate::history::aggregate::MeasuredTotals>,
    /// Where the simulation is not the sessions, in sentences, said before anything else.
    pub simulation_differs: Vec<String>,
    pub baseline: Baseline,
    /// The unit of the token figures.
    pub unit: String,
    pub cost_unit: &'static str,
    pub context_removed: &'static str,
    /// What every rule found, in rule order.
    pub findings: Vec<Finding>,
    /// The summary compactions are given, and its source.
    pub summary: SummarySize,
    /// Every candidate, best by cost first.
    pub candidates: Vec<Suggested>,
    /// Parametric families with candidates.
    pub families: Vec<FamilyFront>,
    pub sweep: SweepInfo,
    /// The edits file, as the outputs name it.
    pub edits_file: String,
    /// The command that reruns the edits file.
    pub rerun: String,
    /// The edits file's text, as written.
    pub suggested_toml: String,
    pub skipped: Vec<Skipped>,
    pub warnings: Vec<WarningCount>,
    /// The agents (or APIs) the sessions came from, with their numbers of sessions.
    pub agents: Vec<(super::settings::types::Agent, usize)>,
    /// Each candidate that saves cost, in each agent's settings (docs/settings.md).
    pub settings: Vec<super::settings::types::HowTo>,
    /// The schedule search (clearing, context editing, compaction) and its upper bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedules: Option<super::schedule::ScheduleSearch>,
}

/// The spread over no session.
const NO_SESSIONS: Distribution = Distribution {
    min: 0.0,
    p10: 0.0,
    median: 0.0,
    p90: 0.0,
    max: 0.0,
};

/// What the report reads of every session, taken as the sessions go by (`pass`), by
/// edit index.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Spread {
    /// Sessions where the edit saves cost, and adds cost, beyond a tie with 0.
    pub saving_cost: Vec<usize>,
    pub adding_cost: Vec<usize>,
    /// The sessions' percentages of their own cost saved (input-token equivalents).
    pub cost_pct: Vec<Distribution>,
}

impl Spread {
    /// Counts session `s` in the edits' sessions saving or adding cost.
    pub fn add(&mut self, s: &crate::history::SessionFigures) {
        let edits = s.edits.len().max(self.saving_cost.len());
        self.saving_cost.resize(edits, 0);
        self.adding_cost.resize(edits, 0);
        for (i, se) in s.edits.iter().enumerate() {
            if !rank::tied(se.cost_saved, 0.0, s.baseline_cost) {
                self.saving_cost[i] += usize::from(se.cost_saved > 0.0);
                self.adding_cost[i] += usize::from(se.cost_saved < 0.0);
            }
        }
    }

    /// With the distributions of `pcts` (per edit, every session's percentage of its cost
    /// saved, as `Aggregate::token_cost_pcts` holds them).
    pub fn with_pcts(mut self, pcts: &[Vec<f64>]) -> Spread {
        self.cost_pct = pcts
            .iter()
            .map(|p| Distribution::of(p).unwrap_or(NO_SESSIONS))
            .collect();
        self
    }
}

/// What the report is built from.
pub struct Parts<'a> {
    pub name: &'a str,
    pub path: &'a str,
    pub proposal: &'a Proposal,
    pub history: &'a HistoryReport,
    pub sums: &'a Sums,
    pub spread: &'a Spread,
    pub factors: &'a Factors,
    pub edits_file: &'a str,
    pub rerun: &'a str,
}

impl SuggestReport {
    /// The report of `parts` (its edits file's text comes later: see
    /// [`SuggestReport::with_edits_file`]).
    pub fn new(parts: &Parts) -> SuggestReport {
        let h = parts.history;
        let sums = parts.sums;
        let mut by_index: Vec<&EditAggregate> = h.edits.iter().collect();
        by_index.sort_by_key(|e| e.index);
        let n = h.baseline.sessions;
        let points = parts.factors.len();
        // The cost rank of every candidate at every factor point.
        let point_ranks: Vec<Vec<usize>> = (0..points)
            .map(|p| rank::rank(&sums.cost_saved[p], sums.baseline_cost[p]).ranks)
            .collect();
        let mut candidates: Vec<Suggested> = parts
            .proposal
            .candidates
            .iter()
            .zip(&by_index)
            .enumerate()
            .map(|(i, (c, e))| {
                let spread = parts.spread;
                let saving_points = (0..points)
                    .filter(|&p| {
                        let saved = sums.cost_saved[p][i];
                        saved > 0.0 && !rank::tied(saved, 0.0, sums.baseline_cost[p])
                    })
                    .count();
                let ranks = point_ranks.iter().map(|r| r[i]);
                Suggested {
                    name: c.name.clone(),
                    index: i,
                    family: c.family,
                    family_label: c.family.label(),
                    parameters: c.parameters.clone(),
                    evidence: c.evidence.clone(),
                    action: c.action.clone(),
                    cost_rank: e.cost_rank,
                    token_rank: e.rank,
                    cost_saved: e.cost_saved,
                    cost_saved_pct: e.cost_saved_pct,
                    dollars_saved: e.dollars_saved,
                    priced_sessions: e.priced_sessions,
                    saved_tokens: e.saved_tokens,
                    saved_pct: e.saved_pct,
                    context_removed_tokens: sums.removed[i],
                    sessions_saving_cost: spread.saving_cost.get(i).copied().unwrap_or(0),
                    sessions_adding_cost: spread.adding_cost.get(i).copied().unwrap_or(0),
                    sessions: n,
                    per_session_cost_pct: spread.cost_pct.get(i).copied().unwrap_or(NO_SESSIONS),
                    sessions_selected_nothing: e.sessions_selected_nothing,
                    sweep_points_saving_cost: saving_points,
                    sweep_points: points,
                    sweep_cost_rank_best: ranks.clone().min().unwrap_or(0),
                    sweep_cost_rank_worst: ranks.max().unwrap_or(0),
                    holds_over_sweep: saving_points == points,
                    refetch: e.refetch.clone(),
                    on_front: None,
                    series: c.series.clone(),
                    point_label: c.point_label.clone(),
                }
            })
            .collect();
        let families = fronts(&mut candidates, h);
        // Best by cost first; ties by reread tokens, then in the edits file's order.
        let mut order: Vec<usize> = (0..candidates.len()).collect();
        order.sort_by_key(|&i| (candidates[i].cost_rank, candidates[i].token_rank, i));
        let candidates: Vec<Suggested> = order.into_iter().map(|i| candidates[i].clone()).collect();
        let baseline = Baseline {
            sessions: n,
            calls: h.baseline.calls,
            total_tokens: h.baseline.total_tokens,
            cost: h.baseline.cost,
            cached_sessions: h.baseline.cached_sessions,
            dollars: h.baseline.dollars,
            priced_sessions: h.baseline.priced_sessions,
            ranked_by_dollars: h.baseline.ranked_by_dollars,
        };
        SuggestReport {
            name: parts.name.to_string(),
            path: parts.path.to_string(),
            answer: match money_line(&baseline, h.measured.as_ref()) {
                Some(money) => format!("{money} {}", answer(&candidates, &baseline, parts.factors)),
                None => answer(&candidates, &baseline, parts.factors),
            },
            measured: h.measured.clone(),
            simulation_differs: h.simulation_differs.clone(),
            baseline,
            unit: h.unit.clone(),
            cost_unit: "input-token equivalents under each session's prompt cache (flat, its reread total, without one), summed over sessions",
            context_removed: CONTEXT_REMOVED,
            findings: parts.proposal.findings.clone(),
            summary: parts.proposal.summary.clone(),
            candidates,
            families,
            sweep: SweepInfo {
                grid: parts.factors.describe(),
                points,
            },
            edits_file: parts.edits_file.to_string(),
            rerun: parts.rerun.to_string(),
            suggested_toml: String::new(),
            agents: Vec::new(),
            settings: Vec::new(),
            schedules: None,
            skipped: h.skipped.clone(),
            warnings: h.warnings.clone(),
        }
    }

    /// The report with the agents the sessions came from, and each candidate in their
    /// settings (`super::settings::all`).
    pub fn with_settings(
        mut self,
        agents: Vec<(super::settings::types::Agent, usize)>,
        settings: Vec<super::settings::types::HowTo>,
    ) -> SuggestReport {
        self.agents = agents;
        self.settings = settings;
        self
    }

    /// The report with the schedule search, its sentence added to the answer.
    pub fn with_schedules(mut self, search: super::schedule::ScheduleSearch) -> SuggestReport {
        if let Some(sentence) = search.sentence() {
            self.answer.push(' ');
            self.answer.push_str(&sentence);
        }
        self.schedules = Some(search);
        self
    }

    /// The report with the edits file's text.
    pub fn with_edits_file(mut self, text: String) -> SuggestReport {
        self.suggested_toml = text;
        self
    }
}

/// Marks each parametric family's Pareto front on `candidates` (edits-file order) and
/// lists the families.
fn fronts(candidates: &mut [Suggested], h: &HistoryReport) -> Vec<FamilyFront> {
    let tol_removed = rank::TIE_TOLERANCE * h.baseline.total_tokens.abs();
    // The front is in the ranking's unit: dollars where every session is priced.
    let by_dollars = h.baseline.ranked_by_dollars;
    let tol_saved = rank::TIE_TOLERANCE
        * if by_dollars {
            h.baseline.dollars.unwrap_or(0.0).abs()
        } else {
            h.baseline.cost.abs()
        };
    let mut families = Vec::new();
    for family in Family::ALL {
        let Some(chart) = family.chart_file() else {
            continue;
        };
        let members: Vec<usize> = (0..candidates.len())
            .filter(|&i| candidates[i].family == family)
            .collect();
        if members.is_empty() {
            continue;
        }
        let points: Vec<Tradeoff> = members
            .iter()
            .map(|&i| Tradeoff {
                removed: candidates[i].context_removed_tokens,
                saved: if by_dollars {
                    candidates[i].dollars_saved.unwrap_or(f64::NAN)
                } else {
                    candidates[i].cost_saved
                },
            })
            .collect();
        let on = pareto::front(&points, tol_removed, tol_saved);
        let mut front: Vec<usize> = Vec::new();
        for (&i, &on) in members.iter().zip(&on) {
            candidates[i].on_front = Some(on);
            if on {
                front.push(i);
            }
        }
        front.sort_by(|&a, &b| {
            candidates[a]
                .context_removed_tokens
                .total_cmp(&candidates[b].context_removed_tokens)
                .then(a.cmp(&b))
        });
        families.push(FamilyFront {
            family,
            label: family.label(),
            chart,
            candidates: members.len(),
            front: front.iter().map(|&i| candidates[i].name.clone()).collect(),
        });
    }
    families
}

/// The answer's first sentence in dollars, where the sessions are priced: what they cost,
/// measured beside simulated (docs/model.md §4); the answer then says what the best
/// candidate saves, in dollars too where every session is priced.
fn money_line(
    b: &Baseline,
    measured: Option<&crate::history::aggregate::MeasuredTotals>,
) -> Option<String> {
    let money = crate::number::dollars;
    let simulated = b.dollars?;
    let sessions = plural(b.sessions, "session", "sessions");
    let cost = match measured.filter(|m| m.dollar_sessions == b.sessions) {
        Some(m) => format!(
            "Your {sessions} cost {} measured ({} simulated).",
            money(m.measured_dollars),
            money(m.simulated_dollars)
        ),
        None => format!("Your {sessions} cost {} (simulated).", money(simulated)),
    };
    Some(cost)
}

/// The answer: the best candidate by cost with its share, and how robust it is.
fn answer(ranked: &[Suggested], b: &Baseline, factors: &Factors) -> String {
    let over = format!("Over {}", plural(b.sessions, "session", "sessions"));
    let Some(best) = ranked.first() else {
        return format!("{over}: no candidate edit.");
    };
    let d = &best.per_session_cost_pct;
    // The best saves no cost: nothing to suggest, never "the best … saves 0.0 %".
    if best.cost_saved <= 0.0 {
        return format!(
            "{over}, none of the {} found in the data saves cost: the best, {}, {} ({} of the summed cost, {} of the summed reread tokens). There is no change to suggest.",
            plural(ranked.len(), "candidate edit", "candidate edits"),
            best.name,
            if best.cost_saved == 0.0 {
                "saves nothing"
            } else {
                "costs more"
            },
            percent(best.cost_saved_pct),
            percent(best.saved_pct)
        );
    }
    let saves = match (b.ranked_by_dollars, best.dollars_saved, b.dollars) {
        (true, Some(saved), Some(total)) if total > 0.0 => format!(
            "about {} ({} of the summed dollars)",
            crate::number::dollars(saved),
            percent(100.0 * saved / total)
        ),
        _ => format!(
            "{} of the summed cost ({} input-token equivalents)",
            percent(best.cost_saved_pct),
            grouped(best.cost_saved, 0)
        ),
    };
    let mut text = format!(
        "{over}, the best of {} found in the data is {}: it saves {saves} and {} of the summed reread tokens, removing {} est. tokens of context.",
        plural(ranked.len(), "candidate edit", "candidate edits"),
        best.name,
        percent(best.saved_pct),
        grouped(best.context_removed_tokens, 0)
    );
    text.push_str(&format!(
        " It saves cost in {} of {} sessions (per session p10–p90 {} to {}) and at {} of {} points of the assumption sweep ({}), where it ranks {}.",
        grouped(best.sessions_saving_cost as f64, 0),
        grouped(b.sessions as f64, 0),
        percent(d.p10),
        percent(d.p90),
        best.sweep_points_saving_cost,
        best.sweep_points,
        factors.describe(),
        rank_range(best)
    ));
    text.push_str(&median_caveat(d));
    if let Some(r) = &best.refetch {
        text.push_str(&format!(
            " It {}, sampled on the re-fetch rates {} (docs/model.md §11).",
            r.clause(),
            r.rates()
        ));
    }
    text
}

/// A sum can hide that most sessions pay: a sentence (with its leading space) where the
/// median session's cost rises with the edit (`d`: each session's percentage of its own
/// cost saved), else nothing.
fn median_caveat(d: &Distribution) -> String {
    if d.median < 0.0 {
        format!(
            " The saving comes from a few sessions: the median session pays {} more with it.",
            percent(-d.median)
        )
    } else {
        String::new()
    }
}

/// `1st` or `1st to 3rd`, the cost ranks over the sweep.
pub fn rank_range(s: &Suggested) -> String {
    if s.sweep_cost_rank_best == s.sweep_cost_rank_worst {
        format!("{} at every point", ordinal(s.sweep_cost_rank_best))
    } else {
        format!(
            "{} to {}",
            ordinal(s.sweep_cost_rank_best),
            ordinal(s.sweep_cost_rank_worst)
        )
    }
}

/// `1st`, `2nd`, `3rd`, `11th`.
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saving_the_median_session_pays_for_is_said() {
        let d = |median| Distribution {
            min: -50.0,
            p10: -41.8,
            median,
            p90: 22.9,
            max: 30.0,
        };
        assert_eq!(
            median_caveat(&d(-27.8)),
            " The saving comes from a few sessions: the median session pays 27.8 % more with it."
        );
        assert_eq!(median_caveat(&d(0.0)), "");
        assert_eq!(median_caveat(&d(3.0)), "");
    }

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            vec![
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"
            ]
        );
    }
}
