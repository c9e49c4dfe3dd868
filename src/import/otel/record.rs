//! A Claude Code event (one OTLP log record) → what the importer keeps of it: its session,
//! its place in the session (`event.sequence`, then time) and the few figures of its kind.
//! Text is never kept, except the start of a prompt for a label where the log holds it.
//!
//! The attribute names and meanings are Claude Code's monitoring page (see
//! `src/import/README.md`, "OpenTelemetry").

use super::parser::{Attributes, LogRecord};
use crate::import::event::{Compaction, Usage};
use crate::import::json::{snippet, text_input_hash};
use crate::import::label::tool_label;
use compact_str::CompactString;
use jiff::Timestamp;
use serde_json::Value;

/// A string many records hold the same of (see [`Record::user_id`]).
pub type Shared = std::sync::Arc<str>;

/// One event, ready to be ordered within its session.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// `session.id`; empty when the record has none, and once gathered into its session
    /// (`Parsed::push` takes it as the session's key: one copy a session, not a record).
    pub session: CompactString,
    /// Which file of the import (an index), line and place in the line: the last resort of
    /// the order, and where a problem is reported.
    pub file: usize,
    pub line: u64,
    pub place: u32,
    pub sequence: Option<u64>,
    pub time: Option<Timestamp>,
    pub prompt_id: Option<CompactString>,
    /// The identity attributes, the same on most records of a file: shared, one copy per
    /// distinct value of a file (`Parsed::push` interns them), not one per record.
    pub user_id: Option<Shared>,
    pub organization_id: Option<Shared>,
    /// `user.account_uuid`: the Claude account, the same on every machine of a person.
    pub account_uuid: Option<Shared>,
    /// The first team attribute the record or its resource carries ([`TEAM_KEYS`]), with
    /// its key.
    pub team: Option<(CompactString, CompactString)>,
    /// The subagent (or teammate) that made the request or ran the tool: Claude Code's
    /// trace spans say (`agent_id`); its events do not.
    pub agent_id: Option<CompactString>,
    /// The span the record is (a span) or was emitted in (a log record), for joining the
    /// two; and whether it came from a span.
    pub span_id: Option<CompactString>,
    pub from_span: bool,
    pub body: Body,
}

/// The resource attributes that name a team, in the order they are looked for: the
/// examples of Claude Code's monitoring page ("Multi-team organization support":
/// `OTEL_RESOURCE_ATTRIBUTES="department=engineering,team.id=platform,cost_center=eng-123"`)
/// and the common spellings beside them.
pub const TEAM_KEYS: &[&str] = &["team.id", "team.name", "team", "department", "cost_center"];

/// The first of [`TEAM_KEYS`] `a` holds (its own, else its resource's), with its key.
pub fn team(a: &Attributes<'_, '_>) -> Option<(CompactString, CompactString)> {
    TEAM_KEYS.iter().find_map(|k| {
        let v = a.get_or_resource(k)?.text().filter(|t| !t.is_empty())?;
        Some((CompactString::from(*k), CompactString::from(v.as_ref())))
    })
}

impl Record {
    /// Where the record sorts in its session: `event.sequence`, then time, then where it
    /// was read (so copies of one event sit side by side).
    pub fn order(&self) -> (Option<u64>, Option<Timestamp>, usize, u64, u32) {
        (self.sequence, self.time, self.file, self.line, self.place)
    }
}

/// What kind of event a record is, with what the importer uses of it.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// `claude_code.api_request`.
    Request(Box<RequestEvent>),
    /// `claude_code.tool_result`.
    ToolResult(Box<ToolResultEvent>),
    /// `claude_code.user_prompt`.
    Prompt(PromptEvent),
    /// `claude_code.compaction`; a failed one (`success = "false"`) replaced nothing.
    Compaction {
        compaction: Compaction,
        failed: bool,
    },
    /// `claude_code.mcp_server_connection` of a server that connected: its tools ride
    /// in every request from then on (a base part, docs/model.md §9).
    McpConnected(String),
    /// An event of a known kind the record cannot be read as, with why.
    Unreadable(String),
}

