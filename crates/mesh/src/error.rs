//! What the mesh crate itself rejects: bad slices of triangles and attributes, transforms
//! that cannot be inverted, instance ids a scene does not hold, query parameters out of
//! range, and the warnings a reader leaves on a mesh. Files' errors are `meshcast-io`'s, the
//! GPU's `meshcast-gpu`'s; the `meshcast` facade gathers all three into one error.
//!
//! May use: nothing else of the crate. Used by every room above it.

use std::path::PathBuf;

/// Everything that can go wrong while constructing a mesh, an instance or a scene from
/// slices, or while asking one a query with out-of-range parameters.
///
/// Errors in caller-supplied slices carry the triangle or vertex index and the bad value.
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

    /// A buffer (of a mesh, its build or its leaves) could not be allocated: what it was for
    /// and the bytes it needed.
    #[error(transparent)]
    OutOfMemory(#[from] meshcast_bvh::OutOfMemory),

    /// An instance transform that is not finite or cannot be inverted (a zero scale).
    #[error("instance transform is not finite or not invertible: {transform:?}")]
    InvalidTransform {
        /// The transform.
        transform: glam::Affine3A,
    },

    /// A hierarchy check or refit failed ([`meshcast_bvh::Bvh::validate`],
    /// [`meshcast_bvh::Bvh::refit`]); here so that one error type covers the mesh crate and
    /// the layers below it.
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
}

impl Error {
    /// The allocation that failed, if this error is one (the mesh's or its hierarchy's).
    pub fn out_of_memory(&self) -> Option<meshcast_bvh::OutOfMemory> {
        match self {
            Self::OutOfMemory(source) | Self::Bvh(meshcast_bvh::Error::OutOfMemory(source)) => {
                Some(*source)
            }
            _ => None,
        }
    }
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
