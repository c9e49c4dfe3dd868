//! A trace → a scenario file (TOML) a person can read and `simulate` can run.
//!
//! Strings go through the `toml` crate, never by hand: labels and paths come from logs and
//! may hold quotes, backslashes or control characters. Files are staged and renamed
//! together ([`FileSet`]), so a failed import leaves no scenario behind.

use super::Reader;
use super::json::hex;
use super::quality::{self, Quality};
use super::summary::TraceRow;
use super::trace::{Trace, TraceRole, unmeasured_base_tokens};
use crate::cache::{models, presets};
use crate::error::Error;
use crate::output::FileSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The bytes per token written into every scenario (defined beside the traces, which
/// estimate with it too).
pub use super::trace::ASSUMED_BYTES_PER_TOKEN;

/// Tokens per tool definition loaded mid-session, until `simulate fit` sizes them on the
/// trace itself: the middle of what the fit found on the four Claude Code 2.1.114 traces of
/// the shared real logs that load deferred tools (1,131 to 1,519; docs/model.md §6.2).
pub const LOADED_TOOL_TOKENS_ESTIMATE: u64 = 1_400;
/// What the scenario says of it: assumed, and how to get the trace's own (never where
/// the estimate came from: that is the project's data, not the user's).
const LOADED_TOOL_TOKENS_SOURCE: &str = "assumed: a typical tool definition's size (not measured on this trace); run `simulate fit` for this trace's own";

/// What [`Stager::commit`] did: every trace's scenario path, in trace order, and with
/// `fit` each trace's fit.
#[derive(Debug)]
pub struct Written {
    pub paths: Vec<PathBuf>,
    pub quality: Option<Vec<Quality>>,
}

/// What became of one trace's scenario.
#[derive(Debug)]
enum Outcome {
    /// Staged, or already in `out` byte for byte (nothing to replace).
    Ready,
    /// In `out` already, with other bytes, and not `force`d: not staged.
    Changed,
    /// Refused by the loader's rules: the import stops, naming the log.
    Refused(Error),
    /// Staging it failed.
    Failed(Error),
}

/// One trace, staged: what the summary shows of it and what became of its scenario. The
/// trace itself (its calls) is dropped.
#[derive(Debug)]
pub struct Staged {
    pub row: TraceRow,
    outcome: Outcome,
    pub quality: Option<Quality>,
}

/// Renders, checks and stages scenarios into `out/<name>.toml`, from any number of
/// threads, then puts them all in place or none; with `fit`, fits each first and writes
/// good fits with the fitted values ([`quality`]).
///
/// Each trace's text is staged (or found already in place, byte for byte) and dropped as
/// soon as it is rendered: memory holds the scenarios in flight, not the import's.
///
/// A scenario already there that differs from what this import writes (fitted, given
/// edits, or from another log) is not replaced unless `force`: the whole import is refused,
/// naming the files (exit 2), so a re-import never silently undoes a user's work. Every
/// scenario is checked with the loader first ([`refusal`]): one it refuses stops the
/// import, naming the log. Either way nothing is written: the staged files, and any
/// folder made for them, are removed.
pub struct Stager<'a> {
    dir: &'a FileSet,
    out: &'a Path,
    reader: &'a dyn Reader,
    force: bool,
    fit: bool,
    /// Once one scenario stops the import, the others are still checked (the first
    /// refused in trace order is the one reported) but no longer staged.
    doomed: AtomicBool,
}

