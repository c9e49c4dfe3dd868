//! The binary as a user runs it: exit codes, what it prints, the files it writes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use predicates::prelude::*;
use std::fs;
use std::path::Path;

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// Every file under `tests/fixtures/bad/` is refused with exit 2, a message naming the file
/// and what its `# expect:` line says (`|`-separated parts), and no output written.
#[test]
fn every_bad_fixture_is_refused_with_a_located_message_and_nothing_written() {
    let mut checked = 0;
    for entry in fs::read_dir("tests/fixtures/bad").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = String::from_utf8_lossy(&fs::read(&path).unwrap()).into_owned();
        let expected: Vec<String> = text
            .lines()
            .find_map(|l| l.strip_prefix("# expect: "))
            .map(|e| e.split('|').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default();
        let out = tempfile::tempdir().unwrap();
        let assert = simulate()
            .arg(&path)
            .arg("--out")
            .arg(out.path())
            .assert()
            .code(2);
        let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert!(
            stderr.starts_with("error: "),
            "{}: {stderr}",
            path.display()
        );
        assert!(
            stderr.contains(path.file_name().unwrap().to_str().unwrap()) || stderr.contains(".tsv"),
            "{}: {stderr}",
            path.display()
        );
        for part in &expected {
            assert!(
                stderr.contains(part.as_str()),
                "{}: expected {part:?} in {stderr}",
                path.display()
            );
        }
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(
            fs::read_dir(out.path()).unwrap().count(),
            0,
            "{} wrote output",
            path.display()
        );
        assert!(assert.get_output().stdout.is_empty());
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} bad fixtures found");
}

#[test]
fn a_file_that_is_not_utf8_is_refused() {
    simulate()
        .arg("tests/fixtures/bad/binary.toml")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "binary.toml:1:1: is not UTF-8 text",
        ));
}

#[test]
fn a_missing_scenario_names_the_file() {
    simulate()
        .arg("tests/fixtures/no-such.toml")
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: tests/fixtures/no-such.toml: cannot read",
        ));
}

#[test]
fn an_unwritable_output_directory_fails_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    fs::write(&blocker, "not a directory").unwrap();
    // A folder under a file cannot be made.
    simulate()
        .args(["tests/fixtures/good/small.toml", "--out"])
        .arg(blocker.join("results"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("cannot write results here")
                .and(predicate::str::contains("--out DIR")),
        );
}

#[test]
fn bad_arguments_are_usage_errors() {
    // No argument at all: where to start, for logs and for a scenario (issue 27 §1).
    simulate().assert().code(2).stderr(
        predicate::str::contains("simulate suggest")
            .and(predicate::str::contains("simulate scenarios/merge.toml")),
    );
    simulate()
        .args(["tests/fixtures/good/small.toml", "--base", "0"])
        .assert()
        .code(2);
    simulate()
        .args(["tests/fixtures/good/small.toml", "--bpt", "nan"])
        .assert()
        .code(2);
    simulate()
        .args(["tests/fixtures/good/small.toml", "--sweep-bpt", "4:2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--sweep-bpt: `4:2`: a range is FROM:TO:STEPS",
        ));
    simulate()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("reread"));
    // A misspelt subcommand, with the arguments the real one takes, is named as such.
    simulate()
        .args(["imprt", "claude-code", "logs/", "--out", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "imprt: no such scenario file, and not a subcommand: did you mean `simulate import`?",
        ));
}

fn read(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn the_small_scenario_prints_the_ranked_table_and_writes_every_file() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args(["tests/fixtures/good/small.toml", "--no-charts", "--out"])
        .arg(out.path())
        .assert()
        .success()
        .stdout(
            predicate::str::contains("small: Six calls in three segments")
                .and(predicate::str::contains(
                    "base tokens B         1,000   assumed (scenario file)",
                ))
                .and(predicate::str::contains(
                    "reread total 9,500 est. tokens over 6 calls",
                ))
                .and(predicate::str::contains(
                    "8 of 9 points keep the nominal order",
                ))
                .and(predicate::str::contains(
                    "drop c beats merge b d e when B = 667 and ρ = 0.75 (1 point)",
                ))
                // T_drop − T_merge = B − 685.33 at ρ = 0.75 (see json test).
                .and(predicate::str::contains(
                    "merge b d e saves more than drop c for every B above 685 at ρ = 0.75\n",
                )),
        );
    let dir = out.path().join("small");
    let summary = read(&dir, "summary.csv");
    let mut lines = summary.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("rank,edit,calls,total_tokens,saved_tokens,saved_pct,equivalent_calls")
    );
    // merge b d e: a, [b+d+e+7], c, f → contexts 1000, 1100, 2207, 2507 = 6814.
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("1,merge b d e,4,6814.0,2686.0,"),
        "{summary}"
    );
    let ledger = read(&dir, "ledger.csv");
    assert_eq!(ledger.lines().count(), 1 + 6 + 6 + 4 + 5);
    assert!(
        ledger.starts_with("edit,call,id,label,bytes,context_tokens,cumulative_tokens,cleared\n"),
        "{ledger}"
    );
    assert!(
        ledger.contains("\nbaseline,6,f,read f,600.0,2500.0,9500.0,\n"),
        "{ledger}"
    );
    let sweep = read(&dir, "sweep.csv");
    assert_eq!(sweep.lines().count(), 1 + 9 * 3);
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with('.') || n == ".simulate-manifest"),
        "temporary files left: {names:?}"
    );
}

