//! Editor queries against brute force: closest points, selection by box, sphere and marquee
//! frustum, and picks with every query option, on the assets and on random scenes of
//! hundreds of instances with random rotations and non-uniform (and mirroring) scales.

use std::sync::Arc;

use glam::{Affine3A, Vec2, Vec3};
use meshcast::MeshFiles;
use meshcast_mesh::{
    Contacts, Containment, Culling, Facing, Instance, InstanceId, Mesh, PointQueries, QueryOptions,
    RayQueries, Scene, ALL_LAYERS,
};
use meshcast_primitives::{
    Aabb, Camera, ClipPlanes, DepthConvention, Ray, Sphere, Triangle, Volume,
};
use meshcast_testkit::{
    asset, brute_force_closest, brute_force_hits, brute_force_select, brute_force_select_triangles,
    query_point, random_direction, random_scene, rng, same_hit, small_meshes, world_triangles,
    Rules,
};
use rand::Rng;

fn scene_and_triangles(count: usize, seed: u64) -> (Scene, Vec<(InstanceId, u32, Triangle)>) {
    let scene = random_scene(&small_meshes(), count, 40.0, seed);
    let triangles = world_triangles(&scene, ALL_LAYERS, &|_, _| true);
    (scene, triangles)
}

#[test]
fn scene_closest_point_matches_brute_force() {
    let (scene, triangles) = scene_and_triangles(300, 11);
    let mut rng = rng(12);
    for round in 0..40 {
        let query = query_point(&mut rng, &scene, &triangles);
        let max_distance = if round % 3 == 0 {
            rng.gen_range(0.5..6.0)
        } else {
            f32::INFINITY
        };
        let options = QueryOptions::new().with_max_distance(max_distance);
        let got = scene.closest_point(query, &options);
        let expected = brute_force_closest(&triangles, query, max_distance);
        assert_eq!(
            got.map(|c| (c.instance, c.closest.triangle, c.closest.point)),
            expected,
            "round {round}: query {query}, max {max_distance}"
        );
        if let Some(c) = got {
            assert!(
                (c.closest.distance - c.closest.point.distance(query)).abs()
                    <= 1e-5 * (1.0 + c.closest.distance)
            );
            // The barycentrics rebuild the point on the instance's world triangle.
            let world = scene
                .instance(c.instance)
                .and_then(|i| i.world_triangle(c.closest.triangle as usize))
                .expect("exists");
            let rebuilt = c.closest.to_hit().point(&world);
            assert!(
                rebuilt.distance(c.closest.point)
                    <= 1e-4 * (1.0 + world.bounds().extent().length())
            );
        }
    }
}

#[test]
fn scene_closest_point_respects_masks_and_filters() {
    let (scene, _) = scene_and_triangles(200, 21);
    let mut rng = rng(22);
    let keep = |id: InstanceId, triangle: u32| !id.index().is_multiple_of(3) && triangle % 5 != 1;
    let mask = 0b0101;
    let kept = world_triangles(&scene, mask, &keep);
    for _ in 0..25 {
        let query = query_point(&mut rng, &scene, &kept);
        let options = QueryOptions::new().with_mask(mask).with_filter(keep);
        let got = scene.closest_point(query, &options);
        let expected = brute_force_closest(&kept, query, f32::INFINITY);
        assert_eq!(
            got.map(|c| (c.instance, c.closest.triangle, c.closest.point)),
            expected
        );
        let c = got.expect("a kept triangle exists");
        assert!(keep(c.instance, c.closest.triangle));
        let layers = scene
            .instance(c.instance)
            .map(Instance::layers)
            .expect("exists");
        assert_ne!(layers & mask, 0);
    }
    // Nothing for a NaN query, a negative or NaN limit, or a mask no instance is on.
    let options = QueryOptions::new();
    assert!(scene.closest_point(Vec3::NAN, &options).is_none());
    assert!(scene
        .closest_point(Vec3::ZERO, &options.with_max_distance(-1.0))
        .is_none());
    assert!(scene
        .closest_point(Vec3::ZERO, &options.with_max_distance(f32::NAN))
        .is_none());
    assert!(scene
        .closest_point(Vec3::ZERO, &options.with_mask(1 << 20))
        .is_none());
}

