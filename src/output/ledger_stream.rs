//! The `ledger` command's table and JSON, written row by row as the ledger is walked.
//!
//! A million-row ledger is mostly formatting, so rows are formatted straight into one
//! reused byte buffer (integers with `itoa`, floats with serde_json's own shortest form, no `String` per
//! row) and
//! handed to the output a megabyte at a time. Labels are measured in terminal columns
//! (`unicode-width`), so wide (CJK) characters line up, and a label cut to fit ends with
//! `…`. The JSON has the same fields, in the same order and number format, as serde's
//! pretty printer gives.

use crate::ledger::Assumptions;
use crate::number::{grouped, plural};
use crate::output::Format;
use crate::report::Sources;
use crate::scenario::Call;
use std::io::{self, Write};
use unicode_width::UnicodeWidthChar;

/// The widest label column, in terminal columns; longer labels are cut with `…`.
pub const MAX_LABEL_COLUMNS: usize = 40;

/// Bytes gathered before they are written out.
const CHUNK: usize = 1 << 20;

/// What is known before the rows: the header and the totals.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    /// The trace as the user named it.
    pub trace: String,
    pub unit: String,
    pub at: Assumptions,
    pub sources: Sources,
    /// The reread total, in est. tokens.
    pub total_tokens: f64,
    pub calls: usize,
    /// `total_tokens / calls`, in est. tokens.
    pub average_call_tokens: f64,
}

/// Column widths of the table, in terminal columns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Widths {
    call: usize,
    label: usize,
    bytes: usize,
    /// 0 when no call gives tokens (the column is left out).
    tokens: usize,
    /// 0 when no call gives output tokens (the column is left out).
    output: usize,
    context: usize,
    cumulative: usize,
}

impl Widths {
    /// Widens the call and label columns, and the optional tokens and output columns, to
    /// fit `call`.
    pub fn fit(&mut self, call: &Call) {
        self.call = self.call.max(call.id.len());
        if self.label < MAX_LABEL_COLUMNS {
            self.label = self.label.max(columns(&call.label).min(MAX_LABEL_COLUMNS));
        }
        if call.tokens > 0.0 {
            self.tokens = self
                .tokens
                .max(with_grouped(call.tokens, <[u8]>::len).max("tokens".len()));
        }
        if call.output_tokens > 0.0 {
            self.output = self
                .output
                .max(with_grouped(call.output_tokens, <[u8]>::len).max("output".len()));
        }
    }

    /// The final widths, given the largest bytes and context and the reread total.
    pub fn finish(self, bytes: f64, context: f64, total: f64) -> Widths {
        let number = |x: f64, name: &str| with_grouped(x, <[u8]>::len).max(name.len());
        Widths {
            call: self.call.max("call".len()),
            label: self.label.clamp("label".len(), MAX_LABEL_COLUMNS),
            bytes: number(bytes, "bytes"),
            tokens: self.tokens,
            output: self.output,
            context: number(context, "context"),
            cumulative: number(total, "cumulative"),
        }
    }
}

/// Writes the ledger in `format` to `out`.
pub struct Sink<'a> {
    out: &'a mut dyn Write,
    buf: Vec<u8>,
    format: Format,
    widths: Widths,
    rows: usize,
}

impl<'a> Sink<'a> {
    pub fn new(out: &'a mut dyn Write, format: Format, widths: Widths) -> Self {
        Sink {
            out,
            buf: Vec::with_capacity(CHUNK + 4096),
            format,
            widths,
            rows: 0,
        }
    }

