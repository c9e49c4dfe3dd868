//! Claude Code's OpenTelemetry events, as an OpenTelemetry Collector's `file` exporter
//! writes them (OTLP/JSON, one export a line) → events.
//!
//! Unlike a transcript, one file holds many sessions, interleaved in whatever order the
//! exports arrived, and a session may go on in the next (rotated) file. So the files are
//! read together: every record is read (in parallel, one file per task) into a few figures,
//! the records are gathered by `session.id` across files (kept out of memory meanwhile,
//! `store`), each session is put in order (`event.sequence`, then time), and only then
//! made into events: a call per `api_request`, the `tool_result`s after it joining it, a
//! `compaction` ending its trace. Each session's events are spilled as one part of its
//! file, and assembled one part at a time where that is provably what assembling the file
//! whole gives (`build`): memory holds the sessions' buffers and one session, not the file.
//! The format, its sources and what the telemetry lacks: `src/import/README.md`.

mod agents;
mod halves;
mod join;
mod parser;
mod record;
mod span;
mod store;

use super::event::{Event, FileLog, Identity, Joined, Malformed, Request, Route, UserText};
use super::files::{self, SourceFile};
use super::spill::Spill;
use super::stream::{Parts, Stored};
use super::{Convention, Reader};
use crate::error::Error;
use compact_str::{CompactString, format_compact};
use rayon::prelude::*;
use record::{Body, Read, Record, Source};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;

/// The OpenTelemetry reader.
pub struct Otel;

/// What a call's bytes are, said in every scenario and summary of this format.
pub const BYTES_UNIT: &str = "UTF-16 code units of each result as Claude Code sent it (its telemetry's `tool_result_size_bytes`), not UTF-8 bytes: the same for ASCII text, fewer for other text; `simulate fit` absorbs the difference into ρ";

impl Reader for Otel {
    fn format(&self) -> &'static str {
        "otel"
    }

    fn product(&self) -> &'static str {
        "Claude Code (OpenTelemetry)"
    }

    fn logs_are(&self) -> &'static str {
        "OpenTelemetry Collector file-exporter output (*.json, *.jsonl, *.json.gz, *.jsonl.gz)"
    }

    fn convention(&self) -> Convention {
        // `input_tokens` is the Messages API usage block's (the monitoring page's
        // `claude_code.llm_request` span: "Input token count from the API usage block"),
        // with the cache reads and writes in their own attributes.
        Convention::Anthropic
    }

    fn own_line_types(&self) -> &'static [&'static str] {
        &["resourceLogs"]
    }

    fn is_log(&self, path: &Path) -> bool {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        name.ends_with(".json") || name.ends_with(".jsonl")
    }

    fn read(&self, file: &SourceFile) -> Result<FileLog, Error> {
        let mut stored = build(vec![parse(0, file, None)?], None)?;
        match stored.pop() {
            Some(s) => s.into_log(None),
            None => Ok(FileLog::new(file.display())),
        }
    }

    fn read_all(
        &self,
        files: &[SourceFile],
        spill: Option<&Spill>,
    ) -> Result<(Vec<Stored>, Vec<files::Unreadable>), Error> {
        let parsed: Vec<Result<Parsed, Error>> = files
            .par_iter()
            .enumerate()
            .map(|(i, f)| parse(i, f, spill))
            .collect();
        let (parsed, unreadable) = files::partition(files, parsed);
        // A failed write lost records: the import stops with it (`Spill::check`), so
        // nothing is read back.
        if spill.is_some_and(Spill::has_failed) {
            return Ok((Vec::new(), unreadable));
        }
        Ok((build(parsed, spill)?, unreadable))
    }

    fn bytes_unit(&self) -> Option<&'static str> {
        Some(BYTES_UNIT)
    }
}

/// One file, read: its records, and what could not be read or was skipped.
struct Parsed<'s> {
    /// The file's log, without events yet: lines, skipped records, line-level problems.
    log: FileLog,
    /// The records by session, sessions in the order of their first record, each
    /// session's records in the order read, kept out of memory (`store`).
    sessions: Vec<(CompactString, store::Kept)>,
    /// Where each session is in `sessions`.
    by_id: FxHashMap<CompactString, usize>,
    /// The sessions with records buffered, and the bytes buffered.
    dirty: Vec<usize>,
    buffered: usize,
    /// Where records go once the buffers are full; None: kept in memory, encoded.
    spill: Option<&'s Spill>,
    index: usize,
}

