//! `Mesh::mesh_distance` against brute force (every pair of triangles with the same
//! triangle distance, the other mesh carried the same way): on the assets under random
//! transforms, touching and intersecting placements, far apart, far from the origin, with
//! and without a bound, and on degenerate and empty meshes.

use meshcast::glam::{Affine3A, DVec3, Quat, Vec3};
use meshcast::prelude::*;
use meshcast::{triangles_distance, triangles_intersect, Mesh, MeshDistance, TriMesh};
use meshcast_testkit::{asset, carried_corners, cube, random_transform, rng, transformed};

fn load(name: &str) -> Mesh {
    Mesh::from_path(asset(name)).expect("asset loads")
}

fn mesh(tri_mesh: TriMesh) -> Mesh {
    Mesh::from_tri_mesh(tri_mesh, &Default::default())
}

/// The distance between two triangles' boxes, never above theirs but by rounding.
fn box_distance(a: &[DVec3; 3], b: &[DVec3; 3]) -> f64 {
    let (min_a, max_a) = (a[0].min(a[1]).min(a[2]), a[0].max(a[1]).max(a[2]));
    let (min_b, max_b) = (b[0].min(b[1]).min(b[2]), b[0].max(b[1]).max(b[2]));
    (min_a - max_b).max(min_b - max_a).max(DVec3::ZERO).length()
}

/// The smallest distance over every pair (first pair on ties), if within `limit`. A pair
/// whose boxes lie farther apart than the best so far, by more than a millionth of the
/// coordinates' scale (far above any rounding), is skipped unmeasured.
fn brute_force(
    a: &Mesh,
    b: &Mesh,
    b_to_a: &Affine3A,
    limit: Option<f32>,
) -> Option<(f64, u32, u32)> {
    let (ca, cb) = (
        carried_corners(a, &Affine3A::IDENTITY),
        carried_corners(b, b_to_a),
    );
    let scale = ca
        .iter()
        .chain(&cb)
        .flatten()
        .fold(1.0, |m: f64, p| m.max(p.abs().max_element()));
    let mut best: Option<(f64, u32, u32)> = None;
    for (i, ta) in ca.iter().enumerate() {
        for (j, tb) in cb.iter().enumerate() {
            if best.is_some_and(|(bd, ..)| box_distance(ta, tb) > bd + 1e-6 * scale) {
                continue;
            }
            let d = triangles_distance(ta, tb).distance;
            if best.is_none_or(|(bd, ..)| d < bd) {
                best = Some((d, i as u32, j as u32));
            }
        }
    }
    best.filter(|&(d, ..)| limit.is_none_or(|l| d <= f64::from(l)))
}

/// The answer equals brute force: the same distance to the bit, a pair at that distance
/// whose points are the reported ones, zero exactly when the meshes intersect.
fn check(
    a: &Mesh,
    b: &Mesh,
    b_to_a: &Affine3A,
    limit: Option<f32>,
    name: &str,
) -> Option<MeshDistance> {
    let got = a.mesh_distance(b, b_to_a, limit);
    let expected = brute_force(a, b, b_to_a, limit);
    assert_eq!(
        got.is_some(),
        expected.is_some(),
        "{name}: {got:?} {expected:?}"
    );
    let (Some(got), Some((d, ..))) = (got, expected) else {
        return None;
    };
    let reported = if d == 0.0 {
        0.0
    } else {
        (d as f32).max(f32::from_bits(1))
    };
    assert_eq!(
        got.distance.to_bits(),
        reported.to_bits(),
        "{name}: {got:?} {d}"
    );
    let (ta, tb) = (
        carried_corners(a, &Affine3A::IDENTITY)[got.triangle_self as usize],
        carried_corners(b, b_to_a)[got.triangle_other as usize],
    );
    let pair = triangles_distance(&ta, &tb);
    assert_eq!(pair.distance, d, "{name}: the pair is at the distance");
    if d == 0.0 {
        assert!(triangles_intersect(&ta, &tb), "{name}");
        assert_eq!(got.point_on_self, got.point_on_other, "{name}");
    } else {
        assert_eq!(got.point_on_self, pair.on_a.as_vec3(), "{name}");
        assert_eq!(got.point_on_other, pair.on_b.as_vec3(), "{name}");
    }
    assert_eq!(got.distance == 0.0, a.intersects(b, b_to_a), "{name}");
    Some(got)
}

#[test]
fn assets_under_random_transforms_match_brute_force() {
    let mut rng = rng(3210);
    let cow = load("cow.obj");
    let suzanne = load("suzanne.obj");
    let (mut apart, mut touching) = (0, 0);
    for (a, b, name) in [
        (&cow, &suzanne, "cow and suzanne"),
        (&suzanne, &cow, "suzanne and cow"),
        (&suzanne, &suzanne, "suzanne twice"),
    ] {
        let (ca, cb) = (a.bounds().centroid(), b.bounds().centroid());
        let size = a.bounds().extent().max_element() / b.bounds().extent().max_element();
        for round in 0..8 {
            // Centre near centre (overlapping) or spread out to a few sizes apart.
            let spread = a.bounds().extent().max_element() * if round % 2 == 0 { 0.1 } else { 1.5 };
            let spin = random_transform(&mut rng, spread);
            let transform = Affine3A::from_translation(ca)
                * spin
                * Affine3A::from_scale(Vec3::splat(size * 0.5))
                * Affine3A::from_translation(-cb);
            let got = check(a, b, &transform, None, name).expect("not empty");
            if got.distance > 0.0 {
                apart += 1;
                // Bounded just above the distance, the same distance; just below, none.
                let above = a.mesh_distance(b, &transform, Some(got.distance * 1.001));
                assert_eq!(above.map(|d| d.distance), Some(got.distance), "{name}");
                let below = a.mesh_distance(b, &transform, Some(got.distance * 0.999));
                assert_eq!(below, None, "{name}");
            } else {
                touching += 1;
            }
        }
    }
    assert!(
        apart >= 4 && touching >= 4,
        "{apart} apart, {touching} touching"
    );
}

