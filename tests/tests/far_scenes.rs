//! Far from the origin, scenes: instances placed kilometres apart by `f64` transforms at UTM
//! and Earth-centred offsets, asked with `f64` rays, answer what the same mesh answers at
//! the origin, up to the rounding of the rebased coordinates: no hit or miss, instance or
//! triangle differs except for rays within a relative `1e-6` of the mesh's size from an
//! edge, and `t` agrees within `1e-6` of its size. Every answer equals a brute-force loop
//! over the instances, each asked with its own carried ray, so the top level culls nothing
//! it should keep.

use std::sync::Arc;

use meshcast::glam::{Affine3A, DAffine3, DQuat, DVec3, Vec2, Vec3};
use meshcast::{
    BatchOrder, DHit, DRay, DSceneHit, Feature, Instance, InstanceId, Mesh, PointQueries,
    QueryOptions, Ray, RayQueries, Scene, TriMesh, MIN_SORTED_RAYS,
};
use meshcast_primitives::{distance_squared, Triangle};
use meshcast_testkit::{icosphere, rng};
use rand::Rng;

/// The offsets of the table, and the origin itself.
const OFFSETS: [[f64; 3]; 5] = [
    [0.0, 0.0, 0.0],
    [1000.0, 0.0, 0.0],
    [500_123.37, 5_000_456.71, 100.0],
    [6_378_137.0, 0.0, 0.0],
    [1e7, 1e7, 1e7],
];

/// The relative tolerance of the targets, times the sphere's size (its diameter, 2).
const TOLERANCE: f64 = 1e-6 * 2.0;

/// Where the scene's instances lie around its offset: kilometres apart, one of them turned
/// about the vertical axis (rays run along z, so its hits are the sphere's turned ones).
const PLACES: [([f64; 3], f64); 4] = [
    ([0.0, 0.0, 0.0], 0.0),
    ([3000.0, 0.0, 0.0], 0.0),
    ([0.0, 2000.0, 0.0], 0.7),
    ([1500.0, -2500.0, 40.0], 0.0),
];

/// Instance `i`'s placement around `offset`: turned, then moved to its place.
fn placement(offset: DVec3, i: usize) -> DAffine3 {
    let (at, angle) = PLACES[i];
    DAffine3::from_rotation_translation(DQuat::from_rotation_z(angle), offset + DVec3::from(at))
}

/// The scene of the radius-1 sphere at every place around `offset`.
fn scene_at(sphere: &Arc<Mesh>, offset: DVec3) -> Scene {
    Scene::from_instances(
        (0..PLACES.len())
            .map(|i| Instance::new(Arc::clone(sphere), placement(offset, i)).expect("placed")),
    )
}

/// A random point of the cube `[-half, half]^3`.
fn in_cube(rng: &mut impl Rng, half: f64) -> DVec3 {
    DVec3::new(
        rng.gen_range(-half..half),
        rng.gen_range(-half..half),
        rng.gen_range(-half..half),
    )
}

/// The distance in the plane z = 0 from `p` to the nearest edge of triangle `triangle`.
fn distance_to_edges(sphere: &TriMesh, triangle: u32, p: Vec2) -> f32 {
    let corners = sphere
        .triangle(triangle as usize)
        .expect("a triangle")
        .vertices();
    (0..3)
        .map(|i| {
            let (a, b) = (corners[i].truncate(), corners[(i + 1) % 3].truncate());
            let along = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            p.distance(a + (b - a) * along)
        })
        .fold(f32::INFINITY, f32::min)
}

/// What a loop over every instance answers: the first of each instance's own closest hit
/// ([`Instance::cast`]) by `t`, instance and triangle.
fn brute_force(scene: &Scene, ray: &DRay) -> Option<DSceneHit> {
    scene
        .instances()
        .filter_map(|(instance, placed)| {
            Some(DSceneHit {
                instance,
                hit: placed.cast(ray)?,
            })
        })
        .min_by(DSceneHit::order)
}

