//! Files written into a folder the user names and shares with other files (`simulate
//! import --out DIR`, the scenario `simulate fit --write` rewrites): staged in a staging
//! folder inside `DIR`, put in place together at commit or not at all; other files in `DIR`
//! are left alone (unlike [`super::OutputDir`], which owns its whole folder).
//!
//! The set holds `DIR`'s lock from [`FileSet::prepare`] to the end, so a second set for the
//! same folder waits, and what the caller checked in `DIR` after preparing (a file it would
//! replace, say) stays true until its files are in. A file that replaces another keeps the
//! other's mode and, where the process may set it, its owner. Files may be staged from
//! several threads at once (an import writes thousands); a set dropped without a commit
//! leaves nothing behind, not even the folders `prepare` made for it.

use super::{interrupt, staging};
use crate::error::{Error, Located};
use staging::Staging;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The label of a file set's staging folders: `DIR/.simulate-files.staging-<pid>-<n>/`.
const LABEL: &str = "simulate-files";
/// Where replaced files wait during a commit where the file system cannot exchange names.
const PREVIOUS: &str = "previous";

/// Files staged for one folder.
#[derive(Debug)]
pub struct FileSet {
    dir: PathBuf,
    /// `None` once dropped (before the folders `prepare` made are removed).
    staging: Option<Staging>,
    written: Mutex<Vec<OsString>>,
    /// The folders `prepare` made, outermost first: removed again, when empty, if the set
    /// is dropped without a commit.
    created: Vec<PathBuf>,
    committed: bool,
    /// `DIR`'s lock, held for the life of the set; `None` without locks.
    _dir_lock: Option<File>,
}

impl FileSet {
    /// Creates `dir` if needed, waits for any other set writing into it, and makes a
    /// staging folder in it, before any long work.
    ///
    /// Errors: [`Error::Unwritable`] when `dir` cannot be created or written (exit 2).
    pub fn prepare(dir: &Path) -> Result<FileSet, Error> {
        let unwritable = |source| Error::Unwritable {
            path: dir.to_path_buf(),
            source,
        };
        let created: Vec<PathBuf> = {
            let mut missing: Vec<PathBuf> = dir
                .ancestors()
                .filter(|a| !a.as_os_str().is_empty())
                .take_while(|a| fs::symlink_metadata(a).is_err())
                .map(Path::to_path_buf)
                .collect();
            missing.reverse();
            missing
        };
        let mut set = FileSet {
            dir: dir.to_path_buf(),
            staging: None,
            written: Mutex::new(Vec::new()),
            created,
            committed: false,
            _dir_lock: None,
        };
        fs::create_dir_all(dir).map_err(unwritable)?;
        set._dir_lock = staging::lock(dir).map_err(unwritable)?;
        set.staging = Some(Staging::create(dir, LABEL).map_err(unwritable)?);
        Ok(set)
    }

    fn staging_path(&self) -> &Path {
        // Set in `prepare`, taken only in `drop`.
        self.staging.as_ref().map_or(&self.dir, Staging::path)
    }

