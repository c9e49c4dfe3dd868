//! One data line of a trace: split at tabs, each field checked, errors pointing at the
//! field.

use super::columns::{Column, Columns};
use crate::scenario::MAX_NUMBER;

/// One line of a trace, before the lines of one call are joined. Optional fields that are
/// empty or not declared are `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct Row<'a> {
    pub number: u64,
    pub label: &'a str,
    pub bytes: Option<u64>,
    pub tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub kind: Option<&'a str>,
    /// With the byte offset of its field, for messages.
    pub segment: Option<(u64, usize)>,
    pub gap_s: Option<(f64, usize)>,
    pub pinned: Option<(bool, usize)>,
    /// Byte offset of the kind field, for messages.
    pub kind_at: usize,
}

/// What is wrong with a line: the byte offset in the line of the bad field, and why.
pub type LineError = (usize, String);

/// Parses `line` (no line ending) under `columns`.
#[cfg(test)]
pub fn parse<'a>(line: &'a str, columns: &Columns) -> Result<Row<'a>, LineError> {
    let tabs: Vec<u32> = memchr::memchr_iter(b'\t', line.as_bytes())
        .map(|i| i as u32)
        .collect();
    parse_split(line, &tabs, 0, columns)
}

/// Parses `line` (no line ending) under `columns`, its tabs at the byte offsets `tabs`
/// less `shift` (the lines' reader finds them for a whole buffer at once).
#[inline(always)]
pub fn parse_split<'a>(
    line: &'a str,
    tabs: &[u32],
    shift: u32,
    columns: &Columns,
) -> Result<Row<'a>, LineError> {
    let expected = columns.0.len();
    let count = tabs.len() + 1;
    let tab = |k: usize| (tabs[k] - shift) as usize;
    // Field `k`: its byte offset and text.
    let nth = |k: usize| {
        let start = if k == 0 { 0 } else { tab(k - 1) + 1 };
        let end = if k < tabs.len() { tab(k) } else { line.len() };
        (start, &line[start..end])
    };
    if count > expected {
        return Err((
            tab(expected - 1) + 1,
            format!(
                "expected {expected} tab-separated fields ({}), found {count}",
                columns.names(),
            ),
        ));
    }
    // Optional fields at the end of a line may be left out, like empty ones.
    if count < 3 {
        let fields: Vec<(usize, &str)> = (0..count).map(nth).collect();
        return Err(too_few(line, &fields, columns));
    }
    let mut row = Row {
        number: 0,
        label: "",
        bytes: None,
        tokens: None,
        output_tokens: None,
        kind: None,
        segment: None,
        gap_s: None,
        pinned: None,
        kind_at: 0,
    };
    for (k, &column) in columns.0.iter().enumerate().take(count) {
        let (at, field) = nth(k);
        // Spaces alone are no value, as an empty field.
        let given =
            || !field.is_empty() && (field.as_bytes()[0] > b' ' || !field.trim().is_empty());
        match column {
            Column::Number => row.number = number(at, field)?,
            Column::Label => row.label = field,
            Column::Bytes if given() => row.bytes = Some(whole(at, field, "bytes")?),
            Column::Tokens if given() => row.tokens = Some(whole(at, field, "tokens")?),
            Column::OutputTokens if given() => {
                row.output_tokens = Some(whole(at, field, "output_tokens")?)
            }
            Column::Kind if given() => {
                row.kind = Some(field.trim());
                row.kind_at = at;
            }
            Column::Segment if given() => row.segment = Some((whole(at, field, "segment")?, at)),
            Column::GapS if given() => row.gap_s = Some((seconds(at, field)?, at)),
            Column::Pinned if given() => row.pinned = Some((flag(at, field)?, at)),
            _ => {}
        }
    }
    if row.bytes.is_none() && row.tokens.is_none() {
        let at = nth(2).0;
        let message = if columns.has(Column::Tokens) {
            "a line needs bytes or tokens, or both"
        } else {
            "bytes is empty: give the bytes of the result (or declare a tokens column in the header)"
        };
        return Err((at, message.to_string()));
    }
    Ok(row)
}

