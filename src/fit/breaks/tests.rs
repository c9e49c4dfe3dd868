//! A synthetic trace with a known break of every class: exact classes and prices.

use super::*;
use crate::scenario::load_str;
use std::fmt::Write;
use std::path::Path;

/// `(gap_s, total input, cache read, model, cache_event)` per request; B = 10,000, a
/// 300 s cache at read 0.1 and write 1.25, Sonnet's $3 input price.
fn trace(head: &str, requests: &[(f64, f64, f64, &str, &str)]) -> Scenario {
    load_str(&trace_text(head, requests), Path::new("b.toml")).unwrap()
}

/// The scenario text of [`trace`].
fn trace_text(head: &str, requests: &[(f64, f64, f64, &str, &str)]) -> String {
    let mut text = format!(
        "name = \"b\"\nbase_tokens = 10000\nbytes_per_token = 1\n{head}[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n[price]\ninput = 3\noutput = 15\nsource = \"test\"\nmodel = \"claude-sonnet-4-5\"\n"
    );
    for (i, (gap, total, read, model, event)) in requests.iter().enumerate() {
        let event = if event.is_empty() {
            String::new()
        } else {
            format!("cache_event = \"{event}\"\n")
        };
        let _ = write!(
            text,
            "[[call]]\nlabel = \"c{}\"\nbytes = 100\ngap_s = {gap}\n[call.measured]\ninput_tokens = 0\ncache_creation_input_tokens = {}\ncache_read_input_tokens = {read}\nmodel = \"{model}\"\nconvention = \"anthropic\"\n{event}",
            i + 1,
            total - read
        );
        // `# 1h` in the head: every write is logged as a 1-hour write.
        if head.contains("# 1h") {
            let _ = writeln!(text, "cache_creation_1h_input_tokens = {}", total - read);
        }
    }
    text
}

const S: &str = "claude-sonnet-4-5";
const H: &str = "claude-haiku-4-5";

#[test]
fn every_class_is_found_and_priced_exactly() {
    let s = trace(
        "",
        &[
            (0.0, 10_000.0, 4_000.0, S, ""),        // 1: cold, 6,000 short of B
            (10.0, 12_000.0, 10_000.0, S, ""),      // 2: a hit
            (400.0, 14_000.0, 4_000.0, S, ""),      // 3: ttl, 8,000 short of 12,000
            (10.0, 16_000.0, 0.0, H, ""),           // 4: model, 14,000
            (10.0, 18_000.0, 0.0, S, ""),           // 5: model, 16,000
            (10.0, 20_000.0, 18_000.0, S, ""),      // 6: a hit
            (10.0, 15_000.0, 9_000.0, S, ""),       // 7: edit (input fell), 6,000 of 15,000
            (10.0, 17_000.0, 5_000.0, S, "tools"),  // 8: tools, 10,000
            (10.0, 19_000.0, 9_000.0, S, "resume"), // 9: resume, 8,000
            (10.0, 21_000.0, 14_500.0, S, ""),      // 10: unexplained, 4,500
            (10.0, 22_000.0, 20_500.0, S, ""),      // 11: 500 short: not a break
        ],
    );
    let b = breaks(&s, 300.0, 10_000.0).unwrap();
    let got: Vec<(usize, &str, f64)> = b
        .breaks
        .iter()
        .map(|b| (b.call, b.class.key(), b.written_tokens))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "cold", 6_000.0),
            (3, "ttl", 8_000.0),
            (4, "model", 14_000.0),
            (5, "model", 16_000.0),
            (7, "edit", 6_000.0),
            (8, "tools", 10_000.0),
            (9, "resume", 8_000.0),
            (10, "unexplained", 4_500.0),
        ]
    );
    assert_eq!((b.small, b.small_tokens), (1, 500.0));
    assert_eq!(b.requests, 11);
    // Priced at write − read = 1.15 of the model's input price: Sonnet's $3 (the
    // scenario's [price]), Haiku 4.5's $1 with its own 0.1 and 1.25 (its list price).
    let usd: Vec<f64> = b.breaks.iter().map(|b| b.usd.unwrap()).collect();
    let want = [
        6_000.0 * 1.15 * 3.0,
        8_000.0 * 1.15 * 3.0,
        14_000.0 * 1.15 * 1.0,
        16_000.0 * 1.15 * 3.0,
        6_000.0 * 1.15 * 3.0,
        10_000.0 * 1.15 * 3.0,
        8_000.0 * 1.15 * 3.0,
        4_500.0 * 1.15 * 3.0,
    ];
    for (g, w) in usd.iter().zip(want) {
        assert!((g - w / 1e6).abs() < 1e-12, "{usd:?}");
    }
    let sum = |c: BreakClass| b.by_class.iter().find(|(k, _)| *k == c).unwrap().1;
    assert_eq!(sum(BreakClass::Model).count, 2);
    assert_eq!(sum(BreakClass::Model).written_tokens, 30_000.0);
    assert!((sum(BreakClass::Model).usd - (14_000.0 * 1.15 + 16_000.0 * 3.45) / 1e6).abs() < 1e-12);
    assert_eq!(sum(BreakClass::Compaction).count, 0);
    assert_eq!(b.total().written_tokens, 72_500.0);
    assert_eq!(b.largest(2)[0].call, 5);
    assert_eq!(b.largest(2)[1].call, 4);
}

