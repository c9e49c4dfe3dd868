//! `aggregate.svg`: what each edit saves over all sessions together, best first: a bar to
//! its share of the summed baseline reread total, and across it a whisker from the 10th to
//! the 90th percentile of the per-session shares with the median marked. A bar far from
//! its whisker says a few long sessions carry the sum.
//!
//! `aggregate-cost.svg` (when the sessions have a prompt cache): the same on cost, ranked
//! by cost, each bar labelled with the amount it saves in the cost ranking's unit
//! (dollars where every session is priced, else input-token equivalents); it has the
//! edits that change the cost alone, which `aggregate.svg` leaves out and names.

use plotters::prelude::{
    ChartBuilder, Color, IntoDrawingArea, PathElement, Rectangle, SVGBackend, Text,
};
use plotters::style::text_anchor::{HPos, VPos};

use super::history_input::{
    CostUnit, HistoryChartInput, HistoryCostInput, SavingSpread, row_names,
};
use super::layout::{Entry, Key};
use super::style::{self, BACKGROUND, INK, MARGIN_PX, SMALL_SIZE, WIDTH_PX};
use super::{ChartError, drawing, layout};
use crate::number::grouped;

/// File name of this chart.
pub const FILE: &str = "aggregate.svg";
/// File name of its cost version.
pub const COST_FILE: &str = "aggregate-cost.svg";

/// Height of one bar's row, in px.
const ROW_PX: i32 = 52;
/// Bar thickness as a share of its row.
const BAR_SHARE: f64 = 0.5;
/// Room below the bars for ticks and the axis description, in px.
const BELOW_BARS_PX: i32 = 64;
/// Longest edit name shown beside a bar, in characters.
const NAME_CHARS: usize = 40;
/// From the end of a bar or whisker to its label, px.
const LABEL_GAP_PX: i32 = 8;
/// Room kept between a label and the edge of the picture's plot column, px.
const LABEL_EDGE_PX: i32 = 4;
/// Margin around the plot inside its column, px.
const PLOT_MARGIN_PX: i32 = 8;
/// Least room per tick of the percent axis, px.
const TICK_PX: i32 = 38;

/// The chart, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct AggregateChart {
    /// `aggregate.svg` or `aggregate-cost.svg`.
    pub file: &'static str,
    /// The cost chart's unit; None for the reread-token chart.
    pub cost_unit: Option<CostUnit>,
    pub title: String,
    pub subtitle: String,
    /// Ranked order, drawn top to bottom.
    pub bars: Vec<Bar>,
    /// Percent axis: zero, every bar and whisker, to a round bound ([`axis`]); the labels
    /// have room of their own right of the plot ([`label_room_px`]).
    pub x_range: (f64, f64),
    /// Width of the name column, in px.
    pub names_width_px: i32,
}

/// One edit's bar and whisker.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub edit: usize,
    pub name: String,
    pub total_pct: f64,
    pub p10: f64,
    pub median: f64,
    pub p90: f64,
    /// Written past the bar or whisker, whichever ends further right.
    pub label: String,
}

/// A missing figure (no session priced, say) drawn at zero; its label says what it is.
fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

/// One bar per spread, in their order, named as the rows print them in `file`.
fn bars<'a>(
    input: &HistoryChartInput,
    rows: impl Iterator<Item = (&'a SavingSpread, String)>,
    file: &'static str,
) -> Result<Vec<Bar>, ChartError> {
    let rows: Vec<_> = rows.collect();
    let edits: Vec<usize> = rows.iter().map(|(s, _)| s.edit).collect();
    let names = row_names(input, &edits, NAME_CHARS, file)?;
    Ok(rows
        .into_iter()
        .zip(names)
        .map(|((s, label), name)| Bar {
            edit: s.edit,
            name,
            total_pct: finite(s.total_pct),
            p10: finite(s.p10),
            median: finite(s.median),
            p90: finite(s.p90),
            label,
        })
        .collect())
}

