//! Live updates: moving, adding and removing instances and deforming meshes keep every
//! editor query equal to brute force; queries on other threads run on consistent snapshots
//! while a writer publishes new versions.

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use meshcast::MeshFiles;
use meshcast_mesh::{
    Contacts, Containment, Culling, Instance, InstanceId, Mesh, PointQueries, QueryOptions,
    RayQueries, Scene, SharedScene, ALL_LAYERS,
};
use meshcast_primitives::{Ray, Sphere, Volume};
use meshcast_testkit::{
    asset, brute_force_closest, brute_force_hits, brute_force_select, query_point, random_scene,
    random_transform, rng, small_meshes, world_triangles, Rules,
};
use rand::Rng;

fn check_against_brute_force(scene: &Scene, seed: u64) {
    let triangles = world_triangles(scene, ALL_LAYERS, &|_, _| true);
    let mut rng = rng(seed);
    let options = QueryOptions::new();
    for _ in 0..10 {
        let query = query_point(&mut rng, scene, &triangles);
        let got = scene.closest_point(query, &options);
        let expected = brute_force_closest(&triangles, query, f32::INFINITY);
        assert_eq!(
            got.map(|c| (c.instance, c.closest.triangle, c.closest.point)),
            expected
        );
        let ball = Volume::Sphere(Sphere::new(query, scene.bounds().extent().length() * 0.05));
        assert_eq!(
            scene.select(&ball, Containment::Intersecting, &options),
            brute_force_select(&triangles, &ball, Containment::Intersecting)
        );
        let target = triangles[rng.gen_range(0..triangles.len())].2.centroid();
        let ray = Ray::new(query, target - query);
        let expected = brute_force_hits(
            scene,
            &ray,
            f32::INFINITY,
            Rules::new(Culling::Off, Contacts::Hit),
            ALL_LAYERS,
            &|_, _| true,
        );
        let got = scene.cast_with(&ray, &options);
        assert_eq!(
            got.map(|h| (h.instance, h.hit.triangle, h.hit.t)),
            expected
                .first()
                .map(|h| (h.instance, h.hit.triangle, h.hit.t))
        );
    }
    scene
        .top_level()
        .validate(&scene_boxes(scene))
        .expect("the top level holds every instance");
}

fn scene_boxes(scene: &Scene) -> Vec<meshcast_primitives::Aabb> {
    let count = scene
        .instances()
        .map(|(id, _)| id.index() + 1)
        .max()
        .unwrap_or(0);
    (0..count)
        .map(|i| {
            scene
                .instance(InstanceId::from_index(i))
                .map_or(meshcast_primitives::Aabb::EMPTY, Instance::bounds)
        })
        .collect()
}

#[test]
fn moving_adding_and_removing_instances_keeps_queries_exact() {
    let meshes = small_meshes();
    let mut scene = random_scene(&meshes, 300, 40.0, 1);
    let mut rng = rng(2);
    // Move 100 instances: the top level is refitted.
    for i in 0..100 {
        let id = InstanceId::from_index(i * 3);
        scene
            .set_transform(id, random_transform(&mut rng, 40.0))
            .expect("held");
    }
    check_against_brute_force(&scene, 3);
    // Remove some and add some: the top level is rebuilt.
    for i in 0..20 {
        scene
            .remove(InstanceId::from_index(i * 7 + 1))
            .expect("held");
    }
    for _ in 0..20 {
        let mesh = meshes[rng.gen_range(0..meshes.len())].clone();
        scene.add(Instance::new(mesh, random_transform(&mut rng, 60.0)).expect("valid"));
    }
    check_against_brute_force(&scene, 4);
    assert!(
        scene.remove(InstanceId::from_index(1)).is_err(),
        "removed twice"
    );
    assert!(scene.set_layers(InstanceId::from_index(1), 1).is_err());
}

