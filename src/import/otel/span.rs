//! One span (an OTLP/JSON traces export) → a record, like a log record's: Claude Code's
//! own trace spans and any emitter's OpenTelemetry GenAI spans.
//!
//! - Claude Code (`claude_code.llm_request`, `claude_code.tool`, `claude_code.interaction`;
//!   its monitoring page, "Traces (beta)"): flat usage attributes in the Messages API's
//!   convention, `agent_id` on a subagent's spans, `tool_use_id`, and with
//!   `OTEL_LOG_TOOL_CONTENT=1` a `tool.output` event holding the tool's input and output.
//! - GenAI spans (OpenTelemetry's GenAI semantic conventions): an inference span
//!   (`gen_ai.operation.name` `chat`, `text_completion` or `generate_content`) is a
//!   request, an `execute_tool` span a tool's result. `gen_ai.usage.input_tokens`
//!   includes the cache reads and writes there, so the cache counts are taken out of it to
//!   give the Messages API's `input_tokens` (the reader's convention), unless the emitter
//!   plainly does not include them (an input below its own cache counts).
//!
//! Every name read, with its source: `src/import/README.md`, "OpenTelemetry spans".
//! A span's time is its end (`endTimeUnixNano`): the moment a request's response or a
//! tool's result is complete, as for the matching events; a turn's start for an
//! interaction.

use super::parser::{AnyValue, Attributes, KeyValue, Span};
use super::record::{
    Body, PromptEvent, Read, Record, RequestEvent, Shared, Source, ToolResultEvent,
};
use crate::import::event::Usage;
use crate::import::json::text_input_hash;
use crate::import::label::tool_label;
use compact_str::{CompactString, format_compact};

/// GenAI operations that are one model request.
const INFERENCE: &[&str] = &["chat", "text_completion", "generate_content"];

/// Reads one span of file `file`, line `line`, the `place`-th record of the line.
pub fn read(s: &Span<'_>, resource: &[KeyValue<'_>], file: usize, line: u64, place: u32) -> Read {
    let a = Attributes {
        own: &s.attributes,
        resource,
    };
    let name = s.name.as_deref().unwrap_or("").trim();
    let operation = a.text("gen_ai.operation.name");
    let end = super::record::nanos(s.end_time_unix_nano)
        .or_else(|| super::record::nanos(s.start_time_unix_nano));
    let mut time = end;
    let body = match (name, operation.as_deref()) {
        ("claude_code.llm_request", _) => claude_request(&a),
        ("claude_code.tool", _) => claude_tool(&a, s),
        ("claude_code.interaction", _) => {
            time = super::record::nanos(s.start_time_unix_nano).or(end);
            Ok(Body::Prompt(PromptEvent {
                length: a.count("user_prompt_length").ok().flatten(),
                snippet: a
                    .text("user_prompt")
                    .filter(|p| p.as_ref() != "<REDACTED>")
                    .map_or_else(
                        || "(text not logged)".to_string(),
                        |p| crate::import::json::snippet(&p),
                    ),
                slash_command: false,
            }))
        }
        (n, _) if n.starts_with("claude_code.") => {
            return Read::Skipped {
                kind: format!("span {n}"),
                known: true,
            };
        }
        (_, Some(op)) if INFERENCE.contains(&op) => genai_request(&a),
        (_, Some("execute_tool")) => genai_tool(&a),
        (_, Some(op)) => {
            return Read::Skipped {
                kind: format!("span gen_ai.operation.name {op} (no request of its own)"),
                known: true,
            };
        }
        (_, None) => {
            return Read::Skipped {
                kind: "span without gen_ai.operation.name (not a GenAI span)".into(),
                known: false,
            };
        }
    };
    let owned = |key: &str| {
        a.get_or_resource(key)
            .and_then(AnyValue::text)
            .filter(|t| !t.is_empty())
            .map(|t| CompactString::from(t.as_ref()))
    };
    let trace = s.trace_id.as_deref().filter(|t| !t.is_empty());
    let session = owned("session.id")
        .or_else(|| owned("gen_ai.conversation.id"))
        .or_else(|| trace.map(|t| format_compact!("trace:{t}")))
        .unwrap_or_default();
    Read::Record(Box::new(Record {
        session,
        file,
        line,
        place,
        sequence: None,
        time,
        prompt_id: owned("prompt.id"),
        user_id: owned("user.id").map(|s| Shared::from(s.as_str())),
        organization_id: owned("organization.id").map(|s| Shared::from(s.as_str())),
        account_uuid: owned("user.account_uuid").map(|s| Shared::from(s.as_str())),
        team: super::record::team(&a),
        agent_id: a.text("agent_id").map(|t| CompactString::from(t.as_ref())),
        span_id: s
            .span_id
            .as_deref()
            .filter(|t| !t.is_empty())
            .map(CompactString::from),
        from_span: true,
        body: match body {
            Ok(b) => b,
            Err(why) => Body::Unreadable(format!("span {name}: {why}")),
        },
    }))
}

