//! The records of a history in session order, once through: into `shard.jsonl`,
//! `sessions.csv` and `whatif.csv` as they go by, and into the sums.
//!
//! A single run feeds it its spill, a merge the shards; everything a history shows is
//! computed here or from what this returns, so the two give the same bytes.

use super::SessionFigures;
use super::accumulate::Accumulator;
use super::aggregate::{Aggregate, SweepSums};
use super::csv::{SessionRows, has_whatif_rows, whatif_rows};
use super::groups::{GroupBy, GroupsReport};
use super::report::LISTED_SESSIONS;
use super::shard::{FILE, Header, Record};
use super::stream::Records;
use crate::error::{Error, Located};
use crate::output::OutputDir;
use std::fs::File;
use std::io::{self, BufWriter, Write};

/// What the pass sums and keeps.
#[derive(Debug)]
pub struct Summed {
    pub aggregate: Aggregate,
    pub sweep: SweepSums,
    pub groups: Option<GroupsReport>,
    /// The first [`LISTED_SESSIONS`] sessions, for the page.
    pub listed: Vec<SessionFigures>,
}

/// The files written as the records go by.
struct Sinks<'a> {
    dir: &'a mut OutputDir,
    /// The folder they go to.
    target: std::path::PathBuf,
    shard: BufWriter<File>,
    sessions: SessionRows<BufWriter<File>>,
    whatif: Option<csv::Writer<BufWriter<File>>>,
    /// `breaks.csv`, from the first session with a cache break.
    breaks: Option<crate::output::breaks::BreaksCsv<BufWriter<File>>>,
}

impl Sinks<'_> {
    fn add(&mut self, record: &Record, names: &[String]) -> Result<(), Error> {
        let target = &self.target;
        self.shard
            .write_all(record.line.as_bytes())
            .and_then(|()| self.shard.write_all(b"\n"))
            .map_err(failed(target, FILE))?;
        let s = &record.session.figures;
        self.sessions
            .add(s)
            .map_err(failed(target, "sessions.csv"))?;
        if has_whatif_rows(s) {
            if self.whatif.is_none() {
                self.whatif = Some(csv::Writer::from_writer(self.dir.create("whatif.csv")?));
            }
            if let Some(w) = &mut self.whatif {
                whatif_rows(w, s, names).map_err(failed(target, "whatif.csv"))?;
            }
        }
        if let Some(m) = s.measured.as_ref().filter(|m| !m.breaks.is_empty()) {
            if self.breaks.is_none() {
                self.breaks = Some(
                    crate::output::breaks::BreaksCsv::new(self.dir.create("breaks.csv")?)
                        .map_err(failed(target, "breaks.csv"))?,
                );
            }
            if let Some(w) = &mut self.breaks {
                w.add(&s.name, &m.breaks)
                    .map_err(failed(target, "breaks.csv"))?;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<(), Error> {
        let target = &self.target;
        let mut shard = self.shard;
        shard.flush().map_err(failed(target, FILE))?;
        self.sessions
            .finish()
            .map_err(failed(target, "sessions.csv"))?;
        if let Some(mut w) = self.whatif {
            w.flush().map_err(failed(target, "whatif.csv"))?;
        }
        if let Some(w) = self.breaks {
            w.finish().map_err(failed(target, "breaks.csv"))?;
        }
        Ok(())
    }
}

/// The error of writing `file` in `target`.
fn failed(target: &std::path::Path, file: &str) -> impl Fn(io::Error) -> Error {
    let path = target.join(file);
    move |source| Error::Write {
        path: path.clone(),
        source,
    }
}

/// Reads `records` (those `header` announces) in session order, writing `shard.jsonl`
/// (the header, then each record's line), `sessions.csv` and `whatif.csv` into `dir`
/// when given, and sums them (by `group_by` too, when given), leaving out of the sums the
/// sessions whose simulated cost is more than `max_cost_diff` percent off the measured.
/// None without sessions summed.
///
/// Errors: a record of another shape than the header's edits and factors (a shard file
/// not written by this simulate); writing a file.
pub fn pass(
    records: &mut dyn Records,
    header: &Header,
    group_by: Option<GroupBy>,
    max_cost_diff: Option<f64>,
    dir: Option<&mut OutputDir>,
) -> Result<Option<Summed>, Error> {
    let names = header.edit_names();
    let sweep = SweepSums::new(header.factors.len(), names.len());
    let sums = Accumulator::new(&names, Some(sweep), group_by).max_cost_diff(max_cost_diff);
    pass_into(records, header, sums, dir)
}

/// As [`pass`], summing into `sums` (for the header's edits, with a sweep): for a caller
/// that keeps less of each session than a history's outputs need (`suggest`).
pub fn pass_into(
    records: &mut dyn Records,
    header: &Header,
    mut sums: Accumulator,
    dir: Option<&mut OutputDir>,
) -> Result<Option<Summed>, Error> {
    let names = header.edit_names();
    let points = header.factors.len();
    let mut sinks = match dir {
        Some(dir) => {
            let mut shard = dir.create(FILE)?;
            let failed = |source| Error::Write {
                path: dir.dir().join(FILE),
                source,
            };
            header.write(&mut shard).map_err(failed)?;
            let sessions = SessionRows::new(dir.create("sessions.csv")?, &names);
            Some(Sinks {
                target: dir.dir().to_path_buf(),
                dir,
                shard,
                sessions,
                whatif: None,
                breaks: None,
            })
        }
        None => None,
    };
    let mut listed = Vec::new();
    while let Some(record) = records.next_record()? {
        let s = &record.session;
        let width = 1 + names.len();
        if s.figures.edits.len() != names.len()
            || s.sweep_totals.len() != points * width
            || s.closed_forms.len() != width
        {
            return Err(Located::new(
                s.figures.name.clone(),
                format!(
                    "this session's record has {} edits, {} sweep totals and {} closed forms; its header's {} edits and {} factor points need {}, {} and {}: the shard was not written by this simulate, or was edited",
                    s.figures.edits.len(),
                    s.sweep_totals.len(),
                    s.closed_forms.len(),
                    names.len(),
                    points,
                    names.len(),
                    points * width,
                    width
                ),
            )
            .into());
        }
        let rates = &super::refetch::RATES;
        if let Some(r) = s
            .figures
            .edits
            .iter()
            .filter_map(|e| e.refetch.as_ref())
            .find(|r| !r.fits(rates))
        {
            return Err(Located::new(
                s.figures.name.clone(),
                format!(
                    "this session's record has an edit's savings at the re-fetch rates {:?} ({} figures), where this simulate sweeps {rates:?}: the shard was written by another version of simulate, or was edited; run the shard again",
                    r.rates,
                    r.saved_tokens.len()
                ),
            )
            .into());
        }
        if let Some(sinks) = &mut sinks {
            sinks.add(&record, &names)?;
        }
        sums.add(&s.figures, &s.sweep_totals, &s.closed_forms, &s.labels);
        if listed.len() < LISTED_SESSIONS {
            listed.push(record.session.figures);
        }
    }
    if let Some(sinks) = sinks {
        sinks.finish()?;
    }
    if sums.sessions() + sums.excluded() != header.sessions {
        return Err(Located::new(
            header.directory.clone(),
            format!(
                "{} sessions were read where {} were announced",
                sums.sessions(),
                header.sessions
            ),
        )
        .into());
    }
    Ok(sums.finish().map(|(aggregate, sweep, groups)| Summed {
        aggregate,
        sweep: sweep.unwrap_or_else(|| SweepSums::new(points, names.len())),
        groups,
        listed,
    }))
}
