//! An [`Instance`]'s and a [`Scene`]'s point queries ([`PointQueries`]) in `f64` world
//! coordinates: the nearest point, found with every
//! instance's triangles carried to the query point (so that the point and its distance keep
//! the precision of the distance, wherever the scene lies), inside and outside, winding
//! numbers and signed distances, each instance asked at the point carried into its mesh's
//! frame in `f64`.

use glam::DVec3;

use crate::points::{ClosestPoint, PointQueries};
use crate::queries::{Filter, InstanceId, QueryOptions};
use crate::scene::{Instance, Scene};
use crate::world::DClosestPoint;

/// The point of a scene nearest to a query point in `f64` world coordinates
/// ([`PointQueries::closest_point`] of a [`DVec3`] on a scene): the instance, and the point on its mesh with its point and
/// distance in `f64` world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DSceneClosestPoint {
    /// The instance.
    pub instance: InstanceId,
    /// The point on its mesh (the triangle, its barycentrics and feature in the mesh's
    /// numbering), in world coordinates.
    pub closest: DClosestPoint,
}

impl DClosestPoint {
    /// A closest point found with the triangles carried to `query` (its point relative to
    /// `query`), in world coordinates.
    fn relative_to(closest: ClosestPoint, query: DVec3) -> Self {
        let relative = closest.point.as_dvec3();
        Self::at(closest, query + relative, relative.length())
    }
}

impl PointQueries<DVec3> for Instance {
    type Closest = DClosestPoint;
    type Candidate = u32;

    fn distance_of(closest: &DClosestPoint) -> f64 {
        closest.distance
    }

    /// The nearest point with the instance's triangles carried to `point`, as a scene finds
    /// it ([`PointQueries::closest_point`] of a [`DVec3`] on a scene): none when the
    /// instance's layers miss the options' mask.
    fn closest_point<F: Filter<u32>>(
        &self,
        point: DVec3,
        options: &QueryOptions<F>,
    ) -> Option<DClosestPoint> {
        let closest = self.nearest_far(point, options)?;
        Some(DClosestPoint::relative_to(closest, point))
    }

    /// Whether the mesh contains the point carried into its frame in `f64`
    /// ([`Instance::carry_point`]), rounded once.
    fn contains_finite(&self, point: DVec3) -> bool {
        self.contains_at_world(point)
    }

    fn winding_finite(&self, point: DVec3) -> f64 {
        self.winding_at_world(point)
    }
}

impl PointQueries<DVec3> for Scene {
    type Closest = DSceneClosestPoint;
    type Candidate = (InstanceId, u32);

    fn distance_of(closest: &DSceneClosestPoint) -> f64 {
        closest.closest.distance
    }

    /// The surface point of the scene nearest to `point` within `options.max_distance`, among
    /// the instances on the mask's layers and the triangles the filter keeps, as the `f32`
    /// query finds it: ties to the smaller instance id, then triangle.
    ///
    /// Each instance's triangles are carried to `point` (by its `f64` transform after a
    /// translation by `-point`, rounded to `f32` once) and measured there, so the answer
    /// equals a loop over every instance's triangles so carried, and the point and distance
    /// are exact up to a few float steps of the distance itself: a scene spanning a city
    /// or a planet measures a centimetre as at the origin.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{DAffine3, DVec3};
    /// use meshcast_mesh::{Instance, Mesh, PointQueries, QueryOptions, Scene};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// // At a UTM position, where f32 world coordinates are half a metre apart.
    /// let utm = DVec3::new(500_123.37, 5_000_456.71, 100.0);
    /// let scene = Scene::from_instances([Instance::new(tri, DAffine3::from_translation(utm))?]);
    /// let closest = scene.closest_point(utm + DVec3::new(0.25, 0.25, 0.01), &QueryOptions::new()).ok_or("none")?;
    /// assert!((closest.closest.distance - 0.01).abs() < 1e-7);
    /// assert!(closest.closest.point.distance(utm + DVec3::new(0.25, 0.25, 0.0)) < 1e-7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn closest_point<F: Filter<(InstanceId, u32)>>(
        &self,
        point: DVec3,
        options: &QueryOptions<F>,
    ) -> Option<DSceneClosestPoint> {
        let found = self.nearest_far(point, options)?;
        Some(DSceneClosestPoint {
            instance: found.instance,
            closest: DClosestPoint::relative_to(found.closest, point),
        })
    }

    /// Whether any instance contains the point, each asked with the point carried into its
    /// mesh's frame in `f64`, so that a far instance decides at its own precision.
    fn contains_finite(&self, point: DVec3) -> bool {
        self.instances()
            .any(|(_, instance)| instance.contains_at_world(point))
    }

    /// The sum of the instances' winding numbers, each at the point carried into its mesh's
    /// frame, unrounded, turned over by a mirroring transform.
    fn winding_finite(&self, point: DVec3) -> f64 {
        self.instances()
            .map(|(_, instance)| instance.winding_at_world(point))
            .sum()
    }
}
