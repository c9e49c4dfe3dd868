//! `ledger.csv`: one row per request of the baseline and of every edit, at the nominal
//! point: every call, every request an edit adds (a tool search), and every compaction's
//! own request (label `compaction request`, no id, no bytes), so that the rows add up to
//! the run's total.
//!
//! For a million-call trace this file holds millions of rows (hundreds of megabytes), and
//! formatting and writing them is most of the cost of a run. So each run is walked in
//! order into batches of call figures, each batch is formatted in parallel into byte
//! buffers, and a writer thread writes the buffers in order while the next batch is
//! formatted: the bytes are the same with one thread or many, and memory stays at a few
//! batches however long the trace.

use crate::clear::Clearings;
use crate::evaluate::{Evaluation, Study, Subject};
use crate::run::Slot;
use crate::sweep::Point;
use crate::timeline::{self, CallFigures, Request};
use rayon::prelude::*;
use std::io::{self, Write};
use std::sync::mpsc::{self, SyncSender};

/// Columns of `ledger.csv`.
pub const LEDGER_HEADER: [&str; 8] = [
    "edit",
    "call",
    "id",
    "label",
    "bytes",
    "context_tokens",
    "cumulative_tokens",
    "cleared",
];

/// Columns added where cost is priced (a `[cache]`, or output priced): the prompt cache's
/// split (zeros without a cache), the cost in the scenario's input-token equivalents (output
/// included), the output tokens and the model the request is priced at (docs/model.md §4).
pub const LEDGER_CACHE_HEADER: [&str; 6] = [
    "cached_tokens",
    "written_tokens",
    "uncached_tokens",
    "cost",
    "output_tokens",
    "model",
];

/// Rows above which `ledger.csv` is left out unless asked for (`--ledger-csv`): 10 million
/// rows are about 0.8 GB, a trace of 2.5 million calls with 3 edits. Beyond that the file
/// costs more than the whole comparison (the kernel's write-back of gigabytes makes a run
/// superlinear in calls) and is more than a person or a spreadsheet reads; every figure of
/// the comparison is in the summary, the sweep and the charts.
pub const DEFAULT_MAX_ROWS: usize = 10_000_000;

/// The rows `ledger.csv` of `study` holds, one per call of each run, to decide whether it
/// is written: a compaction's own request, known only once the run is walked, adds a row
/// it does not count (a few per run at most).
pub fn rows(study: &Study) -> usize {
    std::iter::once(&study.baseline)
        .chain(&study.edited)
        .map(|s| s.run.len())
        .sum()
}

/// Calls walked before a batch is formatted and written.
const BATCH: usize = 1 << 16;
/// Calls formatted by one task.
const TASK: usize = 1 << 12;
/// Formatted buffers waiting for the writer.
const QUEUE: usize = 64;

/// Writes `ledger.csv`: the baseline's calls (edit `baseline`), then each edit's, at the
/// nominal point of `nominal`. `cleared` lists the ids whose results were cleared just
/// before the call (space-separated). Where cost is priced (a `[cache]`, or output priced),
/// each row adds the cached, written and uncached tokens (a request under the minimum
/// cacheable length), the cost, the output tokens and the model it is priced at.
pub fn write_ledger(
    out: &mut (dyn Write + Send),
    study: &Study,
    nominal: &Evaluation,
) -> io::Result<()> {
    let mut header = Vec::new();
    let extra: &[&str] = if study.prices_cost() {
        &LEDGER_CACHE_HEADER
    } else {
        &[]
    };
    for (i, h) in LEDGER_HEADER.iter().chain(extra).enumerate() {
        if i > 0 {
            header.push(b',');
        }
        header.extend_from_slice(h.as_bytes());
    }
    header.push(b'\n');
    std::thread::scope(|scope| {
        let (buffers, received) = mpsc::sync_channel::<Vec<u8>>(QUEUE);
        let writer = scope.spawn(move || -> io::Result<()> {
            for buffer in received {
                out.write_all(&buffer)?;
            }
            Ok(())
        });
        // A send fails only when the writer stopped on an error, which join reports.
        let _ = buffers.send(header);
        let outcomes =
            std::iter::once(&nominal.baseline).chain(nominal.edits.iter().map(|e| &e.outcome));
        for (subject, outcome) in study.subjects().zip(outcomes) {
            if !write_run(&buffers, study, subject, &outcome.clearings, &nominal.point) {
                break;
            }
        }
        drop(buffers);
        writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the ledger writer thread failed")))
    })
}

/// One request's row before formatting.
struct Row {
    index: usize,
    /// The call's (or an added request's) slot; None for a compaction's own request.
    slot: Option<Slot>,
    figures: CallFigures<f64>,
    cumulative: f64,
    cost: f64,
    /// Index of the clearing event just before this call.
    event: Option<usize>,
}

