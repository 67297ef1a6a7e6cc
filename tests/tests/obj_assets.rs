//! Every asset loads, with the triangles its face lines describe, in file order.

use glam::{Vec2, Vec3};
use meshcast::TriMeshFiles;
use meshcast_mesh::{TriMesh, Warning};
use meshcast_testkit::{
    all_assets, asset, count_obj_triangles, obj_face_corners, obj_vertex_bounds,
};

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).expect("asset is text")
}

#[test]
fn every_asset_loads_with_the_triangle_count_of_its_face_lines() {
    let assets = all_assets();
    assert!(assets.len() >= 15, "assets/ holds the test meshes");
    for path in assets {
        let text = read(&path);
        let mesh = TriMesh::from_obj(&path).unwrap_or_else(|e| panic!("{e}"));
        let expected = count_obj_triangles(&text);
        assert!(expected > 0);
        assert_eq!(mesh.triangle_count(), expected, "{}", path.display());
        assert!(mesh.degenerate_count() < mesh.triangle_count() / 100 + 2);
        for warning in mesh.warnings() {
            assert!(
                matches!(warning, Warning::ConcaveFaces { .. }),
                "{}: {warning}",
                path.display()
            );
        }
    }
}

#[test]
fn bunny_bounds_are_those_of_its_vertex_lines() {
    let path = asset("stanford-bunny.obj");
    let mesh = TriMesh::from_obj(&path).expect("bunny loads");
    let expected = obj_vertex_bounds(&read(&path));
    assert_eq!(mesh.bounds(), expected);
    assert!(expected.extent().min_element() > 0.0);
}

/// Faces are triangulated in file order, convex ones as the fan `(c0, ci, ci+1)` from their
/// first corner; the others (concave, ear-clipped) are counted in the warning, and their
/// triangles still use only the face's corners.
#[test]
fn polygons_are_fans_numbered_in_file_order() {
    for name in ["suzanne.obj", "beast.obj", "cow.obj"] {
        let path = asset(name);
        let mesh = TriMesh::from_obj(&path).expect("loads");
        let mut next = 0;
        let mut not_fans = 0;
        for corners in obj_face_corners(&read(&path)) {
            let fan: Vec<[Vec3; 3]> = (1..corners.len() - 1)
                .map(|i| [corners[0], corners[i], corners[i + 1]])
                .collect();
            let loaded: Vec<[Vec3; 3]> = (next..next + fan.len())
                .map(|k| mesh.triangle(k).expect("in range").vertices())
                .collect();
            next += fan.len();
            if loaded != fan {
                not_fans += 1;
                let from_face = loaded.iter().flatten().all(|p| corners.contains(p));
                assert!(
                    from_face,
                    "{name}: triangles {loaded:?} of face {corners:?}"
                );
            }
        }
        assert_eq!(next, mesh.triangle_count());
        let reported = mesh.warnings().iter().find_map(|w| match w {
            Warning::ConcaveFaces { count, .. } => Some(*count),
            _ => None,
        });
        assert_eq!(reported.unwrap_or(0), not_fans, "{name}");
    }
}

#[test]
fn texture_coordinates_and_normals_are_kept() {
    let spot = TriMesh::from_obj(asset("spot.obj")).expect("loads");
    let uvs = spot.uvs().expect("spot has texture coordinates");
    assert!(spot.normals().is_none());
    // spot.obj's first face is `f 739/1 735/2 736/3` and its first `vt` lines are listed
    // first in the file, so the first triangle's corners use vt 1, 2, 3.
    let text = read(&asset("spot.obj"));
    let vt: Vec<Vec2> = text
        .lines()
        .filter_map(|l| l.strip_prefix("vt "))
        .take(3)
        .map(|l| {
            let c: Vec<f32> = l.split_whitespace().map(|w| w.parse().unwrap()).collect();
            Vec2::new(c[0], c[1])
        })
        .collect();
    assert_eq!(uvs.corners(0), Some([vt[0], vt[1], vt[2]]));
    assert!((0..spot.triangle_count()).all(|t| uvs.corners(t).is_some()));

    let suzanne = TriMesh::from_obj(asset("suzanne.obj")).expect("loads");
    let normals = suzanne.normals().expect("suzanne has normals");
    for t in 0..suzanne.triangle_count() {
        let corners = normals.corners(t).expect("every face gives normals");
        assert!(corners.iter().all(|n| (n.length() - 1.0).abs() < 1e-3));
    }
    let beast = TriMesh::from_obj(asset("beast.obj")).expect("loads");
    assert!(beast.uvs().is_some());
}
