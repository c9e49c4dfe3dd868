//! `simulate history DIR --edits EDITS.toml`: the same edits on every session of a
//! directory, summed, with their spread and whether the ranking holds (docs/model.md §7);
//! `simulate history --merge A/ B/ …`: the same from the shard outputs of earlier runs.
//!
//! Order matters as for one scenario: the edits file and the file list (or the shards'
//! headers) are checked first, the output directory is prepared before the long work (a
//! bad path fails at once; if a session then turns out bad, a directory this run created
//! is removed again), every file is staged and renamed together, and the table or JSON is
//! printed last.
//!
//! A run over a directory evaluates its sessions into a spill (`history::stream`) and
//! reads their records back in session order; a merge reads the shards' records in
//! session order (`history::shard`). From there both go the same way (`history::pass`),
//! which is why a merge of any split equals one run over all the sessions, byte for byte.

use crate::error::{Error, Located};
pub use crate::history::shard::Shard;
use crate::history::shard::{self, EditId, Header, Listing, NamedSelector, Shards};
use crate::history::stream::{self, Records};
use crate::history::{self, Factors, GroupBy, HistoryReport, default_name, files};
use crate::number::plural;
use crate::output::Format;
use crate::output::OutputDir;
use crate::printable::printable;
use crate::scenario;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A validated `simulate history` command.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryConfig {
    /// The sessions, or the shards to merge.
    pub source: HistorySource,
    /// Results go to `out_root/<name>/`; default: the directory's own name (a merge: the
    /// shards' name).
    pub name: Option<String>,
    /// None: write no files (`--no-write`, `--out -`).
    pub out_root: Option<PathBuf>,
    /// Table or JSON.
    pub format: Format,
    /// Draw the SVG charts and the HTML report.
    pub charts: bool,
    /// Sum the edits per user, project or model too.
    pub group_by: Option<GroupBy>,
    /// `--max-cost-diff PCT`: leave out of the sums the sessions whose simulated cost is
    /// more than PCT percent off the measured.
    pub max_cost_diff: Option<f64>,
    /// `--verbose`: the table lists every flip, not the few that matter.
    pub verbose: bool,
    /// No directory given: the user's own logs, imported into the cache first (the
    /// sessions' `dir` is then that folder; the results' name `local`).
    pub local: Option<super::local::LocalConfig>,
}

/// Where a history's sessions come from.
#[derive(Debug, Clone, PartialEq)]
pub enum HistorySource {
    /// Every scenario file under `dir` (or one shard of them), with the edits of `edits`.
    Sessions {
        /// Searched recursively for scenario files.
        dir: PathBuf,
        /// `[[edit]]` tables evaluated on every session.
        edits: PathBuf,
        /// The sweep's factors on every session's own B and ρ.
        factors: Factors,
        /// `--files-from LIST`: only the files LIST names (one a line, relative to `dir`,
        /// as `sessions.csv`'s `file` column; `-` reads the list from stdin).
        files_from: Option<PathBuf>,
        /// `--shard K/N`: only the files of the K-th of N parts, by each file's key
        /// ([`shard::key`]).
        shard: Option<Shard>,
    },
    /// The folders (or `shard.jsonl` files) earlier runs wrote.
    Merge(Vec<PathBuf>),
}

/// Runs the history, printing to `out`.
pub fn run(c: &HistoryConfig, out: &mut dyn Write) -> Result<(), Error> {
    if let Some(l) = &c.local {
        let imported = super::local::import_cached(l, &crate::local::Env::from_process())?;
        super::local::tell(&imported.said, c.format, out)?;
        let mut c = c.clone();
        c.local = None;
        c.name = c.name.or_else(|| Some("local".into()));
        if let HistorySource::Sessions { dir, .. } = &mut c.source {
            *dir = imported.dir;
        }
        return run(&c, out);
    }
    match &c.source {
        HistorySource::Sessions {
            dir,
            edits,
            factors,
            files_from,
            shard,
        } => {
            let part = Part {
                files_from: files_from.as_deref(),
                shard: *shard,
            };
            sessions(c, dir, edits, factors, part, out)
        }
        HistorySource::Merge(shards) => merge(c, shards, out),
    }
}

