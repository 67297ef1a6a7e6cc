//! How rays reach the kernel and answers come back: buffers kept across calls, rays written
//! in parallel straight into mapped upload buffers, and chunks streamed two at a time, so
//! that the CPU writes the next chunk's rays and reads the last chunk's answers while the GPU
//! traces this one.

use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use crate::error::Result;
use bytemuck::Zeroable;
use rayon::prelude::*;

use crate::context::{checked, gpu_error, Shared};
use crate::kernel::profiling;
use crate::layout::{GpuRay, Params};
use crate::rays::RaySource;

/// The most workgroups along one dimension of a dispatch.
const MAX_GROUPS_PER_ROW: u32 = 65_535;

/// Rays written per parallel task, and per block converted on a task's stack.
const TASK_RAYS: usize = 16_384;
const WRITE_BLOCK: usize = 512;

/// Where a launch's rays come from: the host, or a camera on the GPU (its parameters and
/// pixel count).
pub(crate) enum Source<'a> {
    Rays(&'a (dyn RaySource + 'a)),
    Camera(Params, usize),
}

impl Source<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Rays(rays) => rays.len(),
            Self::Camera(_, pixels) => *pixels,
        }
    }
}

/// What one dispatch needs: the kernel's mode, hit slots and counts per ray.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) mode: u32,
    /// Hit slots (four words each) per ray.
    pub(crate) slots: u64,
    /// Whether each ray has a count.
    pub(crate) counts: bool,
}

/// The buffers of one chunk in flight.
struct Slot {
    /// Host-visible, mapped for writing whenever no copy from it is pending.
    upload: wgpu::Buffer,
    rays: wgpu::Buffer,
    hits: wgpu::Buffer,
    counts: wgpu::Buffer,
    /// Host-visible, the answers copied back.
    readback: wgpu::Buffer,
    params: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// The upload buffer's mapping, asked for after the submission that copies from it (a
    /// buffer never written is mapped from its creation on).
    upload_mapping: Option<(Mapping, wgpu::SubmissionIndex)>,
}

/// A mesh's buffers for streaming rays, kept across calls ([`GpuMesh`](crate::GpuMesh)
/// holds one, made at its first query): two slots of `chunk` rays.
pub(crate) struct Workspace {
    slots: [Slot; 2],
    chunk: usize,
    slots_per_ray: u64,
}

