//! The binary against an independent implementation of MODEL.md §1–§5, §9, §11 and §12's
//! `avoid` (`tests/oracle/oracle.py`: Python, standard library only, written from MODEL.md without
//! reading the engine), on random scenarios: the baseline's and every edit's reread total,
//! cost, dollars and calls; every `ledger.csv` row; every clearing and compaction event;
//! every `sweep.csv` point; all at a relative tolerance of 1e-9.
//!
//! Needs `python3` (3.11 or later, for `tomllib`): without it the tests skip with a printed
//! reason, unless `SIMULATE_REQUIRE_PYTHON` is set (`.ci/run` sets it), when they fail.
//! `SIMULATE_ORACLE_CASES=N` changes the number of cases, `SIMULATE_ORACLE_SEED=S` the first
//! seed; `SIMULATE_ORACLE_KEEP=DIR` keeps
//! the scenarios and the binary's outputs there, to rerun a failing case by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "oracle/compare.rs"]
mod compare;
#[path = "oracle/generate.rs"]
mod generate;

use compare::Diff;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ORACLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/oracle.py");

/// Whether `python3` (with `tomllib`) runs; where it does not, skip with a printed reason,
/// or fail where `SIMULATE_REQUIRE_PYTHON` is set.
fn python_available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import tomllib"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("SIMULATE_REQUIRE_PYTHON").is_none(),
            "SIMULATE_REQUIRE_PYTHON is set but python3 (3.11 or later, with tomllib) does not run"
        );
        eprintln!("skipped: python3 (3.11 or later, with tomllib) is not on the PATH");
    }
    ok
}

/// The binary's outputs for one scenario: its JSON report, `ledger.csv`, `sweep.csv`.
struct Engine {
    json: Value,
    ledger: compare::Rows,
    sweep: compare::Rows,
}

fn run_engine(path: &Path, out: &Path) -> Result<Engine, String> {
    let output = Command::new(env!("CARGO_BIN_EXE_simulate"))
        .arg(path)
        .arg("--format")
        .arg("json")
        .arg("--no-charts")
        .arg("--out")
        .arg(out)
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "exit {:?}: {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let json: Value = serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
    let name = json["scenario"].as_str().unwrap_or_default().to_string();
    let dir = out.join(name);
    Ok(Engine {
        json,
        ledger: compare::read_csv(&dir.join("ledger.csv"))?,
        sweep: compare::read_csv(&dir.join("sweep.csv"))?,
    })
}

