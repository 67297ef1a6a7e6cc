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
            let start = Instant::now();
            let banded = mesh.signed_distance_grid(bounds, shape, Some(band));
            println!(
                "{n}^3: banded grid {:.3} s, {} MB of values",
                start.elapsed().as_secs_f64(),
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
        println!(
            "{n}^3: banded grid {:.3} s ({:.1}% clamped), signed_distance_batch {:.3} s: \
             batch / banded grid = {:.2}x",
            banded_time.as_secs_f64(),
            100.0 * clamped as f64 / points.len() as f64,
            batch_time.as_secs_f64(),
            batch_time.as_secs_f64() / banded_time.as_secs_f64(),
        );
        if once {
            continue;
        }
        let (full_time, _) = fastest(runs, || mesh.signed_distance_grid(bounds, shape, None));
        let (occupancy_time, _) = fastest(runs, || mesh.occupancy_grid(bounds, shape));
        println!(
            "{n}^3: grid without band {:.3} s, occupancy grid (contains alone) {:.3} s",
            full_time.as_secs_f64(),
            occupancy_time.as_secs_f64()
        );
    }
    Ok(())
}

/// The fastest of `runs` runs of `f`, and its last answer.
fn fastest<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut answer = None;
    for _ in 0..runs {
        let start = Instant::now();
        let value = f();
        best = best.min(start.elapsed());
        answer = Some(value);
    }
    (best, answer.expect("at least one run"))
}
