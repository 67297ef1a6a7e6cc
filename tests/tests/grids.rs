//! Grids of point queries (`Mesh::signed_distance_grid`, `occupancy_grid`,
//! `winding_number_grid`) against the per-point calls at the same points, bit for bit: on
//! closed and open assets, with and without a narrow band, with axes of one point, on an
//! empty mesh and on a mesh opened by a missing triangle.

use meshcast::glam::Vec3;
use meshcast::{Aabb, Grid, Mesh, MeshFiles, PointQueries};
use meshcast_testkit::{asset, cube};

/// The mesh's box grown by a fifth of its size on every side.
fn around(mesh: &Mesh) -> Aabb {
    let bounds = mesh.bounds();
    let margin = bounds.extent() * 0.2;
    Aabb::new(bounds.min - margin, bounds.max + margin)
}

/// The box's diagonal.
fn diagonal(bounds: &Aabb) -> f32 {
    bounds.extent().length()
}

/// The per-point signed distance as the grid writes it: infinity with no surface, NaN at a
/// point that is not finite, clamped to `±band` (by `contains`) beyond the band.
fn expected_distance(mesh: &Mesh, point: Vec3, band: Option<f32>) -> f32 {
    let value = mesh.signed_distance(point).unwrap_or(if point.is_finite() {
        f32::INFINITY
    } else {
        f32::NAN
    });
    match band {
        Some(band) if value.abs() > band => {
            if mesh.contains(point) {
                -band
            } else {
                band
            }
        }
        _ => value,
    }
}

/// Checks the three grids of `mesh` over `bounds` and `shape` against the per-point calls,
/// bit for bit, with no band and with each of `bands`; returns how many values the first
/// band clamped.
fn check(name: &str, mesh: &Mesh, bounds: Aabb, shape: [usize; 3], bands: &[f32]) -> usize {
    let grid = Grid::new(bounds, shape);
    let points: Vec<Vec3> = grid.points().collect();
    assert_eq!(points.len(), grid.len());

    let occupancy = mesh.occupancy_grid(bounds, shape);
    assert_eq!(occupancy, mesh.contains_batch(&points), "{name}: occupancy");

    let winding = mesh.winding_number_grid(bounds, shape);
    let expected: Vec<u32> = mesh
        .winding_number_batch(&points)
        .iter()
        .map(|w| w.to_bits())
        .collect();
    let got: Vec<u32> = winding.iter().map(|w| w.to_bits()).collect();
    assert_eq!(got, expected, "{name}: winding numbers");

    let mut clamped = 0;
    for (b, band) in [None]
        .into_iter()
        .chain(bands.iter().map(|&b| Some(b)))
        .enumerate()
    {
        let values = mesh.signed_distance_grid(bounds, shape, band);
        assert_eq!(values.len(), points.len());
        for (index, (&value, &point)) in values.iter().zip(&points).enumerate() {
            let expected = expected_distance(mesh, point, band);
            assert_eq!(
                value.to_bits(),
                expected.to_bits(),
                "{name}: signed distance at {point} (index {index}, band {band:?}): {value} against {expected}"
            );
            if b == 1 && band.is_some_and(|band| value.abs() == band) {
                clamped += 1;
            }
        }
    }
    clamped
}

#[test]
fn grids_equal_the_per_point_queries_on_the_assets() {
    for name in ["stanford-bunny.obj", "cow.obj", "suzanne.obj", "spot.obj"] {
        let mesh = Mesh::from_obj(asset(name)).expect("the asset loads");
        let bounds = around(&mesh);
        let band = 0.02 * diagonal(&mesh.bounds());
        // Coarse along z: every clamped point asks `contains`.
        let clamped = check(
            name,
            &mesh,
            bounds,
            [13, 11, 9],
            &[band, 0.25 * diagonal(&bounds)],
        );
        assert!(clamped > 0, "{name}: the band clamped nothing");
        // Fine along z (spacing under half the band): on closed meshes, runs of clamped
        // points share one `contains`.
        let nz = (2.0 * bounds.extent().z / band).ceil() as usize + 2;
        assert!(bounds.extent().z / (nz - 1) as f32 <= band / 2.0);
        check(name, &mesh, bounds, [5, 4, nz], &[band]);
    }
}

