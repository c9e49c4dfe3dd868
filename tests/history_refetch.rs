//! MODEL §11 over many sessions: `simulate history` and `simulate suggest` say, for each
//! edit that removes results, its summed saving at each swept re-fetch rate and where that
//! stops, on a hand-made history of two sessions whose figures are computed by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// B = 1,000, ρ = 1: four `Read`s of 3,000 bytes, then two `Bash` of 100. The baseline
/// reads 1,000, 4,000, 7,000, 10,000, 13,000, 13,100: T = 48,100.
const A: &str = r#"name = "a"
base_tokens = 1000
bytes_per_token = 1.0
[[call]]
id = "r1"
tool = "Read"
bytes = 3000
[[call]]
id = "r2"
tool = "Read"
bytes = 3000
[[call]]
id = "r3"
tool = "Read"
bytes = 3000
[[call]]
id = "r4"
tool = "Read"
bytes = 3000
[[call]]
id = "x"
tool = "Bash"
bytes = 100
[[call]]
id = "y"
tool = "Bash"
bytes = 100
"#;

/// B = 10,000, ρ = 1: two `Read`s of 1,500 bytes, then two `Bash` of 100. The baseline
/// reads 10,000, 11,500, 13,000, 13,100: T = 47,600.
const B: &str = r#"name = "b"
base_tokens = 10000
bytes_per_token = 1.0
[[call]]
id = "r1"
tool = "Read"
bytes = 1500
[[call]]
id = "r2"
tool = "Read"
bytes = 1500
[[call]]
id = "x"
tool = "Bash"
bytes = 100
[[call]]
id = "y"
tool = "Bash"
bytes = 100
"#;

/// A cap, which removes results, and a base edit, which removes none.
const EDITS: &str = r#"[[edit]]
name = "cap reads at 1,000 bytes"
cap = { select = { tool = "Read" }, max_bytes = 1000 }
[[edit]]
name = "drop 500 base tokens"
base = { by_tokens = 500 }
"#;

/// The two sessions and the edits file in `dir`: `dir/hist/{a,b}.toml`, `dir/edits.toml`.
fn write_history(dir: &Path) {
    std::fs::create_dir_all(dir.join("hist")).unwrap();
    std::fs::write(dir.join("hist/a.toml"), A).unwrap();
    std::fs::write(dir.join("hist/b.toml"), B).unwrap();
    std::fs::write(dir.join("edits.toml"), EDITS).unwrap();
}