impl Workspace {
    /// Buffers for `chunk` rays with `slots_per_ray` hit slots each, bound to `nodes` and
    /// `triangles`.
    pub(crate) fn new(
        shared: &Shared,
        (nodes, triangles): (&wgpu::Buffer, &wgpu::Buffer),
        chunk: usize,
        slots_per_ray: u64,
    ) -> Result<Self> {
        let device = &shared.device;
        let n = chunk as u64;
        let ray_bytes = n * size_of::<GpuRay>() as u64;
        let hit_bytes = (n * slots_per_ray * 16).max(16);
        let count_bytes = n * 4;
        let slot = || -> Result<Slot> {
            checked(device, "buffers", || {
                let buffer = |label, size, usage, mapped_at_creation| {
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(label),
                        size,
                        usage,
                        mapped_at_creation,
                    })
                };
                use wgpu::BufferUsages as U;
                let upload = buffer("upload", ray_bytes, U::MAP_WRITE | U::COPY_SRC, true);
                let rays = buffer("rays", ray_bytes, U::STORAGE | U::COPY_DST, false);
                let hits = buffer("hits", hit_bytes, U::STORAGE | U::COPY_SRC, false);
                let counts = buffer("counts", count_bytes, U::STORAGE | U::COPY_SRC, false);
                let readback = buffer(
                    "readback",
                    hit_bytes + count_bytes,
                    U::MAP_READ | U::COPY_DST,
                    false,
                );
                let params = buffer(
                    "params",
                    size_of::<Params>() as u64,
                    U::UNIFORM | U::COPY_DST,
                    false,
                );
                let bind_group =
                    bind_group(shared, (nodes, triangles), &params, &rays, (&hits, &counts));
                Slot {
                    upload,
                    rays,
                    hits,
                    counts,
                    readback,
                    params,
                    bind_group,
                    upload_mapping: None,
                }
            })
        };
        Ok(Self {
            slots: [slot()?, slot()?],
            chunk,
            slots_per_ray,
        })
    }

    /// Whether this workspace holds chunks of `chunk` rays with `slots_per_ray` hit slots.
    pub(crate) fn fits(&self, chunk: usize, slots_per_ray: u64) -> bool {
        self.chunk >= chunk && self.slots_per_ray >= slots_per_ray
    }

    /// Traces every ray of `source` with the kernel of `shape` in chunks of at most
    /// `self.chunk`, handing each chunk's answers, as they come back, to `take` with the
    /// index of its first ray: its hit slots (`shape.slots` per ray, four words each) and its
    /// counts.
    pub(crate) fn stream(
        &mut self,
        shared: &Shared,
        shape: Shape,
        base: Params,
        source: &Source<'_>,
        mut take: impl FnMut(usize, &[[u32; 4]], &[u32]),
    ) -> Result<()> {
        let device = &shared.device;
        let pipeline = shared.pipeline(shape.mode)?;
        let count = source.len();
        let chunks = count.div_ceil(self.chunk);
        let (started, mut profile) = (Instant::now(), Profile::default());
        // The chunk whose answers are on their way back: its first ray, size, slot, and the
        // readback's mapping.
        let mut pending: Option<Pending> = None;
        for k in 0..chunks {
            let (start, end) = (k * self.chunk, ((k + 1) * self.chunk).min(count));
            let n = end - start;
            let s = k % 2;
            let slot = &mut self.slots[s];
            let ray_bytes = (n * size_of::<GpuRay>()) as u64;
            if let Source::Rays(rays) = source {
                // Mapped at creation, or since the last copy from it finished.
                if let Some((mapping, submission)) = slot.upload_mapping.take() {
                    let clock = Instant::now();
                    await_mapping(device, mapping, submission)?;
                    profile.upload_wait += clock.elapsed();
                }
                let clock = Instant::now();
                write_rays(&slot.upload, *rays, start, n)?;
                profile.write += clock.elapsed();
                slot.upload.unmap();
            }
            let (row_groups, rows, row) = grid(n as u32, shared.options.workgroup);
            let params = Params {
                first: base.first + start as u32,
                ray_count: n as u32,
                row,
                ..base
            };
            shared
                .queue
                .write_buffer(&slot.params, 0, bytemuck::bytes_of(&params));
            let hit_bytes = n as u64 * shape.slots * 16;
            let count_bytes = if shape.counts { n as u64 * 4 } else { 0 };
            let submission = checked(device, "dispatch", || {
                let mut encoder = device.create_command_encoder(&Default::default());
                if matches!(source, Source::Rays(_)) {
                    encoder.copy_buffer_to_buffer(&slot.upload, 0, &slot.rays, 0, ray_bytes);
                }
                trace_pass(
                    &mut encoder,
                    &pipeline,
                    &slot.bind_group,
                    (row_groups, rows),
                );
                if hit_bytes > 0 {
                    encoder.copy_buffer_to_buffer(&slot.hits, 0, &slot.readback, 0, hit_bytes);
                }
                if count_bytes > 0 {
                    encoder.copy_buffer_to_buffer(
                        &slot.counts,
                        0,
                        &slot.readback,
                        hit_bytes,
                        count_bytes,
                    );
                }
                shared.queue.submit([encoder.finish()])
            })?;
            if matches!(source, Source::Rays(_)) {
                let mapping = map(&slot.upload, wgpu::MapMode::Write, ..);
                slot.upload_mapping = Some((mapping, submission.clone()));
            }
            let words = (hit_bytes + count_bytes) as usize / 4;
            let readback = map(&slot.readback, wgpu::MapMode::Read, ..mapped_bytes(words));
            // While the GPU traces this chunk, the last one's answers are taken.
            if let Some(last) = pending.replace((start, n, s, readback, submission)) {
                self.take_answers(device, shape, last, &mut take, &mut profile)?;
            }
        }
        if let Some(last) = pending {
            self.take_answers(device, shape, last, &mut take, &mut profile)?;
        }
        profile.report(count, chunks, started);
        Ok(())
    }

    fn take_answers(
        &self,
        device: &wgpu::Device,
        shape: Shape,
        (start, n, s, readback, submission): Pending,
        take: &mut impl FnMut(usize, &[[u32; 4]], &[u32]),
        profile: &mut Profile,
    ) -> Result<()> {
        let clock = Instant::now();
        await_mapping(device, readback, submission)?;
        profile.readback_wait += clock.elapsed();
        let clock = Instant::now();
        let buffer = &self.slots[s].readback;
        {
            let hit_words = n * shape.slots as usize * 4;
            let count_words = if shape.counts { n } else { 0 };
            let view = buffer
                .get_mapped_range(..mapped_bytes(hit_words + count_words))
                .map_err(|error| gpu_error("readback", error))?;
            let words: &[u32] = bytemuck::cast_slice(&view[..]);
            let hits: &[[u32; 4]] = bytemuck::cast_slice(&words[..hit_words]);
            take(start, hits, &words[hit_words..hit_words + count_words]);
        }
        buffer.unmap();
        profile.take += clock.elapsed();
        Ok(())
    }
}

