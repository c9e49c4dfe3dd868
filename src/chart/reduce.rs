//! Per-call series reduced to what a chart's pixel width can show: a million calls become a
//! few thousand points that draw the same picture.

/// Points of a polyline that draws `values` (call `i + 1` at `values[i]`) as it would look
/// at `buckets` pixels wide.
///
/// A series no longer than `buckets` is kept whole. A longer one is cut into `buckets` runs
/// of consecutive calls, and each run keeps its first, lowest, highest and last point, in
/// call order: the polyline then spans every run's exact min–max range and joins the runs
/// as the full series would. Non-finite values are skipped. Points are `(call, value)`
/// with 1-based calls.
pub fn min_max(values: &[f64], buckets: usize) -> Vec<(f64, f64)> {
    let buckets = buckets.max(1);
    if values.len() <= buckets {
        return values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .map(|(i, &v)| (call(i), v))
            .collect();
    }
    let mut points = Vec::with_capacity(buckets * 4);
    for range in bucket_ranges(values.len(), buckets) {
        let start = range.start;
        let mut kept: Option<[(usize, f64); 4]> = None;
        for (offset, &v) in values[range].iter().enumerate() {
            if !v.is_finite() {
                continue;
            }
            let i = start + offset;
            let [first, lowest, highest, _] = kept.get_or_insert([(i, v); 4]);
            let first = *first;
            let lowest = if v < lowest.1 { (i, v) } else { *lowest };
            let highest = if v > highest.1 { (i, v) } else { *highest };
            kept = Some([first, lowest, highest, (i, v)]);
        }
        if let Some(mut four) = kept {
            four.sort_by_key(|&(i, _)| i);
            let mut previous = None;
            for (i, v) in four {
                if previous != Some(i) {
                    points.push((call(i), v));
                    previous = Some(i);
                }
            }
        }
    }
    points
}

/// Polylines that draw `values` at baseline positions `positions` (call `i` at position
/// `positions[i] + 1`, ascending, possibly fractional for a moved call; empty: at `i + 1`)
/// on an axis of `x_len` positions, as they would look at `buckets` pixels wide.
///
/// Like [`min_max`], each bucket (now a run of positions, not of calls) keeps its first,
/// lowest, highest and last point. A line is broken where calls went (a merge, a drop, a
/// call moved away): wherever two neighbouring calls lie more than one position apart, or
/// more than a bucket apart once the series is reduced, so the area under the lines stays
/// the run's own reread total.
pub fn segments(
    values: &[f64],
    positions: &[f64],
    x_len: usize,
    buckets: usize,
) -> Vec<Vec<(f64, f64)>> {
    let buckets = buckets.max(1);
    let x_len = x_len.max(values.len()).max(1);
    let at = |i: usize| positions.get(i).copied().unwrap_or(i as f64);
    // Exact for any axis a run can have (positions and their products stay far below
    // 2^53), and the same bucket for the same position every time.
    let bucket_of = |p: f64| (p * buckets as f64 / x_len as f64).floor().max(0.0) as usize;
    let mut bucket = None;
    // Positions per bucket, so a jump over a whole bucket is a gap even when reduced.
    let step = x_len.div_ceil(buckets).max(1) as f64;
    let mut lines: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut line: Vec<(f64, f64)> = Vec::new();
    // The current bucket's first, lowest, highest and last call (index, value).
    let mut kept: Option<[(usize, f64); 4]> = None;
    let mut previous: Option<f64> = None;
    let flush = |kept: &mut Option<[(usize, f64); 4]>, line: &mut Vec<(f64, f64)>| {
        if let Some(mut four) = kept.take() {
            four.sort_by_key(|&(i, _)| i);
            let mut last = None;
            for (i, v) in four {
                if last != Some(i) {
                    line.push((at(i) + 1.0, v));
                    last = Some(i);
                }
            }
        }
    };
    for (i, &v) in values.iter().enumerate() {
        if !v.is_finite() {
            continue;
        }
        let p = at(i);
        if previous.is_some_and(|q| p > q + step) {
            flush(&mut kept, &mut line);
            lines.push(std::mem::take(&mut line));
        }
        previous = Some(p);
        let here = bucket_of(p);
        if bucket != Some(here) {
            bucket = Some(here);
            flush(&mut kept, &mut line);
        }
        match kept.as_mut() {
            None => kept = Some([(i, v); 4]),
            Some([_, lowest, highest, last]) => {
                if v < lowest.1 {
                    *lowest = (i, v);
                }
                if v > highest.1 {
                    *highest = (i, v);
                }
                *last = (i, v);
            }
        }
    }
    flush(&mut kept, &mut line);
    lines.push(line);
    lines.retain(|l| !l.is_empty());
    lines
}

/// One run of consecutive calls and the highest value in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peak {
    /// First and last call of the run (1-based, inclusive).
    pub first_call: f64,
    pub last_call: f64,
    /// Highest finite value in the run.
    pub max: f64,
    /// 0-based index of the first call holding it.
    pub at: usize,
}

