//! Whether a results folder may be replaced by a new run's folder.
//!
//! A run replaces the whole of `out/<name>/`, so that the folder afterwards holds exactly
//! that run's files. Two things must never be lost that way, and each makes the run stop
//! before anything is touched:
//! - an input of the run (the scenario or its trace kept inside the output folder), found
//!   by device and inode, so another path to the same file is caught too;
//! - a file simulate did not write. What simulate wrote is listed in the folder's manifest
//!   ([`MANIFEST`]), each file with a digest of its bytes: a file changed since (a
//!   `suggested.toml` the user edited, as its header invites) is the user's now, and is
//!   refused like any other. A folder from before manifests is recognised by simulate's
//!   own file names, and one from before digests by the names its manifest lists.

use crate::error::{Error, Located};
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The list of files simulate wrote in a results folder: one a line, its name, a tab and
/// its digest ([`digest`]); comment lines start with `#`.
pub const MANIFEST: &str = ".simulate-manifest";

/// Bytes read at a time to digest a file.
const CHUNK_BYTES: usize = 1 << 16;

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

/// A digest of the bytes of the file at `path` (not following a symbolic link):
/// `xxh3-128:` and 32 hex digits, XXH3-128 of its content; None for anything but a
/// regular file, or one that cannot be read.
pub fn digest(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut file = fs::File::open(path).ok()?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buffer = vec![0u8; CHUNK_BYTES];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(format!("xxh3-128:{:032x}", hasher.digest128()))
}

/// The manifest's text for `files`: each name with its digest.
pub fn manifest(files: &[(String, String)]) -> String {
    let mut text = String::from(
        "# Files simulate wrote here, each with a digest of its bytes. Each run replaces this whole\n# folder with its own files; a file changed since is yours, and a run refuses to replace it.\n",
    );
    for (name, digest) in files {
        text.push_str(name);
        text.push('\t');
        text.push_str(digest);
        text.push('\n');
    }
    text
}

/// A run's inputs by identity, sorted: 16 bytes an input (a million sessions' paths
/// would hold about 100 MB for the rare message that names one).
#[derive(Debug, Default)]
pub struct Inputs {
    identities: Vec<Identity>,
}

impl Inputs {
    /// The identities of `paths` that exist (following symbolic links).
    pub fn of(paths: &[PathBuf]) -> Inputs {
        let mut identities: Vec<Identity> = paths.iter().filter_map(|p| identity(p)).collect();
        identities.sort_unstable();
        identities.dedup();
        Inputs { identities }
    }

    fn holds(&self, id: Identity) -> bool {
        self.identities.binary_search(&id).is_ok()
    }
}

