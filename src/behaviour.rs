//! What the agent does next, as an assumption (docs/model.md §11): how each edit that
//! removes results saves as the re-fetch rate grows, the rate at which it stops saving,
//! the rate up to which the ranking holds, and the baseline's own re-reads measured from
//! the log.
//!
//! Every figure here is at the nominal B, ρ, cache read price and retry rate; only the
//! re-fetch rate moves. The sweep covers the whole grid (`crate::sweep`).

use crate::evaluate::{Study, outcome, outcome_with};
use crate::point::Point;
use crate::rank;
use crate::scenario::{Calls, DEFAULT_REFETCH_AXIS};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// Most rates tried to find exactly where an edit stops saving: one walk each.
const MAX_EXACT_RATES: usize = 1_000;

/// Most calls walked in all to find it (rates × requests), so a long trace falls back to
/// the grid rather than taking minutes.
const MAX_EXACT_WORK: usize = 20_000_000;

/// One edit's saving at one re-fetch rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RateSaving {
    /// The share of removed results fetched again.
    pub rate: f64,
    /// Re-fetches added at this rate.
    pub refetches: usize,
    /// Saving on the reread total, est. tokens.
    pub saved_tokens: f64,
    /// Saving on cost, input-token equivalents (the reread total where cost is not priced).
    pub saved_cost: f64,
}

/// Where an edit stops saving as the re-fetch rate grows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StopsSaving {
    /// The lowest rate at which the saving is ≤ 0; None: it saves at every rate tried.
    pub rate: Option<f64>,
    /// `exact`: every rate at which the re-fetches change was tried (the saving moves
    /// only where ⌈1/p⌉ does, so the rate is 1/k for a whole k); `grid`: the swept rates
    /// only, so it stops somewhere between the last rate that saves and this one.
    pub how: &'static str,
    /// With `grid`: the highest swept rate below it, which still saves.
    pub saves_at: Option<f64>,
}

/// One edit that removes results, at the nominal point, as the re-fetch rate moves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditBehaviour {
    /// The edit's index in the scenario.
    #[serde(skip)]
    pub edit: usize,
    pub name: String,
    /// Results it removes at the nominal point (cleared, capped, summarised away,
    /// deduplicated).
    pub removed: usize,
    /// Its saving at each rate, ascending.
    pub by_rate: Vec<RateSaving>,
    /// On the measure the answer ranks by (cost where priced).
    pub stops_saving: StopsSaving,
    /// The caveat every output prints beside the edit.
    pub caveat: String,
}

