//! JSON on stdout: the whole report, numbers unrounded.

use serde::Serialize;
use std::io::{self, Write};

/// Writes `value` as pretty JSON and a final newline.
pub fn write(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
