//! `ranking.svg` and `ranking-cost.svg`: where pairs of edits swap places.
//!
//! One small panel per pair of edits whose nominal order flips somewhere in the sweep: the
//! (B, ρ) plane, each swept point's cell shaded in the colour of the edit that saves more
//! there, and — where both reread totals are affine in B and 1/ρ — the exact break-even
//! curve `B*(ρ)` drawn as a line across the whole ρ range. When nothing flips, the chart
//! still answers "how safe is this ranking?" with one panel for the closest pair.
//!
//! The geometry is computed here in px (not left to a plotting library), so that tests can
//! check that the curve passes through the exact break-even within a pixel.

use plotters::prelude::{Circle, Color, IntoDrawingArea, PathElement, Rectangle, SVGBackend, Text};
use plotters::style::text_anchor::{HPos, VPos};

use super::layout::{self, Entry, Key, LEGEND_X};
use super::plane::{self, Frame, Side};
use super::style::{
    self, BACKGROUND, GRID, INK, LABEL_SIZE, MARGIN_PX, MUTED, SMALL_SIZE, TICK_SIZE, TIE, WIDTH_PX,
};
use super::{Area, ChartError, ChartInput, RankingPlane, drawing};

/// File name of the chart ranked by reread tokens.
pub const FILE: &str = "ranking.svg";
/// File name of the chart ranked by cost (with `[cache]`).
pub const COST_FILE: &str = "ranking-cost.svg";

/// Most pair panels drawn for one plane; the title says how many more pairs flip.
const MAX_PAIRS: usize = 9;
/// Most pair panels per row when each row is a slice of the other swept axes.
const MAX_PAIRS_PER_SLICE: usize = 3;
/// Left edge of the panel grid: room for the vertical axis description.
const GRID_LEFT_PX: i32 = MARGIN_PX + 26;
/// Right edge of the panel grid: clear of the legend column.
const GRID_RIGHT_PX: i32 = LEGEND_X - 16;
/// Room left of each plot for the ρ tick labels, px.
const Y_TICKS_PX: i32 = 40;
/// Room below each plot for the B tick labels, px.
const X_TICKS_PX: i32 = 22;
/// Vertical gap between rows of panels, px.
const ROW_GAP_PX: i32 = 14;
/// Height of one caption line, px.
const CAPTION_LINE_PX: i32 = 17;
/// Room below the grid for the B axis description, px.
const BELOW_GRID_PX: i32 = 34;
/// Tallest plot, px: a single panel is not a poster.
const PLOT_MAX_HEIGHT_PX: i32 = 330;
/// Shortest plot, px.
const PLOT_MIN_HEIGHT_PX: i32 = 110;
/// Height the panel grid aims at, px.
const GRID_TARGET_HEIGHT_PX: i32 = 720;
/// Sampled points are marked with a dot while a panel has at most this many.
const MAX_DOTS: usize = 400;
/// Least spacing between tick labels, px.
const X_LABEL_SPACING_PX: i32 = 58;
const Y_LABEL_SPACING_PX: i32 = 20;
/// Widest an edit name may be in the title (two lines for the sentence and both names).
const TITLE_NAME_PX: i32 = 420;
/// How much the edit colours are lightened for shading, so the curve and dots stand out.
pub const SHADE_TINT: f64 = 0.35;

/// The chart, laid out in px.
#[derive(Debug, Clone, PartialEq)]
pub struct RankingChart {
    /// `ranking.svg` or `ranking-cost.svg`.
    pub file: &'static str,
    pub title: String,
    pub subtitle: String,
    pub panels: Vec<PairPanel>,
    /// Edit names by index, for the legend (full, where captions may cut them).
    pub edits: Vec<String>,
    /// Edits drawn hatched wherever they appear: those whose shade is too alike an
    /// earlier drawn edit's (`style::alike`), so every panel and the legend agree.
    pub hatched: Vec<usize>,
    /// Headings of the rows when each row is a slice of the other swept axes: (top px, text).
    pub row_headings: Vec<(i32, String)>,
    /// Whether any pair flips (else the panels show the closest pair).
    pub flips: bool,
    /// Top of the panel grid and bottom of it, px.
    pub grid_top: i32,
    pub grid_bottom: i32,
    pub height_px: i32,
    /// Axis descriptions, with where B and ρ came from.
    pub x_desc: String,
    pub y_desc: String,
}

