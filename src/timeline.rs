//! Walking a run call by call, with its clearings and the prompt cache (docs/model.md §1, §3, §4).
//!
//! The walk is generic over the number type: with `f64` it gives the figures at one point
//! of the assumptions; with [`Affine`] it gives their closed form in `B` and `1/ρ`, so a
//! sweep evaluates each point in constant time. One code path serves both, so the closed
//! form cannot drift from the replay.

use crate::clear::{Clearings, Event, NEVER};
use crate::ledger::{Affine, Assumptions};
use crate::pricing::{ModelPrice, Pricing};
use crate::run::{Run, Slot};
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
    /// Tokens the model wrote at this request (a compaction's summary for its request).
    pub output_tokens: f64,
    /// The model it is priced at: an index into its run's [`Pricing::models`].
    pub model: u8,
}

/// The part of a run's sums at models whose prices are fixed (another model than the
/// scenario's own, or terms an edit changed): counted in the run's sums too, and priced
/// apart, since a swept cache read price is the scenario's own model's only.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fixed<Q> {
    pub context: Q,
    pub cached: Q,
    pub written: Q,
    pub uncached: Q,
    /// Their input cost, in the scenario's input-token equivalents, without retries.
    pub cost: Q,
    /// What one retry of each re-sends, in the same units (× the retry rate).
    pub retry: Q,
}

impl<Q: Quantity> Fixed<Q> {
    fn zero() -> Self {
        let z = Q::zero();
        Fixed {
            context: z,
            cached: z,
            written: z,
            uncached: z,
            cost: z,
            retry: z,
        }
    }

    fn add(&mut self, f: &CallFigures<Q>, m: &ModelPrice) {
        self.context += f.context;
        self.cached += f.cached;
        self.written += f.written;
        self.uncached += f.uncached;
        match m.cache_prices(None) {
            Some((read, write)) => {
                self.cost +=
                    (f.cached.scale(read) + f.written.scale(write) + f.uncached).scale(m.scale);
                self.retry += ((f.cached + f.written).scale(read) + f.uncached).scale(m.scale);
            }
            None => {
                self.cost += f.context.scale(m.scale);
                self.retry += f.context.scale(m.scale);
            }
        }
    }

    fn map(self, g: impl Fn(Q) -> Q) -> Self {
        Fixed {
            context: g(self.context),
            cached: g(self.cached),
            written: g(self.written),
            uncached: g(self.uncached),
            cost: g(self.cost),
            retry: g(self.retry),
        }
    }
}

/// Sums over a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSums<Q> {
    /// The reread total `T`.
    pub context: Q,
    pub cached: Q,
    pub written: Q,
    pub uncached: Q,
    /// The cost of what the model wrote (every call's output, every compaction's
    /// summary), each at its model's output price, in the scenario's input-token
    /// equivalents (docs/model.md §4). Depends on neither assumption but through the
    /// compactions a run makes.
    pub output: Q,
    /// Output tokens whose model's output price is unknown: not priced, and said.
    pub unpriced_output_tokens: f64,
    /// Of the above, the requests at fixed prices (another model's, or an edit's own).
    pub fixed: Fixed<Q>,
}

impl<Q: Quantity> RunSums<Q> {
    /// Nothing yet.
    pub fn zero() -> Self {
        RunSums {
            context: Q::zero(),
            cached: Q::zero(),
            written: Q::zero(),
            uncached: Q::zero(),
            output: Q::zero(),
            unpriced_output_tokens: 0.0,
            fixed: Fixed::zero(),
        }
    }

    /// Adds a request's figures, priced at `m`.
    fn add(&mut self, f: &CallFigures<Q>, m: &ModelPrice) {
        self.context += f.context;
        self.cached += f.cached;
        self.written += f.written;
        self.uncached += f.uncached;
        self.add_output(f.output_tokens, m);
        if !m.read_swept {
            self.fixed.add(f, m);
        }
    }

