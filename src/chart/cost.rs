//! `cost.svg`: what the prompt cache does call by call, one panel per run: tokens read from
//! cache as a light area, tokens written to cache as bars. Most calls write only what
//! joined since the previous one; a tall bar rewrites the prefix, and a marker above it
//! says why: the first call, a pause longer than the TTL (the cache expired), a clearing
//! (the prefix changed), or a prefix below the minimum cacheable length.

use plotters::prelude::{
    ChartBuilder, Color, IntoDrawingArea, PathElement, Polygon, Rectangle, SVGBackend,
};
use plotters::style::text_anchor::{HPos, VPos};

use super::layout::{self, Entry, Key, LEGEND_X, Marker};
use super::reduce::{self, Peak};
use super::style::{
    self, AREA_OPACITY, BACKGROUND, BASELINE, INK, MARGIN_PX, SUBTITLE_SIZE, WIDTH_PX,
};
use super::{ChartError, ChartInput, CostSeries, WriteCause, drawing, edit_name};

/// File name of this chart.
pub const FILE: &str = "cost.svg";

/// Call buckets a long run is cut into: about the plot's width in px.
pub const PLOT_WIDTH_PX: usize = 620;
/// Height of one run's panel, in px.
const PANEL_PX: i32 = 180;
/// Room below the panels for the axis description, in px.
const BELOW_PANELS_PX: i32 = 36;
/// Half the width of a one-call bar, in calls.
const BAR_HALF_WIDTH: f64 = 0.35;
/// Every cause, in the enum's order.
const CAUSES: [WriteCause; 6] = [
    WriteCause::Growth,
    WriteCause::First,
    WriteCause::Expired,
    WriteCause::Clearing,
    WriteCause::Compaction,
    WriteCause::BelowMinimum,
];
/// Height of a clearing's tick under the call numbers, and room for the row, px.
const TICK_PX: i32 = 8;
const TICK_ROW_PX: i32 = 12;
/// Half the width of a bar for a request an edit adds (a tool search), in calls.
const ADDED_HALF_WIDTH: f64 = 0.15;
/// Panels get their own scales when the tallest run is this many times the shortest.
const OWN_SCALE_RATIO: f64 = 5.0;
/// A bar at least this share of the axis is a spike and gets its cause's marker.
const SPIKE_SHARE: f64 = 0.08;
/// Markers closer than this, in calls per plot width, give way to the taller bar's.
const MARKER_SPACING_PX: f64 = 11.0;

/// The cache chart, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct CostChart {
    pub title: String,
    pub subtitle: String,
    /// Shared vertical axis description, with the ρ the tokens are estimated with.
    pub y_desc: String,
    /// One per run: the baseline first, then the clearing edits.
    pub panels: Vec<CostPanel>,
    /// Shared axes: call number and tokens (the tallest panel's, when each has its own).
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    /// The cache's TTL, s, and minimum cacheable length, tokens, for the legend.
    pub ttl_s: f64,
    pub min_tokens: f64,
}

/// One run's cache traffic.
#[derive(Debug, Clone, PartialEq)]
pub struct CostPanel {
    pub name: String,
    pub edit: Option<usize>,
    pub calls: usize,
    pub cached_total: f64,
    pub written_total: f64,
    /// Tokens read from cache, `(call, tokens)`, reduced to the pixel width.
    pub cached: Vec<(f64, f64)>,
    /// Tokens written to cache: the highest per call, or per run of calls when reduced.
    pub written: Vec<Peak>,
    /// This panel's token axis: the chart's shared one, or its own when runs differ too much.
    pub y_range: (f64, f64),
    /// Spikes that carry a marker: `(call, tokens written, cause)`.
    pub spikes: Vec<(f64, f64, WriteCause)>,
    /// How many calls had each cause of a rewrite (growth left out), in cause order.
    pub cause_counts: Vec<(WriteCause, usize)>,
    /// Clearings in all, counting those where the cache had expired anyway.
    pub clearings: usize,
    /// Where each clearing happens, half a call before the call it precedes: a tick under
    /// the call numbers, at most one per pixel column.
    pub clearing_ticks: Vec<f64>,
    /// Compactions: each a request of its own, in the totals but not drawn as a bar; a
    /// triangle under the call numbers before the call it precedes.
    pub compactions: usize,
    pub compaction_ticks: Vec<f64>,
    /// Tool searches the edit adds: `(position, tokens written)`, half a call before the
    /// call each precedes.
    pub added: Vec<(f64, f64)>,
    /// The cache's time to live, s, when it is not the legend's (another cache's run).
    pub own_ttl_s: Option<f64>,
}

