//! `tradeoff-<family>.svg` (`simulate suggest`): a parametric family of suggested edits
//! (cap sizes, context-editing triggers and keeps, compaction thresholds) as cost saved
//! against context removed, one dot per edit, with the Pareto front marked: the edits that
//! no other edit of the family, nor doing nothing, beats on both. The reader picks a point
//! on the front by how much context they can spare, instead of trusting one number.
//!
//! Cost saved is in dollars where every session is priced (the suggestion then ranks by
//! them, docs/model.md §4), else a percentage of the summed baseline cost in input-token
//! equivalents; the axis says which.

use plotters::element::DashedPathElement;
use plotters::prelude::{
    ChartBuilder, Circle, Color, IntoDrawingArea, PathElement, Rectangle, SVGBackend, Text,
};
use plotters::style::text_anchor::{HPos, VPos};

use super::layout::{self, Entry, Key, Marker};
use super::style::{
    self, BACKGROUND, INK, LEGEND_WIDTH_PX, MARGIN_PX, MUTED, NOMINAL_RULE, SMALL_SIZE, WIDTH_PX,
};
use super::{ChartError, drawing};

/// Height of the plot, px.
const PLOT_PX: i32 = 470;
/// Room for the x axis's ticks and description, px.
const BELOW_PLOT_PX: i32 = 58;
/// Room for the y axis's ticks and description, px.
const LEFT_OF_PLOT_PX: i32 = 78;
/// Width of the front's band, px.
const FRONT_PX: u32 = 9;
/// Longest point label, characters.
const LABEL_CHARS: usize = 28;

/// One family of edits, as the suggestion measured them.
#[derive(Debug, Clone, PartialEq)]
pub struct TradeoffInput {
    /// The chart's file name.
    pub file: &'static str,
    /// The history's name, for the title.
    pub name: String,
    /// The family, for people (`cap size`).
    pub family: String,
    pub sessions: usize,
    /// What [`TradeoffPoint::saved`] is in.
    pub saved_unit: SavedUnit,
    /// One curve per value of the other parameter (a tool, a keep count), in order.
    pub series: Vec<TradeoffSeries>,
    /// What a dot is, singular and plural (`suggested edit`, `schedule tried`).
    pub dots: (&'static str, &'static str),
    /// A bound no dot can pass, drawn as a dashed rule with its label (the schedule
    /// search's: what avoiding every cache break saves).
    pub bound: Option<(f64, String)>,
    /// Whether a series' dots are joined in order (a parameter's curve); the schedules of
    /// a grid are not in an order that a line would mean anything along.
    pub join: bool,
}

/// A point singled out on the chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// The family's default schedule.
    Naive,
    /// The one proposed.
    Chosen,
}

/// The unit of the cost saved (the y axis).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SavedUnit {
    /// Percent of the summed baseline cost, in input-token equivalents.
    PercentOfCost,
    /// US dollars, simulated (each call at its model's list price), summed over sessions.
    Dollars,
}

/// The edits of one curve, in the order of their parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct TradeoffSeries {
    pub label: String,
    pub points: Vec<TradeoffPoint>,
}

/// One edit.
#[derive(Debug, Clone, PartialEq)]
pub struct TradeoffPoint {
    /// Short, beside the dot (`Read p75`, `45k, keep 1`).
    pub label: String,
    /// Context removed, est. tokens, summed over the sessions.
    pub removed: f64,
    /// Cost saved, summed over the sessions, in the input's [`SavedUnit`].
    pub saved: f64,
    pub on_front: bool,
    /// Naive or chosen, drawn with its own marker and named in the legend.
    pub mark: Option<Mark>,
}

/// The chart, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct TradeoffChart {
    pub file: &'static str,
    pub title: String,
    pub subtitle: String,
    pub x_desc: String,
    pub y_desc: String,
    pub saved_unit: SavedUnit,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    pub series: Vec<TradeoffSeries>,
    /// The front as a path: doing nothing, then the front's edits by context removed.
    pub front: Vec<(f64, f64)>,
    /// How many edits are on the front, of all.
    pub on_front: usize,
    pub points: usize,
    pub bound: Option<(f64, String)>,
    pub join: bool,
    /// The legend's word for a dot, plural and capitalised (`Edits`).
    pub dots: String,
}

