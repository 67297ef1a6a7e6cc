//! 4x4 (or 3x4) affine matrices from numpy, as the Rust library's `Affine3A`: the placement
//! of a scene's instances and of the second mesh of the mesh-against-mesh queries.

use meshcast::glam::{Affine3A, DMat4};
use numpy::PyArrayMethods;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::error::MeshcastError;

/// The affine map of a 4x4 (or 3x4) matrix whose last row is `0 0 0 1`; the identity for
/// `None`. `name` is what the caller calls the matrix, for messages.
///
/// # Errors
/// `ValueError` for another shape or a last row other than `0 0 0 1`; `MeshcastError` for a
/// matrix that is not finite in `float32` (NaN, infinite, or beyond its range).
pub fn affine(
    py: Python<'_>,
    transform: Option<&Bound<'_, PyAny>>,
    name: &str,
) -> PyResult<Affine3A> {
    let Some(transform) = transform else {
        return Ok(Affine3A::IDENTITY);
    };
    let numpy = py.import("numpy")?;
    let matrix = numpy.call_method1("asarray", (transform, "float64"))?;
    let shape: Vec<usize> = matrix.getattr("shape")?.extract()?;
    let matrix = numpy.call_method1("ascontiguousarray", (matrix,))?;
    let values = matrix.cast::<numpy::PyArrayDyn<f64>>()?.readonly();
    let values = values.as_slice()?;
    let mut rows = [[0.0_f64; 4]; 4];
    match shape.as_slice() {
        [3 | 4, 4] => {
            for (row, chunk) in rows.iter_mut().zip(values.chunks_exact(4)) {
                row.copy_from_slice(chunk);
            }
            if shape[0] == 3 {
                rows[3] = [0.0, 0.0, 0.0, 1.0];
            }
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "{name} must have shape (4, 4) or (3, 4), not {}",
                matrix.getattr("shape")?
            )))
        }
    }
    if rows[3] != [0.0, 0.0, 0.0, 1.0] {
        return Err(PyValueError::new_err(format!(
            "{name} must be affine (last row 0 0 0 1), not {:?}",
            rows[3]
        )));
    }
    let matrix = DMat4::from_cols_array_2d(&rows).transpose();
    let affine = Affine3A::from_mat4(matrix.as_mat4());
    if !affine.is_finite() {
        return Err(MeshcastError::new_err(format!(
            "{name} must be finite (in float32), not {:?}",
            &rows[..3]
        )));
    }
    Ok(affine)
}
