//! The reader's choices where the telemetry leaves room, one session at a time.

use super::*;
use crate::import::trace::Trace;
use serde_json::{Value, json};

/// A record of session `s`: event `name` at `seq`, with `attrs` as string values.
fn rec(s: &str, seq: u64, name: &str, attrs: &[(&str, &str)]) -> Value {
    let mut a = vec![
        json!({"key": "event.name", "value": {"stringValue": name}}),
        json!({"key": "event.sequence", "value": {"intValue": seq.to_string()}}),
    ];
    if !s.is_empty() {
        a.push(json!({"key": "session.id", "value": {"stringValue": s}}));
    }
    for (k, v) in attrs {
        a.push(json!({"key": k, "value": {"stringValue": v}}));
    }
    json!({"attributes": a})
}

fn request(s: &str, seq: u64, id: &str, extra: &[(&str, &str)]) -> Value {
    let mut attrs = vec![
        ("request_id", id),
        ("input_tokens", "1"),
        ("output_tokens", "2"),
        ("cache_read_tokens", "3"),
        ("cache_creation_tokens", "4"),
    ];
    attrs.extend_from_slice(extra);
    rec(s, seq, "api_request", &attrs)
}

fn tool(s: &str, seq: u64, name: &str, id: &str, size: &str) -> Value {
    rec(
        s,
        seq,
        "tool_result",
        &[
            ("tool_name", name),
            ("tool_use_id", id),
            ("tool_result_size_bytes", size),
        ],
    )
}

/// The traces of one file holding `records`, one export line each.
fn traces(records: Vec<Value>) -> Vec<Trace> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json");
    let lines: Vec<String> = records
        .into_iter()
        .map(|r| json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [r]}]}]}).to_string())
        .collect();
    std::fs::write(&path, lines.join("\n")).unwrap();
    let file = SourceFile {
        canonical: path.clone(),
        path,
    };
    crate::import::load(&Otel, &[file])
        .unwrap()
        .assembled
        .traces
}

#[test]
fn a_subagents_requests_and_results_are_not_the_conversations() {
    let t = traces(vec![
        request("s", 1, "r1", &[("query_source", "repl_main_thread")]),
        request("s", 2, "a1", &[("query_source", "agent:builtin:Explore")]),
        tool("s", 3, "Read", "t-sub", "5000"),
        tool("s", 4, "Agent", "t-agent", "300"),
        request(
            "s",
            5,
            "r2",
            &[("query_source", "repl_main_thread:outputStyle:x")],
        ),
        tool("s", 6, "Read", "t-main", "70"),
        request("s", 7, "aux", &[("query_source", "generate_session_title")]),
        request("s", 8, "r3", &[("query_source", "sdk")]),
    ]);
    assert_eq!(t.len(), 1);
    let ids: Vec<&str> = t[0].calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["r1", "r2", "r3"]);
    let bytes: Vec<u64> = t[0].calls.iter().map(|c| c.bytes).collect();
    assert_eq!(bytes, [300, 70, 0]);
    assert_eq!(t[0].calls[0].tool.as_deref(), Some("Agent"));
}

#[test]
fn prompts_start_segments_even_when_their_event_is_missing() {
    let t = traces(vec![
        rec(
            "s",
            1,
            "user_prompt",
            &[("prompt.id", "p1"), ("prompt_length", "10")],
        ),
        request("s", 2, "r1", &[("prompt.id", "p1")]),
        rec(
            "s",
            3,
            "user_prompt",
            &[
                ("prompt.id", "p2"),
                ("prompt_length", "20"),
                ("prompt", "fix the bug"),
            ],
        ),
        request("s", 4, "r2", &[("prompt.id", "p2")]),
        // p3's user_prompt never arrived: a new prompt.id starts a segment all the same.
        request("s", 5, "r3", &[("prompt.id", "p3")]),
        request("s", 6, "r4", &[("prompt.id", "p3")]),
    ]);
    let c = &t[0].calls;
    let segments: Vec<u64> = c.iter().map(|c| c.segment).collect();
    assert_eq!(segments, [1, 2, 3, 3]);
    assert_eq!(c[0].label, "prompt: fix the bug");
    assert_eq!(c[0].bytes, 20);
    assert_eq!(c[1].label, "prompt: (no user_prompt event)");
    assert_eq!(c[1].bytes, 0);
}

#[test]
fn a_failed_compaction_keeps_the_trace_and_a_good_one_ends_it() {
    let t = traces(vec![
        request("s", 1, "r1", &[]),
        rec(
            "s",
            2,
            "compaction",
            &[("success", "false"), ("trigger", "auto")],
        ),
        request("s", 3, "r2", &[]),
        rec(
            "s",
            4,
            "compaction",
            &[
                ("success", "true"),
                ("trigger", "auto"),
                ("pre_tokens", "900"),
                ("post_tokens", "80"),
            ],
        ),
        request("s", 5, "r3", &[]),
    ]);
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].calls.len(), 2);
    let c = t[1].compaction.as_ref().unwrap();
    assert_eq!(
        (c.trigger.as_deref(), c.pre_tokens, c.post_tokens),
        (Some("auto"), Some(900), Some(80))
    );
}

