//! `simulate import FORMAT PATH… --out DIR`: agent session logs → scenario files.
//!
//! Why a module of its own: a real run is the best baseline for the ledger, and agents
//! already log every request with the provider's own usage counts. Each log format has a
//! reader (one module, implementing [`Reader`]) that turns a file into format-free events
//! ([`event`]); one assembler ([`assemble`]) deduplicates requests and cuts traces for every
//! format; [`write`] renders each trace as a scenario and [`summary`] reports what was
//! imported. A new format is one new reader module and one line in [`Format::reader`].
//! The formats, their sources and their quirks: `src/import/README.md`.

pub mod assemble;
pub mod atif;
pub mod claude_code;
pub mod codex;
pub mod context;
pub mod document;
pub mod event;
pub mod files;
pub mod json;
pub mod label;
pub mod lifetime;
pub mod mini_swe_agent;
pub mod otel;
pub mod parts;
pub mod quality;
pub mod sniff;
pub mod spill;
pub mod stream;
pub mod summary;
pub mod swe_agent;
pub mod trace;
pub mod write;

use crate::error::Error;
use event::FileLog;
use files::SourceFile;
use rayon::prelude::*;
use std::path::Path;

/// A log format, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Claude Code transcripts.
    ClaudeCode,
    /// Codex CLI rollouts.
    Codex,
    /// Claude Code's OpenTelemetry events, as the Collector's file exporter writes them.
    Otel,
    /// mini-swe-agent trajectories (`*.traj.json`).
    MiniSweAgent,
    /// ATIF trajectories (Harbor's Agent Trajectory Interchange Format).
    Atif,
    /// SWE-agent trajectories (`*.traj`): no usage per request, only the run's totals.
    SweAgent,
}

impl Format {
    /// The reader of this format.
    pub fn reader(self) -> &'static dyn Reader {
        match self {
            Format::ClaudeCode => &claude_code::ClaudeCode,
            Format::Codex => &codex::Codex,
            Format::Otel => &otel::Otel,
            Format::MiniSweAgent => &mini_swe_agent::MiniSweAgent,
            Format::Atif => &atif::Atif,
            Format::SweAgent => &swe_agent::SweAgent,
        }
    }
}

/// Whose usage convention a log's token counts follow (docs/model.md §6.1): the scenario's own.
pub use crate::scenario::Convention;

/// One log format's reader: which files it reads, and what each becomes.
pub trait Reader: Sync {
    /// The name on the command line and in `[import] format` (`claude-code`).
    fn format(&self) -> &'static str;
    /// The tool that writes the logs, for people (`Claude Code`).
    fn product(&self) -> &'static str;
    /// What the logs are called, for messages (`Claude Code transcripts (*.jsonl)`).
    fn logs_are(&self) -> &'static str;
    /// The usage convention of the logs' token counts.
    fn convention(&self) -> Convention;
    /// Whether a file met while searching a directory is one of this format's logs.
    fn is_log(&self, path: &Path) -> bool;
    /// Top-level line types only this format writes: a file of another format whose lines
    /// are of these types is this format's log given to the wrong reader.
    fn own_line_types(&self) -> &'static [&'static str];
    /// Reads one file line by line. Lines it cannot read are events, not errors; only a
    /// file that cannot be read at all is an error.
    fn read(&self, file: &SourceFile) -> Result<FileLog, Error>;
    /// Reads every file (in parallel, one file per task), in the order given: each log
    /// read and kept for assembly ([`stream::store`]: its events spilled to `spill` as soon
    /// as it is read, so memory holds the files in flight), and the files that could not
    /// be read at all (listed, not an error). A format whose conversations run across
    /// files (a collector's output, rotated) reads them together; the others read each on
    /// its own.
    ///
    /// Errors: what the reader kept aside cannot be read back (the spill file).
    #[allow(clippy::type_complexity)]
    fn read_all(
        &self,
        files: &[SourceFile],
        spill: Option<&spill::Spill>,
    ) -> Result<(Vec<stream::Stored>, Vec<files::Unreadable>), Error> {
        let read: Vec<Result<stream::Stored, Error>> = files
            .par_iter()
            .map(|f| self.read(f).map(|log| stream::store(log, spill)))
            .collect();
        Ok(files::partition(files, read))
    }
    /// What a call's `bytes` count, when not UTF-8 bytes: said in every scenario and
    /// summary of the format.
    fn bytes_unit(&self) -> Option<&'static str> {
        None
    }
}

/// What an import read: the assembled traces, and the files that could not be read at all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    pub assembled: assemble::Assembled,
    /// Files that could not be read (a named pipe, a device, permission denied, an I/O
    /// error), in path order: listed, and the rest imported. An import fails only when no
    /// request was found.
    pub unreadable: Vec<files::Unreadable>,
}

/// Reads `files` (see [`Reader::read_all`]) and assembles their traces, files in
/// order of their latest request's time (then path), whatever the number of threads. A
/// file that cannot be read is listed in [`Loaded::unreadable`], not an error. Writes
/// nothing.
///
/// The same passes as `simulate import` (`crate::command::import`, [`stream`]), with every file's events held in memory and
/// every trace kept: for tests and callers that want the traces themselves.
pub fn load(reader: &dyn Reader, files: &[SourceFile]) -> Result<Loaded, Error> {
    let (stored, unreadable) = reader.read_all(files, None)?;
    let mut traces = Vec::new();
    let mut assembled = stream::assemble(stream::order(stored), None, reader.convention(), |t| {
        traces.push(t)
    })?;
    assembled.traces = traces;
    Ok(Loaded {
        assembled,
        unreadable,
    })
}

/// The format whose own line types a file that gave no request is made of, if not
/// `reader`'s: a Codex rollout given to `import claude-code`, or the reverse.
pub fn other_format(reader: &dyn Reader, l: &assemble::Leftover) -> Option<&'static dyn Reader> {
    [Format::ClaudeCode, Format::Codex, Format::Otel]
        .into_iter()
        .map(Format::reader)
        .filter(|r| r.format() != reader.format())
        .find(|r| {
            !l.unknown_types.is_empty()
                && l.unknown_types
                    .iter()
                    .any(|t| r.own_line_types().contains(&t.as_str()))
        })
}

/// Why a line is not valid JSON of the expected shape, for the malformed-line report.
pub fn parse_failure(e: &serde_json::Error, unterminated: bool) -> String {
    use serde_json::error::Category;
    match (e.classify(), unterminated) {
        (Category::Eof | Category::Syntax, true) => {
            format!("truncated last line (no newline at the end): {e}")
        }
        (Category::Data, _) => format!("unexpected shape: {e}"),
        (Category::Io, _) => format!("cannot read: {e}"),
        _ => format!("not valid JSON: {e}"),
    }
}
