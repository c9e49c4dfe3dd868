//! What the agent does next (docs/model.md §11): the results an edit removes (cleared,
//! capped, summarised away, deduplicated), and the calls a re-fetch rate adds to fetch
//! them again.
//!
//! The nominal assumption stays "the agent behaves as before" (rate 0). At rate p, every
//! ⌈1/p⌉-th removed result, in the order they were removed, is fetched again by one added
//! call right after the next call that follows its removal: that call reads the context
//! like any other, and the removed size joins after it. Deterministic, so exact; the
//! sweep treats p as an assumption like B and ρ.
//!
//! Simplifications, said in docs/model.md §11: the edit's own schedule (which results it
//! removes, and when) is the one it makes without re-fetches, so a re-fetched result moves
//! no trigger and is not removed again, except by a compaction, which summarises
//! everything; and the added call's own output (a tool use) is not counted.

use crate::clear::Clearings;
use crate::run::{AddedRequest, Run, Slot};
use crate::scenario::Calls;

/// One result an edit removed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Removal {
    /// Position of the call that follows the removal: the call before which a clearing or
    /// compaction happened, or the one after a capped or deduplicated result.
    pub next: usize,
    /// The removed result's call, as the run's outputs list it (origin and label).
    pub origin: u32,
    pub label: u32,
    /// What was removed: the result's bytes (÷ ρ) and measured tokens; a cap's, what it
    /// cut off.
    pub bytes: f64,
    pub tokens: f64,
}

/// How many removals make one re-fetch at rate `p`: ⌈1/p⌉, None at rate 0. A value of
/// 1/p within 1e-9 of a whole number is that number (0.1 is 10, not 11, whatever the
/// binary rounding of 0.1).
pub fn every(p: f64) -> Option<usize> {
    if p <= 0.0 || p.is_nan() {
        return None;
    }
    let x = 1.0 / p;
    let k = if (x - x.round()).abs() < 1e-9 {
        x.round()
    } else {
        x.ceil()
    };
    Some(k.max(1.0) as usize)
}

/// The results a clearing or compaction removed, in the order they were removed: event
/// by event, each event's results in run order. A compaction summarises whole calls;
/// those without a result, and user prompts (kind `prompt`: text the agent does not fetch),
/// are not results to fetch again.
pub fn removed_by(calls: &Calls, run: &Run, clearings: &Clearings) -> Vec<Removal> {
    if clearings.events.is_empty() {
        return Vec::new();
    }
    let slots: Vec<Slot> = run.iter().collect();
    let mut out = Vec::new();
    for e in &clearings.events {
        for &j in &e.cleared {
            let Some(s) = slots.get(j) else { continue };
            let result = s.bytes > 0.0 || s.tokens > 0.0;
            if !result || calls.kind(s.origin as usize) == "prompt" {
                continue;
            }
            out.push(Removal {
                next: e.before,
                origin: s.origin,
                label: s.label,
                bytes: s.bytes,
                tokens: s.tokens,
            });
        }
    }
    out
}

/// The results an edit's rules removed as the run was made (a cap, a dedupe), given by
/// baseline call with what was removed, placed on the run as edited: the call that
/// follows each is the next one. A result whose call a later step dropped or merged is no
/// longer there to fetch again.
pub fn placed(run: &Run, removed: &[(u32, f64, f64)]) -> Vec<Removal> {
    let origins: Vec<u32> = removed.iter().map(|r| r.0).collect();
    let positions = run.positions(&origins);
    let mut out: Vec<Removal> = removed
        .iter()
        .zip(positions)
        .filter_map(|(&(origin, bytes, tokens), at)| {
            let at = at?;
            let slot = run.get(at)?;
            Some(Removal {
                next: at + 1,
                origin,
                label: slot.label,
                bytes,
                tokens,
            })
        })
        .collect();
    out.sort_by_key(|r| r.next);
    out
}

/// Both lists in the order the results were removed: by the call that follows each, a
/// result removed as it joined (`rules`) before one a clearing removed before that call.
pub fn in_order(rules: &[Removal], clearings: Vec<Removal>) -> Vec<Removal> {
    let mut all: Vec<Removal> = rules.to_vec();
    all.extend(clearings);
    // Stable: ties keep the rules' removals first, and each list's own order.
    all.sort_by_key(|r| r.next);
    all
}

/// The re-fetches at rate `p` of `removals` (in the order removed) on a run of `len`
/// calls: every ⌈1/p⌉-th, right after the call that follows its removal (a request
/// before the call after that one, or after the last call). A removal with no call after
/// it (a cap of the last result) has nothing to follow: no re-fetch.
pub fn requests(removals: &[Removal], p: f64, len: usize) -> Vec<AddedRequest> {
    let Some(k) = every(p) else {
        return Vec::new();
    };
    let mut out: Vec<AddedRequest> = removals
        .iter()
        .skip(k - 1)
        .step_by(k)
        .filter(|r| r.next < len)
        .map(|r| AddedRequest {
            before: r.next + 1,
            joins_tokens: r.tokens,
            joins_bytes: r.bytes,
            refetch: true,
            slot: Slot {
                origin: r.origin,
                label: r.label,
                bytes: r.bytes,
                tokens: r.tokens,
                output_tokens: 0.0,
                own_tokens: 0.0,
                own_bytes: 0.0,
            },
        })
        .collect();
    out.sort_by_key(|r| r.before);
    out
}

/// `a` and `b` (each by position) as one list by position; at the same position `a`'s
/// first (a re-fetch right after a call comes before a tool search just before the next).
pub fn merged(a: &[AddedRequest], b: &[AddedRequest]) -> Vec<AddedRequest> {
    let mut all: Vec<AddedRequest> = a.to_vec();
    all.extend_from_slice(b);
    all.sort_by_key(|r| r.before);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_is_the_ceiling_of_one_over_the_rate() {
        assert_eq!(every(0.0), None);
        assert_eq!(every(0.1), Some(10));
        assert_eq!(every(0.25), Some(4));
        assert_eq!(every(0.3), Some(4));
        assert_eq!(every(0.5), Some(2));
        assert_eq!(every(1.0 / 3.0), Some(3));
        assert_eq!(every(1.0), Some(1));
    }

    fn removal(next: usize, origin: u32) -> Removal {
        Removal {
            next,
            origin,
            label: origin,
            bytes: 100.0,
            tokens: 0.0,
        }
    }

    #[test]
    fn every_kth_removal_is_fetched_right_after_the_next_call() {
        let removals: Vec<Removal> = (0..5).map(|j| removal(3 + j / 2, j as u32)).collect();
        // k = 2: the 2nd and 4th removed (origins 1 and 3), removed before calls 3 and 4:
        // fetched again before calls 4 and 5.
        let r = requests(&removals, 0.5, 10);
        let shape: Vec<(usize, u32)> = r.iter().map(|r| (r.before, r.slot.origin)).collect();
        assert_eq!(shape, vec![(4, 1), (5, 3)]);
        // A removal before the last call is fetched after it; one after it, never.
        let r = requests(&[removal(2, 0), removal(3, 1)], 1.0, 3);
        assert_eq!(r.iter().map(|r| r.before).collect::<Vec<_>>(), vec![3]);
    }
}
