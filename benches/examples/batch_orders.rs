//! A batch against a loop of single rays over the very same rays, in the orders of
//! [`meshcast_testkit::order_sets`]: random rays as made and sorted three ways, a lidar in scan
//! order and shuffled, fans of 64 rays from many points. One thread (a one-thread rayon pool)
//! or `--threads N` (the loop then runs over chunks of 256 rays on every thread), best of
//! `--repeat` passes, Mrays/s, the answers checked equal.
//!
//! ```sh
//! cargo run --release -p meshcast-benches --example batch_orders -- \
//!     assets/stanford-bunny.obj --rays 200000 [--subdivide 2] [--repeat 3] [--any]
//! ```

use std::time::Instant;

use meshcast::TriMeshFiles;
use meshcast_mesh::{Mesh, RayQueries, TriMesh};
use meshcast_primitives::Ray;
use meshcast_testkit::order_sets;
use rayon::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str, default: usize| {
        args.iter()
            .position(|a| a == flag)
            .map_or(default, |i| args[i + 1].parse().expect("a number"))
    };
    let path = args
        .first()
        .expect("usage: batch_orders MESH [--rays N] [--subdivide N] [--repeat N] [--any]");
    let any = args.iter().any(|a| a == "--any");
    let tri_mesh = TriMesh::from_obj(path)
        .expect("mesh")
        .subdivide(value("--subdivide", 0) as u32)
        .expect("subdivide");
    let mesh = Mesh::from_tri_mesh(tri_mesh, &Default::default());
    let repeat = value("--repeat", 3);
    let threads = value("--threads", 1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    println!(
        "{} triangles, {} rays per set, {threads} thread(s), {}, best of {repeat}, Mrays/s",
        mesh.triangle_count(),
        value("--rays", 200_000),
        if any { "occluded" } else { "cast" }
    );
    println!(
        "{:<16} {:>8} {:>8} {:>7}",
        "order", "loop", "batch", "ratio"
    );
    let only = args
        .iter()
        .position(|a| a == "--only")
        .map(|i| args[i + 1].clone());
    for set in order_sets(mesh.bounds(), value("--rays", 200_000), 7) {
        let rays = &set.rays;
        // One pass of one side, for a profiler: `--only SET:loop` or `--only SET:batch`.
        if let Some(only) = &only {
            if only.split(':').next() != Some(set.name) {
                continue;
            }
            if !only.contains(':') {
                // Timed as below, this set alone.
            } else {
                let hits = if only.ends_with(":loop") {
                    rays.iter().filter_map(|r| mesh.cast(r)).count()
                } else {
                    pool.install(|| mesh.cast_batch(rays))
                        .iter()
                        .flatten()
                        .count()
                };
                println!("{}: {hits} hits", set.name);
                continue;
            }
        }
        // Passes interleaved, loop then batch, so that a drift in machine speed hits both.
        let best = |a: &dyn Fn() -> u64, b: &dyn Fn() -> u64| {
            let time = |f: &dyn Fn() -> u64| {
                let start = Instant::now();
                std::hint::black_box(f());
                rays.len() as f64 / start.elapsed().as_secs_f64() / 1e6
            };
            (0..repeat)
                .map(|_| (time(a), time(b)))
                .fold((0.0f64, 0.0f64), |(x, y), (a, b)| (x.max(a), y.max(b)))
        };
        let (looped, batched) = if any {
            let looped =
                || pool.install(|| rays.iter().map(|r| mesh.occluded(r)).collect::<Vec<_>>());
            let batched = || pool.install(|| mesh.occluded_batch(rays));
            assert_eq!(looped(), batched(), "{}: answers differ", set.name);
            best(&|| looped().iter().filter(|&&h| h).count() as u64, &|| {
                batched().iter().filter(|&&h| h).count() as u64
            })
        } else {
            let looped = || pool.install(|| loop_of(rays, |r| mesh.cast(r)));
            let batched = || pool.install(|| mesh.cast_batch(rays));
            assert!(looped() == batched(), "{}: answers differ", set.name);
            best(&|| looped().iter().flatten().count() as u64, &|| {
                batched().iter().flatten().count() as u64
            })
        };
        println!(
            "{:<16} {looped:>8.2} {batched:>8.2} {:>6.2}x",
            set.name,
            batched / looped
        );
    }
}

/// `answer` of every ray, in order: on one thread a plain loop, on more each thread a loop
/// over chunks of 256 rays (as `benches/peers` threads single rays).
fn loop_of<T: Send>(rays: &[Ray], answer: impl Fn(&Ray) -> T + Sync) -> Vec<T> {
    if rayon::current_num_threads() == 1 {
        return rays.iter().map(answer).collect();
    }
    rays.par_chunks(256)
        .flat_map_iter(|chunk| chunk.iter().map(&answer))
        .collect()
}
