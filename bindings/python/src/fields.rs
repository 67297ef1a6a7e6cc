//! Many points at once: dense grids of signed distances, occupancy and winding numbers over
//! a box, and samples on and near the surface; the Rust library's `fields` with numpy at
//! the edge. A mesh with an origin of its own (`Mesh.origin`) takes the box in world
//! coordinates (carried into its frame) and gives its samples in world coordinates.

use meshcast::glam::DVec3;
use meshcast::{Aabb, NearSurfaceSamples, SurfaceSamples};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{self, frame_points, to_numpy, Rows};
use crate::error::to_py;
use crate::threads;

/// The points of a grid, as the Rust library's `Grid` names them: `shape` points over
/// `bounds`, the box's corners the first and last.
pub struct GridSpec {
    bounds: Aabb,
    shape: [usize; 3],
}

impl GridSpec {
    /// The grid of `bounds`, a `(2, 3)` array `[[min x, y, z], [max x, y, z]]` (any real
    /// dtype, world coordinates carried into the frame of a mesh whose origin lies at
    /// `origin` and rounded to float32), and `shape`, three counts `(nx, ny, nz)`.
    ///
    /// # Errors
    /// `ValueError` for another shape of `bounds`, a coordinate that is not finite, or a
    /// count that is negative or not three of them.
    pub fn new(
        bounds: &Bound<'_, PyAny>,
        shape: &Bound<'_, PyAny>,
        origin: DVec3,
    ) -> PyResult<Self> {
        let rows = Rows::new(bounds, "bounds", 3)?.shaped(
            |leading| leading == [2],
            "(2, 3), [[min x, y, z], [max x, y, z]]",
        )?;
        let corners = arrays::points_in(&rows.view(), origin)?;
        let counts: Vec<i64> = shape.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "shape must be three counts (nx, ny, nz), not {}",
                shape.repr().map_or_else(|_| "?".into(), |r| r.to_string())
            ))
        })?;
        let shape: [usize; 3] = match counts.as_slice() {
            &[nx, ny, nz] if nx >= 0 && ny >= 0 && nz >= 0 => [nx, ny, nz].map(|n| n as usize),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "shape must be three counts (nx, ny, nz), each at least 0, not {counts:?}"
                )))
            }
        };
        Ok(Self {
            bounds: Aabb::new(corners[0], corners[1]),
            shape,
        })
    }

    /// The grid's values, one per point in the grid's order, computed by `values` of the
    /// grid's bounds and shape on the pool of `threads` threads with the GIL released, as
    /// an `(nx, ny, nz)` array: the body of every grid query (`Mesh.compute_*_grid`).
    ///
    /// # Errors
    /// `ValueError` for a grid too large to store.
    pub fn compute<'py, T: numpy::Element + Send>(
        &self,
        py: Python<'py>,
        threads: Option<i64>,
        values: impl FnOnce(Aabb, [usize; 3]) -> Vec<T> + Send,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fits = self
            .shape
            .iter()
            .try_fold(size_of::<T>(), |bytes, &n| bytes.checked_mul(n))
            .is_some_and(|bytes| bytes <= isize::MAX as usize);
        if !fits {
            return Err(PyValueError::new_err(format!(
                "a grid of shape {:?} is too large to store",
                self.shape
            )));
        }
        let values = threads::run(py, threads, || Ok(values(self.bounds, self.shape)))?;
        to_numpy(py, values, &self.shape, &[])
    }
}

/// The band of a signed distance grid: `None` for none (also infinity), else
/// `max_distance` rounded to `float32`.
///
/// # Errors
/// `ValueError` for a NaN or negative band.
pub fn band(max_distance: Option<f64>) -> PyResult<Option<f32>> {
    match max_distance {
        Some(m) if m.is_nan() || m < 0.0 => Err(PyValueError::new_err(format!(
            "max_distance must be at least 0 or None, not {m}"
        ))),
        Some(m) if m.is_finite() => Ok(Some(m as f32)),
        _ => Ok(None),
    }
}

/// A count of samples or a seed, as a non-negative integer of 64 bits.
///
/// # Errors
/// `ValueError` for a negative or larger integer.
pub fn unsigned(value: i128, name: &str) -> PyResult<u64> {
    u64::try_from(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{name} must be an integer from 0 to 2**64 - 1, not {value}"
        ))
    })
}

