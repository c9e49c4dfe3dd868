//! `simulate import otel`: an OpenTelemetry Collector's file output of Claude Code's events
//! in, exact scenarios out. The fixtures (`tests/fixtures/import/otel/make.py` says how
//! they were made and what each session holds) are hand-written in the documented shape:
//! two users' sessions and a third interleaved in one collector's output, rotated once;
//! a compaction; MCP tools with and without their names; a subagent; an export line
//! written twice; a gzip copy; malformed lines and records.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use predicates::prelude::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use simulate::import::trace::Reset;
use simulate::import::{Format, files, load};
use std::fs;
use std::path::Path;
use support::simulate;

const COLLECTOR: &str = "tests/fixtures/import/otel/collector";
const ROTATED: &str = "tests/fixtures/import/otel/collector/claude-2026-05-04T10-01-00.000.json";
const CURRENT: &str = "tests/fixtures/import/otel/collector/claude.json";
const ARCHIVE: &str = "tests/fixtures/import/otel/archive";
const ALICE: &str = "3f1c9e0a7b2d4c6e";
const BOB: &str = "9e7d5b3a1c0f2e4d";
const ACME: &str = "7a9e3c1d-0000-4b2a-9c8d-acme00000001";

fn import_json(paths: &[&str], out: &Path) -> Value {
    let assert = simulate()
        .args(["import", "otel"])
        .args(paths)
        .arg("--out")
        .arg(out)
        .args(["--format", "json"])
        .assert()
        .success();
    serde_json::from_slice(&assert.get_output().stdout).unwrap()
}

fn scenario(out: &Path, name: &str) -> toml::Table {
    let text = fs::read_to_string(out.join(format!("{name}.toml"))).unwrap();
    toml::from_str(&text).unwrap()
}

fn calls(s: &toml::Table) -> &Vec<toml::Value> {
    s["call"].as_array().unwrap()
}

fn column<'a>(s: &'a toml::Table, key: &str) -> Vec<&'a toml::Value> {
    calls(s).iter().map(|c| &c[key]).collect()
}

fn strings(values: Vec<&toml::Value>) -> Vec<&str> {
    values.into_iter().map(|v| v.as_str().unwrap()).collect()
}

fn integers(values: Vec<&toml::Value>) -> Vec<i64> {
    values
        .into_iter()
        .map(|v| v.as_integer().unwrap())
        .collect()
}

