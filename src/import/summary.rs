//! What an import printed: per trace the file, the scenario written, its request count and
//! its measured token sums; then skipped and malformed lines. A table for people, JSON for
//! tools. A model the price data cannot price is a warning on stderr (and in the JSON),
//! never a silent flat cost.
//!
//! Token sums carry the provider's own field names and convention: they are measured
//! counts, summed after deduplication, not estimates (and not a bill: retries are not in
//! the logs).

use super::assemble::Leftover;
use super::event::{Attachments, Identity, Malformed};
use super::files::Unreadable;
use super::quality::Quality;
use super::trace::{Reset, Trace, TraceRole, UsageSums};
use super::{Convention, Loaded, Reader};
use crate::cache::warnings::{self, ModelUse, ModelWarning};
use crate::number::grouped;
use crate::output::Format;
use crate::output::json;
use crate::printable::printable;
use compact_str::CompactString;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::PathBuf;

/// Malformed lines listed in the table; the rest are counted. JSON lists all.
pub const MALFORMED_LISTED: usize = 20;

/// The JSON report.
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    pub format: &'static str,
    pub convention: &'static str,
    /// What the token sums are.
    pub usage_note: String,
    /// What the calls' bytes count (UTF-8 bytes unless the format says otherwise).
    pub bytes_unit: &'static str,
    pub traces: Vec<TraceSummary<'a>>,
    pub files_without_requests: &'a [Leftover],
    /// Files that could not be read at all, and why (the rest was imported).
    pub unreadable_files: &'a [Unreadable],
    /// Skipped lines by type.
    pub skipped: BTreeMap<&'a str, SkippedSummary>,
    /// Every malformed line of every file.
    pub malformed: &'a [Malformed],
    /// Models the price data cannot price in full, and what that does to the scenarios.
    pub model_warnings: Vec<ModelWarning>,
    /// `attachment` lines by type: how many, their text bytes, whether they join.
    pub attachments: &'a BTreeMap<String, Attachments>,
    /// Cache writes with no lifetime logged (OpenTelemetry), priced both ways; absent when
    /// every write's lifetime is logged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_lifetime: Option<super::lifetime::Lifetime>,
    /// The same, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_lifetime_note: Option<String>,
    /// With `--fit`: each trace's fit, in trace order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit: Option<&'a [Quality]>,
}

/// What the summary shows of one trace: kept once its scenario is staged, when its calls
/// are dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRow {
    pub file: String,
    pub name: String,
    pub role: TraceRole,
    pub part: u32,
    pub session_id: Option<CompactString>,
    pub parent_session: Option<CompactString>,
    pub agent_id: Option<CompactString>,
    pub identity: Identity,
    pub requests: usize,
    pub duplicates_removed: u64,
    pub malformed: Vec<Malformed>,
    pub usage: UsageSums,
    /// The model most calls used.
    pub model: Option<CompactString>,
    /// Whether most cache writes were 1-hour ones.
    pub one_hour: bool,
    /// The other models some calls used, in order of first use.
    pub other_models: Vec<CompactString>,
    /// The unmarked fall of the context the trace starts after.
    pub reset: Option<Reset>,
    /// Every request's usage is 0 (input, cache and output): placeholders, not measures.
    pub zero_usage: bool,
    /// A log without per-request usage (SWE-agent): the run's own totals.
    pub unmeasured: Option<super::event::RunTotals>,
    /// Its summed input as the scenario gives it, estimated tokens (see
    /// [`Trace::estimated_input_tokens`]).
    pub estimated_input_tokens: Option<f64>,
    /// Its cache writes with no lifetime logged, priced both ways.
    pub lifetime: super::lifetime::Lifetime,
}

