//! Files written into a folder the user names and shares with other files
//! (`simulate import --out DIR`): each file is staged in a hidden folder inside `DIR` and
//! renamed into place only when all are complete, so a failed or interrupted run leaves no
//! half-written file; other files in `DIR` are left alone (unlike `OutputDir`, which owns
//! its whole folder).

use super::interrupt;
use crate::error::Error;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// Distinguishes the staging folders of one process.
static SEQUENCE: AtomicU32 = AtomicU32::new(0);

/// Files staged for one folder.
#[derive(Debug)]
pub struct FileSet {
    dir: PathBuf,
    staging: PathBuf,
    written: Vec<String>,
}

impl FileSet {
    /// Creates `dir` if needed and a staging folder in it, before any long work.
    ///
    /// Errors: [`Error::Unwritable`] when `dir` cannot be created or written (exit 2).
    pub fn prepare(dir: &Path) -> Result<FileSet, Error> {
        let unwritable = |source| Error::Unwritable {
            path: dir.to_path_buf(),
            source,
        };
        fs::create_dir_all(dir).map_err(unwritable)?;
        let staging = dir.join(format!(
            ".simulate-staging-{}-{}",
            std::process::id(),
            SEQUENCE.fetch_add(1, Ordering::Relaxed)
        ));
        interrupt::install();
        let mut staged = interrupt::staged();
        interrupt::register(&mut staged, &staging);
        if let Err(source) = fs::create_dir(&staging) {
            interrupt::unregister(&mut staged, &staging);
            return Err(unwritable(source));
        }
        Ok(FileSet {
            dir: dir.to_path_buf(),
            staging,
            written: Vec::new(),
        })
    }

    /// Writes `file_name` into the staging folder; it appears in the folder at
    /// [`commit`](Self::commit).
    ///
    /// Errors: [`Error::Write`] when the file cannot be written (exit 1).
    pub fn write(
        &mut self,
        file_name: &str,
        body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Error> {
        let target = self.dir.join(file_name);
        let failed = |source| Error::Write {
            path: target.clone(),
            source,
        };
        let file = File::create(self.staging.join(file_name)).map_err(failed)?;
        let mut out = BufWriter::new(file);
        body(&mut out).map_err(failed)?;
        out.flush().map_err(failed)?;
        self.written.push(file_name.to_string());
        Ok(())
    }

    /// Renames every staged file into the folder; returns their paths in write order.
    ///
    /// Errors: [`Error::Write`] when a rename fails; files renamed before it stay.
    pub fn commit(self) -> Result<Vec<PathBuf>, Error> {
        let mut done = Vec::with_capacity(self.written.len());
        for name in &self.written {
            let target = self.dir.join(name);
            fs::rename(self.staging.join(name), &target).map_err(|source| Error::Write {
                path: target.clone(),
                source,
            })?;
            done.push(target);
        }
        Ok(done)
    }
}

impl Drop for FileSet {
    fn drop(&mut self) {
        let mut staged = interrupt::staged();
        interrupt::unregister(&mut staged, &self.staging);
        interrupt::remove_dir(&self.staging);
    }
}
