//! A spill: lines written to a file as they come, each under a name, and read back in
//! name order; in memory only each line's name and where it is.
//!
//! Why: files are read in path order, but every sum goes in session (name) order, and a
//! million sessions' figures do not fit in memory. `history` spills its records
//! (`stream`), `suggest` its records with its own measures beside them.

use crate::error::Error;
use crate::number::grouped;
use crate::output::set::staging::Staging;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Where a line is in the spill.
#[derive(Debug)]
struct Entry {
    name: Box<str>,
    offset: u64,
    len: u32,
}

/// A spill being written.
pub struct SpillWriter {
    spill: Spill,
    out: BufWriter<File>,
    offset: u64,
    /// The lines expected (the files to read): what the room left is checked against.
    expected: usize,
    /// The bytes of results written from the spill while it still exists, per byte of it.
    results: f64,
    /// Where the spill is, for the refusal: the folder given.
    parent: PathBuf,
}

/// `history`'s results written from its spill (`shard.jsonl`, `sessions.csv`), per byte of
/// the spill: 1.45 (74 MB from 51 MB) over `gen_history -- 10000 50` with 5 edits, 1.62
/// (29.7 GB from 18.4 GB) over `gen_history -- 1000000 50` with 22 (2026-12-03): the most
/// seen, and a little more.
pub const HISTORY_RESULTS: f64 = 1.65;

/// The spill's room is first checked after this many lines, then at every doubling.
const ROOM_CHECKED_FROM: usize = 1024;

/// The lines written, and their index by name.
#[derive(Debug)]
pub struct Spill {
    /// Removed with the spill when dropped (or on Ctrl-C), cleaned after a crash.
    _folder: Staging,
    path: PathBuf,
    /// In name order once finished.
    index: Vec<Entry>,
    /// Whether the lines came in name order (then they are read straight through).
    in_order: bool,
}

