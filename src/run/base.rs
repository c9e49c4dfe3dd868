//! Where a run's unchanged calls come from: stored slots, or the scenario's calls read
//! through its terms each time.
//!
//! A study's baseline derives its slots from the calls it already holds instead of storing
//! them: a slot is a few additions away from its call (`Slot::of`), and storing 10 million
//! of them cost 48 bytes a call (480 MB) beside the calls themselves. Every read gives the
//! same slot, bit for bit, as storing it would have.

use super::Slot;
use crate::scenario::{Calls, Terms};
use std::sync::Arc;

/// The baseline calls of a run, by position.
#[derive(Debug, Clone)]
pub(super) enum Base {
    /// Slots stored (runs built from slots, and runs of borrowed calls).
    Slots(Arc<[Slot]>),
    /// Slots derived on each read from shared calls and the scenario's terms.
    Calls { calls: Arc<Calls>, terms: Terms },
}

impl Base {
    /// Number of baseline calls.
    pub(super) fn len(&self) -> usize {
        match self {
            Base::Slots(s) => s.len(),
            Base::Calls { calls, .. } => calls.len(),
        }
    }

    /// Baseline call `i`; `i` must be below [`Base::len`] (positions come from pieces,
    /// which only hold baseline ranges).
    #[inline]
    pub(super) fn slot(&self, i: usize) -> Slot {
        match self {
            Base::Slots(s) => s[i],
            Base::Calls { calls, terms } => Slot::sized(i as u32, calls.sizes(i, terms)),
        }
    }

    /// Baseline call `i`, None past the end.
    pub(super) fn get(&self, i: usize) -> Option<Slot> {
        (i < self.len()).then(|| self.slot(i))
    }

    /// Appends baseline calls `start..end` to `out`, in order.
    #[inline]
    pub(super) fn read_into(&self, start: usize, end: usize, out: &mut Vec<Slot>) {
        match self {
            Base::Slots(s) => out.extend_from_slice(&s[start..end]),
            Base::Calls { calls, terms } => calls.fold_sizes(start, end, terms, (), |(), i, s| {
                out.push(Slot::sized(i as u32, s))
            }),
        }
    }

    /// Baseline calls `start..end`, in order.
    #[inline]
    pub(super) fn range(&self, start: usize, end: usize) -> Stretch<'_> {
        match self {
            Base::Slots(s) => Stretch::Slots(s[start..end].iter()),
            Base::Calls { calls, terms } => Stretch::Calls {
                calls,
                next: start as u32,
                end: end as u32,
                terms,
            },
        }
    }
}

impl PartialEq for Base {
    /// Equal when every slot is (cheaply, when both share one store).
    fn eq(&self, other: &Base) -> bool {
        match (self, other) {
            (Base::Slots(a), Base::Slots(b)) if Arc::ptr_eq(a, b) => true,
            (Base::Calls { calls: a, terms: s }, Base::Calls { calls: b, terms: t })
                if Arc::ptr_eq(a, b) && s == t =>
            {
                true
            }
            _ => {
                self.len() == other.len() && (0..self.len()).all(|i| self.slot(i) == other.slot(i))
            }
        }
    }
}

/// Iterator over a stretch of baseline calls, without boxing.
pub(super) enum Stretch<'a> {
    Slots(std::slice::Iter<'a, Slot>),
    Calls {
        calls: &'a Calls,
        /// Position of the next call in the baseline, and past the last.
        next: u32,
        end: u32,
        terms: &'a Terms,
    },
}

impl Iterator for Stretch<'_> {
    type Item = Slot;

    #[inline]
    fn next(&mut self) -> Option<Slot> {
        match self {
            Stretch::Slots(it) => it.next().copied(),
            Stretch::Calls {
                calls,
                next,
                end,
                terms,
            } => {
                if next >= end {
                    return None;
                }
                let slot = Slot::sized(*next, calls.sizes(*next as usize, terms));
                *next += 1;
                Some(slot)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match self {
            Stretch::Slots(it) => it.len(),
            Stretch::Calls { next, end, .. } => end.saturating_sub(*next) as usize,
        };
        (n, Some(n))
    }

    /// One loop over the stretch (what `for_each` and `sum` use), without `next`'s match
    /// per call.
    #[inline]
    fn fold<B, F: FnMut(B, Slot) -> B>(self, init: B, mut f: F) -> B {
        match self {
            Stretch::Slots(it) => it.copied().fold(init, f),
            Stretch::Calls {
                calls,
                next,
                end,
                terms,
            } => calls.fold_sizes(next as usize, end as usize, terms, init, |acc, i, s| {
                f(acc, Slot::sized(i as u32, s))
            }),
        }
    }
}
