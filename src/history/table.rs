//! The history's table for a person: what was summed, the ranked edits with their spread
//! over sessions, and whether the order holds across sessions and assumptions.

use super::HistoryReport;
use super::report::AgreementReport;
use crate::number::{grouped, percent, plural};
use crate::output::table::pad;
use crate::printable::printable;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::PathBuf;
use unicode_width::UnicodeWidthStr;

/// Widest edit name shown in the table, in columns.
const NAME_COLUMNS: usize = 36;

/// Flips shown per kind (across sessions, across assumptions) unless `--verbose`: those
/// that touch the edits ranked first, the most frequent first; `flips.csv` and the report
/// have every one.
pub const FLIPS_SHOWN: usize = 3;

/// Writes the table, then the paths of the files written; `verbose` lists every flip.
pub fn write(
    out: &mut dyn Write,
    r: &HistoryReport,
    files: &[PathBuf],
    verbose: bool,
) -> io::Result<()> {
    let shown = (!verbose).then_some(FLIPS_SHOWN);
    let ranked: Vec<&str> = r.edits.iter().map(|e| e.name.as_str()).collect();
    header(out, r)?;
    measured(out, r)?;
    writeln!(out, "\n{}", printable(&r.answer))?;
    edits(out, r)?;
    refetch(out, r)?;
    if let Some(groups) = &r.groups {
        group_table(out, r, groups)?;
    }
    // Sessions whose reread total no edit changes keep any order, so they are not counted.
    let sessions = if r.unchanged.left_out() == 0 {
        "sessions"
    } else {
        r.unchanged.counted_words()
    };
    writeln!(out, "\nAcross sessions:")?;
    agreement_lines(out, ("in", sessions), &r.across_sessions, shown, &ranked)?;
    let a = &r.across_assumptions;
    writeln!(
        out,
        "\nAcross assumptions ({} on every session's own values, {}):",
        a.grid,
        plural(a.factors.len(), "point", "points"),
    )?;
    agreement_lines(out, ("at", "points"), &a.agreement, shown, &ranked)?;
    let nothing: Vec<&super::EditAggregate> = r
        .edits
        .iter()
        .filter(|e| e.sessions_selected_nothing > 0)
        .collect();
    if !nothing.is_empty() {
        writeln!(
            out,
            "\nRules that selected no call, or stand for another provider's mechanism than the session's (not an error: the rule changes nothing in those sessions):"
        )?;
        for e in nothing {
            writeln!(
                out,
                "  {}: {} in {} of {} sessions",
                printable(&e.name),
                printable(&e.rules_selecting_nothing.join(", ")),
                grouped(e.sessions_selected_nothing as f64, 0),
                grouped(r.baseline.sessions as f64, 0)
            )?;
        }
    }
    let what_if = super::report::what_if_lines(r);
    if !what_if.is_empty() {
        writeln!(out, "\nWhat the what-if edits change:")?;
        for (name, lines) in what_if {
            let name = printable(&name);
            for (k, line) in lines.iter().enumerate() {
                let line = printable(line);
                if k == 0 {
                    writeln!(out, "  {name}: {line}")?;
                } else {
                    writeln!(out, "    {line}")?;
                }
            }
        }
    }
    let clamped = super::report::base_clamp_lines(r, super::report::NAMED_PER_BASE_NOTE);
    if !clamped.is_empty() {
        writeln!(
            out,
            "\nBase edits larger than a session's base (not an error: the edit removes what there is):"
        )?;
        for line in clamped {
            writeln!(out, "  {}", printable(&line))?;
        }
    }
    for w in &r.warnings {
        writeln!(
            out,
            "Warning: {} ({})",
            printable(&w.warning),
            plural(w.sessions, "session", "sessions")
        )?;
    }
    if !files.is_empty() {
        writeln!(out, "\nWritten:")?;
        for f in files {
            writeln!(out, "  {}", crate::printable::path(f))?;
        }
    }
    Ok(())
}

