//! The table printed for a person: what was assumed, the baseline, the ranked edits, their
//! clearings, and whether the ranking holds across the sweep.

use crate::number::{decimal, grouped, percent, plural, signed_percent};
use crate::printable::{self, printable};
use crate::report::{EditReport, IdleReport, MeasureReport, Report, SweepReport, rows_by_pair};
use std::io::{self, Write};
use std::path::PathBuf;

/// Writes the comparison table, then the paths of the files written.
pub fn write(out: &mut dyn Write, report: &Report, files: &[PathBuf]) -> io::Result<()> {
    header(out, report)?;
    writeln!(out, "\n{}", report.answer)?;
    for w in &report.warnings {
        writeln!(out, "Warning: {w}")?;
    }
    edits(out, report)?;
    by_tool(out, report)?;
    if let Some(m) = &report.measured {
        measured(out, m)?;
    }
    clearings(out, report)?;
    behaviour(out, report)?;
    context_management(out, report)?;
    if let Some(sweep) = &report.sweep {
        sweep_section(out, report, sweep)?;
    }
    if !files.is_empty() {
        writeln!(out, "\nWritten:")?;
        for f in files {
            writeln!(out, "  {}", printable::path(f))?;
        }
    }
    Ok(())
}

fn dollars(x: Option<f64>) -> String {
    x.map_or_else(|| "—".into(), crate::number::dollars)
}

fn header(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    match &r.description {
        // The only free text of a scenario (line breaks and tabs allowed): escaped.
        Some(d) => writeln!(out, "{}: {}", r.scenario, printable(d))?,
        None => writeln!(out, "{}", r.scenario)?,
    }
    if let Some(d) = &r.simulation_differs {
        writeln!(out, "  Note: {d}")?;
    }
    let measured = if r.measured_calls > 0 {
        format!(
            "; measured tokens on {} of {} calls are used as given",
            grouped(r.measured_calls as f64, 0),
            grouped(r.baseline.calls as f64, 0)
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "  {}, from {}",
        plural(r.baseline.calls, "call", "calls"),
        printable(&r.source)
    )?;
    writeln!(
        out,
        "  base tokens B    {:>10}   {}",
        grouped(r.base_tokens, 0),
        r.sources.base_tokens
    )?;
    writeln!(
        out,
        "  bytes/token ρ    {:>10}   {}",
        decimal(r.bytes_per_token),
        r.sources.bytes_per_token
    )?;
    writeln!(
        out,
        "  unit             {} (bytes ÷ {}{measured})",
        r.unit,
        decimal(r.bytes_per_token)
    )?;
    writeln!(out, "  cost             {}", r.cost_model)?;
    if r.retry_rate > 0.0 {
        writeln!(
            out,
            "  retry rate       {} extra attempts per call (assumed)",
            decimal(r.retry_rate)
        )?;
    }
    if let Some(p) = &r.price {
        let output = p.output.map_or_else(
            || "no output price".into(),
            |o| format!("${}/M output tokens", decimal(o)),
        );
        writeln!(
            out,
            "  price            ${}/M input tokens, {output}",
            decimal(p.input),
        )?;
    }
    // Every source once: the prices', then the cache terms' where they say more.
    let price_source = r.price.as_ref().map(|p| printable(&p.source).into_owned());
    let cache_source = r
        .cache_source
        .as_deref()
        .map(|c| printable(c).into_owned())
        .map(|c| match &price_source {
            // Where both come from the price data they share most parts: only the cache
            // terms' own (a TTL's source) are new.
            Some(p) => c
                .split("; ")
                .filter(|part| !p.contains(part))
                .collect::<Vec<_>>()
                .join("; "),
            None => c,
        })
        .filter(|c| !c.is_empty());
    match (&price_source, &cache_source) {
        (Some(p), Some(c)) => writeln!(out, "  sources          prices: {p}; cache terms: {c}")?,
        (Some(p), None) => writeln!(out, "  sources          prices: {p}")?,
        (None, Some(c)) => writeln!(out, "  sources          cache terms: {c}")?,
        (None, None) => {}
    }
    writeln!(out)?;
    writeln!(
        out,
        "Baseline: reread total {} est. tokens over {}; average call {} est. tokens",
        grouped(r.baseline.total_tokens, 0),
        plural(r.baseline.calls, "call", "calls"),
        grouped(r.baseline.average_call_tokens, 0)
    )?;
    if r.cost_order.is_some() || r.retry_rate > 0.0 {
        writeln!(
            out,
            "          cost {} input-token equivalents",
            grouped(r.baseline.cost, 0)
        )?;
    }
    if r.price.is_some() {
        writeln!(
            out,
            "          {} at the prices above — a yardstick, not a bill: logical calls only, no HTTP retries",
            dollars(r.baseline.dollars),
        )?;
    }
    if let Some(rr) = &r.behaviour.baseline_rereads {
        writeln!(out, "          {}", rr.sentence())?;
    }
    Ok(())
}

/// What the agent does next (docs/model.md §11): each edit that removes results with its
/// caveat, and up to which re-fetch rate the ranking holds.
fn behaviour(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    let b = &r.behaviour;
    if b.edits.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\nIf the agent fetches again what an edit removes (re-fetch rate, assumed {}; at the nominal B and ρ):",
        decimal(b.refetch)
    )?;
    for e in &b.edits {
        writeln!(out, "  {}: {}", e.name, e.caveat)?;
    }
    if let Some(h) = &b.ranking {
        let measure = if b.measure == "cost" {
            "by cost"
        } else {
            "by reread tokens"
        };
        match (&h.flips_at, h.up_to) {
            (None, Some(p)) => writeln!(
                out,
                "  The ranking {measure} holds at every re-fetch rate swept, up to {}.",
                decimal(p)
            )?,
            (Some((p, a, bb)), up_to) => writeln!(
                out,
                "  The ranking {measure} holds up to re-fetch {}; at {} {bb} saves more than {a}.",
                up_to.map_or_else(|| "none swept".to_string(), decimal),
                decimal(*p)
            )?,
            (None, None) => {}
        }
    }
    Ok(())
}