#[test]
fn json_has_the_documented_fields() {
    let out = tempfile::tempdir().unwrap();
    let assert = simulate()
        .args([
            "tests/fixtures/good/small.toml",
            "--no-charts",
            "--format",
            "json",
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(v["scenario"], "small");
    assert_eq!(v["unit"], "est. tokens at 1 bytes/token");
    assert_eq!(v["base_tokens"], 1000.0);
    assert_eq!(v["baseline"]["total_tokens"], 9500.0);
    assert_eq!(v["baseline"]["calls"], 6);
    let first = &v["edits"][0];
    assert_eq!(first["name"], "merge b d e");
    assert_eq!(first["saved_tokens"], 2686.0);
    assert_eq!(first["calls"], 4);
    for key in ["total_tokens", "saved_pct", "equivalent_calls"] {
        assert!(first[key].is_number(), "{key}");
    }
    let sweep = &v["sweep"];
    assert_eq!(sweep["points"], 9);
    assert_eq!(sweep["ranking_holds"], false);
    assert_eq!(sweep["points_matching_nominal_order"], 8);
    assert_eq!(sweep["points_matching_winner"], 8);
    assert_eq!(sweep["flips"][0]["a"], "merge b d e");
    assert_eq!(sweep["flips"][0]["b"], "drop c");
    assert_eq!(sweep["flips"][0]["points"][0]["bytes_per_token"], 0.75);
    // At ρ = 0.75: T_merge = 4B + 3752, T_drop = 5B + 3066.67 → equal at B = 685.33.
    let be = sweep["break_even"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["a"] == "merge b d e" && b["b"] == "drop c" && b["bytes_per_token"] == 0.75)
        .unwrap();
    assert!((be["base_tokens"].as_f64().unwrap() - 2056.0 / 3.0).abs() < 1e-9);
    assert_eq!(be["inside_range"], true);
}

#[test]
fn base_and_bpt_override_the_nominal_point() {
    let out = tempfile::tempdir().unwrap();
    let assert = simulate()
        .args([
            "tests/fixtures/good/small.toml",
            "--no-charts",
            "--format",
            "json",
            "--base",
            "2000",
            "--bpt",
            "2",
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    // T = 6·2000 + (100·5 + 200·4 + 300·3 + 400·2 + 500·1)/2 = 12000 + 1750.
    assert_eq!(v["baseline"]["total_tokens"], 13_750.0);
    assert_eq!(
        v["sources"]["base_tokens"],
        "assumed (--base on the command line)"
    );
}

#[test]
fn a_tsv_scenario_joins_lines_of_one_call() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args(["tests/fixtures/good/tsv.toml", "--no-charts", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let ledger = read(&out.path().join("tsv"), "ledger.csv");
    assert!(
        ledger.contains("\nbaseline,2,2,cat a.md+cat b.md,2000.0,"),
        "{ledger}"
    );
}

#[test]
fn the_ledger_subcommand_prints_a_tsv_ledger() {
    simulate()
        .args(["ledger", "tests/fixtures/good/trace.tsv"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("cat a.md+cat b.md").and(predicate::str::contains(
                "reread total: 117,879 est. tokens over 3 calls",
            )),
        );
    let assert = simulate()
        .args([
            "ledger",
            "tests/fixtures/good/trace.tsv",
            "--base",
            "1000",
            "--bpt",
            "1",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    // Contexts 1000, 46000, 48000.
    assert_eq!(v["total_tokens"], 95_000.0);
    assert_eq!(v["calls"], 3);
    assert_eq!(v["rows"][2]["context_tokens"], 48_000.0);
    simulate()
        .args(["ledger", "tests/fixtures/bad/short_line.tsv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "short_line.tsv:2:1: expected 3 tab-separated fields (number, label, bytes), found 2",
        ));
}

#[test]
fn output_is_the_same_with_one_thread_or_two() {
    let run = |threads: &str| {
        let out = tempfile::tempdir().unwrap();
        simulate()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "scenarios/merge.toml",
                "--no-charts",
                "--sweep-base",
                "5000:60000:23",
                "--sweep-bpt",
                "2:5:17",
                "--out",
            ])
            .arg(out.path())
            .assert()
            .success();
        ["sweep.csv", "summary.csv", "ledger.csv"]
            .map(|f| fs::read(out.path().join("merge").join(f)).unwrap())
    };
    assert!(run("1") == run("2"));
}

#[test]
fn a_huge_file_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.toml");
    // Sparse: 1.5 GiB on paper, nothing on disk.
    fs::File::create(&path).unwrap().set_len(3 << 29).unwrap();
    simulate()
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "huge.toml: file is 1610612736 bytes; the limit for a scenario file is 8388608 bytes",
        ));
}

#[test]
fn a_directory_is_not_a_scenario() {
    simulate()
        .arg("tests/fixtures")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "tests/fixtures: is a directory, not a file: name one scenario in it; for all of them, `simulate history DIR --edits EDITS.toml` compares edits",
        ));
    // The same for `fit`, whose advice must not send the user to a command that fits
    // nothing.
    simulate()
        .args(["fit", "tests/fixtures"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`simulate import … --out DIR --fit` fits every trace",
        ));
    // An edits file given where the scenario goes is named as such.
    simulate()
        .arg("scenarios/history/edits.toml")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "this is an edits file ([[edit]] tables only), not a scenario: pass it with --edits",
        ));
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    let out = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("simulate"))
        .args([
            "ledger",
            "tests/fixtures/good/trace.tsv",
            "--format",
            "json",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert!(status.code() == Some(0), "{status:?}");
    drop(out);
}

#[test]
fn fit_recovers_b_and_rho_from_noisy_measured_usage() {
    // Generated from B = 21,500 and ρ = 3.7 with 1 % noise.
    let assert = simulate()
        .args([
            "fit",
            "tests/fixtures/good/fit_synthetic.toml",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let b = v["base_tokens"].as_f64().unwrap();
    let rho = v["bytes_per_token"].as_f64().unwrap();
    assert!((b / 21_500.0 - 1.0).abs() < 0.02, "B = {b}");
    assert!((rho / 3.7 - 1.0).abs() < 0.02, "ρ = {rho}");
    assert!(v["r_squared"].as_f64().unwrap() > 0.99);
    assert_eq!(v["calls_used"], 60);
    assert_eq!(v["calls_left_out"], 0);
    assert_eq!(v["written"], false);
    assert!(v["poor"].is_null());
}

#[test]
fn fit_write_makes_the_fitted_values_the_nominal_point() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    fs::copy("tests/fixtures/good/fit_synthetic.toml", &path).unwrap();
    simulate()
        .args(["fit", "--write"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("Written into"));
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("base_tokens = 215"), "{text}");
    assert!(
        text.contains("base_tokens_source = \"fitted (simulate fit: R² = 0.999"),
        "{text}"
    );
    // The scenario runs, and its report names the fitted source.
    simulate()
        .arg(&path)
        .arg("--no-write")
        .assert()
        .success()
        .stdout(predicate::str::contains("fitted (simulate fit"));
}

#[test]
fn fit_refuses_a_trace_without_measured_usage() {
    simulate()
        .args(["fit", "tests/fixtures/good/small.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "0 of 6 calls carry a measured total input; a fit needs at least 3",
        ));
}

#[test]
fn a_poor_fit_is_said_plainly_and_not_written_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("poor.toml");
    let mut text = String::from("name = \"poor\"\nbase_tokens = 30000\nbytes_per_token = 3.3\n");
    // The measured input zigzags while bytes join steadily: ρ = 4.31, R² = 0.576.
    for (i, m) in [10000, 13000, 11000, 15000, 12500, 16000]
        .iter()
        .enumerate()
    {
        text.push_str(&format!(
            "[[call]]\nlabel = \"c{i}\"\nbytes = 4000\n[call.measured]\ninput_tokens = {m}\nconvention = \"openai\"\n"
        ));
    }
    fs::write(&path, &text).unwrap();
    // Asked to write and refused: exit 2, so `fit --write && simulate …` stops.
    simulate()
        .args(["fit", "--write"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout(
            predicate::str::contains("This is a poor fit: R² = 0.576")
                .and(predicate::str::contains("Not written: the fit is poor")),
        )
        .stderr(predicate::str::contains(
            "write it anyway with --write --force",
        ));
    simulate()
        .arg("fit")
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("--write --force"));
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
    simulate()
        .args(["fit", "--write", "--force"])
        .arg(&path)
        .assert()
        .success();
    let written = fs::read_to_string(&path).unwrap();
    assert!(written.contains("bytes_per_token = 4.308\n"), "{written}");
    assert!(written.contains("base_tokens = 10595\n"), "{written}");
}

#[test]
fn an_implausible_fit_is_refused_before_writing_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinks.toml");
    let mut text = String::from("name = \"shrinks\"\nbase_tokens = 30000\nbytes_per_token = 3.3\n");
    // The measured input shrinks while bytes join: ρ = -3.333, which no text has.
    for (i, m) in [9000, 7000, 8000, 3000, 5000].iter().enumerate() {
        text.push_str(&format!(
            "[[call]]\nlabel = \"c{i}\"\nbytes = 4000\n[call.measured]\ninput_tokens = {m}\nconvention = \"openai\"\n"
        ));
    }
    fs::write(&path, &text).unwrap();
    simulate()
        .arg("fit")
        .arg(&path)
        .assert()
        .success()
        .stdout(
            predicate::str::contains(
                "These values cannot be used: ρ = -3.333 bytes per token is outside the physical 1 to 8",
            )
            .and(predicate::str::contains("--force").not()),
        );
    simulate()
        .args(["fit", "--write", "--force"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout(predicate::str::contains("--force does not change that"))
        .stderr(predicate::str::contains(
            "not written: the fitted values cannot be used (ρ = -3.333 bytes per token is outside the physical 1 to 8",
        ));
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        text,
        "a refused write changes nothing"
    );
}

/// The cache terms rest on the measured cache reads alone: `--write` writes them (exit 0)
/// where B and ρ are refused, and says so; B and ρ stay as they were.
#[test]
fn a_refused_fit_still_writes_its_cache_terms() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinks.toml");
    let mut text = String::from(
        "name = \"shrinks\"\nbase_tokens = 30000\nbytes_per_token = 3.3\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n",
    );
    // The measured input shrinks while bytes join (ρ = -3.333); the cache reads 4,000 of
    // the 7,000 a perfect cache would at the second request, all of it after.
    for (i, (m, read)) in [
        (9000, 0),
        (7000, 4000),
        (8000, 7000),
        (3000, 3000),
        (5000, 3000),
    ]
    .iter()
    .enumerate()
    {
        text.push_str(&format!(
            "[[call]]\nlabel = \"c{i}\"\nbytes = 4000\ngap_s = 10\n[call.measured]\ninput_tokens = 0\ncache_creation_input_tokens = {}\ncache_read_input_tokens = {read}\nconvention = \"anthropic\"\n",
            m - read
        ));
    }
    fs::write(&path, &text).unwrap();
    simulate()
        .args(["fit", "--write"])
        .arg(&path)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("These values cannot be used: ρ = -3.333")
                .and(predicate::str::contains(
                    "B and ρ are not written: they cannot be used (above), and --force does not change that. The scenario keeps its assumed B and ρ.",
                ))
                .and(predicate::str::contains(
                    "Written into [cache], labelled with their evidence: miss_share.",
                )),
        );
    let written = fs::read_to_string(&path).unwrap();
    assert!(
        written.contains("base_tokens = 30000\nbytes_per_token = 3.3\n"),
        "{written}"
    );
    // μ = 3,000 missed of 7,000 + 7,000 + 3,000 + 3,000 = 20,000 prefix tokens.
    assert!(
        written.contains("\nmiss_share = 0.15\nmiss_share_source = \"fitted (simulate fit: R² = "),
        "{written}"
    );
    assert!(written.contains(": 3,000 of 20,000 prefix tokens written again over 4 requests within the 300 s TTL)\"\n"), "{written}");
}

