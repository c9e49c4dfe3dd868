//! Output sets: how every command that writes files writes them (a scenario run's folder,
//! a history's folder, an import's scenarios, the scenario `fit --write` rewrites).
//!
//! Every set is staged, locked, committed whole or not at all, cleaned after a crash, and
//! never touches what it did not write:
//! - **staged**: files are written into a staging folder beside what they replace
//!   ([`staging`]), so nothing half-written is ever in place;
//! - **locked**: the staging folder is locked by its run for as long as the run lives, and
//!   the folder it commits into is locked while it commits (an import: for its whole life),
//!   so two sets never interleave;
//! - **whole**: a results folder is swapped in with one atomic rename
//!   ([`OutputDir`]); files in a shared folder go in one by one and are all taken back,
//!   the files they replaced restored, if one cannot go in ([`FileSet`]);
//! - **cleaned**: Ctrl-C and SIGTERM remove what is staged ([`interrupt`]); a folder a
//!   killed run left is removed by a later run of the same set, after it committed, and
//!   only when it is provably simulate's and provably dead (its marker file, its lock free);
//! - **nothing else**: a run refuses to replace an input or a file it did not write
//!   ([`folder`]), and writes nowhere but its target and its staging folder beside it.

pub mod file_set;
pub mod folder;
pub mod interrupt;
mod marker;
pub mod output_dir;
pub mod staging;

pub use file_set::{FileSet, replace_file};
pub use output_dir::OutputDir;

/// The names in `dir`, sorted: what the tests of a set compare.
#[cfg(test)]
pub(crate) fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
