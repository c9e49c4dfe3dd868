//! The columns of a trace: `number`, `label`, `bytes`, then optional ones a `#` header
//! declares.
//!
//! The three required columns come first and in that order, so every trace written for
//! the plain format stays valid and its header needs no change; the optional columns
//! follow in any order. Each optional column lets a TSV trace carry what a `[[call]]`
//! table can (docs/model.md §2), so clearing and cache scenarios can come from a trace.

/// One column of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// The call number: lines with the same number are one call.
    Number,
    /// What the call did, for people.
    Label,
    /// Bytes of result (whole number; may be empty when `tokens` is given).
    Bytes,
    /// Measured tokens of result (whole number).
    Tokens,
    /// Tokens the model wrote at the call (whole number).
    OutputTokens,
    /// Free-form category; `tool` when not given.
    Kind,
    /// Topic segment (whole number); the previous call's when not given, the first is 1.
    Segment,
    /// Seconds since the previous call (a number ≥ 0); 0 when not given.
    GapS,
    /// `true` or `false`; when not given, true for kind `web_search`.
    Pinned,
}

impl Column {
    /// Every column, by its name in a header.
    pub const ALL: [(&'static str, Column); 9] = [
        ("number", Column::Number),
        ("label", Column::Label),
        ("bytes", Column::Bytes),
        ("tokens", Column::Tokens),
        ("output_tokens", Column::OutputTokens),
        ("kind", Column::Kind),
        ("segment", Column::Segment),
        ("gap_s", Column::GapS),
        ("pinned", Column::Pinned),
    ];

    /// The column's name in a header.
    pub fn name(self) -> &'static str {
        Column::ALL
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("?", |(n, _)| n)
    }
}

/// The columns of a trace, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns(pub Vec<Column>);

impl Default for Columns {
    /// `number`, `label`, `bytes`: the format without a header.
    fn default() -> Self {
        Columns(vec![Column::Number, Column::Label, Column::Bytes])
    }
}

impl Columns {
    /// Whether `column` is declared.
    pub fn has(&self, column: Column) -> bool {
        self.0.contains(&column)
    }

    /// `number, label, bytes`, for messages.
    pub fn names(&self) -> String {
        self.0
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Reads the names of a header line (the text after `#`), separated by tabs; `offset`
    /// is the byte offset of `text` in its line. Returns the columns, or the byte offset
    /// in the line of the bad name and what is wrong.
    pub fn parse(text: &str, offset: usize) -> Result<Columns, (usize, String)> {
        let mut columns = Vec::new();
        let mut start = 0;
        for name in text.split('\t') {
            let at = offset + start + (name.len() - name.trim_start().len());
            start += name.len() + 1;
            let name = name.trim();
            if name.is_empty() && start > text.len() {
                break; // a trailing tab
            }
            let Some(&(_, column)) = Column::ALL.iter().find(|(n, _)| *n == name) else {
                return Err((at, unknown(name)));
            };
            if columns.contains(&column) {
                return Err((at, format!("column `{name}` is named twice")));
            }
            let required = Columns::default().0;
            if let Some(&want) = required.get(columns.len())
                && want != column
            {
                return Err((
                    at,
                    format!(
                        "the first three columns are number, label, bytes, in that order; found `{name}` where `{}` goes",
                        want.name()
                    ),
                ));
            }
            columns.push(column);
        }
        if columns.len() < 3 {
            let missing = Columns::default().0[columns.len()].name();
            return Err((
                offset + text.trim_end().len(),
                format!(
                    "the header lacks the column `{missing}`: the first three columns are number, label, bytes"
                ),
            ));
        }
        Ok(Columns(columns))
    }
}

/// "unknown column `x`", with the nearest valid name or the list of them.
fn unknown(name: &str) -> String {
    let nearest = Column::ALL
        .iter()
        .map(|(n, _)| (strsim::jaro_winkler(name, n), *n))
        .filter(|(score, _)| *score >= 0.75)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match nearest {
        Some((_, n)) => format!("unknown column `{name}`; did you mean `{n}`?"),
        None => format!(
            "unknown column `{name}`; the columns are {}",
            Column::ALL.map(|(n, _)| n).join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_columns_follow_the_required_three_in_any_order() {
        let c = Columns::parse(" number\tlabel\tbytes\tkind\ttokens\tgap_s", 1).unwrap();
        assert_eq!(
            c.0,
            vec![
                Column::Number,
                Column::Label,
                Column::Bytes,
                Column::Kind,
                Column::Tokens,
                Column::GapS
            ]
        );
        assert_eq!(c.names(), "number, label, bytes, kind, tokens, gap_s");
    }

    #[test]
    fn an_unknown_name_suggests_the_nearest_and_points_at_it() {
        let (at, message) = Columns::parse(" number\tlabel\tbytes\ttokns", 1).unwrap_err();
        assert_eq!(at, 21);
        assert_eq!(message, "unknown column `tokns`; did you mean `tokens`?");
        let (_, message) = Columns::parse("number\tlabel\tbytes\tzzz", 0).unwrap_err();
        assert!(
            message.contains("the columns are number, label, bytes"),
            "{message}"
        );
    }

    #[test]
    fn the_required_columns_come_first_and_once() {
        let (at, message) = Columns::parse("number\tbytes\tlabel", 0).unwrap_err();
        assert_eq!(at, 7);
        assert!(
            message.contains("found `bytes` where `label` goes"),
            "{message}"
        );
        let (_, message) = Columns::parse("number\tlabel\tbytes\tkind\tkind", 0).unwrap_err();
        assert_eq!(message, "column `kind` is named twice");
        let (_, message) = Columns::parse("number\tlabel", 0).unwrap_err();
        assert!(message.contains("lacks the column `bytes`"), "{message}");
    }
}
