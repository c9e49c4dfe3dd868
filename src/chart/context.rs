//! `context.svg`: the context each call re-reads, call by call, at the nominal point: the
//! baseline in grey and every edit in its colour. The area under a line is its reread
//! total, so the gap between two lines is what an edit saves.

use plotters::prelude::{ChartBuilder, Circle, Color, IntoDrawingArea, PathElement, SVGBackend};

use super::layout::{self, Entry, Key, LEGEND_X};
use super::reduce;
use super::style::{self, BACKGROUND, BASELINE_LINE_PX, DOT_PX, LINE_PX, MARGIN_PX, WIDTH_PX};
use super::{ChartError, ChartInput, drawing, edit_name};

/// File name of this chart.
pub const FILE: &str = "context.svg";

/// Width of the plot in px, and so the number of call buckets a long series is cut into.
pub const PLOT_WIDTH_PX: usize = 640;
const HEIGHT_PX: u32 = 580;
/// Dots mark each call while a run has at most this many.
const MAX_DOTS: usize = 80;

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
    /// `(call, tokens)`, reduced to at most 4 points per pixel column.
    pub points: Vec<(f64, f64)>,
    /// Whether `points` holds every call (dots are drawn) or a reduction.
    pub complete: bool,
}

/// Series and axes of `context.svg`.
pub fn prepare(input: &ChartInput) -> Result<ContextChart, ChartError> {
    let baseline_total = input
        .context
        .iter()
        .find(|r| r.edit.is_none())
        .map(|r| finite_sum(&r.context_tokens));
    let mut runs = Vec::with_capacity(input.context.len());
    for series in &input.context {
        if let Some(e) = series.edit {
            edit_name(input, e, FILE)?;
        }
        let reread_total = finite_sum(&series.context_tokens);
        let saved_pct = match (series.edit, baseline_total) {
            (Some(_), Some(base)) if base != 0.0 => Some(100.0 * (base - reread_total) / base),
            _ => None,
        };
        let points = reduce::min_max(&series.context_tokens, PLOT_WIDTH_PX);
        runs.push(Run {
            name: series.name.clone(),
            edit: series.edit,
            calls: series.context_tokens.len(),
            reread_total,
            saved_pct,
            complete: points.len() == series.context_tokens.len(),
            points,
        });
    }
    let longest = runs.iter().map(|r| r.calls).max().unwrap_or(0).max(1);
    let x_range = (0.5, longest as f64 + 0.5);
    let highest = style::finite_range(runs.iter().flat_map(|r| r.points.iter().map(|p| p.1)))
        .map_or(1.0, |(_, hi)| hi);
    // Zero at the bottom: the height of a line is the whole context, not a difference.
    let y_range = style::padded(0.0, highest.max(0.0), 0.04);
    let y_range = (0.0, y_range.1);
    let reduced = runs.iter().any(|r| !r.complete);
    Ok(ContextChart {
        title: format!("{}: context re-read by each call", input.scenario),
        subtitle: format!(
            "Nominal point: B = {} base tokens (assumed), ρ = {}. Area under a line = its reread total{}",
            style::short(input.base_tokens),
            style::ratio(input.bytes_per_token),
            if reduced {
                "; min–max per pixel."
            } else {
                "."
            }
        ),
        y_desc: format!(
            "context re-read, est. tokens (bytes ÷ {})",
            style::ratio(input.bytes_per_token)
        ),
        runs,
        x_range,
        y_range,
    })
}

fn finite_sum(values: &[f64]) -> f64 {
    values.iter().filter(|v| v.is_finite()).sum()
}

