//! A suggestion split into parts (docs/suggest.md, "Shards"): its three rounds run as
//! `--shard K/N` parts and merged round by round write the same files, and print the same
//! table, byte for byte, as one run over the directory; parts and plans that cannot be
//! merged are refused, exit 2, naming what differs, nothing written.
#![allow(clippy::unwrap_used)]

mod support;
use assert_cmd::Command;
use std::fs;
use std::path::{Path, PathBuf};

fn simulate(cwd: &Path) -> Command {
    let mut c = Command::cargo_bin("simulate").unwrap();
    c.current_dir(cwd);
    c
}

/// The `gen_history` example, built beside the test binaries.
fn gen_history() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().unwrap().parent().unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = std::process::Command::new(cargo)
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

/// Runs `simulate suggest ARGS` in `cwd`; its stdout.
fn run(cwd: &Path, args: &[&str]) -> Vec<u8> {
    let out = simulate(cwd).arg("suggest").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "simulate suggest {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// One run over `dir` (absolute) in `cwd`, results in `cwd/out/<name>/`; its table.
fn one(cwd: &Path, dir: &str, flags: &[&str]) -> Vec<u8> {
    run(cwd, &[&[dir, "--out", "out"], flags].concat())
}

/// The three rounds over `dir` in `n` parts, in `cwd` as the merges' printed commands
/// say (parts in `out/round-R/K`); the last merge's table.
fn split(cwd: &Path, dir: &str, name: &str, n: usize, flags: &[&str]) -> Vec<u8> {
    let mut last = Vec::new();
    for round in 1..=3 {
        let plan = format!("out/{name}-round-{round}/plan.json");
        let mut parts = Vec::new();
        for k in 1..=n {
            let shard = format!("{k}/{n}");
            let out = format!("out/round-{round}/{k}");
            let mut args = vec![dir, "--shard", &shard, "--out", &out];
            if round > 1 {
                args.extend(["--plan", &plan]);
            }
            run(cwd, &[&args[..], flags].concat());
            parts.push(format!("{out}/{name}"));
        }
        let mut args = vec!["--merge"];
        args.extend(parts.iter().map(String::as_str));
        if round > 1 {
            args.extend(["--plan", &plan]);
        }
        args.extend(["--out", "out"]);
        last = run(cwd, &[&args[..], flags].concat());
        if round < 3 {
            let said = String::from_utf8(last.clone()).unwrap();
            let next = format!("out/{name}-round-{}/plan.json", round + 1);
            assert!(
                said.contains(&format!("--plan {next} --shard 1/{n}")),
                "{said}"
            );
        }
    }
    last
}

/// Splits of `dir` in 1, 2, 3 and 7 parts each write what one run writes, byte for byte,
/// and print its table.
fn splits_are_one_run(dir: &Path, name: &str, flags: &[&str]) {
    let dir = fs::canonicalize(dir).unwrap();
    let dir = dir.to_str().unwrap();
    let whole = tempfile::tempdir().unwrap();
    let table = one(whole.path(), dir, flags);
    let expected = support::contents(&whole.path().join("out").join(name));
    assert!(
        expected.contains_key("suggested.toml"),
        "{:?}",
        expected.keys()
    );
    assert!(expected.contains_key("suggest.csv"));
    for n in [1, 2, 3, 7] {
        let work = tempfile::tempdir().unwrap();
        let merged = split(work.path(), dir, name, n, flags);
        let got = support::contents(&work.path().join("out").join(name));
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "{n} parts"
        );
        for (file, bytes) in &expected {
            assert!(got[file] == *bytes, "{n} parts: {file} differs");
        }
        assert_eq!(
            String::from_utf8_lossy(&merged),
            String::from_utf8_lossy(&table),
            "{n} parts"
        );
    }
}

#[test]
fn the_shipped_history_split_is_one_run_byte_for_byte() {
    splits_are_one_run(Path::new("scenarios/history"), "history-suggest", &[]);
}

#[test]
fn a_split_leaving_sessions_out_is_one_run_byte_for_byte() {
    splits_are_one_run(
        Path::new("scenarios/history"),
        "history-suggest",
        &["--max-cost-diff", "2"],
    );
}

#[test]
fn a_generated_history_split_is_one_run_byte_for_byte() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("generated");
    let status = std::process::Command::new(gen_history())
        .args(["300", "20"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(status.status.success());
    splits_are_one_run(&dir, "generated-suggest", &[]);
}

/// Runs `simulate suggest ARGS` in `cwd`, which must be refused: exit 2, stderr holding
/// `message`.
fn refused(cwd: &Path, args: &[&str], message: &str) {
    let out = simulate(cwd).arg("suggest").args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(message), "{args:?}: {stderr}");
}

