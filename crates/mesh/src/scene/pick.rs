//! Picking: what is under a ray (the mouse), with everything an editor shows about it, for
//! rays of either precision ([`PickRay`]; the `f64` picks are the world room's).

use glam::Vec3;
use meshcast_primitives::{Hit, Ray};

use crate::queries::{
    All, Closest, Facing, Filter, InstanceId, QueryKind, QueryOptions, QueryRay, RayQueries,
};
use crate::scene::{Scene, SceneHit};
use crate::triangles::SurfacePoint;

/// What a ray picked: the instance, the hit on its mesh, the world distance, the side hit
/// and the surface there (world point, geometric and shading normal, texture coordinates,
/// object or group name).
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{Affine3A, Vec3};
/// use meshcast_mesh::{Facing, Instance, Mesh, QueryOptions, Scene};
/// use meshcast_primitives::Ray;
///
/// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
/// let scene = Scene::from_instances([Instance::new(tri, Affine3A::from_scale(Vec3::splat(2.0)))?]);
/// let pick = scene
///     .pick(&Ray::new(Vec3::new(0.5, 0.5, 3.0), Vec3::new(0.0, 0.0, -2.0)), &QueryOptions::new())
///     .ok_or("nothing under the ray")?;
/// assert_eq!((pick.instance.index(), pick.hit.triangle), (0, 0));
/// assert_eq!((pick.hit.t, pick.distance), (1.5, 3.0));
/// assert_eq!(pick.surface.point, Vec3::new(0.5, 0.5, 0.0));
/// assert_eq!(pick.facing, Facing::Front);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pick<'a> {
    /// The instance picked.
    pub instance: InstanceId,
    /// The hit on its mesh: `t` along the world ray (units of its direction), the mesh's
    /// triangle and the barycentrics.
    pub hit: Hit,
    /// The world distance from the ray's origin, `t * |dir|`.
    pub distance: f32,
    /// Which side of the triangle the ray hit, as seen in the world.
    pub facing: Facing,
    /// The surface at the hit, in world space ([`crate::Instance::surface`]).
    pub surface: SurfacePoint<'a>,
}

impl Pick<'_> {
    /// The hit as a [`SceneHit`].
    pub fn scene_hit(&self) -> SceneHit {
        SceneHit {
            instance: self.instance,
            hit: self.hit,
        }
    }

    /// The world point of the hit (the surface's point).
    pub fn point(&self) -> Vec3 {
        self.surface.point
    }
}

/// A ray a scene picks with ([`Scene::pick`], [`Scene::pick_instances`]): a [`Ray`], which
/// picks a [`Pick`], or a [`DRay`](meshcast_primitives::DRay) in `f64` world coordinates, which picks a
/// [`crate::DPick`] with its world point in `f64`. Sealed: implemented by [`Ray`] and
/// [`DRay`](meshcast_primitives::DRay) only.
pub trait PickRay: QueryRay + sealed::Sealed {
    /// What the ray picks: [`Pick`], or [`crate::DPick`] for a [`DRay`](meshcast_primitives::DRay).
    type Pick<'a>;

    /// [`Scene::pick`].
    #[doc(hidden)]
    fn pick_closest<'a, F: Filter<(InstanceId, u32)>>(
        scene: &'a Scene,
        ray: &Self,
        options: &QueryOptions<F>,
    ) -> Option<Self::Pick<'a>>;

    /// [`Scene::pick_instances`].
    #[doc(hidden)]
    fn pick_each<'a, F: Filter<(InstanceId, u32)>>(
        scene: &'a Scene,
        ray: &Self,
        options: &QueryOptions<F>,
    ) -> Vec<Self::Pick<'a>>;
}

pub(crate) mod sealed {
    pub trait Sealed {}
    impl Sealed for meshcast_primitives::Ray {}
    impl Sealed for meshcast_primitives::DRay {}
}

impl Scene {
    /// What is under the ray: the closest hit ([`Scene::cast_with`]: distance limit,
    /// culling, layer mask and filter) with its world surface, distance and side.
    ///
    /// This is the nearest *triangle*; its instance is also the nearest *instance*, the one
    /// whose own nearest hit is closest. To cycle through everything under the mouse, see
    /// [`Scene::pick_instances`]. Degenerate rays pick nothing.
    pub fn pick<R: PickRay, F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &R,
        options: &QueryOptions<F>,
    ) -> Option<R::Pick<'_>> {
        R::pick_closest(self, ray, options)
    }

    /// Every instance under the ray, each once with its own nearest hit, nearest first (ties
    /// to the smaller id): for an editor's "select what lies behind" on repeated clicks. The
    /// first is [`Scene::pick`]'s answer. The options apply as in [`Scene::cast_with`].
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use glam::{Affine3A, Vec3};
    /// use meshcast_mesh::{Instance, Mesh, QueryOptions, Scene};
    /// use meshcast_primitives::Ray;
    ///
    /// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
    /// let scene = Scene::from_instances((0..3).map(|i| {
    ///     Instance::new(tri.clone(), Affine3A::from_translation(Vec3::Z * i as f32))
    /// }).collect::<Result<Vec<_>, _>>()?);
    /// let down = Ray::new(Vec3::new(0.2, 0.2, 5.0), Vec3::NEG_Z);
    /// let picks = scene.pick_instances(&down, &QueryOptions::new());
    /// let order: Vec<u32> = picks.iter().map(|p| p.instance.index()).collect();
    /// assert_eq!(order, [2, 1, 0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pick_instances<R: PickRay, F: Filter<(InstanceId, u32)>>(
        &self,
        ray: &R,
        options: &QueryOptions<F>,
    ) -> Vec<R::Pick<'_>> {
        R::pick_each(self, ray, options)
    }

    /// The pick of a hit just found on this scene (`None` only for a hit it does not hold).
    fn pick_of(&self, ray: &Ray, hit: SceneHit) -> Option<Pick<'_>> {
        let instance = self.instance(hit.instance)?;
        Some(Pick {
            instance: hit.instance,
            hit: hit.hit,
            distance: hit.hit.t * ray.dir.length(),
            facing: instance.facing(ray, &hit.hit)?,
            surface: instance.surface(&hit.hit)?,
        })
    }
}

impl PickRay for Ray {
    type Pick<'a> = Pick<'a>;

    fn pick_closest<'a, F: Filter<(InstanceId, u32)>>(
        scene: &'a Scene,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> Option<Pick<'a>> {
        let hit = scene.cast_with(ray, options)?;
        scene.pick_of(ray, hit)
    }

    fn pick_each<'a, F: Filter<(InstanceId, u32)>>(
        scene: &'a Scene,
        ray: &Ray,
        options: &QueryOptions<F>,
    ) -> Vec<Pick<'a>> {
        let Some(limited) = options.limit_ray(ray) else {
            return Vec::new();
        };
        // Every instance's nearest hit: every slot's answer kept, each the closest hit of its
        // instance.
        let nearest_of_each = scene.top_level().walk(&limited, All::EVERY, |slot, range| {
            let Some((id, instance)) = scene.searched(slot, options.mask) else {
                return Vec::new();
            };
            let keep = |triangle| options.filter.keep((id, triangle));
            let hit = instance.answer(range, Closest.rules(options), &keep, Closest);
            Vec::from_iter(hit.map(|hit| SceneHit { instance: id, hit }))
        });
        nearest_of_each
            .into_iter()
            .filter_map(|hit| scene.pick_of(ray, hit))
            .collect()
    }
}
