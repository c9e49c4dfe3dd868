//! `context.svg`: the context each call re-reads, call by call, at the nominal point: the
//! baseline in grey and every edit in its colour. The area under a line is its reread
//! total, so the gap between two lines is what an edit saves.
//!
//! Every run is drawn against the baseline's call positions: a run that merges or drops
//! calls leaves a gap where they went (its merged calls ringed), instead of sliding left
//! and seeming to re-read more than the baseline. Clearings are thin vertical rules in a
//! row of their own along the bottom, one row per clearing run, under the lines.

use plotters::element::DashedPathElement;
use plotters::prelude::{
    ChartBuilder, Circle, Color, EmptyElement, IntoDrawingArea, PathElement, Polygon, Rectangle,
    SVGBackend,
};

use super::layout::{self, Entry, Key, LEGEND_X, Marker};
use super::reduce;
use super::same;
use super::style::{self, BACKGROUND, BASELINE_LINE_PX, DOT_PX, LINE_PX, MARGIN_PX, WIDTH_PX};
use super::{AddedKind, ChartError, ChartInput, drawing, edit_name};

/// File name of this chart.
pub const FILE: &str = "context.svg";

/// Width of the plot in px, and so the number of call buckets a long series is cut into.
pub const PLOT_WIDTH_PX: usize = 640;
const HEIGHT_PX: u32 = 580;
/// Dots mark each call while a run has at most this many.
const MAX_DOTS: usize = 80;
/// Most merged calls ringed per run; beyond, the rings would hide the line.
const MAX_MERGE_RINGS: usize = 200;
/// Most clearing rules per run (one per pixel column at most).
const MAX_RULES: usize = PLOT_WIDTH_PX;
/// Height of a clearing rule, and of its row along the bottom of the plot, px.
const RULE_PX: i32 = 9;
const RULE_ROW_PX: i32 = 12;
/// Room between the x axis and the first row of clearing rules: the call numbers, px.
const RULES_TOP_PX: i32 = 24;

/// The context chart, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextChart {
    pub title: String,
    pub subtitle: String,
    /// Vertical axis description, with the ρ the tokens are estimated with.
    pub y_desc: String,
    /// The baseline first, then the edits, in input order.
    pub runs: Vec<Run>,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
}

/// One run's context per call.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub name: String,
    pub edit: Option<usize>,
    pub calls: usize,
    /// Sum of the context of every call: the area under the line.
    pub reread_total: f64,
    /// Percent of the baseline's reread total this run saves; None for the baseline, or
    /// when there is no baseline to compare with.
    pub saved_pct: Option<f64>,
    /// `(baseline position, tokens)` polylines, broken where calls went, reduced to at most
    /// 4 points per pixel column.
    pub lines: Vec<Vec<(f64, f64)>>,
    /// Whether the lines hold every call (dots are drawn) or a reduction.
    pub complete: bool,
    /// Calls that stand for several baseline calls: `(position, tokens)`.
    pub merged: Vec<(f64, f64)>,
    /// Calls drawn away from their own place in the baseline (moved): `(position, tokens)`.
    pub moved: Vec<(f64, f64)>,
    /// Requests an edit adds: tool searches and compaction requests, `(position, tokens)`,
    /// half a call before the call each precedes.
    pub searches: Vec<(f64, f64)>,
    pub compactions: Vec<(f64, f64)>,
    /// Clearings, as positions between two calls (half a call before the call they
    /// precede), at most one per pixel column.
    pub clearings: Vec<f64>,
    /// How many clearings there are in all, and how many compactions.
    pub clearing_count: usize,
    pub compaction_count: usize,
    /// Calls of the baseline this run does not have (merged away or dropped).
    pub calls_gone: usize,
    /// The earlier run this one coincides with call for call, if any.
    pub same_as: Option<String>,
    /// Stroke width of each segment of each line, px: wider where a later run has the
    /// same segment, so both colours show (`same::segment_widths`).
    pub widths_px: Vec<Vec<u32>>,
}

