//! Files written into a folder shared with other files (`simulate import --out DIR`, the
//! scenario `simulate fit --write` rewrites): all of them or none, never two imports mixed,
//! cleaned after a killed run, nothing written outside the target, a rewritten file keeping
//! its mode and its symbolic link.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use predicates::prelude::*;
use serde_json::json;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant, SystemTime};
use support::{contents, names, simulate};

/// Writes `sessions` Claude Code transcripts of `requests` requests each into `dir`, session
/// k ending after session k − 1, so scenario `p-<k:08>` is the (k + 1)-th written. `salt`
/// changes every usage count: two salts give different scenarios of the same names.
fn write_sessions(dir: &Path, sessions: usize, requests: usize, salt: u64) {
    fs::create_dir_all(dir).unwrap();
    for k in 0..sessions {
        let session = format!("{k:08}-0000-4000-8000-000000000000");
        let at = |i: usize| {
            let s = k * 1000 + i;
            format!(
                "2025-10-01T{:02}:{:02}:{:02}Z",
                s / 3600,
                s / 60 % 60,
                s % 60
            )
        };
        let mut lines = vec![
            json!({"type": "user", "sessionId": session, "cwd": "/w/p", "timestamp": at(0),
                   "message": {"role": "user", "content": "go"}})
            .to_string(),
        ];
        for i in 0..requests {
            let u = (i as u64 + 1) * 10 + salt;
            lines.push(
                json!({"type": "assistant", "sessionId": session, "timestamp": at(i + 1),
                       "requestId": format!("req_{k}_{i}"),
                       "message": {"id": format!("msg_{k}_{i}"), "model": "claude-sonnet-4-5",
                           "content": [{"type": "tool_use", "id": format!("toolu_{k}_{i}"),
                                        "name": "Bash", "input": {"command": format!("step {i}")}}],
                           "usage": {"input_tokens": 3, "cache_creation_input_tokens": u,
                                     "cache_read_input_tokens": u * 20, "output_tokens": u / 2}}})
                .to_string(),
            );
            lines.push(
                json!({"type": "user", "sessionId": session, "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": format!("toolu_{k}_{i}"),
                     "content": "x".repeat(100 + i % 50)}]}})
                .to_string(),
            );
        }
        fs::write(
            dir.join(format!("{session}.jsonl")),
            lines.join("\n") + "\n",
        )
        .unwrap();
    }
}

/// Logs `work/a` and `work/b`: the same sessions and scenario names, other usage counts.
fn two_logs(work: &Path, sessions: usize, requests: usize) -> (PathBuf, PathBuf) {
    let (a, b) = (work.join("a"), work.join("b"));
    write_sessions(&a, sessions, requests, 0);
    write_sessions(&b, sessions, requests, 7);
    (a, b)
}

fn import(logs: &Path, out: &Path) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("simulate"))
        .args(["import", "claude-code"])
        .arg(logs)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Found by a hostile round: two imports into one `--out` at once both exited 0, and one
/// silently replaced or mixed the other's scenarios (20 of 20 rounds). The second now waits
/// for the first, then finds its scenarios: exit 2, naming them, and the folder holds
/// exactly one import's files.
#[test]
fn regression_two_imports_into_one_folder_at_once_never_mix() {
    let work = tempfile::tempdir().unwrap();
    let (a, b) = two_logs(work.path(), 20, 30);
    let alone = |logs: &Path, name: &str| {
        let out = work.path().join(name);
        assert!(
            import(logs, &out)
                .wait_with_output()
                .unwrap()
                .status
                .success()
        );
        contents(&out)
    };
    let (only_a, only_b) = (alone(&a, "only-a"), alone(&b, "only-b"));
    assert_eq!(only_a.len(), 20);
    assert_ne!(only_a, only_b);
    for round in 0..20 {
        let out = work.path().join(format!("out-{round}"));
        let (first, second) = (import(&a, &out), import(&b, &out));
        let (first, second) = (
            first.wait_with_output().unwrap(),
            second.wait_with_output().unwrap(),
        );
        let got = contents(&out);
        let (won, lost) = match (first.status.code(), second.status.code()) {
            (Some(0), Some(2)) => ((&only_a, "a"), &second),
            (Some(2), Some(0)) => ((&only_b, "b"), &first),
            codes => panic!(
                "round {round}: exit codes {codes:?}, {} of 20 files as import a wrote them, {} as b\n{}{}",
                got.iter()
                    .filter(|(n, v)| only_a.get(*n) == Some(v))
                    .count(),
                got.iter()
                    .filter(|(n, v)| only_b.get(*n) == Some(v))
                    .count(),
                stderr(&first),
                stderr(&second)
            ),
        };
        assert_eq!(
            &got, won.0,
            "round {round}: not exactly import {}'s files",
            won.1
        );
        assert!(
            stderr(lost).contains(
                "already exists and differs from what this import would write and 19 more"
            ),
            "round {round}: {}",
            stderr(lost)
        );
    }
}

