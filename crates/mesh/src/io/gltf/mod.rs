//! glTF 2.0 loading through the `gltf` crate's parser (JSON `.gltf` and binary `.glb`): the
//! default scene's node hierarchy as instances of shared meshes, or flattened into one mesh.
//!
//! Only the parser is used, not the crate's importer or accessor reader: buffers are resolved
//! here (GLB chunk, `data:` URI, file beside the glTF file) and every accessor is checked
//! against the bytes present before it is read, so a hostile file gets an error, not a panic.
//! Specification: Khronos, glTF 2.0 (<https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html>).

use std::path::Path;
use std::sync::Arc;

use meshcast_bvh::BuildOptions;

use super::{read_file, Source};
use crate::error::{Location, Place};
use crate::{Error, Format, Instance, Mesh, Result, Scene, TriMesh};

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
    let placements = node::placements(&document.root, source)?;
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

/// The default scene flattened into one mesh (see [`TriMesh::from_path`]).
pub(crate) fn read_flattened(bytes: &[u8], source: Source) -> Result<TriMesh> {
    let (meshes, placements) = read_placed_meshes(bytes, source)?;
    flatten::flatten(&meshes, &placements)
}

/// The default scene, each node that places a mesh an instance (see [`Scene::from_gltf`]).
pub(crate) fn read_scene(bytes: &[u8], source: Source) -> Result<Scene> {
    let (meshes, placements) = read_placed_meshes(bytes, source)?;
    let options = BuildOptions::default();
    let built: Vec<Option<Arc<Mesh>>> = meshes
        .into_iter()
        .map(|mesh| mesh.map(|mesh| Arc::new(Mesh::from_tri_mesh(mesh, &options))))
        .collect();
    let mut instances = Vec::with_capacity(placements.len());
    for placement in &placements {
        let Some(mesh) = built.get(placement.mesh).and_then(Option::as_ref) else {
            continue;
        };
        // The walk checked the transform in f64; rounding to f32 can still make it singular.
        let transform = placement.world.as_affine3a();
        let instance = Instance::new(Arc::clone(mesh), transform).map_err(|_| {
            node::invalid(
                source,
                placement.node,
                format!("its world transform is not invertible in f32: {transform:?}"),
            )
        })?;
        instances.push(instance);
    }
    Ok(Scene::from_instances(instances))
}

impl Scene {
    /// Loads a glTF 2.0 file (`.gltf` with embedded or external buffers, or `.glb`) as a
    /// scene, whatever its extension: [`Scene::from_path`] does the same for a file that is
    /// glTF by name or content.
    ///
    /// The scene is the file's default scene (scene 0 when none is marked; with no scene at
    /// all, every node that is no node's child). Each node that places a mesh becomes an
    /// instance, in depth-first order of the nodes, its transform composed from the root
    /// (matrices, or translation × rotation × scale) in `f64` and rounded once. Each glTF mesh
    /// is built once and shared (`Arc`) by every node that places it: its triangle primitives
    /// (lists, strips, fans; indexed by unsigned bytes, shorts or ints, or not indexed) merged
    /// into one [`TriMesh`], primitive `k` of mesh `name` in the group `"name/k"`
    /// (`"mesh<index>/k"` without a name), with the `NORMAL` and `TEXCOORD_0` attributes
    /// where given. Strip and fan triangles that repeat a vertex are left out. Point and line
    /// primitives are skipped with a [`crate::Warning::SkippedPrimitives`] in the mesh's
    /// [`TriMesh::warnings`]. Cameras, materials, skins, morph targets and animations are
    /// ignored (skinned meshes are placed in their bind pose).
    ///
    /// # Errors
    /// [`Error::Io`] if the file or an external buffer cannot be read; and with the file and
    /// the accessor, mesh, node or buffer at fault: [`Error::Unsupported`] for a required
    /// extension (every one is refused: Draco, meshopt and `KHR_mesh_quantization` among
    /// them), a sparse accessor or an external buffer with an absolute URI;
    /// [`Error::Truncated`] for a file or buffer shorter than it declares;
    /// [`Error::Malformed`] for invalid JSON, a missing element, an accessor whose elements
    /// lie outside its buffer, a node reached twice (a cycle) or placing a mesh with a
    /// singular or non-finite transform; [`Error::NonFiniteValue`];
    /// [`Error::FaceIndexOutOfRange`]; [`Error::NoFaces`] if the scene holds no triangle.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::Scene;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/gltf/SimpleMeshes.gltf");
    /// let scene = Scene::from_gltf(path)?;
    /// assert_eq!(scene.len(), 2); // two nodes place one triangle mesh
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn from_gltf(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        read_scene(&read_file(path)?, Source::file(path))
    }
}
