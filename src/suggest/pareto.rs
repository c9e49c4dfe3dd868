//! The Pareto front of a family of edits (docs/model.md §9, "Suggested edits"): the
//! edits for which no other choice, doing nothing included, saves at least as much cost
//! while removing no more context, and is better in one of the two.

/// One edit's two figures: the context it removes (less is better) and the cost it saves
/// (more is better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tradeoff {
    pub removed: f64,
    pub saved: f64,
}

/// Whether `q` dominates `p`: no worse in either figure and better in one, beyond the
/// tolerances (differences within them are ties, as in docs/model.md §5).
fn dominates(q: Tradeoff, p: Tradeoff, tol_removed: f64, tol_saved: f64) -> bool {
    let no_worse = q.removed <= p.removed + tol_removed && q.saved >= p.saved - tol_saved;
    let better = q.removed < p.removed - tol_removed || q.saved > p.saved + tol_saved;
    no_worse && better
}

/// For each point, whether it is on the front of `points` and of doing nothing (removing
/// nothing, saving nothing): a point that saves no cost is never on it, since doing
/// nothing is at least as good. Equal points are on it together.
pub fn front(points: &[Tradeoff], tol_removed: f64, tol_saved: f64) -> Vec<bool> {
    let nothing = Tradeoff {
        removed: 0.0,
        saved: 0.0,
    };
    points
        .iter()
        .map(|&p| {
            p.saved > tol_saved
                && !dominates(nothing, p, tol_removed, tol_saved)
                && !points
                    .iter()
                    .any(|&q| dominates(q, p, tol_removed, tol_saved))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(removed: f64, saved: f64) -> Tradeoff {
        Tradeoff { removed, saved }
    }

    #[test]
    fn the_front_is_what_nothing_else_beats() {
        let points = [
            t(100.0, 10.0), // on: the cheapest in context
            t(200.0, 25.0), // on
            t(250.0, 20.0), // off: (200, 25) removes less and saves more
            t(400.0, 30.0), // on: saves the most
            t(50.0, -5.0),  // off: costs more than doing nothing
            t(200.0, 25.0), // on: equal to another point on the front
        ];
        assert_eq!(
            front(&points, 1e-9, 1e-9),
            vec![true, true, false, true, false, true]
        );
        // A difference within the tolerance is a tie, not a domination.
        assert_eq!(
            front(&[t(100.0, 10.0), t(100.0, 10.0 + 1e-12)], 1e-9, 1e-9),
            vec![true, true]
        );
        assert!(front(&[], 0.0, 0.0).is_empty());
    }
}
