//! The contact queries between placed meshes, in world space: an instance against another,
//! and a scene's instances against each other or against a mesh placed in the world.

use glam::{Affine3A, DAffine3, Vec3};
use meshcast_primitives::{Aabb, Overlap, Volume};
use rayon::prelude::*;
use std::ops::ControlFlow;

use super::distance::{distance_limit, nearest_pair, DMeshDistance, BOUND_SLACK};
use super::intersection::{crossing_pairs, meet};
use super::side::{Bounds, Side};
use crate::contact::MeshDistance;
use crate::error::{Error, Result};
use crate::mesh::Mesh;
use crate::queries::InstanceId;
use crate::scene::{Instance, Placement, Scene};

/// How much an instance's stored world box is widened before it picks candidates: its
/// corners are `f32` roundings, a unit in `2^-24` of the coordinates, of a box around the
/// exact world geometry, and the walks then decide on their own boxes.
const CANDIDATE_BOX_SLACK: f32 = 1.0 / (1u32 << 20) as f32;

impl Instance {
    /// This instance's mesh as the contact walks see it: its vertices carried into world
    /// space in `f64` by the `f64` transform ([`Instance::exact_transform`]), so that
    /// instances far from the origin meet and part as they do near it.
    fn side(&self) -> Side<'_> {
        Side::new(self.mesh(), Some(&self.exact_transform()))
    }

    /// Whether this instance's surface and `other`'s share a point in world space: as
    /// [`Mesh::intersects`] decides it, with both meshes' vertices carried into the world
    /// once each by their transforms in `f64`, every decision exact from there.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let here = Instance::new(tri.clone(), Affine3A::from_translation(Vec3::X * 10.0))?;
    /// let turned = Affine3A::from_translation(Vec3::X * 10.0) * Affine3A::from_rotation_x(1.0);
    /// assert!(here.intersects(&Instance::new(tri.clone(), turned)?));
    /// assert!(!here.intersects(&Instance::new(tri, Affine3A::IDENTITY)?));
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn intersects(&self, other: &Instance) -> bool {
        meet(&self.side(), &other.side())
    }

    /// Every pair `(triangle of this mesh, triangle of other's)` that meets in world space,
    /// as [`Instance::intersects`] decides it: sorted, each pair once.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::Affine3A;
    /// use meshcast_mesh::{Instance, Mesh};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let a = Instance::new(tri.clone(), Affine3A::IDENTITY)?;
    /// let b = Instance::new(tri, Affine3A::from_rotation_y(1.0))?;
    /// assert_eq!(a.intersecting_pairs(&b), [(0, 0)]);
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn intersecting_pairs(&self, other: &Instance) -> Vec<(u32, u32)> {
        crossing_pairs(&self.side(), &other.side())
    }

    /// The smallest distance between this instance's surface and `other`'s in world space,
    /// as [`Mesh::mesh_distance`] computes it, the points in world space (`point_on_self` on
    /// this instance); `None` for an empty mesh or nothing within `max_distance`.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let low = Instance::new(tri.clone(), Affine3A::from_translation(Vec3::Z * 5.0))?;
    /// let high = Instance::new(tri, Affine3A::from_translation(Vec3::Z * 8.0))?;
    /// let gap = low.mesh_distance(&high, None).ok_or("empty")?;
    /// assert_eq!((gap.distance, gap.point_on_self.z), (3.0, 5.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mesh_distance(
        &self,
        other: &Instance,
        max_distance: Option<f32>,
    ) -> Option<MeshDistance> {
        self.world_mesh_distance(other, max_distance.map(f64::from))
            .map(|gap| gap.rounded())
    }

    /// [`Instance::mesh_distance`] in `f64`: the distance and the world points unrounded,
    /// for instances far from the origin, where an `f32` world point rounds to the metre.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{DAffine3, DVec3};
    /// use meshcast_mesh::{Instance, Mesh};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// // Two tiles a centimetre apart, 5000 km north.
    /// let at = |z: f64| DAffine3::from_translation(DVec3::new(500_123.37, 5_000_456.71, 100.0 + z));
    /// let (low, high) = (Instance::new(tri.clone(), at(0.0))?, Instance::new(tri, at(0.01))?);
    /// assert!(!low.intersects(&high));
    /// let gap = low.world_mesh_distance(&high, None).ok_or("empty")?;
    /// assert!((gap.distance - 0.01).abs() < 1e-9);
    /// assert!((gap.point_on_self.y - 5_000_456.71).abs() < 1.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn world_mesh_distance(
        &self,
        other: &Instance,
        max_distance: Option<f64>,
    ) -> Option<DMeshDistance> {
        nearest_pair(&self.side(), &other.side(), distance_limit(max_distance)?)
    }
}

