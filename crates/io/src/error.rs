//! What can go wrong while reading or writing a mesh file: the file itself (missing,
//! unreadable, of an unknown or disabled format), what is wrong in it and where
//! ([`Location`]), a cache that cannot be used ([`CacheProblem`]), and the mesh crate's own
//! checks of what the file holds ([`Error::Mesh`]).

use std::path::PathBuf;

use crate::{CacheProblem, Format, IndexKind, Location};

/// Everything that can go wrong while loading a mesh, a scene or a cache, or saving one.
///
/// File errors carry a [`Location`] (the file, and the line, byte or element); a mesh the
/// file describes but the mesh crate's checks reject (more vertices than a `u32` addresses,
/// an attribute that does not fit its triangles) is an [`Error::Mesh`], its message the mesh
/// crate's.
///
/// # Examples
/// ```
/// use meshcast_io::{Error, Format, TriMeshFiles};
/// use meshcast_mesh::TriMesh;
///
/// let err = TriMesh::from_bytes(b"v 0 0 0\nv 1 0 0\nf 1 2\n", Some(Format::Obj)).unwrap_err();
/// assert!(matches!(err, Error::FaceTooSmall { corners: 2, .. }));
/// assert_eq!(err.to_string(), "<bytes>:3: a face needs at least 3 vertices, this one has 2");
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
        format: Format,
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
        format: Format,
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

    /// A buffer for what the file holds (its bytes, its vertices or triangles, a cache's
    /// sections) could not be allocated: what it was for and the bytes it needed.
    #[error("{at}: {source}")]
    OutOfMemory {
        /// The file.
        at: Location,
        /// What did not fit.
        #[source]
        source: meshcast_bvh::OutOfMemory,
    },

    /// The mesh crate rejected what the file describes (its message, unchanged).
    #[error(transparent)]
    Mesh(#[from] meshcast_mesh::Error),
}

impl Error {
    /// The allocation that failed, if this error is one: the reader's own
    /// ([`Error::OutOfMemory`]), a cache's ([`CacheProblem::OutOfMemory`]) or the mesh
    /// crate's while building what the file holds.
    pub fn out_of_memory(&self) -> Option<meshcast_bvh::OutOfMemory> {
        match self {
            Self::OutOfMemory { source, .. } => Some(*source),
            Self::Cache {
                problem: CacheProblem::OutOfMemory(source),
                ..
            } => Some(*source),
            Self::Mesh(error) => error.out_of_memory(),
            _ => None,
        }
    }

    /// The mesh crate's [`TooLarge`](meshcast_mesh::Error::TooLarge): a file with more
    /// vertices (or face corners) than a `u32` index can address.
    #[cfg(any(feature = "obj", feature = "gltf", feature = "ply", feature = "stl"))]
    pub(crate) fn too_large(what: &'static str, count: u64) -> Self {
        Self::Mesh(meshcast_mesh::Error::TooLarge { what, count })
    }
}

/// This crate's `Result`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