/// Every hit of every instance's carried ray, sorted.
fn brute_force_all(scene: &Scene, ray: &DRay) -> Vec<DSceneHit> {
    let mut hits: Vec<DSceneHit> = scene
        .instances()
        .flat_map(|(instance, placed)| {
            let (local, shift) = placed.carry_ray(ray);
            placed
                .mesh()
                .cast_all(&local)
                .into_iter()
                .map(move |hit| DSceneHit {
                    instance,
                    hit: DHit::carried_back(hit, shift),
                })
        })
        .collect();
    hits.sort_unstable_by(DSceneHit::order);
    hits
}

#[test]
fn far_scenes_answer_as_the_same_mesh_at_the_origin() {
    let sphere = icosphere(3);
    let mesh = Arc::new(Mesh::from_tri_mesh(sphere.clone(), &Default::default()));
    let mut rng = rng(5757);
    // Rays along -z over each instance's disc and a little beyond, in the instance's own
    // (turned) frame, from 5 m and from 10 000 km above it.
    let local: Vec<(usize, Vec2)> = (0..1200)
        .map(|k| {
            let p = Vec2::new(rng.gen_range(-1.1f32..1.1), rng.gen_range(-1.1f32..1.1));
            (k % PLACES.len(), p)
        })
        .collect();
    for start in [5.0f64, 1e7] {
        for offset in OFFSETS.map(DVec3::from) {
            let scene = scene_at(&mesh, offset);
            let rays: Vec<DRay> = local
                .iter()
                .map(|&(i, p)| {
                    let above = DVec3::new(f64::from(p.x), f64::from(p.y), start);
                    DRay::new(placement(offset, i).transform_point3(above), DVec3::NEG_Z)
                })
                .collect();
            let answers = scene.cast_batch(&rays);
            let mut differing = 0;
            for ((&(i, p), ray), answer) in local.iter().zip(&rays).zip(&answers) {
                assert_eq!(
                    *answer,
                    brute_force(&scene, ray),
                    "offset {offset}: {ray:?}"
                );
                assert_eq!(scene.occluded(ray), answer.is_some());
                let near = mesh.cast(&Ray::new(p.extend(5.0), Vec3::NEG_Z));
                let near_edge =
                    |triangle: u32| f64::from(distance_to_edges(&sphere, triangle, p)) <= TOLERANCE;
                match (near, answer) {
                    (Some(near), Some(world)) => {
                        assert_eq!(world.instance.index() as usize, i, "offset {offset}");
                        let t = world.hit.t - (start - 5.0);
                        assert!(
                            (t - f64::from(near.t)).abs() <= TOLERANCE,
                            "offset {offset}, start {start}: t {t} against {}",
                            near.t
                        );
                        if near.triangle != world.hit.triangle {
                            differing += 1;
                            assert!(near_edge(near.triangle) && near_edge(world.hit.triangle));
                        }
                    }
                    (Some(near), None) => {
                        differing += 1;
                        assert!(near_edge(near.triangle), "offset {offset}: {ray:?} lost");
                    }
                    (None, Some(world)) => {
                        differing += 1;
                        assert!(
                            near_edge(world.hit.triangle),
                            "offset {offset}: {ray:?} gained"
                        );
                    }
                    (None, None) => {}
                }
            }
            assert!(differing <= 12, "offset {offset}: {differing} rays differ");
            let hits = answers.iter().flatten().count();
            assert!(hits > 600, "offset {offset}: {hits} hits");
        }
    }
}

