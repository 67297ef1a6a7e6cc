//! BVH construction time per mesh, quality and thread count; throughput in triangles per
//! second. Meshes: the Stanford bunny (69k triangles), the ogre (124k), and the bunny
//! subdivided twice (1.1M) and three times (4.4M), each triangle into four at its edge
//! midpoints. Threads come from a local rayon pool of one or two threads.
//!
//! `cargo bench -p meshcast-benches --bench bvh_construct -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_main, BenchmarkId, Criterion, Throughput};
use meshcast::TriMeshFiles;
use meshcast_bvh::{BuildOptions, Bvh, Quality};
use meshcast_mesh::TriMesh;
use meshcast_primitives::{Aabb, Triangle};

/// The path of an asset of the repository.
fn asset(name: &str) -> String {
    format!("{}/../assets/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn boxes(mesh: &TriMesh) -> Vec<Aabb> {
    mesh.triangles().map(|t| Triangle::bounds(&t)).collect()
}

fn construct(c: &mut Criterion) {
    let bunny = TriMesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads");
    let ogre = TriMesh::from_obj(asset("ogre.obj")).expect("ogre loads");
    let meshes = [
        ("bunny", boxes(&bunny)),
        ("ogre", boxes(&ogre)),
        (
            "bunny-1.1M",
            boxes(&bunny.subdivide(2).expect("subdivides")),
        ),
        (
            "bunny-4.4M",
            boxes(&bunny.subdivide(3).expect("subdivides")),
        ),
    ];
    let pools = meshcast_benches::thread_pools();
    for (quality, name) in [
        (Quality::Fast, "fast"),
        (Quality::Balanced, "balanced"),
        (Quality::High, "high"),
    ] {
        let mut group = c.benchmark_group(format!("bvh_construct/{name}"));
        group.sample_size(10);
        let options = BuildOptions {
            quality,
            ..BuildOptions::default()
        };
        for (mesh, boxes) in &meshes {
            group.throughput(Throughput::Elements(boxes.len() as u64));
            for (threads, pool) in &pools {
                let id = BenchmarkId::new(*mesh, format!("{threads}t"));
                group.bench_with_input(id, boxes, |b, boxes| {
                    b.iter(|| pool.install(|| black_box(Bvh::build(boxes, &options))));
                });
            }
        }
        group.finish();
    }
}

// A module keeps the function criterion_group! generates out of the crate's public items,
// which missing_docs would flag.
mod group {
    criterion::criterion_group!(benches, super::construct);
}
criterion_main!(group::benches);
