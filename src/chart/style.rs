//! The look shared by every chart: sizes, palette, fonts and number formats. Change the
//! style here, not in the chart files.

use plotters::prelude::{Color, FontDesc, FontFamily, FontStyle, RGBColor, TextStyle};
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::number;

/// Width of every chart, in px.
pub const WIDTH_PX: u32 = 1000;
/// Outer margin around the whole picture, in px.
pub const MARGIN_PX: i32 = 12;
/// Height of the title band (title and one subtitle line), in px.
pub const TITLE_BAND_PX: i32 = 66;
/// Width of the legend column on the right of every chart, in px.
pub const LEGEND_WIDTH_PX: i32 = 250;
/// Vertical space per legend line, in px.
pub const LEGEND_LINE_PX: i32 = 22;

// Plotters writes `font-size = size / 1.24` into the SVG, so these are 1.24 × the px size
// a reader sees; the smallest (15) still shows as 12 px.
/// Chart title (≈ 19 px).
pub const TITLE_SIZE: f64 = 24.0;
/// Subtitle and panel captions (≈ 14 px).
pub const SUBTITLE_SIZE: f64 = 17.5;
/// Axis descriptions and legend text (≈ 13.7 px).
pub const LABEL_SIZE: f64 = 17.0;
/// Tick labels (≈ 12.9 px).
pub const TICK_SIZE: f64 = 16.0;
/// Labels inside the plot: break-even values, bar values, cell numbers (≈ 12.1 px).
pub const SMALL_SIZE: f64 = 15.0;

/// Okabe–Ito: distinguishable with the common colour-vision deficiencies. Edit `i` is
/// `PALETTE[i % 8]` in every chart. Vermillion comes after reddish purple so that with up
/// to five edits no two are orange (a new user could not tell the fifth from the first).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0xF0, 0xE4, 0x42),
    RGBColor(0x00, 0x00, 0x00),
];
/// The baseline run: a neutral grey no edit uses.
pub const BASELINE: RGBColor = RGBColor(0x77, 0x77, 0x77);
/// Text, axes and markers.
pub const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
/// Secondary text (subtitles, notes).
pub const MUTED: RGBColor = RGBColor(0x55, 0x55, 0x55);
/// Major grid lines.
pub const GRID: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);
/// Minor grid lines.
pub const GRID_LIGHT: RGBColor = RGBColor(0xF3, 0xF3, 0xF3);
/// The rule marking the nominal value on an axis.
pub const NOMINAL_RULE: RGBColor = RGBColor(0xA8, 0xA8, 0xA8);
/// Cells where several edits tie for first place.
pub const TIE: RGBColor = RGBColor(0xD9, 0xD9, 0xD9);
/// Light grid lines between two major ones.
pub const LIGHT_LINES: usize = 1;
/// Page background.
pub const BACKGROUND: RGBColor = RGBColor(0xFF, 0xFF, 0xFF);

/// Stroke width of an edit's line, in px.
pub const LINE_PX: u32 = 2;
/// Stroke width of the baseline's line: wider, drawn first, so edits that coincide with it
/// stay visible on top.
pub const BASELINE_LINE_PX: u32 = 4;
/// Opacity of areas drawn in a series colour (cached tokens).
pub const AREA_OPACITY: f64 = 0.28;
/// Radius of the dot at each sampled point, in px.
pub const DOT_PX: u32 = 3;

/// Short form for axes and labels: `950`, `30k`, `1.2M`, `3.4G`, `5.6T` (the shared
/// formatter, with one more step for the reread totals of very long runs).
pub fn short(x: f64) -> String {
    let trillions = x / 1e12;
    if trillions.abs() >= 1.0 {
        let decimals = usize::from(trillions.abs() < 100.0 && trillions.fract().abs() >= 0.05);
        let text = fixed(trillions, decimals);
        let text = if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.')
        } else {
            &text
        };
        format!("{text}T")
    } else {
        let text = number::short(x);
        // A tiny negative value rounds to `-0`: a person reads that as noise.
        if text.starts_with('-') && text[1..].bytes().all(|b| b == b'0' || b == b'.') {
            text[1..].to_string()
        } else {
            text
        }
    }
}

