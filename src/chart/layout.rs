//! The frame every chart shares: the title band on top and the legend column on the right,
//! both outside the plot so they never cover data.

use plotters::drawing::DrawingAreaErrorKind;
use plotters::element::DashedPathElement;
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
    /// A short horizontal line with a mark: dashed or dotted (an edit past the eighth).
    MarkedLine(RGBColor, u32, style::Mark),
    /// A filled square with a mark: hatched or cross-hatched (an edit past the eighth).
    MarkedSwatch(RGBColor, style::Mark),
    /// A wide line in one colour with a thin one in another inside it: two runs that
    /// coincide, the later drawn inside the earlier.
    Nested(RGBColor, RGBColor),
    /// A short vertical line (a marker across the plot, like the nominal value).
    Rule(RGBColor, u32),
    /// The break-even marker: a ring.
    Ring,
    /// A small dot (a sampled point).
    Dot,
    /// A dot in a colour, as large as the plot's (one session).
    Spot(RGBColor),
    /// A square, left half in one colour and right half in another.
    TwoTone(RGBColor, RGBColor),
    /// A filled square hatched with diagonal lines (fill, lines).
    Hatched(RGBColor, RGBColor),
    /// A marker shape in ink (what caused a cache write).
    Marker(Marker),
    /// An outlined square (a total drawn as an outline beside filled dots).
    Outline,
    /// A horizontal whisker with end caps (a range of values).
    Whisker,
    /// No key: a heading or a note.
    Heading,
    /// No key, but indented like a keyed line: an item under the line above.
    Indent,
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

/// The legend key of a run's line: its colour, and its mark past the eighth edit.
pub(crate) fn line_key(edit: Option<usize>, width: u32) -> Key {
    let colour = style::run_colour(edit);
    match style::run_mark(edit) {
        style::Mark::Solid => Key::Line(colour, width),
        mark => Key::MarkedLine(colour, width, mark),
    }
}

/// The legend key of an edit's bar or area: its colour, and its mark past the eighth edit.
pub(crate) fn swatch_key(edit: Option<usize>, opacity: f64) -> Key {
    let colour = style::run_colour(edit);
    match style::run_mark(edit) {
        style::Mark::Solid => Key::Swatch(colour, opacity),
        // An opacity over white, as a solid colour the hatching can sit on.
        mark => Key::MarkedSwatch(style::tint(colour, 1.0 - opacity), mark),
    }
}

/// A filled px rectangle in `colour`, hatched (white) as `mark` says, so that two edits
/// of one colour stay apart.
pub(crate) fn draw_marked_rect(
    root: &Area,
    (x0, y0, x1, y1): (i32, i32, i32, i32),
    colour: RGBColor,
    mark: style::Mark,
    chart: &'static str,
) -> Result<(), ChartError> {
    let (x0, x1) = (x0.min(x1), x0.max(x1));
    let (y0, y1) = (y0.min(y1), y0.max(y1));
    root.draw(&Rectangle::new([(x0, y0), (x1, y1)], colour.filled()))
        .map_err(drawing(chart))?;
    draw_mark(root, (x0, y0, x1, y1), mark, chart)
}

/// The hatching of `mark` over the px rectangle, in white: none for solid.
pub(crate) fn draw_mark(
    root: &Area,
    rect: (i32, i32, i32, i32),
    mark: style::Mark,
    chart: &'static str,
) -> Result<(), ChartError> {
    let lines = match mark {
        style::Mark::Solid => Vec::new(),
        style::Mark::Dashed => style::hatch_lines(rect),
        style::Mark::Dotted => {
            let mut both = style::hatch_lines(rect);
            both.extend(style::back_hatch_lines(rect));
            both
        }
    };
    for (from, to) in lines {
        root.draw(&PathElement::new(
            vec![from, to],
            BACKGROUND.stroke_width(1),
        ))
        .map_err(drawing(chart))?;
    }
    Ok(())
}

/// Left edge of the legend column, in px.
pub(crate) const LEGEND_X: i32 = WIDTH_PX as i32 - LEGEND_WIDTH_PX;
/// Room for a legend label beside its key, in px: labels wrap, never run off the page.
const LABEL_PX: i32 = LEGEND_WIDTH_PX - 38 - MARGIN_PX;
/// Room for a heading (no key before it), in px.
const HEADING_PX: i32 = LEGEND_WIDTH_PX - 8 - MARGIN_PX;
/// Lines a legend label or note may take before it is cut with `…`.
const LABEL_LINES: usize = 3;
const NOTE_LINES: usize = 4;
/// Height of a wrapped label's further lines and of a note's lines, in px.
const MORE_LINE_PX: i32 = 18;
/// Height of a title line and of a subtitle line, in px.
const TITLE_LINE_PX: i32 = 28;
const SUBTITLE_LINE_PX: i32 = 19;
/// Room for the title and subtitle: the page less its margins.
const TITLE_PX: i32 = WIDTH_PX as i32 - 2 * MARGIN_PX - 8;

