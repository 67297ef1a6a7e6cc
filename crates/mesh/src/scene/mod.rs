//! The scene room: many [`Instance`]s of shared meshes placed by affine transforms
//! (`instance/`: the instance in `mod.rs`, its walks in `walks.rs`; `far_reach.rs`: how far
//! the `f64` queries widen its box) under a top-level BVH over their world boxes, the
//! [`Scene`] (here: a two-level hierarchy, the same BVH over instances and in each mesh over triangles); what a
//! ray picks (`pick.rs`), what a box, sphere or frustum selects (`selection.rs`), and a scene
//! shared between readers and writers (`shared.rs`).
//!
//! May use: `mesh`, `triangles`, `queries`, `error`. Used by `points`.

mod far_reach;
mod instance;
mod pick;
mod selection;
mod shared;

pub(crate) use far_reach::FarReach;
pub(crate) use instance::{carried_box, carried_triangle};
pub use instance::{Instance, Placement};
pub use pick::{Pick, PickRay};
pub use selection::{Containment, SceneTriangle};
pub use shared::SharedScene;

use core::cmp::Ordering;

use meshcast_bvh::{BuildOptions, Bvh, Step};
use meshcast_primitives::{Aabb, Hit, Ray, RayHit, RayPacket, PACKET_WIDTH};

use crate::batches::{for_each_lane, BatchFrame};
use crate::error::{Error, Result};
use crate::queries::{
    batch_packets, sealed, serial_batch_packets, Filter, InstanceId, LevelWalks, PacketKind,
    PacketWalks, QueryKind, QueryOptions, RayQueries,
};
use crate::triangles::SurfacePoint;

/// A hit in a scene: which instance, and the hit on its mesh.
///
/// `hit.t` is the world ray's parameter; `hit.triangle`, `hit.u` and `hit.v` refer to the
/// instance's mesh (an affine map keeps barycentrics). Hits are ordered by
/// [`SceneHit::order`]: `t`, then the smaller instance id, then the smaller triangle index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneHit {
    /// The instance hit.
    pub instance: InstanceId,
    /// The hit on the instance's mesh.
    pub hit: Hit,
}

impl SceneHit {
    /// The order of scene hits along a ray: by `t` as [`Hit::order`] compares it (`-0.0`
    /// equal to `0.0`), then by instance id, then by triangle index. [`RayQueries::cast`]
    /// answers the first hit in this order and [`RayQueries::cast_all`] sorts by it.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::{InstanceId, SceneHit};
    /// use meshcast_primitives::Hit;
    ///
    /// let at = |t: f32, instance: u32, triangle: u32| SceneHit {
    ///     instance: InstanceId::from_index(instance),
    ///     hit: Hit::new(t, 0.0, 0.0).with_triangle(triangle),
    /// };
    /// let mut hits = [at(1.0, 0, 0), at(0.0, 2, 0), at(-0.0, 1, 5), at(0.0, 1, 3)];
    /// hits.sort_unstable_by(SceneHit::order);
    /// let order: Vec<(u32, u32)> = hits.iter().map(|h| (h.instance.index(), h.hit.triangle)).collect();
    /// assert_eq!(order, [(1, 3), (1, 5), (2, 0), (0, 0)]);
    /// ```
    #[inline]
    pub fn order(&self, other: &Self) -> Ordering {
        Hit::compare_t(self.hit.t, other.hit.t)
            .then(self.instance.cmp(&other.instance))
            .then(self.hit.triangle.cmp(&other.hit.triangle))
    }
}

impl RayHit for SceneHit {
    type Scalar = f32;

    #[inline]
    fn t(&self) -> f32 {
        self.hit.t
    }

    #[inline]
    fn order(&self, other: &Self) -> Ordering {
        SceneHit::order(self, other)
    }
}

