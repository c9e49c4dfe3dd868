//! Cache breaks for people and programs (docs/model.md §4, "Breaks"): the lines `simulate
//! fit` and `import --fit` print (by class, then the largest), and `breaks.csv` (every
//! break, one row each, unrounded).

use crate::fit::breaks::{Break, BreakClass, Breaks, ClassSum};
use crate::number::grouped;
use serde::Serialize;
use std::io::{self, Write};

/// How many of the largest breaks the table names.
pub const LARGEST: usize = 5;

/// `$0.0123`, or `$?` with how many breaks lack a price.
fn dollars(s: &ClassSum) -> String {
    match (s.count - s.unpriced, s.unpriced) {
        (_, 0) => format!("${:.4}", s.usd),
        (0, _) => "$ unknown (no input price)".to_string(),
        (_, n) => format!("${:.4} (+{n} unpriced)", s.usd),
    }
}

/// The breaks by class (every class with a break, then the total), indented by `indent`.
pub fn by_class(
    out: &mut dyn Write,
    sums: &[(BreakClass, ClassSum)],
    indent: &str,
) -> io::Result<()> {
    let mut total = ClassSum::default();
    for (class, s) in sums.iter().filter(|(_, s)| s.count > 0) {
        total.merge(s);
        writeln!(
            out,
            "{indent}{:<12} {:>5}  {:>12} tokens written  {:>12} input-token equiv.  {}",
            class.key(),
            s.count,
            grouped(s.written_tokens, 0),
            grouped(s.cost_input_tokens, 0),
            dollars(s)
        )?;
    }
    let share = |c: BreakClass| {
        sums.iter()
            .find(|(k, _)| *k == c)
            .map_or(0.0, |(_, s)| s.written_tokens)
    };
    let unexplained = if total.written_tokens > 0.0 {
        format!(
            "; unexplained {:.1} % of the tokens",
            100.0 * share(BreakClass::Unexplained) / total.written_tokens
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{indent}{:<12} {:>5}  {:>12} tokens written  {:>12} input-token equiv.  {}{unexplained}",
        "all",
        total.count,
        grouped(total.written_tokens, 0),
        grouped(total.cost_input_tokens, 0),
        dollars(&total)
    )
}

/// One break in words: `call 56 (Bash: cargo test) after a pause of 4,166 s: ttl, 93,432
/// tokens written, $0.3223`.
pub fn one(b: &Break) -> String {
    let pause = if b.gap_s > 0.0 {
        format!(" after a pause of {} s", grouped(b.gap_s, 0))
    } else {
        String::new()
    };
    let usd = b.usd.map_or_else(String::new, |d| format!(", ${d:.4}"));
    format!(
        "call {} ({}){pause}: {}, {} tokens written of {} a perfect cache would read{usd}",
        b.call,
        crate::printable::printable(&b.label),
        b.class.key(),
        grouped(b.written_tokens, 0),
        grouped(b.perfect_read_tokens, 0)
    )
}

/// `simulate fit`'s lines: what a break is, by class, and the largest [`LARGEST`].
pub fn table(out: &mut dyn Write, b: &Breaks) -> io::Result<()> {
    writeln!(
        out,
        "  cache breaks        {} of {} requests read more than {} tokens less than a perfect prefix cache (B = {}, lifetime {} s); priced at written × (write − read) of each request's model:",
        b.breaks.len(),
        b.requests,
        grouped(crate::fit::breaks::BREAK_MIN_TOKENS, 0),
        grouped(b.base_tokens, 0),
        grouped(b.ttl_s, 0)
    )?;
    if b.breaks.is_empty() {
        return Ok(());
    }
    by_class(out, &b.by_class, "    ")?;
    writeln!(out, "    largest:")?;
    for x in b.largest(LARGEST) {
        writeln!(out, "      {}", one(x))?;
    }
    if b.small > 0 {
        writeln!(
            out,
            "    and {} smaller shortfalls ({} tokens in all), not counted as breaks",
            b.small,
            grouped(b.small_tokens, 0)
        )?;
    }
    Ok(())
}

/// A row of `breaks.csv`.
#[derive(Serialize)]
struct Row<'a> {
    session: &'a str,
    call: usize,
    id: &'a str,
    label: &'a str,
    class: &'static str,
    gap_s: f64,
    model: Option<&'a str>,
    perfect_read_tokens: f64,
    read_tokens: f64,
    written_tokens: f64,
    cost_input_tokens: f64,
    usd: Option<f64>,
}

/// `breaks.csv` written session by session: every break, one row each, unrounded.
pub struct BreaksCsv<W: Write> {
    w: csv::Writer<W>,
}

impl<W: Write> BreaksCsv<W> {
    /// The file with its header (written even with no break: an empty file still says
    /// what it would hold).
    pub fn new(out: W) -> io::Result<Self> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(out);
        w.write_record([
            "session",
            "call",
            "id",
            "label",
            "class",
            "gap_s",
            "model",
            "perfect_read_tokens",
            "read_tokens",
            "written_tokens",
            "cost_input_tokens",
            "usd",
        ])
        .map_err(super::csv::csv_error)?;
        Ok(BreaksCsv { w })
    }

    /// Every break of `session`.
    pub fn add(&mut self, session: &str, breaks: &[Break]) -> io::Result<()> {
        for b in breaks {
            self.w
                .serialize(Row {
                    session,
                    call: b.call,
                    id: &b.id,
                    label: &b.label,
                    class: b.class.key(),
                    gap_s: b.gap_s,
                    model: b.model.as_deref(),
                    perfect_read_tokens: b.perfect_read_tokens,
                    read_tokens: b.read_tokens,
                    written_tokens: b.written_tokens,
                    cost_input_tokens: b.cost_input_tokens,
                    usd: b.usd,
                })
                .map_err(super::csv::csv_error)?;
        }
        Ok(())
    }

    /// Flushes the file.
    pub fn finish(mut self) -> io::Result<()> {
        self.w.flush()
    }
}
