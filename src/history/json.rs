//! A history as JSON on stdout: the report, then every session's figures as `sessions`,
//! written one session at a time (a million sessions are never in memory together).
//!
//! The bytes are those of the whole report with its sessions serialized in one go
//! (`serde_json`'s pretty form, two spaces an indent): the report is written without its
//! last brace, then each session pretty-printed and indented by two levels. JSON strings
//! hold no raw line breaks, so indenting after every line break is safe.

use super::{HistoryReport, SessionFigures};
use crate::error::Error;
use std::io::Write;

/// Writes `report` and then each session `next` gives, until it gives None.
pub fn write(
    out: &mut dyn Write,
    report: &HistoryReport,
    next: &mut dyn FnMut() -> Result<Option<SessionFigures>, Error>,
) -> Result<(), Error> {
    let print = Error::Print;
    let text = serde_json::to_string_pretty(report).map_err(|e| print(e.into()))?;
    let open = text
        .strip_suffix('}')
        .map(|t| t.trim_end_matches('\n'))
        .unwrap_or(&text);
    out.write_all(open.as_bytes()).map_err(print)?;
    out.write_all(b",\n  \"sessions\": [").map_err(print)?;
    let mut any = false;
    while let Some(session) = next()? {
        let text = serde_json::to_string_pretty(&session).map_err(|e| print(e.into()))?;
        out.write_all(if any { b",\n    " } else { b"\n    " })
            .map_err(print)?;
        out.write_all(text.replace('\n', "\n    ").as_bytes())
            .map_err(print)?;
        any = true;
    }
    out.write_all(if any { b"\n  ]\n}\n" } else { b"]\n}\n" })
        .map_err(print)?;
    Ok(())
}
