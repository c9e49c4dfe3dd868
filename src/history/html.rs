//! A history's `report.html`: one self-contained page (styles and charts inline), in the
//! same look as a single scenario's report.

use super::HistoryReport;
use super::report::AgreementReport;
use crate::number::{decimal, grouped, percent, plural};
use crate::output::html::{STYLE, escape, figures};
use crate::output::html_live::{self, Axis, Form, Live, LiveEdit, LiveGrid, TIE_TOLERANCE};
use std::io::{self, Write};

/// Sessions listed on the page; `sessions.csv` has them all.
const MAX_SESSION_ROWS: usize = super::report::LISTED_SESSIONS;

/// The live data of a history's page: the factors on every session's B and ρ over the
/// swept factors, each edit's summed closed form, and for an edit without one (some
/// session replays it) its summed savings at the factor grid's points. None without edits.
fn live(r: &HistoryReport) -> Option<Live> {
    let a = &r.across_assumptions;
    let baseline = a.closed_forms.first().copied().flatten()?;
    if r.edits.is_empty() {
        return None;
    }
    let (xs, vs) = (&a.factors.base_tokens, &a.factors.bytes_per_token);
    // Grid order is base factors outermost, the layout the page reads.
    let complete = a.points.len() == xs.len() * vs.len();
    let mut edits: Vec<LiveEdit> = r
        .edits
        .iter()
        .map(|e| {
            let form = a.closed_forms.get(e.index + 1).copied().flatten();
            let sampled = form
                .is_none()
                .then(|| {
                    a.points
                        .iter()
                        .map(|p| p.saved_tokens.get(e.index).copied())
                        .collect::<Option<Vec<f64>>>()
                })
                .flatten()
                .filter(|_| complete);
            LiveEdit {
                nominal_saved: sampled.as_ref().map(|_| e.saved_tokens),
                sampled,
                ..LiveEdit::new(e.name.clone(), e.index, form.map(|f| Form::from(&f)))
            }
        })
        .collect();
    edits.sort_by_key(|e| e.index);
    let grid = edits.iter().any(|e| e.sampled.is_some()).then(|| LiveGrid {
        x: xs.clone(),
        v: vs.clone(),
    });
    Some(Live {
        kind: "history",
        x: Axis::over("B_factor", xs, 1.0),
        v: Axis::over("rho_factor", vs, 1.0),
        calls: r.baseline.calls as f64,
        baseline: Form::from(&baseline),
        edits,
        grid,
        cost: None,
        tie_tolerance: TIE_TOLERANCE,
    })
}

/// Writes the page for `report` with `charts` (file name, SVG text) inline.
pub fn write(out: &mut dyn Write, r: &HistoryReport, charts: &[(&str, String)]) -> io::Result<()> {
    writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{} — simulate history</title>\n<style>{STYLE}{}</style>\n</head>\n<body>",
        escape(&r.name),
        html_live::STYLE
    )?;
    writeln!(out, "<h1>{}: many sessions</h1>", escape(&r.name))?;
    writeln!(out, "<p class=\"answer\">{}</p>", escape(&r.answer))?;
    for w in &r.warnings {
        writeln!(
            out,
            "<p class=\"warning\"><b>Warning:</b> {} ({})</p>",
            escape(&w.warning),
            plural(w.sessions, "session", "sessions")
        )?;
    }
    what_was_summed(out, r)?;
    let live = live(r);
    edits(out, r, live.as_ref())?;
    groups(out, r)?;
    what_if(out, r)?;
    refetch(out, r)?;
    base_clamps(out, r)?;
    let counted = if r.unchanged.left_out() == 0 {
        "sessions"
    } else {
        r.unchanged.counted_words()
    };
    agreement(out, "Across sessions", counted, &r.across_sessions)?;
    assumptions(out, r)?;
    figures(out, charts)?;
    sessions(out, r)?;
    if let Some(live) = &live {
        html_live::script(out, live)?;
    }
    writeln!(
        out,
        "<p class=\"note\">Made by simulate from {} with the edits of {}. A reread total is a relative yardstick for comparing edits, not a bill.</p>\n</body>\n</html>",
        escape(&r.directory),
        escape(&r.edits_file)
    )
}

