//! Seeded random scenes of instanced assets, and query points around them, for the editor
//! queries' tests.

use std::sync::Arc;

use meshcast::glam::Vec3;
use meshcast::{Instance, InstanceId, Mesh, MeshFiles, Scene, Triangle};
use rand::Rng;
use rand_pcg::Pcg64;

use crate::{asset, random_transform, rng};

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

/// A random point in a box around the scene, sometimes on a world vertex or edge midpoint.
pub fn query_point(
    rng: &mut Pcg64,
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
