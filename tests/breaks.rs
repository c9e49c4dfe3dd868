//! Cache forensics (docs/model.md §4, "Breaks"): a Claude Code session in the logs' own
//! shape with a break of each class the log can show (cold, ttl, model, edit, unexplained,
//! compaction), imported with `--fit`: `breaks.csv`, the JSON and the tables give each
//! break its class and its exact price; `history` sums them by class.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

const LOGS: &str = "tests/fixtures/import/breaks";

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

fn import(out: &Path) -> Value {
    let assert = simulate()
        .args([
            "import",
            "claude-code",
            LOGS,
            "--fit",
            "--format",
            "json",
            "--out",
        ])
        .arg(out)
        .assert()
        .success();
    serde_json::from_slice(&assert.get_output().stdout).unwrap()
}

/// `(session, call, class, written_tokens, cost_input_tokens, usd)` of each row.
fn rows(csv: &str) -> Vec<(String, usize, String, f64, f64, f64)> {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    r.records()
        .map(|x| {
            let x = x.unwrap();
            (
                x[col("session")].to_string(),
                x[col("call")].parse().unwrap(),
                x[col("class")].to_string(),
                x[col("written_tokens")].parse().unwrap(),
                x[col("cost_input_tokens")].parse().unwrap(),
                x[col("usd")].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_break_of_a_session_gets_its_class_and_its_price() {
    let out = tempfile::tempdir().unwrap();
    import(out.path());
    let csv = std::fs::read_to_string(out.path().join("breaks.csv")).unwrap();
    let rows = rows(&csv);
    let classes: Vec<(usize, &str)> = rows.iter().map(|r| (r.1, r.2.as_str())).collect();
    assert_eq!(
        classes,
        vec![
            (1, "cold"),
            (4, "ttl"),
            (6, "model"),
            (7, "model"),
            (9, "edit"),
            (11, "unexplained"),
            (1, "compaction"),
        ],
        "{csv}"
    );
    // Within the trace a perfect cache reads the previous request's input: after the
    // 600 s pause 22,003 tokens were written again; at the switch to Haiku 24,003, and
    // back 25,003; where the input fell to 24,003 (a microcompact) 4,003 of them; and
    // 4,903 (it read 20,100 tokens, no cache point of the log) with nothing in the log to say why.
    let written: Vec<f64> = rows[1..6].iter().map(|r| r.3).collect();
    assert_eq!(
        written,
        vec![22_003.0, 24_003.0, 25_003.0, 4_003.0, 4_903.0]
    );
    // Priced at write − read = 1.25 − 0.1 of each request's model (5-minute writes), in
    // its input tokens and at its input price: Sonnet 4.5's $3, Haiku 4.5's $1 a million
    // (the price data's list prices).
    for r in &rows[1..6] {
        assert!((r.4 - r.3 * 1.15).abs() < 1e-6, "{r:?}");
    }
    let usd: Vec<f64> = rows[1..6].iter().map(|r| r.5).collect();
    let want = [
        22_003.0 * 1.15 * 3.0,
        24_003.0 * 1.15 * 1.0,
        25_003.0 * 1.15 * 3.0,
        4_003.0 * 1.15 * 3.0,
        4_903.0 * 1.15 * 3.0,
    ];
    for (g, w) in usd.iter().zip(want) {
        assert!((g - w / 1e6).abs() < 1e-12, "{usd:?}");
    }
}

#[test]
fn fit_prints_the_breaks_by_class_and_the_largest() {
    let out = tempfile::tempdir().unwrap();
    let report = import(out.path());
    let first = report["traces"][0]["scenario"]
        .as_str()
        .unwrap()
        .to_string();
    let assert = simulate().arg("fit").arg(&first).assert().success();
    let text = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("cache breaks        6 of 12 requests"),
        "{text}"
    );
    assert!(
        text.contains("    ttl              1        22,003 tokens written"),
        "{text}"
    );
    assert!(
        text.contains("    model            2        49,006 tokens written"),
        "{text}"
    );
    assert!(
        text.contains("$0.2895; unexplained 4.9 % of the tokens"),
        "{text}"
    );
    assert!(
        text.contains("call 4 (Read: /home/dev/shop/f4.txt) after a pause of 601 s: ttl, 22,003 tokens written of 22,003 a perfect cache would read, $0.0759"),
        "{text}"
    );
    let assert = simulate()
        .args(["fit", "--format", "json"])
        .arg(&first)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(v["breaks"]["breaks"].as_array().unwrap().len(), 6);
    assert_eq!(v["breaks"]["breaks"][1]["class"], "ttl");
}

#[test]
fn history_sums_the_breaks_by_class_and_writes_each() {
    let out = tempfile::tempdir().unwrap();
    import(out.path());
    let hist = tempfile::tempdir().unwrap();
    let assert = simulate()
        .arg("history")
        .arg(out.path())
        .args([
            "--edits",
            "scenarios/history/edits.toml",
            "--format",
            "json",
            "--out",
        ])
        .arg(hist.path())
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let by_class = v["measured"]["breaks"].as_array().unwrap();
    let sum = |class: &str| {
        by_class
            .iter()
            .find(|c| c[0] == class)
            .map(|c| c[1]["count"].as_u64().unwrap())
            .unwrap()
    };
    assert_eq!(
        (
            sum("ttl"),
            sum("model"),
            sum("edit"),
            sum("unexplained"),
            sum("compaction"),
            sum("cold")
        ),
        (1, 2, 1, 1, 1, 1)
    );
    let csv = std::fs::read_to_string(hist.path().join("breaks.csv")).unwrap_or_else(|_| {
        // The history's own folder is named after it; find breaks.csv under it.
        let dir = std::fs::read_dir(hist.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        std::fs::read_to_string(dir.join("breaks.csv")).unwrap()
    });
    assert_eq!(rows(&csv).len(), 7);
}