impl TraceRow {
    /// The row of `t`.
    pub fn of(t: &Trace) -> TraceRow {
        let model = t.model();
        let mut other_models: Vec<CompactString> = Vec::new();
        for m in t.calls.iter().filter_map(|c| c.model.as_ref()) {
            if Some(m.as_str()) != model && !other_models.contains(m) {
                other_models.push(m.clone());
            }
        }
        TraceRow {
            file: t.file.clone(),
            name: t.name.clone(),
            role: t.role,
            part: t.part,
            session_id: t.session_id.clone(),
            parent_session: t.parent_session.clone(),
            agent_id: t.agent_id.clone(),
            identity: t.identity.clone(),
            requests: t.calls.len(),
            duplicates_removed: t.duplicates_removed,
            malformed: t.malformed.clone(),
            usage: t.usage(),
            model: model.map(CompactString::from),
            one_hour: t.mostly_one_hour_cache(),
            other_models,
            reset: t.reset,
            zero_usage: t.unmeasured.is_none()
                && !t.calls.is_empty()
                && t.calls.iter().all(|c| c.measured.size() == 0),
            unmeasured: t.unmeasured,
            estimated_input_tokens: t.estimated_input_tokens(),
            lifetime: super::lifetime::Lifetime::of(t),
        }
    }
}

/// Which models a trace's calls used.
fn model_use(t: &TraceRow) -> ModelUse<'_> {
    ModelUse {
        scenario: &t.name,
        model: t.model.as_deref(),
        one_hour: t.one_hour,
        others: t.other_models.iter().map(CompactString::as_str).collect(),
    }
}

/// One trace in the JSON report.
#[derive(Debug, Serialize)]
pub struct TraceSummary<'a> {
    pub file: &'a str,
    /// The scenario file written.
    pub scenario: String,
    pub name: &'a str,
    /// `main`, `subagent`, `after-compaction` or `after-reset`.
    pub trace: &'static str,
    pub part: u32,
    /// For a trace that starts where the context fell with no compaction in the log: the
    /// previous request's total input and this trace's first, tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reset: Option<Reset>,
    /// Every request's usage is 0: the log's usage is a placeholder (warned; not fitted).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub zero_usage: bool,
    pub session_id: Option<&'a str>,
    pub parent_session: Option<&'a str>,
    pub agent_id: Option<&'a str>,
    /// Who ran the session, where the log says (OpenTelemetry's `user.id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<&'a str>,
    /// OpenTelemetry's `organization.id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub organization_id: Option<&'a str>,
    /// OpenTelemetry's `user.account_uuid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account_uuid: Option<&'a str>,
    /// A team attribute of the telemetry's resource, as `key=value`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    pub requests: usize,
    pub duplicates_removed: u64,
    pub malformed_lines: usize,
    /// Measured usage summed over the deduplicated requests, in the provider's fields;
    /// None for a log that measures no request (SWE-agent: see `run_totals`).
    pub usage: Option<UsageSums>,
    /// A log without per-request usage: the run's totals as it logged them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_totals: Option<super::event::RunTotals>,
    /// Such a log's summed input as its scenario gives it, estimated tokens (B and ρ
    /// assumed): to set beside `run_totals.tokens_sent`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_input_tokens: Option<f64>,
    /// (estimated − tokens_sent) ÷ tokens_sent, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_difference_pct: Option<f64>,
    /// The steps (calls written) the estimate sums over, beside `run_totals.api_calls`
    /// the measured total counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<usize>,
    pub model: Option<&'a str>,
    pub convention: &'static str,
    pub malformed: &'a [Malformed],
}

#[derive(Debug, Serialize)]
pub struct SkippedSummary {
    pub lines: u64,
    /// A type the format knows to hold no request; false: a type the reader does not know.
    pub known: bool,
}

