//! Events of many files → deduplicated traces.
//!
//! The rules live here once for every format:
//! - one call per API request: copies of a request within a file (one line per content
//!   block, streaming snapshots) are merged, keeping the copy with the largest usage and
//!   every tool use any copy holds;
//! - a request already kept from an earlier file (files ordered by their latest request's
//!   time, then path) is dropped, and so
//!   is what joined the context after it: a resumed session replays its parent's history;
//! - what joins the context goes to the request whose tool use it answers, else to the
//!   latest request of its conversation; before a trace's first request it is part of the
//!   base (the first request's measured input holds it);
//! - a compaction ends a trace; subagents are traces of their own;
//! - a real user prompt starts a new segment at the next request;
//! - a tool use's result joins once, and so does a line with an id: a copy adds nothing.
//!
//! Files are assembled one after another in the order given, so the result does not depend
//! on how many threads parsed them.

use super::event::{Event, FileLog, Joined, Malformed, Request, Skipped, ToolUse};
use super::label;
use super::trace::{ImportedCall, Reset, Trace, TraceRole};
use crate::scenario::Convention;
use compact_str::CompactString;
use jiff::Timestamp;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// A file that gave no trace (no request of its own), with what it did have.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Leftover {
    pub file: String,
    /// Lines read.
    pub lines: u64,
    /// Requests it held that an earlier file already had (a resumed session's replay).
    pub duplicates_removed: u64,
    /// Line types it held that the reader does not know, for telling a log of another
    /// format apart.
    #[serde(skip)]
    pub unknown_types: Vec<String>,
    /// Why it can hold no request, where the reader knows (an older format version).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The result of an import, before anything is written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Assembled {
    pub traces: Vec<Trace>,
    pub leftovers: Vec<Leftover>,
    /// Skipped lines by type, over all files.
    pub skipped: BTreeMap<String, Skipped>,
    /// Every malformed line, in file order.
    pub malformed: Vec<Malformed>,
    /// `attachment` lines by type, over all files.
    pub attachments: BTreeMap<String, super::event::Attachments>,
}

/// Looks a request up by (`message.id`, `requestId`), or by `message.id` alone where one
/// of the two copies has no `requestId`. Keys are 128-bit hashes, so a lookup allocates
/// nothing.
struct KeyIndex<T> {
    by_pair: FxHashMap<u128, T>,
    by_message: FxHashMap<u128, T>,
}

fn message_hash(message: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(message.as_bytes())
}

fn pair_hash(message: &str, request: &str) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(message.as_bytes());
    h.update(&[0x1f]);
    h.update(request.as_bytes());
    h.digest128()
}

/// The dedupe key of a request: its message key and, where present, its request key.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub(crate) message: u128,
    pub(crate) pair: Option<u128>,
    /// The pair with an empty request key, which a copy without `requestId` is filed under.
    pub(crate) bare: u128,
}

impl Key {
    /// The key of `r`.
    pub fn of(r: &Request) -> Key {
        Key {
            message: message_hash(&r.message_key),
            pair: r.request_key.as_ref().map(|q| pair_hash(&r.message_key, q)),
            bare: pair_hash(&r.message_key, ""),
        }
    }
}

impl<T> Default for KeyIndex<T> {
    fn default() -> Self {
        KeyIndex {
            by_pair: FxHashMap::default(),
            by_message: FxHashMap::default(),
        }
    }
}

impl<T: Copy> KeyIndex<T> {
    fn new() -> Self {
        KeyIndex {
            by_pair: FxHashMap::default(),
            by_message: FxHashMap::default(),
        }
    }

    fn find(&self, k: Key) -> Option<T> {
        match k.pair {
            Some(pair) => self
                .by_pair
                .get(&pair)
                .or_else(|| self.by_pair.get(&k.bare))
                .copied(),
            None => self.by_message.get(&k.message).copied(),
        }
    }

    fn insert(&mut self, k: Key, value: T) {
        self.by_pair.insert(k.pair.unwrap_or(k.bare), value);
        self.by_message.entry(k.message).or_insert(value);
    }
}

