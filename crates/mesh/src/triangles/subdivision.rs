//! Midpoint subdivision of a [`TriMesh`]: each triangle into four at its edge midpoints,
//! shared midpoints deduplicated.

use crate::error::{Error, Result};
use crate::triangles::{TriMesh, VertexAttribute};

impl TriMesh {
    /// The mesh subdivided `levels` times: each triangle becomes four at its edge midpoints
    /// (corner triangles first, the middle one last), with midpoints shared between the
    /// triangles on either side of an edge. Triangle `t` becomes triangles `4t..4t + 4`, which
    /// keep its group; normals and texture coordinates are interpolated at the midpoints.
    /// The surface is unchanged (this is not smoothing); each level multiplies the triangle
    /// count by four.
    ///
    /// # Errors
    /// [`Error::TooLarge`] if the result would need more than `u32::MAX` vertices or triangles.
    pub fn subdivide(&self, levels: u32) -> Result<TriMesh> {
        let mut mesh = self.clone();
        for _ in 0..levels {
            mesh = mesh.subdivide_once()?;
        }
        Ok(mesh)
    }

    fn subdivide_once(&self) -> Result<TriMesh> {
        let triangles = self.triangle_count() as u64 * 4;
        if triangles > u64::from(u32::MAX) {
            return Err(Error::TooLarge {
                what: "triangle",
                count: triangles,
            });
        }
        let midpoint = |a, b| (a + b) * 0.5;
        let dense: Vec<Option<[u32; 3]>> = self.indices().iter().copied().map(Some).collect();
        let (positions, indices) = split_edges(self.positions(), &dense, midpoint)?.into_parts();
        let mut mesh = TriMesh::new(positions, indices.into_iter().flatten().collect())?;
        if let Some(normals) = self.normals() {
            mesh =
                mesh.with_normals(split_edges(normals.values(), normals.indices(), midpoint)?)?;
        }
        if let Some(uvs) = self.uvs() {
            mesh = mesh.with_uvs(split_edges(uvs.values(), uvs.indices(), |a, b| {
                (a + b) * 0.5
            })?)?;
        }
        if !self.group_names().is_empty() {
            let groups = (0..self.triangle_count())
                .flat_map(|t| [self.triangle_group(t).unwrap_or(0); 4])
                .collect();
            mesh = mesh.with_groups(self.group_names().to_vec(), groups)?;
        }
        mesh.set_warnings(self.warnings().to_vec());
        Ok(mesh)
    }
}

/// One level of midpoint subdivision on indexed values: the values with one midpoint appended
/// per distinct edge, and four index triples per triangle (`None` stays `None`, four times).
///
/// Edges are found without hashing: each edge `(a, b)`, `a < b`, is listed under `a` in a
/// compressed table sized by a first counting pass, and looked up by a short linear scan
/// (a vertex has a handful of edges). Midpoints are numbered in order of first appearance.
fn split_edges<T: Copy>(
    values: &[T],
    triangles: &[Option<[u32; 3]>],
    midpoint: impl Fn(T, T) -> T,
) -> Result<VertexAttribute<T>> {
    let edges_of = |[a, b, c]: [u32; 3]| [(a, b), (b, c), (c, a)];
    let key = |(a, b): (u32, u32)| if a < b { (a, b) } else { (b, a) };

    // Counting pass: an upper bound of the edges listed under each lower vertex.
    let mut start = vec![0u32; values.len() + 1];
    for corners in triangles.iter().flatten() {
        for edge in edges_of(*corners) {
            start[key(edge).0 as usize + 1] += 1;
        }
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut filled = vec![0u32; values.len()];
    let mut slots: Vec<(u32, u32)> = vec![(0, 0); start[values.len()] as usize];

    let mut out_values = values.to_vec();
    let mut out_triangles = Vec::with_capacity(triangles.len() * 4);
    for corners in triangles {
        let Some(corners) = *corners else {
            out_triangles.extend([None; 4]);
            continue;
        };
        let mut mid = [0u32; 3];
        for (m, edge) in mid.iter_mut().zip(edges_of(corners)) {
            let (low, high) = key(edge);
            let begin = start[low as usize] as usize;
            let list = &slots[begin..begin + filled[low as usize] as usize];
            *m = match list.iter().find(|(other, _)| *other == high) {
                Some(&(_, id)) => id,
                None => {
                    let id = u32::try_from(out_values.len()).map_err(|_| Error::TooLarge {
                        what: "vertex",
                        count: out_values.len() as u64,
                    })?;
                    out_values.push(midpoint(values[low as usize], values[high as usize]));
                    slots[begin + filled[low as usize] as usize] = (high, id);
                    filled[low as usize] += 1;
                    id
                }
            };
        }
        let [a, b, c] = corners;
        let [ab, bc, ca] = mid;
        out_triangles.extend([
            Some([a, ab, ca]),
            Some([ab, b, bc]),
            Some([ca, bc, c]),
            Some([ab, bc, ca]),
        ]);
    }
    Ok(VertexAttribute::new(out_values, out_triangles))
}
