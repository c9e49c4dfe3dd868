//! The passes of an import, for corpora too large to hold: files read (in parallel, each
//! file's events spilled as soon as it is read), put in assembly order, then assembled one
//! at a time on one thread while the others render and stage the traces it makes.
//!
//! Memory holds the files in flight, the traces waiting to be staged (a bounded queue),
//! and per file or trace a few hundred bytes (what the summary prints) and per kept
//! request its dedupe key: not the corpus's events, nor its traces.
//!
//! The order is the one [`super::load`] documents (latest request's time, then the order
//! read). Names need one fact from every file before the first trace is named (the project
//! of each session, for its subagents): a first pass over the requests' keys alone finds
//! it ([`Projects`]), reading only the keys' part of each spilled record.

use super::assemble::{Assembled, Assembler, Projects};
use super::event::FileLog;
use super::spill::{self, Span, Spill};
use super::trace::{Namer, Trace};
use super::write::{Staged, Stager};
use crate::error::Error;
use compact_str::CompactString;
use jiff::Timestamp;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// One file, read: its log, without its events where they were spilled.
#[derive(Debug)]
pub struct Stored {
    latest: Option<Timestamp>,
    /// Request lines (copies included).
    requests: usize,
    log: FileLog,
    spilled: Option<Span>,
}

/// Keeps one file's log for assembly: its events go to `spill` where there is one
/// (failures are kept by the spill, for [`Spill::check`]).
pub fn store(mut log: FileLog, spill: Option<&Spill>) -> Stored {
    let latest = log.latest_request();
    let requests = log
        .events
        .iter()
        .filter(|e| matches!(e, super::event::Event::Request(_)))
        .count();
    let spilled = spill.and_then(|s| s.put(&log.events));
    if spilled.is_some() {
        log.events = Vec::new();
    }
    Stored {
        latest,
        requests,
        log,
        spilled,
    }
}

impl Stored {
    fn keys(&self, spill: Option<&Spill>) -> Result<Vec<(usize, super::assemble::Key)>, Error> {
        match (self.spilled, spill) {
            (Some(span), Some(spill)) => spill.keys(span),
            _ => Ok(spill::keys_of(&self.log.events)),
        }
    }

    fn into_log(self, spill: Option<&Spill>) -> Result<FileLog, Error> {
        let mut log = self.log;
        if let (Some(span), Some(spill)) = (self.spilled, spill) {
            log.events = spill.events(span)?;
        }
        Ok(log)
    }
}

/// Puts files in assembly order: by their latest request's time (files without one last),
/// ties in the order given.
///
/// A resumed session replays its parent's requests and then goes on, so it ends later:
/// assembled after the parent, the replay is what gets dropped as duplicates and each
/// session keeps its own calls. (Session files are named by random UUIDs, so path order
/// would hand the parent's calls to whichever file sorts first.)
pub fn order(mut stored: Vec<Stored>) -> Vec<Stored> {
    stored.sort_by_cached_key(|s| (s.latest.is_none(), s.latest));
    stored
}

/// Whether any file holds a request: without one, nothing is imported (and no trace is
/// made), so no folder need be prepared.
pub fn any_request(stored: &[Stored]) -> bool {
    stored.iter().any(|s| s.requests > 0)
}

fn session_projects(
    stored: &[Stored],
    spill: Option<&Spill>,
) -> Result<BTreeMap<CompactString, String>, Error> {
    let mut projects = Projects::default();
    for s in stored {
        projects.file(&s.keys(spill)?, &s.log.routes, s.log.project.as_deref());
    }
    Ok(projects.finish())
}

/// Assembles `stored` (in [`order`]) one file at a time, giving each trace, named, to
/// `each` as soon as its file is assembled; returns what was gathered besides the traces.
///
/// Errors: a spilled record that cannot be read back.
pub fn assemble(
    stored: Vec<Stored>,
    spill: Option<&Spill>,
    convention: crate::scenario::Convention,
    mut each: impl FnMut(Trace),
) -> Result<Assembled, Error> {
    let mut namer = Namer::new(session_projects(&stored, spill)?);
    let mut assembler = Assembler::new(convention);
    for s in stored {
        for mut t in assembler.file(s.into_log(spill)?) {
            namer.name(&mut t);
            each(t);
        }
    }
    Ok(assembler.finish())
}

/// Assembles `stored` on a thread of its own while rayon's threads stage each trace as it
/// comes ([`Stager::stage`]); returns what was gathered and every trace's staging, in
/// trace order.
///
/// Errors: a spilled record that cannot be read back.
pub fn stage(
    stored: Vec<Stored>,
    spill: Option<&Spill>,
    stager: &Stager,
) -> Result<(Assembled, Vec<Staged>), Error> {
    // A few traces per thread: enough that no thread waits, few enough to bound memory.
    let (tx, rx) =
        std::sync::mpsc::sync_channel::<(usize, Trace)>(4 * rayon::current_num_threads());
    std::thread::scope(|s| {
        let assembling = s.spawn(move || {
            let mut n = 0;
            assemble(stored, spill, stager.convention(), |t| {
                // Fails only when the stagers are gone, which an error elsewhere reports.
                let _ = tx.send((n, t));
                n += 1;
            })
        });
        let mut staged: Vec<(usize, Staged)> = rx
            .into_iter()
            .par_bridge()
            .map(|(n, t)| (n, stager.stage(t)))
            .collect();
        let assembled = assembling
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        staged.sort_by_key(|(n, _)| *n);
        Ok((assembled, staged.into_iter().map(|(_, s)| s).collect()))
    })
}
