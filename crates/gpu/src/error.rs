//! What can go wrong on the GPU path: no adapter to open ([`Error::NoGpu`]), an operation
//! the GPU refused or failed ([`Error::Gpu`]), rays on the device a query cannot read
//! ([`Error::DeviceRays`], [`Error::NotFinite`]), and the mesh crate's own errors where the
//! GPU path calls it ([`Error::Mesh`]).

/// Everything that can go wrong while opening a GPU, uploading a mesh to it or tracing rays
/// there.
///
/// # Examples
/// ```
/// use meshcast_gpu::Error;
///
/// let err = Error::NoGpu { reason: "no adapter named `rtx`".into() };
/// assert_eq!(err.to_string(), "no GPU adapter: no adapter named `rtx`");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No GPU adapter could be opened: none is present, none matches the name asked for, or
    /// the one found refused a device.
    #[error("no GPU adapter: {reason}")]
    NoGpu {
        /// Why, with the adapters that were found.
        reason: String,
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

    /// Rays on the device that a query cannot read: no CUDA back end, arrays in memory the
    /// CUDA device cannot read or on another device, misaligned, or of different lengths.
    #[error("rays on the device: {reason}")]
    DeviceRays {
        /// What is wrong, and with which array.
        reason: String,
    },

    /// A ray with a coordinate that is NaN or infinite, which a query of rays on the
    /// device refuses as a query of the Python package refuses it on the host.
    #[error("ray {ray} is not finite")]
    NotFinite {
        /// The first such ray.
        ray: usize,
    },

    /// The mesh crate rejected an argument (its message, unchanged).
    #[error(transparent)]
    Mesh(#[from] meshcast_mesh::Error),
}

/// This crate's `Result`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