impl Scene {
    /// Every pair of instances `(a, b)`, `a < b`, whose layers share a bit and whose
    /// surfaces meet ([`Instance::intersects`]): sorted, each pair once. Candidates come from
    /// the top level (instances whose world boxes overlap), and are tested on rayon's
    /// threads; the answer does not depend on their number. An instance never collides with
    /// itself, and two instances of one mesh are two instances.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, Scene};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let mut scene = Scene::new();
    /// let a = scene.add(Instance::new(tri.clone(), Affine3A::IDENTITY)?);
    /// let b = scene.add(Instance::new(tri.clone(), Affine3A::from_rotation_x(1.0))?);
    /// let far = scene.add(Instance::new(tri.clone(), Affine3A::from_translation(Vec3::X * 9.0))?);
    /// // On a layer of its own, a third copy crossing both is left out.
    /// scene.add(Instance::new(tri, Affine3A::from_rotation_y(1.0))?.with_layers(0b10));
    /// scene.set_layers(a, 0b01)?;
    /// scene.set_layers(b, 0b01)?;
    /// assert_eq!(scene.colliding_pairs(), [(a, b)]);
    /// # let _ = far;
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn colliding_pairs(&self) -> Vec<(InstanceId, InstanceId)> {
        self.overlapping_pairs()
            .into_par_iter()
            .filter(|&(a, b)| self.instances_intersect(a, b))
            .collect()
    }

    /// Every pair of instances `(a, b)`, `a < b`, whose layers share a bit and whose world
    /// boxes overlap (widened for rounding): the candidates of [`Scene::colliding_pairs`],
    /// found through the top level. Sorted, each pair once.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, Scene};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let mut scene = Scene::new();
    /// let a = scene.add(Instance::new(tri.clone(), Affine3A::IDENTITY)?);
    /// // Its box overlaps the first's, its surface does not meet it.
    /// let b = scene.add(Instance::new(tri.clone(), Affine3A::from_translation(Vec3::new(0.6, 0.6, 0.0)))?);
    /// scene.add(Instance::new(tri, Affine3A::from_translation(Vec3::X * 9.0))?);
    /// assert_eq!(scene.overlapping_pairs(), [(a, b)]);
    /// assert_eq!(scene.colliding_pairs(), []);
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn overlapping_pairs(&self) -> Vec<(InstanceId, InstanceId)> {
        let mut pairs = Vec::new();
        for (id, instance) in self.instances() {
            self.for_each_overlapping(&instance.bounds(), instance.layers(), |other, _| {
                if other > id {
                    pairs.push((id, other));
                }
            });
        }
        pairs.sort_unstable();
        pairs
    }

    /// Whether the surfaces of instances `a` and `b` meet ([`Instance::intersects`]);
    /// `false` when the scene holds either no longer.
    pub fn instances_intersect(&self, a: InstanceId, b: InstanceId) -> bool {
        match (self.instance(a), self.instance(b)) {
            (Some(a), Some(b)) => a.intersects(b),
            _ => false,
        }
    }

    /// The instances on a layer of `mask` whose surface meets `mesh`'s, placed in the world
    /// by `mesh_to_world` in `f32` or `f64` (as [`Instance::new`] places a mesh, from its
    /// world coordinates, its [`Mesh::origin`] included, so that a probe far from the origin
    /// keeps its precision): as [`Instance::intersects`]
    /// decides it, `mesh` carried as an instance's mesh is. Sorted; tested on rayon's
    /// threads.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, Scene, ALL_LAYERS};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let mut scene = Scene::new();
    /// let near = scene.add(Instance::new(tri.clone(), Affine3A::IDENTITY)?);
    /// scene.add(Instance::new(tri.clone(), Affine3A::from_translation(Vec3::X * 9.0))?);
    /// let probe = Affine3A::from_rotation_x(1.0);
    /// assert_eq!(scene.intersecting_instances(&tri, &probe, ALL_LAYERS), [near]);
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn intersecting_instances(
        &self,
        mesh: &Mesh,
        mesh_to_world: &impl Placement,
        mask: u32,
    ) -> Vec<InstanceId> {
        let probe = Side::new(mesh, Some(&placed(mesh, &mesh_to_world.in_f64())));
        let Some(reach) = world_box(&probe) else {
            return Vec::new();
        };
        let mut candidates = Vec::new();
        self.for_each_overlapping(&reach, mask, |id, instance| candidates.push((id, instance)));
        let mut found: Vec<InstanceId> = candidates
            .into_par_iter()
            .filter(|(_, instance)| meet(&instance.side(), &probe))
            .map(|(id, _)| id)
            .collect();
        found.sort_unstable();
        found
    }

