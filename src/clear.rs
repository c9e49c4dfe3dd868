//! Clearing stale tool results (docs/model.md §3): when a policy fires, and what it clears.
//!
//! Replaying a run under a policy gives its clearing events. A cleared result is replaced
//! by a placeholder from the event on; calls before it read the original. Every keep rule
//! keeps the results from some index on (the latest segments, results or calls), and that
//! index never moves back, so each clearing clears a prefix of the results still standing.
//! That keeps the replay linear: running sums stand in for rescans.

use crate::ledger::Assumptions;
use crate::run::Run;
use crate::scenario::Calls;
use crate::scenario::ClearPolicy;

/// Marks a result that is never cleared in [`Clearings::cleared_before`].
pub const NEVER: u32 = u32::MAX;

/// One clearing.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// 0-based index of the call before which the clearing happened.
    pub before: usize,
    /// 0-based indices of the calls whose results were cleared, in order.
    pub cleared: Vec<usize>,
    /// The baseline calls those results stand for (for their ids).
    pub origins: Vec<u32>,
    /// Measured tokens and bytes of the cleared results, before the placeholders.
    pub cleared_tokens: f64,
    pub cleared_bytes: f64,
    /// Tokens freed: the cleared results' sizes less their placeholders, in est. tokens.
    pub freed_tokens: f64,
    /// The triggers that fired, in docs/model.md's order.
    pub triggers: Vec<&'static str>,
    /// A compaction (`crate::compact`) rather than a clearing: the summary's tokens. A
    /// compaction request runs before the call, reading the context as it stands; the
    /// cleared calls (results and the model's messages) give way to the summary.
    pub compaction: Option<f64>,
}

/// The outcome of replaying a run under a policy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Clearings {
    /// For each call, the 0-based call index before which its result was cleared, or
    /// [`NEVER`]; empty where nothing is cleared ([`Clearings::none`]: a run without a
    /// policy holds nothing per call here).
    pub cleared_before: Vec<u32>,
    pub events: Vec<Event>,
    /// Placeholder size in bytes.
    pub placeholder_bytes: f64,
    /// Calls before which a trigger fired and no clearing followed (the trigger stays
    /// armed): so "never fired" is said only of a policy that never fired.
    pub idle: Idle,
    /// The provider's context editing (docs/model.md §9), applied to each request on its
    /// own from the full history: for each call, how many of the oldest [`eligible`]
    /// results its request reads cleared (0: none). Empty for a clearing that persists
    /// (§3), whose [`events`] change the context from then on.
    ///
    /// [`eligible`]: Clearings::eligible
    /// [`events`]: Clearings::events
    pub window: Vec<u32>,
    /// With [`window`](Clearings::window): the positions of the results the API may clear,
    /// in order; a request's cleared results are always the oldest of them.
    pub eligible: Vec<u32>,
    /// The re-fetches of removed results the agent makes at the re-fetch rate the
    /// clearings were made for (docs/model.md §11; `crate::refetch`), by position: empty at
    /// rate 0 and where nothing is removed.
    pub refetches: Vec<crate::run::AddedRequest>,
}

/// A policy's triggers that fired without a clearing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Idle {
    /// Firings with nothing to clear: every clearable result standing was kept, or none
    /// stood.
    pub nothing_to_clear: usize,
    /// Firings whose clearing would have freed less than `clear_at_least_tokens`.
    pub too_little: usize,
    /// Firings before a call the cache had not expired before, with `at = "cold"`: the
    /// trigger waits, armed, for one.
    pub not_cold: usize,
    /// The first such call (0-based) and the triggers that fired there.
    pub first: Option<(usize, Vec<&'static str>)>,
}

impl Clearings {
    /// No clearing at all.
    pub fn none() -> Clearings {
        Clearings {
            cleared_before: Vec::new(),
            events: Vec::new(),
            placeholder_bytes: 0.0,
            idle: Idle::default(),
            window: Vec::new(),
            eligible: Vec::new(),
            refetches: Vec::new(),
        }
    }

    /// Whether the clearings are the provider's, request by request (see
    /// [`Clearings::window`]), not ones that persist.
    pub fn stateless(&self) -> bool {
        !self.window.is_empty()
    }
}

/// Which results of `run` a policy may clear: not pinned, kind not excluded, tool allowed
/// (in `tools` when given, not in `exclude_tools`), non-empty. The provider's context
/// editing (`api`) clears tool results only: kind `tool`, never a user prompt, a preload or
/// a server-side search result (docs/model.md §9).
pub fn clearable(calls: &Calls, run: &Run, policy: &ClearPolicy) -> Vec<bool> {
    run.iter()
        .map(|s| {
            let call = calls.at(s.origin as usize);
            let tool = call.tool();
            let tool_allowed = match &policy.tools {
                Some(tools) => tool.is_some_and(|t| tools.iter().any(|x| x == t)),
                None => true,
            } && !tool
                .is_some_and(|t| policy.exclude_tools.iter().any(|x| x == t));
            !call.pinned
                && !policy.exclude_kinds.iter().any(|k| **k == *call.kind)
                && (policy.api.is_none() || call.kind == "tool")
                && tool_allowed
                && (s.tokens > 0.0 || s.bytes > 0.0)
        })
        .collect()
}

