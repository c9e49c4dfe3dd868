//! A run as edited: the sequence of calls an edit leaves, stored as pieces of the baseline.
//!
//! A million-call trace is compared under several edits at once, and an edit touches a
//! handful of calls. So an edited run does not copy the baseline: it is a short list of
//! pieces, each either a stretch of the baseline's calls or one changed call. Applying an
//! edit costs the number of pieces, not the number of calls, and every run of a study
//! shares the baseline's slots.

mod base;

use crate::scenario::{CallRef, Calls, Sizes, Terms};
use base::Base;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// One call of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slot {
    /// Index of the baseline call whose id, kind, segment, gap and pinning this call keeps.
    pub origin: u32,
    /// Label: below the baseline's call count, that call's label; above, a merged label
    /// in [`Run::merged_labels`].
    pub label: u32,
    /// Bytes of result, converted with ρ.
    pub bytes: f64,
    /// Tokens of result not converted with ρ: measured, or the named terms' images and
    /// loaded tool definitions.
    pub tokens: f64,
    /// Tokens the model wrote at this call, priced as output.
    pub output_tokens: f64,
    /// The model's own content that joins the context as tokens: its output tokens (where
    /// the log gives no bytes for it) and the tokens every call adds.
    pub own_tokens: f64,
    /// The model's own message that joins the context as bytes, converted with ρ.
    pub own_bytes: f64,
}

impl Slot {
    /// Call `c` at position `origin` of the baseline.
    pub fn of(origin: u32, c: CallRef<'_>, terms: &Terms) -> Slot {
        Slot::sized(origin, c.sizes(terms))
    }

    /// The call at position `origin` of the baseline whose sizes are `sizes`.
    #[inline]
    pub fn sized(origin: u32, sizes: Sizes) -> Slot {
        let (own_tokens, own_bytes) = sizes.own;
        Slot {
            origin,
            label: origin,
            bytes: sizes.bytes,
            tokens: sizes.result_tokens,
            output_tokens: sizes.output_tokens,
            own_tokens,
            own_bytes,
        }
    }

    /// What joins the context after this call, in est. tokens at `bytes_per_token`.
    #[inline]
    pub fn size(&self, bytes_per_token: f64) -> f64 {
        self.joined_tokens() + self.joined_bytes() / bytes_per_token
    }

    /// Tokens (not converted with ρ) that join after the call: result and own content.
    #[inline]
    pub fn joined_tokens(&self) -> f64 {
        self.tokens + self.own_tokens
    }

    /// Bytes (converted with ρ) that join after the call: result and own message.
    #[inline]
    pub fn joined_bytes(&self) -> f64 {
        self.bytes + self.own_bytes
    }
}

/// A request an edit adds between the calls of a run (a deferred part's tool search,
/// docs/model.md §9; a re-fetch of a removed result, §11): it runs just before the call at
/// position `before` (or after the last call, where `before` is the run's length), after
/// any clearing there, and `joins_tokens` and `joins_bytes` (÷ ρ) join the context after
/// it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AddedRequest {
    pub before: usize,
    pub joins_tokens: f64,
    /// Bytes that join after it, converted with ρ (a re-fetched result's; 0 for a tool
    /// search, whose definitions are sized in tokens).
    pub joins_bytes: f64,
    /// A re-fetch (docs/model.md §11): its result goes with the rest at a compaction.
    pub refetch: bool,
    /// The request as per-call outputs list it: the origin of the call it precedes, a
    /// label of its own, and what joins after it.
    pub slot: Slot,
}

/// A stretch of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Piece {
    /// Baseline calls `start..end`, unchanged.
    Baseline { start: u32, end: u32 },
    /// One call an edit changed (or moved).
    Changed(Slot),
}

impl Piece {
    fn len(&self) -> usize {
        match *self {
            Piece::Baseline { start, end } => (end - start) as usize,
            Piece::Changed(_) => 1,
        }
    }
}

/// The sequence of calls of the baseline or of an edited run.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    baseline: Base,
    pieces: Vec<Piece>,
    len: usize,
    /// Labels made by merges.
    pub merged_labels: Vec<Box<str>>,
}

