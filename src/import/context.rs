//! Claude Code's `/context` text → `[[base.part]]`s (`simulate import context FILE`,
//! `simulate suggest --context FILE`).
//!
//! Why: a session log never sizes what rides in every request before the conversation
//! (the system prompt, the tool definitions, the memory files); Claude Code's `/context`
//! command estimates each, in tokens. Pasted into a file, it sizes the base's parts.
//!
//! The shapes read (Claude Code 1.0.86 to 2.1.x, as pasted in public issues: anthropics/
//! claude-code #13717, #20760, #55336, read 2026-12-02; src/import/README.md):
//! - category lines, after the grid of ⛁ ⛀ ⛶ ⛝ glyphs: `⛁ System tools: 11.9k tokens
//!   (6.0%)`, `MCP tools (deferred): 5.9k tokens (0.6%)`, `Free space: 164.6k (82.3%)`;
//!   or the same as Markdown table rows (`| System tools | 11.9k | 6.0% |`, what `claude
//!   -p "/context"` prints);
//! - the MCP section, `MCP tools · /mcp` (`(loaded on-demand)` when tool search defers
//!   them), one line a tool: `└ mcp__github__get_issue (github): 1.1k tokens`, or
//!   `└ mcp__github__get_issue: 1.1k tokens`, or collapsed: `└ 24 tools · 3.9k tokens`.
//!
//! Figures are Claude Code's estimates, rounded as printed (`3.2k`: to 100 tokens); the
//! parts' sources say so.

use crate::error::Located;
use crate::scenario::{BasePart, LabelGlob};
use std::collections::BTreeMap;

/// One category of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    /// As printed, without `(deferred)`: `System tools`.
    pub name: String,
    pub tokens: f64,
    /// `(deferred)` after the name: loaded on demand.
    pub deferred: bool,
}

/// One MCP tool of the MCP section.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    /// `mcp__github__get_issue`.
    pub name: String,
    pub server: String,
    pub tokens: f64,
}

/// What a `/context` text says.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContextText {
    /// In the order printed, each name once (the first).
    pub categories: Vec<Category>,
    /// The MCP section's tools with their tokens, in the order printed.
    pub mcp_tools: Vec<McpTool>,
    /// The MCP section says `(loaded on-demand)`: tool search defers them.
    pub mcp_on_demand: bool,
}

/// Categories that are not the base: the conversation, and what is left of the window.
const NOT_BASE: &[&str] = &[
    "Messages",
    "Free space",
    "Autocompact buffer",
    "Compact buffer",
    "Reserved",
];

/// Characters of the grid, the tree and the prompt, stripped from a line's start.
fn is_glyph(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '⛁' | '⛀' | '⛶' | '⛝' | '⎿' | '│' | '├' | '└' | '─' | '❯' | '>'
        )
}

/// `3.2k` → 3,200; `907` → 907; `~80` → 80; `< 20` → 20 (its bound); `1.1m` → 1.1e6.
fn tokens(text: &str) -> Option<f64> {
    let t = text.trim().trim_start_matches(['~', '<', '≈']).trim();
    let (number, factor) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 1e3),
        (i, 'm' | 'M') => (&t[..i], 1e6),
        _ => (t, 1.0),
    };
    let v: f64 = number.trim().replace(',', "").parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v * factor)
}

/// `NAME: 3.2k tokens (1.6%)` or `NAME: 164.6k (82.3%)` → (NAME, tokens).
fn name_and_tokens(line: &str) -> Option<(&str, f64)> {
    let (name, rest) = line.rsplit_once(": ")?;
    let value = rest.split(['(', 't']).next()?;
    Some((name.trim(), tokens(value)?))
}

/// Reads `/context` text; `file` names it in messages. Errors: no category line found.
pub fn parse(text: &str, file: &str) -> Result<ContextText, Located> {
    let mut out = ContextText::default();
    let mut in_mcp = false;
    for raw in text.lines() {
        let line = raw.trim_start_matches(is_glyph).trim_end();
        if line.is_empty() {
            continue;
        }
        // A Markdown table row: | name | tokens | percent |.
        if line.starts_with('|') {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            if let [name, value, ..] = cells.as_slice()
                && let Some(t) = tokens(value.trim_end_matches("tokens").trim())
            {
                if let Some(tool) = name.strip_prefix("mcp__") {
                    push_tool(&mut out, &format!("mcp__{tool}"), None, t);
                } else {
                    push_category(&mut out, name, t);
                }
            }
            continue;
        }
        if let Some((head, rest)) = line.split_once(" · ") {
            // A section header: `MCP tools · /mcp (loaded on-demand)`.
            if !raw.trim_start().starts_with(['└', '├']) {
                in_mcp = head.trim() == "MCP tools";
                if in_mcp {
                    out.mcp_on_demand |= rest.contains("on-demand");
                }
                continue;
            }
        }
        let tree = raw.trim_start().starts_with(['└', '├']);
        if tree && in_mcp {
            if let Some(name) = line
                .split([' ', ':'])
                .next()
                .filter(|n| n.starts_with("mcp__"))
                && let Some((_, t)) = name_and_tokens(line)
            {
                let server = line
                    .split_once(" (")
                    .and_then(|(_, r)| r.split_once("):"))
                    .map(|(s, _)| s.to_string());
                push_tool(&mut out, name, server, t);
            }
            continue;
        }
        if tree {
            continue;
        }
        if let Some((name, t)) = name_and_tokens(line) {
            // The grid's neighbour: `claude-opus-4-1 • 35k/200k tokens (18%)` has no colon
            // before its figure, so it never gets here; a model name line neither.
            push_category(&mut out, name, t);
        }
    }
    if out.categories.is_empty() {
        return Err(Located::new(
            file,
            "no /context category found (lines such as `System tools: 11.9k tokens (6.0%)`): paste the whole output of Claude Code's /context command into the file",
        ));
    }
    Ok(out)
}

