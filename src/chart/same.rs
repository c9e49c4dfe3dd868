//! Series that coincide: two edits with identical results would draw one line over the
//! other, and the reader would see one edit. Each later copy is drawn inside the earlier
//! line (a thinner stroke on a wider one), and the legend says `= same as …`.

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

#[cfg(test)]
mod tests {
    use super::*;

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