/// A call being built from the copies of its request and what joined after it.
struct Building {
    request: Request,
    tool_uses: Vec<ToolUse>,
    bytes: u64,
    images: u64,
    loaded_tools: u64,
    /// Something other than an attachment joined after the call.
    joined_other: bool,
    /// Something from an attachment line joined after the call.
    joined_attachment: bool,
    user_text: Option<super::event::UserText>,
    segment: u64,
}

struct Open {
    trace: Trace,
    calls: Vec<Building>,
}

#[derive(Default)]
struct RouteState {
    /// The compaction that ended the route's last trace, for the next one to record.
    compaction: Option<super::event::Compaction>,
    /// The open trace of the route, an index into `opened`.
    trace: Option<usize>,
    parts: u32,
    /// Where what joins now goes: (trace, call).
    current: Option<(usize, usize)>,
    /// A real prompt came since the latest request.
    prompt_pending: bool,
    /// The unmarked fall that ended the route's last trace, for the next one to record.
    reset: Option<Reset>,
}

/// Builds traces one file at a time, in the order files are given: what an import that
/// does not hold every file's events at once uses ([`super::stream`]).
pub struct Assembler {
    /// The keys of the requests kept from earlier files.
    earlier: KeyIndex<()>,
    /// Everything but the traces, gathered over the files so far.
    out: Assembled,
    /// The logs' usage convention, for the total input a reset is measured on.
    convention: Convention,
}

impl Assembler {
    /// An assembler for logs whose usage follows `convention`.
    pub fn new(convention: Convention) -> Assembler {
        Assembler {
            earlier: KeyIndex::new(),
            out: Assembled::default(),
            convention,
        }
    }

    /// The traces of one file (not yet named), in the order they were opened.
    pub fn file(&mut self, mut log: FileLog) -> Vec<Trace> {
        let events = std::mem::take(&mut log.events);
        let mut f = self.begin(log, false);
        let mut traces = self.part(&mut f, events);
        traces.extend(self.end(f));
        traces
    }

    /// Starts a file given in parts ([`Assembler::part`]): its log, without events.
    /// `last`: no file follows it, so the keys of its requests need not be kept for
    /// later files' dedupe (memory that would grow with its requests).
    pub fn begin(&mut self, log: FileLog, last: bool) -> FileState {
        for (kind, s) in &log.skipped {
            let e = self.out.skipped.entry(kind.clone()).or_default();
            e.lines += s.lines;
            e.known = s.known;
        }
        for (kind, a) in &log.attachments {
            let e = self.out.attachments.entry(kind.clone()).or_default();
            e.lines += a.lines;
            e.bytes += a.bytes;
            e.joins = a.joins;
        }
        let mut f = FileState::new(log);
        f.remember = !last;
        f
    }

    /// Takes the next `events` of file `f`, in line order; returns the traces they
    /// finished. Every trace opened so far is finished here, as at the end of the file,
    /// and the file's indexes of request keys, tool-use ids and lines joined are emptied:
    /// right when no later part reaches them, which a reader that gives a file in parts
    /// must make sure of (the OpenTelemetry reader gives one session a part, and only
    /// where no two sessions share a request key, a tool-use id or a line id; a part never
    /// starts with a problem, which would go to the trace of the part before). So memory
    /// holds one part's traces and indexes. A file in one part is the same as
    /// [`Assembler::file`].
    pub fn part(&mut self, f: &mut FileState, events: Vec<Event>) -> Vec<Trace> {
        for event in events {
            f.event(event, &self.earlier, &mut self.out, self.convention);
        }
        f.here = KeyIndex::new();
        f.tool_calls = FxHashMap::default();
        f.replayed_tools = FxHashSet::default();
        f.joined_once = FxHashSet::default();
        f.flush()
    }

    /// Ends file `f`: the traces not yet finished (none after [`Assembler::part`]); the
    /// keys of its requests join those of the earlier files.
    pub fn end(&mut self, f: FileState) -> Vec<Trace> {
        let (traces, kept) = f.finish(&mut self.out);
        for key in kept {
            self.earlier.insert(key, ());
        }
        traces
    }

    /// What was gathered besides the traces (`traces` is empty).
    pub fn finish(self) -> Assembled {
        self.out
    }
}

