//! The report: every figure of a run, with its unit and where its inputs came from.
//!
//! One serde structure feeds the JSON output, the table and the HTML page, so they cannot
//! disagree. Numbers here are unrounded; only the table and charts round, for reading.

use crate::clear::Event;
use crate::evaluate::{Evaluation, Outcome, Study};
use crate::sweep::{BreakEven, Grid, Point, Stability, SweepOutcome};
use serde::Serialize;

/// Where an assumption's value came from.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Sources {
    /// e.g. `assumed (scenario file)` or `assumed (--base on the command line)`.
    pub base_tokens: String,
    pub bytes_per_token: String,
}

/// The baseline run's figures.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BaselineReport {
    /// Reread total, in est. tokens.
    pub total_tokens: f64,
    pub calls: usize,
    /// `total_tokens / calls`.
    pub average_call_tokens: f64,
    /// In input-token equivalents (see `cost_model`).
    pub cost: f64,
    /// USD, with `[price]`; null when no price is given or one it needs is missing.
    pub dollars: Option<f64>,
}

/// A clearing, as reported.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EventReport {
    /// 1-based call before which the clearing happened.
    pub before_call: usize,
    /// Ids of the calls whose results were cleared.
    pub cleared: Vec<String>,
    pub freed_tokens: f64,
    pub triggers: Vec<&'static str>,
}

/// One edit's figures against the baseline.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EditReport {
    pub name: String,
    /// 1-based rank on reread tokens; tied edits share a rank.
    pub rank: usize,
    pub total_tokens: f64,
    pub saved_tokens: f64,
    pub saved_pct: f64,
    /// Saving in average baseline calls.
    pub equivalent_calls: f64,
    /// Calls after the edit.
    pub calls: usize,
    /// Cost in input-token equivalents.
    pub cost: f64,
    pub cost_saved: f64,
    pub cost_saved_pct: f64,
    /// 1-based rank on cost (meaningful with `[cache]`).
    pub cost_rank: usize,
    pub dollars: Option<f64>,
    pub dollars_saved: Option<f64>,
    /// Clearing events; null for an edit without a clearing policy.
    pub events: Option<Vec<EventReport>>,
}

/// A flip with its points spelled out.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlipReport {
    pub a: String,
    pub b: String,
    pub count: usize,
    pub region: String,
    pub points: Vec<Point>,
}

/// Ranking stability for one measure.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MeasureReport {
    pub nominal_order: Vec<String>,
    pub winner: Option<String>,
    pub ranking_holds: bool,
    pub points_matching_nominal_order: usize,
    pub points_matching_winner: usize,
    pub flips: Vec<FlipReport>,
}

/// A pair compared only at the grid points.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Pair {
    pub a: String,
    pub b: String,
}

/// The swept values.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GridReport {
    pub base_tokens: Vec<f64>,
    pub bytes_per_token: Vec<f64>,
    /// Null without `[cache]`.
    pub cache_read: Option<Vec<f64>>,
    pub retry_rate: Vec<f64>,
    /// Whether the grid is MODEL.md's default (⅔B, B, 4⁄3B × 0.75ρ, ρ, 1.25ρ).
    pub default: bool,
}

/// The sweep's findings.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SweepReport {
    pub grid: GridReport,
    /// `closed form` or `replay`.
    pub method: &'static str,
    pub points: usize,
    pub nominal_on_grid: bool,
    #[serde(flatten)]
    pub tokens: MeasureReport,
    pub break_even: Vec<BreakEven>,
    pub sampled_only: Vec<Pair>,
    /// Ranking by cost, with `[cache]`.
    pub cost: Option<MeasureReport>,
}

