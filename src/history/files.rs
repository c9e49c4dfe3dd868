//! Finding a history's scenario files and evaluating them, in parallel, one session per task.
//!
//! What counts as a session: every `*.toml` under the directory (searched recursively,
//! following symbolic links, hidden files and directories left out) that is a scenario. A
//! TOML file with neither `[[call]]` tables nor `calls_tsv` is not a scenario (the edits
//! file, a config file): it is skipped and listed; so is an entry named `*.toml` that is
//! not a regular file (a named pipe, a device, a socket, a folder, a broken link), never
//! opened. A session is read under the same rules as `simulate SCENARIO.toml` (a regular
//! UTF-8 file of at most 8 MiB), and a file that looks like a scenario but is broken or too
//! large is an error naming the file: a history silently missing a session would give a
//! wrong sum.
//!
//! Sessions are ordered by scenario name, not by file name, and summed in that order, so
//! the results do not depend on where the files sit or on the thread count; two files
//! with the same scenario name are an error (one session counted twice).

use super::aggregate::SweepSums;
use super::progress::Progress;
use super::session::{Session, evaluate_session};
use super::{Factors, SessionFigures};
use crate::error::{Error, Located};
use crate::number::grouped;
use crate::scenario::{BasePart, Edit, Names, load_quick, read_scenario_text};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Sessions read and evaluated per parallel chunk (between progress updates).
pub(crate) const CHUNK: usize = 256;

/// The most sweep totals kept in memory (sessions × factor points × (1 + edits)), about
/// 400 MB; a larger history is refused with what to shrink.
pub const MAX_SWEEP_VALUES: usize = 50_000_000;

/// A `.toml` file that is not a session, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// Relative to the history's directory.
    pub file: String,
    pub reason: String,
}

/// The `.toml` files under `dir`, in path order, and those skipped without reading
/// (`edits_file` itself, when it lies inside `dir`).
pub fn find(dir: &Path, edits_file: &Path) -> Result<(Vec<PathBuf>, Vec<Skipped>), Error> {
    let meta = std::fs::metadata(dir).map_err(|source| Error::Unreadable {
        path: dir.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(Located::new(
            dir.display().to_string(),
            "is a file, not a directory: give the directory that holds the sessions' scenario files (simulate SCENARIO.toml runs one)",
        )
        .into());
    }
    let edits = std::fs::canonicalize(edits_file).ok();
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    let is_toml = |path: &Path| {
        path.extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("toml"))
    };
    for entry in walk {
        let entry = match entry {
            Ok(entry) => entry,
            // A link named like a session whose target is gone: listed, not fatal.
            Err(e)
                if e.path().is_some_and(is_toml)
                    && e.io_error().map(std::io::Error::kind)
                        == Some(std::io::ErrorKind::NotFound) =>
            {
                skipped.push(Skipped {
                    file: relative(dir, e.path().unwrap_or(dir)),
                    reason: "a broken symbolic link, not read".into(),
                });
                continue;
            }
            // A symbolic link loop (a link to a folder above it, or to itself): listed,
            // not fatal; what it leads to is read where it really is.
            Err(e) if crate::input::is_link_loop(&e) => {
                skipped.push(Skipped {
                    file: relative(dir, e.path().unwrap_or(dir)),
                    reason: "a symbolic link loop, not read".into(),
                });
                continue;
            }
            Err(e) => {
                let path = e.path().unwrap_or(dir).to_path_buf();
                return Err(Error::Unreadable {
                    path,
                    source: e.into(),
                });
            }
        };
        let path = entry.path();
        if !is_toml(path) || entry.depth() == 0 {
            continue;
        }
        if let Some(why) = crate::input::not_regular(entry.file_type()) {
            let reason = if entry.file_type().is_dir() {
                format!("{why}: the *.toml files in it are read, it is not")
            } else {
                format!("{why}, not read")
            };
            skipped.push(Skipped {
                file: relative(dir, path),
                reason,
            });
            continue;
        }
        if edits.is_some() && std::fs::canonicalize(path).ok() == edits {
            skipped.push(Skipped {
                file: relative(dir, path),
                reason: "the edits file (--edits)".into(),
            });
            continue;
        }
        files.push(path.to_path_buf());
    }
    Ok((files, skipped))
}

/// `path` relative to `dir`, for reports.
pub fn relative(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir).unwrap_or(path).display().to_string()
}

/// Every session evaluated: their figures ordered by name, their sweep totals summed in
/// that order, and the files that were not sessions.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluated {
    pub sessions: Vec<SessionFigures>,
    pub sweep: SweepSums,
    pub skipped: Vec<Skipped>,
    /// The tools and kinds of every session's calls, to tell a mistyped selector.
    pub names: Names,
}

/// What a `.toml` file turned out to be: a session (with the tools and kinds of its
/// calls), or a file that is not one.
pub(super) enum Outcome {
    Session(Box<Session>, Names),
    Skipped(Skipped),
}

