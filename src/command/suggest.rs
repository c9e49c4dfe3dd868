//! `simulate suggest FILE|DIR`: candidate edits found in the sessions, evaluated and ranked
//! (docs/model.md §9, "Suggested edits"); `suggested.toml` reruns with `simulate history
//! --edits`.
//!
//! Order as for `history`: the files are listed first, the output directory is prepared
//! before the long work (a bad path fails at once), every file is staged and committed
//! together, and the table or JSON is printed last.

use crate::error::{Error, Located};
use crate::history::{Factors, default_name, files};
use crate::output::Format;
use crate::output::{self, OutputDir};
use crate::suggest::{self, SuggestReport};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The edits file a suggestion writes.
pub const EDITS_FILE: &str = "suggested.toml";

/// A validated `simulate suggest` command.
#[derive(Debug, Clone, PartialEq)]
pub struct SuggestConfig {
    /// One scenario, or a directory searched recursively for them.
    pub path: PathBuf,
    /// Results go to `out_root/<name>-suggest/`; None: write no files.
    pub out_root: Option<PathBuf>,
    /// Edits shown in the table (every one is in the JSON and `suggest.csv`).
    pub top: usize,
    pub format: Format,
    /// Threads; None: one per core.
    pub jobs: Option<usize>,
    /// The factor sweep the robustness is checked over.
    pub factors: Factors,
    /// `--max-cost-diff PCT`: leave out the sessions whose simulated cost is more than PCT
    /// percent off the measured.
    pub max_cost_diff: Option<f64>,
    /// `--context FILE`: Claude Code's `/context` text, or a file of `[[base.part]]`
    /// tables: base parts every session takes as its own.
    pub context: Option<PathBuf>,
    /// No path given: the user's own logs, imported into the cache first (`path` is then
    /// unused).
    pub local: Option<super::local::LocalConfig>,
    /// A round of a split suggestion, or a merge of one (run by `suggest_shard`; `run`
    /// runs the whole).
    pub split: Option<Split>,
}

/// Which round of a split a command runs (docs/suggest.md, "Shards").
#[derive(Debug, Clone, PartialEq)]
pub enum Split {
    /// `DIR --shard K/N [--plan PLAN]`: a part of round 1 (no plan), or of the plan's
    /// round.
    Part {
        shard: crate::history::shard::Shard,
        plan: Option<PathBuf>,
    },
    /// `--merge PART… [--plan PLAN]`: the parts of one round merged (with the plan they
    /// ran from round 2 on).
    Merge {
        parts: Vec<PathBuf>,
        plan: Option<PathBuf>,
    },
}

/// The results folder's name for a suggestion over the user's own logs.
pub const LOCAL_NAME: &str = "local";

/// Runs the suggestion, printing to `out`.
pub fn run(c: &SuggestConfig, out: &mut dyn Write) -> Result<(), Error> {
    let mut name = None;
    let imported = match &c.local {
        Some(l) => Some(super::local::import_cached(
            l,
            &crate::local::Env::from_process(),
        )?),
        None => None,
    };
    let owned;
    let c = match &imported {
        Some(i) => {
            super::local::tell(&i.said, c.format, out)?;
            name = Some(LOCAL_NAME);
            owned = SuggestConfig {
                path: i.dir.clone(),
                ..c.clone()
            };
            &owned
        }
        None => c,
    };
    let (report, files) = in_pool(c.jobs, || suggestion(c, name))?;
    print(c, out, &report, &files)
}

/// Runs `work` on `jobs` threads (None: one per core).
pub(super) fn in_pool<T: Send>(
    jobs: Option<usize>,
    work: impl FnOnce() -> Result<T, Error> + Send,
) -> Result<T, Error> {
    let Some(n) = jobs else {
        return work();
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| {
            Error::from(Located::new(
                "command line",
                format!("cannot start {n} threads for --jobs: {e}"),
            ))
        })?;
    pool.install(work)
}