#[test]
fn an_edits_file_replaces_the_scenarios_edits() {
    let assert = simulate()
        .args([
            "tests/fixtures/good/small.toml",
            "--edits",
            "tests/fixtures/edits/rules.toml",
            "--no-write",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let names: Vec<&str> = v["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shorter system prompt", "cap reads at 300 bytes"]);
    // 6 calls × 200 tokens.
    assert_eq!(v["edits"][0]["saved_tokens"], 1200.0);
}

#[test]
fn a_bad_edits_file_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edits.toml");
    fs::write(
        &path,
        "[[edit]]\nname = \"x\"\ncapp = { select = { tool = \"Bash\" }, max_bytes = 10 }\n",
    )
    .unwrap();
    simulate()
        .args(["tests/fixtures/good/small.toml", "--no-write", "--edits"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("edits.toml:3:1: unknown field `capp`")
                .and(predicate::str::contains("did you mean `cap`?")),
        );
    fs::write(&path, "[[edit]]\nname = \"x\"\ndrop = { call = \"zz\" }\n").unwrap();
    simulate()
        .args(["tests/fixtures/good/small.toml", "--no-write", "--edits"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("edits.toml:3:")
                .and(predicate::str::contains("unknown call `zz`")),
        );
}

/// Regression: four axes of 65,536 values multiplied to 2⁶⁴, which wrapped to a sweep over
/// 0 points; and swept read prices above the write price were evaluated. Both are refused
/// with exit 2, naming the flags, before anything is written.
#[test]
fn sweep_flags_that_make_no_sense_are_refused_naming_the_flag() {
    let out = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        simulate()
            .arg("scenarios/clearing.toml")
            .arg("--out")
            .arg(out.path())
            .args(args)
            .assert()
            .code(2)
    };
    run(&[
        "--sweep-base",
        "1:65536:65536",
        "--sweep-bpt",
        "1:1000:65536",
        "--sweep-cache-read",
        "0.1:0.2:65536",
        "--sweep-retry",
        "0:1:65536",
    ])
    .stderr(predicate::str::contains(
        "error: command line: --sweep-base: the sweep grid has 73,786,976,294,838,206,464 points",
    ))
    .stderr(predicate::str::contains("--sweep-retry"));
    run(&["--sweep-cache-read", "5,100"]).stderr(predicate::str::starts_with(
        "error: command line: --sweep-cache-read: read prices 5, 100 are above the cache write price 1.25",
    ));
    assert_eq!(fs::read_dir(out.path()).unwrap().count(), 0);
}

#[test]
fn a_scenario_given_as_the_edits_file_is_named_as_such() {
    simulate()
        .args([
            "scenarios/merge.toml",
            "--no-write",
            "--edits",
            "scenarios/coding.toml",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "scenarios/coding.toml: this is a scenario file, but --edits takes a file of [[edit]] tables only",
        ));
}

/// A trace whose provider cache missed within its TTL: the fit measures the miss share,
/// says which requests missed, and with it written the simulated cost meets the measured.
#[test]
fn the_fit_measures_cache_misses_and_the_cost_then_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("misses.toml");
    let mut text = String::from(
        "name = \"misses\"\nbase_tokens = 30000\nbytes_per_token = 3.3\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n",
    );
    // Totals 20,000 + 2,000 a call (B = 20,000, ρ = 3.3: 6,600 bytes join each time); the
    // third request reads nothing from the cache and the fifth only 10,000 of 26,000.
    let reads = [0, 20_000, 0, 24_000, 10_000, 28_000];
    for (i, read) in reads.iter().enumerate() {
        let total = 20_000 + 2_000 * i;
        text.push_str(&format!(
            "[[call]]\nlabel = \"c{i}\"\nbytes = 6600\ngap_s = 10\n[call.measured]\ninput_tokens = 0\ncache_creation_input_tokens = {}\ncache_read_input_tokens = {read}\nconvention = \"anthropic\"\n",
            total - read
        ));
    }
    fs::write(&path, &text).unwrap();
    let assert = simulate()
        .args(["fit", "--write"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "cache miss share μ       0.317   (38,000 of 120,000 prefix tokens a perfect cache would read were written again)",
        ))
        .stdout(predicate::str::contains(
            "of 5 requests within the 300 s TTL: 2 read less than half of the previous input (1 nothing), 0 only part of it",
        ));
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.contains("cost vs measured"))
        .unwrap();
    let pct: Vec<f64> = line
        .split_whitespace()
        .filter_map(|w| w.parse::<f64>().ok())
        .collect();
    assert_eq!(pct.len(), 2, "{line}");
    assert!(pct[0] < -20.0 && pct[1].abs() < 1.0, "{line}");
    let written = fs::read_to_string(&path).unwrap();
    assert!(written.contains("miss_share = 0.317\n"), "{written}");
    // The run names the misses with their counts, and says the cost model prices them.
    simulate()
        .arg(&path)
        .args(["--no-write", "--format", "json"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "of 5 requests within the 300 s TTL, 2 read less than half of the previous request's input from the cache (1 nothing at all) and 0 only part of it: 38,000 of 120,000 prefix tokens a perfect cache would read were written again (μ = 0.317); the cost model prices a share of 0.317 as written again ([cache] miss_share)",
        ));
}

