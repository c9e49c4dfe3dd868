//! The general path: replaying runs call by call at many sweep points at once.
//!
//! A run without clearings is the same sequence at every point, so one pass over its calls
//! can carry the ledgers of several points side by side (`LANES` of them), which the
//! compiler turns into vector arithmetic. This is what `--replay` uses for such runs, and
//! what a sweep would fall back to if a closed form did not hold.

use crate::ledger::Assumptions;
use crate::run::Run;
use crate::scenario::CacheSpec;
use crate::scenario::Calls;
use crate::timeline::RunSums;

/// Points evaluated together in one pass over a run.
pub const LANES: usize = 8;

/// Whether each call of `run` starts with nothing cached (the first call, or a gap over
/// the TTL); computed once per run.
pub fn expired(calls: &Calls, run: &Run, cache: &CacheSpec) -> Vec<bool> {
    run.iter()
        .enumerate()
        .map(|(i, s)| i == 0 || calls.gap_s(s.origin as usize) > cache.ttl_s)
        .collect()
}

/// The sums of `run` (which has no clearings) at up to [`LANES`] points, replayed call by
/// call. `cache` is the cache spec and [`expired`] for the run, if the scenario has one.
/// Token sums only: the caller prices them ([`RunSums::priced_at`]).
pub fn sums(
    run: &Run,
    points: &[Assumptions],
    cache: Option<(&CacheSpec, &[bool])>,
) -> Vec<RunSums<f64>> {
    let mut inv = [1.0; LANES];
    let mut context = [0.0; LANES];
    for (k, p) in points.iter().enumerate().take(LANES) {
        inv[k] = 1.0 / p.bytes_per_token;
        context[k] = p.base_tokens;
    }
    let mut total = [0.0; LANES];
    let mut cached = [0.0; LANES];
    let mut uncached = [0.0; LANES];
    match cache {
        None => {
            // A `for` loop, not `for_each`: its closure would keep the lanes in memory.
            for s in run.iter() {
                let (t, b) = (s.joined_tokens(), s.joined_bytes());
                for k in 0..LANES {
                    total[k] += context[k];
                    context[k] += t + b * inv[k];
                }
            }
        }
        Some((spec, expired)) => {
            let min = spec.min_tokens;
            // The first request, and one after a pause past the TTL, reads what other
            // sessions keep warm of the base.
            let warm = context.map(|base| base * spec.warm_share);
            let mut previous = warm;
            for (i, s) in run.iter().enumerate() {
                let (t, b) = (s.joined_tokens(), s.joined_bytes());
                let fresh = expired[i];
                for k in 0..LANES {
                    let now = context[k];
                    // A request shorter than the minimum is not cached at all (docs/model.md §4).
                    let short = now < min;
                    let prefix = if fresh { warm[k] } else { previous[k] };
                    let hit = if short || prefix < min { 0.0 } else { prefix };
                    cached[k] += hit;
                    uncached[k] += if short { now } else { 0.0 };
                    total[k] += now;
                    previous[k] = now;
                    context[k] = now + t + b * inv[k];
                }
            }
        }
    }
    (0..points.len().min(LANES))
        .map(|k| {
            let mut sums = RunSums::zero();
            sums.context = total[k];
            sums.cached = cached[k];
            sums.written = total[k] - cached[k] - uncached[k];
            sums.uncached = uncached[k];
            sums
        })
        .collect()
}
