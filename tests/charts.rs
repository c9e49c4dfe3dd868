//! The SVG charts, drawn from a hand-built scenario: well-formed, holding the series they
//! should, rendered by a real SVG renderer, small for a million calls, and deterministic.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use simulate::chart::{
    self, BreakEvenMark, ChartInput, CostSeries, RankingCell, RankingMap, RunSeries, SavingsGrid,
    TotalBar, style,
};

const RHO: f64 = 3.3;
const B: f64 = 30_000.0;
const EDITS: [&str; 3] = ["trim runbook", "merge status checks", "clear stale results"];

/// Reread saved by each edit at (B, ρ): trim saves 320k bytes·calls, merge drops two calls
/// (2·B plus 30k bytes·calls), clear saves 500k bytes·calls. Trim and merge tie at
/// B = 290,000 / (2ρ): inside the swept range only at ρ = 4.
fn saved(edit: usize, b: f64, rho: f64) -> f64 {
    match edit {
        0 => 320_000.0 / rho,
        1 => 2.0 * b + 30_000.0 / rho,
        _ => 500_000.0 / rho,
    }
}

fn baseline_total(b: f64, rho: f64) -> f64 {
    22.0 * b + 4.0e6 / rho
}

fn savings() -> SavingsGrid {
    let base_tokens = vec![20_000.0, 30_000.0, 40_000.0];
    let bytes_per_token = vec![2.5, 3.3, 4.0];
    let percent = bytes_per_token
        .iter()
        .map(|&rho| {
            base_tokens
                .iter()
                .map(|&b| {
                    (0..3)
                        .map(|e| 100.0 * saved(e, b, rho) / baseline_total(b, rho))
                        .collect()
                })
                .collect()
        })
        .collect();
    let tie_b = 290_000.0 / (2.0 * 4.0);
    SavingsGrid {
        base_tokens,
        bytes_per_token,
        percent,
        break_evens: vec![BreakEvenMark {
            a: 0,
            b: 1,
            bytes_per_token: 4.0,
            base_tokens: tie_b,
            percent: 100.0 * saved(0, tie_b, 4.0) / baseline_total(tie_b, 4.0),
        }],
    }
}

fn ranking() -> RankingMap {
    let cell = |flip: bool| RankingCell {
        winners: vec![2],
        order_differs: flip,
    };
    let mut cells = vec![vec![cell(false); 3]; 3];
    // At ρ = 4, B = 40k merge overtakes trim: the only flip.
    cells[2][2] = cell(true);
    RankingMap {
        base_tokens: vec![20_000.0, 30_000.0, 40_000.0],
        bytes_per_token: vec![2.5, 3.3, 4.0],
        cells,
        nominal: Some((1, 1)),
        measure: "reread tokens".into(),
    }
}

/// Bytes of each call's result, 22 calls.
fn call_bytes() -> Vec<f64> {
    vec![
        45_000.0, 2_000.0, 5_000.0, 1_200.0, 900.0, 800.0, 950.0, 30_000.0, 12_000.0, 4_000.0,
        3_000.0, 25_000.0, 2_500.0, 1_000.0, 8_000.0, 6_000.0, 1_500.0, 700.0, 20_000.0, 3_500.0,
        1_100.0, 600.0,
    ]
}

/// Context of each call: B plus every earlier result, in est. tokens.
fn contexts(sizes: &[f64]) -> Vec<f64> {
    let mut total = B;
    sizes
        .iter()
        .map(|s| {
            let read = total;
            total += s / RHO;
            read
        })
        .collect()
}

/// The clearing edit: before call 12 the results of calls 2–7 become 9-byte placeholders
/// (the runbook of call 1 is pinned; calls 8–11 are kept). The prefix then ends after call
/// 1, so call 12 writes everything from there on again: the spike. Returns context per
/// call, and cached and written tokens per call.
fn cleared() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let sizes = call_bytes();
    let mut context = Vec::new();
    let (mut cached, mut written) = (Vec::new(), Vec::new());
    let mut previous: Option<f64> = None;
    for i in 0..sizes.len() {
        let results: f64 = (0..i)
            .map(|j| {
                if i >= 11 && (1..7).contains(&j) {
                    9.0
                } else {
                    sizes[j]
                }
            })
            .sum();
        let ctx = B + results / RHO;
        context.push(ctx);
        let hit = match previous {
            None => 0.0,
            Some(_) if i == 11 => B + sizes[0] / RHO,
            Some(p) => p,
        };
        cached.push(hit);
        written.push(ctx - hit);
        previous = Some(ctx);
    }
    (context, cached, written)
}

