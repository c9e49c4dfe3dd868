//! Shards of a history (docs/history.md, "Shards"): a merge of any split of the sessions
//! writes the same files, byte for byte, as one run over all of them; shards that cannot
//! be merged are refused, naming what differs; `--group-by` tables add up to the whole.
//!
//! The history is a "team": the twelve sessions of scenarios/history with users and models
//! written into their `[import]`, the base-clamp sessions of tests/fixtures/history and the
//! what-if sessions of tests/fixtures/whatif, with edits that exercise every note a merge
//! must carry over (rules that select nothing, base edits larger than a base, a cache edit
//! that leaves traces unchanged, a base part only two sessions have).
#![allow(clippy::unwrap_used)]

mod support;
use assert_cmd::Command;
use proptest::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use support::{contents, number, rows};

const EDITS: &str = "tests/fixtures/history/team_edits.toml";

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// Writes the team's sessions under `root/sessions/` (files in subfolders, as imports of
/// several projects are) and the edits as `root/edits.toml`; returns the files' paths
/// relative to `root/sessions`, in path order.
fn team(root: &Path) -> Vec<String> {
    let sessions = root.join("sessions");
    let users = ["ana", "bo", "chen"];
    let mut sources: Vec<PathBuf> = fs::read_dir("scenarios/history/sessions")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    sources.sort();
    for (i, source) in sources.iter().enumerate() {
        let mut text = fs::read_to_string(source).unwrap();
        // Nine of the twelve have a user; four were run with another model.
        if i % 4 != 3 {
            text = text.replace(
                "[import]\n",
                &format!("[import]\nuser_id = \"{}\"\n", users[i % 3]),
            );
        }
        if i % 3 == 1 {
            text = text.replace(
                "model = \"claude-sonnet-4-5-20250929\"\nconvention",
                "model = \"claude-opus-4-1-20250805\"\nconvention",
            );
        }
        let target = sessions
            .join("storefront")
            .join(source.file_name().unwrap());
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(target, text).unwrap();
    }
    for (from, to) in [
        ("tests/fixtures/history/base_clamp", "proj"),
        ("tests/fixtures/whatif/history", "whatif"),
    ] {
        fs::create_dir_all(sessions.join(to)).unwrap();
        for e in fs::read_dir(from).unwrap() {
            let path = e.unwrap().path();
            fs::copy(&path, sessions.join(to).join(path.file_name().unwrap())).unwrap();
        }
    }
    fs::copy(EDITS, root.join("edits.toml")).unwrap();
    let mut files = Vec::new();
    for dir in ["proj", "storefront", "whatif"] {
        let mut names: Vec<String> = fs::read_dir(sessions.join(dir))
            .unwrap()
            .map(|e| format!("{dir}/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        names.sort();
        files.extend(names);
    }
    files
}

/// Runs `simulate history ARGS` in `cwd`, expecting exit `code`; returns stdout and stderr.
fn history(cwd: &Path, args: &[&str], code: i32) -> (String, String) {
    let output = simulate()
        .current_dir(cwd)
        .arg("history")
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    let (stdout, stderr) = (text(output.stdout), text(output.stderr));
    assert_eq!(
        output.status.code(),
        Some(code),
        "simulate history {args:?}: {stdout}{stderr}"
    );
    (stdout, stderr)
}

/// Runs `simulate history ARGS` in `cwd`, expecting success; returns stdout.
fn run(cwd: &Path, args: &[&str]) -> String {
    history(cwd, args, 0).0
}

/// Runs `simulate history ARGS` in `cwd`, expecting exit 2; returns stderr.
fn refused(cwd: &Path, args: &[&str]) -> String {
    history(cwd, args, 2).1
}

/// Asserts that two results folders hold the same files with the same bytes.
fn same_folders(merged: &Path, whole: &Path) {
    let (a, b) = (contents(merged), contents(whole));
    let names =
        |f: &std::collections::BTreeMap<String, Vec<u8>>| f.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(
            x == y,
            "{name} of the merge differs from one run's: {}",
            first_difference(x, y)
        );
    }
}

fn first_difference(x: &[u8], y: &[u8]) -> String {
    let (x, y) = (String::from_utf8_lossy(x), String::from_utf8_lossy(y));
    for (n, (a, b)) in x.lines().zip(y.lines()).enumerate() {
        if a != b {
            return format!("line {}:\n  {a}\n  {b}", n + 1);
        }
    }
    format!("{} lines against {}", x.lines().count(), y.lines().count())
}

const WHOLE: [&str; 8] = [
    "sessions",
    "--edits",
    "edits.toml",
    "--name",
    "team",
    "--group-by",
    "user",
    "--out",
];

/// Runs the whole team into `root/whole/team/`.
fn whole(root: &Path) -> PathBuf {
    run(root, &[&WHOLE[..], &["whole"]].concat());
    root.join("whole/team")
}

/// Merges `shards` (folders relative to `root`) into `root/merged/team/`; returns the
/// table printed.
fn merge(root: &Path, shards: &[String]) -> String {
    let mut args = vec!["--merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["--group-by", "user", "--out", "merged"]);
    run(root, &args)
}

#[test]
fn shards_of_a_directory_merge_into_the_same_files_as_one_run() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    team(root);
    let whole = whole(root);
    for n in [2, 3] {
        let mut shards = Vec::new();
        for k in 1..=n {
            let out = format!("shards-{n}/{k}");
            let shard = format!("{k}/{n}");
            run(root, &[&WHOLE[..], &[&out, "--shard", &shard]].concat());
            shards.push(format!("{out}/team"));
        }
        let table = merge(root, &shards);
        assert!(
            table.contains(&format!("merged from {n} shards: shards-{n}/1/team")),
            "{table}"
        );
        same_folders(&root.join("merged/team"), &whole);
    }
    // The shard files are in the folder, whatif.csv and groups.csv too: nothing is left out
    // of the comparison.
    let names: Vec<String> = contents(&whole).into_keys().collect();
    for file in [
        "shard.jsonl",
        "whatif.csv",
        "groups.csv",
        "report.html",
        "sessions.svg",
    ] {
        assert!(names.iter().any(|n| n == file), "{file} in {names:?}");
    }
}

#[test]
fn uneven_splits_by_file_lists_merge_into_the_same_files_as_one_run() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let files = team(root);
    let whole = whole(root);
    assert_eq!(files.len(), 17);
    // One session and the rest; two, three and the rest, listed out of order.
    let splits: Vec<Vec<Vec<&String>>> = vec![
        vec![files[..1].iter().collect(), files[1..].iter().collect()],
        vec![
            vec![&files[16], &files[3]],
            files[4..7].iter().rev().collect(),
            files[..3].iter().chain(&files[7..16]).collect(),
        ],
    ];
    for (s, split) in splits.iter().enumerate() {
        let mut shards = Vec::new();
        for (k, part) in split.iter().enumerate() {
            let list = root.join(format!("list-{s}-{k}.txt"));
            let text: String = part.iter().map(|f| format!("./{f}\n")).collect();
            fs::write(&list, text).unwrap();
            let out = format!("split-{s}/{k}");
            run(
                root,
                &[&WHOLE[..], &[&out, "--files-from", list.to_str().unwrap()]].concat(),
            );
            shards.push(format!("{out}/team"));
        }
        merge(root, &shards);
        same_folders(&root.join("merged/team"), &whole);
    }
    // A list on stdin (`--files-from -`), as a batch runner pipes a job its part.
    let (first, rest) = files.split_at(9);
    let output = simulate()
        .current_dir(root)
        .arg("history")
        .args([&WHOLE[..], &["stdin", "--files-from", "-"]].concat())
        .write_stdin(first.join("\n"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let list = root.join("rest.txt");
    fs::write(&list, rest.join("\r\n")).unwrap();
    run(
        root,
        &[
            &WHOLE[..],
            &["rest", "--files-from", list.to_str().unwrap()],
        ]
        .concat(),
    );
    merge(root, &["stdin/team".into(), "rest/team".into()]);
    same_folders(&root.join("merged/team"), &whole);
    // A listed file that is not a session file under the directory is an error.
    fs::write(&list, "proj/nope.toml\n").unwrap();
    let e = refused(
        root,
        &[&WHOLE[..], &["x", "--files-from", list.to_str().unwrap()]].concat(),
    );
    assert!(
        e.contains("--files-from: `proj/nope.toml` is not a session file under sessions"),
        "{e}"
    );
}

#[test]
fn shards_run_in_their_own_folders_and_merges_of_merges_equal_one_run() {
    // A batch runner that copies each job's sessions into the job's own working folder
    // and runs the same command there: the records name the same files and directory.
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let files = team(root);
    let whole = whole(root);
    let parts = [&files[..5], &files[5..6], &files[6..]];
    for (k, part) in parts.iter().enumerate() {
        let job = root.join(format!("job-{k}"));
        for f in *part {
            let to = job.join("sessions").join(f);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(root.join("sessions").join(f), to).unwrap();
        }
        fs::copy(root.join("edits.toml"), job.join("edits.toml")).unwrap();
        run(&job, &[&WHOLE[..], &["out"]].concat());
    }
    // The last two merged first, then with the first: a merge's folder is a shard too.
    run(
        root,
        &[
            "--merge",
            "job-1/out/team",
            "job-2/out/team",
            "--group-by",
            "user",
            "--out",
            "partial",
        ],
    );
    merge(root, &["job-0/out/team".into(), "partial/team".into()]);
    same_folders(&root.join("merged/team"), &whole);
    // JSON on stdout too, grouped by another label than the shards were.
    let json = |args: &[&str]| {
        run(
            root,
            &[
                args,
                &["--format", "json", "--group-by", "model", "--no-write"],
            ]
            .concat(),
        )
    };
    assert_eq!(
        json(&["--merge", "job-0/out/team", "partial/team"]),
        json(&["sessions", "--edits", "edits.toml", "--name", "team"])
    );
}

#[test]
fn shards_that_cannot_be_merged_are_refused_naming_what_differs() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    team(root);
    // Shard k of the team into `out`, with `edits` and more arguments.
    let shard = |k: &str, out: &str, edits: &str, extra: &[&str]| {
        let args = [
            "sessions", "--edits", edits, "--name", "team", "--out", out, "--shard", k,
        ];
        run(root, &[&args[..], extra].concat());
        format!("{out}/team")
    };
    let (a, b) = (
        shard("1/2", "a", "edits.toml", &[]),
        shard("2/2", "b", "edits.toml", &[]),
    );
    // Other edits: one changed, one renamed, one more.
    let edits = fs::read_to_string(root.join("edits.toml")).unwrap();
    let variants = [
        (
            edits.replace("max_bytes = 8000 }\n\n", "max_bytes = 4000 }\n\n"),
            "edit 1 `cap shell output at 8 KB` is defined differently",
        ),
        (
            edits.replace("name = \"clear after a 5-minute pause\"", "name = \"idle\""),
            "edit 3 is `clear after a 5-minute pause` in",
        ),
        (
            format!("{edits}\n[[edit]]\nname = \"more\"\nclear = {{ after_gap_s = 60 }}\n"),
            "has 7 edits and",
        ),
    ];
    for (i, (text, message)) in variants.iter().enumerate() {
        let file = format!("edits-{i}.toml");
        fs::write(root.join(&file), text).unwrap();
        let other = shard("2/2", &format!("edits-{i}"), &file, &[]);
        let e = refused(root, &["--merge", &a, &other, "--out", "m"]);
        assert!(
            e.contains("the shards differ") && e.contains(message),
            "{e}"
        );
    }
    // Other factors.
    let other = shard(
        "2/2",
        "factors",
        "edits.toml",
        &["--bpt-factors", "0.5,1,2"],
    );
    let e = refused(root, &["--merge", &a, &other, "--out", "m"]);
    assert!(e.contains("--base-factors and --bpt-factors"), "{e}");
    // Another version of simulate: the header says which.
    let old = root.join("old");
    fs::create_dir_all(&old).unwrap();
    let text = fs::read_to_string(root.join(&b).join("shard.jsonl")).unwrap();
    let version = format!("\"simulate\":\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&version));
    fs::write(
        old.join("shard.jsonl"),
        text.replacen(&version, "\"simulate\":\"0.0.1\"", 1),
    )
    .unwrap();
    let e = refused(root, &["--merge", &a, "old", "--out", "m"]);
    assert!(e.contains("by simulate 0.0.1"), "{e}");
    // A session in two shards; a shard given twice.
    let e = refused(root, &["--merge", &a, &b, "whole-is-not-here"]);
    assert!(e.contains("whole-is-not-here"), "{e}");
    run(root, &[&WHOLE[..], &["all"]].concat());
    run(root, &[&WHOLE[..], &["all2"]].concat());
    let e = refused(root, &["--merge", "all/team", "all2/team", "--out", "m"]);
    assert!(e.contains("is in all/team and in all2/team"), "{e}");
    let all = shard("1/1", "all1", "edits.toml", &[]);
    let e = refused(root, &["--merge", &a, &all, "--out", "m"]);
    assert!(e.contains("different splits (--shard 1/2, 1/1)"), "{e}");
    let e = refused(
        root,
        &["--merge", &a, &format!("{a}/shard.jsonl"), "--out", "m"],
    );
    assert!(e.contains("is given twice"), "{e}");
    // Not a shard; cut short; out of order.
    let e = refused(root, &["--merge", "sessions", "--out", "m"]);
    assert!(e.contains("no shard.jsonl here"), "{e}");
    let lines: Vec<&str> = text.lines().collect();
    let cut = root.join("cut.jsonl");
    fs::write(&cut, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    let e = refused(root, &["--merge", &a, "cut.jsonl", "--out", "m"]);
    assert!(e.contains("cut short"), "{e}");
    let swapped = root.join("swapped.jsonl");
    let mut order = lines.clone();
    order.swap(1, 2);
    fs::write(&swapped, order.join("\n") + "\n").unwrap();
    let e = refused(root, &["--merge", &a, "swapped.jsonl", "--out", "m"]);
    assert!(
        e.contains("comes after") && e.contains("swapped.jsonl:3"),
        "{e}"
    );
    // Some shards of a split only, or shards of two splits: never taken for the whole.
    let e = refused(root, &["--merge", &a, "--out", "m"]);
    assert!(e.contains("1 of the 2 shards is missing (2/2)"), "{e}");
    let third = shard("1/3", "third", "edits.toml", &[]);
    let e = refused(root, &["--merge", &a, &b, &third, "--out", "m"]);
    assert!(
        e.contains("different splits (--shard 1/2, 2/2, 1/3)"),
        "{e}"
    );
    // A merge never replaces a shard it reads: its folder is an input.
    let e = refused(root, &["--merge", &a, &b, "--out", "a"]);
    assert!(e.contains("shard.jsonl: is also"), "{e}");
    assert!(root.join(&a).join("shard.jsonl").exists());
    // Nothing was written by a refused merge.
    assert!(!root.join("m").exists());
}

#[test]
fn every_grouping_adds_up_to_the_whole() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    team(root);
    let mut groups_seen = HashMap::new();
    for by in ["user", "project", "model"] {
        let out = format!("by-{by}");
        let table = run(
            root,
            &[
                "sessions",
                "--edits",
                "edits.toml",
                "--name",
                "team",
                "--group-by",
                by,
                "--out",
                &out,
            ],
        );
        assert!(table.contains(&format!("\nBy {by} (")), "{table}");
        let dir = root.join(&out).join("team");
        let summary = rows(&dir.join("summary.csv"));
        let groups = rows(&dir.join("groups.csv"));
        let names: std::collections::BTreeSet<String> =
            groups.iter().map(|g| g["group"].clone()).collect();
        groups_seen.insert(by, names);
        for edit in &summary {
            let mine: Vec<&HashMap<String, String>> = groups
                .iter()
                .filter(|g| g["edit"] == edit["edit"])
                .collect();
            // Counts add up exactly.
            for (group_column, whole_column) in [
                ("sessions", "sessions"),
                ("calls", "baseline_calls"),
                ("sessions_first", "sessions_first"),
                ("sessions_saving", "sessions_saving"),
                ("sessions_adding", "sessions_adding"),
                ("sessions_unchanged", "sessions_unchanged"),
                ("sessions_cost_only", "sessions_cost_only"),
            ] {
                let sum: f64 = mine.iter().map(|g| number(g, group_column)).sum();
                assert_eq!(sum, number(edit, whole_column), "{by}: {group_column}");
            }
            // Sums add up to floating-point rounding (each group adds only its own).
            for (group_column, whole_column) in [
                ("saved_tokens", "saved_tokens"),
                ("cost_saved", "cost_saved"),
                ("baseline_total_tokens", "baseline_total_tokens"),
                ("baseline_cost", "baseline_cost"),
            ] {
                let sum: f64 = mine.iter().map(|g| number(g, group_column)).sum();
                let whole = number(edit, whole_column);
                assert!(
                    (sum - whole).abs() <= 1e-12 * whole.abs().max(1.0),
                    "{by}: {group_column}: {sum} against {whole}"
                );
            }
        }
    }
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        groups_seen["user"],
        set(&["ana", "bo", "chen", "unknown user"])
    );
    assert_eq!(
        groups_seen["project"],
        set(&["proj", "storefront", "unknown project"])
    );
    assert_eq!(
        groups_seen["model"],
        set(&[
            "claude-opus-4-1-20250805",
            "claude-sonnet-4-5-20250929",
            "unknown model"
        ])
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Any assignment of the sessions to up to four shards merges into the whole.
    #[test]
    fn any_split_merges_into_the_whole(assignment in prop::collection::vec(0usize..4, 17)) {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let files = team(root);
        let whole = whole(root);
        let mut shards = Vec::new();
        for k in 0..4 {
            let part: Vec<&String> = files
                .iter()
                .zip(&assignment)
                .filter(|&(_, &a)| a == k)
                .map(|(f, _)| f)
                .collect();
            if part.is_empty() {
                continue;
            }
            let list = root.join(format!("list-{k}.txt"));
            fs::write(&list, part.iter().map(|f| format!("{f}\n")).collect::<String>()).unwrap();
            let out = format!("part-{k}");
            run(root, &[&WHOLE[..], &[&out, "--files-from", list.to_str().unwrap()]].concat());
            shards.push(format!("{out}/team"));
        }
        merge(root, &shards);
        same_folders(&root.join("merged/team"), &whole);
    }
}

#[test]
fn a_selector_no_session_matches_is_warned_the_same_after_a_merge() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    team(root);
    // A slip: the sessions' tool is "Bash". Each shard sees only its own sessions' names,
    // so the warning must come from the names the shard headers carry, not from one shard.
    let mut edits = fs::read_to_string(root.join("edits.toml")).unwrap();
    edits.push_str(
        "\n[[edit]]\nname = \"cap bash\"\ncap = { select = { tool = \"bash\" }, max_bytes = 8000 }\n",
    );
    fs::write(root.join("edits.toml"), edits).unwrap();
    let table = run(root, &[&WHOLE[..], &["whole"]].concat());
    let warning = "Warning: [[edit]] \"cap bash\": cap: no session has tool \"bash\" (did you mean \"Bash\"?)";
    assert!(table.contains(warning), "{table}");
    let mut shards = Vec::new();
    for k in 1..=2 {
        let out = format!("shards/{k}");
        run(
            root,
            &[&WHOLE[..], &[&out, "--shard", &format!("{k}/2")]].concat(),
        );
        shards.push(format!("{out}/team"));
    }
    let merged = merge(root, &shards);
    let line = |t: &str| {
        t.lines()
            .find(|l| l.starts_with(warning))
            .unwrap()
            .to_string()
    };
    assert_eq!(line(&merged), line(&table));
    same_folders(&root.join("merged/team"), &root.join("whole/team"));
}

/// Issue 26 §1: a shard's header decides no path. A header name of `./../../victim` (which
/// would put the merge two levels above `--out`) or `UPPERCASE` (which `--name` refuses) is
/// refused, exit 2, naming the shard file, and nothing is written anywhere.
#[test]
fn a_shard_header_name_never_decides_where_a_merge_writes() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    team(root);
    let a = {
        let args = [
            "sessions",
            "--edits",
            "edits.toml",
            "--name",
            "team",
            "--out",
            "a",
        ];
        run(root, &args);
        root.join("a/team/shard.jsonl")
    };
    let text = fs::read_to_string(&a).unwrap();
    let deep = root.join("x/y");
    fs::create_dir_all(&deep).unwrap();
    for name in [
        "./../../victim",
        "UPPERCASE",
        "../team",
        "",
        ".hidden",
        "a/b",
    ] {
        let crafted = root.join("crafted.jsonl");
        let header = text.replacen(
            "\"name\":\"team\"",
            &format!("\"name\":{}", serde_json::to_string(name).unwrap()),
            1,
        );
        assert_ne!(header, text);
        fs::write(&crafted, header).unwrap();
        let before = support::names(root);
        let e = history(
            &deep,
            &["--merge", "../../crafted.jsonl", "--out", "out"],
            2,
        )
        .1;
        assert!(
            e.starts_with("error: ../../crafted.jsonl: not a history shard: its header's name is not one simulate writes")
                && e.contains("is not a valid name"),
            "{name}: {e}"
        );
        // Even with --name, a header no run could write is not a shard.
        let e = history(
            &deep,
            &[
                "--merge",
                "../../crafted.jsonl",
                "--name",
                "ok",
                "--out",
                "out",
            ],
            2,
        )
        .1;
        assert!(e.contains("crafted.jsonl: not a history shard"), "{e}");
        assert_eq!(support::names(root), before);
        assert_eq!(support::names(&deep), Vec::<String>::new());
        assert!(!root.join("victim").exists() && !root.join("x/victim").exists());
    }
}

