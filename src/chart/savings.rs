//! `savings.svg`: percent saved against the assumed base tokens, one line per edit and one
//! panel per assumed bytes-per-token value. Where two lines cross, their ranking flips; the
//! exact break-even points are ringed and labelled with a key to their pair (`a 36.2k`),
//! in lanes so that no two labels overlap. Edits with identical results, or results so
//! close that their lines would lie on one another, are drawn one inside the other, so
//! both stay visible, and the key says which.

use plotters::element::DashedPathElement;
use plotters::prelude::{
    ChartBuilder, Circle, Color, EmptyElement, IntoDrawingArea, PathElement, Polygon, Rectangle,
    SVGBackend, Text,
};
use plotters::style::text_anchor::{HPos, VPos};

use super::layout::{self, Entry, Key};
use super::same;
use super::scale::{self, Place};
use super::style::{
    self, BACKGROUND, DOT_PX, INK, LEGEND_WIDTH_PX, LINE_PX, MARGIN_PX, MUTED, SMALL_SIZE,
    SUBTITLE_SIZE, TICK_SIZE, WIDTH_PX,
};
use super::{ChartError, ChartInput, SavingsGrid, drawing};

/// File name of this chart.
pub const FILE: &str = "savings.svg";

/// Panels side by side beyond this many bytes-per-token values; stacked up to it.
const MAX_STACKED: usize = 4;
/// Dots mark the sampled points while a line has at most this many.
const MAX_DOTS: usize = 25;
/// Rows of break-even labels along a panel's top; a label that finds no room in any is
/// left out (its ring stays) and the subtitle counts it.
const LABEL_LANES: usize = 3;
/// Height of a label lane, px.
const LANE_PX: i32 = 15;
/// Least gap between two labels in a lane, px.
const LABEL_GAP_PX: i32 = 8;
/// Horizontal room the panels share, px (the page less the axis description and legend).
const PANELS_PX: i32 = WIDTH_PX as i32 - LEGEND_WIDTH_PX - 8 - (MARGIN_PX + 24);
/// Share of the axis each lane of words along a panel's top or bottom takes.
const LANE_SHARE: f64 = 0.1;
/// Room before the words for an edit off the scale: its arrow, px.
const TAG_INDENT_PX: i32 = 16;
/// Least room between a break-even label's box and the plot's edges, px.
const LABEL_EDGE_PX: i32 = 5;
/// Relative tolerance for matching a break-even's or the nominal ρ to a grid value.
const SAME_VALUE: f64 = 1e-9;
/// Lines this close everywhere, px, lie on one another (a line is [`LINE_PX`] wide): the
/// later is drawn inside the earlier, as an exact copy is.
const NEAR_PX: f64 = 3.0;
/// Height a panel spends on other things than its plot, px: the caption, the margins and
/// the tick labels under it.
const PANEL_FURNITURE_PX: i32 = 58;

/// The savings chart, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct SavingsChart {
    pub title: String,
    pub subtitle: String,
    /// The x axis description, with where the nominal B came from.
    pub x_desc: String,
    /// Edit names, by edit index (legend).
    pub edits: Vec<String>,
    /// One panel per bytes-per-token value, ascending.
    pub panels: Vec<Panel>,
    /// Panels per row.
    pub columns: usize,
    /// Shared axes: base tokens (x) and percent saved (y), padded, never of zero length.
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    /// The nominal base tokens, when it lies in `x_range`.
    pub nominal_base_tokens: Option<f64>,
    /// Pairs with a break-even, in order of their key letter: `(key, a, b)`.
    pub pairs: Vec<(String, usize, usize)>,
    /// For each edit, the earlier edit whose line it coincides with everywhere, if any.
    pub same_as: Vec<Option<usize>>,
    /// For each edit that coincides with none, the earlier edit whose line it follows within
    /// [`NEAR_PX`] everywhere, with the widest gap between them in percentage points.
    pub near: Vec<Option<(usize, f64)>>,
    /// Stroke width of each edit's line, px (wider under a coinciding copy).
    pub widths: Vec<u32>,
    /// Break-even labels with no room in any lane.
    pub unlabelled: usize,
    /// Edits left off the shared axis (far from every other, crossing none), by edit
    /// index, with where and the range of their saving over every panel.
    pub off_scale: Vec<OffScale>,
}

/// An edit left off the scale: where it is, in words, instead of a line off the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct OffScale {
    pub edit: usize,
    /// Above every line drawn, or below.
    pub above: bool,
    /// Lowest and highest percent saved.
    pub range: (f64, f64),
}

/// One bytes-per-token value.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub bytes_per_token: f64,
    /// Whether this is the scenario's own ρ.
    pub is_nominal: bool,
    /// One line per edit, in edit order.
    pub lines: Vec<Line>,
    /// Exact break-even points at this ρ, by ascending base tokens.
    pub break_evens: Vec<Mark>,
    /// A line of words per edit off the scale, along the plot's top (above) or bottom
    /// (below), in edit order: `(edit, above, text)`.
    pub tags: Vec<(usize, bool, String)>,
}