#[test]
fn deforming_a_mesh_refits_it_and_keeps_queries_exact() {
    let original = Mesh::from_obj(asset("cow.obj")).expect("loads");
    let wave = |p: Vec3, phase: f32| {
        [
            p.x,
            p.y + 0.05 * (p.x * 6.0 + phase).sin(),
            p.z * (1.0 + 0.1 * phase.cos()),
        ]
    };
    let mut deformed = original.clone();
    let mut rng = rng(6);
    for phase in [0.5f32, 1.5, 3.0] {
        let positions: Vec<[f32; 3]> = original
            .tri_mesh()
            .positions()
            .iter()
            .map(|&p| wave(p, phase))
            .collect();
        deformed
            .set_positions(&positions)
            .expect("same vertex count");
        let boxes: Vec<_> = deformed
            .tri_mesh()
            .triangles()
            .map(|t| {
                if t.is_degenerate() {
                    meshcast_primitives::Aabb::EMPTY
                } else {
                    t.bounds()
                }
            })
            .collect();
        deformed
            .bvh()
            .validate(&boxes)
            .expect("refitted boxes hold the triangles");
        let rebuilt =
            Mesh::from_triangles(&positions, deformed.tri_mesh().indices()).expect("valid");
        let bounds = rebuilt.bounds();
        assert_eq!(deformed.bounds(), bounds);
        for _ in 0..100 {
            let query = bounds.min + bounds.extent() * Vec3::new(rng.gen(), rng.gen(), rng.gen());
            let options = QueryOptions::new();
            assert_eq!(
                deformed.closest_point(query, &options),
                rebuilt.closest_point(query, &options)
            );
            let ray = Ray::new(
                query - Vec3::Z * 10.0,
                Vec3::new(rng.gen(), rng.gen(), 10.0),
            );
            assert_eq!(deformed.cast(&ray), rebuilt.cast(&ray));
        }
    }
    // Attributes and groups survive; bad positions leave the mesh as it was.
    assert_eq!(deformed.tri_mesh().normals(), original.tri_mesh().normals());
    assert_eq!(
        deformed.tri_mesh().group_names(),
        original.tri_mesh().group_names()
    );
    let before = deformed.tri_mesh().positions().to_vec();
    assert!(deformed.set_positions(&[[0.0; 3]; 3]).is_err());
    let mut bad: Vec<[f32; 3]> = before.iter().map(|p| p.to_array()).collect();
    bad[5][1] = f32::NAN;
    assert!(deformed.set_positions(&bad).is_err());
    assert_eq!(deformed.tri_mesh().positions(), before.as_slice());
    // Collapsing a triangle makes it degenerate: the hierarchy is rebuilt without it.
    let mut collapsed: Vec<[f32; 3]> = before.iter().map(|p| p.to_array()).collect();
    let [a, b, _] = deformed.tri_mesh().indices()[0];
    collapsed[b as usize] = collapsed[a as usize];
    deformed.set_positions(&collapsed).expect("valid");
    let rebuilt = Mesh::from_triangles(&collapsed, deformed.tri_mesh().indices()).expect("valid");
    let query = Vec3::from(collapsed[a as usize]);
    assert_eq!(
        deformed.closest_point(query, &QueryOptions::new()),
        rebuilt.closest_point(query, &QueryOptions::new())
    );
}

#[test]
fn a_deformed_mesh_handed_to_the_scene_is_queried_exactly() {
    let meshes = small_meshes();
    let mut scene = random_scene(&meshes, 120, 30.0, 7);
    let id = InstanceId::from_index(4);
    let instance = scene.instance(id).expect("held").clone();
    let mut mesh = instance.mesh().clone();
    let positions: Vec<[f32; 3]> = mesh
        .tri_mesh()
        .positions()
        .iter()
        .map(|p| (*p * Vec3::new(1.5, 0.7, 1.0)).to_array())
        .collect();
    Arc::make_mut(&mut mesh)
        .set_positions(&positions)
        .expect("valid");
    scene.set_layers(id, 0b1000).expect("held");
    scene.set_mesh(id, mesh).expect("held");
    assert_eq!(scene.instance(id).map(Instance::layers), Some(0b1000));
    assert_eq!(
        scene.instance(id).map(Instance::transform),
        Some(instance.transform())
    );
    check_against_brute_force(&scene, 8);
    // The other instances of the old mesh did not move.
    assert!(Arc::ptr_eq(
        scene
            .instance(InstanceId::from_index(6))
            .expect("held")
            .mesh(),
        &meshes[0]
    ));
}

#[test]
fn readers_on_other_threads_see_consistent_snapshots_while_a_writer_edits() {
    let meshes = small_meshes();
    let shared = SharedScene::new(random_scene(&meshes, 200, 30.0, 9));
    let mover = InstanceId::from_index(0);
    let versions = 30;
    std::thread::scope(|threads| {
        for reader in 0..3u64 {
            let shared = &shared;
            threads.spawn(move || {
                let mut rng = rng(100 + reader);
                for _ in 0..150 {
                    let snapshot = shared.snapshot();
                    // Aim at the mover as this snapshot places it: the ray must find it (or
                    // something in front of it that this same snapshot agrees on).
                    let placed = snapshot.instance(mover).expect("never removed");
                    let target = placed
                        .world_triangle(rng.gen_range(0..500))
                        .expect("in range")
                        .centroid();
                    let origin = target + Vec3::new(0.0, 200.0, 0.0);
                    let ray = Ray::new(origin, target - origin);
                    let hit = snapshot.cast(&ray).expect("the mover is under the ray");
                    assert!(hit.hit.t <= 1.0 + 1e-4);
                    let hidden = snapshot.cast_with(
                        &ray,
                        &QueryOptions::new().with_filter(|id: InstanceId, _| id != hit.instance),
                    );
                    assert!(hidden.is_none_or(|h| h.hit.t >= hit.hit.t));
                    // The snapshot answers the same way twice, whatever the writer does.
                    assert_eq!(snapshot.cast(&ray), Some(hit));
                    let closest = snapshot
                        .closest_point(target, &QueryOptions::new())
                        .expect("near");
                    assert!(closest.closest.distance <= 1e-3 * (1.0 + target.length()));
                }
            });
        }
        threads.spawn(|| {
            let mut rng = rng(50);
            for version in 0..versions {
                let transform = Affine3A::from_translation(Vec3::X * version as f32 * 3.0)
                    * random_transform(&mut rng, 1.0);
                let mesh = meshes[0].clone();
                shared.update(|next| {
                    next.set_transform(mover, transform).expect("held");
                    // Rebuild the top level too now and then, by adding an instance.
                    if version % 5 == 0 {
                        next.add(Instance::new(mesh, transform).expect("valid"));
                    }
                });
            }
        });
    });
    let last = shared.snapshot();
    assert_eq!(last.len(), 200 + versions / 5);
    check_against_brute_force(&last, 10);
}

