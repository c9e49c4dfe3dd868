//! The data a suggestion's settings are: the agent a session came from, a key with its
//! value, one suggestion in one agent's terms. Apart from the code that fills them
//! (`super`), so the report can hold them without importing that code.

use crate::history::files::Loaded;
use serde::Serialize;

/// Claude Code's settings fragment, written beside `suggested.toml`.
pub const CLAUDE_CODE_FILE: &str = "claude-code.settings.json";
/// Codex CLI's.
pub const CODEX_FILE: &str = "codex.config.toml";

/// Where a session ran: an agent with settings of its own, or an API used directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    ClaudeCode,
    Codex,
    AnthropicApi,
    OpenAiApi,
}

impl Agent {
    pub fn label(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::AnthropicApi => "Anthropic API",
            Agent::OpenAiApi => "OpenAI API",
        }
    }

    /// The settings fragment written for the agent; None for an API (its request fields
    /// are said in the table and the JSON).
    pub fn fragment_file(self) -> Option<&'static str> {
        match self {
            Agent::ClaudeCode => Some(CLAUDE_CODE_FILE),
            Agent::Codex => Some(CODEX_FILE),
            _ => None,
        }
    }

    /// The agent a session came from: its `[import] format` (Claude Code's transcripts or
    /// telemetry, Codex CLI's rollouts), else the API its usage convention names.
    pub fn of(l: &Loaded) -> Agent {
        let import = l.scenario.import.as_ref();
        match import.map(|i| i.format.as_str()) {
            Some("claude-code" | "otel") => Agent::ClaudeCode,
            Some("codex") => Agent::Codex,
            _ => match import.and_then(|i| i.convention) {
                Some(crate::scenario::Convention::OpenAi) => Agent::OpenAiApi,
                _ => Agent::AnthropicApi,
            },
        }
    }
}

/// A key to set, with its value as the settings file writes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Key {
    /// The key's path in the settings file: `env.BASH_MAX_OUTPUT_LENGTH` (Claude Code's
    /// settings.json), `model_auto_compact_token_limit` (Codex's config.toml).
    pub path: String,
    pub value: Value,
    /// The documented limits that decide whether the setting does what the edit
    /// simulated, in a sentence.
    pub limits: String,
}

/// A setting's value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// Environment variables are strings, even numeric ones.
    Text(String),
    Integer(u64),
    List(Vec<String>),
}

/// One suggestion in one agent's terms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HowTo {
    pub agent: Agent,
    /// The candidate's name, as in `suggested.toml`.
    pub edit: String,
    pub cost_rank: usize,
    /// Σ dollars saved over the priced sessions; None where none is priced.
    pub dollars_saved: Option<f64>,
    pub cost_saved_pct: f64,
    /// For an edit that removes results: how much re-fetching would undo it, as a clause
    /// (`stops saving if the agent re-fetches ≥ 0.5 of what it removes (…)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refetch: Option<String>,
    /// The key that makes it real; None where no setting does.
    pub key: Option<Key>,
    /// What to do, in a sentence: where the key goes, or what would do instead.
    pub how: String,
}
