//! Input files that are not ordinary files, or too large, or nested too deep: each is
//! refused before it is read, with exit 2 and a message naming the file (and, for a
//! `calls_tsv` trace, the key and its line in the scenario).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use predicates::prelude::*;
use std::fs;
use std::path::Path;
use std::time::Duration;

fn simulate() -> Command {
    let mut c = Command::cargo_bin("simulate").unwrap();
    // A FIFO that is read instead of refused blocks forever: fail instead.
    c.timeout(Duration::from_secs(20));
    c
}

fn mkfifo(path: &Path) {
    let mode = rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR;
    rustix::fs::mkfifoat(rustix::fs::CWD, path, mode).unwrap();
}

#[test]
fn a_fifo_scenario_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("s.toml");
    mkfifo(&fifo);
    simulate()
        .arg(&fifo)
        .arg("--out")
        .arg(dir.path().join("out"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "s.toml: is a named pipe (FIFO), not a regular file",
        ));
    assert!(!dir.path().join("out").exists());
}

#[test]
fn a_fifo_trace_is_refused_at_the_calls_tsv_key() {
    let dir = tempfile::tempdir().unwrap();
    mkfifo(&dir.path().join("run.tsv"));
    let scenario = dir.path().join("s.toml");
    fs::write(
        &scenario,
        "name = \"s\"\nbase_tokens = 1\nbytes_per_token = 1\n\ncalls_tsv = \"run.tsv\"\n",
    )
    .unwrap();
    simulate()
        .arg(&scenario)
        .arg("--out")
        .arg(dir.path().join("out"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("s.toml:5:13: calls_tsv: ")
                .and(predicate::str::contains("run.tsv: is a named pipe (FIFO)")),
        );
    simulate()
        .arg("ledger")
        .arg(dir.path().join("run.tsv"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a named pipe (FIFO)"));
}

#[test]
fn a_device_is_refused_before_it_is_read() {
    simulate()
        .args(["ledger", "/dev/zero"])
        .assert()
        .code(2)
        .stderr("error: /dev/zero: is a device, not a regular file\n");
    simulate()
        .arg("/dev/zero")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a device"));
}

#[test]
fn a_scenario_over_8_mib_is_refused_pointing_to_calls_tsv() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.toml");
    fs::File::create(&path).unwrap().set_len(48 << 20).unwrap();
    simulate().arg(&path).assert().code(2).stderr(
        predicate::str::contains("long.toml: file is 50331648 bytes")
            .and(predicate::str::contains("8 MiB"))
            .and(predicate::str::contains("calls_tsv")),
    );
}

#[test]
fn a_key_nested_100_deep_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.toml");
    fs::write(&path, format!("name = \"x\"\n{}b = 1\n", "a.".repeat(100))).unwrap();
    simulate()
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "deep.toml:2:1: this key is nested 101 levels deep, too deep to read",
        ));
}
