//! The two-thread scaling check: a pure arithmetic loop (no memory traffic) timed on one
//! thread and on two at once. On a quiet machine with two free cores two threads do twice
//! the work in the same time (ratio 2.0); a lower ratio shows that something else was
//! running, so the figures of that run are noisy.

use std::hint::black_box;
use std::time::Instant;

/// Iterations of the loop: about a quarter of a second on a current core.
const ITERATIONS: u64 = 200_000_000;

/// The loop: a dependent chain of integer multiply-adds and rotations.
fn spin(seed: u64) -> u64 {
    let mut x = seed;
    for i in 0..ITERATIONS {
        x = x
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(i)
            .rotate_left(17);
    }
    x
}

/// Two-thread throughput over one-thread throughput.
pub fn two_thread_ratio() -> f64 {
    let start = Instant::now();
    black_box(spin(black_box(1)));
    let one = start.elapsed().as_secs_f64();
    let start = Instant::now();
    std::thread::scope(|scope| {
        let a = scope.spawn(|| black_box(spin(black_box(2))));
        let b = scope.spawn(|| black_box(spin(black_box(3))));
        black_box((a.join().ok(), b.join().ok()));
    });
    let two = start.elapsed().as_secs_f64();
    2.0 * one / two
}
