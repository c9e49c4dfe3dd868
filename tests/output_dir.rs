//! The results folder: written whole or not at all, never mixing two runs, never losing an
//! input or a user's file, cleaned up after Ctrl-C, SIGTERM or a killed run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use predicates::prelude::*;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::{names, simulate};

/// A scenario named `name` over a trace of `calls` calls, with two edits.
fn big_scenario(dir: &Path, name: &str, calls: usize) -> PathBuf {
    let mut tsv = String::new();
    for n in 1..=calls {
        writeln!(tsv, "{n}\tcmd {n}\t{}", n * 7919 % 5000 + 100).unwrap();
    }
    fs::write(dir.join("run.tsv"), tsv).unwrap();
    let path = dir.join(format!("{name}.toml"));
    fs::write(
        &path,
        format!(
            "name = \"{name}\"\nbase_tokens = 30000\nbytes_per_token = 3.3\ncalls_tsv = \"run.tsv\"\n\
             [[edit]]\nname = \"drop\"\ndrop = {{ call = \"5\" }}\n\
             [[edit]]\nname = \"trim\"\ntrim = {{ call = \"7\", by_percent = 50 }}\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn a_rerun_leaves_only_its_own_files() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args(["tests/fixtures/good/small.toml", "--out"])
        .arg(out.path())
        .assert()
        .success();
    assert!(names(&out.path().join("small")).contains(&"report.html".to_string()));
    simulate()
        .args(["tests/fixtures/good/small.toml", "--no-charts", "--out"])
        .arg(out.path())
        .assert()
        .success();
    assert_eq!(
        names(&out.path().join("small")),
        [
            ".simulate-manifest",
            "by_tool.csv",
            "ledger.csv",
            "summary.csv",
            "sweep.csv"
        ]
    );
    assert_eq!(names(out.path()), ["small"], "nothing staged is left");
}

#[test]
fn a_file_simulate_did_not_write_stops_the_run_and_stays() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("small");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("summary.csv"), "old").unwrap();
    fs::write(dir.join("notes.txt"), "mine").unwrap();
    simulate()
        .args(["tests/fixtures/good/small.toml", "--out"])
        .arg(out.path())
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "holds a file simulate did not write (notes.txt)",
        ));
    assert_eq!(fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
    assert_eq!(fs::read_to_string(dir.join("summary.csv")).unwrap(), "old");
    assert_eq!(names(out.path()), ["small"]);
}

#[test]
fn a_scenario_inside_its_own_output_folder_is_refused() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("small");
    fs::create_dir(&dir).unwrap();
    let scenario = dir.join("summary.csv");
    fs::copy("tests/fixtures/good/small.toml", &scenario).unwrap();
    let before = fs::read(&scenario).unwrap();
    simulate()
        .arg(&scenario)
        .arg("--out")
        .arg(out.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{}: is also {}, in the folder this run replaces",
            scenario.display(),
            scenario.display()
        )));
    assert_eq!(fs::read(&scenario).unwrap(), before);
}

#[test]
fn a_trace_inside_the_output_folder_is_refused_even_by_another_name() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let folder = out.join("t");
    fs::create_dir_all(&folder).unwrap();
    fs::write(folder.join("ledger.csv"), "1\ta\t100\n2\tb\t200\n").unwrap();
    let scenario = root.path().join("t.toml");
    let text =
        "name = \"t\"\nbase_tokens = 1000\nbytes_per_token = 1\ncalls_tsv = \"out/t/ledger.csv\"\n";
    fs::write(&scenario, text).unwrap();
    simulate()
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("out/t/ledger.csv: is also"));
    // A hard link elsewhere is the same file.
    fs::hard_link(folder.join("ledger.csv"), root.path().join("trace.tsv")).unwrap();
    fs::write(&scenario, text.replace("out/t/ledger.csv", "trace.tsv")).unwrap();
    simulate()
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("trace.tsv: is also").and(predicate::str::contains(
                "t/ledger.csv, in the folder this run replaces",
            )),
        );
    assert!(folder.join("ledger.csv").exists());
}

