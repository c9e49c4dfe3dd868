//! The candidate rules of `simulate suggest` (docs/model.md §9, "Suggested edits"): from
//! the evidence of the sessions to edits of the engine, each with the sentence that says
//! why, and a finding for every rule, including those that found nothing to propose.
//!
//! Every threshold a rule uses is a constant here, named and documented, so the
//! docs, the table and the tests read the same numbers.

use super::evidence::{Evidence, HOUR_S, ToolOutputs, Values};
use crate::number::{grouped, plural};
use serde::Serialize;

/// A tool's outputs are considered for a cap from this many results with bytes on.
pub const CAP_MIN_OUTPUTS: usize = 4;
/// Large: the tool's p90 output is at least this many bytes (about 1,000 tokens).
pub const CAP_LARGE_BYTES: f64 = 4_096.0;
/// Skewed: the tool's p90 output is at least this many times its median.
pub const CAP_SKEW: f64 = 2.0;
/// The percentiles (nearest rank) a large, skewed tool is capped at.
pub const CAP_PERCENTILES: [u32; 2] = [75, 90];

/// The percentiles (nearest rank) of the contexts the calls read that become context
/// triggers (context editing, compaction).
pub const CONTEXT_PERCENTILES: [u32; 3] = [50, 75, 90];
/// Triggers are rounded to the nearest multiple of this many tokens.
pub const TRIGGER_STEP_TOKENS: f64 = 5_000.0;
/// Anthropic's context editing (`clear_tool_uses_20250919`) defaults: trigger and tool uses
/// kept (context-editing docs, read 2026-12-01).
pub const API_CLEAR_TRIGGER: f64 = 100_000.0;
pub const API_CLEAR_KEEP: u64 = 3;
/// The tool uses kept, crossed with every trigger.
pub const CLEAR_KEEPS: [u64; 3] = [1, 3, 5];
/// The Messages API's compaction (`compact_20260112`): its default trigger and the lowest
/// it accepts (Anthropic's compaction docs, read 2026-12-01). No threshold below the
/// minimum is proposed.
pub const API_COMPACT_TRIGGER: f64 = 150_000.0;
pub const API_COMPACT_MIN: f64 = 50_000.0;
/// The summary a compaction writes where the history has no compaction of its own to
/// measure, tokens: assumed (the one Claude Code compaction the project had to look at
/// wrote about 3,900; docs/model.md §9). The output says assumed, never where from.
pub const SUMMARY_TOKENS_ASSUMED: f64 = 4_000.0;
/// Tools whose same input is meant to return new output: polls. Reading them once would
/// hide what they are for, whatever their sizes, so read-once is never proposed for them:
/// Claude Code's `BashOutput` and `TaskOutput` (a background shell's or task's output so
/// far), `TaskGet` and `TaskList` (the tasks as they stand), Codex CLI's `write_stdin`
/// (writes to a running command, or with empty input polls it) and `wait_agent` (waits
/// for a sub-agent). Another tool is read once only where most of its repeats found the
/// same result, and then only those repeats (`same_bytes`).
pub const POLLING_TOOLS: [&str; 6] = [
    "BashOutput",
    "TaskOutput",
    "TaskGet",
    "TaskList",
    "write_stdin",
    "wait_agent",
];
/// The 1-hour cache's write price, × base input (Anthropic's 1-hour cache writes).
pub const HOUR_WRITE: f64 = 2.0;
/// A part is rarely used when at most this share of the sessions that declare it use its
/// tools (with two or more such sessions) ...
pub const PART_RARE_SESSIONS: f64 = 0.25;
/// ... or, in a single session, at most this share of its calls.
pub const PART_RARE_CALLS: f64 = 0.05;
/// The stub a deferred part leaves behind (the tool-search tool and the deferred tools'
/// names), tokens: assumed, as `scenarios/whatif.toml`; `/context` shows the real one.
pub const STUB_TOKENS_ASSUMED: f64 = 500.0;

/// A kind of candidate edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    Cap,
    ReadOnce,
    IdleClearing,
    /// The cheapest clearing schedule the search found (`super::schedule`): a client-side
    /// clearing with its trigger, keep, batch size and `at = "cold"`.
    Clearing,
    ContextEditing,
    Compaction,
    HourCache,
    Retention,
    ToolDefinitions,
}

impl Family {
    /// In the order the rules run and the edits file lists them.
    pub const ALL: [Family; 9] = [
        Family::Cap,
        Family::ReadOnce,
        Family::IdleClearing,
        Family::Clearing,
        Family::ContextEditing,
        Family::Compaction,
        Family::HourCache,
        Family::Retention,
        Family::ToolDefinitions,
    ];

    /// The word in `suggest.csv` and the JSON.
    pub fn key(self) -> &'static str {
        match self {
            Family::Cap => "cap",
            Family::ReadOnce => "read-once",
            Family::IdleClearing => "idle-clearing",
            Family::Clearing => "clearing",
            Family::ContextEditing => "context-editing",
            Family::Compaction => "compaction",
            Family::HourCache => "1-hour-cache",
            Family::Retention => "24h-retention",
            Family::ToolDefinitions => "tool-definitions",
        }
    }

    /// For people.
    pub fn label(self) -> &'static str {
        match self {
            Family::Cap => "cap size",
            Family::ReadOnce => "read once",
            Family::IdleClearing => "idle clearing",
            Family::Clearing => "clearing schedule",
            Family::ContextEditing => "context editing",
            Family::Compaction => "compaction",
            Family::HourCache => "1-hour cache",
            Family::Retention => "24h retention",
            Family::ToolDefinitions => "tool definitions",
        }
    }

    /// The trade-off chart of a parametric family (cap size, clear trigger and keep,
    /// compaction threshold); None for the others.
    pub fn chart_file(self) -> Option<&'static str> {
        match self {
            Family::Cap => Some("tradeoff-cap.svg"),
            Family::ContextEditing => Some("tradeoff-context-editing.svg"),
            Family::Compaction => Some("tradeoff-compaction.svg"),
            _ => None,
        }
    }
}

/// The parameters of a candidate, for `suggest.csv` and the JSON (only those its family
/// has are set).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Parameters {
    pub tool: Option<String>,
    /// The percentile of the tool's outputs a cap is at.
    pub percentile: Option<u32>,
    pub max_bytes: Option<f64>,
    pub trigger_tokens: Option<f64>,
    pub keep_tool_uses: Option<u64>,
    pub threshold_tokens: Option<f64>,
    pub summary_tokens: Option<f64>,
    pub ttl_s: Option<f64>,
    pub part: Option<String>,
    /// `drop` or `defer`.
    pub part_action: Option<&'static str>,
    pub stub_tokens: Option<f64>,
    /// A clearing schedule's trigger (`super::schedule`): every K calls, or after a pause
    /// longer than this many seconds (`trigger_tokens` is its context trigger).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub every_calls: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_gap_s: Option<f64>,
    /// The latest results a client-side clearing keeps (`keep_results`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_results: Option<u64>,
    /// The batch size: a clearing (or the API's edit) that would free fewer tokens does
    /// nothing (`clear_at_least_tokens`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear_at_least_tokens: Option<f64>,
    /// Whether the edit waits for a call where the cache is already cold (`at = "cold"`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub at_cold: bool,
}

