//! `sessions.svg`: what each edit saves in each session, one row per edit (best aggregate
//! first). Every session is a dot at its own percentage saved, over a band from the 10th
//! to the 90th percentile with the median marked, and a ring at the aggregate (the share
//! of the summed total, which long sessions weigh more). With many sessions the dots give
//! way to a density strip, so the file stays small and readable.

use plotters::prelude::{
    ChartBuilder, Circle, Color, IntoDrawingArea, PathElement, Rectangle, SVGBackend,
};

use super::history_input::{
    CostUnit, HistoryChartInput, HistoryCostInput, SavingSpread, row_names,
};
use super::layout::{self, Entry, Key};
use super::style::{self, BACKGROUND, DOT_PX, INK, MARGIN_PX, MUTED, WIDTH_PX};
use super::{ChartError, drawing};

/// File name of this chart.
pub const FILE: &str = "sessions.svg";
/// File name of its cost version.
pub const COST_FILE: &str = "sessions-cost.svg";

/// Height of one edit's row, in px.
const ROW_PX: i32 = 64;
/// Room below the rows for ticks and the axis description, in px.
const BELOW_ROWS_PX: i32 = 64;
/// Longest edit name shown beside a row, in characters.
const NAME_CHARS: usize = 40;
/// Dots up to this many sessions; a density strip beyond.
pub const MAX_DOTS: usize = 400;
/// Bins of the density strip across the axis.
const BINS: usize = 120;
/// Half the height of the band and the strip, in row units.
const BAND_HALF: f64 = 0.3;
/// Opacity of the p10–p90 band and of the dots.
const BAND_OPACITY: f64 = 0.16;
const DOT_OPACITY: f64 = 0.7;
/// The golden ratio's fraction: spreads dots evenly down a row, the same every time.
const SPREAD: f64 = 0.618_033_988_749_895;

/// The chart, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionsChart {
    /// `sessions.svg` or `sessions-cost.svg`.
    pub file: &'static str,
    /// The cost chart's unit; None for the reread-token chart.
    pub cost_unit: Option<CostUnit>,
    pub title: String,
    pub subtitle: String,
    /// Ranked order, drawn top to bottom.
    pub rows: Vec<Row>,
    /// Percent axis: every session, the aggregate and zero, padded.
    pub x_range: (f64, f64),
    /// Width of the name column, in px.
    pub names_width_px: i32,
    /// Whether the rows are density strips rather than dots.
    pub binned: bool,
}

/// One edit's row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub edit: usize,
    pub name: String,
    /// `(percent, vertical offset in row units)` per session; empty when binned.
    pub dots: Vec<(f64, f64)>,
    /// `(from %, to %, height as a share of the densest bin)`; empty unless binned.
    pub bins: Vec<(f64, f64, f64)>,
    pub p10: f64,
    pub median: f64,
    pub p90: f64,
    pub total: f64,
}

/// Series and axis of `sessions.svg`.
pub fn prepare(input: &HistoryChartInput) -> Result<SessionsChart, ChartError> {
    let spreads = input.rows.iter().map(|r| &r.spread).collect();
    let mut chart = chart(input, spreads, FILE)?;
    chart.title = format!("{}: what each edit saves, session by session", input.name);
    chart.subtitle = format!(
        "{}{}{}",
        chart.subtitle,
        unchanged_note(input),
        super::history_input::cost_only_note(input, COST_FILE)
    );
    Ok(chart)
}

/// Series and axis of `sessions-cost.svg`: each session's percentage of its own baseline
/// cost saved, in `cost`'s unit, ranked by cost.
pub fn prepare_cost(
    input: &HistoryChartInput,
    cost: &HistoryCostInput,
) -> Result<SessionsChart, ChartError> {
    let spreads = cost.rows.iter().map(|r| &r.spread).collect();
    let mut chart = chart(input, spreads, COST_FILE)?;
    chart.title = format!(
        "{}: what each edit saves on cost, session by session",
        input.name
    );
    chart.subtitle = format!(
        "{}\nCost in {}, under each session's prompt cache{}.{}",
        chart.subtitle,
        unit_phrase(&cost.unit),
        super::history_input::uncached_note(input, cost),
        cost_unchanged_note(input)
    );
    chart.cost_unit = Some(cost.unit.clone());
    Ok(chart)
}

