//! Describing where a pair of edits flips, in words a person reads in one line: "when
//! B ≤ 20,000 and ρ ≥ 4".
//!
//! A plain list of the flipping points, one clause per line of the grid, grows with the
//! grid and repeats itself. So before the points are put in words:
//!
//! - an axis that cannot change the ranking is left out (the cache read price and the
//!   retry rate do not enter reread tokens), and so is any axis along which the set does
//!   not change: neither may split the region;
//! - a long list of clauses, one per ρ, becomes one range: with closed forms, the exact
//!   break-even `B*(ρ)` and where it runs between the ends of the swept ρ; without, the
//!   sampled bound;
//! - numbers are shown as a person needs them: ρ, prices and rates to 3 significant
//!   digits, base tokens grouped.

use crate::ledger::Affine;
use crate::number::grouped;
use crate::sweep::Grid;
use std::collections::{BTreeMap, BTreeSet};

/// Beyond this many clauses, a region is summarised as a range.
const MAX_CLAUSES: usize = 3;

/// Clauses listed per group when the region has no simpler shape; the rest are counted
/// (every point is in `sweep.csv` and the JSON report).
const MAX_LISTED: usize = 8;

/// Axis numbers in [`Grid::coordinates`] order.
const BASE: usize = 0;
const RHO: usize = 1;
const READ: usize = 2;
const RETRY: usize = 3;
const REFETCH: usize = 4;

/// What is known about a pair beyond its sampled points.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hints<'a> {
    /// Axes (base, ρ, cache read, retry, re-fetch, as in [`Grid::coordinates`]) whose values cannot
    /// change this ranking.
    pub inert: [bool; 5],
    /// The closed forms of the reread totals of the edit that saves more at the nominal
    /// point and of the one that overtakes it, when the measure is reread tokens and both
    /// have one: the region then has an exact break-even.
    pub exact: Option<(&'a Affine, &'a Affine)>,
}

/// Describes the points `indices` (grid order; `count` in all, more than listed if the
/// list was cut) as a region of the grid.
pub fn describe(grid: &Grid, indices: &[u32], count: usize, hints: &Hints) -> String {
    let dims = grid.dims();
    let complete = indices.len() == count;
    if complete && count == grid.len() {
        return "at every point".into();
    }
    // Project the points onto the axes that can matter.
    let mut kept = [false; 5];
    for d in 0..5 {
        kept[d] = !hints.inert[d] && dims[d] > 1;
    }
    let mut set: BTreeSet<[usize; 5]> = indices
        .iter()
        .map(|&i| project(grid.coordinates(i as usize), &kept))
        .collect();
    // An axis along which every point's neighbours flip too cannot split the region. A
    // cut list cannot show that, so then every axis stays.
    if complete {
        for d in [REFETCH, RETRY, READ, RHO, BASE] {
            if !kept[d] {
                continue;
            }
            let mut without = kept;
            without[d] = false;
            let projected: BTreeSet<[usize; 5]> =
                set.iter().map(|&p| project(p, &without)).collect();
            if projected.len() * dims[d] == set.len() {
                kept = without;
                set = projected;
            }
        }
        let full: usize = (0..5).filter(|&d| kept[d]).map(|d| dims[d]).product();
        if set.len() == full {
            return "at every point".into();
        }
    }
    // The closed forms are the runs' at the nominal re-fetch rate: where the region spans
    // several rates, its break-even is sampled like the rest.
    let hints = &Hints {
        exact: hints.exact.filter(|_| !kept[REFETCH]),
        ..*hints
    };
    // Per (cache read, retry, re-fetch) group, per ρ, the flipping base-token indices.
    type Group = (usize, usize, usize);
    let mut groups: BTreeMap<Group, BTreeMap<usize, Vec<usize>>> = BTreeMap::new();
    for p in &set {
        groups
            .entry((p[READ], p[RETRY], p[REFETCH]))
            .or_default()
            .entry(p[RHO])
            .or_default()
            .push(p[BASE]);
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(&(c, t, f), lines)| {
            let mut others = Vec::new();
            if let (true, Some(read)) = (kept[READ], grid.cache_read[c]) {
                others.push(format!("cache read = {}", significant(read, 3)));
            }
            if kept[RETRY] {
                others.push(format!(
                    "retry rate = {}",
                    significant(grid.retry_rate[t], 3)
                ));
            }
            if kept[REFETCH] {
                others.push(format!(
                    "re-fetch rate = {}",
                    significant(grid.refetch[f], 3)
                ));
            }
            let clauses = clauses(grid, lines, &kept);
            let mut plane = if clauses.len() > MAX_CLAUSES {
                summary(grid, lines, hints, complete).map_or_else(|| clauses, |s| vec![s])
            } else {
                clauses
            };
            let unlisted = plane.len().saturating_sub(MAX_LISTED);
            plane.truncate(MAX_LISTED);
            let plane: Vec<String> = plane
                .into_iter()
                .map(|clause| {
                    let words: Vec<&str> = std::iter::once(clause.as_str())
                        .chain(others.iter().map(String::as_str))
                        .filter(|s| !s.is_empty())
                        .collect();
                    if words.is_empty() {
                        "at every (B, ρ)".to_string()
                    } else {
                        words.join(" and ")
                    }
                })
                .collect();
            let mut text = plane.join("; or ");
            if unlisted > 0 {
                text.push_str(&format!("; or {unlisted} more such clauses"));
            }
            text
        })
        .collect();
    let mut text = format!("when {}", parts.join("; or "));
    if !complete {
        text.push_str(&format!(
            " (and more: {} points in all, first {} listed)",
            grouped(count as f64, 0),
            grouped(indices.len() as f64, 0)
        ));
    }
    text
}