#[test]
fn order_is_by_sequence_then_time_and_records_without_a_session_form_one_trace() {
    let t = traces(vec![
        request("s", 3, "third", &[]),
        request("s", 1, "first", &[]),
        tool("s", 2, "Bash", "t1", "11"),
        request("", 1, "x", &[]),
        request("", 2, "y", &[]),
    ]);
    assert_eq!(t.len(), 2);
    let ids: Vec<&str> = t[0].calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["first", "third"]);
    assert_eq!(t[0].calls[0].bytes, 11);
    assert_eq!(t[1].session_id, None);
    assert_eq!(t[1].calls.len(), 2);
}

#[test]
fn an_image_read_counts_as_an_image_not_its_base64() {
    let t = traces(vec![
        request("s", 1, "r1", &[]),
        rec(
            "s",
            2,
            "tool_result",
            &[
                ("tool_name", "Read"),
                ("tool_use_id", "t1"),
                ("tool_result_size_bytes", "681000"),
                ("tool_input", r#"{"file_path":"/tmp/shot.PNG"}"#),
            ],
        ),
        request("s", 3, "r2", &[]),
    ]);
    let c = &t[0].calls[0];
    assert_eq!((c.bytes, c.images), (0, 1));
    assert_eq!(c.label, "Read: /tmp/shot.PNG [+1 image ≈1600 est. tokens]");
}

/// One file of `records` (one export line each), read as `import` reads it, into `dir`.
fn stored(dir: &std::path::Path, records: Vec<Value>) -> (Vec<SourceFile>, Vec<Stored>) {
    let path = dir.join("t.json");
    let lines: Vec<String> = records
        .into_iter()
        .map(|r| json!({"resourceLogs": [{"scopeLogs": [{"logRecords": [r]}]}]}).to_string())
        .collect();
    std::fs::write(&path, lines.join("\n")).unwrap();
    let files = vec![SourceFile {
        canonical: path.clone(),
        path,
    }];
    let (stored, _) = Otel.read_all(&files, None).unwrap();
    (files, stored)
}

/// What the files assemble to, part by part where the reader said so, and whole.
fn both_ways(
    records: Vec<Value>,
) -> (
    bool,
    crate::import::assemble::Assembled,
    crate::import::assemble::Assembled,
) {
    use crate::import::stream;
    let dir = tempfile::tempdir().unwrap();
    let (_, parts) = stored(dir.path(), records.clone());
    let independent = parts.iter().all(Stored::independent);
    let convention = Otel.convention();
    let mut by_parts = Vec::new();
    let mut a = stream::assemble(parts, None, convention, |t| by_parts.push(t)).unwrap();
    a.traces = by_parts;
    let (_, whole) = stored(dir.path(), records);
    let whole: Vec<Stored> = whole
        .into_iter()
        .map(|s| stream::store(s.into_log(None).unwrap(), None))
        .collect();
    assert!(whole.iter().all(|s| !s.independent()));
    let mut traces = Vec::new();
    let mut b = stream::assemble(whole, None, convention, |t| traces.push(t)).unwrap();
    b.traces = traces;
    (independent, a, b)
}

/// Sessions interleaved in one file, assembled one session at a time, give what the
/// file assembled whole gives; a request id two sessions share (a copy joins the first
/// session's call) makes the file assembled whole.
#[test]
fn sessions_assembled_apart_give_what_the_whole_file_gives() {
    let interleaved = vec![
        rec("a", 1, "user_prompt", &[("prompt_length", "5")]),
        rec("b", 1, "user_prompt", &[("prompt_length", "9")]),
        request("a", 2, "ra1", &[]),
        request("b", 2, "rb1", &[]),
        tool("a", 3, "Read", "ta1", "100"),
        tool("b", 3, "Bash", "tb1", "40"),
        request("b", 4, "rb2", &[]),
        request("a", 4, "ra2", &[]),
        json!({"attributes": "odd"}),
        rec("c", 1, "compaction", &[("pre_tokens", "9000")]),
        request("c", 2, "rc1", &[]),
    ];
    let (independent, parts, whole) = both_ways(interleaved.clone());
    assert!(independent);
    assert_eq!(parts.traces.len(), 3);
    assert_eq!(parts, whole);

    let mut shared = interleaved;
    shared.push(request("c", 3, "ra1", &[]));
    let (independent, parts, whole) = both_ways(shared);
    assert!(!independent);
    assert_eq!(parts, whole);
    let a = whole
        .traces
        .iter()
        .find(|t| t.session_id.as_deref() == Some("a"));
    assert_eq!(a.unwrap().duplicates_removed, 1);
}
