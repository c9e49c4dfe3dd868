//! `simulate import otel` on trace spans: OpenTelemetry GenAI spans of several emitters,
//! and Claude Code's trace spans alone and beside its events (the fixtures'
//! `tests/fixtures/import/otel-spans/make.py` says what each holds). Exact sums; no
//! request counted twice; subagents by `agent_id`; accounts and teams for a history.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::Value;
use std::fs;
use std::path::Path;
use support::simulate;

const SPANS: &str = "tests/fixtures/import/otel-spans";

fn import(paths: &[&str], out: &Path) -> Value {
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

fn trace<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no trace {name}"))
}

fn calls(out: &Path, name: &str) -> Vec<toml::Value> {
    let text = fs::read_to_string(out.join(format!("{name}.toml"))).unwrap();
    let t: toml::Table = toml::from_str(&text).unwrap();
    t["call"].as_array().unwrap().clone()
}

fn ints(calls: &[toml::Value], key: &str) -> Vec<i64> {
    calls
        .iter()
        .map(|c| c.get(key).and_then(toml::Value::as_integer).unwrap_or(-1))
        .collect()
}

fn measured(calls: &[toml::Value], key: &str) -> Vec<i64> {
    calls
        .iter()
        .map(|c| c["measured"][key].as_integer().unwrap())
        .collect()
}

#[test]
fn genai_spans_of_every_naming_and_encoding_read_exactly() {
    let out = tempfile::tempdir().unwrap();
    let r = import(&[&format!("{SPANS}/genai")], out.path());
    // conv-1: the current names, numbers as strings; the cache taken out of the input.
    let t = trace(&r, "session-conv-1");
    assert_eq!(t["requests"], 2);
    let c = calls(out.path(), "session-conv-1");
    assert_eq!(measured(&c, "input_tokens"), [5000, 208]);
    assert_eq!(measured(&c, "cache_read_input_tokens"), [0, 4992]);
    assert_eq!(ints(&c, "bytes"), [11, 0]); // "rainy, 57°F": 11 UTF-16 units
    assert_eq!(c[0]["label"].as_str(), Some("get_weather: Paris"));
    assert_eq!(c[0]["id"].as_str(), Some("chatcmpl-1"));
    // conv-2: the older cache_creation name and the flat names, numbers as numbers; a
    // structured result measured by its strings.
    let c = calls(out.path(), "session-conv-2");
    assert_eq!(measured(&c, "input_tokens"), [1000, 100]);
    assert_eq!(measured(&c, "cache_creation_input_tokens"), [11000, 1400]);
    assert_eq!(measured(&c, "cache_read_input_tokens"), [0, 11000]);
    assert_eq!(ints(&c, "bytes"), [30, 0]);
    // conv-3: an input below its own cache counts leaves the cache out already.
    let c = calls(out.path(), "session-conv-3");
    assert_eq!(measured(&c, "input_tokens"), [30]);
    assert_eq!(measured(&c, "cache_read_input_tokens"), [4000]);
    // The run's summed usage on invoke_agent is no request; an HTTP span no GenAI span.
    let skipped = r["skipped"].to_string();
    assert!(skipped.contains("invoke_agent"), "{skipped}");
    assert!(skipped.contains("not a GenAI span"), "{skipped}");
    // Teams from the resource.
    assert_eq!(t["team"], "team.id=support");
}

