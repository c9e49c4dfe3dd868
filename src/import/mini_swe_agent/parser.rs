//! One trajectory message → what the reader needs of it: the model's reply (its id,
//! model, time and usage), the actions it asked for, and the bytes it puts back.
//!
//! Shapes, from mini-swe-agent's own code (`SWE-agent/mini-swe-agent`,
//! `src/minisweagent/models/litellm_model.py` and `run/utils/save.py`): a message is
//! `{role, content, extra}`; a model reply keeps the provider's response in
//! `extra.response` (a Chat Completions object: `id`, `model`, `created`, `choices[]`,
//! `usage`) and, from 2.x, `extra.cost`, `extra.timestamp` and `extra.actions`; the
//! Responses-API models of 2.x store the response object itself as the message
//! (`object: "response"`, `output[]`, `usage.input_tokens`).

use crate::import::document::{self, amount, count};
use crate::import::event::ToolUse;
use crate::import::json::{input_hash, text_input_hash};
use crate::import::label::tool_label;
use compact_str::CompactString;
use serde_json::Value;

/// A model reply's measured usage, OpenAI's convention (the prompt includes its cached
/// tokens).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplyUsage {
    /// `prompt_tokens` (Responses API: `input_tokens`), cached tokens included.
    pub prompt_tokens: u64,
    /// `prompt_tokens_details.cached_tokens` (Responses: `input_tokens_details.cached_tokens`;
    /// LiteLLM's `cache_read_input_tokens`); 0 where not given, as the API leaves it out
    /// when nothing was cached.
    pub cached_tokens: u64,
    /// Prompt tokens written to the cache, where the route reports them
    /// (`prompt_tokens_details.cache_write_tokens`, LiteLLM's
    /// `cache_creation_input_tokens`); None where it does not say (not 0).
    pub cache_write_tokens: Option<u64>,
    /// `completion_tokens` (Responses: `output_tokens`), as logged.
    pub completion_tokens: u64,
    /// The reply's cost, US dollars: `usage.cost` (OpenRouter's bill), else `extra.cost`
    /// (the agent's own figure; 0 there means "not tracked" and is left out).
    pub cost_usd: Option<f64>,
}

/// A message that is a model reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The provider's response id (`gen-…`, `chatcmpl-…`).
    pub id: Option<CompactString>,
    pub model: Option<CompactString>,
    /// When the reply came: `extra.timestamp` (Unix seconds), else the response's
    /// `created` / `created_at`.
    pub timestamp: Option<jiff::Timestamp>,
    /// None where the reply has no usable usage (its counts missing).
    pub usage: Option<ReplyUsage>,
}

/// The model reply a message carries, if it is one: a response in `extra.response`, or
/// the message itself being a Responses-API response.
pub fn reply(message: &Value) -> Option<Reply> {
    let extra = message.get("extra");
    let response = match extra.and_then(|e| e.get("response")) {
        Some(r) if r.is_object() => r,
        _ if message.get("object").and_then(Value::as_str) == Some("response") => message,
        _ => return None,
    };
    let u = response.get("usage");
    let usage = u.and_then(|u| {
        let prompt = count(u.get("prompt_tokens")).or_else(|| count(u.get("input_tokens")))?;
        let completion =
            count(u.get("completion_tokens")).or_else(|| count(u.get("output_tokens")))?;
        let details = u
            .get("prompt_tokens_details")
            .or_else(|| u.get("input_tokens_details"));
        let cached = count(details.and_then(|d| d.get("cached_tokens")))
            .or_else(|| count(u.get("cache_read_input_tokens")))
            .unwrap_or(0);
        let written = count(details.and_then(|d| d.get("cache_write_tokens")))
            .or_else(|| count(u.get("cache_creation_input_tokens")));
        let extra_cost = amount(extra.and_then(|e| e.get("cost"))).filter(|c| *c > 0.0);
        Some(ReplyUsage {
            prompt_tokens: prompt,
            cached_tokens: cached.min(prompt),
            cache_write_tokens: written,
            completion_tokens: completion,
            cost_usd: amount(u.get("cost")).or(extra_cost),
        })
    });
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(CompactString::from);
    Some(Reply {
        id: text(response.get("id")),
        model: text(response.get("model")),
        timestamp: document::timestamp(extra.and_then(|e| e.get("timestamp")))
            .or_else(|| document::timestamp(response.get("created")))
            .or_else(|| document::timestamp(response.get("created_at"))),
        usage,
    })
}

