//! The report: every figure of a run, with its unit and where its inputs came from.
//!
//! The report is built as data once; the table (`output::table`), the JSON
//! (`output::json`), the CSV summary and the HTML page (`output::html`) each render it, so
//! they cannot disagree. Numbers here are unrounded; sentences meant for people (the
//! answer, break-even summaries) are built here, once, at the precision a person needs.

mod by_tool;
mod context_editing;
mod live;
mod measured;
mod sweep;
mod whatif;

pub use by_tool::{ToolShare, by_tool};
pub use context_editing::ContextManagement;
pub use live::{ClosedForms, Forms, LiveSamples, MAX_SAMPLED_AXIS, Samples};
pub use measured::{CallDifference, MeasuredReport, cost_difference_pct};
pub use sweep::{
    BreakEvenSummary, FlipReport, GridReport, MeasureReport, Pair, SweepReport, rows_by_pair,
};
pub use whatif::{BEHAVIOUR, CacheTermsReport, WhatIfReport, named};

use crate::cache::models;
use crate::clear::Event;
use crate::evaluate::{Evaluation, Outcome, Study};
use crate::number::{decimal, grouped, percent, plural};
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};

/// Where an assumption's value came from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sources {
    /// e.g. `assumed (scenario file)` or `assumed (--base on the command line)`.
    pub base_tokens: String,
    pub bytes_per_token: String,
}

impl Sources {
    /// The sources of `scenario`'s B and ρ, unless a flag overrode them.
    pub fn of(scenario: &Scenario, base_flag: bool, bpt_flag: bool) -> Sources {
        let pick = |flag: bool, name: &str, file: &Option<String>| {
            if flag {
                format!("assumed ({name} on the command line)")
            } else {
                file.clone()
                    .unwrap_or_else(|| "assumed (scenario file)".to_string())
            }
        };
        Sources {
            base_tokens: pick(base_flag, "--base", &scenario.sources.base_tokens),
            bytes_per_token: pick(bpt_flag, "--bpt", &scenario.sources.bytes_per_token),
        }
    }
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
    /// Est. tokens freed: the cleared results less their placeholders (a compaction: the
    /// context before less the base, the summary and the calls kept).
    pub freed_tokens: f64,
    pub triggers: Vec<&'static str>,
    /// A compaction: the summary's tokens (a compaction request ran before the call,
    /// reading the whole context; `cleared` are the calls it summarized).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction_summary_tokens: Option<f64>,
}

/// A clearing policy's triggers that fired without a clearing (the trigger stays armed).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IdleReport {
    /// Calls before which a trigger fired and nothing was cleared.
    pub firings: usize,
    /// Of those, with nothing to clear: every clearable result standing was kept, or none
    /// stood.
    pub nothing_to_clear: usize,
    /// Of those, where the clearing would have freed less than `clear_at_least_tokens`.
    pub too_little: usize,
    /// 1-based call before which the first of them happened, and its triggers.
    pub first_before_call: Option<usize>,
    pub first_triggers: Vec<&'static str>,
}

/// One edit's figures against the baseline.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EditReport {
    pub name: String,
    /// Position in the scenario's edits (0-based), the index of its closed form in
    /// [`SweepReport::closed_forms`] (after the baseline). Not in the JSON.
    #[serde(skip)]
    pub index: usize,
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
    /// Triggers that fired without a clearing; null for an edit without a clearing policy.
    pub idle: Option<IdleReport>,
    /// What a `cache`, `model` or base-part step did (docs/model.md §9); absent for other
    /// edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub what_if: Option<WhatIfReport>,
}