/// Checks that replacing `target` (an existing folder) loses neither an input nor a file
/// simulate did not write. `paths`, where given, are the inputs' paths, to name the one
/// found by the path it was given as (a run's last check, at commit, names it by the
/// folder's path).
///
/// Errors: [`Error::Input`] naming the input and the file in the folder it is, or the
/// files simulate did not write; [`Error::Unwritable`] when the folder cannot be listed.
pub fn check_replaceable(
    target: &Path,
    inputs: &Inputs,
    paths: Option<&[PathBuf]>,
) -> Result<(), Error> {
    let unlistable = |source: io::Error| Error::Unwritable {
        path: target.to_path_buf(),
        source,
    };
    let ours = written_before(target);
    let mut foreign = Vec::new();
    let mut changed = Vec::new();
    for entry in fs::read_dir(target).map_err(unlistable)? {
        let entry = entry.map_err(unlistable)?;
        let meta = entry.metadata().map_err(unlistable)?;
        let path = entry.path();
        let id = (meta.dev(), meta.ino());
        if inputs.holds(id) {
            // Only on the way to an error: the input's own path, found again.
            let given = paths
                .and_then(|all| all.iter().find(|p| identity(p) == Some(id)))
                .unwrap_or(&path);
            return Err(Located::new(
                given.display().to_string(),
                format!(
                    "is also {}, in the folder this run replaces: move the input out of it or choose another --out",
                    path.display()
                ),
            )
            .into());
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if meta.is_dir() {
            foreign.push(name);
            continue;
        }
        let listed = match &ours {
            Some(files) => match files.iter().find(|(n, _)| *n == name) {
                Some((_, Some(written))) => Listed::With(written),
                Some((_, None)) => Listed::Named,
                None if name == MANIFEST => Listed::Named,
                None => Listed::Not,
            },
            None if KNOWN.contains(&name.as_str()) || old_temporary(&name) => Listed::Named,
            None => Listed::Not,
        };
        match listed {
            Listed::Not => foreign.push(name),
            Listed::With(written) if digest(&path).as_deref() != Some(written.as_str()) => {
                changed.push(name);
            }
            _ => {}
        }
    }
    if foreign.is_empty() && changed.is_empty() {
        return Ok(());
    }
    foreign.sort();
    changed.sort();
    let mut what = Vec::new();
    if !foreign.is_empty() {
        what.push(format!(
            "{} simulate did not write ({})",
            if foreign.len() == 1 {
                "a file"
            } else {
                "files"
            },
            foreign.join(", ")
        ));
    }
    if !changed.is_empty() {
        what.push(format!(
            "{} changed since simulate wrote {} ({}: edited?)",
            if changed.len() == 1 {
                "a file"
            } else {
                "files"
            },
            if changed.len() == 1 { "it" } else { "them" },
            changed.join(", ")
        ));
    }
    let many = foreign.len() + changed.len() > 1;
    Err(Located::new(
        target.display().to_string(),
        format!(
            "holds {}; each run replaces this folder with its own files, so nothing was written: move {} elsewhere or choose another --out",
            what.join(" and "),
            if many { "them" } else { "it" },
        ),
    )
    .into())
}

/// What the manifest says of a file in the folder.
enum Listed<'a> {
    /// Listed with the digest of what simulate wrote.
    With(&'a String),
    /// Listed by name alone (a manifest from before digests), or simulate's by its name.
    Named,
    Not,
}

/// The files the folder's manifest lists, each with its digest where the manifest has
/// one; `None` without a manifest.
fn written_before(target: &Path) -> Option<Vec<(String, Option<String>)>> {
    let text = fs::read_to_string(target.join(MANIFEST)).ok()?;
    Some(
        text.lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| match l.split_once('\t') {
                Some((name, digest)) => (name.to_string(), Some(digest.to_string())),
                None => (l.to_string(), None),
            })
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
        check_replaceable(dir.path(), &Inputs::default(), None).unwrap();
        // With a manifest, only what it lists.
        let summary = dir.path().join("summary.csv");
        let written = [("summary.csv".to_string(), digest(&summary).unwrap())];
        fs::write(dir.path().join(MANIFEST), manifest(&written)).unwrap();
        let e = check_replaceable(dir.path(), &Inputs::default(), None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("holds files simulate did not write (.ledger.csv.tmp-42, cost.svg)"),
            "{e}"
        );
        fs::remove_file(dir.path().join("cost.svg")).unwrap();
        fs::remove_file(dir.path().join(".ledger.csv.tmp-42")).unwrap();
        check_replaceable(dir.path(), &Inputs::default(), None).unwrap();
        // A manifest from before digests: its names alone.
        fs::write(dir.path().join(MANIFEST), "# old\nsummary.csv\n").unwrap();
        fs::write(&summary, "edited").unwrap();
        check_replaceable(dir.path(), &Inputs::default(), None).unwrap();
    }

    #[test]
    fn a_file_changed_since_simulate_wrote_it_is_the_users() {
        let dir = tempfile::tempdir().unwrap();
        let mut written = Vec::new();
        for name in ["suggested.toml", "suggest.csv"] {
            let path = dir.path().join(name);
            fs::write(&path, "[[edit]]\n").unwrap();
            written.push((name.to_string(), digest(&path).unwrap()));
        }
        fs::write(dir.path().join(MANIFEST), manifest(&written)).unwrap();
        check_replaceable(dir.path(), &Inputs::default(), None).unwrap();
        // The same size, other bytes: the digest tells.
        fs::write(dir.path().join("suggested.toml"), "[[edit]]#\n").unwrap();
        let e = check_replaceable(dir.path(), &Inputs::default(), None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("holds a file changed since simulate wrote it (suggested.toml: edited?)")
                && e.contains("nothing was written: move it elsewhere"),
            "{e}"
        );
        // A link where simulate wrote a file is not what it wrote either.
        fs::remove_file(dir.path().join("suggested.toml")).unwrap();
        std::os::unix::fs::symlink("suggest.csv", dir.path().join("suggested.toml")).unwrap();
        assert!(check_replaceable(dir.path(), &Inputs::default(), None).is_err());
    }

    #[test]
    fn a_users_file_or_folder_stops_the_run() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        fs::create_dir(dir.path().join("ledger.csv")).unwrap();
        let e = check_replaceable(dir.path(), &Inputs::default(), None)
            .unwrap_err()
            .to_string();
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
        let paths = [other_name.clone()];
        let e = check_replaceable(dir.path(), &Inputs::of(&paths), Some(&paths))
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
