//! `cast_batch` answers exactly what `cast` answers for every ray, in order, on one thread and
//! on two (local rayon pools).

use std::sync::Arc;

use meshcast::glam::Affine3A;
use meshcast::{Camera, Instance, Mesh, MeshFiles, Ray, RayQueries, Scene};
use meshcast_testkit::{
    adversarial_rays, asset, incoherent_rays, random_transform, rng, same_hit, same_scene_hit,
};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

fn rays_for(mesh: &Mesh) -> Vec<Ray> {
    let mut rays = incoherent_rays(mesh.bounds(), 3000, 1);
    let camera = Camera::framing(mesh.bounds(), 40.0, 1.0);
    rays.extend(camera.pixel_rays(48, 48));
    let triangles: Vec<_> = mesh.tri_mesh().triangles().collect();
    rays.extend(adversarial_rays(&triangles, 1000, 2));
    rays
}

#[test]
fn mesh_batch_equals_cast_on_one_and_two_threads() {
    let mesh = Mesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads");
    let rays = rays_for(&mesh);
    let expected: Vec<_> = rays.iter().map(|ray| mesh.cast(ray)).collect();
    assert!(expected.iter().filter(|h| h.is_some()).count() > rays.len() / 4);
    for threads in [1, 2] {
        let batch = pool(threads).install(|| mesh.cast_batch(&rays));
        assert_eq!(batch.len(), rays.len());
        for (i, (a, b)) in batch.iter().zip(&expected).enumerate() {
            assert!(
                same_hit(*a, *b),
                "{threads} threads, ray {i}: {a:?} vs {b:?}"
            );
        }
    }
    assert!(mesh.cast_batch(&[] as &[Ray]).is_empty());
}

#[test]
fn scene_batch_equals_cast_on_one_and_two_threads() {
    let cow = Arc::new(Mesh::from_obj(asset("cow.obj")).expect("cow loads"));
    let mut random = rng(8);
    let scene =
        Scene::from_instances((0..12).map(|_| {
            Instance::new(Arc::clone(&cow), random_transform(&mut random, 2.0)).expect("ok")
        }));
    let mut rays = incoherent_rays(scene.bounds(), 3000, 3);
    let camera = Camera::framing(scene.bounds(), 40.0, 1.0);
    rays.extend(camera.pixel_rays(40, 40));
    let expected: Vec<_> = rays.iter().map(|ray| scene.cast(ray)).collect();
    assert!(expected.iter().filter(|h| h.is_some()).count() > rays.len() / 10);
    for threads in [1, 2] {
        let batch = pool(threads).install(|| scene.cast_batch(&rays));
        assert_eq!(batch.len(), rays.len());
        for (i, (a, b)) in batch.iter().zip(&expected).enumerate() {
            assert!(same_scene_hit(*a, *b), "{threads} threads, ray {i}");
        }
    }
    let identity = Scene::from_instances([Instance::new(cow, Affine3A::IDENTITY).expect("ok")]);
    assert!(identity.cast_batch(&[] as &[Ray]).is_empty());
}
