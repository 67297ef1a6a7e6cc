//! What the GPU tests share: the GPU they run on (or why they are skipped) and how close a
//! GPU hit's `t`, `u` and `v` must lie to the CPU's.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use meshcast::{Hit, Mesh};
use meshcast_gpu::{Gpu, GpuMesh, T_ERROR_BOUND, UV_ERROR_BOUND};
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
