//! The TOML subset of imported call tables, read in one pass over the bytes.
//!
//! Known: `[[call]]` and `[call.measured]` headers, bare keys, basic strings (with TOML's
//! escapes) and literal strings on one line, decimal integers and floats without sign or
//! underscores, booleans, comments, blank lines, LF or CRLF. Anything else (a sign, a
//! multi-line string, an inline table, another table, an unknown or repeated key, a
//! control character TOML refuses) ends the reading with None: the general parser takes
//! the file and says what it thinks of it.

use std::borrow::Cow;

/// A value as written.
#[derive(Debug, PartialEq)]
pub(super) enum Value<'a> {
    Str(Cow<'a, str>),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// An array of strings on one line (`other_tools`).
    Strs(Vec<Cow<'a, str>>),
}

/// One `[[call]]` table as written (unchecked).
#[derive(Debug, Default)]
pub(super) struct RawCall<'a> {
    pub id: Option<Cow<'a, str>>,
    pub label: Option<Cow<'a, str>>,
    pub bytes: Option<f64>,
    pub tokens: Option<f64>,
    pub kind: Option<Cow<'a, str>>,
    pub pinned: Option<bool>,
    pub segment: Option<i64>,
    pub gap_s: Option<f64>,
    pub output_tokens: Option<f64>,
    pub output_bytes: Option<f64>,
    pub tool_input_bytes: Option<f64>,
    pub images: Option<i64>,
    pub loaded_tools: Option<i64>,
    pub tool: Option<Cow<'a, str>>,
    pub other_tools: Option<Vec<Cow<'a, str>>>,
    pub input_hash: Option<Cow<'a, str>>,
    pub measured: Option<RawMeasured<'a>>,
}

/// `[call.measured]` as written.
#[derive(Debug, Default)]
pub(super) struct RawMeasured<'a> {
    pub input_tokens: Option<f64>,
    pub cache_creation_input_tokens: Option<f64>,
    pub cache_creation_1h_input_tokens: Option<f64>,
    pub cache_read_input_tokens: Option<f64>,
    pub output_tokens: Option<f64>,
    pub cost_usd: Option<f64>,
    pub model: Option<Cow<'a, str>>,
    pub convention: Option<Cow<'a, str>>,
}

/// Where the second call table starts (a byte offset in the body), if there is one.
pub(super) struct Body {
    pub second: Option<usize>,
}

/// Parses `body`, which starts at the first `[[call]]` line, handing each call table to
/// `emit` as soon as it is complete (no list of raw tables is kept). None at anything
/// outside the subset, or when `emit` says None.
pub(super) fn parse_calls<'a>(
    body: &'a str,
    mut emit: impl FnMut(RawCall<'a>) -> Option<()>,
) -> Option<Body> {
    let bytes = body.as_bytes();
    let mut current: Option<RawCall> = None;
    let mut calls = 0;
    let mut second = None;
    // Which table the keys go to: the call (false) or its `[call.measured]` (true).
    let mut in_measured = false;
    // Keys seen in the current table, as bits of `key_bit`.
    let mut seen: u32 = 0;
    let mut i = 0;
    while i < bytes.len() {
        let line_start = i;
        i = skip_blanks(bytes, i);
        match bytes.get(i) {
            None => break,
            Some(b'\n' | b'\r' | b'#') => {
                i = end_of_line(bytes, i)?;
                continue;
            }
            Some(b'[') => {
                let rest = &bytes[i..];
                if rest.starts_with(b"[[call]]") {
                    if calls == 1 {
                        second = Some(line_start);
                    }
                    if let Some(done) = current.replace(RawCall::default()) {
                        emit(done)?;
                    }
                    calls += 1;
                    in_measured = false;
                    i += 8;
                } else if rest.starts_with(b"[call.measured]") {
                    let call = current.as_mut()?;
                    if call.measured.is_some() {
                        return None;
                    }
                    call.measured = Some(RawMeasured::default());
                    in_measured = true;
                    i += 15;
                } else {
                    return None;
                }
                seen = 0;
                i = end_of_line(bytes, i)?;
                continue;
            }
            Some(_) => {}
        }
        let key_start = i;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
        {
            i += 1;
        }
        let key = &body[key_start..i];
        i = skip_blanks(bytes, i);
        if bytes.get(i) != Some(&b'=') {
            return None;
        }
        i = skip_blanks(bytes, i + 1);
        let (value, end) = value(body, i)?;
        i = end_of_line(bytes, end)?;
        let bit = key_bit(key, in_measured)?;
        if seen & bit != 0 {
            return None; // a key given twice
        }
        seen |= bit;
        let call = current.as_mut()?;
        if in_measured {
            set_measured(call.measured.as_mut()?, key, value)?;
        } else {
            set_call(call, key, value)?;
        }
    }
    if let Some(done) = current {
        emit(done)?;
    }
    Some(Body { second })
}