/// The whole comparison at the nominal point.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    pub scenario: String,
    pub description: Option<String>,
    /// The scenario file, as given.
    pub source: String,
    /// The answer in one or two sentences: which edit saves the most, and whether that
    /// holds across the sweep.
    pub answer: String,
    /// Things to know that are not errors (a setting overridden by pinning).
    pub warnings: Vec<String>,
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
    /// Where the cache terms came from, where a preset gave them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_source: Option<String>,
    /// USD prices and their source, with `[price]`.
    pub price: Option<crate::scenario::Price>,
    pub baseline: BaselineReport,
    /// In ranked order (reread tokens), best saving first.
    pub edits: Vec<EditReport>,
    /// The ranking on reread tokens as a line, ties shown: `a = b > c`.
    pub order: String,
    /// Edit names ranked by cost, with `[cache]`.
    pub cost_order: Option<Vec<String>>,
    /// The ranking on cost as a line, ties shown, with `[cache]`.
    pub cost_order_line: Option<String>,
    /// A plain sentence when the two rankings disagree on the winner.
    pub disagreement: Option<String>,
    pub sweep: Option<SweepReport>,
    /// The baseline's reread total split by tool (or kind), largest share first.
    pub by_tool: Vec<ToolShare>,
    /// Measured usage beside the simulation, for a scenario made from an agent log.
    pub measured: Option<MeasuredReport>,
    /// Where the simulated cost is more than [`COST_DIFF_WARN_PCT`] off the measured: the
    /// sentence that says so, first of everything shown.
    pub simulation_differs: Option<String>,
    /// Where the scenario came from, when an importer wrote it.
    pub import: Option<crate::scenario::ImportInfo>,
    /// The best clearing edit as the provider's context editing, to paste into requests.
    pub context_management: Option<ContextManagement>,
    /// What the agent does next (docs/model.md §11): the re-fetch rate assumed, each edit
    /// that removes results at each swept rate, and the baseline's own re-reads.
    pub behaviour: BehaviourReport,
}

/// The re-fetch rate as an assumption (docs/model.md §11), at the nominal B and ρ.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BehaviourReport {
    /// `[behaviour] refetch`: the share of removed results fetched again, assumed.
    pub refetch: f64,
    /// The rates each edit below is evaluated at, ascending.
    pub rates: Vec<f64>,
    /// `cost` or `tokens`: the measure the stopping rates and the ranking are on.
    pub measure: &'static str,
    /// Every edit that removes results, in the scenario's order.
    pub edits: Vec<crate::behaviour::EditBehaviour>,
    /// Up to which rate the nominal ranking holds; None without an edit that removes
    /// results.
    pub ranking: Option<crate::behaviour::RankingHolds>,
    /// The baseline's own re-reads, measured; None where no call has an input hash or a
    /// tool.
    pub baseline_rereads: Option<crate::behaviour::Rereads>,
}

/// The unit label of token figures at `bytes_per_token`.
pub fn unit(bytes_per_token: f64) -> String {
    format!("est. tokens at {} bytes/token", decimal(bytes_per_token))
}

/// `a = b > c`: names in ranked order, tied names joined by `=`.
pub fn order_line(names: &[&str], ranks: &[usize]) -> String {
    let mut line = String::new();
    for (i, (name, rank)) in names.iter().zip(ranks).enumerate() {
        if i > 0 {
            line.push_str(if ranks[i - 1] == *rank { " = " } else { " > " });
        }
        line.push_str(name);
    }
    line
}

fn cost_model(study: &Study) -> String {
    let input = input_model(study);
    let output = output_model(study);
    match &study.scenario.cache {
        Some(c) => format!(
            "prompt cache: read {}×, write {}×, TTL {} s, min {} tokens (shorter requests are billed as plain input){}{}; {output}; cost in input-token equivalents",
            decimal(c.read),
            decimal(c.write),
            grouped(c.ttl_s, 0),
            grouped(c.min_tokens, 0),
            c.preset
                .as_deref()
                .map_or_else(String::new, |p| format!("; preset {}", preset_name(p))),
            input
        ),
        None => {
            let why = study
                .scenario
                .import
                .as_ref()
                .and_then(|i| i.model.as_deref())
                .and_then(flat_because)
                .map_or_else(String::new, |why| format!(", because {why}"));
            if study.prices_cost() {
                format!(
                    "no prompt cache{why}: every input token costs 1{input}; {output}; cost in input-token equivalents"
                )
            } else {
                format!(
                    "flat{why}: every input token costs 1 (no [cache]); cost in input-token equivalents"
                )
            }
        }
    }
}