/// Bars and axis of `aggregate.svg`.
pub fn prepare(input: &HistoryChartInput) -> Result<AggregateChart, ChartError> {
    // First in counts only the sessions some edit changes the reread total of.
    let changed = input
        .sessions
        .saturating_sub(input.sessions_unchanged + input.sessions_cost_only);
    let bars = bars(
        input,
        input.rows.iter().map(|r| {
            let label = format!(
                "{}% · {} · first in {} of {}",
                style::fixed(finite(r.spread.total_pct), 1),
                style::calls(r.equivalent_calls),
                grouped(r.sessions_first as f64, 0),
                grouped(changed as f64, 0)
            );
            (&r.spread, label)
        }),
        FILE,
    )?;
    Ok(chart(
        FILE,
        None,
        format!("{}: what each edit saves over all sessions", input.name),
        format!(
            "Bar: share of the {} sessions' summed reread total. Whisker: p10 to p90 of \
             the per-session shares, rule: median.{}{}",
            grouped(input.sessions as f64, 0),
            unchanged_note(input),
            super::history_input::cost_only_note(input, COST_FILE)
        ),
        bars,
    ))
}

/// Bars and axis of `aggregate-cost.svg`: each edit's share of the summed baseline cost,
/// labelled with the amount in `cost`'s unit, ranked by cost.
pub fn prepare_cost(
    input: &HistoryChartInput,
    cost: &HistoryCostInput,
) -> Result<AggregateChart, ChartError> {
    let bars = bars(
        input,
        cost.rows.iter().map(|r| {
            let label = format!(
                "{}% · {}",
                style::fixed(finite(r.spread.total_pct), 1),
                cost.unit.amount(r.saved)
            );
            (&r.spread, label)
        }),
        COST_FILE,
    )?;
    let baseline = match &cost.unit {
        CostUnit::Dollars => format!(
            "{} simulated (each call at its model's list price)",
            cost.unit.amount(cost.baseline)
        ),
        CostUnit::InputTokenEquivalents => format!(
            "{} (not every session is priced)",
            cost.unit.amount(cost.baseline)
        ),
    };
    Ok(chart(
        COST_FILE,
        Some(cost.unit.clone()),
        format!(
            "{}: what each edit saves on cost over all sessions",
            input.name
        ),
        format!(
            "Bar: share of the {} sessions' summed baseline cost, {baseline}, under each \
             session's prompt cache{}.\nWhisker: p10 to p90 of the per-session shares of cost, rule: median.{}",
            grouped(input.sessions as f64, 0),
            super::history_input::uncached_note(input, cost),
            match input.sessions_unchanged {
                0 => String::new(),
                u => format!(
                    "\nNo edit changes the cost of {} of {} sessions.",
                    grouped(u as f64, 0),
                    grouped(input.sessions as f64, 0)
                ),
            }
        ),
        bars,
    ))
}

/// The chart of `bars` (in their order), its axis over zero, every bar and whisker.
fn chart(
    file: &'static str,
    cost_unit: Option<CostUnit>,
    title: String,
    subtitle: String,
    bars: Vec<Bar>,
) -> AggregateChart {
    let names_width_px = layout::bar_names_px(bars.iter().map(|b| &b.name));
    let values = bars
        .iter()
        .flat_map(|b| [b.total_pct, b.p10, b.p90])
        .chain([0.0]);
    let (lo, hi) = style::finite_range(values).unwrap_or((0.0, 0.0));
    let x_range = axis(lo, hi);
    AggregateChart {
        file,
        cost_unit,
        title,
        subtitle,
        bars,
        x_range,
        names_width_px,
    }
}

/// The percent axis over `lo..hi` (zero among them): out to the next multiple of a round
/// step (1, 2, 2.5 or 5 × 10^k, about an eighth of the span) beyond a little air (2 % of
/// the span), so it ends on a round figure near the data, never far past it; on the left
/// the same where that costs at most a tenth of the span, else just the air.
pub fn axis(lo: f64, hi: f64) -> (f64, f64) {
    let span = if hi - lo > 0.0 { hi - lo } else { 1.0 };
    let air = 0.02 * span;
    let Some(step) = super::plane::nice_step(span / 8.0) else {
        return (lo - air, hi + air);
    };
    let x_hi = ((hi + air) / step).ceil() * step;
    // Left of zero a round bound only where it costs little room: the ticks start at 0.
    let round_lo = ((lo - air) / step).floor() * step;
    let x_lo = if lo < 0.0 && lo - round_lo <= 0.1 * span {
        round_lo
    } else {
        lo - air
    };
    (x_lo, x_hi)
}

