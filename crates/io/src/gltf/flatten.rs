//! A glTF scene flattened into one [`TriMesh`]: each placed mesh's vertices carried into
//! world space and appended.

use glam::{DAffine3, DMat3, Vec2, Vec3};

use super::node::Placement;
use crate::{Error, Result};
use meshcast_mesh::{frame_origin, TriMesh, VertexAttribute};
use meshcast_primitives::carry_point;

/// A per-corner attribute being appended to, one placed mesh after another.
#[derive(Default)]
struct Appended<T> {
    values: Vec<T>,
    indices: Vec<Option<[u32; 3]>>,
    present: bool,
}

impl<T: Copy> Appended<T> {
    /// Appends `triangle_count` triangles' worth of `attribute` (or none), each value mapped,
    /// each triple turned like the triangles when `mirrored`.
    fn append(
        &mut self,
        attribute: Option<&VertexAttribute<T>>,
        triangle_count: usize,
        mirrored: bool,
        map: impl Fn(T) -> T,
    ) -> Result<()> {
        let Some(attribute) = attribute else {
            self.indices.extend((0..triangle_count).map(|_| None));
            return Ok(());
        };
        let base = index_base(self.values.len())?;
        self.values
            .extend(attribute.values().iter().map(|&v| map(v)));
        self.indices.extend(
            attribute
                .indices()
                .iter()
                .map(|triple| triple.map(|t| turned(t, mirrored).map(|i| base + i))),
        );
        self.present = true;
        Ok(())
    }

    fn into_attribute(self) -> Option<VertexAttribute<T>> {
        self.present
            .then(|| VertexAttribute::new(self.values, self.indices))
    }
}

/// `len` as the first index of what is appended next.
fn index_base(len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::too_large("vertex", len as u64))
}

/// A triangle's corners in the order that keeps its front side after a mirroring transform
/// (glTF 2.0, section 3.7.2.1: a negative determinant makes the winding clockwise).
fn turned([a, b, c]: [u32; 3], mirrored: bool) -> [u32; 3] {
    if mirrored {
        [a, c, b]
    } else {
        [a, b, c]
    }
}

/// The meshes (`meshes[m]` is glTF mesh `m`, present for every placed one) placed by
/// `placements`, merged into one mesh in world space. Positions are carried in `f64` and
/// rounded once, relative to the mesh's own origin when they lie far from the world's
/// ([`frame_origin`], as the OBJ and PLY readers keep decimals); normals by the inverse transpose, renormalized; texture coordinates as they
/// are. A mesh's groups and warnings appear once however many times it is placed.
pub(super) fn flatten(meshes: &[Option<TriMesh>], placements: &[Placement]) -> Result<TriMesh> {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    let mut normals = Appended::<Vec3>::default();
    let mut uvs = Appended::<Vec2>::default();
    let mut group_names = Vec::new();
    let mut groups = Vec::new();
    let mut warnings = Vec::new();
    // Where each mesh's groups start among `group_names`, once it has been placed.
    let mut group_base: Vec<Option<u32>> = vec![None; meshes.len()];

    for placement in placements {
        let Some(mesh) = meshes.get(placement.mesh).and_then(Option::as_ref) else {
            continue;
        };
        let world: DAffine3 = placement.world;
        let mirrored = world.matrix3.determinant() < 0.0;
        let normal_matrix: DMat3 = world.matrix3.inverse().transpose();

        let base = index_base(positions.len())?;
        positions.extend(
            mesh.positions()
                .iter()
                .map(|p| world.transform_point3(p.as_dvec3())),
        );
        triangles.extend(
            mesh.indices()
                .iter()
                .map(|&t| turned(t, mirrored).map(|i| base + i)),
        );
        let count = mesh.triangle_count();
        normals.append(mesh.normals(), count, mirrored, |n| {
            (normal_matrix * n.as_dvec3()).normalize_or_zero().as_vec3()
        })?;
        uvs.append(mesh.uvs(), count, mirrored, |uv| uv)?;

        let first_group = match group_base[placement.mesh] {
            Some(first) => first,
            None => {
                let first = index_base(group_names.len())?;
                group_names.extend(mesh.group_names().iter().cloned());
                warnings.extend(mesh.warnings().iter().cloned());
                group_base[placement.mesh] = Some(first);
                first
            }
        };
        groups.extend((0..count).map(|t| first_group + mesh.triangle_group(t).unwrap_or(0)));
    }

    // Rounded once, in the mesh's own frame when they lie far from the origin.
    let origin = frame_origin(positions.iter().copied());
    let positions = positions
        .into_iter()
        .map(|p| carry_point(p, origin))
        .collect();
    let mut flat = TriMesh::new(positions, triangles)?
        .with_origin(origin)?
        .with_groups(group_names, groups)?;
    if let Some(normals) = normals.into_attribute() {
        flat = flat.with_normals(normals)?;
    }
    if let Some(uvs) = uvs.into_attribute() {
        flat = flat.with_uvs(uvs)?;
    }
    flat.set_warnings(warnings);
    Ok(flat)
}
