//! The contexts the calls read, kept only as finely as the rules read them, so their
//! multiset grows with the range of the context sizes (about one value per token), not
//! with the calls (issue 30: nearly every call's context is a value of its own).
//!
//! What the rules (`rules::triggers`, `contexts_line`, the context-editing and compaction
//! candidates) ask of a multiset of contexts, every use of `Evidence::contexts` and
//! `OpenAi::contexts`:
//!
//! - the count, and whether it is empty;
//! - the nearest-rank p50, p75 and p90, each printed to a whole token (`grouped(x, 0)`,
//!   which is `format!("{:.0}")`: the exact value rounded half to even) and rounded to a
//!   trigger (`(x / TRIGGER_STEP_TOKENS).round()`, then × the step, at least one step);
//! - the largest, printed to a whole token and compared with triggers (`x < largest`);
//! - how many are more than a trigger (`count_above(x)`).
//!
//! Every trigger is a multiple of [`TRIGGER_STEP_TOKENS`]: a rounded percentile, or a
//! default of the API (asserted below to be multiples too). So each answer depends on a
//! context `v` only through its class, the triple
//! `(n, r, a) = (v rounded half to even, (v / step).round(), n is a multiple of the step and v > n)`:
//! the whole token printed is `n`; the trigger is made from `r`; and for a multiple `x` of
//! the step, `v > x` is `n > x` when `n ≠ x` (`|v - n| ≤ 0.5` and both are whole) and `a`
//! when `n = x`.
//!
//! Each part of the class is monotone in `v` (rounding is; dividing by a positive step is;
//! `a` is, for a given `n`), so each class is an interval of values and the classes follow
//! each other in the order of the values. [`coarse`] replaces a context by one value of
//! its class, the same for the whole class (`n` itself, or one of three values beside it).
//! Then the multiset of the replacements has, class by class, the counts of the contexts,
//! in the same order; its k-th smallest value is in the class of the k-th smallest
//! context, its largest in the class of the largest, and it has as many above a trigger.
//! Every figure the rules print or propose is the one the exact values gave, to the byte.
//!
//! A class holds at least a token's worth of values, and there are at most
//! `1 + 2 / step` classes per token, so the multiset holds about as many values as the
//! contexts span tokens. A value outside `[0, 2^40)` (none a session gives: a context is
//! B plus what joined before, over ρ) and any value whose class none of the candidates is
//! in (none is known) stay exact, which is correct if not smaller.

use crate::suggest::rules::{API_CLEAR_TRIGGER, API_COMPACT_TRIGGER, TRIGGER_STEP_TOKENS};

const _: () = assert!(
    API_CLEAR_TRIGGER % TRIGGER_STEP_TOKENS == 0.0
        && API_COMPACT_TRIGGER % TRIGGER_STEP_TOKENS == 0.0
        && TRIGGER_STEP_TOKENS == TRIGGER_STEP_TOKENS.round()
        && TRIGGER_STEP_TOKENS > 0.0,
    "the API's triggers are multiples of the step, a whole number of tokens"
);

/// Values at or past this are kept exact: there, `n ± 0.25` would not be exact.
const COARSE_BELOW: f64 = (1u64 << 40) as f64;

/// The class of a context: all the rules can tell of it (see the module's comment).
fn class(v: f64) -> (f64, f64, bool) {
    let n = v.round_ties_even();
    (
        n,
        (v / TRIGGER_STEP_TOKENS).round(),
        n % TRIGGER_STEP_TOKENS == 0.0 && v > n,
    )
}

