//! [`Mesh`]'s queries in `f64` world coordinates: each ray ([`DRay`], the mesh's
//! [`RayQueries`] of `f64` rays) and point carried into the mesh's frame ([`Mesh::origin`])
//! in `f64` and rounded once, then asked as the mesh's own queries ask it, and the answers
//! given back in `f64` world units.
//!
//! The exactness contract is the mesh's, on the carried ray or point: a query answers
//! exactly what the `f32` query of the rounded, rebased ray answers (every crossing once,
//! touching hits, ties to the smaller triangle), so only the rounding of coordinates at the
//! mesh's own scale is left, wherever the mesh lies.

use crate::batches::{parallel_batch, serial_batch_in_order, BatchFrame, BatchTask};
use crate::mesh::Mesh;
use crate::points::{ClosestPoint, Feature, PointQueries};
use crate::queries::{
    packet_task, Filter, LevelWalks, PacketKind, QueryBox, QueryKind, QueryOptions, RayQueries,
};
use glam::{DVec3, Vec3};
use meshcast_primitives::{carry_point, Aabb, DFrame, DHit, DRay, Hit, Ray};

/// The surface point nearest to a point given in `f64` world coordinates
/// ([`PointQueries::closest_point`] of a [`DVec3`] on a mesh or an instance): the
/// [`ClosestPoint`] with its point and distance in world units.
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

impl DClosestPoint {
    /// `closest`'s triangle, barycentrics and feature, with its point in world coordinates
    /// and its distance from the query point, both in `f64`.
    pub(super) fn at(closest: ClosestPoint, point: DVec3, distance: f64) -> Self {
        Self {
            triangle: closest.triangle,
            point,
            u: closest.u,
            v: closest.v,
            feature: closest.feature,
            distance,
        }
    }
}

impl Mesh {
    /// `ray` (`f64` world coordinates) carried into the mesh's frame ([`DRay::carry`]: the
    /// origin moved along the ray when it starts farther from the centre of the mesh's box
    /// than [`meshcast_primitives::FAR_SIZES`] times the box's diagonal), with the shift to add
    /// to the carried ray's `t` to get the world ray's: what every query of a [`DRay`] asks
    /// the mesh's own walk with, for callers that batch rays themselves.
    #[inline]
    pub fn carry_ray(&self, ray: &DRay) -> (Ray, f64) {
        self.world_frame().carry(ray)
    }

    /// The mesh's frame ([`DFrame`]: its origin and its box), to carry many rays into it with
    /// [`DFrame::carry`] as [`Mesh::carry_ray`] carries one.
    #[inline]
    pub fn world_frame(&self) -> DFrame {
        self.frame
    }

    /// `point` (`f64` world coordinates) in the mesh's frame, rounded once: `point - origin`.
    #[inline]
    pub fn carry_point(&self, point: DVec3) -> glam::Vec3 {
        carry_point(point, self.origin())
    }

    /// The box from `min` to `max` (`f64` world coordinates) in the mesh's frame, each corner
    /// rounded once ([`Mesh::carry_point`]): where the grids laid over `[min, max]` in `f64`
    /// lay their points ([`Mesh::signed_distance_grid`], [`crate::QueryBox`]).
    pub fn frame_box(&self, min: DVec3, max: DVec3) -> Aabb {
        [min, max].in_frame(self.origin())
    }

    /// A point of the mesh's frame in `f64` world coordinates: `origin + point`.
    pub fn to_world(&self, point: glam::Vec3) -> DVec3 {
        self.origin() + point.as_dvec3()
    }
}

impl RayQueries<DRay> for Mesh {
    type Hit = DHit;
    type Candidate = u32;
}

