//! Running the shader over a query's rays: streaming them through the mesh's workspace,
//! deciding each answer from its hit slots, and finishing the open ones on the CPU.

use std::sync::atomic::Ordering;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crate::error::Result;
use meshcast_mesh::Culling;
use meshcast_primitives::Ray;
use rayon::prelude::*;

use super::{AnswerSink, GpuMesh, GpuQuery};
use crate::context::Shared;
use crate::cuda::Mode as CudaMode;
use crate::kernel::profiling;
use crate::layout::{Params, FLAGGED, NO_TRIANGLE};
use crate::rays::RaySource;
use crate::stream::{Shape, Source, Workspace};

impl GpuMesh {
    /// Fills the open answers on the CPU, counting them: `ray(i, data)` makes the ray of
    /// open answer `i` from what the launch left with it, and `batch` answers those rays
    /// with the engine's batch query (the one batch driver, which answers each ray as the
    /// single-ray query does).
    pub(super) fn complete<T: Send, O: Send>(
        &self,
        (mut answers, open): Answers<T, O>,
        ray: impl Fn(usize, O) -> Ray + Sync,
        batch: impl FnOnce(&[Ray]) -> Vec<T>,
    ) -> Vec<T> {
        self.finish(answers.len(), open, ray, batch, &mut answers);
        answers
    }

    /// [`GpuMesh::complete`] into `sink`, whose `count` rays' answers were taken.
    pub(super) fn finish<T: Send, O: Send>(
        &self,
        count: usize,
        open: Vec<(usize, O)>,
        ray: impl Fn(usize, O) -> Ray + Sync,
        batch: impl FnOnce(&[Ray]) -> Vec<T>,
        sink: &mut impl AnswerSink<T>,
    ) {
        let clock = Instant::now();
        let opened = open.len();
        self.rays.fetch_add(count as u64, Ordering::Relaxed);
        self.finished_on_cpu
            .fetch_add(opened as u64, Ordering::Relaxed);
        let (indices, rays): (Vec<usize>, Vec<Ray>) = open
            .into_par_iter()
            .map(|(i, data)| (i, ray(i, data)))
            .unzip();
        for (i, value) in indices.into_iter().zip(batch(&rays)) {
            sink.put(i, value);
        }
        if profiling() {
            eprintln!(
                "meshcast gpu: {opened} open rays finished on the CPU: {:.2} ms",
                clock.elapsed().as_secs_f64() * 1e3
            );
        }
    }

    /// Runs `query` over the rays of `source` and answers each ray with `answer` of its hit
    /// slots and its count, in parallel, as the answers come back: the decided answers in
    /// place, the open ones as `T::default()` there and listed with what the CPU needs.
    /// `rules` are what the query's options ask of the shader.
    pub(super) fn launch<T: Send + Default, O: Send>(
        &self,
        query: GpuQuery,
        rules: KernelRules,
        source: Source<'_>,
        answer: impl Fn(&[[u32; 4]], u32) -> Answer<T, O> + Sync,
    ) -> Result<Answers<T, O>> {
        let mut answers = Vec::with_capacity(source.len());
        let shape = query.shape(self.hit_capacity);
        let open = self.launch_into(shape, rules, source, answer, &mut answers)?;
        Ok((answers, open))
    }

