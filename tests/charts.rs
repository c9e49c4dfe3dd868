//! The SVG charts, drawn from a hand-built scenario: well-formed, holding the series they
//! should, rendered by a real SVG renderer, small for a million calls, and deterministic.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use simulate::chart::{
    self, BreakEvenMark, ChartInput, CostBar, CostSeries, CostTotals, PairFlip, PlaneSlice,
    RankingPlane, RunSeries, SavingsGrid, TotalBar, WriteCause, style,
};
use simulate::ledger::Affine;

#[path = "charts/scenarios.rs"]
mod scenarios;

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
        swept_bytes_per_token: 3,
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

/// The reread totals in closed form: baseline `22·B + 4e6/ρ`, each edit the baseline less
/// its saving; the clearing is "sampled only" (its events would move with B or ρ).
fn affine() -> Vec<Option<Affine>> {
    let total = |calls: f64, bytes: f64| {
        Some(Affine {
            calls,
            tokens: 0.0,
            bytes,
        })
    };
    vec![
        total(22.0, 4.0e6 - 320_000.0),
        total(20.0, 4.0e6 - 30_000.0),
        None,
    ]
}

const PLANE_B: [f64; 3] = [20_000.0, 30_000.0, 40_000.0];
const PLANE_RHO: [f64; 3] = [2.5, 3.3, 4.0];

/// One (B, ρ) plane of savings, with `saving(edit, B, ρ)`.
fn slice(label: Option<&str>, saving: &dyn Fn(usize, f64, f64) -> f64) -> PlaneSlice {
    PlaneSlice {
        label: label.map(String::from),
        holds_nominal: label.is_none_or(|l| l == "cache read 0.1×"),
        saved: PLANE_RHO
            .iter()
            .map(|&r| {
                PLANE_B
                    .iter()
                    .map(|&b| (0..3).map(|e| saving(e, b, r)).collect())
                    .collect()
            })
            .collect(),
        baseline: PLANE_RHO
            .iter()
            .map(|&r| PLANE_B.iter().map(|&b| baseline_total(b, r)).collect())
            .collect(),
        counts: vec![],
    }
}

/// On reread tokens: clear > trim > merge at the nominal point; merge overtakes trim at
/// B = 40k, ρ = 4 (their exact break-even is B* = 145,000 / ρ).
fn ranking() -> RankingPlane {
    RankingPlane {
        measure: "reread tokens".into(),
        base_tokens: PLANE_B.to_vec(),
        bytes_per_token: PLANE_RHO.to_vec(),
        swept: (3, 3),
        slices: vec![slice(None, &saved)],
        slices_left_out: 0,
        flips: vec![PairFlip {
            a: 0,
            b: 1,
            count: 1,
        }],
        points: 9,
        matching_order: 8,
        nominal_order: vec![2, 0, 1],
        nominal: (B, RHO),
        affine: affine(),
        note: None,
    }
}

