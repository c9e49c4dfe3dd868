//! Logs that are one JSON document a file (a trajectory), not JSON lines: read whole,
//! parsed once, and what a parse error leaves.
//!
//! Trajectories are written at the end of a run (or after every step) as one pretty-printed
//! object: a line means nothing in them, so the file is read whole, up to
//! [`crate::input::MAX_TRACE_BYTES`], gzip decompressed (told by its first two bytes), and
//! a document that does not parse is one malformed "line" at the parser's line number,
//! never a failed import: the other files are still read.

use super::event::{FileLog, Joined, UserText};
use super::files::SourceFile;
use crate::error::Error;
use crate::input::{self, Kind};
use compact_str::CompactString;
use flate2::read::MultiGzDecoder;
use serde_json::Value;
use std::io::Read;

/// The largest document read: the cap on traces (1 GiB), far above any trajectory.
const MAX_DOCUMENT_BYTES: u64 = input::MAX_TRACE_BYTES;

/// Reads `file` whole into a JSON value; `log` gets its line count, and a document that
/// does not parse (or is too large) is recorded as malformed there, with None returned.
///
/// Errors: only a file that cannot be read at all ([`Error::Unreadable`], or the input
/// gate's refusal of a pipe or device).
pub fn read(file: &SourceFile, log: &mut FileLog) -> Result<Option<Value>, Error> {
    let (opened, _) = input::open(&file.path, Kind::Log)?;
    let unreadable = |source| Error::Unreadable {
        path: file.path.clone(),
        source,
    };
    let mut head = Vec::new();
    let mut reader = std::io::BufReader::new(opened);
    (&mut reader)
        .take(2)
        .read_to_end(&mut head)
        .map_err(unreadable)?;
    let mut bytes = Vec::new();
    let rest = std::io::Cursor::new(head.clone()).chain(reader);
    let read = if head == [0x1f, 0x8b] {
        MultiGzDecoder::new(rest)
            .take(MAX_DOCUMENT_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        rest.take(MAX_DOCUMENT_BYTES + 1).read_to_end(&mut bytes)
    };
    if let Err(e) = read {
        if head == [0x1f, 0x8b] && e.kind() != std::io::ErrorKind::PermissionDenied {
            log.lines = count_lines(&bytes);
            log.malformed(
                log.lines.max(1),
                format!("the gzip stream breaks ({e}): a trajectory cut short cannot be read"),
            );
            return Ok(None);
        }
        return Err(unreadable(e));
    }
    log.lines = count_lines(&bytes);
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        log.malformed(
            1,
            format!(
                "a document larger than {} MiB, skipped",
                MAX_DOCUMENT_BYTES >> 20
            ),
        );
        return Ok(None);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    // A UTF-8 byte-order mark at the start (as some editors and Windows tools write) is
    // not part of the JSON.
    let json = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    match serde_json::from_slice::<Value>(json) {
        Ok(v) => Ok(Some(v)),
        Err(e) => {
            let line = (e.line() as u64).max(1);
            log.malformed(line, super::parse_failure(&e, !bytes.ends_with(b"\n")));
            Ok(None)
        }
    }
}

/// Lines in `bytes`, a last line without a newline included.
fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
    newlines + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// A JSON value as a count of tokens: a whole number ≥ 0 given as a number or as a string
/// of digits (OTLP/JSON writes 64-bit integers as strings); None for anything else.
pub fn count(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9e15)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A JSON value as a finite number ≥ 0 (dollars), given as a number or a string.
pub fn amount(v: Option<&Value>) -> Option<f64> {
    let x = match v? {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    (x.is_finite() && x >= 0.0).then_some(x)
}

/// The UTF-8 bytes of a message's content as a model reads it: a string by its length; a
/// list of parts by its text parts (`text`, `input_text`, `output_text`, and a part whose
/// only text is `text`), images counted apart (`image`, `image_url`, `input_image`); null
/// as nothing; anything else by the strings in it.
pub fn content(v: Option<&Value>) -> Content {
    let mut out = Content::default();
    match v {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            out.bytes = s.len() as u64;
            out.first = Some(s.clone());
        }
        Some(Value::Array(parts)) => {
            for p in parts {
                let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
                if matches!(kind, "image" | "image_url" | "input_image") {
                    out.images += 1;
                } else if let Some(t) = p.get("text").and_then(Value::as_str) {
                    out.bytes += t.len() as u64;
                    out.first.get_or_insert_with(|| t.to_string());
                } else if let Value::String(s) = p {
                    out.bytes += s.len() as u64;
                    out.first.get_or_insert_with(|| s.clone());
                } else {
                    out.bytes += string_bytes(p);
                }
            }
        }
        Some(other) => out.bytes = string_bytes(other),
    }
    out
}

/// What [`content`] measured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Content {
    /// UTF-8 bytes of text.
    pub bytes: u64,
    /// Images, counted by a token estimate instead.
    pub images: u64,
    /// The first text, for labels.
    pub first: Option<String>,
}