/// One edit the data suggests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// Unique among the candidates; the `[[edit]]` name.
    pub name: String,
    pub family: Family,
    /// The edit's action as TOML, the line after `name` in the edits file.
    pub action: String,
    /// What in the data suggested it, in a sentence.
    pub evidence: String,
    pub parameters: Parameters,
    /// In a parametric family's chart: the curve it lies on (a tool, a keep count) and
    /// its label there.
    pub series: Option<String>,
    pub point_label: String,
}

/// What one rule found, in a sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub family: Family,
    pub text: String,
}

/// The summary tokens compactions are given, and where the figure comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummarySize {
    pub tokens: f64,
    /// `measured: …` or `assumed: …`.
    pub source: String,
}

/// Every candidate and every finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Proposal {
    /// In family order, then as each rule lists them.
    pub candidates: Vec<Candidate>,
    pub findings: Vec<Finding>,
    /// What compaction candidates use.
    pub summary: SummarySize,
}

/// Runs every rule on `evidence`.
pub fn propose(evidence: &Evidence) -> Proposal {
    let mut p = Proposal {
        candidates: Vec::new(),
        findings: Vec::new(),
        summary: summary_size(evidence),
    };
    caps(evidence, &mut p);
    read_once(evidence, &mut p);
    idle_clearing(evidence, &mut p);
    context_editing(evidence, &mut p);
    compaction(evidence, &mut p);
    hour_cache(evidence, &mut p);
    retention(evidence, &mut p);
    tool_definitions(evidence, &mut p);
    unique_names(&mut p.candidates);
    p
}

/// Longest tool or part name shown in an edit's name, in characters (edit names are at
/// most 200).
const NAME_PART_CHARS: usize = 80;

/// `name` as part of an edit's name: cut with `…` when long.
fn shown(name: &str) -> String {
    crate::chart::style::truncate(name, NAME_PART_CHARS)
}

/// Makes the names unique (two long tool names cut to the same text): a later one gets
/// ` (2)`, ` (3)`, ….
fn unique_names(candidates: &mut [Candidate]) {
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for c in candidates {
        let mut name = c.name.clone();
        let mut k = 2;
        while !seen.insert(name.clone()) {
            name = format!("{} ({k})", c.name);
            k += 1;
        }
        c.name = name;
    }
}

impl Proposal {
    fn find(&mut self, family: Family, text: String) {
        self.findings.push(Finding { family, text });
    }
}

/// A whole number as TOML writes it (`10454`), else the shortest decimal.
pub fn toml_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let mut buffer = ryu::Buffer::new();
        buffer.format(x).to_string()
    }
}

/// `text` as a TOML basic string.
pub fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Nearest-rank percentile `p` of `values` (0 when empty).
fn percentile(values: &Values, p: u32) -> f64 {
    values.nearest_rank(f64::from(p)).unwrap_or(0.0)
}

fn bytes(x: f64) -> String {
    format!("{} bytes", grouped(x, 0))
}

/// `Read's 166 outputs in 20 sessions: median 2,425 bytes, p75 10,454, p90 26,972, largest 89,654`.
fn sizes_line(t: &ToolOutputs) -> String {
    let s = &t.sizes;
    format!(
        "{}'s {} in {}: median {}, p75 {}, p90 {}, largest {}",
        t.tool,
        plural(s.len(), "output", "outputs"),
        plural(t.sessions, "session", "sessions"),
        bytes(percentile(s, 50)),
        grouped(percentile(s, 75), 0),
        grouped(percentile(s, 90), 0),
        grouped(s.largest().unwrap_or(0.0), 0)
    )
}

/// Caps for tools whose outputs are large and skewed, at their p75 and p90 sizes (those
/// below the largest output: a cap there would cut nothing).
fn caps(e: &Evidence, p: &mut Proposal) {
    let (mut few, mut small, mut even) = (Vec::new(), Vec::new(), Vec::new());
    let (mut pinned, mut searches) = (Vec::new(), Vec::new());
    for t in &e.tools {
        let s = &t.sizes;
        if t.pinned > 0 {
            pinned.push(format!(
                "{} ({})",
                t.tool,
                plural(t.pinned, "pinned call", "pinned calls")
            ));
            continue;
        }
        if t.searches > 0 {
            searches.push(format!(
                "{} ({})",
                t.tool,
                plural(t.searches, "search result", "search results")
            ));
            if s.is_empty() {
                continue;
            }
        }
        if s.len() < CAP_MIN_OUTPUTS {
            few.push(t.tool.clone());
            continue;
        }
        let (median, p90) = (percentile(s, 50), percentile(s, 90));
        let largest = s.largest().unwrap_or(0.0);
        if p90 < CAP_LARGE_BYTES {
            small.push(format!("{} ({})", t.tool, grouped(p90, 0)));
            continue;
        }
        if p90 < CAP_SKEW * median {
            even.push(format!(
                "{} ({} against {})",
                t.tool,
                grouped(p90, 0),
                grouped(median, 0)
            ));
            continue;
        }
        let mut proposed = Vec::new();
        let mut not = Vec::new();
        let mut last = None;
        for q in CAP_PERCENTILES {
            let at = percentile(s, q);
            if at >= largest {
                not.push(format!(
                    "p{q} is its largest output, so a cap there cuts nothing"
                ));
                continue;
            }
            if last == Some(at) {
                not.push(format!("p{q} is the same size as the cap before it"));
                continue;
            }
            last = Some(at);
            let cut = s.count_above(at);
            proposed.push(format!("p{q} ({})", bytes(at)));
            // Search results are left to the API: the cap selects the tool's own results.
            let kind = if t.searches > 0 {
                ", kind = \"tool\""
            } else {
                ""
            };
            p.candidates.push(Candidate {
                name: format!("cap {} at {} (p{q})", shown(&t.tool), bytes(at)),
                family: Family::Cap,
                action: format!(
                    "cap = {{ select = {{ tool = {}{kind} }}, max_bytes = {} }}",
                    toml_string(&t.tool),
                    toml_number(at)
                ),
                evidence: format!(
                    "{}; a cap at p{q} cuts {} of them to {}.",
                    sizes_line(t),
                    grouped(cut as f64, 0),
                    bytes(at)
                ),
                parameters: Parameters {
                    tool: Some(t.tool.clone()),
                    percentile: Some(q),
                    max_bytes: Some(at),
                    ..Parameters::default()
                },
                series: Some(t.tool.clone()),
                point_label: format!("{} p{q} ({} B)", t.tool, grouped(at, 0)),
            });
        }
        let mut text = format!(
            "{}: large and skewed (p90 at least {} and at least {}× the median)",
            sizes_line(t),
            bytes(CAP_LARGE_BYTES),
            CAP_SKEW
        );
        if !proposed.is_empty() {
            text.push_str(&format!("; capped at {}", proposed.join(" and ")));
        }
        if !not.is_empty() {
            text.push_str(&format!("; {}", not.join("; ")));
        }
        p.find(Family::Cap, text);
    }
    if !small.is_empty() {
        p.find(
            Family::Cap,
            format!(
                "not large (p90 under {}): {}",
                bytes(CAP_LARGE_BYTES),
                small.join(", ")
            ),
        );
    }
    if !even.is_empty() {
        p.find(
            Family::Cap,
            format!(
                "large but not skewed (p90 under {}× the median): {}",
                CAP_SKEW,
                even.join(", ")
            ),
        );
    }
    if !searches.is_empty() {
        p.find(
            Family::Cap,
            format!(
                "server-side search results (kind web_search) cannot be replaced: left out of the sizes, and a cap selects kind = \"tool\" only: {}",
                searches.join(", ")
            ),
        );
    }
    if !pinned.is_empty() {
        p.find(
            Family::Cap,
            format!(
                "pinned results must stay as they are, and a cap's selector cannot leave them out: no cap on {}",
                pinned.join(", ")
            ),
        );
    }
    if !few.is_empty() {
        p.find(
            Family::Cap,
            format!(
                "fewer than {CAP_MIN_OUTPUTS} outputs, too few to tell: {}",
                few.join(", ")
            ),
        );
    }
    if e.tools.is_empty() {
        p.find(
            Family::Cap,
            "no call names its tool with a result in bytes: nothing to cap".into(),
        );
    }
}