/// The best clearing edit the API can express comes with the `context_management` to
/// paste into requests; a compaction is listed with the clearings.
#[test]
fn the_winning_context_editing_is_printed_as_the_apis_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ce.toml");
    let mut text = String::from("name = \"ce\"\nbase_tokens = 1000\nbytes_per_token = 1\n");
    for i in 0..6 {
        text.push_str(&format!(
            "[[call]]\nlabel = \"c{i}\"\nbytes = 2000\ntool = \"Read\"\n"
        ));
    }
    text.push_str("[[edit]]\nname = \"context editing\"\nclear = { api = \"clear_tool_uses_20250919\", trigger_input_tokens = 6000, keep_tool_uses = 1, exclude_tools = [\"WebSearch\"] }\n[[edit]]\nname = \"compact\"\ncompact = { above_context_tokens = 6000, summary_tokens = 500 }\n");
    fs::write(&path, &text).unwrap();
    let out = simulate()
        .arg(&path)
        .args(["--no-write", "--format", "json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let cm = &v["context_management"];
    assert_eq!(cm["edit"], "context editing");
    assert_eq!(cm["beta_header"], "context-management-2025-06-27");
    assert_eq!(
        cm["request"],
        serde_json::json!({"context_management": {"edits": [{
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 6000},
            "keep": {"type": "tool_uses", "value": 1},
            "exclude_tools": ["WebSearch"]
        }]}})
    );
    simulate()
        .arg(&path)
        .arg("--no-write")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "compact: 1 compaction before call 4; 3 calls summarized into 500 tokens each time, 5,500 est. tokens freed",
        ))
        .stdout(predicate::str::contains(
            "To turn on \"context editing\" with the Messages API, add to each request (header anthropic-beta: context-management-2025-06-27):",
        ));
}

