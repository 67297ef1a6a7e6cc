//! What the GPU tests share: the GPU they run on (or why they are skipped) and how close a
//! GPU hit's `t`, `u` and `v` must lie to the CPU's.

use std::sync::{Arc, OnceLock};

use meshcast::{Hit, Mesh};
use meshcast_gpu::{Gpu, GpuMesh, T_ERROR_BOUND, UV_ERROR_BOUND};

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
