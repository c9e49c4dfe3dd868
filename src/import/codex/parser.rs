//! One Codex CLI rollout line (`{timestamp, type, payload}`) → a typed record.
//!
//! Payloads of every type share one flat struct whose fields accept any JSON value: the
//! same key means different things in different payloads (`input`, `message`, `output`),
//! and an unexpected shape in a field we do not use must not cost the line.

use crate::import::json::{ContentBytes, StrOrNot};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

/// One rollout line.
#[derive(Debug, Deserialize)]
pub struct Line<'a> {
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub timestamp: Option<Cow<'a, str>>,
    #[serde(
        rename = "type",
        borrow,
        default,
        deserialize_with = "crate::import::json::borrowed"
    )]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default)]
    pub payload: Option<Payload>,
    /// The session header of an older rollout (a bare `{id, timestamp, instructions, …}`
    /// first line, before the `{timestamp, type, payload}` lines existed).
    #[serde(default)]
    pub id: Option<serde::de::IgnoredAny>,
}

/// The payload of any line type; which fields are set depends on the types.
#[derive(Debug, Default, Deserialize)]
pub struct Payload {
    /// `response_item` and `event_msg` payloads have their own `type`.
    #[serde(rename = "type", default)]
    pub kind: StrOrNot,
    /// `session_meta`: the session id.
    #[serde(default)]
    pub id: StrOrNot,
    /// `session_meta`, `turn_context`: the working directory.
    #[serde(default)]
    pub cwd: StrOrNot,
    /// `turn_context`: the model of the turn.
    #[serde(default)]
    pub model: StrOrNot,
    /// `event_msg` `token_count`: usage, or null before the first response.
    #[serde(default)]
    pub info: Option<Value>,
    /// `response_item` `message`.
    #[serde(default)]
    pub role: StrOrNot,
    #[serde(default)]
    pub content: Option<ContentBytes>,
    /// `event_msg` `user_message`: what the person typed.
    #[serde(default)]
    pub message: Option<ContentBytes>,
    /// Tool calls: `function_call` (`arguments`, JSON text), `custom_tool_call` (`input`,
    /// free text), `local_shell_call` (`action.command`), `web_search_call` (`action`).
    #[serde(default)]
    pub name: StrOrNot,
    #[serde(default)]
    pub arguments: StrOrNot,
    #[serde(default)]
    pub input: StrOrNot,
    #[serde(default)]
    pub call_id: StrOrNot,
    #[serde(default)]
    pub action: Option<Value>,
    /// `function_call_output`, `custom_tool_call_output`: what the tool returned.
    #[serde(default)]
    pub output: Option<ContentBytes>,
    /// `session_meta` (Codex 0.10x on): `{ text }`, the system prompt the session ran with.
    #[serde(default)]
    pub base_instructions: Option<Value>,
}

/// Codex's `TokenUsage` (codex-rs/protocol): `input_tokens` includes
/// `cached_input_tokens`; `output_tokens` includes `reasoning_output_tokens`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct TokenUsage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub cached_input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub reasoning_output_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
}

impl TokenUsage {
    /// `self − earlier`, field by field (never below 0).
    pub fn since(&self, earlier: &TokenUsage) -> TokenUsage {
        TokenUsage {
            input_tokens: self.input_tokens.saturating_sub(earlier.input_tokens),
            cached_input_tokens: self
                .cached_input_tokens
                .saturating_sub(earlier.cached_input_tokens),
            output_tokens: self.output_tokens.saturating_sub(earlier.output_tokens),
            reasoning_output_tokens: self
                .reasoning_output_tokens
                .saturating_sub(earlier.reasoning_output_tokens),
            total_tokens: self.total_tokens.saturating_sub(earlier.total_tokens),
        }
    }
}

/// `payload.info` of a `token_count` event (`TokenUsageInfo`).
#[derive(Debug, Default, Deserialize)]
pub struct TokenUsageInfo {
    #[serde(default)]
    pub total_token_usage: Option<TokenUsage>,
    #[serde(default)]
    pub last_token_usage: Option<TokenUsage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_fields_take_any_shape() {
        let l: Line = serde_json::from_str(
            r#"{"timestamp":"2025-10-01T10:00:00.000Z","type":"event_msg","payload":{"type":"exec_command_end","input":{"odd":1},"message":[1,2],"output":{"x":"yz"}}}"#,
        )
        .unwrap();
        let p = l.payload.unwrap();
        assert_eq!(p.kind.0.as_deref(), Some("exec_command_end"));
        assert_eq!(p.input.0, None);
        assert_eq!(p.output.map(|o| o.bytes), Some(2));
    }
}
