//! One session: a scenario with the history's edits, evaluated at its own nominal point
//! and at every point of the factor grid, boiled down to plain figures.
//!
//! The nominal figures come from the same replay as `simulate SCENARIO --edits FILE`, so a
//! session's row says exactly what the single-scenario command says about it. The grid
//! points use the closed forms of the sweep (`sweep::Model`), which is what keeps ten
//! thousand sessions fast.
//!
//! One difference, on purpose: a base edit larger than a session's base (the shipped
//! "drop the MCP server" on a warm-up subagent of 3,852 tokens) is an error for one
//! scenario but not here, where it would stop the whole history on one short trace. It
//! removes what there is (B = 0), and the session is named per edit. Its closed form would
//! go below zero, so that edit is replayed at every point of that session's grid.

use crate::error::{Error, Located};
use crate::evaluate::{Study, evaluate};
use crate::history::Factors;
use crate::history::groups::Labels;
use crate::ledger::{Affine, Assumptions};
use crate::rank;
use crate::report::{MeasuredReport, Sources, WhatIfReport};
use crate::scenario::Scenario;
use crate::sweep::{Model, Point, totals};
use serde::{Deserialize, Serialize};

/// One edit's figures on one session, at the session's nominal point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionEdit {
    /// Reread total after the edit, in est. tokens.
    pub total_tokens: f64,
    /// Calls after the edit.
    pub calls: usize,
    /// `T_baseline − T_edited`, est. tokens.
    pub saved_tokens: f64,
    /// Percent of this session's baseline reread total.
    pub saved_pct: f64,
    /// The saving in this session's average baseline calls.
    pub equivalent_calls: f64,
    /// Saving in input-token equivalents under the session's cost model (its `[cache]`, or
    /// flat without one).
    pub cost_saved: f64,
    pub cost_saved_pct: f64,
    /// USD, when the session has a `[price]`.
    pub dollars_saved: Option<f64>,
    /// 1-based rank among the edits in this session (ties share a rank, docs/model.md §5).
    pub rank: usize,
    /// Rules of the edit that selected no call in this session (not an error: the edit
    /// changes nothing there).
    pub selected_nothing: Vec<String>,
    /// Whether the edit's base change is larger than this session's base at its nominal
    /// point: it removes what there is (B = 0 in this session), not an error.
    pub base_clamped: bool,
    /// Points of the factor grid where it is (B = 0 there; this session's run of the edit
    /// is replayed at every point, not taken from its closed form).
    pub base_clamped_points: usize,
    /// What a `cache`, `model` or base-part step did in this session (docs/model.md §9):
    /// the model it is priced as, whether its trace kind was left out, the calls that use
    /// a dropped or deferred part's tools. Absent for other edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub what_if: Option<WhatIfReport>,
    /// For an edit that removes results (docs/model.md §11): its saving here at each
    /// re-fetch rate of `refetch::RATES`. Absent for other edits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refetch: Option<super::refetch::SessionRefetch>,
}

/// Every figure of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionFigures {
    /// The scenario's name; sessions are ordered by it.
    pub name: String,
    /// The scenario file, relative to the history's directory.
    pub file: String,
    pub calls: usize,
    /// The session's nominal B.
    pub base_tokens: f64,
    /// The session's nominal ρ.
    pub bytes_per_token: f64,
    /// Where B and ρ came from (fitted, measured or assumed), as the file says.
    pub sources: Sources,
    /// Baseline reread total, est. tokens at the session's own ρ.
    pub baseline_total_tokens: f64,
    /// Baseline cost, input-token equivalents.
    pub baseline_cost: f64,
    /// Whether the session has a `[cache]`: its costs are then the prompt cache's, else
    /// flat (equal to its reread totals).
    pub cached: bool,
    /// By edit index (the edits file's order).
    pub edits: Vec<SessionEdit>,
    /// Other things to know that are not errors (a setting overridden by pinning).
    pub warnings: Vec<String>,
    /// Baseline dollars (simulated), where the session's prices are known.
    #[serde(default)]
    pub baseline_dollars: Option<f64>,
    /// Measured beside simulated, for a session whose calls carry the provider's usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<SessionMeasured>,
}

/// A session's measured usage beside its simulation (docs/model.md §6), over the calls
/// that carry it: how far the simulation is from the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionMeasured {
    /// Calls with a measured total input, of the session's calls.
    pub calls_measured: usize,
    /// Σ measured total input, tokens; and the simulated contexts of the same calls.
    pub measured_input_tokens: f64,
    pub simulated_input_tokens: f64,
    /// Measured dollars, each call at its model's list price; None where a model's
    /// prices are unknown.
    pub measured_dollars: Option<f64>,
    /// Simulated dollars of the same calls; None where the session's prices are unknown.
    pub simulated_dollars: Option<f64>,
    /// `100 · (simulated − measured) / measured` cost, in input-token equivalents.
    pub cost_difference_pct: Option<f64>,
    /// R² of the fit of B and ρ to the measured contexts (`simulate fit`); None where
    /// there is too little to fit.
    pub r_squared: Option<f64>,
    /// Every cache break, classified and priced under the session's own lifetime and B
    /// (docs/model.md §4, "Breaks"); empty where no request reports cache reads.
    #[serde(default)]
    pub breaks: Vec<crate::fit::breaks::Break>,
}

