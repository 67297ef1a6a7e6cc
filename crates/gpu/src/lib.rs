//! meshcast on the GPU: the CPU engine's exact ray queries, traced by WGSL compute shaders
//! through [wgpu] on Vulkan, Metal, DX12 or OpenGL (NVIDIA, AMD, Intel and Apple GPUs, and
//! software drivers such as Mesa's llvmpipe), and with the `cuda` feature by the same
//! traversal in CUDA on NVIDIA GPUs (see "Back ends").
//!
//! Open a [`Gpu`], upload a [`Mesh`](meshcast_mesh::Mesh) to it ([`Gpu::upload`]: the CPU's
//! tree is compressed and renumbered, nothing is rebuilt) and ask the [`GpuMesh`] the batch
//! queries the CPU answers: [`GpuMesh::cast_batch`], [`GpuMesh::occluded_batch`],
//! [`GpuMesh::count_batch`], [`GpuMesh::cast_all_batch`], and [`GpuMesh::cast_camera`],
//! whose rays are made on the GPU. Each batch query has a `*_with` form that takes the
//! CPU's [`QueryOptions`](meshcast_mesh::QueryOptions) (contacts, culling, a distance limit,
//! `max_hits`, a filter) and answers as the CPU does with them: the shader applies what is
//! cheap there (the range, culling, `max_hits`), the CPU's finish the rest.
//!
//! ```no_run
//! use meshcast_gpu::Gpu;
//! use meshcast_mesh::Mesh;
//! use meshcast_primitives::Ray;
//!
//! let mesh = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
//! let gpu = Gpu::new()?;
//! let on_gpu = gpu.upload(mesh)?;
//! let rays = [Ray::new(glam::Vec3::new(0.25, 0.25, 1.0), glam::Vec3::NEG_Z)];
//! let hits = on_gpu.cast_batch(&rays)?;
//! assert_eq!(hits[0].map(|h| h.triangle), Some(0));
//! # Ok::<(), meshcast_gpu::Error>(())
//! ```
//!
//! # Exactness
//! Every answer is the CPU engine's for the same ray: the same triangle or miss, the same
//! crossing count, the same hit list. The shader walks the CPU's tree and runs the CPU's
//! watertight test (Woop, Benthin, Wald 2013) in the same order of operations, but WGSL
//! promises less than Rust: a driver may fuse a product and a sum into one rounding,
//! division and square root may be off by 2.5 units in the last place, and subnormals may
//! be flushed to zero. A sign taken near zero could then differ from the CPU's, and a ray
//! through a shared edge could be counted twice or slip through. So the shader never decides
//! what its rounding leaves open, in the manner of Shewchuk's static filters (1997):
//!
//! - **Edge functions.** The CPU takes the sign each edge function has in exact arithmetic
//!   on the input's coordinates (its rounded value where that is far enough from zero, an
//!   exact predicate otherwise; see `meshcast_primitives::watertight`). With `M` the
//!   magnitudes each sheared coordinate is computed from (`|a_x| + |s_x a_z|`), the shader's
//!   rounding puts its edge function within `8 u` of its terms (`M_cx |b_y| + |c_x| M_by +
//!   |c_x b_y|` and the same for the other product) of the CPU's rounded one, and the CPU's
//!   rounding puts that within `6.001 u` of them of the exact value, `u = 2^-24`; the shader
//!   takes `19 u` of them, `2^-38` of the magnitudes' products and `2^-90` of the magnitudes
//!   (for flushed subnormals). Only a sign beyond the bound is taken, and it is the exact
//!   one: a triangle is a sure miss when two edge functions are surely of opposite signs, a
//!   sure hit when all three are surely of one sign.
//! - **Distances.** From the same bounds, each sure hit's `t` comes with a bound on how far
//!   the CPU's `t` can lie from it. A hit whose interval straddles the ray's `t_min` or
//!   `t_max`, or two hits whose intervals overlap (their order could differ), are open.
//! - **Boxes.** The slab test is widened by `64 u` relative, and by `64 u` of the slab
//!   distances along the dominant axis (which bound how far a triangle's rounded `t` can
//!   stray from its exact one), so that no box holding a triangle the CPU could report is
//!   culled. The boxes are the compressed nodes' (see "Layout"), which contain the CPU's
//!   under any rounding, and every step of the test is monotone in the planes, so a box the
//!   CPU's planes would keep is kept.
//! - **Ranges.** Coordinates are traced on the GPU when zero or of a magnitude within
//!   `[2^-100, 2^28]`, and rays when the direction's largest component lies within
//!   `[2^-30, 2^30]`: then nothing overflows and no subnormal is met where it matters. A ray
//!   outside them is open; a mesh outside them is answered on the CPU whole.
//!
//! A closest hit is open only if something undecided could come before the hit found; an
//! any-hit query is decided by any sure hit; counts and lists are open if anything on the
//! ray is undecided (or, for lists, if the ray has more hits than the capacity). The open
//! rays, typically a few in ten thousand, are answered by the CPU engine, in parallel, so
//! no ray slips through and no crossing is counted twice. [`GpuMesh::stats`] says how many.
//!
//! `t`, `u` and `v` are the shader's. Where the driver neither fuses nor rounds division
//! differently (llvmpipe does neither) they equal the CPU's bit for bit; otherwise they are
//! usually within a few units in the last place, and always within [`T_ERROR_BOUND`]
//! (2^-12) of the CPU's `t`, relative to it, and [`UV_ERROR_BOUND`] (2^-8) of its `u` and
//! `v`: each hit's bounds follow from its edge functions' and determinant's, and a hit that
//! cannot promise them (a grazing one, whose determinant is barely above its error) is left
//! open. On the bunny that leaves 34 rays in 20,000 random ones to the CPU (15 when the
//! edge bound covered only the shader's rounding against the CPU's, before the CPU's signs
//! were exact on the input's coordinates; 6 without the distance bounds).
//!
//! The shader assumes that a float that overflows becomes an infinity, as on Vulkan, DX12
//! and OpenGL; WGSL allows an implementation to assume no infinities arise.
//!
//! # Layout
//! The tree is the CPU's eight-wide tree (Ylitie, Karras, Laine 2017 collapse), the same
//! nodes and leaves, compressed as Ylitie et al. compress it: 80 bytes per node, each
//! lane's box as eight-bit steps on a per-node grid (an origin and a power-of-two step per
//! axis), rounded outwards so that the decoded box contains the exact one whatever the
//! GPU's rounding (fused, flushed, towards zero: the proof is in `quantization.rs`). The
//! nodes are renumbered so that each node's child nodes follow one another (a base index
//! and a rank) and its leaves' triangles too (a base and a count per lane), and each
//! triangle takes its three corners, 36 bytes, without the CPU's padding slots or any
//! triangle number: the host maps the GPU's order back to the mesh's. That is 38.4 bytes
//! per triangle on the bunny (69,451 triangles), 38.5 on the ogre (124,008) and 38.4 on
//! the bunny subdivided twice (1.1 million), against 57.5, 58.4 and 57.1 with the CPU's
//! nodes and slots copied as they are (256 bytes per node, 48 per slot). A leaf of the
//! GPU's holds at most 255 triangles (the default builds make at most 8); a mesh with a
//! larger one is answered on the CPU whole. One invocation traces one ray with a stack
//! (32 entries by default), nearest child on top for closest hits, or with
//! [`ChildOrder::Octant`] the children in the order of the ray's octant (a full stack
//! leaves the ray open).
//!
//! # Options
//! How the kernels are built and rays streamed to them is [`GpuOptions`], read from the
//! environment when a [`Gpu`] opens (`MESHCAST_GPU_STACK`, `MESHCAST_GPU_WORKGROUP`,
//! `MESHCAST_GPU_ORDER`, `MESHCAST_GPU_LEAF`, `MESHCAST_GPU_CHECKS`, `MESHCAST_GPU_CHUNK`,
//! `MESHCAST_GPU_ROBUST`: `0` opens a Vulkan device without the driver's bounds checks on
//! buffers, ignored elsewhere) or given to [`Gpu::with_options`], so that
//! one binary can measure each choice on the GPU that matters; every choice gives the same
//! answers. Each query kind has a pipeline of its own, specialised from one shader: only
//! the every-hit kernel holds a hit list. Rays from the host stream through buffers the
//! [`GpuMesh`] keeps between calls, in chunks: the CPU converts the next chunk's rays on
//! every core and takes the last chunk's answers while the GPU traces this one. Any
//! [`RaySource`] can be asked, so the Python package hands numpy rows over without a
//! `Vec<Ray>`.
//!
//! # Back ends
//! Everything above runs through wgpu on any GPU. Built with the `cuda` feature, closest-hit
//! and any-hit batches take a shorter path on NVIDIA GPUs: the same traversal written line
//! for line in CUDA C++ (`src/cuda/kernel.cu`, the same bounds and constants, the same bytes,
//! the same finish on the CPU), compiled ahead of time by NVIDIA's compiler (machine code for
//! Turing to Hopper, PTX for later GPUs) and loaded through the NVIDIA driver at run time, so
//! that neither building nor running needs a CUDA toolkit, and a machine without the driver
//! simply uses wgpu. [`GpuOptions::backend`] (`MESHCAST_GPU_BACKEND=auto|wgpu|cuda`) chooses,
//! CUDA wherever it opens by default (see [`Backend`] for the measurements);
//! [`Gpu::cuda_device`] says which device answered, and with which build. The other queries
//! (counts, hit lists, cameras made on the GPU, back-face culling) run through wgpu either
//! way. The tests hold the kernel's very source to the CPU on machines with no NVIDIA GPU:
//! the `host-kernel` feature builds it as host C++ ([`Backend::CudaHost`]), which answers as
//! the CPU does, bit for bit, and leaves the WGSL kernel's hit slots on llvmpipe, bit for
//! bit. Where a query only wgpu answers comes, the mesh's nodes and triangles are held twice,
//! once per back end ([`GpuMesh::gpu_bytes`]).
//!
//! The triangles live in one storage buffer, which must fit the adapter's largest binding
//! (`max_storage_buffer_binding_size`): 128 MiB on llvmpipe, about 3.7 million triangles at
//! 36 bytes per triangle; discrete GPUs allow gigabytes. [`Gpu::upload`] refuses a larger
//! mesh with [`Error::Gpu`].

