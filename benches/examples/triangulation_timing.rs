//! Times the triangulation of one large concave polygon (a star and a spiral band) and the
//! full load of an OBJ file holding it as its only face:
//!
//! ```text
//! cargo run --release -p meshcast-benches --example triangulation_timing -- [--reference] [corners...]
//! ```
//!
//! Corner counts default to 10k, 40k, 200k and 1M. With `--reference`, the original `O(n²)`
//! ear clipper ([`meshcast_testkit::reference_triangulate`]) is timed too, once, up to 200k
//! corners. A measurement, not a benchmark: each phase runs a few times and the fastest,
//! median and slowest are printed.

use std::time::{Duration, Instant};

use glam::Vec3;
use meshcast::{Format, TriMesh, TriMeshFiles};
use meshcast_testkit::{obj_polygon, reference_triangulate, spiral, star};

const RUNS: usize = 5;
const REFERENCE_LIMIT: usize = 200_000;

fn main() -> Result<(), meshcast::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reference = args.iter().any(|a| a == "--reference");
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![10_000, 40_000, 200_000, 1_000_000];
    }
    for corners in sizes {
        for (shape, vertices) in [("star", star(corners)), ("spiral", spiral(corners, 8.0))] {
            let triangulate = spread(RUNS, || {
                let triangles = meshcast::primitives::triangulate(&vertices);
                assert_eq!(triangles.len(), vertices.len() - 2);
            });
            let text = obj_polygon(&vertices);
            let load = spread(RUNS, || {
                let mesh = TriMesh::from_bytes(text.as_bytes(), Some(Format::Obj));
                assert_eq!(mesh.map(|m| m.triangle_count()).ok(), Some(corners - 2));
            });
            println!(
                "{shape:>6} {corners:>8} corners ({:.1} MB OBJ): triangulate {triangulate}, load {load}",
                text.len() as f64 / 1e6
            );
            if reference && corners <= REFERENCE_LIMIT {
                let old = spread(1, || drop(reference_triangulate(&vertices)));
                println!("{shape:>6} {corners:>8} corners: reference ear clipper {old}");
            }
            same_as_reference(&vertices, reference && corners <= REFERENCE_LIMIT);
        }
    }
    Ok(())
}

/// Fastest, median and slowest of `runs` timed runs.
fn spread(runs: usize, mut run: impl FnMut()) -> String {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!(
        "{:.1} / {:.1} / {:.1} ms",
        ms(times[0]),
        ms(times[runs / 2]),
        ms(times[runs - 1])
    )
}

fn same_as_reference(vertices: &[Vec3], check: bool) {
    if check {
        let same = meshcast::primitives::triangulate(vertices) == reference_triangulate(vertices);
        println!("       same triangles as the reference: {same}");
    }
}
