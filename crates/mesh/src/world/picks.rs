//! Picking in `f64` world coordinates: what lies under a world ray ([`DRay`]) of a scene far
//! from the origin, with its world point in `f64` ([`DPick`]), as [`Scene::pick`] answers
//! an `f32` ray.

use glam::DVec3;
use meshcast_primitives::{DHit, DRay, Hit};

use crate::queries::{
    All, Closest, Facing, Filter, InstanceId, QueryKind, QueryOptions, RayQueries,
};
use crate::scene::{InstanceFilter, PickRay, Scene};
use crate::triangles::SurfacePoint;
use crate::world::DSceneHit;

/// What a world ray in `f64` picked ([`Scene::pick`] of a [`DRay`]): the instance, the hit on its mesh
/// with `t` along the world ray, the world distance and point in `f64`, the side hit and the
/// surface there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DPick<'a> {
    /// The instance picked.
    pub instance: InstanceId,
    /// The hit on its mesh: `t` along the world ray (units of its direction, in `f64`), the
    /// mesh's triangle and the barycentrics.
    pub hit: DHit,
    /// The world distance from the ray's origin, `t * |dir|`.
    pub distance: f64,
    /// The world point of the hit, in `f64`: the barycentric point of the mesh's triangle
    /// carried by the instance's `f64` transform ([`crate::Instance::exact_transform`]).
    pub point: DVec3,
    /// Which side of the triangle the ray hit, as seen in the world.
    pub facing: Facing,
    /// The surface at the hit in world space ([`crate::Instance::surface`]): normals,
    /// texture coordinates, group name. Its `point` is the `f32` rounding of
    /// [`DPick::point`], half a metre off at UTM coordinates: read `point` instead.
    pub surface: SurfacePoint<'a>,
}

impl DPick<'_> {
    /// The hit as a [`DSceneHit`].
    pub fn scene_hit(&self) -> DSceneHit {
        DSceneHit {
            instance: self.instance,
            hit: self.hit,
        }
    }
}

/// Picking with a world ray in `f64`: the closest hit ([`crate::RayQueries::cast_with`] of
/// the [`DRay`]) with its world point and distance in `f64`, side and surface, as a
/// [`meshcast_primitives::Ray`] picks; degenerate rays pick nothing.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use glam::{DAffine3, DVec3};
/// use meshcast_mesh::{Instance, Mesh, QueryOptions, Scene};
/// use meshcast_primitives::DRay;
///
/// let tri = Arc::new(Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?);
/// let east = 6_378_137.3;
/// let scene = Scene::from_instances([Instance::new(tri, DAffine3::from_translation(DVec3::new(east, 0.0, 0.0)))?]);
/// let down = DRay::new(DVec3::new(east + 0.25, 0.25, 2.0), DVec3::NEG_Z);
/// let pick = scene.pick(&down, &QueryOptions::new()).ok_or("nothing under the ray")?;
/// assert_eq!((pick.distance, pick.point), (2.0, DVec3::new(east + 0.25, 0.25, 0.0)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl PickRay for DRay {
    type Pick<'a> = DPick<'a>;

    fn pick_closest<'a, F: Filter<(InstanceId, u32)>>(
        scene: &'a Scene,
        ray: &DRay,
        options: &QueryOptions<F>,
    ) -> Option<DPick<'a>> {
        let hit = scene.cast_with(ray, options)?;
        scene.pick_of_f64(ray, hit)
    }

    /// Every instance under the ray, each once with its own nearest hit, nearest first by
    /// [`DSceneHit::order`].
    fn pick_each<'a, F: Filter<(InstanceId, u32)>>(
        scene: &'a Scene,
        ray: &DRay,
        options: &QueryOptions<F>,
    ) -> Vec<DPick<'a>> {
        let Some(limited) = options.limit_ray(ray) else {
            return Vec::new();
        };
        // Every instance's nearest hit: every slot's answer kept, each the closest hit of its
        // instance, as the `f32` picks walk.
        let rules = Closest.rules(options);
        let boxes = scene.top_level_ray(&limited);
        let nearest_of_each =
            scene
                .top_level()
                .walk_tested(&boxes, &limited, All::EVERY, |slot, range| {
                    let Some((id, instance)) = scene.searched(slot, options.mask) else {
                        return Vec::new();
                    };
                    let filter = InstanceFilter {
                        id,
                        filter: &options.filter,
                    };
                    let hit = instance.answer_far(&limited, range.t_max, rules, &filter, Closest);
                    Vec::from_iter(hit.map(|hit| DSceneHit { instance: id, hit }))
                });
        nearest_of_each
            .into_iter()
            .filter_map(|hit| scene.pick_of_f64(ray, hit))
            .collect()
    }
}

impl Scene {
    /// The pick of a hit just found on this scene (`None` only for a hit it does not hold).
    fn pick_of_f64(&self, ray: &DRay, found: DSceneHit) -> Option<DPick<'_>> {
        let instance = self.instance(found.instance)?;
        let hit = found.hit;
        let triangle = instance.mesh().tri_mesh().triangle(hit.triangle as usize)?;
        let [a, b, c] = triangle.vertices().map(|corner| corner.as_dvec3());
        let (u, v) = (f64::from(hit.u), f64::from(hit.v));
        let local = a * (1.0 - u - v) + b * u + c * v;
        let local_dir = instance.to_local_f64().transform_vector3(ray.dir).as_vec3();
        let on_mesh = Hit::new(hit.t as f32, hit.u, hit.v).with_triangle(hit.triangle);
        Some(DPick {
            instance: found.instance,
            hit,
            distance: hit.t * ray.dir.length(),
            point: instance.exact_transform().transform_point3(local),
            facing: Facing::of(triangle.normal(), local_dir, instance.is_mirrored()),
            surface: instance.surface(&on_mesh)?,
        })
    }
}
