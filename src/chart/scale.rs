//! Which edits one shared percent axis of `savings.svg` fits. The chart is read for where
//! lines cross; an edit far above or below every other, crossing none of them, would set
//! the scale and squeeze the edits that do swap places into one band. Such an edit is left
//! off the scale (the chart says where it is, in words), and the axis fits the rest.

/// Where an edit is drawn against the shared axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A line on the axis.
    On,
    /// Off the scale, above every line drawn.
    Above,
    /// Off the scale, below every line drawn.
    Below,
}

/// An edit is left off the scale only when fitting it would more than this many times
/// widen the axis the crossing edits need.
const WIDEN_AT_MOST: f64 = 2.0;

/// Where each edit goes, from `percent[r][b][e]` (percent saved by edit `e` at the r-th
/// bytes-per-token value and b-th base-token value) and the pairs with a break-even.
///
/// The edits that cross another (their order changes between two neighbouring base-token
/// values of a panel, or they have a break-even) always fit, and so does zero. Every
/// other edit fits unless its whole range lies beyond theirs and fitting it would widen
/// the axis more than [`WIDEN_AT_MOST`] times. Nothing crosses: every edit fits.
pub fn places(
    percent: &[Vec<Vec<f64>>],
    edits: usize,
    break_evens: &[(usize, usize)],
) -> Vec<Place> {
    let mut crossing = vec![false; edits];
    for &(a, b) in break_evens {
        for e in [a, b] {
            if let Some(c) = crossing.get_mut(e) {
                *c = true;
            }
        }
    }
    for a in 0..edits {
        for b in a + 1..edits {
            if crosses(percent, a, b) {
                crossing[a] = true;
                crossing[b] = true;
            }
        }
    }
    if !crossing.iter().any(|&c| c) {
        return vec![Place::On; edits];
    }
    let range = |e: usize| {
        super::style::finite_range(
            percent
                .iter()
                .flatten()
                .filter_map(|cell| cell.get(e).copied()),
        )
    };
    let ranges: Vec<Option<(f64, f64)>> = (0..edits).map(range).collect();
    let (mut lo, mut hi) = (0.0_f64, 0.0_f64);
    for (e, r) in ranges.iter().enumerate() {
        if let (true, Some((l, h))) = (crossing[e], r) {
            lo = lo.min(*l);
            hi = hi.max(*h);
        }
    }
    let core = (hi - lo).max(f64::MIN_POSITIVE);
    // Closest first, so a near edit is fitted before a far one is judged.
    let mut others: Vec<(usize, (f64, f64))> = (0..edits)
        .filter(|&e| !crossing[e])
        .filter_map(|e| Some((e, ranges[e]?)))
        .collect();
    let distance = |&(l, h): &(f64, f64)| (l - hi).max(lo - h).max(0.0);
    others.sort_by(|x, y| {
        distance(&x.1)
            .total_cmp(&distance(&y.1))
            .then(x.0.cmp(&y.0))
    });
    let mut places = vec![Place::On; edits];
    for (e, (l, h)) in others {
        let (wider_lo, wider_hi) = (lo.min(l), hi.max(h));
        let beyond = l > hi || h < lo;
        if beyond && wider_hi - wider_lo > WIDEN_AT_MOST * core {
            places[e] = if l > hi { Place::Above } else { Place::Below };
        } else {
            (lo, hi) = (wider_lo, wider_hi);
        }
    }
    places
}

/// Whether the order of `a` and `b` changes between two neighbouring points of a panel.
fn crosses(percent: &[Vec<Vec<f64>>], a: usize, b: usize) -> bool {
    percent.iter().any(|row| {
        let gaps: Vec<f64> = row
            .iter()
            .filter_map(|cell| Some(cell.get(a)? - cell.get(b)?))
            .filter(|d| d.is_finite())
            .collect();
        gaps.windows(2)
            .any(|w| w[0] == 0.0 || w[1] == 0.0 || (w[0] > 0.0) != (w[1] > 0.0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One panel of three base-token values; `cells[b][e]`.
    fn panel(cells: &[&[f64]]) -> Vec<Vec<Vec<f64>>> {
        vec![cells.iter().map(|c| c.to_vec()).collect()]
    }

    #[test]
    fn an_edit_far_above_two_that_cross_is_off_the_scale() {
        let percent = panel(&[&[10.0, 8.0, 45.0], &[9.0, 9.5, 40.0], &[8.0, 11.0, 35.0]]);
        assert_eq!(
            places(&percent, 3, &[]),
            [Place::On, Place::On, Place::Above]
        );
        // Far below, too.
        let percent = panel(&[&[10.0, 8.0, -45.0], &[9.0, 9.5, -40.0], &[8.0, 11.0, -35.0]]);
        assert_eq!(places(&percent, 3, &[])[2], Place::Below);
    }

    #[test]
    fn a_near_edit_or_nothing_crossing_keeps_every_edit_on_the_scale() {
        // 14 % beside two that cross under 11 %: fitting it does not double the axis.
        let percent = panel(&[&[10.0, 8.0, 14.0], &[9.0, 9.5, 14.0], &[8.0, 11.0, 14.0]]);
        assert_eq!(places(&percent, 3, &[]), [Place::On; 3]);
        // No pair crosses: nothing to protect, every edit on the axis.
        let percent = panel(&[&[10.0, 8.0, 45.0], &[9.0, 7.0, 40.0]]);
        assert_eq!(places(&percent, 3, &[]), [Place::On; 3]);
        // A break-even counts as a crossing even between sampled points.
        let percent = panel(&[&[10.0, 8.0, 45.0], &[9.0, 7.0, 40.0]]);
        assert_eq!(places(&percent, 3, &[(0, 1)])[2], Place::Above);
    }
}