    /// Adds `tokens` of output at `m`'s output price.
    #[inline]
    pub fn add_output(&mut self, tokens: f64, m: &ModelPrice) {
        if tokens == 0.0 {
            return;
        }
        match m.output {
            Some(_) => self.output += Q::tokens(m.output_cost(tokens)),
            None => self.unpriced_output_tokens += tokens,
        }
    }

    /// The sums of a walk at ρ ÷ `factor`, as sums at ρ (see [`Quantity::at_tokens_factor`]).
    pub fn at_tokens_factor(self, factor: f64) -> Self {
        let g = |q: Q| q.at_tokens_factor(factor);
        RunSums {
            context: g(self.context),
            cached: g(self.cached),
            written: g(self.written),
            uncached: g(self.uncached),
            output: g(self.output),
            unpriced_output_tokens: self.unpriced_output_tokens,
            fixed: self.fixed.map(g),
        }
    }
}

impl RunSums<Affine> {
    /// The sums at `at`.
    pub fn at(&self, at: Assumptions) -> RunSums<f64> {
        let g = |q: Affine| q.at(at);
        RunSums {
            context: g(self.context),
            cached: g(self.cached),
            written: g(self.written),
            uncached: g(self.uncached),
            output: g(self.output),
            unpriced_output_tokens: self.unpriced_output_tokens,
            fixed: Fixed {
                context: g(self.fixed.context),
                cached: g(self.fixed.cached),
                written: g(self.fixed.written),
                uncached: g(self.fixed.uncached),
                cost: g(self.fixed.cost),
                retry: g(self.fixed.retry),
            },
        }
    }
}

impl RunSums<f64> {
    /// These token sums of a run whose every request is at `m`, priced: the output cost of
    /// its `output_tokens`, and, where `m`'s prices are fixed, the fixed part. Summing the
    /// tokens first and pricing once gives the same figures, to the bit, whichever path
    /// (the reference walk or the sweep's lanes) counted them.
    pub fn priced_at(self, m: &ModelPrice, output_tokens: f64) -> Self {
        priced_at(self, m, output_tokens)
    }
}

/// See [`RunSums::priced_at`].
fn priced_at<Q: Quantity>(mut sums: RunSums<Q>, m: &ModelPrice, output_tokens: f64) -> RunSums<Q> {
    sums.output = Q::zero();
    sums.unpriced_output_tokens = 0.0;
    sums.fixed = Fixed::zero();
    sums.add_output(output_tokens, m);
    if !m.read_swept {
        let all = CallFigures {
            context: sums.context,
            cached: sums.cached,
            written: sums.written,
            uncached: sums.uncached,
            output_tokens: 0.0,
            model: 0,
        };
        sums.fixed.add(&all, m);
    }
    sums
}

impl RunSums<f64> {
    /// Cost in the scenario's input-token equivalents (docs/model.md §4). The requests at
    /// the scenario's own model: with a cache, `read·cached + write·written + 1·uncached`,
    /// plus retries re-sending each request (`retry·read` per cacheable token, `retry·1` per
    /// uncacheable one); without a cache, `context·(1 + retry)`; `cache` is its `(read,
    /// write)` at the point. The requests at fixed prices as [`Fixed`] priced them. Then
    /// everything the model wrote, at each model's output price.
    pub fn cost(&self, cache: Option<(f64, f64)>, retry_rate: f64) -> f64 {
        let f = &self.fixed;
        let context = self.context - f.context;
        let own = match cache {
            Some((read, write)) => {
                let (cached, written) = (self.cached - f.cached, self.written - f.written);
                let uncached = self.uncached - f.uncached;
                let cacheable = context - uncached;
                read * cached
                    + write * written
                    + uncached
                    + retry_rate * (read * cacheable + uncached)
            }
            None => context * (1.0 + retry_rate),
        };
        own + f.cost + retry_rate * f.retry + self.output
    }
}

