//! Staging folders: where a set's files are written before they are put in place, and how
//! a later run tells one a killed run left from anything else.
//!
//! A staging folder is `.<label>.staging-<pid>-<n>/` beside what it will replace. Its
//! name alone proves nothing (a user's `.photos.staging-1-2/` looks the same), so each
//! holds a marker file ([`MARKER`], with the exact text [`MARKER_TEXT`]) written right
//! after the folder is made, and its run holds a lock (`flock`) on it for as long as the
//! run lives. A folder is removed as stale only when all three hold: the name is one of
//! this set's, the marker is there with its text (or, alone in the folder, the start of
//! it: a run killed while writing it), and the lock is free (its run is gone).

use super::interrupt;
use std::fs::{self, DirBuilder, File};
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

// The marker is its own module so that removal (`interrupt`), which staging calls, can
// spare it without importing back from here.
pub use super::marker::{MARKER, MARKER_TEXT};

/// Part of every staging folder's name.
const STAGING: &str = ".staging-";

/// Distinguishes the staging folders of one process.
static SEQUENCE: AtomicU32 = AtomicU32::new(0);

/// A marked staging folder, locked and registered for removal on Ctrl-C or SIGTERM while
/// it lives; removed with everything in it when dropped.
#[derive(Debug)]
pub struct Staging {
    path: PathBuf,
    /// Holds the folder's lock; `None` on a file system without locks.
    _lock: Option<File>,
}

impl Staging {
    /// Makes `parent/.<label>.staging-<pid>-<n>/`, readable by its owner only (a file
    /// replacing a private one must not be readable by others while staged), with its
    /// marker.
    pub fn create(parent: &Path, label: &str) -> io::Result<Staging> {
        interrupt::install();
        // A stale folder of a killed run may hold the name this process would take: process
        // ids are reused (a container's first processes get the same ones each time).
        let mut attempts = 0;
        loop {
            let path = parent.join(format!(
                ".{label}{STAGING}{}-{}",
                std::process::id(),
                SEQUENCE.fetch_add(1, Ordering::Relaxed)
            ));
            match Staging::create_at(path) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => {
                    attempts += 1;
                }
                made => return made,
            }
        }
    }

    fn create_at(path: PathBuf) -> io::Result<Staging> {
        let mut staged = interrupt::staged();
        DirBuilder::new().mode(0o700).create(&path)?;
        // Registered while the registry is locked, so an interrupt removes it from here on.
        interrupt::register(&mut staged, &path);
        let marked = File::open(&path).and_then(|dir| {
            // Best effort: without locks a stale folder cannot be told from a live one,
            // and is then never removed.
            let lock = dir.try_lock().ok().map(|()| dir);
            fs::write(path.join(MARKER), MARKER_TEXT)?;
            Ok(lock)
        });
        match marked {
            Ok(lock) => Ok(Staging { path, _lock: lock }),
            Err(e) => {
                interrupt::remove_dir(&path);
                interrupt::unregister(&mut staged, &path);
                Err(e)
            }
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let mut staged = interrupt::staged();
        interrupt::remove_dir(&self.path);
        interrupt::unregister(&mut staged, &self.path);
    }
}

/// Removes the staging folders of `label` in `parent` whose runs are gone; returns how many.
/// Only folders proven simulate's (name, marker, free lock) are touched; a symbolic link is
/// never followed. Call it only after a set is committed, under `parent`'s lock.
pub fn remove_stale(parent: &Path, label: &str) -> usize {
    let Ok(entries) = fs::read_dir(parent) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        if !is_staging_name(&entry.file_name().to_string_lossy(), label) {
            continue;
        }
        let path = entry.path();
        // The lock is held while the folder is removed.
        if let Some(_held) = stale(&path) {
            interrupt::remove_dir(&path);
            removed += 1;
        }
    }
    removed
}

/// Whether `name` is `.<label>.staging-<pid>-<n>`.
fn is_staging_name(name: &str, label: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    name.strip_prefix('.')
        .and_then(|n| n.strip_prefix(label))
        .and_then(|n| n.strip_prefix(STAGING))
        .and_then(|n| n.split_once('-'))
        .is_some_and(|(pid, n)| digits(pid) && digits(n))
}