#[test]
fn cubes_touching_at_a_corner_along_an_edge_and_on_a_face() {
    let unit = mesh(cube(0.5, 1));
    for (offset, name) in [
        (Vec3::new(1.0, 1.0, 1.0), "corner"),
        (Vec3::new(1.0, 1.0, 0.25), "edge"),
        (Vec3::new(1.0, 0.5, 0.25), "face"),
    ] {
        let touching = Affine3A::from_translation(offset);
        let got = check(&unit, &unit, &touching, Some(0.0), name).expect("touching");
        assert_eq!(got.distance, 0.0);
        // A step of 2^-20 along x parts them by that much.
        let step = 2f32.powi(-20);
        let apart = Affine3A::from_translation(offset + Vec3::X * step);
        let got = check(&unit, &unit, &apart, None, name).expect("not empty");
        assert_eq!(got.distance, step, "{name}");
        assert_eq!(check(&unit, &unit, &apart, Some(step * 0.5), name), None);
        assert!(
            check(&unit, &unit, &apart, Some(step), name).is_some(),
            "inclusive"
        );
    }
}

#[test]
fn far_apart_and_far_from_the_origin() {
    let suzanne = load("suzanne.obj");
    let far = Affine3A::from_rotation_translation(
        Quat::from_rotation_z(0.3),
        Vec3::new(40.0, -10.0, 5.0),
    );
    let got = check(&suzanne, &suzanne, &far, None, "far apart").expect("not empty");
    assert!(got.distance > 20.0);
    assert_eq!(
        check(&suzanne, &suzanne, &far, Some(20.0), "far apart, bounded"),
        None
    );
    // Both a million units out, a small gap.
    let offset = Vec3::new(1e6, -2e6, 1e6);
    let moved = |tri: TriMesh| {
        Mesh::from_tri_mesh(
            transformed(&tri, Affine3A::from_translation(offset)),
            &Default::default(),
        )
    };
    let a = moved(cube(0.5, 1));
    let touching = Affine3A::from_translation(Vec3::new(1.0, 0.0, 0.0));
    assert_eq!(
        check(&a, &a, &touching, None, "far, touching").map(|d| d.distance),
        Some(0.0)
    );
    let apart = Affine3A::from_translation(Vec3::new(1.0625, 0.5, 0.0));
    let got = check(&a, &a, &apart, None, "far, apart").expect("not empty");
    assert!((got.distance - 0.0625).abs() < 1e-6, "{got:?}");
}

#[test]
fn a_mesh_inside_another_is_at_the_gap_between_the_surfaces() {
    let big = mesh(cube(4.0, 1));
    let small = mesh(cube(1.0, 1));
    let inside = Affine3A::from_translation(Vec3::new(0.5, 0.0, 0.0));
    let got = check(&big, &small, &inside, None, "inside").expect("not empty");
    assert_eq!(got.distance, 2.5);
    assert_eq!(got.point_on_self.x, 4.0);
    assert_eq!(got.point_on_other.x, 1.5);
}

#[test]
fn degenerate_and_empty_meshes() {
    let unit = mesh(cube(0.5, 0));
    // Only degenerate triangles: a needle and a point, which the tree leaves out.
    let odd = Mesh::from_triangles(
        &[[2.0, 0.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, 1.5]],
        &[[0, 1, 1], [2, 2, 2]],
    )
    .expect("odd");
    assert_eq!(odd.tri_mesh().degenerate_count(), 2);
    let got = check(&unit, &odd, &Affine3A::IDENTITY, None, "needle").expect("not empty");
    // The point, 1 above the top face; the needle is 1.5 from the side.
    assert_eq!((got.distance, got.triangle_other), (1.0, 1));
    let got = check(&odd, &unit, &Affine3A::IDENTITY, None, "needle as self").expect("not empty");
    assert_eq!((got.distance, got.triangle_self), (1.0, 1));
    check(
        &odd,
        &odd,
        &Affine3A::from_translation(Vec3::Y),
        None,
        "both degenerate",
    );
    let empty = Mesh::from_triangles(&[], &[]).expect("empty");
    assert_eq!(unit.mesh_distance(&empty, &Affine3A::IDENTITY, None), None);
    assert_eq!(empty.mesh_distance(&unit, &Affine3A::IDENTITY, None), None);
    let nan = Affine3A::from_translation(Vec3::splat(f32::NAN));
    assert_eq!(unit.mesh_distance(&unit, &nan, None), None);
    assert_eq!(
        unit.mesh_distance(&unit, &Affine3A::IDENTITY, Some(-1.0)),
        None
    );
    assert_eq!(
        unit.mesh_distance(&unit, &Affine3A::IDENTITY, Some(f32::NAN)),
        None
    );
}