impl SpillWriter {
    /// A spill in a new staging folder in `parent` (labelled `label`), for about
    /// `capacity` lines, from which `results` bytes of results per byte of it will be
    /// written while it exists (what its room check counts: [`HISTORY_RESULTS`], or 0).
    pub fn create(
        parent: &Path,
        label: &str,
        capacity: usize,
        results: f64,
    ) -> Result<SpillWriter, Error> {
        let unwritable = |source| Error::Unwritable {
            path: parent.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(parent).map_err(unwritable)?;
        let folder = Staging::create(parent, label).map_err(unwritable)?;
        let path = folder.path().join("records.jsonl");
        let file = File::create(&path).map_err(|source| Error::Write {
            path: path.clone(),
            source,
        })?;
        Ok(SpillWriter {
            spill: Spill {
                _folder: folder,
                path,
                index: Vec::with_capacity(capacity),
                in_order: true,
            },
            out: BufWriter::with_capacity(1 << 20, file),
            offset: 0,
            expected: capacity,
            results,
            parent: parent.to_path_buf(),
        })
    }

    fn failed(&self, source: io::Error) -> Error {
        Error::Write {
            path: self.spill.path.clone(),
            source,
        }
    }

    /// Writes `line` (without a newline in it) under `name`.
    pub fn push(&mut self, name: &str, line: &str) -> Result<(), Error> {
        let len = line.len() + 1;
        let written = self
            .out
            .write_all(line.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"));
        written.map_err(|e| self.failed(e))?;
        if let Some(last) = self.spill.index.last() {
            self.spill.in_order &= *last.name < *name;
        }
        let len = u32::try_from(len).map_err(|_| self.failed(io::Error::other("line too long")))?;
        self.spill.index.push(Entry {
            name: name.into(),
            offset: self.offset,
            len,
        });
        self.offset += u64::from(len);
        let lines = self.spill.index.len();
        if lines >= ROOM_CHECKED_FROM && lines.is_power_of_two() && lines < self.expected {
            self.check_room()?;
        }
        Ok(())
    }

    /// Refuses to go on where the lines still to come, at the size of those written so
    /// far, and the results written from them would not fit in the space left on the
    /// spill's file system: a million sessions fill it after most of an hour, this says so
    /// after a thousand.
    fn check_room(&self) -> Result<(), Error> {
        // Where the free space cannot be read, the write itself will say when it fails.
        let Ok(fs) = rustix::fs::statvfs(&self.spill.path) else {
            return Ok(());
        };
        let free = fs.f_bavail.saturating_mul(fs.f_frsize);
        let room = Room {
            written: self.offset,
            lines: self.spill.index.len(),
            expected: self.expected,
            results: self.results,
        };
        match room.refusal(free) {
            None => Ok(()),
            Some(why) => Err(Error::NoRoom {
                path: self.parent.clone(),
                why,
            }),
        }
    }

    /// The spill, its lines indexed in name order.
    pub fn finish(mut self) -> Result<Spill, Error> {
        self.out.flush().map_err(|e| self.failed(e))?;
        let mut spill = self.spill;
        if !spill.in_order {
            spill.index.sort_by(|a, b| a.name.cmp(&b.name));
        }
        Ok(spill)
    }
}

/// A spill being written, as its room check sees it.
struct Room {
    /// Bytes written in `lines` lines, of `expected`.
    written: u64,
    lines: usize,
    expected: usize,
    /// Bytes of results per byte of spill.
    results: f64,
}

impl Room {
    /// Why the lines still to come, at the mean size of those written, and the results
    /// will not fit in `free` bytes, if they will not.
    fn refusal(&self, free: u64) -> Option<String> {
        let mean = self.written as f64 / self.lines as f64;
        let spill = mean * self.expected.saturating_sub(self.lines) as f64;
        let results = mean * self.expected as f64 * self.results;
        if spill + results <= free as f64 {
            return None;
        }
        let beside = if self.results > 0.0 {
            format!(", and the results written from it {}", size(results))
        } else {
            String::new()
        };
        Some(format!(
            "the spill would need about {} more ({} of {} sessions written, {} KB each){beside}, and {} are free on this disk: free some space, or give --out on a disk with room (the spill is written under it), or split the sessions (--shard K/N)",
            size(spill),
            grouped(self.lines as f64, 0),
            grouped(self.expected as f64, 0),
            grouped(mean / 1e3, 1),
            size(free as f64)
        ))
    }
}

/// `bytes` in GB to a tenth from 1 GB, else in whole MB.
fn size(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{} GB", grouped(bytes / 1e9, 1))
    } else {
        format!("{} MB", grouped(bytes / 1e6, 0))
    }
}

impl Spill {
    /// Lines in the spill.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The spill file, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lines of the first two entries of one name, if two share one.
    pub fn same_name(&self) -> Result<Option<(String, String)>, Error> {
        let Some(pair) = self.index.windows(2).find(|w| w[0].name == w[1].name) else {
            return Ok(None);
        };
        let file = self.open()?;
        Ok(Some((
            self.read(&file, &pair[0])?,
            self.read(&file, &pair[1])?,
        )))
    }

    fn unreadable(&self, source: io::Error) -> Error {
        Error::Unreadable {
            path: self.path.clone(),
            source,
        }
    }

    fn open(&self) -> Result<File, Error> {
        File::open(&self.path).map_err(|e| self.unreadable(e))
    }

    /// The line at `entry` of the spill open as `file`.
    fn read(&self, file: &File, entry: &Entry) -> Result<String, Error> {
        let mut bytes = vec![0; entry.len as usize];
        file.read_exact_at(&mut bytes, entry.offset)
            .map_err(|e| self.unreadable(e))?;
        self.text(bytes)
    }

    fn text(&self, mut bytes: Vec<u8>) -> Result<String, Error> {
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        String::from_utf8(bytes)
            .map_err(|e| self.unreadable(io::Error::new(io::ErrorKind::InvalidData, e)))
    }

