//! Writes a synthetic trace for the benchmarks: `cargo run --release --example gen_trace --
//! CALLS DIR` writes `DIR/trace.tsv` (CALLS calls, some split over two lines, in segments)
//! and beside it `DIR/bench5.toml` (5 edits: trim, merge, drop, move, steps; a 41 × 41
//! sweep), `DIR/bench3.toml` (the first 3 edits; the default 3 × 3 sweep),
//! `DIR/bench_clear.toml` (two clearings whose events move with B and ρ, with the prompt
//! cache, over a 41 × 41 grid: every point is a replay) and `DIR/bench_merge.toml` (one
//! merge of every tenth call: CALLS / 10 calls in one edit, at most 500,000).
//!
//! The sizes come from a fixed linear congruential sequence, so every run writes the same
//! files and benchmark figures compare like with like.

use std::fmt::Write as _;
use std::io::Write;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let calls: u64 = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let dir = std::path::PathBuf::from(args.get(2).map_or("target/bench", String::as_str));
    std::fs::create_dir_all(&dir)?;
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    let mut tsv = String::with_capacity(calls as usize * 32);
    for n in 1..=calls {
        let bytes = 200 + next() % 8_000;
        let _ = writeln!(tsv, "{n}\tcmd {n}\t{bytes}");
        if n % 10 == 0 {
            let _ = writeln!(tsv, "{n}\tcat notes-{n}.md\t{}", next() % 3_000);
        }
    }
    std::fs::File::create(dir.join("trace.tsv"))?.write_all(tsv.as_bytes())?;
    let mid = calls / 2;
    let toml = format!(
        r#"name = "bench"
description = "Synthetic {calls}-call trace for benchmarks"
base_tokens = 30000
bytes_per_token = 3.3
calls_tsv = "trace.tsv"

[sweep]
base_tokens = {{ from = 10000, to = 50000, steps = 41 }}
bytes_per_token = {{ from = 2.0, to = 5.0, steps = 41 }}

[[edit]]
name = "trim first"
trim = {{ call = "1", by_percent = 50 }}

[[edit]]
name = "merge three"
merge = {{ calls = ["{a}", "{b}", "{c}"] }}

[[edit]]
name = "drop one"
drop = {{ call = "{mid}" }}

[[edit]]
name = "move early read late"
move = {{ call = "2", before = "{mid}" }}

[[edit]]
name = "trim and drop"
steps = [{{ trim = {{ call = "1", by_percent = 50 }} }}, {{ drop = {{ call = "{mid}" }} }}]
"#,
        a = mid + 1,
        b = mid + 2,
        c = mid + 3,
    );
    std::fs::write(dir.join("bench5.toml"), &toml)?;
    // The same trace with the first three edits and the default 3 × 3 grid.
    let three = toml.replace("name = \"bench\"", "name = \"bench3\"");
    let three = three[..three.find("[[edit]]\nname = \"move").unwrap_or(three.len())].to_string();
    let sweep_start = three.find("[sweep]").unwrap_or(0);
    let sweep_end = three.find("[[edit]]").unwrap_or(three.len());
    let three = format!("{}{}", &three[..sweep_start], &three[sweep_end..]);
    std::fs::write(dir.join("bench3.toml"), three)?;
    std::fs::write(dir.join("bench_clear.toml"), clearing_scenario(calls))?;
    std::fs::write(dir.join("bench_merge.toml"), merge_scenario(calls))?;
    eprintln!(
        "wrote {}/trace.tsv ({} calls), bench3.toml (3 edits), bench5.toml (5 edits, 41 × 41 grid), bench_clear.toml (2 replayed clearings, 41 × 41 grid) and bench_merge.toml (a merge of {} calls)",
        dir.display(),
        calls,
        merged(calls)
    );
    Ok(())
}

/// The calls `bench_merge.toml` merges.
fn merged(calls: u64) -> u64 {
    (calls / 10).min(MAX_MERGED)
}

/// Two clearings whose events move with B and ρ (a context-token trigger, and a volume
/// valve that clears only when it frees enough tokens), with the prompt cache: neither has
/// a closed form, so the sweep replays both at each of the 1,681 points.
fn clearing_scenario(calls: u64) -> String {
    format!(
        r#"name = "bench_clear"
description = "Synthetic {calls}-call trace: clearings replayed at every sweep point"
base_tokens = 30000
bytes_per_token = 3.3
calls_tsv = "trace.tsv"

[cache]
preset = "anthropic-5m"

[sweep]
base_tokens = {{ from = 10000, to = 50000, steps = 41 }}
bytes_per_token = {{ from = 2.0, to = 5.0, steps = 41 }}

[[edit]]
name = "server-side at 100k tokens"
clear = {{ above_context_tokens = 100000, keep_results = 3, clear_at_least_tokens = 5000 }}

[[edit]]
name = "valve freeing 20k tokens"
clear = {{ above_tool_bytes = 180000, keep_results = 5, clear_at_least_tokens = 20000 }}
"#
    )
}

/// Calls in the merge at most: their ids keep `bench_merge.toml` under the 8 MiB a
/// scenario file may be (a 10M-call trace's every tenth call would be 11 MB of ids).
const MAX_MERGED: u64 = 500_000;

/// One merge of every tenth call (call numbers 1, 11, 21, …): `calls / 10` calls (at most
/// [`MAX_MERGED`]), spread over the trace, so the edit splits the run into as many pieces.
fn merge_scenario(calls: u64) -> String {
    let ids: Vec<String> = (0..merged(calls))
        .map(|k| format!("\"{}\"", 10 * k + 1))
        .collect();
    format!(
        r#"name = "bench_merge"
description = "Synthetic {calls}-call trace: one merge of {n} calls"
base_tokens = 30000
bytes_per_token = 3.3
calls_tsv = "trace.tsv"

[[edit]]
name = "merge every tenth call"
merge = {{ calls = [{list}], overhead_bytes = 200 }}
"#,
        n = ids.len(),
        list = ids.join(", ")
    )
}
