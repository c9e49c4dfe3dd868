//! Telling a Codex CLI rollout by its content, whatever its file name: a rollout renamed
//! `codex-session.jsonl` is still one, and a rollout of the older format (before the
//! `{timestamp, type, payload}` lines) is one that can hold no request.

use serde::Deserialize;
use serde::de::IgnoredAny;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The most of a file read to find its first line: a `session_meta` line holds the
/// model's instructions (tens of KB), far below this.
const SNIFF_BYTES: u64 = 1 << 20;

/// What a file's first line says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `{timestamp, type, payload}` lines of a type Codex CLI writes.
    Rollout,
    /// A bare session header `{id, timestamp, …}`: the older format, without usage.
    Older,
}

/// The first line's keys that tell the shapes apart.
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    payload: Option<IgnoredAny>,
    #[serde(default)]
    id: Option<IgnoredAny>,
    #[serde(default)]
    timestamp: Option<IgnoredAny>,
}

/// The shape of `path`'s first non-blank line, where it is a Codex rollout's; None for any
/// other file, one that is not a regular file (a named pipe is never opened here), or one
/// that cannot be read.
pub fn sniff(path: &Path, own_types: &[&str]) -> Option<Shape> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut reader = BufReader::new(File::open(path).ok()?.take(SNIFF_BYTES));
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
    }
    shape(&line, own_types)
}

/// The shape of one first line.
pub fn shape(line: &[u8], own_types: &[&str]) -> Option<Shape> {
    let head: Head = serde_json::from_slice(line).ok()?;
    match (&head.kind, &head.payload) {
        (Some(kind), Some(_)) if own_types.contains(&kind.as_str()) => Some(Shape::Rollout),
        (None, None) if head.id.is_some() && head.timestamp.is_some() => Some(Shape::Older),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: &[&str] = &["session_meta", "turn_context", "response_item", "event_msg"];

    #[test]
    fn first_lines_tell_rollouts_of_either_format_from_other_logs() {
        let rollout = br#"{"timestamp":"2026-05-11T11:26:55.000Z","type":"session_meta","payload":{"id":"019e"}}"#;
        assert_eq!(shape(rollout, OWN), Some(Shape::Rollout));
        let older = br#"{"id":"c27a914d","timestamp":"2025-08-20T13:20:47.060Z","instructions":null,"git":{"branch":"main"}}"#;
        assert_eq!(shape(older, OWN), Some(Shape::Older));
        // A Claude Code line, a line of another type, and text that is not JSON.
        let claude =
            br#"{"type":"user","sessionId":"s","timestamp":"2025-01-01T00:00:00Z","uuid":"u"}"#;
        assert_eq!(shape(claude, OWN), None);
        assert_eq!(shape(br#"{"type":"summary","payload":{}}"#, OWN), None);
        assert_eq!(shape(b"not json", OWN), None);
    }
}
