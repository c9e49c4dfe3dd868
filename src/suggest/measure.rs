//! What `simulate history` does not give a suggestion: the context each edit removes, and
//! its cost at every point of the factor sweep (the history sweeps reread totals only).
//!
//! Both come from the same engine as the history's figures (`Study`, the clearings and
//! `sweep::totals`), evaluated per session at its own nominal B and ρ, then summed in
//! session order, so they add up the same way the history's do.

use crate::error::Error;
use crate::evaluate::{Study, Subject};
use crate::history::Factors;
use crate::ledger::{Affine, Assumptions};
use crate::scenario::Scenario;
use crate::sweep::{Model, Point, totals};
use serde::{Deserialize, Serialize};

/// One session's figures (spilled beside its history record until summed in session
/// order: `pass`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionMeasure {
    /// By edit index: the context removed at the nominal point, est. tokens
    /// ([`end_context`] of the baseline less the edit's).
    pub removed: Vec<f64>,
    /// Point-major: at each factor point the baseline's cost, then each edit's, in
    /// input-token equivalents.
    pub costs: Vec<f64>,
}

/// The context after the run's last call has joined (what a next call would read), at
/// `at`: its base, every call's result and own message, what tool searches loaded, less
/// what its clearings and compactions freed (net of their placeholders and summaries).
///
/// So a baseline's end context less an edit's is the context the edit takes away,
/// counted once: the tokens capped, deduplicated, cleared, summarised or dropped away.
pub fn end_context(study: &Study, subject: &Subject, at: Assumptions) -> f64 {
    let frame = subject.at(at);
    let clearings = subject.clearings(study, at);
    end_context_with(subject, frame, &clearings)
}

/// [`end_context`] with the subject's `clearings` already made (an outcome's, at `frame`).
pub fn end_context_with(
    subject: &Subject,
    frame: Assumptions,
    clearings: &crate::clear::Clearings,
) -> f64 {
    let joined: f64 = subject
        .run
        .iter()
        .map(|s| s.size(frame.bytes_per_token))
        .sum();
    let searched: f64 = subject.whatif.searches.iter().map(|r| r.joins_tokens).sum();
    // A clearing that persists frees its results for good, each event its own; the API's
    // context editing edits each request on its own, its widest edit (the last event's
    // freed tokens, all of them) standing for the next request's.
    let freed: f64 = match clearings.stateless() {
        true => clearings.events.last().map_or(0.0, |e| e.freed_tokens),
        false => clearings.events.iter().map(|e| e.freed_tokens).sum(),
    };
    frame.base_tokens + joined + searched - freed
}

impl SessionMeasure {
    /// The measure from the history's own replays of the session (`evaluate_session_beside`
    /// with [`end_context_with`]): the same numbers [`measure`] computes.
    pub fn of(beside: crate::history::session::SweepCosts) -> SessionMeasure {
        let baseline_end = beside.ends.first().copied().unwrap_or(0.0);
        SessionMeasure {
            removed: beside
                .ends
                .iter()
                .skip(1)
                .map(|e| baseline_end - e)
                .collect(),
            costs: beside.costs,
        }
    }
}

/// Measures `scenario` (its edits already the suggestion's) at its nominal point and over
/// `factors` on its B and ρ.
pub fn measure(scenario: &Scenario, factors: &Factors) -> Result<SessionMeasure, Error> {
    let study = Study::new(scenario)?;
    let at = Assumptions {
        base_tokens: scenario.base_tokens,
        bytes_per_token: scenario.bytes_per_token,
    };
    let scaled = |(fb, fr): (f64, f64)| Assumptions {
        base_tokens: at.base_tokens * fb,
        bytes_per_token: at.bytes_per_token * fr,
    };
    let nominal_point = study.nominal(at);
    // As the history evaluates a session: a run whose clearings do not move with B or ρ
    // keeps its nominal clearings and its closed form, unless its base edit takes the
    // base to 0 somewhere on the grid (then it is replayed there, as the history does).
    let mut models = Vec::new();
    let mut ends = Vec::new();
    for subject in study.subjects() {
        let clearings = subject.clearings(&study, at);
        ends.push(end_context_with(subject, subject.at(at), &clearings));
        let clamped = factors.points().any(|f| subject.base_below_zero(scaled(f)));
        models.push(if subject.depends_on_assumptions() || clamped {
            Model::Replay
        } else {
            Model::Fixed {
                sums: Box::new(subject.sums::<Affine>(&study, &clearings, at)),
                clearings,
            }
        });
    }
    let baseline_end = ends[0];
    let removed = ends[1..].iter().map(|e| baseline_end - e).collect();
    let mut costs = Vec::with_capacity(factors.len() * models.len());
    for f in factors.points() {
        let a = scaled(f);
        let point = Point {
            base_tokens: a.base_tokens,
            bytes_per_token: a.bytes_per_token,
            ..nominal_point
        };
        for (subject, model) in study.subjects().zip(&models) {
            costs.push(totals(&study, subject, model, &point, true).cost);
        }
    }
    Ok(SessionMeasure { removed, costs })
}

