//! `simulate history DIR --edits EDITS.toml`: the same edits on every session of a
//! directory, summed, with their spread and whether the ranking holds (docs/model.md §7).
//!
//! Order matters as for one scenario: the edits file and the file list are checked first,
//! the output directory is prepared before the long work (a bad path fails at once; if a
//! session then turns out bad, a directory this run created is removed again), every file
//! is staged and renamed together, and the table or JSON is printed last.

use crate::app::Format;
use crate::error::{Error, Located};
use crate::history::{self, Factors, HistoryReport, aggregate, files};
use crate::output::{self, OutputDir};
use crate::scenario;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A validated `simulate history` command.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryConfig {
    /// Searched recursively for scenario files.
    pub dir: PathBuf,
    /// `[[edit]]` tables evaluated on every session.
    pub edits: PathBuf,
    /// Results go to `out_root/<name>/`; default: the directory's own name.
    pub name: Option<String>,
    /// None: write no files (`--no-write`, `--out -`).
    pub out_root: Option<PathBuf>,
    /// Table or JSON.
    pub format: Format,
    /// Draw the SVG charts and the HTML report.
    pub charts: bool,
    /// The sweep's factors on every session's own B and ρ.
    pub factors: Factors,
}

/// Runs the history, printing to `out`.
pub fn run(c: &HistoryConfig, out: &mut dyn Write) -> Result<(), Error> {
    let edits = scenario::load_edits(&c.edits)?;
    let edits_file = c.edits.display().to_string();
    let names: Vec<String> = edits.iter().map(|e| e.name.clone()).collect();
    let (paths, mut skipped) = files::find(&c.dir, &c.edits)?;
    if paths.is_empty() {
        return Err(no_sessions(&c.dir, &skipped));
    }
    let name = match &c.name {
        Some(n) => n.clone(),
        None => default_name(&c.dir),
    };
    let mut created = Created::default();
    let dir = match &c.out_root {
        Some(root) => {
            created.note(root, &name);
            // The sessions and the edits file are inputs: never replaced by an output.
            let mut inputs = paths.clone();
            inputs.push(c.edits.clone());
            Some(OutputDir::prepare(root, &name, &inputs)?)
        }
        None => None,
    };
    let result = history(
        c,
        &edits,
        &edits_file,
        &names,
        &paths,
        &mut skipped,
        &name,
        dir,
    );
    match result {
        Ok((report, files)) => print(c, out, &report, &files),
        Err(e) => {
            created.remove();
            Err(e)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn history(
    c: &HistoryConfig,
    edits: &[scenario::Edit],
    edits_file: &str,
    names: &[String],
    paths: &[PathBuf],
    skipped: &mut Vec<files::Skipped>,
    name: &str,
    dir: Option<OutputDir>,
) -> Result<(HistoryReport, Vec<PathBuf>), Error> {
    let evaluated = files::evaluate_all(&c.dir, paths, edits, edits_file, &c.factors, true)?;
    skipped.extend(evaluated.skipped);
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    let Some(aggregate) = aggregate::aggregate(names, &evaluated.sessions) else {
        return Err(no_sessions(&c.dir, skipped));
    };
    let sweep = evaluated.sweep.finish(&c.factors, &aggregate);
    let unmatched = unmatched_selectors(edits, &evaluated.names, evaluated.sessions.len());
    let mut report = HistoryReport::new(
        name,
        &c.dir.display().to_string(),
        edits_file,
        aggregate,
        sweep,
        evaluated.sessions,
        std::mem::take(skipped),
    );
    report.warnings.splice(0..0, unmatched);
    let files = match dir {
        Some(mut dir) => {
            dir.write("summary.csv", |w| history::csv::write_summary(w, &report))?;
            dir.write("sessions.csv", |w| history::csv::write_sessions(w, &report))?;
            dir.write("sweep.csv", |w| history::csv::write_sweep(w, &report))?;
            if history::csv::has_what_if(&report) {
                dir.write("whatif.csv", |w| history::csv::write_whatif(w, &report))?;
            }
            if c.charts {
                let charts = crate::chart::history::draw_all(&history::charts::input(&report))?;
                for (file, svg) in &charts {
                    dir.write(file, |w| w.write_all(svg.as_bytes()))?;
                }
                dir.write("report.html", |w| history::html::write(w, &report, &charts))?;
            }
            dir.commit()?
        }
        None => Vec::new(),
    };
    Ok((report, files))
}

fn print(
    c: &HistoryConfig,
    out: &mut dyn Write,
    report: &HistoryReport,
    files: &[PathBuf],
) -> Result<(), Error> {
    match c.format {
        Format::Json => output::json::write(out, report),
        Format::Table => history::table::write(out, report, files),
    }
    .map_err(Error::Print)
}

/// A selector naming a tool or kind that no session has: a slip (`tool = "bash"`), which
/// would otherwise save nothing in every session without a word; one warning each, with
/// the names the sessions have and the nearest.
fn unmatched_selectors(
    edits: &[scenario::Edit],
    names: &scenario::Names,
    sessions: usize,
) -> Vec<history::report::WarningCount> {
    let mut out = Vec::new();
    for e in edits {
        for (rule, select) in e.action.selectors() {
            for why in names.missing(select, "no session") {
                out.push(history::report::WarningCount {
                    warning: format!("[[edit]] \"{}\": {rule}: {why}", e.name),
                    sessions,
                });
            }
        }
    }
    out
}

/// "no scenario files under DIR", with what was skipped.
fn no_sessions(dir: &Path, skipped: &[files::Skipped]) -> Error {
    let mut message = "no scenario files found (searched recursively for *.toml with [[call]] tables or calls_tsv, as `simulate import` writes)".to_string();
    if !skipped.is_empty() {
        let list: Vec<String> = skipped
            .iter()
            .map(|s| format!("{} ({})", s.file, s.reason))
            .collect();
        message.push_str(&format!("; skipped: {}", list.join(", ")));
    }
    Located::new(dir.display().to_string(), message).into()
}

/// The results' directory name from the history's directory: its last component,
/// lowercased, with anything outside `[a-z0-9_-]` turned into `-`; `history` if nothing
/// is left.
pub fn default_name(dir: &Path) -> String {
    let full = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
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

/// Directories this run created for its results, removed again if the run fails before
/// writing anything (only while empty: nothing of the user's is touched).
#[derive(Default)]
struct Created {
    dirs: Vec<PathBuf>,
}

impl Created {
    /// Notes which of `root` and `root/name` do not exist yet.
    fn note(&mut self, root: &Path, name: &str) {
        let target = root.join(name);
        if !target.exists() {
            self.dirs.push(target);
        }
        if !root.as_os_str().is_empty() && !root.exists() {
            self.dirs.push(root.to_path_buf());
        }
    }

    fn remove(&self) {
        for d in &self.dirs {
            // Fails harmlessly when the directory is not empty.
            let _ = fs::remove_dir(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