impl Run {
    /// The baseline run: every call as given, its named terms in tokens.
    pub fn baseline(calls: &Calls, terms: &Terms) -> Run {
        let baseline: Arc<[Slot]> = (0..calls.len())
            .map(|i| Slot::sized(i as u32, calls.sizes(i, terms)))
            .collect();
        Run::from_base(Base::Slots(baseline))
    }

    /// The baseline run of shared `calls`, its slots derived from them on each read
    /// rather than stored (the same slots as [`Run::baseline`], no memory per call).
    pub fn baseline_of_shared(calls: &Arc<Calls>, terms: &Terms) -> Run {
        Run::from_base(Base::Calls {
            calls: Arc::clone(calls),
            terms: terms.clone(),
        })
    }

    fn from_base(baseline: Base) -> Run {
        let len = baseline.len();
        Run {
            pieces: vec![Piece::Baseline {
                start: 0,
                end: len as u32,
            }],
            baseline,
            len,
            merged_labels: Vec::new(),
        }
    }

    /// A run made of `slots` alone (tests and small examples).
    pub fn of(slots: Vec<Slot>) -> Run {
        Run::from_base(Base::Slots(slots.into()))
    }

    /// Number of calls.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the run has no calls left.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The calls in order.
    pub fn iter(&self) -> Slots<'_> {
        Slots {
            run: self,
            piece: 0,
            from: 0,
            end: 0,
            ready: Vec::new(),
            pos: 0,
            left: self.len,
        }
    }

    /// Position of the call standing for baseline call `origin`, if it is still in the run.
    pub fn position(&self, origin: u32) -> Option<usize> {
        let mut at = 0;
        for p in &self.pieces {
            match *p {
                Piece::Baseline { start, end } if (start..end).contains(&origin) => {
                    return Some(at + (origin - start) as usize);
                }
                Piece::Changed(s) if s.origin == origin => return Some(at),
                _ => at += p.len(),
            }
        }
        None
    }

    /// Positions of the calls standing for baseline calls `origins`, each None if it is no
    /// longer in the run: one pass over the pieces and a binary search per call, where
    /// [`Run::position`] for each would scan the pieces every time.
    pub fn positions(&self, origins: &[u32]) -> Vec<Option<usize>> {
        // Baseline stretches by first origin (they never overlap), and changed calls by
        // origin (the first, as `position` finds it).
        let mut stretches: Vec<(u32, u32, usize)> = Vec::new();
        let mut changed: FxHashMap<u32, usize> = FxHashMap::default();
        let mut at = 0;
        for p in &self.pieces {
            match *p {
                Piece::Baseline { start, end } => stretches.push((start, end, at)),
                Piece::Changed(s) => {
                    changed.entry(s.origin).or_insert(at);
                }
            }
            at += p.len();
        }
        stretches.sort_unstable_by_key(|&(start, _, _)| start);
        origins
            .iter()
            .map(|&origin| {
                let k = stretches.partition_point(|&(start, _, _)| start <= origin);
                let in_stretch = k
                    .checked_sub(1)
                    .map(|k| stretches[k])
                    .filter(|&(_, end, _)| origin < end)
                    .map(|(start, _, at)| at + (origin - start) as usize);
                let in_changed = changed.get(&origin).copied();
                // Origins are unique in a run; were one not, the first wins, as in `position`.
                match (in_stretch, in_changed) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            })
            .collect()
    }

    /// Removes the calls at `positions` (ascending, each below `len`) and returns them in
    /// order: one pass over the pieces, where [`Run::remove`] for each would shift the
    /// pieces every time.
    pub fn remove_sorted(&mut self, positions: &[usize]) -> Vec<Slot> {
        let mut removed = Vec::with_capacity(positions.len());
        let mut pieces = Vec::with_capacity(self.pieces.len() + positions.len());
        let mut next = positions.iter().copied().peekable();
        let mut at = 0;
        for p in &self.pieces {
            let len = p.len();
            match *p {
                Piece::Changed(s) => {
                    if next.next_if_eq(&at).is_some() {
                        removed.push(s);
                    } else {
                        pieces.push(*p);
                    }
                }
                Piece::Baseline { start, end } => {
                    // Keep what lies between the removed positions inside this stretch.
                    let mut from = start;
                    while let Some(k) = next.next_if(|&k| k < at + len) {
                        let cut = start + (k - at) as u32;
                        if cut > from {
                            pieces.push(Piece::Baseline {
                                start: from,
                                end: cut,
                            });
                        }
                        removed.push(self.baseline.slot(cut as usize));
                        from = cut + 1;
                    }
                    if from < end {
                        pieces.push(Piece::Baseline { start: from, end });
                    }
                }
            }
            at += len;
        }
        self.len -= removed.len();
        self.pieces = pieces;
        removed
    }

    /// The call at position `index`.
    pub fn get(&self, index: usize) -> Option<Slot> {
        let (piece, offset) = self.locate(index)?;
        Some(match self.pieces[piece] {
            Piece::Baseline { start, .. } => self.baseline.slot(start as usize + offset),
            Piece::Changed(s) => s,
        })
    }

    /// Replaces the call at `index`.
    pub fn set(&mut self, index: usize, slot: Slot) {
        if let Some(piece) = self.split_out(index) {
            self.pieces[piece] = Piece::Changed(slot);
        }
    }

    /// Removes and returns the call at `index`.
    pub fn remove(&mut self, index: usize) -> Option<Slot> {
        let slot = self.get(index)?;
        let piece = self.split_out(index)?;
        self.pieces.remove(piece);
        self.len -= 1;
        Some(slot)
    }

    /// Inserts `slot` so that it stands at `index` (at most `len`).
    pub fn insert(&mut self, index: usize, slot: Slot) {
        let piece = if index >= self.len {
            self.pieces.len()
        } else {
            self.split_before(index)
        };
        self.pieces.insert(piece, Piece::Changed(slot));
        self.len += 1;
    }

    /// The run with every call passed through `change` (None drops the call), in one
    /// pass: rules that touch many calls stay linear. Calls `change` leaves as they were
    /// stay stretches of the baseline.
    pub fn map(&self, mut change: impl FnMut(usize, Slot) -> Option<Slot>) -> Run {
        let mut pieces: Vec<Piece> = Vec::new();
        let mut len = 0;
        for (i, slot) in self.iter().enumerate() {
            let Some(new) = change(i, slot) else { continue };
            len += 1;
            let o = new.origin;
            let unchanged = self.baseline.get(o as usize) == Some(new);
            match pieces.last_mut() {
                Some(Piece::Baseline { end, .. }) if unchanged && *end == o => *end += 1,
                _ if unchanged => pieces.push(Piece::Baseline {
                    start: o,
                    end: o + 1,
                }),
                _ => pieces.push(Piece::Changed(new)),
            }
        }
        Run {
            baseline: self.baseline.clone(),
            pieces,
            len,
            merged_labels: self.merged_labels.clone(),
        }
    }

    /// The label of `slot`, looking up baseline labels in `calls`.
    pub fn label<'a>(&'a self, calls: &'a Calls, slot: &Slot) -> &'a str {
        let i = slot.label as usize;
        match i < calls.len() {
            true => calls.label(i),
            false => &self.merged_labels[i - calls.len()],
        }
    }

    /// Adds a merged label and returns its index for [`Slot::label`].
    pub fn push_label(&mut self, calls: &Calls, label: String) -> u32 {
        self.merged_labels.push(label.into_boxed_str());
        (calls.len() + self.merged_labels.len() - 1) as u32
    }

    /// The piece holding position `index`, and the offset in it.
    fn locate(&self, index: usize) -> Option<(usize, usize)> {
        let mut at = 0;
        for (i, p) in self.pieces.iter().enumerate() {
            let len = p.len();
            if index < at + len {
                return Some((i, index - at));
            }
            at += len;
        }
        None
    }

    /// Splits pieces so that position `index` starts a piece; returns that piece.
    fn split_before(&mut self, index: usize) -> usize {
        let Some((piece, offset)) = self.locate(index) else {
            return self.pieces.len();
        };
        if offset == 0 {
            return piece;
        }
        if let Piece::Baseline { start, end } = self.pieces[piece] {
            let cut = start + offset as u32;
            self.pieces[piece] = Piece::Baseline { start, end: cut };
            self.pieces
                .insert(piece + 1, Piece::Baseline { start: cut, end });
        }
        piece + 1
    }

    /// Splits pieces so that position `index` is a piece of its own; returns it.
    fn split_out(&mut self, index: usize) -> Option<usize> {
        if index >= self.len {
            return None;
        }
        let piece = self.split_before(index);
        if index + 1 < self.len {
            self.split_before(index + 1);
        }
        if let Piece::Baseline { start, .. } = self.pieces[piece] {
            self.pieces[piece] = Piece::Changed(self.baseline.slot(start as usize));
        }
        Some(piece)
    }
}

