//! The engine's one error type: what went wrong with a file, a slice of triangles or a
//! transform, and where, and the warnings a reader gives. The file readers live in
//! `meshcast-io`; their errors are named here so that every fallible call, loading or
//! querying, answers the same [`Error`].
//!
//! May use: `format` (the errors name formats). Used by every room above it.

mod cache;

pub use cache::{CacheProblem, CacheSection};

use std::fmt;
use std::path::{Path, PathBuf};

/// A place in a mesh file: the file (none for bytes in memory) and where in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file, or `None` for bytes and readers.
    pub file: Option<PathBuf>,
    /// Where in it.
    pub place: Place,
}

/// Where in a file something is: a line of a text format, a byte of a binary one, an element
/// of a format made of numbered parts (a glTF accessor, a PLY face), or the file as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// The whole file.
    File,
    /// A line, counting from 1.
    Line(usize),
    /// A byte offset, counting from 0.
    Byte(u64),
    /// An element, counting from 0: `kind` names it (`"accessor"`, `"face"`, `"section"`).
    Element {
        /// What sort of element.
        kind: &'static str,
        /// Its index.
        index: usize,
    },
}

impl Location {
    /// `place` in `file` (`None` for bytes in memory).
    pub fn new(file: Option<&Path>, place: Place) -> Self {
        Self {
            file: file.map(Path::to_path_buf),
            place,
        }
    }

    /// The line, for a place in a text format.
    pub fn line(&self) -> Option<usize> {
        match self.place {
            Place::Line(line) => Some(line),
            _ => None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{}", file.display())?,
            None => f.write_str("<bytes>")?,
        }
        match self.place {
            Place::File => Ok(()),
            Place::Line(line) => write!(f, ":{line}"),
            Place::Byte(offset) => write!(f, ": byte {offset}"),
            Place::Element { kind, index } => write!(f, ": {kind} {index}"),
        }
    }
}

/// Which per-vertex list a face index points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    /// A position (`v`).
    Position,
    /// A texture coordinate (`vt`).
    TextureCoordinate,
    /// A normal (`vn`).
    Normal,
}

impl fmt::Display for IndexKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Position => "vertex",
            Self::TextureCoordinate => "texture coordinate",
            Self::Normal => "normal",
        })
    }
}

