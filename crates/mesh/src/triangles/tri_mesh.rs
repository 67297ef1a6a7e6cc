//! `TriMesh`: an indexed triangle mesh with optional normals, texture coordinates and group
//! names, validated on construction. No BVH here (see [`crate::Mesh`]). Its attributes'
//! type is in `vertex_attribute.rs`, its frame in the world (`f64` positions) in `frame.rs`.

use glam::{DVec3, Vec2, Vec3};
use meshcast_primitives::{Aabb, Triangle};

use rayon::prelude::*;

use super::derived::Derived;
use super::vertex_attribute::VertexAttribute;
use super::vertex_normals::VertexNormalCache;
use crate::error::{Error, Result, Warning};
use crate::volume::{is_degenerate, ClosednessCache};

/// Vertices or triangles one rayon task checks at least.
const PARALLEL_GRAIN: usize = 1 << 14;

/// An indexed triangle mesh: positions, triangles as vertex index triples, and optional
/// normals, texture coordinates and object/group names.
///
/// Construction checks every index and that every position is finite, so nothing downstream
/// can panic on it. Degenerate triangles (zero area, see [`Triangle::is_degenerate`]) are kept,
/// so triangle numbers stay those of the input, and counted; no ray hits them. Smooth vertex
/// normals are computed from the triangles on first use ([`TriMesh::vertex_normals`]).
///
/// # Examples
/// ```
/// use meshcast_mesh::TriMesh;
///
/// let quad = TriMesh::from_triangles(
///     &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
///     &[[0, 1, 2], [0, 2, 3]],
/// )?;
/// assert_eq!(quad.triangle_count(), 2);
/// assert_eq!(quad.subdivide(1)?.triangle_count(), 8);
/// # Ok::<(), meshcast_mesh::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    positions: Vec<Vec3>,
    indices: Vec<[u32; 3]>,
    normals: Option<VertexAttribute<Vec3>>,
    uvs: Option<VertexAttribute<Vec2>>,
    group_names: Vec<String>,
    /// One group per triangle, or empty when there are no groups.
    triangle_groups: Vec<u32>,
    /// How many triangles are degenerate ([`TriMesh::degenerate_count`]), found on first
    /// use: a build finds them anyway (it leaves them out) and gives the count, so that
    /// loading a mesh does not pay a pass over its triangles for it.
    degenerate_count: Derived<usize>,
    /// Whether the non-degenerate triangles form a closed surface ([`TriMesh::is_closed`]),
    /// found on first use.
    closed: ClosednessCache,
    warnings: Vec<Warning>,
    /// Filled by the first [`TriMesh::vertex_normals`]. Nothing changes the positions or the
    /// triangles in place, so it never goes stale; a clone keeps it.
    pub(crate) vertex_normals: VertexNormalCache,
    /// Where the frame of the positions lies in the world ([`TriMesh::origin`]).
    origin: DVec3,
}

impl TriMesh {
    /// The mesh with these positions and triangles. Every constructor comes here, and so
    /// does every mesh [`crate::Mesh::set_positions`] makes.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for a vertex index past the positions,
    /// [`Error::NonFiniteVertex`] for a NaN or infinite position, [`Error::TooLarge`] for more
    /// than `u32::MAX` vertices or triangles. An empty mesh is fine (every ray misses it).
    pub fn new(positions: Vec<Vec3>, indices: Vec<[u32; 3]>) -> Result<Self> {
        Self::checked(positions, indices, None)
    }

    /// As [`TriMesh::new`], with closedness given rather than found on first use: a cache
    /// stores closedness, since finding it costs about a sixth of a build. A wrong closedness
    /// could only make [`crate::PointQueries::contains`] choose the parity test where the
    /// winding number was due, or the other way round: wrong answers, never a panic.
    #[doc(hidden)]
    pub fn with_closedness(
        positions: Vec<Vec3>,
        indices: Vec<[u32; 3]>,
        closed: bool,
    ) -> Result<Self> {
        Self::checked(positions, indices, Some(closed))
    }

    /// Gives the count of degenerate triangles, which a build of the mesh's hierarchy has
    /// found ([`crate::Mesh`]'s builds and its cache's reader).
    pub(crate) fn know_degenerate_count(&mut self, count: usize) {
        self.degenerate_count = Derived::known(count);
    }