/// The summed UTF-8 length of every string value inside `v` (keys left out).
pub fn string_bytes(v: &Value) -> u64 {
    match v {
        Value::String(s) => s.len() as u64,
        Value::Array(items) => items.iter().map(string_bytes).sum(),
        Value::Object(map) => map.values().map(string_bytes).sum(),
        _ => 0,
    }
}

/// A time given as Unix seconds (a number, fractions kept to the millisecond) or as an
/// ISO 8601 / RFC 3339 string.
pub fn timestamp(v: Option<&Value>) -> Option<jiff::Timestamp> {
    match v? {
        Value::Number(n) => {
            let secs = n.as_f64()?;
            if !secs.is_finite() || !(0.0..1e11).contains(&secs) {
                return None;
            }
            jiff::Timestamp::from_millisecond((secs * 1000.0).round() as i64).ok()
        }
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// What joined after the latest call of `route`: text bytes, images, the tool use it
/// answers, the user's text.
pub fn joined(
    route: usize,
    bytes: u64,
    images: u64,
    answers: Option<CompactString>,
    user_text: Option<UserText>,
) -> Joined {
    Joined {
        route,
        bytes,
        images,
        tool_references: 0,
        attachment: false,
        answers,
        user_text,
        line_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_read_numbers_and_strings_alike() {
        assert_eq!(count(Some(&json!(1662))), Some(1662));
        assert_eq!(count(Some(&json!("1662"))), Some(1662));
        assert_eq!(count(Some(&json!(12.0))), Some(12));
        assert_eq!(count(Some(&json!(-1))), None);
        assert_eq!(count(Some(&json!(1.5))), None);
        assert_eq!(count(Some(&json!("x"))), None);
        assert_eq!(count(None), None);
        assert_eq!(amount(Some(&json!("0.004596"))), Some(0.004596));
        assert_eq!(amount(Some(&json!(-0.1))), None);
    }

    #[test]
    fn content_counts_text_parts_and_images_apart() {
        let c = content(Some(&json!([
            {"type": "text", "text": "héllo"},
            {"type": "image_url", "image_url": {"url": "data:..."}},
            "ab"
        ])));
        assert_eq!(
            (c.bytes, c.images, c.first.as_deref()),
            (8, 1, Some("héllo"))
        );
        assert_eq!(content(Some(&json!(null))).bytes, 0);
        assert_eq!(content(Some(&json!({"a": "xyz", "b": 3}))).bytes, 3);
    }

    #[test]
    fn timestamps_from_seconds_or_text() {
        let t = timestamp(Some(&json!(1763510516.25))).unwrap();
        assert_eq!(t.as_millisecond(), 1_763_510_516_250);
        let t = timestamp(Some(&json!("2025-10-11T10:30:02Z"))).unwrap();
        assert_eq!(t.as_second(), 1_760_178_602);
        assert!(timestamp(Some(&json!("yesterday"))).is_none());
    }
}