#[test]
fn compaction_and_context_editing_keys_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let head = "name = \"k\"\nbase_tokens = 1000\nbytes_per_token = 1\n[[call]]\nlabel = \"a\"\nbytes = 10\n[[edit]]\nname = \"e\"\n";
    for (edit, message) in [
        (
            "compact = { above_context_tokens = 5000 }",
            "missing key `summary_tokens`",
        ),
        (
            "compact = { preset = \"compact_20260112\", above_context_tokens = 40000, summary_tokens = 10 }",
            "40,000 is below the 50,000 tokens the Messages API's compaction accepts as a trigger",
        ),
        (
            "compact = { at_percent = 80, summary_tokens = 10 }",
            "at_percent needs window_tokens",
        ),
        (
            "clear = { trigger_input_tokens = 5000 }",
            "trigger_input_tokens is a key of the provider's context editing: add api = \"clear_tool_uses_20250919\"",
        ),
        (
            "clear = { api = \"clear_tool_uses_20250919\", every_segments = 2 }",
            "every_segments is not a key of clear_tool_uses_20250919",
        ),
        (
            "clear = { api = \"clear_tool_uses_20250919\", every_calls = 10 }",
            "every_calls is not a key of clear_tool_uses_20250919",
        ),
        (
            "clear = { every_calls = 0, keep_results = 10 }",
            "clear.every_calls: 0 must be a whole number ≥ 1",
        ),
    ] {
        let path = dir.path().join("k.toml");
        fs::write(&path, format!("{head}{edit}\n")).unwrap();
        simulate()
            .arg(&path)
            .arg("--no-write")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
}

