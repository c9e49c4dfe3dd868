//! Claude Code's settings for the suggestions: environment variables set in
//! `~/.claude/settings.json`'s `env` (or exported in the shell), and its settings keys.
//! Each key, its page and the date read: docs/settings.md.

use super::types::{Key, Value};
use super::workflow;
use crate::suggest::report::Suggested;
use crate::suggest::rules::Family;

/// The context window the auto-compaction percentage is of, tokens: Claude Code's
/// standard window (code.claude.com/docs/en/env-vars, CLAUDE_CODE_AUTO_COMPACT_WINDOW,
/// read 2026-12-02); 1M-context models use 1,000,000 unless that variable says otherwise.
pub const WINDOW_TOKENS: f64 = 200_000.0;

/// The percentage auto-compaction triggers at by default ("approximately 95 %",
/// code.claude.com/docs/en/env-vars, read 2026-12-02): the override only lowers it.
pub const DEFAULT_COMPACT_PCT: f64 = 95.0;

/// Bash output kept by default, characters (code.claude.com/docs/en/env-vars,
/// BASH_MAX_OUTPUT_LENGTH, read 2026-12-02).
pub const BASH_DEFAULT_CHARS: f64 = 30_000.0;

/// Bytes per token for a byte cap turned into MCP output tokens: assumed (the project's
/// default ρ; the session's fitted ρ is not carried into the suggestion).
pub const MCP_BYTES_PER_TOKEN: f64 = 3.3;

/// The key (if any) and the sentence for `s`.
pub fn how(s: &Suggested) -> (Option<Key>, String) {
    let p = &s.parameters;
    if s.action.contains(crate::scenario::provider::OPENAI_COMPACT) {
        return (
            None,
            "not for Claude Code: OpenAI's server-side compaction".into(),
        );
    }
    let env = |name: &str, value: String, limits: String| Key {
        path: format!("env.{name}"),
        value: Value::Text(value),
        limits,
    };
    let key = match s.family {
        Family::Cap => match (p.tool.as_deref(), p.max_bytes) {
            (Some("Bash"), Some(bytes)) => Some(env(
                "BASH_MAX_OUTPUT_LENGTH",
                format!("{bytes:.0}"),
                format!(
                    "characters, not bytes (the same for ASCII output); Claude Code cuts the middle of a longer output, keeping its start and end; the default is {:.0}",
                    BASH_DEFAULT_CHARS
                ),
            )),
            (Some(tool), Some(bytes)) if tool.starts_with("mcp__") => Some(env(
                "MAX_MCP_OUTPUT_TOKENS",
                format!("{:.0}", (bytes / MCP_BYTES_PER_TOKEN).ceil()),
                format!(
                    "tokens ({bytes:.0} bytes at an assumed {MCP_BYTES_PER_TOKEN} bytes per token), for every MCP tool, not only {tool}; an MCP result above it is refused with an error and the agent asks again with paging, where the simulation cut it: the saving is an upper bound"
                ),
            )),
            _ => None,
        },
        // Auto-compaction fires when the context passes its threshold: it cannot wait
        // for a cold cache.
        Family::Compaction if p.at_cold => None,
        Family::Compaction => p.threshold_tokens.map(|t| {
            let pct = (100.0 * t / WINDOW_TOKENS).round().clamp(1.0, 100.0);
            env(
                "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
                format!("{pct:.0}"),
                format!(
                    "a percentage of the context window ({} tokens assumed; on a 1M-context model also set CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000); it only lowers the default of about {DEFAULT_COMPACT_PCT:.0} %: a higher value has no effect{}; reported ignored when set in settings.json's env (anthropics/claude-code#63186): export it in the shell to be sure",
                    crate::number::grouped(WINDOW_TOKENS, 0),
                    if pct >= DEFAULT_COMPACT_PCT {
                        " (this one is at or above it: the default already compacts there)"
                    } else {
                        ""
                    }
                ),
            )
        }),
        // Only MCP servers have these keys; the part is named `mcp:NAME` after its server.
        // A claude.ai connector (`claude_ai_*`) is not a server of a project's .mcp.json,
        // and skills or the system prompt are no server at all: no key for them.
        Family::ToolDefinitions => match (p.part_action, mcp_server(p.part.as_deref())) {
            (Some("defer"), Some(_)) => Some(env(
                "ENABLE_TOOL_SEARCH",
                "true".into(),
                "defers every MCP server's tool definitions until the agent searches for them (the default on Anthropic's own API; off by default behind a proxy or gateway, ANTHROPIC_BASE_URL)".into(),
            )),
            (Some("drop"), Some(server)) => Some(Key {
                path: "disabledMcpjsonServers".into(),
                value: Value::List(vec![server.to_string()]),
                limits: "only servers from a project's .mcp.json; a server added with `claude mcp add` is removed with `claude mcp remove NAME` or turned off in /mcp".into(),
            }),
            _ => None,
        },
        _ => None,
    };
    let how = match &key {
        Some(k) if k.path.starts_with("env.") => format!(
            "{}={} (\"env\" in ~/.claude/settings.json, or export it){}",
            &k.path[4..],
            k.value.plain(),
            brief(&k.path[4..])
        ),
        Some(k) => format!(
            "add {} to \"{}\" in .claude/settings.json (servers of a project's .mcp.json; others: `claude mcp remove NAME`)",
            k.value.plain(),
            k.path
        ),
        None => match s.family {
            Family::ContextEditing => "no setting exposes the API's context editing; nearest: an earlier auto-compaction (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE); through the API or the Agent SDK: the context_management block".into(),
            Family::HourCache => "no documented setting found (read 2026-12-02): the cache's 1-hour lifetime is the API's cache_control ttl, which Claude Code sets itself".into(),
            Family::Retention => "not for Claude Code: OpenAI's cache retention".into(),
            Family::ToolDefinitions => not_a_server(p.part.as_deref().unwrap_or("this part")),
            _ => workflow(s, "CLAUDE.md"),
        },
    };
    (key, how)
}

