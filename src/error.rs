//! The one error type of the library, and the exit codes it maps to.
//!
//! Exit codes live here and nowhere else: 0 ok, 1 a failure while running (a write that
//! broke half-way), 2 bad usage or bad input (the user can fix it by changing what they
//! gave us). A run that writes files and is interrupted removes what it staged and exits
//! 130 on SIGINT (Ctrl-C) or 143 on SIGTERM, 128 + the signal as shells report it (see
//! `output::set::interrupt`).

use crate::printable::{self, printable};
use std::fmt;
use std::io;
use std::path::PathBuf;

/// Everything that can stop a run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Something in a scenario, trace or argument is wrong; the message says where.
    #[error("{0}")]
    Input(#[from] Located),
    /// A file the user named cannot be read.
    #[error("{}: cannot read: {}", printable::path(path), printable(&source.to_string()))]
    Unreadable { path: PathBuf, source: io::Error },
    /// The output directory cannot be created or written to.
    #[error("{}: cannot write results here: {} (choose another root with --out DIR)", printable::path(path), printable(&source.to_string()))]
    Unwritable { path: PathBuf, source: io::Error },
    /// Writing an output failed part-way (disk full, say); nothing half-written is left.
    #[error("{}: writing failed: {}", printable::path(path), printable(&source.to_string()))]
    Write { path: PathBuf, source: io::Error },
    /// The disk under `path` (`--out`'s) has not the room a run will need, found before it
    /// fills it; `why` says what it needs and what is free.
    #[error("{}: not enough room: {why}", printable::path(path))]
    NoRoom { path: PathBuf, why: String },
    /// A chart could not be drawn (a bug, not bad input).
    #[error("cannot draw a chart: {0}")]
    Chart(#[from] ChartError),
    /// Printing to standard output failed.
    #[error("cannot print the results: {0}")]
    Print(io::Error),
    /// A figure about to be written is infinite or not a number (a bug, not bad input).
    #[error("{0}")]
    NonFinite(#[from] NonFinite),
}

impl Error {
    /// The process exit code for this error: 2 for what the user can fix in their input,
    /// 1 for failures while running.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) | Error::Unreadable { .. } | Error::Unwritable { .. } => 2,
            // A reader that stops early (`simulate … | head`) is not a failure.
            Error::Print(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
            Error::Write { .. }
            | Error::NoRoom { .. }
            | Error::Print(_)
            | Error::Chart(_)
            | Error::NonFinite(_) => 1,
        }
    }
}

/// Why a chart could not be drawn (`crate::chart`).
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The chart data is inconsistent (a grid whose shape does not match its axes, an edit
    /// index with no name). This is a bug in whatever filled the [`ChartInput`](crate::chart::ChartInput).
    #[error("{chart}: {message}")]
    Data {
        chart: &'static str,
        message: String,
    },
    /// Plotters could not lay out or render the chart.
    #[error("{chart}: cannot draw: {source}")]
    Draw {
        chart: &'static str,
        #[source]
        source: plotters::drawing::DrawingAreaErrorKind<io::Error>,
    },
}

/// A figure that is not finite: which figure, of which run, at which point (`crate::finite`
/// finds them).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "internal error: the {figure} of `{run}` is {value} at {point}; nothing was written. This is a bug in simulate, not in the input: please report it with the scenario"
)]
pub struct NonFinite {
    /// `baseline` or the edit's name.
    pub run: String,
    /// What the figure is, e.g. `reread total`.
    pub figure: &'static str,
    pub value: f64,
    /// The point in words: `B = 30000, ρ = 3.3, cache read = 0.1, retry rate = 0`, with
    /// the grid index when it is a grid point.
    pub point: String,
}

/// A mistake in an input file or argument, with where it is.
///
/// Displayed as `file:line:column: place: message`, leaving out what is not known, with
/// every control character escaped ([`printable`]): a file name or a value quoted from a
/// file reaches the terminal as text, never as an escape sequence or a forged line.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// The file as the user named it, or `command line`.
    pub file: String,
    /// 1-based line and column, where the parser knows them.
    pub line_column: Option<(usize, usize)>,
    /// The table, edit or key concerned, e.g. `[[edit]] "trim runbook": trim.by_bytes`.
    pub place: Option<String>,
    /// What is wrong and what would be valid.
    pub message: String,
}

impl Located {
    /// A mistake somewhere in `file`, location unknown.
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        Located {
            file: file.into(),
            line_column: None,
            place: None,
            message: message.into(),
        }
    }

    /// Adds the line and column (1-based).
    pub fn at(mut self, line_column: Option<(usize, usize)>) -> Self {
        self.line_column = line_column;
        self
    }

    /// Adds the table, edit or key concerned.
    pub fn place(mut self, place: impl Into<String>) -> Self {
        self.place = Some(place.into());
        self
    }
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", printable(&self.file))?;
        if let Some((line, column)) = self.line_column {
            write!(f, ":{line}:{column}")?;
        }
        if let Some(place) = &self.place {
            write!(f, ": {}", printable(place))?;
        }
        write!(f, ": {}", printable(&self.message))
    }
}

impl std::error::Error for Located {}

/// 1-based line and column of a byte offset in `text`; the column counts characters.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// The line starts of a text, found once, so that locating many offsets in it (every key
/// of an edit of 100,000 steps) costs a search each, not a pass from the text's start.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset of each line's first byte; the first is 0.
    starts: Vec<usize>,
}

impl LineIndex {
    /// The index of `text`'s lines.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// [`line_column`] of `offset` in `text`, the text this index was made of.
    pub fn line_column(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        // As `line_column`: an offset inside a character counts from the text's end.
        let offset = if text.is_char_boundary(offset) {
            offset
        } else {
            text.len()
        };
        let line = self.starts.partition_point(|&s| s <= offset);
        let line_start = self.starts[line - 1];
        let column = text[line_start..offset].chars().count() + 1;
        (line, column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_index_locates_as_a_pass_from_the_start_does() {
        for text in ["", "a", "\n", "a = 1\nné = 2\n", "\n\nx\r\ny", "é\nü"] {
            let index = LineIndex::new(text);
            for offset in 0..=text.len() + 2 {
                assert_eq!(
                    index.line_column(text, offset),
                    line_column(text, offset),
                    "{text:?} at {offset}"
                );
            }
        }
    }

    #[test]
    fn line_column_counts_from_one_and_in_characters() {
        let text = "a = 1\nné = 2\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        // "né" is three bytes; the '=' after it is the fourth character.
        assert_eq!(line_column(text, 10), (2, 4));
    }

    #[test]
    fn located_display_leaves_out_what_is_unknown() {
        let e = Located::new("s.toml", "bad")
            .at(Some((3, 7)))
            .place("base_tokens");
        assert_eq!(e.to_string(), "s.toml:3:7: base_tokens: bad");
        assert_eq!(Located::new("s.toml", "bad").to_string(), "s.toml: bad");
    }

    /// Issue 16 §3: a file name or value with ESC or a line break reaches the terminal
    /// escaped, in every part of an error.
    #[test]
    fn errors_escape_what_files_control() {
        let e = Located::new("a\u{1b}[2Jb\n.toml", "\"x\u{7}\" is bad").place("[[call]] \"\r\"");
        assert_eq!(
            e.to_string(),
            "a\\u{1b}[2Jb\\n.toml: [[call]] \"\\r\": \"x\\u{7}\" is bad"
        );
        let e = Error::Unreadable {
            path: "s\u{85}.jsonl".into(),
            source: io::Error::other("gone"),
        };
        assert_eq!(e.to_string(), "s\\u{85}.jsonl: cannot read: gone");
    }
}
