//! Times loading a mesh file (any format) and building its BVH (the ogre, 124k triangles, by default),
//! optionally after subdividing the mesh `levels` times (each level: four times the
//! triangles):
//!
//! ```text
//! cargo run --release -p meshcast-benches --example load_and_build [-- path/to/mesh [levels]]
//! ```
//!
//! A measurement, not a benchmark: run each phase a few times and print the best.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use meshcast::TriMeshFiles;
use meshcast_bvh::BuildOptions;
use meshcast_mesh::{Mesh, TriMesh};

const RUNS: usize = 5;

fn main() -> Result<(), meshcast::Error> {
    let path = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/ogre.obj")),
        PathBuf::from,
    );
    let levels: u32 = std::env::args()
        .nth(2)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(0);
    let mut load = Duration::MAX;
    let mut subdivide = Duration::MAX;
    let mut build = Duration::MAX;
    let mut mesh = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let tri_mesh = TriMesh::from_path(&path)?;
        let loaded = Instant::now();
        let tri_mesh = tri_mesh.subdivide(levels)?;
        let subdivided = Instant::now();
        let built = Mesh::from_tri_mesh(tri_mesh, &BuildOptions::default());
        let done = Instant::now();
        load = load.min(loaded - start);
        subdivide = subdivide.min(subdivided - loaded);
        build = build.min(done - subdivided);
        mesh = Some(built);
    }
    let mesh = mesh.expect("at least one run");
    let stats = mesh.bvh().stats();
    println!("{} subdivided {levels} time(s)", path.display());
    println!(
        "  {} triangles ({} degenerate), {} vertices, {} warnings",
        mesh.triangle_count(),
        mesh.tri_mesh().degenerate_count(),
        mesh.tri_mesh().vertex_count(),
        mesh.tri_mesh().warnings().len()
    );
    println!("  BVH: {stats:?}");
    println!(
        "  best of {RUNS}: load {:.1} ms, subdivide {:.1} ms, build {:.1} ms, load + build {:.1} ms",
        load.as_secs_f64() * 1e3,
        subdivide.as_secs_f64() * 1e3,
        build.as_secs_f64() * 1e3,
        (load + build).as_secs_f64() * 1e3
    );
    Ok(())
}
