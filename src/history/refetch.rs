//! What the agent does next, over many sessions (docs/model.md §11): each edit that
//! removes results (a clearing, a cap, a summary, a dedupe, the API's context editing, a
//! compaction) evaluated on every session at each re-fetch rate of [`RATES`], summed, and
//! the rate at which the summed saving stops, sampled on the grid.
//!
//! Each session is replayed at its own nominal B and ρ, only for the edits that remove
//! results and only at the rates that change its run (a rate whose ⌈1/p⌉ is above the
//! results the edit removes fetches nothing again): `crate::behaviour::outcomes_at_rates`.

use crate::evaluate::{Evaluation, Study};
use crate::number::{decimal, dollars, grouped};
use serde::{Deserialize, Serialize};

/// The re-fetch rates a history sweeps: docs/model.md §11's default axis.
pub const RATES: [f64; 4] = crate::scenario::DEFAULT_REFETCH_AXIS;

/// What the re-fetch figures are, said wherever they are shown.
pub const NOTE: &str = "Every k-th result an edit removes (k = ⌈1/rate⌉) fetched again by one added call, in each session at its own B and ρ, summed over the sessions; where the summed saving stops is sampled on the swept rates (docs/model.md §11). Cost in dollars where every session is priced, else input-token equivalents.";

/// One edit's saving at one re-fetch rate: on one session, or summed over sessions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RateSaving {
    /// The share of removed results fetched again.
    pub rate: f64,
    /// Saving on the reread total, est. tokens.
    pub saved_tokens: f64,
    /// Saving on cost, input-token equivalents.
    pub cost_saved: f64,
    /// Saving in USD, where the session is priced (summed: over the sessions priced).
    pub dollars_saved: Option<f64>,
}

/// An edit that removes results, on one session, as the re-fetch rate moves: by rate, in
/// columns (a record a line of `shard.jsonl` carries per such edit, so kept short).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRefetch {
    /// Results it removes at the session's nominal point.
    pub removed: usize,
    /// The rates, ascending: [`RATES`].
    pub rates: Vec<f64>,
    /// Its saving at each rate: on the reread total (est. tokens), on cost (input-token
    /// equivalents) and in USD (absent where the session is not priced at every rate).
    pub saved_tokens: Vec<f64>,
    pub cost_saved: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dollars_saved: Option<Vec<f64>>,
}

impl SessionRefetch {
    /// Its saving at each rate, ascending.
    pub fn by_rate(&self) -> impl Iterator<Item = RateSaving> + '_ {
        self.rates.iter().enumerate().map(|(j, &rate)| RateSaving {
            rate,
            saved_tokens: self.saved_tokens.get(j).copied().unwrap_or(f64::NAN),
            cost_saved: self.cost_saved.get(j).copied().unwrap_or(f64::NAN),
            dollars_saved: self.dollars_saved.as_ref().and_then(|d| d.get(j).copied()),
        })
    }

    /// Whether each column has one figure per rate, the rates being `rates`.
    pub fn fits(&self, rates: &[f64]) -> bool {
        self.rates == rates
            && self.saved_tokens.len() == rates.len()
            && self.cost_saved.len() == rates.len()
            && self
                .dollars_saved
                .as_ref()
                .is_none_or(|d| d.len() == rates.len())
    }
}

/// Every edit's figures at each of [`RATES`] on one session evaluated at `nominal` (by
/// edit index; None for an edit that removes no results).
pub fn of_session(study: &Study, nominal: &Evaluation) -> Vec<Option<SessionRefetch>> {
    let b = &nominal.baseline;
    study
        .edited
        .iter()
        .zip(&nominal.edits)
        .map(|(subject, result)| {
            if !subject.removes {
                return None;
            }
            let (removed, outcomes) = crate::behaviour::outcomes_at_rates(
                study,
                subject,
                &nominal.point,
                &RATES,
                &result.outcome,
            );
            Some(SessionRefetch {
                removed,
                rates: RATES.to_vec(),
                saved_tokens: outcomes
                    .iter()
                    .map(|o| b.total_tokens - o.total_tokens)
                    .collect(),
                cost_saved: outcomes.iter().map(|o| b.cost - o.cost).collect(),
                dollars_saved: outcomes
                    .iter()
                    .map(|o| b.dollars.zip(o.dollars).map(|(b, e)| b - e))
                    .collect(),
            })
        })
        .collect()
}

