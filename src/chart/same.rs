//! Series that coincide: two edits with identical results would draw one line over the
//! other, and the reader would see one edit. Each later copy is drawn inside the earlier
//! line (a thinner stroke on a wider one), and the legend says `= same as …`; where runs
//! agree for only part of their length, the same nesting is done segment by segment.

use super::style::LINE_PX;

/// Extra stroke width per copy underneath, in px: the colour rim each copy leaves visible.
const RIM_PX: u32 = 3;

/// For each series, the first earlier series equal to it (every value within 1e-9 of the
/// larger magnitude), if any. Series of different lengths never coincide.
pub fn coinciding<'a>(series: impl IntoIterator<Item = &'a [f64]>) -> Vec<Option<usize>> {
    let series: Vec<&[f64]> = series.into_iter().collect();
    (0..series.len())
        .map(|i| (0..i).find(|&j| equal(series[i], series[j])))
        .map(|j| j.map(|j| root(&series, j)))
        .collect()
}

/// The first series `j` equals, following copies back to the original.
fn root(series: &[&[f64]], j: usize) -> usize {
    (0..j).find(|&k| equal(series[j], series[k])).unwrap_or(j)
}

fn equal(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()))
}

/// Stroke width of each series: `own[i]` normally; in a group of copies the first is
/// widest and each later copy [`RIM_PX`] thinner, so every colour shows.
pub fn widths(same_as: &[Option<usize>], own: &[u32]) -> Vec<u32> {
    let mut widths = own.to_vec();
    for (root, _) in same_as.iter().enumerate().filter(|(_, s)| s.is_none()) {
        let group: Vec<usize> = std::iter::once(root)
            .chain((0..same_as.len()).filter(|&i| same_as[i] == Some(root)))
            .collect();
        let k = group.len() as u32;
        for (m, &i) in group.iter().enumerate() {
            let base = own.get(i).copied().unwrap_or(LINE_PX);
            if k > 1 {
                widths[i] = base.max(LINE_PX + RIM_PX * (k - 1 - m as u32));
            }
        }
    }
    widths
}

/// Stroke widths of every segment of every run's polylines, `[run][line][segment]` (a
/// segment joins points `i` and `i + 1`): `own[k]`, or, where later runs (drawn over it)
/// have the identical segment, wide enough that each of them leaves a rim of its own
/// (`LINE_PX + RIM_PX × later copies`). Runs that agree for part of their length, such as
/// every run before the first call an edit changes, then all show there. Points are equal
/// when their positions are and their values are within about 1e-9 of the largest value.
pub fn segment_widths(runs: &[&[Vec<(f64, f64)>]], own: &[u32]) -> Vec<Vec<Vec<u32>>> {
    let scale = runs
        .iter()
        .flat_map(|lines| lines.iter().flatten())
        .map(|p| p.1.abs())
        .filter(|y| y.is_finite())
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let point = |(x, y): (f64, f64)| (x.to_bits(), (y / scale * 1e9).round() as i64);
    type Key = ((u64, i64), (u64, i64));
    let keys = |lines: &[Vec<(f64, f64)>]| -> Vec<Vec<Key>> {
        lines
            .iter()
            .map(|line| {
                line.windows(2)
                    .map(|w| (point(w[0]), point(w[1])))
                    .collect()
            })
            .collect()
    };
    let all: Vec<Vec<Vec<Key>>> = runs.iter().map(|lines| keys(lines)).collect();
    let sets: Vec<rustc_hash::FxHashSet<Key>> = all
        .iter()
        .map(|lines| lines.iter().flatten().copied().collect())
        .collect();
    all.iter()
        .enumerate()
        .map(|(k, lines)| {
            let base = own.get(k).copied().unwrap_or(LINE_PX);
            lines
                .iter()
                .map(|segments| {
                    segments
                        .iter()
                        .map(|key| {
                            let later = sets[k + 1..].iter().filter(|s| s.contains(key)).count();
                            if later == 0 {
                                base
                            } else {
                                base.max(LINE_PX + RIM_PX * later as u32)
                            }
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_that_agree_for_a_while_are_drawn_nested_there() {
        // Three runs over positions 1..4: all agree on the first segment, the first two on
        // the second, none on the third.
        let a = vec![vec![(1.0, 10.0), (2.0, 20.0), (3.0, 30.0), (4.0, 40.0)]];
        let b = vec![vec![
            (1.0, 10.0),
            (2.0, 20.0),
            (3.0, 30.0 + 1e-12),
            (4.0, 35.0),
        ]];
        let c = vec![vec![(1.0, 10.0), (2.0, 20.0), (3.0, 25.0), (4.0, 30.0)]];
        let w = segment_widths(&[&a, &b, &c], &[4, 2, 2]);
        assert_eq!(w[0], vec![vec![2 + 2 * 3, 2 + 3, 4]]);
        assert_eq!(w[1], vec![vec![2 + 3, 2, 2]]);
        assert_eq!(w[2], vec![vec![2, 2, 2]]);
    }

    #[test]
    fn copies_point_at_the_first_and_are_drawn_thinner() {
        let a = [1.0, 2.0];
        let b = [1.0, 3.0];
        let same = coinciding([&a[..], &b[..], &a[..], &[1.0, 2.0 + 1e-12][..]]);
        assert_eq!(same, vec![None, None, Some(0), Some(0)]);
        let w = widths(&same, &[2, 2, 2, 2]);
        assert_eq!(w, vec![2 + 6, 2, 2 + 3, 2]);
        assert!(w[0] > w[2] && w[2] > w[3]);
    }
}
