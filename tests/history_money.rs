//! A history in dollars and against what was measured (issue "The answer in money, and
//! true"; docs/model.md §4, §6): sessions at different models are ranked by the dollars
//! their edits save, not by input-token equivalents, which are not worth the same from one
//! model to another; the sessions whose simulated cost is off the measured are named, and
//! `--max-cost-diff` leaves them out of the sums.
#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::Path;

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// A session of three calls (B = 1,000, ρ = 1), the first of `bytes` labelled `label`,
/// priced as `model`, without a cache.
fn priced(name: &str, model: &str, label: &str, bytes: u64) -> String {
    format!(
        "name = \"{name}\"\nbase_tokens = 1000\nbytes_per_token = 1.0\n[price]\nmodel = \"{model}\"\n\
         [[call]]\nid = \"c1\"\nlabel = \"{label}\"\nbytes = {bytes}\n\
         [[call]]\nid = \"c2\"\nbytes = 0\n[[call]]\nid = \"c3\"\nbytes = 0\n"
    )
}

fn history_json(dir: &Path, edits: &Path, extra: &[&str]) -> Value {
    let out = simulate()
        .arg("history")
        .arg(dir)
        .arg("--edits")
        .arg(edits)
        .args(["--no-write", "--format", "json"])
        .args(extra)
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn edit<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
}

/// Halving Opus 4.1's 10,000-byte result saves 10,000 tokens ($0.15 at $15/M); halving
/// Haiku 4.5's 30,000-byte result saves 30,000 tokens ($0.03 at $1/M). In input-token
/// equivalents the Haiku edit saves three times as much; in dollars, a fifth. Every
/// session is priced, so the cost ranking is by dollars: the Opus edit first. The sessions
/// cost 23,000 × $15/M + 63,000 × $1/M = $0.408.
#[test]
fn sessions_at_different_models_are_ranked_by_dollars() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    fs::create_dir(&sessions).unwrap();
    fs::write(
        sessions.join("a.toml"),
        priced("a", "claude-opus-4-1", "a-file", 10_000),
    )
    .unwrap();
    fs::write(
        sessions.join("b.toml"),
        priced("b", "claude-haiku-4-5", "b-file", 30_000),
    )
    .unwrap();
    let edits = dir.path().join("edits.toml");
    fs::write(
        &edits,
        "[[edit]]\nname = \"halve a\"\ntrim = { select = { label = \"a-*\" }, by_percent = 50 }\n\
         [[edit]]\nname = \"halve b\"\ntrim = { select = { label = \"b-*\" }, by_percent = 50 }\n",
    )
    .unwrap();
    let r = history_json(&sessions, &edits, &[]);
    assert_eq!(r["baseline"]["ranked_by_dollars"], true, "{r:#}");
    let (a, b) = (edit(&r, "halve a"), edit(&r, "halve b"));
    assert_eq!(a["cost_saved"].as_f64(), Some(10_000.0));
    assert_eq!(b["cost_saved"].as_f64(), Some(30_000.0));
    let close = |x: &Value, want: f64| (x.as_f64().unwrap() - want).abs() < 1e-12;
    assert!(close(&a["dollars_saved"], 0.15), "{a:#}");
    assert!(close(&b["dollars_saved"], 0.03), "{b:#}");
    assert_eq!(
        (a["cost_rank"].as_u64(), b["cost_rank"].as_u64()),
        (Some(1), Some(2))
    );
    // The answer leads with the dollars.
    assert!(
        r["answer"]
            .as_str()
            .unwrap()
            .starts_with("Your 2 sessions cost $0.41 (simulated). The top change, halve a, saves about $0.15 (36.8 % of the summed dollars)."),
        "{}",
        r["answer"]
    );
}

