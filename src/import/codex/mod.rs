//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) → events.
//!
//! A request is a `token_count` event with new usage; the tool calls the model made since
//! the previous one are its tool uses, and their outputs join after it (matched by
//! `call_id`). The format, its sources and its quirks are in `src/import/README.md`.

mod parser;
mod sniff;

use super::event::{
    Compaction, Event, FileLog, Joined, OwnBlock, Request, Route, ToolUse, Usage, UserText,
};
use super::files::{self, SourceFile};
use super::json::{input_hash, text_input_hash};
use super::label::tool_label;
use super::{Convention, Reader};
use crate::error::Error;
use compact_str::{CompactString, format_compact};
use parser::{Line, Payload, TokenUsage, TokenUsageInfo};
use serde_json::Value;
use std::path::Path;

/// The Codex CLI reader.
pub struct Codex;

/// Top-level line types this reader knows.
const KNOWN_TYPES: &[&str] = &[
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
];

impl Reader for Codex {
    fn format(&self) -> &'static str {
        "codex"
    }

    fn product(&self) -> &'static str {
        "Codex CLI"
    }

    fn logs_are(&self) -> &'static str {
        "Codex CLI rollouts (rollout-*.jsonl)"
    }

    fn convention(&self) -> Convention {
        Convention::OpenAi
    }

    fn own_line_types(&self) -> &'static [&'static str] {
        &["session_meta", "turn_context", "response_item", "event_msg"]
    }

    /// `rollout-*.jsonl`, and any other `*.jsonl` whose first line is a rollout's (either
    /// format): renamed rollouts are found by their content.
    fn is_log(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "jsonl")
            && (path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("rollout-"))
                || sniff::sniff(path, self.own_line_types()).is_some())
    }

    fn read(&self, file: &SourceFile) -> Result<FileLog, Error> {
        let mut reading = Reading {
            log: FileLog::new(file.display()),
            ..Reading::default()
        };
        reading.route = reading.log.route(Route {
            subagent: false,
            agent_id: None,
            session_id: None,
            sidechain: None,
        });
        files::read_json_lines(file, &mut reading)?;
        Ok(reading.log)
    }
}

impl files::JsonLines for Reading {
    fn log(&mut self) -> &mut FileLog {
        &mut self.log
    }

    fn line(&mut self, number: u64, bytes: &[u8]) -> Result<(), serde_json::Error> {
        let parsed = serde_json::from_slice::<Line>(bytes)?;
        Reading::line(self, number, parsed);
        Ok(())
    }
}

#[derive(Default)]
struct Reading {
    log: FileLog,
    route: usize,
    /// Tool calls since the last request: they belong to the next one.
    pending: Vec<ToolUse>,
    /// The model's messages since the last request: they too belong to the next one.
    pending_own: Vec<OwnBlock>,
    /// Messages of the model read so far, to tell each block from the others.
    own_blocks: u64,
    pending_web: bool,
    model: Option<CompactString>,
    /// The running total of the previous request, and its dedupe key.
    previous: Option<(TokenUsage, CompactString)>,
    requests: u64,
    web_calls: u64,
    /// A line was read (the first decides the older format).
    started: bool,
    /// The file is a rollout of the older format: its lines are skipped and said once.
    older: bool,
}

/// What a rollout of the older format is, for the summary and the error.
const OLDER: &str = "a Codex CLI rollout of the older format (a bare session header, then items without the {timestamp, type, payload} wrapper, as Codex CLI wrote them until the second half of 2025): it logs no token counts, so it holds no request to import; a newer Codex CLI writes rollouts that can be imported";

impl Reading {
    fn line(&mut self, number: u64, line: Line<'_>) {
        let first = !self.started;
        self.started = true;
        if first
            && line.kind.is_none()
            && line.payload.is_none()
            && line.id.is_some()
            && line.timestamp.is_some()
        {
            // `{id, timestamp, instructions, …}`: an older rollout's session header.
            self.older = true;
            self.log.no_requests_because = Some(OLDER.to_string());
        }
        if self.older {
            self.log
                .skip("older Codex CLI format (no token counts)", true);
            return;
        }
        let Some(kind) = line.kind.as_deref() else {
            self.log.malformed(
                number,
                "no `type` field (not a {timestamp, type, payload} line)",
            );
            return;
        };
        if !KNOWN_TYPES.contains(&kind) {
            self.log.skip(kind, false);
            return;
        }
        let Some(payload) = line.payload else {
            self.log
                .malformed(number, format!("`{kind}` line without `payload`"));
            return;
        };
        match kind {
            "session_meta" => {
                if let Some(id) = &payload.id.0 {
                    self.log.routes[self.route]
                        .session_id
                        .get_or_insert(id.into());
                }
                // The system prompt rides in every request: a base part (docs/model.md §9).
                if let Some(text) = payload
                    .base_instructions
                    .as_ref()
                    .and_then(|b| b.get("text"))
                    .and_then(serde_json::Value::as_str)
                {
                    self.log
                        .declared
                        .entry(CompactString::default())
                        .or_default()
                        .system_prompt_bytes = Some(text.len() as u64);
                }
                self.set_project(&payload);
            }
            "turn_context" => {
                if let Some(m) = &payload.model.0 {
                    self.model = Some(m.into());
                }
                self.set_project(&payload);
            }
            "compacted" => {
                // `CompactedItem { message }`: the summary that replaces the context.
                let summary = payload.message.as_ref().map(|m| m.bytes);
                self.log.events.push(Event::Boundary {
                    route: self.route,
                    compaction: Compaction {
                        trigger: None,
                        pre_tokens: None,
                        summary_bytes: summary,
                        post_tokens: None,
                    },
                });
            }
            "response_item" => self.response_item(payload),
            _ => self.event(number, line.timestamp.as_deref(), payload),
        }
    }