/// Read-once for every tool with a repeated input.
fn read_once(e: &Evidence, p: &mut Proposal) {
    if e.repeats.is_empty() {
        p.find(
            Family::ReadOnce,
            "no call repeats an earlier call's input (input_hash) in its session: nothing to read once".into(),
        );
    }
    for r in &e.repeats {
        let changed = r.calls - r.same_size;
        let text = format!(
            "{} of {} in {} {} an earlier input of the same session ({} with the same result size as the first{})",
            plural(r.calls, "call", "calls"),
            r.tool,
            plural(r.sessions, "session", "sessions"),
            if r.calls == 1 { "repeats" } else { "repeat" },
            grouped(r.same_size as f64, 0),
            if changed > 0 {
                format!(
                    "; {} got a result of another size, something new that reading once would hide",
                    grouped(changed as f64, 0)
                )
            } else {
                String::new()
            }
        );
        // A poll's same input is meant to return new output: never read once.
        if POLLING_TOOLS.contains(&r.tool.as_str()) {
            p.find(
                Family::ReadOnce,
                format!(
                    "{text}: not proposed, {} polls (the same input is meant to return new output)",
                    r.tool
                ),
            );
            continue;
        }
        // Reading once is worth trying only where repeats mostly find what the first call
        // found: a tool whose repeats see something new (an edit, a test run) acts, and
        // reading it once would hide what it did.
        if r.same_size * 2 < r.calls {
            p.find(
                Family::ReadOnce,
                format!("{text}: not proposed, fewer than half the repeats found the same result"),
            );
            continue;
        }
        // Equal inputs are not enough: only the repeats that also found a result of the
        // first's size are read once; those that saw something new stay.
        let (action, only) = if changed > 0 {
            (
                format!(
                    "dedupe = {{ select = {{ tool = {} }}, same_bytes = true }}",
                    toml_string(&r.tool)
                ),
                format!(
                    "; only the {} with the first's result size are read once",
                    grouped(r.same_size as f64, 0)
                ),
            )
        } else {
            (
                format!(
                    "dedupe = {{ select = {{ tool = {} }} }}",
                    toml_string(&r.tool)
                ),
                String::new(),
            )
        };
        p.candidates.push(Candidate {
            name: format!("read-once: {}", shown(&r.tool)),
            family: Family::ReadOnce,
            action,
            evidence: format!("{text}{only}."),
            parameters: Parameters {
                tool: Some(r.tool.clone()),
                ..Parameters::default()
            },
            series: None,
            point_label: r.tool.clone(),
        });
        p.find(Family::ReadOnce, format!("{text}: read once{only}"));
    }
}

/// `300 s` or `1 h`.
fn duration(s: f64) -> String {
    if s == HOUR_S {
        "1 h".into()
    } else {
        format!("{} s", grouped(s, 0))
    }
}

/// Clearing on idle time at each cache TTL some pause exceeds.
fn idle_clearing(e: &Evidence, p: &mut Proposal) {
    if e.pauses.is_empty() {
        p.find(
            Family::IdleClearing,
            "no session has a [cache]: no TTL for a pause to exceed".into(),
        );
    }
    for pauses in &e.pauses {
        let ttl = duration(pauses.ttl_s);
        if pauses.over_ttl == 0 {
            p.find(
                Family::IdleClearing,
                format!(
                    "no pause is longer than the {ttl} cache TTL in {}",
                    plural(
                        pauses.sessions_with_ttl,
                        "session with it",
                        "sessions with it"
                    )
                ),
            );
            continue;
        }
        let text = format!(
            "{} longer than the {ttl} cache TTL in {} of {} with it: the cache has expired there, so clearing adds no cache write",
            plural(pauses.over_ttl, "pause", "pauses"),
            grouped(pauses.sessions as f64, 0),
            plural(pauses.sessions_with_ttl, "session", "sessions")
        );
        p.candidates.push(Candidate {
            name: format!("clear after a {ttl} pause (the cache TTL)"),
            family: Family::IdleClearing,
            action: format!("clear = {{ after_gap_s = {} }}", toml_number(pauses.ttl_s)),
            evidence: format!("{text}."),
            parameters: Parameters {
                ttl_s: Some(pauses.ttl_s),
                ..Parameters::default()
            },
            series: None,
            point_label: ttl,
        });
        p.find(Family::IdleClearing, format!("{text}: clear there"));
    }
}

