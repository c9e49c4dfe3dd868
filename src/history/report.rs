//! A history's report as data, built once: the table, the JSON, the CSV files, the HTML
//! page and the charts each render it, so they cannot disagree.

use super::aggregate::{
    Aggregate, EditAggregate, MeasuredTotals, OFF_PCT, OffSessions, SweepAggregate, SweepPoint,
};
use super::factors::{self, Factors};
use super::files::Skipped;
use super::groups::{GroupReport, GroupsReport};
use super::{Agreement, SessionFigures};
use crate::number::{grouped, percent, plural};
use crate::report::order_line;
use serde::Serialize;
use std::collections::BTreeMap;

/// Sessions named per flipping pair in the report (the JSON's `sessions` has them all).
pub const NAMED_PER_FLIP: usize = 5;

/// Sessions named per base edit larger than their base, in the table (the JSON, the page
/// and `sessions.csv` name them all).
pub const NAMED_PER_BASE_NOTE: usize = 10;

/// Sessions no edit changes: every edit's saving ties with 0, in reread tokens and in cost
/// (docs/model.md §5), and beside them the sessions where an edit changes only the cost (a
/// cache edit's other TTL, a model edit's prices). By reread tokens both are nobody's win,
/// so the first-in counts leave both out.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Unchanged {
    pub sessions: usize,
    /// Sessions some edit changes the cost of but none the reread total.
    pub cost_only: usize,
    /// Of how many sessions.
    pub of: usize,
    /// The names of the sessions no edit changes, in session order.
    pub names: Vec<String>,
}

impl Unchanged {
    /// The sessions first in leaves out: no edit changes their reread total.
    pub fn left_out(&self) -> usize {
        self.sessions + self.cost_only
    }

    /// The sessions that count for first in: those some edit changes the reread total of.
    pub fn counted(&self) -> usize {
        self.of - self.left_out()
    }

    /// What the counted sessions are, after `the 3`: `sessions some edit changes`, or,
    /// when an edit changes only the cost of some others, `sessions whose reread total some
    /// edit changes`.
    pub fn counted_words(&self) -> &'static str {
        if self.cost_only == 0 {
            "sessions some edit changes"
        } else {
            "sessions whose reread total some edit changes"
        }
    }

    /// `no edit changes 40 of 79 sessions (…)`, with the sessions only the cost of which
    /// an edit changes; None when some edit changes the reread total of every session.
    pub fn line(&self) -> Option<String> {
        let of = grouped(self.of as f64, 0);
        let (u, c) = (
            grouped(self.sessions as f64, 0),
            grouped(self.cost_only as f64, 0),
        );
        let left_out = "they are left out of first in";
        match (self.sessions, self.cost_only) {
            (0, 0) => None,
            (_, 0) => Some(format!(
                "no edit changes {u} of {of} sessions (every edit saves 0 there, a tie; {left_out})"
            )),
            (0, _) => Some(format!(
                "no edit changes the reread total of {c} of {of} sessions, only their cost (every edit saves 0 est. tokens there, a tie; {left_out})"
            )),
            (_, _) => Some(format!(
                "no edit changes {u} of {of} sessions, and {c} more only in cost (every edit saves 0 est. tokens in those {}, a tie; {left_out})",
                grouped(self.left_out() as f64, 0)
            )),
        }
    }
}

/// The summed baseline.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HistoryBaseline {
    pub sessions: usize,
    /// Σ of the sessions' calls.
    pub calls: usize,
    /// Σ of the baseline reread totals, est. tokens (each session at its own ρ).
    pub total_tokens: f64,
    /// `total_tokens / calls`.
    pub average_call_tokens: f64,
    /// Σ of the baseline costs, input-token equivalents.
    pub cost: f64,
    /// Sessions with a `[cache]`; the others' cost is flat (their reread total).
    pub cached_sessions: usize,
    /// Σ of the simulated baseline dollars over the sessions priced; None when none is.
    pub dollars: Option<f64>,
    /// Sessions priced: the denominator of `dollars`.
    pub priced_sessions: usize,
    /// Whether the cost ranking is by dollars (every session priced).
    pub ranked_by_dollars: bool,
}

