//! What a reader makes of one log file: events in line order, in no format's words.
//!
//! Readers know their log format and nothing about traces; the assembler
//! ([`super::assemble`]) knows traces and nothing about log formats. This file is the
//! contract between the two, so a new format only has to produce these events.

use compact_str::CompactString;
use jiff::Timestamp;
use std::collections::BTreeMap;

/// Measured usage of one API request, in the provider's own fields and convention.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// `input_tokens` as the provider reports it (Anthropic: excludes cache reads and
    /// writes; OpenAI/Codex: includes cached tokens).
    pub input_tokens: u64,
    /// `cache_creation_input_tokens` (Anthropic only; None where the provider has no such
    /// field, which is not the same as 0).
    pub cache_creation_input_tokens: Option<u64>,
    /// The 1-hour part of the cache writes (`cache_creation.ephemeral_1h_input_tokens`).
    pub cache_creation_1h_input_tokens: Option<u64>,
    /// `cache_read_input_tokens` (Codex: `cached_input_tokens`).
    pub cache_read_input_tokens: u64,
    /// `output_tokens` (Codex: includes `reasoning_output_tokens`).
    pub output_tokens: u64,
    /// What the request cost as the log measured it, US dollars (OpenRouter's
    /// `usage.cost`, ATIF's `metrics.cost_usd`); None where the log has none.
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// The request's total input in `convention`: Anthropic's input, cache writes and cache
    /// reads; OpenAI's input, which holds its cache reads.
    pub fn total_input(&self, convention: crate::scenario::Convention) -> u64 {
        match convention {
            crate::scenario::Convention::Anthropic => self
                .input_tokens
                .saturating_add(self.cache_creation_input_tokens.unwrap_or(0))
                .saturating_add(self.cache_read_input_tokens),
            crate::scenario::Convention::OpenAi => self.input_tokens,
        }
    }

    /// Every token the usage counts, for choosing the largest of several copies.
    pub fn size(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_creation_input_tokens.unwrap_or(0))
            .saturating_add(self.cache_read_input_tokens)
            .saturating_add(self.output_tokens)
    }
}

/// One tool the model asked for in a request.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUse {
    /// The provider's id for the use (`toolu_…`, Codex `call_id`), which results answer.
    pub id: CompactString,
    /// Tool name as the log writes it (`Bash`, `Read`, `shell`).
    pub name: CompactString,
    /// Tool name and a short argument, for people (`Bash: cargo test`).
    pub label: String,
    /// xxh3 of the tool name and the canonical JSON of its input.
    pub input_hash: u64,
    /// A web search or fetch: its result is pinned (sent back as received).
    pub web: bool,
    /// UTF-8 bytes of the tool name and its input as compact JSON: what the model's
    /// message puts back into the next request for this use.
    pub input_bytes: u64,
}

/// A text or thinking block of the model's own message, measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnBlock {
    /// Tells copies of one block apart from other blocks (kind, length and start).
    pub key: u64,
    /// UTF-8 bytes of its text.
    pub bytes: u64,
    /// A thinking block logged without its text (only a signature): what it puts back
    /// cannot be sized from the log.
    pub redacted: bool,
}

/// One line that asked the model something (one copy of an API request's response).
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Which conversation of the file the line belongs to (an index into [`FileLog::routes`]).
    pub route: usize,
    /// 1-based line number.
    pub line: u64,
    /// Dedupe key: Claude Code's `message.id`; Codex a key built from the usage event.
    pub message_key: CompactString,
    /// Second half of the dedupe key: Claude Code's `requestId`, None where it is missing.
    pub request_key: Option<CompactString>,
    /// The call id to write (`requestId`, else `message.id`).
    pub id: CompactString,
    pub timestamp: Option<Timestamp>,
    pub usage: Usage,
    pub model: Option<CompactString>,
    /// Tool uses in this copy (copies of one request may each hold some of them).
    pub tool_uses: Vec<ToolUse>,
    /// Bytes of server-side results carried in the response itself (web search results).
    pub result_bytes: u64,
    /// Text and thinking blocks of the model's message in this copy.
    pub own_blocks: Vec<OwnBlock>,
    /// Whether the format's log holds the model's message in full, so that it joins the
    /// next request as bytes rather than as its logged output tokens (docs/model.md §6.2;
    /// which formats do, with the evidence: `src/import/README.md`).
    pub own_sized: bool,
    /// The request used a server-side web search or fetch.
    pub web: bool,
}

