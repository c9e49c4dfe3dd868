//! The last guard before anything is written: every figure is a finite number.
//!
//! Inputs are range-checked so that every sum stays finite (see `scenario::Assumption`), so
//! a total that is infinite or not a number means a bug in the engine, not bad input. It
//! must never reach a file as `inf` or `NaN` (in a CSV) or `null` (in JSON), where it would
//! pass for a result. The caller runs these checks on what it is about to write, and stops
//! with an error naming the run and the point (exit code 1).
//!
//! This module sits below the evaluation and the sweep (it reads only [`crate::point`]):
//! each checks its own figures with [`first_bad`] and words the point with [`describe`].

use crate::point::{Point, Totals};

// The error type lives with the crate's error, which wraps it (see `crate::error`).
pub use crate::error::NonFinite;

/// Checks a sweep point's totals (`totals[0]` is the baseline's, then one per edit of
/// `runs[1..]`) and the savings and percentages a sweep output derives from them. `index`
/// is the point's grid index, None for the nominal point off the grid.
pub fn check_point(
    runs: &[&str],
    index: Option<usize>,
    point: &Point,
    totals: &[Totals],
) -> Result<(), NonFinite> {
    let Some(base) = totals.first() else {
        return Ok(());
    };
    for (k, t) in totals.iter().enumerate() {
        let saved = (base.tokens - t.tokens, base.cost - t.cost);
        let figures = [
            ("reread total", t.tokens),
            ("cost", t.cost),
            ("saving", saved.0),
            ("cost saving", saved.1),
            ("saving in percent", 100.0 * saved.0 / base.tokens),
            ("cost saving in percent", 100.0 * saved.1 / base.cost),
        ];
        if let Some(&(figure, value)) = figures.iter().find(|(_, v)| !v.is_finite()) {
            return Err(NonFinite {
                run: runs.get(k).copied().unwrap_or("an edit").into(),
                figure,
                value,
                point: describe(index, point),
            });
        }
    }
    Ok(())
}

/// The first figure of `figures` (name, value; None for a figure not shown) that is not
/// finite, as `Err((name, value))`.
pub fn first_bad(figures: &[(&'static str, Option<f64>)]) -> Result<(), (&'static str, f64)> {
    match figures
        .iter()
        .find_map(|&(f, v)| v.filter(|v| !v.is_finite()).map(|v| (f, v)))
    {
        Some(bad) => Err(bad),
        None => Ok(()),
    }
}

/// The point in words, exactly as given (these are the values that broke something).
pub fn describe(index: Option<usize>, p: &Point) -> String {
    let mut text = format!(
        "B = {}, ρ = {}",
        exact(p.base_tokens),
        exact(p.bytes_per_token)
    );
    if let Some(read) = p.cache_read {
        text.push_str(&format!(", cache read = {}", exact(read)));
    }
    text.push_str(&format!(", retry rate = {}", exact(p.retry_rate)));
    match index {
        Some(i) => format!("sweep point {i} ({text})"),
        None => format!("the nominal point ({text})"),
    }
}

/// `x` in full, but in scientific notation when very large or small (`1e-300`, not 300
/// digits).
fn exact(x: f64) -> String {
    if x != 0.0 && x.is_finite() && (x.abs() >= 1e15 || x.abs() < 1e-4) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point() -> Point {
        Point {
            base_tokens: 30_000.0,
            bytes_per_token: 3.3,
            cache_read: None,
            retry_rate: 0.0,
            refetch: 0.0,
        }
    }

    #[test]
    fn an_infinite_total_names_the_run_and_the_point() {
        let t = |tokens| Totals {
            tokens,
            cost: tokens,
        };
        let runs = ["baseline", "trim", "merge"];
        assert!(check_point(&runs, Some(4), &point(), &[t(10.0), t(5.0), t(7.0)]).is_ok());
        let e = check_point(
            &runs,
            Some(4),
            &point(),
            &[t(10.0), t(5.0), t(f64::INFINITY)],
        )
        .unwrap_err();
        assert_eq!((e.run.as_str(), e.figure), ("merge", "reread total"));
        assert_eq!(
            e.to_string(),
            "internal error: the reread total of `merge` is inf at sweep point 4 (B = 30000, ρ = 3.3, retry rate = 0); nothing was written. This is a bug in simulate, not in the input: please report it with the scenario"
        );
        // A zero baseline would make every percentage NaN.
        let e = check_point(&runs, None, &point(), &[t(0.0), t(0.0), t(0.0)]).unwrap_err();
        assert_eq!(
            (e.run.as_str(), e.figure),
            ("baseline", "saving in percent")
        );
        assert!(e.point.starts_with("the nominal point"));
    }
}