/// A pair of edits whose aggregate order some sessions or points reverse.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlipReport {
    /// Saves more in the aggregate.
    pub a: String,
    /// Saves more where it flips.
    pub b: String,
    /// How many sessions (or points) flip.
    pub count: usize,
    /// The first few sessions by name, or every point as `B × ⅔, ρ × 1.25`.
    #[serde(rename = "where")]
    pub where_: Vec<String>,
}

/// Whether a set of rankings keeps the aggregate's.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AgreementReport {
    pub holds: bool,
    /// Sessions, or grid points.
    pub of: usize,
    pub matching_order: usize,
    pub matching_winner: usize,
    pub flips: Vec<FlipReport>,
}

/// The factor sweep applied to every session, summed.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AssumptionsReport {
    pub factors: Factors,
    /// `B × ⅔, 1, 4⁄3 and ρ × 0.75, 1, 1.25`.
    pub grid: String,
    /// How the points were computed.
    pub method: &'static str,
    #[serde(flatten)]
    pub agreement: AgreementReport,
    /// Every point's summed figures, grid order.
    pub points: Vec<SweepPoint>,
    /// The summed reread totals' closed forms in the factors on B and ρ, the baseline
    /// first then each edit by index; None for an edit some session replays. Not in the
    /// JSON: `report.html` embeds them to re-rank the edits as the factors move.
    #[serde(skip)]
    pub closed_forms: Vec<Option<crate::ledger::Affine>>,
}

/// A warning and how many sessions gave it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WarningCount {
    pub warning: String,
    pub sessions: usize,
}

/// Everything a history shows.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HistoryReport {
    /// Results go to `out/<name>/`.
    pub name: String,
    /// The directory searched, as given.
    pub directory: String,
    pub edits_file: String,
    /// The answer in a few sentences.
    pub answer: String,
    /// The unit of every token figure.
    pub unit: String,
    /// How many sessions' B and ρ were fitted, measured or assumed.
    pub base_tokens_sources: BTreeMap<String, usize>,
    pub bytes_per_token_sources: BTreeMap<String, usize>,
    pub baseline: HistoryBaseline,
    /// Ranked by aggregate saving, best first.
    pub edits: Vec<EditAggregate>,
    /// The aggregate ranking as a line, ties shown: `a > b = c`.
    pub order: String,
    /// The ranking by summed cost saving, the same way.
    pub cost_order: String,
    pub across_sessions: AgreementReport,
    pub across_assumptions: AssumptionsReport,
    /// Sessions no edit changes, counted apart from the first-in counts.
    pub unchanged: Unchanged,
    /// Warnings other than rules that selected nothing (those are counted per edit).
    pub warnings: Vec<WarningCount>,
    /// `.toml` files under the directory that are not sessions.
    pub skipped: Vec<Skipped>,
    /// With `--group-by`: every group's sums.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<GroupsReport>,
    /// The sessions' own figures, by name: every one for a history held in memory, the
    /// first [`LISTED_SESSIONS`] for one streamed from its records (the JSON writes every
    /// session from the records, last, as `sessions`).
    #[serde(skip)]
    pub sessions: Vec<SessionFigures>,
    /// Per edit (by index), every session's percentage saved, in session order.
    #[serde(skip)]
    pub session_pcts: Vec<Vec<f64>>,
    /// Per edit (by index), every session's percentage of its own baseline cost saved, in
    /// the cost ranking's unit (see `Aggregate::session_cost_pcts`).
    #[serde(skip)]
    pub session_cost_pcts: Vec<Vec<f64>>,
    /// The shards a merge read, as given (only the table says so: the files are those of
    /// one run over all the sessions).
    #[serde(skip)]
    pub merged_from: Vec<String>,
    /// Measured beside simulated over the sessions with measured usage, and the sessions
    /// whose simulated cost is off (docs/model.md §6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<MeasuredTotals>,
    /// Sessions `--max-cost-diff` left out of every sum.
    pub excluded: OffSessions,
    /// Where the simulation is not the sessions, in sentences, said before anything else.
    pub simulation_differs: Vec<String>,
}

/// Sessions a streamed history keeps whole for its page (`report.html` lists them).
pub const LISTED_SESSIONS: usize = 300;