mod context;
// The CUDA back end, or its empty place without the `cuda` feature.
#[cfg_attr(not(feature = "cuda"), path = "cuda_absent.rs")]
mod cuda;
mod error;
mod gpu_mesh;
mod kernel;
mod layout;
mod quantization;
mod raw_device;
mod rays;
mod stream;
mod unchecked;

pub use context::{AdapterInfo, Gpu, ADAPTER_VARIABLE};
#[cfg(feature = "cuda")]
pub use cuda::{DeviceBuffer, DeviceCast, DeviceRays, DeviceRows, KERNEL_VARIABLE, PTX_VARIABLE};
pub use error::{Error, Result};
pub use gpu_mesh::{
    AnswerSink, GpuMesh, GpuQuery, GpuStats, KernelInputs, ResidentRays, DEFAULT_HIT_CAPACITY,
};
pub use kernel::{
    profiling, Backend, ChildOrder, GpuOptions, BACKEND_VARIABLE, CHECKS_VARIABLE, CHUNK_VARIABLE,
    LEAF_VARIABLE, MAX_HIT_CAPACITY, ORDER_VARIABLE, PROFILE_VARIABLE, ROBUST_VARIABLE,
    STACK_VARIABLE, WORKGROUP_VARIABLE,
};
pub use layout::{T_ERROR_BOUND, UV_ERROR_BOUND};
pub use rays::RaySource;
