//! Lines of a reader, from one buffer refilled as it is consumed: constant memory, one
//! `read` per buffer, no allocation per line.
//!
//! A trace's lines are short (30 bytes is usual), so work per line dominates its reading.
//! Each buffer of complete lines is checked as UTF-8 once, and its tabs and line ends are
//! found by one scan eight bytes at a time: a line is handed out as text with the places
//! of its tabs, not searched again byte by byte.

use std::io::{self, Read};

/// Bytes read at a time.
const CHUNK: u64 = 1 << 18;

/// One line: its 1-based number, and its text without `\n` with the byte offsets of its
/// tabs, or its bytes when they are not UTF-8.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Line<'a> {
    Text {
        number: usize,
        text: &'a str,
        tabs: &'a [u32],
        /// Byte offset of `text` in the buffer, which `tabs` count from.
        start: u32,
    },
    NotUtf8 {
        number: usize,
        bytes: &'a [u8],
    },
}

/// Lines of a reader, split at `\n`, from a buffer that is refilled as it is consumed.
#[derive(Debug)]
pub(super) struct Lines<R> {
    reader: R,
    /// Complete lines read, checked as UTF-8; those from `pos` are not yet handed out.
    text: String,
    pos: usize,
    /// Byte offsets of the tabs and line ends of `text`, in order; from `sep` not yet
    /// passed.
    seps: Vec<u32>,
    sep: usize,
    /// Bytes read after the last complete line (a line the buffer's end cut).
    tail: Vec<u8>,
    /// The line, after those of `text`, that is not UTF-8.
    bad: Option<Vec<u8>>,
    /// Whether the line that is not UTF-8 was handed out.
    failed: bool,
    eof: bool,
    read: u64,
    /// Bytes read beyond which reading stops with `FileTooLarge`.
    pub(super) limit: u64,
    /// The 1-based number of the line last returned.
    number: usize,
}

impl<R: Read> Lines<R> {
    pub(super) fn new(reader: R) -> Self {
        Lines {
            reader,
            text: String::new(),
            pos: 0,
            seps: Vec::new(),
            sep: 0,
            tail: Vec::new(),
            bad: None,
            failed: false,
            eof: false,
            read: 0,
            limit: u64::MAX,
            number: 0,
        }
    }

    /// Numbers the lines from 2: the reader does not start at the file's first line.
    pub(super) fn skip_first(&mut self) {
        self.number = 1;
    }

    /// The next line, or `None` at the end.
    pub(super) fn next(&mut self) -> io::Result<Option<Line<'_>>> {
        while self.pos == self.text.len() {
            if self.failed {
                return Ok(None);
            }
            if self.bad.is_some() {
                // Nothing is read after a line that is not UTF-8: its error ends the read.
                self.failed = true;
                self.number += 1;
                let bytes = self.bad.as_deref().unwrap_or_default();
                return Ok(Some(Line::NotUtf8 {
                    number: self.number,
                    bytes,
                }));
            }
            if self.eof && self.tail.is_empty() {
                return Ok(None);
            }
            self.refill()?;
        }
        let from = self.sep;
        // `text` ends with a line end, so a line end is always found.
        let mut end = self.sep;
        while self.text.as_bytes()[self.seps[end] as usize] == b'\t' {
            end += 1;
        }
        let line_end = self.seps[end] as usize;
        self.sep = end + 1;
        let start = self.pos;
        self.pos = line_end + 1;
        self.number += 1;
        Ok(Some(Line::Text {
            number: self.number,
            text: &self.text[start..line_end],
            tabs: &self.seps[from..end],
            start: start as u32,
        }))
    }

    /// Reads until the buffer holds at least one complete line (the last line of the
    /// file is complete at its end), checks it as UTF-8 and finds its separators.
    fn refill(&mut self) -> io::Result<()> {
        let mut bytes = std::mem::take(&mut self.text).into_bytes();
        bytes.clear();
        bytes.append(&mut self.tail);
        let mut scanned = 0;
        let complete = loop {
            if let Some(i) = memchr::memrchr(b'\n', &bytes[scanned..]) {
                break scanned + i + 1;
            }
            scanned = bytes.len();
            if self.eof {
                if !bytes.is_empty() {
                    bytes.push(b'\n');
                }
                break bytes.len();
            }
            let n = loop {
                match (&mut self.reader).take(CHUNK).read_to_end(&mut bytes) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            self.read += n as u64;
            if self.read > self.limit {
                return Err(io::ErrorKind::FileTooLarge.into());
            }
            self.eof = n == 0;
        };
        self.tail.extend_from_slice(&bytes[complete..]);
        bytes.truncate(complete);
        self.text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                // Hand out the lines before the bad one, then it.
                let valid = e.utf8_error().valid_up_to();
                let mut bytes = e.into_bytes();
                let line_start = memchr::memrchr(b'\n', &bytes[..valid]).map_or(0, |i| i + 1);
                let line_end =
                    memchr::memchr(b'\n', &bytes[valid..]).map_or(bytes.len(), |i| valid + i);
                self.bad = Some(bytes[line_start..line_end].to_vec());
                bytes.truncate(line_start);
                String::from_utf8(bytes).unwrap_or_default()
            }
        };
        self.pos = 0;
        self.sep = 0;
        separators(self.text.as_bytes(), &mut self.seps);
        Ok(())
    }
}

