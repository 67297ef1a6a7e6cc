//! `QueryOptions::max_hits`: every-hit queries capped at each ray's first hits keep exactly the
//! first of the uncapped list (ties at the cap by the tie rule, at every level), and the walk
//! stops looking once it holds them. Every level's caps on the assets are checked against
//! brute force in `queries.rs`.

use std::cell::Cell;
use std::sync::Arc;

use meshcast::glam::{Affine3A, Vec3};
use meshcast::{Instance, InstanceId, Mesh, QueryOptions, Ray, RayQueries, Scene, Triangle};
use meshcast_testkit::{brute_force_cast_all, brute_force_scene_cast_all};

/// The exact text of a value (floats in their shortest round-trip form: equal text is
/// equal bits).
fn bits<T: std::fmt::Debug>(value: &T) -> String {
    format!("{value:?}")
}

/// `layers` copies of a unit right triangle in each of the planes `z = 0, 1, ...`, the plane
/// of triangle `i` chosen by a stride so that neither index order nor build order is plane
/// order: rays along z hit every copy in a plane at one `t`, a tie the index breaks.
fn stacked_copies(planes: u32, copies: u32) -> Mesh {
    let count = planes * copies;
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for i in 0..count {
        let z = ((i * 7) % planes) as f32;
        let first = positions.len() as u32;
        positions.extend([[0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]]);
        indices.push([first, first + 1, first + 2]);
    }
    Mesh::from_triangles(&positions, &indices).expect("a mesh")
}

/// Rays down and up through the stack, inside the triangles and through their shared corner
/// and edges.
fn rays_through_the_stack(planes: u32) -> Vec<Ray> {
    let top = planes as f32 + 1.0;
    let mut rays = Vec::new();
    for (x, y) in [(0.2, 0.3), (0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)] {
        rays.push(Ray::new(Vec3::new(x, y, top), Vec3::NEG_Z));
        rays.push(Ray::new(Vec3::new(x, y, -1.0), Vec3::Z));
        // Slanted, with a range that starts inside the stack.
        let slanted = Ray::new(Vec3::new(x, y, top), Vec3::new(0.001, 0.001, -1.0));
        rays.push(slanted.with_range(1.5, f32::INFINITY));
    }
    rays
}

#[test]
fn ties_at_the_cap_go_to_the_smaller_triangle_and_instance() {
    let planes = 5;
    let mesh = Arc::new(stacked_copies(planes, 8));
    let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
    // Three instances in the same place: their hits tie on `t` and triangle, and the
    // instance id breaks the tie; a fourth, mirrored through z = 2, lands on the same planes.
    let mirrored =
        Affine3A::from_translation(Vec3::Z * 4.0) * Affine3A::from_scale(Vec3::new(1.0, 1.0, -1.0));
    let scene = Scene::from_instances(
        [
            Affine3A::IDENTITY,
            Affine3A::IDENTITY,
            mirrored,
            Affine3A::IDENTITY,
        ]
        .map(|transform| Instance::new(Arc::clone(&mesh), transform).expect("invertible")),
    );
    let mut tied_at_the_cap = 0;
    for ray in rays_through_the_stack(planes) {
        let all = brute_force_cast_all(&triangles, &ray);
        let scene_all = brute_force_scene_cast_all(&scene, &ray, |_, _| true);
        for max_hits in [1, 3, 8, 9, 12, 39, 40, 41] {
            let options = QueryOptions::new().with_max_hits(max_hits);
            let first = &all[..all.len().min(max_hits)];
            assert_eq!(
                bits(&mesh.cast_all_with(&ray, &options)),
                bits(&first),
                "{max_hits} {ray:?}"
            );
            let scene_first = &scene_all[..scene_all.len().min(max_hits)];
            let answer = scene.cast_all_with(&ray, &options);
            assert_eq!(
                bits(&answer),
                bits(&scene_first),
                "scene, {max_hits} {ray:?}"
            );
            let batch = scene.cast_all_batch_with(&[ray, ray], &options);
            assert_eq!(
                bits(&&batch[1]),
                bits(&scene_first),
                "scene batch, {max_hits}"
            );
            if let (Some(last), Some(next)) = (scene_first.last(), scene_all.get(max_hits)) {
                tied_at_the_cap += usize::from(last.hit.t == next.hit.t);
            }
        }
    }
    assert!(
        tied_at_the_cap > 20,
        "only {tied_at_the_cap} caps fell inside a tie"
    );
}

#[test]
fn a_capped_walk_stops_looking_once_it_holds_its_hits() {
    // A thousand triangles stacked along z: an uncapped ray down the stack offers the filter
    // every one of them; capped, the walk goes no farther than the last hit it keeps, so
    // only the leaves near the top are tested.
    let planes = 1000;
    let mesh = Arc::new(stacked_copies(planes, 1));
    let down = Ray::new(Vec3::new(0.2, 0.3, planes as f32 + 1.0), Vec3::NEG_Z);
    let asked = Cell::new(0_usize);
    let counting = QueryOptions::new().with_filter(|_: u32| {
        asked.set(asked.get() + 1);
        true
    });
    assert_eq!(mesh.cast_all_with(&down, &counting).len(), 1000);
    assert_eq!(asked.replace(0), 1000);
    let first = mesh.cast_all_with(&down, &counting.with_max_hits(3));
    assert_eq!(
        first.iter().map(|h| h.t).collect::<Vec<_>>(),
        [2.0, 3.0, 4.0]
    );
    assert!(
        asked.replace(0) < 100,
        "a capped walk tested most of the stack"
    );

    // The same in a scene of a hundred instances, one above the other.
    let scene = Scene::from_instances((0..100).map(|i| {
        let lift = Affine3A::from_translation(Vec3::Z * (planes * i) as f32);
        Instance::new(Arc::clone(&mesh), lift).expect("invertible")
    }));
    let from_above = Ray::new(
        Vec3::new(0.2, 0.3, (planes * 100) as f32 + 1.0),
        Vec3::NEG_Z,
    );
    let instances = Cell::new(0_usize);
    let counting = QueryOptions::new().with_filter(|_: InstanceId, _: u32| {
        instances.set(instances.get() + 1);
        true
    });
    let first = scene.cast_all_with(&from_above, &counting.with_max_hits(2));
    assert_eq!(
        first.iter().map(|h| h.instance.index()).collect::<Vec<_>>(),
        [99, 99]
    );
    assert!(
        instances.get() < 100,
        "{} candidates asked",
        instances.get()
    );
}