/// Cost of one request priced at `m`, in the scenario's input-token equivalents, as
/// [`RunSums::cost`]; `swept_read` is the point's cache read price, where swept.
pub fn call_cost(
    f: &CallFigures<f64>,
    m: &ModelPrice,
    swept_read: Option<f64>,
    retry_rate: f64,
) -> f64 {
    let mut sums = RunSums::<f64>::zero();
    sums.context = f.context;
    sums.cached = f.cached;
    sums.written = f.written;
    sums.uncached = f.uncached;
    sums.add_output(f.output_tokens, m);
    let own = sums.cost(m.cache_prices(swept_read), retry_rate) - sums.output;
    own * m.scale + sums.output
}

/// The ledger's state between calls: feed it a run's calls in order with [`Walker::step`].
///
/// This is the one implementation of docs/model.md §1, §3 (placeholders) and §4 (the cache): the
/// batch [`walk`], the sweep's closed forms, every output and the streaming `ledger`
/// command all go through it. Without a cache it keeps constant memory, so a trace of any
/// length can be streamed through it.
#[derive(Debug, Clone)]
pub struct Walker<'a, Q> {
    /// The models the run's calls are priced at, with their caches; None: no cache, and
    /// cost is the reread total.
    pricing: Option<&'a Pricing>,
    at: Assumptions,
    placeholder_bytes: f64,
    base: Q,
    context: Q,
    previous_context: Q,
    /// The model of the previous request: another model's cache does not hold its prefix.
    previous_model: u8,
    freed_so_far: Q,
    /// `full[k]`: the sum of the full sizes of results before k; kept only with a cache.
    full: Vec<Q>,
    index: usize,
    sums: RunSums<Q>,
    /// The figures of the compaction request the last step ran, until taken.
    compaction_request: Option<CallFigures<Q>>,
    /// Where every call is at one model: it, and the output tokens so far, priced once at
    /// the end ([`RunSums::priced_at`]).
    uniform: Option<&'a ModelPrice>,
    output_tokens: f64,
    /// The provider's context editing, request by request (docs/model.md §9).
    window: Window<'a, Q>,
    /// What re-fetched results added to the context since the last compaction (docs/model.md
    /// §11): a compaction summarises them away with the rest.
    refetched: Q,
}

/// The state of a walk under the provider's context editing ([`Clearings::window`]): each
/// request reads the full history less the oldest results its window clears; the context
/// itself is never edited.
#[derive(Debug, Clone)]
struct Window<'a, Q> {
    /// The results the API may clear, by position; empty when the walk has no window.
    eligible: &'a [u32],
    /// `freed[m]`: what clearing the oldest m eligible results frees, each result's tokens
    /// less its placeholder, summed from the oldest.
    freed: Vec<Q>,
    /// How many the current request clears, and the previous one did.
    clears: usize,
    previous: usize,
    /// Calls stepped so far (a request's position in the run).
    position: usize,
}

impl<'a, Q: Quantity> Walker<'a, Q> {
    /// A walk at `at`, priced by `pricing` if any (its models' prompt caches, output
    /// prices); cleared results are replaced by `placeholder_bytes` each.
    pub fn new(pricing: Option<&'a Pricing>, at: Assumptions, placeholder_bytes: f64) -> Self {
        Self::with_base(pricing, at, placeholder_bytes, Q::base(at))
    }