/// Panels and axes of `cost.svg`.
pub fn prepare(input: &ChartInput, series: &[CostSeries]) -> Result<CostChart, ChartError> {
    let mut panels = Vec::with_capacity(series.len());
    for run in series {
        if let Some(e) = run.edit {
            edit_name(input, e, FILE)?;
        }
        if run.cached_tokens.len() != run.written_tokens.len() {
            return Err(ChartError::Data {
                chart: FILE,
                message: format!(
                    "{}: {} cached values for {} written values",
                    run.name,
                    run.cached_tokens.len(),
                    run.written_tokens.len()
                ),
            });
        }
        let sum = |v: &[f64]| v.iter().filter(|x| x.is_finite()).sum::<f64>();
        // One counter per cause, in the enum's order (a million calls: no lookups).
        let mut counts = [0usize; CAUSES.len()];
        for &cause in &run.causes {
            counts[cause as usize] += 1;
        }
        let cause_counts: Vec<(WriteCause, usize)> = CAUSES
            .iter()
            .zip(counts)
            .filter(|&(&c, n)| c != WriteCause::Growth && n > 0)
            .map(|(&c, n)| (c, n))
            .collect();
        let calls_per_px = (run.cached_tokens.len() as f64 / PLOT_WIDTH_PX as f64).max(1.0);
        let ticks = |before: &[u32]| {
            let mut ticks: Vec<f64> = Vec::new();
            for &call in before {
                let x = f64::from(call) + 0.5;
                let column = |x: f64| (x / calls_per_px).floor();
                if ticks.last().is_none_or(|&last| column(last) != column(x)) {
                    ticks.push(x);
                }
            }
            ticks
        };
        let (added_cached, added_written) = run
            .added
            .iter()
            .fold((0.0, 0.0), |(c, w), a| (c + a.1, w + a.2));
        let legend_ttl = series.first().map_or(run.ttl_s, |s| s.ttl_s);
        panels.push(CostPanel {
            name: style::clean(&run.name),
            edit: run.edit,
            calls: run.cached_tokens.len(),
            // Every request's reads and writes: the calls', the added requests' and those
            // not drawn (compaction requests), as the totals of the text count them.
            cached_total: sum(&run.cached_tokens) + added_cached + run.not_drawn.0,
            written_total: sum(&run.written_tokens) + added_written + run.not_drawn.1,
            cached: reduce::min_max(&run.cached_tokens, PLOT_WIDTH_PX),
            written: reduce::peaks(&run.written_tokens, PLOT_WIDTH_PX),
            y_range: (0.0, 1.0),
            spikes: Vec::new(),
            cause_counts,
            clearings: run.clearings,
            clearing_ticks: ticks(&run.clearings_before),
            compactions: run.compactions_before.len(),
            compaction_ticks: ticks(&run.compactions_before),
            added: run
                .added
                .iter()
                .map(|a| (f64::from(a.0) + 0.5, a.2))
                .collect(),
            own_ttl_s: (run.ttl_s != legend_ttl).then_some(run.ttl_s),
        });
    }
    let longest = panels.iter().map(|p| p.calls).max().unwrap_or(0).max(1);
    // Room above the tallest bar for its marker.
    let top = |hi: f64| style::padded(0.0, hi.max(0.0), 0.06).1 * 1.1;
    let tops: Vec<f64> = panels
        .iter()
        .map(|p| {
            let values = p
                .cached
                .iter()
                .map(|c| c.1)
                .chain(p.written.iter().map(|w| w.max));
            top(style::finite_range(values).map_or(1.0, |(_, hi)| hi))
        })
        .collect();
    let highest = tops.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lowest = tops.iter().copied().fold(f64::INFINITY, f64::min);
    // One scale for all while the runs are alike; when one run dwarfs another (a clearing
    // that keeps the context small against a baseline that grows for a million calls)
    // each panel gets its own, or the smaller run would be a flat line.
    let own_scales = highest > OWN_SCALE_RATIO * lowest;
    let calls_per_px = longest as f64 / PLOT_WIDTH_PX as f64;
    for (k, (panel, run)) in panels.iter_mut().zip(series).enumerate() {
        let y_top = if own_scales { tops[k] } else { highest };
        panel.y_range = (0.0, y_top);
        panel.spikes = spikes(&panel.written, &run.causes, y_top, calls_per_px);
    }
    let y_range = (0.0, highest);
    let (ttl_s, min_tokens) = series
        .first()
        .map_or((0.0, 0.0), |s| (s.ttl_s, s.min_tokens));
    Ok(CostChart {
        ttl_s,
        min_tokens,
        title: format!(
            "{}: prompt cache per call, read and written",
            style::clean(&input.scenario)
        ),
        subtitle: format!(
            "Nominal point: B = {} ({}), ρ = {} ({}). Most calls write only what joined since \
             the previous one; a marker over a tall bar says why the prefix was written again.{}{}",
            style::short(input.base_tokens),
            input.sources.base_tokens,
            style::ratio(input.bytes_per_token),
            input.sources.bytes_per_token,
            if own_scales {
                "\nEach panel has its own vertical scale: the runs differ too much in size to share one."
            } else {
                ""
            },
            left_out(input, series)
        ),
        y_desc: format!(
            "est. tokens (bytes ÷ {}) per call",
            style::ratio(input.bytes_per_token)
        ),
        panels,
        x_range: (0.5, longest as f64 + 0.5),
        y_range,
    })
}

