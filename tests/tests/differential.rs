//! Mesh queries against the brute-force reference, on real meshes, with random and adversarial
//! rays, under every build option and leaf test: the same triangle and bit-identical `t` every
//! time.

use meshcast::{MeshFiles, TriMeshFiles};
use meshcast_bvh::{BuildOptions, Kernel, Parallel, Quality};
use meshcast_mesh::{
    Contacts, Containment, Culling, LeafTest, Mesh, PointQueries, QueryOptions, RayQueries, TriMesh,
};
use meshcast_primitives::{Aabb, Hit, Ray, Sphere, Triangle, Volume};
use meshcast_testkit::{
    adversarial_rays, asset, brute_force_cast, brute_force_cast_all, random_direction,
    random_point_in, random_rays, rng, same_hit, LeafReference,
};

/// Checks every query of `mesh` on `rays` against brute force over `triangles` with the
/// mesh's leaf test, with every node kernel this CPU runs.
fn check_against_brute_force(label: &str, mesh: &Mesh, triangles: &[Triangle], rays: &[Ray]) {
    for kernel in Kernel::supported() {
        let mut mesh = mesh.clone();
        mesh.set_kernel(kernel).expect("a supported kernel");
        check_kernel(&format!("{label} ({kernel})"), &mesh, triangles, rays);
    }
}

/// Every leaf test a mesh can run.
const LEAF_TESTS: [LeafTest; 2] = [LeafTest::Watertight, LeafTest::Transform];

/// [`check_against_brute_force`] with `mesh`'s own kernel and leaf test.
///
/// The walk skips a box once a closer hit is known, widened by a slack that bounds the
/// watertight test's rounding. The transform test's rounding has no such bound (it grows as the
/// ray grazes the plane, or starts far away), so it can report a hit outside its triangle's
/// widened box, which the walk may skip. With [`LeafTest::Transform`] only such hits may be
/// missing; with [`LeafTest::Watertight`] none.
fn check_kernel(label: &str, mesh: &Mesh, triangles: &[Triangle], rays: &[Ray]) {
    let reference = LeafReference::new(mesh.leaf_test(), triangles);
    let label = format!("{label}, {:?}", mesh.leaf_test());
    let skippable = |ray: &Ray, hit: &Hit| {
        mesh.leaf_test() == LeafTest::Transform
            && outside_own_box(&triangles[hit.triangle as usize], ray, hit.t)
    };
    for (i, ray) in rays.iter().enumerate() {
        let all = mesh.cast_all(ray);
        let expected_all = reference.cast_all(ray);
        let found = |h: &Hit| all.iter().any(|a| same_hit(Some(*a), Some(*h)));
        let missing: Vec<&Hit> = expected_all.iter().filter(|h| !found(h)).collect();
        assert_eq!(
            all.len() + missing.len(),
            expected_all.len(),
            "{label}: ray {i} {ray:?}: cast_all {all:?}, brute force {expected_all:?}"
        );
        assert!(
            missing.iter().all(|h| skippable(ray, h)),
            "{label}: ray {i} {ray:?}: cast_all missed {missing:?}"
        );
        if missing.is_empty() {
            for (a, b) in all.iter().zip(&expected_all) {
                assert!(
                    same_hit(Some(*a), Some(*b)),
                    "{label}: ray {i} cast_all {a:?} {b:?}"
                );
            }
        }

        // By the tie rule, the closest hit is the first of every hit.
        let tie_rule = QueryOptions::new().with_contacts(Contacts::TieRule);
        let expected = reference.cast_with(ray, Contacts::TieRule);
        let hit = mesh.cast_with(ray, &tie_rule);
        let skipped = expected.is_some_and(|e| skippable(ray, &e)) && hit.is_none_or(|h| found(&h));
        assert!(
            same_hit(hit, expected) || skipped,
            "{label}: ray {i} {ray:?}: cast by the tie rule {hit:?}, brute force {expected:?}"
        );
        assert_eq!(hit.is_some(), !all.is_empty(), "{label}: ray {i} cast");
        assert_eq!(
            mesh.occluded_with(ray, &tie_rule),
            !all.is_empty(),
            "{label}: ray {i} occluded"
        );
        let first = all.first().copied();
        assert!(
            same_hit(first, hit) || first.is_some_and(|f| skippable(ray, &f)),
            "{label}: ray {i} first of cast_all"
        );
        // With the default options contacts hit too: never later than the first crossing.
        let expected = reference.cast(ray);
        let touching = mesh.cast(ray);
        let skipped = expected.is_some_and(|e| skippable(ray, &e));
        assert!(
            same_hit(touching, expected) || skipped,
            "{label}: ray {i} {ray:?}: cast {touching:?}, brute force {expected:?}"
        );
        assert_eq!(mesh.occluded(ray), touching.is_some(), "{label}: ray {i}");
        if let Some(hit) = hit {
            assert!(touching.is_some_and(|t| t.t <= hit.t), "{label}: ray {i}");
        }
        for hit in [hit, touching].into_iter().flatten() {
            assert!(ray.contains_t(hit.t));
            assert!(
                hit.u >= 0.0 && hit.v >= 0.0 && hit.u + hit.v <= 1.0 + 1e-6,
                "{hit:?}"
            );
        }
    }
}