#[test]
fn grids_with_axes_of_one_point() {
    let mesh = Mesh::from_obj(asset("cow.obj")).expect("the asset loads");
    let bounds = around(&mesh);
    let band = 0.05 * diagonal(&bounds);
    for shape in [
        [1, 1, 1],
        [1, 7, 1],
        [9, 1, 1],
        [1, 1, 40],
        [6, 1, 5],
        [1, 6, 5],
    ] {
        check(&format!("cow {shape:?}"), &mesh, bounds, shape, &[band]);
    }
    // An axis of one point sits at the box's minimum.
    let grid = Grid::new(bounds, [1, 1, 1]);
    assert_eq!(grid.point([0, 0, 0]), bounds.min);
    let grid = Grid::new(bounds, [2, 3, 4]);
    assert_eq!(grid.point([1, 2, 3]), bounds.max);
}

#[test]
fn grids_of_no_points_and_of_an_empty_mesh() {
    let mesh = Mesh::from_obj(asset("cow.obj")).expect("the asset loads");
    let bounds = around(&mesh);
    for shape in [[0, 4, 4], [4, 0, 4], [4, 4, 0]] {
        assert!(mesh.signed_distance_grid(bounds, shape, None).is_empty());
        assert!(mesh
            .signed_distance_grid(bounds, shape, Some(0.1))
            .is_empty());
        assert!(mesh.occupancy_grid(bounds, shape).is_empty());
        assert!(mesh.winding_number_grid(bounds, shape).is_empty());
    }

    let empty = Mesh::from_triangles(&[], &[]).expect("an empty mesh");
    let shape = [3, 2, 4];
    assert!(empty
        .signed_distance_grid(bounds, shape, None)
        .iter()
        .all(|&d| d == f32::INFINITY));
    assert!(empty
        .signed_distance_grid(bounds, shape, Some(0.5))
        .iter()
        .all(|&d| d == 0.5));
    assert!(empty
        .occupancy_grid(bounds, shape)
        .iter()
        .all(|&inside| !inside));
    assert!(empty
        .winding_number_grid(bounds, shape)
        .iter()
        .all(|&w| w == 0.0));
    check("empty", &empty, bounds, shape, &[0.5]);
}

#[test]
fn grids_on_an_open_mesh_and_odd_bands() {
    // The cube from -2 to 2 with its first triangle taken away.
    let closed = cube(2.0, 2);
    let positions: Vec<[f32; 3]> = closed.positions().iter().map(|p| p.to_array()).collect();
    let indices = &closed.indices()[1..];
    let open = Mesh::from_triangles(&positions, indices).expect("a mesh");
    assert!(!open.is_closed());
    let bounds = Aabb::new(Vec3::splat(-3.0), Vec3::splat(3.0));
    check("open cube", &open, bounds, [9, 8, 30], &[0.4]);

    // Points on the surface and the corners of the faces: grid lines at the cube's integers.
    let closed = Mesh::from_tri_mesh(closed, &Default::default());
    let bounds = Aabb::new(Vec3::splat(-4.0), Vec3::splat(4.0));
    check(
        "closed cube",
        &closed,
        bounds,
        [9, 9, 33],
        &[0.5, 0.0, 1e-30],
    );

    // A NaN or infinite band is no band; a negative one is 0.
    let none = closed.signed_distance_grid(bounds, [5, 5, 5], None);
    for band in [f32::NAN, f32::INFINITY] {
        let got = closed.signed_distance_grid(bounds, [5, 5, 5], Some(band));
        assert_eq!(
            got.iter().map(|d| d.to_bits()).collect::<Vec<_>>(),
            none.iter().map(|d| d.to_bits()).collect::<Vec<_>>()
        );
    }
    let zero = closed.signed_distance_grid(bounds, [5, 5, 5], Some(0.0));
    let negative = closed.signed_distance_grid(bounds, [5, 5, 5], Some(-1.0));
    assert_eq!(
        zero.iter().map(|d| d.to_bits()).collect::<Vec<_>>(),
        negative.iter().map(|d| d.to_bits()).collect::<Vec<_>>()
    );

    // A box that is not finite: NaN distances, nothing inside.
    let bad = Aabb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE);
    check("nan box", &closed, bad, [3, 2, 2], &[0.5]);
}

