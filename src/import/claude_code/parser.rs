//! One Claude Code transcript line → a typed record.
//!
//! Only the fields the ledger needs are declared; serde skips the rest without building
//! them (notably `toolUseResult`, which repeats a tool's whole output). Tool results are
//! measured, not kept ([`ContentBytes`]).

use crate::import::json::{ContentBytes, RawContentBytes, RawStringBytes, StrOrNot};
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// One line of a transcript.
#[derive(Debug, Deserialize)]
pub struct Line<'a> {
    #[serde(
        rename = "type",
        borrow,
        default,
        deserialize_with = "crate::import::json::borrowed"
    )]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub subtype: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    pub is_sidechain: Option<bool>,
    #[serde(rename = "isMeta", default)]
    pub is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary", default)]
    pub is_compact_summary: Option<bool>,
    #[serde(rename = "isApiErrorMessage", default)]
    pub is_api_error: Option<bool>,
    #[serde(
        rename = "sessionId",
        borrow,
        default,
        deserialize_with = "crate::import::json::borrowed"
    )]
    pub session_id: Option<Cow<'a, str>>,
    #[serde(
        rename = "agentId",
        borrow,
        default,
        deserialize_with = "crate::import::json::borrowed"
    )]
    pub agent_id: Option<Cow<'a, str>>,
    #[serde(
        rename = "requestId",
        borrow,
        default,
        deserialize_with = "crate::import::json::borrowed"
    )]
    pub request_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub uuid: Option<Cow<'a, str>>,
    /// The line this one follows: `Some(None)` for an explicit null, the root of a
    /// conversation (a session's first line, or a subagent's first line in 1.0.x, which
    /// writes subagents into the parent's file); None when the key is absent.
    #[serde(rename = "parentUuid", borrow, default, deserialize_with = "present")]
    pub parent_uuid: Option<Option<Cow<'a, str>>>,
    #[serde(borrow, default)]
    pub message: Option<Message<'a>>,
    #[serde(borrow, default)]
    pub attachment: Option<Attachment<'a>>,
    /// `compact_boundary`: what the compaction was.
    #[serde(rename = "compactMetadata", borrow, default)]
    pub compact_metadata: Option<CompactMetadata<'a>>,
}

/// `compactMetadata` of a `compact_boundary` line.
#[derive(Debug, Deserialize)]
pub struct CompactMetadata<'a> {
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub trigger: Option<Cow<'a, str>>,
    #[serde(rename = "preTokens", default)]
    pub pre_tokens: Option<u64>,
}

/// `attachment` (Claude Code 2.1.x): something the client adds beside the conversation —
/// hook output, the skill listing, task reminders, deferred tool names.
#[derive(Debug, Deserialize)]
pub struct Attachment<'a> {
    #[serde(
        rename = "type",
        borrow,
        default,
        deserialize_with = "crate::import::json::borrowed"
    )]
    pub kind: Option<Cow<'a, str>>,
    #[serde(
        rename = "hookEvent",
        borrow,
        default,
        deserialize_with = "crate::import::json::borrowed"
    )]
    pub hook_event: Option<Cow<'a, str>>,
    /// The text it adds (a string, or a list of strings or objects): measured only.
    #[serde(default)]
    pub content: Option<RawStringBytes>,
    /// `deferred_tools_delta`: the tool names it announces.
    #[serde(rename = "addedLines", default)]
    pub added_lines: Option<RawStringBytes>,
    /// `deferred_tools_delta`: the tools deferred from now on, and those no longer.
    #[serde(rename = "addedNames", default)]
    pub added_names: Option<Vec<String>>,
    #[serde(rename = "removedNames", default)]
    pub removed_names: Option<Vec<String>>,
}

/// A key that is present: its value, null included (`Some(None)`); an absent key is
/// None through `default`.
fn present<'de: 'a, 'a, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<Cow<'a, str>>>, D::Error> {
    crate::import::json::borrowed(d).map(Some)
}

/// `message`: the API message of a user or assistant line.
#[derive(Debug, Deserialize)]
pub struct Message<'a> {
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub content: Content<'a>,
    #[serde(default)]
    pub usage: Option<ApiUsage>,
}

