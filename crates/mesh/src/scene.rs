//! `Scene`: many instances under a top-level BVH over their world boxes (a two-level
//! hierarchy: the same BVH over instances, and in each mesh over triangles).

use meshcast_bvh::{BuildOptions, Bvh};
use meshcast_primitives::{Aabb, Hit, Ray};
use rayon::prelude::*;

use crate::{Culling, Error, Filter, Instance, QueryOptions, Result, SurfacePoint, ALL_LAYERS};

/// An instance's handle in a [`Scene`]: stable while the instance is there, never reused after
/// it is removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceId(u32);

impl InstanceId {
    /// The id's number (instances are numbered from 0 in the order they were added).
    pub fn index(self) -> u32 {
        self.0
    }

    /// The id with this number (as from [`InstanceId::index`], stored by an editor, say).
    /// Not checked: a scene answers an id it does not hold with
    /// [`Error::UnknownInstance`] or `None`.
    pub const fn from_index(index: u32) -> Self {
        Self(index)
    }
}

/// A hit in a scene: which instance, and the hit on its mesh.
///
/// `hit.t` is the world ray's parameter; `hit.triangle`, `hit.u` and `hit.v` refer to the
/// instance's mesh (an affine map keeps barycentrics). Among hits at equal `t` the smaller
/// instance id wins, then the smaller triangle index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneHit {
    /// The instance hit.
    pub instance: InstanceId,
    /// The hit on the instance's mesh.
    pub hit: Hit,
}