#[test]
fn mesh_closest_point_matches_brute_force_on_assets() {
    let mut rng = rng(31);
    for name in ["cow.obj", "teapot.obj", "fandisk.obj", "suzanne.obj"] {
        let mesh = Mesh::from_obj(asset(name)).expect("loads");
        let scene =
            Scene::from_instances([
                Instance::new(Arc::new(mesh.clone()), Affine3A::IDENTITY).expect("identity")
            ]);
        let triangles = world_triangles(&scene, ALL_LAYERS, &|_, _| true);
        for _ in 0..30 {
            let query = query_point(&mut rng, &scene, &triangles);
            let got = mesh.closest_point(query, &QueryOptions::new());
            let expected = brute_force_closest(&triangles, query, f32::INFINITY);
            assert_eq!(
                got.map(|c| (c.triangle, c.point)),
                expected.map(|(_, t, p)| (t, p)),
                "{name}: {query}"
            );
        }
    }
}

/// A box, a sphere and a marquee frustum around random parts of the scene.
fn volumes(rng: &mut rand_pcg::Pcg64, scene: &Scene) -> Vec<Volume> {
    let bounds = scene.bounds();
    let centre = bounds.min + bounds.extent() * Vec3::new(rng.gen(), rng.gen(), rng.gen());
    let size = bounds.extent().max_element() * rng.gen_range(0.05..0.3);
    let camera = Camera::new(
        centre + random_direction(rng) * bounds.extent().length(),
        centre,
        Vec3::Y,
        50.0,
        1.0,
    );
    let viewport = camera
        .viewport(
            400,
            400,
            ClipPlanes::new(1.0, 500.0),
            DepthConvention::ZeroToOne,
        )
        .expect("valid");
    let (a, b) = (
        Vec2::new(rng.gen_range(100.0..200.0), rng.gen_range(100.0..200.0)),
        Vec2::new(rng.gen_range(200.0..300.0), rng.gen_range(200.0..300.0)),
    );
    vec![
        Volume::Box(Aabb::new(centre - size, centre + size * 0.6)),
        Volume::Sphere(Sphere::new(centre, size)),
        Volume::Frustum(viewport.marquee(a, b).expect("has area")),
    ]
}

#[test]
fn scene_selection_matches_brute_force() {
    let (scene, triangles) = scene_and_triangles(300, 41);
    let mut rng = rng(42);
    let options = QueryOptions::new();
    for round in 0..6 {
        for volume in volumes(&mut rng, &scene) {
            for containment in [Containment::Intersecting, Containment::Inside] {
                let got = scene.select(&volume, containment, &options);
                let expected = brute_force_select(&triangles, &volume, containment);
                assert_eq!(got, expected, "round {round} {containment:?} {volume:?}");
                let got = scene.select_triangles(&volume, containment, &options);
                let expected = brute_force_select_triangles(&triangles, &volume, containment);
                assert_eq!(got, expected, "round {round} {containment:?} triangles");
            }
        }
    }
    // A volume around everything holds every instance whole.
    let everything = Volume::Box(Aabb::new(
        scene.bounds().min - 1.0,
        scene.bounds().max + 1.0,
    ));
    assert_eq!(
        scene
            .select(&everything, Containment::Inside, &options)
            .len(),
        scene.len()
    );
}

#[test]
fn scene_selection_respects_masks_and_filters() {
    let (scene, _) = scene_and_triangles(200, 51);
    let mut rng = rng(52);
    let keep = |id: InstanceId, triangle: u32| id.index() % 4 != 1 && triangle.is_multiple_of(2);
    let mask = 0b0011;
    let kept = world_triangles(&scene, mask, &keep);
    let options = QueryOptions::new().with_mask(mask).with_filter(keep);
    for volume in (0..4).flat_map(|_| volumes(&mut rng, &scene)) {
        for containment in [Containment::Intersecting, Containment::Inside] {
            assert_eq!(
                scene.select(&volume, containment, &options),
                brute_force_select(&kept, &volume, containment)
            );
            assert_eq!(
                scene.select_triangles(&volume, containment, &options),
                brute_force_select_triangles(&kept, &volume, containment)
            );
        }
    }
}