impl files::JsonLines for Parsed<'_> {
    fn log(&mut self) -> &mut FileLog {
        &mut self.log
    }

    fn line(&mut self, number: u64, bytes: &[u8]) -> Result<(), serde_json::Error> {
        // One pass where the whole line is of the expected shape; else each record is
        // parsed on its own, so an odd one costs only itself (`parser::TypedLine`).
        if let Ok(line) = serde_json::from_slice::<parser::TypedLine>(bytes) {
            self.typed(number, line);
            return Ok(());
        }
        let line: parser::Line = serde_json::from_slice(bytes)?;
        if let Some(resources) = &line.resource_spans {
            self.spans(number, resources);
        }
        let Some(resources) = line.resource_logs else {
            self.not_logs(
                line.resource_spans.is_some(),
                line.resource_metrics.is_some(),
                line.kind.0,
            );
            return Ok(());
        };
        let mut place = 0u32;
        for resource in &resources {
            let resource_attributes = resource
                .resource
                .as_ref()
                .map_or(&[][..], |r| r.attributes.as_slice());
            for scope in &resource.scope_logs {
                for raw in &scope.log_records {
                    place += 1;
                    match serde_json::from_str::<parser::LogRecord>(raw.get()) {
                        Ok(r) => self.record(&r, resource_attributes, number, place),
                        Err(e) => self.log.malformed(
                            number,
                            format!("log record {place} of the line: unexpected shape: {e}"),
                        ),
                    }
                }
            }
        }
        Ok(())
    }
}

impl<'s> Parsed<'s> {
    /// A line parsed whole: its spans, then its records, as [`files::JsonLines::line`]
    /// takes them one by one.
    fn typed(&mut self, number: u64, line: parser::TypedLine<'_>) {
        if let Some(resources) = &line.resource_spans {
            let mut place = 0u32;
            for resource in resources {
                let resource_attributes = resource
                    .resource
                    .as_ref()
                    .map_or(&[][..], |r| r.attributes.as_slice());
                for scope in &resource.scope_spans {
                    for s in &scope.spans {
                        place += 1;
                        self.span(s, resource_attributes, number, place);
                    }
                }
            }
        }
        let Some(resources) = &line.resource_logs else {
            self.not_logs(
                line.resource_spans.is_some(),
                line.resource_metrics.is_some(),
                line.kind.0,
            );
            return;
        };
        let mut place = 0u32;
        for resource in resources {
            let resource_attributes = resource
                .resource
                .as_ref()
                .map_or(&[][..], |r| r.attributes.as_slice());
            for scope in &resource.scope_logs {
                for r in &scope.log_records {
                    place += 1;
                    self.record(r, resource_attributes, number, place);
                }
            }
        }
    }