/// Runs `cases` (file name, TOML) through both and returns every disagreement, with the
/// scenario text of each case that has one.
fn check(label: &str, cases: &[(String, String)]) -> (Vec<Diff>, Vec<(String, String)>) {
    let temp = tempfile::tempdir().unwrap();
    let root: PathBuf = match std::env::var_os("SIMULATE_ORACLE_KEEP") {
        Some(dir) => PathBuf::from(dir).join(label),
        None => temp.path().to_path_buf(),
    };
    let scenarios = root.join("scenarios");
    let out = root.join("out");
    fs::create_dir_all(&scenarios).unwrap();
    fs::create_dir_all(&out).unwrap();
    let paths: Vec<PathBuf> = cases
        .iter()
        .map(|(name, text)| {
            let path = scenarios.join(format!("{name}.toml"));
            fs::write(&path, text).unwrap();
            path
        })
        .collect();

    // The oracle, once for every case, while the binary runs.
    let oracle = Command::new("python3")
        .arg(ORACLE)
        .args(&paths)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // The binary, on four threads (each run mostly waits for its files to be written).
    let engines: Vec<Result<Engine, String>> = std::thread::scope(|s| {
        let chunk = paths.len().div_ceil(4).max(1);
        let handles: Vec<_> = paths
            .chunks(chunk)
            .map(|chunk| {
                let out = &out;
                s.spawn(move || chunk.iter().map(|p| run_engine(p, out)).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });

    let oracle = oracle.wait_with_output().unwrap();
    assert!(
        oracle.status.success(),
        "the oracle failed: {}",
        String::from_utf8_lossy(&oracle.stderr)
    );
    let oracle: Value = serde_json::from_slice(&oracle.stdout).unwrap();

    let mut diffs = Vec::new();
    let mut failing = Vec::new();
    for (((name, text), path), engine) in cases.iter().zip(&paths).zip(engines) {
        let o = &oracle[path.to_str().unwrap()];
        if let Some(reason) = o["refused"].as_str() {
            panic!("{name}: the oracle refused the generated case ({reason}):\n{text}");
        }
        let found = match engine {
            Ok(e) => compare::case(name, &e.json, &e.ledger, &e.sweep, o),
            Err(err) => vec![Diff {
                case: name.clone(),
                what: "the binary refused the case".into(),
                engine: err,
                oracle: "a result".into(),
            }],
        };
        if !found.is_empty() {
            failing.push((name.clone(), text.clone()));
        }
        diffs.extend(found);
    }
    (diffs, failing)
}

/// Fails with the first disagreements and the scenarios they come from.
fn report(diffs: &[Diff], failing: &[(String, String)], cases: usize) {
    if diffs.is_empty() {
        return;
    }
    let mut text = format!(
        "{} disagreements in {} of {cases} cases; the first:\n",
        diffs.len(),
        failing.len()
    );
    // At most three per case, so that one case does not hide the others.
    let mut shown: Vec<(&str, usize)> = Vec::new();
    for d in diffs {
        let n = match shown.iter_mut().find(|(c, _)| *c == d.case) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                shown.push((&d.case, 1));
                1
            }
        };
        if n <= 3 && shown.len() <= 15 {
            text.push_str(&format!(
                "  {}: {}: binary {} / oracle {}\n",
                d.case, d.what, d.engine, d.oracle
            ));
        }
    }
    for (name, toml) in failing.iter().take(2) {
        text.push_str(&format!("\n--- {name}.toml\n{toml}"));
    }
    panic!("{text}");
}

fn cases() -> usize {
    std::env::var("SIMULATE_ORACLE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200)
}

fn random(label: &str, seed: u64, options: generate::Options) {
    if !python_available() {
        return;
    }
    let n = cases();
    let seed = std::env::var("SIMULATE_ORACLE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(seed);
    let cases: Vec<(String, String)> = (0..n as u64)
        .map(|i| {
            let seed = seed + i;
            (format!("case-{seed}"), generate::scenario(seed, options))
        })
        .collect();
    let (diffs, failing) = check(label, &cases);
    report(&diffs, &failing, n);
}

/// Every kind of edit but the API's context editing, on random cases.
#[test]
fn the_binary_agrees_with_an_independent_implementation_on_random_cases() {
    random(
        "random",
        1_000,
        generate::Options {
            context_editing: false,
        },
    );
}

/// The API's context editing (MODEL §9, stateless: each request edited on its own from the
/// full history), among the other edits.
#[test]
fn the_binary_agrees_with_an_independent_implementation_on_context_editing() {
    random(
        "context-editing",
        50_000,
        generate::Options {
            context_editing: true,
        },
    );
}

/// Hand-made cases through both: `tests/fixtures/oracle/NAME.toml`.
fn fixed(name: &str) {
    if !python_available() {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/oracle")
        .join(format!("{name}.toml"));
    let cases = vec![(name.to_string(), fs::read_to_string(path).unwrap())];
    let (diffs, failing) = check(name, &cases);
    report(&diffs, &failing, 1);
}

/// MODEL §4, each call at its own model: calls at claude-sonnet-4-5 and claude-opus-4-5,
/// their prices as src/cache/litellm.json has them (exact figures:
/// tests/model_examples.rs, `model_4_each_call_at_its_own_model`).
#[test]
fn the_binary_agrees_with_the_oracle_on_calls_at_two_models() {
    fixed("two_models");
}

/// MODEL §3: a result of exactly the placeholder's size is clearable (`tokens + bytes/ρ >
/// 0`) and a clearing of it frees 0 tokens, not fewer than `clear_at_least_tokens = 0`, so
/// it happens: before call 4, result `b` (9 bytes) is cleared, at every ρ. The binary
/// clears it at ρ = 1 or 4 but not at 3.3 or 1.7, where its freed tokens, a difference of
/// two sums, come out a hair below 0.
#[test]
fn a_result_the_size_of_its_placeholder_is_cleared_at_every_bytes_per_token() {
    fixed("placeholder_sized");
}

/// MODEL §3 and §5: with `placeholder_bytes = 40`, clearing a result of 42 measured tokens
/// frees 2 tokens at ρ = 1 but 42 − 80 < 0 at ρ = 0.5, where it does not happen (fewer
/// than `clear_at_least_tokens = 0`). The binary's run at `--bpt 0.5` agrees (no clearing,
/// T = 3,284); its sweep.csv point at ρ = 0.5 applies the nominal point's clearing
/// (T = 3,322, −38 saved).
#[test]
fn the_sweep_agrees_with_a_run_where_a_clearing_would_free_fewer_than_nothing() {
    fixed("negative_freed");
}

/// docs/model.md §9's worked example of `at = "cold"` (`tests/fixtures/edits/at_cold.toml`:
/// B = 1,000, ρ = 1, five calls of 1,000 bytes, the fourth after 400 s; read 0.1, write
/// 1.25, TTL 300 s), its figures from the oracle, then the binary against it.
#[test]
fn the_oracle_gives_the_worked_example_of_at_cold() {
    if !python_available() {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/edits/at_cold.toml");
    let out = Command::new("python3")
        .arg(ORACLE)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all: Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = &all[path.to_str().unwrap()]["runs"];
    let cost = |name: &str| runs[name]["cost"].as_f64().unwrap();
    let before = |name: &str| -> Vec<u64> {
        runs[name]["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["before_call"].as_u64().unwrap())
            .collect()
    };
    // 1,250 + 1,350 + 1,450 + 5,000 (the pause expired the prefix) + 1,650.
    assert_eq!(cost("baseline"), 10_700.0);
    // Clearing before calls 3, 4 and 5: 1,250 + 1,350 + 1,361.25 + 2,522.5 + 1,363.05.
    assert!((cost("clear") - 7_846.8).abs() < 1e-9, "{}", cost("clear"));
    assert_eq!(before("clear"), vec![3, 4, 5]);
    // Cold: armed before call 3, cleared once before call 4 (calls 1 and 2):
    // 4,050 + 2,522.5 + 1,451.8, reread total 11,036.
    assert!(
        (cost("clear-cold") - 8_024.3).abs() < 1e-9,
        "{}",
        cost("clear-cold")
    );
    assert_eq!(
        runs["clear-cold"]["total_tokens"].as_f64().unwrap(),
        11_036.0
    );
    assert_eq!(before("clear-cold"), vec![4]);
    assert_eq!(
        runs["clear-cold"]["events"][0]["cleared"],
        serde_json::json!(["a", "b"])
    );
    assert_eq!(before("compact"), vec![3, 5]);
    assert_eq!(before("compact-cold"), vec![4]);

    let cases = vec![("at_cold".to_string(), fs::read_to_string(&path).unwrap())];
    let (diffs, failing) = check("at_cold", &cases);
    report(&diffs, &failing, 1);
}

/// docs/model.md §3 and §9: a cold clearing's trigger (`after_gap_s`) that found nothing to
/// clear stays armed for the next cold call (exact figures: tests/at_cold.rs).
#[test]
fn a_cold_trigger_that_found_nothing_to_clear_stays_armed() {
    fixed("cold_armed");
}

/// docs/model.md §9's worked example of `cache = { avoid = [...] }`, with a miss share
/// (docs/model.md §4): baseline 10,200, avoid ttl 9,050, avoid ttl, cold and unexplained
/// 4,450 (exact figures: tests/whatif.rs).
#[test]
fn the_binary_agrees_with_the_oracle_on_avoided_breaks() {
    fixed("avoid");
}
