//! Reading meshes: one module per format, each behind a cargo feature of the same name
//! (all on by default), and the choice of format for a file.
//!
//! Every reader takes the whole file as bytes and a [`Source`] that names it in errors, and
//! gives a [`TriMesh`] (glTF also a scene of instances). Readers never panic: whatever the
//! bytes, the answer is a mesh or an [`Error`] that says where the file went wrong.

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use meshcast_bvh::BuildOptions;

use crate::error::{Location, Place};
use crate::{Error, Instance, Mesh, Result, Scene, TriMesh};

pub(crate) mod cache;
#[cfg(feature = "gltf")]
pub(crate) mod gltf;
#[cfg(feature = "obj")]
pub(crate) mod obj;
#[cfg(feature = "ply")]
pub(crate) mod ply;
#[cfg(any(feature = "obj", feature = "ply"))]
mod polygon;
#[cfg(feature = "stl")]
pub(crate) mod stl;

/// A file format meshcast reads.
///
/// # Examples
/// ```
/// use meshcast_mesh::Format;
/// use std::path::Path;
///
/// assert_eq!(Format::from_extension(Path::new("scan.PLY")), Some(Format::Ply));
/// assert_eq!(Format::detect(b"ply\nformat ascii 1.0\n"), Some(Format::Ply));
/// assert_eq!(Format::detect(b"glTF\x02\0\0\0"), Some(Format::Gltf));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Wavefront OBJ (`.obj`).
    Obj,
    /// glTF 2.0, as JSON (`.gltf`) or binary (`.glb`).
    Gltf,
    /// Stanford PLY (`.ply`), ASCII or binary.
    Ply,
    /// STL (`.stl`), ASCII or binary.
    Stl,
    /// A meshcast cache: a mesh with its hierarchy ([`Mesh::save`], `.mcache`).
    Cache,
}

/// The extension [`Mesh::save`] users are advised to give cache files.
pub const CACHE_EXTENSION: &str = "mcache";

impl Format {
    /// Every format, in the order [`Format::detect`] tries them.
    pub const ALL: [Format; 5] = [
        Format::Cache,
        Format::Gltf,
        Format::Ply,
        Format::Stl,
        Format::Obj,
    ];

    /// The format a file's extension names (case-insensitive), if any.
    pub fn from_extension(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "obj" => Some(Self::Obj),
            "gltf" | "glb" => Some(Self::Gltf),
            "ply" => Some(Self::Ply),
            "stl" => Some(Self::Stl),
            CACHE_EXTENSION => Some(Self::Cache),
            _ => None,
        }
    }

    /// The format these bytes (a whole file, or at least its first kilobyte and its length)
    /// look like: a cache's or GLB's magic number, a PLY header, a binary STL whose size
    /// matches its triangle count, an ASCII STL's `solid` and `facet`, a glTF JSON object,
    /// or OBJ statements. `None` when nothing matches.
    pub fn detect(bytes: &[u8]) -> Option<Self> {
        Self::ALL.into_iter().find(|format| format.accepts(bytes))
    }

    /// Whether `bytes` look like this format (see [`Format::detect`]).
    fn accepts(self, bytes: &[u8]) -> bool {
        let text = trim_start(bytes);
        match self {
            Self::Cache => bytes.starts_with(&cache::MAGIC),
            Self::Gltf => bytes.starts_with(b"glTF") || text.starts_with(b"{"),
            Self::Ply => bytes.starts_with(b"ply\n") || bytes.starts_with(b"ply\r\n"),
            Self::Stl => is_binary_stl(bytes) || is_ascii_stl(text),
            Self::Obj => looks_like_obj(text),
        }
    }

    /// The cargo feature of `meshcast-mesh` that reads this format.
    pub fn feature(self) -> &'static str {
        match self {
            Self::Obj => "obj",
            Self::Gltf => "gltf",
            Self::Ply => "ply",
            Self::Stl => "stl",
            Self::Cache => "the cache is always read",
        }
    }

    /// Whether this build reads the format.
    pub fn is_enabled(self) -> bool {
        match self {
            Self::Obj => cfg!(feature = "obj"),
            Self::Gltf => cfg!(feature = "gltf"),
            Self::Ply => cfg!(feature = "ply"),
            Self::Stl => cfg!(feature = "stl"),
            Self::Cache => true,
        }
    }

    /// `format` if given, else the one `bytes` look like.
    fn given_or_detected(format: Option<Self>, bytes: &[u8], source: Source) -> Result<Self> {
        format
            .or_else(|| Self::detect(bytes))
            .ok_or_else(|| Error::UnknownFormat {
                at: source.at(Place::File),
            })
    }

    /// The format of a file: its extension's when its bytes look like that format, else
    /// the one its bytes look like, else its extension's (whose reader then says what is
    /// wrong).
    fn of_file(source: Source, bytes: &[u8]) -> Result<Self> {
        let named = source.file.and_then(Self::from_extension);
        match named {
            Some(format) if format.accepts(bytes) => Ok(format),
            _ => Self::detect(bytes)
                .or(named)
                .ok_or_else(|| Error::UnknownFormat {
                    at: source.at(Place::File),
                }),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Obj => "OBJ",
            Self::Gltf => "glTF",
            Self::Ply => "PLY",
            Self::Stl => "STL",
            Self::Cache => "meshcast cache",
        })
    }
}