impl<'a> Stager<'a> {
    /// Stages into `dir`, the set prepared for `out` (it holds the folder's lock from
    /// then on, so a second import into it waits, then finds this one's scenarios in the
    /// comparison here; two never mix).
    pub fn new(
        dir: &'a FileSet,
        out: &'a Path,
        reader: &'a dyn Reader,
        force: bool,
        fit: bool,
    ) -> Stager<'a> {
        Stager {
            dir,
            out,
            reader,
            force,
            fit,
            doomed: AtomicBool::new(false),
        }
    }

    /// The usage convention of the logs staged.
    pub fn convention(&self) -> crate::scenario::Convention {
        self.reader.convention()
    }

    /// Renders, checks and stages the scenario of `t`.
    pub fn stage(&self, t: Trace) -> Staged {
        let name = format!("{}.toml", t.name);
        let mut text = render(&t, self.reader);
        let quality = self.fit.then(|| match t.unmeasured {
            Some(_) => quality::unmeasured(&name, t.calls.len()),
            None => quality::assess_one(&name, &mut text, self.out),
        });
        let outcome = if let Some(e) = refusal(self.out, &t, &name, &text) {
            self.doomed.store(true, Ordering::Relaxed);
            Outcome::Refused(e)
        } else {
            match std::fs::read(self.out.join(&name)) {
                Ok(old) if old == text.as_bytes() => Outcome::Ready,
                Ok(_) if !self.force => {
                    self.doomed.store(true, Ordering::Relaxed);
                    Outcome::Changed
                }
                _ if self.doomed.load(Ordering::Relaxed) => Outcome::Ready,
                _ => match self.dir.write(&name, |w| w.write_all(text.as_bytes())) {
                    Ok(()) => Outcome::Ready,
                    Err(e) => {
                        self.doomed.store(true, Ordering::Relaxed);
                        Outcome::Failed(e)
                    }
                },
            }
        };
        Staged {
            row: TraceRow::of(&t),
            outcome,
            quality,
        }
    }
}

/// Puts every scenario of `staged` (in trace order) in place, or, where one was refused,
/// differs from what is there or failed, none (see [`Stager`]).
///
/// Errors: the first refused scenario in trace order; else the scenarios that differ
/// from what `out` holds; else the first that failed to stage or go in.
pub fn commit(
    dir: FileSet,
    out: &Path,
    staged: Vec<Staged>,
    fit: bool,
) -> Result<(Written, Vec<TraceRow>), Error> {
    let mut changed = Vec::new();
    let mut failed = None;
    let mut rows = Vec::with_capacity(staged.len());
    let mut quality = Vec::new();
    for s in staged {
        match s.outcome {
            Outcome::Refused(e) => return Err(e),
            Outcome::Changed => changed.push(format!("{}.toml", s.row.name)),
            Outcome::Failed(e) => failed = failed.or(Some(e)),
            Outcome::Ready => {}
        }
        quality.extend(s.quality);
        rows.push(s.row);
    }
    if let Some(first) = changed.first() {
        let more = match changed.len() {
            1 => String::new(),
            n => format!(" and {} more ({})", n - 1, changed[1..].join(", ")),
        };
        return Err(crate::error::Located::new(
            out.join(first).display().to_string(),
            format!(
                "already exists and differs from what this import would write{more} (fitted, edited, or imported from another log?): nothing was written; import into another --out, or pass --force to replace them"
            ),
        )
        .into());
    }
    if let Some(e) = failed {
        return Err(e);
    }
    if fit {
        // Every cache break of every trace, beside the scenarios they were found in.
        dir.write("breaks.csv", |w| {
            let mut csv = crate::output::breaks::BreaksCsv::new(w)?;
            for q in &quality {
                csv.add(&q.name, &q.breaks)?;
            }
            csv.finish()
        })?;
    }
    dir.commit()?;
    Ok((
        Written {
            paths: rows
                .iter()
                .map(|r| out.join(format!("{}.toml", r.name)))
                .collect(),
            quality: fit.then_some(quality),
        },
        rows,
    ))
}