/// The visible text of a reply as the agent keeps it: the message's `content` (a string
/// or parts), or, for a Responses-API message, the text of its `output` messages.
pub fn visible_content(message: &Value) -> document::Content {
    if message.get("object").and_then(Value::as_str) == Some("response") {
        let mut out = document::Content::default();
        for item in message
            .get("output")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if item.get("type").and_then(Value::as_str) == Some("message") {
                let c = document::content(item.get("content"));
                out.bytes += c.bytes;
                out.images += c.images;
                if out.first.is_none() {
                    out.first = c.first;
                }
            }
        }
        return out;
    }
    document::content(message.get("content"))
}

/// The actions a reply asked for, as tool uses: its `tool_calls` (tool-calling models; their
/// names and arguments are part of the message the agent sends back, so they have
/// `input_bytes`), a Responses-API reply's `function_call` items (likewise), else
/// `extra.actions[].command`, else the first ```` ```bash ```` (or
/// ```` ```mswea_bash_command ````) block of its text. A command written in the text is
/// already in the text's bytes: its `input_bytes` are 0.
pub fn actions(message: &Value, index: usize, text: Option<&str>) -> Vec<ToolUse> {
    let mut uses = Vec::new();
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let f = c.get("function")?;
            Some((c.get("id"), f.get("name")?.as_str()?, f.get("arguments")))
        });
    let items = message
        .get("output")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call"))
        .filter_map(|i| {
            Some((
                i.get("call_id"),
                i.get("name")?.as_str()?,
                i.get("arguments"),
            ))
        });
    for (n, (id, name, arguments)) in calls.chain(items).enumerate() {
        let args = match arguments {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
        };
        let parsed: Value = serde_json::from_str(&args).unwrap_or(Value::Null);
        let argument = parsed
            .get("command")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| {
                parsed
                    .as_object()
                    .and_then(|o| o.values().find_map(|v| v.as_str().map(str::to_string)))
            });
        uses.push(ToolUse {
            id: id
                .and_then(Value::as_str)
                .map_or_else(|| format!("action-{index}-{n}").into(), CompactString::from),
            name: name.into(),
            label: tool_label(name, argument.as_deref()),
            input_hash: text_input_hash(name, &args),
            web: false,
            input_bytes: (name.len() + args.len()) as u64,
        });
    }
    if !uses.is_empty() {
        return uses;
    }
    let commands: Vec<String> = match message
        .get("extra")
        .and_then(|e| e.get("actions"))
        .and_then(Value::as_array)
    {
        Some(list) if !list.is_empty() => list
            .iter()
            .filter_map(|a| match a {
                Value::String(s) => Some(s.clone()),
                other => other.get("command")?.as_str().map(str::to_string),
            })
            .collect(),
        _ => text.and_then(command_block).into_iter().collect(),
    };
    commands
        .into_iter()
        .enumerate()
        .map(|(n, command)| ToolUse {
            id: format!("action-{index}-{n}").into(),
            name: "bash".into(),
            label: tool_label("bash", Some(&command)),
            input_hash: input_hash("bash", &Value::String(command)),
            web: false,
            input_bytes: 0,
        })
        .collect()
}