/// The bars tall enough to be spikes, with the cause of each (growth is no spike), one
/// marker per `MARKER_SPACING_PX` at most: where two would collide the taller bar's stays.
fn spikes(
    written: &[Peak],
    causes: &[WriteCause],
    y_top: f64,
    calls_per_px: f64,
) -> Vec<(f64, f64, WriteCause)> {
    let mut tall: Vec<(f64, f64, WriteCause)> = written
        .iter()
        .filter(|p| p.max >= SPIKE_SHARE * y_top)
        .filter_map(|p| {
            let cause = *causes.get(p.at)?;
            let call = (p.first_call + p.last_call) / 2.0;
            (cause != WriteCause::Growth).then_some((call, p.max, cause))
        })
        .collect();
    // Tallest first, then by call, so the choice does not depend on float ties.
    tall.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.total_cmp(&b.0)));
    let spacing = MARKER_SPACING_PX * calls_per_px.max(1.0 / MARKER_SPACING_PX);
    let mut kept: Vec<(f64, f64, WriteCause)> = Vec::new();
    for spike in tall {
        if kept.iter().all(|k| (k.0 - spike.0).abs() >= spacing) {
            kept.push(spike);
        }
    }
    kept.sort_by(|a, b| a.0.total_cmp(&b.0));
    kept
}

/// The marker of each cause of a rewrite.
fn marker_of(cause: WriteCause) -> Option<Marker> {
    match cause {
        WriteCause::Growth => None,
        WriteCause::First => Some(Marker::Diamond),
        WriteCause::Expired => Some(Marker::Triangle),
        WriteCause::Clearing => Some(Marker::Circle),
        WriteCause::Compaction => Some(Marker::Down),
        WriteCause::BelowMinimum => Some(Marker::Square),
    }
}

/// What a cause means, for the legend.
fn cause_words(cause: WriteCause, chart: &CostChart) -> (String, String) {
    match cause {
        WriteCause::Growth => ("growth".into(), String::new()),
        WriteCause::First => ("first call".into(), "nothing is cached yet".into()),
        WriteCause::Expired => (
            "cache expired".into(),
            format!(
                "the pause before the call was longer than the TTL ({} s)",
                style::short(chart.ttl_s)
            ),
        ),
        WriteCause::Clearing => (
            "clearing".into(),
            "results replaced by placeholders: the prefix is written again from the first one"
                .into(),
        ),
        WriteCause::Compaction => (
            "compaction".into(),
            "the conversation was summarized (▼ under the call numbers): all but the base is written again".into(),
        ),
        WriteCause::BelowMinimum => (
            "below the minimum".into(),
            format!(
                "the prefix is under {} tokens: not cached",
                crate::number::grouped(chart.min_tokens, 0)
            ),
        ),
    }
}

