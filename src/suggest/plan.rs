//! A suggestion split into parts (docs/suggest.md, "Shards"): each of its three rounds run
//! on the K-th of N parts of a directory's files (`--shard K/N`), the parts merged exactly
//! into what the round gives over every session (`--merge`), and a [`Plan`] carrying what
//! the next round needs.
//!
//! A part writes [`SHARD_FILE`]: a [`PartHeader`] line, then its records in session order.
//! Round 1: one record, what the part found ([`FirstPart`]: the evidence as gathered, the
//! agents, the names, the files that are not sessions, those `--max-cost-diff` left out).
//! Round 2: each session's figures under the schedule search's grid. Round 3: each
//! session's line of the evaluation (its history record, then its measures and agent).
//! Rounds 2 and 3 write a record as the session's name (a JSON string), a tab, the record.
//!
//! The merge of round 1 writes the plan of round 2: the merged evidence, agents, sessions
//! (counted and hashed), skipped and left-out files. The merge of round 2 sums the
//! sessions' figures in session order into the search's [`Totals`], and writes the plan
//! of round 3. The merge of round 3 sums the sessions' lines in session order as one run
//! sums its spill. Every sum runs one run's additions, in its order, on numbers read back
//! to the bit, so the merged outputs are one run's, byte for byte.

use super::evidence::Gatherer;
use super::pass::{NamesHasher, SessionNames};
use super::schedule::Totals;
use super::settings::Agent;
use super::{Found, Proposal, propose};
use crate::error::{Error, Located};
use crate::history::Factors;
use crate::history::aggregate::OffSessions;
use crate::history::files::Skipped;
use crate::history::shard::{self, Listing};
use crate::scenario::BasePart;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};

/// A part's file, in the folder it writes (`OUT/<name>-suggest/`).
pub const SHARD_FILE: &str = "suggest-shard.jsonl";
/// A plan's file, in the folder a merge writes (`OUT/<name>-suggest-round-R/`).
pub const PLAN_FILE: &str = "plan.json";
/// The part header's `format`.
pub const SHARD_FORMAT: &str = "simulate suggest shard";
/// The plan's `format`.
pub const PLAN_FORMAT: &str = "simulate suggest plan";
/// Bumped whenever a record, a header or a plan changes meaning.
pub const FORMAT_VERSION: u32 = 1;

/// The flags that change a suggestion's figures: every round of a split, and every merge,
/// must be run with the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flags {
    pub factors: Factors,
    /// `--context`'s parts: `xxh3:` and 16 hex digits of their definitions as read; None
    /// without `--context`.
    pub context: Option<String>,
    pub max_cost_diff: Option<f64>,
}

impl Flags {
    /// The flags of a run over `factors`, with the base parts `parts` and `max_cost_diff`.
    pub fn of(factors: &Factors, parts: &[BasePart], max_cost_diff: Option<f64>) -> Flags {
        let context = (!parts.is_empty()).then(|| {
            let text = format!("{parts:?}");
            format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
        });
        Flags {
            factors: factors.clone(),
            context,
            max_cost_diff,
        }
    }

    /// What differs between `self` (of `a`) and `other` (of `b`); None where nothing does.
    pub fn differ(&self, a: &str, other: &Flags, b: &str) -> Option<String> {
        if self.max_cost_diff != other.max_cost_diff {
            let show = |x: Option<f64>| {
                x.map_or("no --max-cost-diff".into(), |x| {
                    format!("--max-cost-diff {x}")
                })
            };
            return Some(format!(
                "{a} was run with {} and {b} with {}: give every round and merge of the split the same --max-cost-diff",
                show(self.max_cost_diff),
                show(other.max_cost_diff)
            ));
        }
        if self.context != other.context {
            let show = |x: &Option<String>| {
                x.as_ref()
                    .map_or("no --context".into(), |d| format!("--context parts {d}"))
            };
            return Some(format!(
                "{a} was run with {} and {b} with {}: give every round and merge of the split the same --context FILE",
                show(&self.context),
                show(&other.context)
            ));
        }
        if self.factors != other.factors {
            return Some(format!(
                "{a} sweeps {} and {b} sweeps {}: run every round of the split with the same simulate",
                self.factors.describe(),
                other.factors.describe()
            ));
        }
        None
    }
}

