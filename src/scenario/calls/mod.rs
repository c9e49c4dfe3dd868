//! A scenario's calls, laid out by column: what a 10-million-call trace holds.
//!
//! A [`Call`] as read is about 120 bytes (two inline strings, a shared kind, five sizes,
//! the detail's pointer); 10 million of them were 1.2 GB, most of it columns that never
//! vary in a trace (kind, segment, tokens, gap) or follow from the position (a trace's
//! ids are its call numbers). [`Calls`] keeps each column as narrowly as its values
//! allow, exactly (`column`), and hands out [`CallRef`]s: the same fields, read on
//! demand, bit for bit what was pushed.

mod column;
mod id;

use super::{Call, CallDetail, MeasuredUsage, Terms};
use column::{Flags, Reals, Strings, Wholes};
use rustc_hash::FxHashMap;
use std::sync::Arc;

pub use id::Id;

/// The ids of the calls: numbers written in decimal (a trace's), or any text.
#[derive(Debug, Clone)]
enum Ids {
    Numbers(Wholes),
    Text(Strings),
}

/// A scenario's calls in order, by column.
#[derive(Debug, Clone)]
pub struct Calls {
    len: usize,
    ids: Ids,
    labels: Strings,
    /// Distinct kinds, in order of first use, and each call's index into them.
    kinds: Vec<Arc<str>>,
    kind: Wholes,
    bytes: Reals,
    tokens: Reals,
    output_tokens: Reals,
    pinned: Flags,
    segment: Wholes,
    gap_s: Reals,
    measured: Flags,
    /// Each call's detail; empty until one call has some.
    details: Vec<Option<Box<CallDetail>>>,
    /// Kind to its index in `kinds`.
    kind_index: FxHashMap<Arc<str>, u32>,
}

impl Default for Calls {
    fn default() -> Self {
        Calls {
            len: 0,
            ids: Ids::Numbers(Wholes::Const(0)),
            labels: Strings::default(),
            kinds: Vec::new(),
            kind: Wholes::Const(0),
            bytes: Reals::Const(0.0),
            tokens: Reals::Const(0.0),
            output_tokens: Reals::Const(0.0),
            pinned: Flags::Const(false),
            segment: Wholes::Const(0),
            gap_s: Reals::Const(0.0),
            measured: Flags::Const(false),
            details: Vec::new(),
            kind_index: FxHashMap::default(),
        }
    }
}

/// `id` as the number it writes in decimal, when it is one exactly (`7`, not `07`,
/// `+7` or `7.0`).
fn decimal(id: &str) -> Option<u64> {
    let b = id.as_bytes();
    let canonical =
        !b.is_empty() && b.iter().all(u8::is_ascii_digit) && (b.len() == 1 || b[0] != b'0');
    canonical.then(|| id.parse().ok()).flatten()
}

/// `a == b`, without a call to `memcmp` for the short texts kinds are.
#[inline]
fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && (std::ptr::eq(a.as_ptr(), b.as_ptr()) || a.bytes().zip(b.bytes()).all(|(x, y)| x == y))
}

impl Calls {
    /// No calls yet.
    pub fn new() -> Calls {
        Calls::default()
    }

    /// Appends `call`.
    pub fn push(&mut self, mut call: Call) {
        let detail = call.detail.take();
        let number = decimal(&call.id);
        self.push_parts(call.as_ref(), number, detail);
    }

    /// Appends the call `c` of a trace, whose id is `number` in decimal (`c.id` is not
    /// read: a trace's ids are its numbers, none written out), without detail.
    pub fn push_numbered(&mut self, number: u64, c: CallRef<'_>) {
        self.push_parts(c, Some(number), None);
    }