    /// Writes `file_name` into the staging folder; it appears in the folder at
    /// [`commit`](Self::commit), with the mode (and owner) of the file it replaces. Any
    /// number of threads may write at once.
    ///
    /// Errors: [`Error::Input`] when a folder stands where the file goes (exit 2);
    /// [`Error::Write`] when the file cannot be written (exit 1).
    pub fn write(
        &self,
        file_name: impl AsRef<OsStr>,
        body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Error> {
        let name = file_name.as_ref();
        let target = self.dir.join(name);
        let failed = |source| Error::Write {
            path: target.clone(),
            source,
        };
        let replaced = fs::symlink_metadata(&target).ok();
        if replaced.as_ref().is_some_and(fs::Metadata::is_dir) {
            return Err(Located::new(
                target.display().to_string(),
                "is a folder, where this file would go: nothing was written; move the folder or choose another --out",
            )
            .into());
        }
        let file = File::create(self.staging_path().join(name)).map_err(failed)?;
        if let Some(old) = replaced.filter(fs::Metadata::is_file) {
            file.set_permissions(old.permissions()).map_err(failed)?;
            // Only root (or the owner, for a group it is in) may: best effort.
            let _ = std::os::unix::fs::fchown(&file, Some(old.uid()), Some(old.gid()));
        }
        let mut out = BufWriter::new(file);
        body(&mut out).map_err(failed)?;
        out.flush().map_err(failed)?;
        self.written
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(name.to_os_string());
        Ok(())
    }

    /// Puts every staged file in place, all or none: when one cannot be, those already in
    /// place are taken back and the files they replaced restored. Then removes the staging
    /// folders killed runs left in the folder. Returns the paths in name order (the order
    /// they go in).
    ///
    /// Errors: [`Error::Write`] when a file cannot be put in place; the folder is then as
    /// it was.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, Error> {
        let mut written = std::mem::take(
            self.written
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        );
        written.sort();
        let staging = self.staging_path().to_path_buf();
        let previous = staging.join(PREVIOUS);
        {
            // The interrupt watcher waits for this lock: Ctrl-C never stops a set half-way in.
            let _staged = interrupt::staged();
            let mut done = Vec::with_capacity(written.len());
            for name in &written {
                let paths = Paths {
                    staged: staging.join(name),
                    target: self.dir.join(name),
                    aside: previous.join(name),
                };
                match put(&paths) {
                    Ok(how) => done.push((paths, how)),
                    Err(source) => {
                        for (taken_back, how) in done.iter().rev() {
                            undo(taken_back, *how);
                        }
                        return Err(Error::Write {
                            path: paths.target,
                            source,
                        });
                    }
                }
            }
        }
        self.committed = true;
        staging::remove_stale(&self.dir, LABEL);
        Ok(written.iter().map(|n| self.dir.join(n)).collect())
    }
}

impl Drop for FileSet {
    /// Without a commit, the staging folder goes, and so do the folders `prepare` made when
    /// nothing else is in them: a refused set leaves the file system as it found it.
    fn drop(&mut self) {
        drop(self.staging.take());
        if !self.committed {
            for dir in self.created.iter().rev() {
                if fs::remove_dir(dir).is_err() {
                    break;
                }
            }
        }
    }
}

/// Where one file of a set is during a commit.
struct Paths {
    /// In the staging folder: the new file, and after an exchange the one it replaced.
    staged: PathBuf,
    target: PathBuf,
    /// Where the replaced file waits when names cannot be exchanged.
    aside: PathBuf,
}

/// How a file was put in place, to take it back.
#[derive(Clone, Copy)]
enum Put {
    Added,
    Exchanged,
    MovedAside,
}

/// Puts one staged file in place: exchanged with the file it replaces (which lands in the
/// staging folder), or moved where there is none.
fn put(p: &Paths) -> io::Result<Put> {
    let Ok(meta) = fs::symlink_metadata(&p.target) else {
        staging::rename_new(&p.staged, &p.target)?;
        return Ok(Put::Added);
    };
    // An exchange with a folder would carry the folder into the staging folder, which is
    // removed: never.
    if meta.is_dir() {
        return Err(io::Error::other(
            "a folder stands where the file goes; nothing was written",
        ));
    }
    if staging::exchange(&p.staged, &p.target)? {
        return Ok(Put::Exchanged);
    }
    if let Some(parent) = p.aside.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::rename(&p.target, &p.aside)?;
    if let Err(e) = fs::rename(&p.staged, &p.target) {
        let _ = fs::rename(&p.aside, &p.target);
        return Err(e);
    }
    Ok(Put::MovedAside)
}

/// Takes back a file [`put`] put in place, restoring the one it replaced. Best effort: the
/// error that caused the rollback is the one reported.
fn undo(p: &Paths, how: Put) {
    let _ = match how {
        Put::Added => fs::rename(&p.target, &p.staged),
        Put::Exchanged => staging::exchange(&p.staged, &p.target).map(|_| ()),
        Put::MovedAside => {
            fs::rename(&p.target, &p.staged).and_then(|()| fs::rename(&p.aside, &p.target))
        }
    };
}

