//! Loading a mesh from its cache against building its hierarchy: the bunny subdivided twice
//! (1.1M triangles) and three times (4.4M), on rayon pools of one and two threads. `build`
//! is [`Mesh::from_tri_mesh`] on a loaded `TriMesh`; `from_bytes` reads cache bytes already
//! in memory; `load` reads the cache file (from the page cache, after the first run). The
//! sizes are printed once per mesh.
//!
//! `cargo bench -p meshcast-benches --bench cache -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_main, BenchmarkId, Criterion, Throughput};
use meshcast::{MeshFiles, TriMeshFiles};
use meshcast_bvh::BuildOptions;
use meshcast_mesh::{Mesh, TriMesh};

/// The path of an asset of the repository.
fn asset(name: &str) -> String {
    format!("{}/../assets/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn cache(c: &mut Criterion) {
    let bunny = TriMesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads");
    let pools = meshcast_benches::thread_pools();
    let mut group = c.benchmark_group("cache");
    group.sample_size(10);
    for (name, levels) in [("bunny-1.1M", 2), ("bunny-4.4M", 3)] {
        let tri_mesh = bunny.subdivide(levels).expect("subdivides");
        let mesh = Mesh::from_tri_mesh(tri_mesh.clone(), &BuildOptions::default());
        let bytes = mesh.to_bytes();
        let path = std::env::temp_dir().join(format!("meshcast-bench-{name}.mcache"));
        mesh.save(&path).expect("the cache is written");
        let triangles = tri_mesh.triangle_count();
        println!(
            "{name}: {triangles} triangles, cache {} bytes ({:.1} bytes per triangle)",
            bytes.len(),
            bytes.len() as f64 / triangles as f64
        );
        group.throughput(Throughput::Elements(triangles as u64));
        for (threads, pool) in &pools {
            let id = |what: &str| BenchmarkId::new(format!("{name}/{what}"), format!("{threads}t"));
            group.bench_function(id("build"), |b| {
                b.iter_batched(
                    || tri_mesh.clone(),
                    |tri_mesh| {
                        pool.install(|| Mesh::from_tri_mesh(tri_mesh, &BuildOptions::default()))
                    },
                    criterion::BatchSize::LargeInput,
                );
            });
            group.bench_function(id("from_bytes"), |b| {
                b.iter(|| pool.install(|| black_box(Mesh::from_bytes(&bytes).expect("loads"))));
            });
            group.bench_function(id("load"), |b| {
                b.iter(|| pool.install(|| black_box(Mesh::load(&path).expect("loads"))));
            });
            group.bench_function(id("save"), |b| {
                b.iter(|| pool.install(|| mesh.save(&path).expect("saves")));
            });
        }
        std::fs::remove_file(&path).expect("removed");
    }
    group.finish();
}

fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    cache(&mut criterion);
}

criterion_main!(benches);
