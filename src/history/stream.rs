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
use super::spill::{Spill, SpillLines, SpillWriter};
use crate::error::Error;
use crate::scenario::{BasePart, Edit, Names};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// The most sweep totals a streamed history writes (sessions × factor points × (1 +
/// edits)): about 8 GB of numbers in the spill and as much in `shard.jsonl` (about 20
/// bytes a total). A million sessions over the default 9 points with up to 43 edits: a
/// suggestion over a million sessions proposes 20 to 25 (207,000,000 at 22, over the
/// 200,000,000 this was).
pub const MAX_STREAMED_SWEEP_VALUES: usize = 400_000_000;

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
/// records to a spill in a staging folder in `spill_parent` (labelled `label`), from which
/// `results` bytes of results a byte will be written (`spill::HISTORY_RESULTS`, or 0).
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
    results: f64,
) -> Result<Streamed, Error> {
    files::check_sweep_size(
        files.len(),
        factors,
        edits.len(),
        MAX_STREAMED_SWEEP_VALUES,
        &format!("{} (--shard K/N)", files::FEWER_OR_SPLIT),
    )?;
    let mut out = SpillWriter::create(spill_parent, label, files.len(), results)?;
    let mut skipped = Vec::new();
    let mut names = Names::default();
    in_chunks(
        files,
        progress,
        |path| match files::one(dir, path, edits, parts, edits_file, factors)? {
            Outcome::Session(s, n) => Record::of(*s).map(|r| Read::Record(Box::new(r), n)),
            Outcome::Skipped(s) => Ok(Read::Skipped(s)),
        },
        |read| {
            match read {
                Read::Record(record, n) => {
                    names.extend(n);
                    out.push(record.name(), &record.line)?;
                }
                Read::Skipped(s) => skipped.push(s),
            }
            Ok(())
        },
    )?;
    let spill = out.finish()?;
    if let Some((a, b)) = spill.same_name()? {
        return Err(same_name(dir, &spill, a, b)?);
    }
    Ok(Streamed {
        spill,
        skipped,
        names,
    })
}

/// Runs `read` on every file of `files`, a chunk at a time in parallel, and hands what
/// each gave to `take` in path order, with the progress bar; the first error stops it.
pub fn in_chunks<T: Send>(
    files: &[PathBuf],
    progress: bool,
    read: impl Fn(&Path) -> Result<T, Error> + Sync,
    mut take: impl FnMut(T) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut progress = Progress::new(progress, files.len());
    for chunk in files.chunks(CHUNK) {
        let outcomes: Vec<Result<T, Error>> = chunk.par_iter().map(|p| read(p)).collect();
        for outcome in outcomes {
            if let Err(e) = outcome.and_then(&mut take) {
                progress.finish();
                return Err(e);
            }
        }
        progress.advance(chunk.len());
    }
    progress.finish();
    Ok(())
}

/// The error of two sessions of one name (one session counted twice), naming both files:
/// `a` and `b` are their records' lines in `spill`.
pub fn same_name(dir: &Path, spill: &Spill, a: String, b: String) -> Result<Error, Error> {
    let at = || spill.path().display().to_string();
    let (a, b) = (Record::parse(a, at)?, Record::parse(b, at)?);
    Ok(files::same_name(
        dir,
        &a.session.figures,
        &b.session.figures,
    ))
}

/// A spill's records in session order.
pub struct SpillRecords<'a> {
    spill: &'a Spill,
    lines: SpillLines<'a>,
}

impl SpillRecords<'_> {
    pub fn of(spill: &Spill) -> Result<SpillRecords<'_>, Error> {
        Ok(SpillRecords {
            spill,
            lines: spill.lines()?,
        })
    }
}

impl Records for SpillRecords<'_> {
    fn next_record(&mut self) -> Result<Option<Record>, Error> {
        let Some(line) = self.lines.next_line()? else {
            return Ok(None);
        };
        Record::parse(line, || self.spill.path().display().to_string()).map(Some)
    }
}

/// What one file of a chunk gave: its record with the tool and kind names its calls use
/// (for the unmatched-selector warning), or the reason it was skipped.
enum Read {
    Record(Box<Record>, Names),
    Skipped(Skipped),
}
