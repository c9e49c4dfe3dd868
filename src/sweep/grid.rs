//! The sweep grid: every combination of the swept assumptions (docs/model.md §5).

use crate::error::Located;
pub use crate::point::Point;
use crate::scenario::{Axis, Scenario};

/// Largest grid evaluated; a larger one is refused with its size and how to shrink it.
pub const MAX_POINTS: u64 = 10_000_000;

/// A swept axis given outside the scenario file, with where it was given, so an error
/// about it points there (`--sweep-cache-read`) and not at the file. Boxed: a command's
/// configuration carries four of them, mostly absent.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisOverride(Box<(Axis, String)>);

impl AxisOverride {
    /// `values`, given by `given_by` (a flag name, e.g. `--sweep-base`).
    pub fn new(given_by: impl Into<String>, values: Axis) -> AxisOverride {
        AxisOverride(Box::new((values, given_by.into())))
    }

    /// The swept values.
    pub fn values(&self) -> &Axis {
        &self.0.0
    }

    /// How the user gave them, e.g. `--sweep-cache-read`.
    pub fn given_by(&self) -> &str {
        &self.0.1
    }
}

/// Sweep axes given on the command line; each replaces the scenario's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepOverrides {
    pub base_tokens: Option<AxisOverride>,
    pub bytes_per_token: Option<AxisOverride>,
    pub cache_read: Option<AxisOverride>,
    pub retry_rate: Option<AxisOverride>,
    pub refetch: Option<AxisOverride>,
}

/// Where an axis of the grid came from, to point errors at it.
#[derive(Debug, Clone, PartialEq)]
enum Origin<'a> {
    /// `[sweep] <key>` in the scenario file.
    File { source: &'a str, key: &'static str },
    /// A command-line flag.
    Flag(&'a str),
    /// The default grid or the nominal value.
    Default { source: &'a str },
}

impl Origin<'_> {
    /// An error about the axis, located where it was given.
    fn error(&self, message: String) -> Located {
        match self {
            Origin::File { source, key } => {
                Located::new(*source, message).place(format!("[sweep] {key}"))
            }
            Origin::Flag(flag) => Located::new("command line", message).place(*flag),
            Origin::Default { source } => Located::new(*source, message).place("[sweep]"),
        }
    }

    /// How the axis was given, for a message listing the axes.
    fn describe(&self) -> String {
        match self {
            Origin::File { key, .. } => format!("[sweep] {key}"),
            Origin::Flag(flag) => (*flag).to_string(),
            Origin::Default { .. } => "default".into(),
        }
    }
}

/// The command line's axis if given, else the file's; with where it came from.
fn pick<'a>(
    cli: &'a Option<AxisOverride>,
    file: &'a Option<Axis>,
    source: &'a str,
    key: &'static str,
) -> (Option<&'a Axis>, Origin<'a>) {
    match (cli, file) {
        (Some(o), _) => (Some(o.values()), Origin::Flag(o.given_by())),
        (None, Some(a)) => (Some(a), Origin::File { source, key }),
        (None, None) => (None, Origin::Default { source }),
    }
}

/// The swept values, each axis ascending. Grid order: base tokens outermost, then bytes
/// per token, cache read, retry rate, re-fetch rate innermost.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub base_tokens: Vec<f64>,
    pub bytes_per_token: Vec<f64>,
    /// `[None]` without `[cache]`.
    pub cache_read: Vec<Option<f64>>,
    pub retry_rate: Vec<f64>,
    /// The re-fetch rate (docs/model.md §11): `[nominal]` where no edit removes results.
    pub refetch: Vec<f64>,
    /// Whether each axis came from the default grid rather than the user.
    pub default_axes: bool,
}