/// Writes rays `start..start + n` of `rays` into the mapped `upload` buffer as the kernel
/// reads them, on every core: each task maps a range of its own (mapped memory may be
/// written, not read, and a view is not split between threads) and fills it from a block
/// converted on its stack.
fn write_rays(upload: &wgpu::Buffer, rays: &dyn RaySource, start: usize, n: usize) -> Result<()> {
    let tasks = n.div_ceil(TASK_RAYS);
    let ray_size = size_of::<GpuRay>() as u64;
    let views = (0..tasks)
        .map(|task| {
            let (first, end) = (task * TASK_RAYS, ((task + 1) * TASK_RAYS).min(n));
            let range = first as u64 * ray_size..end as u64 * ray_size;
            upload
                .get_mapped_range_mut(range)
                .map(|view| (start + first, view))
                .map_err(|error| gpu_error("upload", error))
        })
        .collect::<Result<Vec<_>>>()?;
    views.into_par_iter().for_each(|(first, mut view)| {
        let mut block = [GpuRay::zeroed(); WRITE_BLOCK];
        let mut out = view.slice(..);
        let mut ray = first;
        while !out.is_empty() {
            let count = (out.len() / size_of::<GpuRay>()).min(WRITE_BLOCK);
            for (i, converted) in block[..count].iter_mut().enumerate() {
                *converted = GpuRay::of(&rays.ray(ray + i));
            }
            let bytes = count * size_of::<GpuRay>();
            out.slice(..bytes)
                .copy_from_slice(bytemuck::cast_slice(&block[..count]));
            out = out.into_slice(bytes..);
            ray += count;
        }
    });
    Ok(())
}

/// Where a stream's time went, printed to stderr when [`PROFILE_VARIABLE`](crate::kernel::PROFILE_VARIABLE) is `1`: the
/// CPU's writing of rays and taking of answers, and its waits for the GPU.
#[derive(Default)]
struct Profile {
    write: Duration,
    upload_wait: Duration,
    readback_wait: Duration,
    take: Duration,
}

impl Profile {
    fn report(&self, rays: usize, chunks: usize, started: Instant) {
        if !profiling() {
            return;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "meshcast gpu: {rays} rays in {chunks} chunks, {:.2} ms: writing rays {:.2}, \
             waiting for an upload buffer {:.2}, waiting for answers {:.2}, taking answers {:.2}",
            ms(started.elapsed()),
            ms(self.write),
            ms(self.upload_wait),
            ms(self.readback_wait),
            ms(self.take)
        );
    }
}

/// The dispatch grid of `n` invocations: workgroups per row, rows, and invocations per row.
pub(crate) fn grid(n: u32, workgroup: u32) -> (u32, u32, u32) {
    let groups = n.div_ceil(workgroup).max(1);
    let row_groups = groups.min(MAX_GROUPS_PER_ROW);
    (
        row_groups,
        groups.div_ceil(row_groups),
        row_groups * workgroup,
    )
}

/// Records the kernel of `pipeline` over `bind_group` on a grid of `row_groups` x `rows`
/// workgroups.
pub(crate) fn trace_pass(
    encoder: &mut wgpu::CommandEncoder,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    (row_groups, rows): (u32, u32),
) {
    let mut pass = encoder.begin_compute_pass(&Default::default());
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(row_groups, rows, 1);
}

/// The bind group of every kernel: parameters, nodes, triangles, rays, hits and counts.
pub(crate) fn bind_group(
    shared: &Shared,
    (nodes, triangles): (&wgpu::Buffer, &wgpu::Buffer),
    params: &wgpu::Buffer,
    rays: &wgpu::Buffer,
    (hits, counts): (&wgpu::Buffer, &wgpu::Buffer),
) -> wgpu::BindGroup {
    fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
        wgpu::BindGroupEntry {
            binding,
            resource: buffer.as_entire_binding(),
        }
    }
    shared.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("meshcast trace"),
        layout: &shared.layout,
        entries: &[
            entry(0, params),
            entry(1, nodes),
            entry(2, triangles),
            entry(3, rays),
            entry(4, hits),
            entry(5, counts),
        ],
    })
}

/// The bytes of a readback mapping holding `words` words (at least one, which a mapping
/// needs).
fn mapped_bytes(words: usize) -> u64 {
    (words.max(1) * 4) as u64
}

/// A mapping asked for, answered when the GPU is done with the buffer.
type Mapping = Receiver<std::result::Result<(), wgpu::BufferAsyncError>>;

/// A chunk whose answers are on their way back: its first ray, its size, its slot, the
/// readback's mapping and the submission that fills it.
type Pending = (usize, usize, usize, Mapping, wgpu::SubmissionIndex);

/// Asks for `range` of `buffer` to be mapped once the GPU is done with it.
fn map(
    buffer: &wgpu::Buffer,
    mode: wgpu::MapMode,
    range: impl std::ops::RangeBounds<wgpu::BufferAddress>,
) -> Mapping {
    let (sender, receiver) = channel();
    buffer.slice(range).map_async(mode, move |result| {
        let _ = sender.send(result);
    });
    receiver
}

/// Waits for a mapping asked for with [`map`] after `submission`.
fn await_mapping(
    device: &wgpu::Device,
    mapping: Mapping,
    submission: wgpu::SubmissionIndex,
) -> Result<()> {
    if let Ok(result) = mapping.try_recv() {
        return result.map_err(|error| gpu_error("map", error));
    }
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: None,
        })
        .map_err(|error| gpu_error("dispatch", error))?;
    mapping
        .recv()
        .map_err(|error| gpu_error("map", error))?
        .map_err(|error| gpu_error("map", error))
}
