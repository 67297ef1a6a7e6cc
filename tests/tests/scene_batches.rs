//! A scene's batches answer as its single rays do, on every node kernel the machine has:
//! seven placed copies of Suzanne (rotated, scaled, mirrored, three on top of each other so
//! that every hit ties), with and without options.

use std::sync::Arc;

use meshcast::glam::{Affine3A, Quat, Vec3};
use meshcast::{
    Camera, Culling, Instance, InstanceId, Kernel, Mesh, MeshFiles, QueryOptions, Ray, RayQueries,
    Scene, SceneHit,
};

/// A scene hit as exact bits: instance, triangle, `t`, `u`, `v`.
type Key = (u32, u32, u32, u32, u32);

/// A scene hit as exact bits, to compare without float tolerance.
fn key(hit: &SceneHit) -> Key {
    let h = hit.hit;
    (
        hit.instance.index(),
        h.triangle,
        h.t.to_bits(),
        h.u.to_bits(),
        h.v.to_bits(),
    )
}

fn keys(hits: &[Option<SceneHit>]) -> Vec<Option<Key>> {
    hits.iter().map(|hit| hit.as_ref().map(key)).collect()
}

/// Suzanne placed seven times, with the node kernel `kernel`: a grid of rotated, scaled
/// and mirrored copies, three exactly on top of each other (every hit ties), one on
/// another layer and one removed.
fn suzannes(kernel: Kernel) -> Scene {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/suzanne.obj");
    let mut mesh = Mesh::from_obj(path).expect("suzanne loads");
    mesh.set_kernel(kernel).expect("a supported kernel");
    let mesh = Arc::new(mesh);
    let at = |x: f32, y: f32| Vec3::new(x * 2.5, y * 2.5, 0.0);
    let transforms = [
        Affine3A::from_translation(at(0.0, 0.0)),
        Affine3A::from_translation(at(0.0, 0.0)),
        Affine3A::from_rotation_translation(Quat::from_rotation_y(0.7), at(1.0, 0.0)),
        Affine3A::from_scale_rotation_translation(
            Vec3::new(-1.0, 1.2, 0.8),
            Quat::from_rotation_z(0.3),
            at(2.0, 0.0),
        ),
        Affine3A::from_translation(at(0.0, 1.0)),
        Affine3A::from_scale_rotation_translation(
            Vec3::splat(1.5),
            Quat::from_rotation_x(-0.4),
            at(1.5, 1.0) + Vec3::Z,
        ),
        Affine3A::from_translation(at(0.0, 0.0)),
    ];
    let centre = Affine3A::from_translation(-mesh.bounds().centroid());
    let mut scene = Scene::new();
    let ids = transforms
        .map(|t| scene.add(Instance::new(mesh.clone(), t * centre).expect("valid transform")));
    scene.set_layers(ids[2], 0b10).expect("held");
    scene.remove(ids[4]).expect("held");
    scene
}

/// A `width` x `height` camera image framing the scene, in row-major order.
fn camera(scene: &Scene, width: u32, height: u32) -> Vec<Ray> {
    Camera::framing(scene.bounds(), 50.0, width as f32 / height as f32)
        .pixel_rays(width, height)
        .collect()
}

#[test]
fn scene_batches_answer_as_single_rays_on_a_camera_image() {
    for kernel in Kernel::supported() {
        let scene = suzannes(kernel);
        let rays = camera(&scene, 64, 48);
        let expected: Vec<Option<SceneHit>> = rays.iter().map(|ray| scene.cast(ray)).collect();
        let hits = expected.iter().flatten().count();
        assert!(hits * 10 > rays.len(), "{kernel}: too few hits ({hits})");
        assert!(
            expected.iter().flatten().any(|h| h.instance.index() == 0),
            "{kernel}: the tie between instances 0, 1 and 6 is never met"
        );
        assert_eq!(keys(&scene.cast_batch(&rays)), keys(&expected), "{kernel}");
        let mut serial = vec![None; rays.len()];
        scene.cast_batch_serial(&rays, &mut serial);
        assert_eq!(keys(&serial), keys(&expected), "{kernel}: serial");
        let occluded: Vec<bool> = rays.iter().map(|ray| scene.occluded(ray)).collect();
        assert_eq!(scene.occluded_batch(&rays), occluded, "{kernel}");

        // A distance limit (cutting the nearest hits' range in half), culling, a layer
        // mask and a filter.
        let distance = median_distance(&rays, &expected);
        let options = QueryOptions::new()
            .with_max_distance(distance)
            .with_culling(Culling::BackFaces)
            .with_mask(0b1)
            .with_filter(|id: InstanceId, triangle: u32| {
                !(id.index() + triangle).is_multiple_of(3)
            });
        let expected: Vec<Option<SceneHit>> = rays
            .iter()
            .map(|ray| scene.cast_with(ray, &options))
            .collect();
        let hits = expected.iter().flatten().count();
        assert!(
            hits * 40 > rays.len(),
            "{kernel}: too few hits ({hits}) with options"
        );
        let batch = scene.cast_batch_with(&rays, &options);
        assert_eq!(keys(&batch), keys(&expected), "{kernel}: with options");
        let occluded: Vec<bool> = rays
            .iter()
            .map(|ray| scene.occluded_with(ray, &options))
            .collect();
        let mut serial = vec![false; rays.len()];
        scene.occluded_batch_serial_with(&rays, &options, &mut serial);
        assert_eq!(serial, occluded, "{kernel}: occluded with options");
    }
}

/// The median world distance of the hits.
fn median_distance(rays: &[Ray], hits: &[Option<SceneHit>]) -> f32 {
    let mut distances: Vec<f32> = rays
        .iter()
        .zip(hits)
        .filter_map(|(ray, hit)| Some(hit.as_ref()?.hit.t * ray.dir.length()))
        .collect();
    distances.sort_unstable_by(f32::total_cmp);
    distances[distances.len() / 2]
}