/// Which of a directory's files a run reads.
#[derive(Debug, Clone, Copy)]
struct Part<'a> {
    files_from: Option<&'a Path>,
    shard: Option<Shard>,
}

impl Part<'_> {
    /// The shard header's word for it: `2/8`, `files from part-2.txt`, or None for all.
    fn describe(&self) -> Option<String> {
        let list = self
            .files_from
            .map(|l| format!("files from {}", l.display()));
        let shard = self.shard.map(|s| format!("{}/{}", s.index, s.of));
        match (list, shard) {
            (Some(l), Some(s)) => Some(format!("{s} of {l}")),
            (l, s) => l.or(s),
        }
    }

    /// The files of `paths` (found under `dir`) this part reads: those the list names,
    /// then the shard's of them; with a shard, the listing it was taken of.
    ///
    /// Errors: an unreadable list, a listed file that is not a session file under `dir`.
    fn select(
        &self,
        dir: &Path,
        mut paths: Vec<PathBuf>,
    ) -> Result<(Vec<PathBuf>, Option<Listing>), Error> {
        if let Some(list) = self.files_from {
            let text = if list.as_os_str() == "-" {
                std::io::read_to_string(std::io::stdin())
            } else {
                fs::read_to_string(list)
            }
            .map_err(|source| Error::Unreadable {
                path: list.to_path_buf(),
                source,
            })?;
            let mut wanted: std::collections::HashSet<&str> = text
                .lines()
                .map(|l| l.trim_end_matches('\r'))
                .map(|l| l.strip_prefix("./").unwrap_or(l))
                .filter(|l| !l.is_empty())
                .collect();
            paths.retain(|p| wanted.remove(files::relative(dir, p).as_str()));
            if let Some(missing) = wanted.iter().min() {
                return Err(Located::new(
                    list.display().to_string(),
                    format!(
                        "`{missing}` is not a session file under {} ({} listed files are not): a line names a *.toml file relative to the directory, as sessions.csv's file column does",
                        dir.display(),
                        wanted.len()
                    ),
                )
                .place("--files-from")
                .into());
            }
        }
        let Some(shard) = self.shard else {
            return Ok((paths, None));
        };
        let relative = |p: &PathBuf| -> PathBuf { p.strip_prefix(dir).unwrap_or(p).to_path_buf() };
        let listing = {
            let all: Vec<PathBuf> = paths.iter().map(relative).collect();
            Listing::of(&all.iter().map(PathBuf::as_path).collect::<Vec<_>>())
        };
        paths.retain(|p| shard.holds(&relative(p)));
        Ok((paths, Some(listing)))
    }
}