#[test]
fn sessions_are_gathered_across_files_with_exact_counts_and_sums() {
    let out = tempfile::tempdir().unwrap();
    let report = import_json(&[COLLECTOR], out.path());
    assert_eq!(report["format"], "otel");
    assert_eq!(report["convention"], "anthropic");
    let rows: Vec<Value> = report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            json!([
                t["name"],
                t["trace"],
                t["part"],
                t["requests"],
                t["duplicates_removed"],
                t["malformed_lines"],
                t["usage"]["input_tokens"],
                t["usage"]["cache_creation_input_tokens"],
                t["usage"]["cache_read_input_tokens"],
                t["usage"]["output_tokens"],
                t["user_id"],
                t["organization_id"]
            ])
        })
        .collect();
    // Each session is one trace (a compaction starts its next), though its events are
    // spread over two files and interleaved with the others'; the export line written
    // twice is removed from A's first trace (2 requests) and B's (1).
    assert_eq!(
        rows,
        [
            json!([
                "session-a1b2c3d4",
                "main",
                1,
                4,
                2,
                0,
                30,
                17_883,
                49_449,
                505,
                ALICE,
                ACME
            ]),
            json!([
                "session-a1b2c3d4-part2",
                "after-compaction",
                2,
                2,
                0,
                1,
                16,
                3_064,
                26_910,
                200,
                ALICE,
                ACME
            ]),
            json!([
                "session-b5e6f7a8",
                "main",
                1,
                4,
                1,
                0,
                36,
                16_695,
                44_410,
                650,
                BOB,
                ACME
            ]),
            json!([
                "session-c9d0e1f2",
                "main",
                1,
                1,
                0,
                0,
                3,
                9_000,
                0,
                40,
                null,
                null
            ]),
        ]
    );
    // A session is named after the file of its first event; the current file, which only
    // goes on with sessions of the rotated one, is no file "without a request".
    for t in report["traces"].as_array().unwrap() {
        assert_eq!(t["file"], ROTATED);
    }
    assert_eq!(report["files_without_requests"], json!([]));
    assert!(
        report["bytes_unit"]
            .as_str()
            .unwrap()
            .starts_with("UTF-16 code units")
    );

    // What was not imported, by event.
    let skipped = &report["skipped"];
    for (kind, lines) in [
        ("claude_code.api_request (a subagent's: not imported)", 2),
        ("claude_code.tool_result (a subagent's: not imported)", 1),
        (
            "claude_code.api_request (query_source compact: not the conversation)",
            1,
        ),
        (
            "claude_code.api_request (query_source prompt_suggestion: not the conversation)",
            1,
        ),
        ("claude_code.tool_decision", 1),
        ("claude_code.api_error", 1),
        ("resourceMetrics (a metrics export, not logs)", 1),
    ] {
        assert_eq!(
            skipped[kind],
            json!({"lines": lines, "known": true}),
            "{kind}"
        );
    }
    assert_eq!(skipped.as_object().unwrap().len(), 7, "{skipped:#}");

    // A line that is not JSON, a record that cannot be read (named with its line and its
    // place in it, and counted in its session's trace), a cut last line.
    let malformed: Vec<(String, u64, String)> = report["malformed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["file"].as_str().unwrap().to_string(),
                m["line"].as_u64().unwrap(),
                m["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(malformed.len(), 3, "{malformed:?}");
    assert_eq!((malformed[0].0.as_str(), malformed[0].1), (CURRENT, 4));
    assert!(malformed[0].2.starts_with("not valid JSON"));
    assert_eq!((malformed[1].0.as_str(), malformed[1].1), (CURRENT, 8));
    assert!(malformed[1].2.starts_with("truncated last line"));
    assert_eq!((malformed[2].0.as_str(), malformed[2].1), (CURRENT, 7));
    assert_eq!(
        malformed[2].2,
        "log record 4 of the line: claude_code.api_request: `input_tokens` is not a whole number ≥ 0 (lots)"
    );
    let part2 = &report["traces"][1]["malformed"];
    assert_eq!(part2[0]["line"], 7);
}

#[test]
fn calls_carry_bytes_labels_tools_kinds_segments_and_gaps() {
    let out = tempfile::tempdir().unwrap();
    import_json(&[COLLECTOR], out.path());

    // A, with OTEL_LOG_TOOL_DETAILS=1: the MCP tool by its server and tool names, the
    // command and the paths in the labels, the inputs hashed.
    let a = scenario(out.path(), "session-a1b2c3d4");
    assert_eq!(
        strings(column(&a, "id")),
        ["req_011A01", "req_011A02", "req_011A03", "req_011A04"]
    );
    assert_eq!(
        strings(column(&a, "label")),
        [
            "Read: /src/app/main.rs",
            "mcp__github__search_issues: flaky test",
            "Bash: cargo test --quiet (+1 more)",
            "prompt: /compact"
        ]
    );
    assert_eq!(
        calls(&a)
            .iter()
            .map(|c| c.get("tool").and_then(toml::Value::as_str).unwrap_or("-"))
            .collect::<Vec<_>>(),
        ["Read", "mcp__github__search_issues", "Bash", "-"]
    );
    // tool_result_size_bytes of the results after each request (Bash 312 + Grep 90), and
    // the /compact prompt's length.
    assert_eq!(integers(column(&a, "bytes")), [4_800, 2_202, 402, 8]);
    assert_eq!(
        strings(column(&a, "kind")),
        ["tool", "tool", "tool", "prompt"]
    );
    assert_eq!(integers(column(&a, "segment")), [1, 1, 1, 1]);
    let gaps: Vec<f64> = column(&a, "gap_s")
        .into_iter()
        .map(|g| {
            g.as_float()
                .unwrap_or_else(|| g.as_integer().unwrap() as f64)
        })
        .collect();
    assert_eq!(gaps, [0.0, 4.5, 51.0, 7.0]);
    // tool_input_size_bytes plus the tool's name: `{"file_path":"/src/app/main.rs"}` is 32.
    assert_eq!(calls(&a)[0]["tool_input_bytes"].as_integer(), Some(36));
    assert_eq!(integers(column(&a, "output_tokens")), [210, 95, 140, 60]);
    // The output joins as its tokens: the telemetry has no text of the model's message.
    assert!(calls(&a).iter().all(|c| c.get("output_bytes").is_none()));
    let m = &calls(&a)[1]["measured"];
    assert_eq!(m["input_tokens"].as_integer(), Some(8));
    assert_eq!(m["cache_creation_input_tokens"].as_integer(), Some(1_802));
    assert_eq!(m["cache_read_input_tokens"].as_integer(), Some(15_000));
    assert_eq!(m["convention"].as_str(), Some("anthropic"));
    assert!(m.get("cache_creation_1h_input_tokens").is_none());
    assert_eq!(a["base_tokens"].as_integer(), Some(15_000));
    assert_eq!(a["cache"]["preset"].as_str(), Some("claude-sonnet-4-5"));

    // After the manual compaction: the prompt before its first request is part of its
    // base; an Edit, then the answer.
    let a2 = scenario(out.path(), "session-a1b2c3d4-part2");
    assert_eq!(
        strings(column(&a2, "label")),
        ["Edit: /src/app/main.rs", "answer"]
    );
    assert_eq!(integers(column(&a2, "bytes")), [150, 0]);
    assert_eq!(a2["base_tokens"].as_integer(), Some(14_910));

    // B, without tool details: the MCP tool only as `mcp_tool`; the subagent's requests and
    // its Glob are not the conversation's, the Agent tool's result is; a web fetch is
    // pinned; the failed Bash joins as its error text (24 bytes).
    let b = scenario(out.path(), "session-b5e6f7a8");
    assert_eq!(
        strings(column(&b, "label")),
        ["Agent", "mcp_tool", "WebFetch (+1 more)", "answer"]
    );
    assert_eq!(integers(column(&b, "bytes")), [900, 5_000, 3_024, 0]);
    assert_eq!(
        strings(column(&b, "kind")),
        ["tool", "tool", "web_search", "tool"]
    );
    // Without the tool input no two uses hash alike.
    let hashes: Vec<&str> = calls(&b)[..3]
        .iter()
        .map(|c| c["input_hash"].as_str().unwrap())
        .collect();
    assert!(hashes[0] != hashes[1] && hashes[1] != hashes[2]);
}

#[test]
fn users_organisations_compactions_and_the_unit_are_written() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args(["import", "otel", COLLECTOR, "--out"])
        .arg(out.path())
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Imported 4 traces from 1 Claude Code (OpenTelemetry) file.",
        ))
        .stdout(predicate::str::contains(
            "Bytes (what joined the context) are UTF-16 code units of each result as Claude Code sent it",
        ))
        .stdout(predicate::str::contains(
            "claude.json:7: log record 4 of the line",
        ));
    for (name, user) in [
        ("session-a1b2c3d4", Some(ALICE)),
        ("session-a1b2c3d4-part2", Some(ALICE)),
        ("session-b5e6f7a8", Some(BOB)),
        ("session-c9d0e1f2", None),
    ] {
        let s = scenario(out.path(), name);
        let i = s["import"].as_table().unwrap();
        assert_eq!(i["format"].as_str(), Some("otel"));
        assert_eq!(i.get("user_id").and_then(|v| v.as_str()), user, "{name}");
        assert_eq!(
            i.get("organization_id").and_then(|v| v.as_str()),
            user.map(|_| ACME),
            "{name}"
        );
        let text = fs::read_to_string(out.path().join(format!("{name}.toml"))).unwrap();
        assert!(
            text.contains("# The unit of `bytes` here: UTF-16 code units of each result as Claude Code sent it"),
            "{text}"
        );
        assert!(
            s["description"]
                .as_str()
                .unwrap()
                .contains("; bytes are UTF-16 code units")
        );
    }
    let i = &scenario(out.path(), "session-a1b2c3d4-part2")["import"];
    assert_eq!(i["compaction_trigger"].as_str(), Some("manual"));
    assert_eq!(i["compaction_pre_tokens"].as_integer(), Some(17_976));
    assert_eq!(i["compaction_post_tokens"].as_integer(), Some(2_100));
    assert!(i.get("compaction_summary_bytes").is_none());
    assert_eq!(i["malformed_lines"].as_integer(), Some(1));
}