/// Many [`Instance`]s queried as one: closest hit, any hit, every hit and batches of world
/// rays ([`RayQueries`]), each hit naming its instance ([`SceneHit`]).
///
/// The instances' world boxes sit under a top-level [`Bvh`]; each instance's mesh has its own.
/// Moving an instance ([`Scene::set_transform`]) refits the top level, and adding or removing
/// one rebuilds it; no mesh BVH is ever rebuilt. Answers equal a brute-force loop over every
/// instance and triangle (each tested on the instance's carried ray, [`Instance::to_local`]).
///
/// A scene is `Send + Sync` and every query takes `&self`: any number of threads may query
/// one at once. Edits take `&mut self`; to edit while others query, edit a copy (cheap:
/// meshes are shared through [`std::sync::Arc`]) and swap it in, as
/// [`crate::SharedScene`] does.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::{Instance, Mesh, RayQueries, Scene};
/// use meshcast_primitives::Ray;
///
/// let square = Arc::new(Mesh::from_triangles(
///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
///     &[[0, 1, 2], [0, 2, 3]],
/// )?);
/// let mut scene = Scene::new();
/// let low = scene.add(Instance::new(square.clone(), Affine3A::IDENTITY)?);
/// let high = scene.add(Instance::new(square, Affine3A::from_translation(Vec3::Z))?);
/// let down = Ray::new(Vec3::new(0.5, 0.25, 5.0), Vec3::NEG_Z);
/// assert_eq!(scene.cast(&down).map(|h| h.instance), Some(high));
/// scene.set_transform(high, Affine3A::from_translation(Vec3::X * 10.0))?;
/// assert_eq!(scene.cast(&down).map(|h| (h.instance, h.hit.t)), Some((low, 5.0)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Instance `i` at slot `i`; `None` once removed.
    slots: Vec<Option<Instance>>,
    /// Each slot's world box as the top level last saw it ([`Aabb::EMPTY`] when removed).
    boxes: Vec<Aabb>,
    /// Whether each slot's box was usable (finite, non-empty) at the last build, so that the
    /// build kept it and a refit can move it.
    built: Vec<bool>,
    top_level: Bvh,
    /// At least every held instance's [`FarReach`], for the `f64` queries of the world
    /// room: the largest of those at the last build and of those moved since.
    far_reach: FarReach,
}

impl Scene {
    /// The empty scene.
    pub fn new() -> Self {
        Self::default()
    }

    /// The scene of these instances, with ids `0, 1, ...` in order; the top level is built
    /// once.
    pub fn from_instances(instances: impl IntoIterator<Item = Instance>) -> Self {
        let slots: Vec<Option<Instance>> = instances.into_iter().map(Some).collect();
        let mut scene = Self {
            boxes: vec![Aabb::EMPTY; slots.len()],
            slots,
            ..Self::default()
        };
        scene.rebuild();
        scene
    }

    /// Adds an instance and rebuilds the top level; returns its id.
    ///
    /// # Panics
    /// If the scene already had `u32::MAX` instances added.
    pub fn add(&mut self, instance: Instance) -> InstanceId {
        let id = InstanceId::from_index(
            u32::try_from(self.slots.len()).expect("fewer than 2^32 instances"),
        );
        self.slots.push(Some(instance));
        self.boxes.push(Aabb::EMPTY);
        self.rebuild();
        id
    }

    /// Removes an instance and rebuilds the top level; returns it.
    ///
    /// # Errors
    /// [`Error::UnknownInstance`] if the scene does not hold `id`.
    pub fn remove(&mut self, id: InstanceId) -> Result<Instance> {
        let instance = self
            .slots
            .get_mut(id.index() as usize)
            .and_then(Option::take)
            .ok_or(Error::UnknownInstance {
                instance: id.index(),
            })?;
        self.rebuild();
        Ok(instance)
    }

    /// Moves an instance and refits the top level to its new box (a rebuild only when the box
    /// becomes or stops being usable). Refitting keeps the tree's shape, so after many large
    /// moves [`Scene::rebuild`] may give faster queries.
    ///
    /// # Errors
    /// [`Error::UnknownInstance`] for an id the scene does not hold;
    /// [`Error::InvalidTransform`] as in [`Instance::new`] (the instance then stays put).
    pub fn set_transform(&mut self, id: InstanceId, transform: impl Placement) -> Result<()> {
        let index = id.index() as usize;
        let instance =
            self.slots
                .get_mut(index)
                .and_then(Option::as_mut)
                .ok_or(Error::UnknownInstance {
                    instance: id.index(),
                })?;
        instance.set_transform(transform)?;
        let bounds = instance.bounds();
        self.far_reach = self.far_reach.max(instance.far_reach());
        self.boxes[index] = bounds;
        let usable = !bounds.is_empty() && bounds.is_finite();
        if usable && self.built[index] && self.top_level.refit(&self.boxes).is_ok() {
            return Ok(());
        }
        self.rebuild();
        Ok(())
    }