#[test]
fn oblique_and_grazing_rays_equal_a_loop_over_the_instances() {
    let mesh = Arc::new(Mesh::from_tri_mesh(icosphere(2), &Default::default()));
    let mut rng = rng(57057);
    for offset in OFFSETS.map(DVec3::from) {
        let scene = scene_at(&mesh, offset);
        for k in 0..400 {
            // Aimed at a point just inside or just outside a sphere's silhouette, from a
            // random direction 10 m to 10 000 km away, or from one instance across the
            // kilometres to another.
            let i = k % PLACES.len();
            let centre = placement(offset, i).transform_point3(DVec3::ZERO);
            let direction = in_cube(&mut rng, 1.0).normalize();
            let side = direction.any_orthonormal_vector();
            let target = centre + side * rng.gen_range(0.85..1.0001);
            let ray = if k % 5 == 4 {
                let from =
                    placement(offset, (i + 1) % PLACES.len()).transform_point3(DVec3::Z * 3.0);
                DRay::new(from, target - from)
            } else {
                let distance = 10f64.powf(rng.gen_range(1.0..7.0));
                DRay::new(target - direction * distance, direction * 0.5)
            };
            let closest = scene.cast(&ray);
            assert_eq!(
                closest,
                brute_force(&scene, &ray),
                "offset {offset}: {ray:?}"
            );
            assert_eq!(scene.occluded(&ray), closest.is_some());
            let all = scene.cast_all(&ray);
            assert_eq!(
                all,
                brute_force_all(&scene, &ray),
                "offset {offset}: {ray:?}"
            );
            assert_eq!(scene.count(&ray), all.len());
        }
    }
}

#[test]
fn far_scene_batches_in_every_order_answer_as_single_rays() {
    // Enough scattered rays for a sorted batch to be sorted (`MIN_SORTED_RAYS`): each aimed
    // from 10 m to 10 km away at a point near a random instance, some of them cut short.
    let mesh = Arc::new(Mesh::from_tri_mesh(icosphere(2), &Default::default()));
    let mut rng = rng(57575);
    for offset in [OFFSETS[0], OFFSETS[2]].map(DVec3::from) {
        let scene = scene_at(&mesh, offset);
        let rays: Vec<DRay> = (0..MIN_SORTED_RAYS + 300)
            .map(|k| {
                let centre = placement(offset, k % PLACES.len()).transform_point3(DVec3::ZERO);
                let target = centre + in_cube(&mut rng, 1.2);
                let direction = in_cube(&mut rng, 1.0);
                let from = target - direction * 10f64.powf(rng.gen_range(1.0..4.0));
                let ray = DRay::new(from, direction);
                if k % 7 == 3 {
                    ray.with_range(0.0, rng.gen_range(0.0..20.0))
                } else {
                    ray
                }
            })
            .collect();
        let closest: Vec<_> = rays.iter().map(|ray| scene.cast(ray)).collect();
        let any: Vec<_> = rays.iter().map(|ray| scene.occluded(ray)).collect();
        let hits = closest.iter().flatten().count();
        assert!(hits > rays.len() / 4 && hits < rays.len(), "{hits} hits");
        for order in [BatchOrder::Caller, BatchOrder::Sorted, BatchOrder::Auto] {
            let options = QueryOptions::new().with_order(order);
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a thread pool");
                let (batch, occluded) = pool.install(|| {
                    (
                        scene.cast_batch_with(&rays, &options),
                        scene.occluded_batch_with(&rays, &options),
                    )
                });
                let context = format!("offset {offset}, {order:?}, {threads} threads");
                assert_eq!(batch, closest, "{context}");
                assert_eq!(occluded, any, "{context}");
            }
        }
    }
}

#[test]
fn options_layers_and_limits_are_kept() {
    let mesh = Arc::new(Mesh::from_tri_mesh(icosphere(2), &Default::default()));
    let offset = DVec3::new(500_123.37, 5_000_456.71, 100.0);
    let mut scene = scene_at(&mesh, offset);
    // Through instances 0 and 1, 3 km apart, from 10 m before the first.
    let start = offset + DVec3::new(-10.0, 0.0, 0.0);
    let ray = DRay::new(start, DVec3::X);
    let first = scene.cast(&ray).expect("a hit");
    assert_eq!(first.instance.index(), 0);
    assert!((first.hit.t - 9.0).abs() < 0.1, "{first:?}");
    assert_eq!(scene.count(&ray), 4);
    // Every hit, and the first three: the scene's first three in hit order, across instances.
    let every = scene.cast_all(&ray);
    assert_eq!(every.len(), 4);
    let three = QueryOptions::new().with_max_hits(3);
    assert_eq!(scene.cast_all_with(&ray, &three), every[..3]);
    assert_eq!(scene.count_with(&ray, &three), 3);
    assert_eq!(
        scene.count_with(&ray, &QueryOptions::new().with_max_hits(0)),
        0
    );
    let batch = scene.cast_batch_with(&[ray, ray.with_range(0.0, 5.0)], &three);
    assert_eq!(batch, [Some(first), None]);
    // The second one beyond a distance limit, behind a filter, off the mask.
    let skip_first =
        QueryOptions::new().with_filter(|instance: InstanceId, _| instance.index() != 0);
    let second = scene.cast_with(&ray, &skip_first).expect("a hit");
    assert_eq!(second.instance.index(), 1);
    assert!((second.hit.t - 3009.0).abs() < 0.1, "{second:?}");
    assert!(scene
        .cast_with(&ray, &skip_first.with_max_distance(3000.0))
        .is_none());
    scene
        .set_layers(InstanceId::from_index(0), 2)
        .expect("held");
    let hit = scene
        .cast_with(&ray, &QueryOptions::new().with_mask(1))
        .expect("a hit");
    assert_eq!(hit.instance.index(), 1);
    assert!(!scene.occluded_with(
        &ray.with_range(0.0, 100.0),
        &QueryOptions::new().with_mask(1)
    ));
    assert!(scene.occluded_with(&ray.with_range(0.0, 100.0), &QueryOptions::new()));
}

