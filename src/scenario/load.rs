//! Reading a scenario file from disk and turning TOML errors into located messages.
//!
//! The file is opened through [`crate::input`] (regular files only, at most 8 MiB), and
//! the TOML parser's few unlocated errors (keys nested too deep) are located here by
//! scanning the text, so every message names a line and column.

use super::file::{EditsFile, ScenarioFile};
use super::{BasePart, EditsSet};
use super::{Scenario, validate};
use crate::error::{Error, Located, line_column};
use crate::input;
use std::path::Path;

/// The largest trace file read, in bytes (see [`crate::input::MAX_TRACE_BYTES`]).
pub const MAX_INPUT_BYTES: u64 = input::MAX_TRACE_BYTES;

/// Reads and checks the scenario at `path`, with its `calls_tsv` trace if it names one.
///
/// Errors: [`Error::Unreadable`], or [`Error::Input`] for a file that is not a regular
/// file, is over 8 MiB ([`input::MAX_SCENARIO_BYTES`]), is not UTF-8, or is not a valid
/// scenario.
pub fn load(path: &Path) -> Result<Scenario, Error> {
    let text = read_scenario_text(path)?;
    load_str(&text, path)
}

/// Checks scenario text as if read from `path` (used for messages and for resolving
/// `calls_tsv`, which is relative to the scenario file).
pub fn load_str(text: &str, path: &Path) -> Result<Scenario, Error> {
    let file_name = path.display().to_string();
    let raw: ScenarioFile = toml::from_str(text).map_err(|e| {
        // A trace given where a scenario is wanted: say what it is and where it goes.
        if looks_like_trace(text) {
            return Error::from(Located::new(
                &file_name,
                format!(
                    "this is a trace (number<TAB>label<TAB>bytes a line), not a scenario (TOML): print its ledger with `simulate ledger {file_name}`, or compare edits on it from a scenario that names it, calls_tsv = \"{file_name}\""
                ),
            ));
        }
        toml_error(&file_name, text, &e)
    })?;
    // An edits file given as the scenario: say so rather than "missing key `name`".
    if raw.name.is_none() && raw.call.is_empty() && raw.calls_tsv.is_none() && !raw.edit.is_empty()
    {
        return Err(Located::new(
            &file_name,
            format!(
                "this is an edits file ([[edit]] tables only), not a scenario: pass it with --edits, e.g. simulate SCENARIO.toml --edits {file_name}"
            ),
        )
        .into());
    }
    validate::scenario(raw, text, path)
}

/// Reads and checks an edits file (`--edits FILE`): `[[edit]]` tables only, so the same
/// edits run against any scenario. Calls they name are checked when they are applied.
/// Errors as [`load`].
pub fn load_edits(path: &Path) -> Result<EditsSet, Error> {
    let text = input::read_to_string(path, input::Kind::Edits)?;
    load_edits_str(&text, path)
}

/// Checks edits-file text as if read from `path` (for messages): what [`load_edits`] does
/// after reading. `simulate suggest` parses the edits it writes with it, so the file it
/// writes is exactly what it evaluated.
pub fn load_edits_str(text: &str, path: &Path) -> Result<EditsSet, Error> {
    let file_name = path.display().to_string();
    let raw: EditsFile = toml::from_str(text).map_err(|e| {
        // A whole scenario given as the edits file: say so rather than "unknown field".
        let scenario_keys = ["name", "base_tokens", "bytes_per_token", "call", "calls_tsv"];
        match toml::from_str::<toml::Table>(text) {
            Ok(t) if t.keys().any(|k| scenario_keys.contains(&k.as_str())) => Error::from(
                Located::new(
                    &file_name,
                    "this is a scenario file, but --edits takes a file of [[edit]] tables only: run the scenario itself, or copy its [[edit]] tables into a file of their own",
                ),
            ),
            _ => toml_error(&file_name, text, &e),
        }
    })?;
    Ok(validate::edits(raw, text, path)?)
}

/// The `[[base.part]]` tables of an edits-shaped file read for its parts alone (what
/// `simulate import context` writes). Errors as [`load`]; a file without parts is one.
pub fn load_parts_str(text: &str, path: &Path) -> Result<Vec<BasePart>, Error> {
    let file_name = path.display().to_string();
    let raw: EditsFile = toml::from_str(text).map_err(|e| toml_error(&file_name, text, &e))?;
    Ok(validate::parts_file(raw, text, path)?)
}

/// Reads a scenario's (or edits file's) text: a regular UTF-8 file of at most 8 MiB.
pub fn read_scenario_text(path: &Path) -> Result<String, Error> {
    input::read_to_string(path, input::Kind::Scenario)
}