impl SessionFigures {
    /// Savings on the reread total, by edit index.
    pub fn savings(&self) -> Vec<f64> {
        self.edits.iter().map(|e| e.saved_tokens).collect()
    }

    /// Whether no edit changes this session's reread total: every saving ties with zero
    /// (docs/model.md §5). By reread tokens such a session is nobody's win, though every
    /// edit ranks first, so first in leaves it out; an edit may still change its cost.
    pub fn reread_tied(&self) -> bool {
        !self.edits.is_empty()
            && self
                .edits
                .iter()
                .all(|e| rank::tied(e.saved_tokens, 0.0, self.baseline_total_tokens))
    }

    /// Whether no edit changes this session at all: its reread total ties
    /// ([`reread_tied`](Self::reread_tied)) and so does its cost (a cache edit's other TTL
    /// or a model edit's prices change the cost alone).
    pub fn unchanged(&self) -> bool {
        self.reread_tied()
            && self
                .edits
                .iter()
                .all(|e| rank::tied(e.cost_saved, 0.0, self.baseline_cost))
    }
}

/// A session's figures and its reread totals at every factor point: point-major, the
/// baseline first then each edit (`(1 + edits)` values a point). What a history keeps of
/// a session, and a line of its `shard.jsonl` (see `shard`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub figures: SessionFigures,
    pub sweep_totals: Vec<f64>,
    /// The reread totals' closed forms in the factors on B and ρ, the baseline first then
    /// each edit: `T(f_B, f_ρ) = calls·B·f_B + tokens + (bytes/ρ)/f_ρ` with this session's
    /// B and ρ folded in, so sessions add up. None for a run replayed over the grid.
    pub closed_forms: Vec<Option<Affine>>,
    /// Who ran it, in which project, with which model: what `--group-by` groups by.
    pub labels: Labels,
}

/// Evaluates `scenario` (its edits already the history's) as the session in `file`.
///
/// Errors: an edit that names a call the session lacks, naming the edit and the session
/// file. A base edit larger than the session's base is not one: it removes what there is
/// (see the module's comment).
pub fn evaluate_session(
    scenario: &Scenario,
    file: &str,
    factors: &Factors,
) -> Result<Session, Error> {
    evaluate_session_beside(scenario, file, factors, None).map(|(s, _)| s)
}

/// A subject's end context at a frame with its clearings made (`suggest::measure`'s).
pub type EndContext = fn(&crate::evaluate::Subject, Assumptions, &crate::clear::Clearings) -> f64;

/// What a suggestion measures beside a session's history figures, from the same replays
/// (`suggest::measure::measure` computes the same numbers from a study of its own).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepCosts {
    /// By subject (the baseline first): its end context at the nominal point.
    pub ends: Vec<f64>,
    /// Point-major: at each factor point each subject's cost, input-token equivalents.
    pub costs: Vec<f64>,
}