#[test]
fn a_gzip_copy_reads_as_its_file_and_adds_nothing() {
    let plain = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    import_json(&[ROTATED], plain.path());
    import_json(&[ARCHIVE], packed.path());
    let without_file = |dir: &Path, name: &str| -> String {
        fs::read_to_string(dir.join(name))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("file = "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let names = support::names(plain.path());
    assert_eq!(
        names,
        [
            "session-a1b2c3d4.toml",
            "session-b5e6f7a8.toml",
            "session-c9d0e1f2.toml"
        ]
    );
    assert_eq!(support::names(packed.path()), names);
    for n in &names {
        assert_eq!(
            without_file(plain.path(), n),
            without_file(packed.path(), n)
        );
    }

    // The copy beside the files it copies: the same calls and sums; its requests are
    // counted as duplicates.
    let alone = tempfile::tempdir().unwrap();
    let both = tempfile::tempdir().unwrap();
    let a = import_json(&[COLLECTOR], alone.path());
    let b = import_json(&[COLLECTOR, ARCHIVE], both.path());
    let summary = |r: &Value| -> Vec<Value> {
        r["traces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                json!([
                    t["name"],
                    t["requests"],
                    t["usage"],
                    t["duplicates_removed"]
                ])
            })
            .collect()
    };
    let (a, b) = (summary(&a), summary(&b));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.as_array().unwrap()[..3], y.as_array().unwrap()[..3]);
    }
    // Added: A's 2 and B's 1 requests of the rotated file, and C's 1.
    let added: Vec<u64> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| y[3].as_u64().unwrap() - x[3].as_u64().unwrap())
        .collect();
    assert_eq!(added, [2, 0, 1, 1]);
    for name in support::names(alone.path()) {
        let calls_of = |dir: &Path| scenario(dir, name.trim_end_matches(".toml"))["call"].clone();
        assert_eq!(calls_of(alone.path()), calls_of(both.path()), "{name}");
    }
}

