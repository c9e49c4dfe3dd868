//! One test per rule of the trace format.

use super::*;

fn calls(text: &str) -> Vec<Call> {
    parse_tsv(text, "t.tsv").unwrap().to_vec()
}

fn error(text: &str) -> Located {
    parse_tsv(text, "t.tsv").unwrap_err()
}

fn summary(calls: &[Call]) -> Vec<(&str, &str, f64)> {
    calls
        .iter()
        .map(|c| (c.id.as_str(), c.label.as_str(), c.bytes))
        .collect()
}

#[test]
fn lines_with_the_same_number_are_one_call_in_number_order() {
    let calls = calls("2\tb\t10\n2\tc\t7\r\n# comment\n\n1\ta\t5\n");
    assert_eq!(summary(&calls), vec![("1", "a", 5.0), ("2", "b+c", 17.0)]);
    assert_eq!(&*calls[0].kind, "tool");
    assert_eq!(calls[0].segment, 1);
}

#[test]
fn malformed_lines_are_errors_naming_the_line_and_field() {
    let e = error("1\ta\t5\n2\tb\n");
    assert_eq!(e.line_column, Some((2, 1)));
    assert!(e.message.contains("found 2"), "{}", e.message);
    let e = error("1\ta\t5.5\n");
    assert_eq!(e.line_column, Some((1, 5)));
    assert_eq!(e.message, "bytes `5.5` is not a whole number ≥ 0");
    let e = error("x\ta\t5\n");
    assert_eq!(e.line_column, Some((1, 1)));
    assert!(e.message.contains("call number `x`"), "{}", e.message);
    let e = error("# only a comment\n");
    assert!(e.message.contains("no calls"), "{}", e.message);
    assert_eq!(e.line_column, None);
}

#[test]
fn the_column_counts_characters_not_bytes() {
    // "読む" is two characters and six bytes: the bytes field starts at character 6.
    let e = error("1\t読む\tmany\n");
    assert_eq!(e.line_column, Some((1, 6)));
}

#[test]
fn a_byte_order_mark_is_accepted_and_never_shown() {
    assert_eq!(summary(&calls("\u{feff}1\ta\t5\n")), vec![("1", "a", 5.0)]);
    let e = error("\u{feff}x\ta\t5\n");
    assert_eq!(e.line_column, Some((1, 1)));
    assert!(!e.to_string().contains('\u{feff}'), "{e}");
    // A header after a byte-order mark is still a header.
    let c = calls("\u{feff}# number\tlabel\tbytes\ttokens\n1\ta\t\t40\n");
    assert_eq!(c[0].tokens, 40.0);
}

#[test]
fn a_header_without_hash_gets_a_hint() {
    let e = error("number\tlabel\tbytes\n1\ta\t5\n");
    assert_eq!(e.line_column, Some((1, 1)));
    assert!(e.message.contains("start it with #"), "{}", e.message);
}

#[test]
fn spaces_instead_of_tabs_are_named() {
    let e = error("1\ta\t5\n2 cat b.md 100\n");
    assert_eq!(e.line_column, Some((2, 2)));
    assert!(
        e.message
            .starts_with("fields are separated by spaces; use tabs"),
        "{}",
        e.message
    );
}

#[test]
fn a_header_declares_optional_columns() {
    let text = "# number\tlabel\tbytes\ttokens\toutput_tokens\tkind\tsegment\tgap_s\n\
                1\tsearch\t\t900\t40\tweb_search\t1\t0\n\
                2\tcat a.md\t3300\t\t\t\t2\t400\n\
                2\tcat b.md\t100\t50\t10\t\t\t\n\
                3\tls\t10\t\t\t\t\t\n";
    let c = calls(text);
    assert_eq!(c.len(), 3);
    assert_eq!(
        (c[0].tokens, c[0].output_tokens, c[0].bytes),
        (900.0, 40.0, 0.0)
    );
    assert_eq!(&*c[0].kind, "web_search");
    assert!(c[0].pinned, "web_search is pinned by default");
    assert!(c[0].measured);
    // Call 2: bytes and tokens summed over its lines, segment and gap from its first line.
    assert_eq!(
        (c[1].bytes, c[1].tokens, c[1].output_tokens),
        (3400.0, 50.0, 10.0)
    );
    assert_eq!((c[1].segment, c[1].gap_s), (2, 400.0));
    assert!(c[1].measured && !c[1].pinned);
    // Call 3: the previous call's segment, no gap, kind tool, not measured.
    assert_eq!((c[2].segment, c[2].gap_s, &*c[2].kind), (2, 0.0, "tool"));
    assert!(!c[2].measured);
}