/// On cost, over two cache read prices: at 0.25× the clearing saves half as much, so it
/// falls behind trim everywhere and behind merge at large B.
fn ranking_cost() -> RankingPlane {
    let dear = |e: usize, b: f64, r: f64| {
        if e == 2 {
            saved(e, b, r) / 2.0
        } else {
            saved(e, b, r)
        }
    };
    RankingPlane {
        measure: "cost".into(),
        slices: vec![
            slice(Some("cache read 0.1×"), &saved),
            slice(Some("cache read 0.25×"), &dear),
        ],
        flips: vec![
            PairFlip {
                a: 2,
                b: 0,
                count: 9,
            },
            PairFlip {
                a: 2,
                b: 1,
                count: 3,
            },
            PairFlip {
                a: 0,
                b: 1,
                count: 2,
            },
        ],
        points: 18,
        matching_order: 8,
        affine: vec![],
        ..ranking()
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
        baseline_position: vec![],
        merged: vec![],
        moved: vec![],
        clearings: vec![],
        added: vec![],
    };
    // The merge keeps calls 1–5 and 8–22 of the baseline: calls 6 and 7 went into call 5.
    let mut merged_run = series(EDITS[1], Some(1), merged);
    merged_run.baseline_position = (0..5).chain(7..22).map(f64::from).collect();
    merged_run.merged = vec![4];
    let mut clear_run = series(EDITS[2], Some(2), clear_context);
    clear_run.clearings = vec![11];
    let mut causes = vec![WriteCause::Growth; 22];
    causes[0] = WriteCause::First;
    let mut clear_causes = causes.clone();
    clear_causes[11] = WriteCause::Clearing;
    let cost_bars = totals
        .iter()
        .map(|t| CostBar {
            edit: t.edit,
            saved_pct: t.saved_pct / 2.0,
            saved: t.equivalent_calls * 1000.0,
            saved_dollars: Some(t.saved_pct / 10.0),
        })
        .collect();
    ChartInput {
        scenario: "nightly-maintenance".into(),
        base_tokens: B,
        bytes_per_token: RHO,
        sources: Default::default(),
        edits: EDITS.iter().map(|e| e.to_string()).collect(),
        savings: Some(savings()),
        ranking: Some(ranking()),
        ranking_cost: Some(ranking_cost()),
        context: vec![
            series("baseline", None, baseline),
            series(EDITS[0], Some(0), trimmed),
            merged_run,
            clear_run,
        ],
        totals,
        totals_cost: Some(CostTotals {
            bars: cost_bars,
            price_source: Some("list price, 2026-11".into()),
        }),
        cost: Some(vec![
            CostSeries {
                name: "baseline".into(),
                edit: None,
                cached_tokens: base_cached,
                written_tokens: base_written,
                causes,
                clearings: 0,
                clearings_before: vec![],
                compactions_before: vec![],
                added: vec![],
                not_drawn: (0.0, 0.0),
                ttl_s: 300.0,
                min_tokens: 1024.0,
            },
            CostSeries {
                name: EDITS[2].into(),
                edit: Some(2),
                cached_tokens: clear_cached,
                written_tokens: clear_written,
                causes: clear_causes,
                clearings: 1,
                clearings_before: vec![11],
                compactions_before: vec![],
                added: vec![],
                not_drawn: (0.0, 0.0),
                ttl_s: 300.0,
                min_tokens: 1024.0,
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

/// Every text element's text, trimmed (the SVG writer puts each on a line of its own).
fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

/// All the text, in document order, joined by spaces (wrapped lines join up again).
fn all_text(svg: &str) -> String {
    texts(svg).join(" ")
}

/// Whether some text element reads exactly `wanted`.
fn has_text(svg: &str, wanted: &str) -> bool {
    texts(svg).iter().any(|t| t == wanted)
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
            "ranking-cost.svg",
            "context.svg",
            "totals.svg",
            "totals-cost.svg",
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
    // The break-even is labelled with its pair's key, and the legend names the pair.
    assert!(has_text(text, "a 36.2k"), "the break-even is not labelled");
    assert!(all_text(text).contains("a: trim runbook = merge status checks"));
    assert!(text.contains("base tokens B (nominal assumed)"));
    assert!(text.contains("% of baseline reread total saved"));
}

/// The points of every polyline drawn in `colour` at `width` px.
fn polylines(svg: &str, colour: &str, width: &str) -> Vec<Vec<(f64, f64)>> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("polyline")
                && n.attribute("stroke") == Some(colour)
                && n.attribute("stroke-width") == Some(width)
        })
        .map(|n| {
            n.attribute("points")
                .unwrap_or("")
                .split_whitespace()
                .filter_map(|p| {
                    let (x, y) = p.split_once(',')?;
                    Some((x.parse().ok()?, y.parse().ok()?))
                })
                .collect()
        })
        .collect()
}

/// The continuous lines drawn in `colour`, at any width above 1 px: a run is drawn as several
/// polylines where its stroke width changes (wider under runs that coincide with it for a
/// while), each starting where the last one ended.
fn pieces(svg: &str, colour: &str) -> Vec<Vec<(f64, f64)>> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    let mut joined: Vec<Vec<(f64, f64)>> = Vec::new();
    for n in doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour))
        // Clearing rules are 1 px strokes in the run's colour; lines are wider.
        .filter(|n| n.attribute("stroke-width") != Some("1"))
    {
        let points: Vec<(f64, f64)> = n
            .attribute("points")
            .unwrap_or("")
            .split_whitespace()
            .filter_map(|p| {
                let (x, y) = p.split_once(',')?;
                Some((x.parse().ok()?, y.parse().ok()?))
            })
            .collect();
        match joined.last_mut() {
            Some(last) if last.last() == points.first() => last.extend(&points[1..]),
            _ => joined.push(points),
        }
    }
    joined
}

