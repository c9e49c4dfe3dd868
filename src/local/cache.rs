//! The cache folder the user's own logs are imported into: one folder per set of logs
//! read, `<cache>/sessions-<key>/`, keyed by every log's path, size and last write (and
//! simulate's version, whose importer wrote it), so a run over logs that did not change
//! reuses the scenarios (and their fits) and imports nothing.
//!
//! The folder is complete when its `sources.tsv` (the key's text, one log a line) is in
//! place: written last, through the project's file sets, so a run stopped half-way is
//! imported again. Older `sessions-*` folders holding a `sources.tsv` are simulate's own
//! and are removed once a new one is complete; nothing else in the cache is touched.

use super::select::Selected;
use crate::error::{Error, Located};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// The file whose presence marks a complete cache folder.
pub const SOURCES: &str = "sources.tsv";

/// The logs the import could not read, as said to the user (absent when it read them
/// all): said again whenever the folder is reused.
pub const NOT_READ: &str = "not-read.txt";

/// Where a selection's scenarios are, and whether they are already there.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub dir: PathBuf,
    /// `sources.tsv`'s text: `format<TAB>path<TAB>bytes<TAB>modified ns` a log.
    pub sources: String,
    /// The folder is complete for exactly these logs: import nothing.
    pub reuse: bool,
}

/// The folder for `selected` under `cache`, and whether it can be reused.
pub fn plan(cache: &Path, selected: &[Selected]) -> Plan {
    let mut sources = format!("# simulate {}\n", env!("CARGO_PKG_VERSION"));
    for s in selected {
        for file in &s.files {
            let meta = std::fs::metadata(file).ok();
            let size = meta.as_ref().map_or(0, std::fs::Metadata::len);
            let modified = meta
                .and_then(|m| m.modified().ok())
                .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            sources.push_str(&format!(
                "{}\t{}\t{size}\t{modified}\n",
                s.root.format.reader().format(),
                file.display()
            ));
        }
    }
    let key = xxhash_rust::xxh3::xxh3_64(sources.as_bytes());
    let dir = cache.join(format!("sessions-{key:016x}"));
    let reuse = std::fs::read_to_string(dir.join(SOURCES)).is_ok_and(|t| t == sources);
    Plan {
        dir,
        sources,
        reuse,
    }
}

/// Refuses a cache folder inside one of the logs' folders, or holding one: the logs are
/// only ever read.
pub fn check_apart(cache: &Path, roots: &[&Path]) -> Result<(), Located> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    // The cache may not exist yet: its nearest existing ancestor decides.
    let cache_real = cache
        .ancestors()
        .find(|a| a.exists())
        .map(|a| real(a).join(cache.strip_prefix(a).unwrap_or(Path::new(""))))
        .unwrap_or_else(|| cache.to_path_buf());
    for root in roots {
        let root_real = real(root);
        if cache_real.starts_with(&root_real) || root_real.starts_with(&cache_real) {
            return Err(Located::new(
                cache.display().to_string(),
                format!(
                    "the cache folder would be inside the logs' folder {} (or hold it): logs are only read; set XDG_CACHE_HOME to a folder elsewhere",
                    root.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Marks `plan.dir` complete, then removes the older cache folders simulate wrote.
///
/// Errors: [`Error::Unwritable`] or [`Error::Write`] when `sources.tsv` cannot be written.
pub fn finish(plan: &Plan, not_read: &str) -> Result<(), Error> {
    let set = crate::output::FileSet::prepare(&plan.dir)?;
    if !not_read.is_empty() {
        set.write(NOT_READ, |w| w.write_all(not_read.as_bytes()))?;
    }
    set.write(SOURCES, |w| w.write_all(plan.sources.as_bytes()))?;
    set.commit()?;
    let Some(cache) = plan.dir.parent() else {
        return Ok(());
    };
    let Ok(entries) = std::fs::read_dir(cache) else {
        return Ok(());
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let ours = entry.file_name().to_string_lossy().starts_with("sessions-")
            && path.join(SOURCES).is_file()
            && !entry.file_type().is_ok_and(|t| t.is_symlink());
        if ours && path != plan.dir {
            // An older selection's scenarios: best effort, a cache.
            let _ = std::fs::remove_dir_all(&path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Format;
    use crate::local::Root;

    #[test]
    fn the_key_changes_with_a_log_and_the_folder_is_reused_once_complete() {
        let t = tempfile::tempdir().unwrap();
        let log = t.path().join("logs/a.jsonl");
        std::fs::create_dir_all(log.parent().unwrap()).unwrap();
        std::fs::write(&log, "{}\n").unwrap();
        let selected = |files: Vec<PathBuf>| Selected {
            root: Root {
                format: Format::ClaudeCode,
                dir: t.path().join("logs"),
                from: "default",
            },
            files,
            outside_period: 0,
            other_projects: 0,
        };
        let cache = t.path().join("cache");
        let first = plan(&cache, &[selected(vec![log.clone()])]);
        assert!(!first.reuse);
        finish(&first, "").unwrap();
        let again = plan(&cache, &[selected(vec![log.clone()])]);
        assert_eq!(
            again,
            Plan {
                reuse: true,
                ..first.clone()
            }
        );
        std::fs::write(&log, "{}\n{}\n").unwrap();
        let changed = plan(&cache, &[selected(vec![log.clone()])]);
        assert!(!changed.reuse);
        assert_ne!(changed.dir, first.dir);
        finish(&changed, "").unwrap();
        assert!(!first.dir.exists(), "the older folder is removed");
        assert!(changed.dir.join(SOURCES).is_file());
        // The cache may not sit in the logs.
        assert!(check_apart(&t.path().join("logs/c"), &[&t.path().join("logs")]).is_err());
        assert!(check_apart(&cache, &[&t.path().join("logs")]).is_ok());
    }
}
