//! Per-metric means (`simulate telemetry FILE.jsonl --unit NAME`, in
//! `crate::command::telemetry`) of the token counts a
//! memory system logs, each over the rows that carry it (docs/model.md §6.3).
//!
//! Three counts answer three different questions (what a row-selection budget counted,
//! what the first evidence pack held channel by channel, what the reader's prompts held),
//! so each keeps its own denominator. A row without a count is left out of that count's
//! mean: reading it as 0 would make the mean smaller than anything measured. The unit is
//! whatever the user says the log counted in (`--unit`); it is printed beside every figure,
//! because a count without its tokenizer is not comparable with another.
//!
//! Reading is strict: a line that is not a JSON object, a count that is not a whole number
//! ≥ 0, `reader_calls` that is not a list, or a call without `prompt_tokens` stops the
//! command naming the file, line and key, rather than being skipped.

use crate::error::{Error, Located};
use crate::input;
use serde::Serialize;
use serde_json::{Map, Value};
use std::io::BufRead;
use std::path::Path;

/// The metrics, in the order they are reported: key, and what it counts.
const METRICS: [(&str, &str); 3] = [
    (
        "compact_total",
        "the count a row-selection budget used; not the finished prompt's length",
    ),
    (
        "real_total",
        "the first evidence pack, each channel counted on its own and added up",
    ),
    (
        "reader_calls[].prompt_tokens",
        "the reader's logical prompts, summed over a row's calls; not provider usage",
    ),
];

/// One metric over the file.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Metric {
    pub name: &'static str,
    /// What the count covers.
    pub counts: &'static str,
    /// Rows that carry the metric: the mean's denominator.
    pub rows_measured: usize,
    /// Every row of the file.
    pub rows_total: usize,
    /// Sum over the measured rows, in `unit`.
    pub sum: u128,
    /// `sum / rows_measured`, in `unit`; `null` when no row carries the metric.
    pub mean: Option<f64>,
    pub unit: String,
}

/// The whole summary, as printed.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    pub file: String,
    pub unit: String,
    /// Where the unit comes from: always the user's declaration.
    pub unit_source: &'static str,
    pub rows_total: usize,
    /// Rows with a non-empty `telemetry` object.
    pub rows_with_telemetry: usize,
    pub metrics: Vec<Metric>,
}

/// Running sums of one metric.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    rows: usize,
    sum: u128,
}

impl Tally {
    fn add(&mut self, value: u128) {
        self.rows += 1;
        self.sum += value;
    }
}

/// Summarizes a log read from `reader`; `path` names it in errors.
///
/// Errors: [`Error::Input`] for a bad line (file, line, column, key) or an empty log.
pub fn summarize(mut reader: impl BufRead, path: &Path, unit: &str) -> Result<Summary, Error> {
    let file = path.display().to_string();
    let mut tallies = [Tally::default(); 3];
    let (mut rows, mut with_telemetry) = (0, 0);
    let mut bytes = Vec::new();
    for number in 1.. {
        bytes.clear();
        let read = reader
            .read_until(b'\n', &mut bytes)
            .map_err(|source| Error::Unreadable {
                path: path.to_path_buf(),
                source,
            })?;
        if read == 0 {
            break;
        }
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            let valid = String::from_utf8_lossy(&bytes[..e.valid_up_to()]);
            input::not_utf8(path, (number, valid.chars().count() + 1))
        })?;
        let text = if number == 1 {
            text.strip_prefix('\u{feff}').unwrap_or(text)
        } else {
            text
        };
        if text.trim().is_empty() {
            continue;
        }
        rows += 1;
        let row = Row {
            file: &file,
            number,
            text,
        };
        if row.add_to(&mut tallies)? {
            with_telemetry += 1;
        }
    }
    if rows == 0 {
        return Err(Located::new(
            file,
            "the log has no rows (expected one JSON object a line)",
        )
        .into());
    }
    let metrics = METRICS
        .iter()
        .zip(tallies)
        .map(|(&(name, counts), t)| Metric {
            name,
            counts,
            rows_measured: t.rows,
            rows_total: rows,
            sum: t.sum,
            mean: (t.rows > 0).then(|| t.sum as f64 / t.rows as f64),
            unit: unit.to_string(),
        })
        .collect();
    Ok(Summary {
        file,
        unit: unit.to_string(),
        unit_source: "declared with --unit",
        rows_total: rows,
        rows_with_telemetry: with_telemetry,
        metrics,
    })
}

/// One line of the log, for reading and for messages.
struct Row<'a> {
    file: &'a str,
    number: usize,
    text: &'a str,
}

