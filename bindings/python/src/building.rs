//! An engine mesh built from numpy arrays: `(N, 3)` vertex positions and `(M, 3)` integer
//! vertex indices, checked at the edge (`Mesh(...)`, `Scene.add_triangles`).

use std::sync::Arc;

use numpy::PyArrayMethods;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::arrays::{self, Rows};
use crate::error::to_py;
use crate::threads;

/// The vertex indices of `faces` as `u32` triples.
fn faces_of(py: Python<'_>, faces: &Bound<'_, PyAny>) -> PyResult<Vec<[u32; 3]>> {
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("asarray", (arrays::plain(faces)?,))?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let empty = shape.iter().product::<usize>() == 0;
    if !(kind == "i" || kind == "u" || empty) {
        return Err(PyTypeError::new_err(format!(
            "faces must hold integer vertex indices, not {}",
            array.getattr("dtype")?.str()?
        )));
    }
    if shape.len() != 2 || shape[1] != 3 {
        return Err(PyValueError::new_err(format!(
            "faces must have shape (M, 3), not {}",
            array.getattr("shape")?
        )));
    }
    let wide = numpy.call_method1("ascontiguousarray", (array, "int64"))?;
    let wide = wide.cast::<numpy::PyArray2<i64>>()?.readonly();
    let indices = wide.as_slice()?;
    let mut faces = Vec::with_capacity(shape[0]);
    for (face, corners) in indices.chunks_exact(3).enumerate() {
        let mut triple = [0_u32; 3];
        for (slot, &corner) in triple.iter_mut().zip(corners) {
            *slot = u32::try_from(corner).map_err(|_| {
                PyValueError::new_err(format!(
                    "faces[{face}] refers to vertex {corner}, which no mesh has"
                ))
            })?;
        }
        faces.push(triple);
    }
    Ok(faces)
}

/// Builds the mesh of `vertices`, an `(N, 3)` array of positions, and `faces`, with the GIL
/// released: `float64` positions far from the world's origin around an origin of the mesh's
/// own ([`meshcast::Mesh::from_world_triangles`]), so that they keep their precision (a scene
/// places such a mesh where it lies, by its `f64` transform); `float32` positions as given.
pub fn build(
    py: Python<'_>,
    vertices: &Bound<'_, PyAny>,
    faces: &Bound<'_, PyAny>,
    threads: Option<i64>,
) -> PyResult<Arc<meshcast::Mesh>> {
    let rows = Rows::vertices(vertices)?;
    let faces = faces_of(py, faces)?;
    let view = rows.view();
    threads::run(py, threads, || {
        let mesh = if view.is_wide() {
            meshcast::Mesh::from_world_triangles(&view.map_rows_f64(|row: [f64; 3]| row), &faces)
        } else {
            meshcast::Mesh::from_triangles(&view.map_rows(|row: [f32; 3]| row), &faces)
        };
        mesh.map(Arc::new).map_err(to_py)
    })
}