#[test]
fn a_pick_kept_across_edits_never_panics() {
    // An editor picks, keeps the pick on screen, and reads its surface again every frame
    // while the user deletes the object or swaps in a smaller mesh.
    let cow = Arc::new(Mesh::from_obj(asset("cow.obj")).expect("the cow loads"));
    let tri = Arc::new(
        Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])
            .expect("a triangle"),
    );
    let mut scene = Scene::new();
    let kept = scene.add(Instance::new(Arc::clone(&cow), Affine3A::IDENTITY).expect("ok"));
    let other = scene.add(
        Instance::new(
            Arc::clone(&cow),
            Affine3A::from_translation(Vec3::X * 100.0),
        )
        .expect("ok"),
    );
    let centre = cow.bounds().centroid();
    let ray = Ray::new(centre + Vec3::Z * 10.0, Vec3::NEG_Z);
    let pick = scene
        .pick(&ray, &QueryOptions::new())
        .expect("the cow is under the mouse");
    assert_eq!(pick.instance, kept);
    let hit = pick.scene_hit();
    assert!(
        hit.hit.triangle > 0,
        "a triangle the small mesh does not have"
    );
    assert!(scene.surface(&hit).is_some());

    // A mesh with fewer triangles under the same id: the hit's triangle is gone.
    scene
        .set_mesh(kept, Arc::clone(&tri))
        .expect("the id is held");
    assert!(scene.surface(&hit).is_none());
    let instance = scene.instance(kept).expect("still held");
    assert!(instance.surface(&hit.hit).is_none());
    assert!(instance.facing(&ray, &hit.hit).is_none());
    assert!(tri.surface(&hit.hit).is_none());
    assert!(tri.tri_mesh().triangle(hit.hit.triangle as usize).is_none());

    // The object deleted: the id answers nothing, and picks go on to what is left.
    scene.remove(kept).expect("the id is held");
    assert!(scene.surface(&hit).is_none());
    assert!(scene.instance(kept).is_none());
    assert!(scene.pick(&ray, &QueryOptions::new()).is_none());
    assert!(scene.pick_instances(&ray, &QueryOptions::new()).is_empty());
    let moved = Ray::new(ray.origin + Vec3::X * 100.0, ray.dir);
    let still = scene
        .pick(&moved, &QueryOptions::new())
        .expect("the other cow");
    assert_eq!(still.instance, other);
}

#[test]
fn a_deformed_mesh_shades_with_normals_of_its_new_shape() {
    // A flat square, its smooth normals computed by a first query, then folded into a roof.
    let mut mesh = Mesh::from_triangles(
        &[[0.0; 3], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
        &[[0, 1, 2], [0, 2, 3]],
    )
    .expect("valid");
    let down = |x: f32, y: f32| Ray::new(Vec3::new(x, y, 5.0), Vec3::NEG_Z);
    let flat = mesh.cast(&down(0.7, 0.2)).expect("hits the square");
    assert_eq!(
        mesh.surface(&flat)
            .expect("a hit of the mesh")
            .shading_normal,
        Vec3::Z
    );
    mesh.set_positions(&[[0.0; 3], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
        .expect("valid");
    // On the diagonal edge the roof's normal lies between its two faces' normals.
    let faces = [0, 1].map(|i| {
        mesh.tri_mesh()
            .triangle(i)
            .expect("two triangles")
            .normal()
            .normalize()
    });
    let hit = mesh.cast(&down(0.5, 0.5)).expect("hits the roof");
    let shading = mesh
        .surface(&hit)
        .expect("a hit of the mesh")
        .shading_normal;
    assert!(faces[0] != faces[1] && shading != Vec3::Z, "{shading}");
    assert!(shading.distance((faces[0] + faces[1]).normalize()) < 1e-5);
}
