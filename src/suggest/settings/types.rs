//! The data a suggestion's settings are: the agent a session came from, a key with its
//! value, one suggestion in one agent's terms. Apart from the code that fills them
//! (`super`), so the report can hold them without importing that code.

use crate::history::files::Loaded;
use serde::{Deserialize, Serialize};

/// Claude Code's settings fragment, written beside `suggested.toml`.
pub const CLAUDE_CODE_FILE: &str = "claude-code.settings.json";
/// Codex CLI's.
pub const CODEX_FILE: &str = "codex.config.toml";

/// Where a session ran: an agent with settings of its own, or an API used directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
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

impl HowTo {
    /// Whether it changes the cost of this agent's sessions at all (in dollars where
    /// priced): a saving or a loss, not a zero.
    pub fn changes(&self) -> bool {
        self.dollars_saved
            .map_or(self.cost_saved != 0.0, |d| d != 0.0)
    }
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

impl Value {
    /// The value as a sentence quotes it: text as is, a list joined by `, `.
    pub fn plain(&self) -> String {
        match self {
            Value::Text(t) => t.clone(),
            Value::Integer(n) => n.to_string(),
            Value::List(l) => l.join(", "),
        }
    }
}

/// A suggestion's saving over one agent's sessions only: the history's per-session rows
/// of that agent summed (a setting changes only its own agent's sessions).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Share {
    pub sessions: usize,
    pub priced_sessions: usize,
    /// Σ cost saved, input-token equivalents, and Σ baseline cost, over the sessions.
    pub cost_saved: f64,
    pub baseline_cost: f64,
    /// Σ dollars saved over the priced sessions; None where none is priced.
    pub dollars_saved: Option<f64>,
    /// For an edit that removes results, its savings at each re-fetch rate summed over
    /// these sessions: where it stops saving for this agent, which the total's rate need
    /// not be.
    pub refetch: crate::history::refetch::RefetchSums,
}

impl Share {
    /// Whether it saves: in dollars where priced (a saving in input-token equivalents can
    /// be a loss in dollars across models), else in cost.
    pub fn saves(&self) -> bool {
        self.dollars_saved
            .map_or(self.cost_saved > 0.0, |d| d > 0.0)
    }

    /// Percent of the sessions' baseline cost saved (0 for no cost).
    pub fn cost_saved_pct(&self) -> f64 {
        if self.baseline_cost == 0.0 {
            0.0
        } else {
            100.0 * self.cost_saved / self.baseline_cost
        }
    }
}

/// One suggestion in one agent's terms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HowTo {
    /// Whether it saves over this agent's sessions ([`Share::saves`]): only then is it in
    /// the agent's settings fragment; otherwise the table says what it adds there.
    pub saves: bool,
    pub agent: Agent,
    /// The candidate's name, as in `suggested.toml`.
    pub edit: String,
    /// The rank by cost over every session (the suggestion's own).
    pub cost_rank: usize,
    /// The sessions from this agent: what the saving below rests on; of them, priced.
    pub sessions: usize,
    pub priced_sessions: usize,
    /// Σ dollars saved over this agent's priced sessions; None where none is priced.
    pub dollars_saved: Option<f64>,
    /// Σ cost saved over this agent's sessions, input-token equivalents, and its share of
    /// their summed baseline cost.
    pub cost_saved: f64,
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
