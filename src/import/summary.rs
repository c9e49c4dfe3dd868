//! What an import printed: per trace the file, the scenario written, its request count and
//! its measured token sums; then skipped and malformed lines. A table for people, JSON for
//! tools. A model the price data cannot price is a warning on stderr (and in the JSON),
//! never a silent flat cost.
//!
//! Token sums carry the provider's own field names and convention: they are measured
//! counts, summed after deduplication, not estimates (and not a bill: retries are not in
//! the logs).

use super::assemble::{Assembled, Leftover};
use super::event::Malformed;
use super::trace::{Trace, UsageSums};
use super::{Convention, Reader};
use crate::app::Format;
use crate::cache::{models, presets};
use crate::output::{json, number::grouped};
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
    pub traces: Vec<TraceSummary<'a>>,
    pub files_without_requests: &'a [Leftover],
    /// Skipped lines by type.
    pub skipped: BTreeMap<&'a str, SkippedSummary>,
    /// Every malformed line of every file.
    pub malformed: &'a [Malformed],
    /// Models the price data cannot price in full, and what that does to the scenarios.
    pub model_warnings: Vec<ModelWarning>,
}

/// A model the price data lacks, or lacks terms of (also printed on stderr).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelWarning {
    /// The model id as the log names it.
    pub model: String,
    /// The price data's entry it maps to, if any.
    pub priced_as: Option<String>,
    /// What is missing: `prices` and `cache terms` for an unknown model, else the terms
    /// (`minimum cacheable tokens`, `1-hour cache write price`, …).
    pub missing: Vec<&'static str>,
    /// Scenarios whose model it is.
    pub scenarios: Vec<String>,
    /// Scenarios where it made only some of the calls.
    pub some_calls_of: Vec<String>,
    /// The warning, as printed.
    pub message: String,
}

/// Which models a scenario's calls used.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelUse<'a> {
    pub scenario: &'a str,
    /// The model most calls used: it picks `[cache]` and `[price]`.
    pub model: Option<&'a str>,
    /// Whether most cache writes were 1-hour ones (the 1-hour preset is wanted).
    pub one_hour: bool,
    /// The other models some calls used.
    pub others: Vec<&'a str>,
}

impl<'a> ModelUse<'a> {
    pub fn of(t: &'a Trace) -> ModelUse<'a> {
        let model = t.model();
        let mut others: Vec<&str> = Vec::new();
        for m in t.calls.iter().filter_map(|c| c.model.as_deref()) {
            if Some(m) != model && !others.contains(&m) {
                others.push(m);
            }
        }
        ModelUse {
            scenario: &t.name,
            model,
            one_hour: t.mostly_one_hour_cache(),
            others,
        }
    }
}

/// The warnings of an import: one per model and what it lacks, in order of first use.
/// A scenario's own model without cache terms makes its cost flat; one without prices
/// leaves it without dollars; another model of some calls leaves their measured dollars
/// uncomputed.
pub fn model_warnings(uses: &[ModelUse]) -> Vec<ModelWarning> {
    const UNKNOWN: [&str; 2] = ["prices", "cache terms"];
    let mut warnings: Vec<ModelWarning> = Vec::new();
    let mut add = |model: &str, missing: Vec<&'static str>, scenario: &str, own: bool| {
        let at = match warnings
            .iter()
            .position(|w| w.model == model && w.missing == missing)
        {
            Some(i) => i,
            None => {
                warnings.push(ModelWarning {
                    model: model.to_string(),
                    priced_as: models::find(model).map(|m| m.name.clone()),
                    missing,
                    scenarios: Vec::new(),
                    some_calls_of: Vec::new(),
                    message: String::new(),
                });
                warnings.len() - 1
            }
        };
        let w = &mut warnings[at];
        let list = if own {
            &mut w.scenarios
        } else {
            &mut w.some_calls_of
        };
        if !list.iter().any(|s| s == scenario) {
            list.push(scenario.to_string());
        }
    };
    for u in uses {
        match u.model {
            None => add("", UNKNOWN.to_vec(), u.scenario, true),
            Some(m) => {
                let missing = models::find(m).map_or(UNKNOWN.to_vec(), |t| t.missing(u.one_hour));
                if !missing.is_empty() {
                    add(m, missing, u.scenario, true);
                }
            }
        }
        for m in &u.others {
            if models::find(m).is_none() {
                add(m, UNKNOWN.to_vec(), u.scenario, false);
            }
        }
    }
    for w in &mut warnings {
        w.message = message(w);
    }
    warnings
}