/// The bytes after a UTF-8 byte order mark and leading white space.
fn trim_start(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// A binary STL: an 80-byte header, a triangle count, and 50 bytes per triangle, exactly.
fn is_binary_stl(bytes: &[u8]) -> bool {
    let Some(count) = bytes.get(80..84) else {
        return false;
    };
    let count = u32::from_le_bytes([count[0], count[1], count[2], count[3]]);
    bytes.len() as u64 == 84 + 50 * u64::from(count)
}

/// An ASCII STL: `solid`, then a `facet` soon after.
fn is_ascii_stl(text: &[u8]) -> bool {
    let head = &text[..text.len().min(1024)];
    head.get(..5)
        .is_some_and(|word| word.eq_ignore_ascii_case(b"solid"))
        && head.windows(5).any(|w| w.eq_ignore_ascii_case(b"facet"))
}

/// OBJ: the first line that is not a comment starts with an OBJ statement.
fn looks_like_obj(text: &[u8]) -> bool {
    const KEYWORDS: [&[u8]; 9] = [
        b"v", b"vt", b"vn", b"f", b"o", b"g", b"s", b"mtllib", b"usemtl",
    ];
    let first = text
        .split(|&b| b == b'\n')
        .map(trim_start)
        .find(|line| !line.is_empty() && !line.starts_with(b"#"));
    first.is_some_and(|line| {
        let keyword = line
            .split(|b| b.is_ascii_whitespace())
            .next()
            .unwrap_or_default();
        KEYWORDS.contains(&keyword)
    })
}

/// Where bytes being read came from: a file (named in errors, and the folder of the files
/// it refers to) or memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source<'a> {
    file: Option<&'a Path>,
}

impl<'a> Source<'a> {
    /// Bytes in memory: no name, no folder.
    pub(crate) const MEMORY: Source<'static> = Source { file: None };

    /// The file at `path`.
    pub(crate) fn file(path: &'a Path) -> Self {
        Self { file: Some(path) }
    }

    /// `place` in this source.
    pub(crate) fn at(self, place: Place) -> Location {
        Location::new(self.file, place)
    }

    /// The folder that files named by this one are relative to (none for memory).
    #[cfg_attr(not(any(feature = "obj", feature = "gltf")), allow(dead_code))]
    pub(crate) fn folder(self) -> Option<&'a Path> {
        self.file.map(|file| file.parent().unwrap_or(Path::new("")))
    }
}

/// Reads a whole file.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The mesh in `bytes`, in `format`.
fn read_tri_mesh(bytes: &[u8], format: Format, source: Source) -> Result<TriMesh> {
    match format {
        #[cfg(feature = "obj")]
        Format::Obj => obj::read(bytes, source),
        #[cfg(feature = "gltf")]
        Format::Gltf => gltf::read_flattened(bytes, source),
        #[cfg(feature = "ply")]
        Format::Ply => ply::read(bytes, source),
        #[cfg(feature = "stl")]
        Format::Stl => stl::read(bytes, source),
        Format::Cache => cache::read(bytes, source).map(Mesh::into_tri_mesh),
        #[allow(unreachable_patterns)]
        format => Err(Error::FormatDisabled {
            at: source.at(Place::File),
            format,
        }),
    }
}

