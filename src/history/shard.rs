//! A history's shard file, `shard.jsonl`: every session's record, so that shard outputs
//! can be merged into the whole (docs/history.md, "Shards").
//!
//! The first line is the [`Header`]: the format and simulate's version, the run's name,
//! directory and edits file, each edit's name and definition, the factors, the sessions'
//! count and the files skipped. Every other line is one session's record
//! ([`Session`](super::session::Session): its figures as `sessions.csv` and the JSON show
//! them, its reread totals at every factor point, its closed forms in the factors, and
//! its labels for `--group-by`), in session order: by scenario name, strictly ascending.
//! Numbers are written in the shortest form that reads back to the same `f64`, and read
//! back exactly, so a merge adds the very numbers the single run added.
//!
//! A merge ([`Shards`]) reads any number of shard files at once, each from its start,
//! and yields their records in session order (a k-way merge by name), holding one record
//! per shard. It refuses shards that were run with other edits, factors or versions,
//! naming what differs; a session in two shards; a file out of order or cut short.

use super::Factors;
use super::files::Skipped;
use super::session::Session;
use crate::error::{Error, Located};
use crate::scenario::{Edit, Names};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// The shard file's name in a history's folder.
pub const FILE: &str = "shard.jsonl";

/// The header's `format`.
pub const FORMAT: &str = "simulate history shard";

/// Bumped whenever a record or the header changes meaning. 2: `--shard K/N` parts are cut
/// by each file's key ([`key`]), not by position, and their header says what they saw
/// ([`Listing`]).
pub const FORMAT_VERSION: u32 = 2;

/// A file's shard key: XXH3 (64 bits, seed 0) of its path relative to the history's
/// directory, as the file system spells it (bytes, `/` between folders). `--shard K/N`
/// reads the files whose key is K − 1 modulo N, so a file's part depends on its own path
/// alone: files added or removed between the jobs of a split move no other file to
/// another part. XXH3 is a fixed algorithm (its specification, not a Rust version,
/// defines it), so the same path goes to the same part on every machine and release.
pub fn key(relative: &Path) -> u64 {
    xxhash_rust::xxh3::xxh3_64(relative.as_os_str().as_encoded_bytes())
}

/// `--shard K/N`: the K-th (1-based) of N parts of a directory's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub of: usize,
}

impl Shard {
    /// `K/N` with 1 ≤ K ≤ N (as `--shard` takes it and a shard's header records it); None
    /// for anything else.
    pub fn parse(text: &str) -> Option<Shard> {
        let (k, n) = text.split_once('/')?;
        let (index, of): (usize, usize) = (k.trim().parse().ok()?, n.trim().parse().ok()?);
        (index >= 1 && index <= of).then_some(Shard { index, of })
    }

    /// Whether the file at `relative` (its path relative to the directory) is in this
    /// part: its key ([`key`]) is K − 1 modulo N.
    pub fn holds(self, relative: &Path) -> bool {
        key(relative) % self.of as u64 == (self.index - 1) as u64
    }
}

/// Parts written with `--shard K/N` (`split`: each one's `K/N` as its header records it,
/// None where it was not run with `--shard`) must all be there, each once: a merge of some
/// of them would be presented as the whole `whole`. (Results run without `--shard`, on
/// lists of files the user split, cannot be checked and are merged as given.) `parts`
/// names them in messages (`shards`, `parts`).
pub fn complete_split(split: &[Option<&str>], parts: &str, whole: &str) -> Result<(), Error> {
    let given: Vec<&str> = split.iter().map(|s| s.unwrap_or("none")).collect();
    let split: Vec<Option<(usize, usize)>> = split
        .iter()
        .map(|s| s.and_then(Shard::parse).map(|s| (s.index, s.of)))
        .collect();
    let Some(&(_, of)) = split.iter().flatten().next() else {
        return Ok(());
    };
    let refuse = |message: String| -> Error { Located::new("--merge", message).into() };
    if split.iter().any(|s| s.is_none_or(|(_, n)| n != of)) {
        return Err(refuse(format!(
            "the {parts} come from different splits (--shard {}): merge the {parts} of one split, all of them in one --merge",
            given.join(", ")
        )));
    }
    let one = parts.strip_suffix('s').unwrap_or(parts);
    if let Some(k) = (1..=of).find(|k| split.iter().flatten().filter(|(i, _)| i == k).count() > 1) {
        return Err(refuse(format!(
            "{one} {k}/{of} is given twice: a merge counts each {one} of the split once"
        )));
    }
    let missing: Vec<String> = (1..=of)
        .filter(|k| !split.iter().flatten().any(|(i, _)| i == k))
        .map(|k| format!("{k}/{of}"))
        .collect();
    if !missing.is_empty() {
        return Err(refuse(format!(
            "{} of the {of} {parts} {} missing ({}): give every {one} of the split in one --merge, or the merge would stand for the whole {whole}",
            missing.len(),
            if missing.len() == 1 { "is" } else { "are" },
            missing.join(", ")
        )));
    }
    Ok(())
}

