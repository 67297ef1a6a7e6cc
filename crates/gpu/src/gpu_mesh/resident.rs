//! Rays kept on the GPU ([`ResidentRays`]) and the kernel timed over them alone
//! ([`GpuMesh::time`]); the kernel's inputs as bytes ([`KernelInputs`]), for timing the same
//! traversal compiled another way.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use meshcast_mesh::Mesh;
use meshcast_primitives::{Camera, Ray};
use wgpu::util::DeviceExt;

use super::queries::camera_params;
use super::upload::traced;
use super::{GpuMesh, GpuQuery};
use crate::context::{checked, wait, Shared};
use crate::cuda::{CudaRays, Mode as CudaMode};
use crate::kernel::{ChildOrder, GpuOptions};
use crate::layout::{self, GpuRay, Params};
use crate::stream::{bind_group, grid, trace_pass};

/// Rays kept on the GPU, or a camera whose rays the GPU makes, with buffers for the answers:
/// for timing the kernel alone ([`GpuMesh::time`]). Rays of a closest-hit or any-hit query
/// are kept where both back ends read them, wgpu's buffers and, where it is open, the CUDA
/// device's.
pub struct ResidentRays {
    count: u32,
    rays: wgpu::Buffer,
    camera: Option<Params>,
    hits: wgpu::Buffer,
    counts: wgpu::Buffer,
    cuda: Option<CudaRays>,
}

impl ResidentRays {
    /// The number of rays.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// What the kernel reads for one mesh, byte for byte as the GPU holds it: for running the same
/// traversal through another compiler on the same data (`benches/gpu_cuda`, the CUDA
/// diagnosis in BENCHMARKS.md).
#[derive(Clone, Debug)]
pub struct KernelInputs {
    /// The compressed nodes (`shader/inputs.wgsl`'s `Node`, 80 bytes each), the root first.
    pub nodes: Vec<u8>,
    /// Nine `f32` per triangle, its corners, in the leaves' order.
    pub triangles: Vec<u8>,
    /// For each of the kernel's triangles, the mesh's triangle it is.
    pub triangle_ids: Vec<u32>,
}

impl KernelInputs {
    /// The kernel's inputs for `mesh` on a GPU opened with `options` (only the tree and the
    /// child order matter), laid out on the CPU: no adapter is needed.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the layout fails its checks, as [`Gpu::upload`](crate::Gpu::upload)
    /// would have.
    pub fn of(mesh: &Arc<Mesh>, options: &GpuOptions) -> Result<Self> {
        Self::laid_out(&traced(mesh, options), options.order)
    }

    /// The inputs of the tree of `traced`, the mesh the GPU walks.
    fn laid_out(traced: &Mesh, order: ChildOrder) -> Result<Self> {
        let layout = layout::of(traced, order)?;
        Ok(Self {
            nodes: bytemuck::cast_slice(&layout.nodes).to_vec(),
            triangles: bytemuck::cast_slice(&layout.triangles).to_vec(),
            triangle_ids: layout.triangle_ids,
        })
    }

    /// `rays` as the kernel reads them (`shader/inputs.wgsl`'s `RayIn`: origin and `t_min`,
    /// direction and `t_max`, 32 bytes each).
    pub fn rays(rays: &[Ray]) -> Vec<u8> {
        let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::of).collect();
        bytemuck::cast_slice(&gpu_rays).to_vec()
    }
}

impl GpuMesh {
    /// The kernel's inputs for this mesh (its GPU tree laid out again on the CPU).
    ///
    /// # Errors
    /// [`Error::Gpu`] if the layout fails its checks, as [`Gpu::upload`](crate::Gpu::upload)
    /// would have.
    pub fn kernel_inputs(&self) -> Result<KernelInputs> {
        KernelInputs::laid_out(&self.traced, self.gpu.shared.options.order)
    }