/// One edit's percent saved across base tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub edit: usize,
    /// `(base tokens, percent saved)`, ascending base tokens; non-finite values left out.
    pub points: Vec<(f64, f64)>,
}

/// A ringed break-even point.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub edits: (usize, usize),
    pub base_tokens: f64,
    pub percent: f64,
    /// Short label: the pair's key and the break-even, e.g. `a 34k`.
    pub label: String,
    /// The label's lane along the panel's top (0 = top), and its estimated left and right
    /// edges in px from the plot's left edge; None when no lane had room.
    pub lane: Option<usize>,
    pub label_px: (i32, i32),
}

/// Series and axes of `savings.svg`.
pub fn prepare(input: &ChartInput, grid: &SavingsGrid) -> Result<SavingsChart, ChartError> {
    check_shape(input, grid)?;
    let xs = grid.base_tokens.iter().copied();
    let (x_lo, x_hi) = style::finite_range(xs).unwrap_or((0.0, 1.0));
    let x_range = style::padded(x_lo, x_hi, 0.03);
    let edits: Vec<String> = input.edits.iter().map(|e| style::clean(e)).collect();
    let mut pairs: Vec<(String, usize, usize)> = Vec::new();
    let mut panels = Vec::with_capacity(grid.bytes_per_token.len());
    for (r, (&rho, rows)) in grid.bytes_per_token.iter().zip(&grid.percent).enumerate() {
        let lines = (0..edits.len())
            .map(|edit| Line {
                edit,
                points: grid
                    .base_tokens
                    .iter()
                    .zip(rows)
                    .filter_map(|(&b, cell)| Some((b, *cell.get(edit)?)))
                    .filter(|(b, p)| b.is_finite() && p.is_finite())
                    .collect(),
            })
            .collect();
        let mut marks: Vec<&crate::chart::BreakEvenMark> = grid
            .break_evens
            .iter()
            .filter(|m| nearest(&grid.bytes_per_token, m.bytes_per_token) == Some(r))
            .filter(|m| m.percent.is_finite())
            .filter(|m| m.base_tokens >= x_range.0 && m.base_tokens <= x_range.1)
            .collect();
        marks.sort_by(|a, b| a.base_tokens.total_cmp(&b.base_tokens));
        let break_evens = marks
            .into_iter()
            .map(|m| {
                let key = match pairs.iter().find(|p| (p.1, p.2) == (m.a, m.b)) {
                    Some(p) => p.0.clone(),
                    None => {
                        let key = pair_key(pairs.len());
                        pairs.push((key.clone(), m.a, m.b));
                        key
                    }
                };
                Mark {
                    edits: (m.a, m.b),
                    base_tokens: m.base_tokens,
                    percent: m.percent,
                    label: format!("{key} {}", style::short(m.base_tokens)),
                    lane: None,
                    label_px: (0, 0),
                }
            })
            .collect();
        panels.push(Panel {
            bytes_per_token: rho,
            is_nominal: same(rho, input.bytes_per_token),
            lines,
            break_evens,
            tags: Vec::new(),
        });
    }

    let break_even_pairs: Vec<(usize, usize)> =
        grid.break_evens.iter().map(|m| (m.a, m.b)).collect();
    let places = scale::places(&grid.percent, edits.len(), &break_even_pairs);
    let on = |e: usize| places.get(e) == Some(&Place::On);
    let off_scale = off_scale(&panels, &places);
    let percents = panels
        .iter()
        .flat_map(|p| {
            p.lines
                .iter()
                .filter(|l| on(l.edit))
                .flat_map(|l| l.points.iter().map(|q| q.1))
        })
        .chain(
            panels
                .iter()
                .flat_map(|p| p.break_evens.iter().map(|m| m.percent)),
        );
    // Zero is always on the axis: "saves nothing" is the reference a reader looks for.
    let (y_lo, y_hi) = style::finite_range(percents.chain([0.0])).unwrap_or((0.0, 1.0));
    let (mut y_lo, mut y_top) = style::padded(y_lo, y_hi, 0.08);
    // Headroom for the label lanes and the words for edits off the scale, so they sit
    // above (or below) the lines, not on them: about a tenth of the axis per lane.
    let above = off_scale.iter().filter(|o| o.above).count();
    let below = off_scale.len() - above;
    let lanes_on_top = above + if pairs.is_empty() { 0 } else { LABEL_LANES };
    let span = y_top - y_lo;
    y_top += span * LANE_SHARE * lanes_on_top as f64;
    y_lo -= span * LANE_SHARE * below as f64;
    let y_range = (y_lo, y_top);
    let nominal_base_tokens =
        Some(input.base_tokens).filter(|b| b.is_finite() && *b >= x_range.0 && *b <= x_range.1);

    let columns = if panels.len() <= MAX_STACKED {
        1
    } else {
        (panels.len() as f64).sqrt().ceil() as usize
    };
    let plot_px = plot_width_px(columns);
    let mut unlabelled = 0;
    for panel in &mut panels {
        unlabelled += place_labels(&mut panel.break_evens, x_range, plot_px);
    }
    // An edit's whole line across every panel, to find edits that coincide.
    let whole: Vec<Vec<f64>> = (0..edits.len())
        .map(|e| {
            panels
                .iter()
                .flat_map(|p| {
                    p.lines
                        .get(e)
                        .into_iter()
                        .flat_map(|l| l.points.iter().map(|q| q.1))
                })
                .collect()
        })
        .collect();
    let same_as = same::coinciding(whole.iter().map(Vec::as_slice));
    // What the eye cannot part: a gap of NEAR_PX on the panel's plot, in points.
    let points_per_px = (y_range.1 - y_range.0)
        / f64::from(panel_height(columns, panels.len()) - PANEL_FURNITURE_PX);
    let near = near_lines(&panels, &same_as, &on, NEAR_PX * points_per_px);
    let nested: Vec<Option<usize>> = same_as
        .iter()
        .zip(&near)
        .map(|(s, n)| s.or(n.map(|n| n.0)))
        .collect();
    let widths = same::widths(&nested, &vec![LINE_PX; edits.len()]);
    // Names in the words along a panel's edge, cut where they agree if they must be.
    let tag_room = plot_px
        - 2 * LABEL_EDGE_PX
        - TAG_INDENT_PX
        - style::text_width_px(": 88.8–88.8 %", SMALL_SIZE);
    let tag_names = style::apart(&edits, |n| style::text_width_px(n, SMALL_SIZE) <= tag_room);
    for panel in &mut panels {
        panel.tags = tags(panel, &off_scale, &tag_names, plot_px);
        panel.lines.retain(|l| on(l.edit));
    }

    let ringed = panels.iter().any(|p| !p.break_evens.is_empty());
    let mut subtitle = if edits.len() > 1 && ringed {
        "One panel per assumed bytes per token ρ. Where two lines cross, the ranking flips: \
         ringed at the exact break-even, with a letter naming the pair (see the legend)."
    } else if edits.len() > 1 {
        // No ring to explain: the pairs never tie in range, or their savings have no
        // closed form (a clearing that moves with B or ρ), so crossings are sampled.
        "One panel per assumed bytes per token ρ. Where two lines cross, the ranking flips."
    } else {
        "One panel per assumed bytes per token ρ."
    }
    .to_string();
    let nominal_drawn = panels.iter().any(|p| p.is_nominal);
    if grid.swept_bytes_per_token > panels.len() {
        subtitle.push_str(&format!(
            "\nPanels drawn: {} of the {} swept ρ values (evenly spaced{}): {}.",
            style::count(panels.len()),
            style::count(grid.swept_bytes_per_token),
            if nominal_drawn {
                ", with the nominal"
            } else {
                ""
            },
            panels
                .iter()
                .map(|p| style::ratio(p.bytes_per_token))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !nominal_drawn && input.bytes_per_token.is_finite() {
        let rho = input.bytes_per_token;
        let inside = grid.bytes_per_token.iter().any(|&r| r < rho)
            && grid.bytes_per_token.iter().any(|&r| r > rho);
        subtitle.push_str(&format!(
            "\nNo panel at the nominal point: the nominal ρ = {} lies {}.",
            style::ratio(rho),
            if inside {
                "between swept values"
            } else {
                "outside the swept range"
            }
        ));
    }
    if !off_scale.is_empty() {
        let names: Vec<String> = off_scale
            .iter()
            .map(|o| format!("{} ({})", edits[o.edit], off_words(o)))
            .collect();
        subtitle.push_str(&format!(
            "\nOff the scale, so that the edits that swap places have room: {}.",
            names.join("; ")
        ));
    }
    if unlabelled > 0 {
        subtitle.push_str(&format!(
            "\n{} break-even label{} left out for room (ringed still; the report lists every break-even).",
            style::count(unlabelled),
            if unlabelled == 1 { "" } else { "s" }
        ));
    }
    Ok(SavingsChart {
        x_desc: format!(
            "base tokens B (nominal {}), est. tokens",
            input.sources.base_tokens
        ),
        title: format!(
            "{}: % saved by each edit, across base tokens B",
            style::clean(&input.scenario)
        ),
        subtitle,
        edits,
        panels,
        columns,
        x_range,
        y_range,
        nominal_base_tokens,
        pairs,
        same_as,
        near,
        widths,
        unlabelled,
        off_scale,
    })
}

/// For each edit on the scale that coincides with none, the first earlier edit, itself
/// neither a copy nor near another, whose line is within `tolerance` points of its own at
/// every point of every panel (the same points), with the widest gap.
fn near_lines(
    panels: &[Panel],
    same_as: &[Option<usize>],
    on: &dyn Fn(usize) -> bool,
    tolerance: f64,
) -> Vec<Option<(usize, f64)>> {
    let gap = |a: usize, b: usize| -> Option<f64> {
        let mut widest = 0.0_f64;
        for panel in panels {
            let (p, q) = (panel.lines.get(a)?, panel.lines.get(b)?);
            if p.points.len() != q.points.len() {
                return None;
            }
            for (x, y) in p.points.iter().zip(&q.points) {
                if x.0 != y.0 {
                    return None;
                }
                widest = widest.max((x.1 - y.1).abs());
            }
        }
        Some(widest)
    };
    let mut near: Vec<Option<(usize, f64)>> = vec![None; same_as.len()];
    for i in 0..same_as.len() {
        if same_as[i].is_some() || !on(i) {
            continue;
        }
        near[i] = (0..i)
            .filter(|&j| same_as[j].is_none() && near[j].is_none() && on(j))
            .find_map(|j| Some((j, gap(i, j)?)).filter(|&(_, g)| g <= tolerance));
    }
    near
}

/// `at most 0.04 points apart`, `less than 0.01 points apart`: how far apart two near
/// lines come.
fn gap_words(points: f64) -> String {
    if points < 0.01 {
        return "less than 0.01 points apart".into();
    }
    let decimals = if points < 0.1 { 2 } else { 1 };
    format!("at most {} points apart", style::fixed(points, decimals))
}

/// The edits `places` leaves off the scale, with their range over every panel.
fn off_scale(panels: &[Panel], places: &[Place]) -> Vec<OffScale> {
    places
        .iter()
        .enumerate()
        .filter(|&(_, p)| *p != Place::On)
        .filter_map(|(edit, p)| {
            let values = panels
                .iter()
                .flat_map(|panel| panel.lines.iter().filter(|l| l.edit == edit))
                .flat_map(|l| l.points.iter().map(|q| q.1));
            Some(OffScale {
                edit,
                above: *p == Place::Above,
                range: style::finite_range(values)?,
            })
        })
        .collect()
}

/// `above the scale: 29.6 % to 47.9 %`.
fn off_words(o: &OffScale) -> String {
    format!(
        "{} the scale: {} % to {} %",
        if o.above { "above" } else { "below" },
        style::percent(o.range.0),
        style::percent(o.range.1)
    )
}

/// The words a panel writes along its edge for each edit off the scale: its range there.
fn tags(
    panel: &Panel,
    off_scale: &[OffScale],
    edits: &[String],
    plot_px: i32,
) -> Vec<(usize, bool, String)> {
    off_scale
        .iter()
        .filter_map(|o| {
            let line = panel.lines.iter().find(|l| l.edit == o.edit)?;
            let (lo, hi) = style::finite_range(line.points.iter().map(|q| q.1))?;
            let whole = |x: f64| style::fixed(x, usize::from(x.abs() < 10.0));
            let figures = format!(": {}–{} %", whole(lo), whole(hi));
            let name = edits.get(o.edit).map_or("", String::as_str);
            // The figures first: a long name gives way, not them.
            let room = plot_px
                - 2 * LABEL_EDGE_PX
                - TAG_INDENT_PX
                - style::text_width_px(&figures, SMALL_SIZE);
            let name = style::fit(name, room.max(24), SMALL_SIZE);
            Some((o.edit, o.above, format!("{name}{figures}")))
        })
        .collect()
}

/// The key of the `n`-th pair: `a` … `z`, then `aa`, `ab`, ….
fn pair_key(n: usize) -> String {
    let letter = |k: usize| char::from(b'a' + (k % 26) as u8);
    if n < 26 {
        letter(n).to_string()
    } else {
        format!("{}{}", letter(n / 26 - 1), letter(n))
    }
}

/// Width of one panel's plot, px: the share of the panel row less the tick labels.
pub fn plot_width_px(columns: usize) -> i32 {
    let compact = columns > 1;
    PANELS_PX / columns.max(1) as i32 - 12 - if compact { 44 } else { 52 }
}

/// Puts each mark's label in the first lane where it clears the labels already there
/// (marks in ascending base tokens), centred on its ring and kept inside the plot. Returns
/// how many found no lane.
fn place_labels(marks: &mut [Mark], x_range: (f64, f64), plot_px: i32) -> usize {
    let mut lanes: Vec<Vec<(i32, i32)>> = vec![Vec::new(); LABEL_LANES];
    let mut left_out = 0;
    for mark in marks {
        let width = style::text_width_px(&mark.label, SMALL_SIZE);
        let share = (mark.base_tokens - x_range.0) / (x_range.1 - x_range.0);
        let centre = (share * f64::from(plot_px)).round() as i32;
        // Clear of the axis line on the left and the plot's edge on the right.
        let left = (centre - width / 2).clamp(
            LABEL_EDGE_PX,
            (plot_px - width - LABEL_EDGE_PX).max(LABEL_EDGE_PX),
        );
        let span = (left, left + width);
        let free = lanes.iter().position(|lane| {
            lane.iter()
                .all(|&(l, r)| span.0 >= r + LABEL_GAP_PX || span.1 + LABEL_GAP_PX <= l)
        });
        match free {
            Some(k) => {
                lanes[k].push(span);
                mark.lane = Some(k);
                mark.label_px = span;
            }
            None => left_out += 1,
        }
    }
    left_out
}

fn check_shape(input: &ChartInput, grid: &SavingsGrid) -> Result<(), ChartError> {
    let bad = |message: String| {
        Err(ChartError::Data {
            chart: FILE,
            message,
        })
    };
    if grid.percent.len() != grid.bytes_per_token.len() {
        return bad(format!(
            "{} rows of percent for {} bytes-per-token values",
            grid.percent.len(),
            grid.bytes_per_token.len()
        ));
    }
    for row in &grid.percent {
        if row.len() != grid.base_tokens.len() {
            return bad(format!(
                "a row of {} percent cells for {} base-token values",
                row.len(),
                grid.base_tokens.len()
            ));
        }
        if let Some(cell) = row.iter().find(|c| c.len() != input.edits.len()) {
            return bad(format!(
                "a cell of {} percentages for {} edits",
                cell.len(),
                input.edits.len()
            ));
        }
    }
    if let Some(m) = grid
        .break_evens
        .iter()
        .find(|m| m.a >= input.edits.len() || m.b >= input.edits.len())
    {
        return bad(format!(
            "break-even between edits {} and {}, but {} edits are named",
            m.a,
            m.b,
            input.edits.len()
        ));
    }
    Ok(())
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= SAME_VALUE * a.abs().max(b.abs()).max(1.0)
}

/// Index of the grid value equal to `value` (within tolerance).
fn nearest(values: &[f64], value: f64) -> Option<usize> {
    values.iter().position(|&v| same(v, value))
}

/// Height of one panel, in px, with `panels` of them in `columns`.
fn panel_height(columns: usize, panels: usize) -> i32 {
    match (columns, panels) {
        (1, 1) => 380,
        (1, 2) => 270,
        (1, _) => 215,
        _ => 200,
    }
}

/// Renders the chart as SVG text.
pub fn draw(chart: &SavingsChart) -> Result<String, ChartError> {
    let err = drawing(FILE);
    let band = layout::title_band_px(&chart.title, &chart.subtitle);
    let columns = chart.columns.max(1);
    let rows = chart.panels.len().div_ceil(columns).max(1);
    let legend = legend(chart);
    let plot_top = band + 4;
    let panels_height = rows as i32 * panel_height(chart.columns, chart.panels.len());
    let height = (plot_top + panels_height + 40 + MARGIN_PX)
        .max(plot_top + layout::legend_height(&legend) + MARGIN_PX);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        layout::draw_title(&root, &chart.title, &chart.subtitle, FILE)?;
        layout::draw_legend(&root, plot_top + 6, &legend, FILE)?;

        let left = MARGIN_PX + 24;
        let right = WIDTH_PX as i32 - LEGEND_WIDTH_PX - 8;
        layout::draw_vertical_label(
            &root,
            "% of baseline reread total saved",
            (MARGIN_PX + 8, plot_top + panels_height / 2),
            FILE,
        )?;
        layout::draw_label(
            &root,
            &chart.x_desc,
            ((left + right) / 2, plot_top + panels_height + 18),
            FILE,
        )?;
        let area = root.margin(
            plot_top,
            height - plot_top - panels_height,
            left,
            WIDTH_PX as i32 - right,
        );
        let cells = area.split_evenly((rows, columns));
        for (panel, cell) in chart.panels.iter().zip(&cells) {
            draw_panel(chart, panel, cell, &root)?;
        }
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

fn draw_panel(
    chart: &SavingsChart,
    panel: &Panel,
    area: &super::Area,
    root: &super::Area,
) -> Result<(), ChartError> {
    let err = drawing(FILE);
    let caption = format!(
        "ρ = {} bytes/token{}",
        style::ratio(panel.bytes_per_token),
        if panel.is_nominal { " (nominal)" } else { "" }
    );
    let (x_lo, x_hi) = chart.x_range;
    let (y_lo, y_hi) = chart.y_range;
    let compact = chart.columns > 1;
    let y_step = (y_hi - y_lo) / 4.0;
    let y_decimals = style::decimals_for_step(y_step);
    let x_format = |x: &f64| style::short(*x);
    let y_format = |y: &f64| format!("{}%", style::fixed(*y, y_decimals));
    // Room for the widest tick label (`0.00020%` at tiny savings), so the axis title left
    // of the panels never runs into them.
    let widest_tick = [y_lo, y_hi, (y_lo + y_hi) / 2.0]
        .iter()
        .map(|y| style::text_width_px(&y_format(y), TICK_SIZE))
        .max()
        .unwrap_or(0);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(
            caption,
            style::bold(SUBTITLE_SIZE, INK, HPos::Center, VPos::Top),
        )
        .margin(6)
        .x_label_area_size(24)
        .y_label_area_size((if compact { 44 } else { 52 }).max(widest_tick + 10));
    let mut plot = builder
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
        .map_err(&err)?;
    style::house_mesh(&mut plot.configure_mesh())
        .x_labels(if compact { 3 } else { 7 })
        .y_labels(if compact { 4 } else { 5 })
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .draw()
        .map_err(&err)?;

    if y_lo < 0.0 && y_hi > 0.0 {
        plot.draw_series([PathElement::new(
            vec![(x_lo, 0.0), (x_hi, 0.0)],
            MUTED.stroke_width(1),
        )])
        .map_err(&err)?;
    }
    if let Some(b) = chart.nominal_base_tokens {
        plot.draw_series([PathElement::new(
            vec![(b, y_lo), (b, y_hi)],
            style::NOMINAL_RULE.stroke_width(2),
        )])
        .map_err(&err)?;
    }
    for mark in &panel.break_evens {
        plot.draw_series([DashedPathElement::new(
            vec![(mark.base_tokens, y_lo), (mark.base_tokens, y_hi)],
            4,
            4,
            MUTED.stroke_width(1),
        )])
        .map_err(&err)?;
    }
    for line in &panel.lines {
        let colour = style::edit_colour(line.edit);
        let width = chart.widths.get(line.edit).copied().unwrap_or(LINE_PX);
        // Past the eighth edit colours repeat: the line is dashed or dotted as well.
        match style::dashes(style::edit_mark(line.edit)) {
            None => plot.draw_series([PathElement::new(
                line.points.clone(),
                colour.stroke_width(width),
            )]),
            Some((on, off)) => plot.draw_series([DashedPathElement::new(
                line.points.clone(),
                on,
                off,
                colour.stroke_width(width),
            )]),
        }
        .map_err(&err)?;
        if line.points.len() <= MAX_DOTS {
            let radius = DOT_PX + width.saturating_sub(LINE_PX) / 2;
            plot.draw_series(
                line.points
                    .iter()
                    .map(|&p| Circle::new(p, radius, colour.filled())),
            )
            .map_err(&err)?;
        }
    }
    let (plot_left, plot_top) = plot.backend_coord(&(x_lo, y_hi));
    let plot_bottom = plot.backend_coord(&(x_lo, y_lo)).1;
    // Words for the edits off the scale, a lane each along the top (above) or the bottom.
    let (mut above, mut below) = (0, 0);
    for (edit, up, text) in &panel.tags {
        let middle = if *up {
            above += 1;
            plot_top + 2 + (above - 1) * LANE_PX + LANE_PX / 2
        } else {
            below += 1;
            plot_bottom - 2 - (below - 1) * LANE_PX - LANE_PX / 2
        };
        let (x, tip) = (plot_left + LABEL_EDGE_PX + 5, if *up { -5 } else { 5 });
        let width = style::text_width_px(text, SMALL_SIZE);
        root.draw(&Rectangle::new(
            [
                (plot_left + LABEL_EDGE_PX - 2, middle - LANE_PX / 2),
                (
                    plot_left + LABEL_EDGE_PX + TAG_INDENT_PX + width + 2,
                    middle + LANE_PX / 2 - 1,
                ),
            ],
            BACKGROUND.filled(),
        ))
        .map_err(&err)?;
        root.draw(&Polygon::new(
            vec![
                (x, middle + tip),
                (x + 5, middle - tip),
                (x - 5, middle - tip),
            ],
            style::edit_colour(*edit).filled(),
        ))
        .map_err(&err)?;
        root.draw(&Text::new(
            text.clone(),
            (plot_left + LABEL_EDGE_PX + TAG_INDENT_PX, middle),
            style::text(SMALL_SIZE, INK, HPos::Left, VPos::Center),
        ))
        .map_err(&err)?;
    }
    for mark in &panel.break_evens {
        // An open ring: the crossing it marks shows through.
        let at = (mark.base_tokens, mark.percent);
        plot.draw_series([EmptyElement::at(at) + Circle::new((0, 0), 8, INK.stroke_width(2))])
            .map_err(&err)?;
        if let Some(lane) = mark.lane {
            // Labels sit in lanes along the top, under the words for edits above the
            // scale, each on a white box, placed in `prepare` so that no two overlap; the
            // dashed rule leads down to the ring.
            let (l, r) = mark.label_px;
            let top = plot_top + 2 + (above + lane as i32) * LANE_PX;
            root.draw(&Rectangle::new(
                [
                    (plot_left + l - 2, top),
                    (plot_left + r + 2, top + LANE_PX - 1),
                ],
                BACKGROUND.filled(),
            ))
            .map_err(&err)?;
            root.draw(&Text::new(
                mark.label.clone(),
                (plot_left + l, top + 1),
                style::text(SMALL_SIZE, INK, HPos::Left, VPos::Top),
            ))
            .map_err(&err)?;
        }
    }
    Ok(())
}

fn legend(chart: &SavingsChart) -> Vec<Entry> {
    let mut entries = vec![Entry::new(Key::Heading, "edits")];
    for (e, name) in layout::legend_names(&chart.edits).into_iter().enumerate() {
        let entry = Entry::new(layout::line_key(Some(e), 4), name);
        let off = chart.off_scale.iter().find(|o| o.edit == e);
        entries.push(match (off, chart.same_as.get(e).copied().flatten()) {
            (Some(o), _) => entry.with_note(format!(
                "no line: {}, named by a triangle at each panel's {}",
                off_words(o),
                if o.above { "top" } else { "bottom" }
            )),
            (None, Some(other)) => entry.with_note(format!(
                "= same as {} (drawn inside its line)",
                chart.edits.get(other).map_or("", String::as_str)
            )),
            (None, None) => match chart.near.get(e).copied().flatten() {
                Some((other, gap)) => entry.with_note(format!(
                    "≈ {}, {} (drawn inside its line)",
                    chart.edits.get(other).map_or("", String::as_str),
                    gap_words(gap)
                )),
                None => entry,
            },
        });
    }
    entries.push(Entry::new(Key::Heading, ""));
    if !chart.pairs.is_empty() {
        entries.push(
            Entry::new(Key::Ring, "two lines cross: the ranking flips").with_note(
                "ringed at the exact break-even; the letter over its dashed line names the pair, the number is its B",
            ),
        );
        for (key, a, b) in &chart.pairs {
            let name = |e: usize| chart.edits.get(e).map_or("", String::as_str);
            entries.push(Entry::new(
                Key::Indent,
                format!("{key}: {} = {}", name(*a), name(*b)),
            ));
        }
    }
    if let Some(b) = chart.nominal_base_tokens {
        entries.push(Entry::new(
            Key::Rule(style::NOMINAL_RULE, 2),
            format!("nominal B = {}", style::short(b)),
        ));
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::BreakEvenMark;

    fn input() -> (ChartInput, SavingsGrid) {
        let grid = SavingsGrid {
            base_tokens: vec![20_000.0, 30_000.0, 40_000.0],
            bytes_per_token: vec![2.5, 3.3],
            swept_bytes_per_token: 2,
            percent: vec![
                vec![vec![10.0, 5.0], vec![8.0, 6.0], vec![6.0, 7.0]],
                vec![vec![9.0, 4.0], vec![7.0, 5.0], vec![f64::NAN, 6.0]],
            ],
            break_evens: vec![BreakEvenMark {
                a: 0,
                b: 1,
                bytes_per_token: 2.5,
                base_tokens: 35_000.0,
                percent: 6.5,
            }],
        };
        let input = ChartInput {
            scenario: "s".into(),
            base_tokens: 30_000.0,
            bytes_per_token: 3.3,
            sources: Default::default(),
            edits: vec!["a".into(), "b".into()],
            savings: Some(grid.clone()),
            ranking: None,
            ranking_cost: None,
            context: vec![],
            totals: vec![],
            totals_cost: None,
            cost: None,
        };
        (input, grid)
    }

    #[test]
    fn one_line_per_edit_per_panel_and_marks_in_their_panel() {
        let (input, grid) = input();
        let chart = prepare(&input, &grid).unwrap();
        assert_eq!(chart.panels.len(), 2);
        assert!(chart.panels.iter().all(|p| p.lines.len() == 2));
        assert_eq!(chart.panels[0].break_evens.len(), 1);
        assert_eq!(chart.panels[0].break_evens[0].label, "a 35k");
        assert_eq!(chart.pairs, vec![("a".to_string(), 0, 1)]);
        assert!(chart.panels[1].break_evens.is_empty());
        assert!(chart.panels[1].is_nominal && !chart.panels[0].is_nominal);
        // The NaN is left out, not drawn.
        assert_eq!(chart.panels[1].lines[0].points.len(), 2);
        assert_eq!(chart.nominal_base_tokens, Some(30_000.0));
        assert!(chart.y_range.0 < 0.0 && chart.y_range.1 > 10.0);
    }

    #[test]
    fn a_single_base_token_value_still_has_an_axis() {
        let (input, mut grid) = input();
        grid.base_tokens = vec![30_000.0];
        grid.percent = vec![vec![vec![1.0, 1.0]], vec![vec![1.0, 1.0]]];
        let chart = prepare(&input, &grid).unwrap();
        assert!(chart.x_range.0 < 30_000.0 && chart.x_range.1 > 30_000.0);
        assert!(draw(&chart).is_ok());
    }

    /// At tiny savings the tick labels are wide (`0.000200%`): the panels leave them room,
    /// so none starts left of the panels' edge, where the axis title stands (before: the
    /// title ran over them).
    #[test]
    fn wide_tick_labels_keep_clear_of_the_axis_title() {
        let (input, mut grid) = input();
        grid.percent = vec![vec![vec![0.0001, 0.0002]; 3]; 2];
        grid.break_evens.clear();
        let chart = prepare(&input, &grid).unwrap();
        let svg = draw(&chart).unwrap();
        let left = MARGIN_PX + 24;
        let ticks: Vec<_> = super::super::svg_text::texts(&svg)
            .into_iter()
            .filter(|t| t.text.ends_with('%') && t.text.starts_with("0.000"))
            .collect();
        for t in &ticks {
            let (start, _) = t.span(style::text_width_px(&t.text, TICK_SIZE));
            assert!(
                start >= left,
                "{} starts at {start}, the panels at {left}",
                t.text
            );
        }
        assert!(ticks.len() >= 4, "{svg}");
    }

    #[test]
    fn a_grid_of_the_wrong_shape_is_an_error() {
        let (input, mut grid) = input();
        grid.percent.pop();
        assert!(matches!(
            prepare(&input, &grid),
            Err(ChartError::Data { .. })
        ));
    }

    #[test]
    fn many_values_make_a_grid_of_panels() {
        let (input, mut grid) = input();
        grid.bytes_per_token = (0..9).map(|i| 2.0 + f64::from(i) * 0.25).collect();
        grid.percent = vec![vec![vec![1.0, 2.0]; 3]; 9];
        let chart = prepare(&input, &grid).unwrap();
        assert_eq!(chart.columns, 3);
        // Every swept value is drawn: the subtitle has nothing to add.
        assert!(!chart.subtitle.contains("Panels drawn"));
        grid.swept_bytes_per_token = 41;
        let chart = prepare(&input, &grid).unwrap();
        assert!(
            chart
                .subtitle
                .contains("Panels drawn: 9 of the 41 swept ρ values"),
            "{}",
            chart.subtitle
        );
    }

    #[test]
    fn labels_never_share_room_in_a_lane() {
        let (input, mut grid) = input();
        // Five break-evens within 2,000 tokens of each other at ρ = 2.5.
        grid.break_evens = (0..5)
            .map(|k| BreakEvenMark {
                a: 0,
                b: 1,
                bytes_per_token: 2.5,
                base_tokens: 30_000.0 + 500.0 * f64::from(k),
                percent: 6.5,
            })
            .collect();
        let chart = prepare(&input, &grid).unwrap();
        let marks = &chart.panels[0].break_evens;
        let placed: Vec<_> = marks.iter().filter(|m| m.lane.is_some()).collect();
        for (i, x) in placed.iter().enumerate() {
            for y in &placed[i + 1..] {
                if x.lane == y.lane {
                    let apart = x.label_px.1 + LABEL_GAP_PX <= y.label_px.0
                        || y.label_px.1 + LABEL_GAP_PX <= x.label_px.0;
                    assert!(apart, "{:?} and {:?} overlap", x.label_px, y.label_px);
                }
            }
        }
        assert_eq!(placed.len() + chart.unlabelled, 5);
        if chart.unlabelled > 0 {
            assert!(chart.subtitle.contains("left out for room"));
        }
    }

    #[test]
    fn coinciding_edits_are_both_drawn() {
        let (input, mut grid) = input();
        for row in &mut grid.percent {
            for cell in row.iter_mut() {
                cell[1] = cell[0];
            }
        }
        grid.break_evens.clear();
        let chart = prepare(&input, &grid).unwrap();
        assert_eq!(chart.same_as, vec![None, Some(0)]);
        assert!(chart.widths[0] > chart.widths[1]);
    }

    /// Edits whose lines differ by `by` points everywhere, without break-evens.
    fn apart_by(by: f64) -> SavingsChart {
        let (input, mut grid) = input();
        for row in &mut grid.percent {
            for cell in row.iter_mut() {
                cell[1] = cell[0] + by;
            }
        }
        grid.break_evens.clear();
        prepare(&input, &grid).unwrap()
    }

    #[test]
    fn near_identical_edits_are_drawn_nested_and_keyed() {
        // Regression: two edits 0.02 points apart drew one line exactly over the other
        // (less than a pixel), and the key had no word for it.
        let chart = apart_by(0.02);
        assert_eq!(chart.same_as, vec![None, None]);
        let (of, gap) = chart.near[1].unwrap();
        assert_eq!(of, 0);
        assert!((gap - 0.02).abs() < 1e-9, "{gap}");
        assert_eq!(chart.near[0], None);
        assert_eq!(chart.widths, vec![LINE_PX + 3, LINE_PX]);
        let notes: Vec<Option<String>> = legend(&chart).into_iter().map(|e| e.note).collect();
        assert_eq!(
            notes[2].as_deref(),
            Some("≈ a, at most 0.02 points apart (drawn inside its line)")
        );
        let svg = draw(&chart).unwrap();
        assert!(svg.contains("≈ a, at most 0.02 points"), "{svg}");
    }

    #[test]
    fn lines_a_reader_can_tell_apart_are_not_near() {
        // 3 px of a panel's plot is about 0.2 points here: 1.5 points apart is plain.
        let chart = apart_by(1.5);
        assert_eq!(chart.near, vec![None, None]);
        assert_eq!(chart.widths, vec![LINE_PX, LINE_PX]);
        assert!(legend(&chart).iter().all(|e| e.note.is_none()));
    }

    #[test]
    fn the_gap_between_near_lines_is_said_in_points() {
        assert_eq!(gap_words(0.004), "less than 0.01 points apart");
        assert_eq!(gap_words(0.08), "at most 0.08 points apart");
        assert_eq!(gap_words(0.26), "at most 0.3 points apart");
    }
}