/// Which session each project is, as the naming of subagents needs it
/// ([`super::trace::Namer`]), found from the requests' keys alone: the dedupe of
/// [`Assembler`] run on keys, without building a call.
#[derive(Default)]
pub struct Projects {
    earlier: KeyIndex<()>,
    map: BTreeMap<CompactString, String>,
}

impl Projects {
    /// Takes the next file in assembly order: its requests' keys (with their routes, in
    /// line order), its routes and its project.
    pub fn file(
        &mut self,
        keys: &[(usize, Key)],
        routes: &[super::event::Route],
        project: Option<&str>,
    ) {
        // As in `FileState::event`: a request is kept unless this file or an earlier one
        // already kept its key; a route with a kept request gives a trace.
        let n = routes.len().max(1);
        let mut here: KeyIndex<()> = KeyIndex::new();
        let mut kept = Vec::new();
        let mut traced = vec![false; n];
        for &(route, key) in keys {
            if here.find(key).is_some() || self.earlier.find(key).is_some() {
                continue;
            }
            here.insert(key, ());
            kept.push(key);
            traced[route.min(n - 1)] = true;
        }
        for key in kept {
            self.earlier.insert(key, ());
        }
        let Some(project) = project else { return };
        for (r, traced) in routes.iter().zip(traced) {
            if let (true, false, Some(session)) = (traced, r.subagent, &r.session_id) {
                self.map.insert(session.clone(), project.to_string());
            }
        }
    }

    /// The project of each session, from its last main trace.
    pub fn finish(self) -> BTreeMap<CompactString, String> {
        self.map
    }
}

/// One file being assembled ([`Assembler::begin`]): what is kept from event to event;
/// its malformed lines and (without a trace) its leftover go to the assembler's output.
pub struct FileState {
    file: String,
    route_info: Vec<super::event::Route>,
    project: Option<String>,
    lines: u64,
    skipped: BTreeMap<String, Skipped>,
    identities: BTreeMap<CompactString, super::event::Identity>,
    no_requests_because: Option<String>,
    declared: BTreeMap<CompactString, super::event::Declared>,
    unmeasured: Option<super::event::RunTotals>,
    /// The traces opened and not yet finished: trace `t` is `opened[t - base]`.
    opened: Vec<Open>,
    base: usize,
    routes: Vec<RouteState>,
    here: KeyIndex<(usize, usize)>,
    tool_calls: FxHashMap<CompactString, (usize, usize)>,
    replayed_tools: FxHashSet<CompactString>,
    /// A tool use is answered once and a line joins once: copies of either are dropped.
    joined_once: FxHashSet<u128>,
    kept: Vec<Key>,
    /// Whether `kept` is kept (not for the last file: no later file asks).
    remember: bool,
    last_route: usize,
    /// Requests dropped as duplicates on traces finished without a call.
    dropped: u64,
    /// Whether a trace with calls was finished.
    traced: bool,
}

impl FileState {
    fn new(log: FileLog) -> FileState {
        let FileLog {
            file,
            routes: route_info,
            project,
            lines,
            skipped,
            identities,
            no_requests_because,
            declared,
            unmeasured,
            ..
        } = log;
        let mut routes: Vec<RouteState> = Vec::new();
        routes.resize_with(route_info.len().max(1), RouteState::default);
        FileState {
            file,
            route_info,
            project,
            lines,
            skipped,
            identities,
            no_requests_because,
            declared,
            unmeasured,
            opened: Vec::new(),
            base: 0,
            routes,
            here: KeyIndex::new(),
            tool_calls: FxHashMap::default(),
            replayed_tools: FxHashSet::default(),
            joined_once: FxHashSet::default(),
            kept: Vec::new(),
            remember: true,
            last_route: 0,
            dropped: 0,
            traced: false,
        }
    }