/// Issue 26 §2: each file's part is fixed by its own path, and each part records the
/// listing it was cut from. In 16 rounds of random adds and removes between the jobs of a
/// split, a merge either equals the directory (every session, each once) or is refused,
/// naming the parts that saw different listings: a session is never silently missed.
#[test]
fn shards_of_a_changing_directory_merge_whole_or_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let pool = team(root);
    fs::rename(root.join("sessions"), root.join("pool")).unwrap();
    // A fixed generator (64-bit LCG): the rounds are the same on every run.
    let mut state: u64 = 0x2026_1202;
    let mut next = |n: usize| -> usize {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % n as u64) as usize
    };
    let (mut merged, mut refused_rounds) = (0, 0);
    for round in 0..16 {
        let dir = root.join(format!("round-{round}"));
        let sessions = dir.join("sessions");
        let mut present: Vec<bool> = (0..pool.len()).map(|_| next(3) > 0).collect();
        let place = |i: usize, on: bool| {
            let to = sessions.join(&pool[i]);
            if on {
                fs::create_dir_all(to.parent().unwrap()).unwrap();
                fs::copy(root.join("pool").join(&pool[i]), &to).unwrap();
            } else {
                let _ = fs::remove_file(&to);
            }
        };
        for (i, on) in present.iter().enumerate() {
            place(i, *on);
        }
        fs::copy(root.join("edits.toml"), dir.join("edits.toml")).unwrap();
        let n = 2 + next(3);
        let mut changed = false;
        let mut shards = Vec::new();
        for k in 1..=n {
            if k > 1 && next(2) == 0 {
                // A nightly import between two jobs: files added, one removed.
                for _ in 0..1 + next(2) {
                    let i = next(pool.len());
                    changed |= !present[i];
                    present[i] = true;
                    place(i, true);
                }
                if next(2) == 0 {
                    let i = next(pool.len());
                    changed |= present[i];
                    present[i] = false;
                    place(i, false);
                }
            }
            let out = format!("shard-{k}");
            run(
                &dir,
                &[
                    "sessions",
                    "--edits",
                    "edits.toml",
                    "--name",
                    "team",
                    "--shard",
                    &format!("{k}/{n}"),
                    "--out",
                    &out,
                    "--no-charts",
                ],
            );
            shards.push(format!("{out}/team"));
        }
        let mut args = vec!["--merge"];
        args.extend(shards.iter().map(String::as_str));
        args.extend(["--out", "merged", "--no-charts"]);
        let output = simulate()
            .current_dir(&dir)
            .arg("history")
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.status.code() {
            Some(0) => {
                merged += 1;
                assert!(
                    !changed,
                    "round {round}: merged though the directory changed"
                );
                let files: Vec<String> = rows(&dir.join("merged/team/sessions.csv"))
                    .iter()
                    .map(|r| r["file"].clone())
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect();
                let mut expected: Vec<String> = pool
                    .iter()
                    .zip(&present)
                    .filter(|(_, on)| **on)
                    .map(|(f, _)| f.clone())
                    .collect();
                expected.sort();
                assert_eq!(files, expected, "round {round}");
            }
            Some(2) => {
                refused_rounds += 1;
                assert!(
                    changed,
                    "round {round}: refused though nothing changed: {stderr}"
                );
                assert!(
                    stderr.contains("were cut from different listings")
                        && stderr.contains("shard 1/"),
                    "round {round}: {stderr}"
                );
                assert!(!dir.join("merged").exists());
            }
            code => panic!("round {round}: exit {code:?}: {stderr}"),
        }
    }
    // Both outcomes were exercised.
    assert!(
        merged > 0 && refused_rounds > 0,
        "{merged} merged, {refused_rounds} refused"
    );
}