    /// The instance on a layer of `mask` nearest to `mesh`, placed in the world by
    /// `mesh_to_world`, and the distance between their surfaces as
    /// [`Instance::mesh_distance`] computes it (`point_on_self` on the instance,
    /// `point_on_other` on `mesh`, both in world space); of instances at the same distance,
    /// the smallest id. `None` when no instance lies within `max_distance`, or `mesh` is
    /// empty or its transform not finite. Instances are visited nearest box first, each
    /// walk bounded by the nearest found so far.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, Scene, ALL_LAYERS};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let mut scene = Scene::new();
    /// scene.add(Instance::new(tri.clone(), Affine3A::from_translation(Vec3::Z * 9.0))?);
    /// let near = scene.add(Instance::new(tri.clone(), Affine3A::from_translation(Vec3::Z * 2.0))?);
    /// let (id, gap) = scene.mesh_distance(&tri, &Affine3A::IDENTITY, ALL_LAYERS, None).ok_or("none")?;
    /// assert_eq!((id, gap.distance), (near, 2.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mesh_distance(
        &self,
        mesh: &Mesh,
        mesh_to_world: &Affine3A,
        mask: u32,
        max_distance: Option<f32>,
    ) -> Option<(InstanceId, MeshDistance)> {
        let found = self.world_mesh_distance(
            mesh,
            &mesh_to_world.as_daffine3(),
            mask,
            max_distance.map(f64::from),
        );
        found.map(|(id, gap)| (id, gap.rounded()))
    }

    /// [`Scene::mesh_distance`] of `mesh` placed by an `f64` transform (as
    /// [`Scene::intersecting_instances`] places it), the distance and the world points
    /// in `f64` ([`Instance::world_mesh_distance`]).
    pub fn world_mesh_distance(
        &self,
        mesh: &Mesh,
        mesh_to_world: &DAffine3,
        mask: u32,
        max_distance: Option<f64>,
    ) -> Option<(InstanceId, DMeshDistance)> {
        let limit = distance_limit(max_distance)?;
        let probe = Side::new(mesh, Some(&placed(mesh, mesh_to_world)));
        let reach = probe_bounds(&probe)?;
        let sides: Vec<(InstanceId, Side)> = self
            .instances()
            .filter(|(_, instance)| instance.layers() & mask != 0)
            .map(|(id, instance)| (id, instance.side()))
            .collect();
        let candidates = sides.iter().map(|(id, side)| {
            let bound = probe_bounds(side).map_or(f64::INFINITY, |b| b.distance(&reach));
            (bound, *id, side, &probe)
        });
        nearest_candidate(candidates.collect(), limit)
    }

    /// The nearest two instances whose layers share a bit (with `of`, the instance nearest
    /// to `of` whose layers share a bit with its), and the distance between their surfaces
    /// as [`Instance::mesh_distance`] computes it: `(a, b, distance)` with `point_on_self` on
    /// `a`, which is `of` when given, else the smaller id. Of pairs at the same distance, the
    /// first in id order. `None` when no such pair lies within `max_distance`.
    ///
    /// Pairs are visited nearest world box first, each walk bounded by the nearest found so
    /// far; ordering them costs a box distance for every pair of instances (`n^2 / 2`, or
    /// `n` with `of`).
    ///
    /// # Errors
    /// [`Error::UnknownInstance`] when `of` is not in the scene.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, Scene};
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let at = |z: f32| Instance::new(tri.clone(), Affine3A::from_translation(Vec3::Z * z));
    /// let mut scene = Scene::new();
    /// let (a, b, c) = (scene.add(at(0.0)?), scene.add(at(5.0)?), scene.add(at(7.0)?));
    /// let (first, second, gap) = scene.nearest_instances(None, None)?.ok_or("none")?;
    /// assert_eq!((first, second, gap.distance), (b, c, 2.0));
    /// let (_, nearest, gap) = scene.nearest_instances(Some(a), None)?.ok_or("none")?;
    /// assert_eq!((nearest, gap.distance), (b, 5.0));
    /// assert!(scene.nearest_instances(Some(a), Some(4.0))?.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn nearest_instances(
        &self,
        of: Option<InstanceId>,
        max_distance: Option<f32>,
    ) -> Result<Option<(InstanceId, InstanceId, MeshDistance)>> {
        let found = self.world_nearest_instances(of, max_distance.map(f64::from))?;
        Ok(found.map(|(a, b, gap)| (a, b, gap.rounded())))
    }

    /// [`Scene::nearest_instances`], the distance and the world points in `f64`
    /// ([`Instance::world_mesh_distance`]).
    ///
    /// # Errors
    /// As [`Scene::nearest_instances`].
    pub fn world_nearest_instances(
        &self,
        of: Option<InstanceId>,
        max_distance: Option<f64>,
    ) -> Result<Option<(InstanceId, InstanceId, DMeshDistance)>> {
        if let Some(of) = of {
            if self.instance(of).is_none() {
                return Err(Error::UnknownInstance {
                    instance: of.index(),
                });
            }
        }
        let Some(limit) = distance_limit(max_distance) else {
            return Ok(None);
        };
        let sides: Vec<(InstanceId, u32, Side, Bounds)> = self
            .instances()
            .filter_map(|(id, instance)| {
                let side = instance.side();
                let bounds = probe_bounds(&side)?;
                Some((id, instance.layers(), side, bounds))
            })
            .collect();
        let mut candidates = Vec::new();
        for (i, (id_a, layers_a, side_a, bounds_a)) in sides.iter().enumerate() {
            if of.is_some_and(|of| of != *id_a) {
                continue;
            }
            for (j, (id_b, layers_b, side_b, bounds_b)) in sides.iter().enumerate() {
                let counted = if of.is_some() { j != i } else { j > i };
                if counted && layers_a & layers_b != 0 {
                    let bound = bounds_a.distance(bounds_b);
                    candidates.push((bound, (*id_a, *id_b), side_a, side_b));
                }
            }
        }
        Ok(nearest_candidate(candidates, limit).map(|((a, b), gap)| (a, b, gap)))
    }

    /// Calls `visit` for every instance on a layer of `mask` whose world box, widened for
    /// rounding, overlaps `reach`.
    fn for_each_overlapping<'s>(
        &'s self,
        reach: &Aabb,
        mask: u32,
        mut visit: impl FnMut(InstanceId, &'s Instance),
    ) {
        let volume = Volume::Box(widened(*reach));
        let _ = self.top_level().overlap(
            |bounds| volume.classify_box(&widened(*bounds)),
            |slot, _| {
                if let Some((id, instance)) = self.searched(slot, mask) {
                    if volume.classify_box(&widened(instance.bounds())) != Overlap::Outside {
                        visit(id, instance);
                    }
                }
                ControlFlow::<()>::Continue(())
            },
        );
    }
}

