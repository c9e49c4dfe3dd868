//! A large OpenTelemetry file read in two halves at once, on two threads, when that gives
//! what reading it from the start would (as `scenario::tsv::halves` does for a trace).
//!
//! A collector's file is one export a line, and the reader takes each line on its own: what
//! a line gives depends on its bytes and its number alone ([`Parsed`]'s `line`). So the
//! file is cut at the first line end at or after its middle, each half read into records
//! and problems of its own, and the second half's appended to the first's with its line
//! numbers moved on by the first half's lines. That is the one pass's result by
//! construction: the same lines, the same numbers, in the same order; a kind of skipped
//! record counts the lines of both halves, and says whether it is known as the later one
//! does (the one pass keeps the last). Both halves are read through the one handle the
//! input gate opened (positioned reads), so a file replaced meanwhile is never mixed with
//! another. Anything unusual (a gzip file, which cannot be cut; a short file; no line end
//! near the middle; an error reading either half) returns `None`, and the file is read
//! from the start as usual, errors and all.

use super::Parsed;
use crate::import::event::{Event, FileLog};
use crate::import::files::{self, SourceFile};
use crate::import::spill::Spill;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

/// Files shorter than this are read in one pass: two threads gain little on a few
/// milliseconds of reading.
const MIN_BYTES: u64 = 8 << 20;

/// Bytes looked at after the middle for a line end.
const WINDOW: usize = 1 << 16;

/// File `index` read in two halves at once, or `None` (see the module).
pub(super) fn read<'s>(
    index: usize,
    file: &SourceFile,
    spill: Option<&'s Spill>,
) -> Option<Parsed<'s>> {
    if rayon::current_num_threads() < 2 {
        return None;
    }
    let (opened, size) = crate::input::open(&file.path, crate::input::Kind::Log).ok()?;
    if size < MIN_BYTES {
        return None;
    }
    let mut magic = [0u8; 2];
    opened.read_exact_at(&mut magic, 0).ok()?;
    if magic == files::GZIP_MAGIC {
        return None;
    }
    let cut = cut(&opened, size)?;
    read_cut(&opened, index, &file.display(), cut, size, spill)
}

/// Just after the first line end at or after the middle of `file` (`size` bytes), if it
/// is within [`WINDOW`] bytes and leaves a second half.
fn cut(file: &File, size: u64) -> Option<u64> {
    let middle = size / 2;
    let mut after = vec![0u8; WINDOW.min((size - middle) as usize)];
    let n = file.read_at(&mut after, middle).ok()?;
    let cut = middle + memchr::memchr(b'\n', &after[..n])? as u64 + 1;
    (cut < size).then_some(cut)
}

/// The bytes `[0, cut)` and `[cut, size)` of `file` read at once and joined.
fn read_cut<'s>(
    file: &File,
    index: usize,
    name: &str,
    cut: u64,
    size: u64,
    spill: Option<&'s Spill>,
) -> Option<Parsed<'s>> {
    let half = |from: u64, to: u64| -> io::Result<Parsed<'s>> {
        let mut p = Parsed::new(FileLog::new(name), index, spill);
        let mut part = At {
            file,
            at: from,
            end: to,
        };
        files::read_json_part(&mut part, &mut p)?;
        p.flush();
        Ok(p)
    };
    let (first, second) = rayon::join(|| half(0, cut), || half(cut, size));
    Some(join(first.ok()?, second.ok()?))
}

/// The second half's records and problems after the first's, as one pass reads them
/// (each session's records in the order read, sessions in the order of their first).
/// Records are not read again: each session's written chunks are listed after the first
/// half's, their line numbers to be moved on by the first half's lines.
fn join<'s>(mut first: Parsed<'s>, second: Parsed<'s>) -> Parsed<'s> {
    let offset = first.log.lines;
    first.log.lines += second.log.lines;
    for (kind, s) in second.log.skipped {
        let e = first.log.skipped.entry(kind).or_default();
        e.lines += s.lines;
        e.known = s.known;
    }
    first
        .log
        .events
        .extend(second.log.events.into_iter().map(|mut e| {
            if let Event::Malformed(m) = &mut e {
                m.line += offset;
            }
            e
        }));
    for (id, mut records) in second.sessions {
        records.shift_lines(offset);
        match first.by_id.get(&id) {
            Some(&s) => first.sessions[s].1.append(records),
            None => {
                first.by_id.insert(id.clone(), first.sessions.len());
                first.sessions.push((id, records));
            }
        }
    }
    first
}

