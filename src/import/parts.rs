//! What a log shows of the base → `[[base.part]]`s of its scenario (docs/model.md §9).
//!
//! Why: dropping or deferring an MCP server is an edit on a named part of B, and a user
//! should not have to write the part by hand. A log names some parts and sizes fewer:
//! - the system prompt, where the log holds it (Codex's `base_instructions`): its bytes ÷
//!   the assumed ρ;
//! - the skill listing (Claude Code's `skill_listing` attachment): its bytes ÷ ρ; served by
//!   the `Skill` tool;
//! - each MCP server whose tools the calls use (`mcp__<server>__<tool>`), the client lists
//!   as deferred (`deferred_tools_delta`), or the telemetry says connected: deferred ones
//!   by the bytes of their names (what stays in every request), loaded ones by their tool
//!   definitions seen × the tokens per definition of `[terms]` (a lower bound: a server
//!   may define tools the session never used); a connected server none of whose tools is
//!   seen has no size, and is named in a comment only.
//!
//! Every part is bounded by what is left of B (the first request's measured input) after
//! the parts before it, and says so where it is cut; each says its source.

use super::trace::Trace;
use crate::import::context::{server_of, server_tools};
use crate::number::grouped;
use crate::scenario::{BasePart, LabelGlob};
use std::collections::{BTreeMap, BTreeSet};

/// One MCP server as the trace shows it.
#[derive(Default)]
struct Server {
    /// Its tools the calls used.
    used: BTreeSet<String>,
    /// Its tools the client lists as deferred.
    deferred: BTreeSet<String>,
    /// The telemetry says it connected.
    connected: bool,
}

/// What the scenario assumes of sizes the log does not give: its bytes per token, and the
/// tokens of one tool definition (`import::write`'s, passed in so imports flow one way).
#[derive(Debug, Clone, Copy)]
pub struct Assumed {
    pub bytes_per_token: f64,
    pub tokens_per_definition: f64,
}

/// The parts of `t` with a base of `base_tokens`, in the order written, and comment
/// lines for what the log names but cannot size.
pub fn parts(t: &Trace, base_tokens: u64, a: Assumed) -> (Vec<BasePart>, Vec<String>) {
    let d = &t.declared;
    let mut servers: BTreeMap<String, Server> = BTreeMap::new();
    for tool in &t.mcp_tools_used {
        let s = servers.entry(server_of(tool).to_string()).or_default();
        s.used.insert(tool.clone());
    }
    for tool in d.deferred_tools.iter().filter(|n| n.starts_with("mcp__")) {
        let s = servers.entry(server_of(tool).to_string()).or_default();
        s.deferred.insert(tool.clone());
    }
    for name in &d.mcp_servers {
        servers.entry(name.clone()).or_default().connected = true;
    }
    let rho = a.bytes_per_token;
    let by_bytes = |bytes: u64| bytes as f64 / rho;
    let mut wanted: Vec<BasePart> = Vec::new();
    let mut comments = Vec::new();
    if let Some(bytes) = d.system_prompt_bytes.filter(|&b| b > 0) {
        wanted.push(part(
            "system prompt",
            by_bytes(bytes),
            format!(
                "measured: the log's system prompt (base_instructions), {} bytes ÷ {rho} bytes per token (assumed)",
                grouped(bytes as f64, 0)
            ),
            Vec::new(),
            false,
        ));
    }
    if let Some(bytes) = d.skill_listing_bytes.filter(|&b| b > 0) {
        wanted.push(part(
            "skills",
            by_bytes(bytes),
            format!(
                "measured: the skill_listing attachment, {} bytes ÷ {rho} bytes per token (assumed)",
                grouped(bytes as f64, 0)
            ),
            vec![glob("Skill")],
            false,
        ));
    }
    for (name, s) in &servers {
        let loaded: BTreeSet<&String> = s.used.difference(&s.deferred).collect();
        if loaded.is_empty() && !s.deferred.is_empty() {
            // Deferred: only the names ride along, as the delta listed them.
            let bytes: u64 = s.deferred.iter().map(|n| n.len() as u64 + 1).sum();
            wanted.push(part(
                &format!("mcp:{name}"),
                by_bytes(bytes),
                format!(
                    "measured: deferred_tools_delta lists {} of its tools, whose definitions tool search loads on demand; what stays is their names, {} bytes ÷ {rho} bytes per token (assumed)",
                    s.deferred.len(),
                    grouped(bytes as f64, 0)
                ),
                vec![server_tools(name)],
                true,
            ));
        } else if !s.used.is_empty() {
            let n = s.used.len();
            wanted.push(part(
                &format!("mcp:{name}"),
                n as f64 * a.tokens_per_definition,
                format!(
                    "estimated: {n} tool definition{} the calls used (a lower bound: the server may define more) × {} tokens per definition (assumed; /context measures a server: simulate import context)",
                    if n == 1 { "" } else { "s" },
                    grouped(a.tokens_per_definition, 0)
                ),
                vec![server_tools(name)],
                false,
            ));
        } else if s.connected {
            comments.push(format!(
                "# MCP server {name:?} connected, but no call used its tools: its size is not in the log (simulate import context sizes it from /context)."
            ));
        }
    }
    // Bounded by B, in order: a part the rest of B cannot hold is cut to it.
    let mut left = base_tokens as f64;
    let mut out = Vec::new();
    for mut p in wanted {
        p.tokens = p.tokens.round();
        if left < 1.0 {
            comments.push(format!(
                "# {} not written: the parts before it fill the first request's measured input ({} tokens).",
                p.name,
                grouped(base_tokens as f64, 0)
            ));
            continue;
        }
        if p.tokens > left {
            p.source = format!(
                "{}; cut to {} tokens, what the first request's measured input ({} tokens) leaves after the parts before it",
                p.source,
                grouped(left.floor(), 0),
                grouped(base_tokens as f64, 0)
            );
            p.tokens = left.floor();
        }
        left -= p.tokens;
        out.push(p);
    }
    (out, comments)
}

fn part(
    name: &str,
    tokens: f64,
    source: String,
    tools: Vec<LabelGlob>,
    deferred: bool,
) -> BasePart {
    BasePart {
        name: name.to_string(),
        tokens,
        source,
        tools,
        deferred,
    }
}

fn glob(text: &str) -> LabelGlob {
    LabelGlob {
        text: text.to_string(),
        pattern: glob::Pattern::new(&glob::Pattern::escape(text)).unwrap_or_default(),
    }
}

/// The `[base]` section of the scenario of `t`: its parts and comments, or nothing.
pub fn render(t: &Trace, base_tokens: u64, a: Assumed) -> String {
    let (parts, comments) = parts(t, base_tokens, a);
    if parts.is_empty() && comments.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\n# What rides in every request, as far as the log shows it: the base's parts (B is\n# their sum plus the rest). `base = { drop = \"<part>\" }` or `{ defer = … }` in an\n# [[edit]] tries without one; `simulate suggest` proposes it where few calls use it.\n",
    );
    for c in comments {
        s.push_str(&c);
        s.push('\n');
    }
    for p in parts {
        s.push('\n');
        s.push_str(&p.toml_table());
    }
    s
}
