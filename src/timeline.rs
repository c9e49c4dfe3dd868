//! Walking a run call by call, with its clearings and the prompt cache (docs/model.md §1, §3, §4).
//!
//! The walk is generic over the number type: with `f64` it gives the figures at one point
//! of the assumptions; with [`Affine`] it gives their closed form in `B` and `1/ρ`, so a
//! sweep evaluates each point in constant time. One code path serves both, so the closed
//! form cannot drift from the replay.

use crate::clear::{Clearings, Event, NEVER};
use crate::ledger::{Affine, Assumptions};
use crate::run::{Run, Slot};
use crate::scenario::CacheSpec;
use crate::scenario::Calls;
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
    /// `k` times this.
    fn scale(self, k: f64) -> Self;
    /// This, or 0 where it is below zero (a base edit removes at most the whole base).
    /// Affine forms answer themselves: they are only used where the base stays ≥ 0 (a run
    /// whose base an edit takes below zero somewhere is replayed there).
    fn at_least_zero(self) -> Self;
    /// This figure of a walk at ρ ÷ `factor` (a model edit's tokens factor, docs/model.md
    /// §9) as a figure at ρ: a number is already evaluated and stays; an affine form's
    /// coefficient of 1/ρ is `factor` times its coefficient of 1/(ρ ÷ factor).
    fn at_tokens_factor(self, factor: f64) -> Self;
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
    fn scale(self, k: f64) -> f64 {
        self * k
    }
    fn at_least_zero(self) -> f64 {
        self.max(0.0)
    }
    fn at_tokens_factor(self, _: f64) -> f64 {
        self
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
    fn scale(self, k: f64) -> Affine {
        Affine {
            calls: self.calls * k,
            tokens: self.tokens * k,
            bytes: self.bytes * k,
        }
    }
    fn at_least_zero(self) -> Affine {
        self
    }
    fn at_tokens_factor(self, factor: f64) -> Affine {
        Affine {
            bytes: self.bytes * factor,
            ..self
        }
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
    /// Of it, tokens billed at the plain input price because the whole request is shorter
    /// than the minimum cacheable length (zero without `[cache]`; docs/model.md §4).
    pub uncached: Q,
}

/// Sums over a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSums<Q> {
    /// The reread total `T`.
    pub context: Q,
    pub cached: Q,
    pub written: Q,
    pub uncached: Q,
}

impl<Q: Quantity> RunSums<Q> {
    fn zero() -> Self {
        RunSums {
            context: Q::zero(),
            cached: Q::zero(),
            written: Q::zero(),
            uncached: Q::zero(),
        }
    }

    fn add(&mut self, f: &CallFigures<Q>) {
        self.context += f.context;
        self.cached += f.cached;
        self.written += f.written;
        self.uncached += f.uncached;
    }

    /// The sums of a walk at ρ ÷ `factor`, as sums at ρ (see [`Quantity::at_tokens_factor`]).
    pub fn at_tokens_factor(self, factor: f64) -> Self {
        RunSums {
            context: self.context.at_tokens_factor(factor),
            cached: self.cached.at_tokens_factor(factor),
            written: self.written.at_tokens_factor(factor),
            uncached: self.uncached.at_tokens_factor(factor),
        }
    }
}

