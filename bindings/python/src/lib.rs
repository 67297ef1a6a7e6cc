//! meshcast for Python: exact BVH ray casting on numpy arrays, with Open3D's
//! `RaycastingScene` names and shapes. The Python package (`python/meshcast`) wraps this
//! module, `meshcast._native`, and adds the trimesh drop-in and the Dask path.

mod arrays;
mod benchmark;
mod camera;
mod contact;
mod fields;
mod geometry;
mod gpu;
mod keywords;
mod mesh;
mod queries;
mod ray_arguments;
mod ray_methods;
mod scene;
mod threads;
mod transform;
mod views;

use pyo3::prelude::*;

pyo3::create_exception!(
    meshcast,
    MeshcastError,
    pyo3::exceptions::PyValueError,
    "A mesh, scene or cache meshcast cannot read or build: the message names the file and the place in it."
);

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<camera::Camera>()?;
    m.add_class::<geometry::Geometry>()?;
    m.add_class::<mesh::Mesh>()?;
    m.add_class::<scene::Scene>()?;
    m.add_class::<gpu::GpuMesh>()?;
    m.add_function(wrap_pyfunction!(gpu::gpu_adapters, m)?)?;
    m.add("MeshcastError", m.py().get_type::<MeshcastError>())?;
    m.add("INVALID_ID", queries::INVALID_ID)?;
    m.add_function(wrap_pyfunction!(benchmark::rust_cast_batch_seconds, m)?)?;
    m.add_function(wrap_pyfunction!(contact::triangle_distances, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// A meshcast error as a Python exception: a missing file as `FileNotFoundError`, other
/// failures to read as `OSError`, everything else as [`MeshcastError`] (a `ValueError`).
pub fn to_py(err: impl Into<meshcast::Error>) -> PyErr {
    use meshcast::{Error, IoError};
    use pyo3::exceptions::{PyFileNotFoundError, PyOSError};
    let err = err.into();
    match &err {
        Error::Io(IoError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(err.to_string())
        }
        Error::Io(IoError::Io { .. }) => PyOSError::new_err(err.to_string()),
        _ => MeshcastError::new_err(err.to_string()),
    }
}