/// Prints the summary of an import whose traces are `rows`, their scenarios written to
/// `written` (both in trace order).
pub fn print(
    out: &mut dyn Write,
    format: Format,
    reader: &dyn Reader,
    loaded: &Loaded,
    rows: &[TraceRow],
    written: &[PathBuf],
    fit: Option<&[Quality]>,
) -> io::Result<()> {
    let a = &loaded.assembled;
    let convention = reader.convention();
    let mut lifetime = super::lifetime::Lifetime::default();
    for t in rows {
        lifetime.add(&t.lifetime);
    }
    let lifetime_note = lifetime.sentence();
    let summary = Summary {
        format: reader.format(),
        convention: convention.key(),
        usage_note: usage_note(convention),
        bytes_unit: reader.bytes_unit().unwrap_or("UTF-8 bytes"),
        traces: rows
            .iter()
            .zip(written)
            .map(|(t, path)| TraceSummary {
                file: &t.file,
                scenario: path.display().to_string(),
                name: &t.name,
                trace: t.role.as_str(),
                part: t.part,
                reset: t.reset,
                zero_usage: t.zero_usage,
                session_id: t.session_id.as_deref(),
                parent_session: t.parent_session.as_deref(),
                agent_id: t.agent_id.as_deref(),
                user_id: t.identity.user_id.as_deref(),
                organization_id: t.identity.organization_id.as_deref(),
                account_uuid: t.identity.account_uuid.as_deref(),
                team: t.identity.team.as_ref().map(|(k, v)| format!("{k}={v}")),
                requests: t.requests,
                duplicates_removed: t.duplicates_removed,
                malformed_lines: t.malformed.len(),
                usage: t.unmeasured.is_none().then_some(t.usage),
                run_totals: t.unmeasured,
                estimated_input_tokens: t.estimated_input_tokens,
                input_difference_pct: t
                    .estimated_input_tokens
                    .zip(t.unmeasured.and_then(|u| u.tokens_sent))
                    .filter(|(_, sent)| *sent > 0)
                    .map(|(est, sent)| (est - sent as f64) / sent as f64 * 100.0),
                steps: t.unmeasured.is_some().then_some(t.requests),
                model: t.model.as_deref(),
                convention: convention.key(),
                malformed: &t.malformed,
            })
            .collect(),
        files_without_requests: &a.leftovers,
        unreadable_files: &loaded.unreadable,
        skipped: a
            .skipped
            .iter()
            .map(|(k, s)| {
                (
                    k.as_str(),
                    SkippedSummary {
                        lines: s.lines,
                        known: s.known,
                    },
                )
            })
            .collect(),
        malformed: &a.malformed,
        model_warnings: warnings::of(&rows.iter().map(model_use).collect::<Vec<_>>()),
        attachments: &a.attachments,
        cache_lifetime: lifetime_note.is_some().then_some(lifetime),
        cache_lifetime_note: lifetime_note,
        fit,
    };
    match format {
        Format::Json => json::write(out, &summary)?,
        Format::Table => table(out, reader, &summary)?,
    }
    // On stderr, so they show beside a table and never break the JSON.
    let mut err = io::stderr().lock();
    for w in &summary.model_warnings {
        writeln!(err, "warning: {}", printable(&w.message))?;
    }
    for t in summary.traces.iter().filter(|t| t.zero_usage) {
        writeln!(
            err,
            "warning: {}: every one of its {} reports a usage of 0 tokens (input, cache and output{}): the log's usage is a placeholder, as a proxy that does not pass the provider's usage on writes it; its measured figures are not measures, and it is not fitted",
            printable(t.name),
            crate::number::plural(t.requests, "request", "requests"),
            t.model
                .map(|m| format!("; model {}", printable(m)))
                .unwrap_or_default()
        )?;
    }
    Ok(())
}

fn usage_note(c: Convention) -> String {
    format!(
        "measured: the provider's usage fields, summed over deduplicated requests ({}); logs hold no HTTP retries, so this is not a bill",
        c.describe()
    )
}

