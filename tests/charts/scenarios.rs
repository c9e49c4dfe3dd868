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