/// The nearest of `candidates`, each a lower bound on its distance, a key and the two sides
/// to walk: visited by bound (then key), each walk bounded by the nearest found so far, and
/// skipped when its bound is beyond that by more than rounding. Of candidates at the same
/// distance, the one of the smallest key; `None` when none lies within `limit`.
fn nearest_candidate<K: Ord + Copy>(
    mut candidates: Vec<(f64, K, &Side, &Side)>,
    mut limit: f64,
) -> Option<(K, DMeshDistance)> {
    candidates.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    let mut best: Option<(K, DMeshDistance)> = None;
    for (bound, key, a, b) in candidates {
        if bound > limit + a.extent.max(b.extent) * BOUND_SLACK {
            continue;
        }
        let Some(gap) = nearest_pair(a, b, limit) else {
            continue;
        };
        let better = best.is_none_or(|(best_key, found)| {
            gap.distance < found.distance || (gap.distance == found.distance && key < best_key)
        });
        if better {
            limit = gap.distance;
            best = Some((key, gap));
        }
    }
    best
}

/// The transform from `mesh`'s own space (its [`crate::TriMesh`] positions) to the world, for
/// a placement from the mesh's world coordinates: as [`Instance::exact_transform`] makes it.
fn placed(mesh: &Mesh, mesh_to_world: &DAffine3) -> DAffine3 {
    *mesh_to_world * DAffine3::from_translation(mesh.origin())
}

/// A box grown by [`CANDIDATE_BOX_SLACK`] of its largest coordinate.
fn widened(b: Aabb) -> Aabb {
    let pad = b.min.abs().max(b.max.abs()).max_element() * CANDIDATE_BOX_SLACK;
    Aabb::new(b.min - Vec3::splat(pad), b.max + Vec3::splat(pad))
}

/// The box around everything a side's walks start from, in `f64`; `None` when empty.
fn probe_bounds(side: &Side) -> Option<Bounds> {
    let all = side
        .starts()
        .iter()
        .fold(Bounds::EMPTY, |b, (_, lane)| b.union(*lane));
    all.min.cmple(all.max).all().then_some(all)
}

/// [`probe_bounds`] rounded to an `f32` box: within a unit in `2^-24` of it, which the
/// widening of [`Scene::for_each_overlapping`] covers.
fn world_box(side: &Side) -> Option<Aabb> {
    let all = probe_bounds(side)?;
    Some(Aabb::new(all.min.as_vec3(), all.max.as_vec3()))
}