/// The re-fetch rates to report: the swept ones, else docs/model.md §11's default, each
/// with the nominal rate among them.
pub fn rates(study: &Study, swept: Option<&[f64]>) -> Vec<f64> {
    let mut v: Vec<f64> = swept.map_or_else(|| DEFAULT_REFETCH_AXIS.to_vec(), <[f64]>::to_vec);
    if !v.contains(&study.scenario.refetch) {
        v.push(study.scenario.refetch);
    }
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// Every edit that removes results, at `nominal` with each of `rates` (ascending);
/// `by_cost` ranks by cost (else by reread tokens).
pub fn analyse(study: &Study, nominal: &Point, rates: &[f64], by_cost: bool) -> Vec<EditBehaviour> {
    let baseline = outcome(study, &study.baseline, nominal);
    let base_value = |o: &crate::evaluate::Outcome| (o.total_tokens, o.cost);
    let (bt, bc) = base_value(&baseline);
    study
        .edited
        .iter()
        .enumerate()
        .filter(|(_, s)| s.removes)
        .map(|(i, subject)| {
            let at = |p: f64| Point {
                refetch: p,
                ..*nominal
            };
            let by_rate: Vec<RateSaving> = rates
                .iter()
                .map(|&p| {
                    let o = outcome(study, subject, &at(p));
                    RateSaving {
                        rate: p,
                        refetches: o.clearings.refetches.len(),
                        saved_tokens: bt - o.total_tokens,
                        saved_cost: bc - o.cost,
                    }
                })
                .collect();
            let saved = |r: &RateSaving| {
                if by_cost {
                    r.saved_cost
                } else {
                    r.saved_tokens
                }
            };
            let clearings = subject.clearings_at(study, nominal.assumptions(), 0.0);
            let removed = subject.removals(study, &clearings).len();
            let exact = exact_stop(study, subject, nominal, removed, by_cost, (bt, bc));
            let stops_saving = exact.unwrap_or_else(|| {
                let rates: Vec<f64> = by_rate.iter().map(|r| r.rate).collect();
                let savings: Vec<f64> = by_rate.iter().map(saved).collect();
                on_grid(&rates, &savings)
            });
            EditBehaviour {
                edit: i,
                name: subject.name.clone(),
                removed,
                caveat: caveat(removed, &by_rate, &stops_saving, by_cost),
                by_rate,
                stops_saving,
            }
        })
        .collect()
}

/// Where a saving stops on a grid: the first of `rates` (ascending) whose saving (in
/// `savings`, by rate) is ≤ 0, and the rate before it, which still saves.
pub fn on_grid(rates: &[f64], savings: &[f64]) -> StopsSaving {
    let first = savings.iter().position(|&s| s <= 0.0);
    StopsSaving {
        rate: first.and_then(|f| rates.get(f).copied()),
        how: "grid",
        saves_at: first
            .and_then(|f| f.checked_sub(1))
            .and_then(|f| rates.get(f).copied()),
    }
}

/// One run's outcomes at `point`'s B and ρ at each of `rates`, with how many results its
/// edit removes there. The policy's clearings are made once and each rate's re-fetches
/// added to them; `known`, the outcome at `point` itself (its own rate), is reused, and so
/// is one walk for every rate that fetches nothing again (⌈1/p⌉ above the results
/// removed): a history pays a walk only for the rates that move the run.
pub fn outcomes_at_rates(
    study: &Study,
    subject: &crate::evaluate::Subject,
    point: &Point,
    rates: &[f64],
    known: &crate::evaluate::Outcome,
) -> (usize, Vec<crate::evaluate::Outcome>) {
    let policy = subject.clearings_at(study, point.assumptions(), 0.0);
    let removals = subject.removals(study, &policy);
    let len = subject.run.len();
    // The outcome without re-fetches, walked at most once.
    let mut none = known.clearings.refetches.is_empty().then(|| known.clone());
    let outcomes = rates
        .iter()
        .map(|&p| {
            if p == point.refetch {
                return known.clone();
            }
            let at = Point {
                refetch: p,
                ..*point
            };
            let refetches = crate::refetch::requests(&removals, p, len);
            if refetches.is_empty() {
                return none
                    .get_or_insert_with(|| outcome_with(study, subject, &at, policy.clone()))
                    .clone();
            }
            let clearings = crate::clear::Clearings {
                refetches,
                ..policy.clone()
            };
            outcome_with(study, subject, &at, clearings)
        })
        .collect();
    (removals.len(), outcomes)
}

/// The lowest rate at which the edit saves nothing, found exactly: the saving depends on
/// the rate only through k = ⌈1/p⌉ (every k-th removed result is fetched again), and k
/// above the number removed fetches nothing; so the rate is 1/k for the largest k whose
/// saving is ≤ 0. None where that takes more walks than [`MAX_EXACT_RATES`] or
/// [`MAX_EXACT_WORK`] allow (the grid then answers).
fn exact_stop(
    study: &Study,
    subject: &crate::evaluate::Subject,
    nominal: &Point,
    removed: usize,
    by_cost: bool,
    (bt, bc): (f64, f64),
) -> Option<StopsSaving> {
    let work = removed.saturating_mul(subject.requests() + removed);
    if removed > MAX_EXACT_RATES || work > MAX_EXACT_WORK {
        return None;
    }
    let saves = |k: usize| {
        let p = 1.0 / k as f64;
        let o = outcome(
            study,
            subject,
            &Point {
                refetch: p,
                ..*nominal
            },
        );
        let saved = if by_cost {
            bc - o.cost
        } else {
            bt - o.total_tokens
        };
        saved > 0.0
    };
    // k = removed + 1 fetches nothing: the saving as at rate 0.
    if !saves(removed + 1) {
        return Some(StopsSaving {
            rate: Some(0.0),
            how: "exact",
            saves_at: None,
        });
    }
    let k = (1..=removed).rev().find(|&k| !saves(k));
    Some(StopsSaving {
        rate: k.map(|k| 1.0 / k as f64),
        how: "exact",
        saves_at: None,
    })
}

/// "assumes the agent does not fetch again what it removes (12 results); at re-fetch 0.25
/// it saves 3,000 (40 %), at 0.5 it costs 500 more: it stops saving at 1/3 (exact)".
fn caveat(removed: usize, by_rate: &[RateSaving], stops: &StopsSaving, by_cost: bool) -> String {
    use crate::number::{decimal, grouped, plural};
    let what = if by_cost {
        "input-token equivalents"
    } else {
        "est. tokens"
    };
    let mut text = format!(
        "assumes the agent does not fetch again what it removes ({})",
        plural(removed, "result", "results")
    );
    let shown: Vec<String> = by_rate
        .iter()
        .filter(|r| r.rate > 0.0)
        .enumerate()
        .map(|(j, r)| {
            let s = if by_cost {
                r.saved_cost
            } else {
                r.saved_tokens
            };
            match j {
                0 => format!(
                    "at re-fetch {} it saves {} {what}",
                    decimal(r.rate),
                    grouped(s, 0)
                ),
                _ => format!("at {} {}", decimal(r.rate), grouped(s, 0)),
            }
        })
        .collect();
    if !shown.is_empty() {
        text.push_str(&format!("; {}", shown.join(", ")));
    }
    text.push_str(&match (stops.rate, stops.how) {
        (None, "exact") => {
            ": it saves at every re-fetch rate, even fetching every removed result again".into()
        }
        (None, _) => format!(
            ": it saves at every swept rate, up to {}",
            by_rate.last().map_or_else(String::new, |r| decimal(r.rate))
        ),
        (Some(0.0), "exact") => ": it saves nothing even without re-fetches".into(),
        (Some(p), "exact") => format!(": it stops saving at re-fetch {}, exactly", rate(p)),
        (Some(p), _) => match stops.saves_at {
            Some(lo) => format!(
                ": it stops saving between re-fetch {} and {} (on the swept rates only)",
                decimal(lo),
                decimal(p)
            ),
            None => format!(
                ": it saves nothing at re-fetch {} (on the swept rates)",
                decimal(p)
            ),
        },
    });
    text
}

/// Where an edit stops saving, in a few words for a table cell: `at 1/3 (0.333), exactly`,
/// `between 0.25 and 0.5 (sampled)`, `saves at every rate`, `saves nothing even at 0`.
pub fn short(stops: &StopsSaving, last_rate: f64) -> String {
    use crate::number::decimal;
    match (stops.rate, stops.how, stops.saves_at) {
        (None, "exact", _) => "saves at every rate, even re-fetching all".into(),
        (None, _, _) => format!("saves at every swept rate (up to {})", decimal(last_rate)),
        (Some(p), "exact", _) if p > 0.0 => format!("at re-fetch {}, exactly", rate(p)),
        (Some(p), _, Some(lo)) => format!(
            "between re-fetch {} and {} (on the swept rates)",
            decimal(lo),
            decimal(p)
        ),
        (Some(p), _, _) => format!("saves nothing even at re-fetch {}", decimal(p)),
    }
}

/// A rate 1/k as a person reads it: `1/3 (0.333)`; a rate with few digits as itself
/// (`0.25`).
pub fn rate(p: f64) -> String {
    let k = (1.0 / p).round();
    let short = crate::number::decimal(p);
    if p > 0.0 && k > 1.0 && (1.0 / k - p).abs() < 1e-12 && short.len() > 5 {
        format!("1/{k} ({p:.3})")
    } else {
        short
    }
}

/// The nominal ranking against each re-fetch rate: the highest rate up to which it holds
/// (every rate from the lowest to it keeps the nominal order, ties as in §5), and the
/// first rate and pair where it flips.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankingHolds {
    /// The highest swept rate up to which the nominal order holds; None: not even at the
    /// lowest.
    pub up_to: Option<f64>,
    /// The first rate at which it does not, and the pair that flips there (the edit
    /// ahead at the nominal point, then the one that overtakes it).
    pub flips_at: Option<(f64, String, String)>,
}

