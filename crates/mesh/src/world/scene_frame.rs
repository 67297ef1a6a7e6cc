//! [`Instance`] and [`Scene`] queries in `f64` world coordinates: each world ray ([`DRay`])
//! carried into every instance it reaches by the instance's `f64` inverse transform, then
//! into the mesh's frame ([`DRay::carry`]), rounded once, asked as the mesh's own queries ask
//! it, and its hits given back with `t` in `f64` world units ([`DSceneHit`]).
//!
//! The exactness contract is the mesh's, on the carried rays: a scene query answers exactly
//! what a loop over every instance answers, each instance asked with its carried, rounded ray
//! ([`Instance::carry_ray`]); the closest hit is the first by `t` in `f64`, then instance id,
//! then triangle ([`DSceneHit::order`]). So only the rounding of coordinates at each mesh's
//! own scale is left, wherever the instance lies: a scene spanning a city or a planet keeps
//! each mesh's precision.
//!
//! The scene's top level (`f32` boxes in world coordinates) only culls. It is walked with the
//! exact `f64` ray, each box widened by the scene's far reach (the largest instance's
//! [`FarReach`], whose documentation derives it): how far from the exact ray the carried,
//! rounded ray of an instance may hit. So no instance whose carried ray hits is culled.

use core::cmp::Ordering;
use core::ops::ControlFlow;

use glam::DVec3;
use meshcast_primitives::{f32_at_least, Aabb, DFrame, DHit, DRay, Hit, Overlap, Ray};

use crate::queries::{batch_ray_by_ray, All, Any, Closest, Count, HitRules, LevelWalks, QueryKind};
use crate::scene::{FarReach, InstanceFilter};
use crate::world::mesh_frame::limited;
use crate::{Filter, Instance, InstanceId, QueryOptions, Scene};

/// The relative slack of the top level's `f64` tests (ranges and boxes): `2^-46`, 64 times
/// the few roundings of each `f64` step it covers.
const SLACK: f64 = 1.0 / (1u64 << 46) as f64;

/// A hit in a scene of a ray in `f64` world coordinates ([`Scene::cast_f64`]): which
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
    /// then by triangle index. [`Scene::cast_f64`] answers the first hit in this order and
    /// [`Scene::cast_all_f64`] sorts by it.
    #[inline]
    pub fn order(&self, other: &Self) -> Ordering {
        // Adding zero makes -0.0 into 0.0; t is never NaN.
        (self.hit.t + 0.0)
            .total_cmp(&(other.hit.t + 0.0))
            .then(self.instance.cmp(&other.instance))
            .then(self.hit.triangle.cmp(&other.hit.triangle))
    }
}

impl Instance {
    /// `point` (`f64` world coordinates) carried into the mesh's space by the `f64` inverse
    /// of [`Instance::transform_f64`], rounded once.
    #[inline]
    pub fn carry_point(&self, point: DVec3) -> glam::Vec3 {
        self.to_local_f64().transform_point3(point).as_vec3()
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
    /// by the `f64` inverse of [`Instance::transform_f64`], then into the mesh's frame around
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

    /// The closest hit of a ray in `f64` world coordinates: the mesh's closest hit of the
    /// carried ray ([`Instance::carry_ray`]), fronts as the world sees them, `t` in `f64` in
    /// units of the world ray's direction.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{DAffine3, DVec3};
    /// use meshcast_mesh::{Instance, Mesh};
    /// use meshcast_primitives::DRay;
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// // Placed 6378 km east: an f32 placement would round it to half a metre.
    /// let far = Instance::from_f64(tri, DAffine3::from_translation(DVec3::new(6_378_137.3, 0.0, 0.0)))?;
    /// let down = DRay::new(DVec3::new(6_378_137.3 + 0.25, 0.25, 2.0), DVec3::NEG_Z);
    /// assert_eq!(far.cast_f64(&down).map(|hit| hit.t), Some(2.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cast_f64(&self, ray: &DRay) -> Option<DHit> {
        let (local, shift) = self.carry_ray(ray);
        let rules = HitRules::first_hit(&QueryOptions::new()).mirrored(self.is_mirrored());
        let hit = self
            .mesh()
            .leaves()
            .trace(&local, rules, |_| true, Closest, &mut ())?;
        Some(DHit::carried_back(hit, shift))
    }
}