/// `1 first call, 10 expired; 5 clearings, a tick each (2 where the cache had expired
/// anyway)`: the rewrites of a run by cause, its clearings and compactions.
fn counts(panel: &CostPanel) -> String {
    let found = |cause| {
        panel
            .cause_counts
            .iter()
            .find(|c| c.0 == cause)
            .map_or(0, |c| c.1)
    };
    let mut parts = Vec::new();
    let causes = panel
        .cause_counts
        .iter()
        .filter_map(|&(cause, n)| {
            let what = match cause {
                WriteCause::First => "first call",
                WriteCause::Expired => "expired",
                WriteCause::BelowMinimum => "below min.",
                // Counted with the clearings and compactions below.
                WriteCause::Growth | WriteCause::Clearing | WriteCause::Compaction => {
                    return None;
                }
            };
            Some(format!("{} {what}", style::count(n)))
        })
        .collect::<Vec<_>>();
    if !causes.is_empty() {
        parts.push(causes.join(", "));
    }
    if panel.clearings > 0 {
        let n = panel.clearings;
        let expired = n.saturating_sub(found(WriteCause::Clearing));
        let mut text = format!(
            "{}, a tick each",
            style::counted(n, "clearing", "clearings")
        );
        if expired > 0 {
            text.push_str(&format!(
                " ({} where the cache had expired anyway)",
                style::count(expired)
            ));
        }
        parts.push(text);
    }
    if panel.compactions > 0 {
        let n = panel.compactions;
        parts.push(format!(
            "{}, a ▼ each; their own requests are in the totals, not drawn",
            style::counted(n, "compaction", "compactions")
        ));
    }
    if !panel.added.is_empty() {
        let n = panel.added.len();
        parts.push(format!(
            "{}, a thin bar each",
            style::counted(n, "tool search", "tool searches")
        ));
    }
    if let Some(ttl) = panel.own_ttl_s {
        parts.push(format!("its cache lives {} s", style::count(ttl as usize)));
    }
    parts.join("; ")
}

/// A sentence naming the edits without a panel (those that clear nothing rewrite the
/// cache only where the baseline does), or nothing when every edit has one.
fn left_out(input: &ChartInput, series: &[CostSeries]) -> String {
    let names: Vec<String> = input
        .edits
        .iter()
        .enumerate()
        .filter(|&(e, _)| !series.iter().any(|s| s.edit == Some(e)))
        .map(|(_, name)| style::clean(name))
        .collect();
    if names.is_empty() {
        return String::new();
    }
    format!(
        "\nEdits that read and write the cache as the baseline does, call for call, have no panel: {}.",
        names.join(", ")
    )
}

