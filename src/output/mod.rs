//! Everything `simulate` writes: the table and JSON on stdout, CSV files and charts in
//! `out/<name>/`.
//!
//! A run's files are written together or not at all. They are staged in a folder of their
//! own beside the target (`out/.<name>.staging-<pid>-<n>/`), and when every file is
//! complete that folder is swapped with `out/<name>/` in one atomic rename (Linux
//! `RENAME_EXCHANGE`; two renames where the file system lacks it), and the previous
//! folder is removed. So the folder holds exactly one run's files: never half-written
//! ones, never a mix of two concurrent runs, never an earlier run's charts after a
//! `--no-charts` rerun. Before anything is touched the folder is checked
//! ([`folder::check_replaceable`]): a run refuses to replace an input or a file it did not
//! write.
//!
//! Each staging folder is locked (`flock`) by its run for as long as the run lives; a run
//! removes the staging folders it can lock, whose owners are proven gone. Creating,
//! cleaning and swapping happen under a lock on the `--out` folder, so they never
//! interleave between runs. Ctrl-C and SIGTERM remove what is staged ([`interrupt`]).

pub mod charts;
pub mod csv;
pub mod file_set;
pub mod folder;
pub mod html;
pub mod interrupt;
pub mod json;
pub mod ledger_csv;
pub mod ledger_stream;
pub mod number;
pub mod table;

use crate::error::{Error, Located};
use folder::Identity;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A results folder being written: files go to a staging folder, which replaces the
/// target at [`commit`](Self::commit) or is removed when dropped.
#[derive(Debug)]
pub struct OutputDir {
    root: PathBuf,
    name: String,
    /// `root/name`.
    target: PathBuf,
    /// `root/.name.staging-…`.
    staging: PathBuf,
    /// Holds the staging folder's lock for the life of the run.
    _staging_lock: File,
    inputs: Vec<(PathBuf, Identity)>,
    written: Vec<String>,
    committed: bool,
}

/// Distinguishes the staging folders of one process.
static SEQUENCE: AtomicU32 = AtomicU32::new(0);

/// Part of every staging folder's name, to find stale ones.
const STAGING: &str = ".staging-";

impl OutputDir {
    /// Prepares to write `root/name/`, before any long work starts: creates `root`,
    /// removes stale staging folders, checks that the existing folder may be replaced
    /// (none of `inputs` is in it, nothing in it that simulate did not write), and creates
    /// this run's staging folder.
    ///
    /// Errors: [`Error::Unwritable`] when `root` cannot be created or written (exit 2);
    /// [`Error::Input`] when the folder holds an input or a file simulate did not write.
    pub fn prepare(root: &Path, name: &str, inputs: &[PathBuf]) -> Result<OutputDir, Error> {
        let unwritable = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Unwritable { path, source }
        };
        let target = root.join(name);
        // A file where the folder should be: say so, not "File exists (os error 17)".
        if root.exists() && !root.is_dir() {
            return Err(Located::new(
                root.display().to_string(),
                "is a file, not a folder: --out names the folder the results go in",
            )
            .into());
        }
        fs::create_dir_all(root).map_err(unwritable(root))?;
        let _root_lock = lock_root(root)?;
        remove_stale(root);
        check_target(&target)?;
        let inputs: Vec<(PathBuf, Identity)> = inputs
            .iter()
            .filter_map(|p| folder::identity(p).map(|id| (p.clone(), id)))
            .collect();
        if target.is_dir() {
            folder::check_replaceable(&target, &inputs)?;
        }
        let staging = root.join(format!(
            ".{name}{STAGING}{}-{}",
            std::process::id(),
            SEQUENCE.fetch_add(1, Ordering::Relaxed)
        ));
        interrupt::install();
        let lock = {
            let mut staged = interrupt::staged();
            interrupt::register(&mut staged, &staging);
            // The lock is best effort: a file system without locks still gets its files,
            // but then a stale folder cannot be told from a live one and is never removed.
            let made = fs::create_dir(&staging)
                .and_then(|()| File::open(&staging))
                .inspect(|dir| {
                    let _ = dir.try_lock();
                });
            match made {
                Ok(lock) => lock,
                Err(source) => {
                    interrupt::unregister(&mut staged, &staging);
                    interrupt::remove_dir(&staging);
                    return Err(Error::Unwritable {
                        path: root.to_path_buf(),
                        source,
                    });
                }
            }
        };
        Ok(OutputDir {
            root: root.to_path_buf(),
            name: name.to_string(),
            target,
            staging,
            _staging_lock: lock,
            inputs,
            written: Vec::new(),
            committed: false,
        })
    }

    /// The folder the files go to.
    pub fn dir(&self) -> &Path {
        &self.target
    }

    /// Writes `file_name` into the staging folder; it appears in the target folder at
    /// [`commit`](Self::commit).
    ///
    /// Errors: [`Error::Write`] when creating or writing the file fails (exit 1).
    pub fn write(
        &mut self,
        file_name: &str,
        body: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<()>,
    ) -> Result<(), Error> {
        let failed = |source| Error::Write {
            path: self.target.join(file_name),
            source,
        };
        let file = File::create(self.staging.join(file_name)).map_err(failed)?;
        self.written.push(file_name.to_string());
        let mut out = BufWriter::with_capacity(1 << 16, file);
        body(&mut out).map_err(failed)?;
        // No fsync: the swap guards against an interrupted run, which is what users hit;
        // syncing hundreds of megabytes of ledger would double the run time.
        out.flush().map_err(failed)?;
        Ok(())
    }

    /// Puts the staged folder in place of the target, removing the previous folder;
    /// returns the paths of the files written.
    ///
    /// Errors: [`Error::Input`] when the folder now holds a file simulate did not write or
    /// an input (checked again: it may have changed during the run); [`Error::Write`] when
    /// the manifest or the swap fails. On any error the target is left as it was.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, Error> {
        let manifest = folder::manifest(&self.written);
        fs::write(self.staging.join(folder::MANIFEST), manifest).map_err(|source| {
            Error::Write {
                path: self.target.join(folder::MANIFEST),
                source,
            }
        })?;
        let _root_lock = lock_root(&self.root)?;
        check_target(&self.target)?;
        let exists = self.target.is_dir();
        if exists {
            folder::check_replaceable(&self.target, &self.inputs)?;
        }
        let failed = |source| Error::Write {
            path: self.target.clone(),
            source,
        };
        {
            let mut staged = interrupt::staged();
            if exists {
                let old = swap(&self.root, &self.staging, &self.name).map_err(failed)?;
                // The staging name now holds the previous folder, or `old` does.
                interrupt::unregister(&mut staged, &self.staging);
                interrupt::register(&mut staged, &old);
                self.staging = old;
            } else {
                fs::rename(&self.staging, &self.target).map_err(failed)?;
                interrupt::unregister(&mut staged, &self.staging);
            }
            self.committed = true;
        }
        if exists {
            interrupt::remove_dir(&self.staging);
            interrupt::unregister(&mut interrupt::staged(), &self.staging);
        }
        Ok(self.written.iter().map(|n| self.target.join(n)).collect())
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        if !self.committed {
            let mut staged = interrupt::staged();
            interrupt::remove_dir(&self.staging);
            interrupt::unregister(&mut staged, &self.staging);
        }
    }
}

