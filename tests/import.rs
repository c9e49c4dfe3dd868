//! `simulate import`: real-format logs in, exact scenarios and summaries out; bad input is
//! refused with a message naming the file (and line), and nothing is written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use predicates::prelude::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use simulate::import::{Format, files, load};
use std::fs;
use std::path::{Path, PathBuf};

const CLAUDE: &str = "tests/fixtures/import/claude-code";
const CODEX: &str = "tests/fixtures/import/codex";
const MAIN: &str = "tests/fixtures/import/claude-code/projects/-home-dev-shop/1a2b3c4d-1111-4222-8333-444455556666.jsonl";

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

fn import_json(format: &str, paths: &[&str], out: &Path) -> Value {
    let assert = simulate()
        .arg("import")
        .arg(format)
        .args(paths)
        .arg("--out")
        .arg(out)
        .args(["--format", "json"])
        .assert()
        .success();
    serde_json::from_slice(&assert.get_output().stdout).unwrap()
}

fn trace<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no trace {name} in {report:#}"))
}

fn scenario(out: &Path, name: &str) -> toml::Table {
    let text = fs::read_to_string(out.join(format!("{name}.toml"))).unwrap();
    toml::from_str(&text).unwrap()
}

fn calls(s: &toml::Table) -> &Vec<toml::Value> {
    s["call"].as_array().unwrap()
}

/// (name, trace, part, requests, duplicates removed, malformed lines,
/// [input, cache creation, cache read, output] tokens).
type Row = (&'static str, &'static str, u64, u64, u64, u64, [u64; 4]);

#[test]
fn claude_code_traces_have_exact_deduplicated_counts_and_sums() {
    let out = tempfile::tempdir().unwrap();
    let report = import_json("claude-code", &[CLAUDE], out.path());
    // Files in order of their latest request: the older-style subagent file ends first.
    let expected: [Row; 6] = [
        (
            "shop-1a2b3c4d-agent-5e6f7a8b",
            "subagent",
            1,
            2,
            0,
            0,
            [8, 1_830, 1_800, 62],
        ),
        (
            "shop-1a2b3c4d-agent-a7f3e2d9",
            "subagent",
            1,
            2,
            1,
            0,
            [10, 3_400, 2_600, 206],
        ),
        (
            "shop-1a2b3c4d",
            "main",
            1,
            7,
            3,
            1,
            [1_546, 9_700, 120_600, 1_170],
        ),
        (
            "shop-1a2b3c4d-sidechain-1",
            "subagent",
            1,
            2,
            0,
            0,
            [10, 3_150, 3_000, 110],
        ),
        (
            "shop-1a2b3c4d-part2",
            "after-compaction",
            2,
            3,
            1,
            1,
            [12, 7_600, 12_200, 210],
        ),
        ("shop-9f8e7d6c", "main", 1, 2, 4, 0, [8, 1_100, 32_900, 175]),
    ];
    let names: Vec<&str> = report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, expected.map(|e| e.0));
    for (name, kind, part, requests, dups, malformed, usage) in expected {
        let t = trace(&report, name);
        assert_eq!(t["trace"], kind, "{name}");
        assert_eq!(t["part"], part, "{name}");
        assert_eq!(t["requests"], requests, "{name}");
        assert_eq!(t["duplicates_removed"], dups, "{name}");
        assert_eq!(t["malformed_lines"], malformed, "{name}");
        assert_eq!(t["convention"], "anthropic");
        let u = &t["usage"];
        assert_eq!(
            [
                &u["input_tokens"],
                &u["cache_creation_input_tokens"],
                &u["cache_read_input_tokens"],
                &u["output_tokens"]
            ],
            usage.map(Value::from).each_ref(),
            "{name}"
        );
        let written = PathBuf::from(t["scenario"].as_str().unwrap());
        assert_eq!(written, out.path().join(format!("{name}.toml")));
        assert!(written.exists());
    }
    // Totals cross-checked against ccusage 18.0.11 on these files (input, cache creation,
    // cache read agree; ccusage counts 1,469 output tokens: it keeps the first streaming
    // copy of a response, whose output_tokens is a placeholder).
    let total = |field: &str| -> u64 {
        report["traces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["usage"][field].as_u64().unwrap())
            .sum()
    };
    assert_eq!(total("input_tokens"), 1_594);
    assert_eq!(total("cache_creation_input_tokens"), 26_780);
    assert_eq!(total("cache_read_input_tokens"), 173_100);
    assert_eq!(total("output_tokens"), 1_933);

    let subagent = trace(&report, "shop-1a2b3c4d-agent-a7f3e2d9");
    assert_eq!(
        subagent["parent_session"],
        "1a2b3c4d-1111-4222-8333-444455556666"
    );
    assert_eq!(subagent["agent_id"], "a7f3e2d9");
    assert_eq!(
        trace(&report, "shop-1a2b3c4d-agent-5e6f7a8b")["model"],
        "claude-haiku-4-5-20251001"
    );
}

