//! Percentiles as the history reports them: nearest rank, so every figure shown is one
//! some session had.

/// Nearest-rank percentile of ascending `sorted`: the value at rank `⌈p/100 · N⌉` (at least
/// 1). None for an empty list.
pub fn nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    sorted.get(rank(sorted.len(), p)? - 1).copied()
}

/// The nearest rank of percentile `p` among `n` values, 1-based: `⌈p/100 · n⌉` clamped to
/// `1..=n`. None when `n` is 0. Shared with the evidence's multisets
/// (`suggest::evidence::Values`), so both pick the same value.
pub fn rank(n: usize, p: f64) -> Option<usize> {
    if n == 0 {
        return None;
    }
    Some((p / 100.0 * n as f64).ceil().clamp(1.0, n as f64) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_on_a_known_list() {
        // The textbook list: 15, 20, 35, 40, 50.
        let v = [15.0, 20.0, 35.0, 40.0, 50.0];
        assert_eq!(nearest_rank(&v, 5.0), Some(15.0));
        assert_eq!(nearest_rank(&v, 30.0), Some(20.0));
        assert_eq!(nearest_rank(&v, 40.0), Some(20.0));
        assert_eq!(nearest_rank(&v, 50.0), Some(35.0));
        assert_eq!(nearest_rank(&v, 100.0), Some(50.0));
        assert_eq!(nearest_rank(&[], 50.0), None);
    }
}
