//! Finding log files, reading them a line at a time, and refusing an `--out` that would
//! write over them.
//!
//! Logs can be gigabytes: a file is never loaded whole, and a line longer than
//! [`MAX_LINE_BYTES`] is skipped (and reported) instead of being held in memory. A gzip
//! file (told by its first two bytes, whatever its name) is read as its content, a line at
//! a time like any other: archived collector output is usually gzipped.

use super::event::Event;
use crate::error::{Error, Located};
use flate2::bufread::MultiGzDecoder;
use memchr::memchr;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};

/// A line longer than this is reported as malformed without being kept: 64 MiB, far above
/// any real transcript line, and small enough that two files read at once stay well within
/// memory.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// A log file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The path as given or found (what messages and scenarios show).
    pub path: PathBuf,
    /// Its canonical path, to tell two names of one file apart and to guard `--out`.
    pub canonical: PathBuf,
}

impl SourceFile {
    /// The path for people.
    pub fn display(&self) -> String {
        self.path.display().to_string()
    }
}

/// A log file that could not be read at all, and why: listed, and the rest imported.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unreadable {
    pub file: String,
    pub reason: String,
}

impl Unreadable {
    /// `file`, with the reason `e` gives (without the file's name, which it repeats).
    pub fn new(file: &SourceFile, e: &Error) -> Self {
        let reason = match e {
            Error::Unreadable { source, .. } => source.to_string(),
            Error::Input(located) => located.message.clone(),
            other => other.to_string(),
        };
        Unreadable {
            file: file.display(),
            reason,
        }
    }
}

/// `read`, one result per file of `files` in order, as the logs read and the files that
/// could not be.
pub fn partition<T>(
    files: &[SourceFile],
    read: Vec<Result<T, Error>>,
) -> (Vec<T>, Vec<Unreadable>) {
    let mut logs = Vec::with_capacity(read.len());
    let mut unreadable = Vec::new();
    for (file, log) in files.iter().zip(read) {
        match log {
            Ok(log) => logs.push(log),
            Err(e) => unreadable.push(Unreadable::new(file, &e)),
        }
    }
    (logs, unreadable)
}

/// One line of a file, without its line ending.
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based.
    pub number: u64,
    pub bytes: &'a [u8],
    /// The file ended without a newline after this line (a write cut short, perhaps).
    pub unterminated: bool,
    /// The line was longer than [`MAX_LINE_BYTES`]; `bytes` is empty.
    pub too_long: bool,
}

/// What a reader does with the lines of a JSON-lines log.
pub trait JsonLines {
    /// The file's log, where malformed lines are recorded.
    fn log(&mut self) -> &mut super::FileLog;
    /// Parses and takes line `number` (not blank, not too long); a parse error makes it a
    /// malformed line.
    fn line(&mut self, number: u64, bytes: &[u8]) -> Result<(), serde_json::Error>;
}

/// Reads `file` line by line into `sink`: a line too long, or one that does not parse, is
/// recorded as malformed with its number and why; blank lines are skipped. Lines that
/// cannot be read are events, never errors: only a file that cannot be read at all is. A
/// gzip stream that breaks (cut short while a collector was writing it, or damaged) keeps
/// the lines before the break, and the break is recorded as malformed after them.
pub fn read_json_lines(file: &SourceFile, sink: &mut impl JsonLines) -> Result<(), Error> {
    // Through the one gate every input goes through: a named pipe or a device is refused
    // before a byte is read (it would block, or never end).
    let (opened, _) = crate::input::open(&file.path, crate::input::Kind::Log)?;
    let mut last_unterminated = false;
    let broken = lines_of_file(opened, MAX_LINE_BYTES, |line| {
        last_unterminated = line.unterminated;
        take_line(sink, line)
    })
    .map_err(|source| Error::Unreadable {
        path: file.path.clone(),
        source,
    })?;
    if let Some(e) = broken {
        let log = sink.log();
        let lines = log.lines;
        if last_unterminated && lines > 0 {
            // The cut fell inside the last line: that line is the truncated one (its
            // parse failure, if recorded, is the cut's), counted once.
            if matches!(log.events.last(), Some(Event::Malformed(m)) if m.line == lines) {
                log.events.pop();
            }
            log.malformed(
                lines,
                format!(
                    "the gzip stream is truncated in this line ({e}); the lines before it were read"
                ),
            );
        } else {
            // The cut fell between lines: what followed is lost, and recorded past the last
            // line read, which is not counted as a line.
            log.malformed(
                lines + 1,
                format!("the gzip stream is truncated after line {lines} ({e}); the lines before it were read"),
            );
        }
    }
    Ok(())
}