fn flips(
    a: &Agreement,
    names: &[String],
    item: impl Fn(usize) -> String,
    listed: usize,
) -> Vec<FlipReport> {
    a.flips
        .iter()
        .map(|f| FlipReport {
            a: names[f.a].clone(),
            b: names[f.b].clone(),
            count: f.count,
            where_: f.items.iter().take(listed).map(|&i| item(i)).collect(),
        })
        .collect()
}

fn agreement_report(
    a: &Agreement,
    names: &[String],
    item: impl Fn(usize) -> String,
    listed: usize,
) -> AgreementReport {
    AgreementReport {
        holds: a.holds(),
        of: a.items,
        matching_order: a.matching_order,
        matching_winner: a.matching_winner,
        flips: flips(a, names, item, listed),
    }
}

impl HistoryReport {
    /// The report of `aggregate` over `sessions`, with its factor sweep.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: &str,
        directory: &str,
        edits_file: &str,
        aggregate: Aggregate,
        sweep: SweepAggregate,
        sessions: Vec<SessionFigures>,
        skipped: Vec<Skipped>,
    ) -> HistoryReport {
        let names: Vec<String> = aggregate.edits.iter().map(|e| e.name.clone()).collect();
        let ranked: Vec<EditAggregate> = aggregate
            .ranking
            .order
            .iter()
            .map(|&i| aggregate.edits[i].clone())
            .collect();
        let order = order_line(
            &ranked.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
            &ranked.iter().map(|e| e.rank).collect::<Vec<_>>(),
        );
        let mut by_cost: Vec<&EditAggregate> = ranked.iter().collect();
        // Stable: edits tied on cost keep their token order.
        by_cost.sort_by_key(|e| e.cost_rank);
        let cost_order = order_line(
            &by_cost.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
            &by_cost.iter().map(|e| e.cost_rank).collect::<Vec<_>>(),
        );
        let across_sessions = agreement_report(
            &aggregate.across_sessions,
            &names,
            |i| aggregate.session_names.get(i).to_string(),
            NAMED_PER_FLIP,
        );
        let across_assumptions = AssumptionsReport {
            grid: sweep.factors.describe(),
            method: if aggregate
                .edits
                .iter()
                .any(|e| e.sessions_base_clamped_in_sweep > 0)
            {
                "each session by closed form (replayed where a clearing moves with B or ρ, or where a base edit takes its base to 0), then summed"
            } else {
                "each session by closed form (replayed where a clearing moves with B or ρ), then summed"
            },
            agreement: agreement_report(
                &sweep.agreement,
                &names,
                |i| factors::point_label(sweep.factors.point(i)),
                usize::MAX,
            ),
            factors: sweep.factors,
            points: sweep.points,
            closed_forms: sweep.closed_forms,
        };
        let baseline = HistoryBaseline {
            sessions: aggregate.sessions,
            calls: aggregate.calls,
            total_tokens: aggregate.baseline_total_tokens,
            average_call_tokens: aggregate.baseline_total_tokens / aggregate.calls as f64,
            cost: aggregate.baseline_cost,
            cached_sessions: aggregate.cached_sessions,
            dollars: aggregate.baseline_dollars,
            priced_sessions: aggregate.priced_sessions,
            ranked_by_dollars: aggregate.ranked_by_dollars,
        };
        let unchanged = Unchanged {
            sessions: aggregate.sessions_unchanged,
            cost_only: aggregate.sessions_cost_only,
            of: aggregate.sessions,
            names: aggregate
                .unchanged
                .iter()
                .map(|&i| aggregate.session_names.get(i).to_string())
                .collect(),
        };
        let mut answer = answer(
            &ranked,
            &baseline,
            &unchanged,
            &across_sessions,
            &across_assumptions,
        );
        if let Some(cost) = cost_answer(&by_cost, &ranked, &baseline, &cost_order) {
            answer.push(' ');
            answer.push_str(&cost);
        }
        if let Some(money) = money_line(&by_cost, &baseline, aggregate.measured.as_ref()) {
            answer = format!("{money} {answer}");
        }
        let simulation_differs =
            simulation_differs(aggregate.measured.as_ref(), &aggregate.excluded);
        HistoryReport {
            name: name.to_string(),
            directory: directory.to_string(),
            edits_file: edits_file.to_string(),
            answer,
            unit: "est. tokens (bytes ÷ each session's own ρ, plus measured tokens), summed over sessions".into(),
            base_tokens_sources: aggregate.base_tokens_sources,
            bytes_per_token_sources: aggregate.bytes_per_token_sources,
            baseline,
            edits: ranked,
            order,
            cost_order,
            across_sessions,
            across_assumptions,
            unchanged,
            warnings: aggregate
                .warnings
                .into_iter()
                .map(|(warning, sessions)| WarningCount { warning, sessions })
                .collect(),
            skipped,
            groups: None,
            sessions,
            session_pcts: aggregate.session_pcts,
            session_cost_pcts: aggregate.session_cost_pcts,
            merged_from: Vec::new(),
            measured: aggregate.measured,
            excluded: aggregate.excluded,
            simulation_differs,
        }
    }
}