#[test]
fn imported_sessions_fit_and_run() {
    let out = tempfile::tempdir().unwrap();
    import_json(&[COLLECTOR], out.path());
    // A's usage was written from B = 15,000 and ρ = 3 (units per token), B's from 14,000
    // and 4: the fit gives them back.
    for (name, b, rho) in [
        ("session-a1b2c3d4", "15,000", "3"),
        ("session-b5e6f7a8", "14,000", "4"),
    ] {
        let path = out.path().join(format!("{name}.toml"));
        let fit = simulate().arg("fit").arg(&path).assert().success();
        let text = String::from_utf8(fit.get_output().stdout.clone()).unwrap();
        assert!(
            text.contains(&format!("base tokens B           {b} ± 0")),
            "{text}"
        );
        assert!(
            text.contains(&format!("bytes/token ρ                {rho} ± 0")),
            "{text}"
        );
        assert!(text.contains("R²                      1.0000"), "{text}");
        simulate()
            .arg("fit")
            .arg(&path)
            .arg("--write")
            .assert()
            .success();
        simulate()
            .arg(&path)
            .args(["--no-charts", "--out"])
            .arg(out.path().join("results"))
            .assert()
            .success();
    }
    // Every scenario runs, the short ones too.
    for name in ["session-a1b2c3d4-part2", "session-c9d0e1f2"] {
        simulate()
            .arg(out.path().join(format!("{name}.toml")))
            .args(["--no-charts", "--no-write"])
            .assert()
            .success();
    }

    // `import --fit` fits each as imported and writes the good fits.
    let fitted = tempfile::tempdir().unwrap();
    let run = simulate()
        .args(["import", "otel", COLLECTOR, "--fit", "--out"])
        .arg(fitted.path())
        .assert()
        .success();
    let stdout = String::from_utf8(run.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.contains("  2 of 4 fitted (2 written); R² ≥ 0.98 in 2;"),
        "{stdout}"
    );
    let a = scenario(fitted.path(), "session-a1b2c3d4");
    assert_eq!(a["base_tokens"].as_integer(), Some(15_000));
    assert_eq!(a["bytes_per_token"].as_float(), Some(3.0));
}