/// A preset as `[cache]` names it: `claude-sonnet-4-5` of `claude-sonnet-4-5 (its source)`.
fn preset_name(preset: &str) -> &str {
    preset.split(" (").next().unwrap_or(preset)
}

/// Where the cache terms came from, where a preset gave them: the preset's source, shown
/// once beside the prices' (docs/model.md §4).
fn cache_source(study: &Study) -> Option<String> {
    let preset = study.scenario.cache.as_ref()?.preset.as_deref()?;
    let name = preset_name(preset);
    let source = preset.strip_prefix(name)?.trim();
    let source = source.strip_prefix('(').unwrap_or(source);
    Some(source.strip_suffix(')').unwrap_or(source).to_string())
}

/// The calls at other models than the scenario's own, priced at theirs (docs/model.md §4).
fn input_model(study: &Study) -> String {
    match &study.pricing.per_call {
        Some(calls) => format!(
            "; each call at its own model ({calls}), in the input-token equivalents of {}",
            study.pricing.models[0]
                .model
                .as_deref()
                .unwrap_or("the scenario's model")
        ),
        None => String::new(),
    }
}

/// Whether and how output tokens are priced (docs/model.md §4).
fn output_model(study: &Study) -> String {
    let own = &study.pricing.models[0];
    match (own.output, &own.output_source) {
        (Some(r), Some(source)) if source.starts_with("assumed") => format!(
            "output tokens at {} input tokens each, {source}",
            decimal(r)
        ),
        (Some(r), _) => format!(
            "output tokens at {} input tokens each (the output price over the input price)",
            decimal(r)
        ),
        (None, _) => {
            "output tokens not priced (no output price: give [price] or [cache] output = R)"
                .to_string()
        }
    }
}

/// Why an imported scenario has no cache model: its log's model is unknown to the price
/// data, or the data lacks its cache terms. None when the data has them (the `[cache]`
/// table was removed, or never wanted).
fn flat_because(model: &str) -> Option<String> {
    let data = models::described();
    // `[import] model` is not checked by the loader: what the log said, escaped.
    let model = crate::printable::printable(model);
    match models::find(&model) {
        None => Some(format!(
            "the log's model \"{model}\" is unknown to the {data}"
        )),
        Some(m) => {
            let missing = m.missing(false);
            (!missing.is_empty()).then(|| {
                format!(
                    "the {data} has no {} for the log's model \"{model}\" (\"{}\")",
                    models::in_words(&missing),
                    m.name
                )
            })
        }
    }
}

fn events(study: &Study, o: &Outcome) -> Vec<EventReport> {
    let ids = |e: &Event| -> Vec<String> {
        e.origins
            .iter()
            .map(|&o| study.scenario.calls.at(o as usize).id.to_string())
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
            compaction_summary_tokens: e.compaction,
        })
        .collect()
}

fn idle(o: &Outcome) -> IdleReport {
    let idle = &o.clearings.idle;
    IdleReport {
        firings: idle.nothing_to_clear + idle.too_little,
        nothing_to_clear: idle.nothing_to_clear,
        too_little: idle.too_little,
        first_before_call: idle.first.as_ref().map(|(i, _)| i + 1),
        first_triggers: idle
            .first
            .as_ref()
            .map_or_else(Vec::new, |(_, t)| t.clone()),
    }
}

impl Report {
    /// Builds the report of `study` evaluated at its nominal point, with its sweep.
    pub fn new(
        study: &Study,
        nominal: &Evaluation,
        sources: Sources,
        sweep: Option<SweepReport>,
    ) -> Report {
        let shares = by_tool(study, nominal.at());
        Report::with_by_tool(study, nominal, sources, sweep, shares)
    }

