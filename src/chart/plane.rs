//! The arithmetic behind `ranking.svg`: which of two edits saves more at each swept (B, ρ)
//! point, the exact break-even curve of two affine reread totals, and the pixel frame both
//! are drawn in. Pure functions, tested on their own.

use super::style;
use super::{ChartError, ChartInput, PlaneSlice, RankingPlane};
use crate::ledger::Affine;
use crate::rank;

/// Points sampled along ρ for the break-even curve (the swept values are added to them).
const CURVE_SAMPLES: usize = 160;

/// Which of two edits saves more at a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The edit that saves more at the nominal point.
    A,
    /// The other one: a flip.
    B,
    /// Within 1e-9 of the baseline of each other.
    Tie,
}

/// A plot's pixel box and the data ranges it shows: B across, ρ up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// Left, top, right, bottom, px.
    pub px: (i32, i32, i32, i32),
    /// Base tokens at the left and right edges.
    pub x: (f64, f64),
    /// Bytes per token at the bottom and top edges.
    pub y: (f64, f64),
}

impl Frame {
    /// Pixel column of base tokens `b`.
    pub fn x_px(&self, b: f64) -> i32 {
        let (l, _, r, _) = self.px;
        let share = (b - self.x.0) / (self.x.1 - self.x.0);
        l + (share * f64::from(r - l)).round() as i32
    }

    /// Pixel row of bytes per token `rho` (higher ρ higher up).
    pub fn y_px(&self, rho: f64) -> i32 {
        let (_, t, _, b) = self.px;
        let share = (rho - self.y.0) / (self.y.1 - self.y.0);
        b - (share * f64::from(b - t)).round() as i32
    }

    /// Pixels of `(B, ρ)`.
    pub fn to_px(&self, (b, rho): (f64, f64)) -> (i32, i32) {
        (self.x_px(b), self.y_px(rho))
    }

    /// Whether `(B, ρ)` lies inside the ranges.
    pub fn contains(&self, (b, rho): (f64, f64)) -> bool {
        b >= self.x.0 && b <= self.x.1 && rho >= self.y.0 && rho <= self.y.1
    }
}

/// The axis range that gives each ascending value a cell reaching halfway to its
/// neighbours (half a step beyond the ends); ±10 % around a single value.
pub fn cell_range(values: &[f64]) -> (f64, f64) {
    match values {
        [] => (0.0, 1.0),
        [only] => style::padded(*only, *only, 0.0),
        [first, second, ..] => {
            let n = values.len();
            let (before_last, last) = (values[n - 2], values[n - 1]);
            (
                first - (second - first) / 2.0,
                last + (last - before_last) / 2.0,
            )
        }
    }
}

/// Edges of value `i`'s cell: halfway to each neighbour, the range's ends at the ends.
fn cell_edges(values: &[f64], i: usize, range: (f64, f64)) -> (f64, f64) {
    let low = match i.checked_sub(1).and_then(|j| values.get(j)) {
        Some(before) => (before + values[i]) / 2.0,
        None => range.0,
    };
    let high = match values.get(i + 1) {
        Some(after) => (values[i] + after) / 2.0,
        None => range.1,
    };
    (low, high)
}

/// Which of `a` and `b` saves more, given savings `saved` (one per edit) and the
/// baseline's total.
pub fn side(saved: &[f64], baseline: f64, a: usize, b: usize) -> Side {
    let (sa, sb) = (
        saved.get(a).copied().unwrap_or(f64::NAN),
        saved.get(b).copied().unwrap_or(f64::NAN),
    );
    if rank::tied(sa, sb, baseline) {
        Side::Tie
    } else if sa > sb {
        Side::A
    } else {
        Side::B
    }
}

/// One plane shaded for a pair of edits.
#[derive(Debug, Clone, PartialEq)]
pub struct Shading {
    /// Pixel boxes (left, top, right, bottom), one per run of cells along a ρ row where the
    /// same edit saves more.
    pub boxes: Vec<((i32, i32, i32, i32), Side)>,
    /// Points where the second edit saves more, where they tie, and points in all.
    pub flipped: usize,
    pub ties: usize,
    pub cells: usize,
}

