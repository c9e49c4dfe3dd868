//! `by_tool.svg`: where the baseline's reread total goes. One horizontal bar per tool (or
//! kind), the base and the model's output, largest share first: each result's size times
//! the calls that re-read it. The longest bar points at the edit to try first.

use plotters::prelude::{ChartBuilder, Color, IntoDrawingArea, Rectangle, SVGBackend, Text};
use plotters::style::text_anchor::{HPos, VPos};

use super::layout;
use super::style::{self, BACKGROUND, BASELINE, INK, LABEL_SIZE, MARGIN_PX, SMALL_SIZE, WIDTH_PX};
use super::{ChartError, drawing};

/// File name of this chart.
pub const FILE: &str = "by_tool.svg";

/// Most groups drawn; the rest are summed into one bar ("N more").
const MAX_BARS: usize = 12;
/// Height of one bar's row, px.
const ROW_PX: i32 = 34;
/// Widest group name, px.
const NAME_MAX_PX: i32 = 260;
/// Room below the bars for ticks and the axis description, px.
const BELOW_BARS_PX: i32 = 60;

/// One group's share of the reread total.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolShareBar {
    /// `Bash`, `kind: web_search`, `base (system prompt, tools)`, `model output`.
    pub group: String,
    /// Percent of the baseline's reread total.
    pub share_pct: f64,
    /// Est. tokens it adds to the reread total.
    pub reread_tokens: f64,
    /// Calls whose results are in the group.
    pub calls: usize,
}

/// The chart, laid out.
#[derive(Debug, Clone, PartialEq)]
pub struct ByToolChart {
    pub title: String,
    pub subtitle: String,
    /// Largest first; at most [`MAX_BARS`], the last one summing the rest when cut.
    pub bars: Vec<(String, f64, String)>,
    pub x_max: f64,
}

/// The bars for `shares` (largest first) of scenario `scenario` at ρ `bytes_per_token`.
pub fn prepare(
    scenario: &str,
    bytes_per_token: f64,
    shares: &[ToolShareBar],
) -> Result<ByToolChart, ChartError> {
    if shares.is_empty() {
        return Err(ChartError::Data {
            chart: FILE,
            message: "no groups to draw".into(),
        });
    }
    let mut bars: Vec<(String, f64, String)> = shares
        .iter()
        .take(MAX_BARS)
        .map(|s| {
            (
                style::fit(&style::clean(&s.group), NAME_MAX_PX, LABEL_SIZE),
                finite(s.share_pct),
                format!(
                    "{}% · {} est. tokens · {}",
                    style::percent(finite(s.share_pct)),
                    style::short(s.reread_tokens),
                    if s.calls == 1 {
                        "1 call".to_string()
                    } else {
                        format!("{} calls", style::count(s.calls))
                    }
                ),
            )
        })
        .collect();
    if shares.len() > MAX_BARS {
        // Keep the total honest: the groups not drawn one by one are one bar.
        let rest = &shares[MAX_BARS - 1..];
        let pct: f64 = rest.iter().map(|s| finite(s.share_pct)).sum();
        let tokens: f64 = rest.iter().map(|s| s.reread_tokens).sum();
        bars.truncate(MAX_BARS - 1);
        bars.push((
            format!("{} more groups", style::count(rest.len())),
            pct,
            format!(
                "{}% · {} est. tokens",
                style::percent(pct),
                style::short(tokens)
            ),
        ));
    }
    let top = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    Ok(ByToolChart {
        title: format!("{}: where the reread total goes", style::clean(scenario)),
        subtitle: format!(
            "The baseline at the nominal point (ρ = {}): each result's est. tokens times the calls that re-read it, by tool (or kind where a call names none). The shares add up to the whole total.",
            style::ratio(bytes_per_token)
        ),
        bars,
        // The axis ends on a round figure at or just past the longest bar; the labels get
        // room of their own right of it (`draw`).
        x_max: super::plane::nice_step(top / 8.0)
            .map_or(top, |step| (top / step).ceil() * step)
            .max(1.0),
    })
}

/// Pixels right of the plot so that every bar's label, which starts 6 px past its bar,
/// ends inside the picture, for a plot and that room sharing `across` px: the least `r`
/// with `p·(across − r) + 6 + w ≤ across` for each bar at `p` of the axis with a label
/// `w` px wide.
fn label_room_px(chart: &ByToolChart, across: i32) -> i32 {
    let across = f64::from(across.max(1));
    chart
        .bars
        .iter()
        .map(|(_, pct, label)| {
            let p = (pct / chart.x_max).clamp(0.0, 1.0);
            let c = 6.0 + f64::from(style::text_width_px(label, SMALL_SIZE));
            match p > 0.0 {
                true => (c - (1.0 - p) * across) / p,
                false => c - across,
            }
        })
        .fold(0.0, f64::max)
        .min(across / 2.0)
        .ceil() as i32
}

fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