/// Whether `t` lies outside the span of `ray` inside `triangle`'s box, widened as the walk
/// widens it.
fn outside_own_box(triangle: &Triangle, ray: &Ray, t: f32) -> bool {
    triangle
        .bounds()
        .intersect(ray)
        .is_none_or(|(entry, exit)| t < entry || t > exit)
}

fn triangles_of(tri_mesh: &TriMesh) -> Vec<Triangle> {
    tri_mesh.triangles().collect()
}

fn boxes_of(triangles: &[Triangle]) -> Vec<Aabb> {
    triangles
        .iter()
        .map(|t| {
            if t.is_degenerate() {
                Aabb::EMPTY
            } else {
                t.bounds()
            }
        })
        .collect()
}

#[test]
fn closest_hit_matches_brute_force_on_assets() {
    let cases = [
        ("cow.obj", 1500),
        ("suzanne.obj", 1500),
        ("spot.obj", 800),
        ("teapot.obj", 800),
        ("woody.obj", 1500),
        ("rocker-arm.obj", 250),
        ("beast.obj", 100),
    ];
    for (seed, (name, count)) in cases.into_iter().enumerate() {
        let mesh = Mesh::from_obj(asset(name)).expect("asset loads");
        let triangles = triangles_of(mesh.tri_mesh());
        mesh.bvh()
            .validate(&boxes_of(&triangles))
            .expect("valid BVH");
        let mut rays = random_rays(mesh.bounds(), count, seed as u64);
        rays.extend(adversarial_rays(&triangles, count, 100 + seed as u64));
        for leaf_test in LEAF_TESTS {
            let mesh = mesh.clone().with_leaf_test(leaf_test);
            assert_eq!(mesh.leaf_test(), leaf_test);
            check_against_brute_force(name, &mesh, &triangles, &rays);
        }
    }
}

#[test]
fn every_build_option_matches_brute_force() {
    let tri_mesh = TriMesh::from_obj(asset("cow.obj")).expect("cow loads");
    let triangles = triangles_of(&tri_mesh);
    let mut rays = random_rays(tri_mesh.bounds(), 300, 5);
    rays.extend(adversarial_rays(&triangles, 300, 6));
    for quality in [Quality::Fast, Quality::Balanced, Quality::High] {
        for max_leaf_primitives in [1, 4, 16] {
            for parallel in [Parallel::Sequential, Parallel::Rayon] {
                let options = BuildOptions {
                    quality,
                    max_leaf_primitives,
                    parallel,
                    ..BuildOptions::default()
                };
                let mesh = Mesh::from_tri_mesh(tri_mesh.clone(), &options);
                mesh.bvh()
                    .validate(&boxes_of(&triangles))
                    .expect("valid BVH");
                let label = format!("{options:?}");
                for leaf_test in LEAF_TESTS {
                    let mesh = mesh.clone().with_leaf_test(leaf_test);
                    check_against_brute_force(&label, &mesh, &triangles, &rays);
                }
            }
        }
    }
}