    /// Appends `c` with `detail` (`c.detail` is not read); `number`: its id is that
    /// number in decimal.
    #[inline]
    fn push_parts(&mut self, c: CallRef<'_>, number: Option<u64>, detail: Option<Box<CallDetail>>) {
        let i = self.len;
        match (&mut self.ids, number) {
            (Ids::Numbers(n), Some(number)) => n.push(i, number),
            (Ids::Numbers(n), None) => {
                let mut text = Strings::default();
                let mut digits = itoa::Buffer::new();
                for j in 0..i {
                    text.push(j, digits.format(n.get(j)));
                }
                text.push(i, &c.id);
                self.ids = Ids::Text(text);
            }
            (Ids::Text(t), _) => t.push(i, &c.id),
        }
        self.labels.push(i, c.label);
        let kind = self.kind_of(c.kind);
        self.kind.push(i, u64::from(kind));
        self.bytes.push(i, c.bytes);
        self.tokens.push(i, c.tokens);
        self.output_tokens.push(i, c.output_tokens);
        self.pinned.push(i, c.pinned);
        self.segment.push(i, c.segment);
        self.gap_s.push(i, c.gap_s);
        self.measured.push(i, c.measured);
        match (detail, self.details.is_empty()) {
            (None, true) => {}
            (detail, _) => {
                self.details.resize_with(i, || None);
                self.details.push(detail);
            }
        }
        self.len += 1;
    }

    /// The index of `kind`, added to the distinct kinds if new.
    fn kind_of(&mut self, kind: &str) -> u32 {
        // Traces repeat a kind call after call, most often the one shared default: the
        // previous call's is the likely one.
        if let Some(previous) = self.len.checked_sub(1).map(|i| self.kind.get(i) as u32) {
            let k = &self.kinds[previous as usize];
            if same_text(k, kind) {
                return previous;
            }
        }
        if let Some(&k) = self.kind_index.get(kind) {
            return k;
        }
        let k = self.kinds.len() as u32;
        let kind: Arc<str> = Arc::from(kind);
        self.kind_index.insert(Arc::clone(&kind), k);
        self.kinds.push(kind);
        k
    }

    /// Appends every call of `other` after these, as pushing them one by one would: by
    /// whole columns where the layouts allow (a trace read in two halves at once is
    /// joined so).
    pub fn append(&mut self, other: Calls) {
        let (len, n) = (self.len, other.len);
        if n == 0 {
            return;
        }
        if len == 0 {
            *self = other;
            return;
        }
        // Each of the other's columns is dropped once appended: the two are never whole
        // side by side.
        let Calls {
            ids,
            labels,
            kinds,
            kind,
            bytes,
            tokens,
            output_tokens,
            pinned,
            segment,
            gap_s,
            measured,
            details,
            ..
        } = other;
        match (&mut self.ids, &ids) {
            (Ids::Numbers(a), Ids::Numbers(b)) => a.append(len, b, n),
            (Ids::Text(a), Ids::Text(_)) => {
                if let Ids::Text(b) = ids {
                    a.append(len, b, n);
                }
            }
            (_, theirs) => {
                // One side has ids that are not numbers: as text, call by call.
                let mut text = Strings::default();
                for i in 0..len {
                    text.push(i, &self.id(i));
                }
                let mut digits = itoa::Buffer::new();
                for i in 0..n {
                    match theirs {
                        Ids::Numbers(w) => text.push(len + i, digits.format(w.get(i))),
                        Ids::Text(t) => text.push(len + i, t.get(i)),
                    }
                }
                self.ids = Ids::Text(text);
            }
        }
        self.labels.append(len, labels, n);
        // The other's kinds, by their index here (new ones added in the other's order of
        // first use, as pushing its calls would).
        let mapped: Vec<u32> = kinds
            .iter()
            .map(|k| match self.kind_index.get(&**k) {
                Some(&i) => i,
                None => {
                    let i = self.kinds.len() as u32;
                    self.kind_index.insert(Arc::clone(k), i);
                    self.kinds.push(Arc::clone(k));
                    i
                }
            })
            .collect();
        if mapped.iter().enumerate().all(|(i, &m)| m as usize == i) {
            self.kind.append(len, &kind, n);
        } else {
            for i in 0..n {
                let k = mapped[kind.get(i) as usize];
                self.kind.push(len + i, u64::from(k));
            }
        }
        self.bytes.append(len, &bytes, n);
        self.tokens.append(len, &tokens, n);
        self.output_tokens.append(len, &output_tokens, n);
        self.pinned.append(len, &pinned, n);
        self.segment.append(len, &segment, n);
        self.gap_s.append(len, &gap_s, n);
        self.measured.append(len, &measured, n);
        if !(self.details.is_empty() && details.is_empty()) {
            self.details.resize_with(len, || None);
            let mut details = details;
            details.resize_with(n, || None);
            self.details.extend(details);
        }
        self.len += n;
    }

