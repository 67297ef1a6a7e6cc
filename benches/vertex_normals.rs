//! Smooth vertex normals ([`TriMesh::vertex_normals`]): the one-off cost of the first call,
//! throughput in triangles per second, on the Stanford bunny (69k triangles) and the bunny
//! subdivided twice (1.1M). The computation is sequential, so there is no thread count.
//!
//! `cargo bench -p meshcast-benches --bench vertex_normals -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use meshcast::TriMeshFiles;
use meshcast_mesh::TriMesh;

/// The path of an asset of the repository.
fn asset(name: &str) -> String {
    format!("{}/../assets/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn vertex_normals(c: &mut Criterion) {
    let bunny = TriMesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads");
    let meshes = [
        ("bunny", bunny.clone()),
        ("bunny-1.1M", bunny.subdivide(2).expect("subdivides")),
    ];
    let mut group = c.benchmark_group("vertex_normals");
    group.sample_size(10);
    for (name, mesh) in &meshes {
        group.throughput(Throughput::Elements(mesh.triangle_count() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), mesh, |b, mesh| {
            // A fresh mesh each time (the normals are computed once per mesh and kept),
            // returned so that freeing it is not timed.
            b.iter_batched(
                || TriMesh::new(mesh.positions().to_vec(), mesh.indices().to_vec()),
                |fresh| {
                    let fresh = fresh.expect("valid");
                    black_box(fresh.vertex_normals());
                    fresh
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

// A module keeps the function criterion_group! generates out of the crate's public items,
// which missing_docs would flag.
mod group {
    criterion::criterion_group!(benches, super::vertex_normals);
}
criterion_main!(group::benches);
