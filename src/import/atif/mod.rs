//! ATIF trajectories (Harbor's Agent Trajectory Interchange Format, `trajectory.json`) →
//! events.
//!
//! A trajectory is one JSON document: `steps` in order, each from the `system`, the
//! `user` or the `agent`. An agent step with `metrics` is a call: its message and tool
//! calls (what the agent sends back of it) and its observation's results are what joined,
//! with the user and system steps up to the next call. Embedded subagent trajectories
//! (`subagent_trajectories`) are traces of their own. The format, its source and version,
//! and its quirks: `src/import/atif/README.md`.

use super::document::{self, amount, count, joined};
use super::event::{Event, FileLog, OwnBlock, Request, Route, ToolUse, Usage, UserText};
use super::files::SourceFile;
use super::json::input_hash;
use super::label::tool_label;
use super::{Convention, Reader};
use crate::error::Error;
use compact_str::{CompactString, format_compact};
use serde_json::Value;
use std::path::Path;

/// The ATIF reader.
pub struct Atif;

impl Reader for Atif {
    fn format(&self) -> &'static str {
        "atif"
    }

    fn product(&self) -> &'static str {
        "ATIF"
    }

    fn logs_are(&self) -> &'static str {
        "ATIF trajectories (trajectory.json, *.trajectory.json, *.atif.json)"
    }

    fn convention(&self) -> Convention {
        // `metrics.prompt_tokens` includes the cached tokens (the RFC, since v1.2).
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
        name == "trajectory.json"
            || name.ends_with(".trajectory.json")
            || name.ends_with(".atif.json")
    }

    fn read(&self, file: &SourceFile) -> Result<FileLog, Error> {
        let mut log = FileLog::new(file.display());
        let Some(doc) = document::read(file, &mut log)? else {
            return Ok(log);
        };
        if doc.get("steps").and_then(Value::as_array).is_none() {
            log.malformed(
                1,
                "no `steps` list: not an ATIF trajectory (`{schema_version, session_id, agent, steps}`)",
            );
            return Ok(log);
        }
        log.project = doc
            .pointer("/agent/name")
            .and_then(Value::as_str)
            .map(str::to_string);
        let session = doc
            .get("session_id")
            .and_then(Value::as_str)
            .map(CompactString::from);
        trajectory(&doc, &mut log, session.as_ref(), None, "");
        Ok(log)
    }
}

