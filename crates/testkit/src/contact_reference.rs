//! References for the mesh-against-mesh queries: a mesh's triangles carried into another's
//! space as the engine carries them, and the nearest point of a surface by a loop over
//! every triangle.

use meshcast::glam::{Affine3A, DAffine3, DVec3, Mat3};
use meshcast::{closest_point_on_triangle, Mesh};

/// Corners of every triangle of `mesh`, carried by `transform` in `f64` as the engine does
/// (the `f64` image of each vertex, once).
pub fn carried_corners(mesh: &Mesh, transform: &Affine3A) -> Vec<[DVec3; 3]> {
    let t = DAffine3::from_mat3_translation(
        Mat3::from(transform.matrix3).as_dmat3(),
        transform.translation.as_dvec3(),
    );
    let tri = mesh.tri_mesh();
    tri.indices()
        .iter()
        .map(|c| c.map(|v| t.transform_point3(tri.positions()[v as usize].as_dvec3())))
        .collect()
}

/// The distance from `point` to the nearest of `triangles`, and that triangle's index
/// (the first on ties); `None` for no triangle.
pub fn brute_force_surface_distance(triangles: &[[DVec3; 3]], point: DVec3) -> Option<(f64, u32)> {
    triangles
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (
                point.distance(closest_point_on_triangle(point, t)),
                i as u32,
            )
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
}