fn push_category(out: &mut ContextText, name: &str, tokens: f64) {
    let (name, deferred) = match name.strip_suffix("(deferred)") {
        Some(n) => (n.trim(), true),
        None => (name, false),
    };
    const KNOWN: &[&str] = &[
        "System prompt",
        "System tools",
        "MCP tools",
        "Custom agents",
        "Memory files",
        "Skills",
        "Messages",
        "Free space",
        "Autocompact buffer",
        "Compact buffer",
        "Reserved",
    ];
    if !KNOWN.contains(&name) {
        return;
    }
    if out
        .categories
        .iter()
        .any(|c| c.name == name && c.deferred == deferred)
    {
        return;
    }
    out.categories.push(Category {
        name: name.to_string(),
        tokens,
        deferred,
    });
}

fn push_tool(out: &mut ContextText, name: &str, server: Option<String>, tokens: f64) {
    let server = server.unwrap_or_else(|| server_of(name).to_string());
    out.mcp_tools.push(McpTool {
        name: name.to_string(),
        server,
        tokens,
    });
}

/// The server of `mcp__<server>__<tool>` (the text between the first two `__`); the whole
/// name without its prefix where there is no second `__`.
pub fn server_of(tool: &str) -> &str {
    let rest = tool.strip_prefix("mcp__").unwrap_or(tool);
    rest.split_once("__").map_or(rest, |(server, _)| server)
}

/// A glob that matches `text` exactly or as written (`mcp__github__*`).
fn glob(text: &str) -> LabelGlob {
    LabelGlob {
        text: text.to_string(),
        // Escaped where a server name holds glob characters; the text keeps them.
        pattern: glob::Pattern::new(text).unwrap_or_else(|_| {
            glob::Pattern::new(&glob::Pattern::escape(text)).unwrap_or_default()
        }),
    }
}

/// The glob of every tool of `server`.
pub fn server_tools(server: &str) -> LabelGlob {
    glob(&format!(
        "{}__*",
        glob::Pattern::escape(&format!("mcp__{server}"))
    ))
}

/// The base parts `/context` sizes, each with `source` (what was read, and when):
/// `system prompt`, `system tools`, one `mcp:<server>` per server of the MCP section (its
/// tools' tokens summed; `mcp` for all of them where the section lists no tool with its
/// tokens), `custom agents`, `memory files`, `skills` (served by the `Skill` tool).
/// Deferred categories and an on-demand MCP section give parts marked `deferred`.
pub fn parts(c: &ContextText, source: &str) -> Vec<BasePart> {
    let mut parts = Vec::new();
    let estimate = format!("{source} (Claude Code's estimate, rounded as printed)");
    let part = |name: &str, tokens: f64, tools: Vec<LabelGlob>, deferred: bool| BasePart {
        name: name.to_string(),
        tokens,
        source: estimate.clone(),
        tools,
        deferred,
    };
    for cat in &c.categories {
        if NOT_BASE.contains(&cat.name.as_str()) {
            continue;
        }
        let deferred = cat.deferred;
        let suffix = if deferred { " (deferred)" } else { "" };
        match cat.name.as_str() {
            "MCP tools" => {
                let listed: Vec<&McpTool> = c.mcp_tools.iter().collect();
                // Per server where the section lists tools (only for the category the
                // section belongs to: deferred with an on-demand section, else loaded).
                if !listed.is_empty() && deferred == c.mcp_on_demand {
                    let mut servers: BTreeMap<&str, f64> = BTreeMap::new();
                    for t in listed {
                        *servers.entry(t.server.as_str()).or_default() += t.tokens;
                    }
                    for (server, tokens) in servers {
                        parts.push(part(
                            &format!("mcp:{server}{suffix}"),
                            tokens,
                            vec![server_tools(server)],
                            deferred || c.mcp_on_demand,
                        ));
                    }
                } else {
                    parts.push(part(
                        &format!("mcp{suffix}"),
                        cat.tokens,
                        vec![glob("mcp__*")],
                        deferred || (c.mcp_on_demand && c.mcp_tools.is_empty()),
                    ));
                }
            }
            "Skills" => parts.push(part(
                &format!("skills{suffix}"),
                cat.tokens,
                vec![glob("Skill")],
                deferred,
            )),
            other => parts.push(part(
                &format!("{}{suffix}", other.to_lowercase()),
                cat.tokens,
                Vec::new(),
                deferred,
            )),
        }
    }
    parts
}

