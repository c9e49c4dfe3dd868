//! Evaluating every edit of a scenario at one point of the assumptions.

use crate::edit::{self, Edited};
use crate::error::{Error, Located};
use crate::ledger::{self, Assumptions, Saving};
use crate::rank::{self, Ranking};
use crate::run::Run;
use crate::scenario::Scenario;

/// The scenario with its edits applied: what the engine compares.
#[derive(Debug, Clone)]
pub struct Study<'a> {
    pub scenario: &'a Scenario,
    pub baseline: Run,
    /// One per edit, in the scenario's order.
    pub edited: Vec<Edited>,
}

impl<'a> Study<'a> {
    /// Applies every edit to the baseline.
    pub fn new(scenario: &'a Scenario) -> Result<Study<'a>, Error> {
        let edited = scenario
            .edits
            .iter()
            .map(|e| {
                edit::apply(&scenario.calls, &e.action).map_err(|bad| {
                    Error::from(
                        Located::new(&scenario.source, bad.message)
                            .place(format!("[[edit]] \"{}\": {}", e.name, bad.key)),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Study {
            scenario,
            baseline: Run::baseline(&scenario.calls),
            edited,
        })
    }
}

/// One edit's figures at a point.
#[derive(Debug, Clone, PartialEq)]
pub struct EditResult {
    /// Calls after the edit.
    pub calls: usize,
    /// Reread total after the edit, in est. tokens.
    pub total_tokens: f64,
    pub saving: Saving,
}

/// Every edit's figures at one point, and their ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub at: Assumptions,
    pub baseline_total: f64,
    pub baseline_calls: usize,
    /// By edit index.
    pub edits: Vec<EditResult>,
    pub ranking: Ranking,
}

/// Evaluates `study` at `at` by replaying every run call by call.
pub fn evaluate(study: &Study, at: Assumptions) -> Evaluation {
    let baseline_total = ledger::reread_total(&study.baseline, at);
    let baseline_calls = study.baseline.len();
    let edits: Vec<EditResult> = study
        .edited
        .iter()
        .map(|e| {
            let total = ledger::reread_total(&e.run, at);
            EditResult {
                calls: e.run.len(),
                total_tokens: total,
                saving: Saving::new(baseline_total, baseline_calls, total),
            }
        })
        .collect();
    let savings: Vec<f64> = edits.iter().map(|e| e.saving.saved).collect();
    Evaluation {
        at,
        baseline_total,
        baseline_calls,
        ranking: rank::rank(&savings, baseline_total),
        edits,
    }
}
