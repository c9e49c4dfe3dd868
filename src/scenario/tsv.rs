//! `calls_tsv` traces: one call a line, `number<TAB>label<TAB>bytes`, and optional columns
//! a `#` header declares.
//!
//! Lines with the same number are one call (one shell command that reads several files is
//! one call): bytes, tokens and output tokens are summed, labels joined with `+` in file
//! order, and kind, segment, gap and pinning must agree, wherever the lines stand (as the
//! seed's own script sums them). Calls are ordered by number. Reading streams while the
//! lines of each call are adjacent and the numbers rise (the usual trace); a trace out of
//! order, or with a number that comes back after others, is read whole and sorted. Blank lines and
//! `#` comments are skipped; a UTF-8 byte-order mark is accepted; any other malformed
//! line is an error naming the line and the column of the bad field.
//!
//! [`TsvReader`] reads a trace line by line in constant memory and yields joined calls in
//! file order; the whole-file [`read_tsv`] and the streaming [`Trace`] both go through it,
//! so the two cannot disagree on what a trace means.

mod columns;
mod group;
mod halves;
mod line;
mod lines;
mod trace;

use super::{Call, Calls, Id};
use crate::error::{Error, Located};
use crate::input;
use columns::Columns;
use compact_str::CompactString;
use group::Group;
pub use group::{Given, Segments};
use lines::Lines;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};
pub use trace::{Trace, TraceCalls};

/// Reads the trace at `path` into calls in call order (see the module documentation).
///
/// Errors: [`Error::Unreadable`]; [`Error::Input`] for a file that is not a regular file
/// or is over 1 GiB (no line), a malformed line (line and column), or a trace without
/// calls (no line).
pub fn read_tsv(path: &Path) -> Result<Calls, Error> {
    // A long trace in two halves at once where that is provably the same (`halves`).
    if let Some(calls) = halves::read(path) {
        return Ok(calls);
    }
    collect(|| TsvReader::open(path))
}

/// The calls of the trace at `path`, sorted by number (a trace out of order, which
/// [`Trace`] holds).
fn read_sorted(path: &Path) -> Result<Vec<Call>, Error> {
    collect_sorted(TsvReader::open(path)?)
}

/// Parses trace text; `file` names it in errors.
pub fn parse_tsv(text: &str, file: &str) -> Result<Calls, Located> {
    collect(|| Ok(TsvReader::new(text.as_bytes(), file.to_string()))).map_err(|e| match e {
        Error::Input(l) => l,
        other => Located::new(file, other.to_string()),
    })
}

/// One call of a trace as read, before it is put in call order.
#[derive(Debug, Clone, PartialEq)]
pub struct TsvCall {
    /// The call number.
    pub number: u64,
    /// The 1-based line of its first line.
    pub line: usize,
    /// The segment its lines give, with the line and column where it is given.
    pub segment: Option<(u64, (usize, usize))>,
    /// Where its lines give its kind, gap and pinning.
    pub given: Given,
    /// The call; its `segment` is set by [`Segments::assign`] once the order is known. Its
    /// id is `number` in decimal.
    pub call: Call,
}

/// Reads a trace line by line and yields its calls, lines of one call joined, in file
/// order. Memory is constant in the number of calls (a buffer of a few hundred KiB, and
/// the longest line).
#[derive(Debug)]
pub struct TsvReader<R> {
    lines: Lines<R>,
    file: String,
    columns: Columns,
    header_line: Option<usize>,
    /// A `#` line before the first call that names columns but is not a header (spaces
    /// for tabs, capitals, another order): named when a line then fails.
    near_header: Option<usize>,
    seen_call: bool,
    /// The call whose lines are being read (if `pending`), and the one finished before
    /// it, which [`TsvReader::next_group`] hands out: `groups[reading]` and the other.
    groups: [Group; 2],
    reading: usize,
    pending: bool,
    /// The default kind, shared by every call that gives none.
    tool: Arc<str>,
    /// Kinds seen so far, shared by the calls that give them.
    kinds: Vec<Arc<str>>,
    done: bool,
}

impl TsvReader<File> {
    /// Opens the trace at `path`: a regular file of at most 1 GiB.
    ///
    /// Errors: those of [`input::open`].
    pub fn open(path: &Path) -> Result<Self, Error> {
        let (file, _) = input::open(path, input::Kind::Trace)?;
        let mut reader = TsvReader::new(file, path.display().to_string());
        reader.lines.limit = input::MAX_TRACE_BYTES;
        Ok(reader)
    }
}

