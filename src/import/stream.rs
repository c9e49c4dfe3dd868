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
use super::event::{Event, FileLog};
use super::spill::{self, Span, Spill};
use super::trace::{Namer, Trace};
use super::write::{Staged, Stager};
use crate::error::Error;
use compact_str::CompactString;
use jiff::Timestamp;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// One file, read: its log, without its events; they are in its parts.
#[derive(Debug)]
pub struct Stored {
    latest: Option<Timestamp>,
    /// Request lines (copies included).
    requests: usize,
    log: FileLog,
    /// The file's events, in line order, in one part or several.
    parts: Vec<Part>,
    /// Whether each part can be assembled on its own, its traces finished at its end
    /// ([`Assembler::part`]): so a file's traces need not all be held at once.
    independent: bool,
}

/// Some events of a file: spilled, or held where there is no spill.
#[derive(Debug)]
pub enum Part {
    Spilled(Span),
    Held(Vec<Event>),
}

impl Part {
    fn events(self, spill: Option<&Spill>) -> Result<Vec<Event>, Error> {
        match (self, spill) {
            (Part::Held(events), _) => Ok(events),
            (Part::Spilled(span), Some(spill)) => spill.events(span),
            (Part::Spilled(_), None) => Err(no_spill()),
        }
    }

    fn keys(&self, spill: Option<&Spill>) -> Result<Vec<(usize, super::assemble::Key)>, Error> {
        match (self, spill) {
            (Part::Spilled(span), Some(spill)) => spill.keys(*span),
            (Part::Held(events), _) => Ok(spill::keys_of(events)),
            (Part::Spilled(_), None) => Err(no_spill()),
        }
    }
}

/// A spilled part asked for without the spill it went to (a caller's mistake).
fn no_spill() -> Error {
    Error::Unreadable {
        path: "(the import's spill file)".into(),
        source: spill::invalid(),
    }
}

/// A file's events gathered part by part, each spilled as it comes where there is a
/// spill (failures are kept by the spill, for [`Spill::check`]).
#[derive(Debug)]
pub struct Parts<'s> {
    spill: Option<&'s Spill>,
    latest: Option<Timestamp>,
    requests: usize,
    parts: Vec<Part>,
}

impl<'s> Parts<'s> {
    /// No part yet; parts go to `spill` where there is one.
    pub fn new(spill: Option<&'s Spill>) -> Parts<'s> {
        Parts {
            spill,
            latest: None,
            requests: 0,
            parts: Vec::new(),
        }
    }

    /// Adds the next `events` of the file (nothing if there are none).
    pub fn push(&mut self, events: Vec<Event>) {
        if events.is_empty() {
            return;
        }
        for e in &events {
            if let Event::Request(r) = e {
                self.requests += 1;
                self.latest = self.latest.max(r.timestamp);
            }
        }
        let part = match self.spill.and_then(|s| s.put(&events)) {
            Some(span) => Part::Spilled(span),
            None => Part::Held(events),
        };
        self.parts.push(part);
    }

    /// These parts, then `other`'s.
    pub fn then(mut self, other: Parts<'s>) -> Parts<'s> {
        self.requests += other.requests;
        self.latest = self.latest.max(other.latest);
        self.parts.extend(other.parts);
        self
    }

    /// The file, its `log` without events: its parts assembled one by one where
    /// `independent` ([`Assembler::part`]), else together.
    pub fn finish(self, mut log: FileLog, independent: bool) -> Stored {
        debug_assert!(log.events.is_empty());
        log.events = Vec::new();
        Stored {
            latest: self.latest,
            requests: self.requests,
            log,
            parts: self.parts,
            independent,
        }
    }
}

/// Keeps one file's log for assembly: its events go to `spill` where there is one
/// (failures are kept by the spill, for [`Spill::check`]).
pub fn store(mut log: FileLog, spill: Option<&Spill>) -> Stored {
    let mut parts = Parts::new(spill);
    parts.push(std::mem::take(&mut log.events));
    parts.finish(log, false)
}

impl Stored {
    /// Whether the parts are assembled one at a time (see [`Stored`]).
    pub fn independent(&self) -> bool {
        self.independent
    }

    fn keys(&self, spill: Option<&Spill>) -> Result<Vec<(usize, super::assemble::Key)>, Error> {
        let mut keys = Vec::new();
        for p in &self.parts {
            keys.extend(p.keys(spill)?);
        }
        Ok(keys)
    }

    /// The file's log with all its events.
    ///
    /// Errors: a spilled part that cannot be read back.
    pub fn into_log(self, spill: Option<&Spill>) -> Result<FileLog, Error> {
        let mut log = self.log;
        for p in self.parts {
            let events = p.events(spill)?;
            if log.events.is_empty() {
                log.events = events;
            } else {
                log.events.extend(events);
            }
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
    // Only a file with a project names one; without any (OpenTelemetry's), the pass and
    // its index of every request's key are not needed.
    if stored.iter().all(|s| s.log.project.is_none()) {
        return Ok(BTreeMap::new());
    }
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
    let files = stored.len();
    for (i, s) in stored.into_iter().enumerate() {
        if !s.independent || s.parts.len() < 2 {
            for mut t in assembler.file(s.into_log(spill)?) {
                namer.name(&mut t);
                each(t);
            }
            continue;
        }
        // A part at a time: memory holds one part's events and traces.
        let mut file = assembler.begin(s.log, i + 1 == files);
        for p in s.parts {
            for mut t in assembler.part(&mut file, p.events(spill)?) {
                namer.name(&mut t);
                each(t);
            }
        }
        for mut t in assembler.end(file) {
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