    /// The open trace of `route`, opened if it has none.
    fn open(&mut self, route: usize) -> usize {
        if let Some(t) = self.routes[route].trace {
            return t;
        }
        let info = self.route_info.get(route);
        let subagent = info.is_some_and(|r| r.subagent);
        let state = &mut self.routes[route];
        state.parts += 1;
        let reset = state.reset.take();
        let role = match (subagent, state.parts, reset) {
            (true, _, _) => TraceRole::Subagent,
            (false, 1, _) => TraceRole::Main,
            (false, _, Some(_)) => TraceRole::AfterReset,
            (false, _, None) => TraceRole::AfterCompaction,
        };
        let session = info.and_then(|r| r.session_id.clone());
        self.opened.push(Open {
            trace: Trace {
                file: self.file.clone(),
                session_id: session.clone(),
                role,
                part: state.parts,
                parent_session: if subagent { session } else { None },
                agent_id: info.and_then(|r| r.agent_id.clone()),
                sidechain: info.and_then(|r| r.sidechain),
                compaction: if state.parts > 1 && reset.is_none() {
                    state.compaction.take()
                } else {
                    None
                },
                reset,
                project: self.project.clone(),
                identity: info
                    .and_then(|r| r.session_id.as_ref())
                    .and_then(|s| self.identities.get(s))
                    .cloned()
                    .unwrap_or_default(),
                declared: if subagent {
                    Default::default()
                } else {
                    info.and_then(|r| r.session_id.as_ref())
                        .and_then(|s| self.declared.get(s))
                        .or_else(|| self.declared.get(""))
                        .cloned()
                        .unwrap_or_default()
                },
                mcp_tools_used: Default::default(),
                calls: Vec::new(),
                duplicates_removed: 0,
                malformed: Vec::new(),
                name: String::new(),
                unmeasured: self.unmeasured,
            },
            calls: Vec::new(),
        });
        let t = self.base + self.opened.len() - 1;
        state.trace = Some(t);
        t
    }

    /// Trace `t`, open and not finished.
    fn at(&mut self, t: usize) -> &mut Open {
        &mut self.opened[t - self.base]
    }

    /// Takes the next event of the file.
    fn event(
        &mut self,
        event: Event,
        earlier: &KeyIndex<()>,
        out: &mut Assembled,
        convention: Convention,
    ) {
        match event {
            Event::Request(r) => {
                let route = r.route.min(self.routes.len() - 1);
                self.last_route = route;
                let key = Key::of(&r);
                // A copy of a request of a trace already finished (which only a reader
                // that said its parts were independent can bring, wrongly) is dropped as
                // a copy from an earlier file would be, never merged into nothing.
                let found = self.here.find(key);
                if let Some((t, c)) = found.filter(|(t, _)| *t >= self.base) {
                    let open = self.at(t);
                    merge(&mut open.calls[c], &r);
                    open.trace.duplicates_removed += 1;
                    for u in &r.tool_uses {
                        self.tool_calls.entry(u.id.clone()).or_insert((t, c));
                    }
                    return;
                }
                if found.is_some() || earlier.find(key).is_some() {
                    let t = self.open(route);
                    self.at(t).trace.duplicates_removed += 1;
                    self.replayed_tools
                        .extend(r.tool_uses.iter().map(|u| u.id.clone()));
                    self.routes[route].current = None;
                    return;
                }
                // A context that fell far with no compaction in the log ends the trace.
                if let Some(t) = self.routes[route].trace {
                    let total = |u: &super::event::Usage| u.total_input(convention);
                    let previous = self
                        .at(t)
                        .calls
                        .iter()
                        .rev()
                        .map(|c| total(&c.request.usage))
                        .find(|m| *m > 0);
                    if let Some(reset) =
                        previous.and_then(|from| Reset::between(from, total(&r.usage)))
                    {
                        let state = &mut self.routes[route];
                        state.trace = None;
                        state.current = None;
                        state.prompt_pending = false;
                        state.reset = Some(reset);
                    }
                }
                let t = self.open(route);
                let pending = self.routes[route].prompt_pending;
                let open = &mut self.opened[t - self.base];
                let segment = match open.calls.last() {
                    None => 1,
                    Some(prev) => prev.segment + u64::from(pending),
                };
                let c = open.calls.len();
                open.calls.push(Building {
                    tool_uses: r.tool_uses.clone(),
                    request: *r,
                    bytes: 0,
                    images: 0,
                    loaded_tools: 0,
                    joined_other: false,
                    joined_attachment: false,
                    user_text: None,
                    segment,
                });
                self.here.insert(key, (t, c));
                if self.remember {
                    self.kept.push(key);
                }
                for u in &open.calls[c].tool_uses {
                    self.tool_calls.entry(u.id.clone()).or_insert((t, c));
                }
                let state = &mut self.routes[route];
                state.prompt_pending = false;
                state.current = Some((t, c));
            }
            Event::Joined(j) => {
                let route = j.route.min(self.routes.len() - 1);
                self.last_route = route;
                let once = match (&j.answers, &j.line_id) {
                    (Some(tool), _) => Some(pair_hash("tool", tool)),
                    (None, Some(line)) => Some(pair_hash("line", line)),
                    (None, None) => None,
                };
                if once.is_some_and(|k| !self.joined_once.insert(k)) {
                    return;
                }
                join(
                    &j,
                    &mut self.routes[route],
                    &self.tool_calls,
                    &self.replayed_tools,
                    &mut self.opened,
                    self.base,
                );
            }
            Event::Boundary { route, compaction } => {
                let route = route.min(self.routes.len() - 1);
                self.last_route = route;
                let state = &mut self.routes[route];
                state.trace = None;
                state.current = None;
                state.prompt_pending = false;
                state.compaction = Some(compaction);
            }
            Event::Summary { route, bytes } => {
                let route = route.min(self.routes.len() - 1);
                if let Some(c) = self.routes[route].compaction.as_mut() {
                    *c.summary_bytes.get_or_insert(0) += bytes;
                }
            }
            Event::Malformed(m) => {
                out.malformed.push(m.clone());
                let t = self.open(self.last_route);
                self.at(t).trace.malformed.push(m);
            }
        }
    }