/// What a `--shard K/N` part saw of its directory: how many session files there were to
/// split, and a digest of their paths. Parts that saw different listings (the directory
/// changed between their jobs) would merge into a history that misses sessions or counts
/// one twice, so a merge refuses them, naming the counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    /// `*.toml` files found under the directory (after `--files-from`), this part's and
    /// every other part's: what the split was taken of.
    pub files: usize,
    /// `xxh3-128:` and 32 hex digits: XXH3-128 of the files' relative paths (as [`key`]
    /// reads them) in byte order, each followed by a NUL byte (which no path holds).
    pub digest: String,
}

impl Listing {
    /// The listing of the files at `relative` (paths relative to the directory, any order).
    pub fn of(relative: &[&Path]) -> Listing {
        let mut sorted: Vec<&[u8]> = relative
            .iter()
            .map(|p| p.as_os_str().as_encoded_bytes())
            .collect();
        sorted.sort_unstable();
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for path in &sorted {
            hasher.update(path);
            hasher.update(b"\0");
        }
        Listing {
            files: sorted.len(),
            digest: format!("xxh3-128:{:032x}", hasher.digest128()),
        }
    }
}

/// One edit as a shard knows it: its name, and a digest of its definition as simulate
/// read it (comments, key order and layout of the edits file do not change it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditId {
    pub name: String,
    pub definition: String,
}

impl EditId {
    /// The identity of `edit`.
    pub fn of(edit: &Edit) -> EditId {
        let text = format!("{:?}", edit.action);
        EditId {
            name: edit.name.clone(),
            definition: format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes())),
        }
    }
}

/// The first line of `shard.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The simulate that wrote it (`CARGO_PKG_VERSION`).
    pub simulate: String,
    /// The results folder's name.
    pub name: String,
    /// The directory the sessions were read from, as given.
    pub directory: String,
    /// The edits file, as given.
    pub edits_file: String,
    pub edits: Vec<EditId>,
    pub factors: Factors,
    /// `K/N` for `--shard K/N`; None for every file of the directory, or a merge.
    pub shard: Option<String>,
    /// With `--shard K/N`: the listing the part was taken of; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing: Option<Listing>,
    /// Records that follow.
    pub sessions: usize,
    /// `.toml` files that were not sessions.
    pub skipped: Vec<Skipped>,
    /// The tools and kinds the sessions' calls have (a merge takes their union).
    pub names: Names,
    /// Every edit's selectors by the names they give: with `names`, what tells a selector
    /// that matches no session of the whole (`tool = "bash"`), in a merge as in one run.
    pub selectors: Vec<NamedSelector>,
}

/// One selector of an edit, by the tools and kinds it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedSelector {
    pub edit: String,
    /// The rule's key (`cap`, `step 2: drop`).
    pub rule: String,
    pub tools: Option<Vec<String>>,
    pub kinds: Option<Vec<String>>,
}