/// The index of the first byte at or after `i` that is not a space or tab.
fn skip_blanks(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    i
}

/// Whether TOML refuses byte `b` in a comment or a single-line string (an ASCII control
/// character other than tab).
fn refused(b: u8) -> bool {
    (b < 0x20 && b != b'\t') || b == 0x7f
}

/// After a value or header at `i`: blanks, an optional comment, and the line's end (LF,
/// CRLF or the end of the text). The index of the next line; None if anything else
/// follows or the comment holds a refused character.
fn end_of_line(bytes: &[u8], i: usize) -> Option<usize> {
    let mut i = skip_blanks(bytes, i);
    if bytes.get(i) == Some(&b'#') {
        i += 1;
        while let Some(&b) = bytes.get(i) {
            if b == b'\n' || b == b'\r' {
                break;
            }
            if refused(b) {
                return None;
            }
            i += 1;
        }
    }
    match bytes.get(i) {
        None => Some(i),
        Some(b'\n') => Some(i + 1),
        Some(b'\r') if bytes.get(i + 1) == Some(&b'\n') => Some(i + 2),
        Some(_) => None,
    }
}

/// A distinct bit for each key a table may hold; None for any other key (`measured = …`,
/// an inline table, is outside the subset).
fn key_bit(key: &str, measured: bool) -> Option<u32> {
    let i = if measured {
        match key {
            "input_tokens" => 0,
            "cache_creation_input_tokens" => 1,
            "cache_creation_1h_input_tokens" => 2,
            "cache_read_input_tokens" => 3,
            "output_tokens" => 4,
            "model" => 5,
            "convention" => 6,
            "cost_usd" => 7,
            _ => return None,
        }
    } else {
        match key {
            "id" => 0,
            "label" => 1,
            "bytes" => 2,
            "tokens" => 3,
            "kind" => 4,
            "pinned" => 5,
            "segment" => 6,
            "gap_s" => 7,
            "output_tokens" => 8,
            "tool" => 9,
            "input_hash" => 10,
            "output_bytes" => 11,
            "images" => 12,
            "loaded_tools" => 13,
            "tool_input_bytes" => 14,
            "other_tools" => 15,
            _ => return None,
        }
    };
    Some(1 << i)
}

fn set_call<'a>(c: &mut RawCall<'a>, key: &str, value: Value<'a>) -> Option<()> {
    match (key, value) {
        ("id", Value::Str(s)) => c.id = Some(s),
        ("label", Value::Str(s)) => c.label = Some(s),
        ("kind", Value::Str(s)) => c.kind = Some(s),
        ("tool", Value::Str(s)) => c.tool = Some(s),
        ("other_tools", Value::Strs(list)) => c.other_tools = Some(list),
        ("input_hash", Value::Str(s)) => c.input_hash = Some(s),
        ("pinned", Value::Bool(b)) => c.pinned = Some(b),
        ("segment", Value::Int(s)) => c.segment = Some(s),
        ("bytes", v) => c.bytes = Some(number(v)?),
        ("tokens", v) => c.tokens = Some(number(v)?),
        ("gap_s", v) => c.gap_s = Some(number(v)?),
        ("output_tokens", v) => c.output_tokens = Some(number(v)?),
        ("output_bytes", v) => c.output_bytes = Some(number(v)?),
        ("tool_input_bytes", v) => c.tool_input_bytes = Some(number(v)?),
        ("images", Value::Int(n)) => c.images = Some(n),
        ("loaded_tools", Value::Int(n)) => c.loaded_tools = Some(n),
        _ => return None,
    }
    Some(())
}

fn set_measured<'a>(m: &mut RawMeasured<'a>, key: &str, value: Value<'a>) -> Option<()> {
    match (key, value) {
        ("model", Value::Str(s)) => m.model = Some(s),
        ("convention", Value::Str(s)) => m.convention = Some(s),
        ("input_tokens", v) => m.input_tokens = Some(number(v)?),
        ("cache_creation_input_tokens", v) => m.cache_creation_input_tokens = Some(number(v)?),
        ("cache_creation_1h_input_tokens", v) => {
            m.cache_creation_1h_input_tokens = Some(number(v)?);
        }
        ("cache_read_input_tokens", v) => m.cache_read_input_tokens = Some(number(v)?),
        ("output_tokens", v) => m.output_tokens = Some(number(v)?),
        ("cost_usd", v) => m.cost_usd = Some(number(v)?),
        _ => return None,
    }
    Some(())
}

