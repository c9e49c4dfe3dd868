//! Exact multisets of numbers, for the evidence's per-call figures (output sizes, the
//! contexts the calls read, the sessions' B): each distinct value once, with how many
//! times it was seen, so the memory grows with the distinct values rather than the calls,
//! and two gatherings merge by adding counts.
//!
//! Values are kept by the bits of the `f64`, in the order of `f64::total_cmp`: a
//! percentile is the very value a sort with `total_cmp` and an index gave (the same bits,
//! `-0.0` and `0.0` apart), a count above a threshold is what a filter with `>` gave.

use crate::history::percentile;
use serde::de::Error as _;
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Added values a [`Tally`] holds unsorted before merging them into its runs, at least;
/// more once the runs are long (a quarter of them), so a merge's cost is spread over as
/// many additions as it walks runs.
const PENDING_MIN: usize = 4_096;

/// The key of `x` whose unsigned order is `f64::total_cmp`'s: a negative value's bits
/// flipped (larger magnitudes first), a positive value's sign bit set (after every
/// negative).
fn key(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The value of a [`key`].
fn value(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 {
        key & !(1 << 63)
    } else {
        !key
    })
}

/// A finished multiset: the values ascending (by `total_cmp`), each with its count.
///
/// Serialized as a list of `[bits, count]`, `bits` the value's `f64::to_bits`, ascending
/// by value, counts at least 1.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Values {
    /// `(key, count)`: keys strictly ascending, counts at least 1.
    runs: Vec<(u64, u64)>,
    /// The sum of the counts.
    len: u64,
}

impl Values {
    /// How many values (each repeat counted).
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many distinct values (by bits): what the memory grows with, 16 bytes each.
    pub fn distinct(&self) -> usize {
        self.runs.len()
    }

    /// The largest value (None when empty).
    pub fn largest(&self) -> Option<f64> {
        self.runs.last().map(|&(k, _)| value(k))
    }

    /// The nearest-rank percentile `p` (0–100), as `percentile::nearest_rank` gives it on
    /// the values sorted ascending (None when empty).
    pub fn nearest_rank(&self, p: f64) -> Option<f64> {
        let rank = percentile::rank(self.len(), p)? as u64;
        let mut below = 0;
        for &(k, count) in &self.runs {
            below += count;
            if below >= rank {
                return Some(value(k));
            }
        }
        None
    }

    /// How many values are more than `x` (as `>` compares them: a NaN is never more).
    pub fn count_above(&self, x: f64) -> usize {
        // Past `x` in the total order is more than `x` except for NaN and for 0.0 against
        // -0.0, which the filter settles; before it, nothing is more.
        let from = self.runs.partition_point(|&(k, _)| k <= key(x));
        let above: u64 = self.runs[from..]
            .iter()
            .filter(|&&(k, _)| value(k) > x)
            .map(|&(_, count)| count)
            .sum();
        above as usize
    }

    /// The values ascending, each with its count.
    pub fn iter(&self) -> impl Iterator<Item = (f64, u64)> + '_ {
        self.runs.iter().map(|&(k, count)| (value(k), count))
    }

    /// Adds the sorted `(key, count)` runs `other` (keys strictly ascending), in place:
    /// the runs grow by the keys new to them and are merged from the back, so no second
    /// copy of them is ever made.
    fn merge_runs(&mut self, other: &[(u64, u64)]) {
        let old = self.runs.len();
        let (mut i, mut new) = (0, 0);
        for &(k, _) in other {
            while i < old && self.runs[i].0 < k {
                i += 1;
            }
            new += usize::from(i == old || self.runs[i].0 != k);
        }
        self.runs.reserve_exact(new);
        self.runs.resize(old + new, (0, 0));
        let (mut i, mut w) = (old, old + new);
        for &(k, count) in other.iter().rev() {
            while i > 0 && self.runs[i - 1].0 > k {
                self.runs[w - 1] = self.runs[i - 1];
                (i, w) = (i - 1, w - 1);
            }
            if i > 0 && self.runs[i - 1].0 == k {
                self.runs[w - 1] = (k, self.runs[i - 1].1 + count);
                i -= 1;
            } else {
                self.runs[w - 1] = (k, count);
            }
            w -= 1;
            self.len += count;
        }
    }
}