#[test]
fn a_trace_after_a_compaction_or_a_reset_starts_with_that_break() {
    let requests = [
        (0.0, 12_000.0, 3_000.0, S, ""),
        (10.0, 14_000.0, 12_000.0, S, ""),
        (10.0, 16_000.0, 2_000.0, S, "compaction"),
    ];
    let head =
        "[import]\nformat = \"claude-code\"\nfile = \"x.jsonl\"\ntrace = \"after-compaction\"\n";
    let b = breaks(&trace(head, &requests), 300.0, 10_000.0).unwrap();
    let got: Vec<(&str, f64)> = b
        .breaks
        .iter()
        .map(|b| (b.class.key(), b.written_tokens))
        .collect();
    assert_eq!(got, vec![("compaction", 7_000.0), ("compaction", 12_000.0)]);
    let head = head.replace("after-compaction", "after-reset");
    let b = breaks(&trace(&head, &requests[..1]), 300.0, 10_000.0).unwrap();
    assert_eq!(b.breaks[0].class, BreakClass::Edit);
}

#[test]
fn a_trace_with_one_hour_writes_is_not_expired_by_a_longer_pause() {
    // 1-hour writes logged: a 1,000 s pause is within what the provider honours.
    let requests = [
        (0.0, 10_000.0, 10_000.0, S, ""),
        (10.0, 12_000.0, 10_000.0, S, ""),
        (1_000.0, 14_000.0, 4_000.0, S, ""),
        (4_000.0, 16_000.0, 4_000.0, S, ""),
    ];
    let b = breaks(&trace("", &requests), 300.0, 10_000.0).unwrap();
    assert_eq!(b.breaks[0].class, BreakClass::Ttl);
    let b = breaks(&trace("# 1h\n", &requests), 300.0, 10_000.0).unwrap();
    let got: Vec<(usize, BreakClass)> = b.breaks.iter().map(|b| (b.call, b.class)).collect();
    assert_eq!(
        got,
        vec![(3, BreakClass::Unexplained), (4, BreakClass::Ttl)]
    );
}

#[test]
fn an_unknown_cache_event_is_an_error_naming_the_values() {
    let text = "name = \"b\"\nbase_tokens = 1\nbytes_per_token = 1\n[[call]]\nlabel = \"a\"\nbytes = 1\n[call.measured]\ninput_tokens = 1\nconvention = \"anthropic\"\ncache_event = \"mcp\"\n";
    let e = load_str(text, Path::new("b.toml")).unwrap_err().to_string();
    assert!(
        e.contains("unknown cache event \"mcp\": use one of tools, resume, edit, compaction"),
        "{e}"
    );
}

