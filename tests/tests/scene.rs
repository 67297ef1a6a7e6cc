//! The two-level scene against brute force over every instance's every triangle, before and
//! after moving, adding and removing instances; picking helpers in world space.

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use meshcast::MeshFiles;
use meshcast_mesh::{
    Contacts, Error, Instance, InstanceId, Mesh, QueryOptions, RayQueries, Scene, ALL_LAYERS,
};
use meshcast_primitives::{Aabb, Ray, Triangle};
use meshcast_testkit::{
    adversarial_rays, asset, brute_force_scene_cast, brute_force_scene_cast_all, random_rays,
    random_transform, rng, same_scene_hit, temp_path, world_triangles,
};
use rand::Rng;

fn meshes() -> Vec<Arc<Mesh>> {
    ["woody.obj", "suzanne.obj", "alligator.obj"]
        .into_iter()
        .map(|name| Arc::new(Mesh::from_obj(asset(name)).expect("asset loads")))
        .collect()
}

fn random_scene(count: usize, seed: u64) -> Scene {
    let meshes = meshes();
    let mut random = rng(seed);
    Scene::from_instances((0..count).map(|i| {
        let transform = random_transform(&mut random, 3.0);
        Instance::new(Arc::clone(&meshes[i % meshes.len()]), transform).expect("invertible")
    }))
}

/// Validates the top level against the instances' boxes (removed ones empty).
fn validate(scene: &Scene) {
    let slots = scene.top_level().primitive_count();
    let boxes: Vec<Aabb> = (0..slots as u32)
        .map(|i| {
            scene
                .instances()
                .find(|(id, _)| id.index() == i)
                .map_or(Aabb::EMPTY, |(_, instance)| instance.bounds())
        })
        .collect();
    scene.top_level().validate(&boxes).expect("valid top level");
}

fn check_scene(label: &str, scene: &Scene, rays: &[Ray]) {
    validate(scene);
    for (i, ray) in rays.iter().enumerate() {
        let expected = brute_force_scene_cast(scene, ray);
        let hit = scene.cast(ray);
        assert!(
            same_scene_hit(hit, expected),
            "{label}: ray {i} {ray:?}: scene {hit:?}, brute force {expected:?}"
        );
        assert_eq!(scene.occluded(ray), expected.is_some(), "{label}: ray {i}");
        let all = scene.cast_all(ray);
        let expected_all = brute_force_scene_cast_all(scene, ray, |_, _| true);
        assert_eq!(all.len(), expected_all.len(), "{label}: ray {i} cast_all");
        for (a, b) in all.iter().zip(&expected_all) {
            assert!(
                same_scene_hit(Some(*a), Some(*b)),
                "{label}: ray {i}: {a:?} {b:?}"
            );
        }
        // By the tie rule, the closest hit is the first of every hit; contacts come no later.
        let tie_rule = QueryOptions::new().with_contacts(Contacts::TieRule);
        let crossing = scene.cast_with(ray, &tie_rule);
        assert!(
            same_scene_hit(all.first().copied(), crossing),
            "{label}: ray {i}"
        );
        assert_eq!(scene.occluded_with(ray, &tie_rule), crossing.is_some());
        if let Some(crossing) = crossing {
            assert!(
                hit.is_some_and(|h| h.order(&crossing).is_le()),
                "{label}: ray {i}"
            );
        }
    }
}

fn rays_for(scene: &Scene, count: usize, seed: u64) -> Vec<Ray> {
    let mut rays = random_rays(scene.bounds(), count, seed);
    let targets: Vec<Triangle> = world_triangles(scene, ALL_LAYERS, &|_, _| true)
        .into_iter()
        .map(|(_, _, triangle)| triangle)
        .collect();
    rays.extend(adversarial_rays(&targets, count, seed + 1));
    rays
}

#[test]
fn two_level_scene_matches_brute_force() {
    let scene = random_scene(24, 1);
    assert_eq!(scene.len(), 24);
    check_scene("initial", &scene, &rays_for(&scene, 300, 10));
}