    /// [`Report::new`] with the baseline's split by tool at the nominal point already
    /// computed ([`by_tool`]: a pass over every call, which a long run computes beside
    /// its nominal walks).
    pub fn with_by_tool(
        study: &Study,
        nominal: &Evaluation,
        sources: Sources,
        sweep: Option<SweepReport>,
        shares: Vec<ToolShare>,
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
                    index: i,
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
                    events: (study.edited[i].clear.is_some() || study.edited[i].compact.is_some())
                        .then(|| events(study, o)),
                    what_if: WhatIfReport::of(study, &study.edited[i]),
                    idle: study.edited[i].clear.as_ref().map(|_| idle(o)),
                }
            })
            .collect();
        let names: Vec<&str> = edits.iter().map(|e| e.name.as_str()).collect();
        let ranks: Vec<usize> = edits.iter().map(|e| e.rank).collect();
        let order = order_line(&names, &ranks);
        let priced = study.prices_cost();
        let cost_ranked: Option<Vec<usize>> = priced.then(|| nominal.cost_ranking.order.clone());
        let cost_order: Option<Vec<String>> = cost_ranked
            .as_ref()
            .map(|o| o.iter().map(|&i| s.edits[i].name.clone()).collect());
        let cost_order_line = cost_ranked.as_ref().map(|o| {
            let names: Vec<&str> = o.iter().map(|&i| s.edits[i].name.as_str()).collect();
            let ranks: Vec<usize> = o.iter().map(|&i| nominal.cost_ranking.ranks[i]).collect();
            order_line(&names, &ranks)
        });
        let disagreement = cost_order.as_ref().and_then(|_| disagreement(&edits));
        let baseline = BaselineReport {
            total_tokens: base.total_tokens,
            calls: base.calls,
            average_call_tokens: base.total_tokens / base.calls as f64,
            cost: base.cost,
            dollars: base.dollars,
        };
        let measured = MeasuredReport::new(study, nominal);
        let answer = match dollars_line(&edits, &baseline, measured.as_ref()) {
            // The dollars say what the best by cost saves: the answer need not again.
            Some(line) => format!(
                "{line} {}",
                answer(&edits, &baseline, false, sweep.as_ref())
            ),
            None => answer(&edits, &baseline, priced, sweep.as_ref()),
        };
        let simulation_differs = measured.as_ref().and_then(simulation_differs);
        let behaviour = behaviour(study, nominal, sweep.as_ref(), priced);
        Report {
            scenario: s.name.clone(),
            description: s.description.clone(),
            source: s.source.clone(),
            answer,
            warnings: study.warnings.clone(),
            unit: unit(at.bytes_per_token),
            base_tokens: at.base_tokens,
            bytes_per_token: at.bytes_per_token,
            retry_rate: s.retry_rate,
            sources,
            measured_calls: s.measured_calls(),
            cost_model: cost_model(study),
            cache_source: cache_source(study),
            price: s.price.clone(),
            baseline,
            edits,
            order,
            cost_order,
            cost_order_line,
            disagreement,
            sweep,
            by_tool: shares,
            measured,
            simulation_differs,
            import: s.import.clone(),
            context_management: context_editing::winning(study, nominal),
            behaviour,
        }
    }
}

/// The behaviour report: each edit that removes results at the swept re-fetch rates (the
/// default ones without a sweep), on cost where it is priced.
fn behaviour(
    study: &Study,
    nominal: &Evaluation,
    sweep: Option<&SweepReport>,
    by_cost: bool,
) -> BehaviourReport {
    use crate::behaviour;
    let rates = behaviour::rates(study, sweep.map(|s| &s.grid.refetch[..]));
    let edits = behaviour::analyse(study, &nominal.point, &rates, by_cost);
    let (savings, total): (Vec<f64>, f64) = if by_cost {
        (
            nominal.edits.iter().map(|e| e.cost_saving.saved).collect(),
            nominal.baseline.cost,
        )
    } else {
        (
            nominal.edits.iter().map(|e| e.saving.saved).collect(),
            nominal.baseline.total_tokens,
        )
    };
    BehaviourReport {
        refetch: study.scenario.refetch,
        measure: if by_cost { "cost" } else { "tokens" },
        ranking: behaviour::ranking_holds(study, &edits, &savings, total, by_cost),
        baseline_rereads: behaviour::Rereads::of(&study.scenario.calls),
        rates,
        edits,
    }
}

/// A simulated cost further than this from the measured one, in percent, is said first:
/// the savings are of a simulation that does not reproduce the session.
pub const COST_DIFF_WARN_PCT: f64 = 5.0;

