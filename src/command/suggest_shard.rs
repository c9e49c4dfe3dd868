//! `simulate suggest DIR --shard K/N [--plan PLAN]` and `simulate suggest --merge PART…`:
//! a suggestion split into parts, round by round (docs/suggest.md, "Shards";
//! `suggest::plan`).
//!
//! A part reads the K-th of N parts of DIR's files (by each file's key, as `history
//! --shard`) and writes its round's `suggest-shard.jsonl`; a merge of round 1 or 2 writes
//! the next round's plan (`OUT/<name>-round-R/plan.json`) and says the commands to run
//! next; the merge of round 3 writes the suggestion's files in `OUT/<name>/`, the very
//! bytes one run over DIR writes.

use super::suggest::{EDITS_FILE, Split, SuggestConfig};
use crate::error::{Error, Located};
use crate::history::files::{self, default_name};
use crate::history::shard::{Listing, Shard};
use crate::output::{Format, OutputDir};
use crate::printable::printable;
use crate::suggest::plan::{self, FirstPart, Merged, PLAN_FILE, PartHeader, Plan, SHARD_FILE};
use crate::suggest::{self, SuggestReport, pass, schedule};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a command of a split did, to print.
pub enum Done {
    /// A part, or the merge of round 1 or 2: what it says.
    Said {
        text: String,
        json: serde_json::Value,
    },
    /// The merge of round 3: the suggestion.
    Suggested(Box<SuggestReport>, Vec<PathBuf>),
}

/// Runs a part or a merge.
pub fn run(c: &SuggestConfig, split: &Split) -> Result<Done, Error> {
    if c.local.is_some() {
        return Err(Located::new(
            "command line",
            "--shard, --plan and --merge split a directory of sessions: give the DIR (your own logs are imported to one: run `simulate suggest` once, then split the folder it names)",
        )
        .into());
    }
    let Some(root) = &c.out_root else {
        return Err(Located::new(
            "command line",
            "every command of a split writes a file the next one reads: drop --no-write (or --out -)",
        )
        .into());
    };
    let parts = match &c.context {
        Some(file) => crate::import::context::read_parts(file)?,
        None => Vec::new(),
    };
    let flags = plan::Flags::of(&c.factors, &parts, c.max_cost_diff);
    let run = Run {
        c,
        root,
        parts: &parts,
        flags,
    };
    match split {
        Split::Part { shard, plan } => run.part(*shard, plan.as_deref()),
        Split::Merge { parts, plan } => run.merge(parts, plan.as_deref()),
    }
}

/// What every command of a split has.
struct Run<'a> {
    c: &'a SuggestConfig,
    root: &'a Path,
    parts: &'a [crate::scenario::BasePart],
    flags: plan::Flags,
}