/// A count as the text writes it, with thousands separators: `10,000`.
pub fn count(n: usize) -> String {
    number::grouped(n as f64, 0)
}

/// `1 clearing`, `66 clearings`: a count and its noun.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// The colour of edit `index`.
pub fn edit_colour(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// What tells apart two edits of the same colour (more edits than the palette has
/// colours): the first eight are solid, the next eight dashed lines and hatched fills, the
/// next eight dotted lines and cross-hatched fills, and so on around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Solid,
    Dashed,
    Dotted,
}

/// The mark of edit `index` (see [`Mark`]).
pub fn edit_mark(index: usize) -> Mark {
    match (index / PALETTE.len()) % 3 {
        0 => Mark::Solid,
        1 => Mark::Dashed,
        _ => Mark::Dotted,
    }
}

/// The mark of a run: its edit's, or solid for the baseline.
pub fn run_mark(edit: Option<usize>) -> Mark {
    edit.map_or(Mark::Solid, edit_mark)
}

/// Dash and gap of a line with `mark`, px; None: a solid line.
pub fn dashes(mark: Mark) -> Option<(u32, u32)> {
    match mark {
        Mark::Solid => None,
        Mark::Dashed => Some((9, 5)),
        Mark::Dotted => Some((2, 4)),
    }
}

/// The colour of a run: its edit's, or the baseline grey.
pub fn run_colour(edit: Option<usize>) -> RGBColor {
    edit.map_or(BASELINE, edit_colour)
}

/// Black or white, whichever reads better on `background`.
pub fn ink_on(background: RGBColor) -> RGBColor {
    let RGBColor(r, g, b) = background;
    let luma = 0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b);
    if luma > 140.0 {
        RGBColor(0, 0, 0)
    } else {
        RGBColor(0xFF, 0xFF, 0xFF)
    }
}

/// A sans-serif text style.
pub fn text(size: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle {
        font: FontDesc::new(FontFamily::SansSerif, size, FontStyle::Normal),
        color: colour.to_backend_color(),
        pos: Pos::new(h, v),
    }
}

/// A bold sans-serif text style.
pub fn bold(size: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle {
        font: FontDesc::new(FontFamily::SansSerif, size, FontStyle::Bold),
        ..text(size, colour, h, v)
    }
}

/// Roughly how wide `text` is at `size`, in px: the same estimate plotters uses for SVG,
/// where the real font is up to the viewer, with wide characters (CJK, Hangul, fullwidth
/// forms) counted as a whole em.
pub fn text_width_px(text: &str, size: f64) -> i32 {
    let em = size / 1.24;
    let ems: f64 = text
        .chars()
        .map(|c| if is_wide(c) { 1.0 } else { NARROW_EM })
        .sum();
    (em * ems).round() as i32
}

/// Width of a narrow character, in em of the SVG font size (plotters' own estimate).
const NARROW_EM: f64 = 0.7 / 1.24;

/// Whether `c` is drawn a whole em wide (East Asian wide and fullwidth characters).
fn is_wide(c: char) -> bool {
    matches!(
        c as u32,
        0x1100..=0x115F
            | 0x2E80..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
            | 0x1F300..=0x1FAFF
            | 0x20000..=0x3FFFD
    )
}