#[test]
fn malformed_lines_and_skipped_types_are_reported_with_file_and_line() {
    let out = tempfile::tempdir().unwrap();
    let report = import_json("claude-code", &[CLAUDE], out.path());
    let malformed: Vec<(u64, String)> = report["malformed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["file"], MAIN);
            (
                m["line"].as_u64().unwrap(),
                m["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(malformed.len(), 2);
    assert_eq!(malformed[0].0, 9);
    assert!(
        malformed[0].1.starts_with("not valid JSON"),
        "{malformed:?}"
    );
    assert_eq!(malformed[1].0, 43);
    assert!(
        malformed[1].1.starts_with("truncated last line"),
        "{malformed:?}"
    );
    assert_eq!(trace(&report, "shop-1a2b3c4d")["malformed"][0]["line"], 9);
    assert_eq!(
        trace(&report, "shop-1a2b3c4d-part2")["malformed"][0]["line"],
        43
    );
    let skipped = &report["skipped"];
    for (kind, known) in [
        ("file-history-snapshot", true),
        ("queue-operation", true),
        ("progress", true),
        ("summary", true),
        ("system", true),
        ("assistant (synthetic, no request)", true),
        ("mystery-event", false),
    ] {
        assert_eq!(skipped[kind]["lines"], 1, "{kind}: {skipped:#}");
        assert_eq!(skipped[kind]["known"], known, "{kind}");
    }
    assert_eq!(skipped.as_object().unwrap().len(), 7, "{skipped:#}");
}

#[test]
fn calls_carry_bytes_kinds_segments_gaps_and_measured_usage() {
    let out = tempfile::tempdir().unwrap();
    import_json("claude-code", &[CLAUDE], out.path());
    let s = scenario(out.path(), "shop-1a2b3c4d");
    assert_eq!(s["base_tokens"].as_integer(), Some(16_003));
    assert_eq!(s["bytes_per_token"].as_float(), Some(3.3));
    assert_eq!(s["cache"]["preset"].as_str(), Some("claude-sonnet-4-5"));
    let import = &s["import"];
    assert_eq!(import["format"].as_str(), Some("claude-code"));
    assert_eq!(import["file"].as_str(), Some(MAIN));
    assert_eq!(import["trace"].as_str(), Some("main"));
    assert_eq!(import["requests"].as_integer(), Some(7));
    assert_eq!(import["duplicates_removed"].as_integer(), Some(3));
    assert_eq!(import["malformed_lines"].as_integer(), Some(1));
    assert_eq!(import["convention"].as_str(), Some("anthropic"));

    let c = calls(&s);
    let col = |key: &str| -> Vec<String> {
        c.iter()
            .map(|call| call.get(key).map_or("-".into(), |v| v.to_string()))
            .collect()
    };
    assert_eq!(
        col("id"),
        [
            "\"req_011CA1\"",
            "\"req_011CA2\"",
            "\"msg_01A3\"",
            "\"req_011CA4\"",
            "\"req_011CA5\"",
            "\"req_011CA6\"",
            "\"req_011CA7\""
        ]
    );
    // Tool results, then the caveat, command echo, command output and the next prompt
    // (485), a server-side search result and the next prompt's text (171).
    assert_eq!(
        col("bytes"),
        ["1708", "450", "189", "485", "179", "171", "0"]
    );
    // The image counts in `images`, sized by [terms] tokens_per_image (1,600 estimated).
    assert_eq!(col("tokens"), ["-", "-", "-", "-", "-", "-", "-"]);
    assert_eq!(col("images"), ["-", "-", "-", "-", "-", "1", "-"]);
    assert_eq!(
        col("kind"),
        [
            "\"tool\"",
            "\"tool\"",
            "\"tool\"",
            "\"prompt\"",
            "\"web_search\"",
            "\"web_search\"",
            "\"tool\""
        ]
    );
    assert_eq!(col("segment"), ["1", "1", "1", "1", "2", "2", "3"]);
    assert_eq!(col("gap_s"), ["0", "4", "14", "11", "5373", "11", "50"]);
    assert_eq!(
        col("output_tokens"),
        ["180", "95", "410", "120", "60", "220", "85"]
    );
    assert_eq!(col("pinned"), ["-"; 7]);
    assert_eq!(
        col("label"),
        [
            "\"Bash: cargo test\"",
            "\"Read: /home/dev/shop/src/cart.rs\"",
            "\"Edit: /home/dev/shop/src/cart.rs\"",
            "\"prompt: Now search the web for the latest serde release notes\"",
            "\"WebSearch: serde 1.0 release notes\"",
            "\"web_search: serde_json 1.0.154 [+1 image ≈1600 est. tokens]\"",
            "\"answer\""
        ]
    );
    for call in &c[..6] {
        let h = call.get("input_hash").map(|h| h.as_str().unwrap().len());
        let tool = call.get("tool").is_some();
        assert_eq!(h, tool.then_some(16), "{call}");
    }
    let m = &c[0]["measured"];
    assert_eq!(m["input_tokens"].as_integer(), Some(3));
    assert_eq!(m["cache_creation_input_tokens"].as_integer(), Some(4_000));
    assert_eq!(m["cache_creation_1h_input_tokens"].as_integer(), Some(0));
    assert_eq!(m["cache_read_input_tokens"].as_integer(), Some(12_000));
    assert_eq!(m["output_tokens"].as_integer(), Some(180));
    assert_eq!(m["model"].as_str(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(m["convention"].as_str(), Some("anthropic"));

    // Parallel tool uses: the first tool names the call; both results join it.
    let part2 = scenario(out.path(), "shop-1a2b3c4d-part2");
    let c = calls(&part2);
    assert_eq!(
        c[1]["label"].as_str(),
        Some("Read: /home/dev/shop/src/checkout.rs (+1 more)")
    );
    assert_eq!(c[1]["bytes"].as_integer(), Some(190));
    assert_eq!(c[1]["output_tokens"].as_integer(), Some(130));
    assert_eq!(part2["base_tokens"].as_integer(), Some(5_003));
    assert_eq!(
        c.iter()
            .map(|c| c["segment"].as_integer().unwrap())
            .collect::<Vec<_>>(),
        [1, 1, 1]
    );

    // The resumed session keeps only its own requests; the prompt typed on resuming is
    // part of its first request's measured input.
    let resumed = scenario(out.path(), "shop-9f8e7d6c");
    let c = calls(&resumed);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0]["id"].as_str(), Some("req_011CD1"));
    assert_eq!(c[0]["bytes"].as_integer(), Some(62));

    // A subagent with 1-hour cache writes gets the 1-hour preset.
    let old = scenario(out.path(), "shop-1a2b3c4d-agent-5e6f7a8b");
    assert_eq!(old["cache"]["preset"].as_str(), Some("claude-haiku-4-5-1h"));
    assert_eq!(
        old["import"]["parent_session"].as_str(),
        Some("1a2b3c4d-1111-4222-8333-444455556666")
    );
    assert_eq!(old["import"]["agent_id"].as_str(), Some("5e6f7a8b"));
}

#[test]
fn written_scenarios_use_only_the_agreed_keys() {
    let out = tempfile::tempdir().unwrap();
    import_json("claude-code", &[CLAUDE], out.path());
    import_json("codex", &[CODEX], out.path());
    let top = [
        "name",
        "description",
        "base_tokens",
        "base_tokens_source",
        "bytes_per_token",
        "bytes_per_token_source",
        "import",
        "cache",
        "price",
        "terms",
        "call",
    ];
    let import = [
        "format",
        "file",
        "session_id",
        "trace",
        "part",
        "parent_session",
        "agent_id",
        "requests",
        "duplicates_removed",
        "malformed_lines",
        "model",
        "convention",
        "compaction_trigger",
        "compaction_pre_tokens",
        "compaction_summary_bytes",
    ];
    let call = [
        "id",
        "label",
        "tool",
        "kind",
        "bytes",
        "tokens",
        "segment",
        "gap_s",
        "output_tokens",
        "output_bytes",
        "tool_input_bytes",
        "images",
        "loaded_tools",
        "input_hash",
        "measured",
    ];
    let measured = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_creation_1h_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
        "model",
        "convention",
    ];
    let mut files = 0;
    for entry in fs::read_dir(out.path()).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# Imported by simulate from a "), "{text}");
        assert!(text.contains("simulate fit"));
        let s: toml::Table = toml::from_str(&text).unwrap();
        let name = s["name"].as_str().unwrap();
        assert!(
            name.len() <= 100
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        );
        assert!(s.keys().all(|k| top.contains(&k.as_str())), "{s:?}");
        assert!(
            s["import"]
                .as_table()
                .unwrap()
                .keys()
                .all(|k| import.contains(&k.as_str()))
        );
        for c in calls(&s) {
            let c = c.as_table().unwrap();
            assert!(c.keys().all(|k| call.contains(&k.as_str())), "{c:?}");
            assert!(c.contains_key("bytes") || c.contains_key("tokens"));
            let m = c["measured"].as_table().unwrap();
            assert!(m.keys().all(|k| measured.contains(&k.as_str())), "{m:?}");
            if let Some(gap) = c.get("gap_s").and_then(toml::Value::as_float) {
                assert_eq!((gap * 1000.0).round() / 1000.0, gap);
            }
        }
        files += 1;
    }
    assert_eq!(files, 9);
}

#[test]
fn codex_rollouts_have_exact_counts_and_the_openai_convention() {
    let out = tempfile::tempdir().unwrap();
    let report = import_json("codex", &[CODEX], out.path());
    let names: Vec<&str> = report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["shop-0199a3b4", "shop-0199a3b4-part2", "shop-0199a4c5"]
    );
    let main = trace(&report, "shop-0199a3b4");
    assert_eq!(main["requests"], 4);
    assert_eq!(main["duplicates_removed"], 1);
    assert_eq!(main["convention"], "openai");
    assert_eq!(
        main["usage"],
        json!({"input_tokens": 22_600, "cache_creation_input_tokens": null, "cache_read_input_tokens": 15_800, "output_tokens": 700})
    );
    let part2 = trace(&report, "shop-0199a3b4-part2");
    assert_eq!(part2["trace"], "after-compaction");
    assert_eq!(part2["requests"], 1);
    assert_eq!(part2["malformed"][0]["line"], 32);
    let fork = trace(&report, "shop-0199a4c5");
    assert_eq!(fork["requests"], 1);
    assert_eq!(fork["duplicates_removed"], 3);
    assert_eq!(fork["usage"]["input_tokens"], 6_500);
    assert_eq!(
        report["skipped"]["telemetry_blob"],
        json!({"lines": 1, "known": false})
    );
    assert_eq!(
        report["skipped"]["event_msg/token_count (info null)"]["lines"],
        2
    );

    let s = scenario(out.path(), "shop-0199a3b4");
    assert_eq!(s["base_tokens"].as_integer(), Some(5_000));
    // The price data has an entry for the Codex model (at GPT-5's prices).
    assert_eq!(s["cache"]["preset"].as_str(), Some("gpt-5-codex"));
    assert_eq!(s["price"]["model"].as_str(), Some("gpt-5-codex"));
    assert_eq!(s["import"]["model"].as_str(), Some("gpt-5-codex"));
    let c = calls(&s);
    let labels: Vec<&str> = c.iter().map(|c| c["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "shell: cargo test",
            "apply_patch: src/cart.rs",
            "prompt: Search the web for the serde changelog",
            "web_search: serde changelog"
        ]
    );
    let bytes: Vec<i64> = c.iter().map(|c| c["bytes"].as_integer().unwrap()).collect();
    assert_eq!(bytes, [131, 52, 38, 0]);
    // The model's own output joins as its bytes: `shell` 5 + its arguments 71, `apply_patch`
    // 11 + its patch 178, the message "Fixed the discount total." 25, and nothing for the
    // web search; its reasoning (64, 64, 0, 32 of the output tokens) joins not at all.
    let output: Vec<i64> = c
        .iter()
        .map(|c| c["output_bytes"].as_integer().unwrap())
        .collect();
    assert_eq!(output, [76, 189, 25, 0]);
    let kinds: Vec<&str> = c.iter().map(|c| c["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["tool", "tool", "prompt", "web_search"]);
    let segments: Vec<i64> = c
        .iter()
        .map(|c| c["segment"].as_integer().unwrap())
        .collect();
    assert_eq!(segments, [1, 1, 1, 2]);
    // The third request's usage is the difference of two running totals.
    let m = &c[2]["measured"];
    assert_eq!(m["input_tokens"].as_integer(), Some(5_800));
    assert_eq!(m["cache_read_input_tokens"].as_integer(), Some(5_200));
    assert_eq!(m["output_tokens"].as_integer(), Some(100));
    assert_eq!(m["convention"].as_str(), Some("openai"));
    assert!(m.get("cache_creation_input_tokens").is_none());
    assert_eq!(c[3]["gap_s"].as_float(), Some(6293.8));
}

#[test]
fn the_table_names_its_units_skips_and_malformed_lines() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args(["import", "claude-code", CLAUDE, "--out"])
        .arg(out.path())
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Imported 6 traces from 4 Claude Code files.",
        ))
        .stdout(predicate::str::contains("cache_creation_input_tokens"))
        .stdout(predicate::str::contains("(measured)"))
        .stdout(predicate::str::contains(
            "anthropic: input_tokens excludes cache reads and writes",
        ))
        .stdout(predicate::str::contains(
            "unknown types (a newer log version?): mystery-event 1",
        ))
        .stdout(predicate::str::contains(format!(
            "{MAIN}:9: not valid JSON"
        )))
        .stdout(predicate::str::contains(format!(
            "{MAIN}:43: truncated last line"
        )))
        .stdout(predicate::str::contains("shop-1a2b3c4d-part2"))
        .stdout(predicate::str::contains("simulate fit"));
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    // stdout, and each scenario file's name and text.
    type Run = (Vec<u8>, Vec<(String, String)>);
    let runs: Vec<Run> = ["1", "2", "4"]
        .iter()
        .map(|threads| {
            let out = tempfile::tempdir().unwrap();
            let assert = simulate()
                .env("RAYON_NUM_THREADS", threads)
                .current_dir(out.path())
                .args(["import", "claude-code"])
                .arg(fs::canonicalize(CLAUDE).unwrap())
                .args(["--out", "s", "--format", "json"])
                .assert()
                .success();
            let mut written: Vec<(String, String)> = fs::read_dir(out.path().join("s"))
                .unwrap()
                .map(|e| {
                    let p = e.unwrap().path();
                    (
                        p.file_name().unwrap().to_string_lossy().into_owned(),
                        fs::read_to_string(&p).unwrap(),
                    )
                })
                .collect();
            written.sort();
            (assert.get_output().stdout.clone(), written)
        })
        .collect();
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
}

