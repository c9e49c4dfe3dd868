//! Whether a results folder may be replaced by a new run's folder.
//!
//! A run replaces the whole of `out/<name>/`, so that the folder afterwards holds exactly
//! that run's files. Two things must never be lost that way, and each makes the run stop
//! before anything is touched:
//! - an input of the run (the scenario or its trace kept inside the output folder), found
//!   by device and inode, so another path to the same file is caught too;
//! - a file simulate did not write. What simulate wrote is listed in the folder's manifest
//!   ([`MANIFEST`]); a folder from before manifests is recognised by simulate's own file
//!   names.

use crate::error::{Error, Located};
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The list of files simulate wrote in a results folder, one name a line.
pub const MANIFEST: &str = ".simulate-manifest";

/// What simulate wrote before it kept a manifest.
const KNOWN: [&str; 10] = [
    "summary.csv",
    "sweep.csv",
    "ledger.csv",
    "report.html",
    "savings.svg",
    "ranking.svg",
    "ranking-cost.svg",
    "context.svg",
    "totals.svg",
    "cost.svg",
];

/// A file's identity: its device and inode.
pub type Identity = (u64, u64);

/// The identity of the file at `path` (following symbolic links), if it exists.
pub fn identity(path: &Path) -> Option<Identity> {
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The manifest's text for `names`.
pub fn manifest(names: &[String]) -> String {
    let mut text = String::from(
        "# Files simulate wrote here. Each run replaces this whole folder with its own files.\n",
    );
    for name in names {
        text.push_str(name);
        text.push('\n');
    }
    text
}

/// Checks that replacing `target` (an existing folder) loses neither an input nor a file
/// simulate did not write.
///
/// Errors: [`Error::Input`] naming the input and the file in the folder it is, or the
/// files simulate did not write; [`Error::Unwritable`] when the folder cannot be listed.
pub fn check_replaceable(target: &Path, inputs: &[(PathBuf, Identity)]) -> Result<(), Error> {
    let unlistable = |source: io::Error| Error::Unwritable {
        path: target.to_path_buf(),
        source,
    };
    let ours = written_before(target);
    let mut foreign = Vec::new();
    for entry in fs::read_dir(target).map_err(unlistable)? {
        let entry = entry.map_err(unlistable)?;
        let meta = entry.metadata().map_err(unlistable)?;
        let path = entry.path();
        if let Some((input, _)) = inputs
            .iter()
            .find(|(_, id)| *id == (meta.dev(), meta.ino()))
        {
            return Err(Located::new(
                input.display().to_string(),
                format!(
                    "is also {}, in the folder this run replaces: move the input out of it or choose another --out",
                    path.display()
                ),
            )
            .into());
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_ours = match &ours {
            Some(names) => names.contains(&name) || name == MANIFEST,
            None => KNOWN.contains(&name.as_str()) || old_temporary(&name),
        };
        if !is_ours || meta.is_dir() {
            foreign.push(name);
        }
    }
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    Err(Located::new(
        target.display().to_string(),
        format!(
            "holds {} simulate did not write ({}); each run replaces this folder with its own files, so move {} elsewhere or choose another --out",
            if foreign.len() == 1 { "a file" } else { "files" },
            foreign.join(", "),
            if foreign.len() == 1 { "it" } else { "them" },
        ),
    )
    .into())
}

/// The names the folder's manifest lists, or `None` without a manifest.
fn written_before(target: &Path) -> Option<Vec<String>> {
    let text = fs::read_to_string(target.join(MANIFEST)).ok()?;
    Some(
        text.lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect(),
    )
}

/// `.summary.csv.tmp-1234`: a temporary an earlier version left when it was killed.
fn old_temporary(name: &str) -> bool {
    name.starts_with('.')
        && name
            .rsplit_once(".tmp-")
            .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_of_simulate_files_may_be_replaced() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["summary.csv", "cost.svg", ".ledger.csv.tmp-42"] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        check_replaceable(dir.path(), &[]).unwrap();
        // With a manifest, only what it lists.
        fs::write(dir.path().join(MANIFEST), manifest(&["summary.csv".into()])).unwrap();
        let e = check_replaceable(dir.path(), &[]).unwrap_err().to_string();
        assert!(
            e.contains("holds files simulate did not write (.ledger.csv.tmp-42, cost.svg)"),
            "{e}"
        );
    }

    #[test]
    fn a_users_file_or_folder_stops_the_run() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        fs::create_dir(dir.path().join("ledger.csv")).unwrap();
        let e = check_replaceable(dir.path(), &[]).unwrap_err().to_string();
        assert!(e.contains("(ledger.csv, notes.txt)"), "{e}");
    }

    #[test]
    fn an_input_inside_the_folder_is_named_by_both_paths() {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("summary.csv");
        fs::write(&inside, "x").unwrap();
        let other_name = dir
            .path()
            .join("..")
            .join(dir.path().file_name().unwrap())
            .join("summary.csv");
        let inputs = [(other_name.clone(), identity(&other_name).unwrap())];
        let e = check_replaceable(dir.path(), &inputs)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "{}: is also {}",
                other_name.display(),
                inside.display()
            )),
            "{e}"
        );
    }
}
