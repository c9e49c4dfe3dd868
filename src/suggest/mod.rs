//! `simulate suggest`: candidate edits found in the sessions themselves, evaluated with the
//! engine and ranked (docs/model.md §9, "Suggested edits").
//!
//! A suggestion is a history run with generated edits. The parts: `evidence` reads what
//! the sessions show (output sizes per tool, repeated inputs, pauses, contexts,
//! compactions, base parts), `rules` turns it into candidates, `edits_file` writes them as
//! an edits file that the normal loader parses, so what is evaluated is what the user
//! gets; `pass` evaluates them on every session as the history engine (`crate::history`)
//! does, streamed as `history` streams them; `measure`
//! adds what the history does not give (the context each edit removes, its cost over the
//! factor sweep); `pareto` marks each parametric family's trade-off front; `report` is
//! the data every output renders (`table`, `csv`, JSON, `charts`).

pub mod charts;
pub mod csv;
pub mod edits_file;
pub mod evidence;
pub mod measure;
pub mod pareto;
pub mod pass;
pub mod plan;
pub mod report;
pub mod rules;
pub mod schedule;
pub mod settings;
pub mod stream;
pub mod table;

pub use evidence::Evidence;
pub use report::SuggestReport;
pub use rules::{Candidate, Family, Proposal, propose};

use crate::error::{Error, Located};
use crate::history::aggregate::OffSessions;
use crate::history::files::Skipped;
use crate::history::{Factors, HistoryReport};
use crate::scenario::{self, BasePart, Edit};
use std::path::{Path, PathBuf};

/// What a suggestion reads and how it names its outputs.
pub struct Input<'a> {
    /// The directory the sessions are under (a single scenario's folder).
    pub dir: &'a Path,
    /// The session files, as `files::find` lists them (or the one scenario).
    pub paths: &'a [PathBuf],
    /// What `files::find` listed and did not read (symbolic link loops, broken links,
    /// named pipes), listed with the files the evaluation skips, as `history` lists them.
    pub listed: &'a [Skipped],
    /// The scenario or directory, as given.
    pub path_shown: &'a str,
    /// Results go to `out/<name>/`.
    pub name: &'a str,
    pub factors: &'a Factors,
    /// The edits file's path: where it is written (or would be), for messages.
    pub edits_path: &'a Path,
    /// The command that reruns it.
    pub rerun: &'a str,
    /// Show the history's progress bar on a long run.
    pub progress: bool,
    /// Leave out the sessions whose simulated cost is more than this many percent off the
    /// measured (`--max-cost-diff`).
    pub max_cost_diff: Option<f64>,
    /// Base parts every session takes as its own (`--context FILE`: Claude Code's
    /// `/context` text or what `simulate import context` wrote), written into the
    /// suggested edits file too, so its rerun reads the same parts.
    pub parts: &'a [BasePart],
    /// Where the evaluation spills its sessions (in a staging folder labelled `name`):
    /// the results' parent, as `history` spills.
    pub spill_parent: &'a Path,
}

/// A suggestion: the report, and the edits file's text (empty without candidates).
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    pub report: SuggestReport,
    pub edits: Vec<Edit>,
}

/// What the first round found of every session, beside the evidence: what the report
/// needs of it at the end.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Sessions by agent (as `settings::seen` counts them).
    pub agents: Vec<(settings::Agent, usize)>,
    /// The sessions, in session order.
    pub sessions: pass::SessionNames,
    /// The files that are not sessions (any order).
    pub skipped: Vec<Skipped>,
    /// The sessions `--max-cost-diff` left out.
    pub excluded: OffSessions,
}

/// Reads the sessions, proposes the candidates, evaluates them as `simulate history
/// DIR --edits suggested.toml` does, and measures what the history does not give.
///
/// The three rounds, one after the other: the evidence (`stream::gather`), the schedule
/// search on the candidates it proposes (`schedule::search_files`), then the evaluation of
/// the edits chosen (`pass::evaluate`) and the report ([`report`]). A split suggestion
/// (`plan`) runs each round on parts of the sessions and merges them between rounds.
pub fn suggest(input: &Input) -> Result<Suggestion, Error> {
    let edits_shown = input.edits_path.display().to_string();
    // Sessions the simulation does not reproduce are left out before anything is read
    // from them: their evidence would propose edits, their savings would count.
    let gathered = stream::gather(
        input.dir,
        input.paths,
        input.parts,
        &edits_shown,
        input.max_cost_diff,
    )?;
    let kept = gathered.kept(input.paths);
    if gathered.names.is_empty() {
        // One file given that is not a session: say why, as a directory's listing would.
        if let ([_], [skipped]) = (input.paths, gathered.skipped.as_slice()) {
            return Err(Located::new(input.path_shown, &skipped.reason).into());
        }
        return Err(no_sessions(input.path_shown));
    }
    let found = Found {
        agents: gathered.agents,
        sessions: pass::SessionNames::of(gathered.names.iter().map(String::as_str)),
        skipped: gathered.skipped,
        excluded: gathered.excluded,
    };
    drop(gathered.names);
    // The cheapest schedule of each family joins the candidates (docs/suggest.md).
    let proposal = propose(&gathered.gatherer.finish());
    check_size_before_search(kept.len(), input.factors, &proposal)?;
    let search =
        schedule::search_files(input.dir, &kept, input.parts, &proposal, input.edits_path)?;
    let chosen = choose(input, found.sessions.count, proposal, search)?;
    let evaluated = pass::evaluate(input, &kept, &chosen.edits, &found.sessions)?;
    drop(kept);
    report(input, found, chosen, evaluated)
}

