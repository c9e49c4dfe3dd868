//! Where an import keeps the parsed events of files it has read and not yet assembled.
//!
//! Files are assembled in order of their latest request ([`super::load`]), which is known
//! only once every file is read; until then each file's events wait. Held in memory they
//! grow with the corpus (a few hundred bytes a request), so an import writes them, as each
//! file is read, to one unnamed file (`O_TMPFILE`) on the file system of `--out`, and
//! reads each back when its turn comes: memory then holds the files in flight. The file
//! has no name, so nothing appears in any folder, none is modified, and nothing is left
//! behind, even by a killed run; it is never synced (it lives in the page cache).
//!
//! The encoding is this module's own, read only by the process that wrote it: integers as
//! LEB128, strings as their length and bytes, options and booleans as one byte. Each
//! file's record is the dedupe keys of its requests (what the naming pass needs, read
//! alone), then its events.

use super::assemble::Key;
use super::event::{
    Compaction, Event, Joined, Malformed, OwnBlock, Request, ToolUse, Usage, UserText,
};
use compact_str::CompactString;
use jiff::Timestamp;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

/// Where one file's record is in the spill file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    offset: u64,
    keys: usize,
    events: usize,
}

/// The spill file: records are appended from any thread.
#[derive(Debug)]
pub struct Spill {
    file: File,
    path: PathBuf,
    end: AtomicU64,
    /// The first write that failed: the import stops with it once reading is done.
    failed: Mutex<Option<io::Error>>,
}

impl Spill {
    /// An unnamed spill file on the file system of `out` (in its nearest folder that
    /// exists), else in the temporary folder; None where neither can have one (a file
    /// system without `O_TMPFILE`): the events are then held in memory.
    pub fn create(out: &Path) -> Option<Spill> {
        let near = out
            .ancestors()
            .map(|a| {
                if a.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    a
                }
            })
            .find(|a| a.is_dir());
        near.into_iter()
            .map(Path::to_path_buf)
            .chain([std::env::temp_dir()])
            .find_map(|dir| {
                let fd = rustix::fs::openat(
                    rustix::fs::CWD,
                    &dir,
                    rustix::fs::OFlags::TMPFILE
                        | rustix::fs::OFlags::RDWR
                        | rustix::fs::OFlags::CLOEXEC,
                    rustix::fs::Mode::from_bits_truncate(0o600),
                )
                .ok()?;
                Some(Spill::new(File::from(fd), dir))
            })
    }

    /// A spill into `file` (new and empty), in `path` for messages.
    pub fn new(file: File, path: PathBuf) -> Spill {
        Spill {
            file,
            path,
            end: AtomicU64::new(0),
            failed: Mutex::new(None),
        }
    }

    /// Writes the record of one file's `events`; None when the write failed (the failure
    /// is kept for [`Spill::check`]).
    pub fn put(&self, events: &[Event]) -> Option<Span> {
        let mut keys = Vec::new();
        encode_keys(events, &mut keys);
        let mut bytes = keys;
        let split = bytes.len();
        encode_events(events, &mut bytes);
        let offset = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        match self.file.write_all_at(&bytes, offset) {
            Ok(()) => Some(Span {
                offset,
                keys: split,
                events: bytes.len() - split,
            }),
            Err(e) => {
                let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
                failed.get_or_insert(e);
                None
            }
        }
    }

    /// Appends `bytes` as they are (a reader's own encoding, read back with
    /// [`Spill::bytes`]): where they start, or None when the write failed (kept for
    /// [`Spill::check`]).
    pub fn put_bytes(&self, bytes: &[u8]) -> Option<u64> {
        let offset = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        match self.file.write_all_at(bytes, offset) {
            Ok(()) => Some(offset),
            Err(e) => {
                let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
                failed.get_or_insert(e);
                None
            }
        }
    }

    /// The `len` bytes [`Spill::put_bytes`] wrote at `offset`.
    ///
    /// Errors: [`crate::error::Error::Unreadable`] when they cannot be read back.
    pub fn bytes(&self, offset: u64, len: usize) -> Result<Vec<u8>, crate::error::Error> {
        self.read(offset, len)
    }

    /// Whether a write has failed (the import then stops with [`Spill::check`]'s error,
    /// so nothing need be read back).
    pub fn has_failed(&self) -> bool {
        self.failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// The first write that failed, if any.
    ///
    /// Errors: [`crate::error::Error::Write`] naming the spill file.
    pub fn check(&self) -> Result<(), crate::error::Error> {
        let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        match failed.take() {
            None => Ok(()),
            Some(source) => Err(crate::error::Error::Write {
                path: self.path.clone(),
                source,
            }),
        }
    }

    fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, crate::error::Error> {
        let mut bytes = vec![0; len];
        self.file
            .read_exact_at(&mut bytes, offset)
            .map_err(|source| crate::error::Error::Unreadable {
                path: self.path.clone(),
                source,
            })?;
        Ok(bytes)
    }

    /// The dedupe keys of a file's requests, in line order, with their routes.
    ///
    /// Errors: [`crate::error::Error::Unreadable`] when the record cannot be read back.
    pub fn keys(&self, span: Span) -> Result<Vec<(usize, Key)>, crate::error::Error> {
        let bytes = self.read(span.offset, span.keys)?;
        decode_keys(&bytes).map_err(|source| self.corrupt(source))
    }

    /// A file's events, as they were put.
    ///
    /// Errors: [`crate::error::Error::Unreadable`] when the record cannot be read back.
    pub fn events(&self, span: Span) -> Result<Vec<Event>, crate::error::Error> {
        let bytes = self.read(span.offset + span.keys as u64, span.events)?;
        decode_events(&bytes).map_err(|source| self.corrupt(source))
    }

    /// `source` (a record that did not decode) as the error naming the spill file.
    pub fn corrupt(&self, source: io::Error) -> crate::error::Error {
        crate::error::Error::Unreadable {
            path: self.path.clone(),
            source,
        }
    }
}

