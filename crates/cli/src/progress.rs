//! A progress bar on stderr that appears only once the work has taken more than a second, and
//! never when stderr is not a terminal.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before its progress bar appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Progress through a known number of steps.
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
}

impl Progress {
    /// Progress through `steps` steps, hidden for now.
    pub fn new(steps: u64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {wide_msg}")
        {
            bar.set_style(style);
        }
        Self {
            bar,
            start: Instant::now(),
            shown: false,
        }
    }

    /// Names the step now running.
    pub fn step(&mut self, message: String) {
        self.show_if_slow();
        self.bar.set_message(message);
    }

    /// Marks a step done.
    pub fn done(&mut self) {
        self.bar.inc(1);
        self.show_if_slow();
    }

    fn show_if_slow(&mut self) {
        if !self.shown && self.start.elapsed() >= SHOW_AFTER {
            // indicatif's stderr target draws nothing when stderr is not a terminal.
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
            self.shown = true;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
