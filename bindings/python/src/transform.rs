//! 4x4 (or 3x4) affine matrices from numpy, as the Rust library's `Affine3A`: the placement
//! of a scene's instances and of the second mesh of the mesh-against-mesh queries. A
//! transform places a mesh's world coordinates (its `vertices`): a mesh with an origin of
//! its own (`Mesh.origin`) is placed by the transform after the move from that origin,
//! composed in `f64` and rounded once (by the Rust library for a scene's instances).

use std::sync::Arc;

use meshcast::glam::{Affine3A, DAffine3, DMat4, DVec3};
use meshcast::Instance;
use numpy::PyArrayMethods;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::error::{to_py, MeshcastError};

/// The map of `transform` (as [`matrix`] reads it, rounded to `float32`) carrying the coordinates of a mesh whose
/// origin lies at `from` into a frame whose origin lies at `to`: `move(-to) * transform *
/// move(from)`, composed in `f64` and rounded once (the map of `transform` itself for
/// origins at zero): how the mesh-against-mesh queries, which take a map between the
/// meshes' own coordinates, place a mesh.
///
/// # Errors
/// As [`affine`], for the composed map.
pub fn affine_between(
    py: Python<'_>,
    transform: Option<&Bound<'_, PyAny>>,
    name: &str,
    from: DVec3,
    to: DVec3,
) -> PyResult<Affine3A> {
    let matrix = matrix(py, transform, name)?;
    if from == DVec3::ZERO && to == DVec3::ZERO {
        return rounded(matrix, name);
    }
    rounded(
        DMat4::from_translation(-to) * matrix * DMat4::from_translation(from),
        name,
    )
}

/// `mesh` placed by `matrix` (as [`matrix`] reads it) as a scene's instance, in `f64`
/// ([`Instance::new`]): the scene's `float32` queries use its rounding to `float32`,
/// its `float64` ones the matrix itself, so that a mesh placed far from the origin keeps its
/// precision (a mesh with an origin of its own has it folded in before rounding).
///
/// # Errors
/// `MeshcastError` for a matrix that is not finite in `float32`, or a placement that is not
/// invertible.
pub fn instance(mesh: Arc<meshcast::Mesh>, matrix: DMat4, name: &str) -> PyResult<Instance> {
    Instance::new(mesh, placement(matrix, name)?).map_err(to_py)
}

/// `matrix` as an `f64` placement, checked to be finite in `float32` as every placement's
/// rounding must be.
///
/// # Errors
/// `MeshcastError` for a matrix that is not finite in `float32`.
pub fn placement(matrix: DMat4, name: &str) -> PyResult<DAffine3> {
    rounded(matrix, name)?;
    Ok(DAffine3::from_mat4(matrix))
}

/// The 4x4 matrix of `transform` (4x4 or 3x4, last row `0 0 0 1`) in `f64`, as given; the
/// identity for `None`.
///
/// # Errors
/// `ValueError` for another shape or a last row other than `0 0 0 1`.
pub fn matrix(py: Python<'_>, transform: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<DMat4> {
    let Some(transform) = transform else {
        return Ok(DMat4::IDENTITY);
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
    Ok(DMat4::from_cols_array_2d(&rows).transpose())
}

/// `matrix` as the Rust library's `Affine3A`, rounded to `f32`.
///
/// # Errors
/// `MeshcastError` for a matrix that is not finite in `float32`.
fn rounded(matrix: DMat4, name: &str) -> PyResult<Affine3A> {
    let affine = Affine3A::from_mat4(matrix.as_mat4());
    if !affine.is_finite() {
        let rows = matrix.transpose().to_cols_array_2d();
        return Err(MeshcastError::new_err(format!(
            "{name} must be finite (in float32), not {:?}",
            &rows[..3]
        )));
    }
    Ok(affine)
}