/// Room the labels need right of the plot, px, for a plot column `column_px` wide (the
/// plot and this room): each label starts [`LABEL_GAP_PX`] past its bar or whisker, so the
/// plot narrows until the furthest reaching label ends inside the column.
pub fn label_room_px(chart: &AggregateChart, column_px: i32) -> i32 {
    let (lo, hi) = chart.x_range;
    let column = f64::from(column_px);
    chart
        .bars
        .iter()
        .map(|b| {
            let end = b.total_pct.max(b.p90).max(0.0);
            let share = ((end - lo) / (hi - lo)).clamp(0.0, 1.0);
            let need = f64::from(
                LABEL_GAP_PX + style::text_width_px(&b.label, SMALL_SIZE) + LABEL_EDGE_PX,
            );
            // share · (column − room) + need ≤ column.
            if share > 0.0 {
                column - (column - need) / share
            } else {
                need - column
            }
        })
        .fold(0.0_f64, f64::max)
        .min(0.6 * column)
        .ceil() as i32
}

/// A line of its own, `No edit changes 40 of 79 sessions (left out of first in).`, with
/// the sessions an edit changes only the cost of, or nothing.
fn unchanged_note(input: &HistoryChartInput) -> String {
    let of = grouped(input.sessions as f64, 0);
    let (u, c) = (input.sessions_unchanged, input.sessions_cost_only);
    match (u, c) {
        (0, 0) => String::new(),
        (_, 0) => format!(
            "\nNo edit changes {} of {of} sessions (left out of first in).",
            grouped(u as f64, 0)
        ),
        (0, _) => format!(
            "\nNo edit changes the reread total of {} of {of} sessions, only their cost (left out of first in).",
            grouped(c as f64, 0)
        ),
        (_, _) => format!(
            "\nNo edit changes {} of {of} sessions, and {} more only in cost (left out of first in).",
            grouped(u as f64, 0),
            grouped(c as f64, 0)
        ),
    }
}

/// The key, in the words and glyphs `sessions.svg` uses for the same things.
fn legend(chart: &AggregateChart) -> Vec<Entry> {
    let Some(unit) = &chart.cost_unit else {
        return vec![
            Entry::new(Key::Heading, "All sessions"),
            Entry::new(Key::Swatch(style::BASELINE, 0.85), "bar: aggregate saving").with_note(
                "share of the summed reread total of all sessions: long ones weigh more (the square in sessions.svg)",
            ),
            Entry::new(Key::Indent, "N calls").with_note(
                "the aggregate saving in average baseline calls (saved tokens ÷ the summed total per call)",
            ),
            Entry::new(Key::Heading, "Per session"),
            Entry::new(Key::Whisker, "p10 to p90")
                .with_note("the middle 80 % of sessions (nearest-rank percentiles)"),
            Entry::new(Key::Rule(INK, 3), "median session")
                .with_note("half the sessions save more"),
            Entry::new(Key::Indent, "first in").with_note(
                "the sessions where the edit saves the most, of those whose reread total some edit changes",
            ),
        ];
    };
    let amount = match unit {
        CostUnit::Dollars => "$ saved",
        CostUnit::InputTokenEquivalents => "input-token eq.",
    };
    vec![
        Entry::new(Key::Heading, "All sessions"),
        Entry::new(Key::Swatch(style::BASELINE, 0.85), "bar: aggregate saving").with_note(
            format!(
                "share of the summed baseline {}: costly sessions weigh more (the square in sessions-cost.svg)",
                cost_words(unit)
            ),
        ),
        Entry::new(Key::Indent, amount).with_note(format!(
            "the cost saved, summed over the sessions, in {}",
            unit.words()
        )),
        Entry::new(Key::Heading, "Per session"),
        Entry::new(Key::Whisker, "p10 to p90")
            .with_note("the middle 80 % of sessions' own shares of cost (nearest-rank percentiles)"),
        Entry::new(Key::Rule(INK, 3), "median session").with_note("half the sessions save more"),
    ]
}

/// The summed cost in a few words: `dollars`, or `cost (input-token eq.)`.
pub(crate) fn cost_words(unit: &CostUnit) -> &'static str {
    match unit {
        CostUnit::Dollars => "dollars",
        CostUnit::InputTokenEquivalents => "cost (input-token eq.)",
    }
}

