//! Times reading a trace: `cargo run --release --example parse_trace -- TRACE.tsv` reads it
//! whole (`read_tsv`, as a scenario's `calls_tsv` is read) and streams it once (`Trace`,
//! as `simulate ledger` checks it), and prints the calls and seconds of each, best of 5.
//! A second argument `whole` or `stream` times only that one.

use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), simulate::Error> {
    let path = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or("target/bench/trace.tsv".into()),
    );
    let best = |f: &dyn Fn(Instant) -> Result<(usize, f64), simulate::Error>| -> Result<(usize, f64), simulate::Error> {
        let mut best = f64::INFINITY;
        let mut calls = 0;
        for _ in 0..5 {
            let (n, seconds) = f(Instant::now())?;
            calls = n;
            best = best.min(seconds);
        }
        Ok((calls, best))
    };
    let only = std::env::args().nth(2).unwrap_or_default();
    if only != "stream" {
        // Timed up to the calls in hand; freeing them is not reading.
        let (calls, whole) = best(&|start| {
            let calls = simulate::scenario::read_tsv(&path)?;
            Ok((calls.len(), start.elapsed().as_secs_f64()))
        })?;
        println!("read_tsv: {calls} calls in {whole:.3} s");
    }
    if only != "whole" {
        let (calls, streamed) = best(&|start| {
            let (_, n) = simulate::scenario::Trace::open_with(&path, || 0usize, |n, _| *n += 1)?;
            Ok((n, start.elapsed().as_secs_f64()))
        })?;
        println!("Trace::open (streamed): {calls} calls in {streamed:.3} s");
    }
    Ok(())
}
