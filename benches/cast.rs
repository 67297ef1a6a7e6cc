//! BVH traversal throughput in rays per second: closest hit (`cast`) and any hit
//! (`occluded`) over the bunny's triangles kept in leaf order, with the watertight set-up
//! prepared once per ray, as `Mesh` does. Two ray sets of 2^20 rays: coherent primary rays
//! of a 1024 x 1024 camera framing the mesh, and incoherent rays from a sphere around it
//! towards random points in its box. Every step of the quality ladder (to compare the
//! trees of the fast, balanced and high-quality builds), one and two threads from a local rayon pool.
//!
//! Then `Mesh` itself (its eight-wide tree, four triangles per leaf test) with each
//! [`LeafTest`] side by side on the same rays (`cast/bunny-mesh`): the watertight block and
//! the precomputed-transform block, and the watertight block with each node [`Kernel`] the CPU
//! runs (`MESHCAST_KERNEL` sets the default one).
//!
//! `cargo bench -p meshcast-benches --bench cast -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use meshcast::TriMeshFiles;
use meshcast_bvh::{Any, BuildOptions, Bvh, Closest, Kernel, PreparedRay, Primitive, Quality};
use meshcast_mesh::{LeafTest, Mesh, RayQueries, TriMesh};
use meshcast_primitives::{Camera, Hit, Ray, Triangle};
use meshcast_testkit::incoherent_rays;
use rayon::prelude::*;

const IMAGE_SIZE: u32 = 1024;
const INCOHERENT_SEED: u64 = 0x6361_7374;
/// Rays per rayon task: enough to hide scheduling, few enough to balance two threads.
const RAYS_PER_TASK: usize = 1024;

/// A hierarchy with its triangles copied into leaf order.
struct Scene {
    bvh: Bvh,
    leaves: Vec<Triangle>,
}

impl Scene {
    fn new(mesh: &TriMesh, quality: Quality) -> Self {
        let triangles: Vec<Triangle> = mesh.triangles().collect();
        let options = BuildOptions {
            quality,
            ..BuildOptions::default()
        };
        let bvh = Bvh::build_primitives(&triangles, &options);
        let leaves = bvh
            .primitive_order()
            .iter()
            .map(|&i| triangles[i as usize])
            .collect();
        Self { bvh, leaves }
    }

    fn cast(&self, ray: &Ray) -> Option<Hit> {
        let prepared = PreparedRay::new(ray);
        let order = self.bvh.primitive_order();
        self.bvh.walk(ray, Closest, |slot, range| {
            let hit = self.leaves[slot as usize]
                .intersect_prepared(&prepared.with_range(range.t_min, range.t_max))?;
            Some(hit.with_triangle(order[slot as usize]))
        })
    }

    fn occluded(&self, ray: &Ray) -> bool {
        let prepared = PreparedRay::new(ray);
        self.bvh.walk::<_, Hit>(ray, Any, |slot, _| {
            self.leaves[slot as usize]
                .intersect_prepared(&prepared)
                .is_some()
        })
    }
}

fn cast(c: &mut Criterion) {
    let path = format!(
        "{}/../assets/stanford-bunny.obj",
        env!("CARGO_MANIFEST_DIR")
    );
    let mesh = TriMesh::from_obj(path).expect("bunny loads");
    let bounds = mesh.bounds();
    let camera = Camera::framing(bounds, 45.0, 1.0);
    let ray_sets = [
        (
            "coherent",
            camera.pixel_rays(IMAGE_SIZE, IMAGE_SIZE).collect(),
        ),
        (
            "incoherent",
            incoherent_rays(bounds, (IMAGE_SIZE * IMAGE_SIZE) as usize, INCOHERENT_SEED),
        ),
    ];
    let pools = meshcast_benches::thread_pools();
    for (quality, name) in [
        (Quality::Fast, "fast"),
        (Quality::Balanced, "balanced"),
        (Quality::High, "high"),
    ] {
        let scene = Scene::new(&mesh, quality);
        let mut group = c.benchmark_group(format!("cast/bunny-{name}"));
        group.sample_size(10);
        for (set, rays) in &ray_sets {
            group.throughput(Throughput::Elements(rays.len() as u64));
            for (threads, pool) in &pools {
                let id = BenchmarkId::new(format!("closest/{set}"), format!("{threads}t"));
                group.bench_function(id, |b| {
                    b.iter(|| {
                        pool.install(|| {
                            rays.par_iter()
                                .with_min_len(RAYS_PER_TASK)
                                .filter(|r| scene.cast(r).is_some())
                                .count()
                        })
                    });
                });
                let id = BenchmarkId::new(format!("any/{set}"), format!("{threads}t"));
                group.bench_function(id, |b| {
                    b.iter(|| {
                        pool.install(|| {
                            rays.par_iter()
                                .with_min_len(RAYS_PER_TASK)
                                .filter(|r| scene.occluded(r))
                                .count()
                        })
                    });
                });
            }
        }
        group.finish();
    }

    let watertight = Mesh::from_tri_mesh(mesh, &BuildOptions::default());
    let transform = watertight.clone().with_leaf_test(LeafTest::Transform);
    // Each leaf test with the default kernel, and the watertight one with every other kernel
    // this CPU runs (`{leaf}-{kernel}`).
    let mut meshes = vec![
        ("watertight".to_string(), watertight.clone()),
        ("transform".to_string(), transform),
    ];
    for kernel in Kernel::supported() {
        if kernel != watertight.kernel() {
            let mut mesh = watertight.clone();
            mesh.set_kernel(kernel).expect("a supported kernel");
            meshes.push((format!("watertight-{kernel}"), mesh));
        }
    }
    let mut group = c.benchmark_group("cast/bunny-mesh");
    group.sample_size(10);
    for (set, rays) in &ray_sets {
        group.throughput(Throughput::Elements(rays.len() as u64));
        for (threads, pool) in &pools {
            for (leaf, mesh) in &meshes {
                let id = BenchmarkId::new(format!("closest/{set}/{leaf}"), format!("{threads}t"));
                group.bench_function(id, |b| {
                    b.iter(|| {
                        pool.install(|| {
                            rays.par_iter()
                                .with_min_len(RAYS_PER_TASK)
                                .filter(|r| mesh.cast(*r).is_some())
                                .count()
                        })
                    });
                });
                let id = BenchmarkId::new(format!("any/{set}/{leaf}"), format!("{threads}t"));
                group.bench_function(id, |b| {
                    b.iter(|| {
                        pool.install(|| {
                            rays.par_iter()
                                .with_min_len(RAYS_PER_TASK)
                                .filter(|r| mesh.occluded(*r))
                                .count()
                        })
                    });
                });
            }
        }
    }
    group.finish();
}

// A module keeps the function criterion_group! generates out of the crate's public items,
// which missing_docs would flag.
mod group {
    criterion::criterion_group!(benches, super::cast);
}
criterion_main!(group::benches);
