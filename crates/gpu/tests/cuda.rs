//! The CUDA back end answers what the CPU engine answers, ray for ray, closest hits and any
//! hits: its kernel built as host C++ (`Backend::CudaHost`, on every machine, so CI holds
//! the very source the PTX is made from to the CPU bit for bit) and, where an NVIDIA driver
//! and GPU are present, the PTX on the device (`Backend::Cuda`, `t`, `u`, `v` within the
//! documented bounds). On every asset, on random, incoherent and adversarial rays (through
//! vertices and edges, grazing), at every scale, on degenerate and out-of-range rays, through
//! distance limits, across chunks, on deforming and empty meshes.

use std::sync::Arc;

use glam::Vec3;
use meshcast::{Mesh, MeshFiles, QueryOptions, Ray, RayQueries, Triangle};
use meshcast_gpu::{Backend, Gpu, GpuMesh, GpuOptions};
use meshcast_testkit::{
    adversarial_rays, all_assets, icosphere, incoherent_rays, random_rays, torus,
};

use crate::common::{
    bit_exact, cuda_back_ends, degenerate_rays, gpu, mesh_of, same_closest, scaled_lattice_solids,
    upload,
};

/// The CUDA back ends this machine runs: the host build always, the device where present.
fn back_ends() -> Vec<Gpu> {
    cuda_back_ends(GpuOptions::default())
}

/// Whether `gpu` runs the kernel on the host, where it rounds as the CPU does.
fn on_host(gpu: &Gpu) -> bool {
    gpu.kernel_options().backend == Backend::CudaHost
}

/// Checks closest and any hits on `rays` against the CPU engine, with the default options
/// and with a distance limit.
fn check(gpu: &Gpu, on_gpu: &GpuMesh, rays: &[Ray], what: &str) {
    let mesh = on_gpu.mesh();
    let exact = on_host(gpu);
    for limit in [f32::INFINITY, 0.7] {
        let options = QueryOptions::new().with_max_distance(limit);
        let closest = on_gpu.cast_batch_with(rays, &options).expect("cast_batch");
        let occluded = on_gpu
            .occluded_batch_with(rays, &options)
            .expect("occluded_batch");
        let want_closest = mesh.cast_batch_with(rays, &options);
        let want_occluded = mesh.occluded_batch_with(rays, &options);
        for (i, ray) in rays.iter().enumerate() {
            let (got, want) = (closest[i], want_closest[i]);
            assert!(
                same_closest(got, want, exact),
                "{what}, limit {limit}: ray {i} {ray:?}: CUDA {got:?}, CPU {want:?}"
            );
            assert_eq!(
                occluded[i], want_occluded[i],
                "{what}, limit {limit}: occluded, ray {i} {ray:?}"
            );
        }
    }
}

#[test]
fn the_cuda_kernel_answers_every_asset_as_the_cpu() {
    let Some(shared) = gpu() else { return };
    let wgpu_alone = Gpu::with_options(
        Some(&shared.adapter().name),
        GpuOptions {
            backend: Backend::Wgpu,
            ..GpuOptions::default()
        },
    )
    .expect("the same adapter");
    for gpu in back_ends() {
        assert!(gpu.kernel_options().backend != Backend::Wgpu);
        for path in all_assets() {
            let mesh = Arc::new(Mesh::from_path(&path).expect("asset"));
            let on_gpu = upload(&gpu, &mesh);
            let bounds = mesh.bounds();
            let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
            let mut rays = random_rays(bounds, 1500, 1);
            rays.extend(incoherent_rays(bounds, 1500, 2));
            rays.extend(adversarial_rays(&triangles, 2000, 3));
            check(&gpu, &on_gpu, &rays, &path.display().to_string());
            // The kernel leaves open the rays the WGSL kernel leaves open: the same bounds (on
            // the host, rounded as llvmpipe rounds, the very same rays).
            let open = |gpu: &Gpu| {
                let fresh = upload(gpu, &mesh);
                fresh.cast_batch(&rays[..1500]).expect("cast_batch");
                fresh.occluded_batch(&rays[..1500]).expect("occluded_batch");
                fresh.stats().finished_on_cpu
            };
            let (cuda, wgpu) = (open(&gpu), open(&wgpu_alone));
            if on_host(&gpu) && bit_exact(&wgpu_alone) {
                assert_eq!(cuda, wgpu, "{}: open rays", path.display());
            } else {
                assert!(
                    cuda <= 2 * wgpu + 10,
                    "{}: {cuda} open, wgpu {wgpu}",
                    path.display()
                );
            }
        }
    }
}

