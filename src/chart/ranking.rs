//! `ranking.svg`: the sweep grid as a map. Each cell is filled with the colour of the edit
//! that saves most there; a cross marks cells whose full order differs from the nominal
//! order (the ranking does not hold there); the nominal cell is outlined.

use plotters::prelude::{Color, IntoDrawingArea, PathElement, Rectangle, SVGBackend, Text};
use plotters::style::text_anchor::{HPos, VPos};

use super::layout::{self, Entry, Key, LEGEND_X};
use super::style::{
    self, BACKGROUND, INK, MARGIN_PX, SMALL_SIZE, TICK_SIZE, TIE, TITLE_BAND_PX, WIDTH_PX,
};
use super::{ChartError, ChartInput, RankingMap, drawing};

/// File name of this chart.
pub const FILE: &str = "ranking.svg";

/// Left edge of the map: room for the vertical axis description and the row labels.
const PLOT_LEFT_PX: i32 = MARGIN_PX + 92;
/// Top edge of the map.
const PLOT_TOP_PX: i32 = TITLE_BAND_PX + 14;
/// Room for the map: it ends 24 px before the legend column.
const PLOT_MAX_WIDTH_PX: i32 = LEGEND_X - 24 - PLOT_LEFT_PX;
const PLOT_MAX_HEIGHT_PX: i32 = 540;
/// Largest cell, so a 1×1 or 3×3 grid does not become a poster.
const CELL_MAX_WIDTH_PX: i32 = 120;
const CELL_MAX_HEIGHT_PX: i32 = 64;
/// A map this short at least, so the rotated axis description fits beside it.
const PLOT_MIN_HEIGHT_PX: i32 = 220;
/// Below this size a cell carries no text (its colour and mark still say it all).
const CELL_TEXT_MIN_WIDTH_PX: i32 = 30;
const CELL_TEXT_MIN_HEIGHT_PX: i32 = 20;
/// Least spacing between axis labels.
const COLUMN_LABEL_SPACING_PX: i32 = 56;
const ROW_LABEL_SPACING_PX: i32 = 18;
/// Room below the map for column labels and the axis description.
const BELOW_PLOT_PX: i32 = 64;

/// The ranking map, laid out in px.
#[derive(Debug, Clone, PartialEq)]
pub struct RankingChart {
    pub title: String,
    pub subtitle: String,
    /// Edit names, by edit index (legend).
    pub edits: Vec<String>,
    /// One per grid point, row by row from the top (highest bytes per token) down.
    pub cells: Vec<Cell>,
    /// Labels under the columns (base tokens) and left of the rows (bytes per token).
    pub column_labels: Vec<AxisLabel>,
    pub row_labels: Vec<AxisLabel>,
    /// The map's outer edges, px: left, top, right, bottom.
    pub plot: (i32, i32, i32, i32),
    pub height_px: i32,
    pub has_ties: bool,
    pub has_flips: bool,
    pub has_nominal: bool,
}

/// One grid point.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Indices into the grid's `bytes_per_token` and `base_tokens`.
    pub row: usize,
    pub column: usize,
    /// Edges in px: left, top, right, bottom.
    pub rect: (i32, i32, i32, i32),
    /// Edits sharing first place; empty when the engine gave none (drawn neutral).
    pub winners: Vec<usize>,
    pub order_differs: bool,
    pub is_nominal: bool,
    /// The winners' legend numbers (`2`, `1=3`), when the cell is big enough to hold them.
    pub text: Option<String>,
}

/// A tick label.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisLabel {
    /// Centre of the labelled column or row, in px.
    pub at_px: i32,
    pub text: String,
    pub is_nominal: bool,
}

