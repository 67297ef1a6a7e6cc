//! The file methods of [`TriMesh`], [`Mesh`] and [`Scene`]: three extension traits, since
//! those types live in `meshcast-mesh`, which reads no files. Bring them into scope
//! (`use meshcast_io::{MeshFiles, SceneFiles, TriMeshFiles};`, or the `meshcast` facade's
//! `use meshcast::prelude::*;`) and call them as before: `Mesh::from_path(path)`.

use std::io::Read;
use std::path::Path;

use meshcast_bvh::BuildOptions;
use meshcast_mesh::{Mesh, Scene, TriMesh};

use crate::cache;
use crate::mapped::{file_bytes, CacheRead, FileBytes};
use crate::read::{read_scene, read_tri_mesh, scene_of};
use crate::source::{format_of_file, given_or_detected, read_file, Source};
use crate::{Error, Format, Result};

/// A reader of bytes in a known format.
type Reader<T> = fn(&[u8], Format, Source) -> Result<T>;

/// What `read` makes of the file at `path`, in the format its name or content says; a PLY
/// file or a binary STL file is streamed into its mesh instead, never held whole, and
/// `from_mesh` makes the `T`.
fn from_file<T>(path: &Path, read: Reader<T>, from_mesh: fn(TriMesh) -> Result<T>) -> Result<T> {
    let source = Source::file(path);
    if let Some(tri_mesh) = streamed(path)? {
        return from_mesh(tri_mesh);
    }
    let bytes = read_file(path)?;
    read(&bytes, format_of_file(source, &bytes)?, source)
}

/// The mesh of the file at `path` if it is a PLY file or a binary STL file, read as it
/// streams in.
fn streamed(path: &Path) -> Result<Option<TriMesh>> {
    #[cfg(feature = "ply")]
    if let Some((input, size)) = crate::source::ply_file(path)? {
        return crate::ply::read_from(input, Some(size), Source::file(path)).map(Some);
    }
    #[cfg(feature = "stl")]
    if let Some(tri_mesh) = crate::stl::read_binary_file(path)? {
        return Ok(Some(tri_mesh));
    }
    let _ = path;
    Ok(None)
}

/// What `read` makes of `bytes` in `format`, or in the format they look like.
fn from_memory<T>(bytes: &[u8], format: Option<Format>, read: Reader<T>) -> Result<T> {
    let source = Source::MEMORY;
    read(bytes, given_or_detected(format, bytes, source)?, source)
}

/// Reading a [`TriMesh`] from a file, bytes or a reader, in any format meshcast reads, and
/// the hash of its geometry that a cache stores.
pub trait TriMeshFiles: Sized {
    /// Loads a mesh file in any format meshcast reads ([`Format`]), chosen by the file's
    /// extension, or by its content where the extension is missing or does not match it.
    ///
    /// - OBJ: every object and group, polygons triangulated ([`TriMeshFiles::from_obj`]
    ///   tells how triangles are numbered).
    /// - glTF: the default scene flattened into one mesh: each mesh a node places is appended
    ///   with its positions carried into world space by the node's transform (composed in
    ///   `f64`), normals by its inverse transpose, and triangles turned where the transform
    ///   mirrors, so their front stays the front; a mesh placed twice appears twice, its
    ///   groups once ([`SceneFiles::from_gltf`] tells what is read; [`SceneFiles::from_path`]
    ///   keeps the instances instead).
    /// - PLY: its faces, polygons triangulated as OBJ's are, with normals and texture
    ///   coordinates when the vertices have them.
    /// - STL: its triangles, the corners that repeat welded into shared vertices (by exact
    ///   equality, `-0.0` as `0.0`), so that closed surfaces stay closed.
    /// - a meshcast cache: the mesh it holds.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be read, [`Error::UnknownFormat`] if neither its name
    /// nor its content tells its format, [`Error::FormatDisabled`] if this build leaves its
    /// reader out, and otherwise the reader's error, with the place in the file.
    fn from_path(path: impl AsRef<Path>) -> Result<Self>;

    /// Reads a mesh from bytes in `format`, or in the format the bytes look like when
    /// `format` is `None` ([`Format::detect`]). As [`TriMeshFiles::from_path`], but files a
    /// glTF or OBJ file refers to (external buffers, material libraries) cannot be found: a
    /// glTF file must embed its buffers or be a GLB.
    ///
    /// # Errors
    /// As [`TriMeshFiles::from_path`], without [`Error::Io`]; errors name the source
    /// `<bytes>`.
    fn from_bytes(bytes: &[u8], format: Option<Format>) -> Result<Self>;