/// The suggestion and the files written.
fn suggestion(
    c: &SuggestConfig,
    name: Option<&str>,
) -> Result<(SuggestReport, Vec<PathBuf>), Error> {
    let shown = c.path.display().to_string();
    let meta = std::fs::metadata(&c.path).map_err(|source| Error::Unreadable {
        path: c.path.clone(),
        source,
    })?;
    let single = !meta.is_dir();
    let (dir, paths, listed) = if single {
        let dir = c
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        (dir, vec![c.path.clone()], Vec::new())
    } else {
        // Nothing is skipped as "the edits file": a suggestion reads none. What the listing
        // leaves out (link loops, broken links, pipes) is listed as `history` lists it.
        let (paths, listed) = files::find(&c.path, Path::new(""))?;
        (c.path.clone(), paths, listed)
    };
    if paths.is_empty() {
        return Err(Located::new(
            shown,
            "no scenario files found (searched recursively for *.toml with [[call]] tables or calls_tsv, as `simulate import` writes)",
        )
        .into());
    }
    let stem = if single {
        c.path.with_extension("")
    } else {
        c.path.clone()
    };
    let name = format!(
        "{}-suggest",
        name.map_or_else(|| default_name(&stem), String::from)
    );
    let mut dir_out = match &c.out_root {
        Some(root) => Some(OutputDir::prepare(root, &name, &paths)?),
        None => None,
    };
    let edits_path = match &c.out_root {
        Some(root) => root.join(&name).join(EDITS_FILE),
        None => PathBuf::from(EDITS_FILE),
    };
    let mut rerun = rerun(&shown, single, &edits_path, c.out_root.is_some());
    if c.local.is_some() {
        // The cache folder is replaced once a log changes (the next day, for an active
        // user): the rerun that outlives it reads the logs again.
        rerun.push_str(&format!(
            " (that folder is simulate's cache, replaced once a log changes; then: simulate history --edits {} with the same --since, --last or --project, which reads your logs again)",
            edits_path.display()
        ));
    }
    let parts = match &c.context {
        Some(file) => crate::import::context::read_parts(file)?,
        None => Vec::new(),
    };
    // The evaluation spills its sessions beside the results, as `history` does; without
    // results, in the temporary folder.
    let spill_parent = match &c.out_root {
        Some(root) => root.clone(),
        None => std::env::temp_dir(),
    };
    let suggestion = suggest::suggest(&suggest::Input {
        dir: &dir,
        paths: &paths,
        listed: &listed,
        path_shown: &shown,
        name: &name,
        factors: &c.factors,
        edits_path: &edits_path,
        rerun: &rerun,
        progress: true,
        max_cost_diff: c.max_cost_diff,
        parts: &parts,
        spill_parent: &spill_parent,
    });
    if c.out_root.is_none() {
        // A spill a killed run left where this one put its own (the results' folder
        // cleans its own when it commits).
        output::set::staging::remove_stale(&spill_parent, &name);
    }
    let suggestion = suggestion?;
    let report = suggestion.report;
    let files = match dir_out.take() {
        // Without a candidate there is nothing to rerun: no files (the staging folder goes
        // with `dir`).
        Some(dir) if !report.candidates.is_empty() => write(dir, &report, &shown)?,
        _ => Vec::new(),
    };
    Ok((report, files))
}

/// Writes every file of `report` (over the sessions under `shown`) into `dir` and commits
/// it; the paths written.
pub(super) fn write(
    mut dir: OutputDir,
    report: &SuggestReport,
    shown: &str,
) -> Result<Vec<PathBuf>, Error> {
    dir.write(EDITS_FILE, |w| {
        w.write_all(report.suggested_toml.as_bytes())
    })?;
    dir.write("suggest.csv", |w| suggest::csv::write(w, report))?;
    let refetch: Vec<(&str, &crate::history::refetch::RefetchAggregate)> = report
        .candidates
        .iter()
        .filter_map(|s| Some((s.name.as_str(), s.refetch.as_ref()?)))
        .collect();
    if !refetch.is_empty() {
        dir.write("refetch.csv", |w| {
            crate::history::csv::write_refetch(w, &refetch)
        })?;
    }
    // The agents' settings fragments: to copy from, never the user's own files.
    use suggest::settings::{Agent, fragment};
    for (agent, _) in &report.agents {
        let text = match agent {
            Agent::ClaudeCode => fragment::claude_code(&report.settings, shown),
            Agent::Codex => fragment::codex(&report.settings, shown),
            _ => continue,
        };
        if let Some(file) = agent.fragment_file() {
            dir.write(file, |w| w.write_all(text.as_bytes()))?;
        }
    }
    for (file, svg) in suggest::charts::draw_all(report)? {
        dir.write(file, |w| w.write_all(svg.as_bytes()))?;
    }
    dir.commit()
}

/// The command that reruns the edits file on the same sessions.
pub(super) fn rerun(shown: &str, single: bool, edits: &Path, written: bool) -> String {
    let command = if single {
        format!("simulate {shown} --edits {}", edits.display())
    } else {
        format!("simulate history {shown} --edits {}", edits.display())
    };
    if written {
        command
    } else {
        format!("{command} (not written: --no-write; --format json holds its text)")
    }
}

pub(super) fn print(
    c: &SuggestConfig,
    out: &mut dyn Write,
    report: &SuggestReport,
    files: &[PathBuf],
) -> Result<(), Error> {
    match c.format {
        Format::Json => output::json::write(out, report),
        Format::Table => suggest::table::write(out, report, c.top, files),
    }
    .map_err(Error::Print)
}
