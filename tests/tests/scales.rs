//! Exact at every scale: a mesh and its rays scaled by a power of two answer as at scale 1,
//! from `2^-140` (subnormal coordinates, whose `f32` products underflow) to `2^60` (whose
//! products overflow), and the hierarchy answers what brute force answers at every scale,
//! one ray at a time, in batches and in packets; so do rays whose directions have subnormal
//! components beside normal ones, whose reciprocals overflow.

use meshcast::glam::Vec3;
use meshcast::{BuildOptions, Contacts, Mesh, PointQueries, Ray, RayQueries, TriMesh, Triangle};
use meshcast_testkit::{
    brute_force_cast, brute_force_cast_all, cube, icosphere, lattice_solids, random_rays, same_hit,
};

/// The scales tested: both ends of the range, the edges of `f32`'s normal range and
/// of its squares', and some between.
const SCALES: [i32; 12] = [-140, -133, -126, -100, -75, -63, -50, -40, 0, 40, 52, 60];

/// `2^k`, exact for every `k` in `-149..=127`.
fn pow2(k: i32) -> f32 {
    2f64.powi(k) as f32
}

fn scaled(mesh: &TriMesh, s: f32) -> TriMesh {
    let positions: Vec<Vec3> = mesh.positions().iter().map(|&p| p * s).collect();
    TriMesh::new(positions, mesh.indices().to_vec()).expect("a scaled mesh")
}

/// A shape, its rays at scale 1, and the least scale at which every coordinate of both
/// stays exact.
struct Case {
    name: String,
    mesh: TriMesh,
    rays: Vec<Ray>,
    least: i32,
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = lattice_solids()
        .into_iter()
        .map(|solid| Case {
            name: solid.name.to_string(),
            rays: solid.rays(4),
            mesh: solid.mesh,
            least: -140,
        })
        .collect();
    let cube = cube(1.0, 1);
    let mut rays = Vec::new();
    for origin in [Vec3::new(-3.0, 0.5, 5.0), Vec3::new(0.25, 0.5, 0.125)] {
        for &target in cube.positions() {
            rays.push(Ray::new(origin, target - origin));
        }
    }
    cases.push(Case {
        name: "cube".into(),
        mesh: cube.clone(),
        rays,
        least: -140,
    });
    // Arbitrary coordinates keep all 24 bits only down to about 2^-100.
    cases.push(Case {
        name: "cube, random rays".into(),
        rays: random_rays(cube.bounds(), 48, 3),
        mesh: cube,
        least: -100,
    });
    let sphere = icosphere(2);
    cases.push(Case {
        name: "icosphere".into(),
        rays: random_rays(sphere.bounds(), 64, 5),
        mesh: sphere,
        least: -100,
    });
    cases
}

/// What a mesh answers a ray: the closest hit's triangle and distance (in units of `unit`),
/// occlusion, and the number of crossings.
#[derive(Debug, PartialEq)]
struct Answer {
    hit: Option<(u32, f32)>,
    occluded: bool,
    count: usize,
}

fn answer(mesh: &Mesh, ray: &Ray, unit: f32) -> Answer {
    Answer {
        hit: mesh.cast(ray).map(|h| (h.triangle, h.t / unit)),
        occluded: mesh.occluded(ray),
        count: mesh.cast_all(ray).len(),
    }
}

/// Whether two distances in units of `unit` are equal up to rounding: relatively, or by a
/// few steps of the least subnormal, to which a distance below `2^-126` is rounded.
fn close(a: f32, b: f32, unit: f32) -> bool {
    let steps = f64::from(f32::from_bits(4)) / f64::from(unit);
    a == b || f64::from((a - b).abs()) <= 1e-5 * f64::from(a.abs().max(b.abs())) + steps
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
        (Some((triangle, t)), Some((expected_triangle, expected_t))) => {
            close(t, expected_t, unit)
                && (triangle == expected_triangle
                    || base[triangle as usize]
                        .intersect_with(ray, Contacts::Hit)
                        .is_some_and(|hit| close(hit.t, expected_t, unit)))
        }
        (None, None) => true,
        _ => false,
    };
    hits && got.occluded == expected.occluded && got.count == expected.count
}

/// Holds `mesh` to brute force on `rays`: one ray at a time (closest, any, every hit), as a
/// batch in their order, and as packets of sixteen copies of each ray. Returns the rays
/// that answered otherwise.
fn brute_force_failures(mesh: &Mesh, rays: &[Ray]) -> Vec<Ray> {
    let triangles: Vec<Triangle> = mesh.tri_mesh().triangles().collect();
    let batch = mesh.cast_batch(rays);
    let occluded = mesh.occluded_batch(rays);
    let counts = mesh.count_batch(rays);
    let mut failures = Vec::new();
    for (i, ray) in rays.iter().enumerate() {
        let expected = brute_force_cast(&triangles, ray);
        let all = brute_force_cast_all(&triangles, ray).len();
        let copies = [*ray; 16];
        let right = same_hit(mesh.cast(ray), expected)
            && same_hit(batch[i], expected)
            && mesh.occluded(ray) == expected.is_some()
            && occluded[i] == expected.is_some()
            && mesh.cast_all(ray).len() == all
            && counts[i] as usize == all
            && mesh
                .cast_batch(&copies)
                .iter()
                .all(|&h| same_hit(h, expected))
            && mesh
                .occluded_batch(&copies)
                .iter()
                .all(|&o| o == expected.is_some());
        if !right {
            failures.push(*ray);
        }
    }
    failures
}