fn realistic() -> ChartInput {
    let sizes = call_bytes();
    let baseline = contexts(&sizes);
    let mut trimmed_sizes = sizes.clone();
    trimmed_sizes[0] -= 16_000.0;
    let trimmed = contexts(&trimmed_sizes);
    let mut merged_sizes = sizes.clone();
    merged_sizes[4] += merged_sizes[5] + merged_sizes[6] + 200.0;
    merged_sizes.drain(5..7);
    let merged = contexts(&merged_sizes);
    let (clear_context, clear_cached, clear_written) = cleared();

    let total = |v: &[f64]| v.iter().sum::<f64>();
    let base_total = total(&baseline);
    let average = base_total / baseline.len() as f64;
    let mut totals: Vec<TotalBar> = [&trimmed, &merged, &clear_context]
        .iter()
        .enumerate()
        .map(|(edit, run)| TotalBar {
            edit,
            saved_pct: 100.0 * (base_total - total(run)) / base_total,
            equivalent_calls: (base_total - total(run)) / average,
        })
        .collect();
    totals.sort_by(|a, b| b.saved_pct.total_cmp(&a.saved_pct));

    let base_written: Vec<f64> = baseline
        .iter()
        .scan(0.0, |previous, &ctx| {
            let written = ctx - *previous;
            *previous = ctx;
            Some(written)
        })
        .collect();
    let base_cached: Vec<f64> = std::iter::once(0.0)
        .chain(baseline[..baseline.len() - 1].iter().copied())
        .collect();
    let series = |name: &str, edit: Option<usize>, context_tokens: Vec<f64>| RunSeries {
        name: name.into(),
        edit,
        context_tokens,
    };
    ChartInput {
        scenario: "nightly-maintenance".into(),
        base_tokens: B,
        bytes_per_token: RHO,
        edits: EDITS.iter().map(|e| e.to_string()).collect(),
        savings: Some(savings()),
        ranking: Some(ranking()),
        context: vec![
            series("baseline", None, baseline),
            series(EDITS[0], Some(0), trimmed),
            series(EDITS[1], Some(1), merged),
            series(EDITS[2], Some(2), clear_context),
        ],
        totals,
        cost: Some(vec![
            CostSeries {
                name: "baseline".into(),
                edit: None,
                cached_tokens: base_cached,
                written_tokens: base_written,
            },
            CostSeries {
                name: EDITS[2].into(),
                edit: Some(2),
                cached_tokens: clear_cached,
                written_tokens: clear_written,
            },
        ]),
    }
}

fn hex(colour: plotters::prelude::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", colour.0, colour.1, colour.2)
}

fn draw(input: &ChartInput) -> Vec<(&'static str, String)> {
    chart::draw_all(input).expect("charts draw")
}

fn svg<'a>(charts: &'a [(&'static str, String)], name: &str) -> &'a str {
    charts
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| s.as_str())
        .unwrap_or_else(|| panic!("{name} was not drawn"))
}

/// Elements named `tag` whose `attribute` is `value`.
fn count(svg: &str, tag: &str, attribute: &str, value: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| n.has_tag_name(tag) && n.attribute(attribute) == Some(value))
        .count()
}

fn number(node: &roxmltree::Node, attribute: &str) -> f64 {
    node.attribute(attribute)
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

#[test]
fn every_chart_is_drawn_in_order_as_well_formed_svg() {
    let charts = draw(&realistic());
    let names: Vec<_> = charts.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "savings.svg",
            "ranking.svg",
            "context.svg",
            "totals.svg",
            "cost.svg"
        ]
    );
    for (name, text) in &charts {
        let doc = roxmltree::Document::parse(text)
            .unwrap_or_else(|e| panic!("{name} is not well-formed XML: {e}"));
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg", "{name}");
        let width = number(&root, "width");
        assert!((900.0..=1100.0).contains(&width), "{name}: {width} px wide");
        // Readable at 100 % zoom: no text under 12 px.
        for text in doc.descendants().filter(|n| n.has_tag_name("text")) {
            let size = number(&text, "font-size");
            assert!(size >= 12.0, "{name}: {size} px text {:?}", text.text());
        }
        assert!(
            text.contains("nightly-maintenance"),
            "{name}: no scenario in the title"
        );
    }
}