/// The answer: the winner with its share and spread, then whether the order holds across
/// sessions and across the assumptions.
fn answer(
    ranked: &[EditAggregate],
    baseline: &HistoryBaseline,
    unchanged: &Unchanged,
    sessions: &AgreementReport,
    assumptions: &AssumptionsReport,
) -> String {
    let n = baseline.sessions;
    let over = format!("Over {}", plural(n, "session", "sessions"));
    let Some(best) = ranked.first() else {
        return format!("{over}: no edits to compare.");
    };
    // Nothing saved anywhere: there is no winner, and no order to hold.
    if best.saved_tokens <= 0.0 {
        let what = if ranked.len() == 1 {
            format!("{} saves no reread tokens", best.name)
        } else {
            "no edit saves reread tokens".to_string()
        };
        return format!(
            "{over}, {what}: every saving summed over the sessions is 0 est. tokens or less (see the cost ranking for what the edits do to cost)."
        );
    }
    let tied: Vec<&str> = ranked
        .iter()
        .take_while(|e| e.rank == best.rank)
        .map(|e| e.name.as_str())
        .collect();
    let who = crate::report::who_saves_most(&tied);
    let d = &best.per_session_pct;
    let first_in = if unchanged.left_out() == 0 {
        format!(
            "{} of {}",
            grouped(best.sessions_first as f64, 0),
            grouped(n as f64, 0)
        )
    } else {
        let counted = unchanged.counted_words();
        let counted = match unchanged.counted() {
            1 => format!("the 1 {}", counted.replacen("sessions", "session", 1)),
            c => format!("the {} {counted}", grouped(c as f64, 0)),
        };
        let left_out = if unchanged.cost_only == 0 {
            "no edit changes"
        } else {
            "no edit changes the reread total of"
        };
        format!(
            "{} of {counted} ({left_out} {} of {})",
            grouped(best.sessions_first as f64, 0),
            grouped(unchanged.left_out() as f64, 0),
            grouped(n as f64, 0)
        )
    };
    let mut text = format!(
        "{over}, {who}: {} of the summed reread total (per session: median {}, p10–p90 {} to {}); it ranks first in {first_in}.",
        percent(best.saved_pct),
        percent(d.median),
        percent(d.p10),
        percent(d.p90),
    );
    if ranked.len() < 2 {
        return text;
    }
    let a = &assumptions.agreement;
    let grid = format!("{} points of the factor sweep ({})", a.of, assumptions.grid);
    if sessions.holds && a.holds && unchanged.left_out() == 0 {
        text.push_str(&format!(
            " The aggregate order holds in every session and at all {grid}: it stands under both kinds of doubt."
        ));
        return text;
    }
    // Sessions whose reread total no edit changes are not counted: they keep any order.
    let of_sessions = if unchanged.left_out() == 0 {
        format!("{} sessions", grouped(n as f64, 0))
    } else {
        format!(
            "the {} {}",
            grouped(sessions.of as f64, 0),
            unchanged.counted_words()
        )
    };
    let in_sessions = match (sessions.holds, unchanged.left_out()) {
        (true, 0) => "in every session".to_string(),
        (true, _) => format!("in all {of_sessions}"),
        (false, _) => format!(
            "in {} of {of_sessions}",
            grouped(sessions.matching_order as f64, 0)
        ),
    };
    let at_points = if a.holds {
        format!("at all {grid}")
    } else {
        format!("at {} of {grid}", a.matching_order)
    };
    let winner = if a.matching_winner == a.of {
        format!("at every point {} stays first", best.name)
    } else {
        format!(
            "{} stays first at {} of {} points",
            best.name, a.matching_winner, a.of
        )
    };
    text.push_str(&format!(
        " The aggregate order holds {in_sessions} and {at_points}; {winner}."
    ));
    text
}