/// Renders the chart as SVG text.
pub fn draw(chart: &ContextChart) -> Result<String, ChartError> {
    let err = drawing(FILE);
    let band = layout::title_band_px(&chart.title, &chart.subtitle);
    let legend = legend(chart);
    let height = HEIGHT_PX.max((band + 10 + layout::legend_height(&legend) + MARGIN_PX) as u32);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        layout::draw_title(&root, &chart.title, &chart.subtitle, FILE)?;
        layout::draw_legend(&root, band + 10, &legend, FILE)?;
        let area = root.margin(band, MARGIN_PX, MARGIN_PX, WIDTH_PX as i32 - LEGEND_X + 12);
        let (x_lo, x_hi) = chart.x_range;
        let (y_lo, y_hi) = chart.y_range;
        let mut plot = ChartBuilder::on(&area)
            .margin(8)
            .x_label_area_size(46)
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
        style::house_mesh(&mut plot.configure_mesh())
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&whole_calls)
            .y_label_formatter(&tokens)
            .x_desc("call number (1 = first call)")
            .y_desc(chart.y_desc.clone())
            .draw()
            .map_err(&err)?;

        // Baseline first and wider, so edits that coincide with it for a while stay on top.
        for run in &chart.runs {
            let colour = style::run_colour(run.edit);
            let width = if run.edit.is_none() {
                BASELINE_LINE_PX
            } else {
                LINE_PX
            };
            plot.draw_series([PathElement::new(
                run.points.clone(),
                colour.stroke_width(width),
            )])
            .map_err(&err)?;
            if run.complete && run.points.len() <= MAX_DOTS {
                let radius = if run.edit.is_none() {
                    DOT_PX + 1
                } else {
                    DOT_PX
                };
                plot.draw_series(
                    run.points
                        .iter()
                        .map(|&p| Circle::new(p, radius, colour.filled())),
                )
                .map_err(&err)?;
            }
        }
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

fn legend(chart: &ContextChart) -> Vec<Entry> {
    let mut entries = vec![Entry::new(Key::Heading, "runs (reread total)")];
    for run in &chart.runs {
        let colour = style::run_colour(run.edit);
        let width = if run.edit.is_none() {
            BASELINE_LINE_PX
        } else {
            LINE_PX + 2
        };
        let total = style::short(run.reread_total);
        let note = match run.saved_pct {
            Some(pct) => format!("{total} est. tokens, {}% saved", style::fixed(pct, 1)),
            None => format!(
                "{total} est. tokens, {} calls",
                style::short(run.calls as f64)
            ),
        };
        entries.push(Entry::new(Key::Line(colour, width), run.name.clone()).with_note(note));
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::RunSeries;

    fn input(calls: usize) -> ChartInput {
        let ramp = |step: f64| (0..calls).map(|i| 30_000.0 + step * i as f64).collect();
        ChartInput {
            scenario: "s".into(),
            base_tokens: 30_000.0,
            bytes_per_token: 3.3,
            edits: vec!["trim".into()],
            savings: None,
            ranking: None,
            context: vec![
                RunSeries {
                    name: "baseline".into(),
                    edit: None,
                    context_tokens: ramp(100.0),
                },
                RunSeries {
                    name: "trim".into(),
                    edit: Some(0),
                    context_tokens: ramp(50.0),
                },
            ],
            totals: vec![],
            cost: None,
        }
    }

    #[test]
    fn short_runs_are_kept_whole_with_their_saving() {
        let chart = prepare(&input(22)).unwrap();
        assert_eq!(chart.runs.len(), 2);
        assert!(
            chart
                .runs
                .iter()
                .all(|r| r.complete && r.points.len() == 22)
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
        assert!(
            chart
                .runs
                .iter()
                .all(|r| !r.complete && r.points.len() <= 4 * PLOT_WIDTH_PX)
        );
        assert!(chart.subtitle.contains("min–max per pixel"));
    }

    #[test]
    fn a_single_call_still_has_axes() {
        let chart = prepare(&input(1)).unwrap();
        assert!(chart.x_range.1 > chart.x_range.0);
        assert!(chart.y_range.1 > chart.y_range.0);
        assert!(draw(&chart).is_ok());
    }
}