/// Distance in px from `p` to the polyline `line`.
fn distance(p: (f64, f64), line: &[(f64, f64)]) -> f64 {
    line.windows(2)
        .map(|w| {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            let (dx, dy) = (x1 - x0, y1 - y0);
            let length = dx * dx + dy * dy;
            let t = if length == 0.0 {
                0.0
            } else {
                (((p.0 - x0) * dx + (p.1 - y0) * dy) / length).clamp(0.0, 1.0)
            };
            ((p.0 - x0 - t * dx).powi(2) + (p.1 - y0 - t * dy).powi(2)).sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn ranking_has_a_panel_for_exactly_the_flipping_pairs_and_the_exact_curve() {
    let input = realistic();
    let charts = draw(&input);
    let text = svg(&charts, "ranking.svg");
    let plane = input.ranking.as_ref().expect("ranking");
    let chart = chart::ranking::prepare(&input, plane, "ranking.svg").expect("prepared");
    let drawn: Vec<_> = chart.panels.iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(drawn, vec![(0, 1)], "one panel: trim against merge");
    assert!(text.contains("where pairs of edits swap places, ranked by reread tokens"));
    assert!(has_text(text, "trim runbook") && has_text(text, "merge status checks"));
    assert!(has_text(text, "flipped at 1 of 9 points"));
    // The curve passes through the exact break-even B* = 145,000 / ρ at every swept ρ
    // whose B* lies in the plot, within a pixel.
    let panel = &chart.panels[0];
    let curves = polylines(text, &hex(style::INK), "2");
    assert_eq!(curves.len(), 1, "one break-even curve");
    let mut checked = 0;
    for rho in PLANE_RHO {
        let b_star = 145_000.0 / rho;
        if !panel.frame.contains((b_star, rho)) {
            continue;
        }
        let (x, y) = panel.frame.to_px((b_star, rho));
        let off = distance((f64::from(x), f64::from(y)), &curves[0]);
        assert!(
            off <= 1.0,
            "ρ = {rho}: the curve is {off} px from B* = {b_star}"
        );
        checked += 1;
    }
    assert_eq!(checked, 2, "B* is on the plot at ρ = 3.3 and ρ = 4");
    // The curve spans the whole ρ range it crosses, not only the swept values.
    assert!(panel.curve.len() > 20);
    // Shading comes from the closed forms: merge's colour exactly where merge saves more
    // (B·ρ > 145,000, right of the curve), trim's everywhere else, up to one shading step.
    let boxes = |colour: plotters::prelude::RGBColor| -> Vec<(f64, f64, f64, f64)> {
        let doc = roxmltree::Document::parse(text).expect("well-formed SVG");
        let (l, t, r, b) = panel.frame.px;
        let fill = hex(style::tint(colour, chart::ranking::SHADE_TINT));
        doc.descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(fill.as_str()))
            .map(|n| {
                (
                    number(&n, "x"),
                    number(&n, "y"),
                    number(&n, "width"),
                    number(&n, "height"),
                )
            })
            .filter(|&(x, y, _, _)| {
                x >= f64::from(l) && x < f64::from(r) && y >= f64::from(t) && y < f64::from(b)
            })
            .collect()
    };
    let (l, t, r, b) = panel.frame.px;
    let (x0, x1) = panel.frame.x;
    let (y0, y1) = panel.frame.y;
    let data = |px: f64, py: f64| {
        (
            x0 + (px - f64::from(l)) / f64::from(r - l) * (x1 - x0),
            y1 - (py - f64::from(t)) / f64::from(b - t) * (y1 - y0),
        )
    };
    let step_b = (x1 - x0) / 90.0;
    let merge = boxes(style::edit_colour(1));
    let trim = boxes(style::edit_colour(0));
    assert!(!merge.is_empty() && !trim.is_empty());
    for &(x, y, w, h) in &merge {
        // The box's left edge, at its middle height, lies right of the break-even.
        let (b_left, rho) = data(x, y + h / 2.0);
        assert!(
            b_left * rho > 145_000.0 - step_b * rho,
            "merge box at B {b_left}, ρ {rho}"
        );
        let _ = w;
    }
    for &(x, y, w, h) in &trim {
        let (b_right, rho) = data(x + w, y + h / 2.0);
        assert!(
            b_right * rho < 145_000.0 + step_b * rho,
            "trim box at B {b_right}, ρ {rho}"
        );
    }
    // The flipped sampled point (B = 40k, ρ = 4) lies in merge's colour.
    let (px, py) = panel.frame.to_px((40_000.0, 4.0));
    let (px, py) = (f64::from(px), f64::from(py));
    assert!(
        merge
            .iter()
            .any(|&(x, y, w, h)| px >= x && px <= x + w && py >= y && py <= y + h),
        "the flipped point is shaded for merge"
    );
}

#[test]
fn a_sampled_only_pair_says_so_and_draws_no_curve() {
    let mut input = realistic();
    let plane = input.ranking.as_mut().expect("ranking");
    plane.flips = vec![PairFlip {
        a: 2,
        b: 0,
        count: 1,
    }];
    let text = svg(&draw(&input), "ranking.svg").to_string();
    assert!(text.contains("sampled only"), "no sampled-only note");
    assert!(polylines(&text, &hex(style::INK), "2").is_empty());
}

#[test]
fn when_nothing_flips_the_closest_pair_answers_the_question() {
    let mut input = realistic();
    let plane = input.ranking.as_mut().expect("ranking");
    plane.flips.clear();
    plane.matching_order = 9;
    let plane = plane.clone();
    let chart = chart::ranking::prepare(&input, &plane, "ranking.svg").expect("prepared");
    assert_eq!(chart.panels.len(), 1);
    // Trim and merge come within a hair of each other near B = 40k, ρ = 4.
    assert_eq!((chart.panels[0].a, chart.panels[0].b), (0, 1));
    assert!(
        chart
            .title
            .contains("the ranking holds at every point; closest pair: trim runbook vs merge"),
        "{}",
        chart.title
    );
    let text = svg(&draw(&input), "ranking.svg").to_string();
    assert!(text.contains("closest pair"));
}

#[test]
fn the_cost_ranking_draws_a_row_per_slice_and_says_which() {
    let input = realistic();
    let charts = draw(&input);
    let text = svg(&charts, "ranking-cost.svg");
    let plane = input.ranking_cost.as_ref().expect("cost plane");
    let chart = chart::ranking::prepare(&input, plane, "ranking-cost.svg").expect("prepared");
    // Three flipping pairs, each over both cache read prices.
    assert_eq!(chart.panels.len(), 3 * 2);
    assert_eq!(chart.row_headings.len(), 2);
    assert!(has_text(text, "cache read 0.1×") && has_text(text, "cache read 0.25×"));
    assert!(text.contains("One row of panels per cache read price swept"));
    assert!(text.contains("ranked by cost"));
    // Cost has no closed form here: sampled only, no curve.
    assert!(polylines(text, &hex(style::INK), "2").is_empty());
    // The nominal point is ringed only in the slice that holds it.
    let ringed: Vec<bool> = chart
        .panels
        .iter()
        .map(|p| p.nominal_px.is_some())
        .collect();
    assert_eq!(ringed, vec![true, false, true, false, true, false]);
    // Panels of one pair line up in a column, one row per slice.
    let xs: Vec<_> = chart
        .panels
        .iter()
        .filter(|p| (p.a, p.b) == (2, 0))
        .map(|p| p.frame.px.0)
        .collect();
    assert_eq!(xs.len(), 2);
    assert_eq!(xs[0], xs[1]);
}

#[test]
fn many_flipping_pairs_are_capped_and_counted() {
    let mut input = realistic();
    input.edits = (0..6).map(|e| format!("edit {e}")).collect();
    let plane = input.ranking.as_mut().expect("ranking");
    for slice in &mut plane.slices {
        for row in &mut slice.saved {
            for cell in row.iter_mut() {
                *cell = (0..6).map(|e| f64::from(e) * 1000.0).collect();
            }
        }
    }
    plane.affine = vec![None; 6];
    plane.nominal_order = (0..6).collect();
    plane.flips = (0..6)
        .flat_map(|a| (a + 1..6).map(move |b| PairFlip { a, b, count: 9 }))
        .collect();
    let plane = plane.clone();
    input.ranking_cost = None;
    input.savings = None;
    let chart = chart::ranking::prepare(&input, &plane, "ranking.svg").expect("prepared");
    assert_eq!(chart.panels.len(), 9);
    assert!(
        chart.subtitle.contains("6 more pairs not drawn"),
        "{}",
        chart.subtitle
    );
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
    assert_eq!(pieces(text, &hex(style::BASELINE)).len(), 1);
    for (edit, name) in EDITS.iter().enumerate() {
        let colour = hex(style::edit_colour(edit));
        // The merge is broken where its two calls went: two pieces of line.
        let expected = if edit == 1 { 2 } else { 1 };
        assert_eq!(pieces(text, &colour).len(), expected, "{name}");
    }
    assert!(text.contains("est. tokens (bytes ÷ 3.3)"));
    assert!(text.contains("position of the call in the baseline"));
    assert!(has_text(text, "merged call") && has_text(text, "clearing"));
}

#[test]
fn a_merge_never_seems_to_reread_more_than_the_baseline() {
    let input = realistic();
    let chart = chart::context::prepare(&input).expect("prepared");
    let baseline: std::collections::HashMap<u64, f64> = chart.runs[0]
        .lines
        .iter()
        .flatten()
        .map(|&(x, y)| (x.to_bits(), y))
        .collect();
    let merge = &chart.runs[2];
    // At its own call positions the merge would sit above the baseline from call 6 on;
    // at the baseline's positions it reads what the baseline reads plus 200 bytes of
    // overhead, at most.
    for &(x, y) in merge.lines.iter().flatten() {
        let base = baseline[&x.to_bits()];
        assert!(y <= base + 200.0 / RHO + 1e-6, "call {x}: {y} above {base}");
    }
    let xs: Vec<f64> = merge.lines.iter().flatten().map(|p| p.0).collect();
    assert!(
        !xs.contains(&6.0) && !xs.contains(&7.0),
        "calls 6 and 7 went"
    );
    assert_eq!(merge.merged, vec![(5.0, merge.lines[0][4].1)]);
    // The clearing's rule stands between calls 11 and 12.
    assert_eq!(chart.runs[3].clearings, vec![11.5]);
}

#[test]
fn coinciding_edits_are_both_visible_in_every_line_chart() {
    let mut input = realistic();
    input.edits.push("trim runbook again".into());
    let mut copy = input.context[1].clone();
    copy.name = "trim runbook again".into();
    copy.edit = Some(3);
    input.context.push(copy);
    if let Some(grid) = input.savings.as_mut() {
        for row in &mut grid.percent {
            for cell in row.iter_mut() {
                cell.push(cell[0]);
            }
        }
    }
    input.ranking = None;
    input.ranking_cost = None;
    let charts = draw(&input);
    for name in ["savings.svg", "context.svg"] {
        let text = svg(&charts, name);
        let first = hex(style::edit_colour(0));
        let copy = hex(style::edit_colour(3));
        let width = |colour: &str| -> Vec<String> {
            let doc = roxmltree::Document::parse(text).expect("well-formed SVG");
            doc.descendants()
                .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour))
                .filter_map(|n| n.attribute("stroke-width").map(String::from))
                .collect()
        };
        let (under, over) = (width(&first), width(&copy));
        assert!(!under.is_empty() && under.len() == over.len(), "{name}");
        // The copy is drawn inside the first: thinner, and after it.
        let px = |w: &str| w.parse::<f64>().unwrap_or(0.0);
        assert!(
            px(&under[0]) > px(&over[0]),
            "{name}: {under:?} vs {over:?}"
        );
        assert!(
            text.contains("= same as trim runbook"),
            "{name}: no legend note"
        );
    }
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
    // The spike is labelled by its cause, in the panel and in the legend.
    let chart = chart::cost::prepare(&input, input.cost.as_deref().unwrap_or(&[])).expect("cost");
    let causes: Vec<_> = chart.panels[1].spikes.iter().map(|s| (s.0, s.2)).collect();
    assert_eq!(
        causes,
        vec![(1.0, WriteCause::First), (12.0, WriteCause::Clearing)]
    );
    assert!(has_text(text, "why a bar is tall") && has_text(text, "clearing"));
    assert!(!text.contains("cache expired"), "no pause in this run");
}

