//! Ranking edits by saving, with ties (docs/model.md §5).
//!
//! Two savings within `1e-9 ×` the baseline total of each other are a tie: floating-point
//! noise must not decide a ranking, and a tie is never reported as a flip.

/// Relative tolerance for ties, as a fraction of the baseline total.
pub const TIE_TOLERANCE: f64 = 1e-9;

/// Edits in ranked order, with competition ranks (1, 1, 3, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranking {
    /// Edit indices, best saving first; tied edits in declaration order.
    pub order: Vec<usize>,
    /// 1-based rank of each edit, by edit index; tied edits share a rank.
    pub ranks: Vec<usize>,
}

/// Whether two savings tie, against a baseline total.
#[inline]
pub fn tied(a: f64, b: f64, baseline_total: f64) -> bool {
    (a - b).abs() <= TIE_TOLERANCE * baseline_total.abs()
}

/// Ranks `savings` (one per edit, larger is better).
pub fn rank(savings: &[f64], baseline_total: f64) -> Ranking {
    let mut order: Vec<usize> = (0..savings.len()).collect();
    order.sort_by(|&a, &b| savings[b].total_cmp(&savings[a]).then(a.cmp(&b)));
    // Runs of ties: put them in declaration order and give them one rank.
    let mut ranks = vec![0; savings.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len()
            && tied(savings[order[end - 1]], savings[order[end]], baseline_total)
        {
            end += 1;
        }
        order[start..end].sort_unstable();
        for &i in &order[start..end] {
            ranks[i] = start + 1;
        }
        start = end;
    }
    Ranking { order, ranks }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_by_saving_with_ties_in_declaration_order() {
        let r = rank(&[10.0, 30.0, 30.0 + 1e-12, 5.0], 1000.0);
        assert_eq!(r.order, vec![1, 2, 0, 3]);
        assert_eq!(r.ranks, vec![3, 1, 1, 4]);
    }

    #[test]
    fn a_difference_beyond_the_tolerance_is_not_a_tie() {
        let r = rank(&[1.0, 1.0 + 2e-6], 1000.0);
        assert_eq!(r.ranks, vec![2, 1]);
    }
}
