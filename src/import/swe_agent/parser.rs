//! One SWE-agent trajectory → what the reader needs of it: each step's command name,
//! reply and observation, the bytes of the base, and the run's totals.
//!
//! Shapes, from SWE-agent's own code (`SWE-agent/SWE-agent`, read 2026-12-02):
//! `sweagent/types.py` (`TrajectoryStep`: `action`, `observation`, `response`, `state`,
//! `thought`, `execution_time`, `query`, `extra_info`; `HistoryItem`: `role`, `content`
//! (a string or a list of parts), `message_type`, `is_demo`, …; `AgentInfo.model_stats`)
//! and `sweagent/agent/models.py` (`InstanceStats`: `instance_cost`, `tokens_sent`,
//! `tokens_received`, `api_calls`). Before 1.1.0 a step's messages were `messages`, not
//! `query`.

use crate::import::document::{self, amount, count};
use crate::import::event::RunTotals;
use serde_json::Value;

/// One step of `trajectory`: one model query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The command the action ran: its first word (`edit`, `str_replace_editor`, `submit`);
    /// None for an empty action.
    pub command: Option<String>,
    /// The rest of the action's first line, for the label.
    pub argument: Option<String>,
    /// UTF-8 bytes of the model's reply (`response`: its thought and action as sent back).
    pub response_bytes: u64,
    /// UTF-8 bytes of the command's output (`observation`), sent to the next query.
    pub observation_bytes: u64,
}

/// The step at `value`, or why it is not one.
pub fn step(value: &Value) -> Result<Step, &'static str> {
    let o = value.as_object().ok_or("a step that is not an object")?;
    let text = |k: &str| o.get(k).and_then(Value::as_str);
    let response = text("response").ok_or("a step without `response` text")?;
    let action = text("action").unwrap_or("").trim();
    let first = action.lines().next().unwrap_or("").trim();
    let (command, argument) = match first.split_once(char::is_whitespace) {
        Some((c, rest)) => (Some(c.to_string()), Some(rest.trim().to_string())),
        None if first.is_empty() => (None, None),
        None => (Some(first.to_string()), None),
    };
    Ok(Step {
        command,
        argument: argument.filter(|a| !a.is_empty()),
        response_bytes: response.len() as u64,
        observation_bytes: document::content(o.get("observation")).bytes,
    })
}

/// UTF-8 bytes of the messages before the first model reply of `messages` (the system
/// prompt, demonstrations and the task); None where the list has none.
pub fn base_bytes(messages: &[Value]) -> Option<u64> {
    let before: Vec<&Value> = messages
        .iter()
        .take_while(|m| m.get("role").and_then(Value::as_str) != Some("assistant"))
        .collect();
    (!before.is_empty()).then(|| {
        before
            .iter()
            .map(|m| document::content(m.get("content")).bytes)
            .sum()
    })
}

/// The base of a run: the first step's `query` (`messages` before SWE-agent 1.1.0), what
/// the first query showed the model; else the `history` before its first reply.
pub fn run_base(doc: &Value) -> Option<u64> {
    let first = doc.pointer("/trajectory/0");
    let shown = first
        .and_then(|s| s.get("query").or_else(|| s.get("messages")))
        .and_then(Value::as_array)
        .filter(|q| !q.is_empty());
    shown
        .and_then(|q| base_bytes(q))
        .or_else(|| base_bytes(doc.get("history")?.as_array()?))
}

/// The run's totals from `info.model_stats`, and its base.
pub fn totals(doc: &Value) -> RunTotals {
    let stats = doc.pointer("/info/model_stats");
    let get = |k: &str| stats.and_then(|s| s.get(k));
    RunTotals {
        base_bytes: run_base(doc),
        tokens_sent: count(get("tokens_sent")),
        tokens_received: count(get("tokens_received")),
        api_calls: count(get("api_calls")),
        instance_cost_usd: amount(get("instance_cost")).filter(|c| c.is_finite() && *c >= 0.0),
    }
}

/// The model the run was configured with: `replay_config` (a JSON text, or an object)
/// `agent.model.name`.
pub fn model(doc: &Value) -> Option<String> {
    let config = match doc.get("replay_config")? {
        Value::String(s) => serde_json::from_str::<Value>(s).ok()?,
        v => v.clone(),
    };
    config
        .pointer("/agent/model/name")
        .and_then(Value::as_str)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_step_gives_its_command_reply_and_observation_bytes() {
        let s = step(&json!({"response": "look\n\nls -a", "action": "ls -a\n",
            "observation": "a b", "thought": "look"}))
        .unwrap();
        assert_eq!(s.command.as_deref(), Some("ls"));
        assert_eq!(s.argument.as_deref(), Some("-a"));
        assert_eq!((s.response_bytes, s.observation_bytes), (11, 3));
        let s = step(&json!({"response": "", "action": "submit", "observation": null})).unwrap();
        assert_eq!((s.command.as_deref(), s.argument), (Some("submit"), None));
        assert!(step(&json!({"action": "ls"})).is_err());
        assert!(step(&json!(3)).is_err());
    }

    #[test]
    fn the_base_is_what_came_before_the_first_reply() {
        let m = json!([{"role": "system", "content": "sys"},
            {"role": "user", "content": [{"type": "text", "text": "task!"}]},
            {"role": "assistant", "content": "no"}]);
        assert_eq!(base_bytes(m.as_array().unwrap()), Some(8));
        assert_eq!(base_bytes(&[]), None);
        let t = totals(
            &json!({"info": {"model_stats": {"tokens_sent": 10, "api_calls": 2,
            "instance_cost": 0.5}}}),
        );
        assert_eq!(
            (
                t.tokens_sent,
                t.tokens_received,
                t.api_calls,
                t.instance_cost_usd
            ),
            (Some(10), None, Some(2), Some(0.5))
        );
    }
}