/// One pair of edits over one (B, ρ) plane.
#[derive(Debug, Clone, PartialEq)]
pub struct PairPanel {
    /// The edit that saves more at the nominal point, and the other.
    pub a: usize,
    pub b: usize,
    /// Caption: the two names (each beside a swatch of its colour), then notes.
    pub names: [String; 2],
    pub notes: Vec<String>,
    /// Top-left of the caption, px.
    pub caption_at: (i32, i32),
    /// The plot's pixel frame and data ranges.
    pub frame: Frame,
    /// Shaded cells, merged along each row where the same edit saves more.
    pub shading: Vec<((i32, i32, i32, i32), Side)>,
    /// Sampled grid points, px; empty when too dense to mark (the cells still show them).
    pub dots: Vec<(i32, i32)>,
    /// Exact break-even `(B, ρ)` and its pixels; empty when the pair is sampled only or
    /// the curve misses the plot.
    pub curve: Vec<(f64, f64)>,
    pub curve_px: Vec<(i32, i32)>,
    /// Whether the break-even is exact (both totals affine).
    pub exact: bool,
    /// Points of this plane where `b` saves more, and points in all.
    pub flipped: usize,
    pub cells: usize,
    /// The nominal point, px, when it lies in the plot.
    pub nominal_px: Option<(i32, i32)>,
    pub x_ticks: Vec<(i32, String)>,
    pub y_ticks: Vec<(i32, String)>,
    /// Small marks on the axes at every swept value, px.
    pub x_marks: Vec<i32>,
    pub y_marks: Vec<i32>,
}

