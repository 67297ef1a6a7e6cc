//! Traces one ray set through a mesh: the probe behind the instruction counts quoted in commit
//! messages and doc comments (callgrind counts instructions reproducibly on a shared machine).
//!
//! `trace_probe MESH coherent|incoherent|away closest|any RAYS` prints the number of hits.
//! `away` is the incoherent set turned around, so that every ray misses the root (the per-ray
//! cost). Environment: `MESHCAST_KERNEL` picks the node kernel; `PROBE_SUBDIVIDE=N` subdivides
//! the mesh N times; `PROBE_SKIP=1` builds everything but traces nothing (subtract it to count
//! the tracing alone); `PROBE_TIME=N` prints the best Mrays/s of N timed passes instead;
//! `PROBE_COUNT=1` prints the nodes, leaves and blocks visited per ray; `PROBE_BATCH=1` traces
//! with `cast_batch_serial` / `occluded_batch_serial` (packets for coherent rays);
//! `PROBE_BAND=R` hands the batch calls `R` rows of the camera image at a time, as a renderer
//! that writes a band of its image at a time (`benches/peers` hands four); `PROBE_FOV=D` sets
//! the camera's field of view in degrees (default 60; `benches/peers` uses 40).
//!
//! ```sh
//! PROBE_TIME=5 cargo run --release -p meshcast-benches --example trace_probe -- \
//!     assets/stanford-bunny.obj coherent closest 1000000
//! cargo build --release -p meshcast-benches --example trace_probe
//! RAYON_NUM_THREADS=1 valgrind --tool=callgrind target/release/examples/trace_probe \
//!     assets/stanford-bunny.obj incoherent closest 40000
//! ```

use meshcast::TriMeshFiles;
use meshcast_mesh::{Mesh, RayQueries, TriMesh};
use meshcast_primitives::{Camera, Ray};
use meshcast_testkit::incoherent_rays;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, set, query, count] = args.as_slice() else {
        eprintln!("usage: trace_probe MESH coherent|incoherent|away closest|any RAYS");
        std::process::exit(2);
    };
    let levels: u32 = std::env::var("PROBE_SUBDIVIDE").map_or(0, |v| v.parse().expect("levels"));
    let tri_mesh = TriMesh::from_obj(path)
        .expect("mesh")
        .subdivide(levels)
        .expect("subdivide");
    let mesh = Mesh::from_tri_mesh(tri_mesh, &Default::default());
    let count: usize = count.parse().expect("ray count");
    let rays: Vec<Ray> = match set.as_str() {
        "coherent" => {
            let side = (count as f64).sqrt() as u32;
            let fov: f32 = std::env::var("PROBE_FOV").map_or(60.0, |v| v.parse().expect("fov"));
            Camera::framing(mesh.bounds(), fov, 1.0)
                .pixel_rays(side, side)
                .collect()
        }
        "away" => incoherent_rays(mesh.bounds(), count, 7)
            .into_iter()
            .map(|r| Ray::new(r.origin, -r.dir))
            .collect(),
        _ => incoherent_rays(mesh.bounds(), count, 7),
    };
    let any = query == "any";
    let batch = std::env::var("PROBE_BATCH").is_ok();
    let band = std::env::var("PROBE_BAND").map_or(rays.len(), |rows| {
        let side = (count as f64).sqrt() as usize;
        rows.parse::<usize>().expect("rows") * side
    });
    let trace = |rays: &[Ray]| {
        if batch {
            return rays
                .chunks(band.max(1))
                .map(|rays| batch_hits(&mesh, rays, any))
                .sum();
        }
        // Answers kept as the batch calls keep them, so that the two cost the same outside
        // the queries.
        if any {
            let hits: Vec<bool> = rays.iter().map(|r| mesh.occluded(r)).collect();
            hits.iter().filter(|&&h| h).count()
        } else {
            let hits: Vec<_> = rays.iter().map(|r| mesh.cast(r)).collect();
            hits.iter().flatten().count()
        }
    };
    if let Ok(passes) = std::env::var("PROBE_TIME") {
        let best = (0..passes.parse::<usize>().expect("passes"))
            .map(|_| {
                let start = std::time::Instant::now();
                std::hint::black_box(trace(&rays));
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        println!("{:.2}", rays.len() as f64 / best / 1e6);
    } else if std::env::var("PROBE_COUNT").is_ok() {
        let mut counts = meshcast_bvh::TraversalCounts::default();
        for ray in &rays {
            if any {
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
    } else if std::env::var("PROBE_SKIP").is_ok() {
        println!("0");
    } else {
        println!("{}", trace(&rays));
    }
}

/// The hits of one batch call over `rays`, its answers kept.
fn batch_hits(mesh: &Mesh, rays: &[Ray], any: bool) -> usize {
    if any {
        let mut hits = vec![false; rays.len()];
        mesh.occluded_batch_serial(rays, &mut hits);
        hits.iter().filter(|&&h| h).count()
    } else {
        let mut hits = vec![None; rays.len()];
        mesh.cast_batch_serial(rays, &mut hits);
        hits.iter().flatten().count()
    }
}
