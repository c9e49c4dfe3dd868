//! The floor of the main run's benchmark (issue 19 §3): the least any program computing the
//! reread ledger of a trace must do, measured beside `simulate SCENARIO --no-write` in the
//! same run.
//!
//! `cargo run --release --example trace_floor -- TRACE.tsv [B] [ρ]` reads the trace once
//! (`number<TAB>label<TAB>bytes` lines, as `gen_trace` writes them; lines of one number are
//! one call), parses each line's number and bytes, and sums the ledger: every call re-reads B plus what joined before it
//! (T = Σᵢ (B + Σ_{j<i} bytesⱼ / ρ)). No labels kept, no checks beyond the parse, one thread.

use std::fs::File;
use std::io::{self, BufRead, BufReader};

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).map_or("target/bench/trace.tsv", String::as_str);
    let base: f64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(30_000.0);
    let rho: f64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(3.3);
    let mut reader = BufReader::with_capacity(1 << 20, File::open(path)?);
    let mut line = Vec::new();
    let (mut calls, mut last, mut joined, mut total) = (0u64, 0u64, 0.0f64, 0.0f64);
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.first().is_none_or(|&b| b == b'#' || b == b'\n') {
            continue;
        }
        let mut fields = line.split(|&b| b == b'\t');
        let number = parse(fields.next());
        let bytes = parse(fields.nth(1));
        // Lines of one number are one call (its bytes summed).
        if number < last {
            return Err(io::Error::other(format!("call {number} out of order")));
        }
        if number > last {
            calls += 1;
            total += base + joined / rho;
        }
        last = number;
        joined += bytes as f64;
    }
    println!("{calls} calls, reread total {total:.0} est. tokens");
    Ok(())
}

/// A whole number at the start of `field` (digits only; anything else ends it).
fn parse(field: Option<&[u8]>) -> u64 {
    field
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .fold(0, |n, &d| n * 10 + u64::from(d - b'0'))
}