/// The highest value per run of calls, for spikes drawn as bars from zero: one run per call
/// when `values` fits in `buckets`, else `buckets` runs. Runs with no finite value above
/// zero are left out (there is no bar to draw).
pub fn peaks(values: &[f64], buckets: usize) -> Vec<Peak> {
    bucket_ranges(values.len(), buckets)
        .filter_map(|range| {
            let mut max = f64::NEG_INFINITY;
            let mut at = range.start;
            for (i, &v) in values[range.clone()].iter().enumerate() {
                // NaN compares false: skipped, as are infinities below.
                if v > max && v.is_finite() {
                    max = v;
                    at = range.start + i;
                }
            }
            (max > 0.0).then(|| Peak {
                first_call: call(range.start),
                last_call: call(range.end - 1),
                max,
                at,
            })
        })
        .collect()
}

/// `n` indices cut into `buckets` non-empty consecutive ranges (fewer when `n < buckets`).
fn bucket_ranges(n: usize, buckets: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let buckets = buckets.clamp(1, n.max(1));
    // u128 keeps `k · n` exact for any length.
    let edge = move |k: usize| (k as u128 * n as u128 / buckets as u128) as usize;
    (0..buckets)
        .map(move |k| edge(k)..edge(k + 1))
        .filter(|r| !r.is_empty())
}

fn call(index: usize) -> f64 {
    index as f64 + 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_series_are_kept_whole() {
        assert_eq!(
            min_max(&[5.0, 7.0, 6.0], 10),
            vec![(1.0, 5.0), (2.0, 7.0), (3.0, 6.0)]
        );
    }

    #[test]
    fn long_series_keep_each_buckets_extremes_in_call_order() {
        // Two buckets of four calls each.
        let values = [3.0, 9.0, 1.0, 4.0, 2.0, 2.0, 8.0, 0.5];
        assert_eq!(
            min_max(&values, 2),
            vec![
                (1.0, 3.0),
                (2.0, 9.0),
                (3.0, 1.0),
                (4.0, 4.0),
                (5.0, 2.0),
                (7.0, 8.0),
                (8.0, 0.5),
            ]
        );
    }

    #[test]
    fn a_million_calls_become_at_most_four_points_per_bucket() {
        let values: Vec<f64> = (0..1_000_000).map(|i| f64::from(i % 977)).collect();
        let points = min_max(&values, 700);
        assert!(points.len() <= 4 * 700, "{}", points.len());
        let lowest = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let highest = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((lowest, highest), (0.0, 976.0));
        assert!(points.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn non_finite_values_are_skipped() {
        assert_eq!(
            min_max(&[1.0, f64::NAN, 3.0], 10),
            vec![(1.0, 1.0), (3.0, 3.0)]
        );
        assert_eq!(min_max(&[f64::NAN; 8], 2), vec![]);
    }

    #[test]
    fn segments_break_where_calls_went() {
        // Calls at baseline positions 0, 1, 4: positions 2 and 3 were merged away.
        let lines = segments(&[1.0, 2.0, 5.0], &[0.0, 1.0, 4.0], 5, 100);
        assert_eq!(lines, vec![vec![(1.0, 1.0), (2.0, 2.0)], vec![(5.0, 5.0)]]);
        // No positions: one line at the calls' own places.
        assert_eq!(
            segments(&[1.0, 2.0], &[], 2, 100),
            vec![vec![(1.0, 1.0), (2.0, 2.0)]]
        );
    }

    #[test]
    fn reduced_segments_keep_each_buckets_extremes() {
        let values: Vec<f64> = (0..1_000_000).map(|i| f64::from(i % 977)).collect();
        let lines = segments(&values, &[], values.len(), 700);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].len() <= 4 * 700);
        let lowest = lines[0].iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let highest = lines[0]
            .iter()
            .map(|p| p.1)
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((lowest, highest), (0.0, 976.0));
        assert!(lines[0].windows(2).all(|w| w[0].0 < w[1].0));
        // A gap of 10,000 calls (over 7 buckets) breaks the line even when reduced.
        let positions: Vec<f64> = (0..500_000)
            .chain(510_000..1_010_000)
            .map(f64::from)
            .collect();
        let lines = segments(&values, &positions, 1_010_000, 700);
        assert_eq!(lines.len(), 2);
    }

    #[test]
    fn peaks_per_call_or_per_bucket() {
        assert_eq!(
            peaks(&[0.0, 5.0, 1.0], 10),
            vec![
                Peak {
                    first_call: 2.0,
                    last_call: 2.0,
                    max: 5.0,
                    at: 1
                },
                Peak {
                    first_call: 3.0,
                    last_call: 3.0,
                    max: 1.0,
                    at: 2
                },
            ]
        );
        assert_eq!(
            peaks(&[0.0, 5.0, 1.0, 0.0], 2),
            vec![
                Peak {
                    first_call: 1.0,
                    last_call: 2.0,
                    max: 5.0,
                    at: 1
                },
                Peak {
                    first_call: 3.0,
                    last_call: 4.0,
                    max: 1.0,
                    at: 2
                },
            ]
        );
        assert_eq!(peaks(&[], 10), vec![]);
    }
}