/// The value of `v`'s class that stands for it in the multiset: the first of `n`, the
/// next value up from `n`, `n - 0.25` and `n + 0.25` in its class (which one depends only
/// on the class), else `v` itself.
pub fn coarse(v: f64) -> f64 {
    if !(v.is_sign_positive() && v < COARSE_BELOW) {
        return v;
    }
    let c = class(v);
    let n = c.0;
    [n, n.next_up(), n - 0.25, n + 0.25]
        .into_iter()
        .find(|&x| class(x) == c)
        .unwrap_or(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::percentile::nearest_rank;
    use crate::number::grouped;
    use crate::suggest::evidence::{Tally, Values};
    use crate::suggest::rules::triggers;

    /// A fixed sequence (xorshift), so every run tests the same values.
    struct Sequence(u64);

    impl Sequence {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Values at, and within 1e-9 and one ulp of, the points where a class changes: the
    /// multiples of the step, the half steps, whole tokens and half tokens; and values
    /// anywhere in the range.
    fn contexts(r: &mut Sequence, n: usize, top: f64) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let point = match r.next() % 4 {
                    0 => (r.unit() * top / TRIGGER_STEP_TOKENS).floor() * TRIGGER_STEP_TOKENS,
                    1 => {
                        (r.unit() * top / TRIGGER_STEP_TOKENS).floor() * TRIGGER_STEP_TOKENS
                            + TRIGGER_STEP_TOKENS / 2.0
                    }
                    2 => (r.unit() * top).floor() + 0.5,
                    _ => return r.unit() * top,
                };
                match r.next() % 7 {
                    0 => point,
                    1 => point + 1e-9,
                    2 => point - 1e-9,
                    3 => point.next_up(),
                    4 => point.next_down(),
                    5 => point + 0.5,
                    _ => point - 0.5 + r.unit(),
                }
                .max(0.0)
            })
            .collect()
    }

    /// Every figure the rules take from the contexts, from the exact values (sorted and
    /// indexed) and from the coarse multiset.
    fn figures(sorted: &[f64], coarse: &Values) -> (Vec<String>, Vec<String>) {
        let round = |x: f64| {
            ((x / TRIGGER_STEP_TOKENS).round() * TRIGGER_STEP_TOKENS).max(TRIGGER_STEP_TOKENS)
        };
        let exact_largest = sorted.last().copied().unwrap_or(0.0);
        let coarse_largest = coarse.largest().unwrap_or(0.0);
        let mut exact = vec![sorted.len().to_string(), grouped(exact_largest, 0)];
        let mut kept = vec![coarse.len().to_string(), grouped(coarse_largest, 0)];
        let mut lattice = vec![API_CLEAR_TRIGGER, API_COMPACT_TRIGGER];
        for p in [50.0, 75.0, 90.0, 0.0, 1.0, 33.3, 99.0, 100.0] {
            let x = nearest_rank(sorted, p).unwrap_or(0.0);
            let y = coarse.nearest_rank(p).unwrap_or(0.0);
            exact.push(format!("p{p} {} → {}", grouped(x, 0), round(x)));
            kept.push(format!("p{p} {} → {}", grouped(y, 0), round(y)));
            lattice.extend([
                round(x),
                round(x) + TRIGGER_STEP_TOKENS,
                round(x) - TRIGGER_STEP_TOKENS,
            ]);
        }
        for x in lattice {
            let above = sorted.iter().filter(|&&v| v > x).count();
            exact.push(format!(
                "{x}: {above} above, below largest {}",
                x < exact_largest
            ));
            kept.push(format!(
                "{x}: {} above, below largest {}",
                coarse.count_above(x),
                x < coarse_largest
            ));
        }
        for (extra, floor) in [
            (Some(API_CLEAR_TRIGGER), 0.0),
            (Some(API_COMPACT_TRIGGER), 50e3),
            (None, 0.0),
        ] {
            let list: Values = sorted.iter().copied().collect();
            exact.push(format!("{:?}", triggers(&list, extra, floor)));
            kept.push(format!("{:?}", triggers(coarse, extra, floor)));
        }
        (exact, kept)
    }

    /// The coarse multiset answers every question the rules ask as the exact values do,
    /// on values at and beside every point where an answer could change, and keeps far
    /// fewer values than there are contexts.
    #[test]
    fn coarse_contexts_answer_as_the_exact_ones() {
        let mut r = Sequence(0x9e37_79b9_7f4a_7c15);
        for (n, top) in [
            (1, 10.0),
            (7, 3e3),
            (200, 12e3),
            (5_000, 40e3),
            (20_000, 400e3),
        ] {
            for _ in 0..5 {
                let mut values = contexts(&mut r, n, top);
                let coarse: Values = values.iter().map(|&v| coarse(v)).collect();
                values.sort_by(f64::total_cmp);
                let (exact, kept) = figures(&values, &coarse);
                assert_eq!(kept, exact, "{n} contexts up to {top}");
            }
        }
        // Spread over 10,000 tokens, 20,000 contexts keep at most a value per token and two
        // more per step.
        let values: Vec<f64> = (0..20_000).map(|_| r.unit() * 10e3).collect();
        let coarse: Values = values.iter().map(|&v| coarse(v)).collect();
        assert!(coarse.distinct() <= 10_001 + 5, "{}", coarse.distinct());
        let exact: Values = values.iter().copied().collect();
        assert_eq!(exact.distinct(), 20_000);
    }

    /// Each value stands in its own class, and the whole class has one: the replacement is
    /// in `[n - 0.5, n + 0.5]`, never off by a token's print or a step's side.
    #[test]
    fn the_replacement_is_in_the_class_and_the_same_for_it() {
        let mut r = Sequence(7);
        for v in contexts(&mut r, 50_000, 1e6) {
            let c = coarse(v);
            assert_eq!(class(c), class(v), "{v} → {c}");
            assert_eq!(format!("{c:.0}"), format!("{v:.0}"), "{v}");
            assert_eq!(coarse(c), c, "{v} → {c}: its class's own value");
        }
        // Half tokens go to the even token, as printing rounds them; the half step below a
        // step's middle keeps its side of the trigger rounding.
        assert_eq!(coarse(2.5), 2.0);
        assert_eq!(coarse(3.5), 4.0);
        assert_eq!(coarse(2_499.5), 2_499.75);
        assert_eq!(coarse(2_500.5), 2_500.0);
        assert_eq!(coarse(5_000.0 + 1e-9), 5_000f64.next_up());
        assert_eq!(coarse(5_000.0 - 1e-9), 5_000.0);
    }

    /// Values no session gives stay as they are, so their answers are the exact ones too.
    #[test]
    fn values_out_of_the_range_stay_exact() {
        for v in [
            -0.0,
            -3.7,
            f64::INFINITY,
            f64::NAN,
            1e13 + 0.5,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(coarse(v).to_bits(), v.to_bits(), "{v}");
        }
        let mut t = Tally::default();
        for v in [3.7, -0.0, f64::NAN, 1e13 + 0.5] {
            t.add(coarse(v));
        }
        let values = t.finish();
        assert_eq!(values.distinct(), 4);
        assert_eq!(values.count_above(5_000.0), 1);
    }
}
