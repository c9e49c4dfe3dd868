//! Ordinary least squares for a handful of regressors, with standard errors.
//!
//! The fit has at most five columns (intercept, bytes, and three counts), so the normal
//! equations are solved directly. Columns are scaled to a largest value of 1 first: bytes
//! run to millions while counts stay in the tens, and unscaled the equations lose digits.

/// The solution of `y ≈ X·β`.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// One coefficient per column of `X`.
    pub coefficients: Vec<f64>,
    /// Standard error of each coefficient (`σ̂·√((XᵀX)⁻¹)ᵢᵢ`, `σ̂² = SS_res / (n − p)`);
    /// NaN when `n ≤ p`.
    pub standard_errors: Vec<f64>,
    /// `y − X·β`, per row.
    pub residuals: Vec<f64>,
}

/// Least squares of `y` on the columns of `rows` (each row one observation, every row of
/// the same length). None when the columns are linearly dependent (a term that never
/// varies cannot be told apart from the intercept) or there are fewer rows than columns.
pub fn solve(rows: &[Vec<f64>], y: &[f64]) -> Option<Solution> {
    let p = rows.first()?.len();
    let n = rows.len();
    if n < p || y.len() != n {
        return None;
    }
    let scale: Vec<f64> = (0..p)
        .map(|k| {
            let m = rows.iter().map(|r| r[k].abs()).fold(0.0, f64::max);
            if m > 0.0 { m } else { 1.0 }
        })
        .collect();
    // XᵀX and Xᵀy of the scaled columns.
    let mut xtx = vec![vec![0.0; p]; p];
    let mut xty = vec![0.0; p];
    for (r, &yi) in rows.iter().zip(y) {
        for a in 0..p {
            let xa = r[a] / scale[a];
            xty[a] += xa * yi;
            for b in a..p {
                xtx[a][b] += xa * r[b] / scale[b];
            }
        }
    }
    // The lower triangle mirrors the upper one.
    for a in 1..p {
        let (upper, lower) = xtx.split_at_mut(a);
        for (b, row) in upper.iter().enumerate() {
            lower[0][b] = row[a];
        }
    }
    let inverse = invert(&xtx)?;
    let scaled: Vec<f64> = (0..p)
        .map(|a| (0..p).map(|b| inverse[a][b] * xty[b]).sum())
        .collect();
    let coefficients: Vec<f64> = scaled.iter().zip(&scale).map(|(c, s)| c / s).collect();
    let residuals: Vec<f64> = rows
        .iter()
        .zip(y)
        .map(|(r, yi)| yi - r.iter().zip(&coefficients).map(|(x, c)| x * c).sum::<f64>())
        .collect();
    let ss_res: f64 = residuals.iter().map(|e| e * e).sum();
    let sigma2 = if n > p {
        ss_res / (n - p) as f64
    } else {
        f64::NAN
    };
    let standard_errors = (0..p)
        .map(|a| (sigma2 * inverse[a][a]).max(0.0).sqrt() / scale[a])
        .collect();
    Some(Solution {
        coefficients,
        standard_errors,
        residuals,
    })
}

/// The inverse of a small symmetric matrix by Gauss–Jordan elimination with partial
/// pivoting; None when it is singular (to the precision the scaled columns allow).
fn invert(m: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let p = m.len();
    let mut a: Vec<Vec<f64>> = m.to_vec();
    let mut inv: Vec<Vec<f64>> = (0..p)
        .map(|i| (0..p).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    let largest = m
        .iter()
        .flat_map(|r| r.iter())
        .fold(0.0_f64, |acc, x| acc.max(x.abs()));
    for col in 0..p {
        let pivot = (col..p).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() <= largest * 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        for j in 0..p {
            a[col][j] /= d;
            inv[col][j] /= d;
        }
        for row in 0..p {
            if row != col {
                let f = a[row][col];
                if f != 0.0 {
                    for j in 0..p {
                        a[row][j] -= f * a[col][j];
                        inv[row][j] -= f * inv[col][j];
                    }
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_plane_is_recovered_with_zero_errors() {
        // y = 5 + 2·x1 + 0.5·x2, no noise.
        let rows: Vec<Vec<f64>> = (0..8)
            .map(|i| vec![1.0, f64::from(i) * 1000.0, f64::from(i * i)])
            .collect();
        let y: Vec<f64> = rows.iter().map(|r| 5.0 + 2.0 * r[1] + 0.5 * r[2]).collect();
        let s = solve(&rows, &y).unwrap();
        for (c, want) in s.coefficients.iter().zip([5.0, 2.0, 0.5]) {
            assert!((c - want).abs() < 1e-7, "{c} vs {want}");
        }
        assert!(s.standard_errors.iter().all(|e| *e < 1e-6));
    }

    #[test]
    fn a_straight_line_has_the_textbook_standard_errors() {
        // x = 1..5, y = 1, 3, 2, 5, 4: slope 0.8, intercept 0.6, σ̂² = 3.6/3 = 1.2,
        // SE(slope) = √(1.2/10), SE(intercept) = √(1.2·(1/5 + 9/10)).
        let rows: Vec<Vec<f64>> = (1..=5).map(|x| vec![1.0, f64::from(x)]).collect();
        let s = solve(&rows, &[1.0, 3.0, 2.0, 5.0, 4.0]).unwrap();
        assert!((s.coefficients[0] - 0.6).abs() < 1e-12);
        assert!((s.coefficients[1] - 0.8).abs() < 1e-12);
        assert!((s.standard_errors[1] - (0.12_f64).sqrt()).abs() < 1e-12);
        assert!((s.standard_errors[0] - (1.2_f64 * 1.1).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn a_column_that_never_varies_cannot_be_told_from_the_intercept() {
        let rows: Vec<Vec<f64>> = (0..5).map(|i| vec![1.0, f64::from(i), 3.0]).collect();
        assert!(solve(&rows, &[1.0, 2.0, 3.0, 4.0, 5.0]).is_none());
        assert!(solve(&rows[..2], &[1.0, 2.0]).is_none());
    }
}