impl TriMesh {
    /// Loads a mesh file in any format meshcast reads ([`Format`]), chosen by the file's
    /// extension, or by its content where the extension is missing or does not match it.
    ///
    /// - OBJ: every object and group, polygons triangulated ([`TriMesh::from_obj`] tells
    ///   how triangles are numbered).
    /// - glTF: the default scene flattened into one mesh: each mesh a node places is appended
    ///   with its positions carried into world space by the node's transform (composed in
    ///   `f64`), normals by its inverse transpose, and triangles turned where the transform
    ///   mirrors, so their front stays the front; a mesh placed twice appears twice, its
    ///   groups once ([`Scene::from_gltf`] tells what is read; [`Scene::from_path`] keeps
    ///   the instances instead).
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
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = read_file(path)?;
        let source = Source::file(path);
        read_tri_mesh(&bytes, Format::of_file(source, &bytes)?, source)
    }

    /// Reads a mesh from bytes in `format`, or in the format the bytes look like when
    /// `format` is `None` ([`Format::detect`]). As [`TriMesh::from_path`], but files a glTF
    /// or OBJ file refers to (external buffers, material libraries) cannot be found: a glTF
    /// file must embed its buffers or be a GLB.
    ///
    /// # Errors
    /// As [`TriMesh::from_path`], without [`Error::Io`]; errors name the source `<bytes>`.
    pub fn from_bytes(bytes: &[u8], format: Option<Format>) -> Result<Self> {
        let source = Source::MEMORY;
        let format = Format::given_or_detected(format, bytes, source)?;
        read_tri_mesh(bytes, format, source)
    }

    /// Reads a mesh from a reader, to its end: [`TriMesh::from_bytes`] on what it gives.
    ///
    /// # Errors
    /// [`Error::Io`] (with the path `<reader>`) if reading fails; otherwise as
    /// [`TriMesh::from_bytes`].
    pub fn from_reader(mut reader: impl Read, format: Option<Format>) -> Result<Self> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(|source| Error::Io {
            path: "<reader>".into(),
            source,
        })?;
        Self::from_bytes(&bytes, format)
    }

    /// Loads a Wavefront OBJ file: [`TriMesh::from_path`], whatever the file's extension.
    ///
    /// Polygons become `n - 2` triangles in file order: a convex one the fan
    /// `(c0, ci, ci+1)` from its first corner, as tobj does, so triangle `k` is predictable
    /// from the file; a concave one by ear clipping ([`crate::Warning::ConcaveFaces`] counts
    /// them). Negative (relative) indices are accepted; normals and texture coordinates are
    /// kept for the faces that give them for every corner;
    /// each triangle remembers the name of the last `o` or `g` statement before it (tobj
    /// treats both alike; faces before any get `"unnamed_object"`). Line elements (`l`),
    /// points and curves are skipped with a [`crate::Warning`], as is a material library that
    /// cannot be read: see [`TriMesh::warnings`]. Vertices that no face uses are dropped, and
    /// a vertex used by several objects is repeated in each.
    ///
    /// # Errors
    /// [`Error::Io`] (missing or unreadable file), [`Error::NoFaces`] (empty file or no face),
    /// and with the file's path and line: [`Error::InvalidUtf8`], [`Error::Syntax`],
    /// [`Error::NonFiniteValue`], [`Error::FaceIndexOutOfRange`] (an index past the elements
    /// defined before the face, or 0), [`Error::FaceTooSmall`].
    pub fn from_obj(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        read_tri_mesh(&read_file(path)?, Format::Obj, Source::file(path))
    }
}

/// The mesh in `bytes`, in `format`: a cache's as it is, any other built with the default
/// options.
fn read_mesh(bytes: &[u8], format: Format, source: Source) -> Result<Mesh> {
    match format {
        Format::Cache => cache::read(bytes, source),
        format => Ok(Mesh::from_tri_mesh(
            read_tri_mesh(bytes, format, source)?,
            &BuildOptions::default(),
        )),
    }
}

impl Mesh {
    /// Loads a mesh file in any format ([`TriMesh::from_path`]) and builds its hierarchy with
    /// the default options; a meshcast cache is loaded with the hierarchy it holds
    /// ([`Mesh::load`]), with no build.
    ///
    /// # Errors
    /// As [`TriMesh::from_path`] and [`Mesh::load`].
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = read_file(path)?;
        let source = Source::file(path);
        read_mesh(&bytes, Format::of_file(source, &bytes)?, source)
    }
}

/// The scene in `bytes`, in `format`: a glTF file's default scene, any other format one
/// instance, untransformed, of its mesh.
fn read_scene(bytes: &[u8], format: Format, source: Source) -> Result<Scene> {
    #[cfg(feature = "gltf")]
    if format == Format::Gltf {
        return gltf::read_scene(bytes, source);
    }
    let mesh = Arc::new(read_mesh(bytes, format, source)?);
    Ok(Scene::from_instances([Instance::new(
        mesh,
        glam::Affine3A::IDENTITY,
    )?]))
}

impl Scene {
    /// Loads a file as a scene: a glTF file's default scene, its nodes becoming instances of
    /// shared meshes ([`Scene::from_gltf`]); any other format one instance, untransformed,
    /// of [`Mesh::from_path`].
    ///
    /// # Errors
    /// As [`Mesh::from_path`] and [`Scene::from_gltf`].
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = read_file(path)?;
        let source = Source::file(path);
        read_scene(&bytes, Format::of_file(source, &bytes)?, source)
    }

    /// Reads a scene from bytes in `format`, or in the format the bytes look like when
    /// `format` is `None` ([`Format::detect`]). As [`Scene::from_path`], but a glTF file must
    /// embed its buffers or be a GLB.
    ///
    /// # Errors
    /// As [`Scene::from_path`], without [`Error::Io`]; errors name the source `<bytes>`.
    ///
    /// # Examples
    /// ```
    /// use meshcast_mesh::{Format, Scene};
    ///
    /// let obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    /// let scene = Scene::from_bytes(obj, Some(Format::Obj))?;
    /// assert_eq!(scene.len(), 1);
    /// # Ok::<(), meshcast_mesh::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8], format: Option<Format>) -> Result<Self> {
        let source = Source::MEMORY;
        let format = Format::given_or_detected(format, bytes, source)?;
        read_scene(bytes, format, source)
    }
}
