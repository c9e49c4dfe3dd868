//! Percentiles as the history reports them: nearest rank, so every figure shown is one
//! some session had.

/// Nearest-rank percentile of ascending `sorted`: the value at rank `⌈p/100 · N⌉` (at least
/// 1). None for an empty list.
pub fn nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let rank = (p / 100.0 * n as f64).ceil().clamp(1.0, n as f64) as usize;
    sorted.get(rank - 1).copied()
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