/// Shades one plane for the pair (a, b).
pub fn shading(
    plane: &RankingPlane,
    slice: &PlaneSlice,
    a: usize,
    b: usize,
    frame: &Frame,
) -> Shading {
    let (bs, rs) = (&plane.base_tokens, &plane.bytes_per_token);
    let mut boxes = Vec::new();
    let (mut flipped, mut ties, mut cells) = (0, 0, 0);
    for (r, (row, totals)) in slice.saved.iter().zip(&slice.baseline).enumerate() {
        let (low, high) = cell_edges(rs, r, frame.y);
        let (top, bottom) = (frame.y_px(high), frame.y_px(low));
        let mut run: Option<(usize, Side)> = None;
        for (col, (saved, &total)) in row.iter().zip(totals).enumerate() {
            let here = side(saved, total, a, b);
            cells += 1;
            flipped += usize::from(here == Side::B);
            ties += usize::from(here == Side::Tie);
            match run {
                Some((_, s)) if s == here => {}
                Some((start, s)) => {
                    boxes.push((span(bs, start, col - 1, frame, top, bottom), s));
                    run = Some((col, here));
                }
                None => run = Some((col, here)),
            }
        }
        if let Some((start, s)) = run {
            boxes.push((span(bs, start, row.len() - 1, frame, top, bottom), s));
        }
    }
    Shading {
        boxes,
        flipped,
        ties,
        cells,
    }
}

/// Rows and columns of the exact shading of an affine pair.
const EXACT_STEPS: usize = 96;

/// The plane shaded from the closed forms of the pair's reread totals `ta`, `tb`: which
/// saves more at every spot of the plot, not only at the sampled points, so the shading
/// meets the exact break-even curve instead of crossing it in steps. Boxes merge along
/// each of [`EXACT_STEPS`] rows.
pub fn exact_shading(ta: &Affine, tb: &Affine, frame: &Frame) -> Vec<((i32, i32, i32, i32), Side)> {
    let (x0, x1) = frame.x;
    let (y0, y1) = frame.y;
    let at = |k: usize, lo: f64, hi: f64| lo + (hi - lo) * k as f64 / EXACT_STEPS as f64;
    let side_at = |b: f64, rho: f64| {
        let point = crate::ledger::Assumptions {
            base_tokens: b,
            bytes_per_token: rho,
        };
        let (a_total, b_total) = (ta.at(point), tb.at(point));
        // A smaller total is a larger saving; within the tie tolerance it is a tie.
        if rank::tied(a_total, b_total, a_total.abs().max(b_total.abs())) {
            Side::Tie
        } else if a_total < b_total {
            Side::A
        } else {
            Side::B
        }
    };
    let mut boxes: Vec<((i32, i32, i32, i32), Side)> = Vec::new();
    // Boxes of the row below, by index: a box of the same columns and side grows upward
    // instead of stacking, so no seam shows between rows.
    let mut below: Vec<usize> = Vec::new();
    for row in 0..EXACT_STEPS {
        let (low, high) = (at(row, y0, y1), at(row + 1, y0, y1));
        let rho = (low + high) / 2.0;
        // One pixel of overlap with the row above: abutting boxes would let the
        // background show through their anti-aliased edges as seams.
        let (top, bottom) = ((frame.y_px(high) - 1).max(frame.px.1), frame.y_px(low));
        let mut run: Option<(usize, Side)> = None;
        let mut this_row: Vec<usize> = Vec::new();
        let mut close = |start: usize, end: usize, side: Side, boxes: &mut Vec<_>| {
            let (left, right) = (frame.x_px(at(start, x0, x1)), frame.x_px(at(end, x0, x1)));
            let grown = below.iter().copied().find(|&i| {
                let ((l, t, r, _), s): ((i32, i32, i32, i32), Side) = boxes[i];
                l == left && r == right && s == side && t <= bottom
            });
            match grown {
                Some(i) => {
                    boxes[i].0.1 = top;
                    this_row.push(i);
                }
                None => {
                    boxes.push(((left, top, right, bottom), side));
                    this_row.push(boxes.len() - 1);
                }
            }
        };
        for col in 0..EXACT_STEPS {
            let b = (at(col, x0, x1) + at(col + 1, x0, x1)) / 2.0;
            let here = side_at(b, rho);
            match run {
                Some((_, s)) if s == here => {}
                Some((start, s)) => {
                    close(start, col, s, &mut boxes);
                    run = Some((col, here));
                }
                None => run = Some((col, here)),
            }
        }
        if let Some((start, s)) = run {
            close(start, EXACT_STEPS, s, &mut boxes);
        }
        below = this_row;
    }
    boxes
}