impl Grid {
    /// The grid for `scenario` around `nominal`: the `[sweep]` table, overridden by the
    /// command line, with docs/model.md §5's defaults for missing base and bytes-per-token axes,
    /// and §11's re-fetch rates where some edit removes results.
    /// Errors name the flag or the `[sweep]` key that gave the offending axis.
    pub fn new(
        scenario: &Scenario,
        nominal: &Point,
        overrides: &SweepOverrides,
    ) -> Result<Grid, Located> {
        let removes_results = scenario.edits.iter().any(|e| e.action.removes_results());
        let spec = scenario.sweep.clone().unwrap_or_default();
        let source = scenario.source.as_str();
        let base = pick(
            &overrides.base_tokens,
            &spec.base_tokens,
            source,
            "base_tokens",
        );
        let bpt = pick(
            &overrides.bytes_per_token,
            &spec.bytes_per_token,
            source,
            "bytes_per_token",
        );
        let read = pick(
            &overrides.cache_read,
            &spec.cache_read,
            source,
            "cache_read",
        );
        let retry = pick(
            &overrides.retry_rate,
            &spec.retry_rate,
            source,
            "retry_rate",
        );
        let refetch = pick(&overrides.refetch, &spec.refetch, source, "refetch");
        let refetch_origin = refetch.1.clone();
        let default_axes = base.0.is_none() && bpt.0.is_none();
        let b = nominal.base_tokens;
        let r = nominal.bytes_per_token;
        let base_tokens = base
            .0
            .map_or_else(|| vec![b * 2.0 / 3.0, b, b * 4.0 / 3.0], |a| a.0.clone());
        let bytes_per_token = bpt
            .0
            .map_or_else(|| vec![0.75 * r, r, 1.25 * r], |a| a.0.clone());
        let cache_read = match (read.0, &scenario.cache) {
            (Some(axis), Some(cache)) => {
                check_read_below_write(&axis.0, cache.write).map_err(|m| read.1.error(m))?;
                axis.0.iter().copied().map(Some).collect()
            }
            (Some(_), None) => {
                return Err(read.1.error("cache_read is swept but the scenario has no [cache] table: add one (e.g. [cache] preset = \"anthropic-5m\") or drop the cache_read axis".into()));
            }
            (None, _) => vec![nominal.cache_read],
        };
        let retry_rate = retry
            .0
            .map_or_else(|| vec![nominal.retry_rate], |a| a.0.clone());
        // The nominal rate is always on the axis, so the nominal point is a grid point
        // whenever B and ρ are.
        let refetch = match refetch.0 {
            Some(a) => a.0.clone(),
            None if removes_results => {
                let mut v = crate::scenario::DEFAULT_REFETCH_AXIS.to_vec();
                if !v.contains(&nominal.refetch) {
                    v.push(nominal.refetch);
                    v.sort_by(f64::total_cmp);
                }
                v
            }
            None => vec![nominal.refetch],
        };
        let grid = Grid {
            base_tokens,
            bytes_per_token,
            cache_read,
            retry_rate,
            refetch,
            default_axes,
        };
        let origins = [&base.1, &bpt.1, &read.1, &retry.1, &refetch_origin];
        grid.check_size(&origins)?;
        Ok(grid)
    }

    /// Refuses a grid over [`MAX_POINTS`], counting without overflow: the message gives
    /// the size, each axis with where it was given, and the largest one to shrink.
    fn check_size(&self, origins: &[&Origin; 5]) -> Result<(), Located> {
        let dims = self.dims();
        let size = dims
            .iter()
            .try_fold(1u128, |acc, &d| acc.checked_mul(d as u128));
        if size.is_some_and(|n| n <= MAX_POINTS as u128) {
            return Ok(());
        }
        let names = [
            "base tokens",
            "bytes per token",
            "cache read",
            "retry rate",
            "re-fetch rate",
        ];
        let axes: Vec<String> = dims
            .iter()
            .zip(names)
            .zip(origins)
            .map(|((&d, name), o)| format!("{} {name} ({})", grouped_int(d as u128), o.describe()))
            .collect();
        let (largest, _) = dims
            .iter()
            .enumerate()
            .max_by_key(|&(i, &d)| (d, std::cmp::Reverse(i)))
            .unwrap_or((0, &0));
        let size = size.map_or_else(|| "more than 3.4e38".into(), grouped_int);
        Err(origins[largest].error(format!(
            "the sweep grid has {size} points ({}); the limit is {}: use fewer values or fewer steps, starting with the largest axis ({}, {} values)",
            axes.join(" × "),
            grouped_int(MAX_POINTS as u128),
            names[largest],
            grouped_int(dims[largest] as u128),
        )))
    }