/// The cost's unit as the subtitle says it, with where dollars come from or why the unit
/// is not dollars.
fn unit_phrase(unit: &CostUnit) -> String {
    match unit {
        CostUnit::Dollars => {
            "dollars (simulated: each call at its model's list price, output included)".to_string()
        }
        CostUnit::InputTokenEquivalents => {
            "input-token equivalents (not every session is priced)".to_string()
        }
    }
}

/// The rows of `spreads` (in their order), with the axis over every session, the
/// aggregate and zero; the title is the caller's, the subtitle says what a dot is.
fn chart(
    input: &HistoryChartInput,
    spreads: Vec<&SavingSpread>,
    file: &'static str,
) -> Result<SessionsChart, ChartError> {
    let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
    let all = spreads
        .iter()
        .flat_map(|r| r.session_pcts.iter().copied().chain([r.total_pct]))
        .chain([0.0]);
    let (lo, hi) = style::finite_range(all).unwrap_or((0.0, 1.0));
    let x_range = style::padded(lo, hi, 0.04);
    let binned = input.sessions > MAX_DOTS;
    let mut rows = Vec::with_capacity(spreads.len());
    let edits: Vec<usize> = spreads.iter().map(|r| r.edit).collect();
    for (r, name) in spreads
        .iter()
        .zip(row_names(input, &edits, NAME_CHARS, file)?)
    {
        let pcts: Vec<f64> = r
            .session_pcts
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .collect();
        let (dots, bins) = if binned {
            (Vec::new(), density(&pcts, x_range))
        } else {
            let dots = pcts
                .iter()
                .enumerate()
                .map(|(j, &p)| {
                    (
                        p,
                        ((j as f64 + 1.0) * SPREAD).fract() * 2.0 * BAND_HALF - BAND_HALF,
                    )
                })
                .collect();
            (dots, Vec::new())
        };
        rows.push(Row {
            edit: r.edit,
            name,
            dots,
            bins,
            p10: finite(r.p10),
            median: finite(r.median),
            p90: finite(r.p90),
            total: finite(r.total_pct),
        });
    }
    let names_width_px = layout::bar_names_px(rows.iter().map(|r| &r.name));
    let what = if binned {
        "strip height: how many sessions save that much"
    } else {
        "each dot is a session"
    };
    Ok(SessionsChart {
        file,
        cost_unit: None,
        title: String::new(),
        subtitle: format!(
            "{} sessions, each at its own B and ρ; {what}.",
            crate::number::grouped(input.sessions as f64, 0),
        ),
        rows,
        x_range,
        names_width_px,
        binned,
    })
}

/// On the cost chart, a line of its own saying which sessions no edit changes at all
/// (they sit at 0 % in every row), or nothing: a session an edit reprices is changed.
fn cost_unchanged_note(input: &HistoryChartInput) -> String {
    match input.sessions_unchanged {
        0 => String::new(),
        u => format!(
            "\nNo edit changes the cost of {} of them: they sit at 0 % in every row.",
            crate::number::grouped(u as f64, 0)
        ),
    }
}

/// A line of its own saying which sessions sit at 0 % in every row (no edit changes their
/// reread total), or nothing.
fn unchanged_note(input: &HistoryChartInput) -> String {
    let grouped = |x: usize| crate::number::grouped(x as f64, 0);
    match (input.sessions_unchanged, input.sessions_cost_only) {
        (0, 0) => String::new(),
        (u, 0) => format!(
            "\nNo edit changes {} of them: they sit at 0 % in every row.",
            grouped(u)
        ),
        (0, c) => format!(
            "\nNo edit changes the reread total of {} of them, only their cost: they sit at 0 % in every row.",
            grouped(c)
        ),
        (u, c) => format!(
            "\nNo edit changes {} of them, and {} more only in cost: those {} sit at 0 % in every row.",
            grouped(u),
            grouped(c),
            grouped(u + c)
        ),
    }
}

