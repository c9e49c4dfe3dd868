//! Charts drawn from real scenario files through the engine, checked against what the
//! text output says of the same run (issue 16 §5: charts that say what the text says).

use std::path::Path;

use simulate::chart::{self, ChartInput};
use simulate::evaluate::{Study, evaluate};
use simulate::ledger::Assumptions;
use simulate::output;
use simulate::report::{Report, Sources};
use simulate::scenario;

/// The charts' input of `path` at its nominal point, without a sweep, and its report.
fn nominal_input(path: &str) -> (ChartInput, Report) {
    let scenario = scenario::load(Path::new(path)).expect("the scenario loads");
    let study = Study::new(&scenario).expect("its edits apply");
    let at = Assumptions {
        base_tokens: scenario.base_tokens,
        bytes_per_token: scenario.bytes_per_token,
    };
    let nominal = evaluate(&study, study.nominal(at));
    let report = Report::new(&study, &nominal, Sources::of(&scenario, false, false), None);
    let input = output::charts::input(&study, &nominal, None, &report);
    (input, report)
}

/// The run of `chart` named `name`.
fn run<'a>(chart: &'a chart::context::ContextChart, name: &str) -> &'a chart::context::Run {
    chart
        .runs
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no run {name}"))
}

/// Every drawn point of a run, `(baseline position, tokens)`, in order.
fn points(run: &chart::context::Run) -> Vec<(f64, f64)> {
    run.lines.iter().flatten().copied().collect()
}

#[test]
fn a_merge_is_drawn_at_the_same_place_with_or_without_a_move() {
    let (input, _) = nominal_input("tests/fixtures/charts/move.toml");
    let chart = chart::context::prepare(&input).expect("prepared");
    // read-a and read-b (calls 3 and 4) merge into call 3, in both edits.
    let alone = run(&chart, "merge reads");
    let with_move = run(&chart, "doc late, merge reads");
    assert_eq!(alone.merged.iter().map(|m| m.0).collect::<Vec<_>>(), [3.0]);
    assert_eq!(
        with_move.merged.iter().map(|m| m.0).collect::<Vec<_>>(),
        [3.0]
    );
    // Every call the edit does not move stays at its own place in the baseline: ls at 2,
    // the merged read at 3, test at 5, commit at 6; the moved doc runs between the merged
    // read and test, and its own place (1) is a gap.
    let xs: Vec<f64> = points(with_move).iter().map(|p| p.0).collect();
    assert_eq!(xs, [2.0, 3.0, 4.5, 5.0, 6.0]);
    assert_eq!(
        with_move.moved.iter().map(|m| m.0).collect::<Vec<_>>(),
        [4.5]
    );
    // The move alone: calls 2 to 4 keep their places, not one place to the left.
    let moved = run(&chart, "doc late");
    let xs: Vec<f64> = points(moved).iter().map(|p| p.0).collect();
    assert_eq!(xs, [2.0, 3.0, 4.0, 4.5, 5.0, 6.0]);
    assert_eq!(moved.moved.iter().map(|m| m.0).collect::<Vec<_>>(), [4.5]);
    // And the chart says so in words.
    assert!(chart.subtitle.contains("moved"), "{}", chart.subtitle);
    let svg = chart::context::draw(&chart).expect("drawn");
    assert!(
        svg.contains("moved call"),
        "no legend entry for a moved call"
    );
}

#[test]
fn the_shipped_coding_scenario_rings_its_merge_at_one_place() {
    let (input, _) = nominal_input("scenarios/coding.toml");
    let chart = chart::context::prepare(&input).expect("prepared");
    let ring = |name: &str| {
        run(&chart, name)
            .merged
            .iter()
            .map(|m| m.0)
            .collect::<Vec<_>>()
    };
    // read-client, the first of the three merged reads, is call 5 of the baseline.
    assert_eq!(ring("read sources in one call"), [5.0]);
    assert_eq!(ring("all four"), [5.0]);
}

/// Runs the binary on `args` with `--out` a fresh folder: its stdout and the folder.
fn run_binary(args: &[&str]) -> (String, tempfile::TempDir) {
    let out = tempfile::tempdir().expect("a temporary folder");
    let output = assert_cmd::Command::cargo_bin("simulate")
        .expect("the binary")
        .args(args)
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("it runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (String::from_utf8_lossy(&output.stdout).into_owned(), out)
}

/// Every text element of an SVG file, joined by spaces.
fn svg_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Numbers of four or more digits written without a thousands separator.
fn ungrouped(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let end = (k..chars.len())
            .find(|&j| !chars[j].is_ascii_digit())
            .unwrap_or(chars.len());
        // A decimal part (3.1234) is not a count.
        let decimals = k > 0 && chars[k - 1] == '.';
        if end - k >= 4 && !decimals {
            found.push(chars[k..end].iter().collect());
        }
        k = end.max(k + 1);
    }
    found
}

#[test]
fn a_thinned_grid_counts_what_the_text_counts() {
    let (stdout, out) = run_binary(&[
        "scenarios/coding.toml",
        "--sweep-base",
        "8000:48000:100",
        "--sweep-bpt",
        "3:4.6:100",
    ]);
    let dir = out.path().join("coding");
    let ranking = svg_text(&dir.join("ranking.svg"));
    assert!(
        ranking.contains("holds at 4,881 of 10,000 points"),
        "{ranking}"
    );
    // Each pair's panel counts the points the text gives it, of the whole grid.
    let mut pairs = 0;
    for line in stdout.lines().filter(|l| l.contains(" beats ")) {
        let count = line
            .rsplit_once('(')
            .and_then(|(_, c)| c.strip_suffix(" points)"))
            .unwrap_or_else(|| panic!("no count in {line:?}"));
        let wanted = format!("flipped at {count} of 10,000 points");
        assert!(ranking.contains(&wanted), "{wanted:?} not in {ranking}");
        pairs += 1;
    }
    assert_eq!(pairs, 4, "{stdout}");
    // The nominal ρ (3.8) is not a swept value: no panel claims it, and the chart says so.
    let savings = svg_text(&dir.join("savings.svg"));
    assert!(!savings.contains("(nominal)"), "{savings}");
    assert!(!savings.contains("with the nominal"), "{savings}");
    assert!(
        savings.contains("the nominal ρ = 3.8 lies between swept values"),
        "{savings}"
    );
    for name in ["ranking.svg", "savings.svg", "context.svg", "totals.svg"] {
        let text = svg_text(&dir.join(name));
        assert_eq!(ungrouped(&text), Vec::<String>::new(), "{name}: {text}");
    }
}

#[test]
fn the_ungrouped_number_finder_finds_them() {
    assert_eq!(ungrouped("at 4881 of 10,000 points"), ["4881"]);
    assert_eq!(
        ungrouped("ρ = 3.1234, B = 30k, 999 calls"),
        Vec::<String>::new()
    );
}