#[test]
fn pauses_longer_than_the_ttl_are_named_as_the_cause() {
    let mut input = realistic();
    if let Some(cost) = input.cost.as_mut() {
        let base = &mut cost[0];
        // A long pause before call 9: the cache expired, the whole prefix is written again.
        base.causes[8] = WriteCause::Expired;
        base.written_tokens[8] += base.cached_tokens[8];
        base.cached_tokens[8] = 0.0;
    }
    let charts = draw(&input);
    let text = svg(&charts, "cost.svg");
    assert!(has_text(text, "cache expired"));
    assert!(text.contains("longer than the TTL (300 s)"));
    let chart = chart::cost::prepare(&input, input.cost.as_deref().unwrap_or(&[])).expect("cost");
    assert!(
        chart.panels[0]
            .spikes
            .iter()
            .any(|s| s.0 == 9.0 && s.2 == WriteCause::Expired)
    );
}

#[test]
fn totals_cost_ranks_by_cost_with_dollars_and_their_source() {
    let input = realistic();
    let charts = draw(&input);
    let text = svg(&charts, "totals-cost.svg");
    assert!(text.contains("what each edit saves on cost"));
    assert!(text.contains("at list price, 2026-11"));
    assert!(text.contains(" · $"));
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
        swept_bytes_per_token: rows,
        percent,
        break_evens,
    }
}

