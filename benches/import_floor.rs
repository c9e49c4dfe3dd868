//! The floor of the import benchmark (issue 19 §1): what any importer of the same logs must
//! do at least, measured beside `simulate import` in the same run.
//!
//! `cargo run --release --example import_floor -- DIR OUT` finds every `*.jsonl` under
//! DIR, parses every line with serde_json into a `serde_json::Value` (as a tool that reads
//! the logs must), and creates one file in OUT per log file, as the import does, of 183
//! bytes per line read (what `simulate import` writes on the `gen_transcripts --subagents`
//! corpus: 41 MB for its 226,135 lines). Files are read and written in parallel, one file
//! per task, with nothing held beyond the file in hand: no deduplication, no staging, no
//! checks. OUT must not exist yet, like a first import.

use rayon::prelude::*;
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// Bytes written per line read.
const BYTES_PER_LINE: usize = 183;

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: import_floor DIR OUT");
        std::process::exit(2);
    };
    let out = PathBuf::from(out);
    fs::create_dir(&out)?;
    let files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    let counts: Vec<(u64, u64)> = files
        .par_iter()
        .enumerate()
        .map(|(i, path)| floor_one(path, &out.join(format!("{i:06}.toml"))))
        .collect::<io::Result<_>>()?;
    let (lines, malformed) = counts.iter().fold((0, 0), |(l, m), (a, b)| (l + a, m + b));
    println!(
        "{} files, {lines} lines parsed ({malformed} not JSON), {} files written to {}",
        files.len(),
        files.len(),
        out.display()
    );
    Ok(())
}

/// Parses every line of `path` and writes `target`; returns (lines, lines that are not JSON).
fn floor_one(path: &Path, target: &Path) -> io::Result<(u64, u64)> {
    let mut reader = BufReader::with_capacity(1 << 20, fs::File::open(path)?);
    let mut line = Vec::new();
    let (mut lines, mut malformed) = (0u64, 0u64);
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        lines += 1;
        if serde_json::from_slice::<serde_json::Value>(&line).is_err() {
            malformed += 1;
        }
    }
    let body = vec![b'x'; lines as usize * BYTES_PER_LINE];
    fs::File::create(target)?.write_all(&body)?;
    Ok((lines, malformed))
}