#[test]
fn an_unknown_column_names_the_nearest() {
    let e = error("# number\tlabel\tbytes\tsegmnt\n1\ta\t5\t1\n");
    assert_eq!(e.line_column, Some((1, 22)));
    assert_eq!(
        e.message,
        "unknown column `segmnt`; did you mean `segment`?"
    );
}

#[test]
fn a_header_after_the_first_call_is_an_error() {
    let e = error("1\ta\t5\n# number\tlabel\tbytes\ttokens\n");
    assert_eq!(e.line_column, Some((2, 1)));
    assert!(e.message.contains("before the first call"), "{}", e.message);
    // A comment that merely mentions number is a comment.
    assert_eq!(calls("# number of calls: 1\n1\ta\t5\n").len(), 1);
}

#[test]
fn lines_of_one_call_must_agree() {
    let text = "# number\tlabel\tbytes\tkind\n1\ta\t5\ttool\n1\tb\t5\tweb_search\n";
    let e = error(text);
    assert_eq!(e.line_column, Some((3, 7)));
    assert_eq!(e.place.as_deref(), Some("call 1"));
    assert_eq!(
        e.message,
        "kind `web_search` differs from `tool` on line 2; the lines of one call must agree on kind"
    );
    let e = error("# number\tlabel\tbytes\tgap_s\n1\ta\t5\t3\n1\tb\t5\t4\n");
    assert!(e.message.contains("on line 2"), "{}", e.message);
    // An empty field gives nothing, so it does not disagree.
    let c = calls("# number\tlabel\tbytes\tsegment\n1\ta\t5\t2\n1\tb\t5\t\n");
    assert_eq!(c[0].segment, 2);
}

#[test]
fn segments_must_be_contiguous() {
    let text = "# number\tlabel\tbytes\tsegment\n1\ta\t5\t1\n2\tb\t5\t2\n3\tc\t5\t1\n";
    let e = error(text);
    assert_eq!(e.line_column, Some((4, 7)));
    assert!(
        e.message
            .contains("segment 1 appears again after segment 2"),
        "{}",
        e.message
    );
}

/// Issue 16 §4: the seed's own script sums lines with one call number wherever they stand
/// and orders calls by number; a number that came back after other calls was refused.
#[test]
fn a_number_that_comes_back_joins_its_call_as_in_the_seed() {
    let c = calls("1\ta\t5\n2\tb\t5\n1\tc\t7\n3\td\t1\n2\te\t2\n");
    assert_eq!(
        summary(&c),
        vec![("1", "a+c", 12.0), ("2", "b+e", 7.0), ("3", "d", 1.0)]
    );
    // Fields one line gives and the other leaves out stand; the pinning default follows
    // the kind given.
    let text = "# number\tlabel\tbytes\ttokens\toutput_tokens\tkind\tsegment\tgap_s\n1\ta\t5\t\t\t\t1\t\n2\tb\t5\n1\tc\t5\t10\t3\tweb_search\t\t4\n";
    let c = calls(text);
    assert_eq!(
        (
            &*c[0].kind,
            c[0].pinned,
            c[0].tokens,
            c[0].output_tokens,
            c[0].gap_s,
            c[0].segment
        ),
        ("web_search", true, 10.0, 3.0, 4.0, 1)
    );
    assert!(c[0].measured);
    // Fields both give must agree, wherever the lines stand.
    let e = error("# number\tlabel\tbytes\tkind\n1\ta\t5\ttool\n2\tb\t5\n1\tc\t5\tweb_search\n");
    assert_eq!(
        e.to_string(),
        "t.tsv:4:1: call 1: kind `web_search` differs from `tool` on line 2; the lines of one call must agree on kind"
    );
}

#[test]
fn calls_out_of_order_with_adjacent_lines_are_sorted() {
    let c = calls("3\tc\t1\n1\ta\t1\n1\tb\t1\n2\td\t1\n");
    assert_eq!(
        summary(&c),
        vec![("1", "a+b", 2.0), ("2", "d", 1.0), ("3", "c", 1.0)]
    );
}

