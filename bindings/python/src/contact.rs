//! Mesh against mesh: whether two meshes' surfaces meet, the pairs of triangles that do,
//! how far apart they are (nearest points and Hausdorff distance), and where a mesh cuts
//! itself; each a call of the Rust library
//! with the GIL released. `transform` places the other mesh in this mesh's space.

use std::sync::Arc;

use meshcast::glam::{Affine3A, DVec3};
use numpy::PyArrayMethods;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use crate::arrays::to_numpy;
use crate::mesh::Mesh;
use crate::threads;
use crate::transform::affine;

/// The mesh of `other` and the map of `transform` (other to self; the identity for `None`).
pub fn placed(
    other: &Bound<'_, Mesh>,
    transform: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Arc<meshcast::Mesh>, Affine3A)> {
    Ok((
        Mesh::shared(other),
        affine(other.py(), transform, "transform")?,
    ))
}

/// Pairs of triangle indices as a `(k, 2)` uint32 array.
pub fn pairs_array(py: Python<'_>, pairs: Vec<(u32, u32)>) -> PyResult<Bound<'_, PyAny>> {
    let count = pairs.len();
    let flat: Vec<u32> = pairs.into_iter().flat_map(|(a, b)| [a, b]).collect();
    to_numpy(py, flat, &[count], &[2])
}

/// `max_distance` as the Rust library's bound: `None` for no bound (also infinity), else
/// the smallest `f32` not below it, so that no pair within it is missed.
///
/// # Errors
/// `ValueError` for a NaN or negative distance.
pub fn distance_bound(max_distance: Option<f64>) -> PyResult<Option<f32>> {
    match max_distance {
        None => Ok(None),
        Some(m) if m.is_nan() || m < 0.0 => Err(PyValueError::new_err(format!(
            "max_distance must be at least 0 or None, not {m}"
        ))),
        Some(m) if m == f64::INFINITY => Ok(None),
        Some(m) => {
            let bound = m as f32;
            Ok(Some(if f64::from(bound) < m {
                bound.next_up()
            } else {
                bound
            }))
        }
    }
}

/// `distance_to_mesh`'s answer as a dict: `distance`, `points` (2, 3) float32 (on this
/// mesh, on the other in this mesh's space) and `primitive_ids` (2,) uint32; `None` when
/// there is none, or its distance (as answered, float32) is beyond `max_distance`.
pub fn distance_dict(
    py: Python<'_>,
    found: Option<meshcast::MeshDistance>,
    max_distance: Option<f64>,
) -> PyResult<Option<Bound<'_, PyDict>>> {
    let Some(found) = found else {
        return Ok(None);
    };
    if max_distance.is_some_and(|m| f64::from(found.distance) > m) {
        return Ok(None);
    }
    let dict = PyDict::new(py);
    dict.set_item("distance", f64::from(found.distance))?;
    let points = [found.point_on_self, found.point_on_other].map(|p| p.to_array());
    dict.set_item("points", to_numpy(py, points.concat(), &[2], &[3])?)?;
    let ids = vec![found.triangle_self, found.triangle_other];
    dict.set_item("primitive_ids", to_numpy(py, ids, &[2], &[])?)?;
    Ok(Some(dict))
}

/// `relative_error` as the Rust library's `f32`.
///
/// # Errors
/// `ValueError` for a NaN or negative error.
pub fn relative_error(relative_error: f64) -> PyResult<f32> {
    if relative_error.is_nan() || relative_error < 0.0 {
        return Err(PyValueError::new_err(format!(
            "relative_error must be at least 0, not {relative_error}"
        )));
    }
    Ok(relative_error as f32)
}