/// The parts of the file at `path`: `/context` text, or a file of `[[base.part]]` tables
/// (what `simulate import context` wrote, an edits file). Errors: unreadable, or neither.
pub fn read_parts(path: &std::path::Path) -> Result<Vec<BasePart>, crate::error::Error> {
    let text = crate::input::read_to_string(path, crate::input::Kind::Scenario)?;
    let shown = path.display().to_string();
    if text.lines().any(|l| l.trim() == "[[base.part]]") {
        return crate::scenario::load_parts_str(&text, path);
    }
    let c = parse(&text, &shown)?;
    Ok(parts(&c, &format!("/context ({})", file_name(path))))
}

/// The file's name, as a source names it.
fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// What `simulate import context` writes: a header saying what the file is and how to use
/// it, then one `[[base.part]]` table a part.
pub fn parts_file(parts: &[BasePart], from: &str) -> String {
    let mut out = format!(
        "# Base parts read by `simulate import context` from Claude Code's /context output\n\
         # ({from}): tokens are Claude Code's estimates, rounded as printed. B is the parts\n\
         # plus the rest. Use them with:\n\
         #   simulate suggest DIR --context THIS_FILE   (propose dropping or deferring parts)\n\
         #   or copy the tables into an edits file beside [[edit]] tables such as\n\
         #   base = {{ drop = \"mcp:github\" }} for `simulate history DIR --edits FILE`.\n"
    );
    for p in parts {
        out.push('\n');
        out.push_str(&p.toml_table());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_figures_as_printed() {
        assert_eq!(tokens("3.2k"), Some(3_200.0));
        assert_eq!(tokens("907"), Some(907.0));
        assert_eq!(tokens("~80"), Some(80.0));
        assert_eq!(tokens("< 20"), Some(20.0));
        assert_eq!(tokens("1,204"), Some(1_204.0));
        assert_eq!(tokens("lots"), None);
        assert_eq!(
            server_of("mcp__claude_ai_Gmail__authenticate"),
            "claude_ai_Gmail"
        );
        assert_eq!(server_of("mcp__n8n-mcp__n8n_health_check"), "n8n-mcp");
    }

    #[test]
    fn collapsed_deferred_and_markdown_shapes() {
        let collapsed = "⛁ System prompt: 3.8k tokens (0.4%)\n⛁ MCP tools: 3.9k tokens (0.4%)\n⛁ Messages: 143.6k tokens (14.4%)\n\n     MCP tools · /mcp (loaded on-demand)\n     └ 24 tools · 3.9k tokens\n";
        let c = parse(collapsed, "c.txt").unwrap();
        let p = parts(&c, "/context (c.txt)");
        let names: Vec<(&str, f64, bool)> = p
            .iter()
            .map(|p| (p.name.as_str(), p.tokens, p.deferred))
            .collect();
        assert_eq!(
            names,
            vec![("system prompt", 3_800.0, false), ("mcp", 3_900.0, true)]
        );
        let deferred = "⛁ MCP tools: 1.2k tokens (0.1%)\n⛁ MCP tools (deferred): 5.9k tokens (0.6%)\n\n     MCP tools · /mcp\n     └ mcp__ide__getDiagnostics: 700 tokens\n     └ mcp__ide__executeCode: 500 tokens\n";
        let p = parts(&parse(deferred, "d.txt").unwrap(), "s");
        let names: Vec<(&str, f64, bool)> = p
            .iter()
            .map(|p| (p.name.as_str(), p.tokens, p.deferred))
            .collect();
        assert_eq!(
            names,
            vec![
                ("mcp:ide", 1_200.0, false),
                ("mcp (deferred)", 5_900.0, true)
            ]
        );
        let markdown = "| Category | Tokens | Percentage |\n|---|---|---|\n| System prompt | 6.2k | 0.6% |\n| Skills | 333 | 0.0% |\n| Free space | 758.9k | 75.9% |\n";
        let p = parts(&parse(markdown, "m.txt").unwrap(), "s");
        let names: Vec<(&str, f64)> = p.iter().map(|p| (p.name.as_str(), p.tokens)).collect();
        assert_eq!(names, vec![("system prompt", 6_200.0), ("skills", 333.0)]);
    }

    #[test]
    fn a_text_without_categories_is_refused() {
        let e = parse("hello\nworld\n", "c.txt").unwrap_err();
        assert!(e.to_string().contains("no /context category"), "{e}");
    }
}