/// At most 3 scenario names, then how many more.
fn scenario_list(names: &[String]) -> String {
    const SHOWN: usize = 3;
    let shown: Vec<&str> = names.iter().take(SHOWN).map(String::as_str).collect();
    match names.len().checked_sub(SHOWN) {
        Some(more) if more > 0 => format!("{} and {more} more", shown.join(", ")),
        _ => models::in_words(&shown),
    }
}

/// A log's model id as a message shows it: quoted, escaped, at most 80 characters.
fn shown(model: &str) -> String {
    const MAX: usize = 80;
    let mut s: String = model.chars().take(MAX).collect();
    if model.chars().nth(MAX).is_some() {
        s.push('…');
    }
    format!("\"{}\"", s.escape_debug())
}

fn message(w: &ModelWarning) -> String {
    let data = models::described();
    let name = format!("model {}", shown(&w.model));
    let mut parts: Vec<String> = Vec::new();
    if !w.scenarios.is_empty() {
        let of = scenario_list(&w.scenarios);
        parts.push(match &w.priced_as {
            _ if w.model.is_empty() => format!(
                "the log names no model for {of}: no [cache] or [price] was written, so its cost is flat (every input token costs 1) and has no dollars; give [cache] and [price] in the scenario"
            ),
            None => format!(
                "{name} is not in the {data}: no prices and no prompt-cache terms, so no [cache] or [price] was written and the cost of {of} is flat (every input token costs 1), with no dollars; give [cache] and [price] in the scenario, or add the model to src/cache/overlay.toml"
            ),
            Some(entry) => {
                let missing = models::in_words(&w.missing);
                let is = if *entry == w.model {
                    format!("{name} is in the {data} but has no {missing}")
                } else {
                    format!("{name} is \"{entry}\" in the {data}, which has no {missing}")
                };
                match presets::for_model(&w.model, true) {
                    // Only the 1-hour terms are missing: the 5-minute preset stands in.
                    Some(p) => format!(
                        "{is}, though most cache writes of {of} were 1-hour ones: the 5-minute preset \"{p}\" was written instead; give [cache] write and ttl_s for the 1-hour cache"
                    ),
                    None => format!(
                        "{is}: no [cache] was written, so the cost of {of} is flat (every input token costs 1); give [cache] in the scenario, or add the terms to src/cache/overlay.toml"
                    ),
                }
            }
        });
    }
    if !w.some_calls_of.is_empty() {
        parts.push(format!(
            "{name}, which made some calls of {}, is not in the {data}: their measured dollars are not computed",
            scenario_list(&w.some_calls_of)
        ));
    }
    parts.join("; ")
}

/// One trace in the JSON report.
#[derive(Debug, Serialize)]
pub struct TraceSummary<'a> {
    pub file: &'a str,
    /// The scenario file written.
    pub scenario: String,
    pub name: &'a str,
    /// `main`, `subagent` or `after-compaction`.
    pub trace: &'static str,
    pub part: u32,
    pub session_id: Option<&'a str>,
    pub parent_session: Option<&'a str>,
    pub agent_id: Option<&'a str>,
    pub requests: usize,
    pub duplicates_removed: u64,
    pub malformed_lines: usize,
    /// Measured usage summed over the deduplicated requests, in the provider's fields.
    pub usage: UsageSums,
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

