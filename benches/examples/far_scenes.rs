//! What `f64` scene rays cost over `f32` ones (issue 57): a city of 64 instances of one mesh
//! (the Stanford bunny by default) on an 8 x 8 grid 500 m apart, at the origin asked with
//! `f32` rays, and the same city at a UTM position (500123.37, 5000456.71, 100), placed by
//! `f64` transforms, asked with the same rays moved there in `f64`:
//!
//! ```text
//! cargo run --release -p meshcast-benches --example far_scenes -- [MESH] [--rays N] [--threads N]
//! ```
//!
//! Each ray is a random ray through one instance's box (`random_rays`), the instances taken
//! in turn. Lines: one ray at a time (`Scene::cast` of a `Ray` against `Scene::cast` of a
//! `DRay`, `occluded` the same) on one thread, and batches (`cast_batch` of each) on
//! `--threads` threads (every core without it); each the median of runs
//! of at least a second, the two kinds interleaved three times so that a load on the machine
//! falls on both. The hit counts agree to a thousandth of the rays. A measurement, not a
//! benchmark. `FAR_PROBE=cast|cast_f64|occluded|occluded_f64|skip` runs one pass of one
//! query, untimed, for callgrind (subtract `skip` to count the queries alone).

use std::sync::Arc;

use glam::{Affine3A, DAffine3, DVec3};
use meshcast::{DRay, Instance, Mesh, MeshFiles, Ray, RayQueries, Scene};
use meshcast_benches::{median_run, TimingArgs};
use meshcast_testkit::random_rays;

/// One timed query: the number of hits of its rays.
type Query<'a> = Box<dyn Fn() -> usize + Sync + 'a>;

/// The UTM position of the issue's table.
const OFFSET: DVec3 = DVec3::new(500_123.37, 5_000_456.71, 100.0);

/// The grid's side and spacing.
const SIDE: usize = 8;
const SPACING: f64 = 500.0;

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args = TimingArgs::from_env();
    let path = args.mesh_path();
    let count: usize = args.value("--rays").unwrap_or("200000").parse()?;
    let pool = args.pool()?;
    let mesh = Arc::new(Mesh::from_path(&path)?);
    let places: Vec<DVec3> = (0..SIDE * SIDE)
        .map(|i| DVec3::new((i % SIDE) as f64, (i / SIDE) as f64, 0.0) * SPACING)
        .collect();
    let near = Scene::from_instances(places.iter().map(|&at| {
        Instance::new(Arc::clone(&mesh), Affine3A::from_translation(at.as_vec3())).expect("placed")
    }));
    let far = Scene::from_instances(places.iter().map(|&at| {
        Instance::new(Arc::clone(&mesh), DAffine3::from_translation(OFFSET + at)).expect("placed")
    }));
    let local = random_rays(mesh.bounds(), count, 57);
    let rays: Vec<Ray> = local
        .iter()
        .enumerate()
        .map(|(i, ray)| Ray {
            origin: ray.origin + places[i % places.len()].as_vec3(),
            ..*ray
        })
        .collect();
    let moved: Vec<DRay> = local
        .iter()
        .enumerate()
        .map(|(i, ray)| {
            let ray = DRay::from(*ray);
            DRay {
                origin: ray.origin + OFFSET + places[i % places.len()],
                ..ray
            }
        })
        .collect();
    println!(
        "{}: {} triangles, {} instances {SPACING} m apart, {count} random rays",
        path.display(),
        mesh.triangle_count(),
        places.len(),
    );
    if let Ok(probe) = std::env::var("FAR_PROBE") {
        // One pass of one query, untimed, for callgrind (`FAR_PROBE=skip` traces nothing:
        // subtract it to count the queries alone).
        let hits = match probe.as_str() {
            "cast" => rays.iter().filter(|r| near.cast(*r).is_some()).count(),
            "cast_f64" => moved.iter().filter(|r| far.cast(*r).is_some()).count(),
            "occluded" => rays.iter().filter(|r| near.occluded(*r)).count(),
            "occluded_f64" => moved.iter().filter(|r| far.occluded(*r)).count(),
            _ => 0,
        };
        println!("{probe}: {hits} hits");
        return Ok(());
    }
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
                let timed =
                    |query: &(dyn Fn() -> usize + Sync)| median_run(&mut || query().to_string());
                if name.contains("1 thread") {
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