fn edits(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    if r.edits.is_empty() {
        return Ok(()); // the answer already says so
    }
    let with_cost = r.cost_order.is_some();
    writeln!(out, "\nEdits, ranked by saving on the reread total:")?;
    let mut titles = vec![
        "rank",
        "edit",
        "saved est. tokens",
        "saved",
        "equiv. calls",
        "calls",
    ];
    if with_cost {
        titles.extend(["cost saved", "cost rank"]);
    }
    if r.price.is_some() {
        titles.push("$ saved");
    }
    let rows: Vec<Vec<String>> = r
        .edits
        .iter()
        .map(|e| {
            // A cache or model edit that changes cost alone saves no reread token: its row
            // says so rather than 0.0 %.
            let cost_only = e.what_if.is_some() && e.saved_tokens == 0.0 && e.cost_saved != 0.0;
            let mut row = vec![
                e.rank.to_string(),
                e.what_if
                    .as_ref()
                    .map_or_else(|| e.name.clone(), |w| w.row_name(&e.name)),
                if cost_only {
                    "—".to_string()
                } else {
                    grouped(e.saved_tokens, 0)
                },
                if cost_only {
                    "cost only".to_string()
                } else {
                    percent(e.saved_pct)
                },
                if cost_only {
                    "—".to_string()
                } else {
                    grouped(e.equivalent_calls, 2)
                },
                e.calls.to_string(),
            ];
            if with_cost {
                row.push(percent(e.cost_saved_pct));
                row.push(e.cost_rank.to_string());
            }
            if r.price.is_some() {
                row.push(dollars(e.dollars_saved));
            }
            row
        })
        .collect();
    print_columns(out, &titles, &rows)?;
    writeln!(
        out,
        "  (equiv. calls: the saving in average baseline calls of {} est. tokens)",
        grouped(r.baseline.average_call_tokens, 0)
    )?;
    if let Some(order) = &r.cost_order_line {
        writeln!(out, "  by cost: {order}")?;
        match &r.disagreement {
            Some(d) => writeln!(out, "  The rankings differ: {d}.")?,
            None => writeln!(out, "  Ranked by cost, the order is the same.")?,
        }
    }
    what_if(out, r)
}

