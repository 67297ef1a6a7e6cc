//! `PointQueries`: the point queries that [`Mesh`], [`Instance`] and [`Scene`] all answer
//! for points in `f32` and in `f64` ([`crate::QueryPoint`]: the nearest surface point, inside
//! or outside, the winding number, the signed distance), and their parallel batches, written
//! once. The `f64` points' implementations are the world room's.
//!
//! [`Mesh`]: crate::Mesh
//! [`Instance`]: crate::Instance
//! [`Scene`]: crate::Scene

use core::fmt::Debug;

use glam::Vec3;
use meshcast_primitives::Ray;
use rayon::prelude::*;

use crate::batches::BATCH_GRAIN;
use crate::mesh::Mesh;
use crate::points::{ClosestPoint, SceneClosestPoint};
use crate::queries::{sealed, Count, Filter, HitRules, InstanceId, QueryOptions, QueryPoint};
use crate::scene::{Instance, Scene};

/// The direction of the ray whose crossings [`PointQueries::contains`] counts on a closed
/// mesh, in the mesh's space: `+x`.
pub const CONTAINS_RAY_DIRECTION: Vec3 = Vec3::X;

/// The point queries every level answers: a [`Mesh`] in its own space, an
/// [`Instance`] and a [`Scene`] in the world, for points in `f32` ([`Vec3`]) and in `f64`
/// world coordinates ([`glam::DVec3`], for geometry far from the origin: see
/// [`crate::QueryPoint`]), with the same methods.
///
/// | query | answer |
/// |---|---|
/// | [`closest_point`](PointQueries::closest_point) | the nearest surface point (triangle, point, barycentrics, [`crate::Feature`], distance) within the options' distance, or `None` |
/// | [`contains`](PointQueries::contains) | whether the point is inside |
/// | [`winding_number`](PointQueries::winding_number) | the generalised winding number: 1 inside a closed mesh, 0 outside, in between near holes |
/// | [`signed_distance`](PointQueries::signed_distance) | the distance to the surface, negative inside |
/// | [`closest_point_batch`](PointQueries::closest_point_batch), [`contains_batch`](PointQueries::contains_batch), [`winding_number_batch`](PointQueries::winding_number_batch), [`signed_distance_batch`](PointQueries::signed_distance_batch) | the same for many points, in parallel, in the points' order |
///
/// **Inside.** On a closed mesh ([`crate::TriMesh::is_closed`]) `contains` is exact: it
/// counts the crossings of the ray from the point along [`CONTAINS_RAY_DIRECTION`] (`+x` in
/// the mesh's space, `t > 0`) with the watertight test, which reports each crossing of a
/// closed surface once even through shared edges and vertices, and answers whether their
/// number is odd. It agrees with the winding number rounded, wherever that is not ½. A
/// point outside the mesh's box is outside, without a ray. A point on the surface may be
/// answered either way. On a mesh that is not closed, `contains` is
/// `winding_number >= 0.5`: the winding number's robust answer for meshes with holes
/// (Jacobson et al. 2013), approximate within the error documented below. On a mesh with
/// [`crate::LeafTest::Transform`] the crossings are counted with that test, which is not
/// watertight, and may be wrong at edges.
///
/// **Winding number.** The sum of the signed solid angles of the triangles seen from the
/// point, over 4π (Jacobson, Kavan, Sorkine-Hornung, *Robust Inside-Outside Segmentation
/// using Generalized Winding Numbers*, 2013): +1 inside a closed mesh whose triangles face
/// out (counter-clockwise seen from outside), -1 inside one that faces in, 0 outside, ½ on
/// the surface, and in between near the holes of an open one. Each triangle's angle is
/// computed in `f64` (Van Oosterom, Strackee, 1983). The hierarchy accelerates the sum as
/// Barill et al. do (*Fast Winding Numbers for Soups and Clouds*, 2018): a subtree whose
/// area-weighted centroid is more than β = 3 times its radius (a bound on the distance to
/// its triangles' corners) from the point is replaced by its far-field expansion to third
/// order (the dipole and the second- and third-order moments of the area-weighted
/// normals); nearer subtrees are summed exactly. The expansions are made on the first
/// winding number a mesh is asked, on one thread, in time linear in its triangles (12 ms
/// for the ogre's 124k), and kept: 136 bytes per lane of each node of the hierarchy, 6.7 MB
/// for the ogre, as much again as its hierarchy, counted by
/// [`crate::Mesh::acceleration_bytes`]. The error against the
/// exact sum, on points around the assets, is 1e-4 on average and below 1e-3 (at most 8.4e-4
/// measured; β = 2 halves the time for 4.4e-3). Far from a closed mesh the expansion of the
/// whole is zero up to rounding, its moments cancelling. The sum is taken in one fixed
/// order, so the same point gives the same bits. Degenerate triangles add nothing.
///
/// **Signed distance.** The distance of [`PointQueries::closest_point`] (without limit
/// or filter), negative when [`PointQueries::contains`]; `None` for an empty mesh or scene.
///
/// A point that is not finite is nowhere: no closest point, not inside, a NaN winding
/// number, no signed distance.
///
/// **Levels.** An [`Instance`] and a [`Scene`] measure closest points in world space (as
/// [`crate::Instance::world_triangle`] carries the triangles); `contains` and the winding
/// number are asked of each instance's mesh at the point carried into its space
/// ([`crate::Instance::to_local`]'s transform, in `f64`, rounded to `f32` for the ray of
/// `contains`). A mirroring transform turns the winding number's sign, which `contains`
/// does not see. A scene's `contains` is whether any instance contains the point, whatever
/// its layers; its winding number is the sum over its instances, in id order. The options'
/// layer mask and filter apply to closest points only.
///
/// Every batch answers each point exactly as its single call does, bit for bit, whatever
/// the number of threads. The trait is implemented by this crate's three levels only; bring
/// it into scope to query (`use meshcast_mesh::PointQueries;`, or `use meshcast::PointQueries;`).
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::{Instance, Mesh, PointQueries, QueryOptions, Scene};
///
/// // A cube from -1 to 1, its faces wound outwards.
/// let corners: Vec<[f32; 3]> = (0..8)
///     .map(|i| [i & 1, i >> 1 & 1, i >> 2 & 1].map(|bit| if bit == 1 { 1.0 } else { -1.0 }))
///     .collect();
/// let faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
/// let triangles: Vec<[u32; 3]> =
///     faces.iter().flat_map(|[a, b, c, d]| [[*a, *b, *c], [*a, *c, *d]]).collect();
/// let cube = Arc::new(Mesh::from_triangles(&corners, &triangles)?);
/// assert!(cube.is_closed());
///
/// // The ray from this point along +x leaves through the diagonal of the face x = 1, an
/// // edge of two triangles: one crossing.
/// let inside = Vec3::new(0.5, 0.5, 0.5);
/// assert!(cube.contains(inside));
/// assert!((cube.winding_number(inside) - 1.0).abs() < 1e-6);
/// assert_eq!(cube.signed_distance(inside), Some(-0.5));
/// assert_eq!(cube.signed_distance(Vec3::new(3.0, 0.0, 0.0)), Some(2.0));
///
/// // Moved and mirrored: the winding number turns over, inside stays inside.
/// let mirror = Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0)) * Affine3A::from_translation(Vec3::X * 5.0);
/// let scene = Scene::from_instances([Instance::new(cube.clone(), mirror)?]);
/// let moved = Vec3::new(-5.5, 0.5, 0.5);
/// assert!(scene.contains(moved));
/// assert!((scene.winding_number(moved) + 1.0).abs() < 1e-6);
///
/// // Batches answer as the single calls do, in order.
/// assert_eq!(cube.contains_batch(&[inside, Vec3::splat(2.0)]), [true, false]);
/// let closest = scene.closest_point_batch(&[moved], &QueryOptions::new());
/// assert_eq!(closest[0].map(|c| c.closest.distance), Some(0.5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait PointQueries<P: QueryPoint = Vec3>: Sync + sealed::Level {
    /// What a closest point names: [`ClosestPoint`] on a mesh or an instance,
    /// [`SceneClosestPoint`] in a scene (the instance as well); for `f64` points
    /// [`crate::DClosestPoint`] and [`crate::DSceneClosestPoint`].
    type Closest: Copy + Send + Sync + Debug + PartialEq;

    /// What a [`Filter`] is asked about each candidate: the triangle index (`u32`) on a mesh
    /// or an instance, the instance and the triangle (`(InstanceId, u32)`) in a scene.
    type Candidate;

    /// The distance of a closest point.
    #[doc(hidden)]
    fn distance_of(closest: &Self::Closest) -> P::Scalar;

    /// [`PointQueries::contains`] for a finite point.
    #[doc(hidden)]
    fn contains_finite(&self, point: P) -> bool;

    /// [`PointQueries::winding_number`] for a finite point, in `f64`.
    #[doc(hidden)]
    fn winding_finite(&self, point: P) -> f64;

    /// The surface point nearest to `point` within `options.max_distance`, among the
    /// triangles the filter keeps (and on a scene, the instances on the mask's layers);
    /// ties go to the smaller triangle index (in a scene, the smaller instance id first);
    /// `None` when nothing is that close or `point` is not finite. Culling does not apply.
    ///
    /// Distances are measured by [`meshcast_primitives::Triangle::closest_point`] (Ericson
    /// 2005) and compared squared; the answer equals a loop over every triangle with the same
    /// test, bit for bit. The hierarchies are searched nearest box first, skipping boxes
    /// beyond the best point so far. Degenerate triangles are never reported.
    fn closest_point<F: Filter<Self::Candidate>>(
        &self,
        point: P,
        options: &QueryOptions<F>,
    ) -> Option<Self::Closest>;

    /// Whether `point` is inside: exact by counting crossings on a closed mesh,
    /// `winding_number >= 0.5` otherwise (see the trait's docs); false for a point that is
    /// not finite.
    fn contains(&self, point: P) -> bool {
        point.is_finite() && self.contains_finite(point)
    }

    /// The generalised winding number at `point`, accelerated by the hierarchy (see the
    /// trait's docs for the approximation): 0 for an empty mesh or scene, NaN for a point
    /// that is not finite.
    fn winding_number(&self, point: P) -> P::Scalar {
        if point.is_finite() {
            P::winding(self.winding_finite(point))
        } else {
            P::winding(f64::NAN)
        }
    }

    /// The distance from `point` to the surface, negative when [`PointQueries::contains`]
    /// says the point is inside (`-0.0` for a point on the surface that it counts inside);
    /// `None` for an empty mesh or scene, or a point that is not finite.
    fn signed_distance(&self, point: P) -> Option<P::Scalar> {
        let closest = self.closest_point(point, &QueryOptions::new())?;
        let distance = Self::distance_of(&closest);
        Some(if self.contains(point) {
            -distance
        } else {
            distance
        })
    }

    /// [`PointQueries::closest_point`] for every point, in parallel on the current rayon
    /// thread pool, in the order of `points` (the filter is shared by the threads, hence
    /// `Sync`).
    fn closest_point_batch<F: Filter<Self::Candidate> + Sync>(
        &self,
        points: &[P],
        options: &QueryOptions<F>,
    ) -> Vec<Option<Self::Closest>> {
        points
            .par_iter()
            .with_min_len(BATCH_GRAIN)
            .map(|&point| self.closest_point(point, options))
            .collect()
    }

    /// [`PointQueries::contains`] for every point, in parallel, in the order of `points`.
    fn contains_batch(&self, points: &[P]) -> Vec<bool> {
        points
            .par_iter()
            .with_min_len(BATCH_GRAIN)
            .map(|&point| self.contains(point))
            .collect()
    }

    /// [`PointQueries::winding_number`] for every point, in parallel, in the order of
    /// `points`.
    fn winding_number_batch(&self, points: &[P]) -> Vec<P::Scalar> {
        points
            .par_iter()
            .with_min_len(BATCH_GRAIN)
            .map(|&point| self.winding_number(point))
            .collect()
    }

    /// [`PointQueries::signed_distance`] for every point, in parallel, in the order of
    /// `points`.
    fn signed_distance_batch(&self, points: &[P]) -> Vec<Option<P::Scalar>> {
        points
            .par_iter()
            .with_min_len(BATCH_GRAIN)
            .map(|&point| self.signed_distance(point))
            .collect()
    }
}