/// A session of three calls under Sonnet 4.5's cache (B = 2,000, ρ = 1, results of 500
/// bytes) whose measured usage is the simulation's (cost 4,200 both), or, with `off`, a first
/// request that wrote 4,000 tokens where the simulation writes 2,000.
fn measured(name: &str, off: bool) -> String {
    let first = if off { 4000 } else { 2000 };
    let mut s = format!(
        "name = \"{name}\"\nbase_tokens = 2000\nbytes_per_token = 1.0\n[cache]\npreset = \"claude-sonnet-4-5\"\n[price]\nmodel = \"claude-sonnet-4-5\"\n"
    );
    for (i, (written, read)) in [(first, 0), (500, 2000), (500, 2500)].iter().enumerate() {
        s.push_str(&format!(
            "[[call]]\nid = \"c{i}\"\nlabel = \"r{i}\"\nbytes = 500\n[call.measured]\ninput_tokens = 0\ncache_creation_input_tokens = {written}\ncache_read_input_tokens = {read}\noutput_tokens = 0\nmodel = \"claude-sonnet-4-5-20250929\"\nconvention = \"anthropic\"\n"
        ));
    }
    s
}

/// Measured beside simulated over the sessions, the one that is off named, and left out of
/// every sum by `--max-cost-diff 5`. The off session's measured cost is 2,500 (its first
/// write) more: 6,700 against 4,200 simulated, −37.3 %.
#[test]
fn sessions_off_the_measured_are_named_and_can_be_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    fs::create_dir(&sessions).unwrap();
    fs::write(sessions.join("good.toml"), measured("good", false)).unwrap();
    fs::write(sessions.join("off.toml"), measured("off", true)).unwrap();
    let edits = dir.path().join("edits.toml");
    fs::write(
        &edits,
        "[[edit]]\nname = \"halve\"\ntrim = { select = { label = \"r1\" }, by_percent = 50 }\n",
    )
    .unwrap();
    let r = history_json(&sessions, &edits, &[]);
    let m = &r["measured"];
    assert_eq!(m["sessions"], 2, "{r:#}");
    assert_eq!(m["measured_input_tokens"].as_f64(), Some(17_000.0));
    assert_eq!(m["simulated_input_tokens"].as_f64(), Some(15_000.0));
    assert_eq!(m["off"]["count"], 1);
    let (name, pct) = (
        &m["off"]["listed"][0][0],
        m["off"]["listed"][0][1].as_f64().unwrap(),
    );
    assert_eq!(name, "off");
    assert!(
        (pct - 100.0 * (4_200.0 - 6_700.0) / 6_700.0).abs() < 1e-9,
        "{pct}"
    );
    let said = r["simulation_differs"][0].as_str().unwrap();
    assert!(
        said.starts_with("1 of the 2 sessions with measured usage has a simulated cost more than 5.0 % off the measured (off -37.3 %)"),
        "{said}"
    );
    // Left out: the sums are the good session's alone, and the table says so.
    let kept = history_json(&sessions, &edits, &["--max-cost-diff", "5"]);
    assert_eq!(kept["baseline"]["sessions"], 1);
    assert_eq!(kept["excluded"]["count"], 1);
    assert_eq!(kept["measured"]["sessions"], 1);
    assert_eq!(kept["measured"]["off"]["count"], 0);
    let table = simulate()
        .arg("history")
        .arg(&sessions)
        .arg("--edits")
        .arg(&edits)
        .args(["--no-write", "--max-cost-diff", "5"])
        .assert()
        .success();
    let text = String::from_utf8(table.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("Note: --max-cost-diff left 1 session out of every sum, their simulated cost too far from the measured: off -37.3 %."),
        "{text}"
    );
    // A percentage that is not one is refused on the command line.
    simulate()
        .arg("history")
        .arg(&sessions)
        .arg("--edits")
        .arg(&edits)
        .args(["--no-write", "--max-cost-diff", "-3"])
        .assert()
        .code(2);
}

/// A single run whose simulated cost is more than 5 % off the measured says so in its
/// first lines, before the assumptions and the answer (it was 30 lines down).
#[test]
fn a_single_run_off_the_measured_says_so_first() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("off.toml");
    fs::write(&file, measured("off", true)).unwrap();
    let out = simulate().arg(&file).arg("--no-write").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let second = text.lines().nth(1).unwrap();
    assert!(
        second.starts_with(
            "  Note: The simulated cost is 37.3 % lower than measured (measured on 3 of 3 calls):"
        ),
        "{text}"
    );
    // And the answer leads with the dollars, measured beside simulated.
    assert!(
        text.contains("This session cost $0.02 measured ($0.01 simulated)."),
        "{text}"
    );
}