    /// The checks of [`TriMesh::new`], on rayon.
    fn checked(
        mut positions: Vec<Vec3>,
        mut indices: Vec<[u32; 3]>,
        closed: Option<bool>,
    ) -> Result<Self> {
        for (what, count) in [("vertex", positions.len()), ("triangle", indices.len())] {
            if count > u32::MAX as usize {
                return Err(Error::TooLarge {
                    what,
                    count: count as u64,
                });
            }
        }
        // Each check a fold of maxima over a chunk, without a branch per element, which runs
        // at memory speed; the culprit is looked for only when a chunk fails. (As
        // `position_first` over every element, the two checks took a quarter of a large
        // binary PLY's load.)
        let finite = |chunk: &[Vec3]| {
            let magnitude = |x: f32| x.abs().to_bits();
            let largest = chunk.iter().fold(0, |largest: u32, p| {
                largest
                    .max(magnitude(p.x))
                    .max(magnitude(p.y))
                    .max(magnitude(p.z))
            });
            largest < f32::INFINITY.to_bits()
        };
        if !positions.par_chunks(PARALLEL_GRAIN).all(finite) {
            let vertex = positions
                .iter()
                .position(|p| !p.is_finite())
                .expect("a vertex that is not finite");
            return Err(Error::NonFiniteVertex {
                vertex,
                position: positions[vertex].to_array(),
            });
        }
        let vertex_count = positions.len();
        let in_range = |chunk: &[[u32; 3]]| {
            let largest = chunk
                .iter()
                .fold(0, |largest: u32, &[a, b, c]| largest.max(a).max(b).max(c));
            (largest as usize) < vertex_count
        };
        if !indices.par_chunks(PARALLEL_GRAIN).all(in_range) {
            let out_of_range = |i: &u32| *i as usize >= vertex_count;
            let triangle = indices
                .iter()
                .position(|corners| corners.iter().any(out_of_range))
                .expect("a triangle out of range");
            let index = indices[triangle].into_iter().find(out_of_range);
            return Err(Error::IndexOutOfRange {
                triangle,
                index: index.unwrap_or_default(),
                vertex_count,
            });
        }
        let closed = closed.map_or_else(ClosednessCache::default, ClosednessCache::known);
        // A loader fills these by pushing: keep only what the mesh holds.
        positions.shrink_to_fit();
        indices.shrink_to_fit();
        Ok(Self {
            positions,
            indices,
            normals: None,
            uvs: None,
            group_names: Vec::new(),
            triangle_groups: Vec::new(),
            degenerate_count: Derived::default(),
            closed,
            warnings: Vec::new(),
            vertex_normals: VertexNormalCache::default(),
            origin: DVec3::ZERO,
        })
    }

    /// The mesh from flat slices, copied: `positions[i]` is vertex `i`, each index triple a
    /// triangle.
    ///
    /// # Errors
    /// As [`TriMesh::new`].
    pub fn from_triangles(positions: &[[f32; 3]], indices: &[[u32; 3]]) -> Result<Self> {
        Self::new(
            positions.iter().copied().map(Vec3::from).collect(),
            indices.to_vec(),
        )
    }

    /// The mesh with its frame's origin at `origin`, finite.
    pub(crate) fn with_frame_origin(mut self, origin: DVec3) -> Self {
        self.origin = origin;
        self
    }

    /// Where the origin of the positions' frame lies in the world, in `f64`: zero for a mesh
    /// made from `f32` positions, where [`TriMesh::from_world_triangles`] (or a loader that
    /// reads `f64` coordinates) put it for one made from `f64` positions. Position `p` lies
    /// at `origin + p` in the world.
    pub fn origin(&self) -> DVec3 {
        self.origin
    }

    /// The same mesh with per-corner normals (for smooth shading at a hit).
    ///
    /// # Errors
    /// [`Error::InvalidAttribute`] if there is not one entry per triangle, an index is out of
    /// range, or a value is not finite.
    pub fn with_normals(mut self, normals: VertexAttribute<Vec3>) -> Result<Self> {
        normals.check("normals", self.indices.len(), Vec3::is_finite)?;
        self.normals = Some(normals);
        Ok(self)
    }