/// Found by a hostile round: a rename that failed half-way left part of the set (exit 1
/// with 145 of 200 scenarios in place). A folder where a scenario goes now refuses the
/// whole import before any file is in place, and what was there stays as it was.
#[test]
fn regression_a_folder_in_the_way_leaves_every_scenario_as_it_was() {
    let work = tempfile::tempdir().unwrap();
    let (a, b) = two_logs(work.path(), 200, 2);
    let out = work.path().join("out");
    assert!(
        import(&a, &out)
            .wait_with_output()
            .unwrap()
            .status
            .success()
    );
    let in_the_way = out.join("p-00000145.toml");
    fs::remove_file(&in_the_way).unwrap();
    fs::create_dir(&in_the_way).unwrap();
    fs::write(in_the_way.join("mine.txt"), "keep").unwrap();
    let before = contents(&out);
    assert_eq!(before.len(), 200);
    simulate()
        .args(["import", "claude-code", "--force", "--out"])
        .arg(&out)
        .arg(&b)
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "error: {}: is a folder, where this file would go: nothing was written; move the folder or choose another --out\n",
            in_the_way.display()
        ));
    assert_eq!(contents(&out), before, "a scenario was replaced");
    assert_eq!(
        fs::read_to_string(in_the_way.join("mine.txt")).unwrap(),
        "keep"
    );
}

/// Found by a hostile round: after SIGKILL an import's staging folder stayed, and no later
/// import removed it. The next import into the folder now does, once its own files are in.
#[test]
fn regression_a_killed_imports_staging_folder_is_removed_by_the_next_import() {
    let work = tempfile::tempdir().unwrap();
    let logs = work.path().join("logs");
    write_sessions(&logs, 100, 300, 0);
    let out = work.path().join("out");
    let staging = |out: &Path| -> Vec<String> {
        fs::read_dir(out).map_or_else(
            |_| Vec::new(),
            |entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.contains("staging"))
                    .collect()
            },
        )
    };
    // Kill it as soon as a scenario is staged; a fast machine may finish first, so try again.
    let mut killed = false;
    for _ in 0..20 {
        let _ = fs::remove_dir_all(&out);
        let mut child = import(&logs, &out);
        let start = Instant::now();
        let writing = || {
            staging(&out).iter().any(|s| {
                fs::read_dir(out.join(s)).is_ok_and(|files| {
                    files
                        .flatten()
                        .any(|f| f.file_name().to_string_lossy().ends_with(".toml"))
                })
            })
        };
        while !writing() && start.elapsed() < Duration::from_secs(60) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        if child.wait().unwrap().code().is_none() && !staging(&out).is_empty() {
            killed = true;
            break;
        }
    }
    assert!(killed, "never caught the import while it wrote");
    assert_eq!(staging(&out).len(), 1);
    let again = import(&logs, &out).wait_with_output().unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    let expected: Vec<String> = (0..100).map(|k| format!("p-{k:08}.toml")).collect();
    assert_eq!(names(&out), expected);
}