/// Panels and words of the ranking chart for `plane`, written to `file`.
pub fn prepare(
    input: &ChartInput,
    plane: &RankingPlane,
    file: &'static str,
) -> Result<RankingChart, ChartError> {
    plane::check(input, plane, file)?;
    let names: Vec<String> = input.edits.iter().map(|e| style::clean(e)).collect();
    let pairs: Vec<(usize, usize)> = plane.flips.iter().map(|f| (f.a, f.b)).collect();
    let per_row = if plane.slices.len() > 1 {
        MAX_PAIRS_PER_SLICE
    } else {
        MAX_PAIRS
    };
    let closest = plane::closest_pair(plane);
    let shown: Vec<(usize, usize)> = if pairs.is_empty() {
        closest.iter().map(|c| (c.a, c.b)).collect()
    } else {
        pairs.iter().copied().take(per_row).collect()
    };
    let more = pairs.len().saturating_sub(shown.len());

    // Names in the title and subtitle, cut where they agree when too long to share a line.
    let titled = style::apart(&names, |n| {
        style::text_width_px(n, style::TITLE_SIZE * 1.08) <= TITLE_NAME_PX
    });
    let title_name = |e: usize| titled.get(e).cloned().unwrap_or_default();
    let (title, subtitle) = words(
        input,
        plane,
        &title_name,
        shown.len(),
        more,
        closest.as_ref(),
    );
    let grid_top = layout::title_band_px(&title, &subtitle) + 6;
    let columns = if plane.slices.len() > 1 {
        shown.len().max(1)
    } else {
        match shown.len() {
            0 | 1 => 1,
            2..=4 => 2,
            _ => 3,
        }
    };
    let rows = if plane.slices.len() > 1 {
        plane.slices.len()
    } else {
        shown.len().div_ceil(columns).max(1)
    };
    let cell_w = (GRID_RIGHT_PX - GRID_LEFT_PX) / columns as i32;
    // Captions start at the cell's left edge, over the tick labels, so that long edit
    // names keep 40 px more before they are cut; cut where they agree, they read apart.
    let text_px = cell_w - 14;
    let captions = style::apart(&names, |n| {
        style::text_width_px(n, LABEL_SIZE) <= text_px - 18
    });
    let caption = |e: usize| captions.get(e).cloned().unwrap_or_default();
    let plot_w = cell_w - Y_TICKS_PX - 14;
    let caption_px = CAPTION_LINE_PX * CAPTION_LINES + 6;
    // Rows that are slices get a heading line above their captions.
    let heading_px = if plane.slices.len() > 1 {
        CAPTION_LINE_PX + 2
    } else {
        0
    };
    let plot_h =
        ((GRID_TARGET_HEIGHT_PX / rows as i32) - heading_px - caption_px - X_TICKS_PX - ROW_GAP_PX)
            .clamp(
                PLOT_MIN_HEIGHT_PX,
                PLOT_MAX_HEIGHT_PX.min(plot_w.max(PLOT_MIN_HEIGHT_PX)),
            );
    let row_h = heading_px + caption_px + plot_h + X_TICKS_PX + ROW_GAP_PX;

    let x_range = plane::cell_range(&plane.base_tokens);
    let y_range = plane::cell_range(&plane.bytes_per_token);
    let (nb, nr) = plane.swept;
    let thinned = nb > plane.base_tokens.len() || nr > plane.bytes_per_token.len();
    // Swept points one panel stands for: its (B, ρ) plane, or the whole grid when a
    // single plane stands for every value of the other swept axes.
    let stands_for = if plane.slices.len() == 1 && plane.slices_left_out == 0 {
        plane.points
    } else {
        nb * nr
    };
    let mut panels = Vec::with_capacity(rows * columns);
    let mut row_headings = Vec::new();
    for (k, &(a, b)) in shown.iter().enumerate() {
        for (s, slice) in plane.slices.iter().enumerate() {
            let (row, column) = if plane.slices.len() > 1 {
                (s, k)
            } else {
                (k / columns, k % columns)
            };
            let left = GRID_LEFT_PX + cell_w * column as i32;
            let row_top = grid_top + row_h * row as i32;
            if heading_px > 0 && column == 0 {
                row_headings.push((row_top, slice.label.clone().unwrap_or_default()));
            }
            let top = row_top + heading_px;
            let plot_left = left + Y_TICKS_PX;
            let plot_top = top + caption_px;
            let frame = Frame {
                px: (plot_left, plot_top, plot_left + plot_w, plot_top + plot_h),
                x: x_range,
                y: y_range,
            };
            let plane::Shading {
                boxes: sampled_shading,
                flipped: drawn_flipped,
                ties: drawn_ties,
                cells: drawn_cells,
            } = plane::shading(plane, slice, a, b, &frame);
            // What the text counts: every swept point the plane stands for, drawn or not.
            let counted = slice.counts.iter().find(|c| (c.a, c.b) == (a, b));
            let (flipped, ties, cells, drawn) = match counted {
                Some(c) => (c.flipped, c.ties, stands_for, None),
                None if !thinned => {
                    let weight = stands_for / drawn_cells.max(1);
                    (
                        drawn_flipped * weight,
                        drawn_ties * weight,
                        stands_for,
                        None,
                    )
                }
                // Not counted over the whole grid (a pair that never flips): its ties are
                // those among the drawn points, and said so.
                None => (drawn_flipped, drawn_ties, stands_for, Some(drawn_cells)),
            };
            let affine = |e: usize| plane.affine.get(e).copied().flatten();
            let exact = affine(a).zip(affine(b));
            // With closed forms the whole plane is known, not only the sampled points.
            let shading = match exact {
                Some((ta, tb)) => plane::exact_shading(&ta, &tb, &frame),
                None => sampled_shading,
            };
            let curve = exact.map_or_else(Vec::new, |(ta, tb)| {
                plane::break_even_curve(&ta, &tb, x_range, y_range, &plane.bytes_per_token)
            });
            let sampled = if plane.affine.is_empty() {
                "sampled only: cost has no closed form here"
            } else {
                "sampled only: a clearing moves with B or ρ"
            };
            let fits = |text: &str| style::text_width_px(text, SMALL_SIZE) <= text_px;
            let break_even = match exact {
                Some((ta, tb)) => {
                    let words =
                        |short| plane::break_even_words(&ta, &tb, plane.nominal.1, &curve, short);
                    Some(words(false))
                        .filter(|w| fits(w))
                        .unwrap_or_else(|| words(true))
                }
                None if fits(sampled) => sampled.to_string(),
                None if fits("sampled only (no closed form)") => {
                    "sampled only (no closed form)".to_string()
                }
                None => "sampled only".to_string(),
            };
            let notes: Vec<String> = [status(flipped, ties, cells, drawn), break_even]
                .iter()
                .map(|n| style::fit(n, text_px, SMALL_SIZE))
                .collect();
            let dots = if cells <= MAX_DOTS {
                plane::points(plane, &frame)
            } else {
                Vec::new()
            };
            panels.push(PairPanel {
                a,
                b,
                names: [
                    style::fit(&caption(a), text_px - 18, LABEL_SIZE),
                    style::fit(&caption(b), text_px - 18, LABEL_SIZE),
                ],
                notes,
                caption_at: (left, top),
                curve_px: curve.iter().map(|&p| frame.to_px(p)).collect(),
                curve,
                exact: exact.is_some(),
                flipped,
                cells,
                shading,
                dots,
                nominal_px: (slice.holds_nominal && frame.contains(plane.nominal))
                    .then(|| frame.to_px(plane.nominal)),
                x_ticks: plane::ticks(&plane.base_tokens, &frame, true, X_LABEL_SPACING_PX),
                y_ticks: plane::ticks(&plane.bytes_per_token, &frame, false, Y_LABEL_SPACING_PX),
                x_marks: plane.base_tokens.iter().map(|&v| frame.x_px(v)).collect(),
                y_marks: plane
                    .bytes_per_token
                    .iter()
                    .map(|&v| frame.y_px(v))
                    .collect(),
                frame,
            });
        }
    }
    let grid_bottom = grid_top + row_h * rows as i32;
    let hatched = hatched_edits(&panels);
    Ok(RankingChart {
        file,
        title,
        subtitle,
        x_desc: format!(
            "base tokens B (nominal {}), est. tokens",
            input.sources.base_tokens
        ),
        y_desc: format!(
            "bytes per token ρ (nominal {})",
            input.sources.bytes_per_token
        ),
        flips: !pairs.is_empty(),
        height_px: grid_bottom + BELOW_GRID_PX + MARGIN_PX,
        grid_top,
        grid_bottom,
        panels,
        edits: names,
        hatched,
        row_headings,
    })
}