/// A history of the sessions under `dir`.
fn sessions(
    c: &HistoryConfig,
    dir: &Path,
    edits_path: &Path,
    factors: &Factors,
    part: Part,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let scenario::EditsSet { edits, parts } = scenario::load_edits(edits_path)?;
    let edits_file = edits_path.display().to_string();
    let (paths, mut skipped) = files::find(dir, edits_path)?;
    let (paths, listing) = part.select(dir, paths)?;
    // A part of a split may hold no session (more parts than files, or no file's key
    // falls to it, or its files are not sessions): a shard of no session, merged as such.
    // A directory without a file to split is still an error.
    let may_be_empty = listing.as_ref().is_some_and(|l| l.files > 0);
    if paths.is_empty() && !may_be_empty {
        return Err(no_sessions(dir, &skipped));
    }
    let name = match &c.name {
        Some(n) => n.clone(),
        None => default_name(dir),
    };
    let mut created = Created::default();
    // The sessions are `*.toml`, which a results folder never holds as its own: a folder
    // holding one is refused as holding a file simulate did not write. So only the edits
    // file (any name) is checked by identity, and the million paths are not kept twice.
    let output = prepare(c, &name, &[edits_path.to_path_buf()], &mut created)?;
    let result = (|| {
        let spill_parent = match &c.out_root {
            Some(root) => root.clone(),
            None => std::env::temp_dir(),
        };
        let mut streamed = stream::evaluate(
            dir,
            &paths,
            &edits,
            &parts,
            &edits_file,
            factors,
            true,
            &spill_parent,
            &name,
            // The results are written from the spill while it exists.
            if output.is_some() {
                crate::history::spill::HISTORY_RESULTS
            } else {
                0.0
            },
        )?;
        drop(paths);
        skipped.extend(std::mem::take(&mut streamed.skipped));
        skipped.sort_by(|a, b| a.file.cmp(&b.file));
        if streamed.spill.is_empty() && !may_be_empty {
            return Err(no_sessions(dir, &skipped));
        }
        let mut header = Header::new(
            &name,
            &dir.display().to_string(),
            &edits_file,
            edits.iter().map(EditId::of).collect(),
            factors,
            part.describe(),
            streamed.spill.len(),
            skipped,
        );
        header.listing = listing;
        header.names = std::mem::take(&mut streamed.names);
        header.selectors = NamedSelector::of(&edits);
        if header.sessions == 0 {
            let files = match output {
                Some(mut dir) => {
                    dir.write(shard::FILE, |w| header.write(w))?;
                    dir.commit()?
                }
                None => Vec::new(),
            };
            return Ok(Done::Empty(Box::new(header), files));
        }
        let spill = &streamed.spill;
        let (report, files) = finish(
            c,
            &header,
            &mut stream::SpillRecords::of(spill)?,
            output,
            Vec::new(),
        )?;
        Ok(Done::Summed(Box::new(report), files, streamed))
    })();
    if c.out_root.is_none() {
        // A spill a killed run left where this one put its own (the results' folder
        // cleans its own when it commits).
        crate::output::set::staging::remove_stale(&std::env::temp_dir(), &name);
    }
    match result {
        Ok(Done::Summed(report, files, streamed)) => {
            let mut records = stream::SpillRecords::of(&streamed.spill)?;
            print(c, out, &report, &files, &mut records)
        }
        Ok(Done::Empty(header, files)) => print_empty(c, out, &header, &files),
        Err(e) => {
            created.remove();
            Err(e)
        }
    }
}

/// What a run over a directory made.
enum Done {
    /// The sums of its sessions, the files written and the records' spill.
    Summed(Box<HistoryReport>, Vec<PathBuf>, stream::Streamed),
    /// A part of a split that holds no session: its header, and the files written (its
    /// `shard.jsonl`, the header alone).
    Empty(Box<Header>, Vec<PathBuf>),
}

/// A part of a split without sessions: says so, and what it wrote for the merge; the JSON
/// is its shard header.
fn print_empty(
    c: &HistoryConfig,
    out: &mut dyn Write,
    header: &Header,
    files: &[PathBuf],
) -> Result<(), Error> {
    let listed = header.listing.as_ref().map_or(0, |l| l.files);
    let written = match c.format {
        Format::Json => serde_json::to_writer_pretty(&mut *out, header)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out)),
        Format::Table => (|| {
            writeln!(
                out,
                "{}: shard {} of {} holds no session of the {} under it (each file's part is fixed by its path; docs/scale.md); a merge takes it as a shard of no session",
                header.name,
                printable(header.shard.as_deref().unwrap_or("")),
                printable(&header.directory),
                plural(listed, "*.toml file", "*.toml files"),
            )?;
            for s in &header.skipped {
                writeln!(
                    out,
                    "  skipped {}: {}",
                    printable(&s.file),
                    printable(&s.reason)
                )?;
            }
            if !files.is_empty() {
                writeln!(out, "\nWritten:")?;
                for f in files {
                    writeln!(out, "  {}", crate::printable::path(f))?;
                }
            }
            Ok(())
        })(),
    };
    written.map_err(Error::Print)
}

/// A history merged from the shards `given`.
fn merge(c: &HistoryConfig, given: &[PathBuf], out: &mut dyn Write) -> Result<(), Error> {
    let mut shards = Shards::open(given)?;
    let header = merged_header(c, &shards)?;
    let mut created = Created::default();
    // A shard is an input: never replaced by the merge's results.
    let inputs: Vec<PathBuf> = given
        .iter()
        .map(|g| {
            if g.is_dir() {
                g.join(history::shard::FILE)
            } else {
                g.clone()
            }
        })
        .collect();
    let output = prepare(c, &header.name, &inputs, &mut created)?;
    let merged_from = given.iter().map(|g| g.display().to_string()).collect();
    match finish(c, &header, &mut shards, output, merged_from) {
        Ok((report, files)) => print(c, out, &report, &files, &mut Shards::open(given)?),
        Err(e) => {
            created.remove();
            Err(e)
        }
    }
}

