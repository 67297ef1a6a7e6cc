//! glTF 2.0 loading through the `gltf` crate's parser (JSON `.gltf` and binary `.glb`): the
//! default scene's node hierarchy as instances of shared meshes, or flattened into one mesh.
//!
//! Only the parser is used, not the crate's importer or accessor reader: buffers are resolved
//! here (GLB chunk, `data:` URI, file beside the glTF file) and every accessor is checked
//! against the bytes present before it is read, so a hostile file gets an error, not a panic.
//! Specification: Khronos, glTF 2.0 (<https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html>).

use std::sync::Arc;

use meshcast_bvh::BuildOptions;
use meshcast_mesh::{Instance, Mesh, Scene, TriMesh};

use crate::source::Source;
use crate::{Error, Format, Location, Place, Result};

mod accessor;
mod document;
mod flatten;
mod node;
mod primitive;

use document::Document;

/// A glTF file that is not valid, at `at`.
fn malformed(at: Location, problem: String) -> Error {
    Error::Malformed {
        at,
        format: Format::Gltf,
        problem,
    }
}

/// The document in `bytes`, where its default scene places meshes, and each placed mesh
/// (`meshes[m]` for glTF mesh `m`, built once however many nodes place it).
fn read_placed_meshes(
    bytes: &[u8],
    source: Source,
) -> Result<(Vec<Option<TriMesh>>, Vec<node::Placement>)> {
    let document = Document::parse(bytes, source)?;
    let placements = node::placements(&document.root, &document.transforms, source)?;
    let mut meshes: Vec<Option<TriMesh>> = vec![None; document.root.meshes.len()];
    for placement in &placements {
        if meshes[placement.mesh].is_none() {
            meshes[placement.mesh] = Some(primitive::read_mesh(&document, placement.mesh, source)?);
        }
    }
    let triangles: usize = placements
        .iter()
        .filter_map(|p| meshes[p.mesh].as_ref())
        .map(TriMesh::triangle_count)
        .sum();
    if triangles == 0 {
        return Err(Error::NoFaces {
            at: source.at(Place::File),
        });
    }
    Ok((meshes, placements))
}

/// The default scene flattened into one mesh (see [`crate::TriMeshFiles::from_path`]).
pub(crate) fn read_flattened(bytes: &[u8], source: Source) -> Result<TriMesh> {
    let (meshes, placements) = read_placed_meshes(bytes, source)?;
    flatten::flatten(&meshes, &placements)
}

/// The default scene, each node that places a mesh an instance (see [`crate::SceneFiles::from_gltf`]).
pub(crate) fn read_scene(bytes: &[u8], source: Source) -> Result<Scene> {
    let (meshes, placements) = read_placed_meshes(bytes, source)?;
    let options = BuildOptions::default();
    let built: Vec<Option<Arc<Mesh>>> = meshes
        .into_iter()
        .map(|mesh| {
            mesh.map(|mesh| Ok(Arc::new(Mesh::try_from_tri_mesh(mesh, &options)?)))
                .transpose()
        })
        .collect::<Result<_>>()?;
    let mut instances = Vec::with_capacity(placements.len());
    for placement in &placements {
        let Some(mesh) = built.get(placement.mesh).and_then(Option::as_ref) else {
            continue;
        };
        // Placed in f64, so that a georeferenced node keeps its precision. The walk checked the
        // transform in f64; rounding to f32 can still make it singular.
        let instance = Instance::new(Arc::clone(mesh), placement.world).map_err(|_| {
            node::invalid(
                source,
                placement.node,
                format!(
                    "its world transform is not invertible in f32: {:?}",
                    placement.world
                ),
            )
        })?;
        instances.push(instance);
    }
    Ok(Scene::from_instances(instances))
}