/// Cells and labels of `ranking.svg`.
pub fn prepare(input: &ChartInput, map: &RankingMap) -> Result<RankingChart, ChartError> {
    let (columns, rows) = (map.base_tokens.len(), map.bytes_per_token.len());
    check_shape(input, map)?;
    let edits = input.edits.clone();

    let cell_w = (PLOT_MAX_WIDTH_PX / columns.max(1) as i32).clamp(1, CELL_MAX_WIDTH_PX);
    let row_count = rows.max(1) as i32;
    let tallest = CELL_MAX_HEIGHT_PX.max(PLOT_MIN_HEIGHT_PX / row_count);
    let cell_h = (PLOT_MAX_HEIGHT_PX / row_count).clamp(1, tallest);
    let (left, top) = (PLOT_LEFT_PX, PLOT_TOP_PX);
    let right = left + cell_w * columns as i32;
    let bottom = top + cell_h * rows as i32;
    let with_text = cell_w >= CELL_TEXT_MIN_WIDTH_PX && cell_h >= CELL_TEXT_MIN_HEIGHT_PX;

    let mut cells = Vec::with_capacity(rows * columns);
    // The highest ρ is drawn on top, like a y axis.
    for (r, row) in map.cells.iter().enumerate().rev() {
        let y0 = top + cell_h * (rows - 1 - r) as i32;
        for (b, outcome) in row.iter().enumerate() {
            let x0 = left + cell_w * b as i32;
            let text = Some(numbers(&outcome.winners)).filter(|t| {
                with_text && !t.is_empty() && style::text_width_px(t, SMALL_SIZE) + 6 <= cell_w
            });
            cells.push(Cell {
                row: r,
                column: b,
                rect: (x0, y0, x0 + cell_w, y0 + cell_h),
                winners: outcome.winners.clone(),
                order_differs: outcome.order_differs,
                is_nominal: map.nominal == Some((b, r)),
                text,
            });
        }
    }

    let column_labels = thinned(columns, cell_w, COLUMN_LABEL_SPACING_PX)
        .filter_map(|b| {
            Some(AxisLabel {
                at_px: left + cell_w * b as i32 + cell_w / 2,
                text: style::short(*map.base_tokens.get(b)?),
                is_nominal: map.nominal.is_some_and(|(nb, _)| nb == b),
            })
        })
        .collect();
    let row_labels = thinned(rows, cell_h, ROW_LABEL_SPACING_PX)
        .filter_map(|r| {
            Some(AxisLabel {
                at_px: top + cell_h * (rows - 1 - r) as i32 + cell_h / 2,
                text: style::ratio(*map.bytes_per_token.get(r)?),
                is_nominal: map.nominal.is_some_and(|(_, nr)| nr == r),
            })
        })
        .collect();

    let subtitle = summary(map);
    Ok(RankingChart {
        title: format!(
            "{}: which edit saves most, ranked by {}",
            input.scenario, map.measure
        ),
        subtitle,
        edits,
        has_ties: cells.iter().any(|c| c.winners.len() > 1),
        has_flips: cells.iter().any(|c| c.order_differs),
        has_nominal: cells.iter().any(|c| c.is_nominal),
        cells,
        column_labels,
        row_labels,
        plot: (left, top, right, bottom),
        height_px: (bottom + BELOW_PLOT_PX + MARGIN_PX).max(PLOT_TOP_PX + 300),
    })
}

fn check_shape(input: &ChartInput, map: &RankingMap) -> Result<(), ChartError> {
    let bad = |message: String| {
        Err(ChartError::Data {
            chart: FILE,
            message,
        })
    };
    if map.cells.len() != map.bytes_per_token.len()
        || map
            .cells
            .iter()
            .any(|row| row.len() != map.base_tokens.len())
    {
        return bad(format!(
            "the cells do not form a {}×{} grid (rows: bytes per token, columns: base tokens)",
            map.bytes_per_token.len(),
            map.base_tokens.len()
        ));
    }
    if let Some((b, r)) = map.nominal
        && (b >= map.base_tokens.len() || r >= map.bytes_per_token.len())
    {
        return bad(format!("nominal cell ({b}, {r}) lies outside the grid"));
    }
    let edits = input.edits.len();
    if let Some(e) = map
        .cells
        .iter()
        .flatten()
        .flat_map(|c| &c.winners)
        .find(|&&e| e >= edits)
    {
        return bad(format!("winner {e}, but {edits} edits are named"));
    }
    Ok(())
}

/// Legend numbers of the winners: `2`, or `1=3` for a tie.
fn numbers(winners: &[usize]) -> String {
    winners
        .iter()
        .map(|w| (w + 1).to_string())
        .collect::<Vec<_>>()
        .join("=")
}

/// Which of `n` equally spaced positions (`step_px` apart) get a label, so labels are at
/// least `spacing_px` apart; the first is always labelled.
fn thinned(n: usize, step_px: i32, spacing_px: i32) -> impl Iterator<Item = usize> {
    let every = (spacing_px + step_px - 1) / step_px.max(1);
    (0..n).step_by(every.max(1) as usize)
}