    /// Reads a mesh from a reader, to its end: [`TriMeshFiles::from_bytes`] on what it gives.
    ///
    /// # Errors
    /// [`Error::Io`] (with the path `<reader>`) if reading fails; otherwise as
    /// [`TriMeshFiles::from_bytes`].
    fn from_reader(reader: impl Read, format: Option<Format>) -> Result<Self>;

    /// Loads a Wavefront OBJ file: [`TriMeshFiles::from_path`], whatever the file's
    /// extension.
    ///
    /// Polygons become `n - 2` triangles in file order: a convex one the fan
    /// `(c0, ci, ci+1)` from its first corner, as tobj does, so triangle `k` is predictable
    /// from the file; a concave one by ear clipping ([`meshcast_mesh::Warning::ConcaveFaces`]
    /// counts them). Negative (relative) indices are accepted; normals and texture
    /// coordinates are kept for the faces that give them for every corner; each triangle
    /// remembers the name of the last `o` or `g` statement before it (tobj treats both
    /// alike; faces before any get `"unnamed_object"`). Line elements (`l`), points and
    /// curves are skipped with a [`meshcast_mesh::Warning`], as is a material library that
    /// cannot be read: see [`TriMesh::warnings`]. Vertices that no face uses are dropped, and
    /// a vertex used by several objects is repeated in each.
    ///
    /// # Errors
    /// [`Error::Io`] (missing or unreadable file), [`Error::NoFaces`] (empty file or no face),
    /// and with the file's path and line: [`Error::InvalidUtf8`], [`Error::Syntax`],
    /// [`Error::NonFiniteValue`], [`Error::FaceIndexOutOfRange`] (an index past the elements
    /// defined before the face, or 0), [`Error::FaceTooSmall`].
    fn from_obj(path: impl AsRef<Path>) -> Result<Self>;

    /// A 64-bit hash of the positions and triangles, the one a cache file stores
    /// ([`MeshFiles::save`]): two meshes with the same vertices (bit for bit) and the same
    /// index triples have the same hash, whatever their attributes; a cache built from a mesh
    /// file has the hash of the mesh read from that file. It is XXH3-64 (seed 0) of the
    /// XXH3-64 hashes of the positions' and of the indices' little-endian bytes, each 8 bytes
    /// little-endian; stable across hosts and versions of meshcast.
    ///
    /// # Examples
    /// ```
    /// use meshcast_io::{MeshFiles, TriMeshFiles};
    /// use meshcast_mesh::{Mesh, TriMesh};
    ///
    /// let corners = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    /// let tri = TriMesh::from_triangles(&corners, &[[0, 1, 2]])?;
    /// let cached = Mesh::from_bytes(&Mesh::from_triangles(&corners, &[[0, 1, 2]])?.to_bytes())?;
    /// assert_eq!(cached.tri_mesh().geometry_hash(), tri.geometry_hash());
    /// let turned = TriMesh::from_triangles(&corners, &[[0, 2, 1]])?;
    /// assert_ne!(turned.geometry_hash(), tri.geometry_hash());
    /// # Ok::<(), meshcast_io::Error>(())
    /// ```
    fn geometry_hash(&self) -> u64;
}

impl TriMeshFiles for TriMesh {
    fn from_path(path: impl AsRef<Path>) -> Result<Self> {
        from_file(path.as_ref(), read_tri_mesh, Ok)
    }

    fn from_bytes(bytes: &[u8], format: Option<Format>) -> Result<Self> {
        from_memory(bytes, format, read_tri_mesh)
    }

    fn from_reader(mut reader: impl Read, format: Option<Format>) -> Result<Self> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(|source| Error::Io {
            path: "<reader>".into(),
            source,
        })?;
        Self::from_bytes(&bytes, format)
    }

    fn from_obj(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        read_tri_mesh(&read_file(path)?, Format::Obj, Source::file(path))
    }

    fn geometry_hash(&self) -> u64 {
        cache::geometry_hash_of(self)
    }
}