#[test]
fn written_scenarios_use_only_the_agreed_keys() {
    let out = tempfile::tempdir().unwrap();
    import_json(&[COLLECTOR], out.path());
    let import = [
        "format",
        "file",
        "session_id",
        "trace",
        "part",
        "requests",
        "duplicates_removed",
        "malformed_lines",
        "model",
        "convention",
        "compaction_trigger",
        "compaction_pre_tokens",
        "compaction_post_tokens",
        "user_id",
        "organization_id",
        "account_uuid",
        "team",
        "team_attribute",
    ];
    let call = [
        "id",
        "label",
        "tool",
        // The request's other tools: a part is used by a call using any of them.
        "other_tools",
        "kind",
        "bytes",
        "images",
        "segment",
        "gap_s",
        "output_tokens",
        "tool_input_bytes",
        "input_hash",
        "measured",
    ];
    for name in support::names(out.path()) {
        let s = scenario(out.path(), name.trim_end_matches(".toml"));
        for k in s["import"].as_table().unwrap().keys() {
            assert!(import.contains(&k.as_str()), "{name}: [import] {k}");
        }
        for c in calls(&s) {
            for k in c.as_table().unwrap().keys() {
                assert!(call.contains(&k.as_str()), "{name}: [[call]] {k}");
            }
        }
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let many = tempfile::tempdir().unwrap();
    let one = tempfile::tempdir().unwrap();
    import_json(&[COLLECTOR, ARCHIVE], many.path());
    simulate()
        .env("RAYON_NUM_THREADS", "1")
        .args(["import", "otel", COLLECTOR, ARCHIVE, "--out"])
        .arg(one.path())
        .assert()
        .success();
    assert_eq!(
        support::contents(many.path()),
        support::contents(one.path())
    );
}

#[test]
fn a_file_without_requests_is_refused_naming_it() {
    let out = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("metrics.json");
    fs::write(
        &bad,
        "{\"resourceMetrics\":[]}\nnot json\n{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"body\":{\"stringValue\":\"hello\"}}]}]}]}\n",
    )
    .unwrap();
    simulate()
        .args(["import", "otel"])
        .arg(&bad)
        .arg("--out")
        .arg(out.path().join("o"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no Claude Code (OpenTelemetry) request found, nothing written",
        ))
        .stderr(predicate::str::contains(
            "metrics.json (1 of 3 lines malformed",
        ));
    assert!(!out.path().join("o").exists());
    // A Claude Code transcript given to `import otel` is named for what it is.
    simulate()
        .args([
            "import",
            "otel",
            "tests/fixtures/import/claude-code/projects/-home-dev-shop/1a2b3c4d-1111-4222-8333-444455556666.jsonl",
            "--out",
        ])
        .arg(out.path().join("p"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "import it with `simulate import claude-code …`",
        ));
}

/// One record of a session, as the Collector writes it: `session.id`, `event.name`,
/// `event.sequence` and the attributes given, all as strings.
fn record(seq: u64, name: &str, attributes: &[(&str, &str)]) -> Value {
    let mut a = vec![
        json!({"key": "session.id", "value": {"stringValue": "s1"}}),
        json!({"key": "event.name", "value": {"stringValue": name}}),
        json!({"key": "event.sequence", "value": {"intValue": seq.to_string()}}),
    ];
    a.extend(
        attributes
            .iter()
            .map(|(k, v)| json!({"key": k, "value": {"stringValue": v}})),
    );
    json!({"attributes": a})
}

#[test]
fn an_out_of_range_count_costs_its_record_not_the_file() {
    // Issue 26 §5: one count above 1e15 (the most a scenario holds) made the whole file's
    // import exit 2, nothing written, naming a line of a scenario it never wrote.
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let file = dir.path().join("team.json");
    let records = vec![
        record(
            1,
            "api_request",
            &[
                ("input_tokens", "10"),
                ("output_tokens", "5"),
                ("request_id", "r1"),
            ],
        ),
        record(
            2,
            "tool_result",
            &[
                ("tool_name", "Bash"),
                ("tool_use_id", "t1"),
                ("tool_result_size_bytes", "2000000000000000"),
            ],
        ),
        record(
            3,
            "api_request",
            &[
                ("input_tokens", "1e16"),
                ("output_tokens", "5"),
                ("request_id", "r2"),
            ],
        ),
        record(
            4,
            "tool_result",
            &[
                ("tool_name", "Bash"),
                ("tool_use_id", "t2"),
                ("tool_result_size_bytes", "700"),
            ],
        ),
        record(
            5,
            "api_request",
            &[
                ("input_tokens", "20"),
                ("output_tokens", "5"),
                ("request_id", "r3"),
            ],
        ),
    ];
    let line = json!({"resourceLogs": [{"scopeLogs": [{"logRecords": records}]}]});
    fs::write(&file, format!("{line}\n")).unwrap();
    let report = import_json(&[file.to_str().unwrap()], &out.path().join("o"));
    let reasons: Vec<&str> = report["malformed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        [
            "log record 2 of the line: claude_code.tool_result: `tool_result_size_bytes` is 2000000000000000, above 1e15, the most a scenario holds (no real count is this large)",
            "log record 3 of the line: claude_code.api_request: `input_tokens` is 10000000000000000, above 1e15, the most a scenario holds (no real count is this large)",
        ]
    );
    let s = scenario(&out.path().join("o"), "session-s1");
    assert_eq!(strings(column(&s, "id")), ["r1", "r3"]);
    let measured: Vec<i64> = calls(&s)
        .iter()
        .map(|c| c["measured"]["input_tokens"].as_integer().unwrap())
        .collect();
    assert_eq!(measured, [10, 20]);
    // The result of the record kept joins after r1; the unreadable one adds nothing.
    assert_eq!(integers(column(&s, "bytes")), [700, 0]);
}