/// A `rows`×`columns` plane where trim and merge swap along B* = 145,000 / ρ.
fn wide_ranking(rows: usize, columns: usize) -> RankingPlane {
    let bs: Vec<f64> = (0..columns)
        .map(|b| 10_000.0 + 1_000.0 * b as f64)
        .collect();
    let rs: Vec<f64> = (0..rows).map(|r| 2.0 + 0.075 * r as f64).collect();
    RankingPlane {
        base_tokens: bs.clone(),
        bytes_per_token: rs.clone(),
        swept: (columns, rows),
        slices: vec![PlaneSlice {
            label: None,
            holds_nominal: true,
            saved: rs
                .iter()
                .map(|&r| {
                    bs.iter()
                        .map(|&b| (0..3).map(|e| saved(e, b, r)).collect())
                        .collect()
                })
                .collect(),
            baseline: rs
                .iter()
                .map(|&r| bs.iter().map(|&b| baseline_total(b, r)).collect())
                .collect(),
            counts: vec![],
        }],
        points: rows * columns,
        matching_order: rows * columns / 2,
        ..ranking()
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
        baseline_position: vec![],
        merged: vec![],
        moved: vec![],
        // The clearing run clears every 1,000 calls: a thousand rules, one per pixel at most.
        clearings: if edit == Some(2) {
            (1..1_000).map(|k| k * 1_000).collect()
        } else {
            vec![]
        },
        added: vec![],
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
                causes: (0..n)
                    .map(|i| match i {
                        0 => WriteCause::First,
                        i if i % 10_000 == 0 => WriteCause::Expired,
                        i if i % 5_000 == 0 => WriteCause::Clearing,
                        _ => WriteCause::Growth,
                    })
                    .collect(),
                clearings: n / 10_000,
                clearings_before: (0..n / 10_000)
                    .map(|k| (k * 10_000 + 5_000) as u32)
                    .collect(),
                compactions_before: vec![],
                added: vec![],
                not_drawn: (0.0, 0.0),
                ttl_s: 300.0,
                min_tokens: 1024.0,
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
    assert_eq!(pieces(context, &hex(style::BASELINE)).len(), 1);
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
    // The two charts that walk a million calls, alone.
    let start = std::time::Instant::now();
    let context = chart::context::prepare(&input).expect("context");
    let prepared = start.elapsed();
    chart::context::draw(&context).expect("context drawn");
    println!(
        "context.svg: prepare {prepared:?}, all {:?}",
        start.elapsed()
    );
    let start = std::time::Instant::now();
    let cost = chart::cost::prepare(&input, input.cost.as_deref().unwrap_or(&[])).expect("cost");
    let prepared = start.elapsed();
    chart::cost::draw(&cost).expect("cost drawn");
    println!("cost.svg: prepare {prepared:?}, all {:?}", start.elapsed());
}

#[test]
fn edge_cases_still_draw() {
    // No edits: nothing to compare, so savings, ranking and totals are left out.
    let mut input = realistic();
    input.edits.clear();
    input.ranking = None;
    input.ranking_cost = None;
    input.totals.clear();
    input.totals_cost = None;
    input.context.truncate(1);
    input.cost.as_mut().expect("cost").truncate(1);
    let names: Vec<_> = draw(&input).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["context.svg", "cost.svg"]);

    // One grid value on each axis, all-equal and negative savings.
    let mut input = realistic();
    input.savings = Some(SavingsGrid {
        base_tokens: vec![B],
        bytes_per_token: vec![RHO],
        swept_bytes_per_token: 1,
        percent: vec![vec![vec![-3.0, -3.0, -3.0]]],
        break_evens: vec![],
    });
    input.ranking = Some(RankingPlane {
        base_tokens: vec![B],
        bytes_per_token: vec![RHO],
        slices: vec![PlaneSlice {
            label: None,
            holds_nominal: true,
            saved: vec![vec![vec![-3.0, -3.0, -3.0]]],
            baseline: vec![vec![1e6]],
            counts: vec![],
        }],
        flips: vec![],
        points: 1,
        matching_order: 1,
        ..ranking()
    });
    for bar in &mut input.totals {
        bar.saved_pct = -bar.saved_pct;
        bar.equivalent_calls = -bar.equivalent_calls;
    }
    let charts = draw(&input);
    assert_eq!(charts.len(), 7);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("charts-edge");
    std::fs::create_dir_all(&dir).expect("create the output folder");
    for (name, text) in &charts {
        roxmltree::Document::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!text.contains("NaN") && !text.contains("inf"), "{name}");
        std::fs::write(dir.join(name), text).expect("write the SVG");
        render(&dir.join(name));
    }
}