impl RunSums<f64> {
    /// Cost in input-token equivalents (docs/model.md §4): with a cache,
    /// `read·cached + write·written + 1·uncached`, plus retries re-sending each request
    /// (`retry·read` per cacheable token, `retry·1` per uncacheable one); without a cache,
    /// `context·(1 + retry)`.
    pub fn cost(&self, cache: Option<(f64, f64)>, retry_rate: f64) -> f64 {
        match cache {
            Some((read, write)) => {
                let cacheable = self.context - self.uncached;
                read * self.cached
                    + write * self.written
                    + self.uncached
                    + retry_rate * (read * cacheable + self.uncached)
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
        uncached: f.uncached,
    }
    .cost(cache, retry_rate)
}

/// The ledger's state between calls: feed it a run's calls in order with [`Walker::step`].
///
/// This is the one implementation of docs/model.md §1, §3 (placeholders) and §4 (the cache): the
/// batch [`walk`], the sweep's closed forms, every output and the streaming `ledger`
/// command all go through it. Without a cache it keeps constant memory, so a trace of any
/// length can be streamed through it.
#[derive(Debug, Clone)]
pub struct Walker<'a, Q> {
    cache: Option<&'a CacheSpec>,
    at: Assumptions,
    placeholder_bytes: f64,
    base: Q,
    context: Q,
    previous_context: Q,
    freed_so_far: Q,
    /// `full[k]`: the sum of the full sizes of results before k; kept only with a cache.
    full: Vec<Q>,
    index: usize,
    sums: RunSums<Q>,
    /// The figures of the compaction request the last step ran, until taken.
    compaction_request: Option<CallFigures<Q>>,
}

impl<'a, Q: Quantity> Walker<'a, Q> {
    /// A walk at `at`, with the prompt cache `cache` if any; cleared results are replaced
    /// by `placeholder_bytes` each.
    pub fn new(cache: Option<&'a CacheSpec>, at: Assumptions, placeholder_bytes: f64) -> Self {
        Self::with_base(cache, at, placeholder_bytes, Q::base(at))
    }

    /// As [`Walker::new`], for a run whose base tokens an edit changed: `base` is what
    /// every call reads before any result (see `BaseChange::quantity`).
    pub fn with_base(
        cache: Option<&'a CacheSpec>,
        at: Assumptions,
        placeholder_bytes: f64,
        base: Q,
    ) -> Self {
        Walker {
            cache,
            at,
            placeholder_bytes,
            base,
            context: base,
            previous_context: base,
            freed_so_far: Q::zero(),
            full: if cache.is_some() {
                vec![Q::zero()]
            } else {
                Vec::new()
            },
            index: 0,
            sums: RunSums::zero(),
            compaction_request: None,
        }
    }

    /// The next call: its result `slot`, the seconds since the previous call, and the
    /// clearing that happens just before it, if any. Returns the call's figures.
    pub fn step(&mut self, slot: &Slot, gap_s: f64, event: Option<&Event>) -> CallFigures<Q> {
        let figures = self.read(gap_s, event);
        let size = Q::tokens(slot.joined_tokens()) + Q::bytes(slot.joined_bytes(), self.at);
        if let Some(&last) = self.full.last() {
            self.full.push(last + size);
        }
        self.context += size;
        figures
    }

    /// [`Walker::step`] for a walk without a cache, clearings or added requests: the same
    /// additions in the same order (so the same figures, bit for bit), without the branches
    /// only those need. Each call reads what the context holds; then its result joins.
    #[inline]
    fn step_plain(&mut self, slot: &Slot) -> CallFigures<Q> {
        debug_assert!(self.cache.is_none());
        let zero = Q::zero();
        let context = self.context;
        let figures = CallFigures {
            context,
            cached: zero,
            written: zero,
            uncached: zero,
        };
        // The sums of cached, written and uncached stay zero: adding zero to zero is exact.
        self.sums.context += context;
        self.previous_context = context;
        self.index += 1;
        self.context += Q::tokens(slot.joined_tokens()) + Q::bytes(slot.joined_bytes(), self.at);
        figures
    }

    /// A request added between two calls (a deferred part's tool search, docs/model.md
    /// §9): it reads the context like a call, after `gap_s` and the clearing `event` just
    /// before it, if any; then `joined` tokens join the context ahead of the next call's
    /// result (so a cache prefix cut at that result keeps them). Returns its figures.
    pub fn added_request(
        &mut self,
        gap_s: f64,
        event: Option<&Event>,
        joined: Q,
    ) -> CallFigures<Q> {
        let figures = self.read(gap_s, event);
        if let Some(last) = self.full.last_mut() {
            *last += joined;
        }
        self.context += joined;
        figures
    }

