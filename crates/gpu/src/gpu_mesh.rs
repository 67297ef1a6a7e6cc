//! [`GpuMesh`]: a mesh on the GPU and its ray queries, each ray the shader leaves open
//! finished on the CPU.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::Vec3;
use meshcast_mesh::{Error, HitLists, LeafTest, Mesh, RayQueries, Result};
use meshcast_primitives::{Camera, Hit, Ray};
use rayon::prelude::*;
use wgpu::util::DeviceExt;

use crate::context::{checked, gpu_error, wait, Gpu, Shared};
use crate::kernel::MAX_HIT_CAPACITY;
use crate::layout::{self, GpuRay, Layout, Params, FLAGGED, NO_TRIANGLE};

/// Hit slots per ray that [`GpuMesh::cast_all_batch`] keeps on the GPU unless
/// [`GpuMesh::set_hit_capacity`] says otherwise; a ray with more hits is answered on the CPU.
pub const DEFAULT_HIT_CAPACITY: u32 = 16;

/// The shader's mode that answers no query but hands back the rays it made
/// (`trace.wgsl`'s `MODE_RAYS`), for [`GpuMesh::camera_rays`].
const RAYS_MODE: u32 = 4;

/// The most workgroups along one dimension of a dispatch.
const MAX_GROUPS_PER_ROW: u32 = 65_535;

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
/// Every answer equals the CPU engine's ([`RayQueries`] on the [`Mesh`]) for the same ray:
/// the same triangle or the same miss, the same count, the same hit lists (see the crate's
/// documentation for how, and for `t`, `u`, `v`).
pub struct GpuMesh {
    gpu: Gpu,
    mesh: Arc<Mesh>,
    nodes: wgpu::Buffer,
    triangles: wgpu::Buffer,
    /// The mesh's triangle of each GPU triangle: the shader reports GPU triangles.
    triangle_ids: Vec<u32>,
    /// Whether the shader can trace the mesh at all ([`layout::traceable`]).
    traceable: bool,
    hit_capacity: u32,
    rays: AtomicU64,
    finished_on_cpu: AtomicU64,
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

/// Rays kept on the GPU, or a camera whose rays the GPU makes, with buffers for the answers:
/// for timing the kernel alone ([`GpuMesh::time`]).
pub struct ResidentRays {
    count: u32,
    rays: wgpu::Buffer,
    camera: Option<Params>,
    hits: wgpu::Buffer,
    counts: wgpu::Buffer,
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

impl Gpu {
    /// Copies `mesh` to the GPU: its tree's nodes compressed and renumbered (no rebuild) and
    /// its triangles in their leaves' order.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the mesh uses a leaf test other than [`LeafTest::Watertight`] (the
    /// one the shader runs) or is larger than the adapter's largest buffer.
    pub fn upload(&self, mesh: impl Into<Arc<Mesh>>) -> Result<GpuMesh> {
        let mesh = mesh.into();
        if mesh.leaf_test() != LeafTest::Watertight {
            return Err(Error::Gpu {
                operation: "upload",
                message: format!(
                    "the GPU runs the watertight test; this mesh uses {:?}",
                    mesh.leaf_test()
                ),
            });
        }
        let layout = layout::of(&mesh, self.shared.options.order)?;
        let (nodes, triangles) = self.buffers_of(&layout)?;
        Ok(GpuMesh {
            gpu: self.clone(),
            traceable: layout::traceable(&mesh),
            mesh,
            nodes,
            triangles,
            triangle_ids: layout.triangle_ids,
            hit_capacity: DEFAULT_HIT_CAPACITY,
            rays: AtomicU64::new(0),
            finished_on_cpu: AtomicU64::new(0),
        })
    }

    /// The node and triangle buffers holding `layout`.
    fn buffers_of(&self, layout: &Layout) -> Result<(wgpu::Buffer, wgpu::Buffer)> {
        Ok((
            self.storage("nodes", bytemuck::cast_slice(&layout.nodes))?,
            self.storage("triangles", bytemuck::cast_slice(&layout.triangles))?,
        ))
    }