/// Series and axes of `context.svg`.
pub fn prepare(input: &ChartInput) -> Result<ContextChart, ChartError> {
    let baseline = input.context.iter().find(|r| r.edit.is_none());
    let baseline_total = baseline.map(|r| finite_sum(&r.context_tokens));
    let axis_len = input
        .context
        .iter()
        .map(|r| axis_len(&r.context_tokens, &r.baseline_position))
        .max()
        .unwrap_or(0)
        .max(1);
    let same_as = same::coinciding(input.context.iter().map(|r| r.context_tokens.as_slice()));
    let own: Vec<u32> = input
        .context
        .iter()
        .map(|r| match r.edit {
            None => BASELINE_LINE_PX,
            Some(_) => LINE_PX,
        })
        .collect();
    let bucket_calls = axis_len as f64 / PLOT_WIDTH_PX as f64;
    let mut runs = Vec::with_capacity(input.context.len());
    for (k, series) in input.context.iter().enumerate() {
        if let Some(e) = series.edit {
            edit_name(input, e, FILE)?;
        }
        let values = &series.context_tokens;
        let positions = &series.baseline_position;
        let at = |i: usize| positions.get(i).copied().unwrap_or(i as f64) + 1.0;
        // What happens before call i (a clearing, an added request) stands between it and
        // the call before, which may be less than a whole position away (a moved call).
        let before = |i: usize| match i.checked_sub(1) {
            Some(j) => (at(j) + at(i)) / 2.0,
            None => at(i) - 0.5,
        };
        let added = |kind: AddedKind| -> Vec<(f64, f64)> {
            series
                .added
                .iter()
                .filter(|a| a.kind == kind)
                .take(MAX_MERGE_RINGS)
                .map(|a| (before(a.before as usize), a.tokens))
                .collect()
        };
        let (searches, compactions) = (added(AddedKind::ToolSearch), added(AddedKind::Compaction));
        // The added requests read the context too: they count in the total.
        let reread_total = finite_sum(values) + series.added.iter().map(|a| a.tokens).sum::<f64>();
        let saved_pct = match (series.edit, baseline_total) {
            (Some(_), Some(base)) if base != 0.0 => Some(100.0 * (base - reread_total) / base),
            _ => None,
        };
        let lines = reduce::segments(values, positions, axis_len, PLOT_WIDTH_PX);
        let marks = |calls: &[u32]| -> Vec<(f64, f64)> {
            calls
                .iter()
                .take(MAX_MERGE_RINGS)
                .filter_map(|&i| Some((at(i as usize), *values.get(i as usize)?)))
                .collect()
        };
        let merged = marks(&series.merged);
        let moved = marks(&series.moved);
        // A clearing happens before its call: the rule stands half a call earlier.
        let mut clearings: Vec<f64> = Vec::new();
        let column = |x: f64| (x / bucket_calls.max(1.0)).floor();
        for &call in &series.clearings {
            let x = before(call as usize);
            if clearings
                .last()
                .is_none_or(|&last| column(last) != column(x))
                && clearings.len() < MAX_RULES
            {
                clearings.push(x);
            }
        }
        runs.push(Run {
            name: style::clean(&series.name),
            edit: series.edit,
            calls: values.len(),
            reread_total,
            saved_pct,
            // Each pixel column holds one position at most: every call is a point.
            complete: axis_len <= PLOT_WIDTH_PX,
            lines,
            merged,
            moved,
            searches,
            compactions,
            compaction_count: series
                .added
                .iter()
                .filter(|a| a.kind == AddedKind::Compaction)
                .count(),
            clearings,
            clearing_count: series.clearings.len(),
            calls_gone: baseline.map_or(0, |b| b.context_tokens.len().saturating_sub(values.len())),
            same_as: same_as[k].and_then(|j| input.context.get(j).map(|r| style::clean(&r.name))),
            widths_px: Vec::new(),
        });
    }
    let lines: Vec<&[Vec<(f64, f64)>]> = runs.iter().map(|r| r.lines.as_slice()).collect();
    let widths = same::segment_widths(&lines, &own);
    for (run, widths) in runs.iter_mut().zip(widths) {
        run.widths_px = widths;
    }
    // A call moved to the very front is drawn half a position before the first.
    let leftmost = runs
        .iter()
        .flat_map(|r| r.lines.iter().flatten().map(|p| p.0))
        .fold(1.0, f64::min);
    let x_range = (leftmost - 0.5, axis_len as f64 + 0.5);
    let highest = style::finite_range(runs.iter().flat_map(|r| {
        r.lines
            .iter()
            .flatten()
            .chain(&r.searches)
            .chain(&r.compactions)
            .map(|p| p.1)
    }))
    .map_or(1.0, |(_, hi)| hi);
    // Zero at the bottom: the height of a line is the whole context, not a difference.
    let y_range = (0.0, style::padded(0.0, highest.max(0.0), 0.04).1);
    let reduced = runs.iter().any(|r| !r.complete);
    let moved = input
        .context
        .iter()
        .any(|r| !r.baseline_position.is_empty());
    let cleared = runs.iter().any(|r| r.clearing_count > 0);
    let mut subtitle = format!(
        "Nominal point: B = {} base tokens ({}), ρ = {} ({}). Area under a line = its reread total{}",
        style::short(input.base_tokens),
        input.sources.base_tokens,
        style::ratio(input.bytes_per_token),
        input.sources.bytes_per_token,
        if reduced {
            "; min–max per pixel."
        } else {
            "."
        }
    );
    let moves = runs.iter().any(|r| !r.moved.is_empty());
    let place = match moves {
        true => {
            "Calls sit at their place in the baseline: gaps where calls were merged, dropped or moved away; a moved call sits between the calls it now runs between."
        }
        false => {
            "Calls sit at their place in the baseline: gaps where calls were merged or dropped."
        }
    };
    if moved || cleared {
        subtitle.push('\n');
        match (moved, cleared) {
            (true, true) => {
                subtitle.push_str(place);
                subtitle.push_str(" Rules under the axis: clearings.");
            }
            (true, false) => subtitle.push_str(place),
            _ => subtitle.push_str(
                "Thin rules under the call numbers: clearings, one row per run (its context drops at the next call).",
            ),
        }
    }
    Ok(ContextChart {
        title: format!(
            "{}: context re-read by each call",
            style::clean(&input.scenario)
        ),
        subtitle,
        y_desc: format!(
            "context re-read, est. tokens (bytes ÷ {})",
            style::ratio(input.bytes_per_token)
        ),
        runs,
        x_range,
        y_range,
    })
}