    /// As [`Walker::new`], for a run whose base tokens an edit changed: `base` is what
    /// every call reads before any result (see `BaseChange::quantity`).
    pub fn with_base(
        pricing: Option<&'a Pricing>,
        at: Assumptions,
        placeholder_bytes: f64,
        base: Q,
    ) -> Self {
        let cached = pricing.is_some_and(Pricing::cached);
        Walker {
            pricing,
            at,
            placeholder_bytes,
            base,
            context: base,
            previous_context: base,
            previous_model: 0,
            freed_so_far: Q::zero(),
            full: if cached { vec![Q::zero()] } else { Vec::new() },
            index: 0,
            sums: RunSums::zero(),
            compaction_request: None,
            uniform: pricing.filter(|p| p.is_uniform()).map(Pricing::main),
            output_tokens: 0.0,
            window: Window {
                eligible: &[],
                freed: vec![Q::zero()],
                clears: 0,
                previous: 0,
                position: 0,
            },
            refetched: Q::zero(),
        }
    }

    /// A walk under the provider's context editing: `eligible` are the positions of the
    /// results it may clear ([`Clearings::eligible`]); each request's count is set with
    /// [`Walker::set_window`] before it.
    pub fn with_window(mut self, eligible: &'a [u32]) -> Self {
        self.window.eligible = eligible;
        self
    }

    /// The number of the oldest eligible results the next request reads cleared.
    pub fn set_window(&mut self, clears: u32) {
        self.window.clears = clears as usize;
    }

    /// The model call `origin` is priced at (0 without pricing).
    #[inline]
    fn model(&self, origin: u32) -> u8 {
        self.pricing.map_or(0, |p| p.model_index(origin))
    }

    /// Whether the walk has a prompt cache.
    fn cached(&self) -> bool {
        !self.full.is_empty()
    }

    /// The next call: its result `slot`, the seconds since the previous call, and the
    /// clearing that happens just before it, if any. Returns the call's figures.
    pub fn step(&mut self, slot: &Slot, gap_s: f64, event: Option<&Event>) -> CallFigures<Q> {
        let model = self.model(slot.origin);
        let figures = self.read(gap_s, event, model, slot.output_tokens);
        let w = &mut self.window;
        if w.eligible.get(w.freed.len() - 1) == Some(&(w.position as u32)) {
            let own =
                Q::tokens(slot.tokens) + Q::bytes(slot.bytes - self.placeholder_bytes, self.at);
            let last = w.freed[w.freed.len() - 1];
            w.freed.push(last + own);
        }
        w.position += 1;
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
        debug_assert!(!self.cached());
        let zero = Q::zero();
        let context = self.context;
        let model = self.model(slot.origin);
        let figures = CallFigures {
            context,
            cached: zero,
            written: zero,
            uncached: zero,
            output_tokens: slot.output_tokens,
            model,
        };
        // The sums of cached, written and uncached stay zero: adding zero to zero is exact.
        self.sums.context += context;
        match (self.uniform, self.pricing) {
            (Some(_), _) | (None, None) => self.output_tokens += slot.output_tokens,
            (None, Some(p)) => {
                let m = &p.models[model as usize];
                self.sums.add_output(slot.output_tokens, m);
                if !m.read_swept {
                    self.sums.fixed.add(&figures, m);
                }
            }
        }
        self.previous_context = context;
        self.index += 1;
        self.context += Q::tokens(slot.joined_tokens()) + Q::bytes(slot.joined_bytes(), self.at);
        figures
    }

    /// A request added between two calls (a deferred part's tool search, docs/model.md
    /// §9), before the call `origin`, at its model: it reads the context like a call, after
    /// `gap_s` and the clearing `event` just before it, if any; then `joined` tokens join the
    /// context ahead of the next call's result (so a cache prefix cut at that result keeps
    /// them). Returns its figures.
    pub fn added_request(
        &mut self,
        gap_s: f64,
        event: Option<&Event>,
        joined: Q,
        origin: u32,
    ) -> CallFigures<Q> {
        let model = self.model(origin);
        let figures = self.read(gap_s, event, model, 0.0);
        if let Some(last) = self.full.last_mut() {
            *last += joined;
        }
        self.context += joined;
        figures
    }

