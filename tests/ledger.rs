//! `simulate ledger`: the streamed table and JSON, their sources, alignment, and refusals.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use predicates::prelude::*;
use std::fmt::Write as _;
use std::fs;
use unicode_width::UnicodeWidthStr;

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = simulate().args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn the_header_names_where_b_and_rho_come_from() {
    let table = stdout(&["ledger", "tests/fixtures/good/trace.tsv"]);
    assert!(
        table.contains("base tokens B      30,000   assumed (default 30,000)\n"),
        "{table}"
    );
    assert!(
        table.contains("bytes/token ρ         3.3   assumed (default 3.3)\n"),
        "{table}"
    );
    let table = stdout(&["ledger", "tests/fixtures/good/trace.tsv", "--base", "20000"]);
    assert!(
        table.contains("base tokens B      20,000   assumed (--base on the command line)\n"),
        "{table}"
    );
    assert!(table.contains("assumed (default 3.3)"), "{table}");
}

#[test]
fn wide_labels_align_and_long_ones_are_cut_with_an_ellipsis() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("ja.tsv");
    let long = "設計メモ-".repeat(12);
    fs::write(
        &trace,
        format!("1\tcat 読む.md\t1000\n2\tcat notes.md\t2000000\n3\t{long}\t5\n"),
    )
    .unwrap();
    let table = stdout(&["ledger", trace.to_str().unwrap()]);
    let rows: Vec<&str> = table.lines().skip(4).take(4).collect();
    let widths: Vec<usize> = rows.iter().map(|r| r.width()).collect();
    assert!(
        widths.iter().all(|w| *w == widths[0]),
        "{widths:?}\n{table}"
    );
    assert!(
        rows[3].contains("設計メモ-設計") && rows[3].contains('…'),
        "{table}"
    );
    assert!(rows[2].contains("2,000,000"), "{table}");
    // The bytes column lines up under its header whatever the label's characters.
    let header_end = rows[0].find("bytes").unwrap() + "bytes".len();
    let column = rows[0][..header_end].width();
    for row in &rows[1..] {
        let before_bytes = row
            .split("  ")
            .filter(|f| !f.is_empty())
            .take(3)
            .collect::<Vec<_>>();
        let end = row.find(before_bytes[2]).unwrap() + before_bytes[2].len();
        assert_eq!(row[..end].width(), column, "{row}");
    }
}

#[test]
fn json_rows_stream_with_the_documented_fields() {
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "ledger",
        "tests/fixtures/good/trace.tsv",
        "--bpt",
        "1",
        "--base",
        "1000",
        "--format",
        "json",
    ]))
    .unwrap();
    // Contexts 1000, 46000, 48000.
    assert_eq!(v["total_tokens"], 95_000.0);
    assert_eq!(v["calls"], 3);
    assert_eq!(
        v["sources"]["bytes_per_token"],
        "assumed (--bpt on the command line)"
    );
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[1]["label"], "cat a.md+cat b.md");
    assert_eq!(rows[1]["call"], "2");
    assert_eq!(rows[2]["context_tokens"], 48_000.0);
    assert_eq!(rows[2]["cumulative_tokens"], 95_000.0);
    let keys: Vec<_> = rows[0].as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "bytes",
            "call",
            "context_tokens",
            "cumulative_tokens",
            "label",
            "output_tokens",
            "tokens"
        ]
    );
    // A trace without those columns gives none: null, not 0.
    assert!(rows[0]["tokens"].is_null() && rows[0]["output_tokens"].is_null());
}

#[test]
fn measured_tokens_from_a_tokens_column_join_the_context() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.tsv");
    fs::write(
        &trace,
        "# number\tlabel\tbytes\ttokens\toutput_tokens\n1\ta\t100\t50\t10\n2\tb\t\t7\t\n",
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "ledger",
        trace.to_str().unwrap(),
        "--base",
        "1000",
        "--bpt",
        "1",
        "--format",
        "json",
    ]))
    .unwrap();
    // Call 2 reads 1000 + 100 + 50 + 10.
    assert_eq!(v["rows"][1]["context_tokens"], 1160.0);
    assert_eq!(v["rows"][0]["tokens"], 50.0);
    assert_eq!(v["rows"][0]["output_tokens"], 10.0);
    assert!(v["rows"][1]["output_tokens"].is_null());
    // The table shows the given tokens beside the bytes, blank where a call gives none.
    let table = stdout(&[
        "ledger",
        trace.to_str().unwrap(),
        "--base",
        "1000",
        "--bpt",
        "1",
    ]);
    assert!(
        table.contains("call  label  bytes  tokens  output  context  cumulative"),
        "{table}"
    );
    assert!(
        table.contains("   2  b          0       7            1,160       2,160"),
        "{table}"
    );
}

#[test]
fn a_trace_out_of_order_is_printed_in_call_order() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.tsv");
    fs::write(&trace, "2\tb\t10\n1\ta\t5\n").unwrap();
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "ledger",
        trace.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(v["rows"][0]["label"], "a");
    assert_eq!(v["rows"][1]["label"], "b");
}

#[test]
fn a_bad_line_at_the_end_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.tsv");
    let mut text = String::new();
    for n in 1..=50_000 {
        writeln!(text, "{n}\tcmd {n}\t{n}").unwrap();
    }
    text.push_str("50001\tlast\tmany\n");
    fs::write(&trace, text).unwrap();
    simulate()
        .args(["ledger", trace.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("t.tsv:50001:12: bytes `many`"));
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.tsv");
    let mut text = String::new();
    for n in 1..=200_000 {
        writeln!(text, "{n}\tcmd {n}\t{n}").unwrap();
    }
    fs::write(&trace, text).unwrap();
    for format in ["table", "json"] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("simulate"))
            .args(["ledger", trace.to_str().unwrap(), "--format", format])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Read a little, as `head` would, then close the pipe.
        let mut first = [0u8; 100];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(child.stdout.take());
        // A printer and reader waiting on each other would hang here: fail instead.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("{format}: still running a minute after its reader closed the pipe");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}: {out:?}");
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
