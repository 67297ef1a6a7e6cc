//! The CUDA back end (feature `cuda`): closest-hit and any-hit batches traced by
//! `kernel.cu`, the WGSL kernel's traversal written line for line in CUDA C++, compiled by
//! NVIDIA's compiler ahead of time and loaded through the NVIDIA driver, with no CUDA toolkit
//! to build or run (the driver is loaded at run time; without one the back end is simply
//! absent).
//!
//! Why: the same traversal over the same bytes ran 1.5 times faster on closest hits and 1.65
//! to 2.4 times on any hit compiled by nvcc than through WGSL, naga's SPIR-V and the Vulkan
//! driver (BENCHMARKS.md, "Where the GPU's time goes"), and nvcc's code ran 1.6 times as fast
//! as clang's of the same source on an H200. So the queries the GPU answers most take the
//! shorter path where an NVIDIA driver is present, and wgpu stays for every other GPU, for
//! the other queries (counts, hit lists, camera rays made on the GPU, culling) and for CI.
//!
//! What is embedded (`crates/gpu/generated/`, made by `build_kernels.py` with NVRTC 12.8, nvcc's front end
//! and optimiser as a library): machine code for Turing to Hopper (sm_75, sm_80, sm_86, sm_89,
//! sm_90), which every CUDA 12 or later driver (R525 on) loads as it is, and PTX for compute
//! capability 9.0, which the driver compiles for later GPUs (their drivers, R570 on, read PTX
//! ISA 8.7). A device takes the machine code of the highest architecture of its own major
//! version not above its own, as a fat binary would; [`KERNEL_VARIABLE`] and
//! [`PTX_VARIABLE`] choose otherwise, to measure.
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

use std::time::Duration;
#[cfg(feature = "host-kernel")]
use std::time::Instant;

use meshcast_primitives::Ray;

use crate::error::{Error, Result};
use crate::kernel::{Backend, BACKEND_VARIABLE};
#[cfg(feature = "host-kernel")]
use crate::layout::{GpuNode, GpuTriangle};
use crate::layout::{GpuRay, Layout};
use crate::rays::RaySource;

mod device_rays;
mod driver;

pub(crate) use device_rays::{DeviceAnswers, Trace};
pub use device_rays::{DeviceBuffer, DeviceCast, DeviceRays, DeviceRows};

/// The machine code of `kernel.cu` per architecture (`build_kernels.py`): compute capability
/// (major, minor) and the cubin.
const CUBINS: [((u32, u32), &[u8]); 5] = [
    ((7, 5), include_bytes!("../../generated/sm_75.cubin")),
    ((8, 0), include_bytes!("../../generated/sm_80.cubin")),
    ((8, 6), include_bytes!("../../generated/sm_86.cubin")),
    ((8, 9), include_bytes!("../../generated/sm_89.cubin")),
    ((9, 0), include_bytes!("../../generated/sm_90.cubin")),
];

/// The PTX of `kernel.cu` for compute capability 9.0 and later (`build_kernels.py`).
const PTX: &str = include_str!("../../generated/compute_90.ptx");

/// The compute capability the embedded PTX needs at least.
const PTX_CAPABILITY: (u32, u32) = (9, 0);

/// Names a file of PTX to load instead of the embedded kernels (another compiler's, say), so
/// that one binary can measure both.
pub const PTX_VARIABLE: &str = "MESHCAST_CUDA_PTX";

/// The environment variable that chooses which embedded build of the kernel a device loads:
/// `sass` (the default: the machine code for its architecture where one is embedded, else
/// the PTX) or `ptx` (the PTX, compiled by the driver at load time, where the device can run
/// it), so that one binary can measure both on the GPU that matters.
pub const KERNEL_VARIABLE: &str = "MESHCAST_CUDA_KERNEL";

/// A build of the kernel for the driver to load.
pub(crate) enum Module {
    /// Machine code for the architecture `sm_{0}{1}`.
    Cubin((u32, u32), &'static [u8]),
    /// PTX text, embedded or from [`PTX_VARIABLE`]'s file.
    Ptx(String),
}

impl Module {
    /// What this build is, for [`Gpu::cuda_device`](crate::Gpu::cuda_device).
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Cubin((major, minor), _) => format!("sm_{major}{minor} machine code"),
            Self::Ptx(_) => "PTX compiled by the driver".to_owned(),
        }
    }
}