/// Issue 19 §3: above 10,000,000 rows `ledger.csv` is left out, said in a warning, unless
/// `--ledger-csv` asks for it (here 1,000,001 calls and 9 edits dropping one each:
/// 10,000,001 rows).
#[test]
fn a_ledger_csv_of_more_than_ten_million_rows_is_written_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let trace: String = (1..=1_000_001u32)
        .map(|i| format!("{i}\tc\t{}\n", 100 + i % 7))
        .collect();
    fs::write(dir.path().join("t.tsv"), trace).unwrap();
    let edits: String = (1..=9)
        .map(|k| format!("[[edit]]\nname = \"drop {k}\"\ndrop = {{ call = \"{k}\" }}\n"))
        .collect();
    fs::write(
        dir.path().join("big.toml"),
        format!("name = \"big\"\nbase_tokens = 1000\nbytes_per_token = 3.3\ncalls_tsv = \"t.tsv\"\n[sweep]\nbase_tokens = [1000]\nbytes_per_token = [3.3]\n{edits}"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = |extra: &[&str]| {
        simulate()
            .arg(dir.path().join("big.toml"))
            .args(["--no-charts", "--out"])
            .arg(&out)
            .args(extra)
            .assert()
            .success()
    };
    run(&[]).stdout(predicate::str::contains(
        "ledger.csv is not written: it would hold 10,000,001 rows (one per call of each of the 10 runs, roughly 0.8 GB)",
    ));
    assert!(!out.join("big/ledger.csv").exists());
    assert!(out.join("big/summary.csv").exists());
    // With --ledger-csv it would be written (800 MB: not here); a run under the limit
    // writes it without asking, as every scenario in tests/ shows.
}

/// A cap of a tool no call has: a slip that saves nothing.
const CAP_BASH: &str =
    "[[edit]]\nname = \"cap bash\"\ncap = { select = { tool = \"bash\" }, max_bytes = 100 }\n";

/// Runs the shipped imported scenario with `edits` (an edits file's text) and `args`,
/// writing nothing; returns stdout and stderr.
fn shop_with(edits: &str, args: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.toml");
    fs::write(&path, edits).unwrap();
    let output = simulate()
        .args(["scenarios/imported/shop-5e55a0e1.toml", "--no-write"])
        .args(args)
        .arg("--edits")
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (text(output.stdout), text(output.stderr))
}

/// With `--format csv` the CSV alone is on standard output and every warning on standard
/// error (before: a mistyped selector's warning was printed nowhere).
#[test]
fn warnings_reach_stderr_when_stdout_is_csv() {
    let (stdout, stderr) = shop_with(CAP_BASH, &["--format", "csv"]);
    assert!(
        stderr.contains("Warning: [[edit]] \"cap bash\": cap: the selector matches no call in this trace: no call has tool \"bash\" (did you mean \"Bash\"?)"),
        "{stderr}"
    );
    assert!(
        stdout.starts_with("rank,edit,") && !stdout.contains("Warning"),
        "{stdout}"
    );
}

/// The answer never says an edit "saves the most cost" when the best by cost saves
/// nothing or costs more (before: "It also saves the most cost (-2,894.1 %)"); with
/// prices it leads with the dollars, measured beside simulated (docs/model.md §4).
#[test]
fn the_answer_says_when_no_edit_saves_cost() {
    let (nothing, _) = shop_with(CAP_BASH, &[]);
    assert!(
        nothing.contains(
            "This session cost $3.99 measured ($3.95 simulated). No edit saves any cost. cap bash saves nothing: every saving is 0 est. tokens or less."
        ),
        "{nothing}"
    );
    let (more, _) = shop_with(
        "[[edit]]\nname = \"dear cache\"\ncache = { write = 20 }\n[[edit]]\nname = \"dearer\"\ncache = { write = 40 }\n",
        &[],
    );
    assert!(
        more.contains(
            "By cost every edit costs more than the baseline; the least, dear cache, by "
        ),
        "{more}"
    );
    assert!(!more.contains("saves the most cost"), "{more}");
}

/// No "rankings differ" between winners that save nothing (before: "short ttl saves the
/// most reread tokens (0.0 %), but cap bash saves the most cost (0.0 %)").
#[test]
fn winners_that_save_nothing_are_not_compared() {
    let (text, _) = shop_with(
        &format!("{CAP_BASH}[[edit]]\nname = \"short ttl\"\ncache = {{ ttl_s = 10 }}\n"),
        &[],
    );
    assert!(text.contains("No edit saves any cost."), "{text}");
    assert!(!text.contains("The rankings differ"), "{text}");
}

/// Every refused `history` flag is reported the one way main.rs reports an error
/// (`error: ` lowercase, then the message) and exits 2, with nothing on stdout and no
/// `--out` folder made: the flags clap checks (`--group-by`, `--merge` with a folder) and
/// the ones `cli.rs` and `command::history` check after it (`--shard`, the factors,
/// `--name`, `--merge` of a folder that is not a shard, `--files-from`).
#[test]
fn refused_history_flags_say_error_and_exit_2_writing_nothing() {
    const DIR: &str = "scenarios/history";
    const EDITS: &str = "scenarios/history/edits.toml";
    let cases: &[(&[&str], &str)] = &[
        (
            &["--shard", "0/2"],
            "error: command line: --shard: `0/2` is not a shard: give K/N with 1 ≤ K ≤ N",
        ),
        (
            &["--shard", "3/2"],
            "error: command line: --shard: `3/2` is not a shard",
        ),
        (
            &["--shard", "2"],
            "error: command line: --shard: `2` is not a shard",
        ),
        (
            &["--group-by", "planet"],
            "error: invalid value 'planet' for '--group-by <BY>'",
        ),
        (
            &["--base-factors", "x"],
            "error: command line: --base-factors: `x` is not a number",
        ),
        (
            &["--bpt-factors", "0"],
            "error: command line: --bpt-factors: factor 0 on --bpt-factors is out of range",
        ),
        (
            &["--name", "a/b"],
            "error: command line: --name: `a/b` is not a valid name",
        ),
        (
            &["--files-from", "no-such-list"],
            "error: no-such-list: cannot read",
        ),
        (
            &["--merge", "x"],
            "error: the argument '[DIR]' cannot be used with '--merge <SHARD>...'",
        ),
    ];
    for (flags, expected) in cases {
        let out = tempfile::tempdir().unwrap();
        let root = out.path().join("out");
        let assert = simulate()
            .args(["history", DIR, "--edits", EDITS])
            .args(*flags)
            .arg("--out")
            .arg(&root)
            .assert()
            .code(2)
            .stdout("");
        let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert!(stderr.starts_with(expected), "{flags:?}: {stderr}");
        assert!(!root.exists(), "{flags:?} made {}", root.display());
    }
    // A merge of a folder that holds no shard is refused the same way.
    let out = tempfile::tempdir().unwrap();
    let root = out.path().join("out");
    let assert = simulate()
        .args(["history", "--merge", DIR, "--out"])
        .arg(&root)
        .assert()
        .code(2)
        .stdout("");
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.starts_with("error: scenarios/history: no shard.jsonl here: --merge takes"),
        "{stderr}"
    );
    assert!(!root.exists());
}