/// Bins of `values` across `range`, as `(from, to, share of the densest bin)`; empty bins
/// left out.
fn density(values: &[f64], (lo, hi): (f64, f64)) -> Vec<(f64, f64, f64)> {
    let width = (hi - lo) / BINS as f64;
    let mut counts = vec![0usize; BINS];
    for &v in values {
        let i = (((v - lo) / width).floor().max(0.0) as usize).min(BINS - 1);
        counts[i] += 1;
    }
    let densest = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(i, &c)| {
            let from = lo + i as f64 * width;
            (from, from + width, c as f64 / densest)
        })
        .collect()
}

fn legend(chart: &SessionsChart) -> Vec<Entry> {
    let (dot, total, aggregate) = match &chart.cost_unit {
        None => (
            "a dot in the edit's colour, at what it saves in that session".to_string(),
            "share of the summed reread total of all sessions: long ones weigh more".to_string(),
            super::aggregate::FILE,
        ),
        Some(unit) => (
            "a dot in the edit's colour, at the share of that session's cost it saves".to_string(),
            format!(
                "share of the summed baseline {}: costly sessions weigh more",
                super::aggregate::cost_words(unit)
            ),
            super::aggregate::COST_FILE,
        ),
    };
    let one = if chart.binned {
        Entry::new(
            Key::Swatch(style::BASELINE, DOT_OPACITY),
            "sessions (density)",
        )
    } else {
        Entry::new(Key::Spot(style::BASELINE), "one session").with_note(dot)
    };
    vec![
        Entry::new(Key::Heading, "Per session"),
        one,
        Entry::new(
            Key::Swatch(style::BASELINE, BAND_OPACITY * 2.0),
            "p10 to p90",
        )
        .with_note(format!(
            "the middle 80 % of sessions (nearest-rank percentiles; the whisker in {aggregate})"
        )),
        Entry::new(Key::Rule(INK, 3), "median session").with_note("half the sessions save more"),
        Entry::new(Key::Heading, "All sessions"),
        Entry::new(Key::Outline, "aggregate saving")
            .with_note(format!("{total} (the bar in {aggregate})")),
    ]
}