    /// Gives back spare capacity once every call is in.
    pub fn shrink_to_fit(&mut self) {
        match &mut self.ids {
            Ids::Text(t) => t.shrink(),
            Ids::Numbers(n) => n.shrink(),
        }
        self.labels.shrink();
        self.kind.shrink();
        self.bytes.shrink();
        self.tokens.shrink();
        self.output_tokens.shrink();
        self.pinned.shrink();
        self.segment.shrink();
        self.gap_s.shrink();
        self.measured.shrink();
        if !self.details.is_empty() {
            self.details.resize_with(self.len, || None);
            self.details.shrink_to_fit();
        }
    }

    /// Number of calls.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Call `i`, None past the end.
    pub fn get(&self, i: usize) -> Option<CallRef<'_>> {
        (i < self.len).then(|| self.at(i))
    }

    /// Call `i`.
    ///
    /// # Panics
    /// When `i` is not below [`Calls::len`], as a slice's index does: positions come
    /// from the calls themselves (a run's origins).
    #[inline]
    pub fn at(&self, i: usize) -> CallRef<'_> {
        assert!(i < self.len, "call {i} of {}", self.len);
        CallRef {
            id: self.id(i),
            label: self.labels.get(i),
            kind: &self.kinds[self.kind.get(i) as usize],
            bytes: self.bytes.get(i),
            tokens: self.tokens.get(i),
            output_tokens: self.output_tokens.get(i),
            pinned: self.pinned.get(i),
            segment: self.segment.get(i),
            gap_s: self.gap_s.get(i),
            measured: self.measured.get(i),
            detail: self.detail(i),
        }
    }

    /// The id of call `i`.
    #[inline]
    pub fn id(&self, i: usize) -> Id<'_> {
        match &self.ids {
            Ids::Numbers(n) => Id::number(n.get(i)),
            Ids::Text(t) => Id::text(t.get(i)),
        }
    }

    /// The detail of call `i`, if any.
    #[inline]
    pub fn detail(&self, i: usize) -> Option<&CallDetail> {
        self.details.get(i)?.as_deref()
    }

    /// The label of call `i` (what [`CallRef::label`] holds, without the rest: the
    /// accessors below read one column, for passes over every call).
    #[inline]
    pub fn label(&self, i: usize) -> &str {
        self.labels.get(i)
    }

    /// The kind of call `i`.
    #[inline]
    pub fn kind(&self, i: usize) -> &str {
        &self.kinds[self.kind.get(i) as usize]
    }

    /// Seconds since the previous call, for call `i`.
    #[inline]
    pub fn gap_s(&self, i: usize) -> f64 {
        self.gap_s.get(i)
    }

    /// The segment of call `i`.
    #[inline]
    pub fn segment(&self, i: usize) -> u64 {
        self.segment.get(i)
    }

    /// Whether call `i` has measured tokens.
    #[inline]
    pub fn measured(&self, i: usize) -> bool {
        self.measured.get(i)
    }

    /// The distinct kinds of the calls, in order of first use.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.kinds.iter().map(|k| &**k)
    }

    /// Every call's detail, in order (None for a call without).
    pub fn details(&self) -> impl Iterator<Item = Option<&CallDetail>> {
        (0..self.len).map(move |i| self.detail(i))
    }

    /// The positions of the calls whose ids are in `wanted` (the ids edits name), by id:
    /// one pass over the ids, none when a trace's numbers count up, and never writing a
    /// number out.
    pub fn positions<'w>(&self, wanted: &[&'w str]) -> FxHashMap<&'w str, u32> {
        let mut found = FxHashMap::default();
        match &self.ids {
            Ids::Text(t) => {
                let wanted: FxHashMap<&str, &'w str> = wanted.iter().map(|&w| (w, w)).collect();
                for i in 0..self.len {
                    if let Some(&w) = wanted.get(t.get(i)) {
                        found.insert(w, i as u32);
                    }
                }
            }
            Ids::Numbers(Wholes::Counting(start)) => {
                for &w in wanted {
                    let i = decimal(w)
                        .and_then(|n| n.checked_sub(*start))
                        .filter(|&i| i < self.len as u64);
                    if let Some(i) = i {
                        found.insert(w, i as u32);
                    }
                }
            }
            Ids::Numbers(n) => {
                let wanted: FxHashMap<u64, &'w str> = wanted
                    .iter()
                    .filter_map(|&w| Some((decimal(w)?, w)))
                    .collect();
                for i in 0..self.len {
                    if let Some(&w) = wanted.get(&n.get(i)) {
                        found.insert(w, i as u32);
                    }
                }
            }
        }
        found
    }

    /// The four sizes a run's slot takes from call `i`: its result (bytes, tokens with the
    /// named terms), its output tokens, and its own content (tokens, bytes); read without
    /// the call's strings, for the walks.
    #[inline]
    pub fn sizes(&self, i: usize, terms: &Terms) -> Sizes {
        Sizes::of(
            self.bytes.get(i),
            self.tokens.get(i),
            self.output_tokens.get(i),
            self.detail(i),
            terms,
        )
    }

    /// Folds `f` over the sizes of calls `start..end` (each with its position), as
    /// [`Calls::sizes`] gives them, in order. A trace whose tokens and output tokens are
    /// one value for all and whose calls have no detail (a TSV trace without those
    /// columns) is read by a loop over its bytes alone.
    #[inline]
    pub fn fold_sizes<B>(
        &self,
        start: usize,
        end: usize,
        terms: &Terms,
        init: B,
        mut f: impl FnMut(B, usize, Sizes) -> B,
    ) -> B {
        if let (true, Reals::Const(tokens), Reals::Const(output_tokens)) =
            (self.details.is_empty(), &self.tokens, &self.output_tokens)
        {
            let sized = |bytes: f64| Sizes::of(bytes, *tokens, *output_tokens, None, terms);
            return match &self.bytes {
                Reals::Const(b) => (start..end).fold(init, |acc, i| f(acc, i, sized(*b))),
                Reals::Whole(v) => v[start..end]
                    .iter()
                    .zip(start..)
                    .fold(init, |acc, (&b, i)| f(acc, i, sized(f64::from(b)))),
                Reals::Any(v) => v[start..end]
                    .iter()
                    .zip(start..)
                    .fold(init, |acc, (&b, i)| f(acc, i, sized(b))),
            };
        }
        (start..end).fold(init, |acc, i| f(acc, i, self.sizes(i, terms)))
    }

    /// Every call, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = CallRef<'_>> + ExactSizeIterator {
        (0..self.len).map(move |i| self.at(i))
    }

    /// The first call.
    pub fn first(&self) -> Option<CallRef<'_>> {
        self.get(0)
    }

    /// The last call.
    pub fn last(&self) -> Option<CallRef<'_>> {
        self.len.checked_sub(1).map(|i| self.at(i))
    }

    /// Every call as an owned [`Call`] (small scenarios and tests).
    pub fn to_vec(&self) -> Vec<Call> {
        self.iter().map(|c| c.to_call()).collect()
    }
}

