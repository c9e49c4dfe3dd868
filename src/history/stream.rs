//! A history streamed: sessions read and evaluated in parallel as they come, each one's
//! record written at once to a spill file, and nothing of it kept but its name and where
//! its line is; then the records read back in session order, for the outputs and the sums.
//!
//! Why a spill: the files come in path order, the sums and every per-session output go in
//! session order (by scenario name, docs/history.md), and a million sessions' records do
//! not fit in memory. The records in session order are then exactly what a merge of
//! shards reads (`shard::Shards`), so a single run and a merge share every step after this
//! one, and give the same bytes.

use super::Factors;
use super::files::{self, CHUNK, Outcome, Skipped};
use super::progress::Progress;
use super::shard::Record;
use crate::error::Error;
use crate::output::set::staging::Staging;
use crate::scenario::{BasePart, Edit, Names};
use rayon::prelude::*;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The most sweep totals a streamed history writes (sessions × factor points × (1 +
/// edits)): about 4 GB of numbers in the spill and as much in `shard.jsonl`.
pub const MAX_STREAMED_SWEEP_VALUES: usize = 200_000_000;

/// Records in session order, from a spill or from shards.
pub trait Records {
    /// The next record; None after the last.
    fn next_record(&mut self) -> Result<Option<Record>, Error>;
}

impl Records for super::shard::Shards {
    fn next_record(&mut self) -> Result<Option<Record>, Error> {
        super::shard::Shards::next_record(self)
    }
}

/// Where a record's line is in the spill.
#[derive(Debug)]
struct Entry {
    name: Box<str>,
    offset: u64,
    len: u32,
}

/// The evaluated sessions' records, in the order they came, and their index by name.
#[derive(Debug)]
pub struct Spill {
    /// Removed with the spill when dropped (or on Ctrl-C), cleaned after a crash.
    _folder: Staging,
    path: PathBuf,
    /// In session order.
    index: Vec<Entry>,
    /// Whether the records came in session order (then they are read straight through).
    in_order: bool,
}

/// Every session evaluated into a spill, and the files that were not sessions.
#[derive(Debug)]
pub struct Streamed {
    pub spill: Spill,
    pub skipped: Vec<Skipped>,
    /// The tools and kinds of every session's calls, to tell a mistyped selector.
    pub names: Names,
}

/// Reads `files` (under `dir`) as scenarios with `edits` (from `edits_file`) in place of
/// their own, evaluates each at its own nominal point and over `factors`, and writes their
/// records to a spill in a staging folder in `spill_parent` (labelled `label`).
///
/// Errors: as `files::evaluate_all`, and two sessions of one name.
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    dir: &Path,
    files: &[PathBuf],
    edits: &[Edit],
    parts: &[BasePart],
    edits_file: &str,
    factors: &Factors,
    progress: bool,
    spill_parent: &Path,
    label: &str,
) -> Result<Streamed, Error> {
    files::check_sweep_size(
        files.len(),
        factors,
        edits.len(),
        MAX_STREAMED_SWEEP_VALUES,
        " (--shard K/N)",
    )?;
    let unwritable = |source| Error::Unwritable {
        path: spill_parent.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(spill_parent).map_err(unwritable)?;
    let folder = Staging::create(spill_parent, label).map_err(unwritable)?;
    let path = folder.path().join("records.jsonl");
    let failed = |source| Error::Write {
        path: path.clone(),
        source,
    };
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&path).map_err(failed)?);
    let mut index: Vec<Entry> = Vec::with_capacity(files.len());
    let mut offset = 0u64;
    let mut in_order = true;
    let mut skipped = Vec::new();
    let mut names = Names::default();
    let mut progress = Progress::new(progress, files.len());
    for chunk in files.chunks(CHUNK) {
        let outcomes: Vec<Result<Read, Error>> = chunk
            .par_iter()
            .map(
                |path| match files::one(dir, path, edits, parts, edits_file, factors)? {
                    Outcome::Session(s, n) => Record::of(*s).map(|r| Read::Record(Box::new(r), n)),
                    Outcome::Skipped(s) => Ok(Read::Skipped(s)),
                },
            )
            .collect();
        for outcome in outcomes {
            let record = match outcome {
                Ok(Read::Record(r, n)) => {
                    names.extend(n);
                    *r
                }
                Ok(Read::Skipped(s)) => {
                    skipped.push(s);
                    continue;
                }
                Err(e) => {
                    progress.finish();
                    return Err(e);
                }
            };
            let len = record.line.len() + 1;
            out.write_all(record.line.as_bytes()).map_err(failed)?;
            out.write_all(b"\n").map_err(failed)?;
            if let Some(last) = index.last() {
                in_order &= *last.name < *record.name();
            }
            index.push(Entry {
                name: record.name().into(),
                offset,
                len: u32::try_from(len).map_err(|_| failed(io::Error::other("record too long")))?,
            });
            offset += len as u64;
        }
        progress.advance(chunk.len());
    }
    progress.finish();
    out.flush().map_err(failed)?;
    drop(out);
    let mut spill = Spill {
        _folder: folder,
        path,
        index,
        in_order,
    };
    if !spill.in_order {
        spill.index.sort_by(|a, b| a.name.cmp(&b.name));
    }
    spill.check_names(dir)?;
    Ok(Streamed {
        spill,
        skipped,
        names,
    })
}

impl Spill {
    /// Sessions in the spill.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Two sessions of one name are an error naming both files (one session counted twice).
    fn check_names(&self, dir: &Path) -> Result<(), Error> {
        let Some(pair) = self.index.windows(2).find(|w| w[0].name == w[1].name) else {
            return Ok(());
        };
        let file = self.open()?;
        let (a, b) = (self.read(&file, &pair[0])?, self.read(&file, &pair[1])?);
        Err(files::same_name(
            dir,
            &a.session.figures,
            &b.session.figures,
        ))
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

    /// The record at `entry` of the spill open as `file`.
    fn read(&self, file: &File, entry: &Entry) -> Result<Record, Error> {
        let mut bytes = vec![0; entry.len as usize];
        file.read_exact_at(&mut bytes, entry.offset)
            .map_err(|e| self.unreadable(e))?;
        self.parse(bytes)
    }

    fn parse(&self, mut bytes: Vec<u8>) -> Result<Record, Error> {
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        let line = String::from_utf8(bytes)
            .map_err(|e| self.unreadable(io::Error::new(io::ErrorKind::InvalidData, e)))?;
        Record::parse(line, || self.path.display().to_string())
    }

    /// The records in session order, read from the spill.
    pub fn records(&self) -> Result<SpillRecords<'_>, Error> {
        let file = self.open()?;
        Ok(SpillRecords {
            spill: self,
            reader: BufReader::with_capacity(1 << 20, file),
            next: 0,
        })
    }
}

/// A spill's records in session order.
pub struct SpillRecords<'a> {
    spill: &'a Spill,
    reader: BufReader<File>,
    next: usize,
}

impl Records for SpillRecords<'_> {
    fn next_record(&mut self) -> Result<Option<Record>, Error> {
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
        self.spill.parse(bytes).map(Some)
    }
}

/// What one file of a chunk gave: its record with the tool and kind names its calls use
/// (for the unmatched-selector warning), or the reason it was skipped.
enum Read {
    Record(Box<Record>, Names),
    Skipped(Skipped),
}