/// Positions on the call axis a run needs: its calls, or its last baseline position.
fn axis_len(values: &[f64], positions: &[f64]) -> usize {
    positions
        .last()
        .map_or(values.len(), |&p| p.max(0.0).floor() as usize + 1)
        .max(values.len())
}

fn finite_sum(values: &[f64]) -> f64 {
    values.iter().filter(|v| v.is_finite()).sum()
}

/// Renders the chart as SVG text.
pub fn draw(chart: &ContextChart) -> Result<String, ChartError> {
    let err = drawing(FILE);
    let band = layout::title_band_px(&chart.title, &chart.subtitle);
    let legend = legend(chart);
    // The plot keeps its own height however long the legend: a plot as tall as the legend
    // of 1,000 edits (28,000 px) drew every dashed line that much longer, and the file grew
    // with edits² (240 MB).
    let plot_height = HEIGHT_PX as i32 + band - style::TITLE_BAND_PX;
    let height = plot_height.max(band + 10 + layout::legend_height(&legend) + MARGIN_PX) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        layout::draw_title(&root, &chart.title, &chart.subtitle, FILE)?;
        layout::draw_legend(&root, band + 10, &legend, FILE)?;
        let area = root.margin(band, MARGIN_PX, MARGIN_PX, WIDTH_PX as i32 - LEGEND_X + 12);
        let plot_width = area.dim_in_pixel().0;
        let area = area.shrink(
            (0, 0),
            (plot_width, (plot_height - band - MARGIN_PX).max(1) as u32),
        );
        let (x_lo, x_hi) = chart.x_range;
        let (y_lo, y_hi) = chart.y_range;
        let rule_rows = chart
            .runs
            .iter()
            .filter(|r| !r.clearings.is_empty())
            .count();
        let mut plot = ChartBuilder::on(&area)
            .margin(8)
            .x_label_area_size(46 + RULE_ROW_PX * rule_rows as i32)
            .y_label_area_size(72)
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
            .map_err(&err)?;
        let whole_calls = |x: &f64| {
            if x.fract() == 0.0 {
                style::short(*x)
            } else {
                String::new()
            }
        };
        let tokens = |y: &f64| style::short(*y);
        let moved = chart.runs.iter().any(|r| r.calls_gone > 0);
        style::house_mesh(&mut plot.configure_mesh())
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&whole_calls)
            .y_label_formatter(&tokens)
            .x_desc(if moved {
                "position of the call in the baseline (1 = first call)"
            } else {
                "position of the call (1 = first call)"
            })
            .y_desc(chart.y_desc.clone())
            .draw()
            .map_err(&err)?;

        // Clearing rules in a strip of their own under the call numbers, a row per clearing
        // run, so they never cover a line however small its context.
        let clearing_runs = chart.runs.iter().filter(|r| !r.clearings.is_empty());
        for (row, run) in clearing_runs.enumerate() {
            let colour = style::run_colour(run.edit);
            let axis = plot.backend_coord(&(x_lo, y_lo)).1;
            let bottom = axis + RULES_TOP_PX + RULE_ROW_PX * (row as i32 + 1);
            for &x in &run.clearings {
                let px = plot.backend_coord(&(x, y_lo)).0;
                root.draw(&PathElement::new(
                    vec![(px, bottom), (px, bottom - RULE_PX)],
                    colour.stroke_width(1),
                ))
                .map_err(&err)?;
            }
        }
        // Baseline first and wider, so edits that coincide with it for a while stay on top.
        for run in &chart.runs {
            let colour = style::run_colour(run.edit);
            // Runs of segments of one width make one path each.
            let mut paths: Vec<(Vec<(f64, f64)>, u32)> = Vec::new();
            for (line, widths) in run.lines.iter().zip(&run.widths_px) {
                let mut start = 0;
                while start < widths.len() {
                    let width = widths[start];
                    let end = (start..widths.len())
                        .find(|&i| widths[i] != width)
                        .unwrap_or(widths.len());
                    paths.push((line[start..=end].to_vec(), width));
                    start = end;
                }
            }
            // Past the eighth edit colours repeat: the line is dashed or dotted as well.
            match style::dashes(style::run_mark(run.edit)) {
                None => {
                    plot.draw_series(paths.into_iter().map(|(points, width)| {
                        PathElement::new(points, colour.stroke_width(width))
                    }))
                }
                Some((on, off)) => plot.draw_series(paths.into_iter().map(|(points, width)| {
                    DashedPathElement::new(points, on, off, colour.stroke_width(width))
                })),
            }
            .map_err(&err)?;
            let points: usize = run.lines.iter().map(Vec::len).sum();
            if run.complete && points <= MAX_DOTS {
                let radius = if run.edit.is_none() {
                    DOT_PX + 1
                } else {
                    DOT_PX
                };
                plot.draw_series(
                    run.lines
                        .iter()
                        .flatten()
                        .map(|&p| Circle::new(p, radius, colour.filled())),
                )
                .map_err(&err)?;
            }
            plot.draw_series(run.searches.iter().flat_map(|&p| {
                [
                    EmptyElement::at(p) + Rectangle::new([(-6, -6), (6, 6)], BACKGROUND.filled()),
                    EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], colour.filled()),
                ]
            }))
            .map_err(&err)?;
            // A compaction request: a triangle pointing down, to the smaller context after.
            plot.draw_series(run.compactions.iter().flat_map(|&p| {
                [
                    EmptyElement::at(p)
                        + Polygon::new(vec![(-8, -6), (8, -6), (0, 8)], BACKGROUND.filled()),
                    EmptyElement::at(p)
                        + Polygon::new(vec![(-6, -4), (6, -4), (0, 5)], colour.filled()),
                ]
            }))
            .map_err(&err)?;
            // A moved call: an open diamond in the run's colour on a white halo.
            plot.draw_series(run.moved.iter().map(|&p| {
                EmptyElement::at(p)
                    + Polygon::new(vec![(0, -8), (8, 0), (0, 8), (-8, 0)], BACKGROUND.filled())
            }))
            .map_err(&err)?;
            plot.draw_series(run.moved.iter().map(|&p| {
                EmptyElement::at(p)
                    + PathElement::new(
                        vec![(0, -6), (6, 0), (0, 6), (-6, 0), (0, -6)],
                        colour.stroke_width(3),
                    )
            }))
            .map_err(&err)?;
            plot.draw_series(run.merged.iter().flat_map(|&p| {
                [
                    EmptyElement::at(p) + Circle::new((0, 0), 7, BACKGROUND.filled()),
                    EmptyElement::at(p) + Circle::new((0, 0), 6, colour.stroke_width(3)),
                ]
            }))
            .map_err(&err)?;
        }
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