/// A real folder (not a link) holding simulate's marker, whose lock no process holds:
/// its lock, taken. A run killed while writing its marker leaves the start of the text and
/// nothing else; that folder is simulate's too.
fn stale(path: &Path) -> Option<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let dir = File::from(rustix::fs::open(path, flags, Mode::empty()).ok()?);
    dir.try_lock().ok()?;
    let marker = path.join(MARKER);
    let meta = fs::symlink_metadata(&marker).ok()?;
    if !meta.is_file() || meta.len() > MARKER_TEXT.len() as u64 {
        return None;
    }
    let text = fs::read(&marker).ok()?;
    if text == MARKER_TEXT.as_bytes() {
        return Some(dir);
    }
    let alone = fs::read_dir(path).ok()?.count() == 1;
    (alone && MARKER_TEXT.as_bytes().starts_with(&text)).then_some(dir)
}

/// Locks `dir` against other runs' staging, committing and cleaning in it, waiting for a
/// run that holds it; released when the returned file is dropped. A file system without
/// locks is used without them (`None`).
pub fn lock(dir: &Path) -> io::Result<Option<File>> {
    let file = File::open(dir)?;
    Ok(file.lock().ok().map(|()| file))
}

/// Exchanges `a` and `b` in one atomic rename (Linux `RENAME_EXCHANGE`); `Ok(false)` where
/// the file system cannot, so the caller falls back to two renames.
pub fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Renames `from` to `to`, failing if `to` exists (where the file system can tell), so a
/// file that appeared meanwhile is never silently replaced.
pub fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            fs::rename(from, to)
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_sets_names_count() {
        assert!(is_staging_name(".merge.staging-123-0", "merge"));
        assert!(!is_staging_name(".merge.staging-123-0", "mer"));
        assert!(!is_staging_name(".merge.staging-backup", "merge"));
        assert!(!is_staging_name(".merge.old-77", "merge"));
        assert!(!is_staging_name("merge.staging-1-2", "merge"));
        assert!(!is_staging_name(".merge.staging-1-2-3", "merge"));
    }

    #[test]
    fn a_folder_is_stale_only_with_the_marker_and_a_free_lock() {
        let parent = tempfile::tempdir().unwrap();
        let live = Staging::create(parent.path(), "s").unwrap();
        let look_alike = parent.path().join(".s.staging-1-2");
        fs::create_dir(&look_alike).unwrap();
        fs::write(look_alike.join("photo.jpg"), "mine").unwrap();
        let wrong_marker = parent.path().join(".s.staging-3-4");
        fs::create_dir(&wrong_marker).unwrap();
        fs::write(wrong_marker.join(MARKER), "not simulate's").unwrap();
        let dead = parent.path().join(".s.staging-5-6");
        fs::create_dir(&dead).unwrap();
        fs::write(dead.join(MARKER), MARKER_TEXT).unwrap();
        let linked = parent.path().join(".s.staging-7-8");
        std::os::unix::fs::symlink(&dead, &linked).unwrap();
        let cut_short = parent.path().join(".s.staging-9-9");
        fs::create_dir(&cut_short).unwrap();
        fs::write(cut_short.join(MARKER), &MARKER_TEXT[..10]).unwrap();
        let cut_short_with_more = parent.path().join(".s.staging-9-10");
        fs::create_dir(&cut_short_with_more).unwrap();
        fs::write(cut_short_with_more.join(MARKER), "").unwrap();
        fs::write(cut_short_with_more.join("photo.jpg"), "mine").unwrap();
        let other_set = parent.path().join(".t.staging-5-6");
        fs::create_dir(&other_set).unwrap();
        fs::write(other_set.join(MARKER), MARKER_TEXT).unwrap();

        assert_eq!(remove_stale(parent.path(), "s"), 2);
        assert!(!dead.exists());
        assert!(!cut_short.exists());
        for kept in [
            live.path(),
            &look_alike,
            &wrong_marker,
            &cut_short_with_more,
            &other_set,
        ] {
            assert!(kept.exists(), "{}", kept.display());
        }
        assert!(
            fs::symlink_metadata(&linked).is_ok(),
            "a link is left alone"
        );
        drop(live);
        assert_eq!(
            super::super::names(parent.path()),
            [
                ".s.staging-1-2",
                ".s.staging-3-4",
                ".s.staging-7-8",
                ".s.staging-9-10",
                ".t.staging-5-6"
            ]
        );
    }
}
