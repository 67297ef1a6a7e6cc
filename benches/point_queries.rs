//! Point queries ([`PointQueries`]) per second, on points spread evenly over each mesh's box:
//! `contains` on one thread on the cow (5.8k triangles, closed: the parity of one ray),
//! nefertiti (100k, closed) and the ogre (124k, open: the winding number), next to one
//! `cast_all` per point of the ray `contains` casts; `winding_number` and `signed_distance`
//! on one thread; `closest_point_batch` on one and two threads. Last, what finding
//! closedness costs: `TriMesh::new` and its first `is_closed` on the bunny subdivided twice
//! (1.1M triangles, open) and the cow subdivided four times (1.5M, closed).
//!
//! `cargo bench -p meshcast-benches --bench point_queries -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use meshcast::{MeshFiles, TriMeshFiles};
use meshcast_benches::thread_pools;
use meshcast_mesh::{
    Mesh, PointQueries, QueryOptions, RayQueries, TriMesh, CONTAINS_RAY_DIRECTION,
};
use meshcast_primitives::Ray;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const POINTS: usize = 4096;
const SEED: u64 = 0x706f_696e;

/// The path of an asset of the repository.
fn asset(name: &str) -> String {
    format!("{}/../assets/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Points spread evenly over the mesh's box.
fn points_in(mesh: &Mesh) -> Vec<Vec3> {
    let mut rng = Pcg64::seed_from_u64(SEED);
    let bounds = mesh.bounds();
    (0..POINTS)
        .map(|_| bounds.min + bounds.extent() * Vec3::new(rng.gen(), rng.gen(), rng.gen()))
        .collect()
}

fn point_queries(c: &mut Criterion) {
    let meshes: Vec<(&str, Mesh, Vec<Vec3>)> = ["cow", "nefertiti", "ogre"]
        .iter()
        .map(|name| {
            let mesh = Mesh::from_obj(asset(&format!("{name}.obj"))).expect("the asset loads");
            // The winding number's expansions are made by the first query: not timed.
            mesh.winding_number(Vec3::ZERO);
            let points = points_in(&mesh);
            let inside = points.iter().filter(|&&p| mesh.contains(p)).count();
            eprintln!(
                "{name}: closed {}, {inside} of {POINTS} points inside",
                mesh.is_closed()
            );
            (*name, mesh, points)
        })
        .collect();

    let mut group = c.benchmark_group("point_queries");
    group.sample_size(10);
    group.throughput(Throughput::Elements(POINTS as u64));
    for (name, mesh, points) in &meshes {
        group.bench_function(BenchmarkId::new("contains", name), |b| {
            b.iter(|| points.iter().filter(|&&p| mesh.contains(p)).count())
        });
        group.bench_function(
            BenchmarkId::new("cast_all_of_the_contains_ray", name),
            |b| {
                b.iter(|| {
                    points
                        .iter()
                        .map(|&p| mesh.cast_all(&Ray::new(p, CONTAINS_RAY_DIRECTION)).len())
                        .sum::<usize>()
                })
            },
        );
        group.bench_function(BenchmarkId::new("winding_number", name), |b| {
            b.iter(|| points.iter().map(|&p| mesh.winding_number(p)).sum::<f32>())
        });
        group.bench_function(BenchmarkId::new("signed_distance", name), |b| {
            b.iter(|| {
                points
                    .iter()
                    .filter_map(|&p| mesh.signed_distance(p))
                    .sum::<f32>()
            })
        });
        for (threads, pool) in thread_pools() {
            let id = BenchmarkId::new(format!("closest_point_batch/{threads}"), name);
            group.bench_function(id, |b| {
                b.iter(|| pool.install(|| mesh.closest_point_batch(points, &QueryOptions::new())))
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("closedness");
    group.sample_size(10);
    let subdivided = [
        ("bunny-1.1M", "stanford-bunny.obj", 2),
        ("cow-1.5M", "cow.obj", 4),
    ];
    for (name, file, levels) in subdivided {
        let mesh = TriMesh::from_obj(asset(file))
            .and_then(|mesh| Ok(mesh.subdivide(levels)?))
            .expect("the asset subdivides");
        group.throughput(Throughput::Elements(mesh.triangle_count() as u64));
        group.bench_function(BenchmarkId::new("tri_mesh_new_is_closed", name), |b| {
            b.iter_batched(
                || (mesh.positions().to_vec(), mesh.indices().to_vec()),
                |(positions, indices)| TriMesh::new(positions, indices).map(|m| m.is_closed()),
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

// A module keeps the function criterion_group! generates out of the crate's public items,
// which missing_docs would flag.
mod group {
    criterion::criterion_group!(benches, super::point_queries);
}
criterion_main!(group::benches);