impl<R: Read> TsvReader<R> {
    /// Reads a trace from `reader`; `file` names it in errors.
    pub fn new(reader: R, file: String) -> Self {
        TsvReader {
            lines: Lines::new(reader),
            file,
            columns: Columns::default(),
            header_line: None,
            near_header: None,
            seen_call: false,
            groups: Default::default(),
            reading: 0,
            pending: false,
            tool: Arc::clone(&BLANK_KIND),
            kinds: Vec::new(),
            done: false,
        }
    }

    /// A reader of the rest of a trace from a line end after its first call: under
    /// `columns` (those its header declares, on `header_line`), as after a call (a header
    /// from here on is an error). Its line numbers are not the file's: it serves only
    /// where its calls, not its errors, are used (`halves`).
    fn continuing(reader: R, file: String, columns: Columns, header_line: Option<usize>) -> Self {
        let mut r = TsvReader::new(reader, file);
        r.columns = columns;
        r.header_line = header_line;
        r.seen_call = true;
        // Not line 1: a byte-order mark is only the file's first bytes.
        r.lines.skip_first();
        r
    }

    /// The name of the file, as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Reads the next joined call into `out`, reusing its storage; `false` at the end.
    /// (The streaming passes use this; [`Iterator::next`] returns a fresh call each time.)
    ///
    /// Errors: [`Error::Input`] locating a bad line; [`Error::Unreadable`].
    pub fn read_call(&mut self, out: &mut TsvCall) -> Result<bool, Error> {
        let more = self.next_joined()?;
        if more {
            self.groups[self.reading ^ 1].fill(out, &self.tool);
        }
        Ok(more)
    }

    /// The next joined call as its lines read, None at the end: what [`read_call`]
    /// fills a call from, read in place (a trace read into columns copies nothing else).
    ///
    /// Errors: those of [`TsvReader::read_call`].
    ///
    /// [`read_call`]: TsvReader::read_call
    fn next_group(&mut self) -> Result<Option<(&Group, &str)>, Error> {
        Ok(self
            .next_joined()?
            .then_some((&self.groups[self.reading ^ 1], &*self.tool)))
    }

    /// Finishes the next joined call (the group [`TsvReader::next_group`] hands out);
    /// `false` at the end.
    fn next_joined(&mut self) -> Result<bool, Error> {
        if self.done {
            return Ok(false);
        }
        let read = self.advance();
        if !matches!(read, Ok(true)) {
            self.done = true;
        }
        read
    }