/// Renders the chart as SVG text.
pub fn draw(chart: &SessionsChart) -> Result<String, ChartError> {
    let err = drawing(chart.file);
    let n = chart.rows.len().max(1);
    let legend = legend(chart);
    let rows_px = ROW_PX * n as i32;
    let band = layout::title_band_px(&chart.title, &chart.subtitle);
    let height = (band + 16 + rows_px + BELOW_ROWS_PX + MARGIN_PX)
        .max(band + 16 + layout::legend_height(&legend) + MARGIN_PX);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        let words = (chart.title.as_str(), chart.subtitle.as_str());
        let area = layout::framed(&root, words, &legend, rows_px + BELOW_ROWS_PX, chart.file)?;
        let (x_lo, x_hi) = chart.x_range;
        let rows = n as f64;
        let mut plot = ChartBuilder::on(&area)
            .margin(8)
            .x_label_area_size(BELOW_ROWS_PX - 8)
            .y_label_area_size(chart.names_width_px)
            .build_cartesian_2d(x_lo..x_hi, 0.0..rows)
            .map_err(&err)?;
        let decimals = style::decimals_for_step((x_hi - x_lo) / 6.0);
        let percent = |x: &f64| format!("{}%", style::fixed(*x, decimals));
        let nothing = |_: &f64| String::new();
        style::house_mesh(&mut plot.configure_mesh())
            .disable_y_mesh()
            .y_labels(0)
            .y_label_formatter(&nothing)
            .x_labels(7)
            .x_label_formatter(&percent)
            .x_desc(match &chart.cost_unit {
                None => {
                    "% of the session's own baseline reread total saved (left of 0: adds rereads)"
                        .to_string()
                }
                Some(unit) => format!(
                    "% of the session's own baseline {} saved (left of 0: costs more)",
                    super::aggregate::cost_words(unit)
                ),
            })
            .draw()
            .map_err(&err)?;
        plot.draw_series([PathElement::new(
            vec![(0.0, 0.0), (0.0, rows)],
            MUTED.stroke_width(1),
        )])
        .map_err(&err)?;

        for (i, row) in chart.rows.iter().enumerate() {
            let middle = rows - i as f64 - 0.5;
            let colour = style::edit_colour(row.edit);
            plot.draw_series([Rectangle::new(
                [(row.p10, middle - BAND_HALF), (row.p90, middle + BAND_HALF)],
                style::BASELINE.mix(BAND_OPACITY).filled(),
            )])
            .map_err(&err)?;
            plot.draw_series(row.bins.iter().map(|&(from, to, share)| {
                let half = BAND_HALF * share.max(0.04);
                Rectangle::new(
                    [(from, middle - half), (to, middle + half)],
                    colour.mix(DOT_OPACITY).filled(),
                )
            }))
            .map_err(&err)?;
            plot.draw_series(row.dots.iter().map(|&(p, dy)| {
                Circle::new((p, middle + dy), DOT_PX, colour.mix(DOT_OPACITY).filled())
            }))
            .map_err(&err)?;
            plot.draw_series([PathElement::new(
                vec![
                    (row.median, middle - BAND_HALF - 0.06),
                    (row.median, middle + BAND_HALF + 0.06),
                ],
                INK.stroke_width(3),
            )])
            .map_err(&err)?;
            // The aggregate: an outlined square on the row's centre line.
            let (x, y) = plot.backend_coord(&(row.total, middle));
            root.draw(&Rectangle::new(
                [(x - 6, y - 6), (x + 6, y + 6)],
                BACKGROUND.mix(0.6).filled(),
            ))
            .map_err(&err)?;
            root.draw(&Rectangle::new(
                [(x - 6, y - 6), (x + 6, y + 6)],
                INK.stroke_width(3),
            ))
            .map_err(&err)?;
            let (left, _) = plot.backend_coord(&(x_lo, middle));
            layout::draw_bar_name(
                &root,
                (left, y),
                std::slice::from_ref(&row.name),
                row.edit,
                chart.file,
            )?;
        }
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::history::tests::input;

    #[test]
    fn rows_keep_the_ranked_order_and_every_session() {
        let chart = prepare(&input()).unwrap();
        let order: Vec<_> = chart.rows.iter().map(|r| r.edit).collect();
        assert_eq!(order, vec![1, 0, 2]);
        assert_eq!(chart.rows[0].dots.len(), 5);
        assert!(!chart.binned);
        // Zero and the negative session are on the axis.
        assert!(chart.x_range.0 < -2.0 && chart.x_range.1 > 44.0);
        assert!(chart.rows[0].dots.iter().all(|d| d.1.abs() <= BAND_HALF));
    }

    #[test]
    fn many_sessions_become_a_density_strip() {
        let mut many = input();
        many.sessions = MAX_DOTS + 1;
        many.rows[0].spread.session_pcts = (0..=MAX_DOTS).map(|i| (i % 10) as f64).collect();
        let chart = prepare(&many).unwrap();
        assert!(chart.binned && chart.rows[0].dots.is_empty());
        let densest = chart.rows[0].bins.iter().map(|b| b.2).fold(0.0, f64::max);
        assert_eq!(densest, 1.0);
        assert!(draw(&chart).is_ok());
    }

    #[test]
    fn the_cost_version_is_ranked_by_cost_and_has_the_cost_only_edit() {
        use crate::chart::history::tests::with_cost;
        let input = with_cost();
        let chart = prepare_cost(&input, input.cost.as_ref().unwrap()).unwrap();
        assert_eq!(chart.file, COST_FILE);
        let order: Vec<_> = chart.rows.iter().map(|r| r.edit).collect();
        assert_eq!(order, vec![3, 1, 0, 2]);
        assert_eq!(chart.rows[0].name, "cache for an hour");
        assert!(
            chart.subtitle.contains("\nCost in dollars (simulated: each call at its model's list price, output included), under each session's prompt cache."),
            "{}",
            chart.subtitle
        );
        // The token chart leaves it out and says where it is.
        let tokens = prepare(&input).unwrap();
        assert!(tokens.rows.iter().all(|r| r.edit != 3));
        assert!(
            tokens.subtitle.ends_with(
                "\nLeft out: \u{201c}cache for an hour\u{201d} changes the cost alone, not the reread total (drawn in sessions-cost.svg)."
            ),
            "{}",
            tokens.subtitle
        );
        assert!(
            draw(&chart)
                .unwrap()
                .contains("own baseline dollars saved (left of 0: costs more)")
        );
    }
}