/// Text the user wrote (or that was injected as a user message).
#[derive(Debug, Clone, PartialEq)]
pub struct UserText {
    /// A prompt a person typed, which starts a new topic segment (see the README for what
    /// counts).
    pub real_prompt: bool,
    /// A slash command the person typed (`/review src/`): a real prompt, but a typed
    /// prompt makes the better label.
    pub slash_command: bool,
    /// The start of the text, for labels.
    pub snippet: String,
}

impl UserText {
    /// Which text labels a call when several join it: a typed prompt, then a slash
    /// command, then any other text, the first of each kind.
    pub fn label_rank(&self) -> u8 {
        match (self.real_prompt, self.slash_command) {
            (true, false) => 2,
            (true, true) => 1,
            (false, _) => 0,
        }
    }
}

/// Something that joined the context after the latest request of its route.
#[derive(Debug, Clone, PartialEq)]
pub struct Joined {
    pub route: usize,
    /// UTF-8 bytes of text.
    pub bytes: u64,
    /// Images, counted by a token estimate rather than bytes.
    pub images: u64,
    /// Tool definitions loaded (`tool_reference` blocks of tool search).
    pub tool_references: u64,
    /// It came from an `attachment` line (hook output, reminders) rather than a result or
    /// a user message.
    pub attachment: bool,
    /// The tool use this answers (Claude `tool_use_id`, Codex `call_id`), when it is one.
    pub answers: Option<CompactString>,
    /// User text, when it is that.
    pub user_text: Option<UserText>,
    /// The id of the line it came from (Claude Code `uuid`), where lines have ids: a line
    /// seen twice joins once.
    pub line_id: Option<CompactString>,
}

/// One event of a file, in line order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Request(Box<Request>),
    Joined(Joined),
    /// The context was replaced by a summary (compaction): the route's trace ends here.
    Boundary {
        route: usize,
        /// What the log says of the compaction.
        compaction: Compaction,
    },
    /// The summary a compaction wrote, as the next trace starts with it.
    Summary {
        route: usize,
        /// UTF-8 bytes of its text.
        bytes: u64,
    },
    /// A line that could not be read; the import goes on.
    Malformed(Malformed),
}

/// A compaction as the log records it (docs/model.md §9, `compact`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Compaction {
    /// `auto` or `manual` (Claude Code's `compactMetadata.trigger`).
    pub trigger: Option<String>,
    /// The context when it ran, tokens (Claude Code's `compactMetadata.preTokens`).
    pub pre_tokens: Option<u64>,
    /// UTF-8 bytes of the summary it wrote (the first line of the next trace).
    pub summary_bytes: Option<u64>,
    /// The context after it, tokens (OpenTelemetry's `post_tokens`, approximate).
    pub post_tokens: Option<u64>,
}

/// Who ran a session, where the log says (OpenTelemetry's `user.id`, `organization.id`,
/// `user.account_uuid` and a team attribute of the resource): labels a history can group
/// sessions by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    pub user_id: Option<CompactString>,
    pub organization_id: Option<CompactString>,
    /// The Claude account (`user.account_uuid`): one person on two machines is one
    /// account, two `user.id`s.
    pub account_uuid: Option<CompactString>,
    /// A team attribute the telemetry's resource carries (`team.id`, `department`, …): its
    /// key and value.
    pub team: Option<(CompactString, CompactString)>,
}

/// What a log says rides in every request besides the conversation, where it says it
/// (docs/model.md §9, base parts): what the importer writes as `[[base.part]]`s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    /// Tool names the client defers (Claude Code's `deferred_tools_delta` attachments:
    /// added less removed): tool search loads their definitions on demand.
    pub deferred_tools: std::collections::BTreeSet<String>,
    /// UTF-8 bytes of the skill listing (Claude Code's `skill_listing` attachment).
    pub skill_listing_bytes: Option<u64>,
    /// UTF-8 bytes of the system prompt, where the log holds it (Codex's `session_meta`
    /// `base_instructions`).
    pub system_prompt_bytes: Option<u64>,
    /// MCP servers the log says connected (OpenTelemetry's `mcp_server_connection`).
    pub mcp_servers: std::collections::BTreeSet<String>,
}

/// A line that could not be read, with why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Malformed {
    /// The file as given or found.
    pub file: String,
    /// 1-based.
    pub line: u64,
    pub reason: String,
}

