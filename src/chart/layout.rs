//! The frame every chart shares: the title band on top and the legend column on the right,
//! both outside the plot so they never cover data.

use plotters::prelude::{Circle, Color, FontTransform, PathElement, Polygon, Rectangle, Text};
use plotters::style::text_anchor::{HPos, VPos};

use super::style::{
    self, BACKGROUND, INK, LABEL_SIZE, LEGEND_LINE_PX, LEGEND_WIDTH_PX, MARGIN_PX, MUTED,
    SMALL_SIZE, SUBTITLE_SIZE, TITLE_SIZE, WIDTH_PX,
};
use super::{Area, ChartError, drawing};
use plotters::prelude::RGBColor;

/// What a legend line shows before its label.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Key {
    /// A filled square in a colour, at an opacity (1.0: solid).
    Swatch(RGBColor, f64),
    /// A short horizontal line.
    Line(RGBColor, u32),
    /// A short vertical line (a marker across the plot, like the nominal value).
    Rule(RGBColor, u32),
    /// The break-even marker: a ring.
    Ring,
    /// A tie: stripes of two edit colours.
    Stripes,
    /// The flip mark of the ranking map: a cross on a light square.
    Cross,
    /// The nominal cell of the ranking map: a thick outline.
    Outline,
    /// No key: a heading or a note.
    Heading,
}

/// One line of the legend, with an optional second line in smaller, muted text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub key: Key,
    pub label: String,
    pub note: Option<String>,
}