/// Pixel box of base-token cells `first..=last` between `top` and `bottom`.
fn span(
    bs: &[f64],
    first: usize,
    last: usize,
    frame: &Frame,
    top: i32,
    bottom: i32,
) -> (i32, i32, i32, i32) {
    let (left, _) = cell_edges(bs, first, frame.x);
    let (_, right) = cell_edges(bs, last, frame.x);
    (frame.x_px(left), top, frame.x_px(right), bottom)
}

/// Pixels of every swept point.
pub fn points(plane: &RankingPlane, frame: &Frame) -> Vec<(i32, i32)> {
    plane
        .bytes_per_token
        .iter()
        .flat_map(|&rho| {
            plane
                .base_tokens
                .iter()
                .map(move |&b| frame.to_px((b, rho)))
        })
        .collect()
}

/// Where edits `a` and `b` (reread totals `ta`, `tb`) save the same inside the box
/// `x` × `y`, as a polyline of `(B, ρ)` ordered by ρ; empty when they never tie there.
///
/// The saving difference is `(c_b − c_a)·B + (t_b − t_a) + (y_b − y_a)/ρ`, so the tie is
/// `B*(ρ) = −((t_b − t_a) + (y_b − y_a)/ρ) / (c_b − c_a)`: a smooth curve, sampled densely
/// over the whole ρ range, through the exact value at every swept ρ and ending exactly on
/// the box's edges. With equal call counts the tie is the line `ρ* = −(y_b − y_a)/(t_b − t_a)`.
pub fn break_even_curve(
    ta: &Affine,
    tb: &Affine,
    x: (f64, f64),
    y: (f64, f64),
    swept_rho: &[f64],
) -> Vec<(f64, f64)> {
    let (dc, dt, dy) = (
        tb.calls - ta.calls,
        tb.tokens - ta.tokens,
        tb.bytes - ta.bytes,
    );
    let inside_y = |rho: f64| rho > 0.0 && rho >= y.0 && rho <= y.1;
    if dc == 0.0 {
        let rho = -dy / dt;
        return if dt != 0.0 && inside_y(rho) {
            vec![(x.0, rho), (x.1, rho)]
        } else {
            Vec::new()
        };
    }
    let b_at = |rho: f64| -(dt + dy / rho) / dc;
    let mut rhos: Vec<f64> = (0..=CURVE_SAMPLES)
        .map(|k| y.0 + (y.1 - y.0) * k as f64 / CURVE_SAMPLES as f64)
        .chain(swept_rho.iter().copied())
        .filter(|&rho| inside_y(rho))
        .collect();
    // Where the curve leaves through the left or right edge, exactly.
    for edge in [x.0, x.1] {
        let rho = -dy / (dc * edge + dt);
        if rho.is_finite() && inside_y(rho) {
            rhos.push(rho);
        }
    }
    rhos.sort_by(f64::total_cmp);
    rhos.dedup();
    let slack = 1e-9 * (x.1 - x.0).abs();
    rhos.into_iter()
        .map(|rho| (b_at(rho), rho))
        .filter(|(b, _)| b.is_finite() && *b >= x.0 - slack && *b <= x.1 + slack)
        .map(|(b, rho)| (b.clamp(x.0, x.1), rho))
        .collect()
}