    /// A request reading the context: its figures, added to the sums.
    fn read(&mut self, gap_s: f64, event: Option<&Event>) -> CallFigures<Q> {
        let at = self.at;
        let mut first_changed = None;
        let mut freed_before = self.freed_so_far;
        let mut gap_s = gap_s;
        let mut base_only = false;
        if let Some(event) = event.filter(|e| e.compaction.is_some()) {
            // The compaction request: it reads the context as it stands, through the
            // cache like any request, and writes the summary (priced as output).
            let request = self.context;
            let figures = self.split(request, gap_s, None, self.freed_so_far, false);
            self.sums.add(&figures);
            self.compaction_request = Some(figures);
            self.previous_context = request;
            // Everything but the base gives way to the summary and the calls kept: the
            // call right after reads the base from the cache and writes the rest.
            self.context -= Q::tokens(event.freed_tokens);
            gap_s = 0.0;
            base_only = true;
        } else if let Some(event) = event {
            let placeholders = self.placeholder_bytes * event.cleared.len() as f64;
            let freed = Q::tokens(event.cleared_tokens) + Q::bytes(event.cleared_bytes, at)
                - Q::bytes(placeholders, at);
            self.context -= freed;
            freed_before = self.freed_so_far;
            self.freed_so_far += freed;
            first_changed = event.cleared.first().copied();
        }
        let context = self.context;
        let figures = self.split(context, gap_s, first_changed, freed_before, base_only);
        self.sums.add(&figures);
        self.previous_context = context;
        self.index += 1;
        figures
    }

    /// The figures of the compaction request run just before the last call or added
    /// request (it reads the whole context to write the summary), once: None if that step
    /// ran none, or it was taken already. Its figures are in [`Walker::sums`] either way.
    pub fn take_compaction_request(&mut self) -> Option<CallFigures<Q>> {
        self.compaction_request.take()
    }

    /// The sums over the calls so far.
    pub fn sums(&self) -> RunSums<Q> {
        self.sums
    }

    /// A request of `context` tokens split into cached, written and uncached, `gap_s`
    /// after the previous request: its cached prefix is the previous request's, cut at
    /// the first block a clearing changed, or only the base after a compaction.
    fn split(
        &self,
        context: Q,
        gap_s: f64,
        first_changed: Option<usize>,
        freed_before: Q,
        base_only: bool,
    ) -> CallFigures<Q> {
        let zero = Q::zero();
        let (cached, written, uncached) = match self.cache {
            None => (zero, zero, zero),
            // Too short to be cached at all: billed at the plain input price, no write fee.
            Some(c) if context.below(c.min_tokens) => (zero, zero, context),
            Some(c) => {
                let cached = if self.index == 0 || gap_s > c.ttl_s {
                    // What other sessions keep in the cache: part of the base, read at the
                    // first request and after every pause past the TTL.
                    self.base.scale(c.warm_share)
                } else if base_only {
                    self.base
                } else if let Some(k) = first_changed {
                    self.base + self.full[k] - freed_before
                } else {
                    self.previous_context
                };
                let cached = if cached.below(c.min_tokens) {
                    zero
                } else {
                    cached
                };
                (cached, context - cached, zero)
            }
        };
        CallFigures {
            context,
            cached,
            written,
            uncached,
        }
    }
}

/// Walks `run` under `clearings` at `at`, calling `each(i, slot, figures)` for every call in
/// order with the call and its figures, and returns the sums. With `cache`, splits each
/// context into cached, written and uncached tokens.
pub fn walk<Q: Quantity>(
    calls: &Calls,
    run: &Run,
    clearings: &Clearings,
    cache: Option<&CacheSpec>,
    at: Assumptions,
    each: impl FnMut(usize, &Slot, &CallFigures<Q>),
) -> RunSums<Q> {
    walk_from(calls, run, clearings, cache, at, Q::base(at), each)
}

/// As [`walk`], from a base of `base` tokens (a run whose base an edit changed).
pub fn walk_from<Q: Quantity>(
    calls: &Calls,
    run: &Run,
    clearings: &Clearings,
    cache: Option<&CacheSpec>,
    at: Assumptions,
    base: Q,
    each: impl FnMut(usize, &Slot, &CallFigures<Q>),
) -> RunSums<Q> {
    walk_with(calls, run, clearings, cache, at, base, &[], each)
}

/// A request an edit adds between the calls of a run (a deferred part's tool search,
/// docs/model.md §9): it runs just before the call at position `before`, after any clearing
/// there, and `joins_tokens` join the context after it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AddedRequest {
    pub before: usize,
    pub joins_tokens: f64,
    /// The request as per-call outputs list it: the origin of the call it precedes, a
    /// label of its own, and what joins after it.
    pub slot: Slot,
}

