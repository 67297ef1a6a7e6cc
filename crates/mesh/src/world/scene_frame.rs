//! [`Instance`] and [`Scene`] ray queries ([`RayQueries`]) of rays in `f64` world coordinates:
//! each world ray ([`DRay`]) carried into every instance it reaches by the instance's `f64`
//! inverse transform, then into the mesh's frame ([`DRay::carry`]), rounded once, asked as
//! the mesh's own queries ask it, and its hits given back with `t` in `f64` world units
//! ([`DHit`], [`DSceneHit`]).
//!
//! The exactness contract is the mesh's, on the carried rays: a scene query answers exactly
//! what a loop over every instance answers, each instance asked with its carried, rounded ray
//! ([`Instance::carry_ray`]); the closest hit is the first by `t` in `f64`, then instance id,
//! then triangle ([`DSceneHit::order`]). So only the rounding of coordinates at each mesh's
//! own scale is left, wherever the instance lies: a scene spanning a city or a planet keeps
//! each mesh's precision.
//!
//! The scene's top level (`f32` boxes in world coordinates) only culls. It is walked with the
//! exact `f64` ray through the same walk as `f32` rays ([`meshcast_bvh::Bvh::walk_tested`]),
//! each box widened by the scene's far reach (the largest instance's [`FarReach`], whose
//! documentation derives it): how far from the exact ray the carried, rounded ray of an
//! instance may hit ([`TopLevelRay`], the walk's box test). So no instance whose carried ray
//! hits is culled.

use core::cmp::Ordering;

use glam::DVec3;
use meshcast_bvh::{BoxTest, Node};
use meshcast_primitives::{f32_at_least, Aabb, DFrame, DHit, DRay, Ray, RayHit};

use crate::batches::BatchFrame;
use crate::points::PointQueries;
use crate::queries::{
    Filter, HitRules, InstanceId, LevelWalks, QueryKind, QueryOptions, RayQueries,
};
use crate::scene::{FarReach, Instance, InstanceFilter, Scene};

/// The relative slack of the top level's `f64` tests (ranges and boxes): `2^-46`, 64 times
/// the few roundings of each `f64` step it covers.
const SLACK: f64 = 1.0 / (1u64 << 46) as f64;

/// A hit in a scene of a ray in `f64` world coordinates ([`RayQueries::cast`] of a [`DRay`]): which
/// instance, and the hit on its mesh, `t` in `f64` in units of the world ray's direction.
///
/// Hits are ordered by [`DSceneHit::order`]: `t`, then the smaller instance id, then the
/// smaller triangle index, as [`crate::SceneHit::order`] orders `f32` hits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DSceneHit {
    /// The instance hit.
    pub instance: InstanceId,
    /// The hit on the instance's mesh: `t` the world ray's parameter, `triangle`, `u` and `v`
    /// on the mesh.
    pub hit: DHit,
}

impl DSceneHit {
    /// The order of hits along a ray: by `t` (`-0.0` equal to `0.0`), then by instance id,
    /// then by triangle index. [`RayQueries::cast`] answers the first hit in this order and
    /// [`RayQueries::cast_all`] sorts by it.
    #[inline]
    pub fn order(&self, other: &Self) -> Ordering {
        // Adding zero makes -0.0 into 0.0; t is never NaN.
        (self.hit.t + 0.0)
            .total_cmp(&(other.hit.t + 0.0))
            .then(self.instance.cmp(&other.instance))
            .then(self.hit.triangle.cmp(&other.hit.triangle))
    }
}

impl RayHit for DSceneHit {
    type Scalar = f64;

    #[inline]
    fn t(&self) -> f64 {
        self.hit.t
    }

    #[inline]
    fn order(&self, other: &Self) -> Ordering {
        DSceneHit::order(self, other)
    }
}

impl Instance {
    /// `point` (`f64` world coordinates) carried into the mesh's space by the `f64` inverse
    /// of [`Instance::exact_transform`], rounded once.
    #[inline]
    pub fn carry_point(&self, point: DVec3) -> glam::Vec3 {
        self.to_local_f64().transform_point3(point).as_vec3()
    }

    /// Whether the mesh contains `point` (`f64` world coordinates) carried into its space,
    /// rounded once: what the instance's and the scene's inside tests ask.
    pub(crate) fn contains_at_world(&self, point: DVec3) -> bool {
        self.mesh().contains(self.carry_point(point))
    }

