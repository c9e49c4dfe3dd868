//! Writes a synthetic history for the `simulate history` benchmark:
//! `cargo run --release --example gen_history -- SESSIONS CALLS DIR` writes SESSIONS
//! scenario files of CALLS calls each under `DIR/sessions/<project>/`, in the layout
//! `simulate import` writes (comments, `[import]` with the user and the model, `[cache]`,
//! `[price]`, `[terms]`, `[[call]]` with `tool`, `output_bytes`, `tool_input_bytes`,
//! `input_hash` and `[call.measured]`), and `DIR/edits.toml` with 5 edits: a cap on shell
//! output, clearing by staleness, clearing on idle time, dropping an MCP server's tool
//! definitions from the base, and a combination.
//!
//! It is `simulate suggest`'s benchmark too: `simulate suggest DIR/sessions` finds 21
//! candidates in these sessions (sizes, repeats, pauses, contexts), and
//! `simulate history DIR/sessions --edits <its suggested.toml>` is the baseline it is
//! timed against (docs/performance.md, "`suggest` streamed").
//!
//! One file at a time is built and written, so a million sessions take no more memory
//! than one (about 28 KB a session of 50 calls: 28 GB for a million; mind the disk).
//! Sessions are spread over `SESSIONS / 2000` projects (at least one), `SESSIONS / 5000`
//! users and three models (seven in ten on Sonnet, two on Opus, one on Haiku), named as
//! the importer names them (`<project>-<session 8>`). Every third session has a fitted B
//! and ρ, the rest the importer's measured B and assumed ρ. Sizes come from a fixed linear
//! congruential sequence, so every run writes the same files and benchmark figures compare
//! like with like.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

const EDITS: &str = r#"# Five edits for the history benchmark.

[[edit]]
name = "cap shell output at 4 KB"
cap = { select = { tool = "Bash" }, max_bytes = 4000 }

[[edit]]
name = "clear stale results every 2 topics"
clear = { every_segments = 2, keep_segments = 1 }

[[edit]]
name = "clear after a 5-minute pause"
clear = { after_gap_s = 300 }

[[edit]]
name = "drop the GitHub MCP server"
base = { by_tokens = 4200 }

[[edit]]
name = "cap shell and clear after a pause"
steps = [
  { cap = { select = { tool = "Bash" }, max_bytes = 4000 } },
  { clear = { after_gap_s = 300 } },
]
"#;

