//! [`Mesh`]'s queries in `f64` world coordinates: each ray ([`DRay`]) and point carried into
//! the mesh's frame ([`Mesh::origin`]) in `f64` and rounded once, then asked as the mesh's
//! own queries ask it, and the answers given back in `f64` world units.
//!
//! The exactness contract is the mesh's, on the carried ray or point: a query answers
//! exactly what the `f32` query of the rounded, rebased ray answers (every crossing once,
//! touching hits, ties to the smaller triangle), so only the rounding of coordinates at the
//! mesh's own scale is left, wherever the mesh lies.

use glam::DVec3;
use meshcast_primitives::{carry_point, DFrame, DHit, DRay, Ray};
use rayon::prelude::*;

use crate::batches::BATCH_GRAIN;
use crate::mesh::Mesh;
use crate::{ClosestPoint, Feature, Filter, PointQueries, QueryOptions, RayQueries};

/// The surface point nearest to a point given in `f64` world coordinates
/// ([`Mesh::closest_point_f64`]): the mesh's [`ClosestPoint`] with its point and distance in
/// world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DClosestPoint {
    /// The triangle's index in the mesh.
    pub triangle: u32,
    /// The point, in world coordinates (the mesh's point plus its origin).
    pub point: DVec3,
    /// Barycentric weight of the triangle's second corner.
    pub u: f32,
    /// Barycentric weight of the triangle's third corner.
    pub v: f32,
    /// The part of the triangle the point lies on.
    pub feature: Feature,
    /// The distance from the query point to [`DClosestPoint::point`], in `f64`.
    pub distance: f64,
}

impl Mesh {
    /// `ray` (`f64` world coordinates) carried into the mesh's frame ([`DRay::carry`]: the
    /// origin moved along the ray when it starts farther from the centre of the mesh's box
    /// than [`meshcast_primitives::FAR_SIZES`] times the box's diagonal), with the shift to add to the carried ray's `t` to get the world ray's: what every
    /// `*_f64` ray query asks the mesh's own queries with, for callers that batch rays
    /// themselves.
    #[inline]
    pub fn carry_ray(&self, ray: &DRay) -> (Ray, f64) {
        self.world_frame().carry(ray)
    }

    /// The mesh's frame ([`DFrame`]: its origin and its box), to carry many rays into it with
    /// [`DFrame::carry`] as [`Mesh::carry_ray`] carries one.
    #[inline]
    pub fn world_frame(&self) -> DFrame {
        DFrame::new(self.origin(), &self.bounds())
    }

    /// The closest hit of a ray in `f64` world coordinates ([`RayQueries::cast`] of the ray
    /// carried into the mesh's frame), `t` in `f64` in units of the ray's direction. See
    /// [`Mesh::from_f64_triangles`] for an example.
    pub fn cast_f64(&self, ray: &DRay) -> Option<DHit> {
        let (local, shift) = self.carry_ray(ray);
        self.cast(&local).map(|hit| DHit::carried_back(hit, shift))
    }

    /// [`Mesh::cast_f64`] with [`QueryOptions`]: the distance limit is measured along the
    /// world ray, in `f64`, before the ray is carried (a ray from far away is moved along
    /// itself first, and its carried `t` starts where it was moved to).
    pub fn cast_f64_with<F: Filter<u32>>(
        &self,
        ray: &DRay,
        options: &QueryOptions<F>,
    ) -> Option<DHit> {
        let (local, shift) = self.carry_ray(&limited(ray, options)?);
        self.cast_with(&local, options)
            .map(|hit| DHit::carried_back(hit, shift))
    }

    /// Whether anything is hit within the range of a ray in `f64` world coordinates
    /// ([`RayQueries::occluded`] of the carried ray).
    pub fn occluded_f64(&self, ray: &DRay) -> bool {
        self.occluded(&self.carry_ray(ray).0)
    }

    /// Every hit of a ray in `f64` world coordinates, sorted by `t`, each crossing once
    /// ([`RayQueries::cast_all`] of the carried ray).
    pub fn cast_all_f64(&self, ray: &DRay) -> Vec<DHit> {
        let (local, shift) = self.carry_ray(ray);
        self.cast_all(&local)
            .into_iter()
            .map(|hit| DHit::carried_back(hit, shift))
            .collect()
    }