/// `p` with the axes not kept set to 0.
fn project(mut p: [usize; 5], kept: &[bool; 5]) -> [usize; 5] {
    for d in 0..5 {
        if !kept[d] {
            p[d] = 0;
        }
    }
    p
}

/// One clause per set of ρ values that share the flipping base-token values, in ρ order:
/// "B ≤ 20,000 and ρ ≥ 4".
fn clauses(grid: &Grid, lines: &BTreeMap<usize, Vec<usize>>, kept: &[bool; 5]) -> Vec<String> {
    let nb = if kept[BASE] {
        grid.base_tokens.len()
    } else {
        1
    };
    let nr = if kept[RHO] {
        grid.bytes_per_token.len()
    } else {
        1
    };
    // B clause → ρ indices, in the order of each clause's first ρ.
    let mut by_clause: Vec<(String, Vec<usize>)> = Vec::new();
    for (&r, bs) in lines {
        let b_clause = span("B", bs, nb, |i| grouped(grid.base_tokens[i], 0));
        match by_clause.iter_mut().find(|(c, _)| *c == b_clause) {
            Some((_, rs)) => rs.push(r),
            None => by_clause.push((b_clause, vec![r])),
        }
    }
    by_clause
        .into_iter()
        .map(|(b_clause, rs)| {
            let r_clause = span("ρ", &rs, nr, |i| significant(grid.bytes_per_token[i], 3));
            [b_clause, r_clause]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" and ")
        })
        .collect()
}