/// The first line of a part's [`SHARD_FILE`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartHeader {
    /// [`SHARD_FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The simulate that wrote it.
    pub simulate: String,
    /// 1, 2 or 3.
    pub round: u8,
    /// `K/N`.
    pub shard: String,
    /// The results folder's name (`<dir>-suggest`).
    pub name: String,
    /// The directory, as given.
    pub directory: String,
    /// What the part saw of the directory.
    pub listing: Listing,
    /// What the listing found and did not read (link loops, broken links, pipes).
    pub listed: Vec<Skipped>,
    pub flags: Flags,
    /// The digest of the plan it ran ([`digest`]); None in round 1.
    pub plan: Option<String>,
    /// Records that follow.
    pub records: usize,
}

impl PartHeader {
    /// The header of a part of round `round`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        round: u8,
        shard: String,
        name: &str,
        directory: &str,
        listing: Listing,
        listed: Vec<Skipped>,
        flags: Flags,
        plan: Option<String>,
        records: usize,
    ) -> PartHeader {
        PartHeader {
            format: SHARD_FORMAT.into(),
            format_version: FORMAT_VERSION,
            simulate: env!("CARGO_PKG_VERSION").into(),
            round,
            shard,
            name: name.into(),
            directory: directory.into(),
            listing,
            listed,
            flags,
            plan,
            records,
        }
    }

    /// Writes the header line.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer(&mut *out, self)?;
        out.write_all(b"\n")
    }

    /// Why parts with headers `self` (of `a`) and `other` (of `b`) cannot be merged.
    fn mismatch(&self, a: &str, other: &PartHeader, b: &str) -> Option<String> {
        if (&self.simulate, self.format_version) != (&other.simulate, other.format_version) {
            return Some(format!(
                "{a} was written by simulate {} and {b} by simulate {}: run every part with the same simulate",
                self.simulate, other.simulate
            ));
        }
        if self.round != other.round {
            return Some(format!(
                "{a} is a part of round {} and {b} of round {}: merge the parts of one round",
                self.round, other.round
            ));
        }
        if self.directory != other.directory || self.name != other.name {
            return Some(format!(
                "{a} read {} (results {}) and {b} read {} (results {}): run every part on the same DIR, as given",
                self.directory, self.name, other.directory, other.name
            ));
        }
        if self.listing != other.listing {
            return Some(format!(
                "{a} and {b} were cut from different listings of {}: {} *.toml files ({}) against {} ({}). The directory changed between their jobs, so sessions could be missing or counted twice; run every part of the round again over one listing",
                self.directory,
                self.listing.files,
                self.listing.digest,
                other.listing.files,
                other.listing.digest
            ));
        }
        if self.plan != other.plan {
            return Some(format!(
                "{a} ran the plan {} and {b} the plan {}: run every part of the round with the same --plan",
                self.plan.as_deref().unwrap_or("none"),
                other.plan.as_deref().unwrap_or("none")
            ));
        }
        self.flags.differ(a, &other.flags, b)
    }
}

/// What a part found in round 1: its one record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirstPart {
    /// The evidence as gathered (unfinished: parts merge it first).
    pub gatherer: Gatherer,
    pub agents: Vec<(Agent, usize)>,
    /// Its sessions' names, in session order.
    pub names: Vec<String>,
    /// Its files that are not sessions.
    pub skipped: Vec<Skipped>,
    /// Its sessions `--max-cost-diff` left out.
    pub excluded: OffSessions,
    /// Its files the next rounds do not read (not sessions, or left out), relative to the
    /// directory, in path order.
    pub not_kept: Vec<String>,
}

