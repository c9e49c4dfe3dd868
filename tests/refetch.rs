//! MODEL §11 through the binary: the re-fetch rate `[behaviour] refetch`, exact figures on a
//! hand-made trace for the rules that remove results (a cap's cut, a dedupe's repeat), the
//! rate at which each stops saving, and the baseline's own re-reads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::process::Command;

/// B = 1,000, ρ = 1; `Read` 3,000 bytes (h1), `Bash` 1,000 (h2), `Read` 1,000 (h1 again),
/// `Bash` 500 (no hash). The baseline reads 1,000, 4,000, 5,000, 6,000: T = 16,000.
const TRACE: &str = r#"name = "refetch"
base_tokens = 1000
bytes_per_token = 1.0
[[call]]
id = "a"
tool = "Read"
bytes = 3000
input_hash = "h1"
[[call]]
id = "b"
tool = "Bash"
bytes = 1000
input_hash = "h2"
[[call]]
id = "c"
tool = "Read"
bytes = 1000
input_hash = "h1"
[[call]]
id = "d"
tool = "Bash"
bytes = 500
[[edit]]
name = "cap reads"
cap = { select = { tool = "Read" }, max_bytes = 1000 }
[[edit]]
name = "dedupe reads"
dedupe = { select = { tool = "Read" } }
"#;

/// The JSON report and stderr of the trace with `behaviour` (a `[behaviour]` table or
/// nothing) after its header.
fn run(behaviour: &str) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("refetch.toml");
    let text = TRACE.replacen("[[call]]", &format!("{behaviour}[[call]]"), 1);
    std::fs::write(&path, text).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_simulate"))
        .arg(&path)
        .args(["--format", "json", "--no-write"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        serde_json::from_slice(&output.stdout).unwrap(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn edit<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
}

fn behaviour<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["behaviour"]["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
}

/// At rate 0 the cap reads 1,000, 2,000, 3,000, 4,000 (T = 10,000) and the dedupe 1,000,
/// 4,000, 5,000, 5,009 (T = 15,009). At rate 1 (⌈1/1⌉ = 1: every removed result): the
/// cap's cut 2,000 bytes of `a` are fetched right after `b`, reading 3,000, then `c` reads
/// 5,000 and `d` 6,000: T = 17,000; the dedupe's repeat `c` (1,000) is fetched right after
/// `d`, the last call, reading 5,509: T = 20,518.
#[test]
fn every_removed_result_fetched_again_costs_17_000_and_20_518_against_16_000() {
    let (json, _) = run("");
    assert_eq!(json["baseline"]["total_tokens"], 16_000.0);
    assert_eq!(edit(&json, "cap reads")["total_tokens"], 10_000.0);
    assert_eq!(edit(&json, "dedupe reads")["total_tokens"], 15_009.0);
    let (json, stderr) = run("[behaviour]\nrefetch = 1\n");
    let cap = edit(&json, "cap reads");
    assert_eq!(cap["total_tokens"], 17_000.0);
    assert_eq!(cap["calls"], 5);
    let dedupe = edit(&json, "dedupe reads");
    assert_eq!(dedupe["total_tokens"], 20_518.0);
    assert_eq!(dedupe["saved_tokens"], -4_518.0);
    // 1 is legal but almost surely a percent: said.
    let warned = json["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str()
            .is_some_and(|w| w.contains("refetch = 1") && w.contains("did you mean refetch = 0.01"))
    });
    assert!(warned, "{json:#}\n{stderr}");
}

/// One result removed each: at every swept rate (0, 0.1, 0.25, 0.5: ⌈1/p⌉ ≥ 2) nothing is
/// fetched, so the grid alone would say they always save; tried exactly, each stops saving
/// at rate 1 (k = 1), and the report says so beside the edit.
#[test]
fn each_edit_stops_saving_at_rate_1_exactly() {
    let (json, _) = run("");
    let b = &json["behaviour"];
    assert_eq!(b["rates"], serde_json::json!([0.0, 0.1, 0.25, 0.5]));
    assert_eq!(b["measure"], "tokens");
    for (name, saved) in [("cap reads", 6_000.0), ("dedupe reads", 991.0)] {
        let e = behaviour(&json, name);
        assert_eq!(e["removed"], 1, "{name}");
        let savings: Vec<f64> = e["by_rate"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["saved_tokens"].as_f64().unwrap())
            .collect();
        assert_eq!(savings, [saved; 4], "{name}");
        assert_eq!(e["stops_saving"]["rate"], 1.0, "{name}");
        assert_eq!(e["stops_saving"]["how"], "exact", "{name}");
        let caveat = e["caveat"].as_str().unwrap();
        assert!(
            caveat.starts_with("assumes the agent does not fetch again what it removes (1 result)")
                && caveat.ends_with("it stops saving at re-fetch 1, exactly"),
            "{caveat}"
        );
    }
    assert_eq!(b["ranking"]["up_to"], 0.5);
    assert_eq!(b["ranking"]["flips_at"], Value::Null);
}

/// `a` and `c` share the input hash h1: 1 of the 3 hashed results is read again later.
#[test]
fn the_baseline_read_again_1_of_3_results() {
    let (json, _) = run("");
    let r = &json["behaviour"]["baseline_rereads"];
    assert_eq!((r["reread"].as_u64(), r["of"].as_u64()), (Some(1), Some(3)));
    assert_eq!(r["by"], "input hash");
}

/// A rate outside 0 to 1 is refused where it is written, exit 2.
#[test]
fn a_rate_above_1_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("refetch.toml");
    std::fs::write(
        &path,
        TRACE.replacen("[[call]]", "[behaviour]\nrefetch = 25\n[[call]]", 1),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_simulate"))
        .arg(&path)
        .arg("--no-write")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("[behaviour] refetch") && stderr.contains("from 0 to 1"),
        "{stderr}"
    );
}

/// `report.html` has the re-fetch section: each edit that removes results at each swept
/// rate (est. tokens here: no cache, no price) and where it stops saving.
#[test]
fn the_page_shows_each_edits_saving_at_each_rate_and_where_it_stops() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("refetch.toml");
    std::fs::write(&path, TRACE).unwrap();
    let out = dir.path().join("o");
    let output = Command::new(env!("CARGO_BIN_EXE_simulate"))
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success());
    let html = std::fs::read_to_string(out.join("refetch/report.html")).unwrap();
    assert!(
        html.contains("<th>est. tokens saved at 0</th><th>est. tokens saved at 0.1</th><th>est. tokens saved at 0.25</th><th>est. tokens saved at 0.5</th><th class=\"word\">stops saving</th>"),
        "{html}"
    );
    assert!(
        html.contains("<tr><td class=\"name\">cap reads</td><td>6,000</td><td>6,000</td><td>6,000</td><td>6,000</td><td class=\"word\">at re-fetch 1, exactly</td></tr>"),
        "{html}"
    );
    assert!(
        html.contains("For comparison, the baseline itself read again 1 of 3 results later"),
        "{html}"
    );
}