    /// The number of hits [`Mesh::cast_all_f64`] gives ([`RayQueries::count`]).
    pub fn count_f64(&self, ray: &DRay) -> usize {
        self.count(&self.carry_ray(ray).0)
    }

    /// [`Mesh::cast_f64`] for every ray, in parallel, in the order of `rays`, as
    /// [`RayQueries::cast_batch`] answers the carried rays.
    pub fn cast_batch_f64(&self, rays: &[DRay]) -> Vec<Option<DHit>> {
        let (local, shifts) = self.carry_all(rays);
        self.cast_batch(&local)
            .into_iter()
            .zip(shifts)
            .map(|(hit, shift)| hit.map(|hit| DHit::carried_back(hit, shift)))
            .collect()
    }

    /// [`Mesh::occluded_f64`] for every ray, in parallel, in the order of `rays`.
    pub fn occluded_batch_f64(&self, rays: &[DRay]) -> Vec<bool> {
        self.occluded_batch(&self.carry_all(rays).0)
    }

    /// Each ray carried into the mesh's frame, and its shift, in parallel.
    fn carry_all(&self, rays: &[DRay]) -> (Vec<Ray>, Vec<f64>) {
        let frame = self.world_frame();
        rays.par_iter()
            .with_min_len(BATCH_GRAIN)
            .map(|ray| frame.carry(ray))
            .unzip()
    }

    /// The surface point nearest to `point` (`f64` world coordinates) within
    /// `options.max_distance` ([`PointQueries::closest_point`] of the point carried into the
    /// mesh's frame), its point and distance in world units; `None` when nothing is that
    /// close or `point` is not finite.
    pub fn closest_point_f64<F: Filter<u32>>(
        &self,
        point: DVec3,
        options: &QueryOptions<F>,
    ) -> Option<DClosestPoint> {
        let closest: ClosestPoint = self.closest_point(self.carry_point(point), options)?;
        let world = self.origin() + closest.point.as_dvec3();
        Some(DClosestPoint {
            triangle: closest.triangle,
            point: world,
            u: closest.u,
            v: closest.v,
            feature: closest.feature,
            distance: world.distance(point),
        })
    }

    /// Whether `point` (`f64` world coordinates) is inside ([`PointQueries::contains`] of the
    /// carried point).
    pub fn contains_f64(&self, point: DVec3) -> bool {
        point.is_finite() && self.contains(self.carry_point(point))
    }

    /// The winding number at `point` (`f64` world coordinates), in `f64`
    /// (the winding number of [`PointQueries::winding_number`] at the point carried into the
    /// mesh's frame in `f64`, not rounded); NaN for a point that is not
    /// finite.
    pub fn winding_number_f64(&self, point: DVec3) -> f64 {
        if point.is_finite() {
            self.winding_at(point - self.origin())
        } else {
            f64::NAN
        }
    }

    /// The distance from `point` (`f64` world coordinates) to the surface, in `f64`, negative
    /// when [`Mesh::contains_f64`] says the point is inside; `None` for an empty mesh or a
    /// point that is not finite.
    pub fn signed_distance_f64(&self, point: DVec3) -> Option<f64> {
        let closest = self.closest_point_f64(point, &QueryOptions::new())?;
        Some(if self.contains_f64(point) {
            -closest.distance
        } else {
            closest.distance
        })
    }

    /// `point` (`f64` world coordinates) in the mesh's frame, rounded once: `point - origin`.
    #[inline]
    pub fn carry_point(&self, point: DVec3) -> glam::Vec3 {
        carry_point(point, self.origin())
    }

    /// A point of the mesh's frame in `f64` world coordinates: `origin + point`.
    pub fn to_world(&self, point: glam::Vec3) -> DVec3 {
        self.origin() + point.as_dvec3()
    }
}

/// `ray` with its range cut to the options' distance limit (`t * |dir| <= max_distance`, in
/// `f64`), or `None` when nothing can be found: a degenerate ray, a NaN or negative limit.
pub(super) fn limited<F>(ray: &DRay, options: &QueryOptions<F>) -> Option<DRay> {
    let limit = f64::from(options.max_distance);
    if !ray.is_valid() || limit.is_nan() || limit < 0.0 {
        return None;
    }
    Some(ray.with_range(ray.t_min, ray.t_max.min(limit / ray.dir.length())))
}