    /// The mesh's winding number at `point` (`f64` world coordinates) carried into its space
    /// in `f64`, unrounded, turned over by a mirroring transform: what the instance's and the
    /// scene's winding numbers and `f64` winding numbers sum.
    pub(crate) fn winding_at_world(&self, point: DVec3) -> f64 {
        let winding = self
            .mesh()
            .winding_at(self.to_local_f64().transform_point3(point));
        if self.is_mirrored() {
            -winding
        } else {
            winding
        }
    }

    /// `ray` (`f64` world coordinates) carried into the mesh's space: its origin and direction
    /// by the `f64` inverse of [`Instance::exact_transform`], then into the mesh's frame around
    /// its box ([`DRay::carry`]: moved along itself when it starts farther than
    /// [`meshcast_primitives::FAR_SIZES`] diagonals from the box), rounded once to `f32`;
    /// with the shift to add to the carried ray's `t` to get the world ray's. What every
    /// `f64` scene query asks each mesh with.
    #[inline]
    pub fn carry_ray(&self, ray: &DRay) -> (Ray, f64) {
        let to_local = self.to_local_f64();
        let local = DRay {
            origin: to_local.transform_point3(ray.origin),
            dir: to_local.transform_vector3(ray.dir),
            ..*ray
        };
        DFrame::new(DVec3::ZERO, &self.mesh().bounds()).carry(&local)
    }

    /// The answer of `kind` for `ray` (`f64` world coordinates), its range cut at `t_max` by
    /// a walk that shrinks it, among the triangles that `filter` keeps and `rules` accept as
    /// the world sees them: the instance's tier of every `f64` walk through an instance or a
    /// scene. The ray is carried uncut ([`Instance::carry_ray`]), so that each instance answers
    /// as it does alone, and the carried range then ends a little beyond `t_max`, so that a
    /// tie at `t_max` is still found (the smaller instance id wins it).
    #[inline]
    pub(crate) fn answer_far<Q: QueryKind>(
        &self,
        ray: &DRay,
        t_max: f64,
        rules: HitRules,
        filter: &impl Filter<u32>,
        kind: Q,
    ) -> Q::Answer<DHit> {
        let (mut local, shift) = self.carry_ray(ray);
        if t_max < ray.t_max {
            let cut = t_max - shift + (t_max.abs() + shift.abs()) * SLACK;
            local.t_max = local.t_max.min(f32_at_least(cut));
        }
        let rules = rules.mirrored(self.is_mirrored());
        let keep = |triangle| filter.keep(triangle);
        let answer = self
            .mesh()
            .leaves()
            .trace(&local, rules, keep, kind, &mut ());
        Q::map(answer, |hit| DHit::carried_back(hit, shift))
    }
}

impl RayQueries<DRay> for Instance {
    type Hit = DHit;
    type Candidate = u32;
}

impl LevelWalks<DRay, DHit, u32> for Instance {
    /// The answer of `kind` for the ray carried into the mesh's space ([`Instance::carry_ray`]):
    /// nothing when the instance's layers miss the options' mask; culling sees fronts as the
    /// world does (mirroring included).
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{DAffine3, DVec3};
    /// use meshcast_mesh::{Instance, Mesh, RayQueries};
    /// use meshcast_primitives::DRay;
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// // Placed 6378 km east: an f32 placement would round it to half a metre.
    /// let far = Instance::new(tri, DAffine3::from_translation(DVec3::new(6_378_137.3, 0.0, 0.0)))?;
    /// let down = DRay::new(DVec3::new(6_378_137.3 + 0.25, 0.25, 2.0), DVec3::NEG_Z);
    /// assert_eq!(far.cast(&down).map(|hit| hit.t), Some(2.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    fn walk<Q: QueryKind, F: Filter<u32>>(
        &self,
        ray: &DRay,
        options: &QueryOptions<F>,
        kind: Q,
    ) -> Q::Answer<DHit> {
        if !options.matches_layers(self.layers()) {
            return Q::nothing();
        }
        self.answer_far(ray, ray.t_max, kind.rules(options), &options.filter, kind)
    }

    #[inline]
    fn batch_frame(&self) -> BatchFrame {
        BatchFrame::new(self.bounds(), self.mesh().acceleration_bytes())
    }
}

impl RayQueries<DRay> for Scene {
    type Hit = DSceneHit;
    type Candidate = (InstanceId, u32);
}