/// Runs simulate with `args` in `dir`, expecting success; returns stdout.
fn simulate(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_simulate"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The cap removes 2,000 bytes of each `Read`: 4 results in `a`, 2 in `b`.
/// - `a` capped reads 1,000, 2,000, 3,000, 4,000, 5,000, 5,100: T = 20,100, saving 28,000
///   at rates 0 and 0.1 (⌈1/0.1⌉ = 10 > 4 removed: nothing fetched again). At 0.25 (k = 4)
///   the 4th cut (r4's) is fetched right after `x`: that request reads 5,100 and `y` then
///   reads 7,100: T = 27,200, saving 20,900. At 0.5 (k = 2) r2's cut after r3 (reading
///   4,000) and r4's after `x` (reading 7,100): T = 39,200, saving 8,900.
/// - `b` capped reads 10,000, 11,000, 12,000, 12,100: T = 45,100, saving 2,500 at 0, 0.1
///   and 0.25 (k ≥ 4 > 2 removed). At 0.5 r2's cut is fetched after `x`, reading 12,100,
///   and `y` reads 12,600: T = 57,700, saving −10,100.
///
/// Summed: 30,500, 30,500, 23,400, −1,200: it stops saving between 0.25 and 0.5.
#[test]
fn the_caps_summed_saving_stops_at_re_fetch_0_5_and_the_base_edit_has_no_re_fetch() {
    let dir = tempfile::tempdir().unwrap();
    write_history(dir.path());
    let table = simulate(
        dir.path(),
        &["history", "hist", "--edits", "edits.toml", "--out", "o"],
    );
    assert!(
        table.contains(
            "\n  cap reads at 1,000 bytes: 30,500, 30,500, 23,400, -1,200; stops saving at re-fetch 0.5 (still saves at 0.25; on the swept rates)\n"
        ),
        "{table}"
    );
    // One line per edit that removes results: the base edit has none.
    assert!(!table.contains("drop 500 base tokens: "), "{table}");
    // The base edit saves 500 × 10 calls = 5,000 at every rate: above the cap's −1,200 at
    // 0.5, below its 23,400 at 0.25.
    assert!(
        table.contains(
            "\n  Over every edit, the cost ranking holds up to re-fetch 0.25; at 0.5 \"drop 500 base tokens\" saves more than \"cap reads at 1,000 bytes\".\n"
        ),
        "{table}"
    );
    let csv = std::fs::read_to_string(dir.path().join("o/hist/refetch.csv")).unwrap();
    assert_eq!(
        csv,
        "edit,refetch,saved_tokens,cost_saved,dollars_saved,measure,saves,stops_saving_at,sessions,results_removed\n\
         \"cap reads at 1,000 bytes\",0.0,30500.0,30500.0,,cost,true,0.5,2,6\n\
         \"cap reads at 1,000 bytes\",0.1,30500.0,30500.0,,cost,true,0.5,2,6\n\
         \"cap reads at 1,000 bytes\",0.25,23400.0,23400.0,,cost,true,0.5,2,6\n\
         \"cap reads at 1,000 bytes\",0.5,-1200.0,-1200.0,,cost,false,0.5,2,6\n"
    );
    let html = std::fs::read_to_string(dir.path().join("o/hist/report.html")).unwrap();
    assert!(
        html.contains("<table id=\"refetch\">")
            && html.contains("<td class=\"name\">cap reads at 1,000 bytes</td><td>30,500</td><td>30,500</td><td>23,400</td><td>-1,200</td><td class=\"word\">stops saving at re-fetch 0.5 (still saves at 0.25; on the swept rates)</td>"),
        "{html}"
    );
}

/// The JSON has the sums per edit and each session's own figures, and each session's
/// figures are those `simulate SESSION --edits` gives it (its `behaviour`).
#[test]
fn each_sessions_figures_are_the_single_runs() {
    let dir = tempfile::tempdir().unwrap();
    write_history(dir.path());
    let text = simulate(
        dir.path(),
        &[
            "history",
            "hist",
            "--edits",
            "edits.toml",
            "--format",
            "json",
            "--no-write",
        ],
    );
    let json: Value = serde_json::from_str(&text).unwrap();
    let cap = json["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "cap reads at 1,000 bytes")
        .unwrap();
    let r = &cap["refetch"];
    assert_eq!(r["stops_saving_at"], 0.5);
    assert_eq!(r["saves_at"], 0.25);
    assert_eq!(r["measure"], "cost");
    assert_eq!(
        (r["sessions"].as_u64(), r["removed"].as_u64()),
        (Some(2), Some(6))
    );
    let base = json["edits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "drop 500 base tokens")
        .unwrap();
    assert!(base.get("refetch").is_none(), "{base:#}");
    let expected = [
        ("a", [28_000.0, 28_000.0, 20_900.0, 8_900.0]),
        ("b", [2_500.0, 2_500.0, 2_500.0, -10_100.0]),
    ];
    for (name, savings) in expected {
        let session = json["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap();
        let r = &session["edits"][0]["refetch"];
        assert_eq!(r["rates"], serde_json::json!([0.0, 0.1, 0.25, 0.5]));
        let got: Vec<f64> = r["saved_tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(got, savings, "{name}");
        assert_eq!(
            r["cost_saved"], r["saved_tokens"],
            "{name}: no cache, no price"
        );
        assert!(r.get("dollars_saved").is_none(), "{name}");
        // The single run of the session says the same at each rate.
        let single = simulate(
            dir.path(),
            &[
                &format!("hist/{name}.toml"),
                "--edits",
                "edits.toml",
                "--format",
                "json",
                "--no-write",
            ],
        );
        let single: Value = serde_json::from_str(&single).unwrap();
        let b = &single["behaviour"]["edits"][0];
        assert_eq!(b["name"], "cap reads at 1,000 bytes");
        let single_savings: Vec<f64> = b["by_rate"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["saved_tokens"].as_f64().unwrap())
            .collect();
        assert_eq!(single_savings, savings, "{name}");
    }
}

/// Two shards merged give the single run's `refetch.csv`, byte for byte: each session's
/// figures travel in its record.
#[test]
fn a_merge_of_shards_gives_the_same_refetch_csv() {
    let dir = tempfile::tempdir().unwrap();
    write_history(dir.path());
    let whole = ["history", "hist", "--edits", "edits.toml", "--out", "o"];
    simulate(dir.path(), &whole);
    for (shard, out) in [("1/2", "s1"), ("2/2", "s2")] {
        simulate(
            dir.path(),
            &[
                "history",
                "hist",
                "--edits",
                "edits.toml",
                "--shard",
                shard,
                "--out",
                out,
                "--no-charts",
            ],
        );
    }
    simulate(
        dir.path(),
        &["history", "--merge", "s1/hist", "s2/hist", "--out", "m"],
    );
    let one = std::fs::read(dir.path().join("o/hist/refetch.csv")).unwrap();
    let merged = std::fs::read(dir.path().join("m/hist/refetch.csv")).unwrap();
    assert_eq!(one, merged);
}

/// `simulate suggest` on the shipped history: every candidate that removes results has
/// its re-fetch figures in `refetch.csv`, its stopping rate in `suggest.csv` is the first
/// rate there at which its summed dollars saved are ≤ 0, and the answer and the settings
/// lines say it beside the saving.
#[test]
fn suggest_says_how_much_re_fetching_undoes_each_suggestion() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let table = simulate(
        root,
        &[
            "suggest",
            "scenarios/history",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let folder = std::fs::read_dir(&out)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let refetch = std::fs::read_to_string(folder.join("refetch.csv")).unwrap();
    let suggest = std::fs::read_to_string(folder.join("suggest.csv")).unwrap();
    let mut rows = csv::Reader::from_reader(suggest.as_bytes());
    let header = rows.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (edit, removes, stops) = (
        col("edit"),
        col("removes_results"),
        col("refetch_stops_saving_at"),
    );
    let mut removing = 0;
    for row in rows.records() {
        let row = row.unwrap();
        let name = &row[edit];
        let mine: Vec<csv::StringRecord> = csv::Reader::from_reader(refetch.as_bytes())
            .records()
            .map(Result::unwrap)
            .filter(|r| &r[0] == name)
            .collect();
        if &row[removes] == "false" {
            assert!(mine.is_empty(), "{name}");
            continue;
        }
        removing += 1;
        let rates: Vec<&str> = mine.iter().map(|r| &r[1]).collect();
        assert_eq!(rates, ["0.0", "0.1", "0.25", "0.5"], "{name}");
        // Every session is priced: the stopping rate is on dollars.
        let first = mine
            .iter()
            .find(|r| r[4].parse::<f64>().unwrap() <= 0.0)
            .map(|r| r[1].parse::<f64>().unwrap());
        let given = (!row[stops].is_empty()).then(|| row[stops].parse::<f64>().unwrap());
        assert_eq!(given, first, "{name}");
    }
    assert!(removing > 0, "{suggest}");
    // Prose is wrapped: read it as one line.
    let table = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        table.contains("It still saves if the agent re-fetches 0.5 of what it removes (the most swept, 5.1 % of its saving at 0 left), sampled on the re-fetch rates 0, 0.1, 0.25, 0.5 (docs/model.md §11)."),
        "{table}"
    );
    // One that stops: its settings line says where (the best is the schedule search's
    // clearing, which saves at every rate swept).
    assert!(
        table.contains("context editing at 40,000, keep 1: saves $1.07 summed over every session, rank 2 by cost; stops saving if the agent re-fetches ≥ 0.5 of what it removes (still saves at 0.25, 28.3 % of its saving at 0 left)"),
        "{table}"
    );
}
