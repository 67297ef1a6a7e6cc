//! Closest points: the nearest point of a mesh or a scene to a query point, within a
//! distance, for snapping, measuring and placing objects on surfaces.

use glam::Vec3;
use meshcast_primitives::{box_distance_squared, distance_squared, Hit, Triangle};

use crate::{Filter, Instance, InstanceId, Mesh, QueryOptions, Scene, SceneHit};

/// The point of a mesh nearest to a query point: the triangle, the point with its
/// barycentrics, and the distance.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_mesh::{Mesh, QueryOptions};
///
/// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
/// let closest = tri.closest_point(Vec3::new(0.25, 0.25, 2.0), &QueryOptions::new()).ok_or("none")?;
/// assert_eq!((closest.triangle, closest.point, closest.distance), (0, Vec3::new(0.25, 0.25, 0.0), 2.0));
/// assert_eq!(tri.closest_point(Vec3::new(0.25, 0.25, 2.0), &QueryOptions::new().with_max_distance(1.0)), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoint {
    /// The triangle's index in the mesh.
    pub triangle: u32,
    /// The point, in the space of the query (world space for scenes).
    pub point: Vec3,
    /// Barycentric weight of the triangle's second corner.
    pub u: f32,
    /// Barycentric weight of the triangle's third corner.
    pub v: f32,
    /// The distance from the query point.
    pub distance: f32,
}

impl ClosestPoint {
    /// As a [`Hit`] with `t` the distance, for the surface helpers ([`Mesh::surface`],
    /// [`crate::Instance::surface`]) that give normals, texture coordinates and names.
    pub fn to_hit(&self) -> Hit {
        Hit::new(self.distance, self.u, self.v).with_triangle(self.triangle)
    }
}

/// The point of a scene nearest to a query point: the instance and the point on its mesh.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::{Instance, Mesh, QueryOptions, Scene};
///
/// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
/// // Stretched ten times along x and moved up: the world distance is what counts.
/// let stretched = Affine3A::from_scale(Vec3::new(10.0, 1.0, 1.0)) * Affine3A::from_translation(Vec3::Z);
/// let scene = Scene::from_instances([Instance::new(tri, stretched)?]);
/// let closest = scene.closest_point(Vec3::new(12.0, 0.0, 1.0), &QueryOptions::new()).ok_or("none")?;
/// assert_eq!(closest.closest.point, Vec3::new(10.0, 0.0, 1.0));
/// assert_eq!(closest.closest.distance, 2.0);
/// let surface = scene.surface(&closest.to_scene_hit()).ok_or("stale")?;
/// assert!(surface.point.distance(Vec3::new(10.0, 0.0, 1.0)) < 1e-5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneClosestPoint {
    /// The instance.
    pub instance: InstanceId,
    /// The point on its mesh, in world space.
    pub closest: ClosestPoint,
}

impl SceneClosestPoint {
    /// As a [`SceneHit`] (see [`ClosestPoint::to_hit`]), for [`Scene::surface`].
    pub fn to_scene_hit(&self) -> SceneHit {
        SceneHit {
            instance: self.instance,
            hit: self.closest.to_hit(),
        }
    }
}

/// The best candidate so far: squared distance, the tie key, and the point.
#[derive(Clone, Copy)]
struct Best {
    distance_squared: f32,
    key: (u32, u32),
    point: meshcast_primitives::TrianglePoint,
}

/// Offers `triangle` as a candidate nearest to `query`; keeps it if it is nearer than
/// `best` (ties to the smaller key) and no farther than `bound` (squared).
#[inline]
fn offer(best: &mut Option<Best>, bound: f32, triangle: &Triangle, query: Vec3, key: (u32, u32)) {
    let point = triangle.closest_point(query);
    let d = distance_squared(point.point, query);
    let better = match best {
        None => d <= bound,
        Some(b) => d < b.distance_squared || (d == b.distance_squared && key < b.key),
    };
    if better {
        *best = Some(Best {
            distance_squared: d,
            key,
            point,
        });
    }
}