#[test]
fn savings_has_one_line_per_edit_per_panel_and_the_break_even() {
    let charts = draw(&realistic());
    let text = svg(&charts, "savings.svg");
    for (edit, name) in EDITS.iter().enumerate() {
        let colour = hex(style::edit_colour(edit));
        assert_eq!(count(text, "polyline", "stroke", &colour), 3, "{name}");
    }
    for panel in [
        "ρ = 2.5 bytes/token",
        "ρ = 3.3 bytes/token (nominal)",
        "ρ = 4 bytes/token",
    ] {
        assert!(text.contains(panel), "no panel {panel}");
    }
    assert!(text.contains("B=36.2k"), "the break-even is not labelled");
    assert!(text.contains("base tokens B (assumed)"));
    assert!(text.contains("% of baseline reread total saved"));
}

#[test]
fn ranking_has_one_cell_per_grid_point_and_marks_the_flip() {
    let input = realistic();
    let charts = draw(&input);
    let text = svg(&charts, "ranking.svg");
    let map = input.ranking.as_ref().expect("ranking");
    let layout = chart::ranking::prepare(&input, map).expect("prepared");
    let doc = roxmltree::Document::parse(text).expect("well-formed SVG");
    let rects: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .collect();
    for cell in &layout.cells {
        let at = rects
            .iter()
            .filter(|r| {
                number(r, "x") == f64::from(cell.rect.0) && number(r, "y") == f64::from(cell.rect.1)
            })
            .count();
        assert_eq!(at, 1, "cell {:?}", (cell.row, cell.column));
    }
    assert_eq!(layout.cells.len(), 9);
    assert_eq!(layout.cells.iter().filter(|c| c.order_differs).count(), 1);
    assert!(text.contains("ranked by reread tokens"));
    assert!(text.contains("The ranking does not hold: nominal order at 8 of 9 points"));
    // The cross: two strokes on a white halo, black on top.
    assert_eq!(count(text, "polyline", "stroke", "#000000"), 2 + 2);
}

#[test]
fn totals_has_one_bar_per_edit_in_ranked_order() {
    let input = realistic();
    let charts = draw(&input);
    let text = svg(&charts, "totals.svg");
    let doc = roxmltree::Document::parse(text).expect("well-formed SVG");
    let mut bars = Vec::new();
    for (edit, _) in EDITS.iter().enumerate() {
        let colour = hex(style::edit_colour(edit));
        // Bars are taller than the 14 px swatches beside the names.
        let found: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(colour.as_str()))
            .filter(|n| number(n, "height") > 20.0)
            .map(|n| (number(&n, "y"), number(&n, "width"), edit))
            .collect();
        assert_eq!(found.len(), 1, "{}", EDITS[edit]);
        bars.extend(found);
    }
    bars.sort_by(|a, b| a.0.total_cmp(&b.0));
    let top_down: Vec<_> = bars.iter().map(|b| b.2).collect();
    let ranked: Vec<_> = input.totals.iter().map(|t| t.edit).collect();
    assert_eq!(top_down, ranked);
    assert!(text.contains(" calls"));
}

#[test]
fn context_has_one_series_per_run() {
    let charts = draw(&realistic());
    let text = svg(&charts, "context.svg");
    assert_eq!(count(text, "polyline", "stroke", &hex(style::BASELINE)), 1);
    for (edit, name) in EDITS.iter().enumerate() {
        let colour = hex(style::edit_colour(edit));
        assert_eq!(count(text, "polyline", "stroke", &colour), 1, "{name}");
    }
    assert!(text.contains("est. tokens (bytes ÷ 3.3)"));
}

#[test]
fn cost_has_a_panel_per_run_and_the_spike_after_the_clearing() {
    let input = realistic();
    let charts = draw(&input);
    let text = svg(&charts, "cost.svg");
    let baseline = hex(style::BASELINE);
    let clear = hex(style::edit_colour(2));
    assert_eq!(count(text, "polygon", "fill", &baseline), 1);
    assert_eq!(count(text, "polygon", "fill", &clear), 1);
    // Written bars of one run, left to right (the legend swatch sits right of the plot).
    let bars = |colour: &str| -> Vec<(f64, f64)> {
        let doc = roxmltree::Document::parse(text).expect("well-formed SVG");
        let mut bars: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(colour))
            .map(|n| (number(&n, "x"), number(&n, "height")))
            .filter(|&(x, _)| x < f64::from(style::WIDTH_PX as i32 - style::LEGEND_WIDTH_PX))
            .collect();
        bars.sort_by(|a, b| a.0.total_cmp(&b.0));
        bars
    };
    let (base_bars, clear_bars) = (bars(&baseline), bars(&clear));
    assert_eq!((base_bars.len(), clear_bars.len()), (22, 22));
    // Call 12, the first after the clearing: the same x in both panels, a far taller bar.
    assert_eq!(base_bars[11].0, clear_bars[11].0);
    assert!(
        clear_bars[11].1 > 5.0 * base_bars[11].1,
        "{:?} vs {:?}",
        clear_bars[11],
        base_bars[11]
    );
}

