//! Ctrl-C and SIGTERM during a run: remove what is staged, then exit.
//!
//! Staging folders are registered here while they exist. On SIGINT or SIGTERM a watcher
//! thread takes the registry's lock (so it never runs in the middle of the swap that puts a
//! run's folder in place), removes every registered folder, and exits with 128 + the
//! signal number: 130 for SIGINT, 143 for SIGTERM, as shells report a process a signal
//! ended. It keeps the lock until the process is gone, so nothing new is staged meanwhile.
//!
//! The watcher is installed by the first staging folder ([`super::staging::Staging`]);
//! commands that write no files keep the default behaviour (the signal ends them at once).

use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Folders to remove if the run is interrupted.
static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Folders a run created to hold its results (`--out` and its parents): removed on an
/// interrupt if they are still empty, as a failed run removes them.
static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether the watcher could be installed.
static WATCHER: OnceLock<bool> = OnceLock::new();

/// The registry, locked. A poisoned lock (a panic while holding it) still gives the list:
/// cleaning up is better than leaving staged files behind.
pub fn staged() -> MutexGuard<'static, Vec<PathBuf>> {
    STAGED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Installs the watcher once per process. Without it (signals unavailable), an interrupted
/// run leaves its staging folder, which a later run removes ([`super::staging::remove_stale`]).
pub fn install() {
    WATCHER.get_or_init(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return false;
        };
        std::thread::Builder::new()
            .name("simulate-interrupt".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    let staged = staged();
                    for dir in staged.iter() {
                        remove_dir(dir);
                    }
                    let created = CREATED.lock().unwrap_or_else(|p| p.into_inner());
                    for dir in created.iter() {
                        // Fails harmlessly when something is in it.
                        let _ = std::fs::remove_dir(dir);
                    }
                    let name = if signal == SIGINT { "Ctrl-C" } else { "SIGTERM" };
                    eprintln!("interrupted ({name}): nothing was written; what this run had staged is removed");
                    std::process::exit(128 + signal);
                }
            })
            .is_ok()
    });
}

/// Notes `dir`, a folder this run created for its results (innermost first), to be removed
/// on an interrupt if it is still empty.
pub fn note_created(dir: &Path) {
    CREATED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(dir.to_path_buf());
}

/// Adds `dir` to the folders removed on an interrupt.
pub fn register(staged: &mut MutexGuard<'static, Vec<PathBuf>>, dir: &Path) {
    staged.push(dir.to_path_buf());
}

/// Removes `dir` from them.
pub fn unregister(staged: &mut MutexGuard<'static, Vec<PathBuf>>, dir: &Path) {
    staged.retain(|d| d != dir);
}

/// Removes `dir` and everything in it, the staging marker last: a removal cut short (a
/// SIGKILL) leaves a folder a later run still knows as simulate's. A run still writing
/// into it can add a file between the listing and the removal of the folder, so this tries
/// a few times; a folder that is already gone is fine.
pub fn remove_dir(dir: &Path) {
    for _ in 0..10 {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                if entry.file_name() == super::marker::MARKER {
                    continue;
                }
                // `file_type` does not follow links: a link is removed, never its target.
                let _ = match entry.file_type() {
                    Ok(t) if t.is_dir() => std::fs::remove_dir_all(entry.path()),
                    _ => std::fs::remove_file(entry.path()),
                };
            }
        }
        match std::fs::remove_dir_all(dir) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(_) => continue,
        }
    }
}
