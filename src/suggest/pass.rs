//! A suggestion's second pass: every session evaluated with the candidates as `simulate
//! history --edits` evaluates it, and measured (`measure`), from one read.
//!
//! As `history` streams (`history::stream`): each session's record is spilled as it comes,
//! with its measure and agent beside it on the same line, and nothing of it is kept; then
//! the lines are read back in session (name) order through the history's own pass
//! (`history::pass`), the measures, the agents' shares and the per-session spread summed
//! beside it. So the sums run the same additions in the same order whatever order the
//! files come in, and what is held grows with the sessions only by what the history's sums
//! hold (a few numbers per session and edit), not by each session's sweep and measures.

use super::Input;
use super::measure::{self, SessionMeasure, Sums};
use super::report::Spread;
use super::settings::{self, Agent, Shares};
use crate::error::{Error, Located};
use crate::history::accumulate::Accumulator;
use crate::history::aggregate::{Aggregate, SweepSums};
use crate::history::files;
use crate::history::pass::pass_into;
use crate::history::session::evaluate_session_beside;
use crate::history::shard::{EditId, Header, Record};
use crate::history::spill::{Spill, SpillWriter};
use crate::history::stream::{self, MAX_STREAMED_SWEEP_VALUES, Records};
use crate::history::{SessionFigures, evaluate_session};
use crate::scenario::Edit;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Every session evaluated and measured, summed in session order.
pub struct Evaluated {
    pub aggregate: Aggregate,
    pub sweep: SweepSums,
    /// The first sessions, as a streamed history keeps them for its page.
    pub listed: Vec<SessionFigures>,
    pub sums: Sums,
    /// Each agent's share of every edit's saving.
    pub shares: Shares,
    /// Without the percentiles (`Spread::with_pcts` adds them from `aggregate`).
    pub spread: Spread,
}

/// What a session's line holds beside its history record, after a tab (a record's JSON
/// holds none: JSON escapes it in strings).
#[derive(Serialize, Deserialize)]
struct Beside {
    measure: SessionMeasure,
    agent: Agent,
}

/// How many sweep figures a suggestion may evaluate: as a streamed history, since neither
/// holds them in memory (the spill holds about twice a history's, its measures beside).
pub fn check_size(
    sessions: usize,
    factors: &crate::history::Factors,
    edits: usize,
) -> Result<(), Error> {
    files::check_sweep_size(
        sessions,
        factors,
        edits,
        MAX_STREAMED_SWEEP_VALUES,
        "split the sessions into parts (`simulate suggest DIR --shard K/N`: docs/suggest.md, \"Shards\"), each checked on its own sessions",
    )
}

/// The sessions a round evaluates, as the first round found them: how many, and a digest
/// of their names in session order (so a split's parts can be checked against the whole
/// without carrying every name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionNames {
    pub count: usize,
    /// `xxh3-128:` and 32 hex digits: XXH3-128 of the names in session order, each
    /// followed by a NUL byte (which no name holds).
    pub digest: String,
}

impl SessionNames {
    /// The names `names`, in session order.
    pub fn of<'a>(names: impl IntoIterator<Item = &'a str>) -> SessionNames {
        let mut h = NamesHasher::default();
        names.into_iter().for_each(|n| h.add(n));
        h.finish()
    }
}

/// [`SessionNames`] made a name at a time.
#[derive(Default)]
pub struct NamesHasher {
    count: usize,
    hasher: xxhash_rust::xxh3::Xxh3,
}

impl NamesHasher {
    /// Adds the next name, in session order.
    pub fn add(&mut self, name: &str) {
        self.count += 1;
        self.hasher.update(name.as_bytes());
        self.hasher.update(b"\0");
    }

    /// The names added.
    pub fn finish(&self) -> SessionNames {
        SessionNames {
            count: self.count,
            digest: format!("xxh3-128:{:032x}", self.hasher.digest128()),
        }
    }
}

/// Reads the session files `paths` (under `input.dir`) again, evaluates each with `edits`
/// and measures it, and sums them in session order; `names` are the sessions the first
/// pass read. None without sessions.
///
/// Errors: as `history::stream::evaluate`; a file that is no longer the session the first
/// pass read (`files::changed`).
pub fn evaluate(
    input: &Input,
    paths: &[PathBuf],
    edits: &[Edit],
    names: &SessionNames,
) -> Result<Option<Evaluated>, Error> {
    let spill = spill(input, paths, edits)?;
    if spill.len() != names.count {
        return Err(files::changed(input.path_shown));
    }
    let mut lines = spill.lines()?;
    let at = spill.path().display().to_string();
    sum(input, edits, names, &at, &mut || lines.next_line())
}

/// Every session of `paths` evaluated and measured: its line (the history's record, then
/// its measures and agent after a tab) spilled, to be read back in session order.
///
/// Errors: as [`evaluate`]; two sessions of one name.
pub fn spill(input: &Input, paths: &[PathBuf], edits: &[Edit]) -> Result<Spill, Error> {
    check_size(paths.len(), input.factors, edits.len())?;
    let edits_shown = input.edits_path.display().to_string();
    // What a suggestion writes from it is small (a row a candidate): nothing counted beside.
    let mut out = SpillWriter::create(input.spill_parent, input.name, paths.len(), 0.0)?;
    stream::in_chunks(
        paths,
        input.progress,
        |path| line(input, path, edits, &edits_shown),
        |(name, line)| out.push(&name, &line),
    )?;
    let spill = out.finish()?;
    if let Some((a, b)) = spill.same_name()? {
        return Err(stream::same_name(
            input.dir,
            &spill,
            record_part(a),
            record_part(b),
        )?);
    }
    Ok(spill)
}