    /// Moves several instances (dragging a selection) and refits the top level once, rather
    /// than once per instance as [`Scene::set_transform`] does.
    ///
    /// # Errors
    /// As [`Scene::set_transform`], for the first move that fails; the moves before it are
    /// kept (and the hierarchy follows them), the rest are not made.
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, RayQueries, Scene};
    /// use meshcast_primitives::Ray;
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let mut scene = Scene::new();
    /// let ids: Vec<_> = (0..3).map(|_| Instance::new(tri.clone(), Affine3A::IDENTITY).map(|i| scene.add(i))).collect::<Result<_, _>>()?;
    /// scene.set_transforms(ids.iter().map(|&id| (id, Affine3A::from_translation(Vec3::X * 5.0))))?;
    /// assert!(scene.cast(&Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z)).is_none());
    /// assert!(scene.cast(&Ray::new(Vec3::new(5.2, 0.2, 1.0), Vec3::NEG_Z)).is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_transforms(
        &mut self,
        moves: impl IntoIterator<Item = (InstanceId, impl Placement)>,
    ) -> Result<()> {
        let mut rebuild = false;
        let mut outcome = Ok(());
        for (id, transform) in moves {
            let index = id.index() as usize;
            let Some(instance) = self.slots.get_mut(index).and_then(Option::as_mut) else {
                outcome = Err(Error::UnknownInstance {
                    instance: id.index(),
                });
                break;
            };
            if let Err(error) = instance.set_transform(transform) {
                outcome = Err(error);
                break;
            }
            let bounds = instance.bounds();
            self.far_reach = self.far_reach.max(instance.far_reach());
            self.boxes[index] = bounds;
            rebuild |= bounds.is_empty() || !bounds.is_finite() || !self.built[index];
        }
        if rebuild || self.top_level.refit(&self.boxes).is_err() {
            self.rebuild();
        }
        outcome
    }

    /// Puts an instance on these layers ([`Instance::set_layers`]); the hierarchy is not
    /// touched.
    ///
    /// # Errors
    /// [`Error::UnknownInstance`] for an id the scene does not hold.
    pub fn set_layers(&mut self, id: InstanceId, layers: u32) -> Result<()> {
        self.slots
            .get_mut(id.index() as usize)
            .and_then(Option::as_mut)
            .ok_or(Error::UnknownInstance {
                instance: id.index(),
            })?
            .set_layers(layers);
        Ok(())
    }

    /// Gives an instance another mesh (a deformed copy, see [`crate::Mesh::set_positions`]),
    /// keeping its placement ([`Instance::placement`], so that a mesh with an `f64` origin
    /// lies where its own coordinates say) and layers, and refits the top level to its new
    /// box.
    ///
    /// # Errors
    /// [`Error::UnknownInstance`] for an id the scene does not hold.
    pub fn set_mesh(
        &mut self,
        id: InstanceId,
        mesh: std::sync::Arc<crate::mesh::Mesh>,
    ) -> Result<()> {
        let instance = self
            .slots
            .get(id.index() as usize)
            .and_then(Option::as_ref)
            .ok_or(Error::UnknownInstance {
                instance: id.index(),
            })?;
        let placement = instance.placement();
        let replaced = Instance::new(mesh, placement)?.with_layers(instance.layers());
        self.slots[id.index() as usize] = Some(replaced);
        self.set_transform(id, placement)
    }

    /// Rebuilds the top level from the instances' current boxes.
    pub fn rebuild(&mut self) {
        for (slot, bounds) in self.slots.iter().zip(&mut self.boxes) {
            *bounds = slot.as_ref().map_or(Aabb::EMPTY, Instance::bounds);
        }
        self.far_reach = self
            .instances()
            .map(|(_, instance)| instance.far_reach())
            .fold(FarReach::default(), FarReach::max);
        self.built = self
            .boxes
            .iter()
            .map(|b| !b.is_empty() && b.is_finite())
            .collect();
        // Testing an instance costs a whole mesh traversal: one instance per leaf.
        let options = BuildOptions {
            max_leaf_primitives: 1,
            ..BuildOptions::default()
        };
        self.top_level = Bvh::build(&self.boxes, &options);
    }

    /// The instance with this id, if the scene holds it.
    pub fn instance(&self, id: InstanceId) -> Option<&Instance> {
        self.slots.get(id.index() as usize)?.as_ref()
    }

    /// Every instance with its id, in id order.
    pub fn instances(&self) -> impl Iterator<Item = (InstanceId, &Instance)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, slot)| Some((InstanceId::from_index(i as u32), slot.as_ref()?)))
    }

    /// How many instances the scene holds.
    pub fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Whether the scene holds no instance.
    pub fn is_empty(&self) -> bool {
        self.slots.iter().all(Option::is_none)
    }

    /// The box around every instance's world box.
    pub fn bounds(&self) -> Aabb {
        self.top_level.bounds()
    }

    /// Bytes of the acceleration structures its instances' rays walk: the
    /// [`crate::Mesh::acceleration_bytes`] of each mesh once, however many instances share it
    /// (the top level not counted). Instances of one mesh walk one hierarchy, which the
    /// caches hold once, and [`crate::BatchOrder::Auto`] sorts by what the caches must hold
    /// ([`crate::MIN_SORTED_BYTES`]). Counted once per instance, 64 instances of the bunny
    /// (3.4 MB) made 218 MB, so their batches were sorted, and sorting did not pay: 200,000
    /// random rays on two threads, `f32` `cast_batch` (`far_scenes`, nine runs on a loaded
    /// 2-core machine) ran at 2.8-3.5 Mrays/s in the caller's order, 1.9-3.1 sorted.
    pub fn acceleration_bytes(&self) -> usize {
        let mut counted = std::collections::HashSet::new();
        self.instances()
            .map(|(_, instance)| instance.mesh())
            .filter(|mesh| counted.insert(std::sync::Arc::as_ptr(mesh)))
            .map(|mesh| mesh.acceleration_bytes())
            .sum()
    }

    /// The top-level hierarchy over the instances' world boxes (primitive `i` is instance
    /// `i`).
    pub fn top_level(&self) -> &Bvh {
        &self.top_level
    }

    /// At least every instance's [`FarReach`]: how far the world room's `f64` queries widen
    /// the top level's boxes.
    #[inline]
    pub(crate) fn far_reach(&self) -> FarReach {
        self.far_reach
    }

    /// The instance in leaf slot `slot` of the top level, with its id, if the scene still
    /// holds it and its layers share a bit with `mask`: the one place where every scene
    /// query (rays, picks, closest points, selections) goes from the top level down.
    #[inline]
    pub(crate) fn searched(&self, slot: u32, mask: u32) -> Option<(InstanceId, &Instance)> {
        let index = *self.top_level.primitive_order().get(slot as usize)?;
        let instance = self.slots.get(index as usize)?.as_ref()?;
        (instance.layers() & mask != 0).then_some((InstanceId::from_index(index), instance))
    }

    /// The surface at a scene hit, in world space ([`Instance::surface`]); `None` when the
    /// scene no longer holds `hit.instance` (removed since the hit was found) or its mesh has
    /// no triangle `hit.hit.triangle` (replaced by a smaller one).
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, RayQueries, Scene};
    /// use meshcast_primitives::Ray;
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let mut scene = Scene::new();
    /// let id = scene.add(Instance::new(tri, Affine3A::IDENTITY)?);
    /// let hit = scene.cast(&Ray::new(Vec3::new(0.2, 0.2, 1.0), Vec3::NEG_Z)).ok_or("miss")?;
    /// assert!(scene.surface(&hit).is_some());
    /// // The editor deletes the object while the pick is still on screen.
    /// scene.remove(id)?;
    /// assert!(scene.surface(&hit).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn surface(&self, hit: &SceneHit) -> Option<SurfacePoint<'_>> {
        self.instance(hit.instance)?.surface(&hit.hit)
    }
}