impl LevelWalks<DRay, DSceneHit, (InstanceId, u32)> for Scene {
    /// The top level walked as `kind` says with the exact ray, its boxes widened
    /// ([`TopLevelRay`]), through the walk of `f32` rays ([`meshcast_bvh::Bvh::walk_tested`]),
    /// each instance it reaches answering `kind` for the range left in its own frame
    /// ([`Instance::answer_far`]). The exactness contract is restated for rays far from the
    /// origin: exact on the rebased `f32` coordinates, what a loop over every instance's own
    /// answer to the ray gives.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{DAffine3, DVec3};
    /// use meshcast_mesh::{Instance, Mesh, RayQueries, Scene};
    /// use meshcast_primitives::DRay;
    ///
    /// let square = Arc::new(Mesh::from_triangles(
    ///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
    ///     &[[0, 1, 2], [0, 2, 3]],
    /// )?);
    /// // Two tiles a metre wide, 5000 km north, 3 km apart.
    /// let at = |x: f64| DAffine3::from_translation(DVec3::new(500_123.37 + x, 5_000_456.71, 100.0));
    /// let scene = Scene::from_instances([
    ///     Instance::new(square.clone(), at(0.0))?,
    ///     Instance::new(square, at(3000.0))?,
    /// ]);
    /// let down = DRay::new(DVec3::new(500_123.37 + 3000.5, 5_000_456.71 + 0.5, 110.0), DVec3::NEG_Z);
    /// let hit = scene.cast(&down).ok_or("miss")?;
    /// assert_eq!((hit.instance.index(), hit.hit.t), (1, 10.0));
    /// // A ray 2 cm beside the tile misses it, as it does at the origin.
    /// let beside = DRay::new(DVec3::new(500_123.37 + 3001.02, 5_000_456.71 + 0.5, 110.0), DVec3::NEG_Z);
    /// assert!(scene.cast(&beside).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn walk<Q: QueryKind, F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &DRay,
        options: &QueryOptions<F>,
        kind: Q,
    ) -> Q::Answer<DSceneHit> {
        let rules = kind.rules(options);
        let boxes = self.top_level_ray(ray);
        self.top_level()
            .walk_tested(&boxes, ray, kind, |slot, range| {
                let Some((id, instance)) = self.searched(slot, options.mask) else {
                    return Q::nothing();
                };
                let filter = InstanceFilter {
                    id,
                    filter: &options.filter,
                };
                let answer = instance.answer_far(ray, range.t_max, rules, &filter, kind);
                Q::map(answer, |hit| DSceneHit { instance: id, hit })
            })
    }

    #[inline]
    fn batch_frame(&self) -> BatchFrame {
        BatchFrame::new(self.bounds(), self.acceleration_bytes())
    }
}

impl Scene {
    /// `ray` made ready for the top level's slab tests ([`TopLevelRay`]).
    pub(super) fn top_level_ray(&self, ray: &DRay) -> TopLevelRay {
        TopLevelRay::new(ray, &self.top_level().bounds(), self.far_reach())
    }
}

/// A world ray made ready, once, for the slab tests of the scene's top level in `f64`
/// ([`TopLevelRay::span`]): its reciprocal direction, its range widened by the slack, and the
/// widening of every box.
///
/// A box is widened by the scene's far reach ([`FarReach`]): its pad, and its condition times
/// the slack of the `f64` steps at the scale of the ray's origin and of the box, bounded here
/// by the top level's root box (every box lies in it), so that one widening serves every box
/// (a larger one only culls less). Per box, the first form made the widening from the box and
/// divided by the direction: 18% of `Scene::cast`'s time in `perf` (the `far_scenes`
/// example, bunny city, one thread). The reciprocal's rounding moves a box's entry by a
/// relative `2^-53`, far inside the widening, which is at least `2^-46` of the distance from
/// the origin to the box.
pub(super) struct TopLevelRay {
    /// The origin moved by the widening, for the boxes' low planes and their high ones.
    low_origin: DVec3,
    high_origin: DVec3,
    inv_dir: DVec3,
    near: f64,
    far: f64,
}

