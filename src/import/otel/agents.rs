//! What Claude Code's trace spans add to a session: the requests and tool results of
//! each subagent they name (`agent_id`), on a route of its own, and the count of tool
//! spans whose result has no size.

use super::Conversation;
use super::record::{self, Body, Record};
use crate::import::event::{Event, FileLog, Joined, Request, ToolUse};
use compact_str::{CompactString, format_compact};

/// A subagent's request or tool result (its record names the agent), on its own route.
pub(super) fn subagent_event(
    route: usize,
    c: &mut Conversation,
    session: &str,
    r: &Record,
    events: &mut Vec<Event>,
    log: &mut FileLog,
) {
    match &r.body {
        Body::Request(q) => {
            c.requests += 1;
            let id = q.request_id.clone().unwrap_or_else(|| {
                format_compact!("{session}/{}", r.span_id.as_deref().unwrap_or("?"))
            });
            c.latest = Some(events.len());
            events.push(Event::Request(Box::new(Request {
                route,
                line: r.line,
                message_key: id.clone(),
                request_key: None,
                id,
                timestamp: r.time,
                usage: q.usage,
                model: q.model.clone(),
                tool_uses: Vec::new(),
                result_bytes: 0,
                own_blocks: Vec::new(),
                own_sized: false,
                web: false,
            })));
        }
        Body::ToolResult(t) => {
            let id = t.tool_use_id.clone().unwrap_or_else(|| {
                format_compact!("{session}/{}", r.span_id.as_deref().unwrap_or("?"))
            });
            if c.tool_uses.insert(id.clone())
                && let Some(Event::Request(q)) = c.latest.and_then(|i| events.get_mut(i))
            {
                q.tool_uses.push(tool_use(session, &id, t));
            }
            let (bytes, images) = if t.image {
                (0, 1)
            } else {
                (t.size.unwrap_or(0), 0)
            };
            unsized_span(r, t, log);
            events.push(Event::Joined(Joined {
                route,
                bytes,
                images,
                tool_references: 0,
                attachment: false,
                answers: Some(id),
                user_text: None,
                line_id: None,
            }));
        }
        _ => {}
    }
}

/// Counts a tool span whose result has no size: neither its content was logged
/// (`OTEL_LOG_TOOL_CONTENT=1`, or `gen_ai.tool.call.result`) nor a `tool_result` event;
/// it joins as 0, and the count says how many did.
pub(super) fn unsized_span(r: &Record, t: &record::ToolResultEvent, log: &mut FileLog) {
    if r.from_span && t.size.is_none() && !t.image {
        log.skip(
            "tool span without its result's content or event (size unknown, joined as 0)",
            true,
        );
    }
}

/// The tool use a tool result stands for, on the request before it.
pub(super) fn tool_use(session: &str, id: &CompactString, t: &record::ToolResultEvent) -> ToolUse {
    let name_bytes = t.name.len() as u64;
    ToolUse {
        id: id.clone(),
        name: t.name.clone(),
        label: t.label.clone(),
        // Without the logged input, no two uses are taken as the same.
        input_hash: t.input_hash.unwrap_or_else(|| {
            xxhash_rust::xxh3::xxh3_64(format!("otel\0{session}\0{id}").as_bytes())
        }),
        web: t.web,
        input_bytes: t.input_size.map_or(0, |n| n + name_bytes),
    }
}
