//! meshcast's errors as Python exceptions: `MeshcastError` (a `ValueError`) and the
//! conversion every module answers a failed engine call with.

use pyo3::exceptions::{PyFileNotFoundError, PyOSError};
use pyo3::PyErr;

pyo3::create_exception!(
    meshcast,
    MeshcastError,
    pyo3::exceptions::PyValueError,
    "A mesh, scene or cache meshcast cannot read or build: the message names the file and the place in it."
);

/// A meshcast error as a Python exception: a missing file as `FileNotFoundError`, other
/// failures to read as `OSError`, everything else as [`MeshcastError`] (a `ValueError`).
pub fn to_py(err: impl Into<meshcast::Error>) -> PyErr {
    use meshcast::{Error, IoError};
    let err = err.into();
    match &err {
        Error::Io(IoError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(err.to_string())
        }
        Error::Io(IoError::Io { .. }) => PyOSError::new_err(err.to_string()),
        _ => MeshcastError::new_err(err.to_string()),
    }
}