fn table(out: &mut dyn Write, reader: &dyn Reader, s: &Summary) -> io::Result<()> {
    let files: std::collections::BTreeSet<&str> = s
        .traces
        .iter()
        .map(|t| t.file)
        .chain(s.files_without_requests.iter().map(|l| l.file.as_str()))
        .collect();
    writeln!(
        out,
        "Imported {} trace{} from {} {} file{}.",
        s.traces.len(),
        plural(s.traces.len()),
        files.len(),
        reader.product(),
        plural(files.len())
    )?;
    if s.traces.iter().any(|t| t.usage.is_some()) || s.traces.is_empty() {
        writeln!(out, "Token sums are {}.", s.usage_note)?;
    } else {
        writeln!(
            out,
            "No request is measured in these logs (no token sums per trace): the runs' own totals are below."
        )?;
    }
    if let Some(note) = &s.cache_lifetime_note {
        writeln!(out, "{note}")?;
    }
    if reader.bytes_unit().is_some() {
        writeln!(out, "Bytes (what joined the context) are {}.", s.bytes_unit)?;
    }
    writeln!(out)?;
    let width = s
        .traces
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(8)
        .clamp(8, 60);
    let creation = s.traces.iter().any(|t| {
        t.usage
            .is_some_and(|u| u.cache_creation_input_tokens.is_some())
    });
    let columns: &[&str] = if creation {
        &[
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        ]
    } else {
        &["input_tokens", "cache_read_input_tokens", "output_tokens"]
    };
    let mut head1 = format!(
        "{:<width$}  {:<18}  {:>8}  {:>10}  {:>9}",
        "scenario", "trace", "requests", "duplicates", "malformed"
    );
    let mut head2 = format!(
        "{:<width$}  {:<18}  {:>8}  {:>10}  {:>9}",
        "", "", "", "removed", "lines"
    );
    for c in columns {
        head1.push_str(&format!("  {c:>w$}", w = c.len().max(13)));
        head2.push_str(&format!("  {:>w$}", "(measured)", w = c.len().max(13)));
    }
    writeln!(out, "{head1}\n{head2}")?;
    for t in &s.traces {
        let u = t.usage;
        let trace = if t.part > 1 {
            format!("{} {}", t.trace, t.part)
        } else {
            t.trace.to_string()
        };
        let mut row = format!(
            "{:<width$}  {:<18}  {:>8}  {:>10}  {:>9}",
            t.name, trace, t.requests, t.duplicates_removed, t.malformed_lines
        );
        // A log that measures no request shows none (its totals are said below).
        let values: Vec<Option<u64>> = match (u, creation) {
            (None, _) => vec![None; columns.len()],
            (Some(u), true) => vec![
                Some(u.input_tokens),
                u.cache_creation_input_tokens,
                Some(u.cache_read_input_tokens),
                Some(u.output_tokens),
            ],
            (Some(u), false) => vec![
                Some(u.input_tokens),
                Some(u.cache_read_input_tokens),
                Some(u.output_tokens),
            ],
        };
        for (c, v) in columns.iter().zip(values) {
            let text = v.map_or_else(|| "—".to_string(), |x| grouped(x as f64, 0));
            row.push_str(&format!("  {text:>w$}", w = c.len().max(13)));
        }
        writeln!(out, "{row}")?;
        writeln!(
            out,
            "{:width$}  from {} → {}",
            "",
            printable(t.file),
            printable(&t.scenario)
        )?;
    }
    run_totals(out, s)?;
    let resets: Vec<&TraceSummary> = s.traces.iter().filter(|t| t.reset.is_some()).collect();
    if !resets.is_empty() {
        writeln!(
            out,
            "\nTraces started where the measured input fell with no compaction in the log (by more than {} % and {} tokens: a context reset), each a scenario of its own:",
            Reset::SHARE * 100.0,
            grouped(Reset::MIN_TOKENS as f64, 0)
        )?;
        for t in resets {
            if let Some(r) = t.reset {
                writeln!(
                    out,
                    "  {}: {} → {} tokens at its first request",
                    t.name,
                    grouped(r.from_input_tokens as f64, 0),
                    grouped(r.to_input_tokens as f64, 0)
                )?;
            }
        }
    }
    if !s.unreadable_files.is_empty() {
        writeln!(
            out,
            "\nFiles that could not be read (no scenario; the rest was imported):"
        )?;
        for u in s.unreadable_files {
            writeln!(out, "  {}: {}", printable(&u.file), printable(&u.reason))?;
        }
    }
    if !s.files_without_requests.is_empty() {
        writeln!(out, "\nFiles with no request of their own (no scenario):")?;
        for l in s.files_without_requests {
            let lines = |n: u64| format!("{n} line{}", if n == 1 { "" } else { "s" });
            // Another format's log among this one's: say which, and how to import it.
            let other = super::other_format(reader, l);
            let why = match (l.lines, l.duplicates_removed, other) {
                (0, _, _) => "empty".to_string(),
                (n, _, _) if l.note.is_some() => {
                    format!("{}: {}", lines(n), l.note.as_deref().unwrap_or_default())
                }
                (n, _, Some(o)) => format!(
                    "{}, none a request: its lines are {}'s; import it with `simulate import {} …`",
                    lines(n),
                    o.product(),
                    o.format()
                ),
                (n, 0, None) => lines(n),
                (n, d, None) => format!(
                    "{}; {d} request copies already in an earlier file",
                    lines(n)
                ),
            };
            writeln!(out, "  {} ({why})", printable(&l.file))?;
        }
    }
    if !s.skipped.is_empty() {
        let list = |known: bool| -> String {
            s.skipped
                .iter()
                .filter(|(_, v)| v.known == known)
                .map(|(k, v)| format!("{} {}", printable(k), v.lines))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let known = list(true);
        let unknown = list(false);
        writeln!(out, "\nSkipped lines by type:")?;
        if !known.is_empty() {
            writeln!(out, "  known, holding no request: {known}")?;
        }
        if !unknown.is_empty() {
            writeln!(out, "  unknown types (a newer log version?): {unknown}")?;
        }
    }
    if !s.attachments.is_empty() {
        let list: Vec<String> = s
            .attachments
            .iter()
            .map(|(k, a)| {
                if a.joins {
                    format!(
                        "{} {} ({} bytes joined the context)",
                        printable(k),
                        a.lines,
                        grouped(a.bytes as f64, 0)
                    )
                } else {
                    format!("{} {} (the client's own, not sent)", printable(k), a.lines)
                }
            })
            .collect();
        writeln!(out, "\nAttachment lines by type: {}", list.join(", "))?;
    }
    if !s.malformed.is_empty() {
        writeln!(
            out,
            "\nMalformed lines ({}), skipped; the rest was imported:",
            s.malformed.len()
        )?;
        for m in s.malformed.iter().take(MALFORMED_LISTED) {
            writeln!(
                out,
                "  {}:{}: {}",
                printable(&m.file),
                m.line,
                printable(&m.reason)
            )?;
        }
        if s.malformed.len() > MALFORMED_LISTED {
            writeln!(
                out,
                "  … and {} more (all of them with --format json)",
                s.malformed.len() - MALFORMED_LISTED
            )?;
        }
    }
    if let Some(fit) = s.fit {
        fit_table(out, fit, width)?;
    }
    let suggested = s
        .traces
        .iter()
        .find(|t| t.trace == "main")
        .or(s.traces.first());
    if let Some(fit) = s.fit {
        // Point at a scenario whose fit was written, main traces first: "at the fitted
        // values" must be true of the one named.
        let written = |t: &&TraceSummary| {
            fit.iter().any(|q| {
                q.status == "written"
                    && std::path::Path::new(&t.scenario)
                        .file_stem()
                        .is_some_and(|f| f == q.name.as_str())
            })
        };
        let fitted = s
            .traces
            .iter()
            .filter(written)
            .find(|t| t.trace == "main")
            .or_else(|| s.traces.iter().find(written));
        match (fitted, suggested) {
            (Some(t), _) => writeln!(
                out,
                "\nNext: simulate {}   (the reread ledger at the fitted values; add [[edit]] tables to compare changes)",
                printable(&t.scenario)
            )?,
            (None, Some(t)) => writeln!(
                out,
                "\nNext: simulate {}   (no fit was good enough to write: the reread ledger at the values as imported; add [[edit]] tables to compare changes)",
                printable(&t.scenario)
            )?,
            (None, None) => {}
        }
    } else if let Some(first) = suggested.filter(|t| t.run_totals.is_some()) {
        writeln!(
            out,
            "\nNext: simulate {}   (the reread ledger at B and ρ as estimated: the log measures no request to fit them to; add [[edit]] tables to compare changes)",
            printable(&first.scenario)
        )?;
    } else if let Some(first) = suggested {
        writeln!(
            out,
            "\nNext: simulate fit {0}   (fit B and ρ to the measured usage)\n      simulate {0}       (the reread ledger; add [[edit]] tables to compare changes)",
            printable(&first.scenario)
        )?;
    }
    Ok(())
}

/// The quality table of `--fit`: one row a trace, then how many meet the marks.
fn fit_table(out: &mut dyn Write, fit: &[Quality], width: usize) -> io::Result<()> {
    writeln!(
        out,
        "\nFit of each trace (as `simulate fit`; good fits are written into their scenario, labelled \"fitted at import\"):"
    )?;
    writeln!(
        out,
        "{:<width$}  {:>6}  {:>7}  {:>9}  {:>6}  {:>9}  {:>9}  {:>9}  {:>6}  {:>7}  {:>5}  {:>8}  {:>8}  status",
        "scenario",
        "calls",
        "R²",
        "B",
        "ρ",
        "tok/call",
        "tok/tool",
        "tok/image",
        "miss μ",
        "TTL s",
        "warm",
        "residual",
        "cost Δ"
    )?;
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "—".into());
    for q in fit.iter().filter(|q| q.r_squared.is_some()) {
        let term = |key: &str| {
            q.terms
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| grouped(*v, 0))
        };
        writeln!(
            out,
            "{:<width$}  {:>6}  {:>7}  {:>9}  {:>6}  {:>9}  {:>9}  {:>9}  {:>6}  {:>7}  {:>5}  {:>8}  {:>8}  {}{}{}",
            q.name,
            q.calls,
            or_dash(q.r_squared.map(|r| format!("{r:.4}"))),
            or_dash(q.base_tokens.map(|b| grouped(b, 0))),
            or_dash(q.bytes_per_token.map(crate::number::decimal)),
            or_dash(term("tokens_per_call")),
            or_dash(term("tokens_per_loaded_tool")),
            or_dash(term("tokens_per_image")),
            or_dash(q.miss_share.map(|m| format!("{m:.3}"))),
            or_dash(q.ttl_s.map(|t| grouped(t.ceil(), 0))),
            or_dash(q.warm_share.map(|w| format!("{w:.2}"))),
            or_dash(q.median_residual_pct.map(|r| format!("{r:.1} %"))),
            or_dash(q.cost_difference_pct.map(|c| format!("{c:+.1} %"))),
            q.status,
            if q.status != "written" && !q.cache_written.is_empty() {
                " (cache terms written)"
            } else {
                ""
            },
            q.reason
                .as_ref()
                .map_or_else(String::new, |r| format!(": {r}"))
        )?;
    }
    let unfitted: Vec<&Quality> = fit.iter().filter(|q| q.r_squared.is_none()).collect();
    if !unfitted.is_empty() {
        // One line for all of them: most are subagents of one or two requests.
        let mut reasons: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for q in &unfitted {
            let reason = q.reason.as_deref().unwrap_or("not fitted");
            let reason = reason.split(": it has").next().unwrap_or(reason);
            reasons.entry(reason).or_default().push(&q.name);
        }
        for (reason, names) in reasons {
            writeln!(
                out,
                "  not fitted, {reason}: {} ({})",
                names.len(),
                names.join(", ")
            )?;
        }
    }
    let fitted: Vec<&Quality> = fit.iter().filter(|q| q.r_squared.is_some()).collect();
    let good = fitted
        .iter()
        .filter(|q| q.r_squared.is_some_and(|r| r >= 0.98))
        .count();
    let costs: Vec<f64> = fit.iter().filter_map(|q| q.cost_difference_pct).collect();
    let close = costs.iter().filter(|c| c.abs() <= 5.0).count();
    // A fit is not a write: say how many of the fits went into their scenario.
    let status = |s: &str| fitted.iter().filter(|q| q.status == s).count();
    let mut outcome = vec![format!("{} written", status("written"))];
    for s in ["poor", "refused"] {
        if status(s) > 0 {
            outcome.push(format!("{} {s}", status(s)));
        }
    }
    writeln!(
        out,
        "  {} of {} fitted ({}); R² ≥ 0.98 in {good}; cost within ±5 % of the measured in {close} of {} with a measured cost. (tok/…: fitted named terms, tokens per unit; miss μ, TTL s, warm: the cache terms the reads prove, written even where B and ρ are not; residual: median |measured − fitted| of measured; cost Δ: simulated against measured cost, at the values written.)",
        fitted.len(),
        fit.len(),
        outcome.join(", "),
        costs.len()
    )?;
    breaks_lines(out, fit)
}