/// The command of the first ```` ```bash ```` or ```` ```mswea_bash_command ```` block of
/// a reply's text (mini-swe-agent's action formats).
pub fn command_block(text: &str) -> Option<String> {
    let (_, rest) = ["```bash", "```mswea_bash_command"]
        .iter()
        .filter_map(|fence| text.find(fence).map(|at| (at, &text[at + fence.len()..])))
        .min_by_key(|(at, _)| *at)?;
    let body = rest
        .strip_prefix(|c: char| c == ' ' || c == '\t')
        .unwrap_or(rest);
    let body = body.split_once('\n').map_or("", |(_, b)| b);
    let end = body.find("```")?;
    Some(body[..end].trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_openrouter_reply_gives_its_usage_cost_and_time() {
        let m = json!({"role": "assistant", "content": "THOUGHT: look\n\n```bash\nls -R\n```",
            "extra": {"response": {"id": "gen-1", "model": "google/gemini-3-pro-preview",
                "created": 1763510516, "usage": {"prompt_tokens": 1662, "completion_tokens": 106,
                "cost": 0.004596, "prompt_tokens_details": {"cached_tokens": 0}}}}});
        let r = reply(&m).unwrap();
        assert_eq!(r.id.as_deref(), Some("gen-1"));
        assert_eq!(r.model.as_deref(), Some("google/gemini-3-pro-preview"));
        assert_eq!(r.timestamp.unwrap().as_second(), 1_763_510_516);
        let u = r.usage.unwrap();
        assert_eq!(
            (
                u.prompt_tokens,
                u.cached_tokens,
                u.completion_tokens,
                u.cost_usd
            ),
            (1662, 0, 106, Some(0.004596))
        );
        assert_eq!(u.cache_write_tokens, None);
        let a = actions(&m, 2, m.get("content").and_then(Value::as_str));
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].label.as_str(), a[0].input_bytes), ("bash: ls -R", 0));
    }

    #[test]
    fn extra_cost_stands_in_where_usage_has_none_but_zero_is_untracked() {
        let m = json!({"extra": {"cost": 0.0013, "response": {"usage": {"prompt_tokens": "10", "completion_tokens": 2}}}});
        assert_eq!(reply(&m).unwrap().usage.unwrap().cost_usd, Some(0.0013));
        let m = json!({"extra": {"cost": 0.0, "response": {"usage": {"prompt_tokens": 10, "completion_tokens": 2}}}});
        assert_eq!(reply(&m).unwrap().usage.unwrap().cost_usd, None);
        let m = json!({"extra": {"response": {"usage": {"prompt_tokens": 10}}}});
        assert_eq!(reply(&m).unwrap().usage, None);
        assert!(reply(&json!({"role": "user", "content": "x"})).is_none());
    }

    #[test]
    fn tool_calls_and_responses_items_are_actions_with_bytes() {
        let m = json!({"content": null, "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "bash", "arguments": "{\"command\": \"cat a.py\"}"}}]});
        let a = actions(&m, 3, None);
        assert_eq!(a[0].id, "call_1");
        assert_eq!(a[0].label, "bash: cat a.py");
        assert_eq!(a[0].input_bytes, 4 + 23);
        let r = json!({"object": "response", "model": "gpt-5.5", "created_at": 1000,
            "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 25}, "output_tokens": 40},
            "output": [{"type": "reasoning"}, {"type": "message", "content": [{"type": "output_text", "text": "ok"}]},
                {"type": "function_call", "call_id": "c9", "name": "bash", "arguments": "{\"command\":\"ls\"}"}]});
        let u = reply(&r).unwrap().usage.unwrap();
        assert_eq!(
            (u.prompt_tokens, u.cached_tokens, u.completion_tokens),
            (100, 25, 40)
        );
        assert_eq!(visible_content(&r).bytes, 2);
        assert_eq!(actions(&r, 1, None)[0].id, "c9");
    }

    #[test]
    fn command_blocks_are_found_in_either_fence() {
        assert_eq!(
            command_block("a\n```bash\nls -la\n```\nb").as_deref(),
            Some("ls -la")
        );
        assert_eq!(
            command_block("```mswea_bash_command\necho hi\n```").as_deref(),
            Some("echo hi")
        );
        assert_eq!(command_block("no block"), None);
        assert_eq!(command_block("```bash\nunterminated"), None);
    }
}
