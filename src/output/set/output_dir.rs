//! A results folder (`out/<name>/`) written whole: a scenario run's or a history's.
//!
//! The files are written into `set/` inside the run's staging folder
//! (`out/.<name>.staging-<pid>-<n>/set/`); at commit `set/` and `out/<name>/` are exchanged
//! in one atomic rename, so the previous folder lands inside the staging folder and goes
//! with it. Before anything is written the folder is checked ([`folder::check_replaceable`]):
//! a run refuses to replace an input or a file it did not write.

use super::{folder, interrupt, staging};
use crate::error::{Error, Located};
use staging::Staging;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The folder in a staging folder that becomes the target.
const SET: &str = "set";
/// Where the previous folder goes where the file system cannot exchange two names.
const PREVIOUS: &str = "previous";

/// A results folder being written: files go to a staging folder, which replaces the
/// target at [`commit`](Self::commit) or is removed when dropped.
#[derive(Debug)]
pub struct OutputDir {
    root: PathBuf,
    name: String,
    /// `root/name`.
    target: PathBuf,
    /// `root/.name.staging-…/`, marked and locked; removed when this is dropped.
    staging: Staging,
    /// `set/` in it: the folder that becomes the target.
    files: PathBuf,
    inputs: folder::Inputs,
    written: Vec<String>,
    /// Dropped after `staging` (fields drop in order), so the folders made are empty then.
    _made: Made,
}

/// The folders `prepare` made for `--out`, innermost first: removed when dropped while
/// they are empty, so a run that fails leaves no new empty folder (after a commit the
/// innermost holds the results, and none is removed).
#[derive(Debug)]
struct Made(Vec<PathBuf>);

impl Drop for Made {
    fn drop(&mut self) {
        for dir in &self.0 {
            if fs::remove_dir(dir).is_err() {
                break;
            }
        }
    }
}