/// Sums the sessions' lines (as [`spill`] writes them), which `next` gives in session
/// order, as the history sums them; `at` names where the lines are, for messages. The
/// sessions must be `names`, name for name.
pub fn sum(
    input: &Input,
    edits: &[Edit],
    names: &SessionNames,
    at: &str,
    next: &mut dyn FnMut() -> Result<Option<String>, Error>,
) -> Result<Option<Evaluated>, Error> {
    let edits_shown = input.edits_path.display().to_string();
    let header = Header::new(
        input.name,
        input.path_shown,
        &edits_shown,
        edits.iter().map(EditId::of).collect(),
        input.factors,
        None,
        names.count,
        Vec::new(),
    );
    let mut read = Read {
        next,
        at,
        names: NamesHasher::default(),
        sums: Sums::new(edits.len(), input.factors.len()),
        shares: Shares::new(),
        spread: Spread::default(),
    };
    let sweep = SweepSums::new(input.factors.len(), edits.len());
    // The report spreads only the sessions' cost saved: the rest is not kept.
    let sums = Accumulator::new(&header.edit_names(), Some(sweep), None).cost_pcts_only();
    let summed = pass_into(&mut read, &header, sums, None)?;
    // The sessions evaluated are the ones the first pass read, name for name.
    if read.names.finish() != *names {
        return Err(files::changed(input.path_shown));
    }
    let Some(summed) = summed else {
        return Ok(None);
    };
    Ok(Some(Evaluated {
        aggregate: summed.aggregate,
        sweep: summed.sweep,
        listed: summed.listed,
        sums: read.sums,
        shares: read.shares,
        spread: read.spread,
    }))
}

/// The session at `path`, evaluated and measured: its name and its spill line.
fn line(
    input: &Input,
    path: &Path,
    edits: &[Edit],
    edits_shown: &str,
) -> Result<(String, String), Error> {
    let Ok(l) = files::load_one(input.dir, path)? else {
        return Err(files::changed(input.path_shown));
    };
    let agent = Agent::of(&l);
    let raw = l.scenario;
    let (session, measure) = if input.parts.is_empty() {
        // Without parts the measures' scenario is the history's: its replays give both.
        let s = raw.with_edits(edits.to_vec(), edits_shown);
        let (session, beside) =
            evaluate_session_beside(&s, &l.file, input.factors, Some(measure::end_context_with))?;
        (session, SessionMeasure::of(beside))
    } else {
        // As the measures read it (parts, then edits), and as the history reads it.
        let measured = raw
            .clone()
            .with_parts(input.parts, edits_shown)
            .with_edits(edits.to_vec(), edits_shown);
        let measure = measure::measure(&measured, input.factors)?;
        drop(measured);
        let s = raw
            .with_edits(edits.to_vec(), edits_shown)
            .with_parts(input.parts, edits_shown);
        (evaluate_session(&s, &l.file, input.factors)?, measure)
    };
    let Record { mut line, session } = Record::of(session)?;
    let beside =
        serde_json::to_string(&Beside { measure, agent }).map_err(|e| Error::Print(e.into()))?;
    line.push('\t');
    line.push_str(&beside);
    Ok((session.figures.name, line))
}

/// The history record of a spilled line.
fn record_part(mut line: String) -> String {
    if let Some(tab) = line.find('\t') {
        line.truncate(tab);
    }
    line
}

/// The sessions' lines in session order, for the history's pass; what the history does not
/// sum is summed here as each goes by.
struct Read<'a> {
    next: &'a mut dyn FnMut() -> Result<Option<String>, Error>,
    at: &'a str,
    names: NamesHasher,
    sums: Sums,
    shares: Shares,
    spread: Spread,
}

impl Records for Read<'_> {
    fn next_record(&mut self) -> Result<Option<Record>, Error> {
        let Some(mut line) = (self.next)()? else {
            return Ok(None);
        };
        let at = || self.at.to_string();
        let beside = line
            .find('\t')
            .and_then(|tab| Some((tab, serde_json::from_str::<Beside>(&line[tab + 1..]).ok()?)));
        let Some((tab, beside)) = beside else {
            return Err(Located::new(
                at(),
                "a spilled session without its measures (a bug in simulate suggest)",
            )
            .into());
        };
        line.truncate(tab);
        let record = Record::parse(line, at)?;
        let s = &record.session.figures;
        self.names.add(&s.name);
        self.sums.add(&beside.measure);
        settings::add_share(&mut self.shares, beside.agent, s);
        self.spread.add(s);
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Factors;

    /// The evaluation holds no session's sweep, so it is capped as a streamed history is,
    /// not at the 50 million values of one held in memory: 300,000 sessions of 20 edits over
    /// 9 points (56.7 million) pass, and 1,000,000 of 22 edits (207 million); 2,200,000 of 20
    /// (415.8 million) do not.
    #[test]
    fn the_cap_is_the_streamed_one() {
        let factors = Factors::default();
        assert_eq!(factors.len(), 9);
        // What the old cap, that of a history held in memory, refused.
        assert!(
            files::check_sweep_size(300_000, &factors, 20, files::MAX_SWEEP_VALUES, "x").is_err()
        );
        assert!(check_size(300_000, &factors, 20).is_ok());
        assert!(check_size(1_000_000, &factors, 22).is_ok());
        let refused = check_size(2_200_000, &factors, 20).unwrap_err().to_string();
        assert!(refused.contains("415,800,000 sweep totals"), "{refused}");
        // suggest takes no factors: the one way out is parts.
        assert!(!refused.contains("--base-factors"), "{refused}");
    }
}
