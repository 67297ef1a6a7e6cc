//! A glTF mesh as one [`TriMesh`]: its triangle primitives (lists, strips and fans, indexed
//! or not) merged, each primitive a group; point and line primitives skipped with a warning.

use ::gltf::json;
use glam::{Vec2, Vec3};
use json::mesh::{Mode, Semantic};
use json::validation::Checked;

use super::document::Document;
use super::{accessor, malformed};
use crate::source::Source;
use crate::{Error, IndexKind, Place, Result};
use meshcast_mesh::{TriMesh, VertexAttribute, Warning};

/// The place of mesh `index` in the file.
fn place(index: usize) -> Place {
    Place::Element {
        kind: "mesh",
        index,
    }
}

/// A per-corner attribute being gathered over several primitives.
#[derive(Default)]
struct Gathered<T> {
    values: Vec<T>,
    /// One entry per triangle so far.
    indices: Vec<Option<[u32; 3]>>,
    /// Whether any primitive gave values.
    present: bool,
}

impl<T: Copy> Gathered<T> {
    /// Adds a primitive's triangles (`local` indices into its own vertices): with the
    /// primitive's `values` (one per vertex) when it has them.
    fn push(&mut self, values: Option<Vec<T>>, local: &[[u32; 3]]) -> Result<()> {
        match values {
            Some(values) => {
                let base = u32::try_from(self.values.len()).map_err(|_| too_many())?;
                self.values.extend(values);
                self.indices
                    .extend(local.iter().map(|t| Some(t.map(|i| base + i))));
                self.present = true;
            }
            None => self.indices.extend(local.iter().map(|_| None)),
        }
        Ok(())
    }

    fn into_attribute(self) -> Option<VertexAttribute<T>> {
        self.present
            .then(|| VertexAttribute::new(self.values, self.indices))
    }
}

fn too_many() -> Error {
    Error::too_large("vertex", u64::from(u32::MAX) + 1)
}

/// Mesh `index` of the document as one triangle mesh, its primitives' triangles in order,
/// primitive `k` in the group `"<mesh name>/<k>"` (`"mesh<index>/<k>"` for a mesh without a
/// name). Strip and fan triangles that repeat a vertex (the zero-area ones that join
/// strips) are left out.
///
/// # Errors
/// [`Error::Malformed`] (at the mesh, or the accessor at fault) for a primitive without
/// positions, an unknown mode, a triangle list whose length is not a multiple of three, or
/// an attribute whose length differs from the positions'; [`Error::FaceIndexOutOfRange`]
/// for an index past the positions; the accessor's errors.
pub(super) fn read_mesh(document: &Document, index: usize, source: Source) -> Result<TriMesh> {
    let mesh_at = || source.at(place(index));
    let mesh = document.root.meshes.get(index).ok_or_else(|| {
        malformed(
            mesh_at(),
            format!("no such mesh ({} defined)", document.root.meshes.len()),
        )
    })?;
    let name = mesh.name.clone().unwrap_or_else(|| format!("mesh{index}"));

    let mut positions: Vec<Vec3> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut normals = Gathered::<Vec3>::default();
    let mut uvs = Gathered::<Vec2>::default();
    let mut group_names = Vec::new();
    let mut groups = Vec::new();
    let mut skipped = Vec::new();

    for (k, primitive) in mesh.primitives.iter().enumerate() {
        let Checked::Valid(mode) = primitive.mode else {
            return Err(malformed(
                mesh_at(),
                format!("primitive {k} has an unknown mode"),
            ));
        };
        if !matches!(
            mode,
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
        ) {
            skipped.push(mode);
            continue;
        }
        let attribute = |semantic| primitive.attributes.get(&Checked::Valid(semantic));
        let Some(position_accessor) = attribute(Semantic::Positions) else {
            return Err(malformed(
                mesh_at(),
                format!("primitive {k} has no POSITION attribute"),
            ));
        };
        let local_positions = accessor::vec3s(document, position_accessor.value(), source)?;
        let vertex_count = local_positions.len();

        // Per-vertex attributes must have one value per position.
        let same_count = |accessor: usize, found: usize| {
            if found == vertex_count {
                Ok(())
            } else {
                Err(malformed(
                    source.at(Place::Element {
                        kind: "accessor",
                        index: accessor,
                    }),
                    format!("{found} values for {vertex_count} positions"),
                ))
            }
        };
        let local_normals = match attribute(Semantic::Normals) {
            Some(a) => {
                let values = accessor::vec3s(document, a.value(), source)?;
                same_count(a.value(), values.len())?;
                Some(values)
            }
            None => None,
        };
        let local_uvs = match attribute(Semantic::TexCoords(0)) {
            Some(a) => {
                let values = accessor::vec2s(document, a.value(), source)?;
                same_count(a.value(), values.len())?;
                Some(values)
            }
            None => None,
        };

        // The vertex sequence, then its triangles.
        let sequence = match primitive.indices {
            Some(indices) => {
                let values = accessor::indices(document, indices.value(), source)?;
                if let Some(&bad) = values.iter().find(|&&i| i as usize >= vertex_count) {
                    return Err(Error::FaceIndexOutOfRange {
                        at: source.at(Place::Element {
                            kind: "accessor",
                            index: indices.value(),
                        }),
                        kind: IndexKind::Position,
                        index: i64::from(bad),
                        count: vertex_count,
                    });
                }
                values
            }
            None => {
                let count = u32::try_from(vertex_count).map_err(|_| too_many())?;
                (0..count).collect()
            }
        };
        let local = assemble(mode, &sequence)
            .map_err(|problem| malformed(mesh_at(), format!("primitive {k}: {problem}")))?;

        let base = u32::try_from(positions.len()).map_err(|_| too_many())?;
        positions.extend(local_positions);
        triangles.extend(local.iter().map(|t| t.map(|i| base + i)));
        normals.push(local_normals, &local)?;
        uvs.push(local_uvs, &local)?;
        let group = u32::try_from(group_names.len()).map_err(|_| too_many())?;
        group_names.push(format!("{name}/{k}"));
        groups.extend(local.iter().map(|_| group));
    }

    let mut tri_mesh = TriMesh::new(positions, triangles)?.with_groups(group_names, groups)?;
    if let Some(normals) = normals.into_attribute() {
        tri_mesh = tri_mesh.with_normals(normals)?;
    }
    if let Some(uvs) = uvs.into_attribute() {
        tri_mesh = tri_mesh.with_uvs(uvs)?;
    }
    if !skipped.is_empty() {
        let mut modes: Vec<&str> = skipped.iter().map(|&mode| mode_name(mode)).collect();
        modes.sort_unstable();
        modes.dedup();
        tri_mesh.set_warnings(vec![Warning::SkippedPrimitives {
            count: skipped.len(),
            what: format!("{} primitive(s) in mesh {index} ({name})", modes.join(", ")),
        }]);
    }
    Ok(tri_mesh)
}