/// A TTL given without its write price is legal but almost surely a slip, and says so;
/// and where no edit saves reread tokens, the cost sentence names its edit (before: "No
/// edit saves anything: … It also saves the most cost (40.2 %)", "it" naming nothing).
/// docs/model.md §9's example: B 10,000, ρ 1, three calls of 1,000 bytes, a 10-minute pause.
#[test]
fn a_ttl_without_its_write_price_is_warned_and_the_cost_winner_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    fs::write(
        &path,
        "name = \"c\"\nbase_tokens = 10000\nbytes_per_token = 1\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n\
         [[call]]\nlabel = \"a\"\nbytes = 1000\n[[call]]\nlabel = \"b\"\nbytes = 1000\ngap_s = 600\n[[call]]\nlabel = \"c\"\nbytes = 1000\n\
         [[edit]]\nname = \"1h no write\"\ncache = { ttl_s = 3600 }\n[[edit]]\nname = \"1h\"\ncache = { ttl_s = 3600, write = 2.0 }\n",
    )
    .unwrap();
    let output = simulate().arg(&path).arg("--no-write").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("Warning: [[edit]] \"1h no write\": cache: ttl_s = 3600 keeps the 5-minute cache's write price (1.25×), though 1-hour cache writes cost 2× the input price at Anthropic"),
        "{text}"
    );
    assert!(!text.contains("Warning: [[edit]] \"1h\":"), "{text}");
    assert!(
        text.contains("No edit saves anything: every saving is 0 est. tokens or less. By cost, 1h no write saves the most (40.2 %)."),
        "{text}"
    );
    // The documented figure: 28,600 → 26,100 with the 1-hour write price, 8.7 %.
    assert!(text.contains("8.7 %"), "{text}");
}

