//! [`VertexAttribute`]: a per-corner attribute of a [`TriMesh`](crate::TriMesh) (normals,
//! texture coordinates), its check against the mesh's triangles and its size.

use crate::error::{Error, Result};

/// A per-corner attribute stored the OBJ way: a list of values, and for each triangle the
/// indices of its three corners' values, or `None` for a triangle that has none.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use meshcast_mesh::VertexAttribute;
///
/// let normals = VertexAttribute::new(vec![Vec3::Z], vec![Some([0, 0, 0]), None]);
/// assert_eq!(normals.corners(0), Some([Vec3::Z; 3]));
/// assert_eq!(normals.corners(1), None);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct VertexAttribute<T> {
    values: Vec<T>,
    indices: Vec<Option<[u32; 3]>>,
}

impl<T: Copy> VertexAttribute<T> {
    /// The attribute with these values and per-triangle corner indices (checked when attached
    /// to a mesh, by [`crate::TriMesh::with_normals`] or [`crate::TriMesh::with_uvs`]).
    pub fn new(mut values: Vec<T>, mut indices: Vec<Option<[u32; 3]>>) -> Self {
        values.shrink_to_fit();
        indices.shrink_to_fit();
        Self { values, indices }
    }

    /// One value per mesh vertex: each triangle's corners use the triangle's vertex indices.
    pub fn per_vertex(values: Vec<T>, triangles: &[[u32; 3]]) -> Self {
        Self::new(values, triangles.iter().copied().map(Some).collect())
    }

    /// The values and the per-triangle corner indices, taken apart.
    pub fn into_parts(self) -> (Vec<T>, Vec<Option<[u32; 3]>>) {
        (self.values, self.indices)
    }

    /// The values.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The corner indices of every triangle.
    pub fn indices(&self) -> &[Option<[u32; 3]>] {
        &self.indices
    }

    /// The three corner values of `triangle`, or `None` if it has none or is out of range.
    #[inline]
    pub fn corners(&self, triangle: usize) -> Option<[T; 3]> {
        let [a, b, c] = (*self.indices.get(triangle)?)?;
        Some([
            *self.values.get(a as usize)?,
            *self.values.get(b as usize)?,
            *self.values.get(c as usize)?,
        ])
    }

    /// Checks the attribute against a mesh of `triangle_count` triangles: one index triple
    /// per triangle, every value `is_finite`, every index in range; reported as
    /// [`Error::InvalidAttribute`] for `attribute`.
    pub(super) fn check(
        &self,
        attribute: &'static str,
        triangle_count: usize,
        is_finite: impl Fn(T) -> bool,
    ) -> Result<()> {
        let invalid = |problem: String| Error::InvalidAttribute { attribute, problem };
        if self.indices.len() != triangle_count {
            return Err(invalid(format!(
                "{} index triples for {} triangles",
                self.indices.len(),
                triangle_count
            )));
        }
        if let Some(i) = self.values.iter().position(|&v| !is_finite(v)) {
            return Err(invalid(format!("value {i} is not finite")));
        }
        let count = self.values.len();
        for (triangle, corners) in self.indices.iter().enumerate() {
            if let Some(&index) = corners.iter().flatten().find(|&&i| i as usize >= count) {
                return Err(invalid(format!(
                    "triangle {triangle} refers to value {index}, but there are only {count}"
                )));
            }
        }
        Ok(())
    }

    /// The bytes its values and index triples take (their capacity).
    pub(super) fn bytes(&self) -> usize {
        use core::mem::size_of;
        self.values.capacity() * size_of::<T>()
            + self.indices.capacity() * size_of::<Option<[u32; 3]>>()
    }
}