/// The model of a session (as `[import] model` and the measured usage say it) and its
/// cache preset and price model.
const MODELS: [(&str, &str); 3] = [
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
    ("claude-opus-4-5-20251101", "claude-opus-4-5"),
    ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
];

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let sessions: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let calls: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(200);
    let root = PathBuf::from(args.get(3).map_or("target/bench-history", String::as_str));
    let dir = root.join("sessions");
    fs::create_dir_all(&dir)?;
    fs::write(root.join("edits.toml"), EDITS)?;
    let projects = (sessions / 2_000).max(1);
    let users = (sessions / 5_000).max(1);
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    let tools = [
        ("Bash", "cargo test --package shop"),
        ("Bash", "git diff --stat"),
        ("Read", "/home/dev/shop/src/cart.rs"),
        ("Read", "/home/dev/shop/src/checkout.rs"),
        ("Edit", "/home/dev/shop/src/cart.rs"),
        ("Grep", "fn total"),
        ("WebSearch", "rust decimal rounding half even"),
        ("mcp__github__get_issue", "shop#412"),
    ];
    let mut s = String::with_capacity(calls as usize * 560 + 4096);
    for n in 0..sessions {
        s.clear();
        let session = format!("{n:08x}-1111-4222-8333-{:012x}", next());
        let project = format!("shop{:03}", n % projects);
        let user = format!("dev{:04}@example.com", next() % users);
        let (model, preset) = match next() % 10 {
            0..=6 => MODELS[0],
            7 | 8 => MODELS[1],
            _ => MODELS[2],
        };
        let fitted = n % 3 == 0;
        let base = 15_000 + next() % 10_000;
        let rho = 3.0 + (next() % 1200) as f64 / 1000.0;
        let _ = writeln!(
            s,
            "# Imported by simulate from a Claude Code log: one [[call]] per API request, deduplicated.\n\
             # Where it came from (file, session, trace) is in [import] below.\n\
             #\n\
             # [call.measured] holds the provider's own usage counts of each request\n\
             # (anthropic: input_tokens excludes cache reads and writes; total input = input_tokens + cache_creation_input_tokens + cache_read_input_tokens).\n\
             # `bytes` is what joined the context after the call: tool results, user text and\n\
             # attachments that reach the model, in UTF-8 bytes. `output_bytes` is the model's own\n\
             # message as the next request sends it back (text, tool-use inputs, thinking): it\n\
             # joins in place of `output_tokens`, which are priced only; a call without it joins\n\
             # its `output_tokens`. `images` and `loaded_tools` count what [terms] sizes. base_tokens\n\
             # is the first request's measured total input, a starting point; bytes_per_token is\n\
             # assumed.\n\
             #\n\
             # To go on:\n\
             #   simulate fit <this file>   fit B and ρ to the measured usage\n\
             #   simulate <this file>       run the reread ledger; add [[edit]] tables to compare changes\n"
        );
        let _ = writeln!(s, "name = \"{project}-{n:08x}\"");
        let _ = writeln!(
            s,
            "description = \"Claude Code session {n:08x}… (main trace), {calls} requests, 2025-10-01 09:00–11:00 UTC\""
        );
        let _ = writeln!(s, "base_tokens = {base}");
        if fitted {
            let _ = writeln!(
                s,
                "base_tokens_source = \"fitted (simulate fit: R² = 0.998 on {calls} of {calls} calls, 2025-10-02)\""
            );
            let _ = writeln!(s, "bytes_per_token = {rho:.3}");
            let _ = writeln!(
                s,
                "bytes_per_token_source = \"fitted (simulate fit: R² = 0.998 on {calls} of {calls} calls, 2025-10-02)\""
            );
        } else {
            let _ = writeln!(
                s,
                "base_tokens_source = \"measured: first request's total input (claude-code import); run `simulate fit` for B and ρ\""
            );
            let _ = writeln!(s, "bytes_per_token = 3.3");
            let _ = writeln!(
                s,
                "bytes_per_token_source = \"assumed (default; run `simulate fit`)\""
            );
        }
        let _ = writeln!(
            s,
            "\n[import]\nformat = \"claude-code\"\nfile = \"/home/dev/.claude/projects/-home-dev-{project}/{session}.jsonl\"\nsession_id = \"{session}\"\ntrace = \"main\"\npart = 1\nuser_id = \"{user}\"\nrequests = {calls}\nduplicates_removed = {}\nmalformed_lines = 0\nmodel = \"{model}\"\nconvention = \"anthropic\"\n\n[cache]\npreset = \"{preset}\"\n\n[price]\nmodel = \"{preset}\"\n\n[terms]\ntokens_per_call = 11\ntokens_per_call_source = \"fitted (simulate fit: R² = 0.998 on {calls} of {calls} calls, 2025-10-02)\"",
            calls * 2
        );
        let mut segment = 1;
        let mut context = base;
        for c in 0..calls {
            if c > 0 && next() % 18 == 0 {
                segment += 1;
            }
            let (tool, argument) = tools[(next() % tools.len() as u64) as usize];
            let bytes = match tool {
                "Bash" if next() % 6 == 0 => 20_000 + next() % 60_000,
                "Bash" => 300 + next() % 6_000,
                "Read" => 1_000 + next() % 16_000,
                "WebSearch" => 4_000 + next() % 8_000,
                "mcp__github__get_issue" => 2_000 + next() % 5_000,
                _ => 80 + next() % 1_500,
            };
            let gap = if next() % 25 == 0 {
                301 + next() % 1_500
            } else {
                1 + next() % 40
            };
            let output = 40 + next() % 900;
            let output_bytes = 60 + next() % 400;
            let tool_input = 40 + argument.len() as u64 + next() % 60;
            let written = bytes * 10 / 33 + output;
            let kind = if tool == "WebSearch" {
                "web_search"
            } else {
                "tool"
            };
            let hash = (next() % 40) * 0x9e37_79b9 + argument.len() as u64;
            let _ = writeln!(
                s,
                "\n[[call]]\nid = \"req_011CU{n:08x}{c:05}AbCdEfGhJk\"\nlabel = \"{tool}: {argument}\"\ntool = \"{tool}\"\nkind = \"{kind}\"\nbytes = {bytes}\nsegment = {segment}\ngap_s = {gap}\noutput_tokens = {output}\noutput_bytes = {output_bytes}\ntool_input_bytes = {tool_input}\ninput_hash = \"{hash:016x}\"\n[call.measured]\ninput_tokens = {}\ncache_creation_input_tokens = {written}\ncache_creation_1h_input_tokens = 0\ncache_read_input_tokens = {context}\noutput_tokens = {output}\nmodel = \"{model}\"\nconvention = \"anthropic\"",
                3 + next() % 8
            );
            context += written;
        }
        let folder = dir.join(&project);
        if n < projects {
            fs::create_dir_all(&folder)?;
        }
        let path = folder.join(format!("{project}-{n:08x}.toml"));
        let mut out = BufWriter::new(File::create(&path)?);
        out.write_all(s.as_bytes())?;
        out.flush()?;
    }
    Ok(())
}
