//! `totals.svg`: one horizontal bar per edit, best first: the percent of the baseline's
//! reread total it saves at the nominal point, with the saving in average calls beside it.
//! An edit that costs more than it saves gets a bar left of zero.
//!
//! `totals-cost.svg` (with `[cache]`): the same, ranked by cost, which can disagree with
//! the reread total (a clearing saves tokens but rewrites the cache).

use plotters::prelude::{
    ChartBuilder, Color, IntoDrawingArea, PathElement, Rectangle, SVGBackend, Text,
};
use plotters::style::text_anchor::{HPos, VPos};

use super::layout;
use super::style::{self, BACKGROUND, INK, LABEL_SIZE, MARGIN_PX, SMALL_SIZE, WIDTH_PX};
use super::{ChartError, ChartInput, CostTotals, drawing, edit_name};

/// File name of the chart ranked by reread tokens.
pub const FILE: &str = "totals.svg";
/// File name of the chart ranked by cost.
pub const COST_FILE: &str = "totals-cost.svg";

/// Height of one bar's row, in px.
const ROW_PX: i32 = 46;
/// Bar thickness as a share of its row.
const BAR_SHARE: f64 = 0.62;
/// Room below the bars for ticks and the axis description, in px.
const BELOW_BARS_PX: i32 = 64;
/// Widest edit name shown beside a bar, in px (longer names wrap to a second line, then
/// end in `…`).
const NAME_MAX_PX: i32 = 300;
/// Plot width left after margins, names and tick labels, in px (for label room).
const PLOT_SLACK_PX: i32 = 60;

/// The totals chart, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct TotalsChart {
    /// `totals.svg` or `totals-cost.svg`.
    pub file: &'static str,
    pub title: String,
    pub subtitle: String,
    /// Axis description under the bars.
    pub x_desc: String,
    /// In the given (ranked) order, drawn top to bottom.
    pub bars: Vec<Bar>,
    /// Percent axis: holds zero, every bar, and room for the labels past the bar ends.
    pub x_range: (f64, f64),
    /// Width of the name column left of the plot, in px.
    pub names_width_px: i32,
}

/// One edit's bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub edit: usize,
    /// The edit's name, on one or two lines.
    pub name: Vec<String>,
    pub saved_pct: f64,
    /// Written past the bar's end: `12.3% · 3.2 calls`.
    pub label: String,
}

/// Bars and axis of `totals.svg`.
pub fn prepare(input: &ChartInput) -> Result<TotalsChart, ChartError> {
    let bars = input
        .totals
        .iter()
        .map(|t| {
            let pct = finite(t.saved_pct);
            Ok((
                t.edit,
                pct,
                format!(
                    "{}% · {}",
                    style::percent(pct),
                    style::calls(t.equivalent_calls)
                ),
            ))
        })
        .collect::<Result<Vec<_>, ChartError>>()?;
    chart(
        input,
        FILE,
        format!(
            "{}: what each edit saves, best first",
            style::clean(&input.scenario)
        ),
        format!(
            "At the nominal point: B = {} base tokens ({}), ρ = {} ({}). \
             calls = the saving in average baseline calls.",
            style::short(input.base_tokens),
            input.sources.base_tokens,
            style::ratio(input.bytes_per_token),
            input.sources.bytes_per_token
        ),
        "% of baseline reread total saved (left of 0: the edit adds rereads)",
        bars,
    )
}

/// Bars and axis of `totals-cost.svg`: the same edits ranked by cost.
pub fn prepare_cost(input: &ChartInput, totals: &CostTotals) -> Result<TotalsChart, ChartError> {
    let bars = totals
        .bars
        .iter()
        .map(|b| {
            let pct = finite(b.saved_pct);
            let amount = match b.saved_dollars {
                // Nothing saved is $0.00, as the table says; the sign goes before the $.
                Some(d) => {
                    let places = if d == 0.0 || d.abs() >= 0.005 { 2 } else { 4 };
                    let sign = if d < 0.0 { "-" } else { "" };
                    format!("{sign}${}", style::fixed(d.abs(), places))
                }
                None => format!("{} input-token eq.", style::short(b.saved)),
            };
            Ok((b.edit, pct, format!("{}% · {amount}", style::percent(pct))))
        })
        .collect::<Result<Vec<_>, ChartError>>()?;
    chart(
        input,
        COST_FILE,
        format!(
            "{}: what each edit saves on cost (prompt cache), best first",
            style::clean(&input.scenario)
        ),
        format!(
            "At the nominal point: B = {} ({}), ρ = {} ({}). Cost counts cache reads and \
             writes at their prices; it can rank edits differently from the reread total.{}",
            style::short(input.base_tokens),
            input.sources.base_tokens,
            style::ratio(input.bytes_per_token),
            input.sources.bytes_per_token,
            totals
                .price_source
                .as_ref()
                .map_or_else(String::new, |s| format!(
                    "\n$: dollars saved at {}; a yardstick, not a bill.",
                    style::clean(s)
                ))
        ),
        "% of baseline cost saved (input-token equivalents; left of 0: the edit costs more)",
        bars,
    )
}

fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

/// The chart for `bars` (edit, percent saved, label), in the given order.
fn chart(
    input: &ChartInput,
    file: &'static str,
    title: String,
    subtitle: String,
    x_desc: &str,
    rows: Vec<(usize, f64, String)>,
) -> Result<TotalsChart, ChartError> {
    let mut bars = Vec::with_capacity(rows.len());
    let names = rows
        .iter()
        .map(|r| edit_name(input, r.0, file).map(style::clean))
        .collect::<Result<Vec<_>, _>>()?;
    let wrapped = |name: &str| style::wrap(name, NAME_MAX_PX, LABEL_SIZE, 2);
    // Names too long for two lines are cut where they agree, so they still read apart.
    let names = style::apart(&names, |n| {
        wrapped(n).last().is_none_or(|l| !l.ends_with('…'))
    });
    for ((edit, saved_pct, label), name) in rows.into_iter().zip(names) {
        let name = wrapped(&name);
        bars.push(Bar {
            edit,
            name,
            saved_pct,
            label,
        });
    }
    let names_width_px = layout::bar_names_px(bars.iter().flat_map(|b| &b.name));
    let plot_px = f64::from(WIDTH_PX as i32 - 2 * MARGIN_PX - names_width_px - PLOT_SLACK_PX);
    // A label goes left of a bar that adds rereads, right of any other: a bar of zero
    // length too, whose label needs the room right of zero like the rest.
    let label_px = |left: bool| {
        bars.iter()
            .filter(|b| (b.saved_pct < 0.0) == left)
            .map(|b| style::text_width_px(&b.label, SMALL_SIZE) + 12)
            .max()
            .map_or(0.0, f64::from)
    };
    let (lo, hi) =
        style::finite_range(bars.iter().map(|b| b.saved_pct).chain([0.0])).unwrap_or((0.0, 0.0));
    let span = if hi - lo > 0.0 { hi - lo } else { 1.0 };
    // The data takes what the labels leave of the plot width: solve for the full range.
    let left_share = (label_px(true) / plot_px).min(0.4);
    let right_share = (label_px(false) / plot_px).min(0.4);
    let full = span / (1.0 - left_share - right_share);
    let pad = 0.02 * full;
    let x_range = (lo - left_share * full - pad, hi + right_share * full + pad);
    Ok(TotalsChart {
        file,
        title,
        subtitle,
        x_desc: x_desc.to_string(),
        bars,
        x_range,
        names_width_px,
    })
}

