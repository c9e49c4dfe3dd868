//! Replaying a clearing policy at many points of the sweep, fast and to the bit.
//!
//! A clearing whose events move with `B` or `ρ` (`above_context_tokens`,
//! `clear_at_least_tokens`) has no closed form, so the sweep replays it at every `(B, ρ)`.
//! The reference does that in two passes per point ([`crate::clear::replay`] for the
//! events, then [`crate::timeline::walk`] for the sums), allocating as it goes. Here:
//!
//! - what does not depend on the point (which results are clearable, the segment count,
//!   where the keep rules start keeping, the byte and measured-token sums) is worked out
//!   once per run, in a [`Plan`];
//! - every base-token value at one `ρ` is replayed together, so `bytes / ρ` and the sums
//!   that depend on `ρ` alone are computed once per call, not once per point, into
//!   buffers reused from one `ρ` to the next;
//! - the run is cut into tiles of [`TILE`] calls; each tile's figures are computed once,
//!   then every point walks the tile in a tight loop of its own with its state in
//!   registers, while the tile is still in the processor's cache. The events and the
//!   sums come out of that same loop.
//!
//! Each point does the same floating-point operations, in the same order, as the
//! reference does there, so the sums are bit-identical to it (a property test checks).
//! That is why the replay's context and the ledger's are two accumulators: the reference
//! adds a call's size to them in two different orders.

use crate::clear;
use crate::run::Run;
use crate::scenario::Calls;
use crate::scenario::{CacheSpec, ClearPolicy};
use crate::timeline::RunSums;

/// Calls per tile: small enough that a tile's figures stay in the processor's cache
/// while every point walks it.
pub const TILE: usize = 1024;

/// A call whose result the policy may clear.
const CLEARABLE: u8 = 1;
/// A call that finds nothing cached (the first, or after a gap over the TTL).
const EXPIRED: u8 = 2;
/// A call before which `after_gap_s` fires.
const GAP_FIRES: u8 = 4;

/// The thresholds of the triggers that move with the lanes' state (`after_gap_s` is a
/// flag per call).
#[derive(Debug, Clone, Copy)]
struct Thresholds {
    every_segments: Option<u64>,
    every_calls: Option<u64>,
    above_tool_bytes: Option<f64>,
    above_context_tokens: Option<f64>,
    older_than_calls: Option<u64>,
}

/// Everything about a run under a policy that is the same at every point.
#[derive(Debug, Clone)]
pub struct Plan {
    thresholds: Thresholds,
    clear_at_least_tokens: f64,
    placeholder_bytes: f64,
    /// Per call: [`CLEARABLE`], [`EXPIRED`], [`GAP_FIRES`].
    flags: Vec<u8>,
    /// Per call: tool-using segments completed before it (with `every_segments` only).
    completed: Vec<u64>,
    /// Per call: how many of the clearable results before it lie before the first one
    /// the keep rules keep; a clearing there clears the standing ones among them.
    keep_end: Vec<u32>,
    /// Call indices of the clearable results, in order.
    clearable: Vec<u32>,
    /// Running sums over `clearable` (one more entry than results): measured tokens, bytes.
    sum_measured: Vec<f64>,
    sum_bytes: Vec<f64>,
}

