//! How each run is evaluated at a sweep point: by closed form where its events are fixed,
//! by replay where they move with the assumptions.

use crate::clear::Clearings;
use crate::evaluate::{Study, Subject};
use crate::ledger::Affine;
use crate::sweep::Point;
use crate::timeline::RunSums;

/// A run's evaluation plan.
#[derive(Debug, Clone)]
pub enum Model {
    /// Its clearings do not depend on `B` or `ρ`: the sums have a closed form (valid for
    /// the cost where `B ≥ min_tokens`; below, the run is replayed with these clearings).
    Fixed {
        sums: RunSums<Affine>,
        clearings: Clearings,
    },
    /// Its clearings move with `B` and `ρ` (token-triggered): replayed at every point.
    Replay,
}

impl Model {
    /// The plan for `subject`; `nominal` is any point (fixed clearings are the same at all).
    pub fn new(study: &Study, subject: &Subject, nominal: &Point) -> Model {
        if subject.depends_on_assumptions() {
            return Model::Replay;
        }
        let at = nominal.assumptions();
        let clearings = subject.clearings(study, at);
        let sums = subject.sums(study, &clearings, at);
        Model::Fixed { sums, clearings }
    }

    /// The reread total's closed form, if it has one.
    pub fn affine(&self) -> Option<&Affine> {
        match self {
            Model::Fixed { sums, .. } => Some(&sums.context),
            Model::Replay => None,
        }
    }
}

/// A run's reread total and cost at a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Totals {
    pub tokens: f64,
    pub cost: f64,
}

/// Evaluates `subject` at `point`. With `closed_form` false every run is replayed call by
/// call (the general path, a cross-check of the closed forms).
pub fn totals(
    study: &Study,
    subject: &Subject,
    model: &Model,
    point: &Point,
    closed_form: bool,
) -> Totals {
    let at = point.assumptions();
    // The run's own cache terms (a cache or model edit's): the closed form's validity
    // (B ≥ min_tokens) is the run's.
    let cache = subject.cache(study);
    let sums: RunSums<f64> = match model {
        Model::Fixed { sums, .. }
            if closed_form && cache.is_none_or(|c| subject.at(at).base_tokens >= c.min_tokens) =>
        {
            RunSums {
                context: sums.context.at(at),
                cached: sums.cached.at(at),
                written: sums.written.at(at),
                uncached: sums.uncached.at(at),
            }
        }
        Model::Fixed { clearings, .. } => subject.sums(study, clearings, at),
        Model::Replay => subject.sums(study, &subject.clearings(study, at), at),
    };
    Totals {
        tokens: sums.context,
        cost: subject.cost(study, &sums, point),
    }
}