/// The dedupe keys of the requests among `events`, with their routes.
pub fn keys_of(events: &[Event]) -> Vec<(usize, Key)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Request(r) => Some((r.route, Key::of(r))),
            _ => None,
        })
        .collect()
}

fn encode_keys(events: &[Event], out: &mut Vec<u8>) {
    let mut w = W(out);
    for (route, k) in keys_of(events) {
        w.u(route as u64);
        w.u128(k.message);
        match k.pair {
            Some(p) => {
                w.b(true);
                w.u128(p);
            }
            None => w.b(false),
        }
        w.u128(k.bare);
    }
}

fn decode_keys(bytes: &[u8]) -> io::Result<Vec<(usize, Key)>> {
    let mut r = R { bytes, at: 0 };
    let mut keys = Vec::new();
    while r.at < bytes.len() {
        let route = r.usize()?;
        let message = r.u128()?;
        let pair = if r.b()? { Some(r.u128()?) } else { None };
        let bare = r.u128()?;
        keys.push((
            route,
            Key {
                message,
                pair,
                bare,
            },
        ));
    }
    Ok(keys)
}

/// Appends the encoding of `events` to `out`.
pub fn encode_events(events: &[Event], out: &mut Vec<u8>) {
    let mut w = W(out);
    w.u(events.len() as u64);
    for e in events {
        match e {
            Event::Request(r) => {
                w.u(0);
                request(&mut w, r);
            }
            Event::Joined(j) => {
                w.u(1);
                w.u(j.route as u64);
                w.u(j.bytes);
                w.u(j.images);
                w.u(j.tool_references);
                w.b(j.attachment);
                w.os(j.answers.as_deref());
                match &j.user_text {
                    Some(t) => {
                        w.b(true);
                        w.b(t.real_prompt);
                        w.b(t.slash_command);
                        w.s(&t.snippet);
                    }
                    None => w.b(false),
                }
                w.os(j.line_id.as_deref());
            }
            Event::Boundary { route, compaction } => {
                w.u(2);
                w.u(*route as u64);
                w.os(compaction.trigger.as_deref());
                w.ou(compaction.pre_tokens);
                w.ou(compaction.summary_bytes);
                w.ou(compaction.post_tokens);
            }
            Event::Summary { route, bytes } => {
                w.u(3);
                w.u(*route as u64);
                w.u(*bytes);
            }
            Event::Malformed(m) => {
                w.u(4);
                w.s(&m.file);
                w.u(m.line);
                w.s(&m.reason);
            }
        }
    }
}