/// Whether `text`, which is not TOML, reads as a `calls_tsv` trace: its first line that is
/// neither blank nor a `#` comment has a call number, a tab, and another tab after it
/// (a `# number<TAB>label…` header counts too).
fn looks_like_trace(text: &str) -> bool {
    let mut lines = text
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty());
    let Some(first) = lines
        .find(|l| !l.starts_with('#') || l.trim_start_matches(['#', ' ']).starts_with("number\t"))
    else {
        return false;
    };
    if first.starts_with('#') {
        return true;
    }
    let mut fields = first.split('\t');
    let number = fields.next().unwrap_or("");
    !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) && fields.count() >= 2
}

/// A TOML syntax or shape error, located, with the nearest valid key for an unknown one.
fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> Error {
    let mut at = e.span().map(|s| line_column(text, s.start));
    let mut message = super::messages::plain(e.message(), text, e.span().map(|s| s.start));
    if let Some(hint) = unknown_key_hint(&message) {
        message.push_str(&hint);
    }
    if message == "recursion limit" {
        let (offset, depth) = deepest_key(text);
        at = Some(line_column(text, offset));
        message = format!(
            "this key is nested {depth} levels deep, too deep to read (the limit is {}); a scenario's keys go at most 4 levels deep, e.g. [[edit]] clear.exclude_kinds",
            KEY_DEPTH_LIMIT - 1
        );
    } else if message.contains("max recursion depth") {
        message = "arrays or inline tables nested too deep to read; a scenario nests them at most 3 deep, e.g. steps = [{ trim = { … } }]".to_string();
    }
    Located::new(file, message).at(at).into()
}

/// The key path length at which the TOML parser gives up (`toml`'s own limit).
const KEY_DEPTH_LIMIT: usize = 80;

/// Where the first key or table header of [`KEY_DEPTH_LIMIT`] parts or more starts (else
/// the deepest one), as a byte offset, and its number of parts. Like the parser, this
/// counts the parts of each key or table header on its own.
fn deepest_key(text: &str) -> (usize, usize) {
    let mut deepest = (0, 0);
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let start = offset + (line.len() - trimmed.len());
        offset += line.len();
        let depth = if let Some(header) = trimmed.strip_prefix('[') {
            key_parts(header.strip_prefix('[').unwrap_or(header), b']')
        } else if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        } else {
            key_parts(trimmed, b'=')
        };
        if depth >= KEY_DEPTH_LIMIT {
            return (start, depth);
        }
        if depth > deepest.1 {
            deepest = (start, depth);
        }
    }
    deepest
}

/// The number of dot-separated parts of the key that `text` starts with, up to `end`
/// (quoted parts may hold dots).
fn key_parts(text: &str, end: u8) -> usize {
    let mut parts = 1;
    let mut quote = None;
    for b in text.bytes() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'.') => parts += 1,
            (None, _) if b == end || b == b'\n' => break,
            _ => {}
        }
    }
    parts
}

/// For serde's "unknown field `x`, expected one of `a`, `b`" message: "; did you mean `a`?"
fn unknown_key_hint(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, expected) = rest.split_once('`')?;
    let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    let nearest = valid
        .iter()
        .map(|v| (strsim::jaro_winkler(unknown, v), *v))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    Some(format!("; did you mean `{}`?", nearest.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_nearest_key() {
        let m = "unknown field `bytez`, expected one of `id`, `label`, `bytes`, `tokens`";
        assert_eq!(
            unknown_key_hint(m).as_deref(),
            Some("; did you mean `bytes`?")
        );
        let far = "unknown field `zzzz`, expected one of `id`, `label`";
        assert_eq!(unknown_key_hint(far), None);
    }

    #[test]
    fn keys_nested_too_deep_are_located() {
        let dotted = format!("name = \"x\"\n\n  {}b = 1\n", "a.".repeat(100));
        let e = load_str(&dotted, Path::new("deep.toml")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("deep.toml:3:3: this key is nested 101 levels deep"),
            "{e}"
        );
        let header = format!("name = \"x\"\n[{}]\nb = 1\n", vec!["t"; 90].join("."));
        let e = load_str(&header, Path::new("deep.toml")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("deep.toml:2:1: this key is nested 90 levels deep"),
            "{e}"
        );
        let inline = format!("x = {}1{}\n", "{a=".repeat(200), "}".repeat(200));
        let e = load_str(&inline, Path::new("deep.toml")).unwrap_err();
        assert!(e.to_string().contains("nested too deep"), "{e}");
        assert!(e.to_string().starts_with("deep.toml:1:"), "{e}");
    }

    #[test]
    fn dotted_parts_count_quotes_as_one() {
        assert_eq!(key_parts("a.\"b.c\".d = 1", b'='), 3);
        assert_eq!(key_parts("edit]]", b']'), 1);
    }
}