/// The header of the whole the shards make: their edits and factors (the same in each),
/// every session, every file skipped; their name, directory and edits file (each once,
/// in the order given, where they differ).
fn merged_header(c: &HistoryConfig, shards: &Shards) -> Result<Header, Error> {
    let headers = shards.headers();
    let Some(first) = headers.first() else {
        return Err(Located::new("--merge", "no shards given").into());
    };
    let split: Vec<Option<&str>> = headers.iter().map(|h| h.shard.as_deref()).collect();
    shard::complete_split(&split, "shards", "history")?;
    same_listing(&headers, &shards.given())?;
    let once = |field: fn(&Header) -> &str| {
        let mut seen: Vec<&str> = Vec::new();
        for h in &headers {
            if !seen.contains(&field(h)) {
                seen.push(field(h));
            }
        }
        seen.join(", ")
    };
    let name = match &c.name {
        Some(n) => n.clone(),
        None if headers.iter().all(|h| h.name == first.name) => first.name.clone(),
        None => {
            return Err(Located::new(
                "--merge",
                format!(
                    "the shards have different names ({}): give --name for the merged results",
                    once(|h| &h.name)
                ),
            )
            .place("--name")
            .into());
        }
    };
    let mut skipped: Vec<files::Skipped> = headers.iter().flat_map(|h| h.skipped.clone()).collect();
    skipped.sort_by(|a, b| a.file.cmp(&b.file).then_with(|| a.reason.cmp(&b.reason)));
    skipped.dedup();
    let mut header = Header::new(
        &name,
        &once(|h| &h.directory),
        &once(|h| &h.edits_file),
        first.edits.clone(),
        &first.factors,
        None,
        shards.sessions(),
        skipped,
    );
    for h in &headers {
        header.names.extend(h.names.clone());
    }
    header.selectors = first.selectors.clone();
    Ok(header)
}

/// Parts of a split must have been cut from one listing: where the directory changed
/// between their jobs, a session added in between may be in no part's files and one
/// removed may be in two, so the merge would silently miss sessions or count one twice.
/// Every header that says what its part saw (`--shard K/N`) must say the same.
fn same_listing(headers: &[&Header], given: &[&Path]) -> Result<(), Error> {
    // Every part simulate writes with `--shard K/N` says what it saw.
    if let Some((h, g)) = headers
        .iter()
        .zip(given)
        .find(|(h, _)| h.listing.is_none() && h.shard.as_deref().and_then(Shard::parse).is_some())
    {
        return Err(Located::new(
            g.display().to_string(),
            format!(
                "not a history shard: its header says shard {} but not the listing it was cut from, which every --shard part simulate writes records",
                h.shard.as_deref().unwrap_or("")
            ),
        )
        .into());
    }
    let mut seen = headers
        .iter()
        .zip(given)
        .filter_map(|(h, g)| h.listing.as_ref().map(|l| (h, *g, l)));
    let Some((first, first_given, listing)) = seen.next() else {
        return Ok(());
    };
    let Some((other, other_given, different)) = seen.find(|(_, _, l)| *l != listing) else {
        return Ok(());
    };
    let part = |h: &Header, g: &Path| {
        format!(
            "shard {} ({})",
            h.shard.as_deref().unwrap_or("?"),
            g.display()
        )
    };
    let counts = if listing.files == different.files {
        format!(
            "both saw {} under {}, but not the same ones ({} against {})",
            plural(listing.files, "session file", "session files"),
            first.directory,
            listing.digest,
            different.digest
        )
    } else {
        format!(
            "the first saw {} under {}, the second {} under {}",
            plural(listing.files, "session file", "session files"),
            first.directory,
            plural(different.files, "session file", "session files"),
            other.directory
        )
    };
    Err(Located::new(
        "--merge",
        format!(
            "{} and {} were cut from different listings: {counts}. The directory changed between their jobs, so sessions could be missing from the merge or counted twice; run every shard of the split again over one listing (or give each job its files with --files-from from one list)",
            part(first, first_given),
            part(other, other_given)
        ),
    )
    .into())
}