/// What each what-if edit changes (docs/model.md §9): one paragraph per edit.
fn what_if(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    let edits: Vec<&EditReport> = r.edits.iter().filter(|e| e.what_if.is_some()).collect();
    if edits.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "
What the what-if edits change:"
    )?;
    for e in edits {
        let Some(w) = &e.what_if else { continue };
        let mut lines = w.lines.iter();
        if let Some(first) = lines.next() {
            writeln!(out, "  {}: {first}", e.name)?;
        }
        for line in lines {
            writeln!(out, "    {line}")?;
        }
    }
    Ok(())
}

/// Columns padded to their widest cell; the edit name (column 1) reads left-aligned.
fn print_columns(out: &mut dyn Write, titles: &[&str], rows: &[Vec<String>]) -> io::Result<()> {
    let mut widths: Vec<usize> = titles.iter().map(|t| width(t)).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::from(" ");
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = " ".repeat(w.saturating_sub(width(cell)));
            if i == 1 {
                s.push_str(&format!("  {cell}{pad}"));
            } else {
                s.push_str(&format!("  {pad}{cell}"));
            }
        }
        s.trim_end().to_string()
    };
    let titles: Vec<String> = titles.iter().map(|t| t.to_string()).collect();
    writeln!(out, "{}", line(&titles))?;
    for row in rows {
        writeln!(out, "{}", line(row))?;
    }
    Ok(())
}

/// Rows of the by-tool table shown in the terminal; by_tool.csv has them all.
const BY_TOOL_ROWS: usize = 8;

fn by_tool(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    if r.by_tool.len() < 2 {
        return Ok(());
    }
    writeln!(
        out,
        "\nWhere the baseline's reread total goes (each result × the calls that re-read it):"
    )?;
    let rows: Vec<Vec<String>> = r
        .by_tool
        .iter()
        .take(BY_TOOL_ROWS)
        .map(|t| {
            vec![
                percent(t.share_pct),
                t.group.clone(),
                grouped(t.reread_tokens, 0),
                grouped(t.result_tokens, 0),
                grouped(t.calls as f64, 0),
            ]
        })
        .collect();
    print_columns(
        out,
        &[
            "share",
            "tool or kind",
            "reread est. tokens",
            "result est. tokens",
            "calls",
        ],
        &rows,
    )?;
    if r.by_tool.len() > BY_TOOL_ROWS {
        writeln!(
            out,
            "  … and {} more (by_tool.csv)",
            plural(r.by_tool.len() - BY_TOOL_ROWS, "group", "groups")
        )?;
    }
    Ok(())
}

fn measured(out: &mut dyn Write, m: &crate::report::MeasuredReport) -> io::Result<()> {
    writeln!(out, "\nMeasured beside simulated ({}):", m.denominator)?;
    for c in &m.conventions {
        writeln!(out, "  convention  {c}")?;
    }
    writeln!(
        out,
        "  input       measured {} tokens; simulated {} est. tokens on the same calls ({})",
        grouped(m.measured_input_tokens, 0),
        grouped(m.simulated_input_tokens, 0),
        signed_percent(m.difference_pct)
    )?;
    let rate = |x: Option<f64>| x.map_or_else(|| "—".to_string(), |r| percent(100.0 * r));
    writeln!(
        out,
        "  cache hits  measured {} of total input (cache_read_input_tokens ÷ total); simulated {}",
        rate(m.cache_hit_rate),
        rate(m.simulated_cache_hit_rate)
    )?;
    writeln!(
        out,
        "  cost        measured {} input-token equivalents; simulated {}{}",
        m.measured_cost
            .map_or_else(|| "—".to_string(), |c| grouped(c, 0)),
        grouped(m.simulated_cost, 0),
        m.cost_difference_pct
            .map_or_else(String::new, |d| format!(" ({})", signed_percent(d)))
    )?;
    for reason in &m.cost_differs_because {
        writeln!(out, "              not simulated: {reason}")?;
    }
    if let Some(d) = m.measured_dollars {
        writeln!(
            out,
            "  dollars     measured {} ({})",
            crate::number::dollars(d),
            m.measured_price_source
        )?;
    } else {
        writeln!(out, "  dollars     — ({})", m.measured_price_source)?;
    }
    if !m.largest_differences.is_empty() {
        writeln!(
            out,
            "  largest differences (simulated vs measured context):"
        )?;
        for d in &m.largest_differences {
            writeln!(
                out,
                "    call {} {}: measured {} tokens, simulated {} est. tokens ({})",
                d.call,
                d.label,
                grouped(d.measured_tokens, 0),
                grouped(d.simulated_tokens, 0),
                signed_percent(d.difference_pct)
            )?;
        }
    }
    writeln!(out, "  {}", m.note)
}