/// A count given under one of `keys`, the first that is there.
fn first_count(a: &Attributes<'_, '_>, keys: &[&str]) -> Result<Option<u64>, String> {
    for k in keys {
        if let Some(n) = a.count(k)? {
            return Ok(Some(n));
        }
    }
    Ok(None)
}

/// `claude_code.llm_request`: flat counts in the Messages API's convention.
fn claude_request(a: &Attributes<'_, '_>) -> Result<Body, String> {
    let required = |key: &str| a.count(key)?.ok_or_else(|| format!("no `{key}`"));
    let usage = Usage {
        input_tokens: required("input_tokens")?,
        output_tokens: required("output_tokens")?,
        cache_creation_input_tokens: Some(a.count("cache_creation_tokens")?.unwrap_or(0)),
        cache_creation_1h_input_tokens: None,
        cache_read_input_tokens: a.count("cache_read_tokens")?.unwrap_or(0),
        cost_usd: None,
    };
    let source = match a.text("query_source") {
        Some(q)
            if !(q == "sdk" || q.starts_with("repl_main_thread"))
                && a.get("agent_id").is_none() =>
        {
            Source::Other(q.as_ref().into())
        }
        _ => Source::Main,
    };
    Ok(Body::Request(Box::new(RequestEvent {
        request_id: a
            .text("request_id")
            .or_else(|| a.text("gen_ai.response.id"))
            .map(|t| t.as_ref().into()),
        model: a
            .text("model")
            .or_else(|| a.text("gen_ai.request.model"))
            .map(|t| t.as_ref().into()),
        usage,
        source,
    })))
}

/// `claude_code.tool`: the tool, its use id, and its output's size where
/// `OTEL_LOG_TOOL_CONTENT=1` logged it (a `tool.output` event).
fn claude_tool(a: &Attributes<'_, '_>, s: &Span<'_>) -> Result<Body, String> {
    let name = a
        .text("tool_name")
        .map_or_else(|| "tool".to_string(), |t| t.into_owned());
    let param = |key: &str| a.text(key).map(|t| t.into_owned());
    let argument = match name.as_str() {
        "Bash" | "WorkspaceBash" | "PowerShell" => param("full_command"),
        "Skill" => param("skill_name"),
        "Agent" | "Task" => param("subagent_type"),
        _ => param("file_path"),
    };
    let (mut input, mut output) = (None, None);
    for e in s
        .events
        .iter()
        .filter(|e| e.name.as_deref() == Some("tool.output"))
    {
        for kv in &e.attributes {
            let Some(v) = &kv.value else { continue };
            let key = kv.key.to_ascii_lowercase();
            if key.contains("input") {
                input = input.or(v.text().map(|t| t.into_owned()));
            } else if key.contains("output") || key.contains("result") || key.contains("content") {
                output = output.or(v.text_units());
            }
        }
    }
    let image = name == "Read"
        && argument.as_deref().is_some_and(|p| {
            let p = p.to_ascii_lowercase();
            [".png", ".jpg", ".jpeg", ".gif", ".webp"]
                .iter()
                .any(|e| p.ends_with(e))
        });
    Ok(Body::ToolResult(Box::new(ToolResultEvent {
        tool_use_id: a
            .text("tool_use_id")
            .or_else(|| a.text("gen_ai.tool.call.id"))
            .map(|t| t.as_ref().into()),
        label: tool_label(&name, argument.as_deref()),
        input_hash: input.as_deref().map(|t| text_input_hash(&name, t)),
        size: output,
        input_size: input.as_deref().map(|t| t.encode_utf16().count() as u64),
        error_bytes: None,
        image,
        web: matches!(name.as_str(), "WebSearch" | "WebFetch"),
        name: name.into(),
    })))
}

