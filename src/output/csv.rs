//! CSV files: `summary.csv` (one row per edit) and `ledger.csv` (one row per call of the
//! baseline and of every edit). Numbers are written unrounded.

use crate::evaluate::Study;
use crate::ledger::{self, Assumptions};
use crate::report::Report;
use crate::run::Run;
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
    baseline_total_tokens: f64,
    baseline_calls: usize,
    base_tokens: f64,
    bytes_per_token: f64,
}

fn csv_error(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// Writes `summary.csv`: one row per edit, in ranked order.
pub fn write_summary(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    for e in &report.edits {
        w.serialize(SummaryRow {
            rank: e.rank,
            edit: &e.name,
            calls: e.calls,
            total_tokens: e.total_tokens,
            saved_tokens: e.saved_tokens,
            saved_pct: e.saved_pct,
            equivalent_calls: e.equivalent_calls,
            baseline_total_tokens: report.baseline.total_tokens,
            baseline_calls: report.baseline.calls,
            base_tokens: report.base_tokens,
            bytes_per_token: report.bytes_per_token,
        })
        .map_err(csv_error)?;
    }
    if report.edits.is_empty() {
        w.write_record([
            "rank",
            "edit",
            "calls",
            "total_tokens",
            "saved_tokens",
            "saved_pct",
            "equivalent_calls",
            "baseline_total_tokens",
            "baseline_calls",
            "base_tokens",
            "bytes_per_token",
        ])
        .map_err(csv_error)?;
    }
    w.flush()
}

/// Header of `ledger.csv`.
pub const LEDGER_HEADER: [&str; 7] = [
    "edit",
    "call",
    "id",
    "label",
    "bytes",
    "context_tokens",
    "cumulative_tokens",
];

/// Writes `ledger.csv`: the baseline's calls (edit `baseline`), then each edit's.
pub fn write_ledger(out: &mut dyn Write, study: &Study, at: Assumptions) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(LEDGER_HEADER).map_err(csv_error)?;
    write_run(&mut w, "baseline", &study.baseline, study, at)?;
    for (edit, edited) in study.scenario.edits.iter().zip(&study.edited) {
        write_run(&mut w, &edit.name, &edited.run, study, at)?;
    }
    w.flush()
}

fn write_run<W: Write>(
    w: &mut csv::Writer<W>,
    edit: &str,
    run: &Run,
    study: &Study,
    at: Assumptions,
) -> io::Result<()> {
    let calls = &study.scenario.calls;
    let (mut index, mut bytes, mut context, mut cumulative) = (
        itoa::Buffer::new(),
        ryu::Buffer::new(),
        ryu::Buffer::new(),
        ryu::Buffer::new(),
    );
    for (i, (slot, row)) in run.slots.iter().zip(ledger::rows(run, at)).enumerate() {
        let record: [&[u8]; 7] = [
            edit.as_bytes(),
            index.format(i + 1).as_bytes(),
            calls[slot.origin as usize].id.as_bytes(),
            run.label(calls, slot).as_bytes(),
            bytes.format(slot.bytes).as_bytes(),
            context.format(row.context_tokens).as_bytes(),
            cumulative.format(row.cumulative_tokens).as_bytes(),
        ];
        w.write_record(record).map_err(csv_error)?;
    }
    Ok(())
}