/// The context triggers found in `contexts`: their percentiles, rounded, with `extra` (a
/// default), each below the largest context (else it never fires) and at least `floor`;
/// ascending, distinct.
pub(crate) fn triggers(contexts: &Values, extra: Option<f64>, floor: f64) -> Vec<f64> {
    let largest = contexts.largest().unwrap_or(0.0);
    let mut t: Vec<f64> = CONTEXT_PERCENTILES
        .iter()
        .map(|&q| {
            let x = percentile(contexts, q);
            ((x / TRIGGER_STEP_TOKENS).round() * TRIGGER_STEP_TOKENS).max(TRIGGER_STEP_TOKENS)
        })
        .chain(extra)
        .filter(|&x| x < largest && x >= floor)
        .collect();
    t.sort_by(f64::total_cmp);
    t.dedup();
    t
}

/// `the calls read a median of 48,000 tokens (p75 …, p90 …, largest …)`.
fn contexts_line(c: &Values) -> String {
    format!(
        "the {} after each session's first read a median of {} est. tokens of context (p75 {}, p90 {}, largest {})",
        plural(c.len(), "call", "calls"),
        grouped(percentile(c, 50), 0),
        grouped(percentile(c, 75), 0),
        grouped(percentile(c, 90), 0),
        grouped(c.largest().unwrap_or(0.0), 0)
    )
}

/// The context-editing preset at its defaults and on a grid of triggers × tool uses kept.
fn context_editing(e: &Evidence, p: &mut Proposal) {
    if e.openai.sessions > 0 {
        p.find(
            Family::ContextEditing,
            format!(
                "{} ran on OpenAI's API, which has no context editing: Anthropic's is proposed only from the other sessions' contexts, and changes nothing in those",
                plural(e.openai.sessions, "session", "sessions")
            ),
        );
    }
    if e.contexts.is_empty() {
        if e.openai.sessions == 0 {
            p.find(
                Family::ContextEditing,
                "no session has a second call: no context to trigger on".into(),
            );
        }
        return;
    }
    let triggers = triggers(&e.contexts, Some(API_CLEAR_TRIGGER), 0.0);
    let mut text = format!(
        "{}; triggers at its p50, p75 and p90 (rounded to {}) and the API's default {}, each below the largest",
        contexts_line(&e.contexts),
        grouped(TRIGGER_STEP_TOKENS, 0),
        grouped(API_CLEAR_TRIGGER, 0)
    );
    if !triggers.contains(&API_CLEAR_TRIGGER) {
        text.push_str(&format!(
            "; the API's defaults never fire: no call reads more than {}",
            grouped(API_CLEAR_TRIGGER, 0)
        ));
    }
    if triggers.is_empty() {
        p.find(Family::ContextEditing, format!("{text}: none left"));
        return;
    }
    let listed: Vec<String> = triggers.iter().map(|&t| grouped(t, 0)).collect();
    let keeps: Vec<String> = CLEAR_KEEPS.iter().map(|k| k.to_string()).collect();
    p.find(
        Family::ContextEditing,
        format!(
            "{text}: triggers {} × tool uses kept {}",
            listed.join(", "),
            keeps.join(", ")
        ),
    );
    for &trigger in &triggers {
        for keep in CLEAR_KEEPS {
            let defaults = trigger == API_CLEAR_TRIGGER && keep == API_CLEAR_KEEP;
            let name = if defaults {
                format!(
                    "context editing: API defaults ({}, keep {keep})",
                    grouped(trigger, 0)
                )
            } else {
                format!("context editing at {}, keep {keep}", grouped(trigger, 0))
            };
            let affected = e.contexts.count_above(trigger);
            p.candidates.push(Candidate {
                name,
                family: Family::ContextEditing,
                action: format!(
                    "clear = {{ api = \"{}\", trigger_input_tokens = {}, keep_tool_uses = {keep} }}",
                    crate::scenario::API_CLEAR,
                    toml_number(trigger)
                ),
                evidence: format!(
                    "Anthropic's context editing{}: {} of the {} after each session's first read more than {} est. tokens.",
                    if defaults { " at its defaults" } else { "" },
                    grouped(affected as f64, 0),
                    plural(e.contexts.len(), "call", "calls"),
                    grouped(trigger, 0)
                ),
                parameters: Parameters {
                    trigger_tokens: Some(trigger),
                    keep_tool_uses: Some(keep),
                    ..Parameters::default()
                },
                series: Some(format!("keep {keep} tool uses")),
                point_label: format!("at {}, keep {keep}", crate::chart::style::short(trigger)),
            });
        }
    }
}

/// The summary size compactions are given: the median (nearest rank) of the history's own
/// compactions' summaries at their traces' ρ, else [`SUMMARY_TOKENS_ASSUMED`].
fn summary_size(e: &Evidence) -> SummarySize {
    if e.compactions.is_empty() {
        return SummarySize {
            tokens: SUMMARY_TOKENS_ASSUMED,
            source: format!(
                "assumed: {} tokens (the history records no compaction of its own to measure a summary by)",
                grouped(SUMMARY_TOKENS_ASSUMED, 0)
            ),
        };
    }
    let tokens: Values = e.compactions.iter().map(|c| c.summary_tokens()).collect();
    let median = percentile(&tokens, 50).round().max(1.0);
    let list: Vec<String> = e
        .compactions
        .iter()
        .map(|c| {
            format!(
                "{}: {} of summary ÷ its ρ {}, {}",
                c.session,
                bytes(c.summary_bytes as f64),
                crate::number::decimal(c.bytes_per_token),
                c.bytes_per_token_source
            )
        })
        .collect();
    // The bytes are measured; the tokens are as good as the ρ they are divided by.
    let fitted = e
        .compactions
        .iter()
        .all(|c| crate::history::session::source_kind(&c.bytes_per_token_source) == "fitted");
    SummarySize {
        tokens: median,
        source: format!(
            "{}: {} tokens, the median summary of the history's {} [{}]",
            if fitted {
                "measured"
            } else {
                "measured bytes at a ρ not fitted"
            },
            grouped(median, 0),
            plural(e.compactions.len(), "compaction", "compactions"),
            list.join("; ")
        ),
    }
}