/// The break-even in words for a panel's caption, at the nominal ρ; `short` for a small
/// panel (`exact B* = 14.4k at ρ 3.8`).
pub fn break_even_words(
    ta: &Affine,
    tb: &Affine,
    rho: f64,
    curve: &[(f64, f64)],
    short: bool,
) -> String {
    let (dc, dt, dy) = (
        tb.calls - ta.calls,
        tb.tokens - ta.tokens,
        tb.bytes - ta.bytes,
    );
    if dc == 0.0 {
        let rho_star = -dy / dt;
        return if dt != 0.0 && rho_star > 0.0 {
            format!(
                "exact break-even at ρ = {} for all B",
                style::ratio(rho_star)
            )
        } else if dt == 0.0 && dy == 0.0 {
            "exact: the same everywhere".to_string()
        } else {
            "exact: no break-even for B, ρ > 0".to_string()
        };
    }
    let b_star = -(dt + dy / rho) / dc;
    let off = match (curve.len() < 2, short) {
        (false, _) => "",
        (true, false) => " (off the plot)",
        (true, true) => ", off",
    };
    if b_star > 0.0 && short {
        format!(
            "exact B* = {} at ρ {}{off}",
            style::short(b_star),
            style::ratio(rho)
        )
    } else if b_star > 0.0 {
        format!(
            "exact break-even at ρ = {}: B = {}{off}",
            style::ratio(rho),
            style::short(b_star)
        )
    } else if curve.len() >= 2 {
        "exact break-even: the line".to_string()
    } else {
        format!("exact: no break-even at ρ = {}", style::ratio(rho))
    }
}

/// Tick labels at swept values, at least `spacing_px` apart. Round swept values are
/// preferred: the largest 1–2–2.5–5 step (from the one that fits the spacing down to a
/// tenth of it) whose multiples give at least three labels wins, so a dense axis reads
/// `2, 2.6, 3.2, …` rather than `2, 2.225, 2.45, …`; otherwise every swept value is a
/// candidate.
pub fn ticks(values: &[f64], frame: &Frame, across: bool, spacing_px: i32) -> Vec<(i32, String)> {
    let px = |v: f64| if across { frame.x_px(v) } else { frame.y_px(v) };
    let (lo, hi) = if across { frame.x } else { frame.y };
    let length = {
        let (l, t, r, b) = frame.px;
        if across { r - l } else { b - t }
    };
    // Candidates in order, kept when at least `spacing_px` from the last one kept.
    let spaced = |candidates: &mut dyn Iterator<Item = f64>| -> Vec<(i32, f64)> {
        let mut kept: Vec<(i32, f64)> = Vec::new();
        for v in candidates {
            let at = px(v);
            if kept
                .last()
                .is_none_or(|(last, _)| (at - last).abs() >= spacing_px)
            {
                kept.push((at, v));
            }
        }
        kept
    };
    let room = (length / spacing_px.max(1)).max(1) as f64;
    let round = nice_step((hi - lo) / room).and_then(|largest| {
        let steps = [1.0, 0.5, 0.4, 0.25, 0.2, 0.1].map(|f| largest * f);
        steps.into_iter().find_map(|step| {
            let multiple = |v: &f64| ((v / step) - (v / step).round()).abs() < 1e-6;
            let kept = spaced(&mut values.iter().copied().filter(multiple));
            (kept.len() >= 3).then_some(kept)
        })
    });
    let picked = round.unwrap_or_else(|| spaced(&mut values.iter().copied()));
    picked
        .into_iter()
        .map(|(at, v)| {
            let label = if across {
                style::short(v)
            } else {
                style::ratio(v)
            };
            (at, label)
        })
        .collect()
}

/// The smallest 1, 2, 2.5 or 5 × 10^k at least `raw`.
pub(super) fn nice_step(raw: f64) -> Option<f64> {
    if !raw.is_finite() || raw <= 0.0 {
        return None;
    }
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&step| step >= raw * (1.0 - 1e-9))
}