impl Run<'_> {
    /// The flags to repeat in every command of the split.
    fn flags_shown(&self) -> String {
        let mut s = String::new();
        if let Some(file) = &self.c.context {
            s.push_str(&format!(" --context {}", file.display()));
        }
        if let Some(pct) = self.c.max_cost_diff {
            s.push_str(&format!(" --max-cost-diff {pct}"));
        }
        s
    }

    /// The plan at `path`, checked against what this command sees.
    fn plan(
        &self,
        path: &Path,
        directory: &str,
        listing: &Listing,
    ) -> Result<(Plan, String), Error> {
        let (plan, digest) = Plan::read(path)?;
        let shown = path.display().to_string();
        if let Some(why) = plan.refusal(&shown, directory, listing, &self.flags) {
            return Err(Located::new(shown, why).place("--plan").into());
        }
        Ok((plan, digest))
    }

    /// A part of DIR: its round's records.
    fn part(&self, shard: Shard, plan_path: Option<&Path>) -> Result<Done, Error> {
        let c = self.c;
        let dir = c.path.as_path();
        let shown = dir.display().to_string();
        if !dir.is_dir() {
            return Err(Located::new(
                shown,
                "--shard splits a directory of sessions: give the DIR the sessions are under",
            )
            .place("--shard")
            .into());
        }
        let (all, listed) = files::find(dir, Path::new(""))?;
        if all.is_empty() {
            return Err(suggest::no_sessions(&shown));
        }
        let relative = |p: &PathBuf| p.strip_prefix(dir).unwrap_or(p).to_path_buf();
        let listing = {
            let rel: Vec<PathBuf> = all.iter().map(relative).collect();
            Listing::of(&rel.iter().map(PathBuf::as_path).collect::<Vec<_>>())
        };
        let paths: Vec<PathBuf> = all
            .into_iter()
            .filter(|p| shard.holds(&relative(p)))
            .collect();
        let name = format!("{}-suggest", default_name(dir));
        let plan = match plan_path {
            Some(p) => Some(self.plan(p, &shown, &listing)?),
            None => None,
        };
        let round = plan.as_ref().map_or(1, |(p, _)| p.round);
        let mut inputs: Vec<PathBuf> = plan_path.into_iter().map(Path::to_path_buf).collect();
        inputs.extend(c.context.clone());
        let mut out = OutputDir::prepare(self.root, &name, &inputs)?;
        let edits_path = match &plan {
            Some((p, _)) => PathBuf::from(&p.edits_file),
            None => PathBuf::from(EDITS_FILE),
        };
        let rerun = plan
            .as_ref()
            .map_or(String::new(), |(p, _)| p.rerun.clone());
        let input = suggest::Input {
            dir,
            paths: &[],
            listed: &listed,
            path_shown: &shown,
            name: &name,
            factors: &c.factors,
            edits_path: &edits_path,
            rerun: &rerun,
            progress: true,
            max_cost_diff: c.max_cost_diff,
            parts: self.parts,
            spill_parent: self.root,
        };
        let header = |records| {
            PartHeader::new(
                round,
                format!("{}/{}", shard.index, shard.of),
                &name,
                &shown,
                listing.clone(),
                listed.clone(),
                self.flags.clone(),
                plan.as_ref().map(|(_, d)| d.clone()),
                records,
            )
        };
        let shard_path = out.dir().join(SHARD_FILE);
        let failed = |source| Error::Write {
            path: shard_path.clone(),
            source,
        };
        let sessions = match &plan {
            None => {
                let g =
                    suggest::stream::gather(dir, &paths, self.parts, EDITS_FILE, c.max_cost_diff)?;
                let mut kept = vec![false; paths.len()];
                for &i in &g.kept_at {
                    kept[i] = true;
                }
                let not_kept = paths
                    .iter()
                    .zip(kept)
                    .filter(|(_, kept)| !kept)
                    .map(|(p, _)| files::relative(dir, p))
                    .collect();
                let first = FirstPart {
                    gatherer: g.gatherer,
                    agents: g.agents,
                    names: g.names,
                    skipped: g.skipped,
                    excluded: g.excluded,
                    not_kept,
                };
                let sessions = first.names.len();
                let header = header(1);
                out.write(SHARD_FILE, |w| {
                    header.write(w)?;
                    serde_json::to_writer(&mut *w, &first)?;
                    w.write_all(b"\n")
                })?;
                sessions
            }
            Some((plan, _)) => {
                let kept: Vec<PathBuf> = paths
                    .into_iter()
                    .filter(|p| plan.keeps(&files::relative(dir, p)))
                    .collect();
                let proposal = plan.proposal();
                if plan.totals.is_none() {
                    // This part's own evaluation, in round 3, is refused by the same cap.
                    suggest::check_size_before_search(kept.len(), &self.c.factors, &proposal)?;
                }
                let mut w = out.create(SHARD_FILE)?;
                header(kept.len()).write(&mut w).map_err(failed)?;
                let mut line = |name: &str, record: &str| -> Result<(), Error> {
                    let text = plan::record_line(name, record)?;
                    writeln!(w, "{text}").map_err(failed)
                };
                match &plan.totals {
                    None => schedule::priced_lines(
                        dir,
                        &kept,
                        self.parts,
                        &proposal,
                        (&edits_path, self.root),
                        &mut line,
                    )?,
                    Some(totals) => {
                        let search = schedule::from_totals(&proposal, totals.clone());
                        let chosen =
                            suggest::choose(&input, plan.sessions.count, proposal, search)?;
                        let spill = pass::spill(&input, &kept, &chosen.edits)?;
                        let mut lines = spill.lines()?;
                        while let Some(record) = lines.next_line()? {
                            let at = || spill.path().display().to_string();
                            line(&plan::session_name(&record, at)?, &record)?;
                        }
                    }
                }
                w.flush().map_err(failed)?;
                kept.len()
            }
        };
        let files = out.commit()?;
        let folder = self.root.join(&name);
        let text = format!(
            "{name}: part {}/{} of round {round} of 3: {} of the {} under {}.\nWhen every part of round {round} is done, merge them (each part's folder, as this one: {}):\n  simulate suggest --merge PART…{}{} --out {}\n\nWritten:\n{}",
            shard.index,
            shard.of,
            crate::number::plural(sessions, "session", "sessions"),
            crate::number::plural(listing.files, "*.toml file", "*.toml files"),
            printable(&shown),
            crate::printable::path(&folder),
            plan_path.map_or(String::new(), |p| format!(" --plan {}", p.display())),
            self.flags_shown(),
            plan.as_ref().map_or("OUT".into(), |(p, _)| plan_out(p)),
            written(&files)
        );
        let json = serde_json::json!({
            "round": round,
            "shard": format!("{}/{}", shard.index, shard.of),
            "sessions": sessions,
            "written": files,
        });
        Ok(Done::Said { text, json })
    }

    /// The parts of one round merged.
    fn merge(&self, given: &[PathBuf], plan_path: Option<&Path>) -> Result<Done, Error> {
        let mut parts = plan::open_parts(given)?;
        let head = parts[0].header.clone();
        if let Some(why) = head.flags.differ(
            &format!("{}", given[0].display()),
            &self.flags,
            "this merge",
        ) {
            return Err(Located::new("--merge", why).into());
        }
        let of = Shard::parse(&head.shard).map_or(1, |s| s.of);
        let plan = match (head.round, plan_path) {
            (1, None) => None,
            (1, Some(_)) => {
                return Err(Located::new(
                    "--plan",
                    "the parts are of round 1, which runs without a plan: drop --plan",
                )
                .into());
            }
            (round, None) => {
                return Err(Located::new(
                    "--merge",
                    format!(
                        "the parts are of round {round}, which ran a plan: give it with --plan PLAN (the {PLAN_FILE} the merge of round {} wrote)",
                        round - 1
                    ),
                )
                .into());
            }
            (_, Some(p)) => {
                let (plan, digest) = self.plan(p, &head.directory, &head.listing)?;
                if head.plan.as_deref() != Some(digest.as_str()) || plan.round != head.round {
                    return Err(Located::new(
                        p.display().to_string(),
                        format!(
                            "the parts ran another plan ({}, round {}) than this one ({digest}, round {}): give the --plan the parts were run with",
                            head.plan.as_deref().unwrap_or("none"),
                            head.round,
                            plan.round
                        ),
                    )
                    .place("--plan")
                    .into());
                }
                Some(plan)
            }
        };
        let name = head.name.clone();
        let mut inputs: Vec<PathBuf> = parts.iter().map(|p| p.given.clone()).collect();
        inputs.extend(plan_path.map(Path::to_path_buf));
        inputs.extend(self.c.context.clone());
        let Some(plan) = plan else {
            let merged = plan::merge_first(&mut parts)?;
            if merged.sessions.count == 0 {
                return Err(suggest::no_sessions(&head.directory));
            }
            let edits_path = self.root.join(&name).join(EDITS_FILE);
            let plan = Plan {
                format: plan::PLAN_FORMAT.into(),
                format_version: plan::FORMAT_VERSION,
                simulate: env!("CARGO_PKG_VERSION").into(),
                round: 2,
                name: name.clone(),
                directory: head.directory.clone(),
                edits_file: edits_path.display().to_string(),
                rerun: super::suggest::rerun(&head.directory, false, &edits_path, true),
                listing: head.listing.clone(),
                listed: head.listed.clone(),
                flags: head.flags.clone(),
                gatherer: merged.gatherer,
                agents: merged.agents,
                sessions: merged.sessions,
                skipped: merged.skipped,
                excluded: merged.excluded,
                not_kept: merged.not_kept,
                totals: None,
            };
            return self.write_plan(&plan, &inputs, of, &head, parts.len());
        };
        // The plan fixed where the suggestion is written (its sessions' warnings and the rerun
        // name it): every merge writes under that --out, refused before anything is read.
        let edits_path = self.root.join(&name).join(EDITS_FILE);
        if edits_path.display().to_string() != plan.edits_file {
            return Err(Located::new(
                "--out",
                format!(
                    "the plan's suggestion is written as {} (the --out of the round-1 merge), not {}: give every merge of this split the --out the round-1 merge was given, spelled the same ({})",
                    plan.edits_file,
                    edits_path.display(),
                    plan_out(&plan)
                ),
            )
            .into());
        }
        if plan.round == 2 {
            let proposal = plan.proposal();
            let mut totals = schedule::Totals::new(schedule::edits_count(&proposal));
            let mut merged = Merged::new(&mut parts)?;
            while let Some(record) = merged.next_record()? {
                totals.add_line(&record, || merged.at())?;
            }
            if merged.names.finish() != plan.sessions {
                return Err(changed(&plan));
            }
            let next = Plan {
                round: 3,
                totals: Some(totals),
                ..plan
            };
            return self.write_plan(&next, &inputs, of, &head, parts.len());
        }
        // Round 3: the suggestion, written where one run over DIR with this --out writes.
        let out = OutputDir::prepare(self.root, &name, &inputs)?;
        let input = suggest::Input {
            dir: Path::new(&plan.directory),
            paths: &[],
            listed: &plan.listed,
            path_shown: &plan.directory,
            name: &name,
            factors: &self.c.factors,
            edits_path: &edits_path,
            rerun: &plan.rerun,
            progress: false,
            max_cost_diff: self.c.max_cost_diff,
            parts: self.parts,
            spill_parent: self.root,
        };
        let proposal = plan.proposal();
        let totals = plan
            .totals
            .clone()
            .unwrap_or_else(|| schedule::Totals::new(0));
        let search = schedule::from_totals(&proposal, totals);
        let chosen = suggest::choose(&input, plan.sessions.count, proposal, search)?;
        let mut merged = Merged::new(&mut parts)?;
        if merged.records() != plan.sessions.count {
            return Err(changed(&plan));
        }
        let evaluated = pass::sum(
            &input,
            &chosen.edits,
            &plan.sessions,
            "--merge",
            &mut || merged.next_record(),
        )?;
        let report = suggest::report(&input, plan.found(), chosen, evaluated)?.report;
        let files = if report.candidates.is_empty() {
            Vec::new()
        } else {
            super::suggest::write(out, &report, &plan.directory)?
        };
        Ok(Done::Suggested(Box::new(report), files))
    }

    /// Writes the plan of the next round and says how to run it.
    fn write_plan(
        &self,
        plan: &Plan,
        inputs: &[PathBuf],
        of: usize,
        head: &PartHeader,
        merged: usize,
    ) -> Result<Done, Error> {
        let folder = format!("{}-round-{}", plan.name, plan.round);
        let mut out = OutputDir::prepare(self.root, &folder, inputs)?;
        let text = plan.text()?;
        out.write(PLAN_FILE, |w| w.write_all(text.as_bytes()))?;
        let files = out.commit()?;
        let plan_path = self.root.join(&folder).join(PLAN_FILE);
        let flags = self.flags_shown();
        let parts_root = self.root.join(format!("round-{}", plan.round));
        let commands: Vec<String> = (1..=of)
            .map(|k| {
                format!(
                    "simulate suggest {} --plan {} --shard {k}/{of}{flags} --out {}",
                    plan.directory,
                    plan_path.display(),
                    parts_root.join(k.to_string()).display()
                )
            })
            .collect();
        let merge = format!(
            "simulate suggest --merge {} --plan {}{flags} --out {}",
            parts_root.join("*").join(&plan.name).display(),
            plan_path.display(),
            self.root.display()
        );
        let text = format!(
            "{}: round {} of 3 merged from {}: {} under {}. Run each part of round {} (any machine, any order):\n{}\nthen merge them:\n  {}\n\nWritten:\n{}",
            plan.name,
            head.round,
            crate::number::plural(merged, "part", "parts"),
            crate::number::plural(plan.sessions.count, "session", "sessions"),
            printable(&plan.directory),
            plan.round,
            commands
                .iter()
                .map(|c| format!("  {}", printable(c)))
                .collect::<Vec<_>>()
                .join("\n"),
            printable(&merge),
            written(&files)
        );
        let json = serde_json::json!({
            "round_merged": head.round,
            "sessions": plan.sessions.count,
            "plan": plan_path,
            "next": commands,
            "merge": merge,
        });
        Ok(Done::Said { text, json })
    }
}

/// The error of parts whose sessions are not the ones round 1 found.
fn changed(plan: &Plan) -> Error {
    Located::new(
        "--merge",
        format!(
            "the parts' sessions are not the {} round 1 found under {}: the session files changed between the rounds; run the split again from round 1",
            plan.sessions.count, plan.directory
        ),
    )
    .into()
}

fn written(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| format!("  {}", crate::printable::path(f)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prints what a part or a merge did.
pub fn print(c: &SuggestConfig, done: &Done, out: &mut dyn Write) -> Result<(), Error> {
    match done {
        Done::Suggested(report, files) => super::suggest::print(c, out, report, files),
        Done::Said { text, json } => match c.format {
            Format::Table => writeln!(out, "{text}"),
            Format::Json => serde_json::to_writer_pretty(&mut *out, json)
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(out)),
        }
        .map_err(Error::Print),
    }
}

/// The `--out` a plan's merges write under, as the round-1 merge was given it: its edits
/// file's path without `<name>/suggested.toml`.
fn plan_out(plan: &Plan) -> String {
    let out = Path::new(&plan.edits_file)
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new(""));
    if out.as_os_str().is_empty() {
        ".".into()
    } else {
        crate::printable::path(out).to_string()
    }
}