fn bound_of(best: &Option<Best>, bound: f32) -> f32 {
    best.map_or(bound, |b| b.distance_squared)
}

impl Mesh {
    /// The point of the mesh nearest to `query` within `options.max_distance`, ties going
    /// to the smaller triangle index; `None` when no triangle is that close, or `query` is
    /// not finite.
    ///
    /// Distances are measured by [`Triangle::closest_point`] (Ericson 2005) and compared
    /// squared; the answer equals a loop over every triangle with the same test, bit for
    /// bit. The hierarchy is searched nearest box first, and boxes farther than the best
    /// point so far are skipped. The triangle filter applies; culling and the layer mask do
    /// not. Degenerate triangles are never reported.
    pub fn closest_point<F: Filter<u32>>(
        &self,
        query: Vec3,
        options: &QueryOptions<F>,
    ) -> Option<ClosestPoint> {
        let bound = options.squared_limit()?;
        if !query.is_finite() {
            return None;
        }
        let mut best = None;
        self.bvh().nearest(
            bound,
            |bounds| box_distance_squared(query, bounds),
            |slot, bound| {
                let (triangle, index) = self.leaf_triangle(slot);
                if options.filter.keep(index) {
                    offer(&mut best, bound, &triangle, query, (0, index));
                }
                bound_of(&best, bound)
            },
        );
        best.map(|b| ClosestPoint {
            triangle: b.key.1,
            point: b.point.point,
            u: b.point.u,
            v: b.point.v,
            distance: b.distance_squared.sqrt(),
        })
    }
}

impl Scene {
    /// The point of the scene nearest to `query` (world space) within
    /// `options.max_distance`, ties going to the smaller instance id, then triangle index;
    /// `None` when nothing is that close or `query` is not finite.
    ///
    /// Each instance is measured in world space on its triangles as
    /// [`Instance::world_triangle`] carries them, so non-uniform scales stretch distances
    /// as they should; the answer equals a loop over every instance and triangle with the
    /// same test, bit for bit. Both levels are searched nearest box first, pruning boxes
    /// beyond the best point so far (a mesh's boxes are carried to the world for that). The
    /// layer mask and the filter apply; culling does not.
    pub fn closest_point<F: Filter<(InstanceId, u32)>>(
        &self,
        query: Vec3,
        options: &QueryOptions<F>,
    ) -> Option<SceneClosestPoint> {
        let bound = options.squared_limit()?;
        if !query.is_finite() {
            return None;
        }
        let mut best = None;
        self.top_level().nearest(
            bound,
            |bounds| box_distance_squared(query, bounds),
            |slot, bound| {
                if let Some((id, instance)) = self.searched(slot, options.mask) {
                    instance_nearest(instance, id, query, bound, &mut best, options);
                }
                bound_of(&best, bound)
            },
        );
        best.map(|b| SceneClosestPoint {
            instance: InstanceId::from_index(b.key.0),
            closest: ClosestPoint {
                triangle: b.key.1,
                point: b.point.point,
                u: b.point.u,
                v: b.point.v,
                distance: b.distance_squared.sqrt(),
            },
        })
    }
}

/// Searches one instance's mesh for a point nearer than `bound` (squared), in world space.
fn instance_nearest<F: Filter<(InstanceId, u32)>>(
    instance: &Instance,
    id: InstanceId,
    query: Vec3,
    bound: f32,
    best: &mut Option<Best>,
    options: &QueryOptions<F>,
) {
    let mesh = instance.mesh();
    mesh.bvh().nearest(
        bound,
        |local| box_distance_squared(query, &instance.world_box(local)),
        |slot, bound| {
            let (local, index) = mesh.leaf_triangle(slot);
            if options.filter.keep((id, index)) {
                offer(
                    best,
                    bound,
                    &instance.carry(&local),
                    query,
                    (id.index(), index),
                );
            }
            bound_of(best, bound)
        },
    );
}
