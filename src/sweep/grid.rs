//! The sweep grid: every combination of the swept assumptions (MODEL.md §5).

use crate::error::Located;
use crate::ledger::Assumptions;
use crate::output::number::grouped;
use crate::scenario::{Axis, Scenario};

/// Largest grid evaluated; a larger one is refused with its size and how to shrink it.
pub const MAX_POINTS: u64 = 10_000_000;

/// One point of the grid: every assumption the figures rest on.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Point {
    pub base_tokens: f64,
    pub bytes_per_token: f64,
    /// Cache read price (× base input price); None without `[cache]`.
    pub cache_read: Option<f64>,
    pub retry_rate: f64,
}

impl Point {
    /// The two ledger assumptions of this point.
    pub fn assumptions(&self) -> Assumptions {
        Assumptions {
            base_tokens: self.base_tokens,
            bytes_per_token: self.bytes_per_token,
        }
    }
}

/// Sweep axes given on the command line; each replaces the scenario's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepOverrides {
    pub base_tokens: Option<Axis>,
    pub bytes_per_token: Option<Axis>,
    pub cache_read: Option<Axis>,
    pub retry_rate: Option<Axis>,
}

/// The swept values, each axis ascending. Grid order: base tokens outermost, then bytes
/// per token, cache read, retry rate innermost.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub base_tokens: Vec<f64>,
    pub bytes_per_token: Vec<f64>,
    /// `[None]` without `[cache]`.
    pub cache_read: Vec<Option<f64>>,
    pub retry_rate: Vec<f64>,
    /// Whether each axis came from the default grid rather than the user.
    pub default_axes: bool,
}

impl Grid {
    /// The grid for `scenario` around `nominal`: the `[sweep]` table, overridden by the
    /// command line, with MODEL.md §5's defaults for missing base and bytes-per-token axes.
    pub fn new(
        scenario: &Scenario,
        nominal: &Point,
        overrides: &SweepOverrides,
    ) -> Result<Grid, Located> {
        let spec = scenario.sweep.clone().unwrap_or_default();
        let pick = |cli: &Option<Axis>, file: &Option<Axis>| cli.clone().or_else(|| file.clone());
        let base = pick(&overrides.base_tokens, &spec.base_tokens);
        let bpt = pick(&overrides.bytes_per_token, &spec.bytes_per_token);
        let default_axes = base.is_none() && bpt.is_none();
        let b = nominal.base_tokens;
        let r = nominal.bytes_per_token;
        let base_tokens = base.map_or_else(|| vec![b * 2.0 / 3.0, b, b * 4.0 / 3.0], |a| a.0);
        let bytes_per_token = bpt.map_or_else(|| vec![0.75 * r, r, 1.25 * r], |a| a.0);
        let cache_read = match (
            pick(&overrides.cache_read, &spec.cache_read),
            nominal.cache_read,
        ) {
            (Some(axis), Some(_)) => axis.0.into_iter().map(Some).collect(),
            (Some(_), None) => {
                return Err(Located::new(&scenario.source, "cache_read is swept but the scenario has no [cache] table: add one (e.g. [cache] preset = \"anthropic-5m\") or drop the cache_read axis").place("[sweep] cache_read"));
            }
            (None, read) => vec![read],
        };
        let retry_rate = pick(&overrides.retry_rate, &spec.retry_rate)
            .map_or_else(|| vec![nominal.retry_rate], |a| a.0);
        let grid = Grid {
            base_tokens,
            bytes_per_token,
            cache_read,
            retry_rate,
            default_axes,
        };
        let size = grid.dims().iter().map(|&d| d as u64).product::<u64>();
        if size > MAX_POINTS {
            let [b, r, c, t] = grid.dims();
            return Err(Located::new(&scenario.source, format!(
                "the sweep grid has {} points ({b} base tokens × {r} bytes per token × {c} cache read × {t} retry rate); the limit is {}: use fewer values or fewer steps",
                grouped(size as f64, 0), grouped(MAX_POINTS as f64, 0)
            )).place("[sweep]"));
        }
        Ok(grid)
    }

    /// Number of values on each axis: base, bytes per token, cache read, retry rate.
    pub fn dims(&self) -> [usize; 4] {
        [
            self.base_tokens.len(),
            self.bytes_per_token.len(),
            self.cache_read.len(),
            self.retry_rate.len(),
        ]
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.dims().iter().product()
    }

    /// Whether the grid has no points (never, for a checked grid).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Axis indices of point `index` in grid order: (base, bytes per token, cache read,
    /// retry rate).
    pub fn coordinates(&self, index: usize) -> [usize; 4] {
        let [_, r, c, t] = self.dims();
        [
            index / (r * c * t),
            index / (c * t) % r,
            index / t % c,
            index % t,
        ]
    }

    /// The point at `index` in grid order.
    pub fn point(&self, index: usize) -> Point {
        let [b, r, c, t] = self.coordinates(index);
        Point {
            base_tokens: self.base_tokens[b],
            bytes_per_token: self.bytes_per_token[r],
            cache_read: self.cache_read[c],
            retry_rate: self.retry_rate[t],
        }
    }

    /// Index of `point` if it lies on the grid.
    pub fn index_of(&self, point: &Point) -> Option<usize> {
        let b = self
            .base_tokens
            .iter()
            .position(|&x| x == point.base_tokens)?;
        let r = self
            .bytes_per_token
            .iter()
            .position(|&x| x == point.bytes_per_token)?;
        let c = self
            .cache_read
            .iter()
            .position(|&x| x == point.cache_read)?;
        let t = self
            .retry_rate
            .iter()
            .position(|&x| x == point.retry_rate)?;
        let [_, nr, nc, nt] = self.dims();
        Some(((b * nr + r) * nc + c) * nt + t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        Grid {
            base_tokens: vec![1.0, 2.0],
            bytes_per_token: vec![3.0, 4.0, 5.0],
            cache_read: vec![None],
            retry_rate: vec![0.0, 0.5],
            default_axes: false,
        }
    }

    #[test]
    fn points_come_in_grid_order_and_index_back() {
        let g = grid();
        assert_eq!(g.len(), 12);
        let p = g.point(7);
        // 7 = base 1 (×6) + bpt 0 (×2) + retry 1.
        assert_eq!(
            (p.base_tokens, p.bytes_per_token, p.retry_rate),
            (2.0, 3.0, 0.5)
        );
        for i in 0..g.len() {
            assert_eq!(g.index_of(&g.point(i)), Some(i));
        }
    }
}
