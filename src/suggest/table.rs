//! A suggestion's table for a person: what the data shows, the top edits with their
//! figures and robustness, each parametric family's Pareto front, and how to rerun.

use super::SuggestReport;
use super::rules::Family;
use crate::number::{dollars, grouped, percent, plural};
use crate::output::table::pad;
use crate::printable::printable;
use std::io::{self, Write};
use std::path::PathBuf;
use unicode_width::UnicodeWidthStr;

/// Widest edit name shown, in columns.
const NAME_COLUMNS: usize = 44;

/// Lines of prose are wrapped to this many columns.
const PROSE_COLUMNS: usize = 100;

/// `text` wrapped at spaces to [`PROSE_COLUMNS`], the first line after `first`, the others
/// after `rest`.
fn prose(out: &mut dyn Write, first: &str, rest: &str, text: &str) -> io::Result<()> {
    // Prose quotes paths and names from the sessions: escaped before it is wrapped.
    let text = printable(text);
    let mut line = first.to_string();
    // After a label the first word needs a space; after an indent it does not.
    let mut empty = first.trim().is_empty();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !empty && line.width() + 1 + word.width() > PROSE_COLUMNS {
            writeln!(out, "{line}")?;
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    writeln!(out, "{line}")
}

/// Writes the table (the `top` edits), then the rerun command and the files written.
pub fn write(
    out: &mut dyn Write,
    r: &SuggestReport,
    top: usize,
    files: &[PathBuf],
) -> io::Result<()> {
    let b = &r.baseline;
    writeln!(
        out,
        "{}: {} found in the data of {} ({}, {}), each evaluated on every session",
        printable(&r.name),
        plural(r.candidates.len(), "candidate edit", "candidate edits"),
        printable(&r.path),
        plural(b.sessions, "session", "sessions"),
        plural(b.calls, "call", "calls")
    )?;
    for s in &r.skipped {
        writeln!(
            out,
            "  skipped {}: {}",
            printable(&s.file),
            printable(&s.reason)
        )?;
    }
    writeln!(
        out,
        "  baseline: reread total {} est. tokens; cost {} input-token equivalents ({} of {} sessions have a prompt cache)",
        grouped(b.total_tokens, 0),
        grouped(b.cost, 0),
        grouped(b.cached_sessions as f64, 0),
        grouped(b.sessions as f64, 0)
    )?;
    if let Some(m) = &r.measured {
        let input =
            100.0 * (m.simulated_input_tokens - m.measured_input_tokens) / m.measured_input_tokens;
        let dollars = if m.dollar_sessions > 0 {
            format!(
                "; dollars {} measured, {} simulated ({}) over the {} priced",
                crate::number::dollars(m.measured_dollars),
                crate::number::dollars(m.simulated_dollars),
                crate::number::signed_percent(
                    100.0 * (m.simulated_dollars - m.measured_dollars) / m.measured_dollars
                ),
                plural(m.dollar_sessions, "session", "sessions")
            )
        } else {
            String::new()
        };
        prose(
            out,
            "  ",
            "    ",
            &format!(
                "measured: {} with the provider's usage: input {} tokens measured, {} est. tokens simulated ({}){dollars}",
                plural(m.sessions, "session", "sessions"),
                grouped(m.measured_input_tokens, 0),
                grouped(m.simulated_input_tokens, 0),
                crate::number::signed_percent(input)
            ),
        )?;
    }
    for line in &r.simulation_differs {
        prose(out, "  Note:", "    ", line)?;
    }
    writeln!(out)?;
    prose(out, "", "", &r.answer)?;
    writeln!(out, "\nWhat the data shows:")?;
    for f in Family::ALL {
        for finding in r.findings.iter().filter(|x| x.family == f) {
            prose(out, &format!("  {}:", f.label()), "      ", &finding.text)?;
        }
    }
    if r.candidates.is_empty() {
        writeln!(
            out,
            "\nNothing to suggest: no rule found an edit in the data (no files written)."
        )?;
        return Ok(());
    }
    let shown = top.min(r.candidates.len());
    // Ranked by dollars where every session is priced: the cost column (input-token
    // equivalents) need not fall in that order, across models' prices.
    let by = if r.baseline.ranked_by_dollars {
        "summed dollars saved"
    } else {
        "summed cost saved"
    };
    writeln!(
        out,
        "\nTop {shown} of {} by {by} (every candidate: suggest.csv):",
        r.candidates.len()
    )?;
    let columns = r
        .candidates
        .iter()
        .take(shown)
        .map(|s| s.name.width())
        .max()
        .unwrap_or(4)
        .clamp(4, NAME_COLUMNS);
    let priced = r.candidates.iter().any(|s| s.priced_sessions > 0);
    let dollar_header = if priced { "  $ saved" } else { "" };
    writeln!(
        out,
        "  rank  {}  {:<16}  {:>11}  {:>7}{dollar_header}  {:>17}  {:>7}  {:>15}  {:>13}  {:>19}  {:>16}  {:>14}",
        pad("edit", columns),
        "family",
        "cost saved",
        "saved",
        "est. tokens saved",
        "saved",
        "context removed",
        "saves cost in",
        "per-session p10–p90",
        "sweep: saves at",
        "stops: re-fetch"
    )?;
    for s in r.candidates.iter().take(shown) {
        let d = &s.per_session_cost_pct;
        let dollar = match (priced, s.dollars_saved) {
            (false, _) => String::new(),
            (true, Some(x)) => format!("  {:>7}", dollars(x)),
            (true, None) => format!("  {:>7}", "—"),
        };
        let ranks = if s.sweep_cost_rank_best == s.sweep_cost_rank_worst {
            format!("rank {}", s.sweep_cost_rank_best)
        } else {
            format!(
                "rank {}–{}",
                s.sweep_cost_rank_best, s.sweep_cost_rank_worst
            )
        };
        writeln!(
            out,
            "  {:>4}  {}  {:<16}  {:>11}  {:>7}{dollar}  {:>17}  {:>7}  {:>15}  {:>13}  {:>19}  {:>16}  {:>14}",
            s.cost_rank,
            pad(&s.name, columns),
            s.family_label,
            grouped(s.cost_saved, 0),
            percent(s.cost_saved_pct),
            // A cache candidate saves no reread token: "cost only", never 0.0 %.
            if s.cost_only() {
                "cost only".to_string()
            } else {
                grouped(s.saved_tokens, 0)
            },
            if s.cost_only() {
                "—".to_string()
            } else {
                percent(s.saved_pct)
            },
            grouped(s.context_removed_tokens, 0),
            format!(
                "{} of {}",
                grouped(s.sessions_saving_cost as f64, 0),
                grouped(s.sessions as f64, 0)
            ),
            format!("{} to {}", percent(d.p10), percent(d.p90)),
            format!(
                "{} of {}, {ranks}",
                s.sweep_points_saving_cost, s.sweep_points
            ),
            s.refetch
                .as_ref()
                .map_or_else(|| "—".to_string(), |r| r.cell())
        )?;
    }
    prose(
        out,
        "  ",
        "   ",
        &format!(
            "(cost saved: {}; saved: of the summed baseline; {}; saves cost in: sessions where the edit saves cost; p10–p90: of each session's own percentage of cost saved, nearest rank; sweep: the points of {} on every session's own B and ρ where the summed cost saving is positive, and the edit's cost rank among all candidates there; stops: the lowest re-fetch rate, of {}, at which the summed saving of an edit that removes results is gone if the agent fetches again that share of what it removes (> the highest: it saves at every one; —: it removes nothing; docs/model.md §11))",
            r.cost_unit,
            r.context_removed,
            r.sweep.grid,
            crate::history::refetch::RATES
                .iter()
                .map(|&p| crate::number::decimal(p))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )?;
    if priced {
        let n = r
            .candidates
            .iter()
            .map(|s| s.priced_sessions)
            .max()
            .unwrap_or(0);
        writeln!(
            out,
            "  ($ saved: at each session's list price ([price]), summed over the {} priced)",
            plural(n, "session", "sessions")
        )?;
    }
    settings(out, r, shown)?;
    if !r.families.is_empty() {
        writeln!(out)?;
        prose(
            out,
            "",
            "",
            "Trade-offs, cost saved against context removed (the Pareto front: the edits of a family that no other, nor doing nothing, beats on both):",
        )?;
        for f in &r.families {
            writeln!(
                out,
                "  {} ({}): {} of {} on the front{}",
                f.label,
                f.chart,
                grouped(f.front.len() as f64, 0),
                plural(f.candidates, "edit", "edits"),
                if f.front.is_empty() {
                    ": no edit of the family saves cost"
                } else {
                    ", least context removed first:"
                }
            )?;
            for s in f
                .front
                .iter()
                .filter_map(|name| r.candidates.iter().find(|s| &s.name == name))
            {
                // In the ranking's unit: dollars where every session is priced.
                let saves = match (r.baseline.ranked_by_dollars, s.dollars_saved, b.dollars) {
                    (true, Some(d), Some(total)) if total > 0.0 => format!(
                        "{} ({} of the summed dollars)",
                        dollars(d),
                        percent(100.0 * d / total)
                    ),
                    _ => format!("{} of the cost", percent(s.cost_saved_pct)),
                };
                writeln!(
                    out,
                    "    {}: saves {saves}, removes {} est. tokens",
                    s.name,
                    grouped(s.context_removed_tokens, 0)
                )?;
            }
        }
    }
    writeln!(out, "\nRerun (the same figures): {}", printable(&r.rerun))?;
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

/// Each shown candidate that saves cost, in the settings of every agent the sessions came
/// from.
fn settings(out: &mut dyn Write, r: &SuggestReport, shown: usize) -> io::Result<()> {
    if r.settings.is_empty() {
        return Ok(());
    }
    let files: Vec<&str> = r
        .agents
        .iter()
        .filter_map(|(a, _)| a.fragment_file())
        .collect();
    let agents: Vec<String> = r
        .agents
        .iter()
        .map(|(a, n)| format!("{} ({})", a.label(), plural(*n, "session", "sessions")))
        .collect();
    writeln!(out)?;
    prose(
        out,
        "",
        "",
        &format!(
            "In your agents' settings (the sessions came from {}{}; keys, their documentation and limits: docs/settings.md):",
            agents.join(", "),
            if files.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} beside suggested.toml hold the keys, each with its saving",
                    files.join(" and ")
                )
            }
        ),
    )?;
    for s in r
        .candidates
        .iter()
        .take(shown)
        .filter(|s| r.settings.iter().any(|h| h.edit == s.name))
    {
        prose(
            out,
            &format!("  {}. {}:", s.cost_rank, s.name),
            "      ",
            &super::settings::saving(s),
        )?;
        // An agent whose sessions it leaves as they are adds nothing to say.
        for h in r
            .settings
            .iter()
            .filter(|h| h.edit == s.name && (h.saves || h.changes()))
        {
            // Over that agent's sessions alone: its setting changes no other's.
            let how = if h.saves {
                h.how.clone()
            } else {
                "not in its settings".to_string()
            };
            // The re-fetch clause over this agent's sessions, where it is not the total's.
            let how = match (&h.refetch, &s.refetch) {
                (Some(mine), Some(all)) if h.saves && *mine != all.clause() => {
                    format!("{how}; over its sessions it {mine}")
                }
                _ => how,
            };
            prose(
                out,
                &format!(
                    "      {}, {}:",
                    h.agent.label(),
                    super::settings::agent_saving(h, "its")
                ),
                "        ",
                &how,
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_at_spaces() {
        let mut out = Vec::new();
        prose(&mut out, "  a:", "    ", &"word ".repeat(40)).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().all(|l| l.width() <= PROSE_COLUMNS), "{text}");
        assert!(text.starts_with("  a: word"));
        assert!(text.lines().skip(1).all(|l| l.starts_with("    word")));
    }

    #[test]
    fn names_are_padded_or_cut() {
        assert_eq!(pad("cap", 5), "cap  ");
        assert_eq!(pad("context editing at 45,000", 10), "context e…");
    }
}