/// Renders the chart as SVG text.
pub fn draw(chart: &CostChart) -> Result<String, ChartError> {
    let err = drawing(FILE);
    let band = layout::title_band_px(&chart.title, &chart.subtitle);
    let legend = legend(chart);
    let n = chart.panels.len().max(1) as i32;
    let plot_top = band + 4;
    // Tall enough for the vertical axis label, which is centred on the panels: one short
    // panel under a long label would push it up into the subtitle.
    let panels_px = (n * PANEL_PX).max(style::text_width_px(&chart.y_desc, style::LABEL_SIZE) + 24);
    let height = (plot_top + panels_px + BELOW_PANELS_PX + MARGIN_PX)
        .max(plot_top + 10 + layout::legend_height(&legend) + MARGIN_PX);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        layout::draw_title(&root, &chart.title, &chart.subtitle, FILE)?;
        layout::draw_legend(&root, plot_top + 10, &legend, FILE)?;
        let left = MARGIN_PX + 24;
        let right = LEGEND_X - 12;
        layout::draw_vertical_label(
            &root,
            &chart.y_desc,
            (MARGIN_PX + 8, plot_top + panels_px / 2),
            FILE,
        )?;
        layout::draw_label(
            &root,
            "position of the call (1 = first call)",
            ((left + right) / 2, plot_top + panels_px + 18),
            FILE,
        )?;
        let area = root.margin(
            plot_top,
            height - plot_top - panels_px,
            left,
            WIDTH_PX as i32 - right,
        );
        // Every caption has the same room: names too long for it are cut where they
        // agree, so two runs never read alike.
        let width = area.dim_in_pixel().0 as i32;
        let room = chart
            .panels
            .iter()
            .map(|p| caption_room(width, p))
            .min()
            .unwrap_or(width);
        let names: Vec<String> = chart.panels.iter().map(|p| p.name.clone()).collect();
        let names = style::apart(&names, |n| {
            style::text_width_px(n, SUBTITLE_SIZE * 1.08) <= room
        });
        let cells = area.split_evenly((n as usize, 1));
        // Every panel keeps room for a row of clearing ticks when one has them, so their
        // call axes line up.
        let ticks = chart
            .panels
            .iter()
            .any(|p| !p.clearing_ticks.is_empty() || !p.compaction_ticks.is_empty());
        for ((panel, cell), name) in chart.panels.iter().zip(cells).zip(names) {
            draw_panel(chart, panel, ticks, &name, &cell, &root)?;
        }
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

/// The figures after a panel's name in its caption.
fn caption_figures(panel: &CostPanel) -> String {
    format!(
        ": {} written, {} read (est. tokens)",
        style::short(panel.written_total),
        style::short(panel.cached_total)
    )
}

/// Room for the run's name in a caption of a panel `width` px wide, px: a long name gives
/// way to the figures, so the caption stays in its panel.
fn caption_room(width: i32, panel: &CostPanel) -> i32 {
    (width - 20 - style::text_width_px(&caption_figures(panel), SUBTITLE_SIZE * 1.08)).max(60)
}

fn draw_panel(
    chart: &CostChart,
    panel: &CostPanel,
    ticks: bool,
    name: &str,
    area: &super::Area,
    root: &super::Area,
) -> Result<(), ChartError> {
    let err = drawing(FILE);
    let (x_lo, x_hi) = chart.x_range;
    let (y_lo, y_hi) = panel.y_range;
    let room = caption_room(area.dim_in_pixel().0 as i32, panel);
    let caption = format!(
        "{}{}",
        style::fit(name, room, SUBTITLE_SIZE * 1.08),
        caption_figures(panel)
    );
    let mut plot = ChartBuilder::on(area)
        .caption(
            caption,
            style::bold(SUBTITLE_SIZE, INK, HPos::Center, VPos::Top),
        )
        .margin(6)
        .x_label_area_size(24 + if ticks { TICK_ROW_PX } else { 0 })
        .y_label_area_size(56)
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
        .y_labels(5)
        .x_label_formatter(&whole_calls)
        .y_label_formatter(&tokens)
        .draw()
        .map_err(&err)?;

    let colour = style::run_colour(panel.edit);
    if let (Some(first), Some(last)) = (panel.cached.first(), panel.cached.last()) {
        let mut outline = Vec::with_capacity(panel.cached.len() + 2);
        outline.push((first.0, 0.0));
        outline.extend_from_slice(&panel.cached);
        outline.push((last.0, 0.0));
        plot.draw_series([Polygon::new(outline, colour.mix(AREA_OPACITY).filled())])
            .map_err(&err)?;
        plot.draw_series([PathElement::new(
            panel.cached.clone(),
            colour.mix(0.6).stroke_width(1),
        )])
        .map_err(&err)?;
    }
    plot.draw_series(panel.written.iter().map(|peak| {
        Rectangle::new(
            [
                (peak.first_call - BAR_HALF_WIDTH, 0.0),
                (peak.last_call + BAR_HALF_WIDTH, peak.max),
            ],
            colour.filled(),
        )
    }))
    .map_err(&err)?;
    // Tool searches: a thin bar of their own, half a call before the call they precede.
    plot.draw_series(panel.added.iter().map(|&(x, written)| {
        Rectangle::new(
            [(x - ADDED_HALF_WIDTH, 0.0), (x + ADDED_HALF_WIDTH, written)],
            INK.filled(),
        )
    }))
    .map_err(&err)?;
    // Every clearing, a tick under the call numbers: a count in the legend is a count of
    // these, whether or not the clearing made a tall bar.
    let axis = plot.backend_coord(&(x_lo, y_lo)).1;
    for &x in &panel.clearing_ticks {
        let px = plot.backend_coord(&(x, y_lo)).0;
        root.draw(&PathElement::new(
            vec![(px, axis + 22), (px, axis + 22 + TICK_PX)],
            colour.stroke_width(1),
        ))
        .map_err(&err)?;
    }
    for &x in &panel.compaction_ticks {
        let px = plot.backend_coord(&(x, y_lo)).0;
        layout::marker(root, Marker::Down, (px, axis + 22 + TICK_PX / 2), FILE)?;
    }
    for &(call, top, cause) in &panel.spikes {
        if let Some(shape) = marker_of(cause) {
            let (x, y) = plot.backend_coord(&(call, top));
            layout::marker(root, shape, (x, y - 9), FILE)?;
        }
    }
    Ok(())
}

fn legend(chart: &CostChart) -> Vec<Entry> {
    let mut entries = vec![
        Entry::new(Key::Heading, "in each panel"),
        Entry::new(Key::Swatch(BASELINE, AREA_OPACITY), "shaded: read from the cache")
            .with_note("the part of each call's context the cache still holds, at the cheap read price"),
        Entry::new(Key::Swatch(BASELINE, 1.0), "bars: written to the cache")
            .with_note("what each call adds to the cache, at the write price; a tall bar writes the prefix again"),
    ];
    if chart.panels.iter().any(|p| !p.clearing_ticks.is_empty()) {
        entries.push(Entry::new(Key::Rule(INK, 1), "clearing").with_note(
            "a tick under the call numbers, before the call it precedes; every clearing has one",
        ));
    }
    if chart.panels.iter().any(|p| !p.added.is_empty()) {
        entries.push(
            Entry::new(Key::Rule(INK, 3), "tool search")
                .with_note("a request the edit adds: a thin bar before the call it precedes"),
        );
    }
    entries.push(Entry::new(Key::Heading, ""));
    entries.push(Entry::new(Key::Heading, "why a bar is tall"));
    let mut causes: Vec<WriteCause> = chart
        .panels
        .iter()
        .flat_map(|p| p.cause_counts.iter().map(|c| c.0))
        .collect();
    // Every compaction has its triangle under the call numbers, tall bar or not.
    if chart.panels.iter().any(|p| !p.compaction_ticks.is_empty()) {
        causes.push(WriteCause::Compaction);
    }
    causes.sort();
    causes.dedup();
    for cause in causes {
        if let Some(shape) = marker_of(cause) {
            let (label, note) = cause_words(cause, chart);
            entries.push(Entry::new(Key::Marker(shape), label).with_note(note));
        }
    }
    entries.push(Entry::new(Key::Heading, ""));
    entries.push(Entry::new(Key::Heading, "runs"));
    let names: Vec<String> = chart.panels.iter().map(|p| p.name.clone()).collect();
    entries.extend(
        chart
            .panels
            .iter()
            .zip(layout::legend_names(&names))
            .map(|(p, name)| {
                let rewrites = counts(p);
                let note = if rewrites.is_empty() {
                    format!("{} calls", style::count(p.calls))
                } else {
                    format!("{} calls; {rewrites}", style::count(p.calls))
                };
                Entry::new(layout::swatch_key(p.edit, 1.0), name).with_note(note)
            }),
    );
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(calls: usize) -> (ChartInput, Vec<CostSeries>) {
        let cached: Vec<f64> = (0..calls).map(|i| 1000.0 * i as f64).collect();
        let mut written = vec![500.0; calls];
        if calls > 10 {
            written[10] = 12_000.0;
        }
        let mut causes = vec![WriteCause::Growth; calls];
        if let Some(first) = causes.first_mut() {
            *first = WriteCause::First;
        }
        let base_causes = causes.clone();
        if calls > 10 {
            causes[10] = WriteCause::Clearing;
        }
        let series = vec![
            CostSeries {
                name: "baseline".into(),
                edit: None,
                cached_tokens: cached.clone(),
                written_tokens: vec![500.0; calls],
                causes: base_causes,
                clearings: 0,
                clearings_before: vec![],
                compactions_before: vec![],
                added: vec![],
                not_drawn: (0.0, 0.0),
                ttl_s: 300.0,
                min_tokens: 1024.0,
            },
            CostSeries {
                name: "clear".into(),
                edit: Some(0),
                cached_tokens: cached,
                written_tokens: written,
                causes,
                clearings: 1,
                clearings_before: vec![10],
                compactions_before: vec![],
                added: vec![],
                not_drawn: (0.0, 0.0),
                ttl_s: 300.0,
                min_tokens: 1024.0,
            },
        ];
        let input = ChartInput {
            scenario: "s".into(),
            base_tokens: 30_000.0,
            bytes_per_token: 3.3,
            sources: Default::default(),
            edits: vec!["clear".into()],
            savings: None,
            ranking: None,
            ranking_cost: None,
            context: vec![],
            totals: vec![],
            totals_cost: None,
            cost: Some(series.clone()),
        };
        (input, series)
    }

    #[test]
    fn the_spike_is_a_bar_of_its_own() {
        let (input, series) = input(22);
        let chart = prepare(&input, &series).unwrap();
        assert_eq!(chart.panels.len(), 2);
        let spike = chart.panels[1]
            .written
            .iter()
            .find(|p| p.max == 12_000.0)
            .unwrap();
        assert_eq!((spike.first_call, spike.last_call), (11.0, 11.0));
        assert_eq!(chart.panels[1].written.len(), 22);
        assert!(chart.y_range.1 >= 21_000.0);
        // The spike carries its cause; the small writes carry none.
        assert_eq!(
            chart.panels[1].spikes,
            vec![(11.0, 12_000.0, WriteCause::Clearing)]
        );
        assert_eq!(
            chart.panels[1].cause_counts,
            vec![(WriteCause::First, 1), (WriteCause::Clearing, 1)]
        );
    }

    #[test]
    fn edits_without_a_panel_are_named() {
        let (mut input, series) = input(22);
        assert!(
            !prepare(&input, &series)
                .unwrap()
                .subtitle
                .contains("no panel")
        );
        input.edits.push("read once".into());
        let chart = prepare(&input, &series).unwrap();
        assert!(
            chart
                .subtitle
                .contains("Edits that read and write the cache as the baseline does, call for call, have no panel: read once."),
            "{}",
            chart.subtitle
        );
    }

    #[test]
    fn long_runs_are_reduced_and_keep_the_spike() {
        let (input, series) = input(200_000);
        let chart = prepare(&input, &series).unwrap();
        let panel = &chart.panels[1];
        assert!(panel.written.len() <= PLOT_WIDTH_PX);
        assert!(panel.cached.len() <= 4 * PLOT_WIDTH_PX);
        assert!(panel.written.iter().any(|p| p.max == 12_000.0));
    }

    #[test]
    fn a_run_dwarfed_by_another_gets_its_own_scale() {
        let (input, mut series) = input(22);
        let chart = prepare(&input, &series).unwrap();
        assert_eq!(chart.panels[0].y_range, chart.panels[1].y_range);
        assert!(!chart.subtitle.contains("own vertical scale"));
        // The clearing run stays a hundred times smaller than the baseline.
        let small = &mut series[1];
        for v in small
            .cached_tokens
            .iter_mut()
            .chain(small.written_tokens.iter_mut())
        {
            *v /= 100.0;
        }
        let chart = prepare(&input, &series).unwrap();
        assert!(chart.panels[1].y_range.1 * 10.0 < chart.panels[0].y_range.1);
        assert!(chart.subtitle.contains("own vertical scale"));
        // Its spike is still a spike on its own scale.
        assert_eq!(chart.panels[1].spikes.len(), 1);
    }

    #[test]
    fn causes_are_listed_in_their_enum_order() {
        for (i, cause) in CAUSES.iter().enumerate() {
            assert_eq!(*cause as usize, i);
        }
    }

    #[test]
    fn mismatched_lengths_are_an_error() {
        let (input, mut series) = input(5);
        series[0].written_tokens.pop();
        assert!(matches!(
            prepare(&input, &series),
            Err(ChartError::Data { .. })
        ));
    }
}
