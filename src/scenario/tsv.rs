//! `calls_tsv` traces: one call a line, `number<TAB>label<TAB>bytes`.
//!
//! Lines with the same number are one call (one shell command that reads several files is
//! one call): their bytes are summed and their labels joined with `+`, in file order.
//! Calls are ordered by number. Blank lines and `#` comments are skipped; any other
//! malformed line is an error naming the line, never silently dropped.

use super::{Call, read_limited};
use crate::error::{Error, Located};
use compact_str::CompactString;
use std::path::Path;
use std::sync::Arc;

/// Reads the trace at `path` (see [`parse_tsv`]).
pub fn read_tsv(path: &Path) -> Result<Vec<Call>, Error> {
    let text = read_limited(path)?;
    Ok(parse_tsv(&text, &path.display().to_string())?)
}

/// One line of the trace before lines of the same call are joined.
struct Line<'a> {
    number: u64,
    label: &'a str,
    bytes: u64,
}

/// Parses trace text; `file` names it in errors.
pub fn parse_tsv(text: &str, file: &str) -> Result<Vec<Call>, Located> {
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1);
    for (index, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(line) {
            Ok(parsed) => lines.push(parsed),
            Err(_) if line.trim().is_empty() => continue,
            Err(message) => return Err(Located::new(file, message).at(Some((index + 1, 1)))),
        }
    }
    if lines.is_empty() {
        return Err(Located::new(
            file,
            "the trace has no calls (expected lines of number<TAB>label<TAB>bytes)",
        ));
    }
    // Traces are usually written in call order; sort only when they are not. The sort is
    // stable, so lines of one call keep their file order.
    if !lines.windows(2).all(|w| w[0].number <= w[1].number) {
        lines.sort_by_key(|l| l.number);
    }
    Ok(join_calls(&lines))
}

fn parse_line(line: &str) -> Result<Line<'_>, String> {
    let bytes = line.as_bytes();
    let tabs = (memchr::memchr(b'\t', bytes), memchr::memrchr(b'\t', bytes));
    let (first, last) = match tabs {
        (Some(first), Some(last))
            if first < last && memchr::memchr(b'\t', &bytes[first + 1..last]).is_none() =>
        {
            (first, last)
        }
        _ => {
            let count = memchr::memchr_iter(b'\t', bytes).count() + 1;
            return Err(format!(
                "expected 3 tab-separated fields (number, label, bytes), found {count}"
            ));
        }
    };
    let whole = |field: &str, what: &str| -> Result<u64, String> {
        let field = field.trim();
        field
            .parse::<u64>()
            .map_err(|_| format!("{what} `{field}` is not a whole number ≥ 0"))
    };
    let bytes = whole(&line[last + 1..], "bytes")?;
    if bytes as f64 > super::MAX_NUMBER {
        return Err(format!("bytes {bytes} is too large: give at most 1e15"));
    }
    Ok(Line {
        number: whole(&line[..first], "call number")?,
        label: &line[first + 1..last],
        bytes,
    })
}

fn join_calls(lines: &[Line<'_>]) -> Vec<Call> {
    let kind: Arc<str> = Arc::from("tool");
    let mut calls = Vec::with_capacity(lines.len());
    let mut start = 0;
    while start < lines.len() {
        let number = lines[start].number;
        let end = start
            + lines[start..]
                .iter()
                .take_while(|l| l.number == number)
                .count();
        let group = &lines[start..end];
        let label = if group.len() == 1 {
            CompactString::from(group[0].label)
        } else {
            CompactString::from(group.iter().map(|l| l.label).collect::<Vec<_>>().join("+"))
        };
        calls.push(Call {
            id: CompactString::from(itoa::Buffer::new().format(number)),
            label,
            kind: Arc::clone(&kind),
            bytes: group.iter().map(|l| l.bytes as f64).sum(),
            tokens: 0.0,
            output_tokens: 0.0,
            pinned: false,
            segment: 1,
            gap_s: 0.0,
            measured: false,
            detail: None,
        });
        start = end;
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_the_same_number_are_one_call_in_number_order() {
        let text = "2\tb\t10\n# comment\n\n1\ta\t5\n2\tc\t7\r\n";
        let calls = parse_tsv(text, "t.tsv").unwrap();
        let summary: Vec<_> = calls
            .iter()
            .map(|c| (c.id.as_ref(), c.label.as_ref(), c.bytes))
            .collect();
        assert_eq!(summary, vec![("1", "a", 5.0), ("2", "b+c", 17.0)]);
    }

    #[test]
    fn malformed_lines_are_errors_naming_the_line() {
        let e = parse_tsv("1\ta\t5\n2\tb\n", "t.tsv").unwrap_err();
        assert_eq!(e.line_column, Some((2, 1)));
        assert!(e.message.contains("found 2"), "{}", e.message);
        let e = parse_tsv("1\ta\t5.5\n", "t.tsv").unwrap_err();
        assert!(
            e.message.contains("`5.5` is not a whole number"),
            "{}",
            e.message
        );
        let e = parse_tsv("x\ta\t5\n", "t.tsv").unwrap_err();
        assert!(e.message.contains("call number `x`"), "{}", e.message);
        let e = parse_tsv("# only a comment\n", "t.tsv").unwrap_err();
        assert!(e.message.contains("no calls"), "{}", e.message);
    }
}