/// A number field: an integer or a float, as serde reads either into an `f64`.
fn number(v: Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(i as f64),
        Value::Float(f) => Some(f),
        _ => None,
    }
}

/// The value starting at byte `i` of `text`, and the index just after it.
fn value(text: &str, i: usize) -> Option<(Value<'_>, usize)> {
    let rest = &text[i..];
    let (value, after) = match rest.as_bytes().first()? {
        b'"' => basic_string(rest)?,
        b'\'' => literal_string(rest)?,
        b't' if rest.starts_with("true") => (Value::Bool(true), &rest[4..]),
        b'f' if rest.starts_with("false") => (Value::Bool(false), &rest[5..]),
        b'0'..=b'9' => decimal(rest)?,
        b'[' => strings(rest)?,
        _ => return None,
    };
    Some((value, text.len() - after.len()))
}

/// `[ "a", 'b' ]` on one line: strings only, separated by commas, a trailing comma allowed;
/// None at anything else (an empty array, a number, a line break, a comment inside).
fn strings(s: &str) -> Option<(Value<'_>, &str)> {
    let mut list = Vec::new();
    let mut rest = &s[1..];
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        if let Some(after) = rest.strip_prefix(']') {
            return (!list.is_empty()).then_some((Value::Strs(list), after));
        }
        let (item, after) = match rest.as_bytes().first()? {
            b'"' => basic_string(rest)?,
            b'\'' => literal_string(rest)?,
            _ => return None,
        };
        let Value::Str(item) = item else { return None };
        list.push(item);
        rest = after.trim_start_matches([' ', '\t']);
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with(']') {
            return None;
        }
    }
}

/// A decimal integer or float without sign, underscores or leading zeros; None otherwise.
pub(super) fn decimal(s: &str) -> Option<(Value<'_>, &str)> {
    let bytes = s.as_bytes();
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(bytes.len(), |p| from + p)
    };
    let int_end = digits(0);
    if int_end == 0 || (int_end > 1 && bytes[0] == b'0') {
        return None;
    }
    let mut end = int_end;
    let mut float = false;
    if bytes.get(end) == Some(&b'.') {
        let frac_end = digits(end + 1);
        if frac_end == end + 1 {
            return None;
        }
        end = frac_end;
        float = true;
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut exp = end + 1;
        if matches!(bytes.get(exp), Some(b'+' | b'-')) {
            exp += 1;
        }
        let exp_end = digits(exp);
        if exp_end == exp {
            return None;
        }
        end = exp_end;
        float = true;
    }
    // What follows must end the value.
    if bytes
        .get(end)
        .is_some_and(|b| !matches!(b, b' ' | b'\t' | b'#' | b'\r' | b'\n'))
    {
        return None;
    }
    let text = &s[..end];
    let value = if float {
        Value::Float(text.parse().ok()?)
    } else if text.len() > 15 {
        return None;
    } else {
        Value::Int(text.parse().ok()?)
    };
    Some((value, &s[end..]))
}

/// `"…"`; None at a multi-line string or a refused character.
fn basic_string(s: &str) -> Option<(Value<'_>, &str)> {
    let bytes = s.as_bytes();
    if bytes.starts_with(b"\"\"\"") {
        return multi_line_basic(s);
    }
    let mut i = 1;
    loop {
        match *bytes.get(i)? {
            b'"' => return Some((Value::Str(Cow::Borrowed(&s[1..i])), &s[i + 1..])),
            b'\\' => return escaped_string(s),
            b if refused(b) => return None,
            _ => i += 1,
        }
    }
}

/// A basic string with escapes, decoded (TOML 1.0's escapes only).
fn escaped_string(s: &str) -> Option<(Value<'_>, &str)> {
    decoded(s, 1)
}

/// `"""…"""` within one line (as the `toml` crate writes a string holding `"` and `'`):
/// escapes as in a basic string; the content may end in one or two quotes.
fn multi_line_basic(s: &str) -> Option<(Value<'_>, &str)> {
    decoded(s, 3)
}