    /// Number of values on each axis: base, bytes per token, cache read, retry rate,
    /// re-fetch rate.
    pub fn dims(&self) -> [usize; 5] {
        [
            self.base_tokens.len(),
            self.bytes_per_token.len(),
            self.cache_read.len(),
            self.retry_rate.len(),
            self.refetch.len(),
        ]
    }

    /// Number of points, if it can be counted in a `usize` (always, for a grid from
    /// [`Grid::new`], which has at most [`MAX_POINTS`]).
    pub fn checked_len(&self) -> Option<usize> {
        self.dims()
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
    }

    /// Number of points; `usize::MAX` for a hand-built grid too large to count (which
    /// [`crate::sweep::run`] refuses).
    pub fn len(&self) -> usize {
        self.checked_len().unwrap_or(usize::MAX)
    }

    /// Whether the grid has no points (never, for a checked grid).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Axis indices of point `index` in grid order: (base, bytes per token, cache read,
    /// retry rate, re-fetch rate).
    pub fn coordinates(&self, index: usize) -> [usize; 5] {
        let [_, r, c, t, f] = self.dims();
        // Each stride is at most the number of points, which fits (see `checked_len`).
        let tf = t.saturating_mul(f);
        let ctf = c.saturating_mul(tf);
        let rctf = r.saturating_mul(ctf);
        [
            index / rctf,
            index / ctf % r,
            index / tf % c,
            index / f % t,
            index % f,
        ]
    }

    /// The point at `index` in grid order.
    pub fn point(&self, index: usize) -> Point {
        let [b, r, c, t, f] = self.coordinates(index);
        Point {
            base_tokens: self.base_tokens[b],
            bytes_per_token: self.bytes_per_token[r],
            cache_read: self.cache_read[c],
            retry_rate: self.retry_rate[t],
            refetch: self.refetch[f],
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
        let f = self.refetch.iter().position(|&x| x == point.refetch)?;
        let [_, nr, nc, nt, nf] = self.dims();
        b.checked_mul(nr)?
            .checked_add(r)?
            .checked_mul(nc)?
            .checked_add(c)?
            .checked_mul(nt)?
            .checked_add(t)?
            .checked_mul(nf)?
            .checked_add(f)
    }
}

/// Every swept cache read price at most the write price, as `[cache]` requires of its own.
fn check_read_below_write(reads: &[f64], write: f64) -> Result<(), String> {
    let above: Vec<String> = reads
        .iter()
        .filter(|&&r| r > write)
        .map(|&r| r.to_string())
        .collect();
    if above.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} above the cache write price {}: reading from the cache never costs more than writing to it; sweep read prices up to {}",
        match above.as_slice() {
            [one] => format!("read price {one} is"),
            many => format!("read prices {} are", many.join(", ")),
        },
        write,
        write,
    ))
}