/// Baseline calls read ahead at a time by [`Slots`]: enough that a trace's columns are
/// read by one loop each time, few enough to stay in the first-level cache.
const READ_AHEAD: u32 = 64;

/// The calls of a run in order ([`Run::iter`]). Stretches of baseline calls are read
/// [`READ_AHEAD`] at a time into a buffer (and by one loop per stretch in `fold`, what
/// `for_each` and `sum` use), so that reading a call is not a match per column per call.
pub struct Slots<'a> {
    run: &'a Run,
    /// The next piece to start.
    piece: usize,
    /// The baseline calls of the current piece not yet read ahead: `from..end`.
    from: u32,
    end: u32,
    /// Calls read ahead; `pos` is the next to hand out.
    ready: Vec<Slot>,
    pos: usize,
    /// Calls not yet handed out.
    left: usize,
}

impl Iterator for Slots<'_> {
    type Item = Slot;

    #[inline]
    fn next(&mut self) -> Option<Slot> {
        loop {
            if let Some(&s) = self.ready.get(self.pos) {
                self.pos += 1;
                self.left -= 1;
                return Some(s);
            }
            if self.from < self.end {
                let stop = self.end.min(self.from + READ_AHEAD);
                self.ready.clear();
                self.run
                    .baseline
                    .read_into(self.from as usize, stop as usize, &mut self.ready);
                self.from = stop;
                self.pos = 0;
                continue;
            }
            match *self.run.pieces.get(self.piece)? {
                Piece::Baseline { start, end } => (self.from, self.end) = (start, end),
                Piece::Changed(s) => {
                    self.piece += 1;
                    self.left -= 1;
                    return Some(s);
                }
            }
            self.piece += 1;
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }

    #[inline]
    fn fold<B, F: FnMut(B, Slot) -> B>(self, init: B, mut f: F) -> B {
        // What is read ahead, the rest of the current stretch, then the pieces not started
        // (`pos` ≤ the calls read ahead, `from` ≤ `end`, `piece` ≤ the pieces: `next`
        // keeps them so).
        let mut acc = self.ready[self.pos..]
            .iter()
            .fold(init, |acc, &s| f(acc, s));
        let base = &self.run.baseline;
        acc = base.fold(self.from as usize, self.end as usize, acc, &mut f);
        for p in &self.run.pieces[self.piece..] {
            acc = match *p {
                Piece::Baseline { start, end } => {
                    base.fold(start as usize, end as usize, acc, &mut f)
                }
                Piece::Changed(s) => f(acc, s),
            };
        }
        acc
    }
}