impl Plan {
    /// The plan for `run` (of `calls`) under `policy`; `clearable` is
    /// [`clear::clearable`] for it. The segment and keep-rule bookkeeping follows
    /// [`clear::replay`] step for step.
    pub fn new(
        calls: &Calls,
        run: &Run,
        policy: &ClearPolicy,
        clearable: &[bool],
        cache: Option<&CacheSpec>,
    ) -> Plan {
        let n = run.len();
        let mut plan = Plan {
            thresholds: Thresholds {
                every_segments: policy.every_segments,
                every_calls: policy.every_calls,
                above_tool_bytes: policy.above_tool_bytes,
                above_context_tokens: policy.above_context_tokens,
                older_than_calls: policy.older_than_calls,
            },
            clear_at_least_tokens: policy.clear_at_least_tokens,
            placeholder_bytes: policy.placeholder_bytes,
            flags: Vec::with_capacity(n),
            completed: Vec::with_capacity(if policy.every_segments.is_some() {
                n
            } else {
                0
            }),
            keep_end: Vec::with_capacity(n),
            clearable: Vec::new(),
            sum_measured: vec![0.0],
            sum_bytes: vec![0.0],
        };
        let mut segment_starts: Vec<u32> = Vec::new();
        let mut last_tool_segment = None;
        let mut segment_has_result = false;
        let mut completed = 0u64;
        let mut previous_segment = None;
        for (i, slot) in run.iter().enumerate() {
            let (segment, gap_s) = (
                calls.segment(slot.origin as usize),
                calls.gap_s(slot.origin as usize),
            );
            if i >= 1 && previous_segment != Some(segment) {
                if segment_has_result {
                    completed += 1;
                }
                segment_has_result = false;
            }
            if policy.every_segments.is_some() {
                plan.completed.push(completed);
            }
            let keep_from = clear::keep_from(policy, i, &plan.clearable, &segment_starts);
            let keep_end = plan.clearable.partition_point(|&j| (j as u64) < keep_from);
            plan.keep_end.push(keep_end as u32);
            let mut flags = 0;
            if cache.is_some_and(|c| i == 0 || gap_s > c.ttl_s) {
                flags |= EXPIRED;
            }
            if policy.after_gap_s.is_some_and(|x| gap_s > x) {
                flags |= GAP_FIRES;
            }
            if clearable.get(i).copied().unwrap_or(false) {
                flags |= CLEARABLE;
                plan.clearable.push(i as u32);
                let last = plan.sum_measured.len() - 1;
                plan.sum_measured
                    .push(plan.sum_measured[last] + slot.tokens);
                plan.sum_bytes.push(plan.sum_bytes[last] + slot.bytes);
                segment_has_result = true;
                if last_tool_segment != Some(segment) {
                    last_tool_segment = Some(segment);
                    segment_starts.push(i as u32);
                }
            }
            plan.flags.push(flags);
            previous_segment = Some(segment);
        }
        plan
    }
}

/// Buffers one `ρ` fills and the next one reuses: the running sums that depend on `ρ`.
#[derive(Debug, Default)]
pub struct Buffers {
    /// For each clearable result, the ledger's sum of the full sizes of the calls before
    /// it (the cached prefix up to a clearing that starts there).
    full_before: Vec<f64>,
    tile: Tile,
}

/// One point's state: the replay's and the ledger's, at one base-token value.
#[derive(Debug, Clone, Copy)]
struct Lane {
    base: f64,
    /// The replay's context (decides `above_context_tokens`).
    replay_context: f64,
    /// The ledger's context, the previous call's, and the tokens freed so far.
    context: f64,
    previous_context: f64,
    freed_so_far: f64,
    /// Clearable results `clearable[..head]` are cleared.
    head: usize,
    /// `sum_bytes[head]`, and the call index of `clearable[head]` (`u64::MAX`: none).
    bytes_before_head: f64,
    oldest: u64,
    /// Tool-using segments completed at the last clearing.
    completed_at_clearing: u64,
    /// The call before which the last clearing happened (0: the start).
    last_clearing: u64,
    sums: RunSums<f64>,
}

/// A tile's figures that are the same for every point at one `ρ`.
#[derive(Debug, Default)]
struct Tile {
    /// Index of the tile's first call.
    start: usize,
    /// What joins the replay's context and the ledger's after each call (the same size,
    /// summed in the two orders the reference uses).
    replay_size: Vec<f64>,
    size: Vec<f64>,
    /// Per call, copied from the plan so the points read them from the cache: where the
    /// keep rules start keeping, the bytes of the clearable results before it (with
    /// `above_tool_bytes`), the tool-using segments completed (with `every_segments`).
    keep_end: Vec<u32>,
    bytes_before: Vec<f64>,
    completed: Vec<u64>,
}