/// For each edit (ranked) whose base change is larger than some session's base: a line
/// naming those sessions, up to `listed` each, then one for the sessions where it is only
/// at some points of the factor grid. Not an error: the edit removes what there is there.
pub fn base_clamp_lines(r: &HistoryReport, listed: usize) -> Vec<String> {
    let n = grouped(r.baseline.sessions as f64, 0);
    let points = r.across_assumptions.factors.len();
    let names = |list: Vec<String>| {
        let more = list.len().saturating_sub(listed);
        let mut text: Vec<String> = list.into_iter().take(listed).collect::<Vec<_>>();
        if more > 0 {
            text.push(format!("and {} more", grouped(more as f64, 0)));
        }
        text.join(", ")
    };
    let mut lines = Vec::new();
    for e in &r.edits {
        let at_nominal: Vec<String> = e
            .base_clamped
            .iter()
            .filter(|c| c.at_nominal)
            .map(|c| format!("{} (B = {})", c.session, grouped(c.base_tokens, 0)))
            .collect();
        let some_at_nominal = !at_nominal.is_empty();
        if some_at_nominal {
            lines.push(format!(
                "{} removes more than the base of {} of {n} sessions (B = 0 there): {}",
                e.name,
                grouped(at_nominal.len() as f64, 0),
                names(at_nominal)
            ));
        }
        let in_sweep: Vec<String> = e
            .base_clamped
            .iter()
            .filter(|c| !c.at_nominal)
            .map(|c| {
                format!(
                    "{} (B = {}; at {} of {points} points)",
                    c.session,
                    grouped(c.base_tokens, 0),
                    c.points
                )
            })
            .collect();
        if !in_sweep.is_empty() {
            let count = grouped(in_sweep.len() as f64, 0);
            let of = match (some_at_nominal, in_sweep.len()) {
                (true, 1) => format!("{count} more session"),
                (true, _) => format!("{count} more sessions"),
                (false, _) => format!("{count} of {n} sessions"),
            };
            lines.push(format!(
                "{} removes more than the base of {of} at some points of the factor sweep only (B = 0 at those points): {}",
                e.name,
                names(in_sweep)
            ));
        }
    }
    lines
}

/// The `limit` groups with the largest summed baselines (ties by name), largest first.
pub fn largest_groups(g: &GroupsReport, limit: usize) -> Vec<&GroupReport> {
    let mut all: Vec<&GroupReport> = g.groups.iter().collect();
    all.sort_by(|a, b| {
        b.baseline_total_tokens
            .total_cmp(&a.baseline_total_tokens)
            .then_with(|| a.group.cmp(&b.group))
    });
    all.truncate(limit);
    all
}

/// What saves the most in group `g`, as `#2 clear after a pause` (the edit's place in the
/// whole's order, then its name; tied edits joined by ` = `); `no edit changes it` when
/// every edit of every session ties at 0, `no edit changes its reread total` when some
/// change only the cost.
pub fn group_winner(r: &HistoryReport, g: &GroupReport) -> String {
    if g.sessions_unchanged == g.sessions {
        return "no edit changes it".into();
    }
    if g.sessions_unchanged + g.sessions_cost_only == g.sessions {
        return "no edit changes its reread total".into();
    }
    g.order
        .iter()
        .filter(|&&i| g.edits[i].rank == 1)
        .filter_map(|&i| {
            let place = r.edits.iter().position(|e| e.index == i)?;
            Some(format!("#{} {}", place + 1, g.edits[i].name))
        })
        .collect::<Vec<_>>()
        .join(" = ")
}

/// Sessions named per what-if sentence in the table and the page (the JSON and
/// `whatif.csv` name them all).
pub const NAMED_PER_WHAT_IF: usize = 10;

