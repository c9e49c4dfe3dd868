//! `simulate history`: many sessions with the same edits (docs/model.md §7), on three tiny sessions
//! whose savings are computed by hand, on the shipped example, and on bad input.
#![allow(clippy::unwrap_used)]

mod support;
use assert_cmd::Command;
use simulate::history::accumulate::aggregate;
use simulate::history::aggregate::Distribution;
use simulate::history::{SessionEdit, SessionFigures};
use simulate::report::Sources;
use std::fs;
use std::path::{Path, PathBuf};
use support::{contents, number, rows};

const SMALL: &str = "tests/fixtures/history/small";
const EDITS: &str = "tests/fixtures/history/edits.toml";

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// Runs `simulate history DIR --edits EDITS --out OUT --name NAME`, expecting success,
/// with `threads` rayon threads; returns stdout.
fn history(dir: &Path, edits: &str, out: &Path, threads: &str, extra: &[&str]) -> String {
    let output = simulate()
        .env("RAYON_NUM_THREADS", threads)
        .arg("history")
        .arg(dir)
        .args(["--edits", edits, "--name", "h", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn hand_computed_savings_sum_and_spread() {
    let out = tempfile::tempdir().unwrap();
    let table = history(Path::new(SMALL), EDITS, out.path(), "2", &[]);
    let dir = out.path().join("h");
    // Baselines: a 420 (B 100, ρ 1: 100 + 150 + 170), b 965, c 110; 1,495 in all.
    // cap bash 10: a1 50 → 10 bytes, re-read twice: 80; b2 100 → 10 bytes (50 → 5 tokens),
    // twice: 90; c has no shell: 0 (its rule selects nothing). 170 in all.
    // base −30: 30 tokens per call: 90 + 120 + 60 = 270.
    // clear on idle: only b pauses (600 s before b3): b1 and b2 become 9-byte placeholders
    // (4.5 tokens each), so b3 reads 209 not 270 and b4 214 not 275: 122.
    let summary = rows(&dir.join("summary.csv"));
    let got: Vec<(String, usize, f64)> = summary
        .iter()
        .map(|r| {
            (
                r["edit"].clone(),
                r["rank"].parse().unwrap(),
                number(r, "saved_tokens"),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("base -30".into(), 1, 270.0),
            ("cap bash 10".into(), 2, 170.0),
            ("clear on idle".into(), 3, 122.0)
        ]
    );
    assert_eq!(number(&summary[0], "baseline_total_tokens"), 1495.0);
    assert_eq!(number(&summary[0], "saved_pct"), 100.0 * 270.0 / 1495.0);
    // Equivalent calls: of the average call over all 9 calls.
    assert_eq!(
        number(&summary[0], "equivalent_calls"),
        270.0 / (1495.0 / 9.0)
    );
    // Per-session percentages, nearest-rank over three sessions: p10 the lowest, the
    // median the second, p90 the highest.
    let base = &summary[0];
    assert_eq!(number(base, "session_pct_p10"), 100.0 * 120.0 / 965.0);
    assert_eq!(number(base, "session_pct_median"), 100.0 * 90.0 / 420.0);
    assert_eq!(number(base, "session_pct_p90"), 100.0 * 60.0 / 110.0);
    let cap = &summary[1];
    assert_eq!(
        (
            number(cap, "session_pct_p10"),
            number(cap, "session_pct_median"),
            number(cap, "session_pct_p90")
        ),
        (0.0, 100.0 * 90.0 / 965.0, 100.0 * 80.0 / 420.0)
    );
    // base −30 is first in a and c; in b clearing on idle (122) beats it (120).
    let first: Vec<&str> = summary
        .iter()
        .map(|r| r["sessions_first"].as_str())
        .collect();
    assert_eq!(first, vec!["2", "0", "1"]);
    assert_eq!(cap["sessions_selected_nothing"], "1");
    // a keeps the order; c ties cap and clear at 0, and a tie is no flip; b flips.
    assert!(table.contains("the aggregate order does not hold: 2 of 3 sessions keep it"));
    assert!(table.contains("clear on idle saves more than base -30 in 1 of 3 sessions: b"));
    assert!(table.contains("cap bash 10: cap in 1 of 3 sessions"));
    assert!(table.contains("B assumed in 2, fitted in 1"), "{table}");
}

#[test]
fn the_aggregate_is_exactly_the_sum_of_the_sessions() {
    let out = tempfile::tempdir().unwrap();
    history(
        Path::new("scenarios/history"),
        "scenarios/history/edits.toml",
        out.path(),
        "2",
        &["--no-charts"],
    );
    let dir = out.path().join("h");
    let sessions = rows(&dir.join("sessions.csv"));
    let summary = rows(&dir.join("summary.csv"));
    assert_eq!(sessions.len(), 12 * summary.len());
    for edit in &summary {
        let name = &edit["edit"];
        // Summed in the file's order (sessions by name), from zero: the same f64 sum.
        let mut saved = 0.0;
        let mut baseline = 0.0;
        let mut cost = 0.0;
        for row in sessions.iter().filter(|r| &r["edit"] == name) {
            saved += number(row, "saved_tokens");
            baseline += number(row, "baseline_total_tokens");
            cost += number(row, "cost_saved");
        }
        assert_eq!(number(edit, "saved_tokens"), saved, "{name}");
        assert_eq!(number(edit, "baseline_total_tokens"), baseline);
        assert_eq!(number(edit, "cost_saved"), cost, "{name}");
    }
    // cost_rank is the place by summed cost saved (no ties in this example); here the
    // prompt cache swaps the third and fourth edits of the token ranking.
    let mut by_cost: Vec<(f64, usize)> = summary
        .iter()
        .map(|e| (number(e, "cost_saved"), e["cost_rank"].parse().unwrap()))
        .collect();
    by_cost.sort_by(|a, b| b.0.total_cmp(&a.0));
    let ranks: Vec<usize> = by_cost.iter().map(|&(_, r)| r).collect();
    assert_eq!(ranks, vec![1, 2, 3, 4, 5]);
    let token_and_cost: Vec<(String, String)> = summary
        .iter()
        .map(|e| (e["rank"].clone(), e["cost_rank"].clone()))
        .collect();
    assert_eq!(token_and_cost[2], ("3".into(), "4".into()));
    assert_eq!(token_and_cost[3], ("4".into(), "3".into()));
    // The sweep's nominal point is the same sum, from the closed forms.
    for row in rows(&dir.join("sweep.csv"))
        .iter()
        .filter(|r| r["nominal"] == "true")
    {
        let edit = summary.iter().find(|e| e["edit"] == row["edit"]).unwrap();
        let (sweep, nominal) = (number(row, "saved_tokens"), number(edit, "saved_tokens"));
        assert!(
            (sweep - nominal).abs() <= 1e-9 * nominal.abs(),
            "{sweep} vs {nominal}"
        );
    }
}

fn session(name: &str, baseline: f64, saved: &[f64]) -> SessionFigures {
    SessionFigures {
        name: name.into(),
        file: format!("{name}.toml"),
        calls: 10,
        base_tokens: 1000.0,
        bytes_per_token: 3.3,
        sources: Sources {
            base_tokens: "assumed".into(),
            bytes_per_token: "assumed".into(),
        },
        baseline_total_tokens: baseline,
        baseline_cost: baseline,
        cached: false,
        baseline_dollars: None,
        measured: None,
        edits: saved
            .iter()
            .map(|&s| SessionEdit {
                total_tokens: baseline - s,
                calls: 10,
                saved_tokens: s,
                saved_pct: 100.0 * s / baseline,
                equivalent_calls: s / (baseline / 10.0),
                cost_saved: s,
                cost_saved_pct: 100.0 * s / baseline,
                dollars_saved: None,
                rank: 1,
                selected_nothing: Vec::new(),
                base_clamped: false,
                base_clamped_points: 0,
                what_if: None,
                refetch: None,
            })
            .collect(),
        warnings: Vec::new(),
    }
}

#[test]
fn the_pure_aggregate_sums_in_session_order_and_spreads_by_nearest_rank() {
    // Sums that floating point rounds: the aggregate is the left-to-right sum exactly.
    let names = vec!["x".to_string()];
    let savings = [0.1, 0.2, 0.3, 1e-3, 7.7];
    let sessions: Vec<SessionFigures> = savings
        .iter()
        .enumerate()
        .map(|(i, &s)| session(&format!("s{i}"), 10.0 + i as f64 / 3.0, &[s]))
        .collect();
    let a = aggregate(&names, &sessions).unwrap();
    let expected = savings.iter().fold(0.0, |sum, s| sum + s);
    assert_eq!(a.edits[0].saved_tokens, expected);
    let baseline = sessions
        .iter()
        .fold(0.0, |sum, s| sum + s.baseline_total_tokens);
    assert_eq!(a.baseline_total_tokens, baseline);
    assert_eq!(a.edits[0].saved_pct, 100.0 * expected / baseline);
    // Percentages 1, 2, … 10 %: p10 the 1st, the median the 5th, p90 the 9th.
    let sessions: Vec<SessionFigures> = (1..=10)
        .rev()
        .map(|p| session(&format!("t{p:02}"), 100.0, &[f64::from(p)]))
        .collect();
    let d = aggregate(&names, &sessions).unwrap().edits[0].per_session_pct;
    assert_eq!(
        d,
        Distribution {
            min: 1.0,
            p10: 1.0,
            median: 5.0,
            p90: 9.0,
            max: 10.0
        }
    );
    assert!(aggregate(&names, &[]).is_none());
}

#[test]
fn the_cost_ranking_sums_cost_savings_and_may_differ_from_the_token_ranking() {
    // x saves more tokens; under the prompt cache its clearing rewrites the prefix, so y
    // saves more cost. Σ cost saved: x 2 + 3 = 5, y 4 + 4 = 8 of a baseline cost 50 + 30.
    let names = vec!["x".to_string(), "y".to_string()];
    let mut sessions = vec![
        session("a", 100.0, &[20.0, 10.0]),
        session("b", 100.0, &[30.0, 5.0]),
    ];
    for (s, (cost, saved)) in sessions
        .iter_mut()
        .zip([(50.0, [2.0, 4.0]), (30.0, [3.0, 4.0])])
    {
        s.cached = true;
        s.baseline_cost = cost;
        for (e, c) in s.edits.iter_mut().zip(saved) {
            e.cost_saved = c;
            e.cost_saved_pct = 100.0 * c / cost;
        }
    }
    let a = aggregate(&names, &sessions).unwrap();
    assert_eq!(a.cached_sessions, 2);
    assert_eq!((a.edits[0].rank, a.edits[1].rank), (1, 2));
    assert_eq!((a.edits[0].cost_rank, a.edits[1].cost_rank), (2, 1));
    assert_eq!(a.edits[1].cost_saved, 8.0);
    assert_eq!(a.edits[1].cost_saved_pct, 100.0 * 8.0 / 80.0);
}

#[test]
fn results_are_the_same_with_one_thread_or_two() {
    let one = tempfile::tempdir().unwrap();
    let two = tempfile::tempdir().unwrap();
    let dir = Path::new("scenarios/history");
    let edits = "scenarios/history/edits.toml";
    let a = history(dir, edits, one.path(), "1", &["--format", "json"]);
    let b = history(dir, edits, two.path(), "2", &["--format", "json"]);
    assert_eq!(a, b);
    assert_eq!(
        contents(&one.path().join("h")),
        contents(&two.path().join("h"))
    );
}

#[test]
fn results_do_not_depend_on_file_names_or_places() {
    let shuffled = tempfile::tempdir().unwrap();
    let mut sources: Vec<PathBuf> = fs::read_dir("scenarios/history/sessions")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    sources.sort();
    // New names in another order, some in a subdirectory.
    for (i, source) in sources.iter().enumerate() {
        let name = format!("{:02}-{}.toml", (i * 7) % sources.len(), 99 - i);
        let target = if i % 3 == 0 {
            shuffled.path().join("deeper").join(name)
        } else {
            shuffled.path().join(name)
        };
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::copy(source, target).unwrap();
    }
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let edits = "scenarios/history/edits.toml";
    history(
        Path::new("scenarios/history/sessions"),
        edits,
        first.path(),
        "2",
        &[],
    );
    history(shuffled.path(), edits, second.path(), "2", &[]);
    let (a, b) = (
        contents(&first.path().join("h")),
        contents(&second.path().join("h")),
    );
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        match name.as_str() {
            // These name the files and the directory: compare everything else.
            "sessions.csv" => {
                let strip = |bytes: &[u8]| -> Vec<String> {
                    String::from_utf8_lossy(bytes)
                        .lines()
                        .map(|l| {
                            let mut fields: Vec<&str> = l.split(',').collect();
                            fields.remove(1);
                            fields.join(",")
                        })
                        .collect()
                };
                assert_eq!(strip(x), strip(y));
            }
            // The page names the directory; each record names its file.
            "report.html" | "shard.jsonl" => {}
            // The digests of those files differ with them: the names listed must not.
            ".simulate-manifest" => {
                let names = |bytes: &[u8]| -> Vec<String> {
                    String::from_utf8_lossy(bytes)
                        .lines()
                        .map(|l| l.split('\t').next().unwrap_or("").to_string())
                        .collect()
                };
                assert_eq!(names(x), names(y));
            }
            _ => assert!(x == y, "{name} differs"),
        }
    }
    assert_eq!(a.len(), b.len());
}

#[test]
fn a_rule_that_selects_nothing_is_counted_and_other_toml_files_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["a.toml", "b.toml", "c.toml"] {
        fs::copy(Path::new(SMALL).join(f), dir.path().join(f)).unwrap();
    }
    fs::write(dir.path().join("notes.toml"), "[package]\nname = \"x\"\n").unwrap();
    fs::copy(EDITS, dir.path().join("edits.toml")).unwrap();
    let edits = dir.path().join("edits.toml");
    let output = simulate()
        .arg("history")
        .arg(dir.path())
        .arg("--edits")
        .arg(&edits)
        .arg("--no-write")
        .output()
        .unwrap();
    assert!(output.status.success());
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(table.contains("3 sessions"), "{table}");
    assert!(table.contains("skipped edits.toml: the edits file (--edits)"));
    assert!(table.contains("skipped notes.toml: not a scenario: no [[call]] tables or calls_tsv"));
    // Another edits file in the directory is skipped as such.
    let json = simulate()
        .arg("history")
        .arg(dir.path())
        .args(["--edits", EDITS, "--no-write", "--format", "json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        report["skipped"][0]["reason"],
        "not a scenario: [[edit]] tables without calls (an edits file)"
    );
    assert_eq!(report["sessions"].as_array().unwrap().len(), 3);
    assert_eq!(report["edits"][0]["name"], "base -30");
    assert_eq!(report["across_sessions"]["matching_order"], 2);
    assert_eq!(report["across_assumptions"]["of"], 9);
    let c = &report["sessions"][2];
    assert_eq!(c["name"], "c");
    assert_eq!(
        c["edits"][0]["selected_nothing"][0],
        "cap: the selector matches no call in this trace"
    );
    assert_eq!(
        c["sources"]["base_tokens"],
        "fitted (by hand, for the test)"
    );
}

/// Runs a history expected to fail with exit code 2; returns stderr.
fn fails(dir: &Path, edits: &str, out: &Path) -> String {
    let output = simulate()
        .arg("history")
        .arg(dir)
        .args(["--edits", edits, "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn bad_input_exits_2_naming_the_file_and_writes_nothing() {
    let out = tempfile::tempdir().unwrap();
    let results = out.path().join("results");

    let empty = tempfile::tempdir().unwrap();
    let e = fails(empty.path(), EDITS, &results);
    assert!(e.contains("no scenario files found"), "{e}");

    // A broken scenario among good ones: an error naming it, not a silent gap in the sum.
    let mixed = tempfile::tempdir().unwrap();
    for f in ["a.toml", "b.toml", "c.toml"] {
        fs::copy(Path::new(SMALL).join(f), mixed.path().join(f)).unwrap();
    }
    fs::write(
        mixed.path().join("broken.toml"),
        "name = \"broken\"\nbase_tokens = 100\nbytes_per_token = 1\n[[call]]\nlabel = \"x\"\nbytes = -5\n",
    )
    .unwrap();
    let e = fails(mixed.path(), EDITS, &results);
    assert!(e.contains("broken.toml:6:9"), "{e}");
    assert!(!results.exists(), "a failed run left its results directory");

    let e = fails(
        Path::new(SMALL),
        "tests/fixtures/history/broken_edits.toml",
        &results,
    );
    assert!(
        e.contains("tests/fixtures/history/broken_edits.toml:3"),
        "{e}"
    );

    // An edit naming a call one session lacks: the edit and that session.
    let e = fails(
        Path::new(SMALL),
        "tests/fixtures/history/unknown_call.toml",
        &results,
    );
    assert!(e.contains("[[edit]] \"drop a2\": drop.call"), "{e}");
    assert!(e.contains("(in session b.toml)"), "{e}");
    assert!(!results.exists());

    // Two files holding the same session.
    fs::copy(
        Path::new(SMALL).join("a.toml"),
        mixed.path().join("copy.toml"),
    )
    .unwrap();
    fs::remove_file(mixed.path().join("broken.toml")).unwrap();
    let e = fails(mixed.path(), EDITS, &results);
    assert!(e.contains("scenario name `a` is also the name of"), "{e}");

    // An output root that cannot be a directory.
    let file = out.path().join("a-file");
    fs::write(&file, "").unwrap();
    let e = fails(Path::new(SMALL), EDITS, &file.join("sub"));
    assert!(e.contains("cannot write results here"), "{e}");

    let e = fails(
        Path::new("tests/fixtures/history/small/a.toml"),
        EDITS,
        &results,
    );
    assert!(e.contains("is a file, not a directory"), "{e}");
}

#[test]
fn bad_factors_are_refused_on_the_command_line() {
    let output = simulate()
        .args([
            "history",
            SMALL,
            "--edits",
            EDITS,
            "--no-write",
            "--bpt-factors",
            "0,1",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--bpt-factors"));
    // c's base of 50, halved, cannot lose 30 tokens: not an error for a history, the edit
    // removes what there is at those points, and c is named.
    let output = simulate()
        .args([
            "history",
            SMALL,
            "--edits",
            EDITS,
            "--no-write",
            "--base-factors",
            "0.5,1",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(
        table.contains("base -30 removes more than the base of 1 of 3 sessions at some points of the factor sweep only (B = 0 at those points): c (B = 50; at 3 of 6 points)"),
        "{table}"
    );
    let output = simulate()
        .args([
            "history",
            SMALL,
            "--edits",
            EDITS,
            "--no-write",
            "--base-factors",
            "0.75:1.25:3",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["across_assumptions"]["factors"]["base_tokens"],
        serde_json::json!([0.75, 1.0, 1.25])
    );
    assert_eq!(
        report["across_assumptions"]["points"]
            .as_array()
            .unwrap()
            .len(),
        9
    );
}

/// Regenerate with `cargo run --release -- history scenarios/history --edits
/// scenarios/history/edits.toml --out docs/examples`.
#[test]
fn the_checked_in_history_example_is_what_the_code_draws_now() {
    let out = tempfile::tempdir().unwrap();
    simulate()
        .args([
            "history",
            "scenarios/history",
            "--edits",
            "scenarios/history/edits.toml",
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let fresh = contents(&out.path().join("history"));
    let checked_in = contents(Path::new("docs/examples/history"));
    let names =
        |f: &std::collections::BTreeMap<String, Vec<u8>>| f.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&fresh), names(&checked_in));
    for ((name, now), (_, then)) in fresh.iter().zip(&checked_in) {
        assert!(
            now == then,
            "docs/examples/history/{name} differs from what the code draws now; regenerate: cargo run --release -- history scenarios/history --edits scenarios/history/edits.toml --out docs/examples"
        );
    }
}

/// Whether rsvg-convert is installed; where `SIMULATE_REQUIRE_RENDERER` is set (CI), a
/// missing renderer fails the test, elsewhere the check is skipped with a reason.
fn renderer() -> bool {
    let found = std::process::Command::new("rsvg-convert")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("SIMULATE_REQUIRE_RENDERER").is_none(),
            "rsvg-convert is missing: install it with `apt-get install -y librsvg2-bin`"
        );
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: rsvg-convert is missing, SVG rendering not checked"
        );
    }
    found
}

/// Renders `svg` to a PNG in `dir` and checks the renderer accepted it.
fn renders(svg: &str, name: &str, dir: &Path) {
    let path = dir.join(name);
    fs::write(&path, svg).unwrap();
    let png = path.with_extension("png");
    let out = std::process::Command::new("rsvg-convert")
        .arg("--format=png")
        .arg("--output")
        .arg(&png)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        fs::metadata(&png).unwrap().len() > 10_000,
        "{name}: an empty picture?"
    );
}

#[test]
fn the_charts_render_with_few_sessions_and_with_many() {
    use simulate::chart::history::{EditSpread, HistoryChartInput, SavingSpread, draw_all};
    if !renderer() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for name in ["sessions.svg", "aggregate.svg"] {
        let svg = fs::read_to_string(Path::new("docs/examples/history").join(name)).unwrap();
        renders(&svg, name, dir.path());
    }
    // Five thousand sessions: density strips instead of dots, and a small file.
    let pcts: Vec<f64> = (0..5000)
        .map(|i| f64::from((i * 37) % 400) / 10.0 - 3.0)
        .collect();
    let input = HistoryChartInput {
        name: "many".into(),
        sessions: pcts.len(),
        sessions_unchanged: 120,
        sessions_cost_only: 0,
        edits: vec!["cap".into(), "clear".into()],
        rows: vec![
            EditSpread {
                spread: SavingSpread {
                    edit: 1,
                    total_pct: 21.0,
                    p10: 1.0,
                    median: 17.0,
                    p90: 33.0,
                    session_pcts: pcts.clone(),
                },
                equivalent_calls: 3.0,
                sessions_first: 4000,
            },
            EditSpread {
                spread: SavingSpread {
                    edit: 0,
                    total_pct: 9.0,
                    p10: 0.0,
                    median: 8.0,
                    p90: 15.0,
                    session_pcts: pcts.iter().map(|p| p / 2.0).collect(),
                },
                equivalent_calls: 1.5,
                sessions_first: 1000,
            },
        ],
        cost_only_edits: Vec::new(),
        cost: None,
    };
    for (name, svg) in draw_all(&input).unwrap() {
        assert!(svg.len() < 200_000, "{name} is {} bytes", svg.len());
        renders(&svg, &format!("many-{name}"), dir.path());
    }
}

const CLAMP: &str = "tests/fixtures/history/base_clamp";
const CLAMP_EDITS: &str = "tests/fixtures/history/base_clamp_edits.toml";
const NO_CHANGE_EDITS: &str = "tests/fixtures/history/no_change_edits.toml";
const WARM_UP: &str = "proj-1a2b3c4d-agent-41b9470d";

/// The row of `sessions.csv` for `session` and `edit`.
fn session_row<'a>(
    rows: &'a [std::collections::HashMap<String, String>],
    session: &str,
    edit: &str,
) -> &'a std::collections::HashMap<String, String> {
    rows.iter()
        .find(|r| r["session"] == session && r["edit"] == edit)
        .unwrap()
}

#[test]
fn a_base_edit_larger_than_a_sessions_base_removes_what_there_is() {
    // Regression (issue 15 §5): one warm-up subagent whose B was smaller than the shipped
    // base edit stopped the whole history with exit 2.
    let out = tempfile::tempdir().unwrap();
    let table = history(Path::new(CLAMP), CLAMP_EDITS, out.path(), "2", &[]);
    let dir = out.path().join("h");
    let sessions = rows(&dir.join("sessions.csv"));
    let drop = "drop the MCP server";
    // The warm-up subagent: B = 2,500 < 4,000, so its base becomes 0 and the edit saves
    // n·B = 2 · 2,500; the edited run reads only its first result, 50 tokens.
    let warm_up = session_row(&sessions, WARM_UP, drop);
    assert_eq!(number(warm_up, "saved_tokens"), 5000.0);
    assert_eq!(number(warm_up, "total_tokens"), 50.0);
    assert_eq!(number(warm_up, "baseline_total_tokens"), 5050.0);
    assert_eq!(warm_up["base_clamped"], "true");
    // B × ⅔, 1 and 4⁄3 are all below 4,000: every point of the grid.
    assert_eq!(warm_up["base_clamped_points"], "9");
    // The others lose n · 4,000; proj-5e6f7a8b's 5,000 only at B × ⅔ (3 of 9 points).
    let main = session_row(&sessions, "proj-1a2b3c4d", drop);
    assert_eq!(number(main, "saved_tokens"), 16000.0);
    assert_eq!(
        (
            main["base_clamped"].as_str(),
            main["base_clamped_points"].as_str()
        ),
        ("false", "0")
    );
    let other = session_row(&sessions, "proj-5e6f7a8b", drop);
    assert_eq!(number(other, "saved_tokens"), 12000.0);
    assert_eq!(
        (
            other["base_clamped"].as_str(),
            other["base_clamped_points"].as_str()
        ),
        ("false", "3")
    );
    // The aggregate: 16,000 + 5,000 + 12,000 of 46,000 + 5,050 + 21,000.
    let summary = rows(&dir.join("summary.csv"));
    let s = summary.iter().find(|r| r["edit"] == drop).unwrap();
    assert_eq!(number(s, "saved_tokens"), 33000.0);
    assert_eq!(number(s, "baseline_total_tokens"), 72050.0);
    assert_eq!(number(s, "saved_pct"), 100.0 * 33000.0 / 72050.0);
    assert_eq!(
        (
            s["sessions_base_clamped"].as_str(),
            s["sessions_base_clamped_in_sweep"].as_str()
        ),
        ("1", "2")
    );
    // The sweep at B × ⅔: the warm-up's base and proj-5e6f7a8b's are both 0 there, so
    // they save n·(⅔B): 16,000 + 2·1,666.67 + 3·3,333.33 = 29,333.33 at every ρ.
    let sweep = rows(&dir.join("sweep.csv"));
    let low: Vec<f64> = sweep
        .iter()
        .filter(|r| r["edit"] == drop && number(r, "base_factor") < 0.7)
        .map(|r| number(r, "saved_tokens"))
        .collect();
    assert_eq!(low.len(), 3);
    let expected = 16000.0 + 2.0 * (2500.0 * (2.0 / 3.0)) + 3.0 * (5000.0 * (2.0 / 3.0));
    for got in low {
        assert!(
            (got - expected).abs() <= 1e-9 * expected,
            "{got} vs {expected}"
        );
    }
    // Counted and named per edit, in the table, the page and the JSON.
    let line = "drop the MCP server removes more than the base of 1 of 3 sessions (B = 0 there): proj-1a2b3c4d-agent-41b9470d (B = 2,500)";
    let sweep_line = "drop the MCP server removes more than the base of 1 more session at some points of the factor sweep only (B = 0 at those points): proj-5e6f7a8b (B = 5,000; at 3 of 9 points)";
    assert!(
        table.contains(&format!("\n  {line}\n  {sweep_line}\n")),
        "{table}"
    );
    // And beside the figures it colours, under the edits table.
    assert!(
        table.contains("\n  drop the MCP server: removes more than the base of 1 of 3 sessions, which then save their whole base (up to 100 %): its median, p90 and first in lean on them (listed below)\n"),
        "{table}"
    );
    let page = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains(&format!("<li>{line}</li>")), "{page}");
    assert!(page.contains("<td><b>99.0 %</b>†</td>"), "{page}");
    let json = simulate()
        .args([
            "history",
            CLAMP,
            "--edits",
            CLAMP_EDITS,
            "--no-write",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let e = &report["edits"][0];
    assert_eq!(e["name"], drop);
    assert_eq!(e["sessions_base_clamped"], 1);
    assert_eq!(
        e["base_clamped"],
        serde_json::json!([
            {"session": WARM_UP, "base_tokens": 2500.0, "at_nominal": true, "points": 9},
            {"session": "proj-5e6f7a8b", "base_tokens": 5000.0, "at_nominal": false, "points": 3}
        ])
    );
}

#[test]
fn a_single_run_still_refuses_a_base_edit_larger_than_its_base() {
    let output = simulate()
        .arg(Path::new(CLAMP).join(format!("{WARM_UP}.toml")))
        .args(["--edits", CLAMP_EDITS, "--no-write"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let e = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        e,
        "error: tests/fixtures/history/base_clamp_edits.toml:7:8: [[edit]] \"drop the MCP server\": base: takes the base tokens below zero: B = 2,500 at ρ = 2 becomes -1,500; the base cannot be negative (lower the change, or sweep B from a higher value)\n"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn the_sweep_of_a_session_whose_base_goes_to_zero_equals_its_replay() {
    use simulate::evaluate::{Study, outcome};
    use simulate::history::{Factors, session::evaluate_session};
    let edits = simulate::scenario::load_edits(Path::new(CLAMP_EDITS))
        .unwrap()
        .edits;
    let factors = Factors::new(Some(vec![0.5, 2.0 / 3.0, 1.0, 4.0 / 3.0]), None).unwrap();
    for name in ["proj-1a2b3c4d", WARM_UP, "proj-5e6f7a8b"] {
        let path = Path::new(CLAMP).join(format!("{name}.toml"));
        let s = simulate::scenario::load(&path)
            .unwrap()
            .with_edits(edits.clone(), CLAMP_EDITS);
        let session = evaluate_session(&s, name, &factors).unwrap();
        let study = Study::new(&s).unwrap();
        let width = 1 + study.edited.len();
        for (p, (fb, fr)) in factors.points().enumerate() {
            let point = simulate::sweep::Point {
                base_tokens: s.base_tokens * fb,
                bytes_per_token: s.bytes_per_token * fr,
                ..study.nominal(simulate::ledger::Assumptions {
                    base_tokens: s.base_tokens,
                    bytes_per_token: s.bytes_per_token,
                })
            };
            for (k, subject) in study.subjects().enumerate() {
                let replayed = outcome(&study, subject, &point).total_tokens;
                let swept = session.sweep_totals[p * width + k];
                assert!(
                    (swept - replayed).abs() <= 1e-9 * replayed.abs().max(1.0),
                    "{name} at B × {fb}, ρ × {fr}, {}: {swept} vs {replayed}",
                    subject.name
                );
                // No run reads a negative base: every total is at least its results.
                assert!(swept >= 0.0);
            }
        }
    }
}

#[test]
fn sessions_no_edit_changes_are_counted_apart_and_win_nothing() {
    // Regression (issue 15 §5): "first in 76 of 79" while the median saving was 0.0 %,
    // because in a session every edit leaves alone, every edit ties for first.
    let out = tempfile::tempdir().unwrap();
    let table = history(Path::new(CLAMP), NO_CHANGE_EDITS, out.path(), "2", &[]);
    let dir = out.path().join("h");
    // proj-1a2b3c4d: the cap saves 3,800 (two results of 1,000 tokens cut to 50, re-read
    // 3 and 1 times), the clearing nothing (no pause). proj-5e6f7a8b: no shell; the pause
    // clears both earlier results (2 · 2,000 tokens, less two 9-byte placeholders): 3,991.
    // The warm-up: no shell, no pause, nothing changes.
    let summary = rows(&dir.join("summary.csv"));
    let got: Vec<(&str, f64, &str, &str)> = summary
        .iter()
        .map(|r| {
            (
                r["edit"].as_str(),
                number(r, "saved_tokens"),
                r["sessions_first"].as_str(),
                r["sessions_unchanged"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("clear after a 5-minute pause", 3991.0, "1", "1"),
            ("cap shell output at 100 B", 3800.0, "1", "1"),
        ]
    );
    assert!(
        table.contains(
            "it ranks first in 1 of the 2 sessions some edit changes (no edit changes 1 of 3)."
        ),
        "{table}"
    );
    assert!(table.contains("    1 of 2\n"), "{table}");
    assert!(
        table.contains("\n  no edit changes 1 of 3 sessions (every edit saves 0 there, a tie; they are left out of first in)\n"),
        "{table}"
    );
    let page = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("<p class=\"note\">No edit changes 1 of 3 sessions"));
    assert!(page.contains("<td>1 of 2</td>"));
    let chart = fs::read_to_string(dir.join("aggregate.svg")).unwrap();
    assert!(chart.contains("No edit changes 1 of 3 sessions (left out of first in)."));
    assert!(chart.contains("first in 1 of 2"));
    let json = simulate()
        .args([
            "history",
            CLAMP,
            "--edits",
            NO_CHANGE_EDITS,
            "--no-write",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        report["unchanged"],
        serde_json::json!({"sessions": 1, "cost_only": 0, "of": 3, "names": [WARM_UP]})
    );
}

#[test]
fn the_pure_aggregate_leaves_sessions_no_edit_changes_out_of_first_in() {
    let names = vec!["x".to_string(), "y".to_string()];
    // b's savings are zero within the tie tolerance (1e-9 of its baseline); c's y saves.
    let sessions = vec![
        session("a", 100.0, &[10.0, 5.0]),
        session("b", 1000.0, &[0.0, 1e-7]),
        session("c", 100.0, &[0.0, 2.0]),
    ];
    let a = aggregate(&names, &sessions).unwrap();
    assert_eq!(a.sessions_unchanged, 1);
    // `session` ranks every edit first; only the changed sessions a and c count.
    let first: Vec<usize> = a.edits.iter().map(|e| e.sessions_first).collect();
    assert_eq!(first, vec![2, 2]);
    assert!(sessions[1].unchanged() && !sessions[2].unchanged());
}

const COST_ONLY: &str = "tests/fixtures/history/cost_only";
const COST_ONLY_EDITS: &str = "tests/fixtures/history/cost_only_edits.toml";

#[test]
fn a_session_an_edit_changes_only_the_cost_of_is_changed() {
    // Regression: "no edit changes 2 of 3 sessions" where the 1-hour TTL saves 11,500 of
    // `pause`'s 28,600 (its reread total tied): "changes" looked at reread tokens only.
    // `quiet` no edit changes; `shell` the cap changes (3,800 tokens); the fixtures say how.
    let out = tempfile::tempdir().unwrap();
    let table = history(Path::new(COST_ONLY), COST_ONLY_EDITS, out.path(), "1", &[]);
    let dir = out.path().join("h");
    let sessions = rows(&dir.join("sessions.csv"));
    let pause: Vec<(&str, f64, f64)> = sessions
        .iter()
        .filter(|r| r["session"] == "pause")
        .map(|r| {
            (
                r["edit"].as_str(),
                number(r, "saved_tokens"),
                number(r, "cost_saved"),
            )
        })
        .collect();
    assert_eq!(
        pause,
        vec![
            ("cap shell output at 100 B", 0.0, 0.0),
            ("cache for an hour", 0.0, 11500.0)
        ]
    );
    let summary = rows(&dir.join("summary.csv"));
    let got: Vec<(&str, &str, &str, &str)> = summary
        .iter()
        .map(|r| {
            (
                r["edit"].as_str(),
                r["sessions_first"].as_str(),
                r["sessions_unchanged"].as_str(),
                r["sessions_cost_only"].as_str(),
            )
        })
        .collect();
    // First in still ranks by reread tokens: `pause` is nobody's win there.
    assert_eq!(
        got,
        vec![
            ("cap shell output at 100 B", "1", "1", "1"),
            ("cache for an hour", "0", "1", "1"),
        ]
    );
    assert!(
        table.contains("\n  no edit changes 1 of 3 sessions, and 1 more only in cost (every edit saves 0 est. tokens in those 2, a tie; they are left out of first in)\n"),
        "{table}"
    );
    assert!(
        table.contains(
            "it ranks first in 1 of the 1 session whose reread total some edit changes (no edit changes the reread total of 2 of 3)."
        ),
        "{table}"
    );
    assert!(!table.contains("no edit changes 2 of 3"), "{table}");
    // The 1-hour TTL on every trace kind has nothing to add beyond its saving: no heading
    // over nothing (before: "What the what-if edits change:" and no line).
    assert!(!table.contains("What the what-if edits change"), "{table}");
    let page = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        page.contains("<p class=\"note\">No edit changes 1 of 3 sessions, and 1 more only in cost")
    );
    assert!(!page.contains("What the what-if edits change"));
    let chart = fs::read_to_string(dir.join("aggregate.svg")).unwrap();
    assert!(chart.contains(
        "No edit changes 1 of 3 sessions, and 1 more only in cost (left out of first in)."
    ));
    let chart = fs::read_to_string(dir.join("sessions.svg")).unwrap();
    assert!(chart.contains("those 2 sit at 0 % in every row."));
    let json = simulate()
        .args([
            "history",
            COST_ONLY,
            "--edits",
            COST_ONLY_EDITS,
            "--no-write",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        report["unchanged"],
        serde_json::json!({"sessions": 1, "cost_only": 1, "of": 3, "names": ["quiet"]})
    );
}

#[test]
fn a_cost_saving_alone_changes_a_session_but_wins_no_first_in() {
    let names = vec!["x".to_string(), "y".to_string()];
    let mut repriced = session("b", 1000.0, &[0.0, 0.0]);
    repriced.edits[1].cost_saved = 40.0;
    let mut changed = session("a", 100.0, &[10.0, 5.0]);
    changed.edits[1].rank = 2;
    let sessions = vec![changed, repriced, session("c", 100.0, &[0.0, 0.0])];
    assert!(sessions[1].reread_tied() && !sessions[1].unchanged());
    assert!(sessions[2].reread_tied() && sessions[2].unchanged());
    let a = aggregate(&names, &sessions).unwrap();
    assert_eq!((a.sessions_unchanged, a.sessions_cost_only), (1, 1));
    assert_eq!(a.unchanged, vec![2]);
    // Every edit ranks first in b and c (`session` ranks so), but only a counts.
    let first: Vec<usize> = a.edits.iter().map(|e| e.sessions_first).collect();
    assert_eq!(first, vec![1, 0]);
}

#[test]
fn the_streamed_json_is_the_whole_report_serialized_at_once() {
    // The JSON writes the report, then its sessions one at a time: the bytes must be those
    // of serializing everything together, as before sessions were streamed.
    use simulate::history::aggregate::SweepSums;
    use simulate::history::{Factors, HistoryReport};
    let names = vec!["x".to_string(), "y".to_string()];
    let sessions = vec![
        session("a", 100.0, &[10.0, 5.0]),
        session("b", 1000.0, &[0.0, 1e-7]),
        session("c", 100.0, &[0.0, 2.0]),
    ];
    let aggregate = aggregate(&names, &sessions).unwrap();
    let sweep = SweepSums::new(9, 2).finish(&Factors::default(), &aggregate);
    let report = HistoryReport::new(
        "h",
        "dir",
        "edits.toml",
        aggregate,
        sweep,
        sessions.clone(),
        Vec::new(),
    );
    #[derive(serde::Serialize)]
    struct Whole<'a> {
        #[serde(flatten)]
        report: &'a HistoryReport,
        sessions: &'a [SessionFigures],
    }
    let mut expected = serde_json::to_string_pretty(&Whole {
        report: &report,
        sessions: &sessions,
    })
    .unwrap();
    expected.push('\n');
    let mut streamed = Vec::new();
    let mut next = sessions.clone().into_iter();
    simulate::history::json::write(&mut streamed, &report, &mut || Ok(next.next())).unwrap();
    assert_eq!(String::from_utf8(streamed).unwrap(), expected);
    // Without sessions (a bug, but the JSON stays JSON).
    let mut empty = Vec::new();
    simulate::history::json::write(&mut empty, &report, &mut || Ok(None)).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&empty).unwrap();
    assert_eq!(value["sessions"], serde_json::json!([]));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// A base edit removes at most the whole base: the session's saving is exactly
    /// n·min(N, B), never more than its baseline total, and its sweep is its replay.
    #[test]
    fn a_base_edit_never_saves_more_than_the_session_reads(
        sizes in proptest::collection::vec(0u32..20_000, 1..12),
        b in 1u32..20_000,
        n_tokens in 1u32..40_000,
        rho in proptest::sample::select(vec![1.0, 2.5, 3.3, 4.0]),
    ) {
        use simulate::evaluate::{Study, outcome};
        use simulate::history::{Factors, session::evaluate_session};
        let mut t = format!("name = \"p\"\nbase_tokens = {b}\nbytes_per_token = {rho}\n");
        for (i, bytes) in sizes.iter().enumerate() {
            t.push_str(&format!("[[call]]\nid = \"c{i}\"\nlabel = \"call {i}\"\nbytes = {bytes}\n"));
        }
        t.push_str(&format!("[[edit]]\nname = \"shorter prompt\"\nbase = {{ by_tokens = {n_tokens} }}\n"));
        let s = simulate::scenario::load_str(&t, Path::new("p.toml")).unwrap();
        let factors = Factors::default();
        let session = evaluate_session(&s, "p.toml", &factors).unwrap();
        let f = &session.figures;
        let e = &f.edits[0];
        let calls = sizes.len() as f64;
        let expected = calls * f64::from(n_tokens.min(b));
        proptest::prop_assert!((e.saved_tokens - expected).abs() <= 1e-9 * f.baseline_total_tokens);
        proptest::prop_assert!(e.saved_tokens <= f.baseline_total_tokens * (1.0 + 1e-12));
        proptest::prop_assert!(e.total_tokens >= 0.0);
        proptest::prop_assert_eq!(e.base_clamped, n_tokens > b);
        let study = Study::new(&s).unwrap();
        let nominal = study.nominal(simulate::ledger::Assumptions {
            base_tokens: s.base_tokens,
            bytes_per_token: s.bytes_per_token,
        });
        for (p, (fb, fr)) in factors.points().enumerate() {
            let point = simulate::sweep::Point {
                base_tokens: s.base_tokens * fb,
                bytes_per_token: s.bytes_per_token * fr,
                ..nominal
            };
            let baseline = session.sweep_totals[2 * p];
            let edited = session.sweep_totals[2 * p + 1];
            let replayed = outcome(&study, &study.edited[0], &point).total_tokens;
            proptest::prop_assert!((edited - replayed).abs() <= 1e-9 * baseline.max(1.0));
            proptest::prop_assert!(baseline - edited <= baseline * (1.0 + 1e-12));
        }
    }
}

/// The summed closed forms `report.html` embeds for its sliders: at every factor point they
/// give the summed baseline and each edit's summed saving of the sweep (each session is
/// affine in its own B and ρ, so the sums are affine in the factors); an edit that some
/// session replays has none.
#[test]
fn the_summed_closed_forms_give_the_sweep_at_every_factor_point() {
    use simulate::history::files::evaluate_all;
    use simulate::ledger::{Affine, Assumptions};
    let at = |f: &Affine, (fb, fr): (f64, f64)| {
        f.at(Assumptions {
            base_tokens: fb,
            bytes_per_token: fr,
        })
    };
    let factors = simulate::history::Factors::new(
        Some(vec![0.5, 2.0 / 3.0, 1.0, 4.0 / 3.0]),
        Some(vec![0.6, 1.0, 1.5]),
    )
    .unwrap();
    for (dir, edits_file, replayed) in [
        ("scenarios/history", "scenarios/history/edits.toml", None),
        (CLAMP, CLAMP_EDITS, Some("drop the MCP server")),
    ] {
        let edits = simulate::scenario::load_edits(Path::new(edits_file))
            .unwrap()
            .edits;
        let names: Vec<String> = edits.iter().map(|e| e.name.clone()).collect();
        let (paths, _) =
            simulate::history::files::find(Path::new(dir), Path::new(edits_file)).unwrap();
        let evaluated = evaluate_all(
            Path::new(dir),
            &paths,
            &edits,
            &[],
            edits_file,
            &factors,
            false,
        )
        .unwrap();
        let reference = aggregate(&names, &evaluated.sessions).unwrap();
        let sweep = evaluated.sweep.finish(&factors, &reference);
        assert_eq!(sweep.closed_forms.len(), 1 + names.len());
        let baseline = sweep.closed_forms[0].expect("the baseline always has one");
        for (point, f) in sweep.points.iter().zip(factors.points()) {
            let total = at(&baseline, f);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * total;
            assert!(close(total, point.baseline_total_tokens), "{dir} {f:?}");
            for (i, name) in names.iter().enumerate() {
                match sweep.closed_forms[i + 1] {
                    Some(form) => assert!(
                        close(total - at(&form, f), point.saved_tokens[i]),
                        "{dir} {f:?} {name}: {} vs {}",
                        total - at(&form, f),
                        point.saved_tokens[i]
                    ),
                    None => assert_eq!(Some(name.as_str()), replayed, "{dir}"),
                }
            }
        }
        if let Some(name) = replayed {
            let i = names.iter().position(|n| n == name).unwrap();
            assert_eq!(sweep.closed_forms[i + 1], None);
        }
    }
}

/// Edits that save nothing over a history name no winner (before: "cap bash saves the most:
/// 0.0 % … it ranks first in 0 of the 0 sessions"; "0 of 0" in the table).
#[test]
fn a_history_where_no_edit_saves_names_no_winner() {
    let dir = tempfile::tempdir().unwrap();
    let edits = dir.path().join("e.toml");
    fs::write(
        &edits,
        "[[edit]]\nname = \"cap bash\"\ncap = { select = { tool = \"bash\" }, max_bytes = 100 }\n[[edit]]\nname = \"short ttl\"\ncache = { ttl_s = 10 }\n",
    )
    .unwrap();
    let output = simulate()
        .args(["history", "scenarios/history", "--no-write", "--edits"])
        .arg(&edits)
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("Over 12 sessions, no edit saves reread tokens: every saving summed over the sessions is 0 est. tokens or less (see the cost ranking for what the edits do to cost). By cost (every session has a prompt cache) no edit saves any cost."),
        "{text}"
    );
    assert!(
        !text.contains("saves the most") && !text.contains("0 of 0"),
        "{text}"
    );
}

/// Issue 27 §5: the table names at most three flips of each kind, says how many more and
/// where they are; flips.csv holds every one, and `--verbose` prints every one.
#[test]
fn the_table_shows_the_few_flips_that_matter_and_the_rest_go_to_flips_csv() {
    let out = tempfile::tempdir().unwrap();
    let short = history(
        Path::new("scenarios/history"),
        "scenarios/history/edits.toml",
        out.path(),
        "2",
        &[],
    );
    let flips = std::fs::read_to_string(out.path().join("h/flips.csv")).unwrap();
    let rows: Vec<&str> = flips.lines().skip(1).collect();
    assert_eq!(
        flips.lines().next().unwrap(),
        "across,edit,saves_more,count,of,first_where"
    );
    let across_sessions = rows.iter().filter(|r| r.starts_with("sessions,")).count();
    let across_points = rows.iter().filter(|r| r.starts_with("points,")).count();
    assert_eq!((across_sessions, across_points), (6, 1), "{flips}");
    let shown = |text: &str| {
        text.lines()
            .filter(|l| l.contains(" saves more than ") && l.contains(" of 12 sessions"))
            .count()
    };
    assert_eq!(shown(&short), 3, "{short}");
    assert!(
        short.contains(
            "  and 3 pairs more that flip: every one in flips.csv and report.html, or with --verbose"
        ),
        "{short}"
    );
    let out2 = tempfile::tempdir().unwrap();
    let verbose = history(
        Path::new("scenarios/history"),
        "scenarios/history/edits.toml",
        out2.path(),
        "2",
        &["--verbose"],
    );
    assert_eq!(shown(&verbose), 6, "{verbose}");
    assert!(!verbose.contains("pairs more that flip"), "{verbose}");
    // Three more flips, and no line saying where they are.
    assert_eq!(verbose.lines().count(), short.lines().count() + 2);
}
