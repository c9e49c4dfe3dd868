//! Opening the files a user names: regular files only, and never more than a cap.
//!
//! A path can name a named pipe (reading blocks until someone writes), a device such as
//! `/dev/zero` (endless) or a file larger than memory. Each is refused *before* a byte is
//! read: the file is opened without blocking, checked with `fstat` on the open descriptor
//! (so it cannot be swapped between the check and the read), and its size compared with
//! the cap of its kind.

use crate::error::{Error, Located, line_column};
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The largest trace read (`calls_tsv`, `simulate ledger`, `simulate telemetry`), in bytes:
/// 1 GiB, about 30 million TSV calls. Agent logs are streamed and have no cap.
pub const MAX_TRACE_BYTES: u64 = 1 << 30;

/// The largest scenario file read, in bytes: 8 MiB. A scenario of `[[call]]` tables that
/// long would take gigabytes to parse; long traces belong in a `calls_tsv` file.
pub const MAX_SCENARIO_BYTES: u64 = 8 << 20;

/// What kind of file is being read, for the cap and the advice when it is exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A scenario (TOML): capped at [`MAX_SCENARIO_BYTES`].
    Scenario,
    /// An edits file (`--edits FILE`, TOML of `[[edit]]` tables): capped as a scenario,
    /// with advice of its own.
    Edits,
    /// A trace read line by line into memory: capped at [`MAX_TRACE_BYTES`].
    Trace,
    /// An agent log, streamed a line at a time and never held whole: any size.
    Log,
}

impl Kind {
    /// The cap, in bytes.
    pub fn limit(self) -> u64 {
        match self {
            Kind::Scenario | Kind::Edits => MAX_SCENARIO_BYTES,
            Kind::Trace => MAX_TRACE_BYTES,
            Kind::Log => u64::MAX,
        }
    }

    fn too_big(self, path: &Path, size: u64) -> Error {
        let advice = match self {
            Kind::Scenario => {
                "the limit for a scenario file is 8388608 bytes (8 MiB): put a long run in a trace and name it with calls_tsv = \"run.tsv\" (one call a line, up to 1 GiB)"
            }
            Kind::Edits => {
                "the limit for an edits file is 8388608 bytes (8 MiB): an edits file holds [[edit]] and [[base.part]] tables, a few lines each"
            }
            Kind::Trace | Kind::Log => {
                "the limit is 1073741824 bytes (1 GiB): split the trace or sample it"
            }
        };
        Located::new(
            path.display().to_string(),
            format!("file is {size} bytes; {advice}"),
        )
        .into()
    }
}

/// Opens `path` for reading if it is a regular file of at most `kind`'s cap; returns the
/// file and its size in bytes.
///
/// Errors: [`Error::Unreadable`] when it cannot be opened; [`Error::Input`] when it is a
/// directory, a pipe, a device or a socket, or larger than the cap.
pub fn open(path: &Path, kind: Kind) -> Result<(File, u64), Error> {
    let unreadable = |source| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    // Non-blocking, so that opening a FIFO with no writer returns at once instead of
    // waiting forever; regular files ignore the flag.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    let file_type = meta.file_type();
    let what = if file_type.is_dir() && kind == Kind::Scenario {
        Some(
            "is a directory, not a file: name one scenario in it; for all of them, `simulate history DIR --edits EDITS.toml` compares edits over every session, and `simulate import … --out DIR --fit` fits every trace as it imports it",
        )
    } else if file_type.is_dir() && kind == Kind::Edits {
        Some(
            "is a directory, not a file: --edits takes one edits file of [[edit]] tables (e.g. scenarios/imported/edits.toml; `simulate suggest DIR` writes one, suggested.toml, from your sessions)",
        )
    } else {
        not_regular(file_type)
    };
    if let Some(what) = what {
        return Err(Located::new(path.display().to_string(), what).into());
    }
    if meta.len() > kind.limit() {
        return Err(kind.too_big(path, meta.len()));
    }
    Ok((file, meta.len()))
}

/// Why a file of type `file_type` is not read, or None for a regular file: the one rule
/// for a file named on the command line and for one found in a directory.
pub fn not_regular(file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some("is a directory, not a file")
    } else if file_type.is_fifo() {
        Some("is a named pipe (FIFO), not a regular file: save what it carries to a file first")
    } else if file_type.is_char_device() || file_type.is_block_device() {
        Some("is a device, not a regular file")
    } else if file_type.is_socket() {
        Some("is a socket, not a regular file")
    } else {
        Some("is not a regular file")
    }
}

/// Reads a whole UTF-8 text file through [`open`]. A file that grows past the cap while
/// being read is refused too.
///
/// Errors: those of [`open`], [`Error::Unreadable`] for a failed read, and
/// [`Error::Input`] locating the first byte that is not UTF-8.
pub fn read_to_string(path: &Path, kind: Kind) -> Result<String, Error> {
    let (file, size) = open(path, kind)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(kind.limit() + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > kind.limit() {
        return Err(kind.too_big(path, bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
        not_utf8(path, line_column(&text, valid))
    })
}

/// The error for text that is not UTF-8 at `line_column`.
pub fn not_utf8(path: &Path, line_column: (usize, usize)) -> Error {
    Located::new(
        path.display().to_string(),
        "is not UTF-8 text (save it as UTF-8)",
    )
    .at(Some(line_column))
    .into()
}

/// Whether a directory walk failed on a symbolic link loop: a link to a folder above it
/// (which the walk tells), or a link that leads to itself (`ELOOP`).
pub fn is_link_loop(e: &walkdir::Error) -> bool {
    e.loop_ancestor().is_some()
        || e.io_error().and_then(std::io::Error::raw_os_error)
            == Some(rustix::io::Errno::LOOP.raw_os_error())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.tsv");
        let mode = rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR;
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, mode).unwrap();
        let e = open(&fifo, Kind::Trace).unwrap_err();
        assert!(e.to_string().contains("is a named pipe (FIFO)"), "{e}");
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn a_device_is_refused_before_it_is_read() {
        let e = read_to_string(Path::new("/dev/zero"), Kind::Trace).unwrap_err();
        assert_eq!(e.to_string(), "/dev/zero: is a device, not a regular file");
    }

    #[test]
    fn a_scenario_over_8_mib_is_refused_with_advice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.toml");
        File::create(&path).unwrap().set_len(9 << 20).unwrap();
        let e = read_to_string(&path, Kind::Scenario).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("file is 9437184 bytes"), "{text}");
        assert!(text.contains("calls_tsv"), "{text}");
        // The same size is fine for a trace.
        assert!(open(&path, Kind::Trace).is_ok());
    }
}
