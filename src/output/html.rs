//! `report.html`: one self-contained page a person opens in a browser or prints.
//!
//! Everything is inline: styles, and the charts as inline SVG. The page references no
//! file and no network address, so it can be mailed or archived on its own.

use crate::output::number::grouped;
use crate::output::table;
use crate::report::Report;
use std::io::{self, Write};

/// Escapes text for HTML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An SVG document as an inline element: without its XML declaration.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(start) => &svg[start..],
        None => svg,
    }
}

const STYLE: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; max-width: 1060px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { padding: 0.25em 0.7em; text-align: right; border-bottom: 1px solid #e4e4e4; }
th { background: #f4f4f4; }
td.name, th.name { text-align: left; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.15em 1em; }
dt { font-weight: 600; }
dd { margin: 0; }
pre { white-space: pre-wrap; background: #f8f8f8; padding: 0.8em; border-radius: 4px; font-size: 0.92em; }
figure { margin: 1.5em 0; page-break-inside: avoid; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; }
.note { color: #555; font-size: 0.92em; }
@media print { body { margin: 0; max-width: none; } h2 { page-break-after: avoid; } }
";

/// Writes the page for `report` with `charts` (file name, SVG text) inline.
pub fn write(out: &mut dyn Write, report: &Report, charts: &[(&str, String)]) -> io::Result<()> {
    let r = report;
    writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"
    )?;
    writeln!(
        out,
        "<title>{} — simulate report</title>",
        escape(&r.scenario)
    )?;
    writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>")?;
    writeln!(out, "<h1>{}</h1>", escape(&r.scenario))?;
    if let Some(d) = &r.description {
        writeln!(out, "<p>{}</p>", escape(d))?;
    }
    writeln!(out, "<h2>Assumptions</h2>\n<dl>")?;
    let rows = [
        ("Scenario file", r.source.clone()),
        ("Calls", r.baseline.calls.to_string()),
        (
            "Base tokens B",
            format!("{} — {}", grouped(r.base_tokens, 0), r.sources.base_tokens),
        ),
        (
            "Bytes per token ρ",
            format!("{} — {}", r.bytes_per_token, r.sources.bytes_per_token),
        ),
        (
            "Unit",
            format!(
                "{} (bytes ÷ {}; measured tokens on {} of {} calls used as given)",
                r.unit, r.bytes_per_token, r.measured_calls, r.baseline.calls
            ),
        ),
        ("Cost", r.cost_model.clone()),
    ];
    for (k, v) in rows {
        writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v))?;
    }
    if let Some(p) = &r.price {
        let output = p.output.map_or_else(
            || "no output price".to_string(),
            |o| format!("${o}/M output tokens"),
        );
        writeln!(
            out,
            "<dt>Price</dt><dd>${}/M input tokens, {} ({})</dd>",
            p.input,
            escape(&output),
            escape(&p.source)
        )?;
    }
    writeln!(out, "</dl>")?;
    writeln!(
        out,
        "<p>Baseline: reread total <b>{}</b> est. tokens over {} calls; average call {} est. tokens. A reread total is a relative yardstick for comparing edits, not a bill.</p>",
        grouped(r.baseline.total_tokens, 0),
        r.baseline.calls,
        grouped(r.baseline.average_call_tokens, 0)
    )?;
    edits_table(out, r)?;
    let verdict = table::verdict_text(r);
    if !verdict.is_empty() {
        writeln!(
            out,
            "<h2>Does the ranking hold?</h2>\n<pre>{}</pre>",
            escape(&verdict)
        )?;
    }
    if !charts.is_empty() {
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
    }
    writeln!(
        out,
        "<p class=\"note\">Made by simulate from {}.</p>\n</body>\n</html>",
        escape(&r.source)
    )
}

fn edits_table(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    writeln!(out, "<h2>Edits, ranked by saving on the reread total</h2>")?;
    if r.edits.is_empty() {
        return writeln!(out, "<p>No edits in this scenario.</p>");
    }
    let cost = r.cost_order.is_some();
    write!(
        out,
        "<table>\n<tr><th>rank</th><th class=\"name\">edit</th><th>saved est. tokens</th><th>saved</th><th>equiv. calls</th><th>calls</th>"
    )?;
    if cost {
        write!(out, "<th>cost saved</th><th>cost rank</th>")?;
    }
    writeln!(out, "</tr>")?;
    for e in &r.edits {
        write!(
            out,
            "<tr><td>{}</td><td class=\"name\">{}</td><td>{}</td><td>{} %</td><td>{}</td><td>{}</td>",
            e.rank,
            escape(&e.name),
            grouped(e.saved_tokens, 0),
            grouped(e.saved_pct, 1),
            grouped(e.equivalent_calls, 2),
            e.calls
        )?;
        if cost {
            write!(
                out,
                "<td>{} %</td><td>{}</td>",
                grouped(e.cost_saved_pct, 1),
                e.cost_rank
            )?;
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</table>")?;
    writeln!(
        out,
        "<p class=\"note\">Equivalent calls: the saving in average baseline calls of {} est. tokens.</p>",
        grouped(r.baseline.average_call_tokens, 0)
    )?;
    if let Some(d) = &r.disagreement {
        writeln!(out, "<p><b>The rankings differ:</b> {}.</p>", escape(d))?;
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