impl ExactSizeIterator for Slots<'_> {}

/// Why an edit cannot be applied: the key concerned (`merge.calls`, `step 2: trim.call`)
/// and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct EditError {
    pub key: String,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(i: u32) -> Slot {
        Slot {
            origin: i,
            label: i,
            bytes: i as f64,
            tokens: 0.0,
            output_tokens: 0.0,
            own_tokens: 0.0,
            own_bytes: 0.0,
        }
    }

    fn origins(r: &Run) -> Vec<u32> {
        r.iter().map(|s| s.origin).collect()
    }

    /// A run of shared calls, read ahead and folded: the same slots, in the same order, as
    /// the run of stored slots, whatever the pieces and wherever a stretch crosses the
    /// read-ahead's bounds; `size_hint` exact at every step.
    #[test]
    fn slots_read_ahead_give_the_stored_slots() {
        let calls: Calls = (0..300u32)
            .map(|i| crate::scenario::Call {
                id: i.to_string().into(),
                label: format!("c{i}").into(),
                kind: if i % 7 == 0 { "doc" } else { "tool" }.into(),
                bytes: f64::from(i * 3) + if i % 11 == 0 { 0.5 } else { 0.0 },
                tokens: f64::from(i % 4),
                output_tokens: 2.0,
                pinned: false,
                segment: 1,
                gap_s: 0.0,
                measured: false,
                detail: None,
            })
            .collect();
        let terms = Terms::default();
        let shared = Run::baseline_of_shared(&Arc::new(calls.clone()), &terms);
        let stored = Run::baseline(&calls, &terms);
        let edit = |mut r: Run| {
            let moved = r.remove(70).unwrap();
            r.insert(200, moved);
            r.set(64, slot(999));
            r.remove(127);
            r
        };
        for (a, b) in [
            (shared.clone(), stored.clone()),
            (edit(shared), edit(stored)),
        ] {
            let expected: Vec<Slot> = b.iter().collect();
            let mut it = a.iter();
            let mut by_next = Vec::new();
            while let Some(s) = it.next() {
                by_next.push(s);
                assert_eq!(
                    it.size_hint(),
                    (a.len() - by_next.len(), Some(a.len() - by_next.len()))
                );
            }
            assert_eq!(by_next, expected);
            let folded = a.iter().fold(Vec::new(), |mut v, s| {
                v.push(s);
                v
            });
            assert_eq!(folded, expected);
            // Part read one at a time, the rest folded.
            for at in [1, 63, 64, 65, 100, 299] {
                let mut half = a.iter();
                let first: Vec<Slot> = half.by_ref().take(at).collect();
                let mixed = half.fold(first, |mut v, s| {
                    v.push(s);
                    v
                });
                assert_eq!(mixed, expected, "folded after {at}");
            }
        }
    }

    #[test]
    fn map_keeps_unchanged_stretches_and_drops_calls() {
        let r = Run::of((0..10).map(slot).collect());
        let mapped = r.map(|i, mut s| match i {
            3 => None,
            5 => {
                s.bytes = 0.5;
                Some(s)
            }
            _ => Some(s),
        });
        assert_eq!(origins(&mapped), vec![0, 1, 2, 4, 5, 6, 7, 8, 9]);
        assert_eq!(mapped.get(4).map(|s| s.bytes), Some(0.5));
        // 0..3, 4..5, the changed 5, 6..10.
        assert_eq!(mapped.pieces.len(), 4, "{:?}", mapped.pieces);
        assert_eq!(mapped.len(), 9);
    }

    #[test]
    fn edits_split_pieces_without_copying_the_baseline() {
        let mut r = Run::of((0..10).map(slot).collect());
        let mut changed = slot(3);
        changed.bytes = 99.0;
        r.set(3, changed);
        assert_eq!(r.get(3).map(|s| s.bytes), Some(99.0));
        assert_eq!(r.position(3), Some(3));
        let moved = r.remove(0).unwrap();
        r.insert(5, moved);
        assert_eq!(origins(&r), vec![1, 2, 3, 4, 5, 0, 6, 7, 8, 9]);
        assert_eq!(r.position(0), Some(5));
        assert_eq!(r.position(6), Some(6));
        r.remove(9);
        r.insert(9, slot(42));
        assert_eq!(origins(&r), vec![1, 2, 3, 4, 5, 0, 6, 7, 8, 42]);
        assert_eq!(r.len(), 10);
        assert!(r.pieces.len() <= 8, "{:?}", r.pieces);
        for (i, s) in r.iter().enumerate() {
            assert_eq!(r.get(i), Some(s));
        }
    }

    #[test]
    fn bulk_positions_and_removal_agree_with_one_at_a_time() {
        let mut r = Run::of((0..20).map(slot).collect());
        let moved = r.remove(2).unwrap();
        r.insert(10, moved);
        let mut changed = slot(14);
        changed.bytes = 1.5;
        r.set(14, changed);
        let wanted: Vec<u32> = (0..22).collect();
        let one_by_one: Vec<Option<usize>> = wanted.iter().map(|&o| r.position(o)).collect();
        assert_eq!(r.positions(&wanted), one_by_one);
        let mut bulk = r.clone();
        let at = [0, 1, 9, 10, 11, 14, 19];
        let removed = bulk.remove_sorted(&at);
        for &p in at.iter().rev() {
            r.remove(p);
        }
        assert_eq!(origins_of(&removed), vec![0, 1, 10, 2, 11, 14, 19]);
        assert_eq!(origins(&bulk), origins(&r));
        assert_eq!(bulk.len(), 13);
        assert_eq!(bulk.get(12), r.get(12));
    }

    fn origins_of(slots: &[Slot]) -> Vec<u32> {
        slots.iter().map(|s| s.origin).collect()
    }
}