/// Reads `files` (under `dir`) as scenarios with `edits` (from `edits_file`) in place of
/// their own and its base `parts` as theirs ([`crate::scenario::Scenario::with_parts`]), and evaluates each at its own nominal point and over `factors`.
pub fn evaluate_all(
    dir: &Path,
    files: &[PathBuf],
    edits: &[Edit],
    parts: &[BasePart],
    edits_file: &str,
    factors: &Factors,
    progress: bool,
) -> Result<Evaluated, Error> {
    check_sweep_size(
        files.len(),
        factors,
        edits.len(),
        MAX_SWEEP_VALUES,
        FEWER_OR_SPLIT,
    )?;
    let mut progress = Progress::new(progress, files.len());
    let mut sessions: Vec<Session> = Vec::with_capacity(files.len());
    let mut skipped = Vec::new();
    let mut names = Names::default();
    for chunk in files.chunks(CHUNK) {
        let outcomes: Vec<Result<Outcome, Error>> = chunk
            .par_iter()
            .map(|path| one(dir, path, edits, parts, edits_file, factors))
            .collect();
        for outcome in outcomes {
            match outcome {
                Ok(Outcome::Session(s, n)) => {
                    sessions.push(*s);
                    names.extend(n);
                }
                Ok(Outcome::Skipped(s)) => skipped.push(s),
                Err(e) => {
                    progress.finish();
                    return Err(e);
                }
            }
        }
        progress.advance(chunk.len());
    }
    progress.finish();
    sessions.sort_by(|a, b| a.figures.name.cmp(&b.figures.name));
    if let Some(pair) = sessions
        .windows(2)
        .find(|w| w[0].figures.name == w[1].figures.name)
    {
        return Err(same_name(dir, &pair[0].figures, &pair[1].figures));
    }
    let mut sweep = SweepSums::new(factors.len(), edits.len());
    let figures = sessions
        .into_iter()
        .map(|s| {
            sweep.add(&s.sweep_totals);
            sweep.add_closed_forms(&s.closed_forms);
            s.figures
        })
        .collect();
    Ok(Evaluated {
        sessions: figures,
        sweep,
        skipped,
        names,
    })
}

/// Reads and evaluates the file at `path`.
pub(super) fn one(
    dir: &Path,
    path: &Path,
    edits: &[Edit],
    parts: &[BasePart],
    edits_file: &str,
    factors: &Factors,
) -> Result<Outcome, Error> {
    let text = read_scenario_text(path)?;
    let file = relative(dir, path);
    let scenario = match load_quick(&text, path) {
        Ok(s) => s,
        Err(e) => {
            return match not_a_scenario(&text) {
                Some(reason) => Ok(Outcome::Skipped(Skipped { file, reason })),
                None => Err(e),
            };
        }
    };
    let names = Names::of(&scenario.calls);
    let scenario = scenario
        .with_edits(edits.to_vec(), edits_file)
        .with_parts(parts, edits_file);
    Ok(Outcome::Session(
        Box::new(evaluate_session(&scenario, &file, factors)?),
        names,
    ))
}

/// A session read but not evaluated: its file (relative to the history's directory) and
/// its scenario, with its own edits.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub file: String,
    pub scenario: crate::scenario::Scenario,
}

/// Reads `files` (under `dir`) as [`evaluate_all`] does, in parallel, without evaluating
/// them: the sessions ordered by scenario name, and the files that are not sessions (by the
/// same rule). For a command that looks at the data before it chooses the edits
/// (`simulate suggest`); a broken scenario is the same error.
pub fn load_all(dir: &Path, files: &[PathBuf]) -> Result<(Vec<Loaded>, Vec<Skipped>), Error> {
    let outcomes: Vec<Result<Result<Loaded, Skipped>, Error>> =
        files.par_iter().map(|path| load_one(dir, path)).collect();
    let mut sessions = Vec::with_capacity(files.len());
    let mut skipped = Vec::new();
    for outcome in outcomes {
        match outcome? {
            Ok(s) => sessions.push(s),
            Err(s) => skipped.push(s),
        }
    }
    sessions.sort_by(|a, b| a.scenario.name.cmp(&b.scenario.name));
    Ok((sessions, skipped))
}

/// Reads the file at `path` (under `dir`) as [`load_all`] reads each: the session, or why
/// the file is not one; a broken scenario is an error.
pub fn load_one(dir: &Path, path: &Path) -> Result<Result<Loaded, Skipped>, Error> {
    let text = read_scenario_text(path)?;
    let file = relative(dir, path);
    match load_quick(&text, path) {
        Ok(scenario) => Ok(Ok(Loaded { file, scenario })),
        Err(e) => match not_a_scenario(&text) {
            Some(reason) => Ok(Err(Skipped { file, reason })),
            None => Err(e),
        },
    }
}