    fn advance(&mut self) -> Result<bool, Error> {
        loop {
            let line = match self.lines.next() {
                Ok(Some(line)) => line,
                Ok(None) => {
                    if !self.pending {
                        return Ok(false);
                    }
                    self.reading ^= 1;
                    self.pending = false;
                    return Ok(true);
                }
                Err(source) => {
                    return Err(match source.kind() {
                        io::ErrorKind::FileTooLarge => Located::new(
                            &self.file,
                            "the file grew past 1073741824 bytes (1 GiB) while being read",
                        )
                        .into(),
                        _ => Error::Unreadable {
                            path: PathBuf::from(&self.file),
                            source,
                        },
                    });
                }
            };
            let (number, text, tabs, mut shift) = match line {
                lines::Line::Text {
                    number,
                    text,
                    tabs,
                    start,
                } => (number, text, tabs, start),
                lines::Line::NotUtf8 { number, bytes } => {
                    let raw = if number == 1 {
                        bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes)
                    } else {
                        bytes
                    };
                    let valid = match std::str::from_utf8(raw) {
                        Err(e) => String::from_utf8_lossy(&raw[..e.valid_up_to()]),
                        Ok(_) => "".into(),
                    };
                    let column = valid.chars().count() + 1;
                    return Err(input::not_utf8(Path::new(&self.file), (number, column)));
                }
            };
            let text = match number {
                1 => match text.strip_prefix('\u{feff}') {
                    Some(rest) => {
                        shift += 3;
                        rest
                    }
                    None => text,
                },
                _ => text,
            };
            let text = text.strip_suffix('\r').unwrap_or(text);
            if text.is_empty() {
                continue;
            }
            if let Some(comment) = text.strip_prefix('#') {
                if let Some(columns) = header(comment) {
                    let error = |column: usize, message: String| {
                        Located::new(&self.file, message).at(Some((number, column)))
                    };
                    if self.seen_call {
                        return Err(error(
                            1,
                            "a column header must come before the first call".into(),
                        )
                        .into());
                    }
                    if let Some(first) = self.header_line {
                        return Err(error(
                            1,
                            format!("a second column header (the first is on line {first})"),
                        )
                        .into());
                    }
                    let offset = text.len() - columns.len();
                    self.columns = Columns::parse(columns, offset)
                        .map_err(|(at, message)| error(char_column(text, at), message))?;
                    self.header_line = Some(number);
                } else if !self.seen_call && self.header_line.is_none() && names_columns(comment) {
                    self.near_header.get_or_insert(number);
                }
                continue;
            }
            let row = match line::parse_split(text, tabs, shift, &self.columns) {
                Ok(row) => row,
                Err(_) if text.trim().is_empty() => continue,
                Err((at, mut message)) => {
                    if let Some(near) = self.near_header {
                        message.push_str(&format!(
                            " (line {near} names columns but is not read as a header: write it as `# number<TAB>label<TAB>bytes…`, the names in lowercase, separated by tabs, `number` first)"
                        ));
                    }
                    let at = Some((number, char_column(text, at)));
                    return Err(Located::new(&self.file, message).at(at).into());
                }
            };
            self.seen_call = true;
            let group = &mut self.groups[self.reading];
            if self.pending && group.number == row.number {
                if let Err((at, message)) = group.join(&row, number, text) {
                    let place = format!("call {}", row.number);
                    return Err(Located::new(&self.file, message)
                        .at(Some((number, char_column(text, at))))
                        .place(place)
                        .into());
                }
                continue;
            }
            let kind = row.kind.map(|k| intern(&mut self.kinds, k));
            let finished = std::mem::replace(&mut self.pending, true);
            if finished {
                // The call read so far is finished; the other group takes the next one.
                self.reading ^= 1;
            }
            self.groups[self.reading].start(&row, number, kind, text);
            if finished {
                return Ok(true);
            }
        }
    }
}