/// The builds a device of compute capability `capability` may load, in the order to try:
/// as [`KERNEL_VARIABLE`] and [`PTX_VARIABLE`] say, by default the cubin of the highest
/// architecture of the same major version not above the device's (a cubin runs on later
/// minor versions of its major one), then the PTX where the device can run it.
///
/// # Errors
/// [`Error::NoGpu`] if a variable is set to something this cannot use.
pub(crate) fn modules_for(capability: (u32, u32)) -> Result<Vec<Module>> {
    if let Some(path) = std::env::var_os(PTX_VARIABLE) {
        return std::fs::read_to_string(&path)
            .map(|ptx| vec![Module::Ptx(ptx)])
            .map_err(|error| Error::NoGpu {
                reason: format!("{PTX_VARIABLE}={}: {error}", path.to_string_lossy()),
            });
    }
    let sass = match std::env::var(KERNEL_VARIABLE).as_deref().map(str::trim) {
        Ok("sass" | "") | Err(_) => true,
        Ok("ptx") => false,
        Ok(other) => {
            return Err(Error::NoGpu {
                reason: format!("{KERNEL_VARIABLE}={other}: `sass` or `ptx`"),
            })
        }
    };
    let cubin = CUBINS
        .iter()
        .rev()
        .find(|((major, minor), _)| *major == capability.0 && *minor <= capability.1)
        .filter(|_| sass)
        .map(|&(arch, bytes)| Module::Cubin(arch, bytes));
    let ptx = (capability >= PTX_CAPABILITY).then(|| Module::Ptx(PTX.to_owned()));
    Ok(cubin.into_iter().chain(ptx).collect())
}

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
        match backend {
            Backend::Wgpu => Ok(None),
            Backend::Auto => Ok(driver::Device::open().ok().map(Self::Device)),
            Backend::Cuda => driver::Device::open()
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

impl CudaMesh {
    /// `rays` kept where the kernel reads them, for [`CudaMesh::time`].
    pub(crate) fn resident(&self, rays: &[Ray]) -> Result<CudaRays> {
        match self {
            Self::Device(mesh) => {
                let rays: Vec<GpuRay> = rays.iter().map(GpuRay::of).collect();
                mesh.resident(&rays).map(CudaRays::Device)
            }
            #[cfg(feature = "host-kernel")]
            Self::Host { .. } => Ok(CudaRays::Host(rays.to_vec())),
        }
    }

    /// The fastest of `repeats` runs of the kernel of `mode` over resident rays, the kernel
    /// alone: timed by CUDA events on the device, by the clock on the host.
    pub(crate) fn time(&self, rays: &CudaRays, mode: Mode, repeats: usize) -> Result<Duration> {
        match (self, rays) {
            (Self::Device(mesh), CudaRays::Device(rays)) => mesh.time(rays, mode, repeats),
            #[cfg(feature = "host-kernel")]
            (Self::Host { nodes, triangles }, CudaRays::Host(rays)) => {
                let mut best = Duration::MAX;
                for _ in 0..repeats.max(1) {
                    let start = Instant::now();
                    on_host(
                        nodes,
                        triangles,
                        mode,
                        rays,
                        rays.len().max(1),
                        |_, _, _| {},
                    );
                    best = best.min(start.elapsed());
                }
                Ok(best)
            }
            #[cfg(feature = "host-kernel")]
            _ => unreachable!("rays are made resident by the mesh that times them"),
        }
    }
}

/// Rays kept where the CUDA kernel reads them ([`CudaMesh::resident`]).
pub(crate) enum CudaRays {
    Device(driver::DeviceRays),
    #[cfg(feature = "host-kernel")]
    Host(Vec<Ray>),
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

    use super::{Module, CUBINS, PTX};

    fn sha256(bytes: &[u8]) -> String {
        Sha256::digest(bytes)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }

    /// The embedded kernels were made from this `kernel.cu` and are the files `MANIFEST`
    /// names: remake them with `build_kernels.py` after changing the kernel.
    #[test]
    fn the_embedded_kernels_are_made_from_the_kernel_source() {
        let manifest = include_str!("../../generated/MANIFEST");
        let named = |what: &str| {
            manifest
                .lines()
                .find_map(|line| line.strip_prefix(what)?.split_whitespace().last())
        };
        for (file, source) in [
            ("kernel.cu", &include_bytes!("kernel.cu")[..]),
            ("shared.h", include_bytes!("shared.h")),
            ("device_rays.cuh", include_bytes!("device_rays.cuh")),
        ] {
            assert_eq!(
                named(&format!("source {file} ")),
                Some(sha256(source).as_str()),
                "the embedded kernels are stale: run crates/gpu/src/cuda/build_kernels.py"
            );
        }
        for ((major, minor), cubin) in CUBINS {
            let arch = format!("sm_{major}{minor}");
            assert_eq!(
                named(&format!("{arch} ")),
                Some(sha256(cubin).as_str()),
                "{arch}"
            );
        }
        assert_eq!(named("compute_90 "), Some(sha256(PTX.as_bytes()).as_str()));
    }

    /// `shared.h` as `shader/shared.wgsl` makes it: each `const` a `#define` of the same
    /// literal (`f` for an `f32`), each comment and blank line kept.
    fn cuda_header(shared: &str) -> String {
        let mut header = String::from(
            "// Made from shader/shared.wgsl (MESHCAST_BLESS=1 cargo test -p meshcast-gpu \
             cuda::tests): edit that\n// file, not this one.\n",
        );
        for line in shared.lines() {
            let translated = match line.strip_prefix("const ") {
                None => line.to_owned(),
                Some(declaration) => {
                    let (name, rest) = declaration.split_once(": ").expect("`const NAME: TYPE`");
                    let (ty, rest) = rest.split_once(" = ").expect("`= VALUE`");
                    let (value, comment) = rest.split_once(';').expect("`;`");
                    let suffix = match ty {
                        "u32" => "",
                        "f32" => "f",
                        other => panic!("{name}: a shared constant of type {other}"),
                    };
                    format!("#define {name} {value}{suffix}{comment}")
                }
            };
            header.push_str(&translated);
            header.push('\n');
        }
        header
    }

    /// The CUDA kernel's constants are the WGSL kernel's: `shared.h` is made from
    /// `shader/shared.wgsl` (`MESHCAST_BLESS=1` rewrites it; then remake the kernels).
    #[test]
    fn the_cuda_header_is_made_from_the_shared_constants() {
        let made = cuda_header(include_str!("../shader/shared.wgsl"));
        if std::env::var_os("MESHCAST_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cuda/shared.h");
            std::fs::write(path, &made).expect("write shared.h");
        }
        assert_eq!(
            include_str!("shared.h"),
            made,
            "shared.h is stale: MESHCAST_BLESS=1 cargo test -p meshcast-gpu cuda::tests, \
             then crates/gpu/src/cuda/build_kernels.py"
        );
        assert!(made.contains("#define EDGE_BOUND 1.1324882507324219e-6f // 19 U\n"));
        assert!(made.contains("#define MODE_ANY 1u\n"));
    }

    /// The kernel's entry points (`driver::Kernels`).
    const ENTRIES: [&str; 7] = [
        "meshcast_closest",
        "meshcast_any",
        "meshcast_pack",
        "meshcast_lay_out_closest",
        "meshcast_lay_out_any",
        "meshcast_put_closest",
        "meshcast_put_any",
    ];

    /// Each cubin is CUDA machine code (an ELF file for machine 190) for the architecture it
    /// is taken for, with both entry points; the PTX is for compute capability 9.0, in an ISA
    /// the drivers it is for read.
    #[test]
    fn each_embedded_kernel_is_for_its_architecture() {
        for ((major, minor), cubin) in CUBINS {
            assert_eq!(&cubin[..4], b"\x7fELF");
            assert_eq!(u16::from_le_bytes([cubin[18], cubin[19]]), 190, "EM_CUDA");
            let flags = u32::from_le_bytes(cubin[48..52].try_into().expect("4 bytes"));
            assert_eq!(
                flags & 0xff,
                major * 10 + minor,
                "e_flags of sm_{major}{minor}"
            );
            for entry in ENTRIES {
                let section = format!(".text.{entry}\0");
                assert!(
                    cubin
                        .windows(section.len())
                        .any(|w| w == section.as_bytes()),
                    "sm_{major}{minor}: {entry}"
                );
            }
        }
        assert!(PTX.contains("\n.target sm_90\n"));
        assert!(PTX.contains("\n.version 8.7\n"), "PTX ISA 8.7 (NVRTC 12.8)");
        for entry in ENTRIES {
            assert!(PTX.contains(&format!(".entry {entry}(")), "{entry}");
        }
    }

    /// A device takes the cubin of the highest architecture of its major version not above its
    /// own, then the PTX where it can run it; a device older than every build gets none.
    #[test]
    fn a_device_takes_the_build_of_its_architecture() {
        let chosen = |capability| -> Vec<String> {
            super::modules_for(capability)
                .expect("no variable set")
                .iter()
                .map(Module::describe)
                .collect()
        };
        let ptx = "PTX compiled by the driver";
        assert_eq!(chosen((9, 0)), ["sm_90 machine code", ptx]);
        assert_eq!(chosen((8, 7)), ["sm_86 machine code"]);
        assert_eq!(chosen((8, 9)), ["sm_89 machine code"]);
        assert_eq!(chosen((7, 5)), ["sm_75 machine code"]);
        assert_eq!(chosen((10, 0)), [ptx]);
        assert_eq!(chosen((12, 0)), [ptx]);
        assert!(chosen((7, 0)).is_empty());
        assert!(chosen((6, 1)).is_empty());
    }
}
