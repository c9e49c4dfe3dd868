//! The lines of one call, joined; and the segments of calls in call order.

use super::line;
use super::{TsvCall, char_column};
use crate::error::Located;
use crate::scenario::{CallRef, Id};
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// The lines of one call read so far.
#[derive(Debug, Default)]
pub(super) struct Group {
    pub(super) number: u64,
    line: usize,
    /// Its lines' labels joined with `+` (a buffer reused from call to call).
    label: String,
    bytes: f64,
    tokens: f64,
    output_tokens: f64,
    measured: bool,
    kind: Option<(Arc<str>, usize)>,
    pub(super) segment: Option<(u64, (usize, usize))>,
    gap_s: Option<(f64, usize)>,
    pinned: Option<(bool, usize)>,
}

impl Group {
    /// Starts over with `row`, the first line of a call, on line `line`.
    #[inline]
    pub(super) fn start(
        &mut self,
        row: &line::Row,
        line: usize,
        kind: Option<Arc<str>>,
        text: &str,
    ) {
        self.number = row.number;
        self.line = line;
        self.label.clear();
        self.label.push_str(row.label);
        self.bytes = row.bytes.unwrap_or(0) as f64;
        self.tokens = row.tokens.unwrap_or(0) as f64;
        self.output_tokens = row.output_tokens.unwrap_or(0) as f64;
        self.measured = row.tokens.is_some();
        self.kind = kind.map(|k| (k, line));
        self.segment = row
            .segment
            .map(|(s, at)| (s, (line, char_column(text, at))));
        self.gap_s = row.gap_s.map(|(g, _)| (g, line));
        self.pinned = row.pinned.map(|(p, _)| (p, line));
    }

    /// Adds a line of the same call; the byte offset of a field that disagrees, and why.
    pub(super) fn join(
        &mut self,
        row: &line::Row,
        line: usize,
        text: &str,
    ) -> Result<(), line::LineError> {
        self.label.push('+');
        self.label.push_str(row.label);
        self.bytes += row.bytes.unwrap_or(0) as f64;
        self.tokens += row.tokens.unwrap_or(0) as f64;
        self.output_tokens += row.output_tokens.unwrap_or(0) as f64;
        self.measured |= row.tokens.is_some();
        let differs = |key: &str, here: String, there: String, first: usize| {
            format!(
                "{key} {here} differs from {there} on line {first}; the lines of one call must agree on {key}"
            )
        };
        if let Some(kind) = row.kind {
            match &self.kind {
                Some((k, first)) if &**k != kind => {
                    return Err((
                        row.kind_at,
                        differs("kind", format!("`{kind}`"), format!("`{k}`"), *first),
                    ));
                }
                Some(_) => {}
                None => self.kind = Some((Arc::from(kind), line)),
            }
        }
        if let Some((segment, at)) = row.segment {
            match self.segment {
                Some((s, (first, _))) if s != segment => {
                    return Err((
                        at,
                        differs("segment", segment.to_string(), s.to_string(), first),
                    ));
                }
                Some(_) => {}
                None => self.segment = Some((segment, (line, char_column(text, at)))),
            }
        }
        if let Some((gap, at)) = row.gap_s {
            match self.gap_s {
                Some((g, first)) if g != gap => {
                    return Err((at, differs("gap_s", gap.to_string(), g.to_string(), first)));
                }
                Some(_) => {}
                None => self.gap_s = Some((gap, line)),
            }
        }
        if let Some((pinned, at)) = row.pinned {
            match self.pinned {
                Some((p, first)) if p != pinned => {
                    return Err((
                        at,
                        differs("pinned", pinned.to_string(), p.to_string(), first),
                    ));
                }
                Some(_) => {}
                None => self.pinned = Some((pinned, line)),
            }
        }
        Ok(())
    }

    /// The call, of id `id` (its number in decimal), of kind `default_kind` unless its
    /// lines give one, in `segment`.
    #[inline]
    pub(super) fn call_ref<'a>(
        &'a self,
        id: Id<'a>,
        default_kind: &'a str,
        segment: u64,
    ) -> CallRef<'a> {
        let kind = self.kind.as_ref().map_or(default_kind, |(k, _)| &**k);
        CallRef {
            id,
            label: &self.label,
            kind,
            bytes: self.bytes,
            tokens: self.tokens,
            output_tokens: self.output_tokens,
            pinned: self.pinned.map_or_else(|| kind == "web_search", |(p, _)| p),
            segment,
            gap_s: self.gap_s.map_or(0.0, |(g, _)| g),
            measured: self.measured,
            detail: None,
        }
    }

    /// Puts the call into `out` (reusing its storage), of kind `default_kind` unless its
    /// lines give one; its segment is left for [`Segments::assign`].
    pub(super) fn fill(&self, out: &mut TsvCall, default_kind: &Arc<str>) {
        out.number = self.number;
        out.line = self.line;
        out.segment = self.segment;
        out.given = Given {
            kind: self.kind.as_ref().map(|(_, line)| *line),
            gap_s: self.gap_s.map(|(_, line)| line),
            pinned: self.pinned.map(|(_, line)| line),
        };
        let id = Id::number(self.number);
        let r = self.call_ref(id, default_kind, 0);
        let c = &mut out.call;
        c.id.clear();
        c.id.push_str(&id);
        c.label.clear();
        c.label.push_str(&self.label);
        let kind = self.kind.as_ref().map_or(default_kind, |(k, _)| k);
        // Most calls give no kind: keep the shared default without touching its count.
        if !Arc::ptr_eq(&c.kind, kind) {
            c.kind = Arc::clone(kind);
        }
        c.pinned = r.pinned;
        c.bytes = r.bytes;
        c.tokens = r.tokens;
        c.output_tokens = r.output_tokens;
        c.segment = 0;
        c.gap_s = r.gap_s;
        c.measured = r.measured;
        c.detail = None;
    }
}

