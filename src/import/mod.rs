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
pub mod claude_code;
pub mod codex;
pub mod event;
pub mod files;
pub mod json;
pub mod label;
pub mod otel;
pub mod quality;
pub mod spill;
pub mod stream;
pub mod summary;
pub mod trace;
pub mod write;

use crate::error::{Error, Located};
use event::FileLog;
use files::SourceFile;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A log format, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Claude Code transcripts.
    ClaudeCode,
    /// Codex CLI rollouts.
    Codex,
    /// Claude Code's OpenTelemetry events, as the Collector's file exporter writes them.
    Otel,
}

impl Format {
    /// The reader of this format.
    pub fn reader(self) -> &'static dyn Reader {
        match self {
            Format::ClaudeCode => &claude_code::ClaudeCode,
            Format::Codex => &codex::Codex,
            Format::Otel => &otel::Otel,
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
    /// read, as `keep` keeps it (its events spilled as soon as it is read, so memory holds
    /// the files in flight), and the files that could not be read at all (listed, not an
    /// error). A format whose conversations run across files (a collector's output,
    /// rotated) reads them together; the others read each on its own.
    fn read_all(
        &self,
        files: &[SourceFile],
        keep: &(dyn Fn(FileLog) -> stream::Stored + Sync),
    ) -> (Vec<stream::Stored>, Vec<files::Unreadable>) {
        let read: Vec<Result<stream::Stored, Error>> =
            files.par_iter().map(|f| self.read(f).map(keep)).collect();
        files::partition(files, read)
    }
    /// What a call's `bytes` count, when not UTF-8 bytes: said in every scenario and
    /// summary of the format.
    fn bytes_unit(&self) -> Option<&'static str> {
        None
    }
}

/// `simulate import`, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportConfig {
    pub format: Format,
    /// Files, or directories searched recursively.
    pub paths: Vec<PathBuf>,
    /// Scenarios go to `out/<name>.toml`.
    pub out: PathBuf,
    /// What to print on stdout.
    pub output: crate::output::Format,
    /// Replace scenarios in `out` that differ from what this import writes.
    pub force: bool,
    /// Fit every trace as it is imported, write good fits, and print the quality table.
    pub fit: bool,
}

/// Runs an import: find the logs, refuse a bad `--out` before anything is written, parse
/// the files in parallel, assemble traces, write every scenario (all or none), print the
/// summary.
///
/// Memory holds the files in flight, not the corpus: each file's events are spilled into
/// the staging folder as soon as it is read, and each trace is staged and dropped as soon
/// as it is assembled ([`stream`]).
pub fn run(c: &ImportConfig, out: &mut dyn Write) -> Result<(), Error> {
    let reader = c.format.reader();
    let files = files::find(&c.paths, |p| reader.is_log(p), reader.logs_are())?;
    files::check_out(&c.out, &files)?;
    let spill = spill::Spill::create(&c.out);
    let (stored, unreadable) = reader.read_all(&files, &|log| stream::store(log, spill.as_ref()));
    if let Some(s) = &spill {
        s.check()?;
    }
    let stored = stream::order(stored);
    if !stream::any_request(&stored) {
        let loaded = Loaded {
            assembled: stream::assemble(stored, spill.as_ref(), |_| {})?,
            unreadable,
        };
        return Err(nothing_imported(c, reader, &loaded).into());
    }
    // Prepared once there is something to write: it holds the folder's lock from here, so
    // a second import into it waits, then finds this one's scenarios; two never mix.
    let dir = crate::output::FileSet::prepare(&c.out)?;
    let stager = write::Stager::new(&dir, &c.out, reader, c.force, c.fit);
    let (assembled, staged) = stream::stage(stored, spill.as_ref(), &stager)?;
    drop(spill);
    let loaded = Loaded {
        assembled,
        unreadable,
    };
    let (written, rows) = write::commit(dir, &c.out, staged, c.fit)?;
    summary::print(
        out,
        c.output,
        reader,
        &loaded,
        &rows,
        &written.paths,
        written.quality.as_deref(),
    )
    .map_err(Error::Print)
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
/// The same passes as [`run`] ([`stream`]), with every file's events held in memory and
/// every trace kept: for tests and callers that want the traces themselves.
pub fn load(reader: &dyn Reader, files: &[SourceFile]) -> Result<Loaded, Error> {
    let (stored, unreadable) = reader.read_all(files, &|log| stream::store(log, None));
    let mut traces = Vec::new();
    let mut assembled = stream::assemble(stream::order(stored), None, |t| traces.push(t))?;
    assembled.traces = traces;
    Ok(Loaded {
        assembled,
        unreadable,
    })
}

/// Why no scenario could be written, naming each file.
fn nothing_imported(c: &ImportConfig, reader: &dyn Reader, loaded: &Loaded) -> Located {
    let a = &loaded.assembled;
    let unreadable = loaded
        .unreadable
        .iter()
        .map(|u| format!("{} (cannot read: {})", u.file, u.reason));
    let left = a.leftovers.iter().map(|l| {
            let malformed: Vec<_> = a.malformed.iter().filter(|m| m.file == l.file).collect();
            let why = if l.lines == 0 {
                "empty".to_string()
            } else if let Some(other) = other_format(reader, l) {
                // Checked before malformed lines: another format's lines are often not
                // of this one's shape at all.
                format!(
                    "{} lines, none a request: its lines are {}'s ({}); import it with `simulate import {} …`",
                    l.lines,
                    other.product(),
                    l.unknown_types.join(", "),
                    other.format()
                )
            } else if let Some(first) = malformed.first() {
                format!(
                    "{} of {} lines malformed; line {}: {}",
                    malformed.len(),
                    l.lines,
                    first.line,
                    first.reason
                )
            } else if l.duplicates_removed > 0 {
                format!(
                    "its {} requests are all in an earlier file",
                    l.duplicates_removed
                )
            } else {
                format!("{} lines, none a request", l.lines)
            };
            format!("{} ({why})", l.file)
        });
    let files = loaded.unreadable.len() + a.leftovers.len();
    let mut reasons: Vec<String> = unreadable.chain(left).take(5).collect();
    if files > 5 {
        reasons.push(format!("… and {} more", files - 5));
    }
    let place = match c.paths.as_slice() {
        [one] => one.display().to_string(),
        _ => "the given paths".to_string(),
    };
    Located::new(
        place,
        format!(
            "no {} request found, nothing written: {}",
            reader.product(),
            reasons.join("; ")
        ),
    )
}

/// The format whose own line types a file that gave no request is made of, if not
/// `reader`'s: a Codex rollout given to `import claude-code`, or the reverse.
fn other_format(reader: &dyn Reader, l: &assemble::Leftover) -> Option<&'static dyn Reader> {
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
