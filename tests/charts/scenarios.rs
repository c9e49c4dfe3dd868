//! Charts drawn from real scenario files through the engine, checked against what the
//! text output says of the same run (issue 16 §5: charts that say what the text says).

use std::path::Path;

use simulate::chart::{self, ChartInput};
use simulate::evaluate::{Study, evaluate};
use simulate::ledger::Assumptions;
use simulate::output;
use simulate::report::{Report, Sources, SweepReport};
use simulate::scenario;
use simulate::sweep::{self, Grid, SweepOptions, SweepOverrides};

/// The charts' input of `path` at its nominal point, without a sweep, and its report.
fn nominal_input(path: &str) -> (ChartInput, Report) {
    nominal_input_with(path, None)
}

/// As [`nominal_input`], with the edits of `edits` (`--edits`) when given.
fn nominal_input_with(path: &str, edits: Option<&str>) -> (ChartInput, Report) {
    let mut scenario = scenario::load(Path::new(path)).expect("the scenario loads");
    if let Some(edits) = edits {
        let loaded = scenario::load_edits(Path::new(edits)).expect("the edits load");
        scenario = scenario.with_edits(loaded.edits, edits);
    }
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

/// The charts' input of `path` with its own sweep, as a run writes them.
fn swept_input(path: &str) -> ChartInput {
    let scenario = scenario::load(Path::new(path)).expect("the scenario loads");
    let study = Study::new(&scenario).expect("its edits apply");
    let at = Assumptions {
        base_tokens: scenario.base_tokens,
        bytes_per_token: scenario.bytes_per_token,
    };
    let point = study.nominal(at);
    let nominal = evaluate(&study, point);
    let grid = Grid::new(&scenario, &point, &SweepOverrides::default()).expect("a grid");
    let mut slice = output::charts::SliceCollector::new(&grid);
    let options = SweepOptions {
        closed_form: true,
        progress: false,
    };
    let swept = sweep::run(&study, &grid, &point, options, &mut slice).expect("swept");
    let cells = slice.cells.unwrap_or_default();
    let sweep_report = SweepReport::new(&study, &swept, true);
    let sources = Sources::of(&scenario, false, false);
    let report = Report::new(&study, &nominal, sources, Some(sweep_report));
    output::charts::input(&study, &nominal, Some((&swept, &cells)), &report)
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
    // And the chart says so in words, in its subtitle and its legend.
    let svg = chart::context::draw(&chart).expect("drawn");
    for wanted in ["moved away", "moved call"] {
        assert!(svg.contains(wanted), "no {wanted:?} in {}", chart.subtitle);
    }
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
    svg_words(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
}

/// Every text element of an SVG, joined by spaces (wrapped lines join up again).
fn svg_words(svg: &str) -> String {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
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

#[test]
fn an_edit_far_from_the_rest_does_not_squeeze_the_edits_that_swap() {
    let input = swept_input("scenarios/coding.toml");
    let grid = input.savings.as_ref().expect("a savings grid");
    let chart = chart::savings::prepare(&input, grid).expect("prepared");
    let all_four = input
        .edits
        .iter()
        .position(|e| e == "all four")
        .expect("all four");
    // All four saves 29 % to 48 %; the four that swap places save 4 % to 17 %.
    assert_eq!(
        chart.off_scale.iter().map(|o| o.edit).collect::<Vec<_>>(),
        [all_four]
    );
    let (lo, hi) = chart.y_range;
    assert!(hi < 29.0, "{:?}", chart.y_range);
    let close: Vec<f64> = chart
        .panels
        .iter()
        .flat_map(|p| p.lines.iter().filter(|l| l.edit != all_four))
        .flat_map(|l| l.points.iter().map(|q| q.1))
        .collect();
    let spread = close.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        - close.iter().copied().fold(f64::INFINITY, f64::min);
    // With all four on the axis they took under a fifth of it; now, with zero kept on the
    // axis and room for the break-even labels, over two fifths.
    assert!(
        spread / (hi - lo) > 0.4,
        "the close edits take {spread} of {hi} − {lo}"
    );
    // Its line is not drawn off the plot: each panel says where it is instead, in words.
    assert!(
        chart
            .panels
            .iter()
            .all(|p| p.lines.iter().all(|l| l.edit != all_four))
    );
    let words = svg_words(&chart::savings::draw(&chart).expect("drawn"));
    assert!(words.contains("all four (above the scale"), "{words}");
}

#[test]
fn break_even_rings_leave_the_crossing_visible_and_labels_clear_the_axis() {
    let input = swept_input("scenarios/coding.toml");
    let grid = input.savings.as_ref().expect("a savings grid");
    let chart = chart::savings::prepare(&input, grid).expect("prepared");
    let plot_px = chart::savings::plot_width_px(chart.columns);
    let mut labels = 0;
    for mark in chart.panels.iter().flat_map(|p| &p.break_evens) {
        if mark.lane.is_some() {
            labels += 1;
            let (left, right) = mark.label_px;
            // The label's white box (2 px around it) stays clear of the axis line.
            assert!(left - 2 > 0, "{} at {left} px over the axis", mark.label);
            assert!(
                right + 2 < plot_px,
                "{} at {right} px past the edge",
                mark.label
            );
        }
    }
    assert!(labels > 0);
    // Rings are open: nothing covers the point where the two lines cross.
    let svg = chart::savings::draw(&chart).expect("drawn");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    let rings: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .filter(|n| n.attribute("r").and_then(|r| r.parse::<f64>().ok()) > Some(5.0))
        .collect();
    assert!(!rings.is_empty());
    for ring in rings {
        assert_eq!(
            ring.attribute("fill"),
            Some("none"),
            "a filled ring covers the crossing"
        );
    }
}

/// The last word of each edit name of `tests/fixtures/charts/many.toml`: where they differ.
const MANY_TAILS: [&str; 10] = [
    "runbook",
    "changelog",
    "build",
    "test",
    "lint",
    "rebuild",
    "retest",
    "links",
    "images",
    "error-log",
];

/// Polylines of `svg` stroked in `colour`.
fn stroked(svg: &str, colour: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour))
        .count()
}

#[test]
fn more_edits_than_colours_are_told_apart_by_a_mark_and_by_their_names() {
    let input = swept_input("tests/fixtures/charts/many.toml");
    let charts = chart::draw_all(&input).expect("drawn");
    let text = |name: &str| {
        let svg = &charts.iter().find(|(n, _)| *n == name).expect(name).1;
        svg_words(svg)
    };
    let svg = |name: &str| {
        charts
            .iter()
            .find(|(n, _)| *n == name)
            .expect(name)
            .1
            .clone()
    };
    // Edits 1 and 9 share sky blue (edit 0 and 8 orange): the ninth and tenth are dashed.
    let orange = "#E69F00";
    // Three panels of one solid line for edit 0, and many dashes for edit 8.
    assert!(
        stroked(&svg("savings.svg"), orange) > 12,
        "edit 9 is not dashed"
    );
    assert!(
        stroked(&svg("context.svg"), orange) > 4,
        "edit 9 is not dashed"
    );
    // Their bars are hatched in white: no bar of the first eight is.
    assert!(stroked(&svg("totals.svg"), "#FFFFFF") > 0, "no hatched bar");
    // Every name keeps the words where it differs from the others.
    for chart in ["totals.svg", "context.svg", "savings.svg"] {
        let words = text(chart);
        for tail in MANY_TAILS {
            assert!(words.contains(tail), "{chart}: {tail} was cut off: {words}");
        }
    }
    // The ranking names its closest pair in full where they differ.
    let ranking = text("ranking.svg");
    assert!(
        ranking.contains("retest") && ranking.contains("links"),
        "{ranking}"
    );
}

#[test]
fn history_charts_keep_where_long_names_differ() {
    use simulate::chart::history::{EditSpread, HistoryChartInput, SavingSpread, draw_all};
    let names: Vec<String> = MANY_TAILS
        .iter()
        .map(|t| format!("trim the output of the nightly maintenance step: {t}"))
        .collect();
    let rows = (0..names.len())
        .map(|edit| EditSpread {
            spread: SavingSpread {
                edit,
                total_pct: 10.0 - edit as f64,
                p10: 0.0,
                median: 5.0,
                p90: 10.0,
                session_pcts: vec![0.0, 5.0, 10.0],
            },
            equivalent_calls: 1.0,
            sessions_first: 1,
        })
        .collect();
    let input = HistoryChartInput {
        name: "history".into(),
        sessions: 3,
        sessions_unchanged: 0,
        sessions_cost_only: 0,
        edits: names,
        rows,
        cost_only_edits: Vec::new(),
        cost: None,
    };
    for (name, svg) in draw_all(&input).expect("drawn") {
        let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
        let words: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or("").trim().to_string())
            .collect();
        for tail in MANY_TAILS {
            assert!(
                words.iter().any(|w| w.ends_with(&format!(" {tail}"))),
                "{name}: {tail} was cut off: {words:?}"
            );
        }
        // The ninth and tenth swatches are hatched.
        assert!(stroked(&svg, "#FFFFFF") > 0, "{name}: no hatched swatch");
    }
}