impl NamedSelector {
    /// Every selector of `edits`.
    pub fn of(edits: &[Edit]) -> Vec<NamedSelector> {
        edits
            .iter()
            .flat_map(|e| {
                e.action
                    .selectors()
                    .into_iter()
                    .map(|(rule, select)| NamedSelector {
                        edit: e.name.clone(),
                        rule,
                        tools: select.tools.clone(),
                        kinds: select.kinds.clone(),
                    })
            })
            .collect()
    }
}

impl Header {
    /// The header of a run of `edits` over `factors`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: &str,
        directory: &str,
        edits_file: &str,
        edits: Vec<EditId>,
        factors: &Factors,
        shard: Option<String>,
        sessions: usize,
        skipped: Vec<Skipped>,
    ) -> Header {
        Header {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            simulate: env!("CARGO_PKG_VERSION").into(),
            name: name.into(),
            directory: directory.into(),
            edits_file: edits_file.into(),
            edits,
            factors: factors.clone(),
            shard,
            listing: None,
            sessions,
            skipped,
            names: Names::default(),
            selectors: Vec::new(),
        }
    }

    /// Edit names by index.
    pub fn edit_names(&self) -> Vec<String> {
        self.edits.iter().map(|e| e.name.clone()).collect()
    }

    /// Writes the header line.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer(&mut *out, self)?;
        out.write_all(b"\n")
    }

    /// Why shards with headers `self` (of `a`) and `other` (of `b`) cannot be merged; None
    /// when they can.
    pub fn mismatch(&self, a: &Path, other: &Header, b: &Path) -> Option<String> {
        let (a, b) = (a.display(), b.display());
        if (self.format_version, &self.simulate) != (other.format_version, &other.simulate) {
            return Some(format!(
                "{a} was written by simulate {} (shard format {}) and {b} by simulate {} (shard format {}): run every shard with the same simulate",
                self.simulate, self.format_version, other.simulate, other.format_version
            ));
        }
        if self.edits.len() != other.edits.len() {
            return Some(format!(
                "{a} has {} edits and {b} has {}: run every shard with the same edits file",
                self.edits.len(),
                other.edits.len()
            ));
        }
        for (i, (x, y)) in self.edits.iter().zip(&other.edits).enumerate() {
            if x.name != y.name {
                return Some(format!(
                    "edit {} is `{}` in {a} and `{}` in {b}: run every shard with the same edits file",
                    i + 1,
                    x.name,
                    y.name
                ));
            }
            if x.definition != y.definition {
                return Some(format!(
                    "edit {} `{}` is defined differently in {a} ({}) and in {b} ({}): run every shard with the same edits file",
                    i + 1,
                    x.name,
                    x.definition,
                    y.definition
                ));
            }
        }
        let (f, g) = (&self.factors, &other.factors);
        if f.base_tokens != g.base_tokens || f.bytes_per_token != g.bytes_per_token {
            return Some(format!(
                "{a} sweeps {} and {b} sweeps {}: run every shard with the same --base-factors and --bpt-factors",
                f.describe(),
                g.describe()
            ));
        }
        None
    }
}

/// A session's record and its line as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The line, without its newline: copied as is into a merge's own `shard.jsonl`.
    pub line: String,
    pub session: Session,
}

impl Record {
    /// The record of `session`, as a line.
    pub fn of(session: Session) -> Result<Record, Error> {
        let line = serde_json::to_string(&session).map_err(|e| Error::Print(e.into()))?;
        Ok(Record { line, session })
    }

    /// Reads a record's line; `at` names where it is for the message.
    pub fn parse(line: String, at: impl FnOnce() -> String) -> Result<Record, Error> {
        match serde_json::from_str::<Session>(&line) {
            Ok(session) => Ok(Record { line, session }),
            Err(e) => Err(Located::new(
                at(),
                format!("not a session record of a history shard: {e}"),
            )
            .into()),
        }
    }

    pub fn name(&self) -> &str {
        &self.session.figures.name
    }
}

/// A shard's file as `--merge` reads it.
const SHARD: PartFile = PartFile {
    file: FILE,
    missing: "--merge takes the folders `simulate history` wrote (OUT/<name>/), each with its shard.jsonl",
    kind: "a history shard",
    header: "a shard header",
};