/// The whole comparison at the nominal point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub scenario: String,
    pub description: Option<String>,
    /// The scenario file, as given.
    pub source: String,
    /// The unit of every token figure, e.g. `est. tokens at 3.3 bytes/token`.
    pub unit: String,
    pub base_tokens: f64,
    pub bytes_per_token: f64,
    pub retry_rate: f64,
    pub sources: Sources,
    /// Calls whose size includes measured tokens (the rest are estimated from bytes).
    pub measured_calls: usize,
    /// How cost is counted, e.g. `flat: every input token costs 1`.
    pub cost_model: String,
    /// USD prices and their source, with `[price]`.
    pub price: Option<crate::scenario::Price>,
    pub baseline: BaselineReport,
    /// In ranked order (reread tokens), best saving first.
    pub edits: Vec<EditReport>,
    /// Edit names ranked by cost, with `[cache]`.
    pub cost_order: Option<Vec<String>>,
    /// A plain sentence when the two rankings disagree on the winner.
    pub disagreement: Option<String>,
    pub sweep: Option<SweepReport>,
}

/// The unit label of token figures at `bytes_per_token`.
pub fn unit(bytes_per_token: f64) -> String {
    format!("est. tokens at {bytes_per_token} bytes/token")
}

fn cost_model(study: &Study) -> String {
    match &study.scenario.cache {
        Some(c) => format!(
            "prompt cache: read {}×, write {}×, TTL {} s, min {} tokens{}; cost in input-token equivalents",
            c.read,
            c.write,
            c.ttl_s,
            c.min_tokens,
            c.preset
                .as_ref()
                .map_or_else(String::new, |p| format!(" (preset {p})"))
        ),
        None => {
            "flat: every input token costs 1 (no [cache]); cost in input-token equivalents".into()
        }
    }
}

fn events(study: &Study, o: &Outcome) -> Vec<EventReport> {
    let ids = |e: &Event| -> Vec<String> {
        e.origins
            .iter()
            .map(|&o| study.scenario.calls[o as usize].id.to_string())
            .collect()
    };
    o.clearings
        .events
        .iter()
        .map(|e| EventReport {
            before_call: e.before + 1,
            cleared: ids(e),
            freed_tokens: e.freed_tokens,
            triggers: e.triggers.clone(),
        })
        .collect()
}

impl Report {
    /// Builds the report of `study` evaluated at its nominal point, with its sweep.
    pub fn new(
        study: &Study,
        nominal: &Evaluation,
        sources: Sources,
        sweep: Option<SweepReport>,
    ) -> Report {
        let s = study.scenario;
        let at = nominal.at();
        let base = &nominal.baseline;
        let edits: Vec<EditReport> = nominal
            .ranking
            .order
            .iter()
            .map(|&i| {
                let r = &nominal.edits[i];
                let o = &r.outcome;
                EditReport {
                    name: s.edits[i].name.clone(),
                    rank: nominal.ranking.ranks[i],
                    total_tokens: o.total_tokens,
                    saved_tokens: r.saving.saved,
                    saved_pct: r.saving.percent,
                    equivalent_calls: r.saving.equivalent_calls,
                    calls: o.calls,
                    cost: o.cost,
                    cost_saved: r.cost_saving.saved,
                    cost_saved_pct: r.cost_saving.percent,
                    cost_rank: nominal.cost_ranking.ranks[i],
                    dollars: o.dollars,
                    dollars_saved: base.dollars.zip(o.dollars).map(|(b, e)| b - e),
                    events: study.edited[i].clear.as_ref().map(|_| events(study, o)),
                }
            })
            .collect();
        let cost_order: Option<Vec<String>> = s.cache.as_ref().map(|_| {
            nominal
                .cost_ranking
                .order
                .iter()
                .map(|&i| s.edits[i].name.clone())
                .collect()
        });
        let disagreement = cost_order.as_ref().and_then(|_| disagreement(&edits));
        Report {
            scenario: s.name.clone(),
            description: s.description.clone(),
            source: s.source.clone(),
            unit: unit(at.bytes_per_token),
            base_tokens: at.base_tokens,
            bytes_per_token: at.bytes_per_token,
            retry_rate: s.retry_rate,
            sources,
            measured_calls: s.measured_calls(),
            cost_model: cost_model(study),
            price: s.price.clone(),
            baseline: BaselineReport {
                total_tokens: base.total_tokens,
                calls: base.calls,
                average_call_tokens: base.total_tokens / base.calls as f64,
                cost: base.cost,
                dollars: base.dollars,
            },
            edits,
            cost_order,
            disagreement,
            sweep,
        }
    }
}