/// Exchanges `root/staging` with `root/name` atomically; returns where the previous folder
/// now is. Falls back to two renames where the file system cannot exchange.
fn swap(root: &Path, staging: &Path, name: &str) -> io::Result<PathBuf> {
    let target = root.join(name);
    match rustix::fs::renameat_with(
        rustix::fs::CWD,
        staging,
        rustix::fs::CWD,
        &target,
        rustix::fs::RenameFlags::EXCHANGE,
    ) {
        Ok(()) => return Ok(staging.to_path_buf()),
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {}
        Err(e) => return Err(e.into()),
    }
    let old = root.join(format!(".{name}.old-{}", std::process::id()));
    fs::rename(&target, &old)?;
    if let Err(e) = fs::rename(staging, &target) {
        let _ = fs::rename(&old, &target);
        return Err(e);
    }
    Ok(old)
}

/// An existing target must be a real folder (not a file, not a symbolic link).
fn check_target(target: &Path) -> Result<(), Error> {
    match fs::symlink_metadata(target) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(Error::Unwritable {
            path: target.to_path_buf(),
            source: io::Error::other(if m.is_symlink() {
                "is a symbolic link; give --out the folder it points to"
            } else {
                "is a file, not a folder"
            }),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Unwritable {
            path: target.to_path_buf(),
            source,
        }),
    }
}

/// Locks the `--out` folder against other runs' staging, cleaning and swapping; the lock
/// is released when the returned file is dropped. A file system without locks is used
/// without them.
fn lock_root(root: &Path) -> Result<Option<File>, Error> {
    let dir = File::open(root).map_err(|source| Error::Unwritable {
        path: root.to_path_buf(),
        source,
    })?;
    Ok(dir.lock().ok().map(|()| dir))
}

/// Whether `name` is one of the folders a run makes beside its target:
/// `.<name>.staging-<pid>-<n>` or `.<name>.old-<pid>`. Nothing else is ever removed.
fn ours(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !name.starts_with('.') {
        return false;
    }
    if let Some((_, suffix)) = name.rsplit_once(STAGING) {
        return suffix
            .split_once('-')
            .is_some_and(|(pid, n)| digits(pid) && digits(n));
    }
    name.rsplit_once(".old-")
        .is_some_and(|(_, pid)| digits(pid))
}

/// Removes the staging folders in `root` whose runs are gone: a live run holds its
/// folder's lock, so a folder whose lock can be taken has no owner.
fn remove_stale(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !ours(&name) {
            continue;
        }
        let path = entry.path();
        let Ok(dir) = File::open(&path) else {
            continue;
        };
        if dir.try_lock().is_ok() {
            interrupt::remove_dir(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_appear_only_on_commit_and_temporaries_vanish_on_drop() {
        let root = tempfile::tempdir().unwrap();
        let mut out = OutputDir::prepare(root.path(), "s", &[]).unwrap();
        out.write("a.csv", |w: &mut (dyn Write + Send)| w.write_all(b"x\n"))
            .unwrap();
        assert!(!root.path().join("s/a.csv").exists());
        let written = out.commit().unwrap();
        assert_eq!(fs::read_to_string(&written[0]).unwrap(), "x\n");

        let mut out = OutputDir::prepare(root.path(), "s", &[]).unwrap();
        let failed = out.write("b.csv", |_: &mut (dyn Write + Send)| {
            Err(io::Error::other("boom"))
        });
        assert!(failed.is_err());
        drop(out);
        let mut names: Vec<_> = fs::read_dir(root.path().join("s"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, vec![folder::MANIFEST, "a.csv"]);
        // Nothing staged is left beside it.
        assert_eq!(fs::read_dir(root.path()).unwrap().count(), 1);
    }

    #[test]
    fn only_folders_a_run_makes_count_as_stale() {
        assert!(ours(".merge.staging-123-0"));
        assert!(ours(".merge.old-77"));
        assert!(!ours(".merge.staging-backup"));
        assert!(!ours(".config.old-copy"));
        assert!(!ours("merge.staging-1-2"));
    }
}