    /// The same mesh with per-corner texture coordinates.
    ///
    /// # Errors
    /// As [`TriMesh::with_normals`].
    pub fn with_uvs(mut self, uvs: VertexAttribute<Vec2>) -> Result<Self> {
        uvs.check("uvs", self.indices.len(), Vec2::is_finite)?;
        self.uvs = Some(uvs);
        Ok(self)
    }

    /// The same mesh with named groups: `triangle_groups[t]` is the index in `names` of
    /// triangle `t`'s group.
    ///
    /// # Errors
    /// [`Error::InvalidAttribute`] if there is not one group per triangle or one is out of
    /// range.
    pub fn with_groups(mut self, names: Vec<String>, triangle_groups: Vec<u32>) -> Result<Self> {
        let invalid = |problem: String| Error::InvalidAttribute {
            attribute: "groups",
            problem,
        };
        if triangle_groups.len() != self.indices.len() {
            return Err(invalid(format!(
                "{} groups for {} triangles",
                triangle_groups.len(),
                self.indices.len()
            )));
        }
        if let Some(t) = triangle_groups
            .iter()
            .position(|&g| g as usize >= names.len())
        {
            return Err(invalid(format!(
                "triangle {t} is in group {}, but there are {} names",
                triangle_groups[t],
                names.len()
            )));
        }
        self.group_names = names;
        self.triangle_groups = triangle_groups;
        self.triangle_groups.shrink_to_fit();
        Ok(self)
    }

    /// Sets the warnings a reader gave ([`TriMesh::warnings`]): for `meshcast-io`'s readers.
    #[doc(hidden)]
    pub fn set_warnings(&mut self, warnings: Vec<Warning>) {
        self.warnings = warnings;
    }

    /// The vertex positions.
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// The triangles, as vertex index triples.
    pub fn indices(&self) -> &[[u32; 3]] {
        &self.indices
    }

    /// The number of triangles, degenerate ones included.
    pub fn triangle_count(&self) -> usize {
        self.indices.len()
    }

    /// The number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Triangle `index` with its corner positions, or `None` past the last triangle.
    #[inline]
    pub fn triangle(&self, index: usize) -> Option<Triangle> {
        Some(self.corners(*self.indices.get(index)?))
    }

    /// The triangle in a leaf slot: triangle `index`, or NaN corners for a padding slot (an
    /// index past the last triangle), which no ray hits.
    #[inline]
    pub(crate) fn slot_triangle(&self, index: u32) -> Triangle {
        self.triangle(index as usize)
            .unwrap_or(Triangle::new(Vec3::NAN, Vec3::NAN, Vec3::NAN))
    }