/// As [`walk_from`], with `requests` (by position) added to the run. An added request
/// takes the pause before the call it precedes, which then follows it at once; `each`
/// sees it with that call's position, just before the call.
#[allow(clippy::too_many_arguments)]
pub fn walk_with<Q: Quantity>(
    calls: &Calls,
    run: &Run,
    clearings: &Clearings,
    cache: Option<&CacheSpec>,
    at: Assumptions,
    base: Q,
    requests: &[AddedRequest],
    mut each: impl FnMut(usize, &Slot, &CallFigures<Q>),
) -> RunSums<Q> {
    let each = |i, request: Request<'_>, figures: &CallFigures<Q>| {
        if let Request::Slot(slot) = request {
            each(i, slot, figures);
        }
    };
    walk_requests(calls, run, clearings, cache, at, base, requests, each)
}

/// A request a walk hands its callback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Request<'a> {
    /// A call of the run, or a request an edit adds ([`AddedRequest`]): its slot.
    Slot(&'a Slot),
    /// A compaction's own request, just before the call or added request that follows
    /// it: it reads the whole context and writes the summary (docs/model.md §9).
    Compaction,
}

/// As [`walk_with`], handing `each` every request the run bills: the compaction requests
/// too (with the position of the call they precede, just before it), so that what `each`
/// sees adds up to the sums returned.
#[allow(clippy::too_many_arguments)]
pub fn walk_requests<Q: Quantity>(
    calls: &Calls,
    run: &Run,
    clearings: &Clearings,
    cache: Option<&CacheSpec>,
    at: Assumptions,
    base: Q,
    requests: &[AddedRequest],
    mut each: impl FnMut(usize, Request<'_>, &CallFigures<Q>),
) -> RunSums<Q> {
    let mut walker = Walker::with_base(cache, at, clearings.placeholder_bytes, base);
    if cache.is_none() && clearings.events.is_empty() && requests.is_empty() {
        // Nothing but calls reading the context: the walk needs no gaps, events or cache.
        run.iter().enumerate().for_each(|(i, slot)| {
            let figures = walker.step_plain(&slot);
            each(i, Request::Slot(&slot), &figures);
        });
        return walker.sums();
    }
    let mut events = clearings.events.iter().peekable();
    let mut added = requests.iter().peekable();
    // Internal iteration (`for_each`), so the run's stretches of baseline calls are each
    // walked by their own loop rather than one `next` through the pieces per call.
    run.iter().enumerate().for_each(|(i, slot)| {
        let mut event = events.next_if(|e| e.before == i);
        let mut gap = calls.gap_s(slot.origin as usize);
        while let Some(r) = added.next_if(|r| r.before == i) {
            let figures = walker.added_request(gap, event.take(), Q::tokens(r.joins_tokens));
            if let Some(compaction) = walker.take_compaction_request() {
                each(i, Request::Compaction, &compaction);
            }
            each(i, Request::Slot(&r.slot), &figures);
            gap = 0.0;
        }
        let figures = walker.step(&slot, gap, event);
        if let Some(compaction) = walker.take_compaction_request() {
            each(i, Request::Compaction, &compaction);
        }
        each(i, Request::Slot(&slot), &figures);
    });
    debug_assert!(
        clearings
            .cleared_before
            .iter()
            .all(|&c| c == NEVER || (c as usize) < run.len())
    );
    walker.sums()
}