/// What a merge of round 1 or 2 hands the next round, written as [`PLAN_FILE`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// [`PLAN_FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    pub simulate: String,
    /// The round it runs: 2 or 3.
    pub round: u8,
    pub name: String,
    pub directory: String,
    /// Where the suggestion's edits file is written: the merges' `--out`, as given, joined
    /// with the name and `suggested.toml` (the sessions' warnings name it).
    pub edits_file: String,
    /// The command that reruns the edits file.
    pub rerun: String,
    pub listing: Listing,
    pub listed: Vec<Skipped>,
    pub flags: Flags,
    /// Every part's evidence, merged.
    pub gatherer: Gatherer,
    pub agents: Vec<(Agent, usize)>,
    pub sessions: SessionNames,
    pub skipped: Vec<Skipped>,
    pub excluded: OffSessions,
    /// The files the next rounds do not read, relative to the directory, in path order.
    pub not_kept: Vec<String>,
    /// Round 3: the schedule search's sums over every session.
    pub totals: Option<Totals>,
}

impl Plan {
    /// The plan's text: what is written, and what its digest is of.
    pub fn text(&self) -> Result<String, Error> {
        let mut text = serde_json::to_string_pretty(self).map_err(|e| Error::Print(e.into()))?;
        text.push('\n');
        Ok(text)
    }

    /// Reads the plan at `path` and its digest.
    ///
    /// Errors: unreadable; not a plan (with its line and column), or one of another
    /// simulate.
    pub fn read(path: &Path) -> Result<(Plan, String), Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
        let shown = path.display().to_string();
        let plan: Plan = serde_json::from_str(&text).map_err(|e| {
            Located::new(
                &shown,
                format!(
                    "not a plan `simulate suggest --merge` wrote (a {PLAN_FILE} of a round's merge): {e}"
                ),
            )
            .at(Some((e.line(), e.column())))
        })?;
        if plan.format != PLAN_FORMAT
            || plan.format_version != FORMAT_VERSION
            || plan.simulate != env!("CARGO_PKG_VERSION")
        {
            return Err(Located::new(
                &shown,
                format!(
                    "a plan of simulate {} (format `{}` {}), where this simulate {} reads `{PLAN_FORMAT}` {FORMAT_VERSION}: run the split again from round 1 with this simulate",
                    plan.simulate,
                    plan.format,
                    plan.format_version,
                    env!("CARGO_PKG_VERSION")
                ),
            )
            .into());
        }
        if !(2..=3).contains(&plan.round) || (plan.round == 3) != plan.totals.is_some() {
            return Err(Located::new(
                &shown,
                "not a plan `simulate suggest --merge` wrote: its round and its search's sums disagree (the file was edited)",
            )
            .into());
        }
        let plan = Plan {
            gatherer: plan.gatherer.checked(&shown)?,
            ..plan
        };
        Ok((plan, digest(&text)))
    }

    /// Why a part of `directory` (as given), cut from `listing` and run with `flags`, cannot
    /// run this plan (read from `shown`); None where it can.
    pub fn refusal(
        &self,
        shown: &str,
        directory: &str,
        listing: &Listing,
        flags: &Flags,
    ) -> Option<String> {
        if self.directory != directory {
            return Some(format!(
                "the plan {shown} was made for the sessions under {}, not {directory}: give the DIR the split was started on, as given",
                self.directory
            ));
        }
        if self.listing != *listing {
            return Some(format!(
                "the plan {shown} was made from a listing of {} *.toml files under {directory} ({}), and this part sees {} ({}): the directory changed since round 1, so run the split again from round 1",
                self.listing.files, self.listing.digest, listing.files, listing.digest
            ));
        }
        flags.differ("this command", &self.flags, &format!("the plan {shown}"))
    }

    /// The proposal of the merged evidence.
    pub fn proposal(&self) -> Proposal {
        propose(&self.gatherer.clone().finish())
    }

    /// What the first round found, for the report.
    pub fn found(&self) -> Found {
        Found {
            agents: self.agents.clone(),
            sessions: self.sessions.clone(),
            skipped: self.skipped.clone(),
            excluded: self.excluded.clone(),
        }
    }

    /// Which of `relative` (a part's files, relative to the directory) the next rounds
    /// read.
    pub fn keeps(&self, relative: &str) -> bool {
        self.not_kept
            .binary_search_by(|p| p.as_str().cmp(relative))
            .is_err()
    }
}