#[test]
fn an_instance_moves_by_an_f64_placement() {
    let square = Arc::new(
        Mesh::from_triangles(
            &[
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
            &[[0, 1, 2], [0, 2, 3]],
        )
        .expect("a square"),
    );
    let mut scene = Scene::new();
    let id = scene.add(Instance::new(Arc::clone(&square), Affine3A::IDENTITY).expect("placed"));
    let other = scene
        .add(Instance::new(square, Affine3A::from_translation(Vec3::X * 5.0)).expect("placed"));
    // 6378 km east, 30 cm past a float step there: an f32 placement would lose it.
    let far = DVec3::new(6_378_137.3, 0.0, 0.0);
    scene
        .set_transform(id, DAffine3::from_translation(far))
        .expect("moved");
    let placed = scene.instance(id).expect("held");
    assert_eq!(placed.placement(), DAffine3::from_translation(far));
    assert_eq!(placed.exact_transform(), DAffine3::from_translation(far));
    let down = |x: f64| DRay::new(DVec3::new(x, 0.5, 2.0), DVec3::NEG_Z);
    assert_eq!(
        scene
            .cast(&down(far.x + 0.02))
            .map(|hit| (hit.instance, hit.hit.t)),
        Some((id, 2.0))
    );
    assert_eq!(scene.cast(&down(far.x - 0.02)), None);
    assert_eq!(
        scene.cast(&down(far.x + 0.98)).map(|hit| hit.instance),
        Some(id)
    );
    assert_eq!(scene.cast(&down(far.x + 1.02)), None);
    assert_eq!(scene.cast(&down(0.5)), None);
    assert_eq!(scene.cast(&down(5.5)).map(|hit| hit.instance), Some(other));
    // Every move of several refits: the f64 culling follows.
    scene
        .set_transforms([(
            other,
            Affine3A::from_translation(Vec3::new(100.0, 0.0, 0.0)),
        )])
        .expect("moved");
    assert_eq!(
        scene.cast(&down(100.5)).map(|hit| hit.instance),
        Some(other)
    );
    assert!(scene
        .set_transform(id, DAffine3::from_scale(DVec3::ZERO))
        .is_err());
    assert_eq!(
        scene.instance(id).expect("held").placement().translation,
        far
    );
}

#[test]
fn a_far_mesh_keeps_its_place_when_its_mesh_is_replaced() {
    let sphere = icosphere(2);
    let offset = DVec3::new(500_123.37, 5_000_456.71, 100.0);
    let positions: Vec<[f64; 3]> = sphere
        .positions()
        .iter()
        .map(|p| (p.as_dvec3() + offset).to_array())
        .collect();
    let far =
        Arc::new(Mesh::from_world_triangles(&positions, sphere.indices()).expect("a far mesh"));
    let mut scene = Scene::new();
    let id = scene.add(Instance::new(Arc::clone(&far), Affine3A::IDENTITY).expect("placed"));
    let down = DRay::new(offset + DVec3::new(0.1, 0.2, 5.0), DVec3::NEG_Z);
    let before = scene.cast(&down).expect("a hit");
    assert!((before.hit.t - 4.0).abs() < 0.1, "{before:?}");
    scene.set_mesh(id, far).expect("replaced");
    assert_eq!(scene.cast(&down), Some(before));
    assert_eq!(
        scene.instance(id).expect("held").placement(),
        DAffine3::IDENTITY
    );
}

#[test]
fn degenerate_f64_rays_miss_a_scene() {
    let mesh = Arc::new(Mesh::from_tri_mesh(icosphere(1), &Default::default()));
    let offset = DVec3::new(6_378_137.0, 0.0, 0.0);
    let scene = scene_at(&mesh, offset);
    for ray in [
        DRay::new(DVec3::splat(f64::NAN), DVec3::X),
        DRay::new(offset + DVec3::Z * 5.0, DVec3::ZERO),
        DRay::new(
            offset + DVec3::Z * 5.0,
            DVec3::new(0.0, 0.0, f64::NEG_INFINITY),
        ),
        DRay::new(offset + DVec3::Z * 5.0, DVec3::NEG_Z).with_range(3.0, 2.0),
        DRay::new(DVec3::new(f64::INFINITY, 0.0, 0.0), DVec3::NEG_X),
        DRay::new(offset + DVec3::Z * 5.0, DVec3::NEG_Z).with_range(f64::NAN, 10.0),
    ] {
        assert_eq!(scene.cast(&ray), None, "{ray:?}");
        assert!(!scene.occluded(&ray));
        assert!(scene.cast_all(&ray).is_empty());
        assert_eq!(scene.count(&ray), 0);
        assert_eq!(scene.cast_batch(&[ray]), [None]);
        assert_eq!(scene.occluded_batch(&[ray]), [false]);
    }
    // A negative or NaN distance limit finds nothing either.
    let down = DRay::new(offset + DVec3::Z * 5.0, DVec3::NEG_Z);
    assert!(scene.cast(&down).is_some());
    for limit in [-1.0, f32::NAN] {
        assert_eq!(
            scene.cast_with(&down, &QueryOptions::new().with_max_distance(limit)),
            None
        );
    }
    assert!(Scene::new().cast(&down).is_none());
}

#[test]
fn f32_queries_of_a_scene_placed_by_f64_transforms_are_unchanged() {
    // An instance's f32 transform is the rounding of its f64 one, and the f32 queries use
    // it as before: a scene near the origin answers f32 rays as one built from f32
    // transforms, and an f64 ray that is an f32 ray near the instances gets the same answer.
    let mesh = Arc::new(Mesh::from_tri_mesh(icosphere(2), &Default::default()));
    let f64_scene = scene_at(&mesh, DVec3::ZERO);
    let f32_scene = Scene::from_instances((0..PLACES.len()).map(|i| {
        let transform = placement(DVec3::ZERO, i).as_affine3a();
        Instance::new(Arc::clone(&mesh), transform).expect("placed")
    }));
    let mut rng = rng(75);
    for k in 0..300 {
        let i = k % PLACES.len();
        let (at, _) = PLACES[i];
        let target = DVec3::from(at).as_vec3()
            + Vec3::new(rng.gen_range(-1.2..1.2), rng.gen_range(-1.2..1.2), 0.0);
        let ray = Ray::new(target + Vec3::Z * 3.0, Vec3::NEG_Z);
        let instance = f64_scene
            .instance(InstanceId::from_index(i as u32))
            .expect("held");
        // The turned instance's f64 rotation is not an f32 one: its f32 queries use the
        // f64 inverse, as they always have, and the f32 scene's the rounded rotation's.
        if PLACES[i].1 == 0.0 {
            assert_eq!(f64_scene.cast(&ray), f32_scene.cast(&ray));
            assert_eq!(
                instance.exact_transform(),
                instance.transform().as_daffine3()
            );
            // Translations of whole metres carry an f32 ray exactly: the same bits.
            let world = f64_scene.cast(&DRay::from(ray));
            let expected = f32_scene.cast(&ray);
            assert_eq!(
                world.map(|hit| (hit.instance, hit.hit.t, hit.hit.triangle)),
                expected.map(|hit| (hit.instance, f64::from(hit.hit.t), hit.hit.triangle))
            );
        }
    }
}

#[test]
fn far_instances_meet_and_part_as_at_the_origin() {
    let sphere = Arc::new(Mesh::from_tri_mesh(icosphere(2), &Default::default()));
    // Pairs of spheres side by side along x: crossing, a centimetre apart, a millimetre
    // apart. An `f32` placement rounds these offsets by up to half a metre.
    let gaps = [-0.05f64, 0.01, 0.001];
    let pair_at = |offset: DVec3, gap: f64| {
        let place = |x: f64| {
            let at = DAffine3::from_translation(offset + DVec3::new(x, 0.0, 0.0));
            Instance::new(Arc::clone(&sphere), at).expect("placed")
        };
        // The icosphere's widest points along x lie at +-1 (a vertex pair): `gap` apart.
        (place(0.0), place(2.0 + gap))
    };
    let at_origin: Vec<(bool, Option<f64>)> = gaps
        .iter()
        .map(|&gap| {
            let (a, b) = pair_at(DVec3::ZERO, gap);
            (
                a.intersects(&b),
                a.world_mesh_distance(&b, None).map(|d| d.distance),
            )
        })
        .collect();
    assert_eq!(at_origin.iter().filter(|(meet, _)| *meet).count(), 1);
    for offset in OFFSETS.map(DVec3::from) {
        for (&gap, &(meet, distance)) in gaps.iter().zip(&at_origin) {
            let (a, b) = pair_at(offset, gap);
            assert_eq!(a.intersects(&b), meet, "offset {offset}, gap {gap}");
            assert_eq!(a.intersecting_pairs(&b).is_empty(), !meet);
            let far = a
                .world_mesh_distance(&b, None)
                .expect("both have triangles");
            let distance = distance.expect("both have triangles");
            assert!(
                (far.distance - distance).abs() <= TOLERANCE,
                "offset {offset}, gap {gap}: {} against {distance}",
                far.distance
            );
            // The points lie on the spheres, in world coordinates at the offset.
            for (point, centre) in [(far.point_on_self, 0.0), (far.point_on_other, 2.0 + gap)] {
                let radius = (point - offset - DVec3::new(centre, 0.0, 0.0)).length();
                assert!((radius - 1.0).abs() < 0.02, "offset {offset}: {point}");
            }
            // The scene's forms: the pair's collision, the nearest pair, a probe placed by
            // an f64 transform where the second sphere is.
            let scene = Scene::from_instances([a, b]);
            let pairs = scene.colliding_pairs();
            assert_eq!(pairs.len(), usize::from(meet), "offset {offset}, gap {gap}");
            let (first, second, nearest) = scene
                .world_nearest_instances(None, None)
                .expect("no unknown instance")
                .expect("a pair");
            assert_eq!((first.index(), second.index()), (0, 1));
            assert_eq!(nearest.distance, far.distance);
            let probe_at = DAffine3::from_translation(offset + DVec3::new(2.0 + gap, 0.0, 0.0));
            let hit = scene.intersecting_instances(&sphere, &probe_at, meshcast::ALL_LAYERS);
            assert_eq!(
                hit.len(),
                1 + usize::from(meet),
                "offset {offset}, gap {gap}"
            );
            let (nearest_id, probe_gap) = scene
                .world_mesh_distance(&sphere, &probe_at, meshcast::ALL_LAYERS, Some(1.0))
                .expect("within a metre");
            // Both touch the probe when they meet: the smaller id is answered.
            let nearest_expected = if meet { 0 } else { 1 };
            assert_eq!(
                (nearest_id.index(), probe_gap.distance),
                (nearest_expected, 0.0)
            );
        }
    }
}

#[test]
fn far_picks_give_world_points_in_f64() {
    let sphere = icosphere(3);
    let mesh = Arc::new(Mesh::from_tri_mesh(sphere.clone(), &Default::default()));
    let mut rng = rng(5758);
    let options = QueryOptions::new();
    for offset in OFFSETS.map(DVec3::from) {
        let scene = scene_at(&mesh, offset);
        for k in 0..300 {
            let i = k % PLACES.len();
            let p = DVec3::new(rng.gen_range(-1.1..1.1), rng.gen_range(-1.1..1.1), 5.0);
            let ray = DRay::new(placement(offset, i).transform_point3(p), DVec3::NEG_Z);
            let pick = scene.pick(&ray, &options);
            assert_eq!(pick.map(|p| p.scene_hit()), scene.cast(&ray), "{ray:?}");
            let Some(pick) = pick else { continue };
            assert_eq!(pick.instance.index() as usize, i);
            assert_eq!(pick.distance, pick.hit.t);
            // The point lies on the ray and on the sphere, at full precision.
            let on_ray = ray.origin + ray.dir * pick.hit.t;
            assert!(pick.point.distance(on_ray) <= TOLERANCE, "offset {offset}");
            let centre = placement(offset, i).translation;
            assert!((pick.point.distance(centre) - 1.0).abs() < 0.02);
            // Rays from above meet the sphere's outside.
            assert_eq!(pick.facing, meshcast::Facing::Front);
            let outwards = (pick.point - centre).as_vec3();
            assert!(pick.surface.geometric_normal.dot(outwards) > 0.9);
            let every = scene.pick_instances(&ray, &options);
            assert_eq!(every.len(), 1);
            assert_eq!(every[0], pick);
        }
        // A ray along the row of instances 0 and 1 (3 km apart on x) picks both, nearest
        // first.
        let along = DRay::new(offset + DVec3::new(-10.0, 0.0, 0.0), DVec3::X);
        let picks = scene.pick_instances(&along, &options);
        let order: Vec<u32> = picks.iter().map(|p| p.instance.index()).collect();
        assert_eq!(order, [0, 1], "offset {offset}");
        assert!((picks[1].point.x - (offset.x + 2999.0)).abs() < 0.02);
    }
}

#[test]
fn far_scenes_tell_inside_from_outside_as_at_the_origin() {
    let sphere = Arc::new(Mesh::from_tri_mesh(icosphere(3), &Default::default()));
    let mut rng = rng(5759);
    let points: Vec<(usize, DVec3)> = (0..400)
        .map(|k| {
            let p = in_cube(&mut rng, 1.3);
            (k % PLACES.len(), p)
        })
        .collect();
    let near = scene_at(&sphere, DVec3::ZERO);
    for offset in OFFSETS.map(DVec3::from) {
        let scene = scene_at(&sphere, offset);
        let mut inside = 0;
        for &(i, p) in &points {
            let at_origin = placement(DVec3::ZERO, i).transform_point3(p);
            let world = placement(offset, i).transform_point3(p);
            let expected = near.contains(at_origin);
            inside += usize::from(expected);
            // Within rounding of the surface either answer is right.
            if (p.length() - 1.0).abs() > 0.02 {
                assert_eq!(scene.contains(world), expected, "{offset} {p}");
                let winding = scene.winding_number(world);
                assert!(
                    (winding - f64::from(u8::from(expected))).abs() < 1e-3,
                    "{winding}"
                );
            }
        }
        assert!(inside > 50, "{inside} inside");
    }
    assert!(!near.contains(DVec3::NAN));
    assert!(near.winding_number(DVec3::INFINITY).is_nan());
}

/// What a loop over every instance's every triangle answers for the closest point to `q`:
/// each triangle carried to `q` as the engine carries it (`T(-q) M` rounded to `f32` once),
/// the nearest by squared distance in `f32`, then instance, then triangle.
fn brute_force_closest(scene: &Scene, q: DVec3) -> Option<(InstanceId, u32, f32)> {
    let mut best: Option<(f32, InstanceId, u32)> = None;
    for (id, instance) in scene.instances() {
        let carry = (DAffine3::from_translation(-q) * instance.exact_transform()).as_affine3a();
        for (index, local) in instance.mesh().tri_mesh().triangles().enumerate() {
            let carried = Triangle::new(
                carry.transform_point3(local.v0),
                carry.transform_point3(local.v1),
                carry.transform_point3(local.v2),
            );
            if carried.is_degenerate() {
                continue;
            }
            let d = distance_squared(carried.closest_point(Vec3::ZERO).point, Vec3::ZERO);
            let candidate = (d, id, index as u32);
            if best.is_none_or(|b| {
                (candidate.0, candidate.1.index(), candidate.2) < (b.0, b.1.index(), b.2)
            }) {
                best = Some(candidate);
            }
        }
    }
    best.map(|(d, id, index)| (id, index, d.sqrt()))
}

#[test]
fn far_scenes_find_closest_points_as_at_the_origin() {
    let sphere = Arc::new(Mesh::from_tri_mesh(icosphere(3), &Default::default()));
    let mut rng = rng(5760);
    // Around each instance: inside, near the surface, a few metres out; and far from all.
    let points: Vec<(usize, DVec3)> = (0..240)
        .map(|k| {
            let reach = [1.3, 4.0, 900.0][k % 3];
            let p = in_cube(&mut rng, reach);
            (k % PLACES.len(), p)
        })
        .collect();
    let near = scene_at(&sphere, DVec3::ZERO);
    let options = QueryOptions::new();
    for offset in OFFSETS.map(DVec3::from) {
        let scene = scene_at(&sphere, offset);
        for &(i, p) in &points {
            let world = placement(offset, i).transform_point3(p);
            let found = scene.closest_point(world, &options).expect("a point");
            // Bit for bit what the loop over every carried triangle finds: the top level
            // culled no instance it should keep.
            let (instance, triangle, distance) =
                brute_force_closest(&scene, world).expect("a triangle");
            assert_eq!(
                (found.instance, found.closest.triangle),
                (instance, triangle),
                "{offset} {p}"
            );
            assert!(
                (found.closest.distance - f64::from(distance)).abs()
                    <= 1e-6 * found.closest.distance.max(1.0)
            );
            // And what the same scene at the origin finds, up to the rounding at the
            // sphere's scale: the same distance, the same point relative to the instance.
            let expected = near
                .closest_point(placement(DVec3::ZERO, i).transform_point3(p), &options)
                .expect("a point");
            assert_eq!(found.instance, expected.instance, "{offset} {p}");
            let tolerance = TOLERANCE * (1.0 + p.length() * 1e-3);
            assert!(
                (found.closest.distance - expected.closest.distance).abs() <= tolerance,
                "{offset} {p}: {} against {}",
                found.closest.distance,
                expected.closest.distance
            );
            let relative = found.closest.point - offset;
            assert!(
                relative.distance(expected.closest.point) <= tolerance,
                "{offset} {p}: {relative} against {}",
                expected.closest.point
            );
            if expected.closest.feature == Feature::Face
                && (p.length() - 1.0).abs() > 0.05
                && p.length() < 10.0
            {
                assert_eq!(
                    found.closest.triangle, expected.closest.triangle,
                    "{offset} {p}"
                );
            }
            // Signed: negative inside, as the scene at the origin says.
            let signed = scene.signed_distance(world).expect("a distance");
            if (p.length() - 1.0).abs() > 0.02 {
                assert_eq!(signed < 0.0, p.length() < 1.0, "{offset} {p}: {signed}");
            }
        }
        // Limits, layers and filters are kept.
        let (i, p) = points[1];
        let world = placement(offset, i).transform_point3(p);
        let found = scene.closest_point(world, &options).expect("a point");
        let short = QueryOptions::new().with_max_distance((found.closest.distance * 0.99) as f32);
        assert_eq!(scene.closest_point(world, &short), None);
        let other = scene
            .closest_point(
                world,
                &QueryOptions::new().with_filter(|id: InstanceId, _: u32| id != found.instance),
            )
            .expect("another instance");
        assert_ne!(other.instance, found.instance);
        assert!(other.closest.distance >= found.closest.distance);
    }
    assert_eq!(near.closest_point(DVec3::NAN, &options), None);
    assert_eq!(near.signed_distance(DVec3::INFINITY), None);
    assert_eq!(Scene::new().closest_point(DVec3::ZERO, &options), None);
}