impl FromIterator<Call> for Calls {
    fn from_iter<I: IntoIterator<Item = Call>>(iter: I) -> Calls {
        let mut calls = Calls::new();
        for c in iter {
            calls.push(c);
        }
        calls.shrink_to_fit();
        calls
    }
}

impl From<Vec<Call>> for Calls {
    fn from(calls: Vec<Call>) -> Calls {
        calls.into_iter().collect()
    }
}

impl PartialEq for Calls {
    /// Equal when every call is, whatever the columns' layout.
    fn eq(&self, other: &Calls) -> bool {
        self.len == other.len && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

/// What a run's slot takes from a call ([`Calls::sizes`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizes {
    pub bytes: f64,
    pub result_tokens: f64,
    pub output_tokens: f64,
    /// The model's own content that joins, as (tokens, bytes).
    pub own: (f64, f64),
}

impl Sizes {
    /// The sizes of a call of these sizes and `detail`, under `terms`.
    #[inline]
    fn of(
        bytes: f64,
        tokens: f64,
        output_tokens: f64,
        detail: Option<&CallDetail>,
        terms: &Terms,
    ) -> Sizes {
        Sizes {
            bytes,
            result_tokens: result_tokens(tokens, detail, terms),
            output_tokens,
            own: own_content(output_tokens, detail, terms),
        }
    }
}

/// One call of [`Calls`], its fields read out: those of [`Call`], borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallRef<'a> {
    pub id: Id<'a>,
    pub label: &'a str,
    pub kind: &'a str,
    pub bytes: f64,
    pub tokens: f64,
    pub output_tokens: f64,
    pub pinned: bool,
    pub segment: u64,
    pub gap_s: f64,
    pub measured: bool,
    pub detail: Option<&'a CallDetail>,
}

