//! The report: every figure of a run, with its unit and where its inputs came from.
//!
//! One serde structure feeds the JSON output, the table and the HTML page, so they cannot
//! disagree. Numbers here are unrounded; only the table and charts round, for reading.

use crate::evaluate::{Evaluation, Study};
use crate::ledger::Assumptions;
use serde::Serialize;

/// Where an assumption's value came from.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Sources {
    /// e.g. `assumed (scenario file)` or `assumed (--base)`.
    pub base_tokens: String,
    pub bytes_per_token: String,
}

/// The baseline run's figures.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BaselineReport {
    /// Reread total, in est. tokens.
    pub total_tokens: f64,
    pub calls: usize,
    /// `total_tokens / calls`.
    pub average_call_tokens: f64,
}

/// One edit's figures against the baseline.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EditReport {
    pub name: String,
    /// 1-based; tied edits share a rank.
    pub rank: usize,
    pub total_tokens: f64,
    pub saved_tokens: f64,
    pub saved_pct: f64,
    /// Saving in average baseline calls.
    pub equivalent_calls: f64,
    /// Calls after the edit.
    pub calls: usize,
}

/// The whole comparison at the nominal point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub scenario: String,
    pub description: Option<String>,
    /// The scenario file, as given.
    pub source: String,
    /// The unit of every token figure, e.g. `est. tokens at 3.3 bytes/token`.
    pub unit: String,
    pub base_tokens: f64,
    pub bytes_per_token: f64,
    pub sources: Sources,
    /// Calls whose size includes measured tokens (the rest are estimated from bytes).
    pub measured_calls: usize,
    pub baseline: BaselineReport,
    /// In ranked order, best saving first.
    pub edits: Vec<EditReport>,
}

/// The unit label of token figures at `bytes_per_token`.
pub fn unit(bytes_per_token: f64) -> String {
    format!("est. tokens at {bytes_per_token} bytes/token")
}

impl Report {
    /// Builds the report of `study` evaluated at its nominal point.
    pub fn new(study: &Study, nominal: &Evaluation, sources: Sources) -> Report {
        let s = study.scenario;
        let at: Assumptions = nominal.at;
        let edits = nominal
            .ranking
            .order
            .iter()
            .map(|&i| {
                let r = &nominal.edits[i];
                EditReport {
                    name: s.edits[i].name.clone(),
                    rank: nominal.ranking.ranks[i],
                    total_tokens: r.total_tokens,
                    saved_tokens: r.saving.saved,
                    saved_pct: r.saving.percent,
                    equivalent_calls: r.saving.equivalent_calls,
                    calls: r.calls,
                }
            })
            .collect();
        Report {
            scenario: s.name.clone(),
            description: s.description.clone(),
            source: s.source.clone(),
            unit: unit(at.bytes_per_token),
            base_tokens: at.base_tokens,
            bytes_per_token: at.bytes_per_token,
            sources,
            measured_calls: s.measured_calls(),
            baseline: BaselineReport {
                total_tokens: nominal.baseline_total,
                calls: nominal.baseline_calls,
                average_call_tokens: nominal.baseline_total / nominal.baseline_calls as f64,
            },
            edits,
        }
    }
}
