//! The one error type of the library, and the exit codes it maps to.
//!
//! Exit codes live here and nowhere else: 0 ok, 1 a failure while running (a write that
//! broke half-way), 2 bad usage or bad input (the user can fix it by changing what they
//! gave us). A run that writes files and is interrupted removes what it staged and exits
//! 130 on SIGINT (Ctrl-C) or 143 on SIGTERM, 128 + the signal as shells report it (see
//! `output::set::interrupt`).

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
    #[error("{}: cannot read: {source}", path.display())]
    Unreadable { path: PathBuf, source: io::Error },
    /// The output directory cannot be created or written to.
    #[error("{}: cannot write results here: {source} (choose another root with --out DIR)", path.display())]
    Unwritable { path: PathBuf, source: io::Error },
    /// Writing an output failed part-way (disk full, say); nothing half-written is left.
    #[error("{}: writing failed: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
    /// A chart could not be drawn (a bug, not bad input).
    #[error("cannot draw a chart: {0}")]
    Chart(#[from] crate::chart::ChartError),
    /// Printing to standard output failed.
    #[error("cannot print the results: {0}")]
    Print(io::Error),
    /// A figure about to be written is infinite or not a number (a bug, not bad input).
    #[error("{0}")]
    NonFinite(#[from] crate::finite::NonFinite),
}

impl Error {
    /// The process exit code for this error: 2 for what the user can fix in their input,
    /// 1 for failures while running.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) | Error::Unreadable { .. } | Error::Unwritable { .. } => 2,
            // A reader that stops early (`simulate … | head`) is not a failure.
            Error::Print(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
            Error::Write { .. } | Error::Print(_) | Error::Chart(_) | Error::NonFinite(_) => 1,
        }
    }
}

/// A mistake in an input file or argument, with where it is.
///
/// Displayed as `file:line:column: place: message`, leaving out what is not known.
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
        write!(f, "{}", self.file)?;
        if let Some((line, column)) = self.line_column {
            write!(f, ":{line}:{column}")?;
        }
        if let Some(place) = &self.place {
            write!(f, ": {place}")?;
        }
        write!(f, ": {}", self.message)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