    /// The lines in name order.
    pub fn lines(&self) -> Result<SpillLines<'_>, Error> {
        let file = self.open()?;
        Ok(SpillLines {
            spill: self,
            reader: BufReader::with_capacity(1 << 20, file),
            next: 0,
        })
    }
}

/// A spill's lines in name order.
pub struct SpillLines<'a> {
    spill: &'a Spill,
    reader: BufReader<File>,
    next: usize,
}

impl SpillLines<'_> {
    /// The next line; None after the last.
    pub fn next_line(&mut self) -> Result<Option<String>, Error> {
        let Some(entry) = self.spill.index.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        if !self.spill.in_order {
            return self.spill.read(self.reader.get_ref(), entry).map(Some);
        }
        let mut bytes = Vec::with_capacity(entry.len as usize);
        self.reader
            .read_until(b'\n', &mut bytes)
            .map_err(|e| self.spill.unreadable(e))?;
        self.spill.text(bytes).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines pushed out of order come back in name order, each whole; in order, the same.
    #[test]
    fn lines_come_back_in_name_order() {
        let parent = tempfile::tempdir().unwrap();
        for names in [["b", "c", "a"], ["a", "b", "c"]] {
            let mut w = SpillWriter::create(parent.path(), "t", 3, 0.0).unwrap();
            for n in names {
                w.push(n, &format!("line of {n}")).unwrap();
            }
            let spill = w.finish().unwrap();
            let mut lines = spill.lines().unwrap();
            let mut got = Vec::new();
            while let Some(l) = lines.next_line().unwrap() {
                got.push(l);
            }
            assert_eq!(got, ["line of a", "line of b", "line of c"]);
            assert_eq!(spill.same_name().unwrap(), None);
        }
        let mut w = SpillWriter::create(parent.path(), "t", 2, 0.0).unwrap();
        w.push("x", "first").unwrap();
        w.push("x", "second").unwrap();
        let spill = w.finish().unwrap();
        assert_eq!(
            spill.same_name().unwrap(),
            Some(("first".into(), "second".into()))
        );
        let folder = spill.path().parent().unwrap().to_path_buf();
        drop(spill);
        assert!(!folder.exists(), "the staging folder goes with the spill");
    }

    /// The lines to come at the mean size so far, and the results, against the free
    /// space: 1,024 lines of 8,000 bytes, a million expected, need 7,991.8 MB more, and
    /// with results of 1.5 × the spill 12,000 MB beside.
    #[test]
    fn the_room_left_is_checked_against_the_lines_to_come() {
        let room = |results| Room {
            written: 1024 * 8_000,
            lines: 1024,
            expected: 1_000_000,
            results,
        };
        assert_eq!(room(0.0).refusal(7_991_808_000), None);
        assert_eq!(
            room(0.0).refusal(7_991_807_999).as_deref(),
            Some(
                "the spill would need about 8.0 GB more (1,024 of 1,000,000 sessions written, 8.0 KB each), and 8.0 GB are free on this disk: free some space, or give --out on a disk with room (the spill is written under it), or split the sessions (--shard K/N)"
            )
        );
        assert_eq!(room(1.5).refusal(19_991_808_000), None);
        let refused = room(1.5).refusal(19_991_807_999).unwrap();
        assert!(
            refused.contains(
                "8.0 KB each), and the results written from it 12.0 GB, and 20.0 GB are free"
            ),
            "{refused}"
        );
        // Below a gigabyte, in megabytes.
        let small = Room {
            expected: 10_000,
            ..room(0.0)
        };
        let refused = small.refusal(40_000_000).unwrap();
        assert!(
            refused.contains("about 72 MB more (1,024 of 10,000")
                && refused.contains("40 MB are free"),
            "{refused}"
        );
    }
}