impl Mesh {
    /// The number of crossings of the ray from `point` along [`CONTAINS_RAY_DIRECTION`].
    fn crossings(&self, point: Vec3) -> usize {
        let ray = Ray::new(point, CONTAINS_RAY_DIRECTION);
        self.leaves()
            .trace(&ray, HitRules::CROSSINGS, |_| true, Count::EVERY, &mut ())
    }
}

impl PointQueries for Mesh {
    type Closest = ClosestPoint;
    type Candidate = u32;

    fn distance_of(closest: &ClosestPoint) -> f32 {
        closest.distance
    }

    fn closest_point<F: Filter<u32>>(
        &self,
        point: Vec3,
        options: &QueryOptions<F>,
    ) -> Option<ClosestPoint> {
        self.nearest(point, options)
    }

    fn contains_finite(&self, point: Vec3) -> bool {
        if self.is_closed() {
            // Outside the box, the ray crosses the surface an even number of times.
            self.bounds().contains(point) && self.crossings(point) % 2 == 1
        } else {
            self.winding_at(point.as_dvec3()) >= 0.5
        }
    }

    fn winding_finite(&self, point: Vec3) -> f64 {
        self.winding_at(point.as_dvec3())
    }
}

impl PointQueries for Instance {
    type Closest = ClosestPoint;
    type Candidate = u32;

