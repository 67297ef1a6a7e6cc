//! `Mesh::self_intersections` against references that use no tree: every pair of triangles
//! on the small assets, and a sweep over boxes sorted along x on every asset (only pairs
//! whose boxes overlap can meet), both with the same exact pair test; and on meshes built to
//! cut themselves or to touch only where they should: folds, pinched vertices, a mesh with
//! an overlapping copy of itself, closed shapes, random perturbations, unwelded and
//! degenerate triangles.

use meshcast::glam::{Affine3A, DVec3, Vec3};
use meshcast::prelude::*;
use meshcast::{triangles_intersect_beyond_shared, Mesh, TriMesh};
use meshcast_testkit::{all_assets, asset, cube, icosphere, random_direction, rng, torus};
use rand::Rng;

fn corners(mesh: &Mesh) -> Vec<[DVec3; 3]> {
    let tri = mesh.tri_mesh();
    tri.indices()
        .iter()
        .map(|c| c.map(|v| tri.positions()[v as usize].as_dvec3()))
        .collect()
}

fn bounds(c: &[DVec3; 3]) -> (DVec3, DVec3) {
    (c[0].min(c[1]).min(c[2]), c[0].max(c[1]).max(c[2]))
}

/// Every pair `i < j`, in order.
fn brute_force(mesh: &Mesh) -> Vec<(u32, u32)> {
    let all = corners(mesh);
    let mut pairs = Vec::new();
    for i in 0..all.len() {
        for j in i + 1..all.len() {
            if triangles_intersect_beyond_shared(&all[i], &all[j]) {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}

/// Sort and sweep along x: every pair whose boxes overlap, to the exact test.
fn sweep(mesh: &Mesh) -> Vec<(u32, u32)> {
    let all = corners(mesh);
    let boxes: Vec<_> = all.iter().map(bounds).collect();
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by(|&i, &j| boxes[i].0.x.total_cmp(&boxes[j].0.x));
    let mut pairs = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].0.x > boxes[i].1.x {
                break;
            }
            let overlap = boxes[i].0.cmple(boxes[j].1).all() && boxes[j].0.cmple(boxes[i].1).all();
            if overlap && triangles_intersect_beyond_shared(&all[i], &all[j]) {
                pairs.push((i.min(j) as u32, i.max(j) as u32));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

fn mesh(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Mesh {
    Mesh::from_triangles(positions, triangles).expect("valid mesh")
}

fn from_tri(tri: TriMesh) -> Mesh {
    Mesh::from_tri_mesh(tri, &Default::default())
}

fn check(mesh: &Mesh, name: &str) -> Vec<(u32, u32)> {
    let pairs = mesh.self_intersections();
    assert_eq!(pairs, sweep(mesh), "{name}");
    pairs
}

/// `a` and `b` as one mesh, `b`'s vertices and triangles after `a`'s.
fn joined(a: &TriMesh, b: &TriMesh) -> Mesh {
    let positions: Vec<[f32; 3]> = a
        .positions()
        .iter()
        .chain(b.positions())
        .map(|p| p.to_array())
        .collect();
    let offset = a.positions().len() as u32;
    let triangles: Vec<[u32; 3]> = a
        .indices()
        .iter()
        .copied()
        .chain(b.indices().iter().map(|t| t.map(|v| v + offset)))
        .collect();
    mesh(&positions, &triangles)
}

fn moved(tri: &TriMesh, transform: Affine3A) -> TriMesh {
    let positions: Vec<[f32; 3]> = tri
        .positions()
        .iter()
        .map(|&p| transform.transform_point3(p).to_array())
        .collect();
    TriMesh::from_triangles(&positions, tri.indices()).expect("finite")
}

#[test]
fn small_assets_match_every_pair() {
    for name in ["suzanne.obj", "woody.obj", "cow.obj"] {
        let m = Mesh::from_path(asset(name)).expect("asset loads");
        let pairs = m.self_intersections();
        assert_eq!(pairs, brute_force(&m), "{name}");
        assert_eq!(pairs, sweep(&m), "{name}: the sweep");
    }
}

#[test]
fn every_asset_matches_the_sweep() {
    let mut report = Vec::new();
    for path in all_assets() {
        let m = Mesh::from_path(&path).expect("asset loads");
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let pairs = check(&m, &name);
        report.push(format!(
            "{name}: {} pairs among {} triangles",
            pairs.len(),
            m.triangle_count()
        ));
    }
    println!("{}", report.join("\n"));
}

#[test]
fn closed_shapes_do_not_cut_themselves() {
    for (tri, name) in [
        (cube(0.5, 0), "cube"),
        (cube(1.0, 3), "subdivided cube"),
        (icosphere(3), "icosphere"),
        (torus(1.0, 0.3, 24, 12), "torus"),
    ] {
        assert_eq!(check(&from_tri(tri), name), [], "{name}");
    }
}

#[test]
fn a_fold_over_an_edge_is_reported() {
    let positions = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.25, 0.25, 0.0],
        [1.0, 1.0, 0.0],
    ];
    // Folded back over the shared edge 1 2, flat: overlapping near the edge.
    let folded = mesh(&positions, &[[0, 1, 2], [2, 1, 3]]);
    assert_eq!(check(&folded, "fold"), [(0, 1)]);
    // Unfolded, and bent out of the plane: not.
    let flat = mesh(&positions, &[[0, 1, 2], [2, 1, 4]]);
    assert_eq!(check(&flat, "flat"), []);
    let bent = mesh(
        &[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.25, 0.25, 1.0],
        ],
        &[[0, 1, 2], [2, 1, 3]],
    );
    assert_eq!(check(&bent, "bent"), []);
    // The same face twice, in either winding.
    let twice = mesh(&positions, &[[0, 1, 2], [0, 2, 1], [0, 1, 2]]);
    assert_eq!(check(&twice, "duplicate faces"), [(0, 1), (0, 2), (1, 2)]);
}

#[test]
fn a_pinched_vertex_is_not_reported_and_a_pierced_one_is() {
    // Two tetrahedra meeting tip to tip at the origin, by one shared index.
    let tip = [0.0, 0.0, 0.0];
    let up = [[1.0, 0.0, 1.0], [-1.0, 1.0, 1.0], [-1.0, -1.0, 1.0]];
    let down = up.map(|[x, y, z]| [x, y, -z]);
    let mut positions = vec![tip];
    positions.extend(up);
    positions.extend(down);
    let cone = |base: u32| {
        [
            [0, base, base + 1],
            [0, base + 1, base + 2],
            [0, base + 2, base],
            [base, base + 2, base + 1],
        ]
    };
    let triangles: Vec<[u32; 3]> = cone(1).into_iter().chain(cone(4)).collect();
    let pinched = mesh(&positions, &triangles);
    assert_eq!(check(&pinched, "pinched"), []);
    // The same with the tip duplicated (shared by position only).
    positions.push(tip);
    let split: Vec<[u32; 3]> = cone(1)
        .into_iter()
        .chain(cone(4).map(|t| t.map(|v| if v == 0 { 7 } else { v })))
        .collect();
    assert_eq!(check(&mesh(&positions, &split), "pinched, unwelded"), []);
    // The lower one turned up inside the upper: its sides lie on the upper one's, its base
    // touches them.
    let pierced: Vec<[f32; 3]> = positions
        .iter()
        .enumerate()
        .map(|(i, &[x, y, z])| {
            if (4..7).contains(&i) {
                [x, y, z + 1.5]
            } else {
                [x, y, z]
            }
        })
        .collect();
    let crossing = check(&mesh(&pierced, &triangles), "pierced");
    assert!(!crossing.is_empty());
    assert!(
        crossing.iter().all(|&(i, j)| i < 4 && j >= 4),
        "{crossing:?}"
    );
}

#[test]
fn a_mesh_with_an_overlapping_copy_reports_the_crossings() {
    let mut rng = rng(3201);
    for name in ["suzanne.obj", "cow.obj"] {
        let original = Mesh::from_path(asset(name)).expect("asset loads");
        let own = original.self_intersections();
        let tri = original.tri_mesh();
        let extent = original.bounds().extent().max_element();
        let centre = original.bounds().centroid();
        for _ in 0..3 {
            let axis = random_direction(&mut rng);
            let angle = rng.gen_range(0.3..3.0);
            let offset = (Vec3::from(rng.gen::<[f32; 3]>()) - 0.5) * 0.2 * extent;
            let place = Affine3A::from_translation(centre + offset)
                * Affine3A::from_axis_angle(axis, angle)
                * Affine3A::from_translation(-centre);
            let copy = moved(tri, place);
            let both = joined(tri, &copy);
            let pairs = check(&both, name);
            // The copy's own pairs may differ (its corners are rounded), so take them from
            // the copy itself; the crossings are the two meshes' intersecting pairs.
            let n = original.triangle_count() as u32;
            let copy_own = from_tri(copy.clone()).self_intersections();
            let crossings = original.intersecting_pairs(&from_tri(copy), &Affine3A::IDENTITY);
            let mut expected: Vec<(u32, u32)> = own
                .iter()
                .copied()
                .chain(crossings.iter().map(|&(i, j)| (i, j + n)))
                .chain(copy_own.iter().map(|&(i, j)| (i + n, j + n)))
                .collect();
            expected.sort_unstable();
            assert_eq!(pairs, expected, "{name}");
            assert!(!crossings.is_empty(), "{name}: the copy overlaps");
        }
    }
}

#[test]
fn random_perturbations_match_the_references() {
    let mut rng = rng(3202);
    let base = icosphere(2);
    for round in 0..12 {
        // Strong noise, on a grid of quarters every other round so that coplanar and
        // collinear corners (and degenerate triangles) come up.
        let snap = round % 2 == 1;
        let amount = [0.05, 0.2, 0.6][round % 3];
        let positions: Vec<[f32; 3]> = base
            .positions()
            .iter()
            .map(|&p| {
                let noise = Vec3::from(rng.gen::<[f32; 3]>()) - 0.5;
                let q = (p + noise * amount) * 4.0;
                let q = if snap { q.round() / 4.0 } else { q / 4.0 };
                q.to_array()
            })
            .collect();
        let m = mesh(&positions, base.indices());
        assert_eq!(m.self_intersections(), brute_force(&m), "round {round}");
    }
}

#[test]
fn an_unwelded_mesh_answers_as_the_welded_one() {
    let mut rng = rng(3203);
    let base = icosphere(2);
    let positions: Vec<[f32; 3]> = base
        .positions()
        .iter()
        .map(|&p| (p + (Vec3::from(rng.gen::<[f32; 3]>()) - 0.5) * 0.5).to_array())
        .collect();
    let welded = mesh(&positions, base.indices());
    let soup_positions: Vec<[f32; 3]> = base
        .indices()
        .iter()
        .flat_map(|t| t.map(|v| positions[v as usize]))
        .collect();
    let soup_triangles: Vec<[u32; 3]> = (0..base.indices().len() as u32)
        .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
        .collect();
    let soup = mesh(&soup_positions, &soup_triangles);
    let pairs = check(&welded, "welded");
    assert!(!pairs.is_empty());
    assert_eq!(check(&soup, "soup"), pairs);
}

#[test]
fn degenerate_triangles_follow_the_rule() {
    let positions = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.5, 0.5, 0.0],
        [2.0, -1.0, 0.0],
        [0.25, 0.25, 0.0],
        [0.5, 0.25, -1.0],
        [0.5, 0.25, 1.0],
    ];
    let triangles = [
        [0, 1, 2],
        // A needle along the edge 1 2: nothing beyond it.
        [1, 3, 2],
        // A needle from 1 on the line of 1 2, away from the triangle.
        [2, 1, 4],
        // A needle from 0 into the face.
        [0, 5, 5],
        // A needle through the face, sharing nothing.
        [6, 7, 7],
    ];
    let m = mesh(&positions, &triangles);
    assert_eq!(m.tri_mesh().degenerate_count(), 4);
    let pairs = check(&m, "degenerate");
    assert_eq!(pairs, brute_force(&m));
    assert_eq!(pairs, [(0, 3), (0, 4)]);
}

#[test]
fn answers_do_not_depend_on_the_number_of_threads() {
    let mut rng = rng(3204);
    let tri = cube(1.0, 3);
    let positions: Vec<[f32; 3]> = tri
        .positions()
        .iter()
        .map(|&p| (p + (Vec3::from(rng.gen::<[f32; 3]>()) - 0.5) * 0.5).to_array())
        .collect();
    let m = mesh(&positions, tri.indices());
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| m.self_intersections())
    };
    let one = on(1);
    assert!(!one.is_empty());
    assert_eq!(one, on(2));
    assert_eq!(one, on(3));
}

#[test]
fn empty_and_single_triangle_meshes_have_none() {
    assert_eq!(mesh(&[], &[]).self_intersections(), []);
    let one = mesh(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]]);
    assert_eq!(one.self_intersections(), []);
}
