//! Describing a set of grid points in words: "when B ≤ 20,000 and ρ ≥ 4".

use crate::output::number::grouped;
use crate::sweep::Grid;
use std::collections::BTreeMap;

/// Describes the points `indices` (grid order; `count` in all, more than listed if the
/// list was cut) as a region of the grid.
pub fn describe(grid: &Grid, indices: &[u32], count: usize) -> String {
    let [nb, nr, nc, nt] = grid.dims();
    if count == grid.len() && indices.len() == count {
        return "at every point".into();
    }
    // For each (ρ, cache read, retry) line of the grid, the base-token indices that flip.
    let mut lines: BTreeMap<(usize, usize, usize), Vec<usize>> = BTreeMap::new();
    for &i in indices {
        let [b, r, c, t] = grid.coordinates(i as usize);
        lines.entry((r, c, t)).or_default().push(b);
    }
    // Lines with the same base-token set, grouped: (cache read, retry, B clause) → ρ indices.
    let mut clauses: BTreeMap<(usize, usize, String), Vec<usize>> = BTreeMap::new();
    for ((r, c, t), bs) in lines {
        let b_clause = span("B", &bs, nb, |i| grouped(grid.base_tokens[i], 0));
        clauses.entry((c, t, b_clause)).or_default().push(r);
    }
    let mut parts: Vec<String> = Vec::new();
    for ((c, t, b_clause), rs) in clauses {
        let r_clause = span("ρ", &rs, nr, |i| grid.bytes_per_token[i].to_string());
        let mut words: Vec<String> = [b_clause, r_clause]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        if let (true, Some(read)) = (nc > 1, grid.cache_read[c]) {
            words.push(format!("cache read = {read}"));
        }
        if nt > 1 {
            words.push(format!("retry rate = {}", grid.retry_rate[t]));
        }
        parts.push(if words.is_empty() {
            "at every (B, ρ)".into()
        } else {
            words.join(" and ")
        });
    }
    let mut text = format!("when {}", parts.join("; or "));
    if indices.len() < count {
        text.push_str(&format!(
            " (and more: {} points in all, first {} listed)",
            grouped(count as f64, 0),
            grouped(indices.len() as f64, 0)
        ));
    }
    text
}

/// A clause for sorted axis indices `set` out of `len`: empty when it is the whole axis,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        Grid {
            base_tokens: vec![20_000.0, 30_000.0, 40_000.0],
            bytes_per_token: vec![2.5, 3.3, 4.0],
            cache_read: vec![None],
            retry_rate: vec![0.0],
            default_axes: false,
        }
    }

    fn index(g: &Grid, b: usize, r: usize) -> u32 {
        (b * g.dims()[1] + r) as u32
    }

    #[test]
    fn a_corner_reads_as_two_bounds() {
        let g = grid();
        let points = [index(&g, 0, 2)];
        assert_eq!(describe(&g, &points, 1), "when B = 20,000 and ρ = 4");
        let points = [index(&g, 0, 1), index(&g, 0, 2), index(&g, 1, 2)];
        assert_eq!(
            describe(&g, &points, 3),
            "when B = 20,000 and ρ = 3.3; or B ≤ 30,000 and ρ = 4"
        );
    }

    #[test]
    fn a_whole_column_drops_the_other_axis() {
        let g = grid();
        let points: Vec<u32> = (0..3).map(|r| index(&g, 0, r)).collect();
        assert_eq!(describe(&g, &points, 3), "when B = 20,000");
        let points: Vec<u32> = (0..3)
            .flat_map(|r| [index(&g, 0, r), index(&g, 1, r)])
            .collect();
        assert_eq!(describe(&g, &points, 6), "when B ≤ 30,000");
    }
}