/// The measures of every session summed in session order.
#[derive(Debug, Clone, PartialEq)]
pub struct Sums {
    /// By edit index: Σ of the context removed.
    pub removed: Vec<f64>,
    /// By factor point: Σ of the baseline costs.
    pub baseline_cost: Vec<f64>,
    /// By factor point, then edit index: Σ of the cost saved (baseline − edit).
    pub cost_saved: Vec<Vec<f64>>,
}

impl Sums {
    /// Nothing summed yet, for `edits` edits over `points` factor points.
    pub fn new(edits: usize, points: usize) -> Sums {
        Sums {
            removed: vec![0.0; edits],
            baseline_cost: vec![0.0; points],
            cost_saved: vec![vec![0.0; edits]; points],
        }
    }

    /// Adds the next session's measure, in session order (so the sums are the same to
    /// the bit however the files were read).
    pub fn add(&mut self, m: &SessionMeasure) {
        let width = 1 + self.removed.len();
        for (sum, r) in self.removed.iter_mut().zip(&m.removed) {
            *sum += r;
        }
        let points = self.baseline_cost.len();
        for (p, costs) in m.costs.chunks_exact(width).enumerate().take(points) {
            self.baseline_cost[p] += costs[0];
            for (sum, c) in self.cost_saved[p].iter_mut().zip(&costs[1..]) {
                *sum += costs[0] - c;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    /// B = 1,000, ρ = 1, four tool calls of 2,000 bytes; each edit's context removed by
    /// hand: the cap cuts 1,500 from each of four results; the clearing before call 4
    /// (1,000 + 6,000 > 6,500) keeps the latest result and frees 2 × (2,000 − 9); the compaction
    /// before call 4 (7,000 > 5,000) replaces 6,000 of calls by a 300-token summary.
    #[test]
    fn context_removed_is_the_end_context_less_the_edits() {
        let text = r#"
name = "t"
base_tokens = 1000
bytes_per_token = 1.0
[[call]]
id = "a"
tool = "Bash"
bytes = 2000
[[call]]
id = "b"
tool = "Bash"
bytes = 2000
[[call]]
id = "c"
tool = "Bash"
bytes = 2000
[[call]]
id = "d"
tool = "Bash"
bytes = 2000
[[edit]]
name = "cap"
cap = { select = { tool = "Bash" }, max_bytes = 500 }
[[edit]]
name = "clear"
clear = { above_context_tokens = 6500, keep_results = 1 }
[[edit]]
name = "compact"
compact = { above_context_tokens = 5000, summary_tokens = 300 }
"#;
        let s = load_str(text, Path::new("t.toml")).unwrap();
        let m = measure(&s, &Factors::default()).unwrap();
        assert_eq!(m.removed[0], 4.0 * 1_500.0);
        assert_eq!(m.removed[1], 2.0 * (2_000.0 - 9.0));
        assert_eq!(m.removed[2], 6_000.0 - 300.0);
        // Nine factor points, the baseline and three edits each; without a cache the
        // cost is the reread total: at the nominal point (the middle) 1,000 + 3,000 +
        // 5,000 + 7,000.
        assert_eq!(m.costs.len(), 9 * 4);
        assert_eq!(m.costs[4 * 4], 16_000.0);
    }
}