/// The report's reread total of the edit named `name`.
fn reported_total(report: &Report, name: &str) -> f64 {
    report
        .edits
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no edit {name} in the report"))
        .total_tokens
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[test]
fn cost_marks_every_clearing_it_counts() {
    let (input, _) = nominal_input_with(
        "scenarios/clearing.toml",
        Some("tests/fixtures/charts/new-kinds.toml"),
    );
    let series = input.cost.as_deref().expect("a cache, so cost.svg");
    let chart = chart::cost::prepare(&input, series).expect("prepared");
    let eager = chart
        .panels
        .iter()
        .find(|p| p.name == "eager: older than 2 calls")
        .expect("a panel for the eager clearing");
    // 66 clearings in the text and in the legend, and 66 ticks in the panel.
    assert_eq!(eager.clearings, 66);
    assert_eq!(eager.clearing_ticks.len(), 66);
    let svg = chart::cost::draw(&chart).expect("drawn");
    let legend: String = svg_words(&svg);
    assert!(legend.contains("66 clearings, a tick each"), "{legend}");
}

#[test]
fn a_compaction_and_another_cache_are_drawn_as_the_text_counts_them() {
    let (input, report) = nominal_input_with(
        "scenarios/clearing.toml",
        Some("tests/fixtures/charts/new-kinds.toml"),
    );
    // context.svg: the compaction's requests are drawn and counted in its total.
    let context = chart::context::prepare(&input).expect("prepared");
    let compact = run(&context, "compact at 100k");
    assert_eq!(compact.compactions.len(), 2);
    assert!(
        compact.clearings.is_empty(),
        "a compaction is not a clearing"
    );
    assert!(
        close(
            compact.reread_total,
            reported_total(&report, "compact at 100k")
        ),
        "{} against {}",
        compact.reread_total,
        reported_total(&report, "compact at 100k")
    );
    let svg = chart::context::draw(&context).expect("drawn");
    assert!(svg.contains("2 compactions") && svg.contains("compaction request"));
    // cost.svg: a panel for every edit whose cache traffic differs from the baseline's:
    // the compaction, and the 1-hour cache, which never expires.
    let series = input.cost.as_deref().expect("a cache, so cost.svg");
    let cost = chart::cost::prepare(&input, series).expect("prepared");
    let names: Vec<&str> = cost.panels.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "baseline",
            "eager: older than 2 calls",
            "compact at 100k",
            "context editing",
            "1-hour cache"
        ]
    );
    assert!(
        !cost.subtitle.contains("have no panel"),
        "{}",
        cost.subtitle
    );
    // Every token a request reads is read from the cache or written (or plain input):
    // each panel's two totals add up to the run's reread total, compaction requests too.
    for panel in &cost.panels {
        let total = match panel.edit {
            Some(_) => reported_total(&report, &panel.name),
            None => report.baseline.total_tokens,
        };
        assert!(
            close(panel.cached_total + panel.written_total, total),
            "{}: {} + {} against {total}",
            panel.name,
            panel.cached_total,
            panel.written_total
        );
    }
    let hour = cost
        .panels
        .iter()
        .find(|p| p.name == "1-hour cache")
        .expect("its panel");
    assert!(
        !hour
            .cause_counts
            .iter()
            .any(|c| c.0 == simulate::chart::WriteCause::Expired),
        "a 1-hour cache does not expire over 5-minute pauses"
    );
}

