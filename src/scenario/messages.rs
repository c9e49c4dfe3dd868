//! TOML and serde errors in the words of the scenario file.
//!
//! serde describes what it wanted in Rust's terms (`expected f64`, `expected struct
//! CallRef`, `expected a sequence`). A user wrote TOML, so the message names the key,
//! says what it wants in TOML's terms, and shows an example of a valid value.

/// Rewrites a TOML parser or shape error `message`, raised at byte `start` of `text`.
pub fn plain(message: &str, text: &str, start: Option<usize>) -> String {
    let message = message.trim_end();
    let key = start.and_then(|s| key_at(text, s));
    if message == "duplicate key" || message.starts_with("duplicate key") {
        return match &key {
            Some(Key::Value(k)) => {
                format!("`{k}` is given twice in this table: keep one of them")
            }
            Some(Key::Header(k)) => format!(
                "the table [{k}] is given twice: merge the two, or write [[{k}]] (two brackets) for a list of tables"
            ),
            None => "a key is given twice in one table: keep one of them".into(),
        };
    }
    // A number beyond what the parser can hold: say which key, the number, and the range.
    let quoted = |key: &Option<Key>| match key {
        Some(Key::Value(k)) | Some(Key::Header(k)) => format!("`{k}` = "),
        None => String::new(),
    };
    if message.starts_with("floating-point number overflowed") {
        let literal = start.map_or("this number", |s| literal_at(text, s));
        return format!(
            "{}{literal} is out of range: a number in a scenario is at most 1e15 in size",
            quoted(&key)
        );
    }
    if let Some((found, wanted)) = invalid_type(message)
        && let Some(literal) = found
            .strip_prefix("integer `")
            .and_then(|f| f.strip_suffix("` as i128"))
    {
        let range = if wanted_in_toml(wanted) == "a whole number" {
            "a whole number here is at most 9223372036854775807"
        } else {
            "a number in a scenario is at most 1e15 in size"
        };
        return format!("{}{literal} is out of range: {range}", quoted(&key));
    }
    if let Some((found, wanted)) = invalid_type(message) {
        if let Some(Key::Header(k)) = &key
            && found == "map"
            && wanted == "a sequence"
        {
            return format!(
                "[{k}] is a single table, but `{k}` is a list of tables: write [[{k}]] (two brackets), one per entry"
            );
        }
        let name = match &key {
            Some(Key::Value(k)) | Some(Key::Header(k)) => k.as_str(),
            None => "this value",
        };
        let wants = wanted_in_toml(wanted);
        let example = key
            .as_ref()
            .and_then(|k| example(k.name()))
            .map_or_else(String::new, |e| format!(", e.g. {e}"));
        let hint = if wants.contains("number") && found.starts_with("string") {
            quoted_number_hint(found)
        } else {
            String::new()
        };
        let quoted = if name == "this value" {
            name.to_string()
        } else {
            format!("`{name}`")
        };
        return format!(
            "{quoted} wants {wants}{example}; found {}{hint}",
            found_in_toml(found)
        );
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.split('`').next().unwrap_or(rest);
        let example = example(field).map_or_else(String::new, |e| format!(", e.g. {e}"));
        return format!("missing key `{field}`{example}");
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (found, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        return format!(
            "\"{found}\" is not valid here: give one of {}",
            valid.join(", ")
        );
    }
    message.to_string()
}

/// The number written at `start`: up to the next space, comma, bracket, brace or comment.
fn literal_at(text: &str, start: usize) -> &str {
    let rest = text.get(start..).unwrap_or("");
    let end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, ',' | ']' | '}' | '#'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The key a value or table header at `start` belongs to.
enum Key {
    /// `key = value` (inline tables included: the innermost key).
    Value(String),
    /// `[table]` or `[[table]]`.
    Header(String),
}

impl Key {
    fn name(&self) -> &str {
        match self {
            Key::Value(k) | Key::Header(k) => k.rsplit('.').next().unwrap_or(k),
        }
    }
}

fn key_at(text: &str, start: usize) -> Option<Key> {
    let start = start.min(text.len());
    let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = &text[line_start..line_end];
    let trimmed = line.trim_start();
    if trimmed.starts_with('[') && start <= line_start + line.len() - trimmed.len() + 2 {
        let name = trimmed.trim_start_matches('[');
        let name = name.split(']').next().unwrap_or(name).trim();
        return (!name.is_empty()).then(|| Key::Header(name.to_string()));
    }
    // The value starts at `start`: its key is the word before the nearest `=` before it.
    // A duplicate key is reported at the key itself: then the key is what follows.
    let before = &text[line_start..start];
    let Some(eq) = before.rfind('=') else {
        let after = &text[start..line_end];
        let key = after.split('=').next()?.trim().trim_matches('"');
        return (!key.is_empty() && !key.contains(' ')).then(|| Key::Value(key.to_string()));
    };
    let key = before[..eq]
        .rsplit(['{', ',', ' ', '\t'])
        .find(|s| !s.trim().is_empty())?
        .trim()
        .trim_matches('"');
    (!key.is_empty()).then(|| Key::Value(key.to_string()))
}

/// `invalid type: string "x", expected f64` → (`string "x"`, `f64`).
fn invalid_type(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("invalid type: ")?;
    let (found, wanted) = rest.rsplit_once(", expected ")?;
    Some((found, wanted))
}

fn wanted_in_toml(wanted: &str) -> &'static str {
    match wanted {
        "f64" | "f32" => "a number",
        "i64" | "u64" | "i32" | "u32" | "usize" => "a whole number",
        "a boolean" => "true or false",
        "a sequence" => "a list in brackets",
        "a string" => "a quoted string",
        w if w.starts_with("struct ") || w.starts_with("a table") || w == "a map" => {
            "a table in braces"
        }
        w if w.starts_with("a list of numbers") => {
            "a list of numbers or a table { from, to, steps }"
        }
        _ => "another kind of value",
    }
}

fn found_in_toml(found: &str) -> String {
    if let Some(s) = found.strip_prefix("string ") {
        return format!("the string {s}");
    }
    if let Some(x) = found.strip_prefix("floating point ") {
        return format!("the number {}", x.trim_matches('`'));
    }
    if let Some(x) = found.strip_prefix("integer ") {
        return format!("the number {}", x.trim_matches('`'));
    }
    match found {
        "map" => "a table".into(),
        "sequence" => "a list".into(),
        "boolean `true`" | "boolean `false`" => found.replace("boolean ", "").replace('`', ""),
        other => other.replace('`', ""),
    }
}

/// A valid example for a key, where one helps.
fn example(key: &str) -> Option<&'static str> {
    Some(match key {
        "name" => "name = \"nightly-maintenance\"",
        "base_tokens" => "base_tokens = 30000",
        "bytes_per_token" => "bytes_per_token = 3.3",
        "retry_rate" => "retry_rate = 0.05",
        "label" => "label = \"cat runbook.md\"",
        "id" => "id = \"runbook\"",
        "bytes" => "bytes = 45000",
        "tokens" => "tokens = 12000",
        "output_tokens" => "output_tokens = 300",
        "segment" => "segment = 2",
        "gap_s" => "gap_s = 420",
        "pinned" => "pinned = true",
        "kind" => "kind = \"web_search\"",
        "tool" => "tool = \"Bash\"",
        "call" => "call = \"runbook\"",
        "calls" => "calls = [\"status-a\", \"status-b\"]",
        "trim" => "trim = { call = \"runbook\", by_bytes = 12960 }",
        "merge" => "merge = { calls = [\"status-a\", \"status-b\"] }",
        "drop" => "drop = { call = \"changelog\" }",
        "move" => "move = { call = \"api-doc\", before = \"deploy\" }",
        "clear" => "clear = { every_segments = 4, keep_segments = 1 }",
        "steps" => {
            "steps = [{ trim = { call = \"a\", by_percent = 50 } }, { drop = { call = \"b\" } }]"
        }
        "by_bytes" | "to_bytes" => "by_bytes = 12960",
        "by_percent" => "by_percent = 33",
        "overhead_bytes" => "overhead_bytes = 200",
        "exclude_kinds" => "exclude_kinds = [\"web_search\"]",
        "tools" | "exclude_tools" => "tools = [\"Bash\", \"Read\"]",
        "every_segments" | "keep_segments" | "keep_results" | "older_than_calls" => {
            "every_segments = 4"
        }
        "every_calls" => "every_calls = 10",
        "above_tool_bytes" => "above_tool_bytes = 180000",
        "above_context_tokens" => "above_context_tokens = 100000",
        "after_gap_s" => "after_gap_s = 300",
        "read" => "read = 0.1",
        "write" => "write = 1.25",
        "ttl_s" => "ttl_s = 300",
        "only_longer" => "only_longer = true",
        "providers" => "providers = [\"anthropic\"]",
        "min_tokens" => "min_tokens = 1024",
        "preset" => "preset = \"anthropic-5m\"",
        "input" => "input = 3.0",
        "output" => "output = 15.0",
        "source" => "source = \"list price, 2026-11\"",
        "calls_tsv" => "calls_tsv = \"run.tsv\"",
        "select" => "select = { tool = \"Bash\" }",
        "max_bytes" => "max_bytes = 8000",
        _ => return None,
    })
}