/// Prints the summary of an import whose scenarios went to `written` (in trace order).
pub fn print(
    out: &mut dyn Write,
    format: Format,
    reader: &dyn Reader,
    a: &Assembled,
    written: &[PathBuf],
) -> io::Result<()> {
    let convention = reader.convention();
    let summary = Summary {
        format: reader.format(),
        convention: convention.key(),
        usage_note: usage_note(convention),
        traces: a
            .traces
            .iter()
            .zip(written)
            .map(|(t, path)| TraceSummary {
                file: &t.file,
                scenario: path.display().to_string(),
                name: &t.name,
                trace: t.role.as_str(),
                part: t.part,
                session_id: t.session_id.as_deref(),
                parent_session: t.parent_session.as_deref(),
                agent_id: t.agent_id.as_deref(),
                requests: t.calls.len(),
                duplicates_removed: t.duplicates_removed,
                malformed_lines: t.malformed.len(),
                usage: t.usage(),
                model: t.model(),
                convention: convention.key(),
                malformed: &t.malformed,
            })
            .collect(),
        files_without_requests: &a.leftovers,
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
        model_warnings: model_warnings(&a.traces.iter().map(ModelUse::of).collect::<Vec<_>>()),
    };
    match format {
        Format::Json => json::write(out, &summary)?,
        Format::Table => table(out, reader, &summary)?,
    }
    // On stderr, so they show beside a table and never break the JSON.
    let mut err = io::stderr().lock();
    for w in &summary.model_warnings {
        writeln!(err, "warning: {}", w.message)?;
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
    writeln!(out, "Token sums are {}.\n", s.usage_note)?;
    let width = s
        .traces
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(8)
        .clamp(8, 60);
    let creation = s
        .traces
        .iter()
        .any(|t| t.usage.cache_creation_input_tokens.is_some());
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
        let u = &t.usage;
        let trace = if t.part > 1 {
            format!("{} {}", t.trace, t.part)
        } else {
            t.trace.to_string()
        };
        let mut row = format!(
            "{:<width$}  {:<18}  {:>8}  {:>10}  {:>9}",
            t.name, trace, t.requests, t.duplicates_removed, t.malformed_lines
        );
        let values: Vec<Option<u64>> = if creation {
            vec![
                Some(u.input_tokens),
                u.cache_creation_input_tokens,
                Some(u.cache_read_input_tokens),
                Some(u.output_tokens),
            ]
        } else {
            vec![
                Some(u.input_tokens),
                Some(u.cache_read_input_tokens),
                Some(u.output_tokens),
            ]
        };
        for (c, v) in columns.iter().zip(values) {
            let text = v.map_or_else(|| "—".to_string(), |x| grouped(x as f64, 0));
            row.push_str(&format!("  {text:>w$}", w = c.len().max(13)));
        }
        writeln!(out, "{row}")?;
        writeln!(out, "{:width$}  from {} → {}", "", t.file, t.scenario)?;
    }
    if !s.files_without_requests.is_empty() {
        writeln!(out, "\nFiles with no request of their own (no scenario):")?;
        for l in s.files_without_requests {
            let why = match (l.lines, l.duplicates_removed) {
                (0, _) => "empty".to_string(),
                (n, 0) => format!("{n} lines"),
                (n, d) => format!("{n} lines; {d} request copies already in an earlier file"),
            };
            writeln!(out, "  {} ({why})", l.file)?;
        }
    }
    if !s.skipped.is_empty() {
        let list = |known: bool| -> String {
            s.skipped
                .iter()
                .filter(|(_, v)| v.known == known)
                .map(|(k, v)| format!("{k} {}", v.lines))
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
    if !s.malformed.is_empty() {
        writeln!(
            out,
            "\nMalformed lines ({}), skipped; the rest was imported:",
            s.malformed.len()
        )?;
        for m in s.malformed.iter().take(MALFORMED_LISTED) {
            writeln!(out, "  {}:{}: {}", m.file, m.line, m.reason)?;
        }
        if s.malformed.len() > MALFORMED_LISTED {
            writeln!(
                out,
                "  … and {} more (all of them with --format json)",
                s.malformed.len() - MALFORMED_LISTED
            )?;
        }
    }
    let suggested = s
        .traces
        .iter()
        .find(|t| t.trace == "main")
        .or(s.traces.first());
    if let Some(first) = suggested {
        writeln!(
            out,
            "\nNext: simulate fit {0}   (fit B and ρ to the measured usage)\n      simulate {0}       (the reread ledger; add [[edit]] tables to compare changes)",
            first.scenario
        )?;
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses<'a>(
        scenario: &'a str,
        model: Option<&'a str>,
        one_hour: bool,
        others: &[&'a str],
    ) -> ModelUse<'a> {
        ModelUse {
            scenario,
            model,
            one_hour,
            others: others.to_vec(),
        }
    }

    #[test]
    fn known_models_with_all_their_terms_give_no_warning() {
        let all = [
            uses(
                "a",
                Some("claude-sonnet-4-5-20250929"),
                true,
                &["claude-haiku-4-5-20251001"],
            ),
            uses(
                "b",
                Some("converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0"),
                true,
                &[],
            ),
            uses("c", Some("gpt-5-codex"), false, &[]),
        ];
        assert_eq!(model_warnings(&all), []);
    }

    #[test]
    fn an_unknown_model_is_named_once_with_every_scenario_it_leaves_flat() {
        let all = [
            uses("s1", Some("claude-fable-9"), false, &[]),
            uses("s2", Some("claude-fable-9"), true, &[]),
            uses("s3", Some("claude-fable-9"), false, &[]),
            uses("s4", Some("claude-fable-9"), false, &[]),
            uses("s5", Some("claude-opus-4-7"), false, &["claude-fable-9"]),
        ];
        let w = model_warnings(&all);
        assert_eq!(w.len(), 1);
        assert_eq!(
            (w[0].priced_as.as_deref(), w[0].missing.as_slice()),
            (None, ["prices", "cache terms"].as_slice())
        );
        assert_eq!(w[0].scenarios, ["s1", "s2", "s3", "s4"]);
        assert_eq!(w[0].some_calls_of, ["s5"]);
        assert_eq!(
            w[0].message,
            "model \"claude-fable-9\" is not in the price data (LiteLLM 1.110.2 and its overlay in src/cache/): no prices and no prompt-cache terms, so no [cache] or [price] was written and the cost of s1, s2, s3 and 1 more is flat (every input token costs 1), with no dollars; give [cache] and [price] in the scenario, or add the model to src/cache/overlay.toml; model \"claude-fable-9\", which made some calls of s5, is not in the price data (LiteLLM 1.110.2 and its overlay in src/cache/): their measured dollars are not computed"
        );
    }

    #[test]
    fn a_known_model_without_cache_terms_names_them() {
        let w = model_warnings(&[uses("v", Some("claude-3-haiku@20240307"), false, &[])]);
        assert_eq!(w[0].priced_as.as_deref(), Some("vertex_ai/claude-3-haiku"));
        assert_eq!(
            w[0].message,
            "model \"claude-3-haiku@20240307\" is \"vertex_ai/claude-3-haiku\" in the price data (LiteLLM 1.110.2 and its overlay in src/cache/), which has no cache read price, cache write price and minimum cacheable tokens: no [cache] was written, so the cost of v is flat (every input token costs 1); give [cache] in the scenario, or add the terms to src/cache/overlay.toml"
        );
        // Only the 1-hour write price missing: the 5-minute preset stands in, and says so.
        let apac = "apac.anthropic.claude-haiku-4-5-20251001-v1:0";
        let w = model_warnings(&[
            uses("h", Some(apac), true, &[]),
            uses("five", Some(apac), false, &[]),
        ]);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].missing, ["1-hour cache write price"]);
        assert_eq!(
            w[0].message,
            format!(
                "model \"{apac}\" is in the price data (LiteLLM 1.110.2 and its overlay in src/cache/) but has no 1-hour cache write price, though most cache writes of h were 1-hour ones: the 5-minute preset \"{apac}\" was written instead; give [cache] write and ttl_s for the 1-hour cache"
            )
        );
    }

    #[test]
    fn a_log_without_a_model_and_odd_model_ids_are_said_plainly() {
        let w = model_warnings(&[uses("n", None, false, &[])]);
        assert_eq!(
            w[0].message,
            "the log names no model for n: no [cache] or [price] was written, so its cost is flat (every input token costs 1) and has no dollars; give [cache] and [price] in the scenario"
        );
        let odd = format!("line\nbreak{}", "x".repeat(100));
        let w = model_warnings(&[uses("o", Some(&odd), false, &[])]);
        assert!(
            w[0].message.starts_with(&format!(
                "model \"line\\nbreak{}…\" is not in",
                "x".repeat(70)
            )),
            "{}",
            w[0].message
        );
    }
}