#[test]
fn an_unwritable_out_is_bad_input() {
    simulate()
        .args([
            "tests/fixtures/good/small.toml",
            "--out",
            "/proc/self/no-such-folder",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot write results here"));
}

/// Folders a user keeps in `--out` whose names look like a run's leftovers
/// (`.<anything>.old-<n>`, `.<name>.staging-<n>-<n>`), each with a file in it.
const LOOK_ALIKES: [&str; 6] = [
    ".emacs.d.old-5",
    ".keep.old-7",
    ".photos.old-2024",
    ".small.old-7",
    ".small.staging-12-3",
    ".small.staging-999999-0",
];

fn make_look_alikes(out: &Path) {
    for name in LOOK_ALIKES {
        fs::create_dir_all(out.join(name)).unwrap();
        fs::write(out.join(name).join("mine.txt"), name).unwrap();
    }
}

fn assert_look_alikes_kept(out: &Path, also: &[&str]) {
    let mut expected: Vec<String> = LOOK_ALIKES.iter().map(|s| s.to_string()).collect();
    expected.extend(also.iter().map(|s| s.to_string()));
    expected.sort();
    assert_eq!(names(out), expected);
    for name in LOOK_ALIKES {
        assert_eq!(
            fs::read_to_string(out.join(name).join("mine.txt")).unwrap(),
            name
        );
    }
}

/// Runs `simulate ARGS --no-charts --out OUT`, which must be refused for a user's
/// `notes.txt` in its folder.
fn refused_for_notes(args: &[&str], out: &Path) {
    simulate()
        .args(args)
        .args(["--no-charts", "--out"])
        .arg(out)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "holds a file simulate did not write (notes.txt)",
        ));
}

/// Found by a hostile round: before any check, a run deleted every folder in `--out` whose
/// name looked like its leftovers and that no process had locked, a user's
/// `.photos.old-2024/` among them, even when the run was then refused. A run now removes
/// only staging folders it provably made (their marker file), once it has committed.
#[test]
fn regression_a_users_look_alike_folders_survive_a_refused_and_a_good_run() {
    let out = tempfile::tempdir().unwrap();
    make_look_alikes(out.path());
    let dir = out.path().join("small");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("notes.txt"), "mine").unwrap();
    refused_for_notes(&["tests/fixtures/good/small.toml"], out.path());
    assert_look_alikes_kept(out.path(), &["small"]);
    fs::remove_dir_all(&dir).unwrap();
    simulate()
        .args(["tests/fixtures/good/small.toml", "--no-charts", "--out"])
        .arg(out.path())
        .assert()
        .success();
    assert_look_alikes_kept(out.path(), &["small"]);
}

/// The same for `simulate history`, refused because its folder holds a user's file.
#[test]
fn regression_a_refused_history_run_removes_nothing() {
    let out = tempfile::tempdir().unwrap();
    make_look_alikes(out.path());
    fs::create_dir(out.path().join("h")).unwrap();
    fs::write(out.path().join("h/notes.txt"), "mine").unwrap();
    let history = [
        "history",
        "tests/fixtures/history/small",
        "--edits",
        "tests/fixtures/history/edits.toml",
        "--name",
        "h",
    ];
    refused_for_notes(&history, out.path());
    assert_look_alikes_kept(out.path(), &["h"]);
    assert_eq!(
        fs::read_to_string(out.path().join("h/notes.txt")).unwrap(),
        "mine"
    );
}

