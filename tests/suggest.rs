//! `simulate suggest` (docs/model.md §9, "Suggested edits"): the candidates found in small
//! hand-written histories, their figures worked out by hand, the ranking, the Pareto front
//! of a family, and `suggested.toml` rerun with `simulate history --edits` to the same
//! figures.
#![allow(clippy::unwrap_used)]

mod support;
use support::rows;

use serde_json::Value;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use support::simulate;

const SMALL: &str = "tests/fixtures/suggest/small";
const PARTS: &str = "tests/fixtures/suggest/parts";

/// Runs `simulate suggest PATH --out OUT` with `extra`, expecting success; returns stdout.
fn suggest(path: &str, out: &Path, extra: &[&str]) -> String {
    let output = simulate()
        .arg("suggest")
        .arg(path)
        .arg("--out")
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

fn json(path: &str, out: &Path) -> Value {
    serde_json::from_str(&suggest(path, out, &["--format", "json"])).unwrap()
}

/// The candidates of a report by name.
fn by_name(report: &Value) -> HashMap<String, Value> {
    report["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().to_string(), c.clone()))
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// s1 (no cache, B = 1,000, ρ = 1): results 1,000, 2,000, 4,000, 40,000 (Bash), 100, 200,
/// 300 (WebFetch), 500, 500 (Read, the same input), 40,000 (WebFetch), 100 (Grep). Calls
/// read 1,000, 2,000, 4,000, 8,000, 48,000, 48,100, 48,300, 48,600, 49,100, 49,600 and
/// 89,600: T = 396,300, its cost too. s2 (cache read 0.1, write 1.25, TTL 300 s, B = 2,000):
/// three results of 1,000, the second after a 600 s pause: T = 9,000; cost 2,500 + 3,750
/// (the cache expired) + 300 + 1,250 = 7,800.
#[test]
fn the_candidates_their_figures_and_their_ranking_by_hand() {
    let out = tempfile::tempdir().unwrap();
    let r = json(SMALL, out.path());
    assert_eq!(r["baseline"]["total_tokens"], 405_300.0);
    assert_eq!(r["baseline"]["cost"], 404_100.0);
    let ranked: Vec<&str> = r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    // Bash's outputs 1, 2, 4, 40 KB: p75 (nearest rank 3) is 4 KB; p90 (rank 4) is the
    // largest, a cap that cuts nothing, so not proposed; likewise WebFetch's 40 KB.
    // Contexts from the second call on: p50 48,000, p75 48,600, p90 49,600, all rounding to
    // 50,000, below the largest (89,600); 100,000 and 150,000 are not.
    assert_eq!(
        ranked,
        vec![
            "cap Bash at 4,000 bytes (p75)",
            // The schedule search's cheapest clearing (tests/schedule_search.rs prices one
            // by hand).
            "cheapest: clear above 50k, keep 0",
            "context editing at 50,000, keep 1",
            "context editing at 50,000, keep 3",
            "context editing at 50,000, keep 5",
            "cap WebFetch at 300 bytes (p75)",
            "clear after a 300 s pause (the cache TTL)",
            "read-once: Read",
            "1-hour cache",
            "compact above 50,000 tokens",
        ]
    );
    let c = by_name(&r);
    // (cost saved, reread tokens saved, context removed), each by hand:
    let expected = [
        // 36,000 cut from call 4, re-read by 7 later calls.
        (
            "cap Bash at 4,000 bytes (p75)",
            252_000.0,
            252_000.0,
            36_000.0,
        ),
        // Before call 11 (89,600 > 50,000) every result but the latest kept is cleared:
        // calls 1–9 (48,600 bytes, less 9 × 9 of placeholders), 1–7 (47,600 − 63), 1–5
        // (47,100 − 45); only call 11 reads less.
        (
            "context editing at 50,000, keep 1",
            48_519.0,
            48_519.0,
            48_519.0,
        ),
        (
            "context editing at 50,000, keep 3",
            47_537.0,
            47_537.0,
            47_537.0,
        ),
        (
            "context editing at 50,000, keep 5",
            47_055.0,
            47_055.0,
            47_055.0,
        ),
        // 39,700 cut from call 10, re-read by call 11 only.
        (
            "cap WebFetch at 300 bytes (p75)",
            39_700.0,
            39_700.0,
            39_700.0,
        ),
        // s2: before call 2 (600 s > 300 s) call 1's result becomes 9 bytes: T = 2,000 +
        // 2,009 + 3,009; cost 2,500 + 2,009 × 1.25 + (2,009 × 0.1 + 1,000 × 1.25).
        (
            "clear after a 300 s pause (the cache TTL)",
            7_800.0 - 6_462.15,
            1_982.0,
            991.0,
        ),
        // The second Read (500 bytes) becomes 9, re-read by calls 10 and 11.
        ("read-once: Read", 982.0, 982.0, 491.0),
        // s2 under a 1-hour cache writing at 2×: 4,000 + (200 + 2,000) + (300 + 2,000);
        // s1 has no cache to change.
        ("1-hour cache", -700.0, 0.0, 0.0),
        // s1: the compaction before call 11 reads 89,600; call 11 then reads 1,000 + 4,000
        // (the assumed summary) instead of 89,600: 5,000 more rereads; it replaced 89,600
        // − 5,000 of context.
        ("compact above 50,000 tokens", -5_000.0, -5_000.0, 84_600.0),
    ];
    for (name, cost, tokens, removed) in expected {
        let e = &c[name];
        assert!(
            close(e["cost_saved"].as_f64().unwrap(), cost),
            "{name}: {e}"
        );
        assert!(
            close(e["saved_tokens"].as_f64().unwrap(), tokens),
            "{name}: {e}"
        );
        assert!(
            close(e["context_removed_tokens"].as_f64().unwrap(), removed),
            "{name}: {e}"
        );
    }
    // Robustness: the cap saves cost in s1 only, at every point of the sweep; the 1-hour
    // cache saves at none (its write fee is never paid back with one pause).
    let cap = &c["cap Bash at 4,000 bytes (p75)"];
    assert_eq!(cap["sessions_saving_cost"], 1);
    assert_eq!(cap["sessions_adding_cost"], 0);
    assert_eq!(cap["sweep_points_saving_cost"], 9);
    assert_eq!(cap["holds_over_sweep"], true);
    assert_eq!(c["1-hour cache"]["sweep_points_saving_cost"], 0);
    assert_eq!(c["1-hour cache"]["sessions_adding_cost"], 1);
    // The Pareto front of each parametric family: the WebFetch cap removes more context
    // than the Bash cap and saves less, so it is off; each context-editing edit removes
    // more and saves more than the next; the compaction saves no cost.
    assert_eq!(cap["on_front"], true);
    assert_eq!(c["cap WebFetch at 300 bytes (p75)"]["on_front"], false);
    for keep in [1, 3, 5] {
        assert_eq!(
            c[&format!("context editing at 50,000, keep {keep}")]["on_front"],
            true
        );
    }
    assert_eq!(c["compact above 50,000 tokens"]["on_front"], false);
    assert_eq!(c["read-once: Read"]["on_front"], Value::Null);
    let fronts: Vec<(&str, usize)> = r["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["family"].as_str().unwrap(),
                f["front"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        fronts,
        vec![("cap", 1), ("context-editing", 3), ("compaction", 0)]
    );
    assert_eq!(
        r["families"][1]["front"][0], "context editing at 50,000, keep 5",
        "least context removed first"
    );
    // What the rules found, including why nothing was proposed.
    let findings = r["findings"].to_string();
    for wanted in [
        "p90 is its largest output, so a cap there cuts nothing",
        "fewer than 4 outputs, too few to tell: Glob, Grep, Read",
        "1 call of Read in 1 session repeats an earlier input",
        "the API's defaults never fire",
        "summary assumed: 4,000 tokens",
        "no scenario declares [[base.part]]",
    ] {
        assert!(findings.contains(wanted), "{wanted}: {findings}");
    }
    assert_eq!(r["summary"]["tokens"], 4_000.0);
    assert!(
        r["summary"]["source"]
            .as_str()
            .unwrap()
            .starts_with("assumed")
    );
}

/// Runs the history on `dir` with the edits file a suggestion wrote, and compares every
/// figure both give.
fn reruns_to_the_same_figures(dir: &str) {
    let out = tempfile::tempdir().unwrap();
    suggest(dir, out.path(), &[]);
    let name = format!(
        "{}-suggest",
        Path::new(dir).file_name().unwrap().to_string_lossy()
    );
    let folder = out.path().join(&name);
    let edits = folder.join("suggested.toml");
    let again = tempfile::tempdir().unwrap();
    let output = simulate()
        .arg("history")
        .arg(dir)
        .arg("--edits")
        .arg(&edits)
        .args(["--name", "h", "--no-charts", "--out"])
        .arg(again.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let suggested = rows(&folder.join("suggest.csv"));
    let summary: HashMap<String, HashMap<String, String>> =
        rows(&again.path().join("h").join("summary.csv"))
            .into_iter()
            .map(|r| (r["edit"].clone(), r))
            .collect();
    assert_eq!(suggested.len(), summary.len(), "{dir}");
    for s in &suggested {
        let h = &summary[&s["edit"]];
        for (a, b) in [
            ("cost_saved", "cost_saved"),
            ("cost_saved_pct", "cost_saved_pct"),
            ("cost_rank", "cost_rank"),
            ("saved_tokens", "saved_tokens"),
            ("saved_pct", "saved_pct"),
            ("token_rank", "rank"),
            ("dollars_saved", "dollars_saved"),
            ("priced_sessions", "priced_sessions"),
            ("sessions_selected_nothing", "sessions_selected_nothing"),
        ] {
            assert_eq!(s[a], h[b], "{dir}: {}: {a}", s["edit"]);
        }
    }
}

#[test]
fn suggested_toml_reruns_to_the_same_figures() {
    reruns_to_the_same_figures(SMALL);
    reruns_to_the_same_figures(PARTS);
    reruns_to_the_same_figures("scenarios/history");
}

#[test]
fn the_files_and_the_edits_file_a_person_reads() {
    let out = tempfile::tempdir().unwrap();
    let table = suggest(SMALL, out.path(), &["--top", "3"]);
    let folder = out.path().join("small-suggest");
    assert_eq!(
        support::names(&folder),
        vec![
            ".simulate-manifest",
            "refetch.csv",
            "schedule-clearing.svg",
            "schedule-compaction.svg",
            "schedule-context-editing.svg",
            "suggest.csv",
            "suggested.toml",
            "tradeoff-cap.svg",
            "tradeoff-compaction.svg",
            "tradeoff-context-editing.svg"
        ]
    );
    assert!(
        table.contains("Top 3 of 10 by summed cost saved"),
        "{table}"
    );
    assert!(
        table.contains(
            "Rerun (the same figures): simulate history tests/fixtures/suggest/small --edits"
        ),
        "{table}"
    );
    let text = std::fs::read_to_string(folder.join("suggested.toml")).unwrap();
    // Each edit with what suggested it and what it saved.
    assert!(
        text.contains("name = \"cap Bash at 4,000 bytes (p75)\"\n# Bash's 4 outputs in 1 session"),
        "{text}"
    );
    assert!(text.contains("cap = { select = { tool = \"Bash\" }, max_bytes = 4000 }"));
    assert!(
        text.contains("# Evaluated: 1st of 10 by cost; saves 62.4 % of the summed cost (252,000 input-token\n# equivalents)")
    );
    assert!(text.contains("compact = { above_context_tokens = 50000, summary_tokens = 4000 }"));
    // The 1-hour cache only where it lengthens the cache, only at Anthropic.
    assert!(text.contains(
        "cache = { ttl_s = 3600, write = 2.0, only_longer = true, providers = [\"anthropic\"] }"
    ));
    // The JSON holds the same text; --no-write writes nothing.
    let nothing = tempfile::tempdir().unwrap();
    let r: Value = serde_json::from_str(&suggest(
        SMALL,
        &nothing.path().join("o"),
        &["--no-write", "--format", "json", "--jobs", "1"],
    ))
    .unwrap();
    assert!(!nothing.path().join("o").exists());
    let without_dir = text.replace(
        &folder.join("suggested.toml").display().to_string(),
        "suggested.toml",
    );
    assert_eq!(
        r["suggested_toml"].as_str().unwrap().lines().count(),
        without_dir.lines().count()
    );
    // Every chart says what the front is and renders.
    for chart in [
        "tradeoff-cap.svg",
        "tradeoff-context-editing.svg",
        "tradeoff-compaction.svg",
    ] {
        let svg = std::fs::read_to_string(folder.join(chart)).unwrap();
        assert!(svg.contains("Pareto front"), "{chart}");
        assert!(svg.contains("context removed, est. tokens"), "{chart}");
        roxmltree::Document::parse(&svg).unwrap();
        render(&folder.join(chart));
    }
}

#[test]
fn the_same_results_with_one_thread_or_two() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let one = suggest("scenarios/history", a.path(), &["--jobs", "1"]);
    let two = suggest("scenarios/history", b.path(), &["--jobs", "2"]);
    let strip = |t: &str, d: &Path| t.replace(&d.display().to_string(), "OUT");
    assert_eq!(strip(&one, a.path()), strip(&two, b.path()));
    let fa = support::contents(&a.path().join("history-suggest"));
    let fb = support::contents(&b.path().join("history-suggest"));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (name, bytes) in &fa {
        // suggested.toml's rerun command names its folder, and the manifest its digest.
        if name != "suggested.toml" && name != ".simulate-manifest" {
            assert_eq!(bytes, &fb[name], "{name}");
        }
    }
}

/// One scenario: its own candidates (no pause, no cache: no idle clearing, no 1-hour
/// cache), and the rerun is `simulate FILE --edits`.
#[test]
fn a_single_scenario() {
    let out = tempfile::tempdir().unwrap();
    let file = format!("{SMALL}/s1.toml");
    let r = json(&file, out.path());
    assert_eq!(r["name"], "s1-suggest");
    let c = by_name(&r);
    assert!(c.contains_key("cap Bash at 4,000 bytes (p75)"));
    assert!(!c.contains_key("1-hour cache"));
    assert!(!c.contains_key("clear after a 300 s pause (the cache TTL)"));
    assert_eq!(
        c["cap Bash at 4,000 bytes (p75)"]["saved_tokens"],
        252_000.0
    );
    let rerun = r["rerun"].as_str().unwrap();
    assert!(
        rerun.starts_with(&format!("simulate {file} --edits ")),
        "{rerun}"
    );
    let edits = out.path().join("s1-suggest").join("suggested.toml");
    let output = simulate()
        .arg(&file)
        .arg("--edits")
        .arg(&edits)
        .args(["--no-write", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let run: Value = serde_json::from_slice(&output.stdout).unwrap();
    for e in run["edits"].as_array().unwrap() {
        let s = &c[e["name"].as_str().unwrap()];
        assert!(close(
            e["saved_tokens"].as_f64().unwrap(),
            s["saved_tokens"].as_f64().unwrap()
        ));
        assert!(close(
            e["cost_saved"].as_f64().unwrap(),
            s["cost_saved"].as_f64().unwrap()
        ));
    }
}

/// Four sessions declare the GitHub server's 3,000 tokens of definitions; one of them (p2)
/// calls one of its tools, at its third call: rarely used (1 of 4 sessions), so it is
/// dropped and deferred. p1 starts after a compaction whose summary was 6,600 bytes at a
/// fitted ρ of 3.3: 2,000 tokens, measured.
#[test]
fn rarely_used_tool_definitions_and_a_measured_summary() {
    let out = tempfile::tempdir().unwrap();
    let r = json(PARTS, out.path());
    let c = by_name(&r);
    // Dropped: 3,000 tokens from every call of the 4 sessions of 4 calls.
    let drop = &c["drop mcp:github"];
    assert_eq!(drop["saved_tokens"], 48_000.0);
    assert_eq!(drop["context_removed_tokens"], 12_000.0);
    // Deferred behind a 500-token stub: 4 × 2,500 saved in each session that never loads
    // it; in p2 a tool search before call 3 reads 9,500 and the definitions join, so the
    // calls read 7,500, 8,500, 9,500 (the search), 12,500, 13,500: 51,500 against 46,000.
    // Context removed: 2,500 where never loaded, −500 (the stub) where loaded.
    let defer = &c["defer mcp:github (tool search)"];
    assert_eq!(defer["saved_tokens"], 3.0 * 10_000.0 - 5_500.0);
    assert_eq!(defer["context_removed_tokens"], 3.0 * 2_500.0 - 500.0);
    assert_eq!(defer["parameters"]["stub_tokens"], 500.0);
    assert!(
        defer["evidence"]
            .as_str()
            .unwrap()
            .contains("assumed: 500 tokens")
    );
    assert_eq!(r["summary"]["tokens"], 2_000.0);
    assert!(
        r["summary"]["source"]
            .as_str()
            .unwrap()
            .starts_with("measured: 2,000 tokens"),
        "{}",
        r["summary"]["source"]
    );
    let findings = r["findings"].to_string();
    assert!(
        findings.contains("mcp:github (3,000 tokens, /context, test) is declared in 4 sessions; 1 of them use its tools, in 1 call of their 16"),
        "{findings}"
    );
}

#[test]
fn bad_input_is_refused_with_exit_2() {
    let out = tempfile::tempdir().unwrap();
    let missing = simulate()
        .args(["suggest", "no/such/dir", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let edits_only = simulate()
        .args(["suggest", "scenarios/history/edits.toml", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(edits_only.status.code(), Some(2));
    // One file that is not a session: why, as a directory's listing says it.
    assert!(
        String::from_utf8_lossy(&edits_only.stderr).contains(
            "scenarios/history/edits.toml: not a scenario: [[edit]] tables without calls (an edits file)"
        ),
        "{}",
        String::from_utf8_lossy(&edits_only.stderr)
    );
    let zero = simulate()
        .args(["suggest", SMALL, "--top", "0"])
        .output()
        .unwrap();
    assert_eq!(zero.status.code(), Some(2));
    assert!(support::names(out.path()).is_empty());
}

/// Renders `svg` to PNG with rsvg-convert; skipped with the reason printed without it (a
/// failure under SIMULATE_REQUIRE_RENDERER).
fn render(svg: &Path) {
    let found = std::process::Command::new("rsvg-convert")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("SIMULATE_REQUIRE_RENDERER").is_none(),
            "rsvg-convert is missing: install it with `apt-get install -y librsvg2-bin`"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: rsvg-convert is missing, SVG rendering not checked (apt-get install -y librsvg2-bin)"
        );
        return;
    }
    let png: PathBuf = svg.with_extension("png");
    let out = std::process::Command::new("rsvg-convert")
        .arg("--format=png")
        .arg("--output")
        .arg(&png)
        .arg(svg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    std::fs::remove_file(&png).unwrap();
}

/// The example shown in docs/suggest.md: `simulate suggest scenarios/history --out docs/examples`.
#[test]
fn the_checked_in_example_is_what_the_code_draws_now() {
    let out = tempfile::tempdir().unwrap();
    suggest("scenarios/history", out.path(), &[]);
    let fresh = out.path().join("history-suggest");
    let checked_in = Path::new("docs/examples/history-suggest");
    let regenerate =
        "regenerate: cargo run --release -- suggest scenarios/history --out docs/examples";
    assert_eq!(
        support::names(&fresh),
        support::names(checked_in),
        "{regenerate}"
    );
    for name in support::names(&fresh) {
        let mut now = std::fs::read_to_string(fresh.join(&name)).unwrap();
        if name == "suggested.toml" {
            // Its rerun command names the folder it was written to.
            now = now.replace(&out.path().display().to_string(), "docs/examples");
        }
        let mut then = std::fs::read_to_string(checked_in.join(&name)).unwrap();
        if name == ".simulate-manifest" {
            // ... and so does its digest there.
            let without = |t: &str| -> String {
                t.lines()
                    .filter(|l| !l.starts_with("suggested.toml\t"))
                    .map(|l| format!("{l}\n"))
                    .collect()
            };
            (now, then) = (without(&now), without(&then));
        }
        assert!(
            now == then,
            "docs/examples/history-suggest/{name} differs; {regenerate}"
        );
    }
}

/// Read-once is proposed only for a tool whose repeats mostly found what the first call
/// found: on the shipped history every repeated Bash command returned output of another
/// size, so reading it once would hide what changed (before: proposed, 5th by cost).
#[test]
fn read_once_is_not_proposed_where_repeats_see_something_new() {
    let output = simulate()
        .args(["suggest", "scenarios/history", "--no-write"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("20 got a result of another size, something new that reading\n      once would hide): not proposed, fewer than half the repeats found the same result"),
        "{text}"
    );
    assert!(!text.contains("read-once: Bash"), "{text}");
}

/// Where no candidate saves cost, the answer says there is nothing to suggest (before:
/// "the best of 3 candidate edits … is context editing at 30,000, keep 1: it saves 0.0 %").
#[test]
fn nothing_to_suggest_is_said_so() {
    // The one result is a server-side search result, which no clearing may replace: no
    // schedule of the search saves either.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("one.toml");
    std::fs::write(
        &file,
        "name = \"one\"\nbase_tokens = 30000\nbytes_per_token = 3\n[cache]\npreset = \"claude-sonnet-4-5\"\n[[call]]\nlabel = \"a\"\nbytes = 300\nkind = \"web_search\"\n[[call]]\nlabel = \"b\"\nbytes = 0\n",
    )
    .unwrap();
    let text = suggest(file.to_str().unwrap(), dir.path(), &[]);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Over 1 session, none of the 3 candidate edits found in the data saves cost: the best, context editing at 30,000, keep 1, saves nothing (0.0 % of the summed cost, 0.0 % of the summed reread tokens). There is no change to suggest."),
        "{text}"
    );
}

/// Issue 26 §6: `suggested.toml` invites editing; a rerun into the same `--out` keeps the
/// edited file (refusing, naming it, nothing written), as for any file simulate did not
/// write. An untouched folder is replaced as before.
#[test]
fn a_rerun_never_replaces_a_suggested_toml_the_user_edited() {
    let out = tempfile::tempdir().unwrap();
    suggest(SMALL, out.path(), &[]);
    // Run again untouched: replaced, as every run replaces its own folder.
    suggest(SMALL, out.path(), &[]);
    let folder = out.path().join("small-suggest");
    let file = folder.join("suggested.toml");
    let mut edited = std::fs::read_to_string(&file).unwrap();
    // The same length, one letter changed: only the bytes tell.
    assert!(edited.starts_with("# Edits suggested"));
    edited = edited.replacen("# Edits suggested", "# Edits Suggested", 1);
    std::fs::write(&file, &edited).unwrap();
    let before = support::contents(&folder);
    let output = simulate()
        .args(["suggest", SMALL, "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "small-suggest: holds a file changed since simulate wrote it (suggested.toml: edited?)"
        ),
        "{stderr}"
    );
    assert_eq!(support::contents(&folder), before);
    assert_eq!(support::names(out.path()), ["small-suggest"]);
}

/// Issue 26 §7: a directory named with ESC, DEL, CR and LF: `suggested.toml` quotes its
/// name escaped (TOML refuses control characters in a comment), so the run succeeds and the
/// file reruns; the table shows the name escaped too.
#[test]
fn a_directory_named_with_control_characters_is_quoted_escaped() {
    let root = tempfile::tempdir().unwrap();
    let name = "small\u{1b}[31m\u{7f}\r\nx";
    let dir = root.path().join(name);
    std::fs::create_dir(&dir).unwrap();
    for entry in std::fs::read_dir(SMALL).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    let out = root.path().join("out");
    let table = suggest(dir.to_str().unwrap(), &out, &[]);
    let escaped = "small\\u{1b}[31m\\u{7f}\\r\\nx";
    assert!(table.contains(escaped), "{table}");
    assert!(
        !table.chars().any(|c| c.is_control() && c != '\n'),
        "{table:?}"
    );
    let written = out.join("small-31m-x-suggest/suggested.toml");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.contains(escaped), "{text}");
    let rerun = simulate()
        .arg("history")
        .arg(&dir)
        .arg("--edits")
        .arg(&written)
        .arg("--no-write")
        .output()
        .unwrap();
    assert!(
        rerun.status.success(),
        "{}",
        String::from_utf8_lossy(&rerun.stderr)
    );
    let history = String::from_utf8(rerun.stdout).unwrap();
    assert!(history.contains(escaped), "{history}");
    assert!(
        !history.chars().any(|c| c.is_control() && c != '\n'),
        "{history:?}"
    );
}