/// Found by a hostile round: checking that `--out` could be written created a probe file
/// in its nearest existing ancestor, outside it. Now nothing is written there: its
/// modification time stays as it was, by a refused import and by a good one alike.
#[test]
fn regression_import_writes_nothing_outside_its_out() {
    let work = tempfile::tempdir().unwrap();
    let ancestor = work.path().join("ancestor");
    fs::create_dir(&ancestor).unwrap();
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let dir = fs::File::open(&ancestor).unwrap();
    dir.set_modified(long_ago).unwrap();
    simulate()
        .args([
            "import",
            "claude-code",
            "tests/fixtures/import/bad/empty.jsonl",
            "--out",
        ])
        .arg(ancestor.join("new/deeper"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing written"));
    assert!(names(&ancestor).is_empty());
    assert_eq!(
        fs::metadata(&ancestor).unwrap().modified().unwrap(),
        long_ago
    );

    // Into an existing folder: only the scenarios appear, and the folder above is untouched.
    let out = ancestor.join("out");
    fs::create_dir(&out).unwrap();
    dir.set_modified(long_ago).unwrap();
    let logs = Path::new("tests/fixtures/import/claude-code-fit");
    assert!(
        import(logs, &out)
            .wait_with_output()
            .unwrap()
            .status
            .success()
    );
    assert_eq!(names(&out), ["shop-5e55a0e1.toml"]);
    assert_eq!(names(&ancestor), ["out"]);
    assert_eq!(
        fs::metadata(&ancestor).unwrap().modified().unwrap(),
        long_ago
    );
}

/// Found by a new user's round: `fit --write` turned a 0600 scenario into a 0644 one.
#[test]
fn regression_fit_write_keeps_the_files_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    fs::copy("tests/fixtures/good/fit_synthetic.toml", &path).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    simulate()
        .args(["fit", "--write"])
        .arg(&path)
        .assert()
        .success();
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
        0o600
    );
    assert!(
        fs::read_to_string(&path)
            .unwrap()
            .contains("fitted (simulate fit")
    );
    assert_eq!(names(dir.path()), ["s.toml"]);
}

/// Found by a new user's round: `fit --write` on a symbolic link replaced the link with a
/// regular file and left the file it pointed to unfitted.
#[test]
fn regression_fit_write_through_a_symlink_fits_the_file_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.toml");
    fs::copy("tests/fixtures/good/fit_synthetic.toml", &real).unwrap();
    let link = dir.path().join("link.toml");
    std::os::unix::fs::symlink("real.toml", &link).unwrap();
    simulate()
        .args(["fit", "--write"])
        .arg(&link)
        .assert()
        .success();
    assert_eq!(fs::read_link(&link).unwrap(), Path::new("real.toml"));
    assert!(
        fs::read_to_string(&real)
            .unwrap()
            .contains("fitted (simulate fit")
    );
    assert_eq!(names(dir.path()), ["link.toml", "real.toml"]);
}

/// Issue 19 §1: scenarios are staged as they are made, so the folder is prepared first; an
/// import refused by the loader's rules (a count above 1e15 in the 2nd of 3 sessions) still
/// leaves nothing, not even the folders made for it, and a re-import of the same logs
/// leaves every scenario as it was, byte for byte and inode for inode (nothing to replace).
#[test]
fn a_refused_import_leaves_no_folder_and_a_same_reimport_replaces_nothing() {
    use std::os::unix::fs::MetadataExt;
    let work = tempfile::tempdir().unwrap();
    let logs = work.path().join("logs");
    write_sessions(&logs, 3, 4, 0);
    let second = logs.join("00000001-0000-4000-8000-000000000000.jsonl");
    let text = fs::read_to_string(&second).unwrap();
    fs::write(
        &second,
        text.replacen(
            "\"input_tokens\":3",
            "\"input_tokens\":10000000000000000",
            1,
        ),
    )
    .unwrap();
    let out = work.path().join("new/deeper");
    let o = simulate()
        .args(["import", "claude-code"])
        .arg(&logs)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("would not load, so nothing was written"),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(work.path()), ["logs"]);

    fs::write(&second, text).unwrap();
    let out = work.path().join("out");
    let run = || import(&logs, &out).wait_with_output().unwrap();
    assert!(run().status.success());
    let inodes = |dir: &Path| -> Vec<(String, u64)> {
        names(dir)
            .into_iter()
            .map(|n| {
                let ino = fs::metadata(dir.join(&n)).unwrap().ino();
                (n, ino)
            })
            .collect()
    };
    let (before, files) = (contents(&out), inodes(&out));
    assert_eq!(files.len(), 3);
    assert!(run().status.success());
    assert_eq!(contents(&out), before);
    assert_eq!(inodes(&out), files);
}
