//! Everything `simulate` writes: the table and JSON on stdout, CSV files and charts in
//! `out/<name>/`.
//!
//! Every set of files is written through [`set`]: staged, locked, committed whole or not
//! at all, cleaned after a crash.

pub mod breaks;
pub mod charts;
pub mod csv;
pub mod html;
mod html_escape;
pub(crate) mod html_live;
pub mod html_refetch;
pub mod json;
pub mod ledger_csv;
pub mod ledger_stream;
pub mod set;
pub mod table;

pub use set::{FileSet, OutputDir};

/// What a subcommand prints on stdout: a table for people or JSON for programs (the main
/// run adds CSV: `command::scenario::RunFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
}
