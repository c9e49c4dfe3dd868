//! Reading a scenario file from disk and turning TOML errors into located messages.

use super::Edit;
use super::file::{EditsFile, ScenarioFile};
use super::{Scenario, validate};
use crate::error::{Error, Located, line_column};
use std::io::Read;
use std::path::Path;

/// The largest scenario or trace file read, in bytes (1 GiB, about 30 million TSV calls).
/// A larger file is refused before it is read, rather than exhausting memory.
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Reads and checks the scenario at `path`, with its `calls_tsv` trace if it names one.
pub fn load(path: &Path) -> Result<Scenario, Error> {
    let text = read_limited(path)?;
    load_str(&text, path)
}

/// Checks scenario text as if read from `path` (used for messages and for resolving
/// `calls_tsv`, which is relative to the scenario file).
pub fn load_str(text: &str, path: &Path) -> Result<Scenario, Error> {
    let file_name = path.display().to_string();
    let raw: ScenarioFile = toml::from_str(text).map_err(|e| toml_error(&file_name, text, &e))?;
    validate::scenario(raw, text, path)
}

/// Reads and checks an edits file (`--edits FILE`): `[[edit]]` tables only, so the same
/// edits run against any scenario. Calls they name are checked when they are applied.
pub fn load_edits(path: &Path) -> Result<Vec<Edit>, Error> {
    let text = read_limited(path)?;
    let file_name = path.display().to_string();
    let raw: EditsFile = toml::from_str(&text).map_err(|e| toml_error(&file_name, &text, &e))?;
    Ok(validate::edits(raw, &text, path)?)
}

/// Reads a whole UTF-8 text file, refusing files over [`MAX_INPUT_BYTES`].
pub fn read_limited(path: &Path) -> Result<String, Error> {
    let unreadable = |source| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if meta.is_dir() {
        return Err(Located::new(path.display().to_string(), "is a directory, not a file").into());
    }
    let too_big = |size: u64| -> Error {
        Located::new(
            path.display().to_string(),
            format!(
                "file is {size} bytes; the limit is {MAX_INPUT_BYTES} bytes (1 GiB): split the trace or sample it"
            ),
        )
        .into()
    };
    if meta.len() > MAX_INPUT_BYTES {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
        Located::new(
            path.display().to_string(),
            "is not UTF-8 text (save it as UTF-8)",
        )
        .at(Some(line_column(&text, valid)))
        .into()
    })
}

/// A TOML syntax or shape error, located, with the nearest valid key for an unknown one.
fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> Error {
    let at = e.span().map(|s| line_column(text, s.start));
    let mut message = super::messages::plain(e.message(), text, e.span().map(|s| s.start));
    if let Some(hint) = unknown_key_hint(&message) {
        message.push_str(&hint);
    }
    Located::new(file, message).at(at).into()
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
}