/// Whether `text` shows a number the way a person would not write it: float noise
/// (`2.4749999999999996`), exponents (`-2.9e-11`) or a negative zero (`-0`, `-0.0`).
fn float_noise(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let number: String = chars[start..i].iter().collect();
        // Digits after the point that carry meaning: `0.00041` has two, `2.4749999…` 16.
        let decimals = number
            .split_once('.')
            .map_or(0, |(_, d)| d.trim_start_matches('0').len());
        let negative = start > 0 && chars[start - 1] == '-';
        let zero = number.chars().all(|c| c == '0' || c == '.');
        let exponent = i + 1 < chars.len()
            && (chars[i] == 'e' || chars[i] == 'E')
            && (chars[i + 1] == '-' || chars[i + 1] == '+' || chars[i + 1].is_ascii_digit());
        if decimals > 3 || (negative && zero) || exponent {
            return true;
        }
    }
    false
}

#[test]
fn the_noise_detector_catches_noise() {
    assert!(float_noise("ρ = 2.4749999999999996"));
    assert!(float_noise("-2.9e-11%"));
    assert!(float_noise("-0.0%"));
    assert!(float_noise("saved -0"));
    assert!(!float_noise("ρ = 2.475, B = 36.2k, -1.5%, 0.00041%, 10e"));
}

