//! Lines of a reader, from one buffer refilled as it is consumed: constant memory, one
//! `read` per buffer, no allocation per line.

use std::io::{self, Read};

/// Lines of a reader, split at `\n`, from a buffer that is refilled as it is consumed.
#[derive(Debug)]
pub(super) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
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
            buf: vec![0; 1 << 18],
            start: 0,
            end: 0,
            eof: false,
            read: 0,
            limit: u64::MAX,
            number: 0,
        }
    }

    /// The next line's 1-based number and text without its `\n`, or `None` at the end.
    pub(super) fn next(&mut self) -> io::Result<Option<(usize, &[u8])>> {
        let mut scanned = 0;
        loop {
            let unread = &self.buf[self.start + scanned..self.end];
            if let Some(i) = memchr::memchr(b'\n', unread) {
                let line_start = self.start;
                let line_end = self.start + scanned + i;
                self.start = line_end + 1;
                self.number += 1;
                return Ok(Some((self.number, &self.buf[line_start..line_end])));
            }
            scanned = self.end - self.start;
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let line_start = self.start;
                self.start = self.end;
                self.number += 1;
                return Ok(Some((self.number, &self.buf[line_start..self.end])));
            }
            // Keep the partial line, make room, read more.
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.end == self.buf.len() {
                self.buf.resize(self.buf.len() * 2, 0);
            }
            let n = match self.reader.read(&mut self.buf[self.end..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.read += n as u64;
            if self.read > self.limit {
                return Err(io::ErrorKind::FileTooLarge.into());
            }
            self.end += n;
            self.eof = n == 0;
        }
    }
}