#[test]
fn drawing_twice_gives_identical_bytes() {
    let input = realistic();
    assert_eq!(draw(&input), draw(&input));
}

#[test]
fn every_chart_renders_to_png() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("charts");
    std::fs::create_dir_all(&dir).expect("create the output folder");
    for (name, text) in draw(&realistic()) {
        let svg_path = dir.join(name);
        std::fs::write(&svg_path, text).expect("write the SVG");
        let Some(png) = render(&svg_path) else {
            return;
        };
        let bytes = std::fs::read(&png).expect("read the PNG");
        assert!(bytes.len() > 1000, "{name}: PNG of {} bytes", bytes.len());
        assert!(bytes.starts_with(b"\x89PNG"), "{name}: not a PNG");
    }
}

#[test]
fn large_inputs_render_to_png() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("charts-large");
    std::fs::create_dir_all(&dir).expect("create the output folder");
    let mut input = million();
    input.savings = Some(wide_savings(9, 41));
    input.ranking = Some(wide_ranking(41, 41));
    for (name, text) in draw(&input) {
        let svg_path = dir.join(name);
        std::fs::write(&svg_path, text).expect("write the SVG");
        let Some(png) = render(&svg_path) else {
            return;
        };
        assert!(
            std::fs::metadata(&png).expect("PNG written").len() > 1000,
            "{name}"
        );
    }
}

/// `rows` bytes-per-token values by `columns` base-token values, trim and merge crossing.
fn wide_savings(rows: usize, columns: usize) -> SavingsGrid {
    let base_tokens: Vec<f64> = (0..columns)
        .map(|b| 10_000.0 + 1_000.0 * b as f64)
        .collect();
    let bytes_per_token: Vec<f64> = (0..rows).map(|r| 2.5 + 0.25 * r as f64).collect();
    let percent = bytes_per_token
        .iter()
        .map(|&rho| {
            base_tokens
                .iter()
                .map(|&b| {
                    (0..3)
                        .map(|e| 100.0 * saved(e, b, rho) / baseline_total(b, rho))
                        .collect()
                })
                .collect()
        })
        .collect();
    let break_evens = bytes_per_token
        .iter()
        .map(|&rho| (rho, 290_000.0 / (2.0 * rho)))
        .filter(|&(_, b)| b <= base_tokens[columns - 1])
        .map(|(rho, b)| BreakEvenMark {
            a: 0,
            b: 1,
            bytes_per_token: rho,
            base_tokens: b,
            percent: 100.0 * saved(0, b, rho) / baseline_total(b, rho),
        })
        .collect();
    SavingsGrid {
        base_tokens,
        bytes_per_token,
        percent,
        break_evens,
    }
}

/// A `rows`×`columns` map: clear wins, trim and merge swap below a diagonal, ties on it.
fn wide_ranking(rows: usize, columns: usize) -> RankingMap {
    let cells = (0..rows)
        .map(|r| {
            (0..columns)
                .map(|b| RankingCell {
                    winners: match (b * 3).cmp(&(r * 2 + 20)) {
                        std::cmp::Ordering::Less => vec![2],
                        std::cmp::Ordering::Equal => vec![1, 2],
                        std::cmp::Ordering::Greater => vec![1],
                    },
                    order_differs: b + r > 40,
                })
                .collect()
        })
        .collect();
    RankingMap {
        base_tokens: (0..columns)
            .map(|b| 10_000.0 + 1_000.0 * b as f64)
            .collect(),
        bytes_per_token: (0..rows).map(|r| 2.0 + 0.05 * r as f64).collect(),
        cells,
        nominal: Some((columns / 2, rows / 2)),
        measure: "cost".into(),
    }
}

/// Whether rsvg-convert is installed. CI (`.ci/run`) installs it and sets
/// `SIMULATE_REQUIRE_RENDERER=1`, so there a missing renderer fails the test; on a fresh
/// machine without it the render tests say so on stderr and check nothing.
fn renderer_available() -> bool {
    static FOUND: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FOUND.get_or_init(find_renderer)
}