/// A GenAI inference span: its usage, with the cache taken out of the input.
fn genai_request(a: &Attributes<'_, '_>) -> Result<Body, String> {
    let input = first_count(
        a,
        &["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"],
    )?
    .ok_or("no `gen_ai.usage.input_tokens`")?;
    let output = first_count(
        a,
        &[
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
        ],
    )?
    .ok_or("no `gen_ai.usage.output_tokens`")?;
    let read = first_count(
        a,
        &[
            "gen_ai.usage.cache_read.input_tokens",
            "gen_ai.usage.cache_read_input_tokens",
        ],
    )?
    .unwrap_or(0);
    let written = first_count(
        a,
        &[
            "gen_ai.usage.cache_write.input_tokens",
            "gen_ai.usage.cache_creation.input_tokens",
            "gen_ai.usage.cache_creation_input_tokens",
        ],
    )?;
    let cached = read.saturating_add(written.unwrap_or(0));
    // The conventions: the input SHOULD include the cache reads and writes. An emitter
    // whose input is below its own cache counts does not: its input is the uncached part.
    let uncached = if input >= cached {
        input - cached
    } else {
        input
    };
    Ok(Body::Request(Box::new(RequestEvent {
        request_id: a.text("gen_ai.response.id").map(|t| t.as_ref().into()),
        model: a
            .text("gen_ai.response.model")
            .or_else(|| a.text("gen_ai.request.model"))
            .map(|t| t.as_ref().into()),
        usage: Usage {
            input_tokens: uncached,
            cache_creation_input_tokens: Some(written.unwrap_or(0)),
            cache_creation_1h_input_tokens: None,
            cache_read_input_tokens: read,
            output_tokens: output,
            cost_usd: None,
        },
        source: Source::Main,
    })))
}

/// A GenAI `execute_tool` span: the tool, its call id, its arguments and (opt-in) result.
fn genai_tool(a: &Attributes<'_, '_>) -> Result<Body, String> {
    let name = a
        .text("gen_ai.tool.name")
        .map_or_else(|| "tool".to_string(), |t| t.into_owned());
    let arguments = a.get("gen_ai.tool.call.arguments");
    let args_text = arguments.and_then(|v| {
        v.text()
            .map(|t| t.into_owned())
            .or_else(|| v.kvlist_value.map(|r| r.get().to_string()))
    });
    let argument = args_text.as_deref().and_then(|t| {
        let v: serde_json::Value = serde_json::from_str(t).ok()?;
        v.get("command")
            .and_then(serde_json::Value::as_str)
            .or_else(|| v.as_object()?.values().find_map(serde_json::Value::as_str))
            .map(str::to_string)
    });
    Ok(Body::ToolResult(Box::new(ToolResultEvent {
        tool_use_id: a.text("gen_ai.tool.call.id").map(|t| t.as_ref().into()),
        label: tool_label(&name, argument.as_deref()),
        input_hash: args_text.as_deref().map(|t| text_input_hash(&name, t)),
        size: a
            .get("gen_ai.tool.call.result")
            .and_then(AnyValue::text_units),
        input_size: arguments.and_then(AnyValue::text_units),
        error_bytes: None,
        image: false,
        web: false,
        name: name.into(),
    })))
}