/// The cache breaks of every trace by class, and the largest five with their trace
/// (breaks.csv has every one).
fn breaks_lines(out: &mut dyn Write, fit: &[Quality]) -> io::Result<()> {
    let all: Vec<(&str, &crate::fit::breaks::Break)> = fit
        .iter()
        .flat_map(|q| q.breaks.iter().map(move |b| (q.name.as_str(), b)))
        .collect();
    if all.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\nCache breaks (requests that read more than {} tokens less than a perfect prefix cache would; priced at written × (write − read) of each request's model; breaks.csv has every one):",
        grouped(crate::fit::breaks::BREAK_MIN_TOKENS, 0)
    )?;
    crate::output::breaks::by_class(
        out,
        &crate::fit::breaks::by_class(all.iter().map(|(_, b)| *b)),
        "  ",
    )?;
    let mut largest = all.clone();
    largest.sort_by(|a, b| b.1.written_tokens.total_cmp(&a.1.written_tokens));
    writeln!(out, "  largest:")?;
    for (name, b) in largest.iter().take(crate::output::breaks::LARGEST) {
        writeln!(out, "    {name}: {}", crate::output::breaks::one(b))?;
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// For logs that measure no request (SWE-agent): each trace's summed input as its
/// scenario gives it beside the run's measured `tokens_sent`, with the difference and what
/// each side counts (steps written against the API calls made, which include retries).
fn run_totals(out: &mut dyn Write, s: &Summary) -> io::Result<()> {
    let runs: Vec<&TraceSummary> = s.traces.iter().filter(|t| t.run_totals.is_some()).collect();
    if runs.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\nNo request is measured in these logs: each run's summed input as its scenario gives it (estimated tokens: B from the first query's bytes and ρ assumed, not fitted) beside the run's measured tokens_sent (info.model_stats):"
    )?;
    for t in runs {
        let Some(r) = t.run_totals else { continue };
        let est = t
            .estimated_input_tokens
            .map_or_else(|| "— (no base in the log)".to_string(), |e| grouped(e, 0));
        let sent = r
            .tokens_sent
            .map_or_else(|| "—".to_string(), |x| grouped(x as f64, 0));
        let diff = t
            .input_difference_pct
            .map_or_else(|| "—".to_string(), |d| format!("{d:+.1} %"));
        let calls = r
            .api_calls
            .map_or_else(|| "—".to_string(), |x| x.to_string());
        let cost = r
            .instance_cost_usd
            .map(|c| format!("; instance_cost ${c:.4}"))
            .unwrap_or_default();
        writeln!(
            out,
            "  {}: simulated {est} est. tokens over {} steps; tokens_sent {sent} over {calls} api_calls; difference {diff} of tokens_sent{cost}",
            printable(t.name),
            t.steps.unwrap_or(t.requests),
        )?;
    }
    Ok(())
}
