//! The re-fetch section of a `report.html` (docs/model.md §11), one scenario's or a
//! history's: each edit that removes results, its saving at each swept re-fetch rate, and
//! where it stops saving. Short on purpose: one row per such edit.

use super::html_escape::escape;
use crate::number::decimal;
use std::io::{self, Write};

/// One edit's row: its name, its saving at each rate as shown, and where it stops.
pub struct Row {
    pub name: String,
    pub cells: Vec<String>,
    pub stops: String,
}

/// Writes the section (nothing without rows): `note` says what the figures are, `unit`
/// heads the rate columns (`$ saved at re-fetch`).
pub fn section(
    out: &mut dyn Write,
    note: &str,
    unit: &str,
    rates: &[f64],
    rows: &[Row],
) -> io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<h2>If the agent fetches again what an edit removes</h2>\n<p class=\"note\">{}</p>\n<div class=\"scroll\"><table id=\"refetch\">\n<thead><tr><th class=\"name\">edit</th>",
        escape(note)
    )?;
    for &p in rates {
        write!(out, "<th>{} {}</th>", escape(unit), escape(&decimal(p)))?;
    }
    writeln!(
        out,
        "<th class=\"word\">stops saving</th></tr></thead>\n<tbody>"
    )?;
    for r in rows {
        write!(out, "<tr><td class=\"name\">{}</td>", escape(&r.name))?;
        for c in &r.cells {
            write!(out, "<td>{}</td>", escape(c))?;
        }
        writeln!(out, "<td class=\"word\">{}</td></tr>", escape(&r.stops))?;
    }
    writeln!(out, "</tbody></table></div>")
}
