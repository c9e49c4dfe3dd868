//! A TSV trace with optional columns drives a clearing scenario under the prompt cache.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;

#[test]
fn kind_segment_gap_and_tokens_columns_reach_the_clearing_and_the_cache() {
    let out = tempfile::tempdir().unwrap();
    let done = Command::cargo_bin("simulate")
        .unwrap()
        .args([
            "tests/fixtures/good/columns.toml",
            "--no-charts",
            "--format",
            "json",
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&done.get_output().stdout).unwrap();
    // Call 1 gives measured tokens, not bytes.
    assert_eq!(v["measured_calls"], 1);
    let events = v["edits"][0]["events"].as_array().unwrap();
    // Segments 1..5: two tool-using segments complete before call 4 and again before 6.
    let before: Vec<_> = events
        .iter()
        .map(|e| e["before_call"].as_u64().unwrap())
        .collect();
    assert_eq!(before, [4, 6]);
    // The web_search result (call 1) is pinned by its kind and never cleared.
    let cleared: Vec<String> = events
        .iter()
        .flat_map(|e| e["cleared"].as_array().unwrap().iter())
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    assert_eq!(cleared, ["2", "3", "4"]);
    // gap_s 400 and 700 exceed the 300 s TTL: the cache expires and the whole prefix is
    // written again, so the same trace without gaps costs less.
    let dir = tempfile::tempdir().unwrap();
    let tsv = std::fs::read_to_string("tests/fixtures/good/columns.tsv").unwrap();
    let no_gaps: String = tsv
        .lines()
        .map(|l| match l.rsplit_once('\t') {
            Some((rest, _)) if !l.starts_with('#') => format!("{rest}\t\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(dir.path().join("columns.tsv"), no_gaps).unwrap();
    std::fs::copy(
        "tests/fixtures/good/columns.toml",
        dir.path().join("columns.toml"),
    )
    .unwrap();
    let done = Command::cargo_bin("simulate")
        .unwrap()
        .arg(dir.path().join("columns.toml"))
        .args(["--no-charts", "--format", "json", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let w: serde_json::Value = serde_json::from_slice(&done.get_output().stdout).unwrap();
    let (with_gaps, without) = (
        v["baseline"]["cost"].as_f64().unwrap(),
        w["baseline"]["cost"].as_f64().unwrap(),
    );
    assert!(with_gaps > without, "{with_gaps} vs {without}");
    assert_eq!(v["baseline"]["total_tokens"], w["baseline"]["total_tokens"]);
}