#[test]
fn parts_and_plans_that_do_not_make_the_whole_are_refused() {
    let work = tempfile::tempdir().unwrap();
    let cwd = work.path();
    let dir = cwd.join("sessions");
    fs::create_dir(&dir).unwrap();
    for e in fs::read_dir("scenarios/history/sessions").unwrap() {
        let path = e.unwrap().path();
        fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    let name = "sessions-suggest";
    for k in 1..=3 {
        run(
            cwd,
            &[
                "sessions",
                "--shard",
                &format!("{k}/3"),
                "--out",
                &format!("r1/{k}"),
            ],
        );
    }
    let part = |round: usize, k: usize| format!("r{round}/{k}/{name}");
    // A missing part: said which, nothing written.
    refused(
        cwd,
        &["--merge", &part(1, 1), &part(1, 3), "--out", "out"],
        "1 of the 3 parts is missing (2/3)",
    );
    assert!(!cwd.join("out").exists());
    run(
        cwd,
        &[
            "--merge",
            &part(1, 1),
            &part(1, 2),
            &part(1, 3),
            "--out",
            "out",
        ],
    );
    let plan = format!("out/{name}-round-2/plan.json");
    // A plan from other flags.
    refused(
        cwd,
        &[
            "sessions",
            "--plan",
            &plan,
            "--shard",
            "1/3",
            "--max-cost-diff",
            "5",
            "--out",
            "r2/1",
        ],
        "this command was run with --max-cost-diff 5 and the plan out/sessions-suggest-round-2/plan.json with no --max-cost-diff",
    );
    assert!(!cwd.join("r2").exists());
    for k in 1..=3 {
        let said = run(
            cwd,
            &[
                "sessions",
                "--plan",
                &plan,
                "--shard",
                &format!("{k}/3"),
                "--out",
                &format!("r2/{k}"),
            ],
        );
        // The merge it says is under the plan's --out, not a placeholder.
        let said = String::from_utf8(said).unwrap();
        assert!(
            said.contains(&format!(
                "simulate suggest --merge PART… --plan {plan} --out out\n"
            )),
            "{said}"
        );
    }
    // A part of another round.
    refused(
        cwd,
        &[
            "--merge",
            &part(1, 1),
            &part(2, 2),
            &part(2, 3),
            "--plan",
            &plan,
            "--out",
            "out",
        ],
        "is a part of round 1 and r2/2/sessions-suggest of round 2: merge the parts of one round",
    );
    // Round 2 merged without its plan.
    refused(
        cwd,
        &[
            "--merge",
            &part(2, 1),
            &part(2, 2),
            &part(2, 3),
            "--out",
            "out",
        ],
        "the parts are of round 2, which ran a plan: give it with --plan PLAN",
    );
    // Round 2 merged under another --out than round 1's, which the plan writes to: refused
    // before round 3 runs, not at its end.
    refused(
        cwd,
        &[
            "--merge",
            &part(2, 1),
            &part(2, 2),
            &part(2, 3),
            "--plan",
            &plan,
            "--out",
            "elsewhere",
        ],
        "the plan's suggestion is written as out/sessions-suggest/suggested.toml (the --out of the round-1 merge), not elsewhere/sessions-suggest/suggested.toml: give every merge of this split the --out the round-1 merge was given, spelled the same (out)",
    );
    assert!(!cwd.join("elsewhere").exists());
    assert!(!cwd.join(format!("out/{name}-round-3")).exists());
    // Parts cut from different listings: the folder changed between their jobs.
    fs::copy(
        dir.join(
            fs::read_dir(&dir)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .file_name(),
        ),
        dir.join("zz-added.toml"),
    )
    .unwrap();
    run(cwd, &["sessions", "--shard", "3/3", "--out", "r1b/3"]);
    refused(
        cwd,
        &[
            "--merge",
            &part(1, 1),
            &part(1, 2),
            &format!("r1b/3/{name}"),
            "--out",
            "out2",
        ],
        "were cut from different listings of sessions: 12 *.toml files",
    );
    // A plan of another listing.
    refused(
        cwd,
        &[
            "sessions", "--plan", &plan, "--shard", "1/3", "--out", "r2c/1",
        ],
        "was made from a listing of 12 *.toml files under sessions",
    );
    assert!(!cwd.join("out2").exists() && !cwd.join("r2c").exists());
}