/// The sums of `run` under the policy of `plan`, at bytes per token `rho` and each base
/// token value of `bases`, with the prompt cache `cache` if any: the same as
/// [`crate::timeline::walk`] after [`clear::replay`] at each point, to the bit.
pub fn sums(
    plan: &Plan,
    run: &Run,
    rho: f64,
    bases: &[f64],
    cache: Option<&CacheSpec>,
    buffers: &mut Buffers,
) -> Vec<RunSums<f64>> {
    let zero = RunSums::zero();
    let oldest = plan.clearable.first().map_or(u64::MAX, |&j| j as u64);
    let mut lanes: Vec<Lane> = bases
        .iter()
        .map(|&b| Lane {
            base: b,
            replay_context: b,
            context: b,
            previous_context: b,
            freed_so_far: 0.0,
            head: 0,
            bytes_before_head: 0.0,
            oldest,
            completed_at_clearing: 0,
            last_clearing: 0,
            sums: zero,
        })
        .collect();
    let Buffers { full_before, tile } = buffers;
    full_before.clear();
    full_before.reserve(plan.clearable.len());
    let mut full = 0.0;
    let mut slots = run.iter();
    let mut start = 0;
    loop {
        // The tile's figures, once for every point.
        tile.start = start;
        tile.replay_size.clear();
        tile.size.clear();
        tile.keep_end.clear();
        tile.bytes_before.clear();
        tile.completed.clear();
        for slot in slots.by_ref().take(TILE) {
            let bytes_tokens = slot.bytes / rho;
            let own = slot.own_tokens + slot.own_bytes / rho;
            tile.replay_size.push(slot.tokens + bytes_tokens + own);
            let size = (slot.tokens + own) + bytes_tokens;
            tile.size.push(size);
            // Clearable results before this call.
            let avail = full_before.len();
            let i = start + tile.size.len() - 1;
            tile.keep_end.push(plan.keep_end[i]);
            if plan.thresholds.above_tool_bytes.is_some() {
                tile.bytes_before.push(plan.sum_bytes[avail]);
            }
            if plan.thresholds.every_segments.is_some() {
                tile.completed.push(plan.completed[i]);
            }
            if plan.flags[i] & CLEARABLE != 0 {
                full_before.push(full);
            }
            full += size;
        }
        if tile.size.is_empty() {
            break;
        }
        let at = Shared {
            plan,
            tile,
            full_before,
            rho,
        };
        // Points in fours, so the processor overlaps their independent chains of work.
        let mut fours = lanes.chunks_exact_mut(4);
        for four in fours.by_ref() {
            walk_tile_n(four, &at, cache);
        }
        for one in fours.into_remainder().chunks_mut(1) {
            walk_tile_n(one, &at, cache);
        }
        start += tile.size.len();
    }
    lanes.iter().map(|l| l.sums).collect()
}

/// What every point reads while it walks a tile.
struct Shared<'a> {
    plan: &'a Plan,
    tile: &'a Tile,
    /// See [`Buffers`].
    full_before: &'a [f64],
    rho: f64,
}

/// [`walk_tile`] for 4 points or 1, with or without the cache.
fn walk_tile_n(lanes: &mut [Lane], at: &Shared, cache: Option<&CacheSpec>) {
    let min = cache.map_or(0.0, |c| c.min_tokens);
    let warm = cache.map_or(0.0, |c| c.warm_share);
    match (lanes, cache.is_some()) {
        ([a, b, c, d], true) => walk_tile::<true, 4>([a, b, c, d], at, min, warm),
        ([a, b, c, d], false) => walk_tile::<false, 4>([a, b, c, d], at, min, warm),
        (lanes, cached) => {
            for lane in lanes {
                if cached {
                    walk_tile::<true, 1>([lane], at, min, warm);
                } else {
                    walk_tile::<false, 1>([lane], at, min, warm);
                }
            }
        }
    }
}

