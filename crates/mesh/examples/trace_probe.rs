//! Traces one ray set through a mesh, for instruction counts under callgrind.
//! `trace_probe MESH coherent|incoherent closest|any RAYS`
use meshcast_mesh::{camera_rays, incoherent_rays, Mesh};
use meshcast_primitives::Camera;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mesh = Mesh::from_obj(&args[1]).expect("mesh");
    let count: usize = args[4].parse().expect("count");
    let rays = if args[2] == "coherent" {
        let side = (count as f64).sqrt() as u32;
        let camera = Camera::framing(mesh.bounds(), 60.0, 1.0);
        camera_rays(&camera, side, side)
    } else if args[2] == "away" {
        incoherent_rays(mesh.bounds(), count, 7)
            .into_iter()
            .map(|r| meshcast_primitives::Ray::new(r.origin, -r.dir))
            .collect()
    } else {
        incoherent_rays(mesh.bounds(), count, 7)
    };
    if let Ok(reps) = std::env::var("PROBE_TIME") {
        let reps: usize = reps.parse().expect("reps");
        let mut best = f64::INFINITY;
        for _ in 0..reps {
            let start = std::time::Instant::now();
            let hits = if args[3] == "any" {
                rays.iter().filter(|r| mesh.occluded(r)).count()
            } else {
                rays.iter().filter(|r| mesh.cast(r).is_some()).count()
            };
            std::hint::black_box(hits);
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!("{:.2}", rays.len() as f64 / best / 1e6);
        return;
    }
    if std::env::var("PROBE_COUNT").is_ok() {
        let mut counts = meshcast_bvh::TraversalCounts::default();
        for ray in &rays {
            if args[3] == "any" {
                mesh.occluded_counted(ray, &mut counts);
            } else {
                mesh.cast_counted(ray, &mut counts);
            }
        }
        let per = |n: u64| n as f64 / counts.rays as f64;
        println!(
            "nodes {:.2} leaves {:.2} blocks {:.2}",
            per(counts.nodes),
            per(counts.leaves),
            per(counts.blocks)
        );
        return;
    }
    let hits = if std::env::var("PROBE_SKIP").is_ok() {
        0
    } else if args[3] == "any" {
        rays.iter().filter(|r| mesh.occluded(r)).count()
    } else {
        rays.iter().filter(|r| mesh.cast(r).is_some()).count()
    };
    println!("{hits}");
}