/// The sentence that says the simulation is not the session, where its cost is more than
/// [`COST_DIFF_WARN_PCT`] off the measured.
fn simulation_differs(m: &MeasuredReport) -> Option<String> {
    let d = m.cost_difference_pct?;
    (d.abs() > COST_DIFF_WARN_PCT).then(|| {
        format!(
            "The simulated cost is {} {} than measured ({}): every saving below is of a simulation that does not reproduce this session; `simulate fit` fits B, ρ and the cache terms to the measured usage.",
            percent(d.abs()),
            if d > 0.0 { "higher" } else { "lower" },
            m.denominator
        )
    })
}

/// The answer in dollars, where prices are known: what the session cost (measured beside
/// simulated, where measured), and what the best edit by cost saves.
fn dollars_line(
    edits: &[EditReport],
    baseline: &BaselineReport,
    measured: Option<&MeasuredReport>,
) -> Option<String> {
    let simulated = baseline.dollars?;
    let cost = match measured.and_then(|m| m.measured_dollars) {
        Some(m) => format!(
            "This session cost {} measured ({} simulated).",
            crate::number::dollars(m),
            crate::number::dollars(simulated)
        ),
        None => format!(
            "This run costs {} (simulated).",
            crate::number::dollars(simulated)
        ),
    };
    let best = edits
        .iter()
        .filter(|e| e.cost_rank == 1)
        .find_map(|e| Some((e, e.dollars_saved?)));
    let money = crate::number::dollars;
    let saving = match best {
        None => String::new(),
        Some((e, saved)) if e.cost_saved_pct > 0.0 => format!(
            " The top change by cost, {}, saves about {} ({}).",
            e.name,
            money(saved),
            percent(e.cost_saved_pct)
        ),
        // The best by cost saves nothing or costs more: say so, never "saves the most".
        Some((e, _)) if e.cost_saved_pct == 0.0 => " No edit saves any cost.".to_string(),
        Some((e, saved)) if edits.len() == 1 => format!(
            " By cost it costs {} ({}) more than the baseline.",
            money(-saved),
            percent(-e.cost_saved_pct)
        ),
        Some((e, saved)) => format!(
            " By cost every edit costs more than the baseline; the least, {}, by {} ({}).",
            e.name,
            money(-saved),
            percent(-e.cost_saved_pct)
        ),
    };
    Some(format!("{cost}{saving}"))
}