/// A length the Rust library checks itself (`radius`, `sigma`), as `f32`; a NaN or
/// infinite one stays so, for the library's `InvalidParameter`.
///
/// # Errors
/// `ValueError` for a finite length beyond `float32`'s range.
pub fn length(value: f64, name: &str) -> PyResult<f32> {
    let rounded = value as f32;
    if value.is_finite() && !rounded.is_finite() {
        return Err(PyValueError::new_err(format!(
            "{name} must be a float32 length, not {value}"
        )));
    }
    Ok(rounded)
}

/// Surface samples of a mesh whose origin lies at `origin` as a dict of `points` (n, 3)
/// ([`frame_points`]: float32, float64 world coordinates for an origin of its own),
/// `primitive_ids` (n,) uint32 and `primitive_uvs` (n, 2) float32 (the barycentric weights
/// of each triangle's second and third corners, as `cast_rays` answers them).
pub fn surface_dict(
    py: Python<'_>,
    samples: SurfaceSamples,
    origin: DVec3,
) -> PyResult<Bound<'_, PyDict>> {
    let n = samples.len();
    let uvs: Vec<f32> = samples.barycentrics.into_iter().flatten().collect();
    let dict = PyDict::new(py);
    dict.set_item("points", frame_points(py, &samples.points, origin)?)?;
    dict.set_item("primitive_ids", to_numpy(py, samples.triangles, &[n], &[])?)?;
    dict.set_item("primitive_uvs", to_numpy(py, uvs, &[n], &[2])?)?;
    Ok(dict)
}

/// Near-surface samples of a mesh whose origin lies at `origin` as a dict of `points` (n,
/// 3) ([`frame_points`]) and `signed_distances` (n,) float32.
pub fn near_dict(
    py: Python<'_>,
    samples: NearSurfaceSamples,
    origin: DVec3,
) -> PyResult<Bound<'_, PyDict>> {
    let n = samples.len();
    let dict = PyDict::new(py);
    dict.set_item("points", frame_points(py, &samples.points, origin)?)?;
    dict.set_item(
        "signed_distances",
        to_numpy(py, samples.distances, &[n], &[])?,
    )?;
    Ok(dict)
}

/// A number of samples, each taking `item_size` bytes.
///
/// # Errors
/// `ValueError` for a negative count or one too large to store.
fn samples(n: i128, item_size: usize) -> PyResult<usize> {
    let n = unsigned(n, "n")?;
    usize::try_from(n)
        .ok()
        .filter(|&n| {
            n.checked_mul(item_size)
                .is_some_and(|b| b <= isize::MAX as usize)
        })
        .ok_or_else(|| PyValueError::new_err(format!("n = {n} samples are too many to store")))
}

/// `Mesh.sample_surface`.
pub fn sample_surface<'py>(
    py: Python<'py>,
    mesh: &meshcast::Mesh,
    n: i128,
    seed: i128,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (n, seed) = (samples(n, 24)?, unsigned(seed, "seed")?);
    let found = threads::run(py, threads, || Ok(mesh.sample_surface(n, seed)))?;
    surface_dict(py, found, mesh.origin())
}

/// `Mesh.sample_surface_even`.
pub fn sample_surface_even<'py>(
    py: Python<'py>,
    mesh: &meshcast::Mesh,
    n: i128,
    radius: Option<f64>,
    seed: i128,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (n, seed) = (samples(n, 24)?, unsigned(seed, "seed")?);
    let radius = radius.map(|r| length(r, "radius")).transpose()?;
    let found = threads::run(py, threads, || {
        mesh.sample_surface_even(n, radius, seed).map_err(to_py)
    })?;
    surface_dict(py, found, mesh.origin())
}

/// `Mesh.sample_near_surface`.
pub fn sample_near_surface<'py>(
    py: Python<'py>,
    mesh: &meshcast::Mesh,
    n: i128,
    sigma: f64,
    seed: i128,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (n, seed) = (samples(n, 16)?, unsigned(seed, "seed")?);
    let sigma = length(sigma, "sigma")?;
    let found = threads::run(py, threads, || {
        mesh.sample_near_surface(n, sigma, seed).map_err(to_py)
    })?;
    near_dict(py, found, mesh.origin())
}