    /// The header (table) or the fields before `rows` (JSON).
    pub fn head(&mut self, h: &Head) -> io::Result<()> {
        let b = &mut self.buf;
        match self.format {
            Format::Table => {
                let base = grouped(h.at.base_tokens, decimals(h.at.base_tokens));
                let w = &self.widths;
                writeln!(b, "{}: {}", h.trace, plural(h.calls, "call", "calls"))?;
                writeln!(b, "  base tokens B  {base:>10}   {}", h.sources.base_tokens)?;
                writeln!(
                    b,
                    "  bytes/token ρ  {:>10}   {}",
                    h.at.bytes_per_token, h.sources.bytes_per_token
                )?;
                writeln!(b, "  unit           {}", h.unit)?;
                write!(
                    b,
                    "{:>cw$}  {:<lw$}  {:>bw$}",
                    "call",
                    "label",
                    "bytes",
                    cw = w.call,
                    lw = w.label,
                    bw = w.bytes,
                )?;
                for (name, width) in [("tokens", w.tokens), ("output", w.output)] {
                    if width > 0 {
                        write!(b, "  {name:>width$}")?;
                    }
                }
                writeln!(
                    b,
                    "  {:>xw$}  {:>tw$}",
                    "context",
                    "cumulative",
                    xw = w.context,
                    tw = w.cumulative
                )?;
            }
            Format::Json => {
                b.extend_from_slice(b"{\n  \"trace\": ");
                json_string(b, &h.trace)?;
                b.extend_from_slice(b",\n  \"unit\": ");
                json_string(b, &h.unit)?;
                b.extend_from_slice(b",\n  \"base_tokens\": ");
                json_number(b, h.at.base_tokens);
                b.extend_from_slice(b",\n  \"bytes_per_token\": ");
                json_number(b, h.at.bytes_per_token);
                b.extend_from_slice(b",\n  \"sources\": {\n    \"base_tokens\": ");
                json_string(b, &h.sources.base_tokens)?;
                b.extend_from_slice(b",\n    \"bytes_per_token\": ");
                json_string(b, &h.sources.bytes_per_token)?;
                b.extend_from_slice(b"\n  },\n  \"total_tokens\": ");
                json_number(b, h.total_tokens);
                b.extend_from_slice(b",\n  \"calls\": ");
                b.extend_from_slice(itoa::Buffer::new().format(h.calls).as_bytes());
                b.extend_from_slice(b",\n  \"average_call_tokens\": ");
                json_number(b, h.average_call_tokens);
                b.extend_from_slice(b",\n  \"rows\": [");
            }
        }
        Ok(())
    }

