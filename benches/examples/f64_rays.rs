//! What `f64` rays cost over `f32` ones (issue 57): one mesh (the Stanford bunny by default)
//! at the origin asked with `f32` rays, and the same mesh moved to a UTM position
//! (500123.37, 5000456.71, 100), made from `f64` positions, asked with the same rays moved
//! there in `f64`:
//!
//! ```text
//! cargo run --release -p meshcast-benches --example f64_rays -- [MESH] [--rays N] [--threads N]
//! ```
//!
//! Lines: one ray at a time (`cast` of a `Ray` against `cast` of a `DRay`, `occluded` the
//! same) on one thread, and batches (`cast_batch` of each) on `--threads` threads
//! (every core without it); each the median of runs of at least a second, the two kinds
//! interleaved three times so that a load on the machine falls on both. The hit counts
//! agree to a thousandth of the rays (those within rounding of an edge may differ). A measurement, not a benchmark.

use glam::DVec3;
use meshcast::{DRay, Mesh, MeshFiles, RayQueries};
use meshcast_benches::{median_run, TimingArgs};
use meshcast_testkit::random_rays;

/// One timed query: the number of hits of its rays.
type Query<'a> = Box<dyn Fn() -> usize + Sync + 'a>;

/// The UTM position of the issue's table.
const OFFSET: DVec3 = DVec3::new(500_123.37, 5_000_456.71, 100.0);

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args = TimingArgs::from_env();
    let path = args.mesh_path();
    let count: usize = args.value("--rays").unwrap_or("200000").parse()?;
    let pool = args.pool()?;
    let near = Mesh::from_path(&path)?;
    let positions: Vec<[f64; 3]> = near
        .tri_mesh()
        .positions()
        .iter()
        .map(|p| (p.as_dvec3() + OFFSET).to_array())
        .collect();
    let far = Mesh::from_world_triangles(&positions, near.tri_mesh().indices())?;
    let rays = random_rays(near.bounds(), count, 57);
    let moved: Vec<DRay> = rays
        .iter()
        .map(|ray| {
            let ray = DRay::from(*ray);
            DRay {
                origin: ray.origin + OFFSET,
                ..ray
            }
        })
        .collect();
    println!(
        "{}: {} triangles, {count} random rays, far origin {}",
        path.display(),
        near.triangle_count(),
        far.origin()
    );
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let lines: [(&str, Query, Query); 3] = [
        (
            "cast, one ray at a time, 1 thread",
            Box::new(|| rays.iter().filter(|r| near.cast(*r).is_some()).count()),
            Box::new(|| moved.iter().filter(|r| far.cast(*r).is_some()).count()),
        ),
        (
            "occluded, one ray at a time, 1 thread",
            Box::new(|| rays.iter().filter(|r| near.occluded(*r)).count()),
            Box::new(|| moved.iter().filter(|r| far.occluded(*r)).count()),
        ),
        (
            "cast_batch",
            Box::new(|| pool.install(|| near.cast_batch(&rays).iter().flatten().count())),
            Box::new(|| pool.install(|| far.cast_batch(&moved).iter().flatten().count())),
        ),
    ];
    for (name, f32_rays, f64_rays) in &lines {
        let (mut best32, mut best64) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..3 {
            let run = |query: &(dyn Fn() -> usize + Sync)| {
                let single = name.contains("1 thread");
                let timed =
                    |query: &(dyn Fn() -> usize + Sync)| median_run(&mut || query().to_string());
                if single {
                    one.install(|| timed(query))
                } else {
                    timed(query)
                }
            };
            let (a, b) = (run(f32_rays.as_ref()), run(f64_rays.as_ref()));
            // Rays within rounding of an edge may differ; no more than a thousandth.
            let hits = |run: &meshcast_benches::MedianRun| run.answer.parse::<usize>().unwrap_or(0);
            let differ = hits(&a).abs_diff(hits(&b));
            assert!(differ <= count / 1000, "{name}: {differ} hit counts differ");
            best32 = best32.min(a.median.as_secs_f64());
            best64 = best64.min(b.median.as_secs_f64());
        }
        let mrays = |seconds: f64| count as f64 / seconds / 1e6;
        println!(
            "{name}: f32 {:.2} Mrays/s, f64 {:.2} Mrays/s, f64 over f32 time {:.3}",
            mrays(best32),
            mrays(best64),
            best64 / best32
        );
    }
    Ok(())
}
