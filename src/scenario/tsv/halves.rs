//! A long trace read in two halves at once, on two threads, when that gives what reading
//! it from the start would.
//!
//! Reading is most of a long trace's run (half of it on a 10-million-call trace), and it is
//! one pass over lines that mean the same wherever they stand. So the file is cut at a line
//! end near its middle, each half read by its own [`TsvReader`] into columns, and the second
//! half's calls appended to the first's. The second reader starts with the columns the
//! file's header declares, and as after a call.
//!
//! The result is taken only where it is provably the one-pass result: both halves read
//! without error and in call order, and the first half's last call number below the second
//! half's first (so no call has lines on both sides, and no order breaks at the cut). A
//! trace with a `segment` column is read in one pass: a segment carries from call to call.
//! Anything else (an error in either half, a header in the second, a short or unusual
//! file) returns `None`, and the trace is read from the start as usual: errors are always
//! the one pass's, with its lines and columns.

use super::columns::{Column, Columns};
use super::{TsvReader, collect_part, header};
use crate::input;
use crate::scenario::Calls;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Files shorter than this are read in one pass: two threads gain little on a few
/// milliseconds of reading.
const MIN_BYTES: u64 = 8 << 20;

/// Bytes looked at for the header before the first call, and for a line end at the cut.
const WINDOW: usize = 1 << 16;

/// The calls of the trace at `path`, read in two halves at once; `None` where that is
/// not provably what reading it from the start gives, or where it would gain nothing (see
/// the module documentation).
pub(super) fn read(path: &Path) -> Option<Calls> {
    read_opened(path, MIN_BYTES, || {})
}

/// [`read`] of files of at least `min_bytes`; `opened` runs once the file is open (a test
/// replaces the file there). Both halves are read through that one open file, at their
/// offsets: a trace replaced, by name, while it is read is never half one file and half
/// the other.
fn read_opened(path: &Path, min_bytes: u64, opened: impl FnOnce()) -> Option<Calls> {
    if rayon::current_num_threads() < 2 {
        return None;
    }
    let (file, size) = input::open(path, input::Kind::Trace).ok()?;
    opened();
    if size < min_bytes {
        return None;
    }
    let start = window(&file, 0)?;
    let (columns, header_line, first_call) = before_first_call(&start)?;
    let middle = size / 2;
    let after = window(&file, middle)?;
    let cut = middle + memchr::memchr(b'\n', &after)? as u64 + 1;
    if cut <= first_call || cut >= size {
        return None;
    }
    let name = path.display().to_string();
    let mut first = TsvReader::new(At::new(&file, 0, Some(cut)), name.clone());
    let second = At::new(&file, cut, None);
    let mut second = TsvReader::continuing(second, name, columns, header_line);
    first.lines.limit = input::MAX_TRACE_BYTES;
    second.lines.limit = input::MAX_TRACE_BYTES;
    join(|| collect_part(first), || collect_part(second))
}

/// A part of an open file read at its own offsets (`pread`), so that two parts are read
/// through one handle at once without sharing a file position.
struct At<'a> {
    file: &'a File,
    offset: u64,
    /// Where the part ends; `None`: at the end of the file.
    end: Option<u64>,
}

