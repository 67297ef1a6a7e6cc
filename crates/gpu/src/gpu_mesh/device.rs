//! Rays that stay on the device (feature `cuda`): [`GpuMesh::cast_device`] and
//! [`GpuMesh::occluded_device`] read the caller's arrays on the CUDA device and answer in
//! arrays there, the open rays, and only they, read back, answered by the CPU engine and put
//! in place, so that every answer is the CPU's as for rays from the host.

use std::sync::atomic::Ordering;

use meshcast_mesh::{Culling, QueryOptions, RayQueries};
use meshcast_primitives::Ray;
use rayon::prelude::*;

use super::GpuMesh;
use crate::cuda::{CudaMesh, DeviceAnswers, DeviceBuffer, DeviceCast, DeviceRays, Mode, Trace};
use crate::error::{Error, Result};
use crate::layout::{FLAGGED, NO_TRIANGLE};

impl GpuMesh {
    /// The closest hit of each ray on the device, as [`GpuMesh::cast_batch_with`] answers,
    /// laid out in arrays on the device ([`DeviceCast`]): the rays are read there, and only
    /// those the kernel leaves open (a few in ten thousand) cross to the host, to be answered
    /// by the CPU engine with `options` (its contacts rule) and put in place. The query waits
    /// on the device for the rays' stream ([`DeviceRays::after_stream`]) and returns once
    /// every answer is written.
    ///
    /// # Errors
    /// [`Error::DeviceRays`] without the CUDA back end (rays on the device are read only by
    /// it), with rays in memory the device cannot read, or with options the kernel does not
    /// apply (a distance limit, culling); [`Error::NotFinite`] for a ray with a NaN or
    /// infinite number; [`Error::Gpu`] if the device fails.
    pub fn cast_device(&self, rays: &DeviceRays, options: &QueryOptions) -> Result<DeviceCast> {
        match self.on_device(Mode::Closest, rays, options)? {
            DeviceAnswers::Closest(cast) => Ok(*cast),
            DeviceAnswers::Any(_) => unreachable!("closest hits are laid out as such"),
        }
    }

    /// Whether each ray on the device hits anything, as [`GpuMesh::occluded_batch_with`]
    /// answers: a byte per ray on the device, 1 for a hit, 0 for none (the rays and the
    /// answers as for [`GpuMesh::cast_device`]).
    ///
    /// # Errors
    /// As [`GpuMesh::cast_device`].
    pub fn occluded_device(
        &self,
        rays: &DeviceRays,
        options: &QueryOptions,
    ) -> Result<DeviceBuffer> {
        match self.on_device(Mode::Any, rays, options)? {
            DeviceAnswers::Any(occluded) => Ok(occluded),
            DeviceAnswers::Closest(_) => unreachable!("any hits are laid out as such"),
        }
    }

    /// `bytes` copied to the CUDA device the mesh is on (to host memory where the kernel runs
    /// on the host): rays from the host for [`GpuMesh::cast_device`], in tests and
    /// benchmarks.
    ///
    /// # Errors
    /// [`Error::DeviceRays`] without the CUDA back end; [`Error::Gpu`] if the copy fails.
    pub fn device_copy(&self, bytes: &[u8]) -> Result<DeviceBuffer> {
        self.device_back_end(&QueryOptions::new())?.copy_of(bytes)
    }

    /// The CUDA back end, if it is open and `options` ask only what it applies.
    fn device_back_end(&self, options: &QueryOptions) -> Result<&CudaMesh> {
        let refuse = |reason: &str| {
            Err(Error::DeviceRays {
                reason: reason.to_owned(),
            })
        };
        if options.max_distance != f32::INFINITY {
            return refuse("a distance limit is not applied on the device; give the rays' range");
        }
        if options.culling != Culling::Off {
            return refuse("back-face culling is not applied on the device");
        }
        match &self.cuda {
            Some(cuda) => Ok(cuda),
            None => refuse(
                "they are read only by the CUDA back end, and this mesh's GPU has none (no \
                 NVIDIA driver or device, or MESHCAST_GPU_BACKEND=wgpu)",
            ),
        }
    }

    /// Runs `mode` over `rays` on the device: packed, traced and laid out a chunk at a time,
    /// the open rays then answered on the CPU and put in place.
    fn on_device(
        &self,
        mode: Mode,
        rays: &DeviceRays,
        options: &QueryOptions,
    ) -> Result<DeviceAnswers> {
        let cuda = self.device_back_end(options)?;
        let count = rays.len();
        let mut answers = cuda.device_answers(mode, count)?;
        cuda.wait_for(rays)?;
        let trace = if self.mesh.bvh().is_empty() {
            // Nothing to hit: every ray misses, on the CPU too.
            Trace::Fill(match mode {
                Mode::Closest => NO_TRIANGLE,
                Mode::Any => 0,
            })
        } else if !self.traceable {
            // Coordinates the kernel cannot take: every ray is left to the CPU.
            Trace::Fill(match mode {
                Mode::Closest => FLAGGED,
                Mode::Any => 2,
            })
        } else {
            Trace::Kernel
        };
        let tables = (self.triangle_ids.as_slice(), self.unit_normals().as_slice());
        let chunk = (self.gpu.shared.options.chunk as usize).clamp(1, CudaMesh::chunk_limit());
        let mut scratch = cuda.scratch(count.min(chunk))?;
        let (mut open_index, mut open_rays) = (Vec::new(), Vec::new());
        for first in (0..count).step_by(chunk) {
            let n = chunk.min(count - first);
            let (index, rays) = cuda.chunk(
                mode,
                rays,
                (first, n),
                trace,
                tables,
                &mut answers,
                &mut scratch,
            )?;
            open_index.extend(index);
            open_rays.extend(rays);
        }
        drop(scratch);
        self.rays.fetch_add(count as u64, Ordering::Relaxed);
        self.finished_on_cpu
            .fetch_add(open_index.len() as u64, Ordering::Relaxed);
        let open: Vec<Ray> = open_rays.par_iter().map(|ray| ray.ray()).collect();
        let words: Vec<u32> = match mode {
            Mode::Closest => {
                let hits = self.mesh.cast_batch_with(&open, options);
                open_index
                    .iter()
                    .zip(hits)
                    .flat_map(|(&ray, hit)| match hit {
                        Some(hit) => [
                            ray,
                            hit.t.to_bits(),
                            hit.u.to_bits(),
                            hit.v.to_bits(),
                            hit.triangle,
                        ],
                        None => [ray, 0, 0, 0, u32::MAX],
                    })
                    .collect()
            }
            Mode::Any => {
                let occluded = self.mesh.occluded_batch_with(&open, options);
                open_index
                    .iter()
                    .zip(occluded)
                    .flat_map(|(&ray, hit)| [ray, u32::from(hit)])
                    .collect()
            }
        };
        cuda.put(&words, tables, &mut answers)?;
        cuda.finish()?;
        Ok(answers)
    }

    /// Each triangle's unit normal, as the Python package reports it (`Triangle::normal`
    /// normalised, zero for a degenerate one), made at the first call, on one thread (a
    /// rayon worker waiting in a `OnceLock` on a job it stole could wait on itself).
    fn unit_normals(&self) -> &Vec<[f32; 3]> {
        self.unit_normals.get_or_init(|| {
            let tri_mesh = self.mesh.tri_mesh();
            (0..tri_mesh.triangle_count())
                .map(|i| {
                    tri_mesh
                        .triangle(i)
                        .map_or(glam::Vec3::ZERO, |t| t.normal().normalize_or_zero())
                        .to_array()
                })
                .collect()
        })
    }
}