/// The byte offsets of the tabs and line ends of `text`, in order, into `out`: eight
/// bytes at a time, each word's matching bytes found by bit arithmetic (three times as fast
/// as `memchr2_iter` on a trace, whose separators are a few bytes apart).
fn separators(text: &[u8], out: &mut Vec<u32>) {
    /// The bytes of `x` that are zero, as their high bit, exactly (no carry crosses a
    /// byte: `(x & 0x7f) + 0x7f` is at most `0xfe`).
    fn zero_bytes(x: u64) -> u64 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        !(((x & LOW7).wrapping_add(LOW7)) | x) & !LOW7
    }
    const TABS: u64 = 0x0909_0909_0909_0909;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    out.clear();
    let mut words = text.chunks_exact(8);
    let mut at = 0u32;
    for word in &mut words {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(word);
        let x = u64::from_le_bytes(bytes);
        let mut found = zero_bytes(x ^ TABS) | zero_bytes(x ^ NEWLINES);
        while found != 0 {
            out.push(at + found.trailing_zeros() / 8);
            found &= found - 1;
        }
        at += 8;
    }
    for (i, &b) in words.remainder().iter().enumerate() {
        if b == b'\t' || b == b'\n' {
            out.push(at + i as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::tests::Trickle;

    /// A line as read: its text and tabs, or its bytes when not UTF-8.
    type LineRead = Result<(String, Vec<u32>), Vec<u8>>;

    /// Every line as (number, text, tabs relative to the line) or its bytes, read through
    /// a reader that hands out `step` bytes at a time.
    fn lines(input: &[u8], step: usize) -> Vec<(usize, LineRead)> {
        let mut l = Lines::new(Trickle(input, step));
        let mut out = Vec::new();
        while let Some(line) = l.next().unwrap() {
            out.push(match line {
                Line::Text {
                    number,
                    text,
                    tabs,
                    start,
                } => (
                    number,
                    Ok((text.to_string(), tabs.iter().map(|t| t - start).collect())),
                ),
                Line::NotUtf8 { number, bytes } => (number, Err(bytes.to_vec())),
            });
        }
        out
    }

    #[test]
    fn lines_come_with_their_tabs_whatever_the_reads() {
        let input = "1\ta\t5\n\n2\tbé\t6\r\nlast\tno end";
        for step in [1, 2, 3, 7, 1 << 20] {
            assert_eq!(
                lines(input.as_bytes(), step),
                vec![
                    (1, Ok(("1\ta\t5".to_string(), vec![1, 3]))),
                    (2, Ok((String::new(), vec![]))),
                    (3, Ok(("2\tbé\t6\r".to_string(), vec![1, 5]))),
                    (4, Ok(("last\tno end".to_string(), vec![4]))),
                ],
                "step {step}"
            );
        }
        assert!(lines(b"", 4).is_empty());
        assert_eq!(lines(b"\n", 4), vec![(1, Ok((String::new(), vec![])))]);
    }

    #[test]
    fn a_line_not_utf8_comes_after_the_lines_before_it_and_ends_them() {
        let input = b"1\ta\t5\n2\tb\xff\t6\n3\tc\t7\n";
        for step in [1, 5, 1 << 20] {
            assert_eq!(
                lines(input, step),
                vec![
                    (1, Ok(("1\ta\t5".to_string(), vec![1, 3]))),
                    (2, Err(b"2\tb\xff\t6".to_vec())),
                ],
                "step {step}"
            );
        }
    }

    /// The separators found eight bytes at a time are those a plain search finds, for
    /// every byte value around them and every alignment.
    #[test]
    fn separators_are_those_a_plain_search_finds() {
        let mut text: Vec<u8> = (0..=255u8).collect();
        text.extend(b"\t\t\n\t\x89\x8a\x0b\x08\n");
        for start in 0..9 {
            let t = &text[start..];
            let mut found = Vec::new();
            separators(t, &mut found);
            let plain: Vec<u32> = (0..t.len() as u32)
                .filter(|&i| matches!(t[i as usize], b'\t' | b'\n'))
                .collect();
            assert_eq!(found, plain, "from {start}");
        }
    }

    #[test]
    fn reading_past_the_limit_fails() {
        let mut l = Lines::new(&b"1\ta\t5\n2\tb\t6\n"[..]);
        l.limit = 4;
        assert_eq!(l.next().unwrap_err().kind(), io::ErrorKind::FileTooLarge);
    }
}
