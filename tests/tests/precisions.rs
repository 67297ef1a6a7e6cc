//! Every ray query of `RayQueries` in both precisions, on every level: a `DRay` answers what
//! the `f32` ray it was made from answers, bit for bit, at the origin, and far from it where
//! the geometry and the rays are moved by an offset that `f64` carries exactly (a power of
//! two, with directions of exact length, so that even the distance limit cuts both alike).

use std::sync::Arc;

use meshcast::glam::{Affine3A, DAffine3, DVec3, Vec3};
use meshcast::{
    Culling, DHit, DRay, DSceneHit, Hit, Instance, InstanceId, Mesh, MeshFiles, PointQueries,
    QueryOptions, Ray, RayQueries, Scene, SceneHit,
};
use meshcast_testkit::{asset, icosphere, random_point_in, rng};
use rand::Rng;

/// Far from the origin, yet every coordinate of the meshes and rays here moves there and
/// back exactly in `f64`: each is a multiple of [`GRID`] below 8, so that it and the offset
/// fit in `f64`'s 53 bits together.
const FAR: f64 = 4_194_304.0; // 2^22

/// The step every ray origin and placement here lies on: `2^-20`.
const GRID: f32 = 1.0 / 1_048_576.0;

/// `point` moved to the nearest multiple of [`GRID`].
fn on_grid(point: Vec3) -> Vec3 {
    (point / GRID).round() * GRID
}

/// Directions whose length is an integer, exact in `f32` and in `f64`: `(1, 2, 2)` is 3,
/// `(2, 3, 6)` is 7, `(1, 4, 8)` is 9, `(2, 6, 9)` is 11, `(4, 4, 7)` is 9.
const QUADRUPLES: [[f32; 3]; 5] = [
    [1.0, 2.0, 2.0],
    [2.0, 3.0, 6.0],
    [1.0, 4.0, 8.0],
    [2.0, 6.0, 9.0],
    [4.0, 4.0, 7.0],
];

/// Rays towards points of `bounds` from up to its size away (so that no ray is moved along
/// itself when carried), in directions of exact length, every sign and order of their
/// components.
fn rays_around(bounds: meshcast::Aabb, count: usize, seed: u64) -> Vec<Ray> {
    let mut rng = rng(seed);
    let size = bounds.extent().max_element();
    (0..count)
        .map(|_| {
            let [a, b, c] = QUADRUPLES[rng.gen_range(0..QUADRUPLES.len())];
            let order = match rng.gen_range(0..3) {
                0 => [a, b, c],
                1 => [b, c, a],
                _ => [c, a, b],
            };
            let dir = Vec3::from(order.map(|x| if rng.gen::<bool>() { x } else { -x }));
            let target = random_point_in(&mut rng, bounds);
            let back = rng.gen_range(0.2..1.0) * size / dir.length();
            Ray::new(on_grid(target - dir * back), dir)
        })
        .collect()
}

/// `ray` moved by `offset` in `f64` (exactly, for the offsets here).
fn moved(ray: &Ray, offset: DVec3) -> DRay {
    let ray = DRay::from(*ray);
    DRay {
        origin: ray.origin + offset,
        ..ray
    }
}

/// A distance limit below `size` that every direction's length here divides exactly:
/// `693 = 3 * 7 * 9 * 11`, scaled by a power of two.
fn exact_limit(size: f32) -> f32 {
    let mut limit = 693.0;
    while limit > size {
        limit *= 0.5;
    }
    limit
}

fn widened(hit: &Hit) -> DHit {
    DHit {
        t: f64::from(hit.t),
        u: hit.u,
        v: hit.v,
        triangle: hit.triangle,
    }
}

fn widened_scene(hit: &SceneHit) -> DSceneHit {
    DSceneHit {
        instance: hit.instance,
        hit: widened(&hit.hit),
    }
}