/// Names for keyed legend lines: whole where they fit the label's lines, else cut where
/// they agree with the others ([`style::apart`]), so that no two read alike.
pub(crate) fn legend_names(names: &[String]) -> Vec<String> {
    style::apart(names, |n| {
        style::wrap(n, LABEL_PX, LABEL_SIZE, LABEL_LINES)
            .last()
            .is_none_or(|l| !l.ends_with('…'))
    })
}

/// An entry's label and note as they are drawn, line by line.
fn entry_lines(entry: &Entry) -> (Vec<String>, Vec<String>) {
    let (label_px, font) = match entry.key {
        Key::Heading => (HEADING_PX, LABEL_SIZE * 1.08),
        _ => (LABEL_PX, LABEL_SIZE),
    };
    let label = style::wrap(&style::clean(&entry.label), label_px, font, LABEL_LINES);
    let note = entry
        .note
        .as_ref()
        .map(|n| style::wrap(&style::clean(n), label_px, SMALL_SIZE, NOTE_LINES))
        .unwrap_or_default();
    (label, note)
}

/// Height of one entry, in px.
fn entry_height(entry: &Entry) -> i32 {
    let (label, note) = entry_lines(entry);
    LEGEND_LINE_PX
        + MORE_LINE_PX * (label.len() as i32 - 1)
        + (MORE_LINE_PX - 1) * note.len() as i32
}

/// Height the legend needs, in px.
pub(crate) fn legend_height(entries: &[Entry]) -> i32 {
    entries.iter().map(entry_height).sum()
}

/// The title (at most two lines) and subtitle (each `\n`-separated sentence wrapped, at most
/// five lines in all) as they are drawn.
fn title_lines(title: &str, subtitle: &str) -> (Vec<String>, Vec<String>) {
    let title = style::wrap(&style::clean(title), TITLE_PX, TITLE_SIZE * 1.08, 2);
    let mut lines: Vec<String> = subtitle
        .split('\n')
        .filter(|s| !s.trim().is_empty())
        .flat_map(|s| style::wrap(&style::clean(s), TITLE_PX, SUBTITLE_SIZE, 3))
        .collect();
    if lines.len() > 5 {
        lines.truncate(5);
        if let Some(last) = lines.last_mut() {
            last.push('…');
        }
    }
    (title, lines)
}

/// Height of the band that holds `title` and `subtitle`, in px: [`style::TITLE_BAND_PX`]
/// for one line of each, more when they wrap.
pub(crate) fn title_band_px(title: &str, subtitle: &str) -> i32 {
    let (title, subtitle) = title_lines(title, subtitle);
    style::TITLE_BAND_PX
        + TITLE_LINE_PX * (title.len() as i32 - 1)
        + SUBTITLE_LINE_PX * (subtitle.len().max(1) as i32 - 1)
}

/// Title and subtitle at the top left, wrapped to the page width.
pub(crate) fn draw_title(
    root: &Area,
    title: &str,
    subtitle: &str,
    chart: &'static str,
) -> Result<(), ChartError> {
    let err = drawing(chart);
    let left = MARGIN_PX + 4;
    let (title, subtitle) = title_lines(title, subtitle);
    let mut y = MARGIN_PX;
    for line in title {
        root.draw(&Text::new(
            line,
            (left, y),
            style::bold(TITLE_SIZE, INK, HPos::Left, VPos::Top),
        ))
        .map_err(&err)?;
        y += TITLE_LINE_PX;
    }
    for line in subtitle {
        root.draw(&Text::new(
            line,
            (left, y),
            style::text(SUBTITLE_SIZE, MUTED, HPos::Left, VPos::Top),
        ))
        .map_err(&err)?;
        y += SUBTITLE_LINE_PX;
    }
    Ok(())
}

/// Title, subtitle and the legend column drawn on `root`; returns the area left of the
/// legend for a plot of `plot_px` (its axes included) under the title band.
pub(crate) fn framed<'a>(
    root: &Area<'a>,
    (title, subtitle): (&str, &str),
    legend: &[Entry],
    plot_px: i32,
    chart: &'static str,
) -> Result<Area<'a>, ChartError> {
    let band = title_band_px(title, subtitle);
    draw_title(root, title, subtitle, chart)?;
    draw_legend(root, band + 14, legend, chart)?;
    let height = root.dim_in_pixel().1 as i32;
    Ok(root.margin(
        band + 8,
        height - (band + 16 + plot_px),
        MARGIN_PX,
        LEGEND_WIDTH_PX + 8,
    ))
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