fn request(w: &mut W, r: &Request) {
    w.u(r.route as u64);
    w.u(r.line);
    w.s(&r.message_key);
    w.os(r.request_key.as_deref());
    w.s(&r.id);
    match r.timestamp {
        Some(t) => {
            w.b(true);
            w.0.extend_from_slice(&t.as_nanosecond().to_le_bytes());
        }
        None => w.b(false),
    }
    w.usage(&r.usage);
    w.os(r.model.as_deref());
    w.u(r.tool_uses.len() as u64);
    for t in &r.tool_uses {
        w.s(&t.id);
        w.s(&t.name);
        w.s(&t.label);
        w.u(t.input_hash);
        w.b(t.web);
        w.u(t.input_bytes);
    }
    w.u(r.result_bytes);
    w.u(r.own_blocks.len() as u64);
    for o in &r.own_blocks {
        w.u(o.key);
        w.u(o.bytes);
        w.b(o.redacted);
    }
    w.b(r.own_sized);
    w.b(r.web);
}

/// The events `bytes` encode.
///
/// Errors: [`io::ErrorKind::InvalidData`] when `bytes` are not an encoding of events.
pub fn decode_events(bytes: &[u8]) -> io::Result<Vec<Event>> {
    let mut r = R { bytes, at: 0 };
    let n = r.usize()?;
    let mut events = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        let e = match r.u()? {
            0 => Event::Request(Box::new(read_request(&mut r)?)),
            1 => Event::Joined(Joined {
                route: r.usize()?,
                bytes: r.u()?,
                images: r.u()?,
                tool_references: r.u()?,
                attachment: r.b()?,
                answers: r.ocs()?,
                user_text: if r.b()? {
                    Some(UserText {
                        real_prompt: r.b()?,
                        slash_command: r.b()?,
                        snippet: r.s()?.to_string(),
                    })
                } else {
                    None
                },
                line_id: r.ocs()?,
            }),
            2 => Event::Boundary {
                route: r.usize()?,
                compaction: Compaction {
                    trigger: r.os()?.map(str::to_string),
                    pre_tokens: r.ou()?,
                    summary_bytes: r.ou()?,
                    post_tokens: r.ou()?,
                },
            },
            3 => Event::Summary {
                route: r.usize()?,
                bytes: r.u()?,
            },
            4 => Event::Malformed(Malformed {
                file: r.s()?.to_string(),
                line: r.u()?,
                reason: r.s()?.to_string(),
            }),
            _ => return Err(invalid()),
        };
        events.push(e);
    }
    if r.at != bytes.len() {
        return Err(invalid());
    }
    Ok(events)
}

fn read_request(r: &mut R) -> io::Result<Request> {
    let route = r.usize()?;
    let line = r.u()?;
    let message_key = r.s()?.into();
    let request_key = r.ocs()?;
    let id = r.s()?.into();
    let timestamp = if r.b()? {
        let nanos = i128::from_le_bytes(r.take(16)?.try_into().map_err(|_| invalid())?);
        Some(Timestamp::from_nanosecond(nanos).map_err(|_| invalid())?)
    } else {
        None
    };
    let usage = r.usage()?;
    let model = r.ocs()?;
    let n = r.usize()?;
    let mut tool_uses = Vec::with_capacity(n.min(r.bytes.len()));
    for _ in 0..n {
        tool_uses.push(ToolUse {
            id: r.s()?.into(),
            name: r.s()?.into(),
            label: r.s()?.to_string(),
            input_hash: r.u()?,
            web: r.b()?,
            input_bytes: r.u()?,
        });
    }
    let result_bytes = r.u()?;
    let n = r.usize()?;
    let mut own_blocks = Vec::with_capacity(n.min(r.bytes.len()));
    for _ in 0..n {
        own_blocks.push(OwnBlock {
            key: r.u()?,
            bytes: r.u()?,
            redacted: r.b()?,
        });
    }
    Ok(Request {
        route,
        line,
        message_key,
        request_key,
        id,
        timestamp,
        usage,
        model,
        tool_uses,
        result_bytes,
        own_blocks,
        own_sized: r.b()?,
        web: r.b()?,
    })
}

