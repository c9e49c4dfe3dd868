//! An imported trace: the calls of one conversation, between compactions, ready to be
//! written as a scenario; and the names scenarios get.

use super::event::{Malformed, Usage};
use compact_str::CompactString;
use jiff::Timestamp;
use std::collections::{BTreeMap, HashSet};

/// Which conversation a trace is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceRole {
    /// The session's own conversation, up to its first compaction.
    Main,
    /// A subagent's (sidechain) conversation, in any part.
    Subagent,
    /// The session's conversation after a compaction replaced its context by a summary.
    AfterCompaction,
    /// The session's conversation after its context fell far below the previous request's
    /// with no compaction in the log ([`Reset`]).
    AfterReset,
}

impl TraceRole {
    /// The word written in `[import] trace` and in the summary.
    pub fn as_str(self) -> &'static str {
        match self {
            TraceRole::Main => "main",
            TraceRole::Subagent => "subagent",
            TraceRole::AfterCompaction => "after-compaction",
            TraceRole::AfterReset => "after-reset",
        }
    }
}

/// One call of an imported trace: one deduplicated API request.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedCall {
    /// The request id (Claude Code `requestId`, else `message.id`), unique in the trace.
    pub id: String,
    /// Tool name and a short argument, at most about 80 characters.
    pub label: String,
    /// The first tool the request used, if any.
    pub tool: Option<CompactString>,
    /// The other tools the request used, each once, in order, never `tool` again: a
    /// request that ran several tools at once uses every part serving one of them.
    pub other_tools: Vec<CompactString>,
    /// `web_search`, `tool`, `prompt`, or `attachment` (only hook output or reminders
    /// joined after it).
    pub kind: &'static str,
    /// UTF-8 bytes that joined the context after the call: tool results, user text, and
    /// attachments that reach the model.
    pub bytes: u64,
    /// Images that joined after the call (sized by `[terms] tokens_per_image`).
    pub images: u64,
    /// Tool definitions that joined after the call (`tool_reference` results).
    pub loaded_tools: u64,
    /// The model's own message as the next request sends it back, UTF-8 bytes: text,
    /// tool-use names and inputs as JSON, thinking text. None where the log cannot size
    /// it (a thinking block logged without its text; a format whose output joins as its
    /// logged tokens).
    pub output_bytes: Option<u64>,
    /// Topic segment, from 1.
    pub segment: u64,
    /// Seconds since the previous request; None when a timestamp is missing.
    pub gap_s: Option<f64>,
    /// xxh3 of the tool name(s) and input(s), for requests that used a tool.
    pub input_hash: Option<u64>,
    /// UTF-8 bytes of the tool uses' names and inputs as JSON: part of the model's message
    /// (`output_bytes`, where given), what clearing tool inputs would remove.
    pub tool_input_bytes: u64,
    /// The provider's usage counts for the request.
    pub measured: Usage,
    pub model: Option<CompactString>,
    pub timestamp: Option<Timestamp>,
}

/// One trace, from one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The file it came from, as given or found.
    pub file: String,
    pub session_id: Option<CompactString>,
    pub role: TraceRole,
    /// 1, 2, … across compactions.
    pub part: u32,
    /// For subagent traces: the session they belong to.
    pub parent_session: Option<CompactString>,
    pub agent_id: Option<CompactString>,
    /// A subagent written into its parent's file without an agent id: which one (1, 2, …).
    pub sidechain: Option<u32>,
    /// The compaction this trace starts after (parts 2, 3, …), as the log records it.
    pub compaction: Option<super::event::Compaction>,
    /// The unmarked fall of the context this trace starts after, if that is how it began.
    pub reset: Option<Reset>,
    /// The project the session worked in, for the scenario name.
    pub project: Option<String>,
    /// Who ran the session, where the log says.
    pub identity: super::event::Identity,
    /// What the log says rides in every request of the session (not for subagents).
    pub declared: super::event::Declared,
    /// Every `mcp__<server>__<tool>` the requests used, first tools and others alike.
    pub mcp_tools_used: std::collections::BTreeSet<String>,
    pub calls: Vec<ImportedCall>,
    /// Copies of requests dropped: streaming snapshots, one line per content block, and
    /// requests replayed from an earlier file.
    pub duplicates_removed: u64,
    /// Lines of this trace's stretch of the file that could not be read.
    pub malformed: Vec<Malformed>,
    /// The scenario name, unique among the traces of one import.
    pub name: String,
    /// For a log without per-request usage: its calls' `measured` are placeholders, and
    /// these are the run's own totals.
    pub unmeasured: Option<super::event::RunTotals>,
}

/// A context that fell with no compaction in the log: a request whose measured total input
/// is more than [`Reset::SHARE`] and [`Reset::MIN_TOKENS`] below the previous request's
/// ends the trace, and starts a new one (docs/model.md §6.2, "Traces"). The thresholds
/// come from the shared real logs: the falls the model explains (thinking or reasoning of
/// earlier turns dropped at a new prompt) were at most 9,737 tokens (9.9 %) and, in a small
/// context, 3,811 tokens (16.3 %); the one unmarked reset fell by 25,101 tokens (17.6 %,
/// from 142,670 to 117,569), and no fit can hold both sides of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Reset {
    /// The previous request's measured total input, tokens.
    pub from_input_tokens: u64,
    /// This request's, tokens.
    pub to_input_tokens: u64,
}

