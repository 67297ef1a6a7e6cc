//! Closest points: the nearest point of a mesh, an instance or a scene to a query point,
//! within a distance, for snapping, measuring and placing objects on surfaces; the walks
//! behind [`crate::PointQueries::closest_point`].

use glam::{Affine3A, DAffine3, DVec3, Vec3};
use meshcast_primitives::{box_distance_squared, distance_squared, Aabb, Hit, Triangle};

use crate::mesh::Mesh;
use crate::queries::{Filter, InstanceId, QueryOptions};
use crate::scene::{carried_box, carried_triangle, Instance, Scene, SceneHit};
use crate::volume::PointBox;

/// The point of a mesh nearest to a query point: the triangle, the point with its
/// barycentrics and the feature of the triangle it lies on, and the distance.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_mesh::{Feature, Mesh, PointQueries, QueryOptions};
///
/// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
/// let closest = tri.closest_point(Vec3::new(0.25, 0.25, 2.0), &QueryOptions::new()).ok_or("none")?;
/// assert_eq!((closest.triangle, closest.point, closest.distance), (0, Vec3::new(0.25, 0.25, 0.0), 2.0));
/// assert_eq!(closest.feature, Feature::Face);
/// assert_eq!(tri.closest_point(Vec3::new(0.25, 0.25, 2.0), &QueryOptions::new().with_max_distance(1.0)), None);
/// // Beyond the corner at (1, 0, 0), vertex 1: an editor snaps to it.
/// let corner = tri.closest_point(Vec3::new(3.0, -1.0, 0.5), &QueryOptions::new()).ok_or("none")?;
/// assert_eq!((corner.point, corner.feature), (Vec3::X, Feature::Vertex(1)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoint {
    /// The triangle's index in the mesh.
    pub triangle: u32,
    /// The point, in the space of the query (world space for instances and scenes).
    pub point: Vec3,
    /// Barycentric weight of the triangle's second corner.
    pub u: f32,
    /// Barycentric weight of the triangle's third corner.
    pub v: f32,
    /// The part of the triangle the point lies on: its face, one of its edges or one of its
    /// corners, named by the mesh's vertex indices.
    pub feature: Feature,
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

/// Where on its triangle a closest point lies, in the mesh's vertex numbering (the indices
/// of [`crate::TriMesh::indices`]): editors snap to vertices and edges with it.
///
/// It is read from the barycentric weights `(1 - u - v, u, v)` of the point that
/// [`Triangle::closest_point`] gives, which are exactly 0 or 1 when the point is a corner
/// and exactly 0 for the opposite corner when it is on an edge: two zero weights name a
/// [`Feature::Vertex`], one an [`Feature::Edge`], none the [`Feature::Face`]. A point
/// inside the face that rounds onto an edge is named by that edge. Duplicated vertices (an
/// OBJ seam) are not welded here: the indices are the triangle's own.
///
/// # Examples
/// ```
/// use meshcast_mesh::Feature;
///
/// // The edge from vertex 7 to vertex 3, in the direction the triangle runs along it.
/// let edge = Feature::Edge(7, 3);
/// assert_ne!(edge, Feature::Face);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// Inside the triangle.
    Face,
    /// On the edge between these two vertices, in the order the triangle's corners run
    /// (`v0 v1`, `v1 v2` or `v2 v0`).
    Edge(u32, u32),
    /// At this vertex.
    Vertex(u32),
}

impl Feature {
    /// The feature of the point with barycentrics `u`, `v` on the triangle whose corners
    /// are the vertices `corners`.
    pub(crate) fn of(corners: [u32; 3], u: f32, v: f32) -> Self {
        let zero = [1.0 - u - v == 0.0, u == 0.0, v == 0.0];
        match zero {
            [false, false, false] => Self::Face,
            [true, false, false] => Self::Edge(corners[1], corners[2]),
            [false, true, false] => Self::Edge(corners[2], corners[0]),
            [false, false, true] => Self::Edge(corners[0], corners[1]),
            [false, true, true] => Self::Vertex(corners[0]),
            [true, false, true] => Self::Vertex(corners[1]),
            [true, true, false] => Self::Vertex(corners[2]),
            // Weights summing to one are never all zero.
            [true, true, true] => Self::Face,
        }
    }
}