/// The digest of a plan's text, as a part's header records it.
pub fn digest(text: &str) -> String {
    format!(
        "xxh3-128:{:032x}",
        xxhash_rust::xxh3::xxh3_128(text.as_bytes())
    )
}

/// A part's file as `--merge` reads it.
const PART: shard::PartFile = shard::PartFile {
    file: SHARD_FILE,
    missing: "`simulate suggest --merge` takes the folders the parts wrote (OUT/<name>-suggest/ of `simulate suggest DIR --shard K/N --out OUT`)",
    kind: "a part of a split suggestion",
    header: "a part's header",
};

/// One part's file being read.
pub struct Part {
    /// As given (a folder or the file).
    pub given: PathBuf,
    path: PathBuf,
    pub header: PartHeader,
    lines: io::Lines<BufReader<File>>,
    /// Lines read, the header included.
    line: usize,
    records: usize,
    last: Option<String>,
}

impl Part {
    /// Opens the part `given` (the folder a part wrote, or its [`SHARD_FILE`]).
    ///
    /// Errors: unreadable; not a part's file.
    pub fn open(given: &Path) -> Result<Part, Error> {
        let shard::Opened {
            path,
            header,
            lines,
        } = PART.open::<PartHeader>(given)?;
        let not_a_part = |why: String| PART.refusal(&path, why);
        if header.format != SHARD_FORMAT || header.format_version != FORMAT_VERSION {
            return Err(not_a_part(format!(
                "it is `{}` {} (simulate {}), this simulate reads `{SHARD_FORMAT}` {FORMAT_VERSION}: run the part again with this simulate",
                header.format, header.format_version, header.simulate
            )));
        }
        if !(1..=3).contains(&header.round) || shard::Shard::parse(&header.shard).is_none() {
            return Err(not_a_part(format!(
                "its header's round ({}) or shard (`{}`) is not one simulate writes",
                header.round, header.shard
            )));
        }
        if let Some(why) = crate::history::files::name_refusal(&header.name) {
            return Err(not_a_part(format!(
                "its header's name is not one simulate writes: {why}"
            )));
        }
        Ok(Part {
            given: given.to_path_buf(),
            path,
            header,
            lines,
            line: 1,
            records: 0,
            last: None,
        })
    }

    /// Where the part's line `line` is, for messages.
    fn at(&self) -> String {
        format!("{}:{}", self.path.display(), self.line)
    }

    /// The next line; None at the end, once the count is checked.
    fn next_line(&mut self) -> Result<Option<String>, Error> {
        match self.lines.next() {
            None if self.records != self.header.records => Err(Located::new(
                self.path.display().to_string(),
                format!(
                    "cut short: its header announces {} records, it holds {}; copy the part again",
                    self.header.records, self.records
                ),
            )
            .into()),
            None => Ok(None),
            Some(Err(source)) => Err(Error::Unreadable {
                path: self.path.clone(),
                source,
            }),
            Some(Ok(line)) => {
                self.line += 1;
                self.records += 1;
                Ok(Some(line))
            }
        }
    }

    /// Round 1's record.
    ///
    /// Errors: not one, or not one record.
    pub fn first(&mut self) -> Result<FirstPart, Error> {
        let line = self.next_line()?;
        let at = self.at();
        let Some(line) = line else {
            return Err(Located::new(at, "a part of round 1 without its record").into());
        };
        let part: FirstPart = serde_json::from_str(&line)
            .map_err(|e| Located::new(&at, format!("not the record of a part of round 1: {e}")))?;
        if self.next_line()?.is_some() {
            return Err(Located::new(self.at(), "a part of round 1 holds one record").into());
        }
        Ok(FirstPart {
            gatherer: part.gatherer.checked(&at)?,
            ..part
        })
    }

