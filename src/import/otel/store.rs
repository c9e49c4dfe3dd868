//! Where the records of each session wait while the files are read: out of memory.
//!
//! A collector's file interleaves many sessions and never says that one has ended, so a
//! session can be made into events only once every file is read. Held in memory its
//! records were most of an import's peak (about 1.2 KB a record); here each session's
//! records are encoded (about 150 bytes a record) into a buffer of its own, and whenever
//! the buffers of a file half together pass [`BUDGET`] they are written, one after the
//! other in one write, to the import's spill file ([`Spill::put_bytes`]), each session
//! keeping where its chunks are. Memory then holds the buffers and, per session, its
//! list of chunks: it grows with the sessions, not with their records. Without a spill
//! file (a file system without `O_TMPFILE`, or a caller that holds everything) the
//! encoded chunks are kept in memory, still an eighth of the records' size.
//!
//! The encoding is [`crate::import::spill`]'s, read only by the process that wrote it.

use super::record::{Body, PromptEvent, Record, RequestEvent, Shared, Source, ToolResultEvent};
use crate::error::Error;
use crate::import::event::Compaction;
use crate::import::spill::{self, R, Spill, W};
use compact_str::CompactString;
use jiff::Timestamp;
use std::io;

/// Bytes of encoded records a file half buffers before writing them out.
pub(super) const BUDGET: usize = 4 << 20;

/// One session's records: the chunks written, then what is still buffered.
#[derive(Debug, Default)]
pub(super) struct Kept {
    chunks: Vec<Chunk>,
    buffer: Vec<u8>,
}

/// Encoded records, with the lines to add to their line numbers (the second half of a
/// file read in two counts its lines from its own start).
#[derive(Debug)]
struct Chunk {
    at: Place,
    lines: u64,
}

#[derive(Debug)]
enum Place {
    Spilled { offset: u64, len: usize },
    Held(Vec<u8>),
}

impl Kept {
    /// Appends `r`'s encoding to the buffer; returns the bytes it added.
    pub(super) fn push(&mut self, r: &Record) -> usize {
        let before = self.buffer.len();
        encode(r, &mut self.buffer);
        self.buffer.len() - before
    }

    /// Whether something is buffered.
    pub(super) fn buffered(&self) -> bool {
        !self.buffer.is_empty()
    }

    /// Moves `lines` on for every chunk (see [`Chunk`]); the buffer must be empty.
    pub(super) fn shift_lines(&mut self, lines: u64) {
        debug_assert!(self.buffer.is_empty());
        for c in &mut self.chunks {
            c.lines += lines;
        }
    }

    /// Appends `other`'s chunks (and buffer) after this one's.
    pub(super) fn append(&mut self, other: Kept) {
        if !self.buffer.is_empty() {
            let bytes = std::mem::take(&mut self.buffer);
            self.chunks.push(Chunk {
                at: Place::Held(bytes),
                lines: 0,
            });
        }
        self.chunks.extend(other.chunks);
        self.buffer = other.buffer;
    }

    /// The records, in the order pushed.
    ///
    /// Errors: [`Error::Unreadable`] naming the spill file, when a chunk cannot be read
    /// back as written.
    pub(super) fn records(&self, spill: Option<&Spill>) -> Result<Vec<Record>, Error> {
        let mut out = Vec::new();
        let corrupt = |e: io::Error| match spill {
            Some(s) => s.corrupt(e),
            None => Error::Unreadable {
                path: "(the import's records in memory)".into(),
                source: e,
            },
        };
        let mut read = |bytes: &[u8], lines: u64| -> Result<(), Error> {
            let mut r = R::new(bytes);
            while !r.done() {
                let mut record = decode(&mut r).map_err(corrupt)?;
                record.line += lines;
                out.push(record);
            }
            Ok(())
        };
        for c in &self.chunks {
            match (&c.at, spill) {
                (Place::Held(bytes), _) => read(bytes, c.lines)?,
                (Place::Spilled { offset, len }, Some(s)) => {
                    read(&s.bytes(*offset, *len)?, c.lines)?;
                }
                (Place::Spilled { .. }, None) => return Err(corrupt(spill::invalid())),
            }
        }
        read(&self.buffer, 0)?;
        Ok(out)
    }
}

/// Writes the buffers of `sessions` (those listed in `dirty`, which is emptied) out as chunks: to `spill`
/// in one write where there is one, else kept in memory (and where the write failed: the
/// spill keeps the failure, which stops the import before anything is read back).
pub(super) fn flush(
    sessions: &mut [(CompactString, Kept)],
    dirty: &mut Vec<usize>,
    spill: Option<&Spill>,
) {
    let Some(spill) = spill else {
        for &s in dirty.iter() {
            let k = &mut sessions[s].1;
            let bytes = std::mem::take(&mut k.buffer);
            k.chunks.push(Chunk {
                at: Place::Held(bytes),
                lines: 0,
            });
        }
        dirty.clear();
        return;
    };
    let total: usize = dirty.iter().map(|&s| sessions[s].1.buffer.len()).sum();
    let mut all = Vec::with_capacity(total);
    for &s in dirty.iter() {
        all.extend_from_slice(&sessions[s].1.buffer);
    }
    let offset = spill.put_bytes(&all).unwrap_or(0);
    let mut at = offset;
    for &s in dirty.iter() {
        let k = &mut sessions[s].1;
        let len = k.buffer.len();
        k.chunks.push(Chunk {
            at: Place::Spilled { offset: at, len },
            lines: 0,
        });
        at += len as u64;
        // Freed, not kept for the session's next records: a session that has ended would
        // hold its capacity to the end of the import.
        k.buffer = Vec::new();
    }
    dirty.clear();
}