/// One conversation within a file: the main one, or a subagent's (sidechain).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub subagent: bool,
    /// The subagent's id, when known.
    pub agent_id: Option<CompactString>,
    /// The first session id its lines carry (for a subagent: its parent session).
    pub session_id: Option<CompactString>,
    /// For a subagent written into its parent's file without an agent id (Claude Code
    /// 1.0.x): which one, 1, 2, … in the order their first lines appear.
    pub sidechain: Option<u32>,
}

/// How many lines of one type were skipped, and whether the type is one the reader knows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    pub lines: u64,
    /// A type the format documents but that holds no request (known), or one it does not
    /// know (unknown: a newer log version, worth a look).
    pub known: bool,
}

/// Everything a reader got from one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileLog {
    /// The file as given or found.
    pub file: String,
    pub events: Vec<Event>,
    pub routes: Vec<Route>,
    /// Lines that hold nothing for the ledger, by line type.
    pub skipped: BTreeMap<String, Skipped>,
    /// The project the session worked in (last part of its working directory).
    pub project: Option<String>,
    /// Lines read, blank lines included.
    pub lines: u64,
    /// `attachment` lines by their type: how many, their text bytes, and whether that
    /// type reaches the model (its bytes join the context).
    pub attachments: BTreeMap<String, Attachments>,
    /// Who ran each session, by session id, where the format logs it.
    pub identities: BTreeMap<CompactString, Identity>,
    /// Why the file can hold no request, where its reader knows (an older version of the
    /// format that logs no usage): said in place of a count of its lines.
    pub no_requests_because: Option<String>,
    /// What rides in every request, by session id; `""` for what holds for the whole file.
    pub declared: BTreeMap<CompactString, Declared>,
    /// Set by a format that logs no usage per request (SWE-agent's `*.traj`): its requests'
    /// [`Usage`] are placeholders, never written as measured; what the log does measure is
    /// here.
    pub unmeasured: Option<RunTotals>,
}

/// What a log without per-request usage measures of a whole run (SWE-agent's
/// `info.model_stats`, read 2026-12-02 in `SWE-agent/SWE-agent`, `sweagent/types.py` and
/// `sweagent/agent/models.py`), and the bytes its base holds. A figure the log lacks is
/// None, never 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct RunTotals {
    /// UTF-8 bytes of what the first request held before any step: the system prompt,
    /// demonstrations and the task (the history before the first model reply).
    pub base_bytes: Option<u64>,
    /// `tokens_sent`: input tokens summed over every API call of the run, tokens.
    pub tokens_sent: Option<u64>,
    /// `tokens_received`: output tokens summed over the run, tokens.
    pub tokens_received: Option<u64>,
    /// `api_calls`: model queries the run made (retries of a malformed reply included).
    pub api_calls: Option<u64>,
    /// `instance_cost`: the run's cost by the agent's own prices, US dollars.
    pub instance_cost_usd: Option<f64>,
}

/// `attachment` lines of one type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Attachments {
    pub lines: u64,
    /// UTF-8 bytes of their text.
    pub bytes: u64,
    /// Whether this type reaches the model, so its bytes join the context.
    pub joins: bool,
}

impl FileLog {
    /// The time of the file's latest request; None when no request has one.
    pub fn latest_request(&self) -> Option<Timestamp> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Request(r) => r.timestamp,
                _ => None,
            })
            .max()
    }

    /// A log of `file` with no events yet.
    pub fn new(file: impl Into<String>) -> FileLog {
        FileLog {
            file: file.into(),
            ..FileLog::default()
        }
    }

    /// The index of the route of a line: routes are told apart by subagent and agent id
    /// only, and take the first session id their lines carry.
    pub fn route(&mut self, route: Route) -> usize {
        let found = self.routes.iter().position(|r| {
            r.subagent == route.subagent
                && r.agent_id == route.agent_id
                && r.sidechain == route.sidechain
        });
        match found {
            Some(i) => {
                if let Some(r) = self.routes.get_mut(i)
                    && r.session_id.is_none()
                {
                    r.session_id = route.session_id;
                }
                i
            }
            None => {
                self.routes.push(route);
                self.routes.len() - 1
            }
        }
    }

    /// Counts a skipped line of type `kind`.
    pub fn skip(&mut self, kind: &str, known: bool) {
        let entry = self.skipped.entry(kind.to_string()).or_default();
        entry.lines += 1;
        entry.known = known;
    }

    /// Records a line that could not be read.
    pub fn malformed(&mut self, line: u64, reason: impl Into<String>) {
        self.events.push(Event::Malformed(Malformed {
            file: self.file.clone(),
            line,
            reason: reason.into(),
        }));
    }
}
