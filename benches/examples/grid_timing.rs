//! Times a signed-distance grid of a mesh with a narrow band against the per-point batch
//! over the same points:
//!
//! ```text
//! cargo run --release -p meshcast-benches --example grid_timing -- [MESH] [N...] [--once]
//! ```
//!
//! `MESH` is a file in `assets/` (default `stanford-bunny.obj`), each `N` a grid of `N³`
//! points (default 64 and 128) over the mesh's box grown by 5% of its size on every side.
//! The band is 2% of the mesh's box diagonal. Printed for each size: the banded grid
//! ([`Mesh::signed_distance_grid`] with `Some(band)`), the grid without a band, and
//! [`PointQueries::signed_distance_batch`] over the grid's points (made beforehand, not
//! timed), the fastest of three runs each, the batch's time over the banded grid's, and the
//! occupancy grid ([`Mesh::occupancy_grid`], `contains` alone).
//! The values are checked against the batch's (clamped to the band) on the way. With
//! `--once`, for large grids: one run of the banded grid and one of the batch, nothing else;
//! with `--grid-only`, one run of the banded grid alone (no points made), to measure its
//! memory (`/usr/bin/time -v`).
//! Each time is the wall-clock time and, where `/proc/self/stat` tells it (Linux), the CPU
//! time of the whole process (user and system, all threads): on a machine shared with
//! other work the wall-clock times stretch with the load, the CPU times much less.
//! A measurement, not a benchmark.

use std::time::{Duration, Instant};

use meshcast::{Aabb, Grid, Mesh, MeshFiles, PointQueries};
use meshcast_testkit::asset;

const RUNS: usize = 3;
const BAND_FRACTION: f32 = 0.02;

fn main() -> Result<(), meshcast::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let once = args.iter().any(|a| a == "--once");
    let grid_only = args.iter().any(|a| a == "--grid-only");
    let runs = if once { 1 } else { RUNS };
    let name = args
        .iter()
        .find(|a| a.parse::<usize>().is_err() && !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "stanford-bunny.obj".to_owned());
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![64, 128];
    }
    let mesh = Mesh::from_obj(asset(&name))?;
    let box_ = mesh.bounds();
    let margin = box_.extent() * 0.05;
    let bounds = Aabb::new(box_.min - margin, box_.max + margin);
    let band = BAND_FRACTION * box_.extent().length();
    // The winding number's expansions are made on the first call: not in the timings.
    mesh.winding_number(bounds.min);
    println!(
        "{name}: {} triangles, closed: {}, band {band} ({}% of the diagonal), {} threads",
        mesh.triangle_count(),
        mesh.is_closed(),
        BAND_FRACTION * 100.0,
        rayon::current_num_threads()
    );
    for n in sizes {
        let shape = [n; 3];
        if grid_only {
            let (time, banded) =
                fastest(1, || mesh.signed_distance_grid(bounds, shape, Some(band)));
            println!(
                "{n}^3: banded grid {time}, {} MB of values",
                banded.len() * 4 / 1_000_000
            );
            continue;
        }
        let points: Vec<_> = Grid::new(bounds, shape).points().collect();
        let (banded_time, banded) = fastest(runs, || {
            mesh.signed_distance_grid(bounds, shape, Some(band))
        });
        let (batch_time, batch) = fastest(runs, || mesh.signed_distance_batch(&points));
        let clamped = banded.iter().filter(|d| d.abs() == band).count();
        for ((&got, expected), point) in banded.iter().zip(batch).zip(&points) {
            let expected = expected.map(|d| if d.abs() > band { band.copysign(d) } else { d });
            assert_eq!(
                Some(got.to_bits()),
                expected.map(f32::to_bits),
                "at {point}"
            );
        }
        let cpu_ratio = match (batch_time.cpu, banded_time.cpu) {
            (Some(batch), Some(banded)) => format!(", {:.2}x in CPU time", batch / banded),
            _ => String::new(),
        };
        println!(
            "{n}^3: banded grid {banded_time} ({:.1}% clamped), signed_distance_batch \
             {batch_time}: batch / banded grid = {:.2}x{cpu_ratio}",
            100.0 * clamped as f64 / points.len() as f64,
            batch_time.wall.as_secs_f64() / banded_time.wall.as_secs_f64(),
        );
        if once {
            continue;
        }
        let (full_time, _) = fastest(runs, || mesh.signed_distance_grid(bounds, shape, None));
        let (occupancy_time, _) = fastest(runs, || mesh.occupancy_grid(bounds, shape));
        println!(
            "{n}^3: grid without band {full_time}, occupancy grid (contains alone) \
             {occupancy_time}"
        );
    }
    Ok(())
}

/// A run's wall-clock time and the process's CPU time over it, if known.
#[derive(Clone, Copy)]
struct Time {
    wall: Duration,
    cpu: Option<f64>,
}

impl std::fmt::Display for Time {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.3} s", self.wall.as_secs_f64())?;
        match self.cpu {
            Some(cpu) => write!(f, " ({cpu:.2} CPU s)"),
            None => Ok(()),
        }
    }
}

/// The process's CPU time so far, user and system, from `/proc/self/stat` (in ticks of
/// 1/100 s, Linux's `USER_HZ`).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command's closing parenthesis; utime and stime are the 12th
    // and 13th of them (14th and 15th of the line).
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The fastest of `runs` runs of `f` (wall-clock, with that run's CPU time), and its last
/// answer.
fn fastest<T>(runs: usize, mut f: impl FnMut() -> T) -> (Time, T) {
    let mut best: Option<Time> = None;
    let mut answer = None;
    for _ in 0..runs {
        let (cpu_start, start) = (cpu_seconds(), Instant::now());
        let value = f();
        let wall = start.elapsed();
        let cpu = cpu_seconds().zip(cpu_start).map(|(end, start)| end - start);
        if best.is_none_or(|b| wall < b.wall) {
            best = Some(Time { wall, cpu });
        }
        answer = Some(value);
    }
    (
        best.expect("at least one run"),
        answer.expect("at least one run"),
    )
}