/// Issue 26 §2: more parts than files gives parts of no session; they write a shard of no
/// session, and the merge of the split is the whole, byte for byte.
#[test]
fn parts_of_no_session_merge_into_the_whole() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    team(root);
    let whole = whole(root);
    let n = 24;
    let mut shards = Vec::new();
    let mut empty = 0;
    for k in 1..=n {
        let out = format!("parts/{k}");
        let table = run(
            root,
            &[&WHOLE[..], &[&out, "--shard", &format!("{k}/{n}")]].concat(),
        );
        if table.contains("holds no session") {
            empty += 1;
            assert!(
                table.starts_with(&format!(
                    "team: shard {k}/{n} of sessions holds no session of the 17 *.toml files under it"
                )),
                "{table}"
            );
            assert_eq!(
                support::names(&root.join(&out).join("team")),
                [".simulate-manifest", "shard.jsonl"]
            );
        }
        shards.push(format!("{out}/team"));
    }
    assert!(empty >= n - 17, "{empty} empty parts of {n}");
    merge(root, &shards);
    same_folders(&root.join("merged/team"), &whole);
    // The listing each part saw is in its header.
    let header = fs::read_to_string(root.join("parts/1/team/shard.jsonl")).unwrap();
    assert!(
        header.contains("\"listing\":{\"files\":17,\"digest\":\"xxh3-128:"),
        "{header}"
    );
}