/// The legend column, its first line at `top`. Labels and notes wrap to the column.
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
        let (label, note) = entry_lines(entry);
        let mut line_y = middle;
        for line in label {
            root.draw(&Text::new(line, (label_x, line_y), font.clone()))
                .map_err(&err)?;
            line_y += MORE_LINE_PX;
        }
        for line in note {
            root.draw(&Text::new(
                line,
                (label_x, line_y - 2),
                style::text(SMALL_SIZE, MUTED, HPos::Left, VPos::Center),
            ))
            .map_err(&err)?;
            line_y += MORE_LINE_PX - 1;
        }
        y += entry_height(entry);
    }
    Ok(())
}

/// Diagonal 1 px lines in `colour` over the px rectangle `(x0, y0, x1, y1)`
/// ([`style::hatch_lines`]).
pub(crate) fn draw_hatch(
    root: &Area,
    rect: (i32, i32, i32, i32),
    colour: RGBColor,
    chart: &'static str,
) -> Result<(), ChartError> {
    for (from, to) in style::hatch_lines(rect) {
        root.draw(&PathElement::new(vec![from, to], colour.stroke_width(1)))
            .map_err(drawing(chart))?;
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
        Key::Hatched(fill, lines) => {
            root.draw(&Rectangle::new(
                [(left, top), (right, bottom)],
                fill.filled(),
            ))
            .map_err(&err)?;
            draw_hatch(root, (left, top, right, bottom), lines, chart)?;
            Ok(())
        }
        Key::Line(colour, width) => root.draw(&Rectangle::new(
            [
                (left, y - width as i32 / 2),
                (right, y + (width as i32 + 1) / 2),
            ],
            colour.filled(),
        )),
        Key::MarkedLine(colour, width, mark) => {
            let (on, off) = style::dashes(mark).unwrap_or((22, 0));
            root.draw(&DashedPathElement::new(
                vec![(left, y), (right + 1, y)],
                on,
                off,
                colour.stroke_width(width),
            ))
        }
        Key::Nested(outer, inner) => {
            root.draw(&Rectangle::new(
                [(left, y - 4), (right, y + 4)],
                outer.filled(),
            ))
            .map_err(&err)?;
            root.draw(&Rectangle::new(
                [(left, y - 1), (right, y + 1)],
                inner.filled(),
            ))
        }
        Key::MarkedSwatch(colour, mark) => {
            return draw_marked_rect(root, (left, top, right, bottom), colour, mark, chart);
        }
        Key::Rule(colour, width) => root.draw(&Rectangle::new(
            [
                (x + 11 - width as i32 / 2, top - 2),
                (x + 11 + (width as i32 + 1) / 2, bottom + 2),
            ],
            colour.filled(),
        )),
        Key::Ring => root.draw(&Circle::new((x + 11, y), 6, INK.stroke_width(2))),
        Key::TwoTone(first, second) => {
            root.draw(&Rectangle::new(
                [(left, top), (x + 11, bottom)],
                first.filled(),
            ))
            .map_err(&err)?;
            root.draw(&Rectangle::new(
                [(x + 11, top), (right, bottom)],
                second.filled(),
            ))
        }
        Key::Dot => root.draw(&Circle::new((x + 11, y), 2, INK.mix(0.75).filled())),
        Key::Spot(colour) => root.draw(&Circle::new((x + 11, y), 4, colour.filled())),
        Key::Marker(shape) => return marker(root, shape, (x + 11, y), chart),
        Key::Outline => root.draw(&Rectangle::new(
            [(left, top), (right, bottom)],
            INK.stroke_width(3),
        )),
        Key::Whisker => {
            for path in [
                vec![(left, y), (right, y)],
                vec![(left, y - 5), (left, y + 5)],
                vec![(right, y - 5), (right, y + 5)],
            ] {
                root.draw(&PathElement::new(path, INK.stroke_width(2)))
                    .map_err(&err)?;
            }
            Ok(())
        }
        Key::Heading | Key::Indent => Ok(()),
    }
    .map_err(err)
}

/// A marker shape, drawn in ink on a white halo so it reads on any bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    /// An upward triangle.
    Triangle,
    /// A filled circle.
    Circle,
    /// A filled square.
    Square,
    /// A diamond.
    Diamond,
    /// A diamond's outline (an open diamond).
    OpenDiamond,
    /// A triangle pointing down.
    Down,
    /// A ring (an open circle).
    Ring,
}