fn what_was_summed(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let counts = |m: &std::collections::BTreeMap<String, usize>| {
        m.iter()
            .map(|(k, n)| format!("{k} in {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let b = &r.baseline;
    writeln!(out, "<h2>What was summed</h2>\n<dl>")?;
    let rows = [
        ("Directory", r.directory.clone()),
        ("Edits file", r.edits_file.clone()),
        ("Sessions", grouped(b.sessions as f64, 0)),
        ("Calls", grouped(b.calls as f64, 0)),
        (
            "Base tokens B",
            format!("each session's own: {}", counts(&r.base_tokens_sources)),
        ),
        (
            "Bytes per token ρ",
            format!("each session's own: {}", counts(&r.bytes_per_token_sources)),
        ),
        ("Unit", r.unit.clone()),
        (
            "Baseline",
            format!(
                "reread total {} est. tokens; average call {} est. tokens",
                grouped(b.total_tokens, 0),
                grouped(b.average_call_tokens, 0)
            ),
        ),
    ];
    for (k, v) in rows {
        writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v))?;
    }
    for s in &r.skipped {
        writeln!(
            out,
            "<dt>Skipped</dt><dd>{}: {}</dd>",
            escape(&s.file),
            escape(&s.reason)
        )?;
    }
    writeln!(out, "</dl>")
}

fn edits(out: &mut dyn Write, r: &HistoryReport, live: Option<&Live>) -> io::Result<()> {
    let n = grouped(r.baseline.sessions as f64, 0);
    // First in counts only the sessions some edit changes the reread total of.
    let changed = grouped(r.unchanged.counted() as f64, 0);
    let count = |x: usize| grouped(x as f64, 0);
    let priced = r.edits.iter().map(|e| e.priced_sessions).max().unwrap_or(0);
    writeln!(
        out,
        "<h2>Edits, ranked by their saving summed over all sessions</h2>"
    )?;
    if let Some(live) = live {
        html_live::panel(
            out,
            live,
            "the other columns (greyed) stay at the nominal point: the per-session spread and counts are at every session's own B and ρ, and the cost columns are priced there",
        )?;
    }
    writeln!(
        out,
        "<div class=\"scroll\"><table id=\"edits\">\n<thead><tr><th>rank</th><th class=\"name\">edit</th><th>saved est. tokens</th><th>saved</th><th>equiv. calls</th><th>median session</th><th>p10</th><th>p90</th><th>first in</th><th>saves in</th><th>adds in</th><th>selects nothing in</th><th>cost saved, % of input-token eq.</th><th>cost rank{}</th>{}</tr></thead>\n<tbody>",
        if r.baseline.ranked_by_dollars {
            " (by $)"
        } else {
            ""
        },
        if priced > 0 {
            "<th>$ saved, USD</th>"
        } else {
            ""
        }
    )?;
    for e in &r.edits {
        let d = &e.per_session_pct;
        // A cache or model edit that changes cost alone saves no reread token anywhere:
        // its row says so rather than 0.0 %, as the table does.
        let cost_only = e.cost_only();
        let shown = |text: String| if cost_only { "—".to_string() } else { text };
        // Nor do the live sliders write a reread-token figure into it.
        let (saved_class, pct_class, equiv_class) = if cost_only {
            ("", "", "")
        } else {
            (" saved", " pct", " equiv")
        };
        writeln!(
            out,
            "<tr data-edit=\"{}\"><td class=\"moves rank\">{}</td><td class=\"name\">{}</td><td class=\"moves{saved_class}\">{}</td><td class=\"moves{pct_class}\">{}</td><td class=\"moves{equiv_class}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} of {changed}</td><td>{} of {n}</td><td>{} of {n}</td><td>{} of {n}</td><td>{}</td><td>{}</td>{}</tr>",
            e.index,
            e.rank,
            escape(&e.row_name()),
            if cost_only {
                "cost only".to_string()
            } else {
                grouped(e.saved_tokens, 0)
            },
            shown(percent(e.saved_pct)),
            shown(grouped(e.equivalent_calls, 2)),
            shown(percent(d.median)),
            shown(percent(d.p10)),
            shown(percent(d.p90)),
            count(e.sessions_first),
            count(e.sessions_saving),
            count(e.sessions_adding),
            count(e.sessions_selected_nothing),
            percent(e.cost_saved_pct),
            e.cost_rank,
            match (priced, e.dollars_saved) {
                (0, _) => String::new(),
                (_, Some(d)) => format!("<td>{}</td>", crate::number::dollars(d)),
                (_, None) => "<td>—</td>".to_string(),
            },
        )?;
    }
    writeln!(
        out,
        "</tbody></table></div>\n<p class=\"note\">saved: of the summed baseline reread totals; equiv. calls: the saving in average baseline calls over all sessions; median, p10, p90: of each session's own percentage, nearest-rank; first in: sessions where the edit ranks first (a tie counts for each tied edit){}; selects nothing in: sessions where a rule of the edit matched no call, or stood for another provider's mechanism than the session ran on (that rule changes nothing there; not an error); cost saved: the cost saved in input-token equivalents (each session under its own prompt cache), as a percentage of the summed baseline cost in the same unit; cost rank: the edit's place when ranked by cost saved{}{}.</p>",
        if r.unchanged.left_out() > 0 {
            format!(", of the {changed} {}", r.unchanged.counted_words())
        } else {
            String::new()
        },
        if r.baseline.ranked_by_dollars {
            " in dollars, every session being priced"
        } else {
            ""
        },
        if priced > 0 {
            format!(
                "; $ saved: US dollars, simulated, each call at its model's list price ([price] or the price data), summed over the {} priced",
                crate::number::plural(priced, "session", "sessions")
            )
        } else {
            String::new()
        }
    )?;
    if let Some(line) = r.unchanged.line() {
        writeln!(
            out,
            "<p class=\"note\">{}.</p>",
            escape(&capitalised(&line))
        )?;
    }
    if let Some(live) = live {
        html_live::after_table(out, live)?;
    }
    Ok(())
}

/// With `--group-by`: one row per group (the largest baselines first, up to
/// [`MAX_SESSION_ROWS`]), each edit's share of the group's own baseline, and what saves the
/// most there.
fn groups(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let Some(g) = &r.groups else {
        return Ok(());
    };
    let what = g.by.key();
    let shown = super::report::largest_groups(g, MAX_SESSION_ROWS);
    writeln!(
        out,
        "<h2>By {what}</h2>\n<p class=\"note\">{}: each row sums that {what}'s sessions; percent saved of its own summed baseline{}. A session without a {what} is in <i>{}</i>.</p>",
        escape(&capitalised(&plural(g.groups.len(), what, g.by.plural()))),
        if shown.len() < g.groups.len() {
            format!(
                "; the {} largest by baseline (groups.csv has every one)",
                shown.len()
            )
        } else {
            String::new()
        },
        escape(g.by.unknown())
    )?;
    write!(
        out,
        "<div class=\"scroll\"><table id=\"groups\">\n<tr><th class=\"name\">{what}</th><th>sessions</th><th>calls</th><th>baseline est. tokens</th>"
    )?;
    for e in &r.edits {
        write!(out, "<th class=\"edit\">{}</th>", escape(&e.name))?;
    }
    writeln!(out, "<th class=\"name\">saves the most</th></tr>")?;
    for x in shown {
        write!(
            out,
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td>",
            escape(&x.group),
            grouped(x.sessions as f64, 0),
            grouped(x.calls as f64, 0),
            grouped(x.baseline_total_tokens, 0)
        )?;
        for e in &r.edits {
            let pct = percent(x.edits[e.index].saved_pct);
            if x.edits[e.index].rank == 1
                && x.sessions_unchanged + x.sessions_cost_only < x.sessions
            {
                write!(out, "<td><b>{pct}</b></td>")?;
            } else {
                write!(out, "<td>{pct}</td>")?;
            }
        }
        writeln!(
            out,
            "<td class=\"name\">{}</td></tr>",
            escape(&super::report::group_winner(r, x))
        )?;
    }
    writeln!(out, "</table></div>")
}

/// `line` with its first letter in upper case.
fn capitalised(line: &str) -> String {
    let mut chars = line.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

/// What each what-if edit changes over the sessions (docs/model.md §9).
fn what_if(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let edits = super::report::what_if_lines(r);
    if edits.is_empty() {
        return Ok(());
    }
    writeln!(out, "<h2>What the what-if edits change</h2>\n<ul>")?;
    for (name, lines) in edits {
        let lines: Vec<String> = lines.iter().map(|l| escape(l)).collect();
        writeln!(
            out,
            "<li><b>{}</b>: {}</li>",
            escape(&name),
            lines.join("; ")
        )?;
    }
    writeln!(out, "</ul>")
}

/// What the agent does next (docs/model.md §11): each edit that removes results, its
/// summed saving at each re-fetch rate, and where that stops.
fn refetch(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let rows: Vec<crate::output::html_refetch::Row> = r
        .edits
        .iter()
        .filter_map(|e| {
            let a = e.refetch.as_ref()?;
            Some(crate::output::html_refetch::Row {
                name: e.name.clone(),
                cells: a.by_rate.iter().map(|x| a.shown(x)).collect(),
                stops: a.stops(),
            })
        })
        .collect();
    let by_dollars = r
        .edits
        .iter()
        .filter_map(|e| e.refetch.as_ref())
        .any(|a| a.measure == "dollars");
    let note = super::refetch::NOTE;
    let unit = if by_dollars {
        "$ saved at"
    } else {
        "cost saved at"
    };
    crate::output::html_refetch::section(out, note, unit, &super::refetch::RATES, &rows)
}

/// The base edits larger than some session's base, every session named.
fn base_clamps(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let lines = super::report::base_clamp_lines(r, MAX_SESSION_ROWS);
    if lines.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<h2>Base edits larger than a session's base</h2>\n<p class=\"note\">Not an error: the edit removes what there is (B = 0 in that session, or at those points of the factor sweep, where that session is replayed). Where B = 0 at the session's own B, its cell in the sessions table is marked †.</p>\n<ul>"
    )?;
    for line in lines {
        writeln!(out, "<li>{}</li>", escape(&line))?;
    }
    writeln!(out, "</ul>")
}

fn agreement(out: &mut dyn Write, title: &str, items: &str, a: &AgreementReport) -> io::Result<()> {
    writeln!(out, "<h2>{}</h2>", escape(title))?;
    if a.of == 0 {
        return writeln!(
            out,
            "<p>No {}: no edit changes a reread total, so there is no order to hold.</p>",
            escape(items)
        );
    }
    let class = if a.holds { "holds" } else { "flips" };
    writeln!(
        out,
        "<p class=\"{class}\">The aggregate order {}: {} of {} {items} keep it; {} of {} keep its winner.</p>",
        if a.holds { "holds" } else { "does not hold" },
        grouped(a.matching_order as f64, 0),
        grouped(a.of as f64, 0),
        grouped(a.matching_winner as f64, 0),
        grouped(a.of as f64, 0)
    )?;
    if !a.flips.is_empty() {
        writeln!(
            out,
            "<table>\n<tr><th class=\"name\">saves more</th><th class=\"name\">than (in the aggregate)</th><th>{items}</th><th class=\"text\">where</th></tr>"
        )?;
        for f in &a.flips {
            let more = if f.count > f.where_.len() {
                format!("; and {} more", f.count - f.where_.len())
            } else {
                String::new()
            };
            writeln!(
                out,
                "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{} of {}</td><td class=\"text\">{}{more}</td></tr>",
                escape(&f.b),
                escape(&f.a),
                grouped(f.count as f64, 0),
                grouped(a.of as f64, 0),
                escape(&f.where_.join("; "))
            )?;
        }
        writeln!(out, "</table>")?;
    }
    Ok(())
}

fn assumptions(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let a = &r.across_assumptions;
    agreement(out, "Across assumptions", "points", &a.agreement)?;
    writeln!(
        out,
        "<p class=\"note\">Grid: {} applied to every session's own values ({}). Percent saved of the summed baseline at each point:</p>",
        escape(&a.grid),
        escape(a.method)
    )?;
    let mut names = vec![""; r.edits.len()];
    for e in &r.edits {
        if let Some(slot) = names.get_mut(e.index) {
            *slot = &e.name;
        }
    }
    write!(
        out,
        "<div class=\"scroll\"><table>\n<tr><th>B ×</th><th>ρ ×</th>"
    )?;
    for n in &names {
        write!(out, "<th class=\"edit\">{}</th>", escape(n))?;
    }
    // The whole order is in the percentages; the column names what saves the most.
    writeln!(out, "<th class=\"name\">saves the most</th></tr>")?;
    for p in &a.points {
        write!(
            out,
            "<tr><td>{}</td><td>{}</td>",
            escape(&super::factors::label(p.base_factor)),
            escape(&super::factors::label(p.bytes_per_token_factor))
        )?;
        for pct in &p.saved_pct {
            write!(out, "<td>{}</td>", percent(*pct))?;
        }
        let first: Vec<&str> = p
            .order
            .iter()
            .filter(|&&i| p.ranks.get(i) == Some(&1))
            .filter_map(|&i| names.get(i).copied())
            .collect();
        writeln!(
            out,
            "<td class=\"name\">{}</td></tr>",
            escape(&first.join(" = "))
        )?;
    }
    writeln!(out, "</table></div>")
}

fn sessions(out: &mut dyn Write, r: &HistoryReport) -> io::Result<()> {
    let mut names = vec![""; r.edits.len()];
    for e in &r.edits {
        if let Some(slot) = names.get_mut(e.index) {
            *slot = &e.name;
        }
    }
    writeln!(
        out,
        "<h2>Sessions</h2>\n<p class=\"note\">Percent of each session's own baseline reread total saved by each edit; rank 1 in bold{}{}.</p>\n<div class=\"scroll\"><table>\n<tr><th class=\"name\">session</th><th>calls</th><th>B</th><th class=\"word\">B from</th><th>ρ</th><th class=\"word\">ρ from</th><th>baseline est. tokens</th>",
        match (r.unchanged.sessions, r.unchanged.cost_only) {
            (0, 0) => "",
            (_, 0) => " (none where no edit changes the session)",
            _ => " (none where no edit changes the session's reread total)",
        },
        if r.edits.iter().any(|e| e.sessions_base_clamped > 0) {
            "; †: the edit's base change is larger than the session's B, which is 0 there"
        } else {
            ""
        }
    )?;
    for n in &names {
        write!(out, "<th>{}</th>", escape(n))?;
    }
    writeln!(out, "</tr>")?;
    for s in r.sessions.iter().take(MAX_SESSION_ROWS) {
        write!(
            out,
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td class=\"word\">{}</td><td>{}</td><td class=\"word\">{}</td><td>{}</td>",
            escape(&s.name),
            s.calls,
            grouped(s.base_tokens, 0),
            escape(super::session::source_kind(&s.sources.base_tokens)),
            decimal(s.bytes_per_token),
            escape(super::session::source_kind(&s.sources.bytes_per_token)),
            grouped(s.baseline_total_tokens, 0)
        )?;
        // Where no edit changes the reread total, every edit ties at 0: nobody's win.
        let changed = !s.reread_tied();
        for e in &s.edits {
            let mark = if e.base_clamped { "†" } else { "" };
            if e.rank == 1 && changed {
                write!(out, "<td><b>{}</b>{mark}</td>", percent(e.saved_pct))?;
            } else {
                write!(out, "<td>{}{mark}</td>", percent(e.saved_pct))?;
            }
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</table></div>")?;
    if r.baseline.sessions > MAX_SESSION_ROWS {
        writeln!(
            out,
            "<p class=\"note\">The first {MAX_SESSION_ROWS} of {} sessions by name; sessions.csv has every one.</p>",
            r.baseline.sessions
        )?;
    }
    Ok(())
}
