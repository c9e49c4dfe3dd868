//! The sweep's progress bar: on a terminal only, and only once the sweep has run for a
//! moment (a quick sweep prints nothing), with an estimate of the time left.
//!
//! Progress is counted in units of work, not points: a point whose runs have closed forms
//! costs next to nothing, while a replayed run costs one unit per call. Counting calls
//! keeps the estimate of the time left honest when a sweep mixes both. Workers on any
//! thread report as they finish, so the bar moves during a long chunk.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a sweep runs before its bar appears.
const SHOW_AFTER: Duration = Duration::from_millis(300);

/// A progress bar over `total` units of work.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: AtomicBool,
}

impl Progress {
    /// A bar for `total` units over `points` grid points, drawn on stderr if `wanted` and
    /// stderr is a terminal.
    pub fn new(wanted: bool, total: u64, points: usize) -> Progress {
        Progress::with_terminal(wanted && io::stderr().is_terminal(), total, points)
    }

    /// A bar that counts but is never drawn (for tests).
    #[cfg(test)]
    pub fn hidden(total: u64, points: usize) -> Progress {
        let progress = Progress::with_terminal(true, total, points);
        progress.shown.store(true, Ordering::Relaxed);
        progress
    }

    /// As [`Progress::new`], with whether stderr is a terminal given.
    fn with_terminal(terminal: bool, total: u64, points: usize) -> Progress {
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            if let Ok(style) = ProgressStyle::with_template(
                "sweep {bar:40} {percent:>3}% of {msg} points, about {eta} left",
            ) {
                bar.set_style(style);
            }
            bar.set_message(crate::number::grouped(points as f64, 0));
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    /// Counts `units` more done (from any thread).
    pub fn advance(&self, units: u64) {
        if let Some(bar) = &self.bar {
            if !self.shown.load(Ordering::Relaxed)
                && self.started.elapsed() > SHOW_AFTER
                && !self.shown.swap(true, Ordering::Relaxed)
            {
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
            bar.inc(units);
        }
    }

    /// Units done so far (0 without a bar).
    #[cfg(test)]
    pub fn position(&self) -> u64 {
        self.bar.as_ref().map_or(0, ProgressBar::position)
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