/// Formats `subject`'s rows into `buffers`; false when the writer has stopped.
fn write_run(
    buffers: &SyncSender<Vec<u8>>,
    study: &Study,
    subject: &Subject,
    clearings: &Clearings,
    point: &Point,
) -> bool {
    let calls = &study.scenario.calls;
    // The run's own models and prices (a cache or model edit's), its cost in the
    // scenario's input-token equivalents.
    let pricing = subject.pricing(study);
    let cached = study.prices_cost();
    let mut name = Vec::new();
    push_text(&mut name, &subject.name);
    let format_batch = |rows: &[Row]| -> Vec<Vec<u8>> {
        rows.par_chunks(TASK)
            .map(|chunk| {
                let mut buf = Vec::with_capacity(chunk.len() * 120);
                let mut numbers = ryu::Buffer::new();
                let mut integer = itoa::Buffer::new();
                for row in chunk {
                    buf.extend_from_slice(&name);
                    buf.push(b',');
                    buf.extend_from_slice(integer.format(row.index + 1).as_bytes());
                    buf.push(b',');
                    match &row.slot {
                        Some(slot) => {
                            push_text(&mut buf, &calls.id(slot.origin as usize));
                            buf.push(b',');
                            push_text(&mut buf, subject.run.label(calls, slot));
                            buf.push(b',');
                            push_number(&mut buf, slot.bytes, &mut numbers, &mut integer);
                        }
                        // No id and no bytes of its own: it reads the context as it stands.
                        None => buf.extend_from_slice(b",compaction request,"),
                    }
                    for x in [row.figures.context, row.cumulative] {
                        buf.push(b',');
                        push_number(&mut buf, x, &mut numbers, &mut integer);
                    }
                    buf.push(b',');
                    if let Some(e) = row.event {
                        for (k, &origin) in clearings.events[e].origins.iter().enumerate() {
                            if k > 0 {
                                buf.push(b' ');
                            }
                            buf.extend_from_slice(calls.at(origin as usize).id.as_bytes());
                        }
                    }
                    if cached {
                        let f = &row.figures;
                        for x in [f.cached, f.written, f.uncached, row.cost, f.output_tokens] {
                            buf.push(b',');
                            push_number(&mut buf, x, &mut numbers, &mut integer);
                        }
                        buf.push(b',');
                        if let Some(m) = &pricing.models[f.model as usize].model {
                            push_text(&mut buf, m);
                        }
                    }
                    buf.push(b'\n');
                }
                buf
            })
            .collect()
    };
    let mut batch: Vec<Row> = Vec::with_capacity(BATCH.min(subject.run.len()));
    let mut cumulative = 0.0;
    let mut next_event = 0;
    let send = |rows: &[Row]| {
        format_batch(rows)
            .into_iter()
            .all(|b| buffers.send(b).is_ok())
    };
    let mut open = true;
    subject.walk_requests(
        study,
        clearings,
        point.assumptions(),
        |i, request, f: &CallFigures<f64>| {
            cumulative += f.context;
            let slot = match request {
                Request::Slot(slot) => Some(*slot),
                Request::Compaction => None,
            };
            // A clearing's ids go on the call after it; a compaction's on the call that
            // reads what it left, not on its own request.
            let event = clearings
                .events
                .get(next_event)
                .filter(|e| e.before == i && slot.is_some())
                .map(|_| {
                    next_event += 1;
                    next_event - 1
                });
            batch.push(Row {
                index: i,
                slot,
                figures: *f,
                cumulative,
                cost: timeline::call_cost(
                    f,
                    &pricing.models[f.model as usize],
                    point.cache_read,
                    point.retry_rate,
                ),
                event,
            });
            if batch.len() == BATCH && open {
                open = send(&batch);
                batch.clear();
            }
        },
    );
    open && send(&batch)
}

/// A text field, quoted when it holds a comma, quote or line break.
fn push_text(buf: &mut Vec<u8>, text: &str) {
    if text
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        buf.push(b'"');
        for b in text.bytes() {
            if b == b'"' {
                buf.push(b'"');
            }
            buf.push(b);
        }
        buf.push(b'"');
    } else {
        buf.extend_from_slice(text.as_bytes());
    }
}

/// A number, unrounded, as ryu writes it; whole numbers take a faster path with the same
/// text (`45000.0`).
#[inline]
fn push_number(buf: &mut Vec<u8>, x: f64, numbers: &mut ryu::Buffer, integer: &mut itoa::Buffer) {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        buf.extend_from_slice(integer.format(x as i64).as_bytes());
        buf.extend_from_slice(b".0");
    } else {
        buf.extend_from_slice(numbers.format(x).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text_are_written_as_csv_readers_expect() {
        let mut buf = Vec::new();
        let (mut r, mut i) = (ryu::Buffer::new(), itoa::Buffer::new());
        for x in [45000.0, 670.67, -3.0, 1e20, 0.0] {
            push_number(&mut buf, x, &mut r, &mut i);
            buf.push(b' ');
        }
        push_text(&mut buf, "cat a, b");
        push_text(&mut buf, "say \"hi\"");
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "45000.0 670.67 -3.0 1e20 0.0 \"cat a, b\"\"say \"\"hi\"\"\""
        );
        assert_eq!(ryu::Buffer::new().format(-3.0), "-3.0");
    }
}
