//! Everything `simulate` writes: the table and JSON on stdout, CSV files and charts in
//! `out/<name>/`.
//!
//! Files are staged: each is written under a temporary name in the target directory and
//! renamed into place only when every file of the run is complete, so an interrupted or
//! failed run leaves no half-written file behind.

pub mod charts;
pub mod csv;
pub mod html;
pub mod json;
pub mod ledger_csv;
pub mod ledger_stream;
pub mod number;
pub mod table;

use crate::error::Error;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A results directory whose files are written to temporary names, then renamed together.
#[derive(Debug)]
pub struct OutputDir {
    dir: PathBuf,
    staged: Vec<(PathBuf, PathBuf)>,
}

impl OutputDir {
    /// Creates `root/name/` and checks it can be written, before any long work starts.
    pub fn prepare(root: &Path, name: &str) -> Result<OutputDir, Error> {
        let dir = root.join(name);
        let unwritable = |source| Error::Unwritable {
            path: dir.clone(),
            source,
        };
        fs::create_dir_all(&dir).map_err(unwritable)?;
        let probe = dir.join(format!(".simulate-probe-{}", std::process::id()));
        File::create(&probe).map_err(unwritable)?;
        let _ = fs::remove_file(&probe);
        Ok(OutputDir {
            dir,
            staged: Vec::new(),
        })
    }

    /// The directory the files go to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `file_name` under a temporary name; it appears under its own name at
    /// [`commit`](Self::commit).
    pub fn write(
        &mut self,
        file_name: &str,
        body: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<()>,
    ) -> Result<(), Error> {
        let target = self.dir.join(file_name);
        let temp = self
            .dir
            .join(format!(".{file_name}.tmp-{}", std::process::id()));
        let failed = |source| Error::Write {
            path: target.clone(),
            source,
        };
        // Staged before writing, so a failure part-way still removes the temporary file.
        self.staged.push((temp.clone(), target.clone()));
        let file = File::create(&temp).map_err(failed)?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        body(&mut out).map_err(failed)?;
        // No fsync: the rename guards against an interrupted run, which is what users hit;
        // syncing hundreds of megabytes of ledger would double the run time.
        out.flush().map_err(failed)?;
        Ok(())
    }

    /// Renames every staged file into place; returns their final paths.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, Error> {
        let staged = std::mem::take(&mut self.staged);
        let mut done = Vec::with_capacity(staged.len());
        for (temp, target) in staged {
            if let Err(source) = fs::rename(&temp, &target) {
                let _ = fs::remove_file(&temp);
                return Err(Error::Write {
                    path: target,
                    source,
                });
            }
            done.push(target);
        }
        Ok(done)
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        for (temp, _) in &self.staged {
            let _ = fs::remove_file(temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_appear_only_on_commit_and_temporaries_vanish_on_drop() {
        let root = tempfile::tempdir().unwrap();
        let mut out = OutputDir::prepare(root.path(), "s").unwrap();
        out.write("a.csv", |w: &mut (dyn Write + Send)| w.write_all(b"x\n"))
            .unwrap();
        assert!(!root.path().join("s/a.csv").exists());
        let written = out.commit().unwrap();
        assert_eq!(fs::read_to_string(&written[0]).unwrap(), "x\n");

        let mut out = OutputDir::prepare(root.path(), "s").unwrap();
        let failed = out.write("b.csv", |_: &mut (dyn Write + Send)| {
            Err(io::Error::other("boom"))
        });
        assert!(failed.is_err());
        drop(out);
        let names: Vec<_> = fs::read_dir(root.path().join("s"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["a.csv"]);
    }
}
