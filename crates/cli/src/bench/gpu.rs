//! `meshcast bench --gpu`: the GPU's figures for a mesh, its upload and the ray sets' and a
//! camera image's throughput.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use meshcast::gpu::{Gpu, GpuMesh, GpuQuery};
use meshcast::{Camera, Mesh, Ray};

use crate::progress::Progress;
use crate::timing::median;

use super::{Query, RaySet};

/// The rays of a GPU figure: a host ray set, or a camera whose rays the GPU makes.
#[derive(Clone, Copy, Debug)]
pub(super) enum GpuRays {
    Host(RaySet),
    Camera,
}

impl GpuRays {
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Host(set) => set.name(),
            Self::Camera => "camera",
        }
    }
}

/// One GPU throughput figure.
pub(super) struct GpuThroughput {
    pub(super) rays: GpuRays,
    pub(super) query: Query,
    pub(super) count: usize,
    pub(super) hits: usize,
    /// Rays of one end-to-end run that the GPU left open and the CPU answered.
    pub(super) finished_on_cpu: u64,
    /// The kernel alone, rays already on the GPU: the best of the runs.
    pub(super) kernel: Duration,
    /// From host rays to answers on the host, upload, readback and CPU finishing included:
    /// the median of the runs.
    pub(super) end_to_end: Duration,
}

/// Everything measured on the GPU for one mesh.
pub(super) struct GpuBench {
    /// From the CPU mesh to its first answer on the GPU: the copy is complete.
    pub(super) upload_time: Duration,
    pub(super) bytes: u64,
    pub(super) throughput: Vec<GpuThroughput>,
}

/// The upload, then the closest and any hit of each ray set and a camera image on the GPU.
#[allow(clippy::too_many_arguments)]
pub(super) fn bench_gpu(
    gpu: &Gpu,
    mesh: &Arc<Mesh>,
    ray_sets: &[(RaySet, Vec<Ray>)],
    (camera, width, height): (&Camera, u32, u32),
    pool: &rayon::ThreadPool,
    runs: usize,
    name: &str,
    progress: &mut Progress,
) -> Result<GpuBench> {
    progress.step(format!("{name}: GPU upload"));
    // wgpu may finish the copy at the next submission: one ray's answer waits for it.
    let first_ray = ray_sets
        .first()
        .map_or(&[][..], |(_, rays)| &rays[..rays.len().min(1)]);
    let (on_gpu, upload_time) = median(runs, || -> Result<GpuMesh> {
        let on_gpu = gpu.upload(Arc::clone(mesh))?;
        on_gpu.cast_batch(first_ray)?;
        Ok(on_gpu)
    });
    let on_gpu = on_gpu?;
    progress.done();

    let mut throughput = Vec::new();
    let mut measure = |rays: GpuRays,
                       query: Query,
                       count: usize,
                       kernel: &dyn Fn() -> Result<Duration>,
                       answer: &(dyn Fn() -> Result<usize> + Sync)|
     -> Result<()> {
        progress.step(format!("{name}: GPU {} {}", rays.name(), query.name()));
        let kernel = kernel()?;
        let before = on_gpu.stats().finished_on_cpu;
        let (hits, end_to_end) = median(runs, || pool.install(answer));
        let finished_on_cpu = (on_gpu.stats().finished_on_cpu - before) / runs.max(1) as u64;
        throughput.push(GpuThroughput {
            rays,
            query,
            count,
            hits: hits?,
            finished_on_cpu,
            kernel,
            end_to_end,
        });
        progress.done();
        Ok(())
    };
    for (set, rays) in ray_sets {
        for query in [Query::Closest, Query::Any] {
            let gpu_query = match query {
                Query::Closest => GpuQuery::Closest,
                Query::Any => GpuQuery::Any,
            };
            measure(
                GpuRays::Host(*set),
                query,
                rays.len(),
                &|| {
                    let resident = on_gpu.resident_rays(rays, gpu_query)?;
                    Ok(on_gpu.time(&resident, gpu_query, runs)?)
                },
                &|| gpu_hits(&on_gpu, rays, query),
            )?;
        }
    }
    measure(
        GpuRays::Camera,
        Query::Closest,
        width as usize * height as usize,
        &|| {
            let resident = on_gpu.resident_camera(camera, width, height)?;
            Ok(on_gpu.time(&resident, GpuQuery::Closest, runs)?)
        },
        &|| {
            let hits = on_gpu.cast_camera(camera, width, height)?;
            Ok(hits.iter().flatten().count())
        },
    )?;
    Ok(GpuBench {
        upload_time,
        bytes: on_gpu.gpu_bytes(),
        throughput,
    })
}

/// Answers every ray on the GPU, the open ones finished in the current rayon pool, and
/// counts the hits.
fn gpu_hits(on_gpu: &GpuMesh, rays: &[Ray], query: Query) -> Result<usize> {
    Ok(match query {
        Query::Closest => on_gpu.cast_batch(rays)?.iter().flatten().count(),
        Query::Any => on_gpu
            .occluded_batch(rays)?
            .iter()
            .filter(|&&hit| hit)
            .count(),
    })
}