/// Replaces the file at `path` with `bytes`, whole or not at all, keeping its mode (and
/// owner where allowed). Through a symbolic link: the file it points to is replaced and the
/// link stays.
///
/// Errors: [`Error::Unwritable`] when the file or its folder cannot be found or written
/// (exit 2); [`Error::Write`] when writing fails part-way (exit 1).
pub fn replace_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let unwritable = |source| Error::Unwritable {
        path: path.to_path_buf(),
        source,
    };
    let real = fs::canonicalize(path).map_err(unwritable)?;
    let (Some(dir), Some(name)) = (real.parent(), real.file_name()) else {
        return Err(unwritable(io::Error::other("not a file")));
    };
    let set = FileSet::prepare(dir)?;
    set.write(name, |w| w.write_all(bytes))?;
    set.commit().map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::super::names;
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_commit_that_fails_half_way_puts_everything_back() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.toml"), "old a").unwrap();
        let set = FileSet::prepare(dir.path()).unwrap();
        for name in ["a.toml", "b.toml", "c.toml"] {
            set.write(name, |w| w.write_all(format!("new {name}").as_bytes()))
                .unwrap();
        }
        // A folder appears where the last file goes after it was staged.
        fs::create_dir(dir.path().join("c.toml")).unwrap();
        fs::write(dir.path().join("c.toml/mine"), "keep").unwrap();
        let e = set.commit().unwrap_err();
        assert!(e.to_string().contains("c.toml: writing failed"), "{e}");
        assert_eq!(
            fs::read_to_string(dir.path().join("a.toml")).unwrap(),
            "old a"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("c.toml/mine")).unwrap(),
            "keep"
        );
        assert_eq!(names(dir.path()), ["a.toml", "c.toml"]);
    }

    #[test]
    fn a_set_dropped_without_a_commit_leaves_nothing_not_even_its_folders() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("new/deeper");
        let set = FileSet::prepare(&out).unwrap();
        set.write("a.toml", |w| w.write_all(b"a")).unwrap();
        assert!(out.exists());
        drop(set);
        assert_eq!(names(dir.path()), Vec::<String>::new());
        // A folder that was there stays, and so does what is in it.
        fs::create_dir(dir.path().join("kept")).unwrap();
        let set = FileSet::prepare(&dir.path().join("kept/new")).unwrap();
        drop(set);
        assert_eq!(names(dir.path()), ["kept"]);
        assert_eq!(names(&dir.path().join("kept")), Vec::<String>::new());
    }

    #[test]
    fn files_staged_from_many_threads_go_in_together() {
        use rayon::prelude::*;
        let dir = tempfile::tempdir().unwrap();
        let set = FileSet::prepare(dir.path()).unwrap();
        (0..200).into_par_iter().for_each(|i| {
            set.write(format!("{i:03}.toml"), |w| write!(w, "{i}"))
                .unwrap();
        });
        let paths = set.commit().unwrap();
        assert_eq!(paths.len(), 200);
        assert_eq!(paths[7], dir.path().join("007.toml"));
        assert_eq!(names(dir.path()).len(), 200);
        assert_eq!(
            fs::read_to_string(dir.path().join("199.toml")).unwrap(),
            "199"
        );
    }

    #[test]
    fn the_fallback_renames_are_undone_too() {
        let dir = tempfile::tempdir().unwrap();
        let p = Paths {
            staged: dir.path().join("staged"),
            target: dir.path().join("t"),
            aside: dir.path().join("previous/t"),
        };
        fs::write(&p.target, "old").unwrap();
        fs::write(&p.staged, "new").unwrap();
        fs::create_dir(dir.path().join("previous")).unwrap();
        fs::rename(&p.target, &p.aside).unwrap();
        fs::rename(&p.staged, &p.target).unwrap();
        undo(&p, Put::MovedAside);
        assert_eq!(fs::read_to_string(&p.target).unwrap(), "old");
        assert_eq!(fs::read_to_string(&p.staged).unwrap(), "new");
    }

    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_link_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.toml");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink("real.toml", &link).unwrap();
        replace_file(&link, b"new").unwrap();
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(fs::read_link(&link).unwrap(), Path::new("real.toml"));
        assert_eq!(names(dir.path()), ["link.toml", "real.toml"]);
    }
}
