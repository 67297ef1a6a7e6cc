//! The one error users see: the mesh crate's, the file readers' and the GPU's errors
//! gathered, each message unchanged, so that a program handles every fallible call of
//! meshcast with one type and `?`.

/// Everything that can go wrong in meshcast: a mesh, instance, scene or query the engine
/// rejects ([`Error::Mesh`]), a file that cannot be read or written ([`Error::Io`]), and,
/// with the `gpu` feature, a GPU that cannot be opened or fails ([`Error::Gpu`]).
///
/// Each layer's calls return their own error ([`MeshError`](crate::MeshError),
/// [`IoError`](crate::IoError), `GpuError`); `?` turns any of them into this one. The mesh
/// crate's errors are always [`Error::Mesh`], also where a reader met them while building
/// what a file describes. The message is the layer's, unchanged.
///
/// # Examples
/// ```
/// use meshcast::{Error, Format, IoError, MeshError, TriMesh, TriMeshFiles};
///
/// fn load(bytes: &[u8]) -> meshcast::Result<TriMesh> {
///     Ok(TriMesh::from_bytes(bytes, Some(Format::Obj))?)
/// }
///
/// let err = load(b"v 0 0 0\nv 1 0 0\nf 1 2\n").unwrap_err();
/// assert!(matches!(err, Error::Io(IoError::FaceTooSmall { corners: 2, .. })));
/// assert_eq!(err.to_string(), "<bytes>:3: a face needs at least 3 vertices, this one has 2");
///
/// let err = Error::from(TriMesh::from_triangles(&[[0.0; 3], [1.0, 0.0, 0.0]], &[[0, 1, 2]]).unwrap_err());
/// assert!(matches!(err, Error::Mesh(MeshError::IndexOutOfRange { index: 2, .. })));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The engine rejected a mesh, an instance, a scene or a query's arguments, whether given
    /// as slices or read from a file.
    #[error(transparent)]
    Mesh(#[from] meshcast_mesh::Error),

    /// A file could not be read or written, or does not hold a valid mesh in its format.
    /// Never [`meshcast_io::Error::Mesh`]: that one is an [`Error::Mesh`].
    #[error(transparent)]
    Io(meshcast_io::Error),

    /// No GPU could be opened, or the GPU failed (the `gpu` feature). Never
    /// [`meshcast_gpu::Error::Mesh`]: that one is an [`Error::Mesh`].
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(meshcast_gpu::Error),
}

impl Error {
    /// The allocation that failed, if this error is one: a buffer of loading, building or
    /// caching that could not be allocated, named with the bytes it needed.
    ///
    /// # Examples
    /// ```
    /// use meshcast::{Error, MeshError, OutOfMemory};
    ///
    /// let oom = OutOfMemory { what: "the hierarchy's wide nodes", bytes: 1 << 40 };
    /// let err = Error::from(MeshError::OutOfMemory(oom));
    /// assert_eq!(err.out_of_memory(), Some(oom));
    /// assert_eq!(err.to_string(), "out of memory: the hierarchy's wide nodes needs 1099511627776 bytes");
    /// ```
    pub fn out_of_memory(&self) -> Option<meshcast_bvh::OutOfMemory> {
        match self {
            Self::Mesh(error) => error.out_of_memory(),
            Self::Io(error) => error.out_of_memory(),
            #[cfg(feature = "gpu")]
            Self::Gpu(_) => None,
        }
    }
}

impl From<meshcast_io::Error> for Error {
    fn from(error: meshcast_io::Error) -> Self {
        match error {
            meshcast_io::Error::Mesh(error) => Self::Mesh(error),
            error => Self::Io(error),
        }
    }
}

#[cfg(feature = "gpu")]
impl From<meshcast_gpu::Error> for Error {
    fn from(error: meshcast_gpu::Error) -> Self {
        match error {
            meshcast_gpu::Error::Mesh(error) => Self::Mesh(error),
            error => Self::Gpu(error),
        }
    }
}

impl From<meshcast_bvh::Error> for Error {
    fn from(error: meshcast_bvh::Error) -> Self {
        Self::Mesh(error.into())
    }
}

impl From<meshcast_primitives::Error> for Error {
    fn from(error: meshcast_primitives::Error) -> Self {
        Self::Mesh(error.into())
    }
}

/// The facade's `Result`, with the gathered [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mesh_error_met_by_a_reader_is_a_mesh_error() {
        let inner = meshcast_mesh::Error::TooLarge {
            what: "vertex",
            count: 1 << 33,
        };
        let message = inner.to_string();
        let gathered = Error::from(meshcast_io::Error::from(inner));
        assert!(matches!(
            gathered,
            Error::Mesh(meshcast_mesh::Error::TooLarge { .. })
        ));
        assert_eq!(gathered.to_string(), message);
    }
}