/// A kind that is almost `web_search` or `tool` is legal and almost surely a slip that
/// loses the pinning or the default: warned, with the count; the real ones are not.
#[test]
fn a_kind_almost_web_search_or_tool_is_warned() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("k.tsv"),
        "# number\tlabel\tbytes\tkind\n1\tq\t300\twebsearch\n2\tr\t400\tTool\n3\ts\t500\ttool\n4\tt\t10\tweb_search\n5\tu\t20\tWeb-Search\n6\tv\t30\twebsearch\n",
    )
    .unwrap();
    let path = dir.path().join("k.toml");
    fs::write(
        &path,
        "name = \"k\"\nbase_tokens = 1000\nbytes_per_token = 3\ncalls_tsv = \"k.tsv\"\n",
    )
    .unwrap();
    let output = simulate().arg(&path).arg("--no-write").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let slips: Vec<&str> = text.lines().filter(|l| l.contains("almost `")).collect();
    assert_eq!(slips.len(), 3, "{text}");
    assert!(slips[0].contains("kind `websearch` (2 calls): almost `web_search`, which is pinned (never cleared) by default, and these calls are not; write `web_search`"), "{text}");
    assert!(
        slips[1].contains("kind `Tool` (1 call): almost `tool`, the default kind"),
        "{text}"
    );
    assert!(
        slips[2].contains("kind `Web-Search` (1 call): almost `web_search`"),
        "{text}"
    );
}

/// Issue 27 §6: the commands listed are the agent-log and scenario ones; `telemetry` (a
/// memory system's own log) is named apart, and still runs.
#[test]
fn help_lists_the_agent_log_commands_and_names_telemetry_apart() {
    let out = simulate().arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(!commands.contains(&"telemetry"), "{commands:?}");
    assert!(commands.contains(&"import") && commands.contains(&"suggest"));
    assert!(help.contains("Apart from agent logs: `simulate telemetry FILE.jsonl --unit NAME`"));
    simulate()
        .args([
            "telemetry",
            "tests/fixtures/telemetry/demo.jsonl",
            "--unit",
            "x",
        ])
        .assert()
        .success();
}