/// [`evaluate_session`], and with `end` given, the end contexts and the costs over the
/// factor sweep (its totals are computed anyway: their cost is kept, not recomputed).
pub fn evaluate_session_beside(
    scenario: &Scenario,
    file: &str,
    factors: &Factors,
    end: Option<EndContext>,
) -> Result<(Session, SweepCosts), Error> {
    let mut beside = SweepCosts::default();
    let study = Study::new(scenario).map_err(|e| in_session(e, file))?;
    let at = Assumptions {
        base_tokens: scenario.base_tokens,
        bytes_per_token: scenario.bytes_per_token,
    };
    let scaled = |(fb, fr): (f64, f64)| Assumptions {
        base_tokens: at.base_tokens * fb,
        bytes_per_token: at.bytes_per_token * fr,
    };
    // By subject (the baseline first): the grid points where its base edit removes more
    // than the base.
    let clamped_points: Vec<usize> = study
        .subjects()
        .map(|subject| {
            factors
                .points()
                .filter(|&f| subject.base_below_zero(scaled(f)))
                .count()
        })
        .collect();
    let nominal_point = study.nominal(at);
    let nominal = evaluate(&study, nominal_point);
    let calls = nominal.baseline.calls;
    let (baseline_total_tokens, baseline_cost) =
        (nominal.baseline.total_tokens, nominal.baseline.cost);

    let mut refetch = super::refetch::of_session(&study, &nominal);
    let edits = nominal
        .edits
        .iter()
        .enumerate()
        .map(|(i, r)| SessionEdit {
            total_tokens: r.outcome.total_tokens,
            calls: r.outcome.calls,
            saved_tokens: r.saving.saved,
            saved_pct: r.saving.percent,
            equivalent_calls: r.saving.equivalent_calls,
            cost_saved: r.cost_saving.saved,
            cost_saved_pct: r.cost_saving.percent,
            dollars_saved: nominal
                .baseline
                .dollars
                .zip(r.outcome.dollars)
                .map(|(b, e)| b - e),
            rank: nominal.ranking.ranks[i],
            selected_nothing: study.edit_notes.get(i).cloned().unwrap_or_default(),
            base_clamped: study.edited[i].base_below_zero(at),
            base_clamped_points: clamped_points[i + 1],
            what_if: WhatIfReport::of(&study, &study.edited[i]),
            refetch: refetch.get_mut(i).and_then(Option::take),
        })
        .collect();
    // A rule that selects nothing is counted per edit, not as a warning.
    let warnings = study.other_warnings.clone();
    let baseline_dollars = nominal.baseline.dollars;
    let measured = MeasuredReport::new(&study, &nominal).map(|m| SessionMeasured {
        calls_measured: m.calls_measured,
        measured_input_tokens: m.measured_input_tokens,
        simulated_input_tokens: m.simulated_input_tokens,
        measured_dollars: m.measured_dollars,
        simulated_dollars: study.pricing.dollars(
            m.simulated_cost,
            nominal.baseline.unpriced_output_tokens > 0.0,
        ),
        cost_difference_pct: m.cost_difference_pct,
        r_squared: crate::fit::fit(scenario).ok().map(|f| f.r_squared),
        breaks: crate::fit::breaks::of(scenario).map_or_else(Vec::new, |b| b.breaks),
    });

    // The sweep's closed forms, reusing the nominal replay's clearings: for a run whose
    // clearings do not move with B or ρ they are the same at every point (as
    // `Model::new` computes them, without replaying each clearing policy twice). A run
    // whose base is 0 at some point is not affine there: it is replayed.
    let clearings = std::iter::once(nominal.baseline.clearings)
        .chain(nominal.edits.into_iter().map(|e| e.outcome.clearings));
    let models: Vec<Model> = study
        .subjects()
        .zip(clearings)
        .zip(&clamped_points)
        .map(|((subject, clearings), &clamped)| {
            if let Some(end) = end {
                beside.ends.push(end(subject, subject.at(at), &clearings));
            }
            if subject.depends_on_assumptions() || clamped > 0 {
                Model::Replay
            } else {
                let sums = subject.sums::<Affine>(&study, &clearings, at);
                Model::Fixed {
                    sums: Box::new(sums),
                    clearings,
                }
            }
        })
        .collect();
    let closed_forms = models
        .iter()
        .map(|m| {
            m.affine().map(|t| Affine {
                calls: t.calls * at.base_tokens,
                tokens: t.tokens,
                bytes: t.bytes / at.bytes_per_token,
            })
        })
        .collect();
    let mut sweep_totals = Vec::with_capacity(factors.len() * models.len());
    for factor in factors.points() {
        let a = scaled(factor);
        let point = Point {
            base_tokens: a.base_tokens,
            bytes_per_token: a.bytes_per_token,
            ..nominal_point
        };
        for (subject, model) in study.subjects().zip(&models) {
            let t = totals(&study, subject, model, &point, true);
            sweep_totals.push(t.tokens);
            if end.is_some() {
                beside.costs.push(t.cost);
            }
        }
    }

    Ok((
        Session {
            figures: SessionFigures {
                name: scenario.name.clone(),
                file: file.to_string(),
                calls,
                base_tokens: at.base_tokens,
                bytes_per_token: at.bytes_per_token,
                sources: Sources::of(scenario, false, false),
                baseline_total_tokens,
                baseline_cost,
                cached: scenario.cache.is_some(),
                edits,
                warnings,
                baseline_dollars,
                measured,
            },
            sweep_totals,
            closed_forms,
            labels: Labels::of(scenario),
        },
        beside,
    ))
}

/// Adds the session file to an error about an edit, whose location is in the edits file.
fn in_session(e: Error, file: &str) -> Error {
    match e {
        Error::Input(located) => Error::Input(Located {
            message: format!("{} (in session {file})", located.message),
            ..located
        }),
        other => other,
    }
}

/// `fitted`, `estimated`, `measured` or `assumed`: the first word of a source, else `given`.
pub fn source_kind(source: &str) -> &'static str {
    let first = source.split_whitespace().next().unwrap_or("");
    let first = first.trim_end_matches([':', ',']).to_ascii_lowercase();
    match first.as_str() {
        "fitted" => "fitted",
        "estimated" => "estimated",
        "measured" => "measured",
        "assumed" => "assumed",
        _ => "given",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_classed_by_their_first_word() {
        assert_eq!(source_kind("fitted (simulate fit: R² = 0.99)"), "fitted");
        assert_eq!(
            source_kind("estimated: the first request's measured total input"),
            "estimated"
        );
        assert_eq!(source_kind("measured: 12,000"), "measured");
        assert_eq!(source_kind("assumed (scenario file)"), "assumed");
        assert_eq!(source_kind("from the vendor"), "given");
    }
}