/// Series, axes and the front of one family.
pub fn prepare(input: &TradeoffInput) -> Result<TradeoffChart, ChartError> {
    let all: Vec<&TradeoffPoint> = input.series.iter().flat_map(|s| &s.points).collect();
    if all.is_empty() {
        return Err(ChartError::Data {
            chart: input.file,
            message: "a trade-off chart needs at least one edit".into(),
        });
    }
    if all
        .iter()
        .any(|p| !p.removed.is_finite() || !p.saved.is_finite())
    {
        return Err(ChartError::Data {
            chart: input.file,
            message: "a figure is not finite".into(),
        });
    }
    let mut front: Vec<(f64, f64)> = all
        .iter()
        .filter(|p| p.on_front)
        .map(|p| (p.removed, p.saved))
        .collect();
    front.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let on_front = front.len();
    front.insert(0, (0.0, 0.0));
    let (x_lo, x_hi) =
        style::finite_range(all.iter().map(|p| p.removed).chain([0.0])).unwrap_or((0.0, 1.0));
    if input.bound.as_ref().is_some_and(|b| !b.0.is_finite()) {
        return Err(ChartError::Data {
            chart: input.file,
            message: "the bound is not finite".into(),
        });
    }
    let (y_lo, y_hi) = style::finite_range(
        all.iter()
            .map(|p| p.saved)
            .chain([0.0])
            .chain(input.bound.as_ref().map(|b| b.0)),
    )
    .unwrap_or((0.0, 1.0));
    // Room on the right for the labels of the edits furthest out.
    let (x_lo, x_hi) = style::padded(x_lo, x_hi + 0.18 * (x_hi - x_lo), 0.04);
    let y_range = style::padded(y_lo, y_hi, 0.08);
    Ok(TradeoffChart {
        file: input.file,
        title: format!(
            "{}: {}: cost saved against context removed",
            input.name, input.family
        ),
        subtitle: format!(
            "One dot per {}, summed over {}. Up: more cost saved; right: more context the agent no longer sees.\n\
             Ringed and joined by the grey band: the Pareto front ({} of {}), the {} that no other here, nor doing nothing, beats on both: pick one by how much context you can spare.",
            input.dots.0,
            crate::number::plural(input.sessions, "session", "sessions"),
            on_front,
            all.len(),
            input.dots.1
        ),
        x_desc: "context removed, est. tokens (summed over sessions, each counted once)".into(),
        y_desc: match input.saved_unit {
            SavedUnit::PercentOfCost => {
                "cost saved, % of the summed baseline cost (input-token equivalents)".into()
            }
            SavedUnit::Dollars => {
                "cost saved, US dollars (simulated at list prices), summed over sessions".into()
            }
        },
        saved_unit: input.saved_unit,
        x_range: (x_lo.min(0.0), x_hi),
        y_range,
        series: input
            .series
            .iter()
            .map(|s| TradeoffSeries {
                label: style::clean(&s.label),
                points: s
                    .points
                    .iter()
                    .map(|p| TradeoffPoint {
                        label: style::truncate(&style::clean(&p.label), LABEL_CHARS),
                        ..p.clone()
                    })
                    .collect(),
            })
            .collect(),
        front,
        on_front,
        points: all.len(),
        bound: input
            .bound
            .as_ref()
            .map(|(y, l)| (*y, style::truncate(&style::clean(l), 60))),
        join: input.join,
        dots: {
            let mut w = input.dots.1.to_string();
            if let Some(c) = w.get(..1) {
                w.replace_range(..1, &c.to_uppercase());
            }
            w
        },
    })
}