#[test]
fn moving_adding_and_removing_instances_keeps_answers_exact() {
    let mut scene = random_scene(16, 2);
    let mut random = rng(3);
    // Move a few: the top level is refitted.
    for k in 0..6u32 {
        let id = scene
            .instances()
            .nth(random.gen_range(0..scene.len()))
            .map(|(id, _)| id)
            .expect("non-empty");
        scene
            .set_transform(id, random_transform(&mut random, 3.0 + k as f32))
            .expect("invertible");
    }
    check_scene("moved", &scene, &rays_for(&scene, 150, 20));
    // Remove two, add three.
    let removed: Vec<InstanceId> = scene.instances().take(2).map(|(id, _)| id).collect();
    for id in &removed {
        scene.remove(*id).expect("present");
    }
    assert!(matches!(
        scene.remove(removed[0]),
        Err(Error::UnknownInstance { .. })
    ));
    assert!(scene.set_transform(removed[1], Affine3A::IDENTITY).is_err());
    let meshes = meshes();
    for mesh in &meshes {
        let added = scene
            .add(Instance::new(Arc::clone(mesh), random_transform(&mut random, 3.0)).expect("ok"));
        assert!(scene.instance(added).is_some());
    }
    assert_eq!(scene.len(), 16 - 2 + 3);
    check_scene("edited", &scene, &rays_for(&scene, 150, 30));
    // A transform that cannot be inverted is refused and leaves the instance in place.
    let (id, before) = scene
        .instances()
        .next()
        .map(|(id, i)| (id, i.transform()))
        .unwrap();
    let flat = Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0));
    assert!(matches!(
        scene.set_transform(id, flat),
        Err(Error::InvalidTransform { .. })
    ));
    assert_eq!(scene.instance(id).map(Instance::transform), Some(before));
}

#[test]
fn filters_skip_instances_and_triangles() {
    let scene = random_scene(10, 4);
    let hidden = InstanceId::clone(&scene.instances().nth(3).expect("ten instances").0);
    let keep =
        |instance: InstanceId, triangle: u32| instance != hidden && !triangle.is_multiple_of(3);
    // Every hit and the closest by the tie rule: the first of them.
    let options = QueryOptions::new()
        .with_contacts(Contacts::TieRule)
        .with_filter(keep);
    for ray in rays_for(&scene, 100, 40) {
        let expected = brute_force_scene_cast_all(&scene, &ray, keep);
        assert!(same_scene_hit(
            scene.cast_with(&ray, &options),
            expected.first().copied()
        ));
        assert_eq!(scene.occluded_with(&ray, &options), !expected.is_empty());
        assert_eq!(scene.cast_all_with(&ray, &options), expected);
    }
}

#[test]
fn empty_scene_misses() {
    let mut scene = Scene::new();
    assert!(scene.is_empty());
    let ray = Ray::new(Vec3::ZERO, Vec3::X);
    assert_eq!(scene.cast(&ray), None);
    assert!(!scene.occluded(&ray));
    assert!(scene.cast_all(&ray).is_empty());
    let empty_mesh = Arc::new(Mesh::from_triangles(&[], &[]).expect("empty mesh"));
    let id = scene.add(Instance::new(empty_mesh, Affine3A::IDENTITY).expect("ok"));
    assert_eq!(scene.cast(&ray), None);
    scene
        .set_transform(id, Affine3A::from_translation(Vec3::X))
        .expect("ok");
    assert_eq!(scene.cast(&ray), None);
}

#[test]
fn picking_reports_world_point_normals_uv_and_group() {
    let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
                vn 0 0 1\no floor\nf 1/1/1 2/2/1 3/3/1 4/4/1\ng wall\nf 1 2 -1\n";
    let path = temp_path("picking.obj");
    std::fs::write(&path, text).expect("write");
    let mesh = Arc::new(Mesh::from_obj(&path).expect("valid"));
    // Rotate a quarter turn about x (the floor becomes a wall facing -y), scale, lift.
    let transform = Affine3A::from_scale_rotation_translation(
        Vec3::new(2.0, 3.0, 4.0),
        glam::Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        Vec3::new(0.0, 0.0, 10.0),
    );
    let scene = Scene::from_instances([Instance::new(mesh, transform).expect("ok")]);
    let target = transform.transform_point3(Vec3::new(0.25, 0.5, 0.0));
    let origin = target - Vec3::Y * 5.0;
    let hit = scene
        .cast(&Ray::new(origin, target - origin))
        .expect("hits the floor quad");
    let surface = scene.surface(&hit).expect("the scene holds the hit");
    assert!(surface.point.distance(target) < 1e-5);
    assert!((hit.hit.t - 1.0).abs() < 1e-6);
    // The quad's normal +z turns to -y under the quarter turn about x.
    assert!(surface.geometric_normal.distance(Vec3::NEG_Y) < 1e-5);
    assert!(surface.shading_normal.distance(Vec3::NEG_Y) < 1e-5);
    let uv = surface.uv.expect("the quad gives uvs");
    assert!(uv.distance(glam::Vec2::new(0.25, 0.5)) < 1e-5);
    assert_eq!(surface.group, Some("floor"));
    // The second face (group `wall`, same plane, no attributes) when the floor is filtered.
    let only_the_wall = QueryOptions::new().with_filter(|_: InstanceId, t: u32| t == 2);
    let wall = scene
        .cast_with(&Ray::new(origin, target - origin), &only_the_wall)
        .expect("hits the wall triangle");
    let surface = scene.surface(&wall).expect("the scene holds the hit");
    assert_eq!((surface.group, surface.uv), (Some("wall"), None));
    // No file normals: the smooth ones, here those of the flat quad, carried like the rest.
    assert!(surface.shading_normal.distance(Vec3::NEG_Y) < 1e-5);
}
