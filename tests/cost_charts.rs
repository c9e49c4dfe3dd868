//! The cost versions of the history charts (`sessions-cost.svg`, `aggregate-cost.svg`) and
//! the suggestion's charts and table in the cost ranking's unit (issue 25 §1): written
//! exactly when the sessions have a prompt cache, in dollars where every session is
//! priced, and a cache or model edit that changes cost alone never drawn or shown as a
//! 0.0 % reread-token saving.
#![allow(clippy::unwrap_used)]

mod support;
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;
use support::{number, rows, simulate};

/// Every session has a `[cache]`; "cache for an hour" changes only `pause`'s cost.
const COST_ONLY: &str = "tests/fixtures/history/cost_only";
const COST_ONLY_EDITS: &str = "tests/fixtures/history/cost_only_edits.toml";
/// No session has a `[cache]`.
const SMALL: &str = "tests/fixtures/history/small";
const SMALL_EDITS: &str = "tests/fixtures/history/edits.toml";
/// Every session priced and cached: the cost ranking is in dollars.
const PRICED: &str = "scenarios/history";
const PRICED_EDITS: &str = "scenarios/history/edits.toml";

const COST_CHARTS: [&str; 2] = ["sessions-cost.svg", "aggregate-cost.svg"];

/// Runs `simulate history DIR --edits EDITS --name h --out OUT`; returns stdout.
fn history(dir: &str, edits: &str, out: &Path) -> String {
    let output = simulate()
        .args(["history", dir, "--edits", edits, "--name", "h", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The text of every `<text>` of `svg`, trimmed, in document order.
fn words(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

/// The bar labels of an aggregate chart (`12.3% · …`), top to bottom.
fn bar_labels(svg: &str) -> Vec<String> {
    words(svg)
        .into_iter()
        .filter(|w| {
            w.split_once("% · ")
                .is_some_and(|(pct, _)| pct.parse::<f64>().is_ok())
        })
        .collect()
}

/// Renders `svg` to a PNG beside it with rsvg-convert, or says why not and returns false
/// (a failure where `SIMULATE_REQUIRE_RENDERER` is set, as in CI).
fn renders(svg: &Path) -> bool {
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
        return false;
    }
    let png = svg.with_extension("png");
    let out = std::process::Command::new("rsvg-convert")
        .arg("--format=png")
        .arg("--output")
        .arg(&png)
        .arg(svg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        svg.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        fs::metadata(&png).unwrap().len() > 10_000,
        "an empty picture?"
    );
    true
}

#[test]
fn the_cost_charts_are_written_exactly_when_the_sessions_have_a_cache() {
    let out = tempfile::tempdir().unwrap();
    history(COST_ONLY, COST_ONLY_EDITS, out.path());
    let dir = out.path().join("h");
    let page = fs::read_to_string(dir.join("report.html")).unwrap();
    for file in COST_CHARTS {
        assert!(dir.join(file).is_file(), "{file} missing");
        assert!(page.contains(&format!("<figure id=\"{file}\">")), "{file}");
    }
    let out = tempfile::tempdir().unwrap();
    history(SMALL, SMALL_EDITS, out.path());
    let dir = out.path().join("h");
    assert!(dir.join("aggregate.svg").is_file());
    let page = fs::read_to_string(dir.join("report.html")).unwrap();
    for file in COST_CHARTS {
        assert!(!dir.join(file).exists(), "{file} without a cache");
        assert!(!page.contains(file), "{file} on the page without a cache");
    }
}

#[test]
fn a_cost_only_edit_is_left_out_of_the_token_charts_and_drawn_on_cost() {
    // Before: "cache for an hour" was a 0.0 % bar in aggregate.svg, though it saves
    // 11,500 of `pause`'s 28,600 input-token equivalents.
    let out = tempfile::tempdir().unwrap();
    let table = history(COST_ONLY, COST_ONLY_EDITS, out.path());
    let dir = out.path().join("h");
    let cache = "cache for an hour";
    for file in ["sessions.svg", "aggregate.svg"] {
        let svg = fs::read_to_string(dir.join(file)).unwrap();
        let words = words(&svg);
        assert!(!words.iter().any(|w| w == cache), "{file}: {words:?}");
        assert!(
            words.iter().any(|w| w == "cap shell output at 100 B"),
            "{file}"
        );
        let cost_file = file.replace(".svg", "-cost.svg");
        let note = format!(
            "Left out: “{cache}” changes the cost alone, not the reread total (drawn in {cost_file})."
        );
        assert!(words.contains(&note), "{file}: {words:?}");
    }
    assert_eq!(
        bar_labels(&fs::read_to_string(dir.join("aggregate.svg")).unwrap()),
        vec!["4.3% · 0.3 calls · first in 1 of 1"]
    );
    // On cost both, ranked by cost: 11,500 and 2,565 of the summed 61,800, as summary.csv.
    let summary = rows(&dir.join("summary.csv"));
    let cost = |edit: &str| {
        let row = summary.iter().find(|r| r["edit"] == edit).unwrap();
        (number(row, "cost_saved"), number(row, "cost_saved_pct"))
    };
    assert_eq!(cost(cache), (11500.0, 100.0 * 11500.0 / 61800.0));
    assert_eq!(cost("cap shell output at 100 B").0, 2565.0);
    let svg = fs::read_to_string(dir.join("aggregate-cost.svg")).unwrap();
    assert_eq!(
        bar_labels(&svg),
        vec![
            "18.6% · 11,500 input-token eq.",
            "4.2% · 2,565 input-token eq."
        ]
    );
    let words = words(&svg);
    assert!(words.iter().any(|w| w == cache), "{words:?}");
    // No session is priced: the unit is said, and why it is not dollars.
    assert!(
        words
            .iter()
            .any(|w| w
                == "% of baseline cost (input-token eq.) saved (left of 0: the edit costs more)"),
        "{words:?}"
    );
    assert!(
        words
            .iter()
            .any(|w| w.contains("61,800 input-token eq. (not every session is priced)")),
        "{words:?}"
    );
    let svg = fs::read_to_string(dir.join("sessions-cost.svg")).unwrap();
    let words = crate::words(&svg);
    assert!(words.iter().any(|w| w == cache), "{words:?}");
    // `quiet` no edit changes; `pause` the cache edit does, on cost.
    assert!(
        words.contains(
            &"No edit changes the cost of 1 of them: they sit at 0 % in every row.".to_string()
        ),
        "{words:?}"
    );
    // The table already said "cost only" for it; the page says so too.
    assert!(table.contains("cost only"), "{table}");
    let page = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        page.contains("<td class=\"name\">cache for an hour</td><td class=\"moves\">cost only</td><td class=\"moves\">—</td>"),
        "the page shows the cost-only edit as a saving of reread tokens"
    );
    assert!(page.contains("<th>cost saved, % of input-token eq.</th>"));
}

#[test]
fn a_cost_bar_says_the_dollars_of_summary_csv() {
    // Every session priced: the cost charts are in dollars, each bar's label the edit's
    // dollars_saved of summary.csv, its share of the summed baseline dollars of
    // sessions.csv.
    let out = tempfile::tempdir().unwrap();
    history(PRICED, PRICED_EDITS, out.path());
    let dir = out.path().join("h");
    let mut summary = rows(&dir.join("summary.csv"));
    summary.sort_by_key(|r| r["cost_rank"].parse::<usize>().unwrap());
    let mut baselines: BTreeMap<String, f64> = BTreeMap::new();
    for r in rows(&dir.join("sessions.csv")) {
        baselines.insert(r["session"].clone(), number(&r, "baseline_dollars"));
    }
    assert_eq!(baselines.len(), 12);
    let baseline: f64 = baselines.values().sum();
    let want: Vec<String> = summary
        .iter()
        .map(|r| {
            let d = number(r, "dollars_saved");
            format!(
                "{:.1}% · {}",
                100.0 * d / baseline,
                simulate::number::dollars(d)
            )
        })
        .collect();
    let svg = fs::read_to_string(dir.join("aggregate-cost.svg")).unwrap();
    let got = bar_labels(&svg);
    assert_eq!(got, want);
    // The first by hand: $1.2687 saved of the 12 sessions' $6.41.
    assert_eq!(got[0], "19.8% · $1.27");
    let dollars: f64 = got[0].split("· $").nth(1).unwrap().parse().unwrap();
    assert_eq!(
        dollars,
        (number(&summary[0], "dollars_saved") * 100.0).round() / 100.0
    );
    let words = words(&svg);
    assert!(
        words.contains(&"% of baseline dollars saved (left of 0: the edit costs more)".to_string()),
        "{words:?}"
    );
    let svg = fs::read_to_string(dir.join("sessions-cost.svg")).unwrap();
    assert!(words_text(&svg).contains(
        "Cost in dollars (simulated: each call at its model's list price, output included)"
    ),);
    if renders(&dir.join("sessions-cost.svg")) {
        renders(&dir.join("aggregate-cost.svg"));
    }
}

fn words_text(svg: &str) -> String {
    words(svg).join(" ")
}

#[test]
fn the_cost_charts_render() {
    let out = tempfile::tempdir().unwrap();
    history(COST_ONLY, COST_ONLY_EDITS, out.path());
    for file in COST_CHARTS {
        if !renders(&out.path().join("h").join(file)) {
            return;
        }
    }
}

#[test]
fn suggest_says_cost_only_and_draws_its_tradeoffs_in_dollars() {
    // Before: the 1-hour cache's row read "0  0.0 %" of reread tokens, and the trade-off
    // charts were in percent of input-token equivalents though every session is priced.
    let out = tempfile::tempdir().unwrap();
    let output = simulate()
        .args(["suggest", PRICED, "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let table = String::from_utf8(output.stdout).unwrap();
    let row = table
        .lines()
        .find(|l| l.contains(" 1-hour cache "))
        .unwrap_or_else(|| panic!("{table}"));
    let cells: Vec<&str> = row
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    // rank, edit, family, cost saved, saved, $ saved, est. tokens saved, saved, …
    assert_eq!(
        cells[1..8],
        [
            "1-hour cache",
            "1-hour cache",
            "22,657",
            "1.1 %",
            "$0.07",
            "cost only",
            "—"
        ],
        "{row}"
    );
    let chart = fs::read_to_string(
        out.path()
            .join("history-suggest/tradeoff-context-editing.svg"),
    )
    .unwrap();
    let words = words(&chart);
    assert!(
        words.contains(
            &"cost saved, US dollars (simulated at list prices), summed over sessions".to_string()
        ),
        "{words:?}"
    );
    assert!(words.iter().any(|w| w == "$1.00"), "{words:?}");
    // The front in dollars, as the ranking: its best saves $1.07.
    assert!(
        table.contains("    context editing at 40,000, keep 1: saves $1.07 (16.7 % of the summed dollars), removes 242,324 est. tokens"),
        "{table}"
    );
    renders(
        &out.path()
            .join("history-suggest/tradeoff-context-editing.svg"),
    );
}