    /// Finishes every trace opened so far, in the order opened (those without a call
    /// give none). Right only where no later event reaches them: see
    /// [`Assembler::part`].
    fn flush(&mut self) -> Vec<Trace> {
        let mut traces = Vec::new();
        self.base += self.opened.len();
        // No route goes on with a finished trace.
        for r in &mut self.routes {
            r.trace = None;
            r.current = None;
        }
        for o in self.opened.drain(..) {
            if o.calls.is_empty() {
                self.dropped += o.trace.duplicates_removed;
                continue;
            }
            let mut trace = o.trace;
            // Every MCP tool a request used, not only each call's first: the base's parts.
            trace.mcp_tools_used = o
                .calls
                .iter()
                .flat_map(|b| b.tool_uses.iter())
                .filter(|u| u.name.starts_with("mcp__"))
                .map(|u| u.name.to_string())
                .collect();
            trace.calls = finish_calls(o.calls);
            traces.push(trace);
        }
        self.traced |= !traces.is_empty();
        traces
    }

    /// The traces not yet finished, and the keys of the requests the file kept; without
    /// a trace, the file's leftover goes to `out`.
    fn finish(mut self, out: &mut Assembled) -> (Vec<Trace>, Vec<Key>) {
        let traces = self.flush();
        if !self.traced {
            out.leftovers.push(Leftover {
                file: self.file,
                lines: self.lines,
                duplicates_removed: self.dropped,
                unknown_types: self
                    .skipped
                    .into_iter()
                    .filter(|(_, s)| !s.known)
                    .map(|(kind, _)| kind)
                    .collect(),
                note: self.no_requests_because,
            });
        }
        (traces, self.kept)
    }
}

/// The tools a request used after its first, each once, in order, never the first again.
fn other_tools(uses: &[ToolUse]) -> Vec<CompactString> {
    let Some((first, rest)) = uses.split_first() else {
        return Vec::new();
    };
    let mut out: Vec<CompactString> = Vec::new();
    for u in rest {
        if u.name != first.name && !out.contains(&u.name) {
            out.push(u.name.clone());
        }
    }
    out
}