/// Why the loader would refuse `text`, the scenario of `t` to be written as `out/name`, if
/// it would: text from a log is cleaned ([`clean`]), but a log can still hold a value out
/// of the scenario file's range (a count above 1e15). Such a file would break `simulate
/// history` for the whole folder, so it is never written.
fn refusal(out: &Path, t: &Trace, name: &str, text: &str) -> Option<Error> {
    // The same rules as reading it back: at most 8 MiB (`crate::input`), then valid.
    let why = if text.len() as u64 > crate::input::MAX_SCENARIO_BYTES {
        format!(
            "its {} requests take {} bytes, more than the {} bytes a scenario file may be",
            t.calls.len(),
            text.len(),
            crate::input::MAX_SCENARIO_BYTES
        )
    } else {
        crate::scenario::load_quick(text, &out.join(name))
            .err()?
            .to_string()
    };
    Some(
        crate::error::Located::new(
            &t.file,
            format!(
                "the scenario of this log's {} trace ({}.toml) would not load, so nothing was written: {why}",
                t.role.as_str(),
                t.name
            ),
        )
        .into(),
    )
}

/// A TOML string literal, escaped by the `toml` crate.
fn string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Seconds with at most 3 decimals, whole seconds as an integer.
fn seconds(x: f64) -> String {
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text.is_empty() || text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

/// Text from a log as the scenario file accepts it: control characters become spaces
/// (they would corrupt charts, pages and terminals, and the loader refuses them), runs of
/// spaces collapse, at most `max_chars` characters, never empty.
fn clean(text: &str, max_chars: usize, fallback: &str) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 4));
    let mut chars = 0;
    for c in text.chars() {
        let c = if c.is_control() { ' ' } else { c };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        if chars + 1 == max_chars {
            out.push('…');
            break;
        }
        out.push(c);
        chars += 1;
    }
    let trimmed = out.trim_end();
    if trimmed.is_empty() {
        fallback.to_string()
    } else {
        trimmed.to_string()
    }
}

/// Longest id, tool or model name the loader takes (characters).
const MAX_ID: usize = 200;
/// Longest label the loader takes (characters).
const MAX_LABEL: usize = 1000;