fn legend(chart: &TradeoffChart) -> Vec<Entry> {
    let mut entries = vec![Entry::new(
        Key::Heading,
        format!("{}, one dot each", chart.dots),
    )];
    for (i, s) in chart.series.iter().enumerate() {
        entries.push(Entry::new(
            Key::Line(style::edit_colour(i), 2),
            s.label.clone(),
        ));
    }
    entries.push(Entry::new(Key::Heading, "Pareto front"));
    entries.push(
        Entry::new(
            Key::Marker(Marker::Ring),
            format!("on the front: {} of {}", chart.on_front, chart.points),
        )
        .with_note("no edit of the family saves more cost while removing no more context"),
    );
    entries.push(Entry::new(
        Key::Swatch(NOMINAL_RULE, 1.0),
        "the front, from doing nothing",
    ));
    entries.push(
        Entry::new(Key::Marker(Marker::Square), "doing nothing")
            .with_note("no context removed, no cost saved"),
    );
    let marked = |m| {
        chart
            .series
            .iter()
            .flat_map(|s| &s.points)
            .any(|p| p.mark == Some(m))
    };
    if marked(Mark::Naive) || marked(Mark::Chosen) {
        entries.push(Entry::new(Key::Heading, "Marked"));
    }
    if marked(Mark::Naive) {
        entries.push(
            Entry::new(Key::Marker(Marker::OpenDiamond), "naive")
                .with_note("the default: at the threshold, each time, no batch, not at cold"),
        );
    }
    if marked(Mark::Chosen) {
        entries.push(
            Entry::new(Key::Marker(Marker::Diamond), "chosen")
                .with_note("the cheapest, proposed in suggested.toml"),
        );
    }
    if let Some((_, label)) = &chart.bound {
        entries.push(
            Entry::new(Key::MarkedLine(INK, 1, BOUND_MARK), label.clone())
                .with_note("dashed: the upper bound (cache = { avoid = [every class] })"),
        );
    }
    entries
}

/// A box in px: left, top, right, bottom.
type PxBox = (i32, i32, i32, i32);

/// Whether two px boxes overlap.
fn overlaps(a: PxBox, b: PxBox) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Half the height of a label's box, px.
const LABEL_HALF_PX: i32 = 8;
/// From a dot's centre to the near edge of its label, px.
const LABEL_OFFSET_PX: i32 = 12;
/// Least room between two labels, and between a label and a dot or ring, px.
const LABEL_GAP_PX: i32 = 2;
/// A label moved further than this from its dot's height is joined to it by a rule, px.
const LEADER_PX: i32 = 6;

/// Where a point's label goes: its box, and which side of the dot it is on.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LabelPlace {
    rect: PxBox,
    right: bool,
}

/// Places one label per dot (`(x, y, label width)`, px) beside it, right of it if it fits
/// there, else left, at the dot's height or as little above or below it as clears every
/// label already placed and every box of `taken` (dots, rings, the origin), inside
/// `bounds`: a greedy vertical de-collision, dots taken from the top. None for a label
/// the plot has no room for at all.
fn place_labels(
    dots: &[(i32, i32, i32)],
    taken: &[PxBox],
    bounds: PxBox,
) -> Vec<Option<LabelPlace>> {
    let mut order: Vec<usize> = (0..dots.len()).collect();
    order.sort_by_key(|&i| (dots[i].1, dots[i].0));
    let mut placed: Vec<PxBox> = Vec::with_capacity(dots.len());
    let mut out = vec![None; dots.len()];
    let free = |rect: PxBox, placed: &[PxBox]| {
        let grown = (
            rect.0 - LABEL_GAP_PX,
            rect.1 - LABEL_GAP_PX,
            rect.2 + LABEL_GAP_PX,
            rect.3 + LABEL_GAP_PX,
        );
        rect.1 >= bounds.1
            && rect.3 <= bounds.3
            && !placed.iter().chain(taken).any(|&r| overlaps(r, grown))
    };
    for i in order {
        let (x, y, w) = dots[i];
        let sides: Vec<(bool, i32)> = [
            (true, x + LABEL_OFFSET_PX),
            (false, x - LABEL_OFFSET_PX - w),
        ]
        .into_iter()
        .filter(|&(_, left)| left >= bounds.0 && left + w <= bounds.2)
        .collect();
        let reach = bounds.3 - bounds.1;
        let found = (0..=reach)
            .flat_map(|d| [d, -d])
            .flat_map(|dy| sides.iter().map(move |&(right, left)| (right, left, dy)))
            .map(|(right, left, dy)| LabelPlace {
                rect: (
                    left,
                    y + dy - LABEL_HALF_PX,
                    left + w,
                    y + dy + LABEL_HALF_PX,
                ),
                right,
            })
            .find(|p| free(p.rect, &placed));
        if let Some(p) = found {
            placed.push(p.rect);
            out[i] = Some(p);
        }
    }
    out
}

/// A dashed horizontal rule at `y` from `x_lo` to `x_hi`: the bound, with the dash and gap
/// of the legend's sample ([`BOUND_MARK`]), in px, so the two look alike.
fn dashed(x_lo: f64, x_hi: f64, y: f64) -> DashedPathElement<std::vec::IntoIter<(f64, f64)>, u32> {
    let (on, off) = style::dashes(BOUND_MARK).unwrap_or((1, 0));
    DashedPathElement::new(vec![(x_lo, y), (x_hi, y)], on, off, INK.stroke_width(1))
}