/// A kind of file a split run writes in its output folder and a merge reads: a history's
/// shard, a suggestion's part. Its first line is a JSON header, every other line a record.
pub(crate) struct PartFile {
    /// Its name in the folder a part writes.
    pub file: &'static str,
    /// What to give instead, where a folder given holds no such file.
    pub missing: &'static str,
    /// What the file is, as refusals name it (`a history shard`).
    pub kind: &'static str,
    /// What its first line is (`a shard header`).
    pub header: &'static str,
}

/// A [`PartFile`] opened: where it is, its header, and the lines after it.
pub(crate) struct Opened<H> {
    pub path: PathBuf,
    pub header: H,
    pub lines: io::Lines<BufReader<File>>,
}

impl PartFile {
    /// Opens `given` (a folder holding [`Self::file`], or the file) and reads its header:
    /// the first line, past a byte-order mark (an editor or a copy through Windows tools),
    /// as the scenario, trace and log readers do.
    ///
    /// Errors: no such file in the folder given; unreadable; empty; a first line that is
    /// not the header `H`.
    pub fn open<H: serde::de::DeserializeOwned>(&self, given: &Path) -> Result<Opened<H>, Error> {
        let path = if given.is_dir() {
            given.join(self.file)
        } else {
            given.to_path_buf()
        };
        let file = File::open(&path).map_err(|source| {
            if source.kind() == io::ErrorKind::NotFound && given.is_dir() {
                Located::new(
                    given.display().to_string(),
                    format!("no {} here: {}", self.file, self.missing),
                )
                .into()
            } else {
                Error::Unreadable {
                    path: path.clone(),
                    source,
                }
            }
        })?;
        let mut lines = BufReader::with_capacity(1 << 16, file).lines();
        let first = match lines.next() {
            Some(Ok(line)) => line,
            Some(Err(source)) => return Err(Error::Unreadable { path, source }),
            None => return Err(self.refusal(&path, "the file is empty".into())),
        };
        let first = first.strip_prefix('\u{feff}').unwrap_or(&first);
        let header = serde_json::from_str(first).map_err(|e| {
            self.refusal(
                &path,
                format!("its first line is not {} ({e})", self.header),
            )
        })?;
        Ok(Opened {
            path,
            header,
            lines,
        })
    }

    /// The file at `path` is not of this kind, for `why`.
    pub fn refusal(&self, path: &Path, why: String) -> Error {
        Located::new(
            path.display().to_string(),
            format!("not {}: {why}", self.kind),
        )
        .into()
    }
}

/// One shard file being read.
struct ShardFile {
    /// The shard as given (a folder or the file).
    given: PathBuf,
    path: PathBuf,
    header: Header,
    lines: io::Lines<BufReader<File>>,
    /// Lines read, the header included.
    line: usize,
    records: usize,
}

impl ShardFile {
    fn open(given: &Path) -> Result<ShardFile, Error> {
        let Opened {
            path,
            header,
            lines,
        } = SHARD.open::<Header>(given)?;
        let not_a_shard = |why: String| SHARD.refusal(&path, why);
        if header.format != FORMAT {
            return Err(not_a_shard(format!(
                "its format is `{}`, not `{FORMAT}`",
                header.format
            )));
        }
        if header.format_version != FORMAT_VERSION {
            return Err(not_a_shard(format!(
                "it is in shard format {} (simulate {}), this simulate reads format {FORMAT_VERSION}: run the shard again with this simulate",
                header.format_version, header.simulate
            )));
        }
        // The name decides where a merge writes (`--out/<name>/`): a shard's content must
        // never put it anywhere else, so it is held to `--name`'s rule.
        if let Some(why) = super::files::name_refusal(&header.name) {
            return Err(not_a_shard(format!(
                "its header's name is not one simulate writes: {why}"
            )));
        }
        // Edit names reach the charts, the page and the terminal: held to the loader's
        // rule for names (no control character), which every shard simulate wrote keeps.
        if let Some(e) = header.edits.iter().find(|e| !plain(&e.name)) {
            return Err(not_a_shard(format!(
                "its header's edit name \"{}\" holds a control character, which no edits file simulate reads can",
                crate::printable::printable(&e.name)
            )));
        }
        Ok(ShardFile {
            given: given.to_path_buf(),
            path,
            header,
            lines,
            line: 1,
            records: 0,
        })
    }