/// Too few fields: most often spaces where tabs belong, or a missing field.
fn too_few(line: &str, fields: &[(usize, &str)], columns: &Columns) -> LineError {
    let expected = columns.0.len();
    let words: usize = fields
        .iter()
        .map(|(_, f)| f.split_whitespace().count().max(1))
        .sum();
    // A numeric last word means the bytes are there, after a space instead of a tab.
    let numeric_end = line
        .split_whitespace()
        .next_back()
        .is_some_and(|w| w.parse::<f64>().is_ok());
    let trimmed = line.trim_end();
    // With no tab at all the first space is the first separator; otherwise the last one.
    let space = if fields.len() == 1 {
        trimmed.find(' ')
    } else {
        trimmed.rfind(' ')
    };
    if words >= expected
        && numeric_end
        && let Some(at) = space
    {
        return (
            at,
            format!(
                "fields are separated by spaces; use tabs (the fields are {})",
                columns.names()
            ),
        );
    }
    let how_many = if expected == 3 {
        "3".to_string()
    } else {
        format!("3 to {expected}")
    };
    (
        0,
        format!(
            "expected {how_many} tab-separated fields ({}), found {}",
            columns.names(),
            fields.len()
        ),
    )
}

/// A field of 1 to 15 ASCII digits, read without the general parser (the common case).
#[inline]
fn digits(field: &str) -> Option<u64> {
    let bytes = field.as_bytes();
    if bytes.is_empty() || bytes.len() > 15 {
        return None;
    }
    let mut value = 0;
    for &b in bytes {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        value = value * 10 + u64::from(d);
    }
    Some(value)
}

#[inline]
fn number(at: usize, field: &str) -> Result<u64, LineError> {
    match digits(field) {
        Some(value) => Ok(value),
        None => number_slow(at, field),
    }
}

/// [`number`] for a field that is not 1 to 15 plain digits.
#[cold]
fn number_slow(at: usize, field: &str) -> Result<u64, LineError> {
    let text = field.trim();
    text.parse::<u64>().map_err(|_| {
        let message = if text.eq_ignore_ascii_case("number") {
            "this looks like a column header: start it with # (e.g. `# number<TAB>label<TAB>bytes`) so it is not read as a call".to_string()
        } else {
            format!("call number `{text}` is not a whole number ≥ 0")
        };
        (at, message)
    })
}

#[inline]
fn whole(at: usize, field: &str, what: &str) -> Result<u64, LineError> {
    // Fifteen digits are at most 999,999,999,999,999, below the 1e15 limit.
    match digits(field) {
        Some(value) => Ok(value),
        None => whole_slow(at, field, what),
    }
}

/// [`whole`] for a field that is not 1 to 15 plain digits.
#[cold]
fn whole_slow(at: usize, field: &str, what: &str) -> Result<u64, LineError> {
    let text = field.trim();
    let value = text
        .parse::<u64>()
        .map_err(|_| (at, format!("{what} `{text}` is not a whole number ≥ 0")))?;
    if value as f64 > MAX_NUMBER {
        return Err((
            at,
            format!("{what} {value} is too large: give at most 1e15"),
        ));
    }
    Ok(value)
}

fn seconds(at: usize, field: &str) -> Result<f64, LineError> {
    let text = field.trim();
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=MAX_NUMBER).contains(&x) => Ok(x),
        _ => Err((
            at,
            format!("gap_s `{text}` is not a number of seconds ≥ 0 (at most 1e15)"),
        )),
    }
}