    fn set_project(&mut self, payload: &Payload) {
        if self.log.project.is_none()
            && let Some(cwd) = &payload.cwd.0
        {
            self.log.project = Path::new(cwd)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
        }
    }

    fn response_item(&mut self, p: Payload) {
        let item = p.kind.0.clone().unwrap_or_default();
        match item.as_str() {
            "message" => match p.role.0.as_deref() {
                // What the model said joins the next request as its bytes (its reasoning,
                // sent back encrypted and dropped at the next prompt, does not).
                Some("assistant") => {
                    let c = p.content.unwrap_or_default();
                    self.own_blocks += 1;
                    self.pending_own.push(OwnBlock {
                        key: self.own_blocks,
                        bytes: c.bytes,
                        redacted: false,
                    });
                }
                role => {
                    let c = p.content.unwrap_or_default();
                    self.log.events.push(Event::Joined(Joined {
                        route: self.route,
                        bytes: c.bytes,
                        images: c.images,
                        tool_references: c.tool_references,
                        attachment: false,
                        answers: None,
                        user_text: (role == Some("user")).then(|| UserText {
                            real_prompt: false,
                            slash_command: false,
                            snippet: c.snippet.unwrap_or_default(),
                        }),
                        line_id: None,
                    }));
                }
            },
            "function_call" | "custom_tool_call" | "local_shell_call" => {
                let name = p.name.0.clone().unwrap_or_else(|| match item.as_str() {
                    "local_shell_call" => "local_shell".into(),
                    _ => "tool".into(),
                });
                let (text, argument) = tool_input(&item, &name, &p);
                self.pending.push(ToolUse {
                    input_bytes: (name.len() + text.len()) as u64,
                    id: p.call_id.0.as_deref().unwrap_or("").into(),
                    label: tool_label(&name, argument.as_deref()),
                    input_hash: text_input_hash(&name, &text),
                    name: name.into(),
                    web: false,
                });
            }
            "web_search_call" => {
                let action = p.action.unwrap_or(Value::Null);
                let query = action
                    .get("query")
                    .or_else(|| action.get("url"))
                    .and_then(Value::as_str);
                self.web_calls += 1;
                self.pending.push(ToolUse {
                    input_bytes: 0,
                    id: format_compact!("web_search_call-{}", self.web_calls),
                    name: "web_search".into(),
                    label: tool_label("web_search", query),
                    input_hash: input_hash("web_search", &action),
                    web: true,
                });
                self.pending_web = true;
            }
            "function_call_output" | "custom_tool_call_output" => {
                let c = p.output.unwrap_or_default();
                self.log.events.push(Event::Joined(Joined {
                    route: self.route,
                    bytes: c.bytes,
                    images: c.images,
                    tool_references: c.tool_references,
                    attachment: false,
                    answers: p.call_id.0.as_deref().map(CompactString::from),
                    user_text: None,
                    line_id: None,
                }));
            }
            other => self.log.skip(&format!("response_item/{other}"), true),
        }
    }

    fn event(&mut self, number: u64, timestamp: Option<&str>, p: Payload) {
        let kind = p.kind.0.clone().unwrap_or_default();
        match kind.as_str() {
            "token_count" => self.token_count(number, timestamp, p.info),
            "user_message" => {
                let m = p.message.unwrap_or_default();
                self.log.events.push(Event::Joined(Joined {
                    route: self.route,
                    bytes: 0,
                    images: 0,
                    tool_references: 0,
                    attachment: false,
                    answers: None,
                    user_text: Some(UserText {
                        real_prompt: true,
                        slash_command: false,
                        snippet: m.snippet.unwrap_or_default(),
                    }),
                    line_id: None,
                }));
            }
            other => self.log.skip(&format!("event_msg/{other}"), true),
        }
    }

