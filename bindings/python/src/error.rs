//! meshcast's errors as Python exceptions: `MeshcastError` (a `ValueError`) and the
//! conversion every module answers a failed engine call with.

use pyo3::exceptions::{PyFileNotFoundError, PyMemoryError, PyOSError};
use pyo3::PyErr;

pyo3::create_exception!(
    meshcast,
    MeshcastError,
    pyo3::exceptions::PyValueError,
    "A mesh, scene or cache meshcast cannot read or build: the message names the file and the place in it."
);

/// A meshcast error as a Python exception: a missing file as `FileNotFoundError`, other
/// failures to read as `OSError`, a buffer that could not be allocated as `MemoryError`,
/// everything else as [`MeshcastError`] (a `ValueError`).
pub fn to_py(err: impl Into<meshcast::Error>) -> PyErr {
    use meshcast::{Error, IoError};
    let err = err.into();
    if err.out_of_memory().is_some() {
        return PyMemoryError::new_err(err.to_string());
    }
    match &err {
        Error::Io(IoError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(err.to_string())
        }
        Error::Io(IoError::Io { .. }) => PyOSError::new_err(err.to_string()),
        _ => MeshcastError::new_err(err.to_string()),
    }
}
