//! `SurfacePoint`: what a picking user wants to know about a hit.

use glam::{Affine3A, Mat3A, Vec2, Vec3};
use meshcast_primitives::Hit;

use crate::triangles::TriMesh;

/// The surface at a hit: the point, the geometric and shading normals, the texture
/// coordinates and the name of the object or group, from [`crate::Mesh::surface`] (in the
/// mesh's space), [`crate::Instance::surface`] or [`crate::Scene::surface`] (in world space).
///
/// # Examples
/// ```
/// use glam::{Affine3A, Mat3A, Vec2, Vec3};
/// use meshcast_mesh::{Mesh, RayQueries, TriMesh, VertexAttribute};
/// use meshcast_primitives::Ray;
///
/// let indices = [[0, 1, 2]];
/// let tri_mesh = TriMesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &indices)?
///     .with_uvs(VertexAttribute::per_vertex(vec![Vec2::ZERO, Vec2::X, Vec2::Y], &indices))?
///     .with_groups(vec!["floor".into()], vec![0])?;
/// let mesh = Mesh::from_tri_mesh(tri_mesh, &Default::default());
/// let hit = mesh.cast(&Ray::new(Vec3::new(0.25, 0.5, 1.0), Vec3::NEG_Z)).ok_or("miss")?;
/// let surface = mesh.surface(&hit).ok_or("not a triangle of this mesh")?;
/// assert_eq!(surface.uv, Some(Vec2::new(0.25, 0.5)));
/// // No file normals: the smooth ones, which on a lone triangle are its own.
/// assert_eq!(surface.shading_normal, Vec3::Z);
/// assert_eq!(surface.group, Some("floor"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfacePoint<'a> {
    /// The hit point, from the barycentrics: `(1 - u - v) * v0 + u * v1 + v * v2` (more
    /// accurate than `ray.at(t)` far from the ray's origin).
    pub point: Vec3,
    /// The unit normal of the triangle's plane, `(v1 - v0) x (v2 - v0)` normalised: it faces
    /// the side from which the corners run counter-clockwise, whichever side the ray came
    /// from.
    pub geometric_normal: Vec3,
    /// The unit normal to shade with, the first of these that is not zero:
    /// 1. the triangle's per-corner normals from the file ([`TriMesh::normals`]), when it has
    ///    them, interpolated at the hit and normalised;
    /// 2. the mesh's smooth vertex normals ([`TriMesh::vertex_normals`], computed on first
    ///    use) interpolated and normalised;
    /// 3. the geometric normal.
    ///
    /// It describes the surface, not the ray, so it may face away from the ray; file normals
    /// may also disagree with the winding. A mirroring instance transform does not turn it
    /// over (see [`crate::Instance::surface`]).
    pub shading_normal: Vec3,
    /// The texture coordinates interpolated at the hit, when the triangle has them.
    pub uv: Option<Vec2>,
    /// The name of the object or group the triangle belongs to, when the mesh has names.
    pub group: Option<&'a str>,
}

impl<'a> SurfacePoint<'a> {
    /// The surface of `tri_mesh` at `hit`, in the mesh's space, or `None` if `tri_mesh` has
    /// no triangle `hit.triangle`.
    pub(crate) fn on(tri_mesh: &'a TriMesh, hit: &Hit) -> Option<Self> {
        let index = hit.triangle as usize;
        let triangle = tri_mesh.triangle(index)?;
        let geometric_normal = hit.normal(&triangle);
        Some(Self {
            point: hit.point(&triangle),
            geometric_normal,
            shading_normal: Self::shading_normal(tri_mesh, index, hit).unwrap_or(geometric_normal),
            uv: (tri_mesh.uvs().and_then(|uv| uv.corners(index)))
                .map(|[a, b, c]| hit.interpolate(a, b, c)),
            group: tri_mesh.group_name(index),
        })
    }

    /// The file's normals interpolated at the hit, else the smooth vertex normals, unit
    /// length; `None` if both are zero.
    fn shading_normal(tri_mesh: &TriMesh, index: usize, hit: &Hit) -> Option<Vec3> {
        let interpolated = |[a, b, c]: [Vec3; 3]| {
            Some(hit.interpolate(a, b, c).normalize_or_zero()).filter(|n| *n != Vec3::ZERO)
        };
        let from_file = tri_mesh.normals().and_then(|n| n.corners(index));
        from_file.and_then(interpolated).or_else(|| {
            let normals = tri_mesh.vertex_normals();
            interpolated(tri_mesh.indices()[index].map(|i| normals[i as usize]))
        })
    }