/// `message.usage`, as the Messages API reports it.
#[derive(Debug, Default, Deserialize)]
pub struct ApiUsage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_creation_input_tokens: Option<u64>,
    pub cache_read_input_tokens: Option<u64>,
    pub cache_creation: Option<CacheCreation>,
    pub server_tool_use: Option<ServerToolUse>,
}

#[derive(Debug, Default, Deserialize)]
pub struct CacheCreation {
    /// The 5-minute part is the rest of `cache_creation_input_tokens`; not needed.
    pub ephemeral_1h_input_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ServerToolUse {
    pub web_search_requests: Option<u64>,
    pub web_fetch_requests: Option<u64>,
}

/// `message.content`: a string, or a list of blocks.
#[derive(Debug, Default)]
pub enum Content<'a> {
    #[default]
    Empty,
    Text(ContentBytes),
    Blocks(Vec<Block<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content<'a>, E> {
                ContentBytes::deserialize(de::value::StrDeserializer::new(v)).map(Content::Text)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Content<'a>, E> {
                Ok(Content::Empty)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// One content block. Which fields are set depends on `type`: `text` (text), `tool_use`
/// and `server_tool_use` (id, name, input), `tool_result` (tool_use_id, content),
/// `web_search_tool_result` and `web_fetch_tool_result` (tool_use_id, content), `image`.
#[derive(Debug, Deserialize)]
pub struct Block<'a> {
    #[serde(
        rename = "type",
        borrow,
        default,
        deserialize_with = "crate::import::json::borrowed"
    )]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default)]
    pub text: Option<RawContentBytes>,
    /// A `thinking` block's text: empty where the log keeps only its signature.
    #[serde(default)]
    pub thinking: Option<RawContentBytes>,
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub name: Option<StrOrNot>,
    #[serde(default)]
    pub input: Option<Value>,
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub tool_use_id: Option<Cow<'a, str>>,
    /// A result, measured from its raw JSON (see [`RawContentBytes`]).
    #[serde(default)]
    pub content: Option<RawContentBytes>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Optional strings are borrowed from the line (no allocation) unless they hold an
    /// escape, and read the same either way.
    #[test]
    fn optional_strings_are_borrowed_where_they_can_be() {
        let l: Line = serde_json::from_str(
            r#"{"type":"assistant","cwd":"a\"b","parentUuid":"p","uuid":null}"#,
        )
        .unwrap();
        assert!(matches!(l.kind, Some(Cow::Borrowed("assistant"))));
        assert!(matches!(l.cwd.as_deref(), Some("a\"b")));
        assert!(matches!(l.cwd, Some(Cow::Owned(_))));
        assert!(matches!(l.parent_uuid, Some(Some(Cow::Borrowed("p")))));
        assert!(l.uuid.is_none());
        let root: Line = serde_json::from_str(r#"{"parentUuid":null}"#).unwrap();
        assert!(matches!(root.parent_uuid, Some(None)));
    }

    #[test]
    fn an_assistant_line_parses_and_skips_what_it_does_not_need() {
        let line = r#"{"parentUuid":"p","isSidechain":false,"type":"assistant","toolUseResult":{"stdout":"huge"},"message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"..."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"output_tokens":9,"cache_creation":{"ephemeral_1h_input_tokens":7}}},"requestId":"req_1","timestamp":"2025-10-01T10:00:00.000Z"}"#;
        let l: Line = serde_json::from_str(line).unwrap();
        assert_eq!(l.kind.as_deref(), Some("assistant"));
        let m = l.message.unwrap();
        let Content::Blocks(blocks) = m.content else {
            panic!("blocks")
        };
        assert_eq!(blocks.len(), 2);
        assert_eq!(
            blocks[1].name.as_ref().and_then(|n| n.0.as_deref()),
            Some("Bash")
        );
        let u = m.usage.unwrap();
        assert_eq!(u.cache_creation.unwrap().ephemeral_1h_input_tokens, Some(7));
    }

    #[test]
    fn user_content_may_be_a_string() {
        let l: Line =
            serde_json::from_str(r#"{"type":"user","message":{"role":"user","content":"fix it"}}"#)
                .unwrap();
        let Some(Message {
            content: Content::Text(t),
            ..
        }) = l.message
        else {
            panic!("text")
        };
        assert_eq!(t.bytes, 6);
    }
}