impl Row<'_> {
    /// An error about `key`, located at the first mention of `name` on the line (else at
    /// the line's start).
    fn error_at(&self, name: &str, key: &str, message: impl Into<String>) -> Error {
        let column = self
            .text
            .find(&format!("\"{name}\""))
            .map_or(1, |at| self.text[..at].chars().count() + 1);
        Located::new(self.file, message)
            .at(Some((self.number, column)))
            .place(key.to_string())
            .into()
    }

    /// An error about `key`, located at its last part.
    fn error(&self, key: &str, message: impl Into<String>) -> Error {
        let name = key.rsplit('.').next().unwrap_or(key);
        self.error_at(name, key, message)
    }

    /// Adds this row's counts to `tallies`; whether it carries telemetry.
    fn add_to(&self, tallies: &mut [Tally; 3]) -> Result<bool, Error> {
        let value: Value = serde_json::from_str(self.text).map_err(|e| {
            let message = e.to_string();
            let message = message
                .rfind(" at line ")
                .map_or(message.as_str(), |at| &message[..at]);
            Located::new(self.file, format!("not JSON: {message}"))
                .at(Some((self.number, e.column().max(1))))
        })?;
        let Value::Object(row) = value else {
            return Err(Located::new(
                self.file,
                format!("expected a JSON object, found {}", kind(&value)),
            )
            .at(Some((self.number, 1)))
            .into());
        };
        let telemetry = match row.get("telemetry") {
            None | Some(Value::Null) => return Ok(false),
            Some(Value::Object(t)) if t.is_empty() => return Ok(false),
            Some(Value::Object(t)) => t,
            Some(other) => {
                return Err(self.error(
                    "telemetry",
                    format!("expected an object, found {}", kind(other)),
                ));
            }
        };
        // Strict: a misspelt count would otherwise read as "not measured" on every row.
        if let Some(unknown) = telemetry
            .keys()
            .find(|k| !["compact_total", "real_total", "reader_calls"].contains(&k.as_str()))
        {
            let near = ["compact_total", "real_total", "reader_calls"]
                .into_iter()
                .map(|k| (strsim::jaro_winkler(unknown, k), k))
                .filter(|(score, _)| *score >= 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map_or_else(String::new, |(_, k)| format!("; did you mean `{k}`?"));
            return Err(self.error(
                &format!("telemetry.{unknown}"),
                format!(
                    "unknown count `{unknown}`: a telemetry object holds compact_total, real_total and reader_calls{near}"
                ),
            ));
        }
        let [compact, real, reader] = tallies;
        for (key, tally) in [("compact_total", compact), ("real_total", real)] {
            if let Some(v) = telemetry.get(key) {
                tally.add(self.count(&format!("telemetry.{key}"), v)?);
            }
        }
        if let Some(calls) = telemetry.get("reader_calls") {
            reader.add(self.reader_calls(calls)?);
        }
        Ok(true)
    }

    /// The sum of `prompt_tokens` over the calls.
    fn reader_calls(&self, calls: &Value) -> Result<u128, Error> {
        let Value::Array(calls) = calls else {
            return Err(self.error(
                "telemetry.reader_calls",
                format!("expected a list of calls, found {}", kind(calls)),
            ));
        };
        let mut sum = 0;
        for (i, call) in calls.iter().enumerate() {
            let key = format!("telemetry.reader_calls[{i}].prompt_tokens");
            let tokens = call
                .as_object()
                .and_then(|c: &Map<String, Value>| c.get("prompt_tokens"))
                .ok_or_else(|| {
                    self.error_at(
                        "reader_calls",
                        &key,
                        "missing: every reader call needs its prompt_tokens (a missing count is not 0)",
                    )
                })?;
            sum += self.count(&key, tokens)?;
        }
        Ok(sum)
    }

    /// A count: a whole number ≥ 0.
    fn count(&self, key: &str, v: &Value) -> Result<u128, Error> {
        v.as_u64()
            .map(u128::from)
            .ok_or_else(|| self.error(key, format!("`{v}` is not a count (a whole number ≥ 0)")))
    }
}

/// "an array", "a string", … for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO: &str = include_str!("../tests/fixtures/telemetry/demo.jsonl");

    fn summary(text: &str) -> Result<Summary, Error> {
        summarize(text.as_bytes(), Path::new("t.jsonl"), "demo_count")
    }

    #[test]
    fn the_demo_means_are_over_the_measured_rows_only() {
        let s = summary(DEMO).unwrap();
        assert_eq!((s.rows_total, s.rows_with_telemetry), (3, 2));
        let figures: Vec<_> = s
            .metrics
            .iter()
            .map(|m| (m.name, m.mean, m.rows_measured, m.rows_total))
            .collect();
        assert_eq!(
            figures,
            vec![
                ("compact_total", Some(900.0), 2, 3),
                ("real_total", Some(1050.0), 2, 3),
                ("reader_calls[].prompt_tokens", Some(2050.0), 2, 3),
            ]
        );
    }

    #[test]
    fn a_metric_no_row_carries_has_no_mean() {
        let s = summary("{\"telemetry\":{\"real_total\":5}}\n{}\n").unwrap();
        assert_eq!(s.metrics[0].mean, None);
        assert_eq!(s.metrics[0].rows_measured, 0);
        assert_eq!(s.metrics[1].mean, Some(5.0));
    }

    fn error(text: &str) -> String {
        summary(text).unwrap_err().to_string()
    }

    #[test]
    fn strict_errors_name_the_line_and_key() {
        assert_eq!(
            error("{}\n[1, 2]\n"),
            "t.jsonl:2:1: expected a JSON object, found a list"
        );
        assert_eq!(
            error("{\"telemetry\":{\"compact_total\":-5}}\n"),
            "t.jsonl:1:15: telemetry.compact_total: `-5` is not a count (a whole number ≥ 0)"
        );
        assert!(error("{\"telemetry\":{\"real_total\":1.5}}").contains("`1.5` is not a count"));
        assert_eq!(
            error("\n{\"telemetry\":{\"reader_calls\":{}}}\n"),
            "t.jsonl:2:15: telemetry.reader_calls: expected a list of calls, found an object"
        );
        assert!(
            error("{\"telemetry\":{\"reader_calls\":[{\"prompt_tokens\":1},{\"site\":\"a\"}]}}")
                .starts_with("t.jsonl:1:15: telemetry.reader_calls[1].prompt_tokens: missing")
        );
        assert!(
            error("{\"telemetry\":7}").contains("telemetry: expected an object, found a number")
        );
        assert!(error("{\"a\":").starts_with("t.jsonl:1:5: not JSON: EOF while parsing"));
        assert!(error("\n\n").contains("no rows"));
    }
}
