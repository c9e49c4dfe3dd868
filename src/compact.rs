//! Compaction (docs/model.md §9, `compact`): when the context would exceed a threshold, a
//! compaction request reads it whole and writes a summary, and from then on the context is
//! the base, the summary and the latest calls kept.
//!
//! Replaying a run under a policy gives its compactions as [`Event`]s of the clearing
//! machinery, so every output that lists clearings lists them too, and the walk
//! (`crate::timeline`) bills each compaction request like any other: it reads the context
//! as it stands, through the cache; the call after it finds only the base cached.

use crate::clear::{Clearings, Event, NEVER};
use crate::ledger::Assumptions;
use crate::run::Run;
use crate::scenario::{Calls, CompactPolicy};

/// Replays `run` (of `calls`, whose pauses `at = "cold"` reads) under `policy` at `at`
/// (the base already as the run's edits leave it).
pub fn replay(calls: &Calls, run: &Run, policy: &CompactPolicy, at: Assumptions) -> Clearings {
    let n = run.len();
    let rho = at.bytes_per_token;
    let mut out = Clearings {
        cleared_before: vec![NEVER; n],
        events: Vec::new(),
        placeholder_bytes: 0.0,
        idle: crate::clear::Idle::default(),
        window: Vec::new(),
        eligible: Vec::new(),
        refetches: Vec::new(),
    };
    // Each call so far: its size at `at`, what joined as tokens and as bytes, its origin;
    // and where the summarized stretch ends.
    let mut sizes: Vec<f64> = Vec::with_capacity(n);
    let mut joined: Vec<(f64, f64, u32)> = Vec::with_capacity(n);
    let mut context = at.base_tokens;
    let mut summarized = 0usize;
    for (i, slot) in run.iter().enumerate() {
        // `at = "cold"`: past the threshold the compaction waits for a call the cache
        // has expired before (docs/model.md §9).
        let cold = !policy.at_cold || calls.gap_s(slot.origin as usize) > policy.lifetime_s;
        if i >= 1 && context > policy.threshold_tokens && !cold {
            out.idle.not_cold += 1;
        } else if i >= 1 && context > policy.threshold_tokens {
            let keep_from = i.saturating_sub(policy.keep_calls as usize).max(summarized);
            // A compaction with nothing left to summarize does nothing.
            if keep_from > summarized || out.events.is_empty() && keep_from > 0 {
                let kept: f64 = sizes[keep_from..i].iter().sum();
                let after = at.base_tokens + policy.summary_tokens + kept;
                let cleared: Vec<usize> = (summarized..keep_from).collect();
                for &j in &cleared {
                    out.cleared_before[j] = i as u32;
                }
                let (tokens, bytes) = joined[summarized..keep_from]
                    .iter()
                    .fold((0.0, 0.0), |(t, b), &(jt, jb, _)| (t + jt, b + jb));
                out.events.push(Event {
                    before: i,
                    origins: joined[summarized..keep_from].iter().map(|j| j.2).collect(),
                    cleared,
                    cleared_tokens: tokens,
                    cleared_bytes: bytes,
                    freed_tokens: context - after,
                    triggers: vec!["compact"],
                    compaction: Some(policy.summary_tokens),
                });
                context = after;
                summarized = keep_from;
            }
        }
        let size = slot.joined_tokens() + slot.joined_bytes() / rho;
        sizes.push(size);
        joined.push((slot.joined_tokens(), slot.joined_bytes(), slot.origin));
        context += size;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Slot;

    fn run(bytes: &[f64]) -> Run {
        Run::of(
            bytes
                .iter()
                .enumerate()
                .map(|(i, &b)| Slot {
                    origin: i as u32,
                    label: i as u32,
                    bytes: b,
                    tokens: 0.0,
                    output_tokens: 0.0,
                    own_tokens: 0.0,
                    own_bytes: 0.0,
                })
                .collect(),
        )
    }

    fn policy(above: f64, summary: f64, keep: u64) -> CompactPolicy {
        CompactPolicy {
            threshold_tokens: above,
            summary_tokens: summary,
            keep_calls: keep,
            trigger: String::new(),
            api: None,
            at_cold: false,
            lifetime_s: 300.0,
        }
    }

    const AT: Assumptions = Assumptions {
        base_tokens: 1_000.0,
        bytes_per_token: 1.0,
    };

    /// MODEL.md §9's worked example: five calls of 1,000 bytes, above 3,500, summary 200.
    #[test]
    fn the_worked_example_compacts_once_before_call_4() {
        let c = replay(
            &Calls::new(),
            &run(&[1_000.0; 5]),
            &policy(3_500.0, 200.0, 0),
            AT,
        );
        assert_eq!(c.events.len(), 1);
        let e = &c.events[0];
        assert_eq!((e.before, e.cleared.clone()), (3, vec![0, 1, 2]));
        // 4,000 before, 1,200 after.
        assert_eq!(e.freed_tokens, 2_800.0);
        assert_eq!(e.compaction, Some(200.0));
    }

    #[test]
    fn kept_calls_stay_and_a_later_compaction_summarizes_the_summary_too() {
        // Above 3,000 with one call kept: before call 3 (context 4,000) calls 0–1 go,
        // call 2 stays: 1,000 + 100 + 1,000 = 2,100; then 3,100 before call 4: call 2 and
        // 3 are before it, call 3 kept: 1,000 + 100 + 1,000.
        let c = replay(
            &Calls::new(),
            &run(&[1_000.0; 5]),
            &policy(3_000.0, 100.0, 1),
            AT,
        );
        let shape: Vec<(usize, Vec<usize>, f64)> = c
            .events
            .iter()
            .map(|e| (e.before, e.cleared.clone(), e.freed_tokens))
            .collect();
        assert_eq!(shape, vec![(3, vec![0, 1], 1_900.0), (4, vec![2], 1_000.0)]);
    }
}