/// Everything that can go wrong while loading or constructing a mesh, an instance or a scene.
///
/// File errors carry a [`Location`] (the file, and the line, byte or element); errors in caller-supplied
/// slices carry the triangle or vertex index and the bad value.
///
/// # Examples
/// ```
/// use meshcast_mesh::{Error, TriMesh};
///
/// let err = TriMesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0]], &[[0, 1, 2]]).unwrap_err();
/// assert!(matches!(err, Error::IndexOutOfRange { triangle: 0, index: 2, .. }));
/// assert_eq!(err.to_string(), "triangle 0 refers to vertex 2, but there are only 2 vertices");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be opened or read (missing, a directory, no permission).
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// The file holds no face at all (empty, only comments, only vertices or lines).
    #[error("{at}: no faces in the file")]
    NoFaces {
        /// The file.
        at: Location,
    },

    /// Neither the file's extension nor its first bytes say which format it is in.
    #[error("{at}: not a mesh format meshcast reads (OBJ, glTF, PLY, STL or a meshcast cache)")]
    UnknownFormat {
        /// The file.
        at: Location,
    },

    /// The format's reader was left out of this build (a cargo feature of `meshcast-io` and of `meshcast`).
    #[error("{at}: this build reads no {format} files (enable the `{}` feature)", format.feature())]
    FormatDisabled {
        /// The file.
        at: Location,
        /// Its format.
        format: crate::Format,
    },

    /// The file ends before what its header or structure promises.
    #[error("{at}: the file ends early: expected {expected}")]
    Truncated {
        /// Where the missing data should be.
        at: Location,
        /// What was expected there.
        expected: String,
    },

    /// The file is not valid in its format: what the format's reader reported, with the
    /// place it knows.
    #[error("{at}: invalid {format} file: {problem}")]
    Malformed {
        /// Where.
        at: Location,
        /// The format.
        format: crate::Format,
        /// What is wrong.
        problem: String,
    },

    /// The file is valid but needs something meshcast does not read (a required glTF
    /// extension such as Draco compression, an external buffer when loading from bytes).
    #[error("{at}: unsupported: {what}")]
    Unsupported {
        /// Where.
        at: Location,
        /// What is needed.
        what: String,
    },

    /// A meshcast cache file that cannot be used: another format version, another build,
    /// or damaged.
    #[error("{at}: {problem}")]
    Cache {
        /// Where.
        at: Location,
        /// What is wrong.
        problem: CacheProblem,
    },

    /// A line is not valid UTF-8 (a binary or foreign-encoded file).
    #[error("{at}: not valid UTF-8 text")]
    InvalidUtf8 {
        /// Where.
        at: Location,
    },

    /// A statement could not be parsed.
    #[error("{at}: expected {expected}, found `{found}`")]
    Syntax {
        /// Where.
        at: Location,
        /// What the statement needs.
        expected: &'static str,
        /// What was there (cut to a few dozen characters).
        found: String,
    },

    /// A coordinate, texture coordinate or normal is NaN or infinite (text parsing accepts
    /// `nan` and `inf`, huge literals overflow, binary formats store any bits).
    #[error("{at}: coordinate `{found}` is not a finite number")]
    NonFiniteValue {
        /// Where.
        at: Location,
        /// The offending text (cut to a few dozen characters).
        found: String,
    },

    /// A face refers to a vertex, texture coordinate or normal that the file does not define
    /// (for OBJ: not before the face; OBJ indices are 1-based, and negative ones count back
    /// from the last definition).
    #[error("{at}: {kind} index {index} is out of range ({count} defined)")]
    FaceIndexOutOfRange {
        /// Where.
        at: Location,
        /// Which list the index points into.
        kind: IndexKind,
        /// The index as written in the file.
        index: i64,
        /// How many elements of that list were defined before the face.
        count: usize,
    },

    /// A face with fewer than three corners.
    #[error("{at}: a face needs at least 3 vertices, this one has {corners}")]
    FaceTooSmall {
        /// Where.
        at: Location,
        /// How many corners it has.
        corners: usize,
    },

    /// The OBJ parser (tobj) rejected a file that the line-by-line check accepted (no line
    /// number known).
    #[error("{at}: {source}")]
    Obj {
        /// The file.
        at: Location,
        /// The parser's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },

    /// A triangle refers to a vertex that does not exist.
    #[error(
        "triangle {triangle} refers to vertex {index}, but there are only {vertex_count} vertices"
    )]
    IndexOutOfRange {
        /// The triangle's index.
        triangle: usize,
        /// The bad vertex index.
        index: u32,
        /// How many vertices there are.
        vertex_count: usize,
    },

    /// A vertex position is NaN or infinite.
    #[error("vertex {vertex} is not finite: {position:?}")]
    NonFiniteVertex {
        /// The vertex index.
        vertex: usize,
        /// Its position.
        position: [f32; 3],
    },

    /// A per-corner attribute (normals, texture coordinates, group names) does not fit the
    /// triangles: wrong length, an index out of range, or a value that is not finite.
    #[error("{attribute}: {problem}")]
    InvalidAttribute {
        /// Which attribute (`"normals"`, `"uvs"`, `"groups"`).
        attribute: &'static str,
        /// What is wrong, with the index.
        problem: String,
    },

    /// More vertices or triangles than a `u32` index can address.
    #[error("{what} count {count} exceeds the u32 index range")]
    TooLarge {
        /// What overflowed (`"vertex"`, `"triangle"`).
        what: &'static str,
        /// The count that did not fit.
        count: u64,
    },

    /// An instance transform that is not finite or cannot be inverted (a zero scale).
    #[error("instance transform is not finite or not invertible: {transform:?}")]
    InvalidTransform {
        /// The transform.
        transform: glam::Affine3A,
    },

    /// A hierarchy check or refit failed ([`meshcast_bvh::Bvh::validate`],
    /// [`meshcast_bvh::Bvh::refit`]); here so that one error type covers the whole engine.
    #[error(transparent)]
    Bvh(#[from] meshcast_bvh::Error),

    /// A primitive could not be built (a [`meshcast_primitives::Polygon`]).
    #[error(transparent)]
    Geometry(#[from] meshcast_primitives::Error),

    /// An instance id that the scene does not hold (never added, or removed).
    #[error("no instance {instance} in the scene")]
    UnknownInstance {
        /// The id.
        instance: u32,
    },

    /// No GPU adapter could be opened: none is present, none matches the name asked for, or
    /// the one found refused a device.
    #[error("no GPU adapter: {reason}")]
    NoGpu {
        /// Why, with the adapters that were found.
        reason: String,
    },

    /// A query's parameter is outside its range (a NaN, negative or infinite length, a
    /// count too large to hold).
    #[error("invalid {parameter} {value}: expected {expected}")]
    InvalidParameter {
        /// The parameter's name, as the query's docs spell it.
        parameter: &'static str,
        /// The value given.
        value: f64,
        /// The range the query accepts.
        expected: &'static str,
    },

    /// The GPU refused or failed an operation (a buffer too large for the adapter, a lost
    /// device, a mesh the GPU path cannot trace).
    #[error("GPU {operation}: {message}")]
    Gpu {
        /// What was being done (`"upload"`, `"dispatch"`, `"readback"`).
        operation: &'static str,
        /// What went wrong.
        message: String,
    },
}

/// This crate's `Result`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Something a loader noticed but did not reject; collected in [`crate::TriMesh::warnings`],
/// never printed by the library.
///
/// # Examples
/// ```
/// use meshcast_mesh::Warning;
///
/// let w = Warning::IgnoredStatements { keyword: "l".into(), count: 2, first_line: 7 };
/// assert_eq!(w.to_string(), "ignored 2 `l` statement(s), the first on line 7");
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// A material library named by `mtllib` could not be loaded; materials are not used for
    /// ray casting, so the geometry is still complete.
    #[error("material library {}: {reason}", path.display())]
    MaterialLibrary {
        /// The library as named in the file, relative to the OBJ's folder.
        path: PathBuf,
        /// Why it could not be loaded, as the OBJ parser (tobj) said.
        reason: String,
    },

    /// Concave polygons, triangulated by ear clipping rather than as a fan from their first
    /// corner, so their triangles are not numbered like a fan's.
    #[error("ear-clipped {count} concave face(s), the first on line {first_line}")]
    ConcaveFaces {
        /// How many.
        count: usize,
        /// The first one's line.
        first_line: usize,
    },

    /// Concave polygons of a format that numbers its faces rather than its lines (PLY),
    /// ear-clipped as in [`Warning::ConcaveFaces`].
    #[error("ear-clipped {count} concave face(s), the first is face {first_face}")]
    ConcavePolygons {
        /// How many.
        count: usize,
        /// The first one's index among the file's faces, counting from 0.
        first_face: usize,
    },

    /// Statements that carry no triangles and were skipped: lines (`l`), points (`p`),
    /// free-form curves and surfaces, or unknown keywords.
    #[error("ignored {count} `{keyword}` statement(s), the first on line {first_line}")]
    IgnoredStatements {
        /// The keyword.
        keyword: String,
        /// How many.
        count: usize,
        /// The first line where it appears.
        first_line: usize,
    },

    /// Parts of a file that hold no triangles and were skipped, where lines do not number
    /// them: glTF point and line primitives.
    #[error("skipped {count} {what}")]
    SkippedPrimitives {
        /// How many.
        count: usize,
        /// What they are and where (`"LINES primitive(s) in mesh 2 (wire)"`).
        what: String,
    },
}