    /// [`GpuMesh::launch`] with the kernel and answers of `shape`, each run of answers handed
    /// to `sink` as it is decided; returns the open rays.
    pub(super) fn launch_into<T: Send + Default, O: Send>(
        &self,
        shape: Shape,
        rules: KernelRules,
        source: Source<'_>,
        answer: impl Fn(&[[u32; 4]], u32) -> Answer<T, O> + Sync,
        sink: &mut impl AnswerSink<T>,
    ) -> Result<Vec<(usize, O)>> {
        let count = source.len();
        let slots = shape.slots as usize;
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
            sink.take(
                0,
                (0..count)
                    .into_par_iter()
                    .map(|i| decide(i, &hits, ray_count)),
            );
        } else {
            self.stream(shape, rules, source, |start, hits, counts| {
                let n = hits.len().checked_div(slots).unwrap_or(counts.len());
                sink.take(
                    start,
                    (0..n).into_par_iter().map(|i| {
                        let count = counts.get(i).copied().unwrap_or(0);
                        decide(start + i, &hits[i * slots..(i + 1) * slots], count)
                    }),
                );
            })?;
        }
        Ok(open.into_inner().unwrap_or_else(PoisonError::into_inner))
    }

    /// Streams the rays of `source` through the mesh's workspace (made, or remade larger,
    /// as the call needs), handing `take` each chunk's answers.
    fn stream(
        &self,
        shape: Shape,
        rules: KernelRules,
        source: Source<'_>,
        take: impl FnMut(usize, &[[u32; 4]], &[u32]),
    ) -> Result<()> {
        if let (Some(cuda), Some(mode), Source::Rays(rays)) =
            (&self.cuda, cuda_mode(shape, rules), &source)
        {
            let chunk = self.gpu.shared.options.chunk as usize;
            return cuda.stream(mode, *rays, chunk, take);
        }
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
            let copy = self.wgpu_copy()?;
            *workspace = Some(Workspace::new(
                shared,
                (&copy.nodes, &copy.triangles),
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
            culling: u32::from(rules.culling == Culling::BackFaces),
            keep: rules.keep.min(self.hit_capacity),
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

/// The CUDA kernel's mode for a launch it can run: closest or any hit, without culling (which
/// the kernel does not implement).
fn cuda_mode(shape: Shape, rules: KernelRules) -> Option<CudaMode> {
    let closest = GpuQuery::Closest.mode();
    let any = GpuQuery::Any.mode();
    match (shape.mode, rules.culling) {
        (mode, Culling::Off) if mode == closest => Some(CudaMode::Closest),
        (mode, Culling::Off) if mode == any => Some(CudaMode::Any),
        _ => None,
    }
}

/// What a query's options ask of the shader: back-face culling and, for every hit, how many
/// hits to list.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct KernelRules {
    pub(super) culling: Culling,
    /// Every hit: the first `keep` hits in hit order (at most the hit capacity), or every
    /// hit (0).
    pub(super) keep: u32,
}

/// The [`RaySource`] of a query's rays, each cut to the options' distance limit as the CPU
/// cuts it, sized so it can stand behind a `dyn` pointer.
pub(super) struct Rays<'a, R: ?Sized> {
    rays: &'a R,
    max_distance: f32,
}

impl<'a, R: RaySource + ?Sized> Rays<'a, R> {
    /// The rays of `rays` cut to `max_distance` ([`QueryOptions::max_distance`](meshcast_mesh::QueryOptions::max_distance)).
    pub(super) fn new(rays: &'a R, max_distance: f32) -> Self {
        Self { rays, max_distance }
    }
}

impl<R: RaySource + ?Sized> RaySource for Rays<'_, R> {
    fn len(&self) -> usize {
        self.rays.len()
    }

    fn ray(&self, index: usize) -> Ray {
        let ray = self.rays.ray(index);
        if self.max_distance == f32::INFINITY {
            return ray;
        }
        cut(&ray, self.max_distance)
    }
}

/// `ray` cut to a distance limit as the CPU cuts it (`QueryOptions::limit_ray`: `t * |dir|
/// <= max_distance`, the same operations, so the same bits; cutting again changes nothing,
/// so the CPU's finish may cut it again), or an empty range, which hits nothing, for a NaN
/// or negative limit.
fn cut(ray: &Ray, max_distance: f32) -> Ray {
    if max_distance.is_nan() || max_distance < 0.0 {
        return ray.with_range(1.0, 0.0);
    }
    let t_max = max_distance / ray.dir.length();
    ray.with_range(ray.t_min, ray.t_max.min(t_max))
}

/// Every ray's answer (a placeholder for an open one) and the open rays, each with what the
/// CPU needs beside its index.
pub(super) type Answers<T, O> = (Vec<T>, Vec<(usize, O)>);

/// A ray's answer from the GPU: decided, or left open for the CPU with what the CPU needs
/// beside the ray's index.
pub(super) enum Answer<T, O> {
    Done(T),
    Open(O),
}

pub(super) use Answer::{Done, Open};

/// The two kernels are one traversal: the CUDA kernel (`cuda/kernel.cu`, its host build) and
/// the WGSL kernel (on llvmpipe, which rounds as the host does: no fused products, correctly
/// rounded division) leave the same hit slots and the same any-hit counts, bit for bit, on
/// the same rays: hits, misses and the rays they leave open to the CPU alike.
#[cfg(all(test, feature = "host-kernel"))]
mod two_kernels {
    use std::sync::Arc;