/// One edit's running sums over the sessions, at each of [`RATES`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RefetchSums {
    sessions: usize,
    removed: usize,
    sums: Vec<RateSaving>,
}

impl RefetchSums {
    /// Adds one session's figures of the edit.
    pub fn add(&mut self, s: &SessionRefetch) {
        if self.sums.is_empty() {
            self.sums = s
                .by_rate()
                .map(|r| RateSaving {
                    rate: r.rate,
                    saved_tokens: 0.0,
                    cost_saved: 0.0,
                    dollars_saved: None,
                })
                .collect();
        }
        self.sessions += 1;
        self.removed += s.removed;
        for (sum, r) in self.sums.iter_mut().zip(s.by_rate()) {
            sum.saved_tokens += r.saved_tokens;
            sum.cost_saved += r.cost_saved;
            if let Some(d) = r.dollars_saved {
                sum.dollars_saved = Some(sum.dollars_saved.unwrap_or(0.0) + d);
            }
        }
    }

    /// The aggregate, its stopping rate on `measure`'s saving: dollars where the history
    /// ranks cost by them, else input-token equivalents. None without a session.
    pub fn finish(self, by_dollars: bool) -> Option<RefetchAggregate> {
        if self.sessions == 0 {
            return None;
        }
        let saved = |r: &RateSaving| {
            if by_dollars {
                r.dollars_saved.unwrap_or(0.0)
            } else {
                r.cost_saved
            }
        };
        let rates: Vec<f64> = self.sums.iter().map(|r| r.rate).collect();
        let savings: Vec<f64> = self.sums.iter().map(saved).collect();
        let stops = crate::behaviour::on_grid(&rates, &savings);
        Some(RefetchAggregate {
            sessions: self.sessions,
            removed: self.removed,
            measure: if by_dollars { "dollars" } else { "cost" },
            by_rate: self.sums,
            stops_saving_at: stops.rate,
            saves_at: stops.saves_at,
        })
    }
}

/// An edit that removes results, over every session, as the re-fetch rate moves: each
/// session at its own nominal B and ρ, summed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RefetchAggregate {
    /// Sessions summed.
    pub sessions: usize,
    /// Σ results it removes at each session's nominal point.
    pub removed: usize,
    /// `dollars` (every session priced) or `cost` (input-token equivalents): the saving
    /// the stopping rate is on, the cost ranking's.
    pub measure: &'static str,
    /// Its summed saving at each of [`RATES`], ascending.
    pub by_rate: Vec<RateSaving>,
    /// The lowest swept rate at which the summed saving is ≤ 0, sampled on the grid; None:
    /// it saves at every swept rate.
    pub stops_saving_at: Option<f64>,
    /// The swept rate before it, which still saves (None when it saves nothing even at
    /// the lowest).
    pub saves_at: Option<f64>,
}

impl RefetchAggregate {
    /// The saving at `r` on the stopping rate's measure.
    pub fn saved(&self, r: &RateSaving) -> f64 {
        if self.measure == "dollars" {
            r.dollars_saved.unwrap_or(0.0)
        } else {
            r.cost_saved
        }
    }

    /// `$1.20` or `12,000`: the saving at `r` as a row shows it.
    pub fn shown(&self, r: &RateSaving) -> String {
        if self.measure == "dollars" {
            dollars(self.saved(r))
        } else {
            grouped(self.saved(r), 0)
        }
    }

