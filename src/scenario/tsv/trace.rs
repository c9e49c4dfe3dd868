//! A trace read in call order as often as needed, for the `ledger` command's two passes.

use super::{Segments, TsvCall, TsvReader, no_calls, read_sorted};
use crate::error::{Error, Located};
use crate::scenario::Call;
use std::fs::File;
use std::path::{Path, PathBuf};

/// A checked trace whose calls can be read in call order as often as needed: streamed from
/// the file, in constant memory, when the file is in call order; held in memory, sorted,
/// when it is not.
#[derive(Debug, Clone, PartialEq)]
pub enum Trace {
    /// The file is in call order.
    InOrder(PathBuf),
    /// The calls, sorted.
    Sorted(Vec<Call>),
}

impl Trace {
    /// Reads the whole trace once to check it, so that a bad line late in a long trace is
    /// reported before anything is printed.
    ///
    /// Errors: those of [`super::read_tsv`].
    pub fn open(path: &Path) -> Result<Trace, Error> {
        Trace::open_with(path, || (), |(), _| ()).map(|(trace, ())| trace)
    }

    /// [`open`](Self::open), handing every call in call order to `visit` on the way: a
    /// state from `start`, and the state at the end. (A trace out of order is visited
    /// once it is sorted, with a fresh state.)
    ///
    /// Errors: those of [`super::read_tsv`].
    pub fn open_with<S>(
        path: &Path,
        start: impl Fn() -> S,
        mut visit: impl FnMut(&mut S, &Call),
    ) -> Result<(Trace, S), Error> {
        let mut reader = TsvReader::open(path)?;
        let file = reader.file().to_string();
        let mut segments = Segments::default();
        let mut previous = None;
        let mut state = start();
        let mut c = TsvCall::default();
        while reader.read_call(&mut c)? {
            if previous.is_some_and(|p| c.number < p) {
                let calls = read_sorted(path)?;
                let mut state = start();
                for call in &calls {
                    visit(&mut state, call);
                }
                return Ok((Trace::Sorted(calls), state));
            }
            previous = Some(c.number);
            c.call.segment = segments.assign(c.number, c.segment, &file)?;
            visit(&mut state, &c.call);
        }
        if previous.is_none() {
            return Err(no_calls(&file).into());
        }
        Ok((Trace::InOrder(path.to_path_buf()), state))
    }

    /// The calls, in call order.
    ///
    /// Errors: [`Error::Unreadable`] when the file cannot be opened again.
    pub fn calls(&self) -> Result<TraceCalls<'_>, Error> {
        Ok(match self {
            Trace::InOrder(path) => TraceCalls::File {
                reader: Box::new(TsvReader::open(path)?),
                segments: Segments::default(),
                previous: None,
                current: Box::default(),
            },
            Trace::Sorted(calls) => TraceCalls::Sorted(calls.iter()),
        })
    }
}

/// The calls of a [`Trace`], in call order, one at a time.
#[derive(Debug)]
pub enum TraceCalls<'a> {
    File {
        reader: Box<TsvReader<File>>,
        segments: Segments,
        previous: Option<u64>,
        current: Box<TsvCall>,
    },
    Sorted(std::slice::Iter<'a, Call>),
}

impl TraceCalls<'_> {
    /// Puts the next call into `out` (reusing its storage); `false` at the end.
    ///
    /// Errors: those of [`TsvReader::read_call`], and a file that changed since it was
    /// checked.
    pub fn next_into(&mut self, out: &mut Call) -> Result<bool, Error> {
        match self {
            TraceCalls::Sorted(calls) => Ok(calls.next().map(|c| out.clone_from(c)).is_some()),
            TraceCalls::File {
                reader,
                segments,
                previous,
                current,
            } => {
                if !reader.read_call(current)? {
                    return Ok(false);
                }
                if previous.is_some_and(|p| current.number < p) {
                    let changed = Located::new(reader.file(), "the file changed while being read")
                        .at(Some((current.line, 1)));
                    return Err(changed.into());
                }
                *previous = Some(current.number);
                current.call.segment =
                    segments.assign(current.number, current.segment, reader.file())?;
                std::mem::swap(&mut current.call, out);
                Ok(true)
            }
        }
    }
}