    /// Copies `rays` to the GPU to stay there, with buffers for the answers of `query`.
    ///
    /// # Errors
    /// [`Error::Gpu`] if they do not fit in one dispatch's buffers.
    pub fn resident_rays(&self, rays: &[Ray], query: GpuQuery) -> Result<ResidentRays> {
        let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::of).collect();
        let buffer = self.gpu.storage("rays", bytemuck::cast_slice(&gpu_rays))?;
        let mut resident = self.resident(rays.len(), buffer, None, query)?;
        if let (Some(cuda), Some(_)) = (&self.cuda, cuda_mode(query)) {
            resident.cuda = Some(cuda.resident(rays)?);
        }
        Ok(resident)
    }

    /// A camera whose rays the GPU makes, with buffers for the closest hits of a
    /// `width` x `height` image.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the image does not fit in one dispatch's buffers.
    pub fn resident_camera(
        &self,
        camera: &Camera,
        width: u32,
        height: u32,
    ) -> Result<ResidentRays> {
        let dummy = self.gpu.storage("rays", &[])?;
        let params = camera_params(camera, width, height);
        self.resident(
            width as usize * height as usize,
            dummy,
            Some(params),
            GpuQuery::Closest,
        )
    }

    fn resident(
        &self,
        count: usize,
        rays: wgpu::Buffer,
        camera: Option<Params>,
        query: GpuQuery,
    ) -> Result<ResidentRays> {
        let count = u32::try_from(count).map_err(|_| too_many(count))?;
        let device = &self.gpu.shared.device;
        let limit = device.limits().max_storage_buffer_binding_size;
        let hit_bytes = (u64::from(count) * query.hit_slots(self.hit_capacity) * 16).max(16);
        let count_bytes = (u64::from(count) * 4).max(16);
        if hit_bytes.max(count_bytes) > limit {
            return Err(too_many(count as usize));
        }
        let buffer = |label, size| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        };
        let (hits, counts) = checked(device, "dispatch", || {
            (buffer("hits", hit_bytes), buffer("counts", count_bytes))
        })?;
        Ok(ResidentRays {
            count,
            rays,
            camera,
            hits,
            counts,
            cuda: None,
        })
    }

    /// Runs `query` over resident rays `repeats` times through the back end that answers it
    /// (the CUDA kernel for closest and any hits where it is open, timed by CUDA events; else
    /// wgpu's, as [`GpuMesh::time_wgpu`]) and returns the fastest run: the kernel alone, with
    /// nothing copied.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn time(&self, rays: &ResidentRays, query: GpuQuery, repeats: usize) -> Result<Duration> {
        match (&self.cuda, &rays.cuda, cuda_mode(query)) {
            (Some(cuda), Some(cuda_rays), Some(mode)) => cuda.time(cuda_rays, mode, repeats),
            _ => self.time_wgpu(rays, query, repeats),
        }
    }

    /// Runs `query` over resident rays `repeats` times through wgpu's kernel, whatever the
    /// back end, and returns the fastest run: kernel time, from submission to completion,
    /// with nothing copied back.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn time_wgpu(
        &self,
        rays: &ResidentRays,
        query: GpuQuery,
        repeats: usize,
    ) -> Result<Duration> {
        let shared: &Shared = &self.gpu.shared;
        let pipeline = shared.pipeline(query.mode())?;
        let (row_groups, rows, row) = grid(rays.count, shared.options.workgroup);
        let params = Params {
            ray_count: rays.count,
            row,
            cap: self.hit_capacity,
            ..rays.camera.unwrap_or_default()
        };
        let copy = self.wgpu_copy()?;
        let (bind_group, _params) = checked(&shared.device, "dispatch", || {
            let uniform = shared
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("params"),
                    contents: bytemuck::bytes_of(&params),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let group = bind_group(
                shared,
                (&copy.nodes, &copy.triangles),
                &uniform,
                &rays.rays,
                (&rays.hits, &rays.counts),
            );
            (group, uniform)
        })?;
        let mut best = Duration::MAX;
        for _ in 0..repeats.max(1) {
            let start = Instant::now();
            checked(&shared.device, "dispatch", || {
                let mut encoder = shared.device.create_command_encoder(&Default::default());
                trace_pass(&mut encoder, &pipeline, &bind_group, (row_groups, rows));
                shared.queue.submit([encoder.finish()]);
            })?;
            wait(&shared.device)?;
            best = best.min(start.elapsed());
        }
        Ok(best)
    }
}

/// The CUDA kernel's mode for `query`, if it answers it.
fn cuda_mode(query: GpuQuery) -> Option<CudaMode> {
    match query {
        GpuQuery::Closest => Some(CudaMode::Closest),
        GpuQuery::Any => Some(CudaMode::Any),
        _ => None,
    }
}

fn too_many(count: usize) -> Error {
    Error::Gpu {
        operation: "dispatch",
        message: format!("{count} rays do not fit in one dispatch's buffers"),
    }
}