/// The server's name of an `mcp:NAME` part that `.mcp.json` can hold (not a claude.ai
/// connector, `claude_ai_*`, connected in claude.ai's settings, nor a plugin's server,
/// `plugin_*`, which comes and goes with its plugin).
fn mcp_server(part: Option<&str>) -> Option<&str> {
    part?.strip_prefix("mcp:").filter(|name| {
        !name.is_empty() && !name.starts_with("claude_ai_") && !name.starts_with("plugin_")
    })
}

/// What makes a part without a key real: a connector turned off, skills removed.
fn not_a_server(part: &str) -> String {
    if part.starts_with("mcp:claude_ai_") {
        format!(
            "no setting of Claude Code: {part} is a claude.ai connector (not a server of .mcp.json); turn it off where it was connected (claude.ai's connector settings, or /mcp)"
        )
    } else if part.starts_with("mcp:plugin_") {
        format!(
            "no setting of Claude Code: {part} is a plugin's MCP server (not a server of .mcp.json); disable the plugin that brings it (/plugin) while it is not needed"
        )
    } else if part.starts_with("skills") {
        "no setting: the skills' listing is what ~/.claude/skills, .claude/skills and plugins install; remove the skills not needed (their names stay listed while installed)".into()
    } else {
        format!(
            "no setting found for {part}: remove it from the agent's tools while it is not needed"
        )
    }
}

/// The limit to say beside a key in the table (the whole in the fragment and the JSON).
fn brief(name: &str) -> &'static str {
    match name {
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE" => {
            ": of a 200,000-token window; it only lowers the ~95 % default, and is reported ignored from settings.json's env (anthropics/claude-code#63186): export it to be sure"
        }
        "BASH_MAX_OUTPUT_LENGTH" => ": characters; the middle of a longer output is cut",
        "MAX_MCP_OUTPUT_TOKENS" => {
            ": every MCP tool's; a longer result is refused, not cut (the saving is an upper bound)"
        }
        _ => "",
    }
}
