//! `meshcast contains` and `meshcast distance` end to end: a cube written as OBJ, points read
//! from a file and from standard input, every answer the library's, in order.

use std::path::{Path, PathBuf};

use crate::support::{arg, run, run_in, scratch, Run};
use meshcast::glam::Vec3;
use meshcast::{Mesh, MeshFiles, PointQueries};

/// A cube from -1 to 1, six quads wound outwards (triangulated on load).
const CUBE: &str = "\
v -1 -1 -1\nv 1 -1 -1\nv -1 1 -1\nv 1 1 -1\nv -1 -1 1\nv 1 -1 1\nv -1 1 1\nv 1 1 1
f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6
";

/// Points inside and outside the cube, among them inside ones whose ray along `+x` leaves
/// through the diagonal shared by the two triangles of the face `x = 1` (where `y == z`): a
/// crossing test that is not watertight could count it twice or not at all.
fn cube_points() -> Vec<Vec3> {
    let mut points = vec![
        Vec3::ZERO,
        Vec3::new(0.5, 0.5, 0.5),
        Vec3::new(-0.9, -0.3, -0.3),
        Vec3::new(0.25, 0.999, 0.999),
        Vec3::new(0.1, -0.2, 0.7),
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(-2.0, 0.5, 0.5),
        Vec3::new(0.0, 3.0, 0.0),
        Vec3::splat(2.0),
        Vec3::new(-1.5, -1.0, -1.0),
    ];
    // A grid across the cube's middle and beyond: rays along the diagonal, along the cube's
    // edges (points on the surface) and past it.
    for i in -6..=6 {
        for j in -6..=6 {
            points.push(Vec3::new(0.0, i as f32 / 4.0, j as f32 / 4.0));
        }
    }
    points
}

/// Points as `contains` and `distance` read them, printed so they read back exactly.
fn point_lines(points: &[Vec3]) -> String {
    points
        .iter()
        .map(|p| format!("{} {} {}\n", p.x, p.y, p.z))
        .collect()
}

/// Runs `meshcast COMMAND MESH --points -` on `input`.
fn ask(command: &str, mesh: &Path, input: &[u8]) -> Run {
    run_in(None, &[command, arg(mesh), "--points", "-"], input)
}

/// The cube written to a scratch folder, and the mesh the library makes of it.
fn cube(test: &str) -> (PathBuf, Mesh) {
    let path = scratch(test).join("cube.obj");
    std::fs::write(&path, CUBE).expect("write cube");
    let mesh = Mesh::from_obj(&path).expect("cube loads");
    assert_eq!(mesh.triangle_count(), 12);
    (path, mesh)
}

#[test]
fn contains_prints_the_librarys_answers_in_order() {
    let (path, mesh) = cube("contains");
    let points = cube_points();
    let text = point_lines(&points);
    let file = path.with_file_name("points.txt");
    std::fs::write(&file, format!("# x y z\n\n{text}")).expect("write points");
    let from_file = run(&["contains", arg(&path), "--points", arg(&file)]);
    let from_stdin = ask("contains", &path, text.as_bytes());
    assert!(from_file.success, "{}", from_file.stderr);
    assert_eq!(from_file.stdout, from_stdin.stdout);

    let lines: Vec<&str> = from_file.stdout.lines().collect();
    assert_eq!(lines.len(), points.len());
    for ((line, point), inside) in lines.iter().zip(&points).zip(mesh.contains_batch(&points)) {
        assert_eq!(*line, if inside { "inside" } else { "outside" }, "{point}");
        // Off the surface, the truth is plain for a cube.
        let depth = 1.0 - point.abs().max_element();
        if depth.abs() > 1e-3 {
            assert_eq!(inside, depth > 0.0, "{point}");
        }
    }
    assert_eq!(lines[..5], ["inside"; 5]);
    assert_eq!(lines[5..10], ["outside"; 5]);
}

#[test]
fn distance_prints_the_librarys_signed_distances_exactly() {
    let (path, mesh) = cube("distance");
    let points = cube_points();
    let out = ask("distance", &path, point_lines(&points).as_bytes());
    assert!(out.success, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let expected = mesh.signed_distance_batch(&points);
    assert_eq!(lines.len(), points.len());
    for ((line, point), expected) in lines.iter().zip(&points).zip(expected) {
        let expected = expected.expect("the cube has triangles");
        let printed: f32 = line.parse().expect("a number");
        assert_eq!(printed.to_bits(), expected.to_bits(), "{point}: {line}");
    }
    assert_eq!(lines[..2], ["-1", "-0.5"]);
    assert_eq!(lines[5], "1");
}

/// An OBJ file needs a face, but a mesh whose faces all have zero area has no surface.
#[test]
fn a_mesh_of_degenerate_triangles_has_no_distance_and_no_inside() {
    let path = scratch("degenerate-mesh").join("flat.obj");
    std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n").expect("write mesh");
    let input = b"0 0 0\n1 2 3\n";
    let distance = ask("distance", &path, input);
    assert!(distance.success, "{}", distance.stderr);
    assert_eq!(distance.stdout, "none\nnone\n");
    let contains = ask("contains", &path, input);
    assert!(contains.success, "{}", contains.stderr);
    assert_eq!(contains.stdout, "outside\noutside\n");
}

#[test]
fn more_points_than_one_chunk_stream_in_order() {
    let (path, mesh) = cube("chunks");
    // More than one chunk of 2^16 lines.
    let points: Vec<Vec3> = (0..70_000)
        .map(|i| {
            Vec3::new(
                (i % 7) as f32 * 0.4 - 1.2,
                0.0,
                (i % 11) as f32 * 0.25 - 1.25,
            )
        })
        .collect();
    let out = ask("contains", &path, point_lines(&points).as_bytes());
    assert!(out.success, "{}", out.stderr);
    let expected: String = mesh
        .contains_batch(&points)
        .iter()
        .map(|&inside| if inside { "inside\n" } else { "outside\n" })
        .collect();
    assert_eq!(out.stdout, expected);
}
