//! `tools/dask_history.py`: a history run as tasks of a local Dask distributed cluster of
//! 2 workers, merged, is the same folder, byte for byte, as one `simulate history` run
//! (docs/scale.md). Skips, saying why, where Python's `dask.distributed` is not installed,
//! unless `SIMULATE_REQUIRE_DASK` is set (`.ci/run` installs it and sets it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `python3` can import `dask.distributed`; the reason when not.
fn dask() -> Result<(), String> {
    match Command::new("python3")
        .args(["-c", "import dask.distributed"])
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "python3 cannot import dask.distributed ({})",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )),
        Err(e) => Err(format!("no python3 ({e})")),
    }
}

/// The `gen_history` example, built beside the test binaries.
fn gen_history() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().unwrap().parent().unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--example", "gen_history"])
        .args(if profile.ends_with("release") {
            &["--release"][..]
        } else {
            &[][..]
        })
        .status()
        .unwrap();
    assert!(status.success(), "cannot build the gen_history example");
    profile.join("examples").join("gen_history")
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    support::contents(dir).into_iter().collect()
}

#[test]
fn a_history_on_a_local_dask_cluster_is_one_run_byte_for_byte() {
    if let Err(why) = dask() {
        assert!(
            std::env::var_os("SIMULATE_REQUIRE_DASK").is_none(),
            "SIMULATE_REQUIRE_DASK is set but {why}"
        );
        eprintln!("skipped: {why}; `pip install 'dask[distributed]'` to run it");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let status = Command::new(gen_history())
        .args(["40", "15"])
        .arg(root)
        .output()
        .unwrap();
    assert!(status.status.success());
    let simulate = assert_cmd::cargo::cargo_bin("simulate");
    let sessions = root.join("sessions");
    let edits = root.join("edits.toml");
    let driver = Command::new("python3")
        .arg("tools/dask_history.py")
        .arg("--simulate")
        .arg(&simulate)
        .arg("--sessions")
        .arg(&sessions)
        .arg("--edits")
        .arg(&edits)
        .args(["--name", "team", "--tasks", "5", "--workers", "2", "--out"])
        .arg(root.join("dask"))
        .output()
        .unwrap();
    assert!(
        driver.status.success(),
        "the driver failed: {}",
        String::from_utf8_lossy(&driver.stderr)
    );
    let one = Command::new(&simulate)
        .arg("history")
        .arg(&sessions)
        .arg("--edits")
        .arg(&edits)
        .args(["--name", "team", "--out"])
        .arg(root.join("one"))
        .output()
        .unwrap();
    assert!(one.status.success());
    let merged = files(&root.join("dask/team"));
    let whole = files(&root.join("one/team"));
    assert_eq!(
        merged.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        whole.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    assert!(merged.iter().any(|(n, _)| n == "shard.jsonl"));
    for ((name, a), (_, b)) in merged.iter().zip(&whole) {
        assert!(a == b, "{name} differs between the Dask run and one run");
    }
    // Five tasks ran: five shards were merged.
    let shards = std::fs::read_dir(root.join("dask/.shards"))
        .unwrap()
        .count();
    assert_eq!(shards, 5);
}