/// Which part of Claude Code made a request (`query_source`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The conversation itself: `repl_main_thread` (and `repl_main_thread:…`), `sdk`, or no
    /// `query_source` at all (versions before it).
    Main,
    /// A subagent (`agent:…`).
    Subagent,
    /// Anything else: the compaction's own summary request (`compact`), side requests.
    Other(CompactString),
}

#[derive(Debug, Clone, PartialEq)]
pub struct RequestEvent {
    pub request_id: Option<CompactString>,
    pub model: Option<CompactString>,
    pub usage: Usage,
    pub source: Source,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultEvent {
    /// `tool_use_id` (`use_id` in some versions).
    pub tool_use_id: Option<CompactString>,
    /// `tool_name`, or `mcp__<server>__<tool>` where the MCP names are logged.
    pub name: CompactString,
    pub label: String,
    pub input_hash: Option<u64>,
    /// `tool_result_size_bytes`: the length of the result block as sent (UTF-16 code
    /// units); None when not logged (a failed tool).
    pub size: Option<u64>,
    /// `tool_input_size_bytes`.
    pub input_size: Option<u64>,
    /// The error text, where logged (a failed tool's result is its error).
    pub error_bytes: Option<u64>,
    /// A Read of an image file: its result is an image block, whose logged size is the
    /// length of its base64 data, not what it costs.
    pub image: bool,
    pub web: bool,
}

impl ToolResultEvent {
    /// The Agent (formerly Task) tool's result: the subagent's answer to the conversation.
    pub fn ends_a_subagent(&self) -> bool {
        matches!(self.name.as_str(), "Agent" | "Task")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PromptEvent {
    /// `prompt_length`.
    pub length: Option<u64>,
    /// The start of the prompt, or the command, or what stands for them.
    pub snippet: String,
    pub slash_command: bool,
}

/// Claude Code events the importer reads nothing from: counted, as known.
const KNOWN_EVENTS: &[&str] = &[
    "assistant_response",
    "tool_decision",
    "api_error",
    "api_refusal",
    "api_request_body",
    "api_response_body",
    "api_retries_exhausted",
    "permission_mode_changed",
    "auth",
    "mcp_server_connection",
    "internal_error",
    "plugin_installed",
    "plugin_loaded",
    "skill_activated",
    "at_mention",
    "hook_registered",
    "hook_execution_start",
    "hook_execution_complete",
    "hook_plugin_metrics",
    "feedback_survey",
    "subagent_completed",
];

/// What became of one log record.
pub enum Read {
    Record(Box<Record>),
    /// Not an event the importer uses: its name, and whether Claude Code documents it.
    Skipped {
        kind: String,
        known: bool,
    },
}

/// Reads one record of file `file`, line `line`.
pub fn read(
    r: &LogRecord<'_>,
    resource: &[super::parser::KeyValue<'_>],
    file: usize,
    line: u64,
    place: u32,
) -> Read {
    let a = Attributes {
        own: &r.attributes,
        resource,
    };
    let Some(name) = event_name(r, &a) else {
        return Read::Skipped {
            kind: "(a log record that is no Claude Code event)".into(),
            known: false,
        };
    };
    let body = match name.as_str() {
        "api_request" => request(&a),
        "tool_result" => tool_result(&a),
        "user_prompt" => prompt(&a),
        "compaction" => compaction(&a),
        "mcp_server_connection" => match mcp_connected(&a) {
            Some(server) => Ok(Body::McpConnected(server)),
            None => {
                return Read::Skipped {
                    kind: "claude_code.mcp_server_connection (not connected, or no server name)"
                        .into(),
                    known: true,
                };
            }
        },
        other => {
            return Read::Skipped {
                kind: format!("claude_code.{other}"),
                known: KNOWN_EVENTS.contains(&other),
            };
        }
    };
    let owned = |key: &str| {
        a.get_or_resource(key)
            .and_then(|v| v.text())
            .filter(|t| !t.is_empty())
            .map(|t| CompactString::from(t.as_ref()))
    };
    let time = a
        .text("event.timestamp")
        .and_then(|t| t.parse::<Timestamp>().ok())
        .or_else(|| nanos(r.time_unix_nano))
        .or_else(|| nanos(r.observed_time_unix_nano));
    Read::Record(Box::new(Record {
        session: owned("session.id").unwrap_or_default(),
        file,
        line,
        place,
        // An unreadable sequence orders like a missing one, by time.
        sequence: a.whole("event.sequence").ok().flatten(),
        time,
        prompt_id: owned("prompt.id"),
        user_id: owned("user.id").map(|s| Shared::from(s.as_str())),
        organization_id: owned("organization.id").map(|s| Shared::from(s.as_str())),
        account_uuid: owned("user.account_uuid").map(|s| Shared::from(s.as_str())),
        team: team(&a),
        agent_id: None,
        span_id: r
            .span_id
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(CompactString::from),
        from_span: false,
        body: match body {
            Ok(b) => b,
            Err(why) => Body::Unreadable(format!("claude_code.{name}: {why}")),
        },
    }))
}

/// `api_request` (as `event.name` writes it), from `event.name`, the record's event name
/// or its body, with or without the `claude_code.` prefix.
fn event_name(r: &LogRecord<'_>, a: &Attributes<'_, '_>) -> Option<String> {
    let strip = |s: &str| {
        let s = s.trim();
        s.strip_prefix("claude_code.").unwrap_or(s).to_string()
    };
    if let Some(n) = a.text("event.name") {
        return Some(strip(&n));
    }
    if let Some(n) = r.event_name.as_deref().filter(|n| !n.is_empty()) {
        return Some(strip(n));
    }
    r.body
        .as_ref()
        .and_then(|b| b.string_value.as_deref())
        .filter(|b| b.starts_with("claude_code."))
        .map(strip)
}

pub fn nanos(t: Option<super::parser::Int>) -> Option<Timestamp> {
    let n = t?.0.filter(|&n| n > 0)?;
    Timestamp::from_nanosecond(i128::from(n)).ok()
}

fn request(a: &Attributes<'_, '_>) -> Result<Body, String> {
    let required = |key: &str| a.count(key)?.ok_or_else(|| format!("no `{key}`"));
    // The cache counts are documented on every request; where one is missing it is read
    // as 0, as the Messages API leaves them out when nothing was cached.
    let usage = Usage {
        input_tokens: required("input_tokens")?,
        output_tokens: required("output_tokens")?,
        cache_creation_input_tokens: Some(a.count("cache_creation_tokens")?.unwrap_or(0)),
        cache_creation_1h_input_tokens: None,
        cache_read_input_tokens: a.count("cache_read_tokens")?.unwrap_or(0),
        // Claude Code's own estimate ("Estimated cost in USD").
        cost_usd: a
            .get("cost_usd")
            .and_then(|v| v.text())
            .and_then(|t| t.trim().parse::<f64>().ok())
            .filter(|c| c.is_finite() && *c >= 0.0),
    };
    let source = match a.text("query_source") {
        None => Source::Main,
        Some(s) if s == "sdk" || s == "repl_main_thread" || s.starts_with("repl_main_thread:") => {
            Source::Main
        }
        Some(s) if s.starts_with("agent:") => Source::Subagent,
        Some(s) => Source::Other(s.as_ref().into()),
    };
    Ok(Body::Request(Box::new(RequestEvent {
        request_id: a.text("request_id").map(|t| t.as_ref().into()),
        model: a.text("model").map(|t| t.as_ref().into()),
        usage,
        source,
    })))
}

pub fn tool_result(a: &Attributes<'_, '_>) -> Result<Body, String> {
    let given = a
        .text("tool_name")
        .map_or_else(|| "tool".to_string(), |t| t.into_owned());
    // JSON text, when OTEL_LOG_TOOL_DETAILS=1: the parameters (commands, MCP names) and
    // the input (values cut at 512 characters).
    let parameters = json_text(a, "tool_parameters");
    let input_text = a.text("tool_input");
    let input = input_text
        .as_deref()
        .and_then(|t| serde_json::from_str::<Value>(t).ok());
    let param = |key: &str| {
        parameters
            .as_ref()
            .and_then(|p| p.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let name = match (param("mcp_server_name"), param("mcp_tool_name")) {
        (Some(server), Some(tool)) => format!("mcp__{server}__{tool}"),
        _ => given,
    };
    let argument = argument(&name, param, input.as_ref());
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
            .or_else(|| a.text("use_id"))
            .map(|t| t.as_ref().into()),
        label: tool_label(&name, argument.as_deref()),
        input_hash: input_text.as_deref().map(|t| text_input_hash(&name, t)),
        size: a.count("tool_result_size_bytes")?,
        input_size: a.count("tool_input_size_bytes")?,
        error_bytes: a.text("error").map(|e| e.len() as u64),
        image,
        web: matches!(name.as_str(), "WebSearch" | "WebFetch"),
        name: name.into(),
    })))
}

/// The attribute `key` parsed as JSON text, when it is.
pub fn json_text(a: &Attributes<'_, '_>, key: &str) -> Option<Value> {
    serde_json::from_str(&a.text(key)?).ok()
}

/// What says what a tool did: the command, the file, the pattern, the skill.
pub fn argument<'p>(
    name: &str,
    param: impl Fn(&str) -> Option<&'p str>,
    input: Option<&Value>,
) -> Option<String> {
    let from_parameters = match name {
        "Bash" | "WorkspaceBash" | "PowerShell" => {
            param("full_command").or_else(|| param("bash_command"))
        }
        "Skill" => param("skill_name"),
        "Agent" | "Task" => param("subagent_type"),
        _ => None,
    };
    if let Some(p) = from_parameters {
        return Some(p.to_string());
    }
    let key = match name {
        "Bash" | "BashOutput" => "command",
        "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
        "NotebookEdit" | "NotebookRead" => "notebook_path",
        "Glob" | "Grep" => "pattern",
        "WebFetch" => "url",
        "WebSearch" => "query",
        "Agent" | "Task" => "description",
        _ => "",
    };
    let obj = input?.as_object()?;
    obj.get(key)
        .or_else(|| obj.values().find(|v| v.is_string()))
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn prompt(a: &Attributes<'_, '_>) -> Result<Body, String> {
    let command = a.text("command_name");
    let text = a.text("prompt").filter(|p| p.as_ref() != "<REDACTED>");
    let (snippet, slash_command) = match (text, command) {
        (Some(t), _) => (snippet(&t), false),
        (None, Some(c)) => (format!("/{}", c.trim_start_matches('/')), true),
        (None, None) => ("(text not logged)".to_string(), false),
    };
    Ok(Body::Prompt(PromptEvent {
        length: a.count("prompt_length")?,
        snippet,
        slash_command,
    }))
}

/// The server of a connection event that connected: its name (`server_name`, or
/// `mcp_server_name`), where its `status` is absent or says connected.
fn mcp_connected(a: &Attributes<'_, '_>) -> Option<String> {
    let connected = a
        .text("status")
        .is_none_or(|s| matches!(s.as_ref(), "connected" | "success" | "ok"));
    let name = a
        .text("server_name")
        .or_else(|| a.text("mcp_server_name"))?;
    (connected && !name.is_empty()).then(|| name.into_owned())
}

fn compaction(a: &Attributes<'_, '_>) -> Result<Body, String> {
    Ok(Body::Compaction {
        compaction: Compaction {
            trigger: a.text("trigger").map(|t| t.into_owned()),
            pre_tokens: a.count("pre_tokens")?,
            summary_bytes: None,
            post_tokens: a.count("post_tokens")?,
        },
        failed: a.text("success").is_some_and(|s| s == "false"),
    })
}