#[test]
fn shared_vertices_and_edges_follow_the_tie_rule() {
    // A fan of 8 triangles around a shared centre, listed in a scrambled order, and rays
    // straight through the centre and along the spokes: several triangles tie at the same t.
    let n = 8;
    let mut positions = vec![[0.0f32, 0.0, 0.0]];
    for k in 0..n {
        let a = k as f32 / n as f32 * std::f32::consts::TAU;
        positions.push([a.cos(), a.sin(), 0.0]);
    }
    let indices: Vec<[u32; 3]> = [5, 2, 7, 0, 3, 6, 1, 4]
        .iter()
        .map(|&k| [0, k + 1, (k + 1) % n + 1])
        .collect();
    let mesh = Mesh::from_triangles(&positions, &indices).expect("valid fan");
    let triangles = triangles_of(mesh.tri_mesh());
    let mut rays = Vec::new();
    for origin in [[0.0, 0.0, 1.0], [0.3, -0.2, 2.0], [-5.0, 4.0, -3.0]] {
        let origin = glam::Vec3::from(origin);
        rays.push(Ray::new(origin, -origin));
        for p in &positions[1..] {
            let p = glam::Vec3::from(*p);
            rays.push(Ray::new(origin, p * 0.5 - origin));
        }
    }
    for leaf_test in LEAF_TESTS {
        let mesh = mesh.clone().with_leaf_test(leaf_test);
        check_against_brute_force("fan", &mesh, &triangles, &rays);
    }
    // Through the centre every triangle is touched: the smallest index wins. By the tie rule,
    // the one triangle that owns the centre.
    let hit = mesh.cast(&rays[0]).expect("through the centre");
    assert_eq!(hit.triangle, 0);
    let tie_rule = QueryOptions::new().with_contacts(Contacts::TieRule);
    let owner = mesh
        .cast_with(&rays[0], &tie_rule)
        .expect("through the centre");
    let owners: Vec<usize> = (0..n as usize)
        .filter(|&t| triangles[t].intersect(&rays[0]).is_some())
        .collect();
    assert_eq!(owners, [owner.triangle as usize]);
}

#[test]
fn degenerate_input_matches_brute_force() {
    let mut random = rng(11);
    // A soup with zero-area, repeated-corner and huge-coordinate triangles among normal ones.
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut indices = Vec::new();
    let bounds = Aabb::new(glam::Vec3::splat(-1.0), glam::Vec3::splat(1.0));
    for k in 0..300u32 {
        let p = random_point_in(&mut random, bounds);
        let (a, b) = (
            random_direction(&mut random) * 0.2,
            random_direction(&mut random) * 0.2,
        );
        let corners = match k % 5 {
            0 => [p, p, p + a],           // repeated corner
            1 => [p, p + a, p + a * 2.0], // nearly collinear (rounding)
            2 => [p * 1e7, (p + a) * 1e7, (p + b) * 1e7],
            _ => [p, p + a, p + b],
        };
        let base = positions.len() as u32;
        positions.extend(corners.map(|c| c.to_array()));
        indices.push([base, base + 1, base + 2]);
    }
    let mesh = Mesh::from_triangles(&positions, &indices).expect("valid soup");
    assert!(mesh.tri_mesh().degenerate_count() >= 60);
    let triangles = triangles_of(mesh.tri_mesh());
    let mut rays = random_rays(bounds, 500, 12);
    rays.extend(adversarial_rays(&triangles, 500, 13));
    for leaf_test in LEAF_TESTS {
        let mesh = mesh.clone().with_leaf_test(leaf_test);
        check_against_brute_force("soup", &mesh, &triangles, &rays);
    }

    let empty = Mesh::from_triangles(&[], &[]).expect("empty mesh");
    let single = Mesh::from_triangles(&positions[9..12], &[[0, 1, 2]]).expect("one triangle");
    for ray in &rays[..50] {
        assert_eq!(empty.cast(ray), None);
        assert!(!empty.occluded(ray));
        let single_triangles = triangles_of(single.tri_mesh());
        assert!(same_hit(
            single.cast(ray),
            brute_force_cast(&single_triangles, ray)
        ));
    }
}

