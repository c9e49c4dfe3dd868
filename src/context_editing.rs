//! The provider's context editing (`clear = { api = "clear_tool_uses_20250919", … }`,
//! docs/model.md §9), as its documentation describes it: applied server-side to each
//! request on its own. The client keeps and re-sends the full, unedited history; for every
//! request whose unedited input exceeds the trigger, the server clears the oldest tool
//! results, keeping the most recent `keep_tool_uses`, and that request reads the edited
//! context. The next request starts again from the full history: a window that slides,
//! not a clearing that persists (§3's clearings are what a client that edits its own history
//! does).
//!
//! Which results a request reads cleared is always a prefix of the results the API may
//! clear (the oldest), so a run's clearings are one count per call ([`Clearings::window`]).
//! The tokens a request frees are summed result by result (each result's tokens less its
//! placeholder), never as a difference of large totals, so whether a clearing frees
//! `clear_at_least_tokens` does not turn on rounding.

use crate::clear::{Clearings, Event, Idle, NEVER};
use crate::ledger::Assumptions;
use crate::run::Run;
use crate::scenario::ClearPolicy;

/// The trigger's name in events and reports.
pub const TRIGGER: &str = "trigger_input_tokens";

/// Replays `run` under the API's context editing `policy` at `at`: for each call, how many
/// of the oldest `clearable` results its request reads cleared, and an event for each
/// request that clears results the one before it did not (listing those, with the tokens
/// the request frees in all). `joins` are tokens that join just before a call (a deferred
/// part's definitions), as in [`crate::clear::replay_with_joins`].
pub fn replay(
    run: &Run,
    policy: &ClearPolicy,
    clearable: &[bool],
    at: Assumptions,
    joins: &[(usize, f64)],
) -> Clearings {
    let n = run.len();
    let rho = at.bytes_per_token;
    let trigger = policy.above_context_tokens.unwrap_or(f64::INFINITY);
    let keep = policy.keep_results as usize;
    let mut out = Clearings {
        cleared_before: vec![NEVER; n],
        events: Vec::new(),
        placeholder_bytes: policy.placeholder_bytes,
        idle: Idle::default(),
        window: vec![0; n],
        eligible: Vec::new(),
        refetches: Vec::new(),
    };
    // Over the eligible results so far: what each frees (its tokens less the placeholder),
    // summed result by result from the oldest; and their measured tokens and bytes.
    let mut freed: Vec<f64> = vec![0.0];
    let mut measured: Vec<f64> = vec![0.0];
    let mut bytes: Vec<f64> = vec![0.0];
    let mut origins: Vec<u32> = Vec::new();
    let mut widest = 0usize;
    let mut joins = joins.iter().peekable();
    let mut context = at.base_tokens;
    for (i, slot) in run.iter().enumerate() {
        while let Some((_, tokens)) = joins.next_if(|(at, _)| *at == i) {
            context += tokens;
        }
        if context > trigger {
            let standing = out.eligible.len();
            let count = standing.saturating_sub(keep);
            if count == 0 {
                out.idle.nothing_to_clear += 1;
                out.idle.first.get_or_insert((i, vec![TRIGGER]));
            } else if freed[count] < policy.clear_at_least_tokens {
                out.idle.too_little += 1;
                out.idle.first.get_or_insert((i, vec![TRIGGER]));
            } else {
                out.window[i] = count as u32;
                if count > widest {
                    for &j in &out.eligible[widest..count] {
                        out.cleared_before[j as usize] = i as u32;
                    }
                    out.events.push(Event {
                        before: i,
                        cleared: out.eligible[widest..count]
                            .iter()
                            .map(|&j| j as usize)
                            .collect(),
                        origins: origins[widest..count].to_vec(),
                        cleared_tokens: measured[count],
                        cleared_bytes: bytes[count],
                        freed_tokens: freed[count],
                        triggers: vec![TRIGGER],
                        compaction: None,
                    });
                    widest = count;
                }
            }
        }
        context += slot.size(rho);
        if clearable[i] {
            out.eligible.push(i as u32);
            origins.push(slot.origin);
            let last = freed.len() - 1;
            let own = slot.tokens + (slot.bytes - policy.placeholder_bytes) / rho;
            freed.push(freed[last] + own);
            measured.push(measured[last] + slot.tokens);
            bytes.push(bytes[last] + slot.bytes);
        }
    }
    out
}
