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

/// One run of consecutive calls and the highest value in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peak {
    /// First and last call of the run (1-based, inclusive).
    pub first_call: f64,
    pub last_call: f64,
    /// Highest finite value in the run.
    pub max: f64,
}

/// The highest value per run of calls, for spikes drawn as bars from zero: one run per call
/// when `values` fits in `buckets`, else `buckets` runs. Runs with no finite value above
/// zero are left out (there is no bar to draw).
pub fn peaks(values: &[f64], buckets: usize) -> Vec<Peak> {
    bucket_ranges(values.len(), buckets)
        .filter_map(|range| {
            let max = values[range.clone()]
                .iter()
                .copied()
                .filter(|v| v.is_finite())
                .fold(f64::NEG_INFINITY, f64::max);
            (max > 0.0).then(|| Peak {
                first_call: call(range.start),
                last_call: call(range.end - 1),
                max,
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
    fn peaks_per_call_or_per_bucket() {
        assert_eq!(
            peaks(&[0.0, 5.0, 1.0], 10),
            vec![
                Peak {
                    first_call: 2.0,
                    last_call: 2.0,
                    max: 5.0
                },
                Peak {
                    first_call: 3.0,
                    last_call: 3.0,
                    max: 1.0
                },
            ]
        );
        assert_eq!(
            peaks(&[0.0, 5.0, 1.0, 0.0], 2),
            vec![
                Peak {
                    first_call: 1.0,
                    last_call: 2.0,
                    max: 5.0
                },
                Peak {
                    first_call: 3.0,
                    last_call: 4.0,
                    max: 1.0
                },
            ]
        );
        assert_eq!(peaks(&[], 10), vec![]);
    }
}