#[test]
fn the_help_says_how_such_files_are_made() {
    simulate()
        .args(["import", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("OTEL_LOGS_EXPORTER=otlp"))
        .stdout(predicate::str::contains("OTEL_LOG_TOOL_DETAILS=1"))
        .stdout(predicate::str::contains("file exporter"))
        .stdout(predicate::str::contains("UTF-16 code units"));
}

/// A request of a generated session: its usage, its tool result's size, whether it has a
/// request id, whether its export line is written twice.
#[derive(Debug, Clone)]
struct Gen {
    usage: [u64; 4],
    result: u64,
    request_id: bool,
}

fn gen_request() -> impl Strategy<Value = Gen> {
    (
        [0u64..50, 0u64..5_000, 0u64..60_000, 1u64..3_000],
        0u64..9_000,
        any::<bool>(),
    )
        .prop_map(|(usage, result, request_id)| Gen {
            usage,
            result,
            request_id,
        })
}

/// The records of session `s`: per request its api_request and its tool_result, numbered
/// by event.sequence, with whatever number encoding `ints` picks.
fn records(s: usize, requests: &[Gen], ints: bool) -> Vec<(usize, u64, Value)> {
    let num = |n: u64| {
        if ints {
            json!({"intValue": n.to_string()})
        } else {
            json!({"stringValue": n.to_string()})
        }
    };
    let mut out = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        let seq = 2 * i as u64 + 1;
        let [input, creation, read, output] = r.usage;
        let mut attributes = vec![
            json!({"key": "session.id", "value": {"stringValue": format!("s{s}")}}),
            json!({"key": "event.name", "value": {"stringValue": "api_request"}}),
            json!({"key": "event.sequence", "value": {"intValue": seq.to_string()}}),
            json!({"key": "input_tokens", "value": num(input)}),
            json!({"key": "cache_creation_tokens", "value": num(creation)}),
            json!({"key": "cache_read_tokens", "value": num(read)}),
            json!({"key": "output_tokens", "value": num(output)}),
        ];
        if r.request_id {
            attributes.push(
                json!({"key": "request_id", "value": {"stringValue": format!("req_{s}_{i}")}}),
            );
        }
        out.push((s, seq, json!({"attributes": attributes})));
        out.push((
            s,
            seq + 1,
            json!({"attributes": [
                {"key": "session.id", "value": {"stringValue": format!("s{s}")}},
                {"key": "event.name", "value": {"stringValue": "tool_result"}},
                {"key": "event.sequence", "value": {"intValue": (seq + 1).to_string()}},
                {"key": "tool_name", "value": {"stringValue": "Bash"}},
                {"key": "tool_use_id", "value": {"stringValue": format!("toolu_{s}_{i}")}},
                {"key": "tool_result_size_bytes", "value": num(r.result)},
            ]}),
        ));
    }
    out
}