/// The events of one trajectory (the document's, or an embedded subagent's `at` its path
/// in the document, for messages), into `log`.
fn trajectory(
    doc: &Value,
    log: &mut FileLog,
    session: Option<&CompactString>,
    subagent: Option<CompactString>,
    at: &str,
) {
    let route = log.route(Route {
        subagent: subagent.is_some(),
        agent_id: subagent.clone(),
        session_id: session.cloned(),
        sidechain: None,
    });
    let default_model = doc
        .pointer("/agent/model_name")
        .and_then(Value::as_str)
        .map(CompactString::from);
    let trajectory_id = doc
        .get("trajectory_id")
        .and_then(Value::as_str)
        .unwrap_or("");
    let steps = doc
        .get("steps")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for (index, step) in steps.iter().enumerate() {
        let place = format!("{at}steps[{index}]");
        let Some(source) = step.get("source").and_then(Value::as_str) else {
            log.malformed(1, format!("{place}: a step without `source`"));
            continue;
        };
        // Steps copied from an earlier trajectory (v1.7 `is_copied_context`) are context
        // this run started with, not calls of its own: the first call's measured input
        // holds them.
        if step.get("is_copied_context").and_then(Value::as_bool) == Some(true) {
            log.skip("copied context (is_copied_context)", true);
            continue;
        }
        let step_id = step
            .get("step_id")
            .and_then(Value::as_u64)
            .unwrap_or(index as u64 + 1);
        let message = document::content(step.get("message"));
        match source {
            "agent" => {
                let uses = tool_uses(step, &place);
                let tool_bytes: u64 = uses.iter().map(|u| u.input_bytes).sum();
                let metrics = step.get("metrics").filter(|m| m.is_object());
                let no_call = step.get("llm_call_count").and_then(Value::as_u64) == Some(0);
                let usage = metrics.filter(|_| !no_call).and_then(|m| {
                    Some(Usage {
                        input_tokens: count(m.get("prompt_tokens"))?,
                        output_tokens: count(m.get("completion_tokens"))?,
                        cache_read_input_tokens: count(m.get("cached_tokens")).unwrap_or(0),
                        cache_creation_input_tokens: count(
                            m.pointer("/extra/cache_creation_input_tokens"),
                        ),
                        cache_creation_1h_input_tokens: None,
                        cost_usd: amount(m.get("cost_usd")),
                    })
                });
                match usage {
                    Some(usage) => {
                        log.events.push(Event::Request(Box::new(Request {
                            route,
                            line: step_id,
                            message_key: format_compact!(
                                "{}|{trajectory_id}|{at}{step_id}",
                                session.map_or("", |s| s.as_str())
                            ),
                            request_key: None,
                            id: format_compact!("step-{step_id}"),
                            timestamp: document::timestamp(step.get("timestamp")),
                            usage,
                            model: step
                                .get("model_name")
                                .and_then(Value::as_str)
                                .map(CompactString::from)
                                .or_else(|| default_model.clone()),
                            web: uses.iter().any(|u| u.web),
                            tool_uses: uses,
                            result_bytes: 0,
                            // The message as the agent sends it back; `reasoning_content`
                            // is left out (see the README).
                            own_blocks: vec![OwnBlock {
                                key: step_id,
                                bytes: message.bytes,
                                redacted: false,
                            }],
                            own_sized: true,
                        })));
                        if message.images > 0 {
                            log.events.push(Event::Joined(joined(
                                route,
                                0,
                                message.images,
                                None,
                                None,
                            )));
                        }
                    }
                    None => {
                        if metrics.is_some() && !no_call {
                            log.malformed(
                                1,
                                format!(
                                    "{place}: metrics without prompt_tokens and completion_tokens: the step joins the call before it"
                                ),
                            );
                        } else {
                            log.skip("agent step without metrics", true);
                        }
                        log.events.push(Event::Joined(joined(
                            route,
                            message.bytes + tool_bytes,
                            message.images,
                            None,
                            None,
                        )));
                    }
                }
            }
            "user" | "system" => {
                let user_text = (source == "user").then(|| UserText {
                    real_prompt: true,
                    slash_command: false,
                    snippet: super::json::snippet(message.first.as_deref().unwrap_or("")),
                });
                log.events.push(Event::Joined(joined(
                    route,
                    message.bytes,
                    message.images,
                    None,
                    user_text,
                )));
            }
            other => {
                log.malformed(
                    1,
                    format!("{place}: source \"{other}\" is not system, user or agent"),
                );
                continue;
            }
        }
        for result in step
            .pointer("/observation/results")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let c = document::content(result.get("content"));
            let answers = result
                .get("source_call_id")
                .and_then(Value::as_str)
                .map(CompactString::from);
            log.events.push(Event::Joined(joined(
                route, c.bytes, c.images, answers, None,
            )));
        }
    }
    for (i, sub) in doc
        .get("subagent_trajectories")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let id = sub
            .get("trajectory_id")
            .or_else(|| sub.get("session_id"))
            .and_then(Value::as_str)
            .map_or_else(|| format_compact!("{}", i + 1), CompactString::from);
        trajectory(
            sub,
            log,
            session,
            Some(id),
            &format!("{at}subagent_trajectories[{i}]."),
        );
    }
}

/// The step's `tool_calls` as tool uses: name, label, the hash and the bytes of the name
/// and arguments as JSON (part of the message the agent sends back).
fn tool_uses(step: &Value, place: &str) -> Vec<ToolUse> {
    step.get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(n, c)| {
            let name = c.get("function_name").and_then(Value::as_str)?;
            let args = c.get("arguments").cloned().unwrap_or(Value::Null);
            let argument = args
                .get("command")
                .and_then(Value::as_str)
                .or_else(|| args.as_object()?.values().find_map(Value::as_str));
            let lower = name.to_ascii_lowercase();
            Some(ToolUse {
                id: c.get("tool_call_id").and_then(Value::as_str).map_or_else(
                    || format_compact!("{place}.tool_calls[{n}]"),
                    CompactString::from,
                ),
                name: name.into(),
                label: tool_label(name, argument),
                input_hash: input_hash(name, &args),
                web: ["web_search", "websearch", "web_fetch", "webfetch"]
                    .iter()
                    .any(|w| lower.contains(w)),
                input_bytes: (name.len() + args.to_string().len()) as u64,
            })
        })
        .collect()
}