fn flag(at: usize, field: &str) -> Result<bool, LineError> {
    match field.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err((at, format!("pinned `{other}` is not true or false"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Columns {
        Columns(Column::ALL.iter().map(|(_, c)| *c).collect())
    }

    #[test]
    fn a_plain_line_has_three_fields() {
        let row = parse("7\tcat a.md\t120", &Columns::default()).unwrap();
        assert_eq!(
            (row.number, row.label, row.bytes),
            (7, "cat a.md", Some(120))
        );
        assert_eq!(row.tokens, None);
    }

    #[test]
    fn optional_fields_may_be_empty() {
        let row = parse("1\tweb\t\t500\t20\tweb_search\t2\t30.5\t", &all()).unwrap();
        assert_eq!(row.bytes, None);
        assert_eq!(row.tokens, Some(500));
        assert_eq!(row.output_tokens, Some(20));
        assert_eq!(row.kind, Some("web_search"));
        assert_eq!(row.segment.map(|s| s.0), Some(2));
        assert_eq!(row.gap_s.map(|g| g.0), Some(30.5));
        assert_eq!(row.pinned, None);
    }

    #[test]
    fn errors_point_at_the_field() {
        assert_eq!(
            parse("2\tb\t1.5", &Columns::default()).unwrap_err(),
            (4, "bytes `1.5` is not a whole number ≥ 0".to_string())
        );
        let (at, m) = parse("1\tx\t5\t\t\t\t\t-3\t", &all()).unwrap_err();
        assert_eq!(at, 10);
        assert!(m.starts_with("gap_s `-3`"), "{m}");
        let (at, m) = parse("1\tx\t5\t\t\t\t\t\tyes", &all()).unwrap_err();
        assert_eq!((at, m.as_str()), (11, "pinned `yes` is not true or false"));
        let (at, m) = parse("1\tx\t\t\t\t\t\t\t", &all()).unwrap_err();
        assert_eq!(
            (at, m.as_str()),
            (4, "a line needs bytes or tokens, or both")
        );
    }

    #[test]
    fn spaces_instead_of_tabs_are_named() {
        let (at, m) = parse("12 cat a.md 100", &Columns::default()).unwrap_err();
        assert_eq!(at, 2);
        assert!(
            m.starts_with("fields are separated by spaces; use tabs"),
            "{m}"
        );
        let (at, m) = parse("1\tcat a.md 100", &Columns::default()).unwrap_err();
        assert_eq!(at, 10);
        assert!(m.starts_with("fields are separated by spaces"), "{m}");
        // A label with spaces and a missing field is not a spacing problem.
        let (_, m) = parse("1\tcat a.md", &Columns::default()).unwrap_err();
        assert!(m.ends_with("found 2"), "{m}");
        let (at, m) = parse("1\tb", &Columns::default()).unwrap_err();
        assert_eq!(at, 0);
        assert_eq!(
            m,
            "expected 3 tab-separated fields (number, label, bytes), found 2"
        );
    }

    #[test]
    fn optional_fields_at_the_end_may_be_left_out() {
        let row = parse("1\tweb\t\t500", &all()).unwrap();
        assert_eq!((row.tokens, row.kind, row.gap_s), (Some(500), None, None));
        let (_, m) = parse("1\tweb", &all()).unwrap_err();
        assert!(m.starts_with("expected 3 to 9 tab-separated fields"), "{m}");
    }

    #[test]
    fn too_many_fields_point_at_the_first_extra_one() {
        let (at, m) = parse("1\ta\t5\t6", &Columns::default()).unwrap_err();
        assert_eq!(at, 6);
        assert!(m.ends_with("found 4"), "{m}");
    }

    #[test]
    fn an_unmarked_header_gets_a_hint() {
        let (at, m) = parse("number\tlabel\tbytes", &Columns::default()).unwrap_err();
        assert_eq!(at, 0);
        assert!(m.contains("start it with #"), "{m}");
    }

    #[test]
    fn numbers_above_1e15_are_refused() {
        let (_, m) = parse("1\ta\t9999999999999999", &Columns::default()).unwrap_err();
        assert!(m.contains("too large"), "{m}");
    }
}