/// The point of a scene nearest to a query point: the instance and the point on its mesh.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::{Instance, Mesh, PointQueries, QueryOptions, Scene};
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

/// The closest point of `best`, found on `mesh`'s triangles (for the corners' vertex
/// numbers).
fn closest_of(best: &Best, mesh: &Mesh) -> ClosestPoint {
    let index = best.key.1;
    let corners = mesh.tri_mesh().indices()[index as usize];
    ClosestPoint {
        triangle: index,
        point: best.point.point,
        u: best.point.u,
        v: best.point.v,
        feature: Feature::of(corners, best.point.u, best.point.v),
        distance: best.distance_squared.sqrt(),
    }
}

impl Mesh {
    /// [`crate::PointQueries::closest_point`] on a mesh: the hierarchy searched nearest box
    /// first, boxes farther than the best point so far skipped; the triangle filter applies.
    pub(crate) fn nearest<F: Filter<u32>>(
        &self,
        query: Vec3,
        options: &QueryOptions<F>,
    ) -> Option<ClosestPoint> {
        let bound = options.squared_limit().filter(|_| query.is_finite())?;
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
        best.map(|b| closest_of(&b, self))
    }
}

impl Mesh {
    /// A lower bound of the distance from every point of `points` to the mesh's triangles,
    /// if below `cap`: the least distance to a triangle's box, searched as
    /// [`Mesh::nearest`] searches, every distance rounded down; `cap` or less when no
    /// triangle's box is nearer than `cap`.
    pub(crate) fn gap(&self, points: &PointBox, cap: f64) -> f64 {
        // Squared and rounded to f32 below the f64 value (a relative 2⁻²⁴ at most).
        let lower = |d: f64| (d * d) as f32 * (1.0 - 1e-6);
        let gap = |bounds: &meshcast_primitives::Aabb| {
            lower(points.gap(bounds.min.as_dvec3(), bounds.max.as_dvec3()))
        };
        let bound = self.bvh().nearest(lower(cap), gap, |slot, bound| {
            gap(&self.leaf_triangle(slot).0.bounds()).min(bound)
        });
        f64::from(bound).sqrt()
    }
}

impl Instance {
    /// [`crate::PointQueries::closest_point`] on an instance, in world space: none when its
    /// layers miss the options' mask.
    pub(crate) fn nearest<F: Filter<u32>>(
        &self,
        query: Vec3,
        options: &QueryOptions<F>,
    ) -> Option<ClosestPoint> {
        let placed = Placed {
            instance: self,
            carry: self.transform(),
            query,
        };
        placed.nearest(query.is_finite(), options)
    }

    /// The closest point to `query` (`f64` world coordinates), as
    /// [`crate::PointQueries::closest_point`] finds it on an instance with its triangles
    /// carried to the query point ([`Scene::nearest_far`]): the point and distance relative to
    /// `query`. None when the instance's layers miss the options' mask.
    pub(crate) fn nearest_far<F: Filter<u32>>(
        &self,
        query: DVec3,
        options: &QueryOptions<F>,
    ) -> Option<ClosestPoint> {
        Placed::far(self, query).nearest(query.is_finite(), options)
    }
}

impl Scene {
    /// [`crate::PointQueries::closest_point`] on a scene: both levels searched nearest box
    /// first; the layer mask and the filter apply.
    pub(crate) fn nearest<F: Filter<(InstanceId, u32)>>(
        &self,
        query: Vec3,
        options: &QueryOptions<F>,
    ) -> Option<SceneClosestPoint> {
        if !query.is_finite() {
            return None;
        }
        self.nearest_by(
            options,
            |bounds| box_distance_squared(query, bounds),
            |instance| Placed {
                instance,
                carry: instance.transform(),
                query,
            },
        )
    }