/// Points inside a closed mesh, by the parity of brute-force crossings along three directions.
fn inside_points(
    triangles: &[Triangle],
    bounds: Aabb,
    wanted: usize,
    seed: u64,
) -> Vec<glam::Vec3> {
    let mut random = rng(seed);
    let mut points = Vec::new();
    for _ in 0..wanted * 50 {
        let p = random_point_in(&mut random, bounds);
        let odd = (0..3).all(|_| {
            let ray = Ray::new(p, random_direction(&mut random));
            brute_force_cast_all(triangles, &ray).len() % 2 == 1
        });
        if odd {
            points.push(p);
            if points.len() == wanted {
                break;
            }
        }
    }
    points
}

#[test]
fn rays_from_inside_a_closed_mesh_always_hit() {
    for (seed, name) in [
        "cow.obj",
        "spot.obj",
        "homer.obj",
        "cheburashka.obj",
        "fandisk.obj",
    ]
    .into_iter()
    .enumerate()
    {
        let mesh = Mesh::from_obj(asset(name)).expect("asset loads");
        let triangles = triangles_of(mesh.tri_mesh());
        let points = inside_points(&triangles, mesh.bounds(), 10, seed as u64);
        assert!(points.len() >= 5, "{name}: found few inside points");
        let mut random = rng(1000 + seed as u64);
        for p in points {
            for _ in 0..200 {
                let dir = random_direction(&mut random);
                let ray = Ray::new(p, dir);
                let hit: Option<Hit> = mesh.cast(&ray);
                assert!(hit.is_some(), "{name}: {ray:?} escaped");
                assert!(mesh.occluded(&ray));
            }
        }
    }
}