/// A scene filter asked about one instance's triangles: what an instance's walk is given.
pub(crate) struct InstanceFilter<'f, F> {
    pub(crate) id: InstanceId,
    pub(crate) filter: &'f F,
}

impl<F: Filter<(InstanceId, u32)>> Filter<u32> for InstanceFilter<'_, F> {
    #[inline]
    fn keep(&self, triangle: u32) -> bool {
        self.filter.keep((self.id, triangle))
    }

    #[inline]
    fn keeps_everything(&self) -> bool {
        self.filter.keeps_everything()
    }
}

impl sealed::Level for Scene {}

impl RayQueries for Scene {
    type Hit = SceneHit;
    type Candidate = (InstanceId, u32);
}

impl LevelWalks<Ray, SceneHit, (InstanceId, u32)> for Scene {
    /// The top level walked as `kind` says ([`meshcast_bvh::Bvh::walk`]), each instance it
    /// reaches answering `kind` for the range left, in its own space.
    fn walk<Q: QueryKind, F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
        kind: Q,
    ) -> Q::Answer<SceneHit> {
        let rules = kind.rules(options);
        self.top_level.walk(ray, kind, |slot, range| {
            let Some((id, instance)) = self.searched(slot, options.mask) else {
                return Q::nothing();
            };
            let filter = InstanceFilter {
                id,
                filter: &options.filter,
            };
            let answer = instance.answer(range, rules, &filter, kind);
            Q::map(answer, |hit| SceneHit { instance: id, hit })
        })
    }

    #[inline]
    fn batch_frame(&self) -> BatchFrame {
        BatchFrame::new(self.bounds(), self.acceleration_bytes())
    }

    #[inline]
    fn batch<Q: PacketKind + Sync, F: Filter<(InstanceId, u32)> + Sync>(
        &self,
        rays: &[Ray],
        options: &QueryOptions<F>,
        kind: Q,
        answers: &mut [Q::Answer<SceneHit>],
    ) where
        Q::Answer<SceneHit>: Copy + Default + Send + Sync,
        Q::Answer<Hit>: Copy + Default + Send + Sync,
    {
        batch_packets(self, rays, options, kind, answers);
    }

    #[inline]
    fn batch_serial<Q: PacketKind, F: Filter<(InstanceId, u32)>>(
        &self,
        rays: &[Ray],
        options: &QueryOptions<F>,
        kind: Q,
        answers: &mut [Q::Answer<SceneHit>],
    ) where
        Q::Answer<SceneHit>: Copy + Default,
        Q::Answer<Hit>: Copy + Default,
    {
        serial_batch_packets(self, rays, options, kind, answers);
    }
}