/// A run killed with SIGKILL cannot clean up: its staging folder stays, and the next run
/// of the same name removes it once it has committed, while a live run's folder (marked,
/// its lock held) stays.
#[test]
fn a_killed_runs_staging_folder_is_removed_by_the_next_run() {
    use simulate::output::set::staging::{MARKER, MARKER_TEXT};
    let work = tempfile::tempdir().unwrap();
    let scenario = big_scenario(work.path(), "big", 200_000);
    let out = work.path().join("out");
    let (code, _) = interrupt(&scenario, &out, rustix::process::Signal::KILL);
    assert_eq!(code, None, "killed by the signal");
    let left = names(&out);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with(".big.staging-"), "{left:?}");
    assert_eq!(
        fs::read_to_string(out.join(&left[0]).join(MARKER)).unwrap(),
        MARKER_TEXT
    );
    let live = out.join(".big.staging-1-0");
    fs::create_dir(&live).unwrap();
    fs::write(live.join(MARKER), MARKER_TEXT).unwrap();
    let held = fs::File::open(&live).unwrap();
    held.lock().unwrap();

    let small = tempfile::tempdir().unwrap();
    let again = big_scenario(small.path(), "big", 50);
    simulate()
        .arg(&again)
        .args(["--no-charts", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(names(&out), [".big.staging-1-0", "big"]);
    drop(held);
}

/// Two runs into one folder at once: afterwards the folder holds one run's files, all of
/// them from that run.
#[test]
fn concurrent_runs_never_mix_their_files() {
    let work = tempfile::tempdir().unwrap();
    let scenario = big_scenario(work.path(), "race", 20_000);
    let out = work.path().join("out");
    for round in 0..3 {
        let children: Vec<_> = ["20000", "40000"]
            .iter()
            .map(|base| {
                std::process::Command::new(assert_cmd::cargo::cargo_bin("simulate"))
                    .arg(&scenario)
                    .args(["--no-charts", "--base", base, "--out"])
                    .arg(&out)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let done = child.wait_with_output().unwrap();
            assert!(
                done.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&done.stderr)
            );
        }
        let dir = out.join("race");
        assert_eq!(
            names(&dir),
            [
                ".simulate-manifest",
                "by_tool.csv",
                "ledger.csv",
                "summary.csv",
                "sweep.csv"
            ]
        );
        let summary = fs::read_to_string(dir.join("summary.csv")).unwrap();
        let mut lines = summary.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let column = header.iter().position(|h| *h == "base_tokens").unwrap();
        let base: f64 = lines
            .next()
            .unwrap()
            .split(',')
            .nth(column)
            .unwrap()
            .parse()
            .unwrap();
        let ledger = fs::read_to_string(dir.join("ledger.csv")).unwrap();
        let first: f64 = ledger
            .lines()
            .nth(1)
            .unwrap()
            .split(',')
            .nth(5)
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            base, first,
            "round {round}: summary.csv and ledger.csv from different runs"
        );
        assert_eq!(names(&out), ["race"], "round {round}: staging left behind");
    }
}

/// Sends `signal` once the run has staged its folder; returns the exit code and stderr.
fn interrupt(
    scenario: &Path,
    out: &Path,
    signal: rustix::process::Signal,
) -> (Option<i32>, String) {
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("simulate"))
        .arg(scenario)
        .args(["--no-charts", "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    // Signal as soon as the first file is in the staging folder's `set/`: the run is then
    // writing (its ledger.csv alone takes longer than the signal needs to arrive). A fixed
    // sleep instead let a fast machine finish and swap the folder in first.
    let writing = || {
        fs::read_dir(out).is_ok_and(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().contains(".staging-"))
                .any(|e| {
                    fs::read_dir(e.path().join("set")).is_ok_and(|mut files| files.next().is_some())
                })
        })
    };
    while !writing() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(1));
    }
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn ctrl_c_or_sigterm_mid_write_removes_what_is_staged() {
    let work = tempfile::tempdir().unwrap();
    let scenario = big_scenario(work.path(), "big", 200_000);
    let out = work.path().join("out");
    let (code, stderr) = interrupt(&scenario, &out, rustix::process::Signal::INT);
    assert_eq!(code, Some(130));
    assert_eq!(
        stderr,
        "interrupted (Ctrl-C): nothing was written; what this run had staged is removed\n"
    );
    // The folder --out named did not exist: the run made it, and removes it again.
    assert!(!out.exists(), "left behind: {:?}", names(&out));

    // Over a previous run's folder: that folder stays as it was.
    simulate()
        .args(["tests/fixtures/good/small.toml", "--no-charts", "--out"])
        .arg(&out)
        .assert()
        .success();
    fs::rename(out.join("small"), out.join("big")).unwrap();
    let before = fs::read(out.join("big/summary.csv")).unwrap();
    let (code, stderr) = interrupt(&scenario, &out, rustix::process::Signal::TERM);
    assert_eq!(code, Some(143));
    assert!(stderr.starts_with("interrupted (SIGTERM)"), "{stderr}");
    assert_eq!(names(&out), ["big"]);
    assert_eq!(fs::read(out.join("big/summary.csv")).unwrap(), before);
}

#[test]
fn an_out_that_is_a_file_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("afile");
    std::fs::write(&file, "mine").unwrap();
    simulate()
        .args(["tests/fixtures/good/small.toml", "--out"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is a file, not a folder"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}
