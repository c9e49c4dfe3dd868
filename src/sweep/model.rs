//! How each run is evaluated at a sweep point: by closed form where its events are fixed,
//! by replay where they move with the assumptions.

use crate::clear::Clearings;
use crate::evaluate::{Study, Subject};
use crate::ledger::Affine;
pub use crate::point::Totals;
use crate::scenario::CacheSpec;
use crate::sweep::Point;
use crate::timeline::RunSums;

/// A run's evaluation plan.
#[derive(Debug, Clone)]
pub enum Model {
    /// Its clearings do not depend on `B` or `ρ`: the sums have a closed form (valid for
    /// the cost where `B ≥ min_tokens`; below, the run is replayed with these clearings).
    Fixed {
        sums: Box<RunSums<Affine>>,
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
        Model::Fixed {
            sums: Box::new(sums),
            clearings,
        }
    }

    /// The reread total's closed form, if it has one.
    pub fn affine(&self) -> Option<&Affine> {
        match self {
            Model::Fixed { sums, .. } => Some(&sums.context),
            Model::Replay => None,
        }
    }
}

/// Whether a run's closed form holds under `cache` with base `base`: every request is at
/// least the base, so none is under the minimum where the base is not; and the first
/// request's warm read (`warm_share × base`) is either nothing or at least the minimum,
/// since the replay counts a shorter one as nothing cached.
fn holds(cache: &CacheSpec, base: f64) -> bool {
    base >= cache.min_tokens
        && (cache.warm_share == 0.0 || cache.warm_share * base >= cache.min_tokens)
}

/// The re-fetches at rate `p` of what `subject` removes under `clearings`.
fn refetches_at(
    study: &Study,
    subject: &Subject,
    clearings: &Clearings,
    p: f64,
) -> Vec<crate::timeline::AddedRequest> {
    let removals = subject.removals(study, clearings);
    crate::refetch::requests(&removals, p, subject.run.len())
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
        // The plan is the run's at the scenario's own re-fetch rate; at another, its
        // re-fetches are others (docs/model.md §11): replayed with them.
        Model::Fixed { clearings, .. } if subject.refetch_differs(study, point) => {
            let mut clearings = clearings.clone();
            clearings.refetches = refetches_at(study, subject, &clearings, point.refetch);
            subject.sums(study, &clearings, at)
        }
        _ if subject.refetch_differs(study, point) => {
            let clearings = subject.clearings_at(study, at, point.refetch);
            subject.sums(study, &clearings, at)
        }
        // The closed form assumes every cached prefix at least min_tokens: the base (any
        // request and prefix is at least it), and the warm part of it at the first call.
        Model::Fixed { sums, .. }
            if closed_form && cache.is_none_or(|c| holds(c, subject.at(at).base_tokens)) =>
        {
            sums.at(at)
        }
        Model::Fixed { clearings, .. } => subject.sums(study, clearings, at),
        Model::Replay => subject.sums(study, &subject.clearings(study, at), at),
    };
    Totals {
        tokens: sums.context,
        cost: subject.cost(study, &sums, point),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Assumptions;
    use crate::scenario::load_str;
    use std::path::Path;

    /// Regression: with a warm share whose read is under the minimum (0.3 × 2,000 = 600 <
    /// 1,024), the closed form counted 600 tokens read at the first call where the replay
    /// counts none cached, so the sweep's cost differed from `--replay` (2,072.5 against
    /// 2,762.5). Such a point is now replayed.
    #[test]
    fn a_warm_read_under_the_minimum_is_replayed() {
        let s = load_str(
            "name = \"w\"\nbase_tokens = 2000\nbytes_per_token = 1.0\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\nwarm_share = 0.3\n[[call]]\nid = \"a\"\nbytes = 100\n[[call]]\nid = \"b\"\nbytes = 100\n",
            Path::new("w.toml"),
        )
        .unwrap();
        let study = Study::new(&s).unwrap();
        for base in [2_000.0, 4_000.0] {
            let point = study.nominal(Assumptions {
                base_tokens: base,
                bytes_per_token: 1.0,
            });
            let model = Model::new(&study, &study.baseline, &point);
            assert!(matches!(model, Model::Fixed { .. }));
            let closed = totals(&study, &study.baseline, &model, &point, true);
            let replayed = totals(&study, &study.baseline, &model, &point, false);
            assert_eq!(closed, replayed, "B = {base}");
        }
    }
}