/// The pair of edits that comes closest to swapping places, when none does.
#[derive(Debug, Clone, PartialEq)]
pub struct Closest {
    /// The edits, the first ahead in the nominal order.
    pub a: usize,
    pub b: usize,
    /// Their smallest gap over the points drawn, in % of the baseline total there.
    pub margin_pct: f64,
    /// Where that is: (B, ρ).
    pub at: (f64, f64),
    /// Whether they tie at every point (then every pair does).
    pub always_tie: bool,
}

/// The pair with the smallest gap anywhere in the planes drawn; pairs that tie at every
/// point are passed over unless every pair does.
pub fn closest_pair(plane: &RankingPlane) -> Option<Closest> {
    let order = &plane.nominal_order;
    let mut best: Option<Closest> = None;
    let mut tied: Option<Closest> = None;
    for (k, &a) in order.iter().enumerate() {
        for &b in &order[k + 1..] {
            let mut pair = Closest {
                a,
                b,
                margin_pct: f64::INFINITY,
                at: plane.nominal,
                always_tie: true,
            };
            for slice in &plane.slices {
                for (r, (row, totals)) in slice.saved.iter().zip(&slice.baseline).enumerate() {
                    for (c, (saved, &total)) in row.iter().zip(totals).enumerate() {
                        let (Some(sa), Some(sb)) = (saved.get(a), saved.get(b)) else {
                            continue;
                        };
                        pair.always_tie &= rank::tied(*sa, *sb, total);
                        let gap = 100.0 * (sa - sb).abs() / total.abs();
                        if gap < pair.margin_pct {
                            pair.margin_pct = gap;
                            pair.at = (
                                plane.base_tokens.get(c).copied().unwrap_or(f64::NAN),
                                plane.bytes_per_token.get(r).copied().unwrap_or(f64::NAN),
                            );
                        }
                    }
                }
            }
            let slot = if pair.always_tie {
                &mut tied
            } else {
                &mut best
            };
            if slot.as_ref().is_none_or(|s| pair.margin_pct < s.margin_pct) {
                *slot = Some(pair);
            }
        }
    }
    best.or(tied)
}