/// The lines on which a call's lines give its kind, gap and pinning (None: not given, a
/// default stands), so calls with one number read apart can still be joined and checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Given {
    pub kind: Option<usize>,
    pub gap_s: Option<usize>,
    pub pinned: Option<usize>,
}

/// Joins `next` into `call`, two calls with one number read apart (the seed's format sums
/// lines with one number wherever they stand): bytes, tokens and output tokens summed,
/// labels joined with `+` in file order; kind, segment, gap and pinning given by both
/// must agree, given by one stand.
///
/// Errors: a field both give differently, located at `next`'s line.
pub(super) fn absorb(call: &mut TsvCall, next: TsvCall, file: &str) -> Result<(), Located> {
    let differs = |(key, here, there, first): Disagreement| {
        Located::new(
            file,
            format!(
                "{key} {here} differs from {there} on line {first}; the lines of one call must agree on {key}"
            ),
        )
        .at(Some((next.line, 1)))
        .place(format!("call {}", next.number))
    };
    let (c, n) = (&mut call.call, &next.call);
    let (given, theirs) = (&mut call.given, next.given);
    agree(
        "kind",
        (&mut c.kind, &mut given.kind),
        (&n.kind, theirs.kind),
        |k| format!("`{k}`"),
    )
    .map_err(differs)?;
    agree(
        "gap_s",
        (&mut c.gap_s, &mut given.gap_s),
        (&n.gap_s, theirs.gap_s),
        f64::to_string,
    )
    .map_err(differs)?;
    agree(
        "pinned",
        (&mut c.pinned, &mut given.pinned),
        (&n.pinned, theirs.pinned),
        bool::to_string,
    )
    .map_err(differs)?;
    // Neither gives the pinning: the default follows the kind, as for one call.
    if call.given.pinned.is_none() {
        c.pinned = &*c.kind == "web_search";
    }
    match (call.segment, next.segment) {
        (Some((s, (first, _))), Some((t, _))) if s != t => {
            return Err(differs(("segment", t.to_string(), s.to_string(), first)));
        }
        (None, Some(given)) => call.segment = Some(given),
        _ => {}
    }
    c.label.push('+');
    c.label.push_str(&n.label);
    c.bytes += n.bytes;
    c.tokens += n.tokens;
    c.output_tokens += n.output_tokens;
    c.measured |= n.measured;
    Ok(())
}

/// A field two calls with one number give differently: its key, the second's value, the
/// first's, and the line where the first gives it.
type Disagreement = (&'static str, String, String, usize);

/// A field of two calls with one number: where both give it, they must agree; where only
/// the second does, it stands.
fn agree<T: PartialEq + Clone>(
    key: &'static str,
    (mine, my_line): (&mut T, &mut Option<usize>),
    (theirs, their_line): (&T, Option<usize>),
    show: impl Fn(&T) -> String,
) -> Result<(), Disagreement> {
    match (*my_line, their_line) {
        (Some(first), Some(_)) if *mine != *theirs => Err((key, show(theirs), show(mine), first)),
        (None, Some(line)) => {
            *mine = theirs.clone();
            *my_line = Some(line);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Gives calls their segments in call order (docs/model.md §2: the previous call's when not
/// given, the first is 1) and checks that each segment's calls are contiguous. Keeps the
/// numbers of the segments already finished.
#[derive(Debug, Default)]
pub struct Segments {
    previous: Option<u64>,
    finished: FxHashSet<u64>,
}

impl Segments {
    /// The segment of call `number`, the next call in call order: `given` by its lines
    /// (with where), else the previous call's.
    ///
    /// Errors: a segment that comes back after another, located where it is given.
    #[inline]
    pub fn assign(
        &mut self,
        number: u64,
        given: Option<(u64, (usize, usize))>,
        file: &str,
    ) -> Result<u64, Located> {
        // The usual case: no segment given, the previous call's goes on.
        if let (None, Some(previous)) = (given, self.previous) {
            return Ok(previous);
        }
        self.assign_new(number, given, file)
    }

    /// [`Segments::assign`] for a call that gives a segment, or the first.
    fn assign_new(
        &mut self,
        number: u64,
        given: Option<(u64, (usize, usize))>,
        file: &str,
    ) -> Result<u64, Located> {
        let segment = given.map_or(self.previous.unwrap_or(1), |(s, _)| s);
        if let Some(previous) = self.previous.filter(|p| *p != segment) {
            self.finished.insert(previous);
            if self.finished.contains(&segment) {
                return Err(Located::new(
                    file,
                    format!("segment {segment} appears again after segment {previous}; a segment's calls must be contiguous"),
                )
                .at(given.map(|(_, at)| at))
                .place(format!("call {number}")));
            }
        }
        self.previous = Some(segment);
        Ok(segment)
    }
}
