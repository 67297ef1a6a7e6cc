//! Mesh queries against the brute-force reference, on real meshes, with random and adversarial
//! rays, under every build option: the same triangle and bit-identical `t` every time.

use meshcast_bvh::{BuildOptions, Kernel, Parallel, Quality};
use meshcast_mesh::{Mesh, TriMesh};
use meshcast_primitives::{Aabb, Hit, Ray, Triangle};
use meshcast_tests::{
    adversarial_rays, asset, brute_force_cast, brute_force_cast_all, random_direction,
    random_point_in, random_rays, rng, same_hit,
};

/// Checks every query of `mesh` on `rays` against brute force over `triangles`, with every
/// node kernel this CPU runs.
fn check_against_brute_force(label: &str, mesh: &Mesh, triangles: &[Triangle], rays: &[Ray]) {
    for kernel in Kernel::supported() {
        let mut mesh = mesh.clone();
        mesh.set_kernel(kernel).expect("a supported kernel");
        check_kernel(&format!("{label} ({kernel})"), &mesh, triangles, rays);
    }
}

/// [`check_against_brute_force`] with `mesh`'s own kernel.
fn check_kernel(label: &str, mesh: &Mesh, triangles: &[Triangle], rays: &[Ray]) {
    for (i, ray) in rays.iter().enumerate() {
        let expected = brute_force_cast(triangles, ray);
        let hit = mesh.cast(ray);
        assert!(
            same_hit(hit, expected),
            "{label}: ray {i} {ray:?}: cast {hit:?}, brute force {expected:?}"
        );
        assert_eq!(
            mesh.occluded(ray),
            expected.is_some(),
            "{label}: ray {i} occluded"
        );
        let all = mesh.cast_all(ray);
        let expected_all = brute_force_cast_all(triangles, ray);
        assert_eq!(
            all.len(),
            expected_all.len(),
            "{label}: ray {i} cast_all count"
        );
        for (a, b) in all.iter().zip(&expected_all) {
            assert!(
                same_hit(Some(*a), Some(*b)),
                "{label}: ray {i} cast_all {a:?} {b:?}"
            );
        }
        assert!(
            same_hit(all.first().copied(), hit),
            "{label}: ray {i} first of cast_all"
        );
        if let Some(hit) = hit {
            assert!(ray.contains_t(hit.t));
            assert!(
                hit.u >= 0.0 && hit.v >= 0.0 && hit.u + hit.v <= 1.0 + 1e-6,
                "{hit:?}"
            );
        }
    }
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
        check_against_brute_force(name, &mesh, &triangles, &rays);
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
                check_against_brute_force(&label, &mesh, &triangles, &rays);
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
    check_against_brute_force("fan", &mesh, &triangles, &rays);
    let hit = mesh.cast(&rays[0]).expect("through the centre");
    let smallest = (0..n as usize).find(|&t| triangles[t].intersect(&rays[0]).is_some());
    assert_eq!(Some(hit.triangle as usize), smallest);
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
    check_against_brute_force("soup", &mesh, &triangles, &rays);

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