/// `fitted in 8, assumed in 4`.
fn counts(sources: &BTreeMap<String, usize>) -> String {
    sources
        .iter()
        .map(|(kind, n)| format!("{kind} in {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn header(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let b = &r.baseline;
    writeln!(
        out,
        "{}: {} from {}, each with the edits of {}",
        printable(&r.name),
        plural(b.sessions, "session", "sessions"),
        printable(&r.directory),
        printable(&r.edits_file)
    )?;
    if !r.merged_from.is_empty() {
        writeln!(
            out,
            "  merged from {}: {}",
            plural(r.merged_from.len(), "shard", "shards"),
            printable(&r.merged_from.join(", "))
        )?;
    }
    for s in &r.skipped {
        let file = crate::printable::printable(&s.file);
        writeln!(out, "  skipped {file}: {}", printable(&s.reason))?;
    }
    writeln!(
        out,
        "  each session at its own B and ρ: B {}; ρ {}",
        counts(&r.base_tokens_sources),
        counts(&r.bytes_per_token_sources)
    )?;
    writeln!(out, "  unit: {}", r.unit)?;
    writeln!(
        out,
        "  baseline: reread total {} est. tokens over {}; average call {} est. tokens",
        grouped(b.total_tokens, 0),
        plural(b.calls, "call", "calls"),
        grouped(b.average_call_tokens, 0)
    )
}

/// Measured beside simulated over the sessions with measured usage, and where the
/// simulation is not the sessions: said before the answer.
fn measured(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    if let Some(m) = r
        .measured
        .as_ref()
        .filter(|m| m.breaks.iter().any(|(_, s)| s.count > 0))
    {
        writeln!(
            out,
            "  cache breaks over the sessions (requests that read less than a perfect prefix cache; written × (write − read) at each request's model):"
        )?;
        crate::output::breaks::by_class(out, &m.breaks, "    ")?;
    }
    if let Some(m) = &r.measured {
        let input = crate::number::signed_percent(
            100.0 * (m.simulated_input_tokens - m.measured_input_tokens) / m.measured_input_tokens,
        );
        writeln!(
            out,
            "  measured: {} with the provider's usage: input {} tokens measured, {} est. tokens simulated ({input})",
            plural(m.sessions, "session", "sessions"),
            grouped(m.measured_input_tokens, 0),
            grouped(m.simulated_input_tokens, 0),
        )?;
        if m.dollar_sessions > 0 {
            let d = 100.0 * (m.simulated_dollars - m.measured_dollars) / m.measured_dollars;
            writeln!(
                out,
                "            dollars {} measured, {} simulated ({}) over the {} priced",
                crate::number::dollars(m.measured_dollars),
                crate::number::dollars(m.simulated_dollars),
                crate::number::signed_percent(d),
                plural(m.dollar_sessions, "session", "sessions")
            )?;
        }
    }
    for line in &r.simulation_differs {
        writeln!(out, "  Note: {}", printable(line))?;
    }
    Ok(())
}

fn edits(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let n = r.baseline.sessions;
    // First in counts only the sessions some edit changes the reread total of.
    let changed = r.unchanged.counted();
    let columns = r
        .edits
        .iter()
        .map(|e| printable(&e.row_name()).width())
        .max()
        .unwrap_or(4)
        .clamp(4, NAME_COLUMNS);
    writeln!(
        out,
        "\nEdits, ranked by their saving summed over all sessions:"
    )?;
    writeln!(
        out,
        "  rank  {}  {:>18}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}",
        pad("edit", columns),
        "saved est. tokens",
        "saved",
        "median",
        "p10",
        "p90",
        "first in"
    )?;
    for e in &r.edits {
        let d = &e.per_session_pct;
        // A cache or model edit that changes cost alone saves no reread token anywhere:
        // its row says so rather than 0.0 %.
        let cost_only = e.cost_only();
        let shown = |x: f64| {
            if cost_only {
                "—".to_string()
            } else {
                percent(x)
            }
        };
        writeln!(
            out,
            "  {:>4}  {}  {:>18}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}",
            e.rank,
            pad(&printable(&e.row_name()), columns),
            if cost_only {
                "cost only".to_string()
            } else {
                grouped(e.saved_tokens, 0)
            },
            shown(e.saved_pct),
            shown(d.median),
            shown(d.p10),
            shown(d.p90),
            // No session changed: first in counts nothing, so it shows nothing.
            if changed == 0 {
                "—".to_string()
            } else {
                format!(
                    "{} of {}",
                    grouped(e.sessions_first as f64, 0),
                    grouped(changed as f64, 0)
                )
            }
        )?;
    }
    let of_changed = if r.unchanged.left_out() > 0 {
        format!(
            ",\n   of the {} {}",
            grouped(changed as f64, 0),
            r.unchanged.counted_words()
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "  (saved: of the summed baseline; median, p10, p90: of each session's own percentage,\n   nearest-rank; first in: sessions where the edit ranks first, a tie counting for each{of_changed})"
    )?;
    if let Some(line) = r.unchanged.line() {
        writeln!(out, "  {line}")?;
    }
    // An edit that removes more base than a session has saves that session's whole base:
    // its per-session figures (p90 at 100 %, first in) lean on those sessions. Said here,
    // beside the figures, and listed below.
    for e in &r.edits {
        let clamped = e.base_clamped.iter().filter(|c| c.at_nominal).count();
        if clamped > 0 {
            writeln!(
                out,
                "  {}: removes more than the base of {} of {n} sessions, which then save their whole base (up to 100 %): its median, p90 and first in lean on them (listed below)",
                printable(&e.name),
                grouped(clamped as f64, 0)
            )?;
        }
    }
    if r.baseline.ranked_by_dollars {
        dollars_table(out, r, columns)?;
    } else if r.baseline.cached_sessions > 0 {
        writeln!(
            out,
            "\nBy cost (input-token equivalents under each session's prompt cache; {} of {} sessions\nhave a [cache]; summed baseline cost {}):",
            grouped(r.baseline.cached_sessions as f64, 0),
            grouped(n as f64, 0),
            grouped(r.baseline.cost, 0),
        )?;
        let priced = r.edits.iter().map(|e| e.priced_sessions).max().unwrap_or(0);
        let dollars_header = if priced > 0 { "  $ saved" } else { "" };
        writeln!(
            out,
            "  rank  {}  {:>18}  {:>7}  {:>10}{dollars_header}",
            pad("edit", columns),
            "cost saved",
            "saved",
            "token rank"
        )?;
        let mut by_cost: Vec<&super::EditAggregate> = r.edits.iter().collect();
        // Stable: ties keep the token ranking's order, as the cost order line does.
        by_cost.sort_by_key(|e| e.cost_rank);
        for e in by_cost {
            let dollars = match (priced, e.dollars_saved) {
                (0, _) => String::new(),
                (_, Some(d)) => format!("  {:>7}", crate::number::dollars(d)),
                (_, None) => format!("  {:>7}", "—"),
            };
            writeln!(
                out,
                "  {:>4}  {}  {:>18}  {:>7}  {:>10}{dollars}",
                e.cost_rank,
                pad(&printable(&e.row_name()), columns),
                grouped(e.cost_saved, 0),
                percent(e.cost_saved_pct),
                e.rank
            )?;
        }
        if priced > 0 {
            writeln!(
                out,
                "  ($ saved: at each session's list price ([price]), summed over the {} priced)",
                plural(priced, "session", "sessions")
            )?;
        }
    }
    Ok(())
}

/// What the agent does next (docs/model.md §11): one line per edit that removes results,
/// its summed saving at each swept re-fetch rate and where that stops.
fn refetch(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let removing: Vec<(&super::EditAggregate, &super::refetch::RefetchAggregate)> = r
        .edits
        .iter()
        .filter_map(|e| Some((e, e.refetch.as_ref()?)))
        .collect();
    let Some((_, first)) = removing.first() else {
        return Ok(());
    };
    let (what, unit) = if first.measure == "dollars" {
        ("$ saved", "")
    } else {
        ("cost saved", "input-token equivalents; ")
    };
    writeln!(
        out,
        "\nIf the agent fetches again what an edit removes (docs/model.md §11), summed {what} at\nre-fetch {} ({unit}each session at its own B and ρ):",
        first.rates()
    )?;
    for (e, a) in removing {
        let cells: Vec<String> = a.by_rate.iter().map(|x| a.shown(x)).collect();
        writeln!(
            out,
            "  {}: {}; {}",
            printable(&e.name),
            cells.join(", "),
            a.stops()
        )?;
    }
    if let Some(h) = super::refetch::ranking_holds(&r.edits) {
        writeln!(out, "  Over every edit, {}.", printable(&h.sentence()))?;
    }
    Ok(())
}

/// The cost ranking in dollars, every session priced: each call at its own model's prices,
/// output included (docs/model.md §4).
fn dollars_table(out: &mut dyn Write, r: &HistoryReport, columns: usize) -> io::Result<()> {
    let total = r.baseline.dollars.unwrap_or(0.0);
    writeln!(
        out,
        "\nBy cost, in dollars (each call at its own model's list price, output included; summed\nbaseline {} over {}):",
        crate::number::dollars(total),
        plural(r.baseline.sessions, "session", "sessions"),
    )?;
    writeln!(
        out,
        "  rank  {}  {:>10}  {:>7}  {:>10}",
        pad("edit", columns),
        "$ saved",
        "saved",
        "token rank"
    )?;
    let mut by_cost: Vec<&super::EditAggregate> = r.edits.iter().collect();
    by_cost.sort_by_key(|e| e.cost_rank);
    for e in by_cost {
        let saved = e.dollars_saved.unwrap_or(0.0);
        writeln!(
            out,
            "  {:>4}  {}  {:>10}  {:>7}  {:>10}",
            e.cost_rank,
            pad(&printable(&e.row_name()), columns),
            crate::number::dollars(saved),
            percent(if total > 0.0 {
                100.0 * saved / total
            } else {
                0.0
            }),
            e.rank
        )?;
    }
    Ok(())
}

/// Groups shown in the table, the largest baselines first (`groups.csv` has them all).
pub const GROUP_ROWS: usize = 30;

/// Widest group name shown, in columns.
const GROUP_COLUMNS: usize = 30;

/// One row per group (the largest baselines first): its sessions and baseline, each edit's
/// share of the group's own baseline, in the whole's order, and what saves the most there.
fn group_table(
    out: &mut dyn Write,
    r: &HistoryReport,
    g: &super::groups::GroupsReport,
) -> io::Result<()> {
    let n = g.groups.len();
    let shown = super::report::largest_groups(g, GROUP_ROWS);
    let what = g.by.key();
    let more = if n > shown.len() {
        format!(
            "; the {} largest by baseline, groups.csv has every one",
            shown.len()
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "\nBy {what} ({}; percent saved of each {what}'s own summed baseline{more}):",
        plural(n, what, g.by.plural()),
    )?;
    let columns = shown
        .iter()
        .map(|x| printable(&x.group).width())
        .max()
        .unwrap_or(4)
        .clamp(what.width(), GROUP_COLUMNS);
    let order: Vec<usize> = r.edits.iter().map(|e| e.index).collect();
    let mut head = format!(
        "  {}  {:>8}  {:>10}  {:>18}",
        pad(what, columns),
        "sessions",
        "calls",
        "baseline est. tokens"
    );
    for k in 1..=order.len() {
        head.push_str(&format!("  {:>7}", format!("#{k}")));
    }
    writeln!(out, "{head}  saves the most")?;
    for x in shown {
        let mut row = format!(
            "  {}  {:>8}  {:>10}  {:>18}",
            pad(&printable(&x.group), columns),
            grouped(x.sessions as f64, 0),
            grouped(x.calls as f64, 0),
            grouped(x.baseline_total_tokens, 0)
        );
        for &i in &order {
            row.push_str(&format!("  {:>7}", percent(x.edits[i].saved_pct)));
        }
        writeln!(
            out,
            "{row}  {}",
            printable(&super::report::group_winner(r, x))
        )?;
    }
    let legend: Vec<String> = r
        .edits
        .iter()
        .enumerate()
        .map(|(k, e)| format!("#{} {}", k + 1, printable(&e.name)))
        .collect();
    writeln!(
        out,
        "  (#1 … #{}: the edits in the order of the whole: {})",
        order.len(),
        legend.join(", ")
    )
}

/// `items` is how to say where: `("in", "sessions")` or `("at", "points")`.
/// Whether the order holds, then the flips: at most `shown` (None: every one), those that
/// matter first: a pair's better rank in the aggregate (`ranked`, best first), then how
/// often it flips.
fn agreement_lines(
    out: &mut dyn Write,
    (preposition, items): (&str, &str),
    a: &AgreementReport,
    shown: Option<usize>,
    ranked: &[&str],
) -> io::Result<()> {
    if a.of == 0 {
        // Every item ties at 0 (no edit changes a reread total there; a cost may
        // change): nothing to hold.
        return writeln!(
            out,
            "  no {items}: no edit changes a reread total, so there is no order to hold"
        );
    }
    let holds = if a.holds { "holds" } else { "does not hold" };
    writeln!(
        out,
        "  the aggregate order {holds}: {} of {} {items} keep it; {} of {} keep its winner",
        grouped(a.matching_order as f64, 0),
        grouped(a.of as f64, 0),
        grouped(a.matching_winner as f64, 0),
        grouped(a.of as f64, 0)
    )?;
    let rank = |name: &str| ranked.iter().position(|n| *n == name).unwrap_or(usize::MAX);
    let mut flips: Vec<&super::report::FlipReport> = a.flips.iter().collect();
    if shown.is_some() {
        flips.sort_by_key(|f| (rank(&f.a).min(rank(&f.b)), std::cmp::Reverse(f.count)));
    }
    let limit = shown.unwrap_or(usize::MAX);
    for f in flips.iter().take(limit) {
        let more = if f.count > f.where_.len() {
            format!(
                ", and {} more",
                grouped((f.count - f.where_.len()) as f64, 0)
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {} saves more than {} {preposition} {} of {} {items}: {}{more}",
            printable(&f.b),
            printable(&f.a),
            grouped(f.count as f64, 0),
            grouped(a.of as f64, 0),
            printable(&f.where_.join("; "))
        )?;
    }
    if flips.len() > limit {
        writeln!(
            out,
            "  and {} more that flip: every one in flips.csv and report.html, or with --verbose",
            plural(flips.len() - limit, "pair", "pairs")
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_padded_or_cut_to_their_column() {
        assert_eq!(pad("cap", 6), "cap   ");
        assert_eq!(pad("clear stale results", 8), "clear s…");
        assert_eq!(pad("日本", 6), "日本  ");
    }
}