impl Scene {
    /// The closest hit of a ray in `f64` world coordinates over every instance: each instance
    /// it reaches asked with the ray carried into its mesh's space ([`Instance::carry_ray`]),
    /// the first hit by [`DSceneHit::order`]. The exactness contract is restated for rays
    /// far from the origin: exact on the rebased `f32` coordinates, what a loop over every
    /// instance's [`Instance::cast_f64`] answers.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{DAffine3, DVec3};
    /// use meshcast_mesh::{Instance, Mesh, Scene};
    /// use meshcast_primitives::DRay;
    ///
    /// let square = Arc::new(Mesh::from_triangles(
    ///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
    ///     &[[0, 1, 2], [0, 2, 3]],
    /// )?);
    /// // Two tiles a metre wide, 5000 km north, 3 km apart.
    /// let at = |x: f64| DAffine3::from_translation(DVec3::new(500_123.37 + x, 5_000_456.71, 100.0));
    /// let scene = Scene::from_instances([
    ///     Instance::from_f64(square.clone(), at(0.0))?,
    ///     Instance::from_f64(square, at(3000.0))?,
    /// ]);
    /// let down = DRay::new(DVec3::new(500_123.37 + 3000.5, 5_000_456.71 + 0.5, 110.0), DVec3::NEG_Z);
    /// let hit = scene.cast_f64(&down).ok_or("miss")?;
    /// assert_eq!((hit.instance.index(), hit.hit.t), (1, 10.0));
    /// // A ray 2 cm beside the tile misses it, as it does at the origin.
    /// let beside = DRay::new(DVec3::new(500_123.37 + 3001.02, 5_000_456.71 + 0.5, 110.0), DVec3::NEG_Z);
    /// assert!(scene.cast_f64(&beside).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cast_f64(&self, ray: &DRay) -> Option<DSceneHit> {
        self.cast_f64_with(ray, &QueryOptions::new())
    }

    /// [`Scene::cast_f64`] with [`QueryOptions`]: the layers, the filter (asked about
    /// `(instance, triangle)`), culling and contacts as [`crate::RayQueries::cast_with`]
    /// takes them, and the distance limit measured along the world ray.
    pub fn cast_f64_with<F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &DRay,
        options: &QueryOptions<F>,
    ) -> Option<DSceneHit> {
        let ray = limited(ray, options)?;
        let rules = HitRules::first_hit(options);
        let top_level_ray = self.top_level_ray(&ray);
        let mut best: Option<DSceneHit> = None;
        // Nearest box first; a box is skipped once it starts past the best hit, both in
        // `f64` (rounding them outwards to `f32` cost 4% of the instructions of a ray).
        self.top_level().nearest(
            f64::INFINITY,
            |bounds| top_level_ray.entry(bounds).unwrap_or(f64::NAN),
            |slot, bound| {
                let Some((id, instance)) = self.searched(slot, options.mask) else {
                    return bound;
                };
                let (mut local, shift) = instance.carry_ray(&ray);
                if let Some(best) = best {
                    // Cut at the best hit, a little beyond, so that a tie is still found
                    // (the smaller instance id wins it); the carried ray is the same as
                    // uncut, so each instance answers as it does alone.
                    let cut = best.hit.t - shift + (best.hit.t.abs() + shift.abs()) * SLACK;
                    local.t_max = local.t_max.min(f32_at_least(cut));
                }
                if let Some(hit) = walk(instance, id, &local, rules, &options.filter, Closest) {
                    let hit = DSceneHit {
                        instance: id,
                        hit: DHit::carried_back(hit, shift),
                    };
                    if best.is_none_or(|best| hit.order(&best).is_lt()) {
                        best = Some(hit);
                    }
                }
                best.map_or(bound, |best| best.hit.t.min(bound))
            },
        );
        best
    }

    /// Whether anything is hit within the range of a ray in `f64` world coordinates: whether
    /// any instance's carried ray hits ([`Scene::cast_f64`]).
    pub fn occluded_f64(&self, ray: &DRay) -> bool {
        self.occluded_f64_with(ray, &QueryOptions::new())
    }

    /// [`Scene::occluded_f64`] with [`QueryOptions`], as [`Scene::cast_f64_with`] takes them.
    pub fn occluded_f64_with<F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &DRay,
        options: &QueryOptions<F>,
    ) -> bool {
        let Some(ray) = limited(ray, options) else {
            return false;
        };
        let rules = HitRules::first_hit(options);
        self.reached(&ray, options.mask, |id, instance| {
            let (local, _) = instance.carry_ray(&ray);
            if walk(instance, id, &local, rules, &options.filter, Any) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .is_break()
    }

    /// Every hit of a ray in `f64` world coordinates, sorted by [`DSceneHit::order`]: each
    /// instance's every hit of its carried ray, each crossing once.
    pub fn cast_all_f64(&self, ray: &DRay) -> Vec<DSceneHit> {
        self.cast_all_f64_with(ray, &QueryOptions::new())
    }

    /// [`Scene::cast_all_f64`] with [`QueryOptions`], as [`crate::RayQueries::cast_all_with`]
    /// takes them: the layers, the filter, culling, the distance limit along the world ray
    /// and `max_hits`, the first hits in [`DSceneHit::order`].
    pub fn cast_all_f64_with<F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &DRay,
        options: &QueryOptions<F>,
    ) -> Vec<DSceneHit> {
        let mut hits = Vec::new();
        let Some(ray) = limited(ray, options) else {
            return hits;
        };
        // Each instance's first `max_hits` hold the scene's first `max_hits`.
        let kind = All {
            max_hits: options.max_hits,
        };
        let rules = kind.rules(options);
        let _ = self.reached(&ray, options.mask, |id, instance| {
            let (local, shift) = instance.carry_ray(&ray);
            let found = walk(instance, id, &local, rules, &options.filter, kind);
            hits.extend(found.into_iter().map(|hit| DSceneHit {
                instance: id,
                hit: DHit::carried_back(hit, shift),
            }));
            ControlFlow::<()>::Continue(())
        });
        hits.sort_unstable_by(DSceneHit::order);
        hits.truncate(options.max_hits);
        hits
    }

    /// The number of hits [`Scene::cast_all_f64`] gives.
    pub fn count_f64(&self, ray: &DRay) -> usize {
        self.count_f64_with(ray, &QueryOptions::new())
    }

    /// The number of hits [`Scene::cast_all_f64_with`] gives with these options.
    pub fn count_f64_with<F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &DRay,
        options: &QueryOptions<F>,
    ) -> usize {
        let Some(ray) = limited(ray, options) else {
            return 0;
        };
        let kind = Count {
            max_hits: options.max_hits,
        };
        let rules = kind.rules(options);
        let mut total = 0usize;
        let _ = self.reached(&ray, options.mask, |id, instance| {
            let (local, _) = instance.carry_ray(&ray);
            total += walk(instance, id, &local, rules, &options.filter, kind);
            if total >= options.max_hits {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        total.min(options.max_hits)
    }

    /// [`Scene::cast_f64`] for every ray, in parallel, in the order of `rays`.
    pub fn cast_batch_f64(&self, rays: &[DRay]) -> Vec<Option<DSceneHit>> {
        self.cast_batch_f64_with(rays, &QueryOptions::new())
    }

    /// [`Scene::cast_f64_with`] for every ray, in parallel, in the order of `rays`, through
    /// the batch driver every batch query runs through: sorted where the options' order says
    /// ([`crate::BatchOrder`], as [`crate::RayQueries::cast_batch_with`] sorts), each ray walked
    /// alone.
    pub fn cast_batch_f64_with<F: Filter<(InstanceId, u32)> + Sync>(
        &self,
        rays: &[DRay],
        options: &QueryOptions<F>,
    ) -> Vec<Option<DSceneHit>> {
        let mut hits = vec![None; rays.len()];
        batch_ray_by_ray(self.batch_frame(), rays, options, &mut hits, |ray| {
            self.cast_f64_with(ray, options)
        });
        hits
    }

    /// [`Scene::occluded_f64`] for every ray, in parallel, in the order of `rays`.
    pub fn occluded_batch_f64(&self, rays: &[DRay]) -> Vec<bool> {
        self.occluded_batch_f64_with(rays, &QueryOptions::new())
    }

    /// [`Scene::occluded_f64_with`] for every ray, in parallel, in the order of `rays`, through
    /// the batch driver ([`Scene::cast_batch_f64_with`]).
    pub fn occluded_batch_f64_with<F: Filter<(InstanceId, u32)> + Sync>(
        &self,
        rays: &[DRay],
        options: &QueryOptions<F>,
    ) -> Vec<bool> {
        let mut hits = vec![false; rays.len()];
        batch_ray_by_ray(self.batch_frame(), rays, options, &mut hits, |ray| {
            self.occluded_f64_with(ray, options)
        });
        hits
    }

    /// `ray` made ready for the top level's slab tests ([`TopLevelRay`]).
    fn top_level_ray(&self, ray: &DRay) -> TopLevelRay {
        TopLevelRay::new(ray, &self.top_level().bounds(), self.far_reach())
    }

    /// Calls `visit` with every instance on the layers of `mask` whose box, widened by the
    /// scene's far reach, `ray` crosses within its range, until `visit` breaks.
    pub(super) fn reached<B>(
        &self,
        ray: &DRay,
        mask: u32,
        mut visit: impl FnMut(InstanceId, &Instance) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let top_level_ray = self.top_level_ray(ray);
        self.top_level().overlap(
            |bounds| match top_level_ray.entry(bounds) {
                Some(_) => Overlap::Crossing,
                None => Overlap::Outside,
            },
            |slot, _| match self.searched(slot, mask) {
                Some((id, instance)) => visit(id, instance),
                None => ControlFlow::Continue(()),
            },
        )
    }
}

/// The answer of `kind` to a ray carried into `instance`'s mesh (`local`), among the
/// triangles the scene's `filter` keeps and `rules` accept as the world sees them.
#[inline]
pub(super) fn walk<Q: QueryKind, F: Filter<(InstanceId, u32)>>(
    instance: &Instance,
    id: InstanceId,
    local: &Ray,
    rules: HitRules,
    filter: &F,
    kind: Q,
) -> Q::Answer<Hit> {
    let filter = InstanceFilter { id, filter };
    let rules = rules.mirrored(instance.is_mirrored());
    let keep = |triangle| filter.keep(triangle);
    instance
        .mesh()
        .leaves()
        .trace(local, rules, keep, kind, &mut ())
}

/// A world ray made ready, once, for the slab tests of the scene's top level in `f64`
/// ([`TopLevelRay::entry`]): its reciprocal direction, its range widened by the slack, and the
/// widening of every box.
///
/// A box is widened by the scene's far reach ([`FarReach`]): its pad, and its condition times
/// the slack of the `f64` steps at the scale of the ray's origin and of the box, bounded here
/// by the top level's root box (every box lies in it), so that one widening serves every box
/// (a larger one only culls less). Per box, the first form made the widening from the box and
/// divided by the direction: 18% of `Scene::cast_f64`'s time in `perf` (the `far_scenes`
/// example, bunny city, one thread). The reciprocal's rounding moves a box's entry by a
/// relative `2^-53`, far inside the widening, which is at least `2^-46` of the distance from
/// the origin to the box.
struct TopLevelRay {
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

    /// The smallest `t` (a lower bound, within the range's slack) at which the ray lies in
    /// `bounds` widened, or `None` where it never does within its range: the slab test in
    /// `f64`, on the exact ray.
    ///
    /// An axis the ray does not move along has an infinite reciprocal: its two distances
    /// are infinities of one sign (the origin outside the slab: the box is culled) or of
    /// both (inside: no bound), and a NaN where the origin lies on a widened plane, which
    /// `min` and `max` pass over, culling the box. The widening bounds the distance of any
    /// hit strictly ([`FarReach`]), so a ray on the widened plane hits nothing in the box.
    #[inline]
    fn entry(&self, bounds: &Aabb) -> Option<f64> {
        let (min, max) = (bounds.min.as_dvec3(), bounds.max.as_dvec3());
        if !min.cmple(max).all() {
            return None;
        }
        let a = (min - self.low_origin) * self.inv_dir;
        let b = (max - self.high_origin) * self.inv_dir;
        let near = a.min(b).max_element().max(self.near);
        let far = a.max(b).min_element().min(self.far);
        (near <= far).then_some(near)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widened_slab_test_finds_the_entry() {
        let unit = Aabb::new(glam::Vec3::ZERO, glam::Vec3::ONE);
        let entry =
            |ray: &DRay, bounds: &Aabb, reach| TopLevelRay::new(ray, &unit, reach).entry(bounds);
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