/// Renders the chart as SVG text.
pub fn draw(chart: &AggregateChart) -> Result<String, ChartError> {
    let err = drawing(chart.file);
    let n = chart.bars.len().max(1);
    let bars_px = ROW_PX * n as i32;
    let band = layout::title_band_px(&chart.title, &chart.subtitle);
    let legend = legend(chart);
    let height = (band + 16 + bars_px + BELOW_BARS_PX + MARGIN_PX)
        .max(band + 16 + layout::legend_height(&legend) + MARGIN_PX);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        let words = (chart.title.as_str(), chart.subtitle.as_str());
        let area = layout::framed(&root, words, &legend, bars_px + BELOW_BARS_PX, chart.file)?;
        let (x_lo, x_hi) = chart.x_range;
        let rows = n as f64;
        let column_px = area.dim_in_pixel().0 as i32 - 2 * PLOT_MARGIN_PX - chart.names_width_px;
        let label_px = label_room_px(chart, column_px);
        // Ticks no closer than TICK_PX, so their labels never run together.
        let ticks = ((column_px - label_px) / TICK_PX).clamp(2, 9) as usize;
        let mut plot = ChartBuilder::on(&area)
            .margin(PLOT_MARGIN_PX)
            .margin_right(PLOT_MARGIN_PX + label_px)
            .x_label_area_size(BELOW_BARS_PX - 8)
            .y_label_area_size(chart.names_width_px)
            .build_cartesian_2d(x_lo..x_hi, 0.0..rows)
            .map_err(&err)?;
        let decimals = style::decimals_for_step((x_hi - x_lo) / 8.0);
        let percent = |x: &f64| format!("{}%", style::fixed(*x, decimals));
        let nothing = |_: &f64| String::new();
        style::house_mesh(&mut plot.configure_mesh())
            .disable_y_mesh()
            .y_labels(0)
            .y_label_formatter(&nothing)
            .x_labels(ticks)
            .x_label_formatter(&percent)
            .x_desc(match &chart.cost_unit {
                None => "% of baseline reread total saved (left of 0: the edit adds rereads)"
                    .to_string(),
                Some(unit) => format!(
                    "% of baseline {} saved (left of 0: the edit costs more)",
                    cost_words(unit)
                ),
            })
            .draw()
            .map_err(&err)?;

        let half = BAR_SHARE / 2.0;
        for (i, bar) in chart.bars.iter().enumerate() {
            let middle = rows - i as f64 - 0.5;
            let colour = style::edit_colour(bar.edit);
            plot.draw_series([Rectangle::new(
                [(0.0, middle - half), (bar.total_pct, middle + half)],
                colour.mix(0.85).filled(),
            )])
            .map_err(&err)?;
            let (x0, y0) = plot.backend_coord(&(0.0, middle + half));
            let (x1, y1) = plot.backend_coord(&(bar.total_pct, middle - half));
            let rect = (x0.min(x1), y0, x0.max(x1), y1);
            layout::draw_mark(&root, rect, style::edit_mark(bar.edit), chart.file)?;
            // The whisker on a thin white halo, so it reads on any bar colour; a wider
            // halo looked like a gap splitting the bar in two.
            for (c, w) in [(BACKGROUND, 4), (INK, 2)] {
                plot.draw_series([PathElement::new(
                    vec![(bar.p10, middle), (bar.p90, middle)],
                    c.stroke_width(w),
                )])
                .map_err(&err)?;
                for end in [bar.p10, bar.p90] {
                    plot.draw_series([PathElement::new(
                        vec![(end, middle - half * 0.7), (end, middle + half * 0.7)],
                        c.stroke_width(w),
                    )])
                    .map_err(&err)?;
                }
            }
            // The median: the black rule of sessions.svg, on a white halo.
            for (c, w) in [(BACKGROUND, 5), (INK, 3)] {
                plot.draw_series([PathElement::new(
                    vec![
                        (bar.median, middle - half * 1.3),
                        (bar.median, middle + half * 1.3),
                    ],
                    c.stroke_width(w),
                )])
                .map_err(&err)?;
            }
            let end = bar.total_pct.max(bar.p90).max(0.0);
            let (x, y) = plot.backend_coord(&(end, middle));
            root.draw(&Text::new(
                bar.label.clone(),
                (x + LABEL_GAP_PX, y),
                style::text(SMALL_SIZE, INK, HPos::Left, VPos::Center),
            ))
            .map_err(&err)?;
            let (left, _) = plot.backend_coord(&(x_lo, middle));
            layout::draw_bar_name(
                &root,
                (left, y),
                std::slice::from_ref(&bar.name),
                bar.edit,
                chart.file,
            )?;
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
    use crate::chart::history::tests::input;

    #[test]
    fn bars_keep_the_ranked_order_and_room_for_whiskers_and_labels() {
        let chart = prepare(&input()).unwrap();
        let order: Vec<_> = chart.bars.iter().map(|b| b.edit).collect();
        assert_eq!(order, vec![1, 0, 2]);
        assert_eq!(chart.bars[0].label, "22.0% · 11.0 calls · first in 2 of 5");
        assert!(chart.x_range.0 < -2.0);
        assert!(chart.x_range.1 > 31.0 + 1.0);
    }

    #[test]
    fn sessions_no_edit_changes_are_said_and_left_out_of_first_in() {
        let chart = prepare(&HistoryChartInput {
            sessions_unchanged: 2,
            ..input()
        })
        .unwrap();
        assert_eq!(chart.bars[0].label, "22.0% · 11.0 calls · first in 2 of 3");
        assert!(
            chart.subtitle.ends_with(
                "rule: median.\nNo edit changes 2 of 5 sessions (left out of first in)."
            ),
            "{}",
            chart.subtitle
        );
    }

    #[test]
    fn the_axis_ends_on_a_round_figure_near_the_data() {
        // Regression: the axis ran to 63 % for data up to 25 %, the rest kept for labels.
        let near = |(lo, hi): (f64, f64), want: (f64, f64)| {
            assert!((lo - want.0).abs() < 1e-12 && hi == want.1, "{lo}, {hi}");
        };
        near(axis(0.0, 24.96), (-0.4992, 30.0));
        near(axis(0.0, 44.0), (-0.88, 50.0));
        // Far below zero a round bound would waste room: just the air.
        let (lo, hi) = axis(-2.0, 44.0);
        assert!((lo + 2.92).abs() < 1e-12, "{lo}");
        assert_eq!(hi, 50.0);
        assert_eq!(axis(-8.0, 44.0), (-10.0, 50.0));
        let chart = prepare(&input()).unwrap();
        assert_eq!(chart.x_range.1, 50.0);
    }

    #[test]
    fn every_label_ends_inside_the_plot_column() {
        // The labels have room of their own right of the axis: each starts past its bar
        // or whisker and ends before the legend's column.
        let chart = prepare(&input()).unwrap();
        let svg = draw(&chart).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let column_right = WIDTH_PX as i32 - style::LEGEND_WIDTH_PX - 8;
        let mut seen = 0;
        for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
            let text = node.text().map(str::trim).unwrap_or("");
            let Some(bar) = chart.bars.iter().find(|b| b.label == text) else {
                continue;
            };
            let x: f64 = node.attribute("x").unwrap().parse().unwrap();
            let right = x as i32 + style::text_width_px(&bar.label, SMALL_SIZE);
            assert!(
                right <= column_right,
                "{text}: ends at {right} > {column_right}"
            );
            seen += 1;
        }
        assert_eq!(seen, chart.bars.len());
    }

    #[test]
    fn sessions_an_edit_changes_only_the_cost_of_are_said_apart() {
        // Before, a session a cache edit repriced read "No edit changes 2 of 5 sessions".
        let chart = prepare(&HistoryChartInput {
            sessions_unchanged: 1,
            sessions_cost_only: 1,
            ..input()
        })
        .unwrap();
        assert_eq!(chart.bars[0].label, "22.0% · 11.0 calls · first in 2 of 3");
        assert!(
            chart.subtitle.ends_with(
                "rule: median.\nNo edit changes 1 of 5 sessions, and 1 more only in cost (left out of first in)."
            ),
            "{}",
            chart.subtitle
        );
    }

    #[test]
    fn the_cost_bars_say_what_they_save_in_the_unit() {
        use crate::chart::history::tests::with_cost;
        let input = with_cost();
        let chart = prepare_cost(&input, input.cost.as_ref().unwrap()).unwrap();
        let labels: Vec<&str> = chart.bars.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "20.0% · $1.60",
                "15.0% · $1.20",
                "10.0% · $0.80",
                "-1.0% · -$0.08"
            ]
        );
        assert!(
            chart
                .subtitle
                .starts_with("Bar: share of the 5 sessions' summed baseline cost, $8.00 simulated"),
            "{}",
            chart.subtitle
        );
        let svg = draw(&chart).unwrap();
        assert!(svg.contains("% of baseline dollars saved (left of 0: the edit costs more)"));
        // Without prices: input-token equivalents, said.
        let mut input = with_cost();
        if let Some(cost) = input.cost.as_mut() {
            cost.unit = CostUnit::InputTokenEquivalents;
            cost.rows[0].saved = 11_500.0;
        }
        let chart = prepare_cost(&input, input.cost.as_ref().unwrap()).unwrap();
        assert_eq!(chart.bars[0].label, "20.0% · 11,500 input-token eq.");
    }
}