/// Whether the nominal order (by cost, or by reread tokens) holds at each rate of
/// `edits[..].by_rate`, given every edit's saving at the nominal point (`nominal`, by edit
/// index) and the baseline's total there.
pub fn ranking_holds(
    study: &Study,
    edits: &[EditBehaviour],
    nominal: &[f64],
    baseline_total: f64,
    by_cost: bool,
) -> Option<RankingHolds> {
    let rates: Vec<f64> = edits.first()?.by_rate.iter().map(|r| r.rate).collect();
    let order = rank::rank(nominal, baseline_total).order;
    let mut up_to = None;
    for (j, &p) in rates.iter().enumerate() {
        let mut at_p = nominal.to_vec();
        for e in edits {
            let r = &e.by_rate[j];
            at_p[e.edit] = if by_cost {
                r.saved_cost
            } else {
                r.saved_tokens
            };
        }
        let flip = order.iter().enumerate().find_map(|(x, &a)| {
            order[x + 1..].iter().find_map(|&b| {
                let strict =
                    nominal[a] > nominal[b] && !rank::tied(nominal[a], nominal[b], baseline_total);
                let reversed = at_p[b] > at_p[a] && !rank::tied(at_p[a], at_p[b], baseline_total);
                (strict && reversed).then_some((a, b))
            })
        });
        match flip {
            None => up_to = Some(p),
            Some((a, b)) => {
                let name = |i: usize| study.edited[i].name.clone();
                return Some(RankingHolds {
                    up_to,
                    flips_at: Some((p, name(a), name(b))),
                });
            }
        }
    }
    Some(RankingHolds {
        up_to,
        flips_at: None,
    })
}