/// Refuses, before the schedule search (about 40 minutes at a million sessions), a
/// suggestion whose evaluation the sweep cap would refuse after it: `sessions` (the files
/// the evaluation reads) × the factor points × (1 + the most edits it can evaluate: the
/// candidates and one cheapest schedule for each family the search prices) over
/// `pass::check_size`'s cap.
///
/// Errors: `Located` on "command line", as `pass::check_size`.
pub fn check_size_before_search(
    sessions: usize,
    factors: &Factors,
    proposal: &Proposal,
) -> Result<(), Error> {
    let mut families: Vec<Family> = schedule::grid::grid(proposal)
        .iter()
        .map(|s| s.family)
        .collect();
    families.sort_unstable();
    families.dedup();
    pass::check_size(
        sessions,
        factors,
        proposal.candidates.len() + families.len(),
    )
}

/// The error of a suggestion over no session.
pub fn no_sessions(path_shown: &str) -> Error {
    Located::new(
        path_shown,
        "no scenario files found (searched recursively for *.toml with [[call]] tables or calls_tsv, as `simulate import` writes)",
    )
    .into()
}

/// The candidates to evaluate: the proposal with the search's cheapest schedules, and
/// their edits as the edits file gives them.
pub struct Chosen {
    pub proposal: Proposal,
    pub search: schedule::ScheduleSearch,
    /// As the edits file parses (empty without candidates).
    pub edits: Vec<Edit>,
}

/// The proposal with the search's cheapest schedules, and its edits parsed from the edits
/// file's text, so what is evaluated is what the user gets (`sessions`: the count its
/// header gives).
pub fn choose(
    input: &Input,
    sessions: usize,
    proposal: Proposal,
    mut search: schedule::ScheduleSearch,
) -> Result<Chosen, Error> {
    let proposal = search.propose_into(proposal);
    let header = edits_file::Header {
        path: input.path_shown,
        sessions,
        rerun: input.rerun,
        parts: input.parts,
    };
    let first = edits_file::text(&proposal, &header, None);
    let edits = if proposal.candidates.is_empty() {
        Vec::new()
    } else {
        scenario::load_edits_str(&first, input.edits_path)?.edits
    };
    Ok(Chosen {
        proposal,
        search,
        edits,
    })
}