/// Compaction at the thresholds found in the data.
fn compaction(e: &Evidence, p: &mut Proposal) {
    openai_compaction(e, p);
    if e.contexts.is_empty() {
        if e.openai.sessions == 0 {
            p.find(
                Family::Compaction,
                "no session has a second call: no context to compact".into(),
            );
        }
        return;
    }
    let s = p.summary.tokens;
    // At or below B + S a compaction leaves the context over its trigger, and compacts
    // again before every call.
    let thresholds: Vec<f64> = triggers(&e.contexts, Some(API_COMPACT_TRIGGER), API_COMPACT_MIN)
        .into_iter()
        .filter(|&x| x > e.base_p90 + s)
        .collect();
    let text = format!(
        "thresholds at the contexts' p50, p75 and p90 (rounded to {}) and the API's default {}, each at least its minimum {}, above the sessions' p90 B + summary ({}; a session whose B + summary is above a threshold compacts before each of its calls, and is priced so) and below the largest context; summary {}",
        grouped(TRIGGER_STEP_TOKENS, 0),
        grouped(API_COMPACT_TRIGGER, 0),
        grouped(API_COMPACT_MIN, 0),
        grouped(e.base_p90 + s, 0),
        p.summary.source
    );
    if thresholds.is_empty() {
        p.find(Family::Compaction, format!("{text}: none left"));
        return;
    }
    let listed: Vec<String> = thresholds.iter().map(|&t| grouped(t, 0)).collect();
    p.find(
        Family::Compaction,
        format!("{text}: thresholds {}", listed.join(", ")),
    );
    for &x in &thresholds {
        let affected = e.contexts.count_above(x);
        p.candidates.push(Candidate {
            name: format!("compact above {} tokens", grouped(x, 0)),
            family: Family::Compaction,
            action: format!(
                "compact = {{ above_context_tokens = {}, summary_tokens = {} }}",
                toml_number(x),
                toml_number(s)
            ),
            evidence: format!(
                "{} of the {} after each session's first read more than {} est. tokens; the summary is {}.",
                grouped(affected as f64, 0),
                plural(e.contexts.len(), "call", "calls"),
                grouped(x, 0),
                p.summary.source
            ),
            parameters: Parameters {
                threshold_tokens: Some(x),
                summary_tokens: Some(s),
                ..Parameters::default()
            },
            series: Some(format!("summary {} tokens", grouped(s, 0))),
            point_label: format!("above {}", crate::chart::style::short(x)),
        });
    }
}

/// OpenAI's server-side compaction on the sessions that ran on OpenAI's API, at the
/// percentiles of their contexts (OpenAI documents no default threshold and no minimum).
fn openai_compaction(e: &Evidence, p: &mut Proposal) {
    let o = &e.openai;
    if o.sessions == 0 {
        return;
    }
    if o.contexts.is_empty() {
        p.find(
            Family::Compaction,
            "no session on OpenAI's API has a second call: no context to compact".into(),
        );
        return;
    }
    let s = p.summary.tokens;
    let thresholds: Vec<f64> = triggers(&o.contexts, None, 0.0)
        .into_iter()
        .filter(|&x| x > o.base_p90 + s)
        .collect();
    let text = format!(
        "{} ran on OpenAI's API: its server-side compaction (the Responses API's compact_threshold) at their contexts' p50, p75 and p90 (rounded to {}), each above the sessions' p90 B + summary ({}) and below the largest context; {}; summary {}",
        plural(o.sessions, "session", "sessions"),
        grouped(TRIGGER_STEP_TOKENS, 0),
        grouped(o.base_p90 + s, 0),
        contexts_line(&o.contexts),
        p.summary.source
    );
    if thresholds.is_empty() {
        p.find(Family::Compaction, format!("{text}: none left"));
        return;
    }
    let listed: Vec<String> = thresholds.iter().map(|&t| grouped(t, 0)).collect();
    p.find(
        Family::Compaction,
        format!("{text}: thresholds {}", listed.join(", ")),
    );
    for &x in &thresholds {
        let affected = o.contexts.count_above(x);
        p.candidates.push(Candidate {
            name: format!("OpenAI compaction above {} tokens", grouped(x, 0)),
            family: Family::Compaction,
            action: format!(
                "compact = {{ api = \"{}\", compact_threshold = {}, summary_tokens = {} }}",
                crate::scenario::provider::OPENAI_COMPACT,
                toml_number(x),
                toml_number(s)
            ),
            evidence: format!(
                "OpenAI's server-side compaction: {} of the {} after each OpenAI session's first read more than {} est. tokens; the compaction item is {}.",
                grouped(affected as f64, 0),
                plural(o.contexts.len(), "call", "calls"),
                grouped(x, 0),
                p.summary.source
            ),
            parameters: Parameters {
                threshold_tokens: Some(x),
                summary_tokens: Some(s),
                ..Parameters::default()
            },
            series: Some(format!("OpenAI, summary {} tokens", grouped(s, 0))),
            point_label: format!("OpenAI above {}", crate::chart::style::short(x)),
        });
    }
}

/// A 1-hour TTL where the pauses longer than the cache's TTL are mostly up to an hour
/// (Anthropic's 1-hour cache: sessions on OpenAI's API are left to [`retention`]). The edit
/// changes only the sessions at Anthropic whose cache lives less than an hour
/// (`only_longer`, `providers`): one whose fitted or logged lifetime is an hour already
/// would otherwise be shortened to it and pay the 1-hour write price for nothing, and one
/// on OpenAI's API would be given a write premium its provider does not charge.
fn hour_cache(e: &Evidence, p: &mut Proposal) {
    let shorter: Vec<_> = e
        .anthropic_pauses
        .iter()
        .filter(|x| x.ttl_s < HOUR_S)
        .collect();
    if shorter.is_empty() {
        p.find(
            Family::HourCache,
            "no session has a cache living less than an hour".into(),
        );
        return;
    }
    let over: usize = shorter.iter().map(|x| x.over_ttl).sum();
    let within: usize = shorter.iter().map(|x| x.within_hour).sum();
    let sessions: usize = shorter.iter().map(|x| x.sessions_with_ttl).sum();
    if over == 0 {
        p.find(
            Family::HourCache,
            format!(
                "no pause outlives the cache in {} whose cache lives less than an hour",
                plural(sessions, "session", "sessions")
            ),
        );
        return;
    }
    let text = format!(
        "of {} longer than the cache's TTL in {} whose cache lives less than an hour, {} {} at most an hour",
        plural(over, "pause", "pauses"),
        plural(sessions, "session", "sessions"),
        grouped(within as f64, 0),
        if within == 1 { "lasts" } else { "last" }
    );
    if 2 * within <= over {
        p.find(
            Family::HourCache,
            format!("{text}: not mostly, so no 1-hour cache"),
        );
        return;
    }
    // The sessions the edit leaves: `only_longer` those whose cache lives an hour already,
    // `providers` those on OpenAI's API; and, as every cache edit, those without a cache.
    let longer: usize = e
        .anthropic_pauses
        .iter()
        .filter(|x| x.ttl_s >= HOUR_S)
        .map(|x| x.sessions_with_ttl)
        .sum();
    let uncached = e.uncached_sessions - e.openai.uncached;
    let leaves: Vec<String> = [
        (longer, "whose cache already lives an hour or longer"),
        (e.openai.sessions, "not at Anthropic (on OpenAI's API)"),
        (uncached, "without a cache"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{} {what}", grouped(n as f64, 0)))
    .collect();
    let left = if leaves.is_empty() {
        "leaves none (none has a cache living an hour already, none ran on OpenAI's API)"
            .to_string()
    } else {
        format!("leaves as they are {}", and_list(&leaves))
    };
    // Which sessions it changes, on the terminal as in the files: a reader of the findings
    // alone should not take it for every session's cache.
    p.find(
        Family::HourCache,
        format!(
            "{text}: a 1-hour cache, for those {} only (at Anthropic); it {left}",
            grouped(sessions as f64, 0),
        ),
    );
    p.candidates.push(Candidate {
        name: "1-hour cache".into(),
        family: Family::HourCache,
        action: format!(
            "cache = {{ ttl_s = {}, write = {}, only_longer = true, providers = [\"anthropic\"] }}",
            toml_number(HOUR_S),
            ryu::Buffer::new().format(HOUR_WRITE)
        ),
        evidence: format!(
            "{text}: a cache living an hour (its writes at {HOUR_WRITE}× input, Anthropic's 1-hour price) keeps the prefix over them. It changes the {} at Anthropic whose cache lives less than an hour, and {left}.",
            plural(sessions, "session", "sessions"),
        ),
        parameters: Parameters {
            ttl_s: Some(HOUR_S),
            ..Parameters::default()
        },
        series: None,
        point_label: "1 h".into(),
    });
}

/// `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.join(""),
    }
}