#[test]
fn every_label_shows_numbers_at_the_precision_a_person_needs() {
    let mut input = realistic();
    let noisy_rho = [2.4749999999999996, 3.3000000000000003, 4.125000000000001];
    input.bytes_per_token = noisy_rho[1];
    input.base_tokens = 33_333.333_333_333_336;
    if let Some(grid) = input.savings.as_mut() {
        grid.bytes_per_token = noisy_rho.to_vec();
        grid.base_tokens = vec![20_000.000_000_000_004, 33_333.333_333_333_336, 40_000.0];
        for m in &mut grid.break_evens {
            m.bytes_per_token = noisy_rho[2];
        }
    }
    for plane in [input.ranking.as_mut(), input.ranking_cost.as_mut()]
        .into_iter()
        .flatten()
    {
        plane.bytes_per_token = noisy_rho.to_vec();
        plane.nominal = (33_333.333_333_333_336, noisy_rho[1]);
    }
    input.totals[0].saved_pct = -2.9e-11;
    input.totals[0].equivalent_calls = -2.9e-11;
    for (name, text) in draw(&input) {
        for t in texts(&text) {
            assert!(!float_noise(&t), "{name}: {t:?}");
        }
    }
}

#[test]
fn awkward_names_keep_the_svg_well_formed_and_on_the_page() {
    let awkward = [
        "a very long edit name that goes on and on about trimming the runbook and merging \
         the status checks and then some more words still",
        "長い日本語の編集名：ランブックを短くしてから状態確認をまとめて最後にログを消す",
        "quote \"&\" <angle> 'apos' \u{1}ctl",
    ];
    // Every name in every edit's place: the clearing's in cost.svg, the flipping pair's
    // in ranking.svg.
    for turn in 0..3 {
        let names: Vec<String> = (0..3)
            .map(|e| awkward[(e + turn) % 3].to_string())
            .collect();
        awkward_names(names);
    }
}

