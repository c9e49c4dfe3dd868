//! The point a figure is computed at, and a run's totals there: plain data that the
//! evaluation, the sweep and the finiteness guard all share.
//!
//! They live below all three so that data flows one way (scenario → study → evaluation →
//! sweep → outputs): `evaluate` and `finite` read these types without depending on the
//! sweep, and the sweep re-exports them.

use crate::ledger::Assumptions;

/// One point of the grid: every assumption the figures rest on.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Point {
    pub base_tokens: f64,
    pub bytes_per_token: f64,
    /// Cache read price (× base input price); None without `[cache]`.
    pub cache_read: Option<f64>,
    pub retry_rate: f64,
    /// The share of removed results the agent fetches again (docs/model.md §11).
    pub refetch: f64,
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

/// A run's reread total and cost at a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Totals {
    pub tokens: f64,
    pub cost: f64,
}
