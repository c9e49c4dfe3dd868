//! CSV files: `summary.csv` (one row per edit) and `sweep.csv` (one row per point and edit).
//! Numbers are written unrounded.

use crate::ledger::Saving;
use crate::rank;
use crate::report::Report;
use crate::sweep::{Point, PointSink, Totals};
use serde::Serialize;
use std::io::{self, Write};

/// A row of `summary.csv`.
#[derive(Serialize)]
struct SummaryRow<'a> {
    rank: usize,
    edit: &'a str,
    calls: usize,
    total_tokens: f64,
    saved_tokens: f64,
    saved_pct: f64,
    equivalent_calls: f64,
    cost: f64,
    cost_saved: f64,
    cost_saved_pct: f64,
    cost_rank: usize,
    dollars: Option<f64>,
    dollars_saved: Option<f64>,
    clearings: Option<usize>,
    baseline_total_tokens: f64,
    baseline_calls: usize,
    baseline_cost: f64,
    base_tokens: f64,
    bytes_per_token: f64,
}

pub(crate) fn csv_error(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// Header of `summary.csv`.
pub const SUMMARY_HEADER: [&str; 19] = [
    "rank",
    "edit",
    "calls",
    "total_tokens",
    "saved_tokens",
    "saved_pct",
    "equivalent_calls",
    "cost",
    "cost_saved",
    "cost_saved_pct",
    "cost_rank",
    "dollars",
    "dollars_saved",
    "clearings",
    "baseline_total_tokens",
    "baseline_calls",
    "baseline_cost",
    "base_tokens",
    "bytes_per_token",
];

/// Writes `summary.csv`: one row per edit, in ranked order.
pub fn write_summary(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(out);
    w.write_record(SUMMARY_HEADER).map_err(csv_error)?;
    for e in &report.edits {
        w.serialize(SummaryRow {
            rank: e.rank,
            edit: &e.name,
            calls: e.calls,
            total_tokens: e.total_tokens,
            saved_tokens: e.saved_tokens,
            saved_pct: e.saved_pct,
            equivalent_calls: e.equivalent_calls,
            cost: e.cost,
            cost_saved: e.cost_saved,
            cost_saved_pct: e.cost_saved_pct,
            cost_rank: e.cost_rank,
            dollars: e.dollars,
            dollars_saved: e.dollars_saved,
            clearings: e.events.as_ref().map(Vec::len),
            baseline_total_tokens: report.baseline.total_tokens,
            baseline_calls: report.baseline.calls,
            baseline_cost: report.baseline.cost,
            base_tokens: report.base_tokens,
            bytes_per_token: report.bytes_per_token,
        })
        .map_err(csv_error)?;
    }
    w.flush()
}

/// A row of `whatif.csv`: one per what-if edit and base part it drops or defers (one
/// row for an edit without one).
#[derive(Serialize)]
pub(crate) struct WhatIfRow<'a> {
    pub edit: &'a str,
    pub priced_as: Option<&'a str>,
    pub tokens_factor: Option<f64>,
    pub cost_scale: f64,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
    pub cache_ttl_s: Option<f64>,
    pub cache_min_tokens: Option<f64>,
    pub trace: &'static str,
    pub trace_unchanged: bool,
    pub part: Option<&'a str>,
    pub part_action: Option<&'static str>,
    pub part_tokens: Option<f64>,
    pub part_source: Option<&'a str>,
    pub stub_tokens: Option<f64>,
    /// Calls of the edited run that use the part's tools, and their ids (space-separated).
    pub calls_using_part: Option<usize>,
    pub call_ids: Option<String>,
    pub tool_searches: usize,
}

/// The rows of one what-if edit.
pub(crate) fn whatif_rows<'a>(
    edit: &'a str,
    w: &'a crate::report::WhatIfReport,
) -> Vec<WhatIfRow<'a>> {
    let row = |part: Option<&'a crate::whatif::PartUse>| WhatIfRow {
        edit,
        priced_as: w.priced_as.as_deref(),
        tokens_factor: w.tokens_factor,
        cost_scale: w.cost_scale,
        cache_read: w.cache.as_ref().map(|c| c.read),
        cache_write: w.cache.as_ref().map(|c| c.write),
        cache_ttl_s: w.cache.as_ref().map(|c| c.ttl_s),
        cache_min_tokens: w.cache.as_ref().map(|c| c.min_tokens),
        trace: w.trace.key(),
        trace_unchanged: w.trace_unchanged,
        part: part.map(|p| p.part.as_str()),
        part_action: part.map(|p| p.action),
        part_tokens: part.map(|p| p.tokens),
        part_source: part.map(|p| p.source.as_str()),
        stub_tokens: part.and_then(|p| p.stub_tokens),
        calls_using_part: part.map(|p| p.call_ids.len()),
        call_ids: part.map(|p| p.call_ids.join(" ")),
        tool_searches: w.tool_searches,
    };
    if w.parts.is_empty() {
        vec![row(None)]
    } else {
        w.parts.iter().map(|p| row(Some(p))).collect()
    }
}

