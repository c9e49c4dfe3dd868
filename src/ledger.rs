//! The reread ledger's terms (docs/model.md §1): the assumptions, the closed form, savings.
//!
//! Call i reads the context *before* its own result joins it: `ctx_i = B + Σ_{j<i} s_j`.
//! Adding first and reading after would count every call's own output once too often.
//! The total `T = Σ ctx_i` has the closed form `n·B + Σ_j s_j·(n − j)`, which is affine in
//! `B` and in `1/ρ`; [`Affine`] keeps its three coefficients so a sweep need not replay
//! the run at every point. The call-by-call walk itself is `crate::timeline`.

use crate::run::Run;

/// The two assumptions every figure rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assumptions {
    /// B: tokens every call reads whatever happens (system prompt, tools, settings).
    pub base_tokens: f64,
    /// ρ: bytes per estimated token.
    pub bytes_per_token: f64,
}

/// `T = calls·B + tokens + bytes/ρ`: the reread total as an affine function of the
/// assumptions, for a run whose sequence does not depend on them.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Affine {
    /// Coefficient of B: the number of calls.
    pub calls: f64,
    /// Part independent of B and ρ: measured and output tokens, weighted by rereads.
    pub tokens: f64,
    /// Coefficient of 1/ρ: bytes weighted by how many later calls re-read them.
    pub bytes: f64,
}

impl Affine {
    /// The closed form of `run`'s reread total: each result is re-read by `n − j` calls.
    pub fn of(run: &Run) -> Affine {
        let n = run.len();
        let mut tokens = 0.0;
        let mut bytes = 0.0;
        for (j, s) in run.iter().enumerate() {
            let rereads = (n - 1 - j) as f64;
            tokens += s.joined_tokens() * rereads;
            bytes += s.joined_bytes() * rereads;
        }
        Affine {
            calls: n as f64,
            tokens,
            bytes,
        }
    }

    /// The value at `at`.
    #[inline]
    pub fn at(&self, at: Assumptions) -> f64 {
        self.calls * at.base_tokens + self.tokens + self.bytes / at.bytes_per_token
    }

    /// `self − other`, coefficient by coefficient.
    pub fn minus(&self, other: &Affine) -> Affine {
        Affine {
            calls: self.calls - other.calls,
            tokens: self.tokens - other.tokens,
            bytes: self.bytes - other.bytes,
        }
    }
}

/// How an edit compares with the baseline on one measure (reread tokens or cost).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Saving {
    /// `T_baseline − T_edited`.
    pub saved: f64,
    /// `100·saved / T_baseline`.
    pub percent: f64,
    /// `saved / (T_baseline / n_baseline)`: how many average baseline calls it is worth.
    pub equivalent_calls: f64,
}

impl Saving {
    /// The saving of an edited total against the baseline's total over `baseline_calls`.
    /// A saving within the tie tolerance of zero is exactly zero: floating-point noise
    /// (`-2.9e-11`) never reaches a report.
    pub fn new(baseline_total: f64, baseline_calls: usize, edited_total: f64) -> Saving {
        let saved = baseline_total - edited_total;
        let saved = if crate::rank::tied(saved, 0.0, baseline_total) {
            0.0
        } else {
            saved
        };
        Saving {
            saved,
            percent: 100.0 * saved / baseline_total,
            equivalent_calls: saved / (baseline_total / baseline_calls as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Slot;

    fn run(bytes: &[f64]) -> Run {
        Run::of(
            bytes
                .iter()
                .enumerate()
                .map(|(i, &b)| Slot {
                    origin: i as u32,
                    label: i as u32,
                    bytes: b,
                    tokens: 0.0,
                    output_tokens: 0.0,
                    own_tokens: 0.0,
                    own_bytes: 0.0,
                })
                .collect(),
        )
    }

    const SEED: Assumptions = Assumptions {
        base_tokens: 30_000.0,
        bytes_per_token: 3.3,
    };

    fn rows(r: &Run, at: Assumptions) -> Vec<f64> {
        let mut walker = crate::timeline::Walker::<f64>::new(None, at, 0.0);
        r.iter()
            .map(|s| walker.step(&s, 0.0, None).context)
            .collect()
    }

    fn reread_total(r: &Run, at: Assumptions) -> f64 {
        rows(r, at).iter().sum()
    }

    #[test]
    fn worked_example_of_model_section_1() {
        // Calls of 45,000, 2,000 and 5,000 bytes read 30,000, 43,636.4 and 44,242.4 tokens.
        let r = run(&[45_000.0, 2_000.0, 5_000.0]);
        let ctx = rows(&r, SEED);
        assert_eq!(ctx[0], 30_000.0);
        assert!((ctx[1] - (30_000.0 + 45_000.0 / 3.3)).abs() < 1e-9);
        assert!((ctx[2] - (30_000.0 + 47_000.0 / 3.3)).abs() < 1e-9);
        let expected = 90_000.0 + (2.0 * 45_000.0 + 2_000.0) / 3.3; // 117,878.78…
        assert!((reread_total(&r, SEED) - expected).abs() < 1e-9);
        assert!((reread_total(&r, SEED) - 117_878.8).abs() < 0.05);
        assert!((Affine::of(&r).at(SEED) - expected).abs() < 1e-9);
    }

    #[test]
    fn a_call_reads_the_context_before_its_own_result() {
        let r = run(&[33.0]);
        assert_eq!(reread_total(&r, SEED), 30_000.0);
    }

    #[test]
    fn equivalent_calls_use_the_baseline_call_count() {
        // Baseline 4 calls totalling 400: the average call is 100, so saving 150 is 1.5 calls.
        let s = Saving::new(400.0, 4, 250.0);
        assert_eq!((s.saved, s.percent, s.equivalent_calls), (150.0, 37.5, 1.5));
        // Noise around an exact zero is zero.
        let noise = Saving::new(400.0, 4, 400.0 + 2.9e-11);
        assert_eq!((noise.saved, noise.percent), (0.0, 0.0));
    }
}