fn legend(chart: &ContextChart) -> Vec<Entry> {
    let mut entries = vec![Entry::new(Key::Heading, "runs (reread total)")];
    let names: Vec<String> = chart.runs.iter().map(|r| r.name.clone()).collect();
    for (run, name) in chart.runs.iter().zip(layout::legend_names(&names)) {
        let width = if run.edit.is_none() {
            BASELINE_LINE_PX
        } else {
            LINE_PX + 2
        };
        let total = style::short(run.reread_total);
        let mut note = match run.saved_pct {
            Some(pct) => format!("{total} est. tokens, {}% saved", style::percent(pct)),
            None => format!("{total} est. tokens, {} calls", style::count(run.calls)),
        };
        for (n, one, many) in [
            (run.clearing_count, "clearing", "clearings"),
            (run.compaction_count, "compaction", "compactions"),
            (run.calls_gone, "call fewer", "calls fewer"),
        ] {
            if n > 0 {
                note.push_str(&format!(", {}", style::counted(n, one, many)));
            }
        }
        if let Some(other) = &run.same_as {
            note.push_str(&format!("; = same as {other} (inside its line)"));
        }
        entries.push(Entry::new(layout::line_key(run.edit, width), name).with_note(note));
    }
    // The first run drawn wider than its own stroke holds a later one inside it.
    let nested = chart.runs.iter().position(|r| {
        let own = if r.edit.is_none() {
            BASELINE_LINE_PX
        } else {
            LINE_PX
        };
        r.widths_px.iter().flatten().any(|&w| w > own)
    });
    if let Some(k) = nested {
        let outer = style::run_colour(chart.runs[k].edit);
        let inner = chart
            .runs
            .get(k + 1)
            .map_or(style::edit_colour(0), |r| style::run_colour(r.edit));
        entries.push(Entry::new(Key::Heading, ""));
        entries.push(
            Entry::new(Key::Nested(outer, inner), "runs that read the same").with_note(
                "where two runs read the same, the later is drawn inside the earlier: each shows as a rim of its colour",
            ),
        );
    }
    if chart.runs.iter().any(|r| !r.merged.is_empty()) {
        entries.push(Entry::new(Key::Heading, ""));
        entries.push(
            Entry::new(Key::Marker(Marker::Ring), "merged call")
                .with_note("stands for several baseline calls"),
        );
    }
    if chart.runs.iter().any(|r| !r.moved.is_empty()) {
        if !chart.runs.iter().any(|r| !r.merged.is_empty()) {
            entries.push(Entry::new(Key::Heading, ""));
        }
        entries.push(
            Entry::new(Key::Marker(Marker::OpenDiamond), "moved call")
                .with_note("drawn between the calls it now runs between; its old place is a gap"),
        );
    }
    if chart.runs.iter().any(|r| !r.searches.is_empty()) {
        entries.push(
            Entry::new(Key::Marker(Marker::Square), "tool search")
                .with_note("a request the edit adds before the call it precedes (in its total)"),
        );
    }
    if chart.runs.iter().any(|r| !r.compactions.is_empty()) {
        entries.push(
            Entry::new(Key::Marker(Marker::Down), "compaction request").with_note(
                "reads the whole context once to write a summary; the calls after read less (in its total)",
            ),
        );
    }
    if chart.runs.iter().any(|r| !r.clearings.is_empty()) {
        entries.push(
            Entry::new(Key::Rule(style::BASELINE, 1), "clearing").with_note(
                "a rule before the call it precedes, under the call numbers: one row per run, in its colour",
            ),
        );
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::RunSeries;

    fn input(calls: usize) -> ChartInput {
        let ramp = |step: f64| (0..calls).map(|i| 30_000.0 + step * i as f64).collect();
        let series = |name: &str, edit, step| RunSeries {
            name: name.into(),
            edit,
            context_tokens: ramp(step),
            baseline_position: vec![],
            merged: vec![],
            moved: vec![],
            clearings: vec![],
            added: vec![],
        };
        ChartInput {
            scenario: "s".into(),
            base_tokens: 30_000.0,
            bytes_per_token: 3.3,
            sources: Default::default(),
            edits: vec!["trim".into()],
            savings: None,
            ranking: None,
            ranking_cost: None,
            context: vec![
                series("baseline", None, 100.0),
                series("trim", Some(0), 50.0),
            ],
            totals: vec![],
            totals_cost: None,
            cost: None,
        }
    }

    /// `edits` edits, each a run of 40 calls going up and down (past the eighth, dashed).
    fn many(edits: usize) -> ChartInput {
        let mut input = input(40);
        let template = input.context[1].clone();
        input.edits = (0..edits).map(|k| format!("edit {k}")).collect();
        input.context.truncate(1);
        for k in 0..edits {
            let mut run = template.clone();
            run.name = format!("edit {k}");
            run.edit = Some(k);
            // Up and down every call: the lines' length is mostly the plot's height.
            run.context_tokens = (0..40)
                .map(|i| if i % 2 == 0 { 1_000.0 } else { 60_000.0 } + k as f64)
                .collect();
            input.context.push(run);
        }
        input
    }

    #[test]
    fn a_long_legend_leaves_the_plot_its_height_and_the_file_grows_with_the_edits() {
        // A plot as tall as the legend drew every dashed line longer with every edit: the
        // file grew with edits² (240 MB at 1,000 edits).
        let size = |n| draw(&prepare(&many(n)).unwrap()).unwrap().len() as f64;
        let (small, large) = (size(20), size(80));
        assert!(large / small < 8.0, "{small} bytes, then {large} bytes");
    }

    #[test]
    fn short_runs_are_kept_whole_with_their_saving() {
        let chart = prepare(&input(22)).unwrap();
        assert_eq!(chart.runs.len(), 2);
        assert!(
            chart
                .runs
                .iter()
                .all(|r| r.complete && r.lines.len() == 1 && r.lines[0].len() == 22)
        );
        assert_eq!(chart.runs[0].saved_pct, None);
        let saved = chart.runs[1].saved_pct.unwrap();
        assert!(saved > 0.0 && saved < 50.0);
        assert_eq!(chart.x_range, (0.5, 22.5));
        assert_eq!(chart.y_range.0, 0.0);
    }

    #[test]
    fn long_runs_are_reduced_to_the_pixel_width() {
        let chart = prepare(&input(100_000)).unwrap();
        assert!(chart.runs.iter().all(
            |r| !r.complete && r.lines.iter().map(Vec::len).sum::<usize>() <= 4 * PLOT_WIDTH_PX
        ));
        assert!(chart.subtitle.contains("min–max per pixel"));
    }

    #[test]
    fn a_merged_run_sits_at_baseline_positions_with_a_gap() {
        let mut input = input(6);
        // Calls 3 and 4 (0-based 2, 3) merged into call 2: 4 calls left.
        input.context[1] = RunSeries {
            name: "merge".into(),
            edit: Some(0),
            context_tokens: vec![30_000.0, 30_050.0, 30_100.0, 30_150.0],
            baseline_position: vec![0.0, 1.0, 4.0, 5.0],
            merged: vec![1],
            moved: vec![],
            clearings: vec![3],
            added: vec![],
        };
        let chart = prepare(&input).unwrap();
        let run = &chart.runs[1];
        assert_eq!(
            run.lines,
            vec![
                vec![(1.0, 30_000.0), (2.0, 30_050.0)],
                vec![(5.0, 30_100.0), (6.0, 30_150.0)]
            ]
        );
        assert_eq!(run.merged, vec![(2.0, 30_050.0)]);
        assert_eq!(run.clearings, vec![5.5]);
        assert_eq!(run.calls_gone, 2);
        assert!(chart.subtitle.contains("gaps where calls were merged"));
    }

    #[test]
    fn identical_runs_are_both_visible() {
        let mut input = input(5);
        input.edits.push("trim again".into());
        let mut copy = input.context[1].clone();
        copy.name = "trim again".into();
        copy.edit = Some(1);
        input.context.push(copy);
        let chart = prepare(&input).unwrap();
        assert_eq!(chart.runs[2].same_as.as_deref(), Some("trim"));
        let widest = |k: usize| chart.runs[k].widths_px.iter().flatten().copied().min();
        assert!(widest(1) > widest(2));
    }

    #[test]
    fn a_single_call_still_has_axes() {
        let chart = prepare(&input(1)).unwrap();
        assert!(chart.x_range.1 > chart.x_range.0);
        assert!(chart.y_range.1 > chart.y_range.0);
        assert!(draw(&chart).is_ok());
    }
}
