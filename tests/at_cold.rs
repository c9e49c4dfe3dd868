//! `clear` and `compact` with `at = "cold"` (docs/model.md §9): a hand-made trace of five
//! calls of 1,000 bytes (B = 1,000, ρ = 1; read 0.1, write 1.25, TTL 300 s, min 0) whose
//! fourth call comes after a 400 s pause. The edits fire only there, with exact costs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use serde_json::Value;

fn run(file: &str) -> Value {
    let out = Command::cargo_bin("simulate")
        .unwrap()
        .args([file, "--no-write", "--format", "json"])
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn edit<'a>(j: &'a Value, name: &str) -> &'a Value {
    j["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
}

#[test]
fn a_cold_clearing_waits_for_the_pause_past_the_lifetime() {
    let j = run("tests/fixtures/edits/at_cold.toml");
    // Baseline: 1,250 + 1,350 + 1,450 + 5,000 (the pause expired the prefix) + 1,650.
    assert_eq!(j["baseline"]["cost"].as_f64().unwrap(), 10_700.0);
    // `older_than_calls = 1` clears before calls 3, 4 and 5; at = "cold" only before
    // call 4, clearing calls 1 and 2 (9-byte placeholders): call 4 writes 2,018 (2,522.5),
    // call 5 reads 2,018 and writes 1,000 (1,451.8): 4,050 + 2,522.5 + 1,451.8.
    let cold = edit(&j, "clear-cold");
    assert!(
        (cold["cost"].as_f64().unwrap() - 8_024.3).abs() < 1e-9,
        "{cold}"
    );
    assert_eq!(cold["total_tokens"].as_f64().unwrap(), 11_036.0);
    let every = edit(&j, "clear");
    assert!(
        (every["cost"].as_f64().unwrap() - 7_846.8).abs() < 1e-9,
        "{every}"
    );
    let before = |e: &Value| -> Vec<u64> {
        e["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["before_call"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(before(cold), vec![4]);
    assert_eq!(before(every), vec![3, 4, 5]);
    // The compaction above 2,500 tokens: before calls 3 and 5; cold, only before 4.
    assert_eq!(before(edit(&j, "compact")), vec![3, 5]);
    assert_eq!(before(edit(&j, "compact-cold")), vec![4]);
}

#[test]
fn at_takes_only_cold_and_not_with_the_providers_own_edits() {
    let text = std::fs::read_to_string("tests/fixtures/edits/at_cold.toml").unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (edit, want) in [
        (
            "clear = { older_than_calls = 1, at = \"warm\" }",
            "clear.at: \"warm\" is not a moment to act at: use at = \"cold\"",
        ),
        (
            "clear = { api = \"clear_tool_uses_20250919\", at = \"cold\" }",
            "at = \"cold\" cannot be given with api",
        ),
        (
            "compact = { preset = \"compact_20260112\", summary_tokens = 200, at = \"cold\" }",
            "at = \"cold\" cannot be given with the API's compaction",
        ),
    ] {
        let path = dir.path().join("s.toml");
        std::fs::write(&path, format!("{text}[[edit]]\nname = \"x\"\n{edit}\n")).unwrap();
        let out = Command::cargo_bin("simulate")
            .unwrap()
            .arg(&path)
            .arg("--no-write")
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(err.contains(want), "{err}");
    }
}

/// docs/model.md §3 and §9: a trigger that fired at a cold call with nothing to clear
/// stays armed and acts at the next cold call, though `after_gap_s` does not fire there
/// (its pause, 400 s, is past the 300 s lifetime but not past 1,000 s). B = 1,000, ρ = 1,
/// calls a, b (after 2,000 s), c, d (after 400 s) of 1,000 bytes, `keep_results = 1`:
/// before b only a stands, kept; before d, a and b are cleared (9-byte placeholders), so
/// d writes 2,018 (2,522.5): 1,250 + 2,500 + 1,450 + 2,522.5 = 7,722.5 against 10,200.
/// The binary lost the trigger after the empty attempt (found by tests/oracle.rs).
#[test]
fn a_cold_trigger_that_found_nothing_to_clear_stays_armed() {
    let j = run("tests/fixtures/oracle/cold_armed.toml");
    assert_eq!(j["baseline"]["cost"].as_f64().unwrap(), 10_200.0);
    let cold = edit(&j, "cold");
    assert!(
        (cold["cost"].as_f64().unwrap() - 7_722.5).abs() < 1e-9,
        "{cold}"
    );
    assert_eq!(cold["total_tokens"].as_f64().unwrap(), 8_018.0);
    let events = cold["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{cold}");
    assert_eq!(events[0]["before_call"], 4);
    assert_eq!(events[0]["cleared"], serde_json::json!(["a", "b"]));
    assert_eq!(events[0]["triggers"], serde_json::json!(["after_gap_s"]));
}