fn awkward_names(names: Vec<String>) {
    let mut input = realistic();
    input.edits = names.clone();
    for run in &mut input.context {
        if let Some(e) = run.edit {
            run.name = names[e].clone();
        }
    }
    for run in input.cost.iter_mut().flatten() {
        if let Some(e) = run.edit {
            run.name = names[e].clone();
        }
    }
    let charts = draw(&input);
    assert_eq!(charts.len(), 7);
    for (name, text) in &charts {
        let doc = roxmltree::Document::parse(text)
            .unwrap_or_else(|e| panic!("{name} is not well-formed XML: {e}"));
        // ranking.svg draws only the flipping pair (edits 0 and 1), cost.svg only the
        // clearing (edit 2); small panels may cut a name short, with `…`.
        let drawn = match *name {
            "ranking.svg" => &names[..2],
            "cost.svg" => &names[2..],
            _ => &names[..],
        };
        let shown = drawn.iter().any(|n| n.starts_with("quote"));
        assert!(
            !shown || all_text(text).contains("quote \"&\""),
            "{name}: the name with markup characters is not shown as written"
        );
        for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
            if node.attribute("transform").is_some() {
                continue;
            }
            let label = node.text().unwrap_or("").trim();
            let width = f64::from(style::text_width_px(
                label,
                number(&node, "font-size") * 1.24,
            ));
            let x = number(&node, "x");
            let (left, right) = match node.attribute("text-anchor") {
                Some("end") => (x - width, x),
                Some("middle") => (x - width / 2.0, x + width / 2.0),
                _ => (x, x + width),
            };
            let page = f64::from(style::WIDTH_PX);
            assert!(
                left >= 0.0 && right <= page,
                "{name}: {label:?} runs off the page ({left}..{right})"
            );
            // Legend text stays in the legend column.
            let legend = page - f64::from(style::LEGEND_WIDTH_PX);
            if x >= legend {
                assert!(right <= page - 4.0, "{name}: legend {label:?} overflows");
            }
        }
    }
}

#[test]
#[ignore]
fn time_reductions() {
    let values: Vec<f64> = (0..1_000_000).map(|i| f64::from(i % 977)).collect();
    let t = std::time::Instant::now();
    let a = chart::reduce::min_max(&values, 620);
    println!("min_max {:?} {}", t.elapsed(), a.len());
    let t = std::time::Instant::now();
    let b = chart::reduce::peaks(&values, 620);
    println!("peaks {:?} {}", t.elapsed(), b.len());
    let t = std::time::Instant::now();
    let c = chart::reduce::segments(&values, &[], values.len(), 640);
    println!("segments {:?} {}", t.elapsed(), c.len());
}

#[test]
fn a_four_dimensional_sweep_draws_one_row_of_cost_panels_per_slice() {
    let out = tempfile::tempdir().expect("a temporary folder");
    assert_cmd::Command::cargo_bin("simulate")
        .expect("the binary")
        .args(["scenarios/clearing.toml", "--sweep-cache-read", "0.05,0.1"])
        .args(["--sweep-retry", "0,0.2", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let dir = out.path().join("clearing");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect("chart written");
    let cost = read("ranking-cost.svg");
    for slice in [
        "cache read 0.05×, retry rate 0",
        "cache read 0.05×, retry rate 0.2",
        "cache read 0.1×, retry rate 0",
        "cache read 0.1×, retry rate 0.2",
    ] {
        assert!(has_text(&cost, slice), "no row for {slice}");
    }
    // Reread totals do not move with cache read or retry rate: one plane, and it says so.
    let tokens = read("ranking.svg");
    assert!(all_text(&tokens).contains("one (B, ρ) plane stands for every value swept"));
    assert!(!has_text(&tokens, "cache read 0.05×, retry rate 0"));
    // The nominal point (cache read 0.1, no retries) is ringed in its own row only.
    let doc = roxmltree::Document::parse(&cost).expect("well-formed SVG");
    let rings = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("r") == Some("6"))
        .filter(|n| n.attribute("stroke") == Some(hex(style::INK).as_str()))
        .count();
    // Three pairs flip, so three panels in the nominal row; one more ring in the legend.
    assert_eq!(rings, 3 + 1);
    for name in [
        "ranking.svg",
        "ranking-cost.svg",
        "cost.svg",
        "totals-cost.svg",
    ] {
        roxmltree::Document::parse(&read(name)).expect("well-formed SVG");
    }
}