impl OutputDir {
    /// Prepares to write `root/name/`, before any long work starts: creates `root`, checks
    /// that the existing folder may be replaced (none of `inputs` is in it, nothing in it
    /// that simulate did not write), and creates this run's staging folder. Removes nothing:
    /// stale staging folders are cleaned only once a run has committed.
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
        // The folders made for `--out`, innermost first: an interrupt removes them again
        // while they are empty (a run that fails or stops leaves no new empty folder).
        let made: Vec<PathBuf> = root
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
            .map(Path::to_path_buf)
            .collect();
        fs::create_dir_all(root).map_err(unwritable(root))?;
        for dir in &made {
            super::interrupt::note_created(dir);
        }
        let made = Made(made);
        let _root_lock = lock_root(root)?;
        check_target(&target)?;
        let paths = inputs;
        let inputs = folder::Inputs::of(paths);
        if target.is_dir() {
            folder::check_replaceable(&target, &inputs, Some(paths))?;
        }
        let staging = Staging::create(root, name).map_err(unwritable(root))?;
        let files = staging.path().join(SET);
        fs::create_dir(&files).map_err(unwritable(root))?;
        Ok(OutputDir {
            root: root.to_path_buf(),
            name: name.to_string(),
            target,
            staging,
            files,
            inputs,
            written: Vec::new(),
            _made: made,
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
        let file = File::create(self.files.join(file_name)).map_err(failed)?;
        self.written.push(file_name.to_string());
        let mut out = BufWriter::with_capacity(1 << 16, file);
        body(&mut out).map_err(failed)?;
        // No fsync: the swap guards against an interrupted run, which is what users hit;
        // syncing hundreds of megabytes of ledger would double the run time.
        out.flush().map_err(failed)?;
        Ok(())
    }

    /// Creates `file_name` in the staging folder for a command that writes several files at
    /// once as its work goes (a history streams its records into three); it appears in the
    /// target folder at [`commit`](Self::commit), like a file of [`write`](Self::write).
    /// The caller flushes it, and names a failure with [`Error::Write`] on
    /// `self.dir().join(file_name)`.
    ///
    /// Errors: [`Error::Write`] when the file cannot be created (exit 1).
    pub fn create(&mut self, file_name: &str) -> Result<BufWriter<File>, Error> {
        let file = File::create(self.files.join(file_name)).map_err(|source| Error::Write {
            path: self.target.join(file_name),
            source,
        })?;
        self.written.push(file_name.to_string());
        Ok(BufWriter::with_capacity(1 << 16, file))
    }

    /// Puts the staged folder in place of the target, removing the previous folder and the
    /// stale staging folders of earlier runs of this name; returns the paths of the files
    /// written.
    ///
    /// Errors: [`Error::Input`] when the folder now holds a file simulate did not write or
    /// an input (checked again: it may have changed during the run); [`Error::Write`] when
    /// the manifest or the swap fails. On any error the target is left as it was.
    pub fn commit(self) -> Result<Vec<PathBuf>, Error> {
        // What was written, by content: a file changed after this commit is the user's.
        let written: Vec<(String, String)> = self
            .written
            .iter()
            .map(|name| {
                let digest =
                    folder::digest(&self.files.join(name)).ok_or_else(|| Error::Write {
                        path: self.target.join(name),
                        source: io::Error::other("the staged file cannot be read back"),
                    })?;
                Ok((name.clone(), digest))
            })
            .collect::<Result<_, Error>>()?;
        let manifest = folder::manifest(&written);
        fs::write(self.files.join(folder::MANIFEST), manifest).map_err(|source| Error::Write {
            path: self.target.join(folder::MANIFEST),
            source,
        })?;
        let _root_lock = lock_root(&self.root)?;
        check_target(&self.target)?;
        let exists = self.target.is_dir();
        if exists {
            folder::check_replaceable(&self.target, &self.inputs, None)?;
        }
        {
            // The interrupt watcher waits for this lock, so it never removes the staging
            // folder half-way through the swap.
            let _staged = interrupt::staged();
            let swapped = if exists {
                swap(
                    &self.files,
                    &self.target,
                    &self.staging.path().join(PREVIOUS),
                )
            } else {
                fs::rename(&self.files, &self.target)
            };
            swapped.map_err(|source| Error::Write {
                path: self.target.clone(),
                source,
            })?;
        }
        staging::remove_stale(&self.root, &self.name);
        Ok(self.written.iter().map(|n| self.target.join(n)).collect())
    }
}

/// Exchanges the folders `new` and `target` atomically, so `new` then holds the previous
/// folder; where the file system cannot exchange, moves `target` to `aside` first.
fn swap(new: &Path, target: &Path, aside: &Path) -> io::Result<()> {
    if staging::exchange(new, target)? {
        return Ok(());
    }
    swap_by_renames(new, target, aside)
}

/// Two renames, the target restored if the second fails.
fn swap_by_renames(new: &Path, target: &Path, aside: &Path) -> io::Result<()> {
    fs::rename(target, aside)?;
    if let Err(e) = fs::rename(new, target) {
        let _ = fs::rename(aside, target);
        return Err(e);
    }
    Ok(())
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

/// Locks the `--out` folder against other sets' staging, committing and cleaning.
fn lock_root(root: &Path) -> Result<Option<File>, Error> {
    staging::lock(root).map_err(|source| Error::Unwritable {
        path: root.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::super::names;
    use super::*;

    /// A run that fails after `prepare` (a spill that found no room, a bad session) leaves
    /// none of the folders it made for `--out`; one that commits keeps them.
    #[test]
    fn the_folders_made_for_out_go_with_a_run_that_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("a/b");
        let out = OutputDir::prepare(&root, "s", &[]).unwrap();
        // What else the run put in `--out` meanwhile, and took away (a spill's folder).
        fs::create_dir(root.join(".spill")).unwrap();
        fs::remove_dir(root.join(".spill")).unwrap();
        drop(out);
        assert!(!tmp.path().join("a").exists());
        let mut out = OutputDir::prepare(&root, "s", &[]).unwrap();
        out.write("x.txt", |w| w.write_all(b"x")).unwrap();
        out.commit().unwrap();
        assert!(root.join("s/x.txt").is_file());
        // A folder that was there before is never removed.
        let kept = tmp.path().join("kept");
        fs::create_dir(&kept).unwrap();
        drop(OutputDir::prepare(&kept, "s", &[]).unwrap());
        assert!(kept.is_dir());
    }

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
        assert_eq!(names(&root.path().join("s")), [folder::MANIFEST, "a.csv"]);
        // Nothing staged is left beside it.
        assert_eq!(names(root.path()), ["s"]);
    }

    #[test]
    fn the_fallback_swap_restores_the_target_when_the_second_rename_fails() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("s");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("a.csv"), "old").unwrap();
        let aside = root.path().join("aside");
        // `new` does not exist: the second rename fails.
        let e = swap_by_renames(&root.path().join("missing"), &target, &aside);
        assert!(e.is_err());
        assert_eq!(fs::read_to_string(target.join("a.csv")).unwrap(), "old");
        assert!(!aside.exists());
    }
}
