//! Exact at every scale: a mesh and its rays scaled by a power of two answer as at scale 1,
//! from `2^-140` (subnormal coordinates) to `2^60`, and the hierarchy answers what brute force
//! answers at every scale; rays with subnormal direction components among normal ones too.

use meshcast::glam::Vec3;
use meshcast::{BuildOptions, Contacts, Hit, Mesh, Ray, RayQueries, TriMesh, Triangle};
use meshcast_testkit::{
    brute_force_cast, brute_force_cast_all, cube, icosphere, lattice_solids, random_rays, same_hit,
};

/// `2^k`, exact for every `k` in `-149..=127`.
fn pow2(k: i32) -> f32 {
    2f64.powi(k) as f32
}

fn scaled(mesh: &TriMesh, s: f32) -> TriMesh {
    let positions: Vec<Vec3> = mesh.positions().iter().map(|&p| p * s).collect();
    TriMesh::new(positions, mesh.indices().to_vec()).expect("a scaled mesh")
}

/// The shapes and their rays at scale 1, and the least scale at which every coordinate of
/// both stays exact.
fn cases() -> Vec<(String, TriMesh, Vec<Ray>, i32)> {
    let mut cases = Vec::new();
    for solid in lattice_solids() {
        let rays = solid.rays(3);
        cases.push((solid.name.to_string(), solid.mesh, rays, -140));
    }
    let cube = cube(1.0, 1);
    let mut rays = Vec::new();
    for origin in [Vec3::new(-3.0, 0.5, 5.0), Vec3::new(0.25, 0.5, 0.125)] {
        for &target in cube.positions() {
            rays.push(Ray::new(origin, target - origin));
        }
    }
    cases.push(("cube".into(), cube.clone(), rays, -140));
    let rays = random_rays(cube.bounds(), 64, 3);
    cases.push(("cube, random rays".into(), cube, rays, -100));
    let sphere = icosphere(2);
    let rays = random_rays(sphere.bounds(), 128, 5);
    cases.push(("icosphere".into(), sphere, rays, -100));
    cases
}

#[derive(Debug, PartialEq)]
struct Answer {
    hit: Option<(u32, f32)>,
    occluded: bool,
    count: usize,
}

fn answer(mesh: &Mesh, ray: &Ray, t_unit: f32) -> Answer {
    Answer {
        hit: mesh.cast(ray).map(|h| (h.triangle, h.t / t_unit)),
        occluded: mesh.occluded(ray),
        count: mesh.cast_all(ray).len(),
    }
}

/// Whether two distances in units of `unit` are equal up to rounding: relatively, or by
/// a few steps of the least subnormal, in which a distance below `2^-126` is rounded.
fn close(a: f32, b: f32, unit: f32) -> bool {
    let ulps = f64::from(f32::from_bits(4)) / f64::from(unit);
    a == b || f64::from((a - b).abs()) <= 1e-5 * f64::from(a.abs().max(b.abs())) + ulps
}

/// Whether `v * s` is exact.
fn exact_times(v: Vec3, s: f32) -> bool {
    (v * s).as_dvec3() == v.as_dvec3() * f64::from(s)
}

/// Whether `got` answers as `expected` does: the same occlusion and count, and the same
/// closest distance, at the same triangle or one that the ray at scale 1 (`ray`, on the
/// triangles `base`) meets at that distance too (a ray through a shared edge or vertex meets
/// several, and which comes first is a matter of the rounding of their distances).
fn agree(got: &Answer, expected: &Answer, base: &[Triangle], ray: &Ray, unit: f32) -> bool {
    let hits = match (got.hit, expected.hit) {
        (Some((tri, t)), Some((expected_tri, expected_t))) => {
            close(t, expected_t, unit)
                && (tri == expected_tri
                    || base[tri as usize]
                        .intersect_with(ray, Contacts::Hit)
                        .is_some_and(|hit| close(hit.t, expected_t, unit)))
        }
        (None, None) => true,
        _ => false,
    };
    hits && got.occluded == expected.occluded && got.count == expected.count
}

#[test]
fn every_power_of_two_scale_answers_as_scale_one_and_as_brute_force() {
    let mut failures = Vec::new();
    for (name, mesh, rays, least) in cases() {
        let base = Mesh::from_tri_mesh(mesh.clone(), &BuildOptions::default());
        let base_triangles: Vec<Triangle> = mesh.triangles().collect();
        let expected: Vec<Answer> = rays.iter().map(|r| answer(&base, r, 1.0)).collect();
        for k in (least..=60).step_by(2) {
            let s = pow2(k);
            let tri = scaled(&mesh, s);
            let triangles: Vec<Triangle> = tri.triangles().collect();
            let scaled_mesh = Mesh::from_tri_mesh(tri, &BuildOptions::default());
            let mut bad = [0usize; 4];
            for (ray, expected) in rays.iter().zip(&expected) {
                // A ray one step beside a vertex is a ray through it at the least scales.
                if !exact_times(ray.origin, s) || !exact_times(ray.dir, s) {
                    continue;
                }
                // Both origin and direction scaled (t unchanged), and the origin only (t scaled).
                for (variant, r, unit) in [
                    (0, Ray::new(ray.origin * s, ray.dir * s), 1.0),
                    (1, Ray::new(ray.origin * s, ray.dir), s),
                ] {
                    let got = answer(&scaled_mesh, &r, unit);
                    if !agree(&got, expected, &base_triangles, ray, unit) {
                        bad[variant] += 1;
                        if bad[variant] == 1 {
                            eprintln!("{name} 2^{k} v{variant}: {r:?} got {got:?} expected {expected:?}");
                        }
                    }
                    let brute: Option<Hit> = brute_force_cast(&triangles, &r);
                    if !same_hit(scaled_mesh.cast(&r), brute)
                        || scaled_mesh.cast_all(&r).len() != brute_force_cast_all(&triangles, &r).len()
                    {
                        bad[2 + variant] += 1;
                    }
                }
            }
            if bad.iter().any(|&b| b > 0) {
                failures.push(format!("{name} at 2^{k}: {bad:?} of {}", rays.len()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
