//! `SurfacePoint`: what a picking user wants to know about a hit.

use glam::{Affine3A, Mat3A, Vec2, Vec3};
use meshcast_primitives::Hit;

use crate::TriMesh;

/// The surface at a hit: the point, the normals, the texture coordinates and the name of the
/// object or group, from [`crate::Mesh::surface`] (in the mesh's space),
/// [`crate::Instance::surface`] or [`crate::Scene::surface`] (in world space).
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
    /// The per-corner normals interpolated at the hit and normalised, when the triangle has
    /// them.
    pub normal: Option<Vec3>,
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
        Some(Self {
            point: hit.point(&triangle),
            geometric_normal: hit.normal(&triangle),
            normal: (tri_mesh.normals().and_then(|n| n.corners(index)))
                .map(|[a, b, c]| hit.interpolate(a, b, c).normalize_or_zero()),
            uv: (tri_mesh.uvs().and_then(|uv| uv.corners(index)))
                .map(|[a, b, c]| hit.interpolate(a, b, c)),
            group: tri_mesh.group_name(index),
        })
    }
    /// The same surface carried by `transform` into world space: the point by the transform,
    /// normals by the inverse transpose of its linear part (`normal_matrix`), renormalised.
    pub(crate) fn transformed(self, transform: &Affine3A, normal_matrix: &Mat3A) -> Self {
        let carry = |n: Vec3| (*normal_matrix * n).normalize_or_zero();
        Self {
            point: transform.transform_point3(self.point),
            geometric_normal: carry(self.geometric_normal),
            normal: self.normal.map(carry),
            ..self
        }
    }
}
