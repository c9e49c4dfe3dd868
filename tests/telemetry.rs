//! `simulate telemetry`: per-metric denominators on the three-row demo, and strict input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use predicates::prelude::*;
use std::fs;

const DEMO: &str = "tests/fixtures/telemetry/demo.jsonl";

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

#[test]
fn the_demo_means_are_900_1050_and_2050_each_over_2_of_3_rows() {
    simulate()
        .args(["telemetry", DEMO, "--unit", "demo_count"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains(
                "3 rows, 2 with telemetry; unit: demo_count (declared with --unit)",
            )
            .and(predicate::str::contains(
                "  compact_total                   900  demo_count  on 2 of 3 rows\n",
            ))
            .and(predicate::str::contains(
                "  real_total                    1,050  demo_count  on 2 of 3 rows\n",
            ))
            .and(predicate::str::contains(
                "  reader_calls[].prompt_tokens  2,050  demo_count  on 2 of 3 rows\n",
            ))
            .and(predicate::str::contains("not\nread as 0")),
        );
    let out = simulate()
        .args([
            "telemetry",
            DEMO,
            "--unit",
            "demo_count",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["rows_total"], 3);
    assert_eq!(v["rows_with_telemetry"], 2);
    let means: Vec<_> = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mean"].as_f64().unwrap(),
                m["rows_measured"].as_u64().unwrap(),
                m["rows_total"].as_u64().unwrap(),
                m["unit"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        means,
        [
            (900.0, 2, 3, "demo_count".to_string()),
            (1050.0, 2, 3, "demo_count".to_string()),
            (2050.0, 2, 3, "demo_count".to_string())
        ]
    );
}

#[test]
fn the_unit_is_required() {
    simulate()
        .args(["telemetry", DEMO])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--unit"));
    simulate()
        .args(["telemetry", DEMO, "--unit", " "])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "command line: --unit: give the unit",
        ));
}

/// Each strict rule: the line, the file and the key are named, exit 2, nothing printed.
#[test]
fn bad_rows_are_refused_naming_file_line_and_key() {
    let cases = [
        (
            "[1, 2]\n",
            "bad.jsonl:2:1: expected a JSON object, found a list",
        ),
        (
            "{\"telemetry\": {\"real_total\": -3}}\n",
            "bad.jsonl:2:16: telemetry.real_total: `-3` is not a count (a whole number ≥ 0)",
        ),
        (
            "{\"telemetry\": {\"compact_total\": 12.5}}\n",
            "bad.jsonl:2:16: telemetry.compact_total: `12.5` is not a count",
        ),
        (
            "{\"telemetry\": {\"reader_calls\": 5}}\n",
            "bad.jsonl:2:16: telemetry.reader_calls: expected a list of calls, found a number",
        ),
        (
            "{\"telemetry\": {\"reader_calls\": [{\"site\": \"answer\"}]}}\n",
            "bad.jsonl:2:16: telemetry.reader_calls[0].prompt_tokens: missing",
        ),
        ("{\"telemetry\": \n", "bad.jsonl:2:"),
    ];
    for (second_line, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.jsonl");
        fs::write(
            &path,
            format!("{{\"telemetry\": {{\"real_total\": 1}}}}\n{second_line}"),
        )
        .unwrap();
        simulate()
            .args(["telemetry", path.to_str().unwrap(), "--unit", "u"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(expected));
    }
}

#[test]
fn blank_lines_are_skipped_and_an_empty_log_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    fs::write(&path, "\n{\"telemetry\": {\"real_total\": 4}}\n\n   \n{}\n").unwrap();
    simulate()
        .args(["telemetry", path.to_str().unwrap(), "--unit", "u"])
        .assert()
        .success()
        .stdout(predicate::str::contains("2 rows, 1 with telemetry"));
    fs::write(&path, "\n\n").unwrap();
    simulate()
        .args(["telemetry", path.to_str().unwrap(), "--unit", "u"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("t.jsonl: the log has no rows"));
}

/// Strict: a misspelt count is an error naming it, not a row silently "not measured".
#[test]
fn a_misspelt_count_is_refused_with_the_nearest_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, "{\"telemetry\":{\"compact_totl\":1}}\n").unwrap();
    assert_cmd::Command::cargo_bin("simulate")
        .unwrap()
        .args(["telemetry", "--unit", "tokens"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "t.jsonl:1:15: telemetry.compact_totl: unknown count `compact_totl`",
        ))
        .stderr(predicates::str::contains("did you mean `compact_total`?"));
}