/// Reads the lines of `part` (plain text: a part of an uncompressed file that starts at a
/// line's start) into `sink` as [`read_json_lines`] does, numbered from 1.
pub fn read_json_part(part: &mut impl Read, sink: &mut impl JsonLines) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 20, part);
    lines_of(&mut reader, MAX_LINE_BYTES, &mut |line| {
        take_line(sink, line)
    })
}

/// One line for `sink`: too long, blank, or parsed (a parse error makes it malformed).
fn take_line(sink: &mut impl JsonLines, line: Line<'_>) {
    sink.log().lines = line.number;
    if line.too_long {
        sink.log().malformed(
            line.number,
            format!("line longer than {} MiB, skipped", MAX_LINE_BYTES >> 20),
        );
        return;
    }
    if line.bytes.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    // A UTF-8 byte-order mark before the first line (as some editors and Windows tools
    // write) is not part of the JSON.
    let bytes = if line.number == 1 {
        line.bytes
            .strip_prefix(b"\xef\xbb\xbf")
            .unwrap_or(line.bytes)
    } else {
        line.bytes
    };
    if let Err(e) = sink.line(line.number, bytes) {
        sink.log()
            .malformed(line.number, super::parse_failure(&e, line.unterminated));
    }
}

/// Calls `each` on every line of `path` in order, holding at most one line in memory;
/// gzip is decompressed as it is read. `Ok(Some(e))`: a gzip stream broke with `e` after
/// the lines given.
pub fn for_each_line(path: &Path, each: impl FnMut(Line<'_>)) -> io::Result<Option<io::Error>> {
    for_each_line_capped(path, MAX_LINE_BYTES, each)
}

/// The two bytes every gzip member starts with (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// [`for_each_line`] with lines longer than `cap` bytes reported as too long.
fn for_each_line_capped(
    path: &Path,
    cap: usize,
    each: impl FnMut(Line<'_>),
) -> io::Result<Option<io::Error>> {
    lines_of_file(File::open(path)?, cap, each)
}

/// The lines of an open `file`, as [`for_each_line_capped`].
fn lines_of_file(
    file: File,
    cap: usize,
    mut each: impl FnMut(Line<'_>),
) -> io::Result<Option<io::Error>> {
    let mut file = BufReader::with_capacity(1 << 20, file);
    if !file.fill_buf()?.starts_with(&GZIP_MAGIC) {
        lines_of(&mut file, cap, &mut each)?;
        return Ok(None);
    }
    // Several members (files gzipped and concatenated) read as one stream.
    let mut gz = BufReader::with_capacity(
        1 << 20,
        UntilBroken {
            inner: MultiGzDecoder::new(file),
            broken: None,
        },
    );
    lines_of(&mut gz, cap, &mut each)?;
    Ok(gz.into_inner().broken)
}

/// A reader that ends at its source's first error and keeps it, so the lines before a
/// damaged part of a compressed file are still read.
struct UntilBroken<R> {
    inner: R,
    broken: Option<io::Error>,
}

impl<R: Read> Read for UntilBroken<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.broken.is_some() {
            return Ok(0);
        }
        loop {
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.broken = Some(e);
                    return Ok(0);
                }
                Ok(n) => return Ok(n),
            }
        }
    }
}

