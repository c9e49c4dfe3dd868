//! `report.html`: one self-contained page a person opens in a browser or prints.
//!
//! Everything is inline: styles, and the charts as inline SVG. The page references no
//! file and no network address, so it can be mailed or archived on its own.

use crate::number::{decimal, grouped, percent, plural};
use crate::output::html_live::{self, Live};
use crate::report::{EditReport, MeasureReport, MeasuredReport, Report, SweepReport};
use std::io::{self, Write};

// Its own module, so the live panel (`html_live`), which this page embeds, can use it
// without importing back from here.
pub(crate) use super::html_escape::escape;

/// An SVG document as an inline element: without its XML declaration.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(start) => &svg[start..],
        None => svg,
    }
}

pub(crate) const STYLE: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; max-width: 1360px; margin: 2em auto; padding: 0 1.2em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; padding-bottom: 0.15em; }
h3 { font-size: 1.05em; margin: 1.4em 0 0.4em; }
p.answer { font-size: 1.15em; background: #eef5fb; border-left: 4px solid #0072b2; padding: 0.7em 1em; margin: 1em 0; }
p.holds { border-left: 4px solid #009e73; background: #eef8f4; padding: 0.5em 0.9em; }
p.flips { border-left: 4px solid #d55e00; background: #fcf1ea; padding: 0.5em 0.9em; }
.warning { border-left: 4px solid #e69f00; background: #fdf6e7; padding: 0.5em 0.9em; margin: 0.5em 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.6em 0; font-variant-numeric: tabular-nums; }
th, td { padding: 0.3em 0.7em; text-align: right; border-bottom: 1px solid #e4e4e4; vertical-align: top; white-space: nowrap; }
td.name, td.text, th.text { white-space: normal; }
th { background: #f4f4f4; font-weight: 600; white-space: normal; vertical-align: bottom; }
td.name, th.name, td.text, th.text, td.word, th.word { text-align: left; }
th.edit { min-width: 7em; }
td.text { min-width: 16em; max-width: 40em; overflow-wrap: anywhere; }
td.name { min-width: 9em; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1.2em; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
figure { margin: 1.5em 0; page-break-inside: avoid; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; }
.note { color: #555; font-size: 0.92em; }
@media print { body { margin: 0; max-width: none; } h2 { page-break-after: avoid; } }
";

/// Most clearing events listed one by one; the rest are counted (ledger.csv has them all).
const MAX_EVENT_ROWS: usize = 200;

/// Writes the page for `report` with `charts` (file name, SVG text) inline.
pub fn write(out: &mut dyn Write, report: &Report, charts: &[(&str, String)]) -> io::Result<()> {
    let r = report;
    writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    )?;
    writeln!(
        out,
        "<title>{} — simulate report</title>",
        escape(&r.scenario)
    )?;
    writeln!(
        out,
        "<style>{STYLE}{}</style>\n</head>\n<body>",
        html_live::STYLE
    )?;
    writeln!(out, "<h1>{}</h1>", escape(&r.scenario))?;
    if let Some(d) = &r.description {
        writeln!(out, "<p>{}</p>", escape(d))?;
    }
    writeln!(out, "<p class=\"answer\">{}</p>", escape(&r.answer))?;
    for w in &r.warnings {
        writeln!(
            out,
            "<p class=\"warning\"><b>Warning:</b> {}</p>",
            escape(w)
        )?;
    }
    assumptions(out, r)?;
    let live = html_live::of_report(r);
    edits_table(out, r, live.as_ref())?;
    if let Some(sweep) = &r.sweep {
        sweep_section(out, r, sweep)?;
    }
    by_tool(out, r)?;
    if let Some(m) = &r.measured {
        measured(out, m)?;
    }
    clearings(out, r)?;
    refetch(out, r)?;
    figures(out, charts)?;
    if let Some(live) = &live {
        html_live::script(out, live)?;
    }
    writeln!(
        out,
        "<p class=\"note\">Made by simulate from {}. A reread total is a relative yardstick for comparing edits, not a bill; dollar figures count logical calls only (no HTTP retries).</p>\n</body>\n</html>",
        escape(&r.source)
    )
}

/// What the agent does next (docs/model.md §11): each edit that removes results at each
/// re-fetch rate, and where it stops saving.
fn refetch(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    let b = &r.behaviour;
    let by_cost = b.measure == "cost";
    let rows: Vec<super::html_refetch::Row> = b
        .edits
        .iter()
        .map(|e| super::html_refetch::Row {
            name: e.name.clone(),
            cells: e
                .by_rate
                .iter()
                .map(|x| {
                    grouped(
                        if by_cost {
                            x.saved_cost
                        } else {
                            x.saved_tokens
                        },
                        0,
                    )
                })
                .collect(),
            stops: crate::behaviour::short(&e.stops_saving, b.rates.last().copied().unwrap_or(0.0)),
        })
        .collect();
    let mut note = format!(
        "Every k-th result an edit removes (k = ⌈1/rate⌉) fetched again by one added call, at the nominal B and ρ; the nominal assumption is re-fetch {} (docs/model.md §11).",
        crate::number::decimal(b.refetch)
    );
    if let Some(rr) = &b.baseline_rereads {
        note.push_str(&format!(" For comparison, {}.", rr.sentence()));
    }
    let unit = if by_cost {
        "cost saved at"
    } else {
        "est. tokens saved at"
    };
    super::html_refetch::section(out, &note, unit, &b.rates, &rows)
}

/// The charts section: every chart inline, captioned with its file name.
pub(crate) fn figures(out: &mut dyn Write, charts: &[(&str, String)]) -> io::Result<()> {
    if charts.is_empty() {
        return Ok(());
    }
    writeln!(out, "<h2>Charts</h2>")?;
    for (name, svg) in charts {
        writeln!(
            out,
            "<figure id=\"{}\">\n{}\n<figcaption class=\"note\">{}</figcaption>\n</figure>",
            escape(name),
            inline_svg(svg),
            escape(name)
        )?;
    }
    Ok(())
}

fn assumptions(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    writeln!(out, "<h2>Assumptions</h2>\n<dl>")?;
    let mut rows = vec![
        ("Scenario file", r.source.clone()),
        ("Calls", grouped(r.baseline.calls as f64, 0)),
        (
            "Base tokens B",
            format!("{} — {}", grouped(r.base_tokens, 0), r.sources.base_tokens),
        ),
        (
            "Bytes per token ρ",
            format!(
                "{} — {}",
                decimal(r.bytes_per_token),
                r.sources.bytes_per_token
            ),
        ),
        ("Unit", unit_line(r)),
        ("Cost", r.cost_model.clone()),
    ];
    if r.retry_rate > 0.0 {
        rows.push((
            "Retry rate",
            format!(
                "{} extra attempts per call (assumed)",
                decimal(r.retry_rate)
            ),
        ));
    }
    if let Some(p) = &r.price {
        let output = p.output.map_or_else(
            || "no output price".to_string(),
            |o| format!("${}/M output tokens", decimal(o)),
        );
        rows.push((
            "Price",
            format!(
                "${}/M input tokens, {output} ({})",
                decimal(p.input),
                p.source
            ),
        ));
    }
    for (k, v) in rows {
        writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v))?;
    }
    writeln!(out, "</dl>")?;
    write!(
        out,
        "<p>Baseline: reread total <b>{}</b> est. tokens over {}; average call {} est. tokens",
        grouped(r.baseline.total_tokens, 0),
        plural(r.baseline.calls, "call", "calls"),
        grouped(r.baseline.average_call_tokens, 0)
    )?;
    if r.cost_order.is_some() || r.retry_rate > 0.0 {
        write!(
            out,
            "; cost {} input-token equivalents",
            grouped(r.baseline.cost, 0)
        )?;
    }
    if let Some(p) = &r.price {
        write!(
            out,
            "; {} at {}",
            escape(&dollars(r.baseline.dollars)),
            escape(&p.source)
        )?;
    }
    writeln!(out, ".</p>")
}

/// What a token figure is: est. tokens, and where results gave measured tokens (used as
/// given) or where the provider's usage sits beside the simulation.
fn unit_line(r: &Report) -> String {
    let mut line = format!("{} (bytes ÷ {}", r.unit, decimal(r.bytes_per_token));
    if r.measured_calls > 0 {
        line.push_str(&format!(
            "; measured result tokens on {} of {} calls used as given",
            grouped(r.measured_calls as f64, 0),
            grouped(r.baseline.calls as f64, 0)
        ));
    }
    line.push(')');
    if let Some(m) = &r.measured {
        line.push_str(&format!(
            "; the provider's usage is set beside it below ({})",
            m.denominator
        ));
    }
    line
}

fn dollars(x: Option<f64>) -> String {
    x.map_or_else(|| "—".into(), crate::number::dollars)
}

fn edits_table(out: &mut dyn Write, r: &Report, live: Option<&Live>) -> io::Result<()> {
    writeln!(out, "<h2>Edits, ranked by saving on the reread total</h2>")?;
    if r.edits.is_empty() {
        return writeln!(out, "<p>No edits in this scenario.</p>");
    }
    let cost = r.cost_order.is_some();
    let money = r.price.is_some();
    let cost_moves = live.and_then(|l| l.cost.as_ref());
    let dollars_move = cost_moves.is_some_and(|c| c.per_cost.is_some());
    if let Some(live) = live {
        html_live::panel(out, live, &nominal_only(r, live, cost, money))?;
    }
    write!(
        out,
        "<div class=\"scroll\"><table id=\"edits\">\n<thead><tr><th>rank</th><th class=\"name\">edit</th><th>saved est. tokens</th><th>saved</th><th>equiv. calls</th><th>calls</th>"
    )?;
    if cost {
        write!(
            out,
            "<th>cost (input-token eq.)</th><th>cost saved</th><th>cost rank</th>"
        )?;
    }
    if money {
        write!(out, "<th>dollars</th><th>$ saved</th>")?;
    }
    writeln!(out, "</tr></thead>\n<tbody>")?;
    for e in &r.edits {
        write!(
            out,
            "<tr data-edit=\"{}\"><td class=\"moves rank\">{}</td><td class=\"name\">{}</td><td class=\"moves saved\">{}</td><td class=\"moves pct\">{}</td><td class=\"moves equiv\">{}</td><td class=\"fixed\">{}</td>",
            e.index,
            e.rank,
            escape(
                &e.what_if
                    .as_ref()
                    .map_or_else(|| e.name.clone(), |w| w.row_name(&e.name))
            ),
            grouped(e.saved_tokens, 0),
            escape(&percent(e.saved_pct)),
            grouped(e.equivalent_calls, 2),
            grouped(e.calls as f64, 0)
        )?;
        // The cells the script moves are marked `moves`; the rest are greyed off the
        // nominal point.
        let moves = |name: &str, yes: bool| {
            if yes {
                format!(" class=\"moves {name}\"")
            } else {
                String::new()
            }
        };
        if cost {
            let m = cost_moves.is_some();
            write!(
                out,
                "<td{}>{}</td><td{}>{}</td><td{}>{}</td>",
                moves("cost", m),
                grouped(e.cost, 0),
                moves("costpct", m),
                escape(&percent(e.cost_saved_pct)),
                moves("costrank", m),
                e.cost_rank
            )?;
        }
        if money {
            write!(
                out,
                "<td{}>{}</td><td{}>{}</td>",
                moves("dollars", dollars_move),
                escape(&dollars(e.dollars)),
                moves("dsaved", dollars_move),
                escape(&dollars(e.dollars_saved))
            )?;
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</tbody></table></div>")?;
    writeln!(
        out,
        "<p class=\"note at-nominal\">Order: {}. Equivalent calls: the saving in average baseline calls of {} est. tokens.</p>",
        escape(&r.order),
        grouped(r.baseline.average_call_tokens, 0)
    )?;
    if let Some(order) = &r.cost_order_line {
        writeln!(out, "<p>By cost: {}.</p>", escape(order))?;
    }
    if let Some(d) = &r.disagreement {
        writeln!(out, "<p><b>The rankings differ:</b> {}.</p>", escape(d))?;
    }
    if let Some(live) = live {
        html_live::after_table(out, live)?;
    }
    what_if(out, r)
}

/// What the sliders do to the cost and dollar columns, and why: the end of the panel's
/// last sentence.
fn nominal_only(r: &Report, live: &Live, cost: bool, money: bool) -> String {
    let Some(forms) = r.sweep.as_ref().map(|s| &s.closed_forms) else {
        return String::new();
    };
    let moving = live.cost.as_ref();
    let dollars = moving.is_some_and(|c| c.per_cost.is_some());
    let off_grid = forms.samples.as_ref().is_some_and(|s| s.cost.is_none());
    let because = match (&forms.cost_fixed_because, off_grid) {
        (Some(why), true) => format!(
            "{why}, and the sweep's grid holds the cost at other cache read prices or retry rates than the nominal ones"
        ),
        (Some(why), false) => why.clone(),
        (None, true) => "a run's cost has no closed form, and the sweep's grid holds the cost at other cache read prices or retry rates than the nominal ones".into(),
        (None, false) => "a price they need is missing".into(),
    };
    let exact = if forms.cached {
        "under the prompt cache every request and cached prefix is at least min_tokens long over the sliders' whole range, so cost is exactly affine in B and 1/ρ there as well"
    } else {
        "without a prompt cache every input token costs 1, so cost is the reread total × (1 + retry rate) and the output"
    };
    let ranked = || {
        live.edits
            .iter()
            .filter(|e| e.form.is_some() || e.sampled.is_some())
    };
    let how = |c: &html_live::LiveCost| {
        let all = c.baseline.is_some() && ranked().all(|e| e.cost.is_some());
        let none = c.baseline.is_none() && ranked().all(|e| e.cost.is_none());
        match (all, none) {
            (true, _) => format!("{exact} (at the nominal cache read price and retry rate)"),
            (_, true) => format!(
                "from the sweep's grid points at the nominal cache read price and retry rate, as no run's cost has a closed form here: {because}"
            ),
            _ => format!(
                "exact where a run's cost has a closed form ({exact}), from the sweep's grid points where it has none"
            ),
        }
    };
    match (cost, money, moving) {
        (true, _, Some(c)) => format!(
            "the cost columns move too{}: {}{}",
            if money && dollars {
                ", dollars with them (each run's cost at the scenario's input price)"
            } else {
                ""
            },
            how(c),
            if money && !dollars {
                "; the dollar columns (greyed) stay at the nominal point: a price they need is missing"
            } else {
                ""
            }
        ),
        (true, m, None) => format!(
            "the cost{} columns (greyed) stay at the nominal point: {because}",
            if m { " and dollar" } else { "" }
        ),
        (false, true, Some(c)) if dollars => {
            format!("the dollar columns move too: {}", how(c))
        }
        (false, true, _) => {
            format!("the dollar columns (greyed) stay at the nominal point: {because}")
        }
        (false, false, _) => "calls after each edit do not depend on B or ρ".into(),
    }
}

/// What each what-if edit changes (docs/model.md §9).
fn what_if(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    let edits: Vec<&EditReport> = r.edits.iter().filter(|e| e.what_if.is_some()).collect();
    if edits.is_empty() {
        return Ok(());
    }
    writeln!(out, "<h3>What the what-if edits change</h3>\n<ul>")?;
    for e in edits {
        let Some(w) = &e.what_if else { continue };
        let lines: Vec<String> = w.lines.iter().map(|l| escape(l)).collect();
        writeln!(
            out,
            "<li><b>{}</b>: {}</li>",
            escape(&e.name),
            lines.join("; ")
        )?;
    }
    writeln!(out, "</ul>")
}

fn sweep_section(out: &mut dyn Write, r: &Report, s: &SweepReport) -> io::Result<()> {
    writeln!(out, "<h2>Does the ranking hold?</h2>")?;
    writeln!(
        out,
        "<p class=\"note\">Swept over {}: {} ({}{}).</p>",
        plural(s.points, "point", "points"),
        escape(&s.grid.describe()),
        s.method,
        if s.grid.default {
            "; default grid ⅔B…4⁄3B × 0.75ρ…1.25ρ"
        } else {
            ""
        }
    )?;
    if r.edits.len() < 2 {
        return writeln!(out, "<p>A ranking needs at least two edits.</p>");
    }
    measure(out, "reread tokens", &s.tokens, s.points, s.nominal_on_grid)?;
    if let Some(cost) = &s.cost {
        measure(out, "cost", cost, s.points, s.nominal_on_grid)?;
    }
    writeln!(
        out,
        "<h3>Break-even on reread tokens</h3>\n<p class=\"note\">Exact, from the closed form: the base tokens B at which two edits save the same, at each swept ρ.</p>"
    )?;
    writeln!(
        out,
        "<div class=\"scroll\"><table>\n<tr><th class=\"name\">edit</th><th class=\"name\">vs</th><th class=\"text\">break-even</th><th>inside the swept B range</th></tr>"
    )?;
    for pair in &s.break_even_by_pair {
        let inside = match (pair.base_tokens_from, pair.base_tokens_to) {
            (Some(l), Some(h)) if l != h => format!(
                "at {} of {} ρ: B {}–{}",
                pair.inside_at,
                pair.of,
                grouped(l, 0),
                grouped(h, 0)
            ),
            (Some(l), _) => format!(
                "at {} of {} ρ: B {}",
                pair.inside_at,
                pair.of,
                grouped(l, 0)
            ),
            _ => "no".into(),
        };
        writeln!(
            out,
            "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"text\">{}</td><td>{}</td></tr>",
            escape(&pair.a),
            escape(&pair.b),
            escape(&pair.sentence),
            escape(&inside)
        )?;
    }
    for p in &s.sampled_only {
        writeln!(
            out,
            "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"text\">sampled only: a clearing that moves with B or ρ</td><td>—</td></tr>",
            escape(&p.a),
            escape(&p.b)
        )?;
    }
    writeln!(out, "</table></div>")
}

fn measure(
    out: &mut dyn Write,
    what: &str,
    m: &MeasureReport,
    points: usize,
    nominal_on_grid: bool,
) -> io::Result<()> {
    writeln!(out, "<h3>Ranked by {what}</h3>")?;
    let off = if nominal_on_grid {
        ""
    } else {
        " (the nominal point is off the grid and not counted)"
    };
    if m.ranking_holds {
        writeln!(
            out,
            "<p class=\"holds\">The ranking holds at all {}{off}: {}.</p>",
            plural(points, "point", "points"),
            escape(&m.order)
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "<p class=\"flips\">The ranking does <b>not</b> hold everywhere: {} of {} keep the nominal order ({}); the winner, {}, wins at {} of them{off}.</p>",
        grouped(m.points_matching_nominal_order as f64, 0),
        plural(points, "point", "points"),
        escape(&m.order),
        escape(m.winner.as_deref().unwrap_or("—")),
        grouped(m.points_matching_winner as f64, 0)
    )?;
    writeln!(
        out,
        "<div class=\"scroll\"><table>\n<tr><th class=\"name\">saves more</th><th class=\"name\">than (nominal winner of the pair)</th><th class=\"text\">where</th><th>points</th></tr>"
    )?;
    for f in &m.flips {
        writeln!(
            out,
            "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"text\">{}</td><td>{}</td></tr>",
            escape(&f.b),
            escape(&f.a),
            escape(&f.region),
            grouped(f.count as f64, 0)
        )?;
    }
    writeln!(out, "</table></div>")
}

fn by_tool(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    if r.by_tool.len() < 2 {
        return Ok(());
    }
    writeln!(
        out,
        "<h2>Where the reread total goes</h2>\n<p class=\"note\">The baseline's reread total split by tool (or kind): each result's size times the calls that re-read it. The largest share points at the edit to try first.</p>"
    )?;
    writeln!(
        out,
        "<div class=\"scroll\"><table>\n<tr><th>share</th><th class=\"name\">tool or kind</th><th>reread est. tokens</th><th>result est. tokens</th><th>calls</th></tr>"
    )?;
    for t in &r.by_tool {
        writeln!(
            out,
            "<tr><td>{}</td><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&percent(t.share_pct)),
            escape(&t.group),
            grouped(t.reread_tokens, 0),
            grouped(t.result_tokens, 0),
            grouped(t.calls as f64, 0)
        )?;
    }
    writeln!(out, "</table></div>")
}

fn measured(out: &mut dyn Write, m: &MeasuredReport) -> io::Result<()> {
    writeln!(
        out,
        "<h2>Measured beside simulated</h2>\n<p class=\"note\">{}. {}</p>",
        escape(&m.denominator),
        escape(&m.conventions.join("; "))
    )?;
    let rate = |x: Option<f64>| x.map_or_else(|| "—".to_string(), |r| percent(100.0 * r));
    let rows = [
        (
            "total input on those calls",
            format!("{} tokens", grouped(m.measured_input_tokens, 0)),
            format!(
                "{} est. tokens ({:+.1} %)",
                grouped(m.simulated_input_tokens, 0),
                m.difference_pct
            ),
        ),
        (
            "cache hit rate (read ÷ total input)",
            rate(m.cache_hit_rate),
            rate(m.simulated_cache_hit_rate),
        ),
        (
            "cost, input-token equivalents",
            m.measured_cost
                .map_or_else(|| "—".to_string(), |c| grouped(c, 0)),
            match m.cost_difference_pct {
                Some(d) => format!("{} ({d:+.1} %)", grouped(m.simulated_cost, 0)),
                None => grouped(m.simulated_cost, 0),
            },
        ),
        (
            "dollars",
            m.measured_dollars
                .map_or_else(|| "—".to_string(), crate::number::dollars),
            String::new(),
        ),
    ];
    writeln!(
        out,
        "<div class=\"scroll\"><table>\n<tr><th class=\"name\"></th><th>measured</th><th>simulated</th></tr>"
    )?;
    for (what, measured, simulated) in rows {
        writeln!(
            out,
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td></tr>",
            escape(what),
            escape(&measured),
            escape(&simulated)
        )?;
    }
    writeln!(out, "</table></div>")?;
    if !m.cost_differs_because.is_empty() {
        writeln!(out, "<p>What the simulation does not reproduce:</p>\n<ul>")?;
        for reason in &m.cost_differs_because {
            writeln!(out, "<li>{}</li>", escape(reason))?;
        }
        writeln!(out, "</ul>")?;
    }
    writeln!(
        out,
        "<p class=\"note\">Dollars: {}. {}</p>",
        escape(&m.measured_price_source),
        escape(&m.note)
    )?;
    if !m.largest_differences.is_empty() {
        writeln!(
            out,
            "<h3>Calls where the two differ most</h3>\n<div class=\"scroll\"><table>\n<tr><th>call</th><th class=\"text\">label</th><th>measured tokens</th><th>simulated est. tokens</th><th>difference</th></tr>"
        )?;
        for d in &m.largest_differences {
            writeln!(
                out,
                "<tr><td>{}</td><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{:+.1} %</td></tr>",
                d.call,
                escape(&d.label),
                grouped(d.measured_tokens, 0),
                grouped(d.simulated_tokens, 0),
                d.difference_pct
            )?;
        }
        writeln!(out, "</table></div>")?;
    }
    Ok(())
}

fn clearings(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    let clearing: Vec<&EditReport> = r.edits.iter().filter(|e| e.events.is_some()).collect();
    if clearing.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<h2>Clearing events</h2>\n<p class=\"note\">At the nominal point. A cleared result is replaced by a placeholder from then on.</p>"
    )?;
    writeln!(
        out,
        "<div class=\"scroll\"><table>\n<tr><th class=\"name\">edit</th><th>clearings</th><th>results cleared</th><th>est. tokens freed</th></tr>"
    )?;
    for e in &clearing {
        let events = e.events.as_deref().unwrap_or_default();
        writeln!(
            out,
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&e.name),
            grouped(events.len() as f64, 0),
            grouped(
                events.iter().map(|v| v.cleared.len()).sum::<usize>() as f64,
                0
            ),
            grouped(events.iter().map(|v| v.freed_tokens).sum::<f64>(), 0)
        )?;
    }
    writeln!(out, "</table></div>")?;
    writeln!(
        out,
        "<h3>Every clearing</h3>\n<div class=\"scroll\"><table>\n<tr><th class=\"name\">edit</th><th>before call</th><th class=\"text\">trigger</th><th class=\"text\">cleared results (call ids)</th><th>est. tokens freed</th></tr>"
    )?;
    let mut shown = 0;
    let total: usize = clearing
        .iter()
        .map(|e| e.events.as_deref().unwrap_or_default().len())
        .sum();
    for e in &clearing {
        for v in e.events.as_deref().unwrap_or_default() {
            if shown == MAX_EVENT_ROWS {
                break;
            }
            shown += 1;
            let ids = if v.cleared.len() > 12 {
                format!(
                    "{} … ({} in all)",
                    v.cleared[..12].join(", "),
                    v.cleared.len()
                )
            } else {
                v.cleared.join(", ")
            };
            writeln!(
                out,
                "<tr><td class=\"name\">{}</td><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td></tr>",
                escape(&e.name),
                v.before_call,
                escape(&v.triggers.join(", ")),
                escape(&ids),
                grouped(v.freed_tokens, 0)
            )?;
        }
    }
    writeln!(out, "</table></div>")?;
    if shown < total {
        writeln!(
            out,
            "<p class=\"note\">The first {} of {} clearings; ledger.csv lists every one.</p>",
            grouped(shown as f64, 0),
            grouped(total as f64, 0)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_strips_the_xml_declaration() {
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(
            inline_svg("<?xml version=\"1.0\"?>\n<svg width=\"1\"/>"),
            "<svg width=\"1\"/>"
        );
    }
}
