//! A suggestion's first pass over the session files, reading a file, taking what it needs
//! and dropping the session: no session's calls are held beyond its own step.
//!
//! It gathers the evidence (`evidence::Gatherer`), the agents and the names, reading the
//! files in chunks, in parallel, in path order; the second pass (`pass`) evaluates the
//! candidates and sums in session (name) order.

#[cfg(test)]
use super::evidence::Evidence;
use super::evidence::Gatherer;
use super::settings::Agent;
use crate::error::Error;
use crate::history::aggregate::OffSessions;
use crate::history::files::{CHUNK, Loaded, Skipped};
pub use crate::history::files::{changed, load_with_parts};
use crate::scenario::BasePart;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A file of the first pass: the session with its simulated cost's difference from the
/// measured, in percent (where `--max-cost-diff` asks for it), or why it is not one.
type Read = Result<(Loaded, Option<f64>), Skipped>;

/// What the first pass found.
pub struct Gathered {
    /// The evidence, as gathered (`Gatherer::finish` makes it; parts of a split merge it
    /// first).
    pub gatherer: Gatherer,
    /// Sessions by agent (as `settings::seen` counts them).
    pub agents: Vec<(Agent, usize)>,
    /// The sessions' names, in name order.
    pub names: Vec<String>,
    /// Where the session files are in the paths read, in path order (the sessions left
    /// out by `--max-cost-diff` and the files that are not sessions not among them): see
    /// [`Gathered::kept`].
    pub kept_at: Vec<usize>,
    /// The files that are not sessions.
    pub skipped: Vec<Skipped>,
    /// The sessions `--max-cost-diff` left out.
    pub excluded: OffSessions,
}

/// Reads `paths` (under `dir`) with `parts` as each session's own (named by
/// `edits_shown`), leaving out those whose simulated cost is more than `max_cost_diff`
/// percent off the measured, and gathers the evidence of the others.
pub fn gather(
    dir: &Path,
    paths: &[PathBuf],
    parts: &[BasePart],
    edits_shown: &str,
    max_cost_diff: Option<f64>,
) -> Result<Gathered, Error> {
    let mut gatherer = Gatherer::default();
    let mut agents: BTreeMap<Agent, usize> = BTreeMap::new();
    let mut names = Vec::new();
    let mut kept_at = Vec::new();
    let mut skipped = Vec::new();
    let mut off: Vec<(String, f64)> = Vec::new();
    for (c, chunk) in paths.chunks(CHUNK).enumerate() {
        let read: Vec<Result<Read, Error>> = chunk
            .par_iter()
            .map(|path| {
                Ok(load_with_parts(dir, path, parts, edits_shown)?.map(|l| {
                    let difference =
                        max_cost_diff.and_then(|_| crate::report::cost_difference_pct(&l.scenario));
                    (l, difference)
                }))
            })
            .collect();
        for (i, r) in read.into_iter().enumerate() {
            let (l, difference) = match r? {
                Ok(x) => x,
                Err(s) => {
                    skipped.push(s);
                    continue;
                }
            };
            if let (Some(max), Some(d)) = (max_cost_diff, difference)
                && d.abs() > max
            {
                off.push((l.scenario.name.clone(), d));
                continue;
            }
            gatherer.add(&l.scenario);
            *agents.entry(Agent::of(&l)).or_insert(0) += 1;
            names.push(l.scenario.name);
            kept_at.push(c * CHUNK + i);
        }
    }
    names.sort();
    off.sort_by(|a, b| a.0.cmp(&b.0));
    let mut excluded = OffSessions::default();
    for (name, d) in &off {
        excluded.add(name, *d);
    }
    Ok(Gathered {
        gatherer,
        agents: agents.into_iter().collect(),
        names,
        kept_at,
        skipped,
        excluded,
    })
}

impl Gathered {
    /// The session files kept, of the `paths` read: those paths themselves where every
    /// file was kept, so that a million sessions' paths are not listed twice.
    pub fn kept<'a>(&self, paths: &'a [PathBuf]) -> Cow<'a, [PathBuf]> {
        if self.kept_at.len() == paths.len() {
            Cow::Borrowed(paths)
        } else {
            Cow::Owned(self.kept_at.iter().map(|&i| paths[i].clone()).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::files;

    /// The evidence gathered a session at a time, in any order, is what a pass in name
    /// order gathers: the parts' figures from the first declaring session by name, the
    /// compactions in name order. Each session here declares the part with its own tokens
    /// and records its own compaction, so an order that leaked would show.
    #[test]
    fn evidence_in_any_order_is_the_evidence_in_name_order() {
        let mut all = Vec::new();
        for dir in ["tests/fixtures/suggest/parts", "scenarios/history"] {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            let (paths, _) = files::find(&dir, Path::new("none.toml")).unwrap();
            all.extend(files::load_all(&dir, &paths).unwrap().0);
        }
        for (i, l) in all.iter_mut().enumerate() {
            for part in &mut l.scenario.base_parts {
                part.tokens = 1_000.0 + i as f64;
            }
            if let Some(import) = &mut l.scenario.import {
                import.compaction_summary_bytes = Some(5_000 + i as u64);
            }
        }
        all.sort_by(|a, b| a.scenario.name.cmp(&b.scenario.name));
        let expected = Evidence::gather(&all);
        assert!(
            expected.compactions.len() >= 2,
            "{:?}",
            expected.compactions
        );
        assert!(!expected.parts.is_empty());
        let n = all.len();
        for turn in 0..n {
            let mut g = Gatherer::default();
            for k in (0..n).rev() {
                g.add(&all[(k + turn) % n].scenario);
            }
            assert_eq!(g.finish(), expected, "turn {turn}");
        }
    }
}
