//! SWE-agent trajectories (`<instance_id>.traj`) → events.
//!
//! A trajectory is one JSON document: `trajectory`, one step a model query (its reply,
//! the action's command and the observation), `history` and `info.model_stats`, the run's
//! totals. No step carries its call's usage: each step is a call whose usage is a
//! placeholder ([`crate::import::event::FileLog::unmeasured`]), and the run's totals go to
//! `[import]`. The format, its sources and what is estimated:
//! `src/import/swe_agent/README.md`.

mod parser;

use super::document::{self, joined};
use super::event::{Event, FileLog, OwnBlock, Request, Route, ToolUse, Usage};
use super::files::SourceFile;
use super::json::input_hash;
use super::label::tool_label;
use super::{Convention, Reader};
use crate::error::Error;
use compact_str::{CompactString, format_compact};
use serde_json::Value;
use std::path::Path;

/// The SWE-agent reader.
pub struct SweAgent;

impl Reader for SweAgent {
    fn format(&self) -> &'static str {
        "swe-agent"
    }

    fn product(&self) -> &'static str {
        "SWE-agent"
    }

    fn logs_are(&self) -> &'static str {
        "SWE-agent trajectories (*.traj)"
    }

    fn convention(&self) -> Convention {
        // LiteLLM's usage (`prompt_tokens`, cached included) is what `tokens_sent` sums.
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
        name.ends_with(".traj")
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

/// The run's name: the file's name without `.traj` (SWE-agent names it after the
/// instance id).
fn instance(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    name.strip_suffix(".traj").unwrap_or(name).to_string()
}

/// The events of a parsed trajectory, into `log`.
fn events(doc: &Value, path: &Path, log: &mut FileLog) {
    let Some(steps) = doc.get("trajectory").and_then(Value::as_array) else {
        log.malformed(
            1,
            "no `trajectory` list: not a SWE-agent trajectory (`{trajectory, history, info}`)",
        );
        return;
    };
    let instance = instance(path);
    log.project = Some(instance.clone());
    log.unmeasured = Some(parser::totals(doc));
    let route = log.route(Route {
        subagent: false,
        agent_id: None,
        session_id: None,
        sidechain: None,
    });
    let model = parser::model(doc).map(CompactString::from);
    for (index, value) in steps.iter().enumerate() {
        let step = match parser::step(value) {
            Ok(s) => s,
            Err(why) => {
                log.malformed(1, format!("trajectory[{index}]: {why}"));
                continue;
            }
        };
        let n = index + 1;
        let id = format_compact!("step-{n}");
        let uses: Vec<ToolUse> = step
            .command
            .iter()
            .map(|c| ToolUse {
                id: id.clone(),
                name: c.as_str().into(),
                label: tool_label(c, step.argument.as_deref()),
                input_hash: input_hash(
                    c,
                    &Value::String(step.argument.clone().unwrap_or_default()),
                ),
                web: false,
                // The action is written in the reply: its bytes are in `response`.
                input_bytes: 0,
            })
            .collect();
        let answers = uses.first().map(|u| u.id.clone());
        log.events.push(Event::Request(Box::new(Request {
            route,
            line: 1,
            message_key: format_compact!("{instance}|{n}"),
            request_key: None,
            id,
            timestamp: None,
            // A placeholder: the log measures no call (`FileLog::unmeasured`).
            usage: Usage::default(),
            model: model.clone(),
            tool_uses: uses,
            result_bytes: 0,
            own_blocks: vec![OwnBlock {
                key: index as u64,
                bytes: step.response_bytes,
                redacted: false,
            }],
            own_sized: true,
            web: false,
        })));
        log.events.push(Event::Joined(joined(
            route,
            step.observation_bytes,
            0,
            answers,
            None,
        )));
    }
}
