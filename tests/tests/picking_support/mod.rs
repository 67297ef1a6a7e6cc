//! Shared by the picking tests: seeded random scenes of instanced assets, and brute-force
//! references for every editor query (a loop over every instance and triangle with the same
//! exact test and tie rule).

#![allow(dead_code)]

use std::sync::Arc;

use glam::Vec3;
use meshcast_mesh::{
    Containment, Culling, Instance, InstanceId, Mesh, Scene, SceneHit, SceneTriangle,
};
use meshcast_primitives::{distance_squared, Ray, Triangle, Volume};
use meshcast_testkit::{asset, random_transform, rng};
use rand::Rng;

/// Small assets instanced many times (a brute-force loop stays quick).
pub fn small_meshes() -> Vec<Arc<Mesh>> {
    ["suzanne.obj", "woody.obj"]
        .iter()
        .map(|name| Arc::new(Mesh::from_obj(asset(name)).expect("asset loads")))
        .collect()
}

/// `count` instances of `meshes` with random rotations, non-uniform scales (a fifth of them
/// mirrored) and translations within `spread`, on random layers among the low four bits.
pub fn random_scene(meshes: &[Arc<Mesh>], count: usize, spread: f32, seed: u64) -> Scene {
    let mut rng = rng(seed);
    Scene::from_instances((0..count).map(|i| {
        let mesh = meshes[i % meshes.len()].clone();
        let transform = random_transform(&mut rng, spread);
        let layers = 1 << rng.gen_range(0..4);
        Instance::new(mesh, transform)
            .expect("random transforms are invertible")
            .with_layers(layers)
    }))
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
            if tri_mesh.triangle(index).is_degenerate() || !keep(id, index as u32) {
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

/// Every hit of a ray by brute force under the query options' rules: the range cut to
/// `max_distance`, back faces skipped (mirroring swaps the sides), the mask and filter.
pub fn brute_force_hits(
    scene: &Scene,
    ray: &Ray,
    max_distance: f32,
    culling: Culling,
    mask: u32,
    keep: &dyn Fn(InstanceId, u32) -> bool,
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
            let Some(hit) = triangle.intersect(&local) else {
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
    hits.sort_by(|a, b| {
        a.hit
            .t
            .total_cmp(&b.hit.t)
            .then(a.instance.cmp(&b.instance))
            .then(a.hit.triangle.cmp(&b.hit.triangle))
    });
    hits
}

/// A random point in a box around the scene, sometimes on a world vertex or edge midpoint.
pub fn query_point(
    rng: &mut rand_pcg::Pcg64,
    scene: &Scene,
    triangles: &[(InstanceId, u32, Triangle)],
) -> Vec3 {
    let bounds = scene.bounds();
    match rng.gen_range(0..4) {
        0 if !triangles.is_empty() => {
            let (_, _, t) = triangles[rng.gen_range(0..triangles.len())];
            t.vertices()[rng.gen_range(0..3)]
        }
        1 if !triangles.is_empty() => {
            let (_, _, t) = triangles[rng.gen_range(0..triangles.len())];
            (t.v0 + t.v1) * 0.5
        }
        _ => {
            let pad = bounds.extent() * 0.2;
            let f = Vec3::new(rng.gen(), rng.gen(), rng.gen());
            bounds.min - pad + (bounds.extent() + pad * 2.0) * f
        }
    }
}