impl TopLevelRay {
    /// `ray` (valid) made ready for a top level whose root box is `root`, widened by `reach`.
    fn new(ray: &DRay, root: &Aabb, reach: FarReach) -> Self {
        let root = root.min.as_dvec3().abs().max(root.max.as_dvec3().abs());
        let magnitude = ray.origin.abs().max_element() + root.max_element();
        let pad = reach.pad + SLACK * (reach.condition + 1.0) * magnitude;
        Self {
            low_origin: ray.origin + pad,
            high_origin: ray.origin - pad,
            inv_dir: ray.dir.recip(),
            near: ray.t_min - ray.t_min.abs() * SLACK,
            far: ray.t_max + ray.t_max.abs() * SLACK,
        }
    }

    /// `(entry, exit)` of `bounds` widened within the range ending at `t_max`: the box is
    /// entered iff `entry <= exit`, and `entry` is then the smallest `t` (a lower bound,
    /// within the range's slack) at which the ray lies in the box widened: the slab test in
    /// `f64`, on the exact ray.
    ///
    /// An axis the ray does not move along has an infinite reciprocal: its two distances
    /// are infinities of one sign (the origin outside the slab: the box is culled) or of
    /// both (inside: no bound), and a NaN where the origin lies on a widened plane, which
    /// `min` and `max` pass over, culling the box. The widening bounds the distance of any
    /// hit strictly ([`FarReach`]), so a ray on the widened plane hits nothing in the box.
    #[inline]
    fn span(&self, bounds: &Aabb, t_max: f64) -> (f64, f64) {
        let (min, max) = (bounds.min.as_dvec3(), bounds.max.as_dvec3());
        if !min.cmple(max).all() {
            return (f64::INFINITY, f64::NEG_INFINITY);
        }
        let a = (min - self.low_origin) * self.inv_dir;
        let b = (max - self.high_origin) * self.inv_dir;
        let near = a.min(b).max_element().max(self.near);
        let far = a.max(b).min_element().min(self.far).min(t_max);
        (near, far)
    }
}

/// The top level's box test for `f64` rays: a box is entered where the exact ray crosses it
/// widened. A hit of an instance's carried ray at `t` lies in the widened box, so its entry is
/// no later than `t`: the walk that shrinks its range to the best hit skips no box that holds
/// a hit as near, ties included.
impl BoxTest for TopLevelRay {
    type Ray = DRay;

    #[inline]
    fn test(&self, node: &Node, t_max: f64) -> (f64, f64) {
        self.span(&node.bounds(), t_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widened_slab_test_finds_the_entry() {
        let unit = Aabb::new(glam::Vec3::ZERO, glam::Vec3::ONE);
        let entry = |ray: &DRay, bounds: &Aabb, reach| {
            let (near, far) = TopLevelRay::new(ray, &unit, reach).span(bounds, ray.t_max);
            (near <= far).then_some(near)
        };
        let ray = DRay::new(DVec3::new(0.5, 0.5, 5.0), DVec3::NEG_Z);
        let t = entry(&ray, &unit, FarReach::default()).expect("crosses");
        assert!((t - 4.0).abs() < 1e-9, "{t}");
        // Beside the box by less than the pad: still crossing; by more: not.
        let beside = DRay::new(DVec3::new(1.001, 0.5, 5.0), DVec3::NEG_Z);
        let pad = |pad| FarReach {
            pad,
            condition: 1.0,
            span: 1.0,
        };
        assert!(entry(&beside, &unit, pad(0.01)).is_some());
        assert!(entry(&beside, &unit, pad(0.0001)).is_none());
        // A range that ends before the box misses it.
        assert!(entry(&ray.with_range(0.0, 3.0), &unit, pad(0.0)).is_none());
        assert!(entry(&ray, &Aabb::EMPTY, pad(0.0)).is_none());
    }

    #[test]
    fn hits_order_by_t_then_instance_then_triangle() {
        let at = |t: f64, instance: u32, triangle: u32| DSceneHit {
            instance: InstanceId::from_index(instance),
            hit: DHit {
                t,
                u: 0.0,
                v: 0.0,
                triangle,
            },
        };
        let mut hits = [at(1.0, 0, 0), at(0.0, 2, 0), at(-0.0, 1, 5), at(0.0, 1, 3)];
        hits.sort_unstable_by(DSceneHit::order);
        let order: Vec<(u32, u32)> = hits
            .iter()
            .map(|h| (h.instance.index(), h.hit.triangle))
            .collect();
        assert_eq!(order, [(1, 3), (1, 5), (2, 0), (0, 0)]);
    }
}