    /// The closest point to `query` (`f64` world coordinates), as
    /// [`crate::PointQueries::closest_point`] finds it with every instance's triangles carried
    /// to the query point, by `T(-query) M` (its `f64` transform `M`) rounded to `f32` once:
    /// the point and distance are relative to `query`, at the precision of the distance,
    /// wherever the scene lies. The top level's `f32` world boxes only cull, measured in
    /// `f64` and brought nearer by the slack that [`crate::scene::FarReach::span`] derives,
    /// so that they cull no instance with a nearer carried point.
    pub(crate) fn nearest_far<F: Filter<(InstanceId, u32)>>(
        &self,
        query: DVec3,
        options: &QueryOptions<F>,
    ) -> Option<SceneClosestPoint> {
        if !query.is_finite() {
            return None;
        }
        let slack = 2f64.powi(-18) * self.far_reach().span;
        self.nearest_by(
            options,
            |bounds| {
                let (min, max) = (bounds.min.as_dvec3(), bounds.max.as_dvec3());
                let gap = (min - query).max(query - max).max(DVec3::ZERO).length();
                let lower = (gap * (1.0 - 2f64.powi(-19)) - slack).max(0.0);
                // Squared and rounded to f32 below the f64 value (a relative 2⁻²⁴ at most).
                (lower * lower) as f32 * (1.0 - 1e-6)
            },
            |instance| Placed::far(instance, query),
        )
    }

    /// The scene's nearest-point search: the top level nearest box first, `lower` bounding
    /// the squared distance to anything under a box, each instance searched as `place`
    /// carries it.
    fn nearest_by<'a, F: Filter<(InstanceId, u32)>>(
        &'a self,
        options: &QueryOptions<F>,
        lower: impl Fn(&Aabb) -> f32,
        place: impl Fn(&'a Instance) -> Placed<'a>,
    ) -> Option<SceneClosestPoint> {
        let bound = options.squared_limit()?;
        let mut best = None;
        self.top_level().nearest(bound, lower, |slot, bound| {
            if let Some((id, instance)) = self.searched(slot, options.mask) {
                place(instance).search(id.index(), bound, &mut best, |triangle| {
                    options.filter.keep((id, triangle))
                });
            }
            bound_of(&best, bound)
        });
        let best = best?;
        let instance = InstanceId::from_index(best.key.0);
        let mesh = self.instance(instance)?.mesh();
        Some(SceneClosestPoint {
            instance,
            closest: closest_of(&best, mesh),
        })
    }
}

/// An instance's triangles as a nearest-point search sees them: carried by `carry`, and
/// measured from `query` in that space.
struct Placed<'a> {
    instance: &'a Instance,
    carry: Affine3A,
    query: Vec3,
}

impl<'a> Placed<'a> {
    /// `instance`'s triangles carried to `query` (`f64` world coordinates) by `T(-query) M`
    /// (its `f64` transform `M`), rounded to `f32` once, and measured from there.
    fn far(instance: &'a Instance, query: DVec3) -> Self {
        Placed {
            instance,
            carry: (DAffine3::from_translation(-query) * instance.exact_transform()).as_affine3a(),
            query: Vec3::ZERO,
        }
    }

    /// The closest point of one instance so placed, for a query point that is `finite`,
    /// within the options' distance among the triangles their filter keeps: none when the
    /// instance's layers miss the options' mask.
    fn nearest<F: Filter<u32>>(
        &self,
        finite: bool,
        options: &QueryOptions<F>,
    ) -> Option<ClosestPoint> {
        let bound = options.squared_limit().filter(|_| finite)?;
        if !options.matches_layers(self.instance.layers()) {
            return None;
        }
        let mut best = None;
        self.search(0, bound, &mut best, |triangle| {
            options.filter.keep(triangle)
        });
        best.map(|b| closest_of(&b, self.instance.mesh()))
    }

    /// Searches the instance's mesh for a point nearer than `bound` (squared) among the
    /// triangles `keep` accepts; `id` is the instance's number in the tie key.
    fn search(&self, id: u32, bound: f32, best: &mut Option<Best>, keep: impl Fn(u32) -> bool) {
        let mesh = self.instance.mesh();
        mesh.bvh().nearest(
            bound,
            |local| box_distance_squared(self.query, &carried_box(&self.carry, local)),
            |slot, bound| {
                let (local, index) = mesh.leaf_triangle(slot);
                if keep(index) {
                    let triangle = carried_triangle(&self.carry, &local);
                    offer(best, bound, &triangle, self.query, (id, index));
                }
                bound_of(best, bound)
            },
        );
    }
}