/// `name` cut to at most `max_chars` characters, with `…` when cut.
pub fn truncate(name: &str, max_chars: usize) -> String {
    if name.chars().count() <= max_chars {
        return name.to_string();
    }
    let mut cut: String = name.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `text` cut to fit `max_px` at `size`, with `…` when cut.
pub fn fit(text: &str, max_px: i32, size: f64) -> String {
    if text_width_px(text, size) <= max_px {
        return text.to_string();
    }
    let mut cut = String::new();
    for c in text.chars() {
        cut.push(c);
        if text_width_px(&cut, size) + text_width_px("…", size) > max_px {
            cut.pop();
            break;
        }
    }
    let trimmed = cut.trim_end().len();
    cut.truncate(trimmed);
    cut.push('…');
    cut
}

/// Each of `names` as it must be cut to pass `fits`, so that names which differ still read
/// apart. A name that fits stays whole. Otherwise the words it shares at its start with
/// every name that starts like it give way first, after its first word ("trim the output
/// … 30 percent: runbook"), as few as `fits` allows; they cannot tell it from those names,
/// and the first word tells it from the rest. What is still too long is left for the
/// caller's own cut at the end ([`wrap`], [`fit`]).
pub fn apart(names: &[String], fits: impl Fn(&str) -> bool) -> Vec<String> {
    let words: Vec<Vec<&str>> = names
        .iter()
        .map(|n| n.split(' ').filter(|w| !w.is_empty()).collect())
        .collect();
    let shared = |a: &[&str], b: &[&str]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            if fits(name) {
                return name.clone();
            }
            let own = &words[i];
            // Words shared with every name that starts like this one.
            let common = words
                .iter()
                .enumerate()
                .filter(|&(j, other)| j != i && other != own)
                .map(|(_, other)| shared(own, other))
                .filter(|&n| n > 0)
                .min()
                .unwrap_or(0)
                .min(own.len().saturating_sub(1));
            if common < 2 {
                return name.clone();
            }
            let cut =
                |keep: usize| format!("{} … {}", own[..keep].join(" "), own[common..].join(" "));
            (1..common)
                .rev()
                .map(cut)
                .find(|c| fits(c))
                .unwrap_or_else(|| cut(1))
        })
        .collect()
}