/// Loading a [`Mesh`] from any mesh file, and the meshcast cache: a mesh with its hierarchy
/// in one versioned, checksummed file, loaded without a build.
pub trait MeshFiles: Sized {
    /// Loads a mesh file in any format ([`TriMeshFiles::from_path`]) and builds its
    /// hierarchy with the default options; a meshcast cache is loaded with the hierarchy it
    /// holds ([`MeshFiles::load`]), with no build.
    ///
    /// # Errors
    /// As [`TriMeshFiles::from_path`] and [`MeshFiles::load`].
    fn from_path(path: impl AsRef<Path>) -> Result<Self>;

    /// Loads an OBJ file ([`TriMeshFiles::from_obj`]) and builds its hierarchy with the
    /// default options.
    ///
    /// # Errors
    /// As [`TriMeshFiles::from_obj`].
    fn from_obj(path: impl AsRef<Path>) -> Result<Self>;

    /// The mesh and its hierarchy as the bytes of a cache file (the format is in the
    /// `cache` module's source; [`MeshFiles::from_bytes`] reads them back). The same mesh
    /// gives the same bytes on any host. Kept: positions, triangles, normals, texture
    /// coordinates, groups, the hierarchy, its [`Mesh::build_options`] and
    /// [`Mesh::leaf_test`], and whether the mesh is closed. Not kept: the loader's
    /// [`TriMesh::warnings`], the node kernel (the loading machine chooses), caches made
    /// by queries.
    fn to_bytes(&self) -> Vec<u8>;

    /// The mesh in cache bytes from [`MeshFiles::to_bytes`], with its hierarchy as it was:
    /// no build. It answers every query exactly as the mesh that wrote them.
    ///
    /// Everything is checked first, in linear time; no allocation exceeds a few times the
    /// length of `bytes`.
    ///
    /// # Errors
    /// [`Error::Cache`], with the byte offset where the problem was found and a
    /// [`CacheProblem`](crate::CacheProblem): not a cache, another version, damaged or truncated
    /// bytes (every section is checksummed), or contents no writer makes.
    ///
    /// # Examples
    /// ```
    /// use glam::Vec3;
    /// use meshcast_io::{CacheProblem, Error, MeshFiles};
    /// use meshcast_mesh::{Mesh, RayQueries};
    /// use meshcast_primitives::Ray;
    ///
    /// let tri = Mesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], &[[0, 1, 2]])?;
    /// let mut bytes = tri.to_bytes();
    /// let ray = Ray::new(Vec3::new(0.25, 0.25, 1.0), Vec3::NEG_Z);
    /// assert_eq!(Mesh::from_bytes(&bytes)?.cast(&ray), tri.cast(&ray));
    /// let last = bytes.len() - 1;
    /// bytes[last] ^= 1;
    /// let err = Mesh::from_bytes(&bytes).unwrap_err();
    /// assert!(matches!(err, Error::Cache { problem: CacheProblem::ChecksumMismatch { .. }, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn from_bytes(bytes: &[u8]) -> Result<Self>;

    /// Writes the mesh to a cache file at `path` ([`MeshFiles::to_bytes`]; the advised
    /// extension is [`CACHE_EXTENSION`](crate::CACHE_EXTENSION)), which [`MeshFiles::load`] and
    /// [`MeshFiles::from_path`] read without a build. The bytes go to a temporary file in the
    /// same folder, which is then renamed over `path`: a reader sees the old file or the
    /// whole new one, never part of it, and a failed write leaves `path` as it was.
    ///
    /// # Errors
    /// [`Error::Io`] with `path` if the file cannot be written or renamed.
    fn save(&self, path: impl AsRef<Path>) -> Result<()>;

    /// Loads a cache file written by [`MeshFiles::save`]: [`MeshFiles::from_bytes`] on its
    /// contents, errors naming the file. [`MeshFiles::from_path`] takes a cache as well as
    /// any mesh file.
    ///
    /// The file is memory-mapped, not copied; set the environment variable
    /// `MESHCAST_CACHE_READ=read` to read it into a buffer instead, where the file may be
    /// rewritten in place by another program while it loads (a mapped file truncated under
    /// the reader ends the process with `SIGBUS`; [`MeshFiles::save`] never does that).
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be read; otherwise as [`MeshFiles::from_bytes`].
    fn load(path: impl AsRef<Path>) -> Result<Self>;
}

