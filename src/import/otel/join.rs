//! One session's log records and spans → one record per request and per tool result.
//!
//! A collector that receives Claude Code's events and its trace spans writes both: the
//! same request is an `api_request` event and a `claude_code.llm_request` span, the same
//! tool result a `tool_result` event and a `claude_code.tool` span. They are joined by
//! the request's id (`request_id` on both; `gen_ai.response.id` on the span), else by the
//! span the event was emitted in (the log record's `spanId`); tools by `tool_use_id`. The
//! event is kept (it has the session's `event.sequence`, the prompt and the logged sizes)
//! and takes what only the span knows: the subagent's `agent_id`, and the tool output's
//! size where the event has none. So no request is counted twice, whatever mix of signals
//! a file holds.

use super::record::{Body, Record};
use crate::import::event::FileLog;
use compact_str::CompactString;
use rustc_hash::FxHashMap;

/// Joins the spans of one session's `records` to its log records (see the module), and
/// puts the records in order: by `event.sequence` where every record has one, else by
/// time (spans have no sequence), then where they were read.
pub fn join_and_order(records: &mut Vec<Record>, log: &mut FileLog) {
    let has_logs = records.iter().any(|r| !r.from_span);
    let has_spans = records.iter().any(|r| r.from_span);
    if has_logs && has_spans {
        join(records, log);
    }
    if records.iter().all(|r| r.sequence.is_some()) {
        records.sort_by_key(Record::order);
    } else {
        records.sort_by_key(|r| (r.time, r.file, r.line, r.place));
    }
}

fn join(records: &mut Vec<Record>, log: &mut FileLog) {
    // Where each request and tool result of the logs is, by its keys.
    let mut by_request: FxHashMap<CompactString, usize> = FxHashMap::default();
    let mut by_span: FxHashMap<CompactString, usize> = FxHashMap::default();
    let mut by_tool: FxHashMap<CompactString, usize> = FxHashMap::default();
    let mut prompts = false;
    for (i, r) in records.iter().enumerate().filter(|(_, r)| !r.from_span) {
        match &r.body {
            Body::Request(q) => {
                if let Some(id) = &q.request_id {
                    by_request.insert(id.clone(), i);
                }
                if let Some(s) = &r.span_id {
                    by_span.insert(s.clone(), i);
                }
            }
            Body::ToolResult(t) => {
                if let Some(id) = &t.tool_use_id {
                    by_tool.insert(id.clone(), i);
                }
            }
            Body::Prompt(_) => prompts = true,
            _ => {}
        }
    }
    let mut drop = vec![false; records.len()];
    for i in 0..records.len() {
        if !records[i].from_span {
            continue;
        }
        let agent = records[i].agent_id.clone();
        let target = match &records[i].body {
            Body::Request(q) => q
                .request_id
                .as_ref()
                .and_then(|id| by_request.get(id))
                .or_else(|| records[i].span_id.as_ref().and_then(|s| by_span.get(s)))
                .copied(),
            Body::ToolResult(t) => t
                .tool_use_id
                .as_ref()
                .and_then(|id| by_tool.get(id))
                .copied(),
            // The events' own prompts stand for the turns.
            Body::Prompt(_) if prompts => {
                drop[i] = true;
                log.skip(
                    "span claude_code.interaction (its turn is logged as an event)",
                    true,
                );
                continue;
            }
            _ => None,
        };
        let Some(t) = target else { continue };
        drop[i] = true;
        let size = match &records[i].body {
            Body::ToolResult(s) => s.size,
            _ => None,
        };
        let kept = &mut records[t];
        if kept.agent_id.is_none() {
            kept.agent_id = agent;
        }
        if let Body::ToolResult(k) = &mut kept.body
            && k.size.is_none()
        {
            k.size = size;
        }
        log.skip(
            "span of a request or tool result also logged as an event (joined, counted once)",
            true,
        );
    }
    let mut i = 0;
    records.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}
