//! `Mesh::hausdorff_distance` against brute force: each direction's witness measured again
//! over every triangle, and its bound checked against the distance of every vertex and of
//! random points on every triangle (measured over every triangle); on the assets under random
//! transforms, nested cubes with known answers, a mesh on itself, far from the origin,
//! degenerate triangles, and the same answer on any number of threads.

use meshcast::glam::{Affine3A, DVec3, Vec3};
use meshcast::prelude::*;
use meshcast::{closest_point_on_triangle, DirectedHausdorff, Mesh, TriMesh};
use meshcast_testkit::{
    asset, brute_force_surface_distance, carried_corners, cube, random_transform, rng,
};
use rand::Rng;

fn load(name: &str) -> Mesh {
    Mesh::from_path(asset(name)).expect("asset loads")
}

fn mesh(tri_mesh: TriMesh) -> Mesh {
    Mesh::from_tri_mesh(tri_mesh, &Default::default())
}

/// The largest coordinate magnitude: the scale of rounding.
fn scale(triangles: &[[DVec3; 3]]) -> f64 {
    triangles
        .iter()
        .flatten()
        .fold(1.0, |m: f64, p| m.max(p.abs().max_element()))
}

/// Checks one direction from `from` to `to` (triangles in the first mesh's space) and
/// returns the largest distance over the reference points.
fn check_direction(
    answer: &DirectedHausdorff,
    from: &[[DVec3; 3]],
    to: &[[DVec3; 3]],
    relative_error: f64,
    seed: u64,
    name: &str,
) -> f64 {
    let tolerance = 1e-6 * scale(from).max(scale(to));
    // The witness: on its triangle, its nearest point on the other surface on its triangle,
    // at the distance reported, which brute force confirms.
    let (from_point, to_point) = (answer.from_point.as_dvec3(), answer.to_point.as_dvec3());
    let on = |p: DVec3, t: &[DVec3; 3]| p.distance(closest_point_on_triangle(p, t));
    assert!(
        on(from_point, &from[answer.from_triangle as usize]) <= tolerance,
        "{name}: the farthest point is not on its triangle"
    );
    assert!(
        on(to_point, &to[answer.to_triangle as usize]) <= tolerance,
        "{name}: the nearest point is not on its triangle"
    );
    let distance = f64::from(answer.distance);
    assert!(
        (from_point.distance(to_point) - distance).abs() <= tolerance,
        "{name}: the points are not the distance apart"
    );
    let (brute, _) = brute_force_surface_distance(to, from_point).expect("triangles");
    assert!(
        (brute - distance).abs() <= tolerance,
        "{name}: witness at {distance}, brute force says {brute}"
    );
    // The bound: above every point's distance, within the error of the witness.
    let bound = f64::from(answer.bound);
    assert!(bound >= distance, "{name}: bound {bound} below {distance}");
    assert!(
        bound <= distance * (1.0 + relative_error) + tolerance,
        "{name}: bound {bound} not within {relative_error} of {distance}"
    );
    let mut rng = rng(seed);
    let mut farthest = 0.0f64;
    for t in from {
        let mut points = t.to_vec();
        for _ in 0..3 {
            let (mut u, mut v) = (rng.gen::<f64>(), rng.gen::<f64>());
            if u + v > 1.0 {
                (u, v) = (1.0 - u, 1.0 - v);
            }
            points.push(t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v);
        }
        for p in points {
            let (d, _) = brute_force_surface_distance(to, p).expect("triangles");
            farthest = farthest.max(d);
            assert!(
                d <= bound + tolerance,
                "{name}: a point at {d} from the other surface, above the bound {bound}"
            );
        }
    }
    farthest
}

/// Checks both directions of `a` against `b` placed by `b_to_a`.
fn check(a: &Mesh, b: &Mesh, b_to_a: &Affine3A, relative_error: f32, name: &str) {
    let answer = a
        .hausdorff_distance(b, b_to_a, relative_error)
        .expect("non-empty meshes");
    let (ca, cb) = (
        carried_corners(a, &Affine3A::IDENTITY),
        carried_corners(b, b_to_a),
    );
    let error = f64::from(relative_error);
    let forward = check_direction(&answer.self_to_other, &ca, &cb, error, 1, name);
    let backward = check_direction(&answer.other_to_self, &cb, &ca, error, 2, name);
    assert_eq!(
        answer.distance(),
        answer
            .self_to_other
            .distance
            .max(answer.other_to_self.distance)
    );
    // The reference points cannot lie farther than the answer's bound (checked above), and
    // the answer is no farther than the true value, so the witness is at least near them.
    assert!(
        f64::from(answer.self_to_other.bound) >= forward * (1.0 - 1e-9),
        "{name}"
    );
    assert!(
        f64::from(answer.other_to_self.bound) >= backward * (1.0 - 1e-9),
        "{name}"
    );
}

#[test]
fn assets_under_random_transforms_match_brute_force() {
    let mut rng = rng(33);
    let suzanne = load("suzanne.obj");
    let spot = load("spot.obj");
    for (a, b, name) in [
        (&suzanne, &suzanne, "suzanne twice"),
        (&spot, &suzanne, "spot and suzanne"),
    ] {
        let (ca, cb) = (a.bounds().centroid(), b.bounds().centroid());
        let size = a.bounds().extent().max_element() / b.bounds().extent().max_element();
        for (k, relative_error) in [1e-2f32, 1e-4, 0.0].into_iter().enumerate() {
            let spin = random_transform(&mut rng, 0.2 * a.bounds().extent().max_element());
            let place = Affine3A::from_translation(ca)
                * spin
                * Affine3A::from_scale(Vec3::splat(size * 0.5))
                * Affine3A::from_translation(-cb);
            check(
                a,
                b,
                &place,
                relative_error,
                &format!("{name}, placement {k}"),
            );
        }
    }
}

