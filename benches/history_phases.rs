//! Times the phases of `simulate history` inside one process, for the benchmark notes:
//! `cargo run --release --example history_phases -- DIR EDITS.toml [SESSIONS]` reads every
//! scenario file under DIR (as the command finds them, or the first SESSIONS of them) into
//! memory, then parses them all (the quick reader), then evaluates every session with the
//! edits at its nominal point and over the default factor grid, then writes each one's
//! record (a line of `shard.jsonl`) and reads it back, each phase in parallel as the
//! command does, and prints the wall and CPU time of each (CPU from /proc/self/stat,
//! Linux: on a shared machine it says what the work costs when wall time says how busy
//! the neighbours are). Everything is held in memory at once, unlike the command: give a
//! SESSIONS that fits.

use rayon::prelude::*;
use simulate::history::shard::Record;
use simulate::history::{Factors, evaluate_session, files};
use simulate::scenario::{load_edits, load_quick};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// User + system CPU seconds of this process so far (0 where /proc is missing).
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<f64> = after
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0.0))
        .collect();
    // Fields 14 and 15 of the file (utime, stime) are 12 and 13 after the command name.
    (fields.get(11).copied().unwrap_or(0.0) + fields.get(12).copied().unwrap_or(0.0)) / 100.0
}

/// Runs `f`, printing its wall and CPU seconds under `name`.
fn timed<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let (wall, cpu) = (Instant::now(), cpu_s());
    let value = f();
    println!(
        "{name:<9} {:>7.3} s wall {:>7.3} s CPU",
        wall.elapsed().as_secs_f64(),
        cpu_s() - cpu
    );
    value
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(args.get(1).ok_or("usage: history_phases DIR EDITS.toml")?);
    let edits_path = PathBuf::from(args.get(2).ok_or("usage: history_phases DIR EDITS.toml")?);
    let edits = load_edits(&edits_path)?.edits;
    let (mut paths, _) = files::find(&dir, &edits_path)?;
    if let Some(n) = args.get(3).and_then(|n| n.parse().ok()) {
        paths.truncate(n);
    }

    let texts: Vec<String> = timed("read", || {
        paths
            .par_iter()
            .map(std::fs::read_to_string)
            .collect::<Result<_, _>>()
    })?;
    let megabytes = texts.iter().map(String::len).sum::<usize>() as f64 / 1e6;
    let scenarios: Vec<_> = timed("parse", || {
        texts
            .par_iter()
            .zip(&paths)
            .map(|(t, p)| load_quick(t, Path::new(p)))
            .collect::<Result<_, _>>()
    })?;
    let scenarios: Vec<_> = scenarios
        .into_iter()
        .map(|s| s.with_edits(edits.clone(), "edits.toml"))
        .collect();

    let factors = Factors::default();
    let sessions: Vec<_> = timed("evaluate", || {
        scenarios
            .par_iter()
            .map(|s| evaluate_session(s, &s.name, &factors))
            .collect::<Result<_, _>>()
    })?;
    let calls: usize = sessions.iter().map(|s| s.figures.calls).sum();
    let lines: Vec<Record> = timed("record", || {
        sessions
            .par_iter()
            .map(|s| Record::of(s.clone()))
            .collect::<Result<_, _>>()
    })?;
    let back: Vec<Record> = timed("read back", || {
        lines
            .par_iter()
            .map(|r| Record::parse(r.line.clone(), String::new))
            .collect::<Result<_, _>>()
    })?;
    assert_eq!(back.len(), sessions.len());
    println!(
        "{} sessions, {calls} calls, {megabytes:.0} MB, {} threads",
        sessions.len(),
        rayon::current_num_threads()
    );
    Ok(())
}