/// The open cube from -2 to 2 with the triangles of its face `x = 2` taken away (a square
/// hole whose rim runs along grid lines), moved by `offset`.
fn open_cube(offset: Vec3) -> Mesh {
    let closed = cube(2.0, 2);
    let positions: Vec<[f32; 3]> = closed
        .positions()
        .iter()
        .map(|p| (*p + offset).to_array())
        .collect();
    let kept: Vec<[u32; 3]> = closed
        .indices()
        .iter()
        .filter(|t| !t.iter().all(|&v| closed.positions()[v as usize].x == 2.0))
        .copied()
        .collect();
    Mesh::from_triangles(&positions, &kept).expect("a mesh")
}

#[test]
fn grids_on_the_open_bunny_fine_enough_to_settle_blocks() {
    // Spacing about a fifth of the band: blocks of points far from the surface are
    // proven clamped and on one side, the rest asked point by point.
    let mesh = Mesh::from_obj(asset("stanford-bunny.obj")).expect("the asset loads");
    assert!(!mesh.is_closed());
    let bounds = around(&mesh);
    let band = 0.05 * diagonal(&mesh.bounds());
    let clamped = check("bunny", &mesh, bounds, [36, 34, 30], &[band, 0.0]);
    assert!(clamped > 36 * 34 * 30 / 2, "{clamped} clamped");
}

#[test]
fn grids_on_open_meshes_through_their_vertices_rims_and_faces() {
    // Grid lines at the integers and halves: points on the faces, the edges, the corners
    // and the rim of the hole, rows along the edges.
    let bounds = Aabb::new(Vec3::splat(-4.0), Vec3::splat(4.0));
    let open = open_cube(Vec3::ZERO);
    assert!(!open.is_closed());
    check("open cube", &open, bounds, [33, 33, 33], &[0.5, 0.0, 1e-30]);
    // Shifted by a quarter spacing: the same with no point on the surface.
    let shifted = Aabb::new(Vec3::splat(-3.9375), Vec3::splat(4.0625));
    check("open cube, shifted", &open, shifted, [33, 33, 33], &[0.5]);

    // One square, two triangles: the winding number jumps across it, ½ on it.
    let square = Mesh::from_triangles(
        &[
            [-1.0, -1.0, 0.0],
            [1.0, -1.0, 0.0],
            [1.0, 1.0, 0.0],
            [-1.0, 1.0, 0.0],
        ],
        &[[0, 1, 2], [0, 2, 3]],
    )
    .expect("a mesh");
    let near = Aabb::new(Vec3::splat(-2.0), Vec3::splat(2.0));
    check("square", &square, near, [17, 17, 33], &[0.25, 0.0]);
}

#[test]
fn grids_on_an_open_mesh_far_from_the_origin() {
    let offset = Vec3::new(3000.0, -1500.0, 500.0);
    let open = open_cube(offset);
    let bounds = Aabb::new(offset - 4.0, offset + 4.0);
    let clamped = check("open cube far away", &open, bounds, [25, 24, 26], &[0.5]);
    assert!(clamped > 0, "the band clamped nothing");
}
