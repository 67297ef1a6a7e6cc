//! Wall-clock measurements: one timed call, or the median of several.

use std::time::{Duration, Instant};

/// Runs `work` once and returns its result and how long it took.
pub fn timed<T>(work: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = work();
    (value, start.elapsed())
}

/// Runs `work` `runs` times (at least once) and returns the last result and the median
/// duration. The median ignores a first run slowed by cold caches or a busy machine.
pub fn median<T>(runs: usize, mut work: impl FnMut() -> T) -> (T, Duration) {
    let mut durations = Vec::with_capacity(runs.max(1));
    let mut last = timed(&mut work);
    durations.push(last.1);
    for _ in 1..runs {
        last = timed(&mut work);
        durations.push(last.1);
    }
    (last.0, median_of(&mut durations))
}

/// The median of some durations (zero for none).
pub fn median_of(durations: &mut [Duration]) -> Duration {
    durations.sort_unstable();
    let n = durations.len();
    match n {
        0 => Duration::ZERO,
        _ if n % 2 == 1 => durations[n / 2],
        _ => (durations[n / 2 - 1] + durations[n / 2]) / 2,
    }
}

/// Milliseconds, as a float.
pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// Millions of items per second (0 for a zero duration).
pub fn millions_per_second(count: usize, duration: Duration) -> f64 {
    let seconds = duration.as_secs_f64();
    if seconds > 0.0 {
        count as f64 / seconds / 1e6
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_runs_at_least_once_and_returns_the_last_value() {
        let mut calls = 0;
        let (value, _) = median(0, || {
            calls += 1;
            calls
        });
        assert_eq!((value, calls), (1, 1));
        let (value, _) = median(4, || {
            calls += 1;
            calls
        });
        assert_eq!(value, 5);
    }

    #[test]
    fn median_of_odd_even_and_no_durations() {
        let ms = Duration::from_millis;
        assert_eq!(median_of(&mut [ms(5), ms(1), ms(3)]), ms(3));
        assert_eq!(median_of(&mut [ms(4), ms(1), ms(2), ms(100)]), ms(3));
        assert_eq!(median_of(&mut []), Duration::ZERO);
    }

    #[test]
    fn rates() {
        assert_eq!(
            millions_per_second(3_000_000, Duration::from_millis(500)),
            6.0
        );
        assert_eq!(millions_per_second(5, Duration::ZERO), 0.0);
        assert_eq!(ms(Duration::from_micros(1500)), 1.5);
    }
}