impl PacketWalks<SceneHit, (InstanceId, u32)> for Scene {
    /// Each packet's top-level walk ([`Bvh::walk_packet`]) of `kind`: each instance that some
    /// rays reach answers them as a packet ([`Instance::answer_packet`]), each ray in its own
    /// range, and each answer joins the ray's as the kind joins a slot's answer in one ray's
    /// walk ([`meshcast_bvh::Query::take`]): the first hit by [`SceneHit::order`], the range
    /// shrinking to it, or for any hit the ray leaving the walk.
    fn walk_packets<Q: PacketKind, F: Filter<(InstanceId, u32)>, const P: usize>(
        &self,
        rays: [&RayPacket; P],
        lanes: [u32; P],
        options: &QueryOptions<F>,
        kind: Q,
        answers: [&mut [Q::Answer<SceneHit>; PACKET_WIDTH]; P],
    ) {
        let rules = kind.rules(options);
        for ((rays, lanes), answers) in rays.into_iter().zip(lanes).zip(answers) {
            let mut found: [Q::Found<SceneHit>; PACKET_WIDTH] =
                core::array::from_fn(|_| kind.start());
            self.top_level
                .walk_packet(&rays.rays(), lanes, kind, |slot, lanes, t_max| {
                    let Some((id, instance)) = self.searched(slot, options.mask) else {
                        return 0;
                    };
                    let filter = InstanceFilter {
                        id,
                        filter: &options.filter,
                    };
                    // The packet with the ranges the walk has left.
                    let ranges = RayPacket {
                        t_max: *t_max,
                        ..*rays
                    };
                    let mut slot_answers = core::array::from_fn(|_| Q::nothing());
                    instance.answer_packet(&ranges, lanes, rules, &filter, kind, &mut slot_answers);
                    let mut hit = 0;
                    for_each_lane(lanes, |lane| {
                        let answer = core::mem::replace(&mut slot_answers[lane], Q::nothing());
                        let answer = Q::map(answer, |hit| SceneHit { instance: id, hit });
                        match kind.take(&mut found[lane], answer, &ranges.ray(lane)) {
                            Step::Go => {}
                            Step::Shrink(t) => t_max[lane] = t,
                            Step::Stop => hit |= 1 << lane,
                        }
                    });
                    hit
                });
            for (lane, found) in found.into_iter().enumerate() {
                if lanes & (1 << lane) != 0 {
                    answers[lane] = kind.finish(found);
                }
            }
        }
    }
}
