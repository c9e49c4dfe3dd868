//! `simulate telemetry FILE.jsonl --unit NAME`: per-metric means of the token counts a
//! memory system logs (the reading and the means are `crate::telemetry`).

use crate::error::{Error, Located};
use crate::input;
use crate::number::grouped;
use crate::output::Format;
use crate::telemetry::{self, Summary};
use std::io::{self, BufReader, Write};
use std::path::PathBuf;

/// `simulate telemetry FILE.jsonl --unit NAME`.
#[derive(Debug, Clone, PartialEq)]
pub struct TelemetryConfig {
    pub file: PathBuf,
    /// The unit the log's counts are in, as the user declares it (a tokenizer name).
    pub unit: String,
    pub format: Format,
}

/// Reads the log at `c.file` and prints its summary.
///
/// Errors: [`Error::Input`] for a bad line (file, line, column, key), an empty log or an
/// empty `--unit`; [`Error::Unreadable`]; [`Error::Print`].
pub fn run(c: &TelemetryConfig, out: &mut dyn Write) -> Result<(), Error> {
    if c.unit.trim().is_empty() {
        return Err(Located::new(
            "command line",
            "give the unit the log's counts are in, e.g. --unit cl100k_base (the tokenizer named in the run's settings)",
        )
        .place("--unit")
        .into());
    }
    let (file, _) = input::open(&c.file, input::Kind::Trace)?;
    let summary = telemetry::summarize(BufReader::new(file), &c.file, &c.unit)?;
    match c.format {
        Format::Json => crate::output::json::write(out, &summary),
        Format::Table => table(out, &summary),
    }
    .map_err(Error::Print)
}

/// A mean for people: whole when it is whole, else two decimals.
fn show_mean(mean: Option<f64>) -> String {
    match mean {
        Some(m) if m.fract() == 0.0 => grouped(m, 0),
        Some(m) => grouped(m, 2),
        None => "—".to_string(),
    }
}

/// The summary for people: one line per metric with its mean and denominator, then what
/// each counts.
fn table(out: &mut dyn Write, s: &Summary) -> io::Result<()> {
    writeln!(
        out,
        "{}: {}, {} with telemetry; unit: {} ({})",
        s.file,
        crate::number::plural(s.rows_total, "row", "rows"),
        s.rows_with_telemetry,
        s.unit,
        s.unit_source
    )?;
    let name_width = s.metrics.iter().map(|m| m.name.len()).max().unwrap_or(0);
    let means: Vec<String> = s.metrics.iter().map(|m| show_mean(m.mean)).collect();
    let mean_width = means.iter().map(|m| m.chars().count()).max().unwrap_or(0);
    writeln!(
        out,
        "  {:<name_width$}  {:>mean_width$}  {:<unit_width$}  measured",
        "metric",
        "mean",
        "",
        unit_width = s.unit.chars().count()
    )?;
    for (m, mean) in s.metrics.iter().zip(&means) {
        let unit = if m.mean.is_some() { &m.unit } else { "" };
        writeln!(
            out,
            "  {:<name_width$}  {mean:>mean_width$}  {unit:<unit_width$}  on {} of {}",
            m.name,
            m.rows_measured,
            crate::number::plural(m.rows_total, "row", "rows"),
            unit_width = s.unit.chars().count()
        )?;
    }
    writeln!(out)?;
    for m in &s.metrics {
        writeln!(out, "  {}: {}", m.name, m.counts)?;
    }
    writeln!(
        out,
        "Each mean is over the rows that carry that count; a row without it is left out, not\n\
         read as 0. Counts are in the declared unit, counted locally: not a provider's usage\n\
         and not a bill (retries and re-generations are not logged as calls)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mean_is_whole_when_whole_and_a_dash_when_missing() {
        assert_eq!(show_mean(None), "—");
        assert_eq!(show_mean(Some(2.5)), "2.50");
        assert_eq!(show_mean(Some(1234.0)), "1,234");
    }
}