    /// The next session's record of round 2 or 3: its name and the record.
    ///
    /// Errors: not such a record; a name not after the last.
    fn next_record(&mut self) -> Result<Option<(String, String)>, Error> {
        let Some(line) = self.next_line()? else {
            return Ok(None);
        };
        let named = line.split_once('\t').and_then(|(name, rest)| {
            Some((serde_json::from_str::<String>(name).ok()?, rest.to_string()))
        });
        let Some((name, rest)) = named else {
            return Err(Located::new(
                self.at(),
                "not a session's record of a split suggestion (its name, a tab, its record)",
            )
            .into());
        };
        if let Some(last) = &self.last
            && name.as_str() <= last.as_str()
        {
            return Err(Located::new(
                self.at(),
                format!(
                    "session `{}` comes after `{}`: a part's sessions are in name order, each once; this file was not written by simulate suggest, or was edited",
                    crate::printable::printable(&name),
                    crate::printable::printable(last)
                ),
            )
            .into());
        }
        self.last = Some(name.clone());
        Ok(Some((name, rest)))
    }
}

/// A round-2 or round-3 record line: the session's name, a tab, the record.
pub fn record_line(name: &str, record: &str) -> Result<String, Error> {
    let mut line = serde_json::to_string(name).map_err(|e| Error::Print(e.into()))?;
    line.push('\t');
    line.push_str(record);
    Ok(line)
}

/// The session's name of an evaluation's line (its history record, a tab, its measures);
/// `at` names where the line is.
///
/// Errors: a line without a session's name.
pub fn session_name(line: &str, at: impl FnOnce() -> String) -> Result<String, Error> {
    #[derive(Deserialize)]
    struct Named {
        figures: Figures,
    }
    #[derive(Deserialize)]
    struct Figures {
        name: String,
    }
    let record = line.split_once('\t').map_or(line, |(record, _)| record);
    serde_json::from_str::<Named>(record)
        .map(|n| n.figures.name)
        .map_err(|e| {
            Located::new(
                at(),
                format!("a spilled session without its name (a bug in simulate suggest): {e}"),
            )
            .into()
        })
}

/// Opens every part `given` and checks that they can be merged: one round, one directory,
/// listing, plan and flags, every part of the split once.
///
/// Errors: a part that cannot be read or is not one; parts that differ (naming the two and
/// what differs); a part given twice, or missing.
pub fn open_parts(given: &[PathBuf]) -> Result<Vec<Part>, Error> {
    let mut parts: Vec<Part> = Vec::with_capacity(given.len());
    for g in given {
        let part = Part::open(g)?;
        if let Some(first) = parts.first()
            && let Some(why) = first.header.mismatch(
                &first.given.display().to_string(),
                &part.header,
                &g.display().to_string(),
            )
        {
            return Err(Located::new("--merge", format!("the parts differ: {why}")).into());
        }
        parts.push(part);
    }
    if parts.is_empty() {
        return Err(Located::new("--merge", "no parts given").into());
    }
    let split: Vec<Option<&str>> = parts
        .iter()
        .map(|p| Some(p.header.shard.as_str()))
        .collect();
    shard::complete_split(&split, "parts", "suggestion")?;
    Ok(parts)
}

/// Every part's round-1 record merged: what one run's first round finds.
pub struct FirstMerged {
    pub gatherer: Gatherer,
    pub agents: Vec<(Agent, usize)>,
    pub sessions: SessionNames,
    pub skipped: Vec<Skipped>,
    pub excluded: OffSessions,
    pub not_kept: Vec<String>,
}