pub(crate) fn invalid() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the import's own spill file does not read back as written (changed while the import ran?)",
    )
}

/// Writes the encoding (also the OpenTelemetry reader's spilled records').
pub(crate) struct W<'a>(pub(crate) &'a mut Vec<u8>);

impl W<'_> {
    /// A request's usage, as `R::usage` reads it back (the Claude Code and OpenTelemetry
    /// spills share it).
    pub(crate) fn usage(&mut self, u: &Usage) {
        self.u(u.input_tokens);
        self.ou(u.cache_creation_input_tokens);
        self.ou(u.cache_creation_1h_input_tokens);
        self.u(u.cache_read_input_tokens);
        self.u(u.output_tokens);
        match u.cost_usd {
            Some(c) => {
                self.b(true);
                self.0.extend_from_slice(&c.to_bits().to_le_bytes());
            }
            None => self.b(false),
        }
    }

    pub(crate) fn u(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    pub(crate) fn b(&mut self, v: bool) {
        self.0.push(u8::from(v));
    }

    pub(crate) fn u128(&mut self, v: u128) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn s(&mut self, v: &str) {
        self.u(v.len() as u64);
        self.0.extend_from_slice(v.as_bytes());
    }

    pub(crate) fn os(&mut self, v: Option<&str>) {
        match v {
            Some(s) => {
                self.b(true);
                self.s(s);
            }
            None => self.b(false),
        }
    }

    pub(crate) fn ou(&mut self, v: Option<u64>) {
        match v {
            Some(x) => {
                self.b(true);
                self.u(x);
            }
            None => self.b(false),
        }
    }
}