/// The lattice solids from `2^-140` (subnormal coordinates, left to the CPU) to `2^60`, and
/// rays the kernel must refuse or decide with care.
#[test]
fn the_cuda_kernel_answers_every_scale_and_degenerate_rays_as_the_cpu() {
    for gpu in back_ends() {
        for k in [-140, -100, 0, 60] {
            for (name, mesh, rays) in scaled_lattice_solids(k) {
                check(&gpu, &upload(&gpu, &mesh), &rays, &name);
            }
        }
        let on_gpu = upload(&gpu, &mesh_of(icosphere(2)));
        let rays = degenerate_rays();
        check(&gpu, &on_gpu, &rays, "degenerate rays");
    }
}

/// Rays in many chunks land in their places; a deformed mesh is copied again; empty and
/// one-triangle meshes answer.
#[test]
fn the_cuda_kernel_streams_chunks_and_follows_deformations() {
    for gpu in back_ends() {
        let chunked = Gpu::with_options(
            Some(&gpu.adapter().name),
            GpuOptions {
                chunk: 4096,
                ..gpu.kernel_options()
            },
        )
        .expect("the same back end");
        let mesh = mesh_of(torus(1.0, 0.4, 32, 16));
        let mut on_gpu = upload(&chunked, &mesh);
        let rays = random_rays(mesh.bounds(), 10_000, 4);
        check(&chunked, &on_gpu, &rays, "chunks of 4096");
        // One copy of the mesh while CUDA answers everything; wgpu's made for the first
        // query only wgpu answers, and both kept up to date by `set_positions` below.
        // The back end's tree, leaves of 2: at most 48 bytes per triangle.
        let cuda_bytes = on_gpu.gpu_bytes();
        assert!(cuda_bytes as f64 <= 48.0 * mesh.triangle_count() as f64);
        on_gpu.count_batch(&rays[..10]).expect("count_batch");
        assert_eq!(on_gpu.gpu_bytes(), 2 * cuda_bytes);
        for step in 1..3 {
            let moved: Vec<[f32; 3]> = mesh
                .tri_mesh()
                .positions()
                .iter()
                .map(|p| (*p * (1.0 + 0.1 * step as f32) + Vec3::Y * p.x * 0.2).to_array())
                .collect();
            on_gpu.set_positions(&moved).expect("set_positions");
            let rays = random_rays(on_gpu.mesh().bounds(), 800, step);
            check(&chunked, &on_gpu, &rays, &format!("deformed, step {step}"));
            let counts = on_gpu.count_batch(&rays).expect("count_batch");
            assert_eq!(
                counts,
                on_gpu.mesh().count_batch(&rays),
                "deformed, step {step}"
            );
        }
        let empty = Arc::new(Mesh::from_triangles(&[], &[]).expect("empty"));
        let single = Arc::new(
            Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])
                .expect("one"),
        );
        let rays = random_rays(
            meshcast::Aabb::new(Vec3::splat(-1.0), Vec3::splat(2.0)),
            300,
            9,
        );
        for (name, mesh) in [("empty", empty), ("one", single)] {
            check(&gpu, &upload(&gpu, &mesh), &rays, name);
            assert!(upload(&gpu, &mesh)
                .cast_batch(&[])
                .expect("none")
                .is_empty());
        }
    }
}

/// A mesh whose memory is freed on another thread, one that never used the back end (as a
/// Python thread dropping the last reference does), leaves the back end answering there and
/// here: on the device, freeing without the context bound failed and left its error pending
/// for the next call, an upload that then failed with `CUDA_ERROR_INVALID_CONTEXT`.
#[test]
fn a_mesh_freed_on_another_thread_leaves_the_back_end_working() {
    for gpu in back_ends() {
        let mesh = mesh_of(torus(1.0, 0.4, 24, 12));
        let rays = random_rays(mesh.bounds(), 2_000, 6);
        for _ in 0..3 {
            let on_gpu = upload(&gpu, &mesh);
            check(&gpu, &on_gpu, &rays, "before the other thread frees one");
            std::thread::spawn(move || drop(on_gpu))
                .join()
                .expect("dropped");
            let again = upload(&gpu, &mesh);
            check(&gpu, &again, &rays, "after the other thread freed one");
        }
    }
}