    fn new(log: FileLog, index: usize, spill: Option<&'s Spill>) -> Parsed<'s> {
        Parsed {
            log,
            sessions: Vec::new(),
            by_id: FxHashMap::default(),
            dirty: Vec::new(),
            buffered: 0,
            spill,
            index,
        }
    }

    /// Adds `r` to its session's records, without its session id (the session's key).
    fn push(&mut self, mut r: Record) {
        let id = std::mem::take(&mut r.session);
        let s = match self.by_id.get(&id) {
            Some(&s) => s,
            None => {
                self.sessions.push((id.clone(), store::Kept::default()));
                self.by_id.insert(id, self.sessions.len() - 1);
                self.sessions.len() - 1
            }
        };
        let kept = &mut self.sessions[s].1;
        if !kept.buffered() {
            self.dirty.push(s);
        }
        self.buffered += kept.push(&r);
        if self.buffered >= store::BUDGET {
            self.flush();
        }
    }

    /// Writes every session's buffered records out.
    fn flush(&mut self) {
        store::flush(&mut self.sessions, &mut self.dirty, self.spill);
        self.buffered = 0;
    }

    /// A line without `resourceLogs`: spans alone (read already), or skipped by its kind.
    fn not_logs(&mut self, spans: bool, metrics: bool, kind: Option<String>) {
        if spans {
            return;
        }
        let kind = if metrics {
            (
                "resourceMetrics (a metrics export, not logs)".to_string(),
                true,
            )
        } else if let Some(t) = kind {
            // Another format's line: its type names the format (see `other_format`).
            (t, false)
        } else {
            (
                "(a line without resourceLogs or resourceSpans)".to_string(),
                false,
            )
        };
        self.log.skip(&kind.0, kind.1);
    }

    fn record(
        &mut self,
        r: &parser::LogRecord<'_>,
        resource: &[parser::KeyValue<'_>],
        number: u64,
        place: u32,
    ) {
        match record::read(r, resource, self.index, number, place) {
            Read::Record(rec) => self.push(*rec),
            Read::Skipped { kind, known } => self.log.skip(&kind, known),
        }
    }

    fn span(
        &mut self,
        s: &parser::Span<'_>,
        resource: &[parser::KeyValue<'_>],
        number: u64,
        place: u32,
    ) {
        match span::read(s, resource, self.index, number, place) {
            Read::Record(rec) => self.push(*rec),
            Read::Skipped { kind, known } => self.log.skip(&kind, known),
        }
    }

    /// The spans of a traces export line, each read on its own.
    fn spans(&mut self, number: u64, resources: &[parser::ResourceSpans<'_>]) {
        let mut place = 0u32;
        for resource in resources {
            let resource_attributes = resource
                .resource
                .as_ref()
                .map_or(&[][..], |r| r.attributes.as_slice());
            for scope in &resource.scope_spans {
                for raw in &scope.spans {
                    place += 1;
                    match serde_json::from_str::<parser::Span>(raw.get()) {
                        Ok(s) => self.span(&s, resource_attributes, number, place),
                        Err(e) => self.log.malformed(
                            number,
                            format!("span {place} of the line: unexpected shape: {e}"),
                        ),
                    }
                }
            }
        }
    }
}

/// File `index` read: in two halves at once where that is provably the one pass
/// (`halves`), else in one pass; its records go to `spill` (`store`).
fn parse<'s>(
    index: usize,
    file: &SourceFile,
    spill: Option<&'s Spill>,
) -> Result<Parsed<'s>, Error> {
    if let Some(p) = halves::read(index, file, spill) {
        return Ok(p);
    }
    let mut p = Parsed::new(FileLog::new(file.display()), index, spill);
    files::read_json_lines(file, &mut p)?;
    p.flush();
    Ok(p)
}

/// One session's records, gathered from every file.
struct Session {
    id: CompactString,
    /// The file of its first record (the one its scenario names).
    file: usize,
    records: store::Kept,
}

/// The files' records → one stored log per file, each holding the sessions whose first
/// record is in it: its own problems first (with those of the sessions that gave nothing
/// else), then one part per session, made and spilled one session at a time. A file that
/// only goes on with sessions of earlier files (rotated output, a copy) is folded into the
/// log of the first of them: its problems and skipped records are counted there, and it
/// is no file "without a request".
///
/// A file's parts are assembled one at a time ([`crate::import::assemble::Assembler::part`])
/// where that is what assembling it whole gives ([`apart`]): no two sessions share a
/// request's dedupe key (a copy would join the other's call), a tool-use id or a line id
/// (the assembler's indexes of them are emptied between parts), and no part starts with a
/// problem; else the file is assembled whole, as before.
///
/// Errors: a session's records cannot be read back from the spill.
fn build(parsed: Vec<Parsed>, spill: Option<&Spill>) -> Result<Vec<Stored>, Error> {
    let mut sessions: Vec<Session> = Vec::new();
    let mut by_id: FxHashMap<CompactString, usize> = FxHashMap::default();
    let mut logs: Vec<FileLog> = Vec::with_capacity(parsed.len());
    // The session of each file's first record.
    let mut first_session: Vec<Option<usize>> = Vec::with_capacity(parsed.len());
    for p in parsed {
        let mut first = None;
        // A file's sessions in the order of their first record, so the sessions are in
        // the order of their first record across the files, each one's records in the
        // order read.
        for (id, records) in p.sessions {
            let s = match by_id.get(&id) {
                Some(&s) => s,
                None => {
                    sessions.push(Session {
                        id: id.clone(),
                        file: p.index,
                        records: store::Kept::default(),
                    });
                    by_id.insert(id, sessions.len() - 1);
                    sessions.len() - 1
                }
            };
            first.get_or_insert(s);
            sessions[s].records.append(records);
        }
        first_session.push(first);
        logs.push(p.log);
    }
    drop(by_id);
    let session_file: Vec<usize> = sessions.iter().map(|s| s.file).collect();
    let mut started = vec![false; logs.len()];
    for &f in &session_file {
        started[f] = true;
    }
    let names: Vec<String> = logs.iter().map(|l| l.file.clone()).collect();

    // Route 0 of every log is no session's, and the file's line-level problems come first
    // in its events, so they belong to no trace (the summary lists them all the same).
    let mut leads: Vec<Vec<Event>> = logs
        .iter_mut()
        .map(|log| {
            log.routes.push(Route {
                subagent: false,
                agent_id: None,
                session_id: None,
                sidechain: None,
            });
            std::mem::take(&mut log.events)
        })
        .collect();
    let mut parts: Vec<Parts> = logs.iter().map(|_| Parts::new(spill)).collect();
    // Per file, the session each identifier was first seen in (a hash of it: two equal
    // hashes only cost the parts), and whether its parts are independent (see above).
    let mut seen: Vec<FxHashMap<u64, u32>> = vec![FxHashMap::default(); logs.len()];
    let mut independent = vec![true; logs.len()];
    for (n, s) in sessions.into_iter().enumerate() {
        let mut records = s.records.records(spill)?;
        drop(s.records);
        let log = &mut logs[s.file];
        join::join_and_order(&mut records, log);
        let route = log.routes.len();
        log.routes.push(Route {
            subagent: false,
            agent_id: None,
            session_id: (!s.id.is_empty()).then(|| s.id.clone()),
            sidechain: None,
        });
        let identity = Identity {
            user_id: records
                .iter()
                .find_map(|r| r.user_id.as_deref().map(CompactString::from)),
            organization_id: records
                .iter()
                .find_map(|r| r.organization_id.as_deref().map(CompactString::from)),
            account_uuid: records
                .iter()
                .find_map(|r| r.account_uuid.as_deref().map(CompactString::from)),
            team: records.iter().find_map(|r| r.team.clone()),
        };
        if !s.id.is_empty() && identity != Identity::default() {
            log.identities.insert(s.id.clone(), identity);
        }
        let converted = session_events(route, &s.id, records, log, &names);
        if converted.iter().any(|e| !matches!(e, Event::Malformed(_))) {
            if independent[s.file] && !apart(&converted, n as u32, &mut seen[s.file]) {
                independent[s.file] = false;
                seen[s.file] = FxHashMap::default();
            }
            parts[s.file].push(converted);
        } else {
            // Only problems: they go with the file's own.
            leads[s.file].extend(converted);
        }
    }
    drop(seen);

    let mut out: Vec<Option<(FileLog, Vec<Event>, Parts)>> = logs
        .into_iter()
        .zip(leads)
        .zip(parts)
        .map(|((log, lead), parts)| Some((log, lead, parts)))
        .collect();
    for (i, first) in first_session.iter().enumerate() {
        let Some(target) = first.map(|s| session_file[s]).filter(|_| !started[i]) else {
            continue;
        };
        let Some((folded, folded_events, _)) = out[i].take() else {
            continue;
        };
        if let Some((log, lead, _)) = out[target].as_mut() {
            for (kind, s) in folded.skipped {
                let e = log.skipped.entry(kind).or_default();
                e.lines += s.lines;
                e.known = s.known;
            }
            lead.extend(folded_events);
        }
    }
    Ok(out
        .into_iter()
        .enumerate()
        .filter_map(|(i, o)| o.map(|o| (i, o)))
        .map(|(i, (log, lead, sessions))| {
            // The problems first, then the sessions' parts.
            let mut all = Parts::new(spill);
            all.push(lead);
            let stored = all.then(sessions);
            stored.finish(log, independent[i])
        })
        .collect())
}

/// Whether the identifiers `events` (session `n`'s) bring to the assembler's indexes of
/// a file (request keys, tool-use ids, lines joined once) are none another session
/// brought (`seen`, which they join), and the events do not start with a problem: what
/// assembling the session apart from the others needs (see [`build`]).
fn apart(events: &[Event], n: u32, seen: &mut FxHashMap<u64, u32>) -> bool {
    let hash = |kind: u8, id: &str| {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(&[kind]);
        h.update(id.as_bytes());
        h.digest()
    };
    let mut own = |kind: u8, id: &str| *seen.entry(hash(kind, id)).or_insert(n) == n;
    if matches!(events.first(), Some(Event::Malformed(_))) {
        return false;
    }
    events.iter().all(|e| match e {
        Event::Request(r) => own(0, &r.message_key) && r.tool_uses.iter().all(|u| own(1, &u.id)),
        Event::Joined(j) => {
            j.answers.as_deref().is_none_or(|id| own(1, id))
                && j.line_id.as_deref().is_none_or(|id| own(2, id))
        }
        _ => true,
    })
}

/// What the records of one session, in order, make of it.
#[derive(Default)]
struct Conversation {
    /// The latest request of the conversation, an index into the events: tool uses join it.
    latest: Option<usize>,
    /// A subagent's request came after the conversation's latest: what follows, until the
    /// conversation goes on, is the subagent's.
    in_subagent: bool,
    tool_uses: FxHashSet<CompactString>,
    /// `prompt.id`s of the `user_prompt` events seen, and of the latest request.
    prompts: FxHashSet<CompactString>,
    prompt: Option<CompactString>,
    requests: u64,
}

/// The events of one session (its records sorted), on route `route` of `log`; `names` are
/// the files of the import, by index.
fn session_events(
    route: usize,
    session: &str,
    records: Vec<Record>,
    log: &mut FileLog,
    names: &[String],
) -> Vec<Event> {
    let mut c = Conversation::default();
    // Subagents the trace spans name (`agent_id`): a route and a conversation each.
    let mut agents: FxHashMap<CompactString, (usize, Conversation)> = FxHashMap::default();
    let mut events: Vec<Event> = Vec::with_capacity(records.len());
    // Problems before the session's first event wait for it, so they are the session's.
    let mut waiting: Vec<Event> = Vec::new();
    for r in records {
        let before = events.len();
        let at = |r: &Record| match r.sequence {
            Some(n) => format_compact!("{session}#{n}"),
            None => format_compact!("{session}@{}:{}.{}", r.file, r.line, r.place),
        };
        if let Some(agent) = r.agent_id.clone() {
            let (route, a) = agents.entry(agent.clone()).or_insert_with(|| {
                log.routes.push(Route {
                    subagent: true,
                    agent_id: Some(agent.clone()),
                    session_id: (!session.is_empty()).then(|| CompactString::from(session)),
                    sidechain: None,
                });
                (log.routes.len() - 1, Conversation::default())
            });
            agents::subagent_event(*route, a, session, &r, &mut events, log);
            if before == 0 && !events.is_empty() {
                events.append(&mut waiting);
            }
            continue;
        }
        match &r.body {
            Body::Request(q) => match &q.source {
                Source::Main => {
                    // A new prompt.id with no user_prompt of it: a prompt all the same
                    // (its event lost or filtered out), of unknown size.
                    if let (Some(new), Some(old)) = (&r.prompt_id, &c.prompt)
                        && new != old
                        && !c.prompts.contains(new)
                    {
                        c.prompts.insert(new.clone());
                        events.push(prompt_event(
                            route,
                            0,
                            "(no user_prompt event)",
                            false,
                            None,
                        ));
                    }
                    c.prompt.clone_from(&r.prompt_id);
                    c.in_subagent = false;
                    c.requests += 1;
                    let key = match &q.request_id {
                        Some(id) => id.clone(),
                        None => at(&r),
                    };
                    let id = match (&q.request_id, r.sequence) {
                        (Some(id), _) => id.clone(),
                        (None, Some(n)) => format_compact!("seq-{n}"),
                        (None, None) => format_compact!("req-{}", c.requests),
                    };
                    c.latest = Some(events.len());
                    events.push(Event::Request(Box::new(Request {
                        route,
                        line: r.line,
                        message_key: key,
                        request_key: None,
                        id,
                        timestamp: r.time,
                        usage: q.usage,
                        model: q.model.clone(),
                        tool_uses: Vec::new(),
                        result_bytes: 0,
                        // The telemetry has no text of the model's message: its output
                        // joins as its logged output tokens.
                        own_blocks: Vec::new(),
                        own_sized: false,
                        web: false,
                    })));
                }
                Source::Subagent => {
                    c.in_subagent = true;
                    log.skip("claude_code.api_request (a subagent's: not imported)", true);
                }
                Source::Other(name) => log.skip(
                    &format!("claude_code.api_request (query_source {name}: not the conversation)"),
                    true,
                ),
            },
            Body::ToolResult(t) => {
                if c.in_subagent && !t.ends_a_subagent() {
                    log.skip("claude_code.tool_result (a subagent's: not imported)", true);
                    continue;
                }
                c.in_subagent = false;
                let id = t.tool_use_id.clone().unwrap_or_else(|| at(&r));
                if c.tool_uses.insert(id.clone())
                    && let Some(Event::Request(q)) = c.latest.and_then(|i| events.get_mut(i))
                {
                    q.tool_uses.push(agents::tool_use(session, &id, t));
                }
                let (bytes, images) = if t.image {
                    (0, 1)
                } else {
                    (t.size.or(t.error_bytes).unwrap_or(0), 0)
                };
                agents::unsized_span(&r, t, log);
                events.push(Event::Joined(Joined {
                    route,
                    bytes,
                    images,
                    tool_references: 0,
                    attachment: false,
                    answers: Some(id),
                    user_text: None,
                    line_id: None,
                }));
            }
            Body::Prompt(p) => {
                c.in_subagent = false;
                if let Some(id) = &r.prompt_id {
                    c.prompts.insert(id.clone());
                }
                let line_id = r.prompt_id.clone().unwrap_or_else(|| at(&r));
                events.push(prompt_event(
                    route,
                    p.length.unwrap_or(0),
                    &p.snippet,
                    p.slash_command,
                    Some(line_id),
                ));
            }
            Body::Compaction { compaction, failed } => {
                if *failed {
                    log.skip(
                        "claude_code.compaction (failed: the context was kept)",
                        true,
                    );
                    continue;
                }
                c.in_subagent = false;
                c.latest = None;
                events.push(Event::Boundary {
                    route,
                    compaction: compaction.clone(),
                });
            }
            Body::McpConnected(server) => {
                log.declared
                    .entry(CompactString::from(session))
                    .or_default()
                    .mcp_servers
                    .insert(server.clone());
            }
            Body::Unreadable(why) => {
                let m = Event::Malformed(Malformed {
                    file: names.get(r.file).cloned().unwrap_or_default(),
                    line: r.line,
                    reason: format!("log record {} of the line: {why}", r.place),
                });
                if events.is_empty() {
                    waiting.push(m);
                } else {
                    events.push(m);
                }
            }
        }
        if before == 0 && !events.is_empty() {
            events.append(&mut waiting);
        }
    }
    events.append(&mut waiting);
    events
}

fn prompt_event(
    route: usize,
    bytes: u64,
    snippet: &str,
    slash_command: bool,
    line_id: Option<CompactString>,
) -> Event {
    Event::Joined(Joined {
        route,
        bytes,
        images: 0,
        tool_references: 0,
        attachment: false,
        answers: None,
        user_text: Some(UserText {
            real_prompt: true,
            slash_command,
            snippet: snippet.to_string(),
        }),
        line_id,
    })
}

#[cfg(test)]
mod tests;