/// Pairs of edits (in nominal order) that tie at every point drawn: the same saving
/// everywhere, so no order between them means anything.
pub fn tied_pairs(plane: &RankingPlane) -> Vec<(usize, usize)> {
    let order = &plane.nominal_order;
    let mut pairs = Vec::new();
    for (k, &a) in order.iter().enumerate() {
        for &b in &order[k + 1..] {
            let always = plane.slices.iter().all(|slice| {
                slice
                    .saved
                    .iter()
                    .zip(&slice.baseline)
                    .flat_map(|(row, totals)| row.iter().zip(totals))
                    .all(|(saved, &total)| side(saved, total, a, b) == Side::Tie)
            });
            if always {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

/// Checks that `plane` fits `input`'s edits and its own axes.
pub fn check(
    input: &ChartInput,
    plane: &RankingPlane,
    chart: &'static str,
) -> Result<(), ChartError> {
    let bad = |message: String| Err(ChartError::Data { chart, message });
    let edits = input.edits.len();
    let (nb, nr) = (plane.base_tokens.len(), plane.bytes_per_token.len());
    for slice in &plane.slices {
        let rows_ok = slice.saved.len() == nr && slice.baseline.len() == nr;
        let cells_ok = slice.saved.iter().all(|row| row.len() == nb)
            && slice.baseline.iter().all(|row| row.len() == nb);
        if !rows_ok || !cells_ok {
            return bad(format!(
                "a slice is not a {nr}×{nb} grid (rows: bytes per token, columns: base tokens)"
            ));
        }
        if let Some(cell) = slice.saved.iter().flatten().find(|c| c.len() != edits) {
            return bad(format!(
                "a cell of {} savings for {edits} edits",
                cell.len()
            ));
        }
    }
    let indices = plane
        .flips
        .iter()
        .flat_map(|f| [f.a, f.b])
        .chain(plane.nominal_order.iter().copied());
    if let Some(e) = indices.into_iter().find(|&e| e >= edits) {
        return bad(format!("edit {e}, but {edits} edits are named"));
    }
    if !plane.affine.is_empty() && plane.affine.len() != edits {
        return bad(format!(
            "{} closed forms for {edits} edits",
            plane.affine.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn affine(calls: f64, tokens: f64, bytes: f64) -> Affine {
        Affine {
            calls,
            tokens,
            bytes,
        }
    }

    #[test]
    fn the_curve_is_exact_at_every_swept_rho_and_ends_on_the_edges() {
        // T_b − T_a = −2·B + 300,000/ρ: tie at B* = 150,000/ρ.
        let (ta, tb) = (affine(20.0, 0.0, 1.0e6), affine(18.0, 0.0, 1.3e6));
        let swept = [2.5, 3.3, 4.0];
        let curve = break_even_curve(&ta, &tb, (15_000.0, 65_000.0), (2.1, 4.35), &swept);
        for rho in swept {
            let want = 150_000.0 / rho;
            assert!(
                curve
                    .iter()
                    .any(|&(b, r)| r == rho && (b - want).abs() < 1e-6),
                "no vertex at ρ = {rho}"
            );
        }
        assert!(curve.windows(2).all(|w| w[0].1 < w[1].1));
        // From the top edge (ρ = 4.35: B = 34.5k) down to where it leaves at B = 65k.
        let first = curve.first().copied().unwrap_or_default();
        let last = curve.last().copied().unwrap_or_default();
        assert!((first.0 - 65_000.0).abs() < 1e-6, "{first:?}");
        assert!((last.1 - 4.35).abs() < 1e-12, "{last:?}");
    }

    #[test]
    fn equal_call_counts_tie_along_one_rho() {
        // T_b − T_a = 1000 − 3300/ρ: tie at ρ = 3.3 for every B.
        let curve = break_even_curve(
            &affine(20.0, 1000.0, 0.0),
            &affine(20.0, 2000.0, -3300.0),
            (1.0, 2.0),
            (2.0, 4.0),
            &[],
        );
        assert_eq!(curve, vec![(1.0, 3.3), (2.0, 3.3)]);
    }

    #[test]
    fn a_break_even_outside_the_box_draws_nothing() {
        let curve = break_even_curve(
            &affine(20.0, 0.0, 1.0e6),
            &affine(18.0, 0.0, 1.3e6),
            (100_000.0, 200_000.0),
            (2.0, 4.0),
            &[],
        );
        assert!(curve.is_empty());
    }

    #[test]
    fn cells_reach_halfway_to_their_neighbours() {
        assert_eq!(cell_range(&[10.0, 20.0, 40.0]), (5.0, 50.0));
        assert_eq!(cell_range(&[10.0, 20.0]), (5.0, 25.0));
        assert_eq!(
            cell_edges(&[10.0, 20.0, 40.0], 1, (5.0, 50.0)),
            (15.0, 30.0)
        );
        let (lo, hi) = cell_range(&[3.3]);
        assert!(lo < 3.3 && hi > 3.3);
    }

    #[test]
    fn dense_axes_are_labelled_at_round_values() {
        let rho: Vec<f64> = (0..41).map(|k| 2.0 + 0.075 * f64::from(k)).collect();
        let frame = Frame {
            px: (0, 0, 600, 330),
            x: (0.0, 1.0),
            y: cell_range(&rho),
        };
        let labels: Vec<String> = ticks(&rho, &frame, false, 20)
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(labels, vec!["2", "2.6", "3.2", "3.8", "4.4", "5"]);
        // Few values: every one labelled.
        let few = [2.5, 3.3, 4.0];
        let frame = Frame {
            y: cell_range(&few),
            ..frame
        };
        assert_eq!(ticks(&few, &frame, false, 20).len(), 3);
        assert_eq!(nice_step(0.3), Some(0.5));
        assert_eq!(nice_step(2100.0), Some(2500.0));
    }

    #[test]
    fn ties_are_ties_not_flips() {
        assert_eq!(side(&[10.0, 10.0 + 1e-7], 1e6, 0, 1), Side::Tie);
        assert_eq!(side(&[10.0, 12.0], 1e6, 0, 1), Side::B);
        assert_eq!(side(&[12.0, 10.0], 1e6, 0, 1), Side::A);
    }
}