/// OpenAI's extended prompt-cache retention (24 hours, same prices) for the sessions on
/// OpenAI's API whose models offer it, where some pause outlived their cache.
fn retention(e: &Evidence, p: &mut Proposal) {
    let o = &e.openai;
    if o.sessions == 0 {
        p.find(
            Family::Retention,
            "no session ran on OpenAI's API: its 24-hour retention does not apply".into(),
        );
        return;
    }
    for (model, why) in &o.without_retention {
        p.find(Family::Retention, format!("{model}: {why}"));
    }
    if o.sessions_without_model > 0 {
        p.find(
            Family::Retention,
            format!(
                "{} on OpenAI's API name no model: whether it offers 24-hour retention is unknown, so they are not counted",
                plural(o.sessions_without_model, "session", "sessions")
            ),
        );
    }
    if o.over_ttl == 0 {
        p.find(
            Family::Retention,
            "no pause outlives the cache's TTL in the OpenAI sessions whose models offer 24-hour retention".into(),
        );
        return;
    }
    let text = format!(
        "{} longer than the cache's TTL in {} on OpenAI's API whose models offer 24-hour retention, {} of them at most 24 hours",
        plural(o.over_ttl, "pause", "pauses"),
        plural(o.sessions_over_ttl, "session", "sessions"),
        grouped(o.within_day as f64, 0)
    );
    p.find(Family::Retention, format!("{text}: 24-hour retention"));
    p.candidates.push(Candidate {
        name: "24-hour cache retention (OpenAI)".into(),
        family: Family::Retention,
        action: format!(
            "cache = {{ retention = \"{}\" }}",
            crate::scenario::provider::OPENAI_RETENTION
        ),
        evidence: format!(
            "{text}: OpenAI's extended retention keeps a prefix up to 24 hours at the same prices (its prompt-caching guide; an upper bound, the simulation keeps every prefix that long)."
        ),
        parameters: Parameters {
            ttl_s: Some(crate::scenario::provider::RETENTION_24H_S),
            ..Parameters::default()
        },
        series: None,
        point_label: "24 h".into(),
    });
}

