//! [`GpuMesh`]: a mesh on the GPU and its ray queries, each ray the shader leaves open
//! finished on the CPU. The mesh and what it answers about itself are here; copying it to the
//! GPU is in `upload.rs`, the queries in `queries.rs`, running the shader and finishing open
//! rays in `launch.rs`, where the answers go in `sink.rs`, rays kept on the GPU for timing in
//! `resident.rs`, and rays that stay on the device, answered there, in `device.rs`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use meshcast_mesh::Mesh;

use crate::context::Gpu;
use crate::cuda::CudaMesh;
use crate::kernel::MAX_HIT_CAPACITY;
use crate::stream::{Shape, Workspace};

#[cfg(feature = "cuda")]
mod device;
mod launch;
mod queries;
mod resident;
mod sink;
mod upload;

pub use resident::{KernelInputs, ResidentRays};
pub use sink::AnswerSink;

/// Hit slots per ray that [`GpuMesh::cast_all_batch`] keeps on the GPU unless
/// [`GpuMesh::set_hit_capacity`] says otherwise; a ray with more hits is answered on the CPU.
pub const DEFAULT_HIT_CAPACITY: u32 = 16;

/// The queries the shader answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpuQuery {
    /// The closest hit ([`GpuMesh::cast_batch`]).
    Closest,
    /// Whether anything is hit ([`GpuMesh::occluded_batch`]).
    Any,
    /// How many times the ray crosses the surface ([`GpuMesh::count_batch`]).
    Count,
    /// Every hit ([`GpuMesh::cast_all_batch`]).
    All,
}

impl GpuQuery {
    fn mode(self) -> u32 {
        match self {
            Self::Closest => 0,
            Self::Any => 1,
            Self::Count => 2,
            Self::All => 3,
        }
    }

    /// The kernel and answers of the query, with `cap` slots for every-hit lists.
    fn shape(self, cap: u32) -> Shape {
        Shape {
            mode: self.mode(),
            slots: self.hit_slots(cap),
            counts: self.counts(),
        }
    }

    /// Hit slots per ray in the hits buffer.
    fn hit_slots(self, cap: u32) -> u64 {
        match self {
            Self::Closest => 1,
            Self::Any | Self::Count => 0,
            Self::All => u64::from(cap),
        }
    }

    /// Whether the query writes a count per ray.
    fn counts(self) -> bool {
        self != Self::Closest
    }
}

/// A mesh's nodes and triangles in wgpu's storage buffers.
struct WgpuCopy {
    nodes: wgpu::Buffer,
    triangles: wgpu::Buffer,
}

/// How many rays the GPU answered and how many it left to the CPU, since the mesh was
/// uploaded ([`GpuMesh::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuStats {
    /// Rays asked.
    pub rays: u64,
    /// Rays answered on the CPU: those whose answer the GPU's rounding left open (through or
    /// next to an edge or a vertex, two hits too close to order), those outside the ranges
    /// the shader traces, and every ray of a mesh the shader cannot trace.
    pub finished_on_cpu: u64,
}

/// A mesh on the GPU: its wide tree and triangles in GPU buffers, with the CPU mesh beside
/// them for the rays the GPU leaves open. Made by [`Gpu::upload`].
///
/// Every answer equals the CPU engine's ([`RayQueries`](meshcast_mesh::RayQueries) on the [`Mesh`]) for the same ray:
/// the same triangle or the same miss, the same count, the same hit lists (see the crate's
/// documentation for how, and for `t`, `u`, `v`).
pub struct GpuMesh {
    gpu: Gpu,
    mesh: Arc<Mesh>,
    /// The mesh whose tree the GPU walks: `mesh`, or its triangles in a tree built for the
    /// GPU ([`GpuOptions::leaf`](crate::GpuOptions::leaf)).
    traced: Arc<Mesh>,
    /// The nodes and triangles in wgpu's buffers: made at upload where wgpu answers every
    /// query, and where the CUDA back end is open only when a query it does not answer comes.
    wgpu_copy: OnceLock<WgpuCopy>,
    /// The same nodes and triangles where the CUDA back end reads them, if it is open.
    cuda: Option<CudaMesh>,
    /// The mesh's triangle of each GPU triangle: the shader reports GPU triangles.
    triangle_ids: Vec<u32>,
    /// Whether the shader can trace the mesh at all ([`layout::traceable`](crate::layout::traceable)).
    traceable: bool,
    hit_capacity: u32,
    /// The buffers rays stream through, kept from the first query on.
    workspace: Mutex<Option<Workspace>>,
    rays: AtomicU64,
    finished_on_cpu: AtomicU64,
    /// Each triangle's unit normal, made by the first query of rays on the device that lays
    /// closest hits out (`device.rs`).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    unit_normals: OnceLock<Vec<[f32; 3]>>,
}

impl std::fmt::Debug for GpuMesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuMesh")
            .field("adapter", self.gpu.adapter())
            .field("triangles", &self.mesh.triangle_count())
            .field("gpu_bytes", &self.gpu_bytes())
            .finish()
    }
}

impl GpuMesh {
    /// The CPU mesh the GPU copy was made from.
    pub fn mesh(&self) -> &Arc<Mesh> {
        &self.mesh
    }

    /// The GPU the mesh lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Bytes of GPU memory the mesh takes: 80 per node and 36 per triangle (the bunny's
    /// 69,451 triangles take 38.4 bytes each) for each copy it holds: wgpu's, and where the
    /// CUDA back end is open its own (wgpu's then only once a query only wgpu answers has
    /// been asked: counts, hit lists, cameras, culling).
    pub fn gpu_bytes(&self) -> u64 {
        let wgpu = self
            .wgpu_copy
            .get()
            .map_or(0, |copy| copy.nodes.size() + copy.triangles.size());
        wgpu + self.cuda.as_ref().map_or(0, CudaMesh::bytes)
    }

    /// wgpu's copy of the mesh, made now if the CUDA back end answered every query so far.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the buffers cannot be made.
    fn wgpu_copy(&self) -> crate::error::Result<&WgpuCopy> {
        if let Some(copy) = self.wgpu_copy.get() {
            return Ok(copy);
        }
        let layout = crate::layout::of(&self.traced, self.gpu.shared.options.order)?;
        let copy = self.gpu.buffers_of(&layout)?;
        Ok(self.wgpu_copy.get_or_init(|| copy))
    }

    /// Rays asked and rays finished on the CPU since the upload.
    pub fn stats(&self) -> GpuStats {
        GpuStats {
            rays: self.rays.load(Ordering::Relaxed),
            finished_on_cpu: self.finished_on_cpu.load(Ordering::Relaxed),
        }
    }

    /// Hit slots per ray for [`GpuMesh::cast_all_batch`], clamped to
    /// `1..=`[`MAX_HIT_CAPACITY`]: a ray with more hits is answered on the CPU, so the lists
    /// are complete whatever the capacity; it only bounds the GPU memory the call takes
    /// (16 bytes per slot and ray).
    pub fn set_hit_capacity(&mut self, capacity: u32) {
        self.hit_capacity = capacity.clamp(1, MAX_HIT_CAPACITY);
    }
}