    /// The next record; None at the end, once the count is checked.
    fn next(&mut self) -> Result<Option<Record>, Error> {
        let line = match self.lines.next() {
            None => {
                if self.records != self.header.sessions {
                    return Err(Located::new(
                        self.path.display().to_string(),
                        format!(
                            "cut short: its header announces {} sessions, it holds {}; copy the shard again",
                            self.header.sessions, self.records
                        ),
                    )
                    .into());
                }
                return Ok(None);
            }
            Some(Err(source)) => {
                return Err(Error::Unreadable {
                    path: self.path.clone(),
                    source,
                });
            }
            Some(Ok(line)) => line,
        };
        self.line += 1;
        self.records += 1;
        let (path, at) = (&self.path, self.line);
        let record = Record::parse(line, || format!("{}:{at}", path.display()))?;
        // A session's name and labels reach the charts, the page and the terminal: held
        // to the loader's rule (no control character), as in every record simulate writes.
        let l = &record.session.labels;
        let texts = [&l.user, &l.project, &l.model, &l.account, &l.team];
        if !plain(record.name())
            || texts
                .iter()
                .any(|t| t.as_deref().is_some_and(|t| !plain(t)))
        {
            return Err(Located::new(
                format!("{}:{at}", path.display()),
                format!(
                    "not a session record of a history shard: session `{}` has a name or label with a control character, which no scenario simulate reads can",
                    crate::printable::printable(record.name())
                ),
            )
            .into());
        }
        Ok(Some(record))
    }
}

/// Shard files read together, their records in session order.
pub struct Shards {
    files: Vec<ShardFile>,
    /// Each shard's next record, by name.
    heads: BinaryHeap<Reverse<(String, usize)>>,
    next: Vec<Option<Record>>,
    /// Each shard's last name read, for the order check.
    read: Vec<Option<String>>,
    /// The last record given out, and its shard.
    last: Option<(String, usize)>,
}

impl Shards {
    /// Opens every shard (a folder `simulate history` wrote, or its `shard.jsonl`) and
    /// checks that they can be merged.
    ///
    /// Errors: a shard that cannot be read or is not one; shards of other edits, factors
    /// or versions (naming the two shards and what differs).
    pub fn open(given: &[PathBuf]) -> Result<Shards, Error> {
        let mut files: Vec<ShardFile> = Vec::with_capacity(given.len());
        for g in given {
            let file = ShardFile::open(g)?;
            if let Some(first) = files.first()
                && let Some(why) = first.header.mismatch(&first.given, &file.header, g)
            {
                return Err(Located::new("--merge", format!("the shards differ: {why}")).into());
            }
            if let Some(same) = files.iter().find(|f| same_file(&f.path, &file.path)) {
                return Err(Located::new(
                    "--merge",
                    format!(
                        "{} is given twice ({} and {}): a merge counts each shard once",
                        file.path.display(),
                        same.given.display(),
                        g.display()
                    ),
                )
                .into());
            }
            files.push(file);
        }
        let n = files.len();
        let mut shards = Shards {
            files,
            heads: BinaryHeap::new(),
            next: (0..n).map(|_| None).collect(),
            read: vec![None; n],
            last: None,
        };
        for i in 0..n {
            shards.pull(i)?;
        }
        Ok(shards)
    }

    /// Every shard's header, in the order given.
    pub fn headers(&self) -> Vec<&Header> {
        self.files.iter().map(|f| &f.header).collect()
    }

    /// Every shard as given (a folder or its `shard.jsonl`), in the order given.
    pub fn given(&self) -> Vec<&Path> {
        self.files.iter().map(|f| f.given.as_path()).collect()
    }

    /// The sessions in all.
    pub fn sessions(&self) -> usize {
        self.files.iter().map(|f| f.header.sessions).sum()
    }