    /// The same surface carried by `transform` into world space: the point by the transform,
    /// normals by the inverse transpose of its linear part (`normal_matrix`), renormalised.
    pub(crate) fn transformed(self, transform: &Affine3A, normal_matrix: &Mat3A) -> Self {
        let carry = |n: Vec3| (*normal_matrix * n).normalize_or_zero();
        Self {
            point: transform.transform_point3(self.point),
            geometric_normal: carry(self.geometric_normal),
            shading_normal: carry(self.shading_normal),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VertexAttribute;

    /// The surface at a hit of `mesh`'s own.
    fn on<'a>(mesh: &'a TriMesh, hit: &Hit) -> SurfacePoint<'a> {
        SurfacePoint::on(mesh, hit).expect("a triangle of the mesh")
    }

    /// Two triangles at a right angle along the x axis: triangle 0 faces +z, triangle 1 +y.
    fn fold() -> TriMesh {
        TriMesh::from_triangles(
            &[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            &[[0, 1, 2], [0, 3, 1]],
        )
        .expect("valid fold")
    }

    fn hit(triangle: u32, u: f32, v: f32) -> Hit {
        Hit::new(1.0, u, v).with_triangle(triangle)
    }

    #[test]
    fn shading_normal_is_the_files_when_the_triangle_has_one() {
        let tilted = Vec3::new(0.0, 1.0, 2.0);
        let mesh = fold()
            .with_normals(VertexAttribute::new(
                vec![tilted, Vec3::ZERO],
                vec![Some([0, 0, 0]), Some([1, 1, 1])],
            ))
            .expect("valid normals");
        let surface = on(&mesh, &hit(0, 0.2, 0.3));
        assert_eq!(surface.shading_normal, tilted.normalize());
        assert_eq!(surface.geometric_normal, Vec3::Z);
        // File normals that cancel out give way to the smooth ones.
        let smooth = on(&fold(), &hit(1, 0.2, 0.3)).shading_normal;
        assert_eq!(on(&mesh, &hit(1, 0.2, 0.3)).shading_normal, smooth);
    }

    #[test]
    fn shading_normal_is_the_smooth_one_without_file_normals() {
        let mesh = fold();
        let normals = mesh.vertex_normals();
        let diagonal = Vec3::new(0.0, 1.0, 1.0).normalize();
        assert!(normals[0].distance(diagonal) < 1e-6 && normals[1].distance(diagonal) < 1e-6);
        let (u, v) = (0.2, 0.3);
        let surface = on(&mesh, &hit(0, u, v));
        let expected = (normals[0] * (1.0 - u - v) + normals[1] * u + normals[2] * v).normalize();
        assert!(surface.shading_normal.distance(expected) < 1e-6);
        assert!(
            surface.shading_normal.y > 0.1,
            "leans towards the other face"
        );
        assert_eq!(surface.geometric_normal, Vec3::Z);
        // At the corner only triangle 0 touches, its own normal.
        let corner = on(&mesh, &hit(0, 0.0, 1.0));
        assert_eq!(corner.shading_normal, Vec3::Z);
    }

    #[test]
    fn shading_normal_falls_back_to_the_geometric_normal() {
        // The same triangle twice with opposite windings: the smooth normals cancel out.
        let mesh = TriMesh::from_triangles(
            &[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            &[[0, 1, 2], [0, 2, 1]],
        )
        .expect("valid");
        assert_eq!(mesh.vertex_normals(), &[Vec3::ZERO; 3]);
        for (triangle, expected) in [(0, Vec3::Z), (1, Vec3::NEG_Z)] {
            let surface = on(&mesh, &hit(triangle, 0.25, 0.25));
            assert_eq!(surface.shading_normal, expected);
            assert_eq!(surface.shading_normal, surface.geometric_normal);
        }
    }

    #[test]
    fn shading_normal_is_carried_by_the_inverse_transpose() {
        // Stretch x by 2: a normal along (1, 0, 1) becomes (1/2, 0, 1), renormalised.
        let transform = Affine3A::from_scale(Vec3::new(2.0, 1.0, 1.0));
        let normal_matrix = transform.matrix3.inverse().transpose();
        let mesh = fold()
            .with_normals(VertexAttribute::new(
                vec![Vec3::new(1.0, 0.0, 1.0)],
                vec![Some([0, 0, 0]), None],
            ))
            .expect("valid normals");
        let world = on(&mesh, &hit(0, 0.2, 0.3)).transformed(&transform, &normal_matrix);
        assert!(
            world
                .shading_normal
                .distance(Vec3::new(0.5, 0.0, 1.0).normalize())
                < 1e-6
        );
    }
}