impl Entry {
    pub fn new(key: Key, label: impl Into<String>) -> Self {
        Self {
            key,
            label: label.into(),
            note: None,
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }
}

/// Left edge of the legend column, in px.
pub(crate) const LEGEND_X: i32 = WIDTH_PX as i32 - LEGEND_WIDTH_PX;
/// Characters of a legend label that fit beside its key.
const LABEL_CHARS: usize = 27;
/// Characters of a legend note.
const NOTE_CHARS: usize = 31;

/// Height the legend needs, in px.
pub(crate) fn legend_height(entries: &[Entry]) -> i32 {
    entries
        .iter()
        .map(|e| {
            LEGEND_LINE_PX
                + if e.note.is_some() {
                    LEGEND_LINE_PX - 4
                } else {
                    0
                }
        })
        .sum()
}

/// Title and subtitle at the top left.
pub(crate) fn draw_title(
    root: &Area,
    title: &str,
    subtitle: &str,
    chart: &'static str,
) -> Result<(), ChartError> {
    let err = drawing(chart);
    let left = MARGIN_PX + 4;
    root.draw(&Text::new(
        title.to_string(),
        (left, MARGIN_PX),
        style::bold(TITLE_SIZE, INK, HPos::Left, VPos::Top),
    ))
    .map_err(&err)?;
    root.draw(&Text::new(
        subtitle.to_string(),
        (left, MARGIN_PX + 28),
        style::text(SUBTITLE_SIZE, MUTED, HPos::Left, VPos::Top),
    ))
    .map_err(&err)
}

/// An axis description rotated to read bottom-up, centred on `(x, y)`.
pub(crate) fn draw_vertical_label(
    root: &Area,
    label: &str,
    (x, y): (i32, i32),
    chart: &'static str,
) -> Result<(), ChartError> {
    let font = style::text(LABEL_SIZE, INK, HPos::Center, VPos::Center)
        .transform(FontTransform::Rotate270);
    root.draw(&Text::new(label.to_string(), (x, y), font))
        .map_err(drawing(chart))
}

/// An axis description centred on `(x, y)`.
pub(crate) fn draw_label(
    root: &Area,
    label: &str,
    (x, y): (i32, i32),
    chart: &'static str,
) -> Result<(), ChartError> {
    root.draw(&Text::new(
        label.to_string(),
        (x, y),
        style::text(LABEL_SIZE, INK, HPos::Center, VPos::Center),
    ))
    .map_err(drawing(chart))
}

/// The legend column, its first line at `top`.
pub(crate) fn draw_legend(
    root: &Area,
    top: i32,
    entries: &[Entry],
    chart: &'static str,
) -> Result<(), ChartError> {
    let err = drawing(chart);
    let x = LEGEND_X + 8;
    let mut y = top;
    for entry in entries {
        let middle = y + LEGEND_LINE_PX / 2;
        draw_key(root, entry.key, (x, middle), chart)?;
        let (label_x, font) = match entry.key {
            Key::Heading => (x, style::bold(LABEL_SIZE, INK, HPos::Left, VPos::Center)),
            _ => (
                x + 30,
                style::text(LABEL_SIZE, INK, HPos::Left, VPos::Center),
            ),
        };
        root.draw(&Text::new(
            style::truncate(&entry.label, LABEL_CHARS),
            (label_x, middle),
            font,
        ))
        .map_err(&err)?;
        y += LEGEND_LINE_PX;
        if let Some(note) = &entry.note {
            root.draw(&Text::new(
                style::truncate(note, NOTE_CHARS),
                (label_x, y + (LEGEND_LINE_PX - 4) / 2 - 2),
                style::text(SMALL_SIZE, MUTED, HPos::Left, VPos::Center),
            ))
            .map_err(&err)?;
            y += LEGEND_LINE_PX - 4;
        }
    }
    Ok(())
}

fn draw_key(
    root: &Area,
    key: Key,
    (x, y): (i32, i32),
    chart: &'static str,
) -> Result<(), ChartError> {
    let err = drawing(chart);
    let (left, right, top, bottom) = (x, x + 22, y - 7, y + 7);
    match key {
        Key::Swatch(colour, opacity) => root.draw(&Rectangle::new(
            [(left, top), (right, bottom)],
            colour.mix(opacity).filled(),
        )),
        Key::Line(colour, width) => root.draw(&Rectangle::new(
            [
                (left, y - width as i32 / 2),
                (right, y + (width as i32 + 1) / 2),
            ],
            colour.filled(),
        )),
        Key::Rule(colour, width) => root.draw(&Rectangle::new(
            [
                (x + 11 - width as i32 / 2, top - 2),
                (x + 11 + (width as i32 + 1) / 2, bottom + 2),
            ],
            colour.filled(),
        )),
        Key::Ring => {
            root.draw(&Circle::new((x + 11, y), 6, BACKGROUND.filled()))
                .map_err(&err)?;
            root.draw(&Circle::new((x + 11, y), 6, INK.stroke_width(2)))
        }
        Key::Stripes => {
            let mid = x + 11;
            root.draw(&Rectangle::new(
                [(left, top), (mid, bottom)],
                style::edit_colour(0).filled(),
            ))
            .map_err(&err)?;
            root.draw(&Rectangle::new(
                [(mid, top), (right, bottom)],
                style::edit_colour(1).filled(),
            ))
        }
        Key::Cross => {
            root.draw(&Rectangle::new(
                [(left, top), (right, bottom)],
                style::TIE.filled(),
            ))
            .map_err(&err)?;
            cross(root, (left + 4, top + 1), (right - 4, bottom - 1), 2, chart)?;
            Ok(())
        }
        Key::Outline => root.draw(&PathElement::new(
            vec![
                (left, top),
                (right, top),
                (right, bottom),
                (left, bottom),
                (left, top),
            ],
            INK.stroke_width(3),
        )),
        Key::Heading => Ok(()),
    }
    .map_err(err)
}

/// A bold × from corner to corner of a box: black on a white halo, readable on any fill.
pub(crate) fn cross(
    root: &Area,
    (left, top): (i32, i32),
    (right, bottom): (i32, i32),
    width: u32,
    chart: &'static str,
) -> Result<(), ChartError> {
    let err = drawing(chart);
    for (colour, stroke) in [(BACKGROUND, width + 2), (RGBColor(0, 0, 0), width)] {
        root.draw(&PathElement::new(
            vec![(left, top), (right, bottom)],
            colour.stroke_width(stroke),
        ))
        .map_err(&err)?;
        root.draw(&PathElement::new(
            vec![(left, bottom), (right, top)],
            colour.stroke_width(stroke),
        ))
        .map_err(&err)?;
    }
    Ok(())
}

/// A filled polygon in pixel coordinates.
pub(crate) fn polygon(
    root: &Area,
    points: Vec<(i32, i32)>,
    colour: RGBColor,
    chart: &'static str,
) -> Result<(), ChartError> {
    root.draw(&Polygon::new(points, colour.filled()))
        .map_err(drawing(chart))
}