#[test]
fn the_provider_serving_an_older_prefix_or_none_is_its_own_class() {
    // Bedrock's shape on the shared logs: the cache points (read + written) are 20,000,
    // 22,000, 24,000, 26,000, …; request 4 reads request 2's point exactly, request 5 reads
    // nothing while request 6 reads request 3's 24,000 (still held, and 5 wrote none of
    // it), request 8 reads 10,500 (no point of the log: unexplained).
    let s = trace(
        "",
        &[
            (0.0, 20_000.0, 10_000.0, S, ""), // 1: cold, B 10,000 read: no break
            (10.0, 22_000.0, 20_000.0, S, ""), // 2: a hit
            (10.0, 24_000.0, 22_000.0, S, ""), // 3: a hit
            (10.0, 26_000.0, 22_000.0, S, ""), // 4: provider (older point), 2,000
            (10.0, 28_000.0, 0.0, S, ""),     // 5: provider (held), 26,000
            (10.0, 30_000.0, 24_000.0, S, ""), // 6: provider (older point), 4,000
            (10.0, 32_000.0, 30_000.0, S, ""), // 7: a hit
            (10.0, 34_000.0, 10_500.0, S, ""), // 8: unexplained, 21,500
        ],
    );
    let b = breaks(&s, 300.0, 10_000.0).unwrap();
    let got: Vec<(usize, &str, f64)> = b
        .breaks
        .iter()
        .map(|b| (b.call, b.class.key(), b.written_tokens))
        .collect();
    assert_eq!(
        got,
        vec![
            (4, "provider", 2_000.0),
            (5, "provider", 26_000.0),
            (6, "provider", 4_000.0),
            (8, "unexplained", 21_500.0),
        ]
    );
}

/// `trace` with each call's segment: a user prompt joined before the calls of a new one.
fn with_segments(requests: &[(f64, f64, f64, &str, &str)], segments: &[u64]) -> Scenario {
    let mut text = trace_text("", requests);
    for (i, seg) in segments.iter().enumerate() {
        text = text.replacen(
            &format!("label = \"c{}\"\n", i + 1),
            &format!("label = \"c{}\"\nsegment = {seg}\n", i + 1),
            1,
        );
    }
    load_str(&text, Path::new("b.toml")).unwrap()
}

#[test]
fn a_read_of_nothing_mid_turn_is_the_providers_and_at_a_prompt_unexplained() {
    // Request 3 reads nothing 10 s after request 2 read 20,000, with only a tool result
    // joined between them (same segment): the start every request shares was cached, so
    // the request reached a cache that held none of it: provider, 22,000 written. Request
    // 5 reads nothing too, but a user prompt joined before it (a new segment), where the
    // client may rewrite the conversation: unexplained, 26,000.
    let requests = [
        (0.0, 20_000.0, 10_000.0, S, ""),
        (10.0, 22_000.0, 20_000.0, S, ""),
        (10.0, 24_000.0, 0.0, S, ""),
        (10.0, 26_000.0, 24_000.0, S, ""),
        (10.0, 28_000.0, 0.0, S, ""),
    ];
    let s = with_segments(&requests, &[1, 1, 1, 1, 2]);
    let b = breaks(&s, 300.0, 10_000.0).unwrap();
    let got: Vec<(usize, &str, f64, f64)> = b
        .breaks
        .iter()
        .map(|b| (b.call, b.class.key(), b.written_tokens, b.cost_input_tokens))
        .collect();
    // Priced at write − read = 1.25 − 0.1: 22,000 × 1.15 ≈ 25,300; 26,000 × 1.15 ≈ 29,900.
    assert_eq!(
        got,
        vec![
            (3, "provider", 22_000.0, 22_000.0 * (1.25 - 0.1)),
            (5, "unexplained", 26_000.0, 26_000.0 * (1.25 - 0.1)),
        ]
    );
    // Where no earlier request shows a cache point over 1,024 tokens (the first was billed
    // as plain input: nothing written, nothing read), nothing proves the provider held a
    // prefix: request 2's read of nothing stays unexplained, as request 3's read of 500.
    let call = |label: &str, gap: u32, input: u32, read: u32| {
        format!(
            "[[call]]\nlabel = \"{label}\"\nbytes = 1\ngap_s = {gap}\n[call.measured]\ninput_tokens = {input}\ncache_read_input_tokens = {read}\ncache_creation_input_tokens = 0\nconvention = \"anthropic\"\n"
        )
    };
    let text = format!(
        "name = \"p\"\nbase_tokens = 1000\nbytes_per_token = 1\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n{}{}{}",
        call("a", 0, 20_000, 0),
        call("b", 5, 22_000, 0),
        call("c", 5, 23_500, 500)
    );
    let s = load_str(&text, Path::new("p.toml")).unwrap();
    let got: Vec<(usize, &str, f64)> = breaks(&s, 300.0, 0.0)
        .unwrap()
        .breaks
        .iter()
        .map(|b| (b.call, b.class.key(), b.written_tokens))
        .collect();
    assert_eq!(
        got,
        vec![(2, "unexplained", 20_000.0), (3, "unexplained", 21_500.0)]
    );
}

