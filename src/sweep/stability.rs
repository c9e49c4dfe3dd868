//! Whether the nominal ranking holds across the grid, and where pairs of edits flip.

use super::region::{self, Hints};
use crate::ledger::Affine;
use crate::rank::{self, Ranking};
use crate::sweep::{Grid, MAX_POINTS};
use serde::Serialize;

/// Flip points kept per pair; beyond this only the count grows (the report says so).
pub const MAX_FLIP_POINTS: usize = 1_000_000;

/// Flip points kept over all pairs together (16 MB), so many edits cannot multiply the
/// lists past memory: each pair keeps its share, at most [`MAX_FLIP_POINTS`].
pub const MAX_FLIP_POINTS_IN_ALL: usize = 4_000_000;

// Grid indices are kept as u32: every grid has at most MAX_POINTS points.
const _: () = assert!(MAX_POINTS <= u32::MAX as u64);

/// A pair of edits whose nominal order is reversed at some points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flip {
    /// The edit that saves more at the nominal point.
    pub a: String,
    /// The edit that saves more at the flipping points.
    pub b: String,
    /// Grid indices (grid order) where `b` saves more than `a`, up to [`MAX_FLIP_POINTS`]
    /// (fewer when many pairs share [`MAX_FLIP_POINTS_IN_ALL`]).
    #[serde(skip)]
    pub indices: Vec<u32>,
    /// How many points flip.
    pub count: usize,
    /// The region in words, e.g. "when B ≤ 20,000 and ρ ≥ 4".
    pub region: String,
}

/// Ranking stability over the grid for one measure (reread tokens or cost).
#[derive(Debug, Clone)]
pub struct Stability {
    /// `tokens` or `cost`.
    pub measure: &'static str,
    pub nominal: Ranking,
    /// Nominal pairs with a strict order: (better, worse) edit indices.
    pairs: Vec<(usize, usize)>,
    pub points: usize,
    pub matching_order: usize,
    pub matching_winner: usize,
    flips: Vec<Vec<u32>>,
    flip_counts: Vec<usize>,
    /// Flip points kept per pair.
    keep_per_pair: usize,
    /// The edits' reread totals in closed form, where they have one (reread tokens only):
    /// a region then has an exact break-even.
    closed_forms: Vec<Option<Affine>>,
}

/// Whether edit `x` saves strictly more than edit `y` (beyond a tie).
fn strictly_better(savings: &[f64], baseline_total: f64, x: usize, y: usize) -> bool {
    savings[x] > savings[y] && !rank::tied(savings[x], savings[y], baseline_total)
}

impl Stability {
    /// Starts counting against the nominal savings (one per edit).
    pub fn new(measure: &'static str, nominal_savings: &[f64], nominal_total: f64) -> Stability {
        let nominal = rank::rank(nominal_savings, nominal_total);
        let mut pairs = Vec::new();
        for (x, &a) in nominal.order.iter().enumerate() {
            for &b in &nominal.order[x + 1..] {
                if !rank::tied(nominal_savings[a], nominal_savings[b], nominal_total) {
                    pairs.push((a, b));
                }
            }
        }
        let count = pairs.len();
        Stability {
            measure,
            nominal,
            pairs,
            points: 0,
            matching_order: 0,
            matching_winner: 0,
            flips: vec![Vec::new(); count],
            flip_counts: vec![0; count],
            keep_per_pair: MAX_FLIP_POINTS_IN_ALL
                .checked_div(count)
                .unwrap_or(0)
                .min(MAX_FLIP_POINTS),
            closed_forms: Vec::new(),
        }
    }

    /// The closed forms of the edits' reread totals (one per edit, None where there is
    /// none), for the break-evens in the regions' words. Only for reread tokens: cost has
    /// no closed form in the assumptions the sweep varies.
    pub fn with_closed_forms(mut self, closed_forms: Vec<Option<Affine>>) -> Stability {
        self.closed_forms = closed_forms;
        self
    }

    /// Whether these savings (one per edit) reverse any strictly ordered nominal pair.
    pub fn order_differs(&self, savings: &[f64], baseline_total: f64) -> bool {
        self.pairs
            .iter()
            .any(|&(a, b)| strictly_better(savings, baseline_total, b, a))
    }

    /// Counts grid point `index` with these savings (one per edit) and baseline total.
    pub fn observe(&mut self, index: usize, savings: &[f64], baseline_total: f64) {
        self.points += 1;
        let strictly_better = |x: usize, y: usize| strictly_better(savings, baseline_total, x, y);
        let mut flipped = false;
        for (p, &(a, b)) in self.pairs.iter().enumerate() {
            if strictly_better(b, a) {
                flipped = true;
                self.flip_counts[p] = self.flip_counts[p].saturating_add(1);
                if self.flips[p].len() < self.keep_per_pair
                    && let Ok(i) = u32::try_from(index)
                {
                    self.flips[p].push(i);
                }
            }
        }
        if !flipped {
            self.matching_order += 1;
        }
        let winner = self.nominal.order.first();
        if winner.is_some_and(|&w| !(0..savings.len()).any(|e| strictly_better(e, w))) {
            self.matching_winner += 1;
        }
    }

    /// Whether every point kept the nominal order.
    pub fn holds(&self) -> bool {
        self.matching_order == self.points
    }

    /// The flipping pairs, with their regions described over `grid`.
    pub fn flips(&self, names: &[String], grid: &Grid) -> Vec<Flip> {
        // Reread tokens do not depend on the cache read price or the retry rate.
        let tokens = self.measure == "tokens";
        self.pairs
            .iter()
            .zip(&self.flips)
            .zip(&self.flip_counts)
            .filter(|(_, count)| **count > 0)
            .map(|((&(a, b), indices), &count)| {
                let exact = match (self.closed_forms.get(a), self.closed_forms.get(b)) {
                    (Some(Some(ta)), Some(Some(tb))) if tokens => Some((ta, tb)),
                    _ => None,
                };
                let hints = Hints {
                    inert: [false, false, tokens, tokens, false],
                    exact,
                };
                Flip {
                    a: names[a].clone(),
                    b: names[b].clone(),
                    region: region::describe(grid, indices, count, &hints),
                    indices: indices.clone(),
                    count,
                }
            })
            .collect()
    }
}