    /// [`Walker::added_request`] for `r`, before the call `origin`: what joins after it is
    /// its tokens and bytes (÷ ρ), and a re-fetch's is counted for the next compaction.
    pub fn added(
        &mut self,
        r: &AddedRequest,
        gap_s: f64,
        event: Option<&Event>,
        origin: u32,
    ) -> CallFigures<Q> {
        let joined = Q::tokens(r.joins_tokens) + Q::bytes(r.joins_bytes, self.at);
        let figures = self.added_request(gap_s, event, joined, origin);
        if r.refetch {
            self.refetched += joined;
        }
        figures
    }

    /// Adds a request's figures to the sums, priced at its model (where calls are at
    /// several models; else priced once, at the end).
    fn count(&mut self, figures: &CallFigures<Q>) {
        match (self.uniform, self.pricing) {
            (None, Some(p)) => self.sums.add(figures, &p.models[figures.model as usize]),
            _ => {
                self.sums.context += figures.context;
                self.sums.cached += figures.cached;
                self.sums.written += figures.written;
                self.sums.uncached += figures.uncached;
                self.output_tokens += figures.output_tokens;
            }
        }
    }

    /// A request at `model` reading the context: its figures, added to the sums.
    fn read(
        &mut self,
        gap_s: f64,
        event: Option<&Event>,
        model: u8,
        output_tokens: f64,
    ) -> CallFigures<Q> {
        let at = self.at;
        let mut first_changed = None;
        let mut freed_before = self.freed_so_far;
        let mut gap_s = gap_s;
        let mut base_only = false;
        if let Some(event) = event.filter(|e| e.compaction.is_some()) {
            // The compaction request: it reads the context as it stands, through the
            // cache like any request, at the model of the call it precedes, and writes
            // the summary (priced as output).
            let request = self.context;
            let summary = event.compaction.unwrap_or(0.0);
            let figures = self.split(request, gap_s, None, self.freed_so_far, false, model);
            let figures = CallFigures {
                output_tokens: summary,
                ..figures
            };
            self.count(&figures);
            self.compaction_request = Some(figures);
            self.previous_context = request;
            self.previous_model = model;
            // Everything but the base gives way to the summary and the calls kept: the
            // call right after reads the base from the cache and writes the rest.
            // Re-fetched results joined since the last compaction go with the rest: the
            // compaction's freed tokens count only the run's own calls.
            self.context -= Q::tokens(event.freed_tokens) + self.refetched;
            self.refetched = Q::zero();
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
        let mut context = self.context;
        let w = &mut self.window;
        if !w.eligible.is_empty() {
            // The API's edit of this request alone: the context itself stays whole. Its
            // cached prefix breaks at the first result cleared in one of this request and
            // the previous one and not the other (both clear the oldest eligible results).
            context -= w.freed[w.clears];
            if w.clears != w.previous {
                let m = w.clears.min(w.previous);
                first_changed = Some(w.eligible[m] as usize);
                freed_before = w.freed[m];
            }
            w.previous = w.clears;
        }
        let figures = self.split(
            context,
            gap_s,
            first_changed,
            freed_before,
            base_only,
            model,
        );
        let figures = CallFigures {
            output_tokens,
            ..figures
        };
        self.count(&figures);
        self.previous_context = context;
        self.previous_model = model;
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
        match self.uniform {
            Some(m) => priced_at(self.sums, m, self.output_tokens),
            None => self.sums,
        }
    }

    /// A request of `context` tokens at `model` split into cached, written and uncached,
    /// `gap_s` after the previous request: its cached prefix is the previous request's, cut
    /// at the first block a clearing changed, or only the base after a compaction. After a
    /// pause past the TTL, at the first request, and at a request of another model than the
    /// previous one (each model has its own cache), only the warm part of the base is
    /// cached: what other sessions keep warm (docs/model.md §4, §12).
    fn split(
        &self,
        context: Q,
        gap_s: f64,
        first_changed: Option<usize>,
        freed_before: Q,
        base_only: bool,
        model: u8,
    ) -> CallFigures<Q> {
        let zero = Q::zero();
        let cache = self
            .pricing
            .and_then(|p| p.models[model as usize].cache.as_ref());
        let (cached, written, uncached) = match cache {
            None => (zero, zero, zero),
            // Too short to be cached at all: billed at the plain input price, no write fee.
            Some(c) if context.below(c.min_tokens) => (zero, zero, context),
            Some(c) => {
                let cold = self.index == 0 || model != self.previous_model;
                let cached = if cold || gap_s > c.ttl_s {
                    // What other sessions keep in the cache: part of the base, read at the
                    // first request, after every pause past the TTL and at a change of model.
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
            output_tokens: 0.0,
            model,
        }
    }
}

/// Walks `run` under `clearings` at `at`, calling `each(i, slot, figures)` for every call in
/// order with the call and its figures, and returns the sums. With `pricing`'s caches,
/// splits each context into cached, written and uncached tokens.
pub fn walk<Q: Quantity>(
    calls: &Calls,
    run: &Run,
    clearings: &Clearings,
    pricing: Option<&Pricing>,
    at: Assumptions,
    each: impl FnMut(usize, &Slot, &CallFigures<Q>),
) -> RunSums<Q> {
    walk_from(calls, run, clearings, pricing, at, Q::base(at), each)
}

/// As [`walk`], from a base of `base` tokens (a run whose base an edit changed).
pub fn walk_from<Q: Quantity>(
    calls: &Calls,
    run: &Run,
    clearings: &Clearings,
    pricing: Option<&Pricing>,
    at: Assumptions,
    base: Q,
    each: impl FnMut(usize, &Slot, &CallFigures<Q>),
) -> RunSums<Q> {
    walk_with(calls, run, clearings, pricing, at, base, &[], each)
}

pub use crate::run::AddedRequest;

/// As [`walk_from`], with `requests` (by position) added to the run. An added request
/// takes the pause before the call it precedes, which then follows it at once; `each`
/// sees it with that call's position, just before the call.
#[allow(clippy::too_many_arguments)]
pub fn walk_with<Q: Quantity>(
    calls: &Calls,
    run: &Run,
    clearings: &Clearings,
    pricing: Option<&Pricing>,
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
    walk_requests(calls, run, clearings, pricing, at, base, requests, each)
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
    pricing: Option<&Pricing>,
    at: Assumptions,
    base: Q,
    requests: &[AddedRequest],
    mut each: impl FnMut(usize, Request<'_>, &CallFigures<Q>),
) -> RunSums<Q> {
    let mut walker = Walker::with_base(pricing, at, clearings.placeholder_bytes, base)
        .with_window(&clearings.eligible);
    if !walker.cached() && clearings.events.is_empty() && requests.is_empty() {
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
    let stateless = clearings.stateless();
    run.iter().enumerate().for_each(|(i, slot)| {
        // The API's edits are the window's, request by request, not events that persist.
        let mut event = events.next_if(|e| e.before == i).filter(|_| !stateless);
        if stateless {
            walker.set_window(clearings.window[i]);
        }
        let mut gap = calls.gap_s(slot.origin as usize);
        while let Some(r) = added.next_if(|r| r.before == i) {
            let figures = walker.added(r, gap, event.take(), slot.origin);
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
    // Requests after the last call (a re-fetch right after it): at once, at its model, with
    // its position.
    if let Some(last) = run
        .len()
        .checked_sub(1)
        .and_then(|l| run.get(l).map(|s| (l, s)))
    {
        for r in added {
            let figures = walker.added(r, 0.0, None, last.1.origin);
            each(last.0, Request::Slot(&r.slot), &figures);
        }
    }
    debug_assert!(
        clearings
            .cleared_before
            .iter()
            .all(|&c| c == NEVER || (c as usize) < run.len())
    );
    walker.sums()
}