/// The base-token values that flip at each ρ, as one range: below (or above) the exact
/// break-even when the pair has closed forms and it accounts for every point, else below
/// (or above) a bound sampled at each ρ. None when the points are not of that shape.
fn summary(
    grid: &Grid,
    lines: &BTreeMap<usize, Vec<usize>>,
    hints: &Hints,
    complete: bool,
) -> Option<String> {
    let nb = grid.base_tokens.len();
    let rhos = &grid.bytes_per_token;
    if let Some(text) = hints
        .exact
        .filter(|_| complete)
        .and_then(|(a, b)| exact(grid, lines, a, b))
    {
        return Some(text);
    }
    // Sampled: every ρ line flips below a bound (a prefix of B), or every one above.
    let below = lines.values().all(|bs| is_run(bs, 0, nb));
    let above = lines.values().all(|bs| is_run(bs, nb - bs.len(), nb));
    let (&r0, &r1) = (lines.keys().next()?, lines.keys().next_back()?);
    let bound = |r: usize| -> Option<String> {
        let bs = lines.get(&r)?;
        let b = if below { bs.last() } else { bs.first() }?;
        Some(grouped(grid.base_tokens[*b], 0))
    };
    let (side, bound_name, word) = match (below, above) {
        (true, _) => ("≤", "b(ρ)", "largest"),
        (false, true) => ("≥", "b(ρ)", "smallest"),
        _ => return None,
    };
    let contiguous = r1 - r0 + 1 == lines.len();
    if !contiguous {
        return None;
    }
    let where_rho = if lines.len() == rhos.len() {
        String::new()
    } else {
        format!(
            " for {} ≤ ρ ≤ {}",
            significant(rhos[r0], 3),
            significant(rhos[r1], 3)
        )
    };
    Some(format!(
        "B {side} {bound_name}{where_rho}, the {word} swept B that flips at each ρ, from {} at ρ = {} to {} at ρ = {} (sampled)",
        bound(r0)?,
        significant(rhos[r0], 3),
        bound(r1)?,
        significant(rhos[r1], 3),
    ))
}

/// "B < B*(ρ), the break-even, which runs from 12,400 at ρ = 2.5 to 18,100 at ρ = 4":
/// `a` saves more at the nominal point, `b` overtakes it. None unless, at every swept ρ,
/// the break-even is a positive number and the flipping points are exactly those beyond
/// it (a point within a hair of it may fall either way).
fn exact(
    grid: &Grid,
    lines: &BTreeMap<usize, Vec<usize>>,
    a: &Affine,
    b: &Affine,
) -> Option<String> {
    // a's saving less b's = T_b − T_a = slope·B + intercept(ρ); b is ahead where negative.
    let slope = b.calls - a.calls;
    if slope == 0.0 {
        return None;
    }
    let root = |rho: f64| -((b.tokens - a.tokens) + (b.bytes - a.bytes) / rho) / slope;
    for (r, &rho) in grid.bytes_per_token.iter().enumerate() {
        let star = root(rho);
        if !(star.is_finite() && star > 0.0) {
            return None;
        }
        let flipping = lines.get(&r).map_or(&[][..], Vec::as_slice);
        for (i, &base) in grid.base_tokens.iter().enumerate() {
            let predicted = if slope > 0.0 {
                base < star
            } else {
                base > star
            };
            let near = (base - star).abs() <= 1e-6 * star;
            if predicted != flipping.contains(&i) && !near {
                return None;
            }
        }
    }
    let side = if slope > 0.0 { "<" } else { ">" };
    let rhos = &grid.bytes_per_token;
    let (first, last) = (*rhos.first()?, *rhos.last()?);
    let (from, to) = (significant(root(first), 3), significant(root(last), 3));
    Some(if rhos.len() == 1 {
        format!(
            "B {side} {from}, the break-even at ρ = {}",
            significant(first, 3)
        )
    } else if from == to {
        format!("B {side} {from}, the break-even at every swept ρ")
    } else {
        format!(
            "B {side} B*(ρ), the break-even, which runs from {from} at ρ = {} to {to} at ρ = {}",
            significant(first, 3),
            significant(last, 3)
        )
    })
}

/// Whether sorted `set` is exactly `start..start + set.len()` within `0..len`.
fn is_run(set: &[usize], start: usize, len: usize) -> bool {
    start + set.len() <= len && set.iter().enumerate().all(|(k, &i)| i == start + k)
}