    /// Reads shard `i`'s next record into its slot.
    fn pull(&mut self, i: usize) -> Result<(), Error> {
        let file = &mut self.files[i];
        let Some(record) = file.next()? else {
            return Ok(());
        };
        if let Some(previous) = &self.read[i]
            && record.name() <= previous.as_str()
        {
            return Err(Located::new(
                format!("{}:{}", file.path.display(), file.line),
                format!(
                    "session `{}` comes after `{previous}`: a shard's sessions are in name order, each once; this file was not written by simulate history, or was edited",
                    record.name()
                ),
            )
            .into());
        }
        self.read[i] = Some(record.name().to_string());
        self.heads.push(Reverse((record.name().to_string(), i)));
        self.next[i] = Some(record);
        Ok(())
    }

    /// The next record of all the shards, in session order.
    ///
    /// Errors: a session in two shards; a shard out of order, cut short or unreadable.
    pub fn next_record(&mut self) -> Result<Option<Record>, Error> {
        let Some(Reverse((name, i))) = self.heads.pop() else {
            return Ok(None);
        };
        if let Some((last, j)) = &self.last
            && *last == name
        {
            let (a, b) = (&self.files[*j], &self.files[i]);
            return Err(Located::new(
                "--merge",
                format!(
                    "session `{name}` is in {} and in {}: a merge counts each session once, so shards must not share sessions",
                    a.given.display(),
                    b.given.display()
                ),
            )
            .into());
        }
        let record = self.next[i].take();
        self.pull(i)?;
        self.last = Some((name, i));
        Ok(record)
    }
}

/// Whether `text` holds no control character (the loader's rule for names and labels).
fn plain(text: &str) -> bool {
    !text.chars().any(char::is_control)
}