/// `name` padded (or cut with `…`) to `columns` display columns: the name column of the
/// history's and suggest's tables.
pub(crate) fn pad(name: &str, columns: usize) -> String {
    let mut text = String::new();
    if width(name) <= columns {
        text.push_str(name);
    } else {
        for c in name.chars() {
            if width(&text) + width(&c.to_string()) > columns.saturating_sub(1) {
                break;
            }
            text.push(c);
        }
        text.push('…');
    }
    let shown = width(&text);
    text.push_str(&" ".repeat(columns.saturating_sub(shown)));
    text
}

/// Columns a cell takes in a terminal: wide (CJK) characters take two.
fn width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `fired before 3 calls (first before call 12: above_context_tokens), but never cleared:
/// each time every clearable result was kept, or none stood`.
fn never_cleared(idle: &IdleReport) -> String {
    let first = match idle.first_before_call {
        Some(call) => format!(
            " (first before call {call}: {})",
            idle.first_triggers.join(", ")
        ),
        None => String::new(),
    };
    let why = match (idle.nothing_to_clear, idle.too_little) {
        (_, 0) => "each time every clearable result was kept, or none stood".to_string(),
        (0, _) => "each clearing would have freed less than clear_at_least_tokens".to_string(),
        (n, t) => format!(
            "{} with nothing to clear, {} where the clearing would have freed less than clear_at_least_tokens",
            plural(n, "time", "times"),
            plural(t, "time", "times")
        ),
    };
    format!(
        "fired before {}{first}, but never cleared: {why}",
        plural(idle.firings, "call", "calls")
    )
}

fn clearings(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    let clearing: Vec<&EditReport> = r.edits.iter().filter(|e| e.events.is_some()).collect();
    if clearing.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nClearings (at the nominal point):")?;
    for e in clearing {
        let events = e.events.as_deref().unwrap_or_default();
        if events.is_empty() {
            match e.idle.as_ref().filter(|i| i.firings > 0) {
                Some(idle) => writeln!(out, "  {}: {}", e.name, never_cleared(idle))?,
                None => writeln!(out, "  {}: never fired on this trace", e.name)?,
            }
            continue;
        }
        let freed: f64 = events.iter().map(|v| v.freed_tokens).sum();
        if let Some(summary) = events.iter().find_map(|v| v.compaction_summary_tokens) {
            let before: Vec<String> = events
                .iter()
                .take(12)
                .map(|v| v.before_call.to_string())
                .collect();
            writeln!(
                out,
                "  {}: {} before call{} {}{}; {} summarized into {} tokens each time, {} est. tokens freed (each compaction request reads the whole context and counts in the total)",
                e.name,
                plural(events.len(), "compaction", "compactions"),
                if events.len() == 1 { "" } else { "s" },
                before.join(", "),
                if events.len() > 12 {
                    format!(" … ({} in all)", events.len())
                } else {
                    String::new()
                },
                plural(
                    events.iter().map(|v| v.cleared.len()).sum::<usize>(),
                    "call",
                    "calls"
                ),
                grouped(summary, 0),
                grouped(freed, 0)
            )?;
            continue;
        }
        let before: Vec<String> = events
            .iter()
            .take(12)
            .map(|v| v.before_call.to_string())
            .collect();
        let more = if events.len() > 12 {
            format!(" … ({} in all)", events.len())
        } else {
            String::new()
        };
        let calls = if events.len() == 1 { "call" } else { "calls" };
        writeln!(
            out,
            "  {}: {} before {calls} {}{more}; {} cleared, {} est. tokens freed",
            e.name,
            plural(events.len(), "clearing", "clearings"),
            before.join(", "),
            plural(
                events.iter().map(|v| v.cleared.len()).sum::<usize>(),
                "result",
                "results"
            ),
            grouped(freed, 0)
        )?;
    }
    Ok(())
}