    fn token_count(&mut self, number: u64, timestamp: Option<&str>, info: Option<Value>) {
        let Some(info) = info.filter(|i| !i.is_null()) else {
            self.log.skip("event_msg/token_count (info null)", true);
            return;
        };
        let info: TokenUsageInfo = match serde_json::from_value(info) {
            Ok(i) => i,
            Err(e) => {
                self.log
                    .malformed(number, format!("token_count with unreadable `info`: {e}"));
                return;
            }
        };
        let total = info.total_token_usage;
        // The same running total again reports the same request: a copy to merge.
        let repeat = match (&self.previous, total) {
            (Some((before, key)), Some(now)) if *before == now => Some(key.clone()),
            _ => None,
        };
        let last = match (info.last_token_usage, total, &self.previous) {
            (Some(last), _, _) => last,
            (None, Some(now), Some((before, _))) => now.since(before),
            (None, Some(now), None) => now,
            (None, None, _) => {
                self.log
                    .malformed(number, "token_count without last or total token usage");
                return;
            }
        };
        let key = match repeat.clone() {
            Some(k) => k,
            None => {
                let t = total.unwrap_or(last);
                format_compact!(
                    "{}|{}|{}|{}",
                    timestamp.unwrap_or(""),
                    t.input_tokens,
                    t.cached_input_tokens,
                    t.output_tokens
                )
            }
        };
        if let Some(now) = total {
            self.previous = Some((now, key.clone()));
        }
        if repeat.is_none() {
            self.requests += 1;
        }
        self.log.events.push(Event::Request(Box::new(Request {
            route: self.route,
            line: number,
            message_key: key,
            request_key: None,
            id: format_compact!("req-{}", self.requests),
            timestamp: timestamp.and_then(|t| t.parse().ok()),
            usage: Usage {
                input_tokens: last.input_tokens,
                cache_creation_input_tokens: None,
                cache_creation_1h_input_tokens: None,
                cache_read_input_tokens: last.cached_input_tokens,
                output_tokens: last.output_tokens,
                cost_usd: None,
            },
            model: self.model.clone(),
            tool_uses: std::mem::take(&mut self.pending),
            result_bytes: 0,
            // The model's messages and tool calls join as their bytes, its reasoning not
            // at all (see the README).
            own_blocks: std::mem::take(&mut self.pending_own),
            own_sized: true,
            web: std::mem::take(&mut self.pending_web),
        })));
    }
}

/// The input as text (for the hash) and the argument for the label.
fn tool_input(item: &str, name: &str, p: &Payload) -> (String, Option<String>) {
    match item {
        "local_shell_call" => {
            let action = p.action.clone().unwrap_or(Value::Null);
            let command = action.get("command").and_then(shell_command);
            (action.to_string(), command)
        }
        "custom_tool_call" => {
            let input = p.input.0.clone().unwrap_or_default();
            let argument = if name == "apply_patch" {
                patched_file(&input)
            } else {
                Some(input.clone())
            };
            (input, argument)
        }
        _ => {
            let args = p.arguments.0.clone().unwrap_or_default();
            let parsed: Value = serde_json::from_str(&args).unwrap_or(Value::Null);
            let argument = match parsed.get("command") {
                Some(c) => shell_command(c),
                None => parsed
                    .as_object()
                    .and_then(|o| o.values().find_map(|v| v.as_str().map(str::to_string))),
            };
            (args, argument)
        }
    }
}

/// `["bash", "-lc", "cargo test"]` → `cargo test`; other arrays joined by spaces.
fn shell_command(command: &Value) -> Option<String> {
    match command {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [_, flag, script] if flag.starts_with('-') && flag.ends_with('c') => {
                    Some((*script).to_string())
                }
                _ => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

/// The first file an `apply_patch` input touches.
fn patched_file(patch: &str) -> Option<String> {
    patch.lines().find_map(|l| {
        ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
            .iter()
            .find_map(|p| l.strip_prefix(p))
            .map(str::to_string)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_commands_read_as_typed() {
        let v: Value = serde_json::from_str(r#"["bash","-lc","cargo test"]"#).unwrap();
        assert_eq!(shell_command(&v).as_deref(), Some("cargo test"));
        let v: Value = serde_json::from_str(r#"["ls","-la"]"#).unwrap();
        assert_eq!(shell_command(&v).as_deref(), Some("ls -la"));
        assert_eq!(
            patched_file("*** Begin Patch\n*** Update File: src/a.rs\n@@").as_deref(),
            Some("src/a.rs")
        );
    }
}