impl Reset {
    /// The least fall, as a share of the previous request's total input.
    pub const SHARE: f64 = 0.15;
    /// The least fall, tokens.
    pub const MIN_TOKENS: u64 = 5_000;

    /// The reset between two requests' total inputs, if the fall is one: both measured
    /// (not a placeholder 0), and the fall past both thresholds.
    pub fn between(from: u64, to: u64) -> Option<Reset> {
        let fall = from.checked_sub(to)?;
        (to > 0 && fall > Self::MIN_TOKENS && fall as f64 > Self::SHARE * from as f64).then_some(
            Reset {
                from_input_tokens: from,
                to_input_tokens: to,
            },
        )
    }
}

/// The bytes per token written into every scenario: the project's default, an assumption.
pub const ASSUMED_BYTES_PER_TOKEN: f64 = 3.3;

/// B of a log that measures no request, tokens: its base's `bytes` ÷ the assumed
/// bytes_per_token, rounded, at least 1; None for an empty base.
pub fn unmeasured_base_tokens(bytes: u64) -> Option<u64> {
    (bytes > 0).then(|| (bytes as f64 / ASSUMED_BYTES_PER_TOKEN).round().max(1.0) as u64)
}

/// Measured token sums of a trace, in the provider's fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct UsageSums {
    pub input_tokens: u64,
    /// None for a provider without the field (Codex).
    pub cache_creation_input_tokens: Option<u64>,
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
}

impl Trace {
    /// Sums of the measured usage over the trace's (deduplicated) calls.
    pub fn usage(&self) -> UsageSums {
        let mut sums = UsageSums::default();
        for c in &self.calls {
            let m = &c.measured;
            sums.input_tokens += m.input_tokens;
            if let Some(w) = m.cache_creation_input_tokens {
                *sums.cache_creation_input_tokens.get_or_insert(0) += w;
            }
            sums.cache_read_input_tokens += m.cache_read_input_tokens;
            sums.output_tokens += m.output_tokens;
        }
        sums
    }

    /// The model most calls used (the first seen among equals).
    pub fn model(&self) -> Option<&str> {
        let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for (i, c) in self.calls.iter().enumerate() {
            if let Some(m) = &c.model {
                counts.entry(m.as_str()).or_insert((0, i)).0 += 1;
            }
        }
        counts
            .into_iter()
            .max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.1.1.cmp(&a.1.1)))
            .map(|(m, _)| m)
    }

    /// Whether most cache-creation tokens were written with the 1-hour lifetime.
    pub fn mostly_one_hour_cache(&self) -> bool {
        let (all, hour) = self.calls.iter().fold((0u64, 0u64), |(a, h), c| {
            (
                a + c.measured.cache_creation_input_tokens.unwrap_or(0),
                h + c.measured.cache_creation_1h_input_tokens.unwrap_or(0),
            )
        });
        hour * 2 > all
    }

    /// For a trace without per-request usage: its summed input as the scenario's ledger
    /// gives it with no edit, estimated tokens: each call's input is B (base bytes ÷ ρ)
    /// plus the bytes joined before it (results and replies) ÷ ρ, with ρ `bytes_per_token`
    /// assumed ([`ASSUMED_BYTES_PER_TOKEN`]). None for a measured trace, or
    /// one whose base is not in its log.
    pub fn estimated_input_tokens(&self) -> Option<f64> {
        let rho = ASSUMED_BYTES_PER_TOKEN;
        // B as the scenario writes it: whole tokens.
        let base = unmeasured_base_tokens(self.unmeasured?.base_bytes?)?;
        let mut joined = 0.0;
        let mut sum = 0.0;
        for c in &self.calls {
            sum += base as f64 + joined / rho;
            joined += (c.bytes + c.output_bytes.unwrap_or(0)) as f64;
        }
        Some(sum)
    }

    /// First and last request times.
    pub fn span(&self) -> Option<(Timestamp, Timestamp)> {
        let mut times = self.calls.iter().filter_map(|c| c.timestamp);
        let first = times.next()?;
        let (lo, hi) = times.fold((first, first), |(lo, hi), t| (lo.min(t), hi.max(t)));
        Some((lo, hi))
    }
}

/// The longest scenario name (see the scenario format).
pub const MAX_NAME_CHARS: usize = 100;

/// Gives every trace a scenario name, unique among them: `<project>-<session 8>`, with
/// `-agent-<id 8>` for a subagent (`-sidechain` when its id is unknown) and `-part<n>`
/// after a compaction; `-2`, `-3`, … where two traces would still share a name.
pub fn assign_names(traces: &mut [Trace]) {
    let mut namer = Namer::new(session_projects(traces));
    for t in traces.iter_mut() {
        namer.name(t);
    }
}