#[test]
fn every_power_of_two_scale_answers_as_scale_one_and_as_brute_force() {
    let mut failures = Vec::new();
    for Case {
        name,
        mesh,
        rays,
        least,
    } in cases()
    {
        let base = Mesh::from_tri_mesh(mesh.clone(), &BuildOptions::default());
        let base_triangles: Vec<Triangle> = mesh.triangles().collect();
        let expected: Vec<Answer> = rays.iter().map(|r| answer(&base, r, 1.0)).collect();
        for k in SCALES.into_iter().filter(|&k| k >= least) {
            let s = pow2(k);
            let scaled_mesh = Mesh::from_tri_mesh(scaled(&mesh, s), &BuildOptions::default());
            let mut tested = Vec::new();
            let mut unlike = 0;
            for (ray, expected) in rays.iter().zip(&expected) {
                // A ray one step beside a vertex is a ray through it at the least scales.
                if !exact_times(ray.origin, s) || !exact_times(ray.dir, s) {
                    continue;
                }
                // Origin and direction scaled (`t` unchanged), and the origin only (`t`
                // scaled).
                for (r, unit) in [
                    (Ray::new(ray.origin * s, ray.dir * s), 1.0),
                    (Ray::new(ray.origin * s, ray.dir), s),
                ] {
                    let got = answer(&scaled_mesh, &r, unit);
                    if !agree(&got, expected, &base_triangles, ray, unit) {
                        unlike += 1;
                        eprintln!("{name} at 2^{k}: {r:?} answers {got:?}, at 2^0 {expected:?}");
                    }
                    tested.push(r);
                }
            }
            let unlike_brute_force = brute_force_failures(&scaled_mesh, &tested).len();
            if unlike + unlike_brute_force > 0 {
                failures.push(format!(
                    "{name} at 2^{k}: {unlike} rays unlike scale 1, {unlike_brute_force} \
                     unlike brute force, of {}",
                    tested.len()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The ray the command line's fuzz target found: on the cube `[-1, 1]^3` (faces split
/// once), a direction component of `1.1e-44`, whose reciprocal overflows, made the hierarchy
/// cull the upper half of the cube, which the ray meets at `t = 2` (brute force: triangle
/// 14). Every query and kernel answers `t = 2`, and the origin, moved inside, is inside.
#[test]
fn fuzz_cli_rays_subnormal_direction_component() {
    let mesh = Mesh::from_tri_mesh(cube(1.0, 1), &BuildOptions::default());
    let ray = Ray::new(
        Vec3::new(-1.0, -2.1e-44, -1.0),
        Vec3::new(0.0, 1.1e-44, 1.0),
    );
    let hit = mesh.cast(&ray).expect("the ray meets the cube");
    assert_eq!(hit.t, 2.0);
    assert!(mesh.occluded(&ray));
    assert!(brute_force_failures(&mesh, &[ray]).is_empty());
    // The same ray with its subnormal parts at normal size hits the same way.
    let normal = Ray::new(Vec3::new(-1.0, -1e-30, -1.0), Vec3::new(0.0, 5e-31, 1.0));
    assert_eq!(mesh.cast(&normal).map(|h| h.t), Some(2.0));
    // Rays tilted by subnormal components through the cube's vertices and edge midpoints,
    // from inside and out, in every direction: each equals brute force.
    let tilt = Vec3::new(f32::from_bits(8), -f32::from_bits(5), f32::from_bits(1));
    let mut rays = Vec::new();
    for origin in [Vec3::new(-3.0, 0.5, 5.0), Vec3::new(0.25, 0.5, 0.125)] {
        for &target in mesh.tri_mesh().positions() {
            let dir = target - origin;
            rays.push(Ray::new(origin, dir + tilt));
            rays.push(Ray::new(origin + tilt, dir));
            // Only one component normal: the others subnormal.
            let k = dir.abs().max_position();
            let mut lean = tilt;
            lean[k] = dir[k];
            rays.push(Ray::new(origin, lean));
        }
    }
    assert_eq!(brute_force_failures(&mesh, &rays), Vec::<Ray>::new());
    assert!(mesh.contains(Vec3::new(0.25, 0.5, 0.125) + tilt));
}

/// Coordinates near `f32::MAX`: a triangle whose edge functions and normal overflow is hit
/// where the arithmetic allows a distance in range, as brute force hits it.
#[test]
fn coordinates_near_the_largest_float_answer_as_brute_force() {
    let m = f32::MAX / 4.0;
    let mesh = TriMesh::from_triangles(
        &[[-m, -m, 0.0], [m, -m, 0.0], [0.0, m, 0.0], [-m, -m, m]],
        &[[0, 1, 2], [0, 1, 3]],
    )
    .expect("a mesh");
    let mesh = Mesh::from_tri_mesh(mesh, &BuildOptions::default());
    let rays = [
        Ray::new(Vec3::new(0.0, 0.0, m), Vec3::NEG_Z),
        Ray::new(Vec3::new(1e30, -2e37, m), Vec3::new(0.0, 0.0, -1e-3)),
        Ray::new(Vec3::new(0.0, -m * 2.0, m / 2.0), Vec3::new(0.0, 1.0, 0.0)),
        Ray::new(Vec3::new(-m, -m, m), Vec3::new(1.0, 1.0, -1.0)),
    ];
    assert_eq!(brute_force_failures(&mesh, &rays), Vec::<Ray>::new());
    let hit = mesh.cast(&rays[0]).expect("straight down onto the base");
    assert_eq!(hit.t, m);
}
