//! The `tools` and `edit` break classes as a Claude Code log shows them (docs/model.md §4,
//! "Breaks"): a 2.1.x session whose tool search loads two tool definitions
//! (`tool_reference` results) before a request that reads nothing, and a prompt after
//! which the measured input fell by 300 tokens, less than the 1,024 of a break, with no
//! thinking the API could have dropped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;

const LOGS: &str = "tests/fixtures/import/breaks-tools";

#[test]
fn loaded_tool_definitions_and_a_fallen_input_explain_their_breaks() {
    let out = tempfile::tempdir().unwrap();
    Command::cargo_bin("simulate")
        .unwrap()
        .args(["import", "claude-code", LOGS, "--fit", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let csv = std::fs::read_to_string(out.path().join("breaks.csv")).unwrap();
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let got: Vec<(usize, String, f64, f64, f64, f64)> = r
        .records()
        .map(|x| {
            let x = x.unwrap();
            (
                x[1].parse().unwrap(),
                x[4].to_string(),
                x[8].parse().unwrap(),
                x[9].parse().unwrap(),
                x[10].parse().unwrap(),
                x[11].parse().unwrap(),
            )
        })
        .filter(|r| r.0 > 1)
        .collect();
    // Totals 20,010, 22,010, 24,010, 25,010, 24,710, 25,710. Request 3, the first to carry
    // the loaded definitions, read nothing of request 2's 22,010; request 5 read 10,000 of
    // 24,710 after its input fell from 25,010. Priced at Sonnet 4.5's write − read
    // (1.25 − 0.1) and $3 a million input tokens.
    let want = [(3, "tools", 0.0, 22_010.0), (5, "edit", 10_000.0, 14_710.0)];
    assert_eq!(got.len(), want.len(), "{csv}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0, g.1.as_str(), g.2, g.3), w, "{csv}");
        assert!((g.4 - w.3 * 1.15).abs() < 1e-6, "{csv}");
        assert!((g.5 - w.3 * 1.15 * 3.0 / 1e6).abs() < 1e-12, "{csv}");
    }
}
