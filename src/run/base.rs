//! Where a run's unchanged calls come from: stored slots, or the scenario's calls read
//! through its terms each time.
//!
//! A study's baseline derives its slots from the calls it already holds instead of storing
//! them: a slot is a few additions away from its call (`Calls::sizes`), and storing 10 million
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
            Base::Calls { .. } => self.fold(start, end, (), |(), s| out.push(s)),
        }
    }

    /// Folds `f` over baseline calls `start..end`, in order: one loop over the stretch
    /// (over the calls' columns, [`Calls::fold_sizes`]), not a match per call.
    #[inline]
    pub(super) fn fold<B>(
        &self,
        start: usize,
        end: usize,
        init: B,
        mut f: impl FnMut(B, Slot) -> B,
    ) -> B {
        match self {
            Base::Slots(s) => s[start..end].iter().fold(init, |acc, &s| f(acc, s)),
            Base::Calls { calls, terms } => {
                calls.fold_sizes(start, end, terms, init, |acc, i, s| {
                    f(acc, Slot::sized(i as u32, s))
                })
            }
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
