//! `simulate import claude-code|codex|otel PATH… --out DIR`: session logs into scenarios,
//! over the importer (`crate::import`).

use crate::error::{Error, Located};
use crate::import::{self, Format, Loaded, Reader};
use std::io::Write;
use std::path::PathBuf;

/// `simulate import`, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportConfig {
    pub format: Format,
    /// Files, or directories searched recursively.
    pub paths: Vec<PathBuf>,
    /// Scenarios go to `out/<name>.toml`.
    pub out: PathBuf,
    /// What to print on stdout.
    pub output: crate::output::Format,
    /// Replace scenarios in `out` that differ from what this import writes.
    pub force: bool,
    /// Fit every trace as it is imported, write good fits, and print the quality table.
    pub fit: bool,
}

/// Runs an import: find the logs, refuse a bad `--out` before anything is written, parse
/// the files in parallel, assemble traces, write every scenario (all or none), print the
/// summary.
///
/// Memory holds the files in flight, not the corpus: each file's events are spilled into
/// the staging folder as soon as it is read, and each trace is staged and dropped as soon
/// as it is assembled ([`import::stream`]).
pub fn run(c: &ImportConfig, out: &mut dyn Write) -> Result<(), Error> {
    run_listing(c, out).map(|_| ())
}

/// [`run`], returning the files it could not read (listed in its summary too): for a
/// caller that prints its own summary instead, so that nothing left out goes unsaid.
pub fn run_listing(
    c: &ImportConfig,
    out: &mut dyn Write,
) -> Result<Vec<import::files::Unreadable>, Error> {
    let reader = c.format.reader();
    let (files, loops) =
        import::files::find_listing(&c.paths, |p| reader.is_log(p), reader.logs_are())?;
    import::files::check_out(&c.out, &files)?;
    let spill = import::spill::Spill::create(&c.out);
    let read = reader.read_all(&files, spill.as_ref());
    // A failed write to the spill is the error to give, before what it made unreadable.
    if let Some(s) = &spill {
        s.check()?;
    }
    let (stored, mut unreadable) = read?;
    unreadable.extend(loops);
    let stored = import::stream::order(stored);
    if !import::stream::any_request(&stored) {
        let loaded = Loaded {
            assembled: import::stream::assemble(
                stored,
                spill.as_ref(),
                reader.convention(),
                |_| {},
            )?,
            unreadable,
        };
        return Err(nothing_imported(c, reader, &loaded).into());
    }
    // Prepared once there is something to write: it holds the folder's lock from here, so
    // a second import into it waits, then finds this one's scenarios; two never mix.
    let dir = crate::output::FileSet::prepare(&c.out)?;
    let stager = import::write::Stager::new(&dir, &c.out, reader, c.force, c.fit);
    let (assembled, staged) = import::stream::stage(stored, spill.as_ref(), &stager)?;
    drop(spill);
    let loaded = Loaded {
        assembled,
        unreadable,
    };
    let (written, rows) = import::write::commit(dir, &c.out, staged, c.fit)?;
    import::summary::print(
        out,
        c.output,
        reader,
        &loaded,
        &rows,
        &written.paths,
        written.quality.as_deref(),
    )
    .map_err(Error::Print)?;
    Ok(loaded.unreadable)
}

/// Why no scenario could be written, naming each file.
fn nothing_imported(c: &ImportConfig, reader: &dyn Reader, loaded: &Loaded) -> Located {
    let a = &loaded.assembled;
    let unreadable = loaded
        .unreadable
        .iter()
        .map(|u| format!("{} (cannot read: {})", u.file, u.reason));
    let left = a.leftovers.iter().map(|l| {
            let malformed: Vec<_> = a.malformed.iter().filter(|m| m.file == l.file).collect();
            let why = if l.lines == 0 {
                "empty".to_string()
            } else if let Some(note) = &l.note {
                format!("{} lines: {note}", l.lines)
            } else if let Some(other) = import::other_format(reader, l) {
                // Checked before malformed lines: another format's lines are often not
                // of this one's shape at all.
                format!(
                    "{} lines, none a request: its lines are {}'s ({}); import it with `simulate import {} …`",
                    l.lines,
                    other.product(),
                    l.unknown_types.join(", "),
                    other.format()
                )
            } else if let Some(first) = malformed.first() {
                // A record past the last line (a gzip stream truncated between lines) is
                // about the file's end, not one of its lines.
                let (lines, past): (Vec<&import::event::Malformed>, Vec<&import::event::Malformed>) =
                    malformed.iter().copied().partition(|m| m.line <= l.lines);
                match (lines.first(), past.first()) {
                    (_, Some(end)) if lines.is_empty() => end.reason.clone(),
                    (Some(first), Some(end)) => format!(
                        "{}; {} of {} lines malformed; line {}: {}",
                        end.reason,
                        lines.len(),
                        l.lines,
                        first.line,
                        first.reason
                    ),
                    _ => format!(
                        "{} of {} lines malformed; line {}: {}",
                        lines.len(),
                        l.lines,
                        first.line,
                        first.reason
                    ),
                }
            } else if l.duplicates_removed > 0 {
                format!(
                    "its {} requests are all in an earlier file",
                    l.duplicates_removed
                )
            } else {
                format!("{} lines, none a request", l.lines)
            };
            format!("{} ({why})", l.file)
        });
    let files = loaded.unreadable.len() + a.leftovers.len();
    let mut reasons: Vec<String> = unreadable.chain(left).take(5).collect();
    if files > 5 {
        reasons.push(format!("… and {} more", files - 5));
    }
    let place = match c.paths.as_slice() {
        [one] => one.display().to_string(),
        _ => "the given paths".to_string(),
    };
    Located::new(
        place,
        format!(
            "no {} request found, nothing written: {}",
            reader.product(),
            reasons.join("; ")
        ),
    )
}
