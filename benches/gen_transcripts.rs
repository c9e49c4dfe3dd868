//! Writes synthetic Claude Code transcripts for the import benchmark:
//! `cargo run --release --example gen_transcripts -- MEGABYTES FILES DIR` writes about
//! MEGABYTES of transcripts in FILES session files under `DIR/projects/-bench-shop/`.
//! With `--subagents` after DIR, the FILES are FILES / 2 sessions, each with one subagent
//! (`<session>/subagents/agent-<id>.jsonl`, as Claude Code 2.x writes them): the shape of
//! a real `~/.claude/projects`, thousands of small files (issue 19 §1).
//!
//! Lines look like Claude Code's: every response is written as a streaming snapshot (a
//! placeholder `output_tokens`) and a final copy, tool results are a few hundred bytes to
//! tens of kilobytes (one in fifty is half a megabyte), each result line repeats its output
//! in `toolUseResult` as Claude Code does, and now and then a real prompt starts a new
//! segment. Sizes come from a fixed linear congruential sequence, so every run writes the
//! same files and benchmark figures compare like with like.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let megabytes: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1024);
    let files: u64 = args
        .get(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64)
        .max(1);
    let root = PathBuf::from(args.get(3).map_or("target/bench-import", String::as_str));
    let subagents = args.get(4).is_some_and(|a| a == "--subagents");
    let dir = root.join("projects").join("-bench-shop");
    fs::create_dir_all(&dir)?;
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    let per_file = megabytes * 1_000_000 / files;
    // One source line as JSON text (with an escaped newline); results are whole units, so
    // an escape is never cut in two.
    let unit = "fn main() { println!(\\\"hello, world\\\"); } // 0123456789 abcdefghij\\n";
    let filler: String = unit.repeat(500_000 / unit.len() + 1);
    let mut line = String::with_capacity(1 << 20);
    for f in 0..files {
        // With subagents, file 2k is session k's main trace and 2k + 1 its subagent's.
        let s = if subagents { f / 2 } else { f };
        let session = format!("{s:08x}-0000-4000-8000-{s:012x}");
        let agent = (subagents && f % 2 == 1).then(|| format!("a{f:07x}"));
        let (path, side) = match &agent {
            None => (dir.join(format!("{session}.jsonl")), String::new()),
            Some(a) => {
                let sub = dir.join(&session).join("subagents");
                fs::create_dir_all(&sub)?;
                (
                    sub.join(format!("agent-{a}.jsonl")),
                    format!(r#","agentId":"{a}""#),
                )
            }
        };
        let sidechain = agent.is_some();
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        let mut written = 0u64;
        let mut n = 0u64;
        let mut read = 20_000u64;
        while written < per_file {
            n += 1;
            let second = n % 60;
            let minute = (n / 60) % 60;
            let hour = 10 + (n / 3600) % 12;
            let ts = format!("2025-10-01T{hour:02}:{minute:02}:{second:02}.000Z");
            if n % 40 == 1 {
                line.clear();
                let _ = write!(
                    line,
                    r#"{{"parentUuid":null,"isSidechain":{sidechain},"userType":"external","cwd":"/bench/shop","sessionId":"{session}","version":"2.0.14","gitBranch":"main","type":"user","message":{{"role":"user","content":"Please look at step {n} and fix what fails"}},"uuid":"u-{f}-{n}","timestamp":"{ts}"{side}}}"#
                );
                line.push('\n');
                out.write_all(line.as_bytes())?;
                written += line.len() as u64;
            }
            let output = 20 + next() % 900;
            let creation = next() % 3_000;
            let tool = ["Bash", "Read", "Grep", "Edit"][(next() % 4) as usize];
            for (copy, out_tokens) in [(0, 1), (1, output)] {
                line.clear();
                let block = if copy == 0 {
                    r#"{"type":"text","text":"Let me check that."}"#.to_string()
                } else {
                    format!(
                        r#"{{"type":"tool_use","id":"toolu_{f}_{n}","name":"{tool}","input":{{"command":"cargo test --package shop step_{n}","file_path":"/bench/shop/src/step_{n}.rs"}}}}"#
                    )
                };
                let _ = write!(
                    line,
                    r#"{{"parentUuid":"u-{f}-{n}","isSidechain":{sidechain},"userType":"external","cwd":"/bench/shop","sessionId":"{session}","version":"2.0.14","gitBranch":"main","message":{{"id":"msg_{f}_{n}","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{block}],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":4,"cache_creation_input_tokens":{creation},"cache_read_input_tokens":{read},"cache_creation":{{"ephemeral_5m_input_tokens":{creation},"ephemeral_1h_input_tokens":0}},"output_tokens":{out_tokens},"service_tier":"standard"}}}},"requestId":"req_{f}_{n}","type":"assistant","uuid":"a-{f}-{n}-{copy}","timestamp":"{ts}"{side}}}"#
                );
                line.push('\n');
                out.write_all(line.as_bytes())?;
                written += line.len() as u64;
            }
            read += creation;
            let size = if n.is_multiple_of(50) {
                500_000
            } else {
                200 + (next() % 12_000) as usize
            };
            let cut = (size / unit.len()).max(1) * unit.len();
            let text = filler.get(..cut.min(filler.len())).unwrap_or("");
            line.clear();
            let _ = write!(
                line,
                r#"{{"parentUuid":"a-{f}-{n}-1","isSidechain":{sidechain},"userType":"external","cwd":"/bench/shop","sessionId":"{session}","version":"2.0.14","gitBranch":"main","type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_{f}_{n}","type":"tool_result","content":"{text}","is_error":false}}]}},"uuid":"r-{f}-{n}","timestamp":"{ts}"{side},"toolUseResult":{{"stdout":"{text}","stderr":"","interrupted":false,"isImage":false}}}}"#
            );
            line.push('\n');
            out.write_all(line.as_bytes())?;
            written += line.len() as u64;
        }
        out.flush()?;
    }
    println!(
        "wrote {files} transcripts, about {megabytes} MB, to {}",
        dir.display()
    );
    Ok(())
}