/// What to write for a number given as a string (`found` is serde's `string "30k"`): drop
/// the quotes when the text is a number; else the number alone, in the key's unit, with
/// `30k` worked out when a thousands or millions suffix is all that is in the way.
fn quoted_number_hint(found: &str) -> String {
    let text = found
        .strip_prefix("string \"")
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or("")
        .trim();
    if text.parse::<f64>().is_ok() {
        return " (drop the quotes)".into();
    }
    let scaled = [("k", 1e3), ("K", 1e3), ("M", 1e6)]
        .iter()
        .find_map(|(suffix, by)| {
            let n: f64 = text.strip_suffix(suffix)?.trim().parse().ok()?;
            Some(n * by)
        });
    match scaled {
        Some(n) => format!(" (write the number alone, without quotes: {text} is {n})"),
        None => " (write the number alone, in the key's unit, without quotes or a unit: e.g. 300 for five minutes in seconds, 100000 for 100 KB in bytes)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str) -> Option<usize> {
        text.find(needle)
    }

    #[test]
    fn type_errors_name_the_key_and_show_an_example() {
        let text = "name = \"x\"\nbase_tokens = \"30000\"\n";
        let m = plain(
            "invalid type: string \"30000\", expected f64",
            text,
            at(text, "\"30000\""),
        );
        assert_eq!(
            m,
            "`base_tokens` wants a number, e.g. base_tokens = 30000; found the string \"30000\" (drop the quotes)"
        );
        let text = "[[edit]]\nname = \"d\"\ndrop = \"a\"\n";
        let m = plain(
            "invalid type: string \"a\", expected struct CallRef",
            text,
            at(text, "\"a\""),
        );
        assert_eq!(
            m,
            "`drop` wants a table in braces, e.g. drop = { call = \"changelog\" }; found the string \"a\""
        );
        assert!(!m.contains("struct"));
        let text = "merge = { calls = \"a\" }\n";
        let m = plain(
            "invalid type: string \"a\", expected a sequence",
            text,
            at(text, "\"a\""),
        );
        assert!(m.starts_with("`calls` wants a list in brackets"), "{m}");
        let text = "segment = 1.5\n";
        let m = plain(
            "invalid type: floating point `1.5`, expected i64",
            text,
            at(text, "1.5"),
        );
        assert_eq!(
            m,
            "`segment` wants a whole number, e.g. segment = 2; found the number 1.5"
        );
    }

    #[test]
    fn a_single_table_where_a_list_is_wanted_says_double_brackets() {
        let text = "name = \"x\"\n[call]\nlabel = \"a\"\n";
        let m = plain(
            "invalid type: map, expected a sequence",
            text,
            at(text, "[call]"),
        );
        assert_eq!(
            m,
            "[call] is a single table, but `call` is a list of tables: write [[call]] (two brackets), one per entry"
        );
    }

    #[test]
    fn a_repeated_key_is_named() {
        let text = "[[call]]\nbytes = 5\nbytes = 6\n";
        let m = plain("duplicate key", text, text.rfind("bytes"));
        assert_eq!(m, "`bytes` is given twice in this table: keep one of them");
        let m = plain("duplicate key", text, text.rfind("6"));
        assert_eq!(m, "`bytes` is given twice in this table: keep one of them");
    }

    /// Issue 16 §4: numbers beyond what the parser holds named Rust's `as i128` or gave a
    /// float overflow without its key; both name the key, the number and the range.
    #[test]
    fn numbers_out_of_range_name_the_key_the_number_and_the_range() {
        let text = "bytes = 99999999999999999999\nsegment = 99999999999999999999\n";
        let m = plain(
            "invalid type: integer `99999999999999999999` as i128, expected f64",
            text,
            at(text, "9"),
        );
        assert_eq!(
            m,
            "`bytes` = 99999999999999999999 is out of range: a number in a scenario is at most 1e15 in size"
        );
        let m = plain(
            "invalid type: integer `99999999999999999999` as i128, expected i64",
            text,
            text.rfind("99999999999999999999"),
        );
        assert_eq!(
            m,
            "`segment` = 99999999999999999999 is out of range: a whole number here is at most 9223372036854775807"
        );
        let text = "trim = { call = \"a\", by_bytes = -1e999 }\n";
        let m = plain("floating-point number overflowed", text, at(text, "-1e999"));
        assert_eq!(
            m,
            "`by_bytes` = -1e999 is out of range: a number in a scenario is at most 1e15 in size"
        );
    }
}