/// Calls `each` on every line of `reader`, lines longer than `cap` reported as too long.
fn lines_of(
    reader: &mut impl BufRead,
    cap: usize,
    each: &mut impl FnMut(Line<'_>),
) -> io::Result<()> {
    let mut held: Vec<u8> = Vec::new();
    let mut number = 0;
    loop {
        let mut too_long = false;
        let mut ended = false;
        let mut read_any = false;
        held.clear();
        loop {
            let available = match reader.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                break;
            }
            read_any = true;
            let newline = memchr(b'\n', available);
            // The common case: the whole line is in the buffer, so it is read in place.
            if let Some(end) = newline.filter(|&e| held.is_empty() && !too_long && e <= cap) {
                number += 1;
                each(Line {
                    number,
                    bytes: trim_cr(&available[..end]),
                    unterminated: false,
                    too_long: false,
                });
                reader.consume(end + 1);
                ended = true;
                break;
            }
            let take = newline.unwrap_or(available.len());
            if !too_long {
                if held.len() + take > cap {
                    too_long = true;
                    held = Vec::new();
                } else {
                    held.extend_from_slice(&available[..take]);
                }
            }
            match newline {
                Some(end) => {
                    reader.consume(end + 1);
                    number += 1;
                    each(Line {
                        number,
                        bytes: trim_cr(&held),
                        unterminated: false,
                        too_long,
                    });
                    ended = true;
                    break;
                }
                None => reader.consume(take),
            }
        }
        if ended {
            continue;
        }
        if read_any {
            number += 1;
            each(Line {
                number,
                bytes: trim_cr(&held),
                unterminated: true,
                too_long,
            });
        }
        return Ok(());
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The log files named by `paths`: files as they are, directories searched recursively for
/// files `is_log` accepts. Sorted by path; a file named twice is read once.
///
/// A path that does not exist, or a directory with no log in it, is an error naming it:
/// the user asked for it, so silence would hide a typo.
pub fn find(
    paths: &[PathBuf],
    is_log: impl Fn(&Path) -> bool,
    what: &str,
) -> Result<Vec<SourceFile>, Error> {
    find_listing(paths, is_log, what).map(|(files, _)| files)
}

/// [`find`], and the symbolic link loops met on the way (a link to a folder above it, or
/// to itself), each listed as unreadable rather than stopping the whole import.
pub fn find_listing(
    paths: &[PathBuf],
    is_log: impl Fn(&Path) -> bool,
    what: &str,
) -> Result<(Vec<SourceFile>, Vec<Unreadable>), Error> {
    let mut found = Vec::new();
    let mut loops = Vec::new();
    for path in paths {
        let unreadable = |source| Error::Unreadable {
            path: path.clone(),
            source,
        };
        let meta = fs::metadata(path).map_err(unreadable)?;
        if !meta.is_dir() {
            found.push(path.clone());
            continue;
        }
        let before = found.len();
        for entry in walkdir::WalkDir::new(path)
            .follow_links(true)
            .sort_by_file_name()
        {
            let entry = match entry {
                Err(e) if crate::input::is_link_loop(&e) => {
                    loops.push(Unreadable {
                        file: e.path().unwrap_or(path).display().to_string(),
                        reason: "a symbolic link loop, not read".into(),
                    });
                    continue;
                }
                entry => entry,
            };
            let entry = entry.map_err(|e| {
                let at = e.path().map_or_else(|| path.clone(), Path::to_path_buf);
                Error::Unreadable {
                    path: at,
                    source: e.into_io_error().unwrap_or_else(|| {
                        io::Error::other("a directory loop (a link back to a parent)")
                    }),
                }
            })?;
            // A named pipe or a device named like a log is kept, to be listed as
            // unreadable when it is refused: a skipped entry is always listed.
            if !entry.file_type().is_dir() && is_log(entry.path()) {
                found.push(entry.into_path());
            }
        }
        if found.len() == before {
            return Err(Located::new(
                path.display().to_string(),
                format!("no {what} found in this directory (searched recursively)"),
            )
            .into());
        }
    }
    // One `realpath` a file, a `readlink` for each part of its path: in parallel, the
    // first failure in the order found reported.
    use rayon::prelude::*;
    let resolved: Vec<io::Result<PathBuf>> = found.par_iter().map(fs::canonicalize).collect();
    let mut files = Vec::with_capacity(found.len());
    for (path, canonical) in found.into_iter().zip(resolved) {
        let canonical = canonical.map_err(|source| Error::Unreadable {
            path: path.clone(),
            source,
        })?;
        files.push(SourceFile { path, canonical });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.canonical.clone()));
    Ok((files, loops))
}

/// Refuses an `--out` directory that is, or holds, one of the inputs, and one that cannot
/// be written; writes nothing anywhere (the directory is made only when scenarios are
/// written).
pub fn check_out(out: &Path, inputs: &[SourceFile]) -> Result<(), Error> {
    let (existing, rest) = nearest_existing(out);
    let unwritable = |source| Error::Unwritable {
        path: out.to_path_buf(),
        source,
    };
    let canonical_base = fs::canonicalize(&existing).map_err(unwritable)?;
    let canonical = rest.iter().fold(canonical_base.clone(), |p, c| p.join(c));
    if let Some(input) = inputs.iter().find(|f| f.canonical.starts_with(&canonical)) {
        let how = if input.canonical == canonical {
            "is"
        } else {
            "contains"
        };
        return Err(Located::new(
            out.display().to_string(),
            format!(
                "--out {how} the input file {}; write the scenarios to a directory that holds no log",
                input.display()
            ),
        )
        .place("--out")
        .into());
    }
    if !fs::metadata(&canonical_base).map_err(unwritable)?.is_dir() {
        return Err(unwritable(io::Error::other(format!(
            "{} is not a directory",
            existing.display()
        ))));
    }
    // Asked of the kernel, not probed with a file: the nearest existing folder may lie
    // outside --out, and nothing is written outside it. (A file system that refuses writes
    // all the same is caught when the scenarios are staged, still before any is in place.)
    let access = rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK;
    rustix::fs::accessat(
        rustix::fs::CWD,
        &canonical_base,
        access,
        rustix::fs::AtFlags::EACCESS,
    )
    .map_err(|e| unwritable(e.into()))
}

/// The longest prefix of `path` that exists, and the components after it.
fn nearest_existing(path: &Path) -> (PathBuf, Vec<std::ffi::OsString>) {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if existing.as_os_str().is_empty() {
            existing = PathBuf::from(".");
        }
        if fs::symlink_metadata(&existing).is_ok() {
            break;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    rest.reverse();
    // `..` and `.` in the missing part would make the joined path lie; keep plain names.
    rest.retain(|c| !matches!(Path::new(c).components().next(), Some(Component::CurDir)));
    (existing, rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines_of(text: &[u8]) -> Vec<(u64, Vec<u8>, bool)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        File::create(&path).unwrap().write_all(text).unwrap();
        let mut out = Vec::new();
        for_each_line(&path, |l| {
            out.push((l.number, l.bytes.to_vec(), l.unterminated))
        })
        .unwrap();
        out
    }

    #[test]
    fn lines_keep_their_numbers_and_a_cut_last_line_is_flagged() {
        let got = lines_of(b"a\r\n\nbc\nd");
        assert_eq!(
            got,
            vec![
                (1, b"a".to_vec(), false),
                (2, b"".to_vec(), false),
                (3, b"bc".to_vec(), false),
                (4, b"d".to_vec(), true)
            ]
        );
        assert!(lines_of(b"").is_empty());
        assert_eq!(lines_of(b"x\n"), vec![(1, b"x".to_vec(), false)]);
    }

    #[test]
    fn a_line_over_the_cap_is_flagged_and_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let long = "x".repeat(3 << 20);
        fs::write(&path, format!("ok\n{long}\n{long}\nend")).unwrap();
        let mut seen = Vec::new();
        for_each_line_capped(&path, 1 << 20, |l| {
            seen.push((l.number, l.bytes.len(), l.too_long, l.unterminated));
        })
        .unwrap();
        assert_eq!(
            seen,
            vec![
                (1, 2, false, false),
                (2, 0, true, false),
                (3, 0, true, false),
                (4, 3, false, true)
            ]
        );
    }

    #[test]
    fn gzip_is_read_as_its_lines_and_a_cut_stream_keeps_what_came_before() {
        use flate2::{Compression, write::GzEncoder};
        let dir = tempfile::tempdir().unwrap();
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        let text: String = (1..=2000).map(|i| format!("line {i}\n")).collect();
        gz.write_all(text.as_bytes()).unwrap();
        let packed = gz.finish().unwrap();
        let read = |bytes: &[u8]| {
            let path = dir.path().join("t.json");
            fs::write(&path, bytes).unwrap();
            let mut lines = Vec::new();
            let broken = for_each_line(&path, |l| {
                lines.push(String::from_utf8_lossy(l.bytes).into_owned())
            })
            .unwrap();
            (lines, broken.is_some())
        };
        let (lines, broken) = read(&packed);
        assert_eq!(lines.len(), 2000);
        assert_eq!(lines[1999], "line 2000");
        assert!(!broken);
        // Two members one after the other (`cat a.gz b.gz`) read as one stream.
        let (lines, _) = read(&[packed.clone(), packed.clone()].concat());
        assert_eq!(lines.len(), 4000);
        // Cut short: what decompressed before the cut is read, and the break is said.
        let (lines, broken) = read(&packed[..packed.len() / 2]);
        assert!(broken);
        assert!(
            lines.len() < 2000 && lines[0] == "line 1",
            "{}",
            lines.len()
        );
    }

    #[test]
    fn out_inside_or_onto_an_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        File::create(&log).unwrap();
        let inputs = vec![SourceFile {
            path: log.clone(),
            canonical: fs::canonicalize(&log).unwrap(),
        }];
        assert!(check_out(dir.path(), &inputs).is_err());
        assert!(check_out(&log, &inputs).is_err());
        assert!(check_out(&dir.path().join("new/deeper"), &inputs).is_ok());
        let other = tempfile::tempdir().unwrap();
        assert!(check_out(&other.path().join("x"), &inputs).is_ok());
        assert!(!other.path().join("x").exists());
    }

    /// A sink that takes every line that is a JSON value.
    #[derive(Default)]
    struct Values {
        log: super::super::FileLog,
        values: Vec<serde_json::Value>,
    }

    impl JsonLines for Values {
        fn log(&mut self) -> &mut super::super::FileLog {
            &mut self.log
        }
        fn line(&mut self, _: u64, bytes: &[u8]) -> Result<(), serde_json::Error> {
            self.values.push(serde_json::from_slice(bytes)?);
            Ok(())
        }
    }

    fn read_values(bytes: &[u8]) -> Values {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        fs::write(&path, bytes).unwrap();
        let file = SourceFile {
            canonical: path.clone(),
            path,
        };
        let mut sink = Values::default();
        read_json_lines(&file, &mut sink).unwrap();
        sink
    }

    fn malformed(log: &super::super::FileLog) -> Vec<(u64, String)> {
        log.events
            .iter()
            .filter_map(|e| match e {
                Event::Malformed(m) => Some((m.line, m.reason.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_gzip_stream_cut_inside_its_only_line_is_one_truncated_line_of_one() {
        use flate2::{Compression, write::GzEncoder};
        let line = format!("{{\"text\": \"{}\"}}\n", "x".repeat(200_000));
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(line.as_bytes()).unwrap();
        let packed = gz.finish().unwrap();
        let sink = read_values(&packed[..packed.len() * 3 / 4]);
        assert_eq!(sink.log.lines, 1);
        let m = malformed(&sink.log);
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].0, 1);
        assert!(
            m[0].1
                .starts_with("the gzip stream is truncated in this line"),
            "{m:?}"
        );
        // Cut wherever: every line read is a value or the one truncated, counted once.
        let text: String = (1..=3000).map(|i| format!("{{\"n\": {i}}}\n")).collect();
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(text.as_bytes()).unwrap();
        let packed = gz.finish().unwrap();
        let sink = read_values(&packed[..packed.len() / 2]);
        let m = malformed(&sink.log);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].1.starts_with("the gzip stream is truncated"), "{m:?}");
        let cut_line = u64::from(m[0].0 <= sink.log.lines);
        assert_eq!(sink.values.len() as u64 + cut_line, sink.log.lines);
    }

    #[test]
    fn a_byte_order_mark_before_the_first_line_is_not_part_of_it() {
        let sink = read_values(b"\xef\xbb\xbf{\"a\": 1}\n{\"a\": 2}\n");
        assert_eq!(malformed(&sink.log), Vec::new());
        assert_eq!(sink.values.len(), 2);
        // Elsewhere it is what it is: not JSON.
        let sink = read_values(b"{\"a\": 1}\n\xef\xbb\xbf{\"a\": 2}\n");
        assert_eq!(malformed(&sink.log).len(), 1);
    }
}