#[test]
fn a_model_edit_says_what_it_is_priced_as_in_every_chart() {
    let (input, _) = nominal_input("scenarios/whatif.toml");
    let charts = chart::draw_all(&input).expect("drawn");
    for (name, svg) in &charts {
        let words = svg_words(svg);
        if words.contains("Haiku 4.5") {
            assert!(
                words.contains("Haiku 4.5 (priced as claude-haiku-4-5)"),
                "{name} names the model edit without what it is priced as: {words}"
            );
        }
    }
    assert!(charts.iter().any(|(n, _)| *n == "context.svg"));
}

/// All the text of the chart `name` among `charts`, wrapped lines joined.
fn words_of(charts: &[(&'static str, String)], name: &str) -> String {
    let svg = &charts
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{name} was not drawn"))
        .1;
    svg_words(svg)
}

#[test]
fn every_chart_states_its_key_in_words() {
    let coding = chart::draw_all(&swept_input("scenarios/coding.toml")).expect("drawn");
    // context.svg: the rims of runs drawn one inside the other.
    let context = words_of(&coding, "context.svg");
    assert!(
        context.contains("runs that read the same")
            && context.contains("the later is drawn inside the earlier"),
        "{context}"
    );
    // ranking.svg: what the shade and the hatching mean, and which name comes first.
    let ranking = words_of(&coding, "ranking.svg");
    for wanted in [
        "which of the two edits named above saves more there",
        "the first named wins at the nominal point",
        "hatched wherever it is drawn",
    ] {
        assert!(ranking.contains(wanted), "{wanted:?} not in {ranking}");
    }
    // savings.svg: what a ring and its letter are.
    let savings = words_of(&coding, "savings.svg");
    assert!(
        savings.contains("the letter over its dashed line names the pair"),
        "{savings}"
    );
    // cost.svg: the shading against the bars.
    let (clearing, _) = nominal_input("scenarios/clearing.toml");
    let clearing = chart::draw_all(&clearing).expect("drawn");
    let cost = words_of(&clearing, "cost.svg");
    assert!(
        cost.contains("shaded: read from the cache") && cost.contains("bars: written to the cache"),
        "{cost}"
    );
}

#[test]
fn the_history_charts_mark_one_thing_with_one_glyph_and_say_so() {
    use simulate::chart::history::{EditSpread, HistoryChartInput, SavingSpread, draw_all};
    let input = HistoryChartInput {
        name: "history".into(),
        sessions: 5,
        sessions_unchanged: 0,
        sessions_cost_only: 0,
        edits: vec!["cap shell output".into(), "clear stale".into()],
        rows: vec![
            EditSpread {
                spread: SavingSpread {
                    edit: 1,
                    total_pct: 22.0,
                    p10: 5.0,
                    median: 20.0,
                    p90: 44.0,
                    session_pcts: vec![5.0, 12.0, 20.0, 31.0, 44.0],
                },
                equivalent_calls: 11.0,
                sessions_first: 3,
            },
            EditSpread {
                spread: SavingSpread {
                    edit: 0,
                    total_pct: 15.0,
                    p10: 0.0,
                    median: 14.0,
                    p90: 40.0,
                    session_pcts: vec![0.0, 3.0, 14.0, 18.0, 40.0],
                },
                equivalent_calls: 7.5,
                sessions_first: 2,
            },
        ],
        cost_only_edits: Vec::new(),
        cost: None,
    };
    let charts = draw_all(&input).expect("drawn");
    for name in ["sessions.svg", "aggregate.svg"] {
        let words = words_of(&charts, name);
        for wanted in [
            "median session",
            "p10 to p90",
            "the middle 80 % of sessions",
        ] {
            assert!(words.contains(wanted), "{name}: {wanted:?} not in {words}");
        }
        // The median is the same black rule in both: one per row, no dot.
        let svg = &charts.iter().find(|(n, _)| *n == name).expect(name).1;
        let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
        let rules = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .filter(|n| n.attribute("stroke") == Some("#222222"))
            .filter(|n| n.attribute("stroke-width") == Some("3"))
            .count();
        assert_eq!(rules, 2, "{name}: one median rule per row");
        let dots = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some("#222222"))
            .count();
        assert_eq!(dots, 0, "{name}: a median drawn as a dot");
    }
}