impl FromIterator<f64> for Values {
    fn from_iter<I: IntoIterator<Item = f64>>(values: I) -> Values {
        let mut t = Tally::default();
        for x in values {
            t.add(x);
        }
        t.finish()
    }
}

impl Serialize for Values {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.runs.len()))?;
        for &(k, count) in &self.runs {
            seq.serialize_element(&(value(k).to_bits(), count))?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Values {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Values, D::Error> {
        let pairs = Vec::<(u64, u64)>::deserialize(d)?;
        let mut values = Values {
            runs: Vec::with_capacity(pairs.len()),
            len: 0,
        };
        for (bits, count) in pairs {
            let k = key(f64::from_bits(bits));
            if values.runs.last().is_some_and(|&(last, _)| last >= k) {
                return Err(D::Error::custom(format!(
                    "values out of order: {} after {} (each value once, ascending)",
                    f64::from_bits(bits),
                    values.largest().unwrap_or_default()
                )));
            }
            if count == 0 {
                return Err(D::Error::custom(format!(
                    "value {} with a count of 0 (counts are at least 1)",
                    f64::from_bits(bits)
                )));
            }
            values.len = values
                .len
                .checked_add(count)
                .ok_or_else(|| D::Error::custom("counts add up past 2^64"))?;
            values.runs.push((k, count));
        }
        Ok(values)
    }
}

/// A multiset being gathered: finished runs, and the values added since, unsorted, merged
/// into the runs a batch at a time (a sorted insert per value would move half the runs).
#[derive(Debug, Clone, Default)]
pub struct Tally {
    values: Values,
    pending: Vec<u64>,
}

impl Tally {
    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        self.pending.push(key(x));
        if self.pending.len() >= PENDING_MIN.max(self.values.runs.len() / 4) {
            self.flush();
        }
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: Tally) {
        let other = other.finish();
        self.flush();
        self.values.merge_runs(&other.runs);
    }

    /// The multiset.
    pub fn finish(mut self) -> Values {
        self.flush();
        self.values.runs.shrink_to_fit();
        self.values
    }

    /// Merges the pending values into the runs.
    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let runs = sorted_runs(&mut self.pending);
        self.pending.clear();
        self.values.merge_runs(&runs);
    }
}

/// Sorts `keys` and counts each distinct one: `(key, count)`, keys strictly ascending.
fn sorted_runs(keys: &mut [u64]) -> Vec<(u64, u64)> {
    keys.sort_unstable();
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &k in keys.iter() {
        match runs.last_mut() {
            Some((last, count)) if *last == k => *count += 1,
            _ => runs.push((k, 1)),
        }
    }
    runs
}

impl PartialEq for Tally {
    fn eq(&self, other: &Tally) -> bool {
        self.clone().finish() == other.clone().finish()
    }
}