/// The bound's line as the legend and the plot draw it.
const BOUND_MARK: style::Mark = style::Mark::Dashed;

/// Renders the chart as SVG text.
pub fn draw(chart: &TradeoffChart) -> Result<String, ChartError> {
    let err = drawing(chart.file);
    let legend = legend(chart);
    let band = layout::title_band_px(&chart.title, &chart.subtitle);
    let height = (band + 16 + PLOT_PX + BELOW_PLOT_PX + MARGIN_PX)
        .max(band + 16 + layout::legend_height(&legend) + MARGIN_PX);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        layout::draw_title(&root, &chart.title, &chart.subtitle, chart.file)?;
        layout::draw_legend(&root, band + 14, &legend, chart.file)?;
        let area = root.margin(
            band + 8,
            height - (band + 16 + PLOT_PX + BELOW_PLOT_PX),
            MARGIN_PX,
            LEGEND_WIDTH_PX + 8,
        );
        let (x_lo, x_hi) = chart.x_range;
        let (y_lo, y_hi) = chart.y_range;
        let mut plot = ChartBuilder::on(&area)
            .margin(8)
            .x_label_area_size(BELOW_PLOT_PX)
            .y_label_area_size(LEFT_OF_PLOT_PX)
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
            .map_err(&err)?;
        let step = (y_hi - y_lo) / 8.0;
        let decimals = style::decimals_for_step(step);
        let dollars = chart.saved_unit == SavedUnit::Dollars;
        let pct = |y: &f64| {
            if dollars {
                // The sign before the symbol, as money is written: -$0.50.
                let text = style::money_tick(y.abs(), step);
                let zero = style::money_tick(0.0, step);
                let sign = if *y < 0.0 && text != zero { "-" } else { "" };
                format!("{sign}${text}")
            } else {
                format!("{}%", style::fixed(*y, decimals))
            }
        };
        let tokens = |x: &f64| style::short(*x);
        style::house_mesh(&mut plot.configure_mesh())
            .x_labels(8)
            .y_labels(9)
            .x_label_formatter(&tokens)
            .y_label_formatter(&pct)
            .x_desc(chart.x_desc.clone())
            .y_desc(chart.y_desc.clone())
            .draw()
            .map_err(&err)?;
        // Zero lines: doing nothing is where they cross.
        plot.draw_series([
            PathElement::new(vec![(x_lo, 0.0), (x_hi, 0.0)], MUTED.stroke_width(1)),
            PathElement::new(vec![(0.0, y_lo), (0.0, y_hi)], MUTED.stroke_width(1)),
        ])
        .map_err(&err)?;
        if let Some((y, _)) = &chart.bound {
            plot.draw_series(std::iter::once(dashed(x_lo, x_hi, *y)))
                .map_err(&err)?;
        }
        // The front's band, under everything else.
        plot.draw_series([PathElement::new(
            chart.front.clone(),
            NOMINAL_RULE.stroke_width(FRONT_PX),
        )])
        .map_err(&err)?;
        for (i, s) in chart.series.iter().enumerate() {
            let colour = style::edit_colour(i);
            let path: Vec<(f64, f64)> = s.points.iter().map(|p| (p.removed, p.saved)).collect();
            if chart.join {
                plot.draw_series([PathElement::new(path.clone(), colour.stroke_width(2))])
                    .map_err(&err)?;
            }
            plot.draw_series(path.iter().map(|&xy| Circle::new(xy, 5, colour.filled())))
                .map_err(&err)?;
        }
        let (ox, oy) = plot.backend_coord(&(0.0, 0.0));
        layout::marker(&root, Marker::Square, (ox, oy), chart.file)?;
        // Rings of the front's edits; then a label beside every dot, clear of every other
        // label, dot and ring, joined to its dot by a rule where it had to move away.
        let mut taken: Vec<PxBox> = vec![(ox - 6, oy - 6, ox + 6, oy + 6)];
        let mut dots = Vec::new();
        let mut labelled = Vec::new();
        for s in &chart.series {
            for p in &s.points {
                let (x, y) = plot.backend_coord(&(p.removed, p.saved));
                if p.on_front {
                    root.draw(&Circle::new((x, y), 9, INK.stroke_width(2)))
                        .map_err(&err)?;
                    taken.push((x - 10, y - 10, x + 10, y + 10));
                } else {
                    taken.push((x - 5, y - 5, x + 5, y + 5));
                }
                match p.mark {
                    Some(Mark::Naive) => {
                        layout::marker(&root, Marker::OpenDiamond, (x, y), chart.file)?
                    }
                    Some(Mark::Chosen) => {
                        layout::marker(&root, Marker::Diamond, (x, y), chart.file)?
                    }
                    None => {}
                }
                // A dot without a label (a schedule off the front) is drawn, not named.
                if p.label.is_empty() {
                    continue;
                }
                dots.push((x, y, style::text_width_px(&p.label, SMALL_SIZE)));
                labelled.push(p);
            }
        }
        let (left, bottom) = plot.backend_coord(&(x_lo, y_lo));
        let (right, top) = plot.backend_coord(&(x_hi, y_hi));
        let places = place_labels(&dots, &taken, (left, top, right, bottom));
        for ((p, &(x, y, _)), place) in labelled.iter().zip(&dots).zip(&places) {
            let Some(LabelPlace { rect, right }) = *place else {
                continue;
            };
            let middle = (rect.1 + rect.3) / 2;
            if (middle - y).abs() > LEADER_PX {
                let (from, to) = if right {
                    ((x + 6, y), (rect.0 - 1, middle))
                } else {
                    ((x - 6, y), (rect.2 + 1, middle))
                };
                root.draw(&PathElement::new(vec![from, to], MUTED.stroke_width(1)))
                    .map_err(&err)?;
            }
            let colour = if p.on_front || p.mark.is_some() {
                INK
            } else {
                MUTED
            };
            root.draw(&Rectangle::new(
                [(rect.0 - 1, rect.1), (rect.2 + 1, rect.3)],
                BACKGROUND.mix(0.8).filled(),
            ))
            .map_err(&err)?;
            let (at, h) = if right {
                (rect.0, HPos::Left)
            } else {
                (rect.2, HPos::Right)
            };
            root.draw(&Text::new(
                p.label.clone(),
                (at, middle),
                style::text(SMALL_SIZE, colour, h, VPos::Center),
            ))
            .map_err(&err)?;
        }
        let left_out = places.iter().filter(|p| p.is_none()).count();
        if left_out > 0 {
            root.draw(&Text::new(
                format!(
                    "{} left out for room (the CSV has every edit)",
                    crate::number::plural(left_out, "label", "labels")
                ),
                (left + 6, bottom - 6),
                style::text(SMALL_SIZE, MUTED, HPos::Left, VPos::Bottom),
            ))
            .map_err(&err)?;
        }
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> TradeoffInput {
        let p = |label: &str, removed, saved, on_front| TradeoffPoint {
            label: label.into(),
            removed,
            saved,
            on_front,
            mark: None,
        };
        TradeoffInput {
            file: "tradeoff-cap.svg",
            name: "history".into(),
            family: "cap size".into(),
            sessions: 12,
            saved_unit: SavedUnit::PercentOfCost,
            series: vec![
                TradeoffSeries {
                    label: "Bash".into(),
                    points: vec![
                        p("Bash p75", 40_000.0, 6.0, true),
                        p("Bash p90", 20_000.0, 2.0, true),
                    ],
                },
                TradeoffSeries {
                    label: "Read".into(),
                    points: vec![
                        p("Read p75", 50_000.0, 5.0, false),
                        p("Read p90", 90_000.0, 9.0, true),
                    ],
                },
            ],
            dots: ("suggested edit", "edits"),
            bound: None,
            join: true,
        }
    }

    #[test]
    fn the_front_runs_from_doing_nothing_by_context_removed() {
        let chart = prepare(&input()).unwrap();
        assert_eq!(
            chart.front,
            vec![
                (0.0, 0.0),
                (20_000.0, 2.0),
                (40_000.0, 6.0),
                (90_000.0, 9.0)
            ]
        );
        assert_eq!((chart.on_front, chart.points), (3, 4));
        assert!(chart.subtitle.contains("(3 of 4)"), "{}", chart.subtitle);
        assert!(chart.x_range.0 <= 0.0 && chart.x_range.1 > 90_000.0);
        assert!(chart.y_range.0 < 0.0 && chart.y_range.1 > 9.0);
        let a = draw(&chart).unwrap();
        assert_eq!(a, draw(&prepare(&input()).unwrap()).unwrap());
        assert!(a.contains("Pareto front"));
    }

    /// Three curves of six edits each, packed into a corner: the labels have to move.
    fn crowded() -> TradeoffInput {
        let series = (0..3)
            .map(|s| TradeoffSeries {
                label: format!("keep {}", 2 * s + 1),
                points: (0..6)
                    .map(|k| TradeoffPoint {
                        label: format!("at {}k, keep {}", 40 + 5 * k, 2 * s + 1),
                        removed: 60_000.0 + 1_500.0 * f64::from(k) + 700.0 * f64::from(s),
                        saved: 4.0 + 0.3 * f64::from(k) + 0.1 * f64::from(s),
                        on_front: s == 0 || k == 5,
                        mark: None,
                    })
                    .collect(),
            })
            .collect();
        TradeoffInput {
            file: "tradeoff-context-editing.svg",
            name: "history".into(),
            family: "context editing".into(),
            sessions: 12,
            saved_unit: SavedUnit::PercentOfCost,
            series,
            dots: ("suggested edit", "edits"),
            bound: None,
            join: true,
        }
    }

    #[test]
    fn every_label_is_placed_and_none_overlaps_another_or_a_dot() {
        // Regression: labels tried eight spots around their dot and were dropped, unsaid,
        // where none was free (5 of these 18); now each moves up or down until it is clear.
        let dots: Vec<(i32, i32, i32)> = (0..18).map(|k| (300 + 4 * k, 300 - 3 * k, 90)).collect();
        let taken: Vec<PxBox> = dots
            .iter()
            .map(|&(x, y, _)| (x - 10, y - 10, x + 10, y + 10))
            .collect();
        let bounds = (100, 100, 700, 560);
        let places = place_labels(&dots, &taken, bounds);
        let rects: Vec<PxBox> = places.iter().map(|p| p.expect("placed").rect).collect();
        for (i, a) in rects.iter().enumerate() {
            assert!(a.0 >= bounds.0 && a.1 >= bounds.1 && a.2 <= bounds.2 && a.3 <= bounds.3);
            assert_eq!(a.2 - a.0, 90);
            for b in &rects[i + 1..] {
                assert!(!overlaps(*a, *b), "{a:?} and {b:?}");
            }
            for t in &taken {
                assert!(!overlaps(*a, *t), "{a:?} covers {t:?}");
            }
        }
        // A dot with room keeps its label at its own height, right of it.
        let alone = place_labels(&[(200, 200, 50)], &[], bounds);
        assert_eq!(
            alone,
            vec![Some(LabelPlace {
                rect: (212, 192, 262, 208),
                right: true
            })]
        );
        // No room right of the plot's edge: the label goes left.
        let edge = place_labels(&[(680, 200, 50)], &[], bounds);
        assert_eq!(edge[0].map(|p| (p.rect.2, p.right)), Some((668, false)));
    }

    #[test]
    fn the_drawn_labels_do_not_overlap() {
        // Read back from the SVG: every edit's label, each box (at the width the chart
        // reckons with) clear of every other.
        let input = crowded();
        let svg = draw(&prepare(&input).unwrap()).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let labels: Vec<String> = input
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.label.clone()))
            .collect();
        let boxes: Vec<PxBox> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter(|n| {
                labels
                    .iter()
                    .any(|l| Some(l.as_str()) == n.text().map(str::trim))
            })
            .map(|n| {
                let number = |a: &str| n.attribute(a).and_then(|v| v.parse::<f64>().ok()).unwrap();
                let (x, y) = (number("x") as i32, number("y") as i32);
                let w = style::text_width_px(n.text().unwrap().trim(), SMALL_SIZE);
                match n.attribute("text-anchor") {
                    Some("end") => (x - w, y - LABEL_HALF_PX, x, y + LABEL_HALF_PX),
                    _ => (x, y - LABEL_HALF_PX, x + w, y + LABEL_HALF_PX),
                }
            })
            .collect();
        assert_eq!(boxes.len(), labels.len());
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(!overlaps(*a, *b), "{a:?} and {b:?}");
            }
        }
        assert!(!svg.contains("left out for room"));
    }

    #[test]
    fn no_edit_or_a_non_finite_figure_is_an_error() {
        let mut empty = input();
        empty.series.clear();
        assert!(matches!(prepare(&empty), Err(ChartError::Data { .. })));
        let mut bad = input();
        bad.series[0].points[0].saved = f64::NAN;
        assert!(matches!(prepare(&bad), Err(ChartError::Data { .. })));
    }
}