/// The bytes `[at, end)` of a file, read at their place (not through the handle's offset,
/// which the other half's reader shares).
struct At<'f> {
    file: &'f File,
    at: u64,
    end: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf.len().min((self.end - self.at) as usize);
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Each session of `p` with its records, read back from `spill`.
    fn sessions(p: &Parsed, spill: Option<&Spill>) -> Vec<(String, Vec<super::super::Record>)> {
        p.sessions
            .iter()
            .map(|(id, kept)| (id.to_string(), kept.records(spill).unwrap()))
            .collect()
    }

    /// `text` in a file, read in one pass and then cut after each line end in turn, the
    /// records kept in memory and then spilled: each read's log and sessions.
    #[allow(clippy::type_complexity)]
    fn one_pass_and_halves(
        text: &str,
    ) -> Vec<(
        Option<u64>,
        FileLog,
        Vec<(String, Vec<super::super::Record>)>,
    )> {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        let file = SourceFile {
            path: f.path().to_path_buf(),
            canonical: f.path().to_path_buf(),
        };
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::create(dir.path()).unwrap();
        let mut out = Vec::new();
        for spill in [None, Some(&spill)] {
            let whole = super::super::parse(0, &file, spill).unwrap();
            out.push((None, whole.log.clone(), sessions(&whole, spill)));
            let ends = text.match_indices('\n').map(|(i, _)| i as u64 + 1);
            for cut in ends.filter(|&c| c < text.len() as u64) {
                let p = read_cut(
                    f.as_file(),
                    0,
                    &file.display(),
                    cut,
                    text.len() as u64,
                    spill,
                )
                .unwrap();
                out.push((Some(cut), p.log.clone(), sessions(&p, spill)));
            }
        }
        out
    }

    /// Wherever the cut (at a line end), two halves give what one pass gives.
    #[test]
    fn two_halves_give_what_one_pass_gives() {
        let record = |seq: u32, name: &str, extra: &str| {
            format!(
                r#"{{"attributes":[{{"key":"session.id","value":{{"stringValue":"s{}"}}}},{{"key":"event.name","value":{{"stringValue":"{name}"}}}},{{"key":"event.sequence","value":{{"intValue":"{seq}"}}}}{extra}]}}"#,
                seq % 2
            )
        };
        let request = |seq| {
            record(
                seq,
                "api_request",
                r#",{"key":"input_tokens","value":{"stringValue":"7"}},{"key":"output_tokens","value":{"stringValue":"3"}}"#,
            )
        };
        let line = |records: Vec<String>| {
            format!(
                "{{\"resourceLogs\":[{{\"scopeLogs\":[{{\"logRecords\":[{}]}}]}}]}}\n",
                records.join(",")
            )
        };
        let text = [
            line(vec![request(1), request(2)]),
            "not json\n".to_string(),
            "\n".to_string(),
            line(vec![record(3, "tool_decision", ""), request(4)]),
            "{\"resourceMetrics\":[]}\n".to_string(),
            line(vec![
                r#"{"attributes":"odd"}"#.to_string(),
                record(5, "api_request", ""),
            ]),
            line(vec![request(6), record(7, "hook_registered", "")]),
            "{\"type\":\"user\"}\n".to_string(),
            line(vec![request(8)]),
        ]
        .concat();
        let reads = one_pass_and_halves(&text);
        let (_, log, sessions) = &reads[0];
        assert_eq!(sessions.iter().map(|(_, r)| r.len()).sum::<usize>(), 6);
        assert_eq!(log.events.len(), 2);
        // One pass and 8 cuts, records in memory, then the same spilled.
        assert_eq!(reads.len(), 18);
        for (cut, got_log, got) in &reads {
            assert_eq!(got, sessions, "cut {cut:?}");
            assert_eq!(got_log, log, "cut {cut:?}");
        }
    }
}