#[test]
fn mesh_selection_matches_brute_force_on_assets() {
    let mut rng = rng(61);
    for name in ["cow.obj", "teapot.obj", "homer.obj"] {
        let mesh = Arc::new(Mesh::from_obj(asset(name)).expect("loads"));
        let scene = Scene::from_instances([
            Instance::new(mesh.clone(), Affine3A::IDENTITY).expect("identity")
        ]);
        let triangles = world_triangles(&scene, ALL_LAYERS, &|_, _| true);
        for volume in (0..3).flat_map(|_| volumes(&mut rng, &scene)) {
            for containment in [Containment::Intersecting, Containment::Inside] {
                let got = mesh.select_triangles(&volume, containment, &QueryOptions::new());
                let expected: Vec<u32> =
                    brute_force_select_triangles(&triangles, &volume, containment)
                        .into_iter()
                        .map(|t| t.triangle)
                        .collect();
                assert_eq!(got, expected, "{name} {containment:?}");
            }
        }
    }
}

/// Rays from around the scene towards random world vertices.
fn rays(
    rng: &mut rand_pcg::Pcg64,
    scene: &Scene,
    triangles: &[(InstanceId, u32, Triangle)],
    count: usize,
) -> Vec<Ray> {
    let radius = scene.bounds().extent().length();
    (0..count)
        .map(|_| {
            let (_, _, t) = triangles[rng.gen_range(0..triangles.len())];
            let target = t.centroid();
            let origin = scene.bounds().centroid() + random_direction(rng) * radius;
            Ray::new(origin, (target - origin) * rng.gen_range(0.1..3.0))
        })
        .collect()
}

#[test]
fn picks_with_every_option_match_brute_force() {
    let (scene, triangles) = scene_and_triangles(250, 71);
    let mut rng = rng(72);
    let keep = |id: InstanceId, triangle: u32| id.index() % 5 != 2 && triangle % 7 != 3;
    for (round, ray) in rays(&mut rng, &scene, &triangles, 60)
        .into_iter()
        .enumerate()
    {
        let culling = if round % 2 == 0 {
            Culling::Off
        } else {
            Culling::BackFaces
        };
        let mask = [ALL_LAYERS, 0b0110][round % 4 / 2];
        let max_distance = if round % 3 == 0 {
            rng.gen_range(10.0..80.0)
        } else {
            f32::INFINITY
        };
        let contacts = [Contacts::Hit, Contacts::TieRule][round % 8 / 4];
        let options = QueryOptions::new()
            .with_culling(culling)
            .with_contacts(contacts)
            .with_mask(mask)
            .with_max_distance(max_distance)
            .with_filter(keep);
        // Every hit counts crossings by the tie rule; the closest hits follow `contacts`.
        let crossings = Rules::new(culling, Contacts::TieRule);
        let expected = brute_force_hits(&scene, &ray, max_distance, crossings, mask, &keep);
        let rules = Rules::new(culling, contacts);
        let touching = brute_force_hits(&scene, &ray, max_distance, rules, mask, &keep);
        let got = scene.cast_with(&ray, &options);
        let first = touching.first().copied();
        assert!(
            got.map(|h| h.instance) == first.map(|h| h.instance)
                && same_hit(got.map(|h| h.hit), first.map(|h| h.hit)),
            "round {round}: {got:?} vs {first:?}"
        );
        assert_eq!(scene.occluded_with(&ray, &options), first.is_some());
        assert_eq!(scene.cast_all_with(&ray, &options), expected);
        // Every instance once, with its own nearest hit, nearest first.
        let mut seen = Vec::new();
        let per_instance: Vec<_> = touching
            .iter()
            .filter(|h| {
                let new = !seen.contains(&h.instance);
                seen.push(h.instance);
                new
            })
            .map(|h| (h.instance, h.hit.triangle, h.hit.t))
            .collect();
        let picks = scene.pick_instances(&ray, &options);
        let got: Vec<_> = picks
            .iter()
            .map(|p| (p.instance, p.hit.triangle, p.hit.t))
            .collect();
        assert_eq!(got, per_instance, "round {round}");
        if let Some(pick) = scene.pick(&ray, &options) {
            assert_eq!(
                Some(pick.scene_hit()),
                got.first().map(|_| picks[0].scene_hit())
            );
            assert!(pick.distance <= max_distance);
            assert!(culling == Culling::Off || pick.facing == Facing::Front);
            assert!(pick.surface.point.distance(ray.at(pick.hit.t)) < 1e-2 * (1.0 + pick.distance));
            // The side agrees with the world winding normal, mirrored instances included.
            let front = pick.surface.geometric_normal.dot(ray.dir) <= 0.0;
            if pick.surface.geometric_normal.dot(ray.dir.normalize()).abs() > 1e-3 {
                assert_eq!(front, pick.facing == Facing::Front, "round {round}");
            }
        }
    }
}