impl<R: Read> Iterator for TsvReader<R> {
    type Item = Result<TsvCall, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut call = TsvCall::default();
        match self.read_call(&mut call) {
            Ok(true) => Some(Ok(call)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// The column names of a `#` line that declares them (`# number<TAB>label<TAB>bytes…`),
/// or `None` for a comment.
fn header(comment: &str) -> Option<&str> {
    let names = comment.trim_start_matches(' ');
    let after = names.strip_prefix("number")?;
    after
        .trim_start_matches(' ')
        .starts_with('\t')
        .then_some(names)
}

/// Whether a `#` comment names columns the way a header would (`number` and `label` or
/// `bytes`, in any case, separated any way).
fn names_columns(comment: &str) -> bool {
    let words: Vec<String> = comment
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let has = |name: &str| words.iter().any(|w| w == name);
    has("number") && (has("label") || has("bytes"))
}

/// The 1-based character column of byte offset `at` in `line`.
fn char_column(line: &str, at: usize) -> usize {
    line.get(..at)
        .map_or(1, |before| before.chars().count() + 1)
}

/// One `Arc` per distinct kind, for the first few kinds; the rest get their own.
fn intern(kinds: &mut Vec<Arc<str>>, kind: &str) -> Arc<str> {
    if let Some(k) = kinds.iter().find(|k| &***k == kind) {
        return Arc::clone(k);
    }
    let k: Arc<str> = Arc::from(kind);
    if kinds.len() < 32 {
        kinds.push(Arc::clone(&k));
    }
    k
}

/// The kind of a blank call, shared so that making one allocates nothing.
static BLANK_KIND: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("tool"));

/// A call with nothing in it, to be filled in place.
pub fn blank_call() -> Call {
    Call {
        id: CompactString::default(),
        label: CompactString::default(),
        kind: Arc::clone(&BLANK_KIND),
        bytes: 0.0,
        tokens: 0.0,
        output_tokens: 0.0,
        pinned: false,
        segment: 0,
        gap_s: 0.0,
        measured: false,
        detail: None,
    }
}

impl Default for TsvCall {
    /// An empty call, to be filled by [`TsvReader::read_call`].
    fn default() -> Self {
        TsvCall {
            number: 0,
            line: 0,
            segment: None,
            given: Given::default(),
            call: blank_call(),
        }
    }
}

/// Where a call was read, for ordering, joining and messages.
struct Key {
    number: u64,
    line: usize,
    segment: Option<(u64, (usize, usize))>,
    given: Given,
}

/// Every call of the trace `open` reads, in call order, with segments assigned; calls with
/// one number read apart are joined.
///
/// A trace is read once when its calls come in order (the usual case: the calls are
/// touched once and nothing but them is kept, 10 million calls in 10 million `Call`s);
/// only a trace whose numbers come back is read a second time, keeping where each call was
/// read, to be sorted.
fn collect<R: Read>(open: impl Fn() -> Result<TsvReader<R>, Error>) -> Result<Calls, Error> {
    match collect_in_order(open()?)? {
        Some(calls) => Ok(calls),
        None => collect_sorted(open()?).map(Calls::from),
    }
}

/// The calls of `reader` if their numbers only go up; None at the first that does not.
fn collect_in_order<R: Read>(reader: TsvReader<R>) -> Result<Option<Calls>, Error> {
    Ok(collect_part(reader)?.map(|mut part| {
        part.calls.shrink_to_fit();
        part.calls
    }))
}

/// The calls a reader read in call order, and the first and last call numbers.
#[derive(Debug)]
struct Part {
    calls: Calls,
    first: u64,
    last: u64,
}

/// [`collect_in_order`], keeping spare capacity (a part may be appended to) and the first
/// and last call numbers.
fn collect_part<R: Read>(mut reader: TsvReader<R>) -> Result<Option<Part>, Error> {
    let file = reader.file().to_string();
    // By column as they are read: a 10-million-call trace never exists as `Call`s.
    let mut calls = Calls::new();
    let mut bounds: Option<(u64, u64)> = None;
    // A segment error waits until the end: were the order to break later, sorting would
    // reorder the calls and the segments with them.
    let mut segments = Segments::default();
    let mut segment_error = None;
    while let Some((group, default_kind)) = reader.next_group()? {
        match &mut bounds {
            Some((_, last)) if *last >= group.number => return Ok(None),
            Some((_, last)) => *last = group.number,
            None => bounds = Some((group.number, group.number)),
        }
        let mut segment = 0;
        if segment_error.is_none() {
            match segments.assign(group.number, group.segment, &file) {
                Ok(s) => segment = s,
                Err(e) => segment_error = Some(e),
            }
        }
        // A trace's ids are its numbers: none is written out.
        let call = group.call_ref(Id::text(""), default_kind, segment);
        calls.push_numbered(group.number, call);
    }
    let Some((first, last)) = bounds else {
        return Err(no_calls(&file).into());
    };
    match segment_error {
        Some(e) => Err(e.into()),
        None => Ok(Some(Part { calls, first, last })),
    }
}

/// The calls of `reader` sorted by number (stably: one number's calls join in file order).
fn collect_sorted<R: Read>(mut reader: TsvReader<R>) -> Result<Vec<Call>, Error> {
    let file = reader.file().to_string();
    let mut calls = Vec::new();
    let mut keys = Vec::new();
    let mut current = TsvCall::default();
    while reader.read_call(&mut current)? {
        keys.push(Key {
            number: current.number,
            line: current.line,
            segment: current.segment,
            given: current.given,
        });
        calls.push(std::mem::replace(&mut current.call, blank_call()));
    }
    if calls.is_empty() {
        return Err(no_calls(&file).into());
    }
    // The sort is stable, so calls with one number stay in file order and join so.
    let mut read: Vec<TsvCall> = keys
        .into_iter()
        .zip(calls)
        .map(|(k, call)| TsvCall {
            number: k.number,
            line: k.line,
            segment: k.segment,
            given: k.given,
            call,
        })
        .collect();
    read.sort_by_key(|c| c.number);
    let mut joined: Vec<TsvCall> = Vec::with_capacity(read.len());
    for c in read {
        match joined.last_mut() {
            Some(last) if last.number == c.number => group::absorb(last, c, &file)?,
            _ => joined.push(c),
        }
    }
    let mut segments = Segments::default();
    joined
        .into_iter()
        .map(|mut c| {
            c.call.segment = segments.assign(c.number, c.segment, &file)?;
            Ok(c.call)
        })
        .collect()
}

fn no_calls(file: &str) -> Located {
    Located::new(
        file,
        "the trace has no calls (expected lines of number<TAB>label<TAB>bytes)",
    )
}

#[cfg(test)]
mod tests;