#[test]
fn an_openai_read_short_by_less_than_a_128_token_block_is_no_shortfall() {
    // OpenAI's convention: input_tokens includes the cached ones; hits come in 128-token
    // blocks, so 20,352 of a 20,419-token prefix is everything a perfect cache reads.
    let text = "name = \"o\"\nbase_tokens = 1000\nbytes_per_token = 1\n[cache]\nread = 0.1\nwrite = 1\nttl_s = 300\nmin_tokens = 1024\n[[call]]\nlabel = \"a\"\nbytes = 1\n[call.measured]\ninput_tokens = 20419\ncache_read_input_tokens = 0\nconvention = \"openai\"\n[[call]]\nlabel = \"b\"\nbytes = 1\ngap_s = 5\n[call.measured]\ninput_tokens = 20745\ncache_read_input_tokens = 20352\nconvention = \"openai\"\n";
    let s = load_str(text, Path::new("o.toml")).unwrap();
    let b = breaks(&s, 300.0, 0.0).unwrap();
    assert!(b.breaks.is_empty());
    assert_eq!((b.small, b.small_tokens), (0, 0.0));
}

#[test]
fn loaded_tool_definitions_and_any_fall_of_the_input_are_named() {
    // Request 3 follows a call whose result loaded tool definitions (`loaded_tools`):
    // tools. Request 5's input fell by 300 tokens, under the 1,024 of a break: an append
    // never shrinks the input, so something before its end was removed: edit.
    let mut text = String::from(
        "name = \"t\"\nbase_tokens = 10000\nbytes_per_token = 1\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n[terms]\ntokens_per_loaded_tool = 500\n",
    );
    let calls = [
        (10_000.0, 10_000.0, 0),
        (12_000.0, 10_000.0, 2),
        (14_000.0, 0.0, 0),
        (16_000.0, 14_000.0, 0),
        (15_700.0, 9_000.0, 0),
        (16_000.0, 15_700.0, 0),
    ];
    for (i, (total, read, loaded)) in calls.iter().enumerate() {
        let _ = write!(
            text,
            "[[call]]\nlabel = \"c{}\"\nbytes = 1\ngap_s = 5\nloaded_tools = {loaded}\n[call.measured]\ninput_tokens = 0\ncache_creation_input_tokens = {}\ncache_read_input_tokens = {read}\nconvention = \"anthropic\"\n",
            i + 1,
            total - read
        );
    }
    let s = load_str(&text, Path::new("t.toml")).unwrap();
    let b = breaks(&s, 300.0, 10_000.0).unwrap();
    let got: Vec<(usize, &str, f64)> = b
        .breaks
        .iter()
        .map(|b| (b.call, b.class.key(), b.written_tokens))
        .collect();
    assert_eq!(got, vec![(3, "tools", 12_000.0), (5, "edit", 6_700.0)]);
}
