//! Which agent log a file is, from its first lines: so a log given where a scenario is
//! wanted (`simulate FILE`) is answered with the import that turns it into scenarios, not
//! with a TOML parse error on its first brace.

use super::Format;
use crate::error::Located;
use std::io::Read;
use std::path::Path;

/// How much of the file is looked at, bytes: the first lines of any log fit (a Claude Code
/// line with a large pasted prompt may not, and is then judged by its keys so far).
const PEEK_BYTES: u64 = 256 << 10;
/// How many lines are looked at.
const PEEK_LINES: usize = 8;

/// The log format of the file at `path`, if its first lines are one's: Claude Code
/// transcript lines (`type` of a transcript, or `sessionId`/`parentUuid`), Codex CLI
/// rollout lines (`type` of a rollout with a `payload`), or OpenTelemetry's JSON export
/// (`resourceLogs`). None for anything else, or a file that cannot be read or is not a
/// regular file.
pub fn format_of(path: &Path) -> Option<Format> {
    let mut bytes = Vec::new();
    // Opened as every input is: a pipe or a device is not read (nor waited on).
    let (file, _) = crate::input::open(path, crate::input::Kind::Log).ok()?;
    file.take(PEEK_BYTES).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim_start_matches('\u{feff}');
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(PEEK_LINES)
        .collect();
    let cut = bytes.len() as u64 == PEEK_BYTES;
    // SWE-agent writes its trajectory indented (`json.dumps(data, indent=2)`): a lone
    // brace, then the `trajectory` key.
    if lines.first() == Some(&"{")
        && lines
            .get(1)
            .is_some_and(|l| l.starts_with("\"trajectory\":"))
    {
        return Some(Format::SweAgent);
    }
    for (i, line) in lines.iter().enumerate() {
        let last_and_cut = cut && i + 1 == lines.len();
        let found = match serde_json::from_str::<serde_json::Value>(line) {
            Ok(v) => of_value(&v),
            Err(_) if last_and_cut || lines.len() == 1 => of_prefix(line),
            Err(_) => None,
        };
        if found.is_some() {
            return found;
        }
        if !line.starts_with('{') {
            return None;
        }
    }
    None
}

fn of_value(v: &serde_json::Value) -> Option<Format> {
    let o = v.as_object()?;
    if o.contains_key("resourceLogs") {
        return Some(Format::Otel);
    }
    if o.get("trajectory").is_some_and(|t| t.is_array())
        && (o.contains_key("history") || o.contains_key("info"))
    {
        return Some(Format::SweAgent);
    }
    let kind = o.get("type").and_then(|t| t.as_str()).unwrap_or("");
    if o.contains_key("payload") && Format::Codex.reader().own_line_types().contains(&kind) {
        return Some(Format::Codex);
    }
    // Line types only a transcript has, or a message line with a transcript's ids.
    let own = [
        "summary",
        "file-history-snapshot",
        "attachment",
        "queue-operation",
    ];
    let message = Format::ClaudeCode.reader().own_line_types().contains(&kind)
        || ["system", "progress"].contains(&kind);
    let ids = ["sessionId", "uuid", "parentUuid"]
        .iter()
        .any(|k| o.contains_key(*k));
    (own.contains(&kind) || message && ids).then_some(Format::ClaudeCode)
}

/// A line too long to read whole: judged by the keys it starts with.
fn of_prefix(line: &str) -> Option<Format> {
    if !line.starts_with('{') {
        return None;
    }
    if line.contains("\"resourceLogs\"") {
        Some(Format::Otel)
    } else if line.contains("\"parentUuid\"") || line.contains("\"sessionId\"") {
        Some(Format::ClaudeCode)
    } else if line.starts_with("{\"trajectory\": [") || line.starts_with("{\"trajectory\":[") {
        Some(Format::SweAgent)
    } else if line.contains("\"payload\"") && line.contains("\"timestamp\"") {
        Some(Format::Codex)
    } else {
        None
    }
}

/// The error for an agent log at `path` given where a scenario is wanted: what it is and
/// the import that makes scenarios of it. None when it is not one.
pub fn not_a_scenario(path: &Path) -> Option<Located> {
    let format = format_of(path)?;
    let reader = format.reader();
    let shown = path.display().to_string();
    Some(Located::new(
        &shown,
        format!(
            "this is a {} log, not a scenario: make scenarios of it with `simulate import {} {} --out DIR`, then run one of them (`simulate DIR/<scenario>.toml`) or all (`simulate suggest DIR`)",
            reader.product(),
            reader.format(),
            shell_word(&shown)
        ),
    ))
}

/// `text` as one shell word: quoted when it holds anything but plain path characters.
fn shell_word(text: &str) -> String {
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+@:,=".contains(c));
    if plain && !text.is_empty() {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(text: &str) -> Option<Format> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jsonl");
        std::fs::write(&path, text).unwrap();
        format_of(&path)
    }

    #[test]
    fn each_format_is_told_by_its_first_lines() {
        assert_eq!(
            sniff(
                "{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"a\"}\n{\"parentUuid\":null,\"type\":\"user\",\"sessionId\":\"s\"}\n"
            ),
            Some(Format::ClaudeCode)
        );
        assert_eq!(
            sniff(
                "{\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{}}\n"
            ),
            Some(Format::Codex)
        );
        assert_eq!(sniff("{\"resourceLogs\":[]}\n"), Some(Format::Otel));
        assert_eq!(
            sniff("{\n  \"trajectory\": [\n    {\n      \"action\": \"ls\",\n"),
            Some(Format::SweAgent)
        );
        assert_eq!(
            sniff("{\"trajectory\": [], \"history\": [], \"info\": {}}\n"),
            Some(Format::SweAgent)
        );
        assert_eq!(sniff("{\n  \"messages\": [\n"), None);
        // A line cut by the peek is judged by its first keys.
        let long = format!(
            "{{\"parentUuid\":null,\"sessionId\":\"s\",\"message\":\"{}\"}}\n",
            "x".repeat(300_000)
        );
        assert_eq!(sniff(&long), Some(Format::ClaudeCode));
        assert_eq!(
            sniff("{\"type\":\"file-history-snapshot\",\"messageId\":\"m\",\"snapshot\":{}}\n"),
            Some(Format::ClaudeCode)
        );
        assert_eq!(sniff("{\"type\":\"user\",\"text\":\"hi\"}\n"), None);
        assert_eq!(sniff("name = \"x\"\n"), None);
        assert_eq!(sniff("{\"a\": 1}\n"), None);
        assert_eq!(sniff(""), None);
    }
}