fn sweep_section(out: &mut dyn Write, r: &Report, s: &SweepReport) -> io::Result<()> {
    writeln!(
        out,
        "\nSweep over {}: {} ({}{})",
        plural(s.points, "point", "points"),
        s.grid.describe(),
        s.method,
        if s.grid.default {
            "; default grid: ⅔B…4⁄3B × 0.75ρ…1.25ρ"
        } else {
            ""
        },
    )?;
    if r.edits.len() < 2 {
        return writeln!(out, "  (a ranking needs at least two edits)");
    }
    measure(out, "reread tokens", &s.tokens, s.points, s.nominal_on_grid)?;
    if let Some(cost) = &s.cost {
        measure(out, "cost", cost, s.points, s.nominal_on_grid)?;
    }
    writeln!(
        out,
        "  break-even on reread tokens (exact, from the closed form):"
    )?;
    if s.break_even_by_pair.is_empty() {
        writeln!(out, "    none computable")?;
    }
    // Pairs where one always saves more, on one line: a list of "no break-even" sentences
    // buries the few pairs that do swap.
    let never: Vec<String> = s
        .break_even_by_pair
        .iter()
        .filter(|p| p.kind == "never")
        .filter_map(|p| {
            let winner = p.above.as_deref()?;
            let other = if winner == p.a { &p.b } else { &p.a };
            Some(format!("{winner} > {other}"))
        })
        .collect();
    let rows_of = rows_by_pair(&s.break_even);
    for pair in s
        .break_even_by_pair
        .iter()
        .filter(|p| p.kind != "never" || p.above.is_none())
    {
        if pair.of <= 4 && pair.kind != "never" && pair.kind != "same" {
            let rows = rows_of.get(&(pair.a.as_str(), pair.b.as_str()));
            for x in rows.into_iter().flatten() {
                writeln!(out, "    {}", x.sentence)?;
            }
        } else {
            writeln!(out, "    {}", pair.sentence)?;
        }
    }
    if !never.is_empty() {
        let of = s.break_even_by_pair.first().map_or(0, |p| p.of);
        writeln!(
            out,
            "    no break-even for any B > 0 at {} (one always saves more): {}",
            if of == 1 {
                "the swept ρ".to_string()
            } else {
                format!("all {of} swept ρ values")
            },
            never.join("; ")
        )?;
    }
    for p in &s.sampled_only {
        writeln!(
            out,
            "    {} vs {}: sampled only (a clearing that moves with B or ρ)",
            p.a, p.b
        )?;
    }
    Ok(())
}

fn measure(
    out: &mut dyn Write,
    what: &str,
    m: &MeasureReport,
    points: usize,
    nominal_on_grid: bool,
) -> io::Result<()> {
    writeln!(out, "  ranked by {what}: nominal order {}", m.order)?;
    let off = if nominal_on_grid {
        ""
    } else {
        " (the nominal point is off the grid and not counted)"
    };
    if m.ranking_holds {
        writeln!(
            out,
            "  ranking holds at all {}{off}",
            plural(points, "point", "points")
        )?;
    } else {
        writeln!(
            out,
            "  ranking does NOT hold: {} of {} keep the nominal order; the winner ({}) wins at {} of them{off}",
            grouped(m.points_matching_nominal_order as f64, 0),
            plural(points, "point", "points"),
            m.winner.as_deref().unwrap_or("—"),
            grouped(m.points_matching_winner as f64, 0)
        )?;
        for f in &m.flips {
            writeln!(
                out,
                "    {} beats {} {} ({})",
                f.b,
                f.a,
                f.region,
                plural(f.count, "point", "points")
            )?;
        }
    }
    Ok(())
}

/// The winning clearing edit as the provider's context editing: what to paste, and where
/// the simulation is not the API.
fn context_management(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    let Some(c) = &r.context_management else {
        return Ok(());
    };
    writeln!(
        out,
        "\nTo turn on \"{}\" with the Messages API, add to each request (header anthropic-beta: {}):",
        c.edit, c.beta_header
    )?;
    let json = serde_json::to_string_pretty(&c.request).unwrap_or_default();
    for line in json.lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(out, "  This edit is {}.", c.simulated_as)?;
    writeln!(out, "  Where the simulation is not the API:")?;
    for n in &c.not_the_api {
        writeln!(out, "    - {n}")?;
    }
    Ok(())
}