/// Holds every query of `wide` for `rays` moved by `offset` in `f64` to the answers of
/// `near` for `rays`, each hit widened by `widen`; `size` is about the size of the geometry
/// (the distance limit stays below it).
fn every_query_agrees<L, C, H32, H64>(
    (near, wide): (&L, &L),
    rays: &[Ray],
    offset: DVec3,
    size: f32,
    widen: impl Fn(&H32) -> H64,
) where
    L: RayQueries<Ray, Hit = H32, Candidate = C> + RayQueries<DRay, Hit = H64, Candidate = C>,
    H32: std::fmt::Debug + Copy,
    H64: std::fmt::Debug + PartialEq + Copy,
{
    let far: Vec<DRay> = rays.iter().map(|ray| moved(ray, offset)).collect();
    let expect = |a: Option<H32>, b: Option<H64>, what: &str, i: usize| {
        assert_eq!(a.as_ref().map(&widen), b, "{what}, ray {i}: {:?}", rays[i]);
    };
    let limited = QueryOptions::new().with_max_distance(exact_limit(size));
    let culled = QueryOptions::new().with_culling(Culling::BackFaces);
    let first_two = QueryOptions::new().with_max_hits(2);
    let mut hits = 0;
    for (i, (ray, dray)) in rays.iter().zip(&far).enumerate() {
        let closest = near.cast(ray);
        hits += usize::from(closest.is_some());
        expect(closest, wide.cast(dray), "cast", i);
        expect(
            near.cast_with(ray, &limited),
            wide.cast_with(dray, &limited),
            "limited",
            i,
        );
        expect(
            near.cast_with(ray, &culled),
            wide.cast_with(dray, &culled),
            "culled",
            i,
        );
        assert_eq!(near.occluded(ray), wide.occluded(dray), "occluded, ray {i}");
        assert_eq!(
            near.occluded_with(ray, &limited),
            wide.occluded_with(dray, &limited),
            "occluded limited, ray {i}"
        );
        let all: Vec<H64> = near.cast_all(ray).iter().map(&widen).collect();
        assert_eq!(all, wide.cast_all(dray), "cast_all, ray {i}");
        let two: Vec<H64> = near
            .cast_all_with(ray, &first_two)
            .iter()
            .map(&widen)
            .collect();
        assert_eq!(
            two,
            wide.cast_all_with(dray, &first_two),
            "first two, ray {i}"
        );
        assert_eq!(near.count(ray), wide.count(dray), "count, ray {i}");
        assert_eq!(
            near.count_with(ray, &limited),
            wide.count_with(dray, &limited),
            "count limited, ray {i}"
        );
    }
    assert!(hits * 4 > rays.len(), "{hits} of {} rays hit", rays.len());
    // The batches answer as the single rays, in parallel and on the calling thread.
    let closest = near.cast_batch(rays);
    for (i, (a, b)) in closest.iter().zip(wide.cast_batch(&far)).enumerate() {
        expect(*a, b, "cast_batch", i);
    }
    for (i, (a, b)) in near
        .cast_batch_with(rays, &limited)
        .iter()
        .zip(wide.cast_batch_with(&far, &limited))
        .enumerate()
    {
        expect(*a, b, "cast_batch limited", i);
    }
    let mut serial = vec![None; far.len()];
    wide.cast_batch_serial(&far, &mut serial);
    for (i, (a, b)) in closest.iter().zip(serial).enumerate() {
        expect(*a, b, "cast_batch_serial", i);
    }
    assert_eq!(near.occluded_batch(rays), wide.occluded_batch(&far));
    assert_eq!(
        near.occluded_batch_with(rays, &limited),
        wide.occluded_batch_with(&far, &limited)
    );
    let mut occluded = vec![false; far.len()];
    wide.occluded_batch_serial(&far, &mut occluded);
    assert_eq!(near.occluded_batch(rays), occluded);
    assert_eq!(near.count_batch(rays), wide.count_batch(&far));
    let (lists, wide_lists) = (near.cast_all_batch(rays), wide.cast_all_batch(&far));
    assert_eq!(lists.offsets(), wide_lists.offsets());
    for i in 0..rays.len() {
        let list: Vec<H64> = lists[i].iter().map(&widen).collect();
        assert_eq!(list, wide_lists[i], "cast_all_batch, ray {i}");
    }
}

#[test]
fn a_mesh_answers_f64_rays_as_f32_rays_at_the_origin() {
    let bunny = Mesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads");
    let size = bunny.bounds().extent().max_element();
    let rays = rays_around(bunny.bounds(), 3000, 11);
    every_query_agrees((&bunny, &bunny), &rays, DVec3::ZERO, size, widened);
}

#[test]
fn a_far_mesh_answers_as_the_same_mesh_at_the_origin() {
    // An icosphere's box is symmetric, so its far frame's origin is the offset itself and
    // its stored positions are the sphere's.
    let sphere = icosphere(3);
    let near = Mesh::from_tri_mesh(sphere.clone(), &Default::default());
    let offset = DVec3::new(FAR, -FAR, FAR * 0.5);
    let positions: Vec<[f64; 3]> = sphere
        .positions()
        .iter()
        .map(|p| (p.as_dvec3() + offset).to_array())
        .collect();
    let far = Mesh::from_world_triangles(&positions, sphere.indices()).expect("a far mesh");
    assert_eq!(far.origin(), offset);
    assert_eq!(far.tri_mesh().positions(), sphere.positions());
    let rays = rays_around(near.bounds(), 3000, 12);
    every_query_agrees((&near, &far), &rays, offset, 2.0, widened);
}