    /// Every triangle with its corner positions, in index order.
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = Triangle> + '_ {
        self.indices.iter().map(|&corners| self.corners(corners))
    }

    /// The triangle of these vertex indices (each was checked against the positions when
    /// the mesh was made).
    #[inline]
    fn corners(&self, [a, b, c]: [u32; 3]) -> Triangle {
        Triangle::new(
            self.positions[a as usize],
            self.positions[b as usize],
            self.positions[c as usize],
        )
    }

    /// How many triangles are degenerate (zero area): kept for numbering, never hit.
    pub fn degenerate_count(&self) -> usize {
        if let Some(&count) = self.degenerate_count.get() {
            return count;
        }
        // Counted outside the cell: a rayon worker waiting here may take a job that asks
        // the same mesh, which must not wait on itself. Two threads may both count.
        let count = self
            .indices
            .par_iter()
            .with_min_len(PARALLEL_GRAIN)
            .filter(|&&corners| is_degenerate(&self.positions, corners))
            .count();
        *self.degenerate_count.get_or_find(|| count)
    }

    /// Whether the mesh is closed: every edge of its non-degenerate triangles is shared by
    /// exactly two of them, which run along it in opposite directions. Vertices are
    /// identified by position (the same coordinates, `-0.0` equal to `0.0`), so vertices
    /// duplicated along an OBJ seam of normals or texture coordinates weld. Degenerate
    /// triangles do not count. An empty mesh, enclosing nothing, counts as closed.
    ///
    /// A closed mesh bounds a solid: every ray from a point crosses its surface an odd number
    /// of times exactly when the point is inside. A mesh with holes, a boundary, an edge
    /// shared by three or more triangles or a flipped triangle is not closed. Closed meshes
    /// may still intersect themselves or nest.
    ///
    /// Found on the first call and kept (a clone keeps it), in linear time: a hash table
    /// welds the positions, the edges are grouped by the vertex they leave, and each edge
    /// looks for its reverse among the few edges leaving its end. That costs about a sixth
    /// of building the hierarchy (the bunny subdivided twice, 1.1M triangles: 45 ms on one
    /// thread; the `point_queries` bench), which a mesh made only to cast rays does not pay.
    /// [`crate::PointQueries::contains`] asks for it; a cache stores it.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::TriMesh;
    ///
    /// let corners = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    /// let tetrahedron = TriMesh::from_triangles(&corners, &[[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// assert!(tetrahedron.is_closed());
    /// let open = TriMesh::from_triangles(&corners, &[[0, 2, 1], [0, 1, 3], [0, 3, 2]])?;
    /// assert!(!open.is_closed());
    /// // One triangle turned over: the edges it shares run the same way as its neighbours'.
    /// let flipped = TriMesh::from_triangles(&corners, &[[0, 1, 2], [0, 1, 3], [0, 3, 2], [1, 2, 3]])?;
    /// assert!(!flipped.is_closed());
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn is_closed(&self) -> bool {
        self.closed.get_or_find(&self.positions, &self.indices)
    }

    /// The per-corner normals, if any.
    pub fn normals(&self) -> Option<&VertexAttribute<Vec3>> {
        self.normals.as_ref()
    }

    /// The per-corner texture coordinates, if any.
    pub fn uvs(&self) -> Option<&VertexAttribute<Vec2>> {
        self.uvs.as_ref()
    }

    /// The object/group names (empty if the mesh has none).
    pub fn group_names(&self) -> &[String] {
        &self.group_names
    }

    /// The index into [`TriMesh::group_names`] of triangle `triangle`'s group.
    pub fn triangle_group(&self, triangle: usize) -> Option<u32> {
        self.triangle_groups.get(triangle).copied()
    }

    /// Each triangle's index into [`TriMesh::group_names`] (empty when there are no groups).
    pub fn triangle_groups(&self) -> &[u32] {
        &self.triangle_groups
    }

    /// The name of the object or group that triangle `triangle` came from.
    pub fn group_name(&self, triangle: usize) -> Option<&str> {
        let group = self.triangle_group(triangle)?;
        self.group_names.get(group as usize).map(String::as_str)
    }

    /// What the loader noticed but did not reject (empty for meshes built from slices).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Heap bytes held by the mesh: positions, triangles, normals and texture coordinates
    /// with their corner indices, groups, and the vertex normals once
    /// [`TriMesh::vertex_normals`] has computed them (the struct itself and the loader's
    /// warnings not counted; see [`crate::Mesh::acceleration_bytes`] for the hierarchy).
    pub fn bytes(&self) -> usize {
        use core::mem::size_of;
        fn attribute<T: Copy>(attribute: Option<&VertexAttribute<T>>) -> usize {
            attribute.map_or(0, VertexAttribute::bytes)
        }
        self.positions.capacity() * size_of::<Vec3>()
            + self.indices.capacity() * size_of::<[u32; 3]>()
            + attribute(self.normals.as_ref())
            + attribute(self.uvs.as_ref())
            + self.group_names.capacity() * size_of::<String>()
            + self.group_names.iter().map(String::capacity).sum::<usize>()
            + self.triangle_groups.capacity() * size_of::<u32>()
            + self
                .vertex_normals
                .get()
                .map_or(0, |normals| core::mem::size_of_val(normals.as_slice()))
    }

    /// The box around every triangle's corners ([`Aabb::EMPTY`] for no triangles).
    pub fn bounds(&self) -> Aabb {
        self.indices
            .iter()
            .flatten()
            .fold(Aabb::EMPTY, |b, &i| b.grow(self.positions[i as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad() -> TriMesh {
        TriMesh::from_triangles(
            &[
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
            &[[0, 1, 2], [0, 2, 3]],
        )
        .expect("valid quad")
    }

    #[test]
    fn construction_rejects_bad_indices_and_non_finite_positions() {
        let err = TriMesh::from_triangles(&[[0.0; 3]; 3], &[[0, 1, 2], [0, 3, 1]]).unwrap_err();
        assert!(matches!(
            err,
            Error::IndexOutOfRange {
                triangle: 1,
                index: 3,
                vertex_count: 3
            }
        ));
        let err = TriMesh::from_triangles(&[[0.0; 3], [f32::NAN, 0.0, 0.0]], &[]).unwrap_err();
        assert!(matches!(err, Error::NonFiniteVertex { vertex: 1, .. }));
        let empty = TriMesh::from_triangles(&[], &[]).expect("empty mesh is valid");
        assert_eq!(empty.triangle_count(), 0);
        assert!(empty.bounds().is_empty());
    }

    #[test]
    fn degenerate_triangles_are_counted_and_kept() {
        let mesh = TriMesh::from_triangles(
            &[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [2.0, 0.0, 0.0]],
            &[[0, 1, 2], [0, 1, 3], [2, 2, 2]],
        )
        .expect("valid");
        assert_eq!(mesh.triangle_count(), 3);
        assert_eq!(mesh.degenerate_count(), 2);
    }

    #[test]
    fn subdivide_shares_midpoints_and_keeps_the_surface() {
        let once = quad().subdivide(1).expect("small");
        // 4 corners + 5 distinct edges (the diagonal is shared).
        assert_eq!(once.vertex_count(), 9);
        assert_eq!(once.triangle_count(), 8);
        let area = |m: &TriMesh| m.triangles().map(|t| t.area()).sum::<f32>();
        assert!((area(&once) - 1.0).abs() < 1e-6);
        let twice = quad().subdivide(2).expect("small");
        assert_eq!(twice.triangle_count(), 32);
        // A 5 x 5 grid of vertices.
        assert_eq!(twice.vertex_count(), 25);
        assert_eq!(twice.bounds(), quad().bounds());
        // Orientation is kept: every child's normal points like its parent's.
        assert!(twice.triangles().all(|t| t.normal().z > 0.0));
    }

    #[test]
    fn subdivide_carries_attributes_and_groups() {
        let mesh = quad()
            .with_uvs(VertexAttribute::per_vertex(
                vec![Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y],
                &[[0, 1, 2], [0, 2, 3]],
            ))
            .and_then(|m| m.with_groups(vec!["a".into(), "b".into()], vec![0, 1]))
            .expect("valid");
        let fine = mesh.subdivide(1).expect("small");
        assert_eq!(fine.group_name(3), Some("a"));
        assert_eq!(fine.group_name(4), Some("b"));
        let uvs = fine.uvs().expect("kept");
        for t in 0..fine.triangle_count() {
            let corners = uvs.corners(t).expect("every triangle has uvs");
            let positions = fine.triangle(t).expect("in range").vertices();
            for (uv, p) in corners.iter().zip(positions) {
                assert_eq!(*uv, p.truncate(), "uv follows position on this quad");
            }
        }
    }

    #[test]
    fn bytes_count_every_array() {
        assert_eq!(quad().bytes(), 4 * 12 + 2 * 12);
        let grouped = quad()
            .with_groups(vec!["ab".into()], vec![0, 0])
            .expect("valid");
        assert_eq!(grouped.bytes(), 72 + 24 + 2 + 2 * 4);
        let normals = VertexAttribute::new(vec![Vec3::Z], vec![Some([0, 0, 0]), None]);
        let with_normals = quad().with_normals(normals).expect("valid");
        assert_eq!(with_normals.bytes(), 72 + 12 + 2 * 16);
        // File normals are not vertex normals: those count once computed, 12 bytes a vertex.
        with_normals.vertex_normals();
        assert_eq!(with_normals.bytes(), 72 + 12 + 2 * 16 + 4 * 12);
    }

    #[test]
    fn attributes_are_validated() {
        let err = quad()
            .with_normals(VertexAttribute::new(
                vec![Vec3::Z],
                vec![Some([0, 0, 1]), None],
            ))
            .unwrap_err();
        assert!(matches!(
            err,
            Error::InvalidAttribute {
                attribute: "normals",
                ..
            }
        ));
        let err = quad()
            .with_normals(VertexAttribute::new(vec![Vec3::Z], vec![None]))
            .unwrap_err();
        assert!(matches!(err, Error::InvalidAttribute { .. }));
        let err = quad()
            .with_groups(vec!["only".into()], vec![0, 1])
            .unwrap_err();
        assert!(matches!(
            err,
            Error::InvalidAttribute {
                attribute: "groups",
                ..
            }
        ));
    }
}