/// The scenario text of one trace.
pub fn render(t: &Trace, reader: &dyn Reader) -> String {
    let convention = reader.convention();
    let mut s = String::with_capacity(256 + t.calls.len() * 400);
    let _ = writeln!(
        s,
        "# Imported by simulate from a {} log: one [[call]] per API request, deduplicated.\n\
         # Where it came from (file, session, trace) is in [import] below.\n\
         #\n\
         {}\
         # `bytes` is what joined the context after the call: tool results, user text and\n\
         # attachments that reach the model, in {}. `output_bytes` is the model's own\n\
         # message as the next request sends it back (text, tool-use inputs, thinking): it\n\
         # joins in place of `output_tokens`, which are priced only; a call without it joins\n\
         # its `output_tokens`. `images` and `loaded_tools` count what [terms] sizes. base_tokens\n\
         # is the first request's measured total input, a starting point; bytes_per_token is\n\
         # assumed.\n\
         #\n\
         {}\
         # To go on:\n\
         {}\
         #   simulate <this file>       run the reread ledger; add [[edit]] tables to compare changes\n",
        reader.product(),
        match t.unmeasured {
            Some(_) => "# This log measures no request: no call has a [call.measured], its output_tokens are\n\
                        # unknown (its reply joins as output_bytes), and `simulate fit` has nothing to fit.\n\
                        # base_tokens is the first query's bytes ÷ the assumed bytes_per_token; the run's\n\
                        # measured totals (tokens_sent, tokens_received, api_calls, instance_cost_usd) are in\n\
                        # [import].\n"
                .to_string(),
            None => format!(
                "# [call.measured] holds the provider's own usage counts of each request\n# ({}).\n",
                convention.describe()
            ),
        },
        if reader.bytes_unit().is_some() {
            "the unit said below"
        } else {
            "UTF-8 bytes"
        },
        reader.bytes_unit().map_or_else(String::new, |unit| format!(
            "# The unit of `bytes` here: {unit}.\n#\n"
        )),
        if t.unmeasured.is_some() {
            ""
        } else {
            "#   simulate fit <this file>   fit B and ρ to the measured usage\n"
        },
    );

    let first = t.calls.first().map_or(0, |c| {
        c.measured.input_tokens
            + c.measured.cache_creation_input_tokens.unwrap_or(0)
            + c.measured.cache_read_input_tokens
    });
    let _ = writeln!(s, "name = {}", string(&t.name));
    let _ = writeln!(s, "description = {}", string(&description(t, reader)));
    let base_source = if first > 0 {
        format!(
            "estimated: the first request's measured total input, which includes the first prompt ({} import); run `simulate fit` for B and ρ",
            reader.format()
        )
    } else {
        format!(
            "assumed: 1 (the first request's measured total input is 0; {} import); run `simulate fit` for B and ρ",
            reader.format()
        )
    };
    let (base_tokens, base_source) = match t.unmeasured {
        // No request is measured: B is the base's bytes at the assumed ρ.
        Some(u) => match u
            .base_bytes
            .zip(u.base_bytes.and_then(unmeasured_base_tokens))
        {
            Some((b, tokens)) => (
                tokens,
                format!(
                    "estimated: the system prompt and first user message, {b} bytes ÷ the assumed bytes_per_token {ASSUMED_BYTES_PER_TOKEN} ({} import; the log measures no request)",
                    reader.format()
                ),
            ),
            None => (
                1,
                format!(
                    "assumed: 1 (the log shows no system prompt or first user message, and measures no request; {} import)",
                    reader.format()
                ),
            ),
        },
        None => (first.max(1), base_source),
    };
    let _ = writeln!(s, "base_tokens = {base_tokens}");
    let _ = writeln!(s, "base_tokens_source = {}", string(&base_source));
    let _ = writeln!(s, "bytes_per_token = {ASSUMED_BYTES_PER_TOKEN}");
    let _ = writeln!(
        s,
        "bytes_per_token_source = {}",
        string("assumed (default; run `simulate fit`)")
    );

    let _ = writeln!(s, "\n[import]");
    let _ = writeln!(s, "format = {}", string(reader.format()));
    let _ = writeln!(s, "file = {}", string(&t.file));
    if let Some(id) = &t.session_id {
        let _ = writeln!(s, "session_id = {}", string(id));
    }
    let _ = writeln!(s, "trace = {}", string(t.role.as_str()));
    let _ = writeln!(s, "part = {}", t.part);
    if t.role == TraceRole::Subagent {
        if let Some(p) = &t.parent_session {
            let _ = writeln!(s, "parent_session = {}", string(p));
        }
        if let Some(a) = &t.agent_id {
            let _ = writeln!(s, "agent_id = {}", string(a));
        }
    }
    if let Some(c) = &t.compaction {
        if let Some(trigger) = &c.trigger {
            let _ = writeln!(
                s,
                "compaction_trigger = {}",
                string(&clean(trigger, MAX_ID, "unknown"))
            );
        }
        if let Some(pre) = c.pre_tokens {
            let _ = writeln!(s, "compaction_pre_tokens = {pre}");
        }
        if let Some(bytes) = c.summary_bytes {
            let _ = writeln!(s, "compaction_summary_bytes = {bytes}");
        }
        if let Some(post) = c.post_tokens {
            let _ = writeln!(s, "compaction_post_tokens = {post}");
        }
    }
    if let Some(r) = &t.reset {
        let _ = writeln!(s, "reset_from_input_tokens = {}", r.from_input_tokens);
        let _ = writeln!(s, "reset_to_input_tokens = {}", r.to_input_tokens);
    }
    let (team_attribute, team) = match &t.identity.team {
        Some((k, v)) => (Some(k.clone()), Some(v.clone())),
        None => (None, None),
    };
    for (key, value) in [
        ("user_id", &t.identity.user_id),
        ("organization_id", &t.identity.organization_id),
        ("account_uuid", &t.identity.account_uuid),
        ("team", &team),
        ("team_attribute", &team_attribute),
    ] {
        if let Some(v) = value {
            let _ = writeln!(s, "{key} = {}", string(&clean(v, MAX_ID, "unknown")));
        }
    }
    let _ = writeln!(s, "requests = {}", t.calls.len());
    let _ = writeln!(s, "duplicates_removed = {}", t.duplicates_removed);
    let _ = writeln!(s, "malformed_lines = {}", t.malformed.len());
    let model = t.model();
    if let Some(m) = model {
        let _ = writeln!(s, "model = {}", string(&clean(m, MAX_ID, "unknown")));
    }
    let _ = writeln!(s, "convention = {}", string(convention.key()));
    if let Some(u) = t.unmeasured {
        // The run's own totals: the only usage such a log measures (no call has any).
        for (key, value) in [
            ("tokens_sent", u.tokens_sent),
            ("tokens_received", u.tokens_received),
            ("api_calls", u.api_calls),
        ] {
            if let Some(v) = value {
                let _ = writeln!(s, "{key} = {v}");
            }
        }
        if let Some(c) = u.instance_cost_usd.filter(|c| c.is_finite() && *c >= 0.0) {
            let _ = writeln!(s, "instance_cost_usd = {c}");
        }
    }

    if let Some(preset) = model.and_then(|m| presets::for_model(m, t.mostly_one_hour_cache())) {
        let _ = writeln!(s, "\n[cache]\npreset = {}", string(preset));
    }
    // Dollar prices from the price data, so every edit's $ saved can be shown.
    if let Some(m) = model.and_then(models::find) {
        let _ = writeln!(s, "\n[price]\nmodel = {}", string(&m.name));
    }
    // A loaded tool definition has no size in the log: an estimate until `simulate fit`.
    if t.calls.iter().any(|c| c.loaded_tools > 0) {
        let _ = writeln!(
            s,
            "\n[terms]\ntokens_per_loaded_tool = {LOADED_TOOL_TOKENS_ESTIMATE}\ntokens_per_loaded_tool_source = {}",
            string(LOADED_TOOL_TOKENS_SOURCE)
        );
    }

    // The base's parts the log shows (before the calls: the quick reader takes the header
    // through the general path).
    s.push_str(&super::parts::render(
        t,
        first.max(1),
        super::parts::Assumed {
            bytes_per_token: ASSUMED_BYTES_PER_TOKEN,
            tokens_per_definition: LOADED_TOOL_TOKENS_ESTIMATE as f64,
        },
    ));

    // Ids must be unique in a scenario; two requests of one log can share one (the same
    // requestId with two message ids), so a repeat gets a suffix.
    let mut ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (i, c) in t.calls.iter().enumerate() {
        let id = unique_id(
            &mut ids,
            clean(&c.id, MAX_ID - 16, &format!("request-{}", i + 1)),
            i,
        );
        let _ = writeln!(s, "\n[[call]]");
        let _ = writeln!(s, "id = {}", string(&id));
        let _ = writeln!(
            s,
            "label = {}",
            string(&clean(&c.label, MAX_LABEL, "(no label)"))
        );
        if let Some(tool) = &c.tool {
            let _ = writeln!(
                s,
                "tool = {}",
                string(&clean(tool, MAX_ID, "(unnamed tool)"))
            );
        }
        if !c.other_tools.is_empty() {
            let others: Vec<String> = c
                .other_tools
                .iter()
                .map(|t| string(&clean(t, MAX_ID, "(unnamed tool)")))
                .collect();
            let _ = writeln!(s, "other_tools = [{}]", others.join(", "));
        }
        let _ = writeln!(s, "kind = {}", string(c.kind));
        let _ = writeln!(s, "bytes = {}", c.bytes);
        if c.images > 0 {
            let _ = writeln!(s, "images = {}", c.images);
        }
        if c.loaded_tools > 0 {
            let _ = writeln!(s, "loaded_tools = {}", c.loaded_tools);
        }
        let _ = writeln!(s, "segment = {}", c.segment);
        if let Some(gap) = c.gap_s {
            let _ = writeln!(s, "gap_s = {}", seconds(gap));
        }
        if t.unmeasured.is_none() {
            let _ = writeln!(s, "output_tokens = {}", c.measured.output_tokens);
        }
        if let Some(b) = c.output_bytes {
            let _ = writeln!(s, "output_bytes = {b}");
        }
        if c.tool_input_bytes > 0 {
            let _ = writeln!(s, "tool_input_bytes = {}", c.tool_input_bytes);
        }
        if let Some(h) = c.input_hash {
            let _ = writeln!(s, "input_hash = {}", string(&hex(h)));
        }
        if t.unmeasured.is_some() {
            continue;
        }
        let m = &c.measured;
        let _ = writeln!(s, "[call.measured]");
        let _ = writeln!(s, "input_tokens = {}", m.input_tokens);
        if let Some(w) = m.cache_creation_input_tokens {
            let _ = writeln!(s, "cache_creation_input_tokens = {w}");
        }
        if let Some(w) = m.cache_creation_1h_input_tokens {
            let _ = writeln!(s, "cache_creation_1h_input_tokens = {w}");
        }
        let _ = writeln!(s, "cache_read_input_tokens = {}", m.cache_read_input_tokens);
        let _ = writeln!(s, "output_tokens = {}", m.output_tokens);
        if let Some(cost) = m.cost_usd.filter(|c| c.is_finite() && *c >= 0.0) {
            let _ = writeln!(s, "cost_usd = {cost}");
        }
        if let Some(model) = &c.model {
            let _ = writeln!(s, "model = {}", string(&clean(model, MAX_ID, "unknown")));
        }
        let _ = writeln!(s, "convention = {}", string(convention.key()));
    }
    s
}