impl<'a> CallRef<'a> {
    /// The tool the call ran (`Bash`, `Read`), if known.
    pub fn tool(&self) -> Option<&'a str> {
        self.detail?.tool.as_deref()
    }

    /// Every tool the request used: `tool` first, then `other_tools`.
    pub fn tools(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let detail = self.detail;
        detail.and_then(|d| d.tool.as_deref()).into_iter().chain(
            detail
                .into_iter()
                .flat_map(|d| d.other_tools.iter().map(|t| &**t)),
        )
    }

    /// A hash of the tool name and its input, if known: equal hashes are re-reads.
    pub fn input_hash(&self) -> Option<&'a str> {
        self.detail?.input_hash.as_deref()
    }

    /// The provider's measured usage of the request, if the scenario came from a log.
    pub fn usage(&self) -> Option<&'a MeasuredUsage> {
        self.detail?.measured.as_ref()
    }

    /// Tokens of the call's result that join the context: the given `tokens` and the
    /// named terms' images and loaded tool definitions.
    pub fn result_tokens(&self, terms: &Terms) -> f64 {
        result_tokens(self.tokens, self.detail, terms)
    }

    /// The model's own content that joins the context, as (tokens, bytes): the logged
    /// output tokens, or the bytes of its message where the log gives them; plus the
    /// tokens every call adds.
    pub fn own_content(&self, terms: &Terms) -> (f64, f64) {
        own_content(self.output_tokens, self.detail, terms)
    }

    /// What a run's slot takes from the call ([`Calls::sizes`]).
    pub fn sizes(&self, terms: &Terms) -> Sizes {
        Sizes::of(
            self.bytes,
            self.tokens,
            self.output_tokens,
            self.detail,
            terms,
        )
    }

    /// The call, owned.
    pub fn to_call(&self) -> Call {
        Call {
            id: self.id.as_ref().into(),
            label: self.label.into(),
            kind: self.kind.into(),
            bytes: self.bytes,
            tokens: self.tokens,
            output_tokens: self.output_tokens,
            pinned: self.pinned,
            segment: self.segment,
            gap_s: self.gap_s,
            measured: self.measured,
            detail: self.detail.map(|d| Box::new(d.clone())),
        }
    }
}

impl Call {
    /// The call's fields, borrowed, as [`Calls`] hands them out.
    pub fn as_ref(&self) -> CallRef<'_> {
        CallRef {
            id: Id::text(&self.id),
            label: &self.label,
            kind: &self.kind,
            bytes: self.bytes,
            tokens: self.tokens,
            output_tokens: self.output_tokens,
            pinned: self.pinned,
            segment: self.segment,
            gap_s: self.gap_s,
            measured: self.measured,
            detail: self.detail.as_deref(),
        }
    }
}

fn result_tokens(tokens: f64, detail: Option<&CallDetail>, terms: &Terms) -> f64 {
    match detail {
        Some(d) if d.images > 0 || d.loaded_tools > 0 => {
            tokens
                + d.images as f64 * terms.per_image()
                + d.loaded_tools as f64 * terms.per_loaded_tool()
        }
        _ => tokens,
    }
}

fn own_content(output_tokens: f64, detail: Option<&CallDetail>, terms: &Terms) -> (f64, f64) {
    let per_call = terms.per_call();
    match detail.and_then(|d| d.output_bytes) {
        Some(bytes) => (per_call, bytes),
        None => (output_tokens + per_call, 0.0),
    }
}

#[cfg(test)]
mod tests;