    fn distance_of(closest: &ClosestPoint) -> f32 {
        closest.distance
    }

    /// The closest point in world space: none when the instance's layers miss the options'
    /// mask.
    fn closest_point<F: Filter<u32>>(
        &self,
        point: Vec3,
        options: &QueryOptions<F>,
    ) -> Option<ClosestPoint> {
        self.nearest(point, options)
    }

    /// Whether the mesh contains the point carried into its space (rounded to `f32`).
    fn contains_finite(&self, point: Vec3) -> bool {
        self.contains_at_world(point.as_dvec3())
    }

    fn winding_finite(&self, point: Vec3) -> f64 {
        self.winding_at_world(point.as_dvec3())
    }
}

impl PointQueries for Scene {
    type Closest = SceneClosestPoint;
    type Candidate = (InstanceId, u32);

    fn distance_of(closest: &SceneClosestPoint) -> f32 {
        closest.closest.distance
    }

    fn closest_point<F: Filter<(InstanceId, u32)>>(
        &self,
        point: Vec3,
        options: &QueryOptions<F>,
    ) -> Option<SceneClosestPoint> {
        self.nearest(point, options)
    }

    /// Whether any instance contains the point (each asked in id order, on every layer).
    fn contains_finite(&self, point: Vec3) -> bool {
        self.instances()
            .any(|(_, instance)| instance.contains_finite(point))
    }

    /// The sum of the instances' winding numbers, in id order, in `f64`.
    fn winding_finite(&self, point: Vec3) -> f64 {
        self.instances()
            .map(|(_, instance)| instance.winding_finite(point))
            .sum()
    }
}