/// Warnings for a policy whose explicit setting is overridden: a kind `exclude_kinds`
/// leaves clearable whose calls are all pinned anyway (web searches are pinned by default).
pub fn overridden_by_pinning(calls: &Calls, policy: &ClearPolicy) -> Vec<String> {
    if !policy.exclude_kinds_given {
        return Vec::new();
    }
    let mut kinds: Vec<(&str, usize, usize)> = Vec::new(); // kind, calls, pinned
    for c in calls.iter() {
        if policy.exclude_kinds.iter().any(|k| **k == *c.kind) {
            continue;
        }
        match kinds.iter_mut().find(|(k, _, _)| *k == &*c.kind) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += usize::from(c.pinned);
            }
            None => kinds.push((c.kind, 1, usize::from(c.pinned))),
        }
    }
    kinds
        .into_iter()
        .filter(|&(_, n, pinned)| pinned > 0 && pinned == n)
        .map(|(kind, n, _)| {
            let default = if kind == "web_search" {
                " (web_search calls are pinned by default)"
            } else {
                ""
            };
            format!(
                "exclude_kinds allows kind `{kind}`, but all {n} call{} of that kind {} pinned{default}, so none is cleared: set pinned = false on a call to let it be cleared",
                if n == 1 { "" } else { "s" },
                if n == 1 { "is" } else { "are" },
            )
        })
        .collect()
}

/// Replays `run` under `policy` at `at` and returns its clearings: ones that persist
/// (docs/model.md §3; the provider's context editing is `crate::context_editing`). `clearable` is
/// [`clearable`]`(calls, run, policy)`, passed in so a sweep computes it once.
pub fn replay(
    calls: &Calls,
    run: &Run,
    policy: &ClearPolicy,
    clearable: &[bool],
    at: Assumptions,
) -> Clearings {
    replay_with_joins(calls, run, policy, clearable, at, &[])
}