/// Renders the chart as SVG text.
pub fn draw(chart: &TotalsChart) -> Result<String, ChartError> {
    let file = chart.file;
    let err = drawing(file);
    let band = layout::title_band_px(&chart.title, &chart.subtitle);
    let n = chart.bars.len().max(1);
    let bars_px = ROW_PX * n as i32;
    let height = band + 16 + bars_px + BELOW_BARS_PX + MARGIN_PX;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        layout::draw_title(&root, &chart.title, &chart.subtitle, file)?;
        let area = root.margin(band + 8, MARGIN_PX, MARGIN_PX, MARGIN_PX + 8);
        let (x_lo, x_hi) = chart.x_range;
        let rows = n as f64;
        let mut plot = ChartBuilder::on(&area)
            .margin(8)
            .x_label_area_size(BELOW_BARS_PX - 8)
            .y_label_area_size(chart.names_width_px)
            .build_cartesian_2d(x_lo..x_hi, 0.0..rows)
            .map_err(&err)?;
        let span = x_hi - x_lo;
        let decimals = style::decimals_for_step(span / 8.0);
        let percent = |x: &f64| format!("{}%", style::fixed(*x, decimals));
        let nothing = |_: &f64| String::new();
        style::house_mesh(&mut plot.configure_mesh())
            .disable_y_mesh()
            .y_labels(0)
            .y_label_formatter(&nothing)
            .x_labels(9)
            .x_label_formatter(&percent)
            .x_desc(chart.x_desc.clone())
            .draw()
            .map_err(&err)?;

        let half = BAR_SHARE / 2.0;
        for (i, bar) in chart.bars.iter().enumerate() {
            let middle = rows - i as f64 - 0.5;
            let colour = style::edit_colour(bar.edit);
            plot.draw_series([Rectangle::new(
                [(0.0, middle - half), (bar.saved_pct, middle + half)],
                colour.filled(),
            )])
            .map_err(&err)?;
            let (x0, y0) = plot.backend_coord(&(0.0, middle + half));
            let (x1, y1) = plot.backend_coord(&(bar.saved_pct, middle - half));
            let rect = (x0.min(x1), y0, x0.max(x1), y1);
            layout::draw_mark(&root, rect, style::edit_mark(bar.edit), file)?;
            let (dx, h) = if bar.saved_pct < 0.0 {
                (-6, HPos::Right)
            } else {
                (6, HPos::Left)
            };
            let (x, y) = plot.backend_coord(&(bar.saved_pct, middle));
            root.draw(&Text::new(
                bar.label.clone(),
                (x + dx, y),
                style::text(SMALL_SIZE, INK, h, VPos::Center),
            ))
            .map_err(&err)?;
            // The name, with a swatch of the edit's colour: the legend of this chart.
            let (left, _) = plot.backend_coord(&(x_lo, middle));
            layout::draw_bar_name(&root, (left, y), &bar.name, bar.edit, file)?;
        }
        plot.draw_series([PathElement::new(
            vec![(0.0, 0.0), (0.0, rows)],
            INK.stroke_width(1),
        )])
        .map_err(&err)?;
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::TotalBar;

    fn input(bars: &[(usize, f64, f64)]) -> ChartInput {
        ChartInput {
            scenario: "s".into(),
            base_tokens: 30_000.0,
            bytes_per_token: 3.3,
            sources: Default::default(),
            edits: vec!["trim".into(), "merge".into(), "clear".into()],
            savings: None,
            ranking: None,
            context: vec![],
            totals: bars
                .iter()
                .map(|&(edit, saved_pct, equivalent_calls)| TotalBar {
                    edit,
                    saved_pct,
                    equivalent_calls,
                })
                .collect(),
            totals_cost: None,
            ranking_cost: None,
            cost: None,
        }
    }

    #[test]
    fn bars_keep_the_ranked_order_and_say_their_calls() {
        let chart = prepare(&input(&[(2, 12.34, 3.21), (0, 4.0, 1.0), (1, -2.0, -0.5)])).unwrap();
        let order: Vec<_> = chart.bars.iter().map(|b| b.edit).collect();
        assert_eq!(order, vec![2, 0, 1]);
        assert_eq!(chart.bars[0].label, "12.3% · 3.2 calls");
        assert_eq!(chart.bars[2].label, "-2.0% · -0.5 calls");
        // Room left of the negative bar and right of the longest one, for their labels.
        assert!(chart.x_range.0 < -2.0 - 1.0);
        assert!(chart.x_range.1 > 12.34 + 1.0);
    }

    #[test]
    fn the_cost_chart_ranks_by_cost_and_says_dollars() {
        let bars = [
            crate::chart::CostBar {
                edit: 1,
                saved_pct: 30.0,
                saved: 2.0e6,
                saved_dollars: Some(3.52),
            },
            crate::chart::CostBar {
                edit: 0,
                saved_pct: -2.0,
                saved: -1.0e5,
                saved_dollars: None,
            },
        ];
        let totals = CostTotals {
            bars: bars.to_vec(),
            price_source: Some("list price".into()),
        };
        let chart = prepare_cost(&input(&[]), &totals).unwrap();
        assert!(chart.subtitle.contains("at list price"));
        assert_eq!(chart.file, COST_FILE);
        assert_eq!(chart.bars[0].label, "30.0% · $3.52");
        assert_eq!(chart.bars[1].label, "-2.0% · -100k input-token eq.");
        assert!(chart.x_desc.contains("cost"));
    }

    #[test]
    fn all_zero_savings_still_have_an_axis() {
        let chart = prepare(&input(&[(0, 0.0, 0.0)])).unwrap();
        assert!(chart.x_range.1 > chart.x_range.0);
        assert!(draw(&chart).is_ok());
    }

    #[test]
    fn a_zero_bars_label_stays_inside_the_picture() {
        // Regression: beside bars that add rereads, a bar of 0 % got no room right of
        // zero, and its label "0.0% · 0.0 calls" ran off the picture's right edge.
        let chart = prepare(&input(&[(0, 0.0, 0.0), (1, -2.7, -0.6)])).unwrap();
        let svg = draw(&chart).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let mut seen = 0;
        for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
            let text = node.text().map(str::trim).unwrap_or("");
            if !chart.bars.iter().any(|b| b.label == text) {
                continue;
            }
            let x: f64 = node.attribute("x").unwrap().parse().unwrap();
            let width = style::text_width_px(text, SMALL_SIZE);
            let (left, right) = match node.attribute("text-anchor") {
                Some("end") => (x as i32 - width, x as i32),
                _ => (x as i32, x as i32 + width),
            };
            assert!(
                left >= MARGIN_PX && right <= WIDTH_PX as i32 - MARGIN_PX,
                "{text}: {left}..{right}"
            );
            seen += 1;
        }
        assert_eq!(seen, 2);
    }

    #[test]
    fn an_unknown_edit_is_an_error() {
        assert!(matches!(
            prepare(&input(&[(7, 1.0, 1.0)])),
            Err(ChartError::Data { .. })
        ));
    }
}
