//! [`GpuMesh`]: a mesh on the GPU and its ray queries, each ray the shader leaves open
//! finished on the CPU.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use glam::Vec3;
use meshcast_bvh::BuildOptions;
use meshcast_mesh::{Error, HitLists, LeafTest, Mesh, RayQueries, Result};
use meshcast_primitives::{Camera, Hit, Ray};
use rayon::prelude::*;
use wgpu::util::DeviceExt;

use crate::context::{checked, wait, Gpu, Shared};
use crate::kernel::MAX_HIT_CAPACITY;
use crate::layout::{self, GpuRay, Layout, Params, FLAGGED, NO_TRIANGLE};
use crate::stream::{bind_group, grid, profiling, trace_pass, RaySource, Shape, Source, Workspace};

/// Hit slots per ray that [`GpuMesh::cast_all_batch`] keeps on the GPU unless
/// [`GpuMesh::set_hit_capacity`] says otherwise; a ray with more hits is answered on the CPU.
pub const DEFAULT_HIT_CAPACITY: u32 = 16;

/// The shader's mode that answers no query but hands back the rays it made
/// (`trace.wgsl`'s `MODE_RAYS`), for [`GpuMesh::camera_rays`].
const RAYS_MODE: u32 = 4;

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
    /// The mesh whose tree the GPU walks: `mesh`, or its triangles in a tree built for the
    /// GPU ([`GpuOptions::leaf`](crate::GpuOptions::leaf)).
    traced: Arc<Mesh>,
    nodes: wgpu::Buffer,
    triangles: wgpu::Buffer,
    /// The mesh's triangle of each GPU triangle: the shader reports GPU triangles.
    triangle_ids: Vec<u32>,
    /// Whether the shader can trace the mesh at all ([`layout::traceable`]).
    traceable: bool,
    hit_capacity: u32,
    /// The buffers rays stream through, kept from the first query on.
    workspace: Mutex<Option<Workspace>>,
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
        let traced = self.traced(&mesh);
        let layout = layout::of(&traced, self.shared.options.order)?;
        let (nodes, triangles) = self.buffers_of(&layout)?;
        Ok(GpuMesh {
            gpu: self.clone(),
            traceable: layout::traceable(&mesh),
            mesh,
            traced,
            nodes,
            triangles,
            triangle_ids: layout.triangle_ids,
            hit_capacity: DEFAULT_HIT_CAPACITY,
            workspace: Mutex::new(None),
            rays: AtomicU64::new(0),
            finished_on_cpu: AtomicU64::new(0),
        })
    }

    /// The mesh whose tree the GPU walks: `mesh`, or, where [`GpuOptions::leaf`](crate::GpuOptions::leaf) asks for
    /// other leaves, the same triangles built into a tree for the GPU.
    fn traced(&self, mesh: &Arc<Mesh>) -> Arc<Mesh> {
        let leaf = self.shared.options.leaf as usize;
        if leaf == 0 {
            return Arc::clone(mesh);
        }
        let options = BuildOptions {
            max_leaf_primitives: leaf,
            ..mesh.build_options()
        };
        Arc::new(Mesh::from_tri_mesh(mesh.tri_mesh().clone(), &options))
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
        let own_tree = Arc::ptr_eq(&self.mesh, &self.traced);
        Arc::make_mut(&mut self.mesh).set_positions(positions)?;
        if own_tree {
            self.traced = Arc::clone(&self.mesh);
        } else {
            Arc::make_mut(&mut self.traced).set_positions(positions)?;
        }
        let queue = &self.gpu.shared.queue;
        let layout = layout::of(&self.traced, self.gpu.shared.options.order)?;
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
            // The workspace's bindings name the old buffers.
            *self
                .workspace
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner) = None;
        }
        self.triangle_ids = layout.triangle_ids;
        self.traceable = layout::traceable(&self.mesh);
        Ok(())
    }

    /// The closest hit of each ray, as [`RayQueries::cast_batch`] answers on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn cast_batch<R: RaySource + ?Sized>(&self, rays: &R) -> Result<Vec<Option<Hit>>> {
        let answers = self.launch(GpuQuery::Closest, Source::Rays(&Rays(rays)), |hits, _| {
            closest(hits[0], &self.triangle_ids)
        })?;
        Ok(self.complete(answers, |i, ()| self.mesh.cast(&rays.ray(i))))
    }

    /// Whether each ray hits anything, as [`RayQueries::occluded_batch`] answers.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn occluded_batch<R: RaySource + ?Sized>(&self, rays: &R) -> Result<Vec<bool>> {
        let answers = self.launch(
            GpuQuery::Any,
            Source::Rays(&Rays(rays)),
            |_, count| match count {
                0 => Done(false),
                1 => Done(true),
                _ => Open(()),
            },
        )?;
        Ok(self.complete(answers, |i, ()| self.mesh.occluded(&rays.ray(i))))
    }

    /// How many times each ray crosses the surface: the length of its
    /// [`RayQueries::cast_all`] list (the tie rule's count, each crossing once, so its parity
    /// tells inside from outside on a closed mesh).
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn count_batch<R: RaySource + ?Sized>(&self, rays: &R) -> Result<Vec<u32>> {
        let answers =
            self.launch(
                GpuQuery::Count,
                Source::Rays(&Rays(rays)),
                |_, count| match count {
                    FLAGGED => Open(()),
                    count => Done(count),
                },
            )?;
        Ok(self.complete(answers, |i, ()| {
            self.mesh.cast_all(&rays.ray(i)).len() as u32
        }))
    }

    /// Every hit of each ray, in hit order, as [`RayQueries::cast_all_batch`] answers. Up to
    /// [`GpuMesh::set_hit_capacity`] hits per ray are found on the GPU; a ray with more is
    /// answered on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn cast_all_batch<R: RaySource + ?Sized>(&self, rays: &R) -> Result<HitLists<Hit>> {
        let answers =
            self.launch(
                GpuQuery::All,
                Source::Rays(&Rays(rays)),
                |hits, count| match count {
                    FLAGGED => Open(()),
                    count => {
                        let mut list: Vec<Hit> = hits[..count as usize]
                            .iter()
                            .map(|&slot| hit(slot, &self.triangle_ids))
                            .collect();
                        list.sort_by(Hit::order);
                        Done(list)
                    }
                },
            )?;
        Ok(self
            .complete(answers, |i, ()| self.mesh.cast_all(&rays.ray(i)))
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
        let answers = self.launch(
            GpuQuery::Closest,
            Source::Camera(params, pixels),
            |hits, _| match closest(hits[0], &self.triangle_ids) {
                Done(hit) => Done(hit),
                // A flagged pixel carries the direction the GPU made.
                Open(()) => Open(direction(hits[0])),
            },
        )?;
        Ok(self.complete(answers, |i, dir| {
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
        let shape = Shape {
            mode: RAYS_MODE,
            ..GpuQuery::Closest.shape(1)
        };
        let (directions, _) =
            self.launch_shape(shape, Source::Camera(params, pixels), |hits, _| {
                Done::<Vec3, ()>(direction(hits[0]))
            })?;
        Ok(directions
            .into_iter()
            .map(|dir| Ray::new(camera.eye, dir))
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
        })
    }

    /// Runs `query` over resident rays `repeats` times and returns the fastest run: kernel
    /// time, from submission to completion, with nothing copied back.
    ///
    /// # Errors
    /// [`Error::Gpu`] if the GPU fails.
    pub fn time(&self, rays: &ResidentRays, query: GpuQuery, repeats: usize) -> Result<Duration> {
        let shared: &Shared = &self.gpu.shared;
        let pipeline = shared.pipeline(query.mode())?;
        let (row_groups, rows, row) = grid(rays.count, shared.options.workgroup);
        let params = Params {
            ray_count: rays.count,
            row,
            cap: self.hit_capacity,
            ..rays.camera.unwrap_or_default()
        };
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
                (&self.nodes, &self.triangles),
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

    /// Fills the open answers on the CPU, in parallel, counting them.
    fn complete<T: Send, O: Send>(
        &self,
        (mut answers, open): Answers<T, O>,
        cpu: impl Fn(usize, O) -> T + Sync,
    ) -> Vec<T> {
        let clock = Instant::now();
        let opened = open.len();
        self.rays.fetch_add(answers.len() as u64, Ordering::Relaxed);
        self.finished_on_cpu
            .fetch_add(opened as u64, Ordering::Relaxed);
        let finished: Vec<(usize, T)> = open
            .into_par_iter()
            .map(|(i, open)| (i, cpu(i, open)))
            .collect();
        for (i, value) in finished {
            answers[i] = value;
        }
        if profiling() {
            eprintln!(
                "meshcast gpu: {opened} open rays finished on the CPU: {:.2} ms",
                clock.elapsed().as_secs_f64() * 1e3
            );
        }
        answers
    }

    /// Runs `query` over the rays of `source` and answers each ray with `answer` of its hit
    /// slots and its count, in parallel, as the answers come back: the decided answers in
    /// place, the open ones as `T::default()` there and listed with what the CPU needs.
    fn launch<T: Send + Default, O: Send>(
        &self,
        query: GpuQuery,
        source: Source<'_>,
        answer: impl Fn(&[[u32; 4]], u32) -> Answer<T, O> + Sync,
    ) -> Result<Answers<T, O>> {
        self.launch_shape(query.shape(self.hit_capacity), source, answer)
    }

    /// [`GpuMesh::launch`] with the kernel and answers of `shape`.
    fn launch_shape<T: Send + Default, O: Send>(
        &self,
        shape: Shape,
        source: Source<'_>,
        answer: impl Fn(&[[u32; 4]], u32) -> Answer<T, O> + Sync,
    ) -> Result<Answers<T, O>> {
        let count = source.len();
        let slots = shape.slots as usize;
        let mut answers = Vec::with_capacity(count);
        // Open rays are few (a few in ten thousand): a lock costs nothing.
        let open = Mutex::new(Vec::new());
        let decide = |i: usize, hits: &[[u32; 4]], ray_count: u32| match answer(hits, ray_count) {
            Done(value) => value,
            Open(data) => {
                open.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((i, data));
                T::default()
            }
        };
        let fixed = if count == 0 || self.mesh.bvh().is_empty() {
            // No ray, or nothing to hit: every ray misses, on the CPU too.
            Some(([0, 0, 0, NO_TRIANGLE], 0))
        } else if !self.traceable {
            // Coordinates the shader cannot take: every ray is left to the CPU.
            Some(([0, 0, 0, FLAGGED], FLAGGED))
        } else {
            None
        };
        if let Some((slot, ray_count)) = fixed {
            let hits = vec![slot; slots.max(1)];
            answers.par_extend(
                (0..count)
                    .into_par_iter()
                    .map(|i| decide(i, &hits, ray_count)),
            );
        } else {
            self.stream(shape, source, |start, hits, counts| {
                let n = hits.len().checked_div(slots).unwrap_or(counts.len());
                answers.par_extend((0..n).into_par_iter().map(|i| {
                    let count = counts.get(i).copied().unwrap_or(0);
                    decide(start + i, &hits[i * slots..(i + 1) * slots], count)
                }));
            })?;
        }
        let open = open.into_inner().unwrap_or_else(PoisonError::into_inner);
        Ok((answers, open))
    }

    /// Streams the rays of `source` through the mesh's workspace (made, or remade larger,
    /// as the call needs), handing `take` each chunk's answers.
    fn stream(
        &self,
        shape: Shape,
        source: Source<'_>,
        take: impl FnMut(usize, &[[u32; 4]], &[u32]),
    ) -> Result<()> {
        let count = source.len();
        // Buffers for one call's rays, up to a whole chunk, grown when a call needs more.
        let chunk = self
            .chunk_rays(shape)
            .min(count.next_power_of_two().max(4096));
        let shared: &Shared = &self.gpu.shared;
        let mut workspace = self
            .workspace
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !workspace
            .as_ref()
            .is_some_and(|w| w.fits(chunk, shape.slots))
        {
            // Dropped first: the old buffers go before the new ones are made.
            *workspace = None;
            let slots_per_ray = shape.slots.max(1);
            *workspace = Some(Workspace::new(
                shared,
                (&self.nodes, &self.triangles),
                chunk,
                slots_per_ray,
            )?);
        }
        let workspace = workspace.as_mut().expect("made above");
        let base = match &source {
            Source::Camera(params, _) => *params,
            Source::Rays(_) => Params::default(),
        };
        let params = Params {
            cap: self.hit_capacity,
            ..base
        };
        workspace.stream(shared, shape, params, &source, take)
    }

    /// Rays per streamed chunk: [`GpuOptions::chunk`](crate::GpuOptions::chunk), at most as many as the adapter's
    /// largest buffer holds answers for.
    fn chunk_rays(&self, shape: Shape) -> usize {
        let limit = self
            .gpu
            .shared
            .device
            .limits()
            .max_storage_buffer_binding_size;
        let per_ray = 32u64.max(16 * shape.slots);
        let chunk = self.gpu.shared.options.chunk as usize;
        ((limit / per_ray) as usize).clamp(1, chunk)
    }
}

/// The [`RaySource`] of a query's rays, sized so it can stand behind a `dyn` pointer.
struct Rays<'a, R: ?Sized>(&'a R);

impl<R: RaySource + ?Sized> RaySource for Rays<'_, R> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn ray(&self, index: usize) -> Ray {
        self.0.ray(index)
    }
}

/// Every ray's answer (a placeholder for an open one) and the open rays, each with what the
/// CPU needs beside its index.
type Answers<T, O> = (Vec<T>, Vec<(usize, O)>);

/// A ray's answer from the GPU: decided, or left open for the CPU with what the CPU needs
/// beside the ray's index.
enum Answer<T, O> {
    Done(T),
    Open(O),
}

use Answer::{Done, Open};

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

/// The closest-hit answer in a hit slot.
fn closest(slot: [u32; 4], triangle_ids: &[u32]) -> Answer<Option<Hit>, ()> {
    match slot[3] {
        NO_TRIANGLE => Done(None),
        FLAGGED => Open(()),
        _ => Done(Some(hit(slot, triangle_ids))),
    }
}

/// The direction a flagged camera ray carries back.
fn direction([x, y, z, _]: [u32; 4]) -> Vec3 {
    Vec3::new(f32::from_bits(x), f32::from_bits(y), f32::from_bits(z))
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

fn too_many(count: usize) -> Error {
    Error::Gpu {
        operation: "dispatch",
        message: format!("{count} rays do not fit in one dispatch's buffers"),
    }
}