    /// A read-only storage buffer holding `bytes` (at least 32, one ray, so that empty data
    /// binds).
    fn storage(&self, label: &str, bytes: &[u8]) -> Result<wgpu::Buffer> {
        let shared = &self.shared;
        let limit = shared.device.limits().max_storage_buffer_binding_size;
        if bytes.len() as u64 > limit {
            return Err(Error::Gpu {
                operation: "upload",
                message: format!(
                    "{label} take {} bytes; {} allows {limit} in one buffer",
                    bytes.len(),
                    shared.info.name
                ),
            });
        }
        let mut padded = [0u8; 32];
        let contents = if bytes.len() < padded.len() {
            padded[..bytes.len()].copy_from_slice(bytes);
            &padded[..]
        } else {
            bytes
        };
        checked(&shared.device, "upload", || {
            shared
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                })
        })
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
    /// 69,451 triangles take 38.4 bytes each).
    pub fn gpu_bytes(&self) -> u64 {
        self.nodes.size() + self.triangles.size()
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

    /// Moves the vertices (a deforming mesh): the CPU mesh is refitted (rebuilt only if a
    /// triangle became or stopped being degenerate, as [`Mesh::set_positions`] does) and the
    /// GPU copy replaced, with no tree built on the GPU.
    ///
    /// # Errors
    /// As [`Mesh::set_positions`]; [`Error::Gpu`] if the buffers cannot be made.
    pub fn set_positions(&mut self, positions: &[[f32; 3]]) -> Result<()> {
        Arc::make_mut(&mut self.mesh).set_positions(positions)?;
        let queue = &self.gpu.shared.queue;
        let layout = layout::of(&self.mesh, self.gpu.shared.options.order)?;
        let node_bytes: &[u8] = bytemuck::cast_slice(&layout.nodes);
        let triangle_bytes: &[u8] = bytemuck::cast_slice(&layout.triangles);
        if node_bytes.len() as u64 == self.nodes.size()
            && triangle_bytes.len() as u64 == self.triangles.size()
        {
            // Refitted: the same sizes, written in place.
            queue.write_buffer(&self.nodes, 0, node_bytes);
            queue.write_buffer(&self.triangles, 0, triangle_bytes);
        } else {
            (self.nodes, self.triangles) = self.gpu.buffers_of(&layout)?;
        }
        self.triangle_ids = layout.triangle_ids;
        self.traceable = layout::traceable(&self.mesh);
        Ok(())
    }

    /// The closest hit of each ray, as [`RayQueries::cast_batch`] answers on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn cast_batch(&self, rays: &[Ray]) -> Result<Vec<Option<Hit>>> {
        let (hits, _) = self.launch(GpuQuery::Closest, Source::Rays(rays))?;
        let answers = self.finish(rays.len(), |i| closest(hits[i], &self.triangle_ids));
        Ok(self.complete(answers, |i| self.mesh.cast(&rays[i])))
    }

    /// Whether each ray hits anything, as [`RayQueries::occluded_batch`] answers.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn occluded_batch(&self, rays: &[Ray]) -> Result<Vec<bool>> {
        let (_, counts) = self.launch(GpuQuery::Any, Source::Rays(rays))?;
        let answers = self.finish(rays.len(), |i| match counts[i] {
            0 => Done(false),
            1 => Done(true),
            _ => Open,
        });
        Ok(self.complete(answers, |i| self.mesh.occluded(&rays[i])))
    }

    /// How many times each ray crosses the surface: the length of its
    /// [`RayQueries::cast_all`] list (the tie rule's count, each crossing once, so its parity
    /// tells inside from outside on a closed mesh).
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn count_batch(&self, rays: &[Ray]) -> Result<Vec<u32>> {
        let (_, counts) = self.launch(GpuQuery::Count, Source::Rays(rays))?;
        let answers = self.finish(rays.len(), |i| match counts[i] {
            FLAGGED => Open,
            count => Done(count),
        });
        Ok(self.complete(answers, |i| self.mesh.cast_all(&rays[i]).len() as u32))
    }