/// The edits drawn in `panels`, in index order.
fn drawn_edits(panels: &[PairPanel]) -> Vec<usize> {
    let mut drawn: Vec<usize> = panels.iter().flat_map(|p| [p.a, p.b]).collect();
    drawn.sort_unstable();
    drawn.dedup();
    drawn
}

/// Each drawn edit whose shade is too alike that of a drawn edit with a lower index.
fn hatched_edits(panels: &[PairPanel]) -> Vec<usize> {
    let drawn = drawn_edits(panels);
    drawn
        .iter()
        .enumerate()
        .filter(|&(k, &e)| {
            drawn[..k].iter().any(|&earlier| {
                style::alike(
                    style::edit_colour(earlier),
                    style::edit_colour(e),
                    SHADE_TINT,
                )
            })
        })
        .map(|(_, &e)| e)
        .collect()
}

/// Lines above each panel: the two names, the status and the break-even.
const CAPTION_LINES: i32 = 4;

/// "flipped at 6 of 55 points": how often the second edit saves more, of the swept points,
/// with the ties among the `drawn` points when only those were counted.
fn status(flipped: usize, ties: usize, cells: usize, drawn: Option<usize>) -> String {
    let count = style::count;
    let ties = match (ties, drawn) {
        (0, _) => String::new(),
        (n, Some(drawn)) => format!(
            ", {} tie{} among the {} drawn",
            count(n),
            plural(n),
            count(drawn)
        ),
        (1, None) => ", 1 tie".to_string(),
        (n, None) => format!(", {} ties", count(n)),
    };
    match flipped {
        0 => format!("no flip at any of {} points{ties}", count(cells)),
        n => format!("flipped at {} of {} points{ties}", count(n), count(cells)),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Title and subtitle: does the ranking hold, which pairs are drawn, which slice.
fn words(
    input: &ChartInput,
    plane: &RankingPlane,
    name: &dyn Fn(usize) -> String,
    shown: usize,
    more: usize,
    closest: Option<&plane::Closest>,
) -> (String, String) {
    let scenario = style::clean(&input.scenario);
    let mut lines = Vec::new();
    let title = if plane.flips.is_empty() {
        lines.push(format!(
            "Ranked by {}: the nominal order holds at all {} points of the sweep.",
            plane.measure,
            style::count(plane.points)
        ));
        match closest {
            Some(c) if c.always_tie => format!(
                "{scenario}: the ranking holds at every point; {} and {} tie everywhere",
                name(c.a),
                name(c.b)
            ),
            Some(c) => {
                lines.push(format!(
                    "Closest pair: {} ahead of {} by {} % of the baseline at B = {}, ρ = {} (its smallest margin).",
                    name(c.a),
                    name(c.b),
                    style::percent(c.margin_pct),
                    style::short(c.at.0),
                    style::ratio(c.at.1)
                ));
                format!(
                    "{scenario}: the ranking holds at every point; closest pair: {} vs {}",
                    name(c.a),
                    name(c.b)
                )
            }
            None => format!("{scenario}: the ranking holds at every point"),
        }
    } else {
        lines.push(format!(
            "Ranked by {}: the nominal order holds at {} of {} points; {} pair{} of edits swap places. Each panel shades the (B, ρ) plane by which of two edits saves more.",
            plane.measure,
            style::count(plane.matching_order),
            style::count(plane.points),
            style::count(plane.flips.len()),
            if plane.flips.len() == 1 { "" } else { "s" },
        ));
        if more > 0 {
            lines.push(format!(
                "Drawn: the first {shown} pairs in nominal order; {} more pair{} not drawn (listed in the report).",
                style::count(more),
                plural(more)
            ));
        }
        format!(
            "{scenario}: where pairs of edits swap places, ranked by {}",
            plane.measure
        )
    };
    let tied = plane::tied_pairs(plane);
    if !tied.is_empty() {
        let pairs: Vec<String> = tied
            .iter()
            .map(|&(a, b)| format!("{} = {}", name(a), name(b)))
            .collect();
        lines.push(format!("Tie at every point: {}.", pairs.join("; ")));
    }
    if plane.slices.len() > 1 || plane.slices_left_out > 0 {
        let drawn = plane.slices.len();
        let all = drawn + plane.slices_left_out;
        let what = plane.slices.first().and_then(|s| s.label.as_ref()).map_or(
            "cache read × retry rate combination",
            |label| match (label.contains("cache read"), label.contains("retry")) {
                (true, false) => "cache read price swept",
                (false, true) => "retry rate swept",
                _ => "cache read × retry rate combination",
            },
        );
        lines.push(if plane.slices_left_out == 0 {
            format!("One row of panels per {what}.")
        } else {
            format!(
                "One row of panels per {what}: {drawn} of {all} drawn (the lowest and highest values)."
            )
        });
    } else if let Some(label) = plane.slices.first().and_then(|s| s.label.as_ref()) {
        lines.push(format!("Drawn at {label}."));
    }
    if let Some(note) = &plane.note {
        lines.push(note.clone());
    }
    let (nb, nr) = plane.swept;
    if nb > plane.base_tokens.len() || nr > plane.bytes_per_token.len() {
        lines.push(format!(
            "Thinned for drawing: {} of {} B values, {} of {} ρ values (the counts are of every swept point).",
            style::count(plane.base_tokens.len()),
            style::count(nb),
            style::count(plane.bytes_per_token.len()),
            style::count(nr)
        ));
    }
    (title, lines.join("\n"))
}

/// Renders the chart as SVG text.
pub fn draw(chart: &RankingChart) -> Result<String, ChartError> {
    let file = chart.file;
    let err = drawing(file);
    let legend = legend(chart);
    let height = chart
        .height_px
        .max(chart.grid_top + layout::legend_height(&legend) + MARGIN_PX);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        layout::draw_title(&root, &chart.title, &chart.subtitle, file)?;
        layout::draw_legend(&root, chart.grid_top, &legend, file)?;
        for (top, heading) in &chart.row_headings {
            root.draw(&Text::new(
                heading.clone(),
                (GRID_LEFT_PX, top + CAPTION_LINE_PX / 2),
                style::bold(LABEL_SIZE, MUTED, HPos::Left, VPos::Center),
            ))
            .map_err(&err)?;
        }
        for panel in &chart.panels {
            draw_panel(&root, panel, &chart.hatched, file)?;
        }
        layout::draw_label(
            &root,
            &chart.x_desc,
            (
                (GRID_LEFT_PX + GRID_RIGHT_PX) / 2,
                chart.grid_bottom + BELOW_GRID_PX / 2 - 6,
            ),
            file,
        )?;
        layout::draw_vertical_label(
            &root,
            &chart.y_desc,
            (MARGIN_PX + 8, (chart.grid_top + chart.grid_bottom) / 2),
            file,
        )?;
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

fn draw_panel(
    root: &Area,
    panel: &PairPanel,
    hatched: &[usize],
    file: &'static str,
) -> Result<(), ChartError> {
    let err = drawing(file);
    let (x, mut y) = panel.caption_at;
    // An edit whose shade is too alike another's (orange and vermillion) has its region
    // and its swatch hatched in its full colour, in every panel.
    let hatch = |edit: usize| hatched.contains(&edit);
    for (edit, name) in [panel.a, panel.b].iter().zip(&panel.names) {
        let middle = y + CAPTION_LINE_PX / 2;
        root.draw(&Rectangle::new(
            [(x, middle - 6), (x + 12, middle + 6)],
            style::tint(style::edit_colour(*edit), SHADE_TINT).filled(),
        ))
        .map_err(&err)?;
        if hatch(*edit) {
            layout::draw_hatch(
                root,
                (x, middle - 6, x + 12, middle + 6),
                style::edit_colour(*edit),
                file,
            )?;
        }
        root.draw(&Rectangle::new(
            [(x, middle - 6), (x + 12, middle + 6)],
            style::edit_colour(*edit).stroke_width(2),
        ))
        .map_err(&err)?;
        root.draw(&Text::new(
            name.clone(),
            (x + 18, middle),
            style::bold(LABEL_SIZE, INK, HPos::Left, VPos::Center),
        ))
        .map_err(&err)?;
        y += CAPTION_LINE_PX;
    }
    for note in &panel.notes {
        root.draw(&Text::new(
            note.clone(),
            (x, y + CAPTION_LINE_PX / 2),
            style::text(SMALL_SIZE, MUTED, HPos::Left, VPos::Center),
        ))
        .map_err(&err)?;
        y += CAPTION_LINE_PX;
    }

    let (l, t, r, b) = panel.frame.px;
    for &((x0, y0, x1, y1), side) in &panel.shading {
        let fill = match side {
            Side::A => style::tint(style::edit_colour(panel.a), SHADE_TINT),
            Side::B => style::tint(style::edit_colour(panel.b), SHADE_TINT),
            Side::Tie => TIE,
        };
        root.draw(&Rectangle::new([(x0, y0), (x1, y1)], fill.filled()))
            .map_err(&err)?;
        let edit = match side {
            Side::A => Some(panel.a),
            Side::B => Some(panel.b),
            Side::Tie => None,
        };
        if let Some(edit) = edit.filter(|&e| hatch(e)) {
            layout::draw_hatch(root, (x0, y0, x1, y1), style::edit_colour(edit), file)?;
        }
    }
    root.draw(&Rectangle::new([(l, t), (r, b)], GRID.stroke_width(1)))
        .map_err(&err)?;
    for &mx in &panel.x_marks {
        root.draw(&PathElement::new(
            vec![(mx, b), (mx, b + 4)],
            INK.stroke_width(1),
        ))
        .map_err(&err)?;
    }
    for &my in &panel.y_marks {
        root.draw(&PathElement::new(
            vec![(l - 4, my), (l, my)],
            INK.stroke_width(1),
        ))
        .map_err(&err)?;
    }
    for (px, label) in &panel.x_ticks {
        root.draw(&Text::new(
            label.clone(),
            (*px, b + 6),
            style::text(TICK_SIZE, INK, HPos::Center, VPos::Top),
        ))
        .map_err(&err)?;
    }
    for (py, label) in &panel.y_ticks {
        root.draw(&Text::new(
            label.clone(),
            (l - 7, *py),
            style::text(TICK_SIZE, INK, HPos::Right, VPos::Center),
        ))
        .map_err(&err)?;
    }
    for &dot in &panel.dots {
        root.draw(&Circle::new(dot, 2, INK.mix(0.75).filled()))
            .map_err(&err)?;
    }
    if panel.curve_px.len() >= 2 {
        // A white halo under the line keeps it readable on either shade.
        root.draw(&PathElement::new(
            panel.curve_px.clone(),
            BACKGROUND.stroke_width(5),
        ))
        .map_err(&err)?;
        root.draw(&PathElement::new(
            panel.curve_px.clone(),
            INK.stroke_width(2),
        ))
        .map_err(&err)?;
    }
    if let Some(at) = panel.nominal_px {
        root.draw(&Circle::new(at, 6, BACKGROUND.filled()))
            .map_err(&err)?;
        root.draw(&Circle::new(at, 6, INK.stroke_width(2)))
            .map_err(&err)?;
    }
    Ok(())
}

fn legend(chart: &RankingChart) -> Vec<Entry> {
    let (a, b) = chart.panels.first().map_or((0, 1), |p| (p.a, p.b));
    let mut entries = vec![
        Entry::new(Key::Heading, "in each panel"),
        Entry::new(
            Key::TwoTone(
                style::tint(style::edit_colour(a), SHADE_TINT),
                style::tint(style::edit_colour(b), SHADE_TINT),
            ),
            "shade: which edit saves more",
        )
        .with_note(
            "a spot's colour: which of the two edits named above saves more there; the first named wins at the nominal point",
        ),
    ];
    if chart
        .panels
        .iter()
        .any(|p| p.shading.iter().any(|s| s.1 == Side::Tie))
    {
        entries.push(Entry::new(
            Key::Swatch(TIE, 1.0),
            "tie (within 1e-9 of the baseline)",
        ));
    }
    if chart.panels.iter().any(|p| p.curve_px.len() >= 2) {
        entries.push(
            Entry::new(Key::Line(INK, 2), "exact break-even")
                .with_note("where the two save the same, from the closed form"),
        );
    }
    if chart.panels.iter().any(|p| !p.dots.is_empty()) {
        entries.push(Entry::new(Key::Dot, "swept point (B, ρ)"));
    } else {
        entries.push(
            Entry::new(Key::Heading, "")
                .with_note("swept values: ticks on the axes (too many points to dot)"),
        );
    }
    if chart.panels.iter().any(|p| p.nominal_px.is_some()) {
        entries.push(
            Entry::new(Key::Ring, "nominal point")
                .with_note("the B and ρ the text's ranking is at"),
        );
    }
    // The full names, which small panels may have cut short.
    entries.push(Entry::new(Key::Heading, ""));
    entries.push(Entry::new(Key::Heading, "edits"));
    let names = layout::legend_names(&chart.edits);
    for e in drawn_edits(&chart.panels) {
        let shade = style::tint(style::edit_colour(e), SHADE_TINT);
        let key = if chart.hatched.contains(&e) {
            Key::Hatched(shade, style::edit_colour(e))
        } else {
            Key::Swatch(shade, 1.0)
        };
        entries.push(Entry::new(key, names.get(e).cloned().unwrap_or_default()));
    }
    if !chart.hatched.is_empty() {
        entries.push(Entry::new(Key::Indent, "").with_note(
            "hatched: an edit whose colour is close to another's (or the same, past eight edits), hatched wherever it is drawn",
        ));
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{PairFlip, PlaneSlice};
    use crate::ledger::Affine;

    /// Two edits: `a` saves 2 calls' worth of B less than `b` but 300k bytes·calls more,
    /// so they tie at B* = 150,000 / ρ; a third edit far behind.
    fn plane(flips: bool) -> (ChartInput, RankingPlane) {
        let bs: Vec<f64> = (0..5).map(|i| 20_000.0 + 10_000.0 * f64::from(i)).collect();
        let rs = vec![2.5, 3.3, 4.0];
        let ta = Affine {
            calls: 20.0,
            tokens: 0.0,
            bytes: 1.0e6,
        };
        let tb = Affine {
            calls: 18.0,
            tokens: 0.0,
            bytes: 1.3e6,
        };
        let tc = Affine {
            calls: 22.0,
            tokens: 0.0,
            bytes: 5.0e6,
        };
        let base = Affine {
            calls: 22.0,
            tokens: 0.0,
            bytes: 6.0e6,
        };
        let at = |t: &Affine, b: f64, r: f64| t.calls * b + t.tokens + t.bytes / r;
        let saved = rs
            .iter()
            .map(|&r| {
                bs.iter()
                    .map(|&b| {
                        [&ta, &tb, &tc]
                            .iter()
                            .map(|t| at(&base, b, r) - at(t, b, r))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let baseline = rs
            .iter()
            .map(|&r| bs.iter().map(|&b| at(&base, b, r)).collect())
            .collect();
        let plane = RankingPlane {
            measure: "reread tokens".into(),
            base_tokens: bs,
            bytes_per_token: rs,
            swept: (5, 3),
            slices: vec![PlaneSlice {
                label: None,
                holds_nominal: true,
                saved,
                baseline,
                counts: vec![],
            }],
            slices_left_out: 0,
            flips: if flips {
                vec![PairFlip {
                    a: 0,
                    b: 1,
                    count: 6,
                }]
            } else {
                vec![]
            },
            points: 15,
            matching_order: 9,
            nominal_order: vec![0, 1, 2],
            nominal: (30_000.0, 3.3),
            affine: vec![Some(ta), Some(tb), Some(tc)],
            note: None,
        };
        let input = ChartInput {
            scenario: "s".into(),
            base_tokens: 30_000.0,
            bytes_per_token: 3.3,
            sources: Default::default(),
            edits: vec!["a".into(), "b".into(), "c".into()],
            savings: None,
            ranking: Some(plane.clone()),
            ranking_cost: None,
            context: vec![],
            totals: vec![],
            totals_cost: None,
            cost: None,
        };
        (input, plane)
    }

    #[test]
    fn one_panel_per_flipping_pair_with_the_exact_curve() {
        let (input, plane) = plane(true);
        let chart = prepare(&input, &plane, FILE).unwrap();
        assert_eq!(chart.panels.len(), 1);
        let panel = &chart.panels[0];
        assert_eq!((panel.a, panel.b), (0, 1));
        assert!(panel.exact);
        // B* = 150,000 / ρ: at ρ = 4 it is 37,500, inside the plot.
        let want = panel.frame.to_px((37_500.0, 4.0));
        assert!(panel.curve_px.contains(&want), "{want:?} not on the curve");
        assert!(panel.flipped > 0 && panel.flipped < panel.cells);
        assert!(draw(&chart).is_ok());
    }

    #[test]
    fn when_nothing_flips_the_closest_pair_is_drawn() {
        let (input, plane) = plane(false);
        let chart = prepare(&input, &plane, FILE).unwrap();
        assert_eq!(chart.panels.len(), 1);
        assert!(!chart.flips);
        assert!(
            chart
                .title
                .contains("the ranking holds at every point; closest pair: a vs b"),
            "{}",
            chart.title
        );
    }
}
