//! The brute-force reference of a scene: every instance's every triangle with the same exact
//! test and tie rule as the scene's queries, for picks, closest points and selection.

use meshcast::glam::Vec3;
use meshcast::primitives::distance_squared;
use meshcast::{
    Contacts, Containment, Culling, InstanceId, Ray, Scene, SceneHit, SceneTriangle, Triangle,
    Volume, ALL_LAYERS,
};

use crate::reference::same_hit;

/// Every hit in a scene by brute force: each instance's every triangle, tested on the
/// instance's carried ray, sorted by `t`, instance, triangle; `keep` filters triangles.
/// [`brute_force_hits`] without a distance limit, culling or layer mask.
pub fn brute_force_scene_cast_all(
    scene: &Scene,
    ray: &Ray,
    keep: impl FnMut(InstanceId, u32) -> bool,
) -> Vec<SceneHit> {
    let rules = Rules::new(Culling::Off, Contacts::TieRule);
    brute_force_hits(scene, ray, f32::INFINITY, rules, ALL_LAYERS, keep)
}

/// The closest hit in a scene by brute force, as a query with default options answers it
/// (contacts hitting).
pub fn brute_force_scene_cast(scene: &Scene, ray: &Ray) -> Option<SceneHit> {
    let rules = Rules::new(Culling::Off, Contacts::Hit);
    brute_force_hits(scene, ray, f32::INFINITY, rules, ALL_LAYERS, |_, _| true)
        .first()
        .copied()
}

/// The rules of a query that decide which triangle hits count: culling and contacts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Whether back faces are skipped.
    pub culling: Culling,
    /// Whether rays touching an edge or a vertex hit.
    pub contacts: Contacts,
}

impl Rules {
    /// `culling` and `contacts`.
    pub fn new(culling: Culling, contacts: Contacts) -> Self {
        Self { culling, contacts }
    }
}

/// Whether two optional scene hits are the same instance and bit-identical hits.
pub fn same_scene_hit(a: Option<SceneHit>, b: Option<SceneHit>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.instance == b.instance && same_hit(Some(a.hit), Some(b.hit)),
        _ => false,
    }
}

/// Every hit of a ray in a scene by brute force under the query options' rules: the range cut to
/// `max_distance`, back faces skipped (mirroring swaps the sides), contacts hitting or not,
/// the mask and filter. With [`Contacts::TieRule`] these are `cast_all`'s hits; the first
/// hit with either rule is `cast`'s with that rule.
pub fn brute_force_hits(
    scene: &Scene,
    ray: &Ray,
    max_distance: f32,
    Rules { culling, contacts }: Rules,
    mask: u32,
    mut keep: impl FnMut(InstanceId, u32) -> bool,
) -> Vec<SceneHit> {
    let limited = if max_distance == f32::INFINITY {
        *ray
    } else {
        ray.with_range(ray.t_min, ray.t_max.min(max_distance / ray.dir.length()))
    };
    let mut hits = Vec::new();
    for (id, instance) in scene.instances() {
        if instance.layers() & mask == 0 {
            continue;
        }
        let local = instance.to_local(&limited);
        for (index, triangle) in instance.mesh().tri_mesh().triangles().enumerate() {
            let Some(hit) = triangle.intersect_with(&local, contacts) else {
                continue;
            };
            let along = triangle.normal().dot(local.dir);
            let back = if instance.is_mirrored() {
                along < 0.0
            } else {
                along > 0.0
            };
            if (culling == Culling::BackFaces && back) || !keep(id, index as u32) {
                continue;
            }
            hits.push(SceneHit {
                instance: id,
                hit: hit.with_triangle(index as u32),
            });
        }
    }
    hits.sort_by(SceneHit::order);
    hits
}

/// Every kept, non-degenerate triangle of a scene in world space, with its instance.
pub fn world_triangles(
    scene: &Scene,
    mask: u32,
    keep: &dyn Fn(InstanceId, u32) -> bool,
) -> Vec<(InstanceId, u32, Triangle)> {
    let mut all = Vec::new();
    for (id, instance) in scene.instances() {
        if instance.layers() & mask == 0 {
            continue;
        }
        let tri_mesh = instance.mesh().tri_mesh();
        for index in 0..tri_mesh.triangle_count() {
            if tri_mesh.triangle(index).is_none_or(|t| t.is_degenerate()) || !keep(id, index as u32)
            {
                continue;
            }
            let world = instance.world_triangle(index).expect("in range");
            all.push((id, index as u32, world));
        }
    }
    all
}

/// The nearest point by brute force: (squared distance, instance, triangle), smallest first,
/// within `max_distance`.
pub fn brute_force_closest(
    triangles: &[(InstanceId, u32, Triangle)],
    query: Vec3,
    max_distance: f32,
) -> Option<(InstanceId, u32, Vec3)> {
    let bound = max_distance * max_distance;
    triangles
        .iter()
        .map(|(id, index, triangle)| {
            let point = triangle.closest_point(query).point;
            (distance_squared(point, query), *id, *index, point)
        })
        .filter(|c| c.0 <= bound)
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)))
        .map(|(_, id, index, point)| (id, index, point))
}

/// Every triangle a volume selects, by brute force, sorted.
pub fn brute_force_select_triangles(
    triangles: &[(InstanceId, u32, Triangle)],
    volume: &Volume,
    containment: Containment,
) -> Vec<SceneTriangle> {
    let mut selected: Vec<SceneTriangle> = triangles
        .iter()
        .filter(|(_, _, t)| match containment {
            Containment::Intersecting => volume.intersects_triangle(t),
            Containment::Inside => volume.contains_triangle(t),
        })
        .map(|(id, index, _)| SceneTriangle {
            instance: *id,
            triangle: *index,
        })
        .collect();
    selected.sort_unstable();
    selected
}

/// Every instance a volume selects, by brute force: any kept triangle intersecting, or
/// every kept triangle inside (and at least one).
pub fn brute_force_select(
    triangles: &[(InstanceId, u32, Triangle)],
    volume: &Volume,
    containment: Containment,
) -> Vec<InstanceId> {
    let mut ids: Vec<InstanceId> = triangles.iter().map(|(id, _, _)| *id).collect();
    ids.dedup();
    ids.retain(|id| {
        let mut mine = triangles.iter().filter(|(i, _, _)| i == id);
        match containment {
            Containment::Intersecting => mine.any(|(_, _, t)| volume.intersects_triangle(t)),
            Containment::Inside => mine.all(|(_, _, t)| volume.contains_triangle(t)),
        }
    });
    ids
}
