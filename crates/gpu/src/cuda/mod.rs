//! The CUDA back end (feature `cuda`): closest-hit and any-hit batches traced by
//! `kernel.cu`, the WGSL kernel's traversal written line for line in CUDA C++ and loaded as PTX
//! through the NVIDIA driver, with no CUDA toolkit to build or run (the driver is loaded at
//! run time; without one the back end is simply absent).
//!
//! Why: the same traversal over the same bytes ran 1.5 times faster on closest hits and 1.65
//! to 2.4 times on any hit compiled by nvcc than through WGSL, naga's SPIR-V and the Vulkan
//! driver (BENCHMARKS.md, "Where the GPU's time goes"). So the queries the GPU answers most
//! take the shorter path where an NVIDIA driver is present, and wgpu stays for every other
//! GPU, for the other queries (counts, hit lists, camera rays made on the GPU, culling) and
//! for CI.
//!
//! The back end shares everything but the compiler with the portable path: the layout
//! (`layout.rs`: the same nodes, triangles and rays), the exactness contract (the kernel's
//! bounds are the WGSL's), the answers' form (the same hit slots and counts, decided and
//! finished on the CPU by the same code in `gpu_mesh/launch.rs`) and the tests. With the
//! `host-kernel` feature the same source is also built as host C++ ([`Backend::CudaHost`]),
//! so that the tests hold this very kernel to the CPU on machines with no NVIDIA GPU.
//!
//! [`Backend::CudaHost`]: crate::Backend::CudaHost

#[cfg(feature = "host-kernel")]
use rayon::prelude::*;

use crate::kernel::{Backend, BACKEND_VARIABLE};
use crate::layout::Layout;
#[cfg(feature = "host-kernel")]
use crate::layout::{GpuNode, GpuRay, GpuTriangle};
use crate::stream::RaySource;
use crate::{Error, Result};

mod driver;

/// The PTX of `kernel.cu`, made by `build_ptx.sh` (clang's CUDA device mode, sm_75).
const PTX: &str = include_str!("kernel.ptx");

/// Names a file of PTX to load instead of the embedded one (another compiler's, say), so that
/// one binary can measure both.
pub const PTX_VARIABLE: &str = "MESHCAST_CUDA_PTX";

/// The queries the CUDA kernel answers (`kernel.cu`'s `MODE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A hit slot per ray, as the WGSL closest-hit kernel writes it.
    Closest,
    /// A count per ray: 0 (miss), 1 (hit) or 2 (open), as the WGSL any-hit kernel writes it.
    Any,
}

/// Where the CUDA kernel runs: an NVIDIA GPU through the driver, or the host.
pub(crate) enum Cuda {
    Device(driver::Device),
    #[cfg(feature = "host-kernel")]
    Host,
}

impl Cuda {
    /// The back end `backend` asks for: `None` for wgpu alone, and for [`Backend::Auto`] where
    /// no NVIDIA driver or CUDA device is found.
    ///
    /// # Errors
    /// [`Error::NoGpu`] if [`Backend::Cuda`] is asked for and there is no CUDA device, or
    /// [`Backend::CudaHost`] and the crate was built without `host-kernel`.
    pub(crate) fn open(backend: Backend) -> Result<Option<Self>> {
        let ptx = || -> Result<String> {
            match std::env::var_os(PTX_VARIABLE) {
                Some(path) => std::fs::read_to_string(&path).map_err(|error| Error::NoGpu {
                    reason: format!("{PTX_VARIABLE}={}: {error}", path.to_string_lossy()),
                }),
                None => Ok(PTX.to_owned()),
            }
        };
        match backend {
            Backend::Wgpu => Ok(None),
            Backend::Auto => Ok(driver::Device::open(ptx()?).ok().map(Self::Device)),
            Backend::Cuda => driver::Device::open(ptx()?)
                .map(|device| Some(Self::Device(device)))
                .map_err(|reason| Error::NoGpu {
                    reason: format!("no CUDA device ({BACKEND_VARIABLE}=cuda): {reason}"),
                }),
            #[cfg(feature = "host-kernel")]
            Backend::CudaHost => Ok(Some(Self::Host)),
            #[cfg(not(feature = "host-kernel"))]
            Backend::CudaHost => Err(Error::NoGpu {
                reason: format!(
                    "{BACKEND_VARIABLE}=cuda-host needs meshcast-gpu's `host-kernel` feature"
                ),
            }),
        }
    }

