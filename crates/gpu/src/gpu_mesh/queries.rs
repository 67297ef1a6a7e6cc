//! The queries a [`GpuMesh`] answers: batches of rays and camera images, each answer read
//! from the shader's hit slots or left open for the CPU.

use crate::error::Result;
use glam::Vec3;
use meshcast_mesh::{Filter, HitLists, QueryOptions, RayQueries};
use meshcast_primitives::{Camera, Hit, Ray};

use super::launch::{Answer, Done, KernelRules, Open, Rays};
use super::{AnswerSink, GpuMesh, GpuQuery};
use crate::layout::{Params, FLAGGED, NO_TRIANGLE};
use crate::rays::RaySource;
use crate::stream::{Shape, Source};

/// The shader's mode that answers no query but hands back the rays it made
/// (`shader/inputs.wgsl`'s `MODE_RAYS`), for [`GpuMesh::camera_rays`].
const RAYS_MODE: u32 = 4;

impl GpuMesh {
    /// The closest hit of each ray, as [`RayQueries::cast_batch`] answers on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    pub fn cast_batch<R: RaySource + ?Sized>(&self, rays: &R) -> Result<Vec<Option<Hit>>> {
        self.cast_batch_with(rays, &QueryOptions::new())
    }

    /// The closest hit of each ray that the options keep, as [`RayQueries::cast_batch_with`]
    /// answers on the CPU: the distance limit and culling are applied by the shader, the
    /// contacts rule and the filter by the CPU (a ray through an edge or a vertex is always
    /// finished there, and so is a ray whose closest hit the filter rejects). The mask and
    /// the batch order do not apply to one mesh.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    ///
    /// # Examples
    /// ```no_run
    /// use meshcast_gpu::Gpu;
    /// use meshcast_mesh::{Culling, Mesh, QueryOptions};
    /// use meshcast_primitives::Ray;
    ///
    /// let mesh = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let on_gpu = Gpu::new()?.upload(mesh)?;
    /// // The triangle faces +z: seen from below, it is a back face.
    /// let up = [Ray::new(glam::Vec3::new(0.25, 0.25, -1.0), glam::Vec3::Z)];
    /// let culled = QueryOptions::new().with_culling(Culling::BackFaces);
    /// assert_eq!(on_gpu.cast_batch_with(&up, &culled)?[0], None);
    /// assert!(on_gpu.cast_batch_with(&up, &QueryOptions::new().with_max_distance(2.0))?[0].is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cast_batch_with<R: RaySource + ?Sized, F: Filter<u32> + Sync>(
        &self,
        rays: &R,
        options: &QueryOptions<F>,
    ) -> Result<Vec<Option<Hit>>> {
        let mut hits = Vec::with_capacity(rays.len());
        self.cast_batch_into_with(rays, options, &mut hits)?;
        Ok(hits)
    }

    /// [`GpuMesh::cast_batch_with`], each hit handed to `sink` as it is decided rather than
    /// gathered in a `Vec`: for a caller who lays the hits out in arrays of its own.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    ///
    /// # Examples
    /// ```no_run
    /// use meshcast_gpu::{AnswerSink, Gpu};
    /// use meshcast_mesh::{Mesh, QueryOptions};
    /// use meshcast_primitives::{Hit, Ray};
    /// use rayon::prelude::*;
    ///
    /// /// Each ray's distance to its closest hit, infinite on a miss.
    /// struct Distances(Vec<f32>);
    ///
    /// impl AnswerSink<Option<Hit>> for Distances {
    ///     fn take<I: IndexedParallelIterator<Item = Option<Hit>>>(&mut self, first: usize, hits: I) {
    ///         let run = &mut self.0[first..first + hits.len()];
    ///         run.par_iter_mut().zip(hits).for_each(|(t, hit)| *t = hit.map_or(f32::INFINITY, |h| h.t));
    ///     }
    ///
    ///     fn put(&mut self, ray: usize, hit: Option<Hit>) {
    ///         self.0[ray] = hit.map_or(f32::INFINITY, |h| h.t);
    ///     }
    /// }
    ///
    /// let mesh = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let on_gpu = Gpu::new()?.upload(mesh)?;
    /// let rays = [Ray::new(glam::Vec3::new(0.25, 0.25, -1.0), glam::Vec3::Z)];
    /// let mut distances = Distances(vec![0.0; rays.len()]);
    /// on_gpu.cast_batch_into_with(&rays, &QueryOptions::new(), &mut distances)?;
    /// assert_eq!(distances.0, [1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cast_batch_into_with<R: RaySource + ?Sized, F: Filter<u32> + Sync>(
        &self,
        rays: &R,
        options: &QueryOptions<F>,
        sink: &mut impl AnswerSink<Option<Hit>>,
    ) -> Result<()> {
        let rays = Rays::new(rays, options.max_distance);
        let open = self.launch_into(
            GpuQuery::Closest.shape(self.hit_capacity),
            kernel_rules(options, 0),
            Source::Rays(&rays),
            |hits, _| kept_closest(closest(hits[0], &self.triangle_ids), options),
            sink,
        )?;
        self.finish(
            rays.len(),
            open,
            |i, ()| rays.ray(i),
            |open| self.mesh.cast_batch_with(open, options),
            sink,
        );
        Ok(())
    }

    /// Whether each ray hits anything, as [`RayQueries::occluded_batch`] answers.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    pub fn occluded_batch<R: RaySource + ?Sized>(&self, rays: &R) -> Result<Vec<bool>> {
        self.occluded_batch_with(rays, &QueryOptions::new())
    }

    /// Whether each ray hits anything that the options keep, as
    /// [`RayQueries::occluded_batch_with`] answers (the options as for
    /// [`GpuMesh::cast_batch_with`]). With a filter, the shader finds each ray's closest
    /// hit, and a ray whose closest hit the filter rejects is finished on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    pub fn occluded_batch_with<R: RaySource + ?Sized, F: Filter<u32> + Sync>(
        &self,
        rays: &R,
        options: &QueryOptions<F>,
    ) -> Result<Vec<bool>> {
        let rays = Rays::new(rays, options.max_distance);
        let rules = kernel_rules(options, 0);
        let answers =
            if options.filter.keeps_everything() {
                self.launch(
                    GpuQuery::Any,
                    rules,
                    Source::Rays(&rays),
                    |_, count| match count {
                        0 => Done(false),
                        1 => Done(true),
                        _ => Open(()),
                    },
                )?
            } else {
                self.launch(GpuQuery::Closest, rules, Source::Rays(&rays), |hits, _| {
                    match kept_closest(closest(hits[0], &self.triangle_ids), options) {
                        Done(hit) => Done(hit.is_some()),
                        Open(()) => Open(()),
                    }
                })?
            };
        Ok(self.complete(
            answers,
            |i, ()| rays.ray(i),
            |open| self.mesh.occluded_batch_with(open, options),
        ))
    }

    /// How many times each ray crosses the surface, as [`RayQueries::count_batch`] answers:
    /// the length of its [`RayQueries::cast_all`] list (the tie rule's count, each crossing
    /// once, so its parity tells inside from outside on a closed mesh).
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    pub fn count_batch<R: RaySource + ?Sized>(&self, rays: &R) -> Result<Vec<u32>> {
        self.count_batch_with(rays, &QueryOptions::new())
    }

    /// The length of each ray's [`GpuMesh::cast_all_batch_with`] list, as
    /// [`RayQueries::count_batch_with`] answers (the options as for
    /// [`GpuMesh::cast_all_batch_with`]). With a filter, the shader lists each ray's hits
    /// (up to [`GpuMesh::set_hit_capacity`]) and the filter counts them.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    pub fn count_batch_with<R: RaySource + ?Sized, F: Filter<u32> + Sync>(
        &self,
        rays: &R,
        options: &QueryOptions<F>,
    ) -> Result<Vec<u32>> {
        let rays = Rays::new(rays, options.max_distance);
        let max_hits = u32::try_from(options.max_hits).unwrap_or(u32::MAX);
        let answers = if options.filter.keeps_everything() {
            self.launch(
                GpuQuery::Count,
                kernel_rules(options, 0),
                Source::Rays(&rays),
                |_, count| match count {
                    FLAGGED => Open(()),
                    count => Done(count.min(max_hits)),
                },
            )?
        } else {
            // Every hit listed (no `keep`: the first hits may be rejected), then filtered.
            self.launch(
                GpuQuery::All,
                kernel_rules(options, 0),
                Source::Rays(&rays),
                |hits, count| match count {
                    FLAGGED => Open(()),
                    count => {
                        let kept = hits[..count as usize]
                            .iter()
                            .filter(|slot| options.filter.keep(self.triangle_ids[slot[3] as usize]))
                            .count();
                        Done(u32::try_from(kept).unwrap_or(u32::MAX).min(max_hits))
                    }
                },
            )?
        };
        Ok(self.complete(
            answers,
            |i, ()| rays.ray(i),
            |open| self.mesh.count_batch_with(open, options),
        ))
    }

    /// Every hit of each ray, in hit order, as [`RayQueries::cast_all_batch`] answers. Up to
    /// [`GpuMesh::set_hit_capacity`] hits per ray are found on the GPU; a ray with more is
    /// answered on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    pub fn cast_all_batch<R: RaySource + ?Sized>(&self, rays: &R) -> Result<HitLists<Hit>> {
        self.cast_all_batch_with(rays, &QueryOptions::new())
    }

    /// Every hit of each ray that the options keep, in hit order, as
    /// [`RayQueries::cast_all_batch_with`] answers: the distance limit and culling are
    /// applied by the shader, and so is [`QueryOptions::max_hits`] up to the hit capacity
    /// (the shader keeps the first `max_hits` hits it meets in hit order and walks no
    /// farther than the last of them, so a ray with more hits than the capacity stays on the
    /// GPU); the filter is applied to the listed hits, and a ray whose first `max_hits` hits
    /// it does not all keep is finished on the CPU. Every hit counts crossings by the tie
    /// rule whatever [`QueryOptions::contacts`] says, as on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    pub fn cast_all_batch_with<R: RaySource + ?Sized, F: Filter<u32> + Sync>(
        &self,
        rays: &R,
        options: &QueryOptions<F>,
    ) -> Result<HitLists<Hit>> {
        let rays = Rays::new(rays, options.max_distance);
        let max_hits = options.max_hits;
        // The shader lists the first `max_hits` where they fit in its slots, or every hit.
        let keep = u32::try_from(max_hits)
            .ok()
            .filter(|&keep| keep <= self.hit_capacity)
            .unwrap_or(0);
        let filtered = !options.filter.keeps_everything();
        let answers = self.launch(
            GpuQuery::All,
            kernel_rules(options, keep),
            Source::Rays(&rays),
            |hits, count| {
                if count == FLAGGED {
                    return Open(());
                }
                let mut list: Vec<Hit> = hits[..count as usize]
                    .iter()
                    .map(|&slot| hit(slot, &self.triangle_ids))
                    .collect();
                list.sort_by(Hit::order);
                if filtered {
                    // A list of fewer than `keep` hits (or of every hit) is the ray's whole
                    // list; a full one of the first `keep` is enough only if the filter keeps
                    // all of it.
                    let whole = keep == 0 || count < keep;
                    let before = list.len();
                    list.retain(|hit| options.filter.keep(hit.triangle));
                    if !whole && list.len() < before {
                        return Open(());
                    }
                }
                list.truncate(max_hits);
                Done(list)
            },
        )?;
        Ok(self
            .complete(
                answers,
                |i, ()| rays.ray(i),
                |open| {
                    let lists = self.mesh.cast_all_batch_with(open, options);
                    lists.iter().map(<[Hit]>::to_vec).collect()
                },
            )
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
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
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
            KernelRules::default(),
            Source::Camera(params, pixels),
            |hits, _| match closest(hits[0], &self.triangle_ids) {
                Done(hit) => Done(hit),
                // A flagged pixel carries the direction the GPU made.
                Open(()) => Open(direction(hits[0])),
            },
        )?;
        let ray = |i: usize, dir| {
            if self.traceable {
                Ray::new(camera.eye, dir)
            } else {
                camera.ray_through_pixel(i as u32 % width, i as u32 / width, width, height)
            }
        };
        Ok(self.complete(answers, ray, |open| self.mesh.cast_batch(open)))
    }

    /// The rays the GPU makes for [`GpuMesh::cast_camera`], for checking its answers
    /// against the CPU engine ray by ray.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    #[doc(hidden)]
    pub fn camera_rays(&self, camera: &Camera, width: u32, height: u32) -> Result<Vec<Ray>> {
        let pixels = width as usize * height as usize;
        let params = camera_params(camera, width, height);
        // No query: every ray comes back flagged with its direction.
        let shape = Shape {
            mode: RAYS_MODE,
            ..GpuQuery::Closest.shape(1)
        };
        let mut directions = Vec::with_capacity(pixels);
        self.launch_into(
            shape,
            KernelRules::default(),
            Source::Camera(params, pixels),
            |hits, _| Done::<Vec3, ()>(direction(hits[0])),
            &mut directions,
        )?;
        Ok(directions
            .into_iter()
            .map(|dir| Ray::new(camera.eye, dir))
            .collect())
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

/// The closest-hit answer in a hit slot.
fn closest(slot: [u32; 4], triangle_ids: &[u32]) -> Answer<Option<Hit>, ()> {
    match slot[3] {
        NO_TRIANGLE => Done(None),
        FLAGGED => Open(()),
        _ => Done(Some(hit(slot, triangle_ids))),
    }
}

/// A decided closest hit that the options' filter rejects left open: the CPU finds the
/// closest one it keeps.
fn kept_closest<F: Filter<u32>>(
    answer: Answer<Option<Hit>, ()>,
    options: &QueryOptions<F>,
) -> Answer<Option<Hit>, ()> {
    match answer {
        Done(Some(hit)) if !options.filter.keep(hit.triangle) => Open(()),
        answer => answer,
    }
}

/// What `options` ask of the shader, listing the first `keep` hits (0: every hit).
fn kernel_rules<F>(options: &QueryOptions<F>, keep: u32) -> KernelRules {
    KernelRules {
        culling: options.culling,
        keep,
    }
}

/// The direction a flagged camera ray carries back.
fn direction([x, y, z, _]: [u32; 4]) -> Vec3 {
    Vec3::new(f32::from_bits(x), f32::from_bits(y), f32::from_bits(z))
}

pub(super) fn camera_params(camera: &Camera, width: u32, height: u32) -> Params {
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