/// `hausdorff_distance`'s answer as a dict: `distance` (the larger directed distance) and
/// `self_to_other`, `other_to_self`, each a dict of `distance`, `bound` (floats), `points`
/// (2, 3) float32 (the farthest point found, its nearest point on the other surface) and
/// `primitive_ids` (2,) uint32 (their triangles), every point in this mesh's space.
pub fn hausdorff_dict(
    py: Python<'_>,
    found: Option<meshcast::HausdorffDistance>,
) -> PyResult<Option<Bound<'_, PyDict>>> {
    let Some(found) = found else {
        return Ok(None);
    };
    let directed = |side: &meshcast::DirectedHausdorff| -> PyResult<Bound<'_, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("distance", f64::from(side.distance))?;
        dict.set_item("bound", f64::from(side.bound))?;
        let points = [side.from_point, side.to_point].map(|p| p.to_array());
        dict.set_item("points", to_numpy(py, points.concat(), &[2], &[3])?)?;
        let ids = vec![side.from_triangle, side.to_triangle];
        dict.set_item("primitive_ids", to_numpy(py, ids, &[2], &[])?)?;
        Ok(dict)
    };
    let dict = PyDict::new(py);
    dict.set_item("distance", f64::from(found.distance()))?;
    dict.set_item("self_to_other", directed(&found.self_to_other)?)?;
    dict.set_item("other_to_self", directed(&found.other_to_self)?)?;
    Ok(Some(dict))
}

/// The distance between triangle `pairs[i][0]` of `mesh` and triangle `pairs[i][1]` of
/// `other` placed by `transform`, for each pair, as the Rust library's mesh distance
/// computes it (`meshcast.primitives.triangles_distance` on the corners carried in
/// float64, zero decided exactly): a dict of `distance` (k,) and `points_on_mesh`,
/// `points_on_other` (k, 3), float64, in `mesh`'s space. Where two triangles meet, both
/// points are one point where they meet. The reference of the tests, and the contact points
/// of `meshcast.trimesh.CollisionManager`.
#[pyfunction]
#[pyo3(name = "_triangle_distances", signature = (mesh, other, pairs, transform=None))]
pub fn triangle_distances<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, Mesh>,
    other: &Bound<'py, Mesh>,
    pairs: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let this = Mesh::shared(mesh);
    let (other, transform) = placed(other, transform)?;
    let numpy = py.import("numpy")?;
    let pairs = numpy.call_method1("asarray", (pairs, "int64"))?;
    let shape: Vec<usize> = pairs.getattr("shape")?.extract()?;
    if shape.len() != 2 || shape[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "pairs must have shape (k, 2), not {}",
            pairs.getattr("shape")?
        )));
    }
    let pairs = numpy.call_method1("ascontiguousarray", (pairs,))?;
    let pairs = pairs.cast::<numpy::PyArray2<i64>>()?.readonly();
    let pairs = pairs.as_slice()?;
    let counts = [this.triangle_count(), other.triangle_count()];
    for (k, pair) in pairs.chunks_exact(2).enumerate() {
        for (side, (&t, count)) in pair.iter().zip(counts).enumerate() {
            if usize::try_from(t).map_or(true, |t| t >= count) {
                return Err(PyValueError::new_err(format!(
                    "pairs[{k}, {side}] is {t}: that mesh has {count} triangles"
                )));
            }
        }
    }
    let answers: Vec<meshcast::TriangleDistance> = threads::run(py, None, || {
        let carry = transform.as_daffine3();
        let corners = |mesh: &meshcast::Mesh, t: i64, carried: bool| -> [DVec3; 3] {
            let tri_mesh = mesh.tri_mesh();
            tri_mesh.indices()[t as usize].map(|v| {
                let p = tri_mesh.positions()[v as usize].as_dvec3();
                if carried {
                    carry.transform_point3(p)
                } else {
                    p
                }
            })
        };
        Ok(pairs
            .par_chunks_exact(2)
            .map(|pair| {
                meshcast::triangles_distance(
                    &corners(&this, pair[0], false),
                    &corners(&other, pair[1], true),
                )
            })
            .collect())
    })?;
    let count = answers.len();
    let dict = PyDict::new(py);
    let distance: Vec<f64> = answers.iter().map(|a| a.distance).collect();
    let on_mesh: Vec<f64> = answers.iter().flat_map(|a| a.on_a.to_array()).collect();
    let on_other: Vec<f64> = answers.iter().flat_map(|a| a.on_b.to_array()).collect();
    dict.set_item("distance", to_numpy(py, distance, &[count], &[])?)?;
    dict.set_item("points_on_mesh", to_numpy(py, on_mesh, &[count], &[3])?)?;
    dict.set_item("points_on_other", to_numpy(py, on_other, &[count], &[3])?)?;
    Ok(dict)
}