/// What the map says, in words: does the ranking hold?
fn summary(map: &RankingMap) -> String {
    let all: Vec<_> = map.cells.iter().flatten().collect();
    let total = all.len();
    let same_order = all.iter().filter(|c| !c.order_differs).count();
    match map.nominal.and_then(|(b, r)| map.cells.get(r)?.get(b)) {
        Some(nominal) => {
            let same_winner = all.iter().filter(|c| c.winners == nominal.winners).count();
            let verdict = if same_order == total {
                "The ranking holds"
            } else {
                "The ranking does not hold"
            };
            format!(
                "{verdict}: nominal order at {same_order} of {total} points, \
                 nominal winner at {same_winner} of {total}."
            )
        }
        None => format!(
            "Nominal order at {same_order} of {total} points (the nominal point is off the grid)."
        ),
    }
}

/// Renders the chart as SVG text.
pub fn draw(chart: &RankingChart) -> Result<String, ChartError> {
    let err = drawing(FILE);
    let legend = legend(chart);
    let height = chart
        .height_px
        .max(PLOT_TOP_PX + layout::legend_height(&legend) + MARGIN_PX);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        layout::draw_title(&root, &chart.title, &chart.subtitle, FILE)?;
        layout::draw_legend(&root, PLOT_TOP_PX - 4, &legend, FILE)?;

        for cell in &chart.cells {
            draw_cell(&root, cell)?;
        }
        for cell in chart.cells.iter().filter(|c| c.is_nominal) {
            let (l, t, r, b) = cell.rect;
            root.draw(&PathElement::new(
                vec![(l, t), (r, t), (r, b), (l, b), (l, t)],
                INK.stroke_width(4),
            ))
            .map_err(&err)?;
        }

        let (left, top, right, bottom) = chart.plot;
        for label in &chart.column_labels {
            let font = if label.is_nominal {
                style::bold
            } else {
                style::text
            };
            root.draw(&Text::new(
                label.text.clone(),
                (label.at_px, bottom + 6),
                font(TICK_SIZE, INK, HPos::Center, VPos::Top),
            ))
            .map_err(&err)?;
        }
        for label in &chart.row_labels {
            let font = if label.is_nominal {
                style::bold
            } else {
                style::text
            };
            root.draw(&Text::new(
                label.text.clone(),
                (left - 6, label.at_px),
                font(TICK_SIZE, INK, HPos::Right, VPos::Center),
            ))
            .map_err(&err)?;
        }
        layout::draw_label(
            &root,
            "base tokens B (assumed), est. tokens",
            ((left + right) / 2, bottom + 42),
            FILE,
        )?;
        layout::draw_vertical_label(
            &root,
            "bytes per token ρ (assumed)",
            (MARGIN_PX + 10, (top + bottom) / 2),
            FILE,
        )?;
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

fn draw_cell(root: &super::Area, cell: &Cell) -> Result<(), ChartError> {
    let err = drawing(FILE);
    // A 1 px white gap between cells keeps neighbours of one colour countable.
    let (l, t, r, b) = cell.rect;
    let gap = i32::from(r - l >= 8 && b - t >= 8);
    let (r, b) = (r - gap, b - gap);
    let fill = match cell.winners.as_slice() {
        [only] => style::edit_colour(*only),
        _ => TIE,
    };
    // One rect per cell, always: a tie lays stripes of its winners' colours over it.
    root.draw(&Rectangle::new([(l, t), (r, b)], fill.filled()))
        .map_err(&err)?;
    if cell.winners.len() > 1 {
        let n = cell.winners.len() as i32;
        for (k, &w) in cell.winners.iter().enumerate() {
            let x0 = l + (r - l) * k as i32 / n;
            let x1 = l + (r - l) * (k as i32 + 1) / n;
            layout::polygon(
                root,
                vec![(x0, t), (x1, t), (x1, b), (x0, b)],
                style::edit_colour(w),
                FILE,
            )?;
        }
    }
    if cell.order_differs {
        // A square cross, two thirds of the cell's shorter side, centred.
        let half = ((r - l).min(b - t) / 3).max(1);
        let (cx, cy) = ((l + r) / 2, (t + b) / 2);
        let width = if r - l >= 24 { 3 } else { 2 };
        layout::cross(
            root,
            (cx - half, cy - half),
            (cx + half, cy + half),
            width,
            FILE,
        )?;
    }
    if let Some(text) = &cell.text {
        let ink = style::ink_on(fill);
        // With a cross, the number moves to the top-left corner so both stay legible.
        let (at, pos) = if cell.order_differs {
            ((l + 4, t + 3), (HPos::Left, VPos::Top))
        } else {
            (((l + r) / 2, (t + b) / 2), (HPos::Center, VPos::Center))
        };
        root.draw(&Text::new(
            text.clone(),
            at,
            style::bold(SMALL_SIZE, ink, pos.0, pos.1),
        ))
        .map_err(&err)?;
    }
    Ok(())
}

fn legend(chart: &RankingChart) -> Vec<Entry> {
    let mut entries = vec![Entry::new(Key::Heading, "winner")];
    entries.extend(chart.edits.iter().enumerate().map(|(e, name)| {
        Entry::new(
            Key::Swatch(style::edit_colour(e), 1.0),
            format!("{} {name}", e + 1),
        )
    }));
    if chart.has_ties {
        entries
            .push(Entry::new(Key::Stripes, "tie for first").with_note("stripes: the tied edits"));
    }
    entries.push(Entry::new(Key::Heading, ""));
    if chart.has_flips {
        entries.push(
            Entry::new(Key::Cross, "order differs").with_note("from the nominal order: a flip"),
        );
    }
    if chart.has_nominal {
        entries.push(Entry::new(Key::Outline, "nominal point"));
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::RankingCell;

    fn map(rows: usize, columns: usize) -> (ChartInput, RankingMap) {
        let cell = |w: usize| RankingCell {
            winners: vec![w],
            order_differs: false,
        };
        let mut cells = vec![vec![cell(0); columns]; rows];
        cells[0][0] = RankingCell {
            winners: vec![1],
            order_differs: true,
        };
        let map = RankingMap {
            base_tokens: (0..columns).map(|b| 10_000.0 * (b + 1) as f64).collect(),
            bytes_per_token: (0..rows).map(|r| 2.0 + 0.1 * r as f64).collect(),
            cells,
            nominal: Some((columns / 2, rows / 2)),
            measure: "reread tokens".into(),
        };
        let input = ChartInput {
            scenario: "s".into(),
            base_tokens: 30_000.0,
            bytes_per_token: 3.3,
            edits: vec!["a".into(), "b".into()],
            savings: None,
            ranking: Some(map.clone()),
            context: vec![],
            totals: vec![],
            cost: None,
        };
        (input, map)
    }

    #[test]
    fn one_cell_per_grid_point_lowest_rho_at_the_bottom() {
        let (input, map) = map(3, 3);
        let chart = prepare(&input, &map).unwrap();
        assert_eq!(chart.cells.len(), 9);
        let flipped = chart.cells.iter().find(|c| c.order_differs).unwrap();
        assert_eq!((flipped.row, flipped.column), (0, 0));
        assert_eq!(
            flipped.rect.3, chart.plot.3,
            "row 0 sits on the bottom edge"
        );
        assert_eq!(flipped.text.as_deref(), Some("2"));
        assert_eq!(chart.cells.iter().filter(|c| c.is_nominal).count(), 1);
        assert!(
            chart
                .subtitle
                .starts_with("The ranking does not hold: nominal order at 8 of 9")
        );
    }

    #[test]
    fn a_41_by_41_grid_fits_and_drops_cell_text() {
        let (input, map) = map(41, 41);
        let chart = prepare(&input, &map).unwrap();
        assert_eq!(chart.cells.len(), 41 * 41);
        assert!(chart.cells.iter().all(|c| c.text.is_none()));
        assert!(chart.plot.2 <= LEGEND_X - 24);
        assert!(chart.column_labels.len() < 41 && chart.column_labels.len() >= 5);
        assert!(draw(&chart).is_ok());
    }

    #[test]
    fn a_one_by_one_grid_is_drawn() {
        let (input, map) = map(1, 1);
        let chart = prepare(&input, &map).unwrap();
        assert_eq!(chart.cells.len(), 1);
        assert!(draw(&chart).is_ok());
    }

    #[test]
    fn winners_beyond_the_edits_are_an_error() {
        let (mut input, map) = map(2, 2);
        input.edits.pop();
        assert!(matches!(
            prepare(&input, &map),
            Err(ChartError::Data { .. })
        ));
    }

    #[test]
    fn thinned_labels_keep_their_spacing() {
        assert_eq!(thinned(5, 100, 56).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
        assert_eq!(thinned(41, 15, 56).collect::<Vec<_>>().len(), 11);
    }
}