/// Issue 26 §7: what a shard's header quotes of paths (its directory, a file skipped)
/// reaches the table escaped; a name or label with a control character, which no scenario
/// or edits file simulate reads can hold, marks a crafted shard: refused, naming its line.
#[test]
fn paths_from_shards_are_shown_escaped_and_crafted_names_refused() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    team(root);
    run(root, &[&WHOLE[..], &["whole"]].concat());
    let text = fs::read_to_string(root.join("whole/team/shard.jsonl")).unwrap();
    let suffix = "\u{1b}]0;owned\u{7}\r\u{1b}[2J\n";
    let shown = "\\u{1b}]0;owned\\u{7}\\r\\u{1b}[2J\\n";
    let mut lines = text.lines();
    let mut header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let records: Vec<serde_json::Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    let write = |file: &str, header: &serde_json::Value, records: &[serde_json::Value]| {
        let mut out = serde_json::to_string(header).unwrap() + "\n";
        for r in records {
            out.push_str(&serde_json::to_string(r).unwrap());
            out.push('\n');
        }
        fs::write(root.join(file), out).unwrap();
    };
    header["directory"] = format!("sessions{suffix}").into();
    header["skipped"] =
        serde_json::json!([{"file": format!("x{suffix}.toml"), "reason": format!("why{suffix}")}]);
    write("paths.jsonl", &header, &records);
    let table = run(root, &["--merge", "paths.jsonl", "--out", "m", "--verbose"]);
    assert!(
        !table.chars().any(|c| c.is_control() && c != '\n'),
        "{table:?}"
    );
    assert!(
        table.contains(&format!(
            "team: 17 sessions from sessions{shown}, each with"
        )) && table.contains(&format!("  skipped x{shown}.toml: why{shown}")),
        "{table}"
    );
    // A session's name, a label: refused, nothing written.
    for (field, line) in [("name", 3), ("user", 5)] {
        let mut crafted = records.clone();
        let record = &mut crafted[line - 2];
        let slot = if field == "name" {
            &mut record["figures"]["name"]
        } else {
            &mut record["labels"]["user"]
        };
        *slot = format!("{}{suffix}", slot.as_str().unwrap_or("u")).into();
        write("crafted.jsonl", &header, &crafted);
        let e = refused(root, &["--merge", "crafted.jsonl", "--out", "n"]);
        assert!(
            e.starts_with(&format!(
                "error: crafted.jsonl:{line}: not a session record of a history shard: session `"
            )) && e.contains("control character")
                && !e.chars().any(|c| c.is_control() && c != '\n'),
            "{e:?}"
        );
        assert!(!root.join("n").exists());
    }
    // An edit's name in the header.
    let mut crafted = header.clone();
    crafted["edits"][0]["name"] = format!("cap{suffix}").into();
    write("crafted.jsonl", &crafted, &records);
    let e = refused(root, &["--merge", "crafted.jsonl", "--out", "n"]);
    assert!(e.contains("its header's edit name \"cap\\u{1b}"), "{e}");
    assert!(!root.join("n").exists());
}

#[test]
fn a_shard_with_a_byte_order_mark_before_its_header_merges_as_without() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    team(root);
    let whole = whole(root);
    let mut shards = Vec::new();
    for k in 1..=2 {
        let out = format!("shards/{k}");
        run(
            root,
            &[&WHOLE[..], &[&out, "--shard", &format!("{k}/2")]].concat(),
        );
        shards.push(format!("{out}/team"));
    }
    // Saved again by an editor that puts a byte-order mark first.
    let file = root.join(&shards[0]).join("shard.jsonl");
    let text = fs::read(&file).unwrap();
    fs::write(&file, [&b"\xEF\xBB\xBF"[..], &text].concat()).unwrap();
    merge(root, &shards);
    same_folders(&root.join("merged/team"), &whole);
}
