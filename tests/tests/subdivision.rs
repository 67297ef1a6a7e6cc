//! `TriMesh::subdivide`: four triangles per triangle and level, midpoints shared, the surface
//! unchanged (the benchmarks reach millions of triangles this way).

use std::collections::HashSet;

use meshcast::{Mesh, MeshFiles, RayQueries, TriMesh, TriMeshFiles};
use meshcast_testkit::{asset, edge_closeness, random_rays};

fn edge_count(tri_mesh: &TriMesh) -> usize {
    let mut edges = HashSet::new();
    for &[a, b, c] in tri_mesh.indices() {
        for (p, q) in [(a, b), (b, c), (c, a)] {
            edges.insert((p.min(q), p.max(q)));
        }
    }
    edges.len()
}

#[test]
fn bunny_subdivides_with_shared_midpoints() {
    let bunny = TriMesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads");
    let fine = bunny.subdivide(1).expect("fits");
    assert_eq!(fine.triangle_count(), 4 * bunny.triangle_count());
    // One new vertex per distinct edge: a midpoint is never duplicated.
    assert_eq!(
        fine.vertex_count(),
        bunny.vertex_count() + edge_count(&bunny)
    );
    assert_eq!(fine.bounds(), bunny.bounds());
    let area = |m: &TriMesh| m.triangles().map(|t| f64::from(t.area())).sum::<f64>();
    assert!((area(&fine) - area(&bunny)).abs() < 1e-5 * area(&bunny));
    assert_eq!(bunny.subdivide(0).expect("fits"), bunny);
}

#[test]
fn subdivided_surface_is_hit_where_the_original_is() {
    let cow = Mesh::from_obj(asset("cow.obj")).expect("cow loads");
    let fine = Mesh::from_tri_mesh(
        cow.tri_mesh().subdivide(2).expect("fits"),
        &Default::default(),
    );
    assert_eq!(fine.triangle_count(), 16 * cow.triangle_count());
    let size = cow.bounds().extent().length();
    let mut differences = 0;
    let rays = random_rays(cow.bounds(), 2000, 4);
    for ray in &rays {
        match (cow.cast(ray), fine.cast(ray)) {
            (Some(a), Some(b)) => {
                // A child triangle's number tells its parent.
                if b.triangle / 16 == a.triangle {
                    assert!((a.t - b.t).abs() * ray.dir.length() < 1e-4 * size);
                } else {
                    assert!(edge_closeness(&a) < 1e-3, "{ray:?}");
                    differences += 1;
                }
            }
            (None, None) => {}
            (a, b) => {
                assert!(
                    a.or(b).is_some_and(|h| edge_closeness(&h) < 1e-3),
                    "{ray:?}"
                );
                differences += 1;
            }
        }
    }
    assert!(differences * 100 < rays.len());
}

#[test]
fn subdivision_keeps_each_original_vertexs_smooth_normal() {
    // A corner's child triangle keeps the parent's angle and plane, and the subdivided mesh
    // numbers the original vertices first: angle weighting sees the same fan.
    let bunny = TriMesh::from_obj(asset("stanford-bunny.obj")).expect("bunny loads");
    let fine = bunny.subdivide(1).expect("fits");
    let (before, after) = (bunny.vertex_normals(), fine.vertex_normals());
    assert_eq!(after.len(), fine.vertex_count());
    let worst = before
        .iter()
        .zip(after)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    // Measured 2.4e-4: the midpoints of the scan's tiniest triangles (area 1e-8, edges of
    // 1e-4 at coordinates of 0.1) round by 1e-4 of an edge, and their angles with them.
    assert!(worst < 1e-3, "worst difference {worst}");
    let unit = |n: &glam::Vec3| (n.length() - 1.0).abs() < 1e-5;
    assert!(after.iter().all(unit), "the bunny has no isolated vertex");
}