#[test]
fn an_instance_answers_f64_rays_as_f32_rays_at_the_origin_and_far_from_it() {
    let bunny = Arc::new(Mesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads"));
    let size = bunny.bounds().extent().max_element();
    // Turned, mirrored and scaled: the f64 inverse carries both rays alike.
    let turned = Affine3A::from_rotation_z(0.5) * Affine3A::from_scale(Vec3::new(-2.0, 2.0, 2.0));
    let near = Instance::new(bunny.clone(), turned).expect("placed");
    let rays = rays_around(near.bounds(), 2000, 13);
    every_query_agrees((&near, &near), &rays, DVec3::ZERO, size, widened);
    // Moved 2^22 along each axis: the f64 inverse brings each moved ray back exactly.
    let offset = DVec3::splat(FAR);
    let at_origin = Instance::new(bunny.clone(), Affine3A::IDENTITY).expect("placed");
    let far = Instance::new(bunny, DAffine3::from_translation(offset)).expect("placed");
    let rays = rays_around(at_origin.bounds(), 2000, 14);
    every_query_agrees((&at_origin, &far), &rays, offset, size, widened);
}

#[test]
fn a_scene_answers_f64_rays_as_f32_rays_at_the_origin_and_far_from_it() {
    let bunny = Arc::new(Mesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads"));
    let size = bunny.bounds().extent().max_element();
    let places: Vec<Vec3> = (0..4)
        .map(|i| {
            on_grid(Vec3::new(
                i as f32 * size * 0.6,
                (i % 2) as f32 * size * 0.3,
                0.0,
            ))
        })
        .collect();
    let scene = |offset: DVec3| {
        Scene::from_instances(places.iter().map(|&p| {
            let at = DAffine3::from_translation(p.as_dvec3() + offset);
            Instance::new(bunny.clone(), at).expect("placed")
        }))
    };
    let near = scene(DVec3::ZERO);
    let rays = rays_around(near.bounds(), 2000, 15);
    every_query_agrees((&near, &near), &rays, DVec3::ZERO, size, widened_scene);
    let offset = DVec3::new(-FAR, FAR, FAR);
    let far = scene(offset);
    every_query_agrees((&near, &far), &rays, offset, size, widened_scene);
    // A filter is asked the same candidates in both precisions.
    let hidden = InstanceId::from_index(1);
    let options = QueryOptions::new().with_filter(move |id: InstanceId, _: u32| id != hidden);
    let moved_rays: Vec<DRay> = rays.iter().map(|ray| moved(ray, offset)).collect();
    let kept = far.cast_batch_with(&moved_rays, &options);
    for (ray, hit) in rays.iter().zip(kept) {
        let expected = near.cast_with(ray, &options).as_ref().map(widened_scene);
        assert_eq!(expected, hit, "{ray:?}");
    }
}

/// Holds the point queries of `level` for points in `f64` to its answers for the same points
/// in `f32`: inside and the winding number exactly, the nearest point to a few float steps.
fn point_queries_agree<L>(level: &L, bounds: meshcast::Aabb, seed: u64)
where
    L: PointQueries<Vec3> + PointQueries<DVec3>,
{
    let mut rng = rng(seed);
    let mut inside = 0;
    for _ in 0..300 {
        let point = random_point_in(&mut rng, bounds);
        let wide = point.as_dvec3();
        let contains = PointQueries::<Vec3>::contains(level, point);
        inside += usize::from(contains);
        assert_eq!(contains, level.contains(wide), "{point}");
        let winding = level.winding_number(point);
        assert_eq!(winding, level.winding_number(wide) as f32, "{point}");
        let (near, far) = (
            level.signed_distance(point).expect("a distance"),
            level.signed_distance(wide).expect("a distance"),
        );
        assert!(
            (f64::from(near) - far).abs() <= 1e-6,
            "{point}: {near} against {far}"
        );
    }
    assert!(inside > 10, "{inside} points inside");
}

#[test]
fn every_level_answers_f64_points_as_f32_points() {
    let bunny = Arc::new(Mesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads"));
    point_queries_agree(bunny.as_ref(), bunny.bounds(), 21);
    let turned = Affine3A::from_rotation_z(0.5) * Affine3A::from_scale(Vec3::new(-2.0, 2.0, 2.0));
    let instance = Instance::new(bunny, turned).expect("placed");
    point_queries_agree(&instance, instance.bounds(), 22);
    let scene = Scene::from_instances([instance.clone()]);
    point_queries_agree(&scene, scene.bounds(), 23);
}