    /// Every hit of each ray, in hit order, as [`RayQueries::cast_all_batch`] answers. Up to
    /// [`GpuMesh::set_hit_capacity`] hits per ray are found on the GPU; a ray with more is
    /// answered on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn cast_all_batch(&self, rays: &[Ray]) -> Result<HitLists<Hit>> {
        let cap = self.hit_capacity as usize;
        let (hits, counts) = self.launch(GpuQuery::All, Source::Rays(rays))?;
        let answers = self.finish(rays.len(), |i| match counts[i] {
            FLAGGED => Open,
            count => {
                let slots = &hits[i * cap..i * cap + count as usize];
                let mut list: Vec<Hit> = slots
                    .iter()
                    .map(|&slot| hit(slot, &self.triangle_ids))
                    .collect();
                list.sort_by(Hit::order);
                Done(list)
            }
        });
        Ok(self
            .complete(answers, |i| self.mesh.cast_all(&rays[i]))
            .into_iter()
            .collect())
    }

    /// The closest hit through the centre of every pixel of a `width` x `height` image, row
    /// by row from the top-left, with the rays made on the GPU (they never cross the bus).
    ///
    /// The GPU makes each ray as [`Camera::ray_through_pixel`] does, but its division and
    /// square root need not round as the CPU's do, so a direction may differ from the CPU's
    /// in its last bits. Each answer is exact for the ray the GPU made: the one the CPU
    /// engine gives for that ray.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn cast_camera(
        &self,
        camera: &Camera,
        width: u32,
        height: u32,
    ) -> Result<Vec<Option<Hit>>> {
        let pixels = width as usize * height as usize;
        let params = camera_params(camera, width, height);
        let (hits, _) = self.launch(GpuQuery::Closest, Source::Camera(params, pixels))?;
        let answers = self.finish(pixels, |i| closest(hits[i], &self.triangle_ids));
        Ok(self.complete(answers, |i| {
            // A flagged pixel carries the direction the GPU made.
            let [x, y, z, _] = hits[i];
            let dir = Vec3::new(f32::from_bits(x), f32::from_bits(y), f32::from_bits(z));
            let ray = if self.traceable {
                Ray::new(camera.eye, dir)
            } else {
                camera.ray_through_pixel(i as u32 % width, i as u32 / width, width, height)
            };
            self.mesh.cast(&ray)
        }))
    }

    /// The rays the GPU makes for [`GpuMesh::cast_camera`], for checking its answers
    /// against the CPU engine ray by ray.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    #[doc(hidden)]
    pub fn camera_rays(&self, camera: &Camera, width: u32, height: u32) -> Result<Vec<Ray>> {
        let pixels = width as usize * height as usize;
        let params = camera_params(camera, width, height);
        // No query: every ray comes back flagged with its direction.
        let (hits, _) =
            self.launch_mode(RAYS_MODE, GpuQuery::Closest, Source::Camera(params, pixels))?;
        Ok(hits
            .iter()
            .map(|&[x, y, z, _]| {
                let dir = Vec3::new(f32::from_bits(x), f32::from_bits(y), f32::from_bits(z));
                Ray::new(camera.eye, dir)
            })
            .collect())
    }

    /// Copies `rays` to the GPU to stay there, with buffers for the answers of `query`.
    ///
    /// # Errors
    /// [`Error::Gpu`] if they do not fit in one dispatch's buffers.
    pub fn resident_rays(&self, rays: &[Ray], query: GpuQuery) -> Result<ResidentRays> {
        let gpu_rays: Vec<GpuRay> = rays.iter().map(GpuRay::of).collect();
        let buffer = self.gpu.storage("rays", bytemuck::cast_slice(&gpu_rays))?;
        self.resident(rays.len(), buffer, None, query)
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
        let (hits, counts) = self.output_buffers(count, query)?;
        Ok(ResidentRays {
            count,
            rays,
            camera,
            hits,
            counts,
        })
    }

    /// Runs `query` over resident rays `repeats` times and returns the fastest run: kernel
    /// time, from submission to completion, with nothing copied back.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn time(&self, rays: &ResidentRays, query: GpuQuery, repeats: usize) -> Result<Duration> {
        let mut params = rays.camera.unwrap_or_default();
        params.cap = self.hit_capacity;
        let mut best = Duration::MAX;
        for _ in 0..repeats.max(1) {
            let start = Instant::now();
            self.dispatch(
                query.mode(),
                &params,
                rays.count,
                &rays.rays,
                (&rays.hits, &rays.counts),
                None,
            )?;
            best = best.min(start.elapsed());
        }
        Ok(best)
    }

    /// Answers each ray with `answer` from the GPU's results, counting the open ones.
    fn finish<T: Send>(
        &self,
        count: usize,
        answer: impl Fn(usize) -> Answer<T> + Sync,
    ) -> Vec<Option<T>> {
        let answers: Vec<Option<T>> = (0..count)
            .into_par_iter()
            .map(|i| match answer(i) {
                Done(value) => Some(value),
                Open => None,
            })
            .collect();
        let open = answers.iter().filter(|a| a.is_none()).count();
        self.rays.fetch_add(count as u64, Ordering::Relaxed);
        self.finished_on_cpu
            .fetch_add(open as u64, Ordering::Relaxed);
        answers
    }

    /// Fills the open answers on the CPU, in parallel.
    fn complete<T: Send>(
        &self,
        answers: Vec<Option<T>>,
        cpu: impl Fn(usize) -> T + Sync,
    ) -> Vec<T> {
        answers
            .into_par_iter()
            .enumerate()
            .map(|(i, answer)| answer.unwrap_or_else(|| cpu(i)))
            .collect()
    }

    /// Runs `query` over the rays of `source` in as many dispatches as the buffers need and
    /// reads back the hits (four words per slot) and the counts.
    fn launch(&self, query: GpuQuery, source: Source<'_>) -> Result<(Vec<[u32; 4]>, Vec<u32>)> {
        self.launch_mode(query.mode(), query, source)
    }

    /// [`GpuMesh::launch`] with the kernel of `mode`, whose answers are laid out as `query`'s.
    fn launch_mode(
        &self,
        mode: u32,
        query: GpuQuery,
        source: Source<'_>,
    ) -> Result<(Vec<[u32; 4]>, Vec<u32>)> {
        let count = source.len();
        let slots = query.hit_slots(self.hit_capacity) as usize;
        if count == 0 || self.mesh.bvh().is_empty() {
            // No ray, or nothing to hit: every ray misses, on the CPU too.
            let hits = vec![[0, 0, 0, NO_TRIANGLE]; count * slots];
            return Ok((hits, vec![0; if query.counts() { count } else { 0 }]));
        }
        if !self.traceable {
            // Coordinates the shader cannot take: every ray is left to the CPU.
            let hits = vec![[0, 0, 0, FLAGGED]; count * slots];
            return Ok((hits, vec![FLAGGED; if query.counts() { count } else { 0 }]));
        }
        let chunk = self.chunk_rays(query);
        let mut hits = Vec::with_capacity(count * slots);
        let mut counts = Vec::with_capacity(if query.counts() { count } else { 0 });
        let mut start = 0;
        while start < count {
            let end = (start + chunk).min(count);
            let n = (end - start) as u32;
            let (mut params, rays) = match &source {
                Source::Rays(rays) => {
                    let gpu_rays: Vec<GpuRay> = rays[start..end].iter().map(GpuRay::of).collect();
                    (
                        Params::default(),
                        self.gpu.storage("rays", bytemuck::cast_slice(&gpu_rays))?,
                    )
                }
                Source::Camera(params, _) => {
                    let mut params = *params;
                    params.first = start as u32;
                    (params, self.gpu.storage("rays", &[])?)
                }
            };
            params.cap = self.hit_capacity;
            let (hit_buffer, count_buffer) = self.output_buffers(n, query)?;
            self.dispatch(
                mode,
                &params,
                n,
                &rays,
                (&hit_buffer, &count_buffer),
                Some(Readback {
                    hits: &mut hits,
                    counts: &mut counts,
                    slots,
                    with_counts: query.counts(),
                }),
            )?;
            start = end;
        }
        Ok((hits, counts))
    }

    /// Rays per dispatch: as many as the adapter's largest buffer holds answers for, and
    /// at most 2^22 (a few hundred MB of buffers in flight).
    fn chunk_rays(&self, query: GpuQuery) -> usize {
        let limit = self
            .gpu
            .shared
            .device
            .limits()
            .max_storage_buffer_binding_size;
        let per_ray = 32u64.max(16 * query.hit_slots(self.hit_capacity));
        ((limit / per_ray) as usize).clamp(1, 1 << 22)
    }

    fn output_buffers(&self, n: u32, query: GpuQuery) -> Result<(wgpu::Buffer, wgpu::Buffer)> {
        let slots = query.hit_slots(self.hit_capacity);
        let device = &self.gpu.shared.device;
        let limit = device.limits().max_storage_buffer_binding_size;
        let hit_bytes = (u64::from(n) * slots * 16).max(16);
        let count_bytes = if query.counts() { u64::from(n) * 4 } else { 0 }.max(16);
        if hit_bytes.max(count_bytes) > limit {
            return Err(too_many(n as usize));
        }
        let buffer = |label, size| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        checked(device, "dispatch", || {
            (buffer("hits", hit_bytes), buffer("counts", count_bytes))
        })
    }

    /// One dispatch of `n` rays; with `read`, copies the answers back and appends them.
    fn dispatch(
        &self,
        mode: u32,
        params: &Params,
        n: u32,
        rays: &wgpu::Buffer,
        (hits, counts): (&wgpu::Buffer, &wgpu::Buffer),
        read: Option<Readback<'_>>,
    ) -> Result<()> {
        let shared: &Shared = &self.gpu.shared;
        let Shared {
            device,
            queue,
            layout,
            ..
        } = shared;
        let pipeline = shared.pipeline(mode)?;
        let workgroup = shared.options.workgroup;
        let groups = n.div_ceil(workgroup).max(1);
        let row_groups = groups.min(MAX_GROUPS_PER_ROW);
        let rows = groups.div_ceil(row_groups);
        let params = Params {
            ray_count: n,
            row: row_groups * workgroup,
            ..*params
        };
        let staging = checked(device, "dispatch", || {
            let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("meshcast trace"),
                layout,
                entries: &[
                    entry(0, &uniform),
                    entry(1, &self.nodes),
                    entry(2, &self.triangles),
                    entry(3, rays),
                    entry(4, hits),
                    entry(5, counts),
                ],
            });
            let mut encoder = device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                pass.dispatch_workgroups(row_groups, rows, 1);
            }
            let staging = read.as_ref().map(|read| {
                let hit_bytes = u64::from(n) * read.slots as u64 * 16;
                let count_bytes = if read.with_counts {
                    u64::from(n) * 4
                } else {
                    0
                };
                let staging = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("readback"),
                    size: (hit_bytes + count_bytes).max(16),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                if hit_bytes > 0 {
                    encoder.copy_buffer_to_buffer(hits, 0, &staging, 0, hit_bytes);
                }
                if count_bytes > 0 {
                    encoder.copy_buffer_to_buffer(counts, 0, &staging, hit_bytes, count_bytes);
                }
                (staging, hit_bytes, count_bytes)
            });
            queue.submit([encoder.finish()]);
            staging
        })?;
        let (Some((staging, hit_bytes, count_bytes)), Some(read)) = (staging, read) else {
            wait(device)?;
            return Ok(());
        };
        let (sender, receiver) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            let _ = sender.send(result);
        });
        wait(device)?;
        receiver
            .recv()
            .map_err(|error| gpu_error("readback", error))?
            .map_err(|error| gpu_error("readback", error))?;
        {
            let view = staging
                .get_mapped_range(..)
                .map_err(|error| gpu_error("readback", error))?;
            let words: &[u32] = bytemuck::cast_slice(&view[..]);
            let hit_words = (hit_bytes / 4) as usize;
            read.hits.extend(
                words[..hit_words]
                    .chunks_exact(4)
                    .map(|w| [w[0], w[1], w[2], w[3]]),
            );
            read.counts
                .extend_from_slice(&words[hit_words..hit_words + (count_bytes / 4) as usize]);
        }
        staging.unmap();
        Ok(())
    }
}