/// Why `text` is not a scenario at all, if it is valid TOML without `[[call]]` tables or
/// `calls_tsv`; None when it is meant as one (and so its error stands).
fn not_a_scenario(text: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(text).ok()?;
    if table.contains_key("call") || table.contains_key("calls_tsv") {
        return None;
    }
    Some(if table.contains_key("edit") {
        "not a scenario: [[edit]] tables without calls (an edits file)".into()
    } else {
        "not a scenario: no [[call]] tables or calls_tsv".into()
    })
}

/// Why `name` cannot name a results folder (`--name`, or a shard header's `name`, which
/// decides where a merge writes), if it cannot: at most 100 characters of lowercase ASCII
/// letters, digits, `_` and `-`, starting with a letter or digit. So a name is one folder
/// right under `--out`: never `..`, a `/`, an absolute path or a hidden folder.
pub fn name_refusal(name: &str) -> Option<String> {
    let valid = name.len() <= 100
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    (!valid).then(|| {
        format!(
            "`{name}` is not a valid name: use lowercase letters, digits, `_` and `-`, starting with a letter or digit (e.g. `team-history`)"
        )
    })
}

/// The results' directory name from the history's directory: its last component,
/// lowercased, with anything outside `[a-z0-9_-]` turned into `-`; `history` if nothing
/// is left.
pub fn default_name(dir: &Path) -> String {
    let full = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let last = full
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let mut name = String::with_capacity(last.len());
    for c in last.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            c
        } else {
            '-'
        };
        if !(c == '-' && name.ends_with('-')) {
            name.push(c);
        }
    }
    let name = name.trim_start_matches(['-', '_']).trim_end_matches('-');
    if name.is_empty() {
        "history".into()
    } else {
        name.to_string()
    }
}

/// Two sessions of one name: the error names the later file, and the earlier.
pub(crate) fn same_name(dir: &Path, a: &SessionFigures, b: &SessionFigures) -> Error {
    let (first, second) = if a.file <= b.file { (a, b) } else { (b, a) };
    Located::new(
        dir.join(&second.file).display().to_string(),
        format!(
            "scenario name `{}` is also the name of {}: a history counts each session once; remove the copy or rename one",
            a.name,
            dir.join(&first.file).display()
        ),
    )
    .place("name")
    .into()
}

/// What a history over too many sweep totals can do.
pub(crate) const FEWER_OR_SPLIT: &str =
    "use fewer factors (--base-factors, --bpt-factors) or split the directory";

/// Refuses a history whose sweep totals (files × factor points × runs) would pass `limit`
/// before any file is read, naming the figures and `fix`, what to change
/// ([`FEWER_OR_SPLIT`] for a history).
pub(crate) fn check_sweep_size(
    files: usize,
    factors: &Factors,
    edits: usize,
    limit: usize,
    fix: &str,
) -> Result<(), Error> {
    let width = 1 + edits;
    let values = files.saturating_mul(factors.len()).saturating_mul(width);
    if values <= limit {
        return Ok(());
    }
    Err(Located::new(
        "command line",
        format!(
            "{} files × {} factor points × {} runs is {} sweep totals; the limit is {}: {fix}",
            grouped(files as f64, 0),
            factors.len(),
            width,
            grouped(values as f64, 0),
            grouped(limit as f64, 0)
        ),
    )
    .into())
}

/// One session file as `suggest`'s passes read it: `load_one`, with `parts` as the
/// session's own (named by `edits_shown`); a file that is not a session is `Skipped`.
pub fn load_with_parts(
    dir: &Path,
    path: &Path,
    parts: &[BasePart],
    edits_shown: &str,
) -> Result<Result<Loaded, Skipped>, Error> {
    Ok(load_one(dir, path)?.map(|l| Loaded {
        scenario: l.scenario.with_parts(parts, edits_shown),
        file: l.file,
    }))
}

/// The error of a session file that changed between the two passes.
pub fn changed(path_shown: &str) -> Error {
    Located::new(
        path_shown,
        "the session files changed while they were read: run again",
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_valid_toml_without_calls_is_not_a_scenario() {
        assert!(
            not_a_scenario("[[edit]]\nname = \"x\"\n")
                .unwrap()
                .contains("edits file")
        );
        assert!(not_a_scenario("[package]\nname = \"x\"\n").is_some());
        assert_eq!(
            not_a_scenario("name = \"x\"\n[[call]]\nbytes = \"no\"\n"),
            None
        );
        assert_eq!(not_a_scenario("name = \n"), None);
    }

    #[test]
    fn the_default_name_comes_from_the_directory() {
        assert_eq!(
            default_name(Path::new("/no/such/Team Sessions (2025)")),
            "team-sessions-2025"
        );
        assert_eq!(default_name(Path::new("/no/such/history")), "history");
        assert_eq!(default_name(Path::new("/no/such/__")), "history");
    }
}