/// Draws `shape` centred on `(x, y)`, about 9 px across.
pub(crate) fn marker(
    root: &Area,
    shape: Marker,
    (x, y): (i32, i32),
    chart: &'static str,
) -> Result<(), ChartError> {
    let err = drawing(chart);
    match shape {
        Marker::Circle => {
            root.draw(&Circle::new((x, y), 5, BACKGROUND.filled()))
                .map_err(&err)?;
            root.draw(&Circle::new((x, y), 4, INK.filled()))
        }
        Marker::Ring => {
            root.draw(&Circle::new((x, y), 5, BACKGROUND.filled()))
                .map_err(&err)?;
            root.draw(&Circle::new((x, y), 4, INK.stroke_width(2)))
        }
        Marker::Square => {
            root.draw(&Rectangle::new(
                [(x - 5, y - 5), (x + 5, y + 5)],
                BACKGROUND.filled(),
            ))
            .map_err(&err)?;
            root.draw(&Rectangle::new(
                [(x - 4, y - 4), (x + 4, y + 4)],
                INK.filled(),
            ))
        }
        Marker::Triangle => filled_polygon(
            root,
            (x, y),
            &[(0, -7), (7, 5), (-7, 5)],
            &[(0, -5), (5, 4), (-5, 4)],
        ),
        Marker::Diamond => filled_polygon(
            root,
            (x, y),
            &[(0, -7), (7, 0), (0, 7), (-7, 0)],
            &[(0, -5), (5, 0), (0, 5), (-5, 0)],
        ),
        Marker::Down => filled_polygon(
            root,
            (x, y),
            &[(-7, -5), (7, -5), (0, 7)],
            &[(-5, -4), (5, -4), (0, 5)],
        ),
        Marker::OpenDiamond => {
            root.draw(&Polygon::new(
                vec![(x, y - 8), (x + 8, y), (x, y + 8), (x - 8, y)],
                BACKGROUND.filled(),
            ))
            .map_err(&err)?;
            root.draw(&PathElement::new(
                vec![(x, y - 6), (x + 6, y), (x, y + 6), (x - 6, y), (x, y - 6)],
                INK.stroke_width(2),
            ))
        }
    }
    .map_err(err)
}

/// A polygon marker at `(x, y)`: the `halo` offsets filled white, the `ink` ones in ink.
fn filled_polygon(
    root: &Area,
    (x, y): (i32, i32),
    halo: &[(i32, i32)],
    ink: &[(i32, i32)],
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let at = |points: &[(i32, i32)]| -> Vec<(i32, i32)> {
        points.iter().map(|&(dx, dy)| (x + dx, y + dy)).collect()
    };
    root.draw(&Polygon::new(at(halo), BACKGROUND.filled()))?;
    root.draw(&Polygon::new(at(ink), INK.filled()))
}

/// Height of one line of a bar's name, px.
pub(crate) const BAR_NAME_LINE_PX: i32 = 17;

/// What [`draw_bar_name`] puts between a name and the plot: gap, swatch and padding, px.
const BAR_NAME_EXTRA_PX: i32 = 40;

/// Width of the name column that [`draw_bar_name`] needs for `lines` (every line of every
/// name), px.
pub(crate) fn bar_names_px<'a>(lines: impl IntoIterator<Item = &'a String>) -> i32 {
    lines
        .into_iter()
        .map(|l| style::text_width_px(l, LABEL_SIZE))
        .max()
        .unwrap_or(0)
        + BAR_NAME_EXTRA_PX
}

/// A bar chart's row label: the name's lines right-aligned left of the plot's edge `left`,
/// centred on `y`, with a swatch of the bar's colour between them and the plot (the
/// legend of a bar chart).
pub(crate) fn draw_bar_name(
    root: &Area,
    (left, y): (i32, i32),
    lines: &[String],
    edit: usize,
    chart: &'static str,
) -> Result<(), ChartError> {
    let err = drawing(chart);
    let first = y - BAR_NAME_LINE_PX * (lines.len() as i32 - 1) / 2;
    for (k, line) in lines.iter().enumerate() {
        root.draw(&Text::new(
            line.clone(),
            (left - 30, first + BAR_NAME_LINE_PX * k as i32),
            style::text(LABEL_SIZE, INK, HPos::Right, VPos::Center),
        ))
        .map_err(&err)?;
    }
    draw_marked_rect(
        root,
        (left - 22, y - 7, left - 8, y + 7),
        style::edit_colour(edit),
        style::edit_mark(edit),
        chart,
    )
}