/// Many [`Instance`]s queried as one: closest hit, any hit, every hit and batches of world
/// rays, each hit naming its instance ([`SceneHit`]).
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
/// use meshcast_mesh::{Instance, Mesh, Scene};
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
        let id = InstanceId(u32::try_from(self.slots.len()).expect("fewer than 2^32 instances"));
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
            .get_mut(id.0 as usize)
            .and_then(Option::take)
            .ok_or(Error::UnknownInstance { instance: id.0 })?;
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
    pub fn set_transform(&mut self, id: InstanceId, transform: glam::Affine3A) -> Result<()> {
        let index = id.0 as usize;
        let instance = self
            .slots
            .get_mut(index)
            .and_then(Option::as_mut)
            .ok_or(Error::UnknownInstance { instance: id.0 })?;
        instance.set_transform(transform)?;
        let bounds = instance.bounds();
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
    /// use meshcast_mesh::{Instance, Mesh, Scene};
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
        moves: impl IntoIterator<Item = (InstanceId, glam::Affine3A)>,
    ) -> Result<()> {
        let mut rebuild = false;
        let mut outcome = Ok(());
        for (id, transform) in moves {
            let index = id.0 as usize;
            let Some(instance) = self.slots.get_mut(index).and_then(Option::as_mut) else {
                outcome = Err(Error::UnknownInstance { instance: id.0 });
                break;
            };
            if let Err(error) = instance.set_transform(transform) {
                outcome = Err(error);
                break;
            }
            let bounds = instance.bounds();
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
            .get_mut(id.0 as usize)
            .and_then(Option::as_mut)
            .ok_or(Error::UnknownInstance { instance: id.0 })?
            .set_layers(layers);
        Ok(())
    }

    /// Gives an instance another mesh (a deformed copy, see [`crate::Mesh::set_positions`]),
    /// keeping its transform and layers, and refits the top level to its new box.
    ///
    /// # Errors
    /// [`Error::UnknownInstance`] for an id the scene does not hold.
    pub fn set_mesh(&mut self, id: InstanceId, mesh: std::sync::Arc<crate::Mesh>) -> Result<()> {
        let instance = self
            .slots
            .get(id.0 as usize)
            .and_then(Option::as_ref)
            .ok_or(Error::UnknownInstance { instance: id.0 })?;
        let replaced = Instance::new(mesh, instance.transform())?.with_layers(instance.layers());
        let transform = replaced.transform();
        self.slots[id.0 as usize] = Some(replaced);
        self.set_transform(id, transform)
    }

    /// Rebuilds the top level from the instances' current boxes.
    pub fn rebuild(&mut self) {
        for (slot, bounds) in self.slots.iter().zip(&mut self.boxes) {
            *bounds = slot.as_ref().map_or(Aabb::EMPTY, Instance::bounds);
        }
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
        self.slots.get(id.0 as usize)?.as_ref()
    }

    /// Every instance with its id, in id order.
    pub fn instances(&self) -> impl Iterator<Item = (InstanceId, &Instance)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, slot)| Some((InstanceId(i as u32), slot.as_ref()?)))
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

    /// The top-level hierarchy over the instances' world boxes (primitive `i` is instance
    /// `i`).
    pub fn top_level(&self) -> &Bvh {
        &self.top_level
    }

    /// The closest hit of a world ray, or `None`.
    #[inline]
    pub fn cast(&self, ray: &Ray) -> Option<SceneHit> {
        self.cast_leaves(ray, Culling::Off, ALL_LAYERS, |_, _| true)
    }

    /// [`Scene::cast`] with [`QueryOptions`]: a distance limit, back-face culling (as seen in
    /// the world, mirroring transforms included), the layer mask and a filter asked with
    /// each hit's instance and triangle. A rejected hit lets the ray go on to what lies
    /// behind it. See [`Scene::pick`] for the hit with its surface.
    pub fn cast_with<F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> Option<SceneHit> {
        let ray = options.limit_ray(ray)?;
        self.cast_leaves(&ray, options.culling, options.mask, |instance, triangle| {
            options.filter.keep((instance, triangle))
        })
    }

    /// [`Scene::cast`] over the triangles for which `keep(instance, triangle)` is true (to
    /// skip the object a ray starts from, or hidden ones); see also [`Scene::cast_with`].
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, Scene};
    /// use meshcast_primitives::Ray;
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let scene = Scene::from_instances([
    ///     Instance::new(tri.clone(), Affine3A::IDENTITY)?,
    ///     Instance::new(tri, Affine3A::from_translation(Vec3::Z))?,
    /// ]);
    /// let down = Ray::new(Vec3::new(0.2, 0.2, 5.0), Vec3::NEG_Z);
    /// let hidden_top = scene.cast_filtered(&down, |instance, _| instance.index() != 1);
    /// assert_eq!(hidden_top.map(|h| h.instance.index()), Some(0));
    /// assert_eq!(scene.cast(&down).map(|h| h.instance.index()), Some(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cast_filtered(
        &self,
        ray: &Ray,
        keep: impl FnMut(InstanceId, u32) -> bool,
    ) -> Option<SceneHit> {
        self.cast_leaves(ray, Culling::Off, ALL_LAYERS, keep)
    }

    pub(crate) fn cast_leaves(
        &self,
        ray: &Ray,
        culling: Culling,
        mask: u32,
        mut keep: impl FnMut(InstanceId, u32) -> bool,
    ) -> Option<SceneHit> {
        let order = self.top_level.primitive_order();
        // The top level orders hits by (t, instance) with the instance in `triangle`; the
        // closest one's own triangle is kept here, chosen by the same rule.
        let mut best: Option<SceneHit> = None;
        let found = self.top_level.cast(ray, |slot, range| {
            let index = order[slot as usize];
            let id = InstanceId(index);
            let instance = self.slots[index as usize].as_ref()?;
            if instance.layers() & mask == 0 {
                return None;
            }
            let hit = instance.cast_leaves(range, culling, |triangle| keep(id, triangle))?;
            let candidate = hit.with_triangle(index);
            let closer =
                best.is_none_or(|b| candidate.is_closer_than(&b.hit.with_triangle(b.instance.0)));
            if closer {
                best = Some(SceneHit { instance: id, hit });
            }
            Some(candidate)
        })?;
        debug_assert_eq!(
            best.map(|b| (b.instance.0, b.hit.t)),
            Some((found.triangle, found.t))
        );
        best
    }

    /// Whether a world ray hits anything within its range; stops at the first hit found.
    #[inline]
    pub fn occluded(&self, ray: &Ray) -> bool {
        self.occluded_leaves(ray, Culling::Off, ALL_LAYERS, |_, _| true)
    }

    /// [`Scene::occluded`] with [`QueryOptions`] (as in [`Scene::cast_with`]).
    pub fn occluded_with<F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> bool {
        let Some(ray) = options.limit_ray(ray) else {
            return false;
        };
        self.occluded_leaves(&ray, options.culling, options.mask, |instance, triangle| {
            options.filter.keep((instance, triangle))
        })
    }

    /// [`Scene::occluded`] over the triangles for which `keep(instance, triangle)` is true.
    pub fn occluded_filtered(&self, ray: &Ray, keep: impl FnMut(InstanceId, u32) -> bool) -> bool {
        self.occluded_leaves(ray, Culling::Off, ALL_LAYERS, keep)
    }

    fn occluded_leaves(
        &self,
        ray: &Ray,
        culling: Culling,
        mask: u32,
        mut keep: impl FnMut(InstanceId, u32) -> bool,
    ) -> bool {
        let order = self.top_level.primitive_order();
        self.top_level.occluded(ray, |slot, ray| {
            let index = order[slot as usize];
            self.slots[index as usize].as_ref().is_some_and(|instance| {
                instance.layers() & mask != 0
                    && instance
                        .occluded_leaves(ray, culling, |triangle| keep(InstanceId(index), triangle))
            })
        })
    }

    /// Every hit of a world ray, sorted by `t`, then instance, then triangle.
    #[inline]
    pub fn cast_all(&self, ray: &Ray) -> Vec<SceneHit> {
        self.cast_all_leaves(ray, Culling::Off, ALL_LAYERS, |_, _| true)
    }

    /// [`Scene::cast_all`] with [`QueryOptions`] (as in [`Scene::cast_with`]).
    pub fn cast_all_with<F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> Vec<SceneHit> {
        let Some(ray) = options.limit_ray(ray) else {
            return Vec::new();
        };
        self.cast_all_leaves(&ray, options.culling, options.mask, |instance, triangle| {
            options.filter.keep((instance, triangle))
        })
    }

    /// [`Scene::cast_all`] over the triangles for which `keep(instance, triangle)` is true.
    pub fn cast_all_filtered(
        &self,
        ray: &Ray,
        keep: impl FnMut(InstanceId, u32) -> bool,
    ) -> Vec<SceneHit> {
        self.cast_all_leaves(ray, Culling::Off, ALL_LAYERS, keep)
    }

    fn cast_all_leaves(
        &self,
        ray: &Ray,
        culling: Culling,
        mask: u32,
        mut keep: impl FnMut(InstanceId, u32) -> bool,
    ) -> Vec<SceneHit> {
        let order = self.top_level.primitive_order();
        let mut hits = Vec::new();
        self.top_level.cast_all(ray, |slot, range| {
            let index = order[slot as usize];
            let id = InstanceId(index);
            if let Some(instance) = self.slots[index as usize].as_ref() {
                if instance.layers() & mask != 0 {
                    let found =
                        instance.cast_all_leaves(range, culling, |triangle| keep(id, triangle));
                    hits.extend(found.into_iter().map(|hit| SceneHit { instance: id, hit }));
                }
            }
            None
        });
        hits.sort_unstable_by(|a, b| {
            a.hit
                .t
                .total_cmp(&b.hit.t)
                .then(a.instance.cmp(&b.instance))
                .then(a.hit.triangle.cmp(&b.hit.triangle))
        });
        hits
    }

    /// [`Scene::cast`] for every ray, in parallel on the current rayon thread pool; the
    /// answers are those of `cast`, in the order of `rays`.
    pub fn cast_batch(&self, rays: &[Ray]) -> Vec<Option<SceneHit>> {
        rays.par_iter()
            .with_min_len(64)
            .map(|ray| self.cast(ray))
            .collect()
    }

    /// The surface at a scene hit, in world space ([`Instance::surface`]).
    ///
    /// # Panics
    /// If the scene does not hold `hit.instance` or its mesh has no triangle `hit.hit.triangle`.
    pub fn surface(&self, hit: &SceneHit) -> SurfacePoint<'_> {
        self.instance(hit.instance)
            .expect("the hit's instance is in the scene")
            .surface(&hit.hit)
    }
}