/// For each what-if edit (ranked; docs/model.md §9): what it does over the sessions, in
/// sentences: the model it is priced as, the sessions a cache edit leaves unchanged by
/// their trace kind, the calls that use a dropped or deferred part's tools. An edit with
/// none of these is left out, and so is the whole section when every edit is.
pub fn what_if_lines(r: &HistoryReport) -> Vec<(String, Vec<String>)> {
    let n = grouped(r.baseline.sessions as f64, 0);
    let names = |list: Vec<String>| {
        let more = list.len().saturating_sub(NAMED_PER_WHAT_IF);
        let mut text: Vec<String> = list.into_iter().take(NAMED_PER_WHAT_IF).collect();
        if more > 0 {
            text.push(format!("and {} more", grouped(more as f64, 0)));
        }
        text.join(", ")
    };
    let mut out = Vec::new();
    for e in &r.edits {
        let Some(w) = &e.what_if else { continue };
        let mut lines = Vec::new();
        if let Some(model) = &w.priced_as {
            let factor = w.tokens_factor.map_or_else(String::new, |f| {
                format!(
                    ", its tokenizer giving {}× the tokens for the same bytes (each session's ρ ÷ {}; B and measured tokens as given)",
                    crate::number::decimal(f),
                    crate::number::decimal(f)
                )
            });
            lines.push(format!(
                "priced as {model} in every session{factor}; {}",
                crate::report::BEHAVIOUR
            ));
        }
        if !w.trace_unchanged.is_empty() {
            lines.push(format!(
                "leaves {} of {n} sessions unchanged, whose trace kind its traces leave out: {}",
                grouped(w.trace_unchanged.len() as f64, 0),
                names(w.trace_unchanged.clone())
            ));
        }
        for p in &w.parts {
            let verb = if p.action == "drop" {
                "drops"
            } else {
                "defers"
            };
            if p.calls_using == 0 {
                lines.push(format!(
                    "{verb} {}: no call in any session uses its tools",
                    p.part
                ));
                continue;
            }
            let using = format!(
                "{} in {} of {n} sessions use {}'s tools",
                plural(p.calls_using, "call", "calls"),
                grouped(p.sessions_using.len() as f64, 0),
                p.part
            );
            let then = if p.action == "drop" {
                "they would need another way".to_string()
            } else {
                format!(
                    "in each, a tool search before the first of them loads its definitions ({} in all)",
                    plural(p.tool_searches, "tool search", "tool searches")
                )
            };
            let sessions = names(
                p.sessions_using
                    .iter()
                    .map(|(s, k)| format!("{s} ({k})"))
                    .collect(),
            );
            lines.push(format!("{verb} {}: {using}; {then}: {sessions}", p.part));
        }
        // A cache step on every trace kind has nothing to say beyond its saving.
        if !lines.is_empty() {
            out.push((e.name.clone(), lines));
        }
    }
    out
}

/// What the prompt cache does to the answer, when some session has one: the same order,
/// or the cost order and its winner. None when every session's cost is flat.
/// The answer in dollars, where the sessions' prices are known: what they cost, measured
/// beside simulated over the sessions with measured usage, and what the best edit by cost
/// saves (docs/model.md §4).
fn money_line(
    by_cost: &[&EditAggregate],
    baseline: &HistoryBaseline,
    measured: Option<&MeasuredTotals>,
) -> Option<String> {
    let money = crate::number::dollars;
    let simulated = baseline.dollars?;
    let n = baseline.sessions;
    let cost = match measured.filter(|m| m.dollar_sessions > 0) {
        Some(m) if m.dollar_sessions == n => format!(
            "Your {} cost {} measured ({} simulated).",
            plural(n, "session", "sessions"),
            money(m.measured_dollars),
            money(m.simulated_dollars)
        ),
        Some(m) => format!(
            "Your {} cost {} simulated; the {} with measured usage cost {} measured ({} simulated).",
            plural(n, "session", "sessions"),
            money(simulated),
            grouped(m.dollar_sessions as f64, 0),
            money(m.measured_dollars),
            money(m.simulated_dollars)
        ),
        None => format!(
            "Your {} cost {} (simulated{}).",
            plural(n, "session", "sessions"),
            money(simulated),
            if baseline.priced_sessions < n {
                format!(
                    ", over the {} priced",
                    grouped(baseline.priced_sessions as f64, 0)
                )
            } else {
                String::new()
            }
        ),
    };
    let best = by_cost.first().filter(|_| baseline.ranked_by_dollars);
    let saving = match best.and_then(|e| Some((e, e.dollars_saved?))) {
        Some((e, saved)) if saved > 0.0 => format!(
            " The top change, {}, saves about {} ({} of the summed dollars).",
            e.name,
            money(saved),
            percent(100.0 * saved / simulated)
        ),
        Some(_) => " No edit saves money.".to_string(),
        None => String::new(),
    };
    Some(format!("{cost}{saving}"))
}