    /// One call's row: what it re-reads (`context`, est. tokens) and the running total.
    pub fn row(&mut self, call: &Call, context: f64, cumulative: f64) -> io::Result<()> {
        let b = &mut self.buf;
        match self.format {
            Format::Table => {
                let w = self.widths;
                pad(b, w.call.saturating_sub(call.id.len()));
                b.extend_from_slice(call.id.as_bytes());
                b.extend_from_slice(b"  ");
                push_label(b, &call.label, w.label);
                // Tokens and output only where the trace gives them: a blank, not 0, for
                // a call that gives none.
                for (x, width) in [
                    (Some(call.bytes), w.bytes),
                    ((call.tokens > 0.0).then_some(call.tokens), w.tokens),
                    (
                        (call.output_tokens > 0.0).then_some(call.output_tokens),
                        w.output,
                    ),
                    (Some(context), w.context),
                    (Some(cumulative), w.cumulative),
                ] {
                    if width == 0 {
                        continue;
                    }
                    b.extend_from_slice(b"  ");
                    match x {
                        Some(x) => with_grouped(x, |digits| {
                            pad(b, width.saturating_sub(digits.len()));
                            b.extend_from_slice(digits);
                        }),
                        None => pad(b, width),
                    }
                }
                b.push(b'\n');
            }
            Format::Json => {
                if self.rows > 0 {
                    b.push(b',');
                }
                b.extend_from_slice(b"\n    {\n      \"call\": ");
                json_string(b, &call.id)?;
                b.extend_from_slice(b",\n      \"label\": ");
                json_string(b, &call.label)?;
                b.extend_from_slice(b",\n      \"bytes\": ");
                json_number(b, call.bytes);
                // null, not 0, where the trace gives none.
                for (key, x) in [
                    (&b",\n      \"tokens\": "[..], call.tokens),
                    (&b",\n      \"output_tokens\": "[..], call.output_tokens),
                ] {
                    b.extend_from_slice(key);
                    if x > 0.0 {
                        json_number(b, x);
                    } else {
                        b.extend_from_slice(b"null");
                    }
                }
                b.extend_from_slice(b",\n      \"context_tokens\": ");
                json_number(b, context);
                b.extend_from_slice(b",\n      \"cumulative_tokens\": ");
                json_number(b, cumulative);
                b.extend_from_slice(b"\n    }");
            }
        }
        self.rows += 1;
        if self.buf.len() >= CHUNK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// The closing line (table) or brackets (JSON), and everything still buffered.
    pub fn finish(&mut self, h: &Head) -> io::Result<()> {
        let b = &mut self.buf;
        match self.format {
            Format::Table => writeln!(
                b,
                "reread total: {} est. tokens over {}; average call {} est. tokens",
                grouped(h.total_tokens, 0),
                plural(h.calls, "call", "calls"),
                grouped(h.average_call_tokens, 0)
            )?,
            Format::Json => b.extend_from_slice(b"\n  ]\n}\n"),
        }
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

fn decimals(x: f64) -> usize {
    if x.fract() == 0.0 { 0 } else { 1 }
}

fn pad(b: &mut Vec<u8>, n: usize) {
    b.resize(b.len() + n, b' ');
}

/// Terminal columns of a character: control characters are shown as `�` (one column).
fn char_columns(c: char) -> usize {
    if c.is_control() {
        1
    } else {
        c.width().unwrap_or(0)
    }
}

/// Terminal columns of a label as the table shows it.
pub fn columns(label: &str) -> usize {
    if plain(label) {
        label.len()
    } else {
        label.chars().map(char_columns).sum()
    }
}

/// Printable ASCII: one column per byte.
fn plain(label: &str) -> bool {
    label.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// `label` in exactly `width` columns: padded with spaces, or cut and ended with `…`.
fn push_label(b: &mut Vec<u8>, label: &str, width: usize) {
    if plain(label) {
        if label.len() <= width {
            b.extend_from_slice(label.as_bytes());
            pad(b, width - label.len());
        } else {
            b.extend_from_slice(&label.as_bytes()[..width.saturating_sub(1)]);
            b.extend_from_slice("…".as_bytes());
        }
        return;
    }
    let fits = columns(label) <= width;
    let room = if fits { width } else { width.saturating_sub(1) };
    let mut used = 0;
    let mut utf8 = [0; 4];
    for c in label.chars() {
        let w = char_columns(c);
        if used + w > room {
            break;
        }
        let shown = if c.is_control() { '\u{fffd}' } else { c };
        b.extend_from_slice(shown.encode_utf8(&mut utf8).as_bytes());
        used += w;
    }
    if !fits {
        b.extend_from_slice("…".as_bytes());
        used += 1;
    }
    pad(b, width.saturating_sub(used));
}

/// Calls `f` with `x` rounded to a whole number and grouped in thousands (`1,234,567`),
/// as [`grouped`] with no decimals gives, without allocating for |x| < 1e18.
fn with_grouped<R>(x: f64, f: impl FnOnce(&[u8]) -> R) -> R {
    let rounded = x.round_ties_even();
    if !rounded.is_finite() || rounded.abs() >= 1e18 {
        return f(grouped(x, 0).as_bytes());
    }
    // Written from the end, three digits at a time.
    let mut out = [0u8; 32];
    let mut start = out.len();
    let mut rest = rounded.abs() as u64;
    loop {
        let group = rest % 1000;
        rest /= 1000;
        let digits = [
            b'0' + (group / 100) as u8,
            b'0' + (group / 10 % 10) as u8,
            b'0' + (group % 10) as u8,
        ];
        if rest == 0 {
            let skip = if group >= 100 {
                0
            } else if group >= 10 {
                1
            } else {
                2
            };
            let digits = &digits[skip..];
            start -= digits.len();
            out[start..start + digits.len()].copy_from_slice(digits);
            break;
        }
        start -= 4;
        out[start] = b',';
        out[start + 1..start + 4].copy_from_slice(&digits);
    }
    if rounded < 0.0 {
        start -= 1;
        out[start] = b'-';
    }
    f(&out[start..])
}

/// A JSON string, escaped as serde_json escapes it.
fn json_string(b: &mut Vec<u8>, s: &str) -> io::Result<()> {
    serde_json::to_writer(b, s).map_err(io::Error::from)
}

/// A JSON number, as serde_json writes an `f64` (`null` when not finite).
fn json_number(b: &mut Vec<u8>, x: f64) {
    // Writing an f64 into a Vec cannot fail; serde_json formats it without allocating.
    let _ = serde_json::to_writer(b, &x);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(text: &str, width: usize) -> String {
        let mut b = Vec::new();
        push_label(&mut b, text, width);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn labels_fill_their_columns_exactly() {
        assert_eq!(label("cat a.md", 10), "cat a.md  ");
        assert_eq!(label("cat a-long-name.md", 10), "cat a-lon…");
        // Each CJK character takes two columns.
        assert_eq!(label("読む.md", 8), "読む.md ");
        assert_eq!(label("長い名前のファイル", 8), "長い名… ");
        assert_eq!(columns("長い名… "), 8);
        // A control character cannot move the cursor: it is shown as one replacement.
        assert_eq!(label("a\u{1b}[2Jb", 6), "a\u{fffd}[2Jb");
    }

    #[test]
    fn grouped_numbers_match_the_slow_formatter() {
        for x in [
            0.0,
            0.5,
            1.5,
            2.5,
            999.4,
            1000.0,
            117_878.787,
            1e15,
            123_456_789.5,
            -1234.5,
            -0.2,
            1e18,
            3.7e25,
        ] {
            let fast = with_grouped(x, |d| String::from_utf8(d.to_vec()).unwrap());
            assert_eq!(fast, grouped(x, 0), "{x}");
        }
    }

    #[test]
    fn json_numbers_are_written_as_serde_json_writes_them() {
        for x in [95_000.0, 3.3, 1e16, 0.1 + 0.2, f64::NAN] {
            let mut b = Vec::new();
            json_number(&mut b, x);
            assert_eq!(b, serde_json::to_vec(&x).unwrap(), "{x}");
        }
    }
}
