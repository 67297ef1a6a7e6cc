//! Times the phases of building a mesh, as the peer benchmark's build time runs them: making
//! the `TriMesh` from arrays (`TriMesh::from_triangles`: the checks and the degenerate
//! count), then `Mesh::from_tri_mesh`; and, for the breakdown, the binary build
//! (`Bvh::build` over the triangles' boxes, with the mesh's options) and its collapse into the
//! wide tree (`WideBvh::from_binary_with`). What is left of `Mesh::from_tri_mesh` is the
//! triangle boxes and the leaf blocks.
//!
//! ```text
//! cargo run --release -p meshcast-benches --example build_phases [-- MESH [LEVELS [ROUNDS]]]
//! ```
//!
//! The ogre by default; LEVELS subdivides the mesh (each level four times the triangles).
//! `RAYON_NUM_THREADS=1 BUILD_SEQUENTIAL=1` measures one thread (`Parallel::Sequential`, as
//! the peer benchmark's one-thread build). A measurement, not a benchmark: it prints the best
//! of ROUNDS (default 5) for each phase.

use std::time::{Duration, Instant};

use meshcast_benches::BuildMeasurement;
use meshcast_bvh::{BuildOptions, Bvh, WideBvh, LEAF_ALIGNMENT};
use meshcast_mesh::{Mesh, TriMesh};
use meshcast_primitives::Aabb;

fn main() -> Result<(), meshcast::Error> {
    let BuildMeasurement {
        path,
        mesh: source,
        rounds,
        parallel,
        ..
    } = BuildMeasurement::from_args(
        Some(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/ogre.obj")),
        "build_phases [MESH [LEVELS [ROUNDS]]]",
    )?;
    let positions: Vec<[f32; 3]> = source.positions().iter().map(|p| p.to_array()).collect();
    let indices = source.indices().to_vec();
    let options = BuildOptions {
        parallel,
        ..BuildOptions::default()
    };
    // The options a mesh builds its binary tree with.
    let binary_options = BuildOptions {
        leaf_block: LEAF_ALIGNMENT,
        ..options
    };
    let boxes: Vec<Aabb> = source.triangles().map(|t| t.bounds()).collect();
    let mut best = [Duration::MAX; 4];
    for _ in 0..rounds {
        let start = Instant::now();
        let tri_mesh = TriMesh::from_triangles(&positions, &indices)?;
        let made = Instant::now();
        let mesh = Mesh::from_tri_mesh(tri_mesh, &options);
        let built = Instant::now();
        let binary = Bvh::build(&boxes, &binary_options);
        let binary_built = Instant::now();
        let wide = WideBvh::from_binary_with(&binary, &binary_options);
        let collapsed = Instant::now();
        let times = [
            made - start,
            built - made,
            binary_built - built,
            collapsed - binary_built,
        ];
        for (best, time) in best.iter_mut().zip(times) {
            *best = (*best).min(time);
        }
        std::hint::black_box((mesh, wide));
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{}, {} triangles, {parallel:?}, best of {rounds}: TriMesh::from_triangles {:.1} ms, \
         Mesh::from_tri_mesh {:.1} ms (of which Bvh::build {:.1} ms, collapse {:.1} ms)",
        path,
        indices.len(),
        ms(best[0]),
        ms(best[1]),
        ms(best[2]),
        ms(best[3]),
    );
    Ok(())
}
