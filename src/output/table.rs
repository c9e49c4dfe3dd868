//! The table printed for a person: what was assumed, the baseline, and the ranked edits.

use crate::output::number::grouped;
use crate::report::Report;
use std::io::{self, Write};
use std::path::PathBuf;

/// Writes the comparison table, then the paths of the files written.
pub fn write(out: &mut dyn Write, report: &Report, files: &[PathBuf]) -> io::Result<()> {
    header(out, report)?;
    edits(out, report)?;
    if !files.is_empty() {
        writeln!(out, "\nWritten:")?;
        for f in files {
            writeln!(out, "  {}", f.display())?;
        }
    }
    Ok(())
}

fn header(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    match &r.description {
        Some(d) => writeln!(out, "{}: {d}", r.scenario)?,
        None => writeln!(out, "{}", r.scenario)?,
    }
    let measured = if r.measured_calls > 0 {
        format!(
            "; measured tokens on {} of {} calls are used as given",
            r.measured_calls, r.baseline.calls
        )
    } else {
        String::new()
    };
    writeln!(out, "  {} calls, from {}", r.baseline.calls, r.source)?;
    writeln!(
        out,
        "  base tokens B    {:>10}   {}",
        grouped(r.base_tokens, 0),
        r.sources.base_tokens
    )?;
    writeln!(
        out,
        "  bytes/token ρ    {:>10}   {}",
        r.bytes_per_token, r.sources.bytes_per_token
    )?;
    writeln!(
        out,
        "  unit             {} (bytes ÷ {}{measured})",
        r.unit, r.bytes_per_token
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "Baseline: reread total {} est. tokens over {} calls; average call {} est. tokens",
        grouped(r.baseline.total_tokens, 0),
        r.baseline.calls,
        grouped(r.baseline.average_call_tokens, 0)
    )
}

fn edits(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    if r.edits.is_empty() {
        return writeln!(
            out,
            "\nNo edits in this scenario: add [[edit]] tables to compare changes."
        );
    }
    writeln!(out, "\nEdits, ranked by saving on the reread total:")?;
    let rows: Vec<[String; 6]> = r
        .edits
        .iter()
        .map(|e| {
            [
                e.rank.to_string(),
                e.name.clone(),
                grouped(e.saved_tokens, 0),
                format!("{} %", grouped(e.saved_pct, 1)),
                grouped(e.equivalent_calls, 2),
                e.calls.to_string(),
            ]
        })
        .collect();
    let titles = [
        "rank",
        "edit",
        "saved est. tokens",
        "saved",
        "equiv. calls",
        "calls",
    ];
    let mut widths = titles.map(|t| t.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String; 6]| -> String {
        let mut s = String::from(" ");
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            let pad = w - cell.chars().count();
            // The edit name reads left to right; numbers line up on the right.
            if i == 1 {
                s.push_str(&format!("  {cell}{}", " ".repeat(pad)));
            } else {
                s.push_str(&format!("  {}{cell}", " ".repeat(pad)));
            }
        }
        s.trim_end().to_string()
    };
    writeln!(out, "{}", line(&titles.map(String::from)))?;
    for row in &rows {
        writeln!(out, "{}", line(row))?;
    }
    writeln!(
        out,
        "  (equiv. calls: the saving in average baseline calls of {} est. tokens)",
        grouped(r.baseline.average_call_tokens, 0)
    )
}