    /// Where it stops saving, in words: `stops saving at re-fetch 0.5 (still saves at
    /// 0.25; sampled on 0, 0.1, 0.25, 0.5)`, `saves at every swept re-fetch rate (up to
    /// 0.5)`, `saves nothing even at re-fetch 0`.
    pub fn stops(&self) -> String {
        let last = self.by_rate.last().map_or(0.0, |r| r.rate);
        match (self.stops_saving_at, self.saves_at) {
            (None, _) => format!(
                "saves at every swept re-fetch rate (up to {})",
                decimal(last)
            ),
            (Some(p), Some(lo)) => format!(
                "stops saving at re-fetch {} (still saves at {}; on the swept rates)",
                decimal(p),
                decimal(lo)
            ),
            (Some(p), None) => format!("saves nothing even at re-fetch {}", decimal(p)),
        }
    }

    /// `stops saving if the agent re-fetches ≥ 0.5 of what it removes (still saves at
    /// 0.25)`: the clause beside a suggestion, sampled on the swept rates.
    pub fn clause(&self) -> String {
        let last = self.by_rate.last().map_or(0.0, |r| r.rate);
        match (self.stops_saving_at, self.saves_at) {
            (None, _) => format!(
                "still saves if the agent re-fetches {} of what it removes (the most swept{})",
                decimal(last),
                self.kept(last)
            ),
            (Some(p), Some(lo)) => format!(
                "stops saving if the agent re-fetches ≥ {} of what it removes (still saves at {}{})",
                decimal(p),
                decimal(lo),
                self.kept(lo)
            ),
            (Some(p), None) if p <= 0.0 => {
                "saves nothing even if the agent re-fetches none of what it removes".into()
            }
            (Some(p), None) => format!(
                "saves nothing even if the agent re-fetches {} of what it removes",
                decimal(p)
            ),
        }
    }

    /// `, 9.4 % of its saving at 0 left`: what is left at `rate` of the saving with no
    /// re-fetch, so that "still saves" is not read as "saves as much". Empty where the rate
    /// is not swept or nothing is saved at 0.
    fn kept(&self, rate: f64) -> String {
        let (Some(at), Some(zero)) = (
            self.by_rate.iter().find(|r| r.rate == rate),
            self.by_rate.first(),
        ) else {
            return String::new();
        };
        let base = self.saved(zero);
        if rate == zero.rate || base <= 0.0 {
            return String::new();
        }
        // A share, not an amount: the clause also stands beside one agent's saving, and
        // the amount is over every session.
        format!(
            ", {} of its saving at {} left",
            crate::number::percent(100.0 * self.saved(at) / base),
            decimal(zero.rate)
        )
    }