#[test]
fn nested_cubes_have_the_known_distances() {
    let outer = mesh(cube(1.0, 1));
    let half = Affine3A::from_scale(Vec3::splat(0.5));
    let answer = outer
        .hausdorff_distance(&outer, &half, 1e-6)
        .expect("non-empty");
    // The outer corners lie farthest from the inner cube, at its corners; every point of the
    // inner cube lies half a unit from the outer faces, or more.
    let corner = 0.75f64.sqrt() as f32;
    assert!((answer.self_to_other.distance - corner).abs() <= 1e-6);
    assert_eq!(answer.self_to_other.from_point.abs(), Vec3::ONE);
    assert_eq!(answer.self_to_other.to_point.abs(), Vec3::splat(0.5));
    assert_eq!(answer.other_to_self.distance, 0.5);
    assert!(answer.other_to_self.bound <= 0.5 * (1.0 + 1e-6) + 1e-7);
    check(&outer, &outer, &half, 1e-6, "nested cubes");
}

#[test]
fn a_mesh_on_itself_is_at_distance_zero() {
    for name in ["suzanne.obj", "cow.obj", "stanford-bunny.obj"] {
        let m = load(name);
        let answer = m
            .hausdorff_distance(&m, &Affine3A::IDENTITY, 1e-3)
            .expect("non-empty");
        for direction in [answer.self_to_other, answer.other_to_self] {
            // Zero but for the rounding of points inside triangles (their centres).
            assert!(
                direction.distance <= 1e-12,
                "{name}: {}",
                direction.distance
            );
            assert!(direction.bound <= 1e-9, "{name}: bound {}", direction.bound);
        }
    }
}

#[test]
fn far_from_the_origin_answers_as_near_it() {
    let suzanne = load("suzanne.obj");
    let lifted = Affine3A::from_translation(Vec3::new(0.3, -0.2, 0.1));
    let near = suzanne
        .hausdorff_distance(&suzanne, &lifted, 1e-3)
        .expect("non-empty");
    let far_mesh = mesh(meshcast_testkit::transformed(
        suzanne.tri_mesh(),
        Affine3A::from_translation(Vec3::splat(1e5)),
    ));
    let far = far_mesh
        .hausdorff_distance(&far_mesh, &lifted, 1e-3)
        .expect("non-empty");
    for (n, f) in [
        (near.self_to_other, far.self_to_other),
        (near.other_to_self, far.other_to_self),
    ] {
        // The far copy's vertices are rounded to f32 at 1e5 (units of 2^-7).
        assert!((n.distance - f.distance).abs() <= 0.02, "{n:?} {f:?}");
    }
    check(&far_mesh, &far_mesh, &lifted, 1e-3, "far from the origin");
}

#[test]
fn degenerate_triangles_count_as_the_segments_they_cover() {
    // A square, and a zero-area triangle whose far corner sticks out to x = 5.
    let positions = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [5.0, 0.0, 0.0],
    ];
    let spiked =
        Mesh::from_triangles(&positions, &[[0, 1, 2], [0, 2, 3], [1, 4, 4]]).expect("valid mesh");
    let square = Mesh::from_triangles(&positions[..4], &[[0, 1, 2], [0, 2, 3]]).expect("valid");
    let answer = spiked
        .hausdorff_distance(&square, &Affine3A::IDENTITY, 1e-6)
        .expect("non-empty");
    assert_eq!(answer.self_to_other.distance, 4.0);
    assert_eq!(answer.self_to_other.from_point, Vec3::new(5.0, 0.0, 0.0));
    assert_eq!(answer.self_to_other.from_triangle, 2);
    assert_eq!(answer.other_to_self.distance, 0.0);
    // The other way round, the segment is nearest to nothing farther.
    let back = square
        .hausdorff_distance(&spiked, &Affine3A::IDENTITY, 1e-6)
        .expect("non-empty");
    assert_eq!(back.other_to_self.distance, 4.0);
    check(&spiked, &square, &Affine3A::IDENTITY, 1e-6, "spiked square");
}

#[test]
fn answers_do_not_depend_on_the_number_of_threads() {
    let suzanne = load("suzanne.obj");
    let place = random_transform(&mut rng(5), 0.5);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| suzanne.hausdorff_distance(&suzanne, &place, 1e-4))
    };
    let one = run(1);
    assert!(one.is_some());
    assert_eq!(one, run(3));
    assert_eq!(one, run(8));
}

#[test]
fn empty_meshes_and_unusable_arguments_answer_none() {
    let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])
        .expect("valid");
    let empty = Mesh::from_triangles(&[], &[]).expect("valid");
    let id = Affine3A::IDENTITY;
    assert_eq!(tri.hausdorff_distance(&empty, &id, 1e-3), None);
    assert_eq!(empty.hausdorff_distance(&tri, &id, 1e-3), None);
    assert_eq!(tri.hausdorff_distance(&tri, &id, f32::NAN), None);
    assert_eq!(tri.hausdorff_distance(&tri, &id, -1.0), None);
    let nan = Affine3A::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
    assert_eq!(tri.hausdorff_distance(&tri, &nan, 1e-3), None);
}
