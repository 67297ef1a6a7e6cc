//! A [`Scene`]'s point queries in `f64` world coordinates: the nearest point, found with every
//! instance's triangles carried to the query point (so that the point and its distance keep
//! the precision of the distance, wherever the scene lies), inside and outside, winding
//! numbers and signed distances, each instance asked at the point carried into its mesh's
//! frame in `f64`.

use glam::DVec3;

use crate::{ClosestPoint, DClosestPoint, Filter, InstanceId, PointQueries, QueryOptions, Scene};

/// The point of a scene nearest to a query point in `f64` world coordinates
/// ([`Scene::closest_point_f64`]): the instance, and the point on its mesh with its point and
/// distance in `f64` world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DSceneClosestPoint {
    /// The instance.
    pub instance: InstanceId,
    /// The point on its mesh (the triangle, its barycentrics and feature in the mesh's
    /// numbering), in world coordinates.
    pub closest: DClosestPoint,
}

impl Scene {
    /// The surface point of the scene nearest to `point` (`f64` world coordinates) within
    /// `options.max_distance`, among the instances on the mask's layers and the triangles
    /// the filter keeps, as [`crate::PointQueries::closest_point`] finds it: ties to the
    /// smaller instance id, then triangle; `None` when nothing is that close or `point` is
    /// not finite.
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
    /// use meshcast_mesh::{Instance, Mesh, QueryOptions, Scene};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// // At a UTM position, where f32 world coordinates are half a metre apart.
    /// let utm = DVec3::new(500_123.37, 5_000_456.71, 100.0);
    /// let scene = Scene::from_instances([Instance::new(tri, DAffine3::from_translation(utm))?]);
    /// let closest = scene.closest_point_f64(utm + DVec3::new(0.25, 0.25, 0.01), &QueryOptions::new()).ok_or("none")?;
    /// assert!((closest.closest.distance - 0.01).abs() < 1e-7);
    /// assert!(closest.closest.point.distance(utm + DVec3::new(0.25, 0.25, 0.0)) < 1e-7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn closest_point_f64<F: Filter<(InstanceId, u32)>>(
        &self,
        point: DVec3,
        options: &QueryOptions<F>,
    ) -> Option<DSceneClosestPoint> {
        let found = self.nearest_f64(point, options)?;
        let ClosestPoint {
            triangle,
            point: relative,
            u,
            v,
            feature,
            ..
        } = found.closest;
        let relative = relative.as_dvec3();
        Some(DSceneClosestPoint {
            instance: found.instance,
            closest: DClosestPoint {
                triangle,
                point: point + relative,
                u,
                v,
                feature,
                distance: relative.length(),
            },
        })
    }

    /// The distance from `point` (`f64` world coordinates) to the scene's surface, in `f64`
    /// ([`Scene::closest_point_f64`]), negative when [`Scene::contains_f64`] says the point is
    /// inside; `None` for an empty scene or a point that is not finite.
    pub fn signed_distance_f64(&self, point: DVec3) -> Option<f64> {
        let distance = self
            .closest_point_f64(point, &QueryOptions::new())?
            .closest
            .distance;
        Some(if self.contains_f64(point) {
            -distance
        } else {
            distance
        })
    }

    /// Whether `point` (`f64` world coordinates) is inside any instance, as
    /// [`crate::PointQueries::contains`] decides it on a scene: each instance asked with the
    /// point carried into its mesh's frame in `f64` ([`crate::Instance::carry_point`]), so that a
    /// far instance decides at its own precision. `false` for a point that is not finite.
    pub fn contains_f64(&self, point: DVec3) -> bool {
        point.is_finite()
            && self
                .instances()
                .any(|(_, instance)| instance.mesh().contains(instance.carry_point(point)))
    }

    /// The scene's winding number at `point` (`f64` world coordinates), in `f64`: the sum of
    /// the instances' (each at the point carried into its mesh's frame, unrounded, turned
    /// over by a mirroring transform), as [`crate::PointQueries::winding_number`] sums them;
    /// NaN for a point that is not finite.
    pub fn winding_number_f64(&self, point: DVec3) -> f64 {
        if !point.is_finite() {
            return f64::NAN;
        }
        self.instances()
            .map(|(_, instance)| instance.winding_at_world(point))
            .sum()
    }
}
