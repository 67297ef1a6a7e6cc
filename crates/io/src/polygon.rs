//! Polygons to triangles, the same way for every format that stores polygons (OBJ, PLY).

use glam::Vec3;
use smallvec::{smallvec, SmallVec};

/// A face's triangles as corner numbers, and whether it was concave.
///
/// A convex face becomes the fan `(0, i, i + 1)`, the way tobj triangulates, so triangle
/// numbers are predictable from the file; a concave one is ear-clipped
/// ([`meshcast_primitives::triangulate`]), so its triangles cover the face and nothing else.
pub(crate) fn triangulate(points: &[Vec3]) -> (SmallVec<[[usize; 3]; 2]>, bool) {
    let fan = |i: usize| [0, i, i + 1];
    if points.len() == 3 {
        return (smallvec![fan(1)], false);
    }
    let triangles: SmallVec<[[usize; 3]; 2]> = meshcast_primitives::triangulate(points)
        .into_iter()
        .map(|t| t.map(|corner| corner as usize))
        .collect();
    let concave = triangles.iter().enumerate().any(|(i, &t)| t != fan(i + 1));
    (triangles, concave)
}