/// A whole number with thousands separators, exact however large.
fn grouped_int(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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
            refetch: vec![0.0],
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

    const SCENARIO: &str = "name = \"g\"\nbase_tokens = 30000\nbytes_per_token = 3.3\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n[[call]]\nid = \"a\"\nbytes = 100\n";

    fn scenario(extra: &str) -> Scenario {
        crate::scenario::load_str(
            &format!("{SCENARIO}{extra}"),
            std::path::Path::new("g.toml"),
        )
        .unwrap()
    }

    fn axis(given_by: &str, values: Vec<f64>) -> Option<AxisOverride> {
        Some(AxisOverride::new(given_by, Axis(values)))
    }

    fn nominal(s: &Scenario) -> Point {
        Point {
            base_tokens: s.base_tokens,
            bytes_per_token: s.bytes_per_token,
            cache_read: s.cache.as_ref().map(|c| c.read),
            retry_rate: 0.0,
            refetch: 0.0,
        }
    }

    fn steps(n: usize, from: f64, to: f64) -> Vec<f64> {
        (0..n)
            .map(|i| from + (to - from) * i as f64 / (n - 1) as f64)
            .collect()
    }

    /// Regression: 65,536⁴ = 2⁶⁴ points wrapped to 0 ("Sweep over 0 points").
    #[test]
    fn a_grid_whose_size_overflows_is_refused_with_its_size() {
        let s = scenario("");
        let big = |flag: &str, from, to| axis(flag, steps(65_536, from, to));
        let overrides = SweepOverrides {
            base_tokens: big("--sweep-base", 1.0, 65_536.0),
            bytes_per_token: big("--sweep-bpt", 1.0, 1000.0),
            cache_read: big("--sweep-cache-read", 0.1, 0.2),
            retry_rate: big("--sweep-retry", 0.0, 1.0),
            refetch: None,
        };
        let e = Grid::new(&s, &nominal(&s), &overrides).unwrap_err();
        assert_eq!(e.file, "command line");
        assert!(
            e.message.starts_with(
                "the sweep grid has 18,446,744,073,709,551,616 points (65,536 base tokens (--sweep-base) × 65,536 bytes per token (--sweep-bpt) × 65,536 cache read (--sweep-cache-read) × 65,536 retry rate (--sweep-retry) × 1 re-fetch rate (default)); the limit is 10,000,000"
            ),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("fewer values or fewer steps"),
            "{}",
            e.message
        );
        // Just over the limit, from the file: the place is the [sweep] key.
        let s = scenario(
            "[sweep]\nbase_tokens = { from = 1, to = 2, steps = 4000 }\nbytes_per_token = { from = 1, to = 2, steps = 2501 }\n",
        );
        let e = Grid::new(&s, &nominal(&s), &SweepOverrides::default()).unwrap_err();
        assert_eq!(e.place.as_deref(), Some("[sweep] base_tokens"));
        assert!(
            e.message
                .starts_with("the sweep grid has 10,004,000 points"),
            "{}",
            e.message
        );
    }

    /// Regression: `--sweep-cache-read 5,100` was evaluated although read > write.
    #[test]
    fn swept_read_prices_above_the_write_price_are_refused_where_given() {
        let s = scenario("");
        let overrides = SweepOverrides {
            cache_read: axis("--sweep-cache-read", vec![0.1, 5.0, 100.0]),
            ..SweepOverrides::default()
        };
        let e = Grid::new(&s, &nominal(&s), &overrides).unwrap_err();
        assert_eq!(
            e.to_string(),
            "command line: --sweep-cache-read: read prices 5, 100 are above the cache write price 1.25: reading from the cache never costs more than writing to it; sweep read prices up to 1.25"
        );
        let s = scenario("[sweep]\ncache_read = [0.1, 1.25, 2]\n");
        let e = Grid::new(&s, &nominal(&s), &SweepOverrides::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "g.toml: [sweep] cache_read: read price 2 is above the cache write price 1.25: reading from the cache never costs more than writing to it; sweep read prices up to 1.25"
        );
        // Equal to the write price is allowed.
        let overrides = SweepOverrides {
            cache_read: axis("--sweep-cache-read", vec![0.1, 1.25]),
            ..SweepOverrides::default()
        };
        assert!(Grid::new(&s, &nominal(&s), &overrides).is_ok());
    }

    #[test]
    fn a_swept_read_price_without_a_cache_names_the_flag() {
        let s = crate::scenario::load_str(
            "name = \"g\"\nbase_tokens = 30000\nbytes_per_token = 3.3\n[[call]]\nid = \"a\"\nbytes = 100\n",
            std::path::Path::new("g.toml"),
        )
        .unwrap();
        let overrides = SweepOverrides {
            cache_read: axis("--sweep-cache-read", vec![0.1]),
            ..SweepOverrides::default()
        };
        let e = Grid::new(&s, &nominal(&s), &overrides).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.place.as_deref()),
            ("command line", Some("--sweep-cache-read"))
        );
    }

    #[test]
    fn a_hand_built_grid_too_large_to_count_does_not_wrap() {
        let huge = vec![1.0; 1 << 16];
        let g = Grid {
            base_tokens: huge.clone(),
            bytes_per_token: huge.clone(),
            cache_read: vec![None; 1 << 16],
            retry_rate: huge,
            refetch: vec![0.0],
            default_axes: false,
        };
        assert_eq!(g.checked_len(), None);
        assert_eq!(g.len(), usize::MAX);
        assert!(!g.is_empty());
    }
}
