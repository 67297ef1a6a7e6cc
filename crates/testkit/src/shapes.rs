//! Closed, consistently oriented meshes made in code, for the tests of crossings and of
//! inside and outside: a cube whose corners and edge points are exact in `f32`, an icosphere
//! and a torus, and any of them moved (turned askew, say). Every triangle runs
//! counter-clockwise seen from outside.

use std::collections::HashMap;
use std::f32::consts::TAU;

use meshcast::glam::{Affine3A, Vec3};
use meshcast::TriMesh;

/// The cube `[-half, half]^3`, two triangles a face, each face split `levels` times into four
/// ([`TriMesh::subdivide`]): with `half` a power of two, every corner and every edge midpoint
/// down to `levels` is exact in `f32`.
///
/// # Panics
/// If the subdivision is too large to hold.
pub fn cube(half: f32, levels: u32) -> TriMesh {
    let corners: Vec<[f32; 3]> = (0..8)
        .map(|i| [i & 1, i >> 1 & 1, i >> 2 & 1].map(|bit| if bit == 1 { half } else { -half }))
        .collect();
    // Each face's corners counter-clockwise seen from outside.
    let faces = [
        [0, 2, 3, 1], // z = -half
        [4, 5, 7, 6], // z = +half
        [0, 1, 5, 4], // y = -half
        [2, 6, 7, 3], // y = +half
        [0, 4, 6, 2], // x = -half
        [1, 3, 7, 5], // x = +half
    ];
    let triangles: Vec<[u32; 3]> = faces
        .iter()
        .flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]])
        .collect();
    TriMesh::from_triangles(&corners, &triangles)
        .and_then(|cube| cube.subdivide(levels))
        .expect("a small cube")
}

/// The unit sphere as an icosahedron whose faces are split `levels` times into four, new
/// vertices pushed out to the sphere (each made once and shared).
///
/// # Panics
/// If `levels` is too large to hold.
pub fn icosphere(levels: u32) -> TriMesh {
    let phi = (1.0 + 5.0f32.sqrt()) / 2.0;
    let mut positions: Vec<Vec3> = [
        [-1.0, phi, 0.0],
        [1.0, phi, 0.0],
        [-1.0, -phi, 0.0],
        [1.0, -phi, 0.0],
        [0.0, -1.0, phi],
        [0.0, 1.0, phi],
        [0.0, -1.0, -phi],
        [0.0, 1.0, -phi],
        [phi, 0.0, -1.0],
        [phi, 0.0, 1.0],
        [-phi, 0.0, -1.0],
        [-phi, 0.0, 1.0],
    ]
    .iter()
    .map(|&p| Vec3::from(p).normalize())
    .collect();
    let mut triangles: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..levels {
        let mut midpoints: HashMap<(u32, u32), u32> = HashMap::new();
        let mut midpoint = |a: u32, b: u32, positions: &mut Vec<Vec3>| {
            *midpoints.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let p = (positions[a as usize] + positions[b as usize]).normalize();
                positions.push(p);
                (positions.len() - 1) as u32
            })
        };
        triangles = triangles
            .iter()
            .flat_map(|&[a, b, c]| {
                let ab = midpoint(a, b, &mut positions);
                let bc = midpoint(b, c, &mut positions);
                let ca = midpoint(c, a, &mut positions);
                [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
            })
            .collect();
    }
    TriMesh::new(positions, triangles).expect("a valid sphere")
}

/// A torus around the z axis: the tube of radius `minor` around the circle of radius
/// `major`, `around` quads along the circle and `across` around the tube.
///
/// # Panics
/// If `around` or `across` is below 3.
pub fn torus(major: f32, minor: f32, around: u32, across: u32) -> TriMesh {
    assert!(
        around >= 3 && across >= 3,
        "a torus needs three quads each way"
    );
    let vertex = |i: u32, j: u32| i % around * across + j % across;
    let positions: Vec<Vec3> = (0..around)
        .flat_map(|i| (0..across).map(move |j| (i, j)))
        .map(|(i, j)| {
            let (u, v) = (
                TAU * i as f32 / around as f32,
                TAU * j as f32 / across as f32,
            );
            let ring = major + minor * v.cos();
            Vec3::new(ring * u.cos(), ring * u.sin(), minor * v.sin())
        })
        .collect();
    let triangles: Vec<[u32; 3]> = (0..around)
        .flat_map(|i| (0..across).map(move |j| (i, j)))
        .flat_map(|(i, j)| {
            let (a, b) = (vertex(i, j), vertex(i + 1, j));
            let (c, d) = (vertex(i + 1, j + 1), vertex(i, j + 1));
            [[a, b, c], [a, c, d]]
        })
        .collect();
    TriMesh::new(positions, triangles).expect("a valid torus")
}

/// `mesh` with every position moved by `transform` (the triangles kept): the cube turned so
/// that its faces and edges lie askew to the axes, say.
///
/// # Panics
/// If a moved position is not finite.
pub fn transformed(mesh: &TriMesh, transform: Affine3A) -> TriMesh {
    let positions = mesh
        .positions()
        .iter()
        .map(|&p| transform.transform_point3(p))
        .collect();
    TriMesh::new(positions, mesh.indices().to_vec()).expect("finite positions")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brute_force_winding_number;

    #[test]
    fn the_shapes_are_closed_and_face_outwards() {
        for (name, mesh, inside) in [
            ("cube", cube(2.0, 2), Vec3::new(0.1, 0.2, 0.3)),
            ("icosphere", icosphere(2), Vec3::new(0.1, 0.2, 0.3)),
            ("torus", torus(2.0, 0.5, 24, 12), Vec3::new(2.0, 0.0, 0.1)),
        ] {
            let triangles: Vec<_> = mesh.triangles().collect();
            let mut edges = HashMap::new();
            for &[a, b, c] in mesh.indices() {
                for edge in [(a, b), (b, c), (c, a)] {
                    *edges.entry(edge).or_insert(0) += 1;
                }
            }
            for (&(a, b), &count) in &edges {
                assert_eq!(
                    (count, edges.get(&(b, a))),
                    (1, Some(&1)),
                    "{name}: {a} {b}"
                );
            }
            let winding = brute_force_winding_number(&triangles, inside);
            assert!((winding - 1.0).abs() < 1e-9, "{name}: {winding}");
            let outside = brute_force_winding_number(&triangles, Vec3::splat(5.0));
            assert!(outside.abs() < 1e-9, "{name}: {outside}");
        }
    }
}