/// Prepares `out_root/name/` (noting what it creates) when files are written.
fn prepare(
    c: &HistoryConfig,
    name: &str,
    inputs: &[PathBuf],
    created: &mut Created,
) -> Result<Option<OutputDir>, Error> {
    match &c.out_root {
        Some(root) => {
            created.note(root, name);
            Ok(Some(OutputDir::prepare(root, name, inputs)?))
        }
        None => Ok(None),
    }
}

/// The records of `header` in session order, through the sums into every file.
fn finish(
    c: &HistoryConfig,
    header: &Header,
    records: &mut dyn Records,
    mut dir: Option<OutputDir>,
    merged_from: Vec<String>,
) -> Result<(HistoryReport, Vec<PathBuf>), Error> {
    let Some(summed) =
        history::pass::pass(records, header, c.group_by, c.max_cost_diff, dir.as_mut())?
    else {
        return Err(no_sessions(Path::new(&header.directory), &header.skipped));
    };
    let sweep = summed.sweep.finish(&header.factors, &summed.aggregate);
    let mut report = HistoryReport::new(
        &header.name,
        &header.directory,
        &header.edits_file,
        summed.aggregate,
        sweep,
        summed.listed,
        header.skipped.clone(),
    );
    report
        .warnings
        .splice(0..0, unmatched_selectors(header, header.sessions));
    report.groups = summed.groups;
    report.merged_from = merged_from;
    let files = match dir {
        Some(mut dir) => {
            dir.write("summary.csv", |w| history::csv::write_summary(w, &report))?;
            dir.write("flips.csv", |w| history::csv::write_flips(w, &report))?;
            dir.write("sweep.csv", |w| history::csv::write_sweep(w, &report))?;
            let refetch = history::csv::refetch_edits(&report);
            if !refetch.is_empty() {
                dir.write("refetch.csv", |w| history::csv::write_refetch(w, &refetch))?;
            }
            if let Some(groups) = &report.groups {
                dir.write("groups.csv", |w| history::csv::write_groups(w, groups))?;
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
    records: &mut dyn Records,
) -> Result<(), Error> {
    match c.format {
        Format::Json => history::json::write(out, report, &mut || {
            Ok(records.next_record()?.map(|r| r.session.figures))
        }),
        Format::Table => history::table::write(out, report, files, c.verbose).map_err(Error::Print),
    }
}

/// A selector naming a tool or kind that no session has: a slip (`tool = "bash"`), which
/// would otherwise save nothing in every session without a word; one warning each, with
/// the names the sessions have and the nearest.
fn unmatched_selectors(header: &Header, sessions: usize) -> Vec<history::report::WarningCount> {
    let mut out = Vec::new();
    for s in &header.selectors {
        let missing =
            header
                .names
                .missing_names(s.tools.as_deref(), s.kinds.as_deref(), "no session");
        for why in missing {
            out.push(history::report::WarningCount {
                warning: format!("[[edit]] \"{}\": {}: {why}", s.edit, s.rule),
                sessions,
            });
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
    fn every_file_is_in_one_part_by_its_own_path() {
        let paths: Vec<PathBuf> = (0..1000)
            .map(|i| PathBuf::from(format!("project-{}/session-{i:04}.toml", i % 7)))
            .collect();
        for of in 1..=9 {
            let mut sizes = vec![0usize; of];
            for p in &paths {
                let parts: Vec<usize> = (1..=of)
                    .filter(|&index| Shard { index, of }.holds(p))
                    .collect();
                assert_eq!(parts.len(), 1, "{} in {parts:?} of {of}", p.display());
                sizes[parts[0] - 1] += 1;
            }
            // Even enough: each part within a third of its share.
            let share = 1000 / of;
            assert!(
                sizes
                    .iter()
                    .all(|&n| n * 3 >= share * 2 && n * 3 <= share * 4),
                "{sizes:?}"
            );
        }
    }
}