/// Merges the parts' round-1 records.
///
/// Errors: a part's record; a session in two parts.
pub fn merge_first(parts: &mut [Part]) -> Result<FirstMerged, Error> {
    let mut gatherer = Gatherer::default();
    let mut agents: BTreeMap<Agent, usize> = BTreeMap::new();
    let mut names: Vec<(String, usize)> = Vec::new();
    let mut skipped = Vec::new();
    let mut excluded = OffSessions::default();
    let mut not_kept = Vec::new();
    for (i, part) in parts.iter_mut().enumerate() {
        let first = part.first()?;
        gatherer.merge(first.gatherer);
        for (agent, n) in first.agents {
            *agents.entry(agent).or_insert(0) += n;
        }
        names.extend(first.names.into_iter().map(|n| (n, i)));
        skipped.extend(first.skipped);
        excluded.merge(first.excluded);
        not_kept.extend(first.not_kept);
    }
    names.sort();
    if let Some(w) = names.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(in_two(&w[0].0, &parts[w[0].1], &parts[w[1].1]));
    }
    skipped.sort_by(|a: &Skipped, b| a.file.cmp(&b.file));
    not_kept.sort();
    Ok(FirstMerged {
        gatherer,
        agents: agents.into_iter().collect(),
        sessions: SessionNames::of(names.iter().map(|(n, _)| n.as_str())),
        skipped,
        excluded,
        not_kept,
    })
}

fn in_two(name: &str, a: &Part, b: &Part) -> Error {
    Located::new(
        "--merge",
        format!(
            "session `{}` is in {} and in {}: a merge counts each session once, so parts must not share sessions (two files of one name under the directory?)",
            crate::printable::printable(name),
            a.given.display(),
            b.given.display()
        ),
    )
    .into()
}

/// The parts' records of round 2 or 3, in session order (a k-way merge by name, one record
/// held per part), and the names hashed as they go by.
pub struct Merged<'a> {
    parts: &'a mut [Part],
    heads: BinaryHeap<Reverse<(String, usize)>>,
    next: Vec<Option<String>>,
    last: Option<(String, usize)>,
    pub names: NamesHasher,
}

impl<'a> Merged<'a> {
    /// Starts reading `parts`.
    pub fn new(parts: &'a mut [Part]) -> Result<Merged<'a>, Error> {
        let n = parts.len();
        let mut merged = Merged {
            parts,
            heads: BinaryHeap::new(),
            next: vec![None; n],
            last: None,
            names: NamesHasher::default(),
        };
        for i in 0..n {
            merged.pull(i)?;
        }
        Ok(merged)
    }

    fn pull(&mut self, i: usize) -> Result<(), Error> {
        if let Some((name, rest)) = self.parts[i].next_record()? {
            self.heads.push(Reverse((name, i)));
            self.next[i] = Some(rest);
        }
        Ok(())
    }

    /// The records in all, as the parts' headers announce them.
    pub fn records(&self) -> usize {
        self.parts.iter().map(|p| p.header.records).sum()
    }

    /// Where the record given last is, for messages.
    pub fn at(&self) -> String {
        match &self.last {
            Some((_, i)) => self.parts[*i].at(),
            None => "--merge".into(),
        }
    }

    /// The next record of all the parts, in session order.
    ///
    /// Errors: a session in two parts; a part out of order, cut short or unreadable.
    pub fn next_record(&mut self) -> Result<Option<String>, Error> {
        let Some(Reverse((name, i))) = self.heads.pop() else {
            return Ok(None);
        };
        if let Some((last, j)) = &self.last
            && *last == name
        {
            return Err(in_two(&name, &self.parts[*j], &self.parts[i]));
        }
        let record = self.next[i].take().unwrap_or_default();
        self.names.add(&name);
        self.pull(i)?;
        self.last = Some((name, i));
        Ok(Some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_name_what_differs() {
        let f = Flags::of(&Factors::default(), &[], None);
        assert_eq!(f.differ("a", &f.clone(), "b"), None);
        let g = Flags::of(&Factors::default(), &[], Some(10.0));
        assert_eq!(
            f.differ("a", &g, "b").unwrap(),
            "a was run with no --max-cost-diff and b with --max-cost-diff 10: give every round and merge of the split the same --max-cost-diff"
        );
    }

    #[test]
    fn a_record_line_reads_back() {
        let line = record_line("a\"b", "{\"x\":1}").unwrap();
        assert_eq!(line, "\"a\\\"b\"\t{\"x\":1}");
    }
}