    use meshcast::{Mesh, MeshFiles};
    use meshcast_primitives::{Ray, Triangle};
    use meshcast_testkit::{adversarial_rays, asset, incoherent_rays, random_rays};

    use super::{KernelRules, Rays};
    use crate::context::Gpu;
    use crate::gpu_mesh::GpuMesh;
    use crate::gpu_mesh::GpuQuery;
    use crate::kernel::{Backend, GpuOptions};
    use crate::stream::Source;

    /// Every hit slot and count the launch of `query` leaves for `rays` cut to `limit`.
    fn raw(
        on_gpu: &GpuMesh,
        query: GpuQuery,
        rays: &[Ray],
        limit: f32,
    ) -> (Vec<[u32; 4]>, Vec<u32>) {
        let (mut hits, mut counts) = (vec![[0; 4]; rays.len()], vec![0; rays.len()]);
        let rays = Rays::new(rays, limit);
        on_gpu
            .stream(
                query.shape(on_gpu.hit_capacity),
                KernelRules::default(),
                Source::Rays(&rays),
                |start, chunk_hits, chunk_counts| {
                    hits[start..start + chunk_hits.len()].copy_from_slice(chunk_hits);
                    counts[start..start + chunk_counts.len()].copy_from_slice(chunk_counts);
                },
            )
            .expect("launch");
        (hits, counts)
    }

    #[test]
    fn the_cuda_and_wgsl_kernels_leave_the_same_slots_and_counts() {
        // Both on the same tree, so that the slots name the same GPU triangles.
        let open = |backend, leaf| {
            Gpu::with_options(
                None,
                GpuOptions {
                    backend,
                    leaf: Some(leaf),
                    ..GpuOptions::default()
                },
            )
        };
        let wgpu = match open(Backend::Wgpu, 0) {
            Ok(gpu) if gpu.adapter().name.contains("llvmpipe") => gpu,
            Ok(gpu) => return eprintln!("skipped: {} may fuse products", gpu.adapter()),
            Err(error) => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI runs on llvmpipe: {error}"
                );
                return eprintln!("skipped: {error}");
            }
        };
        let name = wgpu.adapter().name.clone();
        let pairs = [0, 2].map(|leaf| {
            let wgpu = open(Backend::Wgpu, leaf).expect("as above");
            assert_eq!(wgpu.adapter().name, name);
            (wgpu, open(Backend::CudaHost, leaf).expect("the host build"))
        });
        for ((wgpu, host), name) in pairs.iter().flat_map(|pair| {
            ["suzanne.obj", "fandisk.obj", "stanford-bunny.obj"].map(|name| (pair, name))
        }) {
            let mesh = Arc::new(Mesh::from_path(asset(name)).expect("asset"));
            let bounds = mesh.bounds();
            let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
            let mut rays = random_rays(bounds, 3000, 11);
            rays.extend(incoherent_rays(bounds, 3000, 12));
            rays.extend(adversarial_rays(&triangles, 3000, 13));
            let (on_wgpu, on_host) = (
                wgpu.upload(Arc::clone(&mesh)).expect("upload"),
                host.upload(Arc::clone(&mesh)).expect("upload"),
            );
            let name = format!("{name}, {}", wgpu.kernel_options());
            for limit in [f32::INFINITY, 0.7] {
                let what = format!("{name}, limit {limit}");
                let closest = |on_gpu| raw(on_gpu, GpuQuery::Closest, &rays, limit).0;
                let (cuda, portable) = (closest(&on_host), closest(&on_wgpu));
                let open = cuda.iter().filter(|slot| slot[3] == super::FLAGGED).count();
                let found = cuda.iter().filter(|slot| slot[3] < super::FLAGGED).count();
                assert!(open > 0 && found > 100, "{what}: {open} open, {found} hit");
                for (i, (c, w)) in cuda.iter().zip(&portable).enumerate() {
                    assert_eq!(c, w, "{what}: closest, ray {i} {:?}", rays[i]);
                }
                let any = |on_gpu| raw(on_gpu, GpuQuery::Any, &rays, limit).1;
                let (cuda, portable) = (any(&on_host), any(&on_wgpu));
                assert!(
                    (0..3).all(|count| cuda.contains(&count)),
                    "{what}: {cuda:?}"
                );
                for (i, (c, w)) in cuda.iter().zip(&portable).enumerate() {
                    assert_eq!(c, w, "{what}: any hit, ray {i} {:?}", rays[i]);
                }
            }
        }
    }
}