/// `N` points' walk through a tile, side by side: for each call and each point, the
/// triggers and the clearing of [`clear::replay`], then the ledger's step of
/// [`crate::timeline::Walker::step`], with the same arithmetic as each.
#[inline(never)]
fn walk_tile<const CACHE: bool, const N: usize>(
    lanes: [&mut Lane; N],
    at: &Shared,
    min_tokens: f64,
    warm_share: f64,
) {
    // Local copies: the compiler may keep them in registers, which it may not do with
    // the lanes behind references.
    let mut local: [Lane; N] = std::array::from_fn(|k| *lanes[k]);
    let Shared {
        plan,
        tile,
        full_before,
        rho,
    } = *at;
    let t = plan.thresholds;
    let flags = &plan.flags[tile.start..tile.start + tile.size.len()];
    let calls = flags
        .iter()
        .zip(&tile.replay_size)
        .zip(&tile.size)
        .zip(&tile.keep_end);
    for (j, (((&flags, &replay_size), &size), &keep_end)) in calls.enumerate() {
        let i = tile.start + j;
        let completed = tile.completed.get(j).copied().unwrap_or(0);
        for l in local.iter_mut() {
            // The cached prefix if nothing expired: the previous request, unless a
            // clearing changed a block of it.
            let mut prefix = l.previous_context;
            let fires = i >= 1
                && (flags & GAP_FIRES != 0
                    || t.every_segments
                        .is_some_and(|x| completed - l.completed_at_clearing >= x)
                    || t.every_calls
                        .is_some_and(|x| i as u64 - l.last_clearing >= x)
                    || t.above_tool_bytes
                        .is_some_and(|x| tile.bytes_before[j] - l.bytes_before_head > x)
                    || t.above_context_tokens.is_some_and(|x| l.replay_context > x)
                    || t.older_than_calls
                        .is_some_and(|x| l.oldest.saturating_add(x) < i as u64));
            if fires {
                let head = l.head;
                let end = (keep_end as usize).max(head);
                let count = end - head;
                let freed = clear::freed_tokens(
                    plan.sum_measured[end] - plan.sum_measured[head],
                    plan.sum_bytes[end] - plan.sum_bytes[head],
                    plan.placeholder_bytes * count as f64,
                    rho,
                );
                // As in the replay: nothing to clear, or too little, is no clearing.
                if count > 0 && freed >= plan.clear_at_least_tokens {
                    l.replay_context -= freed;
                    l.head = end;
                    l.bytes_before_head = plan.sum_bytes[end];
                    l.oldest = plan.clearable.get(end).map_or(u64::MAX, |&c| c as u64);
                    l.completed_at_clearing = completed;
                    l.last_clearing = i as u64;
                    // The ledger's side, as `Walker::step` computes it.
                    let measured = plan.sum_measured[end] - plan.sum_measured[head];
                    let bytes = plan.sum_bytes[end] - plan.sum_bytes[head];
                    let placeholders = plan.placeholder_bytes * count as f64;
                    let freed = measured + bytes / rho - placeholders / rho;
                    l.context -= freed;
                    let freed_before = l.freed_so_far;
                    l.freed_so_far += freed;
                    if CACHE {
                        // The cache keeps the prefix up to the first cleared result.
                        prefix = l.base + full_before[head] - freed_before;
                    }
                }
            }
            let now = l.context;
            if CACHE {
                let cached = if i == 0 || flags & EXPIRED != 0 {
                    // What other sessions keep in the cache: part of the base.
                    l.base * warm_share
                } else {
                    prefix
                };
                let cached = if cached < min_tokens { 0.0 } else { cached };
                // A request shorter than the minimum is not cached at all (docs/model.md §4).
                let short = now < min_tokens;
                l.sums.cached += if short { 0.0 } else { cached };
                l.sums.written += if short { 0.0 } else { now - cached };
                l.sums.uncached += if short { now } else { 0.0 };
            }
            l.sums.context += now;
            l.previous_context = now;
            l.replay_context += replay_size;
            l.context = now + size;
        }
    }
    for (lane, l) in lanes.into_iter().zip(local) {
        *lane = l;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Assumptions;
    use crate::run::Slot;
    use crate::scenario::Call;
    use crate::timeline;
    use std::sync::Arc;

    fn calls(n: usize) -> Calls {
        (0..n)
            .map(|i| Call {
                id: format!("c{i}").into(),
                label: format!("call {i}").into(),
                kind: Arc::from(if i % 7 == 3 { "web_search" } else { "tool" }),
                bytes: ((i * 7919) % 9000) as f64 + 0.5,
                tokens: if i % 5 == 0 { 120.0 } else { 0.0 },
                output_tokens: (i % 3) as f64 * 40.0,
                pinned: i % 7 == 3,
                segment: 1 + (i / 4) as u64,
                gap_s: if i % 11 == 0 { 400.0 } else { 5.0 },
                measured: false,
                detail: None,
            })
            .collect()
    }

    fn reference(
        calls: &Calls,
        run: &Run,
        policy: &ClearPolicy,
        clearable: &[bool],
        cache: Option<&CacheSpec>,
        at: Assumptions,
    ) -> RunSums<f64> {
        let clearings = clear::replay(calls, run, policy, clearable, at);
        let pricing = crate::pricing::Pricing::of_cache(cache.cloned());
        timeline::walk(calls, run, &clearings, Some(&pricing), at, |_, _, _| {})
    }

    #[test]
    fn lanes_equal_the_two_pass_replay_to_the_bit() {
        let c = calls(300);
        let run = Run::baseline(&c, &crate::scenario::Terms::default());
        let cache = CacheSpec {
            miss_share: 0.0,
            miss_share_source: None,
            warm_share: 0.0,
            warm_share_source: None,
            read: 0.1,
            write: 1.25,
            ttl_s: 300.0,
            min_tokens: 1024.0,
            preset: None,
            output: None,
            model: None,
        };
        let policies = [
            ClearPolicy {
                above_context_tokens: Some(60_000.0),
                keep_results: 3,
                clear_at_least_tokens: 5_000.0,
                placeholder_bytes: 9.0,
                exclude_kinds: vec!["web_search".into()],
                ..ClearPolicy::default()
            },
            ClearPolicy {
                every_segments: Some(2),
                keep_segments: 1,
                above_tool_bytes: Some(50_000.0),
                older_than_calls: Some(30),
                after_gap_s: Some(300.0),
                clear_at_least_tokens: 800.0,
                placeholder_bytes: 9.0,
                ..ClearPolicy::default()
            },
            ClearPolicy {
                every_calls: Some(10),
                keep_results: 10,
                clear_at_least_tokens: 2_000.0,
                placeholder_bytes: 9.0,
                ..ClearPolicy::default()
            },
        ];
        let bases = [500.0, 900.0, 1_500.0, 20_000.0, 45_000.0];
        let mut buffers = Buffers::default();
        for policy in &policies {
            let mut events = 0;
            let clearable = clear::clearable(&c, &run, policy);
            for cache in [None, Some(&cache)] {
                let plan = Plan::new(&c, &run, policy, &clearable, cache);
                for rho in [0.7, 2.5, 3.3] {
                    let got = sums(&plan, &run, rho, &bases, cache, &mut buffers);
                    assert_eq!(got.len(), bases.len());
                    let pricing = crate::pricing::Pricing::of_cache(cache.cloned());
                    let output: f64 = run.iter().map(|s| s.output_tokens).sum();
                    for (&b, g) in bases.iter().zip(&got) {
                        let at = Assumptions {
                            base_tokens: b,
                            bytes_per_token: rho,
                        };
                        let want = reference(&c, &run, policy, &clearable, cache, at);
                        let g = g.priced_at(pricing.main(), output);
                        assert_eq!(g, want, "B = {b}, ρ = {rho}, cache {}", cache.is_some());
                        events += clear::replay(&c, &run, policy, &clearable, at).events.len();
                    }
                }
            }
            assert!(
                events > 100,
                "{events} clearings: the test would not test much"
            );
        }
    }

    #[test]
    fn an_empty_run_sums_to_zero() {
        let run = Run::of(Vec::<Slot>::new());
        let policy = ClearPolicy::default();
        let plan = Plan::new(&Calls::new(), &run, &policy, &[], None);
        let got = sums(&plan, &run, 3.3, &[1.0, 2.0], None, &mut Buffers::default());
        assert!(got.iter().all(|s| s.context == 0.0));
    }
}