/// Sentences that say where the simulation is not the sessions: how many sessions'
/// simulated cost is more than [`OFF_PCT`] off the measured, naming the first; how many
/// `--max-cost-diff` left out.
fn simulation_differs(measured: Option<&MeasuredTotals>, excluded: &OffSessions) -> Vec<String> {
    let named = |o: &OffSessions| {
        let mut names: Vec<String> = o
            .listed
            .iter()
            .take(NAMED_OFF)
            .map(|(n, d)| format!("{n} {}", crate::number::signed_percent(*d)))
            .collect();
        if o.count > names.len() {
            names.push(format!(
                "and {} more",
                grouped((o.count - names.len()) as f64, 0)
            ));
        }
        names.join(", ")
    };
    let mut lines = Vec::new();
    if let Some(m) = measured.filter(|m| m.off.count > 0) {
        lines.push(format!(
            "{} of the {} with measured usage {} a simulated cost more than {} off the measured ({}): their savings are of a simulation that does not reproduce them (`simulate fit --write` fits them; --max-cost-diff {} leaves them out of the sums).",
            grouped(m.off.count as f64, 0),
            plural(m.sessions, "session", "sessions"),
            if m.off.count == 1 { "has" } else { "have" },
            percent(OFF_PCT),
            named(&m.off),
            OFF_PCT
        ));
    }
    if excluded.count > 0 {
        lines.push(format!(
            "--max-cost-diff left {} out of every sum, their simulated cost too far from the measured: {}.",
            plural(excluded.count, "session", "sessions"),
            named(excluded)
        ));
    }
    lines
}

/// Sessions named per sentence where the simulation is not the sessions.
const NAMED_OFF: usize = 5;

fn cost_answer(
    by_cost: &[&EditAggregate],
    ranked: &[EditAggregate],
    baseline: &HistoryBaseline,
    cost_order: &str,
) -> Option<String> {
    let best = by_cost.first()?;
    if baseline.cached_sessions == 0 || ranked.len() < 2 {
        return None;
    }
    let with_cache = if baseline.cached_sessions == baseline.sessions {
        "every session has a prompt cache".to_string()
    } else {
        format!(
            "{} of {} sessions have a prompt cache; the others cost their reread total",
            grouped(baseline.cached_sessions as f64, 0),
            grouped(baseline.sessions as f64, 0)
        )
    };
    // The best by cost saves nothing or costs more: no winner to name.
    if best.cost_saved <= 0.0 {
        return Some(if best.cost_saved < 0.0 {
            format!(
                "By cost ({with_cache}) every edit costs more than the baseline; the least, {}, by {} of the summed cost.",
                best.name,
                percent(-best.cost_saved_pct)
            )
        } else {
            format!("By cost ({with_cache}) no edit saves any cost.")
        });
    }
    let same = ranked.iter().all(|e| e.rank == e.cost_rank);
    // In dollars the money line has said what the best saves: only the order is left.
    if baseline.ranked_by_dollars {
        return Some(if same {
            "By cost, in dollars, the order is the same.".to_string()
        } else {
            format!("By cost, in dollars, the order differs: {cost_order}.")
        });
    }
    Some(if same {
        format!(
            "By cost ({with_cache}) the order is the same; {} saves {} of the summed cost.",
            best.name,
            percent(best.cost_saved_pct)
        )
    } else {
        let tied: Vec<&str> = by_cost
            .iter()
            .take_while(|e| e.cost_rank == best.cost_rank)
            .map(|e| e.name.as_str())
            .collect();
        format!(
            "By cost ({with_cache}) the order differs: {cost_order}; {}: {} of the summed cost.",
            crate::report::who_saves_most(&tied),
            percent(best.cost_saved_pct)
        )
    })
}