/// "X saves the most tokens but Y saves the most money: …" when the winners differ.
/// A plain sentence when ranking by cost differs from ranking by reread tokens: the
/// winners, or else the edits whose rank moves.
fn disagreement(edits: &[EditReport]) -> Option<String> {
    let token_winner = edits.iter().find(|e| e.rank == 1)?;
    let cost_winner = edits.iter().find(|e| e.cost_rank == 1)?;
    if token_winner.cost_rank != 1 {
        let why = match &token_winner.events {
            Some(ev) if !ev.is_empty() => format!(
                ": its {} clearing{} rewrite the cache from the first cleared result on",
                ev.len(),
                if ev.len() == 1 { "" } else { "s" }
            ),
            _ => String::new(),
        };
        return Some(format!(
            "{} saves the most reread tokens ({:.1} %), but {} saves the most cost ({:.1} %){why}",
            token_winner.name, token_winner.saved_pct, cost_winner.name, cost_winner.cost_saved_pct
        ));
    }
    let moved: Vec<String> = edits
        .iter()
        .filter(|e| e.rank != e.cost_rank)
        .map(|e| {
            format!(
                "{} ranks {} on tokens but {} on cost",
                e.name, e.rank, e.cost_rank
            )
        })
        .collect();
    (!moved.is_empty()).then(|| {
        format!(
            "both put {} first, but {}",
            token_winner.name,
            moved.join("; ")
        )
    })
}

impl MeasureReport {
    fn new(st: &Stability, names: &[String], grid: &Grid) -> MeasureReport {
        MeasureReport {
            nominal_order: st.nominal.order.iter().map(|&i| names[i].clone()).collect(),
            winner: st.nominal.order.first().map(|&i| names[i].clone()),
            ranking_holds: st.holds(),
            points_matching_nominal_order: st.matching_order,
            points_matching_winner: st.matching_winner,
            flips: st
                .flips(names, grid)
                .into_iter()
                .map(|f| FlipReport {
                    points: f.indices.iter().map(|&i| grid.point(i as usize)).collect(),
                    a: f.a,
                    b: f.b,
                    count: f.count,
                    region: f.region,
                })
                .collect(),
        }
    }
}

impl SweepReport {
    /// The report of a sweep over `study`'s edits.
    pub fn new(study: &Study, sweep: &SweepOutcome, closed_form: bool) -> SweepReport {
        let names: Vec<String> = study.edited.iter().map(|s| s.name.clone()).collect();
        let g = &sweep.grid;
        SweepReport {
            grid: GridReport {
                base_tokens: g.base_tokens.clone(),
                bytes_per_token: g.bytes_per_token.clone(),
                cache_read: g.cache_read.iter().copied().collect(),
                retry_rate: g.retry_rate.clone(),
                default: g.default_axes,
            },
            method: if closed_form { "closed form" } else { "replay" },
            points: g.len(),
            nominal_on_grid: sweep.nominal_on_grid,
            tokens: MeasureReport::new(&sweep.tokens, &names, g),
            break_even: sweep.break_even.clone(),
            sampled_only: sweep
                .sampled_only
                .iter()
                .map(|&(a, b)| Pair {
                    a: names[a].clone(),
                    b: names[b].clone(),
                })
                .collect(),
            cost: sweep
                .cost
                .as_ref()
                .map(|c| MeasureReport::new(c, &names, g)),
        }
    }
}