/// Reads it back; every read is checked, so a damaged record is an error, never a panic.
pub(crate) struct R<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> R<'a> {
    /// A request's usage, as `W::usage` wrote it.
    pub(crate) fn usage(&mut self) -> io::Result<Usage> {
        Ok(Usage {
            input_tokens: self.u()?,
            cache_creation_input_tokens: self.ou()?,
            cache_creation_1h_input_tokens: self.ou()?,
            cache_read_input_tokens: self.u()?,
            output_tokens: self.u()?,
            cost_usd: if self.b()? {
                let bits: [u8; 8] = self.take(8)?.try_into().map_err(|_| invalid())?;
                Some(f64::from_bits(u64::from_le_bytes(bits)))
            } else {
                None
            },
        })
    }

    /// A reader of `bytes` from their start.
    pub(crate) fn new(bytes: &'a [u8]) -> R<'a> {
        R { bytes, at: 0 }
    }

    /// Whether every byte was read.
    pub(crate) fn done(&self) -> bool {
        self.at == self.bytes.len()
    }

    pub(crate) fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        let end = self.at.checked_add(n).ok_or_else(invalid)?;
        let part = self.bytes.get(self.at..end).ok_or_else(invalid)?;
        self.at = end;
        Ok(part)
    }

    pub(crate) fn u(&mut self) -> io::Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.take(1)?.first().ok_or_else(invalid)?;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(invalid())
    }

    pub(crate) fn usize(&mut self) -> io::Result<usize> {
        usize::try_from(self.u()?).map_err(|_| invalid())
    }

    pub(crate) fn b(&mut self) -> io::Result<bool> {
        match self.take(1)?.first() {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            _ => Err(invalid()),
        }
    }

    fn u128(&mut self) -> io::Result<u128> {
        let bytes: [u8; 16] = self.take(16)?.try_into().map_err(|_| invalid())?;
        Ok(u128::from_le_bytes(bytes))
    }

    pub(crate) fn s(&mut self) -> io::Result<&'a str> {
        let n = self.usize()?;
        std::str::from_utf8(self.take(n)?).map_err(|_| invalid())
    }

    pub(crate) fn os(&mut self) -> io::Result<Option<&'a str>> {
        Ok(if self.b()? { Some(self.s()?) } else { None })
    }

    pub(crate) fn ocs(&mut self) -> io::Result<Option<CompactString>> {
        Ok(self.os()?.map(CompactString::from))
    }

    pub(crate) fn ou(&mut self) -> io::Result<Option<u64>> {
        Ok(if self.b()? { Some(self.u()?) } else { None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events() -> Vec<Event> {
        let tool = |id: &str| ToolUse {
            id: id.into(),
            name: "Bash".into(),
            label: "Bash: ls ✓".into(),
            input_hash: u64::MAX,
            web: true,
            input_bytes: 300,
        };
        vec![
            Event::Request(Box::new(Request {
                route: 1,
                line: 7,
                message_key: "msg_1".into(),
                request_key: Some("req_1".into()),
                id: "req_1".into(),
                timestamp: Some(Timestamp::from_nanosecond(1_760_000_000_123_456_789).unwrap()),
                usage: Usage {
                    input_tokens: 3,
                    cache_creation_input_tokens: Some(100),
                    cache_creation_1h_input_tokens: None,
                    cache_read_input_tokens: 1 << 40,
                    output_tokens: 9,
                    cost_usd: Some(0.004596),
                },
                model: Some("claude-sonnet-4-5".into()),
                tool_uses: vec![tool("toolu_1"), tool("toolu_2")],
                result_bytes: 12,
                own_blocks: vec![OwnBlock {
                    key: 42,
                    bytes: 18,
                    redacted: true,
                }],
                own_sized: true,
                web: false,
            })),
            Event::Request(Box::new(Request {
                route: 0,
                line: 8,
                message_key: "m".into(),
                request_key: None,
                id: "m".into(),
                timestamp: None,
                usage: Usage::default(),
                model: None,
                tool_uses: Vec::new(),
                result_bytes: 0,
                own_blocks: Vec::new(),
                own_sized: false,
                web: true,
            })),
            Event::Joined(Joined {
                route: 0,
                bytes: 5,
                images: 1,
                tool_references: 2,
                attachment: true,
                answers: Some("toolu_1".into()),
                user_text: Some(UserText {
                    real_prompt: true,
                    slash_command: false,
                    snippet: "fix it\n".into(),
                }),
                line_id: None,
            }),
            Event::Boundary {
                route: 0,
                compaction: Compaction {
                    trigger: Some("auto".into()),
                    pre_tokens: Some(150_000),
                    summary_bytes: None,
                    post_tokens: Some(0),
                },
            },
            Event::Summary {
                route: 2,
                bytes: 99,
            },
            Event::Malformed(Malformed {
                file: "a.jsonl".into(),
                line: 3,
                reason: "not valid JSON".into(),
            }),
        ]
    }

    #[test]
    fn events_read_back_as_they_were_written() {
        let e = events();
        let mut bytes = Vec::new();
        encode_events(&e, &mut bytes);
        assert_eq!(decode_events(&bytes).unwrap(), e);
        // Cut short or with a byte changed, the record is an error, never a panic.
        for n in 0..bytes.len() {
            assert!(decode_events(&bytes[..n]).is_err());
        }
        let mut bad = bytes.clone();
        bad[1] = 9;
        assert!(decode_events(&bad).is_err());
    }

    #[test]
    fn a_spill_file_gives_back_each_record_and_its_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spill");
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        let spill = Spill::new(file, path);
        let e = events();
        let a = spill.put(&e).unwrap();
        let b = spill.put(&e[2..]).unwrap();
        spill.check().unwrap();
        assert_eq!(spill.events(b).unwrap(), e[2..].to_vec());
        assert_eq!(spill.events(a).unwrap(), e);
        let keys = spill.keys(a).unwrap();
        let want = keys_of(&e);
        assert_eq!(keys.len(), 2);
        for ((r1, k1), (r2, k2)) in keys.iter().zip(&want) {
            assert_eq!(
                (r1, k1.message, k1.pair, k1.bare),
                (r2, k2.message, k2.pair, k2.bare)
            );
        }
        assert!(spill.keys(b).unwrap().is_empty());
    }
}
