//! A progress bar for many sessions: on stderr, only on a terminal, and only once the work
//! has run for a moment (a quick history prints nothing).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, IsTerminal};
use std::time::{Duration, Instant};

/// How long the work runs before the bar appears.
const DELAY: Duration = Duration::from_millis(300);

pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: bool,
}

impl Progress {
    /// A bar over `total` sessions; none when `wanted` is false or stderr is not a terminal.
    pub(crate) fn new(wanted: bool, total: usize) -> Progress {
        let bar = (wanted && io::stderr().is_terminal()).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
            if let Ok(style) =
                ProgressStyle::with_template("sessions {bar:40} {pos}/{len}, {eta} left")
            {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            shown: false,
        }
    }

    /// `sessions` more are done.
    pub(crate) fn advance(&mut self, sessions: usize) {
        if let Some(bar) = &self.bar {
            if !self.shown && self.started.elapsed() > DELAY {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                self.shown = true;
            }
            bar.inc(sessions as u64);
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