/// `id`, or where an earlier call of the trace has it (two requests of one log can share an
/// id, and two ids can clean to the same text) `id#<n>` for the n-th call, or `id#<n>-2`, …:
/// never one already taken.
fn unique_id(taken: &mut std::collections::HashSet<String>, id: String, index: usize) -> String {
    let mut candidate = id.clone();
    let mut k = 1;
    while taken.contains(&candidate) {
        candidate = match k {
            1 => format!("{id}#{}", index + 1),
            _ => format!("{id}#{}-{k}", index + 1),
        };
        k += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

/// `Claude Code session 1a2b3c4d… (main trace), 44 requests, 2026-11-20 14:02–15:40 UTC`.
///
/// Session and agent ids come from the log: cleaned like labels, since the description
/// must load (no control characters) and is printed.
fn description(t: &Trace, reader: &dyn Reader) -> String {
    let session = t
        .session_id
        .as_deref()
        .map(|id| {
            let id = clean(id, MAX_ID, "?");
            let short: String = id.chars().take(8).collect();
            if short.len() < id.len() {
                format!(" {short}…")
            } else {
                format!(" {short}")
            }
        })
        .unwrap_or_default();
    let which = match (t.role, &t.agent_id) {
        (TraceRole::Subagent, Some(a)) => format!("subagent {} trace", clean(a, MAX_ID, "?")),
        (role, _) => format!("{} trace", role.as_str()),
    };
    let part = if t.part > 1 {
        format!(", part {}", t.part)
    } else {
        String::new()
    };
    let when = match t.span() {
        Some((a, b)) => {
            let day = |x: jiff::Timestamp| x.strftime("%Y-%m-%d").to_string();
            let hm = |x: jiff::Timestamp| x.strftime("%H:%M").to_string();
            if day(a) == day(b) {
                format!(", {} {}–{} UTC", day(a), hm(a), hm(b))
            } else {
                format!(", {} {} – {} {} UTC", day(a), hm(a), day(b), hm(b))
            }
        }
        None => String::new(),
    };
    let n = t.calls.len();
    let unit = reader
        .bytes_unit()
        .map_or_else(String::new, |u| format!("; bytes are {u}"));
    format!(
        "{} session{session} ({which}{part}), {n} request{}{when}{unit}",
        reader.product(),
        if n == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_have_at_most_three_decimals() {
        assert_eq!(seconds(0.0), "0");
        assert_eq!(seconds(4.2), "4.2");
        assert_eq!(seconds(3600.0), "3600");
        assert_eq!(seconds(1.23456), "1.235");
    }

    #[test]
    fn strings_are_escaped_by_toml() {
        let s = string("a \"quote\" \\ and\nnewline\u{1}");
        let parsed: toml::Value = toml::from_str(&format!("x = {s}")).unwrap();
        assert_eq!(
            parsed.get("x").and_then(|v| v.as_str()),
            Some("a \"quote\" \\ and\nnewline\u{1}")
        );
    }

    use crate::import::Format;
    use crate::import::event::Usage;
    use crate::import::trace::ImportedCall;
    use proptest::prelude::*;

    /// Text as logs may hold it: any characters, with the control characters of issue 16
    /// (U+0000, U+0001, ESC, DEL, U+0085), line breaks, quotes and backslashes often.
    fn log_text() -> impl Strategy<Value = String> {
        let special = prop::sample::select(vec![
            '\0', '\u{1}', '\u{1b}', '\u{7f}', '\u{85}', '\n', '\r', '\t', '"', '\\', ' ', '#',
            '\u{2028}', '\u{feff}', '…',
        ]);
        proptest::collection::vec(prop_oneof![any::<char>(), special], 0..24)
            .prop_map(String::from_iter)
    }

    fn call(
        id: String,
        label: String,
        tool: Option<String>,
        model: Option<String>,
    ) -> ImportedCall {
        ImportedCall {
            id,
            label,
            tool: tool.map(Into::into),
            other_tools: Vec::new(),
            kind: "tool",
            bytes: 10,
            images: 0,
            loaded_tools: 0,
            output_bytes: Some(3),
            tool_input_bytes: 0,
            segment: 1,
            gap_s: Some(1.5),
            input_hash: Some(7),
            measured: Usage {
                input_tokens: 3,
                cache_creation_input_tokens: Some(100),
                cache_creation_1h_input_tokens: None,
                cache_read_input_tokens: 50,
                output_tokens: 4,
                cost_usd: None,
            },
            model: model.map(Into::into),
            timestamp: None,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Issue 16 §3: whatever ids, session id, agent id, file name, labels, tools and
        /// models a log holds, every scenario the importer writes loads, and its calls keep
        /// distinct ids.
        #[test]
        fn any_id_string_makes_a_scenario_that_loads(
            ids in proptest::collection::vec(prop_oneof![log_text(), Just("a".to_string()), Just("a#2".to_string())], 1..6),
            session in proptest::option::of(log_text()),
            agent in proptest::option::of(log_text()),
            parent in proptest::option::of(log_text()),
            file in log_text(),
            label in log_text(),
            tool in proptest::option::of(log_text()),
            model in proptest::option::of(log_text()),
            user in proptest::option::of(log_text()),
            subagent in any::<bool>(),
            format in 0..3usize,
        ) {
            let calls: Vec<ImportedCall> = ids
                .iter()
                .map(|id| call(id.clone(), label.clone(), tool.clone(), model.clone()))
                .collect();
            let n = calls.len();
            let trace = Trace {
                unmeasured: None,
                file,
                session_id: session.map(Into::into),
                role: if subagent { TraceRole::Subagent } else { TraceRole::Main },
                part: 1,
                parent_session: parent.map(Into::into),
                agent_id: agent.map(Into::into),
                sidechain: None,
                compaction: None,
                reset: None,
                identity: crate::import::event::Identity {
                    user_id: user.clone().map(Into::into),
                    organization_id: user.map(Into::into),
                    ..Default::default()
                },
                project: None,
                declared: Default::default(),
                mcp_tools_used: Default::default(),
                calls,
                duplicates_removed: 0,
                malformed: Vec::new(),
                name: "session".into(),
            };
            let reader = [Format::ClaudeCode, Format::Codex, Format::Otel][format].reader();
            let text = render(&trace, reader);
            let loaded = crate::scenario::load_str(&text, Path::new("imported.toml"));
            prop_assert!(loaded.is_ok(), "{}\n{text}", loaded.err().map(|e| e.to_string()).unwrap_or_default());
            let loaded = loaded.ok().map(|s| s.calls.len());
            prop_assert_eq!(loaded, Some(n));
        }
    }

    /// The same, for the strings of issue 16 themselves: before the fix, a session or agent
    /// id with one of them went raw into the description, which the loader refuses.
    #[test]
    fn control_characters_in_session_and_agent_ids_are_cleaned_in_the_description() {
        for c in ['\0', '\u{1}', '\u{1b}', '\u{7f}', '\u{85}'] {
            let trace = Trace {
                unmeasured: None,
                file: format!("a{c}b.jsonl"),
                session_id: Some(format!("1a{c}2b-3c4d").into()),
                role: TraceRole::Subagent,
                part: 1,
                parent_session: Some(format!("p{c}").into()),
                agent_id: Some(format!("ag{c}x").into()),
                sidechain: None,
                compaction: None,
                reset: None,
                identity: Default::default(),
                project: None,
                declared: Default::default(),
                mcp_tools_used: Default::default(),
                calls: vec![call(format!("req{c}"), "Read".into(), None, None)],
                duplicates_removed: 0,
                malformed: Vec::new(),
                name: "session".into(),
            };
            let text = render(&trace, Format::ClaudeCode.reader());
            let s = crate::scenario::load_str(&text, Path::new("imported.toml"))
                .unwrap_or_else(|e| panic!("U+{:04X}: {e}", c as u32));
            assert_eq!(
                s.description.as_deref(),
                Some("Claude Code session 1a 2b-3c… (subagent ag x trace), 1 request")
            );
            assert_eq!(s.calls.at(0).id, "req");
            // Provenance stays exact: [import] is escaped by TOML, not cleaned.
            let import = s.import.expect("[import]");
            assert_eq!(import.session_id, Some(format!("1a{c}2b-3c4d")));
            assert_eq!(import.agent_id, Some(format!("ag{c}x")));
            assert_eq!(import.file, format!("a{c}b.jsonl"));
        }
    }

    #[test]
    fn ids_that_clean_alike_stay_distinct() {
        let mut taken = std::collections::HashSet::new();
        let got: Vec<String> = ["x", "x#3", "x", "x"]
            .iter()
            .enumerate()
            .map(|(i, id)| unique_id(&mut taken, (*id).to_string(), i))
            .collect();
        assert_eq!(got, ["x", "x#3", "x#3-2", "x#4"]);
    }

    /// What the importer writes passes the loader's file rules too: a scenario over 8 MiB
    /// (about 18,000 requests in one trace) would be refused by `simulate FILE` and by a
    /// history, so the import stops before writing, naming the log.
    #[test]
    fn a_scenario_over_the_loaders_cap_is_never_written() {
        let trace = Trace {
            unmeasured: None,
            file: "big.jsonl".into(),
            session_id: None,
            role: TraceRole::Main,
            part: 1,
            parent_session: None,
            agent_id: None,
            sidechain: None,
            compaction: None,
            reset: None,
            identity: Default::default(),
            project: None,
            declared: Default::default(),
            mcp_tools_used: Default::default(),
            calls: vec![call("r".into(), "Read".into(), None, None)],
            duplicates_removed: 0,
            malformed: Vec::new(),
            name: "session".into(),
        };
        let text = "x".repeat((8 << 20) + 1);
        let e = refusal(Path::new("out"), &trace, "session.toml", &text).unwrap();
        assert_eq!(
            e.to_string(),
            "big.jsonl: the scenario of this log's main trace (session.toml) would not load, so nothing was written: its 1 requests take 8388609 bytes, more than the 8388608 bytes a scenario file may be"
        );
    }
}