/// Drop or defer each base part whose tools are rarely used.
fn tool_definitions(e: &Evidence, p: &mut Proposal) {
    if e.parts.is_empty() {
        p.find(
            Family::ToolDefinitions,
            "no scenario declares [[base.part]] (the tool definitions' sizes, from /context): none proposed, since a part's size is never guessed".into(),
        );
        return;
    }
    for part in &e.parts {
        let used = format!(
            "{} ({} tokens, {}) is declared in {}; {} of them use its tools, in {} of their {}",
            part.part,
            grouped(part.tokens, 0),
            part.source,
            plural(part.sessions, "session", "sessions"),
            grouped(part.sessions_using as f64, 0),
            plural(part.calls_using, "call", "calls"),
            grouped(part.calls as f64, 0)
        );
        if part.tools == 0 {
            p.find(
                Family::ToolDefinitions,
                format!(
                    "{} ({} tokens, {}) serves no tool named: whether the sessions need it cannot be seen in their calls, so it is not proposed",
                    part.part,
                    grouped(part.tokens, 0),
                    part.source
                ),
            );
            continue;
        }
        let rare = if part.sessions >= 2 {
            part.sessions_using as f64 <= PART_RARE_SESSIONS * part.sessions as f64
        } else {
            part.calls_using as f64 <= PART_RARE_CALLS * part.calls as f64
        };
        let rule = if part.sessions >= 2 {
            format!(
                "rarely used: at most {} % of the sessions that declare it",
                PART_RARE_SESSIONS * 100.0
            )
        } else {
            format!(
                "rarely used: at most {} % of the session's calls",
                PART_RARE_CALLS * 100.0
            )
        };
        if !rare {
            p.find(Family::ToolDefinitions, format!("{used}: not {rule}"));
            continue;
        }
        p.find(
            Family::ToolDefinitions,
            if part.deferred {
                format!(
                    "{used}: {rule}; dropped (already deferred: tool search loads it on demand)"
                )
            } else {
                format!("{used}: {rule}; dropped, and deferred")
            },
        );
        let name = toml_string(&part.part);
        p.candidates.push(Candidate {
            name: format!("drop {}", shown(&part.part)),
            family: Family::ToolDefinitions,
            action: format!("base = {{ drop = {name} }}"),
            evidence: format!("{used}; those calls would need another way."),
            parameters: Parameters {
                part: Some(part.part.clone()),
                part_action: Some("drop"),
                ..Parameters::default()
            },
            series: None,
            point_label: part.part.clone(),
        });
        if part.deferred {
            continue;
        }
        p.candidates.push(Candidate {
            name: format!("defer {} (tool search)", shown(&part.part)),
            family: Family::ToolDefinitions,
            action: format!(
                "base = {{ defer = {name}, stub_tokens = {} }}",
                toml_number(STUB_TOKENS_ASSUMED)
            ),
            evidence: format!(
                "{used}; a tool search loads its definitions before the first such call. The stub left behind is assumed: {} tokens (the tool-search tool and the deferred tools' names; /context shows yours).",
                grouped(STUB_TOKENS_ASSUMED, 0)
            ),
            parameters: Parameters {
                part: Some(part.part.clone()),
                part_action: Some("defer"),
                stub_tokens: Some(STUB_TOKENS_ASSUMED),
                ..Parameters::default()
            },
            series: None,
            point_label: part.part.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suggest::evidence::{Pauses, Repeats};

    fn evidence() -> Evidence {
        Evidence {
            sessions: 1,
            calls: 0,
            tools: Vec::new(),
            repeats: Vec::new(),
            pauses: Vec::new(),
            uncached_sessions: 0,
            contexts: Values::default(),
            base_p90: 0.0,
            anthropic_pauses: Vec::new(),
            openai: Default::default(),
            compactions: Vec::new(),
            parts: Vec::new(),
        }
    }

    fn tool(name: &str, sizes: &[f64]) -> ToolOutputs {
        ToolOutputs {
            tool: name.into(),
            sizes: sizes.iter().copied().collect(),
            sessions: 1,
            searches: 0,
            pinned: 0,
        }
    }

    /// The 1-hour cache candidate's evidence.
    fn hour_evidence(e: &Evidence) -> String {
        propose(e)
            .candidates
            .into_iter()
            .find(|c| c.family == Family::HourCache)
            .map(|c| c.evidence)
            .unwrap_or_default()
    }

    fn names(p: &Proposal) -> Vec<&str> {
        p.candidates.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn caps_at_the_p75_and_p90_sizes_below_the_largest() {
        let mut e = evidence();
        e.tools = vec![
            // 1, 2, 4, 40 KB: p75 = 4 KB (rank 3); p90 = 40 KB (rank 4), the largest.
            tool("Bash", &[1_000.0, 2_000.0, 4_000.0, 40_000.0]),
            // Ten outputs: median (rank 5) 1,000, p75 (rank 8) 5,000, p90 (rank 9) 9,000.
            tool("Read", &[1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 5e3, 9e3, 20e3]),
            // Large, not skewed: p90 7,000 < 2 × 6,000.
            tool("Grep", &[5e3, 6e3, 6e3, 7e3]),
            // Skewed, not large: p90 4,000 < 4,096.
            tool("Edit", &[100.0, 100.0, 200.0, 4_000.0]),
            tool("Glob", &[1e6, 1.0, 2.0]),
        ];
        let p = propose(&e);
        assert_eq!(
            names(&p),
            vec![
                "cap Bash at 4,000 bytes (p75)",
                "cap Read at 5,000 bytes (p75)",
                "cap Read at 9,000 bytes (p90)",
            ]
        );
        assert_eq!(
            p.candidates[2].action,
            "cap = { select = { tool = \"Read\" }, max_bytes = 9000 }"
        );
        assert!(
            p.candidates[0]
                .evidence
                .ends_with("a cap at p75 cuts 1 of them to 4,000 bytes.")
        );
        let found: Vec<&str> = p.findings.iter().map(|f| f.text.as_str()).collect();
        assert!(
            found.contains(&"not large (p90 under 4,096 bytes): Edit (4,000)"),
            "{found:?}"
        );
        assert!(found.contains(
            &"large but not skewed (p90 under 2× the median): Grep (7,000 against 6,000)"
        ));
        assert!(found.contains(&"fewer than 4 outputs, too few to tell: Glob"));
    }

    #[test]
    fn triggers_are_the_contexts_percentiles_rounded_below_the_largest() {
        let mut e = evidence();
        // p50 (rank 5) 52,400 → 50,000; p75 (rank 8) 77,600 → 80,000; p90 (rank 9)
        // 91,000 → 90,000; 100,000 is above the largest.
        let mut contexts = vec![
            10e3, 20e3, 30e3, 40e3, 52.4e3, 60e3, 70e3, 77.6e3, 91e3, 99e3,
        ];
        e.contexts = contexts.iter().copied().collect();
        assert_eq!(
            triggers(&e.contexts, Some(API_CLEAR_TRIGGER), 0.0),
            vec![50e3, 80e3, 90e3]
        );
        assert_eq!(
            triggers(&e.contexts, Some(API_COMPACT_TRIGGER), API_COMPACT_MIN),
            vec![50e3, 80e3, 90e3]
        );
        let p = propose(&e);
        // Three triggers × three keeps; three compaction thresholds.
        let clears = p
            .candidates
            .iter()
            .filter(|c| c.family == Family::ContextEditing);
        assert_eq!(clears.count(), 9);
        assert!(names(&p).contains(&"compact above 80,000 tokens"));
        // With a context past 100,000 the API's defaults are proposed under their name.
        contexts.push(120e3);
        e.contexts = contexts.into_iter().collect();
        let p = propose(&e);
        assert!(names(&p).contains(&"context editing: API defaults (100,000, keep 3)"));
    }

    #[test]
    fn an_hour_cache_only_where_most_pauses_over_the_ttl_last_up_to_an_hour() {
        let pauses = |over, within| Pauses {
            ttl_s: 300.0,
            sessions_with_ttl: 2,
            over_ttl: over,
            within_hour: within,
            sessions: 1,
        };
        let mut e = evidence();
        e.pauses = vec![pauses(4, 3)];
        e.anthropic_pauses = e.pauses.clone();
        let p = propose(&e);
        assert!(names(&p).contains(&"1-hour cache"));
        // Only where it lengthens the cache, only at Anthropic; the evidence counts the
        // sessions it changes and those it leaves.
        let mut counted = e.clone();
        counted.anthropic_pauses.push(Pauses {
            ttl_s: 3_600.0,
            sessions_with_ttl: 3,
            over_ttl: 1,
            within_hour: 0,
            sessions: 1,
        });
        counted.openai.sessions = 4;
        counted.openai.uncached = 1;
        counted.uncached_sessions = 2;
        let p = propose(&counted);
        let hour = p
            .candidates
            .iter()
            .find(|c| c.name == "1-hour cache")
            .unwrap();
        assert_eq!(
            hour.action,
            "cache = { ttl_s = 3600, write = 2.0, only_longer = true, providers = [\"anthropic\"] }"
        );
        assert!(
            hour.evidence.ends_with(
                "It changes the 2 sessions at Anthropic whose cache lives less than an hour, and leaves as they are 3 whose cache already lives an hour or longer, 4 not at Anthropic (on OpenAI's API) and 1 without a cache."
            ),
            "{}",
            hour.evidence
        );
        let hour = hour_evidence(&e);
        assert!(
            hour.ends_with("It changes the 2 sessions at Anthropic whose cache lives less than an hour, and leaves none (none has a cache living an hour already, none ran on OpenAI's API)."),
            "{hour}"
        );
        assert!(names(&p).contains(&"clear after a 300 s pause (the cache TTL)"));
        // The same pauses in sessions on OpenAI's API: no Anthropic 1-hour cache.
        e.anthropic_pauses.clear();
        assert!(!names(&propose(&e)).contains(&"1-hour cache"));
        e.pauses = vec![pauses(4, 2)];
        e.anthropic_pauses = e.pauses.clone();
        assert!(!names(&propose(&e)).contains(&"1-hour cache"));
        e.pauses = vec![pauses(0, 0)];
        e.anthropic_pauses = e.pauses.clone();
        assert!(names(&propose(&e)).is_empty());
    }

    /// Issue 25 §3: a tool with results that cannot be replaced (server-side search,
    /// pinned) is never capped.
    #[test]
    fn results_that_cannot_be_replaced_are_not_capped() {
        let mut e = evidence();
        let sizes = [1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 5e3, 9e3, 20e3];
        // Every WebFetch result a search (none left to size); a Bash call with a search
        // among its results (left out: the cap selects kind "tool"); a pinned Grep.
        let mut fetch = tool("WebFetch", &[]);
        fetch.searches = 8;
        let mut bash = tool("Bash", &sizes);
        bash.searches = 1;
        let mut grep = tool("Grep", &sizes);
        grep.pinned = 1;
        e.tools = vec![fetch, bash, grep, tool("Read", &sizes)];
        let p = propose(&e);
        assert_eq!(
            names(&p),
            vec![
                "cap Bash at 5,000 bytes (p75)",
                "cap Bash at 9,000 bytes (p90)",
                "cap Read at 5,000 bytes (p75)",
                "cap Read at 9,000 bytes (p90)"
            ]
        );
        assert_eq!(
            p.candidates[0].action,
            "cap = { select = { tool = \"Bash\", kind = \"tool\" }, max_bytes = 5000 }"
        );
        assert_eq!(
            p.candidates[2].action,
            "cap = { select = { tool = \"Read\" }, max_bytes = 5000 }"
        );
        let found: Vec<&str> = p.findings.iter().map(|f| f.text.as_str()).collect();
        assert!(found.contains(&"server-side search results (kind web_search) cannot be replaced: left out of the sizes, and a cap selects kind = \"tool\" only: WebFetch (8 search results), Bash (1 search result)"), "{found:?}");
        assert!(found.contains(&"pinned results must stay as they are, and a cap's selector cannot leave them out: no cap on Grep (1 pinned call)"), "{found:?}");
    }

    /// Issue 25 §3: read once needs more than equal inputs: never a polling tool, and
    /// where some repeats found something new, only those that found the same size.
    #[test]
    fn read_once_spares_polls_and_repeats_that_found_something_new() {
        let repeats = |tool: &str, calls, same_size| Repeats {
            tool: tool.into(),
            calls,
            same_size,
            sessions: 1,
        };
        let mut e = evidence();
        e.repeats = vec![
            repeats("BashOutput", 5, 5),
            repeats("Grep", 4, 4),
            repeats("Read", 4, 3),
            repeats("Bash", 4, 1),
        ];
        let p = propose(&e);
        let actions: Vec<&str> = p.candidates.iter().map(|c| c.action.as_str()).collect();
        assert_eq!(
            actions,
            vec![
                "dedupe = { select = { tool = \"Grep\" } }",
                "dedupe = { select = { tool = \"Read\" }, same_bytes = true }",
            ]
        );
        let found: Vec<&str> = p.findings.iter().map(|f| f.text.as_str()).collect();
        assert!(found.contains(&"5 calls of BashOutput in 1 session repeat an earlier input of the same session (5 with the same result size as the first): not proposed, BashOutput polls (the same input is meant to return new output)"), "{found:?}");
        assert!(
            found.iter().any(|f| f.starts_with("4 calls of Read")
                && f.ends_with("read once; only the 3 with the first's result size are read once")),
            "{found:?}"
        );
    }

    /// Issue 25 §3: sessions on OpenAI's API get OpenAI's compaction and retention, never
    /// Anthropic's context editing or 1-hour cache; no threshold at or below B + summary.
    #[test]
    fn openai_sessions_get_openai_edits() {
        let mut e = evidence();
        e.openai.sessions = 2;
        // p50 (rank 5) 52,400 → 50,000 (not above B + S = 48,000 + 4,000); p75 (rank 8)
        // 80,000; p90 (rank 9) 90,000.
        e.openai.contexts = [
            10e3, 20e3, 30e3, 40e3, 52.4e3, 60e3, 70e3, 77.6e3, 91e3, 199e3,
        ]
        .into_iter()
        .collect();
        e.openai.base_p90 = 48_000.0;
        e.openai.over_ttl = 3;
        e.openai.within_day = 3;
        e.openai.sessions_over_ttl = 1;
        e.openai.without_retention = vec![("gpt-4o".into(), "no".into())];
        let p = propose(&e);
        assert_eq!(
            names(&p),
            vec![
                "OpenAI compaction above 80,000 tokens",
                "OpenAI compaction above 90,000 tokens",
                "24-hour cache retention (OpenAI)",
            ]
        );
        assert_eq!(
            p.candidates[0].action,
            "compact = { api = \"openai-responses\", compact_threshold = 80000, summary_tokens = 4000 }"
        );
        assert_eq!(p.candidates[2].action, "cache = { retention = \"24h\" }");
        assert!(p.findings.iter().any(|f| f.text == "gpt-4o: no"));
        assert!(p.findings.iter().any(|f| {
            f.text
                .starts_with("2 sessions ran on OpenAI's API, which has no context editing")
        }));
        // The same contexts on Anthropic's side: B + S drops the 50,000 threshold there too.
        let mut a = evidence();
        a.contexts = e.openai.contexts.clone();
        a.base_p90 = 48_000.0;
        let pa = propose(&a);
        let compactions: Vec<&str> = pa
            .candidates
            .iter()
            .filter(|c| c.family == Family::Compaction)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(
            compactions,
            vec![
                "compact above 80,000 tokens",
                "compact above 90,000 tokens",
                "compact above 150,000 tokens"
            ]
        );
    }

    #[test]
    fn long_tool_names_are_cut_and_names_stay_unique() {
        let mut e = evidence();
        let long = "x".repeat(300);
        let sizes = [1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 5e3, 9e3, 20e3];
        e.tools = vec![
            tool(&format!("{long}a"), &sizes),
            tool(&format!("{long}b"), &sizes),
        ];
        let p = propose(&e);
        let names = names(&p);
        assert_eq!(names.len(), 4);
        assert!(names.iter().all(|n| n.chars().count() <= 200), "{names:?}");
        let unique: std::collections::HashSet<&&str> = names.iter().collect();
        assert_eq!(unique.len(), 4);
        assert!(names[2].ends_with("(p75) (2)"), "{names:?}");
    }

    #[test]
    fn toml_values() {
        assert_eq!(toml_number(10_454.0), "10454");
        assert_eq!(toml_number(2.5), "2.5");
        assert_eq!(toml_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
    }
}