/// Renders the chart as SVG text.
pub fn draw(chart: &ByToolChart) -> Result<String, ChartError> {
    let err = drawing(FILE);
    let band = layout::title_band_px(&chart.title, &chart.subtitle);
    let n = chart.bars.len().max(1);
    let height = band + 16 + ROW_PX * n as i32 + BELOW_BARS_PX + MARGIN_PX;
    let names_px = chart
        .bars
        .iter()
        .map(|b| style::text_width_px(&b.0, LABEL_SIZE))
        .max()
        .unwrap_or(0)
        + 20;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&BACKGROUND).map_err(&err)?;
        layout::draw_title(&root, &chart.title, &chart.subtitle, FILE)?;
        let area = root.margin(band + 8, MARGIN_PX, MARGIN_PX, MARGIN_PX + 8);
        let rows = n as f64;
        let right = label_room_px(chart, area.dim_in_pixel().0 as i32 - 16 - names_px);
        let mut plot = ChartBuilder::on(&area)
            .margin(8)
            .margin_right(8 + right)
            .x_label_area_size(BELOW_BARS_PX - 8)
            .y_label_area_size(names_px)
            .build_cartesian_2d(0.0..chart.x_max, 0.0..rows)
            .map_err(&err)?;
        let nothing = |_: &f64| String::new();
        let decimals = style::decimals_for_step(chart.x_max / 8.0);
        let percent = |x: &f64| format!("{}%", style::fixed(*x, decimals));
        style::house_mesh(&mut plot.configure_mesh())
            .disable_y_mesh()
            .y_labels(0)
            .y_label_formatter(&nothing)
            .x_labels(8)
            .x_label_formatter(&percent)
            .x_desc("% of the baseline's reread total")
            .draw()
            .map_err(&err)?;
        for (i, (name, pct, label)) in chart.bars.iter().enumerate() {
            let middle = rows - i as f64 - 0.5;
            plot.draw_series([Rectangle::new(
                [(0.0, middle - 0.3), (*pct, middle + 0.3)],
                BASELINE.filled(),
            )])
            .map_err(&err)?;
            let (x, y) = plot.backend_coord(&(*pct, middle));
            root.draw(&Text::new(
                label.clone(),
                (x + 6, y),
                style::text(SMALL_SIZE, INK, HPos::Left, VPos::Center),
            ))
            .map_err(&err)?;
            let (left, _) = plot.backend_coord(&(0.0, middle));
            root.draw(&Text::new(
                name.clone(),
                (left - 10, y),
                style::text(LABEL_SIZE, INK, HPos::Right, VPos::Center),
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

    fn share(group: &str, pct: f64) -> ToolShareBar {
        ToolShareBar {
            group: group.into(),
            share_pct: pct,
            reread_tokens: pct * 1000.0,
            calls: 3,
        }
    }

    /// The axis ends on a round figure at the longest bar, and every bar's label ends
    /// inside the picture (before: the axis ran to 145 % of the longest bar and a long
    /// label past the picture's edge).
    #[test]
    fn the_axis_ends_at_the_data_and_every_label_fits() {
        for shares in [
            vec![
                share("kind: tool", 99.99),
                share("base (system prompt, tools)", 0.01),
            ],
            vec![share("a", 47.2), share("b", 32.3), share("c", 20.5)],
        ] {
            let mut chart = prepare("s", 3.3, &shares).unwrap();
            for bar in &mut chart.bars {
                bar.2 = format!("{:.1}% · 659T est. tokens · 1,000,000 calls", bar.1);
            }
            let top = shares.iter().map(|s| s.share_pct).fold(0.0, f64::max);
            assert!(
                chart.x_max >= top && chart.x_max <= top * 1.25,
                "{}",
                chart.x_max
            );
            let svg = draw(&chart).unwrap();
            let texts = super::super::svg_text::texts(&svg);
            for (_, _, label) in &chart.bars {
                let text = texts.iter().find(|t| t.text == *label).unwrap();
                let (_, end) = text.span(style::text_width_px(label, SMALL_SIZE));
                assert!(end <= WIDTH_PX as i32, "{label} ends at {end}");
            }
        }
        assert_eq!(
            prepare("s", 3.3, &[share("a", 100.0)]).unwrap().x_max,
            100.0
        );
    }

    #[test]
    fn one_bar_per_group_and_the_rest_summed() {
        let shares: Vec<_> = (0..15)
            .map(|i| share(&format!("t{i}"), 15.0 - i as f64))
            .collect();
        let chart = prepare("s", 3.3, &shares).unwrap();
        assert_eq!(chart.bars.len(), MAX_BARS);
        let last = chart.bars.last().unwrap();
        assert_eq!(last.0, "4 more groups");
        // 4 + 3 + 2 + 1.
        assert_eq!(last.1, 10.0);
        let svg = draw(&chart).unwrap();
        assert!(svg.contains("t0") && svg.contains("4 more groups"));
        assert!(prepare("s", 3.3, &[]).is_err());
    }
}