impl<'a> At<'a> {
    fn new(file: &'a File, offset: u64, end: Option<u64>) -> Self {
        At { file, offset, end }
    }
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = match self.end {
            Some(end) => usize::try_from(end.saturating_sub(self.offset)).unwrap_or(usize::MAX),
            None => usize::MAX,
        };
        let want = buf.len().min(room);
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

/// The calls of two halves read by `first` and `second` at once, if they join as one pass
/// would read them (see the module documentation).
fn join<A, B>(first: A, second: B) -> Option<Calls>
where
    A: FnOnce() -> Result<Option<super::Part>, crate::error::Error> + Send,
    B: FnOnce() -> Result<Option<super::Part>, crate::error::Error> + Send,
{
    let (a, b) = rayon::join(first, second);
    let (mut a, b) = (a.ok()??, b.ok()??);
    if a.last >= b.first {
        return None;
    }
    a.calls.append(b.calls);
    a.calls.shrink_to_fit();
    Some(a.calls)
}

/// Up to [`WINDOW`] bytes of `file` from `offset`.
fn window(file: &File, offset: u64) -> Option<Vec<u8>> {
    let mut bytes = Vec::with_capacity(WINDOW);
    At::new(file, offset, Some(offset + WINDOW as u64))
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

/// The columns that the lines before the first call declare, the line of their header, and
/// the byte offset of the first call's line; `None` when the first call is not within
/// `start`, a header is malformed, or a column makes halves unsafe (`segment`).
fn before_first_call(start: &[u8]) -> Option<(Columns, Option<usize>, u64)> {
    let mut columns = Columns::default();
    let mut header_line = None;
    let mut offset = 0;
    for (i, raw) in start.split_inclusive(|&b| b == b'\n').enumerate() {
        if raw.last() != Some(&b'\n') {
            return None; // the window cut this line: look no further
        }
        let line = &raw[..raw.len() - 1];
        let line = if i == 0 {
            line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line)
        } else {
            line
        };
        let text = std::str::from_utf8(line).ok()?;
        let text = text.strip_suffix('\r').unwrap_or(text);
        if let Some(comment) = text.strip_prefix('#') {
            if let Some(names) = header(comment) {
                if header_line.is_some() {
                    return None; // a second header: the one pass says what is wrong
                }
                columns = Columns::parse(names, text.len() - names.len()).ok()?;
                header_line = Some(i + 1);
            }
        } else if !text.trim().is_empty() {
            if columns.has(Column::Segment) {
                return None;
            }
            return Some((columns, header_line, offset));
        }
        offset += raw.len() as u64;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::{TsvReader, collect_part, parse_tsv};
    use super::*;

    /// `text` read in two halves cut after byte `cut` (a line end), as [`read`] would.
    fn halves(text: &str, cut: usize) -> Option<Calls> {
        let (columns, header_line, first_call) = before_first_call(text.as_bytes())?;
        if cut as u64 <= first_call {
            return None;
        }
        let (a, b) = text.split_at(cut);
        let first = TsvReader::new(a.as_bytes(), "t.tsv".into());
        let second = TsvReader::continuing(b.as_bytes(), "t.tsv".into(), columns, header_line);
        join(|| collect_part(first), || collect_part(second))
    }

    /// Wherever the cut, two halves give what one pass gives, or nothing.
    fn check(text: &str) -> usize {
        let whole = parse_tsv(text, "t.tsv");
        let mut taken = 0;
        for (cut, _) in text.match_indices('\n') {
            if let Some(calls) = halves(text, cut + 1) {
                let whole = whole.as_ref().expect("halves only where one pass reads it");
                assert!(calls == *whole, "cut after byte {cut} of {text:?}");
                let ids = |c: &Calls| c.iter().map(|c| c.id.to_string()).collect::<Vec<_>>();
                assert_eq!(ids(&calls), ids(whole));
                taken += 1;
            }
        }
        taken
    }

    #[test]
    fn two_halves_give_what_one_pass_gives_or_nothing() {
        // Plain, joined lines, kinds, a header with columns, comments and blanks, a BOM.
        let plain = "1\ta\t5\n2\tb\t6\n3\tc\t7\n4\td\t8\n";
        assert_eq!(check(plain), 3);
        let joined = "1\ta\t5\n2\tb\t6\n2\tb2\t1\n3\tc\t7\n";
        // Not between the two lines of call 2.
        assert_eq!(check(joined), 2);
        let kinds = "# number\tlabel\tbytes\ttokens\tkind\n1\ta\t5\t\tdoc\n2\tb\t\t9\n# note\n\n3\tc\t7\t1\tweb_search\n4\td\t1\t\tdoc\n";
        assert!(check(kinds) >= 3);
        let bom = "\u{feff}1\ta\t5\n2\tb\t6\n3\t\u{feff}c\t7\n";
        assert_eq!(check(bom), 2);
    }

    #[test]
    fn anything_unusual_is_left_to_one_pass() {
        // Out of order across the cut, a bad line, a header after calls, segments.
        for text in [
            "3\ta\t5\n1\tb\t6\n",
            "1\ta\t5\n2\tb\tx\n3\tc\t7\n",
            "1\ta\t5\n# number\tlabel\tbytes\n2\tb\t6\n",
            "# number\tlabel\tbytes\tsegment\n1\ta\t5\t1\n2\tb\t6\t2\n",
            "1\ta\t5\n2\tb\t6\n2\tc\t7\n",
        ] {
            for (cut, _) in text.match_indices('\n') {
                let got = halves(text, cut + 1);
                match (&got, parse_tsv(text, "t.tsv")) {
                    (None, _) => {}
                    (Some(calls), Ok(whole)) => assert!(*calls == whole, "{text:?} cut {cut}"),
                    (Some(_), Err(e)) => panic!("{text:?} cut {cut}: halves read, one pass: {e}"),
                }
            }
        }
        assert!(halves("1\ta\t5\n2\tb\tx\n3\tc\t7\n", 6).is_none());
        assert!(halves("3\ta\t5\n1\tb\t6\n", 6).is_none());
    }

    #[test]
    fn a_trace_replaced_while_it_is_read_is_read_as_the_file_first_opened() {
        // Two traces of one length, call for call, that differ in every label: a reader
        // that opened the path again after the rename would join one's first half to the
        // other's second half.
        let dir = tempfile::tempdir().unwrap();
        let trace = |label: &str| -> String {
            (1..=2000)
                .map(|i| format!("{i}\t{label}\t{}\n", 100 + i))
                .collect()
        };
        let (old, new) = (trace("old"), trace("new"));
        let path = dir.path().join("t.tsv");
        let replacement = dir.path().join("t.tsv.new");
        std::fs::write(&path, &old).unwrap();
        std::fs::write(&replacement, &new).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let calls = pool
            .install(|| read_opened(&path, 0, || std::fs::rename(&replacement, &path).unwrap()))
            .expect("a plain trace is read in halves");
        assert!(calls == parse_tsv(&old, "t.tsv").unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), new);
    }
}