/// The baseline's own re-reads, measured from the log: results whose same input is read
/// again later in the session.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rereads {
    /// Results read again later (by a call with the same key).
    pub reread: usize,
    /// Results with a key: the denominator.
    pub of: usize,
    /// The key: `input hash` (a hash of the tool and its input, from the importer), or
    /// `tool and label` where no call has one (a label is a short form of the input, so
    /// this may count different inputs as one).
    pub by: &'static str,
}

impl Rereads {
    /// Counted over `calls`; None where no call has an input hash or a tool.
    pub fn of(calls: &Calls) -> Option<Rereads> {
        let hashed = (0..calls.len()).any(|i| calls.at(i).input_hash().is_some());
        let key = |i: usize| -> Option<String> {
            let c = calls.at(i);
            if hashed {
                c.input_hash().map(str::to_string)
            } else {
                c.tool().map(|t| format!("{t}\u{0}{}", calls.label(i)))
            }
        };
        let keys: Vec<Option<String>> = (0..calls.len()).map(key).collect();
        let mut later: FxHashMap<&str, usize> = FxHashMap::default();
        for k in keys.iter().flatten() {
            *later.entry(k.as_str()).or_default() += 1;
        }
        let of = keys.iter().flatten().count();
        if of == 0 {
            return None;
        }
        // A result is read again when its key occurs after it: every occurrence but the
        // last of each key.
        let reread = later.values().map(|&n| n - 1).sum();
        Some(Rereads {
            reread,
            of,
            by: if hashed {
                "input hash"
            } else {
                "tool and label"
            },
        })
    }

    /// "12 of 80 results (15 %) were read again later with the same input hash".
    pub fn sentence(&self) -> String {
        format!(
            "the baseline itself read again {} of {} results later in the session ({}, measured by {})",
            crate::number::grouped(self.reread as f64, 0),
            crate::number::grouped(self.of as f64, 0),
            crate::number::percent(100.0 * self.reread as f64 / self.of as f64),
            self.by
        )
    }
}