/// `text` broken into lines that fit `max_px` at `size`: at spaces where it can, inside a
/// word (or a run of CJK text, which has none) where it must. At most `max_lines` lines;
/// the last ends in `…` when text is left over. Never empty.
pub fn wrap(text: &str, max_px: i32, size: f64, max_lines: usize) -> Vec<String> {
    let fits = |line: &str| text_width_px(line, size) <= max_px;
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let joined = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if fits(&joined) {
            line = joined;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        // A word longer than a line is broken where the line is full.
        for c in word.chars() {
            line.push(c);
            if !fits(&line) && line.chars().count() > 1 {
                line.pop();
                lines.push(std::mem::take(&mut line));
                line.push(c);
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    let max_lines = max_lines.max(1);
    if lines.len() > max_lines {
        let rest = lines.split_off(max_lines - 1).join(" ");
        let mut last = fit(&rest, max_px, size);
        if !last.ends_with('…') {
            last.push('…');
        }
        lines.push(last);
    }
    lines
}

/// `text` safe to write into an SVG: control characters (which XML 1.0 refuses even when
/// escaped) and the non-characters U+FFFE and U+FFFF become spaces. `&<>"` are escaped by
/// the SVG writer itself.
pub fn clean(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// `colour` lightened towards white: `amount` 0 keeps it, 1 gives white. A solid colour, not
/// an opacity, so overlapping shapes do not darken each other.
pub fn tint(colour: RGBColor, amount: f64) -> RGBColor {
    let amount = amount.clamp(0.0, 1.0);
    let mix = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * amount).round() as u8;
    RGBColor(mix(colour.0), mix(colour.1), mix(colour.2))
}

/// Whether two colours, lightened by `amount` as shading is, are too alike to tell two
/// regions apart: a CIE 1976 colour difference ΔE*ab under 30 (sky blue beside blue,
/// orange beside yellow or vermillion; the other Okabe–Ito pairs are 39 or more apart).
pub fn alike(a: RGBColor, b: RGBColor, amount: f64) -> bool {
    let (a, b) = (lab(tint(a, amount)), lab(tint(b, amount)));
    let d = (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2) + (a.2 - b.2).powi(2);
    d.sqrt() < 30.0
}

/// CIE L*a*b* of an sRGB colour (D65 white; IEC 61966-2-1 and CIE 15:2004 formulas).
fn lab(RGBColor(r, g, b): RGBColor) -> (f64, f64, f64) {
    let linear = |c: u8| {
        let v = f64::from(c) / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (linear(r), linear(g), linear(b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 216.0 / 24389.0 {
            t.cbrt()
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    (116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz))
}

/// The segments of the lines `x = y + c` (c a multiple of 7 px) inside the px rectangle
/// `(x0, y0, x1, y1)`: one 45° grid for a whole chart, so adjacent rectangles' lines join.
pub fn hatch_lines((x0, y0, x1, y1): (i32, i32, i32, i32)) -> Vec<((i32, i32), (i32, i32))> {
    const SPACING: i32 = 7;
    let mut lines = Vec::new();
    let mut c = (x0 - y1).div_euclid(SPACING) * SPACING;
    while c <= x1 - y0 {
        let lo = y0.max(x0 - c);
        let hi = y1.min(x1 - c);
        if lo < hi {
            lines.push(((lo + c, lo), (hi + c, hi)));
        }
        c += SPACING;
    }
    lines
}

/// As [`hatch_lines`], the other diagonal (`x = −y + c`): with it, a cross-hatch.
pub fn back_hatch_lines((x0, y0, x1, y1): (i32, i32, i32, i32)) -> Vec<((i32, i32), (i32, i32))> {
    hatch_lines((-x1, y0, -x0, y1))
        .into_iter()
        .map(|((ax, ay), (bx, by))| ((-ax, ay), (-bx, by)))
        .collect()
}

/// Decimals that tell tick labels `step` apart: 0 for steps ≥ 1, 1 for 0.1 ≤ step < 1, ….
pub fn decimals_for_step(step: f64) -> usize {
    if !step.is_finite() || step <= 0.0 || step >= 1.0 {
        return 0;
    }
    (-step.log10()).ceil().clamp(0.0, 6.0) as usize
}

/// A dollar amount on an axis whose ticks are `step` apart, without the sign and the `$`:
/// to the cent below a dollar a step (`0.25`), whole dollars grouped up to a thousand a
/// step (`1,500`), and short above (`600k`: a million sessions' savings in `$600000.00`
/// ran into the axis title).
pub fn money_tick(x: f64, step: f64) -> String {
    if step >= 1_000.0 {
        short(x)
    } else if step >= 1.0 {
        number::grouped(x, 0)
    } else {
        fixed(x, decimals_for_step(step).max(2))
    }
}

/// A number with `decimals` decimals, without a negative zero.
pub fn fixed(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    if text.starts_with('-') && text[1..].bytes().all(|b| b == b'0' || b == b'.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// A percentage for labels, without the `%`: one decimal (`12.3`), but a small non-zero
/// value keeps two significant digits (`0.0041`) rather than reading as `0.0`. Below
/// 1e-7 % (the model's tie tolerance, 1e-9 of the baseline) it is `0.0`: that is float
/// noise around zero, not a saving.
pub fn percent(x: f64) -> String {
    if !x.is_finite() {
        return "—".into();
    }
    let size = x.abs();
    if !(1e-7..0.05).contains(&size) {
        return fixed(if size < 1e-7 { 0.0 } else { x }, 1);
    }
    let decimals = ((-size.log10()).ceil() as usize + 1).min(12);
    let text = fixed(x, decimals);
    // An all-zero rounding (below 1e-12) is zero, said once.
    if text
        .trim_start_matches('-')
        .bytes()
        .all(|b| b == b'0' || b == b'.')
    {
        "0.0".to_string()
    } else {
        text
    }
}

/// Bytes per token for labels: `3.3`, `2.475`, `4` (at most 3 decimals, no trailing zeros).
pub fn ratio(x: f64) -> String {
    let text = format!("{x:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Equivalent calls for labels: `3.2 calls`, `-0.4 calls`, `1.2k calls`.
pub fn calls(x: f64) -> String {
    let value = if x.abs() >= 1000.0 {
        short(x)
    } else {
        fixed(x, 1)
    };
    format!("{value} calls")
}

/// The lowest and highest finite values, or None when there are none.
pub fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(None, |range, v| match range {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// `lo..hi` widened by `fraction` of its span on each side; a zero span (one value, or
/// all equal) is widened by 10 % of the value, or by 1 around 0, so an axis never has
/// zero length. Non-finite input gives `0..1`.
pub fn padded(lo: f64, hi: f64, fraction: f64) -> (f64, f64) {
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    let span = hi - lo;
    if span <= f64::EPSILON * hi.abs().max(lo.abs()).max(1.0) {
        let half = if lo.abs() > 0.0 { lo.abs() * 0.1 } else { 1.0 };
        return (lo - half, hi + half);
    }
    (lo - span * fraction, hi + span * fraction)
}

/// The grid, axis and tick-label style every plotted chart shares; each chart adds its own
/// label counts, formatters and axis descriptions.
pub fn house_mesh<'a, 'b, X, Y, DB>(
    mesh: &'b mut plotters::chart::MeshStyle<'a, 'b, X, Y, DB>,
) -> &'b mut plotters::chart::MeshStyle<'a, 'b, X, Y, DB>
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
    DB: plotters::prelude::DrawingBackend,
{
    mesh.label_style(text(TICK_SIZE, INK, HPos::Center, VPos::Center))
        .axis_desc_style(text(LABEL_SIZE, INK, HPos::Center, VPos::Center))
        .bold_line_style(GRID)
        .light_line_style(GRID_LIGHT)
        .max_light_lines(LIGHT_LINES)
        .axis_style(MUTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cents below a dollar a step, whole grouped dollars to a thousand, short above.
    #[test]
    fn money_ticks_fit_the_axis() {
        assert_eq!(money_tick(0.25, 0.05), "0.25");
        assert_eq!(money_tick(0.125, 0.005), "0.125");
        assert_eq!(money_tick(1_500.0, 250.0), "1,500");
        assert_eq!(money_tick(600_000.0, 100_000.0), "600k");
        assert_eq!(money_tick(2_500_000.0, 500_000.0), "2.5M");
        assert_eq!(money_tick(0.0, 100_000.0), "0");
    }

    #[test]
    fn palette_wraps_after_eight_edits() {
        assert_eq!(edit_colour(0), edit_colour(8));
        assert_ne!(edit_colour(0), edit_colour(1));
        assert_eq!(run_colour(None), BASELINE);
    }

    #[test]
    fn ink_reads_on_dark_and_light() {
        assert_eq!(ink_on(PALETTE[7]), RGBColor(0xFF, 0xFF, 0xFF));
        assert_eq!(ink_on(PALETTE[6]), RGBColor(0, 0, 0));
    }

    #[test]
    fn hatch_lines_stay_inside_their_rectangle_on_one_grid() {
        let rect = (10, 20, 40, 35);
        let lines = hatch_lines(rect);
        assert!(!lines.is_empty());
        for ((ax, ay), (bx, by)) in lines {
            for (x, y) in [(ax, ay), (bx, by)] {
                assert!((10..=40).contains(&x) && (20..=35).contains(&y), "{x},{y}");
                // On the chart-wide grid: x − y a multiple of 7.
                assert_eq!((x - y).rem_euclid(7), 0);
            }
            assert_eq!(bx - ax, by - ay, "45°");
        }
        assert!(hatch_lines((5, 5, 5, 9)).is_empty());
    }

    #[test]
    fn alike_pairs_of_the_palette() {
        // Exactly three pairs of the palette need hatching.
        let alike_pairs: Vec<(usize, usize)> = (0..8)
            .flat_map(|i| (i + 1..8).map(move |j| (i, j)))
            .filter(|&(i, j)| alike(PALETTE[i], PALETTE[j], 0.35))
            .collect();
        assert_eq!(alike_pairs, vec![(0, 5), (0, 6), (1, 3)]);
        // White is L* 100, black 0.
        assert!((lab(RGBColor(255, 255, 255)).0 - 100.0).abs() < 1e-3);
        assert!(lab(RGBColor(0, 0, 0)).0.abs() < 1e-9);
    }

    #[test]
    fn ranges_never_collapse() {
        assert_eq!(padded(5.0, 5.0, 0.05), (4.5, 5.5));
        assert_eq!(padded(0.0, 0.0, 0.05), (-1.0, 1.0));
        assert_eq!(padded(f64::NAN, 1.0, 0.05), (0.0, 1.0));
        assert_eq!(padded(0.0, 10.0, 0.1), (-1.0, 11.0));
        assert_eq!(finite_range([3.0, f64::NAN, -1.0]), Some((-1.0, 3.0)));
        assert_eq!(finite_range([f64::INFINITY]), None);
    }

    #[test]
    fn numbers_for_people() {
        assert_eq!(fixed(-0.04, 1), "0.0");
        assert_eq!(fixed(-1.25, 1), "-1.2");
        assert_eq!(ratio(3.3), "3.3");
        assert_eq!(ratio(4.0), "4");
        assert_eq!(ratio(2.475), "2.475");
        assert_eq!(short(30_000.0), "30k");
        assert_eq!(short(5.63e15), "5630T");
        assert_eq!(short(5.63e12), "5.6T");
        assert_eq!(calls(3.21), "3.2 calls");
        assert_eq!(calls(-0.44), "-0.4 calls");
        assert_eq!(calls(1234.0), "1.2k calls");
        assert_eq!(decimals_for_step(5.0), 0);
        assert_eq!(decimals_for_step(0.5), 1);
        assert_eq!(decimals_for_step(0.02), 2);
        assert_eq!(truncate("clear stale results", 8), "clear s…");
        assert_eq!(truncate("trim", 8), "trim");
        assert_eq!(short(-0.01), "0");
        assert_eq!(percent(12.345), "12.3");
        assert_eq!(percent(0.00041), "0.00041");
        assert_eq!(percent(-0.0123), "-0.012");
        assert_eq!(percent(-2.9e-11), "0.0");
        assert_eq!(percent(3.4e-6), "0.0000034");
        assert_eq!(percent(0.0), "0.0");
        assert_eq!(short(-2.9e-11), "0");
        assert_eq!(ratio(2.4749999999999996), "2.475");
    }

    #[test]
    fn wide_characters_are_a_whole_em() {
        let narrow = text_width_px("abcd", 17.0);
        let wide = text_width_px("日本語版", 17.0);
        assert!(wide > narrow * 3 / 2, "{wide} vs {narrow}");
    }

    #[test]
    fn wrapping_keeps_words_and_marks_what_is_left_out() {
        let lines = wrap("every 4 segments, keep 1", 90, 17.0, 3);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(
            lines.iter().all(|l| text_width_px(l, 17.0) <= 90),
            "{lines:?}"
        );
        assert_eq!(lines.join(" "), "every 4 segments, keep 1");
        let cjk = wrap("日本語のとても長い編集の名前です", 60, 17.0, 2);
        assert_eq!(cjk.len(), 2);
        assert!(cjk[1].ends_with('…'));
        assert!(cjk.iter().all(|l| text_width_px(l, 17.0) <= 60), "{cjk:?}");
        assert_eq!(wrap("", 60, 17.0, 2), vec![String::new()]);
        assert_eq!(fit("trim runbook", 1000, 17.0), "trim runbook");
        assert!(fit("trim runbook and more", 60, 17.0).ends_with('…'));
    }

    #[test]
    fn names_that_differ_at_their_ends_are_cut_where_they_agree() {
        let names: Vec<String> = [
            "trim the output of the nightly step by 30 percent: runbook",
            "trim the output of the nightly step by 50 percent: changelog",
            "merge status checks",
        ]
        .iter()
        .map(|n| n.to_string())
        .collect();
        let short = apart(&names, |n| n.chars().count() <= 40);
        assert_eq!(
            short,
            [
                "trim the output of … 30 percent: runbook",
                "trim the output … 50 percent: changelog",
                "merge status checks",
            ]
        );
        // Plain end cuts would have made the first two alike.
        assert_eq!(
            truncate(&names[0], 30),
            truncate(&names[1], 30),
            "the case this guards"
        );
        // Names that fit, or share no more than a word, are left whole.
        assert_eq!(apart(&names, |_| true), names);
        let alone = vec!["a very long name with nothing in common".to_string()];
        assert_eq!(apart(&alone, |_| false), alone);
    }

    #[test]
    fn control_characters_are_cleaned() {
        assert_eq!(clean("a\u{1}b\nc&<>\""), "a b c&<>\"");
    }
}