fn find_renderer() -> bool {
    let found = Command::new("rsvg-convert")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("SIMULATE_REQUIRE_RENDERER").is_none(),
            "rsvg-convert is missing: install it with `apt-get install -y librsvg2-bin`"
        );
        // Written to the stderr handle, not with eprintln!, which the test harness
        // captures: the reason for a skip must be seen.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: rsvg-convert is missing, SVG rendering not checked (apt-get install -y librsvg2-bin)"
        );
    }
    found
}

/// Renders `svg` to a PNG beside it; None (the check skipped, with the reason printed) when
/// no renderer is installed. Every render goes through here, so no test can forget to ask.
fn render(svg: &Path) -> Option<PathBuf> {
    if !renderer_available() {
        return None;
    }
    let png = svg.with_extension("png");
    let out = Command::new("rsvg-convert")
        .arg("--format=png")
        .arg("--output")
        .arg(&png)
        .arg(svg)
        .output()
        .expect("run rsvg-convert");
    assert!(
        out.status.success(),
        "rsvg-convert failed on {}: {}",
        svg.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(png)
}

/// Four runs of a million calls each, context and cache.
fn million() -> ChartInput {
    let n = 1_000_000;
    let run = |every: usize| -> Vec<f64> {
        (0..n)
            .map(|i| B + 40.0 * (i % every) as f64 + if i % 997 == 0 { 5_000.0 } else { 0.0 })
            .collect()
    };
    let mut input = realistic();
    input.context = [
        (None, 300_000),
        (Some(0), 250_000),
        (Some(1), 100_000),
        (Some(2), 5_000),
    ]
    .into_iter()
    .map(|(edit, every)| RunSeries {
        name: edit.map_or("baseline".to_string(), |e| EDITS[e].to_string()),
        edit,
        context_tokens: run(every),
    })
    .collect();
    input.cost = Some(
        input
            .context
            .iter()
            .map(|r| CostSeries {
                name: r.name.clone(),
                edit: r.edit,
                cached_tokens: r.context_tokens.iter().map(|c| c - 40.0).collect(),
                written_tokens: (0..n)
                    .map(|i| if i % 5_000 == 0 { 30_000.0 } else { 40.0 })
                    .collect(),
            })
            .collect(),
    );
    input
}

#[test]
fn a_million_calls_stay_under_two_megabytes_per_chart() {
    let charts = draw(&million());
    for (name, text) in &charts {
        assert!(text.len() < 2_000_000, "{name}: {} bytes", text.len());
    }
    let context = svg(&charts, "context.svg");
    assert_eq!(
        count(context, "polyline", "stroke", &hex(style::BASELINE)),
        1
    );
}

/// Timing for the report: `cargo test --release --test charts -- --ignored --nocapture`.
#[test]
#[ignore]
fn time_a_million_calls() {
    let input = million();
    let start = std::time::Instant::now();
    let charts = draw(&input);
    let elapsed = start.elapsed();
    for (name, text) in &charts {
        println!("{name}: {} bytes", text.len());
    }
    println!("all charts: {elapsed:?}");
}

#[test]
fn edge_cases_still_draw() {
    // No edits: nothing to compare, so savings, ranking and totals are left out.
    let mut input = realistic();
    input.edits.clear();
    input.ranking = None;
    input.totals.clear();
    input.context.truncate(1);
    input.cost.as_mut().expect("cost").truncate(1);
    let names: Vec<_> = draw(&input).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["context.svg", "cost.svg"]);

    // One grid value on each axis, all-equal and negative savings.
    let mut input = realistic();
    input.savings = Some(SavingsGrid {
        base_tokens: vec![B],
        bytes_per_token: vec![RHO],
        percent: vec![vec![vec![-3.0, -3.0, -3.0]]],
        break_evens: vec![],
    });
    input.ranking = Some(RankingMap {
        base_tokens: vec![B],
        bytes_per_token: vec![RHO],
        cells: vec![vec![RankingCell {
            winners: vec![0, 1, 2],
            order_differs: false,
        }]],
        nominal: Some((0, 0)),
        measure: "cost".into(),
    });
    for bar in &mut input.totals {
        bar.saved_pct = -bar.saved_pct;
        bar.equivalent_calls = -bar.equivalent_calls;
    }
    let charts = draw(&input);
    assert_eq!(charts.len(), 5);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("charts-edge");
    std::fs::create_dir_all(&dir).expect("create the output folder");
    for (name, text) in &charts {
        roxmltree::Document::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!text.contains("NaN") && !text.contains("inf"), "{name}");
        std::fs::write(dir.join(name), text).expect("write the SVG");
        render(&dir.join(name));
    }
}