/// Where a dispatch's answers go: `slots` hit slots per ray, and a count per ray when
/// `with_counts`.
struct Readback<'a> {
    hits: &'a mut Vec<[u32; 4]>,
    counts: &'a mut Vec<u32>,
    slots: usize,
    with_counts: bool,
}

/// Where a launch's rays come from: the host, or a camera on the GPU (its parameters and
/// pixel count).
enum Source<'a> {
    Rays(&'a [Ray]),
    Camera(Params, usize),
}

impl Source<'_> {
    fn len(&self) -> usize {
        match self {
            Self::Rays(rays) => rays.len(),
            Self::Camera(_, pixels) => *pixels,
        }
    }
}

/// A ray's answer from the GPU: decided, or left open for the CPU.
enum Answer<T> {
    Done(T),
    Open,
}

use Answer::{Done, Open};

/// The closest-hit answer in a hit slot.
fn closest(slot: [u32; 4], triangle_ids: &[u32]) -> Answer<Option<Hit>> {
    match slot[3] {
        NO_TRIANGLE => Done(None),
        FLAGGED => Open,
        _ => Done(Some(hit(slot, triangle_ids))),
    }
}

/// The hit in a hit slot: the shader's `t`, `u`, `v`, and its GPU triangle reported as the
/// mesh's (`triangle_ids`, from GPU order). The shader orders hits of one `t` by GPU
/// triangle, but leaves such a tie open for the CPU, so the GPU's numbering changes no
/// answer.
fn hit([t, u, v, triangle]: [u32; 4], triangle_ids: &[u32]) -> Hit {
    Hit {
        t: f32::from_bits(t),
        u: f32::from_bits(u),
        v: f32::from_bits(v),
        triangle: triangle_ids[triangle as usize],
    }
}

fn camera_params(camera: &Camera, width: u32, height: u32) -> Params {
    let frame = camera.frame();
    let v4 = |v: Vec3, w: f32| [v.x, v.y, v.z, w];
    Params {
        width,
        height,
        camera: 1,
        eye: v4(camera.eye, 0.0),
        forward: v4(frame.forward, frame.half_width),
        right: v4(frame.right, frame.half_height),
        up: v4(frame.up, 0.0),
        ..Params::default()
    }
}

fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

fn too_many(count: usize) -> Error {
    Error::Gpu {
        operation: "dispatch",
        message: format!("{count} rays do not fit in one dispatch's buffers"),
    }
}