/// The project of each session, from its last trace that is not a subagent's.
pub fn session_projects(traces: &[Trace]) -> BTreeMap<CompactString, String> {
    traces
        .iter()
        .filter(|t| t.role != TraceRole::Subagent)
        .filter_map(|t| Some((t.session_id.clone()?, t.project.clone()?)))
        .collect()
}

/// Names traces one at a time, in import order (see [`assign_names`]): a name depends on
/// the traces named before it, and on the project of each session, which is known first.
#[derive(Debug, Default)]
pub struct Namer {
    taken: HashSet<String>,
    /// A subagent may work in another directory (a worktree) than its session: it is
    /// named after the session's project, so a session's traces sort together.
    session_projects: BTreeMap<CompactString, String>,
}

impl Namer {
    /// A namer for an import whose sessions have these projects ([`session_projects`]).
    pub fn new(session_projects: BTreeMap<CompactString, String>) -> Namer {
        Namer {
            taken: HashSet::new(),
            session_projects,
        }
    }

    /// Names `t`, the next trace.
    pub fn name(&mut self, t: &mut Trace) {
        let project = match (&t.role, &t.parent_session) {
            (TraceRole::Subagent, Some(parent)) => self
                .session_projects
                .get(parent)
                .or(t.project.as_ref())
                .map(String::as_str),
            _ => t.project.as_deref(),
        };
        let mut name = slug(project.unwrap_or("session"), 40);
        if name.is_empty() {
            name = "session".into();
        }
        if let Some(s) = &t.session_id {
            push_part(&mut name, &slug(s, 8));
        }
        if t.role == TraceRole::Subagent {
            match (&t.agent_id, t.sidechain) {
                (Some(a), _) => push_part(&mut name, &format!("agent-{}", slug(a, 8))),
                (None, Some(n)) => push_part(&mut name, &format!("sidechain-{n}")),
                (None, None) => push_part(&mut name, "sidechain"),
            }
        }
        if t.part > 1 {
            push_part(&mut name, &format!("part{}", t.part));
        }
        name.truncate(MAX_NAME_CHARS - 6);
        let mut unique = name.clone();
        let mut n = 2;
        while !self.taken.insert(unique.clone()) {
            unique = format!("{name}-{n}");
            n += 1;
        }
        t.name = unique;
    }
}

fn push_part(name: &mut String, part: &str) {
    if !part.is_empty() {
        name.push('-');
        name.push_str(part);
    }
}

/// Lower-case `[a-z0-9_-]`, runs of anything else as one `-`, at most `max` characters,
/// starting with a letter or digit.
pub fn slug(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if out.len() >= max {
            break;
        }
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_matches(|c| c == '-' || c == '_');
    trimmed.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reset_is_a_fall_past_both_thresholds() {
        // The shared logs' one unmarked reset: 25,101 tokens, 17.6 %.
        assert_eq!(
            Reset::between(142_670, 117_569),
            Some(Reset {
                from_input_tokens: 142_670,
                to_input_tokens: 117_569
            })
        );
        // Their largest explained falls: 9,737 tokens (9.9 %), 3,811 tokens (16.3 %).
        assert_eq!(Reset::between(98_122, 88_385), None);
        assert_eq!(Reset::between(23_414, 19_603), None);
        // Growth, and a placeholder 0, are no reset.
        assert_eq!(Reset::between(10_000, 12_000), None);
        assert_eq!(Reset::between(40_000, 0), None);
    }

    fn trace(project: &str, session: &str, role: TraceRole, part: u32) -> Trace {
        Trace {
            unmeasured: None,
            file: "f".into(),
            session_id: Some(session.into()),
            role,
            part,
            parent_session: None,
            agent_id: None,
            sidechain: None,
            compaction: None,
            reset: None,
            project: Some(project.into()),
            identity: Default::default(),
            declared: Default::default(),
            mcp_tools_used: Default::default(),
            calls: Vec::new(),
            duplicates_removed: 0,
            malformed: Vec::new(),
            name: String::new(),
        }
    }

    #[test]
    fn names_are_slugs_and_unique() {
        let mut ts = vec![
            trace("My Proj!", "1A2B3C4D-0000", TraceRole::Main, 1),
            trace("My Proj!", "1A2B3C4D-0000", TraceRole::AfterCompaction, 2),
            trace("My Proj!", "1A2B3C4D-0000", TraceRole::Subagent, 1),
            trace("My Proj!", "1A2B3C4D-0000", TraceRole::Main, 1),
            trace("---", "", TraceRole::Main, 1),
        ];
        ts[2].agent_id = Some("a7f3e2d9c1".into());
        assign_names(&mut ts);
        let names: Vec<&str> = ts.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "my-proj-1a2b3c4d",
                "my-proj-1a2b3c4d-part2",
                "my-proj-1a2b3c4d-agent-a7f3e2d9",
                "my-proj-1a2b3c4d-2",
                "session"
            ]
        );
    }
}