#[test]
fn a_copied_transcript_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(MAIN, dir.path().join("a.jsonl")).unwrap();
    fs::copy(MAIN, dir.path().join("b.jsonl")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let report = import_json("claude-code", &[dir.path().to_str().unwrap()], out.path());
    let requests: Vec<u64> = report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["requests"].as_u64().unwrap())
        .collect();
    assert_eq!(requests, [7, 2, 3]);
    assert_eq!(
        report["files_without_requests"][0]["duplicates_removed"],
        16
    );
}

#[test]
fn a_slash_command_starts_a_segment_and_a_typed_prompt_labels_before_it() {
    // go → request 1 (a text answer); /review (a custom command, expanded by an isMeta
    // line) → request 2; /cost (local, its output injected) then a typed prompt →
    // request 3. Each user turn starts a segment: 1, 2, 3. Labels come from the text that
    // joined after each request: the command, then the typed prompt over /cost.
    let user = |ts: &str, content: Value, meta: bool| {
        let mut line = json!({"type": "user", "sessionId": "s", "timestamp": ts,
            "message": {"role": "user", "content": content}});
        if meta {
            line["isMeta"] = json!(true);
        }
        line.to_string()
    };
    let answer = |i: u32, ts: &str| {
        json!({"type": "assistant", "sessionId": "s", "timestamp": ts, "requestId": format!("req_{i}"),
            "message": {"id": format!("msg_{i}"), "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "done"}],
                "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 0, "output_tokens": 5}}})
        .to_string()
    };
    let lines = vec![
        user("2025-10-01T10:00:00Z", json!("go"), false),
        answer(1, "2025-10-01T10:00:01Z"),
        user(
            "2025-10-01T10:01:00Z",
            json!(
                "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>src/</command-args>"
            ),
            false,
        ),
        user(
            "2025-10-01T10:01:00Z",
            json!("Review the code under src/ for bugs."),
            true,
        ),
        answer(2, "2025-10-01T10:01:05Z"),
        user(
            "2025-10-01T10:02:00Z",
            json!(
                "<command-name>/cost</command-name>\n<command-message>cost</command-message>\n<command-args></command-args>"
            ),
            false,
        ),
        user(
            "2025-10-01T10:02:00Z",
            json!("<local-command-stdout>Total cost: $0.01</local-command-stdout>"),
            false,
        ),
        user(
            "2025-10-01T10:03:00Z",
            json!("Now fix the first bug"),
            false,
        ),
        answer(3, "2025-10-01T10:03:05Z"),
    ];
    let dir = tempfile::tempdir().unwrap();
    write_lines(&dir.path().join("s.jsonl"), &lines);
    let out = tempfile::tempdir().unwrap();
    let report = import_json("claude-code", &[dir.path().to_str().unwrap()], out.path());
    let name = report["traces"][0]["name"].as_str().unwrap().to_string();
    let s = scenario(out.path(), &name);
    let col = |key: &str| -> Vec<String> {
        calls(&s)
            .iter()
            .map(|c| c.get(key).map_or("-".into(), |v| v.to_string()))
            .collect()
    };
    assert_eq!(col("segment"), ["1", "2", "3"]);
    assert_eq!(
        col("label"),
        [
            "\"prompt: /review src/\"",
            "\"prompt: Now fix the first bug\"",
            "\"answer\""
        ]
    );
}

#[test]
fn a_resumed_session_that_sorts_first_leaves_its_parent_its_calls() {
    // The parent (3 requests) is in z.jsonl; the resumed session in a.jsonl replays those
    // lines and goes on for 2 more. Path order would give a.jsonl all 5 and z.jsonl none.
    let request = |usage: [u64; 4]| Gen {
        usage,
        early_copies: 0,
        request_id: true,
        result_bytes: 100,
    };
    let requests: Vec<Gen> = (0..5u64)
        .map(|i| request([10 + i, 100, 1_000 * i, 20]))
        .collect();
    let child = transcript(&requests);
    let parent = transcript(&requests[..3]);
    let dir = tempfile::tempdir().unwrap();
    write_lines(&dir.path().join("z.jsonl"), &parent);
    write_lines(&dir.path().join("a.jsonl"), &child);
    let out = tempfile::tempdir().unwrap();
    let report = import_json("claude-code", &[dir.path().to_str().unwrap()], out.path());
    let traces: Vec<(String, u64, u64)> = report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["file"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                t["requests"].as_u64().unwrap(),
                t["duplicates_removed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        traces,
        [("z.jsonl".to_string(), 3, 0), ("a.jsonl".to_string(), 2, 3)]
    );
}

#[test]
fn an_empty_file_beside_good_ones_is_listed_not_fatal() {
    let out = tempfile::tempdir().unwrap();
    let report = import_json(
        "claude-code",
        &[MAIN, "tests/fixtures/import/bad/empty.jsonl"],
        out.path(),
    );
    assert_eq!(report["traces"].as_array().unwrap().len(), 3);
    assert_eq!(
        report["files_without_requests"],
        json!([{"file": "tests/fixtures/import/bad/empty.jsonl", "lines": 0, "duplicates_removed": 0}])
    );
    assert_eq!(fs::read_dir(out.path()).unwrap().count(), 3);
}

fn refused(args: &[&str], out: &Path, expected: &[&str]) {
    let assert = simulate()
        .arg("import")
        .args(args)
        .arg("--out")
        .arg(out)
        .assert()
        .code(2);
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(stderr.starts_with("error: "), "{stderr}");
    for part in expected {
        assert!(stderr.contains(part), "expected {part:?} in {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(assert.get_output().stdout.is_empty());
}

#[test]
fn bad_input_is_refused_naming_the_file_and_nothing_is_written() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("scenarios");
    refused(
        &["claude-code", "tests/fixtures/import/bad/empty.jsonl"],
        &out,
        &[
            "tests/fixtures/import/bad/empty.jsonl",
            "(empty)",
            "nothing written",
        ],
    );
    refused(
        &["claude-code", "tests/fixtures/import/bad/not-jsonl.jsonl"],
        &out,
        &[
            "not-jsonl.jsonl",
            "line 1: not valid JSON",
            "4 of 5 lines malformed",
        ],
    );
    refused(
        &["claude-code", "tests/fixtures/import/bad/no-transcripts"],
        &out,
        &[
            "no-transcripts",
            "no Claude Code transcripts (*.jsonl) found",
        ],
    );
    refused(
        &["codex", CLAUDE],
        &out,
        &["no Codex CLI rollouts (rollout-*.jsonl) found"],
    );
    refused(
        &["claude-code", "tests/fixtures/import/bad/missing.jsonl"],
        &out,
        &["missing.jsonl: cannot read"],
    );
    assert!(!out.exists(), "bad input created {}", out.display());
}

#[test]
fn out_onto_or_around_an_input_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("s.jsonl");
    fs::copy(MAIN, &log).unwrap();
    let before = fs::read(&log).unwrap();
    let path = log.to_str().unwrap();
    refused(&["claude-code", path], &log, &["--out is the input file"]);
    refused(
        &["claude-code", path],
        dir.path(),
        &["--out contains the input file"],
    );
    assert_eq!(fs::read(&log).unwrap(), before);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    // Not a directory: a path under a regular file cannot be created.
    refused(
        &["claude-code", MAIN],
        &dir.path().join("s.jsonl/below"),
        &["cannot write results here"],
    );
}

#[test]

fn an_imported_scenario_loads_and_runs() {
    let out = tempfile::tempdir().unwrap();
    import_json("claude-code", &[CLAUDE], out.path());
    import_json("codex", &[CODEX], out.path());
    for name in ["shop-1a2b3c4d", "shop-0199a3b4"] {
        simulate()
            .arg(out.path().join(format!("{name}.toml")))
            .arg("--no-charts")
            .arg("--out")
            .arg(out.path().join("results"))
            .assert()
            .success();
    }
}

/// A request of a generated transcript: its usage, how many streaming copies precede the
/// final one, the bytes of its tool result, and whether its lines carry a `requestId`.
#[derive(Debug, Clone)]
struct Gen {
    usage: [u64; 4],
    early_copies: usize,
    result_bytes: usize,
    request_id: bool,
}

fn gen_request() -> impl Strategy<Value = Gen> {
    (
        [0u64..50, 0u64..5_000, 0u64..60_000, 2u64..3_000],
        0usize..3,
        0usize..400,
        any::<bool>(),
    )
        .prop_map(|(usage, early_copies, result_bytes, request_id)| Gen {
            usage,
            early_copies,
            result_bytes,
            request_id,
        })
}

fn transcript(requests: &[Gen]) -> Vec<String> {
    let mut lines = vec![
        json!({"type": "user", "sessionId": "s", "cwd": "/w/p", "timestamp": "2025-10-01T10:00:00Z",
               "message": {"role": "user", "content": "go"}})
        .to_string(),
    ];
    for (i, r) in requests.iter().enumerate() {
        let [input, creation, read, output] = r.usage;
        for copy in 0..=r.early_copies {
            let output = if copy < r.early_copies { 1 } else { output };
            let mut line = json!({
                "type": "assistant", "sessionId": "s", "timestamp": format!("2025-10-01T10:{:02}:{:02}Z", i / 60, i % 60),
                "message": {"id": format!("msg_{i}"), "model": "claude-sonnet-4-5", "content": [
                    {"type": "tool_use", "id": format!("toolu_{i}"), "name": "Bash", "input": {"command": format!("step {i}")}}],
                    "usage": {"input_tokens": input, "cache_creation_input_tokens": creation,
                              "cache_read_input_tokens": read, "output_tokens": output}}});
            if r.request_id {
                line["requestId"] = json!(format!("req_{i}"));
            }
            lines.push(line.to_string());
        }
        lines.push(
            json!({"type": "user", "sessionId": "s", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("toolu_{i}"), "content": "x".repeat(r.result_bytes)}]}})
            .to_string(),
        );
    }
    lines
}

/// (requests, [input, creation, read, output], bytes) over every trace of an import.
fn sums(dir: &Path) -> (usize, [u64; 4], u64) {
    let reader = Format::ClaudeCode.reader();
    let found = files::find(&[dir.to_path_buf()], |p| reader.is_log(p), "logs").unwrap();
    let a = load(reader, &found).unwrap().assembled;
    let mut requests = 0;
    let mut usage = [0; 4];
    let mut bytes = 0;
    for t in &a.traces {
        requests += t.calls.len();
        let u = t.usage();
        usage[0] += u.input_tokens;
        usage[1] += u.cache_creation_input_tokens.unwrap_or(0);
        usage[2] += u.cache_read_input_tokens;
        usage[3] += u.output_tokens;
        bytes += t.calls.iter().map(|c| c.bytes).sum::<u64>();
    }
    (requests, usage, bytes)
}

fn write_lines(path: &Path, lines: &[String]) {
    fs::write(path, lines.join("\n") + "\n").unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Deduplication is idempotent: the same transcript imported twice, or with every line
    /// written twice, gives the same requests, token sums and bytes as the transcript alone.
    #[test]
    fn duplicated_lines_and_copied_files_do_not_change_the_sums(
        requests in proptest::collection::vec(gen_request(), 1..12)
    ) {
        let lines = transcript(&requests);
        let expected_usage = requests.iter().fold([0u64; 4], |mut s, r| {
            for (total, x) in s.iter_mut().zip(r.usage) { *total += x; }
            s
        });
        let expected_bytes: u64 = requests.iter().map(|r| r.result_bytes as u64).sum();

        let once = tempfile::tempdir().unwrap();
        write_lines(&once.path().join("a.jsonl"), &lines);
        let base = sums(once.path());
        prop_assert_eq!(base, (requests.len(), expected_usage, expected_bytes));

        let twice = tempfile::tempdir().unwrap();
        write_lines(&twice.path().join("a.jsonl"), &lines);
        write_lines(&twice.path().join("b.jsonl"), &lines);
        prop_assert_eq!(sums(twice.path()), base);

        let doubled = tempfile::tempdir().unwrap();
        let both: Vec<String> = lines.iter().flat_map(|l| [l.clone(), l.clone()]).collect();
        write_lines(&doubled.path().join("a.jsonl"), &both);
        prop_assert_eq!(sums(doubled.path()), base);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the lines hold (fragments of real lines, other JSON, bytes that are not
    /// UTF-8), reading never panics and never fails: every line is a request, something
    /// that joins, a skip or a malformed line.
    #[test]
    fn any_lines_are_read_without_panic(
        picks in proptest::collection::vec((0usize..8, 0usize..400, any::<Vec<u8>>()), 0..30)
    ) {
        let real = fs::read(MAIN).unwrap();
        let real_lines: Vec<&[u8]> = real.split(|b| *b == b'\n').collect();
        let mut text = Vec::new();
        for (kind, cut, noise) in picks {
            let line = real_lines[cut % real_lines.len()];
            match kind {
                0 => text.extend_from_slice(&line[..cut.min(line.len())]),
                1 => text.extend_from_slice(&noise),
                2 => text.extend_from_slice(br#"{"type":"assistant","message":{"id":7,"usage":"x"}}"#),
                3 => text.extend_from_slice(br#"{"type":"user","message":{"content":[{"type":"tool_result","content":{"deep":[1,[2,{"a":"b"}]]}}]}}"#),
                4 => text.extend_from_slice(br#"[1,2,3]"#),
                _ => text.extend_from_slice(line),
            }
            text.push(b'\n');
        }
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("x.jsonl"), &text).unwrap();
        for format in [Format::ClaudeCode, Format::Codex] {
            let reader = format.reader();
            let found = files::find(&[dir.path().join("x.jsonl")], |p| reader.is_log(p), "logs").unwrap();
            let a = load(reader, &found).unwrap().assembled;
            let lines = text.iter().filter(|b| **b == b'\n').count();
            prop_assert!(a.malformed.len() <= lines);
        }
    }
}

/// A session whose usage was generated from B = 21,500 and ρ = 3.7 with 1 % noise
/// (`cargo run --example gen_session -- OUT.jsonl`): importing it and fitting gives them back
/// within 2 %.
#[test]
fn a_session_generated_from_known_b_and_rho_is_fitted_back_within_two_percent() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args([
            "import",
            "claude-code",
            "tests/fixtures/import/claude-code-fit",
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let scenario = out.path().join("shop-5e55a0e1.toml");
    let assert = simulate()
        .args(["fit", "--format", "json"])
        .arg(&scenario)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let b = v["base_tokens"].as_f64().unwrap();
    let rho = v["bytes_per_token"].as_f64().unwrap();
    assert!((b / 21_500.0 - 1.0).abs() < 0.02, "B = {b}");
    assert!((rho / 3.7 - 1.0).abs() < 0.02, "ρ = {rho}");
    assert_eq!(v["calls_used"], 60);
    // The 60 responses were each logged twice (a streaming snapshot, then the final copy).
    let summary = simulate()
        .args([
            "import",
            "claude-code",
            "tests/fixtures/import/claude-code-fit",
            "--format",
            "json",
            "--out",
        ])
        .arg(out.path().join("again"))
        .assert()
        .success();
    let s: Value = serde_json::from_slice(&summary.get_output().stdout).unwrap();
    let trace = &s["traces"][0];
    assert_eq!(trace["requests"], 60);
    assert_eq!(trace["duplicates_removed"], 60);
    assert_eq!(trace["usage"]["output_tokens"], 25_600);
}

/// Fuzzing found (`fuzz/`, target import_claude_code): a model name with a line break
/// went into the scenario as is, and the loader refused the file the importer wrote. Text
/// from a log is cleaned (control characters, length) and ids kept unique: every scenario
/// the importer writes loads and runs.
///
/// Also found: a usage whose `ephemeral_1h_input_tokens` exceeded its
/// `cache_creation_input_tokens` was written as is, and refused by the loader. The split is
/// left out (unknown) when it contradicts the total.
#[test]
fn regression_odd_logs_still_make_loadable_scenarios() {
    for file in [
        "control-character-in-model.jsonl",
        "one-hour-split-above-all-writes.jsonl",
    ] {
        let out = tempfile::tempdir().unwrap();
        simulate()
            .args(["import", "claude-code", "--out"])
            .arg(out.path())
            .arg(Path::new("tests/fixtures/import/regressions").join(file))
            .assert()
            .success();
        let mut written = 0;
        for entry in fs::read_dir(out.path()).unwrap() {
            let path = entry.unwrap().path();
            simulate().arg(&path).arg("--no-write").assert().success();
            written += 1;
        }
        assert!(written >= 1, "{file}");
    }
}

/// Importing again into a folder where a scenario of the same trace was fitted or edited
/// refuses, naming the file, and replaces nothing; `--force` replaces it. An unchanged
/// scenario is simply written again.
#[test]
fn a_reimport_never_silently_replaces_a_changed_scenario() {
    let out = tempfile::tempdir().unwrap();
    let import = |force: bool| {
        let mut cmd = simulate();
        cmd.args([
            "import",
            "claude-code",
            "tests/fixtures/import/claude-code-fit",
            "--out",
        ])
        .arg(out.path());
        if force {
            cmd.arg("--force");
        }
        cmd.assert()
    };
    import(false).success();
    // The same import again writes the same bytes: no refusal.
    import(false).success();
    let path = out.path().join("shop-5e55a0e1.toml");
    let edited = format!(
        "{}\n[[edit]]\nname = \"mine\"\nbase = {{ by_tokens = 100 }}\n",
        fs::read_to_string(&path).unwrap()
    );
    fs::write(&path, &edited).unwrap();
    import(false).code(2).stderr(
        predicate::str::contains("shop-5e55a0e1.toml: already exists and differs")
            .and(predicate::str::contains("--force")),
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), edited);
    import(true).success();
    assert!(
        !fs::read_to_string(&path)
            .unwrap()
            .contains("name = \"mine\"")
    );
}

const SHAPES: &str = "tests/fixtures/import/claude-code-shapes";

/// One column of a scenario's calls, as TOML text ("-" where a call has no such key).
fn column(s: &toml::Table, key: &str) -> Vec<String> {
    calls(s)
        .iter()
        .map(|c| c.get(key).map_or("-".into(), |v| v.to_string()))
        .collect()
}

/// Hand-written logs in the shapes real Claude Code versions write (docs/model.md §6.2):
/// what joins after each call is what the next request re-sends.
#[test]
fn what_joins_is_what_the_next_request_re_sends() {
    let out = tempfile::tempdir().unwrap();
    let report = import_json("claude-code", &[SHAPES], out.path());
    let names: Vec<&str> = report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // journal.jsonl (a workflow's journal) is not read as a transcript; two subagents that
    // ran in parallel inside their parent's file (1.0.x) are a trace each, split at their
    // roots (`parentUuid: null`) and followed through `parentUuid`.
    assert_eq!(
        names,
        [
            "parser-22222222",
            "parser-22222222-sidechain-1",
            "parser-22222222-sidechain-2",
            "parser-11111111",
            "parser-33333333"
        ]
    );
    assert!(
        !report["files_without_requests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["file"].as_str().unwrap().ends_with("journal.jsonl"))
    );

    // 1.0.x: one response, one block a line, every copy with a placeholder output count
    // (2, 1, 1): the model's message joins as its bytes. req_A: text 11 + `Read` 4 + its
    // input as JSON 45, and not its 20 bytes of thinking, which Sonnet 4 drops at the next
    // prompt (it keeps only the last turn's); req_B: `MultiEdit` 9 + 162; req_C: its text,
    // 28.
    let s = scenario(out.path(), "parser-11111111");
    assert_eq!(column(&s, "output_bytes"), ["60", "171", "28"]);
    // Of them, the tool uses' names and inputs: what clearing tool inputs would remove.
    assert_eq!(column(&s, "tool_input_bytes"), ["49", "171", "-"]);
    assert_eq!(column(&s, "output_tokens"), ["2", "1", "1"]);
    assert_eq!(column(&s, "bytes"), ["37", "15", "0"]);

    let a = scenario(out.path(), "parser-22222222-sidechain-1");
    let b = scenario(out.path(), "parser-22222222-sidechain-2");
    assert_eq!(column(&a, "id"), ["\"req_A1\"", "\"req_A2\""]);
    assert_eq!(column(&b, "id"), ["\"req_B1\"", "\"req_B2\""]);
    assert_eq!(column(&a, "bytes"), ["25", "0"]);
    assert_eq!(column(&b, "bytes"), ["13", "0"]);
    assert_eq!(a["import"]["trace"].as_str(), Some("subagent"));

    // 2.1.x: a redacted thinking block (a signature, no text) of a model that keeps every
    // turn's thinking (Opus 4.7) cannot be sized, so that call's logged output tokens join
    // instead (no output_bytes); tool search's answer
    // loads two definitions, sized by [terms]; of the attachments, hook context (22) and
    // the task reminder (20) join, the hook's own success note does not.
    let s = scenario(out.path(), "parser-33333333");
    assert_eq!(column(&s, "output_bytes"), ["-", "82", "9", "6", "18"]);
    assert_eq!(column(&s, "loaded_tools"), ["2", "-", "-", "-", "-"]);
    assert_eq!(column(&s, "tool_input_bytes"), ["28", "48", "-", "-", "-"]);
    assert_eq!(
        s["terms"]["tokens_per_loaded_tool"].as_integer(),
        Some(1_400)
    );
    // req_X2 then the task reminder; req_X3 then the old `/clear` echo (105) and a typed
    // prompt (14); req_X4 then an IDE selection and a typed question (83).
    assert_eq!(column(&s, "bytes"), ["22", "37", "119", "83", "0"]);
    // A typed prompt labels its call, not the IDE block or the slash command with it; the
    // old echo without its slash reads as `/clear` and starts a segment.
    assert_eq!(
        column(&s, "label")[2..4],
        ["\"prompt: now the spaces\"", "\"prompt: and this line?\""]
    );
    assert_eq!(column(&s, "segment"), ["1", "1", "1", "2", "3"]);
    let attachments = &report["attachments"];
    assert_eq!(attachments["hook_additional_context"]["bytes"], 22);
    assert_eq!(attachments["hook_additional_context"]["joins"], true);
    assert_eq!(attachments["hook_success"]["joins"], false);
    assert_eq!(attachments["task_reminder"]["bytes"], 20);
    assert_eq!(attachments["skill_listing"]["lines"], 1);

    // Every scenario loads and runs.
    for name in names {
        simulate()
            .arg(out.path().join(format!("{name}.toml")))
            .arg("--no-write")
            .assert()
            .success();
    }
}

/// A Codex rollout given to `import claude-code` (and the reverse) names the other format.
/// A trace after a compaction records it: what started it, the context then, and the
/// size of the summary it starts with (for fitting a compaction's summary size).
#[test]
fn a_compaction_is_recorded_with_the_trace_it_starts() {
    let out = tempfile::tempdir().unwrap();
    import_json("claude-code", &[CLAUDE], out.path());
    let s = scenario(out.path(), "shop-1a2b3c4d-part2");
    let i = &s["import"];
    assert_eq!(i["compaction_trigger"].as_str(), Some("manual"));
    assert_eq!(i["compaction_pre_tokens"].as_integer(), Some(25_000));
    assert_eq!(i["compaction_summary_bytes"].as_integer(), Some(224));
    assert!(
        scenario(out.path(), "shop-1a2b3c4d")["import"]
            .get("compaction_pre_tokens")
            .is_none()
    );
}

#[test]
fn a_log_of_the_other_format_is_named() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args(["import", "claude-code", CODEX, "--out"])
        .arg(out.path().join("a"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "none a request: its lines are Codex CLI's (",
        ))
        .stderr(predicate::str::contains(
            "import it with `simulate import codex …`",
        ));
    simulate()
        .args(["import", "codex", MAIN, "--out"])
        .arg(out.path().join("b"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "import it with `simulate import claude-code …`",
        ));
}

/// `import --fit` fits every trace, writes the good fits ("fitted at import", no date: a
/// second import writes the same bytes) and prints the quality table.
#[test]
fn import_fit_writes_good_fits_and_prints_their_quality() {
    let out = tempfile::tempdir().unwrap();
    let run = || {
        simulate()
            .args([
                "import",
                "claude-code",
                "tests/fixtures/import/claude-code-fit",
                "--fit",
                "--out",
            ])
            .arg(out.path())
            .assert()
            .success()
    };
    let first = run();
    let stdout = String::from_utf8(first.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("Fit of each trace"), "{stdout}");
    assert!(
        stdout.contains("  1 of 1 fitted (1 written); R² ≥ 0.98 in 1;"),
        "{stdout}"
    );
    let text = fs::read_to_string(out.path().join("shop-5e55a0e1.toml")).unwrap();
    assert!(
        text.contains(
            "base_tokens_source = \"fitted at import (simulate fit: R² = 1.000 on 60 of 60 calls)\""
        ),
        "{text}"
    );
    run();
    assert_eq!(
        fs::read_to_string(out.path().join("shop-5e55a0e1.toml")).unwrap(),
        text
    );
    let v: Value = serde_json::from_slice(
        &simulate()
            .args([
                "import",
                "claude-code",
                "tests/fixtures/import/claude-code-fit",
                "--fit",
                "--format",
                "json",
                "--out",
            ])
            .arg(out.path())
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    let q = &v["fit"][0];
    assert_eq!(q["status"], "written");
    let b = q["base_tokens"].as_f64().unwrap();
    assert!((b / 21_500.0 - 1.0).abs() < 0.02, "B = {b}");
}

/// A Codex rollout among Claude Code logs is named with the command that imports it, as it
/// is when given alone (before: listed as "(N lines)", its line types as unknown).
#[test]
fn another_formats_log_among_good_ones_is_named_with_its_command() {
    let codex = fs::read_dir("tests/fixtures/import/codex/sessions")
        .unwrap()
        .flat_map(|e| walk(e.unwrap().path()))
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let out = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    fs::copy(&codex, logs.path().join("rollout.jsonl")).unwrap();
    let run = simulate()
        .args([
            "import",
            "claude-code",
            "tests/fixtures/import/claude-code-fit",
        ])
        .arg(logs.path())
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let stdout = String::from_utf8(run.get_output().stdout.clone()).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.contains("rollout.jsonl"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains(
            "none a request: its lines are Codex CLI's; import it with `simulate import codex …`"
        ),
        "{line}"
    );
}

/// Every file under `path` (or `path` itself).
fn walk(path: PathBuf) -> Vec<PathBuf> {
    if path.is_dir() {
        fs::read_dir(&path)
            .unwrap()
            .flat_map(|e| walk(e.unwrap().path()))
            .collect()
    } else {
        vec![path]
    }
}

/// A context that falls far below the previous request's with no compaction in the log
/// (here from 20,403 to 13,003 tokens, 36 %, at a new prompt) starts a new trace, said so
/// in the summary and in `[import]`; a small fall (21,403 to 20,403, 4.7 %: thinking
/// dropped at a turn's end, say) does not.
#[test]
fn an_unmarked_context_reset_starts_a_new_trace() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let report = import_json("claude-code", &["tests/fixtures/import/reset"], &out);
    let main = trace(&report, "shop-5e5e5e5e");
    assert_eq!(
        (main["trace"].as_str(), main["requests"].as_u64()),
        (Some("main"), Some(3))
    );
    assert!(main.get("reset").is_none());
    let after = trace(&report, "shop-5e5e5e5e-part2");
    assert_eq!(after["trace"], "after-reset");
    assert_eq!(after["part"], 2);
    assert_eq!(after["requests"], 2);
    assert_eq!(
        after["reset"],
        json!({"from_input_tokens": 20_403, "to_input_tokens": 13_003})
    );
    let text = fs::read_to_string(out.join("shop-5e5e5e5e-part2.toml")).unwrap();
    assert!(
        text.contains("trace = \"after-reset\"\npart = 2\nreset_from_input_tokens = 20403\nreset_to_input_tokens = 13003\n"),
        "{text}"
    );
    // It loads, and its first call is the request after the fall.
    let s = scenario(&out, "shop-5e5e5e5e-part2");
    assert_eq!(calls(&s)[0]["id"].as_str(), Some("req_R4"));
    simulate()
        .args(["import", "claude-code", "tests/fixtures/import/reset", "--force", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Traces started where the measured input fell with no compaction in the log (by more than 15 % and 5,000 tokens: a context reset), each a scenario of its own:\n  shop-5e5e5e5e-part2: 20,403 → 13,003 tokens at its first request\n",
        ));
}

/// A session whose usage is all zeros (a GLM model through a proxy that does not pass the
/// provider's usage on) is warned at import, marked in the JSON, and not fitted.
#[test]
fn a_session_whose_usage_is_all_zeros_is_warned_and_not_fitted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let assert = simulate()
        .args(["import", "claude-code", "tests/fixtures/import/zero-usage", "--fit", "--format", "json", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: shop-7a7a7a7a: every one of its 3 requests reports a usage of 0 tokens (input, cache and output; model glm-4.6): the log's usage is a placeholder",
        ));
    let report: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(trace(&report, "shop-7a7a7a7a")["zero_usage"], true);
    let fit = &report["fit"][0];
    assert_eq!(fit["status"], "not fitted");
    assert_eq!(
        fit["reason"],
        "every one of its 3 requests reports a usage of 0 tokens: the log's usage is a placeholder (seen from a model behind a proxy that does not pass the provider's usage on), so there is nothing to fit"
    );
    // A session with usage has no such mark.
    let other = import_json(
        "claude-code",
        &["tests/fixtures/import/reset"],
        &dir.path().join("o2"),
    );
    assert!(trace(&other, "shop-5e5e5e5e").get("zero_usage").is_none());
}

/// `import codex DIR` finds rollouts by their content, whatever their names (a rollout
/// renamed `codex-session.jsonl`), leaves other logs alone (a Claude Code transcript
/// beside them), and names a rollout of the older format (no `{timestamp, type, payload}`
/// lines, no token counts) as such, not as malformed lines.
#[test]
fn codex_rollouts_are_found_by_content_and_the_older_format_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let report = import_json(
        "codex",
        &["tests/fixtures/import/codex-renamed"],
        &dir.path().join("out"),
    );
    let names: Vec<&str> = report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shop-0199a4c5"]);
    assert_eq!(
        trace(&report, "shop-0199a4c5")["file"],
        "tests/fixtures/import/codex-renamed/codex-session.jsonl"
    );
    assert_eq!(report["malformed"].as_array().unwrap().len(), 0);
    let left = &report["files_without_requests"];
    assert_eq!(left.as_array().unwrap().len(), 1, "{left:#}");
    assert_eq!(
        left[0]["file"],
        "tests/fixtures/import/codex-renamed/older/2025-08-20.jsonl"
    );
    assert!(
        left[0]["note"]
            .as_str()
            .unwrap()
            .starts_with("a Codex CLI rollout of the older format (a bare session header"),
        "{left:#}"
    );
    assert_eq!(
        report["skipped"]["older Codex CLI format (no token counts)"],
        json!({"lines": 9, "known": true})
    );
    // Alone, it is an error that says what the file is, with nothing written.
    let out = dir.path().join("older");
    simulate()
        .args(["import", "codex", "tests/fixtures/import/codex-renamed/older", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no Codex CLI request found, nothing written: tests/fixtures/import/codex-renamed/older/2025-08-20.jsonl (9 lines: a Codex CLI rollout of the older format",
        ).and(predicate::str::contains("it logs no token counts, so it holds no request to import")));
    assert!(!out.exists());
}

/// A session too short to fit B and ρ (2 requests) still has its warm start written: the
/// first request read 12,000 of its 15,000 tokens from a cache other sessions kept warm,
/// so `import --fit` writes `[cache] warm_share = 0.8` of the import's B (15,000), and the
/// simulation reads those 12,000 instead of writing them (before: a cold start, the
/// simulated cost several times the measured on such subagents).
#[test]
fn a_trace_too_short_to_fit_keeps_its_warm_start() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args([
            "import",
            "claude-code",
            "tests/fixtures/import/short-warm",
            "--fit",
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let s = scenario(out.path(), "shop-e5e5e5e5");
    assert_eq!(s["base_tokens"].as_integer(), Some(15_000));
    let cache = s["cache"].as_table().unwrap();
    assert_eq!(cache["warm_share"].as_float(), Some(0.8));
    assert!(
        cache["warm_share_source"]
            .as_str()
            .unwrap()
            .starts_with("measured at import: the first request read 12,000 tokens from a cache already warm, of B = 15,000"),
        "{cache:?}"
    );
}
