//! Whether a set of rankings keeps a reference order: the sessions against the aggregate,
//! or the factor grid's points against the nominal aggregate.
//!
//! The same rule as the single-scenario sweep (docs/model.md §5): a pair of edits the reference
//! orders strictly *flips* where the other edit saves strictly more (beyond a tie of 1e-9
//! of that item's baseline total); a tie is not a flip.

use crate::rank::{self, Ranking};
use serde::Serialize;

/// Items listed per flipping pair; beyond this only the count grows.
pub const MAX_LISTED: usize = 1000;

/// A pair of edits whose reference order is reversed by some items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairFlip {
    /// Edit index that saves more in the reference.
    pub a: usize,
    /// Edit index that saves more in the flipping items.
    pub b: usize,
    /// How many items flip the pair.
    pub count: usize,
    /// Their indices, ascending, at most [`MAX_LISTED`].
    pub items: Vec<usize>,
}

/// How many items keep the reference order and winner, and which pairs flip where.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    pub items: usize,
    pub matching_order: usize,
    pub matching_winner: usize,
    /// Only the pairs that flip somewhere, in the reference order.
    pub flips: Vec<PairFlip>,
}

impl Agreement {
    /// Whether every item keeps the reference order.
    pub fn holds(&self) -> bool {
        self.matching_order == self.items
    }
}

/// Counts how `items` (each: savings by edit index, and its baseline total) agree with
/// `reference`, the ranking of `reference_savings`.
pub fn agreement<'a>(
    reference: &Ranking,
    reference_savings: &[f64],
    reference_total: f64,
    items: impl IntoIterator<Item = (&'a [f64], f64)>,
) -> Agreement {
    let mut pairs: Vec<PairFlip> = Vec::new();
    for (x, &a) in reference.order.iter().enumerate() {
        for &b in &reference.order[x + 1..] {
            if !rank::tied(reference_savings[a], reference_savings[b], reference_total) {
                pairs.push(PairFlip {
                    a,
                    b,
                    count: 0,
                    items: Vec::new(),
                });
            }
        }
    }
    let winner = reference.order.first().copied();
    let mut result = Agreement {
        items: 0,
        matching_order: 0,
        matching_winner: 0,
        flips: Vec::new(),
    };
    for (index, (savings, total)) in items.into_iter().enumerate() {
        // An item no edit changes keeps every order trivially: counting it would make
        // the order look more robust than the items that decide it show.
        if savings.iter().all(|&x| rank::tied(x, 0.0, total)) {
            continue;
        }
        result.items += 1;
        let better = |x: usize, y: usize| {
            savings[x] > savings[y] && !rank::tied(savings[x], savings[y], total)
        };
        let mut flipped = false;
        for pair in &mut pairs {
            if better(pair.b, pair.a) {
                flipped = true;
                pair.count += 1;
                if pair.items.len() < MAX_LISTED {
                    pair.items.push(index);
                }
            }
        }
        if !flipped {
            result.matching_order += 1;
        }
        if winner.is_some_and(|w| !(0..savings.len()).any(|e| better(e, w))) {
            result.matching_winner += 1;
        }
    }
    result.flips = pairs.into_iter().filter(|p| p.count > 0).collect();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_flips_and_treats_ties_as_no_flip() {
        let reference = [30.0, 20.0, 10.0];
        let ranking = rank::rank(&reference, 100.0);
        let items: Vec<(Vec<f64>, f64)> = vec![
            (vec![3.0, 2.0, 1.0], 10.0),
            // 1 beats 0: a flip of (0, 1), and the winner is lost.
            (vec![2.0, 3.0, 1.0], 10.0),
            // 0 and 1 tie: no flip, and 0 is still (jointly) first.
            (vec![3.0, 3.0, 1.0], 10.0),
            // 2 beats 1 only.
            (vec![3.0, 1.0, 2.0], 10.0),
        ];
        let a = agreement(
            &ranking,
            &reference,
            100.0,
            items.iter().map(|(s, t)| (s.as_slice(), *t)),
        );
        assert_eq!((a.items, a.matching_order, a.matching_winner), (4, 2, 3));
        assert!(!a.holds());
        let flips: Vec<_> = a
            .flips
            .iter()
            .map(|p| (p.a, p.b, p.items.clone()))
            .collect();
        assert_eq!(flips, vec![(0, 1, vec![1]), (1, 2, vec![3])]);
    }

    #[test]
    fn an_item_no_edit_changes_is_not_counted() {
        let reference = [30.0, 20.0];
        let ranking = rank::rank(&reference, 100.0);
        // Item 1 saves nothing with any edit: it keeps any order and is left out; item 2's
        // flip is still listed by its own index.
        let items: Vec<(Vec<f64>, f64)> = vec![
            (vec![3.0, 2.0], 10.0),
            (vec![0.0, 0.0], 10.0),
            (vec![1.0, 2.0], 10.0),
        ];
        let a = agreement(
            &ranking,
            &reference,
            100.0,
            items.iter().map(|(s, t)| (s.as_slice(), *t)),
        );
        assert_eq!((a.items, a.matching_order, a.matching_winner), (2, 1, 1));
        assert_eq!(a.flips[0].items, vec![2]);
    }
}