/// Writes `whatif.csv`: what each what-if edit changes (docs/model.md §9), in ranked
/// order; written only when the run has such an edit.
pub fn write_whatif(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    for e in &report.edits {
        let Some(what_if) = &e.what_if else { continue };
        for row in whatif_rows(&e.name, what_if) {
            w.serialize(row).map_err(csv_error)?;
        }
    }
    w.flush()
}

/// Writes `by_tool.csv`: one row per tool (or kind), the base and the model's output, by
/// share of the baseline's reread total, largest first.
pub fn write_by_tool(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    for row in &report.by_tool {
        w.serialize(row).map_err(csv_error)?;
    }
    if report.by_tool.is_empty() {
        w.write_record([
            "group",
            "calls",
            "result_tokens",
            "reread_tokens",
            "share_pct",
        ])
        .map_err(csv_error)?;
    }
    w.flush()
}

/// `sweep.csv`, written point by point as the sweep goes: one row per point and edit.
pub struct SweepCsv<'a> {
    w: csv::Writer<&'a mut dyn Write>,
    cached: bool,
    baseline_calls: usize,
    names: Vec<String>,
}

impl PointSink for SweepCsv<'_> {
    fn point(
        &mut self,
        _index: Option<usize>,
        point: &Point,
        nominal: bool,
        totals: &[Totals],
    ) -> io::Result<()> {
        self.write_point(point, nominal, totals)
    }
}

impl<'a> SweepCsv<'a> {
    /// Starts the file for edits `names`; `cached` adds the cost columns.
    pub fn new(
        out: &'a mut dyn Write,
        cached: bool,
        baseline_calls: usize,
        names: Vec<String>,
    ) -> io::Result<SweepCsv<'a>> {
        let mut w = csv::Writer::from_writer(out);
        let mut header = vec![
            "base_tokens",
            "bytes_per_token",
            "cache_read",
            "retry_rate",
            "refetch",
            "nominal",
            "edit",
            "total_tokens",
            "saved_tokens",
            "saved_pct",
            "equivalent_calls",
            "rank",
        ];
        if cached {
            header.extend(["cost", "cost_saved", "cost_saved_pct", "cost_rank"]);
        }
        w.write_record(&header).map_err(csv_error)?;
        Ok(SweepCsv {
            w,
            cached,
            baseline_calls,
            names,
        })
    }

    /// Writes one row per edit for `point`; `totals[0]` is the baseline's.
    fn write_point(&mut self, point: &Point, nominal: bool, totals: &[Totals]) -> io::Result<()> {
        let base = totals[0];
        let savings: Vec<Saving> = totals[1..]
            .iter()
            .map(|t| Saving::new(base.tokens, self.baseline_calls, t.tokens))
            .collect();
        let ranks = rank::rank(
            &savings.iter().map(|s| s.saved).collect::<Vec<_>>(),
            base.tokens,
        )
        .ranks;
        let cost_savings: Vec<Saving> = totals[1..]
            .iter()
            .map(|t| Saving::new(base.cost, self.baseline_calls, t.cost))
            .collect();
        let cost_ranks = rank::rank(
            &cost_savings.iter().map(|s| s.saved).collect::<Vec<_>>(),
            base.cost,
        )
        .ranks;
        let mut f = ryu::Buffer::new();
        let fixed = [
            f.format(point.base_tokens).to_string(),
            f.format(point.bytes_per_token).to_string(),
            point
                .cache_read
                .map_or_else(String::new, |r| f.format(r).to_string()),
            f.format(point.retry_rate).to_string(),
            f.format(point.refetch).to_string(),
            nominal.to_string(),
        ];
        for (e, name) in self.names.iter().enumerate() {
            let s = &savings[e];
            let mut record: Vec<String> = fixed.to_vec();
            record.push(name.clone());
            for x in [totals[e + 1].tokens, s.saved, s.percent, s.equivalent_calls] {
                record.push(f.format(x).to_string());
            }
            record.push(ranks[e].to_string());
            if self.cached {
                let c = &cost_savings[e];
                for x in [totals[e + 1].cost, c.saved, c.percent] {
                    record.push(f.format(x).to_string());
                }
                record.push(cost_ranks[e].to_string());
            }
            self.w.write_record(&record).map_err(csv_error)?;
        }
        Ok(())
    }

    /// Flushes the file.
    pub fn finish(mut self) -> io::Result<()> {
        self.w.flush()
    }
}