fn ts(w: &mut W, t: Option<Timestamp>) {
    match t {
        Some(t) => {
            w.b(true);
            w.0.extend_from_slice(&t.as_nanosecond().to_le_bytes());
        }
        None => w.b(false),
    }
}

fn read_ts(r: &mut R) -> io::Result<Option<Timestamp>> {
    if !r.b()? {
        return Ok(None);
    }
    let bytes: [u8; 16] = r.take(16)?.try_into().map_err(|_| spill::invalid())?;
    Timestamp::from_nanosecond(i128::from_le_bytes(bytes))
        .map(Some)
        .map_err(|_| spill::invalid())
}

/// Appends the encoding of `r` (all but its session id, the session's key) to `out`.
pub(super) fn encode(r: &Record, out: &mut Vec<u8>) {
    let mut w = W(out);
    w.u(r.file as u64);
    w.u(r.line);
    w.u(u64::from(r.place));
    w.ou(r.sequence);
    ts(&mut w, r.time);
    w.os(r.prompt_id.as_deref());
    w.os(r.user_id.as_deref());
    w.os(r.organization_id.as_deref());
    w.os(r.account_uuid.as_deref());
    match &r.team {
        Some((k, v)) => {
            w.b(true);
            w.s(k);
            w.s(v);
        }
        None => w.b(false),
    }
    w.os(r.agent_id.as_deref());
    w.os(r.span_id.as_deref());
    w.b(r.from_span);
    match &r.body {
        Body::Request(q) => {
            w.u(0);
            w.os(q.request_id.as_deref());
            w.os(q.model.as_deref());
            w.usage(&q.usage);
            match &q.source {
                Source::Main => w.u(0),
                Source::Subagent => w.u(1),
                Source::Other(name) => {
                    w.u(2);
                    w.s(name);
                }
            }
        }
        Body::ToolResult(t) => {
            w.u(1);
            w.os(t.tool_use_id.as_deref());
            w.s(&t.name);
            w.s(&t.label);
            w.ou(t.input_hash);
            w.ou(t.size);
            w.ou(t.input_size);
            w.ou(t.error_bytes);
            w.b(t.image);
            w.b(t.web);
        }
        Body::Prompt(p) => {
            w.u(2);
            w.ou(p.length);
            w.s(&p.snippet);
            w.b(p.slash_command);
        }
        Body::Compaction { compaction, failed } => {
            w.u(3);
            w.os(compaction.trigger.as_deref());
            w.ou(compaction.pre_tokens);
            w.ou(compaction.summary_bytes);
            w.ou(compaction.post_tokens);
            w.b(*failed);
        }
        Body::McpConnected(server) => {
            w.u(4);
            w.s(server);
        }
        Body::Unreadable(why) => {
            w.u(5);
            w.s(why);
        }
    }
}

/// The record [`encode`] wrote at `r`'s place.
///
/// Errors: [`io::ErrorKind::InvalidData`] when the bytes are not such an encoding.
pub(super) fn decode(r: &mut R) -> io::Result<Record> {
    let shared = |s: Option<&str>| s.map(Shared::from);
    let file = r.usize()?;
    let line = r.u()?;
    let place = u32::try_from(r.u()?).map_err(|_| spill::invalid())?;
    let sequence = r.ou()?;
    let time = read_ts(r)?;
    let prompt_id = r.ocs()?;
    let user_id = shared(r.os()?);
    let organization_id = shared(r.os()?);
    let account_uuid = shared(r.os()?);
    let team = if r.b()? {
        Some((CompactString::from(r.s()?), CompactString::from(r.s()?)))
    } else {
        None
    };
    let agent_id = r.ocs()?;
    let span_id = r.ocs()?;
    let from_span = r.b()?;
    let body = match r.u()? {
        0 => {
            let request_id = r.ocs()?;
            let model = r.ocs()?;
            let usage = r.usage()?;
            let source = match r.u()? {
                0 => Source::Main,
                1 => Source::Subagent,
                2 => Source::Other(r.s()?.into()),
                _ => return Err(spill::invalid()),
            };
            Body::Request(Box::new(RequestEvent {
                request_id,
                model,
                usage,
                source,
            }))
        }
        1 => Body::ToolResult(Box::new(ToolResultEvent {
            tool_use_id: r.ocs()?,
            name: r.s()?.into(),
            label: r.s()?.to_string(),
            input_hash: r.ou()?,
            size: r.ou()?,
            input_size: r.ou()?,
            error_bytes: r.ou()?,
            image: r.b()?,
            web: r.b()?,
        })),
        2 => Body::Prompt(PromptEvent {
            length: r.ou()?,
            snippet: r.s()?.to_string(),
            slash_command: r.b()?,
        }),
        3 => Body::Compaction {
            compaction: Compaction {
                trigger: r.os()?.map(str::to_string),
                pre_tokens: r.ou()?,
                summary_bytes: r.ou()?,
                post_tokens: r.ou()?,
            },
            failed: r.b()?,
        },
        4 => Body::McpConnected(r.s()?.to_string()),
        5 => Body::Unreadable(r.s()?.to_string()),
        _ => return Err(spill::invalid()),
    };
    Ok(Record {
        session: CompactString::default(),
        file,
        line,
        place,
        sequence,
        time,
        prompt_id,
        user_id,
        organization_id,
        account_uuid,
        team,
        agent_id,
        span_id,
        from_span,
        body,
    })
}
