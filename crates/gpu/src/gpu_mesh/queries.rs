//! The queries a [`GpuMesh`] answers: batches of rays and camera images, each answer read
//! from the shader's hit slots or left open for the CPU.

use crate::Result;
use glam::Vec3;
use meshcast_mesh::{HitLists, RayQueries};
use meshcast_primitives::{Camera, Hit, Ray};

use super::launch::{Answer, Done, Open, Rays};
use super::{GpuMesh, GpuQuery};
use crate::layout::{Params, FLAGGED, NO_TRIANGLE};
use crate::stream::{RaySource, Shape, Source};

/// The shader's mode that answers no query but hands back the rays it made
/// (`trace.wgsl`'s `MODE_RAYS`), for [`GpuMesh::camera_rays`].
const RAYS_MODE: u32 = 4;

impl GpuMesh {
    /// The closest hit of each ray, as [`RayQueries::cast_batch`] answers on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
    pub fn cast_batch<R: RaySource + ?Sized>(&self, rays: &R) -> Result<Vec<Option<Hit>>> {
        let answers = self.launch(GpuQuery::Closest, Source::Rays(&Rays(rays)), |hits, _| {
            closest(hits[0], &self.triangle_ids)
        })?;
        Ok(self.complete(
            answers,
            |i, ()| rays.ray(i),
            |open| self.mesh.cast_batch(open),
        ))
    }

    /// Whether each ray hits anything, as [`RayQueries::occluded_batch`] answers.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
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
        Ok(self.complete(
            answers,
            |i, ()| rays.ray(i),
            |open| self.mesh.occluded_batch(open),
        ))
    }

    /// How many times each ray crosses the surface, as [`RayQueries::count_batch`] answers:
    /// the length of its [`RayQueries::cast_all`] list (the tie rule's count, each crossing
    /// once, so its parity tells inside from outside on a closed mesh).
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
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
        Ok(self.complete(
            answers,
            |i, ()| rays.ray(i),
            |open| self.mesh.count_batch(open),
        ))
    }

    /// Every hit of each ray, in hit order, as [`RayQueries::cast_all_batch`] answers. Up to
    /// [`GpuMesh::set_hit_capacity`] hits per ray are found on the GPU; a ray with more is
    /// answered on the CPU.
    ///
    /// # Errors
    /// [`Error::Gpu`](crate::Error::Gpu) if the GPU fails.
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
            .complete(
                answers,
                |i, ()| rays.ray(i),
                |open| {
                    let lists = self.mesh.cast_all_batch(open);
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
        let (directions, _) =
            self.launch_shape(shape, Source::Camera(params, pixels), |hits, _| {
                Done::<Vec3, ()>(direction(hits[0]))
            })?;
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