/// As [`replay`], for a run where tokens join the context between calls: `joins` (by
/// position) are `(i, tokens)`, tokens that join just before call i, after its triggers are
/// checked (a deferred part's definitions, loaded by a tool search that runs before call i;
/// docs/model.md §9). They are not results: never cleared.
pub fn replay_with_joins(
    calls: &Calls,
    run: &Run,
    policy: &ClearPolicy,
    clearable: &[bool],
    at: Assumptions,
    joins: &[(usize, f64)],
) -> Clearings {
    let mut joins = joins.iter().peekable();
    let n = run.len();
    let rho = at.bytes_per_token;
    let mut out = Clearings {
        cleared_before: vec![NEVER; n],
        events: Vec::new(),
        placeholder_bytes: policy.placeholder_bytes,
        idle: Idle::default(),
        window: Vec::new(),
        eligible: Vec::new(),
        refetches: Vec::new(),
    };
    // Clearable results in context, in order, with running sums of their sizes so a
    // clearing's freed tokens and bytes are differences, not rescans.
    let mut standing: Vec<u32> = Vec::new();
    let mut origins: Vec<u32> = Vec::new();
    let mut sum_measured: Vec<f64> = vec![0.0];
    let mut sum_bytes: Vec<f64> = vec![0.0];
    let mut head = 0usize; // standing[..head] are cleared
    // First clearable result of each tool-using segment seen so far.
    let mut segment_starts: Vec<u32> = Vec::new();
    let mut last_tool_segment: Option<u64> = None;
    let mut segment_has_result = false;
    let mut completed_since_clearing = 0u64;
    // Position of the call before which the last clearing happened (0: the start), for
    // `every_calls`.
    let mut last_clearing = 0usize;
    let mut context = at.base_tokens;
    let mut previous_segment = None;
    // `at = "cold"`: the triggers that fired since the last clearing, waiting for a cold
    // call. Kept apart because `after_gap_s` fires on one call's pause only: fired at a
    // cold call that had nothing (or too little) to clear, it stays armed (docs/model.md
    // §3, §9) and acts at the next cold call, whose own pause may be shorter than X.
    let mut armed: Vec<&'static str> = Vec::new();

    for (i, slot) in run.iter().enumerate() {
        let segment = calls.segment(slot.origin as usize);
        if i >= 1 {
            if previous_segment != Some(segment) {
                if segment_has_result {
                    completed_since_clearing += 1;
                }
                segment_has_result = false;
            }
            let avail = standing.len();
            let uncleared_bytes = sum_bytes[avail] - sum_bytes[head];
            let mut triggers = Vec::new();
            if policy
                .every_segments
                .is_some_and(|k| completed_since_clearing >= k)
            {
                triggers.push("every_segments");
            }
            if policy
                .every_calls
                .is_some_and(|k| (i - last_clearing) as u64 >= k)
            {
                triggers.push("every_calls");
            }
            if policy.above_tool_bytes.is_some_and(|x| uncleared_bytes > x) {
                triggers.push("above_tool_bytes");
            }
            if policy.above_context_tokens.is_some_and(|x| context > x) {
                triggers.push("above_context_tokens");
            }
            if policy
                .older_than_calls
                .is_some_and(|k| head < avail && (standing[head] as u64) + k < i as u64)
            {
                triggers.push("older_than_calls");
            }
            if policy
                .after_gap_s
                .is_some_and(|x| calls.gap_s(slot.origin as usize) > x)
            {
                triggers.push("after_gap_s");
            }
            // `at = "cold"`: a fired trigger waits, armed, for a call the cache has expired
            // before (docs/model.md §9): there the prefix is written again anyway.
            let cold = !policy.at_cold || calls.gap_s(slot.origin as usize) > policy.lifetime_s;
            if policy.at_cold {
                for t in &triggers {
                    if !armed.contains(t) {
                        armed.push(t);
                    }
                }
                if cold {
                    triggers = TRIGGER_ORDER
                        .into_iter()
                        .filter(|t| armed.contains(t))
                        .collect();
                }
            }
            if !triggers.is_empty() && !cold {
                out.idle.not_cold += 1;
            } else if !triggers.is_empty() {
                let keep_from = keep_from(policy, i, &standing, &segment_starts);
                let end = head + standing[head..].partition_point(|&j| (j as u64) < keep_from);
                let count = end - head;
                let freed = freed_tokens(
                    sum_measured[end] - sum_measured[head],
                    sum_bytes[end] - sum_bytes[head],
                    count as f64 * policy.placeholder_bytes,
                    rho,
                );
                // Nothing to clear is no clearing; too little to clear is refused. Either
                // way the trigger stays armed.
                if count > 0 && freed >= policy.clear_at_least_tokens {
                    for &j in &standing[head..end] {
                        out.cleared_before[j as usize] = i as u32;
                    }
                    out.events.push(Event {
                        before: i,
                        cleared: standing[head..end].iter().map(|&j| j as usize).collect(),
                        origins: origins[head..end].to_vec(),
                        freed_tokens: freed,
                        cleared_tokens: sum_measured[end] - sum_measured[head],
                        cleared_bytes: sum_bytes[end] - sum_bytes[head],
                        triggers,
                        compaction: None,
                    });
                    context -= freed;
                    head = end;
                    completed_since_clearing = 0;
                    last_clearing = i;
                    armed.clear();
                } else {
                    if count == 0 {
                        out.idle.nothing_to_clear += 1;
                    } else {
                        out.idle.too_little += 1;
                    }
                    out.idle.first.get_or_insert((i, triggers));
                }
            }
        }
        while let Some((_, tokens)) = joins.next_if(|(at, _)| *at == i) {
            context += tokens;
        }
        context += slot.size(rho);
        if clearable[i] {
            standing.push(i as u32);
            origins.push(slot.origin);
            let last = sum_measured.len() - 1;
            sum_measured.push(sum_measured[last] + slot.tokens);
            sum_bytes.push(sum_bytes[last] + slot.bytes);
            segment_has_result = true;
            if last_tool_segment != Some(segment) {
                last_tool_segment = Some(segment);
                segment_starts.push(i as u32);
            }
        }
        previous_segment = Some(segment);
    }
    out
}

/// The triggers in the order they are checked, and listed in an event (docs/model.md §3).
const TRIGGER_ORDER: [&str; 6] = [
    "every_segments",
    "every_calls",
    "above_tool_bytes",
    "above_context_tokens",
    "older_than_calls",
    "after_gap_s",
];

/// The tokens a clearing frees: the cleared results' `measured` tokens and `bytes` less
/// their `placeholders`' bytes, at `rho`. The measured tokens and the bytes are summed apart
/// (whole numbers, exact) and the bytes less the placeholders divided once, so a result the
/// size of its placeholder frees exactly 0 at every ρ, never a rounding's worth less: whether
/// a clearing frees `clear_at_least_tokens` does not turn on the order of additions.
pub fn freed_tokens(measured: f64, bytes: f64, placeholders: f64, rho: f64) -> f64 {
    measured + (bytes - placeholders) / rho
}

/// The first call index whose result a clearing before call `i` keeps: the least of each
/// keep rule's bound (a rule that is not set keeps nothing). `standing` and `segment_starts`
/// are the clearable results and the first clearable result of each tool-using segment
/// before call `i`, cleared or not (the sweep's lanes compute it once for every point).
pub(crate) fn keep_from(
    policy: &ClearPolicy,
    i: usize,
    standing: &[u32],
    segment_starts: &[u32],
) -> u64 {
    let mut from = u64::MAX;
    let l = policy.keep_segments as usize;
    if l > 0 {
        from = from.min(
            segment_starts
                .len()
                .checked_sub(l)
                .map_or(0, |s| segment_starts[s] as u64),
        );
    }
    let k = policy.keep_results as usize;
    if k > 0 {
        from = from.min(
            standing
                .len()
                .checked_sub(k)
                .map_or(0, |s| standing[s] as u64),
        );
    }
    if let Some(n) = policy.older_than_calls {
        from = from.min((i as u64).saturating_sub(n));
    }
    from
}