/// A basic string opened by `quotes` double quotes (1 or 3), decoded, and what follows.
fn decoded(s: &str, quotes: usize) -> Option<(Value<'_>, &str)> {
    let inner = &s[quotes..];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' if quotes == 1 => return Some((Value::Str(Cow::Owned(out)), &inner[i + 1..])),
            '"' if inner[i..].starts_with("\"\"\"") => {
                let extra = inner[i + 3..].bytes().take_while(|b| *b == b'"').count();
                if extra > 2 {
                    return None;
                }
                out.extend(std::iter::repeat_n('"', extra));
                return Some((Value::Str(Cow::Owned(out)), &inner[i + 3 + extra..]));
            }
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'b' => out.push('\u{8}'),
                    't' => out.push('\t'),
                    'n' => out.push('\n'),
                    'f' => out.push('\u{c}'),
                    'r' => out.push('\r'),
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    'u' | 'U' => {
                        let n = if e == 'u' { 4 } else { 8 };
                        let mut code = 0u32;
                        for _ in 0..n {
                            let (_, h) = chars.next()?;
                            code = code * 16 + h.to_digit(16)?;
                        }
                        out.push(char::from_u32(code)?);
                    }
                    _ => return None,
                }
            }
            c if c.is_ascii() && refused(c as u8) => return None,
            c => out.push(c),
        }
    }
    None
}

/// `'…'`, taken as written (also `'''…'''` on one line, as the `toml` crate writes a string
/// holding both `'` and `\`); None at a refused character or a line break.
fn literal_string(s: &str) -> Option<(Value<'_>, &str)> {
    let bytes = s.as_bytes();
    if bytes.starts_with(b"'''") {
        return multi_line_literal(s);
    }
    let mut i = 1;
    loop {
        match *bytes.get(i)? {
            b'\'' => return Some((Value::Str(Cow::Borrowed(&s[1..i])), &s[i + 1..])),
            b if refused(b) => return None,
            _ => i += 1,
        }
    }
}

/// `'''…'''` within one line: the content runs to the first `'''`, plus up to two quotes
/// right after it (TOML lets a literal end in one or two quotes).
fn multi_line_literal(s: &str) -> Option<(Value<'_>, &str)> {
    let bytes = s.as_bytes();
    let mut i = 3;
    let close = loop {
        match *bytes.get(i)? {
            b'\'' if bytes[i..].starts_with(b"'''") => break i,
            b if refused(b) => return None,
            _ => i += 1,
        }
    };
    let extra = bytes[close + 3..]
        .iter()
        .take_while(|b| **b == b'\'')
        .count();
    if extra > 2 {
        return None;
    }
    let end = close + extra;
    Some((Value::Str(Cow::Borrowed(&s[3..end])), &s[end + 3..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_rust_reads_them() {
        assert_eq!(decimal("0.1 #x"), Some((Value::Float(0.1), " #x")));
        assert_eq!(decimal("12"), Some((Value::Int(12), "")));
        assert_eq!(decimal("1.5E-3"), Some((Value::Float(0.0015), "")));
        assert_eq!(decimal("1."), None);
        assert_eq!(decimal("1x"), None);
        assert_eq!(decimal("007"), None);
        assert_eq!(decimal("1234567890123456"), None);
    }

    #[test]
    fn strings_and_lines() {
        fn v(s: &str) -> Option<(Value<'_>, &str)> {
            value(s, 0).map(|(v, end)| (v, &s[end..]))
        }
        assert_eq!(
            v("\"a\\\"b\\u00e9\" # c"),
            Some((Value::Str("a\"bé".into()), " # c"))
        );
        assert_eq!(v("'a\\b'"), Some((Value::Str("a\\b".into()), "")));
        assert_eq!(v(r"''''\'''"), Some((Value::Str(r"'\".into()), "")));
        assert_eq!(v("'''a''''' #"), Some((Value::Str("a''".into()), " #")));
        assert_eq!(v("'''a''''''"), None);
        assert_eq!(
            v(r#""""'"\\"""""#),
            Some((Value::Str(r#"'"\""#.into()), ""))
        );
        assert_eq!(v("\"a\u{1}\""), None);
        assert_eq!(v("\"unterminated"), None);
        assert_eq!(v("truex"), Some((Value::Bool(true), "x")));
        assert_eq!(end_of_line(b"  # fine\r\nnext", 0), Some(10));
        assert_eq!(end_of_line(b" x", 0), None);
        assert_eq!(end_of_line(b"\r", 0), None);
    }
}