#[test]
fn events_and_spans_of_one_session_count_each_request_once() {
    let out = tempfile::tempdir().unwrap();
    let r = import(&[&format!("{SPANS}/claude/mixed.json")], out.path());
    let main = trace(&r, "session-sess-lap");
    assert_eq!(main["requests"], 3);
    assert_eq!(main["duplicates_removed"], 0);
    assert_eq!(main["usage"]["input_tokens"], 10 + 5 + 6);
    assert_eq!(
        main["usage"]["cache_creation_input_tokens"],
        20000 + 1200 + 900
    );
    assert_eq!(main["account_uuid"], "acct-ana");
    assert_eq!(main["user_id"], "u-laptop");
    // The subagent's request, an event only its span can place, is a trace of its own.
    let sub = trace(&r, "session-sess-lap-agent-agent-7");
    assert_eq!(sub["trace"], "subagent");
    assert_eq!(sub["requests"], 1);
    assert_eq!(sub["usage"]["cache_creation_input_tokens"], 9000);
    // Its tool's size comes from the span's content (OTEL_LOG_TOOL_CONTENT=1).
    assert_eq!(
        ints(
            &calls(out.path(), "session-sess-lap-agent-agent-7"),
            "bytes"
        ),
        [25]
    );
    let c = calls(out.path(), "session-sess-lap");
    assert_eq!(ints(&c, "bytes"), [3000, 800, 0]);
    // Claude Code's own estimate of each request's dollars.
    assert_eq!(c[0]["measured"]["cost_usd"].as_float(), Some(0.078));
    let desktop = trace(&r, "session-sess-des");
    assert_eq!(desktop["requests"], 1);
    assert_eq!(desktop["user_id"], "u-desktop");
    assert_eq!(desktop["account_uuid"], "acct-ana");
    // Seven spans joined to their events (five requests, two tools), none counted again.
    let skipped = &r["skipped"]["span of a request or tool result also logged as an event (joined, counted once)"];
    assert_eq!(skipped["lines"], 7);
}

#[test]
fn claude_code_spans_alone_import_with_the_sizes_they_have() {
    let out = tempfile::tempdir().unwrap();
    let r = import(&[&format!("{SPANS}/claude/spans-only.json")], out.path());
    let t = trace(&r, "session-sess-spa");
    assert_eq!(t["requests"], 3);
    let c = calls(out.path(), "session-sess-spa");
    assert_eq!(ints(&c, "bytes"), [25, 0, 0]);
    assert_eq!(c[0]["label"].as_str(), Some("Bash: ls"));
    let no_size = &r["skipped"]["tool span without its result's content or event (size unknown, joined as 0)"];
    assert_eq!(no_size["lines"], 1);
    // No lifetime is logged for these writes: the summary says what was assumed, and what
    // the other lifetime would cost.
    let l = &r["cache_lifetime"];
    assert_eq!(l["tokens"], 18000 + 40 + 400);
    let five = l["usd_as_5_minute"].as_f64().unwrap();
    let hour = l["usd_as_1_hour"].as_f64().unwrap();
    // claude-sonnet-4-5: $3.75 and $6 per million written.
    assert!((five - 18_440.0 * 3.75 / 1e6).abs() < 1e-9, "{five}");
    assert!((hour - 18_440.0 * 6.0 / 1e6).abs() < 1e-9, "{hour}");
    assert!(
        r["cache_lifetime_note"]
            .as_str()
            .unwrap()
            .contains("assume 5-minute writes")
    );
}

#[test]
fn a_history_of_the_spans_groups_by_account_and_team() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = dir.path().join("s");
    import(&[SPANS], &scenarios);
    for (by, want) in [
        ("account", vec![("acct-ana", 4), ("unknown account", 3)]),
        (
            "team",
            vec![("platform", 4), ("research", 2), ("support", 1)],
        ),
        (
            "user",
            vec![("u-desktop", 1), ("u-laptop", 3), ("unknown user", 3)],
        ),
    ] {
        let out = dir.path().join(format!("o-{by}"));
        simulate()
            .arg("history")
            .arg(&scenarios)
            .args([
                "--edits",
                "tests/fixtures/history/team_edits.toml",
                "--group-by",
                by,
                "--out",
            ])
            .arg(&out)
            .assert()
            .success();
        let rows = support::rows(&out.join("s").join("groups.csv"));
        let mut got: Vec<(String, usize)> = Vec::new();
        for row in &rows {
            let g = row["group"].clone();
            let n = support::number(row, "sessions") as usize;
            if !got.iter().any(|(k, _)| *k == g) {
                got.push((g, n));
            }
        }
        got.sort();
        let want: Vec<(String, usize)> =
            want.into_iter().map(|(k, n)| (k.to_string(), n)).collect();
        assert_eq!(got, want, "--group-by {by}");
    }
}