/// A clause for axis indices `set` out of `len`: empty when it is the whole axis,
/// `X ≤ v` for a prefix, `X ≥ v` for a suffix, `v1 ≤ X ≤ v2` for a run, else a list.
fn span(name: &str, set: &[usize], len: usize, value: impl Fn(usize) -> String) -> String {
    let mut set = set.to_vec();
    set.sort_unstable();
    set.dedup();
    let (Some(&first), Some(&last)) = (set.first(), set.last()) else {
        return String::new();
    };
    let contiguous = last - first + 1 == set.len();
    match (contiguous, first, last) {
        _ if set.len() == len => String::new(),
        (_, _, _) if set.len() == 1 => format!("{name} = {}", value(first)),
        (true, 0, _) => format!("{name} ≤ {}", value(last)),
        (true, _, l) if l == len - 1 => format!("{name} ≥ {}", value(first)),
        (true, _, _) => format!("{} ≤ {name} ≤ {}", value(first), value(last)),
        (false, _, _) => {
            let values: Vec<String> = set.iter().map(|&i| value(i)).collect();
            format!("{name} ∈ {{{}}}", values.join(", "))
        }
    }
}

/// `x` to `digits` significant digits, without trailing zeros, grouped in thousands:
/// `2.4749999999999996` → `2.47`, `4.0` → `4`, `12,437` → `12,400`.
pub fn significant(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return grouped(x, 0);
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = digits - 1 - magnitude;
    if decimals <= 0 {
        let scale = 10f64.powi(-decimals);
        return grouped((x / scale).round() * scale, 0);
    }
    let text = format!("{:.*}", decimals as usize, x);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        Grid {
            base_tokens: vec![20_000.0, 30_000.0, 40_000.0],
            bytes_per_token: vec![2.5, 3.3, 4.0],
            cache_read: vec![None],
            retry_rate: vec![0.0],
            refetch: vec![0.0],
            default_axes: false,
        }
    }

    fn index(g: &Grid, b: usize, r: usize) -> u32 {
        (b * g.dims()[1] + r) as u32
    }

    fn plain(g: &Grid, points: &[u32]) -> String {
        describe(g, points, points.len(), &Hints::default())
    }

    #[test]
    fn a_corner_reads_as_two_bounds() {
        let g = grid();
        assert_eq!(plain(&g, &[index(&g, 0, 2)]), "when B = 20,000 and ρ = 4");
        let points = [index(&g, 0, 1), index(&g, 0, 2), index(&g, 1, 2)];
        assert_eq!(
            plain(&g, &points),
            "when B = 20,000 and ρ = 3.3; or B ≤ 30,000 and ρ = 4"
        );
    }

    #[test]
    fn a_whole_column_drops_the_other_axis() {
        let g = grid();
        let points: Vec<u32> = (0..3).map(|r| index(&g, 0, r)).collect();
        assert_eq!(plain(&g, &points), "when B = 20,000");
        let points: Vec<u32> = (0..3)
            .flat_map(|r| [index(&g, 0, r), index(&g, 1, r)])
            .collect();
        assert_eq!(plain(&g, &points), "when B ≤ 30,000");
    }

    /// Regression: a 4-D sweep printed the same B/ρ clause once per cache read value, though
    /// neither the read price nor the retry rate can change a ranking on reread tokens.
    #[test]
    fn axes_that_cannot_matter_do_not_split_the_region() {
        let g = Grid {
            cache_read: vec![Some(0.1), Some(0.25), Some(0.5)],
            retry_rate: vec![0.0, 0.5],
            refetch: vec![0.0],
            ..grid()
        };
        // B = 20,000 and ρ = 4 at every cache read and retry rate, plus one stray point
        // (so the set is not the same along those axes).
        let corner = |c: usize, t: usize| ((2 * 3 + c) * 2 + t) as u32;
        let mut points: Vec<u32> = (0..3)
            .flat_map(|c| (0..2).map(move |t| corner(c, t)))
            .collect();
        points.push(6); // (b 0, r 1, c 0, t 0): B = 20,000, ρ = 3.3, first read, no retry
        points.sort_unstable();
        let tokens = Hints {
            inert: [false, false, true, true, false],
            exact: None,
        };
        let text = describe(&g, &points, points.len(), &tokens);
        assert_eq!(text, "when B = 20,000 and ρ ≥ 3.3");
        // On cost every axis may matter: the stray point keeps its read price and retry rate.
        let text = describe(&g, &points, points.len(), &Hints::default());
        assert!(
            text.starts_with("when B = 20,000 and ρ ≥ 3.3 and cache read = 0.1 and retry rate = 0; or B = 20,000 and ρ = 4 and cache read = 0.1 and retry rate = 0.5; or"),
            "{text}"
        );
        assert_eq!(text.matches("; or ").count(), 5, "{text}");
    }

    /// Regression: a 45 × 26 grid gave 16 "or" clauses and ρ = 2.4749999999999996.
    #[test]
    fn a_long_region_is_the_exact_break_even() {
        let g = Grid {
            base_tokens: (0..45)
                .map(|i| 1_000.0 + 59_000.0 * i as f64 / 44.0)
                .collect(),
            bytes_per_token: (0..26).map(|i| 1.5 + 3.5 * i as f64 / 25.0).collect(),
            cache_read: vec![None],
            retry_rate: vec![0.0],
            refetch: vec![0.0],
            default_axes: false,
        };
        // b makes 2 calls more than a but re-reads 150,000 bytes less: b is ahead below
        // B*(ρ) = 150,000 / (2ρ), from 50,000 at ρ = 1.5 to 15,000 at ρ = 5.
        let a = Affine {
            calls: 20.0,
            tokens: 1_000.0,
            bytes: 150_000.0,
        };
        let b = Affine {
            calls: 22.0,
            tokens: 1_000.0,
            bytes: 0.0,
        };
        let mut points = Vec::new();
        for (bi, &base) in g.base_tokens.iter().enumerate() {
            for (r, &rho) in g.bytes_per_token.iter().enumerate() {
                if base < 150_000.0 / rho / 2.0 {
                    points.push((bi * 26 + r) as u32);
                }
            }
        }
        let hints = Hints {
            inert: [false, false, true, true, false],
            exact: Some((&a, &b)),
        };
        assert_eq!(
            describe(&g, &points, points.len(), &hints),
            "when B < B*(ρ), the break-even, which runs from 50,000 at ρ = 1.5 to 15,000 at ρ = 5"
        );
        // Without closed forms, the sampled bound; every number short.
        let sampled = describe(&g, &points, points.len(), &Hints::default());
        assert_eq!(
            sampled,
            "when B ≤ b(ρ), the largest swept B that flips at each ρ, from 49,273 at ρ = 1.5 to 14,409 at ρ = 5 (sampled)"
        );
        // A short region keeps its clauses, with ρ to 3 significant digits.
        let few: Vec<u32> = vec![(26 + 7) as u32];
        assert_eq!(describe(&g, &few, 1, &hints), "when B = 2,341 and ρ = 2.48");
    }

    #[test]
    fn significant_digits_for_people() {
        assert_eq!(significant(2.474_999_999_999_999_6, 3), "2.47");
        assert_eq!(significant(3.320_000_000_000_000_3, 3), "3.32");
        assert_eq!(significant(4.0, 3), "4");
        assert_eq!(significant(0.1, 3), "0.1");
        assert_eq!(significant(12_437.0, 3), "12,400");
        assert_eq!(significant(18_149.9, 3), "18,100");
        assert_eq!(significant(999.6, 3), "1,000");
        assert_eq!(significant(0.0, 3), "0");
    }
}