/// The suggestion from what the rounds found: the sessions (`found`), the candidates
/// (`chosen`) and their evaluation.
pub fn report(
    input: &Input,
    found: Found,
    chosen: Chosen,
    evaluated: Option<pass::Evaluated>,
) -> Result<Suggestion, Error> {
    let edits_shown = input.edits_path.display().to_string();
    let Found {
        agents,
        sessions,
        skipped: not_sessions,
        excluded,
    } = found;
    let Chosen {
        proposal,
        search,
        edits,
    } = chosen;
    let Some(evaluated) = evaluated else {
        return Err(Located::new(input.path_shown, "no sessions to evaluate").into());
    };
    let mut skipped = input.listed.to_vec();
    // The files that are not sessions, as the evaluation of every file lists them (where
    // no session was left out, it read them all).
    if excluded.count == 0 {
        skipped.extend(not_sessions);
    }
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    let header = edits_file::Header {
        path: input.path_shown,
        sessions: sessions.count,
        rerun: input.rerun,
        parts: input.parts,
    };
    let mut aggregate = evaluated.aggregate;
    let spread = evaluated.spread.with_pcts(aggregate.token_cost_pcts());
    let sweep = evaluated.sweep.finish(input.factors, &aggregate);
    aggregate.excluded = excluded;
    let history = HistoryReport::new(
        input.name,
        input.path_shown,
        &edits_shown,
        aggregate,
        sweep,
        evaluated.listed,
        skipped,
    );
    let sums = evaluated.sums;
    let shares = evaluated.shares;
    let report = SuggestReport::new(&report::Parts {
        name: input.name,
        path: input.path_shown,
        proposal: &proposal,
        history: &history,
        sums: &sums,
        spread: &spread,
        factors: input.factors,
        edits_file: &edits_shown,
        rerun: input.rerun,
    });
    let text = if proposal.candidates.is_empty() {
        String::new()
    } else {
        let text = edits_file::text(&proposal, &header, Some(&report));
        // Comments change no edit: the file written is the one evaluated.
        let again = scenario::load_edits_str(&text, input.edits_path)?;
        if !edits_file::same_edits(&edits, &again.edits) || again.parts != input.parts {
            return Err(Located::new(
                input.edits_path.display().to_string(),
                "the edits file with its figures parses to other edits than the one evaluated (a bug in simulate suggest)",
            )
            .into());
        }
        text
    };
    let how = settings::all(&report.candidates, &agents, &shares);
    // The best overall may be one no setting of the user's agent offers: the answer ends
    // with the best each agent's settings make.
    let best = settings::best_settings(&how);
    let mut report = report
        .with_edits_file(text)
        .with_settings(agents, how)
        .with_schedules(search);
    if let Some(sentence) = best {
        report.answer.push(' ');
        report.answer.push_str(&sentence);
    }
    Ok(Suggestion { report, edits })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::files;

    /// The files come in path order and are summed in session order, through a spill read
    /// straight through or entry by entry: the suggestion is the same to the bit whichever
    /// order the listing gives.
    #[test]
    fn the_suggestion_does_not_depend_on_the_order_of_the_files() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/history");
        let (paths, listed) = files::find(&dir, Path::new("")).unwrap();
        assert!(paths.len() >= 3, "{paths:?}");
        let spill = tempfile::tempdir().unwrap();
        let suggest_over = |paths: &[PathBuf]| {
            suggest(&Input {
                dir: &dir,
                paths,
                listed: &listed,
                path_shown: "scenarios/history",
                name: "history-suggest",
                factors: &Factors::default(),
                edits_path: Path::new("suggested.toml"),
                rerun: "simulate history scenarios/history --edits suggested.toml",
                progress: false,
                max_cost_diff: None,
                parts: &[],
                spill_parent: spill.path(),
            })
            .unwrap()
        };
        let forward = suggest_over(&paths);
        let reversed: Vec<PathBuf> = paths.iter().rev().cloned().collect();
        let backward = suggest_over(&reversed);
        assert!(!forward.report.candidates.is_empty());
        assert_eq!(forward, backward);
        // Each run's spill went with it.
        assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 0);
    }

    /// The cap is checked before the search with a bound that is never below what the
    /// search adds: a session count the evaluation would refuse is refused before it.
    #[test]
    fn the_cap_before_the_search_bounds_the_edits_it_adds() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/history");
        let (paths, listed) = files::find(&dir, Path::new("")).unwrap();
        let spill = tempfile::tempdir().unwrap();
        let factors = Factors::default();
        let input = Input {
            dir: &dir,
            paths: &paths,
            listed: &listed,
            path_shown: "scenarios/history",
            name: "history-suggest",
            factors: &factors,
            edits_path: Path::new("suggested.toml"),
            rerun: "",
            progress: false,
            max_cost_diff: None,
            parts: &[],
            spill_parent: spill.path(),
        };
        let gathered = stream::gather(&dir, &paths, &[], "suggested.toml", None).unwrap();
        let kept = gathered.kept(&paths);
        let proposal = propose(&gathered.gatherer.finish());
        let search = schedule::search_files(&dir, &kept, &[], &proposal, input.edits_path).unwrap();
        let candidates = proposal.candidates.len();
        let early = proposal.clone();
        let edits = choose(&input, kept.len(), proposal, search).unwrap().edits;
        assert_eq!((candidates, edits.len()), (13, 14), "the search adds one");
        // 13 candidates and the three families the search prices (clearing, context
        // editing, compaction): 9 × 17 = 153 totals a session, against 9 × 15 evaluated.
        let cap = crate::history::stream::MAX_STREAMED_SWEEP_VALUES;
        let most = cap / 153;
        assert!(check_size_before_search(most, &factors, &early).is_ok());
        let refused = check_size_before_search(most + 1, &factors, &early)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("× 9 factor points × 17 runs"), "{refused}");
        assert!(refused.contains("--shard K/N"), "{refused}");
        assert!(pass::check_size(most + 1, &factors, edits.len()).is_ok());
    }
}