impl LevelWalks<DRay, DHit, u32> for Mesh {
    /// The ray carried into the mesh's frame ([`Mesh::carry_ray`]) and walked there, its hits
    /// carried back.
    ///
    /// # Examples
    /// ```
    /// use glam::DVec3;
    /// use meshcast_mesh::{Mesh, RayQueries};
    /// use meshcast_primitives::DRay;
    ///
    /// // A triangle 500 km east and 5000 km north, as a survey gives it.
    /// let (x, y) = (500_123.37, 5_000_456.71);
    /// let tri = Mesh::from_world_triangles(&[[x, y, 0.0], [x + 1.0, y, 0.0], [x, y + 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let hit = tri.cast(&DRay::new(DVec3::new(x + 0.25, y + 0.25, 3.0), DVec3::NEG_Z)).ok_or("miss")?;
    /// assert_eq!(hit.t, 3.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    fn walk<Q: QueryKind, F: Filter<u32>>(
        &self,
        ray: &DRay,
        options: &QueryOptions<F>,
        kind: Q,
    ) -> Q::Answer<DHit> {
        let (local, shift) = self.carry_ray(ray);
        let answer = LevelWalks::<Ray, Hit, u32>::walk(self, &local, options, kind);
        Q::map(answer, |hit| DHit::carried_back(hit, shift))
    }

    /// The mesh's box in world coordinates (rounded to `f32`, which serves for choosing an
    /// order), as the driver sorts the rays before they are carried.
    #[inline]
    fn batch_frame(&self) -> BatchFrame {
        let origin = self.origin().as_vec3();
        let bounds = self.bounds();
        let world = Aabb::new(bounds.min + origin, bounds.max + origin);
        BatchFrame::new(world, self.acceleration_bytes())
    }

    /// Each task's rays cut to the distance limit along themselves, carried into the mesh's
    /// frame, traced as an `f32` batch's task traces them (packets where they are coherent),
    /// and their hits carried back: the rays are read once, and stay in the caches.
    fn batch<Q: PacketKind + Sync, F: Filter<u32> + Sync>(
        &self,
        rays: &[DRay],
        options: &QueryOptions<F>,
        kind: Q,
        answers: &mut [Q::Answer<DHit>],
    ) where
        Q::Answer<DHit>: Copy + Default + Send + Sync,
        Q::Answer<Hit>: Copy + Default + Send + Sync,
    {
        let unlimited = options.unlimited();
        let task = self.carried_task::<Q, F>(options, packet_task(self, &unlimited, kind));
        let frame = LevelWalks::<DRay, DHit, u32>::batch_frame(self);
        parallel_batch(rays, frame, options.order, answers, task);
    }

    /// [`LevelWalks::batch`] of `f64` rays on the calling thread.
    fn batch_serial<Q: PacketKind, F: Filter<u32>>(
        &self,
        rays: &[DRay],
        options: &QueryOptions<F>,
        kind: Q,
        answers: &mut [Q::Answer<DHit>],
    ) where
        Q::Answer<DHit>: Copy + Default,
        Q::Answer<Hit>: Copy + Default,
    {
        let unlimited = options.unlimited();
        let task = self.carried_task::<Q, F>(options, packet_task(self, &unlimited, kind));
        let frame = LevelWalks::<DRay, DHit, u32>::batch_frame(self);
        serial_batch_in_order(rays, frame, options.order, answers, task);
    }
}

impl Mesh {
    /// `task`, a batch task over `f32` rays in the mesh's frame, as a task over `f64` world
    /// rays: each task's rays cut to the options' distance limit and carried into the frame
    /// ([`carry_limited`]), walked, and their hits carried back.
    fn carried_task<'a, Q: PacketKind + 'a, F>(
        &self,
        options: &'a QueryOptions<F>,
        task: impl BatchTask<Ray, Q::Answer<Hit>> + 'a,
    ) -> impl BatchTask<DRay, Q::Answer<DHit>> + 'a
    where
        Q::Answer<Hit>: Copy + Default,
    {
        let frame = self.world_frame();
        move |rays: &[DRay], answers: &mut [Q::Answer<DHit>], width: Option<usize>| {
            let (carried, shifts): (Vec<Ray>, Vec<f64>) = rays
                .iter()
                .map(|ray| carry_limited(&frame, ray, options))
                .unzip();
            let mut found = vec![Q::nothing(); rays.len()];
            task(&carried, &mut found, width);
            for ((answer, found), shift) in answers.iter_mut().zip(found).zip(shifts) {
                *answer = Q::map(found, |hit| DHit::carried_back(hit, shift));
            }
        }
    }
}

/// `ray` cut to the options' distance limit along itself and carried into `frame`; a ray the
/// limit leaves nothing to find carried to an empty range, which hits nothing. With no limit
/// the ray is carried as it is, as a single ray's walk carries it ([`Mesh::carry_ray`]): a
/// degenerate ray carries to a degenerate one, which hits nothing either.
#[inline(always)]
fn carry_limited<F>(frame: &DFrame, ray: &DRay, options: &QueryOptions<F>) -> (Ray, f64) {
    if !options.limits_distance() {
        return frame.carry(ray);
    }
    match options.limit_ray(ray) {
        Some(ray) => frame.carry(&ray),
        None => (Ray::new(Vec3::ZERO, Vec3::X).with_range(1.0, 0.0), 0.0),
    }
}

impl PointQueries<DVec3> for Mesh {
    type Closest = DClosestPoint;
    type Candidate = u32;

    fn distance_of(closest: &DClosestPoint) -> f64 {
        closest.distance
    }

    /// The mesh's closest point to `point` carried into its frame ([`Mesh::carry_point`]),
    /// its point and distance in world units.
    fn closest_point<F: Filter<u32>>(
        &self,
        point: DVec3,
        options: &QueryOptions<F>,
    ) -> Option<DClosestPoint> {
        let closest: ClosestPoint = self.closest_point(self.carry_point(point), options)?;
        let world = self.origin() + closest.point.as_dvec3();
        Some(DClosestPoint::at(closest, world, world.distance(point)))
    }

    /// Whether the mesh contains `point` carried into its frame, rounded once.
    fn contains_finite(&self, point: DVec3) -> bool {
        self.contains(self.carry_point(point))
    }

    /// The winding number at `point` carried into the mesh's frame in `f64`, not rounded.
    fn winding_finite(&self, point: DVec3) -> f64 {
        self.winding_at(point - self.origin())
    }
}