#[test]
fn text_that_is_not_utf8_is_located() {
    let bytes = b"1\ta\t5\n2\t\xff\t5\n".to_vec();
    let e: Vec<_> = TsvReader::new(&bytes[..], "t.tsv".into()).collect();
    let Some(Err(e)) = e.last() else {
        panic!("expected an error")
    };
    assert_eq!(
        e.to_string(),
        "t.tsv:2:3: is not UTF-8 text (save it as UTF-8)"
    );
}

/// A reader that hands out a few bytes at a time, so lines cross every buffer refill.
pub(super) struct Trickle<'a>(pub(super) &'a [u8], pub(super) usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.1.min(buf.len()).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn lines_are_the_same_however_the_bytes_arrive() {
    let long_label = "x".repeat(600_000); // longer than the buffer
    let text = format!("1\ta\t1\n2\t{long_label}\t2\n2\tb\t3\n3\tc\t4");
    let whole = calls(&text);
    for step in [1, 7, 4096] {
        let trickled: Vec<Call> = TsvReader::new(Trickle(text.as_bytes(), step), "t".into())
            .map(|c| c.unwrap().call)
            .collect();
        let mut whole = whole.clone();
        for c in &mut whole {
            c.segment = 0; // assigned after ordering, not by the reader
        }
        assert_eq!(trickled, whole, "step {step}");
    }
    assert_eq!(whole[1].label.len(), 600_002);
}

fn all(trace: &Trace) -> Vec<Call> {
    let mut calls = trace.calls().unwrap();
    let mut all = Vec::new();
    let mut call = TsvCall::default().call;
    while calls.next_into(&mut call).unwrap() {
        all.push(call.clone());
    }
    all
}

#[test]
fn a_trace_streams_when_in_order_and_is_held_sorted_when_not() {
    let dir = tempfile::tempdir().unwrap();
    let in_order = dir.path().join("a.tsv");
    std::fs::write(&in_order, "1\ta\t5\n2\tb\t6\n2\tc\t1\n").unwrap();
    let trace = Trace::open(&in_order).unwrap();
    assert_eq!(trace, Trace::InOrder(in_order.clone()));
    assert_eq!(all(&trace), read_tsv(&in_order).unwrap().to_vec());

    let shuffled = dir.path().join("b.tsv");
    std::fs::write(&shuffled, "2\tb\t6\n1\ta\t5\n").unwrap();
    let trace = Trace::open(&shuffled).unwrap();
    assert!(matches!(trace, Trace::Sorted(_)));
    let ids: Vec<_> = all(&trace).into_iter().map(|c| c.id).collect();
    assert_eq!(ids, ["1", "2"]);

    // A bad line at the end is found before any call is handed out.
    let bad = dir.path().join("c.tsv");
    std::fs::write(&bad, "1\ta\t5\n2\tb\tx\n").unwrap();
    assert!(
        Trace::open(&bad)
            .unwrap_err()
            .to_string()
            .contains("c.tsv:2:5:")
    );
    let empty = dir.path().join("d.tsv");
    std::fs::write(&empty, "# nothing\n").unwrap();
    assert!(
        Trace::open(&empty)
            .unwrap_err()
            .to_string()
            .contains("no calls")
    );
}

/// A `#` line that names columns but is not a header (capitals, spaces for tabs, another
/// order) is named when a later line fails; a plain comment is not.
#[test]
fn a_header_not_read_as_one_is_named_when_a_line_fails() {
    for header in [
        "# Number\tLabel\tBytes\tTokens",
        "# number label bytes tokens",
    ] {
        let e = error(&format!("{header}\n1\ta\t10\t5\n"));
        assert_eq!(e.line_column, Some((2, 8)), "{header}");
        assert!(
            e.message.ends_with("found 4 (line 1 names columns but is not read as a header: write it as `# number<TAB>label<TAB>bytes…`, the names in lowercase, separated by tabs, `number` first)"),
            "{header}: {}",
            e.message
        );
    }
    let plain = error("# a trace of 2 calls\n1\ta\t10\t5\n");
    assert!(
        !plain.message.contains("names columns"),
        "{}",
        plain.message
    );
}