#[test]
fn transform_leaves_keep_culling_filters_picking_and_refits() {
    let watertight = Mesh::from_obj(asset("suzanne.obj")).expect("asset loads");
    let mut transform = watertight.clone().with_leaf_test(LeafTest::Transform);
    let triangles = triangles_of(transform.tri_mesh());
    let reference = LeafReference::new(LeafTest::Transform, &triangles);
    let rays = random_rays(transform.bounds(), 400, 21);
    let options = QueryOptions::new()
        .with_culling(Culling::BackFaces)
        .with_filter(|triangle: u32| !triangle.is_multiple_of(3));
    for (i, ray) in rays.iter().enumerate() {
        let expected: Vec<Hit> = reference
            .cast_all(ray)
            .into_iter()
            .filter(|hit| {
                let t = &triangles[hit.triangle as usize];
                let back = (t.v1 - t.v0).cross(t.v2 - t.v0).dot(ray.dir) > 0.0;
                !back && hit.triangle % 3 != 0
            })
            .collect();
        let all = transform.cast_all_with(ray, &options);
        assert_eq!(all.len(), expected.len(), "ray {i} {ray:?}");
        for (a, b) in all.iter().zip(&expected) {
            assert!(same_hit(Some(*a), Some(*b)), "ray {i}: {a:?} {b:?}");
        }
        let hit = transform.cast_with(ray, &options);
        assert!(same_hit(hit, expected.first().copied()), "ray {i}");
        assert_eq!(transform.occluded_with(ray, &options), hit.is_some());
    }

    // Picking and selection read the corners back from the mesh: same answers as watertight.
    let mut random = rng(22);
    let bounds = transform.bounds();
    let all_options = QueryOptions::new();
    for _ in 0..100 {
        let p = random_point_in(&mut random, bounds);
        assert_eq!(
            transform.closest_point(p, &all_options),
            watertight.closest_point(p, &all_options)
        );
        let volume = Volume::Sphere(Sphere::new(p, bounds.extent().length() * 0.1));
        for containment in [Containment::Intersecting, Containment::Inside] {
            assert_eq!(
                transform.select_triangles(&volume, containment, &all_options),
                watertight.select_triangles(&volume, containment, &all_options)
            );
        }
    }

    // A refit, and a rebuild when a triangle collapses, keep the leaf test.
    let stretched: Vec<[f32; 3]> = transform
        .tri_mesh()
        .positions()
        .iter()
        .map(|p| [p.x * 1.5, p.y * 0.7, p.z])
        .collect();
    transform.set_positions(&stretched).expect("valid");
    assert_eq!(transform.leaf_test(), LeafTest::Transform);
    let triangles = triangles_of(transform.tri_mesh());
    transform
        .bvh()
        .validate(&boxes_of(&triangles))
        .expect("valid BVH");
    check_against_brute_force("refit", &transform, &triangles, &rays);
    let mut collapsed = stretched;
    let [a, b, _] = transform.tri_mesh().indices()[0];
    collapsed[b as usize] = collapsed[a as usize];
    transform.set_positions(&collapsed).expect("valid");
    assert_eq!(transform.leaf_test(), LeafTest::Transform);
    let triangles = triangles_of(transform.tri_mesh());
    check_against_brute_force("rebuilt", &transform, &triangles, &rays);
}

/// Found by the OBJ fuzz target (a vertex at `-2.931e38`): a ray whose slab slack, the
/// widening of every box test, overflows to infinity (here, far from the mesh with a tiny
/// direction) passed the empty lanes of wide nodes too, and the walk read a leaf that does not
/// exist. With the slack kept finite, empty lanes stay empty and the answers are brute force's.
#[test]
fn fuzz_obj_infinite_slack_never_enters_empty_lanes() {
    let tri_mesh = meshcast_testkit::cube(1.0, 2);
    let triangles = triangles_of(&tri_mesh);
    let mesh = Mesh::from_tri_mesh(tri_mesh, &BuildOptions::default());
    // Each far away along its direction's dominant axis, with a tiny direction: the slack is
    // about 4e-6 times the distance in units of `t`, which overflows.
    let ray = |origin: [f32; 3], dir: [f32; 3]| Ray::new(origin.into(), dir.into());
    let rays = [
        ray([1e20, 0.1, 0.2], [-1e-30, 0.0, 0.0]),
        ray([0.1, -1e25, 0.2], [0.0, 1e-20, 0.0]),
        ray([0.3, 0.1, 1e30], [0.0, 0.0, -1e-9]),
        ray([5.0, 5.0, 1e30], [0.0, 0.0, -1e-9]),
    ];
    // The first three meet the cube, at `t` from about `1e39` to `1e50`: beyond `f32::MAX`,
    // so no hit, for brute force and the hierarchy alike; the walk still visits every box the
    // widening lets in.
    let hits: Vec<bool> = rays
        .iter()
        .map(|ray| brute_force_cast(&triangles, ray).is_some())
        .collect();
    assert_eq!(hits, [false; 4]);
    // With unit directions the same lines meet the cube within range.
    assert!(rays[..3].iter().all(|ray| {
        let unit = Ray::new(ray.origin, ray.dir / ray.dir.abs().max_element());
        brute_force_cast(&triangles, &unit).is_some()
    }));
    check_against_brute_force("infinite slack", &mesh, &triangles, &rays);
}
