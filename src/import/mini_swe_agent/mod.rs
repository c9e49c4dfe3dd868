//! mini-swe-agent trajectories (`<instance>.traj.json`) → events.
//!
//! A trajectory is one JSON document: `messages` in the order the agent kept them. Each
//! message that is a model reply with usage is a call; what the agent sends back of it
//! (its visible content and tool calls) and the messages after it up to the next reply
//! (the command's output, a format error) are what joined. The format, its sources, its
//! quirks and the evidence for what joins: `src/import/mini_swe_agent/README.md`.

mod parser;

use super::document::{self, joined};
use super::event::{Event, FileLog, OwnBlock, Request, Route, Usage, UserText};
use super::files::SourceFile;
use super::{Convention, Reader};
use crate::error::Error;
use compact_str::{CompactString, format_compact};
use serde_json::Value;
use std::path::Path;

/// The mini-swe-agent reader.
pub struct MiniSweAgent;

impl Reader for MiniSweAgent {
    fn format(&self) -> &'static str {
        "mini-swe-agent"
    }

    fn product(&self) -> &'static str {
        "mini-swe-agent"
    }

    fn logs_are(&self) -> &'static str {
        "mini-swe-agent trajectories (*.traj.json)"
    }

    fn convention(&self) -> Convention {
        // Chat Completions usage: `prompt_tokens` includes `cached_tokens`.
        Convention::OpenAi
    }

    fn own_line_types(&self) -> &'static [&'static str] {
        &[]
    }

    fn is_log(&self, path: &Path) -> bool {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        name.ends_with(".traj.json")
    }

    fn read(&self, file: &SourceFile) -> Result<FileLog, Error> {
        let mut log = FileLog::new(file.display());
        let Some(doc) = document::read(file, &mut log)? else {
            return Ok(log);
        };
        events(&doc, &file.path, &mut log);
        Ok(log)
    }
}

/// The run's name: the document's `instance_id`, else the file's name without
/// `.traj.json`.
fn instance(doc: &Value, path: &Path) -> String {
    doc.get("instance_id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = name.strip_suffix(".gz").unwrap_or(&name);
            name.strip_suffix(".traj.json")
                .or_else(|| name.strip_suffix(".json"))
                .unwrap_or(name)
                .to_string()
        })
}

/// The events of a parsed trajectory, into `log`.
fn events(doc: &Value, path: &Path, log: &mut FileLog) {
    let Some(messages) = doc.get("messages").and_then(Value::as_array) else {
        log.malformed(
            1,
            "no `messages` list: not a mini-swe-agent trajectory (`{info, messages, trajectory_format}`)",
        );
        return;
    };
    let instance = instance(doc, path);
    log.project = Some(instance.clone());
    let route = log.route(Route {
        subagent: false,
        agent_id: None,
        session_id: None,
        sidechain: None,
    });
    // The model the run was configured with, for replies that do not name theirs.
    let configured: Option<CompactString> = doc
        .pointer("/info/config/model/model_name")
        .and_then(Value::as_str)
        .map(CompactString::from);
    let mut calls = 0u64;
    for (index, m) in messages.iter().enumerate() {
        let Some(role) = m.get("role").and_then(Value::as_str).or_else(|| {
            (m.get("object").and_then(Value::as_str) == Some("response")).then_some("assistant")
        }) else {
            log.malformed(1, format!("messages[{index}]: a message without `role`"));
            continue;
        };
        match role {
            "assistant" => {
                let text = parser::visible_content(m);
                let uses = parser::actions(m, index, text.first.as_deref());
                let reply = parser::reply(m);
                let Some((reply, usage)) = reply.and_then(|r| r.usage.map(|u| (r, u))) else {
                    // A reply without usage (hand-written, or its counts lost) is still
                    // sent back: its bytes join the call before it.
                    if parser::reply(m).is_some() {
                        log.malformed(
                            1,
                            format!(
                                "messages[{index}]: a model reply without usage prompt_tokens and completion_tokens: its text joins the call before it"
                            ),
                        );
                    } else {
                        log.skip("assistant (no usage)", true);
                    }
                    let own = text.bytes + uses.iter().map(|u| u.input_bytes).sum::<u64>();
                    log.events
                        .push(Event::Joined(joined(route, own, text.images, None, None)));
                    continue;
                };
                calls += 1;
                let id = reply
                    .id
                    .clone()
                    .unwrap_or_else(|| format_compact!("call-{calls}"));
                let key = match &reply.id {
                    Some(id) => id.clone(),
                    None => format_compact!(
                        "{instance}|{index}|{}|{}",
                        usage.prompt_tokens,
                        usage.completion_tokens
                    ),
                };
                log.events.push(Event::Request(Box::new(Request {
                    route,
                    line: index as u64 + 1,
                    message_key: key,
                    request_key: None,
                    id,
                    timestamp: reply.timestamp,
                    usage: Usage {
                        input_tokens: usage.prompt_tokens,
                        cache_creation_input_tokens: usage.cache_write_tokens,
                        cache_creation_1h_input_tokens: None,
                        cache_read_input_tokens: usage.cached_tokens,
                        output_tokens: usage.completion_tokens,
                        cost_usd: usage.cost_usd,
                    },
                    model: reply.model.or_else(|| configured.clone()),
                    tool_uses: uses,
                    result_bytes: 0,
                    // The visible content, as the agent sends it back; the reply's
                    // `reasoning` is not (see the README for the evidence).
                    own_blocks: vec![OwnBlock {
                        key: index as u64,
                        bytes: text.bytes,
                        redacted: false,
                    }],
                    own_sized: true,
                    web: false,
                })));
                if text.images > 0 {
                    log.events
                        .push(Event::Joined(joined(route, 0, text.images, None, None)));
                }
            }
            "user" | "tool" | "system" | "developer" => {
                let c = document::content(m.get("content"));
                let answers = (role == "tool")
                    .then(|| m.get("tool_call_id").and_then(Value::as_str))
                    .flatten()
                    .map(CompactString::from);
                // Only the task (before the first reply) is a person's prompt: later user
                // messages are the commands' output and the agent's own notes.
                let user_text = (role == "user" && calls == 0).then(|| UserText {
                    real_prompt: true,
                    slash_command: false,
                    snippet: super::json::snippet(c.first.as_deref().unwrap_or("")),
                });
                log.events.push(Event::Joined(joined(
                    route, c.bytes, c.images, answers, user_text,
                )));
            }
            // The agent's last word (2.x): kept in the file, never sent to the model.
            "exit" => log.skip("exit", true),
            other => log.skip(&format!("message role {other}"), false),
        }
    }
}