/// The answer first: who saves the most, by how much, and whether that survives the sweep.
fn answer(
    edits: &[EditReport],
    baseline: &BaselineReport,
    cached: bool,
    sweep: Option<&SweepReport>,
) -> String {
    let Some(best) = edits.first() else {
        return "No edits to compare: add [[edit]] tables to the scenario.".into();
    };
    let tied: Vec<&str> = edits
        .iter()
        .filter(|e| e.rank == 1)
        .map(|e| e.name.as_str())
        .collect();
    // The best saving is 0: nothing to rank first. (A saving within 1e-9 of the reread
    // total counts as 0: at extreme sizes a real but tiny change cannot be told from the
    // rounding of the total.)
    let mut text = if best.saved_tokens == 0.0 {
        let who = match tied.as_slice() {
            [one] if edits.len() == 1 => format!("{one} saves nothing"),
            _ if tied.len() == edits.len() => "No edit saves anything".to_string(),
            _ => format!(
                "No edit saves anything ({} {} 0; the others add to the reread total)",
                models::in_words(&tied),
                if tied.len() == 1 { "saves" } else { "save" }
            ),
        };
        let floor = baseline.total_tokens * crate::rank::TIE_TOLERANCE;
        if floor >= 0.5 {
            format!(
                "{who}: a saving within 1e-9 of the reread total ({} est. tokens) counts as 0, so a change smaller than about {} est. tokens cannot be told from none.",
                grouped(baseline.total_tokens, 0),
                grouped(floor, 0)
            )
        } else {
            format!("{who}: every saving is 0 est. tokens or less.")
        }
    } else {
        format!(
            "{}: {} est. tokens, {} of the reread total ({} average calls).",
            who_saves_most(&tied),
            grouped(best.saved_tokens, 0),
            percent(best.saved_pct),
            grouped(best.equivalent_calls, 2)
        )
    };
    if cached {
        match edits.iter().find(|e| e.cost_rank == 1) {
            // The best by cost saves nothing or costs more: say so, never "saves the most".
            Some(c) if c.cost_saved_pct < 0.0 && edits.len() == 1 => text.push_str(&format!(
                " By cost it costs {} more than the baseline.",
                percent(-c.cost_saved_pct)
            )),
            Some(c) if c.cost_saved_pct < 0.0 => text.push_str(&format!(
                " By cost every edit costs more than the baseline; the least, {}, by {}.",
                c.name,
                percent(-c.cost_saved_pct)
            )),
            Some(c) if c.cost_saved_pct == 0.0 => text.push_str(" No edit saves any cost."),
            // "It" is the edit just named as saving the most reread tokens, if one was.
            Some(c) if c.rank == 1 && best.cost_rank == 1 && best.saved_tokens != 0.0 => {
                text.push_str(&format!(
                    " It also saves the most cost ({}).",
                    percent(best.cost_saved_pct)
                ));
            }
            Some(c) => text.push_str(&format!(
                " By cost, {} saves the most ({}).",
                c.name,
                percent(c.cost_saved_pct)
            )),
            None => {}
        }
    }
    if let (Some(sw), true) = (sweep, edits.len() > 1) {
        let m = &sw.tokens;
        let points = plural(sw.points, "swept point", "swept points");
        if m.ranking_holds {
            text.push_str(&format!(" The ranking holds at all {points}"));
            match sw.cost.as_ref() {
                Some(c) if !c.ranking_holds => text.push_str(&format!(
                    "; ranked by cost it holds at {} of them.",
                    grouped(c.points_matching_nominal_order as f64, 0)
                )),
                Some(_) => text.push_str(", by reread tokens and by cost."),
                None => text.push('.'),
            }
        } else {
            text.push_str(&format!(
                " The ranking does not hold everywhere: {} of {points} keep it, and {} wins at {} of them.",
                grouped(m.points_matching_nominal_order as f64, 0),
                m.winner.as_deref().unwrap_or("—"),
                grouped(m.points_matching_winner as f64, 0),
            ));
        }
    }
    text
}

/// `a saves the most`, or `a and b tie for the largest saving`, for the edits ranked first.
pub fn who_saves_most(first: &[&str]) -> String {
    if first.len() > 1 {
        format!("{} tie for the largest saving", first.join(" and "))
    } else {
        format!(
            "{} saves the most",
            first.first().copied().unwrap_or("no edit")
        )
    }
}

/// A plain sentence when ranking by cost differs from ranking by reread tokens: the
/// winners, or else the edits whose rank moves.
fn disagreement(edits: &[EditReport]) -> Option<String> {
    let token_winner = edits.iter().find(|e| e.rank == 1)?;
    let cost_winner = edits.iter().find(|e| e.cost_rank == 1)?;
    // A "winner" that saves nothing (or costs more) wins nothing: the answer says so, and
    // there is no disagreement to report.
    if token_winner.saved_tokens <= 0.0 || cost_winner.cost_saved <= 0.0 {
        return None;
    }
    if token_winner.cost_rank != 1 {
        let why = match &token_winner.events {
            Some(ev) if !ev.is_empty() => format!(
                ": the {} of {} rewrite the cache from the first cleared result on",
                plural(ev.len(), "clearing", "clearings"),
                token_winner.name
            ),
            _ => String::new(),
        };
        return Some(format!(
            "{} saves the most reread tokens ({}), but {} saves the most cost ({}){why}",
            token_winner.name,
            percent(token_winner.saved_pct),
            cost_winner.name,
            percent(cost_winner.cost_saved_pct)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_lines_show_ties() {
        assert_eq!(order_line(&["a", "b", "c"], &[1, 1, 3]), "a = b > c");
        assert_eq!(order_line(&["a", "b", "c"], &[1, 2, 2]), "a > b = c");
        assert_eq!(order_line(&["a"], &[1]), "a");
    }
}
