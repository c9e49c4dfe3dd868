//! Walking a run call by call, with its clearings and the prompt cache (MODEL.md §1, §3, §4).
//!
//! The walk is generic over the number type: with `f64` it gives the figures at one point
//! of the assumptions; with [`Affine`] it gives their closed form in `B` and `1/ρ`, so a
//! sweep evaluates each point in constant time. One code path serves both, so the closed
//! form cannot drift from the replay.

use crate::clear::{Clearings, NEVER};
use crate::ledger::{Affine, Assumptions};
use crate::run::{Run, Slot};
use crate::scenario::{CacheSpec, Call};
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// A token quantity: a number at one point, or an affine form in `B` and `1/ρ`.
pub trait Quantity: Copy + Add<Output = Self> + Sub<Output = Self> + AddAssign + SubAssign {
    fn zero() -> Self;
    /// The base tokens `B`.
    fn base(at: Assumptions) -> Self;
    /// A count that depends on neither assumption (measured or output tokens).
    fn tokens(x: f64) -> Self;
    /// `bytes / ρ`.
    fn bytes(bytes: f64, at: Assumptions) -> Self;
    /// Whether this is below `min` tokens. Affine forms answer `false`: they are only
    /// used where `B ≥ min`, and a cached prefix is never shorter than `B`.
    fn below(self, min: f64) -> bool;
}

impl Quantity for f64 {
    fn zero() -> f64 {
        0.0
    }
    fn base(at: Assumptions) -> f64 {
        at.base_tokens
    }
    fn tokens(x: f64) -> f64 {
        x
    }
    fn bytes(bytes: f64, at: Assumptions) -> f64 {
        bytes / at.bytes_per_token
    }
    fn below(self, min: f64) -> bool {
        self < min
    }
}

impl Add for Affine {
    type Output = Affine;
    fn add(self, o: Affine) -> Affine {
        Affine {
            calls: self.calls + o.calls,
            tokens: self.tokens + o.tokens,
            bytes: self.bytes + o.bytes,
        }
    }
}

impl Sub for Affine {
    type Output = Affine;
    fn sub(self, o: Affine) -> Affine {
        self.minus(&o)
    }
}

impl AddAssign for Affine {
    fn add_assign(&mut self, o: Affine) {
        *self = *self + o;
    }
}

impl SubAssign for Affine {
    fn sub_assign(&mut self, o: Affine) {
        *self = *self - o;
    }
}

impl Quantity for Affine {
    fn zero() -> Affine {
        Affine::default()
    }
    fn base(_: Assumptions) -> Affine {
        Affine {
            calls: 1.0,
            ..Affine::default()
        }
    }
    fn tokens(x: f64) -> Affine {
        Affine {
            tokens: x,
            ..Affine::default()
        }
    }
    fn bytes(bytes: f64, _: Assumptions) -> Affine {
        Affine {
            bytes,
            ..Affine::default()
        }
    }
    fn below(self, _: f64) -> bool {
        false
    }
}

/// One call's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallFigures<Q> {
    /// Context this call re-reads.
    pub context: Q,
    /// Of it, tokens read from the prompt cache (zero without `[cache]`).
    pub cached: Q,
    /// Of it, tokens written to the cache (zero without `[cache]`).
    pub written: Q,
}

/// Sums over a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSums<Q> {
    /// The reread total `T`.
    pub context: Q,
    pub cached: Q,
    pub written: Q,
}

impl RunSums<f64> {
    /// Cost in input-token equivalents (MODEL.md §4): with a cache,
    /// `read·cached + write·written + retry·read·context`; without, `context·(1 + retry)`.
    pub fn cost(&self, cache: Option<(f64, f64)>, retry_rate: f64) -> f64 {
        match cache {
            Some((read, write)) => {
                read * self.cached + write * self.written + retry_rate * read * self.context
            }
            None => self.context * (1.0 + retry_rate),
        }
    }
}

/// Cost of one call, as [`RunSums::cost`].
pub fn call_cost(f: &CallFigures<f64>, cache: Option<(f64, f64)>, retry_rate: f64) -> f64 {
    RunSums {
        context: f.context,
        cached: f.cached,
        written: f.written,
    }
    .cost(cache, retry_rate)
}

/// Walks `run` under `clearings` at `at`, calling `each(i, slot, figures)` for every call in
/// order with the call and its figures, and returns the sums. With `cache`, splits each context into cached and written.
pub fn walk<Q: Quantity>(
    calls: &[Call],
    run: &Run,
    clearings: &Clearings,
    cache: Option<&CacheSpec>,
    at: Assumptions,
    mut each: impl FnMut(usize, &Slot, &CallFigures<Q>),
) -> RunSums<Q> {
    let mut sums = RunSums {
        context: Q::zero(),
        cached: Q::zero(),
        written: Q::zero(),
    };
    let base = Q::base(at);
    let placeholder = clearings.placeholder_bytes;
    let mut context = base;
    let mut previous_context = base;
    let mut freed_so_far = Q::zero();
    // full[k]: the sum of the full sizes of results before k; needed only with a cache.
    let mut full: Vec<Q> = Vec::new();
    if cache.is_some() {
        full.reserve(run.len() + 1);
        full.push(Q::zero());
    }
    let mut events = clearings.events.iter().peekable();
    for (i, slot) in run.iter().enumerate() {
        let mut first_changed = None;
        let mut freed_before = freed_so_far;
        if let Some(event) = events.next_if(|e| e.before == i) {
            let placeholders = placeholder * event.cleared.len() as f64;
            let freed = Q::tokens(event.cleared_tokens) + Q::bytes(event.cleared_bytes, at)
                - Q::bytes(placeholders, at);
            context -= freed;
            freed_before = freed_so_far;
            freed_so_far += freed;
            first_changed = event.cleared.first().copied();
        }
        let (cached, written) = match cache {
            None => (Q::zero(), Q::zero()),
            Some(c) => {
                let gap = calls[slot.origin as usize].gap_s;
                let cached = if i == 0 || gap > c.ttl_s {
                    Q::zero()
                } else if let Some(k) = first_changed {
                    base + full[k] - freed_before
                } else {
                    previous_context
                };
                let cached = if cached.below(c.min_tokens) {
                    Q::zero()
                } else {
                    cached
                };
                (cached, context - cached)
            }
        };
        let figures = CallFigures {
            context,
            cached,
            written,
        };
        each(i, &slot, &figures);
        sums.context += context;
        sums.cached += cached;
        sums.written += written;
        previous_context = context;
        let size = Q::tokens(slot.tokens + slot.output_tokens) + Q::bytes(slot.bytes, at);
        if cache.is_some() {
            let last = full[full.len() - 1];
            full.push(last + size);
        }
        context += size;
    }
    debug_assert!(
        clearings
            .cleared_before
            .iter()
            .all(|&c| c == NEVER || (c as usize) < run.len())
    );
    sums
}