/// Adds a copy of a request to the call already built from it.
fn merge(call: &mut Building, copy: &Request) {
    if copy.usage.size() > call.request.usage.size() {
        call.request.usage = copy.usage;
        if copy.model.is_some() {
            call.request.model.clone_from(&copy.model);
        }
    }
    for u in &copy.tool_uses {
        if !call.tool_uses.iter().any(|k| k.id == u.id) {
            call.tool_uses.push(u.clone());
        }
    }
    // One response is written one block a line (and some copies repeat blocks): each
    // block of the model's message counts once.
    for b in &copy.own_blocks {
        if !call.request.own_blocks.iter().any(|k| k.key == b.key) {
            call.request.own_blocks.push(*b);
        }
    }
    call.request.result_bytes = call.request.result_bytes.max(copy.result_bytes);
    call.request.web |= copy.web;
    if call.request.timestamp.is_none() {
        call.request.timestamp = copy.timestamp;
    }
}

fn join(
    j: &Joined,
    state: &mut RouteState,
    tool_calls: &FxHashMap<CompactString, (usize, usize)>,
    replayed_tools: &FxHashSet<CompactString>,
    opened: &mut [Open],
    base: usize,
) {
    if j.user_text.as_ref().is_some_and(|u| u.real_prompt) {
        state.prompt_pending = true;
    }
    if let Some(id) = &j.answers
        && replayed_tools.contains(id)
    {
        return;
    }
    // A result goes to the request that asked for it, if that is in the open trace.
    let answered = j
        .answers
        .as_ref()
        .and_then(|id| tool_calls.get(id))
        .filter(|(t, _)| Some(*t) == state.trace)
        .copied();
    let Some((t, c)) = answered.or(state.current) else {
        return;
    };
    let Some(call) = t
        .checked_sub(base)
        .and_then(|t| opened.get_mut(t))
        .and_then(|o| o.calls.get_mut(c))
    else {
        return;
    };
    call.bytes += j.bytes;
    call.images += j.images;
    call.loaded_tools += j.tool_references;
    if j.attachment {
        call.joined_attachment = true;
    } else {
        call.joined_other = true;
    }
    if let Some(u) = &j.user_text {
        let better = match &call.user_text {
            None => true,
            Some(old) => u.label_rank() > old.label_rank(),
        };
        if better {
            call.user_text = Some(u.clone());
        }
    }
}

fn finish_calls(built: Vec<Building>) -> Vec<ImportedCall> {
    let mut ids: FxHashSet<String> = FxHashSet::default();
    let mut previous: Option<Option<Timestamp>> = None;
    let mut calls = Vec::with_capacity(built.len());
    for b in built {
        let r = &b.request;
        let gap_s = match (previous, r.timestamp) {
            (None, _) => Some(0.0),
            (Some(Some(before)), Some(now)) => {
                Some((now.as_millisecond() - before.as_millisecond()).max(0) as f64 / 1000.0)
            }
            _ => None,
        };
        previous = Some(r.timestamp);
        let mut id = r.id.to_string();
        let mut n = 2;
        while !ids.insert(id.clone()) {
            id = format!("{}#{n}", r.id);
            n += 1;
        }
        let web = r.web || b.tool_uses.iter().any(|u| u.web);
        let kind = if web {
            "web_search"
        } else if b.tool_uses.is_empty() && b.user_text.is_some() {
            "prompt"
        } else if b.tool_uses.is_empty() && b.joined_attachment && !b.joined_other {
            "attachment"
        } else {
            "tool"
        };
        let redacted = r.own_blocks.iter().any(|o| o.redacted);
        let output_bytes = (r.own_sized && !redacted).then(|| {
            r.own_blocks.iter().map(|o| o.bytes).sum::<u64>()
                + b.tool_uses.iter().map(|u| u.input_bytes).sum::<u64>()
        });
        calls.push(ImportedCall {
            id,
            label: label::label(&b.tool_uses, b.user_text.as_ref(), b.images),
            tool: b.tool_uses.first().map(|u| u.name.clone()),
            other_tools: other_tools(&b.tool_uses),
            kind,
            bytes: b.bytes + r.result_bytes,
            images: b.images,
            loaded_tools: b.loaded_tools,
            output_bytes,
            segment: b.segment,
            gap_s,
            input_hash: label::combined_hash(&b.tool_uses),
            tool_input_bytes: b.tool_uses.iter().map(|u| u.input_bytes).sum(),
            measured: r.usage,
            model: r.model.clone(),
            timestamp: r.timestamp,
        });
    }
    calls
}