impl MeshFiles for Mesh {
    fn from_path(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        if let Some(tri_mesh) = streamed(path)? {
            return Ok(Self::try_from_tri_mesh(tri_mesh, &BuildOptions::default())?);
        }
        let source = Source::file(path);
        let bytes = file_bytes(path, CacheRead::from_env())?;
        let format = format_of_file(source, &bytes)?;
        if format == Format::Cache {
            return cache::read_file_bytes(bytes, source);
        }
        // Only caches are read from a mapping: the other readers get a copy of the file.
        let bytes = match bytes {
            FileBytes::Mapped(map) => {
                drop(map);
                FileBytes::Read(read_file(path)?)
            }
            bytes => bytes,
        };
        let tri_mesh = read_tri_mesh(&bytes, format, source)?;
        // The file's bytes go before the build, whose peak is the load's peak.
        drop(bytes);
        Ok(Self::try_from_tri_mesh(tri_mesh, &BuildOptions::default())?)
    }

    fn from_obj(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Self::try_from_tri_mesh(
            TriMesh::from_obj(path)?,
            &BuildOptions::default(),
        )?)
    }

    fn to_bytes(&self) -> Vec<u8> {
        cache::to_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self> {
        cache::read(bytes, Source::MEMORY)
    }

    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        cache::save(self, path.as_ref())
    }

    fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = file_bytes(path, CacheRead::from_env())?;
        cache::read_file_bytes(bytes, Source::file(path))
    }
}

/// Loading a [`Scene`]: a glTF file's default scene as instances of shared meshes, or any
/// other mesh file as one instance.
pub trait SceneFiles: Sized {
    /// Loads a file as a scene: a glTF file's default scene, its nodes becoming instances of
    /// shared meshes ([`SceneFiles::from_gltf`]); any other format one instance,
    /// untransformed, of [`MeshFiles::from_path`].
    ///
    /// # Errors
    /// As [`MeshFiles::from_path`] and [`SceneFiles::from_gltf`].
    fn from_path(path: impl AsRef<Path>) -> Result<Self>;

    /// Reads a scene from bytes in `format`, or in the format the bytes look like when
    /// `format` is `None` ([`Format::detect`]). As [`SceneFiles::from_path`], but a glTF
    /// file must embed its buffers or be a GLB.
    ///
    /// # Errors
    /// As [`SceneFiles::from_path`], without [`Error::Io`]; errors name the source
    /// `<bytes>`.
    ///
    /// # Examples
    /// ```
    /// use meshcast_io::{Format, SceneFiles};
    /// use meshcast_mesh::Scene;
    ///
    /// let obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    /// let scene = Scene::from_bytes(obj, Some(Format::Obj))?;
    /// assert_eq!(scene.len(), 1);
    /// # Ok::<(), meshcast_io::Error>(())
    /// ```
    fn from_bytes(bytes: &[u8], format: Option<Format>) -> Result<Self>;

    /// Loads a glTF 2.0 file (`.gltf` with embedded or external buffers, or `.glb`) as a
    /// scene, whatever its extension: [`SceneFiles::from_path`] does the same for a file that
    /// is glTF by name or content.
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
    /// primitives are skipped with a [`meshcast_mesh::Warning::SkippedPrimitives`] in the
    /// mesh's [`TriMesh::warnings`]. Cameras, materials, skins, morph targets and animations
    /// are ignored (skinned meshes are placed in their bind pose).
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
    /// [`Error::FaceIndexOutOfRange`]; [`Error::NoFaces`] if the scene holds no triangle;
    /// [`Error::FormatDisabled`] if this build leaves the glTF reader out.
    ///
    /// # Examples
    /// ```
    /// use meshcast_io::SceneFiles;
    /// use meshcast_mesh::Scene;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/gltf/SimpleMeshes.gltf");
    /// let scene = Scene::from_gltf(path)?;
    /// assert_eq!(scene.len(), 2); // two nodes place one triangle mesh
    /// # Ok::<(), meshcast_io::Error>(())
    /// ```
    fn from_gltf(path: impl AsRef<Path>) -> Result<Self>;
}

impl SceneFiles for Scene {
    fn from_path(path: impl AsRef<Path>) -> Result<Self> {
        from_file(path.as_ref(), read_scene, |tri_mesh| {
            scene_of(Mesh::try_from_tri_mesh(tri_mesh, &BuildOptions::default())?)
        })
    }

    fn from_bytes(bytes: &[u8], format: Option<Format>) -> Result<Self> {
        from_memory(bytes, format, read_scene)
    }

    fn from_gltf(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        read_scene(&read_file(path)?, Format::Gltf, Source::file(path))
    }
}