    /// `0, 0.1, 0.25, 0.5`.
    pub fn rates(&self) -> String {
        self.by_rate
            .iter()
            .map(|r| decimal(r.rate))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A short cell: `≥ 0.5`, `> 0.5` (saves at every swept rate), `0` (saves nothing).
    pub fn cell(&self) -> String {
        let last = self.by_rate.last().map_or(0.0, |r| r.rate);
        match self.stops_saving_at {
            None => format!("> {}", decimal(last)),
            Some(p) if self.saves_at.is_none() => decimal(p),
            Some(p) => format!("≥ {}", decimal(p)),
        }
    }
}

/// Where the cost ranking of `edits` first changes as the re-fetch rate rises
/// (docs/model.md §11, sampled on [`RATES`]): an edit that removes nothing keeps its saving
/// at every rate. The saving is on the stopping rate's measure (dollars where every session
/// is priced). None when no edit removes results.
pub fn ranking_holds(edits: &[super::EditAggregate]) -> Option<RankingHolds> {
    let measure = edits.iter().find_map(|e| e.refetch.as_ref())?.measure;
    let at = |e: &super::EditAggregate, k: usize| match &e.refetch {
        Some(a) => a.by_rate.get(k).map_or(f64::NAN, |r| a.saved(r)),
        None if measure == "dollars" => e.dollars_saved.unwrap_or(0.0),
        None => e.cost_saved,
    };
    // The order at rate 0 is the cost ranking's (ties as it broke them).
    let mut order: Vec<&super::EditAggregate> = edits.iter().collect();
    order.sort_by_key(|e| e.cost_rank);
    let mut holds_to = RATES[0];
    for (k, &rate) in RATES.iter().enumerate().skip(1) {
        // The first pair, in rank order, whose order the rate reverses.
        let flip = order.iter().enumerate().find_map(|(i, a)| {
            order[i + 1..]
                .iter()
                .find(|b| at(b, k) > at(a, k) && at(b, 0) <= at(a, 0) && a.cost_rank < b.cost_rank)
                .map(|b| (a.name.clone(), b.name.clone()))
        });
        if let Some((above, below)) = flip {
            return Some(RankingHolds {
                holds_to,
                flips_at: Some(rate),
                above,
                below,
            });
        }
        holds_to = rate;
    }
    Some(RankingHolds {
        holds_to,
        flips_at: None,
        above: String::new(),
        below: String::new(),
    })
}

/// Up to which swept re-fetch rate the cost ranking holds, and the first pair it reverses.
#[derive(Debug, Clone, PartialEq)]
pub struct RankingHolds {
    /// The highest swept rate at which every pair keeps its rate-0 order.
    pub holds_to: f64,
    /// The next swept rate, where a pair reverses; None: it holds at every swept rate.
    pub flips_at: Option<f64>,
    /// At `flips_at`, the edit ranked above at rate 0 that falls below `below`.
    pub above: String,
    pub below: String,
}

impl RankingHolds {
    /// `the cost ranking holds up to re-fetch 0.25; at 0.5 "B" saves more than "A"`.
    pub fn sentence(&self) -> String {
        match self.flips_at {
            None => format!(
                "the cost ranking holds at every swept re-fetch rate (up to {})",
                decimal(self.holds_to)
            ),
            Some(p) => format!(
                "the cost ranking holds up to re-fetch {}; at {} \"{}\" saves more than \"{}\"",
                decimal(self.holds_to),
                decimal(p),
                self.below,
                self.above
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(removed: usize, cost: [f64; 4]) -> SessionRefetch {
        SessionRefetch {
            removed,
            rates: RATES.to_vec(),
            saved_tokens: cost.to_vec(),
            cost_saved: cost.to_vec(),
            dollars_saved: None,
        }
    }

    #[test]
    fn the_summed_saving_stops_at_the_first_swept_rate_at_or_below_zero() {
        let mut sums = RefetchSums::default();
        sums.add(&session(4, [100.0, 100.0, 20.0, -50.0]));
        sums.add(&session(2, [50.0, 50.0, 50.0, 20.0]));
        let a = sums.finish(false).unwrap();
        assert_eq!((a.sessions, a.removed), (2, 6));
        let cost: Vec<f64> = a.by_rate.iter().map(|r| r.cost_saved).collect();
        assert_eq!(cost, vec![150.0, 150.0, 70.0, -30.0]);
        assert_eq!((a.stops_saving_at, a.saves_at), (Some(0.5), Some(0.25)));
        assert_eq!(a.cell(), "≥ 0.5");
        assert_eq!(
            a.stops(),
            "stops saving at re-fetch 0.5 (still saves at 0.25; on the swept rates)"
        );
        let mut sums = RefetchSums::default();
        sums.add(&session(1, [10.0, 10.0, 10.0, 10.0]));
        let a = sums.finish(false).unwrap();
        assert_eq!(a.stops_saving_at, None);
        assert_eq!(a.cell(), "> 0.5");
        assert_eq!(a.stops(), "saves at every swept re-fetch rate (up to 0.5)");
        let mut sums = RefetchSums::default();
        sums.add(&session(1, [0.0, -1.0, -2.0, -3.0]));
        let a = sums.finish(false).unwrap();
        assert_eq!((a.stops_saving_at, a.saves_at), (Some(0.0), None));
        assert_eq!(a.cell(), "0");
    }
}