    /// The device's name, or the host's.
    pub(crate) fn name(&self) -> String {
        match self {
            Self::Device(device) => device.name().to_owned(),
            #[cfg(feature = "host-kernel")]
            Self::Host => "the CUDA kernel on the host".to_owned(),
        }
    }

    /// `layout`'s nodes and triangles where the kernel reads them.
    pub(crate) fn upload(&self, layout: &Layout) -> Result<CudaMesh> {
        match self {
            Self::Device(device) => device
                .upload(
                    bytemuck::cast_slice(&layout.nodes),
                    bytemuck::cast_slice(&layout.triangles),
                )
                .map(|mesh| CudaMesh::Device(Box::new(mesh))),
            #[cfg(feature = "host-kernel")]
            Self::Host => Ok(CudaMesh::Host {
                nodes: layout.nodes.clone(),
                triangles: layout.triangles.clone(),
            }),
        }
    }
}

/// A mesh where the CUDA kernel reads it.
pub(crate) enum CudaMesh {
    /// Boxed: the device's buffers are larger than the host's two vectors.
    Device(Box<driver::DeviceMesh>),
    #[cfg(feature = "host-kernel")]
    Host {
        nodes: Vec<GpuNode>,
        triangles: Vec<GpuTriangle>,
    },
}

impl CudaMesh {
    /// Bytes of device memory the mesh takes (80 per node, 36 per triangle).
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Self::Device(mesh) => mesh.bytes(),
            #[cfg(feature = "host-kernel")]
            Self::Host { nodes, triangles } => {
                (size_of_val(nodes.as_slice()) + size_of_val(triangles.as_slice())) as u64
            }
        }
    }

    /// Traces the rays of `rays` for `mode`, `chunk` at a time, handing `take` each chunk's
    /// first ray and its hit slots (closest hits) or counts (any hit), as the wgpu stream
    /// hands them.
    pub(crate) fn stream(
        &self,
        mode: Mode,
        rays: &dyn RaySource,
        chunk: usize,
        take: impl FnMut(usize, &[[u32; 4]], &[u32]),
    ) -> Result<()> {
        match self {
            Self::Device(mesh) => mesh.stream(mode, rays, chunk, take),
            #[cfg(feature = "host-kernel")]
            Self::Host { nodes, triangles } => {
                on_host(nodes, triangles, mode, rays, chunk, take);
                Ok(())
            }
        }
    }
}

/// [`CudaMesh::stream`] on the host: the kernel's host build over the chunk's rays, on every
/// core.
#[cfg(feature = "host-kernel")]
fn on_host(
    nodes: &[GpuNode],
    triangles: &[GpuTriangle],
    mode: Mode,
    rays: &dyn RaySource,
    chunk: usize,
    mut take: impl FnMut(usize, &[[u32; 4]], &[u32]),
) {
    const TASK: usize = 1024;
    let count = rays.len();
    for start in (0..count).step_by(chunk.max(1)) {
        let converted: Vec<GpuRay> = (start..count.min(start + chunk))
            .into_par_iter()
            .map(|i| GpuRay::of(&rays.ray(i)))
            .collect();
        let n = converted.len();
        match mode {
            Mode::Closest => {
                let mut hits = vec![[0u32; 4]; n];
                hits.par_chunks_mut(TASK)
                    .zip(converted.par_chunks(TASK))
                    .for_each(|(hits, rays)| driver::closest_on_host(nodes, triangles, rays, hits));
                take(start, &hits, &[]);
            }
            Mode::Any => {
                let mut counts = vec![0u32; n];
                counts
                    .par_chunks_mut(TASK)
                    .zip(converted.par_chunks(TASK))
                    .for_each(|(counts, rays)| driver::any_on_host(nodes, triangles, rays, counts));
                take(start, &[], &counts);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    /// The embedded PTX was made from this `kernel.cu`: remake it with `build_ptx.sh` after
    /// changing the kernel.
    #[test]
    fn the_embedded_ptx_is_made_from_the_kernel_source() {
        let source = include_bytes!("kernel.cu");
        let digest: String = Sha256::digest(source)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        let named = super::PTX
            .lines()
            .nth(1)
            .and_then(|line| line.strip_prefix("// kernel.cu sha256 "));
        assert_eq!(
            named,
            Some(digest.as_str()),
            "kernel.ptx is stale: run crates/gpu/src/cuda/build_ptx.sh"
        );
        assert!(super::PTX.contains(".entry meshcast_closest("));
        assert!(super::PTX.contains(".entry meshcast_any("));
    }
}