/// (traces, requests, [input, creation, read, output], bytes, ids in order) of an import.
type Sums = (usize, usize, [u64; 4], u64, Vec<Vec<String>>);

fn sums(dir: &Path) -> Sums {
    let reader = Format::Otel.reader();
    let found = files::find(&[dir.to_path_buf()], |p| reader.is_log(p), "logs").unwrap();
    let a = load(reader, &found).unwrap().assembled;
    let mut requests = 0;
    let mut usage = [0; 4];
    let mut bytes = 0;
    let mut ids = Vec::new();
    for t in &a.traces {
        requests += t.calls.len();
        let u = t.usage();
        usage[0] += u.input_tokens;
        usage[1] += u.cache_creation_input_tokens.unwrap_or(0);
        usage[2] += u.cache_read_input_tokens;
        usage[3] += u.output_tokens;
        bytes += t.calls.iter().map(|c| c.bytes).sum::<u64>();
        ids.push(t.calls.iter().map(|c| c.id.clone()).collect());
    }
    ids.sort();
    (a.traces.len(), requests, usage, bytes, ids)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// However the collector batched, ordered, repeated and split the records of several
    /// sessions over files, each session is one trace of its requests in event.sequence
    /// order, with the sums of the requests as generated.
    #[test]
    fn batching_order_repeats_and_files_do_not_change_the_import(
        sessions in proptest::collection::vec(proptest::collection::vec(gen_request(), 1..8), 1..4),
        keys in proptest::collection::vec(any::<u32>(), 64),
        cuts in proptest::collection::vec(1usize..5, 64),
        repeats in proptest::collection::vec(any::<bool>(), 64),
        split in any::<u8>(),
        ints in any::<bool>(),
    ) {
        let mut all: Vec<(usize, u64, Value)> = sessions
            .iter()
            .enumerate()
            .flat_map(|(s, r)| records(s, r, ints))
            .collect();
        // Shuffled by the random keys (stable, so the shuffle is repeatable).
        let mut order: Vec<usize> = (0..all.len()).collect();
        order.sort_by_key(|&i| keys[i % keys.len()].wrapping_mul(i as u32 + 1));
        let shuffled: Vec<(usize, u64, Value)> = order.iter().map(|&i| all[i].clone()).collect();
        all = shuffled;
        // Batched into export lines, some written twice.
        let mut lines = Vec::new();
        let mut at = 0;
        let mut n = 0;
        while at < all.len() {
            let take = cuts[n % cuts.len()].min(all.len() - at);
            let batch: Vec<Value> = all[at..at + take].iter().map(|r| r.2.clone()).collect();
            let line = json!({"resourceLogs": [{"resource": {"attributes": []},
                "scopeLogs": [{"logRecords": batch}]}]}).to_string();
            if repeats[n % repeats.len()] {
                lines.push(line.clone());
            }
            lines.push(line);
            at += take;
            n += 1;
        }
        let dir = tempfile::tempdir().unwrap();
        let cut = usize::from(split) % (lines.len() + 1);
        fs::write(dir.path().join("a.json"), lines[..cut].join("\n") + "\n").unwrap();
        fs::write(dir.path().join("b.json"), lines[cut..].join("\n") + "\n").unwrap();

        let mut usage = [0u64; 4];
        let mut ids: Vec<Vec<String>> = Vec::new();
        for (s, requests) in sessions.iter().enumerate() {
            for r in requests {
                for (total, x) in usage.iter_mut().zip(r.usage) { *total += x; }
            }
            // A session is one trace, cut where its input falls far with no compaction
            // (a reset, docs/model.md §6.2), measured from the last request with input.
            let mut trace = Vec::new();
            let mut previous: Option<u64> = None;
            for (i, r) in requests.iter().enumerate() {
                let total = r.usage[0] + r.usage[1] + r.usage[2];
                if previous.is_some_and(|p| Reset::between(p, total).is_some()) {
                    ids.push(std::mem::take(&mut trace));
                    previous = None;
                }
                if total > 0 {
                    previous = Some(total);
                }
                trace.push(if r.request_id { format!("req_{s}_{i}") } else { format!("seq-{}", 2 * i + 1) });
            }
            ids.push(trace);
        }
        ids.sort();
        let requests: usize = sessions.iter().map(Vec::len).sum();
        let bytes: u64 = sessions.iter().flatten().map(|r| r.result).sum();
        prop_assert_eq!(sums(dir.path()), (ids.len(), requests, usage, bytes, ids));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the lines hold (pieces of real exports, other JSON, bytes that are not
    /// UTF-8), reading never panics and never fails, and every written scenario loads.
    #[test]
    fn any_lines_are_read_without_panic(
        picks in proptest::collection::vec((0usize..7, 0usize..4_000, any::<Vec<u8>>()), 0..30)
    ) {
        let real = fs::read(ROTATED).unwrap();
        let real_lines: Vec<&[u8]> = real.split(|b| *b == b'\n').collect();
        let mut text = Vec::new();
        for (kind, cut, noise) in picks {
            let line = real_lines[cut % real_lines.len()];
            match kind {
                0 => text.extend_from_slice(&line[..cut.min(line.len())]),
                1 => text.extend_from_slice(&noise),
                2 => text.extend_from_slice(br#"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"event.name","value":{"stringValue":"api_request"}},{"key":"input_tokens","value":{"doubleValue":-1}}]}]}]}]}"#),
                3 => text.extend_from_slice(br#"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"event.name","value":{"stringValue":"compaction"}},{"key":"session.id","value":{"intValue":"7"}}]},7,"x"]}]}]}"#),
                4 => text.extend_from_slice(br#"{"resourceLogs":{"no":"list"}}"#),
                _ => text.extend_from_slice(line),
            }
            text.push(b'\n');
        }
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("x.json"), &text).unwrap();
        let reader = Format::Otel.reader();
        let found = files::find(&[dir.path().join("x.json")], |p| reader.is_log(p), "logs").unwrap();
        let a = load(reader, &found).unwrap().assembled;
        for t in &a.traces {
            let scenario = simulate::import::write::render(t, reader);
            prop_assert!(simulate::scenario::load_str(&scenario, Path::new("x.toml")).is_ok(), "{}", scenario);
        }
    }
}
