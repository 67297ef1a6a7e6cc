//! What the GPU tests share: the GPU they run on (or why they are skipped) and how close a
//! GPU hit's `t`, `u` and `v` must lie to the CPU's.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use glam::Vec3;
use meshcast::{Hit, Mesh, Ray, TriMesh};
use meshcast_gpu::{Backend, Gpu, GpuMesh, GpuOptions, T_ERROR_BOUND, UV_ERROR_BOUND};
use meshcast_testkit::asset;

/// The GPU every test shares, or `None` (with the reason printed) where there is none.
pub fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| match Gpu::new() {
        Ok(gpu) => {
            eprintln!("GPU tests run on {}", gpu.adapter());
            Some(gpu)
        }
        Err(error) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the GPU tests (install mesa-vulkan-drivers): {error}"
            );
            eprintln!("GPU tests skipped: {error}");
            None
        }
    })
    .as_ref()
}

pub fn upload(gpu: &Gpu, mesh: &Arc<Mesh>) -> GpuMesh {
    gpu.upload(mesh.clone()).expect("upload")
}

/// Whether the adapter evaluates as the CPU does (no fused multiply-add, correctly rounded
/// division): then `t`, `u`, `v` are the CPU's bit for bit.
pub fn bit_exact(gpu: &Gpu) -> bool {
    gpu.adapter().name.contains("llvmpipe")
}

/// Whether a GPU's closest hit is the CPU's: the same triangle or miss, and `t`, `u`, `v`
/// the CPU's bit for bit where `exact`, else within the documented bounds.
pub fn same_closest(gpu: Option<Hit>, cpu: Option<Hit>, exact: bool) -> bool {
    match (gpu, cpu) {
        (Some(g), Some(w)) if exact => g == w,
        (Some(g), Some(w)) => g.triangle == w.triangle && within_bounds(&g, &w),
        (None, None) => true,
        _ => false,
    }
}

/// `tri_mesh` built with the default options.
pub fn mesh_of(tri_mesh: TriMesh) -> Arc<Mesh> {
    Arc::new(Mesh::from_tri_mesh(tri_mesh, &Default::default()))
}

/// Each lattice solid scaled by `2^k`, with its rays scaled with it and, beside them, the
/// same origins with the unscaled directions: named, meshed, and the rays.
pub fn scaled_lattice_solids(k: i32) -> Vec<(String, Arc<Mesh>, Vec<Ray>)> {
    let s = 2f64.powi(k) as f32;
    meshcast_testkit::lattice_solids()
        .into_iter()
        .map(|solid| {
            let positions: Vec<Vec3> = solid.mesh.positions().iter().map(|&p| p * s).collect();
            let scaled = TriMesh::new(positions, solid.mesh.indices().to_vec()).expect("scaled");
            let rays = solid
                .rays(5)
                .iter()
                .flat_map(|r| {
                    [
                        Ray::new(r.origin * s, r.dir * s),
                        Ray::new(r.origin * s, r.dir),
                    ]
                })
                .collect();
            (format!("{} at 2^{k}", solid.name), mesh_of(scaled), rays)
        })
        .collect()
}

/// Degenerate and out-of-range rays at `icosphere(2)`: no direction, NaN and infinite
/// coordinates, empty, NaN and infinite ranges, tiny and huge directions, origins far away,
/// subnormal components, ranges of a subnormal.
pub fn degenerate_rays() -> Vec<Ray> {
    let o = Vec3::new(0.1, 0.2, 3.0);
    vec![
        Ray::new(o, Vec3::NEG_Z),
        Ray::new(o, Vec3::ZERO),
        Ray::new(o, Vec3::new(f32::NAN, 0.0, -1.0)),
        Ray::new(Vec3::new(f32::INFINITY, 0.0, 0.0), Vec3::NEG_Z),
        Ray::new(o, Vec3::NEG_Z).with_range(2.0, 1.0),
        Ray::new(o, Vec3::NEG_Z).with_range(f32::NAN, 1.0),
        Ray::new(o, Vec3::NEG_Z).with_range(f32::INFINITY, f32::INFINITY),
        Ray::new(o, Vec3::NEG_Z).with_range(0.0, 2.0),
        Ray::new(o, Vec3::NEG_Z).with_range(-10.0, 10.0),
        Ray::new(o, Vec3::NEG_Z * 1e-35),
        Ray::new(o, Vec3::NEG_Z * 1e35),
        Ray::new(o * 1e30, -o),
        Ray::new(o, Vec3::new(1e-40, 0.0, -1.0)),
        Ray::new(Vec3::new(1e-40, 0.0, 3.0), Vec3::NEG_Z),
        Ray::new(o, Vec3::NEG_Z).with_range(1e-45, f32::INFINITY),
        Ray::new(Vec3::new(0.0, 0.0, 1.0), Vec3::NEG_Z).with_range(-1e-45, 1e-45),
    ]
}

/// Whether a GPU hit's `t`, `u` and `v` lie within the documented bounds of the CPU's.
pub fn within_bounds(gpu: &Hit, cpu: &Hit) -> bool {
    (gpu.t - cpu.t).abs() <= T_ERROR_BOUND * cpu.t.abs() * 1.001
        && (gpu.u - cpu.u).abs() <= UV_ERROR_BOUND
        && (gpu.v - cpu.v).abs() <= UV_ERROR_BOUND
}

/// One asset of each kind, for the checks that multiply the rays by option sets or kernel
/// variants: a small open mesh with separate parts (suzanne), a CAD part with sharp edges
/// and long thin triangles (fandisk), a large scan with holes (the bunny). The options and
/// variants act per ray and per hit, not per mesh; every asset is checked with the defaults
/// (`every_asset_answers_as_the_cpu`). Most of a check's time is the CPU's answers to the
/// adversarial rays (its exact fallback, 58% of the samples in `perf`): with every asset,
/// `options.rs` took 293 s on two cores, `gpu.rs` 297 s.
pub fn assets_of_each_kind() -> Vec<PathBuf> {
    ["suzanne.obj", "fandisk.obj", "stanford-bunny.obj"]
        .into_iter()
        .map(asset)
        .collect()
}

/// The CUDA back ends this machine runs, each opened with `options` and its own back end:
/// the kernel's host build always, the device where present.
pub fn cuda_back_ends(options: GpuOptions) -> Vec<Gpu> {
    let Some(shared) = gpu() else {
        return Vec::new();
    };
    let open = |backend| {
        Gpu::with_options(
            Some(&shared.adapter().name),
            GpuOptions { backend, ..options },
        )
    };
    let mut back_ends = vec![open(Backend::CudaHost).expect("the host build of the kernel")];
    match open(Backend::Cuda) {
        Ok(device) => {
            eprintln!("CUDA tests run on {:?}", device.cuda_device());
            back_ends.push(device);
        }
        Err(error) => eprintln!("CUDA device tests skipped: {error}"),
    }
    back_ends
}