/// Whether two paths name the same file (the same device and inode).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::groups::Labels;
    use crate::history::{SessionEdit, SessionFigures};
    use crate::ledger::Affine;
    use crate::report::Sources;
    use proptest::prelude::*;

    fn finite() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>().prop_filter("finite", |x| x.is_finite()),
            (-1e7f64..1e7),
            Just(0.1 + 0.2),
            Just(f64::MIN_POSITIVE / 3.0),
        ]
    }

    prop_compose! {
        fn session()(
            name in "[a-z0-9][a-z0-9_-]{0,30}",
            text in "\\PC{0,40}",
            numbers in proptest::collection::vec(finite(), 16),
            sweep in proptest::collection::vec(finite(), 0..20),
            user in proptest::option::of("\\PC{0,12}"),
        ) -> Session {
            let edit = SessionEdit {
                total_tokens: numbers[0],
                calls: 3,
                saved_tokens: numbers[1],
                saved_pct: numbers[2],
                equivalent_calls: numbers[3],
                cost_saved: numbers[4],
                cost_saved_pct: numbers[5],
                dollars_saved: Some(numbers[6]),
                rank: 1,
                selected_nothing: vec![text.clone()],
                base_clamped: true,
                base_clamped_points: 2,
                what_if: None,
                refetch: Some(crate::history::refetch::SessionRefetch {
                    removed: 5,
                    rates: vec![0.25],
                    saved_tokens: vec![numbers[14]],
                    cost_saved: vec![numbers[15]],
                    dollars_saved: Some(vec![numbers[1]]),
                }),
            };
            Session {
                figures: SessionFigures {
                    name,
                    file: format!("a/{text}.toml"),
                    calls: 3,
                    base_tokens: numbers[7],
                    bytes_per_token: numbers[8],
                    sources: Sources {
                        base_tokens: text.clone(),
                        bytes_per_token: "assumed".into(),
                    },
                    baseline_total_tokens: numbers[9],
                    baseline_cost: numbers[10],
                    cached: true,
                    edits: vec![edit],
                    warnings: vec![text],
                    baseline_dollars: Some(numbers[6]),
                    measured: Some(crate::history::session::SessionMeasured {
                        calls_measured: 3,
                        measured_input_tokens: numbers[9],
                        simulated_input_tokens: numbers[10],
                        measured_dollars: Some(numbers[6]),
                        simulated_dollars: None,
                        cost_difference_pct: Some(numbers[5]),
                        r_squared: Some(numbers[4]),
                        breaks: Vec::new(),
                    }),
                },
                sweep_totals: sweep,
                closed_forms: vec![
                    Some(Affine {
                        calls: numbers[11],
                        tokens: numbers[12],
                        bytes: numbers[13],
                    }),
                    None,
                ],
                labels: Labels {
                    user,
                    project: None,
                    model: Some("m".into()),
                    ..Labels::default()
                },
            }
        }
    }

    proptest! {
        /// A record reads back as the very session written, every `f64` to the bit: a
        /// merge adds the numbers the single run added.
        #[test]
        fn a_record_reads_back_exactly(s in session()) {
            let record = Record::of(s.clone()).unwrap();
            prop_assert!(!record.line.contains('\n'));
            let back = Record::parse(record.line.clone(), || "test".into()).unwrap();
            prop_assert_eq!(&back.session, &s);
            let bits = |s: &Session| -> Vec<u64> {
                let f = &s.figures;
                let mut v = vec![f.base_tokens, f.bytes_per_token, f.baseline_total_tokens, f.baseline_cost];
                v.extend(f.edits.iter().flat_map(|e| [e.total_tokens, e.saved_tokens, e.saved_pct, e.equivalent_calls, e.cost_saved, e.cost_saved_pct]));
                v.extend(&s.sweep_totals);
                v.iter().map(|x| x.to_bits()).collect()
            };
            prop_assert_eq!(bits(&back.session), bits(&s));
            prop_assert_eq!(Record::of(back.session).unwrap().line, record.line);
        }
    }

    #[test]
    fn the_shard_key_and_the_listing_digest_are_fixed() {
        const KEY_OF_A_B: u64 = 0xcdfe2e20675cd900;
        // XXH3's own test vector (the empty input, seed 0), then a path: a change of
        // algorithm or of what is hashed would move files between the parts of a split.
        assert_eq!(key(Path::new("")), 0x2d06800538d394c2);
        assert_eq!(key(Path::new("a/b.toml")), KEY_OF_A_B);
        let a = Listing::of(&[Path::new("b.toml"), Path::new("a/b.toml")]);
        let b = Listing::of(&[Path::new("a/b.toml"), Path::new("b.toml")]);
        assert_eq!(a, b);
        assert_eq!(a.files, 2);
        assert!(a.digest.starts_with("xxh3-128:") && a.digest.len() == 9 + 32);
        // The NUL between paths: `ab` + `c` is not `a` + `bc`.
        assert_ne!(
            Listing::of(&[Path::new("ab"), Path::new("c")]).digest,
            Listing::of(&[Path::new("a"), Path::new("bc")]).digest
        );
    }

    #[test]
    fn a_shard_header_names_what_differs() {
        let edit = |name: &str, definition: &str| EditId {
            name: name.into(),
            definition: definition.into(),
        };
        let header = |edits, factors: Factors| {
            Header::new("h", "d", "e.toml", edits, &factors, None, 1, Vec::new())
        };
        let a = header(vec![edit("x", "1"), edit("y", "2")], Factors::default());
        let (pa, pb) = (Path::new("a"), Path::new("b"));
        assert_eq!(a.mismatch(pa, &a.clone(), pb), None);
        let b = header(vec![edit("x", "1"), edit("y", "3")], Factors::default());
        assert!(
            a.mismatch(pa, &b, pb)
                .unwrap()
                .contains("edit 2 `y` is defined differently in a (2) and in b (3)")
        );
        let c = header(
            vec![edit("x", "1"), edit("y", "2")],
            Factors::new(Some(vec![1.0]), None).unwrap(),
        );
        assert!(a.mismatch(pa, &c, pb).unwrap().contains("b sweeps B × 1"));
        // The name, directory and edits file may differ: a merge lists them.
        let mut d = a.clone();
        d.directory = "elsewhere".into();
        assert_eq!(a.mismatch(pa, &d, pb), None);
    }
}