/// As the [`Values`] it would finish as: the pending values sorted apart and merged with
/// the runs as they are written (no copy of the runs).
impl Serialize for Tally {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let pending = sorted_runs(&mut self.pending.clone());
        let (runs, mut i, mut j) = (&self.values.runs, 0, 0);
        let merged = std::iter::from_fn(|| {
            let next = match (runs.get(i), pending.get(j)) {
                (Some(&(a, m)), Some(&(b, n))) if a == b => (a, m + n),
                (Some(&a), Some(&b)) => a.min(b),
                (Some(&a), None) | (None, Some(&a)) => a,
                (None, None) => return None,
            };
            i += usize::from(runs.get(i).is_some_and(|r| r.0 == next.0));
            j += usize::from(pending.get(j).is_some_and(|r| r.0 == next.0));
            Some(next)
        });
        let mut seq = s.serialize_seq(None)?;
        for (k, count) in merged {
            seq.serialize_element(&(value(k).to_bits(), count))?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Tally {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Tally, D::Error> {
        Ok(Tally {
            values: Values::deserialize(d)?,
            pending: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::percentile::nearest_rank;

    /// A fixed linear congruential sequence, so every run tests the same values.
    fn sequence(n: usize, distinct: u64) -> Vec<f64> {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((state >> 33) % distinct) as f64 * 0.37
            })
            .collect()
    }

    /// Every figure a multiset gives is the sorted list's, to the bit, over more values
    /// than one batch holds, with many repeats and with few.
    #[test]
    fn figures_are_the_sorted_lists() {
        for (n, distinct) in [(0, 1), (1, 1), (10, 3), (20_000, 50), (30_000, 1 << 40)] {
            let mut sorted = sequence(n, distinct);
            let values: Values = sorted.iter().copied().collect();
            sorted.sort_by(f64::total_cmp);
            assert_eq!(values.len(), n);
            assert_eq!(values.largest(), sorted.last().copied());
            for p in [0.0, 1.0, 50.0, 75.0, 90.0, 99.9, 100.0] {
                assert_eq!(values.nearest_rank(p), nearest_rank(&sorted, p), "p{p}");
            }
            for x in [-1.0, 0.0, 0.37, 5.0, 18.5, 1e12, f64::INFINITY] {
                let above = sorted.iter().filter(|&&v| v > x).count();
                assert_eq!(values.count_above(x), above, "above {x}");
            }
            let listed: Vec<f64> = values
                .iter()
                .flat_map(|(v, count)| std::iter::repeat_n(v, count as usize))
                .collect();
            assert_eq!(listed, sorted);
        }
    }

    /// Signed zeros, negatives, infinities and NaN sort as `total_cmp` sorts them; a
    /// count above compares as `>` does.
    #[test]
    fn odd_values_keep_their_bits_and_order() {
        let odd = [
            3.0,
            -0.0,
            0.0,
            f64::NAN,
            -2.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            -f64::NAN,
        ];
        let values: Values = odd.iter().copied().collect();
        let mut sorted = odd.to_vec();
        sorted.sort_by(f64::total_cmp);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let listed: Vec<f64> = values
            .iter()
            .flat_map(|(v, count)| std::iter::repeat_n(v, count as usize))
            .collect();
        assert_eq!(bits(&listed), bits(&sorted));
        for x in [-0.0, 0.0, -3.0, f64::NAN, f64::NEG_INFINITY] {
            let above = odd.iter().filter(|&&v| v > x).count();
            assert_eq!(values.count_above(x), above, "above {x}");
        }
    }

    /// Merging tallies in any split is tallying them all; a tally read back from its JSON
    /// is the same tally.
    #[test]
    fn merged_tallies_and_read_back_tallies_are_one_tally() {
        let all = sequence(25_000, 700);
        let whole: Values = all.iter().copied().collect();
        for parts in [2, 3, 7] {
            let mut merged = Tally::default();
            for chunk in all.chunks(all.len() / parts + 1).rev() {
                let mut t = Tally::default();
                chunk.iter().for_each(|&x| t.add(x));
                let json = serde_json::to_string(&t).unwrap();
                let back: Tally = serde_json::from_str(&json).unwrap();
                assert_eq!(back, t);
                merged.merge(back);
            }
            assert_eq!(merged.finish(), whole, "{parts} parts");
        }
        assert_eq!(whole.distinct(), 700);
    }

    #[test]
    fn bad_lists_are_refused_with_why() {
        let one = 1.0f64.to_bits();
        let two = 2.0f64.to_bits();
        let read = |text: String| {
            serde_json::from_str::<Values>(&text)
                .unwrap_err()
                .to_string()
        };
        assert!(read(format!("[[{two},1],[{one},1]]")).contains("values out of order: 1 after 2"));
        assert!(read(format!("[[{one},1],[{one},1]]")).contains("values out of order"));
        assert!(read(format!("[[{one},0]]")).contains("value 1 with a count of 0"));
    }
}