#[test]
fn a_filtered_out_hit_is_never_returned_and_the_next_one_behind_is() {
    let (scene, triangles) = scene_and_triangles(250, 81);
    let mut rng = rng(82);
    let mut checked = 0;
    for ray in rays(&mut rng, &scene, &triangles, 60) {
        // Every hit the default options' closest hits choose among (contacts hitting).
        let all = brute_force_hits(
            &scene,
            &ray,
            f32::INFINITY,
            Rules::new(Culling::Off, Contacts::Hit),
            ALL_LAYERS,
            &|_, _| true,
        );
        let Some(first) = all.first().copied() else {
            continue;
        };
        // Hide the first instance hit (the object being dragged): the next instance behind.
        let hidden = first.instance;
        let behind = all.iter().find(|h| h.instance != hidden).copied();
        let options = QueryOptions::new().with_filter(move |id: InstanceId, _| id != hidden);
        let got = scene.pick(&ray, &options).map(|p| p.scene_hit());
        assert_eq!(
            got.map(|h| (h.instance, h.hit.triangle)),
            behind.map(|h| (h.instance, h.hit.triangle))
        );
        // Skip the first triangle only (the surface a ray starts on): the next hit.
        let (skip_instance, skip_triangle) = (first.instance, first.hit.triangle);
        let options = QueryOptions::new()
            .with_filter(move |id: InstanceId, t| (id, t) != (skip_instance, skip_triangle));
        let got = scene.cast_with(&ray, &options);
        assert_eq!(
            got.map(|h| (h.instance, h.hit.triangle)),
            all.get(1).map(|h| (h.instance, h.hit.triangle))
        );
        // Move the first instance to a layer the query does not see: same as hiding it.
        let mut layered = scene.clone();
        layered.set_layers(hidden, 1 << 31).expect("held");
        let masked = layered.pick(&ray, &QueryOptions::new().with_mask(!(1 << 31)));
        assert_eq!(masked.map(|p| p.instance), behind.map(|h| h.instance));
        checked += 1;
    }
    assert!(checked > 30, "only {checked} rays hit");
}

#[test]
fn back_face_culling_follows_mirroring_transforms() {
    // One triangle facing +z, placed as is and mirrored through the plane x = 0.
    let tri = Arc::new(
        Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])
            .expect("valid"),
    );
    for (transform, seen_from_above) in [
        (Affine3A::IDENTITY, Facing::Front),
        (
            Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
            Facing::Back,
        ),
        (
            Affine3A::from_scale(Vec3::new(-2.0, -1.0, 1.0)),
            Facing::Front,
        ),
        // Mirrored through its own plane: the corners do not move, nor does the front.
        (
            Affine3A::from_scale(Vec3::new(1.0, 1.0, -3.0)),
            Facing::Front,
        ),
    ] {
        let scene = Scene::from_instances([Instance::new(tri.clone(), transform).expect("valid")]);
        let centre = transform.transform_point3(Vec3::new(0.25, 0.25, 0.0));
        let down = Ray::new(centre + Vec3::Z * 5.0, Vec3::NEG_Z);
        let up = Ray::new(centre - Vec3::Z * 5.0, Vec3::Z);
        let pick = scene.pick(&down, &QueryOptions::new()).expect("hit");
        assert_eq!(pick.facing, seen_from_above, "{transform:?}");
        // The geometric normal faces the counter-clockwise side in the world.
        let world = scene
            .instance(pick.instance)
            .and_then(|i| i.world_triangle(0))
            .expect("exists");
        assert!(pick.surface.geometric_normal.dot(world.normal()) > 0.0);
        let culled = QueryOptions::new().with_culling(Culling::BackFaces);
        let (front_ray, back_ray) = if seen_from_above == Facing::Front {
            (down, up)
        } else {
            (up, down)
        };
        assert!(
            scene.cast_with(&front_ray, &culled).is_some(),
            "{transform:?}"
        );
        assert!(
            scene.cast_with(&back_ray, &culled).is_none(),
            "{transform:?}"
        );
        assert!(!scene.occluded_with(&back_ray, &culled));
    }
}
