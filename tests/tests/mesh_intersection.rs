//! `Mesh::intersects` and `Mesh::intersecting_pairs` against brute force (every pair of
//! triangles with the exact test, the other mesh carried the same way), on the assets under
//! random transforms, and on placements built to touch: copies on top, shared corners and
//! faces, a mesh inside another without contact, far from the origin, degenerate triangles.

use meshcast::glam::{Affine3A, DVec3, Quat, Vec3};
use meshcast::prelude::*;
use meshcast::{triangles_intersect, Mesh, TriMesh};
use meshcast_testkit::{asset, carried_corners, cube, random_transform, rng, transformed};

fn load(name: &str) -> Mesh {
    Mesh::from_path(asset(name)).expect("asset loads")
}

/// Every pair, in order, with a box check first (same answer, faster).
fn brute_force(a: &Mesh, b: &Mesh, b_to_a: &Affine3A) -> Vec<(u32, u32)> {
    let ca = carried_corners(a, &Affine3A::IDENTITY);
    let cb = carried_corners(b, b_to_a);
    let bounds = |c: &[DVec3; 3]| (c[0].min(c[1]).min(c[2]), c[0].max(c[1]).max(c[2]));
    let boxes_b: Vec<_> = cb.iter().map(bounds).collect();
    let mut pairs = Vec::new();
    for (i, ta) in ca.iter().enumerate() {
        let (min_a, max_a) = bounds(ta);
        for (j, tb) in cb.iter().enumerate() {
            let (min_b, max_b) = boxes_b[j];
            if min_a.cmple(max_b).all() && min_b.cmple(max_a).all() && triangles_intersect(ta, tb) {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}

fn check(a: &Mesh, b: &Mesh, b_to_a: &Affine3A, name: &str) -> Vec<(u32, u32)> {
    let pairs = a.intersecting_pairs(b, b_to_a);
    assert_eq!(pairs, brute_force(a, b, b_to_a), "{name}");
    assert_eq!(a.intersects(b, b_to_a), !pairs.is_empty(), "{name}");
    pairs
}

fn mesh(tri_mesh: TriMesh) -> Mesh {
    Mesh::from_tri_mesh(tri_mesh, &Default::default())
}

#[test]
fn assets_under_random_transforms_match_brute_force() {
    let mut rng = rng(32);
    let cow = load("cow.obj");
    let suzanne = load("suzanne.obj");
    let mut hits = 0;
    for (a, b, name) in [
        (&cow, &suzanne, "cow and suzanne"),
        (&suzanne, &cow, "suzanne and cow"),
        (&suzanne, &suzanne, "suzanne twice"),
    ] {
        let (ca, cb) = (a.bounds().centroid(), b.bounds().centroid());
        let size = a.bounds().extent().max_element() / b.bounds().extent().max_element();
        for _ in 0..6 {
            // Centre on centre, turned, scaled (sometimes mirrored) about the other's size.
            let spin = random_transform(&mut rng, 0.1 * a.bounds().extent().max_element());
            let transform = Affine3A::from_translation(ca)
                * spin
                * Affine3A::from_scale(Vec3::splat(size * 0.5))
                * Affine3A::from_translation(-cb);
            if !check(a, b, &transform, name).is_empty() {
                hits += 1;
            }
        }
    }
    assert!(hits >= 12, "most placements overlap: {hits}");
}

#[test]
fn bunny_against_suzanne_matches_brute_force() {
    let bunny = load("stanford-bunny.obj");
    let suzanne = load("suzanne.obj");
    let scale = bunny.bounds().extent().max_element() / suzanne.bounds().extent().max_element();
    let transform = Affine3A::from_scale_rotation_translation(
        Vec3::splat(scale * 0.8),
        Quat::from_rotation_y(0.7),
        bunny.bounds().centroid(),
    ) * Affine3A::from_translation(-suzanne.bounds().centroid());
    let pairs = check(&bunny, &suzanne, &transform, "bunny and suzanne");
    assert!(pairs.len() > 100, "{}", pairs.len());
}

#[test]
fn a_copy_on_top_meets_every_triangle_of_itself() {
    for name in ["suzanne.obj", "cow.obj"] {
        let m = load(name);
        let pairs = check(&m, &m, &Affine3A::IDENTITY, name);
        for t in 0..m.triangle_count() as u32 {
            assert!(pairs.binary_search(&(t, t)).is_ok(), "{name}: {t}");
        }
    }
}

#[test]
fn cubes_touching_at_a_corner_along_an_edge_and_on_a_face() {
    let unit = mesh(cube(0.5, 1));
    let placements = [
        (Vec3::new(1.0, 1.0, 1.0), "corner"),
        (Vec3::new(1.0, 1.0, 0.25), "edge"),
        (Vec3::new(1.0, 0.5, 0.25), "face"),
        (Vec3::new(0.0, 0.0, 1.0), "face, aligned"),
    ];
    for (offset, name) in placements {
        let touching = Affine3A::from_translation(offset);
        assert!(!check(&unit, &unit, &touching, name).is_empty(), "{name}");
        // A step of 2^-20 further along x (or z) parts them.
        let step = if offset.x != 0.0 { Vec3::X } else { Vec3::Z } * 2f32.powi(-20);
        let apart = Affine3A::from_translation(offset + step);
        assert!(
            check(&unit, &unit, &apart, name).is_empty(),
            "{name}, apart"
        );
    }
    // Turned a quarter about z: the same cube, corners on corners, faces on faces.
    let quarter = Affine3A::from_rotation_z(std::f32::consts::FRAC_PI_2);
    assert!(unit.intersects(&unit, &quarter));
}

#[test]
fn turned_sheared_and_flattened_cubes_touching_along_an_edge() {
    // Exact maps (integers and halves): the turned boxes' face normals, which part boxes
    // that the axis-aligned ones do not, must never part these, which touch.
    let unit = mesh(cube(0.5, 3));
    let linear = |x: [f32; 3], y: [f32; 3], z: [f32; 3]| {
        Affine3A::from_cols(x.into(), y.into(), z.into(), Vec3::ZERO.into())
    };
    let maps = [
        // A quarter turn and a half about z, scaled by sqrt(2): leftmost along an edge.
        (
            linear([1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
            1.5,
            "turned",
        ),
        (
            linear([1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]),
            1.25,
            "sheared",
        ),
        (
            linear([1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]),
            1.5,
            "flattened",
        ),
        (
            linear([-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [0.0, 0.0, -1.0]),
            1.5,
            "mirrored",
        ),
    ];
    for (map, reach, name) in maps {
        let touching = Affine3A::from_translation(Vec3::new(reach, 0.25, 0.0)) * map;
        assert!(!check(&unit, &unit, &touching, name).is_empty(), "{name}");
        let apart = Affine3A::from_translation(Vec3::new(reach + 2f32.powi(-20), 0.25, 0.0)) * map;
        assert!(
            check(&unit, &unit, &apart, name).is_empty(),
            "{name}, apart"
        );
        // Pushed in a little: crossing, as brute force says.
        let crossing = Affine3A::from_translation(Vec3::new(reach - 0.1, 0.25, 0.1)) * map;
        assert!(
            !check(&unit, &unit, &crossing, name).is_empty(),
            "{name}, crossing"
        );
    }
}

#[test]
fn a_mesh_inside_another_without_contact_does_not_intersect() {
    let big = mesh(cube(4.0, 2));
    let suzanne = load("suzanne.obj");
    let inside = Affine3A::from_translation(-suzanne.bounds().centroid());
    assert!(suzanne.bounds().extent().max_element() < 7.0);
    assert!(check(&big, &suzanne, &inside, "inside").is_empty());
    assert!(check(&suzanne, &big, &inside.inverse(), "around").is_empty());
    // Scaled up until its surface pokes through the cube's.
    let poking = Affine3A::from_scale(Vec3::splat(4.0)) * inside;
    assert!(!check(&big, &suzanne, &poking, "poking").is_empty());
}

#[test]
fn far_from_the_origin_touching_is_exact() {
    let offset = Vec3::new(1e6, -2e6, 1e6);
    let far = |tri: TriMesh| {
        Mesh::from_tri_mesh(
            transformed(&tri, Affine3A::from_translation(offset)),
            &Default::default(),
        )
    };
    let a = far(cube(0.5, 1));
    let touching = Affine3A::from_translation(Vec3::new(1.0, 0.0, 0.0));
    assert!(!check(&a, &a, &touching, "far, face to face").is_empty());
    // One f32 step of 1e6 further: apart.
    let apart = Affine3A::from_translation(Vec3::new(1.0625, 0.0, 0.0));
    assert!(check(&a, &a, &apart, "far, apart").is_empty());
}

#[test]
fn degenerate_triangles_left_out_of_the_tree_are_tested() {
    let square = Mesh::from_triangles(
        &[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ],
        &[[0, 1, 2], [0, 2, 3]],
    )
    .expect("square");
    // A real triangle far away, a needle (collinear corners) through the square and a
    // point (three equal corners) on its diagonal.
    let odd = Mesh::from_triangles(
        &[
            [10.0, 10.0, 10.0],
            [11.0, 10.0, 10.0],
            [10.0, 11.0, 10.0],
            [0.25, 0.5, -1.0],
            [0.25, 0.5, 1.0],
            [0.25, 0.5, 3.0],
            [0.5, 0.5, 0.0],
        ],
        &[[0, 1, 2], [3, 4, 5], [6, 6, 6]],
    )
    .expect("odd");
    assert_eq!(odd.tri_mesh().degenerate_count(), 2);
    let pairs = check(&square, &odd, &Affine3A::IDENTITY, "degenerate in other");
    assert_eq!(pairs, [(0, 2), (1, 1), (1, 2)]);
    let swapped = check(&odd, &square, &Affine3A::IDENTITY, "degenerate in self");
    assert_eq!(swapped, [(1, 1), (2, 0), (2, 1)]);
    // Degenerate against degenerate: a second needle, across the first and under the point.
    let needle =
        Mesh::from_triangles(&[[0.0, 0.5, 0.0], [1.0, 0.5, 0.0]], &[[0, 1, 1]]).expect("needle");
    assert_eq!(
        check(&odd, &needle, &Affine3A::IDENTITY, "both degenerate"),
        [(1, 0), (2, 0)]
    );
    let lifted = Affine3A::from_translation(Vec3::Z * 2f32.powi(-30));
    assert_eq!(check(&odd, &needle, &lifted, "lifted"), [(1, 0)]);
}

#[test]
fn answers_do_not_depend_on_the_number_of_threads() {
    let cow = load("cow.obj");
    let transform = Affine3A::from_rotation_x(0.4) * Affine3A::from_scale(Vec3::splat(0.9));
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| cow.intersecting_pairs(&cow, &transform))
    };
    let one = on(1);
    assert!(!one.is_empty());
    assert_eq!(one, on(2));
    assert_eq!(one, on(3));
}

#[test]
fn empty_meshes_and_unusable_transforms_meet_nothing() {
    let unit = mesh(cube(0.5, 0));
    let empty = Mesh::from_triangles(&[], &[]).expect("empty");
    assert!(!unit.intersects(&empty, &Affine3A::IDENTITY));
    assert!(!empty.intersects(&unit, &Affine3A::IDENTITY));
    let nan = Affine3A::from_translation(Vec3::splat(f32::NAN));
    assert!(!unit.intersects(&unit, &nan));
    assert!(unit.intersecting_pairs(&unit, &nan).is_empty());
}
