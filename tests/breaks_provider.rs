//! The `provider` break class (docs/model.md §4, "Breaks"): a Claude Code session through
//! Amazon Bedrock in the logs' own shape (`msg_bdrk_` ids, no `requestId`), requests 6 s
//! apart whose reads are the cache points of older requests, as on the shared Bedrock logs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;

const LOGS: &str = "tests/fixtures/import/breaks-provider";

#[test]
fn reads_of_an_older_cache_point_or_of_none_while_one_is_held_are_the_providers() {
    let out = tempfile::tempdir().unwrap();
    Command::cargo_bin("simulate")
        .unwrap()
        .args(["import", "claude-code", LOGS, "--fit", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let csv = std::fs::read_to_string(out.path().join("breaks.csv")).unwrap();
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let got: Vec<(usize, String, f64)> = r
        .records()
        .map(|x| {
            let x = x.unwrap();
            (
                x[1].parse().unwrap(),
                x[4].to_string(),
                x[9].parse().unwrap(),
            )
        })
        .filter(|(call, _, _)| *call > 1)
        .collect();
    // Points (read + written): 20,000, 22,000, 24,000, 26,000, 28,000, 30,000, …
    // Request 4 reads request 2's 22,000 of 24,010; request 5 reads nothing while request
    // 6 reads request 3's 24,000 (still held; 5 wrote 28,000); request 8 reads 10,500, no
    // point of the log.
    assert_eq!(
        got,
        vec![
            (4, "provider".to_string(), 2_010.0),
            (5, "provider".to_string(), 26_010.0),
            (6, "provider".to_string(), 4_010.0),
            (8, "unexplained".to_string(), 21_510.0),
        ],
        "{csv}"
    );
}
