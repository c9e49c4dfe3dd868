//! `simulate ledger RUN.tsv`: the call-by-call reread ledger of a trace, streamed.
//!
//! A trace can hold tens of millions of calls, so nothing here grows with their number:
//! the trace is read twice through [`Trace`] (which checks it whole first, so a bad line
//! near the end fails before anything is printed) and every row comes from one
//! [`Walker`] step, the same ledger every other output uses. The first read also gathers
//! what the header and the column widths need (count, totals, widest label); the second
//! prints each row as it is computed. In the second, one thread reads and walks the trace
//! while the calling thread formats and prints, handing batches of rows back and forth
//! (a fixed number of them, so memory stays flat).

use crate::error::Error;
use crate::ledger::Assumptions;
use crate::output::Format;
use crate::output::ledger_stream::{self, Head, Widths};
use crate::report::{self, Sources};
use crate::run::Slot;
use crate::scenario::{Call, Terms, Trace, blank_call};
use crate::timeline::Walker;
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc;

/// B when `--base` is not given, in tokens (the seed's assumption).
pub const DEFAULT_BASE_TOKENS: f64 = 30_000.0;

/// ρ when `--bpt` is not given, in bytes per token (mixed Japanese text in the seed).
pub const DEFAULT_BYTES_PER_TOKEN: f64 = 3.3;

/// `simulate ledger RUN.tsv`.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerConfig {
    pub trace: PathBuf,
    /// B from `--base`; `None`: [`DEFAULT_BASE_TOKENS`], labelled as the default.
    pub base_tokens: Option<f64>,
    /// ρ from `--bpt`; `None`: [`DEFAULT_BYTES_PER_TOKEN`], labelled as the default.
    pub bytes_per_token: Option<f64>,
    pub format: Format,
}

impl LedgerConfig {
    /// The assumptions in force.
    pub fn assumptions(&self) -> Assumptions {
        Assumptions {
            base_tokens: self.base_tokens.unwrap_or(DEFAULT_BASE_TOKENS),
            bytes_per_token: self.bytes_per_token.unwrap_or(DEFAULT_BYTES_PER_TOKEN),
        }
    }

    /// Where B and ρ came from, as printed beside them.
    pub fn sources(&self) -> Sources {
        let source = |flag: &str, given: bool, default: &str| {
            if given {
                format!("assumed ({flag} on the command line)")
            } else {
                format!("assumed (default {default})")
            }
        };
        Sources {
            base_tokens: source("--base", self.base_tokens.is_some(), "30,000"),
            bytes_per_token: source("--bpt", self.bytes_per_token.is_some(), "3.3"),
        }
    }
}

/// What the first read of the trace gathers.
struct Survey<'a> {
    walker: Walker<'a, f64>,
    calls: usize,
    widths: Widths,
    largest_bytes: f64,
    largest_context: f64,
}

impl Survey<'_> {
    fn add(&mut self, call: &Call) {
        let figures = self.walker.step(&slot(call), call.gap_s, None);
        self.calls += 1;
        self.widths.fit(call);
        self.largest_bytes = self.largest_bytes.max(call.bytes);
        self.largest_context = self.largest_context.max(figures.context);
    }
}

/// The walker's view of a call: its result and output.
fn slot(call: &Call) -> Slot {
    Slot::of(0, call.as_ref(), &Terms::default())
}

/// Prints the ledger of `c.trace` to `out`, as a table or JSON.
///
/// Errors: [`Error::Input`] or [`Error::Unreadable`] for the trace (before anything is
/// printed); [`Error::Print`] when `out` fails (a closed pipe exits 0).
pub fn run(c: &LedgerConfig, out: &mut dyn Write) -> Result<(), Error> {
    let at = c.assumptions();
    let survey = || Survey {
        walker: Walker::new(None, at, 0.0),
        calls: 0,
        widths: Widths::default(),
        largest_bytes: 0.0,
        largest_context: 0.0,
    };
    let (trace, survey) = Trace::open_with(&c.trace, survey, Survey::add)?;
    let total = survey.walker.sums().context;
    let head = Head {
        trace: c.trace.display().to_string(),
        unit: report::unit(at.bytes_per_token),
        at,
        sources: c.sources(),
        total_tokens: total,
        calls: survey.calls,
        average_call_tokens: total / survey.calls as f64,
    };
    let widths = survey
        .widths
        .finish(survey.largest_bytes, survey.largest_context, total);
    let mut sink = ledger_stream::Sink::new(out, c.format, widths);
    sink.head(&head).map_err(Error::Print)?;
    let mut calls = trace.calls()?;
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(BATCHES);
        let (empty_tx, empty_rx) = mpsc::sync_channel::<Batch>(BATCHES);
        for _ in 0..BATCHES {
            // The receiver is alive: it is in this scope.
            let _ = empty_tx.send(Batch::default());
        }
        let reader = scope.spawn(move || -> Result<(), Error> {
            let mut walker = Walker::<f64>::new(None, at, 0.0);
            // Ends when the printer stops taking batches (a closed pipe) or at the end.
            while let Ok(mut batch) = empty_rx.recv() {
                batch.len = 0;
                while batch.len < BATCH_ROWS {
                    if batch.rows.len() == batch.len {
                        batch.rows.push(Row::default());
                    }
                    let row = &mut batch.rows[batch.len];
                    if !calls.next_into(&mut row.call)? {
                        break;
                    }
                    let figures = walker.step(&slot(&row.call), row.call.gap_s, None);
                    row.context = figures.context;
                    row.cumulative = walker.sums().context;
                    batch.len += 1;
                }
                let last = batch.len < BATCH_ROWS;
                if full_tx.send(batch).is_err() || last {
                    break;
                }
            }
            Ok(())
        });
        let printed = full_rx.iter().try_for_each(|batch| {
            for row in &batch.rows[..batch.len] {
                sink.row(&row.call, row.context, row.cumulative)?;
            }
            // The reader may have finished; then the batch is not needed.
            let _ = empty_tx.send(batch);
            Ok(())
        });
        // Both ends the printer holds go before waiting for the reader, so a reader blocked
        // on either channel wakes and stops.
        drop(full_rx);
        drop(empty_tx);
        let read = reader.join().unwrap_or_else(|_| {
            Err(Error::Print(std::io::Error::other(
                "the trace reader stopped unexpectedly",
            )))
        });
        read?;
        printed.map_err(Error::Print)
    })?;
    sink.finish(&head).map_err(Error::Print)
}

/// Batches of rows in flight between the reader and the printer.
const BATCHES: usize = 3;

/// Rows per batch.
const BATCH_ROWS: usize = 4096;

/// A batch of computed rows; `rows` beyond `len` are storage to reuse.
#[derive(Default)]
struct Batch {
    rows: Vec<Row>,
    len: usize,
}

/// One computed row: the call, its context and the running total (est. tokens).
struct Row {
    call: Call,
    context: f64,
    cumulative: f64,
}

impl Default for Row {
    fn default() -> Self {
        Row {
            call: blank_call(),
            context: 0.0,
            cumulative: 0.0,
        }
    }
}