/// The glTF name of a primitive mode.
fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Points => "POINTS",
        Mode::Lines => "LINES",
        Mode::LineLoop => "LINE_LOOP",
        Mode::LineStrip => "LINE_STRIP",
        Mode::Triangles => "TRIANGLES",
        Mode::TriangleStrip => "TRIANGLE_STRIP",
        Mode::TriangleFan => "TRIANGLE_FAN",
    }
}

/// The triangles of a vertex sequence in a triangle `mode`, as the glTF 2.0 specification
/// numbers them (section 3.7.2.1): triangle `i` of a strip is
/// `(v[i], v[i + 1 + i % 2], v[i + 2 - i % 2])`, so every other one is turned to keep the
/// winding; triangle `i` of a fan is `(v[i + 1], v[i + 2], v[0])`. In strips and fans a
/// triangle that repeats a vertex is left out (it has no area: strips are joined that way),
/// and the turning still counts it, so the triangles after it keep their winding.
fn assemble(mode: Mode, v: &[u32]) -> std::result::Result<Vec<[u32; 3]>, String> {
    let distinct = |[a, b, c]: &[u32; 3]| a != b && b != c && a != c;
    Ok(match mode {
        Mode::Triangles => {
            if !v.len().is_multiple_of(3) {
                return Err(format!("{} vertices do not make whole triangles", v.len()));
            }
            v.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect()
        }
        Mode::TriangleStrip => (0..v.len().saturating_sub(2))
            .map(|i| [v[i], v[i + 1 + i % 2], v[i + 2 - i % 2]])
            .filter(distinct)
            .collect(),
        Mode::TriangleFan => (0..v.len().saturating_sub(2))
            .map(|i| [v[i + 1], v[i + 2], v[0]])
            .filter(distinct)
            .collect(),
        _ => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_triangles_alternate_their_winding_as_the_specification_numbers_them() {
        let triangles = assemble(Mode::TriangleStrip, &[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(triangles, [[0, 1, 2], [1, 3, 2], [2, 3, 4]]);
    }

    #[test]
    fn a_strip_restart_drops_its_degenerate_triangles_and_keeps_the_parity() {
        // Two strips (0 1 2 3) and (4 5 6 7) joined by repeating 3 and 4: the four joining
        // triangles repeat a vertex; the second strip starts at an even position, so its
        // first triangle keeps the order it would have alone.
        let triangles = assemble(Mode::TriangleStrip, &[0, 1, 2, 3, 3, 4, 4, 5, 6, 7]).unwrap();
        assert_eq!(triangles, [[0, 1, 2], [1, 3, 2], [4, 5, 6], [5, 7, 6]]);
    }

    #[test]
    fn fan_triangles_turn_around_the_first_vertex() {
        let triangles = assemble(Mode::TriangleFan, &[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(triangles, [[1, 2, 0], [2, 3, 0], [3, 4, 0]]);
    }

    #[test]
    fn short_sequences_make_no_triangles_and_lists_must_be_whole() {
        assert!(assemble(Mode::TriangleStrip, &[0, 1]).unwrap().is_empty());
        assert!(assemble(Mode::TriangleFan, &[]).unwrap().is_empty());
        assert!(assemble(Mode::Triangles, &[0, 1, 2, 3]).is_err());
    }
}
